// Per-kernel resources from an ELF cubin (what `ptxas -v` / `cuobjdump -res-usage` report).
//
// Layout (found by experiment with CUDA 13.0 ptxas for sm_80, checked against `ptxas -v`):
//   .nv.info (global, sh_link = .symtab): records of {uint8 format, uint8 attribute, ...}; format
//     1 = no value (2 bytes of padding), 2 = one-byte value, 3 = two-byte value, 4 = uint16 size
//     then `size` bytes. Per-kernel values here are {uint32 symbol index, uint32 value}:
//     EIATTR_REGCOUNT 0x2f, EIATTR_FRAME_SIZE 0x11, EIATTR_MIN_STACK_SIZE 0x12,
//     EIATTR_MAX_STACK_SIZE 0x23.
//   .nv.info.<kernel> (sh_info = the kernel's .text section): EIATTR_MAX_THREADS 0x05 (three
//     uint32: __launch_bounds__ max threads as x,y,z), EIATTR_MAXREG_COUNT 0x1b (2 bytes),
//     EIATTR_REQNTID 0x10 (three uint32, __reqntid / -maxntid).
//   .text.<kernel>: sh_info bits 24-31 hold the register count too (bits 0-23: symbol index).
//   .nv.shared.<kernel>: NOBITS, sh_size = static shared memory.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace warpsim::cudart {

struct KernelResources {
  int regs = -1;              // registers per thread (-1: unknown)
  uint32_t max_threads = 0;   // __launch_bounds__ / reqntid product (0: none)
  uint32_t frame = 0;         // local memory (stack frame) bytes per thread
  uint32_t min_stack = 0;     // EIATTR_MIN_STACK_SIZE
  uint32_t max_stack = 0;     // EIATTR_MAX_STACK_SIZE
  uint32_t static_shared = 0; // .nv.shared.<kernel> size
  int max_reg_count = -1;     // EIATTR_MAXREG_COUNT (-maxrregcount / __launch_bounds__ second arg)
};

// Reads the kernels' resources from one ELF cubin; adds them to `out` (by mangled name). False
// with err if the image is not a 64-bit little-endian ELF or is malformed.
bool read_cubin_resources(const uint8_t* data, size_t size, std::map<std::string, KernelResources>& out,
                          std::string& err);

}  // namespace warpsim::cudart
