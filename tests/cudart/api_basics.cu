// Runtime API coverage beyond the workloads: properties, attributes, events, streams, managed
// memory, symbols, cudaMemcpyDefault, an invalid launch configuration and error strings.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("FAIL %s: %s\n", #x, cudaGetErrorName(e_)); return 1; } } while (0)

__device__ int counter;
__managed__ int managed_sum;

__global__ void scale(float* v, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { v[i] *= f; atomicAdd(&counter, 1); atomicAdd(&managed_sum, i); }
}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int sms = 0, major = 0, smem_optin = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  printf("props: cc %d.%d sms=%d/%d warp=%d l2=%d smem/block=%zu optin=%d\n", p.major, p.minor,
         p.multiProcessorCount, sms, p.warpSize, p.l2CacheSize, p.sharedMemPerBlock, smem_optin);
  int n = 1000;
  float* m = nullptr;
  CHECK(cudaMallocManaged(&m, n * sizeof(float)));
  for (int i = 0; i < n; ++i) m[i] = float(i);
  cudaStream_t s;
  cudaEvent_t a, b;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventRecord(a, s));
  scale<<<(n + 127) / 128, 128, 0, s>>>(m, 2.0f, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaStreamSynchronize(s));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  int c = 0;
  CHECK(cudaMemcpyFromSymbol(&c, counter, sizeof c));
  printf("managed: m[999]=%.1f counter=%d managed_sum=%d elapsed>0:%d\n", m[999], c, managed_sum, ms > 0);
  float* d = nullptr;
  float h[4] = {1, 2, 3, 4}, r[4] = {};
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyDefault));
  CHECK(cudaMemcpy(r, d, sizeof r, cudaMemcpyDefault));
  printf("default copy: %s\n", memcmp(h, r, sizeof h) == 0 ? "ok" : "bad");
  scale<<<1, 2048>>>(d, 1.0f, 4);
  cudaError_t e = cudaGetLastError();
  printf("bad config: %s (%s); next: %s\n", cudaGetErrorName(e), cudaGetErrorString(e), cudaGetErrorName(cudaGetLastError()));
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, scale));
  printf("func: ptxVersion=%d maxThreads=%d\n", fa.ptxVersion, fa.maxThreadsPerBlock);
  int v = 0;
  CHECK(cudaRuntimeGetVersion(&v));
  printf("runtime: %d\n", v);
  CHECK(cudaFree(d));
  CHECK(cudaFree(m));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaStreamDestroy(s));
  printf("api_basics: PASS\n");
  return 0;
}
