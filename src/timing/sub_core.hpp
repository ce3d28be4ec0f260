// One SM sub-core (processing block): a warp scheduler over the warps assigned to it, its L0
// instruction cache and the busy-until cycle of each of its math pipes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "config/machine.hpp"
#include "timing/icache.hpp"

namespace warpsim::timing {

struct WarpCtx;

struct SubCore {
  std::vector<WarpCtx*> warps;       // in dispatch order (oldest first)
  std::vector<uint32_t> slots;       // their warp slots in the SM (Sm::wake_at_), in the same order
  std::array<uint64_t, config::kPipeCount> pipe_free{};
  InstructionCache l0i;
  WarpCtx* greedy = nullptr;         // greedy-then-oldest: the warp that issued last
  size_t rr = 0;                     // loose round-robin: where the next search starts
  uint64_t issued = 0;
  uint64_t next_ready = 0;           // no warp of this sub-core is ready before this cycle (a lower bound)
};

}  // namespace warpsim::timing
