// The memory accesses of one warp instruction, as the functional engine resolved them: what the
// timing model's coalescer, shared-memory banks, TLBs and caches see. Recorded only when a
// LaunchState carries a trace (timing mode); the functional mode pays one null test per access.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warpsim::func {

// Spaces after generic-address resolution (a generic address shows as Global, Shared or Local).
// RemoteShared: another CTA's shared memory in the thread-block cluster, reached over the SM-to-SM
// network (its address is the shared::cluster one, (rank + 1) << 24 | offset; state.hpp); a CTA's
// own shared memory through a shared::cluster address is Shared at its offset.
enum class TraceSpace : uint8_t { Global, Shared, Local, Const, Param, RemoteShared };

// What an access asks of L2 (PTX .L2::evict_* / .L2::no_allocate qualifiers, or the priority a
// createpolicy value gives this address). Unchanged: no hint (the launch's access-policy window,
// if any, decides). Discard and Demote mark the line operations discard.global.L2 and
// applypriority.global.L2::evict_normal.
enum class L2Hint : uint8_t { Unchanged = 0, Normal, First, Last, NoAllocate, Discard, Demote };

struct MemAccess {
  uint64_t addr;      // address within its space (global: device virtual address)
  uint16_t bytes;     // bytes this lane accesses at addr (an element or a whole vector)
  uint8_t lane;
  TraceSpace space;
  bool write;
  L2Hint l2 = L2Hint::Unchanged;
};

struct MemTrace {
  std::vector<MemAccess> acc;
  // The hint of the accesses being recorded; an instruction with an L2 hint sets it around its
  // accesses (per lane for a cache-policy operand) and puts it back to Unchanged.
  L2Hint l2 = L2Hint::Unchanged;
  // Summary of acc, kept as accesses are added (the timing model asks for it on every memory
  // instruction; a scan of the lanes each time cost more than these two updates).
  uint32_t spaces = 0;     // bit TraceSpace: some access in that space
  uint32_t max_bytes = 0;  // the widest access
  void clear() {
    acc.clear();
    spaces = 0;
    max_bytes = 0;
  }
  void add(uint64_t addr, unsigned bytes, unsigned lane, TraceSpace sp, bool write) {
    acc.push_back(MemAccess{addr, uint16_t(bytes), uint8_t(lane), sp, write, l2});
    spaces |= 1u << unsigned(sp);
    max_bytes = std::max(max_bytes, unsigned(uint16_t(bytes)));
  }
  // For a run of accesses of one space and width: append each, then note() their kind once.
  void append(uint64_t addr, unsigned bytes, unsigned lane, TraceSpace sp, bool write) {
    acc.push_back(MemAccess{addr, uint16_t(bytes), uint8_t(lane), sp, write, l2});
  }
  void note(TraceSpace sp, unsigned bytes) {
    spaces |= 1u << unsigned(sp);
    max_bytes = std::max(max_bytes, unsigned(uint16_t(bytes)));
  }
  bool any(TraceSpace sp) const { return spaces >> unsigned(sp) & 1; }
  bool only(TraceSpace sp) const { return spaces == 1u << unsigned(sp); }
};

}  // namespace warpsim::func
