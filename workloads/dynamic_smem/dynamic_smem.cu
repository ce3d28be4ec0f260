// dynamic_smem: kernels whose shared memory is `extern __shared__` sized at launch.
//  1. per-block reverse of a segment through extern __shared__ int[], size = blockDim * 4 bytes,
//     launched with two different block sizes (same kernel, different dynamic size)
//  2. one extern buffer carved into two arrays of different types (int counts + float values)
//  3. a kernel using 96 KB of dynamic shared memory: needs
//     cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize); launching the same-shaped
//     kernel (a second function, without the attribute) with 96 KB must fail with
//     cudaErrorInvalidValue; cudaFuncGetAttributes reports the raised limit.
// Exact integer compare (the float part uses values exactly representable: small integers).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                           \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            printf("dynamic_smem: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static uint32_t g_lcg = 161803u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__global__ void reverse_block(const int* in, int* out) {
    extern __shared__ int s[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    s[t] = in[base + t];
    __syncthreads();
    out[base + t] = s[blockDim.x - 1 - t];
}

// buffer layout: int hist[nbins] followed by float vals[blockDim.x]
__global__ void carve(const int* in, int nbins, int* hist_out, float* val_out) {
    extern __shared__ unsigned char raw[];
    int* hist = reinterpret_cast<int*>(raw);
    float* vals = reinterpret_cast<float*>(hist + nbins);
    int t = threadIdx.x;
    for (int b = t; b < nbins; b += blockDim.x) hist[b] = 0;
    int v = in[blockIdx.x * blockDim.x + t];
    vals[t] = (float)(v % 1000);
    __syncthreads();
    atomicAdd(&hist[v % nbins], 1);
    __syncthreads();
    for (int b = t; b < nbins; b += blockDim.x) hist_out[blockIdx.x * nbins + b] = hist[b];
    val_out[blockIdx.x * blockDim.x + t] = vals[t] + vals[(t + 1) % blockDim.x];
}

// each block stages `words` ints in shared memory, then every thread sums a strided set of them
// read back in reverse order
template <int TAG>
__global__ void big_smem(const int* in, int words, long long* out) {
    extern __shared__ int s[];
    const int* src = in + (size_t)blockIdx.x * words;
    for (int i = threadIdx.x; i < words; i += blockDim.x) s[i] = src[i];
    __syncthreads();
    long long acc = 0;
    for (int i = threadIdx.x; i < words; i += blockDim.x) acc += (long long)s[words - 1 - i] * (i % 5 + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main() {
    // ---- 1. reverse with two block sizes
    const int n1 = 96 * 64;
    std::vector<int> in1(n1);
    for (int i = 0; i < n1; ++i) in1[i] = (int)(lcg_next() >> 4);
    int *d_in1, *d_out1;
    CHECK(cudaMalloc(&d_in1, n1 * sizeof(int)));
    CHECK(cudaMalloc(&d_out1, n1 * sizeof(int)));
    CHECK(cudaMemcpy(d_in1, in1.data(), n1 * sizeof(int), cudaMemcpyHostToDevice));
    const int bsizes[2] = {64, 96};
    for (int k = 0; k < 2; ++k) {
        int bs = bsizes[k];
        reverse_block<<<n1 / bs, bs, bs * sizeof(int)>>>(d_in1, d_out1);
        CHECK(cudaGetLastError());
        std::vector<int> got(n1);
        CHECK(cudaMemcpy(got.data(), d_out1, n1 * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n1; ++i) {
            int blk = i / bs, t = i % bs;
            if (got[i] != in1[blk * bs + bs - 1 - t]) {
                printf("dynamic_smem: FAIL (reverse block=%d index %d)\n", bs, i);
                return 1;
            }
        }
        printf("dynamic_smem: reverse block=%d smem=%d bytes ok\n", bs, (int)(bs * sizeof(int)));
    }
    CHECK(cudaFree(d_in1));
    CHECK(cudaFree(d_out1));

    // ---- 2. carved buffer
    const int blocks2 = 20, bs2 = 128, nbins = 37;
    std::vector<int> in2(blocks2 * bs2);
    for (auto& v : in2) v = (int)(lcg_next() >> 8);
    int *d_in2, *d_hist;
    float* d_vals;
    CHECK(cudaMalloc(&d_in2, in2.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_hist, blocks2 * nbins * sizeof(int)));
    CHECK(cudaMalloc(&d_vals, in2.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_in2, in2.data(), in2.size() * sizeof(int), cudaMemcpyHostToDevice));
    size_t smem2 = nbins * sizeof(int) + bs2 * sizeof(float);
    carve<<<blocks2, bs2, smem2>>>(d_in2, nbins, d_hist, d_vals);
    CHECK(cudaGetLastError());
    std::vector<int> hist(blocks2 * nbins);
    std::vector<float> vals(in2.size());
    CHECK(cudaMemcpy(hist.data(), d_hist, hist.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(vals.data(), d_vals, vals.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks2; ++b) {
        std::vector<int> h(nbins, 0);
        for (int t = 0; t < bs2; ++t) h[in2[b * bs2 + t] % nbins]++;
        for (int k = 0; k < nbins; ++k)
            if (hist[b * nbins + k] != h[k]) {
                printf("dynamic_smem: FAIL (carve hist block %d bin %d: %d, expected %d)\n", b, k,
                       hist[b * nbins + k], h[k]);
                return 1;
            }
        for (int t = 0; t < bs2; ++t) {
            float e = (float)(in2[b * bs2 + t] % 1000) + (float)(in2[b * bs2 + (t + 1) % bs2] % 1000);
            if (vals[b * bs2 + t] != e) {
                printf("dynamic_smem: FAIL (carve vals block %d thread %d)\n", b, t);
                return 1;
            }
        }
    }
    printf("dynamic_smem: carved int[%d]+float[%d] (%d bytes) ok\n", nbins, bs2, (int)smem2);
    CHECK(cudaFree(d_in2));
    CHECK(cudaFree(d_hist));
    CHECK(cudaFree(d_vals));

    // ---- 3. > 48 KB
    const int words = 24 * 1024;  // 96 KB
    const size_t smem3 = words * sizeof(int);
    const int blocks3 = 3, bs3 = 256;
    std::vector<int> in3((size_t)blocks3 * words);
    for (auto& v : in3) v = (int)(lcg_next() % 20001) - 10000;
    int* d_in3;
    long long* d_out3;
    CHECK(cudaMalloc(&d_in3, in3.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_out3, blocks3 * bs3 * sizeof(long long)));
    CHECK(cudaMemcpy(d_in3, in3.data(), in3.size() * sizeof(int), cudaMemcpyHostToDevice));

    // without the attribute the launch is rejected
    big_smem<1><<<blocks3, bs3, smem3>>>(d_in3, words, d_out3);
    cudaError_t e = cudaGetLastError();
    if (e != cudaErrorInvalidValue) {
        printf("dynamic_smem: FAIL (96 KB launch without attribute returned %s, expected "
               "cudaErrorInvalidValue)\n", cudaGetErrorName(e));
        return 1;
    }
    printf("dynamic_smem: 96 KB launch without attribute rejected (%s)\n", cudaGetErrorName(e));

    CHECK(cudaFuncSetAttribute(big_smem<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem3));
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, big_smem<0>));
    if (attr.maxDynamicSharedSizeBytes != (int)smem3) {
        printf("dynamic_smem: FAIL (maxDynamicSharedSizeBytes %d, expected %d)\n",
               attr.maxDynamicSharedSizeBytes, (int)smem3);
        return 1;
    }
    big_smem<0><<<blocks3, bs3, smem3>>>(d_in3, words, d_out3);
    CHECK(cudaGetLastError());
    std::vector<long long> out3(blocks3 * bs3);
    CHECK(cudaMemcpy(out3.data(), d_out3, out3.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    long long total = 0;
    for (int b = 0; b < blocks3; ++b)
        for (int t = 0; t < bs3; ++t) {
            long long acc = 0;
            for (int i = t; i < words; i += bs3) acc += (long long)in3[(size_t)b * words + words - 1 - i] * (i % 5 + 1);
            total += acc;
            if (out3[b * bs3 + t] != acc) {
                printf("dynamic_smem: FAIL (big block %d thread %d: %lld, expected %lld)\n", b, t,
                       out3[b * bs3 + t], acc);
                return 1;
            }
        }
    printf("dynamic_smem: %d KB with cudaFuncAttributeMaxDynamicSharedMemorySize ok, total=%lld\n",
           (int)(smem3 / 1024), total);
    CHECK(cudaFree(d_in3));
    CHECK(cudaFree(d_out3));
    printf("dynamic_smem: PASS\n");
    return 0;
}
