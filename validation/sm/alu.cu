// alu: dependent-issue latency and throughput of single arithmetic instructions, written as inline
// PTX so that each chain step is exactly one PTX instruction (and one SASS instruction, except
// sin.approx, which ptxas lowers to FMUL.RZ + MUFU.SIN):
//   ffma   fma.rn.f32            x = x*a + 0.5              (SASS FFMA)
//   imad   mad.lo.u32            x = x*a + 1013904223       (SASS IMAD)
//   iadd   add.u32               x += y; y += x (Fibonacci) (SASS IADD3 / IMAD.IADD)
//   dfma   fma.rn.f64            x = x*a + 0.5              (SASS DFMA)
//   hfma2  fma.rn.f16x2          x = x*a + b (two halves)   (SASS HFMA2 / HFMA2.MMA)
//   ex2    ex2.approx.ftz.f32    x = 2^x                    (SASS MUFU.EX2)
//   rsqrt  rsqrt.approx.ftz.f32  x = 1/sqrt(x)              (SASS MUFU.RSQ)
//   sin    sin.approx.ftz.f32    x = sin(x)                 (SASS FMUL.RZ + MUFU.SIN)
//   redux  redux.sync.add.u32    x = sum of x over the warp (SASS REDUX + a move to a register;
//                                  all lanes equal, so x *= 32 per step; sm_80+)
// plus the clock64() read overhead. Metrics per instruction (see validation/README.md):
//   dep_latency           one warp, one chain of 1024 dependent instructions: cycles / 1024
//   warp_cpi_ilp8         one warp, 8 independent chains (1024 instructions): cycles / 1024
//   sm_warp_ipc_32w_ilp8  32 warps in one block (one SM), 8 chains each: warp instructions / cycle
//   sm_lanes_per_cycle    the same times 32 (hfma2: one lane = one f16x2 pair)
#include "chain.cuh"
#include <cuda_fp16.h>

// ---------- FFMA ----------
struct OpFfma {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "ffma";
    __device__ static void step(T& x, T a, T) { asm volatile("fma.rn.f32 %0, %0, %1, 0f3F000000;" : "+f"(x) : "f"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + (float)j + 0.25f * (float)lane; }
    static T cpu_step(T x, T a, T) { return std::fma(x, a, 0.5f); }
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};

// ---------- IMAD ----------
struct OpImad {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "imad";
    __device__ static void step(T& x, T a, T) { asm volatile("mad.lo.u32 %0, %0, %1, 1013904223;" : "+r"(x) : "r"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977u * (unsigned)j + 131u * (unsigned)lane; }
    static T cpu_step(T x, T a, T) { return x * a + 1013904223u; }
    static bool check(T g, T r) { return g == r; }
};

// ---------- IADD ----------
// A chain x = x + a of add.u32 is NOT one SASS instruction per add: ptxas reassociates it
// (x + a + a -> LEA/IMAD with 2a, or IADD3 x, a, b for two adds), whatever asm volatile says at the
// PTX level. The Fibonacci pair x += y; y += x is a serial chain of adds (each add needs the previous
// result) whose intermediates are each used twice, so ptxas keeps one SASS add per PTX add (it
// splits them between IADD3 on the ALU pipe and IMAD.IADD on the FMA pipe; see validation/README.md).
struct OpIadd {
    using T = uint2;
    static constexpr int kPerStep = 2;
    static constexpr const char* name = "iadd";
    __device__ static void step(T& v, T, T) {
        asm volatile("add.u32 %0, %0, %1;" : "+r"(v.x) : "r"(v.y));
        asm volatile("add.u32 %0, %0, %1;" : "+r"(v.y) : "r"(v.x));
    }
    __host__ __device__ static T init(T x0, int j, int lane) {
        return make_uint2(x0.x + 977u * (unsigned)j + 131u * (unsigned)lane, x0.y + (unsigned)j);
    }
    static T cpu_step(T v, T, T) { v.x += v.y; v.y += v.x; return v; }
    static bool check(T g, T r) { return g.x == r.x && g.y == r.y; }
};

// ---------- DFMA ----------
struct OpDfma {
    using T = double;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "dfma";
    __device__ static void step(T& x, T a, T) { asm volatile("fma.rn.f64 %0, %0, %1, 0d3FE0000000000000;" : "+d"(x) : "d"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + (double)j + 0.25 * (double)lane; }
    static T cpu_step(T x, T a, T) { return std::fma(x, a, 0.5); }
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};

// ---------- HFMA2 (f16x2 in a b32 register) ----------
static double half_bits_to_double(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? std::ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024.0 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}
// round-to-nearest-even double -> half (finite, normal or subnormal range; enough for this chain)
static uint16_t double_to_half_bits(double v) {
    uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    double a = std::fabs(v);
    if (a == 0) return sign;
    int e;
    std::frexp(a, &e);                       // a = f * 2^e, f in [0.5, 1)
    int ulp_exp = std::max(e - 11, -24);     // 11 significant bits; subnormal ulp 2^-24
    double q = std::nearbyint(std::ldexp(a, -ulp_exp));  // RNE (default rounding mode)
    double r = std::ldexp(q, ulp_exp);
    if (r >= 65520.0) return sign | 0x7c00;
    int re;
    std::frexp(r, &re);
    if (r < std::ldexp(1.0, -14)) return sign | (uint16_t)std::ldexp(r, 24);  // subnormal
    int biased = re - 1 + 15;
    uint16_t mant = (uint16_t)(std::ldexp(r, -(re - 1) + 10) - 1024.0);
    return sign | (uint16_t)(biased << 10) | mant;
}
struct OpHfma2 {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "hfma2";
    __device__ static void step(T& x, T a, T b) { asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b)); }
    // halves: lo starts at 1 + j/8 + lane/64, hi at -(2 + j/4)  (exact halves)
    __host__ __device__ static T init(T x0, int j, int lane) {
        unsigned lo = (x0 & 0xffffu) + 128u * (unsigned)j + 16u * (unsigned)lane;  // 1.0 = 0x3c00, ulp 2^-10
        unsigned hi = (x0 >> 16) + 256u * (unsigned)j;                                // -2.0 = 0xc000
        return (lo & 0xffffu) | (hi << 16);
    }
    static T cpu_step(T x, T a, T b) {
        T r = 0;
        for (int h = 0; h < 2; ++h) {
            double xv = half_bits_to_double((uint16_t)(x >> (16 * h)));
            double av = half_bits_to_double((uint16_t)(a >> (16 * h)));
            double bv = half_bits_to_double((uint16_t)(b >> (16 * h)));
            r |= (T)double_to_half_bits(xv * av + bv) << (16 * h);  // exact in double for these values
        }
        return r;
    }
    static bool check(T g, T r) { return g == r; }
};

// ---------- MUFU ----------
struct OpEx2 {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "mufu_ex2";
    __device__ static void step(T& x, T, T) { asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 - (float)j - 0.5f * (float)lane; }
    static T cpu_step(T x, T, T) { return std::exp2(x); }
    static bool check(T g, T r) { return close_rel(g, r, 1e-4, 0.0); }
};
struct OpRsqrt {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "mufu_rsqrt";
    __device__ static void step(T& x, T, T) { asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + (float)j + 0.5f * (float)lane; }
    static T cpu_step(T x, T, T) { return (float)(1.0 / std::sqrt((double)x)); }
    static bool check(T g, T r) { return close_rel(g, r, 1e-5, 0.0); }
};
struct OpSin {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "mufu_sin";
    __device__ static void step(T& x, T, T) { asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 0.1f * (float)j + 0.05f * (float)lane; }
    static T cpu_step(T x, T, T) { return (float)std::sin((double)x); }
    // sin.approx has ~2^-20.9 absolute error per step and the chain barely contracts: loose check
    static bool check(T g, T r) { return close_rel(g, r, 0.0, 2e-2); }
};

// ---------- REDUX ----------
// Every lane starts equal, so the warp sum is 32 x (mod 2^32): the CPU model needs no other lane.
struct OpRedux {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "redux";
    __device__ static void step(T& x, T, T) { asm volatile("redux.sync.add.u32 %0, %0, 0xffffffff;" : "+r"(x)); }
    __host__ __device__ static T init(T x0, int j, int) { return x0 + 977u * (unsigned)j; }
    static T cpu_step(T x, T, T) { return x * 32u; }
    static bool check(T g, T r) { return g == r; }
};

int main(int argc, char** argv) {
    parse_args(argc, argv, "alu");
    print_device_header();
    measure_clock_overhead(true);
    run_op<OpFfma>(1.0f, 0.9990234375f, 0.0f);
    run_op<OpImad>(12345u, 1664525u, 0u);
    run_op<OpIadd>(make_uint2(12345u, 0x9E3779B9u), make_uint2(0, 0), make_uint2(0, 0));
    run_op<OpDfma>(1.0, 0.9990234375, 0.0);
    // a = (0.75, -0.5), b = (0.5, 0.25) as f16x2 (low half first); x0 = (1.0, -2.0)
    run_op<OpHfma2>(0xc0003c00u, 0xb8003a00u, 0x34003800u);
    run_op<OpEx2>(-1.0f, 0.0f, 0.0f);
    run_op<OpRsqrt>(2.0f, 0.0f, 0.0f);
    run_op<OpSin>(1.0f, 0.0f, 0.0f);
    run_op<OpRedux>(3u, 0u, 0u);
    return finish();
}
