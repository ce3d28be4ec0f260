// Index pools for the timing model's records that come and go by the thousand (instruction
// trackers, memory requests, DRAM transactions, L1 and L2 miss-status entries, constant-cache
// fetches): records live in a vector (or deque) and are named by index; freed indices are handed
// out again, most recently freed first, before the container grows.
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::timing {

// The index of a record to (re)use: the most recently freed one, else a new default-constructed
// record at the end of `items` (a vector, or a deque where records must not move). The caller
// resets the record's fields.
template <class Items>
uint32_t take_slot(Items& items, std::vector<uint32_t>& free) {
  if (free.empty()) {
    items.emplace_back();
    return uint32_t(items.size() - 1);
  }
  const uint32_t id = free.back();
  free.pop_back();
  return id;
}

}  // namespace warpsim::timing
