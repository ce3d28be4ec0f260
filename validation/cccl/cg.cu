// Survey: cooperative groups (CUDA 13) beyond tests/cudart/cg_libcu.cu and coop_api.cu.
//   nvcc -cudart shared -arch=sm_80 -o cg80 cg.cu ; ./cg80 [i,j,...]   (-arch=sm_90 adds clusters)
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#include "common.h"
namespace cg = cooperative_groups;

static const int N = 1 << 20;
static std::vector<int> rints(size_t n, int mod) {
  std::vector<int> v(n);
  for (auto& x : v) x = int(rnd() % mod);
  return v;
}

// Per tile of T: inclusive scan (plus), exclusive scan (bit_xor), reduce (less -> min) of int64 values.
template <int T>
__global__ void tile_ops(const long long* in, long long* inc, long long* exc, long long* mn, int n) {
  auto tile = cg::tiled_partition<T>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long v = i < n ? in[i] : 0;
  long long a = cg::inclusive_scan(tile, v, cg::plus<long long>());
  long long b = cg::exclusive_scan(tile, v, cg::bit_xor<long long>());
  long long m = cg::reduce(tile, v, cg::less<long long>());
  if (i < n) { inc[i] = a; exc[i] = b; mn[i] = m; }
}
template <int T> static bool check_tiles() {
  std::vector<long long> h(N);
  for (auto& x : h) x = (long long)(rnd() % 2000000) - 1000000 + ((long long)(rnd() % 4) << 40);
  Dev<long long> d(h), a(N), b(N), m(N);
  tile_ops<T><<<N / 256, 256>>>(d.p, a.p, b.p, m.p, N);
  auto ga = a.get(), gb = b.get(), gm = m.get();
  for (int t0 = 0; t0 < N; t0 += T) {
    long long s = 0, x = 0, mn = h[t0];
    for (int j = 0; j < T; ++j) mn = std::min(mn, h[t0 + j]);
    for (int j = 0; j < T; ++j) {
      if (gb[t0 + j] != x) return false;
      s += h[t0 + j]; x ^= h[t0 + j];
      if (ga[t0 + j] != s || gm[t0 + j] != mn) return false;
    }
  }
  return true;
}

// thread_block_tile<128> (needs block_tile_memory): reduce of floats that are small integers.
__global__ void big_tile(const float* in, float* out) {
  __shared__ cg::block_tile_memory<256> mem;
  cg::thread_block blk = cg::this_thread_block(mem);
  auto tile = cg::tiled_partition<128>(blk);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = cg::reduce(tile, in[i], cg::plus<float>());
  float mx = cg::reduce(tile, in[i], cg::greater<float>());
  if (tile.thread_rank() == 0) { out[2 * (i / 128)] = s; out[2 * (i / 128) + 1] = mx; }
}

// binary_partition by parity, then a reduction and the partition's size inside each half.
__global__ void bin_part(const int* in, int* sum, int* size) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  auto part = cg::binary_partition(tile, v & 1);
  sum[i] = cg::reduce(part, v, cg::plus<int>());
  size[i] = int(part.num_threads()) * 100 + int(part.thread_rank());
}

// labeled_partition with 5 labels in a warp; exclusive scan inside each label.
__global__ void lab_part(const int* in, int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  auto part = cg::labeled_partition(tile, v % 5);
  out[i] = cg::exclusive_scan(part, v, cg::plus<int>());
}

// Warp-aggregated atomic: coalesced_threads inside a data-dependent branch.
__global__ void aggregate(const int* in, int* counter, int* slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] % 3 == 0) {
    auto g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(counter, int(g.num_threads()));
    base = g.shfl(base, 0);
    slot[i] = base + int(g.thread_rank());
  }
}

// cg::memcpy_async with two stages in flight (wait_prior<1>), block sum of 1M floats.
__global__ void staged_sum(const float* in, float* out, int n_per_block) {
  extern __shared__ float sh[];  // 2 x 1024
  auto blk = cg::this_thread_block();
  const float* src = in + size_t(blockIdx.x) * n_per_block;
  int chunks = n_per_block / 1024;
  float acc = 0;
  cg::memcpy_async(blk, sh, src, sizeof(float) * 1024);
  for (int c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) {
      cg::memcpy_async(blk, sh + ((c + 1) & 1) * 1024, src + (c + 1) * 1024, sizeof(float) * 1024);
      cg::wait_prior<1>(blk);
    } else {
      cg::wait(blk);
    }
    for (int j = threadIdx.x; j < 1024; j += blockDim.x) acc += sh[(c & 1) * 1024 + j];
    blk.sync();
  }
  float s = cg::reduce(cg::tiled_partition<32>(blk), acc, cg::plus<float>());
  if (threadIdx.x % 32 == 0) atomicAdd(out, s);
}

// reduce_update_async / reduce_store_async into an atomic_ref.
__global__ void reduce_async(const int* in, int* total, int* per_tile) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cuda::atomic_ref<int, cuda::thread_scope_device> t(*total);
  cg::reduce_update_async(tile, t, in[i], cg::plus<int>());
  cg::reduce_store_async(tile, per_tile + i / 32, in[i], cg::greater<int>());
}

// invoke_one_broadcast: one lane takes a ticket for the warp.
__global__ void ticket(int* counter, int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int t = cg::invoke_one_broadcast(tile, [&]() { return atomicAdd(counter, 1); });
  out[blockIdx.x * blockDim.x + threadIdx.x] = t;
}

// grid.sync(): three phases over a grid-stride loop (square, neighbour sum, block sums).
__global__ void grid_phases(int* a, int* b, long long* sum, int n) {
  auto grid = cg::this_grid();
  for (int i = grid.thread_rank(); i < n; i += grid.num_threads()) a[i] = a[i] * 2 + 1;
  grid.sync();
  for (int i = grid.thread_rank(); i < n; i += grid.num_threads()) b[i] = a[i] + a[(i + 1) % n];
  grid.sync();
  long long s = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.num_threads()) s += b[(i + 4097) % n];
  s = cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), s, cg::plus<long long>());
  if (threadIdx.x % 32 == 0) atomicAdd((unsigned long long*)sum, (unsigned long long)s);
}

// A cluster of 4 CTAs builds one 256-bin histogram in distributed shared memory (launched with a
// cluster-dimension attribute).
__global__ void cluster_hist(const int* in, int* out, int per_cluster) {
#if __CUDA_ARCH__ >= 900
  __shared__ int bins[64];
  auto cluster = cg::this_cluster();
  for (int j = threadIdx.x; j < 64; j += blockDim.x) bins[j] = 0;
  cluster.sync();
  const int* src = in + size_t(blockIdx.x / 4) * per_cluster;
  for (int j = cluster.thread_rank(); j < per_cluster; j += cluster.num_threads()) {
    int v = src[j] & 255;
    int* remote = cluster.map_shared_rank(bins, v / 64);
    atomicAdd(remote + v % 64, 1);
  }
  cluster.sync();
  for (int j = threadIdx.x; j < 64; j += blockDim.x)
    out[(blockIdx.x / 4) * 256 + cluster.block_rank() * 64 + j] = bins[j];
#endif
}

int main(int argc, char** argv) {
  int cc = 0;
  { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); cc = p.major * 10 + p.minor; }
  std::vector<Case> cases = {
    {"tile<32> scan/xscan/reduce int64", [] { return check_tiles<32>(); }},
    {"tile<16> scan/xscan/reduce int64", [] { return check_tiles<16>(); }},
    {"tile<8> scan/xscan/reduce int64", [] { return check_tiles<8>(); }},
    {"tile<2> scan/xscan/reduce int64", [] { return check_tiles<2>(); }},
    {"tile<128> block_tile_memory reduce float", [] {
       std::vector<float> h(N); for (auto& x : h) x = float(rnd() % 1000);
       Dev<float> d(h), o(2 * N / 128);
       big_tile<<<N / 256, 256>>>(d.p, o.p);
       auto g = o.get();
       for (int t = 0; t < N / 128; ++t) {
         float s = 0, m = -1;
         for (int j = 0; j < 128; ++j) { s += h[t * 128 + j]; m = std::max(m, h[t * 128 + j]); }
         if (g[2 * t] != s || g[2 * t + 1] != m) return false;
       }
       return true; }},
    {"binary_partition reduce + size/rank", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h), s(N), z(N);
       bin_part<<<N / 256, 256>>>(d.p, s.p, z.p);
       auto gs = s.get(), gz = z.get();
       for (int w = 0; w < N; w += 32) {
         int sum[2] = {0, 0}, cnt[2] = {0, 0};
         for (int j = 0; j < 32; ++j) { sum[h[w + j] & 1] += h[w + j]; cnt[h[w + j] & 1]++; }
         int rank[2] = {0, 0};
         for (int j = 0; j < 32; ++j) { int p = h[w + j] & 1;
           if (gs[w + j] != sum[p] || gz[w + j] != cnt[p] * 100 + rank[p]++) return false; }
       }
       return true; }},
    {"labeled_partition 5 labels exclusive_scan", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h), o(N);
       lab_part<<<N / 256, 256>>>(d.p, o.p);
       auto g = o.get();
       for (int w = 0; w < N; w += 32) {
         int acc[5] = {0, 0, 0, 0, 0};
         for (int j = 0; j < 32; ++j) { int l = h[w + j] % 5; if (g[w + j] != acc[l]) return false; acc[l] += h[w + j]; }
       }
       return true; }},
    {"coalesced_threads warp-aggregated atomic 1M", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h), c(1), s(N);
       CK(cudaMemset(s.p, 0xff, N * sizeof(int)));
       aggregate<<<N / 256, 256>>>(d.p, c.p, s.p, N);
       auto g = s.get();
       int cnt = 0; std::vector<char> seen(N, 0);
       for (int i = 0; i < N; ++i) {
         if (h[i] % 3 == 0) { ++cnt; if (g[i] < 0 || g[i] >= N || seen[g[i]]) return false; seen[g[i]] = 1; }
         else if (g[i] != -1) return false;
       }
       return c.get()[0] == cnt; }},
    {"cg::memcpy_async double-buffered block sums", [] {
       std::vector<float> h(N); for (auto& x : h) x = float(rnd() % 16);
       Dev<float> d(h), o(1);
       staged_sum<<<64, 256, 2 * 1024 * sizeof(float)>>>(d.p, o.p, N / 64);
       double ref = 0; for (float x : h) ref += x;
       return o.get()[0] == float(ref); }},
    {"reduce_update_async / reduce_store_async", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h), t(1), pt(N / 32);
       reduce_async<<<N / 256, 256>>>(d.p, t.p, pt.p);
       long long ref = 0; for (int x : h) ref += x;
       auto g = pt.get();
       for (int w = 0; w < N / 32; ++w) if (g[w] != *std::max_element(h.begin() + 32 * w, h.begin() + 32 * w + 32)) return false;
       return t.get()[0] == int(ref); }},
    {"invoke_one_broadcast tickets", [] {
       Dev<int> c(1), o(N);
       ticket<<<N / 256, 256>>>(c.p, o.p);
       auto g = o.get();
       std::vector<int> seen(N / 32, 0);
       for (int w = 0; w < N; w += 32) {
         int t = g[w];
         if (t < 0 || t >= N / 32 || seen[t]++) return false;
         for (int j = 1; j < 32; ++j) if (g[w + j] != t) return false;
       }
       return c.get()[0] == N / 32; }},
    {"grid.sync cooperative launch 3 phases", [] {
       auto h = rints(N, 1000);
       Dev<int> a(h), b(N); Dev<long long> s(1);
       int per_sm = 0, sms = 0;
       CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_phases, 256, 0));
       CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
       int n = N;
       void* args[] = {&a.p, &b.p, &s.p, &n};
       CK(cudaLaunchCooperativeKernel((void*)grid_phases, dim3(per_sm * sms), dim3(256), args, 0, nullptr));
       std::vector<long long> aa(N); for (int i = 0; i < N; ++i) aa[i] = h[i] * 2 + 1;
       long long ref = 0; for (int i = 0; i < N; ++i) ref += aa[i] + aa[(i + 1) % N];
       return per_sm > 0 && s.get()[0] == ref; }},
    {"cluster_group DSMEM histogram (sm_90)", [cc] {
       if (cc < 90) { std::printf("   (skipped below sm_90)\n"); return true; }
       const int C = 64, per = 16384;
       auto h = rints(C * per, 1 << 20);
       Dev<int> d(h), o(C * 256);
       cudaLaunchConfig_t cfg = {};
       cfg.gridDim = dim3(C * 4); cfg.blockDim = dim3(256);
       cudaLaunchAttribute at[1];
       at[0].id = cudaLaunchAttributeClusterDimension;
       at[0].val.clusterDim.x = 4; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
       cfg.attrs = at; cfg.numAttrs = 1;
       CK(cudaLaunchKernelEx(&cfg, cluster_hist, (const int*)d.p, o.p, per));
       auto g = o.get();
       for (int c = 0; c < C; ++c) {
         std::vector<int> r(256, 0);
         for (int j = 0; j < per; ++j) r[h[c * per + j] & 255]++;
         for (int b = 0; b < 256; ++b) if (g[c * 256 + b] != r[b]) return false;
       }
       return true; }},
  };
  return run_cases(argc, argv, cases);
}
