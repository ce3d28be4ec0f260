// Per-kernel timing statistics: cycles, instructions, occupancy, issue utilisation and the
// breakdown of why warps did not issue, named as Nsight Compute names its warp states
// (smsp__pcsamp_warps_issue_stalled_<reason>), so users can compare side by side.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "stats/memory_stats.hpp"

namespace warpsim::stats {

enum class Stall : uint8_t {
  Selected,          // the warp issued this cycle
  NotSelected,       // eligible, another warp of its scheduler issued
  Wait,              // fixed-latency dependency (the compiler's wait counts)
  ShortScoreboard,   // MIO result: shared memory, shuffle, MUFU, special register
  LongScoreboard,    // L1TEX result: global, local, texture memory
  MathPipeThrottle,  // its math pipe is busy with earlier instructions
  MioThrottle,       // the SM's MIO queue (shared memory, shuffles) is busy
  LgThrottle,        // the local/global queue to L1TEX is busy
  Barrier,           // waiting at a CTA barrier
  Membar,            // waiting for a memory barrier
  BranchResolving,   // a branch target is being computed
  NoInstructions,    // instruction-cache miss
  Count
};
constexpr unsigned kStallCount = unsigned(Stall::Count);
const char* stall_name(Stall s);  // "stall_selected", "stall_long_scoreboard", ...

struct KernelStats {
  std::string kernel;
  std::string gpu;
  uint64_t cycles = 0;            // first CTA dispatch to last CTA retire (SM clock)
  uint64_t launch_cycles = 0;     // kernel launch overhead added before the first CTA
  double clock_mhz = 0;
  double time_ns() const { return clock_mhz > 0 ? double(cycles + launch_cycles) * 1e3 / clock_mhz : 0; }
  uint64_t warp_instrs = 0, thread_instrs = 0;
  uint64_t ctas = 0;
  uint32_t sms = 0, sms_used = 0, sub_cores = 0;
  uint32_t ctas_per_sm = 0;       // the occupancy limit used for dispatch
  uint32_t warps_per_cta = 0, max_warps_per_sm = 0;
  double ipc = 0;                 // warp instructions per cycle per SM (over all SMs)
  double achieved_occupancy = 0;  // resident warps / max warps, averaged over active SM cycles
  double theoretical_occupancy = 0;
  double simt_efficiency = 0;     // thread instructions / (32 x warp instructions)
  double issue_utilisation = 0;   // issued / cycles, averaged over all sub-cores
  std::vector<double> issue_utilisation_per_sub_core;  // sub-core index within an SM, averaged over SMs
  std::array<uint64_t, kStallCount> stalls{};          // warp-cycles per reason
  uint64_t icache_misses = 0;
  MemoryStats mem;                // memory hierarchy (timing mode)
  bool regs_estimated = false;
  std::string text() const;       // a short readable summary
  std::string json() const;       // one JSON object
};

}  // namespace warpsim::stats
