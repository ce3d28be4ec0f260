#pragma once
#include <cstddef>

namespace warpsim::cudart {
struct ErrorInfo {
  int value;
  const char* name;
  const char* text;
};
extern const ErrorInfo kErrors[];
extern const size_t kErrorCount;
const ErrorInfo* find_error(int value);
}  // namespace warpsim::cudart
