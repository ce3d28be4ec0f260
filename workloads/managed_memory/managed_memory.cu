// managed_memory: unified memory. cudaMallocManaged arrays are written by the host, updated by
// kernels, read back by the host directly after cudaDeviceSynchronize (no cudaMemcpy); a
// `__managed__` global counter and a `__managed__` array with an initial value are read and written
// from both sides; cudaMallocManaged with cudaMemAttachGlobal; pointer attributes report managed
// memory. Exact integer compare.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            printf("managed_memory: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static uint32_t g_lcg = 4711u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__managed__ int g_count = 0;
__managed__ int g_scale[4] = {2, 3, 5, 7};

__global__ void scale_and_count(int* data, int n, int threshold) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = data[i] * g_scale[i & 3];
        data[i] = v;
        if (v > threshold) atomicAdd(&g_count, 1);
    }
}

__global__ void prefix_pairs(const int* data, long long* pairs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) pairs[i] = (long long)data[2 * i] * data[2 * i + 1];
}

int main() {
    const int n = 10000;
    const int threshold = 1500;
    int* data;
    long long* pairs;
    CHECK(cudaMallocManaged(&data, n * sizeof(int)));
    CHECK(cudaMallocManaged(&pairs, (n / 2) * sizeof(long long), cudaMemAttachGlobal));
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, data));
    if (pa.type != cudaMemoryTypeManaged) {
        printf("managed_memory: FAIL (pointer attribute type %d, expected cudaMemoryTypeManaged)\n",
               (int)pa.type);
        return 1;
    }
    std::vector<int> orig(n);
    for (int i = 0; i < n; ++i) data[i] = orig[i] = (int)(lcg_next() % 1000);

    // round 1: the __managed__ initial values
    scale_and_count<<<(n + 255) / 256, 256>>>(data, n, threshold);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> ref(n);
    int ref_count = 0;
    for (int i = 0; i < n; ++i) {
        ref[i] = orig[i] * (i % 4 == 0 ? 2 : i % 4 == 1 ? 3 : i % 4 == 2 ? 5 : 7);
        ref_count += ref[i] > threshold;
    }
    for (int i = 0; i < n; ++i)
        if (data[i] != ref[i]) {
            printf("managed_memory: FAIL (round 1 element %d: %d, expected %d)\n", i, data[i], ref[i]);
            return 1;
        }
    if (g_count != ref_count) {
        printf("managed_memory: FAIL (round 1 count %d, expected %d)\n", g_count, ref_count);
        return 1;
    }
    printf("managed_memory: round 1 count=%d\n", g_count);

    // round 2: the host changes the __managed__ array and counter, the kernel sees it
    g_scale[0] = -1; g_scale[1] = 1; g_scale[2] = 2; g_scale[3] = -3;
    g_count = 1000;
    scale_and_count<<<(n + 255) / 256, 256>>>(data, n, threshold);
    CHECK(cudaGetLastError());
    prefix_pairs<<<(n / 2 + 255) / 256, 256>>>(data, pairs, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    const int s2[4] = {-1, 1, 2, -3};
    ref_count = 1000;
    for (int i = 0; i < n; ++i) {
        ref[i] *= s2[i & 3];
        ref_count += ref[i] > threshold;
    }
    long long psum = 0;
    for (int i = 0; i < n; ++i)
        if (data[i] != ref[i]) {
            printf("managed_memory: FAIL (round 2 element %d: %d, expected %d)\n", i, data[i], ref[i]);
            return 1;
        }
    for (int i = 0; i < n / 2; ++i) {
        long long e = (long long)ref[2 * i] * ref[2 * i + 1];
        psum += e;
        if (pairs[i] != e) {
            printf("managed_memory: FAIL (pair %d: %lld, expected %lld)\n", i, pairs[i], e);
            return 1;
        }
    }
    if (g_count != ref_count) {
        printf("managed_memory: FAIL (round 2 count %d, expected %d)\n", g_count, ref_count);
        return 1;
    }
    printf("managed_memory: round 2 count=%d pair sum=%lld\n", g_count, psum);
    CHECK(cudaFree(data));
    CHECK(cudaFree(pairs));
    printf("managed_memory: PASS\n");
    return 0;
}
