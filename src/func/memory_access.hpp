// Per-lane memory access for handlers (ld/st/atom/...): resolves a state-space address to host
// bytes, checking alignment and bounds and reporting the fault the hardware would raise.
#pragma once

#include <cstdint>

#include "func/exec.hpp"

namespace warpsim::func {

enum class AccessSpace : uint8_t { Generic, Global, Shared, Local, Const, KernelParam, FuncParam };

// Pointer to the n bytes at `addr` of space `sp` as lane `l` sees them, or nullptr after calling
// ctx.fault (misaligned: addr not a multiple of n; out of range; unmapped; store to read-only).
uint8_t* resolve_access(ExecCtx& ctx, AccessSpace sp, unsigned l, uint64_t addr, unsigned n, bool write);

}  // namespace warpsim::func
