#pragma once
#include <cstddef>

#include "cudart/abi.hpp"
#include "func/state.hpp"
#include "ptx/ir.hpp"
#include "runtime/gpu_spec.hpp"
#include "timing/memory/access_window.hpp"

namespace warpsim::cudart {
// Runs a registered kernel (func: its host stub address) to completion; returns a cudaError_t.
// `window`: an access-policy window given with this launch (cudaLaunchKernelEx); otherwise the
// stream's (cudaStreamSetAttribute), if any. `cluster`: the cluster dimensions asked for with this
// launch (cudaLaunchAttributeClusterDimension), null if none.
int launch_kernel(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream,
                  const timing::AccessWindow* window = nullptr,
                  bool cooperative = false, const abi::Dim3* cluster = nullptr);
// The cluster shape of a launch: the launch attribute's dimensions (`attr`, null if none) or the
// kernel's __cluster_dims__ (.reqnctapercluster); cudaErrorInvalidClusterSize, as our H100 answers
// (validation/driver/h100_clusters.out), when they disagree, when the grid is not a whole number
// of clusters or when a cluster has more than 8 CTAs (16 with
// cudaFuncAttributeNonPortableClusterSizeAllowed); on a GPU before sm_90, clusters of more than one
// CTA are cudaErrorNotSupported. 0 or the error; `explicit_cluster` says whether any was given.
int cluster_shape(const runtime::GpuSpec& spec, const ptx::Function& fn, bool nonportable, abi::Dim3 grid,
                  const abi::Dim3* attr, func::Dim3& out, bool& explicit_cluster);
// Checks a cudaAccessPolicyWindow as the runtime does (measured on an H100, CUDA 13) and converts
// it: num_bytes at most cudaDevAttrMaxAccessPolicyWindowSize, hitRatio in [0, 1], missProp Normal
// or Streaming ("Must be either NORMAL or STREAMING", driver_types.h); else cudaErrorInvalidValue.
int access_window_from(const abi::AccessPolicyWindow& w, size_t max_window, timing::AccessWindow& out);
}  // namespace warpsim::cudart
