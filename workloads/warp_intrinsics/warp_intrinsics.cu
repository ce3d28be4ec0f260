// warp_intrinsics: warp-level primitives, checked against a CPU model of the warp.
//  __shfl_sync / __shfl_up_sync / __shfl_down_sync / __shfl_xor_sync with widths 32, 16, 8, 4
//  (including an xor lane mask wider than the segment), __ballot_sync, __any_sync, __all_sync,
//  __activemask inside a divergent branch, __match_any_sync / __match_all_sync,
//  __reduce_add/min/max/and/or/xor_sync (sm_80 redux.sync), and __syncwarp with partial masks
//  (shared-memory exchange among the lower half-warp, shuffles under a partial mask).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                           \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            printf("warp_intrinsics: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static uint32_t g_lcg = 4242u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int NOUT = 32;           // results per thread
const int THREADS = 128;       // 4 warps per block
const int BLOCKS = 4;
const unsigned FULL = 0xffffffffu;

__global__ void warp_ops(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
    __shared__ unsigned xchg[THREADS];
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const unsigned v = in[gtid];
    const int iv = (int)v;
    unsigned* o = out + (size_t)gtid * NOUT;
    int k = 0;
    // shuffles with widths
    o[k++] = __shfl_sync(FULL, v, (int)(v % 32));            // data-dependent source lane
    o[k++] = __shfl_sync(FULL, v, 5, 16);
    o[k++] = __shfl_up_sync(FULL, v, 3);
    o[k++] = __shfl_up_sync(FULL, v, 2, 8);
    o[k++] = __shfl_down_sync(FULL, v, 7);
    o[k++] = __shfl_down_sync(FULL, v, 1, 4);
    o[k++] = __shfl_xor_sync(FULL, v, 1);
    o[k++] = __shfl_xor_sync(FULL, v, 6, 8);
    o[k++] = __shfl_xor_sync(FULL, v, 20, 16);                // lane mask wider than the segment
    // votes
    const bool pred = (v & 3) == 0;
    o[k++] = __ballot_sync(FULL, pred);
    o[k++] = (unsigned)__any_sync(FULL, v == 0x1234u);
    o[k++] = (unsigned)__all_sync(FULL, v != 0x1234u);
    o[k++] = (unsigned)__any_sync(FULL, pred);
    o[k++] = (unsigned)__all_sync(FULL, (v >> 31) == 0);
    // __activemask inside a divergent branch: must contain this lane and only lanes taking it
    unsigned am_ok = 2;
    if (pred) {
        unsigned m = __activemask();
        unsigned branch = __ballot_sync(m, true);
        am_ok = ((m >> lane) & 1u) && (branch == m) ? 1u : 0u;
    }
    o[k++] = am_ok;
    // match
    const unsigned key = v % 5;
    o[k++] = __match_any_sync(FULL, key);
    int allp = -1;
    o[k++] = __match_all_sync(FULL, key, &allp);
    o[k++] = (unsigned)allp;
    int allq = -1;
    o[k++] = __match_all_sync(FULL, 7u, &allq);
    o[k++] = (unsigned)allq;
    // redux
    o[k++] = __reduce_add_sync(FULL, v & 0xffffu);
    o[k++] = (unsigned)__reduce_min_sync(FULL, iv);
    o[k++] = (unsigned)__reduce_max_sync(FULL, iv);
    o[k++] = __reduce_min_sync(FULL, v);
    o[k++] = __reduce_max_sync(FULL, v);
    o[k++] = __reduce_and_sync(FULL, v | 0x0f0f0f0fu);
    o[k++] = __reduce_or_sync(FULL, v & 0x80808080u);
    o[k++] = __reduce_xor_sync(FULL, v);
    // __syncwarp with a partial mask: lower half-warp exchanges through shared memory
    unsigned half_res = 0;
    if (lane < 16) {
        xchg[threadIdx.x] = v * 3u;
        __syncwarp(0x0000ffffu);
        half_res = xchg[(threadIdx.x & ~31) + 15 - lane];
        __syncwarp(0x0000ffffu);
    }
    o[k++] = half_res;
    // shuffle and redux restricted to the odd lanes
    unsigned odd = 0, odd_sum = 0;
    if (lane & 1) {
        odd = __shfl_sync(0xaaaaaaaau, v, (lane + 2) & 31);
        odd_sum = __reduce_add_sync(0xaaaaaaaau, v & 0xff);
    }
    o[k++] = odd;
    o[k++] = odd_sum;
    __syncwarp();
    o[k++] = (unsigned)k;  // 31 results + the count
}

// ---------------- CPU model of one warp ----------------
// PTX shfl semantics: c = ((32 - width) << 8) | 31
static unsigned shfl(const unsigned* w, int lane, int mode, int b, int width) {
    int segmask = 32 - width;
    int maxLane = (lane & segmask) | (31 & ~segmask);
    int minLane = lane & segmask;
    int j; bool p;
    switch (mode) {
        case 0: j = minLane | (b & ~segmask & 31); p = j <= maxLane; break;  // idx
        case 1: j = lane - b; p = j >= minLane; break;                        // up
        case 2: j = lane + b; p = j <= maxLane; break;                        // down
        default: j = lane ^ b; p = j <= maxLane; break;                       // bfly
    }
    return p ? w[j] : w[lane];
}

static void ref_warp(const unsigned* w, unsigned ref[32][NOUT]) {
    unsigned ballot = 0, anyeq = 0, allne = 1, allhi = 1, radd = 0, rand_ = FULL, ror = 0, rxor = 0;
    int rmin = 0x7fffffff, rmax = -2147483647 - 1;
    unsigned umin = FULL, umax = 0, oddsum = 0;
    for (int l = 0; l < 32; ++l) {
        if ((w[l] & 3) == 0) ballot |= 1u << l;
        if (w[l] == 0x1234u) anyeq = 1, allne = 0;
        if (w[l] >> 31) allhi = 0;
        radd += w[l] & 0xffffu;
        int s = (int)w[l];
        if (s < rmin) rmin = s;
        if (s > rmax) rmax = s;
        if (w[l] < umin) umin = w[l];
        if (w[l] > umax) umax = w[l];
        rand_ &= w[l] | 0x0f0f0f0fu; ror |= w[l] & 0x80808080u; rxor ^= w[l];
        if (l & 1) oddsum += w[l] & 0xff;
    }
    unsigned key0 = w[0] % 5, allsame = 1;
    for (int l = 0; l < 32; ++l) if (w[l] % 5 != key0) allsame = 0;
    for (int l = 0; l < 32; ++l) {
        unsigned* o = ref[l];
        int k = 0;
        o[k++] = shfl(w, l, 0, (int)(w[l] % 32), 32);
        o[k++] = shfl(w, l, 0, 5, 16);
        o[k++] = shfl(w, l, 1, 3, 32);
        o[k++] = shfl(w, l, 1, 2, 8);
        o[k++] = shfl(w, l, 2, 7, 32);
        o[k++] = shfl(w, l, 2, 1, 4);
        o[k++] = shfl(w, l, 3, 1, 32);
        o[k++] = shfl(w, l, 3, 6, 8);
        o[k++] = shfl(w, l, 3, 20, 16);
        o[k++] = ballot;
        o[k++] = anyeq;
        o[k++] = allne;
        o[k++] = ballot != 0;
        o[k++] = allhi;
        o[k++] = (w[l] & 3) == 0 ? 1u : 2u;
        unsigned mm = 0;
        for (int j = 0; j < 32; ++j) if (w[j] % 5 == w[l] % 5) mm |= 1u << j;
        o[k++] = mm;
        o[k++] = allsame ? FULL : 0u;
        o[k++] = allsame;
        o[k++] = FULL;
        o[k++] = 1;
        o[k++] = radd;
        o[k++] = (unsigned)rmin;
        o[k++] = (unsigned)rmax;
        o[k++] = umin;
        o[k++] = umax;
        o[k++] = rand_;
        o[k++] = ror;
        o[k++] = rxor;
        o[k++] = l < 16 ? w[15 - l] * 3u : 0u;
        o[k++] = (l & 1) ? w[(l + 2) & 31] : 0u;
        o[k++] = (l & 1) ? oddsum : 0u;
        o[k++] = (unsigned)k;
    }
}

int main() {
    const int n = THREADS * BLOCKS;
    std::vector<unsigned> in(n);
    for (int i = 0; i < n; ++i) in[i] = lcg_next();
    // warp 1 of block 0: every key % 5 equal (match_all true); warp 2: contains 0x1234
    for (int l = 0; l < 32; ++l) in[32 + l] = (in[32 + l] / 8) * 5 + 2;
    in[64 + 9] = 0x1234u;
    // warp 3: all values below 2^31 (all_sync true), small values so redux sums stay small
    for (int l = 0; l < 32; ++l) in[96 + l] &= 0x7fffffffu;

    unsigned *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dout, (size_t)n * NOUT * sizeof(unsigned)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    warp_ops<<<BLOCKS, THREADS>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> out((size_t)n * NOUT);
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(din)); CHECK(cudaFree(dout));

    int fails = 0;
    unsigned ref[32][NOUT];
    for (int wbase = 0; wbase < n; wbase += 32) {
        ref_warp(&in[wbase], ref);
        for (int l = 0; l < 32; ++l)
            for (int j = 0; j < NOUT; ++j) {
                unsigned g = out[(size_t)(wbase + l) * NOUT + j];
                if (g != ref[l][j]) {
                    if (fails < 5)
                        printf("warp_intrinsics: warp %d lane %d result %d: got %08x expected %08x\n", wbase / 32, l, j, g, ref[l][j]);
                    ++fails;
                }
            }
    }
    printf("warp_intrinsics: %d warps x 32 lanes x %d results checked\n", n / 32, NOUT);
    ref_warp(&in[32], ref);
    printf("warp_intrinsics: warp1 match_all=%u ballot=%08x redux_add=%u\n", ref[0][17], ref[0][9], ref[0][20]);
    if (fails) { printf("warp_intrinsics: FAIL (%d mismatches)\n", fails); return 1; }
    printf("warp_intrinsics: PASS\n");
    return 0;
}
