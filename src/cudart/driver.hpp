// The CUDA driver API (cuda.h) on the simulated device, for programs that reach it: those linked
// with nvcc's default static runtime (libcudart_static.a drives the GPU through libcuda.so.1) and
// libraries that link that runtime statically. The functions live in libcudart beside the runtime
// API, on the same State, so that a program's runtime calls and its libraries' driver calls see
// one device. libcuda.so.1 (libcuda.cpp) forwards to them through warpsim_driver_proc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudart/abi.hpp"

namespace warpsim::cudart {

// CUresult values (cuda.h) that this layer returns.
enum CuResult : int {
  CuSuccess = 0,
  CuInvalidValue = 1,
  CuOutOfMemory = 2,
  CuNotInitialized = 3,
  CuDeinitialized = 4,
  CuNoDevice = 100,
  CuInvalidDevice = 101,
  CuInvalidImage = 200,
  CuInvalidContext = 201,
  CuNoBinaryForGpu = 209,
  CuInvalidPtx = 218,
  CuFileNotFound = 301,
  CuInvalidHandle = 400,
  CuNotFound = 500,
  CuNotReady = 600,
  CuLaunchOutOfResources = 701,
  CuNotPermitted = 800,
  CuNotSupported = 801,
  CuUnknown = 999,
};

// The CUresult for a cudaError_t from the runtime layer (the runtime's codes from 100 on are the
// driver's; the lower ones are the runtime's own).
int cu_result(int cuda_error);

// The driver's version (cuDriverGetVersion), also hashed into the runtime's integrity check.
constexpr int kDriverVersion = 13000;

// CUDA_MEMCPY3D (cuda.h). Memory types: 1 host, 2 device, 3 array, 4 unified.
struct CuMemcpy3D {
  size_t src_x, src_y, src_z, src_lod;
  int src_type;
  const void* src_host;
  uint64_t src_device;
  void* src_array;
  void* reserved0;
  size_t src_pitch, src_height;
  size_t dst_x, dst_y, dst_z, dst_lod;
  int dst_type;
  void* dst_host;
  uint64_t dst_device;
  void* dst_array;
  void* reserved1;
  size_t dst_pitch, dst_height;
  size_t width, height, depth;
};
// The runtime's cudaMemcpy3DParms for a driver copy; a CUresult.
int memcpy3d_params(const CuMemcpy3D& c, abi::Memcpy3DParms& p);

// WARPSIM_TRACE, read once: whether driver calls and private-table calls are logged. Read without
// the runtime's State, which the driver's entry table must not build at load time.
bool driver_tracing();

// Pieces of the driver API the private export tables call (driver_api.cpp).
int driver_load_module(void** mod, const void* image);
// The kernels of a module (or library), in the order its PTX defines them.
int driver_module_kernels(void* mod, std::vector<void*>& out);
int driver_primary_context(void** ctx, int dev);
int driver_cls_put(void* ctx, void* key, void* value, void* dtor);
int driver_cls_delete(void* ctx, void* key);
int driver_cls_get(void** value, void* ctx, void* key);

// The graph and stream-capture function `name` (base name `base`, without version suffix) for a
// caller of API `version` (driver_graph.cpp); null if it is not one.
void* driver_graph_entry(const std::string& base, const char* name, int version);

// The array and texture/surface-object function `base` (driver_texture.cpp); null if it is not one.
void* driver_texture_entry(const std::string& base);

// The tensor-map function `base` (driver_tensormap.cpp); null if it is not one.
void* driver_tensormap_entry(const std::string& base);
// The JIT linker (cuLink*) function `base` (driver_link.cpp); null if it is not one.
void* driver_link_entry(const std::string& base);
// The virtual memory management function `base` (cuMemCreate, cuMemMap, ...; driver_vmm.cpp).
void* driver_vmm_entry(const std::string& base);
// Unified-memory hints and batched copies (cuMemAdvise, cuMemPrefetchAsync, cuMemRangeGetAttribute,
// cuMemcpyBatchAsync, ...; driver_managed.cpp) for a caller of API `version`.
void* driver_managed_entry(const std::string& base, const char* name, int version);
// The PTX a cubin NVRTC compiled in this process came from (`size` 0: read from its ELF headers);
// false if `cubin` is not one of those (driver_api.cpp).
bool driver_cubin_ptx(const void* cubin, size_t size, std::string& ptx);

// A private export table of the driver (cuGetExportTable), by its 16-byte id; null if unknown.
const void* driver_export_table(const uint8_t id[16]);

}  // namespace warpsim::cudart
