// gemm_pipelined: FP16 tensor-core GEMM in the style of the Ampere multistage kernels
// (C = A * B, A row-major M x K, B column-major K x N stored as N rows of K, C row-major f32).
//  - CTA tile 128x128x32, 4 warps in 2x2, warp tile 64x64 = 4x8 mma.m16n8k16 tiles
//  - global -> shared with cp.async.cg 16-byte copies, 4-stage ring in dynamic shared memory
//  - shared layout: each 128x32 f16 tile is 128 rows of four 16-byte chunks; chunk c of row r lives
//    at chunk c ^ ((r >> 1) & 3), so the eight 16-byte rows one ldmatrix 8x8 matrix reads (and the
//    eight rows one warp's cp.async writes) fall in eight different bank groups (no conflicts)
//  - fragments with ldmatrix.sync.aligned.m8n8.x4, math with mma.sync.aligned.m16n8k16.row.col
//    .f32.f16.f16.f32
// Three kernels: two pipelines over the same tile code, and a tuned one:
//  1. multistage: cp.async.commit_group per stage, cp.async.wait_group STAGES-2 + __syncthreads
//  2. mbarrier: a "full" and an "empty" mbarrier per stage; producers signal full with
//     cp.async.mbarrier.arrive.noinc, consumers arrive on empty after their last ldmatrix of the
//     stage, and a stage is refilled only after its empty phase completed (no __syncthreads in the
//     main loop). sm_80 has no mbarrier.try_wait, so waits spin on mbarrier.test_wait.parity.
//  3. tuned (gemm_tuned): the same tiles, stages and swizzle as multistage, scheduled for the tensor
//     pipe: shared-memory addresses computed once before the main loop (immediate offsets in the
//     ldmatrix / cp.async operands; 55 non-mma PTX instructions per 64 mma in the loop instead of
//     215), fragments double-buffered in registers and loaded in parts of two ldmatrix between the
//     mma rows, one cp.async after each mma row, one barrier per k-tile between its two k16 steps,
//     and an epilogue that stages C through shared memory for 16-byte coalesced stores.
// Inputs are multiples of 1/8 in [-1, 7/8]: every product is a multiple of 1/64 and every partial
// sum stays below 2^24 / 64 in magnitude for K <= 2^14, so f32 accumulation is exact in any order
// and the result must equal the CPU reference bit for bit.
//
// Usage: gemm_pipelined [M N K] [--no-check] [--time] [--variant multistage|mbarrier|both|tuned|all]
//   default 256 256 256, all three variants, full check. M, N multiples of 128; K a multiple of
//   32; each at most 16384. `both` is multistage and mbarrier.
//   --no-check skips the CPU reference (for large sizes); otherwise sizes above 2^27 FMA check a
//   fixed sample of 4096 entries. --time adds cudaEvent timings (10 launches after a warm-up).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <utility>
#include <type_traits>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            printf("gemm_pipelined: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static uint32_t g_lcg = 20250601u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4, THREADS = 128;
constexpr int WM = 64, WN = 64;                     // warp tile
constexpr int MT = WM / 16, NT = WN / 8;            // mma tiles per warp: 4 x 8
constexpr int TILE_HALVES = BM * BK;                // one operand tile of one stage (A and B alike)
constexpr int STAGE_HALVES = 2 * TILE_HALVES;       // A tile then B tile
constexpr int SMEM_BYTES = STAGES * STAGE_HALVES * 2 + 2 * STAGES * 8;  // + full/empty mbarriers

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// Offset in halves of 16-byte chunk `chunk` (0..3) of row `row` in a swizzled 128x32 tile.
__device__ __forceinline__ int swz(int row, int chunk) { return row * BK + ((chunk ^ ((row >> 1) & 3)) << 3); }

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(smem)), "l"(gmem));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
    asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_cp_async_arrive(uint64_t* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
    asm volatile(
        "{\n .reg .pred done;\n"
        "WAIT_%=:\n"
        " mbarrier.test_wait.parity.shared.b64 done, [%0], %1;\n"
        " @!done bra WAIT_%=;\n}\n" ::"r"(smem_u32(bar)),
        "r"(parity)
        : "memory");
}

// Issues the cp.async copies of k-tile `kt` into stage buffer `s` (A then B): 512 chunks per
// operand, four per thread; a warp covers eight whole 64-byte rows per copy.
__device__ __forceinline__ void load_stage(__half* s, const __half* A, const __half* B, int K, int m0, int n0,
                                           int kt) {
    const int k0 = kt * BK;
#pragma unroll
    for (int i = 0; i < BM * BK / 8 / THREADS; ++i) {
        int idx = threadIdx.x + i * THREADS, row = idx >> 2, chunk = idx & 3;
        cp_async16(s + swz(row, chunk), A + (size_t)(m0 + row) * K + k0 + chunk * 8);
        cp_async16(s + TILE_HALVES + swz(row, chunk), B + (size_t)(n0 + row) * K + k0 + chunk * 8);
    }
}

// One k-tile of the warp's 64x64 tile: two k16 steps of 4 A fragments, 8 B fragments, 32 mma.
__device__ __forceinline__ void compute_stage(const __half* s, float (&acc)[MT][NT][4], int wm, int wn, int lane) {
    const __half* As = s;
    const __half* Bs = s + TILE_HALVES;
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
        unsigned a[MT][4], b[NT / 2][4];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)  // matrices: rows 0-7/8-15 x k 0-7/8-15 = a0..a3
            ldmatrix_x4(a[mi], As + swz(wm * WM + mi * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
        for (int nj = 0; nj < NT / 2; ++nj)  // matrices: (n 0-7, k lo), (n 0-7, k hi), (n 8-15, k lo), (n 8-15, k hi)
            ldmatrix_x4(b[nj], Bs + swz(wn * WN + nj * 16 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)));
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
            for (int ni = 0; ni < NT; ++ni)
                mma_16816(acc[mi][ni], a[mi], b[ni / 2][(ni & 1) * 2], b[ni / 2][(ni & 1) * 2 + 1]);
    }
}

__device__ __forceinline__ void zero_acc(float (&acc)[MT][NT][4]) {
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.f;
}

__device__ __forceinline__ void store_c(float* C, int N, const float (&acc)[MT][NT][4], int m0, int n0, int wm,
                                        int wn, int lane) {
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni) {
            int r = m0 + wm * WM + mi * 16 + g, c = n0 + wn * WN + ni * 8 + 2 * t;
            *reinterpret_cast<float2*>(C + (size_t)r * N + c) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<float2*>(C + (size_t)(r + 8) * N + c) = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
        }
}

__global__ void __launch_bounds__(THREADS) gemm_multistage(const __half* __restrict__ A, const __half* __restrict__ B,
                                                           float* __restrict__ C, int M, int N, int K) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __half* smem = reinterpret_cast<__half*>(smem_raw);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wm = warp >> 1, wn = warp & 1;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, KT = K / BK;
    float acc[MT][NT][4];
    zero_acc(acc);

    // Prologue: STAGES-1 k-tiles in flight, one commit group each (empty groups past the end keep
    // the group count per iteration constant, so wait_group STAGES-2 always means "k-tile kt landed").
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) load_stage(smem + s * STAGE_HALVES, A, B, K, m0, n0, s);
        asm volatile("cp.async.commit_group;\n" ::);
    }
    for (int kt = 0; kt < KT; ++kt) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        // Makes every thread's copies of k-tile kt visible, and tells every thread that all warps
        // are done with k-tile kt-1, whose buffer the next load overwrites.
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < KT) load_stage(smem + (next % STAGES) * STAGE_HALVES, A, B, K, m0, n0, next);
        asm volatile("cp.async.commit_group;\n" ::);
        compute_stage(smem + (kt % STAGES) * STAGE_HALVES, acc, wm, wn, lane);
    }
    asm volatile("cp.async.wait_all;\n" ::);
    store_c(C, N, acc, m0, n0, wm, wn, lane);
}

__global__ void __launch_bounds__(THREADS) gemm_mbarrier(const __half* __restrict__ A, const __half* __restrict__ B,
                                                         float* __restrict__ C, int M, int N, int K) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __half* smem = reinterpret_cast<__half*>(smem_raw);
    uint64_t* full = reinterpret_cast<uint64_t*>(smem_raw + STAGES * STAGE_HALVES * 2);
    uint64_t* empty = full + STAGES;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wm = warp >> 1, wn = warp & 1;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, KT = K / BK;
    if (threadIdx.x == 0)
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], THREADS);   // one noinc arrival per thread per fill
            mbar_init(&empty[s], THREADS);  // one arrival per thread per consumption
        }
    __syncthreads();
    float acc[MT][NT][4];
    zero_acc(acc);

    // k-tile t goes to stage t % STAGES as that stage's fill number t / STAGES, which completes the
    // full barrier's phase of that number; consumption number n completes the empty barrier's phase n.
    for (int s = 0; s < STAGES - 1 && s < KT; ++s) {
        load_stage(smem + s * STAGE_HALVES, A, B, K, m0, n0, s);
        mbar_cp_async_arrive(&full[s]);
    }
    for (int kt = 0; kt < KT; ++kt) {
        int next = kt + STAGES - 1;
        if (next < KT) {
            int s = next % STAGES;
            if (kt >= 1) mbar_wait(&empty[s], ((kt - 1) / STAGES) & 1);  // stage s held k-tile kt-1
            load_stage(smem + s * STAGE_HALVES, A, B, K, m0, n0, next);
            mbar_cp_async_arrive(&full[s]);
        }
        int s = kt % STAGES;
        mbar_wait(&full[s], (kt / STAGES) & 1);
        compute_stage(smem + s * STAGE_HALVES, acc, wm, wn, lane);
        mbar_arrive(&empty[s]);
    }
    store_c(C, N, acc, m0, n0, wm, wn, lane);
}

// ---------------------------------------------------------------------------------------------
// tuned: the same CTA and warp tiles, scheduled for the tensor pipe. Every shared-memory address
// the main loop uses is computed once: a thread's ldmatrix row address per k16 step (the swizzle
// depends only on the row's low three bits, so fragment mi / nj is that address plus an immediate)
// and its cp.async destination (copy i is its first one plus an immediate); the stage is one
// register offset that rotates per k-tile, and each global source pointer advances by BK halves
// per k-tile (it stops at the last k-tile, so the copies past the end re-read it into a stage
// nobody reads, and no branch is needed). Fragments are double-buffered in registers: step ks+1's
// ldmatrix are issued before step ks's mma, and the next k-tile's first step is loaded right after
// the k-tile barrier, in the middle of the last step's mma. The cp.async copies of the next stage
// are spread between the mma rows instead of issued in one burst after the barrier.
namespace tn {
#ifndef TUNED_BK
#define TUNED_BK 32
#endif
#ifndef TUNED_STAGES
#define TUNED_STAGES 4
#endif
constexpr int BK = TUNED_BK, STAGES = TUNED_STAGES;
constexpr int CHUNKS = BK / 8;                  // 16-byte chunks per tile row (4 or 8)
constexpr int ROW_BYTES = BK * 2, TILE_BYTES = BM * ROW_BYTES, STAGE_BYTES = 2 * TILE_BYTES;
constexpr int RING_BYTES = STAGES * STAGE_BYTES, KSTEPS = BK / 16;
constexpr int SMEM_BYTES = RING_BYTES > BM * BN * 4 ? RING_BYTES : BM * BN * 4;  // the epilogue stages C
constexpr int COPIES = BM * CHUNKS / THREADS;   // cp.async per operand per thread and k-tile
constexpr int COPY_ROWS = THREADS / CHUNKS;     // rows between a thread's successive copies
static_assert(BM == BN && (CHUNKS == 4 || CHUNKS == 8) && KSTEPS % 2 == 0 && STAGES >= 2, "tuned tile");
}  // namespace tn

template <class F, int... I>
__device__ __forceinline__ void unroll_impl(F& f, std::integer_sequence<int, I...>) {
    (f(std::integral_constant<int, I>{}), ...);
}
// f(std::integral_constant<int, i>) for i = 0..N-1: the index is a constant expression (asm "n").
template <int N, class F>
__device__ __forceinline__ void unroll(F&& f) { unroll_impl(f, std::make_integer_sequence<int, N>{}); }

// Byte offset of 16-byte chunk `chunk` of row `row` in a swizzled BM x BK tile: 64-byte rows (BK 32)
// as in swz above, 128-byte rows (BK 64) with chunk ^ (row & 7). Eight consecutive rows of one
// chunk column fall in eight different bank groups either way.
__device__ __forceinline__ unsigned tn_swz(int row, int chunk) {
    return tn::CHUNKS == 4 ? row * tn::ROW_BYTES + ((chunk ^ ((row >> 1) & 3)) << 4)
                           : row * tn::ROW_BYTES + ((chunk ^ (row & 7)) << 4);
}
template <int OFF>
__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4+%5];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr), "n"(OFF));
}
template <int OFF>
__device__ __forceinline__ void cp_async16_imm(unsigned dst, const char* src) {
    asm volatile("cp.async.cg.shared.global [%0+%2], [%1], 16;\n" ::"r"(dst), "l"(src), "n"(OFF));
}

__global__ void __launch_bounds__(THREADS, 2) gemm_tuned(const __half* __restrict__ A, const __half* __restrict__ B,
                                                        float* __restrict__ C, int M, int N, int K) {
    constexpr int BK = tn::BK, STAGES = tn::STAGES, ROW_BYTES = tn::ROW_BYTES, TILE_BYTES = tn::TILE_BYTES,
                  STAGE_BYTES = tn::STAGE_BYTES, RING_BYTES = tn::RING_BYTES, KSTEPS = tn::KSTEPS,
                  COPIES = tn::COPIES, COPY_ROWS = tn::COPY_ROWS, CHUNKS = tn::CHUNKS;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wm = warp >> 1, wn = warp & 1;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, KT = K / BK;
    const unsigned sbase = smem_u32(smem_raw);

    // ldmatrix row addresses in stage 0, per k16 step (A: matrices rows 0-7/8-15 x k lo/hi;
    // B: (n 0-7, k lo), (n 0-7, k hi), (n 8-15, k lo), (n 8-15, k hi)).
    unsigned a_ld[KSTEPS], b_ld[KSTEPS];
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
        a_ld[ks] = sbase + tn_swz(wm * WM + (lane & 15), ks * 2 + (lane >> 4));
        b_ld[ks] = sbase + TILE_BYTES + tn_swz(wn * WN + (lane & 7) + ((lane >> 4) << 3), ks * 2 + ((lane >> 3) & 1));
    }
    // Copies: thread tid moves chunk tid % CHUNKS of rows tid / CHUNKS + i * COPY_ROWS of each operand.
    const int crow = tid / CHUNKS, cchunk = tid % CHUNKS;
    const unsigned cp_dst = sbase + tn_swz(crow, cchunk);
    const char* ga[COPIES];
    const char* gb[COPIES];
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
        ga[i] = reinterpret_cast<const char*>(A + (size_t)(m0 + crow + i * COPY_ROWS) * K + cchunk * 8);
        gb[i] = reinterpret_cast<const char*>(B + (size_t)(n0 + crow + i * COPY_ROWS) * K + cchunk * 8);
    }
    // Copy i of the A / B half of the k-tile the source pointers point at.
    auto copy_a = [&](auto I, unsigned dst) {
        constexpr int i = decltype(I)::value;
        cp_async16_imm<i * COPY_ROWS * ROW_BYTES>(dst, ga[i]);
    };
    auto copy_b = [&](auto I, unsigned dst) {
        constexpr int i = decltype(I)::value;
        cp_async16_imm<TILE_BYTES + i * COPY_ROWS * ROW_BYTES>(dst, gb[i]);
    };
    // To the next k-tile, or stay on the last one (copies past the end re-read it into a stage
    // that is never read).
    auto advance = [&](const char* (&g)[COPIES], bool more) {
        const int step = more ? ROW_BYTES : 0;
#pragma unroll
        for (int i = 0; i < COPIES; ++i) g[i] += step;
    };

    float acc[MT][NT][4];
    zero_acc(acc);
    // Prologue: k-tiles 0..STAGES-2 into stages 0..STAGES-2, one commit group each, and the A half
    // of k-tile STAGES-1 (its B half follows in the first k-tile, in the same group).
    unroll<STAGES - 1>([&](auto S) {
        constexpr int s = decltype(S)::value;
        unroll<COPIES>([&](auto I) { copy_a(I, cp_dst + s * STAGE_BYTES); });
        unroll<COPIES>([&](auto I) { copy_b(I, cp_dst + s * STAGE_BYTES); });
        asm volatile("cp.async.commit_group;\n" ::);
        advance(ga, s + 1 < KT);
        advance(gb, s + 1 < KT);
    });
    unroll<COPIES>([&](auto I) { copy_a(I, cp_dst + (STAGES - 1) * STAGE_BYTES); });
    advance(ga, STAGES < KT);
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
    __syncthreads();

    // Fragments of two k16 steps; those of one step are loaded in MT parts of two ldmatrix (B
    // fragments first: the first mma row needs all of them), part p before mma row p of the
    // previous step, so that few loads are in flight at once and each part has a row of mma to hide under.
    unsigned fa[2][MT][4], fb[2][NT / 2][4];
    auto load_part = [&](auto KS, auto P, unsigned stage_off) {
        constexpr int ks = decltype(KS)::value, buf = ks & 1, p = decltype(P)::value;
        unroll<2>([&](auto Q) {
            constexpr int f = 2 * p + decltype(Q)::value;  // 0..3: B fragments, 4..7: A fragments
            if constexpr (f < NT / 2) ldsm_x4<f * 16 * ROW_BYTES>(fb[buf][f], b_ld[ks] + stage_off);
            else ldsm_x4<(f - NT / 2) * 16 * ROW_BYTES>(fa[buf][f - NT / 2], a_ld[ks] + stage_off);
        });
    };
    static_assert(MT == 4 && NT / 2 == 4 && KSTEPS == 2 && COPIES == MT, "tuned schedule: BK 32, 64x64 warp tile");
    unroll<MT>([&](auto P) { load_part(std::integral_constant<int, 0>{}, P, 0u); });
    auto mma_row = [&](auto KS, auto MI) {
        constexpr int buf = decltype(KS)::value & 1, mi = decltype(MI)::value;
#pragma unroll
        for (int ni = 0; ni < NT; ++ni)
            mma_16816(acc[mi][ni], fa[buf][mi], fb[buf][ni / 2][(ni & 1) * 2], fb[buf][ni / 2][(ni & 1) * 2 + 1]);
    };

    // k-tile kt: step 0 (rows 0-3, each with a part of step 1's fragments and one cp.async of the B
    // half of k-tile kt+STAGES-1 into the stage k-tile kt-1 used), commit, wait until k-tile kt+1 has
    // landed, barrier, step 1 (rows with a part of k-tile kt+1's step-0 fragments and one cp.async
    // of the A half of k-tile kt+STAGES into the stage of k-tile kt). The barrier makes every
    // thread's copies of k-tile kt+1 visible and tells every warp that all are done with the stage of
    // k-tile kt (its last fragments were loaded in step 0), which the copies after it overwrite.
    unsigned rd = 0, prv = (STAGES - 1) * STAGE_BYTES;  // stage offsets of k-tiles kt and kt-1
    for (int kt = 0; kt < KT; ++kt) {
        const unsigned nxt = rd + STAGE_BYTES == RING_BYTES ? 0u : rd + STAGE_BYTES;
        unroll<MT>([&](auto MI) {
            load_part(std::integral_constant<int, 1>{}, MI, rd);
            mma_row(std::integral_constant<int, 0>{}, MI);
            copy_b(MI, cp_dst + prv);
        });
        advance(gb, kt + STAGES < KT);
        asm volatile("cp.async.commit_group;\n" ::);
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        unroll<MT>([&](auto MI) {
            load_part(std::integral_constant<int, 0>{}, MI, nxt);
            mma_row(std::integral_constant<int, 1>{}, MI);
            copy_a(MI, cp_dst + rd);
        });
        advance(ga, kt + STAGES + 1 < KT);
        prv = rd;
        rd = nxt;
    }
    // Epilogue: each warp's 64x64 f32 tile goes through its own 16 KiB of the (now idle) stages, rows
    // of 256 B with 16-byte chunk c of row r at c ^ (r & 7), and leaves as 16-byte stores of two
    // whole 256-byte row segments per instruction (the mma layout would store 8 rows x 32 B).
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();  // every copy landed (also the ones past the end) and every warp done reading
    unsigned char* cw = smem_raw + warp * (WM * WN * 4);
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = mi * 16 + h * 8 + g, chunk = ni * 2 + (t >> 1);
                *reinterpret_cast<float2*>(cw + row * (WN * 4) + ((chunk ^ (row & 7)) << 4) + (t & 1) * 8) =
                    make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
            }
    __syncwarp();
    float* cg = C + (size_t)(m0 + wm * WM) * N + n0 + wn * WN;
#pragma unroll 4
    for (int it = 0; it < WM / 2; ++it) {
        const int row = it * 2 + (lane >> 4), chunk = lane & 15;
        const float4 v = *reinterpret_cast<const float4*>(cw + row * (WN * 4) + ((chunk ^ (row & 7)) << 4));
        *reinterpret_cast<float4*>(cg + (size_t)row * N + chunk * 4) = v;
    }
}

typedef void (*Kernel)(const __half*, const __half*, float*, int, int, int);

int main(int argc, char** argv) {
    int M = 256, N = 256, K = 256, npos = 0;
    bool check = true, timed = false, run_ms = true, run_mb = true, run_tn = true;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--no-check")) check = false;
        else if (!strcmp(argv[i], "--time")) timed = true;
        else if (!strcmp(argv[i], "--variant") && i + 1 < argc) {
            const char* v = argv[++i];
            run_ms = !strcmp(v, "multistage") || !strcmp(v, "both") || !strcmp(v, "all");
            run_mb = !strcmp(v, "mbarrier") || !strcmp(v, "both") || !strcmp(v, "all");
            run_tn = !strcmp(v, "tuned") || !strcmp(v, "all");
            if (!run_ms && !run_mb && !run_tn) { printf("gemm_pipelined: FAIL (unknown variant %s)\n", v); return 1; }
        } else if (npos < 3 && argv[i][0] >= '0' && argv[i][0] <= '9') {
            int v = atoi(argv[i]);
            (npos == 0 ? M : npos == 1 ? N : K) = v;
            ++npos;
        } else {
            printf("usage: gemm_pipelined [M N K] [--no-check] [--time] [--variant multistage|mbarrier|both|tuned|all]\n");
            return 1;
        }
    }
    if (npos != 0 && npos != 3) { printf("gemm_pipelined: FAIL (give all of M N K)\n"); return 1; }
    if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % BN || K % BK || M > 16384 || N > 16384 || K > 16384) {
        printf("gemm_pipelined: FAIL (M, N must be multiples of %d, K of %d, each in 1..16384)\n", BM, BK);
        return 1;
    }
    if (run_tn && K % tn::BK) {
        printf("gemm_pipelined: FAIL (the tuned variant needs K a multiple of %d)\n", tn::BK);
        return 1;
    }
    printf("gemm_pipelined: M=%d N=%d K=%d, CTA tile %dx%dx%d, %d warps (warp tile %dx%d), %d stages\n", M, N, K,
           BM, BN, BK, THREADS / 32, WM, WN, STAGES);

    std::vector<float> a((size_t)M * K), b((size_t)N * K);  // b is N x K (B column-major)
    for (auto& v : a) v = (float)((int)(lcg_next() >> 28) - 8) / 8.0f;
    for (auto& v : b) v = (float)((int)(lcg_next() >> 28) - 8) / 8.0f;
    std::vector<__half> ah(a.size()), bh(b.size());
    for (size_t i = 0; i < a.size(); ++i) ah[i] = __float2half_rn(a[i]);
    for (size_t i = 0; i < b.size(); ++i) bh[i] = __float2half_rn(b[i]);

    __half *dA, *dB;
    float* dC;
    CHECK(cudaMalloc(&dA, ah.size() * sizeof(__half)));
    CHECK(cudaMalloc(&dB, bh.size() * sizeof(__half)));
    CHECK(cudaMalloc(&dC, (size_t)M * N * sizeof(float)));
    CHECK(cudaMemcpy(dA, ah.data(), ah.size() * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, bh.data(), bh.size() * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaFuncSetAttribute(gemm_multistage, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    CHECK(cudaFuncSetAttribute(gemm_mbarrier, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    CHECK(cudaFuncSetAttribute(gemm_tuned, cudaFuncAttributeMaxDynamicSharedMemorySize, tn::SMEM_BYTES));

    // CPU reference entries: all of C, or a fixed sample for large problems.
    bool full_check = (double)M * N * K <= (double)(1 << 27);
    std::vector<size_t> sample;
    if (check && !full_check)
        for (int i = 0; i < 4096; ++i) sample.push_back((size_t)(lcg_next() % (uint32_t)(M * N)));  // M*N <= 2^28
    auto ref_at = [&](int r, int c) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += (double)a[(size_t)r * K + k] * b[(size_t)c * K + k];
        return s;
    };
    std::vector<double> ref;
    if (check) {
        if (full_check) {
            ref.resize((size_t)M * N);
            for (int r = 0; r < M; ++r)
                for (int c = 0; c < N; ++c) ref[(size_t)r * N + c] = ref_at(r, c);
        } else {
            for (size_t idx : sample) ref.push_back(ref_at((int)(idx / N), (int)(idx % N)));
        }
    }

    bool ok = true;
    std::vector<float> c((size_t)M * N);
    dim3 grid(N / BN, M / BM);
    const char* names[3] = {"multistage", "mbarrier", "tuned"};
    Kernel kernels[3] = {gemm_multistage, gemm_mbarrier, gemm_tuned};
    const int smem[3] = {SMEM_BYTES, SMEM_BYTES, tn::SMEM_BYTES};
    for (int v = 0; v < 3; ++v) {
        if ((v == 0 && !run_ms) || (v == 1 && !run_mb) || (v == 2 && !run_tn)) continue;
        CHECK(cudaMemset(dC, 0xff, (size_t)M * N * sizeof(float)));  // NaN: unwritten entries fail
        kernels[v]<<<grid, THREADS, smem[v]>>>(dA, dB, dC, M, N, K);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
        if (check) {
            long bad = 0;
            double sum = 0;
            size_t n = full_check ? c.size() : sample.size();
            for (size_t i = 0; i < n; ++i) {
                float got = c[full_check ? i : (size_t)sample[i]];
                sum += got;
                if (!((double)got == ref[i])) {
                    if (bad < 5) {
                        size_t idx = full_check ? i : (size_t)sample[i];
                        printf("  %s: C[%zu][%zu] = %.6f, expected %.6f\n", names[v], idx / N, idx % N, got, ref[i]);
                    }
                    ++bad;
                }
            }
            printf("%s: %zu entries checked (%s), %ld wrong, checksum %.6f\n", names[v], n,
                   full_check ? "all" : "sample", bad, sum);
            if (bad) ok = false;
        } else {
            printf("%s: ran (no check)\n", names[v]);
        }
        if (timed) {
            cudaEvent_t e0, e1;
            CHECK(cudaEventCreate(&e0));
            CHECK(cudaEventCreate(&e1));
            const int reps = 10;
            CHECK(cudaEventRecord(e0));
            for (int r = 0; r < reps; ++r) kernels[v]<<<grid, THREADS, smem[v]>>>(dA, dB, dC, M, N, K);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            double t = ms / 1e3 / reps;
            printf("%s: time %.4f ms per GEMM, %.1f TFLOPS\n", names[v], t * 1e3, 2.0 * M * N * K / t / 1e12);
        }
    }
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    if (!ok) {
        printf("gemm_pipelined: FAIL (wrong entries)\n");
        return 1;
    }
    printf("gemm_pipelined: PASS\n");
    return 0;
}
