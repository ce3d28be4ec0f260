// cuBLAS beyond the real GEMMs: complex GEMMs (C/Z, 3M, batched), int8 GemmEx, rank-k updates of
// one triangle (SYRK, SYRKX, SYR2K), triangular solves (TRSM, all sides, triangles, transposes and
// diagonals, sizes where libcublas updates with its GEMM), and cublasLtMatmul (transposes, D apart
// from C, strided batches, f16 inputs, bias/ReLU/GELU epilogues, the heuristic query). Every result
// is compared with a CPU computation in double precision; a line says ok or WRONG with the error.
// Expected output: what our H100 printed (validation/driver/h100_cublas_more.out).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuComplex.h>
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

typedef std::complex<double> cd;
static int fails = 0;
static void report(const char* what, double err, double tol) {
  const bool ok = err <= tol;
  if (!ok) ++fails;
  if (ok) std::printf("%s: ok\n", what);
  else std::printf("%s: WRONG (error %g)\n", what, err);
}
static void status(const char* what, int st, int want) {
  if (st != want) ++fails;
  std::printf("%s: status %d%s\n", what, st, st == want ? "" : " WRONG");
}
static unsigned seed = 12345;
static double rnd() {  // in [-1, 1), multiples of 1/64: exact in every type used here
  seed = seed * 1103515245u + 12345u;
  return double(int((seed >> 16) % 128) - 64) / 64.0;
}
template <class T> T* dev(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T) + 16);
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T> std::vector<T> host(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}
// op(X)(r, c) of a column-major X with leading dimension ld; op 0 N, 1 T, 2 C.
static cd opc(const std::vector<cd>& x, int ld, int op, int r, int c) {
  cd v = op == 0 ? x[r + size_t(c) * ld] : x[c + size_t(r) * ld];
  return op == 2 ? std::conj(v) : v;
}
static double relerr(cd got, cd want) { return std::abs(got - want) / (1.0 + std::abs(want)); }

// ---------------------------------------------------------------- complex GEMM
template <class T, class F>
static void complex_gemm(cublasHandle_t h, const char* name, int m, int n, int k, int opa, int opb, F gemm, double tol) {
  const int ra = opa ? k : m, ca = opa ? m : k, rb = opb ? n : k, cb = opb ? k : n;
  std::vector<cd> A(size_t(ra) * ca), B(size_t(rb) * cb), C(size_t(m) * n);
  for (auto& v : A) v = cd(rnd(), rnd());
  for (auto& v : B) v = cd(rnd(), rnd());
  for (auto& v : C) v = cd(rnd(), rnd());
  const cd alpha(0.75, -0.5), beta(0.5, 0.25);
  auto conv = [](const std::vector<cd>& x) {
    std::vector<T> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = T{decltype(T{}.x)(x[i].real()), decltype(T{}.x)(x[i].imag())};
    return y;
  };
  T *dA = dev(conv(A)), *dB = dev(conv(B)), *dC = dev(conv(C));
  T al{decltype(T{}.x)(alpha.real()), decltype(T{}.x)(alpha.imag())}, be{decltype(T{}.x)(beta.real()), decltype(T{}.x)(beta.imag())};
  int st = gemm(h, cublasOperation_t(opa), cublasOperation_t(opb), m, n, k, &al, dA, ra, dB, rb, &be, dC, m);
  std::vector<T> got = host(dC, C.size());
  double err = st ? 1e30 : 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      cd s = 0;
      for (int l = 0; l < k; ++l) s += opc(A, ra, opa, i, l) * opc(B, rb, opb, l, j);
      const cd want = alpha * s + beta * C[i + size_t(j) * m];
      err = std::max(err, relerr(cd(got[i + size_t(j) * m].x, got[i + size_t(j) * m].y), want));
    }
  report(name, err, tol);
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

// ---------------------------------------------------------------- real helpers
static std::vector<double> rmat(size_t n) {
  std::vector<double> v(n);
  for (auto& x : v) x = rnd();
  return v;
}
template <class T> static std::vector<T> as(const std::vector<double>& x) { return std::vector<T>(x.begin(), x.end()); }
static double at(const std::vector<double>& x, int ld, int op, int r, int c) {
  return op == 0 ? x[r + size_t(c) * ld] : x[c + size_t(r) * ld];
}

// SYRK / SYRKX / SYR2K on one triangle; the other triangle must stay as it was.
template <class T>
static void rank_k(cublasHandle_t h, const char* name, int which, int uplo, int trans, int n, int k, double tol) {
  const int ra = trans ? k : n, ca = trans ? n : k;
  std::vector<double> A = rmat(size_t(ra) * ca), B = rmat(size_t(ra) * ca), C = rmat(size_t(n) * n);
  const T alpha = T(0.75), beta = T(-0.5);
  T *dA = dev(as<T>(A)), *dB = dev(as<T>(B)), *dC = dev(as<T>(C));
  const cublasFillMode_t fill = uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cublasOperation_t op = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  int st;
  if constexpr (sizeof(T) == 4) {
    st = which == 0 ? cublasSsyrk(h, fill, op, n, k, &alpha, dA, ra, &beta, dC, n)
       : which == 1 ? cublasSsyrkx(h, fill, op, n, k, &alpha, dA, ra, dB, ra, &beta, dC, n)
                    : cublasSsyr2k(h, fill, op, n, k, &alpha, dA, ra, dB, ra, &beta, dC, n);
  } else {
    st = which == 0 ? cublasDsyrk(h, fill, op, n, k, &alpha, dA, ra, &beta, dC, n)
       : which == 1 ? cublasDsyrkx(h, fill, op, n, k, &alpha, dA, ra, dB, ra, &beta, dC, n)
                    : cublasDsyr2k(h, fill, op, n, k, &alpha, dA, ra, dB, ra, &beta, dC, n);
  }
  std::vector<T> got = host(dC, C.size());
  double err = st ? 1e30 : 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double want = C[i + size_t(j) * n];
      if (uplo ? i <= j : i >= j) {
        double s = 0;
        for (int l = 0; l < k; ++l) {
          const double a_il = at(A, ra, trans, i, l), a_jl = at(A, ra, trans, j, l);
          const double b_il = at(B, ra, trans, i, l), b_jl = at(B, ra, trans, j, l);
          s += which == 0 ? a_il * a_jl : which == 1 ? a_il * b_jl : a_il * b_jl + b_il * a_jl;
        }
        want = double(alpha) * s + double(beta) * want;
      }
      err = std::max(err, std::abs(double(got[i + size_t(j) * n]) - want) / (1 + std::abs(want)));
    }
  report(name, err, tol);
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

// HERK / HERKX / HER2K (complex double, or float): one triangle, real beta, a real diagonal.
template <class T>
static void herm(cublasHandle_t h, const char* name, int which, int uplo, int trans, int n, int k, double tol) {
  const int ra = trans ? k : n, ca = trans ? n : k;
  std::vector<cd> A(size_t(ra) * ca), B(size_t(ra) * ca), C(size_t(n) * n);
  for (auto& v : A) v = cd(rnd(), rnd());
  for (auto& v : B) v = cd(rnd(), rnd());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) C[i + size_t(j) * n] = i == j ? cd(rnd(), 0) : cd(rnd(), rnd());
  typedef decltype(T{}.x) R;
  auto conv = [](const std::vector<cd>& x) {
    std::vector<T> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = T{R(x[i].real()), R(x[i].imag())};
    return y;
  };
  T *dA = dev(conv(A)), *dB = dev(conv(B)), *dC = dev(conv(C));
  const cd alpha = which == 0 ? cd(0.75, 0) : cd(0.75, -0.5);
  const R ra_ = R(alpha.real()), beta = R(-0.5);
  const T ac{R(alpha.real()), R(alpha.imag())};
  const cublasFillMode_t fill = uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cublasOperation_t op = trans ? CUBLAS_OP_C : CUBLAS_OP_N;
  int st;
  if constexpr (sizeof(R) == 4)
    st = which == 0 ? cublasCherk(h, fill, op, n, k, &ra_, dA, ra, &beta, dC, n)
       : which == 1 ? cublasCherkx(h, fill, op, n, k, &ac, dA, ra, dB, ra, &beta, dC, n)
                    : cublasCher2k(h, fill, op, n, k, &ac, dA, ra, dB, ra, &beta, dC, n);
  else
    st = which == 0 ? cublasZherk(h, fill, op, n, k, &ra_, dA, ra, &beta, dC, n)
       : which == 1 ? cublasZherkx(h, fill, op, n, k, &ac, dA, ra, dB, ra, &beta, dC, n)
                    : cublasZher2k(h, fill, op, n, k, &ac, dA, ra, dB, ra, &beta, dC, n);
  std::vector<T> got = host(dC, C.size());
  // op(X)(r, l): X(r, l) for N, conj(X(l, r)) for C.
  auto opx = [&](const std::vector<cd>& x, int r, int l) { return trans ? std::conj(x[l + size_t(r) * ra]) : x[r + size_t(l) * ra]; };
  double err = st ? 1e30 : 0;
  bool real_diag = true;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const cd g(got[i + size_t(j) * n].x, got[i + size_t(j) * n].y);
      cd want = C[i + size_t(j) * n];
      if (uplo ? i <= j : i >= j) {
        cd s = 0;
        for (int l = 0; l < k; ++l) {
          if (which == 0) s += alpha * opx(A, i, l) * std::conj(opx(A, j, l));
          else if (which == 1) s += alpha * opx(A, i, l) * std::conj(opx(B, j, l));
          else s += alpha * opx(A, i, l) * std::conj(opx(B, j, l)) + std::conj(alpha) * opx(B, i, l) * std::conj(opx(A, j, l));
        }
        want = s + double(beta) * want;
        if (i == j) {
          want = cd(want.real(), 0);
          real_diag = real_diag && g.imag() == 0;
        }
      }
      err = std::max(err, relerr(g, want));
    }
  report(name, real_diag ? err : 1e30, tol);
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

// TRSM: solve, then check op(A) X = alpha B (or X op(A) = alpha B) in double.
template <class T>
static void trsm(cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n, double tol) {
  const int na = side ? n : m;
  std::vector<double> A = rmat(size_t(na) * na), B = rmat(size_t(m) * n);
  for (int i = 0; i < na; ++i) A[i + size_t(i) * na] = (i % 2 ? -1.0 : 1.0) * (2.0 + 0.25 * (i % 5));  // well conditioned
  for (int j = 0; j < na; ++j)  // keep off-diagonal terms small so that the solve stays bounded
    for (int i = 0; i < na; ++i)
      if (i != j) A[i + size_t(j) * na] /= na;
  const T alpha = T(1.5);
  T *dA = dev(as<T>(A)), *dB = dev(as<T>(B));
  int st;
  if constexpr (sizeof(T) == 4)
    st = cublasStrsm(h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                     trans ? CUBLAS_OP_T : CUBLAS_OP_N, diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &alpha, dA,
                     na, dB, m);
  else
    st = cublasDtrsm(h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                     trans ? CUBLAS_OP_T : CUBLAS_OP_N, diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &alpha, dA,
                     na, dB, m);
  std::vector<T> X = host(dB, B.size());
  // The triangle of A that counts, with a unit diagonal if asked.
  auto aeff = [&](int r, int c) {
    if (r == c) return diag ? 1.0 : A[r + size_t(c) * na];
    if (uplo ? r > c : r < c) return 0.0;
    return A[r + size_t(c) * na];
  };
  auto opa = [&](int r, int c) { return trans ? aeff(c, r) : aeff(r, c); };
  double err = st ? 1e30 : 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      if (!side)
        for (int l = 0; l < m; ++l) s += opa(i, l) * double(X[l + size_t(j) * m]);
      else
        for (int l = 0; l < n; ++l) s += double(X[i + size_t(l) * m]) * opa(l, j);
      const double want = double(alpha) * B[i + size_t(j) * m];
      err = std::max(err, std::abs(s - want) / (1 + std::abs(want)));
    }
  char name[96];
  std::snprintf(name, sizeof name, "%ctrsm %s %s %s %s %dx%d", sizeof(T) == 4 ? 's' : 'd', side ? "right" : "left",
                uplo ? "upper" : "lower", trans ? "T" : "N", diag ? "unit" : "nonunit", m, n);
  report(name, err, tol);
  cudaFree(dA), cudaFree(dB);
}

// TRMM (cuBLAS's out-of-place form; in place when C is B).
template <class T>
static void trmm(cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n, bool in_place, double tol) {
  const int na = side ? n : m;
  std::vector<double> A = rmat(size_t(na) * na), B = rmat(size_t(m) * n);
  const T alpha = T(-1.25);
  T *dA = dev(as<T>(A)), *dB = dev(as<T>(B)), *dC = in_place ? dB : dev(std::vector<T>(size_t(m) * n, T(9)));
  const cublasSideMode_t sm = side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
  const cublasFillMode_t fm = uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cublasOperation_t op = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasDiagType_t dg = diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  int st;
  if constexpr (sizeof(T) == 4) st = cublasStrmm(h, sm, fm, op, dg, m, n, &alpha, dA, na, dB, m, dC, m);
  else st = cublasDtrmm(h, sm, fm, op, dg, m, n, &alpha, dA, na, dB, m, dC, m);
  std::vector<T> C = host(dC, B.size());
  auto aeff = [&](int r, int c) {
    if (r == c) return diag ? 1.0 : A[r + size_t(c) * na];
    if (uplo ? r > c : r < c) return 0.0;
    return A[r + size_t(c) * na];
  };
  auto opa = [&](int r, int c) { return trans ? aeff(c, r) : aeff(r, c); };
  double err = st ? 1e30 : 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      if (!side)
        for (int l = 0; l < m; ++l) s += opa(i, l) * B[l + size_t(j) * m];
      else
        for (int l = 0; l < n; ++l) s += B[i + size_t(l) * m] * opa(l, j);
      const double want = double(alpha) * s;
      err = std::max(err, std::abs(double(C[i + size_t(j) * m]) - want) / (1 + std::abs(want)));
    }
  char name[96];
  std::snprintf(name, sizeof name, "%ctrmm %s %s %s %s %dx%d%s", sizeof(T) == 4 ? 's' : 'd', side ? "right" : "left",
                uplo ? "upper" : "lower", trans ? "T" : "N", diag ? "unit" : "nonunit", m, n, in_place ? " in place" : "");
  report(name, err, tol);
  cudaFree(dA), cudaFree(dB);
  if (!in_place) cudaFree(dC);
}

// Complex double TRMM (op N, T or C) and GEMV (op N with a strided y, op C with a unit one).
static void ztrmm(cublasHandle_t h, int side, int uplo, int op, int diag, int m, int n) {
  const int na = side ? n : m;
  std::vector<cd> A(size_t(na) * na), B(size_t(m) * n);
  for (auto& v : A) v = cd(rnd(), rnd());
  for (auto& v : B) v = cd(rnd(), rnd());
  auto conv = [](const std::vector<cd>& x) {
    std::vector<cuDoubleComplex> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = make_cuDoubleComplex(x[i].real(), x[i].imag());
    return y;
  };
  cuDoubleComplex *dA = dev(conv(A)), *dB = dev(conv(B)), *dC = dev(conv(B));
  const cuDoubleComplex alpha = make_cuDoubleComplex(0.5, 1.25);
  int st = cublasZtrmm(h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                       cublasOperation_t(op), diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &alpha, dA, na, dB, m,
                       dC, m);
  auto C = host(dC, B.size());
  auto aeff = [&](int r, int c) -> cd {
    if (r == c) return diag ? cd(1, 0) : A[r + size_t(c) * na];
    if (uplo ? r > c : r < c) return 0.0;
    return A[r + size_t(c) * na];
  };
  auto opa = [&](int r, int c) { return op == 0 ? aeff(r, c) : op == 1 ? aeff(c, r) : std::conj(aeff(c, r)); };
  double err = st ? 1e30 : 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      cd s = 0;
      if (!side)
        for (int l = 0; l < m; ++l) s += opa(i, l) * B[l + size_t(j) * m];
      else
        for (int l = 0; l < n; ++l) s += B[i + size_t(l) * m] * opa(l, j);
      err = std::max(err, relerr(cd(C[i + size_t(j) * m].x, C[i + size_t(j) * m].y), cd(0.5, 1.25) * s));
    }
  char name[96];
  std::snprintf(name, sizeof name, "ztrmm %s %s %c %s %dx%d", side ? "right" : "left", uplo ? "upper" : "lower",
                "NTC"[op], diag ? "unit" : "nonunit", m, n);
  report(name, err, 1e-12);
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
}
static void zgemv(cublasHandle_t h, int op, int m, int n, int incx, int incy) {
  const int lx = op ? m : n, ly = op ? n : m;
  std::vector<cd> A(size_t(m) * n), x(size_t(lx) * incx), y(size_t(ly) * incy);
  for (auto& v : A) v = cd(rnd(), rnd());
  for (auto& v : x) v = cd(rnd(), rnd());
  for (auto& v : y) v = cd(rnd(), rnd());
  auto conv = [](const std::vector<cd>& v) {
    std::vector<cuDoubleComplex> w(v.size());
    for (size_t i = 0; i < v.size(); ++i) w[i] = make_cuDoubleComplex(v[i].real(), v[i].imag());
    return w;
  };
  cuDoubleComplex *dA = dev(conv(A)), *dx = dev(conv(x)), *dy = dev(conv(y));
  const cuDoubleComplex alpha = make_cuDoubleComplex(-0.5, 0.75), beta = make_cuDoubleComplex(1.5, -0.25);
  int st = cublasZgemv(h, cublasOperation_t(op), m, n, &alpha, dA, m, dx, incx, &beta, dy, incy);
  auto got = host(dy, y.size());
  double err = st ? 1e30 : 0;
  for (int i = 0; i < ly * incy; ++i) {
    cd want = y[i];
    if (i % incy == 0) {
      const int r = i / incy;
      cd s = 0;
      for (int l = 0; l < lx; ++l) {
        const cd a = op == 0 ? A[r + size_t(l) * m] : op == 1 ? A[l + size_t(r) * m] : std::conj(A[l + size_t(r) * m]);
        s += a * x[size_t(l) * incx];
      }
      want = cd(-0.5, 0.75) * s + cd(1.5, -0.25) * y[i];
    }
    err = std::max(err, relerr(cd(got[i].x, got[i].y), want));
  }
  char name[64];
  std::snprintf(name, sizeof name, "zgemv %c %dx%d incx %d incy %d", "NTC"[op], m, n, incx, incy);
  report(name, err, 1e-12);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
}

// Complex TRSM: solve, then check op(A) X = alpha B (or X op(A) = alpha B) in double.
template <class T>
static void ctrsm(cublasHandle_t h, int side, int uplo, int op, int diag, int m, int n, double tol) {
  const int na = side ? n : m;
  std::vector<cd> A(size_t(na) * na), B(size_t(m) * n);
  for (auto& v : A) v = cd(rnd(), rnd()) / double(na);
  for (int i = 0; i < na; ++i) A[i + size_t(i) * na] = cd(2.0 + 0.25 * (i % 3), i % 2 ? -0.5 : 0.5);
  for (auto& v : B) v = cd(rnd(), rnd());
  typedef decltype(T{}.x) R;
  std::vector<T> a(A.size()), b(B.size());
  for (size_t i = 0; i < A.size(); ++i) a[i] = T{R(A[i].real()), R(A[i].imag())};
  for (size_t i = 0; i < B.size(); ++i) b[i] = T{R(B[i].real()), R(B[i].imag())};
  T *dA = dev(a), *dB = dev(b);
  const T alpha{R(0.75), R(-0.5)};
  int st;
  if constexpr (sizeof(R) == 4)
    st = cublasCtrsm(h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                     cublasOperation_t(op), diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &alpha, dA, na, dB, m);
  else
    st = cublasZtrsm(h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, uplo ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                     cublasOperation_t(op), diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &alpha, dA, na, dB, m);
  auto X = host(dB, B.size());
  auto aeff = [&](int r, int c) -> cd {
    if (r == c) return diag ? cd(1, 0) : A[r + size_t(c) * na];
    if (uplo ? r > c : r < c) return 0.0;
    return A[r + size_t(c) * na];
  };
  auto opa = [&](int r, int c) { return op == 0 ? aeff(r, c) : op == 1 ? aeff(c, r) : std::conj(aeff(c, r)); };
  auto x = [&](int i, int j) { return cd(X[i + size_t(j) * m].x, X[i + size_t(j) * m].y); };
  double err = st ? 1e30 : 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      cd s = 0;
      if (!side)
        for (int l = 0; l < m; ++l) s += opa(i, l) * x(l, j);
      else
        for (int l = 0; l < n; ++l) s += x(i, l) * opa(l, j);
      err = std::max(err, relerr(s, cd(0.75, -0.5) * B[i + size_t(j) * m]));
    }
  char name[96];
  std::snprintf(name, sizeof name, "%ctrsm %s %s %c %s %dx%d", sizeof(R) == 4 ? 'c' : 'z', side ? "right" : "left",
                uplo ? "upper" : "lower", "NTC"[op], diag ? "unit" : "nonunit", m, n);
  report(name, err, tol);
  cudaFree(dA), cudaFree(dB);
}

// GEMV with strided vectors, large enough that libcublas picks a kernel it ships as SASS only.
static void dgemv_strided(cublasHandle_t h, int trans, int m, int n, int incx, int incy) {
  const int lx = trans ? m : n, ly = trans ? n : m;
  std::vector<double> A = rmat(size_t(m) * n), x = rmat(size_t(lx) * incx), y = rmat(size_t(ly) * incy);
  double *dA = dev(A), *dx = dev(x), *dy = dev(y);
  const double alpha = 0.5, beta = -2;
  int st = cublasDgemv(h, trans ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, &alpha, dA, m, dx, incx, &beta, dy, incy);
  std::vector<double> got = host(dy, y.size());
  double err = st ? 1e30 : 0;
  for (int i = 0; i < ly * incy; ++i) {
    double want = y[i];
    if (i % incy == 0) {
      const int r = i / incy;
      double s = 0;
      for (int l = 0; l < lx; ++l) s += (trans ? A[l + size_t(r) * m] : A[r + size_t(l) * m]) * x[size_t(l) * incx];
      want = alpha * s + beta * y[i];
    }
    err = std::max(err, std::abs(got[i] - want) / (1 + std::abs(want)));
  }
  char name[64];
  std::snprintf(name, sizeof name, "dgemv %s %dx%d incx %d incy %d", trans ? "T" : "N", m, n, incx, incy);
  report(name, err, 1e-12);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
}

// ---------------------------------------------------------------- cublasLt
static double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
// D = epi(alpha op(A) op(B) + beta C + bias) with f32 data (or f16 A/B), batch strided.
static void lt_case(cublasLtHandle_t lt, const char* name, int m, int n, int k, int ta, int tb, int batch,
                    cublasLtEpilogue_t epi, bool half_in, bool d_apart, double tol) {
  const int ra = ta ? k : m, ca = ta ? m : k, rb = tb ? n : k, cb = tb ? k : n;
  const long long sA = (long long)ra * ca, sB = (long long)rb * cb, sC = (long long)m * n;
  std::vector<double> A = rmat(size_t(sA) * batch), B = rmat(size_t(sB) * batch), C = rmat(size_t(sC) * batch),
                      bias = rmat(size_t(m));
  const float alpha = 0.75f, beta = d_apart ? 0.5f : -0.25f;
  void *dA, *dB;
  if (half_in) {
    std::vector<__half> ha(A.size()), hb(B.size());
    for (size_t i = 0; i < A.size(); ++i) ha[i] = __double2half(A[i]);
    for (size_t i = 0; i < B.size(); ++i) hb[i] = __double2half(B[i]);
    dA = dev(ha), dB = dev(hb);
  } else {
    dA = dev(as<float>(A)), dB = dev(as<float>(B));
  }
  float* dC = dev(as<float>(C));
  float* dD = d_apart ? dev(std::vector<float>(C.size(), -7.0f)) : dC;
  float* dBias = dev(as<float>(bias));
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  if (epi & CUBLASLT_EPILOGUE_BIAS) cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dBias, sizeof dBias);
  cublasLtMatrixLayout_t la, lb, lc, ld;
  const cudaDataType_t in = half_in ? CUDA_R_16F : CUDA_R_32F;
  cublasLtMatrixLayoutCreate(&la, in, ra, ca, ra);
  cublasLtMatrixLayoutCreate(&lb, in, rb, cb, rb);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m);
  cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m);
  if (batch > 1) {
    cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
    cublasLtMatrixLayoutSetAttribute(lb, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
    cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
    cublasLtMatrixLayoutSetAttribute(ld, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
    cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sA, sizeof sA);
    cublasLtMatrixLayoutSetAttribute(lb, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sB, sizeof sB);
    cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sC, sizeof sC);
    cublasLtMatrixLayoutSetAttribute(ld, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sC, sizeof sC);
  }
  // As most programs do: ask the heuristic for an algorithm and a workspace size.
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  size_t ws_bytes = 1 << 22;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
  cublasLtMatmulHeuristicResult_t heur[4] = {};
  int found = 0;
  int hst = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 4, heur, &found);
  void* ws = nullptr;
  cudaMalloc(&ws, ws_bytes);
  int st = cublasLtMatmul(lt, op, &alpha, dA, la, dB, lb, &beta, dC, lc, dD, ld, found ? &heur[0].algo : nullptr, ws,
                          ws_bytes, 0);
  cudaDeviceSynchronize();
  std::vector<float> got = host(dD, C.size());
  double err = (st || hst || found < 1) ? 1e30 : 0;
  for (int b = 0; b < batch; ++b)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0;
        for (int l = 0; l < k; ++l) {
          const double a = ta ? A[b * sA + l + size_t(i) * ra] : A[b * sA + i + size_t(l) * ra];
          const double bb = tb ? B[b * sB + j + size_t(l) * rb] : B[b * sB + l + size_t(j) * rb];
          s += a * bb;
        }
        double want = alpha * s + beta * C[b * sC + i + size_t(j) * m];
        if (epi & CUBLASLT_EPILOGUE_BIAS) want += bias[i];
        if (epi == CUBLASLT_EPILOGUE_RELU || epi == CUBLASLT_EPILOGUE_RELU_BIAS) want = std::max(want, 0.0);
        if (epi == CUBLASLT_EPILOGUE_GELU || epi == CUBLASLT_EPILOGUE_GELU_BIAS) want = gelu(want);
        err = std::max(err, std::abs(double(got[b * sC + i + size_t(j) * m]) - want) / (1 + std::abs(want)));
      }
  report(name, err, tol);
  cudaFree(ws);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc),
      cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dBias);
  if (d_apart) cudaFree(dD);
}

int main() {
  cublasHandle_t h;
  cublasCreate(&h);

  complex_gemm<cuComplex>(h, "cgemm N N 67x45x33", 67, 45, 33, 0, 0, cublasCgemm, 1e-5);
  complex_gemm<cuComplex>(h, "cgemm C T 40x64x96", 40, 64, 96, 2, 1, cublasCgemm, 1e-5);
  complex_gemm<cuComplex>(h, "cgemm3m N C 128x96x64", 128, 96, 64, 0, 2, cublasCgemm3m, 1e-4);
  complex_gemm<cuDoubleComplex>(h, "zgemm T C 50x70x129", 50, 70, 129, 1, 2, cublasZgemm, 1e-12);
  complex_gemm<cuDoubleComplex>(h, "zgemm N N 256x128x64", 256, 128, 64, 0, 0, cublasZgemm, 1e-12);

  {  // strided batched complex
    const int m = 24, n = 20, k = 16, batch = 3;
    std::vector<cd> A(size_t(m) * k * batch), B(size_t(k) * n * batch), C(size_t(m) * n * batch);
    for (auto& v : A) v = cd(rnd(), rnd());
    for (auto& v : B) v = cd(rnd(), rnd());
    std::vector<cuComplex> a(A.size()), b(B.size()), c(C.size());
    for (size_t i = 0; i < A.size(); ++i) a[i] = make_cuComplex(float(A[i].real()), float(A[i].imag()));
    for (size_t i = 0; i < B.size(); ++i) b[i] = make_cuComplex(float(B[i].real()), float(B[i].imag()));
    cuComplex *dA = dev(a), *dB = dev(b), *dC = dev(c), al = make_cuComplex(1, 0), be = make_cuComplex(0, 0);
    int st = cublasCgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &al, dA, m, (long long)m * k, dB, k,
                                       (long long)k * n, &be, dC, m, (long long)m * n, batch);
    auto got = host(dC, C.size());
    double err = st ? 1e30 : 0;
    for (int q = 0; q < batch; ++q)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
          cd s = 0;
          for (int l = 0; l < k; ++l) s += A[q * m * k + i + l * m] * B[q * k * n + l + j * k];
          const auto& g = got[q * m * n + i + j * m];
          err = std::max(err, relerr(cd(g.x, g.y), s));
        }
    report("cgemm strided batched x3", err, 1e-5);
  }

  {  // int8 GEMM with int32 results: exact
    const int m = 64, n = 48, k = 96;
    std::vector<int8_t> A(size_t(k) * m), B(size_t(k) * n);
    for (auto& v : A) v = int8_t(int(rnd() * 64) * 2 - 1);
    for (auto& v : B) v = int8_t(int(rnd() * 64) + 3);
    std::vector<int> C(size_t(m) * n, 5);
    int8_t *dA = dev(A), *dB = dev(B);
    int* dC = dev(C);
    const int alpha = 2, beta = -1;
    int st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, dA, CUDA_R_8I, k, dB, CUDA_R_8I, k, &beta, dC,
                          CUDA_R_32I, m, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    auto got = host(dC, C.size());
    long long bad = st ? 1 : 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        long long s = 0;
        for (int l = 0; l < k; ++l) s += A[l + size_t(i) * k] * B[l + size_t(j) * k];
        bad += got[i + size_t(j) * m] != int(alpha * s + beta * 5);
      }
    report("gemmex s8 T N -> s32", double(bad), 0);
  }

  {  // GemmEx on complex data
    complex_gemm<cuComplex>(h, "gemmex c32 N T 33x17x9", 33, 17, 9, 0, 1,
                            [](cublasHandle_t h, cublasOperation_t a, cublasOperation_t b, int m, int n, int k,
                               const cuComplex* al, const cuComplex* A, int lda, const cuComplex* B, int ldb,
                               const cuComplex* be, cuComplex* C, int ldc) {
                              return int(cublasGemmEx(h, a, b, m, n, k, al, A, CUDA_C_32F, lda, B, CUDA_C_32F, ldb, be,
                                                      C, CUDA_C_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                            },
                            1e-5);
  }

  rank_k<float>(h, "ssyrk lower N 70x40", 0, 0, 0, 70, 40, 1e-5);
  rank_k<float>(h, "ssyrk upper T 96x64", 0, 1, 1, 96, 64, 1e-5);
  rank_k<double>(h, "dsyrk upper N 130x33", 0, 1, 0, 130, 33, 1e-12);
  rank_k<float>(h, "ssyrkx lower T 50x20", 1, 0, 1, 50, 20, 1e-5);
  rank_k<double>(h, "dsyr2k lower N 64x48", 2, 0, 0, 64, 48, 1e-12);
  rank_k<float>(h, "ssyr2k upper T 33x70", 2, 1, 1, 33, 70, 1e-5);

  herm<cuComplex>(h, "cherk lower N 40x24", 0, 0, 0, 40, 24, 1e-5);
  herm<cuDoubleComplex>(h, "zherk upper C 36x50", 0, 1, 1, 36, 50, 1e-12);
  herm<cuDoubleComplex>(h, "zherkx lower C 30x20", 1, 0, 1, 30, 20, 1e-12);
  herm<cuComplex>(h, "cher2k upper N 33x17", 2, 1, 0, 33, 17, 1e-5);
  herm<cuDoubleComplex>(h, "zher2k lower N 64x40", 2, 0, 0, 64, 40, 1e-12);

  for (int side = 0; side < 2; ++side)
    for (int uplo = 0; uplo < 2; ++uplo)
      for (int trans = 0; trans < 2; ++trans) trsm<float>(h, side, uplo, trans, (side + uplo + trans) % 2, 37, 29, 1e-4);
  trsm<double>(h, 0, 0, 0, 0, 300, 64, 1e-11);
  trsm<float>(h, 1, 1, 1, 0, 96, 260, 1e-4);

  for (int side = 0; side < 2; ++side)
    for (int uplo = 0; uplo < 2; ++uplo)
      for (int trans = 0; trans < 2; ++trans)
        trmm<float>(h, side, uplo, trans, (side + uplo + trans) % 2, 41, 35, (side + trans) % 2 == 1, 1e-5);
  trmm<double>(h, 0, 1, 1, 0, 300, 70, true, 1e-12);
  trmm<double>(h, 1, 0, 0, 1, 64, 280, false, 1e-12);
  ctrsm<cuDoubleComplex>(h, 0, 0, 2, 0, 300, 8, 1e-11);
  ctrsm<cuComplex>(h, 1, 1, 0, 1, 8, 260, 1e-4);
  ctrsm<cuDoubleComplex>(h, 1, 0, 2, 0, 40, 70, 1e-11);
  ctrsm<cuDoubleComplex>(h, 0, 1, 1, 1, 50, 30, 1e-11);
  ztrmm(h, 0, 0, 2, 0, 70, 40);
  ztrmm(h, 1, 1, 1, 1, 50, 90);
  ztrmm(h, 0, 1, 0, 0, 160, 30);
  zgemv(h, 0, 420, 390, 2, 3);
  zgemv(h, 2, 400, 430, 1, 1);
  dgemv_strided(h, 0, 500, 400, 3, 2);
  dgemv_strided(h, 1, 450, 520, 2, 5);

  {
    cublasLtHandle_t lt;
    cublasLtCreate(&lt);
    lt_case(lt, "lt matmul N N 64x48x40", 64, 48, 40, 0, 0, 1, CUBLASLT_EPILOGUE_DEFAULT, false, false, 1e-5);
    lt_case(lt, "lt matmul T N, D apart from C", 33, 65, 17, 1, 0, 1, CUBLASLT_EPILOGUE_DEFAULT, false, true, 1e-5);
    lt_case(lt, "lt matmul N T batched x4", 32, 24, 16, 0, 1, 4, CUBLASLT_EPILOGUE_DEFAULT, false, true, 1e-5);
    lt_case(lt, "lt matmul f16 in, bias", 48, 40, 64, 0, 0, 1, CUBLASLT_EPILOGUE_BIAS, true, true, 1e-4);
    lt_case(lt, "lt matmul relu+bias", 40, 32, 24, 1, 1, 1, CUBLASLT_EPILOGUE_RELU_BIAS, false, true, 1e-5);
    lt_case(lt, "lt matmul relu", 40, 32, 24, 0, 0, 1, CUBLASLT_EPILOGUE_RELU, false, false, 1e-5);
    lt_case(lt, "lt matmul gelu+bias", 32, 32, 32, 0, 1, 1, CUBLASLT_EPILOGUE_GELU_BIAS, false, true, 1e-3);
    cublasLtDestroy(lt);
  }

  // Argument errors answer as the BLAS defines.
  {
    float one = 1;
    float* d = nullptr;
    cudaMalloc(&d, 64 * 64 * 4);
    status("ssyrk n < 0", cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, -1, 4, &one, d, 4, &one, d, 4),
           CUBLAS_STATUS_INVALID_VALUE);
    status("ssyrk lda < n", cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, 8, 4, &one, d, 4, &one, d, 8),
           CUBLAS_STATUS_INVALID_VALUE);
    status("strsm ldb < m", cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 8, 4,
                                        &one, d, 8, d, 4),
           CUBLAS_STATUS_INVALID_VALUE);
    status("strsm m = 0", cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 0, 4,
                                      &one, d, 1, d, 1),
           CUBLAS_STATUS_SUCCESS);
    cudaFree(d);
  }

  cublasDestroy(h);
  std::printf("%s\n", fails ? "FAILED" : "PASSED");
  return fails ? 1 : 0;
}
