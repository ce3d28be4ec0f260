// ifetch: the cost of fetching straight-line code that is not yet in the SM's instruction caches.
// One warp (one block of 32 threads) runs N x 8 independent FFMA chains (r = r * r + a, fully
// unrolled: N * 8 FFMA of 16 bytes each, no branch) between two clock64 reads. Each size is run
//   cold: after a 256 MiB memset (evicts the code from the 50 MB L2) - the first launch of the kernel,
//   warm: the same kernel again right after.
// Prints: size (instructions), bytes of code, cycles cold, cycles warm, cycles per 128-byte line.
// The FFMA chains alone need N * 8 issue cycles (8 independent chains of 4-cycle FFMA).
//   nvcc -cudart shared -arch=sm_80 -O3 -o ifetch ifetch.cu   (also run through warpsim --gpu h100)
#include <cstdio>
#include <cuda_runtime.h>

template <int N>
__global__ void straight(float* out, long long* t, float a) {
    float r0 = a + threadIdx.x, r1 = r0 + 1, r2 = r0 + 2, r3 = r0 + 3, r4 = r0 + 4, r5 = r0 + 5, r6 = r0 + 6,
          r7 = r0 + 7;
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < N; ++i) {
        r0 = r0 * r0 + a; r1 = r1 * r1 + a; r2 = r2 * r2 + a; r3 = r3 * r3 + a;
        r4 = r4 * r4 + a; r5 = r5 * r5 + a; r6 = r6 * r6 + a; r7 = r7 * r7 + a;
    }
    long long t1 = clock64();
    out[threadIdx.x] = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7;
    if (threadIdx.x == 0) t[0] = t1 - t0;
}

static char* g_flush;
template <int N>
static void run(float* out, long long* t) {
    long long c[2];
    for (int rep = 0; rep < 2; ++rep) {
        if (rep == 0) cudaMemset(g_flush, rep + 1, 256u << 20);
        straight<N><<<1, 32>>>(out, t, 0.5f);
        cudaMemcpy(&c[rep], t, 8, cudaMemcpyDeviceToHost);
    }
    const int instrs = N * 8;
    printf("%d,%d,%lld,%lld,%.1f,%.1f\n", instrs, instrs * 16, c[0], c[1], c[0] / (instrs * 16 / 128.0),
           c[1] / (instrs * 16 / 128.0));
}

int main() {
    float* out; long long* t;
    cudaMalloc(&out, 128); cudaMalloc(&t, 8);
    if (cudaMalloc(&g_flush, 256u << 20) != cudaSuccess) { printf("no flush buffer\n"); return 1; }
    printf("ffma,code_bytes,cycles_cold,cycles_warm,cold_per_line,warm_per_line\n");
    run<16>(out, t);
    run<64>(out, t);
    run<256>(out, t);
    run<1024>(out, t);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
