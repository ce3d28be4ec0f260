// Unified-memory hints: cudaMemAdvise, cudaMemPrefetchAsync (and the CUDA 13 batch prefetch and
// discard), and the range queries that read them back (cudaMemRangeGetAttribute(s)). The driver's
// forms (driver_managed.cpp) share these functions.
//
// Managed memory is already where every kernel and the host can reach it (api_memory.cpp), so the
// hints move no data; they are recorded per 4 KiB page, the granularity our H100 reports them at
// (advice on 10 bytes covers their page and not the next; validation/driver/h100_managed_api.out),
// so that a program reading its hints back gets what the hardware answers. The argument checks and
// error codes are those measured there.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "cudart/export.hpp"
#include "cudart/managed.hpp"
#include "cudart/state.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

namespace warpsim::cudart {
namespace {

constexpr uint64_t kPage = 4096;
constexpr int kCpuDeviceId = -1, kInvalidDeviceId = -2;
enum LocType : uint8_t { LocNone = 0, LocDevice = 1, LocHost = 2, LocHostNuma = 3, LocHostNumaCurrent = 4 };
enum Advice { SetReadMostly = 1, UnsetReadMostly, SetPreferred, UnsetPreferred, SetAccessedBy, UnsetAccessedBy };

// What the hints say about one page.
struct PageHints {
  uint8_t read_mostly = 0;
  uint8_t preferred = LocNone;   // LocType
  uint8_t preferred_id = 0;      // host NUMA node
  uint8_t accessed_by = 0;       // bit 0: device 0, bit 1: the host
  uint8_t prefetched = LocNone;  // the last explicit prefetch's LocType
  uint8_t prefetched_id = 0;
};
static_assert(sizeof(PageHints) == 6);

std::map<uint64_t, std::vector<PageHints>>& hints() {
  static auto* h = new std::map<uint64_t, std::vector<PageHints>>();  // leaked: atexit-safe
  return *h;
}

// The pages of [p, p+n) within one managed allocation: false when the range is empty or leaves
// every managed allocation. `first` and `count` index the allocation's page records.
bool pages_of(State& s, uint64_t p, size_t n, std::vector<PageHints>*& recs, size_t& first, size_t& count) {
  if (!p || n == 0) return false;
  auto it = s.managed.upper_bound(p);
  if (it == s.managed.begin()) return false;
  --it;
  const uint64_t base = it->first, size = it->second;
  if (p < base || p - base + n > size) return false;
  auto& v = hints()[base];
  const size_t pages = (base % kPage + size + kPage - 1) / kPage;
  if (v.size() != pages) v.assign(pages, PageHints{});  // first use, or a new allocation at an old base
  recs = &v;
  const uint64_t page0 = base / kPage;
  first = p / kPage - page0;
  count = (p + n - 1) / kPage - page0 - first + 1;
  return true;
}

bool valid_device_loc(const MemLocation& l) { return l.type == LocDevice && l.id == 0; }
bool is_host_loc(const MemLocation& l) { return l.type == LocHost || l.type == LocHostNuma || l.type == LocHostNumaCurrent; }

}  // namespace

void forget_managed_hints(uint64_t base) { hints().erase(base); }

int mem_advise(const void* ptr, size_t n, int advice, MemLocation loc) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (s.sticky) return s.sticky;
  std::vector<PageHints>* v = nullptr;
  size_t first = 0, count = 0;
  if (advice < SetReadMostly || advice > UnsetAccessedBy) return abi::ErrInvalidValue;
  if (!pages_of(s, reinterpret_cast<uint64_t>(ptr), n, v, first, count)) return abi::ErrInvalidValue;
  // The location matters for these three; our H100 answers 1 (not 101) for a device it lacks.
  const bool needs_loc = advice == SetPreferred || advice == SetAccessedBy || advice == UnsetAccessedBy;
  if (needs_loc && !valid_device_loc(loc) && !is_host_loc(loc)) return abi::ErrInvalidValue;
  const uint8_t who = valid_device_loc(loc) ? 1 : 2;
  for (size_t i = first; i < first + count; ++i) {
    PageHints& h = (*v)[i];
    switch (advice) {
      case SetReadMostly: h.read_mostly = 1; break;
      case UnsetReadMostly: h.read_mostly = 0; break;
      case SetPreferred:
        h.preferred = loc.type == LocHostNumaCurrent ? uint8_t(LocHostNuma) : uint8_t(loc.type);
        h.preferred_id = loc.type == LocHostNuma ? uint8_t(loc.id) : 0;
        break;
      case UnsetPreferred: h.preferred = LocNone; break;
      case SetAccessedBy: h.accessed_by |= who; break;
      case UnsetAccessedBy: h.accessed_by &= uint8_t(~who); break;
    }
  }
  return 0;
}

int mem_prefetch(const void* ptr, size_t n, MemLocation loc, unsigned flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (s.sticky) return s.sticky;
  if (flags) return abi::ErrInvalidValue;
  std::vector<PageHints>* v = nullptr;
  size_t first = 0, count = 0;
  if (!pages_of(s, reinterpret_cast<uint64_t>(ptr), n, v, first, count)) return abi::ErrInvalidValue;
  if (loc.type == LocDevice && loc.id != 0) return abi::ErrInvalidDevice;
  if (loc.type != LocDevice && !is_host_loc(loc)) return abi::ErrInvalidValue;
  const uint8_t t = loc.type == LocHostNumaCurrent ? uint8_t(LocHostNuma) : uint8_t(loc.type);
  for (size_t i = first; i < first + count; ++i) {
    (*v)[i].prefetched = t;
    (*v)[i].prefetched_id = loc.type == LocHostNuma ? uint8_t(loc.id) : 0;
  }
  return 0;
}

int mem_range_attribute(void* data, size_t size, int attr, const void* ptr, size_t n) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (s.sticky) return s.sticky;
  if (!data || attr < 1 || attr > 8) return abi::ErrInvalidValue;
  if (attr == 3 ? (size == 0 || size % 4) : size != 4) return abi::ErrInvalidValue;
  std::vector<PageHints>* v = nullptr;
  size_t first = 0, count = 0;
  if (!pages_of(s, reinterpret_cast<uint64_t>(ptr), n, v, first, count)) return abi::ErrInvalidValue;
  const PageHints* h = v->data() + first;
  // A value every page of the range shares, or `mixed`.
  auto common = [&](auto get, int mixed) {
    const auto x = get(h[0]);
    for (size_t i = 1; i < count; ++i)
      if (get(h[i]) != x) return mixed;
    return int(x);
  };
  auto legacy_id = [](uint8_t type) { return type == LocDevice ? 0 : type == LocNone ? kInvalidDeviceId : kCpuDeviceId; };
  int* out = static_cast<int*>(data);
  switch (attr) {
    case 1:  // read mostly: 1 if every page has it
      *out = common([](const PageHints& p) { return p.read_mostly; }, 0);
      break;
    case 2:  // preferred location: device id, cudaCpuDeviceId, or cudaInvalidDeviceId when mixed or unset
      *out = legacy_id(uint8_t(common([](const PageHints& p) { return int(p.preferred) << 8 | p.preferred_id; }, 0) >> 8));
      break;
    case 4:  // last prefetch location, the same way
      *out = legacy_id(uint8_t(common([](const PageHints& p) { return int(p.prefetched) << 8 | p.prefetched_id; }, 0) >> 8));
      break;
    case 5:  // preferred location type (cudaMemLocationTypeInvalid when mixed or unset) and id
    case 6: {
      const int c = common([](const PageHints& p) { return int(p.preferred) << 8 | p.preferred_id; }, 0);
      *out = attr == 5 ? c >> 8 : c & 0xff;
      break;
    }
    case 7:
    case 8: {
      const int c = common([](const PageHints& p) { return int(p.prefetched) << 8 | p.prefetched_id; }, 0);
      *out = attr == 7 ? c >> 8 : c & 0xff;
      break;
    }
    case 3: {  // accessed by: the processors every page names, devices first, then the CPU
      uint8_t all = 3;
      for (size_t i = 0; i < count; ++i) all &= h[i].accessed_by;
      const size_t slots = size / 4;
      size_t k = 0;
      if ((all & 1) && k < slots) out[k++] = 0;
      if ((all & 2) && k < slots) out[k++] = kCpuDeviceId;
      while (k < slots) out[k++] = kInvalidDeviceId;
      break;
    }
  }
  return 0;
}

int mem_range_attributes(void** data, size_t* sizes, const int* attrs, size_t num, const void* ptr, size_t n) {
  if (!data || !sizes || !attrs || num == 0) return abi::ErrInvalidValue;
  for (size_t i = 0; i < num; ++i)
    if (int e = mem_range_attribute(data[i], sizes[i], attrs[i], ptr, n)) return e;
  return 0;
}

bool legacy_stream(const void* stream) {
  return stream == nullptr || stream == reinterpret_cast<const void*>(uintptr_t(1));  // 0, cudaStreamLegacy
}

int mem_prefetch_batch(void* const* ptrs, const size_t* sizes, size_t count, const MemLocation* locs,
                       const size_t* loc_idx, size_t nlocs, unsigned long long flags, const void* stream, bool discard) {
  if (!ptrs || !sizes || count == 0 || flags || legacy_stream(stream)) return abi::ErrInvalidValue;
  const bool prefetch = locs != nullptr || nlocs != 0;
  if (prefetch) {
    // As cudaMemcpyBatchAsync's attributes: the first index 0, rising, all below count.
    if (!locs || !loc_idx || nlocs == 0 || nlocs > count || loc_idx[0] != 0) return abi::ErrInvalidValue;
    for (size_t k = 1; k < nlocs; ++k)
      if (loc_idx[k] <= loc_idx[k - 1] || loc_idx[k] >= count) return abi::ErrInvalidValue;
  } else if (!discard) {
    return abi::ErrInvalidValue;
  }
  State& s = State::get();
  std::lock_guard g(s.mu);
  {  // every range first, so that a bad one changes nothing
    std::vector<PageHints>* v = nullptr;
    size_t first = 0, pages = 0;
    for (size_t i = 0; i < count; ++i)
      if (!pages_of(s, reinterpret_cast<uint64_t>(ptrs[i]), sizes[i], v, first, pages)) return abi::ErrInvalidValue;
  }
  size_t k = 0;
  for (size_t i = 0; i < count; ++i) {
    // Discarded pages read back as whatever the hardware gives (undefined); warpsim keeps them.
    if (!prefetch) continue;
    while (k + 1 < nlocs && loc_idx[k + 1] <= i) ++k;
    if (int e = mem_prefetch(ptrs[i], sizes[i], locs[k], 0)) return e;
  }
  return 0;
}

// libcudart.so.12 and .so.13 are built from the same objects; a few entry points changed their
// arguments between CUDA 12 and 13 under the same name.
bool cuda12_abi() {
  static const bool v12 = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<void*>(&cuda12_abi), &info) && info.dli_fname &&
           std::strstr(info.dli_fname, "libcudart.so.12") != nullptr;
  }();
  return v12;
}

}  // namespace warpsim::cudart

namespace warpsim::cudart {
// CUDA 12's cudaMemAdvise / cudaMemPrefetchAsync and the driver's CUDA 11 forms name a device
// (cudaCpuDeviceId for the host) instead of a location. Where the location form answers
// cudaErrorInvalidValue for a device it lacks, the device form answers cudaErrorInvalidDevice (our
// H100, driver's cuMemAdvise).
MemLocation location_of_device(int device) {
  return device == kCpuDeviceId ? MemLocation{LocHost, 0} : MemLocation{LocDevice, device};
}
int mem_advise_device(const void* ptr, size_t n, int advice, int device) {
  if ((advice == SetPreferred || advice == SetAccessedBy || advice == UnsetAccessedBy) && device != 0 &&
      device != kCpuDeviceId)
    return abi::ErrInvalidDevice;
  return mem_advise(ptr, n, advice, location_of_device(device));
}
}  // namespace warpsim::cudart

// CUDA 13: (ptr, count, advice, cudaMemLocation); CUDA 12: (ptr, count, advice, int device), the
// device in the low half of the register that carries the location.
CUDART_API abi::Error cudaMemAdvise(const void* ptr, size_t n, int advice, MemLocation loc) {
  if (cuda12_abi()) return ret(mem_advise_device(ptr, n, advice, loc.type));
  return ret(mem_advise(ptr, n, advice, loc));
}
CUDART_API abi::Error cudaMemAdvise_v2(const void* ptr, size_t n, int advice, MemLocation loc) {
  return ret(mem_advise(ptr, n, advice, loc));
}
// CUDA 13: (ptr, count, location, flags, stream); CUDA 12: (ptr, count, int device, stream), the
// stream where CUDA 13 passes the flags.
CUDART_API abi::Error cudaMemPrefetchAsync(const void* ptr, size_t n, MemLocation loc, uint64_t flags_or_stream,
                                           void* stream) {
  if (cuda12_abi()) return ret(mem_prefetch(ptr, n, location_of_device(loc.type), 0));
  return ret(mem_prefetch(ptr, n, loc, unsigned(flags_or_stream)));
}
CUDART_API abi::Error cudaMemPrefetchAsync_ptsz(const void* ptr, size_t n, MemLocation loc, uint64_t f, void* st) {
  return cudaMemPrefetchAsync(ptr, n, loc, f, st);
}
CUDART_API abi::Error cudaMemPrefetchAsync_v2(const void* ptr, size_t n, MemLocation loc, unsigned flags, void*) {
  return ret(mem_prefetch(ptr, n, loc, flags));
}
CUDART_API abi::Error cudaMemPrefetchAsync_v2_ptsz(const void* ptr, size_t n, MemLocation loc, unsigned flags, void*) {
  return ret(mem_prefetch(ptr, n, loc, flags));
}
CUDART_API abi::Error cudaMemRangeGetAttribute(void* data, size_t size, int attr, const void* ptr, size_t n) {
  return ret(mem_range_attribute(data, size, attr, ptr, n));
}
CUDART_API abi::Error cudaMemRangeGetAttributes(void** data, size_t* sizes, int* attrs, size_t num, const void* ptr,
                                                size_t n) {
  return ret(mem_range_attributes(data, sizes, attrs, num, ptr, n));
}
CUDART_API abi::Error cudaMemPrefetchBatchAsync(void** ptrs, size_t* sizes, size_t count, MemLocation* locs,
                                                size_t* idx, size_t nlocs, unsigned long long flags, void* stream) {
  if (!locs || nlocs == 0) return ret(abi::ErrInvalidValue);
  return ret(mem_prefetch_batch(ptrs, sizes, count, locs, idx, nlocs, flags, stream, false));
}
CUDART_API abi::Error cudaMemPrefetchBatchAsync_ptsz(void** ptrs, size_t* sizes, size_t count, MemLocation* locs,
                                                     size_t* idx, size_t nlocs, unsigned long long flags, void* st) {
  return cudaMemPrefetchBatchAsync(ptrs, sizes, count, locs, idx, nlocs, flags, st);
}
CUDART_API abi::Error cudaMemDiscardBatchAsync(void** ptrs, size_t* sizes, size_t count, unsigned long long flags,
                                               void* stream) {
  return ret(mem_prefetch_batch(ptrs, sizes, count, nullptr, nullptr, 0, flags, stream, true));
}
CUDART_API abi::Error cudaMemDiscardBatchAsync_ptsz(void** ptrs, size_t* sizes, size_t count, unsigned long long flags,
                                                    void* stream) {
  return cudaMemDiscardBatchAsync(ptrs, sizes, count, flags, stream);
}
CUDART_API abi::Error cudaMemDiscardAndPrefetchBatchAsync(void** ptrs, size_t* sizes, size_t count, MemLocation* locs,
                                                          size_t* idx, size_t nlocs, unsigned long long flags,
                                                          void* stream) {
  if (!locs || nlocs == 0) return ret(abi::ErrInvalidValue);
  return ret(mem_prefetch_batch(ptrs, sizes, count, locs, idx, nlocs, flags, stream, true));
}
CUDART_API abi::Error cudaMemDiscardAndPrefetchBatchAsync_ptsz(void** ptrs, size_t* sizes, size_t count,
                                                               MemLocation* locs, size_t* idx, size_t nlocs,
                                                               unsigned long long flags, void* stream) {
  return cudaMemDiscardAndPrefetchBatchAsync(ptrs, sizes, count, locs, idx, nlocs, flags, stream);
}
