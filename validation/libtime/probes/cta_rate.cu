// How fast the GPU starts CTAs: kernels whose CTAs do (almost) nothing, over grid sizes and block
// sizes, timed back to back with events (the mean of 20 launches after a warm-up). The slope of
// time against CTAs is the dispatch cost per CTA once the fixed per-kernel cost is out.
//   cta_rate            # table: threads per CTA, CTAs, us per kernel, ns per CTA over the previous row
//   cta_rate quick      # one launch each, 256 threads, three grids (for the simulator)
// Kernels: `empty` (nothing), `store2` (each thread stores two floats, thrust's fill of
// validation/libtime/lt_thrust.cu), `store2_big` (the same work in 8x fewer, 8x longer CTAs:
// each thread loops 8 times).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void empty() {}
__global__ void store2(float* p) {
  size_t i = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * 2;
  p[i] = 1.0f; p[i + 1] = 1.0f;
}
__global__ void store2_big(float* p) {
  for (int k = 0; k < 8; ++k) {
    size_t i = ((size_t(blockIdx.x) * 8 + k) * blockDim.x + threadIdx.x) * 2;
    p[i] = 1.0f; p[i + 1] = 1.0f;
  }
}

static int reps = 20;
template <typename F> static float time_us(F launch) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  launch(); cudaDeviceSynchronize();
  cudaEventRecord(a);
  for (int r = 0; r < reps; ++r) launch();
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a); cudaEventDestroy(b);
  return ms * 1000.0f / reps;
}

int main(int argc, char** argv) {
  const bool quick = argc > 1;
  if (quick) reps = 1;
  float* p; if (cudaMalloc(&p, size_t(64) << 20) != cudaSuccess) return 1;
  std::printf("kernel,threads,ctas,us,ns_per_cta_slope\n");
  const int threads[] = {32, 256, 1024};
  const int grids[] = {1056, 4224, 8448, 16896, 33792};
  for (int t : threads) {
    if (quick && t != 256) continue;
    float prev = 0; int pg = 0;
    for (int g : grids) {
      if (quick && (g < 4224 || g > 16896)) continue;
      float us = time_us([&] { empty<<<g, t>>>(); });
      std::printf("empty,%d,%d,%.2f,%.3f\n", t, g, us, pg ? (us - prev) * 1000.0f / (g - pg) : 0.0f);
      prev = us, pg = g;
    }
  }
  for (int g : {4096, 8192, 16384}) {
    float us = time_us([&] { store2<<<g, 256>>>(p); });
    std::printf("store2,256,%d,%.2f,\n", g, us);
    us = time_us([&] { store2_big<<<g / 8, 256>>>(p); });
    std::printf("store2_big,256,%d,%.2f,\n", g / 8, us);
  }
  std::printf("%s\n", cudaGetLastError() == cudaSuccess ? "done" : "error");
  return 0;
}
