// Generic dependent-chain / independent-chain harness for one instruction (an "Op").
//
// An Op provides:
//   using T;                                          register type of the chain
//   static constexpr int kPerStep;                    PTX instructions per step (1, or 2 for iadd)
//   static const char* name;                          benchmark name in the CSV
//   __device__ static void step(T& x, T a, T b);      kPerStep dependent inline-PTX instructions
//   __host__ __device__ static T init(T x0, int j, int lane);   start value of chain j in a lane
//   static T cpu_step(T x, T a, T b);                 CPU reference of step
//   static bool check(T got, T ref);                  result comparison (exact or tolerance)
//
// k_dep: one warp, one chain of N dependent instructions per lane, fully unrolled.
// k_ilp: every warp runs ILP independent chains of N/ILP instructions (interleaved), fully unrolled.
// k_ilp_loop: the same, `iters` times (a runtime loop around an unrolled body of N instructions).
// Both run the timed region twice and keep the second timing (the first warms the I-cache).
#pragma once
#include "common.cuh"

constexpr int kChainN = 1024;   // instructions per timed region (per warp)
constexpr int kIlp = 8;         // independent chains per warp in k_ilp
constexpr int kSmWarps = 32;    // warps of the one block used for the SM-wide throughput
constexpr int kLoopN = 256;     // SM-wide "loop" variant: unrolled body of 256 instructions ...
constexpr int kLoopIters = 16;  // ... run 16 times (4096 chain instructions per warp, 4 KB of code)

template <class Op, int N>
__global__ void k_dep(typename Op::T* out, long long* cyc, typename Op::T x0, typename Op::T a,
                      typename Op::T b) {
    using T = typename Op::T;
    T x = Op::init(x0, 0, threadIdx.x & 31);
    long long t0 = 0, t1 = 0;
#pragma unroll 1
    for (int rep = 0; rep < 2; ++rep) {
        t0 = rd_clock64();
#pragma unroll
        for (int i = 0; i < N / Op::kPerStep; ++i) Op::step(x, a, b);
        t1 = rd_clock64();
    }
    out[threadIdx.x] = x;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

template <class Op, int N, int ILP>
__global__ void k_ilp(typename Op::T* out, long long* cyc, typename Op::T x0, typename Op::T a,
                      typename Op::T b) {
    using T = typename Op::T;
    T x[ILP];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int j = 0; j < ILP; ++j) x[j] = Op::init(x0, j, lane);
    long long t0 = 0, t1 = 0;
#pragma unroll 1
    for (int rep = 0; rep < 2; ++rep) {
        __syncthreads();
        t0 = rd_clock64();
#pragma unroll
        for (int i = 0; i < N / ILP / Op::kPerStep; ++i) {
#pragma unroll
            for (int j = 0; j < ILP; ++j) Op::step(x[j], a, b);
        }
        t1 = rd_clock64();
    }
#pragma unroll
    for (int j = 0; j < ILP; ++j) out[threadIdx.x * ILP + j] = x[j];
    if (lane == 0) {
        cyc[2 * warp] = t0;
        cyc[2 * warp + 1] = t1;
    }
}

// k_ilp with a runtime loop of `iters` around a shorter unrolled body (less code).
template <class Op, int N, int ILP>
__global__ void k_ilp_loop(typename Op::T* out, long long* cyc, typename Op::T x0, typename Op::T a,
                      typename Op::T b, int iters) {
    using T = typename Op::T;
    T x[ILP];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int j = 0; j < ILP; ++j) x[j] = Op::init(x0, j, lane);
    long long t0 = 0, t1 = 0;
#pragma unroll 1
    for (int rep = 0; rep < 2; ++rep) {
        __syncthreads();
        t0 = rd_clock64();
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
#pragma unroll
            for (int i = 0; i < N / ILP / Op::kPerStep; ++i) {
#pragma unroll
                for (int j = 0; j < ILP; ++j) Op::step(x[j], a, b);
            }
        }
        t1 = rd_clock64();
    }
#pragma unroll
    for (int j = 0; j < ILP; ++j) out[threadIdx.x * ILP + j] = x[j];
    if (lane == 0) {
        cyc[2 * warp] = t0;
        cyc[2 * warp + 1] = t1;
    }
}

// CPU reference: chain j of a lane after `steps` steps.
template <class Op>
static typename Op::T cpu_chain(typename Op::T x0, typename Op::T a, typename Op::T b, int j, int lane,
                                int steps) {
    typename Op::T x = Op::init(x0, j, lane);
    for (int s = 0; s < steps; ++s) x = Op::cpu_step(x, a, b);
    return x;
}

// Runs the three measurements of one Op and prints its CSV lines.
template <class Op>
static void run_op(typename Op::T x0, typename Op::T a, typename Op::T b) {
    using T = typename Op::T;
    const int threads_max = kSmWarps * 32;
    T* d_out;
    long long* d_cyc;
    CHECK(cudaMalloc(&d_out, sizeof(T) * threads_max * kIlp));
    CHECK(cudaMalloc(&d_cyc, sizeof(long long) * 2 * kSmWarps));
    std::vector<T> h_out(threads_max * kIlp);
    std::vector<long long> h_cyc(2 * kSmWarps);
    bool ok = true;

    // references: dependent chain (2N steps: warm-up + timed pass), ILP chains (2N/ILP steps, and
    // 2*kLoopIters*kLoopN/ILP for the loop variant)
    std::vector<T> ref_dep(32), ref_ilp(32 * kIlp), ref_loop(32 * kIlp);
    for (int l = 0; l < 32; ++l) {
        ref_dep[l] = cpu_chain<Op>(x0, a, b, 0, l, 2 * kChainN / Op::kPerStep);
        for (int j = 0; j < kIlp; ++j) {
            ref_ilp[l * kIlp + j] = cpu_chain<Op>(x0, a, b, j, l, 2 * kChainN / kIlp / Op::kPerStep);
            ref_loop[l * kIlp + j] = cpu_chain<Op>(x0, a, b, j, l, 2 * kLoopIters * kLoopN / kIlp / Op::kPerStep);
        }
    }

    // 1. dependent latency, one warp
    std::vector<double> lat;
    for (int r = 0; r < g_reps + 1; ++r) {
        k_dep<Op, kChainN><<<1, 32>>>(d_out, d_cyc, x0, a, b);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(h_out.data(), d_out, sizeof(T) * 32, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(h_cyc.data(), d_cyc, sizeof(long long), cudaMemcpyDeviceToHost));
        for (int l = 0; l < 32 && ok; ++l)
            if (!Op::check(h_out[l], ref_dep[l])) {
                char msg[160];
                snprintf(msg, sizeof msg, "dependent chain result of lane %d differs from the CPU reference", l);
                fail(Op::name, msg);
                ok = false;
            }
        if (r > 0 || g_reps == 1) lat.push_back(((double)h_cyc[0] - g_clock_overhead) / kChainN);
        if (g_reps == 1) break;
    }
    emit(Op::name, "dep_latency", median(lat), "cycles");

    // 2. one warp, ILP independent chains: cycles per warp instruction
    // 3. kSmWarps warps in one block (one SM), ILP chains each: SM-wide warp instructions per cycle
    // 4. the same with a 256-instruction body looped 16 times (less code: I-cache effects separated;
    //    the loop's own 2-3 instructions per 256 are not counted)
    for (int cfg = 0; cfg < 3; ++cfg) {
        const int warps = cfg == 0 ? 1 : kSmWarps;
        const int per_warp = cfg == 2 ? kLoopN * kLoopIters : kChainN;
        const std::vector<T>& ref = cfg == 2 ? ref_loop : ref_ilp;
        std::vector<double> vals;
        for (int r = 0; r < g_reps + 1; ++r) {
            if (cfg == 2) k_ilp_loop<Op, kLoopN, kIlp><<<1, warps * 32>>>(d_out, d_cyc, x0, a, b, kLoopIters);
            else k_ilp<Op, kChainN, kIlp><<<1, warps * 32>>>(d_out, d_cyc, x0, a, b);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(h_out.data(), d_out, sizeof(T) * warps * 32 * kIlp, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(h_cyc.data(), d_cyc, sizeof(long long) * 2 * warps, cudaMemcpyDeviceToHost));
            for (int t = 0; t < warps * 32 && ok; ++t)
                for (int j = 0; j < kIlp && ok; ++j)
                    if (!Op::check(h_out[t * kIlp + j], ref[(t & 31) * kIlp + j])) {
                        char msg[160];
                        snprintf(msg, sizeof msg, "ILP chain %d of thread %d differs from the CPU reference", j, t);
                        fail(Op::name, msg);
                        ok = false;
                    }
            long long t0 = h_cyc[0], t1 = h_cyc[1];
            for (int w = 1; w < warps; ++w) {
                t0 = std::min(t0, h_cyc[2 * w]);
                t1 = std::max(t1, h_cyc[2 * w + 1]);
            }
            double cycles = (double)(t1 - t0) - g_clock_overhead;
            if (r > 0 || g_reps == 1)
                vals.push_back(cfg == 0 ? cycles / per_warp : (double)warps * per_warp / cycles);
            if (g_reps == 1) break;
        }
        if (cfg == 0) {
            emit(Op::name, "warp_cpi_ilp8", median(vals), "cycles");
        } else if (cfg == 1) {
            double ipc = median(vals);
            emit(Op::name, "sm_warp_ipc_32w_ilp8", ipc, "warp_instr_per_cycle");
            emit(Op::name, "sm_lanes_per_cycle", ipc * 32, "lanes_per_cycle");
        } else {
            emit(Op::name, "sm_warp_ipc_32w_ilp8_loop", median(vals), "warp_instr_per_cycle");
        }
    }
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_cyc));
}
