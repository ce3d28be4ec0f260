// The multi-function unit's tables: the knots of the f32 error model and the complete f16/bf16
// results, both from our H100's measurements (see mufu.hpp).
#include "func/mufu.hpp"

#include <array>
#include <cmath>

#include "func/softfloat.hpp"

namespace warpsim::func::mufu {

namespace {

// A run of consecutive half inputs where the H100 differs from RN(f(x)) by the same number of ulps.
struct HalfRun {
  uint16_t first, count;
  int16_t delta;
};

#include "func/mufu_tables.inc"

using HalfTable = std::array<uint16_t, 65536>;

template <size_t N>
HalfTable build(const sf::Format& F, bool tanh, const HalfRun (&runs)[N]) {
  HalfTable t;
  for (uint32_t a = 0; a < 65536; ++a) {
    double x = sf::to_double(F, a);
    t[a] = std::isnan(x) ? uint16_t(F.qnan) : uint16_t(sf::from_double(tanh ? std::tanh(x) : std::exp2(x), F, sf::Mode::Rn));
  }
  for (const HalfRun& r : runs)
    for (uint32_t i = 0; i < r.count; ++i) t[r.first + i] = uint16_t(t[r.first + i] + r.delta);
  return t;
}

}  // namespace

const int8_t* const rcp_knots = kRcpKnots;
const int8_t* const rsq_knots = kRsqKnots;
const int8_t* const ex2_knots = kEx2Knots;
const int rcp_knot_count = int(sizeof(kRcpKnots));
const int rsq_knot_count = int(sizeof(kRsqKnots));
const int ex2_knot_count = int(sizeof(kEx2Knots));
static_assert(kKnotShiftData == kKnotShift);

uint16_t half_result(int which, uint16_t a) {
  // built once, on first use (thread-safe static initialisation)
  static const HalfTable ex2_f16 = build(sf::kF16, false, kEx2F16);
  static const HalfTable ex2_bf16 = build(sf::kBF16, false, kEx2Bf16);
  static const HalfTable tanh_f16 = build(sf::kF16, true, kTanhF16);
  static const HalfTable tanh_bf16 = build(sf::kBF16, true, kTanhBf16);
  switch (which) {
    case 0: return ex2_f16[a];
    case 1: return ex2_bf16[a];
    case 2: return tanh_f16[a];
    default: return tanh_bf16[a];
  }
}

}  // namespace warpsim::func::mufu
