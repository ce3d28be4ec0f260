// libFuzzer target for `warpsim run`'s look at a program's ELF headers (src/cli/program_check.cpp):
// any bytes as an executable image. Must never crash, read out of bounds, leak or hang.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "cli/program_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  (void)warpsim::cli::inspect_image(in);
  return 0;
}
