// The simulated GPU as the runtime API reports it (cudaGetDeviceProperties, cudaDeviceGetAttribute),
// derived from a machine description (config::Machine, configs/*.toml), which it also carries whole
// for the timing model. The defaults below are the A100-SXM4-40GB's; gpu_spec_from() sets them all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/machine.hpp"

namespace warpsim::runtime {

struct GpuSpec {
  std::string name;
  int cc_major = 8, cc_minor = 0;
  int sm_count = 108;
  int clock_khz = 1410000;            // boost clock
  int mem_clock_khz = 1215000;        // HBM2
  int mem_bus_width = 5120;           // bits
  uint64_t global_mem = 40ull << 30;
  int l2_bytes = 40 << 20;
  int persisting_l2_max = 30 << 20;
  int access_policy_max_window = 134213632;
  uint32_t smem_per_block = 48 << 10;        // default, without opt-in
  uint32_t smem_per_block_optin = 163 << 10; // cudaFuncAttributeMaxDynamicSharedMemorySize limit
  uint32_t smem_per_sm = 164 << 10;
  uint32_t reserved_smem_per_block = 1 << 10;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_block_dim[3] = {1024, 1024, 64};
  int max_grid_dim[3] = {2147483647, 65535, 65535};
  uint64_t const_mem = 64 << 10;
  int schedulers_per_sm = 4;
  int pci_bus_id = 0, pci_device_id = 0, pci_domain_id = 0;
  config::Machine machine;  // the whole description (timing model, `warpsim info`)
};

// The runtime's view of a machine description.
GpuSpec gpu_spec_from(const config::Machine& m);
// A built-in machine ("a100", `warpsim gpus`) or a .toml path, with "key=value" overrides; false
// with a one-line `error` (naming the file and field) if it does not load or validate.
bool gpu_spec_load(const std::string& name_or_path, const std::vector<std::string>& overrides, GpuSpec& out,
                   std::string& error);
// The built-in A100-SXM4-40GB (configs/a100.toml).
GpuSpec a100_sxm4_40gb();
// A built-in machine by name, no overrides; false if unknown.
bool gpu_by_name(const std::string& name, GpuSpec& out);
// The built-in --gpu names, one per machine (aliases left out), as config::machine_names().
std::vector<std::string> gpu_names();

}  // namespace warpsim::runtime
