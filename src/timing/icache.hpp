// A set-associative instruction cache with LRU replacement over instruction addresses (code index x
// bytes per instruction). Used for the per-sub-core L0 and the per-SM L1 instruction caches.
#pragma once

#include <cstdint>

#include "timing/set_arena.hpp"

namespace warpsim::timing {

class InstructionCache {
 public:
  InstructionCache() = default;
  InstructionCache(uint32_t bytes, uint32_t line, uint32_t assoc) { configure(bytes, line, assoc); }
  void configure(uint32_t bytes, uint32_t line, uint32_t assoc) {
    line_ = line ? line : 128;
    assoc_ = assoc ? assoc : 1;
    uint32_t lines = bytes / line_;
    sets_ = lines / assoc_;
    if (sets_ == 0) sets_ = 0;  // no cache: every access misses
    arena_.configure(sets_, assoc_);
  }
  bool enabled() const { return sets_ > 0; }
  // True on a hit; on a miss the line is filled (LRU victim).
  bool access(uint64_t addr) {
    if (!sets_) return false;
    uint64_t line = addr / line_;
    uint32_t set = uint32_t(line % sets_);
    Way* w = arena_.live(set) ? arena_.ways(set) : arena_.make_live(set);  // first access: empty ways
    ++clock_;
    Way* victim = w;
    for (uint32_t i = 0; i < assoc_; ++i) {
      if (w[i].tag == line + 1) {
        w[i].stamp = clock_;
        return true;
      }
      if (w[i].stamp < victim->stamp) victim = &w[i];
    }
    victim->tag = line + 1;
    victim->stamp = clock_;
    victim->ready = 0;
    return false;
  }
  uint64_t line_of(uint64_t addr) const { return addr / line_; }
  // Line-level use with arrival times (the prefetching fetch path): lookup_line finds a line
  // (true; `ready` = the cycle its data is or was there, LRU updated) without filling on a miss;
  // fill_line puts a line in (LRU victim) that arrives at `ready`.
  bool lookup_line(uint64_t line, uint64_t& ready) {
    if (!sets_) return false;
    uint32_t set = uint32_t(line % sets_);
    if (!arena_.live(set)) return false;
    Way* w = arena_.ways(set);
    for (uint32_t i = 0; i < assoc_; ++i)
      if (w[i].tag == line + 1) {
        w[i].stamp = ++clock_;
        ready = w[i].ready;
        return true;
      }
    return false;
  }
  void fill_line(uint64_t line, uint64_t ready) {
    if (!sets_) return;
    uint32_t set = uint32_t(line % sets_);
    Way* w = arena_.live(set) ? arena_.ways(set) : arena_.make_live(set);
    ++clock_;
    Way* victim = w;
    for (uint32_t i = 0; i < assoc_; ++i) {
      if (w[i].tag == line + 1) {
        victim = &w[i];
        break;
      }
      if (w[i].stamp < victim->stamp) victim = &w[i];
    }
    victim->tag = line + 1;
    victim->stamp = clock_;
    victim->ready = ready;
  }

 private:
  // A set gets its ways on its first access (set_arena.hpp): every SM has five of these caches
  // (the L1I and four L0s), built again for every launch, and a kernel's code fills a few sets.
  // All-zero is an empty way (tag = line + 1; stamp 0 is older than any access).
  struct Way {
    uint64_t tag, stamp, ready;  // ready: arrival cycle of a filled line (fill_line)
  };
  uint32_t line_ = 128, assoc_ = 1, sets_ = 0;
  SetArena<Way, 3> arena_;  // 8 sets per chunk
  uint64_t clock_ = 0;
};

}  // namespace warpsim::timing
