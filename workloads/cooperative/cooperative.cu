// cooperative: block- and warp-level synchronisation.
//  - cooperative_groups: thread_block, tiled_partition<16> / <4>, tile.shfl_down, tile.any/all,
//    cg::reduce (plus, greater), thread_rank/meta_group_rank
//  - __syncthreads_count / __syncthreads_and / __syncthreads_or
//  - named barriers via inline PTX (warp specialisation: warps 0-1 produce into shared memory and
//    `bar.arrive 1, 128`; warps 2-3 `bar.sync 1, 128` and consume)
//  - inter-block communication that never waits on another block: the "last block done" pattern
//    (partials + __threadfence + atomicAdd ticket; whichever block finishes last sums the partials),
//    safe under any block execution order
// Exact integer compare.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            printf("cooperative: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static uint32_t g_lcg = 2718u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int THREADS = 128;
const int BLOCKS = 24;
const int NRES = 8;  // per-thread results of kernel 1

__global__ void groups_kernel(const int* __restrict__ in, int* __restrict__ out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
    const int gid = blockIdx.x * THREADS + block.thread_rank();
    const int v = in[gid];
    int* o = out + (size_t)gid * NRES;
    o[0] = cg::reduce(t16, v, cg::plus<int>());
    o[1] = cg::reduce(t4, v, cg::greater<int>());
    int s = v;
    for (int off = t16.size() / 2; off > 0; off /= 2) s += t16.shfl_down(s, off);
    o[2] = t16.thread_rank() == 0 ? s : -1;
    o[3] = (int)t16.meta_group_rank() * 100 + (int)t4.meta_group_rank();
    o[4] = t4.any(v > 900) ? 1 : 0;
    o[5] = t16.all(v > -1000) ? 1 : 0;
    o[6] = __syncthreads_count(v > 0);
    o[7] = __syncthreads_and(v > -990) * 2 + __syncthreads_or(v == 0);
}

__device__ __forceinline__ void named_bar_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// warps 0-1 produce 64 squared values (of the inputs mod 256), warps 2-3 consume them; then last-block-done reduction
__global__ void specialised_kernel(const int* __restrict__ in, int* __restrict__ out,
                                   int* __restrict__ partials, unsigned* __restrict__ ticket,
                                   int* __restrict__ total) {
    __shared__ int stage[64];
    __shared__ bool am_last;
    const int tid = threadIdx.x;
    const int base = blockIdx.x * 64;
    int my = 0;
    if (tid < 64) {
        const int x = in[base + tid] % 256;
        stage[tid] = x * x;
        named_bar_arrive(1, 128);            // producers do not wait
    } else {
        named_bar_sync(1, 128);              // consumers wait for all 64 producers
        int j = tid - 64;
        my = stage[j] + stage[63 - j];
        out[base + j] = my;
    }
    // block partial of the consumers' values via __syncthreads_count-free tree in shared memory
    __shared__ int red[THREADS];
    red[tid] = my;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        partials[blockIdx.x] = red[0];
        __threadfence();                     // partial visible before taking a ticket
        unsigned t = atomicAdd(ticket, 1u);
        am_last = (t == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last && tid == 0) {               // only the last block reads the others' partials
        __threadfence();
        int sum = 0;
        for (int b = 0; b < (int)gridDim.x; ++b) sum += ((volatile int*)partials)[b];
        *total = sum;
        *ticket = 0;                         // reset for a possible relaunch
    }
}

int main() {
    const int n = BLOCKS * THREADS;
    std::vector<int> in(n);
    for (auto& v : in) v = (int)(lcg_next() % 1999) - 999;
    for (int i = 0; i < THREADS; ++i) in[5 * THREADS + i] = 500 + i;  // block 5: all positive
    in[7 * THREADS + 3] = 0;
    int *din, *dout, *dout2, *dpart, *dtotal; unsigned* dticket;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, (size_t)n * NRES * sizeof(int)));
    CHECK(cudaMalloc(&dout2, n * sizeof(int)));
    CHECK(cudaMalloc(&dpart, BLOCKS * 2 * sizeof(int)));
    CHECK(cudaMalloc(&dtotal, sizeof(int)));
    CHECK(cudaMalloc(&dticket, sizeof(unsigned)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dticket, 0, sizeof(unsigned)));
    CHECK(cudaMemset(dtotal, 0, sizeof(int)));
    groups_kernel<<<BLOCKS, THREADS>>>(din, dout);
    CHECK(cudaGetLastError());
    const int sblocks = n / 64;  // each block consumes 64 inputs
    specialised_kernel<<<sblocks, THREADS>>>(din, dout2, dpart, dticket, dtotal);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> out((size_t)n * NRES), out2(n);
    int total = 0;
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out2.data(), dout2, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(din)); CHECK(cudaFree(dout)); CHECK(cudaFree(dout2));
    CHECK(cudaFree(dpart)); CHECK(cudaFree(dtotal)); CHECK(cudaFree(dticket));

    int bad = 0;
    for (int b = 0; b < BLOCKS; ++b) {
        const int* bi = &in[b * THREADS];
        int cnt = 0, all_gt = 1, any0 = 0;
        for (int t = 0; t < THREADS; ++t) { cnt += bi[t] > 0; all_gt &= bi[t] > -990; any0 |= bi[t] == 0; }
        for (int t = 0; t < THREADS; ++t) {
            int r[NRES];
            int g16 = t / 16 * 16, g4 = t / 4 * 4;
            int s16 = 0, m4 = bi[g4], all16 = 1, any4 = 0;
            for (int k = 0; k < 16; ++k) { s16 += bi[g16 + k]; all16 &= bi[g16 + k] > -1000; }
            for (int k = 0; k < 4; ++k) { m4 = bi[g4 + k] > m4 ? bi[g4 + k] : m4; any4 |= bi[g4 + k] > 900; }
            r[0] = s16; r[1] = m4; r[2] = t % 16 == 0 ? s16 : -1; r[3] = (t / 16) * 100 + t / 4;
            r[4] = any4; r[5] = all16; r[6] = cnt; r[7] = all_gt * 2 + any0;
            for (int j = 0; j < NRES; ++j) {
                int g = out[((size_t)b * THREADS + t) * NRES + j];
                if (g != r[j]) { if (bad < 3) printf("cooperative: block %d thread %d result %d got %d expected %d\n", b, t, j, g, r[j]); ++bad; }
            }
        }
    }
    int ref_total = 0, bad2 = 0;
    for (int b = 0; b < sblocks; ++b)
        for (int j = 0; j < 64; ++j) {
            int x = in[b * 64 + j] % 256, y = in[b * 64 + 63 - j] % 256;
            int r = x * x + y * y;
            ref_total += r;
            if (out2[b * 64 + j] != r) ++bad2;
        }
    printf("cooperative: groups kernel %d blocks x %d threads, block 5 count=%d\n", BLOCKS, THREADS, THREADS);
    printf("cooperative: named-barrier kernel %d blocks, last-block total=%d\n", sblocks, ref_total);
    if (bad || bad2 || total != ref_total) {
        printf("cooperative: FAIL (groups mismatches=%d, named-barrier mismatches=%d, total %d vs %d)\n", bad, bad2, total, ref_total);
        return 1;
    }
    printf("cooperative: PASS\n");
    return 0;
}
