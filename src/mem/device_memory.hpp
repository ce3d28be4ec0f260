// Functional device memory: the GPU's global virtual address space, sparse and paged.
//
// Allocations map whole pages of a fixed VA window [base, base + capacity rounded up to pages).
// A mapped page costs host memory only once something writes to it; until then it reads as
// zero through one shared zero page, so a kernel may scatter over an 80 GB allocation while the
// simulator holds only the pages it touched.
//
// The page table is a two-level radix tree indexed by virtual page number: a lookup is two
// array indexings, which matters because the functional engine does one per lane per memory
// instruction (page_for_read/page_for_write below are inline for that reason). Each mapped page
// also carries a "physical" frame number, assigned lowest-free-first in allocation order, which
// is what timing-model TLBs and DRAM address mapping see through translate().
//
// Threads: const methods may run concurrently with each other; writes (write, host_write, fill,
// page_for_write) from several threads to different pages may run concurrently, and creating a
// page's backing is race-free even for the same page. Mapping changes (allocate, release,
// set_read_only) are serialised against each other and against find/allocations, but must not
// race with accesses to the pages they change -- like cudaFree, they happen between kernels.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mem/free_ranges.hpp"

namespace warpsim::mem {

namespace detail {
// Zeros shared by every untouched page, sized for the largest page. Not const so that it
// lives in .bss (no file or RAM cost until read); nothing writes to it.
extern uint8_t zero_page[];
}  // namespace detail

enum class Fault : uint8_t { None, Unmapped, ReadOnly, OutOfMemory };
const char* fault_name(Fault);

struct MemoryConfig {
  uint64_t capacity = 40ull << 30;        // bytes of device memory (A100 40 GB; 80 GB works too)
  uint32_t page_size = 64 << 10;          // mapping granularity; power of two, 4 KiB .. 2 MiB
  uint64_t base = 0x0000000200000000ull;  // first device virtual address
};

struct Allocation {
  uint64_t addr, size;  // size as requested; the mapping covers whole pages
  bool read_only;
  std::string tag;
};

class DeviceMemory {
 public:
  static constexpr uint32_t kMinPageSize = 4u << 10;
  static constexpr uint32_t kMaxPageSize = 2u << 20;
  static constexpr uint64_t kMaxCapacity = 4ull << 40;  // bounds the eagerly allocated top level

  // Throws std::invalid_argument naming the bad field ("MemoryConfig.page_size: ...").
  explicit DeviceMemory(const MemoryConfig& = {});
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // cudaMalloc-like: a device address aligned to max(256, align) (align a power of two; 0 means
  // the default), mapping whole pages (so addresses are in fact page aligned). Returns 0 when
  // bytes == 0, align is not a power of two, or the mapped pages would exceed capacity or not
  // fit in the VA window.
  uint64_t allocate(uint64_t bytes, uint64_t align = 256, std::string tag = {});
  // False if addr is not the start of a live allocation. Unmaps its pages, frees their backing
  // and frames, and coalesces the VA range with free neighbours.
  bool release(uint64_t addr);
  // For __constant__ banks: device-side stores fault, host copies still work. Applies to the
  // allocation containing addr; no effect if there is none.
  void set_read_only(uint64_t addr, bool ro);
  // The allocation whose [addr, addr + size) contains addr, or null. The pointer stays valid
  // until that allocation is released.
  const Allocation* find(uint64_t addr) const;
  // True if every byte of [addr, addr + bytes) lies in mapped pages (true for bytes == 0).
  bool mapped(uint64_t addr, uint64_t bytes) const;

  // Device-side accesses. Unmapped if any byte is outside mapped pages (including ranges that
  // would wrap past 2^64), ReadOnly for writes touching a read-only page. A faulting access
  // changes nothing. n == 0 always succeeds. Writes return OutOfMemory only if the host cannot
  // back a page (device capacity is enforced by allocate, not here).
  Fault read(uint64_t addr, void* dst, uint64_t n) const;
  Fault write(uint64_t addr, const void* src, uint64_t n);
  // Host-side copies (cudaMemcpy): as above but ignoring read_only.
  Fault host_read(uint64_t addr, void* dst, uint64_t n) const;
  Fault host_write(uint64_t addr, const void* src, uint64_t n);
  // cudaMemset (host-side). Filling untouched pages with zero leaves them unbacked.
  Fault fill(uint64_t addr, uint8_t value, uint64_t n);

  // Fast path for per-lane accesses: the backing bytes of the page holding addr (index them
  // with page_offset(addr)), or nullptr if unmapped. For untouched pages page_for_read returns
  // a shared zero page that must not be written; page_for_write creates zeroed backing on first
  // touch and returns nullptr also for read-only pages (and if the host cannot back the page).
  // Accesses that cross a page boundary go through read()/write(). A pointer stays valid until
  // the page is released.
  const uint8_t* page_for_read(uint64_t addr) const;
  uint8_t* page_for_write(uint64_t addr);
  uint32_t page_size() const { return page_size_; }
  uint64_t page_offset(uint64_t addr) const { return addr & (page_size_ - 1); }
  // True if [addr, addr + n) stays within one page (n >= 1), i.e. the fast path applies.
  bool within_page(uint64_t addr, uint64_t n) const { return page_offset(addr) + n <= page_size_; }

  // The page table a timing-model TLB reads, without exposing backing storage.
  struct PageInfo {
    bool mapped;
    bool read_only;
    uint64_t frame;  // "physical" frame number; frame * page_size() is the physical address
  };
  PageInfo translate(uint64_t vaddr) const;

  uint64_t capacity() const { return capacity_; }
  uint64_t base() const { return base_; }
  uint64_t va_end() const { return base_ + va_size_; }  // one past the last device VA
  uint64_t mapped_bytes() const { return mapped_pages_ * page_size_; }
  uint64_t backed_bytes() const { return backed_pages_.load(std::memory_order_relaxed) * page_size_; }
  std::vector<Allocation> allocations() const;  // in address order

 private:
  static constexpr unsigned kLeafBits = 10;  // 1024 entries (16 KiB) per second-level table
  static constexpr uint64_t kLeafEntries = 1ull << kLeafBits;
  static constexpr uint64_t kMapped = 1, kReadOnly = 2, kFrameShift = 2;

  struct Pte {
    std::atomic<uint8_t*> data{nullptr};  // host backing, null until first written
    uint64_t bits = 0;                    // frame << kFrameShift | kReadOnly | kMapped
  };
  struct Leaf {
    Pte pte[kLeafEntries];
    uint64_t live = 0;  // mapped entries; the leaf is freed when this drops to zero
  };

  // The entry for addr if its leaf exists (the page may still be unmapped), else null.
  Pte* entry(uint64_t addr) const {
    const uint64_t off = addr - base_;  // below base wraps to a huge offset and fails the check
    if (off >= va_size_) return nullptr;
    const uint64_t vpn = off >> page_shift_;
    Leaf* leaf = top_[vpn >> kLeafBits].get();
    return leaf ? &leaf->pte[vpn & (kLeafEntries - 1)] : nullptr;
  }

  uint8_t* back_page(Pte& p);  // slow path: create zeroed backing, race-free
  // Fault for [addr, addr + n): Unmapped / ReadOnly (if honour_ro) / None.
  Fault check(uint64_t addr, uint64_t n, bool honour_ro) const;
  void copy_out(uint64_t addr, void* dst, uint64_t n) const;
  Fault copy_in(uint64_t addr, const void* src, uint64_t n);  // OutOfMemory if host RAM runs out
  void set_pages_read_only(uint64_t addr, uint64_t size, bool ro);

  uint64_t capacity_, base_, va_size_;
  uint32_t page_size_;
  unsigned page_shift_;
  uint64_t total_pages_;  // pages in the VA window
  uint64_t max_mapped_pages_;  // capacity / page_size: mapping never exceeds capacity bytes
  std::vector<std::unique_ptr<Leaf>> top_;
  std::map<uint64_t, Allocation> allocs_;
  FreeRanges va_free_, frames_free_;
  uint64_t mapped_pages_ = 0;
  std::atomic<uint64_t> backed_pages_{0};
  mutable std::mutex map_mutex_;
};

inline const uint8_t* DeviceMemory::page_for_read(uint64_t addr) const {
  const Pte* p = entry(addr);
  if (!p) return nullptr;
  if (const uint8_t* d = p->data.load(std::memory_order_acquire)) return d;
  return (p->bits & kMapped) ? detail::zero_page : nullptr;
}

inline uint8_t* DeviceMemory::page_for_write(uint64_t addr) {
  Pte* p = entry(addr);
  if (!p || (p->bits & (kMapped | kReadOnly)) != kMapped) return nullptr;
  if (uint8_t* d = p->data.load(std::memory_order_acquire)) return d;
  return back_page(*p);
}

inline DeviceMemory::PageInfo DeviceMemory::translate(uint64_t vaddr) const {
  const Pte* p = entry(vaddr);
  if (!p || !(p->bits & kMapped)) return {false, false, 0};
  return {true, (p->bits & kReadOnly) != 0, p->bits >> kFrameShift};
}

}  // namespace warpsim::mem
