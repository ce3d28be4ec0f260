// The second translation unit of rdc_main.cu (nvcc -rdc=true).
#include <cstdio>

template <class T>
__device__ T twice(T x) {
  return x + x;
}
static __device__ int counter;
__device__ float table[4] = {0.f, 10.f, 20.f, 30.f};
__device__ int lib_value(int x) { return twice(x) + x; }

__global__ void count(int* o) {
  atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    *o = counter;
    printf("library unit: counter = %d\n", *o);
  }
}

int lib_count(int* scratch) {
  count<<<1, 5>>>(scratch);
  int h = 0;
  cudaMemcpy(&h, scratch, sizeof h, cudaMemcpyDeviceToHost);
  return h;
}
