// A translation lookaside buffer: set-associative over virtual page numbers, LRU. An entry being
// filled (its page walk in flight) is present with the cycle its translation is ready, so later
// misses to the same page wait for that walk instead of starting another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpsim::timing {

class Tlb {
 public:
  void configure(uint32_t entries, uint32_t assoc);
  // Cycle the translation of `vpn` is ready if present (refreshing LRU), else ~0ull.
  uint64_t lookup(uint64_t vpn);
  // Inserts `vpn`, ready at `ready`, replacing the least recently used entry of its set.
  void insert(uint64_t vpn, uint64_t ready);

 private:
  struct Way {
    uint64_t vpn = ~0ull, ready = 0, lru = 0;
  };
  std::vector<Way> ways_;
  uint32_t sets_ = 0, assoc_ = 0;
  uint64_t tick_ = 1;
};

}  // namespace warpsim::timing
