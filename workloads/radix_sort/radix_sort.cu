// radix_sort: stable LSD radix sort of 32-bit keys with 32-bit values (4-bit digits, 8 passes),
// written from scratch (no CUB). Each pass runs three kernels:
//   1. digit histogram per 1024-key tile (shared-memory atomics), stored digit-major;
//   2. one-block exclusive prefix sum over the 16 x tiles counts (per-thread serial chunk +
//      block scan built from __shfl_up_sync warp scans and a shared array of warp totals);
//   3. stable scatter: per tile and digit, a block-wide exclusive scan of per-thread match
//      counts (each thread owns 4 consecutive keys) gives every key its rank.
// Two inputs of 15000 pairs (not a multiple of the tile): full-range random keys, and keys with
// many duplicates (values = original index, so stability is checked). Exact against std::stable_sort.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <algorithm>
#include <numeric>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("radix_sort: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 16180u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

constexpr int THREADS = 256, PER = 4, TILE = THREADS * PER, RADIX = 16, BITS = 4;

// Block-wide exclusive scan of one int per thread; *total gets the block sum.
__device__ int block_exscan(int v, int* total) {
    __shared__ int warp_tot[THREADS / 32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) warp_tot[wid] = x;
    __syncthreads();
    if (wid == 0) {
        int w = lane < THREADS / 32 ? warp_tot[lane] : 0;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            int y = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += y;
        }
        if (lane < THREADS / 32) warp_tot[lane] = w;
    }
    __syncthreads();
    int pre = (wid > 0 ? warp_tot[wid - 1] : 0) + x - v;
    *total = warp_tot[THREADS / 32 - 1];
    __syncthreads();  // warp_tot is reused by the next call
    return pre;
}

__global__ void digit_histogram(const unsigned* __restrict__ keys, int n, int shift, int* __restrict__ counts) {
    __shared__ int h[RADIX];
    if (threadIdx.x < RADIX) h[threadIdx.x] = 0;
    __syncthreads();
    int base = blockIdx.x * TILE;
    for (int i = threadIdx.x; i < TILE; i += THREADS)
        if (base + i < n) atomicAdd(&h[(keys[base + i] >> shift) & (RADIX - 1)], 1);
    __syncthreads();
    if (threadIdx.x < RADIX) counts[threadIdx.x * gridDim.x + blockIdx.x] = h[threadIdx.x];
}

// One block: in-place exclusive scan of m ints.
__global__ void exclusive_scan(int* data, int m) {
    int chunk = (m + THREADS - 1) / THREADS;
    int lo = min(m, (int)threadIdx.x * chunk), hi = min(m, lo + chunk);
    int s = 0;
    for (int i = lo; i < hi; ++i) s += data[i];
    int total;
    int run = block_exscan(s, &total);
    for (int i = lo; i < hi; ++i) {
        int v = data[i];
        data[i] = run;
        run += v;
    }
}

__global__ void scatter(const unsigned* __restrict__ kin, const unsigned* __restrict__ vin, unsigned* __restrict__ kout,
                        unsigned* __restrict__ vout, int n, int shift, const int* __restrict__ offsets) {
    int first = blockIdx.x * TILE + threadIdx.x * PER;
    unsigned k[PER], v[PER];
    int d[PER];
#pragma unroll
    for (int e = 0; e < PER; ++e) {
        bool ok = first + e < n;
        k[e] = ok ? kin[first + e] : 0u;
        v[e] = ok ? vin[first + e] : 0u;
        d[e] = ok ? (int)((k[e] >> shift) & (RADIX - 1)) : -1;
    }
    for (int digit = 0; digit < RADIX; ++digit) {
        int c = 0;
#pragma unroll
        for (int e = 0; e < PER; ++e) c += d[e] == digit;
        int total;
        int rank = block_exscan(c, &total);
        if (total == 0) continue;  // uniform across the block
        int dst = offsets[digit * gridDim.x + blockIdx.x] + rank;
#pragma unroll
        for (int e = 0; e < PER; ++e)
            if (d[e] == digit) {
                kout[dst] = k[e];
                vout[dst] = v[e];
                ++dst;
            }
    }
}

static int sort_case(const char* name, const std::vector<unsigned>& keys) {
    const int n = (int)keys.size();
    const int tiles = (n + TILE - 1) / TILE;
    std::vector<unsigned> vals(n);
    std::iota(vals.begin(), vals.end(), 0u);
    std::vector<std::pair<unsigned, unsigned>> ref(n);
    for (int i = 0; i < n; ++i) ref[i] = {keys[i], vals[i]};
    std::stable_sort(ref.begin(), ref.end(),
                     [](const std::pair<unsigned, unsigned>& a, const std::pair<unsigned, unsigned>& b) { return a.first < b.first; });

    unsigned *dk[2], *dv[2];
    int* dcounts;
    for (int b = 0; b < 2; ++b) {
        CHECK(cudaMalloc(&dk[b], n * sizeof(unsigned)));
        CHECK(cudaMalloc(&dv[b], n * sizeof(unsigned)));
    }
    CHECK(cudaMalloc(&dcounts, RADIX * tiles * sizeof(int)));
    CHECK(cudaMemcpy(dk[0], keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv[0], vals.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    int cur = 0;
    for (int shift = 0; shift < 32; shift += BITS) {
        digit_histogram<<<tiles, THREADS>>>(dk[cur], n, shift, dcounts);
        CHECK(cudaGetLastError());
        exclusive_scan<<<1, THREADS>>>(dcounts, RADIX * tiles);
        CHECK(cudaGetLastError());
        scatter<<<tiles, THREADS>>>(dk[cur], dv[cur], dk[1 - cur], dv[1 - cur], n, shift, dcounts);
        CHECK(cudaGetLastError());
        cur = 1 - cur;
    }
    std::vector<unsigned> gk(n), gv(n);
    CHECK(cudaMemcpy(gk.data(), dk[cur], n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gv.data(), dv[cur], n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < 2; ++b) {
        CHECK(cudaFree(dk[b]));
        CHECK(cudaFree(dv[b]));
    }
    CHECK(cudaFree(dcounts));
    unsigned long long chk = 0;
    for (int i = 0; i < n; ++i) {
        chk = chk * 1000003ull + ref[i].first * 7919ull + ref[i].second;
        if (gk[i] != ref[i].first || gv[i] != ref[i].second) {
            printf("radix_sort: FAIL (%s index %d: got (%u,%u), expected (%u,%u))\n", name, i, gk[i], gv[i],
                   ref[i].first, ref[i].second);
            return 1;
        }
    }
    printf("radix_sort: %s n=%d tiles=%d ok, min=%u max=%u checksum %016llx\n", name, n, tiles, ref[0].first,
           ref[n - 1].first, chk);
    return 0;
}

int main() {
    const int n = 15000;
    printf("radix_sort: LSD, %d-bit digits, %d passes, tile %d keys\n", BITS, 32 / BITS, TILE);
    std::vector<unsigned> keys(n);
    for (auto& k : keys) k = lcg_next();
    if (sort_case("random", keys)) return 1;
    for (auto& k : keys) k = (lcg_next() >> 7) % 1000u * 0x00010001u;  // duplicates, bits in both halves
    if (sort_case("duplicates", keys)) return 1;
    printf("radix_sort: PASS\n");
    return 0;
}
