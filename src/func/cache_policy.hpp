// The 64-bit cache-policy values of PTX createpolicy (opaque in the ISA, so the encoding is ours)
// and what they give an access: the L2 hint that ld/st/cp.async/prefetch .L2::cache_hint pass to
// the timing model's L2.
//   bit 63     a policy made by createpolicy (a value without it, e.g. 0, is no hint)
//   bit 62     range form: bits 8-39 index LaunchState::range_policies (address and sizes do not
//              fit in 64 bits); otherwise fractional: bits 8-32 the fraction x 2^24
//   bits 0-3   primary L2Hint, bits 4-7 secondary L2Hint
// Which addresses get the primary priority of a fractional policy (and which lines of an access-
// policy window get hitProp) is chosen per 128-byte L2 line by a hash of its address, so that a
// line keeps its choice ([WP]: "fractional allocation based on address hash").
#pragma once

#include <cstdint>

#include "func/mem_trace.hpp"

namespace warpsim::func {

constexpr uint64_t kPolicyValid = 1ull << 63;
constexpr uint64_t kPolicyRange = 1ull << 62;
constexpr uint32_t kFractionOne = 1u << 24;

// createpolicy.range's operands.
struct RangePolicy {
  uint64_t base = 0;
  uint32_t primary = 0, total = 0;
  L2Hint first = L2Hint::Unchanged, second = L2Hint::Unchanged;
};

// A line's position in [0, 2^24): below a fraction x 2^24 the line is in that fraction.
inline uint32_t line_fraction_hash(uint64_t addr) {
  uint64_t h = (addr >> 7) * 0x9e3779b97f4a7c15ull;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return uint32_t(h & (kFractionOne - 1));
}

inline uint32_t fraction_fixed(double f) {
  if (!(f > 0)) return 0;
  if (f >= 1) return kFractionOne;
  return uint32_t(f * kFractionOne + 0.5);
}

inline uint64_t fractional_policy(L2Hint first, L2Hint second, uint32_t fraction) {
  return kPolicyValid | uint64_t(fraction) << 8 | uint64_t(second) << 4 | uint64_t(first);
}

// The hint a policy value gives an access to `addr` (ranges: the launch's table).
template <class Table>
L2Hint policy_hint(uint64_t policy, uint64_t addr, const Table& ranges) {
  if (!(policy & kPolicyValid)) return L2Hint::Unchanged;
  if (policy & kPolicyRange) {
    uint64_t i = (policy >> 8) & 0xffffffffull;
    if (i >= ranges.size()) return L2Hint::Unchanged;
    const RangePolicy& r = ranges[i];
    if (addr < r.base) return L2Hint::Unchanged;
    if (addr - r.base < r.primary) return r.first;
    if (addr - r.base < r.total) return r.second;
    return L2Hint::Unchanged;
  }
  const L2Hint first = L2Hint(policy & 15), second = L2Hint((policy >> 4) & 15);
  const uint32_t fraction = uint32_t((policy >> 8) & 0x1ffffff);
  return line_fraction_hash(addr) < fraction ? first : second;
}

}  // namespace warpsim::func
