// curand's device API beyond Philox uniforms: XORWOW with curand_init(seed, subsequence, offset)
// (skip-ahead through the precalculated matrices in device memory), MRG32k3a, Philox normal /
// normal2 / normal4 / log_normal / double variants, Sobol32 and scrambled Sobol32 with direction
// vectors and scramble constants from libcurand's host functions, and the host generator API.
// Sobol is checked against a CPU reference (Gray-code XOR of the direction vectors); the other
// generators against their own sequential definitions (offset k == k draws, skipahead ==
// curand_init with an offset, skipahead_sequence == a later subsequence) and distribution
// statistics, and their exact bits as FNV-1a hashes, which are what an H100 printed (2026-11-24,
// sm_80 and sm_90 builds alike). The float normals (Box-Muller through __sincosf, the SFU's
// approximate sine and cosine) are checked by their statistics only: warpsim's MUFU results are
// within the PTX ISA's error bounds but not bit-identical to the hardware's.
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  if (!ok) ++failures;
}
template <typename T>
static uint32_t fnv(const std::vector<T>& v) {
  uint32_t h = 2166136261u;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}
template <typename T>
static std::vector<T> fetch(const T* d, size_t n) {
  std::vector<T> v(n);
  cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return v;
}

constexpr int T = 256, K = 8;  // threads, draws per thread

template <typename State>
__device__ void draws(State* s, unsigned* u, float* f, float* g, double* d, int t) {
  for (int k = 0; k < K; ++k) u[t * K + k] = curand(s);
  for (int k = 0; k < K; ++k) f[t * K + k] = curand_uniform(s);
  for (int k = 0; k < K; ++k) g[t * K + k] = curand_normal(s);
  for (int k = 0; k < K; ++k) d[t * K + k] = curand_normal_double(s);
}

__global__ void xorwow(unsigned long long seed, unsigned long long offset, unsigned* u, float* f, float* g, double* d) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  curandState s;
  curand_init(seed, t, offset, &s);
  draws(&s, u, f, g, d, t);
}
// Thread t: subsequence 0 advanced by t draws, through curand_init's offset, skipahead, and by
// drawing; subsequence t through skipahead_sequence.
__global__ void xorwow_skips(unsigned long long seed, unsigned* a, unsigned* b, unsigned* c, unsigned* e, unsigned* sub) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  curandState s1, s2, s3, s4, s5;
  curand_init(seed, 0, t * 1000ull, &s1);
  a[t] = curand(&s1);
  curand_init(seed, 0, 0, &s2);
  skipahead(t * 1000ull, &s2);
  b[t] = curand(&s2);
  curand_init(seed, 0, 0, &s3);
  for (int i = 0; i < t; ++i) curand(&s3);
  c[t] = curand(&s3);
  curand_init(seed, 0, 0, &s4);
  skipahead_sequence((unsigned long long)t, &s4);
  e[t] = curand(&s4);
  curand_init(seed, t, 0, &s5);
  sub[t] = curand(&s5);
}
__global__ void mrg(unsigned long long seed, unsigned long long offset, unsigned* u, float* f, float* g, double* d, double* ud) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  curandStateMRG32k3a s;
  curand_init(seed, t, offset, &s);
  draws(&s, u, f, g, d, t);
  for (int k = 0; k < K; ++k) ud[t * K + k] = curand_uniform_double(&s);
}
__global__ void mrg_skips(unsigned long long seed, unsigned* a, unsigned* b, unsigned* c) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  curandStateMRG32k3a s1, s2, s3;
  curand_init(seed, 0, t * 3ull, &s1);
  a[t] = curand(&s1);
  curand_init(seed, 0, 0, &s2);
  for (int i = 0; i < 3 * t; ++i) curand(&s2);
  b[t] = curand(&s2);
  curand_init(seed, 0, 0, &s3);
  skipahead_subsequence((unsigned long long)t, &s3);
  c[t] = curand(&s3);
}
__global__ void philox(unsigned long long seed, float* n1, float2* n2, float4* n4, float* ln, double* ud, double2* nd2, uint4* u4) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, t, 3, &s);
  for (int k = 0; k < K; ++k) n1[t * K + k] = curand_normal(&s);
  for (int k = 0; k < K; ++k) n2[t * K + k] = curand_normal2(&s);
  for (int k = 0; k < K; ++k) n4[t * K + k] = curand_normal4(&s);
  for (int k = 0; k < K; ++k) ln[t * K + k] = curand_log_normal(&s, 1.0f, 0.5f);
  for (int k = 0; k < K; ++k) ud[t * K + k] = curand_uniform_double(&s);
  for (int k = 0; k < K; ++k) nd2[t * K + k] = curand_normal2_double(&s);
  for (int k = 0; k < K; ++k) u4[t * K + k] = curand4(&s);
}
__global__ void sobol(curandDirectionVectors32_t* dirs, unsigned* scr, unsigned offset, unsigned* out, unsigned* sout, float* fout) {
  int dim = threadIdx.x;
  curandStateSobol32 s;
  curandStateScrambledSobol32 ss;
  curand_init(dirs[dim], offset, &s);
  curand_init(dirs[dim], scr[dim], offset, &ss);
  for (int k = 0; k < K; ++k) out[dim * K + k] = curand(&s);
  for (int k = 0; k < K; ++k) sout[dim * K + k] = curand(&ss);
  curand_init(dirs[dim], offset, &s);
  for (int k = 0; k < K; ++k) fout[dim * K + k] = curand_uniform(&s);
}

static void stats(const char* what, const std::vector<float>& g, double mean, double sd, double tol) {
  double s = 0, s2 = 0;
  for (float x : g) { s += x; s2 += double(x) * x; }
  double m = s / g.size(), v = s2 / g.size() - m * m;
  report(what, std::fabs(m - mean) < tol && std::fabs(std::sqrt(v) - sd) < tol * 2);
}

int main() {
  const int NT = T * 4, N = NT * K;
  unsigned *u, *a, *b, *c, *e, *sub;
  float *f, *g, *ln;
  double *d, *ud;
  float2* n2;
  float4* n4;
  double2* nd2;
  uint4* u4;
  cudaMalloc(&u, N * 4); cudaMalloc(&f, N * 4); cudaMalloc(&g, N * 4); cudaMalloc(&d, N * 8); cudaMalloc(&ud, N * 8);
  cudaMalloc(&a, NT * 4); cudaMalloc(&b, NT * 4); cudaMalloc(&c, NT * 4); cudaMalloc(&e, NT * 4); cudaMalloc(&sub, NT * 4);
  cudaMalloc(&ln, N * 4); cudaMalloc(&n2, N * 8); cudaMalloc(&n4, N * 16); cudaMalloc(&nd2, N * 16); cudaMalloc(&u4, N * 16);

  const unsigned long long offsets[] = {0, 5, 1000003};
  for (unsigned long long off : offsets) {
    xorwow<<<4, T>>>(0x1234abcdull, off, u, f, g, d);
    auto hu = fetch(u, N); auto hf = fetch(f, N); auto hg = fetch(g, N); auto hd = fetch(d, N);
    std::printf("xorwow offset %llu: curand %08x uniform %08x normal_double %08x first %08x %08x\n", off, fnv(hu),
                fnv(hf), fnv(hd), hu[0], hu[K]);
    if (off == 0) {
      bool ok = true;
      for (float x : hf) ok &= x > 0.0f && x <= 1.0f;
      report("xorwow uniforms in (0,1]", ok);
      stats("xorwow normals mean 0 sd 1", hg, 0, 1, 0.03);
    }
  }
  xorwow_skips<<<4, T>>>(99, a, b, c, e, sub);
  {
    auto ha = fetch(a, NT), hb = fetch(b, NT), hc = fetch(c, NT), he = fetch(e, NT), hs = fetch(sub, NT);
    // c[t] is draw t of subsequence 0; a[t]/b[t] are draw 1000t.
    bool ok = ha == hb && ha[0] == hc[0];
    report("xorwow curand_init offset == skipahead", ok);
    report("xorwow skipahead_sequence(t) == curand_init(seed, t, 0)", he == hs);
    std::printf("xorwow skips: %08x %08x %08x\n", fnv(ha), fnv(hc), fnv(hs));
  }
  {
    xorwow<<<4, T>>>(99, 0, u, f, g, d);
    auto hu = fetch(u, N);
    auto hc = [&] { xorwow_skips<<<4, T>>>(99, a, b, c, e, sub); return fetch(c, NT); }();
    bool ok = true;
    for (int t = 0; t < K; ++t) ok &= hc[t] == hu[t];  // thread 0's first K draws
    report("xorwow draw t of subsequence 0 == t-th curand() of one state", ok);
  }
  for (unsigned long long off : offsets) {
    mrg<<<4, T>>>(42, off, u, f, g, d, ud);
    auto hu = fetch(u, N); auto hf = fetch(f, N); auto hg = fetch(g, N); auto hd = fetch(d, N); auto hud = fetch(ud, N);
    std::printf("mrg32k3a offset %llu: curand %08x uniform %08x normal_double %08x uniform_double %08x first %08x\n", off,
                fnv(hu), fnv(hf), fnv(hd), fnv(hud), hu[0]);
    if (off == 0) {
      bool ok = true;
      for (double x : hud) ok &= x > 0.0 && x <= 1.0;
      report("mrg32k3a uniform_double in (0,1]", ok);
      stats("mrg32k3a normals mean 0 sd 1", hg, 0, 1, 0.03);
    }
  }
  mrg_skips<<<4, T>>>(42, a, b, c);
  {
    auto ha = fetch(a, NT), hb = fetch(b, NT), hc = fetch(c, NT);
    report("mrg32k3a curand_init offset == sequential draws", ha == hb);
    mrg<<<4, T>>>(42, 0, u, f, g, d, ud);
    auto hu = fetch(u, N);
    bool ok = true;
    for (int t = 0; t < NT; ++t) ok &= hc[t] == hu[t * K];
    report("mrg32k3a skipahead_subsequence(t) == curand_init(seed, t, 0)", ok);
  }
  philox<<<4, T>>>(7, g, n2, n4, ln, ud, nd2, u4);
  {
    auto h1 = fetch(g, N); auto h2 = fetch(n2, N); auto h4 = fetch(n4, N); auto hl = fetch(ln, N);
    auto hud = fetch(ud, N); auto hnd = fetch(nd2, N); auto hu4 = fetch(u4, N);
    std::printf("philox: uniform_double %08x normal2_double %08x curand4 %08x\n", fnv(hud), fnv(hnd), fnv(hu4));
    std::vector<float> n2flat;
    for (auto v : h2) { n2flat.push_back(v.x); n2flat.push_back(v.y); }
    stats("philox normal2", n2flat, 0, 1, 0.03);
    stats("philox normal", h1, 0, 1, 0.03);
    std::vector<float> flat;
    for (auto v : h4) { flat.push_back(v.x); flat.push_back(v.y); flat.push_back(v.z); flat.push_back(v.w); }
    stats("philox normal4", flat, 0, 1, 0.03);
    std::vector<float> logs;
    bool pos = true;
    for (float x : hl) { pos &= x > 0; logs.push_back(std::log(x)); }
    report("philox log_normal positive", pos);
    stats("philox log_normal(1, 0.5): log mean 1 sd 0.5", logs, 1, 0.5, 0.03);
    std::vector<float> nd;
    for (auto v : hnd) { nd.push_back(float(v.x)); nd.push_back(float(v.y)); }
    stats("philox normal2_double", nd, 0, 1, 0.03);
  }
  {
    curandDirectionVectors32_t* hv = nullptr;
    unsigned* hs = nullptr;
    curandStatus_t st1 = curandGetDirectionVectors32(&hv, CURAND_DIRECTION_VECTORS_32_JOEKUO6);
    curandStatus_t st2 = curandGetScrambleConstants32(&hs);
    report("curandGetDirectionVectors32 / curandGetScrambleConstants32", st1 == CURAND_STATUS_SUCCESS && st2 == CURAND_STATUS_SUCCESS && hv && hs);
    if (hv && hs) {
      const int D = 64;
      curandDirectionVectors32_t* dd;
      unsigned* ds;
      unsigned *out, *sout;
      float* fout;
      cudaMalloc(&dd, D * sizeof(curandDirectionVectors32_t));
      cudaMalloc(&ds, D * 4);
      cudaMalloc(&out, D * K * 4); cudaMalloc(&sout, D * K * 4); cudaMalloc(&fout, D * K * 4);
      cudaMemcpy(dd, hv, D * sizeof(curandDirectionVectors32_t), cudaMemcpyHostToDevice);
      cudaMemcpy(ds, hs, D * 4, cudaMemcpyHostToDevice);
      const unsigned offset = 1000;
      sobol<<<1, D>>>(dd, ds, offset, out, sout, fout);
      auto ho = fetch(out, D * K), hso = fetch(sout, D * K);
      auto hfo = fetch(fout, D * K);
      bool ok = true, oks = true, okf = true;
      for (int dim = 0; dim < D; ++dim)
        for (int k = 0; k < K; ++k) {
          unsigned i = offset + k, gray = i ^ (i >> 1), x = 0;
          for (int bit = 0; bit < 32; ++bit) if (gray >> bit & 1) x ^= hv[dim][bit];
          ok &= ho[dim * K + k] == x;
          oks &= hso[dim * K + k] == (x ^ hs[dim]);
          okf &= hfo[dim * K + k] == float(x) * 2.3283064e-10f + 2.3283064e-10f / 2.0f;
        }
      report("sobol32 == Gray-code XOR of the direction vectors", ok);
      report("scrambled sobol32 == sobol32 ^ scramble constant", oks);
      report("sobol32 curand_uniform", okf);
      std::printf("sobol32 first %08x %08x %08x\n", ho[0], ho[1], ho[K]);
    }
  }
  {
    // The host-side generator (curandCreateGeneratorHost) runs on the CPU. (The device generator,
    // curandCreateGenerator, drives the GPU through the driver API and is not simulated.)
    curandGenerator_t gen;
    curandStatus_t st = curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    bool ok = st == CURAND_STATUS_SUCCESS;
    if (ok) {
      std::vector<float> hf(4096);
      ok = curandSetPseudoRandomGeneratorSeed(gen, 5) == CURAND_STATUS_SUCCESS &&
           curandGenerateUniform(gen, hf.data(), hf.size()) == CURAND_STATUS_SUCCESS;
      stats("curandCreateGeneratorHost (philox) uniforms mean 0.5", hf, 0.5, std::sqrt(1.0 / 12), 0.03);
      curandDestroyGenerator(gen);
    }
    report("curandCreateGeneratorHost", ok);
  }
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) { std::printf("cuda error: %s\n", cudaGetErrorString(err)); ++failures; }
  std::printf("curand_dev: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
