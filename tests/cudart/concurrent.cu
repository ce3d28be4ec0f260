// Kernels launched into different streams share the GPU (timing mode): two one-block kernels in
// streams s1 and s2 overlap in simulated time; a kernel in the legacy default stream waits for
// both. The values are checked against a CPU reference; concurrent.sh checks the timeline.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      printf("concurrent: FAIL (%s returned %s)\n", #x, cudaGetErrorString(e_));          \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

__global__ void spin(float* out, float seed, int iters) {
  float v = seed + threadIdx.x;
  for (int i = 0; i < iters; ++i) v = fmaf(v, 0.999f, 0.5f);
  out[threadIdx.x] = v;
}

static float reference(float seed, int t, int iters) {
  float v = seed + t;
  for (int i = 0; i < iters; ++i) v = fmaf(v, 0.999f, 0.5f);
  return v;
}

int main() {
  const int n = 64, iters = 2000;
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&c, n * sizeof(float)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  spin<<<1, n, 0, s1>>>(a, 1.0f, iters);
  CHECK(cudaGetLastError());
  spin<<<1, n, 0, s2>>>(b, 2.0f, iters);
  CHECK(cudaGetLastError());
  spin<<<1, n>>>(c, 3.0f, iters);  // legacy default stream: after both
  CHECK(cudaDeviceSynchronize());
  float ha[n], hb[n], hc[n];
  CHECK(cudaMemcpy(ha, a, sizeof ha, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; ++t)
    if (ha[t] != reference(1.0f, t, iters) || hb[t] != reference(2.0f, t, iters) || hc[t] != reference(3.0f, t, iters)) {
      printf("concurrent: FAIL (thread %d: %g %g %g)\n", t, ha[t], hb[t], hc[t]);
      return 1;
    }
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  printf("concurrent: PASS\n");
  return 0;
}
