// The device-side heap of malloc/free/new/delete in kernels (CUDA Programming Guide, "Dynamic
// Global Memory Allocation and Operations"): a fixed region of global memory, cudaLimitMallocHeapSize
// bytes (8 MB by default), reserved at the first malloc and kept for the device's lifetime, so
// memory allocated by one kernel can be used and freed by later ones. Blocks are 16-byte aligned;
// first fit over an address-ordered free list, neighbours coalesced on free. malloc returns 0 when
// the heap cannot hold the request, as on hardware.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>

#include "mem/device_memory.hpp"

namespace warpsim::func {

class DeviceHeap {
 public:
  explicit DeviceHeap(mem::DeviceMemory& mem) : mem_(mem) {}
  // cudaLimitMallocHeapSize; false once the heap is in use (the runtime then reports an error).
  bool set_capacity(uint64_t bytes) {
    if (base_) return false;
    capacity_ = bytes;
    return true;
  }
  uint64_t capacity() const { return capacity_; }

  uint64_t alloc(uint64_t bytes) {
    if (!reserve() || bytes == 0 || bytes > capacity_) return 0;
    const uint64_t need = (bytes + 15) / 16 * 16;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < need) continue;
      const uint64_t a = it->first, left = it->second - need;
      free_.erase(it);
      if (left) free_.emplace(a + need, left);
      used_.emplace(a, need);
      return a;
    }
    return 0;
  }
  // false: not a block alloc returned (or already freed). free(0) is a no-op.
  bool release(uint64_t a) {
    if (a == 0) return true;
    auto u = used_.find(a);
    if (u == used_.end()) return false;
    uint64_t start = a, size = u->second;
    used_.erase(u);
    auto next = free_.lower_bound(start);
    if (next != free_.end() && start + size == next->first) {
      size += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == start) {
        start = prev->first;
        size += prev->second;
        free_.erase(prev);
      }
    }
    free_.emplace(start, size);
    return true;
  }

 private:
  bool reserve() {
    if (base_) return true;
    if (capacity_ == 0) return false;
    base_ = mem_.allocate(capacity_, 256, "device malloc heap");
    if (!base_) return false;
    free_.emplace(base_, capacity_);
    return true;
  }
  mem::DeviceMemory& mem_;
  uint64_t capacity_ = 8ull << 20;
  uint64_t base_ = 0;
  std::map<uint64_t, uint64_t> free_, used_;  // address -> bytes
};

}  // namespace warpsim::func
