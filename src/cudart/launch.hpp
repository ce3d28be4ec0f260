#pragma once
#include <cstddef>

#include "cudart/abi.hpp"
#include "timing/memory/access_window.hpp"

namespace warpsim::cudart {
// Runs a registered kernel (func: its host stub address) to completion; returns a cudaError_t.
// `window`: an access-policy window given with this launch (cudaLaunchKernelEx); otherwise the
// stream's (cudaStreamSetAttribute), if any. `cluster_ctas`: the CTAs per cluster asked for with
// this launch (cudaLaunchAttributeClusterDimension).
int launch_kernel(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream,
                  const timing::AccessWindow* window = nullptr,
                  bool cooperative = false, unsigned cluster_ctas = 1);
// Checks a cudaAccessPolicyWindow as the runtime does (measured on an H100, CUDA 13) and converts
// it: num_bytes at most cudaDevAttrMaxAccessPolicyWindowSize, hitRatio in [0, 1], missProp Normal
// or Streaming ("Must be either NORMAL or STREAMING", driver_types.h); else cudaErrorInvalidValue.
int access_window_from(const abi::AccessPolicyWindow& w, size_t max_window, timing::AccessWindow& out);
}  // namespace warpsim::cudart
