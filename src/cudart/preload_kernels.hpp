// The pieces of libwarpsim_preload.so that its replacement kernels share (cuBLAS in
// cublas_gemm.cpp, cuSPARSE in cusparse_ops.cpp, cuFFT in cufft_plan.cpp): the driver API of the simulated GPU, the library
// functions the preload stands in front of, and one cache of loaded PTX kernels. Inline, so the
// library holds one driver table and one cache however many files use them.
#pragma once
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace warpsim::preload {

// ---- the driver API of the simulated GPU (warpsim's libcuda.so.1)
struct Driver {
  int (*module_load_data)(void**, const void*) = nullptr;
  int (*module_get_function)(void**, void*, const char*) = nullptr;
  int (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                void**) = nullptr;
  int (*memcpy_dtoh)(void*, uint64_t, size_t) = nullptr;
  int (*stream_sync)(void*) = nullptr;
  int (*mem_alloc)(uint64_t*, size_t) = nullptr;
  int (*mem_free)(uint64_t) = nullptr;
  int (*memcpy_dtod)(uint64_t, uint64_t, size_t, void*) = nullptr;
  int (*memcpy_htod)(uint64_t, const void*, size_t) = nullptr;
  bool ok = false;
};
inline Driver& driver() {
  static Driver d = [] {
    Driver x;
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h) return x;
    x.module_load_data = reinterpret_cast<decltype(x.module_load_data)>(dlsym(h, "cuModuleLoadData"));
    x.module_get_function = reinterpret_cast<decltype(x.module_get_function)>(dlsym(h, "cuModuleGetFunction"));
    x.launch = reinterpret_cast<decltype(x.launch)>(dlsym(h, "cuLaunchKernel"));
    x.memcpy_dtoh = reinterpret_cast<decltype(x.memcpy_dtoh)>(dlsym(h, "cuMemcpyDtoH_v2"));
    x.stream_sync = reinterpret_cast<decltype(x.stream_sync)>(dlsym(h, "cuStreamSynchronize"));
    x.mem_alloc = reinterpret_cast<decltype(x.mem_alloc)>(dlsym(h, "cuMemAlloc_v2"));
    x.mem_free = reinterpret_cast<decltype(x.mem_free)>(dlsym(h, "cuMemFree_v2"));
    x.memcpy_dtod = reinterpret_cast<decltype(x.memcpy_dtod)>(dlsym(h, "cuMemcpyDtoDAsync_v2"));
    x.memcpy_htod = reinterpret_cast<decltype(x.memcpy_htod)>(dlsym(h, "cuMemcpyHtoD_v2"));
    x.ok = x.module_load_data && x.module_get_function && x.launch && x.memcpy_dtoh && x.stream_sync && x.mem_alloc &&
           x.mem_free && x.memcpy_dtod && x.memcpy_htod;
    return x;
  }();
  return d;
}

// The wrapped library's own function of that name (the next definition after this library's).
template <class F>
inline F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

struct Kernels {
  std::mutex mu;
  std::map<std::string, void*> fns;  // by type combination
};
inline Kernels& kernels() {
  static Kernels k;
  return k;
}
// The kernel `entry` of the PTX `make()` builds, loaded once per `key` (null, said once, if it
// cannot be loaded).
template <class Make>
inline void* cached_kernel(const std::string& key, const char* entry, Make make) {
  Kernels& ks = kernels();
  std::lock_guard g(ks.mu);
  if (auto it = ks.fns.find(key); it != ks.fns.end()) return it->second;
  Driver& d = driver();
  void* mod = nullptr;
  void* fn = nullptr;
  const std::string ptx = make();
  if (!d.ok || d.module_load_data(&mod, ptx.c_str()) != 0 || d.module_get_function(&fn, mod, entry) != 0) {
    std::fprintf(stderr, "warpsim: cannot load warpsim's kernel %s for %s\n", entry, key.c_str());
    fn = nullptr;
  }
  ks.fns[key] = fn;
  return fn;
}
}  // namespace warpsim::preload
