// The cuBLAS routines whose kernels cuBLAS ships as PTX, against CPU references in double: level 1
// (dot, nrm2, asum, iamax/iamin, axpy, scal, copy, swap, rot), level 2 (gemv N/T, ger, symv, trsv),
// and the level-3 routines that do not go through its SASS-only GEMM cubins (geam, dgmm, a small
// trsm, a tiny sgemm), host and device pointer modes, a user stream. Each line says whether the
// routine returned success and its result is within a relative bound (float 1e-5, double 1e-12),
// so the expected output is the same on any correct GPU. cuBLAS's larger GEMMs come as SASS-only
// cubins and are not run here (warpsim runs PTX; README).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

static uint32_t rng = 2024;
static double next_value() {
  rng = rng * 1664525u + 1013904223u;
  return double(rng >> 8) / double(1u << 24) - 0.5;
}
static bool failed = false;
static void report(const char* what, cublasStatus_t st, const std::vector<double>& ref, const std::vector<double>& got,
                   double bound) {
  double maxref = 0, maxerr = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    maxref = std::max(maxref, std::fabs(ref[i]));
    maxerr = std::max(maxerr, std::fabs(ref[i] - got[i]));
  }
  double rel = maxerr / (maxref > 0 ? maxref : 1);
  bool ok = st == CUBLAS_STATUS_SUCCESS && rel <= bound && ref.size() == got.size();
  std::printf("%-36s %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) std::printf("  status %d, relative error %.3g > %.3g\n", int(st), rel, bound), failed = true;
}

template <class T>
struct Dev {
  T* p = nullptr;
  size_t n;
  explicit Dev(const std::vector<T>& h) : n(h.size()) {
    cudaMalloc(&p, n * sizeof(T));
    cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  std::vector<double> get() const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return std::vector<double>(h.begin(), h.end());
  }
  ~Dev() { cudaFree(p); }
};

static std::vector<float> randv(size_t n) {
  std::vector<float> v(n);
  for (auto& x : v) x = float(next_value());
  return v;
}

int main() {
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    return 1;
  }
  int version = 0;
  cublasGetVersion(h, &version);
  std::printf("cuBLAS version known: %s\n", version > 0 ? "yes" : "no");
  const int n = 1000;
  auto x = randv(n), y = randv(n);
  std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end());
  cublasStatus_t st;

  {  // Level 1, host pointer mode.
    Dev<float> dx(x), dy(y);
    float r = 0;
    double ref = 0;
    for (int i = 0; i < n; ++i) ref += xd[i] * yd[i];
    st = cublasSdot(h, n, dx.p, 1, dy.p, 1, &r);
    report("Sdot 1000", st, {ref}, {r}, 1e-5);
    ref = 0;
    for (int i = 0; i < n; ++i) ref += xd[i] * xd[i];
    st = cublasSnrm2(h, n, dx.p, 1, &r);
    report("Snrm2 1000", st, {std::sqrt(ref)}, {r}, 1e-5);
    ref = 0;
    for (int i = 0; i < n; ++i) ref += std::fabs(xd[i]);
    st = cublasSasum(h, n, dx.p, 1, &r);
    report("Sasum 1000", st, {ref}, {r}, 1e-5);
    int imax = 0, imin = 0, rmax = 0, rmin = 0;
    for (int i = 1; i < n; ++i) {
      if (std::fabs(x[i]) > std::fabs(x[rmax])) rmax = i;
      if (std::fabs(x[i]) < std::fabs(x[rmin])) rmin = i;
    }
    st = cublasIsamax(h, n, dx.p, 1, &imax);
    report("Isamax 1000 (1-based index)", st, {double(rmax + 1)}, {double(imax)}, 0);
    st = cublasIsamin(h, n, dx.p, 1, &imin);
    report("Isamin 1000 (1-based index)", st, {double(rmin + 1)}, {double(imin)}, 0);
    // Strided: every third element of x against every second of y.
    const int m = 300;
    ref = 0;
    for (int i = 0; i < m; ++i) ref += xd[3 * i] * yd[2 * i];
    st = cublasSdot(h, m, dx.p, 3, dy.p, 2, &r);
    report("Sdot 300, strides 3 and 2", st, {ref}, {r}, 1e-5);
    float a = 1.75f;
    st = cublasSaxpy(h, n, &a, dx.p, 1, dy.p, 1);
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = double(a) * xd[i] + yd[i];
    report("Saxpy 1000", st, want, dy.get(), 1e-6);
    st = cublasSscal(h, n, &a, dx.p, 1);
    for (int i = 0; i < n; ++i) want[i] = double(a) * xd[i];
    report("Sscal 1000", st, want, dx.get(), 1e-6);
    std::vector<double> xs = dx.get(), ys = dy.get();
    st = cublasSswap(h, n, dx.p, 1, dy.p, 1);
    report("Sswap 1000", st, ys, dx.get(), 0);
    st = cublasScopy(h, n / 2, dy.p, 2, dx.p, 1);
    std::vector<double> got = dx.get();
    want.assign(n / 2, 0);
    for (int i = 0; i < n / 2; ++i) want[i] = xs[2 * i];
    report("Scopy 500, stride 2", st, want, std::vector<double>(got.begin(), got.begin() + n / 2), 0);
    float c = 0.6f, s = 0.8f;
    xs = dx.get(), ys = dy.get();
    st = cublasSrot(h, n, dx.p, 1, dy.p, 1, &c, &s);
    std::vector<double> wx(n), wy(n);
    for (int i = 0; i < n; ++i) wx[i] = c * xs[i] + s * ys[i], wy[i] = c * ys[i] - s * xs[i];
    got = dx.get();
    std::vector<double> gy = dy.get();
    got.insert(got.end(), gy.begin(), gy.end());
    wx.insert(wx.end(), wy.begin(), wy.end());
    report("Srot 1000", st, wx, got, 1e-6);
  }
  {  // Device pointer mode on a user stream: results stay on the GPU.
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cublasSetStream(h, stream);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    Dev<float> dx(x), dy(y), dr(std::vector<float>(2, 0));
    st = cublasSdot(h, n, dx.p, 1, dy.p, 1, dr.p);
    cublasStatus_t st2 = cublasSnrm2(h, n, dy.p, 1, dr.p + 1);
    cudaStreamSynchronize(stream);
    double dot = 0, nrm = 0;
    for (int i = 0; i < n; ++i) dot += xd[i] * yd[i], nrm += yd[i] * yd[i];
    report("Sdot + Snrm2, device pointers, stream", st != CUBLAS_STATUS_SUCCESS ? st : st2, {dot, std::sqrt(nrm)},
           dr.get(), 1e-5);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    cublasSetStream(h, 0);
    cudaStreamDestroy(stream);
  }
  {  // Double level 1.
    std::vector<double> xv(xd), yv(yd);
    Dev<double> dx(xv), dy(yv);
    double r = 0, ref = 0;
    for (int i = 0; i < n; ++i) ref += xd[i] * yd[i];
    st = cublasDdot(h, n, dx.p, 1, dy.p, 1, &r);
    report("Ddot 1000", st, {ref}, {r}, 1e-12);
  }
  // Level 2 on a column-major m x k matrix.
  const int m = 96, k = 80;
  auto A = randv(size_t(m) * k);
  auto at = [&](int i, int j) { return double(A[size_t(j) * m + i]); };
  {
    auto v = randv(k), w = randv(m);
    Dev<float> dA(A), dv(v), dw(w);
    float one = 1, half = 0.5f;
    st = cublasSgemv(h, CUBLAS_OP_N, m, k, &one, dA.p, m, dv.p, 1, &half, dw.p, 1);
    std::vector<double> want(m);
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int j = 0; j < k; ++j) s += at(i, j) * v[j];
      want[i] = s + 0.5 * w[i];
    }
    report("Sgemv N 96x80", st, want, dw.get(), 1e-5);
    Dev<float> dw2(w), dv2(v);
    st = cublasSgemv(h, CUBLAS_OP_T, m, k, &one, dA.p, m, dw2.p, 1, &half, dv2.p, 1);
    want.assign(k, 0);
    for (int j = 0; j < k; ++j) {
      double s = 0;
      for (int i = 0; i < m; ++i) s += at(i, j) * w[i];
      want[j] = s + 0.5 * v[j];
    }
    report("Sgemv T 96x80", st, want, dv2.get(), 1e-5);
    float alpha = -1.5f;
    st = cublasSger(h, m, k, &alpha, dw2.p, 1, dv.p, 1, dA.p, m);
    std::vector<double> wa(size_t(m) * k);
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < m; ++i) wa[size_t(j) * m + i] = at(i, j) + alpha * double(w[i]) * v[j];
    report("Sger 96x80", st, wa, dA.get(), 1e-6);
  }
  {  // Symmetric and triangular, lower triangle stored; the triangle is made well conditioned.
    const int s = 64;
    std::vector<float> L(size_t(s) * s);
    for (int j = 0; j < s; ++j)
      for (int i = 0; i < s; ++i) L[size_t(j) * s + i] = i == j ? 2.0f + float(next_value()) : float(next_value()) / s;
    auto l = [&](int i, int j) { return double(L[size_t(j) * s + i]); };
    auto v = randv(s);
    Dev<float> dL(L), dv(v), dout(std::vector<float>(s, 0));
    float one = 1, zero = 0;
    st = cublasSsymv(h, CUBLAS_FILL_MODE_LOWER, s, &one, dL.p, s, dv.p, 1, &zero, dout.p, 1);
    std::vector<double> want(s);
    for (int i = 0; i < s; ++i) {
      double acc = 0;
      for (int j = 0; j < s; ++j) acc += (i >= j ? l(i, j) : l(j, i)) * v[j];
      want[i] = acc;
    }
    report("Ssymv lower 64", st, want, dout.get(), 1e-5);
    st = cublasStrsv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, s, dL.p, s, dv.p, 1);
    for (int i = 0; i < s; ++i) {  // forward substitution
      double acc = v[i];
      for (int j = 0; j < i; ++j) acc -= l(i, j) * want[j];
      want[i] = acc / l(i, i);
    }
    report("Strsv lower 64", st, want, dv.get(), 1e-5);
    // trsm: solve L X = alpha B for 8 right-hand sides.
    const int r = 8;
    auto B = randv(size_t(s) * r);
    Dev<float> dB(B);
    float alpha = 2.0f;
    st = cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, s, r, &alpha, dL.p, s,
                     dB.p, s);
    std::vector<double> X(size_t(s) * r);
    for (int c = 0; c < r; ++c)
      for (int i = 0; i < s; ++i) {
        double acc = alpha * double(B[size_t(c) * s + i]);
        for (int j = 0; j < i; ++j) acc -= l(i, j) * X[size_t(c) * s + j];
        X[size_t(c) * s + i] = acc / l(i, i);
      }
    report("Strsm lower 64 x 8 right-hand sides", st, X, dB.get(), 1e-5);
  }
  {  // geam (C = a A + b B^T), dgmm (diag(v) A), a tiny sgemm.
    const int s = 48;
    auto P = randv(size_t(s) * s), Q = randv(size_t(s) * s), v = randv(s);
    Dev<float> dP(P), dQ(Q), dC(std::vector<float>(size_t(s) * s, 0)), dv(v);
    float a = 0.5f, b = -2.0f;
    st = cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_T, s, s, &a, dP.p, s, &b, dQ.p, s, dC.p, s);
    std::vector<double> want(size_t(s) * s);
    for (int j = 0; j < s; ++j)
      for (int i = 0; i < s; ++i) want[size_t(j) * s + i] = a * double(P[size_t(j) * s + i]) + b * double(Q[size_t(i) * s + j]);
    report("Sgeam 48x48, B transposed", st, want, dC.get(), 1e-6);
    st = cublasSdgmm(h, CUBLAS_SIDE_LEFT, s, s, dP.p, s, dv.p, 1, dC.p, s);
    for (int j = 0; j < s; ++j)
      for (int i = 0; i < s; ++i) want[size_t(j) * s + i] = double(v[i]) * P[size_t(j) * s + i];
    report("Sdgmm left 48x48", st, want, dC.get(), 1e-6);
    const int t = 8;
    float one = 1, zero = 0;
    st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, t, t, t, &one, dP.p, s, dQ.p, s, &zero, dC.p, t);
    std::vector<double> g = dC.get(), w(size_t(t) * t);
    for (int j = 0; j < t; ++j)
      for (int i = 0; i < t; ++i) {
        double acc = 0;
        for (int q = 0; q < t; ++q) acc += double(P[size_t(q) * s + i]) * Q[size_t(j) * s + q];
        w[size_t(j) * t + i] = acc;
      }
    report("Sgemm 8x8x8", st, w, std::vector<double>(g.begin(), g.begin() + t * t), 1e-5);
  }
  cublasDestroy(h);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", cudaGetErrorString(e));
  return failed || e != cudaSuccess ? 1 : 0;
}
