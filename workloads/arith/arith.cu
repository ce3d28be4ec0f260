// arith: integer and floating-point arithmetic semantics.
//  - integer: mul.hi / mul.wide (32 and 64 bit), signed/unsigned div and rem, min/max, abs,
//    popc/clz/brev/ffs, __byte_perm, funnel shifts (wrap and clamp), shifts, sad, halving adds, dp4a
//  - f32 exact: IEEE add/mul/div/sqrt, the _rn/_rz/_ru/_rd rounding intrinsics (__fadd_*, __fmul_*,
//    __fmaf_*, __fdiv_*, __fsqrt_*, __frcp_*), min/max, conversions with saturation
//    (__float2int_*, __float2uint_rz, __float2ll_rz, __saturatef, __float2half_rn, int->float)
//  - f64: add/mul/div/sqrt/fma and double->float/int conversions (exact), exp/sin/log (tolerance)
//  - half / bfloat16 (cuda_fp16.h / cuda_bf16.h): scalar and half2 add/sub/mul/fma/min/max, _sat,
//    conversions with rounding modes (exact)
//  - approximate intrinsics __expf/__sinf/__cosf/__logf/rsqrtf/__fdividef and the accurate
//    expf/sinf/logf/powf (relative tolerance 1e-5 + absolute 1e-6)
// The CPU reference is written independently with plain C++ (exact rounding is done in double).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cfloat>
#include <climits>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CHECK(call)                                                                 \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            printf("arith: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

static uint32_t g_lcg = 0xC0FFEEu;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_float(float lo, float hi) {
    return lo + (hi - lo) * (float)(lcg_next() >> 8) * (1.0f / 16777216.0f);
}

const int N = 1024;        // elements (one thread each)
const int BLOCK = 128;
const int NI = 44;         // integer results per element
const int NF = 38;         // exact f32 results per element
const int NA = 10;         // approximate f32 results per element
const int ND = 12;         // f64 results per element (first 9 exact)
const int ND_EXACT = 9;
const int NH = 24;         // half/bf16 results per element (16-bit patterns)

// ------------------------------------------------------------------------------------------
// device kernels
// ------------------------------------------------------------------------------------------
__global__ void int_ops(const int* __restrict__ A, const int* __restrict__ B,
                        const unsigned* __restrict__ S, unsigned* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = A[i], y = B[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y, s = S[i];
    long long x64 = (long long)(((unsigned long long)ux << 32) | uy);
    long long y64 = (long long)(((unsigned long long)uy << 32) | (ux ^ 0x5a5a5a5au));
    unsigned* o = out + (size_t)i * NI;
    o[0] = (unsigned)__mulhi(x, y);
    o[1] = __umulhi(ux, uy);
    long long mh = __mul64hi(x64, y64);
    o[2] = (unsigned)mh; o[3] = (unsigned)(mh >> 32);
    unsigned long long umh = __umul64hi((unsigned long long)x64, (unsigned long long)y64);
    o[4] = (unsigned)umh; o[5] = (unsigned)(umh >> 32);
    long long w = (long long)x * y;
    o[6] = (unsigned)w; o[7] = (unsigned)(w >> 32);
    unsigned long long uw = (unsigned long long)ux * uy;
    o[8] = (unsigned)uw; o[9] = (unsigned)(uw >> 32);
    o[10] = (unsigned)(x / y);
    o[11] = (unsigned)(x % y);
    o[12] = ux / uy;
    o[13] = ux % uy;
    long long q64 = x64 / (long long)y, r64 = x64 % (long long)y;
    o[14] = (unsigned)q64; o[15] = (unsigned)(q64 >> 32);
    o[16] = (unsigned)r64; o[17] = (unsigned)(r64 >> 32);
    o[18] = (unsigned)min(x, y);
    o[19] = (unsigned)max(x, y);
    o[20] = min(ux, uy);
    o[21] = max(ux, uy);
    o[22] = (unsigned)__popc(ux);
    o[23] = (unsigned)__popcll((unsigned long long)x64);
    o[24] = (unsigned)__clz(x);
    o[25] = (unsigned)__clzll(x64);
    o[26] = __brev(ux);
    unsigned long long br = __brevll((unsigned long long)x64);
    o[27] = (unsigned)br; o[28] = (unsigned)(br >> 32);
    o[29] = (unsigned)__ffs(x);
    o[30] = __byte_perm(ux, uy, (ux ^ uy) & 0x7777u);
    o[31] = __funnelshift_l(ux, uy, s);
    o[32] = __funnelshift_r(ux, uy, s);
    o[33] = __funnelshift_lc(ux, uy, s);
    o[34] = __funnelshift_rc(ux, uy, s);
    o[35] = (unsigned)(x >> (s & 31));
    o[36] = ux >> (s & 31);
    o[37] = ux << (s & 31);
    o[38] = __sad(x, y, s);
    o[39] = (unsigned)__hadd(x, y);
    o[40] = (unsigned)__rhadd(x, y);
    o[41] = __uhadd(ux, uy);
    o[42] = (unsigned)abs(x);
    o[43] = (unsigned)__dp4a(x, y, (int)s);
}

__global__ void f32_exact_ops(const float* __restrict__ A, const float* __restrict__ B,
                              const float* __restrict__ C, unsigned* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = A[i], b = B[i], c = C[i];
    float aa = fabsf(a);
    float big = __fmul_rn(a, 3.0e7f);
    unsigned* o = out + (size_t)i * NF;
    o[0] = __float_as_uint(__fadd_rn(a, b));
    o[1] = __float_as_uint(__fmul_rn(a, b));
    o[2] = __float_as_uint(__fadd_rz(a, b));
    o[3] = __float_as_uint(__fadd_ru(a, b));
    o[4] = __float_as_uint(__fadd_rd(a, b));
    o[5] = __float_as_uint(__fmul_rz(a, b));
    o[6] = __float_as_uint(__fmul_ru(a, b));
    o[7] = __float_as_uint(__fmul_rd(a, b));
    o[8] = __float_as_uint(__fmaf_rn(a, b, c));
    o[9] = __float_as_uint(__fmaf_rz(a, b, c));
    o[10] = __float_as_uint(__fmaf_ru(a, b, c));
    o[11] = __float_as_uint(__fmaf_rd(a, b, c));
    o[12] = __float_as_uint(a / b);
    o[13] = __float_as_uint(__fdiv_rz(a, b));
    o[14] = __float_as_uint(__fdiv_ru(a, b));
    o[15] = __float_as_uint(__fdiv_rd(a, b));
    o[16] = __float_as_uint(sqrtf(aa));
    o[17] = __float_as_uint(__fsqrt_rz(aa));
    o[18] = __float_as_uint(__fsqrt_ru(aa));
    o[19] = __float_as_uint(__fsqrt_rd(aa));
    o[20] = __float_as_uint(__frcp_rn(b));
    o[21] = __float_as_uint(__frcp_rz(b));
    o[22] = __float_as_uint(fminf(a, b));
    o[23] = __float_as_uint(fmaxf(a, b));
    o[24] = __float_as_uint(copysignf(a, b));
    o[25] = __float_as_uint(__saturatef(a));
    o[26] = (unsigned)__float2int_rz(big);
    o[27] = (unsigned)__float2int_rn(big);
    o[28] = (unsigned)__float2int_rd(a);
    o[29] = (unsigned)__float2int_ru(a);
    o[30] = __float2uint_rz(big);
    o[31] = (unsigned)__float2ll_rz(big * 1.0e3f);
    o[32] = (unsigned)__half_as_ushort(__float2half_rn(a)) | ((unsigned)__half_as_ushort(__float2half_rn(big)) << 16);
    o[33] = __float_as_uint(__int2float_rn((int)__float_as_uint(b)));
    o[34] = __float_as_uint(__int2float_rz((int)__float_as_uint(b)));
    o[35] = __float_as_uint(__uint2float_rd(__float_as_uint(a)));
    o[36] = __float_as_uint(rintf(a * 4.0f));
    o[37] = __float_as_uint(roundf(a * 4.0f) + floorf(b) - ceilf(c) + truncf(a));
}

__global__ void f32_approx_ops(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = A[i], b = B[i];
    float* o = out + (size_t)i * NA;
    o[0] = __expf(a / 32.0f);
    o[1] = __sinf(a / 32.0f);
    o[2] = __cosf(a / 32.0f);
    o[3] = __logf(fabsf(a) + 1.0f);
    o[4] = rsqrtf(fabsf(a) + 1.0f);
    o[5] = __fdividef(a, b);
    o[6] = expf(a / 16.0f);
    o[7] = sinf(a);
    o[8] = logf(fabsf(b) + 0.5f);
    o[9] = powf(fabsf(a) + 1.0f, 0.75f);
}

__global__ void f64_ops(const double* __restrict__ A, const double* __restrict__ B,
                        const double* __restrict__ C, double* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = A[i], b = B[i], c = C[i];
    double* o = out + (size_t)i * ND;
    o[0] = __dadd_rn(a, b);
    o[1] = __dmul_rn(a, b);
    o[2] = a / b;
    o[3] = sqrt(fabs(a));
    o[4] = fma(a, b, c);
    o[5] = (double)__double2float_rn(a * 1.0e-3);
    o[6] = (double)__double2float_rz(a * 1.0e-3) + (double)__double2float_ru(b) ;
    o[7] = (double)__double2int_rz(a * 1.0e7);
    o[8] = (double)__double2ll_rn(b * 1.0e12);
    o[9] = exp(a / 64.0);
    o[10] = sin(b);
    o[11] = log(fabs(c) + 1.0);
}

__device__ __forceinline__ unsigned short bf16_bits(__nv_bfloat16 h) { return __nv_bfloat16_raw(h).x; }

__global__ void half_ops(const unsigned short* __restrict__ HA, const unsigned short* __restrict__ HB,
                         const unsigned short* __restrict__ HC, const float* __restrict__ F,
                         unsigned short* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = __ushort_as_half(HA[i]), b = __ushort_as_half(HB[i]), c = __ushort_as_half(HC[i]);
    // bfloat16 operands reuse the same bit patterns shifted into bf16 range by conversion
    __nv_bfloat16 ba = __float2bfloat16_rn(__half2float(a)), bb = __float2bfloat16_rn(__half2float(b));
    __nv_bfloat16 bc = __float2bfloat16_rn(__half2float(c));
    float f = F[i];
    unsigned short* o = out + (size_t)i * NH;
    o[0] = __half_as_ushort(__hadd(a, b));
    o[1] = __half_as_ushort(__hsub(a, b));
    o[2] = __half_as_ushort(__hmul(a, b));
    o[3] = __half_as_ushort(__hfma(a, b, c));
    o[4] = __half_as_ushort(__hadd_sat(a, b));
    o[5] = __half_as_ushort(__hmax(a, b));
    o[6] = __half_as_ushort(__hmin(a, c));
    o[7] = __half_as_ushort(__hneg(__habs(a)));
    __half2 p = __halves2half2(a, b), q = __halves2half2(c, a);
    __half2 s2 = __hadd2(p, q), m2 = __hmul2(p, q), f2 = __hfma2(p, q, p);
    o[8] = __half_as_ushort(__low2half(s2));  o[9] = __half_as_ushort(__high2half(s2));
    o[10] = __half_as_ushort(__low2half(m2)); o[11] = __half_as_ushort(__high2half(m2));
    o[12] = __half_as_ushort(__low2half(f2)); o[13] = __half_as_ushort(__high2half(f2));
    o[14] = __half_as_ushort(__float2half_rz(f));
    o[15] = __half_as_ushort(__float2half_ru(f));
    o[16] = __half_as_ushort(__float2half_rd(f));
    o[17] = (unsigned short)__half2short_rz(__hmul(a, __float2half(100.0f)));
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800 || CUDART_VERSION >= 12000
    o[18] = bf16_bits(__hadd(ba, bb));
    o[19] = bf16_bits(__hmul(ba, bb));
    o[20] = bf16_bits(__hfma(ba, bb, bc));
    __nv_bfloat162 bp = __halves2bfloat162(ba, bb);
    __nv_bfloat162 bs = __hmul2(bp, __halves2bfloat162(bc, bc));
    o[23] = bf16_bits(__low2bfloat16(bs)) ^ bf16_bits(__high2bfloat16(bs));
#else
    // older toolkits have no bf16 arithmetic below sm_80: emulate in f32 (exact for these inputs
    // except the final rounding, like the toolkit's own fallback)
    float fa = __bfloat162float(ba), fb = __bfloat162float(bb), fc = __bfloat162float(bc);
    o[18] = bf16_bits(__float2bfloat16_rn(fa + fb));
    o[19] = bf16_bits(__float2bfloat16_rn(fa * fb));
    o[20] = bf16_bits(__float2bfloat16_rn(__fmaf_rn(fa, fb, fc)));
    o[23] = bf16_bits(__float2bfloat16_rn(fa * fc)) ^ bf16_bits(__float2bfloat16_rn(fb * fc));
#endif
    o[21] = bf16_bits(__float2bfloat16_rn(f));
    o[22] = bf16_bits(__float2bfloat16_rz(f));
}

// ------------------------------------------------------------------------------------------
// CPU reference helpers (independent of the device code)
// ------------------------------------------------------------------------------------------
enum Mode { RN = 0, RZ = 1, RU = 2, RD = 3 };

// Round a double (assumed to be the exact value) to an IEEE binary format with `mbits` stored
// mantissa bits and exponent range [emin, emax]; returns the rounded value as a double.
static double round_fmt(double x, int mbits, int emin, int emax, Mode mode) {
    if (std::isnan(x) || std::isinf(x) || x == 0.0) return x;
    bool neg = x < 0;
    double ax = std::fabs(x);
    int e;
    std::frexp(ax, &e);
    int E = e - 1;
    if (E < emin) E = emin;
    double quantum = std::ldexp(1.0, E - mbits);
    double m = ax / quantum;  // exact (power-of-two scaling)
    double mi;
    switch (mode) {
        case RN: mi = std::nearbyint(m); break;  // host default rounding: ties to even
        case RZ: mi = std::trunc(m); break;
        case RU: mi = neg ? std::trunc(m) : std::ceil(m); break;
        default: mi = neg ? std::ceil(m) : std::trunc(m); break;
    }
    double r = mi * quantum;
    double maxv = std::ldexp(2.0 - std::ldexp(1.0, -mbits), emax);
    if (r > maxv) {
        bool to_inf = mode == RN || (mode == RU && !neg) || (mode == RD && neg);
        r = to_inf ? INFINITY : maxv;
    }
    return neg ? -r : r;
}
static float rf(double x, Mode m) { return (float)round_fmt(x, 23, -126, 127, m); }
static unsigned fbits(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static float bitsf(unsigned u) { float f; memcpy(&f, &u, 4); return f; }

// exact value s+e (TwoSum pair, |e| tiny) rounded to float
static float rf2(double s, double e, Mode mode) {
    if (e == 0.0 || std::isnan(e)) return rf(s, mode);
    float r = rf(s, mode);
    if ((double)r != s) {
        if (mode != RN) return r;
        float lo = rf(s, RD), hi = rf(s, RU);
        if (((double)lo + (double)hi) * 0.5 == s) return e > 0 ? hi : lo;  // tie broken by e
        return r;
    }
    switch (mode) {
        case RN: return r;
        case RU: return e > 0 ? std::nextafterf(r, INFINITY) : r;
        case RD: return e < 0 ? std::nextafterf(r, -INFINITY) : r;
        default: return ((s > 0 && e < 0) || (s < 0 && e > 0)) ? std::nextafterf(r, 0.0f) : r;
    }
}
static float ref_fma(float a, float b, float c, Mode mode) {
    double p = (double)a * (double)b;  // exact
    double s = p + (double)c;
    double bb = s - p;
    double e = (p - (s - bb)) + ((double)c - bb);
    if (std::isinf(s)) e = 0.0;
    return rf2(s, e, mode);
}

static float ref_add(float a, float b, Mode mode) {
    double s = (double)a + (double)b;
    double bb = s - a;
    double e = ((double)a - (s - bb)) + ((double)b - bb);
    if (std::isinf(s)) e = 0.0;
    return rf2(s, e, mode);
}

// half / bfloat16 encoding of an exact double value
static uint16_t to_half_bits(double x, Mode mode) {
    if (std::isnan(x)) return 0x7e00;
    double r = round_fmt(x, 10, -14, 15, mode);
    uint16_t sign = std::signbit(r) ? 0x8000 : 0;
    double ar = std::fabs(r);
    if (std::isinf(ar)) return sign | 0x7c00;
    if (ar == 0.0) return sign;
    int e;
    std::frexp(ar, &e);
    int E = e - 1;
    if (E < -14) return sign | (uint16_t)(ar / std::ldexp(1.0, -24));
    return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(ar / std::ldexp(1.0, E - 10) - 1024.0);
}
static double half_val(uint16_t h) {
    int exp = (h >> 10) & 31, man = h & 1023;
    double v;
    if (exp == 31) v = man ? NAN : INFINITY;
    else if (exp == 0) v = std::ldexp((double)man, -24);
    else v = std::ldexp(1024.0 + man, exp - 25);
    return (h & 0x8000) ? -v : v;
}
static uint16_t to_bf16_bits(double x, Mode mode) {
    if (std::isnan(x)) return 0x7fc0;
    float r = (float)round_fmt(x, 7, -126, 127, mode);
    return (uint16_t)(fbits(r) >> 16);
}
static double bf16_val(uint16_t h) { return (double)bitsf((unsigned)h << 16); }

static bool is_half_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static bool is_bf16_nan(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

static int ref_f2i(float f, Mode m) {
    if (std::isnan(f)) return 0;
    double t = m == RZ ? std::trunc((double)f) : m == RN ? std::nearbyint((double)f)
             : m == RU ? std::ceil((double)f) : std::floor((double)f);
    if (t >= 2147483647.0) return INT_MAX;
    if (t <= -2147483648.0) return INT_MIN;
    return (int)t;
}
static unsigned ref_f2u_rz(float f) {
    if (std::isnan(f)) return 0;
    double t = std::trunc((double)f);
    if (t <= 0) return 0;
    if (t >= 4294967295.0) return UINT_MAX;
    return (unsigned)t;
}
static long long ref_f2ll_rz(float f) {
    if (std::isnan(f)) return LLONG_MIN;  // PTX: NaN -> 0x8000000000000000 for 64-bit
    double t = std::trunc((double)f);
    if (t >= 9223372036854775807.0) return LLONG_MAX;
    if (t <= -9223372036854775808.0) return LLONG_MIN;
    return (long long)t;
}

static unsigned bitrev32(unsigned v) { unsigned r = 0; for (int k = 0; k < 32; ++k) if (v >> k & 1) r |= 1u << (31 - k); return r; }
static int popc64(unsigned long long v) { int c = 0; while (v) { c += (int)(v & 1); v >>= 1; } return c; }
static int clz64(unsigned long long v) { int c = 0; for (int k = 63; k >= 0 && !(v >> k & 1); --k) ++c; return c; }

// 128-bit high product via 32-bit limbs
static unsigned long long umulhi64(unsigned long long a, unsigned long long b) {
    unsigned long long al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    unsigned long long ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    unsigned long long mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
static long long mulhi64(long long a, long long b) {
    unsigned long long h = umulhi64((unsigned long long)a, (unsigned long long)b);
    if (a < 0) h -= (unsigned long long)b;
    if (b < 0) h -= (unsigned long long)a;
    return (long long)h;
}

static void ref_int(int x, int y, unsigned s, unsigned* o) {
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    long long x64 = (long long)(((unsigned long long)ux << 32) | uy);
    long long y64 = (long long)(((unsigned long long)uy << 32) | (ux ^ 0x5a5a5a5au));
    o[0] = (unsigned)(((long long)x * y) >> 32);
    o[1] = (unsigned)(((unsigned long long)ux * uy) >> 32);
    long long mh = mulhi64(x64, y64);
    o[2] = (unsigned)mh; o[3] = (unsigned)((unsigned long long)mh >> 32);
    unsigned long long umh = umulhi64((unsigned long long)x64, (unsigned long long)y64);
    o[4] = (unsigned)umh; o[5] = (unsigned)(umh >> 32);
    long long w = (long long)x * y;
    o[6] = (unsigned)w; o[7] = (unsigned)((unsigned long long)w >> 32);
    unsigned long long uw = (unsigned long long)ux * uy;
    o[8] = (unsigned)uw; o[9] = (unsigned)(uw >> 32);
    o[10] = (unsigned)(x / y); o[11] = (unsigned)(x % y);
    o[12] = ux / uy; o[13] = ux % uy;
    long long q64 = x64 / (long long)y, r64 = x64 % (long long)y;
    o[14] = (unsigned)q64; o[15] = (unsigned)((unsigned long long)q64 >> 32);
    o[16] = (unsigned)r64; o[17] = (unsigned)((unsigned long long)r64 >> 32);
    o[18] = (unsigned)(x < y ? x : y); o[19] = (unsigned)(x > y ? x : y);
    o[20] = ux < uy ? ux : uy; o[21] = ux > uy ? ux : uy;
    o[22] = (unsigned)popc64(ux);
    o[23] = (unsigned)popc64((unsigned long long)x64);
    o[24] = (unsigned)clz64(ux) - 32;
    o[25] = (unsigned)clz64((unsigned long long)x64);
    o[26] = bitrev32(ux);
    o[27] = bitrev32((unsigned)((unsigned long long)x64 >> 32));
    o[28] = bitrev32((unsigned)x64);
    int ffs = 0; for (int k = 0; k < 32; ++k) if (ux >> k & 1) { ffs = k + 1; break; }
    o[29] = (unsigned)ffs;
    unsigned sel = (ux ^ uy) & 0x7777u, bp = 0;
    unsigned long long src = ((unsigned long long)uy << 32) | ux;
    for (int k = 0; k < 4; ++k) bp |= (unsigned)((src >> (8 * ((sel >> (4 * k)) & 7))) & 0xff) << (8 * k);
    o[30] = bp;
    unsigned long long cat = ((unsigned long long)uy << 32) | ux;
    unsigned sw = s & 31, sc = s > 32 ? 32 : s;
    o[31] = (unsigned)((cat << sw) >> 32);
    o[32] = (unsigned)(cat >> sw);
    o[33] = (unsigned)((cat << sc) >> 32);
    o[34] = (unsigned)(cat >> sc);
    o[35] = (unsigned)(x >> (s & 31));
    o[36] = ux >> (s & 31);
    o[37] = ux << (s & 31);
    o[38] = (unsigned)(x < y ? (long long)y - x : (long long)x - y) + s;
    o[39] = (unsigned)(int)(((long long)x + y) >> 1);
    o[40] = (unsigned)(int)(((long long)x + y + 1) >> 1);
    o[41] = (unsigned)(((unsigned long long)ux + uy) >> 1);
    o[42] = (unsigned)(x < 0 ? -x : x);
    int dp = (int)s;
    for (int k = 0; k < 4; ++k) dp += (int)(int8_t)(ux >> (8 * k)) * (int)(int8_t)(uy >> (8 * k));
    o[43] = (unsigned)dp;
}

static void ref_f32(float a, float b, float c, unsigned* o) {
    float aa = std::fabs(a);
    float big = rf((double)a * 3.0e7, RN);
    double prod = (double)a * (double)b;  // exact
    o[0] = fbits(ref_add(a, b, RN)); o[1] = fbits(rf(prod, RN));
    o[2] = fbits(ref_add(a, b, RZ)); o[3] = fbits(ref_add(a, b, RU)); o[4] = fbits(ref_add(a, b, RD));
    o[5] = fbits(rf(prod, RZ)); o[6] = fbits(rf(prod, RU)); o[7] = fbits(rf(prod, RD));
    o[8] = fbits(ref_fma(a, b, c, RN)); o[9] = fbits(ref_fma(a, b, c, RZ));
    o[10] = fbits(ref_fma(a, b, c, RU)); o[11] = fbits(ref_fma(a, b, c, RD));
    double q = (double)a / (double)b;  // never a float rounding boundary unless exact
    o[12] = fbits(rf(q, RN)); o[13] = fbits(rf(q, RZ)); o[14] = fbits(rf(q, RU)); o[15] = fbits(rf(q, RD));
    double sq = std::sqrt((double)aa);
    o[16] = fbits(rf(sq, RN)); o[17] = fbits(rf(sq, RZ)); o[18] = fbits(rf(sq, RU)); o[19] = fbits(rf(sq, RD));
    double rc = 1.0 / (double)b;
    o[20] = fbits(rf(rc, RN)); o[21] = fbits(rf(rc, RZ));
    o[22] = fbits(std::isnan(a) ? b : std::isnan(b) ? a : (a < b ? a : b));
    o[23] = fbits(std::isnan(a) ? b : std::isnan(b) ? a : (a > b ? a : b));
    o[24] = (fbits(a) & 0x7fffffffu) | (fbits(b) & 0x80000000u);
    o[25] = fbits(std::isnan(a) ? 0.0f : a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a);
    o[26] = (unsigned)ref_f2i(big, RZ);
    o[27] = (unsigned)ref_f2i(big, RN);
    o[28] = (unsigned)ref_f2i(a, RD);
    o[29] = (unsigned)ref_f2i(a, RU);
    o[30] = ref_f2u_rz(big);
    o[31] = (unsigned)ref_f2ll_rz(rf((double)big * 1.0e3, RN));
    o[32] = (unsigned)to_half_bits(a, RN) | ((unsigned)to_half_bits(big, RN) << 16);
    int ib = (int)fbits(b);
    o[33] = fbits(rf((double)ib, RN)); o[34] = fbits(rf((double)ib, RZ));
    o[35] = fbits(rf((double)fbits(a), RD));
    float a4 = rf((double)a * 4.0, RN);
    o[36] = fbits(std::nearbyint(a4));
    float t = rf((double)std::round(a4) + (double)std::floor(b), RN);
    t = rf((double)t - (double)std::ceil(c), RN);
    t = rf((double)t + (double)std::trunc(a), RN);
    o[37] = fbits(t);
}

static bool close_f(double got, double ref, double rel, double abs_tol) {
    if (std::isnan(ref)) return std::isnan(got);
    return std::fabs(got - ref) <= abs_tol + rel * std::fabs(ref);
}

int main() {
    // ---------------- inputs ----------------
    std::vector<int> IA(N), IB(N);
    std::vector<unsigned> IS(N);
    for (int i = 0; i < N; ++i) {
        int x, y;
        switch (i % 4) {
            case 0: x = (int)(lcg_next() % 2001) - 1000; y = (int)(lcg_next() % 201) - 100; break;
            case 1: x = (int)lcg_next(); y = (int)(lcg_next() % 65536) - 32768; break;
            case 2: x = INT_MAX - (int)(lcg_next() % 16); y = -(int)(lcg_next() % 7) - 1; break;
            default: x = (int)lcg_next(); y = (int)lcg_next(); break;
        }
        if (x == INT_MIN) x = INT_MIN + 1;
        if (y == 0) y = 3;
        IA[i] = x; IB[i] = y; IS[i] = lcg_next() % 41;  // shift amounts 0..40 (exercise clamping)
    }
    std::vector<float> FA(N), FB(N), FC(N);
    for (int i = 0; i < N; ++i) {
        FA[i] = lcg_float(-100.0f, 100.0f); FB[i] = lcg_float(-100.0f, 100.0f); FC[i] = lcg_float(-100.0f, 100.0f);
        if (FB[i] == 0.0f) FB[i] = 1.5f;
    }
    // special rows: overflow, subnormals, inf/nan, ties, huge ints
    const float specials[][3] = {
        {FLT_MAX, FLT_MAX, -FLT_MAX}, {-FLT_MAX, 3.0f, 1.0f}, {1.0e-40f, 3.0e-39f, 1.0e-44f},
        {1.0f, 5.9604645e-8f, -1.0f}, {INFINITY, 2.0f, 1.0f}, {NAN, 2.0f, 3.0f}, {2.5f, -0.5f, 0.5f},
        {0.75f, 1.0f / 3.0f, -0.25f}, {1.0e30f, 1.0e-30f, 7.0f}, {-3.5f, 1.0e-20f, 1.0e20f}};
    for (int k = 0; k < 10; ++k) { FA[k * 7 + 1] = specials[k][0]; FB[k * 7 + 1] = specials[k][1]; FC[k * 7 + 1] = specials[k][2]; }
    std::vector<double> DA(N), DB(N), DC(N);
    for (int i = 0; i < N; ++i) {
        DA[i] = (double)lcg_float(-100.0f, 100.0f) + (double)(lcg_next() >> 8) * 1e-12;
        DB[i] = (double)lcg_float(0.5f, 8.0f) * ((lcg_next() & 1) ? 1.0 : -1.0);
        DC[i] = (double)lcg_float(-4.0f, 4.0f);
    }
    std::vector<unsigned short> HA(N), HB(N), HC(N);
    std::vector<float> HF(N);
    for (int i = 0; i < N; ++i) {
        // multiples of 1/256 in [-8, 8] are exact halves; sums/products then round
        HA[i] = to_half_bits(((int)(lcg_next() % 4097) - 2048) / 256.0, RN);
        HB[i] = to_half_bits(((int)(lcg_next() % 4097) - 2048) / 256.0, RN);
        HC[i] = to_half_bits(((int)(lcg_next() % 4097) - 2048) / 256.0, RN);
        HF[i] = lcg_float(-300.0f, 300.0f);
    }
    const uint16_t hspecial[][3] = {{0x7bff, 0x7bff, 0x0001}, {0x0001, 0x0003, 0x8002}, {0x7c00, 0x3c00, 0x3c00},
                                    {0x3c01, 0x3bff, 0x0400}, {0xfbff, 0x4000, 0x7bff}};
    for (int k = 0; k < 5; ++k) { HA[k * 11 + 3] = hspecial[k][0]; HB[k * 11 + 3] = hspecial[k][1]; HC[k * 11 + 3] = hspecial[k][2]; }
    HF[5] = 70000.0f; HF[6] = 1.0e-7f; HF[7] = -65519.0f;

    // ---------------- device ----------------
    int *dIA, *dIB; unsigned *dIS, *dIO, *dFO; float *dFA, *dFB, *dFC, *dAO, *dHF;
    double *dDA, *dDB, *dDC, *dDO; unsigned short *dHA, *dHB, *dHC, *dHO;
    CHECK(cudaMalloc(&dIA, N * 4)); CHECK(cudaMalloc(&dIB, N * 4)); CHECK(cudaMalloc(&dIS, N * 4));
    CHECK(cudaMalloc(&dIO, (size_t)N * NI * 4));
    CHECK(cudaMalloc(&dFA, N * 4)); CHECK(cudaMalloc(&dFB, N * 4)); CHECK(cudaMalloc(&dFC, N * 4));
    CHECK(cudaMalloc(&dFO, (size_t)N * NF * 4)); CHECK(cudaMalloc(&dAO, (size_t)N * NA * 4));
    CHECK(cudaMalloc(&dDA, N * 8)); CHECK(cudaMalloc(&dDB, N * 8)); CHECK(cudaMalloc(&dDC, N * 8));
    CHECK(cudaMalloc(&dDO, (size_t)N * ND * 8));
    CHECK(cudaMalloc(&dHA, N * 2)); CHECK(cudaMalloc(&dHB, N * 2)); CHECK(cudaMalloc(&dHC, N * 2));
    CHECK(cudaMalloc(&dHF, N * 4)); CHECK(cudaMalloc(&dHO, (size_t)N * NH * 2));
    CHECK(cudaMemcpy(dIA, IA.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dIB, IB.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dIS, IS.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dFA, FA.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dFB, FB.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dFC, FC.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dDA, DA.data(), N * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dDB, DB.data(), N * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dDC, DC.data(), N * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dHA, HA.data(), N * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dHB, HB.data(), N * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dHC, HC.data(), N * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dHF, HF.data(), N * 4, cudaMemcpyHostToDevice));
    const int grid = (N + BLOCK - 1) / BLOCK;
    int_ops<<<grid, BLOCK>>>(dIA, dIB, dIS, dIO, N);
    CHECK(cudaGetLastError());
    f32_exact_ops<<<grid, BLOCK>>>(dFA, dFB, dFC, dFO, N);
    CHECK(cudaGetLastError());
    f32_approx_ops<<<grid, BLOCK>>>(dFA, dFB, dAO, N);
    CHECK(cudaGetLastError());
    f64_ops<<<grid, BLOCK>>>(dDA, dDB, dDC, dDO, N);
    CHECK(cudaGetLastError());
    half_ops<<<grid, BLOCK>>>(dHA, dHB, dHC, dHF, dHO, N);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> IO((size_t)N * NI), FO((size_t)N * NF);
    std::vector<float> AO((size_t)N * NA);
    std::vector<double> DO((size_t)N * ND);
    std::vector<unsigned short> HO((size_t)N * NH);
    CHECK(cudaMemcpy(IO.data(), dIO, IO.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(FO.data(), dFO, FO.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(AO.data(), dAO, AO.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(DO.data(), dDO, DO.size() * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(HO.data(), dHO, HO.size() * 2, cudaMemcpyDeviceToHost));
    void* bufs[] = {dIA, dIB, dIS, dIO, dFA, dFB, dFC, dFO, dAO, dDA, dDB, dDC, dDO, dHA, dHB, dHC, dHF, dHO};
    for (void* p : bufs) CHECK(cudaFree(p));

    // ---------------- reference + compare ----------------
    int fails = 0;
    char first[256] = "";
    auto fail = [&](const char* what, int i, int j, double got, double exp) {
        if (!fails) snprintf(first, sizeof first, "%s element %d result %d: got %.9g expected %.9g", what, i, j, got, exp);
        ++fails;
    };
    long checks_int = 0, checks_f32 = 0, checks_apx = 0, checks_f64 = 0, checks_half = 0;
    for (int i = 0; i < N; ++i) {
        unsigned r[NI];
        ref_int(IA[i], IB[i], IS[i], r);
        for (int j = 0; j < NI; ++j, ++checks_int)
            if (IO[(size_t)i * NI + j] != r[j]) fail("int", i, j, (double)IO[(size_t)i * NI + j], (double)r[j]);
    }
    for (int i = 0; i < N; ++i) {
        unsigned r[NF];
        ref_f32(FA[i], FB[i], FC[i], r);
        for (int j = 0; j < NF; ++j, ++checks_f32) {
            unsigned g = FO[(size_t)i * NF + j];
            bool is_float_result = !(j >= 26 && j <= 32);
            bool ok = g == r[j] || (is_float_result && std::isnan(bitsf(g)) && std::isnan(bitsf(r[j])));
            if (j == 32 && !ok) {  // two packed halves: NaN payloads may differ
                ok = true;
                for (int hh = 0; hh < 2; ++hh) {
                    uint16_t gh = (uint16_t)(g >> (16 * hh)), rh = (uint16_t)(r[j] >> (16 * hh));
                    if (gh != rh && !(is_half_nan(gh) && is_half_nan(rh))) ok = false;
                }
            }
            if (!ok) fail("f32", i, j, (double)bitsf(g), (double)bitsf(r[j]));
        }
    }
    for (int i = 0; i < N; ++i) {
        float a = FA[i], b = FB[i];
        if (std::isnan(a) || std::isinf(a) || std::fabs(a) > 1.0e4f || std::fabs(b) > 1.0e4f || std::fabs(b) < 1.0e-4f) continue;
        double r[NA] = {std::exp(a / 32.0), std::sin(a / 32.0), std::cos(a / 32.0), std::log(std::fabs(a) + 1.0),
                        1.0 / std::sqrt(std::fabs(a) + 1.0), (double)a / b, std::exp(a / 16.0), std::sin((double)a),
                        std::log(std::fabs(b) + 0.5), std::pow(std::fabs(a) + 1.0, 0.75)};
        for (int j = 0; j < NA; ++j, ++checks_apx)
            if (!close_f(AO[(size_t)i * NA + j], r[j], 1e-5, 1e-6)) fail("approx", i, j, AO[(size_t)i * NA + j], r[j]);
    }
    for (int i = 0; i < N; ++i) {
        double a = DA[i], b = DB[i], c = DC[i];
        double r[ND];
        r[0] = a + b; r[1] = a * b; r[2] = a / b; r[3] = std::sqrt(std::fabs(a)); r[4] = std::fma(a, b, c);
        r[5] = (double)rf(a * 1.0e-3, RN);
        r[6] = (double)rf(a * 1.0e-3, RZ) + (double)rf(b, RU);
        double t = std::trunc(a * 1.0e7);
        r[7] = t;
        r[8] = std::nearbyint(b * 1.0e12);
        r[9] = std::exp(a / 64.0); r[10] = std::sin(b); r[11] = std::log(std::fabs(c) + 1.0);
        for (int j = 0; j < ND; ++j, ++checks_f64) {
            double g = DO[(size_t)i * ND + j];
            bool ok = j < ND_EXACT ? memcmp(&g, &r[j], 8) == 0 : close_f(g, r[j], 1e-13, 1e-15);
            if (!ok) fail("f64", i, j, g, r[j]);
        }
    }
    for (int i = 0; i < N; ++i) {
        double a = half_val(HA[i]), b = half_val(HB[i]), c = half_val(HC[i]);
        double f = HF[i];
        uint16_t r[NH];
        r[0] = to_half_bits(a + b, RN); r[1] = to_half_bits(a - b, RN); r[2] = to_half_bits(a * b, RN);
        r[3] = to_half_bits(a * b + c, RN);
        double sat = half_val(to_half_bits(a + b, RN));
        r[4] = to_half_bits(std::isnan(sat) ? 0.0 : sat < 0 ? 0.0 : sat > 1 ? 1.0 : sat, RN);
        r[5] = to_half_bits(std::isnan(a) ? b : std::isnan(b) ? a : (a > b ? a : b), RN);
        r[6] = to_half_bits(std::isnan(a) ? c : std::isnan(c) ? a : (a < c ? a : c), RN);
        r[7] = (uint16_t)(HA[i] | 0x8000);
        r[8] = to_half_bits(a + c, RN); r[9] = to_half_bits(b + a, RN);
        r[10] = to_half_bits(a * c, RN); r[11] = to_half_bits(b * a, RN);
        r[12] = to_half_bits(a * c + a, RN); r[13] = to_half_bits(b * a + b, RN);
        r[14] = to_half_bits(f, RZ); r[15] = to_half_bits(f, RU); r[16] = to_half_bits(f, RD);
        double p100 = half_val(to_half_bits(a * 100.0, RN));
        double tr = std::trunc(p100);
        r[17] = (uint16_t)(int16_t)(std::isnan(p100) ? 0 : tr > 32767 ? 32767 : tr < -32768 ? -32768 : (int)tr);
        double ba = bf16_val(to_bf16_bits(a, RN)), bb = bf16_val(to_bf16_bits(b, RN)), bc = bf16_val(to_bf16_bits(c, RN));
        r[18] = to_bf16_bits(ba + bb, RN); r[19] = to_bf16_bits(ba * bb, RN); r[20] = to_bf16_bits(ba * bb + bc, RN);
        r[21] = to_bf16_bits(f, RN); r[22] = to_bf16_bits(f, RZ);
        r[23] = to_bf16_bits(ba * bc, RN) ^ to_bf16_bits(bb * bc, RN);
        for (int j = 0; j < NH; ++j, ++checks_half) {
            uint16_t g = HO[(size_t)i * NH + j];
            bool bf = j >= 18;
            bool ok = g == r[j] || (j != 23 && j != 17 && (bf ? (is_bf16_nan(g) && is_bf16_nan(r[j])) : (is_half_nan(g) && is_half_nan(r[j]))));
            if (!ok) fail(bf ? "bf16" : "half", i, j, (double)g, (double)r[j]);
        }
    }
    printf("arith: int checks=%ld (exact)\n", checks_int);
    printf("arith: f32 checks=%ld (bit-exact, all rounding modes)\n", checks_f32);
    printf("arith: f32 approx checks=%ld (rel 1e-5, abs 1e-6)\n", checks_apx);
    printf("arith: f64 checks=%ld (%d of %d per element bit-exact, rest rel 1e-13)\n", checks_f64, ND_EXACT, ND);
    printf("arith: half/bf16 checks=%ld (bit-exact)\n", checks_half);
    if (fails) {
        printf("arith: FAIL (%d mismatches; first: %s)\n", fails, first);
        return 1;
    }
    printf("arith: PASS\n");
    return 0;
}
