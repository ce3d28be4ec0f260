#include "stats/kernel_stats.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace warpsim::stats {

const char* stall_name(Stall s) {
  switch (s) {
    case Stall::Selected: return "stall_selected";
    case Stall::NotSelected: return "stall_not_selected";
    case Stall::Wait: return "stall_wait";
    case Stall::ShortScoreboard: return "stall_short_scoreboard";
    case Stall::LongScoreboard: return "stall_long_scoreboard";
    case Stall::MathPipeThrottle: return "stall_math_pipe_throttle";
    case Stall::MioThrottle: return "stall_mio_throttle";
    case Stall::LgThrottle: return "stall_lg_throttle";
    case Stall::Barrier: return "stall_barrier";
    case Stall::Membar: return "stall_membar";
    case Stall::BranchResolving: return "stall_branch_resolving";
    case Stall::NoInstructions: return "stall_no_instructions";
    case Stall::Count: break;
  }
  return "?";
}

std::string KernelStats::text() const {
  uint64_t total = 0;
  for (auto v : stalls) total += v;
  std::string s = fmt::format(
      "{}: {} cycles ({:.2f} us at {:.0f} MHz, + {} launch cycles), {} warp instrs, IPC {:.3f}/SM, "
      "achieved occupancy {:.1f}% (theoretical {:.1f}%), SIMT efficiency {:.1f}%, issue utilisation {:.1f}%",
      kernel, cycles, time_ns() / 1e3, clock_mhz, launch_cycles, warp_instrs, ipc, achieved_occupancy * 100,
      theoretical_occupancy * 100, simt_efficiency * 100, issue_utilisation * 100);
  if (total) {
    std::vector<std::pair<uint64_t, unsigned>> order;
    for (unsigned i = 0; i < kStallCount; ++i)
      if (stalls[i]) order.emplace_back(stalls[i], i);
    std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first > b.first; });
    s += "\n    warp states (cycles per issued instruction):";
    double issued = warp_instrs ? double(warp_instrs) : 1.0;
    unsigned shown = 0;
    for (auto& [v, i] : order) {
      if (shown++ == 6) break;
      s += fmt::format(" {} {:.2f}", stall_name(Stall(i)) + 6, double(v) / issued);
    }
  }
  if (mem.l1_global_ld_requests || mem.l1_global_st_requests || mem.l1_atom_requests || mem.l1_local_requests ||
      mem.shared_requests || mem.const_instructions) {
    s += "\n";
    s += mem.text(time_ns() * 1e-9);
    if (!s.empty() && s.back() == '\n') s.pop_back();
  }
  return s;
}

std::string KernelStats::json() const {
  std::string st;
  for (unsigned i = 0; i < kStallCount; ++i)
    st += fmt::format("{}\"{}\": {}", i ? ", " : "", stall_name(Stall(i)), stalls[i]);
  std::string per;
  for (size_t i = 0; i < issue_utilisation_per_sub_core.size(); ++i)
    per += fmt::format("{}{:.6f}", i ? ", " : "", issue_utilisation_per_sub_core[i]);
  return fmt::format(
      "{{\"cycles\": {}, \"launch_cycles\": {}, \"time_ns\": {:.3f}, \"clock_mhz\": {}, \"warp_instructions\": {}, "
      "\"thread_instructions\": {}, \"ctas\": {}, \"sms\": {}, \"sms_used\": {}, \"ctas_per_sm\": {}, "
      "\"warps_per_cta\": {}, \"ipc_per_sm\": {:.6f}, \"achieved_occupancy\": {:.6f}, "
      "\"theoretical_occupancy\": {:.6f}, \"simt_efficiency\": {:.6f}, \"issue_slot_utilisation\": {:.6f}, "
      "\"issue_slot_utilisation_per_sub_core\": [{}], \"icache_misses\": {}, \"warp_states\": {{{}}}, \"memory\": {}}}",
      cycles, launch_cycles, time_ns(), clock_mhz, warp_instrs, thread_instrs, ctas, sms, sms_used, ctas_per_sm,
      warps_per_cta, ipc, achieved_occupancy, theoretical_occupancy, simt_efficiency, issue_utilisation, per,
      icache_misses, st, mem.json(double(cycles) * 1e-6 / (clock_mhz > 0 ? clock_mhz : 1.0)));
}

}  // namespace warpsim::stats
