// The built-in machine descriptions (configs/*.toml), embedded at build time by
// cmake/embed_configs.cmake into embedded_configs.cpp (in the build tree), so the CLI and the
// libcudart shim work from any directory.
#pragma once

#include <span>
#include <string_view>

namespace warpsim::config::embedded {

struct Entry {
  const char* name;       // "a100" (the file's stem)
  std::string_view text;  // the file's contents
};

// In the order of WARPSIM_BUILTIN_CONFIGS in src/config/CMakeLists.txt.
std::span<const Entry> configs();

}  // namespace warpsim::config::embedded
