// mem: load-to-use latency by pointer chasing, one thread, 256 dependent loads per timed pass.
//   lds        ld.shared.u32 p, [p]       (SASS LDS)          shared memory
//   ldg_l1     ld.global.u64 p, [p]       (SASS LDG.E.64)     global load hitting L1 (default .ca;
//                                         an explicit .ca becomes LDG.E.64.STRONG.SM in ptxas 13)
//   ldg_l2     ld.global.cg.u64 p, [p]    (SASS LDG.E.64.STRONG.GPU)  not cached in L1: L2 hit
// The ring has 255 entries, 16 entries (64 B shared, 128 B global) apart, so the first pass of 256
// loads touches every entry (cold misses) and the second, timed pass only hits. The final position
// (512 hops from entry 0) is checked against the CPU.
#include "common.cuh"

constexpr int kRing = 255, kStride = 16, kHops = 256;

__global__ void k_lds(const unsigned* next_idx, unsigned* out, long long* cyc) {
    __shared__ unsigned s[kRing * kStride];
    for (int i = threadIdx.x; i < kRing; i += blockDim.x)
        s[i * kStride] = (unsigned)__cvta_generic_to_shared(&s[next_idx[i] * kStride]);
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned p = (unsigned)__cvta_generic_to_shared(&s[0]);
    const unsigned base = p;
    long long t0 = 0, t1 = 0;
#pragma unroll 1
    for (int rep = 0; rep < 2; ++rep) {
        t0 = rd_clock64();
#pragma unroll
        for (int i = 0; i < kHops; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
        t1 = rd_clock64();
    }
    out[0] = (p - base) / (4 * kStride);
    cyc[0] = t1 - t0;
}

template <bool kL1>
__global__ void k_ldg(const unsigned long long* ring, unsigned* out, long long* cyc) {
    unsigned long long p = (unsigned long long)ring;
    long long t0 = 0, t1 = 0;
#pragma unroll 1
    for (int rep = 0; rep < 2; ++rep) {
        t0 = rd_clock64();
#pragma unroll
        for (int i = 0; i < kHops; ++i) {
            if (kL1) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
            else     asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
        }
        t1 = rd_clock64();
    }
    out[0] = (unsigned)((p - (unsigned long long)ring) / (8 * kStride));
    cyc[0] = t1 - t0;
}

int main(int argc, char** argv) {
    parse_args(argc, argv, "mem");
    print_device_header();
    measure_clock_overhead(false);

    // ring: entry i -> entry (i + 1) % kRing, laid out at index i*kStride
    std::vector<unsigned> next(kRing);
    for (int i = 0; i < kRing; ++i) next[i] = (unsigned)((i + 1) % kRing);
    const unsigned ref = (unsigned)((2 * kHops) % kRing);

    unsigned *d_next, *d_out;
    long long* d_cyc;
    unsigned long long* d_ring;
    CHECK(cudaMalloc(&d_next, sizeof(unsigned) * kRing));
    CHECK(cudaMalloc(&d_out, sizeof(unsigned)));
    CHECK(cudaMalloc(&d_cyc, sizeof(long long)));
    CHECK(cudaMalloc(&d_ring, sizeof(unsigned long long) * kRing * kStride));
    CHECK(cudaMemcpy(d_next, next.data(), sizeof(unsigned) * kRing, cudaMemcpyHostToDevice));
    std::vector<unsigned long long> h_ring(kRing * kStride, 0);
    for (int i = 0; i < kRing; ++i)
        h_ring[i * kStride] = (unsigned long long)(d_ring + next[i] * kStride);
    CHECK(cudaMemcpy(d_ring, h_ring.data(), sizeof(unsigned long long) * h_ring.size(), cudaMemcpyHostToDevice));

    const char* names[3] = {"lds", "ldg_l1", "ldg_l2"};
    for (int b = 0; b < 3; ++b) {
        std::vector<double> vals;
        for (int r = 0; r < g_reps + 1; ++r) {
            if (b == 0) k_lds<<<1, 256>>>(d_next, d_out, d_cyc);
            else if (b == 1) k_ldg<true><<<1, 1>>>(d_ring, d_out, d_cyc);
            else k_ldg<false><<<1, 1>>>(d_ring, d_out, d_cyc);
            CHECK(cudaGetLastError());
            unsigned got;
            long long cyc;
            CHECK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(&cyc, d_cyc, sizeof cyc, cudaMemcpyDeviceToHost));
            if (got != ref) {
                char msg[96];
                snprintf(msg, sizeof msg, "chase ended at entry %u, expected %u", got, ref);
                fail(names[b], msg);
            }
            if (r > 0 || g_reps == 1) vals.push_back(((double)cyc - g_clock_overhead) / kHops);
            if (g_reps == 1) break;
        }
        emit(names[b], "dep_latency", median(vals), "cycles");
    }
    CHECK(cudaFree(d_next));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_cyc));
    CHECK(cudaFree(d_ring));
    return finish();
}
