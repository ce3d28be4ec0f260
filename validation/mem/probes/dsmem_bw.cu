// Distributed shared memory bandwidth on an H100 (sm_90): every warp of every CTA of a cluster
// streams 16-byte loads (ld.shared::cluster.v4.u32, 8 independent per thread per iteration) from
// a neighbour CTA's shared memory (rank + 1 mod cluster size), against the same loop on the CTA's
// own shared memory. Prints bytes per SM cycle per CTA (each CTA is on its own SM), the slowest
// CTA's time. Checks the loaded sum so a wrong run fails loudly.
//   nvcc -arch=sm_90a -o dsmem_bw dsmem_bw.cu && ./dsmem_bw
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

constexpr int kWords = 8192;  // 32 KiB per CTA

__global__ void stream(int iters, int remote, long long* cycles, unsigned* sink) {
  __shared__ __align__(16) unsigned buf[kWords];
  cg::cluster_group cl = cg::this_cluster();
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) buf[i] = i;
  cl.sync();
  const unsigned me = cl.block_rank();
  const unsigned target = remote ? (me + 1) % cl.num_blocks() : me;
  unsigned base;
  const unsigned local = unsigned(__cvta_generic_to_shared(buf));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(base) : "r"(local), "r"(target));
  // 8 loads of 16 bytes per thread per iteration, consecutive threads on consecutive 16 bytes.
  unsigned acc = 0;
  const unsigned span = kWords * 4;
  unsigned off = (threadIdx.x * 16) % span;
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    unsigned a[8], b[8], c[8], d[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const unsigned addr = base + (off + k * 4096) % span;
      asm volatile("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(a[k]), "=r"(b[k]), "=r"(c[k]), "=r"(d[k]) : "r"(addr));
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += a[k] + b[k] + c[k] + d[k];
    off = (off + 512) % span;
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  atomicAdd(sink, acc);
  cl.sync();
}

cudaError_t launch(unsigned grid, unsigned block, unsigned cluster, void** args) {
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
  return cudaLaunchKernelExC(&cfg, (const void*)stream, args);
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 2000;
  long long* dc;
  unsigned* ds;
  CHECK(cudaMalloc(&dc, 64 * sizeof(long long)));
  CHECK(cudaMalloc(&ds, sizeof(unsigned)));
  for (unsigned cs : {2u, 4u}) {
    for (int remote : {0, 1}) {
      for (unsigned threads : {32u, 128u, 256u, 512u, 1024u}) {
        CHECK(cudaMemset(ds, 0, sizeof(unsigned)));
        int it = iters;
        void* a[] = {&it, &remote, &dc, &ds};
        CHECK(launch(cs, threads, cs, a));
        CHECK(cudaDeviceSynchronize());
        long long c[16];
        unsigned s;
        CHECK(cudaMemcpy(c, dc, cs * sizeof(long long), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&s, ds, sizeof s, cudaMemcpyDeviceToHost));
        // Every thread's loads: words w..w+3 of each 16-byte chunk, word value = its index.
        unsigned expect = 0;
        for (unsigned b = 0; b < cs; ++b)
          for (unsigned t = 0; t < threads; ++t) {
            unsigned off = (t * 16) % (kWords * 4);
            for (int i = 0; i < iters; ++i) {
              for (int k = 0; k < 8; ++k) {
                const unsigned w = ((off + k * 4096) % (kWords * 4)) / 4;
                expect += 4 * w + 6;
              }
              off = (off + 512) % (kWords * 4);
            }
          }
        if (s != expect) {
          std::printf("sum %u, expected %u\n", s, expect);
          return 1;
        }
        long long mx = 0;
        for (unsigned i = 0; i < cs; ++i) mx = c[i] > mx ? c[i] : mx;
        const double bytes = double(threads) * 16.0 * 8.0 * iters;
        std::printf("dsmem_bw,cluster,%u,%s,threads,%u,cycles,%lld,bytes_per_clk_per_sm,%.2f\n", cs,
                    remote ? "remote" : "own", threads, mx, bytes / double(mx));
      }
    }
  }
  return 0;
}
