#include "runtime/occupancy.hpp"

#include <algorithm>
#include <climits>

namespace warpsim::runtime {

namespace {
constexpr int kRegUnit = 256, kSubPartitions = 4, kSmemUnit = 128, kMaxRegsPerThread = 255;
int div_up(int x, int y) { return (x + y - 1) / y; }
int round_up(int x, int y) { return div_up(x, y) * y; }

// The shared-memory carveouts an A100 SM can be configured with (KB).
uint64_t align_carveout(uint64_t bytes) {
  for (uint64_t kb : {0, 8, 16, 32, 64, 100, 132, 164})
    if (bytes <= kb * 1024) return kb * 1024;
  return bytes;
}
}  // namespace

int max_threads_for_regs(const GpuSpec& g, int regs) {
  int n = g.max_threads_per_block;
  if (regs <= 0) return n;
  const int per_warp = round_up(regs * g.warp_size, kRegUnit);
  // Both the hardware (warps rounded up to the sub-partitions) and the per-block limit must hold.
  while (n > 0) {
    const int warps = div_up(n, g.warp_size);
    if (per_warp * round_up(warps, kSubPartitions) <= g.regs_per_block && per_warp * warps <= g.regs_per_block) break;
    n -= g.warp_size;
  }
  return n;
}

Occupancy occupancy(const GpuSpec& g, const KernelUsage& k, int block_size, uint64_t dynamic_smem) {
  Occupancy o;
  if (block_size <= 0) return o;
  const int warps = div_up(block_size, g.warp_size);
  const int max_threads = std::min<int>(g.max_threads_per_block, int(k.max_threads ? k.max_threads : 1024));
  // Warps and blocks.
  o.by_warps = block_size > max_threads ? 0 : (g.max_threads_per_sm / g.warp_size) / warps;
  o.by_blocks = g.max_blocks_per_sm;
  // Registers.
  const int per_warp = round_up(k.regs * g.warp_size, kRegUnit);
  o.regs_per_block = per_warp * warps;
  if (per_warp * round_up(warps, kSubPartitions) > g.regs_per_block || o.regs_per_block > g.regs_per_block ||
      k.regs > kMaxRegsPerThread)
    o.by_regs = 0;
  else if (per_warp == 0)
    o.by_regs = INT_MAX;
  else
    o.by_regs = ((g.regs_per_sm / kSubPartitions) / per_warp) * kSubPartitions / warps;
  // Shared memory.
  const uint64_t static_smem = uint64_t(k.static_smem) + g.reserved_smem_per_block;
  const uint64_t total = static_smem + dynamic_smem;
  const uint64_t alloc = (total + kSmemUnit - 1) / kSmemUnit * kSmemUnit;
  o.smem_per_block = uint32_t(alloc);
  // As the runtime does (cudaOccFuncAttributes from cudaFuncAttributes): the opt-in rules, with the
  // kernel's maxDynamicSharedSizeBytes.
  const uint64_t max_dyn = k.max_dynamic_smem ? k.max_dynamic_smem
                                              : (g.smem_per_block > k.static_smem ? g.smem_per_block - k.static_smem : 0);
  const uint64_t max_usage = static_smem + max_dyn;
  uint64_t limit_per_block = max_usage > g.smem_per_block ? g.smem_per_block_optin : g.smem_per_block;
  limit_per_block += g.reserved_smem_per_block;
  if (dynamic_smem > max_dyn || alloc > limit_per_block) {
    o.by_smem = 0;
  } else {
    uint64_t pref = k.carveout < 0 ? g.smem_per_sm : uint64_t(k.carveout) * g.smem_per_sm / 100;
    pref = align_carveout(pref);
    const uint64_t per_sm = pref >= alloc ? pref : align_carveout(alloc);
    o.by_smem = alloc ? int(std::min<uint64_t>(per_sm / alloc, INT_MAX)) : INT_MAX;
  }
  o.blocks = std::max(0, std::min({o.by_warps, o.by_blocks, o.by_regs, o.by_smem}));
  return o;
}

}  // namespace warpsim::runtime
