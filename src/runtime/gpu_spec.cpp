#include "runtime/gpu_spec.hpp"

namespace warpsim::runtime {

GpuSpec a100_sxm4_40gb() {
  GpuSpec g;
  g.name = "NVIDIA A100-SXM4-40GB (warpsim)";
  return g;
}

// Tesla V100-SXM2-16GB: Volta seed (80 SMs of 4 sub-cores, 128 KB L1/shared with up to 96 KB
// shared) and NVIDIA's V100 datasheet (1530 MHz boost, 16 GB HBM2 at 877 MHz on a 4096-bit bus, 6 MB
// L2); compute capability 7.0 limits from the CUDA Programming Guide.
GpuSpec v100_sxm2_16gb() {
  GpuSpec g;
  g.name = "Tesla V100-SXM2-16GB (warpsim)";
  g.cc_major = 7;
  g.cc_minor = 0;
  g.sm_count = 80;
  g.clock_khz = 1530000;
  g.mem_clock_khz = 877000;
  g.mem_bus_width = 4096;
  g.global_mem = 16ull << 30;
  g.l2_bytes = 6 << 20;
  g.persisting_l2_max = 0;
  g.smem_per_block_optin = 96 << 10;
  g.smem_per_sm = 96 << 10;
  g.reserved_smem_per_block = 0;
  return g;
}

// H100 SXM5 80GB: NVIDIA H100 datasheet/whitepaper public figures (132 SMs, 1980 MHz boost, 80 GB
// HBM3 on a 5120-bit bus, 50 MB L2, 228 KB shared per SM with up to 227 KB per block); compute
// capability 9.0 limits from the CUDA Programming Guide.
GpuSpec h100_sxm5_80gb() {
  GpuSpec g;
  g.name = "NVIDIA H100 80GB HBM3 (warpsim)";
  g.cc_major = 9;
  g.cc_minor = 0;
  g.sm_count = 132;
  g.clock_khz = 1980000;
  g.mem_clock_khz = 2619000;
  g.mem_bus_width = 5120;
  g.global_mem = 80ull << 30;
  g.l2_bytes = 50 << 20;
  g.persisting_l2_max = 37 << 20;  // 75% of L2, as on A100
  g.smem_per_block_optin = 227 << 10;
  g.smem_per_sm = 228 << 10;
  return g;
}

bool gpu_by_name(const std::string& name, GpuSpec& out) {
  if (name == "v100") {
    out = v100_sxm2_16gb();
    return true;
  }
  if (name == "h100") {
    out = h100_sxm5_80gb();
    return true;
  }
  if (name.empty() || name == "a100" || name == "a100-40gb" || name == "a100-sxm4-40gb") {
    out = a100_sxm4_40gb();
    return true;
  }
  if (name == "a100-80gb") {
    out = a100_sxm4_40gb();
    out.name = "NVIDIA A100-SXM4-80GB (warpsim)";
    out.global_mem = 80ull << 30;
    return true;
  }
  return false;
}

std::vector<std::string> gpu_names() { return {"a100", "a100-80gb", "v100", "h100"}; }

}  // namespace warpsim::runtime
