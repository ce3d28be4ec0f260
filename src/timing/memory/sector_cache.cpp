#include "timing/memory/sector_cache.hpp"

#include <bit>
#include <cstddef>

namespace warpsim::timing {

void SectorCache::configure(uint64_t lines, uint32_t assoc, bool hash_sets) {
  assoc_ = assoc ? assoc : 1;
  sets_ = uint32_t(lines / assoc_);
  hash_ = hash_sets;
  ways_.assign(size_t(sets_) * assoc_, Way{});
  tick_ = 1;
}

uint32_t SectorCache::set_of(uint64_t line) const {
  if (!hash_) return uint32_t(line % sets_);
  // Fold the bits above the index into it so that strides of a power of two spread over sets.
  // A hash of its own (not the one that picks the L2 slice), so that the lines of one slice
  // still spread over all its sets.
  uint64_t h = line * 0xc2b2ae3d27d4eb4full;
  h ^= h >> 33;
  h *= 0x165667b19e3779f9ull;
  h ^= h >> 29;
  return uint32_t(h % sets_);
}

SectorCache::Way* SectorCache::find(uint64_t line) {
  Way* set = &ways_[size_t(set_of(line)) * assoc_];
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].line == line && set[w].valid) return &set[w];
  return nullptr;
}

uint32_t SectorCache::lookup(uint64_t line, uint32_t sectors) {
  if (!sets_) return 0;
  Way* w = find(line);
  if (!w) return 0;
  uint32_t hit = w->valid & sectors;
  if (hit) w->lru = tick_++;
  return hit;
}

SectorCache::Way& SectorCache::victim_way(uint64_t line, Victim& v, bool evict_first) {
  Way* set = &ways_[size_t(set_of(line)) * assoc_];
  Way* best = &set[0];
  for (uint32_t w = 0; w < assoc_; ++w) {
    if (!set[w].valid) {
      best = &set[w];
      break;
    }
    if (set[w].lru < best->lru) best = &set[w];
  }
  if (best->valid) v = Victim{true, best->line, best->dirty, best->valid};
  best->line = line;
  best->valid = best->dirty = 0;
  // Evict-first lines look older than every other line of the set.
  best->lru = evict_first ? 0 : tick_++;
  return *best;
}

SectorCache::Victim SectorCache::fill(uint64_t line, uint32_t sectors, bool evict_first) {
  Victim v;
  if (!sets_) return v;
  Way* w = find(line);
  if (!w) w = &victim_way(line, v, evict_first);
  else if (!evict_first) w->lru = tick_++;
  w->valid |= sectors;
  return v;
}

SectorCache::Victim SectorCache::write(uint64_t line, uint32_t sectors, bool evict_first) {
  Victim v;
  if (!sets_) return v;
  Way* w = find(line);
  if (!w) w = &victim_way(line, v, evict_first);
  else w->lru = tick_++;
  w->valid |= sectors;
  w->dirty |= sectors;
  return v;
}

uint32_t SectorCache::invalidate(uint64_t line) {
  if (!sets_) return 0;
  Way* w = find(line);
  if (!w) return 0;
  uint32_t d = w->dirty;
  w->valid = w->dirty = 0;
  return d;
}

}  // namespace warpsim::timing
