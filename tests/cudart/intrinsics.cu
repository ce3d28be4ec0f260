// Integer, SIMD-video, bit-manipulation, warp-match/reduce and directed-rounding intrinsics, each
// lane's result against a CPU reference (exact).
#include <cfenv>
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
constexpr int NI = 24;
__global__ void ints(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t x = a[i], y = b[i], z = c[i];
  uint32_t* r = o + size_t(i) * NI;
  r[0] = __vabsdiffu4(x, y);
  r[1] = __vadd2(x, y);
  r[2] = __vavgu4(x, y);
  r[3] = __dp4a(int(x), int(y), int(z));
  r[4] = __dp2a_lo(x, y, z);
  r[5] = __byte_perm(x, y, z & 0x7777);
  r[6] = __funnelshift_l(x, y, z);
  r[7] = __funnelshift_rc(x, y, z);
  r[8] = __brev(x);
  r[9] = __clz(int(x)) + 64 * __ffs(int(y)) + 4096 * __popc(z);
  r[10] = __mulhi(int(x), int(y));
  r[11] = uint32_t(__umul64hi((uint64_t(x) << 32) | y, (uint64_t(z) << 32) | x) >> 7);
  r[12] = __sad(int(x), int(y), z) ^ __usad(x, y, z);
  r[13] = __hadd(int(x), int(y)) ^ (__rhadd(int(x), int(z)) << 1);
  r[14] = __vsub4(x, y) ^ __vmaxs2(x, z);
  r[15] = __vcmpgtu4(x, y) ^ __vsetlts2(x, z);
  r[16] = __vsads2(x, y) + __vabsss4(z);
  r[17] = __vnegss2(x) ^ __vhaddu2(y, z);
  r[18] = __fns(x, z & 31, int(y % 64) - 32);
  r[19] = uint32_t(__float2int_rn(__int_as_float((x & 0x807fffff) | 0x4b000000u) * 0.3f)) ^ uint32_t(__float2uint_ru(__uint2float_rz(y)));
  unsigned m = __activemask();
  r[20] = __match_any_sync(m, x & 7);
  int pred = 0;
  r[21] = __match_all_sync(m, (y & 1) | 2, &pred) ^ (pred << 31);
  r[22] = __reduce_add_sync(m, x & 0xffff) ^ __reduce_max_sync(m, y) ^ __reduce_min_sync(m, int(z));
  r[23] = __reduce_and_sync(m, x) ^ __reduce_or_sync(m, y) ^ __reduce_xor_sync(m, z);
}
constexpr int NF = 16;
__global__ void rounding(const float* a, const float* b, const double* da, const double* db, uint64_t* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  double p = da[i], q = db[i];
  uint64_t* r = o + size_t(i) * NF;
  r[0] = __float_as_uint(__fadd_rd(x, y)) | (uint64_t(__float_as_uint(__fadd_ru(x, y))) << 32);
  r[1] = __float_as_uint(__fmul_rz(x, y)) | (uint64_t(__float_as_uint(__fdiv_rd(x, y))) << 32);
  r[2] = __float_as_uint(__fsqrt_ru(fabsf(x))) | (uint64_t(__float_as_uint(__frcp_rz(y))) << 32);
  r[3] = __float_as_uint(__fmaf_ru(x, y, 1.5f)) | (uint64_t(__float_as_uint(__fmaf_rd(x, y, -1.5f))) << 32);
  r[4] = __double_as_longlong(__dadd_rz(p, q));
  r[5] = __double_as_longlong(__dmul_ru(p, q));
  r[6] = __double_as_longlong(__ddiv_rd(p, q));
  r[7] = __double_as_longlong(__dsqrt_ru(fabs(p)));
  r[8] = __double_as_longlong(__fma_rz(p, q, 0.25));
  r[9] = __float_as_uint(__double2float_rz(p)) | (uint64_t(__float_as_uint(__double2float_ru(p))) << 32);
  r[10] = uint64_t(__double2ll_rz(p * 1e6)) ^ uint64_t(__double2ull_ru(fabs(q) * 1e6));
  r[11] = __double_as_longlong(__ll2double_rd((long long)(p * 1e17))) ^ __double_as_longlong(__ull2double_ru((unsigned long long)(fabs(q) * 1e17)));
  r[12] = __float_as_uint(__ll2float_rz((long long)(p * 1e15))) | (uint64_t(__float_as_uint(__int2float_rd(int(x * 1e5f)))) << 32);
  r[13] = __float_as_uint(__saturatef(x)) | (uint64_t(__float_as_uint(fminf(x, y))) << 32);
  r[14] = __float_as_uint(copysignf(x, y)) | (uint64_t(__float_as_uint(fmaxf(x, __int_as_float(0x7fc00000)))) << 32);
  r[15] = uint64_t(uint32_t(__float2int_rd(x * 1000))) | (uint64_t(uint32_t(__float2ll_ru(y * 1000))) << 32);
}

static uint32_t lcg(uint32_t& s) { s = s * 1664525u + 1013904223u; return s; }
static uint32_t bytes_op(uint32_t x, uint32_t y, int w, int (*f)(int, int, bool), bool sgn) {
  uint32_t r = 0;
  int bits = 32 / w, mask = (1 << bits) - 1;
  for (int k = 0; k < w; ++k) {
    int a = (x >> (k * bits)) & mask, b = (y >> (k * bits)) & mask;
    if (sgn) { if (a >> (bits - 1)) a -= 1 << bits; if (b >> (bits - 1)) b -= 1 << bits; }
    r |= uint32_t(f(a, b, sgn) & mask) << (k * bits);
  }
  return r;
}
template <typename T> static T rnd(int mode, T (*fn)(T, T), T a, T b) {
  std::fesetround(mode);
  volatile T r = fn(a, b);
  std::fesetround(FE_TONEAREST);
  return r;
}
static float f_add(float a, float b) { return a + b; }
static float f_mul(float a, float b) { return a * b; }
static float f_div(float a, float b) { return a / b; }
static uint32_t fb(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static uint64_t db(double f) { uint64_t u; std::memcpy(&u, &f, 8); return u; }

int main() {
  const int n = 4096;
  uint32_t s = 5;
  std::vector<uint32_t> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) { a[i] = lcg(s); b[i] = lcg(s); c[i] = lcg(s); }
  for (int i = 0; i < n; i += 7) b[i] = a[i] ^ 0x10;
  uint32_t *da, *dbb, *dc, *dout;
  cudaMalloc(&da, n * 4); cudaMalloc(&dbb, n * 4); cudaMalloc(&dc, n * 4); cudaMalloc(&dout, size_t(n) * NI * 4);
  cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dbb, b.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), n * 4, cudaMemcpyHostToDevice);
  ints<<<n / 128, 128>>>(da, dbb, dc, dout, n);
  std::vector<uint32_t> o(size_t(n) * NI);
  cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost);
  bool ok[NI];
  for (auto& v : ok) v = true;
  auto absd = [](int p, int q, bool) { return std::abs(p - q); };
  auto addf = [](int p, int q, bool) { return p + q; };
  auto avgu = [](int p, int q, bool) { return (p + q + 1) >> 1; };
  auto subf = [](int p, int q, bool) { return p - q; };
  auto maxf = [](int p, int q, bool) { return std::max(p, q); };
  auto gtf = [](int p, int q, bool) { return p > q ? 0xff : 0; };
  auto ltf = [](int p, int q, bool) { return p < q ? 1 : 0; };
  auto hadd = [](int p, int q, bool) { return (p + q) >> 1; };
  for (int i = 0; i < n; ++i) {
    uint32_t x = a[i], y = b[i], z = c[i];
    const uint32_t* r = &o[size_t(i) * NI];
    ok[0] &= r[0] == bytes_op(x, y, 4, absd, false);
    ok[1] &= r[1] == bytes_op(x, y, 2, addf, false);
    ok[2] &= r[2] == bytes_op(x, y, 4, avgu, false);
    int dp = int(z);
    for (int k = 0; k < 4; ++k) dp += int(int8_t(x >> (8 * k))) * int(int8_t(y >> (8 * k)));
    ok[3] &= r[3] == uint32_t(dp);
    uint32_t dp2 = z;
    for (int k = 0; k < 2; ++k) dp2 += uint32_t(uint16_t(x >> (16 * k))) * uint32_t(uint8_t(y >> (8 * k)));
    ok[4] &= r[4] == dp2;
    uint64_t bytes = (uint64_t(y) << 32) | x;
    uint32_t sel = z & 0x7777, bp = 0;
    for (int k = 0; k < 4; ++k) bp |= uint32_t((bytes >> (8 * ((sel >> (4 * k)) & 7))) & 0xff) << (8 * k);
    ok[5] &= r[5] == bp;
    uint64_t cat = (uint64_t(y) << 32) | x;
    ok[6] &= r[6] == uint32_t((cat << (z & 31)) >> 32);
    uint32_t sh = std::min<uint32_t>(z, 32);
    ok[7] &= r[7] == uint32_t(sh == 32 ? y : (cat >> sh));
    uint32_t rev = 0;
    for (int k = 0; k < 32; ++k) rev |= ((x >> k) & 1u) << (31 - k);
    ok[8] &= r[8] == rev;
    ok[9] &= r[9] == uint32_t((x ? __builtin_clz(x) : 32) + 64 * __builtin_ffs(int(y)) + 4096 * __builtin_popcount(z));
    ok[10] &= r[10] == uint32_t((int64_t(int32_t(x)) * int32_t(y)) >> 32);
    unsigned __int128 m = (unsigned __int128)((uint64_t(x) << 32) | y) * ((uint64_t(z) << 32) | x);
    ok[11] &= r[11] == uint32_t(uint64_t(m >> 64) >> 7);
    uint32_t sad = uint32_t(std::abs(int64_t(int32_t(x)) - int32_t(y))) + z;
    uint32_t usad = (x > y ? x - y : y - x) + z;
    ok[12] &= r[12] == (sad ^ usad);
    int32_t h1 = int32_t((int64_t(int32_t(x)) + int32_t(y)) >> 1), h2 = int32_t((int64_t(int32_t(x)) + int32_t(z) + 1) >> 1);
    ok[13] &= r[13] == (uint32_t(h1) ^ (uint32_t(h2) << 1));
    ok[14] &= r[14] == (bytes_op(x, y, 4, subf, false) ^ bytes_op(x, z, 2, maxf, true));
    ok[15] &= r[15] == (bytes_op(x, y, 4, gtf, false) ^ bytes_op(x, z, 2, ltf, true));
    int sads = 0;
    for (int k = 0; k < 2; ++k) sads += std::abs(int(int16_t(x >> (16 * k))) - int(int16_t(y >> (16 * k))));
    uint32_t absss = 0;
    for (int k = 0; k < 4; ++k) { int v = int8_t(z >> (8 * k)); v = v == -128 ? 127 : std::abs(v); absss |= uint32_t(v & 0xff) << (8 * k); }
    ok[16] &= r[16] == uint32_t(sads) + absss;
    uint32_t negss = 0;
    for (int k = 0; k < 2; ++k) { int v = int16_t(x >> (16 * k)); v = v == -32768 ? 32767 : -v; negss |= uint32_t(v & 0xffff) << (16 * k); }
    ok[17] &= r[17] == (negss ^ bytes_op(y, z, 2, hadd, false));
    // __fns(mask, base, offset): position of the offset-th set bit from base (0xffffffff if none).
    {
      uint32_t base = z & 31;
      int off = int(y % 64) - 32;
      uint32_t res = 0xffffffffu;
      if (off == 0) off = 1;  // offset 0 behaves as 1 only when bit base is set; handled below
      int want = int(y % 64) - 32;
      if (want == 0) res = (x >> base & 1) ? base : 0xffffffffu;
      else if (want > 0) { int cnt = 0; for (int p = int(base); p < 32; ++p) if (x >> p & 1 && ++cnt == want) { res = p; break; } }
      else { int cnt = 0; for (int p = int(base); p >= 0; --p) if (x >> p & 1 && ++cnt == -want) { res = p; break; } }
      ok[18] &= r[18] == res;
    }
    {
      float fx;
      uint32_t bits = (x & 0x807fffff) | 0x4b000000u;
      std::memcpy(&fx, &bits, 4);
      float prod = fx * 0.3f;
      long long rn = std::llrint(double(prod));
      int32_t rni = rn > INT32_MAX ? INT32_MAX : rn < INT32_MIN ? INT32_MIN : int32_t(rn);
      std::fesetround(FE_TOWARDZERO);
      volatile float yz = float(y);
      std::fesetround(FE_TONEAREST);
      uint32_t ru = uint32_t(std::ceil(double(yz)) > 4294967295.0 ? 0xffffffffu : uint32_t(std::ceil(double(yz))));
      ok[19] &= r[19] == (uint32_t(rni) ^ ru);
    }
  }
  // Warp-wide: one warp is 32 consecutive i.
  for (int w = 0; w < n; w += 32) {
    uint32_t add = 0, mx = 0, an = ~0u, orr = 0, xo = 0;
    int mn = INT32_MAX;
    bool all_eq = true;
    for (int l = 0; l < 32; ++l) {
      add += a[w + l] & 0xffff; mx = std::max(mx, b[w + l]); mn = std::min(mn, int(c[w + l]));
      an &= a[w + l]; orr |= b[w + l]; xo ^= c[w + l];
      all_eq &= ((b[w + l] & 1) | 2) == ((b[w] & 1) | 2);
    }
    for (int l = 0; l < 32; ++l) {
      uint32_t mm = 0;
      for (int k = 0; k < 32; ++k) if ((a[w + k] & 7) == (a[w + l] & 7)) mm |= 1u << k;
      const uint32_t* r = &o[size_t(w + l) * NI];
      ok[20] &= r[20] == mm;
      ok[21] &= r[21] == (all_eq ? 0xffffffffu ^ 0x80000000u : 0u);
      ok[22] &= r[22] == (add ^ mx ^ uint32_t(mn));
      ok[23] &= r[23] == (an ^ orr ^ xo);
    }
  }
  const char* names[NI] = {"__vabsdiffu4", "__vadd2", "__vavgu4", "__dp4a", "__dp2a_lo", "__byte_perm", "__funnelshift_l",
                           "__funnelshift_rc", "__brev", "__clz/__ffs/__popc", "__mulhi", "__umul64hi", "__sad/__usad",
                           "__hadd/__rhadd", "__vsub4/__vmaxs2", "__vcmpgtu4/__vsetlts2", "__vsads2/__vabsss4",
                           "__vnegss2/__vhaddu2", "__fns", "__float2int_rn/__float2uint_ru/__uint2float_rz",
                           "__match_any_sync", "__match_all_sync", "__reduce_add/max/min_sync", "__reduce_and/or/xor_sync"};
  for (int k = 0; k < NI; ++k) report(names[k], ok[k]);

  std::vector<float> fa(n), fbv(n);
  std::vector<double> pa(n), pb(n);
  for (int i = 0; i < n; ++i) {
    fa[i] = float(int32_t(lcg(s))) / float(1 << (lcg(s) % 40));
    fbv[i] = float(int32_t(lcg(s))) / float(1 << (lcg(s) % 40));
    pa[i] = double(int32_t(lcg(s))) * double(lcg(s)) / std::ldexp(1.0, int(lcg(s) % 80));
    pb[i] = double(int32_t(lcg(s))) * double(lcg(s)) / std::ldexp(1.0, int(lcg(s) % 80));
  }
  fa[0] = 1.5f; fbv[0] = -0.0f; fa[1] = NAN; fa[2] = 2.0f; fbv[2] = NAN; fa[3] = 0.75f; fa[4] = -3.0f;
  float *dfa, *dfb;
  double *dpa, *dpb;
  uint64_t* dro;
  cudaMalloc(&dfa, n * 4); cudaMalloc(&dfb, n * 4); cudaMalloc(&dpa, n * 8); cudaMalloc(&dpb, n * 8);
  cudaMalloc(&dro, size_t(n) * NF * 8);
  cudaMemcpy(dfa, fa.data(), n * 4, cudaMemcpyHostToDevice); cudaMemcpy(dfb, fbv.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dpa, pa.data(), n * 8, cudaMemcpyHostToDevice); cudaMemcpy(dpb, pb.data(), n * 8, cudaMemcpyHostToDevice);
  rounding<<<n / 128, 128>>>(dfa, dfb, dpa, dpb, dro, n);
  std::vector<uint64_t> ro(size_t(n) * NF);
  cudaMemcpy(ro.data(), dro, ro.size() * 8, cudaMemcpyDeviceToHost);
  bool okr[NF];
  for (auto& v : okr) v = true;
  auto same = [](uint32_t g, float r) { return g == fb(r) || (std::isnan(r) && ((g & 0x7f800000) == 0x7f800000) && (g & 0x7fffff)); };
  auto samed = [](uint64_t g, double r) { return g == db(r) || (std::isnan(r) && ((g >> 52 & 0x7ff) == 0x7ff) && (g & 0xfffffffffffffull)); };
  for (int i = 0; i < n; ++i) {
    float x = fa[i], y = fbv[i];
    double p = pa[i], q = pb[i];
    const uint64_t* r = &ro[size_t(i) * NF];
    auto lo = [](uint64_t v) { return uint32_t(v); };
    auto hi = [](uint64_t v) { return uint32_t(v >> 32); };
    okr[0] &= same(lo(r[0]), rnd(FE_DOWNWARD, f_add, x, y)) && same(hi(r[0]), rnd(FE_UPWARD, f_add, x, y));
    okr[1] &= same(lo(r[1]), rnd(FE_TOWARDZERO, f_mul, x, y)) && same(hi(r[1]), rnd(FE_DOWNWARD, f_div, x, y));
    std::fesetround(FE_UPWARD); volatile float sq = std::sqrt(std::fabs(x)); std::fesetround(FE_TOWARDZERO);
    volatile float rc = 1.0f / y; std::fesetround(FE_UPWARD); volatile float fu = std::fma(x, y, 1.5f);
    std::fesetround(FE_DOWNWARD); volatile float fd = std::fma(x, y, -1.5f); std::fesetround(FE_TOWARDZERO);
    volatile double dz = p + q; volatile double fz = std::fma(p, q, 0.25); volatile float d2fz = float(p);
    std::fesetround(FE_UPWARD); volatile double dm = p * q; volatile double dsq = std::sqrt(std::fabs(p));
    volatile float d2fu = float(p); std::fesetround(FE_DOWNWARD); volatile double dd = p / q;
    std::fesetround(FE_TONEAREST);
    okr[2] &= same(lo(r[2]), sq) && same(hi(r[2]), rc);
    okr[3] &= same(lo(r[3]), fu) && same(hi(r[3]), fd);
    okr[4] &= samed(r[4], dz);
    okr[5] &= samed(r[5], dm);
    okr[6] &= samed(r[6], dd);
    okr[7] &= samed(r[7], dsq);
    okr[8] &= samed(r[8], fz);
    okr[9] &= same(lo(r[9]), d2fz) && same(hi(r[9]), d2fu);
    auto sat_ll = [](long double v) -> long long { if (std::isnan((double)v)) return LLONG_MIN; if (v >= 9.2233720368547758e18L) return LLONG_MAX; if (v <= -9.2233720368547758e18L) return LLONG_MIN; return (long long)v; };
    auto sat_ull = [](long double v) -> unsigned long long { if (std::isnan((double)v) || v <= 0) return 0; if (v >= 1.8446744073709552e19L) return ULLONG_MAX; return (unsigned long long)v; };
    long long zz = sat_ll(std::trunc((long double)(p * 1e6)));
    unsigned long long uu = sat_ull(std::ceil((long double)(std::fabs(q) * 1e6)));
    okr[10] &= r[10] == (uint64_t(zz) ^ uint64_t(uu));
    long long li = (long long)(p * 1e17);
    unsigned long long ui = (unsigned long long)(std::fabs(q) * 1e17);
    // The integers are made in round-to-nearest (as on the device); only the conversions are directed.
    const long long l15 = (long long)(p * 1e15);
    const int i5 = std::isnan(x) || std::fabs(x * 1e5f) > 2e9f ? 0 : int(x * 1e5f);
    std::fesetround(FE_DOWNWARD); volatile double lid = double(li); std::fesetround(FE_UPWARD); volatile double uid = double(ui);
    std::fesetround(FE_TOWARDZERO); volatile float l2f = float(l15); std::fesetround(FE_DOWNWARD);
    volatile float i2f = float(i5); std::fesetround(FE_TONEAREST);
    (void)lid; (void)uid;
    okr[11] &= r[11] == (db(lid) ^ db(uid)) || std::fabs(p * 1e17) > 9e18 || std::fabs(q * 1e17) > 1.8e19;
    bool ok12 = (same(lo(r[12]), l2f) || std::fabs(p * 1e15) > 9e18) && (same(hi(r[12]), i2f) || std::fabs(x * 1e5f) > 2e9f || std::isnan(x));
    okr[12] &= ok12;
    float satr = std::isnan(x) ? 0.0f : std::fmin(std::fmax(x, 0.0f), 1.0f);
    okr[13] &= same(lo(r[13]), satr) && same(hi(r[13]), std::fmin(x, y));
    okr[14] &= same(lo(r[14]), std::copysign(x, y)) && same(hi(r[14]), std::fmax(x, NAN));
    auto sat_i = [](double v) -> int32_t { if (std::isnan(v)) return 0; if (v >= 2147483647.0) return INT32_MAX; if (v <= -2147483648.0) return INT32_MIN; return int32_t(v); };
    okr[15] &= uint32_t(r[15]) == uint32_t(sat_i(std::floor(double(x * 1000)))) &&
               uint32_t(r[15] >> 32) == uint32_t(sat_ll(std::ceil((long double)(y * 1000))));
  }
  const char* rn[NF] = {"__fadd_rd/_ru", "__fmul_rz/__fdiv_rd", "__fsqrt_ru/__frcp_rz", "__fmaf_ru/_rd", "__dadd_rz", "__dmul_ru",
                        "__ddiv_rd", "__dsqrt_ru", "__fma_rz", "__double2float_rz/_ru", "__double2ll_rz/__double2ull_ru",
                        "__ll2double_rd/__ull2double_ru", "__ll2float_rz/__int2float_rd", "__saturatef/fminf",
                        "copysignf/fmaxf(NaN)", "__float2int_rd/__float2ll_ru"};
  for (int k = 0; k < NF; ++k) report(rn[k], okr[k]);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("cuda error: %s\n", cudaGetErrorString(e)); ++failures; }
  std::printf("intrinsics: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
