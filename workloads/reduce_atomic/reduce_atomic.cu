// reduce_atomic: single-pass reductions finished with global atomics.
//  1. int sum: grid-stride accumulate, warp reduction with __shfl_xor_sync, per-warp partials in
//     shared memory, first warp reduces them, one atomicAdd per block (exact).
//  2. cooperative_groups: thread_block_tile<32> + cg::reduce(plus) per warp, one atomicAdd per
//     warp into an unsigned long long sum (exact) and cg::reduce(greater) + atomicMax (exact).
//  3. float sum through warp shuffles + atomicAdd(float): block order is not fixed, so the result
//     is checked with a relative tolerance of 1e-5 against a double CPU sum.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("reduce_atomic: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 777u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__device__ __forceinline__ int warp_sum(int v) {
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}
__device__ __forceinline__ float warp_sumf(float v) {
    for (int m = 16; m > 0; m >>= 1) v += __shfl_down_sync(0xffffffffu, v, m);
    return v;
}

__global__ void sum_shfl_atomic(const int* __restrict__ in, int n, int* out) {
    __shared__ int partial[32];
    int acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += in[i];
    acc = warp_sum(acc);
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) partial[wid] = acc;
    __syncthreads();
    if (wid == 0) {
        int nw = (blockDim.x + 31) >> 5;
        int v = lane < nw ? partial[lane] : 0;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

__global__ void sum_cg(const int* __restrict__ in, int n, unsigned long long* sum, int* maxv) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    long long acc = 0;
    int mx = INT_MIN;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        acc += in[i] + 1000;  // shifted to be non-negative
        mx = max(mx, in[i]);
    }
    unsigned long long s = cg::reduce(tile, (unsigned long long)acc, cg::plus<unsigned long long>());
    int m = cg::reduce(tile, mx, cg::greater<int>());
    if (tile.thread_rank() == 0) {
        atomicAdd(sum, s);
        atomicMax(maxv, m);
    }
}

__global__ void sum_float_atomic(const float* __restrict__ in, int n, float* out) {
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += in[i];
    acc = warp_sumf(acc);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

int main() {
    const int n = 70001;
    std::vector<int> vi(n);
    std::vector<float> vf(n);
    for (int i = 0; i < n; ++i) {
        vi[i] = (int)(lcg_next() % 2001) - 1000;
        vf[i] = (float)(lcg_next() >> 8) * (1.0f / 16777216.0f);
    }
    long long ref_sum = 0, ref_shift = 0;
    int ref_max = INT_MIN;
    double ref_f = 0.0;
    for (int i = 0; i < n; ++i) {
        ref_sum += vi[i];
        ref_shift += vi[i] + 1000;
        if (vi[i] > ref_max) ref_max = vi[i];
        ref_f += vf[i];
    }

    int *din, *dsum, *dmax;
    unsigned long long* dsum64;
    float *dinf, *dsumf;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dinf, n * sizeof(float)));
    CHECK(cudaMalloc(&dsum, sizeof(int)));
    CHECK(cudaMalloc(&dmax, sizeof(int)));
    CHECK(cudaMalloc(&dsum64, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&dsumf, sizeof(float)));
    CHECK(cudaMemcpy(din, vi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dinf, vf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dsum, 0, sizeof(int)));
    CHECK(cudaMemset(dsum64, 0, sizeof(unsigned long long)));
    CHECK(cudaMemset(dsumf, 0, sizeof(float)));
    int init_max = INT_MIN;
    CHECK(cudaMemcpy(dmax, &init_max, sizeof(int), cudaMemcpyHostToDevice));

    sum_shfl_atomic<<<40, 224>>>(din, n, dsum);  // 7 warps per block
    CHECK(cudaGetLastError());
    sum_cg<<<32, 256>>>(din, n, dsum64, dmax);
    CHECK(cudaGetLastError());
    sum_float_atomic<<<24, 128>>>(dinf, n, dsumf);
    CHECK(cudaGetLastError());

    int got_sum, got_max;
    unsigned long long got_shift;
    float got_f;
    CHECK(cudaMemcpy(&got_sum, dsum, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got_max, dmax, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got_shift, dsum64, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got_f, dsumf, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dinf));
    CHECK(cudaFree(dsum));
    CHECK(cudaFree(dmax));
    CHECK(cudaFree(dsum64));
    CHECK(cudaFree(dsumf));

    printf("reduce_atomic: n=%d\n", n);
    printf("reduce_atomic: shfl+atomicAdd int sum=%lld\n", ref_sum);
    printf("reduce_atomic: cg::reduce u64 sum=%lld max=%d\n", ref_shift, ref_max);
    printf("reduce_atomic: float atomicAdd sum=%.2f (tolerance rel 1e-5)\n", ref_f);
    if ((long long)got_sum != ref_sum) {
        printf("reduce_atomic: FAIL (int sum %d, expected %lld)\n", got_sum, ref_sum);
        return 1;
    }
    if ((long long)got_shift != ref_shift) {
        printf("reduce_atomic: FAIL (cg sum %llu, expected %lld)\n", got_shift, ref_shift);
        return 1;
    }
    if (got_max != ref_max) {
        printf("reduce_atomic: FAIL (cg max %d, expected %d)\n", got_max, ref_max);
        return 1;
    }
    if (std::fabs((double)got_f - ref_f) > 1e-5 * std::fabs(ref_f)) {
        printf("reduce_atomic: FAIL (float sum %.6f, expected %.6f)\n", got_f, ref_f);
        return 1;
    }
    printf("reduce_atomic: PASS\n");
    return 0;
}
