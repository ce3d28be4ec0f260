// Kernel resources and occupancy under warpsim: cudaFuncGetAttributes must report ptxas's register
// counts (the fatbinary's sm_80 cubin), and cudaOccupancyMaxActiveBlocksPerMultiprocessor must
// agree with NVIDIA's occupancy calculator (cuda_occupancy.h, evaluated here on the host with the
// device properties and function attributes our runtime reports) and with hand-computed values.
// Prints "attr NAME regs=N local=N maxThreads=N smem=N" lines (res_usage.sh compares them with
// `ptxas -v`) and "occ ..." lines (compared with res_usage.expected).
#include <cuda_occupancy.h>
#include <cstdio>

__global__ void tiny(float* o) { o[threadIdx.x] *= 2.f; }

__global__ void __launch_bounds__(128) bounded(float* o, int n) {
  float a[64];
  for (int i = 0; i < 64; i++) a[i] = o[i * n];
  o[threadIdx.x] = a[n & 63];
}

__global__ void heavy(double* o) {
  double a0 = o[0], a1 = o[1], a2 = o[2], a3 = o[3], a4 = o[4], a5 = o[5], a6 = o[6], a7 = o[7];
  double b0 = o[8], b1 = o[9], b2 = o[10], b3 = o[11], b4 = o[12], b5 = o[13], b6 = o[14], b7 = o[15];
  for (int i = 0; i < 100; i++) {
    a0 = a0 * b1 + a2; a1 = a1 * b2 + a3; a2 = a2 * b3 + a4; a3 = a3 * b4 + a5;
    a4 = a4 * b5 + a6; a5 = a5 * b6 + a7; a6 = a6 * b7 + a0; a7 = a7 * b0 + a1;
    b0 = b0 * a1 + b2; b1 = b1 * a2 + b3; b2 = b2 * a3 + b4; b3 = b3 * a4 + b5;
    b4 = b4 * a5 + b6; b5 = b5 * a6 + b7; b6 = b6 * a7 + b0; b7 = b7 * a0 + b1;
  }
  o[threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7;
}

__global__ void shared_static(float* o) {
  __shared__ float buf[4096];  // 16 KB
  buf[threadIdx.x] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}

extern __shared__ float dyn[];
__global__ void shared_dynamic(float* o) {
  dyn[threadIdx.x] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

static int failures = 0;

template <class K>
void attr(const char* name, K k) {
  cudaFuncAttributes a;
  if (cudaFuncGetAttributes(&a, k) != cudaSuccess) {
    printf("attr %s: cudaFuncGetAttributes failed\n", name);
    failures++;
    return;
  }
  printf("attr %s regs=%d local=%zu maxThreads=%d smem=%zu\n", name, a.numRegs, a.localSizeBytes,
         a.maxThreadsPerBlock, a.sharedSizeBytes);
}

template <class K>
void occ(const char* name, K k, int block, size_t dsmem, int carveout = -1) {
  int ours = -1;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ours, k, block, dsmem);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  cudaFuncAttributes a;
  cudaFuncGetAttributes(&a, k);
  // The header checks the block size against the device's limit only; the runtime (like a launch)
  // also against the kernel's (__launch_bounds__, registers).
  if (a.maxThreadsPerBlock < p.maxThreadsPerBlock) p.maxThreadsPerBlock = a.maxThreadsPerBlock;
  cudaOccDeviceProp dp(p);
  cudaOccFuncAttributes fa(a);
  cudaOccDeviceState st;
  if (carveout >= 0) st.carveoutConfig = carveout;
  cudaOccResult r;
  int ref = -1;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &dp, &fa, &st, block, dsmem) == CUDA_OCC_SUCCESS)
    ref = r.activeBlocksPerMultiprocessor;
  printf("occ %s block=%d dsmem=%zu blocks=%d%s\n", name, block, dsmem, ours,
         e != cudaSuccess ? " (error)" : ours == ref ? "" : " (cuda_occupancy.h differs)");
  if (e != cudaSuccess || ours != ref) {
    fprintf(stderr, "occ %s block=%d dsmem=%zu: ours %d, cuda_occupancy.h %d\n", name, block, dsmem, ours, ref);
    failures++;
  }
}

int main() {
  attr("tiny", tiny);
  attr("bounded", bounded);
  attr("heavy", heavy);
  attr("shared_static", shared_static);
  attr("shared_dynamic", shared_dynamic);
  // Warps: 2048 threads / SM, 32 blocks / SM.
  occ("tiny", tiny, 32, 0);     // 32 blocks (block limit)
  occ("tiny", tiny, 256, 0);    // 8 (warps: 64 / 8)
  occ("tiny", tiny, 1024, 0);   // 2
  occ("tiny", tiny, 96, 0);     // 21 (64 warps / 3)
  occ("bounded", bounded, 128, 0);
  occ("bounded", bounded, 256, 0);  // over __launch_bounds__(128): 0
  occ("heavy", heavy, 128, 0);
  occ("heavy", heavy, 256, 0);
  occ("heavy", heavy, 1024, 0);
  // Shared memory: 16 KB + 1 KB reserved = 17 KB per block -> 164 / 17 = 9 blocks.
  occ("shared_static", shared_static, 128, 0);
  occ("shared_dynamic", shared_dynamic, 128, 0);
  occ("shared_dynamic", shared_dynamic, 128, 48 * 1024);   // 49 KB -> 3
  occ("shared_dynamic", shared_dynamic, 128, 48 * 1024 + 1);  // over the default limit: 0
  occ("shared_dynamic", shared_dynamic, 64, 1000);         // 1000+1024 -> 2048 B -> 32 (blocks)
  occ("shared_dynamic", shared_dynamic, 64, 4000);         // 5024 -> 5120 B -> 32 ... 164K/5120 = 32
  occ("shared_dynamic", shared_dynamic, 64, 8000);         // 9024 -> 9088 B -> 18
  cudaFuncSetAttribute(shared_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);
  occ("shared_dynamic", shared_dynamic, 128, 100 * 1024);  // 101 KB -> 1
  occ("shared_dynamic", shared_dynamic, 128, 60 * 1024);   // 61 KB -> 2
  cudaFuncSetAttribute(shared_dynamic, cudaFuncAttributePreferredSharedMemoryCarveout, 25);
  occ("shared_dynamic", shared_dynamic, 128, 8000, 25);    // carveout 25% of 164 KB = 41 KB -> 64 KB: 7
  fflush(stdout);
  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
