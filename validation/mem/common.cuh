// Shared helpers for the memory-hierarchy microbenchmarks (validation/mem/*.cu).
//
// Every program prints `#` comment lines (device, clock, parameters used) and CSV lines
// `benchmark,metric,value,unit` on stdout, like validation/sm. Each measurement is repeated
// `--reps R` times (default 5) and the median is printed. Results are checked against a CPU
// reference (the end position of every pointer chase, the sums of every bandwidth kernel, the
// values read by tlb_groups), so the programs also check a simulator's functional results.
//
// Common options (every program):
//   --reps R     launches per measurement, median printed (default 5; use 1 on the simulator)
//   --quick      short runs for the cycle-level simulator (a few million warp instructions per
//                program); also enabled by the environment variable MEM_QUICK=1
// Program-specific options are listed at the top of each .cu file.
#pragma once
// A failed CUDA call also goes into the CSV as a `# prog: FAIL` comment (see ../common/common.cuh).
#define VALIDATION_CHECK_ECHO 1
#include "../common/common.cuh"  // CHECK, g_prog/g_reps/g_failures, g_dev, rd_clock64, median, emit, fail, finish

static bool g_quick = false;

__device__ __forceinline__ unsigned rd_smid() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// splitmix64 finaliser: a cheap, good 64-bit hash (device and host).
__host__ __device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Parses "a,b,c" of numbers (doubles).
static std::vector<double> parse_list(const char* s) {
    std::vector<double> v;
    std::string t(s);
    size_t p = 0;
    while (p <= t.size()) {
        size_t q = t.find(',', p);
        if (q == std::string::npos) q = t.size();
        if (q > p) v.push_back(atof(t.substr(p, q - p).c_str()));
        p = q + 1;
    }
    return v;
}

// Handles --reps and --quick; returns the other arguments for the program to parse.
static std::vector<std::string> parse_common(int argc, char** argv, const char* prog) {
    g_prog = prog;
    // line-buffered stdout: the CUDA driver may fork helpers, which would duplicate unflushed output
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const char* e = getenv("MEM_QUICK");
    if (e && *e && strcmp(e, "0") != 0) g_quick = true;
    std::vector<std::string> rest;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = std::max(1, atoi(argv[++i]));
        else if (!strcmp(argv[i], "--quick")) g_quick = true;
        else rest.push_back(argv[i]);
    }
    return rest;
}

static void usage_exit(const char* text) {
    fprintf(stderr, "usage: %s [--reps R] [--quick] %s\n", g_prog, text);
    exit(2);
}

// Prints the device line, with the L2 and memory sizes the programs size their working sets by.
static void query_device() {
    query_device_basics();
    CHECK(cudaDeviceGetAttribute(&g_dev.l2_bytes, cudaDevAttrL2CacheSize, g_dev.dev));
    CHECK(cudaMemGetInfo(&g_dev.free_bytes, &g_dev.total_bytes));
    char extra[160];
    snprintf(extra, sizeof extra, "L2 %.1f MiB, memory %.1f GiB (%.1f GiB free), ", g_dev.l2_bytes / 1048576.0,
             g_dev.total_bytes / 1073741824.0, g_dev.free_bytes / 1073741824.0);
    print_device_line(extra, g_quick ? ", --quick" : "");
}

// Human-readable size for metric names: 16KiB, 2MiB, 72GiB, 1.5MiB.
static std::string size_name(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && bytes >= 1024.0) { bytes /= 1024.0; ++u; }
    char buf[64];
    if (std::fabs(bytes - std::round(bytes)) < 1e-9) snprintf(buf, sizeof buf, "%.0f%s", bytes, units[u]);
    else snprintf(buf, sizeof buf, "%g%s", bytes, units[u]);
    return buf;
}
