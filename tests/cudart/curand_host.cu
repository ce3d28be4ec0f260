// The cuRAND host API (curandCreateGenerator) generates on the GPU through the CUDA driver API,
// which warpsim does not simulate: it must fail with cuRAND's own error and warpsim's explanation
// on stderr, not crash or hang, and the program's runtime-API work must carry on. Likewise
// cudaGetDriverEntryPoint finds nothing (and clears the pointer).
#include <curand.h>

#include <cstdio>

__global__ void twice(float* p) { p[threadIdx.x] = 2.0f * threadIdx.x; }

int main() {
  curandGenerator_t gen;
  curandStatus_t st = curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  std::printf("curandCreateGenerator: %s\n",
              st == CURAND_STATUS_SUCCESS ? "CURAND_STATUS_SUCCESS"
              : st == CURAND_STATUS_INITIALIZATION_FAILED ? "CURAND_STATUS_INITIALIZATION_FAILED"
                                                          : "another error");
  if (st == CURAND_STATUS_SUCCESS) curandDestroyGenerator(gen);
  void* fn = reinterpret_cast<void*>(&twice);
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSuccess;
  cudaError_t ge = cudaGetDriverEntryPoint("cuLaunchKernel", &fn, cudaEnableDefault, &q);
  std::printf("cudaGetDriverEntryPoint(cuLaunchKernel): %s, pointer %s\n", ge == cudaSuccess ? "found" : "not found",
              fn ? "set" : "null");
  cudaGetLastError();
  float* d;
  cudaMalloc(&d, 32 * sizeof(float));
  twice<<<1, 32>>>(d);
  float h[32];
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = e == cudaSuccess;
  for (int i = 0; i < 32; ++i) ok &= h[i] == 2.0f * i;
  std::printf("runtime API afterwards: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
