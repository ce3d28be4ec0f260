// wmma_gemm: C = A * B + C0 with the nvcuda::wmma tensor-core API, one warp per 16x16 output tile.
//  - f16 inputs, f32 accumulate (m16n16k16), A row-major, B column-major   [sm_70+]
//  - bf16 inputs, f32 accumulate (m16n16k16)                                [sm_80+]
//  - tf32 inputs, f32 accumulate (m16n16k8, __float_to_tf32)               [sm_80+]
// Inputs are small multiples of 1/8 (exact in f16, bf16 and tf32), so every product and partial sum
// is exact in f32 and the result is order-independent: the comparison is exact (tolerance 0).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            printf("wmma_gemm: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static uint32_t g_lcg = 99u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int M = 64, N = 48, K = 64;
const int WARPS_PER_BLOCK = 4;

// A: M x K row-major, B: K x N column-major (element (k, n) at B[n * K + k]), C: M x N row-major
__global__ void gemm_f16(const __half* A, const __half* B, const float* C0, float* C) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm >= M / 16) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, C0 + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + tn * 16 * K + k, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

__global__ void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C0, float* C) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm >= M / 16) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, C0 + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + tn * 16 * K + k, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
#endif
}

__global__ void gemm_tf32(const float* A, const float* B, const float* C0, float* C) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm >= M / 16) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 8) {
        wmma::load_matrix_sync(a, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + tn * 16 * K + k, K);
        for (int t = 0; t < a.num_elements; ++t) a.x[t] = wmma::__float_to_tf32(a.x[t]);
        for (int t = 0; t < b.num_elements; ++t) b.x[t] = wmma::__float_to_tf32(b.x[t]);
        wmma::mma_sync(acc, a, b, acc);
    }
    // C = A*B + C0, adding C0 element-wise in the fragment (layout-agnostic since both use the
    // same fragment type and the same load layout)
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c0;
    wmma::load_matrix_sync(c0, C0 + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int t = 0; t < acc.num_elements; ++t) acc.x[t] += c0.x[t];
    wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
#endif
}

// host-side encoders for exactly representable values (no rounding needed)
static uint16_t f16_bits_exact(float v) {  // v = k/8, |v| <= 4
    if (v == 0.0f) return 0;
    uint16_t s = v < 0 ? 0x8000 : 0;
    float a = v < 0 ? -v : v;
    int e = 0;
    while (a >= 2.0f) { a *= 0.5f; ++e; }
    while (a < 1.0f) { a *= 2.0f; --e; }
    return s | (uint16_t)((e + 15) << 10) | (uint16_t)((a - 1.0f) * 1024.0f);
}
static uint16_t bf16_bits_exact(float v) { uint32_t u; memcpy(&u, &v, 4); return (uint16_t)(u >> 16); }

int main() {
    std::vector<float> a((size_t)M * K), b((size_t)K * N), c0((size_t)M * N);
    for (auto& v : a) v = (float)((int)(lcg_next() % 33) - 16) / 8.0f;  // [-2, 2] step 1/8
    for (auto& v : b) v = (float)((int)(lcg_next() % 33) - 16) / 8.0f;  // stored column-major
    for (auto& v : c0) v = (float)((int)(lcg_next() % 201) - 100) / 4.0f;
    std::vector<uint16_t> ah(a.size()), bh(b.size()), ab(a.size()), bb(b.size());
    for (size_t i = 0; i < a.size(); ++i) { ah[i] = f16_bits_exact(a[i]); ab[i] = bf16_bits_exact(a[i]); }
    for (size_t i = 0; i < b.size(); ++i) { bh[i] = f16_bits_exact(b[i]); bb[i] = bf16_bits_exact(b[i]); }

    // CPU reference: C = A * B + C0
    std::vector<float> ref((size_t)M * N);
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double s = c0[(size_t)m * N + n];
            for (int k = 0; k < K; ++k) s += (double)a[(size_t)m * K + k] * (double)b[(size_t)n * K + k];
            ref[(size_t)m * N + n] = (float)s;
        }

    void *dAh, *dBh, *dAb, *dBb; float *dAf, *dBf, *dC0, *dC;
    CHECK(cudaMalloc(&dAh, a.size() * 2)); CHECK(cudaMalloc(&dBh, b.size() * 2));
    CHECK(cudaMalloc(&dAb, a.size() * 2)); CHECK(cudaMalloc(&dBb, b.size() * 2));
    CHECK(cudaMalloc(&dAf, a.size() * 4)); CHECK(cudaMalloc(&dBf, b.size() * 4));
    CHECK(cudaMalloc(&dC0, c0.size() * 4)); CHECK(cudaMalloc(&dC, c0.size() * 4));
    CHECK(cudaMemcpy(dAh, ah.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBh, bh.data(), b.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dAb, ab.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBb, bb.data(), b.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dAf, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBf, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC0, c0.data(), c0.size() * 4, cudaMemcpyHostToDevice));

    const int tiles = (M / 16) * (N / 16);
    const int blocks = (tiles + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    const char* names[3] = {"f16", "bf16", "tf32"};
    int total_bad = 0;
    std::vector<float> c((size_t)M * N);
    for (int variant = 0; variant < 3; ++variant) {
        CHECK(cudaMemset(dC, 0, c.size() * 4));
        if (variant == 0) gemm_f16<<<blocks, WARPS_PER_BLOCK * 32>>>((const __half*)dAh, (const __half*)dBh, dC0, dC);
        if (variant == 1) gemm_bf16<<<blocks, WARPS_PER_BLOCK * 32>>>((const __nv_bfloat16*)dAb, (const __nv_bfloat16*)dBb, dC0, dC);
        if (variant == 2) gemm_tf32<<<blocks, WARPS_PER_BLOCK * 32>>>(dAf, dBf, dC0, dC);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (size_t i = 0; i < c.size(); ++i)
            if (c[i] != ref[i]) {
                if (!bad) printf("wmma_gemm: %s C[%zu] got %f expected %f\n", names[variant], i, c[i], ref[i]);
                ++bad;
            }
        printf("wmma_gemm: %s %dx%dx%d: %s\n", names[variant], M, N, K, bad ? "mismatch" : "exact match");
        total_bad += bad;
    }
    void* bufs[] = {dAh, dBh, dAb, dBb, dAf, dBf, dC0, dC};
    for (void* p : bufs) CHECK(cudaFree(p));
    double trace = 0;
    for (int i = 0; i < 48; ++i) trace += ref[(size_t)i * N + i];
    printf("wmma_gemm: reference C[0][0]=%.3f C[63][47]=%.3f trace48=%.3f\n", ref[0], ref[(size_t)M * N - 1], trace);
    if (total_bad) { printf("wmma_gemm: FAIL (%d mismatches)\n", total_bad); return 1; }
    printf("wmma_gemm: PASS\n");
    return 0;
}
