// warp_aggregated: warp-aggregated atomic increment (the "demo_D" / CUDA blog pattern) with
// cooperative_groups::coalesced_threads(): inside a data-dependent branch, the active threads of a
// warp elect a leader (thread_rank()==0) that does one atomicAdd of g.size(); the base is broadcast
// with g.shfl() and each thread takes base + thread_rank(). Used for stream compaction (filter),
// plus a second kernel that counts per-warp group sizes to check coalesced_threads().size().
// Checks: the compacted output is exactly the multiset of selected inputs (sorted compare), every
// selected input landed in exactly one slot, the count equals the CPU count. The CUDA model does not
// promise that a warp's selected threads are converged when they call coalesced_threads(), so the
// number of leader atomics and each thread's group size are only bounded: groups per warp between
// 1 and the warp's selected count, group size between 1 and that count (with full convergence, as on
// hardware in practice, they equal the bounds). Exact integer compare.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            printf("warp_aggregated: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static uint32_t g_lcg = 271828u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__device__ int atomicAggInc(int* ctr, int* leader_ops) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base;
    if (g.thread_rank() == 0) {
        base = atomicAdd(ctr, (int)g.size());
        atomicAdd(leader_ops, 1);
    }
    return g.shfl(base, 0) + (int)g.thread_rank();
}

__global__ void filter(const int* __restrict__ in, int n, int threshold, int* out, int* count,
                       int* leader_ops, int* group_size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > threshold) {
        int slot = atomicAggInc(count, leader_ops);
        out[slot] = in[i];
        cg::coalesced_group g = cg::coalesced_threads();
        group_size[i] = (int)g.size();
    }
}

int main() {
    const int n = 20000 + 37;
    const int threshold = 600;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (int)(lcg_next() % 1000);

    std::vector<int> ref_sel;
    std::vector<int> ref_gsize(n, 0);
    int ref_groups = 0;
    for (int w = 0; w * 32 < n; ++w) {
        int cnt = 0;
        for (int l = 0; l < 32 && w * 32 + l < n; ++l) cnt += in[w * 32 + l] > threshold;
        if (cnt) ++ref_groups;
        for (int l = 0; l < 32 && w * 32 + l < n; ++l)
            if (in[w * 32 + l] > threshold) { ref_sel.push_back(in[w * 32 + l]); ref_gsize[w * 32 + l] = cnt; }
    }
    int ref_count = (int)ref_sel.size();

    int *d_in, *d_out, *d_count, *d_ops, *d_gsize;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_count, sizeof(int)));
    CHECK(cudaMalloc(&d_ops, sizeof(int)));
    CHECK(cudaMalloc(&d_gsize, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xff, n * sizeof(int)));
    CHECK(cudaMemset(d_count, 0, sizeof(int)));
    CHECK(cudaMemset(d_ops, 0, sizeof(int)));
    CHECK(cudaMemset(d_gsize, 0, n * sizeof(int)));
    filter<<<(n + 255) / 256, 256>>>(d_in, n, threshold, d_out, d_count, d_ops, d_gsize);
    CHECK(cudaGetLastError());
    int count = 0, ops = 0;
    std::vector<int> out(n), gsize(n);
    CHECK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&ops, d_ops, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gsize.data(), d_gsize, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_count));
    CHECK(cudaFree(d_ops));
    CHECK(cudaFree(d_gsize));

    long long sum = 0;
    for (int v : ref_sel) sum += v;
    printf("warp_aggregated: n=%d threshold=%d\n", n, threshold);
    printf("warp_aggregated: selected=%d sum=%lld warp groups=%d\n", ref_count, sum, ref_groups);
    if (count != ref_count) {
        printf("warp_aggregated: FAIL (count %d, expected %d)\n", count, ref_count);
        return 1;
    }
    if (ops < ref_groups || ops > ref_count) {
        printf("warp_aggregated: FAIL (%d leader atomics, expected %d..%d)\n", ops, ref_groups, ref_count);
        return 1;
    }
    for (int i = count; i < n; ++i)
        if (out[i] != -1) {
            printf("warp_aggregated: FAIL (slot %d beyond count written)\n", i);
            return 1;
        }
    std::vector<int> got(out.begin(), out.begin() + count);
    std::sort(got.begin(), got.end());
    std::sort(ref_sel.begin(), ref_sel.end());
    if (got != ref_sel) {
        printf("warp_aggregated: FAIL (compacted values differ from the selected inputs)\n");
        return 1;
    }
    for (int i = 0; i < n; ++i)
        if (ref_gsize[i] ? (gsize[i] < 1 || gsize[i] > ref_gsize[i]) : gsize[i] != 0) {
            printf("warp_aggregated: FAIL (thread %d saw coalesced size %d, expected 1..%d)\n", i, gsize[i],
                   ref_gsize[i]);
            return 1;
        }
    printf("warp_aggregated: PASS\n");
    return 0;
}
