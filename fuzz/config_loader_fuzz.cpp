// libFuzzer target for the machine-description loader: any bytes as a TOML machine file (which may
// inherit from the built-ins), loaded with and without overrides. Must never crash, leak or hang;
// rejected input must come with an error message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 16)) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  warpsim::config::Machine m;
  std::string error;
  // Relative `inherits` paths resolve under a folder that does not exist.
  bool ok = warpsim::config::load_machine_text(text, "fuzz.toml", {}, m, error, "/nonexistent-warpsim-fuzz");
  if (!ok && error.empty()) __builtin_trap();
  if (ok) {
    std::string why;
    if (!warpsim::config::validate(m, why)) __builtin_trap();  // a loaded machine is valid
    (void)warpsim::config::describe(m);
  }
  // The same bytes as an override value.
  std::vector<std::string> ov{"ops.fp32.latency=" + std::string(text.substr(0, 256))};
  warpsim::config::Machine a;
  if (!warpsim::config::load_machine("a100", ov, a, error) && error.empty()) __builtin_trap();
  return 0;
}
