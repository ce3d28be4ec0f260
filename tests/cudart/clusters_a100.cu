// Thread-block clusters need compute capability 9.0: on the A100 (cc 8.0) a launch with clusters
// of more than one CTA is refused with cudaErrorNotSupported (not measured: we have no A100; the
// H100's answers are in clusters.cu), clusters of one CTA run, cudaDevAttrClusterLaunch is 0 and
// the largest potential cluster is one CTA.
#include <cstdio>

__global__ void plain(int* out) { out[blockIdx.x] = int(blockIdx.x) * 10; }

cudaError_t launch(dim3 grid, unsigned cluster, int* d) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(32);
  cudaLaunchAttribute a;
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  cfg.attrs = &a;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, plain, d);
}

int main() {
  int* d;
  cudaMalloc(&d, 64);
  int v = -1;
  cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0);
  std::printf("cudaDevAttrClusterLaunch: %d\n", v);
  std::printf("clusters of 2: %s\n", cudaGetErrorName(launch(dim3(4), 2, d)));
  cudaGetLastError();
  std::printf("clusters of 1: %s\n", cudaGetErrorName(launch(dim3(4), 1, d)));
  int h[4] = {};
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("results: %d %d %d %d\n", h[0], h[1], h[2], h[3]);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(4);
  cfg.blockDim = dim3(32);
  int n = -1;
  cudaError_t e = cudaOccupancyMaxPotentialClusterSize(&n, (const void*)plain, &cfg);
  std::printf("max potential cluster size: %s %d\n", cudaGetErrorName(e), n);
  return 0;
}
