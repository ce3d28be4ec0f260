// Errors: the per-thread last error, the sticky error of a faulted kernel, names and messages.
#include "cudart/errors.hpp"
#include "cudart/export.hpp"
#include "cudart/state.hpp"

using namespace warpsim::cudart;

namespace warpsim::cudart {
const ErrorInfo* find_error(int value) {
  for (size_t i = 0; i < kErrorCount; ++i)
    if (kErrors[i].value == value) return &kErrors[i];
  return nullptr;
}
}  // namespace warpsim::cudart

CUDART_API abi::Error cudaGetLastError() {
  int e = last_error();
  last_error() = 0;
  // Measured on an H100 (workloads/printf_assert): after a sticky error, the first call returns it
  // and a second, with no API call in between, returns cudaSuccess; other calls keep failing.
  return e;
}

CUDART_API abi::Error cudaPeekAtLastError() {
  return last_error();
}

CUDART_API const char* cudaGetErrorName(abi::Error e) {
  const ErrorInfo* i = find_error(e);
  return i ? i->name : "cudaErrorUnknown";
}

CUDART_API const char* cudaGetErrorString(abi::Error e) {
  const ErrorInfo* i = find_error(e);
  return i ? i->text : "unknown error";
}
