// divergent_sync: the Volta whitepaper's demo_B. A CTA-wide barrier is reached from both sides of
// a branch whose condition is a short-circuit `a && b` that diverges inside every warp:
//     if (a && b) { ...; barrier; ... } else { ...; barrier; ... }
// Pre-Volta this was undefined (the barrier counted warps, and the two sides of a diverged warp
// wait at different bar instructions). With independent thread scheduling (sm_70+) the
// *non-aligned* PTX barrier `barrier.sync 0` counts threads, so every thread arriving at either
// barrier completes the same barrier. The kernel uses __barrier_sync(0), which emits exactly that
// (it is what cooperative_groups' thread_block::sync() uses). Plain __syncthreads() is NOT enough:
// it emits `bar.sync 0`, which PTX defines as `barrier.sync.aligned 0` (every thread of a warp
// must execute the same barrier instruction), and this program built with __syncthreads() hangs on
// an H200. Each side writes shared memory before its barrier and reads another thread's value
// after it, so a barrier that released early (or deadlocked) shows up as a wrong value.
// Exact integer compare.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            printf("divergent_sync: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static uint32_t g_lcg = 55555u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int BLOCK = 256;
const int ROUNDS = 4;

__global__ void demo_b(const int* in, const int* sel, int* out) {
    __shared__ int buf[BLOCK];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK * ROUNDS;
    int acc = 0;
    for (int r = 0; r < ROUNDS; ++r) {
        int v = in[base + r * BLOCK + t];
        bool a = (t % 3) != 0;
        // b is only evaluated when a is true (short circuit): it loads sel[], so the compiler
        // keeps a second conditional branch instead of folding a && b into one predicate
        if (a && sel[v & 63] != 0) {
            buf[t] = v * 3 + r;
            __barrier_sync(0);
            acc += buf[(t + 1) % BLOCK] ^ 0x55;
            __barrier_sync(0);
        } else {
            buf[t] = v - 7 * r;
            __barrier_sync(0);
            acc += buf[(t + BLOCK - 5) % BLOCK] + 11;
            __barrier_sync(0);
        }
    }
    out[blockIdx.x * BLOCK + t] = acc;
}

int main() {
    const int blocks = 12;
    const int n_in = blocks * BLOCK * ROUNDS;
    std::vector<int> in(n_in);
    for (int i = 0; i < n_in; ++i) in[i] = (int)(lcg_next() >> 12);
    std::vector<int> sel(64);
    for (int i = 0; i < 64; ++i) sel[i] = (int)((lcg_next() >> 16) & 1);

    // CPU reference: per round, every thread's shared value first, then the reads
    std::vector<int> ref(blocks * BLOCK);
    int taken = 0;
    for (int b = 0; b < blocks; ++b) {
        std::vector<int> acc(BLOCK, 0), buf(BLOCK);
        std::vector<bool> cond(BLOCK);
        for (int r = 0; r < ROUNDS; ++r) {
            for (int t = 0; t < BLOCK; ++t) {
                int v = in[b * BLOCK * ROUNDS + r * BLOCK + t];
                cond[t] = (t % 3) != 0 && sel[v & 63] != 0;
                buf[t] = cond[t] ? v * 3 + r : v - 7 * r;
                taken += cond[t];
            }
            for (int t = 0; t < BLOCK; ++t)
                acc[t] += cond[t] ? (buf[(t + 1) % BLOCK] ^ 0x55) : buf[(t + BLOCK - 5) % BLOCK] + 11;
        }
        for (int t = 0; t < BLOCK; ++t) ref[b * BLOCK + t] = acc[t];
    }

    int *d_in, *d_sel, *d_out;
    CHECK(cudaMalloc(&d_in, n_in * sizeof(int)));
    CHECK(cudaMalloc(&d_sel, 64 * sizeof(int)));
    CHECK(cudaMemcpy(d_sel, sel.data(), 64 * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&d_out, blocks * BLOCK * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n_in * sizeof(int), cudaMemcpyHostToDevice));
    demo_b<<<blocks, BLOCK>>>(d_in, d_sel, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got(blocks * BLOCK);
    CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sel));
    CHECK(cudaFree(d_out));

    long long checksum = 0;
    for (size_t i = 0; i < ref.size(); ++i) checksum += (long long)ref[i] * (long long)(i % 7 + 1);
    printf("divergent_sync: blocks=%d block=%d rounds=%d\n", blocks, BLOCK, ROUNDS);
    printf("divergent_sync: if-branch taken %d of %d times, checksum=%lld\n", taken, n_in, checksum);
    for (size_t i = 0; i < ref.size(); ++i) {
        if (got[i] != ref[i]) {
            printf("divergent_sync: FAIL (thread %zu: %d, expected %d)\n", i, got[i], ref[i]);
            return 1;
        }
    }
    printf("divergent_sync: PASS\n");
    return 0;
}
