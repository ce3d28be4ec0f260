// The driver's virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemUnmap,
// cuMemSetAccess, cuMemRelease, cuMemAddressFree, cuMemGetAllocationGranularity, ...), as growable
// allocators and cuda-samples' vectorAddMMAP use it: reserve a virtual range, create physical
// allocations, map them into the range side by side, grant access, use, unmap, release.
//
// A reservation is a range of the simulated device's address space (mem::DeviceMemory::allocate,
// aligned to the 2 MiB granularity real GPUs report), so kernels reach mapped memory through the
// ordinary page table. A physical allocation is a handle whose bytes live at the one place it is
// mapped; when it is unmapped its contents are kept with the handle and written back wherever it is
// mapped next, so data survives a remap as on hardware. Not modelled, and refused with
// CUDA_ERROR_NOT_SUPPORTED where a program would otherwise get a silently wrong answer: one handle
// mapped at two addresses at once (aliasing), mapping part of a handle (offset or size other than
// the whole). Not modelled, without a refusal: a kernel touching reserved-but-unmapped addresses
// reads zeros instead of faulting, and access flags other than read-write are accepted but not
// enforced; a reservation takes device capacity when it is made (the simulated address space maps
// what it hands out), so reserving far more than the device holds fails with out-of-memory where
// hardware would succeed. Lookups: driver_vmm_entry.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cudart/driver.hpp"
#include "cudart/state.hpp"

using namespace warpsim::cudart;

namespace {

constexpr uint64_t kGranularity = 2ull << 20;  // cuMemGetAllocationGranularity on A100 and H100

// CUmemAllocationProp's leading fields (cuda.h); the rest (Windows metadata, flags) is not read.
struct AllocationProp {
  int type;                    // CU_MEM_ALLOCATION_TYPE_PINNED = 1
  int requested_handle_types;  // CUmemAllocationHandleType
  int location_type;           // CU_MEM_LOCATION_TYPE_DEVICE = 1
  int location_id;
};
struct AccessDesc {
  int location_type, location_id;
  int flags;  // CU_MEM_ACCESS_FLAGS_PROT_NONE 0, _READ 1, _READWRITE 3
};

struct Physical {
  uint64_t size = 0;
  int handle_types = 0;
  uint64_t mapped_at = 0;     // 0 when not mapped
  bool released = false;      // cuMemRelease called; freed when also unmapped
  std::vector<uint8_t> kept;  // contents while unmapped (empty: never written, zeros)
};
struct Mapping {
  uint64_t size;
  Physical* phys;
};

struct Vmm {
  std::mutex mu;
  std::set<Physical*> handles;
  std::map<uint64_t, uint64_t> reservations;  // address -> size
  std::map<uint64_t, Mapping> mappings;       // address -> mapping
};
Vmm& vmm() {
  static auto* v = new Vmm();  // never destroyed: programs free from atexit handlers
  return *v;
}

int refuse(const char* what) {
  static std::mutex m;
  static std::set<std::string> told;
  std::lock_guard g(m);
  if (told.insert(what).second)
    std::fprintf(stderr, "warpsim: %s is not supported by the simulated device; returning CUDA_ERROR_NOT_SUPPORTED\n",
                 what);
  return CuNotSupported;
}

bool device_location(int type, int id) { return type == 1 && id == 0; }

Physical* as_physical(Vmm& v, unsigned long long h) {
  auto* p = reinterpret_cast<Physical*>(uintptr_t(h));
  return v.handles.count(p) ? p : nullptr;
}

// The reservation holding all of [addr, addr + size), or end().
std::map<uint64_t, uint64_t>::iterator reservation_of(Vmm& v, uint64_t addr, uint64_t size) {
  auto it = v.reservations.upper_bound(addr);
  if (it == v.reservations.begin()) return v.reservations.end();
  --it;
  if (addr + size < addr || addr + size > it->first + it->second) return v.reservations.end();
  return it;
}

// True if mappings cover every byte of [addr, addr + size) with no gap.
bool covered(Vmm& v, uint64_t addr, uint64_t size) {
  uint64_t at = addr;
  auto it = v.mappings.upper_bound(addr);
  if (it != v.mappings.begin()) --it;
  for (; it != v.mappings.end() && it->first < addr + size; ++it) {
    if (it->first > at) return false;
    at = std::max(at, it->first + it->second.size);
  }
  return at >= addr + size;
}

int get_granularity(size_t* granularity, const AllocationProp* prop, int option) {
  if (!granularity || !prop || (option != 0 && option != 1)) return CuInvalidValue;
  if (prop->type != 1) return CuInvalidValue;
  if (!device_location(prop->location_type, prop->location_id))
    return prop->location_type == 1 ? CuInvalidDevice : CuInvalidValue;
  *granularity = kGranularity;
  return CuSuccess;
}

int mem_create(unsigned long long* handle, size_t size, const AllocationProp* prop, unsigned long long flags) {
  if (!handle || !prop || flags != 0 || prop->type != 1) return CuInvalidValue;
  if (!device_location(prop->location_type, prop->location_id))
    return prop->location_type == 1 ? CuInvalidDevice : CuInvalidValue;
  if (size == 0 || size % kGranularity) return CuInvalidValue;
  auto p = std::make_unique<Physical>();
  p->size = size;
  p->handle_types = prop->requested_handle_types;
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  v.handles.insert(p.get());
  *handle = reinterpret_cast<uintptr_t>(p.release());
  return CuSuccess;
}

int mem_release(unsigned long long handle) {
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  Physical* p = as_physical(v, handle);
  if (!p || p->released) return CuInvalidValue;
  p->released = true;  // a mapped allocation lives on until it is unmapped
  if (!p->mapped_at) {
    v.handles.erase(p);
    delete p;
  }
  return CuSuccess;
}

int address_reserve(uint64_t* ptr, size_t size, size_t alignment, uint64_t, unsigned long long flags) {
  if (!ptr || size == 0 || size % kGranularity || flags != 0) return CuInvalidValue;
  if (alignment & (alignment - 1)) return CuInvalidValue;
  // The requested address is a hint; the allocator picks its own.
  State& s = State::get();
  uint64_t a;
  {
    std::lock_guard g(s.mu);
    a = s.dev->memory().allocate(size, std::max<uint64_t>(alignment, kGranularity), "cuMemAddressReserve");
  }
  if (!a) return CuOutOfMemory;
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  v.reservations[a] = size;
  *ptr = a;
  return CuSuccess;
}

int address_free(uint64_t ptr, size_t size) {
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  auto it = v.reservations.find(ptr);
  if (it == v.reservations.end() || it->second != size) return CuInvalidValue;
  // Still-mapped memory must be unmapped first.
  auto m = v.mappings.lower_bound(ptr);
  if (m != v.mappings.end() && m->first < ptr + size) return CuInvalidValue;
  v.reservations.erase(it);
  State& s = State::get();
  std::lock_guard sg(s.mu);
  s.dev->memory().release(ptr);
  return CuSuccess;
}

int mem_map(uint64_t ptr, size_t size, size_t offset, unsigned long long handle, unsigned long long flags) {
  if (flags != 0 || size == 0) return CuInvalidValue;
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  Physical* p = as_physical(v, handle);
  if (!p || p->released) return CuInvalidHandle;
  if (ptr % kGranularity || size % kGranularity || offset % kGranularity || offset + size > p->size)
    return CuInvalidValue;
  if (reservation_of(v, ptr, size) == v.reservations.end()) return CuInvalidValue;
  // Nothing mapped there already.
  auto next = v.mappings.lower_bound(ptr);
  if (next != v.mappings.end() && next->first < ptr + size) return CuInvalidValue;
  if (next != v.mappings.begin() && std::prev(next)->first + std::prev(next)->second.size > ptr)
    return CuInvalidValue;
  if (offset != 0 || size != p->size) return refuse("cuMemMap of part of a physical allocation");
  if (p->mapped_at) return refuse("cuMemMap of a physical allocation that is already mapped (aliasing)");
  State& s = State::get();
  std::lock_guard sg(s.mu);
  auto& dm = s.dev->memory();
  // The handle's bytes move in: what it held when last unmapped, or zeros (whatever a previous
  // mapping left at these addresses is not this allocation's).
  if (p->kept.empty())
    dm.fill(ptr, 0, size);
  else
    dm.host_write(ptr, p->kept.data(), size);
  p->kept.clear();
  p->kept.shrink_to_fit();
  p->mapped_at = ptr;
  v.mappings[ptr] = {size, p};
  return CuSuccess;
}

int mem_unmap(uint64_t ptr, size_t size) {
  if (size == 0) return CuInvalidValue;
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  if (reservation_of(v, ptr, size) == v.reservations.end()) return CuInvalidValue;
  // The range must consist of whole mappings (cuda.h: it may span several).
  auto first = v.mappings.find(ptr);
  if (first == v.mappings.end() || !covered(v, ptr, size)) return CuInvalidValue;
  auto last = first;
  for (auto it = first; it != v.mappings.end() && it->first < ptr + size; ++it) {
    if (it->first + it->second.size > ptr + size) return CuInvalidValue;
    last = std::next(it);
  }
  State& s = State::get();
  std::lock_guard sg(s.mu);
  auto& dm = s.dev->memory();
  for (auto it = first; it != last;) {
    Physical* p = it->second.phys;
    if (p->released) {
      v.handles.erase(p);
      delete p;
    } else {
      p->kept.resize(it->second.size);
      dm.host_read(it->first, p->kept.data(), it->second.size);
      p->mapped_at = 0;
    }
    dm.fill(it->first, 0, it->second.size);
    it = v.mappings.erase(it);
  }
  return CuSuccess;
}

int set_access(uint64_t ptr, size_t size, const AccessDesc* desc, size_t count) {
  if (!desc || count == 0 || size == 0) return CuInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location_type != 1) return CuInvalidValue;
    if (desc[i].location_id != 0) return CuInvalidDevice;
    if (desc[i].flags != 0 && desc[i].flags != 1 && desc[i].flags != 3) return CuInvalidValue;
  }
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  if (reservation_of(v, ptr, size) == v.reservations.end() || !covered(v, ptr, size)) return CuInvalidValue;
  return CuSuccess;
}

int get_access(unsigned long long* flags, const int* location, uint64_t ptr) {
  if (!flags || !location) return CuInvalidValue;
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  if (!covered(v, ptr, 1)) return CuInvalidValue;
  *flags = device_location(location[0], location[1]) ? 3 : 0;
  return CuSuccess;
}

int retain_handle(unsigned long long* handle, void* addr) {
  if (!handle) return CuInvalidValue;
  const uint64_t a = reinterpret_cast<uintptr_t>(addr);
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  auto it = v.mappings.upper_bound(a);
  if (it == v.mappings.begin()) return CuInvalidValue;
  --it;
  if (a >= it->first + it->second.size) return CuInvalidValue;
  Physical* p = it->second.phys;
  // A retained handle must be released again; one that was released gets a second life.
  p->released = false;
  *handle = reinterpret_cast<uintptr_t>(p);
  return CuSuccess;
}

int properties_from_handle(AllocationProp* prop, unsigned long long handle) {
  if (!prop) return CuInvalidValue;
  Vmm& v = vmm();
  std::lock_guard g(v.mu);
  Physical* p = as_physical(v, handle);
  if (!p) return CuInvalidValue;
  prop->type = 1;
  prop->requested_handle_types = p->handle_types;
  prop->location_type = 1;
  prop->location_id = 0;
  return CuSuccess;
}

}  // namespace

namespace warpsim::cudart {

void* driver_vmm_entry(const std::string& base) {
  auto fn = [](auto f) { return reinterpret_cast<void*>(f); };
  if (base == "cuMemGetAllocationGranularity") return fn(&get_granularity);
  if (base == "cuMemCreate") return fn(&mem_create);
  if (base == "cuMemRelease") return fn(&mem_release);
  if (base == "cuMemAddressReserve") return fn(&address_reserve);
  if (base == "cuMemAddressFree") return fn(&address_free);
  if (base == "cuMemMap") return fn(&mem_map);
  if (base == "cuMemUnmap") return fn(&mem_unmap);
  if (base == "cuMemSetAccess") return fn(&set_access);
  if (base == "cuMemGetAccess") return fn(&get_access);
  if (base == "cuMemRetainAllocationHandle") return fn(&retain_handle);
  if (base == "cuMemGetAllocationPropertiesFromHandle") return fn(&properties_from_handle);
  return nullptr;
}

}  // namespace warpsim::cudart
