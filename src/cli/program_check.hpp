// What `warpsim run` can tell about a program before it starts it: whether the executable carries
// CUDA device code, and whether it reaches the CUDA runtime through libcudart.so (which warpsim
// replaces) or has the static runtime linked in (nvcc's default, which talks to the NVIDIA driver
// directly and so never reaches the simulator).
#pragma once

#include <istream>
#include <string>

namespace warpsim::cli {

enum class CudaRuntimeLink {
  unknown,         // not a 64-bit little-endian ELF file, or unreadable: nothing to say
  no_device_code,  // an ELF without a fatbinary (a script's interpreter, a host-only tool, ...)
  shared,          // device code, and libcudart.so among its DT_NEEDED libraries
  static_runtime,  // device code and no libcudart.so: the static runtime is linked in
};

// Reads only the ELF headers, the section table and the dynamic section; never throws. Any
// malformed or truncated file answers `unknown`, so a check that cannot decide never blocks a run.
CudaRuntimeLink inspect_program(const std::string& path);
// The same on an image in memory or any seekable stream.
CudaRuntimeLink inspect_image(std::istream& in);

// The file execvp would run for `name` (a path when it holds a '/', else the first executable
// match on PATH); empty if none.
std::string resolve_program(const std::string& name);

}  // namespace warpsim::cli
