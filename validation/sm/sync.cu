// sync: warp shuffle and CTA barrier costs.
//   shfl_bfly  shfl.sync.bfly.b32 x, x, 1, 0x1f, -1   (SASS SHFL.BFLY): dependent latency, one warp
//              with 8 independent chains, SM-wide throughput with 32 warps (same harness as alu).
//              The chain exchanges values between lane pairs; after the even number of steps each
//              lane holds its own start value again, which is what the check compares.
//   bar_sync   bar.sync 0 (SASS BAR.SYNC.DEFER_BLOCKING), a loop of 256 barriers (unrolled) in a
//              block of 1, 2, 4, 8, 16, 32 warps: cycles per barrier, (max end - min start) / 256.
#include "chain.cuh"

struct OpShfl {
    using T = unsigned;
    static constexpr int kPerStep = 1;
    static constexpr const char* name = "shfl_bfly";
    __device__ static void step(T& x, T, T) {
        asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(x));
    }
    __host__ __device__ static T init(T x0, int j, int lane) { return (x0 + (unsigned)j) * 32u + (unsigned)lane; }
    static T cpu_step(T x, T, T) { return x ^ 1u; }  // the value of the partner lane (lane bits ^ 1)
    static bool check(T g, T r) { return g == r; }
};

constexpr int kBarN = 256;

__global__ void k_bar(long long* cyc, unsigned* out) {
    __shared__ unsigned s[1024];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long t0 = 0, t1 = 0;
#pragma unroll 1
    for (int rep = 0; rep < 2; ++rep) {
        t0 = rd_clock64();
#pragma unroll
        for (int i = 0; i < kBarN; ++i) asm volatile("bar.sync 0;" ::: "memory");
        t1 = rd_clock64();
    }
    // keep a checkable result: exchange through shared memory across the barrier
    s[threadIdx.x] = threadIdx.x * 2654435761u;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
    if (lane == 0) {
        cyc[2 * warp] = t0;
        cyc[2 * warp + 1] = t1;
    }
}

static void run_bar() {
    long long* d_cyc;
    unsigned* d_out;
    CHECK(cudaMalloc(&d_cyc, sizeof(long long) * 64));
    CHECK(cudaMalloc(&d_out, sizeof(unsigned) * 1024));
    std::vector<long long> h_cyc(64);
    std::vector<unsigned> h_out(1024);
    for (int warps = 1; warps <= 32; warps *= 2) {
        const int n = warps * 32;
        std::vector<double> vals;
        for (int r = 0; r < g_reps + 1; ++r) {
            k_bar<<<1, n>>>(d_cyc, d_out);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(h_cyc.data(), d_cyc, sizeof(long long) * 2 * warps, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(h_out.data(), d_out, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
            for (int t = 0; t < n; ++t)
                if (h_out[t] != ((t + 1) % n) * 2654435761u) {
                    fail("bar_sync", "shared-memory exchange after the barriers is wrong");
                    break;
                }
            long long t0 = h_cyc[0], t1 = h_cyc[1];
            for (int w = 1; w < warps; ++w) {
                t0 = std::min(t0, h_cyc[2 * w]);
                t1 = std::max(t1, h_cyc[2 * w + 1]);
            }
            if (r > 0 || g_reps == 1) vals.push_back(((double)(t1 - t0) - g_clock_overhead) / kBarN);
            if (g_reps == 1) break;
        }
        char metric[64];
        snprintf(metric, sizeof metric, "cycles_per_barrier_%dw", warps);
        emit("bar_sync", metric, median(vals), "cycles");
    }
    CHECK(cudaFree(d_cyc));
    CHECK(cudaFree(d_out));
}

int main(int argc, char** argv) {
    parse_args(argc, argv, "sync");
    print_device_header();
    measure_clock_overhead(false);
    run_op<OpShfl>(5u, 0u, 0u);
    run_bar();
    return finish();
}
