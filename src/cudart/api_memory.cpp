// Memory: device allocations live in the simulated DeviceMemory (device pointers are its
// addresses); host memory is the process's own. Managed memory gets a host view mapped at the
// same address as its device allocation, copied to the device before each kernel and back after
// it (valid for programs that synchronise before touching managed data on the host).
#include <fmt/format.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "cudart/export.hpp"
#include "cudart/managed.hpp"
#include "cudart/state.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

int check_sticky(State& s) { return s.sticky ? ret(s.sticky) : 0; }

// One copy, any direction; the pointers decide (unified addressing), the kind is checked.
int copy(State& s, void* dst, const void* src, size_t n, int kind) {
  if (n == 0) return 0;
  if (!dst || !src) return ret(abi::ErrInvalidValue);
  if (kind < 0 || kind > abi::Default) return ret(abi::ErrInvalidMemcpyDirection);
  const bool dd = s.is_device_ptr(dst), sd = s.is_device_ptr(src);
  if ((kind == abi::HostToDevice || kind == abi::DeviceToDevice) && !dd && !s.is_managed_ptr(dst))
    return ret(abi::ErrInvalidValue);
  if ((kind == abi::DeviceToHost || kind == abi::DeviceToDevice) && !sd && !s.is_managed_ptr(src))
    return ret(abi::ErrInvalidValue);
  auto& mem = s.dev->memory();
  if (dd || sd)
    s.dev->copy(dd && sd ? runtime::CopyKind::DeviceToDevice
                : dd     ? runtime::CopyKind::HostToDevice
                         : runtime::CopyKind::DeviceToHost,
                n);
  if (dd && sd) {
    std::vector<uint8_t> buf(std::min<size_t>(n, 1 << 20));
    for (size_t off = 0; off < n; off += buf.size()) {
      size_t c = std::min(buf.size(), n - off);
      if (mem.host_read(addr(src) + off, buf.data(), c) != mem::Fault::None) return ret(abi::ErrInvalidValue);
      if (mem.host_write(addr(dst) + off, buf.data(), c) != mem::Fault::None) return ret(abi::ErrInvalidValue);
    }
    return 0;
  }
  if (dd) return mem.host_write(addr(dst), src, n) == mem::Fault::None ? 0 : ret(abi::ErrInvalidValue);
  if (sd) return mem.host_read(addr(src), dst, n) == mem::Fault::None ? 0 : ret(abi::ErrInvalidValue);
  std::memmove(dst, src, n);
  return 0;
}

int memset_any(State& s, void* p, int value, size_t n) {
  if (n == 0) return 0;
  if (s.is_device_ptr(p)) {
    s.dev->copy(runtime::CopyKind::Memset, n);
    return s.dev->memory().fill(addr(p), uint8_t(value), n) == mem::Fault::None ? 0 : ret(abi::ErrInvalidValue);
  }
  if (s.is_managed_ptr(p)) {
    std::memset(p, value, n);
    return 0;
  }
  return ret(abi::ErrInvalidValue);
}

}  // namespace

CUDART_API abi::Error cudaMalloc(void** devPtr, size_t size) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  if (!devPtr) return ret(abi::ErrInvalidValue);
  if (size == 0) {
    *devPtr = nullptr;
    return 0;
  }
  uint64_t a = s.dev->memory().allocate(size, 256, "cudaMalloc");
  if (!a) return ret(abi::ErrMemoryAllocation);
  *devPtr = reinterpret_cast<void*>(a);
  return 0;
}

CUDART_API abi::Error cudaMallocAsync(void** devPtr, size_t size, abi::Stream stream) {
  if (int err = 0; capture_malloc(stream, devPtr, size, err)) return err ? ret(err) : 0;
  return cudaMalloc(devPtr, size);
}

CUDART_API abi::Error cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return ret(abi::ErrInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return cudaMalloc(devPtr, *pitch * height);
}

CUDART_API abi::Error cudaFree(void* devPtr) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  if (!devPtr) return 0;
  if (graph_free(devPtr)) return 0;
  auto m = s.managed.find(addr(devPtr));
  if (m != s.managed.end()) {
    const uint64_t page = s.dev->memory().page_size();
    munmap(devPtr, (m->second + page - 1) / page * page);
    s.managed.erase(m);
    forget_managed_hints(addr(devPtr));
  }
  return s.dev->memory().release(addr(devPtr)) ? 0 : ret(abi::ErrInvalidValue);
}

CUDART_API abi::Error cudaFreeAsync(void* devPtr, abi::Stream stream) {
  if (capture_free(stream, devPtr)) return 0;
  return cudaFree(devPtr);
}

CUDART_API abi::Error cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  if (!devPtr || size == 0) return ret(abi::ErrInvalidValue);
  auto& mem = s.dev->memory();
  uint64_t a = mem.allocate(size, 256, "cudaMallocManaged");
  if (!a) return ret(abi::ErrMemoryAllocation);
  const uint64_t len = (size + mem.page_size() - 1) / mem.page_size() * mem.page_size();
  void* p = mmap(reinterpret_cast<void*>(a), len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != reinterpret_cast<void*>(a)) {
    if (p != MAP_FAILED) munmap(p, len);
    mem.release(a);
    fmt::print(stderr, "warpsim: cudaMallocManaged: cannot map host memory at 0x{:x}\n", a);
    return ret(abi::ErrMemoryAllocation);
  }
  s.managed[a] = size;
  *devPtr = p;
  return 0;
}

CUDART_API abi::Error cudaMallocHost(void** ptr, size_t size) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!ptr) return ret(abi::ErrInvalidValue);
  void* p = nullptr;
  if (posix_memalign(&p, 4096, size ? size : 1) != 0) return ret(abi::ErrMemoryAllocation);
  s.host_allocs[p] = size;
  *ptr = p;
  return 0;
}

namespace {
constexpr unsigned kHostAllocMapped = 0x02;  // cudaHostAllocMapped
// cudaHostAlloc flags of the live pinned allocations that were given some.
std::map<void*, unsigned>& host_alloc_flags() {
  static std::map<void*, unsigned> f;
  return f;
}
}  // namespace

// cudaHostAllocMapped: zero-copy memory kernels may read and write. It is backed as managed memory
// is (a host view at the device address, synchronised around kernels), so the device pointer is
// the host pointer, as under unified addressing. Other pinned memory is plain host memory.
CUDART_API abi::Error cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  if (!(flags & kHostAllocMapped)) {
    abi::Error e = cudaMallocHost(ptr, size);
    if (e == 0 && flags) {
      State& s = State::get();
      std::lock_guard g(s.mu);
      host_alloc_flags()[*ptr] = flags;
    }
    return e;
  }
  if (!ptr) return ret(abi::ErrInvalidValue);
  abi::Error e = cudaMallocManaged(ptr, size ? size : 1, 1);
  if (e) return e;
  State& s = State::get();
  std::lock_guard g(s.mu);
  s.host_allocs[*ptr] = size;
  host_alloc_flags()[*ptr] = flags;
  return 0;
}

CUDART_API abi::Error cudaHostGetFlags(unsigned int* flags, void* host) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!flags) return ret(abi::ErrInvalidValue);
  if (auto* r = s.registered_range(host)) {
    *flags = r->second.flags;
    return 0;
  }
  if (!s.host_allocs.count(host)) return ret(abi::ErrInvalidValue);
  auto it = host_alloc_flags().find(host);
  *flags = it == host_alloc_flags().end() ? 0 : it->second;
  return 0;
}

CUDART_API abi::Error cudaHostGetDevicePointer(void** dev, void* host, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!dev || flags != 0) return ret(abi::ErrInvalidValue);
  if (s.is_managed_ptr(host)) {
    *dev = host;
    return 0;
  }
  if (auto* r = s.registered_range(host)) {
    *dev = reinterpret_cast<void*>(r->second.dev + (addr(host) - r->first));
    return 0;
  }
  return ret(abi::ErrInvalidValue);
}

CUDART_API abi::Error cudaFreeHost(void* ptr) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!ptr) return 0;
  auto it = s.host_allocs.find(ptr);
  if (it == s.host_allocs.end()) return ret(abi::ErrInvalidValue);
  s.host_allocs.erase(it);
  auto f = host_alloc_flags().find(ptr);
  const bool mapped = f != host_alloc_flags().end() && (f->second & kHostAllocMapped);
  if (f != host_alloc_flags().end()) host_alloc_flags().erase(f);
  if (mapped) return cudaFree(ptr);
  std::free(ptr);
  return 0;
}

// Registered host memory gets a device mirror that kernels reach through cudaHostGetDevicePointer's
// pointer: the simulated device cannot map the program's heap at its own address, so
// cudaDevAttrCanUseHostPointerForRegisteredMem is 0 (as on systems without that ability) and
// programs ask for the device pointer, as the CUDA guide tells them to there. The mirror is
// refreshed from the host before every kernel and copied back after it (like managed memory).
CUDART_API abi::Error cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  if (!ptr || size == 0 || flags > 0xf) return ret(abi::ErrInvalidValue);
  const uint64_t a = addr(ptr);
  for (auto& [h, r] : s.registered)
    if (a < h + r.size && h < a + size) return ret(abi::ErrHostMemoryAlreadyRegistered);
  uint64_t d = s.dev->memory().allocate(size, 256, "cudaHostRegister");
  if (!d) return ret(abi::ErrMemoryAllocation);
  s.dev->memory().host_write(d, ptr, size);
  s.registered[a] = State::Registered{d, size, flags, {}};
  return 0;
}
CUDART_API abi::Error cudaHostUnregister(void* ptr) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto it = s.registered.find(addr(ptr));
  if (it == s.registered.end()) return ret(abi::ErrHostMemoryNotRegistered);
  s.dev->memory().release(it->second.dev);
  s.registered.erase(it);
  return 0;
}

CUDART_API abi::Error cudaMemcpy(void* dst, const void* src, size_t count, int kind) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  return copy(s, dst, src, count, kind);
}

CUDART_API abi::Error cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind, abi::Stream stream) {
  if (capture_op(stream, [=](void* st) { return cudaMemcpyAsync(dst, src, count, kind, st); }, 1)) return 0;
  return cudaMemcpy(dst, src, count, kind);
}

CUDART_API abi::Error cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, int kind) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  if (width > dpitch || width > spitch) return ret(abi::ErrInvalidValue);
  for (size_t r = 0; r < height; ++r)
    if (int e = copy(s, static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width,
                     kind))
      return e;
  return 0;
}

CUDART_API abi::Error cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                        size_t height, int kind, abi::Stream stream) {
  if (capture_op(stream, [=](void* st) { return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, st); }, 1))
    return 0;
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

CUDART_API abi::Error cudaMemcpyPeer(void* dst, int, const void* src, int, size_t count) {
  return cudaMemcpy(dst, src, count, abi::DeviceToDevice);
}

CUDART_API abi::Error cudaMemset(void* devPtr, int value, size_t count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  return memset_any(s, devPtr, value, count);
}

CUDART_API abi::Error cudaMemsetAsync(void* devPtr, int value, size_t count, abi::Stream stream) {
  if (capture_op(stream, [=](void* st) { return cudaMemsetAsync(devPtr, value, count, st); }, 2)) return 0;
  return cudaMemset(devPtr, value, count);
}

CUDART_API abi::Error cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  for (size_t r = 0; r < height; ++r)
    if (int e = memset_any(s, static_cast<char*>(devPtr) + r * pitch, value, width)) return e;
  return 0;
}

CUDART_API abi::Error cudaMemGetInfo(size_t* free, size_t* total) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto& mem = s.dev->memory();
  if (total) *total = mem.capacity();
  if (free) *free = mem.capacity() - mem.mapped_bytes();
  return 0;
}

CUDART_API abi::Error cudaPointerGetAttributes(abi::PointerAttributes* attr, const void* ptr) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!attr) return ret(abi::ErrInvalidValue);
  std::memset(attr, 0, sizeof *attr);
  attr->device = s.current_device;
  bool pinned = false;
  {
    auto it = s.host_allocs.upper_bound(const_cast<void*>(ptr));
    if (it != s.host_allocs.begin()) {
      --it;
      pinned = addr(ptr) < addr(it->first) + it->second;
    }
  }
  if (pinned && s.is_managed_ptr(ptr)) {
    // cudaHostAllocMapped: host memory, mapped at the same address.
    attr->type = 1;
    attr->devicePointer = attr->hostPointer = const_cast<void*>(ptr);
  } else if (s.is_managed_ptr(ptr)) {
    attr->type = 3;
    attr->devicePointer = attr->hostPointer = const_cast<void*>(ptr);
  } else if (auto* r = s.registered_range(ptr)) {
    attr->type = 1;
    attr->hostPointer = const_cast<void*>(ptr);
    attr->devicePointer = reinterpret_cast<void*>(r->second.dev + (addr(ptr) - r->first));
  } else if (s.is_device_ptr(ptr)) {
    attr->type = 2;
    attr->devicePointer = const_cast<void*>(ptr);
  } else {
    attr->type = pinned ? 1 : 0;
    attr->hostPointer = const_cast<void*>(ptr);
    attr->device = pinned ? s.current_device : -2;
  }
  return 0;
}

// cudaMemAdvise, cudaMemPrefetchAsync and the range queries: api_managed.cpp.

// ------------------------------------------------------------------ symbols

CUDART_API abi::Error cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  int err = 0;
  uint64_t a = s.var_address(symbol, nullptr, err);
  if (!a) return ret(err);
  if (devPtr) *devPtr = reinterpret_cast<void*>(a);
  return 0;
}

CUDART_API abi::Error cudaGetSymbolSize(size_t* size, const void* symbol) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  int err = 0;
  size_t n = 0;
  if (!s.var_address(symbol, &n, err)) return ret(err);
  if (size) *size = n;
  return 0;
}

CUDART_API abi::Error cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  int err = 0;
  size_t size = 0;
  uint64_t a = s.var_address(symbol, &size, err);
  if (!a) return ret(err);
  if (offset > size || count > size - offset) return ret(abi::ErrInvalidValue);
  if (kind != abi::HostToDevice && kind != abi::DeviceToDevice && kind != abi::Default)
    return ret(abi::ErrInvalidMemcpyDirection);
  return copy(s, reinterpret_cast<void*>(a + offset), src, count, abi::Default);
}

CUDART_API abi::Error cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  int err = 0;
  size_t size = 0;
  uint64_t a = s.var_address(symbol, &size, err);
  if (!a) return ret(err);
  if (offset > size || count > size - offset) return ret(abi::ErrInvalidValue);
  if (kind != abi::DeviceToHost && kind != abi::DeviceToDevice && kind != abi::Default)
    return ret(abi::ErrInvalidMemcpyDirection);
  return copy(s, dst, reinterpret_cast<const void*>(a + offset), count, abi::Default);
}

CUDART_API abi::Error cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                              int kind, abi::Stream stream) {
  if (capture_op(stream, [=](void* st) { return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, st); }, 1))
    return 0;
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

CUDART_API abi::Error cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                                                abi::Stream stream) {
  if (capture_op(stream, [=](void* st) { return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, st); }, 1))
    return 0;
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

// 3D memory on pitched pointers (cudaMalloc3D, cudaMemcpy3D, cudaMemset3D). cudaArray forms are
// not supported (no CUDA arrays / textures yet).
CUDART_API abi::Error cudaMalloc3D(abi::PitchedPtr* p, abi::Extent e) {
  if (!p) return ret(abi::ErrInvalidValue);
  size_t pitch = 0;
  void* ptr = nullptr;
  if (int err = cudaMallocPitch(&ptr, &pitch, e.width, e.height * e.depth)) return err;
  *p = abi::PitchedPtr{ptr, pitch, e.width, e.height};
  return 0;
}

namespace {
// cudaMemcpy3D between pitched pointers (the caller holds State::mu).
int copy3d(State& s, const abi::Memcpy3DParms& q) {
  const abi::Memcpy3DParms* p = &q;
  const auto& sp = p->srcPtr;
  const auto& dp = p->dstPtr;
  const auto& e = p->extent;  // width in bytes for pitched pointers
  if (!sp.ptr || !dp.ptr) return ret(abi::ErrInvalidValue);
  if (p->srcPos.x + e.width > sp.pitch || p->dstPos.x + e.width > dp.pitch) return ret(abi::ErrInvalidPitchValue);
  const size_t sys = sp.ysize ? sp.ysize : e.height, dys = dp.ysize ? dp.ysize : e.height;
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y) {
      const char* src = static_cast<const char*>(sp.ptr) +
                        ((p->srcPos.z + z) * sys + p->srcPos.y + y) * sp.pitch + p->srcPos.x;
      char* dst = static_cast<char*>(dp.ptr) + ((p->dstPos.z + z) * dys + p->dstPos.y + y) * dp.pitch + p->dstPos.x;
      if (int err = copy(s, dst, src, e.width, p->kind)) return err;
    }
  return 0;
}
}  // namespace

CUDART_API abi::Error cudaMemcpy3D(const abi::Memcpy3DParms* p) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int e = check_sticky(s)) return e;
  if (!p) return ret(abi::ErrInvalidValue);
  if (p->srcArray || p->dstArray) {
    // An array end: its pitched storage, with positions and the extent's width in elements.
    abi::Memcpy3DParms q = *p;
    size_t elem = 1;
    // The region must lie inside the array (in elements, rows and slices): a copy past its end is
    // cudaErrorInvalidValue, as cudaMemcpyToArray's is.
    auto inside = [&](const abi::Pos& pos, const abi::PitchedPtr& a, size_t depth) {
      const size_t h = std::max<size_t>(1, p->extent.height), d = std::max<size_t>(1, p->extent.depth);
      return pos.x + p->extent.width <= a.xsize && pos.y + h <= a.ysize && pos.z + d <= depth;
    };
    if (p->srcArray) {
      size_t depth = 1;
      q.srcArray = nullptr;
      if (!array_as_pitched(p->srcArray, q.srcPtr, elem, depth)) return ret(abi::ErrInvalidResourceHandle);
      if (!inside(p->srcPos, q.srcPtr, depth)) return ret(abi::ErrInvalidValue);
      q.srcPos.x *= elem;
    }
    if (p->dstArray) {
      size_t de = 1, depth = 1;
      q.dstArray = nullptr;
      if (!array_as_pitched(p->dstArray, q.dstPtr, de, depth)) return ret(abi::ErrInvalidResourceHandle);
      if (!inside(p->dstPos, q.dstPtr, depth)) return ret(abi::ErrInvalidValue);
      q.dstPos.x *= de;
      elem = de;
    }
    q.extent.width *= elem;
    return copy3d(s, q);
  }
  return copy3d(s, *p);
}

CUDART_API abi::Error cudaMemcpy3DAsync(const abi::Memcpy3DParms* p, abi::Stream stream) {
  if (p) {
    const abi::Memcpy3DParms q = *p;
    if (capture_op(stream, [q](void* st) { return cudaMemcpy3DAsync(&q, st); }, 1)) return 0;
  }
  return cudaMemcpy3D(p);
}
CUDART_API abi::Error cudaMemcpy3DAsync_ptsz(const abi::Memcpy3DParms* p, abi::Stream s) { return cudaMemcpy3DAsync(p, s); }
CUDART_API abi::Error cudaMemcpy3D_ptds(const abi::Memcpy3DParms* p) { return cudaMemcpy3D(p); }

// ------------------------------------------------------------------ peer and batched copies
// One device: a peer copy is a copy on it; another device id is cudaErrorInvalidDevice (our H100).
CUDART_API abi::Error cudaMemcpy3DPeer(const abi::Memcpy3DPeerParms* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  if (p->srcDevice != 0 || p->dstDevice != 0) return ret(abi::ErrInvalidDevice);
  const abi::Memcpy3DParms q{p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos, p->dstPtr, p->extent, abi::Default};
  return cudaMemcpy3D(&q);
}
CUDART_API abi::Error cudaMemcpy3DPeerAsync(const abi::Memcpy3DPeerParms* p, abi::Stream stream) {
  if (!p) return ret(abi::ErrInvalidValue);
  if (p->srcDevice != 0 || p->dstDevice != 0) return ret(abi::ErrInvalidDevice);
  const abi::Memcpy3DParms q{p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos, p->dstPtr, p->extent, abi::Default};
  return cudaMemcpy3DAsync(&q, stream);
}
CUDART_API abi::Error cudaMemcpy3DPeerAsync_ptsz(const abi::Memcpy3DPeerParms* p, abi::Stream s) {
  return cudaMemcpy3DPeerAsync(p, s);
}
CUDART_API abi::Error cudaMemcpy3DPeer_ptds(const abi::Memcpy3DPeerParms* p) { return cudaMemcpy3DPeer(p); }

namespace warpsim::cudart {
// cudaMemcpyBatchAsync: the copies run in the order given, in stream order (the batch's own order is
// unspecified, so a program cannot tell). The argument rules and codes are our H100's: the legacy
// stream, no copies, an attribute set without a valid source order, attribute indices that do not
// start at 0, rise and stay below the count, or more sets than copies, are cudaErrorInvalidValue.
int memcpy_batch(void* const* dsts, const void* const* srcs, const size_t* sizes, size_t count,
                 const abi::MemcpyAttributes* attrs, const size_t* idx, size_t nattrs, void* stream) {
  if (!dsts || !srcs || !sizes || count == 0 || !attrs || !idx || nattrs == 0 || nattrs > count) return abi::ErrInvalidValue;
  if (legacy_stream(stream) || idx[0] != 0) return abi::ErrInvalidValue;
  for (size_t k = 0; k < nattrs; ++k) {
    if (attrs[k].srcAccessOrder < 1 || attrs[k].srcAccessOrder > 3) return abi::ErrInvalidValue;
    if (k && (idx[k] <= idx[k - 1] || idx[k] >= count)) return abi::ErrInvalidValue;
  }
  std::vector<void*> d(dsts, dsts + count);
  std::vector<const void*> sv(srcs, srcs + count);
  std::vector<size_t> n(sizes, sizes + count);
  auto run = [d, sv, n](void*) {
    State& s = State::get();
    std::lock_guard g(s.mu);
    if (int e = check_sticky(s)) return e;
    for (size_t i = 0; i < d.size(); ++i)
      if (int e = copy(s, d[i], sv[i], n[i], abi::Default)) return e;
    return 0;
  };
  if (capture_op(stream, run, 1)) return 0;
  return run(stream);
}

// cudaMemcpy3DBatchAsync: each operation as a cudaMemcpy3D. Extents are in elements: bytes between
// two pointers, the array's elements when one operand is an array.
int memcpy3d_batch(size_t nops, const abi::Memcpy3DBatchOp* ops, unsigned long long flags, void* stream) {
  if (!ops || nops == 0 || flags || legacy_stream(stream)) return abi::ErrInvalidValue;
  std::vector<abi::Memcpy3DParms> copies;
  for (size_t i = 0; i < nops; ++i) {
    const abi::Memcpy3DBatchOp& o = ops[i];
    const abi::Extent& e = o.extent;
    if (!e.width || !e.height || !e.depth || o.srcAccessOrder < 1 || o.srcAccessOrder > 3) return abi::ErrInvalidValue;
    size_t elem = 1;
    for (const abi::Memcpy3DOperand* op : {&o.src, &o.dst}) {
      if (op->type == 2) {
        abi::PitchedPtr pp{};
        size_t el = 1, depth = 1;
        if (!array_as_pitched(op->op.array.array, pp, el, depth)) return abi::ErrInvalidResourceHandle;
        if (elem != 1 && el != elem) return abi::ErrInvalidValue;  // two arrays of different element sizes
        elem = el;
      } else if (op->type != 1) {
        return abi::ErrInvalidValue;
      }
    }
    abi::Memcpy3DParms q{};
    q.extent = e;
    q.kind = abi::Default;
    auto side = [&](const abi::Memcpy3DOperand& op, void*& array, abi::Pos& pos, abi::PitchedPtr& ptr) {
      if (op.type == 2) {
        array = op.op.array.array;
        pos = op.op.array.offset;
        return true;
      }
      const size_t row = op.op.ptr.rowLength ? op.op.ptr.rowLength : e.width;
      const size_t layer = op.op.ptr.layerHeight ? op.op.ptr.layerHeight : e.height;
      if (!op.op.ptr.ptr || row < e.width || layer < e.height) return false;
      ptr = abi::PitchedPtr{op.op.ptr.ptr, row * elem, row, layer};
      return true;
    };
    if (!side(o.src, q.srcArray, q.srcPos, q.srcPtr) || !side(o.dst, q.dstArray, q.dstPos, q.dstPtr))
      return abi::ErrInvalidValue;
    copies.push_back(q);
  }
  auto run = [copies](void*) {
    for (const auto& q : copies)
      if (int e = cudaMemcpy3D(&q)) return e;
    return 0;
  };
  if (capture_op(stream, run, 1)) return 0;
  return run(stream);
}
}  // namespace warpsim::cudart

// CUDA 13: (..., numAttrs, stream); CUDA 12.8/12.9: (..., numAttrs, size_t* failIdx, stream).
CUDART_API abi::Error cudaMemcpyBatchAsync(void* const* dsts, const void* const* srcs, const size_t* sizes,
                                           size_t count, abi::MemcpyAttributes* attrs, size_t* idx, size_t nattrs,
                                           void* stream_or_fail, void* stream12) {
  void* stream = cuda12_abi() ? stream12 : stream_or_fail;
  size_t* fail = cuda12_abi() ? static_cast<size_t*>(stream_or_fail) : nullptr;
  const int e = memcpy_batch(dsts, srcs, sizes, count, attrs, idx, nattrs, stream);
  if (e && fail) *fail = SIZE_MAX;  // the failure is not tied to one copy
  return ret(e);
}
CUDART_API abi::Error cudaMemcpyBatchAsync_ptsz(void* const* dsts, const void* const* srcs, const size_t* sizes,
                                                size_t count, abi::MemcpyAttributes* attrs, size_t* idx,
                                                size_t nattrs, void* a, void* b) {
  return cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, idx, nattrs, a, b);
}
// CUDA 13: (numOps, ops, flags, stream); CUDA 12.8/12.9: (numOps, ops, size_t* failIdx, flags, stream).
CUDART_API abi::Error cudaMemcpy3DBatchAsync(size_t nops, abi::Memcpy3DBatchOp* ops, uint64_t flags_or_fail,
                                             uint64_t stream_or_flags, void* stream12) {
  int e;
  if (cuda12_abi()) {
    e = memcpy3d_batch(nops, ops, stream_or_flags, stream12);
    if (e && flags_or_fail) *reinterpret_cast<size_t*>(flags_or_fail) = SIZE_MAX;
  } else {
    e = memcpy3d_batch(nops, ops, flags_or_fail, reinterpret_cast<void*>(stream_or_flags));
  }
  return ret(e);
}
CUDART_API abi::Error cudaMemcpy3DBatchAsync_ptsz(size_t nops, abi::Memcpy3DBatchOp* ops, uint64_t a, uint64_t b,
                                                  void* c) {
  return cudaMemcpy3DBatchAsync(nops, ops, a, b, c);
}

CUDART_API abi::Error cudaMemset3D(abi::PitchedPtr p, int value, abi::Extent e) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (int err = check_sticky(s)) return err;
  if (!p.ptr || e.width > p.pitch) return ret(abi::ErrInvalidValue);
  const size_t ys = p.ysize ? p.ysize : e.height;
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      if (int err = memset_any(s, static_cast<char*>(p.ptr) + (z * ys + y) * p.pitch, value, e.width)) return err;
  return 0;
}

CUDART_API abi::Error cudaMemset3DAsync(abi::PitchedPtr p, int value, abi::Extent e, abi::Stream) {
  return cudaMemset3D(p, value, e);
}
CUDART_API abi::Error cudaMemset3DAsync_ptsz(abi::PitchedPtr p, int value, abi::Extent e, abi::Stream) {
  return cudaMemset3D(p, value, e);
}
CUDART_API abi::Error cudaMemset3D_ptds(abi::PitchedPtr p, int value, abi::Extent e) { return cudaMemset3D(p, value, e); }
