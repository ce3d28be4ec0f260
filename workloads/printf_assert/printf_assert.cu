// printf_assert: device printf with many formats, then a failing device assert() that the program
// expects.
//  - print_kernel (one block of 64 threads): threads 0, 1, 33 and 63 print in that order, one at a
//    time (a __syncthreads() between turns), so the output order is fixed on hardware too; the
//    lines use %d %i %u %x %X %o %08x %5d %-6s %+d %f %.3f %e %E %g %s %c %lld %llu %llx %ld and
//    %%, with deterministic values (no %p, no addresses). Every thread also writes a value that the
//    host checks. (No %hd/%hhd: on an H100, driver 13.0, `%hd` of (short)-32000 after a `%hhd`
//    printed 29296, bytes of the format string, so their output is not reproducible.)
//  - assert_kernel: thread 5 of block 1 fails `assert(v[i] != 13)` (v[37] == 13; all other values
//    differ). The launch is accepted; cudaDeviceSynchronize() must return cudaErrorAssert (710);
//    the error is sticky (the context is unusable): a later cudaMalloc fails with it and
//    cudaGetLastError returns it; that call resets the last-error state, but the context stays
//    broken: the next cudaMalloc fails with cudaErrorAssert again. (What a second cudaGetLastError
//    right after the first returns is printed on stderr only: cudaSuccess on an H100, driver 13.0.) The CUDA runtime prints the assertion message on stderr:
//      <file>:<line>: void assert_kernel(const int *, int *, int): block: [1,0,0], thread: [5,0,0]
//      Assertion `v[i] != 13` failed.
//    (stderr is not part of expected_output.txt: the file name is the path nvcc was given.)
// The program prints PASS when all of that holds.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cassert>
#include <cuda_runtime.h>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            printf("printf_assert: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static uint32_t g_lcg = 1234567u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__device__ const char* g_words[4] = {"alpha", "beta", "gamma", "delta"};

__global__ void print_kernel(const int* in, int* out, float scale) {
    const int t = threadIdx.x;
    const int v = in[t];
    out[t] = v * 3 + t;
    // turn 0: thread 0, integers
    if (t == 0) {
        printf("printf_assert: [t%d] d=%d i=%i u=%u x=%x X=%X o=%o\n", t, v, -v, 4000000000u, 0xdeadbeefu,
               0xcafeu, 511);
        printf("printf_assert: [t%d] padded=%08x width=[%5d] left=[%-6s] sign=%+d pct=100%%\n", t, 0xbeefu, 42,
               "ab", 7);
        printf("printf_assert: [t%d] lld=%lld llu=%llu llx=%llx ld=%ld\n", t, -9007199254740993LL,
               18446744073709551615ULL, 0x123456789abcdefULL, -1234567L);
    }
    __syncthreads();
    // turn 1: thread 1, floating point (values exactly representable or correctly rounded)
    if (t == 1) {
        float r = sqrtf(2.0f) * scale;  // scale = 1
        double d = 1.0 / 3.0;
        printf("printf_assert: [t%d] f=%f prec=%.3f e=%e E=%E g=%g g2=%g\n", t, r, d, 0.0015, 123456.75, 0.0001,
               1e20);
        printf("printf_assert: [t%d] neg=%f big=%.1f tiny=%e\n", t, -2.5f * scale, 16777216.0, 1.0e-300);
    }
    __syncthreads();
    // turn 2: thread 33 (second warp), strings and characters
    if (t == 33) {
        printf("printf_assert: [t%d] s=%s c=%c%c%c word=%s\n", t, "hello", 'x', 'y', 'z', g_words[v & 3]);
        for (int k = 0; k < 3; ++k) printf("printf_assert: [t%d] line %d of 3: %s\n", t, k + 1, g_words[k]);
    }
    __syncthreads();
    // turn 3: the last thread, mixed
    if (t == blockDim.x - 1)
        printf("printf_assert: [t%d] block %d of %d, in=%d out=%d\n", t, blockIdx.x, gridDim.x, v, out[t]);
}

__global__ void assert_kernel(const int* v, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(v[i] != 13);
    out[i] = v[i] + 1;
}

int main() {
    const int n = 64;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; ++i) h_in[i] = (int)(lcg_next() % 1000u) + 20;  // 20..1019: never 13
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));

    printf("printf_assert: in[0]=%d in[33]=%d in[63]=%d\n", h_in[0], h_in[33], h_in[63]);
    fflush(stdout);  // keep host and device printf output in order
    print_kernel<<<1, n>>>(d_in, d_out, 1.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    fflush(stdout);
    CHECK(cudaMemcpy(h_out, d_out, sizeof(h_out), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (h_out[i] != h_in[i] * 3 + i) {
            printf("printf_assert: FAIL (print_kernel out[%d]=%d, expected %d)\n", i, h_out[i], h_in[i] * 3 + i);
            return 1;
        }
    printf("printf_assert: print_kernel results ok\n");

    // one value 13, at index 37 = block 1, thread 5 with 32-thread blocks
    h_in[37] = 13;
    CHECK(cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));
    fflush(stdout);
    assert_kernel<<<2, 32>>>(d_in, d_out, n);
    cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess && launch != cudaErrorAssert) {
        printf("printf_assert: FAIL (launch returned %s, expected cudaSuccess)\n", cudaGetErrorName(launch));
        return 1;
    }
    cudaError_t sync = cudaDeviceSynchronize();
    fflush(stdout);
    printf("printf_assert: cudaDeviceSynchronize returned %s (%d)\n", cudaGetErrorName(sync), (int)sync);
    if (sync != cudaErrorAssert) {
        printf("printf_assert: FAIL (expected cudaErrorAssert)\n");
        return 1;
    }
    int* d2 = nullptr;
    cudaError_t after = cudaMalloc(&d2, 64);
    cudaError_t last = cudaGetLastError();
    cudaError_t last2 = cudaGetLastError();  // reset by the previous call: not compared (see top)
    int* d3 = nullptr;
    cudaError_t again = cudaMalloc(&d3, 64);
    fprintf(stderr, "printf_assert: note: a second cudaGetLastError returned %s\n", cudaGetErrorName(last2));
    printf("printf_assert: sticky: cudaMalloc returned %s, cudaGetLastError returned %s, cudaMalloc again %s\n",
           cudaGetErrorName(after), cudaGetErrorName(last), cudaGetErrorName(again));
    if (after != cudaErrorAssert || last != cudaErrorAssert || again != cudaErrorAssert) {
        printf("printf_assert: FAIL (the error is not sticky)\n");
        return 1;
    }
    printf("printf_assert: PASS\n");
    return 0;
}
