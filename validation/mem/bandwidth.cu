// bandwidth: STREAM-like DRAM bandwidth, L2 and L1 read bandwidth. Kernels time with cudaEvent
// (median of --reps launches after one warm-up launch); GB/s = 1e9 bytes per second.
//
// Metrics (benchmark "bandwidth"):
//   init            write-only:  a[i] = f(i)                 bytes = array          (GB/s)
//   copy            b[i] = a[i]                              bytes = 2 x array      (GB/s)
//   read            sum of a[] (u32 wrap-around sum)         bytes = array          (GB/s)
//   array_bytes     the array size used (bytes; hardware default 1 GiB, --quick 1.5 x L2 size)
//   l2_read         ld.global.cg of an 8 MiB array, --l2-passes times over (all SMs, grid-stride,
//                   each pass over the whole array by the whole grid)      (GB/s)
//   l1_read         one CTA of 1024 threads per SM, every CTA reads the same 64 KiB (default-cached
//                   ld.global.v4) --l1-passes times                        (GB/s, events)
//   l1_bytes_per_clk_per_sm   the same from clock64 inside each CTA, excluding its first (cold)
//                   pass: bytes per SM clock per SM (mean over CTAs)
// Streaming kernels: 256 threads/CTA, 8 CTAs/SM (full occupancy), grid-stride loops over uint4
// (16-B) elements. Every result is checked: init and copy results copied back and compared word by
// word, the sums compared with the closed form.
// Options: --mib M (array size in MiB), --l2-passes P, --l1-passes P
#include "common.cuh"

__global__ void k_init(uint4* __restrict__ a, size_t n16, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        unsigned w = (unsigned)(i * 4) + seed;
        a[i] = make_uint4(w, w + 1, w + 2, w + 3);
    }
}

__global__ void k_copy(const uint4* __restrict__ a, uint4* __restrict__ b, size_t n16) {
#pragma unroll 4
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

__device__ __forceinline__ void reduce_add(unsigned acc, unsigned* out) {
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

__global__ void k_read(const uint4* __restrict__ a, size_t n16, unsigned* out) {
    unsigned acc = 0;
#pragma unroll 4
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = a[i];
        acc += v.x + v.y + v.z + v.w;
    }
    reduce_add(acc, out);
}

__device__ __forceinline__ uint4 ld_cg_v4(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
__device__ __forceinline__ uint4 ld_v4(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}

// L2: the grid reads a[0..n16) `passes` times with ld.global.cg (not cached in L1).
__global__ void k_l2(const uint4* __restrict__ a, size_t n16, int passes, unsigned* out) {
    unsigned acc = 0;
    for (int p = 0; p < passes; ++p) {
#pragma unroll 4
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
            uint4 v = ld_cg_v4(a + i);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    reduce_add(acc, out);
}

// L1: every CTA reads a[0..n16) (64 KiB) 1 + passes times; the first pass is not clock-timed.
__global__ void k_l1(const uint4* __restrict__ a, int n16, int passes, unsigned* out, long long* cyc,
                     unsigned* smid) {
    unsigned acc = 0;
    for (int i = threadIdx.x; i < n16; i += blockDim.x) {
        uint4 v = ld_v4(a + i);
        acc += v.x + v.y + v.z + v.w;
    }
    __syncthreads();
    long long t0 = rd_clock64();
    for (int p = 0; p < passes; ++p) {
#pragma unroll 4
        for (int i = threadIdx.x; i < n16; i += blockDim.x) {
            uint4 v = ld_v4(a + i);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    __syncthreads();
    long long t1 = rd_clock64();
    if (threadIdx.x == 0) {
        cyc[blockIdx.x] = t1 - t0;
        smid[blockIdx.x] = rd_smid();
    }
    reduce_add(acc, out);
}

static int g_blocks = 0;

// Word sum of the init pattern over n words with seed s (mod 2^32).
static unsigned pattern_sum(size_t nwords, unsigned s) {
    unsigned long long n = nwords;
    unsigned long long tri = (n % 2 == 0) ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
    return (unsigned)((unsigned long long)(unsigned)n * s + tri);
}

static bool check_pattern(const char* what, const uint4* d, size_t n16, unsigned seed) {
    std::vector<unsigned> h(n16 * 4);
    CHECK(cudaMemcpy(h.data(), d, n16 * 16, cudaMemcpyDeviceToHost));
    for (size_t w = 0; w < h.size(); ++w) {
        if (h[w] != (unsigned)w + seed) {
            char buf[160];
            snprintf(buf, sizeof buf, "%s: word %zu is %u, expected %u", what, w, h[w], (unsigned)w + seed);
            fail("bandwidth", buf);
            return false;
        }
    }
    return true;
}

// Times `launch` (warm-up + reps launches); returns median milliseconds.
template <class F>
static double time_ms(F launch, bool warmup = true) {
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<double> v;
    for (int r = warmup ? -1 : 0; r < g_reps; ++r) {
        CHECK(cudaEventRecord(e0));
        launch();
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) v.push_back(ms);
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    return median(v);
}

int main(int argc, char** argv) {
    std::vector<std::string> args = parse_common(argc, argv, "bandwidth");
    double mib = -1;
    int l2_passes = -1, l1_passes = -1;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--mib" && i + 1 < args.size()) mib = atof(args[++i].c_str());
        else if (args[i] == "--l2-passes" && i + 1 < args.size()) l2_passes = atoi(args[++i].c_str());
        else if (args[i] == "--l1-passes" && i + 1 < args.size()) l1_passes = atoi(args[++i].c_str());
        else usage_exit("[--mib M] [--l2-passes P] [--l1-passes P]");
    }
    query_device();
    if (mib <= 0) mib = g_quick ? std::ceil(1.5 * g_dev.l2_bytes / 1048576.0) : 1024;
    if (l2_passes <= 0) l2_passes = g_quick ? 4 : 500;
    if (l1_passes <= 0) l1_passes = g_quick ? 8 : 2000;
    size_t bytes = (size_t)(mib * 1048576.0) >> 12 << 12;
    size_t n16 = bytes / 16;
    g_blocks = g_dev.sms * 8;
    const bool warm = !g_quick;  // --quick: no extra warm-up launch for the DRAM kernels
    printf("# bandwidth: arrays of %zu bytes (%.1f MiB; L2 %.1f MiB), %d CTAs x 256 threads, %s\n", bytes,
           bytes / 1048576.0, g_dev.l2_bytes / 1048576.0, g_blocks, warm ? "one warm-up launch" : "no warm-up launch");
    emit("bandwidth", "array_bytes", (double)bytes, "bytes");

    uint4 *a, *b;
    unsigned* d_sum;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&d_sum, sizeof(unsigned)));

    const unsigned seed_a = 7;
    // init (write-only)
    double ms = time_ms([&] { k_init<<<g_blocks, 256>>>(a, n16, seed_a); }, warm);
    emit("bandwidth", "init", bytes / (ms * 1e-3) / 1e9, "GB/s");
    check_pattern("init", a, n16, seed_a);
    // copy (b is not initialised: the check below fails unless the copy wrote every word)
    ms = time_ms([&] { k_copy<<<g_blocks, 256>>>(a, b, n16); }, warm);
    emit("bandwidth", "copy", 2.0 * bytes / (ms * 1e-3) / 1e9, "GB/s");
    check_pattern("copy", b, n16, seed_a);
    // read
    int launches = 0;
    CHECK(cudaMemset(d_sum, 0, sizeof(unsigned)));
    ms = time_ms([&] { k_read<<<g_blocks, 256>>>(a, n16, d_sum); ++launches; }, warm);
    emit("bandwidth", "read", bytes / (ms * 1e-3) / 1e9, "GB/s");
    {
        unsigned got = 0;
        CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
        if (got != (unsigned)((unsigned long long)pattern_sum(n16 * 4, seed_a) * launches))
            fail("bandwidth", "read: wrong sum");
    }

    // L2-resident read: 8 MiB (or a quarter of L2 if smaller)
    size_t l2_bytes = std::min<size_t>(8u << 20, (size_t)g_dev.l2_bytes / 4) >> 12 << 12;
    size_t l2_n16 = l2_bytes / 16;
    k_l2<<<g_blocks, 256>>>(a, l2_n16, 1, d_sum);  // bring it into L2
    CHECK(cudaGetLastError());
    CHECK(cudaMemset(d_sum, 0, sizeof(unsigned)));
    launches = 0;
    ms = time_ms([&] { k_l2<<<g_blocks, 256>>>(a, l2_n16, l2_passes, d_sum); ++launches; }, !g_quick);
    printf("# l2_read: %zu bytes read %d times per launch with ld.global.cg\n", l2_bytes, l2_passes);
    emit("bandwidth", "l2_read", (double)l2_bytes * l2_passes / (ms * 1e-3) / 1e9, "GB/s");
    {
        unsigned got = 0;
        CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
        unsigned want = (unsigned)((unsigned long long)pattern_sum(l2_n16 * 4, seed_a) * l2_passes * launches);
        if (got != want) fail("bandwidth", "l2_read: wrong sum");
    }

    // L1: every CTA reads the same 64 KiB
    const int l1_n16 = 65536 / 16;
    const int l1_blocks = g_dev.sms;
    long long* d_cyc;
    unsigned* d_smid;
    CHECK(cudaMalloc(&d_cyc, sizeof(long long) * l1_blocks));
    CHECK(cudaMalloc(&d_smid, sizeof(unsigned) * l1_blocks));
    CHECK(cudaMemset(d_sum, 0, sizeof(unsigned)));
    launches = 0;
    ms = time_ms([&] { k_l1<<<l1_blocks, 1024>>>(a, l1_n16, l1_passes, d_sum, d_cyc, d_smid); ++launches; }, !g_quick);
    emit("bandwidth", "l1_read", 65536.0 * (l1_passes + 1) * l1_blocks / (ms * 1e-3) / 1e9, "GB/s");
    {
        std::vector<long long> cyc(l1_blocks);
        std::vector<unsigned> sm(l1_blocks);
        CHECK(cudaMemcpy(cyc.data(), d_cyc, sizeof(long long) * l1_blocks, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(sm.data(), d_smid, sizeof(unsigned) * l1_blocks, cudaMemcpyDeviceToHost));
        double s = 0;
        for (long long c : cyc) s += 65536.0 * l1_passes / (double)c;
        std::sort(sm.begin(), sm.end());
        size_t distinct = std::unique(sm.begin(), sm.end()) - sm.begin();
        printf("# l1_read: %d CTAs x 1024 threads on %zu distinct SMs, 64 KiB read %d+1 times each (last launch's clocks)\n",
               l1_blocks, distinct, l1_passes);
        emit("bandwidth", "l1_bytes_per_clk_per_sm", s / l1_blocks, "B/clk/SM");
        unsigned got = 0;
        CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
        unsigned want = (unsigned)((unsigned long long)pattern_sum(l1_n16 * 4, seed_a) * (l1_passes + 1) *
                                   l1_blocks * launches);
        if (got != want) fail("bandwidth", "l1_read: wrong sum");
    }
    return finish();
}
