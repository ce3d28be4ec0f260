// cuSOLVER's dense factorizations at sizes where they run blocked, calling cuBLAS's 64-bit-index
// GEMM, TRMM, SYR2K and GEMV (which libcublas runs on SASS-only kernels; warpsim's preload library
// runs them, src/cudart/cublas_gemm.cpp): LU and Cholesky solves, the symmetric eigensolver, the
// SVD and QR. Each result is checked by its defining identity in double precision on the CPU
// (residuals relative to the matrix norm), not against another solver. Expected output: what our
// H100 printed (validation/driver/h100_cusolver_big.out).
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

static int fails = 0;
static void report(const char* what, bool ok, double resid) {
  if (!ok) ++fails;
  if (ok) std::printf("%s: ok\n", what);
  else std::printf("%s: WRONG (residual %g)\n", what, resid);
}
static unsigned seed = 2024;
static double rnd() {
  seed = seed * 1103515245u + 12345u;
  return double(int((seed >> 12) % 2001) - 1000) / 1000.0;
}
template <class T> T* dev(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T> std::vector<T> host(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}
static int dev_int(const int* d) {
  int v = -1;
  cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost);
  return v;
}

int main() {
  cusolverDnHandle_t h;
  cusolverDnCreate(&h);
  int* info;
  cudaMalloc(&info, 4);

  {  // LU with partial pivoting, then solve A X = B for 3 right-hand sides
    const int n = 300, nrhs = 3;
    std::vector<double> A(size_t(n) * n), B(size_t(n) * nrhs);
    for (auto& v : A) v = rnd();
    for (auto& v : B) v = rnd();
    double *dA = dev(A), *dB = dev(B), *work;
    int *piv, lw = 0;
    cudaMalloc(&piv, n * 4);
    cusolverDnDgetrf_bufferSize(h, n, n, dA, n, &lw);
    cudaMalloc(&work, sizeof(double) * lw);
    int st = cusolverDnDgetrf(h, n, n, dA, n, work, piv, info);
    int st2 = cusolverDnDgetrs(h, CUBLAS_OP_N, n, nrhs, dA, n, piv, dB, n, info);
    std::vector<double> X = host(dB, B.size());
    double r = 0, an = 0;
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < n; ++i) {
        double s = -B[i + size_t(j) * n];
        for (int l = 0; l < n; ++l) s += A[i + size_t(l) * n] * X[l + size_t(j) * n];
        r = std::max(r, std::abs(s));
      }
    for (double v : A) an = std::max(an, std::abs(v));
    report("dgetrf+dgetrs 300, 3 rhs", st == 0 && st2 == 0 && dev_int(info) == 0 && r < 1e-9 * an * n, r);
    cudaFree(dA), cudaFree(dB), cudaFree(work), cudaFree(piv);
  }

  // A symmetric positive definite matrix: M^T M + n I.
  const int n = 240;
  std::vector<double> M(size_t(n) * n), S(size_t(n) * n);
  for (auto& v : M) v = rnd();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = i == j ? n : 0;
      for (int l = 0; l < n; ++l) s += M[l + size_t(i) * n] * M[l + size_t(j) * n];
      S[i + size_t(j) * n] = s;
    }
  double snorm = 0;
  for (double v : S) snorm = std::max(snorm, std::abs(v));

  {  // Cholesky, then solve
    std::vector<double> B(n);
    for (auto& v : B) v = rnd();
    double *dS = dev(S), *dB = dev(B), *work;
    int lw = 0;
    cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dS, n, &lw);
    cudaMalloc(&work, sizeof(double) * lw);
    int st = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dS, n, work, lw, info);
    int st2 = cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, 1, dS, n, dB, n, info);
    std::vector<double> X = host(dB, B.size());
    double r = 0;
    for (int i = 0; i < n; ++i) {
      double s = -B[i];
      for (int l = 0; l < n; ++l) s += S[i + size_t(l) * n] * X[l];
      r = std::max(r, std::abs(s));
    }
    report("dpotrf+dpotrs 240", st == 0 && st2 == 0 && dev_int(info) == 0 && r < 1e-9 * snorm, r);
    cudaFree(dS), cudaFree(dB), cudaFree(work);
  }

  {  // symmetric eigenvalues and vectors: S V = V diag(w), w ascending
    double *dS = dev(S), *dW, *work;
    int lw = 0;
    cudaMalloc(&dW, n * sizeof(double));
    cusolverDnDsyevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, dS, n, dW, &lw);
    cudaMalloc(&work, sizeof(double) * lw);
    int st = cusolverDnDsyevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, dS, n, dW, work, lw, info);
    std::vector<double> V = host(dS, S.size()), w = host(dW, size_t(n));
    double r = 0;
    bool sorted = true;
    for (int j = 0; j < n; ++j) {
      if (j && w[j] < w[j - 1]) sorted = false;
      for (int i = 0; i < n; ++i) {
        double s = -w[j] * V[i + size_t(j) * n];
        for (int l = 0; l < n; ++l) s += S[i + size_t(l) * n] * V[l + size_t(j) * n];
        r = std::max(r, std::abs(s));
      }
    }
    report("dsyevd 240 vectors", st == 0 && dev_int(info) == 0 && sorted && r < 1e-9 * snorm, r);
    cudaFree(dS), cudaFree(dW), cudaFree(work);
  }

  {  // SVD of a 300 x 200 matrix: A = U diag(s) V^T, s descending and non-negative
    const int m = 300, k = 200;
    std::vector<double> A(size_t(m) * k);
    for (auto& v : A) v = rnd();
    double *dA = dev(A), *dS, *dU, *dVT, *work;
    int lw = 0;
    cudaMalloc(&dS, k * sizeof(double));
    cudaMalloc(&dU, size_t(m) * m * sizeof(double));
    cudaMalloc(&dVT, size_t(k) * k * sizeof(double));
    cusolverDnDgesvd_bufferSize(h, m, k, &lw);
    cudaMalloc(&work, sizeof(double) * lw);
    int st = cusolverDnDgesvd(h, 'A', 'A', m, k, dA, m, dS, dU, m, dVT, k, work, lw, nullptr, info);
    std::vector<double> s = host(dS, size_t(k)), U = host(dU, size_t(m) * m), VT = host(dVT, size_t(k) * k);
    double r = 0, an = 0;
    bool sorted = true;
    for (int j = 0; j < k; ++j)
      if (s[j] < 0 || (j && s[j] > s[j - 1])) sorted = false;
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < m; ++i) {
        double v = -A[i + size_t(j) * m];
        for (int l = 0; l < k; ++l) v += U[i + size_t(l) * m] * s[l] * VT[l + size_t(j) * k];
        r = std::max(r, std::abs(v));
        an = std::max(an, std::abs(A[i + size_t(j) * m]));
      }
    report("dgesvd 300x200", st == 0 && dev_int(info) == 0 && sorted && r < 1e-9 * an * m, r);
    cudaFree(dA), cudaFree(dS), cudaFree(dU), cudaFree(dVT), cudaFree(work);
  }

  {  // QR: apply Q^T (ormqr) to A and find R, upper triangular, equal to geqrf's
    const int m = 260, k = 180;
    std::vector<double> A(size_t(m) * k);
    for (auto& v : A) v = rnd();
    double *dA = dev(A), *dC = dev(A), *tau, *work;
    int lw = 0, lw2 = 0;
    cudaMalloc(&tau, k * sizeof(double));
    cusolverDnDgeqrf_bufferSize(h, m, k, dA, m, &lw);
    cusolverDnDormqr_bufferSize(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, k, k, dA, m, tau, dC, m, &lw2);
    cudaMalloc(&work, sizeof(double) * std::max(lw, lw2));
    int st = cusolverDnDgeqrf(h, m, k, dA, m, tau, work, lw, info);
    int st2 = cusolverDnDormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, k, k, dA, m, tau, dC, m, work, lw2, info);
    std::vector<double> QR = host(dA, A.size()), R = host(dC, A.size());
    double r = 0;
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < m; ++i) {
        const double want = i <= j ? QR[i + size_t(j) * m] : 0.0;  // geqrf's R above, zeros below
        r = std::max(r, std::abs(R[i + size_t(j) * m] - want));
      }
    report("dgeqrf+dormqr 260x180", st == 0 && st2 == 0 && dev_int(info) == 0 && r < 1e-10 * m, r);
    cudaFree(dA), cudaFree(dC), cudaFree(tau), cudaFree(work);
  }

  {  // Hermitian eigenproblem (complex double): H V = V diag(w), H = G^H G + n I
    const int m = 160;
    std::vector<cuDoubleComplex> G(size_t(m) * m), H(size_t(m) * m);
    for (auto& v : G) v = make_cuDoubleComplex(rnd(), rnd());
    double hn = 0;
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) {
        double re = i == j ? m : 0, im = 0;
        for (int l = 0; l < m; ++l) {
          const cuDoubleComplex a = G[l + size_t(i) * m], b = G[l + size_t(j) * m];  // conj(a) b
          re += a.x * b.x + a.y * b.y;
          im += a.x * b.y - a.y * b.x;
        }
        H[i + size_t(j) * m] = make_cuDoubleComplex(re, i == j ? 0 : im);
        hn = std::max(hn, std::hypot(re, im));
      }
    cuDoubleComplex *dH = dev(H), *work;
    double* dW;
    int lw = 0;
    cudaMalloc(&dW, m * sizeof(double));
    cusolverDnZheevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, m, dH, m, dW, &lw);
    cudaMalloc(&work, sizeof(cuDoubleComplex) * lw);
    int st = cusolverDnZheevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, m, dH, m, dW, work, lw, info);
    std::vector<cuDoubleComplex> V = host(dH, H.size());
    std::vector<double> w = host(dW, size_t(m));
    double r = 0;
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) {
        double re = -w[j] * V[i + size_t(j) * m].x, im = -w[j] * V[i + size_t(j) * m].y;
        for (int l = 0; l < m; ++l) {
          const cuDoubleComplex a = H[i + size_t(l) * m], b = V[l + size_t(j) * m];
          re += a.x * b.x - a.y * b.y;
          im += a.x * b.y + a.y * b.x;
        }
        r = std::max(r, std::hypot(re, im));
      }
    report("zheevd 160 vectors", st == 0 && dev_int(info) == 0 && r < 1e-9 * hn, r);
    cudaFree(dH), cudaFree(dW), cudaFree(work);
  }

  cusolverDnDestroy(h);
  std::printf("%s\n", fails ? "FAILED" : "PASSED");
  return fails ? 1 : 0;
}
