// Instruction order as ptxas would issue it, for the part that matters most to timing: loads
// hoisted above independent arithmetic of their basic block, so that a warp has several loads in
// flight before it uses the first (nvcc emits PTX with each load next to its use; ptxas schedules
// the loads early in SASS). The engine decodes a function's instructions in this order; values
// are unchanged because a load moves only past instructions that neither touch its registers nor
// touch memory, control flow or clocks.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::func {

// A permutation of f.instrs: order[k] is the instruction placed at position k. Positions of
// labels and block boundaries (branches, calls, returns, barriers) are unchanged.
std::vector<uint32_t> schedule_loads(const ptx::Function& f);

}  // namespace warpsim::func
