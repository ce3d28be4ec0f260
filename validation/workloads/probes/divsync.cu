// divsync: cycles per barrier of a 256-thread block, converged vs divergent warps (clock64 in
// thread 0 around a loop of barriers). mode 0: __syncthreads() (bar.sync: BAR.SYNC); mode 1:
// __barrier_sync(0) (barrier.sync: BRA.DIV check + BAR.SYNC), all threads on one path; mode 2:
// __barrier_sync(0) on two paths split by threadIdx.x % 3 (every warp divergent: the
// WARPSYNC.COLLECTIVE sequence); mode 3: as 2 with a shared store and load around each barrier
// (divergent_sync's demo_b body without its global loads).
#include <cstdio>
#include <cuda_runtime.h>
__device__ __forceinline__ long long clk() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)); return c; }
__global__ void k(int mode, int iters, long long* t, int* out) {
    __shared__ int buf[256];
    int tid = threadIdx.x, acc = 0;
    __syncthreads();
    long long t0 = clk();
    if (mode == 0) {
        for (int i = 0; i < iters; ++i) { __syncthreads(); acc += i; }
    } else if (mode == 1) {
        for (int i = 0; i < iters; ++i) { __barrier_sync(0); acc += i; }
    } else if (mode == 2) {
        for (int i = 0; i < iters; ++i) {
            if (tid % 3 != 0) { __barrier_sync(0); acc += i; } else { __barrier_sync(0); acc -= i; }
        }
    } else {
        for (int i = 0; i < iters; ++i) {
            if (tid % 3 != 0) { buf[tid] = i * 3; __barrier_sync(0); acc += buf[(tid + 1) % 256] ^ 0x55; __barrier_sync(0); }
            else { buf[tid] = i - 7; __barrier_sync(0); acc += buf[(tid + 251) % 256] + 11; __barrier_sync(0); }
        }
    }
    long long t1 = clk();
    out[tid] = acc;
    if (tid == 0) t[0] = t1 - t0;
}
int main() {
    long long* dt; int* dout; long long h;
    cudaMalloc(&dt, 8); cudaMalloc(&dout, 256 * 4);
    const int iters = 1000;
    const char* names[] = {"syncthreads_converged", "barrier_sync_converged", "barrier_sync_divergent", "barrier_sync_divergent_smem_pair"};
    for (int mode = 0; mode < 4; ++mode)
        for (int rep = 0; rep < 3; ++rep) {
            k<<<1, 256>>>(mode, iters, dt, dout);
            cudaMemcpy(&h, dt, 8, cudaMemcpyDeviceToHost);
            if (rep == 2) printf("%s,cycles_per_iteration,%.2f,cycles\n", names[mode], (double)h / iters);
        }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("divsync: FAIL %s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
