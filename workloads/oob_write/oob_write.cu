// oob_write: error reporting for a faulting kernel. A correct kernel runs first (its result is
// checked); then a kernel stores out of bounds of that 1 KB cudaMalloc, through an index computed
// as if the buffer started at address 0 (p[16 - p/4], i.e. address 0x40 in the never-mapped first
// page), far outside any allocation, so it faults on real hardware as well. (ptr + (1 << 28) ints
// is not deterministic on hardware: depending on where the allocation lands, an H200 reported
// cudaErrorIllegalAddress or cudaErrorInvalidAddressSpace for it.) The launch itself is accepted; the
// fault is reported asynchronously: cudaDeviceSynchronize() must return cudaErrorIllegalAddress.
// (cudaGetLastError right after the launch normally returns cudaSuccess on hardware, but the CUDA
// documentation allows it to already report errors of asynchronous launches, e.g. when the kernel
// ran to its fault before the call, so both answers are accepted there and neither is printed.)
// The error is sticky (the context is unusable): a later cudaMalloc and cudaGetLastError report
// it again. The program prints PASS when all of that holds.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            printf("oob_write: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static uint32_t g_lcg = 6502u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__global__ void fill(int* p, int n, int seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = seed ^ (i * 2654435761u);
}

__global__ void oob(int* p, int base_word) {
    // index relative to the buffer: -(address of p in words) + base_word -> absolute 4*base_word
    long long idx = -(long long)((unsigned long long)p / sizeof(int)) + base_word;
    if (threadIdx.x == 0) p[idx] = 42;
}

int main() {
    const int n = 256;  // 1 KB
    int seed = (int)(lcg_next() >> 1);
    int* d;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    fill<<<1, n>>>(d, n, seed);
    CHECK(cudaGetLastError());
    int h[n];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (h[i] != (int)(seed ^ (i * 2654435761u))) {
            printf("oob_write: FAIL (fill element %d)\n", i);
            return 1;
        }
    printf("oob_write: in-bounds kernel ok\n");

    oob<<<1, 32>>>(d, 16);
    cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess && launch != cudaErrorIllegalAddress) {
        printf("oob_write: FAIL (launch returned %s, expected cudaSuccess)\n", cudaGetErrorName(launch));
        return 1;
    }
    cudaError_t sync = cudaDeviceSynchronize();
    printf("oob_write: cudaDeviceSynchronize returned %s\n", cudaGetErrorName(sync));
    if (sync != cudaErrorIllegalAddress) {
        printf("oob_write: FAIL (expected cudaErrorIllegalAddress)\n");
        return 1;
    }
    int* d2 = nullptr;
    cudaError_t after = cudaMalloc(&d2, 64);
    cudaError_t last = cudaGetLastError();
    printf("oob_write: sticky: cudaMalloc returned %s, cudaGetLastError returned %s\n",
           cudaGetErrorName(after), cudaGetErrorName(last));
    if (after != cudaErrorIllegalAddress || last != cudaErrorIllegalAddress) {
        printf("oob_write: FAIL (the error is not sticky)\n");
        return 1;
    }
    printf("oob_write: PASS\n");
    return 0;
}
