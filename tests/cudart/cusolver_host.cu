// cuSOLVER dense routines against CPU checks computed here in double: Cholesky (potrf + potrs),
// LU with partial pivoting (getrf + getrs, float and double), QR (geqrf + ormqr + trsm: least
// squares) and the symmetric eigensolver (syevd: A v = lambda v and orthonormal vectors). cuSOLVER
// drives cuBLAS inside; routines that reach cuBLAS's SASS-only GEMMs (gesvd at any size, blocked QR
// of larger matrices) fail on warpsim with CUSOLVER_STATUS_INTERNAL_ERROR (README). Each line says whether the status, the info output and the residual
// relative to the data are right, so the expected output is the same on any correct GPU.
#include <cusolverDn.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

static uint32_t rng = 99;
static double next_value() {
  rng = rng * 1664525u + 1013904223u;
  return double(rng >> 8) / double(1u << 24) - 0.5;
}
static bool failed = false;
static void report(const char* what, int status, int info, double residual, double bound) {
  bool ok = status == 0 && info == 0 && residual <= bound;
  std::printf("%-40s %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) std::printf("  status %d, info %d, residual %.3g > %.3g\n", status, info, residual, bound), failed = true;
}

template <class T>
struct Dev {
  T* p = nullptr;
  size_t n;
  explicit Dev(size_t count) : n(count) { cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)); cudaMemset(p, 0, n * sizeof(T)); }
  explicit Dev(const std::vector<T>& h) : Dev(h.size()) { cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
  int value() const { return int(get()[0]); }
  ~Dev() { cudaFree(p); }
};

// Column-major n x n matrices.
template <class T>
std::vector<T> spd(int n) {  // symmetric positive definite: B B^T + n I
  std::vector<double> b(size_t(n) * n);
  for (auto& x : b) x = next_value();
  std::vector<T> a(size_t(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = i == j ? n : 0;
      for (int k = 0; k < n; ++k) s += b[size_t(k) * n + i] * b[size_t(k) * n + j];
      a[size_t(j) * n + i] = T(s);
    }
  return a;
}
template <class T>
std::vector<T> general(int m, int n) {
  std::vector<T> a(size_t(m) * n);
  for (auto& x : a) x = T(next_value());
  return a;
}
// max |A x - b| / (max|A| max|x| n), columns of x and b stacked.
template <class T>
double residual(const std::vector<T>& a, int m, int n, const std::vector<T>& x, const std::vector<T>& b, int nrhs) {
  double amax = 0, xmax = 0, err = 0;
  for (auto v : a) amax = std::max(amax, std::fabs(double(v)));
  for (int c = 0; c < nrhs; ++c)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int j = 0; j < n; ++j) s += double(a[size_t(j) * m + i]) * x[size_t(c) * n + j], xmax = std::max(xmax, std::fabs(double(x[size_t(c) * n + j])));
      err = std::max(err, std::fabs(s - b[size_t(c) * m + i]));
    }
  return err / (amax * xmax * n + 1e-300);
}

template <class T> struct S;
template <> struct S<float> {
  static constexpr double eps = 1e-5;
  static auto potrf_bs(cusolverDnHandle_t h, int n, float* a, int* lw) { return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lw); }
  static auto potrf(cusolverDnHandle_t h, int n, float* a, float* w, int lw, int* info) { return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lw, info); }
  static auto potrs(cusolverDnHandle_t h, int n, int r, float* a, float* b, int* info) { return cusolverDnSpotrs(h, CUBLAS_FILL_MODE_LOWER, n, r, a, n, b, n, info); }
  static auto getrf_bs(cusolverDnHandle_t h, int n, float* a, int* lw) { return cusolverDnSgetrf_bufferSize(h, n, n, a, n, lw); }
  static auto getrf(cusolverDnHandle_t h, int n, float* a, float* w, int* piv, int* info) { return cusolverDnSgetrf(h, n, n, a, n, w, piv, info); }
  static auto getrs(cusolverDnHandle_t h, int n, int r, float* a, int* piv, float* b, int* info) { return cusolverDnSgetrs(h, CUBLAS_OP_N, n, r, a, n, piv, b, n, info); }
};
template <> struct S<double> {
  static constexpr double eps = 1e-13;
  static auto potrf_bs(cusolverDnHandle_t h, int n, double* a, int* lw) { return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lw); }
  static auto potrf(cusolverDnHandle_t h, int n, double* a, double* w, int lw, int* info) { return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lw, info); }
  static auto potrs(cusolverDnHandle_t h, int n, int r, double* a, double* b, int* info) { return cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, r, a, n, b, n, info); }
  static auto getrf_bs(cusolverDnHandle_t h, int n, double* a, int* lw) { return cusolverDnDgetrf_bufferSize(h, n, n, a, n, lw); }
  static auto getrf(cusolverDnHandle_t h, int n, double* a, double* w, int* piv, int* info) { return cusolverDnDgetrf(h, n, n, a, n, w, piv, info); }
  static auto getrs(cusolverDnHandle_t h, int n, int r, double* a, int* piv, double* b, int* info) { return cusolverDnDgetrs(h, CUBLAS_OP_N, n, r, a, n, piv, b, n, info); }
};

template <class T>
void cholesky(cusolverDnHandle_t h, int n, int nrhs, const char* what) {
  auto a = spd<T>(n);
  auto b = general<T>(n, nrhs);
  Dev<T> da(a), db(b);
  Dev<int> info(1);
  int lw = 0;
  int st = S<T>::potrf_bs(h, n, da.p, &lw);
  Dev<T> work{size_t(lw)};
  if (!st) st = S<T>::potrf(h, n, da.p, work.p, lw, info.p);
  int i1 = info.value();
  if (!st) st = S<T>::potrs(h, n, nrhs, da.p, db.p, info.p);
  report(what, st, i1 | info.value(), residual(a, n, n, db.get(), b, nrhs), 10 * S<T>::eps);
}

template <class T>
void lu(cusolverDnHandle_t h, int n, int nrhs, const char* what) {
  auto a = general<T>(n, n);
  for (int i = 0; i < n; ++i) a[size_t(i) * n + i] += T(0.5);
  auto b = general<T>(n, nrhs);
  Dev<T> da(a), db(b);
  Dev<int> info(1), piv{size_t(n)};
  int lw = 0;
  int st = S<T>::getrf_bs(h, n, da.p, &lw);
  Dev<T> work{size_t(lw)};
  if (!st) st = S<T>::getrf(h, n, da.p, work.p, piv.p, info.p);
  int i1 = info.value();
  if (!st) st = S<T>::getrs(h, n, nrhs, da.p, piv.p, db.p, info.p);
  report(what, st, i1 | info.value(), residual(a, n, n, db.get(), b, nrhs), 100 * S<T>::eps);
}

// Symmetric eigenproblem: residual max |A v - lambda v| and max |V^T V - I|.
void eigen(cusolverDnHandle_t h, int n) {
  auto a = spd<double>(n);
  Dev<double> da(a), dw{size_t(n)};
  Dev<int> info(1);
  int lw = 0;
  int st = cusolverDnDsyevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, da.p, n, dw.p, &lw);
  Dev<double> work{size_t(lw)};
  if (!st) st = cusolverDnDsyevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, da.p, n, dw.p, work.p, lw, info.p);
  auto v = da.get();
  auto w = dw.get();
  double amax = 0, err = 0;
  for (auto x : a) amax = std::max(amax, std::fabs(x));
  for (int c = 0; c < n; ++c)
    for (int i = 0; i < n; ++i) {
      double s = 0, d = 0;
      for (int j = 0; j < n; ++j) s += a[size_t(j) * n + i] * v[size_t(c) * n + j], d += v[size_t(i) * n + j] * v[size_t(c) * n + j];
      err = std::max({err, std::fabs(s - w[c] * v[size_t(c) * n + i]) / (amax * n), std::fabs(d - (i == c))});
    }
  bool ascending = true;
  for (int i = 1; i < n; ++i) ascending &= w[i - 1] <= w[i];
  report("Dsyevd 40x40 (A v = lambda v, V orthonormal)", st, info.value() | !ascending, err, 1e-12);
}

// Least squares min |A x - b| through QR: R x = Q^T b; checked by A^T (A x - b) = 0.
void least_squares(cusolverDnHandle_t h, cublasHandle_t blas, int m, int n) {
  auto a = general<double>(m, n);
  auto b = general<double>(m, 1);
  Dev<double> da(a), db(b), tau{size_t(n)};
  Dev<int> info(1);
  int lw1 = 0, lw2 = 0;
  int st = cusolverDnDgeqrf_bufferSize(h, m, n, da.p, m, &lw1);
  if (!st) st = cusolverDnDormqr_bufferSize(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, 1, n, da.p, m, tau.p, db.p, m, &lw2);
  Dev<double> work{size_t(std::max(lw1, lw2))};
  if (!st) st = cusolverDnDgeqrf(h, m, n, da.p, m, tau.p, work.p, lw1, info.p);
  int i1 = info.value();
  if (!st) st = cusolverDnDormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, 1, n, da.p, m, tau.p, db.p, m, work.p, lw2, info.p);
  const double one = 1;
  if (!st) st = cublasDtrsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, 1, &one, da.p, m, db.p, m);
  auto x = db.get();
  std::vector<double> r(m);
  for (int i = 0; i < m; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += a[size_t(j) * m + i] * x[j];
    r[i] = s - b[i];
  }
  double err = 0;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < m; ++i) s += a[size_t(j) * m + i] * r[i];
    err = std::max(err, std::fabs(s));
  }
  report("Dgeqrf + Dormqr + trsm least squares 16x6", st, i1 | info.value(), err, 1e-12);
}

int main() {
  cusolverDnHandle_t h;
  cublasHandle_t blas;
  if (cusolverDnCreate(&h) != CUSOLVER_STATUS_SUCCESS || cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
    std::printf("create failed\n");
    return 1;
  }
  cholesky<float>(h, 64, 3, "Spotrf + Spotrs 64, 3 right-hand sides");
  cholesky<double>(h, 100, 1, "Dpotrf + Dpotrs 100");
  lu<float>(h, 100, 2, "Sgetrf + Sgetrs 100, 2 right-hand sides");
  lu<double>(h, 48, 1, "Dgetrf + Dgetrs 48");
  least_squares(h, blas, 16, 6);
  eigen(h, 40);
  cublasDestroy(blas);
  cusolverDnDestroy(h);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", cudaGetErrorString(e));
  return failed || e != cudaSuccess ? 1 : 0;
}
