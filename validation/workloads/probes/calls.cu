// calls: what a device call, a recursion, local memory and device printf cost, one mechanism at a
// time, to explain the device_calls workload (docs/validation-workloads.md). Each measurement is
// clock64 inside one warp (SM cycles) or, for whole kernels, cudaEvent time.
//
//   nvcc -O3 -cudart shared -arch=sm_80 -o calls calls.cu && ./calls          # the GPU
//   warpsim run --gpu h100 -- ./calls                                          # the model
//
// Output: CSV lines `benchmark,metric,value,unit` (and `#` comments).
//   printf         cycles of the first and second printf of one thread (launches 1..3)
//   leaf_call      cycles per call of a __noinline__ function that needs no stack frame
//   fib_uniform    cycles per fib() activation, 32 lanes all computing fib(12) (465 activations)
//   fib_divergent  the same with n = lane % 13 (lanes recurse to different depths). Lane 0 (n = 0)
//                  reads the clocks: on the H100 (3,979 cycles) its __syncwarp() evidently did not
//                  wait for the lanes still recursing, so this row does not time the recursion
//   local_ld       cycles per dependent local-memory load (L1 hit)
//   local_st_ld    cycles per local store followed by a dependent load of the same word
//   calls_kernel   device_calls' kernel (16 blocks x 128 threads): microseconds per launch, with and
//                  without its printf, before and after cudaDeviceSetLimit(cudaLimitStackSize, 4096),
//                  and the slowest warp's clock64 cycles
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "calls: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

__device__ __forceinline__ long long clk() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

static void emit(const char* b, const char* m, double v, const char* u) {
    printf("%s,%s,%.2f,%s\n", b, m, v, u);
    fflush(stdout);
}

// ---- device_calls' kernel (same code; `print` switches its printf off) ----
const int NODES = 63;
struct Pair { int lo; int hi; };
__device__ __noinline__ Pair minmax3(int a, int b, int c) {
    Pair p;
    p.lo = min(a, min(b, c));
    p.hi = max(a, max(b, c));
    return p;
}
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int tree_max_path(const int* tree, int node) {
    if (node >= NODES) return 0;
    int l = tree_max_path(tree, 2 * node + 1);
    int r = tree_max_path(tree, 2 * node + 2);
    return tree[node] + max(l, r);
}
typedef int (*binop_t)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_xor_rot(int a, int b) { return (int)(((unsigned)a << 3 | (unsigned)a >> 29) ^ (unsigned)b); }
__device__ binop_t g_ops[4] = {op_add, op_sub, op_mul, op_xor_rot};

__global__ void calls_kernel(const int* __restrict__ in, const int* __restrict__ tree, int* __restrict__ out, int n,
                             int print, long long* warp_cycles) {
    long long t0 = clk();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 && print) {
        printf("calls: hello from block %d thread %d\n", blockIdx.x, threadIdx.x);
        printf("calls: fib(10)=%d tree path=%d\n", fib(10), tree_max_path(tree, 0));
    }
    if (i < n) {
        int a = in[i], b = in[(i + 1) % n], c = in[(i + 7) % n];
        Pair p = minmax3(a, b, c);
        binop_t op = g_ops[(unsigned)a % 4u];
        int r = op(b, c);
        int f = fib((unsigned)a % 13u);
        int t = tree_max_path(tree, (unsigned)b % NODES);
        out[4 * i + 0] = p.lo;
        out[4 * i + 1] = p.hi;
        out[4 * i + 2] = r;
        out[4 * i + 3] = f * 1000 + t;
    }
    __syncwarp();
    if (threadIdx.x % 32 == 0) warp_cycles[i / 32] = clk() - t0;
}

// ---- one mechanism at a time (one warp) ----
__global__ void k_printf(long long* t, int a) {
    long long t0 = clk();
    printf("calls: printf probe %d\n", a);
    long long t1 = clk();
    printf("calls: printf probe %d %d\n", a, a + 1);
    long long t2 = clk();
    t[0] = t1 - t0;
    t[1] = t2 - t1;
}

__device__ __noinline__ int leaf(int a, int b) { return a * 3 + b; }
__global__ void k_leaf(int* out, long long* t, int iters) {
    int r = threadIdx.x;
    long long t0 = clk();
    for (int k = 0; k < iters; ++k) r = leaf(r, k);
    long long t1 = clk();
    out[threadIdx.x] = r;
    if (threadIdx.x == 0) t[0] = t1 - t0;
}

__global__ void k_fib(const int* in, int* out, long long* t) {
    int n = in[threadIdx.x];
    __syncwarp();
    long long t0 = clk();
    int r = fib(n);
    __syncwarp();
    long long t1 = clk();
    out[threadIdx.x] = r;
    if (threadIdx.x == 0) t[0] = t1 - t0;
}

// Dependent local-memory accesses: buf is indexed with a run-time value, so it lives in local memory.
__global__ void k_local(const int* in, int* out, long long* t, int iters, int store) {
    volatile int buf[64];
    int idx = in[threadIdx.x] & 31;
    for (int k = 0; k < 64; ++k) buf[k] = 0;
    int v = 0;
    __syncwarp();
    long long t0 = clk();
    if (store) {
        for (int k = 0; k < iters; ++k) { buf[idx] = v + 2; v = buf[idx ^ (v >> 30)]; }  // st, then a ld of the same word (v >> 30 is 0; the compiler cannot forward)
    } else {
        for (int k = 0; k < iters; ++k) v = buf[idx + (v & 1)];  // ld chain (values 0: same word)
    }
    __syncwarp();
    long long t1 = clk();
    out[threadIdx.x] = v;
    if (threadIdx.x == 0) t[0] = t1 - t0;
}

static uint32_t g_lcg = 8675309u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

int main(int argc, char** argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    int *din, *dout, *dtree;
    long long* dt;
    CHECK(cudaMalloc(&din, 4096 * sizeof(int)));
    CHECK(cudaMalloc(&dout, 4 * 4096 * sizeof(int)));
    CHECK(cudaMalloc(&dtree, 64 * sizeof(int)));
    CHECK(cudaMalloc(&dt, 1024 * sizeof(long long)));
    long long h[1024];
    printf("# calls probe: clock64 cycles inside one warp; kernel times from cudaEvents\n");
    fflush(stdout);

    for (int l = 1; l <= 3; ++l) {  // printf: first launch of the program, then again
        k_printf<<<1, 1>>>(dt, l);
        CHECK(cudaDeviceSynchronize());
        fflush(stdout);
        CHECK(cudaMemcpy(h, dt, 2 * sizeof(long long), cudaMemcpyDeviceToHost));
        char m[64];
        snprintf(m, sizeof m, "launch%d_first", l); emit("printf", m, (double)h[0], "cycles");
        snprintf(m, sizeof m, "launch%d_second", l); emit("printf", m, (double)h[1], "cycles");
    }

    const int iters = 256;
    for (int r = 0; r < 2; ++r) k_leaf<<<1, 32>>>(dout, dt, iters);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, dt, sizeof(long long), cudaMemcpyDeviceToHost));
    emit("leaf_call", "cycles_per_call", (double)h[0] / iters, "cycles");

    for (int mode = 0; mode < 2; ++mode) {
        std::vector<int> n(32);
        int acts = 0;
        for (int l = 0; l < 32; ++l) n[l] = mode == 0 ? 12 : l % 13;
        // activations a warp executes: the call trees of its lanes overlaid (fib(m)'s tree is part of fib(12)'s)
        acts = 465;
        CHECK(cudaMemcpy(din, n.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
        for (int r = 0; r < 2; ++r) k_fib<<<1, 32>>>(din, dout, dt);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h, dt, sizeof(long long), cudaMemcpyDeviceToHost));
        const char* b = mode == 0 ? "fib_uniform" : "fib_divergent";
        emit(b, "cycles", (double)h[0], "cycles");
        emit(b, "cycles_per_activation", (double)h[0] / acts, "cycles");
    }

    {
        std::vector<int> z(32, 0);
        CHECK(cudaMemcpy(din, z.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
        for (int store = 0; store < 2; ++store) {
            for (int r = 0; r < 2; ++r) k_local<<<1, 32>>>(din, dout, dt, iters, store);
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(h, dt, sizeof(long long), cudaMemcpyDeviceToHost));
            emit(store ? "local_st_ld" : "local_ld", "cycles_per_iteration", (double)h[0] / iters, "cycles");
        }
    }

    // device_calls' kernel, its own inputs
    const int n = 2000;
    std::vector<int> in(n), tree(NODES);
    for (auto& v : in) v = (int)(lcg_next() % 20001) - 10000;
    for (auto& v : tree) v = (int)(lcg_next() % 199) - 99;
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dtree, tree.data(), NODES * sizeof(int), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    auto launch = [&](int print, const char* tag) {
        CHECK(cudaEventRecord(e0));
        calls_kernel<<<(n + 127) / 128, 128>>>(din, dtree, dout, n, print, dt);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        fflush(stdout);
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        const int warps = (n + 31) / 32;
        CHECK(cudaMemcpy(h, dt, warps * sizeof(long long), cudaMemcpyDeviceToHost));
        long long mx = *std::max_element(h, h + warps);
        std::vector<long long> s(h, h + warps);
        std::sort(s.begin(), s.end());
        char m[96];
        snprintf(m, sizeof m, "%s_us", tag); emit("calls_kernel", m, ms * 1000.0, "us");
        snprintf(m, sizeof m, "%s_max_warp", tag); emit("calls_kernel", m, (double)mx, "cycles");
        snprintf(m, sizeof m, "%s_median_warp", tag); emit("calls_kernel", m, (double)s[warps / 2], "cycles");
        snprintf(m, sizeof m, "%s_warp0", tag); emit("calls_kernel", m, (double)h[0], "cycles");
    };
    size_t stack = 0;
    CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    printf("# default stack limit %zu\n", stack);
    for (int r = 0; r < reps; ++r) launch(0, "default_stack_noprint");
    for (int r = 0; r < reps; ++r) launch(1, "default_stack_print");
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    launch(1, "stack4096_first_print");
    for (int r = 0; r < reps; ++r) launch(1, "stack4096_print");
    for (int r = 0; r < reps; ++r) launch(0, "stack4096_noprint");
    CHECK(cudaDeviceSynchronize());
    printf("# calls: done\n");
    return 0;
}
