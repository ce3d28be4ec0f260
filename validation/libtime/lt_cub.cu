// Library kernels at realistic sizes, timed per kernel against our H100 (validation/libtime/):
// cub::DeviceRadixSort::SortPairs of 1M uint32 pairs, DeviceReduce::Sum and DeviceScan::InclusiveSum
// of 4M floats. Each result is checked against a CPU reference; the output depends only on the
// verdicts. Inputs come from a fixed splitmix64 stream, so every run launches the same kernels.
#include <cub/cub.cuh>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

static int failures = 0;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("line %d: %s\n", __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)
static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() { uint64_t z = (st += 0x9e3779b97f4a7c15ull); z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
static void report(const char* w, bool ok) { std::printf("%s: %s\n", w, ok ? "ok" : "FAIL"); if (!ok) ++failures; }

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 1;  // inputs divided by this (for quick checks)
  const int nsort = (1 << 20) / scale, nf = (4 << 20) / scale;
  std::vector<uint32_t> k(nsort), v(nsort);
  for (int i = 0; i < nsort; ++i) { k[i] = uint32_t(rnd()); v[i] = uint32_t(i); }
  std::vector<float> f(nf);
  for (auto& x : f) x = float(rnd() >> 40) / float(1 << 24);  // [0,1), exact in 24 bits
  uint32_t *dk, *dv, *dk2, *dv2; float *df, *dsum, *dscan;
  CK(cudaMalloc(&dk, nsort * 4)); CK(cudaMalloc(&dv, nsort * 4)); CK(cudaMalloc(&dk2, nsort * 4)); CK(cudaMalloc(&dv2, nsort * 4));
  CK(cudaMalloc(&df, nf * 4)); CK(cudaMalloc(&dsum, 4)); CK(cudaMalloc(&dscan, size_t(nf) * 4));
  CK(cudaMemcpy(dk, k.data(), nsort * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dv, v.data(), nsort * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(df, f.data(), size_t(nf) * 4, cudaMemcpyHostToDevice));
  size_t b1 = 0, b2 = 0, b3 = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, b1, dk, dk2, dv, dv2, nsort));
  CK(cub::DeviceReduce::Sum(nullptr, b2, df, dsum, nf));
  CK(cub::DeviceScan::InclusiveSum(nullptr, b3, df, dscan, nf));
  void* tmp; CK(cudaMalloc(&tmp, std::max(b1, std::max(b2, b3))));
  CK(cub::DeviceRadixSort::SortPairs(tmp, b1, dk, dk2, dv, dv2, nsort));
  CK(cub::DeviceReduce::Sum(tmp, b2, df, dsum, nf));
  CK(cub::DeviceScan::InclusiveSum(tmp, b3, df, dscan, nf));
  CK(cudaDeviceSynchronize());
  std::vector<uint32_t> rk(nsort), rv(nsort);
  CK(cudaMemcpy(rk.data(), dk2, nsort * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(rv.data(), dv2, nsort * 4, cudaMemcpyDeviceToHost));
  std::vector<uint64_t> ref(nsort);  // stable sort by key: (key, original index)
  for (int i = 0; i < nsort; ++i) ref[i] = (uint64_t(k[i]) << 32) | uint32_t(i);
  std::sort(ref.begin(), ref.end());
  bool ok = true;
  for (int i = 0; i < nsort; ++i) ok &= rk[i] == uint32_t(ref[i] >> 32) && rv[i] == uint32_t(ref[i]);
  report("DeviceRadixSort::SortPairs 1M u32 pairs", ok);
  float gsum; CK(cudaMemcpy(&gsum, dsum, 4, cudaMemcpyDeviceToHost));
  double s = 0; for (float x : f) s += x;
  report("DeviceReduce::Sum 4M floats", std::fabs(gsum - s) <= 1e-5 * s);
  std::vector<float> sc(nf); CK(cudaMemcpy(sc.data(), dscan, size_t(nf) * 4, cudaMemcpyDeviceToHost));
  double run = 0; ok = true;
  for (int i = 0; i < nf; ++i) { run += f[i]; ok &= std::fabs(sc[i] - run) <= 1e-5 * run + 1e-6; }
  report("DeviceScan::InclusiveSum 4M floats", ok);
  std::printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
