// tensor_wmma: nvcuda::wmma GEMMs (D = A * B + C) for the tensor-core types beyond f16/bf16/tf32:
//  - double m8n8k4 (f64 accumulate)
//  - signed char / unsigned char m16n16k16 (int accumulate), and signed char with satf = true
//  - experimental precision::s4 / precision::u4 m8n8k32 (int accumulate)
//  - experimental precision::b1 m8n8k128 with bmma_sync XOR.POPC and AND.POPC
// A is row-major (M x K), B column-major (N rows of K), C/D row-major; one warp per output tile.
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

// CPU decoders of the element encodings (independent of the CUDA headers' conversions).
static double f16_val(uint16_t h) {
    int ex = (h >> 10) & 31, man = h & 1023;
    double v = ex == 0 ? std::ldexp((double)man, -24) : std::ldexp(1024.0 + man, ex - 25);
    return (h & 0x8000) ? -v : v;
}
// Encoders for the exact inputs used here (normal numbers with few mantissa bits): truncation is exact.
static uint16_t f16_bits(double x) {
    if (x == 0) return 0;
    uint16_t s = x < 0 ? 0x8000 : 0;
    int e;
    double m = std::frexp(std::fabs(x), &e);  // x = m * 2^e, m in [0.5, 1)
    return s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024);
}
static uint16_t bf16_bits(double x) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static double bf16_val(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float f32_val(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static int g_fail = 0;

// Element kinds of the packed A/B matrices.
enum Elem { EL_F16, EL_BF16, EL_TF32, EL_S8, EL_U8, EL_S4, EL_U4, EL_B1 };
static int elem_bits(Elem e) {
    switch (e) {
        case EL_F16: case EL_BF16: return 16;
        case EL_TF32: return 32;
        case EL_S8: case EL_U8: return 8;
        case EL_S4: case EL_U4: return 4;
        default: return 1;
    }
}
// A random raw element of kind e (its bit pattern).
static uint32_t rand_elem(Elem e, bool small_ints) {
    int q = (int)(lcg_next() >> 28) - 8;  // -8..7
    switch (e) {
        case EL_F16: return f16_bits(small_ints ? q / 2 : q / 8.0);
        case EL_BF16: return bf16_bits(q / 8.0);
        case EL_TF32: return f32_bits((float)(q / 8.0));
        case EL_S8: case EL_U8: return lcg_next() >> 24;
        case EL_S4: case EL_U4: return lcg_next() >> 28;
        default: return lcg_next() >> 31;
    }
}
static double elem_val(Elem e, uint32_t raw) {
    switch (e) {
        case EL_F16: return f16_val((uint16_t)raw);
        case EL_BF16: return bf16_val((uint16_t)raw);
        case EL_TF32: return f32_val(raw);
        case EL_S8: return (int8_t)raw;
        case EL_U8: return raw;
        case EL_S4: return raw >= 8 ? (int)raw - 16 : (int)raw;
        case EL_U4: return raw;
        default: return raw;
    }
}
// Packs rows x cols raw elements (row-major, cols along K) into 32-bit words, element 0 lowest.
static std::vector<uint32_t> pack(const std::vector<uint32_t>& raw, Elem e) {
    int bits = elem_bits(e), per = 32 / bits;
    std::vector<uint32_t> w(raw.size() / per, 0);
    for (size_t i = 0; i < raw.size(); ++i) w[i / per] |= raw[i] << ((i % per) * bits);
    return w;
}

template <class T> static T* to_dev(const std::vector<T>& v) {
    T* p;
    CHECK(cudaMalloc(&p, v.size() * sizeof(T)));
    CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

// Prints one result line and counts failures.
static void report(const char* name, int M, int N, int K, long bad, double checksum) {
    printf("%-44s %3dx%3dx%4d  %ld wrong  checksum %.6f\n", name, M, N, K, bad, checksum);
    if (bad) ++g_fail;
}


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
    long bad = 0;
    double sum = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        double got = out[i];
        sum += got;
        if (!(got == ref[i])) {
            if (bad < 4) printf("  %s: D[%zu][%zu] = %.6f, expected %.6f\n", name, i / N, i % N, got, ref[i]);
            ++bad;
        }
    }
    report(name, M, N, K, bad, sum);
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
