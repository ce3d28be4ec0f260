#include "runtime/gpu_spec.hpp"

namespace warpsim::runtime {

GpuSpec a100_sxm4_40gb() {
  GpuSpec g;
  g.name = "NVIDIA A100-SXM4-40GB (warpsim)";
  return g;
}

bool gpu_by_name(const std::string& name, GpuSpec& out) {
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

std::vector<std::string> gpu_names() { return {"a100", "a100-80gb"}; }

}  // namespace warpsim::runtime
