// cuBLAS GEMMs against a CPU reference in double: every transpose combination with padded leading
// dimensions, alpha/beta (beta = 0 must not read C, which holds NaN), double precision, strided and
// pointer-array batches, cublasGemmEx with half/bfloat16 inputs and float or half outputs, device
// pointer mode on a stream, and the argument errors cuBLAS reports. On warpsim these run as its own
// GEMM kernel (libcublas's are SASS-only); each line says whether the status and the largest error
// relative to the largest |C| are right (bounds by precision), so the expected output is the same on
// any correct GPU.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

static uint32_t rng = 31337;
static float next_value() {
  rng = rng * 1664525u + 1013904223u;
  return float(rng >> 8) / float(1u << 24) - 0.5f;
}
static bool failed = false;
static void report(const char* what, cublasStatus_t st, const std::vector<double>& ref, const std::vector<double>& got,
                   double bound) {
  double maxref = 0, maxerr = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    maxref = std::max(maxref, std::fabs(ref[i])), maxerr = std::max(maxerr, std::fabs(ref[i] - got[i]));
  double rel = maxerr / (maxref > 0 ? maxref : 1);
  bool ok = st == CUBLAS_STATUS_SUCCESS && rel <= bound && !std::isnan(rel);
  std::printf("%-48s %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) std::printf("  status %d, relative error %.3g > %.3g\n", int(st), rel, bound), failed = true;
}

// Column-major C(m x n) = alpha op(A) op(B) + beta C on the CPU, with ld's.
template <class T>
std::vector<double> ref_gemm(bool ta, bool tb, int m, int n, int k, double alpha, const std::vector<T>& A, int lda,
                             const std::vector<T>& B, int ldb, double beta, const std::vector<T>& C, int ldc) {
  std::vector<double> out(size_t(ldc) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) {
      if (i >= m) { out[size_t(j) * ldc + i] = double(C[size_t(j) * ldc + i]); continue; }
      double s = 0;
      for (int l = 0; l < k; ++l) {
        double a = double(ta ? A[size_t(i) * lda + l] : A[size_t(l) * lda + i]);
        double b = double(tb ? B[size_t(l) * ldb + j] : B[size_t(j) * ldb + l]);
        s += a * b;
      }
      out[size_t(j) * ldc + i] = alpha * s + (beta == 0 ? 0.0 : beta * double(C[size_t(j) * ldc + i]));
    }
  return out;
}
template <class T>
std::vector<T> rand_vec(size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) x = T(next_value());
  return v;
}
template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, std::max<size_t>(h.size(), 1) * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T>
std::vector<double> download(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = double(h[i]);
  return out;
}

int main() {
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return std::printf("cublasCreate failed\n"), 1;
  const int m = 37, n = 29, k = 45;
  for (int t = 0; t < 4; ++t) {  // Sgemm, every op(A)/op(B), padded leading dimensions
    const bool ta = t & 1, tb = t & 2;
    const int lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 5, ldc = m + 2;
    auto A = rand_vec<float>(size_t(lda) * (ta ? m : k)), B = rand_vec<float>(size_t(ldb) * (tb ? k : n));
    auto C = rand_vec<float>(size_t(ldc) * n);
    float *dA = upload(A), *dB = upload(B), *dC = upload(C);
    const float alpha = 1.5f, beta = -0.75f;
    auto st = cublasSgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, dA, lda,
                          dB, ldb, &beta, dC, ldc);
    char what[64];
    std::snprintf(what, sizeof what, "Sgemm %c%c 37x29x45, alpha 1.5 beta -0.75", ta ? 'T' : 'N', tb ? 'T' : 'N');
    report(what, st, ref_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), download(dC, C.size()), 1e-5);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
  }
  {  // beta = 0: C's NaNs are not read.
    auto A = rand_vec<float>(size_t(64) * 64), B = rand_vec<float>(size_t(64) * 64);
    std::vector<float> C(size_t(64) * 64, NAN);
    float *dA = upload(A), *dB = upload(B), *dC = upload(C);
    const float alpha = 1, beta = 0;
    auto st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &alpha, dA, 64, dB, 64, &beta, dC, 64);
    report("Sgemm 64^3, beta 0 over a C of NaNs", st, ref_gemm(false, false, 64, 64, 64, 1.0, A, 64, B, 64, 0.0, C, 64),
           download(dC, C.size()), 1e-5);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
  }
  {  // Dgemm
    auto A = rand_vec<double>(size_t(m) * k), B = rand_vec<double>(size_t(n) * k), C = rand_vec<double>(size_t(m) * n);
    double *dA = upload(A), *dB = upload(B), *dC = upload(C);
    const double alpha = -2, beta = 0.5;
    auto st = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, dA, m, dB, n, &beta, dC, m);
    report("Dgemm NT 37x29x45", st, ref_gemm(false, true, m, n, k, alpha, A, m, B, n, beta, C, m), download(dC, C.size()),
           1e-13);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
  }
  {  // Strided and pointer-array batches of 5.
    const int b = 5, s = 24;
    auto A = rand_vec<float>(size_t(s) * s * b), B = rand_vec<float>(size_t(s) * s * b), C = rand_vec<float>(size_t(s) * s * b);
    float *dA = upload(A), *dB = upload(B), *dC = upload(C);
    const float alpha = 1, beta = 1;
    auto st = cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, s, s, s, &alpha, dA, s, s * s, dB, s, s * s, &beta,
                                        dC, s, s * s, b);
    std::vector<double> want, got = download(dC, C.size());
    for (int q = 0; q < b; ++q) {
      auto slice = [&](const std::vector<float>& v) { return std::vector<float>(v.begin() + q * s * s, v.begin() + (q + 1) * s * s); };
      auto r = ref_gemm(true, false, s, s, s, 1.0, slice(A), s, slice(B), s, 1.0, slice(C), s);
      want.insert(want.end(), r.begin(), r.end());
    }
    report("SgemmStridedBatched TN 24^3 x5", st, want, got, 1e-5);
    std::vector<float*> pa, pb, pc;
    for (int q = b - 1; q >= 0; --q)  // batches in reverse: the arrays decide, not the layout
      pa.push_back(dA + q * s * s), pb.push_back(dB + q * s * s), pc.push_back(dC + q * s * s);
    float **dpa = upload(pa), **dpb = upload(pb), **dpc = upload(pc);
    const float zero = 0;
    st = cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &alpha, dpa, s, dpb, s, &zero, dpc, s, b);
    want.clear();
    for (int q = 0; q < b; ++q) {
      auto slice = [&](const std::vector<float>& v) { return std::vector<float>(v.begin() + q * s * s, v.begin() + (q + 1) * s * s); };
      auto r = ref_gemm(false, false, s, s, s, 1.0, slice(A), s, slice(B), s, 0.0, slice(C), s);
      want.insert(want.end(), r.begin(), r.end());
    }
    report("SgemmBatched NN 24^3 x5 (pointer arrays)", st, want, download(dC, C.size()), 1e-5);
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dpa), cudaFree(dpb), cudaFree(dpc);
  }
  {  // GemmEx: half inputs, float output and compute; half output with half compute; bfloat16.
    const int s = 32;
    std::vector<__half> A(size_t(s) * s), B(size_t(s) * s), Ch(size_t(s) * s);
    std::vector<float> Af(A.size()), Bf(B.size()), Cf(size_t(s) * s, 0);
    for (size_t i = 0; i < A.size(); ++i) A[i] = __float2half(next_value()), Af[i] = __half2float(A[i]);
    for (size_t i = 0; i < B.size(); ++i) B[i] = __float2half(next_value()), Bf[i] = __half2float(B[i]);
    for (auto& c : Ch) c = __float2half(0.0f);
    __half *dA = upload(A), *dB = upload(B), *dCh = upload(Ch);
    float* dCf = upload(Cf);
    const float alpha = 1, beta = 0;
    auto st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &alpha, dA, CUDA_R_16F, s, dB, CUDA_R_16F, s, &beta, dCf,
                           CUDA_R_32F, s, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    auto want = ref_gemm(false, false, s, s, s, 1.0, Af, s, Bf, s, 0.0, Cf, s);
    report("GemmEx f16 x f16 -> f32, compute 32F", st, want, download(dCf, Cf.size()), 1e-5);
    const __half ha = __float2half(1.0f), hb = __float2half(0.0f);
    st = cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &ha, dA, s, dB, s, &hb, dCh, s);
    std::vector<__half> got(Ch.size());
    cudaMemcpy(got.data(), dCh, got.size() * sizeof(__half), cudaMemcpyDeviceToHost);
    std::vector<double> g(got.size());
    for (size_t i = 0; i < got.size(); ++i) g[i] = __half2float(got[i]);
    report("Hgemm 32^3 (half; bound 1e-2)", st, want, g, 1e-2);
    std::vector<__nv_bfloat16> Ab(A.size()), Bb(B.size());
    for (size_t i = 0; i < A.size(); ++i) Ab[i] = __float2bfloat16(Af[i]), Af[i] = __bfloat162float(Ab[i]);
    for (size_t i = 0; i < B.size(); ++i) Bb[i] = __float2bfloat16(Bf[i]), Bf[i] = __bfloat162float(Bb[i]);
    __nv_bfloat16 *dAb = upload(Ab), *dBb = upload(Bb);
    st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, s, s, s, &alpha, dAb, CUDA_R_16BF, s, dBb, CUDA_R_16BF, s, &beta, dCf,
                      CUDA_R_32F, s, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    report("GemmEx bf16 TN -> f32, compute 32F", st, ref_gemm(true, false, s, s, s, 1.0, Af, s, Bf, s, 0.0, Cf, s),
           download(dCf, Cf.size()), 1e-5);
    cudaFree(dA), cudaFree(dB), cudaFree(dCh), cudaFree(dCf), cudaFree(dAb), cudaFree(dBb);
  }
  {  // Device pointer mode on a stream.
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cublasSetStream(h, stream);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    auto A = rand_vec<float>(size_t(m) * k), B = rand_vec<float>(size_t(k) * n), C = rand_vec<float>(size_t(m) * n);
    std::vector<float> ab = {0.25f, 2.0f};
    float *dA = upload(A), *dB = upload(B), *dC = upload(C), *dab = upload(ab);
    auto st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, dab, dA, m, dB, k, dab + 1, dC, m);
    cudaStreamSynchronize(stream);
    report("Sgemm, alpha/beta in device memory, stream", st, ref_gemm(false, false, m, n, k, 0.25, A, m, B, k, 2.0, C, m),
           download(dC, C.size()), 1e-5);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    cublasSetStream(h, 0);
    cudaStreamDestroy(stream);
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dab);
  }
  {  // Argument errors and empty products.
    const float one = 1;
    float* d = nullptr;
    cudaMalloc(&d, 64 * sizeof(float));
    std::printf("lda < m: %s\n", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, 4, d, 8, &one, d, 8) ==
                                         CUBLAS_STATUS_INVALID_VALUE ? "CUBLAS_STATUS_INVALID_VALUE" : "other");
    std::printf("negative n: %s\n", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, -1, 8, &one, d, 8, d, 8, &one, d, 8) ==
                                            CUBLAS_STATUS_INVALID_VALUE ? "CUBLAS_STATUS_INVALID_VALUE" : "other");
    std::printf("m = 0: %s\n", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 8, 8, &one, d, 8, d, 8, &one, d, 8) ==
                                       CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "other");
    cudaFree(d);
  }
  cublasDestroy(h);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", cudaGetErrorString(e));
  return failed || e != cudaSuccess ? 1 : 0;
}
