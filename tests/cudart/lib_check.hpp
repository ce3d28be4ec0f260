// What the library test programs (cublas_ex.cu, cusparse_more.cu) share: a reproducible input
// generator, a status check that keeps a case's first failing call, the per-case verdict against a
// CPU reference, and a device buffer. A verdict line says only "ok" or "WRONG", so the output is the
// same on any correct GPU and is compared byte for byte with what our H100 printed.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

inline uint32_t rng = 1;  // each program seeds it first thing in main()
inline double rnd() {
  rng = rng * 1664525u + 1013904223u;
  return double(rng >> 8) / double(1u << 24) - 0.5;
}
inline std::vector<double> rvec(size_t n) {
  std::vector<double> v(n);
  for (auto& x : v) x = rnd();
  return v;
}
inline int st = 0;  // the first failing status of the current case
#define CK(x)                                   \
  do {                                          \
    int s_ = int(x);                            \
    if (s_ && !st) {                            \
      st = s_;                                  \
      std::printf("  %s: status %d\n", #x, s_); \
    }                                           \
  } while (0)
inline bool failed = false;
inline int report_width = 44;  // the case name's column
// One case's verdict: every call succeeded and the largest error relative to the largest reference
// value is within `bound`.
inline void report(const char* what, const std::vector<double>& ref, const std::vector<double>& got, double bound) {
  double maxref = 0, maxerr = 0;
  for (size_t i = 0; i < ref.size() && i < got.size(); ++i)
    maxref = std::max(maxref, std::fabs(ref[i])), maxerr = std::max(maxerr, std::fabs(ref[i] - got[i]));
  if (!(maxerr == maxerr)) maxerr = INFINITY;
  const double rel = maxerr / (maxref > 0 ? maxref : 1);
  const bool ok = !st && rel <= bound && ref.size() == got.size();
  std::printf("%-*s %s\n", report_width, what, ok ? "ok" : "WRONG");
  if (!ok) std::printf("  relative error %.3g > %.3g, %zu vs %zu values\n", rel, bound, got.size(), ref.size()), failed = true;
  st = 0;
}
template <class T>
struct Dev {
  T* p = nullptr;
  size_t n;
  explicit Dev(size_t c) : n(c) {
    cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T));
    cudaMemset(p, 0, std::max<size_t>(n, 1) * sizeof(T));
  }
  explicit Dev(const std::vector<T>& h) : Dev(h.size()) { cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice); }
  std::vector<T> host() const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
  ~Dev() { cudaFree(p); }
};
