// cudaOccupancyMaxActiveClusters over cluster sizes 1..16 and CTAs per SM (block size, shared memory).
#include <cstdio>
__global__ void k(int* p) { if (p) p[threadIdx.x] = 0; }
int main() {
  cudaFuncSetAttribute((const void*)k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaFuncSetAttribute((const void*)k, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 << 10);
  struct C { unsigned threads, smem; } cs[] = {{1024, 0}, {512, 0}, {256, 0}, {128, 0}, {64, 0}, {32, 0},
                                               {128, 200 << 10}, {128, 70 << 10}, {128, 40 << 10}, {128, 20 << 10}};
  for (auto c : cs) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, c.threads, c.smem);
    std::printf("threads %u smem %u per_sm %d:", c.threads, c.smem, per_sm);
    for (unsigned n = 1; n <= 16; ++n) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(n * 4);
      cfg.blockDim = dim3(c.threads);
      cfg.dynamicSmemBytes = c.smem;
      cudaLaunchAttribute a;
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = n; a.val.clusterDim.y = 1; a.val.clusterDim.z = 1;
      cfg.attrs = &a; cfg.numAttrs = 1;
      int m = -1;
      cudaError_t e = cudaOccupancyMaxActiveClusters(&m, (const void*)k, &cfg);
      if (e) std::printf(" %s", cudaGetErrorName(e)); else std::printf(" %d", m);
    }
    std::printf("\n");
  }
  return 0;
}
