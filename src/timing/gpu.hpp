// The GPU of the timing model: its SMs and the work distributor (GigaThread engine) that hands
// CTAs of running kernels to SMs with free resources, and the clock loop that ticks only the SMs
// that can do something and jumps over cycles where every warp waits.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/machine.hpp"
#include "stats/kernel_stats.hpp"
#include "timing/sm.hpp"

namespace warpsim::timing {

// A kernel to time: the functional launch prepared by func::Engine::prepare, and what its CTAs
// take from an SM (from the runtime's occupancy calculator).
struct KernelLaunch {
  const func::LoadedModule* module = nullptr;
  func::LaunchState* ls = nullptr;
  const func::EngineConfig* ecfg = nullptr;
  CtaFootprint fp;
  uint32_t max_ctas_per_sm = 0;   // 0: from the footprint and the SM's limits
  uint32_t smem_per_sm = 0;       // shared-memory carve-out (0: the largest)
  AccessWindow window;            // the launch's L2 access-policy window (none by default)
  uint32_t preferred_carveout = 0;  // bytes the program asked for (cudaFuncAttributePreferredSharedMemoryCarveout); 0: driver's choice
  // Progress for long runs: (CTAs done, CTAs in the grid, warp instructions so far).
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
  uint64_t progress_every = 1u << 22;
};

class Gpu {
 public:
  explicit Gpu(const config::Machine& m);
  ~Gpu();
  // Runs kernels that share the GPU (launched together, e.g. from different streams) to completion
  // or to the first fault; CTAs are distributed in launch order. Returns one KernelStats each; a
  // fault is in that kernel's LaunchState.
  std::vector<stats::KernelStats> run(std::vector<KernelLaunch*> kernels);
  // The order in which SMs receive CTAs: one SM per TPC across all GPCs first, as the work
  // distributor spreads a grid over the chip (exposed for tests).
  const std::vector<uint32_t>& dispatch_order() const { return order_; }
  // The groups of SMs a thread-block cluster's CTAs spread over, each on its own SM of one group:
  // gpu.cluster_sm_groups (consecutive SM ids), else the GPCs (exposed for tests).
  const std::vector<std::vector<uint32_t>>& cluster_groups() const { return groups_; }
  MemorySystem& memory() { return *mem_; }
  // Flushes the L2 (dirty lines written back to DRAM, every line dropped) before the next run; the
  // clock moves past the write-backs. L1, constant and instruction caches start empty at every run
  // anyway (SMs are built per run).
  void flush_caches();
  uint64_t now() const { return now_; }
  // The physical address of a module's code (bytes instr_bytes x instructions) in device memory,
  // assigned on first use: modules lie one after another, page-aligned, in the top 256 MiB of
  // the device's memory (wrapping around), where the allocator of the runtime's memory reaches
  // last. The code is not stored there (the functional engine runs the decoded program); the
  // address gives instruction-cache fills their L2 slices and DRAM channels.
  uint64_t code_address(const void* module, uint64_t code_bytes);

  // A timeline of the whole GPU (`warpsim run --timeline`): every `interval` cycles of a run, the
  // counters below so far (cumulative over the GPU's life) and the warps resident at that moment.
  // Samples fall on the first event at or after each interval's end (the model skips idle cycles).
  struct TimelineSample {
    uint64_t cycle = 0;
    uint64_t warp_instrs = 0;  // warp instructions issued
    uint64_t warps = 0;        // resident warps, all SMs
    uint64_t l1_sectors = 0;   // global/local load and store sectors at the L1s
    uint64_t l2_sectors = 0;   // L2 sectors read, written and updated by atomics (code included)
    uint64_t dram_read = 0, dram_written = 0;  // bytes
    bool run_start = false;    // the first sample of a run (launch batch): nothing before it is this run's
  };
  void enable_timeline(uint64_t interval_cycles) { timeline_every_ = interval_cycles; }
  uint64_t timeline_interval() const { return timeline_every_; }
  // The samples taken since the last call (cycles on the GPU's clock, now()).
  std::vector<TimelineSample> take_timeline() { return std::exchange(timeline_, {}); }

 private:
  const config::Machine& m_;
  std::vector<uint32_t> order_;
  std::vector<std::vector<uint32_t>> groups_;
  // The memory system outlives a run: L2 contents and DRAM state carry from kernel to kernel, on
  // one clock that keeps running (now_).
  std::unique_ptr<MemorySystem> mem_;
  uint64_t now_ = 0;
  std::unordered_map<const void*, uint64_t> code_pa_;
  uint64_t timeline_every_ = 0, timeline_next_ = 0;  // cycles
  std::vector<TimelineSample> timeline_;
  uint64_t timeline_instrs_ = 0, timeline_l1_ = 0, timeline_l2_ = 0;  // earlier runs' totals
  uint64_t code_next_ = 0;
};

}  // namespace warpsim::timing
