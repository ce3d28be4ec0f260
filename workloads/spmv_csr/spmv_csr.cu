// spmv_csr: y = A*x for a sparse matrix in CSR form, two ways:
//  - scalar kernel: one thread per row, sequential dot product
//  - vector kernel: one warp per row, lanes stride over the row, __shfl_down_sync tree reduction
// Row lengths are irregular (0..~80 nonzeros, a few empty rows, some long rows).
// Float results are checked against a CPU reference in double with a tolerance of
// 1e-5 * (1 + sum_j |a_ij * x_j|) per row (the summation orders differ).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            printf("spmv_csr: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static uint32_t g_lcg = 424242u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_float() { return (float)(lcg_next() >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f; }

__global__ void spmv_scalar(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
                            const float* __restrict__ val, const float* __restrict__ x, float* y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float sum = 0.0f;
        for (int e = row_ptr[r]; e < row_ptr[r + 1]; ++e) sum += val[e] * x[col[e]];
        y[r] = sum;
    }
}

__global__ void spmv_vector(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
                            const float* __restrict__ val, const float* __restrict__ x, float* y) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;  // whole warps leave together
    float sum = 0.0f;
    for (int e = row_ptr[warp] + lane; e < row_ptr[warp + 1]; e += 32) sum += val[e] * x[col[e]];
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) y[warp] = sum;
}

int main() {
    const int rows = 1500, cols = 1200;
    std::vector<int> row_ptr(rows + 1), col;
    std::vector<float> val, x(cols);
    for (int r = 0; r < rows; ++r) {
        row_ptr[r] = (int)col.size();
        uint32_t k = lcg_next();
        int len = (r % 97 == 0) ? 0 : (r % 13 == 0) ? 40 + (int)(k % 41) : (int)(k % 12);
        for (int i = 0; i < len; ++i) {
            col.push_back((int)(lcg_next() % cols));
            val.push_back(lcg_float());
        }
    }
    row_ptr[rows] = (int)col.size();
    for (int c = 0; c < cols; ++c) x[c] = lcg_float();
    int nnz = (int)col.size();

    std::vector<double> ref(rows), mag(rows);
    for (int r = 0; r < rows; ++r) {
        double s = 0, m = 0;
        for (int e = row_ptr[r]; e < row_ptr[r + 1]; ++e) {
            double p = (double)val[e] * (double)x[col[e]];
            s += p;
            m += std::fabs(p);
        }
        ref[r] = s;
        mag[r] = m;
    }

    int *d_row, *d_col;
    float *d_val, *d_x, *d_y;
    CHECK(cudaMalloc(&d_row, (rows + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_col, nnz * sizeof(int)));
    CHECK(cudaMalloc(&d_val, nnz * sizeof(float)));
    CHECK(cudaMalloc(&d_x, cols * sizeof(float)));
    CHECK(cudaMalloc(&d_y, rows * sizeof(float)));
    CHECK(cudaMemcpy(d_row, row_ptr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val, val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x.data(), cols * sizeof(float), cudaMemcpyHostToDevice));

    std::vector<float> ys(rows), yv(rows);
    CHECK(cudaMemset(d_y, 0xff, rows * sizeof(float)));
    spmv_scalar<<<(rows + 127) / 128, 128>>>(rows, d_row, d_col, d_val, d_x, d_y);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ys.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemset(d_y, 0xff, rows * sizeof(float)));
    const int vblock = 256;  // 8 rows per block
    spmv_vector<<<(rows * 32 + vblock - 1) / vblock, vblock>>>(rows, d_row, d_col, d_val, d_x, d_y);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(yv.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_row));
    CHECK(cudaFree(d_col));
    CHECK(cudaFree(d_val));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));

    double total = 0;
    for (int r = 0; r < rows; ++r) total += ref[r];
    printf("spmv_csr: rows=%d cols=%d nnz=%d\n", rows, cols, nnz);
    printf("spmv_csr: sum(y)=%.3f (tolerance 1e-5*(1+sum|a*x|) per row)\n", total);
    const char* names[2] = {"scalar", "vector"};
    const std::vector<float>* res[2] = {&ys, &yv};
    for (int k = 0; k < 2; ++k) {
        for (int r = 0; r < rows; ++r) {
            double got = (*res[k])[r];
            if (!(std::fabs(got - ref[r]) <= 1e-5 * (1.0 + mag[r]))) {
                printf("spmv_csr: FAIL (%s row %d: %.7f, expected %.7f)\n", names[k], r, got, ref[r]);
                return 1;
            }
        }
        printf("spmv_csr: %s kernel ok\n", names[k]);
    }
    printf("spmv_csr: PASS\n");
    return 0;
}
