// dgemm: C = alpha*A*B + beta*C in double precision, row-major, shared-memory tiled (16x16
// tiles, bounds-checked), on a non-multiple shape 100x84x120 and a square 96^3. Checked against
// a CPU reference (long double accumulation) with tolerance 1e-12*(1+|ref|).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("dgemm: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 31337u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static double lcg_double() {
    uint64_t hi = lcg_next() >> 5, lo = lcg_next() >> 6;  // 53 random bits
    return (double)((hi << 26) | lo) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

constexpr int TS = 16;
__global__ void dgemm_tiled(int M, int N, int K, double alpha, const double* __restrict__ A,
                            const double* __restrict__ B, double beta, double* __restrict__ C) {
    __shared__ double As[TS][TS];
    __shared__ double Bs[TS][TS + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    double acc = 0.0;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; ++k) acc = fma(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}

static int run_case(int M, int N, int K) {
    const double alpha = 0.75, beta = 1.25;
    std::vector<double> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N);
    for (auto& v : A) v = lcg_double();
    for (auto& v : B) v = lcg_double();
    for (auto& v : C) v = lcg_double();
    std::vector<double> R((size_t)M * N);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            long double s = 0.0L;
            for (int k = 0; k < K; ++k) s += (long double)A[(size_t)i * K + k] * (long double)B[(size_t)k * N + j];
            R[(size_t)i * N + j] = (double)((long double)alpha * s + (long double)beta * C[(size_t)i * N + j]);
        }
    double *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * sizeof(double)));
    CHECK(cudaMalloc(&dB, B.size() * sizeof(double)));
    CHECK(cudaMalloc(&dC, C.size() * sizeof(double)));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(double), cudaMemcpyHostToDevice));
    dgemm_tiled<<<dim3((N + TS - 1) / TS, (M + TS - 1) / TS), dim3(TS, TS)>>>(M, N, K, alpha, dA, dB, beta, dC);
    CHECK(cudaGetLastError());
    std::vector<double> G((size_t)M * N);
    CHECK(cudaMemcpy(G.data(), dC, G.size() * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    double s = 0.0, maxabs = 0.0;
    for (size_t i = 0; i < G.size(); ++i) {
        s += R[i];
        maxabs = std::fmax(maxabs, std::fabs(R[i]));
        if (std::fabs(G[i] - R[i]) > 1e-12 * (1.0 + std::fabs(R[i]))) {
            printf("dgemm: FAIL (%dx%dx%d: C[%zu]=%.17g, expected %.17g)\n", M, N, K, i, G[i], R[i]);
            return 1;
        }
    }
    printf("dgemm: %dx%dx%d ok, sum(ref)=%.6f max|ref|=%.6f\n", M, N, K, s, maxabs);
    return 0;
}

int main() {
    printf("dgemm: C = 0.75*A*B + 1.25*C, tolerance 1e-12*(1+|ref|)\n");
    if (run_case(100, 84, 120)) return 1;
    if (run_case(96, 96, 96)) return 1;
    printf("dgemm: PASS\n");
    return 0;
}
