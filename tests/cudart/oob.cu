// A kernel that stores far outside its allocation: warpsim must report the fault (kernel, block,
// thread, PTX line) and the program must see cudaErrorIllegalAddress, sticky, like on hardware.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void oob(int* p, long long stride) { p[threadIdx.x * stride] = 1; }

int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 256 * sizeof(int)) != cudaSuccess) return 2;
  oob<<<1, 64>>>(d, 1ll << 30);  // thread 1 writes 4 GiB past the allocation
  cudaError_t sync = cudaDeviceSynchronize();
  cudaError_t again = cudaMemset(d, 0, 16);  // sticky: later calls fail too
  printf("oob: sync=%s later=%s\n", cudaGetErrorName(sync), cudaGetErrorName(again));
  return sync == cudaErrorIllegalAddress && again == cudaErrorIllegalAddress ? 0 : 1;
}
