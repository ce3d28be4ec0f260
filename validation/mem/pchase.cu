// pchase: load-to-use latency by pointer chasing. One thread (<<<1,1>>>) follows a chain of 64-bit
// pointers (`ld.global.u64 p, [p]` / `ld.global.cg.u64 p, [p]` / `ld.shared.u32 p, [p]`, inline PTX),
// timed with clock64() around `--loads N` dependent loads (default 20000; --quick 2000), after an
// untimed warm-up pass. Printed value = cycles per load (SM clock). The chain visits its elements in
// a random order (a random single cycle, fixed seed), so neither prefetchers nor DRAM row locality
// help. After every launch the end position is compared with the CPU's.
//
// Metrics (benchmark "pchase", unit cycles unless noted):
//   shared_latency      ld.shared chase, 256 entries 128 B apart (32 KiB), warmed
//   l1_hit_latency      default-cached ld.global, 16 KiB working set (128 lines), warmed in-kernel
//   l2_hit_latency      ld.global.cg, 4 MiB working set, warmed (all-SM read kernel + a full pass)
//   l2_far_latency      ld.global.cg, working set 0.75 x L2 size (30 MiB on A100, 37.5 MiB on H100):
//                       above one L2 partition's capacity, the "far partition" plateau of gpu-benches
//   dram_latency        ld.global.cg, cold: a chain over random 128-B lines of a 512 MiB region,
//                       every load a line not touched since an L2 flush (2 x L2 of other writes);
//                       each launch uses a fresh part of the chain. Comparable to gpu-benches' DRAM
//                       plateau (62 MB-1.5 GB working sets: L1-TLB misses, L2-TLB hits)
//   dram_latency_16MiB_region  same, lines of a 16 MiB region only (8 pages of 2 MiB: TLB-friendly),
//                       so the difference to dram_latency is the TLB cost of a 512 MiB region
//   sweep_<size>        default ld.global, working set <size> (16 KiB ... 128 MiB), warmed; gives the
//                       L1 and L2 capacity knees (working sets above 512 KiB get one full untimed
//                       pass first and later launches continue the chain: see ws_latency)
//   tlb_stride2MiB_<R>  ld.global.cg, one 128-B line in each 2 MiB page of a region of R bytes (line
//                       at a random offset within the page, so L2 sets do not alias), warmed by one
//                       full pass: the data are L2 hits, the extra over l2_hit_latency is TLB cost
//   tlb_stride32MiB_<R> same with one line per 32 MiB (regions up to 72 GiB)
//   l1_knee             (derived, kB = 1000 B) working set where the sweep crosses the midpoint of
//                       l1_hit_latency and the sweep's L2 level (log interpolation)
//   l2_knee_near        (derived, MB = 1e6 B) sweep crosses the midpoint of l2_hit_latency and
//                       l2_far_latency; printed only when l2_far_latency > 1.15 x l2_hit_latency
//   l2_knee             (derived, MB) sweep crosses the midpoint of l2_far_latency and dram_latency
// Options: --loads N, --sizes a,b,c (sweep sizes in KiB), --max-gb G (largest TLB region, default
//          72 on hardware, 8 with --quick; bounded by free memory), --no-tlb, --no-sweep
#include "common.cuh"
#include <random>
#include <unordered_set>

typedef unsigned long long u64;

// ---- kernels ----
__global__ void k_build(unsigned char* base, const u64* slots, long long k) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x) {
        long long j = i + 1 == k ? 0 : i + 1;
        *(u64*)(base + slots[i]) = (u64)(base + slots[j]);
    }
}

// Reads [p, p+bytes) with all SMs (default caching), to bring it into L2.
__global__ void k_warm(const uint4* p, size_t n16, unsigned* sink) {
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) sink[0] = acc;
}

// Writes [p, p+n16*16) (evicts everything else from L2).
__global__ void k_flush(uint4* p, size_t n16) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_uint4((unsigned)i, 1u, 2u, 3u);
}

template <bool kCG>
__device__ __forceinline__ void hop(u64& p) {
    if (kCG) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
    else     asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
}

// warm untimed hops, then n (multiple of 16) timed hops.
template <bool kCG>
__global__ void k_chase(u64 start, long long warm, long long n, u64* out_p, long long* out_cyc) {
    u64 p = start;
#pragma unroll 1
    for (long long i = 0; i < warm; ++i) hop<kCG>(p);
    long long t0 = rd_clock64();
#pragma unroll 1
    for (long long i = 0; i < n; i += 16) {
#pragma unroll
        for (int j = 0; j < 16; ++j) hop<kCG>(p);
    }
    long long t1 = rd_clock64();
    out_p[0] = p;
    out_cyc[0] = t1 - t0;
}

constexpr int kShEntries = 256, kShStride = 32;  // 32 x 4 B = 128 B apart, 32 KiB in all
__global__ void k_shared(const unsigned* next_idx, long long n, unsigned* out_idx, long long* out_cyc) {
    __shared__ unsigned s[kShEntries * kShStride];
    for (int i = threadIdx.x; i < kShEntries; i += blockDim.x)
        s[i * kShStride] = (unsigned)__cvta_generic_to_shared(&s[next_idx[i] * kShStride]);
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned p = (unsigned)__cvta_generic_to_shared(&s[0]);
    const unsigned base = p;
#pragma unroll 1
    for (int i = 0; i < kShEntries; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
    long long t0 = rd_clock64();
#pragma unroll 1
    for (long long i = 0; i < n; i += 16) {
#pragma unroll
        for (int j = 0; j < 16; ++j) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
    }
    long long t1 = rd_clock64();
    out_idx[0] = (p - base) / (4 * kShStride);
    out_cyc[0] = t1 - t0;
}

// ---- host ----
static std::mt19937_64 g_rng(12345);
static unsigned char* g_big = nullptr;  // one big allocation; every chain lives in a prefix of it
static size_t g_big_bytes = 0;
static uint4* g_flush = nullptr;
static size_t g_flush_bytes = 0;
static unsigned* g_sink = nullptr;
static u64* g_slots_d = nullptr;
static size_t g_slots_cap = 0;
static u64* g_out_p = nullptr;
static long long* g_out_cyc = nullptr;
static long long g_loads = 20000;

// Chain = byte offsets (within g_big) in visiting order; a single cycle.
// Full cycle over every `spacing`-th byte of [0, ws): random order.
static std::vector<u64> full_cycle(size_t ws, size_t spacing) {
    size_t m = std::max<size_t>(1, ws / spacing);
    std::vector<u64> v(m);
    for (size_t i = 0; i < m; ++i) v[i] = (u64)i * spacing;
    std::shuffle(v.begin(), v.end(), g_rng);
    return v;
}

// k distinct slots out of region/stride, random order; with stride > 128 each element gets a random
// 128-B-aligned offset within the first min(stride, 2 MiB) bytes of its slot.
static std::vector<u64> sampled_cycle(size_t region, size_t stride, size_t k) {
    size_t m = region / stride;
    k = std::min(k, m);
    std::vector<u64> idx;
    if (k * 2 >= m) {
        idx.resize(m);
        for (size_t i = 0; i < m; ++i) idx[i] = i;
        std::shuffle(idx.begin(), idx.end(), g_rng);
        idx.resize(k);
    } else {
        std::unordered_set<u64> seen;
        seen.reserve(k * 2);
        while (idx.size() < k) {
            u64 x = g_rng() % m;
            if (seen.insert(x).second) idx.push_back(x);
        }
    }
    size_t jitter_lines = std::min<size_t>(stride, 2u << 20) / 128;
    for (auto& x : idx) {
        u64 off = x * stride;
        if (stride > 128) off += (g_rng() % jitter_lines) * 128;
        x = off;
    }
    return idx;
}

static void build(const std::vector<u64>& slots) {
    if (slots.size() > g_slots_cap) {
        if (g_slots_d) CHECK(cudaFree(g_slots_d));
        g_slots_cap = slots.size();
        CHECK(cudaMalloc(&g_slots_d, g_slots_cap * sizeof(u64)));
    }
    CHECK(cudaMemcpy(g_slots_d, slots.data(), slots.size() * sizeof(u64), cudaMemcpyHostToDevice));
    long long k = (long long)slots.size();
    int blocks = (int)std::min<long long>((k + 255) / 256, (long long)g_dev.sms * 8);
    k_build<<<blocks, 256>>>(g_big, g_slots_d, k);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
}

static void warm_range(size_t bytes) {
    k_warm<<<g_dev.sms * 4, 256>>>((const uint4*)g_big, bytes / 16, g_sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
}

static void flush_l2() {
    k_flush<<<g_dev.sms * 4, 256>>>(g_flush, g_flush_bytes / 16);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
}

// One launch: start at slots[first], `warm` untimed hops, n timed hops. Returns cycles per load or
// NAN on a wrong end position.
static double chase_once(const char* what, const std::vector<u64>& slots, size_t first, long long warm,
                         long long n, bool cg) {
    u64 start = (u64)(g_big + slots[first % slots.size()]);
    if (cg) k_chase<true><<<1, 1>>>(start, warm, n, g_out_p, g_out_cyc);
    else    k_chase<false><<<1, 1>>>(start, warm, n, g_out_p, g_out_cyc);
    CHECK(cudaGetLastError());
    u64 p = 0;
    long long cyc = 0;
    CHECK(cudaMemcpy(&p, g_out_p, sizeof p, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&cyc, g_out_cyc, sizeof cyc, cudaMemcpyDeviceToHost));
    u64 expect = (u64)(g_big + slots[(first + (size_t)warm + (size_t)n) % slots.size()]);
    if (p != expect) {
        fail("pchase", std::string(what) + ": wrong end position of the pointer chase");
        return NAN;
    }
    return (double)cyc / (double)n;
}

static long long round16(long long n) { return std::max<long long>(16, n / 16 * 16); }

// Warmed chase: reps launches (after one extra warm-up launch), each `warm` + n hops; median.
static double chase_warm(const char* what, const std::vector<u64>& slots, long long warm, bool cg) {
    std::vector<double> v;
    long long n = round16(g_loads);
    for (int r = 0; r < g_reps + 1; ++r) {
        double c = chase_once(what, slots, 0, warm, n, cg);
        if (std::isnan(c)) return NAN;
        if (r) v.push_back(c);
    }
    return median(v);
}

static double l1_level = NAN, l2_level = NAN, l2_far = NAN, dram_level = NAN;

static void do_shared() {
    std::vector<unsigned> order(kShEntries);
    for (int i = 0; i < kShEntries; ++i) order[i] = i;
    std::shuffle(order.begin() + 1, order.end(), g_rng);  // cycle starts at entry 0
    std::vector<unsigned> next(kShEntries);
    for (int i = 0; i < kShEntries; ++i) next[order[i]] = order[(i + 1) % kShEntries];
    unsigned *d_next, *d_idx;
    CHECK(cudaMalloc(&d_next, sizeof(unsigned) * kShEntries));
    CHECK(cudaMalloc(&d_idx, sizeof(unsigned)));
    CHECK(cudaMemcpy(d_next, next.data(), sizeof(unsigned) * kShEntries, cudaMemcpyHostToDevice));
    long long n = round16(g_loads);
    std::vector<double> v;
    for (int r = 0; r < g_reps + 1; ++r) {
        k_shared<<<1, 256>>>(d_next, n, d_idx, g_out_cyc);
        CHECK(cudaGetLastError());
        unsigned idx = 0;
        long long cyc = 0;
        CHECK(cudaMemcpy(&idx, d_idx, sizeof idx, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&cyc, g_out_cyc, sizeof cyc, cudaMemcpyDeviceToHost));
        if (idx != order[(kShEntries + n) % kShEntries]) {
            fail("pchase", "shared_latency: wrong end position");
            break;
        }
        if (r) v.push_back((double)cyc / n);
    }
    if (!v.empty()) emit("pchase", "shared_latency", median(v), "cycles");
    CHECK(cudaFree(d_next));
    CHECK(cudaFree(d_idx));
}

// Warmed chase over a working set of ws bytes (128-B spacing).
//  ws <= 512 KiB: every launch starts at the chain's head and first makes one untimed full pass
//    (L1 is not kept across launches), then n timed hops.
//  ws >  512 KiB: the range is first read by all SMs (k_warm: fills L2 in parallel; skipped with
//    --quick), then a warm-up
//    launch makes one untimed full pass of K hops (so that the chasing SM itself has touched every
//    line - on the H100 a partial pass gave up to 14% higher L2 latencies - and every line's reuse
//    distance is the whole working set, as in a long cyclic chase) and n more hops (discarded); the timed
//    launches continue the chain where the previous launch stopped.
static double ws_latency(const char* what, size_t ws, bool cg) {
    std::vector<u64> slots = full_cycle(ws, 128);
    build(slots);
    const long long k = (long long)slots.size();
    if (ws <= (512u << 10)) return chase_warm(what, slots, k, cg);
    if (!g_quick) warm_range(ws);  // --quick: the full pass alone warms (fewer simulated instructions)
    const long long n = round16(g_loads);
    double c = chase_once(what, slots, 0, k, n, cg);
    if (std::isnan(c)) return NAN;
    size_t pos = (size_t)((k + n) % k);
    std::vector<double> v;
    for (int r = 0; r < g_reps; ++r) {
        c = chase_once(what, slots, pos, 0, n, cg);
        if (std::isnan(c)) return NAN;
        v.push_back(c);
        pos = (pos + (size_t)n) % (size_t)k;
    }
    return median(v);
}

static void do_fixed_points() {
    l1_level = ws_latency("l1_hit_latency", 16 << 10, false);
    emit("pchase", "l1_hit_latency", l1_level, "cycles");
    l2_level = ws_latency("l2_hit_latency", 4 << 20, true);
    emit("pchase", "l2_hit_latency", l2_level, "cycles");
    size_t far = (size_t)(0.75 * g_dev.l2_bytes) / 128 * 128;
    printf("# l2_far_latency: working set %.2f MiB (0.75 x L2)\n", far / 1048576.0);
    l2_far = ws_latency("l2_far_latency", far, true);
    emit("pchase", "l2_far_latency", l2_far, "cycles");
}

// Cold DRAM chases: both chains built, then one L2 flush, then each launch uses fresh lines.
static void do_dram() {
    struct Pt { const char* name; size_t region; size_t offset; std::vector<u64> slots; long long n; };
    size_t big_region = std::min<size_t>(512u << 20, g_big_bytes / 2);
    std::vector<Pt> pts;
    pts.push_back({"dram_latency", big_region, 0, {}, 0});
    pts.push_back({"dram_latency_16MiB_region", 16u << 20, big_region, {}, 0});
    for (auto& p : pts) {
        size_t lines = p.region / 128;
        p.n = round16(std::min<long long>(g_loads, (long long)(lines / (g_reps + 1))));
        p.slots = sampled_cycle(p.region, 128, (size_t)p.n * (g_reps + 1));
        for (auto& s : p.slots) s += p.offset;
        build(p.slots);
        printf("# %s: region %s, %lld cold loads per launch, %d launches\n", p.name,
               size_name((double)p.region).c_str(), p.n, g_reps);
    }
    printf("# L2 flush between chain building and the cold chases: %s written\n", size_name((double)g_flush_bytes).c_str());
    flush_l2();
    for (auto& p : pts) {
        std::vector<double> v;
        for (int r = 0; r < g_reps; ++r) {
            double c = chase_once(p.name, p.slots, (size_t)r * p.n, 0, p.n, true);
            if (std::isnan(c)) break;
            v.push_back(c);
        }
        double m = median(v);
        emit("pchase", p.name, m, "cycles");
        if (!strcmp(p.name, "dram_latency")) dram_level = m;
    }
}

// Size where `lat` (ascending sizes) first crosses `level`, log-interpolated; NAN if never.
static double crossing(const std::vector<double>& sz, const std::vector<double>& lat, double level) {
    for (size_t i = 1; i < sz.size(); ++i) {
        if (lat[i - 1] < level && lat[i] >= level) {
            double f = (level - lat[i - 1]) / (lat[i] - lat[i - 1]);
            return std::exp(std::log(sz[i - 1]) + f * (std::log(sz[i]) - std::log(sz[i - 1])));
        }
    }
    return NAN;
}

static void do_sweep(std::vector<double> sizes_kib) {
    if (sizes_kib.empty()) {
        if (g_quick) sizes_kib = {16, 64, 128, 160, 192, 224, 256, 512, 4096, 16384, 24576, 32768, 49152, 65536};
        else sizes_kib = {16, 32, 64, 96, 128, 160, 192, 208, 224, 240, 256, 320, 512, 1024, 4096, 8192,
                          16384, 20480, 24576, 28672, 32768, 40960, 49152, 57344, 65536, 98304, 131072};
    }
    std::vector<double> sz, lat;
    for (double k : sizes_kib) {
        size_t ws = (size_t)(k * 1024) / 128 * 128;
        if (ws < 128 || ws > g_big_bytes) continue;
        std::string name = "sweep_" + size_name((double)ws);
        double c = ws_latency(name.c_str(), ws, false);
        emit("pchase", name, c, "cycles");
        sz.push_back((double)ws);
        lat.push_back(c);
    }
    // L1 knee: midpoint between the L1 level and the L2 level as seen by default loads (the sweep
    // value at 4 MiB, else l2_hit_latency)
    double l2_sweep = l2_level;
    for (size_t i = 0; i < sz.size(); ++i)
        if (sz[i] == 4194304.0) l2_sweep = lat[i];
    double k1 = crossing(sz, lat, 0.5 * (l1_level + l2_sweep));
    if (!std::isnan(k1)) emit("pchase", "l1_knee", k1 / 1000.0, "kB");
    if (l2_far > 1.15 * l2_level) {
        double kn = crossing(sz, lat, 0.5 * (l2_sweep + l2_far + (l2_sweep - l2_level)));
        if (!std::isnan(kn)) emit("pchase", "l2_knee_near", kn / 1e6, "MB");
    }
    double k2 = crossing(sz, lat, 0.5 * (std::max(l2_far, l2_sweep) + dram_level));
    if (!std::isnan(k2)) emit("pchase", "l2_knee", k2 / 1e6, "MB");
}

static void do_tlb(double max_gb) {
    struct S { size_t stride; std::vector<double> regions_mib; };
    std::vector<S> sets;
    if (g_quick) {
        sets.push_back({2u << 20, {32, 256, 2048, 8192}});
        sets.push_back({32u << 20, {8192}});
    } else {
        sets.push_back({2u << 20, {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}});
        sets.push_back({32u << 20, {1024, 4096, 16384, 32768, 49152, 57344, 61440, 65536, 69632, 73728}});
    }
    for (auto& s : sets) {
        for (double r : s.regions_mib) {
            size_t region = (size_t)(r * 1048576.0);
            if (region > g_big_bytes || region > (size_t)(max_gb * 1073741824.0)) {
                printf("# tlb: region %s skipped (allocation %s)\n", size_name((double)region).c_str(),
                       size_name((double)g_big_bytes).c_str());
                continue;
            }
            std::vector<u64> slots = sampled_cycle(region, s.stride, region / s.stride);
            build(slots);
            std::string name = "tlb_stride" + size_name((double)s.stride) + "_" + size_name((double)region);
            double c = chase_warm(name.c_str(), slots, (long long)slots.size(), true);
            emit("pchase", name, c, "cycles");
        }
    }
}

int main(int argc, char** argv) {
    std::vector<std::string> args = parse_common(argc, argv, "pchase");
    std::vector<double> sizes;
    double max_gb = -1;
    bool tlb = true, sweep = true;
    g_loads = g_quick ? 2000 : 20000;
    if (const char* e = getenv("MEM_LOADS")) g_loads = atoll(e);
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--loads" && i + 1 < args.size()) g_loads = atoll(args[++i].c_str());
        else if (args[i] == "--sizes" && i + 1 < args.size()) sizes = parse_list(args[++i].c_str());
        else if (args[i] == "--max-gb" && i + 1 < args.size()) max_gb = atof(args[++i].c_str());
        else if (args[i] == "--no-tlb") tlb = false;
        else if (args[i] == "--no-sweep") sweep = false;
        else usage_exit("[--loads N] [--sizes KiB,KiB,...] [--max-gb G] [--no-tlb] [--no-sweep]");
    }
    g_loads = round16(g_loads);
    if (max_gb < 0) max_gb = g_quick ? 8 : 72;
    query_device();

    // One big allocation: the TLB regions, the DRAM regions and every working set live in it.
    size_t want = std::max<size_t>((size_t)(max_gb * 1073741824.0), 1u << 30);
    size_t margin = (size_t)3 << 30;
    if (g_dev.free_bytes > margin + (1u << 30)) want = std::min(want, g_dev.free_bytes - margin);
    want = want >> 21 << 21;
    while (cudaMalloc(&g_big, want) != cudaSuccess) {
        cudaGetLastError();
        want = (want / 2) >> 21 << 21;
        if (want < (256u << 20)) { fail("pchase", "cannot allocate 256 MiB"); return finish(); }
    }
    g_big_bytes = want;
    g_flush_bytes = std::max<size_t>((size_t)g_dev.l2_bytes * 2, 32u << 20) >> 4 << 4;
    CHECK(cudaMalloc(&g_flush, g_flush_bytes));
    CHECK(cudaMalloc(&g_sink, sizeof(unsigned)));
    CHECK(cudaMalloc(&g_out_p, sizeof(u64)));
    CHECK(cudaMalloc(&g_out_cyc, sizeof(long long)));
    printf("# pchase: %lld timed loads per launch, chains in one allocation of %s\n", g_loads,
           size_name((double)g_big_bytes).c_str());

    do_shared();
    do_fixed_points();
    do_dram();
    if (sweep) do_sweep(sizes);
    if (tlb) do_tlb(max_gb);
    return finish();
}
