#include <cusparse.h>
#include "common.h"
#include <string>
struct Csr { int rows, cols; std::vector<int> ptr, col; std::vector<double> val; };
static Csr rcsr(int rows, int cols, double dens, bool lower = false) {
  Csr m{rows, cols, {0}, {}, {}};
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      bool on = lower ? ((c < r && rnd() + 0.5 < dens) || c == r) : rnd() + 0.5 < dens;
      if (!on) continue;
      m.col.push_back(c); m.val.push_back(lower && c == r ? 4 + rnd() : rnd());
    }
    m.ptr.push_back((int)m.col.size());
  }
  return m;
}
template <class T> std::vector<T> cv(const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); }
static std::vector<double> rvec(size_t n) { std::vector<double> v(n); for (auto& x : v) x = rnd(); return v; }
static cusparseHandle_t H;

template <class T> cudaDataType dt();
template <> cudaDataType dt<float>() { return CUDA_R_32F; }
template <> cudaDataType dt<double>() { return CUDA_R_64F; }

template <class T> void spmv_csr(const Csr& A, cusparseSpMVAlg_t alg, cusparseOperation_t op, const char* name) {
  int xn = op == CUSPARSE_OPERATION_NON_TRANSPOSE ? A.cols : A.rows, yn = op == CUSPARSE_OPERATION_NON_TRANSPOSE ? A.rows : A.cols;
  auto x = rvec(xn), y0 = rvec(yn);
  Dev<int> p(A.ptr), c(A.col); Dev<T> v(cv<T>(A.val)), dx(cv<T>(x)), dy(cv<T>(y0));
  cusparseSpMatDescr_t m; cusparseDnVecDescr_t vx, vy;
  CK(cusparseCreateCsr(&m, A.rows, A.cols, A.val.size(), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt<T>()));
  CK(cusparseCreateDnVec(&vx, xn, dx.p, dt<T>())); CK(cusparseCreateDnVec(&vy, yn, dy.p, dt<T>()));
  T al = 1.5, be = 0.5; size_t ws = 0;
  CK(cusparseSpMV_bufferSize(H, op, &al, m, vx, &be, vy, dt<T>(), alg, &ws));
  Dev<char> w(ws);
  CK(cusparseSpMV(H, op, &al, m, vx, &be, vy, dt<T>(), alg, w.p));
  std::vector<double> ref(yn); for (int i = 0; i < yn; ++i) ref[i] = 0.5 * y0[i];
  for (int r = 0; r < A.rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) {
    if (op == CUSPARSE_OPERATION_NON_TRANSPOSE) ref[r] += 1.5 * A.val[k] * x[A.col[k]]; else ref[A.col[k]] += 1.5 * A.val[k] * x[r]; }
  report(name, ref, dbl(dy.host()), sizeof(T) == 4 ? 1e-5 : 1e-12);
  cusparseDestroySpMat(m); cusparseDestroyDnVec(vx); cusparseDestroyDnVec(vy);
}
void spmv_c32(const Csr& A) {
  std::vector<cuComplex> val(A.val.size()), x(A.cols), y(A.rows);
  for (auto& z : val) z = make_cuComplex(rnd(), rnd()); for (auto& z : x) z = make_cuComplex(rnd(), rnd());
  Dev<int> p(A.ptr), c(A.col); Dev<cuComplex> v(val), dx(x), dy(y);
  cusparseSpMatDescr_t m; cusparseDnVecDescr_t vx, vy;
  CK(cusparseCreateCsr(&m, A.rows, A.cols, A.val.size(), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_C_32F));
  CK(cusparseCreateDnVec(&vx, A.cols, dx.p, CUDA_C_32F)); CK(cusparseCreateDnVec(&vy, A.rows, dy.p, CUDA_C_32F));
  cuComplex al = make_cuComplex(1, 0.5), be = make_cuComplex(0, 0); size_t ws = 0;
  CK(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, m, vx, &be, vy, CUDA_C_32F, CUSPARSE_SPMV_ALG_DEFAULT, &ws));
  Dev<char> w(ws);
  CK(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, m, vx, &be, vy, CUDA_C_32F, CUSPARSE_SPMV_ALG_DEFAULT, w.p));
  std::vector<double> ref, got; auto g = dy.host();
  for (int r = 0; r < A.rows; ++r) { std::complex<double> s = 0; for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) s += std::complex<double>(val[k].x, val[k].y) * std::complex<double>(x[A.col[k]].x, x[A.col[k]].y);
    s *= std::complex<double>(1, 0.5); ref.push_back(s.real()); ref.push_back(s.imag()); got.push_back(g[r].x); got.push_back(g[r].y); }
  report("SpMV CSR c32", ref, got, 1e-5);
}
void spmv_coo_csc(const Csr& A, int fmt, cusparseSpMVAlg_t alg, const char* name) {
  std::vector<int> rowi; for (int r = 0; r < A.rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) rowi.push_back(r);
  auto x = rvec(A.cols);
  Dev<int> ri(rowi), c(A.col), p(A.ptr); Dev<float> v(cv<float>(A.val)), dx(cv<float>(x)), dy(A.rows);
  cusparseSpMatDescr_t m; cusparseDnVecDescr_t vx, vy;
  // CSC of A^T = CSR of A: use A^T's CSC for fmt 1 (cols/rows swapped), op T
  cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  if (fmt == 0) CK(cusparseCreateCoo(&m, A.rows, A.cols, A.val.size(), ri.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  else { CK(cusparseCreateCsc(&m, A.cols, A.rows, A.val.size(), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F)); op = CUSPARSE_OPERATION_TRANSPOSE; }
  CK(cusparseCreateDnVec(&vx, A.cols, dx.p, CUDA_R_32F)); CK(cusparseCreateDnVec(&vy, A.rows, dy.p, CUDA_R_32F));
  float al = 1, be = 0; size_t ws = 0;
  CK(cusparseSpMV_bufferSize(H, op, &al, m, vx, &be, vy, CUDA_R_32F, alg, &ws)); Dev<char> w(ws);
  CK(cusparseSpMV(H, op, &al, m, vx, &be, vy, CUDA_R_32F, alg, w.p));
  std::vector<double> ref(A.rows); for (int r = 0; r < A.rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) ref[r] += A.val[k] * x[A.col[k]];
  report(name, ref, dbl(dy.host()), 1e-5);
}
void spmm(const Csr& A, int fmt, cusparseSpMMAlg_t alg, cusparseOrder_t order, const char* name) {
  int n = 64; auto B = rvec((size_t)A.cols * n);
  std::vector<int> rowi; for (int r = 0; r < A.rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) rowi.push_back(r);
  Dev<int> ri(rowi), c(A.col), p(A.ptr); Dev<float> v(cv<float>(A.val)), dB(cv<float>(B)), dC((size_t)A.rows * n);
  cusparseSpMatDescr_t m; cusparseDnMatDescr_t mb, mc;
  if (fmt == 0) CK(cusparseCreateCsr(&m, A.rows, A.cols, A.val.size(), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  else CK(cusparseCreateCoo(&m, A.rows, A.cols, A.val.size(), ri.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  bool row = order == CUSPARSE_ORDER_ROW;
  CK(cusparseCreateDnMat(&mb, A.cols, n, row ? n : A.cols, dB.p, CUDA_R_32F, order));
  CK(cusparseCreateDnMat(&mc, A.rows, n, row ? n : A.rows, dC.p, CUDA_R_32F, order));
  float al = 1, be = 0; size_t ws = 0;
  CK(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, m, mb, &be, mc, CUDA_R_32F, alg, &ws)); Dev<char> w(ws);
  if (alg == CUSPARSE_SPMM_CSR_ALG3) CK(cusparseSpMM_preprocess(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, m, mb, &be, mc, CUDA_R_32F, alg, w.p));
  CK(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, m, mb, &be, mc, CUDA_R_32F, alg, w.p));
  auto Bat = [&](int r, int j) { return row ? B[(size_t)r * n + j] : B[(size_t)j * A.cols + r]; };
  std::vector<double> ref((size_t)A.rows * n);
  for (int r = 0; r < A.rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) for (int j = 0; j < n; ++j)
    ref[row ? (size_t)r * n + j : (size_t)j * A.rows + r] += A.val[k] * Bat(A.col[k], j);
  report(name, ref, dbl(dC.host()), 1e-5);
}
void spmm_bell() {
  int rows = 512, cols = 512, bs = 16, ellcols = 4 * bs, n = 32; int br = rows / bs;
  std::vector<int> colind(br * (ellcols / bs)); std::vector<double> val((size_t)rows * ellcols);
  for (int b = 0; b < br; ++b) for (int j = 0; j < ellcols / bs; ++j) colind[b * (ellcols / bs) + j] = (b + 3 * j) % (cols / bs);
  for (auto& x : val) x = rnd();
  auto B = rvec((size_t)cols * n);
  Dev<int> ci(colind); Dev<float> v(cv<float>(val)), dB(cv<float>(B)), dC((size_t)rows * n);
  cusparseSpMatDescr_t m; cusparseDnMatDescr_t mb, mc;
  CK(cusparseCreateBlockedEll(&m, rows, cols, bs, ellcols, ci.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateDnMat(&mb, cols, n, cols, dB.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CK(cusparseCreateDnMat(&mc, rows, n, rows, dC.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
  float al = 1, be = 0; size_t ws = 0;
  CK(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, m, mb, &be, mc, CUDA_R_32F, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, &ws)); Dev<char> w(ws);
  CK(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, m, mb, &be, mc, CUDA_R_32F, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, w.p));
  std::vector<double> ref((size_t)rows * n);
  for (int r = 0; r < rows; ++r) for (int e = 0; e < ellcols; ++e) { int c = colind[(r / bs) * (ellcols / bs) + e / bs] * bs + e % bs;
    for (int j = 0; j < n; ++j) ref[(size_t)j * rows + r] += val[(size_t)r * ellcols + e] * B[(size_t)j * cols + c]; }
  report("SpMM BlockedELL f32", ref, dbl(dC.host()), 1e-5);
}
void spgemm(const Csr& A, const Csr& B) {
  Dev<int> ap(A.ptr), ac(A.col), bp(B.ptr), bc(B.col), cp(A.rows + 1); Dev<float> av(cv<float>(A.val)), bv(cv<float>(B.val));
  cusparseSpMatDescr_t ma, mb, mc;
  CK(cusparseCreateCsr(&ma, A.rows, A.cols, A.val.size(), ap.p, ac.p, av.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateCsr(&mb, B.rows, B.cols, B.val.size(), bp.p, bc.p, bv.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateCsr(&mc, A.rows, B.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  cusparseSpGEMMDescr_t d; CK(cusparseSpGEMM_createDescr(&d));
  float al = 1, be = 0; auto op = CUSPARSE_OPERATION_NON_TRANSPOSE; size_t s1 = 0, s2 = 0;
  CK(cusparseSpGEMM_workEstimation(H, op, op, &al, ma, mb, &be, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, nullptr));
  Dev<char> w1(s1);
  CK(cusparseSpGEMM_workEstimation(H, op, op, &al, ma, mb, &be, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, w1.p));
  CK(cusparseSpGEMM_compute(H, op, op, &al, ma, mb, &be, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, nullptr));
  Dev<char> w2(s2);
  CK(cusparseSpGEMM_compute(H, op, op, &al, ma, mb, &be, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, w2.p));
  int64_t r, c, nnz = 0; CK(cusparseSpMatGetSize(mc, &r, &c, &nnz));
  Dev<int> cc(nnz); Dev<float> cvv(nnz);
  CK(cusparseCsrSetPointers(mc, cp.p, cc.p, cvv.p));
  CK(cusparseSpGEMM_copy(H, op, op, &al, ma, mb, &be, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, d));
  std::vector<double> dense((size_t)A.rows * B.cols), got((size_t)A.rows * B.cols);
  for (int i = 0; i < A.rows; ++i) for (int k = A.ptr[i]; k < A.ptr[i+1]; ++k) { int l = A.col[k]; for (int q = B.ptr[l]; q < B.ptr[l+1]; ++q) dense[(size_t)i * B.cols + B.col[q]] += A.val[k] * B.val[q]; }
  auto hp = cp.host(); auto hc = cc.host(); auto hv = cvv.host();
  if (!st) for (int i = 0; i < A.rows; ++i) for (int k = hp[i]; k < hp[i+1] && k < nnz; ++k) got[(size_t)i * B.cols + hc[k]] += hv[k];
  report("SpGEMM CSR f32", dense, got, 1e-5);
  cusparseSpGEMM_destroyDescr(d);
}
void spsv(const Csr& L, bool spsm) {
  int n = L.rows, nr = spsm ? 8 : 1; auto b = rvec((size_t)n * nr);
  Dev<int> p(L.ptr), c(L.col); Dev<float> v(cv<float>(L.val)), db(cv<float>(b)), dx((size_t)n * nr);
  cusparseSpMatDescr_t m; CK(cusparseCreateCsr(&m, n, n, L.val.size(), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  cusparseFillMode_t fm = CUSPARSE_FILL_MODE_LOWER; cusparseDiagType_t dg = CUSPARSE_DIAG_TYPE_NON_UNIT;
  CK(cusparseSpMatSetAttribute(m, CUSPARSE_SPMAT_FILL_MODE, &fm, sizeof fm)); CK(cusparseSpMatSetAttribute(m, CUSPARSE_SPMAT_DIAG_TYPE, &dg, sizeof dg));
  float al = 1; size_t ws = 0; auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  if (!spsm) {
    cusparseDnVecDescr_t vb, vx; CK(cusparseCreateDnVec(&vb, n, db.p, CUDA_R_32F)); CK(cusparseCreateDnVec(&vx, n, dx.p, CUDA_R_32F));
    cusparseSpSVDescr_t d; CK(cusparseSpSV_createDescr(&d));
    CK(cusparseSpSV_bufferSize(H, op, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, &ws)); Dev<char> w(ws);
    CK(cusparseSpSV_analysis(H, op, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, w.p));
    CK(cusparseSpSV_solve(H, op, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d));
  } else {
    cusparseDnMatDescr_t vb, vx; CK(cusparseCreateDnMat(&vb, n, nr, n, db.p, CUDA_R_32F, CUSPARSE_ORDER_COL)); CK(cusparseCreateDnMat(&vx, n, nr, n, dx.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
    cusparseSpSMDescr_t d; CK(cusparseSpSM_createDescr(&d));
    CK(cusparseSpSM_bufferSize(H, op, op, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, d, &ws)); Dev<char> w(ws);
    CK(cusparseSpSM_analysis(H, op, op, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, d, w.p));
    CK(cusparseSpSM_solve(H, op, op, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, d));
  }
  // check L x = b
  auto x = dbl(dx.host()); std::vector<double> lx((size_t)n * nr);
  for (int j = 0; j < nr; ++j) for (int r = 0; r < n; ++r) for (int k = L.ptr[r]; k < L.ptr[r+1]; ++k) lx[(size_t)j * n + r] += L.val[k] * x[(size_t)j * n + L.col[k]];
  report(spsm ? "SpSM CSR lower f32" : "SpSV CSR lower f32", b, lx, 1e-4);
}
void sddmm(const Csr& S) {
  int k = 32; auto A = rvec((size_t)S.rows * k), B = rvec((size_t)k * S.cols);
  Dev<int> p(S.ptr), c(S.col); Dev<float> v(cv<float>(S.val)), dA(cv<float>(A)), dB(cv<float>(B));
  cusparseSpMatDescr_t m; cusparseDnMatDescr_t ma, mb;
  CK(cusparseCreateCsr(&m, S.rows, S.cols, S.val.size(), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateDnMat(&ma, S.rows, k, k, dA.p, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CK(cusparseCreateDnMat(&mb, k, S.cols, S.cols, dB.p, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  float al = 1, be = 0.5; size_t ws = 0; auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  CK(cusparseSDDMM_bufferSize(H, op, op, &al, ma, mb, &be, m, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &ws)); Dev<char> w(ws);
  CK(cusparseSDDMM_preprocess(H, op, op, &al, ma, mb, &be, m, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, w.p));
  CK(cusparseSDDMM(H, op, op, &al, ma, mb, &be, m, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, w.p));
  std::vector<double> ref(S.val.size());
  for (int r = 0; r < S.rows; ++r) for (int q = S.ptr[r]; q < S.ptr[r+1]; ++q) { double s = 0; for (int l = 0; l < k; ++l) s += A[(size_t)r * k + l] * B[(size_t)l * S.cols + S.col[q]]; ref[q] = s + 0.5 * float(S.val[q]); }
  report("SDDMM CSR f32", ref, dbl(v.host()), 1e-5);
}
void dense_sparse(const Csr& A) {
  std::vector<double> D((size_t)A.rows * A.cols);
  for (int r = 0; r < A.rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) D[(size_t)r * A.cols + A.col[k]] = float(A.val[k]);
  Dev<float> dD(cv<float>(D)); Dev<int> p(A.rows + 1);
  cusparseDnMatDescr_t md; cusparseSpMatDescr_t ms;
  CK(cusparseCreateDnMat(&md, A.rows, A.cols, A.cols, dD.p, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CK(cusparseCreateCsr(&ms, A.rows, A.cols, 0, p.p, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  size_t ws = 0; CK(cusparseDenseToSparse_bufferSize(H, md, ms, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &ws)); Dev<char> w(ws);
  CK(cusparseDenseToSparse_analysis(H, md, ms, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, w.p));
  int64_t r, c, nnz = 0; CK(cusparseSpMatGetSize(ms, &r, &c, &nnz));
  Dev<int> ci(nnz); Dev<float> cvv(nnz); CK(cusparseCsrSetPointers(ms, p.p, ci.p, cvv.p));
  CK(cusparseDenseToSparse_convert(H, md, ms, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, w.p));
  std::vector<double> got(D.size()); auto hp = p.host(); auto hc = ci.host(); auto hv = cvv.host();
  if (!st && nnz == (int64_t)A.val.size()) for (int i = 0; i < A.rows; ++i) for (int k = hp[i]; k < hp[i+1]; ++k) got[(size_t)i * A.cols + hc[k]] = hv[k];
  report("DenseToSparse CSR f32", D, got, 0);
  // SparseToDense back, col major
  Dev<float> dE(D.size()); cusparseDnMatDescr_t me;
  CK(cusparseCreateDnMat(&me, A.rows, A.cols, A.rows, dE.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CK(cusparseSparseToDense_bufferSize(H, ms, me, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &ws)); Dev<char> w2(ws);
  CK(cusparseSparseToDense(H, ms, me, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, w2.p));
  auto e = dE.host(); std::vector<double> g2(D.size()); for (int i = 0; i < A.rows; ++i) for (int j = 0; j < A.cols; ++j) g2[(size_t)i * A.cols + j] = e[(size_t)j * A.rows + i];
  report("SparseToDense col-major f32", D, g2, 0);
}
void csr2csc(const Csr& A) {
  Dev<int> p(A.ptr), c(A.col), cp(A.cols + 1), ri(A.val.size()); Dev<float> v(cv<float>(A.val)), cvv(A.val.size());
  size_t ws = 0;
  CK(cusparseCsr2cscEx2_bufferSize(H, A.rows, A.cols, A.val.size(), v.p, p.p, c.p, cvv.p, cp.p, ri.p, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &ws)); Dev<char> w(ws);
  CK(cusparseCsr2cscEx2(H, A.rows, A.cols, A.val.size(), v.p, p.p, c.p, cvv.p, cp.p, ri.p, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, w.p));
  std::vector<double> ref, got; std::vector<std::vector<std::pair<int,double>>> cols(A.cols);
  for (int r = 0; r < A.rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) cols[A.col[k]].push_back({r, float(A.val[k])});
  ref.push_back(0); for (auto& cc : cols) ref.push_back(ref.back() + cc.size());
  for (auto& cc : cols) for (auto& e : cc) ref.push_back(e.first), ref.push_back(e.second);
  auto hp = cp.host(); auto hr = ri.host(); auto hv = cvv.host();
  for (int x : hp) got.push_back(x); for (size_t k = 0; k < hr.size(); ++k) got.push_back(hr[k]), got.push_back(hv[k]);
  report("Csr2cscEx2 ALG1 f32", ref, got, 0);
}
template <class T> void gtsv(int n, int batch, bool strided, const char* name) {
  std::vector<double> dl(n * batch), d(n * batch), du(n * batch), b(n * batch), x;
  for (int i = 0; i < n * batch; ++i) { dl[i] = (i % n) ? rnd() : 0; du[i] = (i % n != n - 1) ? rnd() : 0; d[i] = 3 + rnd(); b[i] = rnd(); }
  Dev<T> ddl(cv<T>(dl)), dd(cv<T>(d)), ddu(cv<T>(du)), db(cv<T>(b)); size_t ws = 0;
  if (!strided) {
    if (sizeof(T) == 4) { CK(cusparseSgtsv2_bufferSizeExt(H, n, batch, (float*)ddl.p, (float*)dd.p, (float*)ddu.p, (float*)db.p, n, &ws)); Dev<char> w(ws); CK(cusparseSgtsv2(H, n, batch, (float*)ddl.p, (float*)dd.p, (float*)ddu.p, (float*)db.p, n, w.p)); }
    else { CK(cusparseDgtsv2_bufferSizeExt(H, n, batch, (double*)ddl.p, (double*)dd.p, (double*)ddu.p, (double*)db.p, n, &ws)); Dev<char> w(ws); CK(cusparseDgtsv2(H, n, batch, (double*)ddl.p, (double*)dd.p, (double*)ddu.p, (double*)db.p, n, w.p)); }
  } else {
    CK(cusparseSgtsv2StridedBatch_bufferSizeExt(H, n, (float*)ddl.p, (float*)dd.p, (float*)ddu.p, (float*)db.p, batch, n, &ws)); Dev<char> w(ws);
    CK(cusparseSgtsv2StridedBatch(H, n, (float*)ddl.p, (float*)dd.p, (float*)ddu.p, (float*)db.p, batch, n, w.p));
  }
  auto xs = dbl(db.host()); std::vector<double> ax(n * batch);
  for (int j = 0; j < batch; ++j) for (int i = 0; i < n; ++i) { int o = j * n; int dj = strided ? o : 0; // non-strided: one matrix, many rhs
    double s = T(d[dj + i]) * xs[o + i]; if (i) s += T(dl[dj + i]) * xs[o + i - 1]; if (i < n - 1) s += T(du[dj + i]) * xs[o + i + 1]; ax[o + i] = s; }
  std::vector<double> bb(b.begin(), b.end()); for (auto& x : bb) x = T(x);
  report(name, bb, ax, sizeof(T) == 4 ? 1e-4 : 1e-10);
}
void sorts() {
  int rows = 300, cols = 400; Csr A = rcsr(rows, cols, 0.03);
  // shuffle columns within rows
  std::vector<int> col = A.col; std::vector<double> val = A.val;
  for (int r = 0; r < rows; ++r) for (int k = A.ptr[r + 1] - 1; k > A.ptr[r]; --k) { int j = A.ptr[r] + int((rnd() + 0.5) * (k - A.ptr[r] + 1)) % (k - A.ptr[r] + 1); std::swap(col[k], col[j]); std::swap(val[k], val[j]); }
  int nnz = A.col.size();
  Dev<int> p(A.ptr), c(col), perm(nnz); size_t ws = 0; cusparseMatDescr_t md; cusparseCreateMatDescr(&md);
  CK(cusparseXcsrsort_bufferSizeExt(H, rows, cols, nnz, p.p, c.p, &ws)); Dev<char> w(ws);
  CK(cusparseCreateIdentityPermutation(H, nnz, perm.p));
  CK(cusparseXcsrsort(H, rows, cols, nnz, md, p.p, c.p, perm.p, w.p));
  auto hc = c.host(); auto hp = perm.host(); std::vector<double> ref, got;
  for (int k = 0; k < nnz; ++k) { ref.push_back(A.col[k]); got.push_back(hc[k]); ref.push_back(A.val[k]); got.push_back(hp[k] >= 0 && hp[k] < nnz ? val[hp[k]] : 1e9); }
  report("Xcsrsort + identity permutation", ref, got, 0);
  // coo sort by row: shuffled (row, col) pairs
  std::vector<int> ri, ci; for (int r = 0; r < rows; ++r) for (int k = A.ptr[r]; k < A.ptr[r+1]; ++k) ri.push_back(r), ci.push_back(A.col[k]);
  std::vector<int> order(nnz); for (int i = 0; i < nnz; ++i) order[i] = i;
  for (int i = nnz - 1; i > 0; --i) std::swap(order[i], order[int((rnd() + 0.5) * (i + 1)) % (i + 1)]);
  std::vector<int> sr(nnz), sc(nnz); for (int i = 0; i < nnz; ++i) sr[i] = ri[order[i]], sc[i] = ci[order[i]];
  Dev<int> dr(sr), dc(sc), perm2(nnz);
  CK(cusparseXcoosort_bufferSizeExt(H, rows, cols, nnz, dr.p, dc.p, &ws)); Dev<char> w2(ws);
  CK(cusparseCreateIdentityPermutation(H, nnz, perm2.p));
  CK(cusparseXcoosortByRow(H, rows, cols, nnz, dr.p, dc.p, perm2.p, w2.p));
  auto gr = dr.host(), gc = dc.host(); ref.clear(); got.clear();
  for (int i = 0; i < nnz; ++i) { ref.push_back(ri[i]); got.push_back(gr[i]); }
  // columns within a row may be in any order: compare sorted per row
  std::vector<std::vector<int>> a(rows), b(rows); for (int i = 0; i < nnz; ++i) { a[ri[i]].push_back(ci[i]); if (gr[i] >= 0 && gr[i] < rows) b[gr[i]].push_back(gc[i]); }
  for (int r = 0; r < rows; ++r) { std::sort(a[r].begin(), a[r].end()); std::sort(b[r].begin(), b[r].end()); for (size_t k = 0; k < a[r].size(); ++k) { ref.push_back(a[r][k]); got.push_back(k < b[r].size() ? b[r][k] : -1); } }
  report("XcoosortByRow", ref, got, 0);
}
void vecops() {
  int n = 5000, nnz = 700; std::vector<int> idx; for (int i = 0; i < nnz; ++i) idx.push_back(i * 7 + 3);
  auto xv = rvec(nnz), y = rvec(n);
  Dev<int> di(idx); Dev<float> dxv(cv<float>(xv)), dy(cv<float>(y)), dg(nnz);
  cusparseSpVecDescr_t sx; cusparseDnVecDescr_t vy;
  CK(cusparseCreateSpVec(&sx, n, nnz, di.p, dxv.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateDnVec(&vy, n, dy.p, CUDA_R_32F));
  float al = 2, be = 0.5; CK(cusparseAxpby(H, &al, sx, &be, vy));
  std::vector<double> ref(n); for (int i = 0; i < n; ++i) ref[i] = 0.5 * float(y[i]); for (int i = 0; i < nnz; ++i) ref[idx[i]] += 2 * float(xv[i]);
  report("Axpby", ref, dbl(dy.host()), 1e-6);
  cusparseSpVecDescr_t sg; CK(cusparseCreateSpVec(&sg, n, nnz, di.p, dg.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseGather(H, vy, sg)); std::vector<double> r2; for (int i = 0; i < nnz; ++i) r2.push_back(float(ref[idx[i]]));
  report("Gather", r2, dbl(dg.host()), 1e-6);
  Dev<float> dz(n); cusparseDnVecDescr_t vz; CK(cusparseCreateDnVec(&vz, n, dz.p, CUDA_R_32F));
  CK(cusparseScatter(H, sx, vz)); std::vector<double> r3(n); for (int i = 0; i < nnz; ++i) r3[idx[i]] = float(xv[i]);
  report("Scatter", r3, dbl(dz.host()), 0);
  float dot = 0; size_t ws = 0; CK(cusparseSpVV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, sx, vz, &dot, CUDA_R_32F, &ws)); Dev<char> w(ws);
  CK(cusparseSpVV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, sx, vz, &dot, CUDA_R_32F, w.p)); double rd = 0; for (int i = 0; i < nnz; ++i) rd += float(xv[i]) * float(xv[i]);
  report("SpVV", {rd}, {dot}, 1e-5);
}
static const char* sel = nullptr;
static bool want(int i) { if (!sel) return true; char b[16]; snprintf(b, 16, ",%d,", i); std::string s = std::string(",") + sel + ","; return s.find(b) != std::string::npos; }
int main(int argc, char** argv) {
  sel = argc > 2 ? argv[2] : nullptr;
  CK(cusparseCreate(&H));
  int N = argc > 1 ? atoi(argv[1]) : 1000;
  Csr A = rcsr(N, N * 9 / 10, 0.01);
  if (want(0)) { spmv_csr<float>(A, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_OPERATION_NON_TRANSPOSE, "SpMV CSR f32 default"); }
  if (want(1)) { spmv_csr<float>(A, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_OPERATION_NON_TRANSPOSE, "SpMV CSR f32 ALG1"); }
  if (want(2)) { spmv_csr<float>(A, CUSPARSE_SPMV_CSR_ALG2, CUSPARSE_OPERATION_NON_TRANSPOSE, "SpMV CSR f32 ALG2"); }
  if (want(3)) { spmv_csr<float>(A, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_OPERATION_TRANSPOSE, "SpMV CSR f32 transposed"); }
  if (want(4)) { spmv_csr<double>(A, CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_OPERATION_NON_TRANSPOSE, "SpMV CSR f64"); }
  if (want(5)) { spmv_csr<double>(A, CUSPARSE_SPMV_CSR_ALG2, CUSPARSE_OPERATION_NON_TRANSPOSE, "SpMV CSR f64 ALG2"); }
  if (want(6)) { spmv_c32(A); }
  if (want(7)) { spmv_coo_csc(A, 0, CUSPARSE_SPMV_COO_ALG1, "SpMV COO f32 ALG1"); }
  if (want(8)) { spmv_coo_csc(A, 0, CUSPARSE_SPMV_COO_ALG2, "SpMV COO f32 ALG2"); }
  if (want(9)) { spmv_coo_csc(A, 1, CUSPARSE_SPMV_ALG_DEFAULT, "SpMV CSC f32 (transposed)"); }
  if (want(10)) { spmm(A, 0, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_ORDER_COL, "SpMM CSR col-major default"); }
  if (want(11)) { spmm(A, 0, CUSPARSE_SPMM_CSR_ALG1, CUSPARSE_ORDER_ROW, "SpMM CSR row-major ALG1"); }
  if (want(12)) { spmm(A, 0, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_ORDER_ROW, "SpMM CSR row-major ALG2"); }
  if (want(13)) { spmm(A, 0, CUSPARSE_SPMM_CSR_ALG3, CUSPARSE_ORDER_ROW, "SpMM CSR row-major ALG3"); }
  if (want(14)) { spmm(A, 1, CUSPARSE_SPMM_COO_ALG1, CUSPARSE_ORDER_COL, "SpMM COO col-major ALG1"); }
  if (want(15)) { spmm(A, 1, CUSPARSE_SPMM_COO_ALG4, CUSPARSE_ORDER_ROW, "SpMM COO row-major ALG4"); }
  if (want(16)) { spmm_bell(); }
  Csr B = rcsr(N * 9 / 10, N / 2, 0.01);
  if (want(17)) { spgemm(A, B); }
  Csr L = rcsr(N, N, 0.01, true);
  if (want(18)) { spsv(L, false); }
  if (want(19)) { spsv(L, true); }
  Csr S = rcsr(N / 2, N / 2, 0.02);
  if (want(20)) { sddmm(S); }
  if (want(21)) { dense_sparse(S); }
  if (want(22)) { csr2csc(A); }
  if (want(23)) { gtsv<float>(N, 4, false, "gtsv2 f32"); }
  if (want(24)) { gtsv<double>(N, 4, false, "gtsv2 f64"); }
  if (want(25)) { gtsv<float>(N / 2, 16, true, "gtsv2StridedBatch f32"); }
  if (want(26)) { sorts(); }
  if (want(27)) { vecops(); }
  cusparseDestroy(H);
  return 0;
}
