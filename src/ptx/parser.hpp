// PTX text -> Module. Errors are collected (up to a limit) with file:line:col and what was
// expected; the parser never crashes on bad input and never silently skips an instruction.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::ptx {

struct Diagnostic {
  std::string file;
  SrcPos pos;
  std::string message;
  std::string str() const;  // "file:line:col: error: message"
};

struct ParseResult {
  std::unique_ptr<Module> module;  // null when there were errors
  std::vector<Diagnostic> errors;
  bool ok() const { return module != nullptr; }
};

struct ParseOptions {
  unsigned max_errors = 20;
  // Guards against hostile input (fuzzing): most registers one function may declare.
  uint32_t max_registers_per_function = 1u << 20;
};

ParseResult parse(std::string_view text, std::string filename = "<input>",
                  const ParseOptions& options = {});

// Reads a file and parses it; an unreadable file is reported as a diagnostic.
ParseResult parse_file(const std::string& path, const ParseOptions& options = {});

}  // namespace warpsim::ptx
