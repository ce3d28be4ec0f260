// Cooperative groups' thread_block_tile<64/128/256> (block_tile_memory: from sm_80 the tiles keep
// their barriers in the shared memory the hardware reserves at the start of every CTA's window, at
// %reserved_smem_offset_1), the reserved-region special registers and where user shared memory
// starts, and `xor.pred %p, %q, -1` (nvcc's `not` of a predicate, in CUB 3.0's ReduceByKey), each
// against a CPU reference. The expected output is what our H100 printed (sm_80 and sm_90 builds).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;

static int fails = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "ok" : "FAIL");
  if (!ok) ++fails;
}

// Per tile of T threads: sum and max (cg::reduce), inclusive scan, and a tile.sync() between a
// write and a read of another thread's shared slot.
template <int T>
__global__ void big_tiles(const int* in, int* sum, int* mx, int* scan, int* nb) {
  __shared__ cg::block_tile_memory<512> mem;
  __shared__ int slot[512];
  cg::thread_block blk = cg::this_thread_block(mem);
  auto tile = cg::tiled_partition<T>(blk);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int s = cg::reduce(tile, v, cg::plus<int>());
  int m = cg::reduce(tile, v, cg::greater<int>());
  int c = cg::inclusive_scan(tile, v, cg::plus<int>());
  slot[threadIdx.x] = v * 3;
  tile.sync();
  int r = slot[(threadIdx.x / T) * T + (tile.thread_rank() + 1) % T];
  if (tile.thread_rank() == 0) { sum[i / T] = s; mx[i / T] = m; }
  scan[i] = c;
  nb[i] = r + int(tile.meta_group_rank()) * 1000000 + int(tile.meta_group_size()) * 100000000;
}

template <int T>
static void check_tiles(const std::vector<int>& h, int* d_in, int blocks, int threads) {
  const int n = blocks * threads;
  int *sum, *mx, *scan, *nb;
  cudaMalloc(&sum, n / T * sizeof(int));
  cudaMalloc(&mx, n / T * sizeof(int));
  cudaMalloc(&scan, n * sizeof(int));
  cudaMalloc(&nb, n * sizeof(int));
  big_tiles<T><<<blocks, threads>>>(d_in, sum, mx, scan, nb);
  cudaError_t e = cudaDeviceSynchronize();
  std::vector<int> gs(n / T), gm(n / T), gc(n), gn(n);
  cudaMemcpy(gs.data(), sum, gs.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(gm.data(), mx, gm.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(gc.data(), scan, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(gn.data(), nb, n * sizeof(int), cudaMemcpyDeviceToHost);
  bool ok = e == cudaSuccess;
  for (int t = 0; ok && t < n / T; ++t) {
    int s = 0, m = -1;
    for (int j = 0; j < T; ++j) {
      s += h[t * T + j];
      m = std::max(m, h[t * T + j]);
      int meta = (t * T % threads) / T;
      ok = ok && gc[t * T + j] == s &&
           gn[t * T + j] == h[t * T + (j + 1) % T] * 3 + meta * 1000000 + (threads / T) * 100000000;
    }
    ok = ok && gs[t] == s && gm[t] == m;
  }
  char what[80];
  std::snprintf(what, sizeof what, "thread_block_tile<%d> reduce/scan/sync in blocks of %d", T, threads);
  report(what, ok);
  cudaFree(sum); cudaFree(mx); cudaFree(scan); cudaFree(nb);
}

__global__ void reserved(unsigned* out) {
  __shared__ int s[40];
  extern __shared__ int dyn[];
  unsigned v[6];
  asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(v[0]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(v[1]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(v[2]));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(v[3]));
  v[4] = unsigned(__cvta_generic_to_shared(s));
  v[5] = unsigned(__cvta_generic_to_shared(dyn));
  s[threadIdx.x] = 1;
  dyn[threadIdx.x] = 2;
  if (threadIdx.x == 0)
    for (int i = 0; i < 6; ++i) out[i] = v[i];
}

// and/or/xor.pred with an integer constant: zero is False, anything else True.
__global__ void pred_const(unsigned* out) {
  unsigned q = threadIdx.x & 1, r = 0;
#define FORM(i, text)                                                                              \
  {                                                                                                \
    unsigned v;                                                                                    \
    asm volatile("{ .reg .pred p, d; setp.ne.u32 p, %1, 0; " text "; selp.u32 %0, 1, 0, d; }"     \
                 : "=r"(v) : "r"(q));                                                              \
    r |= v << i;                                                                                   \
  }
  FORM(0, "xor.pred d, p, -1")
  FORM(1, "xor.pred d, p, 0")
  FORM(2, "xor.pred d, p, 2")
  FORM(3, "and.pred d, p, 1")
  FORM(4, "and.pred d, p, 0")
  FORM(5, "or.pred d, p, 1")
  FORM(6, "or.pred d, p, 0")
  out[threadIdx.x] = r;
}

int main() {
  const int blocks = 96, threads = 512, n = blocks * threads;
  std::vector<int> h(n);
  unsigned x = 12345;
  for (int& v : h) { x = x * 1664525u + 1013904223u; v = int(x >> 16) % 1000; }
  int* d_in;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  check_tiles<64>(h, d_in, blocks, threads);
  check_tiles<128>(h, d_in, blocks, threads);
  check_tiles<256>(h, d_in, blocks, 256);
  check_tiles<128>(h, d_in, blocks, 384);

  unsigned* d;
  cudaMalloc(&d, 64);
  reserved<<<1, 32, 256>>>(d);
  unsigned r[6];
  cudaMemcpy(r, d, sizeof r, cudaMemcpyDeviceToHost);
  std::printf("reserved shared: begin %u end %u cap %u offset_1 %u; static shared at %u, dynamic at %u\n", r[0], r[1],
              r[2], r[3], r[4], r[5]);

  pred_const<<<1, 2>>>(d);
  unsigned p[2];
  cudaMemcpy(p, d, sizeof p, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < 7; ++i) {
    unsigned want0 = (i == 0 || i == 2 || i == 5), want1 = !(i == 0 || i == 2 || i == 4);
    ok = ok && ((p[0] >> i) & 1) == want0 && ((p[1] >> i) & 1) == want1;
  }
  report("and/or/xor.pred with constants (zero False, nonzero True)", ok);
  std::printf("%s\n", fails ? "FAILED" : "PASSED");
  return fails ? 1 : 0;
}
