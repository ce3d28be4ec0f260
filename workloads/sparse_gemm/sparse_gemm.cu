// sparse_gemm: 2:4 structured-sparse GEMM on the sparse tensor cores, written with inline PTX
// mma.sp (PTX ISA 9.7.14.6). A (M x K) is pruned on the host to two non-zeros in every group of four
// consecutive elements of a row, compressed to M x K/2 values plus 2-bit position metadata; B is
// dense. One warp per block computes a 16x8 tile of C = A * B, 32 columns of K per instruction:
//  - mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 with sparsity selector 0 and 1
//  - mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 (selector 0)
//  - mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 (selector 1)
// Fragments (ISA 9.7.14.6.2): the compressed A uses the dense m16n8k16 A layout (8-bit: m16n8k16
// s8), B the dense layout of K=32. Metadata: one 4-bit field per group of four (low 2 bits: position
// of the first kept element, high 2 bits: the second); in each group of four lanes the two lanes
// 2*selector and 2*selector+1 supply it. f16/bf16: lane 4g+2s+h covers A columns 16h..16h+15 of
// rows g (bits 0-15, group j in bits 4j..4j+3) and g+8 (bits 16-31). s8: lane 4g+2s covers all 32
// columns of row g (group j in bits 4j..4j+3), lane 4g+2s+1 row g+8 (measured on an H100).
// Inputs are multiples of 1/8 in [-2, 2] (integers in [-8, 8] for s8), so every sum is exact in f32
// and the check is exact.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            printf("sparse_gemm: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static uint32_t g_lcg = 0x2468ACEu;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int M = 64, N = 64, K = 128, KT = K / 32;

enum Kind { F16 = 0, BF16 = 1, S8 = 2 };

// A: compressed M x K/2 row-major (2-byte or 1-byte elements). B: N x K (B column-major).
// meta: per (16-row tile, 32-column k tile) one word per lane.
template <int KIND, int SEL>
__global__ void sparse_gemm(const void* __restrict__ Ac, const void* __restrict__ Bnk, const uint32_t* __restrict__ meta,
                            void* __restrict__ C) {
    const int lane = threadIdx.x, g = lane / 4, q = lane % 4;
    const int tm = blockIdx.y, m0 = tm * 16, n0 = blockIdx.x * 8;
    float accf[4] = {0.f, 0.f, 0.f, 0.f};
    int acci[4] = {0, 0, 0, 0};
    for (int kt = 0; kt < KT; ++kt) {
        const uint32_t e = meta[(tm * KT + kt) * 32 + lane];
        if (KIND == S8) {
            const uint8_t* A8 = (const uint8_t*)Ac;
            const uint8_t* B8 = (const uint8_t*)Bnk;
            uint32_t a[2], b[2];
            for (int r = 0; r < 2; ++r) {
                a[r] = *(const uint32_t*)&A8[(m0 + g + 8 * r) * (K / 2) + kt * 16 + 4 * q];
                b[r] = *(const uint32_t*)&B8[(n0 + g) * K + kt * 32 + 16 * r + 4 * q];
            }
            asm volatile(
                "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 "
                "{%0, %1, %2, %3}, {%4, %5}, {%6, %7}, {%0, %1, %2, %3}, %8, %9;\n"
                : "+r"(acci[0]), "+r"(acci[1]), "+r"(acci[2]), "+r"(acci[3])
                : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e), "n"(SEL));
        } else {
            const uint16_t* A16 = (const uint16_t*)Ac;
            const uint16_t* B16 = (const uint16_t*)Bnk;
            uint32_t a[4], b[4];
            for (int r = 0; r < 4; ++r) {
                a[r] = *(const uint32_t*)&A16[(m0 + g + 8 * (r & 1)) * (K / 2) + kt * 16 + 8 * (r >> 1) + 2 * q];
                b[r] = *(const uint32_t*)&B16[(n0 + g) * K + kt * 32 + 8 * r + 2 * q];
            }
            if (KIND == F16)
                asm volatile(
                    "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
                    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, %13;\n"
                    : "+f"(accf[0]), "+f"(accf[1]), "+f"(accf[2]), "+f"(accf[3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e),
                      "n"(SEL));
            else
                asm volatile(
                    "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 "
                    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, %13;\n"
                    : "+f"(accf[0]), "+f"(accf[1]), "+f"(accf[2]), "+f"(accf[3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e),
                      "n"(SEL));
        }
    }
    for (int i = 0; i < 4; ++i) {
        const size_t idx = (size_t)(m0 + g + 8 * (i >> 1)) * N + n0 + 2 * q + (i & 1);
        if (KIND == S8) ((int*)C)[idx] = acci[i];
        else ((float*)C)[idx] = accf[i];
    }
}

// Exact encoders for the values used here (multiples of 1/8 in [-2, 2]).
static uint16_t to_f16(int eighths) {  // eighths / 8
    if (eighths == 0) return 0;
    uint16_t s = eighths < 0 ? 0x8000 : 0;
    int m = eighths < 0 ? -eighths : eighths, e = -3;
    while (m >= 2048) { m >>= 1; ++e; }
    while (m < 1024) { m <<= 1; --e; }
    return s | (uint16_t)((e + 10 + 15) << 10) | (uint16_t)(m - 1024);
}
static uint16_t to_bf16(int eighths) {
    if (eighths == 0) return 0;
    uint16_t s = eighths < 0 ? 0x8000 : 0;
    int m = eighths < 0 ? -eighths : eighths, e = -3;
    while (m >= 256) { m >>= 1; ++e; }
    while (m < 128) { m <<= 1; --e; }
    return s | (uint16_t)((e + 7 + 127) << 7) | (uint16_t)(m - 128);
}

struct Variant { int kind, sel; const char* name; };

int main() {
    // Dense A values (in units of 1/8, or integers for s8) pruned 2:4, and B.
    std::vector<int> a((size_t)M * K, 0), b((size_t)N * K);
    std::vector<int> ac((size_t)M * K / 2);
    std::vector<uint32_t> nib((size_t)M * K / 4);
    for (int m = 0; m < M; ++m)
        for (int c = 0; c < K / 4; ++c) {
            int i0 = lcg_next() >> 8 & 3, i1 = lcg_next() >> 8 & 3;
            if (i1 == i0) i1 = (i0 + 1 + (lcg_next() >> 8) % 3) & 3;
            if (i1 < i0) { int t = i0; i0 = i1; i1 = t; }
            nib[(size_t)m * (K / 4) + c] = (uint32_t)(i0 | i1 << 2);
            for (int j = 0; j < 2; ++j) {
                int v = (int)((lcg_next() >> 8) % 33) - 16;  // -16..16 eighths = -2..2
                a[(size_t)m * K + c * 4 + (j ? i1 : i0)] = v;
                ac[(size_t)m * (K / 2) + c * 2 + j] = v;
            }
        }
    for (auto& v : b) v = (int)((lcg_next() >> 8) % 33) - 16;
    std::vector<long long> ref((size_t)M * N);  // in units of 1/64 (float) or integer (s8: values / 2)
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            long long s = 0;
            for (int k = 0; k < K; ++k) s += (long long)a[(size_t)m * K + k] * b[(size_t)n * K + k];
            ref[(size_t)m * N + n] = s;
        }
    std::vector<uint16_t> ac16((size_t)M * K / 2), acb((size_t)M * K / 2), b16((size_t)N * K), bb((size_t)N * K);
    std::vector<int8_t> ac8((size_t)M * K / 2), b8((size_t)N * K);
    for (size_t i = 0; i < ac.size(); ++i) { ac16[i] = to_f16(ac[i]); acb[i] = to_bf16(ac[i]); ac8[i] = (int8_t)(ac[i] / 2); }
    for (size_t i = 0; i < b.size(); ++i) { b16[i] = to_f16(b[i]); bb[i] = to_bf16(b[i]); b8[i] = (int8_t)(b[i] / 2); }
    // s8 reference: the integer halves of the same values.
    std::vector<long long> ref8((size_t)M * N);
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            long long s = 0;
            for (int k = 0; k < K; ++k) s += (long long)(a[(size_t)m * K + k] / 2) * (b[(size_t)n * K + k] / 2);
            ref8[(size_t)m * N + n] = s;
        }
    // Metadata words: lanes 4g + 2*sel + h, h = 0, 1 (other lanes pass a valid word that must be ignored).
    // f16/bf16: lane 4g+2*sel+h holds groups 4h..4h+3 of rows g (bits 0-15) and g+8 (bits 16-31).
    // s8: lane 4g+2*sel holds all eight groups of row g, lane 4g+2*sel+1 those of row g+8.
    auto pack_meta = [&](int sel, bool int8) {
        std::vector<uint32_t> meta((size_t)(M / 16) * KT * 32, 0x44444444u);
        for (int tm = 0; tm < M / 16; ++tm)
            for (int kt = 0; kt < KT; ++kt)
                for (int g = 0; g < 8; ++g)
                    for (int h = 0; h < 2; ++h) {
                        uint32_t w = 0;
                        for (int j = 0; j < 8; ++j) {
                            int row = tm * 16 + g + (int8 ? 8 * h : 8 * (j >> 2));
                            int chunk = kt * 8 + (int8 ? j : h * 4 + (j & 3));
                            w |= nib[(size_t)row * (K / 4) + chunk] << (4 * j);
                        }
                        meta[(size_t)(tm * KT + kt) * 32 + 4 * g + 2 * sel + h] = w;
                    }
        return meta;
    };
    void *dA16, *dAb, *dA8, *dB16, *dBb, *dB8, *dC;
    uint32_t *dM0, *dM1, *dM8;
    CHECK(cudaMalloc(&dA16, ac16.size() * 2)); CHECK(cudaMalloc(&dAb, acb.size() * 2)); CHECK(cudaMalloc(&dA8, ac8.size()));
    CHECK(cudaMalloc(&dB16, b16.size() * 2)); CHECK(cudaMalloc(&dBb, bb.size() * 2)); CHECK(cudaMalloc(&dB8, b8.size()));
    CHECK(cudaMalloc(&dC, (size_t)M * N * 4));
    std::vector<uint32_t> m0 = pack_meta(0, false), m1 = pack_meta(1, false), m8 = pack_meta(1, true);
    CHECK(cudaMalloc(&dM0, m0.size() * 4)); CHECK(cudaMalloc(&dM1, m1.size() * 4)); CHECK(cudaMalloc(&dM8, m8.size() * 4));
    CHECK(cudaMemcpy(dA16, ac16.data(), ac16.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dAb, acb.data(), acb.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dA8, ac8.data(), ac8.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB16, b16.data(), b16.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBb, bb.data(), bb.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB8, b8.data(), b8.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dM0, m0.data(), m0.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dM1, m1.data(), m1.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dM8, m8.data(), m8.size() * 4, cudaMemcpyHostToDevice));
    const Variant variants[] = {{F16, 0, "mma.sp f16 selector 0"}, {F16, 1, "mma.sp f16 selector 1"},
                                {BF16, 0, "mma.sp::ordered_metadata bf16 selector 0"}, {S8, 1, "mma.sp s8 selector 1"}};
    dim3 grid(N / 8, M / 16);
    int total_bad = 0;
    std::vector<float> cf((size_t)M * N);
    std::vector<int> ci((size_t)M * N);
    for (const Variant& v : variants) {
        CHECK(cudaMemset(dC, 0, (size_t)M * N * 4));
        if (v.kind == F16 && v.sel == 0) sparse_gemm<F16, 0><<<grid, 32>>>(dA16, dB16, dM0, dC);
        else if (v.kind == F16) sparse_gemm<F16, 1><<<grid, 32>>>(dA16, dB16, dM1, dC);
        else if (v.kind == BF16) sparse_gemm<BF16, 0><<<grid, 32>>>(dAb, dBb, dM0, dC);
        else sparse_gemm<S8, 1><<<grid, 32>>>(dA8, dB8, dM8, dC);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        int bad = 0;
        if (v.kind == S8) {
            CHECK(cudaMemcpy(ci.data(), dC, ci.size() * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < ci.size(); ++i)
                if (ci[i] != ref8[i]) {
                    if (!bad) printf("sparse_gemm: %s C[%zu] got %d expected %lld\n", v.name, i, ci[i], ref8[i]);
                    ++bad;
                }
        } else {
            CHECK(cudaMemcpy(cf.data(), dC, cf.size() * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < cf.size(); ++i)
                if (cf[i] != (float)ref[i] / 64.0f) {
                    if (!bad) printf("sparse_gemm: %s C[%zu] got %f expected %f\n", v.name, i, cf[i], ref[i] / 64.0);
                    ++bad;
                }
        }
        printf("sparse_gemm: %s %dx%dx%d exact: %s\n", v.name, M, N, K, bad ? "no" : "yes");
        total_bad += bad;
    }
    CHECK(cudaFree(dA16)); CHECK(cudaFree(dAb)); CHECK(cudaFree(dA8)); CHECK(cudaFree(dB16)); CHECK(cudaFree(dBb));
    CHECK(cudaFree(dB8)); CHECK(cudaFree(dC)); CHECK(cudaFree(dM0)); CHECK(cudaFree(dM1)); CHECK(cudaFree(dM8));
    printf("sparse_gemm: reference C[0][0]=%.4f C[63][63]=%.4f s8 C[0][0]=%lld\n", ref[0] / 64.0, ref[ref.size() - 1] / 64.0,
           ref8[0]);
    if (total_bad) { printf("sparse_gemm: FAIL (%d mismatches)\n", total_bad); return 1; }
    printf("sparse_gemm: PASS\n");
    return 0;
}
