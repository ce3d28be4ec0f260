// stscatter: the rate of global stores whose 32 lanes fall in many different 128-byte lines, as in
// the corpus kernels that write a row of results per thread (workloads/arith: thread i writes
// out[i*44 + j] for j = 0..43, so each STG touches 32 lines). One block on one SM, W warps; every
// thread does K = 32 stores out[tid*S + j] (j = 0..K-1) and then a membar.gl (which waits until its
// stores are acknowledged); clock64 from the first warp's start to the last warp's end.
//   S = 1: a warp's store covers 1-2 lines; S = 8: 8 lines; S = 44: 32 lines (176-byte stride)
//   warm: the output lines were written by the previous launch (L2 holds them)
//   cold: a 256 MiB cudaMemset before each launch evicts them from the 50 MB L2
// Metrics: cycles_per_stg (SM cycles per warp store instruction: total / (W x K)) and
// cycles_per_line (total / (W x K x lines per instruction)).
#include "common.cuh"

constexpr int kStores = 32;

__global__ void k_scatter(unsigned* out, int stride, long long* cyc) {
    const int tid = threadIdx.x, warp = tid >> 5;
    unsigned* o = out + (size_t)tid * stride;
    __syncthreads();
    long long t0 = rd_clock64();
#pragma unroll
    for (int j = 0; j < kStores; ++j) o[j] = (unsigned)(tid * 977 + j);
    __threadfence();
    long long t1 = rd_clock64();
    if ((tid & 31) == 0) {
        cyc[2 * warp] = t0;
        cyc[2 * warp + 1] = t1;
    }
}

int main(int argc, char** argv) {
    parse_args(argc, argv, "stscatter");
    print_device_header();
    measure_clock_overhead(false);
    const int strides[] = {1, 8, 44};
    const int warps_list[] = {1, 4, 32};
    const size_t flush_bytes = 256u << 20;
    unsigned *d_out, *d_flush = nullptr;
    long long* d_cyc;
    CHECK(cudaMalloc(&d_out, sizeof(unsigned) * 1024 * 44 + 4096));
    CHECK(cudaMalloc(&d_cyc, sizeof(long long) * 64));
    if (cudaMalloc(&d_flush, flush_bytes) != cudaSuccess) d_flush = nullptr;
    std::vector<long long> h_cyc(64);
    std::vector<unsigned> h_out(1024 * 44);
    for (int cold = 0; cold < 2; ++cold) {
        if (cold && !d_flush) break;
        for (int s : strides)
            for (int warps : warps_list) {
                const int lines = s == 1 ? 1 : s == 8 ? 8 : 32;
                std::vector<double> per_stg;
                for (int r = 0; r < g_reps + 1; ++r) {
                    if (cold) CHECK(cudaMemset(d_flush, r & 0xff, flush_bytes));
                    k_scatter<<<1, warps * 32>>>(d_out, s, d_cyc);
                    CHECK(cudaGetLastError());
                    CHECK(cudaMemcpy(h_cyc.data(), d_cyc, sizeof(long long) * 2 * warps, cudaMemcpyDeviceToHost));
                    long long t0 = h_cyc[0], t1 = h_cyc[1];
                    for (int w = 1; w < warps; ++w) {
                        t0 = std::min(t0, h_cyc[2 * w]);
                        t1 = std::max(t1, h_cyc[2 * w + 1]);
                    }
                    if (r > 0 || g_reps == 1) per_stg.push_back(((double)(t1 - t0) - g_clock_overhead) / (warps * kStores));
                    if (g_reps == 1) break;
                }
                // functional check of the last launch: every thread's stores landed
                CHECK(cudaMemcpy(h_out.data(), d_out, sizeof(unsigned) * 1024 * 44, cudaMemcpyDeviceToHost));
                bool ok = true;
                if (s >= kStores)  // with S < K the threads' rows overlap (last writer unspecified)
                    for (int t = 0; t < warps * 32 && ok; ++t)
                        for (int j = 0; j < kStores && ok; ++j)
                            if (h_out[(size_t)t * s + j] != (unsigned)(t * 977 + j)) ok = false;
                if (!ok) fail("stscatter", "stored values differ from the expected ones");
                char bench[64];
                snprintf(bench, sizeof bench, "stg_s%d_w%d_%s", s, warps, cold ? "cold" : "warm");
                double v = median(per_stg);
                emit(bench, "cycles_per_stg", v, "cycles");
                emit(bench, "cycles_per_line", v / lines, "cycles");
            }
    }
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_cyc));
    if (d_flush) CHECK(cudaFree(d_flush));
    return finish();
}
