// The machine of the timing model's tests, written here rather than taken from the shipped configs,
// so that every expectation follows from these numbers and the model's rules: 4 SMs in two GPCs,
// 16 lanes per pipe (32 for MIO, LSU and branch), fixed 4-cycle ALU/FMA latency, global loads 300
// cycles, no instruction-cache effects, and the memory of test_memory.hpp.
#pragma once

#include "config/machine.hpp"
#include "test_memory.hpp"

namespace warpsim::timing {

inline config::Machine test_machine() {
  using config::OpClass;
  using config::Pipe;
  config::Machine m;
  m.name = "test GPU";
  m.sms = 4;
  m.gpcs = 2;
  m.tpcs_per_gpc = {1, 1};
  m.sms_per_tpc = 2;
  m.sm_clock_mhz = 1000;
  m.sub_cores = 4;
  m.max_warps = 64;
  m.max_threads = 2048;
  m.max_ctas = 32;
  m.registers = 65536;
  m.max_shared_per_sm = 100 * 1024;
  m.pipe_lanes.fill(16);
  m.pipe_lanes[unsigned(Pipe::Mio)] = 32;
  m.pipe_lanes[unsigned(Pipe::Lsu)] = 32;
  m.pipe_lanes[unsigned(Pipe::Branch)] = 32;
  m.instr_bytes = 16;
  m.l0i_bytes = 0;  // no instruction-cache effects unless a test asks
  m.l1i_bytes = 0;
  m.barrier_latency = 0;
  m.branch_latency = 0;
  for (auto& o : m.ops) o = config::OpTiming{Pipe::Alu, 4, 1, config::Scoreboard::Fixed};
  m.ops[unsigned(OpClass::Fp32)] = {Pipe::Fma, 4, 1, config::Scoreboard::Fixed};
  m.ops[unsigned(OpClass::LdGlobal)] = {Pipe::Lsu, 300, 1, config::Scoreboard::Long};
  m.ops[unsigned(OpClass::StGlobal)] = {Pipe::Lsu, 1, 1, config::Scoreboard::Long};
  m.ops[unsigned(OpClass::LdParam)] = {Pipe::Alu, 1, 1, config::Scoreboard::Fixed};
  m.ops[unsigned(OpClass::Barrier)] = {Pipe::Branch, 1, 1, config::Scoreboard::Fixed};
  set_test_memory(m);
  return m;
}

}  // namespace warpsim::timing
