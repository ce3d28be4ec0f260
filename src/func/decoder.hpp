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

DecodeResult decode(const ptx::Module& m, const VariableAddresses& vars);

}  // namespace warpsim::func
