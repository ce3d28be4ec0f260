// Per-lane memory access for handlers (ld/st/atom/...): resolves a state-space address to host
// bytes, checking alignment and bounds and reporting the fault the hardware would raise.
#pragma once

#include <cstdint>

#include "func/decode.hpp"
#include "func/exec.hpp"

namespace warpsim::func {

enum class AccessSpace : uint8_t { Generic, Global, Shared, Local, Const, KernelParam, FuncParam };

// Pointer to the n bytes at `addr` of space `sp` as lane `l` sees them, or nullptr after calling
// ctx.fault (misaligned: addr not a multiple of n; out of range; unmapped; store to read-only).
uint8_t* resolve_access(ExecCtx& ctx, AccessSpace sp, unsigned l, uint64_t addr, unsigned n, bool write);

// How memory-operand families store a decoded MemRef in a DInstr: flags bits 0-3 AccessSpace,
// bits 8-10 MemRef::Rel; imm the offset; target the shared variable id; op[0] the base register.
constexpr unsigned kRelShift = 8;

// The address lane l accesses: offset + base register + the lane's local frame or the kernel's
// offset of a shared variable.
inline uint64_t lane_address(ExecCtx& ctx, const DInstr& in, const uint64_t* base, unsigned l) {
  uint64_t a = uint64_t(in.imm) + (base ? base[l] : 0);
  switch (MemRef::Rel((in.flags >> kRelShift) & 7)) {
    case MemRef::SharedVar: a += (*ctx.cta.shared_offsets)[in.target]; break;
    case MemRef::LocalFrame: a += ctx.w.local_base[l]; break;
    default: break;
  }
  return a;
}

// The state space an instruction accesses: from the symbol the operand names, else its space
// modifier, else generic.
AccessSpace space_of(const ptx::Instruction& ins, const MemRef& r);

}  // namespace warpsim::func
