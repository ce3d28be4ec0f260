// device_calls: real (non-inlined) device calls.
//  - __noinline__ device functions with several arguments and a struct returned by value
//  - recursion: recursive fib() and a recursive walk of a small binary tree stored in an array
//  - indirect calls through a __device__ table of function pointers, selected per thread
//  - device printf (two deterministic lines from one thread) and a passing assert()
// Exact integer compare against a CPU reference.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cassert>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            printf("device_calls: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static uint32_t g_lcg = 8675309u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int NODES = 63;  // complete binary tree of depth 6, node i has children 2i+1, 2i+2

struct Pair { int lo; int hi; };

__device__ __noinline__ Pair minmax3(int a, int b, int c) {
    Pair p;
    p.lo = min(a, min(b, c));
    p.hi = max(a, max(b, c));
    return p;
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// sum of the values on the path maximising (sum), visiting the subtree of `node` recursively
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

__global__ void calls_kernel(const int* __restrict__ in, const int* __restrict__ tree, int* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        printf("device_calls: hello from block %d thread %d\n", blockIdx.x, threadIdx.x);
        printf("device_calls: fib(10)=%d tree path=%d\n", fib(10), tree_max_path(tree, 0));
    }
    if (i >= n) return;
    int a = in[i], b = in[(i + 1) % n], c = in[(i + 7) % n];
    Pair p = minmax3(a, b, c);
    assert(p.lo <= p.hi);
    binop_t op = g_ops[(unsigned)a % 4u];  // indirect call target differs within a warp
    int r = op(b, c);
    int f = fib((unsigned)a % 13u);
    int t = tree_max_path(tree, (unsigned)b % NODES);
    out[4 * i + 0] = p.lo;
    out[4 * i + 1] = p.hi;
    out[4 * i + 2] = r;
    out[4 * i + 3] = f * 1000 + t;
}

static int cpu_fib(int n) { int x = 0, y = 1; for (int k = 0; k < n; ++k) { int z = x + y; x = y; y = z; } return x; }
static int cpu_path(const std::vector<int>& tree, int node) {
    // iterative post-order over the subtree using a bottom-up table
    std::vector<int> best(NODES + 64, 0);
    for (int v = NODES - 1; v >= 0; --v) {
        int l = 2 * v + 1 < NODES ? best[2 * v + 1] : 0;
        int r = 2 * v + 2 < NODES ? best[2 * v + 2] : 0;
        best[v] = tree[v] + (l > r ? l : r);
    }
    return best[node];
}

int main() {
    const int n = 2000;
    std::vector<int> in(n), tree(NODES);
    for (auto& v : in) v = (int)(lcg_next() % 20001) - 10000;
    for (auto& v : tree) v = (int)(lcg_next() % 199) - 99;
    int *din, *dtree, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dtree, NODES * sizeof(int)));
    CHECK(cudaMalloc(&dout, 4 * n * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dtree, tree.data(), NODES * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    printf("device_calls: n=%d tree nodes=%d\n", n, NODES);
    fflush(stdout);  // keep host and device printf output in order
    calls_kernel<<<(n + 127) / 128, 128>>>(din, dtree, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    fflush(stdout);
    std::vector<int> out(4 * n);
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(din)); CHECK(cudaFree(dtree)); CHECK(cudaFree(dout));

    int bad = 0;
    long long checksum = 0;
    for (int i = 0; i < n; ++i) {
        int a = in[i], b = in[(i + 1) % n], c = in[(i + 7) % n];
        int lo = a < b ? a : b; lo = lo < c ? lo : c;
        int hi = a > b ? a : b; hi = hi > c ? hi : c;
        int r;
        switch ((unsigned)a % 4u) {
            case 0: r = b + c; break;
            case 1: r = b - c; break;
            case 2: r = b * c; break;
            default: r = (int)(((unsigned)b << 3 | (unsigned)b >> 29) ^ (unsigned)c); break;
        }
        int ref[4] = {lo, hi, r, cpu_fib((int)((unsigned)a % 13u)) * 1000 + cpu_path(tree, (int)((unsigned)b % NODES))};
        for (int j = 0; j < 4; ++j) {
            if (out[4 * i + j] != ref[j]) { if (!bad) printf("device_calls: thread %d result %d got %d expected %d\n", i, j, out[4 * i + j], ref[j]); ++bad; }
            checksum += ref[j];
        }
    }
    printf("device_calls: reference fib(10)=%d tree path=%d checksum=%lld\n", cpu_fib(10), cpu_path(tree, 0), checksum);
    if (bad) { printf("device_calls: FAIL (%d mismatches)\n", bad); return 1; }
    printf("device_calls: PASS\n");
    return 0;
}
