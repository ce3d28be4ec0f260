// Entry points that programs commonly call and that need no new machinery: the per-thread
// default-stream variants (_ptds/_ptsz, what nvcc --default-stream per-thread emits), the 2D
// async memset, peer copies on one device, profiler markers, stream-capture queries (captures
// are kept by api_graph.cpp), stream ids, kernel names, the default memory pool
// and cudaOccupancyAvailableDynamicSMemPerBlock.
//
// Per-thread default stream: operations run synchronously in call order on this single simulated
// device, which is one valid schedule of the per-thread stream's semantics (it synchronises only
// with itself), so the variants forward to the plain functions.
#include <fmt/format.h>

#include <map>
#include <set>

#include "cudart/abi.hpp"
#include "cudart/export.hpp"
#include "cudart/state.hpp"
#include "runtime/occupancy.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

// The plain functions (defined in api_memory.cpp, api_stream.cpp, ...).
extern "C" {
abi::Error cudaEventRecordWithFlags(abi::Event, abi::Stream, unsigned int);
abi::Error cudaEventRecord(abi::Event, abi::Stream);
abi::Error cudaFreeAsync(void*, abi::Stream);
abi::Error cudaLaunchHostFunc(abi::Stream, void (*)(void*), void*);
abi::Error cudaMallocAsync(void**, size_t, abi::Stream);
abi::Error cudaMemcpy2DAsync(void*, size_t, const void*, size_t, size_t, size_t, int, abi::Stream);
abi::Error cudaMemcpy2D(void*, size_t, const void*, size_t, size_t, size_t, int);
abi::Error cudaMemcpyAsync(void*, const void*, size_t, int, abi::Stream);
abi::Error cudaMemcpyFromSymbolAsync(void*, const void*, size_t, size_t, int, abi::Stream);
abi::Error cudaMemcpyFromSymbol(void*, const void*, size_t, size_t, int);
abi::Error cudaMemcpyToSymbolAsync(const void*, const void*, size_t, size_t, int, abi::Stream);
abi::Error cudaMemcpyToSymbol(const void*, const void*, size_t, size_t, int);
abi::Error cudaMemcpy(void*, const void*, size_t, int);
abi::Error cudaMemset2D(void*, size_t, int, size_t, size_t);
abi::Error cudaMemsetAsync(void*, int, size_t, abi::Stream);
abi::Error cudaMemset(void*, int, size_t);
abi::Error cudaStreamAddCallback(abi::Stream, void (*)(abi::Stream, abi::Error, void*), void*, unsigned int);
abi::Error cudaStreamGetFlags(abi::Stream, unsigned int*);
abi::Error cudaStreamGetPriority(abi::Stream, int*);
abi::Error cudaStreamQuery(abi::Stream);
abi::Error cudaStreamSynchronize(abi::Stream);
abi::Error cudaStreamWaitEvent(abi::Stream, abi::Event, unsigned int);
}

// ------------------------------------------------------------------ per-thread default stream

CUDART_API abi::Error cudaEventRecordWithFlags_ptsz(abi::Event e, abi::Stream s, unsigned int f) {
  return cudaEventRecordWithFlags(e, s, f);
}
CUDART_API abi::Error cudaEventRecord_ptsz(abi::Event e, abi::Stream s) { return cudaEventRecord(e, s); }
CUDART_API abi::Error cudaFreeAsync_ptsz(void* p, abi::Stream s) { return cudaFreeAsync(p, s); }
CUDART_API abi::Error cudaLaunchHostFunc_ptsz(abi::Stream s, void (*fn)(void*), void* u) {
  return cudaLaunchHostFunc(s, fn, u);
}
CUDART_API abi::Error cudaMallocAsync_ptsz(void** p, size_t n, abi::Stream s) { return cudaMallocAsync(p, n, s); }
CUDART_API abi::Error cudaMemcpy2DAsync_ptsz(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h,
                                             int kind, abi::Stream s) {
  return cudaMemcpy2DAsync(dst, dp, src, sp, w, h, kind, s);
}
CUDART_API abi::Error cudaMemcpy2D_ptds(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h,
                                        int kind) {
  return cudaMemcpy2D(dst, dp, src, sp, w, h, kind);
}
CUDART_API abi::Error cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n, int kind, abi::Stream s) {
  return cudaMemcpyAsync(dst, src, n, kind, s);
}
CUDART_API abi::Error cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* sym, size_t n, size_t off, int kind,
                                                     abi::Stream s) {
  return cudaMemcpyFromSymbolAsync(dst, sym, n, off, kind, s);
}
CUDART_API abi::Error cudaMemcpyFromSymbol_ptds(void* dst, const void* sym, size_t n, size_t off, int kind) {
  return cudaMemcpyFromSymbol(dst, sym, n, off, kind);
}
CUDART_API abi::Error cudaMemcpyToSymbolAsync_ptsz(const void* sym, const void* src, size_t n, size_t off, int kind,
                                                   abi::Stream s) {
  return cudaMemcpyToSymbolAsync(sym, src, n, off, kind, s);
}
CUDART_API abi::Error cudaMemcpyToSymbol_ptds(const void* sym, const void* src, size_t n, size_t off, int kind) {
  return cudaMemcpyToSymbol(sym, src, n, off, kind);
}
CUDART_API abi::Error cudaMemcpy_ptds(void* dst, const void* src, size_t n, int kind) {
  return cudaMemcpy(dst, src, n, kind);
}
CUDART_API abi::Error cudaMemset2D_ptds(void* p, size_t pitch, int v, size_t w, size_t h) {
  return cudaMemset2D(p, pitch, v, w, h);
}
CUDART_API abi::Error cudaMemset2DAsync(void* p, size_t pitch, int v, size_t w, size_t h, abi::Stream stream) {
  if (capture_op(stream, [=](void* st) { return cudaMemset2DAsync(p, pitch, v, w, h, st); }, 2)) return 0;
  return cudaMemset2D(p, pitch, v, w, h);
}
CUDART_API abi::Error cudaMemset2DAsync_ptsz(void* p, size_t pitch, int v, size_t w, size_t h, abi::Stream s) {
  return cudaMemset2DAsync(p, pitch, v, w, h, s);
}
CUDART_API abi::Error cudaMemsetAsync_ptsz(void* p, int v, size_t n, abi::Stream s) {
  return cudaMemsetAsync(p, v, n, s);
}
CUDART_API abi::Error cudaMemset_ptds(void* p, int v, size_t n) { return cudaMemset(p, v, n); }
CUDART_API abi::Error cudaStreamAddCallback_ptsz(abi::Stream s, void (*cb)(abi::Stream, abi::Error, void*), void* u,
                                                 unsigned int f) {
  return cudaStreamAddCallback(s, cb, u, f);
}
CUDART_API abi::Error cudaStreamGetFlags_ptsz(abi::Stream s, unsigned int* f) { return cudaStreamGetFlags(s, f); }
CUDART_API abi::Error cudaStreamGetPriority_ptsz(abi::Stream s, int* p) { return cudaStreamGetPriority(s, p); }
CUDART_API abi::Error cudaStreamQuery_ptsz(abi::Stream s) { return cudaStreamQuery(s); }
CUDART_API abi::Error cudaStreamSynchronize_ptsz(abi::Stream s) { return cudaStreamSynchronize(s); }
CUDART_API abi::Error cudaStreamWaitEvent_ptsz(abi::Stream s, abi::Event e, unsigned int f) {
  return cudaStreamWaitEvent(s, e, f);
}

// ------------------------------------------------------------------ peer copies on one device

CUDART_API abi::Error cudaMemcpyPeerAsync(void* dst, int, const void* src, int, size_t count, abi::Stream s) {
  return cudaMemcpyAsync(dst, src, count, abi::DeviceToDevice, s);
}

// ------------------------------------------------------------------ profiler markers

CUDART_API abi::Error cudaProfilerStart() { return 0; }
CUDART_API abi::Error cudaProfilerStop() { return 0; }

// ------------------------------------------------------------------ streams

// cudaStreamCaptureStatusNone / Active (api_graph.cpp keeps the captures).
CUDART_API abi::Error cudaStreamIsCapturing(abi::Stream stream, int* status) {
  if (!status) return ret(abi::ErrInvalidValue);
  *status = capture_status(stream, nullptr);
  return 0;
}
CUDART_API abi::Error cudaStreamIsCapturing_ptsz(abi::Stream s, int* status) { return cudaStreamIsCapturing(s, status); }

CUDART_API abi::Error cudaStreamGetCaptureInfo(abi::Stream stream, int* status, unsigned long long* id, void** graph,
                                               const void** deps, const void** edges, size_t* ndeps) {
  if (!status) return ret(abi::ErrInvalidValue);
  if (int e = capture_info(stream, status, id, graph, deps, ndeps)) return ret(e);
  // Every edge is a default one: cudaGraphEdgeData all zero.
  static thread_local unsigned char zero_edges[8 * 64];
  if (edges) *edges = ndeps && *ndeps <= 64 ? zero_edges : nullptr;
  return 0;
}
CUDART_API abi::Error cudaStreamGetCaptureInfo_ptsz(abi::Stream s, int* status, unsigned long long* id, void** graph,
                                                    const void** deps, const void** edges, size_t* ndeps) {
  return cudaStreamGetCaptureInfo(s, status, id, graph, deps, edges, ndeps);
}

// cudaStreamCaptureModeGlobal etc.: the mode is kept and handed back, and has no effect.
CUDART_API abi::Error cudaThreadExchangeStreamCaptureMode(int* mode) {
  if (!mode) return ret(abi::ErrInvalidValue);
  static thread_local int current = 0;
  std::swap(current, *mode);
  return 0;
}

// A stream's id: unique per stream for the process (the handle; 0 for the legacy default stream,
// 2 for the per-thread one, as their handles).
CUDART_API abi::Error cudaStreamGetId(abi::Stream s, unsigned long long* id) {
  if (!id) return ret(abi::ErrInvalidValue);
  *id = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(s));
  return 0;
}
CUDART_API abi::Error cudaStreamGetId_ptsz(abi::Stream s, unsigned long long* id) { return cudaStreamGetId(s, id); }

CUDART_API abi::Error cudaStreamGetDevice(abi::Stream, int* device) {
  if (!device) return ret(abi::ErrInvalidValue);
  *device = State::get().current_device;
  return 0;
}
CUDART_API abi::Error cudaStreamGetDevice_ptsz(abi::Stream s, int* device) { return cudaStreamGetDevice(s, device); }

// ------------------------------------------------------------------ functions

CUDART_API abi::Error cudaFuncGetName(const char** name, const void* func) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!name) return ret(abi::ErrInvalidValue);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) return ret(abi::ErrInvalidDeviceFunction);
  *name = it->second.name.c_str();
  return 0;
}

// The most dynamic shared memory a block can use with numBlocks blocks of blockSize threads per
// SM: the largest size at which the occupancy calculator still gives numBlocks (it is monotone).
CUDART_API abi::Error cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dyn, const void* func, int numBlocks,
                                                                int blockSize) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!dyn || numBlocks <= 0 || blockSize <= 0) return ret(abi::ErrInvalidValue);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) return ret(abi::ErrInvalidDeviceFunction);
  if (int e = s.resolve(it->second)) return ret(e);
  const auto& spec = s.dev->spec();
  const auto usage = kernel_usage(spec, it->second);
  auto fits = [&](uint64_t bytes) { return runtime::occupancy(spec, usage, blockSize, bytes).blocks >= numBlocks; };
  if (!fits(0)) {
    *dyn = 0;
    return 0;
  }
  uint64_t lo = 0, hi = spec.smem_per_block_optin;  // fits(lo) holds
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  *dyn = size_t(lo);
  return 0;
}

// ------------------------------------------------------------------ memory pools

// Memory pools: the device's default pool and those cudaMemPoolCreate makes. Their attributes and
// access descriptors are kept and reported back; every pool allocates from the one simulated
// device allocator (stream-ordered allocation is cudaMallocAsync), so they change no result.
namespace {
struct MemPool {
  std::map<int, unsigned long long> attrs;
  int access = 3;  // cudaMemAccessFlagsProtReadWrite for the owning device
};
MemPool& default_pool() {
  static MemPool p;
  return p;
}
std::set<MemPool*>& created_pools() {
  static std::set<MemPool*> s;
  return s;
}
MemPool*& current_pool() {
  static MemPool* p = &default_pool();
  return p;
}
bool known_pool(void* p) {
  return p == &default_pool() || created_pools().count(static_cast<MemPool*>(p));
}
constexpr int kMemPoolAttrMin = 1, kMemPoolAttrMax = 8;  // cudaMemPoolReuseFollowEventDependencies .. UsedMemHigh
// cudaMemPoolProps / cudaMemLocation / cudaMemAccessDesc as the CUDA headers lay them out.
struct MemLocation {
  int type;  // cudaMemLocationTypeDevice = 1
  int id;
};
struct MemPoolPropsHead {
  int allocType;  // cudaMemAllocationTypePinned = 1
  int handleTypes;
  MemLocation location;
};
struct MemAccessDesc {
  MemLocation location;
  int flags;
};
}  // namespace

CUDART_API abi::Error cudaDeviceGetDefaultMemPool(void** pool, int device) {
  if (!pool) return ret(abi::ErrInvalidValue);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  *pool = &default_pool();
  return 0;
}
CUDART_API abi::Error cudaDeviceGetMemPool(void** pool, int device) {
  if (!pool) return ret(abi::ErrInvalidValue);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  *pool = current_pool();
  return 0;
}
CUDART_API abi::Error cudaDeviceSetMemPool(int device, void* pool) {
  if (device != 0) return ret(abi::ErrInvalidDevice);
  if (!known_pool(pool)) return ret(abi::ErrInvalidValue);
  current_pool() = static_cast<MemPool*>(pool);
  return 0;
}
// CUDA 13's location-based forms; only the device location (and its pinned allocations) exists.
CUDART_API abi::Error cudaMemGetDefaultMemPool(void** pool, MemLocation* loc, int type) {
  if (!pool || !loc || type != 1) return ret(abi::ErrInvalidValue);
  if (loc->type != 1) return ret(abi::ErrNotSupported);
  return cudaDeviceGetDefaultMemPool(pool, loc->id);
}
CUDART_API abi::Error cudaMemGetMemPool(void** pool, MemLocation* loc, int type) {
  if (!pool || !loc || type != 1) return ret(abi::ErrInvalidValue);
  if (loc->type != 1) return ret(abi::ErrNotSupported);
  return cudaDeviceGetMemPool(pool, loc->id);
}
CUDART_API abi::Error cudaMemSetMemPool(MemLocation* loc, int type, void* pool) {
  if (!loc || type != 1) return ret(abi::ErrInvalidValue);
  if (loc->type != 1) return ret(abi::ErrNotSupported);
  return cudaDeviceSetMemPool(loc->id, pool);
}
CUDART_API abi::Error cudaMemPoolCreate(void** pool, const MemPoolPropsHead* props) {
  if (!pool || !props) return ret(abi::ErrInvalidValue);
  if (props->allocType != 1 || props->location.type != 1) return ret(abi::ErrInvalidValue);
  if (props->location.id != 0) return ret(abi::ErrInvalidDevice);
  MemPool* p = new MemPool;
  created_pools().insert(p);
  *pool = p;
  return 0;
}
CUDART_API abi::Error cudaMemPoolDestroy(void* pool) {
  auto it = created_pools().find(static_cast<MemPool*>(pool));
  if (it == created_pools().end()) return ret(abi::ErrInvalidValue);
  if (current_pool() == *it) current_pool() = &default_pool();
  delete *it;
  created_pools().erase(it);
  return 0;
}
CUDART_API abi::Error cudaMemPoolSetAccess(void* pool, const MemAccessDesc* descs, size_t count) {
  if (!known_pool(pool) || (count && !descs)) return ret(abi::ErrInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    if (descs[i].location.type != 1 || descs[i].location.id != 0) return ret(abi::ErrInvalidDevice);
    static_cast<MemPool*>(pool)->access = descs[i].flags;
  }
  return 0;
}
CUDART_API abi::Error cudaMemPoolGetAccess(int* flags, void* pool, MemLocation* loc) {
  if (!flags || !loc || !known_pool(pool)) return ret(abi::ErrInvalidValue);
  if (loc->type != 1 || loc->id != 0) return ret(abi::ErrInvalidDevice);
  *flags = static_cast<MemPool*>(pool)->access;
  return 0;
}
CUDART_API abi::Error cudaMemPoolSetAttribute(void* pool, int attr, void* value) {
  if (!known_pool(pool) || !value || attr < kMemPoolAttrMin || attr > kMemPoolAttrMax)
    return ret(abi::ErrInvalidValue);
  // The boolean attributes (1..3) are int, the sizes (4..8) cuuint64_t.
  static_cast<MemPool*>(pool)->attrs[attr] =
      attr <= 3 ? unsigned(*static_cast<int*>(value)) : *static_cast<unsigned long long*>(value);
  return 0;
}
CUDART_API abi::Error cudaMemPoolGetAttribute(void* pool, int attr, void* value) {
  if (!known_pool(pool) || !value || attr < kMemPoolAttrMin || attr > kMemPoolAttrMax)
    return ret(abi::ErrInvalidValue);
  auto& attrs = static_cast<MemPool*>(pool)->attrs;
  auto it = attrs.find(attr);
  unsigned long long v = it == attrs.end() ? (attr <= 3 ? 1 : 0) : it->second;
  if (attr <= 3) *static_cast<int*>(value) = int(v);
  else *static_cast<unsigned long long*>(value) = v;
  return 0;
}
CUDART_API abi::Error cudaMemPoolTrimTo(void* pool, size_t) { return known_pool(pool) ? 0 : ret(abi::ErrInvalidValue); }
CUDART_API abi::Error cudaMallocFromPoolAsync(void** p, size_t n, void* pool, abi::Stream s) {
  if (!known_pool(pool)) return ret(abi::ErrInvalidValue);
  return cudaMallocAsync(p, n, s);
}
CUDART_API abi::Error cudaMallocFromPoolAsync_ptsz(void** p, size_t n, void* pool, abi::Stream s) {
  return cudaMallocFromPoolAsync(p, n, pool, s);
}

// ------------------------------------------------------------------ driver entry points

// The driver's functions as libcuda.so.1 hands them out (driver_api.cpp): cudaGetDriverEntryPoint
// defaults to the CUDA 12.0 forms of the API (cuGetProcAddress_v2 with version 12000).
extern "C" void* warpsim_driver_proc(const char* name, int version);
namespace {
int driver_entry(const char* symbol, void** fn, int version, int* status) {
  *fn = warpsim_driver_proc(symbol, version);
  if (status) *status = *fn ? 0 : 1;  // cudaDriverEntryPointSuccess / SymbolNotFound
  return *fn ? 0 : ret(abi::ErrSymbolNotFound);
}
}  // namespace

CUDART_API abi::Error cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long, int* status) {
  if (!symbol || !fn) return ret(abi::ErrInvalidValue);
  return driver_entry(symbol, fn, 12000, status);
}
CUDART_API abi::Error cudaGetDriverEntryPoint_ptsz(const char* symbol, void** fn, unsigned long long flags, int* status) {
  return cudaGetDriverEntryPoint(symbol, fn, flags, status);
}
CUDART_API abi::Error cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int version,
                                                       unsigned long long,
                                                       int* status) {
  if (!symbol || !fn) return ret(abi::ErrInvalidValue);
  return driver_entry(symbol, fn, int(version), status);
}
CUDART_API abi::Error cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** fn, unsigned int v,
                                                            unsigned long long flags, int* status) {
  return cudaGetDriverEntryPointByVersion(symbol, fn, v, flags, status);
}
