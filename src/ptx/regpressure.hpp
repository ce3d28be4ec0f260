// Register pressure of a PTX function: the most 32-bit register words live at one instruction,
// from a liveness analysis over its control-flow graph. PTX virtual registers are single
// assignments in nvcc's output (thousands of names where the machine code needs tens of
// registers), so their declared count says little about what ptxas allocates; the number of values
// alive at once is the lower bound any allocation must meet, and close to what ptxas reports for
// straight-line and loop code without spills.
#pragma once

#include <cstdint>

#include "ptx/ir.hpp"

namespace warpsim::ptx {

// Predicates are not counted (they live in the separate predicate file); 64-bit registers count
// two words, vector registers their elements. Guarded definitions do not end a value's life.
// Indirect branches (brx.idx) are assumed to reach every label.
uint32_t max_live_words(const Function& f);

}  // namespace warpsim::ptx
