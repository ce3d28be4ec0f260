#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
typedef unsigned long long u;
__global__ void ch(u p,int w,int n,u*o){if(threadIdx.x)return;
#define H asm volatile("ld.global.u64 %0,[%0];":"+l"(p)::"memory");
for(int i=0;i<w;i++){H}long long t=clock64();
#pragma unroll 16
for(int i=0;i<n;i++){H}o[1]=clock64()-t;o[0]=p;}
__global__ void bd(char*b,u*s,int k){int i=blockIdx.x*blockDim.x+threadIdx.x;if(i<k)*(u*)(b+s[i])=(u)(b+s[(i+1)%k]);}
char*B;u*S,*O;std::mt19937_64 R(1);int K;u V0;
void mk(int z){std::vector<u>v;for(u a=0;a<z*1024u;a+=128)v.push_back(a);std::shuffle(v.begin(),v.end(),R);K=v.size();V0=v[0];
cudaMemcpy(S,v.data(),8*K,(cudaMemcpyKind)1);bd<<<(K+255)/256,256>>>(B,S,K);}
double go(int bs,int dy){u h[2];double r=1e9;for(int j=0;j<2;j++){ch<<<1,bs,dy>>>((u)(B+V0),2*K,4096,O);cudaMemcpy(h,O,16,(cudaMemcpyKind)2);if(j)r=h[1]/4096.;}return r;}
int main(){cudaMalloc(&B,1<<30);cudaMalloc(&S,8<<20);cudaMalloc(&O,16);
int cf[][2]={{1,0},{256,0},{288,0},{320,0},{384,0},{512,0},{640,0},{768,0},{1024,0},{1024,8192},{256,3072},{512,1024},{1,3072},{96,0},{160,0},{192,0}};
for(auto&c:cf){int nb;cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb,ch,c[0],c[1]);printf("L1 bs=%d dyn=%d occ=%d:",c[0],c[1],nb);
for(int z:{112,120,128,136,184,192,200,208,216,224,232,240,248,256}){mk(z);printf(" %d:%.1f",z,go(c[0],c[1]));}puts("");}
mk(240);printf("SEQ 240KiB:");for(int b:{1024,256,1024,1,1024,128,1024,512,768})printf(" bs%d:%.1f",b,go(b,0));puts("");}
