// One L2 slice: its sectored tag array, its request port (bytes per cycle), its atomic unit, and
// its miss-status entries: for each line being fetched (from the other partition or DRAM), the
// sectors asked for, the sectors back, and the requests waiting on them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "timing/free_slots.hpp"
#include "timing/memory/line_map.hpp"
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
    // Two partitions: sectors this slice asked DRAM for, and sectors the same slice of the other
    // partition waits for from this fetch (its far probe found them on the way here, so the
    // line is read from DRAM once).
    uint32_t from_dram = 0, partner = 0;
    std::vector<Waiter> waiters;
  };
  SectorCache tags;
  // Busy-until times in 1/kTick of an SM cycle: a tag lookup takes one L2 clock, which is not a
  // whole number of SM cycles when the clocks differ (the H100's L2 runs at 0.86 of the SM clock).
  static constexpr uint64_t kTick = 256;
  uint64_t port_free = 0;     // the slice's tag and data port
  uint64_t atomic_free = 0;   // its atomic unit
  // Occupies a unit busy until `free` (ticks) for `cost` ticks from cycle t on; returns the cycle
  // it begins.
  static uint64_t occupy(uint64_t& free, uint64_t t, uint64_t cost) {
    const uint64_t start = std::max(t * kTick, free);
    free = start + cost;
    return cycles(start);
  }
  // Ticks to whole cycles, rounded up.
  static uint64_t cycles(uint64_t ticks) { return (ticks + kTick - 1) / kTick; }
  uint32_t outstanding = 0;   // DRAM transactions (fills and write-backs) in flight
  std::deque<uint32_t> stalled;  // requests waiting for `outstanding` to drop (FIFO)

  // Miss-status entries by line. Entries are records in a pool, reused with their waiter vectors'
  // capacity, found through an open-addressing map (an unordered_map of vectors made two heap
  // allocations per miss). The pool is a deque: an entry stays where it is while others are
  // created (arrived() answers waiters while holding one).
  Miss* find_miss(uint64_t line) {
    const uint32_t i = miss_index_.head(line);
    return i == LineMap::kNil ? nullptr : &miss_pool_[i];
  }
  // The entry of `line`, created empty if absent (second: created).
  std::pair<Miss*, bool> miss_for(uint64_t line) {
    if (Miss* m = find_miss(line)) return {m, false};
    const uint32_t i = take_slot(miss_pool_, miss_free_);
    Miss& m = miss_pool_[i];
    m.asked = m.arrived = 0;
    m.evict = Evict::Unchanged;
    m.no_allocate = false;
    m.from_dram = m.partner = 0;
    m.waiters.clear();
    miss_index_.set(line, i);
    return {&m, true};
  }
  void erase_miss(uint64_t line) {
    const uint32_t i = miss_index_.head(line);
    if (i == LineMap::kNil) return;
    miss_index_.erase(line);
    miss_free_.push_back(i);
  }
  size_t misses() const { return miss_index_.size(); }

 private:
  LineMap miss_index_;
  std::deque<Miss> miss_pool_;
  std::vector<uint32_t> miss_free_;
};

}  // namespace warpsim::timing
