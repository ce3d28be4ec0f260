// Thread-block clusters: warpsim runs every cluster as one CTA, so a kernel launched with clusters
// of several CTAs (its __cluster_dims__ or cudaLaunchAttributeClusterDimension) that reads its
// cluster rank, synchronises the cluster or maps another CTA's shared memory is refused with
// cudaErrorNotSupported and an explanation, rather than given one-CTA answers; a kernel that does
// not look at its cluster runs. (On an H100 the first launch succeeds: this test pins down the
// refusal, not the hardware's output.)
#include <cooperative_groups.h>

#include <cstdio>

namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) ranks(int* out) {
  cg::cluster_group cl = cg::this_cluster();
  cl.sync();
  out[blockIdx.x] = int(cl.block_rank());
}
__global__ void plain(int* out) { out[blockIdx.x] = int(blockIdx.x) * 10; }

int main() {
  int* d;
  cudaMalloc(&d, 64);
  ranks<<<4, 32>>>(d);
  std::printf("kernel using its cluster, clusters of 2: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(4);
  cfg.blockDim = dim3(32);
  cudaLaunchAttribute a;
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = 2;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  cfg.attrs = &a;
  cfg.numAttrs = 1;
  std::printf("kernel ignoring its cluster, clusters of 2: %s\n", cudaGetErrorName(cudaLaunchKernelEx(&cfg, plain, d)));
  int h[4];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("results: %d %d %d %d\n", h[0], h[1], h[2], h[3]);
  return 0;
}
