// Register slots shared by PTX virtual registers whose live ranges cannot overlap, as ptxas
// allocates physical registers. nvcc's PTX is in SSA-like form: a CUB kernel declares 600 to 2,500
// virtual registers where ptxas uses 40 to 60, and a warp's register file is a 256-byte lane array
// per slot, so one slot per virtual register made every warp of such a kernel touch hundreds of KB
// (a radix sort: 275,000 page faults, a quarter of its simulation time).
//
// Live ranges come from a backward dataflow over the decoded order. Only operand 0 of an allowlist
// of opcodes, unguarded, counts as a write that kills the value (defines_operand0); every other
// appearance counts as a read, which can only make a range longer, so a mistake in the list costs
// sharing, not correctness. A register read before any write is live from the function's entry
// and keeps the zero its slot starts with. Registers are packed greedily into blocks of slots of
// their width that no register live at, or appearing at, the same positions holds.
//
// Functions too large for the bitsets use a cruder span method: [first, last] appearance, widened
// over every loop (a backward branch from b to a label at t <= b) the span touches until no span
// changes; every path of a lane between two appearances of a register stays inside its span.
// There a read-before-write register (undefined in PTX) may see another register's old value.
// Functions with indirect branches (brx.idx) keep one slot per register.
//
// The timing model tracks dependencies by virtual register (DFunction::reg_ids), so registers that
// share a slot never wait for each other.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::func {

struct RegLayout {
  std::vector<uint32_t> offset;  // per ptx register (predicates: unused): first slot, relative to the function's base
  uint32_t slots = 0;            // slots the function needs
};

// `order` is the decoded order of f.instrs (schedule_loads); `pinned` registers (the function's .reg
// parameters and returns, the first registers of f.regs) keep slots of their own.
RegLayout allocate_register_slots(const ptx::Function& f, const std::vector<uint32_t>& order, uint32_t pinned,
                                  bool share);

}  // namespace warpsim::func
