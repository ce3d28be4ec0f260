#include "timing/memory/tlb.hpp"

namespace warpsim::timing {

void Tlb::configure(uint32_t entries, uint32_t assoc) {
  assoc_ = assoc ? assoc : 1;
  sets_ = entries / assoc_;
  ways_.assign(size_t(sets_) * assoc_);
}

uint64_t Tlb::lookup(uint64_t vpn) {
  if (!sets_) return ~0ull;
  Way* set = &ways_[size_t(vpn % sets_) * assoc_];
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].tag == vpn + 1) {
      set[w].lru = tick_++;
      return set[w].ready;
    }
  return ~0ull;
}

void Tlb::insert(uint64_t vpn, uint64_t ready) {
  if (!sets_) return;
  Way* set = &ways_[size_t(vpn % sets_) * assoc_];
  Way* best = &set[0];
  for (uint32_t w = 0; w < assoc_; ++w) {
    if (set[w].tag == vpn + 1) {
      best = &set[w];
      break;
    }
    if (set[w].lru < best->lru) best = &set[w];
  }
  *best = Way{vpn + 1, ready, tick_++};
}

}  // namespace warpsim::timing
