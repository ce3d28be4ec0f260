// spinlock: the Volta whitepaper's "starvation-free algorithm" demo (demo_A): every thread takes a
// per-bucket spin lock with an atomicCAS loop, updates the bucket non-atomically (volatile
// read-modify-write of a count, a sum and a max), and releases it with atomicExch. Threads of the
// same warp contend for the same lock, which only terminates with independent thread scheduling
// (sm_70+): the lock holder must make progress while its warp-mates spin.
// Exact integer compare of every bucket against a CPU reference.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            printf("spinlock: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static uint32_t g_lcg = 99991u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int NBUCKETS = 8;

struct Bucket { int count; int sum; int max; int pad; };

__device__ void lock(int* l) {
    while (atomicCAS(l, 0, 1) != 0) { }
    __threadfence();
}
__device__ void unlock(int* l) {
    __threadfence();
    atomicExch(l, 0);
}

__global__ void insert(const int* __restrict__ keys, const int* __restrict__ vals, int n,
                       int* locks, Bucket* buckets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = keys[i];
    lock(&locks[b]);
    volatile Bucket* bk = &buckets[b];
    bk->count = bk->count + 1;
    bk->sum = bk->sum + vals[i];
    if (vals[i] > bk->max) bk->max = vals[i];
    unlock(&locks[b]);
}

int main() {
    const int n = 4096;
    std::vector<int> keys(n), vals(n);
    for (int i = 0; i < n; ++i) {
        uint32_t r = lcg_next();
        // skewed: half the threads hit bucket 0, so whole warps fight over one lock
        keys[i] = ((r >> 20) & 1) ? 0 : (int)((r >> 8) % NBUCKETS);
        vals[i] = (int)(lcg_next() % 100000);
    }
    Bucket ref[NBUCKETS] = {};
    for (int i = 0; i < n; ++i) {
        Bucket& b = ref[keys[i]];
        b.count++;
        b.sum += vals[i];
        if (vals[i] > b.max) b.max = vals[i];
    }

    int *d_keys, *d_vals, *d_locks;
    Bucket* d_buckets;
    CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
    CHECK(cudaMalloc(&d_vals, n * sizeof(int)));
    CHECK(cudaMalloc(&d_locks, NBUCKETS * sizeof(int)));
    CHECK(cudaMalloc(&d_buckets, NBUCKETS * sizeof(Bucket)));
    CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vals, vals.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_locks, 0, NBUCKETS * sizeof(int)));
    CHECK(cudaMemset(d_buckets, 0, NBUCKETS * sizeof(Bucket)));
    insert<<<n / 256, 256>>>(d_keys, d_vals, n, d_locks, d_buckets);
    CHECK(cudaGetLastError());
    Bucket got[NBUCKETS];
    int locks_after[NBUCKETS];
    CHECK(cudaMemcpy(got, d_buckets, sizeof(got), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(locks_after, d_locks, sizeof(locks_after), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_keys));
    CHECK(cudaFree(d_vals));
    CHECK(cudaFree(d_locks));
    CHECK(cudaFree(d_buckets));

    long long total = 0;
    for (int b = 0; b < NBUCKETS; ++b) total += ref[b].sum;
    printf("spinlock: threads=%d buckets=%d\n", n, NBUCKETS);
    printf("spinlock: bucket0 count=%d sum=%d max=%d\n", ref[0].count, ref[0].sum, ref[0].max);
    printf("spinlock: total sum=%lld\n", total);
    for (int b = 0; b < NBUCKETS; ++b) {
        if (got[b].count != ref[b].count || got[b].sum != ref[b].sum || got[b].max != ref[b].max ||
            locks_after[b] != 0) {
            printf("spinlock: FAIL (bucket %d: count %d sum %d max %d lock %d, expected %d %d %d 0)\n", b,
                   got[b].count, got[b].sum, got[b].max, locks_after[b], ref[b].count, ref[b].sum,
                   ref[b].max);
            return 1;
        }
    }
    printf("spinlock: PASS\n");
    return 0;
}
