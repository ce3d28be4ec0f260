// Tensor-core microbenchmark: latency and throughput of every mma.sync form (and mma.sp f16).
//
// For each form, with inline-PTX mma chains timed by clock64() (helpers of ../sm/common.cuh):
//   dep_latency          one warp, one chain of 256 mma where D feeds C: cycles per mma
//   fma_per_clk_sm_<W>w_ilp<I>
//                        one block of W warps (one SM), each with I independent accumulators,
//                        256 mma per warp: multiply-accumulates (M*N*K per mma; for mma.sp the
//                        dense-equivalent M*N*K) per SM clock over (max end - min start)
//   cycles_per_mma_subcore_<W>w_ilp<I>
//                        the same as the issue interval of one mma on one of the 4 sub-cores:
//                        4 * M*N*K / (fma per clk per SM); also for 8 warps (two per sub-core)
//   ..._distinct         the same with every accumulator chain on A/B registers of its own (the
//                        others share one set, so consecutive mma can reuse their operands)
// Every timed region runs twice in the launch (the first pass warms the instruction cache); only
// the second is timed. Each measurement is the median of --reps launches after a warm-up launch.
// Self-check: A = B = 1 (b1 xor: A all ones, B zero), C = 0, so every mma adds K (mma.sp: K/2)
// to each accumulator element, and after 2 passes of n mma each element must be 2 * n * K.
// Build with -DMMA_BENCH_NO_SP to leave mma.sp out (for a simulator without it).
#include "../sm/common.cuh"

enum AccKind { ACC_F32, ACC_F16, ACC_F64, ACC_S32 };

// Operand-count patterns (A, B, C registers) used by the forms below.
#define ASM_4_2_4(PTX)                                                                                   \
    asm volatile(PTX " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"                  \
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                         \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define ASM_2_1_4(PTX)                                                                                   \
    asm volatile(PTX " {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"                              \
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                         \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]))
#define ASM_4_2_2(PTX)                                                                                   \
    asm volatile(PTX " {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"                                  \
                 : "+r"(d[0]), "+r"(d[1])                                                                 \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

// One 32-bit-register form: PTX text without operands, operand pattern, shape, register counts,
// accumulator kind, the A/B register values (1 in every element) and what one mma adds to C.
#define DEFINE_FORM(NAME, PTX, PATTERN, M_, N_, K_, NA_, NB_, NC_, ACC, AWORD, BWORD, INC)                    \
    struct NAME {                                                                                         \
        static constexpr const char* name = #NAME;                                                        \
        static constexpr const char* ptx = PTX;                                                           \
        static constexpr int M = M_, N = N_, K = K_, NA = NA_, NB = NB_, NC = NC_;                        \
        static constexpr AccKind acc = ACC;                                                               \
        static constexpr uint32_t a_word = AWORD, b_word = BWORD;                                         \
        static constexpr double inc = INC;                                                                \
        typedef uint32_t AW;                                                                              \
        typedef uint32_t CW;                                                                              \
        __device__ __forceinline__ static void mma(CW (&d)[NC], const AW (&a)[NA], const AW (&b)[NB], uint32_t) { \
            PATTERN(PTX);                                                                                 \
        }                                                                                                 \
    };

// 1.0 in each packed element: f16x2 0x3C00, bf16x2 0x3F80, tf32 0x3F800000, 8-bit 0x01, 4-bit 0x1.
DEFINE_FORM(f16_f32_m16n8k16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", ASM_4_2_4, 16, 8, 16, 4, 2, 4,
            ACC_F32, 0x3C003C00u, 0x3C003C00u, 16)
DEFINE_FORM(f16_f16_m16n8k16, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", ASM_4_2_2, 16, 8, 16, 4, 2, 2,
            ACC_F16, 0x3C003C00u, 0x3C003C00u, 16)
DEFINE_FORM(f16_f32_m16n8k8, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", ASM_2_1_4, 16, 8, 8, 2, 1, 4,
            ACC_F32, 0x3C003C00u, 0x3C003C00u, 8)
DEFINE_FORM(bf16_f32_m16n8k16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", ASM_4_2_4, 16, 8, 16, 4, 2, 4,
            ACC_F32, 0x3F803F80u, 0x3F803F80u, 16)
DEFINE_FORM(tf32_f32_m16n8k8, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", ASM_4_2_4, 16, 8, 8, 4, 2, 4,
            ACC_F32, 0x3F800000u, 0x3F800000u, 8)
DEFINE_FORM(tf32_f32_m16n8k4, "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", ASM_2_1_4, 16, 8, 4, 2, 1, 4,
            ACC_F32, 0x3F800000u, 0x3F800000u, 4)
DEFINE_FORM(s8_s32_m16n8k32, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", ASM_4_2_4, 16, 8, 32, 4, 2, 4,
            ACC_S32, 0x01010101u, 0x01010101u, 32)
DEFINE_FORM(s8_s32_sat_m16n8k32, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", ASM_4_2_4, 16, 8, 32,
            4, 2, 4, ACC_S32, 0x01010101u, 0x01010101u, 32)
DEFINE_FORM(s8_s32_m16n8k16, "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", ASM_2_1_4, 16, 8, 16, 2, 1, 4,
            ACC_S32, 0x01010101u, 0x01010101u, 16)
DEFINE_FORM(u8s8_s32_m16n8k32, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", ASM_4_2_4, 16, 8, 32, 4, 2, 4,
            ACC_S32, 0x01010101u, 0x01010101u, 32)
DEFINE_FORM(s4_s32_m16n8k64, "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", ASM_4_2_4, 16, 8, 64, 4, 2, 4,
            ACC_S32, 0x11111111u, 0x11111111u, 64)
DEFINE_FORM(u4_s32_m16n8k64, "mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32", ASM_4_2_4, 16, 8, 64, 4, 2, 4,
            ACC_S32, 0x11111111u, 0x11111111u, 64)
DEFINE_FORM(b1_xor_m16n8k256, "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc", ASM_4_2_4, 16, 8, 256, 4,
            2, 4, ACC_S32, 0xFFFFFFFFu, 0u, 256)
DEFINE_FORM(b1_and_m16n8k256, "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc", ASM_4_2_4, 16, 8, 256, 4,
            2, 4, ACC_S32, 0xFFFFFFFFu, 0xFFFFFFFFu, 256)

struct f64_m8n8k4 {
    static constexpr const char* name = "f64_m8n8k4";
    static constexpr int M = 8, N = 8, K = 4, NA = 1, NB = 1, NC = 2;
    static constexpr AccKind acc = ACC_F64;
    static constexpr uint32_t a_word = 0, b_word = 0;
    static constexpr double inc = 4;
    typedef double AW;
    typedef double CW;
    __device__ __forceinline__ static void mma(CW (&d)[2], const AW (&a)[1], const AW (&b)[1], uint32_t) {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                     : "+d"(d[0]), "+d"(d[1])
                     : "d"(a[0]), "d"(b[0]));
    }
};

#ifndef MMA_BENCH_NO_SP
// 2:4 sparse A (16 x 32, 16 x 16 stored), metadata 0x4 per group: elements 0 and 1 of each 4 kept.
struct sp_f16_f32_m16n8k32 {
    static constexpr const char* name = "sp_f16_f32_m16n8k32";
    static constexpr int M = 16, N = 8, K = 32, NA = 4, NB = 4, NC = 4;
    static constexpr AccKind acc = ACC_F32;
    static constexpr uint32_t a_word = 0x3C003C00u, b_word = 0x3C003C00u;
    static constexpr double inc = 16;  // 16 kept products of 1 * 1 per element
    typedef uint32_t AW;
    typedef uint32_t CW;
    __device__ __forceinline__ static void mma(CW (&d)[4], const AW (&a)[4], const AW (&b)[4], uint32_t e) {
        asm volatile(
            "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, 0x0;\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e));
    }
};
#endif

// in: [0] A word, [1] B word, [2] sparsity metadata, then per chain c its own A and B words at
// [3 + 2c] and [4 + 2c]; ind: the same for f64 ([2c], [2c + 1]). SHARED: every chain reads the same
// A/B registers (consecutive mma can reuse their operands, SASS .reuse); otherwise each chain has
// registers of its own, loaded from its own words so that the compiler cannot merge them.
template <class F, int CHAINS, int ITERS, bool SHARED>
__global__ void k_mma(const uint32_t* in, const double* ind, long long* times, typename F::CW* out) {
    typedef typename F::AW AW;
    typedef typename F::CW CW;
    constexpr int NR = SHARED ? 1 : CHAINS;
    AW a[NR][F::NA], b[NR][F::NB];
    for (int c = 0; c < NR; ++c) {
        for (int i = 0; i < F::NA; ++i) a[c][i] = F::acc == ACC_F64 ? (AW)ind[2 * c] : (AW)in[3 + 2 * c];
        for (int i = 0; i < F::NB; ++i) b[c][i] = F::acc == ACC_F64 ? (AW)ind[2 * c + 1] : (AW)in[4 + 2 * c];
    }
    const uint32_t meta = in[2];
    CW acc[CHAINS][F::NC];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
        for (int i = 0; i < F::NC; ++i) acc[c][i] = 0;
    long long t0 = 0, t1 = 0;
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
        __syncthreads();
        t0 = rd_clock64();
#pragma unroll
        for (int it = 0; it < ITERS; ++it)
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) F::mma(acc[c], a[SHARED ? 0 : c], b[SHARED ? 0 : c], meta);
        t1 = rd_clock64();
    }
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) {
        times[2 * warp] = t0;
        times[2 * warp + 1] = t1;
    }
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
        for (int i = 0; i < F::NC; ++i) out[((size_t)threadIdx.x * CHAINS + c) * F::NC + i] = acc[c][i];
}

static double f16_val(uint16_t h) {
    int ex = (h >> 10) & 31, man = h & 1023;
    double v = ex == 0 ? std::ldexp((double)man, -24) : std::ldexp(1024.0 + man, ex - 25);
    return (h & 0x8000) ? -v : v;
}

// Runs <F, CHAINS, ITERS> with `warps` warps: returns the median timing over g_reps launches
// (latency: cycles per mma of warp 0; otherwise FMA per clock per SM) and checks the results.
template <class F, int CHAINS, int ITERS, bool SHARED = true>
static double measure(int warps, bool latency) {
    uint32_t hin[3 + 2 * CHAINS] = {F::a_word, F::b_word, 0x44444444u};
    double hind[2 * CHAINS];
    for (int c = 0; c < CHAINS; ++c) {
        hin[3 + 2 * c] = F::a_word;
        hin[4 + 2 * c] = F::b_word;
        hind[2 * c] = hind[2 * c + 1] = 1.0;
    }
    uint32_t* din;
    double* dind;
    long long* dt;
    typename F::CW* dout;
    size_t nout = (size_t)warps * 32 * CHAINS * F::NC;
    CHECK(cudaMalloc(&din, sizeof(hin)));
    CHECK(cudaMalloc(&dind, sizeof(hind)));
    CHECK(cudaMalloc(&dt, 2 * warps * sizeof(long long)));
    CHECK(cudaMalloc(&dout, nout * sizeof(typename F::CW)));
    CHECK(cudaMemcpy(din, hin, sizeof(hin), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dind, hind, sizeof(hind), cudaMemcpyHostToDevice));
    std::vector<double> vals;
    std::vector<long long> t(2 * warps);
    std::vector<typename F::CW> out(nout);
    const double want = 2.0 * ITERS * F::inc;
    bool checked = false;
    for (int r = 0; r < g_reps + 1; ++r) {
        k_mma<F, CHAINS, ITERS, SHARED><<<1, warps * 32>>>(din, dind, dt, dout);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(t.data(), dt, t.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        if (!checked) {
            CHECK(cudaMemcpy(out.data(), dout, nout * sizeof(typename F::CW), cudaMemcpyDeviceToHost));
            long bad = 0;
            for (size_t i = 0; i < nout; ++i) {
                double got[2];
                int n = 1;
                if constexpr (F::acc == ACC_F64) got[0] = (double)out[i];
                else if (F::acc == ACC_F32) { float f; uint32_t u = (uint32_t)out[i]; memcpy(&f, &u, 4); got[0] = f; }
                else if (F::acc == ACC_F16) {
                    got[0] = f16_val((uint16_t)((uint32_t)out[i] & 0xFFFF));
                    got[1] = f16_val((uint16_t)((uint32_t)out[i] >> 16));
                    n = 2;
                } else got[0] = (int32_t)(uint32_t)out[i];
                for (int j = 0; j < n; ++j)
                    if (got[j] != want) ++bad;
            }
            if (bad) {
                char msg[128];
                snprintf(msg, sizeof msg, "%ld accumulator elements differ from %.0f", bad, want);
                fail(F::name, msg);
            }
            checked = true;
        }
        if (r == 0) continue;  // warm-up launch
        if (latency) {
            vals.push_back(((double)(t[1] - t[0]) - g_clock_overhead) / ITERS);
        } else {
            long long lo = t[0], hi = t[1];
            for (int w = 1; w < warps; ++w) {
                lo = std::min(lo, t[2 * w]);
                hi = std::max(hi, t[2 * w + 1]);
            }
            double fma = (double)warps * ITERS * CHAINS * F::M * F::N * F::K;
            vals.push_back(fma / (double)(hi - lo));
        }
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dind));
    CHECK(cudaFree(dt));
    CHECK(cudaFree(dout));
    return median(vals);
}

template <class F>
static void bench() {
    emit(F::name, "dep_latency", measure<F, 1, 256>(1, true), "cycles");
    const double mnk = (double)F::M * F::N * F::K;
    double t4 = measure<F, 8, 32>(4, false);
    emit(F::name, "fma_per_clk_sm_4w_ilp8", t4, "fma/clk/SM");
    emit(F::name, "cycles_per_mma_subcore_4w_ilp8", 4 * mnk / t4, "cycles");
    double t16 = measure<F, 4, 64>(16, false);
    emit(F::name, "fma_per_clk_sm_16w_ilp4", t16, "fma/clk/SM");
    emit(F::name, "cycles_per_mma_subcore_16w_ilp4", 4 * mnk / t16, "cycles");
    // Two warps per sub-core (as in a 2-CTA GEMM), and the operand-reuse question: the same
    // counts with every chain on registers of its own.
    double t8 = measure<F, 4, 64>(8, false);
    emit(F::name, "cycles_per_mma_subcore_8w_ilp4", 4 * mnk / t8, "cycles");
    double d4 = measure<F, 8, 32, false>(4, false);
    emit(F::name, "cycles_per_mma_subcore_4w_ilp8_distinct", 4 * mnk / d4, "cycles");
    double d8 = measure<F, 4, 64, false>(8, false);
    emit(F::name, "cycles_per_mma_subcore_8w_ilp4_distinct", 4 * mnk / d8, "cycles");
    double d16 = measure<F, 4, 64, false>(16, false);
    emit(F::name, "cycles_per_mma_subcore_16w_ilp4_distinct", 4 * mnk / d16, "cycles");
}

int main(int argc, char** argv) {
    parse_args(argc, argv, "mma_bench");
    print_device_header();
    measure_clock_overhead(true);
    bench<f16_f32_m16n8k16>();
    bench<f16_f16_m16n8k16>();
    bench<f16_f32_m16n8k8>();
    bench<bf16_f32_m16n8k16>();
    bench<tf32_f32_m16n8k8>();
    bench<tf32_f32_m16n8k4>();
    bench<f64_m8n8k4>();
    bench<s8_s32_m16n8k32>();
    bench<s8_s32_sat_m16n8k32>();
    bench<s8_s32_m16n8k16>();
    bench<u8s8_s32_m16n8k32>();
    bench<s4_s32_m16n8k64>();
    bench<u4_s32_m16n8k64>();
    bench<b1_xor_m16n8k256>();
    bench<b1_and_m16n8k256>();
#ifndef MMA_BENCH_NO_SP
    bench<sp_f16_f32_m16n8k32>();
#endif
    return finish();
}
