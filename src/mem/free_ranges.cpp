#include "mem/free_ranges.hpp"

#include <cassert>
#include <iterator>

namespace warpsim::mem {

std::optional<uint64_t> FreeRanges::take_contiguous(uint64_t count, uint64_t align, uint64_t origin) {
  if (count == 0 || count > total_free_) return std::nullopt;
  if (align == 0) align = 1;
  const uint64_t mask = align - 1;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t start = it->first, n = it->second;
    // Smallest s >= start with (origin + s) % align == 0, computed without overflow.
    const uint64_t pad = (align - ((origin + start) & mask)) & mask;
    if (pad >= n || n - pad < count) continue;
    const uint64_t s = start + pad;
    free_.erase(it);
    if (pad) free_.emplace(start, pad);
    if (n - pad > count) free_.emplace(s + count, n - pad - count);
    total_free_ -= count;
    return s;
  }
  return std::nullopt;
}

void FreeRanges::give(uint64_t start, uint64_t count) {
  if (count == 0) return;
  total_free_ += count;
  auto next = free_.lower_bound(start);
  assert(next == free_.end() || next->first >= start + count);
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    assert(prev->first + prev->second <= start);
    if (prev->first + prev->second == start) {  // merge into the left neighbour
      prev->second += count;
      if (next != free_.end() && next->first == start + count) {
        prev->second += next->second;
        free_.erase(next);
      }
      return;
    }
  }
  if (next != free_.end() && next->first == start + count) {  // merge with the right neighbour
    count += next->second;
    free_.erase(next);
  }
  free_.emplace(start, count);
}

}  // namespace warpsim::mem
