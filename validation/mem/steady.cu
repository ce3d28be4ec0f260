// steady: one STREAM kernel (copy, read or init, the kernels of bandwidth.cu) alone over fresh arrays,
// one launch, no warm-up: for steady-state DRAM measurements in the simulator with
// WARPSIM_MEM_SAMPLE (validation/mem/steady_state.sh). Usage: steady copy|read|init [MiB] (default 128)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
__global__ void k_init(uint4* __restrict__ a, size_t n16) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        unsigned w = (unsigned)(i * 4);
        a[i] = make_uint4(w, w + 1, w + 2, w + 3);
    }
}
__global__ void k_copy(const uint4* __restrict__ a, uint4* __restrict__ b, size_t n16) {
#pragma unroll 4
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}
__global__ void k_read(const uint4* __restrict__ a, size_t n16, unsigned* out) {
    unsigned acc = 0;
#pragma unroll 4
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = a[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 0x12345678u) atomicAdd(out, acc);
}
int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "copy";
    size_t mib = argc > 2 ? strtoull(argv[2], 0, 10) : 128;
    size_t bytes = mib << 20, n16 = bytes / 16;
    uint4 *a, *b; unsigned* out;
    cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMalloc(&out, 4);
    int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int blocks = sms * 8;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    if (!strcmp(what, "copy")) k_copy<<<blocks, 256>>>(a, b, n16);
    else if (!strcmp(what, "read")) k_read<<<blocks, 256>>>(a, n16, out);
    else k_init<<<blocks, 256>>>(a, n16);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
    double moved = (double)bytes * (!strcmp(what, "copy") ? 2 : 1);
    printf("%s %zu MiB: %.4f ms, %.1f GB/s (err %s)\n", what, mib, ms, moved / ms / 1e6, cudaGetErrorString(cudaGetLastError()));
    return 0;
}
