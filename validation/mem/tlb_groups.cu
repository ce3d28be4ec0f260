// tlb_groups: random coalesced 128-B reads over memory regions of growing size (the experiment of
// "Enabling full-speed random access to the entire memory on the A100 GPU", seeds/002): every warp
// reads --reads random lines (32 lanes x 4 B, one fully coalesced 128-B line per warp load) of a
// region of S GiB, with all SMs busy (--warps-per-sm warps each). The random line comes from a hash
// of (global warp id, iteration): no index arrays. Bandwidth = lines x 128 B / kernel time (cudaEvent,
// median of --reps launches after a warm-up launch).
//
// Modes (--modes, comma-separated):
//   all        every warp reads anywhere in the region
//   half:G     the region is cut in two halves; a warp on SM s reads only half ((s / G) % 2), with
//              s = %smid. The seed paper restricts each *group* of SMs sharing a TLB (it found 14
//              groups = half-GPCs on its A100) to one half; the grouping is not discoverable portably,
//              so this variant takes contiguous %smid blocks of G SMs (G = #SMs/2: two big halves;
//              G = 2: TPC pairs alternate). Printed as half_g<G>.
//   rand       each SM picks a pseudo-random half (hash of %smid): the naive variant of the seed's
//              section 2.1, which gave no benefit there
// Default modes: all, half:<#SMs/2>, half:2, rand (--quick: all, half:<#SMs/2>).
// Metrics: benchmark "tlb_groups", metric <mode>_<S>GiB (e.g. all_72GiB, half_g66_72GiB), GB/s.
// Check: the region is filled with word i = i (u32), and every loaded word is compared with its
// index (mismatches fail the run). --quick does not fill the region (that would be billions of
// simulated stores); then words reading 0 (untouched simulator memory) are accepted.
// Options: --sizes GiB,GiB,... (default 1,2,4,8,16,32,48,64,72; --quick 1,16,48,72; sizes beyond
//          what can be allocated are replaced by the largest whole GiB that can),
//          --modes LIST (all, half:G, rand, groups:S1+S2+... = consecutive %smid blocks of S1, S2, ...
//          SMs are the TLB groups, group k reads half k % 2), --reads R (default 8192, --quick 4), --warps-per-sm W (default 64,
//          --quick 16), --fill / --no-fill, --label L (benchmark name becomes tlb_groups_L)
#include "common.cuh"

typedef unsigned long long u64;

__global__ void k_fill(unsigned* p, u64 nwords) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < nwords; i += (u64)gridDim.x * blockDim.x)
        p[i] = (unsigned)i;
}

// The half of each SM in mode 3 (groups:...): the group index of its %smid, mod 2.
__constant__ unsigned char c_half[1024];

// mode 0: all; 1: half by (smid / group) % 2; 2: half by hash(smid); 3: half from c_half[smid]
__global__ void k_random_lines(const unsigned* __restrict__ base, unsigned lines_per_window, int mode,
                               unsigned group, int reads, u64 seed, int allow_zero,
                               unsigned long long* mismatches, unsigned* sink) {
    const unsigned lane = threadIdx.x & 31;
    const u64 gw = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5;
    unsigned half = 0;
    if (mode == 1) half = (rd_smid() / group) & 1u;
    else if (mode == 2) half = (unsigned)mix64(rd_smid() ^ seed) & 1u;
    else if (mode == 3) half = c_half[rd_smid() & 1023u];
    const u64 first_line = (u64)half * lines_per_window;
    unsigned acc = 0, bad = 0;
    // Four independent loads are issued before any of their values is used, and the check is
    // branch-free: the PTX then keeps several loads in flight per warp even without ptxas's
    // scheduling (a simulator that runs PTX issues in PTX order; SASS would hoist the loads anyway).
    int r = 0;
    for (; r + 4 <= reads; r += 4) {
        u64 word[4];
        unsigned v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            u64 h = mix64((gw << 24) ^ (u64)(r + k) ^ seed);
            word[k] = (first_line + __umulhi((unsigned)h, lines_per_window)) * 32 + lane;
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = __ldg(&base[word[k]]);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            bad += (unsigned)(v[k] != (unsigned)word[k]) & (unsigned)!(allow_zero && v[k] == 0);
            acc += v[k];
        }
    }
    for (; r < reads; ++r) {
        u64 h = mix64((gw << 24) ^ (u64)r ^ seed);
        u64 word = (first_line + __umulhi((unsigned)h, lines_per_window)) * 32 + lane;
        unsigned v = __ldg(&base[word]);
        bad += (unsigned)(v != (unsigned)word) & (unsigned)!(allow_zero && v == 0);
        acc += v;
    }
    if (bad) atomicAdd(mismatches, (unsigned long long)bad);
    if (acc == 0x9e3779b9u) sink[0] = acc;
}

int main(int argc, char** argv) {
    std::vector<std::string> args = parse_common(argc, argv, "tlb_groups");
    std::vector<double> sizes;
    std::string modes_s;
    int reads = -1, wps = -1, fill = -1;
    std::string bench_name = "tlb_groups";
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--sizes" && i + 1 < args.size()) sizes = parse_list(args[++i].c_str());
        else if (args[i] == "--modes" && i + 1 < args.size()) modes_s = args[++i];
        else if (args[i] == "--reads" && i + 1 < args.size()) reads = atoi(args[++i].c_str());
        else if (args[i] == "--warps-per-sm" && i + 1 < args.size()) wps = atoi(args[++i].c_str());
        else if (args[i] == "--label" && i + 1 < args.size()) bench_name = "tlb_groups_" + args[++i];
        else if (args[i] == "--fill") fill = 1;
        else if (args[i] == "--no-fill") fill = 0;
        else usage_exit("[--sizes GiB,...] [--modes all,half:G,rand] [--reads R] [--warps-per-sm W] [--fill|--no-fill] [--label L]");
    }
    query_device();
    if (sizes.empty()) sizes = g_quick ? std::vector<double>{1, 16, 48, 72}
                                       : std::vector<double>{1, 2, 4, 8, 16, 32, 48, 64, 72};
    if (reads <= 0) reads = g_quick ? 4 : 8192;
    if (wps <= 0) wps = g_quick ? 16 : 64;
    if (fill < 0) fill = g_quick ? 0 : 1;
    const int half_big = std::max(1, g_dev.sms / 2);
    if (modes_s.empty())
        modes_s = g_quick ? "all,half:" + std::to_string(half_big)
                          : "all,half:" + std::to_string(half_big) + ",half:2,rand";

    struct Mode { std::string name; int kind; unsigned group; std::vector<unsigned char> half; };
    std::vector<Mode> modes;
    {
        size_t p = 0;
        while (p <= modes_s.size()) {
            size_t q = modes_s.find(',', p);
            if (q == std::string::npos) q = modes_s.size();
            std::string m = modes_s.substr(p, q - p);
            p = q + 1;
            if (m.empty()) continue;
            if (m == "all") modes.push_back({"all", 0, 1, {}});
            else if (m == "rand") modes.push_back({"rand", 2, 1, {}});
            else if (m.compare(0, 5, "half:") == 0) {
                unsigned g = (unsigned)std::max(1, atoi(m.c_str() + 5));
                modes.push_back({"half_g" + std::to_string(g), 1, g, {}});
            } else if (m.compare(0, 7, "groups:") == 0) {
                // groups:S1+S2+...: consecutive %smid blocks of S1, S2, ... SMs are the TLB groups
                // (as the seed reverse-engineered them; `warpsim info` prints a simulated GPU's);
                // group k reads half k % 2.
                Mode md{"groups", 3, 0, std::vector<unsigned char>(1024, 0)};
                unsigned sm = 0, k = 0;
                const char* c = m.c_str() + 7;
                while (*c) {
                    unsigned n = (unsigned)strtoul(c, (char**)&c, 10);
                    for (unsigned i = 0; i < n && sm < 1024; ++i) md.half[sm++] = (unsigned char)(k & 1u);
                    ++k;
                    if (*c == '+') ++c;
                    else if (*c) usage_exit("(groups: sizes separated by +)");
                }
                modes.push_back(md);
            } else if (m == "half") modes.push_back({"half_g" + std::to_string(half_big), 1, (unsigned)half_big, {}});
            else usage_exit("(unknown mode)");
        }
    }

    // allocation: the largest size asked for, or as much as fits
    const u64 GiB = 1ull << 30;
    double max_size = *std::max_element(sizes.begin(), sizes.end());
    u64 want = (u64)(max_size * GiB);
    u64 margin = (u64)3 << 29;  // 1.5 GiB
    if (g_dev.free_bytes > margin + GiB && want > g_dev.free_bytes - margin)
        want = (g_dev.free_bytes - margin) / GiB * GiB;
    unsigned* base = nullptr;
    while (cudaMalloc(&base, want) != cudaSuccess) {
        cudaGetLastError();
        if (want <= GiB) { fail("tlb_groups", "cannot allocate 1 GiB"); return finish(); }
        want -= GiB;
    }
    {
        std::vector<double> s2;
        double cap = (double)(want / GiB);
        bool capped = false;
        for (double s : sizes) {
            if (s <= cap) s2.push_back(s);
            else capped = true;
        }
        if (capped && std::find(s2.begin(), s2.end(), cap) == s2.end()) s2.push_back(cap);
        sizes = s2;
    }
    const int block = std::min(256, std::max(32, wps * 32));
    const int grid = g_dev.sms * std::max(1, wps * 32 / block);
    const u64 warps = (u64)grid * block / 32;
    printf("# tlb_groups: allocated %.0f GiB; %d CTAs x %d threads (%d warps/SM), %d random 128-B lines per "
           "warp, %.2f GB per launch; region %s\n", (double)want / GiB, grid, block, grid * block / 32 / g_dev.sms,
           reads, (double)warps * reads * 128 / 1e9, fill ? "filled with word index" : "not filled");

    unsigned long long* d_bad;
    unsigned* d_sink;
    CHECK(cudaMalloc(&d_bad, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&d_sink, sizeof(unsigned)));
    CHECK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
    if (fill) {
        k_fill<<<g_dev.sms * 8, 256>>>(base, want / 4);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
    }

    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    u64 seed = 0x1234567ull;
    for (const Mode& m : modes) {
        if (m.kind == 3) CHECK(cudaMemcpyToSymbol(c_half, m.half.data(), m.half.size()));
        for (double s : sizes) {
            u64 region = (u64)(s * GiB) / 256 * 256;
            u64 lines = region / 128;
            u64 lpw = m.kind == 0 ? lines : lines / 2;
            if (lpw == 0 || lpw > 0xffffffffull) { fail("tlb_groups", "region size out of range"); continue; }
            std::vector<double> v;
            for (int r = g_quick ? 0 : -1; r < g_reps; ++r) {
                seed = mix64(seed);
                CHECK(cudaEventRecord(e0));
                k_random_lines<<<grid, block>>>(base, (unsigned)lpw, m.kind, m.group, reads, seed, !fill, d_bad, d_sink);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaGetLastError());
                float ms = 0;
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (r >= 0) v.push_back((double)warps * reads * 128 / (ms * 1e-3) / 1e9);
            }
            char metric[96];
            snprintf(metric, sizeof metric, "%s_%gGiB", m.name.c_str(), s);
            emit(bench_name.c_str(), metric, median(v), "GB/s");
        }
    }
    unsigned long long bad = 0;
    CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad) fail("tlb_groups", std::to_string(bad) + " loaded words differ from their index");
    return finish();
}
