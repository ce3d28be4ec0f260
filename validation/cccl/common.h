// Shared helpers of the CCCL survey programs: a case table selectable by index, a deterministic
// generator, PASS/FAIL lines that depend only on the CPU reference's verdict.
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() {  // splitmix64
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double rndu() { return double(rnd() >> 11) / double(1ull << 53); }
static int st_err = 0;
static const char* st_where = "";
#define CK(x)                                               \
  do {                                                      \
    cudaError_t e_ = (x);                                   \
    if (e_ != cudaSuccess && !st_err) { st_err = e_; st_where = #x; } \
  } while (0)
// A cub call twice: the size query (tmp_ null), then the work with tb_ bytes of temporary storage.
#define CUB2(...)                          \
  do {                                     \
    void* tmp_ = nullptr;                  \
    size_t tb_ = 0;                        \
    CK(__VA_ARGS__);                       \
    CK(cudaMalloc(&tmp_, tb_ ? tb_ : 1));  \
    CK(__VA_ARGS__);                       \
    CK(cudaDeviceSynchronize());           \
    CK(cudaFree(tmp_));                    \
  } while (0)

static int failures = 0;
static void report(const char* what, bool ok) {
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  ok = ok && !st_err;
  std::printf("%-52s %s", what, ok ? "PASS" : "FAIL");
  if (st_err) std::printf("  (%s at %.70s)", cudaGetErrorString(cudaError_t(st_err)), st_where);
  std::printf("\n");
  std::fflush(stdout);
  if (!ok) ++failures;
  st_err = 0;
}

template <typename T>
struct Dev {
  T* p = nullptr;
  size_t n = 0;
  explicit Dev(size_t n_) : n(n_) { CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T) + 64)); CK(cudaMemset(p, 0, n * sizeof(T))); }
  explicit Dev(const std::vector<T>& v) : Dev(v.size()) {
    CK(cudaMemcpy(p, v.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  std::vector<T> get(size_t m = 0) const {
    std::vector<T> v(m ? m : n);
    CK(cudaMemcpy(v.data(), p, v.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
};

struct Case { const char* name; std::function<bool()> run; };
// ./prog [i,j,...]: runs the listed cases (all without an argument).
static int run_cases(int argc, char** argv, const std::vector<Case>& cases) {
  std::vector<int> pick;
  if (argc > 1) {
    for (char* s = argv[1]; *s;) { pick.push_back(std::atoi(s)); while (*s && *s != ',') ++s; if (*s) ++s; }
  } else {
    for (size_t i = 0; i < cases.size(); ++i) pick.push_back(int(i));
  }
  for (int i : pick) {
    if (i < 0 || i >= int(cases.size())) { std::printf("no case %d\n", i); ++failures; continue; }
    char what[96];
    std::snprintf(what, sizeof what, "%2d %s", i, cases[i].name);
    bool ok = cases[i].run();
    report(what, ok);
  }
  std::printf("%s\n", failures ? "FAILURES" : "ALL PASS");
  return failures ? 1 : 0;
}
