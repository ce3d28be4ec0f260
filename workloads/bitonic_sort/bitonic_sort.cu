// bitonic_sort: shared-memory bitonic sort, one block (1024 threads) per segment of up to 4096
// unsigned keys (each thread handles two compare-exchange pairs per stage; short segments are
// padded with 0xFFFFFFFF). Four segments of 4096, 3000, 1000 and 1 keys (with many duplicates in
// one) sorted ascending, plus a key/value sort (descending) of 2048 pairs with distinct keys.
// Checked exactly against std::sort.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("bitonic_sort: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 314159u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

constexpr int N = 4096, THREADS = 1024;

__global__ void bitonic_segments(unsigned* keys, const int* seg_off, const int* seg_len) {
    __shared__ unsigned s[N];
    const int off = seg_off[blockIdx.x], len = seg_len[blockIdx.x];
    for (int i = threadIdx.x; i < N; i += THREADS) s[i] = i < len ? keys[off + i] : 0xFFFFFFFFu;
    __syncthreads();
    for (int k = 2; k <= N; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = threadIdx.x; t < N / 2; t += THREADS) {
                int i = 2 * t - (t & (j - 1));  // lower index of the pair
                int p = i + j;
                bool up = (i & k) == 0;
                unsigned a = s[i], b = s[p];
                if ((a > b) == up) { s[i] = b; s[p] = a; }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < len; i += THREADS) keys[off + i] = s[i];
}

// Key/value, descending, n a power of two <= 2048, one block of n/2 threads.
__global__ void bitonic_kv_desc(unsigned* keys, unsigned* vals, int n) {
    __shared__ unsigned sk[2048], sv[2048];
    int t = threadIdx.x;
    sk[t] = keys[t]; sv[t] = vals[t];
    sk[t + n / 2] = keys[t + n / 2]; sv[t + n / 2] = vals[t + n / 2];
    __syncthreads();
    for (int k = 2; k <= n; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            int i = 2 * t - (t & (j - 1)), p = i + j;
            bool desc = (i & k) == 0;
            unsigned a = sk[i], b = sk[p];
            if ((a < b) == desc) {
                sk[i] = b; sk[p] = a;
                unsigned va = sv[i]; sv[i] = sv[p]; sv[p] = va;
            }
            __syncthreads();
        }
    keys[t] = sk[t]; vals[t] = sv[t];
    keys[t + n / 2] = sk[t + n / 2]; vals[t + n / 2] = sv[t + n / 2];
}

int main() {
    const std::vector<int> len = {4096, 3000, 1000, 1};
    std::vector<int> off(len.size());
    int total = 0;
    for (size_t s = 0; s < len.size(); ++s) { off[s] = total; total += len[s]; }
    std::vector<unsigned> h(total);
    for (int i = 0; i < total; ++i) h[i] = lcg_next();
    for (int i = off[2]; i < off[2] + len[2]; ++i) h[i] = lcg_next() % 50u;  // many duplicates
    h[off[1] + 5] = 0xFFFFFFFFu;  // a real key equal to the pad value
    std::vector<unsigned> ref = h;
    for (size_t s = 0; s < len.size(); ++s) std::sort(ref.begin() + off[s], ref.begin() + off[s] + len[s]);

    unsigned* dk;
    int *doff, *dlen;
    CHECK(cudaMalloc(&dk, total * sizeof(unsigned)));
    CHECK(cudaMalloc(&doff, off.size() * sizeof(int)));
    CHECK(cudaMalloc(&dlen, len.size() * sizeof(int)));
    CHECK(cudaMemcpy(dk, h.data(), total * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(doff, off.data(), off.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dlen, len.data(), len.size() * sizeof(int), cudaMemcpyHostToDevice));
    bitonic_segments<<<(unsigned)len.size(), THREADS>>>(dk, doff, dlen);
    CHECK(cudaGetLastError());
    std::vector<unsigned> g(total);
    CHECK(cudaMemcpy(g.data(), dk, total * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dk));
    CHECK(cudaFree(doff));
    CHECK(cudaFree(dlen));

    printf("bitonic_sort: %zu segments, %d keys (lengths 4096 3000 1000 1)\n", len.size(), total);
    for (size_t s = 0; s < len.size(); ++s) {
        unsigned long long chk = 0;
        for (int i = off[s]; i < off[s] + len[s]; ++i) {
            chk = chk * 1000003ull + ref[i];
            if (g[i] != ref[i]) {
                printf("bitonic_sort: FAIL (segment %zu index %d: got %u, expected %u)\n", s, i - off[s], g[i], ref[i]);
                return 1;
            }
        }
        printf("bitonic_sort: segment %zu min=%u max=%u checksum %016llx\n", s, ref[off[s]], ref[off[s] + len[s] - 1], chk);
    }

    // key/value descending
    const int n = 2048;
    std::vector<unsigned> kk(n), vv(n);
    for (int i = 0; i < n; ++i) { kk[i] = (lcg_next() & 0xFFFFF800u) | (unsigned)i; vv[i] = (unsigned)i; }  // distinct keys
    std::vector<std::pair<unsigned, unsigned>> kvref(n);
    for (int i = 0; i < n; ++i) kvref[i] = {kk[i], vv[i]};
    std::sort(kvref.begin(), kvref.end(), std::greater<std::pair<unsigned, unsigned>>());
    unsigned *dkk, *dvv;
    CHECK(cudaMalloc(&dkk, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dvv, n * sizeof(unsigned)));
    CHECK(cudaMemcpy(dkk, kk.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dvv, vv.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    bitonic_kv_desc<<<1, n / 2>>>(dkk, dvv, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(kk.data(), dkk, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(vv.data(), dvv, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dkk));
    CHECK(cudaFree(dvv));
    for (int i = 0; i < n; ++i)
        if (kk[i] != kvref[i].first || vv[i] != kvref[i].second) {
            printf("bitonic_sort: FAIL (kv index %d: got (%u,%u), expected (%u,%u))\n", i, kk[i], vv[i], kvref[i].first, kvref[i].second);
            return 1;
        }
    printf("bitonic_sort: key/value descending n=%d ok, first value %u last value %u\n", n, kvref[0].second, kvref[n - 1].second);
    printf("bitonic_sort: PASS\n");
    return 0;
}
