// sgemm: C = alpha*A*B + beta*C (row-major, M=N=K=128) three ways: naive (one thread per C
// element), shared-memory tiled (16x16 tiles), and register-blocked (64x64 block tile, BK=8,
// 256 threads each computing a 4x4 micro-tile from registers, float4 stores). Also a
// non-multiple shape (100x70x90) for the naive and tiled kernels. Checked against a double
// CPU reference with tolerance 1e-4*(1+|ref|) (the three 128^3 runs multiply the same matrices).
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
            printf("sgemm: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 99u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_float() { return (float)(lcg_next() >> 8) * (1.0f / 8388608.0f) - 1.0f; }

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }
}

constexpr int TS = 16;
__global__ void sgemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

// Register-blocked: requires M%64==0, N%64==0, K%8==0.
constexpr int BM = 64, BN = 64, BK = 8, TM = 4, TN = 4;
__global__ void __launch_bounds__(256) sgemm_regblock(int M, int N, int K, float alpha, const float* __restrict__ A,
                                                     const float* __restrict__ B, float beta, float* __restrict__ C) {
    __shared__ float As[BK][BM];  // transposed A tile
    __shared__ float Bs[BK][BN];
    int tid = threadIdx.x;
    int trow = tid / (BN / TN), tcol = tid % (BN / TN);  // 16x16 threads
    const float* Ab = A + blockIdx.y * BM * K;
    const float* Bb = B + blockIdx.x * BN;
    float acc[TM][TN] = {};
    float ra[TM], rb[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        // A tile 64x8 = 512 floats, B tile 8x64 = 512 floats: two each per thread
        for (int i = tid; i < BM * BK; i += 256) {
            int r = i / BK, c = i % BK;
            As[c][r] = Ab[r * K + k0 + c];
            int br = i / BN, bc = i % BN;
            Bs[br][bc] = Bb[(k0 + br) * N + bc];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) ra[i] = As[k][trow * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) rb[j] = Bs[k][tcol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = blockIdx.y * BM + trow * TM + i;
        float4* cp = reinterpret_cast<float4*>(C + row * N + blockIdx.x * BN + tcol * TN);
        float4 old = *cp;
        float4 v;
        v.x = alpha * acc[i][0] + beta * old.x;
        v.y = alpha * acc[i][1] + beta * old.y;
        v.z = alpha * acc[i][2] + beta * old.z;
        v.w = alpha * acc[i][3] + beta * old.w;
        *cp = v;
    }
}

static void cpu_gemm(int M, int N, int K, float alpha, const std::vector<float>& A, const std::vector<float>& B,
                     float beta, const std::vector<float>& C0, std::vector<double>& R) {
    R.assign((size_t)M * N, 0.0);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0.0;
            for (int k = 0; k < K; ++k) s += (double)A[i * K + k] * (double)B[k * N + j];
            R[i * N + j] = (double)alpha * s + (double)beta * C0[i * N + j];
        }
}

static int run_case(const char* name, int kind, int M, int N, int K, double* sum_out) {
    const float alpha = 1.5f, beta = -0.5f;
    std::vector<float> A((size_t)M * K), B((size_t)K * N), C0((size_t)M * N);
    for (auto& v : A) v = lcg_float();
    for (auto& v : B) v = lcg_float();
    for (auto& v : C0) v = lcg_float();
    std::vector<double> R;
    cpu_gemm(M, N, K, alpha, A, B, beta, C0, R);
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, C0.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC, C0.data(), C0.size() * sizeof(float), cudaMemcpyHostToDevice));
    if (kind == 0) {
        sgemm_naive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(M, N, K, alpha, dA, dB, beta, dC);
    } else if (kind == 1) {
        sgemm_tiled<<<dim3((N + TS - 1) / TS, (M + TS - 1) / TS), dim3(TS, TS)>>>(M, N, K, alpha, dA, dB, beta, dC);
    } else {
        sgemm_regblock<<<dim3(N / BN, M / BM), 256>>>(M, N, K, alpha, dA, dB, beta, dC);
    }
    CHECK(cudaGetLastError());
    std::vector<float> C((size_t)M * N);
    CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    double s = 0.0;
    for (size_t i = 0; i < C.size(); ++i) {
        s += R[i];
        if (std::fabs((double)C[i] - R[i]) > 1e-4 * (1.0 + std::fabs(R[i]))) {
            printf("sgemm: FAIL (%s %dx%dx%d: C[%zu]=%.7f, expected %.7f)\n", name, M, N, K, i, C[i], R[i]);
            return 1;
        }
    }
    *sum_out = s;
    printf("sgemm: %s %dx%dx%d ok, sum(ref)=%.4f\n", name, M, N, K, s);
    return 0;
}

int main() {
    printf("sgemm: C = 1.5*A*B - 0.5*C, tolerance 1e-4*(1+|ref|)\n");
    double s;
    // Each case reseeds so that the three 128^3 runs multiply the same matrices.
    const char* names[3] = {"naive", "tiled", "regblock"};
    for (int kind = 0; kind < 3; ++kind) {
        g_lcg = 99u;
        if (run_case(names[kind], kind, 128, 128, 128, &s)) return 1;
    }
    g_lcg = 2718u;
    if (run_case("naive", 0, 100, 70, 90, &s)) return 1;
    g_lcg = 2718u;
    if (run_case("tiled", 1, 100, 70, 90, &s)) return 1;
    printf("sgemm: PASS\n");
    return 0;
}
