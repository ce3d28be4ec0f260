// mma_ptx: tensor-core GEMM written with inline PTX, the way CUTLASS-style kernels do it.
//  - ldmatrix.sync.aligned.m8n8.x4.shared.b16 loads the A fragment (16x16, row-major in smem)
//  - ldmatrix .x2 loads B from an [n][k] tile (kernel 1), or .x2.trans from a [k][n] tile (kernel 2)
//  - mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 accumulates in f32
// One warp per block computes a 16x8 tile of C = A * B, looping over K in steps of 16.
// Inputs are random floats rounded to f16 (round-to-nearest-even, done on the CPU with its own
// encoder); the CPU reference uses the same rounded values and accumulates in double. Tolerance:
// |got - ref| <= 1e-3 * (1 + |ref|) (f32 accumulation order inside the tensor core differs).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            printf("mma_ptx: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static uint32_t g_lcg = 0xABCDEFu;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int M = 64, N = 64, K = 128;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldmatrix_x2_trans(unsigned (&r)[2], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(smem_addr(p)));
}

// A: M x K row-major. B_nk: N x K (B column-major). B_kn: K x N (B row-major). C: M x N row-major.
template <bool B_ROW_MAJOR>
__global__ void mma_gemm(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C) {
    __shared__ __align__(16) __half As[16][16];
    __shared__ __align__(16) __half Bs[16][16];  // [n][k] (8 rows used) or [k][n] (8 columns used)
    const int lane = threadIdx.x;
    const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        // stage A (16x16) and B (8x16 or 16x8) into shared memory
        for (int e = lane; e < 256; e += 32) As[e / 16][e % 16] = A[(size_t)(m0 + e / 16) * K + k0 + e % 16];
        if (!B_ROW_MAJOR) {
            for (int e = lane; e < 128; e += 32) Bs[e / 16][e % 16] = B[(size_t)(n0 + e / 16) * K + k0 + e % 16];
        } else {
            for (int e = lane; e < 128; e += 32) Bs[e / 8][e % 8] = B[(size_t)(k0 + e / 8) * N + n0 + e % 8];
        }
        __syncwarp();
        unsigned a[4], b[2];
        ldmatrix_x4(a, &As[lane % 16][(lane / 16) * 8]);
        if (!B_ROW_MAJOR) ldmatrix_x2(b, &Bs[lane % 8][((lane / 8) % 2) * 8]);
        else ldmatrix_x2_trans(b, &Bs[lane % 16][0]);
        mma_16816(acc, a, b);
        __syncwarp();
    }
    const int g = lane / 4, t = lane % 4;
    C[(size_t)(m0 + g) * N + n0 + 2 * t] = acc[0];
    C[(size_t)(m0 + g) * N + n0 + 2 * t + 1] = acc[1];
    C[(size_t)(m0 + g + 8) * N + n0 + 2 * t] = acc[2];
    C[(size_t)(m0 + g + 8) * N + n0 + 2 * t + 1] = acc[3];
}

// independent float -> f16 (round to nearest even) encoder and decoder for normal-range values
static uint16_t to_f16(float f) {
    double x = f;
    uint16_t s = x < 0 ? 0x8000 : 0;
    double ax = std::fabs(x);
    if (ax == 0.0) return s;
    int e;
    std::frexp(ax, &e);
    int E = e - 1;
    if (E < -14) E = -14;
    double q = std::ldexp(1.0, E - 10);
    double m = std::nearbyint(ax / q);
    if (m >= 2048.0) { m /= 2.0; E += 1; }
    if (m < 1024.0) return s | (uint16_t)m;
    return s | (uint16_t)((E + 15) << 10) | (uint16_t)(m - 1024.0);
}
static double from_f16(uint16_t h) {
    int ex = (h >> 10) & 31, man = h & 1023;
    double v = ex == 0 ? std::ldexp((double)man, -24) : std::ldexp(1024.0 + man, ex - 25);
    return (h & 0x8000) ? -v : v;
}

int main() {
    std::vector<uint16_t> a((size_t)M * K), b_nk((size_t)N * K), b_kn((size_t)K * N);
    for (auto& v : a) v = to_f16(-1.0f + 2.0f * (float)(lcg_next() >> 8) / 16777216.0f);
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) {
            uint16_t h = to_f16(-1.0f + 2.0f * (float)(lcg_next() >> 8) / 16777216.0f);
            b_nk[(size_t)n * K + k] = h;
            b_kn[(size_t)k * N + n] = h;
        }
    std::vector<double> ref((size_t)M * N);
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double s = 0;
            for (int k = 0; k < K; ++k) s += from_f16(a[(size_t)m * K + k]) * from_f16(b_nk[(size_t)n * K + k]);
            ref[(size_t)m * N + n] = s;
        }
    __half *dA, *dBnk, *dBkn; float* dC;
    CHECK(cudaMalloc(&dA, a.size() * 2));
    CHECK(cudaMalloc(&dBnk, b_nk.size() * 2));
    CHECK(cudaMalloc(&dBkn, b_kn.size() * 2));
    CHECK(cudaMalloc(&dC, ref.size() * 4));
    CHECK(cudaMemcpy(dA, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBnk, b_nk.data(), b_nk.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBkn, b_kn.data(), b_kn.size() * 2, cudaMemcpyHostToDevice));
    dim3 grid(N / 8, M / 16);
    int total_bad = 0;
    std::vector<float> c(ref.size());
    for (int variant = 0; variant < 2; ++variant) {
        CHECK(cudaMemset(dC, 0, c.size() * 4));
        if (variant == 0) mma_gemm<false><<<grid, 32>>>(dA, dBnk, dC);
        else mma_gemm<true><<<grid, 32>>>(dA, dBkn, dC);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (size_t i = 0; i < c.size(); ++i)
            if (!(std::fabs(c[i] - ref[i]) <= 1e-3 * (1.0 + std::fabs(ref[i])))) {
                if (!bad) printf("mma_ptx: variant %d C[%zu] got %f expected %f\n", variant, i, c[i], ref[i]);
                ++bad;
            }
        printf("mma_ptx: %s %dx%dx%d within tolerance: %s\n", variant ? "ldmatrix.trans B[k][n]" : "ldmatrix B[n][k]",
               M, N, K, bad ? "no" : "yes");
        total_bad += bad;
    }
    CHECK(cudaFree(dA)); CHECK(cudaFree(dBnk)); CHECK(cudaFree(dBkn)); CHECK(cudaFree(dC));
    printf("mma_ptx: reference C[0][0]=%.4f C[63][63]=%.4f\n", ref[0], ref[ref.size() - 1]);
    if (total_bad) { printf("mma_ptx: FAIL (%d mismatches)\n", total_bad); return 1; }
    printf("mma_ptx: PASS\n");
    return 0;
}
