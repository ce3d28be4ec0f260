#pragma once
#include "cudart/abi.hpp"
#include "runtime/gpu_spec.hpp"

namespace warpsim::cudart {
// cudaGetDeviceProperties for a simulated GPU.
void fill_props(const runtime::GpuSpec& g, abi::DeviceProp& p);
// cudaDeviceGetAttribute; false for attributes we do not know.
bool device_attribute(const runtime::GpuSpec& g, int attr, int& value);
}  // namespace warpsim::cudart
