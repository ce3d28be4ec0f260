// Per-warp scoreboard: registers with a write in flight and the cycle their value is ready. A
// short list, not a table per register: PTX has thousands of virtual registers, a warp has only a
// few writes outstanding. When it is full the warp waits (the hardware's scoreboards are few too).
#pragma once

#include <cstdint>
#include <vector>

#include "config/machine.hpp"

namespace warpsim::timing {

class Scoreboard {
 public:
  struct Entry {
    uint32_t reg;
    uint64_t ready;
    config::Scoreboard kind;
  };

  explicit Scoreboard(uint32_t capacity = 64) : capacity_(capacity) {}

  // Drops writes that completed by `now`.
  void retire(uint64_t now) {
    size_t k = 0;
    for (auto& e : entries_)
      if (e.ready > now) entries_[k++] = e;
    entries_.resize(k);
  }
  // The cycle `reg` is ready (0 when no write is in flight) and which scoreboard it waits on.
  uint64_t ready(uint32_t reg, config::Scoreboard& kind) const {
    for (auto& e : entries_)
      if (e.reg == reg) {
        kind = e.kind;
        return e.ready;
      }
    return 0;
  }
  void write(uint32_t reg, uint64_t ready, config::Scoreboard kind) {
    for (auto& e : entries_)
      if (e.reg == reg) {
        if (ready > e.ready) {
          e.ready = ready;
          e.kind = kind;
        }
        return;
      }
    entries_.push_back({reg, ready, kind});
  }
  // Sets `reg`'s ready cycle, also lowering it (a load whose completion was unknown at issue).
  void set(uint32_t reg, uint64_t ready, config::Scoreboard kind) {
    for (auto& e : entries_)
      if (e.reg == reg) {
        e.ready = ready;
        e.kind = kind;
        return;
      }
    entries_.push_back({reg, ready, kind});
  }
  bool full() const { return entries_.size() >= capacity_; }
  // The earliest completion among the entries (when full, the warp waits for it).
  uint64_t earliest(config::Scoreboard& kind) const {
    uint64_t best = ~0ull;
    for (auto& e : entries_)
      if (e.ready < best) {
        best = e.ready;
        kind = e.kind;
      }
    return best;
  }
  void clear() { entries_.clear(); }
  // Empty, with a new capacity; the list keeps its memory (a warp slot's next warp reuses it).
  void reset(uint32_t capacity) {
    entries_.clear();
    capacity_ = capacity;
  }

 private:
  std::vector<Entry> entries_;
  uint32_t capacity_;
};

}  // namespace warpsim::timing
