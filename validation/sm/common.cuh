// Shared helpers for the SM microbenchmarks (validation/sm/*.cu).
//
// Every program prints CSV lines `benchmark,metric,value,unit` on stdout, preceded by `#` comment
// lines naming the device and its clock. Each measurement is repeated `--reps R` times (default 5;
// one launch per repetition) and the median is printed. The kernels time their chains with
// clock64() (PTX `mov.u64 %rd, %clock64`, SASS CS2R SR_CLOCKLO) around inline-PTX chains; every
// timed chain runs twice in the same launch (the first pass warms the instruction cache and brings
// operands into registers, only the second pass is timed), and the measured overhead of two
// back-to-back clock64() reads is subtracted. Results are written to global memory and compared with
// a CPU reference, so the programs also check a simulator's functional results.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <vector>
#include <string>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s: FAIL (%s returned %s at %s:%d)\n", g_prog, #call,            \
                    cudaGetErrorString(err_), __FILE__, __LINE__);                             \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static const char* g_prog = "sm_bench";
static int g_reps = 5;
static int g_failures = 0;
static double g_clock_overhead = 0.0;  // cycles of one clock64() read pair, subtracted from timings

__device__ __forceinline__ long long rd_clock64() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void emit(const char* bench, const char* metric, double value, const char* unit) {
    printf("%s,%s,%.3f,%s\n", bench, metric, value, unit);
    fflush(stdout);
}

static void fail(const char* bench, const char* what) {
    fprintf(stderr, "%s: FAIL (%s: %s)\n", g_prog, bench, what);
    printf("# FAIL %s: %s\n", bench, what);
    ++g_failures;
}

static void parse_args(int argc, char** argv, const char* prog) {
    g_prog = prog;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = std::max(1, atoi(argv[++i]));
        else {
            fprintf(stderr, "usage: %s [--reps R]\n", prog);
            exit(2);
        }
    }
}

static void print_device_header() {
    int dev = 0, clock_khz = 0, sms = 0, major = 0, minor = 0, drv = 0, rt = 0;
    CHECK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("# %s: device %s, cc %d.%d, %d SMs, SM clock (cudaDevAttrClockRate) %.0f MHz, "
           "driver API %d, runtime %d, median of %d reps\n",
           g_prog, prop.name, major, minor, sms, clock_khz / 1000.0, drv, rt, g_reps);
}

// ---- clock64 overhead: 64 back-to-back reads by one thread, minimum and mean difference ----
__global__ void k_clock_overhead(long long* out) {
    long long t[65];
#pragma unroll
    for (int i = 0; i < 65; ++i) t[i] = rd_clock64();
    long long mn = 1LL << 62, sum = 0;
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        long long d = t[i + 1] - t[i];
        mn = d < mn ? d : mn;
        sum += d;
    }
    out[0] = mn;
    out[1] = sum;
    out[2] = t[64] - t[0];
}

// Measures the clock64() read overhead, prints it and sets g_clock_overhead (median over reps).
static void measure_clock_overhead(bool print) {
    long long* d;
    CHECK(cudaMalloc(&d, 3 * sizeof(long long)));
    std::vector<double> mins, means;
    for (int r = 0; r < g_reps + 1; ++r) {  // +1: first launch is a warm-up
        k_clock_overhead<<<1, 1>>>(d);
        CHECK(cudaGetLastError());
        long long h[3];
        CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
        if (h[0] < 0 || h[2] < h[0] * 64 || h[2] != h[1]) {
            fail("clock64", "inconsistent clock readings");
            break;
        }
        if (r == 0) continue;
        mins.push_back((double)h[0]);
        means.push_back((double)h[1] / 64.0);
    }
    CHECK(cudaFree(d));
    if (mins.empty()) return;
    g_clock_overhead = median(means);
    if (print) {
        emit("clock64", "overhead_min", median(mins), "cycles");
        emit("clock64", "overhead_mean", median(means), "cycles");
    }
}

static bool close_rel(double got, double ref, double rel, double abs_tol) {
    if (std::isnan(ref)) return std::isnan(got);
    if (std::isinf(ref)) return got == ref;
    return std::fabs(got - ref) <= abs_tol + rel * std::fabs(ref);
}

static int finish() {
    if (g_failures) {
        printf("# %s: FAIL (%d checks failed)\n", g_prog, g_failures);
        return 1;
    }
    printf("# %s: PASS\n", g_prog);
    return 0;
}
