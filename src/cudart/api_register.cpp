// What nvcc's host code calls before main: registering fatbinaries, kernels and variables
// (crt/host_runtime.h, crt/link.stub).
#include <fmt/format.h>
#include <sys/mman.h>

#include <cstring>

#include "cudart/export.hpp"
#include "cudart/state.hpp"

using namespace warpsim::cudart;

CUDART_API void** __cudaRegisterFatBinary(void* fatCubin) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto h = std::make_unique<FatbinHandle>();
  h->wrapper = fatCubin;
  s.fatbins.push_back(std::move(h));
  return reinterpret_cast<void**>(s.fatbins.back().get());
}

CUDART_API void __cudaRegisterFatBinaryEnd(void** handle) {}

// Modules stay loaded until the process exits: host code may still run after this (atexit order).
CUDART_API void __cudaUnregisterFatBinary(void** handle) {}

CUDART_API void __cudaRegisterFunction(void** handle, const char* hostFun, char* deviceFun, const char* deviceName,
                                       int thread_limit, void* tid, void* bid, void* bDim, void* gDim, int* wSize) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  KernelEntry k;
  k.fatbin = reinterpret_cast<FatbinHandle*>(handle);
  k.name = deviceName ? deviceName : deviceFun;
  s.kernels[hostFun] = std::move(k);
}

CUDART_API void __cudaRegisterVar(void** handle, char* hostVar, char* deviceAddress, const char* deviceName, int ext,
                                  size_t size, int constant, int global) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  VarEntry v;
  v.fatbin = reinterpret_cast<FatbinHandle*>(handle);
  v.name = deviceName ? deviceName : deviceAddress;
  v.size = size;
  v.constant = constant != 0;
  s.vars[hostVar] = std::move(v);
}

CUDART_API void __cudaRegisterManagedVar(void** handle, void** hostVarPtrAddress, char* deviceAddress,
                                         const char* deviceName, int ext, size_t size, int constant, int global) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  VarEntry v;
  v.fatbin = reinterpret_cast<FatbinHandle*>(handle);
  v.name = deviceName ? deviceName : deviceAddress;
  v.size = size;
  v.constant = constant != 0;
  v.managed_host_ptr = hostVarPtrAddress;
  s.vars[hostVarPtrAddress] = std::move(v);
}

// Called (through __nv_init_managed_rt_with_module) before host code touches a __managed__
// variable: maps each managed variable's host view at its device address.
CUDART_API char __cudaInitModule(void** handle) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* h = reinterpret_cast<FatbinHandle*>(handle);
  if (!s.ensure_loaded(*h)) return 0;
  for (auto& [key, v] : s.vars) {
    if (v.fatbin != h || !v.managed_host_ptr || *v.managed_host_ptr) continue;
    int err = 0;
    uint64_t a = s.var_address(key, nullptr, err);
    if (!a || !s.map_managed(a, v.size)) continue;
    void* p = reinterpret_cast<void*>(a);
    *v.managed_host_ptr = p;
  }
  return 1;
}

CUDART_API void __cudaRegisterTexture(void**, const void*, const void**, const char*, int, int, int) {
  not_implemented("__cudaRegisterTexture");
}
CUDART_API void __cudaRegisterSurface(void**, const void*, const void**, const char*, int, int) {
  not_implemented("__cudaRegisterSurface");
}
