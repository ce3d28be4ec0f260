// mandelbrot: escape-time iteration counts of a 160x120 view of the Mandelbrot set (max 400
// iterations), compared exactly with a CPU reference.
// Exactness needs the GPU and the CPU to perform the same float operations in the same order with
// the same rounding. nvcc contracts a*b+c into FMA by default, which the host code does not do, so
// the committed PTX is generated with -fmad=false (nvcc -arch=sm_80 -fmad=false -ptx); the kernel
// additionally spells every operation with __fmul_rn/__fadd_rn/__fsub_rn (never contracted), so the
// program is also exact when built without -fmad=false. The host reference uses plain float
// arithmetic in the same order (x86-64 SSE, no FMA contraction without -march flags).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t err_ = (call);                                                          \
        if (err_ != cudaSuccess) {                                                          \
            printf("mandelbrot: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

static uint32_t g_lcg = 1234567u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int W = 160, H = 120, MAXIT = 400;

__global__ void mandel(int* out, float x0, float y0, float dx, float dy, int w, int h, int maxit) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cr = __fadd_rn(x0, __fmul_rn((float)px, dx));
    float ci = __fadd_rn(y0, __fmul_rn((float)py, dy));
    float x = 0.0f, y = 0.0f;
    int it = 0;
    while (it < maxit) {
        float x2 = __fmul_rn(x, x), y2 = __fmul_rn(y, y);
        if (__fadd_rn(x2, y2) > 4.0f) break;
        y = __fadd_rn(__fmul_rn(__fmul_rn(2.0f, x), y), ci);
        x = __fadd_rn(__fsub_rn(x2, y2), cr);
        ++it;
    }
    out[py * w + px] = it;
}

static int mandel_ref(float cr, float ci, int maxit) {
    float x = 0.0f, y = 0.0f;
    int it = 0;
    while (it < maxit) {
        float x2 = x * x, y2 = y * y;
        if (x2 + y2 > 4.0f) break;
        float t = 2.0f * x;
        t = t * y;
        y = t + ci;
        t = x2 - y2;
        x = t + cr;
        ++it;
    }
    return it;
}

int main() {
    // a slightly jittered (deterministic) view around the main cardioid and a bulb
    float jitter = (float)(lcg_next() % 1000) * 1e-6f;
    const float x0 = -2.1f + jitter, y0 = -1.2f + jitter;
    const float dx = 3.0f / W, dy = 2.4f / H;
    int* d_out;
    CHECK(cudaMalloc(&d_out, W * H * sizeof(int)));
    dim3 block(16, 8), grid((W + 15) / 16, (H + 7) / 8);
    mandel<<<grid, block>>>(d_out, x0, y0, dx, dy, W, H, MAXIT);
    CHECK(cudaGetLastError());
    std::vector<int> got(W * H);
    CHECK(cudaMemcpy(got.data(), d_out, W * H * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));

    long long sum = 0;
    int inside = 0, mismatches = 0, first_bad = -1;
    for (int py = 0; py < H; ++py)
        for (int px = 0; px < W; ++px) {
            float t = (float)px * dx;
            float cr = x0 + t;
            t = (float)py * dy;
            float ci = y0 + t;
            int r = mandel_ref(cr, ci, MAXIT);
            sum += r;
            if (r == MAXIT) ++inside;
            if (got[py * W + px] != r) { if (first_bad < 0) first_bad = py * W + px; ++mismatches; }
        }
    printf("mandelbrot: %dx%d maxit=%d\n", W, H, MAXIT);
    printf("mandelbrot: total iterations=%lld inside=%d\n", sum, inside);
    if (mismatches) {
        printf("mandelbrot: FAIL (%d pixels differ, first at %d: %d)\n", mismatches, first_bad,
               got[first_bad]);
        return 1;
    }
    printf("mandelbrot: PASS\n");
    return 0;
}
