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

// Every other driver function, for programs linked with -lcuda and libraries that dlsym them: a
// jump through a slot that the constructor below fills with our implementation (or a stub that
// explains itself), so any signature passes through untouched.
#include "cudart/libcuda_exports.inc"

#define X(n) extern "C" __attribute__((visibility("hidden"))) void* warpsim_slot_##n;
#define L(n) X(n)
WARPSIM_DRIVER_EXPORTS(X, L)
#undef X
#undef L
#define X(n) void* warpsim_slot_##n = nullptr;
#define L(n) X(n)
WARPSIM_DRIVER_EXPORTS(X, L)
#undef X
#undef L

__attribute__((constructor)) static void resolve_driver_symbols() {
  Proc p = driver();
  if (!p) return;
#define X(n) warpsim_slot_##n = p(#n, 0);
#define L(n) warpsim_slot_##n = p(#n " (the CUDA 3.1 ABI)", 0);
  WARPSIM_DRIVER_EXPORTS(X, L)
#undef X
#undef L
}

#define X(n) \
  asm(".text\n.globl " #n "\n.type " #n ",@function\n" #n ":\n  jmp *warpsim_slot_" #n "(%rip)\n.size " #n ",.-" #n "\n");
#define L(n) X(n)
WARPSIM_DRIVER_EXPORTS(X, L)
#undef X
#undef L
