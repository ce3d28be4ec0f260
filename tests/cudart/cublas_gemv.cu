// cublasSgemv/cublasDgemv at sizes where cuBLAS picks SASS-only kernels (from a few hundred rows
// on), both transposes, a strided x, beta 0 and non-zero, on a stream, and managed memory, against a
// CPU reference (double accumulation, relative tolerance). Found by cuda-samples'
// UnifiedMemoryStreams, whose DGEMVs of 64..1000 rows failed with CUBLAS_STATUS_EXECUTION_FAILED.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

template <class T>
static const char* check(const std::vector<T>& got, const std::vector<double>& want, double tol) {
  for (size_t i = 0; i < want.size(); ++i)
    if (std::fabs(double(got[i]) - want[i]) > tol * (1.0 + std::fabs(want[i]))) return "FAIL";
  return "ok";
}

template <class T>
static void run(const char* name, cublasHandle_t h, cublasOperation_t op, int m, int n, int incx, T beta, bool managed,
                double tol) {
  const int rows = op == CUBLAS_OP_N ? m : n, cols = op == CUBLAS_OP_N ? n : m;
  const int lda = m + 3;
  std::vector<T> A(size_t(lda) * n), x(size_t(cols) * incx), y(rows);
  for (size_t i = 0; i < A.size(); ++i) A[i] = T(std::sin(double(i) * 0.37));
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(std::cos(double(i) * 0.11));
  for (int i = 0; i < rows; ++i) y[i] = T(0.5 * i - 3);
  std::vector<double> want(rows);
  const T alpha = T(1.25);
  for (int i = 0; i < rows; ++i) {
    double s = 0;
    for (int j = 0; j < cols; ++j) {
      const double a = op == CUBLAS_OP_N ? double(A[size_t(j) * lda + i]) : double(A[size_t(i) * lda + j]);
      s += a * double(x[size_t(j) * incx]);
    }
    want[i] = double(alpha) * s + double(beta) * double(y[i]);
  }
  T *dA, *dx, *dy;
  if (managed) {
    cudaMallocManaged(&dA, A.size() * sizeof(T));
    cudaMallocManaged(&dx, x.size() * sizeof(T));
    cudaMallocManaged(&dy, y.size() * sizeof(T));
  } else {
    cudaMalloc(&dA, A.size() * sizeof(T));
    cudaMalloc(&dx, x.size() * sizeof(T));
    cudaMalloc(&dy, y.size() * sizeof(T));
  }
  cudaMemcpy(dA, A.data(), A.size() * sizeof(T), cudaMemcpyDefault);
  cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyDefault);
  cudaMemcpy(dy, y.data(), y.size() * sizeof(T), cudaMemcpyDefault);
  cublasStatus_t st;
  if constexpr (sizeof(T) == 4)
    st = cublasSgemv(h, op, m, n, &alpha, dA, lda, dx, incx, &beta, dy, 1);
  else
    st = cublasDgemv(h, op, m, n, &alpha, dA, lda, dx, incx, &beta, dy, 1);
  cudaDeviceSynchronize();
  std::vector<T> got(rows);
  cudaMemcpy(got.data(), dy, got.size() * sizeof(T), cudaMemcpyDefault);
  std::printf("%-36s status %d  %s\n", name, int(st), st == CUBLAS_STATUS_SUCCESS ? check(got, want, tol) : "-");
  cudaFree(dA);
  cudaFree(dx);
  cudaFree(dy);
}

int main() {
  cublasHandle_t h;
  cublasCreate(&h);
  run<double>("Dgemv N 64x64", h, CUBLAS_OP_N, 64, 64, 1, 0.0, false, 1e-12);
  run<double>("Dgemv N 385x385", h, CUBLAS_OP_N, 385, 385, 1, 0.0, false, 1e-12);
  run<double>("Dgemv N 788x640 beta 0.5", h, CUBLAS_OP_N, 788, 640, 1, 0.5, false, 1e-12);
  run<double>("Dgemv T 700x1000 incx 2", h, CUBLAS_OP_T, 700, 1000, 2, 0.0, false, 1e-12);
  run<double>("Dgemv N 1000x1000 managed", h, CUBLAS_OP_N, 1000, 1000, 1, 0.0, true, 1e-12);
  run<float>("Sgemv N 1024x768", h, CUBLAS_OP_N, 1024, 768, 1, 0.0f, false, 1e-4);
  run<float>("Sgemv T 900x900 beta -1 incx 3", h, CUBLAS_OP_T, 900, 900, 3, -1.0f, false, 1e-4);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cublasSetStream(h, s);
  run<double>("Dgemv N 512x512 on a stream", h, CUBLAS_OP_N, 512, 512, 1, 2.0, false, 1e-12);
  cublasDestroy(h);
  std::printf("done\n");
  return 0;
}
