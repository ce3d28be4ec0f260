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
#include "../common/common.cuh"  // CHECK, g_prog/g_reps/g_failures, rd_clock64, median, emit, fail, finish

static double g_clock_overhead = 0.0;  // cycles of one clock64() read pair, subtracted from timings

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
    query_device_basics();
    print_device_line("", "");
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
