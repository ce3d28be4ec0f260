// CUDA dynamic parallelism (kernels launching kernels; -rdc=true -lcudadevrt) is not simulated:
// the launch of a kernel that uses it must fail with a clear error, not hang or crash.
#include <cstdio>
__global__ void child(int* p, int base) { p[base + threadIdx.x] = base + threadIdx.x; }
__global__ void parent(int* p) { child<<<1, 32>>>(p, threadIdx.x * 32); }
int main() {
  int* d;
  cudaMalloc(&d, 4 * 32 * 4);
  cudaMemset(d, 0xff, 4 * 32 * 4);
  parent<<<1, 4>>>(d);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  int h[128];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = launch == cudaSuccess && sync == cudaSuccess;
  for (int i = 0; i < 128; ++i) ok &= h[i] == i;
  std::printf("launch: %s\nsynchronize: %s\ndynamic parallelism: %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
              ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
