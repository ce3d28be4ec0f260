// Instruction order as ptxas would issue it, for the part that matters most to timing: loads
// (ld, ldmatrix) hoisted, with the address arithmetic they need, above the independent arithmetic,
// mma and stores to other state spaces of their basic block, independent loads ahead of the loads
// whose addresses they produce, so that a warp has several loads in flight before it uses the
// first (nvcc emits PTX with each load next to its use; ptxas schedules the loads early in SASS,
// the next k-step's LDSM under the current HMMAs, a staging loop's LDGs above its STSs:
// docs/validation-workloads.md, "Load scheduling"). The engine decodes a function's instructions
// in this order; values are unchanged because only loads, plain stores and register-only
// arithmetic move, never across atomics, fences, barriers, control-flow or clock instructions,
// no access passes one it may alias, and every register dependency keeps its order.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::func {

// A permutation of f.instrs: order[k] is the instruction placed at position k. Positions of
// labels and block boundaries (branches, calls, returns, barriers) are unchanged.
std::vector<uint32_t> schedule_loads(const ptx::Function& f);

}  // namespace warpsim::func
