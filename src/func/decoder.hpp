// ptx::Module -> Program, once per loaded module.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "func/program.hpp"

namespace warpsim::func {

struct DecodeError {
  std::string file;
  ptx::SrcPos pos;
  std::string function;
  std::string message;
  std::string str() const;
};

// Device addresses the loader gave the module's .global/.const variables.
using VariableAddresses = std::unordered_map<std::string, uint64_t>;

struct DecodeResult {
  Program prog;
  std::vector<DecodeError> errors;
  bool ok() const { return errors.empty(); }
};

// The GPU the module is decoded for: instructions newer than `sm_arch` (compute capability x 10;
// 0 = no check) are load errors naming the instruction and `machine`.
struct DecodeTarget {
  uint32_t sm_arch = 0;
  std::string machine;
  bool share_registers = true;  // virtual registers with disjoint live ranges share slots (reg_alloc.hpp)
};

DecodeResult decode(const ptx::Module& m, const VariableAddresses& vars, const DecodeTarget& target = {});

// The oldest architecture (compute capability x 10) that has the instruction, for the
// instructions whose availability differs between the machines warpsim models (warp-level matrix
// instructions; PTX ISA 9.7.14 "Target ISA notes"); 0 when every modelled machine has it.
uint32_t min_sm_arch(const ptx::Instruction& ins);

}  // namespace warpsim::func
