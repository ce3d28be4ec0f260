// Everything a memory request meets after it leaves an SM's L1: the L2 TLBs shared by groups of
// SMs and the GMMU's page walkers, the crossbar, the L2 slices in their partitions (the near
// partition caches what its GPCs read; its victims move to the far one), and the memory
// controllers with their DRAM. Event-driven: requests and responses are events in time order;
// the GPU advances the memory system to each cycle before its SMs issue in it.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "config/machine.hpp"
#include "stats/memory_stats.hpp"
#include "timing/dram/controller.hpp"
#include "timing/memory/crossbar.hpp"
#include "timing/memory/sector_cache.hpp"
#include "timing/memory/tlb.hpp"

namespace warpsim::timing {

// Who receives responses: an SM's L1 (its miss-status entry `tag`).
class MemClient {
 public:
  virtual ~MemClient() = default;
  virtual void on_response(uint32_t tag, uint64_t t) = 0;
};

enum class MemOpKind : uint8_t { Read, Write, Atomic };

struct MemRequest {
  uint32_t sm = 0;
  uint32_t tag = 0;          // returned to the SM with the response
  uint64_t line = 0;         // physical line address (address / line bytes)
  uint32_t sectors = 0;      // sectors of the line
  MemOpKind kind = MemOpKind::Read;
  uint16_t ops = 1;          // atomics: distinct addresses resolved at L2
  bool respond = true;       // reads and atom: a response goes back; stores and red: none
  bool evict_first = false;  // streaming (.cs/.lu, evict_first hints)
  stats::MemoryStats* ctr = nullptr;  // the issuing kernel's counters
};

class MemorySystem {
 public:
  explicit MemorySystem(const config::Machine& m);
  ~MemorySystem();

  void attach(uint32_t sm, MemClient* c);
  uint32_t gpc_of(uint32_t sm) const;
  uint32_t tlb_group_of(uint32_t sm) const;
  uint32_t partition_of_sm(uint32_t sm) const;
  // The L2 slice that serves SM `sm`'s requests for `line` (in the SM's partition).
  uint32_t slice_for(uint32_t sm, uint64_t line) const;

  // An L1 TLB miss of SM `sm` for virtual page `vpn` at cycle t: the cycle its translation is
  // ready (L2 TLB hit, or a page walk by one of the group's walkers).
  uint64_t translate(uint32_t sm, uint64_t vpn, uint64_t t, stats::MemoryStats* ctr);

  // A request leaving SM `sm`'s L1 at cycle t (>= the cycle the GPU last advanced to).
  void send(const MemRequest& r, uint64_t t);
  // Processes every event up to and including cycle t.
  void advance(uint64_t t);
  uint64_t next_event() const;
  // The last cycle the memory system has advanced to (the clock a later run must not go behind).
  uint64_t now() const;
  // Forgets every SM (responses are dropped) and every request's counters; cache contents stay.
  void detach_all();
  // Runs every event in flight to completion.
  void drain();
  // The L2 is flushed between runs only by the runtime's explicit resets (none today): state
  // persists from kernel to kernel, as on the GPU.

 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

}  // namespace warpsim::timing
