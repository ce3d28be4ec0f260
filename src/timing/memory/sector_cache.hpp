// A set-associative, sectored tag array with LRU replacement: the storage shape shared by the L1
// data cache and the L2 slices (128-byte lines of 32-byte sectors; a sector is valid or not on
// its own, so a miss fetches only the sectors asked for). Tags only: data lives in the functional
// memory. Lines can be inserted at the LRU end (evict-first / streaming policies).
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::timing {

class SectorCache {
 public:
  struct Victim {
    bool valid = false;
    uint64_t line = 0;
    uint32_t dirty = 0;  // dirty sectors of the evicted line (write-back caches)
    uint32_t sectors = 0;  // its valid sectors
  };

  SectorCache() = default;
  // `lines` total; `assoc` ways; `hash_sets`: XOR-fold the upper line bits into the set index
  // (spreads power-of-two strides, as hashed L2 set indexing does).
  void configure(uint64_t lines, uint32_t assoc, bool hash_sets);
  bool enabled() const { return sets_ > 0; }
  uint64_t lines() const { return uint64_t(sets_) * assoc_; }

  // Valid sectors of `line` among `sectors` (0 on a miss); touches LRU when any is valid.
  uint32_t lookup(uint64_t line, uint32_t sectors);
  // Makes `sectors` of `line` valid (allocating the line if absent; the victim is returned).
  // evict_first: a newly allocated line goes to the LRU position.
  Victim fill(uint64_t line, uint32_t sectors, bool evict_first = false);
  // Marks sectors dirty (allocating, as a write-allocate with byte masks needs no fetch).
  Victim write(uint64_t line, uint32_t sectors, bool evict_first = false);
  // Drops the line; returns its dirty sectors (the caller decides where they go).
  uint32_t invalidate(uint64_t line);

 private:
  struct Way {
    uint64_t line = ~0ull;
    uint32_t valid = 0, dirty = 0;
    uint64_t lru = 0;
  };
  uint32_t set_of(uint64_t line) const;
  Way* find(uint64_t line);
  Way& victim_way(uint64_t line, Victim& v, bool evict_first);

  std::vector<Way> ways_;
  uint32_t sets_ = 0, assoc_ = 0;
  bool hash_ = false;
  uint64_t tick_ = 1;
};

}  // namespace warpsim::timing
