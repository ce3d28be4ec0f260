// Library kernels at realistic sizes (validation/libtime/): cublasSgemm 1024^3 (column-major, no
// transposes) and cublasSgemv 4096x4096, each checked against a CPU reference (double
// accumulation; the GEMM on 64 sampled entries, the GEMV on every row).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() { uint64_t z = (st += 0x9e3779b97f4a7c15ull); z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
static float u() { return float(rnd() >> 40) / float(1 << 24) - 0.5f; }
#define CK(x) do { auto e_ = (x); if (int(e_) != 0) { std::printf("line %d: error %d\n", __LINE__, int(e_)); return 1; } } while (0)

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 1;
  const int n = 1024 / scale, m = 4096 / scale;
  std::vector<float> A(size_t(n) * n), B(size_t(n) * n), G(size_t(m) * m), x(m);
  for (auto& a : A) a = u(); for (auto& b : B) b = u(); for (auto& g : G) g = u(); for (auto& t : x) t = u();
  float *dA, *dB, *dC, *dG, *dx, *dy;
  CK(cudaMalloc(&dA, A.size() * 4)); CK(cudaMalloc(&dB, B.size() * 4)); CK(cudaMalloc(&dC, A.size() * 4));
  CK(cudaMalloc(&dG, G.size() * 4)); CK(cudaMalloc(&dx, m * 4)); CK(cudaMalloc(&dy, m * 4));
  CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dG, G.data(), G.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dx, x.data(), m * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h; CK(cublasCreate(&h));
  const float one = 1.0f, zero = 0.0f;
  CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dA, n, dB, n, &zero, dC, n));
  CK(cublasSgemv(h, CUBLAS_OP_N, m, m, &one, dG, m, dx, 1, &zero, dy, 1));
  CK(cudaDeviceSynchronize());
  std::vector<float> C(A.size()), y(m);
  CK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), dy, m * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int s = 0; s < 64; ++s) {  // C = A B, column-major; the H100 may use TF32-free FFMA: 1e-4 relative to the row norm
    int i = int(rnd() % n), j = int(rnd() % n); double r = 0, mag = 0;
    for (int k = 0; k < n; ++k) { r += double(A[size_t(k) * n + i]) * B[size_t(j) * n + k]; mag += std::fabs(double(A[size_t(k) * n + i]) * B[size_t(j) * n + k]); }
    ok &= std::fabs(C[size_t(j) * n + i] - r) <= 1e-5 * mag + 1e-6;
  }
  std::printf("cublasSgemm %d^3: %s\n", n, ok ? "ok" : "FAIL");
  bool ok2 = true;
  for (int i = 0; i < m; ++i) {
    double r = 0, mag = 0;
    for (int k = 0; k < m; ++k) { r += double(G[size_t(k) * m + i]) * x[k]; mag += std::fabs(double(G[size_t(k) * m + i]) * x[k]); }
    ok2 &= std::fabs(y[i] - r) <= 1e-5 * mag + 1e-6;
  }
  std::printf("cublasSgemv %d: %s\n", m, ok2 ? "ok" : "FAIL");
  cublasDestroy(h);
  std::printf("%s\n", ok && ok2 ? "PASSED" : "FAILED");
  return !(ok && ok2);
}
