// Floating-point helpers shared by the instruction families (float, half, cvt): bit access, flush to
// zero, NaN rules, correctly rounded arithmetic in the four IEEE directed/nearest modes, and
// conversion of any double (or double-double) to f32/f16/bf16 (or any small binary format) in every
// rounding mode.
//
// Rounding without touching the host floating-point environment:
//  * f32 arithmetic in .rn uses the host's float operations (IEEE, round-to-nearest-even, subnormals
//    supported: the simulator never sets DAZ/FTZ).
//  * f32 arithmetic in .rz/.rm/.rp is computed exactly as a double-double (hi, lo) with error-free
//    transformations (a product of two floats is exact in double; TwoSum gives the exact error of a
//    sum; fma gives the exact residual of a quotient or square root) and rounded once by
//    round_dd(), which works on the integer significand. No double rounding.
//  * f64 .rn uses host double arithmetic. f64 directed modes use with_rounding(), which switches the
//    host rounding mode for one warp instruction with compiler barriers around each operation (the
//    only place the environment is touched; it is restored before returning).
//
// NaN results: f32 arithmetic returns the canonical NaN 0x7fffffff (the GPU has a single canonical
// single-precision NaN, no payloads). f64 arithmetic propagates the payload of the first NaN operand
// (quieted) and creates 0xfff8000000000000 for invalid operations (CUDART_NAN); see nan64().
// f16/bf16 canonical NaN is 0x7fff.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace warpsim::fp {

// Rounding of a result to its format. Rna (ties away) exists only for conversions (cvt.rna).
enum class Rnd : uint8_t { Rn, Rz, Rm, Rp, Rna };

constexpr uint32_t kNaN32 = 0x7fffffffu;
constexpr uint64_t kNaN64 = 0xfff8000000000000ull;  // created by invalid f64 operations
constexpr uint16_t kNaN16 = 0x7fff;                 // f16 and bf16 canonical NaN

// ---------------------------------------------------------------- bit access

inline float f32(uint32_t b) { return std::bit_cast<float>(b); }
inline uint32_t b32(float f) { return std::bit_cast<uint32_t>(f); }
inline double f64(uint64_t b) { return std::bit_cast<double>(b); }
inline uint64_t b64(double d) { return std::bit_cast<uint64_t>(d); }

inline bool is_nan32(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
inline bool is_nan64(uint64_t b) { return (b & ~(1ull << 63)) > 0x7ff0000000000000ull; }
inline bool is_sub32(uint32_t b) { return (b & 0x7f800000u) == 0 && (b & 0x7fffffu) != 0; }
inline bool is_sub64(uint64_t b) { return (b & 0x7ff0000000000000ull) == 0 && (b & 0xfffffffffffffull) != 0; }

// Flush a subnormal to zero of the same sign (.ftz).
inline uint32_t ftz32(uint32_t b) { return (b & 0x7f800000u) == 0 ? b & 0x80000000u : b; }
inline float ftz32(float f) { return f32(ftz32(b32(f))); }
inline uint64_t ftz64(uint64_t b) { return (b & 0x7ff0000000000000ull) == 0 ? b & (1ull << 63) : b; }

// f32 result: canonical NaN for any NaN.
inline uint32_t canon32(float f) { return f != f ? kNaN32 : b32(f); }

// f64 NaN result: the first NaN operand, quieted; otherwise (invalid operation) kNaN64.
inline uint64_t nan64(uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  constexpr uint64_t q = 1ull << 51;
  if (is_nan64(a)) return a | q;
  if (is_nan64(b)) return b | q;
  if (is_nan64(c)) return c | q;
  return kNaN64;
}

// .sat: clamp to [0.0, 1.0], NaN -> +0.0 (and -0.0 -> +0.0).
inline float sat(float f) { return f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f; }
inline double sat(double d) { return d > 0.0 ? (d < 1.0 ? d : 1.0) : 0.0; }

// ---------------------------------------------------------------- exact rounding of (hi + lo)

// Rounds the exact value hi + lo to a binary format with `ebits` exponent bits and `mbits` fraction
// bits (f32: 8/23, f16: 5/10, bf16: 8/7, e4m3-style formats too, up to 11/52 exclusive), in mode r,
// and returns its bit pattern. Requirements: hi = RN_double(hi + lo) (so |lo| <= ulp(hi)/2); only the
// sign of lo is used, as a sticky bit. Infinite hi gives infinity; NaN gives the all-ones NaN
// 0x7f..f of the format (the caller canonicalises if its format wants another). Overflow follows
// IEEE: to infinity, or to the largest finite number where the mode rounds toward zero.
inline uint64_t round_dd(double hi, double lo, unsigned ebits, unsigned mbits, Rnd r) {
  const uint64_t sign = std::signbit(hi) ? 1ull << (ebits + mbits) : 0;
  const uint64_t inf = ((1ull << ebits) - 1) << mbits;
  if (std::isnan(hi)) return inf | ((1ull << mbits) - 1);
  if (std::isinf(hi)) return sign | inf;
  if (hi == 0) return sign;  // lo is 0 too
  const int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
  const bool neg = sign != 0;
  // sticky direction relative to the magnitude: +1 the exact value is a little larger than |hi|
  const int sl = lo == 0 ? 0 : ((lo > 0) != neg ? 1 : -1);
  uint64_t hb = b64(hi);
  int he = int((hb >> 52) & 0x7ff);
  uint64_t m = hb & 0xfffffffffffffull;
  int e;  // |hi| = m * 2^e
  if (he == 0) {
    e = -1074;
  } else {
    m |= 1ull << 52;
    e = he - 1075;
  }
  int E = std::ilogb(hi);
  if (m == (1ull << 52) && sl < 0) --E;  // |exact| is just below a power of two
  auto overflow = [&]() -> uint64_t {
    bool to_max = r == Rnd::Rz || (r == Rnd::Rm && !neg) || (r == Rnd::Rp && neg);
    return sign | (to_max ? inf - 1 : inf);
  };
  if (E > bias) return overflow();
  const int qe = (E > emin ? E : emin) - int(mbits);  // exponent of the result's last place
  const int shift = qe - e;
  uint64_t N;
  // remainder class of |exact| / 2^qe - N: 0 exact, 1 below half, 2 half, 3 above half
  int rc;
  if (shift <= 0) {
    N = m << -shift;
    rc = 0;
  } else if (shift > 60) {
    N = 0;
    rc = 1;
  } else {
    N = m >> shift;
    uint64_t rem = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    rc = rem == 0 ? 0 : rem < half ? 1 : rem == half ? 2 : 3;
  }
  if (sl != 0) {
    if (rc == 0) {
      if (sl > 0) rc = 1;
      else {
        N -= 1;  // N >= 1 here: hi != 0 and exact on the grid
        rc = 3;
      }
    } else if (rc == 2) {
      rc = sl > 0 ? 3 : 1;
    }
  }
  bool inc = false;
  switch (r) {
    case Rnd::Rn: inc = rc == 3 || (rc == 2 && (N & 1)); break;
    case Rnd::Rna: inc = rc >= 2; break;
    case Rnd::Rz: inc = false; break;
    case Rnd::Rm: inc = neg && rc != 0; break;
    case Rnd::Rp: inc = !neg && rc != 0; break;
  }
  N += inc;
  uint64_t bits = (uint64_t(qe + int(mbits) - emin) << mbits) + N;
  if (bits >= inf) return overflow();
  return sign | bits;
}

// A double rounded to f32 in any mode.
inline float round_f32(double x, Rnd r) {
  if (r == Rnd::Rn) return float(x);
  return f32(uint32_t(round_dd(x, 0.0, 8, 23, r)));
}

// ---------------------------------------------------------------- f32 arithmetic in any mode

namespace detail {
// TwoSum (Knuth): s = RN(a + b), a + b = s + e exactly (no overflow).
inline double two_sum(double a, double b, double& e) {
  double s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
  return s;
}
// Exact-zero sum sign in mode r: x + y == 0 exactly.
inline double zero_sum(double x, double y, Rnd r) {
  if (std::signbit(x) && std::signbit(y)) return -0.0;
  if (!std::signbit(x) && !std::signbit(y)) return 0.0;
  return r == Rnd::Rm ? -0.0 : 0.0;
}
}  // namespace detail

template <Rnd R>
inline float add_f32(float a, float b) {
  if constexpr (R == Rnd::Rn) return a + b;
  double e, s = detail::two_sum(double(a), double(b), e);
  if (s == 0) return float(detail::zero_sum(a, b, R));
  return f32(uint32_t(round_dd(s, e, 8, 23, R)));
}

template <Rnd R>
inline float mul_f32(float a, float b) {
  if constexpr (R == Rnd::Rn) return a * b;
  double p = double(a) * double(b);  // exact: 24 + 24 bits
  return f32(uint32_t(round_dd(p, 0.0, 8, 23, R)));
}

template <Rnd R>
inline float fma_f32(float a, float b, float c) {
  if constexpr (R == Rnd::Rn) return std::fma(a, b, c);
  double p = double(a) * double(b);  // exact
  if (std::isinf(p) || std::isnan(p) || std::isinf(c) || std::isnan(c)) return float(p + double(c));
  double e, s = detail::two_sum(p, double(c), e);
  if (s == 0 && e == 0) return float(detail::zero_sum(p, c, R));
  return f32(uint32_t(round_dd(s, e, 8, 23, R)));
}

template <Rnd R>
inline float div_f32(float a, float b) {
  if constexpr (R == Rnd::Rn) return a / b;
  double da = a, db = b, q = da / db;
  if (!std::isfinite(q) || q == 0) return float(q);
  double res = std::fma(-q, db, da);  // exact residual: a = q*b + res
  double lo = res == 0 ? 0.0 : ((res > 0) == (db > 0) ? 1.0 : -1.0);
  return f32(uint32_t(round_dd(q, lo, 8, 23, R)));
}

template <Rnd R>
inline float sqrt_f32(float a) {
  if constexpr (R == Rnd::Rn) return std::sqrt(a);
  double da = a, s = std::sqrt(da);
  if (!std::isfinite(s) || s == 0) return float(s);
  double res = std::fma(-s, s, da);
  return f32(uint32_t(round_dd(s, res, 8, 23, R)));
}

// ---------------------------------------------------------------- f64 directed rounding

// Runs f() with the host rounding mode set to r, restoring the previous mode. f must pass its
// operands and results through barrier() so the compiler cannot move the arithmetic across the mode
// switch or fold it.
template <typename T>
inline void barrier(T& v) {
  asm volatile("" : "+m"(v) : : "memory");
}
inline int host_mode(Rnd r) {
  switch (r) {
    case Rnd::Rz: return FE_TOWARDZERO;
    case Rnd::Rm: return FE_DOWNWARD;
    case Rnd::Rp: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}
template <typename F>
inline void with_rounding(Rnd r, F&& f) {
  if (r == Rnd::Rn) {
    f();
    return;
  }
  int old = std::fegetround();
  std::fesetround(host_mode(r));
  asm volatile("" ::: "memory");
  f();
  asm volatile("" ::: "memory");
  std::fesetround(old);
}

// ---------------------------------------------------------------- f16 / bf16

// Exact widening.
inline float f16_to_f32(uint16_t h) {
  uint32_t s = uint32_t(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return f32(s | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0));  // inf / NaN
  if (e == 0) {
    float v = float(m) * 0x1p-24f;  // subnormal or zero: exact
    return s ? -v : v;
  }
  return f32(s | ((e + 112) << 23) | (m << 13));
}
inline float bf16_to_f32(uint16_t h) { return f32(uint32_t(h) << 16); }

// Narrowing in any rounding mode (also Rna); NaN becomes the canonical 0x7fff. `x` may be the f32
// or f64 source value (both are exact in double, so there is no double rounding).
inline uint16_t to_f16(double x, Rnd r) {
  if (std::isnan(x)) return kNaN16;
  return uint16_t(round_dd(x, 0.0, 5, 10, r));
}
inline uint16_t to_bf16(double x, Rnd r) {
  if (std::isnan(x)) return kNaN16;
  return uint16_t(round_dd(x, 0.0, 8, 7, r));
}
// f16/bf16 subnormal flush (sign-preserving).
inline uint16_t ftz16(uint16_t h) { return (h & 0x7c00) == 0 ? h & 0x8000 : h; }
inline uint16_t ftzbf16(uint16_t h) { return (h & 0x7f80) == 0 ? h & 0x8000 : h; }

}  // namespace warpsim::fp
