#include "timing/memory/sector_cache.hpp"

#include <bit>
#include <cstddef>

namespace warpsim::timing {

void SectorCache::configure(uint64_t lines, uint32_t assoc, bool hash_sets, uint32_t even_runs) {
  assoc_ = assoc ? assoc : 1;
  sets_ = uint32_t(lines / assoc_);
  set_mask_ = sets_ && std::has_single_bit(sets_) ? sets_ - 1 : 0;  // 0: not a power of two (or 1 set)
  hash_ = hash_sets;
  even_runs_ = even_runs;
  arena_.configure(sets_, assoc_);
  tick_ = 1;
  reserved_ = 0;
}

uint32_t SectorCache::set_of(uint64_t line) const {
  if (!hash_) return set_mask_ ? uint32_t(line & set_mask_) : uint32_t(line % sets_);
  if (even_runs_) {
    // The slice's own lines, numbered densely; each run of `sets` of them covers every set once.
    const uint64_t local = line / even_runs_, run = local / sets_;
    uint64_t h = (run + 1) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 32;
    return uint32_t((local % sets_ + h % sets_) % sets_);
  }
  // Fold the bits above the index into it so that strides of a power of two spread over sets.
  // A hash of its own (not the one that picks the L2 slice), so that the lines of one slice
  // still spread over all its sets.
  uint64_t h = line * 0xc2b2ae3d27d4eb4full;
  h ^= h >> 33;
  h *= 0x165667b19e3779f9ull;
  h ^= h >> 29;
  return set_mask_ ? uint32_t(h & set_mask_) : uint32_t(h % sets_);
}

SectorCache::Way* SectorCache::find(uint64_t line) {
  const uint32_t s = set_of(line);
  if (!live(s)) return nullptr;
  Way* set = set_ways(s);
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].line == line && set[w].valid) return &set[w];
  return nullptr;
}

uint32_t SectorCache::persisting_in(const Way* set) const {
  uint32_t n = 0;
  for (uint32_t w = 0; w < assoc_; ++w) n += set[w].valid && set[w].cls == Evict::Last;
  return n;
}

// A present line takes the class an access asks for; it becomes persisting only while its set's
// set-aside has room.
void SectorCache::apply(Way& w, Evict e) {
  if (e == Evict::Unchanged || e == w.cls) return;
  if (e == Evict::Last) {
    if (reserved_ == 0 || persisting_in(set_ways(set_of(w.line))) >= reserved_) return;
  }
  w.cls = e;
}

uint32_t SectorCache::lookup(uint64_t line, uint32_t sectors, Evict e) {
  if (!sets_) return 0;
  Way* w = find(line);
  if (!w) return 0;
  uint32_t hit = w->valid & sectors;
  if (hit) {
    w->lru = tick_++;
    apply(*w, e);
  }
  return hit;
}

SectorCache::Way& SectorCache::victim_way(uint64_t line, Victim& v, Evict cls) {
  if (cls == Evict::Unchanged || (cls == Evict::Last && reserved_ == 0)) cls = Evict::Normal;
  const uint32_t s = set_of(line);
  Way* set = live(s) ? set_ways(s) : arena_.make_live(s);  // first allocation into the set: empty ways
  // Without a set-aside (the L1, and the L2 unless a program asks) no count is needed: any
  // persisting line left from an earlier set-aside is in excess.
  const uint32_t persisting = reserved_ ? persisting_in(set) : 0;
  Way* best = nullptr;
  if (cls == Evict::Last && persisting >= reserved_) {
    // The set-aside is full: the oldest persisting line makes room.
    for (uint32_t w = 0; w < assoc_; ++w)
      if (set[w].valid && set[w].cls == Evict::Last && (!best || set[w].lru < best->lru)) best = &set[w];
  } else {
    // Free ways first, then streaming lines, then the least recently used normal line. Persisting
    // lines are candidates only in excess of the set-aside (it shrank under them).
    const bool excess = reserved_ == 0 || persisting > reserved_;
    auto key = [](const Way& w) { return w.cls == Evict::First ? 0 : 1; };
    for (uint32_t w = 0; w < assoc_; ++w) {
      Way& c = set[w];
      if (!c.valid) {
        best = &c;
        break;
      }
      if (c.cls == Evict::Last && !excess) continue;
      if (!best || key(c) < key(*best) || (key(c) == key(*best) && c.lru < best->lru)) best = &c;
    }
    if (!best) {  // every way persisting and the set-aside is the whole set
      for (uint32_t w = 0; w < assoc_; ++w)
        if (!best || set[w].lru < best->lru) best = &set[w];
    }
  }
  if (best->valid) v = Victim{true, best->line, best->dirty, best->valid, best->cls};
  best->line = line;
  best->valid = best->dirty = 0;
  best->lru = tick_++;
  best->cls = cls;
  return *best;
}

// The way holding `line` (allocated, with the victim it displaced, if absent), now most recent.
SectorCache::Way* SectorCache::touch(uint64_t line, Evict e, Victim& v) {
  Way* w = find(line);
  if (!w) return &victim_way(line, v, e);
  w->lru = tick_++;
  apply(*w, e);
  return w;
}

SectorCache::Victim SectorCache::fill(uint64_t line, uint32_t sectors, Evict e) {
  Victim v;
  if (!sets_) return v;
  touch(line, e, v)->valid |= sectors;
  return v;
}

SectorCache::Victim SectorCache::write(uint64_t line, uint32_t sectors, Evict e) {
  Victim v;
  if (!sets_) return v;
  Way* w = touch(line, e, v);
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
  w->cls = Evict::Normal;
  return d;
}

void SectorCache::age(uint64_t line) {
  if (!sets_) return;
  if (Way* w = find(line)) w->lru = 0;  // ticks start at 1: older than every other way
}

bool SectorCache::reclassify(uint64_t line, Evict e) {
  if (!sets_) return false;
  Way* w = find(line);
  if (!w) return false;
  apply(*w, e);
  return true;
}

void SectorCache::reset_persisting() {
  for (uint32_t s = 0; s < sets_; ++s) {
    if (!live(s)) continue;
    Way* set = set_ways(s);
    for (uint32_t w = 0; w < assoc_; ++w)
      if (set[w].cls == Evict::Last) set[w].cls = Evict::Normal;
  }
}

Evict SectorCache::class_of(uint64_t line) const {
  if (!sets_) return Evict::Unchanged;
  const uint32_t s = set_of(line);
  if (!live(s)) return Evict::Unchanged;
  const Way* set = set_ways(s);
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].line == line && set[w].valid) return set[w].cls;
  return Evict::Unchanged;
}

uint64_t SectorCache::persisting_lines() const {
  uint64_t n = 0;
  for (uint32_t s = 0; s < sets_; ++s) {
    if (!live(s)) continue;
    const Way* set = set_ways(s);
    for (uint32_t w = 0; w < assoc_; ++w) n += set[w].valid && set[w].cls == Evict::Last;
  }
  return n;
}

uint64_t SectorCache::valid_lines() const {
  uint64_t n = 0;
  for (uint32_t s = 0; s < sets_; ++s) {
    if (!live(s)) continue;
    const Way* set = set_ways(s);
    for (uint32_t w = 0; w < assoc_; ++w) n += set[w].valid != 0;
  }
  return n;
}

}  // namespace warpsim::timing
