// What Nsight Compute's L2 hit and sector counters count on a cold L2 (--cache-control all), so that
// the simulator's lts__t_sector_hit_rate and dram__bytes can be compared with them:
//   stream  N: every sector of a 4*N-byte array read once (float4 per lane, grid-stride)
//   stride  N S: one 4-byte word of every S-th float (S = 32: one sector of every 128-B line)
//   shared  N R: every CTA reads the same N floats (R passes): cold misses from all SMs at once
//   twice   N: the array read by two launches (the second finds it in L2 when ncu does not flush)
// Each kernel writes one word per CTA only when a sum is a magic value (no store traffic).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void k_stream(const float4* a, long n4, float* out) {
  float s = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
    float4 v = a[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.678f) out[blockIdx.x] = s;
}

__global__ void k_stride(const float* a, long n, int stride, float* out) {
  float s = 0;
  for (long i = (blockIdx.x * (long)blockDim.x + threadIdx.x) * stride; i < n; i += (long)gridDim.x * blockDim.x * stride)
    s += a[i];
  if (s == 12345.678f) out[blockIdx.x] = s;
}

__global__ void k_shared(const float* a, long n, int passes, float* out) {
  float s = 0;
  for (int p = 0; p < passes; ++p)
    for (long i = threadIdx.x; i < n; i += blockDim.x) s += __ldcg(a + i);
  if (s == 12345.678f) out[blockIdx.x] = s;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: l2_hits stream|stride|shared|twice N [S|R]\n");
    return 2;
  }
  const char* mode = argv[1];
  long n = atol(argv[2]);
  int x = argc > 3 ? atoi(argv[3]) : 1;
  float *a, *out;
  if (cudaMalloc(&a, n * sizeof(float)) || cudaMalloc(&out, 4096 * sizeof(float))) return 1;
  cudaMemset(a, 0, n * sizeof(float));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (!strcmp(mode, "stream")) k_stream<<<sms * 4, 256>>>((const float4*)a, n / 4, out);
  else if (!strcmp(mode, "stride")) k_stride<<<sms * 4, 256>>>(a, n, x, out);
  else if (!strcmp(mode, "shared")) k_shared<<<sms, 512>>>(a, n, x, out);
  else if (!strcmp(mode, "twice")) {
    k_stream<<<sms * 4, 256>>>((const float4*)a, n / 4, out);
    k_stream<<<sms * 4, 256>>>((const float4*)a, n / 4, out);
  } else return 2;
  cudaError_t e = cudaDeviceSynchronize();
  printf("l2_hits %s %ld %d: %s\n", mode, n, x, cudaGetErrorString(e));
  return e != cudaSuccess;
}
