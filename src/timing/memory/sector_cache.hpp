// A set-associative, sectored tag array with LRU replacement: the storage shape shared by the L1
// data cache and the L2 slices (128-byte lines of 32-byte sectors; a sector is valid or not on
// its own, so a miss fetches only the sectors asked for). Tags only: data lives in the functional
// memory.
//
// Every line has an eviction class (the A100's L2 residency controls, [WP] "L2 Cache Residency
// Control"; PTX .L2::evict_first/normal/last): streaming (First) lines are chosen as victims
// before normal ones, whatever their age. Persisting (Last) lines live only in the set-aside:
// `reserved` ways of each set. A persisting line may displace any non-persisting line while its
// set holds fewer than `reserved` persisting lines, and otherwise only the oldest persisting
// line; normal and streaming lines never displace a persisting line, so they use the set-aside
// ways exactly while no persisting line needs them (CUDA Programming Guide, "L2 Cache Set-Aside
// for Persisting Accesses"). With no set-aside, a persisting access allocates as a normal one.
// Persisting lines beyond the set-aside (after it shrank) count as normal lines for eviction.
#pragma once

#include <cstdint>
#include <vector>

#include "timing/set_arena.hpp"

namespace warpsim::timing {

// What an access asks of the line's eviction class. Unchanged keeps a present line's class (a new
// line is Normal); Normal also demotes a persisting line (cudaAccessPropertyNormal "forcefully
// resets" persistence, applypriority.L2::evict_normal).
enum class Evict : uint8_t { Unchanged = 0, Normal, First, Last };

class SectorCache {
 public:
  struct Victim {
    bool valid = false;
    uint64_t line = 0;
    uint32_t dirty = 0;  // dirty sectors of the evicted line (write-back caches)
    uint32_t sectors = 0;  // its valid sectors
    Evict cls = Evict::Normal;
  };

  SectorCache() = default;
  // `lines` total; `assoc` ways; `hash_sets`: the set index is a hash of the line (spreads
  // power-of-two strides, as hashed L2 set indexing does). `even_runs` > 0 (with hash_sets): the
  // cache holds one line of every run of `even_runs` consecutive lines (an L2 slice under
  // l2.set_mapping = "even"); its local index line / even_runs picks the set so that each run of
  // `sets` consecutive local indices has one line in every set, rotated by a hash of the run: a
  // contiguous range of lines loads the sets evenly. Clears the set-aside.
  void configure(uint64_t lines, uint32_t assoc, bool hash_sets, uint32_t even_runs = 0);
  bool enabled() const { return sets_ > 0; }
  uint64_t lines() const { return uint64_t(sets_) * assoc_; }
  uint32_t assoc() const { return assoc_; }
  // Ways of every set set aside for persisting lines (at most assoc).
  void set_reserved(uint32_t ways) { reserved_ = ways < assoc_ ? ways : assoc_; }
  uint32_t reserved() const { return reserved_; }

  // Valid sectors of `line` among `sectors` (0 on a miss); touches LRU when any is valid and
  // applies `e` to the line's class.
  uint32_t lookup(uint64_t line, uint32_t sectors, Evict e = Evict::Unchanged);
  // Makes `sectors` of `line` valid (allocating the line if absent; the victim is returned).
  Victim fill(uint64_t line, uint32_t sectors, Evict e = Evict::Unchanged);
  // Marks sectors dirty (allocating, as a write-allocate with byte masks needs no fetch).
  Victim write(uint64_t line, uint32_t sectors, Evict e = Evict::Unchanged);
  // Drops the line; returns its dirty sectors (the caller decides where they go).
  uint32_t invalidate(uint64_t line);
  // Asks the host's caches for the tags of `line`'s set, ahead of a lookup the caller knows is
  // coming (the L2's sets are spread over megabytes: a lookup is a cache miss otherwise). No
  // effect on the model.
  // The first step of that, one event earlier: where the set's ways are.
  void prefetch_index(uint64_t line) const { arena_.prefetch_index(set_of(line)); }
  void prefetch(uint64_t line) const {
    const uint32_t s = set_of(line);
    if (!live(s)) return;
    const char* p = reinterpret_cast<const char*>(set_ways(s));
    for (size_t off = 0; off < size_t(assoc_) * sizeof(Way); off += 64) __builtin_prefetch(p + off);
  }
  // Makes a present line the least recently used of its set (the next victim of its class).
  void age(uint64_t line);
  // Applies `e` to a present line's class (no LRU change); false when absent.
  bool reclassify(uint64_t line, Evict e);
  // Every persisting line becomes normal (cudaCtxResetPersistingL2Cache).
  void reset_persisting();
  // Empties the cache: calls dirty(line, sectors) for every line holding dirty sectors, then drops
  // every line (a flush with write-back, as a profiler's cache control does between kernels).
  template <class F>
  void flush(F&& dirty) {
    for (uint32_t s = 0; s < sets_; ++s) {
      if (!live(s)) continue;
      Way* set = set_ways(s);
      for (uint32_t w = 0; w < assoc_; ++w) {
        if (set[w].valid && set[w].dirty) dirty(set[w].line, set[w].dirty);
        set[w].valid = set[w].dirty = 0;
        set[w].cls = Evict::Normal;
      }
    }
  }
  // Lines with at least one valid sector (tests, reports).
  uint64_t valid_lines() const;
  // The class of a present line (Unchanged when absent): for tests and counters.
  Evict class_of(uint64_t line) const;
  // Persisting lines held.
  uint64_t persisting_lines() const;

 private:
  // 24 bytes: the L2 alone has 327,680 ways and a program touches its sets at random.
  struct Way {
    uint64_t line;
    uint32_t valid, dirty;  // sector masks; a way with no valid sector is free
    uint64_t lru : 56;
    Evict cls : 8;
  };
  static_assert(sizeof(Way) == 24);
  // A set has no ways until it is first allocated into (set_arena.hpp).
  bool live(uint32_t set) const { return arena_.live(set); }
  Way* set_ways(uint32_t set) { return arena_.ways(set); }
  const Way* set_ways(uint32_t set) const { return arena_.ways(set); }
  uint32_t set_of(uint64_t line) const;
  Way* find(uint64_t line);
  Way& victim_way(uint64_t line, Victim& v, Evict cls);
  Way* touch(uint64_t line, Evict e, Victim& v);
  void apply(Way& w, Evict e);
  uint32_t persisting_in(const Way* set) const;

  SetArena<Way, 4> arena_;  // 16 sets per chunk
  uint32_t sets_ = 0, assoc_ = 0, reserved_ = 0;
  uint32_t set_mask_ = 0;  // sets_ - 1 when a power of two (a mask, not a division)
  bool hash_ = false;
  uint32_t even_runs_ = 0;
  uint64_t tick_ = 1;
};

}  // namespace warpsim::timing
