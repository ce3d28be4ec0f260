// thrust_sort: Thrust on device_vectors (large generated PTX: CUB radix sort, reduce, scan).
//  thrust::sort (ascending), thrust::sort with thrust::greater (descending), thrust::sort_by_key,
//  thrust::reduce (sum and maximum), thrust::count_if, thrust::inclusive_scan.
// Checked against std::sort / plain loops on the host. Exact.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/count.h>
#include <thrust/scan.h>
#include <thrust/functional.h>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            printf("thrust_sort: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static uint32_t g_lcg = 6502u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

struct is_multiple_of_7 {
    __host__ __device__ bool operator()(int x) const { return x % 7 == 0; }
};

int main() {
    const int n = 4000;
    std::vector<int> h(n), keys(n);
    for (int i = 0; i < n; ++i) { h[i] = (int)(lcg_next() % 2000001) - 1000000; keys[i] = (int)(lcg_next() % 1000); }
    int fails = 0;
    try {
        thrust::device_vector<int> d(h.begin(), h.end());
        long long sum = thrust::reduce(d.begin(), d.end(), 0LL, thrust::plus<long long>());
        int mx = thrust::reduce(d.begin(), d.end(), -2147483647 - 1, thrust::maximum<int>());
        long long m7 = thrust::count_if(d.begin(), d.end(), is_multiple_of_7());
        thrust::sort(d.begin(), d.end());
        thrust::host_vector<int> asc = d;
        thrust::sort(d.begin(), d.end(), thrust::greater<int>());
        thrust::host_vector<int> desc = d;
        thrust::device_vector<int> dk(keys.begin(), keys.end());
        thrust::device_vector<int> dv(n);
        thrust::sequence(dv.begin(), dv.end());
        thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());  // stable for primitive keys (radix)
        thrust::host_vector<int> sk = dk, sv = dv;
        thrust::device_vector<int> ones(n, 1), pre(n);
        thrust::inclusive_scan(ones.begin(), ones.end(), pre.begin());
        thrust::host_vector<int> hpre = pre;
        CHECK(cudaDeviceSynchronize());

        // references
        long long rsum = 0; int rmx = h[0]; long long r7 = 0;
        for (int v : h) { rsum += v; rmx = v > rmx ? v : rmx; r7 += (v % 7 == 0); }
        std::vector<int> rasc = h;
        std::sort(rasc.begin(), rasc.end());
        std::vector<std::pair<int, int>> kv(n);
        for (int i = 0; i < n; ++i) kv[i] = {keys[i], i};
        std::stable_sort(kv.begin(), kv.end(), [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; });
        if (sum != rsum) { printf("thrust_sort: sum %lld vs %lld\n", sum, rsum); ++fails; }
        if (mx != rmx) { printf("thrust_sort: max %d vs %d\n", mx, rmx); ++fails; }
        if (m7 != r7) { printf("thrust_sort: count_if %lld vs %lld\n", m7, r7); ++fails; }
        for (int i = 0; i < n; ++i) {
            if (asc[i] != rasc[i]) { ++fails; break; }
            if (desc[i] != rasc[n - 1 - i]) { ++fails; break; }
            if (sk[i] != kv[i].first || sv[i] != kv[i].second) { ++fails; break; }
            if (hpre[i] != i + 1) { ++fails; break; }
        }
        printf("thrust_sort: n=%d sum=%lld max=%d multiples_of_7=%lld\n", n, rsum, rmx, r7);
        printf("thrust_sort: sorted[0]=%d sorted[%d]=%d median=%d\n", rasc[0], n - 1, rasc[n - 1], rasc[n / 2]);
        printf("thrust_sort: sort_by_key first=(%d,%d) last=(%d,%d)\n", kv[0].first, kv[0].second, kv[n - 1].first, kv[n - 1].second);
    } catch (const std::exception& e) {
        printf("thrust_sort: FAIL (exception: %s)\n", e.what());
        return 1;
    }
    if (fails) { printf("thrust_sort: FAIL (%d mismatches)\n", fails); return 1; }
    printf("thrust_sort: PASS\n");
    return 0;
}
