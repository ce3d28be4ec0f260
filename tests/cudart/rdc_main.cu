// Relocatable device code (nvcc -rdc=true, with rdc_lib.cu): a kernel calls a __device__
// function and reads a __device__ array defined in the other translation unit; both units have a
// static __device__ variable of the same name, the same template instance, and printf format
// strings (nvcc's "$str" in both PTX files). Checked against CPU references.
#include <cstdio>

template <class T>
__device__ T twice(T x) {
  return x + x;
}
static __device__ int counter;  // internal to this unit; rdc_lib.cu has its own
__device__ int lib_value(int);  // rdc_lib.cu
extern __device__ float table[4];
int lib_count(int* scratch);  // runs a kernel of rdc_lib.cu that counts into its own `counter`

__global__ void k(int* o) {
  atomicAdd(&counter, 1);
  o[threadIdx.x] = twice(lib_value(threadIdx.x)) + int(table[threadIdx.x % 4]);
  if (threadIdx.x == 0) printf("main unit: o[0] = %d\n", o[0]);
}
__global__ void read_counter(int* o) { *o = counter; }

int main() {
  int* d;
  cudaMalloc(&d, 128 * sizeof(int));
  k<<<1, 32>>>(d);
  int h[32];
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = e == cudaSuccess;
  for (int i = 0; i < 32; ++i) ok &= h[i] == 2 * (3 * i) + (i % 4) * 10;  // lib_value(x) = 3x
  std::printf("cross-unit function and variable: %s\n", ok ? "yes" : "NO");
  read_counter<<<1, 1>>>(d + 64);
  int main_count = 0;
  cudaMemcpy(&main_count, d + 64, sizeof(int), cudaMemcpyDeviceToHost);
  const int lib = lib_count(d + 96);
  const bool ok2 = main_count == 32 && lib == 5;
  std::printf("same-named static variables stay separate: %s\n", ok2 ? "yes" : "NO");
  std::printf("rdc: %s\n", ok && ok2 ? "PASS" : "FAIL");
  return ok && ok2 ? 0 : 1;
}
