// tensor_gemm: one small GEMM (D = A * B + C) per tensor-core data type through inline-PTX
// mma.sync, plus the f16 / bf16 / tf32 nvcuda::wmma forms. (The wmma forms for double, 8-bit,
// 4-bit and 1-bit types are in workloads/tensor_wmma.)
//
// A is M x K, row-major; B is K x N, stored column by column (N rows of K: the .col layout); C and
// D are M x N, row-major. Elements narrower than 32 bits are packed into 32-bit words along K,
// element 0 in the least significant bits, so each fragment register is one aligned 32-bit load.
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k*"; groupID g = lane / 4,
// threadID_in_group t = lane % 4, e = elements per 32-bit register):
//   A (M = 16): register r holds row g + 8 * (r % 2), columns t * e + (r / 2) * 4e ... + e - 1
//   A (M = 8, f64): row g, column t
//   B: register r holds column g, rows t * e + r * 4e ... + e - 1
//   C/D (M = 16): element i at row g + 8 * (i / 2), column 2t + i % 2 (f16: register i packs
//   elements 2i and 2i + 1); C/D (M = 8): row g, column 2t + i
// The f16 kernels with f32 and f16 accumulators load their fragments with ldmatrix (x4 for A, x2
// for B) from shared memory instead; the direct kernel runs the f16 form too, as a cross-check of
// the two ways of building a fragment.
//
// Exactness: f16 / bf16 / tf32 inputs are multiples of 1/8 in [-1, 7/8] (exact in all three; tf32
// keeps 10 mantissa bits), C multiples of 1/8 in [-4, 4): every product and partial sum is exact in
// f32. The f16-accumulator case uses integers in [-4, 3] (partial sums stay integers below 2^11,
// exact in f16). f64 uses multiples of 2^-7 (exact sums). Integer and binary results are exact,
// wrapped to s32; .satfinite clamps each mma's result (the CPU clamps after every k-step, as each
// mma is a separate instruction). Everything is compared exactly.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <type_traits>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            printf("tensor_gemm: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static uint32_t g_lcg = 0x7E150Bu;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

// ------------------------------------------------------------------ mma forms
// Each form: shape, elements per A/B register (E; 1 for tf32 and f64), accumulator kind, and mma().
enum AccKind { ACC_F32, ACC_F16, ACC_F64, ACC_S32 };

#define MMA_4424(NAME, SHAPE_M, SHAPE_N, SHAPE_K, ELEMS, ACC, PTX)                                  \
    struct NAME {                                                                                        \
        static constexpr int M = SHAPE_M, N = SHAPE_N, K = SHAPE_K, E = ELEMS, NA = 4, NB = 2, NC = 4;    \
        static constexpr AccKind acc = ACC;                                                              \
        typedef uint32_t AW;                                                                             \
        __device__ static void mma(uint32_t (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {   \
            asm volatile(PTX " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"           \
                         : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));            \
        }                                                                                                \
    };

MMA_4424(F16_F32, 16, 8, 16, 2, ACC_F32, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
MMA_4424(BF16_F32, 16, 8, 16, 2, ACC_F32, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
MMA_4424(TF32_F32, 16, 8, 8, 1, ACC_F32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")
MMA_4424(S8_S32, 16, 8, 32, 4, ACC_S32, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
MMA_4424(S8_S32_SAT, 16, 8, 32, 4, ACC_S32, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32")
MMA_4424(U8S8_S32, 16, 8, 32, 4, ACC_S32, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32")
MMA_4424(S4_S32, 16, 8, 64, 8, ACC_S32, "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32")
MMA_4424(U4_S32, 16, 8, 64, 8, ACC_S32, "mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32")
MMA_4424(B1_XOR, 16, 8, 256, 32, ACC_S32, "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc")
MMA_4424(B1_AND, 16, 8, 256, 32, ACC_S32, "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc")

struct F16_F16 {  // f16 accumulators: two registers of f16x2
    static constexpr int M = 16, N = 8, K = 16, E = 2, NA = 4, NB = 2, NC = 2;
    static constexpr AccKind acc = ACC_F16;
    typedef uint32_t AW;
    __device__ static void mma(uint32_t (&d)[2], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
                     : "+r"(d[0]), "+r"(d[1])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};
struct F64_F64 {
    static constexpr int M = 8, N = 8, K = 4, E = 1, NA = 1, NB = 1, NC = 2;
    static constexpr AccKind acc = ACC_F64;
    typedef double AW;
    __device__ static void mma(double (&d)[2], const double (&a)[1], const double (&b)[1]) {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                     : "+d"(d[0]), "+d"(d[1])
                     : "d"(a[0]), "d"(b[0]));
    }
};

// Accumulator register type: 32-bit words for f32/s32/f16x2 (f32 travels as its bits), f64 as double.
template <class F> struct AccReg { typedef uint32_t T; };
template <> struct AccReg<F64_F64> { typedef double T; };

// One warp per block computes one F::M x F::N tile of D = A * B + C, looping over K.
// A, B: arrays of F::AW words (E elements each, packed along K); C, D: 32-bit words (f16: pairs).
template <class F>
__global__ void mma_direct(const typename F::AW* __restrict__ A, const typename F::AW* __restrict__ B,
                           const typename AccReg<F>::T* __restrict__ C, typename AccReg<F>::T* __restrict__ D, int N,
                           int K) {
    typedef typename AccReg<F>::T R;
    const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const int m0 = blockIdx.y * F::M, n0 = blockIdx.x * F::N, kw = K / F::E;  // words per row
    // Accumulator element i (register i, or pair i for f16) -> (row, column of its first element).
    auto c_row = [&](int i) { return F::M == 8 ? g : (F::acc == ACC_F16 ? g + 8 * i : g + 8 * (i >> 1)); };
    auto c_col = [&](int i) { return F::M == 8 ? 2 * t + i : (F::acc == ACC_F16 ? 2 * t : 2 * t + (i & 1)); };
    // f16 pairs are stored as one 32-bit word per two columns, so a row has N/2 words.
    const int cw = F::acc == ACC_F16 ? N / 2 : N;
    auto c_idx = [&](int i) {
        return (size_t)(m0 + c_row(i)) * cw + (F::acc == ACC_F16 ? (n0 + c_col(i)) / 2 : n0 + c_col(i));
    };
    R d[F::NC];
    for (int i = 0; i < F::NC; ++i) d[i] = C[c_idx(i)];
    for (int k0 = 0; k0 < K; k0 += F::K) {
        typename F::AW a[F::NA], b[F::NB];
        for (int r = 0; r < F::NA; ++r) {
            int row = F::M == 8 ? g : g + 8 * (r & 1);
            int col = F::M == 8 ? t * F::E + r * 4 * F::E : t * F::E + (r >> 1) * 4 * F::E;
            a[r] = A[(size_t)(m0 + row) * kw + (k0 + col) / F::E];
        }
        for (int r = 0; r < F::NB; ++r) b[r] = B[(size_t)(n0 + g) * kw + (k0 + t * F::E + r * 4 * F::E) / F::E];
        F::mma(d, a, b);
    }
    for (int i = 0; i < F::NC; ++i) D[c_idx(i)] = d[i];
}

// f16 through shared memory and ldmatrix: a 16x16 A tile, an 8x16 B tile ([n][k]) per k-step.
// ldmatrix.x4: lanes 0-15 give the rows of A (k 0-7), lanes 16-31 the same rows at k 8-15, which
// is a0..a3 of the fragment; ldmatrix.x2: lanes 0-7 the B rows at k 0-7, lanes 8-15 at k 8-15.
template <bool F16ACC>
__global__ void mma_f16_ldmatrix(const __half* __restrict__ A, const __half* __restrict__ B, const uint32_t* C,
                                 uint32_t* D, int N, int K) {
    __shared__ __align__(16) __half As[16][16 + 8];  // padded rows: 48 bytes, 16-byte aligned
    __shared__ __align__(16) __half Bs[8][16 + 8];
    const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
    const int nc = F16ACC ? 2 : 4, cw = F16ACC ? N / 2 : N;
    uint32_t d[4];
    for (int i = 0; i < nc; ++i) {
        int row = F16ACC ? g + 8 * i : g + 8 * (i >> 1), col = F16ACC ? 2 * t : 2 * t + (i & 1);
        d[i] = C[(size_t)(m0 + row) * cw + (F16ACC ? (n0 + col) / 2 : n0 + col)];
    }
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = lane; e < 256; e += 32) As[e / 16][e % 16] = A[(size_t)(m0 + e / 16) * K + k0 + e % 16];
        for (int e = lane; e < 128; e += 32) Bs[e / 16][e % 16] = B[(size_t)(n0 + e / 16) * K + k0 + e % 16];
        __syncwarp();
        uint32_t a[4], b[2];
        unsigned pa = (unsigned)__cvta_generic_to_shared(&As[lane & 15][(lane >> 4) * 8]);
        unsigned pb = (unsigned)__cvta_generic_to_shared(&Bs[lane & 7][((lane >> 3) & 1) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
        if (F16ACC) {
            uint32_t (&d2)[2] = *reinterpret_cast<uint32_t (*)[2]>(d);
            F16_F16::mma(d2, a, b);
        } else {
            F16_F32::mma(d, a, b);
        }
        __syncwarp();
    }
    for (int i = 0; i < nc; ++i) {
        int row = F16ACC ? g + 8 * i : g + 8 * (i >> 1), col = F16ACC ? 2 * t : 2 * t + (i & 1);
        D[(size_t)(m0 + row) * cw + (F16ACC ? (n0 + col) / 2 : n0 + col)] = d[i];
    }
}

// nvcuda::wmma: one warp per block, one WM x WN output tile, A row-major, B column-major.
template <typename FragT, typename LoadT, typename AccT, int WM, int WN, int WK>
__global__ void wmma_kernel(const LoadT* __restrict__ A, const LoadT* __restrict__ B, const AccT* __restrict__ C,
                            AccT* __restrict__ D, int N, int K) {
    const int m0 = blockIdx.y * WM, n0 = blockIdx.x * WN;
    wmma::fragment<wmma::accumulator, WM, WN, WK, AccT> acc;
    wmma::load_matrix_sync(acc, C + (size_t)m0 * N + n0, N, wmma::mem_row_major);
    for (int k0 = 0; k0 < K; k0 += WK) {
        wmma::fragment<wmma::matrix_a, WM, WN, WK, FragT, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, WM, WN, WK, FragT, wmma::col_major> b;
        wmma::load_matrix_sync(a, A + (size_t)m0 * K + k0, K);
        wmma::load_matrix_sync(b, B + (size_t)n0 * K + k0, K);
#if __CUDA_ARCH__ >= 800
        if constexpr (std::is_same<FragT, wmma::precision::tf32>::value) {
            for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(a.x[i]);
            for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(b.x[i]);
        }
#endif
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(D + (size_t)m0 * N + n0, acc, N, wmma::mem_row_major);
}

// ------------------------------------------------------------------ host side
#include "tensor_host.h"

enum Path { DIRECT, LDMATRIX };

// Runs one mma form on an M x N x K problem: random inputs, kernel, CPU reference, exact compare.
// `binop`: 0 none, 1 xor.popc, 2 and.popc. `sat_c`: C near the s32 limits to exercise .satfinite.
template <class F>
static void run_mma(const char* name, Elem ea, Elem eb, Path path = DIRECT, int binop = 0, bool sat_c = false,
                    bool small_ints = false) {
    const int M = 2 * F::M, N = 2 * F::N, K = 4 * F::K;
    std::vector<uint32_t> ra((size_t)M * K), rb((size_t)N * K);
    for (auto& v : ra) v = rand_elem(ea, small_ints);
    for (auto& v : rb) v = rand_elem(eb, small_ints);
    // C and the reference, in double (exact for every kind used here), one per output element.
    std::vector<double> c((size_t)M * N);
    for (size_t i = 0; i < c.size(); ++i) {
        int q = (int)(lcg_next() >> 28) - 8;
        if (F::acc == ACC_S32) {
            int base = (int)(lcg_next() % 200001) - 100000;
            if (sat_c) base = i % 3 == 0 ? 2147483647 - (int)(lcg_next() % 1000)
                              : i % 3 == 1 ? -2147483647 - 1 + (int)(lcg_next() % 1000) : base;
            c[i] = base;
        } else if (F::acc == ACC_F16) {
            c[i] = q;
        } else if (F::acc == ACC_F64) {
            c[i] = ((int)(lcg_next() % 2048) - 1024) / 1024.0;
        } else {
            c[i] = q / 2.0;
        }
    }
    std::vector<double> ref(c);
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double acc = c[(size_t)m * N + n];
            for (int k0 = 0; k0 < K; k0 += F::K) {  // one mma per k-step
                double s = 0;
                for (int k = k0; k < k0 + F::K; ++k) {
                    uint32_t x = ra[(size_t)m * K + k], y = rb[(size_t)n * K + k];
                    if (binop == 1) s += x ^ y;
                    else if (binop == 2) s += x & y;
                    else s += elem_val(ea, x) * elem_val(eb, y);
                }
                acc += s;
                if (F::acc == ACC_S32) {
                    if (sat_c) acc = acc > 2147483647.0 ? 2147483647.0 : acc < -2147483648.0 ? -2147483648.0 : acc;
                    else acc = (double)(int32_t)(uint32_t)(int64_t)acc;  // wraps (never happens here)
                }
            }
            ref[(size_t)m * N + n] = acc;
        }
    // C in the accumulator's register format.
    typedef typename AccReg<F>::T R;
    std::vector<R> cw(F::acc == ACC_F16 ? c.size() / 2 : c.size());
    for (size_t i = 0; i < cw.size(); ++i) {
        if constexpr (F::acc == ACC_F64) cw[i] = c[i];
        else if (F::acc == ACC_F16) cw[i] = (R)(f16_bits(c[2 * i]) | (uint32_t)f16_bits(c[2 * i + 1]) << 16);
        else if (F::acc == ACC_F32) cw[i] = (R)f32_bits((float)c[i]);
        else cw[i] = (R)(uint32_t)(int32_t)c[i];
    }
    R* dC = to_dev(cw);
    R* dD;
    CHECK(cudaMalloc(&dD, cw.size() * sizeof(R)));
    CHECK(cudaMemset(dD, 0xff, cw.size() * sizeof(R)));
    dim3 grid(N / F::N, M / F::M);
    void* dA;
    void* dB;
    if constexpr (F::acc == ACC_F64) {
        std::vector<double> a(ra.size()), b(rb.size());
        // The raw elements are bytes (EL_S8): f64 takes (byte - 128) / 128, and its own reference.
        for (size_t i = 0; i < ra.size(); ++i) a[i] = ((int)ra[i] - 128) / 128.0;
        for (size_t i = 0; i < rb.size(); ++i) b[i] = ((int)rb[i] - 128) / 128.0;
        for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) {
                double acc = c[(size_t)m * N + n];
                for (int k = 0; k < K; ++k) acc += a[(size_t)m * K + k] * b[(size_t)n * K + k];
                ref[(size_t)m * N + n] = acc;
            }
        dA = to_dev(a);
        dB = to_dev(b);
        mma_direct<F><<<grid, 32>>>((const double*)dA, (const double*)dB, dC, dD, N, K);
    } else {
        std::vector<uint32_t> pa = pack(ra, ea), pb = pack(rb, eb);
        dA = to_dev(pa);
        dB = to_dev(pb);
        if (path == LDMATRIX)
            mma_f16_ldmatrix<F::acc == ACC_F16><<<grid, 32>>>((const __half*)dA, (const __half*)dB, (const uint32_t*)dC,
                                                              (uint32_t*)dD, N, K);
        else
            mma_direct<F><<<grid, 32>>>((const uint32_t*)dA, (const uint32_t*)dB, dC, dD, N, K);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<R> out(cw.size());
    CHECK(cudaMemcpy(out.data(), dD, out.size() * sizeof(R), cudaMemcpyDeviceToHost));
    std::vector<double> got(ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
        if constexpr (F::acc == ACC_F64) got[i] = out[i];
        else if (F::acc == ACC_F16) got[i] = f16_val((uint16_t)(out[i / 2] >> (16 * (i % 2))));
        else if (F::acc == ACC_F32) got[i] = f32_val((uint32_t)out[i]);
        else got[i] = (int32_t)(uint32_t)out[i];
    }
    check_results(name, M, N, K, got, ref);
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dD));
}

// wmma: FragT is the fragment element type, LoadT what memory holds, AccT the accumulator.
template <typename FragT, typename LoadT, typename AccT, int WM, int WN, int WK>
static void run_wmma(const char* name, Elem e, bool int_inputs) {
    const int M = 2 * WM, N = 2 * WN, K = 4 * WK;
    std::vector<uint32_t> ra((size_t)M * K), rb((size_t)N * K);
    for (auto& v : ra) v = rand_elem(e, int_inputs);
    for (auto& v : rb) v = rand_elem(e, int_inputs);
    std::vector<LoadT> a(ra.size()), b(rb.size());
    auto cvt = [&](uint32_t raw) {
        LoadT x;
        if constexpr (sizeof(LoadT) == 4) { float f = f32_val(raw); memcpy(&x, &f, 4); }
        else { uint16_t h = (uint16_t)raw; memcpy(&x, &h, 2); }
        return x;
    };
    for (size_t i = 0; i < ra.size(); ++i) a[i] = cvt(ra[i]);
    for (size_t i = 0; i < rb.size(); ++i) b[i] = cvt(rb[i]);
    std::vector<AccT> c((size_t)M * N);
    std::vector<double> ref(c.size());
    for (size_t i = 0; i < c.size(); ++i) {
        int q = (int)(lcg_next() >> 28) - 8;
        double v = int_inputs ? q : q / 2.0;
        if constexpr (sizeof(AccT) == 2) { uint16_t h = f16_bits(v); memcpy(&c[i], &h, 2); }
        else c[i] = (AccT)v;
        ref[i] = v;
    }
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n)
            for (int k = 0; k < K; ++k)
                ref[(size_t)m * N + n] += elem_val(e, ra[(size_t)m * K + k]) * elem_val(e, rb[(size_t)n * K + k]);
    LoadT* dA = to_dev(a);
    LoadT* dB = to_dev(b);
    AccT* dC = to_dev(c);
    AccT* dD;
    CHECK(cudaMalloc(&dD, c.size() * sizeof(AccT)));
    CHECK(cudaMemset(dD, 0xff, c.size() * sizeof(AccT)));
    wmma_kernel<FragT, LoadT, AccT, WM, WN, WK><<<dim3(N / WN, M / WM), 32>>>(dA, dB, dC, dD, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<AccT> out(c.size());
    CHECK(cudaMemcpy(out.data(), dD, out.size() * sizeof(AccT), cudaMemcpyDeviceToHost));
    std::vector<double> got(out.size());
    for (size_t i = 0; i < out.size(); ++i) {
        if constexpr (sizeof(AccT) == 2) { uint16_t h; memcpy(&h, &out[i], 2); got[i] = f16_val(h); }
        else got[i] = out[i];
    }
    check_results(name, M, N, K, got, ref);
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dD));
}

int main() {
    run_mma<F16_F32>("mma m16n8k16 f32.f16.f16.f32 (ldmatrix)", EL_F16, EL_F16, LDMATRIX);
    run_mma<F16_F16>("mma m16n8k16 f16.f16.f16.f16 (ldmatrix)", EL_F16, EL_F16, LDMATRIX, 0, false, true);
    run_mma<F16_F32>("mma m16n8k16 f32.f16.f16.f32", EL_F16, EL_F16);
    run_mma<F16_F16>("mma m16n8k16 f16.f16.f16.f16", EL_F16, EL_F16, DIRECT, 0, false, true);
    run_mma<BF16_F32>("mma m16n8k16 f32.bf16.bf16.f32", EL_BF16, EL_BF16);
    run_mma<TF32_F32>("mma m16n8k8 f32.tf32.tf32.f32", EL_TF32, EL_TF32);
    run_mma<F64_F64>("mma m8n8k4 f64.f64.f64.f64", EL_S8, EL_S8);
    run_mma<S8_S32>("mma m16n8k32 s32.s8.s8.s32", EL_S8, EL_S8);
    run_mma<S8_S32_SAT>("mma m16n8k32 satfinite s32.s8.s8.s32", EL_S8, EL_S8, DIRECT, 0, true);
    run_mma<U8S8_S32>("mma m16n8k32 s32.u8.s8.s32", EL_U8, EL_S8);
    run_mma<S4_S32>("mma m16n8k64 s32.s4.s4.s32", EL_S4, EL_S4);
    run_mma<U4_S32>("mma m16n8k64 s32.u4.u4.s32", EL_U4, EL_U4);
    run_mma<B1_XOR>("mma m16n8k256 s32.b1.b1.s32 xor.popc", EL_B1, EL_B1, DIRECT, 1);
    run_mma<B1_AND>("mma m16n8k256 s32.b1.b1.s32 and.popc", EL_B1, EL_B1, DIRECT, 2);
    run_wmma<__half, __half, float, 16, 16, 16>("wmma m16n16k16 half -> float", EL_F16, false);
    run_wmma<__half, __half, __half, 32, 8, 16>("wmma m32n8k16 half -> half", EL_F16, true);
    run_wmma<__nv_bfloat16, __nv_bfloat16, float, 8, 32, 16>("wmma m8n32k16 bf16 -> float", EL_BF16, false);
    run_wmma<wmma::precision::tf32, float, float, 16, 16, 8>("wmma m16n16k8 tf32 -> float", EL_TF32, false);
    if (g_fail) {
        printf("tensor_gemm: FAIL (%d cases wrong)\n", g_fail);
        return 1;
    }
    printf("tensor_gemm: PASS\n");
    return 0;
}
