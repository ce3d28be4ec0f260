// l2_bw: L2-resident read bandwidth (ld.global.cg.v4) as a function of which SMs read, how many
// warps each runs and how many loads each warp keeps in flight: separates the per-SM limit
// (L1/LSU to crossbar), the per-GPC crossbar port and the aggregate of the L2 slices.
//
// Every launch has one CTA per SM (sms CTAs; dynamic shared memory sized so that only one fits on
// an SM: 116 KiB, which leaves a 124 KB L1). A CTA whose SM is not in the configuration's set exits
// at once; the others (the "active" SMs, ranked 0..A-1) read a working set of WS bytes, already in
// L2, grid-stride over the active threads (each warp load: 512 contiguous bytes), wrapping around
// the working set, PER_SM bytes per active SM in all. U loads per thread are issued before any is
// used (registers v[0..U-1]; the loop is not unrolled further: U loads in flight per warp); W warps per CTA. Timing inside the kernel: thread 0 reads clock64 and
// %globaltimer after a __syncthreads before and after the loop.
//
// Which SMs are in a GPC: on a cc >= 9.0 device (sm_90 build) the program launches clusters of 16
// CTAs (one CTA per SM), as many as can be resident at once, and waits until all are resident: a
// cluster runs on one GPC, a GPC holds at most one such cluster, so each cluster names 16 SMs of a
// distinct GPC ("groups"). With --gpcs N0,N1,... (the simulator: it has no clusters) the SMs are
// taken as numbered GPC by GPC, N0 in the first GPC, and so on (the first 16 of each GPC of 16 or
// more form its group; section F then takes SMs in the H100's order, TPC by TPC over the GPCs).
//
// Configurations (metric prefix):
//   g<G>x<M>_w<W>_u<U>_<WS>   M SMs in each of G groups (GPCs) active
//   all_w<W>_u<U>_<WS>        every SM active
// Metrics per configuration:
//   <cfg>_gbs       aggregate GB/s: all bytes / (last CTA end - first CTA start, %globaltimer)
//   <cfg>_bpc       aggregate bytes per SM clock: sum over active CTAs of their bytes / their clocks
//   <cfg>_bpc_sm    the same per active SM (mean)
//   <cfg>_mhz       SM clock during the run (clock64 / %globaltimer of CTA 0)
// Sections (--sections, default ABCDFE):
//   A  one SM: W in 1,2,4,8,16,32 x U in 1,2,4,8 (8 MiB)
//   B  one GPC: M in 2,4,8,12,16 (W32 U4), and M=16 with (W8 U4), (W16 U4), (W32 U8) (8 MiB)
//   C  G GPCs: G x 16 for G = 2, 4, all groups; all groups x M for M = 1, 2, 4, 8 (W32 U4, 8 MiB)
//   D  every SM: W in 4,8,16,32 x U in 1,4, and W32 U8 (8 MiB)
//   F  the first N SMs by SM id, N = 1, 2, 4, 8, 16, 33, 66, 99, 132 (W32 U4, 8 MiB; metric first<N>_...)
//   G  (H100, 132 SMs, groups from clusters) SM sets that test where the GPC limit sits: a group
//      plus SMs 120-131 (not in any cluster of 16), SMs 0,1,16,17,32,33,48,49 (the GPC with no
//      cluster of 16), everything but those (metric <set>_w32_u4_8MiB_...)
//   E  working sets: every SM, W32 U4 at 4, 16, 24, 32 MiB (W16 U4 at 2 MiB); one GPC x 16 at 24 and 40 MiB
// Warm-up: before the first configuration of each working-set size every SM reads it twice; with
// --warm-each (default on hardware, off with --quick) every configuration is launched once more,
// untimed, before its timed launches.
// Options: --sections S, --per-sm-kib K (bytes per active SM, default 65536 KiB; --quick 512),
//   --gpcs N0,N1,...  --warm-each / --no-warm-each, --only-ws MIB (run only configurations of that
//   working set)
#include "../common.cuh"

#include <chrono>

constexpr int kGroup = 16;           // SMs per group (cluster size)
constexpr int kSmemBytes = 116 * 1024;  // forces one CTA per SM (228 KB per SM on cc 9.0, 164 KB on cc 8.0)

__device__ __forceinline__ uint4 ld_cg_v4(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
__device__ __forceinline__ unsigned long long rd_globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

struct CtaOut {
    unsigned long long c0, c1, t0, t1;  // clock64 and %globaltimer at start / end
    unsigned smid, rank;
};

// rank_of[smid] = the SM's rank among the active SMs, or -1. Each active thread reads `count`
// 16-B elements (a multiple of U): its own, then every `stride`-th (stride = active threads), mod n16.
template <int U>
__global__ void k_bw(const uint4* __restrict__ a, unsigned long long n16, unsigned long long count, const int* rank_of,
                     int nactive, unsigned* sum, CtaOut* out) {
    extern __shared__ unsigned char smem[];
    const unsigned smid = rd_smid();
    const int rank = rank_of[smid];
    if (threadIdx.x == 0) out[blockIdx.x].smid = smid;
    if (rank < 0) return;
    if (threadIdx.x == 0) smem[0] = 0;  // use the shared memory (the allocation is what matters)
    const unsigned long long stride = (unsigned long long)nactive * blockDim.x;
    unsigned long long j = ((unsigned long long)rank * blockDim.x + threadIdx.x) % n16;
    unsigned acc = 0;
    __syncthreads();
    unsigned long long c0 = 0, t0 = 0;
    if (threadIdx.x == 0) {
        t0 = rd_globaltimer();
        c0 = rd_clock64();
    }
#pragma unroll 1
    for (unsigned long long k = 0; k < count; k += U) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            v[u] = ld_cg_v4(a + j);
            j += stride;
            j = j >= n16 ? j - n16 : j;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        out[blockIdx.x].c1 = rd_clock64();
        out[blockIdx.x].t1 = rd_globaltimer();
        out[blockIdx.x].c0 = c0;
        out[blockIdx.x].t0 = t0;
        out[blockIdx.x].rank = rank;
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}

// GPC discovery: clusters of kGroup CTAs, one per SM; every CTA waits until all are resident.
__global__ void k_map(unsigned* smid, unsigned* arrived, unsigned total, unsigned* timed_out) {
    extern __shared__ unsigned char smem[];
    if (threadIdx.x != 0) return;
    smem[0] = 1;
    smid[blockIdx.x] = rd_smid();
    atomicAdd(arrived, 1u);
    long long t = rd_clock64();
    while (atomicAdd(arrived, 0u) < total) {
        if (rd_clock64() - t > 4000000000ll) {  // ~2 s: not all resident
            atomicExch(timed_out, 1u);
            break;
        }
    }
}

static std::vector<std::vector<int>> g_groups;  // SMs of each group (GPC)
static std::vector<int> g_order;                 // SM ids in the order section F takes them

static bool discover_groups() {
#if CUDART_VERSION >= 12000
    if (g_dev.major < 9) return false;
    CHECK(cudaFuncSetAttribute(k_map, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CHECK(cudaFuncSetAttribute(k_map, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = kGroup;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = kSmemBytes;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(kGroup);
    int nclusters = 0;
    if (cudaOccupancyMaxActiveClusters(&nclusters, k_map, &cfg) != cudaSuccess || nclusters < 1) {
        cudaGetLastError();
        printf("# l2_bw: clusters of %d not available\n", kGroup);
        return false;
    }
    for (int sz : {2, 4, 8, 12, 14, 16}) {
        cudaLaunchConfig_t c2 = cfg;
        cudaLaunchAttribute a2 = attr[0];
        a2.val.clusterDim.x = sz;
        c2.attrs = &a2;
        c2.gridDim = dim3(sz);
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, k_map, &c2) != cudaSuccess) { cudaGetLastError(); n = -1; }
        printf("# l2_bw: cudaOccupancyMaxActiveClusters(cluster %d, 1 CTA/SM) = %d\n", sz, n);
    }
    const unsigned total = (unsigned)(nclusters * kGroup);
    unsigned *d_smid, *d_arr, *d_to;
    CHECK(cudaMalloc(&d_smid, total * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_arr, sizeof(unsigned)));
    CHECK(cudaMalloc(&d_to, sizeof(unsigned)));
    CHECK(cudaMemset(d_arr, 0, sizeof(unsigned)));
    CHECK(cudaMemset(d_to, 0, sizeof(unsigned)));
    cfg.gridDim = dim3(total);
    CHECK(cudaLaunchKernelEx(&cfg, k_map, d_smid, d_arr, total, d_to));
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> sm(total);
    unsigned to = 0;
    CHECK(cudaMemcpy(sm.data(), d_smid, total * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&to, d_to, sizeof to, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_smid));
    CHECK(cudaFree(d_arr));
    CHECK(cudaFree(d_to));
    if (to) printf("# l2_bw: WARNING: not all %d clusters were resident at once\n", nclusters);
    std::vector<int> seen(4096, 0);
    bool ok = !to;
    for (int c = 0; c < nclusters; ++c) {
        std::vector<int> g;
        printf("# l2_bw: group %d (cluster of %d): SMs", c, kGroup);
        for (int r = 0; r < kGroup; ++r) {
            unsigned s = sm[c * kGroup + r];
            printf(" %u", s);
            if (s < seen.size() && seen[s]++) ok = false;
            g.push_back((int)s);
        }
        printf("\n");
        g_groups.push_back(g);
    }
    if (!ok) printf("# l2_bw: WARNING: an SM appears in two groups\n");
    return true;
#else
    return false;
#endif
}

static int g_warps_max = 32;
static size_t g_per_sm = 0;
static bool g_warm_each = true;
static uint4* g_a = nullptr;
static unsigned* g_sum = nullptr;
static CtaOut* g_out = nullptr;
static int* g_rank = nullptr;
static int g_nsm_ids = 0;  // size of the rank_of table

static void launch(int U, int W, size_t ws_bytes, size_t count, int nactive) {
    const unsigned long long n16 = ws_bytes / 16;
    dim3 grid(g_dev.sms), block(32 * W);
    switch (U) {
        case 1: k_bw<1><<<grid, block, kSmemBytes>>>(g_a, n16, count, g_rank, nactive, g_sum, g_out); break;
        case 2: k_bw<2><<<grid, block, kSmemBytes>>>(g_a, n16, count, g_rank, nactive, g_sum, g_out); break;
        case 4: k_bw<4><<<grid, block, kSmemBytes>>>(g_a, n16, count, g_rank, nactive, g_sum, g_out); break;
        case 8: k_bw<8><<<grid, block, kSmemBytes>>>(g_a, n16, count, g_rank, nactive, g_sum, g_out); break;
        default: fail("l2_bw", "bad U"); return;
    }
    CHECK(cudaGetLastError());
}

// Expected u32 sum of what the active threads read: together they read the elements
// i mod n16 for i in [0, stride x count) once each (thread t reads t + k x stride, mod n16), and
// element j holds the words 4j + 7 .. 4j + 10 (the host's pattern a[word w] = w + 7): 16 j + 34.
static unsigned expected_sum(size_t ws_bytes, size_t count, int nactive, int threads) {
    const unsigned long long n16 = ws_bytes / 16, total = (unsigned long long)nactive * threads * count;
    auto S = [](unsigned long long m) { return 8ull * m * (m - 1) + 34ull * m; };  // sum over j < m (mod 2^64)
    return (unsigned)((total / n16) * S(n16) + S(total % n16));
}

static void set_active(const std::vector<int>& sms) {
    std::vector<int> r(g_nsm_ids, -1);
    for (size_t i = 0; i < sms.size(); ++i) r[sms[i]] = (int)i;
    CHECK(cudaMemcpy(g_rank, r.data(), r.size() * sizeof(int), cudaMemcpyHostToDevice));
}

static size_t g_warm_ws = 0;

static void warm_all(size_t ws_bytes) {
    if (g_warm_ws == ws_bytes) return;
    std::vector<int> all;
    for (int s = 0; s < g_dev.sms; ++s) all.push_back(s);
    set_active(all);
    const int threads = 32 * g_warps_max;
    size_t count = (2 * ws_bytes / 16 + (size_t)g_dev.sms * threads - 1) / ((size_t)g_dev.sms * threads);
    count = (count + 3) / 4 * 4;
    launch(4, g_warps_max, ws_bytes, count, g_dev.sms);
    CHECK(cudaDeviceSynchronize());
    g_warm_ws = ws_bytes;
}

static void run_cfg(const std::string& name, const std::vector<int>& sms, int W, int U, double ws_mib) {
    const size_t ws = (size_t)(ws_mib * 1048576.0) >> 12 << 12;
    const int nactive = (int)sms.size();
    const int threads = 32 * W;
    if ((unsigned long long)nactive * threads >= ws / 16) {
        printf("# l2_bw: %s skipped (more threads than elements)\n", name.c_str());
        return;
    }
    warm_all(ws);
    set_active(sms);
    size_t count = g_per_sm / 16 / threads;
    count = std::max<size_t>(U, count / U * U);
    std::vector<double> gbs, bpc, bpc_sm, mhz;
    int runs = 0;
    for (int r = g_warm_each ? -1 : 0; r < g_reps; ++r) {
        CHECK(cudaMemset(g_sum, 0, sizeof(unsigned)));
        launch(U, W, ws, count, nactive);
        CHECK(cudaDeviceSynchronize());
        ++runs;
        unsigned got = 0;
        CHECK(cudaMemcpy(&got, g_sum, sizeof got, cudaMemcpyDeviceToHost));
        if (r == 0 && got != expected_sum(ws, count, nactive, threads)) fail("l2_bw", name + ": wrong sum");
        if (r < 0) continue;
        std::vector<CtaOut> o(g_dev.sms);
        CHECK(cudaMemcpy(o.data(), g_out, o.size() * sizeof(CtaOut), cudaMemcpyDeviceToHost));
        unsigned long long t0 = ~0ull, t1 = 0;
        double sum_bpc = 0, mh = 0;
        int n = 0;
        const double bytes_cta = (double)count * threads * 16;
        for (const CtaOut& c : o) {
            if (c.smid >= (unsigned)g_nsm_ids) continue;
            bool act = std::find(sms.begin(), sms.end(), (int)c.smid) != sms.end();
            if (!act) continue;
            ++n;
            t0 = std::min(t0, c.t0);
            t1 = std::max(t1, c.t1);
            sum_bpc += bytes_cta / (double)(c.c1 - c.c0);
            if (n == 1 && c.t1 > c.t0) mh = (double)(c.c1 - c.c0) / (double)(c.t1 - c.t0) * 1e3;
        }
        if (n != nactive) {
            char buf[128];
            snprintf(buf, sizeof buf, "%s: %d of %d active SMs ran a CTA", name.c_str(), n, nactive);
            fail("l2_bw", buf);
            return;
        }
        gbs.push_back(bytes_cta * nactive / (double)(t1 - t0));
        bpc.push_back(sum_bpc);
        bpc_sm.push_back(sum_bpc / nactive);
        mhz.push_back(mh);
    }
    emit("l2_bw", name + "_gbs", median(gbs), "GB/s");
    emit("l2_bw", name + "_bpc", median(bpc), "B/clk");
    emit("l2_bw", name + "_bpc_sm", median(bpc_sm), "B/clk/SM");
    emit("l2_bw", name + "_mhz", median(mhz), "MHz");
}

static std::string ws_name(double mib) {
    char b[32];
    snprintf(b, sizeof b, "%gMiB", mib);
    return b;
}
static std::string cfg_name(int G, int M, int W, int U, double ws) {
    char b[96];
    if (G < 0) snprintf(b, sizeof b, "all_w%d_u%d_%s", W, U, ws_name(ws).c_str());
    else snprintf(b, sizeof b, "g%dx%d_w%d_u%d_%s", G, M, W, U, ws_name(ws).c_str());
    return b;
}
static std::vector<int> pick(int G, int M) {
    std::vector<int> s;
    if (G < 0) {
        for (int i = 0; i < g_dev.sms; ++i) s.push_back(i);
        return s;
    }
    for (int g = 0; g < G && g < (int)g_groups.size(); ++g)
        for (int m = 0; m < M && m < (int)g_groups[g].size(); ++m) s.push_back(g_groups[g][m]);
    return s;
}

int main(int argc, char** argv) {
    std::vector<std::string> args = parse_common(argc, argv, "l2_bw");
    std::string sections = "ABCDFE", gpcs;
    double per_sm_kib = -1, only_ws = -1;
    int warm_each = -1;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--sections" && i + 1 < args.size()) sections = args[++i];
        else if (args[i] == "--per-sm-kib" && i + 1 < args.size()) per_sm_kib = atof(args[++i].c_str());
        else if (args[i] == "--gpcs" && i + 1 < args.size()) gpcs = args[++i];
        else if (args[i] == "--only-ws" && i + 1 < args.size()) only_ws = atof(args[++i].c_str());
        else if (args[i] == "--warm-each") warm_each = 1;
        else if (args[i] == "--no-warm-each") warm_each = 0;
        else usage_exit("[--sections ABCDE] [--per-sm-kib K] [--gpcs N0,N1,...] [--warm-each|--no-warm-each] [--only-ws MIB]");
    }
    query_device();
    g_per_sm = (size_t)((per_sm_kib > 0 ? per_sm_kib : (g_quick ? 512 : 65536)) * 1024);
    g_warm_each = warm_each >= 0 ? warm_each == 1 : !g_quick;
    g_nsm_ids = std::max(g_dev.sms, 1024);
    for (int i = 0; i < g_dev.sms; ++i) g_order.push_back(i);
    if (!gpcs.empty()) {
        // SMs numbered GPC by GPC; a group is the first 16 SMs of a GPC that has 16 or more (as a
        // cluster of 16 fits only there). g_order lists the SMs as an H100 numbers them: the TPCs
        // (pairs of SMs) of every GPC in turn.
        std::vector<int> first, size;
        int base = 0;
        for (double n : parse_list(gpcs.c_str())) {
            first.push_back(base);
            size.push_back((int)n);
            if ((int)n >= kGroup) {
                std::vector<int> g;
                for (int k = 0; k < kGroup; ++k) g.push_back(base + k);
                g_groups.push_back(g);
            }
            base += (int)n;
        }
        g_order.clear();
        for (int j = 0; j < 64; ++j)
            for (size_t g = 0; g < first.size(); ++g)
                for (int k = 0; k < 2; ++k)
                    if (2 * j + k < size[g]) g_order.push_back(first[g] + 2 * j + k);
        printf("# l2_bw: groups from --gpcs %s (SMs numbered GPC by GPC; first<N> in TPC round-robin order)\n", gpcs.c_str());
    } else if (!discover_groups()) {
        fail("l2_bw", "no GPC groups: give --gpcs");
        return finish();
    }
    const int G = (int)g_groups.size();
    for (auto* f : {(const void*)k_bw<1>, (const void*)k_bw<2>, (const void*)k_bw<4>, (const void*)k_bw<8>})
        CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    {
        int occ = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_bw<4>, 1024, kSmemBytes));
        printf("# l2_bw: %d groups of up to %d SMs; %d CTA(s)/SM of 1024 threads with %d B shared; %.0f KiB per active SM; "
               "warm-up launch per configuration: %s\n",
               G, kGroup, occ, kSmemBytes, g_per_sm / 1024.0, g_warm_each ? "yes" : "no");
        if (occ != 1) fail("l2_bw", "more than one CTA per SM");
    }
    const size_t max_ws = 40u << 20;
    CHECK(cudaMalloc(&g_a, max_ws));
    CHECK(cudaMalloc(&g_sum, sizeof(unsigned)));
    CHECK(cudaMalloc(&g_out, sizeof(CtaOut) * g_dev.sms));
    CHECK(cudaMalloc(&g_rank, sizeof(int) * g_nsm_ids));
    {
        std::vector<unsigned> h(max_ws / 4);
        for (size_t w = 0; w < h.size(); ++w) h[w] = (unsigned)w + 7;
        CHECK(cudaMemcpy(g_a, h.data(), max_ws, cudaMemcpyHostToDevice));
    }
    if (!g_quick) {  // let the clocks ramp up before the first measurement: every SM reads 8 MiB for ~0.5 s
        const size_t ws = 8u << 20;
        auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.5) {
            g_warm_ws = 0;
            warm_all(ws);
        }
    }
    auto want = [&](double ws) { return only_ws < 0 || ws == only_ws; };
    auto cfg = [&](int g, int m, int w, int u, double ws) {
        if (want(ws)) run_cfg(cfg_name(g, m, w, u, ws), pick(g, m), w, u, ws);
    };
    for (char sec : sections) {
        switch (sec) {
            case 'A':
                for (int w : {1, 2, 4, 8, 16, 32})
                    for (int u : {1, 2, 4, 8}) cfg(1, 1, w, u, 8);
                break;
            case 'B':
                for (int m : {2, 4, 8, 12, 16}) cfg(1, m, 32, 4, 8);
                cfg(1, 16, 8, 4, 8);
                cfg(1, 16, 16, 4, 8);
                cfg(1, 16, 32, 8, 8);
                break;
            case 'C':
                for (int g : {2, 4}) if (g < G) cfg(g, 16, 32, 4, 8);
                for (int m : {1, 2, 4, 8, 16}) cfg(G, m, 32, 4, 8);
                break;
            case 'D':
                for (int w : {4, 8, 16, 32})
                    for (int u : {1, 4}) cfg(-1, 0, w, u, 8);
                cfg(-1, 0, 32, 8, 8);
                break;
            case 'F':  // the first N SMs by SM id (no GPC grouping)
                for (int n : {1, 2, 4, 8, 16, 33, 66, 99, 132}) {
                    if (n > g_dev.sms || !want(8)) continue;
                    std::vector<int> s;
                    for (int i = 0; i < n; ++i) s.push_back(i < (int)g_order.size() ? g_order[i] : i);
                    char b[64];
                    snprintf(b, sizeof b, "first%d_w32_u4_8MiB", n);
                    run_cfg(b, s, 32, 4, 8);
                }
                break;
            case 'G': {  // H100 topology checks (SM ids as this H100 numbers them; see h100_l2_bw_measured.csv)
                if (g_dev.sms != 132 || !gpcs.empty() || !want(8)) break;
                auto range = [](int a, int b) { std::vector<int> v; for (int i = a; i <= b; ++i) v.push_back(i); return v; };
                auto plus = [](std::vector<int> a, const std::vector<int>& b) { a.insert(a.end(), b.begin(), b.end()); return a; };
                auto minus = [](const std::vector<int>& a, const std::vector<int>& b) {
                    std::vector<int> v;
                    for (int x : a) if (std::find(b.begin(), b.end(), x) == b.end()) v.push_back(x);
                    return v;
                };
                const std::vector<int> gpc7 = {0, 1, 16, 17, 32, 33, 48, 49}, tail = range(120, 131), all = range(0, 131);
                const std::vector<std::pair<const char*, std::vector<int>>> sets = {
                    {"grp0_plus120_121", plus(g_groups[0], {120, 121})},
                    {"grp1_plus122_123", plus(g_groups[1], {122, 123})},
                    {"grp0_plus122_123", plus(g_groups[0], {122, 123})},
                    {"grp0_plus130_131", plus(g_groups[0], {130, 131})},
                    {"sm120_131", tail},
                    {"sm120_121", {120, 121}},
                    {"sm0_1_16_17_32_33_48_49", gpc7},
                    {"all_but_120_131", minus(all, tail)},
                    {"all_but_0_1_16_17_32_33_48_49", minus(all, gpc7)},
                    {"grp0_6_plus120_131", plus(pick((int)g_groups.size(), 16), tail)},
                };
                for (auto& st : sets) run_cfg(std::string(st.first) + "_w32_u4_8MiB", st.second, 32, 4, 8);
                break;
            }
            case 'E':
                cfg(-1, 0, 16, 4, 2);  // 32 warps x 132 SMs would be more threads than 16-B elements
                for (double ws : {4.0, 16.0, 24.0, 32.0}) cfg(-1, 0, 32, 4, ws);
                g_warm_ws = 0;
                cfg(1, 16, 32, 4, 24);
                cfg(1, 16, 32, 4, 40);
                break;
            default: break;
        }
    }
    return finish();
}
