// A map from cache-line number to a 32-bit index (kNil: absent): open addressing with linear
// probing and backward-shift deletion, so that inserting and erasing allocate nothing once the
// table has grown to its working size. The miss-status entries of the L1 (the first joinable entry
// of each line) and of the L2 slices (the entry of each line being fetched) are found through it:
// a map of vectors made heap allocations on every miss.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpsim::timing {

class LineMap {
 public:
  static constexpr uint32_t kNil = ~0u;

  uint32_t head(uint64_t line) const {
    if (keys_.empty()) return kNil;
    for (size_t i = slot(line);; i = (i + 1) & mask_) {
      if (vals_[i] == kNil) return kNil;
      if (keys_[i] == line) return vals_[i];
    }
  }
  void set(uint64_t line, uint32_t e) {
    if (2 * (used_ + 1) > keys_.size()) grow();
    size_t i = slot(line);
    while (vals_[i] != kNil && keys_[i] != line) i = (i + 1) & mask_;
    if (vals_[i] == kNil) ++used_;
    keys_[i] = line;
    vals_[i] = e;
  }
  void erase(uint64_t line) {
    if (keys_.empty()) return;
    size_t i = slot(line);
    while (vals_[i] != kNil && keys_[i] != line) i = (i + 1) & mask_;
    if (vals_[i] == kNil) return;
    // Backward shift: move later entries of the probe run into the hole.
    for (size_t j = (i + 1) & mask_; vals_[j] != kNil; j = (j + 1) & mask_) {
      const size_t home = slot(keys_[j]);
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        keys_[i] = keys_[j];
        vals_[i] = vals_[j];
        i = j;
      }
    }
    vals_[i] = kNil;
    --used_;
  }
  size_t size() const { return used_; }
  void clear() {
    std::fill(vals_.begin(), vals_.end(), kNil);
    used_ = 0;
  }

 private:
  size_t slot(uint64_t line) const { return size_t((line * 0x9e3779b97f4a7c15ull) >> 20) & mask_; }
  void grow() {
    std::vector<uint64_t> k = std::move(keys_);
    std::vector<uint32_t> v = std::move(vals_);
    const size_t n = std::max<size_t>(64, 2 * k.size());
    keys_.assign(n, 0);
    vals_.assign(n, kNil);
    mask_ = n - 1;
    used_ = 0;
    for (size_t i = 0; i < k.size(); ++i)
      if (v[i] != kNil) set(k[i], v[i]);
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t mask_ = 0, used_ = 0;
};

}  // namespace warpsim::timing
