// Library kernels at realistic sizes (validation/libtime/): cufftExecC2C forward, 2^16 points x 16
// batches, checked against a CPU FFT (double, radix-2) by relative RMS error.
#include <cufft.h>
#include <cuda_runtime.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() { uint64_t z = (st += 0x9e3779b97f4a7c15ull); z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
static float u() { return float(rnd() >> 40) / float(1 << 24) - 0.5f; }
typedef std::complex<double> cd;
static void fft(std::vector<cd>& a) {  // iterative radix-2, forward (e^-i)
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) { size_t b = n >> 1; for (; j & b; b >>= 1) j ^= b; j ^= b; if (i < j) std::swap(a[i], a[j]); }
  for (size_t len = 2; len <= n; len <<= 1) {
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < len / 2; ++k) {
        cd w = std::polar(1.0, -2 * M_PI * double(k) / double(len));
        cd p = a[i + k], q = a[i + k + len / 2] * w; a[i + k] = p + q; a[i + k + len / 2] = p - q;
      }
  }
}

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 1;
  const int n = 65536 / scale, batch = 16;
  std::vector<cufftComplex> in(size_t(n) * batch), out(in.size());
  for (auto& c : in) { c.x = u(); c.y = u(); }
  cufftComplex* d; if (cudaMalloc(&d, in.size() * sizeof(cufftComplex)) != cudaSuccess) return 1;
  cudaMemcpy(d, in.data(), in.size() * sizeof(cufftComplex), cudaMemcpyHostToDevice);
  cufftHandle p;
  if (cufftPlan1d(&p, n, CUFFT_C2C, batch) != CUFFT_SUCCESS) { std::printf("plan failed\n"); return 1; }
  if (cufftExecC2C(p, d, d, CUFFT_FORWARD) != CUFFT_SUCCESS) { std::printf("exec failed\n"); return 1; }
  cudaMemcpy(out.data(), d, out.size() * sizeof(cufftComplex), cudaMemcpyDeviceToHost);
  double e2 = 0, r2 = 0;
  for (int b = 0; b < batch; ++b) {
    std::vector<cd> a(n);
    for (int i = 0; i < n; ++i) a[i] = cd(in[size_t(b) * n + i].x, in[size_t(b) * n + i].y);
    fft(a);
    for (int i = 0; i < n; ++i) { cd g(out[size_t(b) * n + i].x, out[size_t(b) * n + i].y); e2 += std::norm(g - a[i]); r2 += std::norm(a[i]); }
  }
  bool ok = std::sqrt(e2 / r2) < 1e-5;
  std::printf("cufftExecC2C %d x %d: %s\n", n, batch, ok ? "ok" : "FAIL");
  cufftDestroy(p);
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}
