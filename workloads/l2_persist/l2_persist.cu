// l2_persist: L2 residency control (A100 whitepaper, "L2 Cache Residency Control"; CUDA
// Programming Guide, "L2 Cache Control"). A histogram whose bins are the persistent data and whose
// input is streamed, as in the whitepaper's example (a histogram with bins that fit in L2 but not
// in shared memory, over a larger input): every thread sums a group of 8 int4 (128 bytes) of a
// large cold array and adds 1 to a bin chosen by a hash of the sum.
//   - bins: 3/5 of the L2 (24 MB on a 40 MB A100), inside the persisting set-aside (3/4 of the L2
//     or persistingL2CacheMaxSize, 30 MB on an A100);
//   - cold array: twice the bins (48 MB on an A100), read once: between two updates of a bin line
//     the kernel touches the other bin lines and as many bytes of the stream, twice what the L2
//     holds, so without residency control the bins fall out of L2 between their uses.
// A clear kernel (the bins' first touch) and the histogram kernel run without, then with a
// persisting access-policy window over the bins (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize)
// + cudaStreamSetAttribute), then with the window as a cudaLaunchKernelEx attribute; every
// histogram is checked exactly against a CPU reference. Also: the limit and the stream attribute
// read back, a window over accessPolicyMaxWindowSize is rejected with cudaErrorInvalidValue,
// cudaCtxResetPersistingL2Cache. Only results are printed (build with -DL2P_PRINT_TIMES for the
// kernel times); the simulated timings are in docs/ampere-features.md.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            printf("l2_persist: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static uint32_t g_lcg = 20201u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int K = 8;  // int4 per group: 128 bytes streamed per bin update

__host__ __device__ inline unsigned bin_of(unsigned sum, unsigned nbins) {
    unsigned h = sum * 2654435761u;
    h ^= h >> 15;
    return h % nbins;
}

// cold is laid out [K][groups] so that a warp's loads of one k are 512 contiguous bytes.
__global__ void hist_stream(const int4* __restrict__ cold, unsigned groups, unsigned* bins, unsigned nbins) {
    for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += blockDim.x * gridDim.x) {
        unsigned s = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            int4 v = cold[(size_t)k * groups + g];
            s += unsigned(v.x) + unsigned(v.y) + unsigned(v.z) + unsigned(v.w);
        }
        atomicAdd(&bins[bin_of(s, nbins)], 1u);
    }
}

// Zeroes the bins: also their first touch, under the launch's access-policy window.
__global__ void clear_bins(uint4* bins, unsigned n4) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x)
        bins[i] = make_uint4(0, 0, 0, 0);
}

static int fails = 0;
static void expect(bool ok, const char* what) {
    printf("%s: %s\n", what, ok ? "ok" : "WRONG");
    if (!ok) ++fails;
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.persistingL2CacheMaxSize <= 0) {
        printf("l2_persist: FAIL (no persisting L2 set-aside on this device)\n");
        return 1;
    }
    // Sizes follow the L2: bins 2/5 of it, the cold array 4x the bins.
    const size_t l2 = size_t(prop.l2CacheSize);
    const unsigned nbins = unsigned(l2 * 3 / 5 / sizeof(unsigned)) & ~3u;
    const size_t bins_bytes = size_t(nbins) * sizeof(unsigned);
    // Each bin line is updated twice per launch on average.
    const unsigned groups = unsigned(bins_bytes / 64);

    std::vector<int4> h_cold((size_t)K * groups);
    for (auto& v : h_cold) {
        v.x = int(lcg_next());
        v.y = int(lcg_next());
        v.z = int(lcg_next());
        v.w = int(lcg_next());
    }
    // CPU reference: one launch's histogram.
    std::vector<unsigned> ref(nbins, 0);
    for (unsigned g = 0; g < groups; ++g) {
        unsigned s = 0;
        for (int k = 0; k < K; ++k) {
            const int4& v = h_cold[(size_t)k * groups + g];
            s += unsigned(v.x) + unsigned(v.y) + unsigned(v.z) + unsigned(v.w);
        }
        ++ref[bin_of(s, nbins)];
    }

    int4* d_cold;
    unsigned* d_bins;
    CHECK(cudaMalloc(&d_cold, h_cold.size() * sizeof(int4)));
    CHECK(cudaMalloc(&d_bins, bins_bytes));
    CHECK(cudaMemcpy(d_cold, h_cold.data(), h_cold.size() * sizeof(int4), cudaMemcpyHostToDevice));
    cudaStream_t st;
    CHECK(cudaStreamCreate(&st));
    const dim3 block(256), grid(prop.multiProcessorCount * 4);
    std::vector<unsigned> got(nbins);

    // The bins are cleared by a kernel in the same stream (their first touch), then one launch.
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    auto run = [&](const char* what, const cudaLaunchConfig_t* cfg) {
        if (cfg) {
            cudaLaunchConfig_t c = *cfg;
            CHECK(cudaLaunchKernelEx(&c, clear_bins, (uint4*)d_bins, nbins / 4));
            CHECK(cudaEventRecord(t0, st));
            CHECK(cudaLaunchKernelEx(&c, hist_stream, (const int4*)d_cold, groups, d_bins, nbins));
        } else {
            clear_bins<<<grid, block, 0, st>>>((uint4*)d_bins, nbins / 4);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(t0, st));
            hist_stream<<<grid, block, 0, st>>>(d_cold, groups, d_bins, nbins);
            CHECK(cudaGetLastError());
        }
        CHECK(cudaEventRecord(t1, st));
        CHECK(cudaStreamSynchronize(st));
#ifdef L2P_PRINT_TIMES
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, t0, t1));
        printf("time: %s: %.1f us\n", what, ms * 1000);
#endif
        CHECK(cudaMemcpy(got.data(), d_bins, bins_bytes, cudaMemcpyDeviceToHost));
        bool ok = true;
        for (unsigned b = 0; b < nbins && ok; ++b) ok = got[b] == ref[b];
        expect(ok, what);
    };

    run("histogram without residency control", nullptr);

    // The set-aside: 3/4 of the L2 or the most the device allows (the Programming Guide's example).
    const size_t set_aside = std::min(l2 * 3 / 4, size_t(prop.persistingL2CacheMaxSize));
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside));
    size_t limit = 0;
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    expect(limit > 0 && limit <= size_t(prop.persistingL2CacheMaxSize), "persisting set-aside reads back");

    cudaStreamAttrValue attr;
    std::memset(&attr, 0, sizeof attr);
    attr.accessPolicyWindow.base_ptr = d_bins;
    attr.accessPolicyWindow.num_bytes = std::min(bins_bytes, size_t(prop.accessPolicyMaxWindowSize));
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &attr));
    cudaStreamAttrValue back;
    std::memset(&back, 0, sizeof back);
    CHECK(cudaStreamGetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &back));
    expect(back.accessPolicyWindow.base_ptr == d_bins && back.accessPolicyWindow.num_bytes == attr.accessPolicyWindow.num_bytes &&
               back.accessPolicyWindow.hitRatio == 1.0f && back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
               back.accessPolicyWindow.missProp == cudaAccessPropertyStreaming,
           "stream access-policy window reads back");
    cudaStreamAttrValue bad = attr;
    bad.accessPolicyWindow.num_bytes = size_t(prop.accessPolicyMaxWindowSize) + 1;
    expect(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &bad) == cudaErrorInvalidValue,
           "window larger than accessPolicyMaxWindowSize rejected");
    cudaGetLastError();

    run("histogram with a persisting window (stream attribute)", nullptr);

    // Window off, persisting lines back to normal; then the window as a launch attribute.
    attr.accessPolicyWindow.num_bytes = 0;
    CHECK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &attr));
    CHECK(cudaCtxResetPersistingL2Cache());
    cudaLaunchAttribute la[1];
    std::memset(la, 0, sizeof la);
    la[0].id = cudaLaunchAttributeAccessPolicyWindow;
    la[0].val.accessPolicyWindow.base_ptr = d_bins;
    la[0].val.accessPolicyWindow.num_bytes = std::min(bins_bytes, size_t(prop.accessPolicyMaxWindowSize));
    la[0].val.accessPolicyWindow.hitRatio = 1.0f;
    la[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    la[0].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaLaunchConfig_t cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.stream = st;
    cfg.attrs = la;
    cfg.numAttrs = 1;
    run("histogram with a persisting window (launch attribute)", &cfg);

    // Leave the device as found.
    CHECK(cudaCtxResetPersistingL2Cache());
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    CHECK(cudaStreamDestroy(st));
    CHECK(cudaFree(d_cold));
    CHECK(cudaFree(d_bins));
    if (fails) {
        printf("l2_persist: FAIL (%d checks)\n", fails);
        return 1;
    }
    printf("l2_persist: PASS\n");
    return 0;
}
