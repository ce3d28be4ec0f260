#pragma once
#include "cudart/abi.hpp"
#include "runtime/gpu_spec.hpp"

namespace warpsim::cudart {
// cudaDevAttrMaxAccessPolicyWindowSize: 134213632 (128 MiB - 64 KiB), what an A100 reports
// (NVIDIA developer forum, "What is the difference: cudaLimitPersistingL2CacheSize,
// accessPolicyMaxWindowSize, persistingL2CacheMaxSize", 2023: the A100's cudaDeviceProp values).
constexpr size_t kAccessPolicyMaxWindow = 134213632;
// cudaGetDeviceProperties for a simulated GPU.
void fill_props(const runtime::GpuSpec& g, abi::DeviceProp& p);
// cudaDeviceGetAttribute; false for attributes we do not know.
bool device_attribute(const runtime::GpuSpec& g, int attr, int& value);
}  // namespace warpsim::cudart
