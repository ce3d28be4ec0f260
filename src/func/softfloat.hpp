// Exact, host-rounding-mode-independent conversions between the floating-point formats of PTX
// (f64, f32, f16, bf16, tf32, e4m3, e5m2) and integers, with every rounding mode. Header-only.
//
// The core is round_mag(): a magnitude m * 2^e (plus an optional "sticky" tail strictly between 0
// and 2^e) is rounded to a format with integer arithmetic only. Every value of a format of 32 bits
// or fewer is exact in a double, so arithmetic on two such values can be done in double and
// rounded once: a + b (and a * b + c with an exact product) is split by TwoSum into s + err
// exactly, and round_sum(s, err) rounds the exact sum. The host FPU is only used in its default
// round-to-nearest mode (TwoSum needs it), never reconfigured.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace warpsim::func::sf {

enum class Mode : uint8_t { Rn, Rz, Rm, Rp, Rna };

struct Format {
  int mant;        // stored mantissa bits
  int exp;         // exponent bits
  int bias;
  bool has_inf;    // e4m3 has no infinity: overflow is NaN (or max with satfinite)
  int bits;        // storage bits (tf32: 32, stored as an f32 bit pattern)
  int shift;       // tf32: the value sits in bits [31:13] of an f32 pattern
  uint64_t qnan;   // the canonical NaN of the format
  uint64_t max_mant_at_top;  // largest mantissa field at the largest exponent field (finite)
};

inline constexpr Format kF64{52, 11, 1023, true, 64, 0, 0x7fffffffffffffffull, (1ull << 52) - 1};
inline constexpr Format kF32{23, 8, 127, true, 32, 0, 0x7fffffffu, (1u << 23) - 1};
inline constexpr Format kF16{10, 5, 15, true, 16, 0, 0x7fffu, (1u << 10) - 1};
inline constexpr Format kBF16{7, 8, 127, true, 16, 0, 0x7fffu, (1u << 7) - 1};
inline constexpr Format kTF32{10, 8, 127, true, 32, 13, 0x7fffffffu, (1u << 10) - 1};
inline constexpr Format kE4M3{3, 4, 7, false, 8, 0, 0x7fu, 6};
inline constexpr Format kE5M2{2, 5, 15, true, 8, 0, 0x7fu, 3};

// ------------------------------------------------------------------ field access

inline int emax_field(const Format& f) { return (1 << f.exp) - (f.has_inf ? 2 : 1); }
inline uint64_t sign_bit(const Format& f) { return 1ull << (f.bits - 1); }
inline uint64_t field_mask(const Format& f) {  // sign excluded, shifted tf32 included
  return (sign_bit(f) - 1) & ~((1ull << f.shift) - 1);
}
inline uint64_t exp_field(const Format& f, uint64_t b) { return (b >> (f.mant + f.shift)) & ((1ull << f.exp) - 1); }
inline uint64_t mant_field(const Format& f, uint64_t b) { return (b >> f.shift) & ((1ull << f.mant) - 1); }
inline bool is_nan(const Format& f, uint64_t b) {
  uint64_t e = exp_field(f, b), m = mant_field(f, b);
  if (f.has_inf) return e == (1ull << f.exp) - 1 && m != 0;
  return e == (1ull << f.exp) - 1 && m == (1ull << f.mant) - 1;  // e4m3: S.1111.111
}
inline bool is_inf(const Format& f, uint64_t b) {
  return f.has_inf && exp_field(f, b) == (1ull << f.exp) - 1 && mant_field(f, b) == 0;
}
inline bool is_zero(const Format& f, uint64_t b) { return (b & field_mask(f)) == 0; }
inline bool is_subnormal(const Format& f, uint64_t b) { return exp_field(f, b) == 0 && mant_field(f, b) != 0; }
inline bool is_neg(const Format& f, uint64_t b) { return (b >> (f.bits - 1)) & 1; }
inline uint64_t inf_bits(const Format& f, bool neg) {
  return (neg ? sign_bit(f) : 0) | (((1ull << f.exp) - 1) << (f.mant + f.shift));
}
inline uint64_t max_bits(const Format& f, bool neg) {
  return (neg ? sign_bit(f) : 0) | ((uint64_t(emax_field(f)) << f.mant | f.max_mant_at_top) << f.shift);
}
inline uint64_t zero_bits(const Format& f, bool neg) { return neg ? sign_bit(f) : 0; }
// Flush a subnormal to a sign-preserving zero.
inline uint64_t ftz(const Format& f, uint64_t b) { return is_subnormal(f, b) ? (b & sign_bit(f)) : b; }

inline double d_of(uint64_t b) { double d; std::memcpy(&d, &b, 8); return d; }
inline uint64_t b_of(double d) { uint64_t b; std::memcpy(&b, &d, 8); return b; }
inline float f_of(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
inline uint32_t b_of(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

// ------------------------------------------------------------------ rounding core

// Rounds (-1)^neg * (m * 2^e + t) to format f, where t == 0 when !sticky and 0 < t < 2^e when
// sticky. Handles subnormals and overflow (to inf, or max finite per the rounding direction; a
// format without infinity gives NaN, or max finite when satfinite).
inline uint64_t round_mag(bool neg, uint64_t m, int e, bool sticky, const Format& f, Mode r,
                          bool satfinite = false) {
  if (m == 0) {
    if (!sticky) return zero_bits(f, neg);
    // a pure tail below 2^e: treat as m = 1 at a much lower exponent with sticky
    m = 1;
    e -= 1;
  }
  // normalise to msb at bit 63; any tail stays strictly below the lowest bit
  int lz = std::countl_zero(m);
  m <<= lz;
  e -= lz;
  int E = 63 + e;                 // exponent of the leading bit
  int emin = 1 - f.bias;
  int q = (E < emin ? emin : E) - f.mant;  // exponent of the result's last kept bit
  int sh = q - e;                 // bits dropped, >= 63 - 52 = 11
  uint64_t kept, rem_hi;          // rem_hi: 0 below half, 1 exactly half, 2 above half (with tail)
  bool inexact;
  if (sh >= 65) {
    kept = 0;
    rem_hi = 0;
    inexact = true;
  } else if (sh == 64) {
    kept = 0;
    bool half = m == (1ull << 63);
    rem_hi = (m >> 63) ? ((half && !sticky) ? 1 : 2) : 0;
    inexact = true;
  } else {
    kept = m >> sh;
    uint64_t rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    rem_hi = rem < half ? 0 : (rem == half && !sticky) ? 1 : 2;
    inexact = rem != 0 || sticky;
  }
  bool up = false;
  if (inexact) switch (r) {
      case Mode::Rn: up = rem_hi == 2 || (rem_hi == 1 && (kept & 1)); break;
      case Mode::Rna: up = rem_hi >= 1; break;
      case Mode::Rz: up = false; break;
      case Mode::Rp: up = !neg; break;
      case Mode::Rm: up = neg; break;
    }
  kept += up;
  if (kept >> (f.mant + 1)) {  // carried into a new binade
    kept >>= 1;
    q += 1;
  }
  // overflow: beyond the largest finite value
  int top = q + f.mant;  // exponent of the leading bit if normal
  bool normal = (kept >> f.mant) & 1;
  int64_t biased = normal ? int64_t(top) + f.bias : 0;
  bool over = biased > emax_field(f) ||
              (biased == emax_field(f) && (kept & ((1ull << f.mant) - 1)) > f.max_mant_at_top);
  if (over) {
    bool to_inf;
    switch (r) {
      case Mode::Rn: case Mode::Rna: to_inf = true; break;
      case Mode::Rz: to_inf = false; break;
      case Mode::Rp: to_inf = !neg; break;
      default: to_inf = neg; break;
    }
    if (satfinite || !to_inf) return max_bits(f, neg);
    return f.has_inf ? inf_bits(f, neg) : f.qnan;
  }
  uint64_t body = (uint64_t(biased) << f.mant) | (kept & ((1ull << f.mant) - 1));
  return (neg ? sign_bit(f) : 0) | (body << f.shift);
}

// Exact decomposition of a finite nonzero double: |d| = m * 2^e.
inline void decompose(double d, uint64_t& m, int& e) {
  uint64_t b = b_of(d);
  int be = int((b >> 52) & 0x7ff);
  m = b & ((1ull << 52) - 1);
  if (be == 0) e = -1074;
  else {
    m |= 1ull << 52;
    e = be - 1075;
  }
}

// Value of any format as a double (exact for all but NaN payloads).
inline double to_double(const Format& f, uint64_t b) {
  if (f.bits == 64) return d_of(b);
  bool neg = is_neg(f, b);
  if (is_nan(f, b)) return std::numeric_limits<double>::quiet_NaN();
  if (is_inf(f, b)) return neg ? -INFINITY : INFINITY;
  uint64_t ef = exp_field(f, b), mf = mant_field(f, b);
  double v = ef == 0 ? std::ldexp(double(mf), 1 - f.bias - f.mant)
                     : std::ldexp(double(mf | (1ull << f.mant)), int(ef) - f.bias - f.mant);
  return neg ? -v : v;
}

// Rounds the exact value s + err (from TwoSum: |err| <= ulp(s)/2) to format f. Non-finite s
// must be handled by the caller. NaN results are the format's canonical NaN.
inline uint64_t round_sum(double s, double err, const Format& f, Mode r, bool satfinite = false) {
  if (std::isnan(s)) return f.qnan;
  bool neg = std::signbit(s);
  if (std::isinf(s)) {
    if (satfinite) return max_bits(f, neg);
    return f.has_inf ? inf_bits(f, neg) : f.qnan;
  }
  if (s == 0) {
    if (err == 0) return zero_bits(f, neg);
    s = err;
    err = 0;
    neg = std::signbit(s);
  }
  uint64_t m;
  int e;
  decompose(s, m, e);
  bool sticky = false;
  if (err != 0) {
    if (std::signbit(err) == neg) {
      sticky = true;  // |exact| slightly above |s|
    } else {          // |exact| slightly below |s|: (2m - 1) * 2^(e-1) + tail
      m = 2 * m - 1;
      e -= 1;
      sticky = true;
    }
  }
  return round_mag(neg, m, e, sticky, f, r, satfinite);
}

inline uint64_t from_double(double d, const Format& f, Mode r, bool satfinite = false) {
  return round_sum(d, 0.0, f, r, satfinite);
}

// TwoSum: s + err == a + b exactly (round-to-nearest host arithmetic, no overflow).
inline void two_sum(double a, double b, double& s, double& err) {
  s = a + b;
  double bb = s - a;
  err = (a - (s - bb)) + (b - bb);
  if (!std::isfinite(s)) err = 0;
}

// Float bits -> float bits. NaN: narrowing gives the destination's canonical NaN, widening keeps
// the payload (quietened), as IEEE 754 recommends.
inline uint64_t convert(const Format& from, uint64_t b, const Format& to, Mode r, bool satfinite = false) {
  if (is_nan(from, b)) {
    if (to.mant >= from.mant && to.exp >= from.exp && from.has_inf && to.has_inf && to.shift == 0) {
      uint64_t pay = mant_field(from, b) << (to.mant - from.mant);
      pay |= 1ull << (to.mant - 1);
      return (is_neg(from, b) ? sign_bit(to) : 0) | inf_bits(to, false) | pay;
    }
    return to.qnan;
  }
  if (is_inf(from, b)) {
    bool neg = is_neg(from, b);
    if (satfinite) return max_bits(to, neg);
    return to.has_inf ? inf_bits(to, neg) : to.qnan;
  }
  return from_double(to_double(from, b), to, r, satfinite);
}

// Integer -> float.
inline uint64_t from_int(bool neg, uint64_t mag, const Format& f, Mode r) {
  return round_mag(neg, mag, 0, false, f, r);
}

// Rounds a finite double to an integral double (exact integer logic). r: Rn (ties to even),
// Rz, Rm, Rp, Rna.
inline double round_integral(double d, Mode r) {
  if (!std::isfinite(d) || d == 0) return d;
  uint64_t m;
  int e;
  decompose(d, m, e);
  if (e >= 0) return d;
  bool neg = std::signbit(d);
  uint64_t ip, rem, half;
  int sh = -e;
  if (sh >= 64) {
    ip = 0;
    rem = m;  // nonzero, below half (m < 2^53 <= 2^(sh-1))
    half = ~0ull;
  } else {
    ip = m >> sh;
    rem = m & ((1ull << sh) - 1);
    half = 1ull << (sh - 1);
  }
  bool up = false;
  if (rem) switch (r) {
      case Mode::Rn: up = rem > half || (rem == half && (ip & 1)); break;
      case Mode::Rna: up = rem >= half; break;
      case Mode::Rz: break;
      case Mode::Rp: up = !neg; break;
      case Mode::Rm: up = neg; break;
    }
  ip += up;
  double v = double(ip);  // ip < 2^53: exact
  return neg ? -v : v;
}

// Float (as exact double) -> integer of `bits` width, saturating; NaN -> 0.
inline uint64_t to_int(double d, Mode r, bool is_signed, unsigned bits) {
  if (std::isnan(d)) return 0;
  int64_t smax = bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
  int64_t smin = -smax - 1;
  uint64_t umax = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  double v = round_integral(d, r);
  auto mask = [&](uint64_t x) { return bits >= 64 ? x : x & ((1ull << bits) - 1); };
  if (is_signed) {
    if (v >= 9223372036854775808.0) return mask(uint64_t(smax));
    if (v < -9223372036854775808.0) return mask(uint64_t(smin));
    int64_t iv = int64_t(v);
    if (iv > smax) iv = smax;
    if (iv < smin) iv = smin;
    return mask(uint64_t(iv));
  }
  if (v <= 0) return 0;
  if (v >= 18446744073709551616.0) return umax;
  uint64_t uv = uint64_t(v);
  return uv > umax ? umax : uv;
}

}  // namespace warpsim::func::sf
