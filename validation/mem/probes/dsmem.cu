// Distributed shared memory on an H100 (sm_90): the shared::cluster address layout (what mapa
// returns for each rank, as a 32-bit shared::cluster address and as a generic address), the
// latency of a dependent load chain through another CTA's shared memory against the same chain in
// the CTA's own shared memory, and the round trip of barrier.cluster.arrive + wait for clusters of
// 2..16 CTAs. Prints key,value lines; checks the chains' end values so a wrong run fails loudly.
//   nvcc -arch=sm_90a -o dsmem dsmem.cu && ./dsmem
#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int kWords = 2048;  // 8 KiB chain

// Address layout: rank r's mapa of shared offset 0x10 (shared::cluster 32-bit and generic).
__global__ void layout(unsigned long long* out) {
  __shared__ int pad[8];
  cg::cluster_group cl = cg::this_cluster();
  if (threadIdx.x != 0) return;
  const unsigned me = cl.block_rank();
  const unsigned a = unsigned(__cvta_generic_to_shared(&pad[4]));
  out[me * 40 + 0] = a;
  out[me * 40 + 1] = reinterpret_cast<unsigned long long>(&pad[4]);
  for (unsigned r = 0; r < cl.num_blocks(); ++r) {
    unsigned m;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(m) : "r"(a), "r"(r));
    out[me * 40 + 2 + 2 * r] = m;
    out[me * 40 + 3 + 2 * r] = reinterpret_cast<unsigned long long>(cl.map_shared_rank(&pad[4], r));
  }
  pad[0] = 0;
}

// A pointer chase of `steps` loads through rank `target`'s shared memory (stride 33 words).
__global__ void chase(unsigned target, int steps, long long* cycles, int* sink) {
  __shared__ int next[kWords];
  cg::cluster_group cl = cg::this_cluster();
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) next[i] = (i + 33) % kWords;
  cl.sync();
  if (cl.block_rank() == 0 && threadIdx.x == 0) {
    const int* p = cl.map_shared_rank(next, target);
    int j = 0;
    for (int i = 0; i < 16; ++i) j = p[j];  // warm up
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) j = p[j];
    const long long t1 = clock64();
    cycles[0] = t1 - t0;
    sink[0] = j;
  }
  cl.sync();
}

__global__ void barrier_loop(int iters, long long* cycles) {
  cg::cluster_group cl = cg::this_cluster();
  cl.sync();
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) cl.sync();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

cudaError_t launch(const void* f, unsigned grid, unsigned block, unsigned cluster, void** args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cudaLaunchAttribute a;
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  cfg.attrs = &a;
  cfg.numAttrs = 1;
  return cudaLaunchKernelExC(&cfg, f, args);
}

int main() {
  unsigned long long* dl;
  CHECK(cudaMalloc(&dl, 4 * 40 * sizeof(unsigned long long)));
  void* la[] = {&dl};
  CHECK(launch((const void*)layout, 4, 32, 4, la));
  CHECK(cudaDeviceSynchronize());
  unsigned long long hl[160];
  CHECK(cudaMemcpy(hl, dl, sizeof hl, cudaMemcpyDeviceToHost));
  for (int me = 0; me < 4; ++me) {
    std::printf("layout,rank%d,cta_addr,0x%llx,generic,0x%llx\n", me, hl[me * 40], hl[me * 40 + 1]);
    for (int r = 0; r < 4; ++r)
      std::printf("layout,rank%d,mapa_rank%d,0x%llx,generic,0x%llx\n", me, r, hl[me * 40 + 2 + 2 * r],
                  hl[me * 40 + 3 + 2 * r]);
  }
  long long* dc;
  int* ds;
  CHECK(cudaMalloc(&dc, 64 * sizeof(long long)));
  CHECK(cudaMalloc(&ds, sizeof(int)));
  const int steps = 4096;
  int expect = 0;
  for (int i = 0; i < 16 + steps; ++i) expect = (expect + 33) % kWords;
  for (unsigned target : {0u, 1u}) {
    for (int rep = 0; rep < 3; ++rep) {
      int st = steps;
      void* a[] = {&target, &st, &dc, &ds};
      CHECK(launch((const void*)chase, 2, 128, 2, a));
      CHECK(cudaDeviceSynchronize());
      long long c;
      int s;
      CHECK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&s, ds, sizeof s, cudaMemcpyDeviceToHost));
      if (s != expect) {
        std::printf("chase ended at %d, expected %d\n", s, expect);
        return 1;
      }
      std::printf("load_latency,%s,rep%d,cycles_per_load,%.1f\n", target ? "remote_dsmem" : "own_shared_via_mapa", rep,
                  double(c) / steps);
    }
  }
  CHECK(cudaFuncSetAttribute((const void*)barrier_loop, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (unsigned cs : {1u, 2u, 4u, 8u, 16u}) {
    for (unsigned threads : {32u, 256u}) {
      int iters = 1000;
      void* a[] = {&iters, &dc};
      CHECK(launch((const void*)barrier_loop, cs, threads, cs, a));
      CHECK(cudaDeviceSynchronize());
      long long c[16];
      CHECK(cudaMemcpy(c, dc, cs * sizeof(long long), cudaMemcpyDeviceToHost));
      long long mx = 0;
      for (unsigned i = 0; i < cs; ++i) mx = c[i] > mx ? c[i] : mx;
      std::printf("cluster_sync,ctas,%u,threads,%u,cycles_per_sync,%.1f\n", cs, threads, double(mx) / iters);
    }
  }
  return 0;
}
