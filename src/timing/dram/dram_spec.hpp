// A DRAM standard as data (the shape of Ramulator 2's device files): the levels of the hierarchy,
// the commands and the level each one addresses, and every timing rule as one declarative row
// {level, preceding commands, following commands, latency, window}. The controller
// (controller.hpp) knows no timing rule by name: it applies the table.
//
// Rule semantics: when a command in `prev` issues at DRAM clock t on some node N of `level` (the
// channel, pseudo-channel, bank group or bank it addresses, or that contains what it addresses),
// no command in `next` may issue on N, or below N, before t + latency. With window = W > 1 the rule
// counts the last W commands of `prev` on N: the next one waits until the oldest of them + latency
// (tFAW: 4 ACTs per window). All times are in DRAM clocks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "config/machine.hpp"

namespace warpsim::timing::dram {

enum class Level : uint8_t { Channel, PseudoChannel, BankGroup, Bank, Row, Column };
constexpr unsigned kTimingLevels = 4;  // levels that carry timing state: channel .. bank

enum class Cmd : uint8_t {
  ACT,    // open a row of a bank
  PRE,    // close a bank's row
  PREA,   // close every bank of a pseudo-channel
  RD,     // read one burst from the open row
  WR,     // write one burst into the open row
  REF,    // all-bank refresh of a pseudo-channel (every bank closed)
  REFsb,  // single-bank refresh (the bank closed)
  Count
};
constexpr unsigned kCmdCount = unsigned(Cmd::Count);
using CmdMask = uint16_t;
constexpr CmdMask bit(Cmd c) { return CmdMask(1u << unsigned(c)); }
constexpr CmdMask kRowCmds = bit(Cmd::ACT) | bit(Cmd::PRE) | bit(Cmd::PREA) | bit(Cmd::REF) | bit(Cmd::REFsb);
constexpr CmdMask kColCmds = bit(Cmd::RD) | bit(Cmd::WR);

const char* cmd_name(Cmd c);
const char* level_name(Level l);

// The level of the node a command addresses (Ramulator's "scope"): a row command opens a row of a
// bank, a column command accesses a column of the open row.
constexpr Level scope(Cmd c) {
  switch (c) {
    case Cmd::ACT: return Level::Row;
    case Cmd::RD:
    case Cmd::WR: return Level::Column;
    case Cmd::PRE:
    case Cmd::REFsb: return Level::Bank;
    case Cmd::PREA:
    case Cmd::REF: return Level::PseudoChannel;
    default: return Level::Bank;
  }
}
// The deepest timing level whose state a command reads and updates.
constexpr unsigned timing_depth(Cmd c) {
  const unsigned s = unsigned(scope(c));
  return s >= unsigned(Level::Bank) ? unsigned(Level::Bank) : s;
}

struct TimingRule {
  Level level;
  CmdMask prev;
  CmdMask next;
  uint32_t latency;    // DRAM clocks
  uint32_t window = 1; // > 1: the latency counts from the window-th most recent `prev`
  const char* name;    // the parameter it comes from, for messages and tests
};

// One standard instantiated from a config::DramConfig.
struct Spec {
  // Organisation, per controller.
  uint32_t channels = 0;         // per controller
  uint32_t pseudo_channels = 0;  // per channel
  uint32_t bank_groups = 0;      // per pseudo-channel
  uint32_t banks_per_group = 0;
  uint32_t rows = 0;             // per bank
  uint32_t columns = 0;          // accesses per row
  uint32_t access_bytes = 0;
  uint32_t interleave_bytes = 0;
  uint32_t nBL = 0;              // data-bus clocks per access (burst_length / 2)
  config::DramConfig::Timing t;  // the parameters the rules were built from
  std::vector<TimingRule> rules;

  uint32_t pcs() const { return channels * pseudo_channels; }
  uint32_t banks() const { return bank_groups * banks_per_group; }  // per pseudo-channel
  // Clocks from a RD command to the end of its data, and from WR to the end of its data.
  uint32_t read_latency() const { return t.nCL + nBL; }
  uint32_t write_latency() const { return t.nCWL + nBL; }

  static Spec build(const config::DramConfig& cfg);
};

}  // namespace warpsim::timing::dram
