// Index pools for the timing model's records that come and go by the thousand (instruction
// trackers, memory requests, DRAM transactions, L1 miss-status entries, constant-cache fetches):
// records live in a vector and are named by index; freed indices are handed out again, most
// recently freed first, before the vector grows.
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::timing {

// The index of a record to (re)use: the most recently freed one, else a new default-constructed
// record at the end of `items`. The caller resets the record's fields.
template <class T>
uint32_t take_slot(std::vector<T>& items, std::vector<uint32_t>& free) {
  if (free.empty()) {
    items.emplace_back();
    return uint32_t(items.size() - 1);
  }
  const uint32_t id = free.back();
  free.pop_back();
  return id;
}

}  // namespace warpsim::timing
