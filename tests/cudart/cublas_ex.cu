// cuBLAS beyond tests/cudart/cublas_more.cu, each against a CPU reference in double: SYMM and HEMM
// of every type, side and triangle (from a few hundred rows on libcublas runs them on SASS-only GEMM
// kernels, so warpsim's preload runs every SYMM/HEMM: A written out in full, then its GEMM kernel;
// small sizes here keep the simulation short), one with an illegal ldc; cublasLtMatmul with row-major layouts (CUBLASLT_ORDER_ROW: all row-major, mixed
// orders, transposes, f16 inputs with f32 output); cublasSgemmEx; and the batched LU, inverse and least-squares
// routines (getrfBatched/getriBatched, matinvBatched, gelsBatched). Each line says whether every
// call succeeded and the result is within a relative bound; the expected output is what our H100
// printed (validation/driver/h100_cublas_ex.out).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "lib_check.hpp"
using cd = std::complex<double>;
static cublasHandle_t H;

// C = alpha A B + beta C (left) or alpha B A + beta C (right), A symmetric (or Hermitian) with only
// the `upper` or lower triangle meaningful: the other holds garbage the routine must not read.
// T: float, double, cuComplex or cuDoubleComplex.
template <class T>
static void symm(int m, int n, bool left, bool upper, bool herm, double bound, const char* name, int ldc_short = 0) {
  constexpr bool cplx = sizeof(T) == 8 && !std::is_same<T, double>::value ? true : sizeof(T) == 16;
  const int ka = left ? m : n;
  auto make = [&](size_t count) {
    std::vector<cd> v(count);
    for (auto& z : v) {
      const double re = rnd(), im = cplx ? rnd() : 0;
      z = sizeof(T) == 4 || sizeof(T) == 8 && cplx ? cd(float(re), float(im)) : cd(re, im);
    }
    return v;
  };
  std::vector<cd> A = make(size_t(ka) * ka), B = make(size_t(m) * n), C = make(size_t(m) * n);
  auto sym = [&](int i, int j) -> cd {
    const bool stored = upper ? i <= j : i >= j;
    if (i == j && herm) return cd(A[size_t(j) * ka + i].real(), 0);
    if (stored) return A[size_t(j) * ka + i];
    const cd o = A[size_t(i) * ka + j];
    return herm ? std::conj(o) : o;
  };
  const cd alpha = cplx ? cd(0.75, -0.25) : cd(0.75, 0), beta = cplx ? cd(-0.5, 0.5) : cd(-0.5, 0);
  std::vector<cd> ref(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      cd s = 0;
      if (left)
        for (int l = 0; l < m; ++l) s += sym(i, l) * B[size_t(j) * m + l];
      else
        for (int l = 0; l < n; ++l) s += B[size_t(l) * m + i] * sym(l, j);
      ref[size_t(j) * m + i] = alpha * s + beta * C[size_t(j) * m + i];
    }
  auto pack = [&](const std::vector<cd>& v) {
    std::vector<T> o(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (cplx) {
        using P = decltype(T{}.x);
        o[i].x = P(v[i].real()), o[i].y = P(v[i].imag());
      } else {
        o[i] = T(v[i].real());
      }
    }
    return o;
  };
  auto unpack = [&](const std::vector<T>& v) {
    std::vector<double> o;
    for (const T& x : v) {
      if constexpr (cplx) o.push_back(double(x.x)), o.push_back(double(x.y));
      else o.push_back(double(x));
    }
    return o;
  };
  Dev<T> dA(pack(A)), dB(pack(B)), dC(pack(C));
  T al = pack({alpha})[0], be = pack({beta})[0];
  const auto side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const auto fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const int ldc = ldc_short ? ldc_short : m;
  cublasStatus_t s;
  if constexpr (std::is_same<T, float>::value) s = cublasSsymm(H, side, fill, m, n, &al, dA.p, ka, dB.p, m, &be, dC.p, ldc);
  else if constexpr (std::is_same<T, double>::value) s = cublasDsymm(H, side, fill, m, n, &al, dA.p, ka, dB.p, m, &be, dC.p, ldc);
  else if constexpr (std::is_same<T, cuComplex>::value)
    s = herm ? cublasChemm(H, side, fill, m, n, &al, dA.p, ka, dB.p, m, &be, dC.p, ldc)
             : cublasCsymm(H, side, fill, m, n, &al, dA.p, ka, dB.p, m, &be, dC.p, ldc);
  else
    s = herm ? cublasZhemm(H, side, fill, m, n, &al, dA.p, ka, dB.p, m, &be, dC.p, ldc)
             : cublasZsymm(H, side, fill, m, n, &al, dA.p, ka, dB.p, m, &be, dC.p, ldc);
  if (ldc_short) {
    std::printf("%-48s status %d\n", name, int(s));
    return;
  }
  CK(s);
  CK(cudaDeviceSynchronize());
  report(name, unpack(pack(ref)), unpack(dC.host()), bound);
}

// D = alpha op(A) op(B) + beta C through cublasLt, each matrix row- or column-major.
static void lt(int m, int n, int k, bool ta, bool tb, bool rowA, bool rowB, bool rowC, bool half_in, const char* name) {
  cublasLtHandle_t h;
  CK(cublasLtCreate(&h));
  // Logical op(A) (m x k), op(B) (k x n), C (m x n); stored A is m x k or k x m.
  const int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
  auto q = [&](double x) { return half_in ? double(__half2float(__float2half(float(x)))) : double(float(x)); };
  std::vector<double> A(size_t(ar) * ac), B(size_t(br) * bc), C(size_t(m) * n);
  for (auto& x : A) x = q(rnd());
  for (auto& x : B) x = q(rnd());
  for (auto& x : C) x = double(float(rnd()));
  auto at = [](bool row, int rows, int cols, int i, int j) { return row ? size_t(i) * cols + j : size_t(j) * rows + i; };
  std::vector<double> ref(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += A[ta ? at(rowA, ar, ac, l, i) : at(rowA, ar, ac, i, l)] * B[tb ? at(rowB, br, bc, j, l) : at(rowB, br, bc, l, j)];
      ref[at(rowC, m, n, i, j)] = 1.25 * s - 0.5 * C[at(rowC, m, n, i, j)];
    }
  Dev<float> dC(std::vector<float>(C.begin(), C.end())), dD(C.size());
  Dev<float> dAf(std::vector<float>(A.begin(), A.end())), dBf(std::vector<float>(B.begin(), B.end()));
  std::vector<__half> Ah(A.size()), Bh(B.size());
  for (size_t i = 0; i < A.size(); ++i) Ah[i] = __float2half(float(A[i]));
  for (size_t i = 0; i < B.size(); ++i) Bh[i] = __float2half(float(B[i]));
  Dev<__half> dAh(Ah), dBh(Bh);
  const cudaDataType in = half_in ? CUDA_R_16F : CUDA_R_32F;
  cublasLtMatmulDesc_t d;
  CK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa));
  CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb));
  cublasLtMatrixLayout_t la, lb, lc;
  CK(cublasLtMatrixLayoutCreate(&la, in, ar, ac, rowA ? ac : ar));
  CK(cublasLtMatrixLayoutCreate(&lb, in, br, bc, rowB ? bc : br));
  CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, rowC ? n : m));
  const cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  if (rowA) CK(cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row));
  if (rowB) CK(cublasLtMatrixLayoutSetAttribute(lb, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row));
  if (rowC) CK(cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row));
  cublasLtMatmulPreference_t pref;
  CK(cublasLtMatmulPreferenceCreate(&pref));
  size_t wsz = 1 << 22;
  CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof wsz));
  cublasLtMatmulHeuristicResult_t res{};
  int found = 0;
  CK(cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pref, 1, &res, &found));
  if (!found && !st) st = -1, std::printf("  no algorithm\n");
  Dev<char> ws(wsz);
  const float al = 1.25f, be = -0.5f;
  CK(cublasLtMatmul(h, d, &al, half_in ? (void*)dAh.p : (void*)dAf.p, la, half_in ? (void*)dBh.p : (void*)dBf.p, lb, &be,
                    dC.p, lc, dD.p, lc, found ? &res.algo : nullptr, ws.p, wsz, 0));
  CK(cudaDeviceSynchronize());
  auto got = dD.host();
  report(name, ref, std::vector<double>(got.begin(), got.end()), 1e-5);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(d);
  cublasLtDestroy(h);
}

// cublasSgemmEx (the legacy mixed-precision GEMM: f32 scalars and compute) with f16 A and B, f32 C.
static void sgemm_ex(int m, int n, int k) {
  std::vector<double> A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n);
  for (auto& x : A) x = __half2float(__float2half(float(rnd())));
  for (auto& x : B) x = __half2float(__float2half(float(rnd())));
  for (auto& x : C) x = float(rnd());
  std::vector<double> ref(C.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l) s += A[size_t(l) * m + i] * B[size_t(j) * k + l];
      ref[size_t(j) * m + i] = 0.5 * s + 2.0 * C[size_t(j) * m + i];
    }
  std::vector<__half> Ah(A.size()), Bh(B.size());
  for (size_t i = 0; i < A.size(); ++i) Ah[i] = __float2half(float(A[i]));
  for (size_t i = 0; i < B.size(); ++i) Bh[i] = __float2half(float(B[i]));
  Dev<__half> dA(Ah), dB(Bh);
  Dev<float> dC(std::vector<float>(C.begin(), C.end()));
  const float al = 0.5f, be = 2.0f;
  CK(cublasSgemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &al, dA.p, CUDA_R_16F, m, dB.p, CUDA_R_16F, k, &be, dC.p,
                   CUDA_R_32F, m));
  CK(cudaDeviceSynchronize());
  auto got = dC.host();
  report("SgemmEx f16 -> f32 256x192x128", ref, std::vector<double>(got.begin(), got.end()), 1e-5);
}

// Batched LU + inverse, matinv, and least squares, checked by A inv(A) = I and the normal equations.
static void batched(int n, int batch) {
  std::vector<double> all(size_t(n) * n * batch);
  for (int b = 0; b < batch; ++b)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) all[size_t(b) * n * n + size_t(j) * n + i] = rnd() + (i == j ? 0.3 * n : 0);
  for (int way = 0; way < 2; ++way) {
    Dev<double> dA(all), dC(all.size());
    Dev<int> piv(n * batch), info(batch);
    std::vector<double*> pa, pc;
    for (int b = 0; b < batch; ++b) pa.push_back(dA.p + size_t(b) * n * n), pc.push_back(dC.p + size_t(b) * n * n);
    Dev<double*> dpa(pa), dpc(pc);
    if (way == 0) {
      CK(cublasDgetrfBatched(H, n, dpa.p, n, piv.p, info.p, batch));
      CK(cublasDgetriBatched(H, n, (const double**)dpa.p, n, piv.p, dpc.p, n, info.p, batch));
    } else {
      CK(cublasDmatinvBatched(H, n, (const double**)dpa.p, n, dpc.p, n, info.p, batch));
    }
    auto inv = dC.host();
    for (int x : info.host())
      if (x && !st) st = 1000 + x;
    std::vector<double> ref, got;
    for (int b = 0; b < batch; ++b)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double s = 0;
          for (int l = 0; l < n; ++l) s += all[size_t(b) * n * n + size_t(l) * n + i] * inv[size_t(b) * n * n + size_t(j) * n + l];
          ref.push_back(i == j), got.push_back(s);
        }
    report(way ? "DmatinvBatched (A inv(A) = I)" : "DgetrfBatched + DgetriBatched (A inv(A) = I)", ref, got, 1e-9);
  }
  // Least squares on 2n x n systems.
  const int m = 2 * n;
  std::vector<double> M(size_t(m) * n * batch), rhs(size_t(m) * batch);
  for (auto& x : M) x = rnd();
  for (auto& x : rhs) x = rnd();
  Dev<double> dM(M), dR(rhs);
  std::vector<double*> pm, pr;
  for (int b = 0; b < batch; ++b) pm.push_back(dM.p + size_t(b) * m * n), pr.push_back(dR.p + size_t(b) * m);
  Dev<double*> dpm(pm), dpr(pr);
  Dev<int> dinfo(batch);
  int info = 0;
  CK(cublasDgelsBatched(H, CUBLAS_OP_N, m, n, 1, dpm.p, m, dpr.p, m, &info, dinfo.p, batch));
  if (info && !st) st = 2000 + info;
  auto x = dR.host();
  std::vector<double> ref, got;
  for (int b = 0; b < batch; ++b) {
    std::vector<double> r(m);
    for (int i = 0; i < m; ++i) {
      double s = -rhs[size_t(b) * m + i];
      for (int j = 0; j < n; ++j) s += M[size_t(b) * m * n + size_t(j) * m + i] * x[size_t(b) * m + j];
      r[i] = s;
    }
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int i = 0; i < m; ++i) s += M[size_t(b) * m * n + size_t(j) * m + i] * r[i];
      ref.push_back(0), got.push_back(s);
    }
  }
  report("DgelsBatched (normal equations)", ref, got, 1e-9);
}

int main() {
  rng = 5;
  report_width = 48;
  if (cublasCreate(&H) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    return 1;
  }
  symm<double>(128, 96, true, false, false, 1e-12, "Dsymm left lower 128x96");
  symm<double>(80, 112, false, true, false, 1e-12, "Dsymm right upper 80x112");
  symm<float>(120, 96, true, true, false, 1e-5, "Ssymm left upper 120x96");
  symm<cuComplex>(96, 80, false, false, false, 1e-5, "Csymm right lower 96x80");
  symm<cuDoubleComplex>(112, 64, true, true, false, 1e-12, "Zsymm left upper 112x64");
  symm<cuComplex>(96, 72, true, false, true, 1e-5, "Chemm left lower 96x72");
  symm<cuDoubleComplex>(64, 112, false, true, true, 1e-12, "Zhemm right upper 64x112");
  symm<double>(64, 32, true, false, false, 0, "Dsymm ldc < m", 63);
  lt(96, 80, 48, false, false, true, true, true, false, "LtMatmul f32 all row-major");
  lt(100, 68, 36, true, false, true, true, true, false, "LtMatmul f32 row-major, A^T");
  lt(72, 88, 40, false, true, true, false, true, false, "LtMatmul f32 A row, B^T column, C row");
  lt(80, 64, 32, true, true, false, true, false, false, "LtMatmul f32 A^T column, B^T row, C column");
  lt(128, 96, 64, false, false, true, true, true, true, "LtMatmul f16 -> f32 all row-major");
  sgemm_ex(256, 192, 128);
  batched(24, 12);
  cublasDestroy(H);
  std::printf("%s\n", failed ? "FAILED" : "done");
  return 0;
}
