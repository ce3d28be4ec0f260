#include "timing/dram/dram_spec.hpp"

namespace warpsim::timing::dram {

const char* cmd_name(Cmd c) {
  static const char* const names[kCmdCount] = {"ACT", "PRE", "PREA", "RD", "WR", "REF", "REFsb"};
  return unsigned(c) < kCmdCount ? names[unsigned(c)] : "?";
}

const char* level_name(Level l) {
  static const char* const names[] = {"channel", "pseudo_channel", "bank_group", "bank", "row", "column"};
  return unsigned(l) < 6 ? names[unsigned(l)] : "?";
}

Spec Spec::build(const config::DramConfig& cfg) {
  Spec s;
  s.channels = cfg.channels_per_controller;
  s.pseudo_channels = cfg.pseudo_channels;
  s.bank_groups = cfg.bank_groups;
  s.banks_per_group = cfg.banks_per_group;
  s.rows = cfg.rows;
  s.access_bytes = cfg.access_bytes;
  s.columns = cfg.access_bytes ? cfg.row_bytes / cfg.access_bytes : 0;
  s.interleave_bytes = cfg.interleave_bytes;
  s.nBL = cfg.burst_length / 2;
  s.t = cfg.timing;
  const auto& t = cfg.timing;
  const uint32_t nBL = s.nBL;
  using L = Level;
  const CmdMask ACT = bit(Cmd::ACT), PRE = bit(Cmd::PRE), PREA = bit(Cmd::PREA), RD = bit(Cmd::RD), WR = bit(Cmd::WR),
                REF = bit(Cmd::REF), REFsb = bit(Cmd::REFsb);
  s.rules = {
      // Pseudo-channel: one row command and one column command per clock (HBM has separate row
      // and column command buses; the two pseudo-channels of a channel are modelled as
      // independent, which keeps every pseudo-channel's schedule a function of its own requests).
      {L::PseudoChannel, kRowCmds, kRowCmds, 1, 1, "row command bus"},
      {L::PseudoChannel, kColCmds, kColCmds, 1, 1, "column command bus"},
      // Its data bus, activation limits, read/write turnarounds, refresh.
      {L::PseudoChannel, RD, RD, nBL, 1, "data bus (nBL)"},
      {L::PseudoChannel, WR, WR, nBL, 1, "data bus (nBL)"},
      {L::PseudoChannel, RD, RD, t.nCCD_S, 1, "nCCD_S"},
      {L::PseudoChannel, WR, WR, t.nCCD_S, 1, "nCCD_S"},
      {L::PseudoChannel, RD, WR, t.nRTW, 1, "nRTW"},
      {L::PseudoChannel, WR, RD, t.nCWL + nBL + t.nWTR_S, 1, "nCWL + nBL + nWTR_S"},
      {L::PseudoChannel, ACT, ACT, t.nRRD_S, 1, "nRRD_S"},
      {L::PseudoChannel, ACT, ACT, t.nFAW, 4, "nFAW"},
      // PREA closes every bank: it obeys every bank's ACT/RD/WR -> PRE rules.
      {L::PseudoChannel, ACT, PREA, t.nRAS, 1, "nRAS"},
      {L::PseudoChannel, RD, PREA, t.nRTP, 1, "nRTP"},
      {L::PseudoChannel, WR, PREA, t.nCWL + nBL + t.nWR, 1, "nCWL + nBL + nWR"},
      {L::PseudoChannel, PREA, ACT | REFsb, t.nRP, 1, "nRP"},
      {L::PseudoChannel, PRE | PREA, REF, t.nRP, 1, "nRP"},
      {L::PseudoChannel, REF, ACT | REF | REFsb, t.nRFC, 1, "nRFC"},

      // Bank group.
      {L::BankGroup, RD, RD, t.nCCD_L, 1, "nCCD_L"},
      {L::BankGroup, WR, WR, t.nCCD_L, 1, "nCCD_L"},
      {L::BankGroup, WR, RD, t.nCWL + nBL + t.nWTR_L, 1, "nCWL + nBL + nWTR_L"},
      {L::BankGroup, ACT, ACT, t.nRRD_L, 1, "nRRD_L"},

      // Bank.
      {L::Bank, ACT, RD | WR, t.nRCD, 1, "nRCD"},
      {L::Bank, ACT, PRE, t.nRAS, 1, "nRAS"},
      {L::Bank, ACT, ACT, t.nRAS + t.nRP, 1, "nRC = nRAS + nRP"},
      {L::Bank, PRE, ACT | REFsb, t.nRP, 1, "nRP"},
      {L::Bank, RD, PRE, t.nRTP, 1, "nRTP"},
      {L::Bank, WR, PRE, t.nCWL + nBL + t.nWR, 1, "nCWL + nBL + nWR"},
      {L::Bank, REFsb, ACT, t.nRFCsb, 1, "nRFCsb"},
  };
  // A zero latency is no constraint (nFAW = 0: no activation window, e.g. GDDR3).
  std::erase_if(s.rules, [](const TimingRule& r) { return r.latency == 0; });
  return s;
}

}  // namespace warpsim::timing::dram
