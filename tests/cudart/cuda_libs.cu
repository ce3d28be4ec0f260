// CUDA libraries as users call them, built with nvcc: curand's device API (Philox), cub's
// DeviceReduce and DeviceRadixSort (onesweep; kernels with hundreds to thousands of PTX virtual
// registers), thrust's transform_reduce and sort. Every result is checked against a CPU reference;
// only checks that do not depend on summation order are printed. Runs in functional and timing
// mode (tests/cudart/CMakeLists.txt).
#include <cub/cub.cuh>
#include <curand_kernel.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::printf("cuda_libs: FAIL (%s: %s)\n", #x, cudaGetErrorString(e_));           \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

__global__ void uniforms(float* out, int n, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, i, 0, &s);
  out[i] = curand_uniform(&s);
}

struct square {
  __host__ __device__ double operator()(float x) const { return double(x) * x; }
};

int main() {
  const int n = 1 << 15;
  bool ok = true;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  uniforms<<<(n + 255) / 256, 256>>>(d, n, 1234);
  CHECK(cudaGetLastError());
  std::vector<float> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  int in_range = 0, distinct = 0;
  for (float x : h) {
    sum += x;
    in_range += x > 0.f && x <= 1.f;
  }
  {
    std::vector<float> s = h;
    std::sort(s.begin(), s.end());
    distinct = int(std::unique(s.begin(), s.end()) - s.begin());
  }
  const bool rng_ok = in_range == n && std::fabs(sum / n - 0.5) < 0.01 && distinct > n - 64;
  std::printf("curand philox: %d uniforms in (0,1], mean within 0.01 of 0.5, nearly all distinct: %s\n", n,
              rng_ok ? "yes" : "NO");
  ok &= rng_ok;

  // cub::DeviceReduce::Sum against the CPU sum (float accumulation: relative 1e-5).
  float* dsum = nullptr;
  CHECK(cudaMalloc(&dsum, sizeof(float)));
  void* tmp = nullptr;
  size_t tmp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d, dsum, n));
  CHECK(cudaMalloc(&tmp, tmp_bytes));
  CHECK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d, dsum, n));
  float gsum = 0;
  CHECK(cudaMemcpy(&gsum, dsum, sizeof(float), cudaMemcpyDeviceToHost));
  const bool red_ok = std::fabs(gsum - sum) <= 1e-5 * sum;
  std::printf("cub::DeviceReduce::Sum matches the CPU sum: %s\n", red_ok ? "yes" : "NO");
  ok &= red_ok;

  // cub::DeviceRadixSort::SortPairs on 32-bit keys with their indices as values, against std::sort.
  std::vector<unsigned> keys(n), vals(n);
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    keys[i] = x ^ (x >> 13);
    vals[i] = unsigned(i);
  }
  unsigned *dk, *dk2, *dv, *dv2;
  CHECK(cudaMalloc(&dk, n * 4));
  CHECK(cudaMalloc(&dk2, n * 4));
  CHECK(cudaMalloc(&dv, n * 4));
  CHECK(cudaMalloc(&dv2, n * 4));
  CHECK(cudaMemcpy(dk, keys.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, vals.data(), n * 4, cudaMemcpyHostToDevice));
  void* tmp2 = nullptr;
  size_t tmp2_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(tmp2, tmp2_bytes, dk, dk2, dv, dv2, n));
  CHECK(cudaMalloc(&tmp2, tmp2_bytes));
  CHECK(cub::DeviceRadixSort::SortPairs(tmp2, tmp2_bytes, dk, dk2, dv, dv2, n));
  std::vector<unsigned> gk(n), gv(n);
  CHECK(cudaMemcpy(gk.data(), dk2, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gv.data(), dv2, n * 4, cudaMemcpyDeviceToHost));
  std::vector<std::pair<unsigned, unsigned>> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = {keys[i], vals[i]};
  std::stable_sort(ref.begin(), ref.end(), [](auto& a, auto& b) { return a.first < b.first; });
  bool sort_ok = true;
  for (int i = 0; i < n; ++i) sort_ok &= gk[i] == ref[i].first && gv[i] == ref[i].second;
  std::printf("cub::DeviceRadixSort::SortPairs is a stable sort: %s\n", sort_ok ? "yes" : "NO");
  ok &= sort_ok;

  // thrust::transform_reduce (double accumulation) and thrust::sort of floats.
  thrust::device_vector<float> v(h.begin(), h.end());
  const double tq = thrust::transform_reduce(v.begin(), v.end(), square(), 0.0, thrust::plus<double>());
  double cq = 0;
  for (float f : h) cq += double(f) * f;
  const bool tr_ok = std::fabs(tq - cq) <= 1e-9 * cq;
  std::printf("thrust::transform_reduce matches the CPU sum of squares: %s\n", tr_ok ? "yes" : "NO");
  ok &= tr_ok;
  thrust::sort(v.begin(), v.end());
  std::vector<float> sorted(n), hs = h;
  thrust::copy(v.begin(), v.end(), sorted.begin());
  std::sort(hs.begin(), hs.end());
  const bool ts_ok = sorted == hs;
  std::printf("thrust::sort matches std::sort: %s\n", ts_ok ? "yes" : "NO");
  ok &= ts_ok;

  std::printf("cuda_libs: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
