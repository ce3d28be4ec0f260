// One L2 slice: its sectored tag array, its request port (bytes per cycle), its atomic unit, and
// its miss-status entries: for each line being fetched (from the other partition or DRAM), the
// sectors asked for, the sectors back, and the requests waiting on them.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "timing/memory/sector_cache.hpp"

namespace warpsim::timing {

struct L2Slice {
  struct Waiter {
    uint32_t req;      // request id in the memory system's pool
    uint32_t needed;   // sectors it waits for
  };
  struct Miss {
    uint32_t asked = 0, arrived = 0;
    Evict evict = Evict::Unchanged;  // the class the line is filled with
    bool no_allocate = false;        // every waiter asked .L2::no_allocate
    std::vector<Waiter> waiters;
  };
  SectorCache tags;
  uint64_t port_free = 0;     // the slice's data port
  uint64_t atomic_free = 0;   // its atomic unit
  uint32_t outstanding = 0;   // DRAM transactions (fills and write-backs) in flight
  std::unordered_map<uint64_t, Miss> misses;  // by line
  std::deque<uint32_t> stalled;               // requests waiting for `outstanding` to drop (FIFO)
};

}  // namespace warpsim::timing
