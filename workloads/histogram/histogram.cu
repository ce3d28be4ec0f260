// histogram: atomics.
//  kernel 1: 256-bin byte histogram, privatised per block in shared memory (shared atomicAdd),
//            merged into the global histogram with global atomicAdd.
//  kernel 2: every global atomic flavour on a small set of counters: atomicAdd (int, unsigned
//            long long, float, double), an atomicCAS loop (float max), atomicMax/Min (signed and
//            unsigned), atomicAnd/Or/Xor, atomicExch, atomicInc/atomicDec with wrap limits, and
//            atomicSub. All final values are order-independent (float/double sums use values
//            exactly representable so any order gives the same result); atomicExch is checked as a
//            permutation (sum of returned old values + final value).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            printf("histogram: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static uint32_t g_lcg = 777u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int BINS = 256;

__global__ void histo_shared(const unsigned char* __restrict__ data, int n, unsigned* __restrict__ hist) {
    __shared__ unsigned sh[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&sh[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (sh[b]) atomicAdd(&hist[b], sh[b]);
}

struct Counters {
    int add_i;
    unsigned long long add_u64;
    float add_f;
    double add_d;
    float cas_fmax;
    int max_i, min_i;
    unsigned max_u, min_u;
    unsigned and_u, or_u, xor_u;
    unsigned exch;
    unsigned inc_u, dec_u;
    int sub_i;
    unsigned long long exch_returned_sum;
};

__device__ float atomic_max_float(float* addr, float v) {
    int* ia = (int*)addr;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ia, assumed, __float_as_int(v));
    } while (old != assumed);
    return __int_as_float(old);
}

__global__ void atomics_mix(const int* __restrict__ vals, int n, Counters* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = vals[i];
    unsigned u = (unsigned)v;
    atomicAdd(&c->add_i, v);
    atomicAdd(&c->add_u64, (unsigned long long)u * 4096ull);
    atomicAdd(&c->add_f, (float)(v & 1023) * 0.25f);
    atomicAdd(&c->add_d, (double)v * 0.5);
    atomic_max_float(&c->cas_fmax, (float)v * 0.125f);
    atomicMax(&c->max_i, v);
    atomicMin(&c->min_i, v);
    atomicMax(&c->max_u, u * 2654435761u);
    atomicMin(&c->min_u, u * 2654435761u);
    atomicAnd(&c->and_u, ~(1u << (i % 32)) | (u & 0xff00u));
    atomicOr(&c->or_u, 1u << (u % 29));
    atomicXor(&c->xor_u, u * 40503u);
    unsigned old = atomicExch(&c->exch, (unsigned)i + 1u);
    atomicAdd(&c->exch_returned_sum, (unsigned long long)old);
    atomicInc(&c->inc_u, 99u);
    atomicDec(&c->dec_u, 50u);
    atomicSub(&c->sub_i, v & 7);
}

int main() {
    const int n = 65536 + 123;
    std::vector<unsigned char> data(n);
    for (int i = 0; i < n; ++i) {
        uint32_t r = lcg_next();
        // skewed distribution: many hits on a few bins (contention) plus a uniform part
        data[i] = (r & 3) == 0 ? (unsigned char)((r >> 8) & 7) : (unsigned char)(r >> 24);
    }
    const int m = 5000;
    std::vector<int> vals(m);
    for (int i = 0; i < m; ++i) vals[i] = (int)(lcg_next() % 200001) - 100000;

    unsigned char* ddata; unsigned* dhist; int* dvals; Counters* dc;
    CHECK(cudaMalloc(&ddata, n));
    CHECK(cudaMalloc(&dhist, BINS * sizeof(unsigned)));
    CHECK(cudaMalloc(&dvals, m * sizeof(int)));
    CHECK(cudaMalloc(&dc, sizeof(Counters)));
    CHECK(cudaMemcpy(ddata, data.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dvals, vals.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dhist, 0, BINS * sizeof(unsigned)));
    Counters init = {};
    init.cas_fmax = -1.0e30f;
    init.max_i = -2147483647 - 1; init.min_i = 2147483647;
    init.max_u = 0; init.min_u = 0xffffffffu;
    init.and_u = 0xffffffffu; init.or_u = 0; init.xor_u = 0x12345678u;
    init.exch = 0; init.inc_u = 0; init.dec_u = 7; init.sub_i = 1000000;
    CHECK(cudaMemcpy(dc, &init, sizeof(Counters), cudaMemcpyHostToDevice));

    histo_shared<<<32, 256>>>(ddata, n, dhist);
    CHECK(cudaGetLastError());
    atomics_mix<<<(m + 127) / 128, 128>>>(dvals, m, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> hist(BINS);
    Counters got;
    CHECK(cudaMemcpy(hist.data(), dhist, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got, dc, sizeof(Counters), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(ddata)); CHECK(cudaFree(dhist)); CHECK(cudaFree(dvals)); CHECK(cudaFree(dc));

    // CPU reference
    std::vector<unsigned> ref(BINS, 0);
    for (int i = 0; i < n; ++i) ref[data[i]]++;
    Counters r = init;
    unsigned long long written_sum = 0;
    for (int i = 0; i < m; ++i) {
        int v = vals[i];
        unsigned u = (unsigned)v;
        r.add_i += v;
        r.add_u64 += (unsigned long long)u * 4096ull;
        r.add_f += (float)(v & 1023) * 0.25f;
        r.add_d += (double)v * 0.5;
        if ((float)v * 0.125f > r.cas_fmax) r.cas_fmax = (float)v * 0.125f;
        if (v > r.max_i) r.max_i = v;
        if (v < r.min_i) r.min_i = v;
        unsigned h = u * 2654435761u;
        if (h > r.max_u) r.max_u = h;
        if (h < r.min_u) r.min_u = h;
        r.and_u &= ~(1u << (i % 32)) | (u & 0xff00u);
        r.or_u |= 1u << (u % 29);
        r.xor_u ^= u * 40503u;
        written_sum += (unsigned long long)i + 1u;
        r.inc_u = (r.inc_u >= 99u) ? 0u : r.inc_u + 1u;
        r.dec_u = (r.dec_u == 0u || r.dec_u > 50u) ? 50u : r.dec_u - 1u;
        r.sub_i -= v & 7;
    }
    int fails = 0;
    unsigned total = 0, maxbin = 0;
    for (int b = 0; b < BINS; ++b) {
        if (hist[b] != ref[b]) { if (!fails) printf("histogram: bin %d got %u expected %u\n", b, hist[b], ref[b]); ++fails; }
        total += ref[b];
        if (ref[b] > ref[maxbin]) maxbin = b;
    }
    printf("histogram: n=%d bins=%d total=%u largest bin=%u (%u)\n", n, BINS, total, maxbin, ref[maxbin]);
    // atomicExch: the returned olds plus the final value are a permutation of {initial, written...}
    bool exch_ok = got.exch >= 1 && got.exch <= (unsigned)m &&
                   got.exch_returned_sum + got.exch == written_sum + init.exch;
#define CMP(field, fmt)                                                                          \
    if (got.field != r.field) { printf("histogram: " #field " got " fmt " expected " fmt "\n", got.field, r.field); ++fails; }
    CMP(add_i, "%d") CMP(add_u64, "%llu") CMP(add_f, "%f") CMP(add_d, "%f") CMP(cas_fmax, "%f")
    CMP(max_i, "%d") CMP(min_i, "%d") CMP(max_u, "%u") CMP(min_u, "%u") CMP(and_u, "%08x")
    CMP(or_u, "%08x") CMP(xor_u, "%08x") CMP(inc_u, "%u") CMP(dec_u, "%u") CMP(sub_i, "%d")
    if (!exch_ok) { printf("histogram: atomicExch permutation check failed\n"); ++fails; }
    printf("histogram: add_i=%d add_u64=%llu add_f=%.2f add_d=%.1f fmax=%.3f\n", r.add_i, r.add_u64, r.add_f, r.add_d, r.cas_fmax);
    printf("histogram: max_i=%d min_i=%d max_u=%u min_u=%u and=%08x or=%08x xor=%08x\n", r.max_i, r.min_i,
           r.max_u, r.min_u, r.and_u, r.or_u, r.xor_u);
    printf("histogram: inc=%u dec=%u sub=%d exch permutation ok\n", r.inc_u, r.dec_u, r.sub_i);
    if (fails) { printf("histogram: FAIL (%d mismatches)\n", fails); return 1; }
    printf("histogram: PASS\n");
    return 0;
}
