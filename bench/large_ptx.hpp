// Builds a large, valid PTX module out of real corpus kernels, for the parse-speed benchmark.
//
// Every usable corpus file is parsed once to learn its module-level names (functions, variables,
// aliases). Its text (minus the .version/.target/.address_size header) is then pasted N times,
// each copy with every module-level identifier renamed to name_cK, so the concatenation is one
// valid module with unique names. A file whose two renamed copies do not parse together is left
// out (it may use .file/.section/debug or target modes that cannot be repeated).
#pragma once

#include <string>
#include <vector>

namespace warpsim::bench {

struct LargePtx {
  std::string text;
  std::vector<std::string> used_files;     // corpus files that went in
  std::vector<std::string> skipped_files;  // and those left out, with the reason
  unsigned copies = 0;
};

// Collects *.ptx from the given directories (non-recursive, sorted) and builds a module of at
// least min_bytes. An empty result (no usable file) has text == "".
LargePtx make_large_ptx(const std::vector<std::string>& dirs, size_t min_bytes);

}  // namespace warpsim::bench
