// saxpy: y = a*x + y in single precision (one element per thread, and a grid-stride loop
// version), plus daxpy in double. The device uses fmaf/fma explicitly and the CPU reference
// uses std::fma, so results are compared bit-exactly.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("saxpy: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 12345u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_float() { return (float)(lcg_next() >> 8) * (1.0f / 8388608.0f) - 1.0f; }  // [-1,1)

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(a, x[i], y[i]);
}

__global__ void saxpy_stride(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = fmaf(a, x[i], y[i]);
}

__global__ void daxpy(int n, double a, const double* __restrict__ x, double* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fma(a, x[i], y[i]);
}

int main() {
    const int n = 50000;  // not a multiple of the block size
    const float a = 2.5f;
    const double ad = -1.75;
    std::vector<float> x(n), y(n);
    std::vector<double> xd(n), yd(n);
    for (int i = 0; i < n; ++i) {
        x[i] = lcg_float();
        y[i] = lcg_float();
        xd[i] = (double)lcg_float() + (double)lcg_float() * 1e-9;
        yd[i] = (double)lcg_float();
    }
    // CPU references (y1 = a*x+y, y2 = a*x+y1 via the stride kernel)
    std::vector<float> r1(n), r2(n);
    std::vector<double> rd(n);
    for (int i = 0; i < n; ++i) {
        r1[i] = std::fma(a, x[i], y[i]);
        r2[i] = std::fma(a, x[i], r1[i]);
        rd[i] = std::fma(ad, xd[i], yd[i]);
    }

    float *dx, *dy;
    double *dxd, *dyd;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dxd, n * sizeof(double)));
    CHECK(cudaMalloc(&dyd, n * sizeof(double)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dxd, xd.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dyd, yd.data(), n * sizeof(double), cudaMemcpyHostToDevice));

    const int block = 256;
    saxpy<<<(n + block - 1) / block, block>>>(n, a, dx, dy);
    CHECK(cudaGetLastError());
    std::vector<float> g1(n), g2(n);
    CHECK(cudaMemcpy(g1.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    saxpy_stride<<<40, 128>>>(n, a, dx, dy);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(g2.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    daxpy<<<(n + block - 1) / block, block>>>(n, ad, dxd, dyd);
    CHECK(cudaGetLastError());
    std::vector<double> gd(n);
    CHECK(cudaMemcpy(gd.data(), dyd, n * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dxd));
    CHECK(cudaFree(dyd));

    double s1 = 0, s2 = 0, sd = 0;
    for (int i = 0; i < n; ++i) { s1 += r1[i]; s2 += r2[i]; sd += rd[i]; }
    printf("saxpy: n=%d a=%.2f block=%d (bit-exact, fmaf)\n", n, a, block);
    printf("saxpy: sum(y1)=%.4f sum(y2)=%.4f\n", s1, s2);
    printf("saxpy: daxpy a=%.2f sum=%.6f\n", ad, sd);
    for (int i = 0; i < n; ++i) {
        if (memcmp(&g1[i], &r1[i], sizeof(float)) != 0) {
            printf("saxpy: FAIL (saxpy y[%d]=%.9g, expected %.9g)\n", i, g1[i], r1[i]);
            return 1;
        }
        if (memcmp(&g2[i], &r2[i], sizeof(float)) != 0) {
            printf("saxpy: FAIL (saxpy_stride y[%d]=%.9g, expected %.9g)\n", i, g2[i], r2[i]);
            return 1;
        }
        if (memcmp(&gd[i], &rd[i], sizeof(double)) != 0) {
            printf("saxpy: FAIL (daxpy y[%d]=%.17g, expected %.17g)\n", i, gd[i], rd[i]);
            return 1;
        }
    }
    printf("saxpy: PASS\n");
    return 0;
}
