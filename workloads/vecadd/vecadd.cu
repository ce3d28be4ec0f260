// vecadd: the bundled "hello world" workload.
// c[i] = a[i] + b[i] over a float vector, with a grid-stride loop.
// Self-checking against a CPU reference (IEEE float add is exact-reproducible,
// so the comparison is bit-exact).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("vecadd: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 0x1234567u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_float(float lo, float hi) {  // 24 random bits -> [lo, hi)
    return lo + (hi - lo) * (float)(lcg_next() >> 8) * (1.0f / 16777216.0f);
}

__global__ void vecadd(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}

int main() {
    const int n = 50000;
    const int block = 256;
    const int grid = 64;  // fewer threads than elements: the grid-stride loop covers the rest
    std::vector<float> a(n), b(n), c(n, 0.0f), ref(n);
    for (int i = 0; i < n; ++i) { a[i] = lcg_float(-100.0f, 100.0f); b[i] = lcg_float(-100.0f, 100.0f); }
    for (int i = 0; i < n; ++i) ref[i] = a[i] + b[i];

    float *da = nullptr, *db = nullptr, *dc = nullptr;
    const size_t bytes = n * sizeof(float);
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0, bytes));
    vecadd<<<grid, block>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));

    int bad = 0, first_bad = -1;
    double checksum = 0.0;
    for (int i = 0; i < n; ++i) {
        if (memcmp(&c[i], &ref[i], sizeof(float)) != 0) { if (first_bad < 0) first_bad = i; ++bad; }
        checksum += ref[i];
    }
    printf("vecadd: n=%d grid=%d block=%d\n", n, grid, block);
    printf("vecadd: c[0]=%.6f c[%d]=%.6f reference checksum=%.4f\n", ref[0], n - 1, ref[n - 1], checksum);
    if (bad) {
        printf("vecadd: FAIL (%d mismatches, first at %d: got %.6f expected %.6f)\n", bad, first_bad,
               c[first_bad], ref[first_bad]);
        return 1;
    }
    printf("vecadd: PASS\n");
    return 0;
}
