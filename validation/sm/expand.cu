// expand: PTX instructions that ptxas expands into several SASS instructions (integer division,
// IEEE f32/f64 division, reciprocal and square root) and the warp-wide vote/match instructions,
// measured with chain.cuh like alu.cu (dep_latency, warp_cpi_ilp8, sm_warp_ipc_32w_ilp8, ...;
// every metric is per PTX instruction of the chain). Each chain step is one PTX instruction
// unless noted:
//   div_s32 / div_u32     x = A / x   (A = INT_MAX / UINT_MAX: the quotient stays non-zero)
//   rem_u32               x = x % a   (a > x: x stays; ptxas still runs the whole sequence)
//   div_s64 / div_u64     x = A / x   (A = INT64_MAX / UINT64_MAX; ptxas calls a subroutine)
//   div_u32_imm / div_s32_imm / div_u64_imm   x = x / 7 (ptxas: multiply-high and shift)
//   div_rn_f32 / div_full_f32 / div_approx_f32   x = 3 / x
//   rcp_rn_f32            x = 1 / x   sqrt_rn_f32 / sqrt_approx_f32   x = sqrt(x)
//   div_rn_f64 / rcp_rn_f64 / sqrt_rn_f64   as the f32 forms
//   vote_ballot           x = ballot(x != 0): setp + vote.ballot (2 PTX instructions per step)
//   match_any_uniform     x = match.any(x), all lanes equal (result: all lanes)
//   match_any_distinct    x = match.any(x), 32 different values (result: the lane's own bit)
//   match_all             x = match.all(x), all lanes equal
#include "chain.cuh"

// ---------- integer division ----------
struct OpDivS32 {
    using T = int;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_s32";
    __device__ static void step(T& x, T a, T) { asm volatile("div.s32 %0, %1, %0;" : "+r"(x) : "r"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977 * j + 131 * lane; }
    static T cpu_step(T x, T a, T) { return a / x; }
    static bool check(T g, T r) { return g == r; }
};
struct OpDivU32 {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_u32";
    __device__ static void step(T& x, T a, T) { asm volatile("div.u32 %0, %1, %0;" : "+r"(x) : "r"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977u * j + 131u * lane; }
    static T cpu_step(T x, T a, T) { return a / x; }
    static bool check(T g, T r) { return g == r; }
};
struct OpRemU32 {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "rem_u32";
    __device__ static void step(T& x, T a, T) { asm volatile("rem.u32 %0, %0, %1;" : "+r"(x) : "r"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977u * j + 131u * lane; }
    static T cpu_step(T x, T a, T) { return x % a; }
    static bool check(T g, T r) { return g == r; }
};
struct OpDivS64 {
    using T = long long;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_s64";
    __device__ static void step(T& x, T a, T) { asm volatile("div.s64 %0, %1, %0;" : "+l"(x) : "l"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977LL * j + 131LL * lane; }
    static T cpu_step(T x, T a, T) { return a / x; }
    static bool check(T g, T r) { return g == r; }
};
struct OpDivU64 {
    using T = unsigned long long;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_u64";
    __device__ static void step(T& x, T a, T) { asm volatile("div.u64 %0, %1, %0;" : "+l"(x) : "l"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977ULL * j + 131ULL * lane; }
    static T cpu_step(T x, T a, T) { return a / x; }
    static bool check(T g, T r) { return g == r; }
};
// Division by an immediate: the chain reaches 0 after a few steps; the multiply-shift sequence
// takes the same time for every value.
struct OpDivU32Imm {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_u32_imm";
    __device__ static void step(T& x, T, T) { asm volatile("div.u32 %0, %0, 7;" : "+r"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977u * j + 131u * lane; }
    static T cpu_step(T x, T, T) { return x / 7u; }
    static bool check(T g, T r) { return g == r; }
};
struct OpDivS32Imm {
    using T = int;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_s32_imm";
    __device__ static void step(T& x, T, T) { asm volatile("div.s32 %0, %0, 7;" : "+r"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 - 977 * j - 131 * lane; }
    static T cpu_step(T x, T, T) { return x / 7; }
    static bool check(T g, T r) { return g == r; }
};
struct OpDivU64Imm {
    using T = unsigned long long;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_u64_imm";
    __device__ static void step(T& x, T, T) { asm volatile("div.u64 %0, %0, 7;" : "+l"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977ULL * j + 131ULL * lane; }
    static T cpu_step(T x, T, T) { return x / 7ULL; }
    static bool check(T g, T r) { return g == r; }
};

// ---------- f32 ----------
struct OpDivRnF32 {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_rn_f32";
    __device__ static void step(T& x, T a, T) { asm volatile("div.rn.f32 %0, %1, %0;" : "+f"(x) : "f"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 0.125f * j + 0.03125f * lane; }
    static T cpu_step(T x, T a, T) { return (float)((double)a / (double)x); }  // correctly rounded
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};
struct OpDivFullF32 {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_full_f32";
    __device__ static void step(T& x, T a, T) { asm volatile("div.full.f32 %0, %1, %0;" : "+f"(x) : "f"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 0.125f * j + 0.03125f * lane; }
    static T cpu_step(T x, T a, T) { return (float)((double)a / (double)x); }
    static bool check(T g, T r) { return close_rel(g, r, 1e-4, 0.0); }  // 2 ulp per step, the chain is stable
};
struct OpDivApproxF32 {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_approx_f32";
    __device__ static void step(T& x, T a, T) { asm volatile("div.approx.f32 %0, %1, %0;" : "+f"(x) : "f"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 0.125f * j + 0.03125f * lane; }
    static T cpu_step(T x, T a, T) { return (float)((double)a / (double)x); }
    static bool check(T g, T r) { return close_rel(g, r, 1e-4, 0.0); }
};
struct OpRcpRnF32 {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "rcp_rn_f32";
    __device__ static void step(T& x, T, T) { asm volatile("rcp.rn.f32 %0, %0;" : "+f"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 0.125f * j + 0.03125f * lane; }
    static T cpu_step(T x, T, T) { return (float)(1.0 / (double)x); }
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};
// sqrt chains converge to 1.0 from 2^100 (x0 large): every value stays a normal float
struct OpSqrtRnF32 {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "sqrt_rn_f32";
    __device__ static void step(T& x, T, T) { asm volatile("sqrt.rn.f32 %0, %0;" : "+f"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 * (1.0f + 0.125f * j + 0.03125f * lane); }
    static T cpu_step(T x, T, T) { return (float)std::sqrt((double)x); }  // correctly rounded (double has > 2x24+2 bits)
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};
struct OpSqrtApproxF32 {
    using T = float;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "sqrt_approx_f32";
    __device__ static void step(T& x, T, T) { asm volatile("sqrt.approx.f32 %0, %0;" : "+f"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 * (1.0f + 0.125f * j + 0.03125f * lane); }
    static T cpu_step(T x, T, T) { return (float)std::sqrt((double)x); }
    static bool check(T g, T r) { return close_rel(g, r, 1e-5, 0.0); }
};

// ---------- f64 ----------
struct OpDivRnF64 {
    using T = double;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "div_rn_f64";
    __device__ static void step(T& x, T a, T) { asm volatile("div.rn.f64 %0, %1, %0;" : "+d"(x) : "d"(a)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 0.125 * j + 0.03125 * lane; }
    static T cpu_step(T x, T a, T) { return a / x; }
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};
struct OpRcpRnF64 {
    using T = double;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "rcp_rn_f64";
    __device__ static void step(T& x, T, T) { asm volatile("rcp.rn.f64 %0, %0;" : "+d"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 0.125 * j + 0.03125 * lane; }
    static T cpu_step(T x, T, T) { return 1.0 / x; }
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};
struct OpSqrtRnF64 {
    using T = double;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "sqrt_rn_f64";
    __device__ static void step(T& x, T, T) { asm volatile("sqrt.rn.f64 %0, %0;" : "+d"(x)); }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 * (1.0 + 0.125 * j + 0.03125 * lane); }
    static T cpu_step(T x, T, T) { return std::sqrt(x); }
    static bool check(T g, T r) { return memcmp(&g, &r, sizeof g) == 0; }
};

// ---------- warp vote / match ----------
// Every lane starts non-zero, so the ballot is all lanes from the first step on.
struct OpVoteBallot {
    using T = unsigned;
    static constexpr int kPerStep = 2;
    static constexpr const char* name = "vote_ballot";
    __device__ static void step(T& x, T, T) {
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" : "+r"(x));
    }
    __host__ __device__ static T init(T x0, int j, int lane) { return x0 + 977u * j + 131u * lane; }
    static T cpu_step(T, T, T) { return 0xffffffffu; }
    static bool check(T g, T r) { return g == r; }
};
struct OpMatchAnyUniform {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "match_any_uniform";
    __device__ static void step(T& x, T, T) { asm volatile("match.any.sync.b32 %0, %0, 0xffffffff;" : "+r"(x)); }
    __host__ __device__ static T init(T x0, int j, int) { return x0 + 977u * j; }
    static T cpu_step(T, T, T) { return 0xffffffffu; }
    static bool check(T g, T r) { return g == r; }
};
// x = (value, lane): the lane rides along for the CPU reference
struct OpMatchAnyDistinct {
    using T = uint2;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "match_any_distinct";
    __device__ static void step(T& v, T, T) { asm volatile("match.any.sync.b32 %0, %0, 0xffffffff;" : "+r"(v.x)); }
    __host__ __device__ static T init(T x0, int j, int lane) {
        return make_uint2(x0.x + 977u * j + 131u * lane, (unsigned)lane);
    }
    static T cpu_step(T v, T, T) { return make_uint2(1u << v.y, v.y); }
    static bool check(T g, T r) { return g.x == r.x && g.y == r.y; }
};
struct OpMatchAll {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "match_all";
    __device__ static void step(T& x, T, T) { asm volatile("match.all.sync.b32 %0, %0, 0xffffffff;" : "+r"(x)); }
    __host__ __device__ static T init(T x0, int j, int) { return x0 + 977u * j; }
    static T cpu_step(T, T, T) { return 0xffffffffu; }
    static bool check(T g, T r) { return g == r; }
};

int main(int argc, char** argv) {
    parse_args(argc, argv, "expand");
    print_device_header();
    measure_clock_overhead(false);
    run_op<OpDivS32>(12345, 2147483647, 0);
    run_op<OpDivU32>(12345u, 0xffffffffu, 0u);
    run_op<OpRemU32>(12345u, 0x7fffffffu, 0u);
    run_op<OpDivS64>(123456789LL, 0x7fffffffffffffffLL, 0LL);
    run_op<OpDivU64>(123456789ULL, 0xffffffffffffffffULL, 0ULL);
    run_op<OpDivU32Imm>(0xfedcba98u, 0u, 0u);
    run_op<OpDivS32Imm>(-2000000000, 0, 0);
    run_op<OpDivU64Imm>(0xfedcba9876543210ULL, 0ULL, 0ULL);
    run_op<OpDivRnF32>(1.1f, 3.0f, 0.0f);
    run_op<OpDivFullF32>(1.1f, 3.0f, 0.0f);
    run_op<OpDivApproxF32>(1.1f, 3.0f, 0.0f);
    run_op<OpRcpRnF32>(1.1f, 0.0f, 0.0f);
    run_op<OpSqrtRnF32>(1.0e30f, 0.0f, 0.0f);
    run_op<OpSqrtApproxF32>(1.0e30f, 0.0f, 0.0f);
    run_op<OpDivRnF64>(1.1, 3.0, 0.0);
    run_op<OpRcpRnF64>(1.1, 0.0, 0.0);
    run_op<OpSqrtRnF64>(1.0e200, 0.0, 0.0);
    run_op<OpVoteBallot>(7u, 0u, 0u);
    run_op<OpMatchAnyUniform>(7u, 0u, 0u);
    run_op<OpMatchAnyDistinct>(make_uint2(7u, 0u), make_uint2(0u, 0u), make_uint2(0u, 0u));
    run_op<OpMatchAll>(7u, 0u, 0u);
    return finish();
}
