// cuFFT plans of every size, against a CPU FFT in double (twiddles from long double): large power-of-two sizes, sizes
// with several large prime factors, primes, 2D and 3D, real and complex, single and double,
// batched and strided, in place and out of place, on a stream with the caller's work area. In
// warpsim, plans whose kernels libcufft ships as SASS only run as warpsim's own FFT
// (src/cudart/cufft_plan.cpp); the rest run libcufft's PTX. Every line names the transform and
// whether its relative RMS error (sqrt(sum |got - ref|^2 / sum |ref|^2)) is within a bound set by
// the precision (float 2e-6, double 2e-14), so the expected output is the same on any correct GPU.
#include <cufft.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <complex>
#include <cstdio>
#include <map>
#include <vector>

#include "fft_check.hpp"

using cld = std::complex<long double>;  // inputs and errors
using cd = std::complex<double>;         // the reference FFT's arithmetic
constexpr long double kPi = 3.141592653589793238462643383279502884L;

// e^(-2 pi i k / n), k < n, computed in long double (cached: one table a length).
static const std::vector<cd>& twiddles(size_t n) {
  static std::map<size_t, std::vector<cd>> cache;
  auto& w = cache[n];
  if (w.empty())
    for (size_t k = 0; k < n; ++k) {
      long double a = -2 * kPi * (long double)k / (long double)n;
      w.push_back(cd(double(std::cos(a)), double(std::sin(a))));
    }
  return w;
}
static cd mul(cd a, cd b, bool conj_b) {
  const double bi = conj_b ? -b.imag() : b.imag();
  return cd(a.real() * b.real() - a.imag() * bi, a.real() * bi + a.imag() * b.real());
}
// Recursive mixed-radix decimation in time in double: n elements at stride `step` of `in` to `out`
// (contiguous); a prime length is a direct DFT. w: twiddles(top), n divides top; inverse: conj(w).
static void fft_rec(const cd* in, size_t step, size_t n, cd* out, const std::vector<cd>& w, size_t top, bool inv) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  size_t p = 2;
  while (n % p) p = p * p > n ? n : p + 1;
  const size_t m = n / p, scale = top / n;
  if (m == 1) {  // a prime: direct
    for (size_t k = 0; k < n; ++k) {
      cd sum = 0;
      for (size_t j = 0, e = 0; j < n; ++j, e = e + k >= n ? e + k - n : e + k) sum += mul(in[j * step], w[e * scale], inv);
      out[k] = sum;
    }
    return;
  }
  std::vector<cd> sub(n);
  for (size_t r = 0; r < p; ++r) fft_rec(in + r * step, step * p, m, sub.data() + r * m, w, top, inv);
  for (size_t q = 0; q < p; ++q)
    for (size_t k = 0; k < m; ++k) {
      cd sum = 0;
      const size_t kk = k + q * m;
      for (size_t r = 0, e = 0; r < p; ++r, e = (e + kk) % n) sum += mul(sub[r * m + k], w[e * scale], inv);
      out[kk] = sum;
    }
}
static void fft1(std::vector<cd>& line, int sign) {
  std::vector<cd> out(line.size());
  fft_rec(line.data(), 1, line.size(), out.data(), twiddles(line.size()), line.size(), sign > 0);
  line.swap(out);
}
// Multidimensional, row-major dims, one array of prod(dims) elements, sign -1 forward.
static std::vector<cld> dft(const std::vector<cld>& in, const std::vector<int>& dims, int sign) {
  std::vector<cd> a(in.begin(), in.end());
  size_t total = a.size(), stride = total;
  for (int d : dims) {
    stride /= d;
    std::vector<cd> line(d);
    for (size_t base = 0; base < total; ++base) {
      if ((base / stride) % d) continue;  // base: the first element of a line along this dim
      for (int j = 0; j < d; ++j) line[j] = a[base + j * stride];
      fft1(line, sign);
      for (int j = 0; j < d; ++j) a[base + j * stride] = line[j];
    }
  }
  return std::vector<cld>(a.begin(), a.end());
}

static void report(const char* what, const std::vector<cld>& ref, const std::vector<cld>& got, bool dbl) {
  const double bound = dbl ? 2e-14 : 2e-6;
  long double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) num += std::norm(ref[i] - got[i]), den += std::norm(ref[i]);
  const double rel = double(std::sqrt(num / (den > 0 ? den : 1)));
  if (rel <= bound) std::printf("%-52s ok (rel rms < %.0e)\n", what, bound);
  else std::printf("%-52s WRONG: rel rms %.3g > %.0e\n", what, rel, bound);
  std::fprintf(stderr, "%s: rel rms %.3g\n", what, rel);
}

// Complex-to-complex of any rank, batched, in place: forward, then inverse of that.
template <class T>
bool c2c(const std::vector<int>& dims, int batch, const char* name) {
  using C = typename Cx<T>::type;
  const bool dbl = sizeof(T) == 8;
  size_t n = 1;
  for (int d : dims) n *= d;
  std::vector<C> h(n * batch);
  std::vector<cld> in(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    h[i].x = T(next_value()), h[i].y = T(next_value());
    in[i] = cld(h[i].x, h[i].y);
  }
  C* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(C));
  cudaMemcpy(d, h.data(), h.size() * sizeof(C), cudaMemcpyHostToDevice);
  cufftHandle plan;
  std::vector<int> dd = dims;
  if (dims.size() == 1 && batch > 1)
    CHECK_FFT(cufftPlan1d(&plan, dims[0], dbl ? CUFFT_Z2Z : CUFFT_C2C, batch));
  else if (dims.size() == 2 && batch == 1)
    CHECK_FFT(cufftPlan2d(&plan, dims[0], dims[1], dbl ? CUFFT_Z2Z : CUFFT_C2C));
  else if (dims.size() == 3 && batch == 1)
    CHECK_FFT(cufftPlan3d(&plan, dims[0], dims[1], dims[2], dbl ? CUFFT_Z2Z : CUFFT_C2C));
  else
    CHECK_FFT(cufftPlanMany(&plan, int(dims.size()), dd.data(), nullptr, 1, int(n), nullptr, 1, int(n),
                            dbl ? CUFFT_Z2Z : CUFFT_C2C, batch));
  for (int sign : {-1, 1}) {
    if (dbl)
      CHECK_FFT(cufftExecZ2Z(plan, (cufftDoubleComplex*)d, (cufftDoubleComplex*)d, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE));
    else
      CHECK_FFT(cufftExecC2C(plan, (cufftComplex*)d, (cufftComplex*)d, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE));
    cudaMemcpy(h.data(), d, h.size() * sizeof(C), cudaMemcpyDeviceToHost);
    std::vector<cld> ref(n * batch), got(n * batch);
    for (int b = 0; b < batch; ++b) {
      auto r = dft(std::vector<cld>(in.begin() + b * n, in.begin() + (b + 1) * n), dims, sign);
      std::copy(r.begin(), r.end(), ref.begin() + b * n);
    }
    for (size_t i = 0; i < got.size(); ++i) got[i] = cld(h[i].x, h[i].y);
    char what[96];
    std::snprintf(what, sizeof what, "%s %s", name, sign < 0 ? "forward" : "inverse");
    report(what, ref, got, dbl);
    in = got;  // the inverse transforms what the forward produced
  }
  cufftDestroy(plan);
  cudaFree(d);
  return true;
}

// Real-to-complex and back, any rank, batched; out of place, or in place with cuFFT's padded rows
// (2 (n/2 + 1) reals). C2R of the forward's output is N times the input.
template <class T>
bool r2c(const std::vector<int>& dims, int batch, bool in_place, const char* name) {
  using C = typename Cx<T>::type;
  const bool dbl = sizeof(T) == 8;
  const int last = dims.back(), half = last / 2 + 1;
  size_t n = 1;
  for (int d : dims) n *= d;
  const size_t rows = n / last, nc = rows * half;               // complex elements a batch
  const size_t rpitch = in_place ? 2 * half : last, rdist = rows * rpitch;  // real layout
  std::vector<T> h(rdist * batch, T(0));
  std::vector<cld> in(n * batch);
  for (int b = 0; b < batch; ++b)
    for (size_t r = 0; r < rows; ++r)
      for (int k = 0; k < last; ++k) {
        T v = T(next_value());
        h[b * rdist + r * rpitch + k] = v;
        in[b * n + r * last + k] = cld(v, 0);
      }
  T* dr = nullptr;
  C* dc = nullptr;
  cudaMalloc(&dr, std::max(h.size() * sizeof(T), nc * batch * sizeof(C)));
  if (in_place) dc = (C*)dr;
  else cudaMalloc(&dc, nc * batch * sizeof(C));
  cudaMemcpy(dr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  cufftHandle fwd, inv;
  std::vector<int> dd = dims;
  CHECK_FFT(cufftPlanMany(&fwd, int(dims.size()), dd.data(), nullptr, 1, 0, nullptr, 1, 0, dbl ? CUFFT_D2Z : CUFFT_R2C, batch));
  CHECK_FFT(cufftPlanMany(&inv, int(dims.size()), dd.data(), nullptr, 1, 0, nullptr, 1, 0, dbl ? CUFFT_Z2D : CUFFT_C2R, batch));
  if (dbl) CHECK_FFT(cufftExecD2Z(fwd, (double*)dr, (cufftDoubleComplex*)dc));
  else CHECK_FFT(cufftExecR2C(fwd, (float*)dr, (cufftComplex*)dc));
  std::vector<C> hc(nc * batch);
  cudaMemcpy(hc.data(), dc, hc.size() * sizeof(C), cudaMemcpyDeviceToHost);
  std::vector<cld> ref, got;
  for (int b = 0; b < batch; ++b) {
    auto full = dft(std::vector<cld>(in.begin() + b * n, in.begin() + (b + 1) * n), dims, -1);
    for (size_t row = 0; row < rows; ++row)
      for (int k = 0; k < half; ++k) {
        ref.push_back(full[row * last + k]);
        got.push_back(cld(hc[b * nc + row * half + k].x, hc[b * nc + row * half + k].y));
      }
  }
  char what[96];
  std::snprintf(what, sizeof what, "%s forward", name);
  report(what, ref, got, dbl);
  if (dbl) CHECK_FFT(cufftExecZ2D(inv, (cufftDoubleComplex*)dc, (double*)dr));
  else CHECK_FFT(cufftExecC2R(inv, (cufftComplex*)dc, (float*)dr));
  cudaMemcpy(h.data(), dr, h.size() * sizeof(T), cudaMemcpyDeviceToHost);
  std::vector<cld> r2, g2;
  for (int b = 0; b < batch; ++b)
    for (size_t r = 0; r < rows; ++r)
      for (int k = 0; k < last; ++k) {
        r2.push_back(in[b * n + r * last + k] * (long double)n);
        g2.push_back(cld(h[b * rdist + r * rpitch + k], 0));
      }
  std::snprintf(what, sizeof what, "%s inverse (= N x input)", name);
  report(what, r2, g2, dbl);
  cufftDestroy(fwd);
  cufftDestroy(inv);
  cudaFree(dr);
  if (!in_place) cudaFree(dc);
  return true;
}

// Advanced layout: batch b's element j at b idist + j istride in, b odist + j ostride out, out of
// place, on a user stream with the caller's work area (auto-allocation off).
template <class T>
bool advanced(int n, int batch, int istride, int idist, int ostride, int odist, const char* name) {
  using C = typename Cx<T>::type;
  const bool dbl = sizeof(T) == 8;
  const size_t isize = size_t(batch - 1) * idist + size_t(n - 1) * istride + 1;
  const size_t osize = size_t(batch - 1) * odist + size_t(n - 1) * ostride + 1;
  std::vector<C> h(isize);
  for (auto& v : h) v.x = T(next_value()), v.y = T(next_value());
  C *d = nullptr, *o = nullptr;
  cudaMalloc(&d, isize * sizeof(C));
  cudaMalloc(&o, osize * sizeof(C));
  cudaMemcpy(d, h.data(), isize * sizeof(C), cudaMemcpyHostToDevice);
  cudaMemset(o, 0, osize * sizeof(C));
  cufftHandle plan;
  CHECK_FFT(cufftCreate(&plan));
  CHECK_FFT(cufftSetAutoAllocation(plan, 0));
  int dims[1] = {n}, iemb[1] = {n}, oemb[1] = {n};
  size_t work = 0;
  CHECK_FFT(cufftMakePlanMany(plan, 1, dims, iemb, istride, idist, oemb, ostride, odist, dbl ? CUFFT_Z2Z : CUFFT_C2C,
                              batch, &work));
  size_t work2 = 0;
  CHECK_FFT(cufftGetSize(plan, &work2));
  void* area = nullptr;
  cudaMalloc(&area, work2 ? work2 : 1);
  CHECK_FFT(cufftSetWorkArea(plan, area));
  cudaStream_t s;
  cudaStreamCreate(&s);
  CHECK_FFT(cufftSetStream(plan, s));
  if (dbl) CHECK_FFT(cufftExecZ2Z(plan, (cufftDoubleComplex*)d, (cufftDoubleComplex*)o, CUFFT_FORWARD));
  else CHECK_FFT(cufftExecC2C(plan, (cufftComplex*)d, (cufftComplex*)o, CUFFT_FORWARD));
  cudaStreamSynchronize(s);
  std::vector<C> ho(osize);
  cudaMemcpy(ho.data(), o, osize * sizeof(C), cudaMemcpyDeviceToHost);
  std::vector<cld> ref, got;
  for (int b = 0; b < batch; ++b) {
    std::vector<cld> one(n);
    for (int j = 0; j < n; ++j) one[j] = cld(h[b * idist + j * istride].x, h[b * idist + j * istride].y);
    auto r = dft(one, {n}, -1);
    for (int j = 0; j < n; ++j)
      ref.push_back(r[j]), got.push_back(cld(ho[b * odist + j * ostride].x, ho[b * odist + j * ostride].y));
  }
  report(name, ref, got, dbl);
  std::printf("%-52s %s\n", "  work size reported twice the same", work == work2 ? "yes" : "no");
  cufftDestroy(plan);
  cudaStreamDestroy(s);
  cudaFree(area);
  cudaFree(d);
  cudaFree(o);
  return true;
}

int main() {
  rng = 2024;
  bool ok = true;
  ok &= c2c<float>({65536}, 1, "C2C 65536");
  ok &= c2c<float>({17 * 19 * 23}, 2, "C2C 7429 (17 19 23) x2 batches");
  ok &= c2c<double>({1009}, 1, "Z2Z 1009 (prime)");
  ok &= c2c<double>({2 * 3 * 5 * 7 * 11 * 13}, 1, "Z2Z 30030 (2 3 5 7 11 13)");
  ok &= c2c<float>({67 * 71}, 3, "C2C 4757 (67 71) x3 batches");
  ok &= c2c<float>({1000, 1000}, 1, "C2C 1000x1000");
  ok &= c2c<double>({34, 19, 23}, 1, "Z2Z 34x19x23");
  ok &= c2c<float>({2, 4099}, 1, "C2C 2x4099 (prime)");
  ok &= r2c<float>({65536}, 2, true, "R2C/C2R 65536 x2 batches in place");
  ok &= r2c<double>({17 * 19 * 23}, 1, false, "D2Z/Z2D 7429");
  ok &= r2c<double>({4, 7429}, 1, true, "D2Z/Z2D 4x7429 in place");
  ok &= r2c<float>({2, 3, 4757}, 1, false, "R2C/C2R 2x3x4757");
  ok &= advanced<float>(7429, 3, 2, 2 * 7429 + 3, 1, 7433, "C2C 7429 x3 strided, stream, work area");
  ok &= advanced<double>(65536, 2, 1, 65536 + 8, 3, 1, "Z2Z 65536 x2 interleaved out, stream, work area");
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", cudaGetErrorString(e));
  return ok && e == cudaSuccess ? 0 : 1;
}
