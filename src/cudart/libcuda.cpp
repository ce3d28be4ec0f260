// libcuda.so.1 as `warpsim run` presents it: the CUDA driver's entry points, forwarded to the
// driver API that libcudart (ours) implements on the simulated device (driver_api.cpp). Programs
// built with nvcc's default static runtime, and libraries that carry that runtime (cuBLAS, cuFFT,
// the cuRAND host API), dlopen libcuda.so.1 and find every driver function through
// cuGetProcAddress; programs linked with -lcuda call the exported names directly.
//
// The implementation is found in the process (a program built with -cudart shared has loaded our
// libcudart.so.13 already) or loaded from beside this library, so that the runtime and the driver
// always share one simulated device. Without it the library would fail silently where no driver is
// installed, or reach a real GPU's driver (with pointers into simulated memory) where one is.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
using Proc = void* (*)(const char* name, int version);

Proc driver() {
  static Proc proc = [] {
    void* sym = dlsym(RTLD_DEFAULT, "warpsim_driver_proc");
    if (!sym) {
      Dl_info info{};
      std::string path = "libcudart.so.13";
      if (dladdr(reinterpret_cast<void*>(&driver), &info) && info.dli_fname) {
        std::string self = info.dli_fname;
        if (size_t slash = self.rfind('/'); slash != std::string::npos) path = self.substr(0, slash + 1) + path;
      }
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) sym = dlsym(h, "warpsim_driver_proc");
      if (!sym) std::fprintf(stderr, "warpsim: libcuda.so.1 cannot find the simulator (%s): %s\n", path.c_str(), dlerror());
    }
    return reinterpret_cast<Proc>(sym);
  }();
  return proc;
}

template <typename F>
F fn(const char* name, int version = 0) {
  Proc p = driver();
  return p ? reinterpret_cast<F>(p(name, version)) : nullptr;
}
constexpr int kNotInitialized = 3, kNotFound = 500;
}  // namespace

#define WARPSIM_DRIVER_EXPORT extern "C" __attribute__((visibility("default")))

WARPSIM_DRIVER_EXPORT int cuGetProcAddress_v2(const char* name, void** pfn, int version, unsigned long long flags,
                                              int* status) {
  if (!name || !pfn) return 1;
  Proc p = driver();
  if (!p) return kNotInitialized;
  *pfn = p(name, version);
  if (status) *status = *pfn ? 0 : 1;  // CU_GET_PROC_ADDRESS_SUCCESS / _SYMBOL_NOT_FOUND
  return *pfn ? 0 : kNotFound;
}
WARPSIM_DRIVER_EXPORT int cuGetProcAddress(const char* name, void** pfn, int version, unsigned long long flags) {
  return cuGetProcAddress_v2(name, pfn, version, flags, nullptr);
}
WARPSIM_DRIVER_EXPORT int cuGetExportTable(const void** table, const void* id) {
  auto f = fn<int (*)(const void**, const void*)>("cuGetExportTable");
  return f ? f(table, id) : kNotInitialized;
}
WARPSIM_DRIVER_EXPORT int cuInit(unsigned flags) {
  auto f = fn<int (*)(unsigned)>("cuInit");
  return f ? f(flags) : kNotInitialized;
}
WARPSIM_DRIVER_EXPORT int cuDriverGetVersion(int* v) {
  auto f = fn<int (*)(int*)>("cuDriverGetVersion");
  return f ? f(v) : kNotInitialized;
}
WARPSIM_DRIVER_EXPORT int cuGetErrorString(int error, const char** str) {
  auto f = fn<int (*)(int, const char**)>("cuGetErrorString");
  return f ? f(error, str) : kNotInitialized;
}
WARPSIM_DRIVER_EXPORT int cuGetErrorName(int error, const char** str) {
  auto f = fn<int (*)(int, const char**)>("cuGetErrorName");
  return f ? f(error, str) : kNotInitialized;
}

// The names cuda.h makes a program that links -lcuda call (cuMemAlloc is cuMemAlloc_v2, and so on).
// Each is a jump through a slot that the constructor below fills with our implementation, so any
// signature passes through untouched.
#define WARPSIM_DRIVER_SYMBOLS(X)                                                                              \
  X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName) X(cuDeviceTotalMem_v2) X(cuDeviceGetAttribute)         \
  X(cuDeviceComputeCapability) X(cuDeviceGetUuid) X(cuDeviceGetUuid_v2) X(cuDeviceGetPCIBusId)                  \
  X(cuDeviceGetByPCIBusId) X(cuDeviceCanAccessPeer) X(cuDeviceGetP2PAttribute) X(cuDeviceGetDefaultMemPool)    \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) X(cuDevicePrimaryCtxGetState)                    \
  X(cuDevicePrimaryCtxSetFlags_v2) X(cuDevicePrimaryCtxReset_v2) X(cuCtxCreate_v2) X(cuCtxCreate_v4)           \
  X(cuCtxDestroy_v2) X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxPushCurrent_v2) X(cuCtxPopCurrent_v2)        \
  X(cuCtxGetDevice) X(cuCtxGetFlags) X(cuCtxSetFlags) X(cuCtxGetApiVersion) X(cuCtxSynchronize)               \
  X(cuCtxGetLimit) X(cuCtxSetLimit) X(cuCtxGetCacheConfig) X(cuCtxSetCacheConfig)                              \
  X(cuCtxGetStreamPriorityRange) X(cuModuleLoad) X(cuModuleLoadData) X(cuModuleLoadDataEx)                     \
  X(cuModuleLoadFatBinary) X(cuModuleUnload) X(cuModuleGetFunction) X(cuModuleGetGlobal_v2)                   \
  X(cuModuleGetLoadingMode) X(cuLibraryLoadData) X(cuLibraryLoadFromFile) X(cuLibraryUnload)                  \
  X(cuLibraryGetKernel) X(cuLibraryGetModule) X(cuKernelGetFunction) X(cuLibraryGetGlobal)                    \
  X(cuKernelGetAttribute) X(cuKernelSetAttribute) X(cuKernelGetName) X(cuFuncGetAttribute)                    \
  X(cuFuncSetAttribute) X(cuFuncSetCacheConfig) X(cuFuncGetName) X(cuFuncGetParamInfo)                       \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)      \
  X(cuOccupancyMaxPotentialBlockSize) X(cuLaunchKernel) X(cuLaunchCooperativeKernel) X(cuLaunchKernelEx)      \
  X(cuLaunchHostFunc) X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemAllocPitch_v2) X(cuMemGetInfo_v2)                \
  X(cuMemAllocManaged) X(cuMemHostAlloc) X(cuMemAllocHost_v2) X(cuMemFreeHost) X(cuMemHostGetDevicePointer_v2) \
  X(cuMemHostGetFlags) X(cuMemHostRegister_v2) X(cuMemHostUnregister) X(cuMemGetAddressRange_v2)               \
  X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuMemcpy) X(cuMemcpyAsync) X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2)       \
  X(cuMemcpyDtoD_v2) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoDAsync_v2) X(cuMemcpy2D_v2)  \
  X(cuMemcpy2DUnaligned_v2) X(cuMemcpy2DAsync_v2) X(cuMemcpy3D_v2) X(cuMemcpy3DAsync_v2) X(cuMemsetD8_v2)      \
  X(cuMemsetD16_v2) X(cuMemsetD32_v2) X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async)               \
  X(cuMemsetD2D8_v2) X(cuMemsetD2D16_v2) X(cuMemsetD2D32_v2) X(cuPointerGetAttribute)                           \
  X(cuPointerGetAttributes) X(cuStreamCreate) X(cuStreamCreateWithPriority) X(cuStreamDestroy_v2)              \
  X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent) X(cuStreamGetFlags) X(cuStreamGetPriority)     \
  X(cuStreamAddCallback) X(cuEventCreate) X(cuEventDestroy_v2) X(cuEventRecord) X(cuEventSynchronize)          \
  X(cuEventQuery) X(cuEventElapsedTime) X(cuEventElapsedTime_v2)

// Read by the trampolines below; filled before main (or when the runtime dlopens this library).
#define X(n) extern "C" __attribute__((visibility("hidden"))) void* warpsim_slot_##n;
WARPSIM_DRIVER_SYMBOLS(X)
#undef X
#define X(n) void* warpsim_slot_##n = nullptr;
WARPSIM_DRIVER_SYMBOLS(X)
#undef X

__attribute__((constructor)) static void resolve_driver_symbols() {
  Proc p = driver();
  if (!p) return;
#define X(n) warpsim_slot_##n = p(#n, 0);
  WARPSIM_DRIVER_SYMBOLS(X)
#undef X
}

#define X(n) \
  asm(".text\n.globl " #n "\n.type " #n ",@function\n" #n ":\n  jmp *warpsim_slot_" #n "(%rip)\n.size " #n ",.-" #n "\n");
WARPSIM_DRIVER_SYMBOLS(X)
#undef X
