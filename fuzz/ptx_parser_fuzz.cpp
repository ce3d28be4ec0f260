// libFuzzer target for the PTX parser: parse must never crash, and for input that parses,
// print -> parse must succeed and give an equal module (round-trip property).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  warpsim::ptx::ParseOptions opts;
  opts.max_registers_per_function = 1u << 16;  // keep memory bounded under fuzzing
  auto a = warpsim::ptx::parse(text, "fuzz.ptx", opts);
  if (!a.ok()) return 0;
  std::string printed = warpsim::ptx::print(*a.module);
  auto b = warpsim::ptx::parse(printed, "fuzz.ptx", opts);  // same name: the printer writes it in a comment
  if (!b.ok()) {
    std::fprintf(stderr, "ROUND TRIP: printed module does not parse:\n");
    for (const auto& e : b.errors) std::fprintf(stderr, "  %s\n", e.str().c_str());
    std::fprintf(stderr, "---- printed ----\n%s\n---- end ----\n", printed.c_str());
    std::abort();
  }
  std::string why;
  if (!warpsim::ptx::equal(*a.module, *b.module, &why)) {
    std::fprintf(stderr, "ROUND TRIP: parse(print(m)) != m: %s\n", why.c_str());
    std::fprintf(stderr, "---- printed ----\n%s\n---- end ----\n", printed.c_str());
    std::abort();
  }
  // Printing is deterministic: printing the re-parsed module gives the same text.
  std::string printed2 = warpsim::ptx::print(*b.module);
  if (printed2 != printed) {
    std::fprintf(stderr, "ROUND TRIP: print(parse(print(m))) != print(m)\n---- first ----\n%s\n"
                 "---- second ----\n%s\n---- end ----\n", printed.c_str(), printed2.c_str());
    std::abort();
  }
  return 0;
}
