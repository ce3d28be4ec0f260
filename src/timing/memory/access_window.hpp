// A launch's L2 access-policy window (cudaAccessPolicyWindow, from a stream attribute or a
// cudaLaunchKernelEx attribute): accesses to [base, base + bytes) get hitProp on a hitRatio
// fraction of the window's lines and missProp on the rest. The hardware picks the lines "randomly"
// (CUDA Programming Guide, "L2 Persistence Example"); here a hash of the line address picks them,
// so a line keeps its property from access to access and from run to run. Accesses outside the
// window, and accesses whose instruction carries its own L2 hint, are not affected (an explicit
// .L2::evict_* or cache-policy hint is the more specific request).
#pragma once

#include <cstdint>

#include "func/cache_policy.hpp"

namespace warpsim::timing {

struct AccessWindow {
  uint64_t base = 0, bytes = 0;    // bytes == 0: no window
  uint32_t hit_fraction = 0;       // hitRatio x 2^24
  func::L2Hint hit = func::L2Hint::Unchanged, miss = func::L2Hint::Unchanged;

  // The hint for an access without its own to the line starting at `line_addr`.
  func::L2Hint hint(uint64_t line_addr, uint32_t line_bytes) const {
    if (!bytes || line_addr + line_bytes <= base || line_addr >= base + bytes) return func::L2Hint::Unchanged;
    return func::line_fraction_hash(line_addr) < hit_fraction ? hit : miss;
  }
};

}  // namespace warpsim::timing
