// Cooperative groups and libcu++ as kernels use them, each against a CPU reference:
// thread_block_tile<32/16/4> shfl/shfl_down/shfl_xor/any/all/ballot, cg::reduce / inclusive_scan /
// exclusive_scan, labeled_partition, coalesced_threads, cg::memcpy_async + wait, cuda::atomic_ref
// and cuda::std::atomic (fetch_add, CAS loops, memory orders), cuda::barrier, cuda::pipeline with
// memcpy_async, cuda::std::complex, cuda::std::span.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/complex>
#include <cuda/std/span>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

namespace cg = cooperative_groups;

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  if (!ok) ++failures;
}
static uint32_t lcg(uint32_t& s) { s = s * 1664525u + 1013904223u; return s >> 8; }

constexpr int BT = 256;

// out[gid*8 + j]: per-thread results of tile operations of width W.
template <int W>
__global__ void tiles(const int* in, int* out) {
  cg::thread_block b = cg::this_thread_block();
  auto t = cg::tiled_partition<W>(b);
  int gid = blockIdx.x * BT + threadIdx.x;
  int v = in[gid];
  int* o = out + gid * 8;
  o[0] = t.shfl(v, (t.thread_rank() + 1) % W);
  o[1] = t.shfl_down(v, 1);
  o[2] = t.shfl_xor(v, W / 2);
  o[3] = t.any(v > 900) + 2 * t.all(v >= 0);
  o[4] = int(t.ballot(v & 1));
  o[5] = cg::reduce(t, v, cg::plus<int>());
  o[6] = cg::inclusive_scan(t, v, cg::plus<int>());
  o[7] = cg::exclusive_scan(t, v, cg::greater<int>()) + cg::reduce(t, v, cg::greater<int>()) * 0;
}

// labeled_partition by v % 3 and coalesced_threads in a divergent branch.
__global__ void partitions(const int* in, int* sums, int* ranks, int* sizes, int* cg_out) {
  cg::thread_block b = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(b);
  int gid = blockIdx.x * BT + threadIdx.x;
  int v = in[gid];
  auto part = cg::labeled_partition(warp, v % 3);
  sums[gid] = cg::reduce(part, v, cg::plus<int>());
  ranks[gid] = part.thread_rank();
  sizes[gid] = part.num_threads();
  cg_out[gid] = -1;
  if (v % 2 == 0) {
    auto active = cg::coalesced_threads();
    int s = cg::reduce(active, v, cg::plus<int>());
    cg_out[gid] = s * 64 + active.thread_rank();
  }
}

// cg::memcpy_async of a tile into shared memory, then wait.
__global__ void cg_copy(const float* in, float* out, int n) {
  __shared__ float buf[1024];
  cg::thread_block b = cg::this_thread_block();
  for (int base = blockIdx.x * 1024; base < n; base += gridDim.x * 1024) {
    cg::memcpy_async(b, buf, in + base, sizeof(float) * 1024);
    cg::wait(b);
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[base + i] = buf[1023 - i] * 2.0f;
    b.sync();
  }
}

// cuda::pipeline with two stages: copy of the next tile overlaps the compute on the current one.
__global__ void pipelined(const int* in, int* out, int tiles_per_block) {
  constexpr int S = 2, TS = 256;
  __shared__ int buf[S][TS];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, S> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int first = blockIdx.x * tiles_per_block;
  for (int fetch = 0, use = 0; use < tiles_per_block; ++use) {
    for (; fetch < tiles_per_block && fetch < use + S; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf[fetch % S], in + (first + fetch) * TS, sizeof(int) * TS, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    int i = threadIdx.x;
    out[(first + use) * TS + i] = buf[use % S][i] * 3 + buf[use % S][(i + 1) % TS];
    pipe.consumer_release();
  }
}

// cuda::barrier: phase-synchronised producer/consumer over shared memory, plus arrive/wait tokens.
__global__ void barrier_k(int* out, int rounds) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int slot[BT];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    slot[threadIdx.x] = threadIdx.x * (r + 1);
    bar.arrive_and_wait();
    acc += slot[(threadIdx.x + r + 1) % BT];
    auto tok = bar.arrive();
    bar.wait(std::move(tok));
  }
  out[blockIdx.x * BT + threadIdx.x] = acc;
}

// Atomics: fetch_add with relaxed order, a CAS-loop float max, a device-scope ticket with
// acquire/release, cuda::std::atomic in global memory.
__global__ void atomics(const int* in, int n, int* counter, float* fmax, unsigned long long* sum64,
                        cuda::std::atomic<int>* hist, int* order_ok, int* data, int* flag) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < n) {
    cuda::atomic_ref<int, cuda::thread_scope_device> c(*counter);
    c.fetch_add(1, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<float, cuda::thread_scope_device> m(*fmax);
    float v = float(in[gid]) * 0.5f;
    float cur = m.load(cuda::std::memory_order_relaxed);
    while (v > cur && !m.compare_exchange_weak(cur, v, cuda::std::memory_order_relaxed)) {
    }
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> s(*sum64);
    s.fetch_add((unsigned long long)in[gid] << 32, cuda::std::memory_order_acq_rel);
    hist[in[gid] % 16].fetch_add(1);
    cuda::atomic_ref<int, cuda::thread_scope_device> mn(counter[1]);
    mn.fetch_min(in[gid]);
    cuda::atomic_ref<int, cuda::thread_scope_device> mx(counter[2]);
    mx.fetch_max(in[gid]);
    cuda::atomic_ref<int, cuda::thread_scope_device> xo(counter[3]);
    xo.fetch_xor(in[gid]);
  }
  // Message passing between block 0 (writer) and the last block (reader), release/acquire.
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int i = 0; i < 64; ++i) data[i] = i * i;
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    f.store(1, cuda::std::memory_order_release);
  }
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    while (f.load(cuda::std::memory_order_acquire) == 0) {
    }
    int ok = 1;
    for (int i = 0; i < 64; ++i) ok &= data[i] == i * i;
    *order_ok = ok;
  }
}

__global__ void complex_span(const float* re, const float* im, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::std::span<const float> r(re, n), m(im, n);
  cuda::std::complex<float> z(r[i], m[i]);
  auto w = z * cuda::std::conj(z) + cuda::std::exp(z * 0.1f) - cuda::std::sqrt(z) + cuda::std::polar(1.0f, r[i]);
  out[2 * i] = w.real();
  out[2 * i + 1] = w.imag() + cuda::std::abs(z) + float(r.size() == size_t(n));
}

template <typename T>
static std::vector<T> fetch(const T* d, size_t n) {
  std::vector<T> v(n);
  cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return v;
}

template <int W>
static void check_tiles(const std::vector<int>& h, const int* din, int* dout, const char* name) {
  int n = int(h.size());
  tiles<W><<<n / BT, BT>>>(din, dout);
  auto o = fetch(dout, n * 8);
  bool ok[8] = {true, true, true, true, true, true, true, true};
  for (int g = 0; g < n; g += W) {
    int any = 0, all = 1, sum = 0, acc = 0;
    unsigned ballot = 0;
    for (int l = 0; l < W; ++l) {
      any |= h[g + l] > 900; all &= h[g + l] >= 0; sum += h[g + l];
      ballot |= unsigned(h[g + l] & 1) << l;
    }
    int excl = 0;
    for (int l = 0; l < W; ++l) {
      const int* r = &o[(g + l) * 8];
      ok[0] &= r[0] == h[g + (l + 1) % W];
      if (l + 1 < W) ok[1] &= r[1] == h[g + l + 1]; else ok[1] &= r[1] == h[g + l];
      ok[2] &= r[2] == h[g + (l ^ (W / 2))];
      ok[3] &= r[3] == any + 2 * all;
      ok[4] &= unsigned(r[4]) == ballot;
      ok[5] &= r[5] == sum;
      acc += h[g + l];
      ok[6] &= r[6] == acc;
      if (l > 0) ok[7] &= r[7] == excl;  // lane 0's exclusive result is unspecified
      excl = l == 0 ? h[g] : std::max(excl, h[g + l]);
    }
  }
  const char* what[8] = {"shfl", "shfl_down", "shfl_xor", "any/all", "ballot", "reduce", "inclusive_scan", "exclusive_scan(max)"};
  for (int j = 0; j < 8; ++j) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "cg %s %s", name, what[j]);
    report(buf, ok[j]);
  }
}

int main() {
  uint32_t seed = 4242;
  const int n = BT * 16;
  std::vector<int> h(n);
  for (auto& x : h) x = int(lcg(seed) % 1000);
  int *din, *dout;
  cudaMalloc(&din, n * 4);
  cudaMalloc(&dout, n * 8 * 4);
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  check_tiles<32>(h, din, dout, "tile<32>");
  check_tiles<16>(h, din, dout, "tile<16>");
  check_tiles<4>(h, din, dout, "tile<4>");
  {
    int *s, *r, *z, *c;
    cudaMalloc(&s, n * 4); cudaMalloc(&r, n * 4); cudaMalloc(&z, n * 4); cudaMalloc(&c, n * 4);
    partitions<<<n / BT, BT>>>(din, s, r, z, c);
    auto hs = fetch(s, n), hr = fetch(r, n), hz = fetch(z, n), hc = fetch(c, n);
    bool okp = true, okc = true;
    for (int w = 0; w < n; w += 32) {
      for (int l = 0; l < 32; ++l) {
        int lab = h[w + l] % 3, sum = 0, rank = 0, size = 0;
        for (int k = 0; k < 32; ++k)
          if (h[w + k] % 3 == lab) { sum += h[w + k]; size++; if (k < l) rank++; }
        okp &= hs[w + l] == sum && hr[w + l] == rank && hz[w + l] == size;
        int csum = 0, crank = 0;
        for (int k = 0; k < 32; ++k)
          if (h[w + k] % 2 == 0) { csum += h[w + k]; if (k < l) crank++; }
        okc &= hc[w + l] == (h[w + l] % 2 == 0 ? csum * 64 + crank : -1);
      }
    }
    report("cg::labeled_partition reduce/thread_rank/num_threads", okp);
    report("cg::coalesced_threads in a divergent branch", okc);
  }
  {
    const int m = 1024 * 8;
    std::vector<float> f(m);
    for (int i = 0; i < m; ++i) f[i] = float(i % 977) * 0.25f;
    float *fi, *fo;
    cudaMalloc(&fi, m * 4); cudaMalloc(&fo, m * 4);
    cudaMemcpy(fi, f.data(), m * 4, cudaMemcpyHostToDevice);
    cg_copy<<<3, 256>>>(fi, fo, m);
    auto o = fetch(fo, m);
    bool ok = true;
    for (int i = 0; i < m; ++i) ok &= o[i] == f[(i / 1024) * 1024 + 1023 - i % 1024] * 2.0f;
    report("cg::memcpy_async + cg::wait", ok);
  }
  {
    const int tpb = 5, blocks = 3, m = tpb * blocks * 256;
    std::vector<int> a(m);
    for (auto& x : a) x = int(lcg(seed) % 5000);
    int *pi, *po;
    cudaMalloc(&pi, m * 4); cudaMalloc(&po, m * 4);
    cudaMemcpy(pi, a.data(), m * 4, cudaMemcpyHostToDevice);
    pipelined<<<blocks, 256>>>(pi, po, tpb);
    auto o = fetch(po, m);
    bool ok = true;
    for (int t = 0; t < m / 256; ++t)
      for (int i = 0; i < 256; ++i) ok &= o[t * 256 + i] == a[t * 256 + i] * 3 + a[t * 256 + (i + 1) % 256];
    report("cuda::pipeline (2 stages) + cuda::memcpy_async", ok);
  }
  {
    int* bo;
    const int rounds = 7;
    cudaMalloc(&bo, 2 * BT * 4);
    barrier_k<<<2, BT>>>(bo, rounds);
    auto o = fetch(bo, 2 * BT);
    bool ok = true;
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < BT; ++t) {
        int acc = 0;
        for (int r = 0; r < rounds; ++r) acc += ((t + r + 1) % BT) * (r + 1);
        ok &= o[b * BT + t] == acc;
      }
    report("cuda::barrier arrive_and_wait / arrive + wait", ok);
  }
  {
    int *counter, *order_ok, *data, *flag;
    float* fmax;
    unsigned long long* sum64;
    cuda::std::atomic<int>* hist;
    cudaMalloc(&counter, 16); cudaMalloc(&fmax, 4); cudaMalloc(&sum64, 8); cudaMalloc(&hist, 64);
    cudaMalloc(&order_ok, 4); cudaMalloc(&data, 256); cudaMalloc(&flag, 4);
    int init[4] = {0, INT32_MAX, INT32_MIN, 0};
    cudaMemcpy(counter, init, 16, cudaMemcpyHostToDevice);
    float fm = -1e30f;
    cudaMemcpy(fmax, &fm, 4, cudaMemcpyHostToDevice);
    cudaMemset(sum64, 0, 8); cudaMemset(hist, 0, 64); cudaMemset(order_ok, 0, 4); cudaMemset(flag, 0, 4);
    atomics<<<n / BT, BT>>>(din, n, counter, fmax, sum64, hist, order_ok, data, flag);
    auto c = fetch(counter, 4);
    auto m = fetch(fmax, 1);
    auto s = fetch(sum64, 1);
    auto hh = fetch(reinterpret_cast<int*>(hist), 16);
    auto oo = fetch(order_ok, 1);
    std::vector<int> rh(16, 0);
    unsigned long long rs = 0;
    int x = 0;
    for (int v : h) { rh[v % 16]++; rs += (unsigned long long)v << 32; x ^= v; }
    report("cuda::atomic_ref fetch_add (relaxed)", c[0] == n);
    report("cuda::atomic_ref<float> CAS-loop max", m[0] == float(*std::max_element(h.begin(), h.end())) * 0.5f);
    report("cuda::atomic_ref<uint64> fetch_add (acq_rel)", s[0] == rs);
    report("cuda::atomic_ref fetch_min/fetch_max/fetch_xor",
           c[1] == *std::min_element(h.begin(), h.end()) && c[2] == *std::max_element(h.begin(), h.end()) && c[3] == x);
    report("cuda::std::atomic<int> fetch_add histogram", hh == rh);
    report("release store / acquire load message passing", oo[0] == 1);
  }
  {
    const int m = 2000;
    std::vector<float> re(m), im(m);
    for (int i = 0; i < m; ++i) { re[i] = float(i % 41) / 8 - 2; im[i] = float(i % 29) / 6 - 2; }
    float *dr, *di, *dout2;
    cudaMalloc(&dr, m * 4); cudaMalloc(&di, m * 4); cudaMalloc(&dout2, m * 8);
    cudaMemcpy(dr, re.data(), m * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(di, im.data(), m * 4, cudaMemcpyHostToDevice);
    complex_span<<<(m + 127) / 128, 128>>>(dr, di, dout2, m);
    auto o = fetch(dout2, 2 * m);
    bool ok = true;
    for (int i = 0; i < m; ++i) {
      std::complex<double> z(re[i], im[i]);
      auto w = z * std::conj(z) + std::exp(z * 0.1) - std::sqrt(z) + std::polar(1.0, double(re[i]));
      double wr = w.real(), wi = w.imag() + std::abs(z) + 1;
      ok &= std::fabs(o[2 * i] - wr) < 1e-4 * (1 + std::fabs(wr)) && std::fabs(o[2 * i + 1] - wi) < 1e-4 * (1 + std::fabs(wi));
    }
    report("cuda::std::complex + cuda::std::span", ok);
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("cuda error: %s\n", cudaGetErrorString(e)); ++failures; }
  std::printf("cg_libcu: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
