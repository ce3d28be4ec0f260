// constcache: the constant caches on the ld.const (LDC) path. One thread (or one warp) follows a
// chain of byte offsets stored in a __constant__ table (`ld.const.u32 off, [c_tab + off]`, inline
// PTX, so every load is an LDC with a register address), timed with clock64() around `--loads N`
// dependent loads (default 4096; --quick 1024) after an untimed warm-up pass over the working set.
// Printed value = cycles per load (SM clock), loop arithmetic included (one 64-bit add per load:
// compare differences between metrics, which cancel it). The chain visits 64-B lines of the
// working set in a random cyclic order (fixed seed). After every launch the end offset is
// compared with the CPU's.
//
// Metrics (benchmark "constcache", unit cycles unless noted):
//   sweep_<size>               chase over <size> of constants (1 KiB ... 32 KiB), one line per load
//   l1_hit_latency             = sweep_1KiB: the working set fits the constant L1 (2 KiB, [MT4G])
//   l15_hit_latency            = sweep_16KiB: beyond the constant L1, inside the L1.5
//   l15_minus_l1               l15_hit_latency - l1_hit_latency (the loop arithmetic cancels)
//   divergent_<k>              one warp whose lanes chase k distinct 64-B lines (k = 1, 2, 4, 8, 16,
//                              32; lanes l and l + k read the same line), all L1 hits after the
//                              warm-up; cycles per warp-wide load
//   divergent_extra_per_address (divergent_32 - divergent_1) / 31: what each further distinct
//                              address of a warp's request costs (the Programming Guide's "split
//                              into as many separate requests as there are different addresses")
//   first_access               one timed ld.const to a line no launch touched before (its bytes
//                              brought into L2 by generic global loads first), clock64 reads
//                              included: an L1.5 miss served by L2 where the caches start cold at a
//                              launch
// Options: --loads N
#include "common.cuh"
#include <random>

// 32 KiB of chains + 2 KiB for the divergent lanes' self-loops + 8 KiB of lines for first_access.
constexpr unsigned kChainBytes = 32768, kDivBase = kChainBytes, kFirstBase = kDivBase + 2048;
constexpr unsigned kTabWords = (kFirstBase + 8192) / 4;
__constant__ unsigned c_tab[kTabWords];

// One LDC: the constant at byte offset `off` of c_tab (its value is the next offset).
__device__ __forceinline__ unsigned ldc(unsigned off) {
    unsigned v;
    asm volatile("{\n\t.reg .u64 a, o;\n\tmov.u64 a, c_tab;\n\tcvt.u64.u32 o, %1;\n\tadd.u64 a, a, o;\n\t"
                 "ld.const.u32 %0, [a];\n\t}"
                 : "=r"(v) : "r"(off) : "memory");
    return v;
}

// One thread (or each lane of one warp): `warm` untimed loads, then `n` timed ones.
__global__ void k_chase(const unsigned* start, unsigned warm, int n, unsigned* out, long long* cyc) {
    unsigned off = start[threadIdx.x];
    for (unsigned i = 0; i < warm; ++i) off = ldc(off);
    asm volatile("" : "+r"(off));
    long long t0 = rd_clock64();
#pragma unroll 8
    for (int i = 0; i < n; ++i) off = ldc(off);
    out[threadIdx.x] = off;  // the last load's value is needed before the second clock read
    long long t1 = rd_clock64();
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// One timed load of a line nothing loaded through the constant caches before.
__global__ void k_first(unsigned off, unsigned* out, long long* cyc) {
    asm volatile("" : "+r"(off));
    long long t0 = rd_clock64();
    unsigned v = ldc(off);
    out[0] = v;
    long long t1 = rd_clock64();
    cyc[0] = t1 - t0;
}

// Reads n words through a generic pointer (brings them into L2; not into the constant caches).
__global__ void k_warm_l2(const unsigned* p, unsigned n, unsigned* sink) {
    unsigned acc = 0;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) acc ^= p[i];
    if (acc == 0x9e3779b9u) sink[0] = acc;
}

int main(int argc, char** argv) {
    auto args = parse_common(argc, argv, "constcache");
    int loads = g_quick ? 1024 : 4096;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--loads" && i + 1 < args.size()) loads = std::max(8, atoi(args[++i].c_str())) / 8 * 8;
        else usage_exit("[--loads N]");
    }
    query_device();
    const char* B = "constcache";
    printf("# %s: %d timed loads per launch, chains over 64-B lines in random order\n", g_prog, loads);
    unsigned *d_start, *d_out, *d_sink;
    long long* d_cyc;
    CHECK(cudaMalloc(&d_start, 32 * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_out, 32 * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_sink, sizeof(unsigned)));
    CHECK(cudaMalloc(&d_cyc, sizeof(long long)));
    std::vector<unsigned> tab(kTabWords, 0);
    // The divergent region: every 64-B line's first word holds its own offset (a self-loop).
    for (unsigned l = 0; l < 32; ++l) tab[(kDivBase + 64 * l) / 4] = kDivBase + 64 * l;
    std::mt19937 rng(12345);

    // Runs k_chase with `lanes` threads; returns the median cycles per load and checks the ends.
    auto chase = [&](const std::vector<unsigned>& starts, unsigned warm, const std::vector<unsigned>& ends,
                     const std::string& what) {
        CHECK(cudaMemcpy(d_start, starts.data(), starts.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
        std::vector<double> v;
        for (int r = 0; r < g_reps; ++r) {
            k_chase<<<1, unsigned(starts.size())>>>(d_start, warm, loads, d_out, d_cyc);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            long long c = 0;
            std::vector<unsigned> got(starts.size());
            CHECK(cudaMemcpy(&c, d_cyc, sizeof c, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
            if (got != ends) fail(B, what + ": chase ended at the wrong offset");
            v.push_back(double(c) / loads);
        }
        return median(v);
    };

    // Sweeps: one thread, a random cycle over the lines of the working set.
    double lat1 = NAN, lat16 = NAN;
    for (unsigned kib : {1u, 2u, 3u, 4u, 8u, 16u, 32u}) {
        const unsigned lines = kib * 1024 / 64;
        std::vector<unsigned> perm(lines);
        for (unsigned i = 0; i < lines; ++i) perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), rng);
        std::fill(tab.begin(), tab.begin() + kChainBytes / 4, 0u);
        for (unsigned i = 0; i < lines; ++i) tab[perm[i] * 16] = perm[(i + 1) % lines] * 64;
        CHECK(cudaMemcpyToSymbol(c_tab, tab.data(), tab.size() * sizeof(unsigned)));
        const unsigned end = perm[(lines + unsigned(loads)) % lines] * 64;
        double c = chase({perm[0] * 64}, lines, {end}, "sweep_" + size_name(kib * 1024.0));
        emit(B, "sweep_" + size_name(kib * 1024.0), c, "cycles");
        if (kib == 1) lat1 = c;
        if (kib == 16) lat16 = c;
    }
    emit(B, "l1_hit_latency", lat1, "cycles");
    emit(B, "l15_hit_latency", lat16, "cycles");
    emit(B, "l15_minus_l1", lat16 - lat1, "cycles");

    // Divergence: lanes l and l + k share a line; k distinct lines per warp-wide load.
    double d1 = NAN, d32 = NAN;
    for (unsigned k : {1u, 2u, 4u, 8u, 16u, 32u}) {
        std::vector<unsigned> starts(32);
        for (unsigned l = 0; l < 32; ++l) starts[l] = kDivBase + 64 * (l % k);
        double c = chase(starts, 2, starts, "divergent_" + std::to_string(k));
        emit(B, "divergent_" + std::to_string(k), c, "cycles");
        if (k == 1) d1 = c;
        if (k == 32) d32 = c;
    }
    emit(B, "divergent_extra_per_address", (d32 - d1) / 31, "cycles");

    // First access: a fresh 256-B line per launch, in L2 beforehand.
    unsigned* sym = nullptr;
    CHECK(cudaGetSymbolAddress((void**)&sym, c_tab));
    k_warm_l2<<<1, 256>>>(sym, kTabWords, d_sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<double> v;
    for (int r = 0; r < g_reps && r < 32; ++r) {
        const unsigned off = kFirstBase + 256 * unsigned(r);
        k_first<<<1, 1>>>(off, d_out, d_cyc);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        long long c = 0;
        unsigned got = 1;
        CHECK(cudaMemcpy(&c, d_cyc, sizeof c, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
        if (got != tab[off / 4]) fail(B, "first_access: wrong value");
        v.push_back(double(c));
    }
    emit(B, "first_access", median(v), "cycles");
    return finish();
}
