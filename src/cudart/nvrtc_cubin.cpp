// NVRTC's cubins for programs run by `warpsim run` (part of libwarpsim_preload.so, preloaded).
//
// A program that JIT-compiles with NVRTC for a real architecture (--gpu-architecture=sm_80) gets
// a SASS-only cubin, which warpsim cannot run. nvrtcGetCUBIN here hands out the same cubin, and
// tells warpsim's driver (warpsim_cubin_ptx in libcudart) the PTX NVRTC compiled it from, so that
// cuModuleLoadData of that cubin, from memory or from a file written from it, runs that PTX.
#include <dlfcn.h>

#include <cstddef>
#include <string>

namespace {
using Result = int;  // nvrtcResult; 0 is NVRTC_SUCCESS
template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
using Report = void (*)(const void*, size_t, const char*, size_t);
Report report() {
  static const Report r = [] {
    void* f = dlsym(RTLD_DEFAULT, "warpsim_cubin_ptx");
    if (!f) {  // a program with the static CUDA runtime may not have loaded warpsim's libcudart yet
      if (void* h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_GLOBAL)) f = dlsym(h, "warpsim_cubin_ptx");
    }
    return reinterpret_cast<Report>(f);
  }();
  return r;
}
}  // namespace

extern "C" __attribute__((visibility("default"))) Result nvrtcGetCUBIN(void* prog, char* cubin) {
  static const auto real = next<Result (*)(void*, char*)>("nvrtcGetCUBIN");
  static const auto cubin_size = next<Result (*)(void*, size_t*)>("nvrtcGetCUBINSize");
  static const auto ptx_size = next<Result (*)(void*, size_t*)>("nvrtcGetPTXSize");
  static const auto get_ptx = next<Result (*)(void*, char*)>("nvrtcGetPTX");
  if (!real) return 7;  // NVRTC_ERROR_INTERNAL_ERROR: no NVRTC behind us (cannot happen when called)
  const Result r = real(prog, cubin);
  size_t n = 0, m = 0;
  if (r == 0 && cubin && report() && cubin_size && ptx_size && get_ptx && cubin_size(prog, &n) == 0 &&
      ptx_size(prog, &m) == 0 && n && m) {
    std::string ptx(m, '\0');
    if (get_ptx(prog, ptx.data()) == 0) report()(cubin, n, ptx.data(), ptx.size());
  }
  return r;
}
