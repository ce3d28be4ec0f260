// Probe: the reserved shared-memory special registers (cooperative groups keeps the barriers of
// thread_block_tile<64+> at %reserved_smem_offset_1) and where user shared memory starts.
#include <cstdio>
__global__ void k(unsigned* out) {
  __shared__ int s[40];
  extern __shared__ int dyn[];
  unsigned v[7];
  asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(v[0]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(v[1]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(v[2]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(v[3]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(v[4]));
  v[5] = unsigned(__cvta_generic_to_shared(s));
  v[6] = unsigned(__cvta_generic_to_shared(dyn));
  s[threadIdx.x] = 1; dyn[threadIdx.x] = 2;
  if (threadIdx.x == 0) for (int i = 0; i < 7; ++i) out[i] = v[i];
}
int main() {
  unsigned* d; cudaMalloc(&d, 64);
  k<<<1, 32, 256>>>(d);
  unsigned h[7]; cudaMemcpy(h, d, 28, cudaMemcpyDeviceToHost);
  const char* n[] = {"begin", "end", "cap", "offset_0", "offset_1", "static s", "dynamic"};
  for (int i = 0; i < 7; ++i) std::printf("%-9s %u\n", n[i], h[i]);
  return 0;
}
