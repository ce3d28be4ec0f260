// Per-lane memory access for handlers (ld/st/atom/...): resolves a state-space address to host
// bytes, checking alignment and bounds and reporting the fault the hardware would raise.
#pragma once

#include <cstdint>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"

namespace warpsim::func {

enum class AccessSpace : uint8_t { Generic, Global, Shared, Local, Const, KernelParam, FuncParam };

// Pointer to the n bytes at `addr` of space `sp` as lane `l` sees them, or nullptr after calling
// ctx.fault (misaligned: addr not a multiple of n; out of range; unmapped; store to read-only).
uint8_t* resolve_access(ExecCtx& ctx, AccessSpace sp, unsigned l, uint64_t addr, unsigned n, bool write);

// How memory-operand families store a decoded MemRef in a DInstr: flags bits 0-3 AccessSpace,
// bits 8-10 MemRef::Rel, bit 11 MemRef::addr32 (mem_flags); imm the offset; target the shared variable id; op[0] the base register.
constexpr unsigned kRelShift = 8;
constexpr uint32_t kAddr32 = 1u << 11;  // MemRef::addr32
// The flags bits of a MemRef (its Rel and whether its address wraps at 32 bits).
inline uint32_t mem_flags(const MemRef& r) { return (uint32_t(r.rel) << kRelShift) | (r.addr32 ? kAddr32 : 0u); }

// The address lane l accesses: offset + base register + the lane's local frame or the kernel's
// offset of a shared variable.
inline uint64_t lane_address(ExecCtx& ctx, const DInstr& in, const uint64_t* base, unsigned l) {
  uint64_t a = uint64_t(in.imm) + (base ? base[l] : 0);
  if (in.flags & kAddr32) a = uint32_t(a);
  switch (MemRef::Rel((in.flags >> kRelShift) & 7)) {
    case MemRef::SharedVar: a += (*ctx.cta.shared_offsets)[in.target]; break;
    case MemRef::LocalFrame: a += ctx.w.local_base[l]; break;
    default: break;
  }
  return a;
}

// The n (1, 2, 4 or 8) bytes at p as a zero-extended little-endian value, and the reverse. Fixed
// sizes compile to one load/store; a variable-size memcpy would be a library call plus a
// store-forwarding stall on the hottest path of every ld/st.
inline uint64_t load_bytes(const uint8_t* p, unsigned n) {
  switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; std::memcpy(&v, p, 8); return v; }
    default: { uint64_t v = 0; std::memcpy(&v, p, n < 8 ? n : 8); return v; }
  }
}
inline void store_bytes(uint8_t* p, uint64_t v, unsigned n) {
  switch (n) {
    case 1: *p = uint8_t(v); return;
    case 2: { uint16_t x = uint16_t(v); std::memcpy(p, &x, 2); return; }
    case 4: { uint32_t x = uint32_t(v); std::memcpy(p, &x, 4); return; }
    case 8: std::memcpy(p, &v, 8); return;
    default: std::memcpy(p, &v, n < 8 ? n : 8); return;
  }
}

// A bulk or tensor copy's complete_tx on the mbarrier at shared address `addr` of the CTA: its
// tx-count drops by `bytes` and the phase completes if nothing is pending (ops_async.cpp). False
// after a fault (the address is not an mbarrier in shared memory).
bool mbarrier_complete_tx(ExecCtx& ctx, unsigned lane, uint64_t addr, uint32_t bytes);

// The state space an instruction accesses: from the symbol the operand names, else its space
// modifier, else generic.
AccessSpace space_of(const ptx::Instruction& ins, const MemRef& r);

}  // namespace warpsim::func
