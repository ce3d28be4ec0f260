// cuSPARSE's generic API against CPU references in double: SpMV with a CSR and a COO matrix
// (non-transposed and transposed), SpMM (CSR times a dense matrix), the CSR-to-CSC conversion,
// dense-to-sparse, a triangular solve (SpSV) and SpGEMM (CSR times CSR). Each line says whether
// every call succeeded and the result is within a relative bound (float 1e-5), so the expected output
// is the same on any correct GPU.
#include <cusparse.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>

static uint32_t rng = 7;
static double next_value() {
  rng = rng * 1664525u + 1013904223u;
  return double(rng >> 8) / double(1u << 24) - 0.5;
}
static bool failed = false;
static int status = 0;  // the first failing cuSPARSE status of the current case
#define SP(x)                                        \
  do {                                               \
    cusparseStatus_t s_ = (x);                       \
    if (s_ != CUSPARSE_STATUS_SUCCESS && !status) {  \
      status = int(s_);                              \
      std::printf("  %s: status %d\n", #x, status);  \
    }                                                \
  } while (0)
static void report(const char* what, const std::vector<double>& ref, const std::vector<double>& got, double bound) {
  double maxref = 0, maxerr = 0;
  for (size_t i = 0; i < ref.size() && i < got.size(); ++i)
    maxref = std::max(maxref, std::fabs(ref[i])), maxerr = std::max(maxerr, std::fabs(ref[i] - got[i]));
  double rel = maxerr / (maxref > 0 ? maxref : 1);
  bool ok = !status && rel <= bound && ref.size() == got.size();
  std::printf("%-40s %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) std::printf("  relative error %.3g > %.3g, %zu vs %zu values\n", rel, bound, got.size(), ref.size()), failed = true;
  status = 0;
}

template <class T>
struct Dev {
  T* p = nullptr;
  size_t n;
  explicit Dev(size_t count) : n(count) { cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)); cudaMemset(p, 0, n * sizeof(T)); }
  explicit Dev(const std::vector<T>& h) : Dev(h.size()) { cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice); }
  std::vector<double> get() const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return std::vector<double>(h.begin(), h.end());
  }
  ~Dev() { cudaFree(p); }
};

// A random rows x cols CSR matrix with about `density` of its entries set.
struct Csr {
  int rows, cols;
  std::vector<int> ptr, col;
  std::vector<float> val;
  double at(int r, int c) const {
    for (int k = ptr[r]; k < ptr[r + 1]; ++k)
      if (col[k] == c) return val[k];
    return 0;
  }
};
static Csr random_csr(int rows, int cols, double density, bool lower_unit_dominant = false) {
  Csr m{rows, cols, {0}, {}, {}};
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      bool on = lower_unit_dominant ? (c < r && next_value() + 0.5 < density) || c == r : next_value() + 0.5 < density;
      if (!on) continue;
      m.col.push_back(c);
      m.val.push_back(lower_unit_dominant && c == r ? 4.0f + float(next_value()) : float(next_value()));
    }
    m.ptr.push_back(int(m.col.size()));
  }
  return m;
}

int main() {
  cusparseHandle_t h;
  if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS) {
    std::printf("cusparseCreate failed\n");
    return 1;
  }
  const int rows = 300, cols = 200;
  Csr a = random_csr(rows, cols, 0.05);
  Dev<int> dptr(a.ptr), dcol(a.col);
  Dev<float> dval(a.val);
  std::vector<float> x(cols), xt(rows);
  for (auto& v : x) v = float(next_value());
  for (auto& v : xt) v = float(next_value());
  cusparseSpMatDescr_t A;
  SP(cusparseCreateCsr(&A, rows, cols, int64_t(a.val.size()), dptr.p, dcol.p, dval.p, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  const float one = 1, zero = 0, two = 2;
  auto spmv = [&](cusparseSpMatDescr_t m, cusparseOperation_t op, const std::vector<float>& in, int out_n, float beta) {
    Dev<float> din(in), dout(std::vector<float>(size_t(out_n), 1.0f));
    cusparseDnVecDescr_t X, Y;
    SP(cusparseCreateDnVec(&X, int64_t(in.size()), din.p, CUDA_R_32F));
    SP(cusparseCreateDnVec(&Y, out_n, dout.p, CUDA_R_32F));
    size_t bytes = 0;
    SP(cusparseSpMV_bufferSize(h, op, &two, m, X, &beta, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    Dev<char> buf{bytes};
    SP(cusparseSpMV(h, op, &two, m, X, &beta, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf.p));
    cusparseDestroyDnVec(X);
    cusparseDestroyDnVec(Y);
    return dout.get();
  };
  {
    std::vector<double> want(rows);
    for (int r = 0; r < rows; ++r) {
      double s = 0;
      for (int k = a.ptr[r]; k < a.ptr[r + 1]; ++k) s += double(a.val[k]) * x[a.col[k]];
      want[r] = 2 * s + 0.5;
    }
    report("SpMV CSR 300x200, y = 2 A x + 0.5 y", want, spmv(A, CUSPARSE_OPERATION_NON_TRANSPOSE, x, rows, 0.5f), 1e-5);
    std::vector<double> wt(cols, 0);
    for (int r = 0; r < rows; ++r)
      for (int k = a.ptr[r]; k < a.ptr[r + 1]; ++k) wt[a.col[k]] += 2.0 * a.val[k] * xt[r];
    report("SpMV CSR transposed, y = 2 A^T x", wt, spmv(A, CUSPARSE_OPERATION_TRANSPOSE, xt, cols, 0.0f), 1e-5);
    // The same matrix as COO.
    std::vector<int> rowind;
    for (int r = 0; r < rows; ++r)
      for (int k = a.ptr[r]; k < a.ptr[r + 1]; ++k) rowind.push_back(r);
    Dev<int> drow(rowind);
    cusparseSpMatDescr_t C;
    SP(cusparseCreateCoo(&C, rows, cols, int64_t(a.val.size()), drow.p, dcol.p, dval.p, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    report("SpMV COO, y = 2 A x + 0.5 y", want, spmv(C, CUSPARSE_OPERATION_NON_TRANSPOSE, x, rows, 0.5f), 1e-5);
    cusparseDestroySpMat(C);
  }
  {  // SpMM: C (300 x 8, column-major) = A B.
    const int k = 8;
    std::vector<float> b(size_t(cols) * k);
    for (auto& v : b) v = float(next_value());
    Dev<float> db(b), dc{size_t(rows) * k};
    cusparseDnMatDescr_t B, Cm;
    SP(cusparseCreateDnMat(&B, cols, k, cols, db.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
    SP(cusparseCreateDnMat(&Cm, rows, k, rows, dc.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
    size_t bytes = 0;
    SP(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, B, &zero,
                               Cm, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
    Dev<char> buf{bytes};
    SP(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, B, &zero, Cm,
                    CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buf.p));
    std::vector<double> want(size_t(rows) * k, 0);
    for (int j = 0; j < k; ++j)
      for (int r = 0; r < rows; ++r)
        for (int q = a.ptr[r]; q < a.ptr[r + 1]; ++q) want[size_t(j) * rows + r] += double(a.val[q]) * b[size_t(j) * cols + a.col[q]];
    report("SpMM CSR 300x200 times 200x8", want, dc.get(), 1e-5);
    cusparseDestroyDnMat(B);
    cusparseDestroyDnMat(Cm);
  }
  {  // CSR to CSC (the transpose's CSR): column pointers, row indices and values.
    const int nnz = int(a.val.size());
    Dev<int> cptr{size_t(cols + 1)}, crow{size_t(nnz)};
    Dev<float> cval{size_t(nnz)};
    size_t bytes = 0;
    SP(cusparseCsr2cscEx2_bufferSize(h, rows, cols, nnz, dval.p, dptr.p, dcol.p, cval.p, cptr.p, crow.p, CUDA_R_32F,
                                     CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
    Dev<char> buf{bytes};
    SP(cusparseCsr2cscEx2(h, rows, cols, nnz, dval.p, dptr.p, dcol.p, cval.p, cptr.p, crow.p, CUDA_R_32F,
                          CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf.p));
    std::vector<double> want, got;
    std::vector<int> count(cols + 1, 0);
    for (int c : a.col) ++count[c + 1];
    for (int c = 0; c < cols; ++c) count[c + 1] += count[c];
    for (int c = 0; c <= cols; ++c) want.push_back(count[c]);
    for (int c = 0; c < cols; ++c)  // rows in increasing order within a column, as CSC is sorted
      for (int r = 0; r < rows; ++r)
        if (double v = a.at(r, c); v != 0) want.push_back(r), want.push_back(v);
    auto p = cptr.get(), ri = crow.get(), v = cval.get();
    got = p;
    for (int q = 0; q < nnz; ++q) got.push_back(ri[q]), got.push_back(v[q]);
    report("Csr2cscEx2 300x200", want, got, 0);
  }
  {  // Dense (column-major 40 x 30) to CSR.
    const int m = 40, n = 30;
    std::vector<float> d(size_t(m) * n, 0);
    for (auto& v : d)
      if (next_value() > 0.3) v = float(next_value());
    Dev<float> dd(d);
    Dev<int> sptr{size_t(m + 1)};
    cusparseDnMatDescr_t D;
    cusparseSpMatDescr_t Sp;
    SP(cusparseCreateDnMat(&D, m, n, m, dd.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
    SP(cusparseCreateCsr(&Sp, m, n, 0, sptr.p, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    size_t bytes = 0;
    SP(cusparseDenseToSparse_bufferSize(h, D, Sp, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &bytes));
    Dev<char> buf{bytes};
    SP(cusparseDenseToSparse_analysis(h, D, Sp, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf.p));
    int64_t r64, c64, nnz = 0;
    SP(cusparseSpMatGetSize(Sp, &r64, &c64, &nnz));
    Dev<int> scol{size_t(nnz)};
    Dev<float> sval{size_t(nnz)};
    SP(cusparseCsrSetPointers(Sp, sptr.p, scol.p, sval.p));
    SP(cusparseDenseToSparse_convert(h, D, Sp, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf.p));
    std::vector<double> want, got = sptr.get();
    int count = 0;
    want.push_back(0);
    for (int r = 0; r < m; ++r) {
      for (int c = 0; c < n; ++c) count += d[size_t(c) * m + r] != 0;
      want.push_back(count);
    }
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c)
        if (d[size_t(c) * m + r] != 0) want.push_back(c), want.push_back(d[size_t(c) * m + r]);
    auto ci = scol.get(), cv = sval.get();
    for (int64_t q = 0; q < nnz; ++q) got.push_back(ci[q]), got.push_back(cv[q]);
    report("DenseToSparse 40x30 to CSR", want, got, 0);
    cusparseDestroyDnMat(D);
    cusparseDestroySpMat(Sp);
  }
  {  // SpSV: L y = x for a sparse lower-triangular, diagonally dominant L.
    const int n = 150;
    Csr l = random_csr(n, n, 0.04, true);
    Dev<int> lp(l.ptr), lc(l.col);
    Dev<float> lv(l.val);
    std::vector<float> rhs(n);
    for (auto& v : rhs) v = float(next_value());
    Dev<float> drhs(rhs), dy{size_t(n)};
    cusparseSpMatDescr_t L;
    SP(cusparseCreateCsr(&L, n, n, int64_t(l.val.size()), lp.p, lc.p, lv.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    SP(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    SP(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    cusparseDnVecDescr_t X, Y;
    SP(cusparseCreateDnVec(&X, n, drhs.p, CUDA_R_32F));
    SP(cusparseCreateDnVec(&Y, n, dy.p, CUDA_R_32F));
    cusparseSpSVDescr_t sv;
    SP(cusparseSpSV_createDescr(&sv));
    size_t bytes = 0;
    SP(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, X, Y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, sv, &bytes));
    Dev<char> buf{bytes};
    SP(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, X, Y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, sv, buf.p));
    SP(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, X, Y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, sv));
    std::vector<double> want(n);
    for (int r = 0; r < n; ++r) {
      double s = rhs[r], d = 1;
      for (int k = l.ptr[r]; k < l.ptr[r + 1]; ++k)
        if (l.col[k] < r) s -= double(l.val[k]) * want[l.col[k]];
        else if (l.col[k] == r) d = l.val[k];
      want[r] = s / d;
    }
    report("SpSV lower triangular 150", want, dy.get(), 1e-5);
    cusparseSpSV_destroyDescr(sv);
    cusparseDestroyDnVec(X);
    cusparseDestroyDnVec(Y);
    cusparseDestroySpMat(L);
  }
  {  // SpGEMM: C = A B with A 300x200 (above) and B 200x120, both CSR; compared as dense.
    const int n = 120;
    Csr b = random_csr(cols, n, 0.05);
    Dev<int> bp(b.ptr), bc(b.col);
    Dev<float> bv(b.val);
    Dev<int> cp{size_t(rows + 1)};
    cusparseSpMatDescr_t B, C;
    SP(cusparseCreateCsr(&B, cols, n, int64_t(b.val.size()), bp.p, bc.p, bv.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SP(cusparseCreateCsr(&C, rows, n, 0, cp.p, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    cusparseSpGEMMDescr_t g;
    SP(cusparseSpGEMM_createDescr(&g));
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t b1 = 0, b2 = 0;
    SP(cusparseSpGEMM_workEstimation(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &b1, nullptr));
    Dev<char> w1{b1};
    SP(cusparseSpGEMM_workEstimation(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &b1, w1.p));
    SP(cusparseSpGEMM_compute(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &b2, nullptr));
    Dev<char> w2{b2};
    SP(cusparseSpGEMM_compute(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &b2, w2.p));
    int64_t r64, c64, nnz = 0;
    SP(cusparseSpMatGetSize(C, &r64, &c64, &nnz));
    Dev<int> cc{size_t(nnz)};
    Dev<float> cv{size_t(nnz)};
    SP(cusparseCsrSetPointers(C, cp.p, cc.p, cv.p));
    SP(cusparseSpGEMM_copy(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g));
    std::vector<double> want(size_t(rows) * n, 0), got(size_t(rows) * n, 0);
    for (int r = 0; r < rows; ++r)
      for (int k = a.ptr[r]; k < a.ptr[r + 1]; ++k)
        for (int q = b.ptr[a.col[k]]; q < b.ptr[a.col[k] + 1]; ++q) want[size_t(r) * n + b.col[q]] += double(a.val[k]) * b.val[q];
    auto p = cp.get(), ci = cc.get(), v = cv.get();
    for (int r = 0; r < rows; ++r)
      for (int k = int(p[r]); k < int(p[r + 1]) && k < nnz; ++k) got[size_t(r) * n + int(ci[k])] += v[k];
    report("SpGEMM CSR 300x200 times 200x120", want, got, 1e-5);
    cusparseSpGEMM_destroyDescr(g);
    cusparseDestroySpMat(B);
    cusparseDestroySpMat(C);
  }
  cusparseDestroySpMat(A);
  cusparseDestroy(h);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", cudaGetErrorString(e));
  return failed || e != cudaSuccess ? 1 : 0;
}
