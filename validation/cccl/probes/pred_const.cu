// Probe: and/or/xor.pred with an integer constant operand (nvcc writes `xor.pred %p, %q, -1`).
// Prints, for q = false/true, the result of each form; ptxas's reading of the constant decides.
#include <cstdio>
__global__ void k(unsigned* out) {
  unsigned q = threadIdx.x & 1, r = 0;
#define FORM(i, text)                                                                  \
  {                                                                                    \
    unsigned v;                                                                        \
    asm volatile("{ .reg .pred p, d; setp.ne.u32 p, %1, 0; " text "; selp.u32 %0, 1, 0, d; }" \
                 : "=r"(v) : "r"(q));                                                  \
    r |= v << i;                                                                       \
  }
  FORM(0, "xor.pred d, p, -1")
  FORM(1, "xor.pred d, p, 0")
  FORM(2, "xor.pred d, p, 1")
  FORM(3, "xor.pred d, p, 2")
  FORM(4, "and.pred d, p, 1")
  FORM(5, "and.pred d, p, 0")
  FORM(6, "or.pred d, p, 1")
  FORM(7, "or.pred d, p, 0")
  FORM(8, "and.pred d, p, 2")
  out[threadIdx.x] = r;
}
int main() {
  unsigned* d; cudaMalloc(&d, 8);
  k<<<1, 2>>>(d);
  unsigned h[2]; cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost);
  const char* names[] = {"xor -1", "xor 0", "xor 1", "xor 2", "and 1", "and 0", "or 1", "or 0", "and 2"};
  for (int i = 0; i < 9; ++i) std::printf("%-7s q=0 -> %u  q=1 -> %u\n", names[i], (h[0] >> i) & 1, (h[1] >> i) & 1);
  return 0;
}
