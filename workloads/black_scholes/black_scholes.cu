// black_scholes: European call/put prices for a batch of options (the CUDA SDK formulation).
// Device code uses the full-precision sqrtf, logf, expf and erfcf, and two cumulative normal
// distributions: the polynomial (Abramowitz-Stegun) CND of the SDK sample, and one through erfcf
// (CND(d) = 0.5*erfc(-d/sqrt(2))). The CPU reference works in double with std::erfc.
// Tolerance: |gpu - ref| <= 2e-4 * (1 + |ref|) for every price (the polynomial CND itself has an
// absolute error of ~1e-7; float rounding of prices of up to ~100 adds ~1e-5).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            printf("black_scholes: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static uint32_t g_lcg = 777u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_range(float lo, float hi) {
    return lo + (hi - lo) * (float)(lcg_next() >> 8) * (1.0f / 16777216.0f);
}

__device__ inline float cnd_poly(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
                A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    if (d > 0) c = 1.0f - c;
    return c;
}

__device__ inline float cnd_erfc(float d) { return 0.5f * erfcf(-d * 0.70710678118654752440f); }

__global__ void black_scholes(const float* __restrict__ S, const float* __restrict__ X,
                              const float* __restrict__ T, float R, float V, int n, int use_erfc,
                              float* call, float* put) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float s = S[i], x = X[i], t = T[i];
        float sqrtT = sqrtf(t);
        float d1 = (logf(s / x) + (R + 0.5f * V * V) * t) / (V * sqrtT);
        float d2 = d1 - V * sqrtT;
        float c1 = use_erfc ? cnd_erfc(d1) : cnd_poly(d1);
        float c2 = use_erfc ? cnd_erfc(d2) : cnd_poly(d2);
        float expRT = expf(-R * t);
        call[i] = s * c1 - x * expRT * c2;
        put[i] = x * expRT * (1.0f - c2) - s * (1.0f - c1);
    }
}

static double cnd_ref(double d) { return 0.5 * std::erfc(-d / std::sqrt(2.0)); }

int main() {
    const int n = 4000;
    const float R = 0.02f, V = 0.30f;
    std::vector<float> S(n), X(n), T(n);
    for (int i = 0; i < n; ++i) {
        S[i] = lcg_range(5.0f, 30.0f);
        X[i] = lcg_range(1.0f, 100.0f);
        T[i] = lcg_range(0.25f, 10.0f);
    }
    std::vector<double> rc(n), rp(n);
    double sum_c = 0, sum_p = 0;
    for (int i = 0; i < n; ++i) {
        double s = S[i], x = X[i], t = T[i], r = R, v = V;
        double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * std::sqrt(t));
        double d2 = d1 - v * std::sqrt(t);
        double e = std::exp(-r * t);
        rc[i] = s * cnd_ref(d1) - x * e * cnd_ref(d2);
        rp[i] = x * e * cnd_ref(-d2) - s * cnd_ref(-d1);
        sum_c += rc[i];
        sum_p += rp[i];
    }

    float *dS, *dX, *dT, *dC, *dP;
    CHECK(cudaMalloc(&dS, n * sizeof(float)));
    CHECK(cudaMalloc(&dX, n * sizeof(float)));
    CHECK(cudaMalloc(&dT, n * sizeof(float)));
    CHECK(cudaMalloc(&dC, n * sizeof(float)));
    CHECK(cudaMalloc(&dP, n * sizeof(float)));
    CHECK(cudaMemcpy(dS, S.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dX, X.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dT, T.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    printf("black_scholes: options=%d R=%.2f V=%.2f\n", n, R, V);
    printf("black_scholes: sum(call)=%.2f sum(put)=%.2f (tolerance 2e-4*(1+|ref|))\n", sum_c, sum_p);
    const char* names[2] = {"polynomial CND", "erfcf CND"};
    for (int mode = 0; mode < 2; ++mode) {
        std::vector<float> gc(n), gp(n);
        black_scholes<<<16, 128>>>(dS, dX, dT, R, V, n, mode, dC, dP);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(gc.data(), dC, n * sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(gp.data(), dP, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            if (!(std::fabs(gc[i] - rc[i]) <= 2e-4 * (1.0 + std::fabs(rc[i]))) ||
                !(std::fabs(gp[i] - rp[i]) <= 2e-4 * (1.0 + std::fabs(rp[i])))) {
                printf("black_scholes: FAIL (%s option %d: call %.6f put %.6f, expected %.6f %.6f)\n",
                       names[mode], i, gc[i], gp[i], rc[i], rp[i]);
                return 1;
            }
        }
        printf("black_scholes: %s ok\n", names[mode]);
    }
    CHECK(cudaFree(dS));
    CHECK(cudaFree(dX));
    CHECK(cudaFree(dT));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dP));
    printf("black_scholes: PASS\n");
    return 0;
}
