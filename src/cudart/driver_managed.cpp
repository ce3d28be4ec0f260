// The driver's unified-memory hints and batched copies: cuMemAdvise, cuMemPrefetchAsync, the range
// queries, the CUDA 13 batch prefetch/discard, cuMemcpyBatchAsync and cuMemcpy3DBatchAsync. They
// share the runtime's implementation (api_managed.cpp, api_memory.cpp). Several changed their
// arguments under one name; the caller's API version (or a _v2 name) picks the form:
//   cuMemAdvise / cuMemPrefetchAsync: a device (CUDA < 12.2) or a CUmemLocation (_v2, 12.2 on);
//   cuMemcpyBatchAsync / cuMemcpy3DBatchAsync: with a failIdx argument (12.8) or without (_v2, 13.0).
#include <cstdint>
#include <cstring>
#include <string>

#include "cudart/driver.hpp"
#include "cudart/managed.hpp"
#include "cudart/state.hpp"

namespace warpsim::cudart {
namespace {

void* ptr(uint64_t p) { return reinterpret_cast<void*>(p); }
int advise1(uint64_t p, size_t n, int advice, int device) { return cu_result(mem_advise_device(ptr(p), n, advice, device)); }
int advise2(uint64_t p, size_t n, int advice, MemLocation loc) { return cu_result(mem_advise(ptr(p), n, advice, loc)); }
int prefetch1(uint64_t p, size_t n, int device, void*) { return cu_result(mem_prefetch(ptr(p), n, location_of_device(device), 0)); }
int prefetch2(uint64_t p, size_t n, MemLocation loc, unsigned flags, void*) {
  return cu_result(mem_prefetch(ptr(p), n, loc, flags));
}
int range_attribute(void* data, size_t size, int attr, uint64_t p, size_t n) {
  return cu_result(mem_range_attribute(data, size, attr, ptr(p), n));
}
int range_attributes(void** data, size_t* sizes, int* attrs, size_t num, uint64_t p, size_t n) {
  return cu_result(mem_range_attributes(data, sizes, attrs, num, ptr(p), n));
}
int prefetch_batch(uint64_t* ptrs, size_t* sizes, size_t count, MemLocation* locs, size_t* idx, size_t nlocs,
                   unsigned long long flags, void* stream) {
  if (!locs || nlocs == 0) return CuInvalidValue;
  return cu_result(mem_prefetch_batch(reinterpret_cast<void* const*>(ptrs), sizes, count, locs, idx, nlocs, flags, stream, false));
}
int discard_batch(uint64_t* ptrs, size_t* sizes, size_t count, unsigned long long flags, void* stream) {
  return cu_result(mem_prefetch_batch(reinterpret_cast<void* const*>(ptrs), sizes, count, nullptr, nullptr, 0, flags, stream, true));
}
int discard_prefetch_batch(uint64_t* ptrs, size_t* sizes, size_t count, MemLocation* locs, size_t* idx, size_t nlocs,
                           unsigned long long flags, void* stream) {
  if (!locs || nlocs == 0) return CuInvalidValue;
  return cu_result(mem_prefetch_batch(reinterpret_cast<void* const*>(ptrs), sizes, count, locs, idx, nlocs, flags, stream, true));
}
int copy_batch2(uint64_t* dsts, uint64_t* srcs, size_t* sizes, size_t count, abi::MemcpyAttributes* attrs, size_t* idx,
                size_t nattrs, void* stream) {
  return cu_result(memcpy_batch(reinterpret_cast<void* const*>(dsts), reinterpret_cast<const void* const*>(srcs), sizes,
                                count, attrs, idx, nattrs, stream));
}
int copy_batch1(uint64_t* dsts, uint64_t* srcs, size_t* sizes, size_t count, abi::MemcpyAttributes* attrs, size_t* idx,
                size_t nattrs, size_t* fail, void* stream) {
  const int e = copy_batch2(dsts, srcs, sizes, count, attrs, idx, nattrs, stream);
  if (e && fail) *fail = SIZE_MAX;  // the failure is not tied to one copy
  return e;
}
int copy3d_batch2(size_t nops, abi::Memcpy3DBatchOp* ops, unsigned long long flags, void* stream) {
  return cu_result(memcpy3d_batch(nops, ops, flags, stream));
}
int copy3d_batch1(size_t nops, abi::Memcpy3DBatchOp* ops, size_t* fail, unsigned long long flags, void* stream) {
  const int e = copy3d_batch2(nops, ops, flags, stream);
  if (e && fail) *fail = SIZE_MAX;
  return e;
}

}  // namespace

void* driver_managed_entry(const std::string& base, const char* name, int version) {
  auto fn = [](auto f) { return reinterpret_cast<void*>(f); };
  const bool named_v2 = std::strstr(name, "_v2") != nullptr;
  if (base == "cuMemAdvise") return named_v2 || version >= 12020 ? fn(&advise2) : fn(&advise1);
  if (base == "cuMemPrefetchAsync") return named_v2 || version >= 12020 ? fn(&prefetch2) : fn(&prefetch1);
  if (base == "cuMemRangeGetAttribute") return fn(&range_attribute);
  if (base == "cuMemRangeGetAttributes") return fn(&range_attributes);
  if (base == "cuMemPrefetchBatchAsync") return fn(&prefetch_batch);
  if (base == "cuMemDiscardBatchAsync") return fn(&discard_batch);
  if (base == "cuMemDiscardAndPrefetchBatchAsync") return fn(&discard_prefetch_batch);
  if (base == "cuMemcpyBatchAsync") return named_v2 || version >= 13000 ? fn(&copy_batch2) : fn(&copy_batch1);
  if (base == "cuMemcpy3DBatchAsync") return named_v2 || version >= 13000 ? fn(&copy3d_batch2) : fn(&copy3d_batch1);
  return nullptr;
}

}  // namespace warpsim::cudart
