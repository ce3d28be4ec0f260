// The CUDA occupancy calculator's rules (cuda_occupancy.h, CUDA 13, for the compute capabilities
// warpsim models): how many blocks of a kernel fit on one SM at once, limited by warps, blocks,
// registers (allocated per warp in units of 256, per sub-partition) and shared memory (allocated
// in units of 128 bytes, plus 1 KB the driver reserves per block on cc >= 8.0, against the
// shared-memory carveout that fits).
#pragma once

#include <cstdint>

#include "runtime/gpu_spec.hpp"

namespace warpsim::runtime {

struct KernelUsage {
  int regs = 0;                   // registers per thread
  uint32_t static_smem = 0;       // bytes
  uint32_t max_threads = 1024;    // the kernel's maxThreadsPerBlock (launch bounds, registers)
  uint32_t max_dynamic_smem = 0;  // cudaFuncAttributeMaxDynamicSharedMemorySize (0: the default, 48 KB - static)
  int carveout = -1;              // cudaFuncAttributePreferredSharedMemoryCarveout (-1: default)
};

struct Occupancy {
  int blocks = 0;  // the minimum of the limits below
  int by_warps = 0, by_blocks = 0, by_regs = 0, by_smem = 0;
  uint32_t smem_per_block = 0;  // allocated, incl. the reserved 1 KB
  int regs_per_block = 0;       // allocated
};

Occupancy occupancy(const GpuSpec& g, const KernelUsage& k, int block_size, uint64_t dynamic_smem);

// The largest block size a kernel with `regs` registers per thread can be launched with (a multiple
// of the warp size, at most max_threads_per_block): what cudaFuncGetAttributes reports as
// maxThreadsPerBlock.
int max_threads_for_regs(const GpuSpec& g, int regs);

}  // namespace warpsim::runtime
