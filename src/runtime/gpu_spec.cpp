#include "runtime/gpu_spec.hpp"

#include <cstdio>
#include <cstdlib>

#include "config/config.hpp"

namespace warpsim::runtime {

GpuSpec gpu_spec_from(const config::Machine& m) {
  GpuSpec g;
  g.name = m.name + " (warpsim)";
  g.cc_major = m.cc_major;
  g.cc_minor = m.cc_minor;
  g.sm_count = int(m.sms);
  g.clock_khz = int(m.sm_clock_mhz * 1000 + 0.5);
  g.mem_clock_khz = int(m.mem_clock_mhz * 1000 + 0.5);
  g.mem_bus_width = int(m.mem_bus_bits);
  g.global_mem = m.global_mem_bytes;
  g.l2_bytes = int(m.l2_bytes);
  g.persisting_l2_max = int(m.persisting_l2_max_bytes);
  g.access_policy_max_window = int(m.access_policy_max_window_bytes);
  g.smem_per_block = m.default_shared_per_cta;
  g.smem_per_block_optin = m.max_shared_per_cta;
  g.smem_per_sm = m.max_shared_per_sm;
  g.reserved_smem_per_block = m.reserved_shared_per_cta;
  g.max_threads_per_sm = int(m.max_threads);
  g.max_blocks_per_sm = int(m.max_ctas);
  g.regs_per_sm = int(m.registers);
  g.regs_per_block = int(m.max_regs_per_cta);
  g.warp_size = 32;
  g.max_threads_per_block = int(m.max_threads_per_cta);
  for (int i = 0; i < 3; ++i) {
    g.max_block_dim[i] = int(m.max_block_dim[i]);
    g.max_grid_dim[i] = int(m.max_grid_dim[i]);
  }
  g.const_mem = m.const_mem_bytes;
  g.schedulers_per_sm = int(m.sub_cores);
  g.machine = m;
  return g;
}

bool gpu_spec_load(const std::string& name_or_path, const std::vector<std::string>& overrides, GpuSpec& out,
                   std::string& error) {
  config::Machine m;
  if (!config::load_machine(name_or_path, overrides, m, error)) return false;
  out = gpu_spec_from(m);
  return true;
}

GpuSpec a100_sxm4_40gb() {
  GpuSpec g;
  std::string error;
  if (!gpu_spec_load("a100", {}, g, error)) {
    // The embedded a100.toml is validated by the tests; failing here is a build defect.
    std::fprintf(stderr, "warpsim: built-in a100 machine does not load: %s\n", error.c_str());
    std::abort();
  }
  return g;
}

bool gpu_by_name(const std::string& name, GpuSpec& out) {
  std::string error;
  return gpu_spec_load(name, {}, out, error);
}

std::vector<std::string> gpu_names() { return config::machine_names(); }

}  // namespace warpsim::runtime
