// Helpers every validation microbenchmark shares, included by the suites' own headers
// (validation/sm/common.cuh, validation/mem/common.cuh; validation/tensor uses the sm one).
//
// The output contract of all of them: `#` comment lines (the device line below, notes, PASS/FAIL)
// and CSV lines `benchmark,metric,value,unit` on stdout; each measurement is the median of
// `--reps R` launches (g_reps). Each program names itself (g_prog) in its argument parsing, the
// first thing its main() does.
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

// A suite whose CSV must record a failed CUDA call (validation/mem) defines VALIDATION_CHECK_ECHO 1
// before including this: the failure is then also printed as a `# prog: FAIL` comment on stdout.
#ifndef VALIDATION_CHECK_ECHO
#define VALIDATION_CHECK_ECHO 0
#endif

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s: FAIL (%s returned %s at %s:%d)\n", g_prog, #call,            \
                    cudaGetErrorString(err_), __FILE__, __LINE__);                             \
            if (VALIDATION_CHECK_ECHO)                                                         \
                printf("# %s: FAIL (%s returned %s)\n", g_prog, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static const char* g_prog = "bench";  // replaced by the program's name before anything is printed
static int g_reps = 5;
static int g_failures = 0;

__device__ __forceinline__ long long rd_clock64() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

static double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One CSV line; flushed so that a later crash (or a simulator's error) cannot lose it.
static void emit(const char* bench, const std::string& metric, double value, const char* unit) {
    printf("%s,%s,%.3f,%s\n", bench, metric.c_str(), value, unit);
    fflush(stdout);
}

// A failed self-check: on stderr for the user, as a comment in the CSV, and counted for finish().
static void fail(const char* bench, const std::string& what) {
    fprintf(stderr, "%s: FAIL (%s: %s)\n", g_prog, bench, what.c_str());
    printf("# FAIL %s: %s\n", bench, what.c_str());
    ++g_failures;
}

// The device a program ran on. The suites' device-line functions fill it (query_device_basics,
// plus what the suite adds) and print it with print_device_line.
struct DevInfo {
    int dev = 0, sms = 0, clock_khz = 0, l2_bytes = 0, major = 0, minor = 0;
    size_t free_bytes = 0, total_bytes = 0;
    std::string name;
};
static DevInfo g_dev;

static void query_device_basics() {
    CHECK(cudaGetDevice(&g_dev.dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, g_dev.dev));
    g_dev.name = prop.name;
    CHECK(cudaDeviceGetAttribute(&g_dev.clock_khz, cudaDevAttrClockRate, g_dev.dev));
    CHECK(cudaDeviceGetAttribute(&g_dev.sms, cudaDevAttrMultiProcessorCount, g_dev.dev));
    CHECK(cudaDeviceGetAttribute(&g_dev.major, cudaDevAttrComputeCapabilityMajor, g_dev.dev));
    CHECK(cudaDeviceGetAttribute(&g_dev.minor, cudaDevAttrComputeCapabilityMinor, g_dev.dev));
}

// The `# prog: device ...` comment line that heads every program's output (the clock is the one
// cycle counts convert with); `extra` goes after the clock (ending in ", "), `suffix` at the end.
static void print_device_line(const std::string& extra, const char* suffix) {
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("# %s: device %s, cc %d.%d, %d SMs, SM clock (cudaDevAttrClockRate) %.0f MHz, %s"
           "driver API %d, runtime %d, median of %d reps%s\n",
           g_prog, g_dev.name.c_str(), g_dev.major, g_dev.minor, g_dev.sms, g_dev.clock_khz / 1000.0,
           extra.c_str(), drv, rt, g_reps, suffix);
}

// The last line of every program and its exit status.
static int finish() {
    if (g_failures) {
        printf("# %s: FAIL (%d checks failed)\n", g_prog, g_failures);
        return 1;
    }
    printf("# %s: PASS\n", g_prog);
    return 0;
}
