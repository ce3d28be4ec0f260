// Register slots shared by PTX virtual registers whose live ranges cannot overlap, as ptxas
// allocates physical registers. nvcc's PTX is in SSA-like form: a CUB kernel declares 600 to 2,500
// virtual registers where ptxas uses 40 to 60, and a warp's register file is a 256-byte lane array
// per slot, so one slot per virtual register made every warp of such a kernel touch hundreds of KB
// (a radix sort: 275,000 page faults, a quarter of its simulation time).
//
// The live range of a register is conservative and needs no knowledge of which operands an
// instruction reads or writes: the span [first, last] of the positions (in decoded order) where
// the register appears, widened to cover every loop (a backward branch from b to a label at t <= b)
// that the span touches, until no span changes. Every path of a lane between two appearances of a
// register then stays inside its span (it can only leave it forwards past the end, or backwards
// through a loop, and both are covered), so registers with disjoint spans never hold values at the
// same time. Read-before-write registers (undefined in PTX) may see another register's old value
// instead of zero. Functions with indirect branches (brx.idx) keep one slot per register.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::func {

struct RegLayout {
  std::vector<uint32_t> offset;  // per ptx register (predicates: unused): first slot, relative to the function's base
  uint32_t slots = 0;            // slots the function needs
  bool shared = false;           // false: one slot (block) per register, in declaration order
};

// `order` is the decoded order of f.instrs (schedule_loads); `pinned` registers (the function's .reg
// parameters and returns, the first registers of f.regs) keep slots of their own.
RegLayout allocate_register_slots(const ptx::Function& f, const std::vector<uint32_t>& order, uint32_t pinned,
                                  bool share);

}  // namespace warpsim::func
