// cuSPARSE beyond tests/cudart/cusparse_host.cu, each against a CPU reference in double:
// SpMM with CSR_ALG3 (its kernel has lanes leave a loop that syncs the warp and sync again after
// it: bar.warp.sync at two places, which sm_70+ lets meet), SpMM on Blocked-ELL matrices (f32,
// f64, f16 with f32 C; row- and column-major B and C; libcusparse's kernel for them is a SASS-only
// CUTLASS one, so warpsim's preload runs its own), SpMM COO row-major, SpSM, SDDMM, gtsv2 and its
// strided batches, csrsort and coosort, and the sparse-vector axpby/gather/scatter. Each line says
// whether every call succeeded and the result is within a relative bound, so the output is the
// same on any correct GPU; the H100 computes f32 Blocked-ELL products in TF32 (its CUTLASS kernel),
// hence their looser bound.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "lib_check.hpp"
template <class T>
std::vector<T> to(const std::vector<double>& v) {
  std::vector<T> o(v.size());
  for (size_t i = 0; i < v.size(); ++i) o[i] = T(v[i]);
  return o;
}
template <class T>
std::vector<double> dbl(const std::vector<T>& v) {
  std::vector<double> o(v.size());
  for (size_t i = 0; i < v.size(); ++i) o[i] = double(v[i]);
  return o;
}
static std::vector<double> dbl(const std::vector<__half>& v) {
  std::vector<double> o(v.size());
  for (size_t i = 0; i < v.size(); ++i) o[i] = __half2float(v[i]);
  return o;
}

struct Csr {
  int rows, cols;
  std::vector<int> ptr, col;
  std::vector<double> val;  // float-representable
};
static Csr rcsr(int rows, int cols, double dens, bool lower = false) {
  Csr m{rows, cols, {0}, {}, {}};
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const bool on = lower ? (c < r && rnd() + 0.5 < dens) || c == r : rnd() + 0.5 < dens;
      if (!on) continue;
      m.col.push_back(c);
      m.val.push_back(float(lower && c == r ? 4 + rnd() : rnd()));
    }
    m.ptr.push_back(int(m.col.size()));
  }
  return m;
}
static cusparseHandle_t H;

// C = A B, A CSR or COO, B and C dense of n columns in `order`.
static void spmm(const Csr& A, bool coo, cusparseSpMMAlg_t alg, cusparseOrder_t order, const char* name) {
  const int n = 24;
  auto B = to<float>(rvec(size_t(A.cols) * n));
  std::vector<int> rowi;
  for (int r = 0; r < A.rows; ++r)
    for (int k = A.ptr[r]; k < A.ptr[r + 1]; ++k) rowi.push_back(r);
  Dev<int> ri(rowi), c(A.col), p(A.ptr);
  Dev<float> v(to<float>(A.val)), dB(B), dC(size_t(A.rows) * n);
  cusparseSpMatDescr_t m;
  cusparseDnMatDescr_t mb, mc;
  if (!coo)
    CK(cusparseCreateCsr(&m, A.rows, A.cols, int64_t(A.val.size()), p.p, c.p, v.p, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  else
    CK(cusparseCreateCoo(&m, A.rows, A.cols, int64_t(A.val.size()), ri.p, c.p, v.p, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  const bool row = order == CUSPARSE_ORDER_ROW;
  CK(cusparseCreateDnMat(&mb, A.cols, n, row ? n : A.cols, dB.p, CUDA_R_32F, order));
  CK(cusparseCreateDnMat(&mc, A.rows, n, row ? n : A.rows, dC.p, CUDA_R_32F, order));
  const float al = 1.5f, be = 0;
  size_t ws = 0;
  const auto N = CUSPARSE_OPERATION_NON_TRANSPOSE;
  CK(cusparseSpMM_bufferSize(H, N, N, &al, m, mb, &be, mc, CUDA_R_32F, alg, &ws));
  Dev<char> w(ws);
  if (alg == CUSPARSE_SPMM_CSR_ALG3) CK(cusparseSpMM_preprocess(H, N, N, &al, m, mb, &be, mc, CUDA_R_32F, alg, w.p));
  CK(cusparseSpMM(H, N, N, &al, m, mb, &be, mc, CUDA_R_32F, alg, w.p));
  std::vector<double> ref(size_t(A.rows) * n);
  for (int r = 0; r < A.rows; ++r)
    for (int k = A.ptr[r]; k < A.ptr[r + 1]; ++k)
      for (int j = 0; j < n; ++j)
        ref[row ? size_t(r) * n + j : size_t(j) * A.rows + r] +=
            1.5 * A.val[k] * double(row ? B[size_t(A.col[k]) * n + j] : B[size_t(j) * A.cols + A.col[k]]);
  report(name, ref, dbl(dC.host()), 1e-5);
  cusparseDestroySpMat(m);
  cusparseDestroyDnMat(mb);
  cusparseDestroyDnMat(mc);
}

// C = alpha op(A) op(B) + beta C with A in Blocked-ELL (some blocks padding, -1).
template <class V, class C>
static void bell(int rows, int cols, int bs, int blocks_per_row, int n, cusparseOperation_t opB, cusparseOrder_t border,
                 cusparseOrder_t corder, cudaDataType vt, cudaDataType ct, cudaDataType compute, double bound,
                 const char* name) {
  const int brow = rows / bs, ellcols = blocks_per_row * bs;
  std::vector<int> colind(size_t(brow) * blocks_per_row);
  for (int b = 0; b < brow; ++b)
    for (int j = 0; j < blocks_per_row; ++j)
      colind[size_t(b) * blocks_per_row + j] = (b + j) % 5 == 4 ? -1 : (b * 3 + j * 7) % (cols / bs);
  // Values representable in V, so the reference sums exactly what the GPU multiplies.
  auto rep = [](double x) { return double(V(float(x))); };
  std::vector<double> val(size_t(rows) * ellcols), B(size_t(cols) * n), C0(size_t(rows) * n);
  // A padding block's values are zeros, as programs store them: cuSPARSE documents -1 as an empty
  // block, and our H100 does not simply skip one whose stored values are not zero.
  for (int i = 0; i < rows; ++i)
    for (int e = 0; e < ellcols; ++e)
      val[size_t(i) * ellcols + e] = colind[size_t(i / bs) * blocks_per_row + e / bs] < 0 ? 0 : rep(rnd());
  for (auto& x : B) x = rep(rnd());
  for (auto& x : C0) x = double(C(float(rnd())));
  const bool bt = opB == CUSPARSE_OPERATION_TRANSPOSE;
  const int bld_rows = bt ? n : cols, bld_cols = bt ? cols : n;  // B's stored shape
  const bool brow_major = border == CUSPARSE_ORDER_ROW, crow_major = corder == CUSPARSE_ORDER_ROW;
  const int64_t ldb = brow_major ? bld_cols : bld_rows, ldc = crow_major ? n : rows;
  // B stored: op(B)(c, j) at stored (c, j) or (j, c).
  std::vector<double> Bs(B.size());
  auto b_at = [&](int c, int j) -> size_t {
    const int r = bt ? j : c, cc = bt ? c : j;
    return brow_major ? size_t(r) * ldb + cc : size_t(cc) * ldb + r;
  };
  auto c_at = [&](int i, int j) -> size_t { return crow_major ? size_t(i) * ldc + j : size_t(j) * ldc + i; };
  for (int c = 0; c < cols; ++c)
    for (int j = 0; j < n; ++j) Bs[b_at(c, j)] = B[size_t(c) * n + j];
  const double alpha = 0.75, beta = -0.5;
  std::vector<double> ref(size_t(rows) * n);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int e = 0; e < ellcols; ++e) {
        const int blk = colind[size_t(i / bs) * blocks_per_row + e / bs];
        if (blk < 0) continue;
        s += val[size_t(i) * ellcols + e] * B[size_t(blk * bs + e % bs) * n + j];
      }
      ref[c_at(i, j)] = alpha * s + beta * C0[c_at(i, j)];
    }
  std::vector<double> C0s(C0.size());
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) C0s[c_at(i, j)] = C0[c_at(i, j)];
  Dev<int> ci(colind);
  Dev<V> dv(to<V>(val)), dB(to<V>(Bs));
  Dev<C> dC(to<C>(C0s));
  cusparseSpMatDescr_t m;
  cusparseDnMatDescr_t mb, mc;
  CK(cusparseCreateBlockedEll(&m, rows, cols, bs, ellcols, ci.p, dv.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
  CK(cusparseCreateDnMat(&mb, bld_rows, bld_cols, ldb, dB.p, vt, border));
  CK(cusparseCreateDnMat(&mc, rows, n, ldc, dC.p, ct, corder));
  const auto N = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t ws = 0;
  if (compute == CUDA_R_64F) {
    const double al = alpha, be = beta;
    CK(cusparseSpMM_bufferSize(H, N, opB, &al, m, mb, &be, mc, compute, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, &ws));
    Dev<char> w(ws);
    CK(cusparseSpMM(H, N, opB, &al, m, mb, &be, mc, compute, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, w.p));
  } else {
    const float al = float(alpha), be = float(beta);
    CK(cusparseSpMM_bufferSize(H, N, opB, &al, m, mb, &be, mc, compute, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, &ws));
    Dev<char> w(ws);
    CK(cusparseSpMM(H, N, opB, &al, m, mb, &be, mc, compute, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, w.p));
  }
  CK(cudaDeviceSynchronize());
  report(name, ref, dbl(dC.host()), bound);
  cusparseDestroySpMat(m);
  cusparseDestroyDnMat(mb);
  cusparseDestroyDnMat(mc);
}

// L X = B for 6 right-hand sides, L lower triangular (SpSM).
static void spsm(const Csr& L) {
  const int n = L.rows, nr = 6;
  auto b = to<float>(rvec(size_t(n) * nr));
  Dev<int> p(L.ptr), c(L.col);
  Dev<float> v(to<float>(L.val)), db(b), dx(size_t(n) * nr);
  cusparseSpMatDescr_t m;
  CK(cusparseCreateCsr(&m, n, n, int64_t(L.val.size()), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  cusparseFillMode_t fm = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t dg = CUSPARSE_DIAG_TYPE_NON_UNIT;
  CK(cusparseSpMatSetAttribute(m, CUSPARSE_SPMAT_FILL_MODE, &fm, sizeof fm));
  CK(cusparseSpMatSetAttribute(m, CUSPARSE_SPMAT_DIAG_TYPE, &dg, sizeof dg));
  cusparseDnMatDescr_t vb, vx;
  CK(cusparseCreateDnMat(&vb, n, nr, n, db.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CK(cusparseCreateDnMat(&vx, n, nr, n, dx.p, CUDA_R_32F, CUSPARSE_ORDER_COL));
  cusparseSpSMDescr_t d;
  CK(cusparseSpSM_createDescr(&d));
  const float al = 1;
  size_t ws = 0;
  const auto N = CUSPARSE_OPERATION_NON_TRANSPOSE;
  CK(cusparseSpSM_bufferSize(H, N, N, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, d, &ws));
  Dev<char> w(ws);
  CK(cusparseSpSM_analysis(H, N, N, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, d, w.p));
  CK(cusparseSpSM_solve(H, N, N, &al, m, vb, vx, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, d));
  auto x = dbl(dx.host());
  std::vector<double> lx(size_t(n) * nr);
  for (int j = 0; j < nr; ++j)
    for (int r = 0; r < n; ++r)
      for (int k = L.ptr[r]; k < L.ptr[r + 1]; ++k) lx[size_t(j) * n + r] += L.val[k] * x[size_t(j) * n + L.col[k]];
  report("SpSM CSR lower, 6 right-hand sides", dbl(b), lx, 1e-4);
  cusparseSpSM_destroyDescr(d);
  cusparseDestroySpMat(m);
  cusparseDestroyDnMat(vb);
  cusparseDestroyDnMat(vx);
}

// S = alpha (A B) .* pattern(S) + beta S.
static void sddmm(const Csr& S) {
  const int k = 16;
  auto A = to<float>(rvec(size_t(S.rows) * k)), B = to<float>(rvec(size_t(k) * S.cols));
  Dev<int> p(S.ptr), c(S.col);
  Dev<float> v(to<float>(S.val)), dA(A), dB(B);
  cusparseSpMatDescr_t m;
  cusparseDnMatDescr_t ma, mb;
  CK(cusparseCreateCsr(&m, S.rows, S.cols, int64_t(S.val.size()), p.p, c.p, v.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateDnMat(&ma, S.rows, k, k, dA.p, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CK(cusparseCreateDnMat(&mb, k, S.cols, S.cols, dB.p, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  const float al = 1, be = 0.5f;
  size_t ws = 0;
  const auto N = CUSPARSE_OPERATION_NON_TRANSPOSE;
  CK(cusparseSDDMM_bufferSize(H, N, N, &al, ma, mb, &be, m, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &ws));
  Dev<char> w(ws);
  CK(cusparseSDDMM_preprocess(H, N, N, &al, ma, mb, &be, m, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, w.p));
  CK(cusparseSDDMM(H, N, N, &al, ma, mb, &be, m, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, w.p));
  std::vector<double> ref(S.val.size());
  for (int r = 0; r < S.rows; ++r)
    for (int q = S.ptr[r]; q < S.ptr[r + 1]; ++q) {
      double s = 0;
      for (int l = 0; l < k; ++l) s += double(A[size_t(r) * k + l]) * B[size_t(l) * S.cols + S.col[q]];
      ref[q] = s + 0.5 * S.val[q];
    }
  report("SDDMM CSR", ref, dbl(v.host()), 1e-5);
  cusparseDestroySpMat(m);
  cusparseDestroyDnMat(ma);
  cusparseDestroyDnMat(mb);
}

// Tridiagonal systems: one matrix with 3 right-hand sides (gtsv2), 8 systems (gtsv2StridedBatch).
static void gtsv(int n, int batch, bool strided) {
  std::vector<double> dl(size_t(n) * batch), d(dl.size()), du(dl.size()), b(dl.size());
  for (size_t i = 0; i < dl.size(); ++i) {
    dl[i] = i % n ? float(rnd()) : 0;
    du[i] = i % n != size_t(n - 1) ? float(rnd()) : 0;
    d[i] = float(3 + rnd());
    b[i] = float(rnd());
  }
  Dev<float> ddl(to<float>(dl)), dd(to<float>(d)), ddu(to<float>(du)), db(to<float>(b));
  size_t ws = 0;
  if (!strided) {
    CK(cusparseSgtsv2_bufferSizeExt(H, n, batch, ddl.p, dd.p, ddu.p, db.p, n, &ws));
    Dev<char> w(ws);
    CK(cusparseSgtsv2(H, n, batch, ddl.p, dd.p, ddu.p, db.p, n, w.p));
  } else {
    CK(cusparseSgtsv2StridedBatch_bufferSizeExt(H, n, ddl.p, dd.p, ddu.p, db.p, batch, n, &ws));
    Dev<char> w(ws);
    CK(cusparseSgtsv2StridedBatch(H, n, ddl.p, dd.p, ddu.p, db.p, batch, n, w.p));
  }
  auto x = dbl(db.host());
  std::vector<double> ax(x.size());
  for (int j = 0; j < batch; ++j)
    for (int i = 0; i < n; ++i) {
      const size_t o = size_t(j) * n, m = strided ? o : 0;  // gtsv2: one matrix for every column
      double s = d[m + i] * x[o + i];
      if (i) s += dl[m + i] * x[o + i - 1];
      if (i < n - 1) s += du[m + i] * x[o + i + 1];
      ax[o + i] = s;
    }
  report(strided ? "gtsv2StridedBatch, 8 systems" : "gtsv2, 3 right-hand sides", b, ax, 1e-4);
}

// csrsort (with a permutation applied to the values) and coosortByRow.
static void sorts() {
  const int rows = 200, cols = 300;
  Csr A = rcsr(rows, cols, 0.04);
  std::vector<int> col = A.col;
  std::vector<double> val = A.val;
  for (int r = 0; r < rows; ++r)
    for (int k = A.ptr[r + 1] - 1; k > A.ptr[r]; --k) {
      const int span = k - A.ptr[r] + 1, j = A.ptr[r] + int((rnd() + 0.5) * span) % span;
      std::swap(col[k], col[j]);
      std::swap(val[k], val[j]);
    }
  const int nnz = int(A.col.size());
  Dev<int> p(A.ptr), c(col), perm(nnz);
  size_t ws = 0;
  cusparseMatDescr_t md;
  CK(cusparseCreateMatDescr(&md));
  CK(cusparseXcsrsort_bufferSizeExt(H, rows, cols, nnz, p.p, c.p, &ws));
  Dev<char> w(ws);
  std::vector<int> id(nnz);
  for (int i = 0; i < nnz; ++i) id[i] = i;
  CK(cudaMemcpy(perm.p, id.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CK(cusparseXcsrsort(H, rows, cols, nnz, md, p.p, c.p, perm.p, w.p));
  auto hc = c.host(), hp = perm.host();
  std::vector<double> ref, got;
  for (int k = 0; k < nnz; ++k) {
    ref.push_back(A.col[k]), got.push_back(hc[k]);
    ref.push_back(A.val[k]), got.push_back(hp[k] >= 0 && hp[k] < nnz ? val[hp[k]] : 1e9);
  }
  report("Xcsrsort with its permutation", ref, got, 0);
  cusparseDestroyMatDescr(md);
  std::vector<int> ri, ci;
  for (int r = 0; r < rows; ++r)
    for (int k = A.ptr[r]; k < A.ptr[r + 1]; ++k) ri.push_back(r), ci.push_back(A.col[k]);
  std::vector<int> order(nnz);
  for (int i = 0; i < nnz; ++i) order[i] = i;
  for (int i = nnz - 1; i > 0; --i) std::swap(order[i], order[int((rnd() + 0.5) * (i + 1)) % (i + 1)]);
  std::vector<int> sr(nnz), sc(nnz);
  for (int i = 0; i < nnz; ++i) sr[i] = ri[order[i]], sc[i] = ci[order[i]];
  Dev<int> dr(sr), dc(sc), perm2(nnz);
  CK(cusparseXcoosort_bufferSizeExt(H, rows, cols, nnz, dr.p, dc.p, &ws));
  Dev<char> w2(ws);
  CK(cudaMemcpy(perm2.p, id.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CK(cusparseXcoosortByRow(H, rows, cols, nnz, dr.p, dc.p, perm2.p, w2.p));
  auto gr = dr.host(), gc = dc.host(), gp = perm2.host();
  ref.clear(), got.clear();
  // Rows in order; each entry's column is the one its permutation index names.
  for (int i = 0; i < nnz; ++i) {
    ref.push_back(ri[i]), got.push_back(gr[i]);
    ref.push_back(gp[i] >= 0 && gp[i] < nnz ? sc[gp[i]] : -1), got.push_back(gc[i]);
    ref.push_back(gp[i] >= 0 && gp[i] < nnz ? sr[gp[i]] : -1), got.push_back(gr[i]);
  }
  report("XcoosortByRow with its permutation", ref, got, 0);
}

// y = 2 x + 0.5 y (x sparse), gather y at x's indices, scatter x into zeros.
static void vector_ops() {
  const int n = 3000, nnz = 400;
  std::vector<int> idx;
  for (int i = 0; i < nnz; ++i) idx.push_back(i * 7 + 3);
  auto xv = to<float>(rvec(nnz)), y = to<float>(rvec(n));
  Dev<int> di(idx);
  Dev<float> dxv(xv), dy(y), dg(nnz), dz(n);
  cusparseSpVecDescr_t sx, sg;
  cusparseDnVecDescr_t vy, vz;
  CK(cusparseCreateSpVec(&sx, n, nnz, di.p, dxv.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateSpVec(&sg, n, nnz, di.p, dg.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateDnVec(&vy, n, dy.p, CUDA_R_32F));
  CK(cusparseCreateDnVec(&vz, n, dz.p, CUDA_R_32F));
  const float al = 2, be = 0.5f;
  CK(cusparseAxpby(H, &al, sx, &be, vy));
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = 0.5 * y[i];
  for (int i = 0; i < nnz; ++i) ref[idx[i]] += 2.0 * xv[i];
  report("Axpby", ref, dbl(dy.host()), 1e-6);
  CK(cusparseGather(H, vy, sg));
  std::vector<double> r2;
  for (int i = 0; i < nnz; ++i) r2.push_back(ref[idx[i]]);
  report("Gather", r2, dbl(dg.host()), 1e-6);
  CK(cusparseScatter(H, sx, vz));
  std::vector<double> r3(n);
  for (int i = 0; i < nnz; ++i) r3[idx[i]] = xv[i];
  report("Scatter", r3, dbl(dz.host()), 0);
  cusparseDestroySpVec(sx);
  cusparseDestroySpVec(sg);
  cusparseDestroyDnVec(vy);
  cusparseDestroyDnVec(vz);
}

int main() {
  rng = 11;
  if (cusparseCreate(&H) != CUSPARSE_STATUS_SUCCESS) {
    std::printf("cusparseCreate failed\n");
    return 1;
  }
  Csr A = rcsr(480, 400, 0.02);
  spmm(A, false, CUSPARSE_SPMM_CSR_ALG3, CUSPARSE_ORDER_ROW, "SpMM CSR ALG3 row-major");
  spmm(A, false, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_ORDER_ROW, "SpMM CSR ALG2 row-major");
  spmm(A, true, CUSPARSE_SPMM_COO_ALG4, CUSPARSE_ORDER_ROW, "SpMM COO ALG4 row-major");
  const auto N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
  const auto COL = CUSPARSE_ORDER_COL, ROW = CUSPARSE_ORDER_ROW;
  bell<float, float>(128, 160, 16, 4, 32, N, COL, COL, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 5e-3,
                     "SpMM Blocked-ELL f32, B and C column-major");
  bell<float, float>(96, 128, 32, 2, 24, T, ROW, ROW, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 5e-3,
                     "SpMM Blocked-ELL f32, B^T and C row-major");
  bell<double, double>(64, 96, 16, 3, 16, N, ROW, COL, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 1e-12,
                       "SpMM Blocked-ELL f64, B row-major");
  bell<__half, float>(128, 128, 16, 4, 32, N, COL, COL, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, 1e-5,
                      "SpMM Blocked-ELL f16 -> f32");
  bell<__half, __half>(64, 96, 32, 2, 16, N, ROW, ROW, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, 2e-3,
                       "SpMM Blocked-ELL f16 -> f16, row-major");
  spsm(rcsr(300, 300, 0.02, true));
  sddmm(rcsr(300, 260, 0.03));
  gtsv(500, 3, false);
  gtsv(300, 8, true);
  sorts();
  vector_ops();
  cusparseDestroy(H);
  std::printf("%s\n", failed ? "FAILED" : "done");
  return 0;
}
