// libcu++ (CCCL 3) as kernels use it, beyond cg_libcu.cu, each against a CPU reference:
// cuda::atomic at block/device/system scope (incl. 8- and 16-bit atomics, which libcu++ builds from
// 32-bit CAS, and double/float fetch_add/min/max), cuda::atomic_ref on shared and managed memory,
// message passing between CTAs with acquire/release and fences, cuda::barrier with block-wide
// cuda::memcpy_async over several phases (cp.async on sm_80, bulk copies on sm_90) and
// arrive_and_drop, a producer/consumer cuda::pipeline with partitioned roles, cuda::std::mdspan,
// cuda::std::numeric_limits, cuda::std::complex math and <cuda/std/bit>.
// Every line printed depends only on the CPU reference's verdict.
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/complex>
#include <cuda/std/limits>
#include <cuda/std/mdspan>
#include <cooperative_groups.h>
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace cg = cooperative_groups;

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "ok" : "FAIL");
  if (!ok) ++failures;
}
#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) std::printf("line %d: %s\n", __LINE__, cudaGetErrorString(e_)), ++failures; \
  } while (0)

// ------------------------------------------------------------------ atomics
struct Counters {
  cuda::atomic<int, cuda::thread_scope_device> sum;
  cuda::atomic<unsigned long long, cuda::thread_scope_device> bits;
  cuda::atomic<double, cuda::thread_scope_device> dsum;
  cuda::atomic<float, cuda::thread_scope_device> fmax;
  cuda::atomic<float, cuda::thread_scope_device> fmin;
  cuda::atomic<int, cuda::thread_scope_device> ticket;
  cuda::atomic<int, cuda::thread_scope_device> cas_max;
  int order[64];
};

__global__ void atomics_kernel(Counters* c, unsigned* small_out, int* exch_out) {
  __shared__ cuda::atomic<uint8_t, cuda::thread_scope_block> bytes[4];
  __shared__ cuda::atomic<int16_t, cuda::thread_scope_block> shorts[2];
  __shared__ int plain[4];
  const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  if (t < 4) new (&bytes[t]) cuda::atomic<uint8_t, cuda::thread_scope_block>(0), plain[t] = 0;
  if (t < 2) new (&shorts[t]) cuda::atomic<int16_t, cuda::thread_scope_block>(0);
  __syncthreads();
  bytes[t & 3].fetch_add(uint8_t(1 + (t & 1)), cuda::std::memory_order_relaxed);  // wraps at 256
  shorts[t & 1].fetch_sub(int16_t(t), cuda::std::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_block> pr(plain[t & 3]);
  pr.fetch_xor(t * 2654435761u, cuda::std::memory_order_relaxed);
  __syncthreads();
  if (t < 4) small_out[blockIdx.x * 8 + t] = bytes[t].load() | (unsigned(plain[t]) & 0xff00u) << 8;
  if (t < 2) small_out[blockIdx.x * 8 + 4 + t] = uint16_t(shorts[t].load());

  c->sum.fetch_add(g % 7, cuda::std::memory_order_relaxed);
  c->bits.fetch_or(1ull << (g % 64), cuda::std::memory_order_relaxed);
  c->dsum.fetch_add(g * 0.5, cuda::std::memory_order_relaxed);
  c->fmax.fetch_max(float(g % 1000) - 300.5f);
  c->fmin.fetch_min(float((g * 37) % 1001) - 250.25f);
  int cur = c->cas_max.load(cuda::std::memory_order_relaxed);
  const int mine = (g * 7919) % 100003;
  while (cur < mine && !c->cas_max.compare_exchange_weak(cur, mine, cuda::std::memory_order_acq_rel)) {
  }
  // Two threads exchange into one slot: the later one gets the earlier one's id back.
  exch_out[gridDim.x * blockDim.x / 2 + g] = cuda::atomic_ref<int, cuda::thread_scope_device>(exch_out[g / 2]).exchange(g);
  if (t == 0) {
    // One ticket per block: the order blocks took them in is recorded; every ticket once.
    int k = c->ticket.fetch_add(1, cuda::std::memory_order_acq_rel);
    if (k < 64) c->order[k] = blockIdx.x;
  }
}

// Block 0 publishes data with a release store; block 1 spins on an acquire load and copies it.
// Two blocks: both are resident together on any GPU.
__global__ void message_passing(int* data, int* flag, int* copy, int n) {
  if (blockIdx.x == 0) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = i * 3 + 1;
    __syncthreads();
    if (threadIdx.x == 0) {
      cuda::atomic_thread_fence(cuda::std::memory_order_release, cuda::thread_scope_device);
      cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1, cuda::std::memory_order_relaxed);
    }
  } else {
    if (threadIdx.x == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
      while (f.load(cuda::std::memory_order_acquire) == 0) {
      }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) copy[i] = cuda::atomic_ref<int, cuda::thread_scope_device>(data[i]).load(cuda::std::memory_order_relaxed);
  }
}

// System-scope atomics on managed memory, read by the host after the kernel.
__global__ void system_atomics(cuda::atomic<int, cuda::thread_scope_system>* a, unsigned* b) {
  a->fetch_add(2, cuda::std::memory_order_relaxed);
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*b).fetch_max(blockIdx.x * 100 + threadIdx.x);
}

// ------------------------------------------------------------------ barrier + memcpy_async
constexpr int TILE = 1024;  // ints per tile
__global__ void barrier_tiles(const int* in, int* out, int tiles) {
  __shared__ alignas(128) int buf[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  for (int k = 0; k < tiles; ++k) {
    const int* src = in + (size_t(blockIdx.x) * tiles + k) * TILE;
    cuda::memcpy_async(block, buf, src, cuda::aligned_size_t<16>(sizeof(buf)), bar);
    bar.arrive_and_wait();  // phase k: the copy landed
    int s = 0;
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) s += buf[i] ^ k;
    out[(blockIdx.x * tiles + k) * blockDim.x + threadIdx.x] = s;
    bar.arrive_and_wait();  // everyone read buf before the next copy overwrites it
  }
  // Half the threads leave; the others still complete phases without them.
  if (threadIdx.x % 2) {
    (void)bar.arrive_and_drop();
    return;
  }
  for (int r = 0; r < 3; ++r) {
    if (threadIdx.x == 0) buf[r] = r + 100;
    bar.arrive_and_wait();
    out[(gridDim.x * tiles) * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x] += buf[r];
    bar.arrive_and_wait();
  }
}

// ------------------------------------------------------------------ producer/consumer pipeline
constexpr int STAGES = 3, CHUNK = 256;
__global__ void pipeline_roles(const float* in, float* out, int chunks) {
  __shared__ alignas(16) float ring[STAGES][CHUNK];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  // The first warp produces (copies chunks in), the other three consume.
  const bool producer = threadIdx.x < 32;
  auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
  const float* src = in + size_t(blockIdx.x) * chunks * CHUNK;
  if (producer) {
    for (int k = 0; k < chunks; ++k) {
      pipe.producer_acquire();
      for (int i = threadIdx.x * 4; i < CHUNK; i += 32 * 4)
        cuda::memcpy_async(&ring[k % STAGES][i], src + k * CHUNK + i, cuda::aligned_size_t<16>(16), pipe);
      pipe.producer_commit();
    }
  } else {
    const int c = threadIdx.x - 32, nc = blockDim.x - 32;
    for (int k = 0; k < chunks; ++k) {
      pipe.consumer_wait();
      for (int i = c; i < CHUNK; i += nc)
        out[(size_t(blockIdx.x) * chunks + k) * CHUNK + i] = ring[k % STAGES][i] * 2.0f + float(k);
      pipe.consumer_release();
    }
  }
}

// ------------------------------------------------------------------ mdspan, limits, complex, bit
__global__ void mdspan_kernel(const float* a, float* out, int rows, int cols) {
  using ext = cuda::std::dextents<int, 2>;
  cuda::std::mdspan<const float, ext, cuda::std::layout_right> A(a, rows, cols);
  cuda::std::mdspan<float, ext, cuda::std::layout_left> T(out, cols, rows);  // column-major transpose
  int i = blockIdx.x, j = threadIdx.x;
  if (i < rows && j < cols) T(j, i) = A(i, j) + float(A.extent(1) * 1000 + T.stride(1));
  // A 3D fixed extent and a strided layout over the same buffer.
  if (i == 0 && j == 0) {
    cuda::std::mdspan<float, cuda::std::extents<int, 2, 3, 4>> m3(out + rows * cols);
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 3; ++y)
        for (int z = 0; z < 4; ++z) m3(x, y, z) = float(x * 100 + y * 10 + z);
    cuda::std::array<int, 2> strides{1, 3};
    cuda::std::layout_stride::mapping<cuda::std::extents<int, 3, 2>> map(cuda::std::extents<int, 3, 2>{}, strides);
    cuda::std::mdspan<float, cuda::std::extents<int, 3, 2>, cuda::std::layout_stride> s(out + rows * cols + 24, map);
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 2; ++y) s(x, y) = float(x * 10 + y) + float(s.mapping().required_span_size());
  }
}

struct Limits {
  float f[7];
  double d[7];
  int i[2];
  long long ll[2];
  unsigned u[1];
  int digits[4];
  __half h[3];
};
__global__ void limits_kernel(Limits* l) {
  using F = cuda::std::numeric_limits<float>;
  using D = cuda::std::numeric_limits<double>;
  l->f[0] = F::min(), l->f[1] = F::max(), l->f[2] = F::lowest(), l->f[3] = F::epsilon();
  l->f[4] = F::infinity(), l->f[5] = F::quiet_NaN(), l->f[6] = F::denorm_min();
  l->d[0] = D::min(), l->d[1] = D::max(), l->d[2] = D::lowest(), l->d[3] = D::epsilon();
  l->d[4] = D::infinity(), l->d[5] = D::quiet_NaN(), l->d[6] = D::denorm_min();
  l->i[0] = cuda::std::numeric_limits<int>::min(), l->i[1] = cuda::std::numeric_limits<int>::max();
  l->ll[0] = cuda::std::numeric_limits<long long>::min(), l->ll[1] = cuda::std::numeric_limits<long long>::max();
  l->u[0] = cuda::std::numeric_limits<unsigned>::max();
  l->digits[0] = F::digits, l->digits[1] = D::digits10, l->digits[2] = F::max_exponent, l->digits[3] = D::min_exponent10;
  l->h[0] = cuda::std::numeric_limits<__half>::max(), l->h[1] = cuda::std::numeric_limits<__half>::epsilon();
  l->h[2] = cuda::std::numeric_limits<__half>::lowest();
}

__global__ void complex_bits(const float2* z, float2* out, unsigned* bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using C = cuda::std::complex<float>;
  C a(z[i].x, z[i].y), b(z[(i + 1) % n].x, z[(i + 1) % n].y);
  C r[6] = {a * b, a / b, cuda::std::exp(a), cuda::std::log(a), cuda::std::sqrt(a), cuda::std::pow(a, C(0.5f, 0.25f))};
  for (int k = 0; k < 6; ++k) out[i * 6 + k] = make_float2(r[k].real(), r[k].imag());
  unsigned v = unsigned(i) * 2654435761u;
  bits[i * 5 + 0] = cuda::std::popcount(v);
  bits[i * 5 + 1] = cuda::std::countl_zero(v >> (i % 32));
  bits[i * 5 + 2] = cuda::std::countr_zero(v | 0x80000000u);
  bits[i * 5 + 3] = cuda::std::rotl(v, i % 32);
  bits[i * 5 + 4] = cuda::std::bit_cast<unsigned>(float(i) * 1.5f) ^ cuda::std::bit_ceil(unsigned(i % 1000 + 1));
}

static unsigned rotl32(unsigned v, int s) { return s ? (v << s) | (v >> (32 - s)) : v; }
static int clz32(unsigned v) { return v ? __builtin_clz(v) : 32; }

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach the log as they are printed
  // Atomics.
  {
    const int blocks = 40, threads = 256, n = blocks * threads;
    Counters* c;
    unsigned* small;
    int* exch;
    CK(cudaMalloc(&c, sizeof(Counters)));
    CK(cudaMemset(c, 0, sizeof(Counters)));
    float init[2] = {-1e30f, 1e30f};
    CK(cudaMemcpy(reinterpret_cast<char*>(c) + offsetof(Counters, fmax), &init[0], 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(reinterpret_cast<char*>(c) + offsetof(Counters, fmin), &init[1], 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&small, blocks * 8 * 4));
    CK(cudaMalloc(&exch, (n / 2 + n) * 4));
    std::vector<int> ex0(n / 2 + n, 0);
    for (int i = 0; i < n / 2; ++i) ex0[i] = -i - 1;
    CK(cudaMemcpy(exch, ex0.data(), ex0.size() * 4, cudaMemcpyHostToDevice));
    atomics_kernel<<<blocks, threads>>>(c, small, exch);
    CK(cudaDeviceSynchronize());
    std::vector<char> raw(sizeof(Counters));
    CK(cudaMemcpy(raw.data(), c, sizeof(Counters), cudaMemcpyDeviceToHost));
    int sum, ticket, cas_max;
    unsigned long long bits;
    double dsum;
    float fmax, fmin;
    std::memcpy(&sum, raw.data() + offsetof(Counters, sum), 4);
    std::memcpy(&bits, raw.data() + offsetof(Counters, bits), 8);
    std::memcpy(&dsum, raw.data() + offsetof(Counters, dsum), 8);
    std::memcpy(&fmax, raw.data() + offsetof(Counters, fmax), 4);
    std::memcpy(&fmin, raw.data() + offsetof(Counters, fmin), 4);
    std::memcpy(&ticket, raw.data() + offsetof(Counters, ticket), 4);
    std::memcpy(&cas_max, raw.data() + offsetof(Counters, cas_max), 4);
    int order[64];
    std::memcpy(order, raw.data() + offsetof(Counters, order), sizeof order);
    long long wsum = 0;
    double wd = 0;
    float wmax = -1e30f, wmin = 1e30f;
    int wcas = 0;
    for (int g = 0; g < n; ++g) {
      wsum += g % 7, wd += g * 0.5;
      wmax = std::max(wmax, float(g % 1000) - 300.5f), wmin = std::min(wmin, float((g * 37) % 1001) - 250.25f);
      wcas = std::max(wcas, (g * 7919) % 100003);
    }
    report("cuda::atomic<int> fetch_add, <u64> fetch_or (device scope)", sum == wsum && bits == ~0ull);
    report("cuda::atomic<double> fetch_add (exact: multiples of 0.5)", dsum == wd);
    report("cuda::atomic<float> fetch_max / fetch_min", fmax == wmax && fmin == wmin);
    report("cuda::atomic compare_exchange_weak max loop", cas_max == wcas);
    std::vector<int> seen(blocks, 0);
    bool ok = ticket == blocks;
    for (int k = 0; k < blocks && ok; ++k) ok = order[k] >= 0 && order[k] < blocks && !seen[order[k]]++;
    report("cuda::atomic fetch_add tickets: each block once", ok);
    std::vector<unsigned> gs(blocks * 8);
    CK(cudaMemcpy(gs.data(), small, gs.size() * 4, cudaMemcpyDeviceToHost));
    // CPU: per block, 64 threads on each byte adding 1 or 2 (wrapping), shorts subtracting t.
    ok = true;
    for (int b = 0; b < blocks && ok; ++b) {
      for (int j = 0; j < 4; ++j) {
        unsigned byte = 0, x = 0;
        for (int t = j; t < threads; t += 4) byte += 1 + (t & 1), x ^= t * 2654435761u;
        ok = ok && gs[b * 8 + j] == ((byte & 0xff) | (x & 0xff00u) << 8);
      }
      for (int j = 0; j < 2; ++j) {
        int16_t s = 0;
        for (int t = j; t < threads; t += 2) s = int16_t(s - t);
        ok = ok && gs[b * 8 + 4 + j] == uint16_t(s);
      }
    }
    report("cuda::atomic<uint8_t>/<int16_t> in shared memory, atomic_ref fetch_xor", ok);
    std::vector<int> ge(n / 2 + n);
    CK(cudaMemcpy(ge.data(), exch, ge.size() * 4, cudaMemcpyDeviceToHost));
    // Slot s ends holding one of its two threads' ids, x; the other, y, got the initial value back
    // and x got y.
    ok = true;
    for (int s = 0; s < n / 2 && ok; ++s) {
      const int x = ge[s], y = x ^ 1;
      ok = (x == 2 * s || x == 2 * s + 1) && ge[n / 2 + y] == -s - 1 && ge[n / 2 + x] == y;
    }
    report("cuda::atomic_ref exchange", ok);
    cudaFree(c), cudaFree(small), cudaFree(exch);

    const int mp = 20000;
    int *data, *flag, *copy;
    CK(cudaMalloc(&data, mp * 4));
    CK(cudaMalloc(&copy, mp * 4));
    CK(cudaMalloc(&flag, 4));
    CK(cudaMemset(flag, 0, 4));
    CK(cudaMemset(data, 0, mp * 4));
    message_passing<<<2, 256>>>(data, flag, copy, mp);
    std::vector<int> gc(mp);
    CK(cudaMemcpy(gc.data(), copy, mp * 4, cudaMemcpyDeviceToHost));
    ok = true;
    for (int i = 0; i < mp && ok; ++i) ok = gc[i] == i * 3 + 1;
    report("release fence + relaxed flag / acquire spin between two CTAs", ok);
    cudaFree(data), cudaFree(copy), cudaFree(flag);

    cuda::atomic<int, cuda::thread_scope_system>* sa;
    unsigned* sb;
    CK(cudaMallocManaged(&sa, sizeof *sa));
    CK(cudaMallocManaged(&sb, 4));
    new (sa) cuda::atomic<int, cuda::thread_scope_system>(5);
    *sb = 0;
    system_atomics<<<6, 64>>>(sa, sb);
    CK(cudaDeviceSynchronize());
    report("cuda::atomic thread_scope_system on managed memory", sa->load() == 5 + 2 * 6 * 64 && *sb == 563);
    cudaFree(sa), cudaFree(sb);
  }
  // Barrier + memcpy_async.
  {
    const int blocks = 6, threads = 128, tiles = 5;
    std::vector<int> h(blocks * tiles * TILE);
    for (size_t i = 0; i < h.size(); ++i) h[i] = int((i * 2654435761u) >> 7);
    int *in, *out;
    CK(cudaMalloc(&in, h.size() * 4));
    CK(cudaMalloc(&out, (blocks * tiles + blocks) * threads * 4));
    CK(cudaMemset(out, 0, (blocks * tiles + blocks) * threads * 4));
    CK(cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    barrier_tiles<<<blocks, threads>>>(in, out, tiles);
    std::vector<int> g((blocks * tiles + blocks) * threads);
    CK(cudaMemcpy(g.data(), out, g.size() * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int b = 0; b < blocks; ++b)
      for (int k = 0; k < tiles; ++k)
        for (int t = 0; t < threads; ++t) {
          int s = 0;
          for (int i = t; i < TILE; i += threads) s += h[(size_t(b) * tiles + k) * TILE + i] ^ k;
          ok = ok && g[(b * tiles + k) * threads + t] == s;
        }
    report("cuda::barrier + block-wide cuda::memcpy_async, 5 phases", ok);
    ok = true;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < threads; ++t) ok = ok && g[(blocks * tiles + b) * threads + t] == (t % 2 ? 0 : 303);
    report("cuda::barrier arrive_and_drop: the rest go on", ok);
    cudaFree(in), cudaFree(out);
  }
  // Pipeline with producer/consumer roles.
  {
    const int blocks = 4, chunks = 10;
    std::vector<float> h(blocks * chunks * CHUNK);
    for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 1000) * 0.125f;
    float *in, *out;
    CK(cudaMalloc(&in, h.size() * 4));
    CK(cudaMalloc(&out, h.size() * 4));
    CK(cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    pipeline_roles<<<blocks, 128>>>(in, out, chunks);
    std::vector<float> g(h.size());
    CK(cudaMemcpy(g.data(), out, g.size() * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t i = 0; i < h.size() && ok; ++i) ok = g[i] == h[i] * 2.0f + float((i / CHUNK) % chunks);
    report("cuda::pipeline producer/consumer roles, 3 stages", ok);
    cudaFree(in), cudaFree(out);
  }
  // mdspan.
  {
    const int rows = 7, cols = 33;
    std::vector<float> a(rows * cols);
    for (int i = 0; i < rows * cols; ++i) a[i] = float(i) * 0.5f;
    float *da, *dout;
    CK(cudaMalloc(&da, a.size() * 4));
    CK(cudaMalloc(&dout, (rows * cols + 24 + 8) * 4));
    CK(cudaMemset(dout, 0, (rows * cols + 24 + 8) * 4));
    CK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    mdspan_kernel<<<rows, 64>>>(da, dout, rows, cols);
    std::vector<float> g(rows * cols + 24 + 8);
    CK(cudaMemcpy(g.data(), dout, g.size() * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)  // T(j, i) with layout_left over extents (cols, rows): j + i * cols
        ok = ok && g[j + i * cols] == a[i * cols + j] + float(cols * 1000 + cols);
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 3; ++y)
        for (int z = 0; z < 4; ++z) ok = ok && g[rows * cols + x * 12 + y * 4 + z] == float(x * 100 + y * 10 + z);
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 2; ++y) ok = ok && g[rows * cols + 24 + x + 3 * y] == float(x * 10 + y + 6);
    report("cuda::std::mdspan layout_right/layout_left/layout_stride", ok);
    cudaFree(da), cudaFree(dout);
  }
  // numeric_limits.
  {
    Limits* dl;
    CK(cudaMalloc(&dl, sizeof(Limits)));
    limits_kernel<<<1, 1>>>(dl);
    Limits l;
    CK(cudaMemcpy(&l, dl, sizeof l, cudaMemcpyDeviceToHost));
    using F = std::numeric_limits<float>;
    using D = std::numeric_limits<double>;
    float wf[7] = {F::min(), F::max(), F::lowest(), F::epsilon(), F::infinity(), F::quiet_NaN(), F::denorm_min()};
    double wd[7] = {D::min(), D::max(), D::lowest(), D::epsilon(), D::infinity(), D::quiet_NaN(), D::denorm_min()};
    bool ok = std::memcmp(l.f, wf, sizeof wf) == 0 && std::memcmp(l.d, wd, sizeof wd) == 0;
    ok = ok && l.i[0] == INT32_MIN && l.i[1] == INT32_MAX && l.ll[0] == INT64_MIN && l.ll[1] == INT64_MAX &&
         l.u[0] == UINT32_MAX && l.digits[0] == 24 && l.digits[1] == 15 && l.digits[2] == 128 && l.digits[3] == -307;
    uint16_t hb[3];
    std::memcpy(hb, l.h, sizeof hb);
    ok = ok && hb[0] == 0x7bff && hb[1] == 0x1400 && hb[2] == 0xfbff;
    report("cuda::std::numeric_limits float/double/int/long long/unsigned/half", ok);
    cudaFree(dl);
  }
  // complex math and <bit>.
  {
    const int n = 512;
    std::vector<float2> z(n);
    for (int i = 0; i < n; ++i) z[i] = make_float2(std::cos(i * 0.37f) * (1 + i % 5), std::sin(i * 0.91f) * (1 + i % 3) + 0.1f);
    float2 *dz, *dout;
    unsigned* db;
    CK(cudaMalloc(&dz, n * 8));
    CK(cudaMalloc(&dout, n * 6 * 8));
    CK(cudaMalloc(&db, n * 5 * 4));
    CK(cudaMemcpy(dz, z.data(), n * 8, cudaMemcpyHostToDevice));
    complex_bits<<<n / 128, 128>>>(dz, dout, db, n);
    std::vector<float2> g(n * 6);
    std::vector<unsigned> gb(n * 5);
    CK(cudaMemcpy(g.data(), dout, g.size() * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gb.data(), db, gb.size() * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      std::complex<double> a(z[i].x, z[i].y), b(z[(i + 1) % n].x, z[(i + 1) % n].y);
      std::complex<double> w[6] = {a * b, a / b, std::exp(a), std::log(a), std::sqrt(a), std::pow(a, std::complex<double>(0.5, 0.25))};
      for (int k = 0; k < 6; ++k) {
        std::complex<double> gv(g[i * 6 + k].x, g[i * 6 + k].y);
        ok = ok && std::abs(gv - w[k]) <= 2e-5 * std::max(1.0, std::abs(w[k]));
      }
    }
    report("cuda::std::complex<float> * / exp log sqrt pow (rel 2e-5)", ok);
    ok = true;
    for (int i = 0; i < n; ++i) {
      unsigned v = unsigned(i) * 2654435761u;
      float fi = float(i) * 1.5f;
      unsigned fb;
      std::memcpy(&fb, &fi, 4);
      unsigned ceil = 1;
      while (ceil < unsigned(i % 1000 + 1)) ceil <<= 1;
      ok = ok && gb[i * 5] == unsigned(__builtin_popcount(v)) && gb[i * 5 + 1] == unsigned(clz32(v >> (i % 32))) &&
           gb[i * 5 + 2] == unsigned(__builtin_ctz(v | 0x80000000u)) && gb[i * 5 + 3] == rotl32(v, i % 32) &&
           gb[i * 5 + 4] == (fb ^ ceil);
    }
    report("cuda::std::popcount/countl_zero/countr_zero/rotl/bit_cast/bit_ceil", ok);
    cudaFree(dz), cudaFree(dout), cudaFree(db);
  }
  CK(cudaDeviceSynchronize());
  std::printf("libcu_more: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
