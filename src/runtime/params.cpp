#include <cstring>

#include "runtime/device.hpp"

namespace warpsim::runtime {

std::vector<uint8_t> marshal_params(const ptx::Function& kernel, void** args) {
  auto offs = func::param_offsets(kernel);
  if (offs.empty()) return {};
  std::vector<uint8_t> buf(offs.back() + kernel.params.back().size_bytes(), 0);
  for (size_t i = 0; i < offs.size(); ++i) {
    if (!args || !args[i]) continue;
    std::memcpy(buf.data() + offs[i], args[i], kernel.params[i].size_bytes());
  }
  return buf;
}

}  // namespace warpsim::runtime
