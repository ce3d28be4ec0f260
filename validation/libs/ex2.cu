#include <cublas_v2.h>
#include <cusparse.h>
#include <cuda_fp16.h>
#include <string>
#include "common.h"
static std::vector<double> rvec(size_t n) { std::vector<double> v(n); for (auto& x : v) x = rnd(); return v; }
template <class T> std::vector<T> cv(const std::vector<double>& v) { std::vector<T> o(v.size()); for (size_t i = 0; i < v.size(); ++i) o[i] = T(v[i]); return o; }
int main(int argc, char** argv) {
  int which = argc > 1 ? atoi(argv[1]) : -1;
  cublasHandle_t H; cublasCreate(&H);
  if (which < 0 || which == 0) { // gemvStridedBatched
    int m = 300, n = 200, b = 6; auto A = rvec((size_t)m * n * b), x = rvec((size_t)n * b);
    Dev<float> dA(cv<float>(A)), dx(cv<float>(x)), dy((size_t)m * b); float al = 1, be = 0;
    CK(cublasSgemvStridedBatched(H, CUBLAS_OP_N, m, n, &al, dA.p, m, (long long)m * n, dx.p, 1, n, &be, dy.p, 1, m, b));
    std::vector<double> ref((size_t)m * b); for (int k = 0; k < b; ++k) for (int j = 0; j < n; ++j) for (int i = 0; i < m; ++i) ref[k * m + i] += float(A[(size_t)k * m * n + (size_t)j * m + i]) * float(x[k * n + j]);
    cudaDeviceSynchronize(); report("SgemvStridedBatched 300x200x6", ref, dbl(dy.host()), 1e-5);
  }
  if (which < 0 || which == 1) { // SgemmEx f16 in f32 out
    int m = 256, n = 192, k = 128; auto A = rvec((size_t)m * k), B = rvec((size_t)k * n); for (auto& v : A) v = __half2float(__float2half(v)); for (auto& v : B) v = __half2float(__float2half(v));
    Dev<__half> dA(cv<__half>(A)), dB(cv<__half>(B)); Dev<float> dC((size_t)m * n); float al = 1, be = 0;
    CK(cublasSgemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &al, dA.p, CUDA_R_16F, m, dB.p, CUDA_R_16F, k, &be, dC.p, CUDA_R_32F, m));
    std::vector<double> ref((size_t)m * n); for (int j = 0; j < n; ++j) for (int l = 0; l < k; ++l) for (int i = 0; i < m; ++i) ref[(size_t)j * m + i] += A[(size_t)l * m + i] * B[(size_t)j * k + l];
    cudaDeviceSynchronize(); report("SgemmEx f16 -> f32", ref, dbl(dC.host()), 1e-5);
  }
  if (which < 0 || which == 2) { // Hgemm batched, GemmBatchedEx f16 f32 compute
    int m = 128, n = 96, k = 64, b = 4; auto A = rvec((size_t)m * k * b), B = rvec((size_t)k * n * b); for (auto& v : A) v = __half2float(__float2half(v)); for (auto& v : B) v = __half2float(__float2half(v));
    Dev<__half> dA(cv<__half>(A)), dB(cv<__half>(B)); Dev<float> dC((size_t)m * n * b); std::vector<const void*> pa, pb; std::vector<void*> pc;
    for (int i = 0; i < b; ++i) pa.push_back(dA.p + (size_t)i * m * k), pb.push_back(dB.p + (size_t)i * k * n), pc.push_back(dC.p + (size_t)i * m * n);
    Dev<const void*> dpa(pa), dpb(pb); Dev<void*> dpc(pc); float al = 1, be = 0;
    CK(cublasGemmBatchedEx(H, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &al, dpa.p, CUDA_R_16F, m, dpb.p, CUDA_R_16F, k, &be, dpc.p, CUDA_R_32F, m, b, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    std::vector<double> ref((size_t)m * n * b); for (int q = 0; q < b; ++q) for (int j = 0; j < n; ++j) for (int l = 0; l < k; ++l) for (int i = 0; i < m; ++i) ref[(size_t)q * m * n + (size_t)j * m + i] += A[(size_t)q * m * k + (size_t)l * m + i] * B[(size_t)q * k * n + (size_t)j * k + l];
    cudaDeviceSynchronize(); report("GemmBatchedEx f16 -> f32", ref, dbl(dC.host()), 1e-5);
  }
  if (which < 0 || which == 3) { // Sdot / Isamax / Snrm2 large
    int n = 1 << 20; auto x = rvec(n), y = rvec(n); Dev<float> dx(cv<float>(x)), dy(cv<float>(y)); float d = 0, nr = 0; int im = 0;
    CK(cublasSdot(H, n, dx.p, 1, dy.p, 1, &d)); CK(cublasSnrm2(H, n, dx.p, 1, &nr)); CK(cublasIsamax(H, n, dx.p, 1, &im));
    double rd = 0, rn = 0; int ri = 0; for (int i = 0; i < n; ++i) { rd += float(x[i]) * float(y[i]); rn += double(float(x[i])) * float(x[i]); if (std::fabs(float(x[i])) > std::fabs(float(x[ri]))) ri = i; }
    report("Sdot/Snrm2/Isamax 1M", {rd, std::sqrt(rn), double(ri + 1)}, {d, nr, double(im)}, 1e-4);
  }
  if (which < 0 || which == 4) { // cuSPARSE SpMV 20000 rows, and 64-bit indices
    cusparseHandle_t S; cusparseCreate(&S);
    int rows = 20000, cols = 20000; std::vector<int64_t> ptr{0}, col; std::vector<float> val;
    for (int r = 0; r < rows; ++r) { for (int q = 0; q < 12; ++q) { col.push_back((r * 7 + q * 1237) % cols); val.push_back(float(rnd())); } std::sort(col.end() - 12, col.end()); ptr.push_back(col.size()); }
    auto x = cv<float>(rvec(cols)); Dev<int64_t> dp(ptr), dc(col); Dev<float> dv(val), dx(x), dy(rows);
    cusparseSpMatDescr_t A; cusparseDnVecDescr_t vx, vy;
    CK(cusparseCreateCsr(&A, rows, cols, col.size(), dp.p, dc.p, dv.p, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CK(cusparseCreateDnVec(&vx, cols, dx.p, CUDA_R_32F)); CK(cusparseCreateDnVec(&vy, rows, dy.p, CUDA_R_32F));
    float al = 1, be = 0; size_t ws = 0; CK(cusparseSpMV_bufferSize(S, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, A, vx, &be, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &ws)); Dev<char> w(ws);
    CK(cusparseSpMV(S, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, A, vx, &be, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, w.p));
    std::vector<double> ref(rows); for (int r = 0; r < rows; ++r) for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k) ref[r] += double(val[k]) * x[col[k]];
    cudaDeviceSynchronize(); report("SpMV CSR 64-bit indices 20000 rows", ref, dbl(dy.host()), 1e-5);
  }
  return 0;
}
