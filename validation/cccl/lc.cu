// Survey: libcu++ (CCCL 3.0) beyond tests/cudart/libcu_more.cu and cg_libcu.cu.
//   nvcc -cudart shared -arch=sm_80 -o lc80 lc.cu ; ./lc80 [i,j,...]   (-arch=sm_90 adds cuda::ptx)
#include <cuda/annotated_ptr>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/cmath>
#include <cuda/latch>
#include <cuda/pipeline>
#include <cuda/semaphore>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/chrono>
#include <cuda/std/complex>
#include <cuda/std/mdspan>
#include <cuda/std/optional>
#include <cuda/std/tuple>
#include <cuda/std/variant>
#if __CUDA_ARCH__ >= 900 || !defined(__CUDA_ARCH__)
#include <cuda/ptx>
#endif
#include <cooperative_groups.h>
#include <complex>
#include <new>
#include "common.h"

static const int N = 1 << 20;
static std::vector<int> rints(size_t n, int mod) {
  std::vector<int> v(n);
  for (auto& x : v) x = int(rnd() % mod);
  return v;
}

__global__ void minmax64(const long long* in, long long* lo, long long* hi, unsigned long long* ors, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::atomic_ref<long long, cuda::thread_scope_device> a(*lo), b(*hi);
  a.fetch_min(in[i], cuda::std::memory_order_relaxed);
  b.fetch_max(in[i], cuda::std::memory_order_acq_rel);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> o(*ors);
  o.fetch_or(1ull << (in[i] & 63), cuda::std::memory_order_seq_cst);
}
__global__ void dsum(const int* in, double* sum, float* fsum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::atomic_ref<double, cuda::thread_scope_device>(*sum).fetch_add(double(in[i]), cuda::std::memory_order_relaxed);
  cuda::std::atomic_ref<float>(*fsum).fetch_sub(1.0f);
}
// Block 0 publishes; the last block waits with atomic::wait and reads the payload.
__global__ void wait_notify(cuda::atomic<int, cuda::thread_scope_device>* flag, int* payload, int* got) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int k = 0; k < 64; ++k) payload[k] = k * k + 7;
    flag->store(1, cuda::std::memory_order_release);
    flag->notify_all();
  }
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x < 64) {
    flag->wait(0, cuda::std::memory_order_acquire);
    got[threadIdx.x] = payload[threadIdx.x];
  }
}
// A spinlock from atomic_flag guarding a plain (non-atomic) 64-bit counter.
__global__ void spin(cuda::std::atomic_flag* lockf_p, unsigned long long* counter, int iters) {
  cuda::std::atomic_flag& lockf = *lockf_p;
  if (threadIdx.x % 32 != 0) return;
  for (int k = 0; k < iters; ++k) {
    while (lockf.test_and_set(cuda::std::memory_order_acquire)) {}
    *counter = *counter + 3;
    lockf.clear(cuda::std::memory_order_release);
  }
}
// cuda::latch and counting_semaphore at block scope.
__global__ void latch_sem(int* out) {
  using Latch = cuda::latch<cuda::thread_scope_block>;
  using Sem = cuda::counting_semaphore<cuda::thread_scope_block, 4>;
  __shared__ alignas(Latch) unsigned char lmem[sizeof(Latch)];
  __shared__ alignas(Sem) unsigned char smem[sizeof(Sem)];
  __shared__ int inside, peak, data[256];
  Latch& l = *reinterpret_cast<Latch*>(lmem);
  Sem& sem = *reinterpret_cast<Sem*>(smem);
  if (threadIdx.x == 0) { new (lmem) Latch(blockDim.x); new (smem) Sem(4); inside = 0; peak = 0; }
  __syncthreads();
  data[threadIdx.x] = threadIdx.x * 3;
  l.arrive_and_wait();
  int v = data[(threadIdx.x + 1) % blockDim.x];
  sem.acquire();
  int now = atomicAdd(&inside, 1) + 1;
  atomicMax(&peak, now);
  atomicSub(&inside, 1);
  sem.release();
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
  if (threadIdx.x == 0) out[gridDim.x * blockDim.x + blockIdx.x] = peak;
}
// cuda::pipeline with 4 stages, every thread both producer and consumer (unified), block sums.
__global__ void pipe4(const int* in, long long* out, int per_block) {
  constexpr int S = 4, T = 256;
  __shared__ int buf[S][T];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, S> st;
  auto blk = cooperative_groups::this_thread_block();
  auto pipe = cuda::make_pipeline(blk, &st);
  const int* src = in + size_t(blockIdx.x) * per_block;
  int chunks = per_block / T;
  long long acc = 0;
  int fetched = 0;
  for (int c = 0; c < chunks; ++c) {
    for (; fetched < chunks && fetched < c + S; ++fetched) {
      pipe.producer_acquire();
      cuda::memcpy_async(blk, buf[fetched % S], src + fetched * T, cuda::aligned_size_t<16>(sizeof(int) * T), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += buf[c % S][(threadIdx.x * 7) % T];
    __syncthreads();
    pipe.consumer_release();
  }
  atomicAdd((unsigned long long*)out + blockIdx.x, (unsigned long long)acc);
}
// cuda::barrier + cuda::memcpy_async, double buffered, per-thread memcpy form.
__global__ void bar2(const float* in, float* out, int per_block) {
  constexpr int T = 256;
  __shared__ alignas(16) float buf[2][T];
  __shared__ cuda::barrier<cuda::thread_scope_block> bars[2];
  if (threadIdx.x == 0) { init(&bars[0], blockDim.x); init(&bars[1], blockDim.x); }
  __syncthreads();
  const float* src = in + size_t(blockIdx.x) * per_block;
  int chunks = per_block / T;
  float acc = 0;
  cuda::memcpy_async(&buf[0][threadIdx.x], src + threadIdx.x, sizeof(float), bars[0]);
  for (int c = 0; c < chunks; ++c) {
    if (c + 1 < chunks)
      cuda::memcpy_async(&buf[(c + 1) & 1][threadIdx.x], src + (c + 1) * T + threadIdx.x, sizeof(float), bars[(c + 1) & 1]);
    bars[c & 1].arrive_and_wait();
    acc += buf[c & 1][T - 1 - threadIdx.x];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
// mdspan over a 3D array, layout_left and layout_right views of the same data.
__global__ void md3(const float* in, float* out, int X, int Y, int Z) {
  cuda::std::mdspan<const float, cuda::std::dextents<int, 3>, cuda::std::layout_left> a(in, X, Y, Z);
  cuda::std::mdspan<float, cuda::std::dextents<int, 3>> b(out, Z, Y, X);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= X * Y * Z) return;
  int x = i % X, y = (i / X) % Y, z = i / (X * Y);
  float s = a(x, y, z);
  if (x > 0) s += a(x - 1, y, z);
  if (z + 1 < Z) s += a(x, y, z + 1);
  b(z, y, x) = s + float(a.extent(1));
}
__global__ void cplx(const double* re, const double* im, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::std::complex<double> z(re[i], im[i]);
  auto w = cuda::std::exp(z) * cuda::std::log(z + 2.0) / cuda::std::sqrt(z + cuda::std::complex<double>(0, 3)) +
           cuda::std::pow(z, 2.5) - cuda::std::tanh(z) + cuda::std::asin(z * 0.1);
  out[2 * i] = w.real();
  out[2 * i + 1] = w.imag();
}
__global__ void bits(const unsigned long long* in, unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long v = in[i];
  out[4 * i] = cuda::std::popcount(v) | (uint64_t(cuda::std::countl_zero(v)) << 8) | (uint64_t(cuda::std::countr_one(v)) << 16) |
               (uint64_t(cuda::std::bit_width(v)) << 24);
  out[4 * i + 1] = cuda::std::rotr(v, int(v & 63)) ^ cuda::std::bit_floor(v);
  out[4 * i + 2] = cuda::std::has_single_bit(uint32_t(v)) ? 1 : cuda::ceil_div(v, 7ull) + cuda::round_up(uint32_t(v), 64u);
  out[4 * i + 3] = cuda::std::byteswap(v);
}
__global__ void misc(const int* in, int* out, long long* dur, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::std::optional<int> o;
  if (in[i] % 2) o = in[i] * 3;
  cuda::std::variant<int, float> v;
  if (in[i] % 3 == 0) v = float(in[i]) * 0.5f; else v = in[i] + 1;
  cuda::std::array<int, 4> a{in[i], 1, 2, 3};
  auto t = cuda::std::make_tuple(o.value_or(-1), cuda::std::holds_alternative<float>(v) ? int(cuda::std::get<float>(v) * 2) : cuda::std::get<int>(v), a[0] + a[3]);
  out[3 * i] = cuda::std::get<0>(t);
  out[3 * i + 1] = cuda::std::get<1>(t);
  out[3 * i + 2] = cuda::std::get<2>(t);
  if (i == 0) {
    using namespace cuda::std::chrono;
    auto t0 = system_clock::now();
    auto d = duration_cast<microseconds>(milliseconds(3) + seconds(2)).count();
    volatile int spinv = 0;
    for (int k = 0; k < 2000; ++k) spinv = spinv + k;
    auto t1 = system_clock::now();
    dur[0] = d;
    dur[1] = (t1 - t0).count() >= 0;
  }
}
__global__ void annotated(int* data, int n) {
  cuda::annotated_ptr<int, cuda::access_property::persisting> p(data);
  cuda::annotated_ptr<int, cuda::access_property::streaming> q(data);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { p[i] = p[i] * 2; q[i] = q[i] + 1; }
  if (i == 0) cuda::apply_access_property(data, 4096, cuda::access_property::normal{});
}
// cuda::ptx wrappers: mbarrier init/arrive/try_wait, bulk copy global->shared with complete_tx,
// special registers.
__global__ void ptxwrap(const int* in, int* out) {
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(128) int buf[1024];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // the barrier's one arrival; the copy's bytes complete the phase
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, buf, in + blockIdx.x * 1024, 4096, &bar);
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &bar, 4096);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
  int v = 0;
  for (int k = threadIdx.x; k < 1024; k += blockDim.x) v += buf[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + int(cuda::ptx::get_sreg_laneid()) * 0 + int(cuda::ptx::get_sreg_nctaid_x() != gridDim.x);
#endif
}

int main(int argc, char** argv) {
  int cc = 0;
  { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); cc = p.major * 10 + p.minor; }
  std::vector<Case> cases = {
    {"atomic_ref int64 fetch_min/max/or all scopes 1M", [] {
       std::vector<long long> h(N);
       for (auto& x : h) x = (long long)(rnd() >> 1) - (1ll << 62);
       std::vector<long long> init = {LLONG_MAX, LLONG_MIN};
       Dev<long long> d(h), lo(std::vector<long long>{LLONG_MAX}), hi(std::vector<long long>{LLONG_MIN});
       Dev<unsigned long long> o(1);
       minmax64<<<N / 256, 256>>>(d.p, lo.p, hi.p, o.p, N);
       unsigned long long ro = 0; for (auto x : h) ro |= 1ull << (x & 63);
       return lo.get()[0] == *std::min_element(h.begin(), h.end()) && hi.get()[0] == *std::max_element(h.begin(), h.end()) && o.get()[0] == ro; }},
    {"atomic_ref<double> fetch_add, atomic_ref<float> fetch_sub", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h); Dev<double> s(1); Dev<float> f(1);
       dsum<<<N / 256, 256>>>(d.p, s.p, f.p, N);
       double r = 0; for (int x : h) r += x;
       return s.get()[0] == r && f.get()[0] == -float(N); }},
    {"atomic wait/notify across blocks", [] {
       Dev<cuda::atomic<int, cuda::thread_scope_device>> f(1); Dev<int> p(64), g(64);
       wait_notify<<<8, 64>>>(f.p, p.p, g.p);
       auto r = g.get();
       for (int k = 0; k < 64; ++k) if (r[k] != k * k + 7) return false;
       return true; }},
    {"atomic_flag spinlock, 128 warps x 20", [] {
       Dev<unsigned long long> c(1); Dev<cuda::std::atomic_flag> f(1);  // zeroed: clear
       spin<<<32, 128>>>(f.p, c.p, 20);
       return c.get()[0] == 3ull * 32 * 4 * 20; }},
    {"latch + counting_semaphore<4> block scope", [] {
       Dev<int> o(64 * 256 + 64);
       latch_sem<<<64, 256>>>(o.p);
       auto g = o.get();
       for (int b = 0; b < 64; ++b) {
         for (int t = 0; t < 256; ++t) if (g[b * 256 + t] != ((t + 1) % 256) * 3) return false;
         if (g[64 * 256 + b] < 1 || g[64 * 256 + b] > 4) return false;
       }
       return true; }},
    {"pipeline 4 stages unified, 1M ints", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h); Dev<long long> o(128);
       pipe4<<<128, 256>>>(d.p, o.p, N / 128);
       auto g = o.get();
       const int per = N / 128;
       for (int b = 0; b < 128; ++b) {
         long long r = 0;
         for (int c = 0; c < per / 256; ++c) for (int t = 0; t < 256; ++t) r += h[b * per + c * 256 + (t * 7) % 256];
         if (g[b] != r) return false;
       }
       return true; }},
    {"barrier + per-thread memcpy_async double buffer", [] {
       std::vector<float> h(N); for (auto& x : h) x = float(rnd() % 100);
       Dev<float> d(h), o(128 * 256);
       bar2<<<128, 256>>>(d.p, o.p, N / 128);
       auto g = o.get();
       const int per = N / 128;
       for (int b = 0; b < 128; ++b) for (int t = 0; t < 256; ++t) {
         float r = 0;
         for (int c = 0; c < per / 256; ++c) r += h[b * per + c * 256 + 255 - t];
         if (g[b * 256 + t] != r) return false;
       }
       return true; }},
    {"mdspan 3D layout_left -> layout_right", [] {
       const int X = 64, Y = 32, Z = 48;
       std::vector<float> h(X * Y * Z); for (auto& x : h) x = float(rnd() % 100);
       Dev<float> d(h), o(X * Y * Z);
       md3<<<(X * Y * Z + 255) / 256, 256>>>(d.p, o.p, X, Y, Z);
       auto g = o.get();
       for (int z = 0; z < Z; ++z) for (int y = 0; y < Y; ++y) for (int x = 0; x < X; ++x) {
         auto A = [&](int a, int b, int c) { return h[a + X * (b + Y * c)]; };
         float s = A(x, y, z); if (x > 0) s += A(x - 1, y, z); if (z + 1 < Z) s += A(x, y, z + 1);
         if (g[(z * Y + y) * X + x] != s + float(Y)) return false;
       }
       return true; }},
    {"complex<double> exp/log/sqrt/pow/tanh/asin 100K", [] {
       const int n = 100000;
       std::vector<double> re(n), im(n);
       for (int i = 0; i < n; ++i) { re[i] = rndu() * 4 - 2; im[i] = rndu() * 4 - 2; }
       Dev<double> dr(re), di(im), o(2 * n);
       cplx<<<(n + 255) / 256, 256>>>(dr.p, di.p, o.p, n);
       auto g = o.get();
       double worst = 0;
       for (int i = 0; i < n; ++i) {
         std::complex<double> z(re[i], im[i]);
         auto w = std::exp(z) * std::log(z + 2.0) / std::sqrt(z + std::complex<double>(0, 3)) + std::pow(z, 2.5) - std::tanh(z) + std::asin(z * 0.1);
         double e = std::abs(std::complex<double>(g[2 * i], g[2 * i + 1]) - w) / std::max(1.0, std::abs(w));
         worst = std::max(worst, e);
       }
       return worst < 1e-9; }},  // tanh has poles at i*pi/2: the inputs come within 1e-4 of one
    {"<cuda/std/bit>, ceil_div, round_up, byteswap 1M", [] {
       std::vector<unsigned long long> h(N);
       for (auto& x : h) x = rnd() >> (rnd() % 64);
       h[0] = 0; h[1] = 1ull << 40; h[2] = ~0ull;
       Dev<unsigned long long> d(h), o(4 * N);
       bits<<<N / 256, 256>>>(d.p, o.p, N);
       auto g = o.get();
       for (int i = 0; i < N; ++i) {
         unsigned long long v = h[i];
         int pc = __builtin_popcountll(v), clz = v ? __builtin_clzll(v) : 64, cro = __builtin_ctzll(~v | 0) ;
         if (~v == 0) cro = 64;
         int bw = 64 - clz;
         unsigned long long w0 = pc | (uint64_t(clz) << 8) | (uint64_t(cro) << 16) | (uint64_t(bw) << 24);
         unsigned r = unsigned(v & 63);
         unsigned long long rot = r ? (v >> r) | (v << (64 - r)) : v;
         unsigned long long fl = v ? 1ull << (bw - 1) : 0;
         uint32_t v32 = uint32_t(v);
         unsigned long long w2 = (v32 && !(v32 & (v32 - 1))) ? 1 : (v / 7 + (v % 7 != 0)) + ((v32 + 63u) / 64u * 64u);
         if (g[4 * i] != w0 || g[4 * i + 1] != (rot ^ fl) || g[4 * i + 2] != w2 || g[4 * i + 3] != __builtin_bswap64(v)) return false;
       }
       return true; }},
    {"optional/variant/tuple/array + chrono", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h), o(3 * N); Dev<long long> du(2);
       misc<<<N / 256, 256>>>(d.p, o.p, du.p, N);
       auto g = o.get(); auto gd = du.get();
       for (int i = 0; i < N; ++i) {
         int x = h[i];
         int a = x % 2 ? x * 3 : -1, b = x % 3 == 0 ? int(float(x) * 0.5f * 2) : x + 1;
         if (g[3 * i] != a || g[3 * i + 1] != b || g[3 * i + 2] != x + 3) return false;
       }
       return gd[0] == 2003000 && gd[1] == 1; }},
    {"annotated_ptr persisting/streaming + apply_access_property", [] {
       auto h = rints(N, 1000);
       Dev<int> d(h);
       annotated<<<N / 256, 256>>>(d.p, N);
       auto g = d.get();
       for (int i = 0; i < N; ++i) if (g[i] != h[i] * 2 + 1) return false;
       return true; }},
    {"cuda::ptx mbarrier + cp_async_bulk (sm_90)", [cc] {
       if (cc < 90) { std::printf("   (skipped below sm_90)\n"); return true; }
       auto h = rints(64 * 1024, 1000);
       Dev<int> d(h), o(64 * 128);
       ptxwrap<<<64, 128>>>(d.p, o.p);
       auto g = o.get();
       for (int b = 0; b < 64; ++b) for (int t = 0; t < 128; ++t) {
         int r = 0; for (int k = t; k < 1024; k += 128) r += h[b * 1024 + k];
         if (g[b * 128 + t] != r) return false;
       }
       return true; }},
  };
  return run_cases(argc, argv, cases);
}
