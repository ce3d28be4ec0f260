// bfs: level-synchronous breadth-first search on a deterministic irregular graph in CSR form.
// One kernel launch per level: every thread owns one vertex; vertices of the current level relax
// their neighbours (level -1 -> level+1) and raise a device "frontier changed" flag. The host
// clears the flag, launches, reads it back, and stops when a level adds no vertex.
// The racing writes to one neighbour all store the same value, so the result is deterministic.
// Levels (and the number of levels) are compared exactly with a CPU queue-based BFS.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("bfs: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 31337u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__global__ void bfs_level(const int* __restrict__ row_ptr, const int* __restrict__ col,
                          int* level, int n, int cur, int* changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || level[v] != cur) return;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = col[e];
        if (level[u] == -1) {
            level[u] = cur + 1;
            *changed = 1;
        }
    }
}

int main() {
    const int n = 3000;
    const int src = 0;
    // irregular degrees: most vertices have 0-3 edges, every 50th is a hub with up to 60;
    // edges go mostly to "nearby" vertices so the graph has many levels, plus a few long jumps.
    std::vector<int> row_ptr(n + 1, 0), col;
    for (int v = 0; v < n; ++v) {
        row_ptr[v] = (int)col.size();
        int deg = (v % 50 == 0) ? (int)(lcg_next() % 61) : (int)(lcg_next() % 4);
        for (int k = 0; k < deg; ++k) {
            uint32_t r = lcg_next();
            int u;
            if (r % 10 == 0) u = (int)((r >> 8) % n);                  // long jump
            else u = (v + 1 + (int)((r >> 8) % 24) - 6 + n) % n;        // local edge
            col.push_back(u);
        }
    }
    row_ptr[n] = (int)col.size();
    int m = (int)col.size();

    // CPU reference
    std::vector<int> ref(n, -1), queue;
    ref[src] = 0;
    queue.push_back(src);
    for (size_t h = 0; h < queue.size(); ++h) {
        int v = queue[h];
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e)
            if (ref[col[e]] == -1) { ref[col[e]] = ref[v] + 1; queue.push_back(col[e]); }
    }
    int ref_levels = 0, ref_reached = 0;
    for (int v = 0; v < n; ++v)
        if (ref[v] >= 0) { ++ref_reached; if (ref[v] + 1 > ref_levels) ref_levels = ref[v] + 1; }

    int *d_row, *d_col, *d_level, *d_changed;
    CHECK(cudaMalloc(&d_row, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_col, m * sizeof(int)));
    CHECK(cudaMalloc(&d_level, n * sizeof(int)));
    CHECK(cudaMalloc(&d_changed, sizeof(int)));
    CHECK(cudaMemcpy(d_row, row_ptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<int> init(n, -1);
    init[src] = 0;
    CHECK(cudaMemcpy(d_level, init.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    const int block = 128;
    const int grid = (n + block - 1) / block;
    int cur = 0, launches = 0;
    for (;;) {
        int changed = 0;
        CHECK(cudaMemcpy(d_changed, &changed, sizeof(int), cudaMemcpyHostToDevice));
        bfs_level<<<grid, block>>>(d_row, d_col, d_level, n, cur, d_changed);
        CHECK(cudaGetLastError());
        ++launches;
        CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
        if (!changed) break;
        ++cur;
        if (cur > n) { printf("bfs: FAIL (no termination)\n"); return 1; }
    }
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), d_level, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_row));
    CHECK(cudaFree(d_col));
    CHECK(cudaFree(d_level));
    CHECK(cudaFree(d_changed));

    long long checksum = 0;
    for (int v = 0; v < n; ++v) checksum += (long long)(ref[v] + 2) * (v + 1);
    printf("bfs: vertices=%d edges=%d source=%d\n", n, m, src);
    printf("bfs: reached=%d levels=%d checksum=%lld\n", ref_reached, ref_levels, checksum);
    printf("bfs: kernel launches=%d\n", launches);
    for (int v = 0; v < n; ++v) {
        if (got[v] != ref[v]) {
            printf("bfs: FAIL (vertex %d level %d, expected %d)\n", v, got[v], ref[v]);
            return 1;
        }
    }
    if (launches != ref_levels) {
        printf("bfs: FAIL (%d launches, expected %d)\n", launches, ref_levels);
        return 1;
    }
    printf("bfs: PASS\n");
    return 0;
}
