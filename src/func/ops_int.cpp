// Integer and logic instructions (PTX ISA 8.7, 9.7.1-9.7.2 and 9.7.8-9.7.9): add/sub/mul/mad (all
// modes), mul24/mad24, sad, div/rem, abs/neg/min/max, popc/clz/bfind/fns/brev/bfe/bfi/szext/bmsk,
// dp4a/dp2a, the extended-precision carry chain (add.cc/addc/sub.cc/subc/mad.cc/madc), and/or/xor/
// not/cnot on integers and predicates, lop3, shf/shl/shr, prmt, and the SIMD video instructions
// (vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4, vmax2/4).
//
// Every handler is a template over the operation and its type, chosen at decode time, so a warp
// instruction is one loop over 32 lanes with no per-lane dispatch. Values are read from canonical
// 64-bit slots by truncating to the operand type and written back zero-extended (canon).
// All arithmetic is done in unsigned types (or wider types) so overflow is never C++ UB.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "func/decode.hpp"
#include "func/exec.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

template <typename T>
using U_t = std::make_unsigned_t<T>;
template <typename T>
constexpr unsigned kBits = sizeof(T) * 8;

// Result of T written to a slot: zero-extended from T's width.
template <typename T>
inline uint64_t wr(T v) {
  return uint64_t(U_t<T>(v));
}
// Sign-extended value of T as int64 (or zero-extended for unsigned T).
template <typename T>
inline int64_t wide_s(uint64_t v) {
  return int64_t(as<T>(v));
}

using Fn1 = uint64_t (*)(uint64_t);
using Fn2 = uint64_t (*)(uint64_t, uint64_t);
using Fn3 = uint64_t (*)(uint64_t, uint64_t, uint64_t);
using Fn4 = uint64_t (*)(uint64_t, uint64_t, uint64_t, uint64_t);

// ------------------------------------------------------------------ generic lane loops

template <Fn1 F>
void exec1(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return F(a[l]); });
}
template <Fn2 F>
void exec2(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return F(a[l], b[l]); });
}
template <Fn3 F>
void exec3(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* c = ctx.src(in.op[3]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return F(a[l], b[l], c[l]); });
}
template <Fn4 F>
void exec4(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* c = ctx.src(in.op[3]);
  const uint64_t* e = ctx.src(in.op[4]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return F(a[l], b[l], c[l], e[l]); });
}

// ------------------------------------------------------------------ arithmetic

template <typename T> uint64_t op_add(uint64_t a, uint64_t b) { return wr<T>(T(U_t<T>(a) + U_t<T>(b))); }
template <typename T> uint64_t op_sub(uint64_t a, uint64_t b) { return wr<T>(T(U_t<T>(a) - U_t<T>(b))); }
uint64_t op_add_sat_s32(uint64_t a, uint64_t b) {
  int64_t r = int64_t(as<int32_t>(a)) + as<int32_t>(b);
  r = std::clamp<int64_t>(r, INT32_MIN, INT32_MAX);
  return wr<int32_t>(int32_t(r));
}
uint64_t op_sub_sat_s32(uint64_t a, uint64_t b) {
  int64_t r = int64_t(as<int32_t>(a)) - as<int32_t>(b);
  r = std::clamp<int64_t>(r, INT32_MIN, INT32_MAX);
  return wr<int32_t>(int32_t(r));
}

// Packed 16x2: the operation applied to each 16-bit half.
template <typename H, uint64_t (*F)(uint64_t, uint64_t)>
uint64_t op_x2(uint64_t a, uint64_t b) {
  uint64_t lo = F(a & 0xffff, b & 0xffff);
  uint64_t hi = F((a >> 16) & 0xffff, (b >> 16) & 0xffff);
  return (lo & 0xffff) | ((hi & 0xffff) << 16);
}

// mul.lo / mul.hi / mul.wide
template <typename T> uint64_t op_mul_lo(uint64_t a, uint64_t b) { return canon(a * b, kBits<T>); }
template <typename T>
int64_t mul_hi_raw(uint64_t a, uint64_t b) {
  if constexpr (sizeof(T) == 8) {
    if constexpr (std::is_signed_v<T>)
      return int64_t(uint64_t((__int128)as<int64_t>(a) * (__int128)as<int64_t>(b) >> 64));
    else
      return int64_t(uint64_t((unsigned __int128)a * b >> 64));
  } else if constexpr (std::is_signed_v<T>) {
    return (wide_s<T>(a) * wide_s<T>(b)) >> kBits<T>;  // fits in int64: no overflow
  } else {
    return int64_t((uint64_t(as<T>(a)) * uint64_t(as<T>(b))) >> kBits<T>);
  }
}
template <typename T> uint64_t op_mul_hi(uint64_t a, uint64_t b) { return canon(uint64_t(mul_hi_raw<T>(a, b)), kBits<T>); }
template <typename T>  // T is 16 or 32 bits; the result is twice as wide
uint64_t op_mul_wide(uint64_t a, uint64_t b) {
  if constexpr (std::is_signed_v<T>)
    return canon(uint64_t(wide_s<T>(a) * wide_s<T>(b)), 2 * kBits<T>);
  else
    return canon(uint64_t(as<T>(a)) * uint64_t(as<T>(b)), 2 * kBits<T>);
}
template <typename T> uint64_t op_mad_lo(uint64_t a, uint64_t b, uint64_t c) { return canon(a * b + c, kBits<T>); }
template <typename T> uint64_t op_mad_hi(uint64_t a, uint64_t b, uint64_t c) {
  return canon(uint64_t(mul_hi_raw<T>(a, b)) + c, kBits<T>);
}
template <typename T> uint64_t op_mad_wide(uint64_t a, uint64_t b, uint64_t c) {
  return canon(op_mul_wide<T>(a, b) + c, 2 * kBits<T>);
}
// mad.hi.sat.s32: hi(a*b) + c saturated to the s32 range.
uint64_t op_mad_hi_sat_s32(uint64_t a, uint64_t b, uint64_t c) {
  int64_t r = mul_hi_raw<int32_t>(a, b) + as<int32_t>(c);
  return wr<int32_t>(int32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)));
}

// mul24/mad24: 24-bit operands (low 24 bits; sign-extended from bit 23 for .s32), 48-bit product;
// .lo gives its bits 31..0, .hi its bits 47..16.
template <bool S>
int64_t mul24_raw(uint64_t a, uint64_t b) {
  if constexpr (S) {
    int64_t x = int64_t(uint64_t(a) << 40) >> 40, y = int64_t(uint64_t(b) << 40) >> 40;
    return x * y;
  } else {
    return int64_t((a & 0xffffff) * (b & 0xffffff));
  }
}
template <bool S> uint64_t op_mul24_lo(uint64_t a, uint64_t b) { return canon(uint64_t(mul24_raw<S>(a, b)), 32); }
template <bool S> uint64_t op_mul24_hi(uint64_t a, uint64_t b) { return canon(uint64_t(mul24_raw<S>(a, b) >> 16), 32); }
template <bool S> uint64_t op_mad24_lo(uint64_t a, uint64_t b, uint64_t c) { return canon(uint64_t(mul24_raw<S>(a, b)) + c, 32); }
template <bool S> uint64_t op_mad24_hi(uint64_t a, uint64_t b, uint64_t c) {
  return canon(uint64_t(mul24_raw<S>(a, b) >> 16) + c, 32);
}
uint64_t op_mad24_hi_sat_s32(uint64_t a, uint64_t b, uint64_t c) {
  int64_t r = int64_t(int32_t(uint32_t(uint64_t(mul24_raw<true>(a, b) >> 16)))) + as<int32_t>(c);
  return wr<int32_t>(int32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)));
}

// sad: c + |a - b|
template <typename T> uint64_t op_sad(uint64_t a, uint64_t b, uint64_t c) {
  T x = as<T>(a), y = as<T>(b);
  U_t<T> diff = x < y ? U_t<T>(U_t<T>(y) - U_t<T>(x)) : U_t<T>(U_t<T>(x) - U_t<T>(y));
  return wr<T>(T(U_t<T>(U_t<T>(c) + diff)));
}

// div/rem. Division by zero is unspecified in PTX; the hardware's unsigned division returns all
// ones, and we return all ones for every type (signed too: -1) and the dividend for rem. The one
// signed overflow, MIN / -1, wraps to MIN (remainder 0), as the hardware does.
template <typename T> uint64_t op_div(uint64_t a, uint64_t b) {
  T x = as<T>(a), y = as<T>(b);
  if (y == 0) return canon(~0ull, kBits<T>);
  if constexpr (std::is_signed_v<T>)
    if (y == T(-1)) return wr<T>(T(U_t<T>(0) - U_t<T>(x)));
  return wr<T>(T(x / y));
}
template <typename T> uint64_t op_rem(uint64_t a, uint64_t b) {
  T x = as<T>(a), y = as<T>(b);
  if (y == 0) return wr<T>(x);
  if constexpr (std::is_signed_v<T>)
    if (y == T(-1)) return 0;
  return wr<T>(T(x % y));
}

template <typename T> uint64_t op_abs(uint64_t a) {
  T x = as<T>(a);
  return wr<T>(T(x < 0 ? U_t<T>(U_t<T>(0) - U_t<T>(x)) : U_t<T>(x)));  // abs(MIN) = MIN
}
template <typename T> uint64_t op_neg(uint64_t a) { return wr<T>(T(U_t<T>(0) - U_t<T>(as<T>(a)))); }

template <typename T> uint64_t op_min(uint64_t a, uint64_t b) { return wr<T>(std::min(as<T>(a), as<T>(b))); }
template <typename T> uint64_t op_max(uint64_t a, uint64_t b) { return wr<T>(std::max(as<T>(a), as<T>(b))); }
template <typename T> uint64_t op_min_relu(uint64_t a, uint64_t b) { return wr<T>(std::max(std::min(as<T>(a), as<T>(b)), T(0))); }
template <typename T> uint64_t op_max_relu(uint64_t a, uint64_t b) { return wr<T>(std::max(std::max(as<T>(a), as<T>(b)), T(0))); }

// ------------------------------------------------------------------ bit manipulation

template <typename T> uint64_t op_popc(uint64_t a) { return uint64_t(std::popcount(U_t<T>(a))); }
template <typename T> uint64_t op_clz(uint64_t a) { return uint64_t(std::countl_zero(U_t<T>(a))); }
template <typename T> uint64_t op_brev(uint64_t a) {
  U_t<T> x = U_t<T>(a), r = 0;
  for (unsigned i = 0; i < kBits<T>; ++i) r |= U_t<T>((x >> i) & 1) << (kBits<T> - 1 - i);
  return wr<T>(T(r));
}
// bfind: position of the most significant non-sign bit (signed) or set bit (unsigned);
// 0xffffffff when there is none; .shiftamt gives (width - 1 - pos) instead.
template <typename T, bool ShiftAmt> uint64_t op_bfind(uint64_t a) {
  U_t<T> x = U_t<T>(a);
  if constexpr (std::is_signed_v<T>)
    if (T(x) < 0) x = U_t<T>(~x);
  if (x == 0) return 0xffffffffull;
  unsigned pos = kBits<T> - 1 - unsigned(std::countl_zero(x));
  return ShiftAmt ? kBits<T> - 1 - pos : pos;
}
// fns.b32 d, mask, base, offset
uint64_t op_fns(uint64_t m, uint64_t b, uint64_t o) {
  uint32_t mask = uint32_t(m), base = uint32_t(b);
  int32_t off = as<int32_t>(o);
  if (off == 0) return base < 32 && (mask >> base & 1) ? base : 0xffffffffull;
  int64_t pos = base, count = (off > 0 ? int64_t(off) : -int64_t(off)) - 1;
  int inc = off > 0 ? 1 : -1;
  while (pos >= 0 && pos < 32) {
    if (mask >> pos & 1) {
      if (count == 0) return uint64_t(pos);
      --count;
    }
    pos += inc;
  }
  return 0xffffffffull;
}
// bfe: extract len = c & 0xff bits from pos = b & 0xff, zero- or sign-extended.
template <typename T> uint64_t op_bfe(uint64_t a, uint64_t b, uint64_t c) {
  constexpr unsigned msb = kBits<T> - 1;
  U_t<T> x = U_t<T>(a);
  unsigned pos = unsigned(b & 0xff), len = unsigned(c & 0xff);
  if (len == 0) return 0;
  bool sbit = false;
  if constexpr (std::is_signed_v<T>) sbit = (x >> std::min(pos + len - 1, msb)) & 1;
  U_t<T> r;
  if (pos > msb) {
    r = sbit ? U_t<T>(~U_t<T>(0)) : 0;
  } else {
    unsigned n = std::min(len, msb + 1 - pos);  // bits actually taken from a
    U_t<T> field = U_t<T>(x >> pos);
    U_t<T> keep = n >= kBits<T> ? U_t<T>(~U_t<T>(0)) : U_t<T>((U_t<T>(1) << n) - 1);
    r = U_t<T>(field & keep);
    if (sbit) r |= U_t<T>(~keep);
  }
  return wr<T>(T(r));
}
// bfi: insert the low len = d & 0xff bits of a into b at pos = c & 0xff.
template <typename T> uint64_t op_bfi(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  constexpr unsigned msb = kBits<T> - 1;
  using U = U_t<T>;
  unsigned pos = unsigned(c & 0xff), len = unsigned(d & 0xff);
  U f = U(b);
  if (len == 0 || pos > msb) return wr<T>(T(f));
  unsigned n = std::min(len, msb + 1 - pos);
  U keep = n >= kBits<T> ? U(~U(0)) : U((U(1) << n) - 1);
  f = U((f & U(~U(keep << pos))) | U((U(a) & keep) << pos));
  return wr<T>(T(f));
}
// szext.mode.type d, a, b
template <bool Signed, bool Clamp> uint64_t op_szext(uint64_t a, uint64_t b) {
  uint32_t x = uint32_t(a), n = uint32_t(b), b1 = n & 31;
  bool too_large = Clamp && n >= 32;
  uint32_t mask = too_large ? 0u : ~0u << b1;
  bool sign = !(b1 == 0 || too_large || !Signed) && ((x >> ((b1 - 1) & 31)) & 1);
  return (x & ~mask) | (sign ? mask : 0u);
}
// bmsk.mode.b32 d, a, b
template <bool Clamp> uint64_t op_bmsk(uint64_t a_, uint64_t b_) {
  uint32_t a = uint32_t(a_), b = uint32_t(b_);
  uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
  uint32_t mask0 = ~0u << a1;
  uint32_t mask1 = sum >= 32 ? 0u : ~0u << sum;
  bool overflow = sum >= 32;
  if (Clamp) {
    if (a >= 32) { overflow = true; mask0 = 0; }
    if (b >= 32) overflow = true;
  }
  if (overflow) mask1 = 0;
  else if (b1 == 0) mask1 = ~0u;
  return mask0 & ~mask1;
}

// dp4a.atype.btype d, a, b, c: c + sum of the four byte products.
template <bool SA, bool SB> uint64_t op_dp4a(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t acc = uint32_t(c);
  for (unsigned i = 0; i < 4; ++i) {
    uint32_t x = uint32_t(a >> (8 * i)) & 0xff, y = uint32_t(b >> (8 * i)) & 0xff;
    int32_t xs = SA ? int32_t(int8_t(uint8_t(x))) : int32_t(x);
    int32_t ys = SB ? int32_t(int8_t(uint8_t(y))) : int32_t(y);
    acc += uint32_t(xs * ys);  // |xs*ys| <= 255*255: no overflow
  }
  return acc;
}
// dp2a.mode.atype.btype d, a, b, c: c + a.h0 * b.b[i] + a.h1 * b.b[i+1], i = 0 (.lo) or 2 (.hi).
template <bool Hi, bool SA, bool SB> uint64_t op_dp2a(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t acc = uint32_t(c);
  unsigned base = Hi ? 2 : 0;
  for (unsigned i = 0; i < 2; ++i) {
    uint32_t x = uint32_t(a >> (16 * i)) & 0xffff, y = uint32_t(b >> (8 * (base + i))) & 0xff;
    int64_t xs = SA ? int64_t(int16_t(uint16_t(x))) : int64_t(x);
    int64_t ys = SB ? int64_t(int8_t(uint8_t(y))) : int64_t(y);
    acc += uint32_t(uint64_t(xs * ys));
  }
  return acc;
}

// ------------------------------------------------------------------ logic and shifts

template <typename T> uint64_t op_and(uint64_t a, uint64_t b) { return canon(a & b, kBits<T>); }
template <typename T> uint64_t op_or(uint64_t a, uint64_t b) { return canon(a | b, kBits<T>); }
template <typename T> uint64_t op_xor(uint64_t a, uint64_t b) { return canon(a ^ b, kBits<T>); }
template <typename T> uint64_t op_not(uint64_t a) { return canon(~a, kBits<T>); }
template <typename T> uint64_t op_cnot(uint64_t a) { return U_t<T>(a) == 0 ? 1 : 0; }

// shl/shr: the amount is an unsigned 32-bit value; amounts >= width give 0 (or the sign fill).
template <typename T> uint64_t op_shl(uint64_t a, uint64_t b) {
  uint32_t n = uint32_t(b);
  return n >= kBits<T> ? 0 : canon(a << n, kBits<T>);
}
template <typename T> uint64_t op_shr(uint64_t a, uint64_t b) {
  uint32_t n = std::min<uint32_t>(uint32_t(b), kBits<T> - 1);
  if constexpr (std::is_signed_v<T>) {
    return wr<T>(T(as<T>(a) >> n));  // arithmetic; n clamped to width-1 = full sign fill
  } else {
    return uint32_t(b) >= kBits<T> ? 0 : uint64_t(U_t<T>(a) >> n);
  }
}
// shf.{l,r}.{clamp,wrap}.b32 d, a, b, c: funnel shift of b:a by c.
template <bool Left, bool Clamp> uint64_t op_shf(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t n = uint32_t(c);
  n = Clamp ? std::min<uint32_t>(n, 32) : (n & 31);
  uint64_t v = (uint64_t(uint32_t(b)) << 32) | uint32_t(a);
  return Left ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
}

// prmt.b32{.mode} d, a, b, c. flags: mode (0 default, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16).
// Mode tables give the source byte index for d.b0..d.b3, selected by c[1:0].
constexpr uint8_t kPrmtModes[6][4][4] = {
    {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
    {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
    {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
    {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
    {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
};
uint64_t op_prmt(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t src = (uint64_t(uint32_t(b)) << 32) | uint32_t(a);
  uint32_t sel = uint32_t(c), r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    uint32_t s = (sel >> (4 * i)) & 15;
    uint32_t byte = uint32_t(src >> ((s & 7) * 8)) & 0xff;
    if (s & 8) byte = (byte & 0x80) ? 0xff : 0;  // replicate the sign bit
    r |= byte << (8 * i);
  }
  return r;
}
template <unsigned Mode> uint64_t op_prmt_mode(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t src = (uint64_t(uint32_t(b)) << 32) | uint32_t(a);
  const uint8_t* t = kPrmtModes[Mode - 1][c & 3];
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) r |= (uint32_t(src >> (t[i] * 8)) & 0xff) << (8 * i);
  return r;
}

// lop3.b32 d, a, b, c, immLut (imm = LUT): bit i of d = LUT[a_i*4 + b_i*2 + c_i].
inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (unsigned k = 0; k < 8; ++k) {
    if (!(lut >> k & 1)) continue;
    uint32_t ma = (k & 4) ? a : ~a, mb = (k & 2) ? b : ~b, mc = (k & 1) ? c : ~c;
    r |= ma & mb & mc;
  }
  return r;
}
void exec_lop3(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* c = ctx.src(in.op[3]);
  uint32_t lut = uint32_t(in.imm);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return uint64_t(lop3(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), lut)); });
}
// lop3.{or,and}.b32 d|p, a, b, c, immLut, q: ops = d (or none), p, a, b, c, q; flags: 1 = .and.
void exec_lop3_pred(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[2]);
  const uint64_t* b = ctx.src(in.op[3]);
  const uint64_t* c = ctx.src(in.op[4]);
  uint32_t lut = uint32_t(in.imm), nz = 0;
  uint64_t r[kWarpSize];
  for (unsigned l = 0; l < kWarpSize; ++l) {
    r[l] = lop3(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), lut);
    nz |= uint32_t(r[l] != 0) << l;
  }
  uint32_t q = ctx.pred(in.op[5]);
  uint32_t p = in.flags ? (nz & q) : (nz | q);
  if (!in.op[0].is_none()) for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return r[l]; });
  ctx.set_pred(in.op[1], p, mask);
}

// Predicate logic. flags: 0 and, 1 or, 2 xor, 3 not.
// A predicate source: a register, or an integer constant (nvcc writes LLVM's `not i1` as
// `xor.pred %p, %q, -1`; zero is False, anything else True), decoded as an all-lanes mask.
inline uint32_t pred_source(const ExecCtx& ctx, Ref r) {
  return r.kind() == Ref::Const ? uint32_t(ctx.src(r)[0]) : ctx.pred(r);
}

void exec_pred_logic(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t a = pred_source(ctx, in.op[1]);
  uint32_t r;
  switch (in.flags) {
    case 0: r = a & pred_source(ctx, in.op[2]); break;
    case 1: r = a | pred_source(ctx, in.op[2]); break;
    case 2: r = a ^ pred_source(ctx, in.op[2]); break;
    default: r = ~a; break;
  }
  ctx.set_pred(in.op[0], r, mask);
}

// ------------------------------------------------------------------ extended precision (CC.CF)

// Carry-chain operations on U (uint32_t/uint64_t). CC.CF is a carry for additions and a borrow for
// subtractions (PTX: subc computes a - (b + CC.CF)). Op: 0 add, 1 sub, 2 mad.lo, 3 mad.hi.
template <typename T, int Op, bool Cin, bool Cout>
void exec_carry(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  using U = U_t<T>;
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* c = Op >= 2 ? ctx.src(in.op[3]) : nullptr;
  uint32_t cf = ctx.w.carry, out = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    U x = U(a[l]), y = U(b[l]);
    U ci = Cin ? U((cf >> l) & 1) : U(0);
    U r;
    bool co;
    if constexpr (Op == 1) {
      U t = U(x - y);
      r = U(t - ci);
      co = (x < y) || (t < ci);
    } else {
      if constexpr (Op == 0) {
        // x is already a
      } else if constexpr (Op == 2) {
        x = U(uint64_t(a[l]) * uint64_t(b[l]));
        y = U(c[l]);
      } else {
        x = U(uint64_t(mul_hi_raw<T>(a[l], b[l])));
        y = U(c[l]);
      }
      U t = U(x + y);
      r = U(t + ci);
      co = (t < x) || (r < t);
    }
    d[l] = (mask >> l & 1) ? uint64_t(r) : d[l];
    out |= uint32_t(co) << l;
  }
  if (Cout) ctx.w.carry = (cf & ~mask) | (out & mask);
}

// ------------------------------------------------------------------ decoding helpers

bool is_int_type(Type t) {
  switch (t) {
    case Type::B16: case Type::B32: case Type::B64: case Type::U16: case Type::U32: case Type::U64:
    case Type::S16: case Type::S32: case Type::S64: return true;
    default: return false;
  }
}

// Calls f with a value of the C++ type for an integer PTX type (b types as unsigned). False if t
// is not one of the 16/32/64-bit integer types.
template <typename F>
bool with_type(Type t, F&& f) {
  switch (t) {
    case Type::U16: case Type::B16: f(uint16_t{}); return true;
    case Type::U32: case Type::B32: f(uint32_t{}); return true;
    case Type::U64: case Type::B64: f(uint64_t{}); return true;
    case Type::S16: f(int16_t{}); return true;
    case Type::S32: f(int32_t{}); return true;
    case Type::S64: f(int64_t{}); return true;
    default: return false;
  }
}

std::string iname(const Instruction& ins) {
  std::string s(opcode_name(ins.op));
  for (unsigned i = 0; i < ins.nmods; ++i) {
    s += '.';
    s += mod_name(ins.mods[i]);
  }
  return s;
}

bool unsupported(DecodeCtx& c, const Instruction& ins, const std::string& why) {
  return c.fail(fmt::format("'{}': {}", iname(ins), why));
}

// Decodes the operands with their types: op[0] is the destination (must be a register), the rest
// sources (registers or immediates, no predicates).
bool operands(DecodeCtx& c, const Instruction& ins, DInstr& out, std::initializer_list<Type> types) {
  if (ins.operands.size() != types.size())
    return unsupported(c, ins, fmt::format("expected {} operands, got {}", types.size(), ins.operands.size()));
  std::vector<Ref> refs;
  size_t i = 0;
  for (Type t : types) {
    const Operand& o = ins.operands[i];
    Ref r = c.ref(o, t);
    if (r.is_none()) return c.error.empty() ? unsupported(c, ins, fmt::format("operand {} is not usable", i + 1)) : false;
    if (r.kind() == Ref::Pred) return unsupported(c, ins, fmt::format("operand {} is a predicate", i + 1));
    if (i == 0 && r.kind() != Ref::Reg) return unsupported(c, ins, "the destination must be a register");
    refs.push_back(r);
    ++i;
  }
  c.set_ops(out, refs);
  return true;
}

// Owns the form when it is an integer type; false without error for floating types (another
// family decodes them).
enum class Own { Mine, NotMine, Bad };
Own classify(DecodeCtx& c, const Instruction& ins, Type t) {
  if (is_float_type(t)) return Own::NotMine;
  if (t == Type::None) {
    // A type modifier with no ptx::Type (e.g. .f32x2) belongs to another family; none at all is an error.
    for (unsigned i = 0; i < ins.nmods; ++i)
      if (mod_class(ins.mods[i]) == ModClass::Type) return Own::NotMine;
    unsupported(c, ins, "missing type");
    return Own::Bad;
  }
  return Own::Mine;
}

Type wide_of(Type t) {
  switch (t) {
    case Type::U16: return Type::U32;
    case Type::S16: return Type::S32;
    case Type::U32: return Type::U64;
    case Type::S32: return Type::S64;
    default: return Type::None;
  }
}

// Packed .u16x2/.s16x2 (not a ptx::Type: they only exist as modifiers): 0 none, 1 u16x2, 2 s16x2.
int packed_of(const Instruction& ins) { return ins.has(Mod::u16x2) ? 1 : ins.has(Mod::s16x2) ? 2 : 0; }
bool is_bit_type(Type t) { return t == Type::B16 || t == Type::B32 || t == Type::B64; }

// ------------------------------------------------------------------ decoders

// add / sub (incl .sat.s32, .cc, packed 16x2)
template <bool Sub>
bool dec_addsub(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  int pk = packed_of(ins);
  if (!pk) switch (classify(c, ins, t)) {
      case Own::NotMine: return false;
      case Own::Bad: return false;
      default: break;
    }
  bool sat = ins.has(Mod::sat), cc = ins.has(Mod::cc);
  if (pk) {
    if (sat || cc) return unsupported(c, ins, ".sat/.cc are not valid with packed types");
    if (!operands(c, ins, out, {Type::B32, Type::B32, Type::B32})) return false;
    if (pk == 1) out.exec = Sub ? exec2<op_x2<uint16_t, op_sub<uint16_t>>> : exec2<op_x2<uint16_t, op_add<uint16_t>>>;
    else out.exec = Sub ? exec2<op_x2<int16_t, op_sub<int16_t>>> : exec2<op_x2<int16_t, op_add<int16_t>>>;
    return true;
  }
  if (!is_int_type(t) || is_bit_type(t)) return unsupported(c, ins, "type not supported for add/sub");
  if (!operands(c, ins, out, {t, t, t})) return false;
  if (sat) {
    if (t != Type::S32 || cc) return unsupported(c, ins, ".sat is only valid as .sat.s32");
    out.exec = Sub ? exec2<op_sub_sat_s32> : exec2<op_add_sat_s32>;
    return true;
  }
  if (cc) {
    if (type_bits(t) < 32) return unsupported(c, ins, ".cc needs a 32- or 64-bit type");
    if (type_bits(t) == 32) out.exec = Sub ? exec_carry<uint32_t, 1, false, true> : exec_carry<uint32_t, 0, false, true>;
    else out.exec = Sub ? exec_carry<uint64_t, 1, false, true> : exec_carry<uint64_t, 0, false, true>;
    return true;
  }
  with_type(t, [&](auto x) {
    using T = decltype(x);
    out.exec = Sub ? exec2<op_sub<T>> : exec2<op_add<T>>;
  });
  return true;
}

// addc / subc {.cc}
template <bool Sub>
bool dec_addsubc(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (!is_int_type(t) || is_bit_type(t) || type_bits(t) < 32)
    return unsupported(c, ins, "needs type .u32, .s32, .u64 or .s64");
  if (!operands(c, ins, out, {t, t, t})) return false;
  bool cc = ins.has(Mod::cc), w64 = type_bits(t) == 64;
  constexpr int Op = Sub ? 1 : 0;
  if (w64) out.exec = cc ? exec_carry<uint64_t, Op, true, true> : exec_carry<uint64_t, Op, true, false>;
  else out.exec = cc ? exec_carry<uint32_t, Op, true, true> : exec_carry<uint32_t, Op, true, false>;
  return true;
}

enum class MulMode { Lo, Hi, Wide };
MulMode mul_mode(const Instruction& ins) {
  if (ins.has(Mod::hi)) return MulMode::Hi;
  if (ins.has(Mod::wide)) return MulMode::Wide;
  return MulMode::Lo;
}

bool dec_mul(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  switch (classify(c, ins, t)) {
    case Own::NotMine: return false;
    case Own::Bad: return false;
    default: break;
  }
  if (!is_int_type(t) || is_bit_type(t)) return unsupported(c, ins, "type not supported for mul");
  MulMode m = mul_mode(ins);
  if (m == MulMode::Wide) {
    Type w = wide_of(t);
    if (w == Type::None) return unsupported(c, ins, ".wide needs a 16- or 32-bit type");
    if (!operands(c, ins, out, {w, t, t})) return false;
    with_type(t, [&](auto x) {
      using T = decltype(x);
      if constexpr (sizeof(T) < 8) out.exec = exec2<op_mul_wide<T>>;
    });
    return true;
  }
  if (!operands(c, ins, out, {t, t, t})) return false;
  with_type(t, [&](auto x) {
    using T = decltype(x);
    out.exec = m == MulMode::Hi ? exec2<op_mul_hi<T>> : exec2<op_mul_lo<T>>;
  });
  return true;
}

template <bool Carry>  // false: mad (incl .cc), true: madc
bool dec_mad(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (!Carry) switch (classify(c, ins, t)) {
      case Own::NotMine: return false;
      case Own::Bad: return false;
      default: break;
    }
  if (!is_int_type(t) || is_bit_type(t)) return unsupported(c, ins, "type not supported for mad");
  MulMode m = mul_mode(ins);
  bool sat = ins.has(Mod::sat), cc = ins.has(Mod::cc);
  if (Carry || cc) {
    if (type_bits(t) < 32 || m == MulMode::Wide || sat)
      return unsupported(c, ins, "carry forms need .lo/.hi and type .u32, .s32, .u64 or .s64");
    if (!operands(c, ins, out, {t, t, t, t})) return false;
    bool hi = m == MulMode::Hi;
    with_type(t, [&](auto x) {
      using T = decltype(x);
      if constexpr (sizeof(T) >= 4) {
        if (Carry) {
          if (cc) out.exec = hi ? exec_carry<T, 3, true, true> : exec_carry<T, 2, true, true>;
          else out.exec = hi ? exec_carry<T, 3, true, false> : exec_carry<T, 2, true, false>;
        } else {
          out.exec = hi ? exec_carry<T, 3, false, true> : exec_carry<T, 2, false, true>;
        }
      }
    });
    return true;
  }
  if (m == MulMode::Wide) {
    Type w = wide_of(t);
    if (w == Type::None || sat) return unsupported(c, ins, ".wide needs a 16- or 32-bit type (and no .sat)");
    if (!operands(c, ins, out, {w, t, t, w})) return false;
    with_type(t, [&](auto x) {
      using T = decltype(x);
      if constexpr (sizeof(T) < 8) out.exec = exec3<op_mad_wide<T>>;
    });
    return true;
  }
  if (!operands(c, ins, out, {t, t, t, t})) return false;
  if (sat) {
    if (t != Type::S32 || m != MulMode::Hi) return unsupported(c, ins, ".sat is only valid as mad.hi.sat.s32");
    out.exec = exec3<op_mad_hi_sat_s32>;
    return true;
  }
  with_type(t, [&](auto x) {
    using T = decltype(x);
    out.exec = m == MulMode::Hi ? exec3<op_mad_hi<T>> : exec3<op_mad_lo<T>>;
  });
  return true;
}

template <bool Mad>
bool dec_24(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::U32 && t != Type::S32) return unsupported(c, ins, "needs type .u32 or .s32");
  bool hi = ins.has(Mod::hi), sat = ins.has(Mod::sat), s = t == Type::S32;
  if (ins.has(Mod::wide)) return unsupported(c, ins, ".wide is not valid");
  if (Mad) {
    if (!operands(c, ins, out, {t, t, t, t})) return false;
    if (sat) {
      if (!s || !hi) return unsupported(c, ins, ".sat is only valid as mad24.hi.sat.s32");
      out.exec = exec3<op_mad24_hi_sat_s32>;
      return true;
    }
    out.exec = hi ? (s ? exec3<op_mad24_hi<true>> : exec3<op_mad24_hi<false>>)
                  : (s ? exec3<op_mad24_lo<true>> : exec3<op_mad24_lo<false>>);
    return true;
  }
  if (sat) return unsupported(c, ins, ".sat is not valid");
  if (!operands(c, ins, out, {t, t, t})) return false;
  out.exec = hi ? (s ? exec2<op_mul24_hi<true>> : exec2<op_mul24_hi<false>>)
                : (s ? exec2<op_mul24_lo<true>> : exec2<op_mul24_lo<false>>);
  return true;
}

bool dec_sad(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (!is_int_type(t) || is_bit_type(t)) return unsupported(c, ins, "type not supported for sad");
  if (!operands(c, ins, out, {t, t, t, t})) return false;
  with_type(t, [&](auto x) { out.exec = exec3<op_sad<decltype(x)>>; });
  return true;
}

template <bool Rem>
bool dec_divrem(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (!Rem) switch (classify(c, ins, t)) {
      case Own::NotMine: return false;
      case Own::Bad: return false;
      default: break;
    }
  if (!is_int_type(t) || is_bit_type(t)) return unsupported(c, ins, "type not supported for integer div/rem");
  if (!operands(c, ins, out, {t, t, t})) return false;
  with_type(t, [&](auto x) {
    using T = decltype(x);
    out.exec = Rem ? exec2<op_rem<T>> : exec2<op_div<T>>;
  });
  return true;
}

template <bool Neg>
bool dec_absneg(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  switch (classify(c, ins, t)) {
    case Own::NotMine: return false;
    case Own::Bad: return false;
    default: break;
  }
  if (t != Type::S16 && t != Type::S32 && t != Type::S64) return unsupported(c, ins, "needs type .s16, .s32 or .s64");
  if (!operands(c, ins, out, {t, t})) return false;
  with_type(t, [&](auto x) {
    using T = decltype(x);
    if constexpr (std::is_signed_v<T>) out.exec = Neg ? exec1<op_neg<T>> : exec1<op_abs<T>>;
  });
  return true;
}

template <bool Max>
bool dec_minmax(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  int pk = packed_of(ins);
  if (!pk) switch (classify(c, ins, t)) {
      case Own::NotMine: return false;
      case Own::Bad: return false;
      default: break;
    }
  bool relu = ins.has(Mod::relu);
  if (relu && t != Type::S32 && pk != 2) return unsupported(c, ins, ".relu is only valid with .s32 and .s16x2");
  if (ins.operands.size() != 3) return unsupported(c, ins, "three-input integer min/max does not exist");
  if (pk) {
    if (!operands(c, ins, out, {Type::B32, Type::B32, Type::B32})) return false;
    if (pk == 1) out.exec = Max ? exec2<op_x2<uint16_t, op_max<uint16_t>>> : exec2<op_x2<uint16_t, op_min<uint16_t>>>;
    else if (relu) out.exec = Max ? exec2<op_x2<int16_t, op_max_relu<int16_t>>> : exec2<op_x2<int16_t, op_min_relu<int16_t>>>;
    else out.exec = Max ? exec2<op_x2<int16_t, op_max<int16_t>>> : exec2<op_x2<int16_t, op_min<int16_t>>>;
    return true;
  }
  if (!is_int_type(t) || is_bit_type(t)) return unsupported(c, ins, "type not supported for min/max");
  if (!operands(c, ins, out, {t, t, t})) return false;
  if (relu) {
    out.exec = Max ? exec2<op_max_relu<int32_t>> : exec2<op_min_relu<int32_t>>;
    return true;
  }
  with_type(t, [&](auto x) {
    using T = decltype(x);
    out.exec = Max ? exec2<op_max<T>> : exec2<op_min<T>>;
  });
  return true;
}

// popc/clz/brev: .b32/.b64. popc and clz write a .u32.
template <int Which>  // 0 popc, 1 clz, 2 brev
bool dec_bitcount(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  unsigned bits = is_int_type(t) ? type_bits(t) : 0;
  if (bits != 32 && bits != 64) return unsupported(c, ins, "needs type .b32 or .b64");
  Type dt = Which == 2 ? t : Type::U32;
  if (!operands(c, ins, out, {dt, t})) return false;
  if (Which == 0) out.exec = bits == 32 ? exec1<op_popc<uint32_t>> : exec1<op_popc<uint64_t>>;
  if (Which == 1) out.exec = bits == 32 ? exec1<op_clz<uint32_t>> : exec1<op_clz<uint64_t>>;
  if (Which == 2) out.exec = bits == 32 ? exec1<op_brev<uint32_t>> : exec1<op_brev<uint64_t>>;
  return true;
}

bool dec_bfind(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::U32 && t != Type::S32 && t != Type::U64 && t != Type::S64)
    return unsupported(c, ins, "needs type .u32, .s32, .u64 or .s64");
  if (!operands(c, ins, out, {Type::U32, t})) return false;
  bool sa = ins.has(Mod::shiftamt);
  with_type(t, [&](auto x) {
    using T = decltype(x);
    out.exec = sa ? exec1<op_bfind<T, true>> : exec1<op_bfind<T, false>>;
  });
  return true;
}

bool dec_fns(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!operands(c, ins, out, {Type::B32, Type::B32, Type::U32, Type::S32})) return false;
  out.exec = exec3<op_fns>;
  return true;
}

bool dec_bfe(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::U32 && t != Type::S32 && t != Type::U64 && t != Type::S64)
    return unsupported(c, ins, "needs type .u32, .s32, .u64 or .s64");
  if (!operands(c, ins, out, {t, t, Type::U32, Type::U32})) return false;
  with_type(t, [&](auto x) { out.exec = exec3<op_bfe<decltype(x)>>; });
  return true;
}

bool dec_bfi(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  unsigned bits = is_int_type(t) ? type_bits(t) : 0;
  if (bits != 32 && bits != 64) return unsupported(c, ins, "needs type .b32 or .b64");
  if (!operands(c, ins, out, {t, t, t, Type::U32, Type::U32})) return false;
  out.exec = bits == 32 ? exec4<op_bfi<uint32_t>> : exec4<op_bfi<uint64_t>>;
  return true;
}

bool dec_szext(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::U32 && t != Type::S32) return unsupported(c, ins, "needs type .u32 or .s32");
  bool clamp = ins.has(Mod::clamp);
  if (!clamp && !ins.has(Mod::wrap)) return unsupported(c, ins, "needs .clamp or .wrap");
  if (!operands(c, ins, out, {t, t, Type::U32})) return false;
  bool s = t == Type::S32;
  out.exec = s ? (clamp ? exec2<op_szext<true, true>> : exec2<op_szext<true, false>>)
               : (clamp ? exec2<op_szext<false, true>> : exec2<op_szext<false, false>>);
  return true;
}

bool dec_bmsk(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  bool clamp = ins.has(Mod::clamp);
  if (!clamp && !ins.has(Mod::wrap)) return unsupported(c, ins, "needs .clamp or .wrap");
  if (first_type(ins) != Type::B32) return unsupported(c, ins, "needs type .b32");
  if (!operands(c, ins, out, {Type::B32, Type::B32, Type::U32})) return false;
  out.exec = clamp ? exec2<op_bmsk<true>> : exec2<op_bmsk<false>>;
  return true;
}

template <bool Two>
bool dec_dp(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type ta = first_type(ins, 0), tb = first_type(ins, 1);
  auto ok = [](Type t) { return t == Type::U32 || t == Type::S32; };
  if (!ok(ta) || !ok(tb)) return unsupported(c, ins, "needs .atype and .btype of .u32 or .s32");
  bool sa = ta == Type::S32, sb = tb == Type::S32;
  Type dt = (sa || sb) ? Type::S32 : Type::U32;
  if (!operands(c, ins, out, {dt, ta, tb, dt})) return false;
  if (!Two) {
    out.exec = sa ? (sb ? exec3<op_dp4a<true, true>> : exec3<op_dp4a<true, false>>)
                  : (sb ? exec3<op_dp4a<false, true>> : exec3<op_dp4a<false, false>>);
    return true;
  }
  bool hi = ins.has(Mod::hi);
  if (!hi && !ins.has(Mod::lo)) return unsupported(c, ins, "needs .lo or .hi");
  if (hi) out.exec = sa ? (sb ? exec3<op_dp2a<true, true, true>> : exec3<op_dp2a<true, true, false>>)
                        : (sb ? exec3<op_dp2a<true, false, true>> : exec3<op_dp2a<true, false, false>>);
  else out.exec = sa ? (sb ? exec3<op_dp2a<false, true, true>> : exec3<op_dp2a<false, true, false>>)
                     : (sb ? exec3<op_dp2a<false, false, true>> : exec3<op_dp2a<false, false, false>>);
  return true;
}

// ---------------------------------------------------------------- SIMD video instructions
// vadd2/vsub2/vavrg2/vabsdiff2/vmin2/vmax2 and their 4-way forms (PTX ISA 9.7.18.2): the source
// words split into 16-bit halves or bytes, each lane extended by its operand's signedness, the
// operation done in full precision, then either clamped (.sat) or wrapped to the lane (the merge
// form, all lanes selected: nvcc's __vabsdiffu4 and friends), or summed with c (.add). Operand
// selectors and masks other than the defaults are refused.
enum class VOp : uint8_t { Add, Sub, Avrg, Absdiff, Min, Max };

template <VOp O, int Lanes, bool SA, bool SB, bool SD, bool Sat, bool Accum>
uint64_t op_vsimd(uint64_t a, uint64_t b, uint64_t c) {
  constexpr int bits = 32 / Lanes;
  constexpr int64_t lane_mask = (int64_t(1) << bits) - 1;
  uint32_t out = 0;
  int64_t sum = 0;
  for (int k = 0; k < Lanes; ++k) {
    int64_t x = int64_t((uint32_t(a) >> (k * bits)) & lane_mask), y = int64_t((uint32_t(b) >> (k * bits)) & lane_mask);
    if (SA && (x >> (bits - 1))) x -= int64_t(1) << bits;
    if (SB && (y >> (bits - 1))) y -= int64_t(1) << bits;
    int64_t r;
    switch (O) {
      case VOp::Add: r = x + y; break;
      case VOp::Sub: r = x - y; break;
      case VOp::Avrg: r = (x + y + 1) >> 1; break;  // rounded up; floor division by 2
      case VOp::Absdiff: r = x > y ? x - y : y - x; break;
      case VOp::Min: r = x < y ? x : y; break;
      default: r = x > y ? x : y; break;
    }
    if (Accum) {
      sum += r;
      continue;
    }
    if (Sat) {
      const int64_t lo = SD ? -(int64_t(1) << (bits - 1)) : 0, hi = SD ? (int64_t(1) << (bits - 1)) - 1 : lane_mask;
      r = r < lo ? lo : r > hi ? hi : r;
    }
    out |= uint32_t(r & lane_mask) << (k * bits);
  }
  if (Accum) return uint64_t(uint32_t(int64_t(int32_t(uint32_t(c))) + sum));
  return out;
}

template <VOp O, int Lanes, bool SA, bool SB, bool SD>
Handler pick_vsimd(bool sat, bool accum) {
  if (accum) return exec3<op_vsimd<O, Lanes, SA, SB, SD, false, true>>;
  return sat ? exec3<op_vsimd<O, Lanes, SA, SB, SD, true, false>> : exec3<op_vsimd<O, Lanes, SA, SB, SD, false, false>>;
}

template <VOp O, int Lanes>
bool dec_vsimd(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  auto is32 = [](Type t) { return t == Type::U32 || t == Type::S32; };
  Type td = first_type(ins, 0), ta = first_type(ins, 1), tb = first_type(ins, 2);
  if (!is32(td) || !is32(ta) || !is32(tb)) return unsupported(c, ins, "needs .dtype.atype.btype of .u32/.s32");
  const char* full = Lanes == 2 ? "h10" : "b3210";
  for (const Operand& o : ins.operands)
    if (!o.selector.empty() && !(o.selector == std::string_view(full)))
      return unsupported(c, ins, "operand selectors and masks other than the defaults are not supported");
  const bool sat = ins.has(Mod::sat), accum = ins.has(Mod::add);
  if (sat && accum) return unsupported(c, ins, ".sat and .add together");
  if (!operands(c, ins, out, {td, ta, tb, Type::U32})) return false;
  const bool sa = ta == Type::S32, sb = tb == Type::S32, sd = td == Type::S32;
  const int sel = (sa ? 4 : 0) | (sb ? 2 : 0) | (sd ? 1 : 0);
  switch (sel) {
    case 0: out.exec = pick_vsimd<O, Lanes, false, false, false>(sat, accum); break;
    case 1: out.exec = pick_vsimd<O, Lanes, false, false, true>(sat, accum); break;
    case 2: out.exec = pick_vsimd<O, Lanes, false, true, false>(sat, accum); break;
    case 3: out.exec = pick_vsimd<O, Lanes, false, true, true>(sat, accum); break;
    case 4: out.exec = pick_vsimd<O, Lanes, true, false, false>(sat, accum); break;
    case 5: out.exec = pick_vsimd<O, Lanes, true, false, true>(sat, accum); break;
    case 6: out.exec = pick_vsimd<O, Lanes, true, true, false>(sat, accum); break;
    default: out.exec = pick_vsimd<O, Lanes, true, true, true>(sat, accum); break;
  }
  return true;
}

// ---------------------------------------------------------------- scalar video instructions
// vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr (PTX ISA 9.7.18.1): each source is a byte (.b0-.b3), half
// (.h0/.h1) or the whole word of a/b, extended by its type's signedness (shift counts unsigned);
// the operation in full precision; .sat clamps to the destination type; then an optional second
// operation with c (.add, .min, .max). vshl/vshr clamp the count to 32 (.clamp) or take it mod 32
// (.wrap). The merge form (a destination selector) is refused.
enum class VScalar : uint32_t { Add, Sub, Absdiff, Min, Max, Shl, Shr };
constexpr uint32_t kVsA = 1u << 3, kVsB = 1u << 4, kVsD = 1u << 5, kVsSat = 1u << 6, kVsWrap = 1u << 9;
constexpr unsigned kVsOp2Shift = 7, kVsASelShift = 12, kVsBSelShift = 15;

inline int64_t video_part(uint32_t v, unsigned sel, bool sgn) {
  if (sel == 0) return sgn ? int64_t(int32_t(v)) : int64_t(v);
  if (sel <= 4) {
    const uint32_t byte = (v >> (8 * (sel - 1))) & 0xff;
    return sgn ? int64_t(int8_t(uint8_t(byte))) : int64_t(byte);
  }
  const uint32_t half = (v >> (16 * (sel - 5))) & 0xffff;
  return sgn ? int64_t(int16_t(uint16_t(half))) : int64_t(half);
}

void exec_vscalar(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint32_t f = in.flags;
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const unsigned op2 = (f >> kVsOp2Shift) & 3;
  const uint64_t* c = op2 ? ctx.src(in.op[3]) : nullptr;
  const VScalar op = VScalar(f & 7);
  const bool sd = f & kVsD, shift = op == VScalar::Shl || op == VScalar::Shr;
  const unsigned asel = (f >> kVsASelShift) & 7, bsel = (f >> kVsBSelShift) & 7;
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    const int64_t ta = video_part(uint32_t(a[l]), asel, f & kVsA);
    int64_t tb = video_part(uint32_t(b[l]), bsel, !shift && (f & kVsB));
    int64_t t;
    switch (op) {
      case VScalar::Add: t = ta + tb; break;
      case VScalar::Sub: t = ta - tb; break;
      case VScalar::Absdiff: t = ta > tb ? ta - tb : tb - ta; break;
      case VScalar::Min: t = std::min(ta, tb); break;
      case VScalar::Max: t = std::max(ta, tb); break;
      default:
        tb = (f & kVsWrap) ? (tb & 31) : std::min<int64_t>(tb, 32);
        t = op == VScalar::Shl ? int64_t(uint64_t(ta) << tb) : ta >> tb;
        break;
    }
    if (f & kVsSat) t = std::clamp<int64_t>(t, sd ? INT32_MIN : 0, sd ? INT32_MAX : int64_t(UINT32_MAX));
    uint32_t r = uint32_t(t);
    if (op2 == 1) {
      r += uint32_t(c[l]);
    } else if (op2) {
      const uint32_t y = uint32_t(c[l]);
      const bool less = sd ? int32_t(r) < int32_t(y) : r < y;
      r = (op2 == 2) == less ? r : y;  // .min keeps the smaller, .max the larger
    }
    return uint64_t(r);
  });
}

template <VScalar O>
bool dec_vscalar(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  auto is32 = [](Type t) { return t == Type::U32 || t == Type::S32; };
  Type td = first_type(ins, 0), ta = first_type(ins, 1), tb = first_type(ins, 2);
  if (!is32(td) || !is32(ta) || !is32(tb)) return unsupported(c, ins, "needs .dtype.atype.btype of .u32/.s32");
  const size_t n = ins.operands.size();
  if (n != 3 && n != 4) return unsupported(c, ins, "expected 3 or 4 operands");
  if (!ins.operands[0].selector.empty()) return unsupported(c, ins, "the merge form (a destination selector) is not supported");
  const bool add = ins.has(Mod::add), mn = ins.has(Mod::min), mx = ins.has(Mod::max);
  const unsigned op2 = add ? 1 : mn ? 2 : mx ? 3 : 0;
  if ((op2 != 0) != (n == 4)) return unsupported(c, ins, "a fourth operand goes with .add, .min or .max");
  const bool shift = O == VScalar::Shl || O == VScalar::Shr;
  if (shift && !ins.has(Mod::clamp) && !ins.has(Mod::wrap)) return unsupported(c, ins, "needs .clamp or .wrap");
  unsigned sel[2] = {0, 0};
  std::vector<Ref> refs;
  for (size_t i = 0; i < n; ++i) {
    Operand o = ins.operands[i];
    if (i == 1 || i == 2) {
      const std::string_view s = o.selector.view();
      if (!s.empty()) {
        if (s.size() == 2 && s[0] == 'b' && s[1] >= '0' && s[1] <= '3') sel[i - 1] = 1 + unsigned(s[1] - '0');
        else if (s.size() == 2 && s[0] == 'h' && (s[1] == '0' || s[1] == '1')) sel[i - 1] = 5 + unsigned(s[1] - '0');
        else return unsupported(c, ins, fmt::format("operand selector '.{}'", s));
        o.selector = ptx::Selector{};
      }
    } else if (i == 3 && !o.selector.empty()) {
      return unsupported(c, ins, "the c operand takes no selector");
    }
    Ref r = c.ref(o, Type::U32);
    if (r.is_none()) return c.error.empty() ? unsupported(c, ins, fmt::format("operand {} is not usable", i + 1)) : false;
    if (r.kind() == Ref::Pred) return unsupported(c, ins, fmt::format("operand {} is a predicate", i + 1));
    if (i == 0 && r.kind() != Ref::Reg) return unsupported(c, ins, "the destination must be a register");
    refs.push_back(r);
  }
  c.set_ops(out, refs);
  out.flags = uint32_t(O) | (ta == Type::S32 ? kVsA : 0) | (tb == Type::S32 ? kVsB : 0) | (td == Type::S32 ? kVsD : 0) |
              (ins.has(Mod::sat) ? kVsSat : 0) | (op2 << kVsOp2Shift) | (ins.has(Mod::wrap) ? kVsWrap : 0) |
              (sel[0] << kVsASelShift) | (sel[1] << kVsBSelShift);
  out.exec = exec_vscalar;
  return true;
}

// and/or/xor/not/cnot: integer types of 16/32/64 bits, and .pred (not cnot).
template <int Op>  // 0 and, 1 or, 2 xor, 3 not, 4 cnot
bool dec_logic(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  constexpr bool unary = Op >= 3;
  if (t == Type::Pred) {
    if (Op == 4) return unsupported(c, ins, "cnot has no .pred form");
    size_t n = unary ? 2 : 3;
    if (ins.operands.size() != n) return unsupported(c, ins, fmt::format("expected {} operands", n));
    std::vector<Ref> refs;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && ins.operands[i].kind == Operand::Kind::Imm) {
        refs.push_back(c.cnst(ins.operands[i].ival != 0 ? 0xffffffffu : 0u));
        continue;
      }
      Ref r = c.ref(ins.operands[i], Type::Pred);
      if (r.is_none() || r.kind() != Ref::Pred)
        return c.error.empty() ? unsupported(c, ins, fmt::format("operand {} must be a predicate register", i + 1)) : false;
      if (i == 0 && r.negated()) return unsupported(c, ins, "the destination cannot be negated");
      refs.push_back(r);
    }
    c.set_ops(out, refs);
    out.flags = Op;
    out.exec = exec_pred_logic;
    return true;
  }
  if (!is_int_type(t)) return unsupported(c, ins, "needs type .pred, .b16, .b32 or .b64");
  if (unary ? !operands(c, ins, out, {t, t}) : !operands(c, ins, out, {t, t, t})) return false;
  with_type(t, [&](auto x) {
    using T = U_t<decltype(x)>;
    switch (Op) {
      case 0: out.exec = exec2<op_and<T>>; break;
      case 1: out.exec = exec2<op_or<T>>; break;
      case 2: out.exec = exec2<op_xor<T>>; break;
      case 3: out.exec = exec1<op_not<T>>; break;
      default: out.exec = exec1<op_cnot<T>>; break;
    }
  });
  return true;
}

bool dec_lop3(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (first_type(ins) != Type::B32) return unsupported(c, ins, "needs type .b32");
  bool bor = ins.has(Mod::or_), band = ins.has(Mod::and_);
  size_t n = ins.operands.size();
  const Operand& lut = ins.operands[4];
  if (lut.kind != Operand::Kind::Imm) return unsupported(c, ins, "immLut must be an integer constant");
  out.imm = lut.ival & 0xff;
  auto src = [&](size_t i) {
    Ref r = c.ref(ins.operands[i], Type::B32);
    if (!r.is_none() && r.kind() == Ref::Pred) {
      c.error = fmt::format("'{}': operand {} is a predicate", iname(ins), i + 1);
      return Ref::none();
    }
    return r;
  };
  if (!bor && !band) {
    if (n != 5) return unsupported(c, ins, "expected 5 operands (d, a, b, c, immLut)");
    Ref d = src(0), a = src(1), b = src(2), cc = src(3);
    if (d.is_none() || a.is_none() || b.is_none() || cc.is_none())
      return c.error.empty() ? unsupported(c, ins, "bad operand") : false;
    if (d.kind() != Ref::Reg) return unsupported(c, ins, "the destination must be a register");
    c.set_ops(out, {d, a, b, cc});
    out.exec = exec_lop3;
    return true;
  }
  // lop3.{or,and}.b32 d|p, a, b, c, immLut, q
  if (n != 6 || ins.operands[0].kind != Operand::Kind::Pair || ins.operands[0].elems.size() != 2)
    return unsupported(c, ins, "expected d|p, a, b, c, immLut, q");
  const Operand& od = ins.operands[0].elems[0];
  Ref d = od.kind == Operand::Kind::Sink ? Ref::none() : c.ref(od, Type::B32);
  if (od.kind != Operand::Kind::Sink && (d.is_none() || d.kind() != Ref::Reg))
    return c.error.empty() ? unsupported(c, ins, "d must be a register or _") : false;
  Ref p = c.ref(ins.operands[0].elems[1], Type::Pred);
  Ref q = c.ref(ins.operands[5], Type::Pred);
  if (p.is_none() || p.kind() != Ref::Pred || p.negated() || q.is_none() || q.kind() != Ref::Pred)
    return c.error.empty() ? unsupported(c, ins, "p and q must be predicate registers") : false;
  Ref a = src(1), b = src(2), cc = src(3);
  if (a.is_none() || b.is_none() || cc.is_none()) return c.error.empty() ? unsupported(c, ins, "bad operand") : false;
  c.set_ops(out, {d, p, a, b, cc, q});
  out.flags = band ? 1 : 0;
  out.exec = exec_lop3_pred;
  return true;
}

bool dec_shf(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::B32 && t != Type::U32 && t != Type::S32) return unsupported(c, ins, "needs type .b32");
  bool left = ins.has(Mod::l), right = ins.has(Mod::r);
  bool clamp = ins.has(Mod::clamp), wrap = ins.has(Mod::wrap);
  if (left == right) return unsupported(c, ins, "needs exactly one of .l and .r");
  if (clamp == wrap) return unsupported(c, ins, "needs exactly one of .clamp and .wrap");
  if (!operands(c, ins, out, {Type::B32, Type::B32, Type::B32, Type::U32})) return false;
  out.exec = left ? (clamp ? exec3<op_shf<true, true>> : exec3<op_shf<true, false>>)
                  : (clamp ? exec3<op_shf<false, true>> : exec3<op_shf<false, false>>);
  return true;
}

template <bool Right>
bool dec_shift(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (!is_int_type(t)) return unsupported(c, ins, "needs a 16-, 32- or 64-bit integer type");
  if (!operands(c, ins, out, {t, t, Type::U32})) return false;
  with_type(t, [&](auto x) {
    using T = decltype(x);
    if (Right) out.exec = exec2<op_shr<T>>;
    else out.exec = exec2<op_shl<U_t<T>>>;
  });
  return true;
}

bool dec_prmt(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (first_type(ins) != Type::B32) return unsupported(c, ins, "needs type .b32");
  if (!operands(c, ins, out, {Type::B32, Type::B32, Type::B32, Type::B32})) return false;
  if (ins.has(Mod::f4e)) out.exec = exec3<op_prmt_mode<1>>;
  else if (ins.has(Mod::b4e)) out.exec = exec3<op_prmt_mode<2>>;
  else if (ins.has(Mod::rc8)) out.exec = exec3<op_prmt_mode<3>>;
  else if (ins.has(Mod::ecl)) out.exec = exec3<op_prmt_mode<4>>;
  else if (ins.has(Mod::ecr)) out.exec = exec3<op_prmt_mode<5>>;
  else if (ins.has(Mod::rc16)) out.exec = exec3<op_prmt_mode<6>>;
  else out.exec = exec3<op_prmt>;
  return true;
}

}  // namespace

void register_int_ops() {
  register_decoder(Opcode::Add, dec_addsub<false>);
  register_decoder(Opcode::Sub, dec_addsub<true>);
  register_decoder(Opcode::Addc, dec_addsubc<false>);
  register_decoder(Opcode::Subc, dec_addsubc<true>);
  register_decoder(Opcode::Mul, dec_mul);
  register_decoder(Opcode::Mad, dec_mad<false>);
  register_decoder(Opcode::Madc, dec_mad<true>);
  register_decoder(Opcode::Mul24, dec_24<false>);
  register_decoder(Opcode::Mad24, dec_24<true>);
  register_decoder(Opcode::Sad, dec_sad);
  register_decoder(Opcode::Div, dec_divrem<false>);
  register_decoder(Opcode::Rem, dec_divrem<true>);
  register_decoder(Opcode::Abs, dec_absneg<false>);
  register_decoder(Opcode::Neg, dec_absneg<true>);
  register_decoder(Opcode::Min, dec_minmax<false>);
  register_decoder(Opcode::Max, dec_minmax<true>);
  register_decoder(Opcode::Popc, dec_bitcount<0>);
  register_decoder(Opcode::Clz, dec_bitcount<1>);
  register_decoder(Opcode::Brev, dec_bitcount<2>);
  register_decoder(Opcode::Bfind, dec_bfind);
  register_decoder(Opcode::Fns, dec_fns);
  register_decoder(Opcode::Bfe, dec_bfe);
  register_decoder(Opcode::Bfi, dec_bfi);
  register_decoder(Opcode::Szext, dec_szext);
  register_decoder(Opcode::Bmsk, dec_bmsk);
  register_decoder(Opcode::Dp4a, dec_dp<false>);
  register_decoder(Opcode::Dp2a, dec_dp<true>);
  register_decoder(Opcode::Vadd, dec_vscalar<VScalar::Add>);
  register_decoder(Opcode::Vsub, dec_vscalar<VScalar::Sub>);
  register_decoder(Opcode::Vabsdiff, dec_vscalar<VScalar::Absdiff>);
  register_decoder(Opcode::Vmin, dec_vscalar<VScalar::Min>);
  register_decoder(Opcode::Vmax, dec_vscalar<VScalar::Max>);
  register_decoder(Opcode::Vshl, dec_vscalar<VScalar::Shl>);
  register_decoder(Opcode::Vshr, dec_vscalar<VScalar::Shr>);
  register_decoder(Opcode::Vadd2, dec_vsimd<VOp::Add, 2>);
  register_decoder(Opcode::Vsub2, dec_vsimd<VOp::Sub, 2>);
  register_decoder(Opcode::Vavrg2, dec_vsimd<VOp::Avrg, 2>);
  register_decoder(Opcode::Vabsdiff2, dec_vsimd<VOp::Absdiff, 2>);
  register_decoder(Opcode::Vmin2, dec_vsimd<VOp::Min, 2>);
  register_decoder(Opcode::Vmax2, dec_vsimd<VOp::Max, 2>);
  register_decoder(Opcode::Vadd4, dec_vsimd<VOp::Add, 4>);
  register_decoder(Opcode::Vsub4, dec_vsimd<VOp::Sub, 4>);
  register_decoder(Opcode::Vavrg4, dec_vsimd<VOp::Avrg, 4>);
  register_decoder(Opcode::Vabsdiff4, dec_vsimd<VOp::Absdiff, 4>);
  register_decoder(Opcode::Vmin4, dec_vsimd<VOp::Min, 4>);
  register_decoder(Opcode::Vmax4, dec_vsimd<VOp::Max, 4>);
  register_decoder(Opcode::And, dec_logic<0>);
  register_decoder(Opcode::Or, dec_logic<1>);
  register_decoder(Opcode::Xor, dec_logic<2>);
  register_decoder(Opcode::Not, dec_logic<3>);
  register_decoder(Opcode::Cnot, dec_logic<4>);
  register_decoder(Opcode::Lop3, dec_lop3);
  register_decoder(Opcode::Shf, dec_shf);
  register_decoder(Opcode::Shl, dec_shift<false>);
  register_decoder(Opcode::Shr, dec_shift<true>);
  register_decoder(Opcode::Prmt, dec_prmt);
}

}  // namespace warpsim::func
