// transpose_naive: out-of-place transpose of a non-square, non-multiple-of-tile matrix three
// ways: naive (coalesced reads, strided writes), naive by columns (strided reads, coalesced
// writes) and a 32x32 shared-memory tile (padded, 32x8 threads, 4 rows per thread). All three
// results must equal the CPU transpose and each other exactly.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("transpose_naive: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 4242u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

// in: rows x cols (row-major); out: cols x rows
__global__ void transpose_naive_rows(const unsigned* in, unsigned* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

__global__ void transpose_naive_cols(const unsigned* in, unsigned* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;  // output column = input row
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

constexpr int TILE = 32, ROWS = 8;
__global__ void transpose_tiled(const unsigned* in, unsigned* out, int rows, int cols) {
    __shared__ unsigned tile[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r0 = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (r0 + j < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(r0 + j) * cols + c];
    __syncthreads();
    int oc = blockIdx.y * TILE + threadIdx.x;   // output column (input row)
    int orow0 = blockIdx.x * TILE + threadIdx.y; // output row (input column)
    for (int j = 0; j < TILE; j += ROWS)
        if (orow0 + j < cols && oc < rows) out[(size_t)(orow0 + j) * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    const int rows = 300, cols = 217;
    const size_t n = (size_t)rows * cols;
    std::vector<unsigned> h(n), ref(n);
    for (size_t i = 0; i < n; ++i) h[i] = lcg_next();
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) ref[(size_t)c * rows + r] = h[(size_t)r * cols + c];
    unsigned long long chk = 0;
    for (size_t i = 0; i < n; ++i) chk = chk * 31u + ref[i];

    unsigned *din, *dout[3];
    CHECK(cudaMalloc(&din, n * sizeof(unsigned)));
    for (int k = 0; k < 3; ++k) {
        CHECK(cudaMalloc(&dout[k], n * sizeof(unsigned)));
        CHECK(cudaMemset(dout[k], 0xAB, n * sizeof(unsigned)));
    }
    CHECK(cudaMemcpy(din, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

    dim3 b(16, 16);
    transpose_naive_rows<<<dim3((cols + 15) / 16, (rows + 15) / 16), b>>>(din, dout[0], rows, cols);
    CHECK(cudaGetLastError());
    transpose_naive_cols<<<dim3((rows + 15) / 16, (cols + 15) / 16), b>>>(din, dout[1], rows, cols);
    CHECK(cudaGetLastError());
    transpose_tiled<<<dim3((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), dim3(TILE, ROWS)>>>(din, dout[2], rows, cols);
    CHECK(cudaGetLastError());

    const char* names[3] = {"naive_rows", "naive_cols", "tiled"};
    printf("transpose_naive: %dx%d -> %dx%d, checksum %016llx\n", rows, cols, cols, rows, chk);
    int fail = 0;
    std::vector<unsigned> g(n);
    for (int k = 0; k < 3; ++k) {
        CHECK(cudaMemcpy(g.data(), dout[k], n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; ++i)
            if (g[i] != ref[i]) { if (!bad) first = i; ++bad; }
        if (bad) {
            printf("transpose_naive: FAIL (%s: %zu mismatches, first at %zu: got %08x expected %08x)\n",
                   names[k], bad, first, g[first], ref[first]);
            fail = 1;
            break;
        }
        printf("transpose_naive: %s ok\n", names[k]);
    }
    CHECK(cudaFree(din));
    for (int k = 0; k < 3; ++k) CHECK(cudaFree(dout[k]));
    if (fail) return 1;
    printf("transpose_naive: PASS\n");
    return 0;
}
