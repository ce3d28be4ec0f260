// libcuda.so.1 as `warpsim run` presents it: a stand-in for the CUDA driver API that refuses it
// clearly. warpsim simulates the runtime API (libcudart); libraries that drive the GPU themselves
// through the driver (the cuRAND, cuBLAS and cuFFT host APIs: they dlopen libcuda.so.1, call
// cuInit/cuGetProcAddress, load their own cubins and launch them with cuLaunchKernel) cannot run
// on the simulated device. Without this library they would fail silently where no driver is
// installed, or reach a real GPU's driver (with pointers into simulated memory) where one is. It
// sits next to libcudart.so.13, first on LD_LIBRARY_PATH, and every entry point prints one
// explanation and returns CUDA_ERROR_NOT_SUPPORTED, which those libraries turn into their own
// initialisation error (curandCreateGenerator: CURAND_STATUS_INITIALIZATION_FAILED).
#include <cstdio>
#include <cstring>

namespace {
constexpr int kNotSupported = 801;  // CUDA_ERROR_NOT_SUPPORTED

int refuse(const char* fn) {
  static bool told = false;
  if (!told)
    std::fprintf(stderr,
                 "warpsim: %s: the program (or a library it uses, such as the cuRAND/cuBLAS/cuFFT host API) called "
                 "the CUDA driver API, which warpsim does not simulate; only the runtime API (libcudart) and the "
                 "device-side libraries (curand_kernel.h, cub, thrust) run on the simulated GPU. Returning "
                 "CUDA_ERROR_NOT_SUPPORTED.\n",
                 fn);
  told = true;
  return kNotSupported;
}
}  // namespace

#define WARPSIM_DRIVER_EXPORT extern "C" __attribute__((visibility("default")))

WARPSIM_DRIVER_EXPORT int cuInit(unsigned) { return refuse("cuInit"); }
WARPSIM_DRIVER_EXPORT int cuDriverGetVersion(int*) { return refuse("cuDriverGetVersion"); }
WARPSIM_DRIVER_EXPORT int cuDeviceGetCount(int*) { return refuse("cuDeviceGetCount"); }
WARPSIM_DRIVER_EXPORT int cuDeviceGet(int*, int) { return refuse("cuDeviceGet"); }
WARPSIM_DRIVER_EXPORT int cuGetProcAddress(const char*, void** pfn, int, unsigned long long, int* status) {
  if (pfn) *pfn = nullptr;
  if (status) *status = 0;
  return refuse("cuGetProcAddress");
}
WARPSIM_DRIVER_EXPORT int cuGetProcAddress_v2(const char*, void** pfn, int, unsigned long long, int* status) {
  if (pfn) *pfn = nullptr;
  if (status) *status = 0;
  return refuse("cuGetProcAddress");
}
WARPSIM_DRIVER_EXPORT int cuGetExportTable(const void** table, const void*) {
  if (table) *table = nullptr;
  return refuse("cuGetExportTable");
}
WARPSIM_DRIVER_EXPORT int cuGetErrorString(int error, const char** str) {
  if (!str) return 1;  // CUDA_ERROR_INVALID_VALUE
  *str = error == kNotSupported ? "operation not supported (warpsim simulates the runtime API only)"
         : error == 0           ? "no error"
                                : "unknown error";
  return 0;
}
WARPSIM_DRIVER_EXPORT int cuGetErrorName(int error, const char** str) {
  if (!str) return 1;
  *str = error == kNotSupported ? "CUDA_ERROR_NOT_SUPPORTED" : error == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
