// The memory accesses of one warp instruction, as the functional engine resolved them: what the
// timing model's coalescer, shared-memory banks, TLBs and caches see. Recorded only when a
// LaunchState carries a trace (timing mode); the functional mode pays one null test per access.
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::func {

// Spaces after generic-address resolution (a generic address shows as Global, Shared or Local).
enum class TraceSpace : uint8_t { Global, Shared, Local, Const, Param };

struct MemAccess {
  uint64_t addr;      // address within its space (global: device virtual address)
  uint16_t bytes;     // bytes this lane accesses at addr (an element or a whole vector)
  uint8_t lane;
  TraceSpace space;
  bool write;
};

struct MemTrace {
  std::vector<MemAccess> acc;
  void clear() { acc.clear(); }
  void add(uint64_t addr, unsigned bytes, unsigned lane, TraceSpace sp, bool write) {
    acc.push_back(MemAccess{addr, uint16_t(bytes), uint8_t(lane), sp, write});
  }
};

}  // namespace warpsim::func
