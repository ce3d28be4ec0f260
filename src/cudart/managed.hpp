// Unified-memory hints (api_managed.cpp), shared by the runtime's and the driver's entry points.
// Each returns a cudaError_t and does not record it as the last error.
#pragma once
#include <cstddef>
#include <cstdint>

namespace warpsim::cudart {

// cudaMemLocation / CUmemLocation: {type, id}; type 1 device, 2 host, 3 host NUMA node, 4 the
// calling thread's NUMA node.
struct MemLocation {
  int type;
  int id;
};

int mem_advise(const void* ptr, size_t n, int advice, MemLocation loc);
// The device-numbered forms (CUDA 12 runtime, CUDA 11 driver): -1 is the host.
MemLocation location_of_device(int device);
int mem_advise_device(const void* ptr, size_t n, int advice, int device);
int mem_prefetch(const void* ptr, size_t n, MemLocation loc, unsigned flags);
int mem_range_attribute(void* data, size_t size, int attr, const void* ptr, size_t n);
int mem_range_attributes(void** data, size_t* sizes, const int* attrs, size_t num, const void* ptr, size_t n);
// cudaMemPrefetchBatchAsync / DiscardBatchAsync / DiscardAndPrefetchBatchAsync (locs null: discard only).
int mem_prefetch_batch(void* const* ptrs, const size_t* sizes, size_t count, const MemLocation* locs,
                       const size_t* loc_idx, size_t nlocs, unsigned long long flags, const void* stream, bool discard);
// cudaFree of a managed allocation: its hints go with it.
void forget_managed_hints(uint64_t base);
// The legacy NULL stream (0 or cudaStreamLegacy), which the batch operations refuse.
bool legacy_stream(const void* stream);
// True in libcudart.so.12, whose cudaMemAdvise / cudaMemPrefetchAsync take CUDA 12's arguments.
bool cuda12_abi();

}  // namespace warpsim::cudart
