#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
typedef unsigned long long u;
template<int C>__global__ void ch(u p,int w,int n,u*o){if(threadIdx.x)return;u g0,g1;
#define H if(C)asm volatile("ld.global.cg.u64 %0,[%0];":"+l"(p)::"memory");else asm volatile("ld.global.u64 %0,[%0];":"+l"(p)::"memory");
for(int i=0;i<w;i++){H}long long t=clock64();asm volatile("mov.u64 %0,%%globaltimer;":"=l"(g0));
#pragma unroll 16
for(int i=0;i<n;i++){H}o[1]=clock64()-t;asm volatile("mov.u64 %0,%%globaltimer;":"=l"(g1));o[2]=g1-g0;o[0]=p;}
__global__ void bd(char*b,u*s,int k){int i=blockIdx.x*blockDim.x+threadIdx.x;if(i<k)*(u*)(b+s[i])=(u)(b+s[(i+1)%k]);}
double MHZ;char*B;u*S,*O;std::mt19937_64 R(1);
template<int C>double run(std::vector<u>v,int bs,int dy,int cv){std::shuffle(v.begin(),v.end(),R);int k=v.size();
cudaMemcpy(S,v.data(),8*k,cudaMemcpyHostToDevice);bd<<<(k+255)/256,256>>>(B,S,k);
cudaFuncSetAttribute(ch<C>,cudaFuncAttributePreferredSharedMemoryCarveout,cv);u h[3];double r=1e9;
for(int j=0;j<3;j++){ch<C><<<1,bs,dy>>>((u)(B+v[0]),2*k,4096,O);cudaMemcpy(h,O,24,cudaMemcpyDeviceToHost);if(j)r=std::min(r,h[1]/4096.);}MHZ=h[1]*1e3/h[2];
if(cudaGetLastError())printf("ERR ");return r;}
int main(){cudaMalloc(&B,5ull<<30);cudaMalloc(&S,8<<24);cudaMalloc(&O,24);
int cf[][3]={{1,0,-1},{32,0,-1},{64,0,-1},{128,0,-1},{256,0,-1},{1024,0,-1},{1,0,0},{1024,0,0},{1,1024,-1},{1,0,50}};
for(auto&c:cf){int nb;cudaFuncSetAttribute(ch<0>,cudaFuncAttributePreferredSharedMemoryCarveout,c[2]);
cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb,ch<0>,c[0],c[1]);printf("L1 bs=%d dyn=%d carve=%d occ=%d:",c[0],c[1],c[2],nb);
for(int z:{144,160,176,192,200,208,216,224,232,240,248,256,272,288,320}){std::vector<u>v;for(u a=0;a<z*1024u;a+=128)v.push_back(a);printf(" %d:%.1f",z,run<0>(v,c[0],c[1],c[2]));}printf(" MHz=%.0f\n",MHZ);}
int tc[][2]={{0,32768},{1,8},{1,16},{1,32},{1,64},{1,96},{1,128},{1,160},{1,192},{1,256},{1,384},{1,512},{1,1024},{1,2048},
{2,64},{2,128},{4,32},{4,64},{8,16},{8,32},{8,64},{16,2},{16,4},{16,8},{16,12},{16,16},{16,24},{16,32},{32,8},{32,16}};
for(auto&t:tc){u st=t[0]?(u)t[0]<<21:128;std::vector<u>v;for(int i=0;i<t[1];i++)v.push_back(i*st+(t[0]?R()%16384*128:0));
double c=run<1>(v,1,0,-1);printf("TLB stride=%lluKiB pages=%d region=%lluMiB: %.1f MHz=%.0f\n",st>>10,t[1],st*t[1]>>20,c,MHZ);}}
