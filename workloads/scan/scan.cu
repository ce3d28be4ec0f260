// scan: prefix sums with CUB (CCCL, header-only).
//  - cub::BlockLoad / cub::BlockScan::InclusiveSum / cub::BlockStore, 128 threads x 4 items per
//    tile (BLOCK_SCAN_WARP_SCANS), one tile per block, tile totals written out
//  - multi-block scan: tile totals scanned by one block (cub::BlockScan::ExclusiveSum over
//    <= 128 totals, BLOCK_SCAN_RAKING), then a uniform add kernel
// Inclusive scan of ints, exact compare. n is not a multiple of the tile size.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_scan.cuh>

#define CHECK(call)                                                                \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            printf("scan: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static uint32_t g_lcg = 1618u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int THREADS = 128;
const int ITEMS = 4;
const int TILE = THREADS * ITEMS;
const int MAX_TILES = 128;

__global__ void tile_scan(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ totals, int n) {
    using Load = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
    using Store = cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
    using Scan = cub::BlockScan<int, THREADS, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Scan::TempStorage scan;
    } tmp;
    const int offset = blockIdx.x * TILE;
    const int valid = min(TILE, n - offset);
    int items[ITEMS];
    Load(tmp.load).Load(in + offset, items, valid, 0);
    __syncthreads();
    int total;
    Scan(tmp.scan).InclusiveSum(items, items, total);
    __syncthreads();
    Store(tmp.store).Store(out + offset, items, valid);
    if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

__global__ void scan_totals(int* totals, int count) {
    using Scan = cub::BlockScan<int, MAX_TILES, cub::BLOCK_SCAN_RAKING>;
    __shared__ typename Scan::TempStorage tmp;
    int v = threadIdx.x < count ? totals[threadIdx.x] : 0;
    int excl;
    Scan(tmp).ExclusiveSum(v, excl);
    if (threadIdx.x < count) totals[threadIdx.x] = excl;
}

__global__ void add_offsets(int* __restrict__ out, const int* __restrict__ offsets, int n) {
    int i = blockIdx.x * TILE + threadIdx.x;
    int add = offsets[blockIdx.x];
    for (int k = 0; k < ITEMS; ++k, i += THREADS)
        if (i < n) out[i] += add;
}

int main() {
    const int n = 50000;
    const int tiles = (n + TILE - 1) / TILE;  // 98
    std::vector<int> in(n);
    for (auto& v : in) v = (int)(lcg_next() % 201) - 90;
    int *din, *dout, *dtot;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    CHECK(cudaMalloc(&dtot, MAX_TILES * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    tile_scan<<<tiles, THREADS>>>(din, dout, dtot, n);
    CHECK(cudaGetLastError());
    std::vector<int> tile_out(n);
    CHECK(cudaMemcpy(tile_out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    scan_totals<<<1, MAX_TILES>>>(dtot, tiles);
    CHECK(cudaGetLastError());
    add_offsets<<<tiles, THREADS>>>(dout, dtot, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> out(n);
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(din)); CHECK(cudaFree(dout)); CHECK(cudaFree(dtot));

    int bad_tile = 0, bad = 0;
    long long run = 0, tile_run = 0;
    for (int i = 0; i < n; ++i) {
        if (i % TILE == 0) tile_run = 0;
        run += in[i];
        tile_run += in[i];
        if (tile_out[i] != tile_run) ++bad_tile;
        if (out[i] != run) { if (!bad) printf("scan: out[%d]=%d expected %lld\n", i, out[i], run); ++bad; }
    }
    printf("scan: n=%d tiles=%d (block %d x %d items)\n", n, tiles, THREADS, ITEMS);
    printf("scan: inclusive[last]=%lld inclusive[%d]=%lld\n", run, TILE, (long long)0 + [&] { long long s = 0; for (int i = 0; i <= TILE; ++i) s += in[i]; return s; }());
    if (bad_tile || bad) { printf("scan: FAIL (tile mismatches=%d, global mismatches=%d)\n", bad_tile, bad); return 1; }
    printf("scan: PASS\n");
    return 0;
}
