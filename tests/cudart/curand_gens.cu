// cuRAND beyond curand_dev.cu / curand_host.cu: the device API's XORWOW and Philox4_32_10 raw
// streams against CPU implementations of their published definitions (curand_kernel.h), Sobol64
// and scrambled Sobol64 against the Gray-code construction, MTGP32 (host-built kernel-parameter
// tables and states, curandMakeMTGP32KernelState) against a CPU model of its block-wide
// recursion, normal / log-normal / Poisson (curand_poisson, small and large lambda, and the
// discrete-distribution table of curand_create_poisson_distribution) by their statistics; and the
// host API's generators (every type but MT19937, whose seeding kernel had not finished after 3
// minutes of functional simulation; each pseudo-random ordering for XORWOW and Philox) (curandCreateGenerator) against the
// same generator run on the CPU (curandCreateGeneratorHost), bit for bit for integers and uniforms.
// Integer streams also print an FNV-1a hash: deterministic, and what an H100 printed. Float
// normals are checked by statistics only (Box-Muller goes through the SFU's approximate sine).
#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "ok" : "FAIL");
  if (!ok) ++failures;
}
#define CK(x)                                                                                        \
  do {                                                                                               \
    cudaError_t e_ = (x);                                                                            \
    if (e_ != cudaSuccess) std::printf("line %d: %s\n", __LINE__, cudaGetErrorString(e_)), ++failures; \
  } while (0)
#define CR(x)                                                                       \
  do {                                                                              \
    curandStatus_t s_ = (x);                                                        \
    if (s_ != CURAND_STATUS_SUCCESS) std::printf("line %d: curand %d\n", __LINE__, int(s_)), ++failures; \
  } while (0)

template <typename T> static uint32_t fnv(const std::vector<T>& v) {
  uint32_t h = 2166136261u;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}
template <typename T> static std::vector<T> fetch(const T* d, size_t n) {
  std::vector<T> v(n);
  CK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}
// Sample mean and standard deviation within 5 standard errors (normally distributed samples).
static bool stats_ok(const std::vector<float>& g, double mean, double sd) {
  double s = 0, s2 = 0;
  for (float x : g) s += x, s2 += double(x) * x;
  const double n = double(g.size()), m = s / n, v = s2 / n - m * m;
  return std::fabs(m - mean) < 5 * sd / std::sqrt(n) && std::fabs(std::sqrt(v) - sd) < 5 * sd / std::sqrt(2 * n);
}

// ------------------------------------------------------------ CPU models
struct CpuXorwow {
  uint32_t v[5], d;
  explicit CpuXorwow(uint64_t seed) {
    uint32_t s0 = uint32_t(seed) ^ 0xaad26b49u, s1 = uint32_t(seed >> 32) ^ 0xf7dcefddu;
    uint32_t t0 = 1099087573u * s0, t1 = 2591861531u * s1;
    d = 6615241u + t1 + t0;
    v[0] = 123456789u + t0, v[1] = 362436069u ^ t0, v[2] = 521288629u + t1, v[3] = 88675123u ^ t1, v[4] = 5783321u + t0;
  }
  uint32_t next() {
    uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1], v[1] = v[2], v[2] = v[3], v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
    d += 362437u;
    return v[4] + d;
  }
};
static void philox(uint32_t c[4], uint32_t k0, uint32_t k1, uint32_t out[4]) {
  uint32_t x[4] = {c[0], c[1], c[2], c[3]};
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(0xD2511F53u) * x[0], p1 = uint64_t(0xCD9E8D57u) * x[2];
    uint32_t y[4] = {uint32_t(p1 >> 32) ^ x[1] ^ k0, uint32_t(p1), uint32_t(p0 >> 32) ^ x[3] ^ k1, uint32_t(p0)};
    std::memcpy(x, y, sizeof x);
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
  std::memcpy(out, x, sizeof x);
}

// ------------------------------------------------------------ device kernels
constexpr int K = 64;  // draws per thread
__global__ void xorwow_philox(uint64_t seed, unsigned* xo, unsigned* po, float* nrm, float* lgn, unsigned* poi_s,
                              unsigned* poi_l, double* nd) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  curandStateXORWOW_t xs;
  curand_init(seed, 0, 0, &xs);
  if (t == 0)
    for (int k = 0; k < 4 * K; ++k) xo[k] = curand(&xs);
  curandStatePhilox4_32_10_t ps;
  curand_init(seed, t, 0, &ps);  // subsequence t: counter (0, 0, t, 0)
  for (int k = 0; k < K; ++k) po[t * K + k] = curand(&ps);
  curand_init(seed, t, 0, &xs);
  curandStateMRG32k3a_t ms;
  curand_init(seed, t, 0, &ms);
  for (int k = 0; k < K; ++k) {
    nrm[t * K + k] = (k & 1) ? curand_normal(&xs) : curand_normal(&ms);
    lgn[t * K + k] = curand_log_normal(&ps, 0.5f, 0.25f);
    poi_s[t * K + k] = (k & 1) ? curand_poisson(&ps, 3.5) : curand_poisson(&ms, 3.5);
    poi_l[t * K + k] = (k & 1) ? curand_poisson(&xs, 900.0) : curand_poisson(&ps, 900.0);
    nd[t * K + k] = curand_normal_double(&ms);
  }
}
__global__ void sobol64(curandDirectionVectors64_t* dirs, unsigned long long* scr, unsigned long long offset,
                        unsigned long long* out, unsigned long long* sout, double* dout) {
  int dim = threadIdx.x;
  curandStateSobol64_t s;
  curandStateScrambledSobol64_t ss;
  curand_init(dirs[dim], offset, &s);
  curand_init(dirs[dim], scr[dim], offset, &ss);
  for (int k = 0; k < K; ++k) out[dim * K + k] = curand(&s);
  for (int k = 0; k < K; ++k) sout[dim * K + k] = curand(&ss);
  curand_init(dirs[dim], offset, &s);
  for (int k = 0; k < K; ++k) dout[dim * K + k] = curand_normal_double(&s);
}
__global__ void mtgp(curandStateMtgp32_t* st, unsigned* raw, float* nrm, int rounds) {
  const int b = blockIdx.x, t = threadIdx.x, n = blockDim.x;
  for (int r = 0; r < rounds; ++r) raw[(b * rounds + r) * n + t] = curand(&st[b]);
  for (int r = 0; r < rounds; ++r) nrm[(b * rounds + r) * n + t] = curand_normal(&st[b]);
}
__global__ void discrete(curandDiscreteDistribution_t dist, unsigned* out, uint64_t seed) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, t, 0, &s);
  for (int k = 0; k < K; ++k) out[t * K + k] = curand_discrete(&s, dist);
}

static bool poisson_ok(const std::vector<unsigned>& g, double lambda) {
  double s = 0, s2 = 0;
  for (unsigned x : g) s += x, s2 += double(x) * x;
  double m = s / g.size(), v = s2 / g.size() - m * m;
  return std::fabs(m - lambda) < 0.02 * lambda && std::fabs(v - lambda) < 0.06 * lambda;
}

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach the log as they are printed
  const uint64_t seed = 0x1234abcd5678ull;
  // XORWOW / Philox / MRG32k3a.
  {
    const int threads = 512;
    unsigned *xo, *po, *ps, *pl;
    float *nrm, *lgn;
    double* nd;
    CK(cudaMalloc(&xo, 4 * K * 4));
    CK(cudaMalloc(&po, threads * K * 4));
    CK(cudaMalloc(&ps, threads * K * 4));
    CK(cudaMalloc(&pl, threads * K * 4));
    CK(cudaMalloc(&nrm, threads * K * 4));
    CK(cudaMalloc(&lgn, threads * K * 4));
    CK(cudaMalloc(&nd, threads * K * 8));
    xorwow_philox<<<threads / 128, 128>>>(seed, xo, po, nrm, lgn, ps, pl, nd);
    auto gx = fetch(xo, 4 * K);
    CpuXorwow cx(seed);
    bool ok = true;
    for (int k = 0; k < 4 * K; ++k) ok &= gx[k] == cx.next();
    report("xorwow curand() == CPU xorwow (subsequence 0)", ok);
    auto gp = fetch(po, threads * K);
    ok = true;
    for (int t = 0; t < threads; ++t) {
      uint32_t c[4] = {0, 0, uint32_t(t), 0}, o[4];
      for (int k = 0; k < K; k += 4, ++c[0]) {
        philox(c, uint32_t(seed), uint32_t(seed >> 32), o);
        for (int j = 0; j < 4; ++j) ok &= gp[t * K + k + j] == o[j];
      }
    }
    report("philox4_32_10 curand() == CPU Philox4x32-10 (subsequence t)", ok);
    report("xorwow/mrg32k3a curand_normal mean 0 sd 1", stats_ok(fetch(nrm, threads * K), 0, 1));
    auto gl = fetch(lgn, threads * K);
    std::vector<float> ll(gl.size());
    bool pos = true;
    for (size_t i = 0; i < gl.size(); ++i) pos &= gl[i] > 0, ll[i] = std::log(gl[i]);
    report("philox curand_log_normal(0.5, 0.25): log mean 0.5 sd 0.25", pos && stats_ok(ll, 0.5, 0.25));
    auto gs = fetch(ps, threads * K), gL = fetch(pl, threads * K);
    report("curand_poisson lambda 3.5 (mrg32k3a, philox): mean and variance", poisson_ok(gs, 3.5));
    report("curand_poisson lambda 900 (xorwow, philox): mean and variance", poisson_ok(gL, 900.0));
    std::printf("poisson hashes: %08x %08x\n", fnv(gs), fnv(gL));
    auto gd = fetch(nd, threads * K);
    std::vector<float> gdf(gd.begin(), gd.end());
    report("mrg32k3a curand_normal_double mean 0 sd 1", stats_ok(gdf, 0, 1));
    std::printf("mrg32k3a normal_double hash: %08x\n", fnv(gd));
    cudaFree(xo), cudaFree(po), cudaFree(ps), cudaFree(pl), cudaFree(nrm), cudaFree(lgn), cudaFree(nd);
  }
  // Sobol64 and scrambled Sobol64.
  {
    const int dims = 32;
    curandDirectionVectors64_t* hv;
    unsigned long long* hs;
    CR(curandGetDirectionVectors64(&hv, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6));
    CR(curandGetScrambleConstants64(&hs));
    curandDirectionVectors64_t* dv;
    unsigned long long *dsc, *o, *so;
    double* dn;
    CK(cudaMalloc(&dv, dims * sizeof(curandDirectionVectors64_t)));
    CK(cudaMalloc(&dsc, dims * 8));
    CK(cudaMalloc(&o, dims * K * 8));
    CK(cudaMalloc(&so, dims * K * 8));
    CK(cudaMalloc(&dn, dims * K * 8));
    CK(cudaMemcpy(dv, hv, dims * sizeof(curandDirectionVectors64_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsc, hs, dims * 8, cudaMemcpyHostToDevice));
    const unsigned long long offset = 1000000007ull;
    sobol64<<<1, dims>>>(dv, dsc, offset, o, so, dn);
    auto go = fetch(o, dims * K), gso = fetch(so, dims * K);
    bool ok = true, oks = true;
    for (int d = 0; d < dims; ++d)
      for (int k = 0; k < K; ++k) {
        unsigned long long i = offset + k, gray = i ^ (i >> 1), x = 0;
        for (int bit = 0; bit < 64; ++bit)
          if (gray >> bit & 1) x ^= hv[d][bit];
        ok &= go[d * K + k] == x;
        oks &= gso[d * K + k] == (x ^ hs[d]);
      }
    report("sobol64 == Gray-code XOR of the direction vectors (offset 1e9+7)", ok);
    report("scrambled sobol64 == sobol64 ^ scramble constant", oks);
    auto gn = fetch(dn, dims * K);
    bool fin = true;
    for (double x : gn) fin &= std::isfinite(x) && std::fabs(x) < 7;
    report("sobol64 curand_normal_double finite", fin);
    std::printf("sobol64 normal_double hash: %08x\n", fnv(gn));
    cudaFree(dv), cudaFree(dsc), cudaFree(o), cudaFree(so), cudaFree(dn);
  }
  // MTGP32 with its kernel-parameter tables.
  {
    const int blocks = 8, threads = 256, rounds = 12;
    mtgp32_kernel_params* kp;
    curandStateMtgp32* st;
    CK(cudaMalloc(&kp, sizeof(mtgp32_kernel_params)));
    CK(cudaMalloc(&st, blocks * sizeof(curandStateMtgp32)));
    CR(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, kp));
    CR(curandMakeMTGP32KernelState(st, mtgp32dc_params_fast_11213, kp, blocks, 4321));
    // The CPU model starts from the same states and tables.
    std::vector<curandStateMtgp32> hst(blocks);
    mtgp32_kernel_params hk;
    CK(cudaMemcpy(hst.data(), st, blocks * sizeof(curandStateMtgp32), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&hk, kp, sizeof hk, cudaMemcpyDeviceToHost));
    unsigned* raw;
    float* nrm;
    CK(cudaMalloc(&raw, blocks * rounds * threads * 4));
    CK(cudaMalloc(&nrm, blocks * rounds * threads * 4));
    mtgp<<<blocks, threads>>>(st, raw, nrm, rounds);
    auto g = fetch(raw, blocks * rounds * threads);
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
      curandStateMtgp32& s = hst[b];
      const int id = s.pIdx, pos = int(hk.pos_tbl[id]);
      for (int r = 0; r < rounds; ++r) {
        for (int t = 0; t < threads; ++t) {
          auto at = [&](int i) { return s.s[(t + s.offset + i) & MTGP32_STATE_MASK]; };
          uint32_t X = (at(0) & hk.mask[0]) ^ at(1), Y = at(pos);
          X ^= X << hk.sh1_tbl[id];
          Y = X ^ (Y >> hk.sh2_tbl[id]);
          uint32_t rr = Y ^ hk.param_tbl[id][Y & 0x0f];
          s.s[(t + s.offset + MTGPDC_N) & MTGP32_STATE_MASK] = rr;
          uint32_t T = at(pos - 1);
          T ^= T >> 16, T ^= T >> 8;
          ok &= g[(b * rounds + r) * threads + t] == (rr ^ hk.temper_tbl[id][T & 0x0f]);
        }
        s.offset = (s.offset + threads) & MTGP32_STATE_MASK;
      }
    }
    report("mtgp32 curand() == CPU model of the block recursion (8 blocks x 256 threads)", ok);
    std::printf("mtgp32 hash: %08x\n", fnv(g));
    report("mtgp32 curand_normal mean 0 sd 1", stats_ok(fetch(nrm, blocks * rounds * threads), 0, 1));
    cudaFree(kp), cudaFree(st), cudaFree(raw), cudaFree(nrm);
  }
  // Discrete Poisson table.
  {
    curandDiscreteDistribution_t dist;
    CR(curandCreatePoissonDistribution(42.0, &dist));
    unsigned* o;
    CK(cudaMalloc(&o, 256 * K * 4));
    discrete<<<2, 128>>>(dist, o, seed);
    auto g = fetch(o, 256 * K);
    report("curand_discrete (curandCreatePoissonDistribution 42)", poisson_ok(g, 42.0));
    std::printf("discrete poisson hash: %08x\n", fnv(g));
    CR(curandDestroyDistribution(dist));
    cudaFree(o);
  }
  // Host API: every generator type and ordering, device against CPU generator.
  {
    struct G { const char* name; curandRngType_t type; bool quasi, is64; };
    const G gens[] = {{"XORWOW", CURAND_RNG_PSEUDO_XORWOW, false, false},
                      {"MRG32K3A", CURAND_RNG_PSEUDO_MRG32K3A, false, false},
                      {"MTGP32", CURAND_RNG_PSEUDO_MTGP32, false, false},
                      {"PHILOX4_32_10", CURAND_RNG_PSEUDO_PHILOX4_32_10, false, false},
                      {"SOBOL32", CURAND_RNG_QUASI_SOBOL32, true, false},
                      {"SCRAMBLED_SOBOL32", CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, true, false},
                      {"SOBOL64", CURAND_RNG_QUASI_SOBOL64, true, true},
                      {"SCRAMBLED_SOBOL64", CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, true, true}};
    struct O { const char* name; curandOrdering_t o; };
    const O pseudo[] = {{"DEFAULT", CURAND_ORDERING_PSEUDO_DEFAULT}, {"LEGACY", CURAND_ORDERING_PSEUDO_LEGACY},
                        {"SEEDED", CURAND_ORDERING_PSEUDO_SEEDED}, {"BEST", CURAND_ORDERING_PSEUDO_BEST}};
    const O quasi[] = {{"DEFAULT", CURAND_ORDERING_QUASI_DEFAULT}};
    const size_t n = 24000;  // a multiple of every quasi dimension count used
    void* d;
    CK(cudaMalloc(&d, n * 8));
    for (const G& gen : gens) {
      const O* ords = gen.quasi ? quasi : pseudo;
      // MRG32k3a and MTGP32 set up their states in a kernel that takes the simulator tens of seconds:
      // two orderings each (BEST is DEFAULT's sequence, SEEDED is refused).
      const bool slow_setup = gen.type == CURAND_RNG_PSEUDO_MRG32K3A || gen.type == CURAND_RNG_PSEUDO_MTGP32;
      const int nords = gen.quasi ? 1 : slow_setup ? 2 : 4;
      for (int oi = 0; oi < nords; ++oi) {
        curandGenerator_t dg, hg;
        if (curandCreateGenerator(&dg, gen.type) != CURAND_STATUS_SUCCESS) {
          std::printf("%s: curandCreateGenerator failed\n", gen.name), ++failures;
          continue;
        }
        CR(curandCreateGeneratorHost(&hg, gen.type));
        for (curandGenerator_t x : {dg, hg}) {
          if (curandSetGeneratorOrdering(x, ords[oi].o) != CURAND_STATUS_SUCCESS) std::printf("%s %s: ordering refused\n", gen.name, ords[oi].name);
          if (gen.quasi) CR(curandSetQuasiRandomGeneratorDimensions(x, 3));
          else CR(curandSetPseudoRandomGeneratorSeed(x, 20261125ull));
          if (gen.type != CURAND_RNG_PSEUDO_MTGP32) CR(curandSetGeneratorOffset(x, 17));  // MTGP32 has no offsets
        }
        char what[160];
        if (gen.is64) {
          std::vector<unsigned long long> h(n);
          CR(curandGenerateLongLong(dg, static_cast<unsigned long long*>(d), n));
          CR(curandGenerateLongLong(hg, h.data(), n));
          auto g = fetch(static_cast<unsigned long long*>(d), n);
          std::snprintf(what, sizeof what, "host API %s %s u64: device == CPU generator, hash %08x", gen.name, ords[oi].name, fnv(g));
          report(what, g == h);
        } else {
          std::vector<unsigned> h(n);
          CR(curandGenerate(dg, static_cast<unsigned*>(d), n));
          CR(curandGenerate(hg, h.data(), n));
          auto g = fetch(static_cast<unsigned*>(d), n);
          std::snprintf(what, sizeof what, "host API %s %s u32: device == CPU generator, hash %08x", gen.name, ords[oi].name, fnv(g));
          report(what, g == h);
        }
        // Doubles (uniform) bit for bit; normals by statistics and closeness to the CPU's.
        std::vector<double> hd(n);
        CR(curandGenerateUniformDouble(dg, static_cast<double*>(d), n));
        CR(curandGenerateUniformDouble(hg, hd.data(), n));
        auto gd = fetch(static_cast<double*>(d), n);
        std::snprintf(what, sizeof what, "host API %s %s uniform double == CPU generator", gen.name, ords[oi].name);
        report(what, gd == hd);
        std::vector<float> hn(n);
        CR(curandGenerateNormal(dg, static_cast<float*>(d), n, 2.0f, 3.0f));
        CR(curandGenerateNormal(hg, hn.data(), n, 2.0f, 3.0f));
        auto gn = fetch(static_cast<float*>(d), n);
        double maxd = 0;
        for (size_t i = 0; i < n; ++i) maxd = std::max(maxd, double(std::fabs(gn[i] - hn[i])));
        std::snprintf(what, sizeof what, "host API %s %s normal(2, 3) within 1e-4 of the CPU generator's", gen.name, ords[oi].name);
        report(what, maxd < 1e-4 && stats_ok(gn, 2.0, 3.0));
        if (!gen.quasi && oi == 0) {
          std::vector<unsigned> hp(n);
          CR(curandGeneratePoisson(dg, static_cast<unsigned*>(d), n, 7.5));
          CR(curandGeneratePoisson(hg, hp.data(), n, 7.5));
          auto gp = fetch(static_cast<unsigned*>(d), n);
          size_t same = 0;
          for (size_t i = 0; i < n; ++i) same += gp[i] == hp[i];
          std::snprintf(what, sizeof what, "host API %s Poisson(7.5): mean and variance, %s the CPU generator's", gen.name,
                        same == n ? "equal to" : "differs from");
          report(what, poisson_ok(gp, 7.5));
        }
        CR(curandDestroyGenerator(dg));
        CR(curandDestroyGenerator(hg));
      }
    }
    cudaFree(d);
  }
  CK(cudaDeviceSynchronize());
  std::printf("curand_gens: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
