#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <complex>
#include <vector>
static uint32_t rng = 7;
static double rnd() { rng = rng * 1664525u + 1013904223u; return double(rng >> 8) / double(1u << 24) - 0.5; }
static int st = 0;
static const char* stwhere = "";
#define CK(x) do { int s_ = int(x); if (s_ && !st) { st = s_; stwhere = #x; } } while (0)
static void report(const char* what, const std::vector<double>& ref, const std::vector<double>& got, double bound) {
  double maxref = 0, maxerr = 0;
  for (size_t i = 0; i < ref.size() && i < got.size(); ++i)
    maxref = std::max(maxref, std::fabs(ref[i])), maxerr = std::max(maxerr, std::fabs(ref[i] - got[i]));
  if (!(maxerr == maxerr)) maxerr = 1e30;
  double rel = maxerr / (maxref > 0 ? maxref : 1);
  bool ok = !st && rel <= bound && ref.size() == got.size();
  std::printf("%-44s %s", what, ok ? "PASS" : "FAIL");
  if (!ok) std::printf("  (status %d at %.60s; rel %.3g; %zu vs %zu)", st, stwhere, rel, got.size(), ref.size());
  std::printf("\n"); std::fflush(stdout);
  st = 0;
}
template <class T> struct Dev {
  T* p = nullptr; size_t n;
  explicit Dev(size_t c) : n(c) { cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)); cudaMemset(p, 0, std::max<size_t>(n,1) * sizeof(T)); }
  explicit Dev(const std::vector<T>& h) : Dev(h.size()) { cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice); }
  std::vector<T> host() const { std::vector<T> h(n); cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost); return h; }
  ~Dev() { cudaFree(p); }
};
template <class T> std::vector<double> dbl(const std::vector<T>& v) { return std::vector<double>(v.begin(), v.end()); }
