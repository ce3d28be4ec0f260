// tensor_wmma: nvcuda::wmma GEMMs (D = A * B + C) for the tensor-core types beyond f16/bf16/tf32:
//  - double m8n8k4 (f64 accumulate)
//  - signed char / unsigned char m16n16k16 (int accumulate), and signed char with satf = true
//  - experimental precision::s4 / precision::u4 m8n8k32 (int accumulate)
//  - experimental precision::b1 m8n8k128 with bmma_sync XOR.POPC and AND.POPC
// A is row-major (M x K), B column-major (N rows of K), C/D row-major; one warp per output tile.
// The host-side helpers are shared with tensor_gemm (../tensor_gemm/tensor_host.h).
// Sub-byte matrices are packed along K, element 0 in the least significant bits of each 32-bit
// word; their ldm is in elements. Inputs: f64 multiples of 2^-7 (exact sums); integer results are
// exact; satf clamps each mma_sync's result to s32 (the CPU clamps after every k-step, and C is
// placed near the s32 limits so that it happens). Everything is compared exactly.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <type_traits>
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;
namespace wx = nvcuda::wmma::experimental;

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            printf("tensor_wmma: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static uint32_t g_lcg = 0x3A3A5u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

// Pointer type load_matrix_sync takes for each fragment element type.
template <typename T> struct LoadPtr { typedef const T* type; };
template <> struct LoadPtr<wx::precision::s4> { typedef const void* type; };
template <> struct LoadPtr<wx::precision::u4> { typedef const void* type; };
template <> struct LoadPtr<wx::precision::b1> { typedef const void* type; };

// One warp per block, one WM x WN tile. BITS: element width in memory. OP: 0 mma_sync, 1 bmma XOR,
// 2 bmma AND. A and B are byte arrays; element i of a row starts at bit i * BITS.
template <typename FragT, typename AccT, int WM, int WN, int WK, int BITS, int OP, bool SATF>
__global__ void wmma_kernel(const char* __restrict__ A, const char* __restrict__ B, const AccT* __restrict__ C,
                            AccT* __restrict__ D, int N, int K) {
    typedef typename LoadPtr<FragT>::type P;
    const int m0 = blockIdx.y * WM, n0 = blockIdx.x * WN;
    wmma::fragment<wmma::accumulator, WM, WN, WK, AccT> acc;
    wmma::load_matrix_sync(acc, C + (size_t)m0 * N + n0, N, wmma::mem_row_major);
    for (int k0 = 0; k0 < K; k0 += WK) {
        wmma::fragment<wmma::matrix_a, WM, WN, WK, FragT, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, WM, WN, WK, FragT, wmma::col_major> b;
        wmma::load_matrix_sync(a, (P)(A + ((size_t)m0 * K + k0) * BITS / 8), K);
        wmma::load_matrix_sync(b, (P)(B + ((size_t)n0 * K + k0) * BITS / 8), K);
        if constexpr (OP == 1) wmma::bmma_sync(acc, a, b, acc, wx::bmmaBitOpXOR, wx::bmmaAccumulateOpPOPC);
        else if constexpr (OP == 2) wmma::bmma_sync(acc, a, b, acc, wx::bmmaBitOpAND, wx::bmmaAccumulateOpPOPC);
        else if constexpr (std::is_same<AccT, int>::value) wmma::mma_sync(acc, a, b, acc, SATF);
        else wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(D + (size_t)m0 * N + n0, acc, N, wmma::mem_row_major);
}

#include "../tensor_gemm/tensor_host.h"

template <typename FragT, typename AccT, int WM, int WN, int WK, int OP = 0, bool SATF = false>
static void run_wmma(const char* name, Elem e) {
    const int M = 2 * WM, N = 2 * WN, K = 4 * WK;
    const bool f64 = std::is_same<AccT, double>::value;
    const int bits = f64 ? 64 : elem_bits(e);
    std::vector<uint32_t> ra((size_t)M * K), rb((size_t)N * K);
    for (auto& v : ra) v = rand_elem(e, false);
    for (auto& v : rb) v = rand_elem(e, false);
    // Element values (f64 takes (byte - 128) / 128 of its raw bytes).
    auto val = [&](uint32_t raw) { return f64 ? ((int)raw - 128) / 128.0 : elem_val(e, raw); };
    std::vector<char> a, b;
    if (f64) {
        a.resize(ra.size() * 8);
        b.resize(rb.size() * 8);
        for (size_t i = 0; i < ra.size(); ++i) { double x = val(ra[i]); memcpy(&a[i * 8], &x, 8); }
        for (size_t i = 0; i < rb.size(); ++i) { double x = val(rb[i]); memcpy(&b[i * 8], &x, 8); }
    } else {
        std::vector<uint32_t> pa = pack(ra, e), pb = pack(rb, e);
        a.resize(pa.size() * 4);
        b.resize(pb.size() * 4);
        memcpy(a.data(), pa.data(), a.size());
        memcpy(b.data(), pb.data(), b.size());
    }
    std::vector<AccT> c((size_t)M * N);
    std::vector<double> ref(c.size());
    for (size_t i = 0; i < c.size(); ++i) {
        double v;
        if (f64) v = ((int)(lcg_next() % 2048) - 1024) / 1024.0;
        else if (SATF && i % 3 == 0) v = 2147483647 - (int)(lcg_next() % 1000);
        else if (SATF && i % 3 == 1) v = -2147483648.0 + (int)(lcg_next() % 1000);
        else v = (int)(lcg_next() % 200001) - 100000;
        c[i] = (AccT)v;
        ref[i] = v;
    }
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double acc = ref[(size_t)m * N + n];
            for (int k0 = 0; k0 < K; k0 += WK) {  // one mma_sync per k-step
                for (int k = k0; k < k0 + WK; ++k) {
                    uint32_t x = ra[(size_t)m * K + k], y = rb[(size_t)n * K + k];
                    acc += OP == 1 ? (double)(x ^ y) : OP == 2 ? (double)(x & y) : val(x) * val(y);
                }
                if (SATF) acc = acc > 2147483647.0 ? 2147483647.0 : acc < -2147483648.0 ? -2147483648.0 : acc;
            }
            ref[(size_t)m * N + n] = acc;
        }
    char* dA = to_dev(a);
    char* dB = to_dev(b);
    AccT* dC = to_dev(c);
    AccT* dD;
    CHECK(cudaMalloc(&dD, c.size() * sizeof(AccT)));
    CHECK(cudaMemset(dD, 0xff, c.size() * sizeof(AccT)));
    wmma_kernel<FragT, AccT, WM, WN, WK, f64 ? 64 : (std::is_same<FragT, wx::precision::b1>::value ? 1 :
                std::is_same<FragT, wx::precision::s4>::value || std::is_same<FragT, wx::precision::u4>::value ? 4 : 8),
                OP, SATF><<<dim3(N / WN, M / WM), 32>>>(dA, dB, dC, dD, N, K);
    (void)bits;
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<AccT> out(c.size());
    CHECK(cudaMemcpy(out.data(), dD, out.size() * sizeof(AccT), cudaMemcpyDeviceToHost));
    std::vector<double> got(out.begin(), out.end());
    check_results(name, M, N, K, got, ref);
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dD));
}

int main() {
    run_wmma<double, double, 8, 8, 4>("wmma m8n8k4 double -> double", EL_S8);
    run_wmma<signed char, int, 16, 16, 16>("wmma m16n16k16 s8 -> int", EL_S8);
    run_wmma<signed char, int, 16, 16, 16, 0, true>("wmma m16n16k16 s8 -> int (satf)", EL_S8);
    run_wmma<unsigned char, int, 16, 16, 16>("wmma m16n16k16 u8 -> int", EL_U8);
    run_wmma<wx::precision::s4, int, 8, 8, 32>("wmma m8n8k32 s4 -> int", EL_S4);
    run_wmma<wx::precision::u4, int, 8, 8, 32>("wmma m8n8k32 u4 -> int", EL_U4);
    run_wmma<wx::precision::b1, int, 8, 8, 128, 1>("wmma m8n8k128 b1 xor.popc -> int", EL_B1);
    run_wmma<wx::precision::b1, int, 8, 8, 128, 2>("wmma m8n8k128 b1 and.popc -> int", EL_B1);
    if (g_fail) {
        printf("tensor_wmma: FAIL (%d cases wrong)\n", g_fail);
        return 1;
    }
    printf("tensor_wmma: PASS\n");
    return 0;
}
