#pragma once
#include <cstddef>

#include "cudart/abi.hpp"

namespace warpsim::cudart {
// Runs a registered kernel (func: its host stub address) to completion; returns a cudaError_t.
int launch_kernel(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream);
}  // namespace warpsim::cudart
