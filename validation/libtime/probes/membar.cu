// What a fence costs a warp on the GPU: clock64 around 1,024 iterations of a loop body, one warp
// and 32 warps of one block (thread 0 of each warp reports; the median warp is printed).
//   membar            # table: body, warps, cycles per iteration
// Bodies: the loop alone; membar.cta (cub's decoupled look-back spins on a volatile load after one,
// __threadfence_block()); a global store then membar.cta; membar.gl (__threadfence()); a store then
// membar.gl; a volatile global load then membar.cta (the look-back's spin).
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <int MODE> __global__ void body(unsigned* p, long long* out, int iters) {
  unsigned* mine = p + (blockIdx.x * blockDim.x + threadIdx.x);
  unsigned acc = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    if (MODE == 1) asm volatile("membar.cta;" ::: "memory");
    if (MODE == 2) { asm volatile("st.global.u32 [%0], %1;" :: "l"(mine), "r"(i) : "memory"); asm volatile("membar.cta;" ::: "memory"); }
    if (MODE == 3) asm volatile("membar.gl;" ::: "memory");
    if (MODE == 4) { asm volatile("st.global.u32 [%0], %1;" :: "l"(mine), "r"(i) : "memory"); asm volatile("membar.gl;" ::: "memory"); }
    if (MODE == 5) { unsigned v; asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(mine) : "memory"); acc += v; asm volatile("membar.cta;" ::: "memory"); }
    if (MODE == 6) { unsigned v; asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(mine) : "memory"); acc += v; }
    asm volatile("" ::: "memory");
  }
  long long t1 = clock64();
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = t1 - t0;
  if (acc == 12345) p[0] = acc;
}

template <int MODE> static double run(unsigned* p, long long* d, int warps) {
  const int iters = 1024;
  body<MODE><<<1, warps * 32>>>(p, d, iters);
  body<MODE><<<1, warps * 32>>>(p, d, iters);
  cudaDeviceSynchronize();
  std::vector<long long> h(warps);
  cudaMemcpy(h.data(), d, warps * sizeof(long long), cudaMemcpyDeviceToHost);
  std::sort(h.begin(), h.end());
  return double(h[warps / 2]) / iters;
}

int main() {
  unsigned* p; long long* d;
  cudaMalloc(&p, 1 << 20); cudaMalloc(&d, 1024 * sizeof(long long));
  cudaMemset(p, 0, 1 << 20);
  const char* names[] = {"loop", "membar.cta", "st+membar.cta", "membar.gl", "st+membar.gl", "ldvol+membar.cta", "ldvol"};
  std::printf("body,warps,cycles_per_iteration\n");
  for (int w : {1, 32}) {
    double r[7] = {run<0>(p, d, w), run<1>(p, d, w), run<2>(p, d, w), run<3>(p, d, w), run<4>(p, d, w), run<5>(p, d, w), run<6>(p, d, w)};
    for (int m = 0; m < 7; ++m) std::printf("%s,%d,%.1f\n", names[m], w, r[m]);
  }
  std::printf("%s\n", cudaGetLastError() == cudaSuccess ? "done" : "error");
  return 0;
}
