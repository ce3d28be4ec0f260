// The cuFFT host API against a CPU DFT (long double accumulation): libcufft carries the static
// runtime, loads one PTX module per kernel through the driver API and asks the driver's tools
// table for each module's kernel. Every line says which transform and whether its largest error,
// relative to the largest output magnitude, is within a bound set by the precision (float 1e-5,
// double 1e-12: a few ulps times log2 N), so the expected output is the same on any correct GPU.
#include <cufft.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <complex>
#include <cstdio>
#include <vector>

#include "fft_check.hpp"

using cld = std::complex<long double>;

// Multidimensional DFT, row-major dims, sign -1 forward / +1 inverse, unnormalised.
static std::vector<cld> dft(const std::vector<cld>& in, const std::vector<int>& dims, int sign) {
  std::vector<cld> cur = in;
  size_t total = cur.size(), stride = total;
  for (int d : dims) {
    stride /= d;
    std::vector<cld> twiddle(d);  // e^(sign 2 pi i m / d), m = k j mod d
    for (int m = 0; m < d; ++m) {
      long double ang = sign * 2.0L * 3.14159265358979323846264338327950288L * m / d;
      twiddle[m] = cld(std::cos(ang), std::sin(ang));
    }
    std::vector<cld> next(total);
    for (size_t base = 0; base < total; ++base) {
      size_t k = (base / stride) % d;
      size_t origin = base - k * stride;
      cld sum = 0;
      for (int j = 0; j < d; ++j) sum += cur[origin + j * stride] * twiddle[(k * j) % d];
      next[base] = sum;
    }
    cur.swap(next);
  }
  return cur;
}

static void report(const char* what, const std::vector<cld>& ref, const std::vector<cld>& got, double bound) {
  long double maxref = 0, maxerr = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    maxref = std::max(maxref, std::abs(ref[i]));
    maxerr = std::max(maxerr, std::abs(ref[i] - got[i]));
  }
  double rel = double(maxerr / (maxref > 0 ? maxref : 1));
  std::printf("%-44s %s\n", what, rel <= bound ? "ok" : "WRONG");
  if (rel > bound) std::printf("  relative error %.3g > %.3g\n", rel, bound);
}

// Complex-to-complex of any rank, forward then inverse (the inverse of the forward output).
template <class T>
bool c2c(const std::vector<int>& dims, int batch, const char* name) {
  using C = typename Cx<T>::type;
  size_t n = 1;
  for (int d : dims) n *= d;
  std::vector<cld> in(n * batch);
  for (auto& v : in) v = cld(next_value(), next_value());
  std::vector<C> h(n * batch);
  for (size_t i = 0; i < h.size(); ++i) h[i].x = T(in[i].real()), h[i].y = T(in[i].imag());
  for (size_t i = 0; i < h.size(); ++i) in[i] = cld(h[i].x, h[i].y);  // what the GPU sees
  C* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(C));
  cudaMemcpy(d, h.data(), h.size() * sizeof(C), cudaMemcpyHostToDevice);
  cufftHandle plan;
  const bool dbl = sizeof(T) == 8;
  const cufftType type = dbl ? CUFFT_Z2Z : CUFFT_C2C;
  std::vector<int> dd = dims;
  CHECK_FFT(cufftPlanMany(&plan, int(dims.size()), dd.data(), nullptr, 1, int(n), nullptr, 1, int(n), type, batch));
  for (int sign : {-1, 1}) {
    if (dbl)
      CHECK_FFT(cufftExecZ2Z(plan, (cufftDoubleComplex*)d, (cufftDoubleComplex*)d, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE));
    else
      CHECK_FFT(cufftExecC2C(plan, (cufftComplex*)d, (cufftComplex*)d, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE));
    cudaMemcpy(h.data(), d, h.size() * sizeof(C), cudaMemcpyDeviceToHost);
    std::vector<cld> ref(n * batch), got(n * batch);
    for (int b = 0; b < batch; ++b) {
      std::vector<cld> one(in.begin() + b * n, in.begin() + (b + 1) * n);
      auto r = dft(one, dims, sign);
      std::copy(r.begin(), r.end(), ref.begin() + b * n);
    }
    for (size_t i = 0; i < got.size(); ++i) got[i] = cld(h[i].x, h[i].y);
    char what[96];
    std::snprintf(what, sizeof what, "%s %s", name, sign < 0 ? "forward" : "inverse");
    report(what, ref, got, dbl ? 1e-12 : 1e-5);
    in = got;  // the inverse transforms what the forward produced
  }
  cufftDestroy(plan);
  cudaFree(d);
  return true;
}

// Real-to-complex and back, out of place, any rank; C2R output is N times the input.
template <class T>
bool r2c(const std::vector<int>& dims, const char* name) {
  using C = typename Cx<T>::type;
  const bool dbl = sizeof(T) == 8;
  size_t n = 1;
  for (int d : dims) n *= d;
  size_t nc = n / dims.back() * (dims.back() / 2 + 1);
  std::vector<T> h(n);
  for (auto& v : h) v = T(next_value());
  T* dr = nullptr;
  C* dc = nullptr;
  cudaMalloc(&dr, n * sizeof(T));
  cudaMalloc(&dc, nc * sizeof(C));
  cudaMemcpy(dr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cufftHandle fwd, inv;
  std::vector<int> dd = dims;
  CHECK_FFT(cufftPlanMany(&fwd, int(dims.size()), dd.data(), nullptr, 1, 0, nullptr, 1, 0, dbl ? CUFFT_D2Z : CUFFT_R2C, 1));
  CHECK_FFT(cufftPlanMany(&inv, int(dims.size()), dd.data(), nullptr, 1, 0, nullptr, 1, 0, dbl ? CUFFT_Z2D : CUFFT_C2R, 1));
  if (dbl)
    CHECK_FFT(cufftExecD2Z(fwd, (double*)dr, (cufftDoubleComplex*)dc));
  else
    CHECK_FFT(cufftExecR2C(fwd, (float*)dr, (cufftComplex*)dc));
  std::vector<C> hc(nc);
  cudaMemcpy(hc.data(), dc, nc * sizeof(C), cudaMemcpyDeviceToHost);
  std::vector<cld> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = cld(h[i], 0);
  auto full = dft(in, dims, -1);
  std::vector<cld> ref, got;
  const int last = dims.back(), half = last / 2 + 1;
  for (size_t row = 0; row < n / last; ++row)
    for (int k = 0; k < half; ++k) {
      ref.push_back(full[row * last + k]);
      got.push_back(cld(hc[row * half + k].x, hc[row * half + k].y));
    }
  char what[96];
  std::snprintf(what, sizeof what, "%s forward", name);
  report(what, ref, got, dbl ? 1e-12 : 1e-5);
  if (dbl)
    CHECK_FFT(cufftExecZ2D(inv, (cufftDoubleComplex*)dc, (double*)dr));
  else
    CHECK_FFT(cufftExecC2R(inv, (cufftComplex*)dc, (float*)dr));
  std::vector<T> back(n);
  cudaMemcpy(back.data(), dr, n * sizeof(T), cudaMemcpyDeviceToHost);
  std::vector<cld> r2, g2;
  for (size_t i = 0; i < n; ++i) r2.push_back(cld((long double)h[i] * n, 0)), g2.push_back(cld(back[i], 0));
  std::snprintf(what, sizeof what, "%s inverse (C2R of it = N x input)", name);
  report(what, r2, g2, dbl ? 1e-12 : 1e-5);
  cufftDestroy(fwd);
  cufftDestroy(inv);
  cudaFree(dr);
  cudaFree(dc);
  return true;
}

// Strided, interleaved batches (advanced layout), on a user stream with a caller's work area.
bool advanced() {
  const int n = 64, batch = 3, stride = 3, dist = 1;  // batch b's element j at b + 3j
  std::vector<cufftComplex> h(n * stride);
  std::vector<cld> in(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    h[i].x = float(next_value()), h[i].y = float(next_value());
    in[i] = cld(h[i].x, h[i].y);
  }
  cufftComplex *d = nullptr, *o = nullptr;
  cudaMalloc(&d, h.size() * sizeof(cufftComplex));
  cudaMalloc(&o, h.size() * sizeof(cufftComplex));
  cudaMemcpy(d, h.data(), h.size() * sizeof(cufftComplex), cudaMemcpyHostToDevice);
  cufftHandle plan;
  CHECK_FFT(cufftCreate(&plan));
  CHECK_FFT(cufftSetAutoAllocation(plan, 0));
  int dims[1] = {n}, emb[1] = {n};
  size_t work = 0;
  CHECK_FFT(cufftMakePlanMany(plan, 1, dims, emb, stride, dist, emb, stride, dist, CUFFT_C2C, batch, &work));
  void* area = nullptr;
  cudaMalloc(&area, work ? work : 1);
  CHECK_FFT(cufftSetWorkArea(plan, area));
  cudaStream_t s;
  cudaStreamCreate(&s);
  CHECK_FFT(cufftSetStream(plan, s));
  CHECK_FFT(cufftExecC2C(plan, d, o, CUFFT_FORWARD));
  cudaStreamSynchronize(s);
  cudaMemcpy(h.data(), o, h.size() * sizeof(cufftComplex), cudaMemcpyDeviceToHost);
  std::vector<cld> ref, got;
  for (int b = 0; b < batch; ++b) {
    std::vector<cld> one(n);
    for (int j = 0; j < n; ++j) one[j] = in[b * dist + j * stride];
    auto r = dft(one, {n}, -1);
    for (int j = 0; j < n; ++j) ref.push_back(r[j]), got.push_back(cld(h[b * dist + j * stride].x, h[b * dist + j * stride].y));
  }
  report("C2C 64 x3 strided batches, stream, work area", ref, got, 1e-5);
  cufftDestroy(plan);
  cudaStreamDestroy(s);
  cudaFree(area);
  cudaFree(d);
  cudaFree(o);
  return true;
}

int main() {
  rng = 12345;
  int version = 0;
  cufftGetVersion(&version);
  std::printf("cuFFT version known: %s\n", version > 0 ? "yes" : "no");
  bool ok = true;
  ok &= c2c<float>({256}, 1, "C2C 256");
  ok &= c2c<float>({1000}, 1, "C2C 1000 (2^3 5^3)");
  ok &= c2c<float>({17}, 1, "C2C 17 (prime)");
  ok &= c2c<float>({1009}, 1, "C2C 1009 (prime, Bluestein)");
  ok &= c2c<float>({4096}, 1, "C2C 4096");
  ok &= c2c<float>({128}, 8, "C2C 128 x8 batches");
  ok &= c2c<double>({512}, 1, "Z2Z 512");
  ok &= c2c<double>({210}, 2, "Z2Z 210 (2 3 5 7) x2 batches");
  ok &= c2c<float>({32, 48}, 1, "C2C 32x48");
  ok &= c2c<float>({8, 12, 10}, 1, "C2C 8x12x10");
  ok &= r2c<float>({1024}, "R2C/C2R 1024");
  ok &= r2c<float>({45}, "R2C/C2R 45");
  ok &= r2c<double>({96}, "D2Z/Z2D 96");
  ok &= r2c<float>({16, 20}, "R2C/C2R 16x20");
  ok &= advanced();
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", cudaGetErrorString(e));
  return ok && e == cudaSuccess ? 0 : 1;
}
