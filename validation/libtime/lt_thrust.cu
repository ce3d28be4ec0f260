// Library kernels at realistic sizes (validation/libtime/): thrust::transform (saxpy) of 4M floats
// and thrust::reduce of its result, checked against a CPU reference.
#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>
#include <thrust/functional.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct saxpy { float a; __host__ __device__ float operator()(float x, float y) const { return a * x + y; } };
static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() { uint64_t z = (st += 0x9e3779b97f4a7c15ull); z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 1;
  const int n = (4 << 20) / scale;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) { x[i] = float(rnd() >> 40) / float(1 << 24); y[i] = float(rnd() >> 40) / float(1 << 24); }
  thrust::device_vector<float> dx(x.begin(), x.end()), dy(y.begin(), y.end()), dz(n);
  thrust::transform(dx.begin(), dx.end(), dy.begin(), dz.begin(), saxpy{2.0f});
  float s = thrust::reduce(dz.begin(), dz.end(), 0.0f, thrust::plus<float>());
  std::vector<float> z(n); thrust::copy(dz.begin(), dz.end(), z.begin());
  bool ok = true; double ref = 0;
  for (int i = 0; i < n; ++i) { float r = 2.0f * x[i] + y[i]; ok &= std::fabs(z[i] - r) <= 1e-6f * std::fabs(r); ref += r; }
  std::printf("thrust::transform saxpy 4M: %s\n", ok ? "ok" : "FAIL");
  bool ok2 = std::fabs(s - ref) <= 1e-5 * ref;
  std::printf("thrust::reduce 4M: %s\n", ok2 ? "ok" : "FAIL");
  std::printf("%s\n", ok && ok2 ? "PASSED" : "FAILED");
  return !(ok && ok2);
}
