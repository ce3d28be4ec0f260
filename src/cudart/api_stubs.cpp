// Weak stubs for every entry point of the real libcudart.so.13 that warpsim does not implement:
// a program that links against one still loads (an undefined symbol would make the dynamic loader
// abort it), and calling one prints "warpsim: NAME is not implemented" once and returns
// cudaErrorNotSupported. The implemented functions (api_*.cpp) are strong definitions and win.
// Arguments are ignored, so the stubs' parameter lists do not matter to the C calling convention.
#include "cudart/export.hpp"
#include "cudart/state.hpp"

#define STUB(name) \
  extern "C" WARPSIM_EXPORT __attribute__((weak)) int name() { return warpsim::cudart::not_implemented(#name); }
#include "cudart/exports13.inc"
// CUDA 12 entry points that CUDA 13 removed (for programs built against libcudart.so.12).
#include "cudart/exports12_extra.inc"
#undef STUB
