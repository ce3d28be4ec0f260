// A translation lookaside buffer: set-associative over virtual page numbers, LRU. An entry being
// filled (its page walk in flight) is present with the cycle its translation is ready, so later
// misses to the same page wait for that walk instead of starting another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "func/zero_array.hpp"

namespace warpsim::timing {

class Tlb {
 public:
  void configure(uint32_t entries, uint32_t assoc);
  // Cycle the translation of `vpn` is ready if present (refreshing LRU), else ~0ull.
  uint64_t lookup(uint64_t vpn);
  // Inserts `vpn`, ready at `ready`, replacing the least recently used entry of its set.
  void insert(uint64_t vpn, uint64_t ready);

 private:
  // All-zero bytes are an empty entry (tag = vpn + 1), so that a large TLB costs memory only where
  // a program touches it.
  struct Way {
    uint64_t tag, ready, lru;
  };
  func::ZeroArray<Way> ways_;
  uint32_t sets_ = 0, assoc_ = 0;
  uint64_t tick_ = 1;
};

}  // namespace warpsim::timing
