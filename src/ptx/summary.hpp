// What a user wants to know about a PTX module at a glance: its kernels, their parameters,
// declared registers, static shared/local memory and directives (`warpsim ptx check`).
#pragma once

#include <string>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::ptx {

struct ParamSummary {
  std::string name;
  std::string type;  // ".u64", ".b8[16]", ".u64 .ptr.global"
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct KernelSummary {
  std::string name;
  std::vector<ParamSummary> params;
  uint64_t param_bytes = 0;
  // PTX virtual registers declared per type (the hardware count comes from ptxas/cubin later).
  std::vector<std::pair<std::string, uint64_t>> regs_by_type;
  uint64_t regs_total = 0;
  // The most 32-bit register words live at once in the kernel (regpressure.hpp): an estimate of
  // what ptxas allocates, used when no cubin gives the count.
  uint32_t live_words = 0;
  uint64_t static_shared_bytes = 0;  // kernel + callees + module .shared they reference
  bool dynamic_shared = false;       // references an .extern .shared [] array
  uint64_t local_bytes = 0;          // .local declared in the kernel and its callees
  uint64_t instructions = 0;         // in the kernel and the functions it can call
  std::vector<std::string> callees;  // functions reachable by direct calls
  bool indirect_calls = false;
  PerfDirectives perf;
};

struct ModuleSummary {
  std::string version;
  std::vector<std::string> targets;
  uint32_t address_size = 64;
  size_t functions = 0;
  size_t instructions = 0;
  std::vector<KernelSummary> kernels;
};

ModuleSummary summarize(const Module& m);
// C++ kernel names as the user wrote them (_Z6vecaddPKfS0_Pfi -> vecadd(float const*, ...)).
std::string demangle(const std::string& name);
std::string format_summary(const ModuleSummary& s, const std::string& filename);

}  // namespace warpsim::ptx
