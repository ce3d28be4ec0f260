// Per-warp scoreboard: registers with a write in flight and the cycle their value is ready. A
// short list, not a table per register: PTX has thousands of virtual registers, a warp has only a
// few writes outstanding. When it is full the warp waits (the hardware's scoreboards are few too).
//
// The list lives in the warp's context while it is short (kInline entries, the usual case) and
// moves to the heap beyond: every issue reads it, and a heap block of its own per warp was a
// cache miss per look. Entries keep their order (ties in earliest() go to the first), as a plain
// vector's would.
#pragma once

#include <cstdint>
#include <vector>

#include "config/machine.hpp"

namespace warpsim::timing {

class Scoreboard {
 public:
  struct Entry {
    uint64_t ready;
    uint32_t reg;
    config::Scoreboard kind;
  };
  static constexpr uint32_t kInline = 6;

  explicit Scoreboard(uint32_t capacity = 64) : capacity_(capacity) {}

  // Drops writes that completed by `now`.
  void retire(uint64_t now) {
    Entry* e = data();
    uint32_t k = 0;
    for (uint32_t i = 0; i < size_; ++i)
      if (e[i].ready > now) e[k++] = e[i];
    size_ = k;
    if (spilled_) heap_.resize(k);
  }
  // The cycle `reg` is ready (0 when no write is in flight) and which scoreboard it waits on.
  uint64_t ready(uint32_t reg, config::Scoreboard& kind) const {
    const Entry* e = data();
    for (uint32_t i = 0; i < size_; ++i)
      if (e[i].reg == reg) {
        kind = e[i].kind;
        return e[i].ready;
      }
    return 0;
  }
  void write(uint32_t reg, uint64_t ready, config::Scoreboard kind) {
    Entry* e = data();
    for (uint32_t i = 0; i < size_; ++i)
      if (e[i].reg == reg) {
        if (ready > e[i].ready) {
          e[i].ready = ready;
          e[i].kind = kind;
        }
        return;
      }
    push({ready, reg, kind});
  }
  // Sets `reg`'s ready cycle, also lowering it (a load whose completion was unknown at issue).
  void set(uint32_t reg, uint64_t ready, config::Scoreboard kind) {
    Entry* e = data();
    for (uint32_t i = 0; i < size_; ++i)
      if (e[i].reg == reg) {
        e[i].ready = ready;
        e[i].kind = kind;
        return;
      }
    push({ready, reg, kind});
  }
  bool full() const { return size_ >= capacity_; }
  size_t size() const { return size_; }
  // The earliest completion among the entries (when full, the warp waits for it).
  uint64_t earliest(config::Scoreboard& kind) const {
    uint64_t best = ~0ull;
    const Entry* e = data();
    for (uint32_t i = 0; i < size_; ++i)
      if (e[i].ready < best) {
        best = e[i].ready;
        kind = e[i].kind;
      }
    return best;
  }
  void clear() {
    size_ = 0;
    heap_.clear();
    spilled_ = false;
  }
  // Empty, with a new capacity; a heap list keeps its memory (a warp slot's next warp reuses it).
  void reset(uint32_t capacity) {
    clear();
    capacity_ = capacity;
  }

 private:
  Entry* data() { return spilled_ ? heap_.data() : inline_; }
  const Entry* data() const { return spilled_ ? heap_.data() : inline_; }
  void push(const Entry& x) {
    if (!spilled_ && size_ < kInline) {
      inline_[size_++] = x;
      return;
    }
    if (!spilled_) {
      heap_.assign(inline_, inline_ + size_);
      spilled_ = true;
    }
    heap_.push_back(x);
    ++size_;
  }

  uint32_t size_ = 0;
  uint32_t capacity_;
  bool spilled_ = false;
  Entry inline_[kInline] = {};
  std::vector<Entry> heap_;  // the entries once more than kInline were in flight at once
};

}  // namespace warpsim::timing
