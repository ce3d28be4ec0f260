#include <cublas_v2.h>
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <string>
#include "common.h"
static cublasHandle_t H;
static std::vector<double> rvec(size_t n) { std::vector<double> v(n); for (auto& x : v) x = rnd(); return v; }
template <class T> std::vector<T> cv(const std::vector<double>& v) { std::vector<T> o(v.size()); for (size_t i = 0; i < v.size(); ++i) o[i] = T(v[i]); return o; }
// column-major helpers
#define AT(M, ld, i, j) M[(size_t)(j) * (ld) + (i)]
static void symm(int m, int n, bool dbl_, bool left) {
  int ka = left ? m : n; auto A = rvec((size_t)ka * ka), B = rvec((size_t)m * n), C = rvec((size_t)m * n);
  // fill lower only meaningful; upper garbage
  std::vector<double> ref((size_t)m * n);
  auto S = [&](int i, int j) { return i >= j ? AT(A, ka, i, j) : AT(A, ka, j, i); };
  double al = 1.25, be = -0.5;
  for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) { double s = 0;
    if (left) for (int l = 0; l < m; ++l) s += S(i, l) * AT(B, m, l, j); else for (int l = 0; l < n; ++l) s += AT(B, m, i, l) * S(l, j);
    AT(ref, m, i, j) = al * s + be * AT(C, m, i, j); }
  auto side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  if (dbl_) { Dev<double> dA(A), dB(B), dC(C); CK(cublasDsymm(H, side, CUBLAS_FILL_MODE_LOWER, m, n, &al, dA.p, ka, dB.p, m, &be, dC.p, m)); cudaDeviceSynchronize(); report(left ? "Dsymm left lower" : "Dsymm right lower", ref, dbl(dC.host()), 1e-12); }
  else { Dev<float> dA(cv<float>(A)), dB(cv<float>(B)), dC(cv<float>(C)); float a = al, b = be; CK(cublasSsymm(H, side, CUBLAS_FILL_MODE_LOWER, m, n, &a, dA.p, ka, dB.p, m, &b, dC.p, m)); cudaDeviceSynchronize(); report(left ? "Ssymm left lower" : "Ssymm right lower", ref, dbl(dC.host()), 1e-5); }
}
static void hemm(int m, int n) {
  std::vector<cuComplex> A((size_t)m * m), B((size_t)m * n), C((size_t)m * n);
  for (auto& z : A) z = make_cuComplex(rnd(), rnd()); for (auto& z : B) z = make_cuComplex(rnd(), rnd()); for (auto& z : C) z = make_cuComplex(rnd(), rnd());
  auto c = [](cuComplex z) { return std::complex<double>(z.x, z.y); };
  auto Hm = [&](int i, int j) { return i > j ? c(AT(A, m, i, j)) : i == j ? std::complex<double>(AT(A, m, i, i).x, 0) : std::conj(c(AT(A, m, j, i))); };
  std::vector<double> ref, got; Dev<cuComplex> dA(A), dB(B), dC(C); cuComplex al = make_cuComplex(1, 0.5), be = make_cuComplex(0.5, 0);
  CK(cublasChemm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, m, n, &al, dA.p, m, dB.p, m, &be, dC.p, m)); auto g = dC.host();
  for (int j = 0; j < n; ++j) for (int i = 0; i < m; ++i) { std::complex<double> s = 0; for (int l = 0; l < m; ++l) s += Hm(i, l) * c(AT(B, m, l, j));
    s = s * c(al) + c(be) * c(AT(C, m, i, j)); ref.push_back(s.real()); ref.push_back(s.imag()); got.push_back(AT(g, m, i, j).x); got.push_back(AT(g, m, i, j).y); }
  report("Chemm left lower", ref, got, 1e-5);
}
static void gemmex(int m, int n, int k, bool bf) {
  auto A = rvec((size_t)m * k), B = rvec((size_t)k * n); std::vector<double> ref((size_t)m * n);
  for (auto& x : A) x = bf ? double(__bfloat162float(__float2bfloat16(x))) : double(__half2float(__float2half(x)));
  for (auto& x : B) x = bf ? double(__bfloat162float(__float2bfloat16(x))) : double(__half2float(__float2half(x)));
  for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) { double s = 0; for (int l = 0; l < k; ++l) s += AT(A, m, i, l) * AT(B, k, l, j); AT(ref, m, i, j) = s; }
  float al = 1, be = 0; Dev<float> dC((size_t)m * n);
  if (bf) { Dev<__nv_bfloat16> dA(cv<__nv_bfloat16>(A)), dB(cv<__nv_bfloat16>(B)); CK(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &al, dA.p, CUDA_R_16BF, m, dB.p, CUDA_R_16BF, k, &be, dC.p, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)); cudaDeviceSynchronize(); report("GemmEx bf16 in f32 out f32 compute", ref, dbl(dC.host()), 1e-5); }
  else { Dev<__half> dA(cv<__half>(A)), dB(cv<__half>(B)); CK(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &al, dA.p, CUDA_R_16F, m, dB.p, CUDA_R_16F, k, &be, dC.p, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)); cudaDeviceSynchronize(); report("GemmEx f16 in f32 out f32 compute", ref, dbl(dC.host()), 1e-5); }
}
static void gemm_sb_ex(int m, int n, int k, int batch) {
  auto A = rvec((size_t)m * k * batch), B = rvec((size_t)k * n * batch); for (auto& x : A) x = __half2float(__float2half(x)); for (auto& x : B) x = __half2float(__float2half(x));
  std::vector<double> ref((size_t)m * n * batch);
  for (int b = 0; b < batch; ++b) for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) { double s = 0; for (int l = 0; l < k; ++l) s += A[(size_t)b * m * k + (size_t)l * m + i] * B[(size_t)b * k * n + (size_t)j * k + l]; ref[(size_t)b * m * n + (size_t)j * m + i] = s; }
  Dev<__half> dA(cv<__half>(A)), dB(cv<__half>(B)); Dev<__half> dC((size_t)m * n * batch); float al = 1, be = 0;
  CK(cublasGemmStridedBatchedEx(H, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &al, dA.p, CUDA_R_16F, m, (long long)m * k, dB.p, CUDA_R_16F, k, (long long)k * n, &be, dC.p, CUDA_R_16F, m, (long long)m * n, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  auto g = dC.host(); std::vector<double> got; for (auto h : g) got.push_back(__half2float(h));
  report("GemmStridedBatchedEx f16 f16 out f32 compute", ref, got, 2e-3);
}
static void lt_rowmajor(int m, int n, int k) {
  cublasLtHandle_t lt; CK(cublasLtCreate(&lt));
  auto A = rvec((size_t)m * k), B = rvec((size_t)k * n), C = rvec((size_t)m * n); std::vector<double> ref((size_t)m * n);
  // row-major: A[i*k+l], B[l*n+j], C[i*n+j]
  for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) { double s = 0; for (int l = 0; l < k; ++l) s += float(A[(size_t)i * k + l]) * float(B[(size_t)l * n + j]); ref[(size_t)i * n + j] = s + 0.5 * float(C[(size_t)i * n + j]); }
  Dev<float> dA(cv<float>(A)), dB(cv<float>(B)), dC(cv<float>(C)), dD((size_t)m * n);
  cublasLtMatmulDesc_t d; CK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t la, lb, lc; cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, k)); CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, n)); CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, n));
  for (auto l : {la, lb, lc}) CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row));
  cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref)); size_t wsz = 1 << 22;
  CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof wsz));
  cublasLtMatmulHeuristicResult_t res{}; int nres = 0; Dev<char> ws(wsz);
  CK(cublasLtMatmulAlgoGetHeuristic(lt, d, la, lb, lc, lc, pref, 1, &res, &nres));
  float al = 1, be = 0.5;
  CK(cublasLtMatmul(lt, d, &al, dA.p, la, dB.p, lb, &be, dC.p, lc, dD.p, lc, nres ? &res.algo : nullptr, ws.p, wsz, 0)); cudaDeviceSynchronize();
  report("cublasLtMatmul row-major f32", ref, dbl(dD.host()), 1e-5);
}
// batched LU / inverse / QR / least squares
static std::vector<double> randmat(int n) { auto A = rvec((size_t)n * n); for (int i = 0; i < n; ++i) AT(A, n, i, i) += n * 0.3; return A; }
static void getrf_getri(int n, int batch, bool matinv) {
  std::vector<double> all; for (int b = 0; b < batch; ++b) { auto A = randmat(n); all.insert(all.end(), A.begin(), A.end()); }
  Dev<double> dA(all), dC(all.size()); Dev<int> piv(n * batch), info(batch);
  std::vector<double*> pa, pc; for (int b = 0; b < batch; ++b) pa.push_back(dA.p + (size_t)b * n * n), pc.push_back(dC.p + (size_t)b * n * n);
  Dev<double*> dpa(pa), dpc(pc);
  if (!matinv) { CK(cublasDgetrfBatched(H, n, dpa.p, n, piv.p, info.p, batch)); CK(cublasDgetriBatched(H, n, (const double**)dpa.p, n, piv.p, dpc.p, n, info.p, batch)); }
  else CK(cublasDmatinvBatched(H, n, (const double**)dpa.p, n, dpc.p, n, info.p, batch));
  auto inv = dC.host(); std::vector<double> ref, got;
  for (int b = 0; b < batch; ++b) for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) { double s = 0; for (int l = 0; l < n; ++l) s += all[(size_t)b * n * n + (size_t)l * n + i] * inv[(size_t)b * n * n + (size_t)j * n + l]; ref.push_back(i == j); got.push_back(s); }
  auto inf = info.host(); for (int x : inf) if (x) st = st ? st : 1000 + x;
  report(matinv ? "DmatinvBatched (A inv(A) = I)" : "DgetrfBatched+DgetriBatched (A inv(A) = I)", ref, got, 1e-9);
}
static void geqrf_gels(int m, int n, int batch) {
  std::vector<double> all, rhs; for (int b = 0; b < batch; ++b) { auto A = rvec((size_t)m * n); for (int i = 0; i < n; ++i) AT(A, m, i, i) += 2; all.insert(all.end(), A.begin(), A.end()); auto r = rvec(m); rhs.insert(rhs.end(), r.begin(), r.end()); }
  // gels: least squares min ||A x - b||; check normal equations A^T (A x - b) = 0
  Dev<double> dA(all), dB(rhs); std::vector<double*> pa, pb; for (int b = 0; b < batch; ++b) pa.push_back(dA.p + (size_t)b * m * n), pb.push_back(dB.p + (size_t)b * m);
  Dev<double*> dpa(pa), dpb(pb); int info = 0; Dev<int> dinfo(batch);
  CK(cublasDgelsBatched(H, CUBLAS_OP_N, m, n, 1, dpa.p, m, dpb.p, m, &info, dinfo.p, batch)); if (info) st = st ? st : 2000 + info;
  auto x = dB.host(); std::vector<double> ref, got;
  for (int b = 0; b < batch; ++b) { std::vector<double> r(m); for (int i = 0; i < m; ++i) { double s = -rhs[(size_t)b * m + i]; for (int j = 0; j < n; ++j) s += all[(size_t)b * m * n + (size_t)j * m + i] * x[(size_t)b * m + j]; r[i] = s; }
    for (int j = 0; j < n; ++j) { double s = 0; for (int i = 0; i < m; ++i) s += all[(size_t)b * m * n + (size_t)j * m + i] * r[i]; ref.push_back(0); got.push_back(s); } }
  report("DgelsBatched (normal equations)", ref, got, 1e-9);
  // geqrf: check R's diagonal magnitudes vs CPU Gram-Schmidt |r_jj|
  Dev<double> dA2(all), tau((size_t)n * batch); std::vector<double*> pa2, pt; for (int b = 0; b < batch; ++b) pa2.push_back(dA2.p + (size_t)b * m * n), pt.push_back(tau.p + (size_t)b * n);
  Dev<double*> dpa2(pa2), dpt(pt);
  CK(cublasDgeqrfBatched(H, m, n, dpa2.p, m, dpt.p, &info, batch)); if (info) st = st ? st : 3000 + info;
  auto qr = dA2.host(); ref.clear(); got.clear();
  for (int b = 0; b < batch; ++b) { std::vector<double> Q(all.begin() + (size_t)b * m * n, all.begin() + (size_t)(b + 1) * m * n);
    for (int j = 0; j < n; ++j) { for (int p = 0; p < j; ++p) { double d = 0; for (int i = 0; i < m; ++i) d += AT(Q, m, i, p) * AT(Q, m, i, j); for (int i = 0; i < m; ++i) AT(Q, m, i, j) -= d * AT(Q, m, i, p); }
      double nr = 0; for (int i = 0; i < m; ++i) nr += AT(Q, m, i, j) * AT(Q, m, i, j); nr = std::sqrt(nr); for (int i = 0; i < m; ++i) AT(Q, m, i, j) /= nr;
      ref.push_back(nr); got.push_back(std::fabs(qr[(size_t)b * m * n + (size_t)j * m + j])); } }
  report("DgeqrfBatched (|diag R|)", ref, got, 1e-9);
}
static void level2(int n) {
  auto A = rvec((size_t)n * n), x = rvec(n), y = rvec(n); for (int i = 0; i < n; ++i) AT(A, n, i, i) += 4;
  double al = 0.75, be = 0.5;
  { Dev<double> dA(A), dx(x), dy(y); CK(cublasDsymv(H, CUBLAS_FILL_MODE_UPPER, n, &al, dA.p, n, dx.p, 1, &be, dy.p, 1));
    std::vector<double> ref(n); for (int i = 0; i < n; ++i) { double s = 0; for (int j = 0; j < n; ++j) s += (i <= j ? AT(A, n, i, j) : AT(A, n, j, i)) * x[j]; ref[i] = al * s + be * y[i]; }
    report("Dsymv upper", ref, dbl(dy.host()), 1e-12); }
  { Dev<float> dA(cv<float>(A)), dx(cv<float>(x)), dy(cv<float>(y)); float a = al, b = be; CK(cublasSsymv(H, CUBLAS_FILL_MODE_LOWER, n, &a, dA.p, n, dx.p, 1, &b, dy.p, 1));
    std::vector<double> ref(n); for (int i = 0; i < n; ++i) { double s = 0; for (int j = 0; j < n; ++j) s += float(i >= j ? AT(A, n, i, j) : AT(A, n, j, i)) * float(x[j]); ref[i] = al * s + be * float(y[i]); }
    report("Ssymv lower", ref, dbl(dy.host()), 1e-5); }
  for (int t = 0; t < 2; ++t) { Dev<double> dA(A), dx(x); auto op = t ? CUBLAS_OP_T : CUBLAS_OP_N; CK(cublasDtrmv(H, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, n, dA.p, n, dx.p, 1));
    std::vector<double> ref(n); for (int i = 0; i < n; ++i) { double s = 0; for (int j = 0; j < n; ++j) { double a = t ? (j >= i ? AT(A, n, j, i) : 0) : (i >= j ? AT(A, n, i, j) : 0); s += a * x[j]; } ref[i] = s; }
    report(t ? "Dtrmv lower T" : "Dtrmv lower N", ref, dbl(dx.host()), 1e-12); }
  for (int t = 0; t < 2; ++t) { Dev<double> dA(A), dx(x); auto op = t ? CUBLAS_OP_T : CUBLAS_OP_N; CK(cublasDtrsv(H, CUBLAS_FILL_MODE_UPPER, op, CUBLAS_DIAG_NON_UNIT, n, dA.p, n, dx.p, 1));
    auto s = dx.host(); std::vector<double> got(n); for (int i = 0; i < n; ++i) { double v = 0; for (int j = 0; j < n; ++j) { double a = t ? (j <= i ? AT(A, n, j, i) : 0) : (i <= j ? AT(A, n, i, j) : 0); v += a * s[j]; } got[i] = v; }
    report(t ? "Dtrsv upper T (A x = b)" : "Dtrsv upper N (A x = b)", x, got, 1e-10); }
  { Dev<float> dA(cv<float>(A)), dx(cv<float>(x)); CK(cublasStrsv(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, dA.p, n, dx.p, 1));
    auto s = dx.host(); std::vector<double> got(n); for (int i = 0; i < n; ++i) { double v = 0; for (int j = 0; j <= i; ++j) v += float(AT(A, n, i, j)) * s[j]; got[i] = v; }
    std::vector<double> xf(x.begin(), x.end()); for (auto& v : xf) v = float(v); report("Strsv lower N (A x = b)", xf, got, 1e-4); }
  { Dev<double> dA(A), dx(x), dy(y); CK(cublasDger(H, n, n, &al, dx.p, 1, dy.p, 1, dA.p, n));
    std::vector<double> ref(A); for (int j = 0; j < n; ++j) for (int i = 0; i < n; ++i) AT(ref, n, i, j) += al * x[i] * y[j]; report("Dger", ref, dbl(dA.host()), 1e-12); }
  { Dev<float> dA(cv<float>(A)), dx(cv<float>(x)), dy(cv<float>(y)); float a = al; CK(cublasSger(H, n, n, &a, dx.p, 1, dy.p, 1, dA.p, n));
    std::vector<double> ref(n * (size_t)n); for (int j = 0; j < n; ++j) for (int i = 0; i < n; ++i) AT(ref, n, i, j) = float(AT(A, n, i, j)) + al * float(x[i]) * float(y[j]); report("Sger", ref, dbl(dA.host()), 1e-5); }
  { Dev<double> dA(A), dx(x); CK(cublasDsyr(H, CUBLAS_FILL_MODE_LOWER, n, &al, dx.p, 1, dA.p, n));
    std::vector<double> ref(A); for (int j = 0; j < n; ++j) for (int i = j; i < n; ++i) AT(ref, n, i, j) += al * x[i] * x[j]; report("Dsyr lower", ref, dbl(dA.host()), 1e-12); }
  { Dev<double> dA(A), dx(x), dy(y); CK(cublasDsyr2(H, CUBLAS_FILL_MODE_UPPER, n, &al, dx.p, 1, dy.p, 1, dA.p, n));
    std::vector<double> ref(A); for (int j = 0; j < n; ++j) for (int i = 0; i <= j; ++i) AT(ref, n, i, j) += al * (x[i] * y[j] + y[i] * x[j]); report("Dsyr2 upper", ref, dbl(dA.host()), 1e-12); }
  { int k = 3; std::vector<double> Ab((size_t)(k + 1) * n); // banded upper, lda=k+1: A(i,j) at Ab[k+i-j + j*(k+1)]
    for (int j = 0; j < n; ++j) for (int i = std::max(0, j - k); i <= j; ++i) Ab[(size_t)j * (k + 1) + k + i - j] = i == j ? 4 + rnd() : rnd();
    Dev<double> dA(Ab), dx(x); CK(cublasDtbsv(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, k, dA.p, k + 1, dx.p, 1));
    auto s = dx.host(); std::vector<double> got(n); for (int i = 0; i < n; ++i) { double v = 0; for (int j = i; j <= std::min(n - 1, i + k); ++j) v += Ab[(size_t)j * (k + 1) + k + i - j] * s[j]; got[i] = v; }
    report("Dtbsv upper k=3 (A x = b)", x, got, 1e-10);
    Dev<double> dx2(x), dy2(y); CK(cublasDsbmv(H, CUBLAS_FILL_MODE_UPPER, n, k, &al, dA.p, k + 1, dx2.p, 1, &be, dy2.p, 1));
    std::vector<double> ref(n); for (int i = 0; i < n; ++i) { double v = 0; for (int j = std::max(0, i - k); j <= std::min(n - 1, i + k); ++j) v += (i <= j ? Ab[(size_t)j * (k + 1) + k + i - j] : Ab[(size_t)i * (k + 1) + k + j - i]) * x[j]; ref[i] = al * v + be * y[i]; }
    report("Dsbmv upper k=3", ref, dbl(dy2.host()), 1e-12);
    Dev<double> dx3(x); CK(cublasDtbmv(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, k, dA.p, k + 1, dx3.p, 1));
    std::vector<double> r3(n); for (int i = 0; i < n; ++i) for (int j = i; j <= std::min(n - 1, i + k); ++j) r3[i] += Ab[(size_t)j * (k + 1) + k + i - j] * x[j];
    report("Dtbmv upper k=3", r3, dbl(dx3.host()), 1e-12); }
  { int kl = 2, ku = 3, lda = kl + ku + 1; std::vector<double> Ab((size_t)lda * n); for (auto& v : Ab) v = rnd();
    Dev<double> dA(Ab), dx(x), dy(y); CK(cublasDgbmv(H, CUBLAS_OP_N, n, n, kl, ku, &al, dA.p, lda, dx.p, 1, &be, dy.p, 1));
    std::vector<double> ref(n); for (int i = 0; i < n; ++i) { double v = 0; for (int j = std::max(0, i - kl); j <= std::min(n - 1, i + ku); ++j) v += Ab[(size_t)j * lda + ku + i - j] * x[j]; ref[i] = al * v + be * y[i]; }
    report("Dgbmv kl=2 ku=3", ref, dbl(dy.host()), 1e-12); }
  { std::vector<double> Ap((size_t)n * (n + 1) / 2); for (auto& v : Ap) v = rnd(); // packed lower: A(i,j) i>=j at i + (2n-j-1)*j/2
    Dev<double> dA(Ap), dx(x), dy(y); CK(cublasDspmv(H, CUBLAS_FILL_MODE_LOWER, n, &al, dA.p, dx.p, 1, &be, dy.p, 1));
    auto P = [&](int i, int j) { if (i < j) std::swap(i, j); return Ap[i + (size_t)(2 * n - j - 1) * j / 2]; };
    std::vector<double> ref(n); for (int i = 0; i < n; ++i) { double v = 0; for (int j = 0; j < n; ++j) v += P(i, j) * x[j]; ref[i] = al * v + be * y[i]; }
    report("Dspmv lower", ref, dbl(dy.host()), 1e-12); }
  { std::vector<cuDoubleComplex> Ac((size_t)n * n), xc(n), yc(n); for (auto& z : Ac) z = make_cuDoubleComplex(rnd(), rnd()); for (auto& z : xc) z = make_cuDoubleComplex(rnd(), rnd()); for (auto& z : yc) z = make_cuDoubleComplex(rnd(), rnd());
    Dev<cuDoubleComplex> dA(Ac), dx(xc), dy(yc); cuDoubleComplex a = make_cuDoubleComplex(1, 0.5), b = make_cuDoubleComplex(0.5, 0);
    CK(cublasZhemv(H, CUBLAS_FILL_MODE_LOWER, n, &a, dA.p, n, dx.p, 1, &b, dy.p, 1)); auto g = dy.host();
    auto c = [](cuDoubleComplex z) { return std::complex<double>(z.x, z.y); }; std::vector<double> ref, got;
    for (int i = 0; i < n; ++i) { std::complex<double> s = 0; for (int j = 0; j < n; ++j) s += (i > j ? c(AT(Ac, n, i, j)) : i == j ? std::complex<double>(AT(Ac, n, i, i).x, 0) : std::conj(c(AT(Ac, n, j, i)))) * c(xc[j]);
      s = c(a) * s + c(b) * c(yc[i]); ref.push_back(s.real()); ref.push_back(s.imag()); got.push_back(g[i].x); got.push_back(g[i].y); }
    report("Zhemv lower", ref, got, 1e-12); }
}
static const char* sel = nullptr;
static bool want(int i) { if (!sel) return true; char b[16]; snprintf(b, 16, ",%d,", i); std::string s = std::string(",") + sel + ","; return s.find(b) != std::string::npos; }
int main(int argc, char** argv) {
  sel = argc > 1 ? argv[1] : nullptr;
  CK(cublasCreate(&H));
  if (want(0)) symm(500, 300, true, true);
  if (want(1)) symm(400, 300, false, false);
  if (want(2)) hemm(300, 200);
  if (want(3)) gemmex(512, 384, 256, false);
  if (want(4)) gemmex(512, 384, 256, true);
  if (want(5)) gemm_sb_ex(128, 96, 64, 8);
  if (want(6)) lt_rowmajor(300, 200, 100);
  if (want(7)) getrf_getri(32, 16, false);
  if (want(8)) getrf_getri(24, 16, true);
  if (want(9)) geqrf_gels(40, 20, 8);
  if (want(10)) level2(1000);
  cublasDestroy(H);
  return 0;
}
