// A set-associative instruction cache with LRU replacement over instruction addresses (code index x
// bytes per instruction). Used for the per-sub-core L0 and the per-SM L1 instruction caches.
#pragma once

#include <cstdint>
#include <vector>

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
    tags_.assign(size_t(sets_) * assoc_, ~0ull);
    stamp_.assign(tags_.size(), 0);
  }
  bool enabled() const { return sets_ > 0; }
  // True on a hit; on a miss the line is filled (LRU victim).
  bool access(uint64_t addr) {
    if (!sets_) return false;
    uint64_t line = addr / line_;
    uint32_t set = uint32_t(line % sets_);
    size_t base = size_t(set) * assoc_;
    ++clock_;
    size_t victim = base;
    for (size_t i = base; i < base + assoc_; ++i) {
      if (tags_[i] == line) {
        stamp_[i] = clock_;
        return true;
      }
      if (stamp_[i] < stamp_[victim]) victim = i;
    }
    tags_[victim] = line;
    stamp_[victim] = clock_;
    return false;
  }
  uint64_t line_of(uint64_t addr) const { return addr / line_; }

 private:
  uint32_t line_ = 128, assoc_ = 1, sets_ = 0;
  std::vector<uint64_t> tags_, stamp_;
  uint64_t clock_ = 0;
};

}  // namespace warpsim::timing
