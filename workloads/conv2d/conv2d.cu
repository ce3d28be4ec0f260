// conv2d: 2D convolution (cross-correlation) of a 150x97 single-channel image with a 5x5
// filter held in __constant__ memory (cudaMemcpyToSymbol), zero padding. Two kernels: direct
// (global loads) and shared-memory tiled (16x16 outputs, 20x20 input tile with halo loaded
// cooperatively). A second 3x3 filter is uploaded with cudaMemcpyToSymbol at an offset.
// Tolerance 1e-5*(1+sum|terms|) against a double CPU reference.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("conv2d: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 8080u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_float() { return (float)(lcg_next() >> 8) * (1.0f / 8388608.0f) - 1.0f; }

constexpr int MAXR = 2;                 // max filter radius
constexpr int MAXF = 2 * MAXR + 1;
__constant__ float c_filter[2][MAXF * MAXF];  // [0]: 5x5, [1]: 3x3 (first 9 entries)

__global__ void conv_direct(const float* __restrict__ in, float* __restrict__ out, int w, int h, int which, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int f = 2 * r + 1;
    float acc = 0.f;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && yy >= 0 && xx < w && yy < h) acc += c_filter[which][(dy + r) * f + dx + r] * in[yy * w + xx];
        }
    out[y * w + x] = acc;
}

constexpr int T = 16;
template <int R>
__global__ void conv_tiled(const float* __restrict__ in, float* __restrict__ out, int w, int h, int which) {
    constexpr int S = T + 2 * R, F = 2 * R + 1;
    __shared__ float tile[S][S];
    int x0 = blockIdx.x * T - R, y0 = blockIdx.y * T - R;
    for (int i = threadIdx.y * T + threadIdx.x; i < S * S; i += T * T) {
        int lx = i % S, ly = i / S, gx = x0 + lx, gy = y0 + ly;
        tile[ly][lx] = (gx >= 0 && gy >= 0 && gx < w && gy < h) ? in[gy * w + gx] : 0.f;
    }
    __syncthreads();
    int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.f;
#pragma unroll
    for (int dy = 0; dy < F; ++dy)
#pragma unroll
        for (int dx = 0; dx < F; ++dx) acc += c_filter[which][dy * F + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
    out[y * w + x] = acc;
}

int main() {
    const int w = 150, h = 97;
    const size_t n = (size_t)w * h;
    std::vector<float> img(n);
    for (auto& v : img) v = lcg_float();
    float f5[25], f3[9];
    for (auto& v : f5) v = lcg_float() * 0.5f;
    for (auto& v : f3) v = lcg_float();
    CHECK(cudaMemcpyToSymbol(c_filter, f5, sizeof(f5)));
    CHECK(cudaMemcpyToSymbol(c_filter, f3, sizeof(f3), sizeof(float) * MAXF * MAXF));
    float back[9];
    CHECK(cudaMemcpyFromSymbol(back, c_filter, sizeof(back), sizeof(float) * MAXF * MAXF));
    for (int i = 0; i < 9; ++i)
        if (back[i] != f3[i]) { printf("conv2d: FAIL (cudaMemcpyFromSymbol mismatch at %d)\n", i); return 1; }

    float *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMemcpy(din, img.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    printf("conv2d: image %dx%d, zero padding, tolerance 1e-5*(1+sum|terms|)\n", w, h);

    std::vector<float> g(n);
    for (int c = 0; c < 4; ++c) {
        int which = c / 2, r = which == 0 ? 2 : 1, f = 2 * r + 1;
        const float* filt = which == 0 ? f5 : f3;
        bool tiled = c % 2 == 1;
        CHECK(cudaMemset(dout, 0, n * sizeof(float)));
        dim3 grid((w + T - 1) / T, (h + T - 1) / T), block(T, T);
        if (!tiled) conv_direct<<<grid, block>>>(din, dout, w, h, which, r);
        else if (r == 2) conv_tiled<2><<<grid, block>>>(din, dout, w, h, which);
        else conv_tiled<1><<<grid, block>>>(din, dout, w, h, which);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(g.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
        double sum = 0.0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double s = 0.0, sa = 0.0;
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx) {
                        int xx = x + dx, yy = y + dy;
                        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
                        double t = (double)filt[(dy + r) * f + dx + r] * img[yy * w + xx];
                        s += t;
                        sa += std::fabs(t);
                    }
                sum += s;
                double got = g[y * w + x];
                if (std::fabs(got - s) > 1e-5 * (1.0 + sa)) {
                    printf("conv2d: FAIL (%s %dx%d: out[%d,%d]=%.7f, expected %.7f)\n", tiled ? "tiled" : "direct", f, f, y, x, got, s);
                    return 1;
                }
            }
        printf("conv2d: %s %dx%d ok, sum(ref)=%.4f\n", tiled ? "tiled" : "direct", f, f, sum);
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    printf("conv2d: PASS\n");
    return 0;
}
