// reduce: two-pass sum reduction. Each block reduces a grid-stride slice through a shared-memory
// tree (__syncthreads between levels) down to 64 partials, then the first warp finishes with
// __shfl_down_sync. A second launch (one block) reduces the block partials.
// Integer sums are exact; the float sum is checked with a relative tolerance of 1e-5.
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
            printf("reduce: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 2024u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

template <typename T, int BLOCK>
__device__ T block_reduce(T v) {
    __shared__ T sdata[BLOCK];
    unsigned tid = threadIdx.x;
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    T sum = 0;
    if (tid < 32) {
        sum = sdata[tid] + sdata[tid + 32];
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    return sum;  // valid in thread 0
}

template <typename T, int BLOCK>
__global__ void reduce_pass(const T* __restrict__ in, T* __restrict__ out, int n) {
    T acc = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) acc += in[i];
    T total = block_reduce<T, BLOCK>(acc);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

template <typename T>
static T gpu_sum(const std::vector<T>& h, int grid) {
    const int BLOCK = 256;
    int n = (int)h.size();
    T *din, *dpart, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(T)));
    CHECK(cudaMalloc(&dpart, grid * sizeof(T)));
    CHECK(cudaMalloc(&dout, sizeof(T)));
    CHECK(cudaMemcpy(din, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    reduce_pass<T, BLOCK><<<grid, BLOCK>>>(din, dpart, n);
    CHECK(cudaGetLastError());
    reduce_pass<T, BLOCK><<<1, BLOCK>>>(dpart, dout, grid);
    CHECK(cudaGetLastError());
    T result;
    CHECK(cudaMemcpy(&result, dout, sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dpart));
    CHECK(cudaFree(dout));
    return result;
}

int main() {
    const int n = 100000;  // not a multiple of the block size
    const int grid = 48;
    std::vector<int> vi(n);
    std::vector<float> vf(n);
    for (int i = 0; i < n; ++i) {
        vi[i] = (int)(lcg_next() % 2001) - 1000;
        vf[i] = (float)(lcg_next() >> 8) * (1.0f / 16777216.0f);
    }
    long long ref_i = 0;
    double ref_f = 0.0;
    for (int i = 0; i < n; ++i) { ref_i += vi[i]; ref_f += vf[i]; }

    int got_i = gpu_sum<int>(vi, grid);
    float got_f = gpu_sum<float>(vf, grid);

    printf("reduce: n=%d grid=%d block=256\n", n, grid);
    printf("reduce: int sum=%lld\n", ref_i);
    printf("reduce: float sum=%.2f (tolerance rel 1e-5)\n", ref_f);
    if ((long long)got_i != ref_i) {
        printf("reduce: FAIL (int sum %d, expected %lld)\n", got_i, ref_i);
        return 1;
    }
    if (std::fabs((double)got_f - ref_f) > 1e-5 * std::fabs(ref_f)) {
        printf("reduce: FAIL (float sum %.6f, expected %.6f)\n", got_f, ref_f);
        return 1;
    }
    printf("reduce: PASS\n");
    return 0;
}
