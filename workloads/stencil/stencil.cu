// stencil: 2D 9-point (radius-1 box + radius-2 cross) stencil on a 2D grid with 2D blocks.
//  - __constant__ coefficients uploaded with cudaMemcpyToSymbol
//  - __device__ globals with initial values (boundary value, scale) read by the kernel, one of them
//    updated with cudaMemcpyToSymbol, and a __device__ counter read back with cudaMemcpyFromSymbol
//  - __ldg read-only loads, dim3 grid/block, 2D indexing with boundary handling
// Float result compared with tolerance |got - ref| <= 1e-4 * (1 + |ref|) (FMA contraction on the
// device may differ from the CPU's separate multiply-add). The counter is exact.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            printf("stencil: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static uint32_t g_lcg = 424242u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__constant__ float c_coef[9];              // centre, 4 x radius-1 neighbours, 4 x radius-2 neighbours
__constant__ int c_offsets[2] = {1, 2};
__device__ float g_boundary = 0.25f;       // value used outside the grid
__device__ float g_scale = 2.0f;           // overwritten from the host before the launch
__device__ unsigned g_boundary_hits = 0;   // number of threads that touched the boundary

__global__ void stencil2d(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    auto at = [&](int xx, int yy) -> float {
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) return g_boundary;
        return __ldg(&in[yy * w + xx]);
    };
    float acc = c_coef[0] * at(x, y);
    int k = 1;
    for (int r = 0; r < 2; ++r) {
        int d = c_offsets[r];
        acc += c_coef[k++] * at(x - d, y);
        acc += c_coef[k++] * at(x + d, y);
        acc += c_coef[k++] * at(x, y - d);
        acc += c_coef[k++] * at(x, y + d);
    }
    out[y * w + x] = acc * g_scale;
    if (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) atomicAdd(&g_boundary_hits, 1u);
}

int main() {
    const int w = 200, h = 120;
    std::vector<float> in((size_t)w * h);
    for (auto& v : in) v = (float)(lcg_next() >> 8) / 16777216.0f * 10.0f - 5.0f;
    const float coef[9] = {0.5f, 0.125f, 0.125f, 0.0625f, 0.0625f, -0.03125f, -0.03125f, 0.015625f, 0.015625f};
    const float scale = 1.5f;
    float *din, *dout;
    CHECK(cudaMalloc(&din, in.size() * sizeof(float)));
    CHECK(cudaMalloc(&dout, in.size() * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof(coef)));
    CHECK(cudaMemcpyToSymbol(g_scale, &scale, sizeof(float)));
    float boundary = 0;
    CHECK(cudaMemcpyFromSymbol(&boundary, g_boundary, sizeof(float)));  // initial value from the module
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    stencil2d<<<grid, block>>>(din, dout, w, h);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(in.size());
    unsigned hits = 0;
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&hits, g_boundary_hits, sizeof(unsigned)));
    CHECK(cudaFree(din)); CHECK(cudaFree(dout));

    const int offs[2] = {1, 2};
    auto at = [&](int xx, int yy) -> double {
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) return 0.25;
        return in[(size_t)yy * w + xx];
    };
    int bad = 0;
    unsigned ref_hits = 0;
    double checksum = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double acc = coef[0] * at(x, y);
            int k = 1;
            for (int r = 0; r < 2; ++r) {
                int d = offs[r];
                acc += coef[k++] * at(x - d, y);
                acc += coef[k++] * at(x + d, y);
                acc += coef[k++] * at(x, y - d);
                acc += coef[k++] * at(x, y + d);
            }
            acc *= scale;
            checksum += acc;
            float g = out[(size_t)y * w + x];
            if (!(std::fabs(g - acc) <= 1e-4 * (1.0 + std::fabs(acc)))) {
                if (!bad) printf("stencil: out[%d][%d]=%f expected %f\n", y, x, g, acc);
                ++bad;
            }
            if (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) ++ref_hits;
        }
    printf("stencil: %dx%d grid=(%u,%u) block=(%u,%u)\n", w, h, grid.x, grid.y, block.x, block.y);
    printf("stencil: initial g_boundary=%.2f, boundary threads=%u, reference checksum=%.3f\n", boundary, ref_hits, checksum);
    if (bad || hits != ref_hits || boundary != 0.25f) {
        printf("stencil: FAIL (%d mismatches, boundary hits %u vs %u, g_boundary %.3f)\n", bad, hits, ref_hits, boundary);
        return 1;
    }
    printf("stencil: PASS\n");
    return 0;
}
