// ifetch_dram: how much DRAM a kernel's instruction fetch reads, under Nsight Compute's L2 flush
// (--cache-control all). Each kernel straight<N> is N x 8 independent FFMA (16 B each, no branch,
// no data read) and one 128-B store; launched with 1 CTA of 32 threads (one SM fetches the code)
// and with one CTA per SM (every SM fetches it; L2 should serve all but the first). The kernels
// are apart in the module (noinline device code between them is not generated: each template is
// its own kernel). Compare dram__bytes_read.sum with the kernel's SASS size (cuobjdump -elf:
// .text.<kernel>) to see how far past its code the fetch reads.
//   nvcc -cudart shared -arch=sm_90 -O3 -o ifetch_dram ifetch_dram.cu
//   ncu --cache-control all --metrics dram__bytes_read.sum,lts__t_sectors_op_read.sum ./ifetch_dram
#include <cstdio>
#include <cuda_runtime.h>

template <int N>
__global__ void straight(float* out, float a) {
    float r0 = a + threadIdx.x, r1 = r0 + 1, r2 = r0 + 2, r3 = r0 + 3, r4 = r0 + 4, r5 = r0 + 5, r6 = r0 + 6,
          r7 = r0 + 7;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        r0 = r0 * r0 + a; r1 = r1 * r1 + a; r2 = r2 * r2 + a; r3 = r3 * r3 + a;
        r4 = r4 * r4 + a; r5 = r5 * r5 + a; r6 = r6 * r6 + a; r7 = r7 * r7 + a;
    }
    if (blockIdx.x == 0) out[threadIdx.x] = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7;
}

template <int N>
static void run(float* out, int sms) {
    straight<N><<<1, 32>>>(out, 0.5f);
    straight<N><<<sms, 32>>>(out, 0.5f);
    cudaDeviceSynchronize();
    printf("straight<%d>: %d FFMA, launched with 1 and %d CTAs\n", N, N * 8, sms);
}

int main() {
    float* out;
    if (cudaMalloc(&out, 32 * sizeof(float)) != cudaSuccess) return 1;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    run<1>(out, sms);
    run<8>(out, sms);
    run<32>(out, sms);
    run<128>(out, sms);
    run<512>(out, sms);
    cudaError_t e = cudaDeviceSynchronize();
    printf("ifetch_dram: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
