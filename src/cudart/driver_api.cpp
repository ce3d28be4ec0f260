// The CUDA driver API (cuda.h, CUDA 13) on the simulated device: contexts, modules and libraries,
// memory, streams, events and launches, each mapped onto the runtime layer of this library (the
// exported cuda* functions and State), so that the driver and the runtime share one device.
// Lookups go through warpsim_driver_proc (cuGetProcAddress), as libcudart_static does.
//
// Graphs and stream capture are in driver_graph.cpp, arrays and texture/surface objects in
// driver_texture.cpp. What is not here answers CUDA_ERROR_NOT_SUPPORTED and says so once on
// stderr: texture references, IPC, external memory, virtual memory management,
// multicast and green contexts.
#include <atomic>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cudart/driver.hpp"
#include "cudart/elf64.hpp"
#include "cudart/errors.hpp"
#include "cudart/export.hpp"
#include "cudart/launch.hpp"
#include "cudart/state.hpp"
#include "func/engine.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

// The runtime API of this library, called by the driver functions below.
extern "C" {
abi::Error cudaMalloc(void** devPtr, size_t size);
abi::Error cudaFree(void* devPtr);
abi::Error cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height);
abi::Error cudaMemGetInfo(size_t* free, size_t* total);
abi::Error cudaMallocManaged(void** devPtr, size_t size, unsigned int flags);
abi::Error cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
abi::Error cudaFreeHost(void* ptr);
abi::Error cudaHostGetDevicePointer(void** dev, void* host, unsigned int flags);
abi::Error cudaHostGetFlags(unsigned int* flags, void* host);
abi::Error cudaHostRegister(void* ptr, size_t size, unsigned int flags);
abi::Error cudaHostUnregister(void* ptr);
abi::Error cudaMemcpy(void* dst, const void* src, size_t count, int kind);
abi::Error cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind, abi::Stream stream);
abi::Error cudaMemset(void* devPtr, int value, size_t count);
abi::Error cudaMemsetAsync(void* devPtr, int value, size_t count, abi::Stream stream);
abi::Error cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                        int kind);
abi::Error cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                             int kind, abi::Stream stream);
abi::Error cudaStreamCreateWithPriority(abi::Stream* stream, unsigned int flags, int);
abi::Error cudaStreamDestroy(abi::Stream stream);
abi::Error cudaStreamSynchronize(abi::Stream stream);
abi::Error cudaStreamQuery(abi::Stream stream);
abi::Error cudaStreamWaitEvent(abi::Stream stream, abi::Event event, unsigned int);
abi::Error cudaStreamGetFlags(abi::Stream stream, unsigned int* flags);
abi::Error cudaStreamGetPriority(abi::Stream, int* priority);
abi::Error cudaEventCreateWithFlags(abi::Event* event, unsigned int flags);
abi::Error cudaEventDestroy(abi::Event event);
abi::Error cudaEventRecord(abi::Event event, abi::Stream stream);
abi::Error cudaEventSynchronize(abi::Event event);
abi::Error cudaEventQuery(abi::Event event);
abi::Error cudaEventElapsedTime(float* ms, abi::Event start, abi::Event end);
abi::Error cudaDeviceSynchronize();
abi::Error cudaDeviceGetAttribute(int* value, int attr, int device);
abi::Error cudaDeviceGetLimit(size_t* value, int limit);
abi::Error cudaDeviceSetLimit(int limit, size_t value);
abi::Error cudaFuncGetAttributes(abi::FuncAttributes* attr, const void* func);
abi::Error cudaFuncSetAttribute(const void* func, int attr, int value);
abi::Error cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                  size_t dynamicSMemSize, unsigned int flags);
abi::Error cudaLaunchHostFunc(abi::Stream stream, void (*fn)(void*), void* userData);
abi::Error cudaStreamAddCallback(abi::Stream stream, void (*cb)(abi::Stream, abi::Error, void*), void* userData,
                                 unsigned int);
abi::Error cudaMallocAsync(void** devPtr, size_t size, abi::Stream);
abi::Error cudaFreeAsync(void* devPtr, abi::Stream stream);
abi::Error cudaDeviceGetPCIBusId(char* pciBusId, int len, int device);
abi::Error cudaGetDeviceProperties(abi::DeviceProp* prop, int device);
abi::Error cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
abi::Error cudaDeviceGetByPCIBusId(int* device, const char* id);
abi::Error cudaDeviceGetDefaultMemPool(void** pool, int device);
abi::Error cudaPointerGetAttributes(abi::PointerAttributes* attr, const void* ptr);
abi::Error cudaLaunchKernelExC(const abi::LaunchConfig* config, const void* func, void** args);
abi::Error cudaOccupancyMaxActiveClusters(int* numClusters, const void* func, const abi::LaunchConfig* config);
abi::Error cudaOccupancyMaxPotentialClusterSize(int* clusterSize, const void* func, const abi::LaunchConfig* config);
abi::Error cudaMemPoolDestroy(void* pool);
abi::Error cudaMallocFromPoolAsync(void** p, size_t n, void* pool, abi::Stream s);
abi::Error cudaMemPoolSetAttribute(void* pool, int attr, void* value);
abi::Error cudaMemPoolGetAttribute(void* pool, int attr, void* value);
abi::Error cudaMemPoolTrimTo(void* pool, size_t);
abi::Error cudaDeviceGetCacheConfig(int* c);
abi::Error cudaDeviceSetCacheConfig(int);
abi::Error cudaFuncSetCacheConfig(const void*, int);
abi::Error cudaCtxResetPersistingL2Cache();
abi::Error cudaStreamSetAttribute(abi::Stream stream, int attr, const abi::LaunchAttributeValue* value);
abi::Error cudaStreamGetAttribute(abi::Stream stream, int attr, abi::LaunchAttributeValue* value);
abi::Error cudaStreamCopyAttributes(abi::Stream dst, abi::Stream src);
abi::Error cudaMemPoolCreate(void** pool, const void* props);
abi::Error cudaMemcpy3D(const abi::Memcpy3DParms* p);
abi::Error cudaMemcpy3DAsync(const abi::Memcpy3DParms* p, abi::Stream stream);
abi::Error cudaArrayGetInfo(abi::ChannelFormatDesc* desc, abi::Extent* extent, unsigned int* flags, void* array);
abi::Error cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dyn, const void* func, int numBlocks, int blockSize);
}

namespace warpsim::cudart {

int cu_result(int e) {
  switch (e) {
    case abi::Success: return CuSuccess;
    case abi::ErrMemoryAllocation: return CuOutOfMemory;
    case abi::ErrInitialization: return CuNotInitialized;
    case abi::ErrInvalidDeviceFunction: return CuInvalidHandle;
    case abi::ErrInvalidSymbol: return CuNotFound;
    case abi::ErrInvalidConfiguration:
    case abi::ErrInvalidPitchValue:
    case abi::ErrInvalidDevicePointer:
    case abi::ErrInvalidMemcpyDirection:
    case abi::ErrInvalidValue: return CuInvalidValue;
    default: return e >= 100 ? e : CuUnknown;
  }
}

}  // namespace warpsim::cudart

namespace {

using ClsDestructor = void (*)(void* ctx, void* key, void* value);

// A context: every context is on device 0, the simulated GPU; the primary one is what the runtime
// uses. Context-local storage belongs to the private interface libcudart_static uses.
struct Context {
  bool primary = false;
  unsigned flags = 0;
  std::map<void*, std::pair<void*, ClsDestructor>> storage;
};

// A loaded module or library (one object serves as both CUmodule and CUlibrary).
struct Library;
// A kernel of a library (CUkernel and CUfunction are the same object). Its address is the key of
// its KernelEntry in State::kernels, so the runtime's launch path and attribute queries serve it.
struct Function {
  Library* lib = nullptr;
  std::string name;
};
struct Library {
  FatbinHandle* fatbin = nullptr;
  uint64_t wrapper[3] = {};  // a __fatBinC_Wrapper_t made for a bare fatbin container image
  std::vector<uint8_t> image;  // that container, copied (the caller may free its image)
  std::map<std::string, std::unique_ptr<Function>> functions;
};

struct DriverState {
  std::mutex mu;
  bool initialized = false;
  Context primary{true};
  int primary_refs = 0;
  std::set<Context*> contexts{&primary};
  std::set<Library*> libraries;
  std::set<const void*> functions;  // every Function handed out (State::kernels also holds host stubs)
};
DriverState& drv() {
  static auto* d = new DriverState();  // never destroyed: programs unload modules from atexit handlers
  return *d;
}
thread_local std::vector<Context*> t_stack;

Context* current() { return t_stack.empty() ? nullptr : t_stack.back(); }

int cu(int cuda_error) { return cu_result(cuda_error); }

int unsupported(const char* what) {
  static std::mutex m;
  static std::set<std::string> told;
  std::lock_guard g(m);
  if (told.insert(what).second)
    fmt::print(stderr, "warpsim: the CUDA driver function {} is not supported by the simulated device; returning "
                       "CUDA_ERROR_NOT_SUPPORTED\n", what);
  return CuNotSupported;
}

bool trace() { return State::instance().opts.trace; }

// ---------------------------------------------------------------- initialisation, devices

constexpr int kDeviceAttributeEnd = 160;  // above CU_DEVICE_ATTRIBUTE_MAX of CUDA 13.0 (149)

int cuInit_(unsigned flags) {
  if (flags != 0) return CuInvalidValue;
  State::get().driver_api_used = true;
  drv().initialized = true;
  return CuSuccess;
}
int cuDriverGetVersion_(int* v) {
  if (!v) return CuInvalidValue;
  *v = kDriverVersion;
  return CuSuccess;
}
int cuDeviceGetCount_(int* n) {
  if (!n) return CuInvalidValue;
  *n = 1;
  return CuSuccess;
}
int cuDeviceGet_(int* d, int ordinal) {
  if (!d) return CuInvalidValue;
  if (ordinal != 0) return CuInvalidDevice;
  *d = 0;
  return CuSuccess;
}
int cuDeviceGetAttribute_(int* v, int attr, int dev) {
  if (!v) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  if (cudaDeviceGetAttribute(v, attr, dev) == 0) return CuSuccess;
  // Attributes the runtime's table lacks (the runtime reads all of them to fill cudaDeviceProp)
  // read as 0, "not supported", within the range CUDA 13 defines.
  if (attr <= 0 || attr >= kDeviceAttributeEnd) return CuInvalidValue;
  if (trace()) fmt::print(stderr, "warpsim: trace: device attribute {} read as 0\n", attr);
  *v = 0;
  return CuSuccess;
}
int cuDeviceGetName_(char* name, int len, int dev) {
  if (!name || len <= 0) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  abi::DeviceProp p;
  if (int e = cudaGetDeviceProperties(&p, 0)) return cu(e);
  std::snprintf(name, size_t(len), "%s", p.name);
  return CuSuccess;
}
int cuDeviceTotalMem_(size_t* bytes, int dev) {
  if (!bytes) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  abi::DeviceProp p;
  if (int e = cudaGetDeviceProperties(&p, 0)) return cu(e);
  *bytes = p.totalGlobalMem;
  return CuSuccess;
}
int cuDeviceComputeCapability_(int* major, int* minor, int dev) {
  if (!major || !minor) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  abi::DeviceProp p;
  if (int e = cudaGetDeviceProperties(&p, 0)) return cu(e);
  *major = p.major;
  *minor = p.minor;
  return CuSuccess;
}
int cuDeviceGetUuid_(abi::Uuid* u, int dev) {
  if (!u) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  abi::DeviceProp p;
  if (int e = cudaGetDeviceProperties(&p, 0)) return cu(e);
  *u = p.uuid;
  return CuSuccess;
}
int cuDeviceGetPCIBusId_(char* id, int len, int dev) {
  if (dev != 0) return CuInvalidDevice;
  return cu(cudaDeviceGetPCIBusId(id, len, dev));
}
int cuDeviceGetByPCIBusId_(int* dev, const char* id) { return cu(cudaDeviceGetByPCIBusId(dev, id)); }
int cuDeviceCanAccessPeer_(int* can, int, int) {
  if (!can) return CuInvalidValue;
  *can = 0;
  return CuSuccess;
}
// One GPU (as our H100 machine answers): no peers.
int cuDeviceGetP2PAttribute_(int* v, int, int, int) { return v ? CuInvalidDevice : CuInvalidValue; }
int cuCtxEnablePeerAccess_(void*, unsigned) { return 217; }  // CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
int cuCtxDisablePeerAccess_(void*) { return 705; }          // CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
int cuDeviceGetDefaultMemPool_(void** pool, int dev) {
  if (dev != 0) return CuInvalidDevice;
  return cu(cudaDeviceGetDefaultMemPool(pool, dev));
}
// CUarray_format: the low nibble's element size for the integer formats (1, 2, 4 bytes for 0x1-0x3
// and 0x8-0xa), half 0x10, float 0x20; the compressed and video formats are refused.
int cuDeviceGetTexture1DLinearMaxWidth_(size_t* w, int format, unsigned channels, int dev) {
  if (!w) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  size_t bytes = 0;
  switch (format) {
    case 0x01: case 0x08: bytes = 1; break;
    case 0x02: case 0x09: case 0x10: bytes = 2; break;
    case 0x03: case 0x0a: case 0x20: bytes = 4; break;
    default: return CuInvalidValue;
  }
  if (channels != 1 && channels != 2 && channels != 4) return CuInvalidValue;
  *w = tex1d_linear_max_width(bytes * channels);
  return CuSuccess;
}

// ---------------------------------------------------------------- contexts

int cuDevicePrimaryCtxRetain_(void** ctx, int dev) {
  if (!ctx) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  std::lock_guard g(drv().mu);
  ++drv().primary_refs;
  *ctx = &drv().primary;
  return CuSuccess;
}
int cuDevicePrimaryCtxRelease_(int dev) {
  if (dev != 0) return CuInvalidDevice;
  std::lock_guard g(drv().mu);
  if (drv().primary_refs > 0) --drv().primary_refs;
  return CuSuccess;
}
int cuDevicePrimaryCtxGetState_(int dev, unsigned* flags, int* active) {
  if (!flags || !active) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  *flags = drv().primary.flags;
  *active = drv().primary_refs > 0;
  return CuSuccess;
}
int cuDevicePrimaryCtxSetFlags_(int dev, unsigned flags) {
  if (dev != 0) return CuInvalidDevice;
  drv().primary.flags = flags;
  return CuSuccess;
}
int cuDevicePrimaryCtxReset_(int dev) {
  if (dev != 0) return CuInvalidDevice;
  return cu(cudaDeviceSynchronize());
}
int cuCtxCreate_(void** ctx, unsigned flags, int dev) {
  if (!ctx) return CuInvalidValue;
  if (dev != 0) return CuInvalidDevice;
  std::lock_guard g(drv().mu);
  auto* c = new Context();
  c->flags = flags;
  drv().contexts.insert(c);
  t_stack.push_back(c);
  *ctx = c;
  return CuSuccess;
}
// cuCtxCreate_v4 (CUDA 12.5+) takes a CUctxCreateParams* before the flags.
int cuCtxCreate4_(void** ctx, void*, unsigned flags, int dev) { return cuCtxCreate_(ctx, flags, dev); }
int cuCtxDestroy_(void* ctx) {
  auto* c = static_cast<Context*>(ctx);
  std::lock_guard g(drv().mu);
  if (!drv().contexts.count(c) || c->primary) return CuInvalidContext;
  for (auto& [key, v] : c->storage)
    if (v.second) v.second(c, key, v.first);
  drv().contexts.erase(c);
  std::erase(t_stack, c);
  delete c;
  return CuSuccess;
}
int cuCtxGetCurrent_(void** ctx) {
  if (!ctx) return CuInvalidValue;
  *ctx = current();
  return CuSuccess;
}
int cuCtxSetCurrent_(void* ctx) {
  if (ctx && !drv().contexts.count(static_cast<Context*>(ctx))) return CuInvalidContext;
  if (!t_stack.empty()) t_stack.pop_back();
  if (ctx) t_stack.push_back(static_cast<Context*>(ctx));
  return CuSuccess;
}
int cuCtxPushCurrent_(void* ctx) {
  if (!ctx || !drv().contexts.count(static_cast<Context*>(ctx))) return CuInvalidContext;
  t_stack.push_back(static_cast<Context*>(ctx));
  return CuSuccess;
}
int cuCtxPopCurrent_(void** ctx) {
  if (t_stack.empty()) return CuInvalidContext;
  if (ctx) *ctx = t_stack.back();
  t_stack.pop_back();
  return CuSuccess;
}
int cuCtxGetDevice_(int* dev) {
  if (!dev) return CuInvalidValue;
  *dev = 0;
  return CuSuccess;
}
int cuCtxGetFlags_(unsigned* flags) {
  if (!flags) return CuInvalidValue;
  *flags = current() ? current()->flags : 0;
  return CuSuccess;
}
int cuCtxSetFlags_(unsigned flags) {
  if (current()) current()->flags = flags;
  return CuSuccess;
}
int cuCtxGetApiVersion_(void*, unsigned* v) {
  if (!v) return CuInvalidValue;
  *v = 3020;  // the context API version every context since CUDA 3.2 reports
  return CuSuccess;
}
int cuCtxGetId_(void* ctx, unsigned long long* id) {
  if (!id) return CuInvalidValue;
  *id = reinterpret_cast<uintptr_t>(ctx ? ctx : current());
  return CuSuccess;
}
int cuCtxSynchronize_() { return cu(cudaDeviceSynchronize()); }
int cuCtxGetLimit_(size_t* v, int limit) {
  // CU_LIMIT_SHMEM_SIZE, _CIG_ENABLED, _CIG_SHMEM_FALLBACK_ENABLED: limits of CUDA-in-graphics
  // contexts; ours is not one (cuBLASLt reads them while it starts).
  if (v && limit >= 7 && limit <= 9) {
    *v = 0;
    return CuSuccess;
  }
  return cu(cudaDeviceGetLimit(v, limit));
}
int cuCtxSetLimit_(int limit, size_t v) { return cu(cudaDeviceSetLimit(limit, v)); }
int cuCtxGetCacheConfig_(int* c) { return cu(cudaDeviceGetCacheConfig(c)); }
int cuCtxSetCacheConfig_(int c) { return cu(cudaDeviceSetCacheConfig(c)); }
int cuCtxGetSharedMemConfig_(int* c) {
  if (!c) return CuInvalidValue;
  *c = 1;  // CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE
  return CuSuccess;
}
int cuCtxSetSharedMemConfig_(int) { return CuSuccess; }
int cuCtxGetStreamPriorityRange_(int* least, int* greatest) {
  return cu(cudaDeviceGetStreamPriorityRange(least, greatest));
}
int cuCtxResetPersistingL2Cache_() { return cu(cudaCtxResetPersistingL2Cache()); }

// Context-local storage (the runtime's private interface; see driver_tables.cpp). A null context
// is the current one.
Context* cls_context(void* ctx) {
  auto* c = static_cast<Context*>(ctx ? ctx : current());
  return c && drv().contexts.count(c) ? c : nullptr;
}

}  // namespace

namespace warpsim::cudart {
int driver_cls_put(void* ctx, void* key, void* value, void* dtor) {
  std::lock_guard g(drv().mu);
  Context* c = cls_context(ctx);
  if (!c) return CuInvalidContext;
  c->storage[key] = {value, reinterpret_cast<ClsDestructor>(dtor)};
  return CuSuccess;
}
int driver_cls_delete(void* ctx, void* key) {
  std::lock_guard g(drv().mu);
  Context* c = cls_context(ctx);
  if (!c) return CuInvalidContext;
  c->storage.erase(key);
  return CuSuccess;
}
int driver_cls_get(void** value, void* ctx, void* key) {
  if (!value) return CuInvalidValue;
  std::lock_guard g(drv().mu);
  Context* c = cls_context(ctx);
  if (!c) return CuInvalidContext;
  auto it = c->storage.find(key);
  if (it == c->storage.end()) return CuInvalidValue;
  *value = it->second.first;
  return CuSuccess;
}
int driver_primary_context(void** ctx, int dev) { return cuDevicePrimaryCtxRetain_(ctx, dev); }
}  // namespace warpsim::cudart

namespace {

// ---------------------------------------------------------------- modules and libraries

bool is_ptx_text(const uint8_t* p) {
  // PTX as nvcc and NVRTC write it starts with comments or a .version directive.
  return (p[0] == '/' && (p[1] == '/' || p[1] == '*')) || std::strncmp(reinterpret_cast<const char*>(p), ".version", 8) == 0 ||
         p[0] == '\n' || p[0] == ' ' || p[0] == '\t';
}

// PTX of cubins NVRTC compiled in this process (libwarpsim_preload.so reports each one it hands
// out): a program that JIT-compiles for sm_80 and loads the cubin runs the PTX it came from.
struct CubinPtx {
  std::mutex mu;
  std::map<std::string, std::string> by_cubin;  // the cubin's bytes -> its PTX
};
CubinPtx& cubin_ptx() {
  static CubinPtx* c = new CubinPtx();
  return *c;
}
// The bytes an in-memory ELF image spans, from its headers (at most 1 GiB); 0 if malformed.
size_t elf_image_size(const uint8_t* p) {
  auto read = [p](uint64_t off, uint64_t n, std::vector<uint8_t>& out) {
    out.assign(p + off, p + off + n);
    return true;
  };
  return size_t(warpsim::cudart::elf64::image_extent(read, uint64_t(1) << 30));
}

// The PTX of a cubin NVRTC compiled here, if `p` is one.
bool nvrtc_ptx(const uint8_t* p, size_t file_size, std::string& ptx) {
  CubinPtx& c = cubin_ptx();
  std::lock_guard g(c.mu);
  // Only then is the image's extent read from its headers (a sizeless image is trusted that far).
  if (c.by_cubin.empty()) return false;
  const size_t n = file_size ? file_size : elf_image_size(p);
  if (!n) return false;
  auto it = c.by_cubin.find(std::string(reinterpret_cast<const char*>(p), n));
  if (it == c.by_cubin.end()) return false;
  ptx = it->second;
  return true;
}

int load_image(Library** out, const void* image, size_t file_size = 0) {
  if (!out || !image) return CuInvalidValue;
  auto lib = std::make_unique<Library>();
  auto h = std::make_unique<FatbinHandle>();
  const auto* p = static_cast<const uint8_t*>(image);
  uint32_t magic;
  std::memcpy(&magic, p, 4);
  if (magic == kWrapperMagic) {
    h->wrapper = image;
  } else if (magic == kFatbinMagic) {
    // A bare fatbin container (cuModuleLoadFatBinary, or a .fatbin file): wrapped as nvcc's host
    // code would wrap it (version 1: the container holds the code). From a file, whose size we
    // know, it is checked whole first: its header may not claim more than the file holds.
    if (file_size) {
      std::vector<FatbinEntry> entries;
      std::string err;
      if (!parse_fatbin(p, file_size, entries, err)) {
        fmt::print(stderr, "warpsim: cannot load the fatbinary: {}\n", err);
        return CuInvalidImage;
      }
    }
    // Kept: it is read at the first use of a kernel, after the caller may have freed its image.
    uint64_t size = 0;
    std::memcpy(&size, p + 8, 8);
    lib->image.assign(p, p + 16 + size);
    lib->wrapper[0] = uint64_t(kWrapperMagic) | (uint64_t(1) << 32);
    lib->wrapper[1] = reinterpret_cast<uintptr_t>(lib->image.data());
    h->wrapper = lib->wrapper;
  } else if (magic == 0x464c457f && nvrtc_ptx(p, file_size, h->ptx_text)) {
    // a cubin NVRTC made in this process: its PTX runs
  } else if (magic == 0x464c457f) {  // "\x7fELF": a cubin, SASS only
    // Said once: cuBLAS tries a dozen such cubins for one GEMM before it gives up.
    static std::atomic<unsigned> refused{0};
    if (refused++ == 0)
      fmt::print(stderr, "warpsim: a module was loaded from a cubin (SASS only); warpsim runs PTX, so it fails with "
                         "CUDA_ERROR_NO_BINARY_FOR_GPU (load PTX or a fatbinary that contains PTX; cuBLAS's GEMM "
                         "kernels come this way). Later such loads fail the same way without this note.\n");
    else if (trace())
      fmt::print(stderr, "warpsim: trace: SASS-only cubin #{} refused\n", refused.load());
    return CuNoBinaryForGpu;
  } else if (is_ptx_text(p)) {
    h->ptx_text = file_size ? std::string(reinterpret_cast<const char*>(p), file_size)
                            : std::string(reinterpret_cast<const char*>(p));
  } else {
    return CuInvalidImage;
  }
  State& s = State::get();
  std::lock_guard g(s.mu);
  lib->fatbin = h.get();
  s.fatbins.push_back(std::move(h));
  // PTX is loaded (and checked) now, as the driver JIT-compiles it now; fatbins on first use.
  if (!lib->fatbin->ptx_text.empty() && !s.ensure_loaded(*lib->fatbin)) {
    fmt::print(stderr, "warpsim: cannot load the PTX module: {}\n", lib->fatbin->error);
    return CuInvalidPtx;
  }
  std::lock_guard d(drv().mu);
  drv().libraries.insert(lib.get());
  *out = lib.release();
  return CuSuccess;
}

Library* as_library(void* h) {
  std::lock_guard d(drv().mu);
  auto* l = static_cast<Library*>(h);
  return drv().libraries.count(l) ? l : nullptr;
}

int cuModuleLoadData_(void** mod, const void* image) { return load_image(reinterpret_cast<Library**>(mod), image); }
}  // namespace
namespace warpsim::cudart {
bool driver_cubin_ptx(const void* cubin, size_t size, std::string& ptx) {
  const auto* p = static_cast<const uint8_t*>(cubin);
  uint32_t magic = 0;
  if (!p || (size && size < 4)) return false;
  std::memcpy(&magic, p, 4);
  return magic == 0x464c457f && nvrtc_ptx(p, size, ptx);
}
int driver_load_module(void** mod, const void* image) { return cuModuleLoadData_(mod, image); }
bool driver_tracing() {
  static const bool t = env_flag("WARPSIM_TRACE");
  return t;
}
int driver_module_kernels(void* mod, std::vector<void*>& out);
}  // namespace warpsim::cudart
namespace {
int cuModuleLoadDataEx_(void** mod, const void* image, unsigned, void*, void**) { return cuModuleLoadData_(mod, image); }
int cuModuleLoadFatBinary_(void** mod, const void* image) { return cuModuleLoadData_(mod, image); }
int cuModuleLoad_(void** mod, const char* path) {
  if (!mod || !path) return CuInvalidValue;
  std::ifstream f(path, std::ios::binary);
  if (!f) return CuFileNotFound;
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 16) return CuInvalidImage;
  bytes.push_back(0);
  return load_image(reinterpret_cast<Library**>(mod), bytes.data(), bytes.size() - 1);
}
int cuLibraryLoadData_(void** lib, const void* image, void*, void*, unsigned, void*, void*, unsigned) {
  return load_image(reinterpret_cast<Library**>(lib), image);
}
int cuLibraryLoadFromFile_(void** lib, const char* path, void*, void*, unsigned, void*, void*, unsigned) {
  return cuModuleLoad_(lib, path);
}
// Modules stay loaded (their kernels may still be queued); the handle stops being valid.
int cuModuleUnload_(void* mod) {
  std::lock_guard d(drv().mu);
  return drv().libraries.erase(static_cast<Library*>(mod)) ? CuSuccess : CuInvalidHandle;
}
int cuModuleGetLoadingMode_(int* mode) {
  if (!mode) return CuInvalidValue;
  *mode = 2;  // CU_MODULE_LAZY_LOADING: fatbins are read at the first use of one of their kernels
  return CuSuccess;
}
int cuLibraryGetModule_(void** mod, void* lib) {
  if (!mod || !as_library(lib)) return CuInvalidHandle;
  *mod = lib;
  return CuSuccess;
}

int get_function(void** out, void* handle, const char* name) {
  if (!out || !name) return CuInvalidValue;
  Library* lib = as_library(handle);
  if (!lib) return CuInvalidHandle;
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (auto it = lib->functions.find(name); it != lib->functions.end()) {
    *out = it->second.get();
    return CuSuccess;
  }
  if (!s.ensure_loaded(*lib->fatbin)) {
    fmt::print(stderr, "warpsim: kernel {} cannot run: {}\n", name, lib->fatbin->error);
    return lib->fatbin->error_code == abi::ErrNoKernelImageForDevice ? CuNoBinaryForGpu : CuInvalidPtx;
  }
  bool found = false;
  for (auto* m : lib->fatbin->modules) found |= m->kernel(name) != nullptr;
  if (!found) return CuNotFound;
  auto f = std::make_unique<Function>();
  f->lib = lib;
  f->name = name;
  KernelEntry k;
  k.fatbin = lib->fatbin;
  k.name = name;
  s.kernels[f.get()] = std::move(k);
  {
    std::lock_guard d(drv().mu);
    drv().functions.insert(f.get());
  }
  *out = f.get();
  lib->functions[name] = std::move(f);
  return CuSuccess;
}
int cuModuleGetFunction_(void** f, void* mod, const char* name) { return get_function(f, mod, name); }
int cuLibraryGetKernel_(void** k, void* lib, const char* name) { return get_function(k, lib, name); }
int cuKernelGetFunction_(void** f, void* k) {
  if (!f || !k) return CuInvalidValue;
  *f = k;
  return CuSuccess;
}

Function* as_function(void* f) {
  std::lock_guard d(drv().mu);
  return drv().functions.count(f) ? static_cast<Function*>(f) : nullptr;
}
// Driver functions are keyed in State::kernels by their own address; a runtime host stub is
// also accepted (cudaGetFuncBySymbol hands those out), so check membership only.
bool known_function(void* f) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  return s.kernels.count(f) != 0;
}

int cuLibraryGetKernelCount_(unsigned* n, void* lib) {
  Library* l = as_library(lib);
  if (!n || !l) return CuInvalidValue;
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!s.ensure_loaded(*l->fatbin)) return CuInvalidPtx;
  unsigned count = 0;
  for (auto* m : l->fatbin->modules)
    for (auto& f : m->loaded->ptx->funcs) count += f.is_entry;
  *n = count;
  return CuSuccess;
}
// The kernels of a library or module in the order its PTX defines them (cuModuleEnumerateFunctions,
// cuLibraryEnumerateKernels, and the tools table cuFFT asks for its one-kernel modules' kernel).
int enumerate_kernels(void* handle, std::vector<void*>& out) {
  Library* l = as_library(handle);
  if (!l) return CuInvalidHandle;
  std::vector<std::string> names;
  {
    State& s = State::get();
    std::lock_guard g(s.mu);
    if (!s.ensure_loaded(*l->fatbin)) {
      fmt::print(stderr, "warpsim: cannot list the kernels of a module: {}\n", l->fatbin->error);
      return CuInvalidPtx;
    }
    for (auto* m : l->fatbin->modules)
      for (auto& f : m->loaded->ptx->funcs)
        if (f.is_entry) names.push_back(f.name);
  }
  for (auto& n : names) {
    void* f = nullptr;
    if (int r = get_function(&f, handle, n.c_str()); r != CuSuccess) return r;
    out.push_back(f);
  }
  return CuSuccess;
}
int enumerate_into(void** fns, unsigned n, void* handle) {
  if (!fns) return CuInvalidValue;
  std::vector<void*> all;
  if (int r = enumerate_kernels(handle, all); r != CuSuccess) return r;
  // At most n handles ("a maximum number of numFunctions"), the first ones in the module's order.
  std::copy_n(all.begin(), std::min<size_t>(n, all.size()), fns);
  return CuSuccess;
}
}  // namespace
namespace warpsim::cudart {
int driver_module_kernels(void* mod, std::vector<void*>& out) { return enumerate_kernels(mod, out); }
}  // namespace warpsim::cudart
namespace {
int cuModuleEnumerateFunctions_(void** fns, unsigned n, void* mod) { return enumerate_into(fns, n, mod); }
int cuLibraryEnumerateKernels_(void** ks, unsigned n, void* lib) { return enumerate_into(ks, n, lib); }
int cuModuleGetFunctionCount_(unsigned* n, void* mod) { return cuLibraryGetKernelCount_(n, mod); }

int get_global(uint64_t* dptr, size_t* bytes, void* handle, const char* name) {
  if (!name) return CuInvalidValue;
  Library* lib = as_library(handle);
  if (!lib) return CuInvalidHandle;
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!s.ensure_loaded(*lib->fatbin)) return CuInvalidPtx;
  for (auto* m : lib->fatbin->modules)
    if (uint64_t a = m->variable(name)) {
      if (dptr) *dptr = a;
      if (bytes) {
        const ptx::Variable* v = m->loaded->ptx->find_variable(name);
        *bytes = v ? size_t(v->size_bytes()) : 0;
      }
      return CuSuccess;
    }
  return CuNotFound;
}
// A __managed__ variable: its host view mapped at its device address, as the runtime does it.
int cuLibraryGetManaged_(uint64_t* dptr, size_t* bytes, void* lib, const char* name) {
  uint64_t a = 0;
  size_t n = 0;
  if (int e = get_global(&a, &n, lib, name)) return e;
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!s.map_managed(a, n)) return CuOutOfMemory;
  if (dptr) *dptr = a;
  if (bytes) *bytes = n;
  return CuSuccess;
}
int cuModuleGetGlobal_(uint64_t* dptr, size_t* bytes, void* mod, const char* name) {
  return get_global(dptr, bytes, mod, name);
}
int cuLibraryGetGlobal_(uint64_t* dptr, size_t* bytes, void* lib, const char* name) {
  return get_global(dptr, bytes, lib, name);
}

// cuFuncGetAttribute's CUfunction_attribute numbers: 0 max threads per block, 1 static shared
// bytes, 2 constant bytes, 3 local bytes, 4 registers, 5 PTX version, 6 binary version, 7 cache
// mode CA, 8 max dynamic shared bytes, 9 preferred carveout; 10-15 cluster attributes.
int func_attribute(int* v, int attr, void* f) {
  if (!v) return CuInvalidValue;
  if (!known_function(f)) return CuInvalidHandle;
  abi::FuncAttributes a{};
  if (int e = cudaFuncGetAttributes(&a, f)) return cu(e);
  switch (attr) {
    case 0: *v = a.maxThreadsPerBlock; break;
    case 1: *v = int(a.sharedSizeBytes); break;
    case 2: *v = int(a.constSizeBytes); break;
    case 3: *v = int(a.localSizeBytes); break;
    case 4: *v = a.numRegs; break;
    case 5: *v = a.ptxVersion; break;
    case 6: *v = a.binaryVersion; break;
    case 7: *v = a.cacheModeCA; break;
    case 8: *v = a.maxDynamicSharedSizeBytes; break;
    case 9: *v = a.preferredShmemCarveout; break;
    case 10: *v = a.clusterDimMustBeSet; break;
    case 11: *v = a.requiredClusterWidth; break;
    case 12: *v = a.requiredClusterHeight; break;
    case 13: *v = a.requiredClusterDepth; break;
    case 14: *v = a.nonPortableClusterSizeAllowed; break;
    case 15: *v = a.clusterSchedulingPolicyPreference; break;
    default: return CuInvalidValue;
  }
  return CuSuccess;
}
int cuFuncGetAttribute_(int* v, int attr, void* f) { return func_attribute(v, attr, f); }
int cuKernelGetAttribute_(int* v, int attr, void* k, int) { return func_attribute(v, attr, k); }
int cuFuncSetAttribute_(void* f, int attr, int v) {
  if (!known_function(f)) return CuInvalidHandle;
  return cu(cudaFuncSetAttribute(f, attr, v));
}
int cuKernelSetAttribute_(int attr, int v, void* k, int) { return cuFuncSetAttribute_(k, attr, v); }
int cuFuncSetCacheConfig_(void* f, int c) {
  if (!known_function(f)) return CuInvalidHandle;
  return cu(cudaFuncSetCacheConfig(f, c));
}
int cuKernelSetCacheConfig_(void* k, int c, int) { return cuFuncSetCacheConfig_(k, c); }
int cuFuncSetSharedMemConfig_(void* f, int) { return known_function(f) ? CuSuccess : CuInvalidHandle; }
int cuFuncGetName_(const char** name, void* f) {
  Function* fn = as_function(f);
  if (!name || !fn) return CuInvalidValue;
  *name = fn->name.c_str();
  return CuSuccess;
}
int cuFuncGetModule_(void** mod, void* f) {
  Function* fn = as_function(f);
  if (!mod || !fn) return CuInvalidValue;
  *mod = fn->lib;
  return CuSuccess;
}
int cuKernelGetLibrary_(void** lib, void* k) { return cuFuncGetModule_(lib, k); }
int cuFuncIsLoaded_(int* state, void* f) {
  if (!state) return CuInvalidValue;
  *state = 1;  // CU_FUNCTION_LOADING_STATE_LOADED
  return known_function(f) ? CuSuccess : CuInvalidHandle;
}
int cuFuncLoad_(void* f) { return known_function(f) ? CuSuccess : CuInvalidHandle; }

// The kernel's PTX, resolved (and its module loaded) for parameter queries and `extra` launches.
const ptx::Function* resolved_kernel(void* f) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto it = s.kernels.find(f);
  if (it == s.kernels.end() || s.resolve(it->second)) return nullptr;
  return it->second.fn;
}
int cuFuncGetParamInfo_(void* f, size_t index, size_t* offset, size_t* size) {
  const ptx::Function* fn = resolved_kernel(f);
  if (!fn) return CuInvalidHandle;
  if (index >= fn->params.size()) return CuInvalidValue;
  auto offs = func::param_offsets(*fn);
  if (offset) *offset = offs[index];
  if (size) *size = fn->params[index].size_bytes();
  return CuSuccess;
}
int cuKernelGetParamInfo_(void* k, size_t index, size_t* offset, size_t* size) {
  return cuFuncGetParamInfo_(k, index, offset, size);
}
int cuFuncGetParamCount_(void* f, size_t* n) {
  const ptx::Function* fn = resolved_kernel(f);
  if (!fn) return CuInvalidHandle;
  if (!n) return CuInvalidValue;
  *n = fn->params.size();
  return CuSuccess;
}

int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_(int* n, void* f, int block, size_t smem, unsigned flags) {
  if (!known_function(f)) return CuInvalidHandle;
  return cu(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, block, smem, flags));
}
int cuOccupancyAvailableDynamicSMemPerBlock_(size_t* dyn, void* f, int blocks, int block) {
  if (!known_function(f)) return CuInvalidHandle;
  return cu(cudaOccupancyAvailableDynamicSMemPerBlock(dyn, f, blocks, block));
}
int cuOccupancyMaxActiveBlocksPerMultiprocessor_(int* n, void* f, int block, size_t smem) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_(n, f, block, smem, 0);
}
// The block size with the most resident threads (ties: the larger block), as the driver's
// calculator picks it; `smem_of` gives the dynamic shared memory a block size needs.
int cuOccupancyMaxPotentialBlockSizeWithFlags_(int* min_grid, int* block_size, void* f, size_t (*smem_of)(int),
                                               size_t smem, int limit, unsigned flags) {
  if (!min_grid || !block_size) return CuInvalidValue;
  if (!known_function(f)) return CuInvalidHandle;
  abi::FuncAttributes a{};
  if (int e = cudaFuncGetAttributes(&a, f)) return cu(e);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, 16, 0);  // multiprocessor count
  int max_block = a.maxThreadsPerBlock;
  if (limit > 0) max_block = std::min(max_block, limit);
  int best = 0, best_threads = 0, best_blocks = 0;
  for (int b = 32; b <= max_block; b += 32) {
    int n = 0;
    const size_t dyn = smem_of ? smem_of(b) : smem;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, b, dyn, flags)) continue;
    if (n * b >= best_threads) {
      best_threads = n * b;
      best = b;
      best_blocks = n;
    }
  }
  *block_size = best;
  *min_grid = best_blocks * sms;
  return CuSuccess;
}
int cuOccupancyMaxPotentialBlockSize_(int* min_grid, int* block_size, void* f, size_t (*smem_of)(int), size_t smem,
                                      int limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags_(min_grid, block_size, f, smem_of, smem, limit, 0);
}

// ---------------------------------------------------------------- launches

// CU_LAUNCH_PARAM_END / _BUFFER_POINTER / _BUFFER_SIZE (and the _AS_INT spellings).
constexpr uintptr_t kParamEnd = 0, kParamBufferPointer = 1, kParamBufferSize = 2;

int launch(void* f, abi::Dim3 grid, abi::Dim3 block, unsigned smem, void* stream, void** params, void** extra,
           bool cooperative) {
  if (!known_function(f)) return CuInvalidHandle;
  std::vector<void*> args;
  if (!params && extra) {
    // The arguments packed in one buffer at the PTX parameters' offsets.
    const uint8_t* buf = nullptr;
    size_t size = 0;
    for (size_t i = 0; extra[i] != reinterpret_cast<void*>(kParamEnd); i += 2) {
      const auto key = reinterpret_cast<uintptr_t>(extra[i]);
      if (key == kParamBufferPointer) buf = static_cast<const uint8_t*>(extra[i + 1]);
      else if (key == kParamBufferSize) size = extra[i + 1] ? *static_cast<size_t*>(extra[i + 1]) : 0;
      else return CuInvalidValue;
    }
    const ptx::Function* fn = resolved_kernel(f);
    if (!fn) return CuInvalidHandle;
    auto offs = func::param_offsets(*fn);
    if (!offs.empty() && (!buf || offs.back() + fn->params.back().size_bytes() > size)) return CuInvalidValue;
    for (size_t o : offs) args.push_back(const_cast<uint8_t*>(buf + o));
    params = args.data();
  }
  return cu(launch_kernel(f, grid, block, params, smem, stream, nullptr, cooperative));
}
int cuLaunchKernel_(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                    unsigned smem, void* stream, void** params, void** extra) {
  return launch(f, {gx, gy, gz}, {bx, by, bz}, smem, stream, params, extra, false);
}
int cuLaunchCooperativeKernel_(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned smem, void* stream, void** params) {
  return launch(f, {gx, gy, gz}, {bx, by, bz}, smem, stream, params, nullptr, true);
}
// CUlaunchConfig: the grid and block as six unsigned, the shared bytes, the stream, then the
// attributes, which are laid out as the runtime's cudaLaunchAttribute (same ids and values).
struct CuLaunchConfig {
  unsigned grid[3], block[3], smem;
  void* stream;
  abi::LaunchAttribute* attrs;
  unsigned num_attrs;
};
int cuLaunchKernelEx_(const CuLaunchConfig* c, void* f, void** params, void** extra) {
  if (!c) return CuInvalidValue;
  if (!known_function(f)) return CuInvalidHandle;
  if (!params && extra) {
    bool only_plain = true;
    for (unsigned i = 0; i < c->num_attrs; ++i) only_plain &= c->attrs[i].id == 0;
    if (c->num_attrs && !only_plain) return unsupported("cuLaunchKernelEx (attributes with `extra` arguments)");
    return launch(f, {c->grid[0], c->grid[1], c->grid[2]}, {c->block[0], c->block[1], c->block[2]}, c->smem,
                  c->stream, nullptr, extra, false);
  }
  abi::LaunchConfig rc{{c->grid[0], c->grid[1], c->grid[2]}, {c->block[0], c->block[1], c->block[2]}, c->smem,
                       c->stream, c->attrs, c->num_attrs};
  return cu(cudaLaunchKernelExC(&rc, f, params));
}
// The cluster occupancy queries take the same CUlaunchConfig; cuBLAS's handle creation asks
// cuOccupancyMaxActiveClusters on sm_90 and fails (CUBLAS_STATUS_INTERNAL_ERROR) without an answer.
int cuOccupancyMaxActiveClusters_(int* n, void* f, const CuLaunchConfig* c) {
  if (!c || !n) return CuInvalidValue;
  if (!known_function(f)) return CuInvalidHandle;
  abi::LaunchConfig rc{{c->grid[0], c->grid[1], c->grid[2]}, {c->block[0], c->block[1], c->block[2]}, c->smem,
                       c->stream, c->attrs, c->num_attrs};
  return cu(cudaOccupancyMaxActiveClusters(n, f, &rc));
}
int cuOccupancyMaxPotentialClusterSize_(int* n, void* f, const CuLaunchConfig* c) {
  if (!c || !n) return CuInvalidValue;
  if (!known_function(f)) return CuInvalidHandle;
  abi::LaunchConfig rc{{c->grid[0], c->grid[1], c->grid[2]}, {c->block[0], c->block[1], c->block[2]}, c->smem,
                       c->stream, c->attrs, c->num_attrs};
  return cu(cudaOccupancyMaxPotentialClusterSize(n, f, &rc));
}
int cuLaunchHostFunc_(void* stream, void (*fn)(void*), void* user) { return cu(cudaLaunchHostFunc(stream, fn, user)); }

// ---------------------------------------------------------------- memory

int cuMemAlloc_(uint64_t* dptr, size_t n) {
  if (!dptr) return CuInvalidValue;
  if (n == 0) return CuInvalidValue;
  void* p = nullptr;
  if (int e = cudaMalloc(&p, n)) return cu(e);
  *dptr = reinterpret_cast<uintptr_t>(p);
  return CuSuccess;
}
int cuMemFree_(uint64_t dptr) { return cu(cudaFree(reinterpret_cast<void*>(dptr))); }
int cuMemAllocPitch_(uint64_t* dptr, size_t* pitch, size_t w, size_t h, unsigned elem) {
  if (!dptr || !pitch || !(elem == 4 || elem == 8 || elem == 16)) return CuInvalidValue;
  void* p = nullptr;
  if (int e = cudaMallocPitch(&p, pitch, w, h)) return cu(e);
  *dptr = reinterpret_cast<uintptr_t>(p);
  return CuSuccess;
}
int cuMemGetInfo_(size_t* free, size_t* total) { return cu(cudaMemGetInfo(free, total)); }
int cuMemAllocManaged_(uint64_t* dptr, size_t n, unsigned flags) {
  if (!dptr) return CuInvalidValue;
  void* p = nullptr;
  if (int e = cudaMallocManaged(&p, n, flags)) return cu(e);
  *dptr = reinterpret_cast<uintptr_t>(p);
  return CuSuccess;
}
int cuMemHostAlloc_(void** p, size_t n, unsigned flags) { return cu(cudaHostAlloc(p, n, flags)); }
int cuMemAllocHost_(void** p, size_t n) { return cu(cudaHostAlloc(p, n, 0)); }
int cuMemFreeHost_(void* p) { return cu(cudaFreeHost(p)); }
int cuMemHostGetDevicePointer_(uint64_t* dptr, void* p, unsigned flags) {
  if (!dptr) return CuInvalidValue;
  void* d = nullptr;
  if (int e = cudaHostGetDevicePointer(&d, p, flags)) return cu(e);
  *dptr = reinterpret_cast<uintptr_t>(d);
  return CuSuccess;
}
int cuMemHostGetFlags_(unsigned* flags, void* p) { return cu(cudaHostGetFlags(flags, p)); }
int cuMemHostRegister_(void* p, size_t n, unsigned flags) { return cu(cudaHostRegister(p, n, flags)); }
int cuMemHostUnregister_(void* p) { return cu(cudaHostUnregister(p)); }
int cuMemGetAddressRange_(uint64_t* base, size_t* size, uint64_t dptr) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const mem::Allocation* a = s.dev->memory().find(dptr);
  if (!a) return CuNotFound;
  if (base) *base = a->addr;
  if (size) *size = a->size;
  return CuSuccess;
}
int cuMemAllocAsync_(uint64_t* dptr, size_t n, void* stream) {
  if (!dptr) return CuInvalidValue;
  void* p = nullptr;
  if (int e = cudaMallocAsync(&p, n, stream)) return cu(e);
  *dptr = reinterpret_cast<uintptr_t>(p);
  return CuSuccess;
}
int cuMemFreeAsync_(uint64_t dptr, void* stream) { return cu(cudaFreeAsync(reinterpret_cast<void*>(dptr), stream)); }
int cuMemAllocFromPoolAsync_(uint64_t* dptr, size_t n, void* pool, void* stream) {
  if (!dptr) return CuInvalidValue;
  void* p = nullptr;
  if (int e = cudaMallocFromPoolAsync(&p, n, pool, stream)) return cu(e);
  *dptr = reinterpret_cast<uintptr_t>(p);
  return CuSuccess;
}
int cuMemPoolSetAttribute_(void* pool, int attr, void* v) { return cu(cudaMemPoolSetAttribute(pool, attr, v)); }
int cuMemPoolGetAttribute_(void* pool, int attr, void* v) { return cu(cudaMemPoolGetAttribute(pool, attr, v)); }
int cuMemPoolTrimTo_(void* pool, size_t keep) { return cu(cudaMemPoolTrimTo(pool, keep)); }
int cuMemPoolDestroy_(void* pool) { return cu(cudaMemPoolDestroy(pool)); }
// CUmemPoolProps is laid out as the runtime's cudaMemPoolProps.
int cuMemPoolCreate_(void** pool, const void* props) { return cu(cudaMemPoolCreate(pool, props)); }
int cuStreamAttachMemAsync_(void*, uint64_t, size_t, unsigned) { return CuSuccess; }  // one memory, always attached
// The simulator profiles every kernel anyway.
int cuProfilerStart_() { return CuSuccess; }
int cuProfilerStop_() { return CuSuccess; }

int copy(uint64_t dst, uint64_t src, size_t n, void* stream, bool async) {
  auto* d = reinterpret_cast<void*>(dst);
  auto* s = reinterpret_cast<const void*>(src);
  return cu(async ? cudaMemcpyAsync(d, s, n, abi::Default, stream) : cudaMemcpy(d, s, n, abi::Default));
}
int cuMemcpy_(uint64_t dst, uint64_t src, size_t n) { return copy(dst, src, n, nullptr, false); }
int cuMemcpyAsync_(uint64_t dst, uint64_t src, size_t n, void* st) { return copy(dst, src, n, st, true); }
int cuMemcpyHtoD_(uint64_t dst, const void* src, size_t n) { return copy(dst, uintptr_t(src), n, nullptr, false); }
int cuMemcpyDtoH_(void* dst, uint64_t src, size_t n) { return copy(uintptr_t(dst), src, n, nullptr, false); }
int cuMemcpyDtoD_(uint64_t dst, uint64_t src, size_t n) { return copy(dst, src, n, nullptr, false); }
int cuMemcpyHtoDAsync_(uint64_t dst, const void* src, size_t n, void* st) { return copy(dst, uintptr_t(src), n, st, true); }
int cuMemcpyDtoHAsync_(void* dst, uint64_t src, size_t n, void* st) { return copy(uintptr_t(dst), src, n, st, true); }
int cuMemcpyDtoDAsync_(uint64_t dst, uint64_t src, size_t n, void* st) { return copy(dst, src, n, st, true); }
int cuMemcpyPeer_(uint64_t dst, void*, uint64_t src, void*, size_t n) { return copy(dst, src, n, nullptr, false); }
int cuMemcpyPeerAsync_(uint64_t dst, void*, uint64_t src, void*, size_t n, void* st) { return copy(dst, src, n, st, true); }

}  // namespace
namespace warpsim::cudart {
// The runtime counts an array end's x position and the extent's width in elements, the driver in
// bytes: divided by the array's element size.
int memcpy3d_params(const CuMemcpy3D& c, abi::Memcpy3DParms& p) {
  p = abi::Memcpy3DParms{};
  size_t elem = 0;
  auto side = [&](int type, const void* host, uint64_t device, void* array, size_t pitch, size_t height, size_t x,
                  size_t y, size_t z, void*& out_array, abi::PitchedPtr& ptr, abi::Pos& pos) -> int {
    pos = {x, y, z};
    if (type == 3) {  // CU_MEMORYTYPE_ARRAY
      abi::ChannelFormatDesc f{};
      abi::Extent e{};
      if (cudaArrayGetInfo(&f, &e, nullptr, array)) return CuInvalidHandle;
      const size_t bytes = size_t(f.x + f.y + f.z + f.w) / 8;
      if (!bytes || x % bytes) return CuInvalidValue;
      elem = bytes;
      out_array = array;
      pos.x = x / bytes;
      return CuSuccess;
    }
    if (type != 1 && type != 2 && type != 4) return CuInvalidValue;
    ptr = {type == 1 ? const_cast<void*>(host) : reinterpret_cast<void*>(device), pitch ? pitch : c.width, c.width,
           height ? height : c.height};
    return CuSuccess;
  };
  if (int e = side(c.src_type, c.src_host, c.src_device, c.src_array, c.src_pitch, c.src_height, c.src_x, c.src_y,
                   c.src_z, p.srcArray, p.srcPtr, p.srcPos))
    return e;
  if (int e = side(c.dst_type, c.dst_host, c.dst_device, c.dst_array, c.dst_pitch, c.dst_height, c.dst_x, c.dst_y,
                   c.dst_z, p.dstArray, p.dstPtr, p.dstPos))
    return e;
  if (elem && c.width % elem) return CuInvalidValue;
  p.extent = {elem ? c.width / elem : c.width, std::max<size_t>(1, c.height), std::max<size_t>(1, c.depth)};
  // The direction the memory types name (host 1, device 2, array 3 as device), so that the copy
  // reads back as the runtime made it; unified memory (4) lets the pointers decide.
  auto dev = [](int t) { return t == 2 || t == 3; };
  if ((c.src_type == 1 || dev(c.src_type)) && (c.dst_type == 1 || dev(c.dst_type)))
    p.kind = c.src_type == 1 ? (c.dst_type == 1 ? abi::HostToHost : abi::HostToDevice)
                             : (c.dst_type == 1 ? abi::DeviceToHost : abi::DeviceToDevice);
  else
    p.kind = abi::Default;
  return CuSuccess;
}
}  // namespace warpsim::cudart
namespace {

// CUDA_MEMCPY2D (cuda.h), laid out as CUDA_MEMCPY3D without its z, LOD and height fields.
struct CuMemcpy2D {
  size_t src_x, src_y;
  int src_type;
  const void* src_host;
  uint64_t src_device;
  void* src_array;
  size_t src_pitch;
  size_t dst_x, dst_y;
  int dst_type;
  void* dst_host;
  uint64_t dst_device;
  void* dst_array;
  size_t dst_pitch;
  size_t width, height;
};
// A CUDA_MEMCPY2D as the CUDA_MEMCPY3D of depth 1 it is.
CuMemcpy3D as_3d(const CuMemcpy2D& c) {
  CuMemcpy3D d{};
  d.src_x = c.src_x, d.src_y = c.src_y, d.src_type = c.src_type, d.src_host = c.src_host, d.src_device = c.src_device;
  d.src_array = c.src_array, d.src_pitch = c.src_pitch;
  d.dst_x = c.dst_x, d.dst_y = c.dst_y, d.dst_type = c.dst_type, d.dst_host = c.dst_host, d.dst_device = c.dst_device;
  d.dst_array = c.dst_array, d.dst_pitch = c.dst_pitch;
  d.width = c.width, d.height = c.height, d.depth = 1;
  return d;
}
int copy_3d(const CuMemcpy3D* c, void* stream, bool async) {
  if (!c) return CuInvalidValue;
  if (trace())
    fmt::print(stderr, "warpsim: trace: copy src type {} host {} dev 0x{:x} array {} pitch {} height {} pos ({},{},{}); "
                       "dst type {} host {} dev 0x{:x} array {} pitch {} height {} pos ({},{},{}); {} x {} x {} bytes\n",
               c->src_type, c->src_host, c->src_device, c->src_array, c->src_pitch, c->src_height, c->src_x, c->src_y,
               c->src_z, c->dst_type, static_cast<void*>(c->dst_host), c->dst_device, c->dst_array, c->dst_pitch,
               c->dst_height, c->dst_x, c->dst_y, c->dst_z, c->width, c->height, c->depth);
  abi::Memcpy3DParms p{};
  if (int e = memcpy3d_params(*c, p)) return e;
  return cu(async ? cudaMemcpy3DAsync(&p, stream) : cudaMemcpy3D(&p));
}
int cuMemcpy2D_(const CuMemcpy2D* c) {
  if (!c) return CuInvalidValue;
  const CuMemcpy3D d = as_3d(*c);
  return copy_3d(&d, nullptr, false);
}
int cuMemcpy2DAsync_(const CuMemcpy2D* c, void* st) {
  if (!c) return CuInvalidValue;
  const CuMemcpy3D d = as_3d(*c);
  return copy_3d(&d, st, true);
}
int cuMemcpy3D_(const CuMemcpy3D* c) { return copy_3d(c, nullptr, false); }
int cuMemcpy3DAsync_(const CuMemcpy3D* c, void* st) { return copy_3d(c, st, true); }
// CUDA_MEMCPY3D_PEER is CUDA_MEMCPY3D with the two reserved fields as contexts, all on device 0.
int cuMemcpy3DPeer_(const CuMemcpy3D* c) { return copy_3d(c, nullptr, false); }
int cuMemcpy3DPeerAsync_(const CuMemcpy3D* c, void* st) { return copy_3d(c, st, true); }
// No third-party device writes to flush (cudaDeviceFlushGPUDirectRDMAWrites).
int cuFlushGPUDirectRDMAWrites_(int target, int scope) {
  return target == 0 && (scope == 100 || scope == 200) ? CuSuccess : CuInvalidValue;
}

// cuMemsetD8/16/32 and their 2D forms: a byte value goes through cudaMemset; a wider pattern
// whose bytes differ is written from a host copy of the pattern.
int fill(uint64_t dst, size_t pitch, const void* value, unsigned elem, size_t width, size_t height, void* stream,
         bool async) {
  const auto* v = static_cast<const uint8_t*>(value);
  bool uniform = true;
  for (unsigned i = 1; i < elem; ++i) uniform &= v[i] == v[0];
  if (!pitch) pitch = width * elem;
  if (uniform) {
    for (size_t r = 0; r < height; ++r) {
      auto* d = reinterpret_cast<void*>(dst + r * pitch);
      if (int e = async ? cudaMemsetAsync(d, v[0], width * elem, stream) : cudaMemset(d, v[0], width * elem))
        return cu(e);
    }
    return CuSuccess;
  }
  std::vector<uint8_t> row(width * elem);
  for (size_t i = 0; i < width; ++i) std::memcpy(row.data() + i * elem, v, elem);
  // Synchronous even for the Async forms: the host copy of the pattern goes away on return.
  for (size_t r = 0; r < height; ++r)
    if (int e = cudaMemcpy(reinterpret_cast<void*>(dst + r * pitch), row.data(), row.size(), abi::Default)) return cu(e);
  return CuSuccess;
}
int cuMemsetD8_(uint64_t d, unsigned char v, size_t n) { return fill(d, 0, &v, 1, n, 1, nullptr, false); }
int cuMemsetD16_(uint64_t d, unsigned short v, size_t n) { return fill(d, 0, &v, 2, n, 1, nullptr, false); }
int cuMemsetD32_(uint64_t d, unsigned v, size_t n) { return fill(d, 0, &v, 4, n, 1, nullptr, false); }
int cuMemsetD8Async_(uint64_t d, unsigned char v, size_t n, void* st) { return fill(d, 0, &v, 1, n, 1, st, true); }
int cuMemsetD16Async_(uint64_t d, unsigned short v, size_t n, void* st) { return fill(d, 0, &v, 2, n, 1, st, true); }
int cuMemsetD32Async_(uint64_t d, unsigned v, size_t n, void* st) { return fill(d, 0, &v, 4, n, 1, st, true); }
int cuMemsetD2D8_(uint64_t d, size_t p, unsigned char v, size_t w, size_t h) { return fill(d, p, &v, 1, w, h, nullptr, false); }
int cuMemsetD2D16_(uint64_t d, size_t p, unsigned short v, size_t w, size_t h) { return fill(d, p, &v, 2, w, h, nullptr, false); }
int cuMemsetD2D32_(uint64_t d, size_t p, unsigned v, size_t w, size_t h) { return fill(d, p, &v, 4, w, h, nullptr, false); }
int cuMemsetD2D8Async_(uint64_t d, size_t p, unsigned char v, size_t w, size_t h, void* st) { return fill(d, p, &v, 1, w, h, st, true); }
int cuMemsetD2D16Async_(uint64_t d, size_t p, unsigned short v, size_t w, size_t h, void* st) { return fill(d, p, &v, 2, w, h, st, true); }
int cuMemsetD2D32Async_(uint64_t d, size_t p, unsigned v, size_t w, size_t h, void* st) { return fill(d, p, &v, 4, w, h, st, true); }

// cuPointerGetAttribute: 1 context, 2 memory type (1 host, 2 device), 3 device pointer, 4 host
// pointer, 8 is managed, 9 device ordinal, 11 range start, 12 range size, 13 mapped.
int pointer_attribute(void* data, int attr, uint64_t ptr) {
  if (!data) return CuInvalidValue;
  abi::PointerAttributes a{};
  cudaPointerGetAttributes(&a, reinterpret_cast<void*>(ptr));
  const bool known = a.type != 0;
  State& s = State::get();
  const mem::Allocation* al = nullptr;
  {
    std::lock_guard g(s.mu);
    al = s.dev->memory().find(ptr);
  }
  switch (attr) {
    case 1:
      if (!known) return CuInvalidValue;
      *static_cast<void**>(data) = &drv().primary;
      return CuSuccess;
    case 2:
      if (!known) return CuInvalidValue;
      *static_cast<unsigned*>(data) = a.type == 1 ? 1u : 2u;
      return CuSuccess;
    case 3:
      if (!known || !a.devicePointer) return CuInvalidValue;
      *static_cast<uint64_t*>(data) = reinterpret_cast<uintptr_t>(a.devicePointer);
      return CuSuccess;
    case 4:
      if (!known || !a.hostPointer) return CuInvalidValue;
      *static_cast<void**>(data) = a.hostPointer;
      return CuSuccess;
    case 8: *static_cast<int*>(data) = a.type == 3; return CuSuccess;
    case 9:
      if (!known) return CuInvalidValue;
      *static_cast<int*>(data) = 0;
      return CuSuccess;
    case 11:
    case 12:
      if (!al) return CuInvalidValue;
      if (attr == 11) *static_cast<uint64_t*>(data) = al->addr;
      else *static_cast<size_t*>(data) = al->size;
      return CuSuccess;
    case 13: *static_cast<int*>(data) = known; return CuSuccess;
    case 5: *static_cast<uint64_t*>(data) = 0; return CuSuccess;  // P2P tokens: none
    case 6: *static_cast<int*>(data) = 0; return CuSuccess;       // SYNC_MEMOPS
    case 7: *static_cast<unsigned long long*>(data) = al ? al->addr : ptr; return CuSuccess;  // BUFFER_ID
    default: return CuInvalidValue;
  }
}
int cuPointerGetAttribute_(void* data, int attr, uint64_t ptr) { return pointer_attribute(data, attr, ptr); }
int cuPointerGetAttributes_(unsigned n, int* attrs, void** data, uint64_t ptr) {
  if (n && (!attrs || !data)) return CuInvalidValue;
  for (unsigned i = 0; i < n; ++i) {
    // Unlike the single query, an attribute a pointer does not have reads as zero.
    int e = pointer_attribute(data[i], attrs[i], ptr);
    if (e == CuInvalidValue && data[i]) std::memset(data[i], 0, attrs[i] == 1 || attrs[i] == 4 || attrs[i] >= 11 ? 8 : 4);
  }
  return CuSuccess;
}

// ---------------------------------------------------------------- streams and events

int cuStreamCreate_(void** st, unsigned flags) { return cu(cudaStreamCreateWithPriority(st, flags, 0)); }
int cuStreamCreateWithPriority_(void** st, unsigned flags, int prio) {
  return cu(cudaStreamCreateWithPriority(st, flags, prio));
}
int cuStreamDestroy_(void* st) { return cu(cudaStreamDestroy(st)); }
int cuStreamSynchronize_(void* st) { return cu(cudaStreamSynchronize(st)); }
int cuStreamQuery_(void* st) { return cu(cudaStreamQuery(st)); }
int cuStreamWaitEvent_(void* st, void* ev, unsigned flags) { return cu(cudaStreamWaitEvent(st, ev, flags)); }
int cuStreamGetFlags_(void* st, unsigned* flags) { return cu(cudaStreamGetFlags(st, flags)); }
int cuStreamGetPriority_(void* st, int* prio) { return cu(cudaStreamGetPriority(st, prio)); }
// CUstreamAttrValue and its ids are the runtime's cudaLaunchAttributeValue and ids.
int cuStreamSetAttribute_(void* st, int attr, const abi::LaunchAttributeValue* v) {
  return cu(cudaStreamSetAttribute(st, attr, v));
}
int cuStreamGetAttribute_(void* st, int attr, abi::LaunchAttributeValue* v) {
  return cu(cudaStreamGetAttribute(st, attr, v));
}
int cuStreamCopyAttributes_(void* dst, void* src) { return cu(cudaStreamCopyAttributes(dst, src)); }
int cuStreamGetCtx_(void*, void** ctx) {
  if (!ctx) return CuInvalidValue;
  *ctx = &drv().primary;
  return CuSuccess;
}
int cuStreamGetDevice_(void*, int* dev) {
  if (!dev) return CuInvalidValue;
  *dev = 0;
  return CuSuccess;
}
int cuStreamGetId_(void* st, unsigned long long* id) {
  if (!id) return CuInvalidValue;
  *id = reinterpret_cast<uintptr_t>(st);
  return CuSuccess;
}
int cuStreamAddCallback_(void* st, void (*cb)(void*, int, void*), void* user, unsigned flags) {
  return cu(cudaStreamAddCallback(st, reinterpret_cast<void (*)(abi::Stream, abi::Error, void*)>(cb), user, flags));
}
int cuThreadExchangeStreamCaptureMode_(int* mode) {
  if (!mode) return CuInvalidValue;
  return CuSuccess;
}
int cuEventCreate_(void** ev, unsigned flags) { return cu(cudaEventCreateWithFlags(ev, flags)); }
int cuEventDestroy_(void* ev) { return cu(cudaEventDestroy(ev)); }
int cuEventRecord_(void* ev, void* st) { return cu(cudaEventRecord(ev, st)); }
int cuEventRecordWithFlags_(void* ev, void* st, unsigned) { return cu(cudaEventRecord(ev, st)); }
int cuEventSynchronize_(void* ev) { return cu(cudaEventSynchronize(ev)); }
int cuEventQuery_(void* ev) { return cu(cudaEventQuery(ev)); }
int cuEventElapsedTime_(float* ms, void* a, void* b) { return cu(cudaEventElapsedTime(ms, a, b)); }

// ---------------------------------------------------------------- errors

struct CuErrorText {
  int code;
  const char* name;
  const char* text;
};
constexpr CuErrorText kCuErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};
int cuGetErrorString_(int e, const char** s) {
  if (!s) return CuInvalidValue;
  for (auto& x : kCuErrors)
    if (x.code == e) {
      *s = x.text;
      return CuSuccess;
    }
  if (const ErrorInfo* i = find_error(e)) {  // the runtime's text for the shared codes
    *s = i->text;
    return CuSuccess;
  }
  *s = nullptr;
  return CuInvalidValue;
}
int cuGetErrorName_(int e, const char** s) {
  if (!s) return CuInvalidValue;
  for (auto& x : kCuErrors)
    if (x.code == e) {
      *s = x.name;
      return CuSuccess;
    }
  *s = nullptr;
  return CuInvalidValue;
}

int cuGetExportTable_(const void** table, const uint8_t* id) {
  if (!table || !id) return CuInvalidValue;
  *table = driver_export_table(id);
  if (getenv("WARPSIM_DRIVER_TRACE")) fmt::print(stderr, "warpsim: driver: export table {:02x}{:02x}{:02x}{:02x} -> {}\n", id[0], id[1], id[2], id[3], *table);
  if (!*table) {
    if (trace()) {
      std::string hex;
      for (int i = 0; i < 16; ++i) hex += fmt::format("{:02x}", id[i]);
      fmt::print(stderr, "warpsim: trace: cuGetExportTable of unknown table {}\n", hex);
    }
    return CuNotSupported;
  }
  return CuSuccess;
}

// ---------------------------------------------------------------- lookup

int cuGetProcAddress_(const char* name, void** fn, int version, unsigned long long flags, int* status);
int cuGetProcAddress1_(const char* name, void** fn, int version, unsigned long long flags);

struct Entry {
  const char* name;
  void* fn;
};
// Under WARPSIM_TRACE every driver call is logged with its result.
template <auto F>
struct Traced;
template <typename... A, int (*F)(A...)>
struct Traced<F> {
  static inline const char* name = nullptr;
  static int call(A... a) {
    const int r = F(a...);
    fmt::print(stderr, "warpsim: trace: {} -> {}\n", name, r);
    return r;
  }
};
template <auto F>
void* entry(const char* name) {
  if (!driver_tracing()) return reinterpret_cast<void*>(F);
  Traced<F>::name = name;
  return reinterpret_cast<void*>(&Traced<F>::call);
}
#define E(n) {#n, entry<&n##_>(#n)}
#define EA(n, impl) {#n, entry<&impl##_>(#n)}
const std::vector<Entry>& entries() {
  static const std::vector<Entry> kEntries = {
    E(cuInit), E(cuDriverGetVersion), E(cuDeviceGetCount), E(cuDeviceGet), E(cuDeviceGetAttribute),
    E(cuDeviceGetName), E(cuDeviceTotalMem), E(cuDeviceComputeCapability), E(cuDeviceGetUuid),
    EA(cuDeviceGetUuid_v2, cuDeviceGetUuid), E(cuDeviceGetPCIBusId), E(cuDeviceGetByPCIBusId),
    E(cuDeviceCanAccessPeer), E(cuDeviceGetP2PAttribute), E(cuDeviceGetDefaultMemPool), E(cuCtxEnablePeerAccess),
    E(cuCtxDisablePeerAccess),
    EA(cuDeviceGetMemPool, cuDeviceGetDefaultMemPool), E(cuDeviceGetTexture1DLinearMaxWidth),
    E(cuDevicePrimaryCtxRetain), E(cuDevicePrimaryCtxRelease), E(cuDevicePrimaryCtxGetState),
    E(cuDevicePrimaryCtxSetFlags), E(cuDevicePrimaryCtxReset), E(cuCtxCreate), E(cuCtxDestroy),
    EA(cuCtxDetach, cuCtxDestroy), E(cuCtxGetCurrent), E(cuCtxSetCurrent), E(cuCtxPushCurrent),
    E(cuCtxPopCurrent), E(cuCtxGetDevice), E(cuCtxGetFlags), E(cuCtxSetFlags), E(cuCtxGetApiVersion),
    E(cuCtxGetId), E(cuCtxSynchronize), E(cuCtxGetLimit), E(cuCtxSetLimit), E(cuCtxGetCacheConfig),
    E(cuCtxSetCacheConfig), E(cuCtxGetSharedMemConfig), E(cuCtxSetSharedMemConfig),
    E(cuCtxGetStreamPriorityRange), E(cuCtxResetPersistingL2Cache), E(cuModuleLoad), E(cuModuleLoadData),
    E(cuModuleLoadDataEx), E(cuModuleLoadFatBinary), E(cuModuleUnload), E(cuModuleGetFunction),
    E(cuModuleGetGlobal), E(cuModuleGetLoadingMode), E(cuLibraryLoadData), E(cuLibraryLoadFromFile),
    EA(cuLibraryUnload, cuModuleUnload), E(cuLibraryGetKernel), E(cuLibraryGetModule), E(cuKernelGetFunction),
    E(cuLibraryGetGlobal), E(cuLibraryGetManaged), E(cuLibraryGetKernelCount), E(cuLibraryEnumerateKernels), E(cuModuleGetFunctionCount),
    E(cuModuleEnumerateFunctions), E(cuKernelGetAttribute), E(cuKernelSetAttribute),
    E(cuKernelSetCacheConfig), EA(cuKernelGetName, cuFuncGetName), E(cuKernelGetParamInfo), E(cuKernelGetLibrary),
    E(cuFuncGetAttribute), E(cuFuncSetAttribute), E(cuFuncSetCacheConfig), E(cuFuncSetSharedMemConfig),
    E(cuFuncGetName), E(cuFuncGetModule), E(cuFuncGetParamInfo), E(cuFuncGetParamCount), E(cuFuncIsLoaded),
    E(cuFuncLoad), E(cuOccupancyMaxActiveBlocksPerMultiprocessor),
    E(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags), E(cuOccupancyMaxPotentialBlockSize),
    E(cuOccupancyMaxPotentialBlockSizeWithFlags), E(cuOccupancyMaxActiveClusters),
    E(cuOccupancyMaxPotentialClusterSize), E(cuLaunchKernel), E(cuLaunchCooperativeKernel),
    E(cuLaunchKernelEx), E(cuLaunchHostFunc), E(cuMemAlloc), E(cuMemFree), E(cuMemAllocPitch), E(cuMemGetInfo),
    E(cuMemAllocManaged), E(cuMemHostAlloc), E(cuMemAllocHost), E(cuMemFreeHost), E(cuMemHostGetDevicePointer),
    E(cuMemHostGetFlags), E(cuMemHostRegister), E(cuMemHostUnregister), E(cuMemGetAddressRange),
    E(cuMemAllocAsync), E(cuMemFreeAsync), E(cuMemAllocFromPoolAsync), E(cuMemPoolSetAttribute),
    E(cuMemPoolGetAttribute), E(cuMemPoolTrimTo), E(cuMemPoolDestroy), E(cuMemPoolCreate), E(cuStreamAttachMemAsync), E(cuProfilerStart), E(cuProfilerStop),
    E(cuOccupancyAvailableDynamicSMemPerBlock),
    E(cuMemcpy), E(cuMemcpyAsync), E(cuMemcpyHtoD), E(cuMemcpyDtoH), E(cuMemcpyDtoD), E(cuMemcpyHtoDAsync),
    E(cuMemcpyDtoHAsync), E(cuMemcpyDtoDAsync), E(cuMemcpyPeer), E(cuMemcpyPeerAsync), E(cuMemcpy2D),
    EA(cuMemcpy2DUnaligned, cuMemcpy2D), E(cuMemcpy2DAsync), E(cuMemcpy3D), E(cuMemcpy3DAsync), E(cuMemcpy3DPeer), E(cuMemcpy3DPeerAsync),
    E(cuFlushGPUDirectRDMAWrites), E(cuMemsetD8),
    E(cuMemsetD16), E(cuMemsetD32), E(cuMemsetD8Async), E(cuMemsetD16Async), E(cuMemsetD32Async), E(cuMemsetD2D8),
    E(cuMemsetD2D16), E(cuMemsetD2D32), E(cuMemsetD2D8Async), E(cuMemsetD2D16Async), E(cuMemsetD2D32Async),
    E(cuPointerGetAttribute), E(cuPointerGetAttributes), E(cuStreamCreate), E(cuStreamCreateWithPriority),
    E(cuStreamDestroy), E(cuStreamSynchronize), E(cuStreamQuery), E(cuStreamWaitEvent), E(cuStreamGetFlags),
    E(cuStreamGetPriority), E(cuStreamSetAttribute), E(cuStreamGetAttribute), E(cuStreamCopyAttributes),
    E(cuStreamGetCtx), E(cuStreamGetDevice), E(cuStreamGetId), E(cuStreamAddCallback),
    E(cuThreadExchangeStreamCaptureMode), E(cuEventCreate),
    E(cuEventDestroy), E(cuEventRecord), E(cuEventRecordWithFlags), E(cuEventSynchronize), E(cuEventQuery),
    E(cuEventElapsedTime), E(cuGetErrorString), E(cuGetErrorName), E(cuGetExportTable),
  };
  return kEntries;
}
#undef E
#undef EA

// The version-suffixed names cuda.h maps the API to (cuMemAlloc -> cuMemAlloc_v2): a program that
// links libcuda directly calls these; cuGetProcAddress takes the base name and a version.
std::string base_name(const char* name) {
  std::string n = name;
  for (const char* suffix : {"_ptds", "_ptsz"})
    if (n.size() > 5 && n.compare(n.size() - 5, 5, suffix) == 0) n.resize(n.size() - 5);
  if (size_t v = n.rfind("_v"); v != std::string::npos && v + 2 < n.size() &&
                                  n.find_first_not_of("0123456789", v + 2) == std::string::npos)
    n.resize(v);
  return n;
}

// A function we do not provide: callable (the runtime looks up every driver function it may use
// at start-up and calls few), and it explains itself when called.
constexpr int kStubSlots = 1024;
const char* g_stub_names[kStubSlots];
int g_stub_count = 0;
template <int I>
int stub() {
  return unsupported(g_stub_names[I]);
}
template <int... I>
std::array<void*, sizeof...(I)> make_stubs(std::integer_sequence<int, I...>) {
  return {reinterpret_cast<void*>(&stub<I>)...};
}
// Built on first use: libcuda.so.1 resolves its symbols from its constructor, which may run before
// this library's static initialisers.
const std::array<void*, kStubSlots>& stubs() {
  static const auto all = make_stubs(std::make_integer_sequence<int, kStubSlots>{});
  return all;
}

int stub_overflow() { return unsupported("(a driver function beyond the first 1024 warpsim lacks)"); }

void* stub_for(const std::string& name) {
  static std::mutex m;
  static std::map<std::string, void*> made;
  std::lock_guard g(m);
  if (auto it = made.find(name); it != made.end()) return it->second;
  if (g_stub_count == kStubSlots) return reinterpret_cast<void*>(&stub_overflow);
  g_stub_names[g_stub_count] = strdup(name.c_str());
  return made[name] = stubs()[size_t(g_stub_count++)];
}

int cuGetProcAddress1_(const char* name, void** fn, int version, unsigned long long flags) {
  return cuGetProcAddress_(name, fn, version, flags, nullptr);
}
int cuGetProcAddress_(const char* name, void** fn, int version, unsigned long long flags, int* status) {
  if (!name || !fn) return CuInvalidValue;
  const std::string base = base_name(name);
  if (getenv("WARPSIM_DRIVER_TRACE")) fmt::print(stderr, "warpsim: driver: lookup {} {}\n", name, version);
  // cuGetProcAddress before 12.0 has no status argument.
  if (base == "cuGetProcAddress") {
    *fn = version >= 12000 ? reinterpret_cast<void*>(&cuGetProcAddress_) : reinterpret_cast<void*>(&cuGetProcAddress1_);
    if (status) *status = 0;
    return CuSuccess;
  }
  // Graphs and stream capture (driver_graph.cpp), arrays and texture objects (driver_texture.cpp),
  // tensor maps (driver_tensormap.cpp).
  void* g = driver_graph_entry(base, name, version);
  if (!g) g = driver_texture_entry(base);
  if (!g) g = driver_tensormap_entry(base);
  if (!g) g = driver_link_entry(base);
  if (!g) g = driver_vmm_entry(base);
  if (!g) g = driver_managed_entry(base, name, version);
  if (g) {
    *fn = g;
    if (status) *status = 0;
    return CuSuccess;
  }
  // cuCtxCreate_v3 (11.4 on) takes execution-affinity parameters: not supported.
  if (std::strcmp(name, "cuCtxCreate_v3") == 0 || (base == "cuCtxCreate" && version >= 11040 && version < 12050)) {
    *fn = stub_for("cuCtxCreate_v3");
    if (status) *status = 0;
    return CuSuccess;
  }
  // cuCtxCreate from 12.5 on is the _v4 form, which takes creation parameters first.
  if (base == "cuCtxCreate" && (version >= 12050 || std::strcmp(name, "cuCtxCreate_v4") == 0)) {
    *fn = reinterpret_cast<void*>(&cuCtxCreate4_);
    if (status) *status = 0;
    return CuSuccess;
  }
  for (const Entry& e : entries())
    if (base == e.name) {
      *fn = e.fn;
      if (status) *status = 0;  // CU_GET_PROC_ADDRESS_SUCCESS
      return CuSuccess;
    }
  if (trace()) fmt::print(stderr, "warpsim: trace: cuGetProcAddress({}, {}, {}): not provided\n", name, version, flags);
  *fn = stub_for(base);
  if (status) *status = 0;
  return *fn ? CuSuccess : CuNotFound;
}

}  // namespace

// The one entry point libcuda.so.1 needs: any driver function by name (cuGetProcAddress itself
// included), with the version the caller asks for.
// Called by libwarpsim_preload.so for every cubin NVRTC hands the program, with the PTX it was
// compiled from.
extern "C" WARPSIM_EXPORT void warpsim_cubin_ptx(const void* cubin, size_t cubin_size, const char* ptx, size_t ptx_size) {
  if (!cubin || !ptx || !cubin_size) return;
  CubinPtx& c = cubin_ptx();
  std::lock_guard g(c.mu);
  c.by_cubin[std::string(static_cast<const char*>(cubin), cubin_size)] = std::string(ptx, strnlen(ptx, ptx_size));
}

extern "C" WARPSIM_EXPORT void* warpsim_driver_proc(const char* name, int version) {
  void* fn = nullptr;
  cuGetProcAddress_(name, &fn, version, 0, nullptr);
  return fn;
}
