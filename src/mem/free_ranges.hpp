// A set of free unit ranges [start, start + count) with first-fit allocation and coalescing on
// release. DeviceMemory uses one over virtual pages (contiguous, aligned allocations) and one
// over physical frames (any frames will do, lowest first, so frame numbers stay deterministic).
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace warpsim::mem {

class FreeRanges {
 public:
  FreeRanges() = default;
  explicit FreeRanges(uint64_t units) { if (units) free_.emplace(0, units); total_free_ = units; }

  // First (lowest) range that holds `count` contiguous units whose start, plus `origin`, is a
  // multiple of `align` (a power of two). `origin` lets the caller align absolute addresses
  // while the set counts units from zero.
  std::optional<uint64_t> take_contiguous(uint64_t count, uint64_t align = 1, uint64_t origin = 0);

  // Takes `count` units from the lowest ranges, not necessarily contiguous; calls
  // out(start, n) for each piece in ascending order. Returns false (taking nothing) if fewer
  // than `count` units are free.
  template <class F>
  bool take_any(uint64_t count, F&& out);

  // Returns [start, start + count) to the set, merging with free neighbours. The range must be
  // taken (not free); overlapping a free range is a caller bug and is ignored in release builds.
  void give(uint64_t start, uint64_t count);

  uint64_t total_free() const { return total_free_; }
  size_t fragments() const { return free_.size(); }

 private:
  std::map<uint64_t, uint64_t> free_;  // start -> count, disjoint and never adjacent
  uint64_t total_free_ = 0;
};

template <class F>
bool FreeRanges::take_any(uint64_t count, F&& out) {
  if (count > total_free_) return false;
  total_free_ -= count;
  while (count) {
    auto it = free_.begin();
    uint64_t start = it->first, n = it->second;
    if (n <= count) {
      free_.erase(it);
    } else {
      free_.erase(it);
      free_.emplace(start + count, n - count);
      n = count;
    }
    out(start, n);
    count -= n;
  }
  return true;
}

}  // namespace warpsim::mem
