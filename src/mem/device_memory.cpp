#include "mem/device_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace warpsim::mem {

namespace detail {
alignas(64) uint8_t zero_page[DeviceMemory::kMaxPageSize];
}  // namespace detail

const char* fault_name(Fault f) {
  switch (f) {
    case Fault::None: return "none";
    case Fault::Unmapped: return "unmapped address";
    case Fault::ReadOnly: return "write to read-only memory";
    case Fault::OutOfMemory: return "out of memory";
  }
  return "unknown fault";
}

namespace {

[[noreturn]] void bad_config(const char* field, const std::string& why) {
  throw std::invalid_argument(fmt::format("MemoryConfig.{}: {}", field, why));
}

}  // namespace

DeviceMemory::DeviceMemory(const MemoryConfig& c)
    : capacity_(c.capacity), base_(c.base), page_size_(c.page_size) {
  if (!std::has_single_bit(c.page_size) || c.page_size < kMinPageSize || c.page_size > kMaxPageSize)
    bad_config("page_size", fmt::format("{} is not a power of two between {} and {}", c.page_size,
                                        kMinPageSize, kMaxPageSize));
  if (c.capacity < c.page_size)
    bad_config("capacity", fmt::format("{} bytes is less than one page ({} bytes)", c.capacity, c.page_size));
  if (c.capacity > kMaxCapacity)
    bad_config("capacity", fmt::format("{} bytes exceeds the supported maximum of {} bytes", c.capacity, kMaxCapacity));
  if (c.base == 0) bad_config("base", "must not be 0 (0 is the failed-allocation address)");
  if (c.base & (c.page_size - 1))
    bad_config("base", fmt::format("{:#x} is not a multiple of page_size ({})", c.base, c.page_size));
  page_shift_ = static_cast<unsigned>(std::countr_zero(c.page_size));
  total_pages_ = (c.capacity >> page_shift_) + ((c.capacity & (c.page_size - 1)) != 0);
  va_size_ = total_pages_ << page_shift_;
  if (c.base > UINT64_MAX - va_size_)  // va_end() must not wrap
    bad_config("base", fmt::format("{:#x} + capacity runs past the end of the 64-bit address space", c.base));
  max_mapped_pages_ = c.capacity >> page_shift_;
  top_.resize((total_pages_ + kLeafEntries - 1) >> kLeafBits);
  va_free_ = FreeRanges(total_pages_);
  frames_free_ = FreeRanges(max_mapped_pages_);
}

DeviceMemory::~DeviceMemory() {
  for (auto& leaf : top_) {
    if (!leaf) continue;
    for (Pte& p : leaf->pte) std::free(p.data.load(std::memory_order_relaxed));
  }
}

uint64_t DeviceMemory::allocate(uint64_t bytes, uint64_t align, std::string tag) {
  if (bytes == 0) return 0;
  if (align == 0) align = 256;
  if (!std::has_single_bit(align)) return 0;
  const uint64_t pages = (bytes >> page_shift_) + ((bytes & (page_size_ - 1)) != 0);
  // Pages are the unit of mapping, so page alignment is free; larger alignments are in pages.
  const uint64_t align_pages = std::max<uint64_t>(1, align >> page_shift_);

  std::lock_guard lock(map_mutex_);
  if (pages > max_mapped_pages_ - mapped_pages_) return 0;
  auto first = va_free_.take_contiguous(pages, align_pages, base_ >> page_shift_);
  if (!first) return 0;
  uint64_t vpn = *first;
  // Frames cannot run out: there are max_mapped_pages_ of them and mapped pages never exceed that.
  frames_free_.take_any(pages, [&](uint64_t frame, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i, ++vpn) {
      auto& leaf = top_[vpn >> kLeafBits];
      if (!leaf) leaf = std::make_unique<Leaf>();
      ++leaf->live;
      leaf->pte[vpn & (kLeafEntries - 1)].bits = ((frame + i) << kFrameShift) | kMapped;
    }
  });
  mapped_pages_ += pages;
  const uint64_t addr = base_ + (*first << page_shift_);
  allocs_.emplace(addr, Allocation{addr, bytes, false, std::move(tag)});
  return addr;
}

bool DeviceMemory::release(uint64_t addr) {
  std::lock_guard lock(map_mutex_);
  auto it = allocs_.find(addr);
  if (it == allocs_.end()) return false;
  const uint64_t size = it->second.size;
  const uint64_t pages = (size >> page_shift_) + ((size & (page_size_ - 1)) != 0);
  const uint64_t first = (addr - base_) >> page_shift_;
  // Hand frames back in runs so the free set sees one give per contiguous run, not per page.
  uint64_t run_start = 0, run_len = 0;
  for (uint64_t vpn = first; vpn < first + pages; ++vpn) {
    auto& leaf = top_[vpn >> kLeafBits];
    Pte& p = leaf->pte[vpn & (kLeafEntries - 1)];
    if (uint8_t* d = p.data.exchange(nullptr, std::memory_order_acq_rel)) {
      std::free(d);
      backed_pages_.fetch_sub(1, std::memory_order_relaxed);
    }
    const uint64_t frame = p.bits >> kFrameShift;
    p.bits = 0;
    if (run_len && frame == run_start + run_len) {
      ++run_len;
    } else {
      frames_free_.give(run_start, run_len);
      run_start = frame;
      run_len = 1;
    }
    if (--leaf->live == 0) leaf.reset();
  }
  frames_free_.give(run_start, run_len);
  va_free_.give(first, pages);
  mapped_pages_ -= pages;
  allocs_.erase(it);
  return true;
}

void DeviceMemory::set_read_only(uint64_t addr, bool ro) {
  std::lock_guard lock(map_mutex_);
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return;
  Allocation& a = std::prev(it)->second;
  if (addr - a.addr >= a.size) return;
  a.read_only = ro;
  for (uint64_t off = 0; off < a.size; off += page_size_) {
    Pte* p = entry(a.addr + off);
    p->bits = ro ? (p->bits | kReadOnly) : (p->bits & ~kReadOnly);
  }
}

const Allocation* DeviceMemory::find(uint64_t addr) const {
  std::lock_guard lock(map_mutex_);
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  const Allocation& a = std::prev(it)->second;
  return addr - a.addr < a.size ? &a : nullptr;
}

std::vector<Allocation> DeviceMemory::allocations() const {
  std::lock_guard lock(map_mutex_);
  std::vector<Allocation> out;
  out.reserve(allocs_.size());
  for (const auto& [addr, a] : allocs_) out.push_back(a);
  return out;
}

uint8_t* DeviceMemory::back_page(Pte& p) {
  auto* fresh = static_cast<uint8_t*>(std::calloc(1, page_size_));
  if (!fresh) return nullptr;  // host out of memory: the caller sees an unusable page
  uint8_t* expected = nullptr;
  if (p.data.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel, std::memory_order_acquire)) {
    backed_pages_.fetch_add(1, std::memory_order_relaxed);
    return fresh;
  }
  std::free(fresh);  // another thread backed it first; use theirs
  return expected;
}

Fault DeviceMemory::check(uint64_t addr, uint64_t n, bool honour_ro) const {
  if (n == 0) return Fault::None;
  const uint64_t off = addr - base_;
  if (off >= va_size_ || n > va_size_ - off) return Fault::Unmapped;  // also catches wrap past 2^64
  const uint64_t first = off >> page_shift_, last = (off + n - 1) >> page_shift_;
  for (uint64_t vpn = first; vpn <= last; ++vpn) {
    const Leaf* leaf = top_[vpn >> kLeafBits].get();
    if (!leaf) return Fault::Unmapped;
    const uint64_t bits = leaf->pte[vpn & (kLeafEntries - 1)].bits;
    if (!(bits & kMapped)) return Fault::Unmapped;
    if (honour_ro && (bits & kReadOnly)) return Fault::ReadOnly;
  }
  return Fault::None;
}

bool DeviceMemory::mapped(uint64_t addr, uint64_t bytes) const { return check(addr, bytes, false) == Fault::None; }

void DeviceMemory::copy_out(uint64_t addr, void* dst, uint64_t n) const {
  auto* out = static_cast<uint8_t*>(dst);
  while (n) {
    const uint64_t chunk = std::min<uint64_t>(n, page_size_ - page_offset(addr));
    std::memcpy(out, page_for_read(addr) + page_offset(addr), chunk);
    out += chunk, addr += chunk, n -= chunk;
  }
}

Fault DeviceMemory::copy_in(uint64_t addr, const void* src, uint64_t n) {
  auto* in = static_cast<const uint8_t*>(src);
  while (n) {
    const uint64_t chunk = std::min<uint64_t>(n, page_size_ - page_offset(addr));
    Pte& p = *entry(addr);  // mapped: check() ran first
    uint8_t* d = p.data.load(std::memory_order_acquire);
    if (!d) d = back_page(p);
    if (!d) return Fault::OutOfMemory;  // host memory exhausted
    std::memcpy(d + page_offset(addr), in, chunk);
    in += chunk, addr += chunk, n -= chunk;
  }
  return Fault::None;
}

Fault DeviceMemory::read(uint64_t addr, void* dst, uint64_t n) const {
  Fault f = check(addr, n, false);
  if (f == Fault::None) copy_out(addr, dst, n);
  return f;
}

Fault DeviceMemory::write(uint64_t addr, const void* src, uint64_t n) {
  Fault f = check(addr, n, true);
  return f == Fault::None ? copy_in(addr, src, n) : f;
}

Fault DeviceMemory::host_read(uint64_t addr, void* dst, uint64_t n) const { return read(addr, dst, n); }

Fault DeviceMemory::host_write(uint64_t addr, const void* src, uint64_t n) {
  Fault f = check(addr, n, false);
  return f == Fault::None ? copy_in(addr, src, n) : f;
}

Fault DeviceMemory::fill(uint64_t addr, uint8_t value, uint64_t n) {
  Fault f = check(addr, n, false);
  if (f != Fault::None) return f;
  while (n) {
    const uint64_t chunk = std::min<uint64_t>(n, page_size_ - page_offset(addr));
    Pte& p = *entry(addr);
    uint8_t* d = p.data.load(std::memory_order_acquire);
    if (!d && value != 0) {  // zeros on an untouched page are already there
      d = back_page(p);
      if (!d) return Fault::OutOfMemory;
    }
    if (d) std::memset(d + page_offset(addr), value, chunk);
    addr += chunk, n -= chunk;
  }
  return Fault::None;
}

}  // namespace warpsim::mem
