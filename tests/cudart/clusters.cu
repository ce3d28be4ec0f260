// Thread-block clusters (sm_90): the cluster special registers for clusters of 1, 2, 4, 8 and 16
// CTAs and a 2x2 shape, cluster.sync(), distributed shared memory (a neighbour's data through
// cluster.map_shared_rank, the Programming Guide's histogram with its bins split over the cluster's
// CTAs, remote atomics), an arrive on another CTA's mbarrier (mapa + mbarrier.arrive
// .shared::cluster), a bulk copy multicast to several CTAs of the cluster, the launch errors for a
// grid that is not a multiple of the cluster and for too large clusters, and the cluster occupancy
// queries. Every result is checked against a CPU reference; the expected output is what our H100
// printed (validation/driver/h100_clusters.out). Build: nvcc -arch=sm_90a.
#include <cooperative_groups.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

__device__ unsigned is_explicit_cluster() {
  unsigned r;
  asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(r));
  return r;
}

// ---------------------------------------------------------------- special registers

struct Rec {
  unsigned rank, nrank, cidx[3], cdim[3], clid[3], ncl[3], expl;
};

__global__ void info(Rec* out) {
  if (threadIdx.x != 0) return;
  cg::cluster_group cl = cg::this_cluster();
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  Rec r;
  r.rank = cl.block_rank();
  r.nrank = cl.num_blocks();
  const dim3 ci = cl.block_index(), cd = cl.dim_blocks(), id = __clusterIdx(), n = __clusterGridDimInClusters();
  r.cidx[0] = ci.x, r.cidx[1] = ci.y, r.cidx[2] = ci.z;
  r.cdim[0] = cd.x, r.cdim[1] = cd.y, r.cdim[2] = cd.z;
  r.clid[0] = id.x, r.clid[1] = id.y, r.clid[2] = id.z;
  r.ncl[0] = n.x, r.ncl[1] = n.y, r.ncl[2] = n.z;
  r.expl = is_explicit_cluster();
  out[b] = r;
}

__global__ void __cluster_dims__(2, 1, 1) declared(Rec* out) {
  if (threadIdx.x != 0) return;
  cg::cluster_group cl = cg::this_cluster();
  Rec r{};
  r.rank = cl.block_rank();
  r.nrank = cl.num_blocks();
  r.expl = is_explicit_cluster();
  out[blockIdx.x] = r;
}

cudaError_t launch_cluster(const void* f, dim3 grid, dim3 block, dim3 cluster, size_t smem, void** args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute a;
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster.x;
  a.val.clusterDim.y = cluster.y;
  a.val.clusterDim.z = cluster.z;
  cfg.attrs = &a;
  cfg.numAttrs = 1;
  return cudaLaunchKernelExC(&cfg, f, args);
}

bool check_info(const char* what, dim3 g, dim3 c, bool attr) {
  const unsigned n = g.x * g.y * g.z;
  Rec* d;
  cudaMalloc(&d, n * sizeof(Rec));
  cudaMemset(d, 0xff, n * sizeof(Rec));
  void* args[] = {&d};
  cudaError_t e = attr ? launch_cluster((const void*)info, g, dim3(64), c, 0, args)
                       : cudaLaunchKernel((const void*)info, g, dim3(64), args, 0, 0);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<Rec> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(Rec), cudaMemcpyDeviceToHost);
  cudaFree(d);
  unsigned bad = 0, expl = h[0].expl;
  for (unsigned z = 0; z < g.z; ++z)
    for (unsigned y = 0; y < g.y; ++y)
      for (unsigned x = 0; x < g.x; ++x) {
        const Rec& r = h[x + g.x * (y + g.y * z)];
        const unsigned ci[3] = {x % c.x, y % c.y, z % c.z}, cd[3] = {c.x, c.y, c.z};
        const unsigned id[3] = {x / c.x, y / c.y, z / c.z}, nc[3] = {g.x / c.x, g.y / c.y, g.z / c.z};
        bool ok = r.rank == ci[0] + c.x * (ci[1] + c.y * ci[2]) && r.nrank == c.x * c.y * c.z && r.expl == expl;
        for (int k = 0; k < 3; ++k)
          ok = ok && r.cidx[k] == ci[k] && r.cdim[k] == cd[k] && r.clid[k] == id[k] && r.ncl[k] == nc[k];
        if (!ok && bad++ < 3)
          std::printf("  block (%u,%u,%u): rank %u of %u, cluster ctaid (%u,%u,%u) of (%u,%u,%u), cluster (%u,%u,%u) of "
                      "(%u,%u,%u)\n", x, y, z, r.rank, r.nrank, r.cidx[0], r.cidx[1], r.cidx[2], r.cdim[0], r.cdim[1],
                      r.cdim[2], r.clid[0], r.clid[1], r.clid[2], r.ncl[0], r.ncl[1], r.ncl[2]);
      }
  std::printf("%s: grid (%u,%u,%u) cluster (%u,%u,%u): %s, %u mismatches, is_explicit_cluster %u\n", what, g.x, g.y,
              g.z, c.x, c.y, c.z, cudaGetErrorName(e), bad, expl);
  return bad == 0 && e == cudaSuccess;
}

// ---------------------------------------------------------------- a neighbour's shared memory

__global__ void neighbour(int* out, int n) {
  extern __shared__ int sm[];
  cg::cluster_group cl = cg::this_cluster();
  const unsigned rank = cl.block_rank(), nb = cl.num_blocks();
  for (int i = threadIdx.x; i < n; i += blockDim.x) sm[i] = int(blockIdx.x) * 1000 + i;
  cl.sync();
  const int* nbr = cl.map_shared_rank(sm, (rank + 1) % nb);
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[blockIdx.x * n + i] = nbr[i];
  cl.sync();  // the neighbour's shared memory must stay until every reader is done
}

void check_neighbour(unsigned csize) {
  const unsigned blocks = 16, n = 300;
  int* d;
  cudaMalloc(&d, blocks * n * sizeof(int));
  int nn = int(n);
  void* args[] = {&d, &nn};
  cudaError_t e = launch_cluster((const void*)neighbour, dim3(blocks), dim3(96), dim3(csize), n * sizeof(int), args);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<int> h(blocks * n);
  cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  unsigned bad = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    const unsigned base = b / csize * csize, nbr = base + (b - base + 1) % csize;
    for (unsigned i = 0; i < n; ++i) bad += h[b * n + i] != int(nbr * 1000 + i);
  }
  std::printf("map_shared_rank neighbour read, clusters of %u: %s, %u mismatches\n", csize, cudaGetErrorName(e), bad);
}

// ---------------------------------------------------------------- distributed histogram
// As in the CUDA Programming Guide's "Distributed Shared Memory" example: each CTA of a cluster
// holds bins_per_block of the bins; every thread adds to the bin's owner through DSMEM.

__global__ void cluster_hist(int* bins, int nbins, int bins_per_block, const int* input, int size) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const int tid = int(blockIdx.x * blockDim.x + threadIdx.x);
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
  cluster.sync();
  for (int i = tid; i < size; i += int(blockDim.x * gridDim.x)) {
    const int ldata = input[i];
    int binid = ldata;
    if (ldata < 0) binid = 0;
    else if (ldata >= nbins) binid = nbins - 1;
    int* dst = cluster.map_shared_rank(smem, binid / bins_per_block);
    atomicAdd(dst + binid % bins_per_block, 1);
  }
  cluster.sync();
  int* lbins = bins + (blockIdx.x / cluster.num_blocks()) * nbins + cluster.block_rank() * bins_per_block;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) lbins[i] = smem[i];
}

void check_hist(unsigned csize) {
  const int nbins = 1024, size = 1 << 15, blocks = 16;
  const int per_block = nbins / int(csize);
  std::vector<int> in(size);
  unsigned s = 12345u;
  for (int i = 0; i < size; ++i) {
    s = s * 1664525u + 1013904223u;
    in[i] = int(s >> 20) % (nbins + 64) - 32;  // some below 0 and above the last bin
  }
  // Cluster c's CTAs see elements i with i / 256 % blocks in [c * csize, (c + 1) * csize).
  std::vector<int> ref(size_t(blocks / csize) * nbins, 0);
  for (int i = 0; i < size; ++i) {
    const int blk = (i % (256 * blocks)) / 256;
    const int bin = in[i] < 0 ? 0 : in[i] >= nbins ? nbins - 1 : in[i];
    ++ref[size_t(blk / int(csize)) * nbins + bin];
  }
  int *din, *dbins;
  cudaMalloc(&din, size * sizeof(int));
  cudaMalloc(&dbins, ref.size() * sizeof(int));
  cudaMemcpy(din, in.data(), size * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dbins, 0, ref.size() * sizeof(int));
  int nb = nbins, pb = per_block, sz = size;
  void* args[] = {&dbins, &nb, &pb, &din, &sz};
  cudaError_t e = launch_cluster((const void*)cluster_hist, dim3(blocks), dim3(256), dim3(csize), per_block * sizeof(int), args);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<int> h(ref.size());
  cudaMemcpy(h.data(), dbins, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(din);
  cudaFree(dbins);
  unsigned bad = 0;
  long total = 0;
  for (size_t i = 0; i < h.size(); ++i) bad += h[i] != ref[i], total += h[i];
  std::printf("distributed histogram, %d bins over clusters of %u: %s, %u bins differ, %ld counted\n", nbins, csize,
              cudaGetErrorName(e), bad, total);
}

// ---------------------------------------------------------------- an arrive on another CTA's mbarrier

__global__ void remote_mbarrier(int* out) {
  __shared__ alignas(8) unsigned long long bar;
  __shared__ int slots[16];
  cg::cluster_group cl = cg::this_cluster();
  const unsigned rank = cl.block_rank(), nb = cl.num_blocks();
  const unsigned bar_addr = unsigned(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(nb - 1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cl.sync();
  if (rank != 0 && threadIdx.x == 0) {
    int* remote = cl.map_shared_rank(slots, 0);
    remote[rank] = int(100 * blockIdx.x + rank);
    unsigned remote_bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote_bar) : "r"(bar_addr));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote_bar) : "memory");
  }
  if (rank == 0 && threadIdx.x == 0) {
    asm volatile(
        "{ .reg .pred p;\n"
        "W%=: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
        "@!p bra W%=; }" ::"r"(bar_addr)
        : "memory");
    int sum = 0;
    for (unsigned r = 1; r < nb; ++r) sum += slots[r];
    out[blockIdx.x / nb] = sum;
  }
  cl.sync();
}

void check_remote_mbarrier(unsigned csize) {
  const unsigned blocks = 16, clusters = blocks / csize;
  int* d;
  cudaMalloc(&d, clusters * sizeof(int));
  cudaMemset(d, 0, clusters * sizeof(int));
  void* args[] = {&d};
  cudaError_t e = launch_cluster((const void*)remote_mbarrier, dim3(blocks), dim3(64), dim3(csize), 0, args);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<int> h(clusters);
  cudaMemcpy(h.data(), d, clusters * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  unsigned bad = 0;
  for (unsigned c = 0; c < clusters; ++c) {
    int ref = 0;
    for (unsigned r = 1; r < csize; ++r) ref += int(100 * (c * csize + r) + r);
    bad += h[c] != ref;
  }
  std::printf("remote mbarrier arrive, clusters of %u: %s, %u mismatches\n", csize, cudaGetErrorName(e), bad);
}

// ---------------------------------------------------------------- bulk copy multicast

__global__ void multicast(const int4* src, int* out, unsigned short mask) {
  __shared__ alignas(128) int buf[64];
  __shared__ alignas(8) unsigned long long bar;
  cg::cluster_group cl = cg::this_cluster();
  const unsigned rank = cl.block_rank();
  const unsigned bar_addr = unsigned(__cvta_generic_to_shared(&bar)), buf_addr = unsigned(__cvta_generic_to_shared(buf));
  for (int i = threadIdx.x; i < 64; i += blockDim.x) buf[i] = -1;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cl.sync();
  const bool receives = mask >> rank & 1;
  if (threadIdx.x == 0 && receives)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(bar_addr) : "memory");
  if (rank == 1 && threadIdx.x == 0)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], 256, [%2], %3;"
        ::"r"(buf_addr), "l"(src + blockIdx.x / cl.num_blocks() * 16), "r"(bar_addr), "h"(mask)
        : "memory");
  if (receives)
    asm volatile(
        "{ .reg .pred p;\n"
        "W%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
        "@!p bra W%=; }" ::"r"(bar_addr)
        : "memory");
  __syncthreads();
  for (int i = threadIdx.x; i < 64; i += blockDim.x) out[blockIdx.x * 64 + i] = buf[i];
  cl.sync();
}

void check_multicast() {
  const unsigned blocks = 8, csize = 4;
  const unsigned short mask = 0xb;  // ranks 0, 1 and 3; rank 2 keeps its buffer
  std::vector<int> src(blocks / csize * 64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int(i * 7 + 3);
  int *dsrc, *d;
  cudaMalloc(&dsrc, src.size() * sizeof(int));
  cudaMalloc(&d, blocks * 64 * sizeof(int));
  cudaMemcpy(dsrc, src.data(), src.size() * sizeof(int), cudaMemcpyHostToDevice);
  unsigned short m = mask;
  void* args[] = {&dsrc, &d, &m};
  cudaError_t e = launch_cluster((const void*)multicast, dim3(blocks), dim3(64), dim3(csize), 0, args);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<int> h(blocks * 64);
  cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(dsrc);
  cudaFree(d);
  unsigned bad = 0;
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned i = 0; i < 64; ++i) {
      const int ref = (mask >> (b % csize) & 1) ? src[b / csize * 64 + i] : -1;
      bad += h[b * 64 + i] != ref;
    }
  std::printf("cp.async.bulk multicast to ranks 0,1,3 of clusters of 4: %s, %u mismatches\n", cudaGetErrorName(e), bad);
}

// ---------------------------------------------------------------- launch errors and occupancy

__global__ void plain(int* out) { out[blockIdx.x] = int(blockIdx.x) * 10; }

int main() {
  bool ok = true;
  ok &= check_info("no cluster attribute", dim3(8, 2, 1), dim3(1, 1, 1), false);
  ok &= check_info("clusters of 1", dim3(8, 2, 1), dim3(1, 1, 1), true);
  ok &= check_info("clusters of 2", dim3(8, 2, 1), dim3(2, 1, 1), true);
  ok &= check_info("clusters of 4", dim3(16, 1, 2), dim3(4, 1, 1), true);
  ok &= check_info("clusters of 8", dim3(16, 3, 1), dim3(8, 1, 1), true);
  ok &= check_info("2x2 clusters", dim3(4, 6, 2), dim3(2, 2, 1), true);
  ok &= check_info("1x2x2 clusters", dim3(3, 2, 4), dim3(1, 2, 2), true);
  {
    Rec* d;
    cudaMalloc(&d, 8 * sizeof(Rec));
    declared<<<8, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    Rec h[8];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    unsigned bad = 0;
    for (unsigned b = 0; b < 8; ++b) bad += h[b].rank != b % 2 || h[b].nrank != 2;
    std::printf("__cluster_dims__(2,1,1) with <<<8, 32>>>: %s, %u mismatches, is_explicit_cluster %u\n",
                cudaGetErrorName(e), bad, h[0].expl);
    declared<<<7, 32>>>(d);
    std::printf("__cluster_dims__(2,1,1) with <<<7, 32>>>: %s\n", cudaGetErrorName(cudaGetLastError()));
    void* args[] = {&d};
    std::printf("__cluster_dims__(2,1,1) launched with clusters of 4: %s\n",
                cudaGetErrorName(launch_cluster((const void*)declared, dim3(8), dim3(32), dim3(4), 0, args)));
    cudaGetLastError();
    cudaFree(d);
  }
  for (unsigned c : {2u, 4u, 8u}) check_neighbour(c);
  for (unsigned c : {1u, 2u, 4u, 8u}) check_hist(c);
  for (unsigned c : {2u, 4u, 8u}) check_remote_mbarrier(c);
  check_multicast();

  // Launch errors: a grid that is not a multiple of the cluster, clusters over 8 (16 with the
  // non-portable opt-in), over 16.
  int* d;
  cudaMalloc(&d, 64 * sizeof(Rec));  // room for info's records, should a launch below succeed
  void* args[] = {&d};
  std::printf("grid 6, clusters of 4: %s\n",
              cudaGetErrorName(launch_cluster((const void*)plain, dim3(6), dim3(32), dim3(4), 0, args)));
  cudaGetLastError();
  std::printf("grid (4,3), clusters of (2,2): %s\n",
              cudaGetErrorName(launch_cluster((const void*)plain, dim3(4, 3), dim3(32), dim3(2, 2), 0, args)));
  cudaGetLastError();
  std::printf("grid 32, clusters of 16: %s\n",
              cudaGetErrorName(launch_cluster((const void*)plain, dim3(32), dim3(32), dim3(16), 0, args)));
  cudaGetLastError();
  std::printf("non-portable cluster sizes allowed: %s\n",
              cudaGetErrorName(cudaFuncSetAttribute((const void*)info, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)));
  ok &= check_info("clusters of 16 (non-portable)", dim3(32), dim3(16), true);
  std::printf("grid 64, clusters of 32 (non-portable allowed): %s\n",
              cudaGetErrorName(launch_cluster((const void*)info, dim3(64), dim3(32), dim3(32), 0, args)));
  cudaGetLastError();
  std::printf("grid 8, clusters of (2,2,2): %s\n",
              cudaGetErrorName(launch_cluster((const void*)plain, dim3(2, 2, 2), dim3(32), dim3(2, 2, 2), 0, args)));
  cudaDeviceSynchronize();
  cudaGetLastError();

  // Occupancy: how many clusters of a shape fit at once; the largest cluster a launch may use.
  struct Case {
    const char* name;
    unsigned cluster, threads, smem;
  } cases[] = {{"2 x 128 threads", 2, 128, 0},        {"4 x 128 threads", 4, 128, 0},
               {"8 x 1024 threads", 8, 1024, 0},     {"8 x 128 threads, 100 KiB", 8, 128, 100 << 10},
               {"16 x 1024 threads", 16, 1024, 0},   {"4 x 256 threads, 200 KiB", 4, 256, 200 << 10}};
  cudaFuncSetAttribute((const void*)info, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10);
  for (const Case& c : cases) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(c.cluster * 8);
    cfg.blockDim = dim3(c.threads);
    cfg.dynamicSmemBytes = c.smem;
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = c.cluster;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    cfg.attrs = &a;
    cfg.numAttrs = 1;
    int n = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (const void*)info, &cfg);
    std::printf("max active clusters, %s: %s %d\n", c.name, cudaGetErrorName(e), n);
  }
  for (int allow = 0; allow < 2; ++allow) {
    cudaFuncSetAttribute((const void*)info, cudaFuncAttributeNonPortableClusterSizeAllowed, allow);
    for (unsigned threads : {128u, 1024u}) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(64);
      cfg.blockDim = dim3(threads);
      int n = -1;
      cudaError_t e = cudaOccupancyMaxPotentialClusterSize(&n, (const void*)info, &cfg);
      std::printf("max potential cluster size, %u threads, non-portable %d: %s %d\n", threads, allow,
                  cudaGetErrorName(e), n);
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(64);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = 200 << 10;
    int n = -1;
    cudaError_t e = cudaOccupancyMaxPotentialClusterSize(&n, (const void*)info, &cfg);
    std::printf("max potential cluster size, 128 threads, 200 KiB, non-portable %d: %s %d\n", allow,
                cudaGetErrorName(e), n);
  }
  int v = -1;
  cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0);
  std::printf("cudaDevAttrClusterLaunch: %d\n", v);
  cudaFree(d);
  std::printf("%s\n", ok ? "clusters: all checks passed" : "clusters: FAILED");
  return 0;
}
