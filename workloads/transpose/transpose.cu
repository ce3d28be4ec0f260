// transpose: tiled matrix transpose through shared memory (32x32 tiles, 32x8 thread blocks, each
// thread moves 4 elements). Two kernels: the padded tile tile[32][33] (no bank conflicts) and the
// unpadded tile[32][32] (32-way bank conflicts on the column read) -- same result, different
// shared-memory behaviour. Matrix sizes are not multiples of the tile (bounds checks). Exact compare.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            printf("transpose: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static uint32_t g_lcg = 31337u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

const int TILE = 32;
const int ROWS = 8;

// in: rows x cols (row-major); out: cols x rows
template <int PAD>
__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;  // column in `in`
    int y = blockIdx.y * TILE + threadIdx.y;  // row in `in`
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;  // column in `out` (= row in `in`)
    y = blockIdx.x * TILE + threadIdx.y;  // row in `out`
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    const int rows = 300, cols = 200;
    std::vector<float> in((size_t)rows * cols);
    for (auto& v : in) v = (float)(int)(lcg_next() % 100000) * 0.5f;
    float *din, *dout1, *dout2;
    size_t bytes = in.size() * sizeof(float);
    CHECK(cudaMalloc(&din, bytes));
    CHECK(cudaMalloc(&dout1, bytes));
    CHECK(cudaMalloc(&dout2, bytes));
    CHECK(cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout1, 0xff, bytes));
    CHECK(cudaMemset(dout2, 0xff, bytes));
    dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tiled<1><<<grid, block>>>(din, dout1, rows, cols);
    CHECK(cudaGetLastError());
    transpose_tiled<0><<<grid, block>>>(din, dout2, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> o1(in.size()), o2(in.size());
    CHECK(cudaMemcpy(o1.data(), dout1, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(o2.data(), dout2, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(din)); CHECK(cudaFree(dout1)); CHECK(cudaFree(dout2));
    int bad1 = 0, bad2 = 0;
    double trace_like = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            float ref = in[(size_t)r * cols + c];
            if (o1[(size_t)c * rows + r] != ref) ++bad1;
            if (o2[(size_t)c * rows + r] != ref) ++bad2;
            if (r == c) trace_like += ref;
        }
    printf("transpose: %dx%d -> %dx%d, grid=(%d,%d) block=(%d,%d)\n", rows, cols, cols, rows, grid.x, grid.y, block.x, block.y);
    printf("transpose: diagonal sum=%.1f out[1][0]=%.1f\n", trace_like, in[1]);
    if (bad1 || bad2) {
        printf("transpose: FAIL (padded mismatches=%d, unpadded mismatches=%d)\n", bad1, bad2);
        return 1;
    }
    printf("transpose: PASS\n");
    return 0;
}
