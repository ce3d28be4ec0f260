// Module IR -> PTX text that ptxas accepts and that parses back to an equal module.
#pragma once

#include <string>

#include "ptx/ir.hpp"

namespace warpsim::ptx {

std::string print(const Module& m);
// One instruction as PTX (no trailing newline), e.g. "@!%p1 bra $L__BB0_2;".
std::string print_instruction(const Function& f, const Instruction& ins);

}  // namespace warpsim::ptx
