// The runtime's library management (CUDA 12.x: cudaLibraryLoadData, cudaLibraryGetKernel, ...) and
// the kernel-handle queries around it (cudaGetFuncBySymbol, cudaFuncGetParamInfo; cudaGetKernel is in
// api_launch.cpp).
// Libraries are the driver's (driver_api.cpp: cuLibrary*), reached through warpsim_driver_proc as
// libcudart does; a cudaKernel_t is the driver's CUkernel, which the runtime's launch functions
// accept like a kernel's host stub (both are keys of State::kernels). The driver's results that
// these calls return (invalid value, handle, symbol not found, file not found, PTX and image
// errors) have the same numbers as the runtime's errors.
#include <cstddef>

#include "cudart/abi.hpp"
#include "cudart/export.hpp"
#include "cudart/state.hpp"
#include "func/engine.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

extern "C" void* warpsim_driver_proc(const char* name, int version);
extern "C" abi::Error cudaFuncSetAttribute(const void* func, int attr, int value);

namespace {
template <class F>
F* drv(const char* name) {
  return reinterpret_cast<F*>(warpsim_driver_proc(name, 12000));
}
int from_cu(int r) { return r ? ret(r) : 0; }
}  // namespace

CUDART_API abi::Error cudaLibraryLoadData(void** lib, const void* code, void* jitOptions, void** jitValues,
                                          unsigned numJit, void* libOptions, void** libValues, unsigned numLib) {
  if (!lib || !code) return ret(abi::ErrInvalidValue);
  using F = int(void**, const void*, void*, void*, unsigned, void*, void*, unsigned);
  return from_cu(drv<F>("cuLibraryLoadData")(lib, code, jitOptions, jitValues, numJit, libOptions, libValues, numLib));
}
CUDART_API abi::Error cudaLibraryLoadFromFile(void** lib, const char* path, void* jitOptions, void** jitValues,
                                              unsigned numJit, void* libOptions, void** libValues, unsigned numLib) {
  if (!lib || !path) return ret(abi::ErrInvalidValue);
  using F = int(void**, const char*, void*, void*, unsigned, void*, void*, unsigned);
  return from_cu(drv<F>("cuLibraryLoadFromFile")(lib, path, jitOptions, jitValues, numJit, libOptions, libValues, numLib));
}
CUDART_API abi::Error cudaLibraryUnload(void* lib) { return from_cu(drv<int(void*)>("cuLibraryUnload")(lib)); }
CUDART_API abi::Error cudaLibraryGetKernel(void** kernel, void* lib, const char* name) {
  if (!kernel || !name) return ret(abi::ErrInvalidValue);
  return from_cu(drv<int(void**, void*, const char*)>("cuLibraryGetKernel")(kernel, lib, name));
}
CUDART_API abi::Error cudaLibraryGetKernelCount(unsigned* count, void* lib) {
  if (!count) return ret(abi::ErrInvalidValue);
  return from_cu(drv<int(unsigned*, void*)>("cuLibraryGetKernelCount")(count, lib));
}
CUDART_API abi::Error cudaLibraryEnumerateKernels(void** kernels, unsigned n, void* lib) {
  if (!kernels) return ret(abi::ErrInvalidValue);
  return from_cu(drv<int(void**, unsigned, void*)>("cuLibraryEnumerateKernels")(kernels, n, lib));
}
namespace {
// cuLibraryGetGlobal / cuLibraryGetManaged: a device address as a pointer.
abi::Error library_symbol(const char* fn, void** dptr, size_t* bytes, void* lib, const char* name) {
  if (!name) return ret(abi::ErrInvalidValue);
  uint64_t p = 0;
  const int e = drv<int(uint64_t*, size_t*, void*, const char*)>(fn)(&p, bytes, lib, name);
  if (!e && dptr) *dptr = reinterpret_cast<void*>(p);
  return from_cu(e);
}
}  // namespace
CUDART_API abi::Error cudaLibraryGetGlobal(void** dptr, size_t* bytes, void* lib, const char* name) {
  return library_symbol("cuLibraryGetGlobal", dptr, bytes, lib, name);
}
CUDART_API abi::Error cudaLibraryGetManaged(void** dptr, size_t* bytes, void* lib, const char* name) {
  return library_symbol("cuLibraryGetManaged", dptr, bytes, lib, name);
}
// Device functions are not handed out as host-callable pointers by the simulator.
CUDART_API abi::Error cudaLibraryGetUnifiedFunction(void** fptr, void* lib, const char* name) {
  if (!fptr || !name) return ret(abi::ErrInvalidValue);
  using F = int(void**, void*, const char*);
  if (auto* f = drv<F>("cuLibraryGetUnifiedFunction")) return from_cu(f(fptr, lib, name));
  return ret(abi::ErrSymbolNotFound);
}

// One device: the same attribute as for every device.
CUDART_API abi::Error cudaKernelSetAttributeForDevice(void* kernel, int attr, int value, int device) {
  if (device != 0) return ret(abi::ErrInvalidDevice);
  return cudaFuncSetAttribute(kernel, attr, value);
}

// The CUfunction of a kernel's host stub: the stub itself (the driver accepts it, driver_api.cpp).
CUDART_API abi::Error cudaGetFuncBySymbol(void** func, const void* symbol) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!func || !symbol) return ret(abi::ErrInvalidValue);
  if (!s.kernels.count(symbol)) return ret(abi::ErrInvalidDeviceFunction);
  *func = const_cast<void*>(symbol);
  return 0;
}

CUDART_API abi::Error cudaFuncGetParamInfo(const void* func, size_t index, size_t* offset, size_t* size) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) return ret(abi::ErrInvalidDeviceFunction);
  if (int e = s.resolve(it->second)) return ret(e);
  const ptx::Function& fn = *it->second.fn;
  if (index >= fn.params.size()) return ret(abi::ErrInvalidValue);
  if (offset) *offset = func::param_offsets(fn)[index];
  if (size) *size = fn.params[index].size_bytes();
  return 0;
}
