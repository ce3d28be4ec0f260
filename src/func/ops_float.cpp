// Floating-point instructions (PTX ISA 8.7, 9.7.3) for .f32 and .f64: add/sub/mul/fma/mad in every
// rounding mode with .ftz/.sat, div (.approx/.full/.rnd), rcp, sqrt, rsqrt, sin/cos/lg2/ex2/tanh
// (.approx), abs, neg, min/max (.NaN, .xorsign.abs, three inputs), copysign, testp; and the
// comparison and selection family (9.7.6) for every type: setp and set (all compare ops, boolean
// combination, p|q, f16/bf16 and packed x2 sources), selp, slct.
//
// Every handler is chosen at decode time from templates over the operation, rounding mode and
// modifiers, so the per-lane loops contain no dispatch. Rounding and NaN rules: see fp_util.hpp.
//
// .approx (MUFU) accuracy. rcp, rsqrt and ex2 reproduce our H100's unit (src/func/mufu.hpp): the
// correctly rounded value plus the unit's measured error before its final rounding, so about 99% of
// results are the H100's bit for bit and the rest 1 ulp away (validation/sm/mufu, measured over
// every input of [1,2) and [1,4) and samples of the whole range). The others are computed with the
// host's double-precision library and rounded once to f32 (within ~0.5 ulp of the exact value, far
// inside the PTX bounds), which is not what the H100 returns in the last bits (measured: lg2 34% of
// [1,2) and 75% of [2,4) bit-exact, sin/cos 14-16% of a grid over [0, 2pi), tanh under 1%):
//   rcp.approx.f32      ISA: max 1 ulp            here: the H100's, or 1 ulp from it (<= 1.5 ulp)
//   sqrt.approx.f32     ISA: max rel 2^-23        here: correctly rounded
//   rsqrt.approx.f32    ISA: max rel 2^-22.9      here: the H100's, or 1 ulp from it
//   ex2.approx.f32      ISA: max 2 ulp            here: the H100's, or 1 ulp from it
//   lg2.approx.f32      ISA: max abs 2^-22.6 (log2 of the mantissa) here: <= 0.5 ulp of the result
//   sin/cos.approx.f32  ISA: max abs 2^-20.9 in [-pi, pi]   here: sin/cos(2 pi RZ(x * 1/(2 pi)))
//                       rounded once, as ptxas's FMUL.RZ feeds the unit (H100: abs <= 5.7 x 2^-24
//                       from that)
//   tanh.approx.f32     ISA: max rel 2^-11        here: <= 0.5 ulp + 2^-52
//   div.approx.f32      ISA: max 2 ulp for |b| in [2^-126, 2^126], 0 (or NaN) beyond: here
//                       a * rcp.approx(b) with the reciprocal flushed for |b| > 2^126
//   div.full.f32        ISA: max 2 ulp            here: correctly rounded
//   rcp.approx.ftz.f64  ISA: reciprocal of the top 32 bits of a (1.11.20), result's low 32 bits 0:
//                       done exactly that way (relative error < 2^-19)
//   rsqrt.approx.f64    here: 1/sqrt in double, <= 1 ulp of f64 (ptxas refines MUFU.RSQ64H)
//   rsqrt.approx.ftz.f64  1/sqrt of the top 32 bits of a, result's low 32 bits 0 (MUFU.RSQ64H, as
//                       rcp.approx.ftz.f64; what our H100's erfcinv results need)
// The f16/bf16 ex2/tanh (ops_half.cpp) are the H100's results for every input.
#include <fmt/format.h>

#include <cmath>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/fp_util.hpp"
#include "func/mufu.hpp"

namespace warpsim::func {

using namespace ptx;
using fp::Rnd;

namespace {

// ------------------------------------------------------------------ modifiers

struct FMods {
  Rnd rnd = Rnd::Rn;
  bool has_rnd = false, ftz = false, sat = false, approx = false, full = false, nan = false,
       xorsign = false, abs = false;
};

FMods fmods(const Instruction& ins) {
  FMods m;
  switch (round_of(ins)) {
    case Round::Rn: m.rnd = Rnd::Rn; m.has_rnd = true; break;
    case Round::Rz: m.rnd = Rnd::Rz; m.has_rnd = true; break;
    case Round::Rm: m.rnd = Rnd::Rm; m.has_rnd = true; break;
    case Round::Rp: m.rnd = Rnd::Rp; m.has_rnd = true; break;
    case Round::None: break;
    default: m.has_rnd = true; m.rnd = Rnd::Rna; break;  // rejected by callers
  }
  m.ftz = ins.has(Mod::ftz);
  m.sat = ins.has(Mod::sat);
  m.approx = ins.has(Mod::approx);
  m.full = ins.has(Mod::full);
  m.nan = ins.has(Mod::NaN);
  m.xorsign = ins.has(Mod::xorsign);
  m.abs = ins.has(Mod::abs);
  return m;
}

// Fills op[] with d and the sources; false (error set by ref) on a bad operand.
bool operands(DecodeCtx& c, const Instruction& ins, DInstr& out, Type t, size_t n) {
  if (ins.operands.size() != n) return c.fail(fmt::format("expected {} operands", n));
  for (size_t i = 0; i < n; ++i) {
    out.op[i] = c.ref(ins.operands[i], t);
    if (out.op[i].is_none()) return c.error.empty() ? c.fail("missing operand") : false;
    if (out.op[i].kind() == Ref::Pred) return c.fail("a predicate cannot be a floating-point operand");
  }
  out.nops = uint8_t(n);
  out.type = uint8_t(t);
  return true;
}

// ------------------------------------------------------------------ arithmetic kernels

enum class Op : uint8_t { Add, Sub, Mul, Fma, Div, Rcp, Sqrt };

template <Op O, Rnd R>
inline float f32_apply(float a, float b, float c) {
  switch (O) {
    case Op::Add: return fp::add_f32<R>(a, b);
    case Op::Sub: return fp::add_f32<R>(a, -b);
    case Op::Mul: return fp::mul_f32<R>(a, b);
    case Op::Fma: return fp::fma_f32<R>(a, b, c);
    case Op::Div: return fp::div_f32<R>(a, b);
    case Op::Rcp: return fp::div_f32<R>(1.0f, a);
    case Op::Sqrt: return fp::sqrt_f32<R>(a);
  }
  return 0;
}

constexpr unsigned arity(Op o) { return o == Op::Fma ? 3 : (o == Op::Rcp || o == Op::Sqrt) ? 1 : 2; }

template <Op O, Rnd R, bool Ftz, bool Sat>
void exec_f32(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  constexpr unsigned n = arity(O);
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = n > 1 ? ctx.src(in.op[2]) : a;
  const uint64_t* c = n > 2 ? ctx.src(in.op[3]) : a;
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    float x = as<float>(a[l]), y = as<float>(b[l]), z = as<float>(c[l]);
    if constexpr (Ftz) {
      x = fp::ftz32(x);
      y = fp::ftz32(y);
      z = fp::ftz32(z);
    }
    float r = f32_apply<O, R>(x, y, z);
    if constexpr (Ftz) r = fp::ftz32(r);
    if constexpr (Sat) r = fp::sat(r);
    return uint64_t(fp::canon32(r));
  });
}

template <Op O>
inline double f64_apply(double a, double b, double c) {
  switch (O) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Fma: return std::fma(a, b, c);
    case Op::Div: return a / b;
    case Op::Rcp: return 1.0 / a;
    case Op::Sqrt: return std::sqrt(a);
  }
  return 0;
}

template <Op O, Rnd R>
void exec_f64(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  constexpr unsigned n = arity(O);
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = n > 1 ? ctx.src(in.op[2]) : a;
  const uint64_t* c = n > 2 ? ctx.src(in.op[3]) : a;
  uint64_t* d = ctx.dst(in.op[0]);
  auto fix = [&](double r, unsigned l) {
    // NaN: payload of the first NaN operand, else the default NaN
    return r != r ? fp::nan64(a[l], n > 1 ? b[l] : 0, n > 2 ? c[l] : 0) : fp::b64(r);
  };
  if constexpr (R == Rnd::Rn) {
    for_lanes(d, mask, [&](unsigned l) {
      return fix(f64_apply<O>(as<double>(a[l]), as<double>(b[l]), as<double>(c[l])), l);
    });
  } else {
    uint64_t res[kWarpSize];
    fp::with_rounding(R, [&] {
      for (unsigned l = 0; l < kWarpSize; ++l) {
        double x = as<double>(a[l]), y = as<double>(b[l]), z = as<double>(c[l]);
        fp::barrier(x);
        fp::barrier(y);
        fp::barrier(z);
        double r = f64_apply<O>(x, y, z);
        fp::barrier(r);
        res[l] = fp::b64(r);
      }
    });
    for_lanes(d, mask, [&](unsigned l) { return fix(as<double>(res[l]), l); });
  }
}

template <Op O, bool Ftz, bool Sat>
Handler f32_handler(Rnd r) {
  switch (r) {
    case Rnd::Rz: return exec_f32<O, Rnd::Rz, Ftz, Sat>;
    case Rnd::Rm: return exec_f32<O, Rnd::Rm, Ftz, Sat>;
    case Rnd::Rp: return exec_f32<O, Rnd::Rp, Ftz, Sat>;
    default: return exec_f32<O, Rnd::Rn, Ftz, Sat>;
  }
}

template <Op O>
Handler pick_f32(Rnd r, bool ftz, bool sat) {
  if (ftz) return sat ? f32_handler<O, true, true>(r) : f32_handler<O, true, false>(r);
  return sat ? f32_handler<O, false, true>(r) : f32_handler<O, false, false>(r);
}

template <Op O>
Handler pick_f64(Rnd r) {
  switch (r) {
    case Rnd::Rz: return exec_f64<O, Rnd::Rz>;
    case Rnd::Rm: return exec_f64<O, Rnd::Rm>;
    case Rnd::Rp: return exec_f64<O, Rnd::Rp>;
    default: return exec_f64<O, Rnd::Rn>;
  }
}

template <Op O>
bool dec_arith(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (ins.has(Mod::f32x2)) return c.fail(fmt::format("{}.f32x2 is not supported yet", O == Op::Fma ? "fma" : "add/sub/mul"));
  if (t != Type::F32 && t != Type::F64) return false;  // integer or half family
  if (first_type(ins, 1) != Type::None)
    return c.fail("mixed-precision .f32.f16/.bf16 arithmetic is not supported yet");
  FMods m = fmods(ins);
  if (m.rnd == Rnd::Rna) return c.fail("invalid rounding modifier for floating-point arithmetic");
  if (!operands(c, ins, out, t, arity(O) + 1)) return false;
  if (t == Type::F64) {
    if (m.ftz || m.sat) return c.fail(".ftz/.sat are not valid for .f64");
    out.exec = pick_f64<O>(m.rnd);
  } else {
    out.exec = pick_f32<O>(m.rnd, m.ftz, m.sat);
  }
  return true;
}

bool dec_add(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_arith<Op::Add>(c, ins, out); }
bool dec_sub(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_arith<Op::Sub>(c, ins, out); }
bool dec_mul(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_arith<Op::Mul>(c, ins, out); }
// mad.f32 without a rounding modifier is fma (sm_20+), mad.rnd is fma.rnd.
bool dec_fma(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (ins.has(Mod::cc) || ins.has(Mod::hi) || ins.has(Mod::lo) || ins.has(Mod::wide)) return false;
  return dec_arith<Op::Fma>(c, ins, out);
}

// ------------------------------------------------------------------ div / rcp / sqrt

template <bool Ftz>
void exec_div_approx(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    float x = as<float>(a[l]), y = as<float>(b[l]);
    if constexpr (Ftz) {
      x = fp::ftz32(x);
      y = fp::ftz32(y);
    }
    // a * MUFU.RCP(b); the reciprocal of |b| > 2^126 is subnormal and flushed (ISA: d = 0 or NaN)
    float r = fp::ftz32(mufu::rcp<Ftz>(y));
    float q = x * r;
    if constexpr (Ftz) q = fp::ftz32(q);
    return uint64_t(fp::canon32(q));
  });
}

// Unary approximate f32 functions: F is the exact-ish function evaluated in double.
enum class Fn : uint8_t { Rcp, Sqrt, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh };

template <Fn F>
inline double fn_apply(double x) {
  switch (F) {
    case Fn::Rcp: return 1.0 / x;
    case Fn::Sqrt: return std::sqrt(x);
    case Fn::Rsqrt: return 1.0 / std::sqrt(x);
    case Fn::Sin: return std::sin(x);
    case Fn::Cos: return std::cos(x);
    case Fn::Lg2: return std::log2(x);
    case Fn::Ex2: return std::exp2(x);
    case Fn::Tanh: return std::tanh(x);
  }
  return 0;
}

// sin/cos.approx: ptxas multiplies by 1/(2 pi) in f32 rounding towards zero (FMUL.RZ), and the unit
// takes that number of turns; for |x| beyond pi its rounding error dominates the result's.
inline double turns_rz(float x) {
  double p = double(x) * double(0.15915493667125701904f);  // exact (24 x 24 bits)
  float t = float(p);
  if (std::fabs(double(t)) > std::fabs(p)) t = std::nextafter(t, 0.0f);
  return double(t);
}

template <Fn F, bool Ftz>
void exec_approx_f32(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    float x = as<float>(a[l]);
    if constexpr (Ftz) x = fp::ftz32(x);
    float r;
    if constexpr (F == Fn::Rcp) r = mufu::rcp<Ftz>(x);
    else if constexpr (F == Fn::Rsqrt) r = mufu::rsqrt<Ftz>(x);
    else if constexpr (F == Fn::Ex2) r = mufu::ex2<Ftz>(x);
    else if constexpr (F == Fn::Sqrt) r = std::sqrt(x);
    else if constexpr (F == Fn::Sin || F == Fn::Cos) r = float(fn_apply<F>(6.283185307179586 * turns_rz(x)));
    else r = float(fn_apply<F>(double(x)));
    if constexpr (Ftz) r = fp::ftz32(r);
    return uint64_t(fp::canon32(r));
  });
}

template <Fn F>
Handler pick_approx(bool ftz) { return ftz ? exec_approx_f32<F, true> : exec_approx_f32<F, false>; }

// rcp.approx.ftz.f64: reciprocal of the top 32 bits (sign, exponent, 20 fraction bits), result's
// low 32 bits zero.
void exec_rcp_approx_f64(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    uint64_t x = fp::ftz64(a[l]);
    if (fp::is_nan64(x)) return uint64_t(fp::nan64(x));
    double r = 1.0 / fp::f64(x & 0xffffffff00000000ull);
    uint64_t rb = fp::ftz64(fp::b64(r));
    if ((rb & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) return rb;  // inf
    return uint64_t(rb & 0xffffffff00000000ull);
  });
}

// rsqrt.approx.ftz.f64 is MUFU.RSQ64H itself (like rcp.approx.ftz.f64): 1/sqrt of the top 32 bits
// of a (sign, exponent, 20 fraction bits), the result's low 32 bits zero. The math library refines
// it with one Newton step (erfcinv, normcdfinv...), so its last bits depend on these; with an exact
// 1/sqrt, curand's Sobol64 normal doubles differed from our H100's (tests/cudart/curand_gens.cu).
// rsqrt.approx.f64 (no .ftz) is what CUDA's rsqrt(double) compiles to, documented within 1 ulp:
// ptxas refines MUFU's value, so it is 1/sqrt in double here.
template <bool Ftz>
void exec_rsqrt_f64(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    uint64_t x = Ftz ? fp::ftz64(a[l]) : a[l];
    if (fp::is_nan64(x)) return uint64_t(fp::nan64(x));
    if constexpr (!Ftz) {
      double r = 1.0 / std::sqrt(fp::f64(x));
      return r != r ? fp::nan64(x) : fp::b64(r);
    }
    double r = 1.0 / std::sqrt(fp::f64(x & 0xffffffff00000000ull));
    if (r != r) return fp::nan64(x);
    uint64_t rb = fp::ftz64(fp::b64(r));
    if ((rb & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) return rb;  // inf
    return uint64_t(rb & 0xffffffff00000000ull);
  });
}

bool dec_div(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::F32 && t != Type::F64) return false;
  FMods m = fmods(ins);
  if (!operands(c, ins, out, t, 3)) return false;
  if (m.rnd == Rnd::Rna) return c.fail("invalid rounding modifier for div");
  if (t == Type::F64) {
    if (m.approx || m.full || m.ftz) return c.fail("div.f64 takes only .rn/.rz/.rm/.rp");
    out.exec = pick_f64<Op::Div>(m.rnd);
    return true;
  }
  if (m.approx) {
    out.exec = m.ftz ? exec_div_approx<true> : exec_div_approx<false>;
    return true;
  }
  // .full (max 2 ulp in the ISA) is computed correctly rounded; no modifier means .rn (sm_20+)
  out.exec = pick_f32<Op::Div>(m.full ? Rnd::Rn : m.rnd, m.ftz, false);
  return true;
}

bool dec_rcp(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::F32 && t != Type::F64) return false;
  FMods m = fmods(ins);
  if (!operands(c, ins, out, t, 2)) return false;
  if (m.rnd == Rnd::Rna) return c.fail("invalid rounding modifier for rcp");
  if (t == Type::F64) {
    if (m.approx) {
      if (!m.ftz) return c.fail("rcp.approx.f64 requires .ftz");
      out.exec = exec_rcp_approx_f64;
      return true;
    }
    if (m.ftz) return c.fail("rcp.rnd.f64 does not take .ftz");
    out.exec = pick_f64<Op::Rcp>(m.rnd);
    return true;
  }
  out.exec = m.approx ? pick_approx<Fn::Rcp>(m.ftz) : pick_f32<Op::Rcp>(m.rnd, m.ftz, false);
  return true;
}

bool dec_sqrt(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::F32 && t != Type::F64) return false;
  FMods m = fmods(ins);
  if (!operands(c, ins, out, t, 2)) return false;
  if (m.rnd == Rnd::Rna) return c.fail("invalid rounding modifier for sqrt");
  if (t == Type::F64) {
    if (m.approx || m.ftz) return c.fail("sqrt.f64 takes only .rn/.rz/.rm/.rp");
    out.exec = pick_f64<Op::Sqrt>(m.rnd);
    return true;
  }
  out.exec = m.approx ? pick_approx<Fn::Sqrt>(m.ftz) : pick_f32<Op::Sqrt>(m.rnd, m.ftz, false);
  return true;
}

template <Fn F>
bool dec_mufu(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  FMods m = fmods(ins);
  if (t == Type::F64) {
    if (F != Fn::Rsqrt) return c.fail("only .f32 is valid for this instruction");
    if (!m.approx) return c.fail("rsqrt requires .approx");
    if (!operands(c, ins, out, t, 2)) return false;
    out.exec = m.ftz ? exec_rsqrt_f64<true> : exec_rsqrt_f64<false>;
    return true;
  }
  if (t != Type::F32) return false;  // f16/bf16 forms: half family
  if (!m.approx) return c.fail("this instruction requires .approx");
  if (m.has_rnd) return c.fail("a rounding modifier is not valid with .approx");
  if (!operands(c, ins, out, t, 2)) return false;
  out.exec = pick_approx<F>(m.ftz);
  return true;
}

// ------------------------------------------------------------------ abs, neg, copysign

template <bool Neg, bool Ftz>
void exec_absneg_f32(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    uint32_t x = uint32_t(a[l]);
    if constexpr (Ftz) x = fp::ftz32(x);
    return uint64_t(Neg ? x ^ 0x80000000u : x & 0x7fffffffu);
  });
}
template <bool Neg>
void exec_absneg_f64(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return Neg ? a[l] ^ (1ull << 63) : a[l] & ~(1ull << 63); });
}

template <bool Neg>
bool dec_absneg(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::F32 && t != Type::F64) return false;
  FMods m = fmods(ins);
  if (!operands(c, ins, out, t, 2)) return false;
  // abs/neg are sign-bit operations (IEEE 754-2008 non-arithmetic): NaN payloads pass through
  if (t == Type::F64) {
    if (m.ftz) return c.fail(".ftz is not valid for .f64");
    out.exec = exec_absneg_f64<Neg>;
  } else {
    out.exec = m.ftz ? exec_absneg_f32<Neg, true> : exec_absneg_f32<Neg, false>;
  }
  return true;
}
bool dec_abs(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_absneg<false>(c, ins, out); }
bool dec_neg(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_absneg<true>(c, ins, out); }

// copysign d, a, b: b with the sign of a.
template <unsigned Bits>
void exec_copysign(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  constexpr uint64_t s = 1ull << (Bits - 1);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return canon((b[l] & ~s) | (a[l] & s), Bits); });
}
bool dec_copysign(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::F32 && t != Type::F64) return false;
  if (!operands(c, ins, out, t, 3)) return false;
  out.exec = t == Type::F32 ? exec_copysign<32> : exec_copysign<64>;
  return true;
}

// ------------------------------------------------------------------ min / max

// min/max of two f32 bit patterns. -0.0 < +0.0; one NaN: the other operand (unless .NaN); two NaNs
// (or .NaN with any): canonical NaN. .xorsign.abs: magnitudes compared, sign = xor of the signs.
template <bool Max, bool NaNMode, bool Abs>
inline uint32_t minmax32(uint32_t a, uint32_t b) {
  if constexpr (Abs) {
    a &= 0x7fffffffu;
    b &= 0x7fffffffu;
  }
  bool an = fp::is_nan32(a), bn = fp::is_nan32(b);
  if (an && bn) return fp::kNaN32;
  if (NaNMode && (an || bn)) return fp::kNaN32;
  if (an) return b;
  if (bn) return a;
  float x = fp::f32(a), y = fp::f32(b);
  if (x == y) return Max ? (a & b) : (a | b);  // equal values; only zeros differ (in sign)
  return ((x < y) != Max) ? a : b;
}

template <bool Max, bool Ftz, bool NaNMode, bool XorAbs, bool Abs3>
void exec_minmax_f32(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* c = in.nops > 3 ? ctx.src(in.op[3]) : nullptr;
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    uint32_t x = uint32_t(a[l]), y = uint32_t(b[l]);
    if constexpr (Ftz) {
      x = fp::ftz32(x);
      y = fp::ftz32(y);
    }
    uint32_t r;
    if constexpr (XorAbs) {
      uint32_t s = (x ^ y) & 0x80000000u;
      r = minmax32<Max, NaNMode, true>(x, y);
      if (!fp::is_nan32(r)) r |= s;
    } else {
      r = minmax32<Max, NaNMode, Abs3>(x, y);
    }
    if (c) {
      uint32_t z = uint32_t(c[l]);
      if constexpr (Ftz) z = fp::ftz32(z);
      r = minmax32<Max, NaNMode, Abs3>(r, z);
    }
    return uint64_t(r);
  });
}

template <bool Max>
void exec_minmax_f64(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    uint64_t x = a[l], y = b[l];
    bool xn = fp::is_nan64(x), yn = fp::is_nan64(y);
    if (xn && yn) return fp::nan64(x, y);
    if (xn) return y;
    if (yn) return x;
    double p = fp::f64(x), q = fp::f64(y);
    if (p == q) return Max ? (x & y) : (x | y);
    return ((p < q) != Max) ? x : y;
  });
}

template <bool Max, bool Ftz, bool NaNMode>
Handler pick_minmax3(bool xorabs, bool abs) {
  if (xorabs) return exec_minmax_f32<Max, Ftz, NaNMode, true, false>;
  return abs ? exec_minmax_f32<Max, Ftz, NaNMode, false, true> : exec_minmax_f32<Max, Ftz, NaNMode, false, false>;
}
template <bool Max>
Handler pick_minmax(bool ftz, bool nan, bool xorabs, bool abs) {
  if (ftz) return nan ? pick_minmax3<Max, true, true>(xorabs, abs) : pick_minmax3<Max, true, false>(xorabs, abs);
  return nan ? pick_minmax3<Max, false, true>(xorabs, abs) : pick_minmax3<Max, false, false>(xorabs, abs);
}

template <bool Max>
bool dec_minmax(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::F32 && t != Type::F64) return false;
  FMods m = fmods(ins);
  size_t n = ins.operands.size();
  if (n != 3 && n != 4) return c.fail("min/max take two or three sources");
  if (!operands(c, ins, out, t, n)) return false;
  if (t == Type::F64) {
    if (m.ftz || m.nan || m.xorsign || m.abs || n != 3) return c.fail("min/max.f64 take no modifiers and two sources");
    out.exec = exec_minmax_f64<Max>;
    return true;
  }
  if (m.xorsign != m.abs && n == 3) return c.fail(".xorsign and .abs go together (.xorsign.abs)");
  if (n == 4 && m.xorsign) return c.fail(".xorsign is not valid with three sources");
  out.exec = pick_minmax<Max>(m.ftz, m.nan, m.xorsign, m.abs);
  return true;
}

// ------------------------------------------------------------------ testp

enum class TestK : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

template <TestK K, bool F64>
void exec_testp(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t v = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    uint64_t x = a[l];
    uint64_t mag = F64 ? x & ~(1ull << 63) : x & 0x7fffffffu;
    uint64_t inf = F64 ? 0x7ff0000000000000ull : 0x7f800000u;
    uint64_t minnorm = F64 ? 0x0010000000000000ull : 0x00800000u;
    bool r = false;
    switch (K) {
      case TestK::Finite: r = mag < inf; break;
      case TestK::Infinite: r = mag == inf; break;
      case TestK::Number: r = mag <= inf; break;
      case TestK::NotANumber: r = mag > inf; break;
      case TestK::Normal: r = mag < inf && (mag >= minnorm || mag == 0); break;  // zeros count as normal
      case TestK::Subnormal: r = mag != 0 && mag < minnorm; break;
    }
    v |= uint32_t(r) << l;
  }
  ctx.set_pred(in.op[0], v, mask);
}

template <bool F64>
Handler pick_testp(TestK k) {
  switch (k) {
    case TestK::Finite: return exec_testp<TestK::Finite, F64>;
    case TestK::Infinite: return exec_testp<TestK::Infinite, F64>;
    case TestK::Number: return exec_testp<TestK::Number, F64>;
    case TestK::NotANumber: return exec_testp<TestK::NotANumber, F64>;
    case TestK::Normal: return exec_testp<TestK::Normal, F64>;
    default: return exec_testp<TestK::Subnormal, F64>;
  }
}

bool dec_testp(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t != Type::F32 && t != Type::F64) return c.fail("testp takes .f32 or .f64");
  TestK k;
  if (ins.has(Mod::finite)) k = TestK::Finite;
  else if (ins.has(Mod::infinite)) k = TestK::Infinite;
  else if (ins.has(Mod::number)) k = TestK::Number;
  else if (ins.has(Mod::notanumber)) k = TestK::NotANumber;
  else if (ins.has(Mod::normal)) k = TestK::Normal;
  else if (ins.has(Mod::subnormal)) k = TestK::Subnormal;
  else return c.fail("testp needs a test (.finite, .infinite, .number, .notanumber, .normal, .subnormal)");
  if (ins.operands.size() != 2) return c.fail("testp takes a predicate and a source");
  out.op[0] = c.ref(ins.operands[0], Type::Pred);
  out.op[1] = c.ref(ins.operands[1], t);
  out.nops = 2;
  if (out.op[0].is_none() || out.op[1].is_none()) return c.error.empty() ? c.fail("bad operand") : false;
  if (out.op[0].kind() != Ref::Pred) return c.fail("testp writes a predicate");
  out.exec = t == Type::F64 ? pick_testp<true>(k) : pick_testp<false>(k);
  return true;
}

// ------------------------------------------------------------------ comparisons

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };

template <Cmp C, typename T>
inline bool compare(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool un = a != a || b != b;
    switch (C) {
      case Cmp::Eq: return a == b;
      case Cmp::Ne: return !un && a != b;
      case Cmp::Lt: return a < b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Ge: return a >= b;
      case Cmp::Equ: return un || a == b;
      case Cmp::Neu: return a != b;
      case Cmp::Ltu: return un || a < b;
      case Cmp::Leu: return un || a <= b;
      case Cmp::Gtu: return un || a > b;
      case Cmp::Geu: return un || a >= b;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (C) {
      case Cmp::Eq: return a == b;
      case Cmp::Ne: return a != b;
      case Cmp::Lt: return a < b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Ge: return a >= b;
      case Cmp::Lo: return U(a) < U(b);
      case Cmp::Ls: return U(a) <= U(b);
      case Cmp::Hi: return U(a) > U(b);
      case Cmp::Hs: return U(a) >= U(b);
      default: return false;
    }
  }
}

// Loaders: a register value as the compared type.
template <typename T>
struct LInt {
  using V = T;
  static T get(uint64_t v) { return T(v); }
};
template <bool Ftz>
struct LF32 {
  using V = float;
  static float get(uint64_t v) { return fp::f32(Ftz ? fp::ftz32(uint32_t(v)) : uint32_t(v)); }
};
struct LF64 {
  using V = double;
  static double get(uint64_t v) { return fp::f64(v); }
};
template <unsigned Shift, bool Ftz>
struct LF16 {
  using V = float;
  static float get(uint64_t v) {
    uint16_t h = uint16_t(v >> Shift);
    return fp::f16_to_f32(Ftz ? fp::ftz16(h) : h);
  }
};
template <unsigned Shift>
struct LBF16 {
  using V = float;
  static float get(uint64_t v) { return fp::bf16_to_f32(uint16_t(v >> Shift)); }
};

using MaskFn = uint32_t (*)(const uint64_t*, const uint64_t*);

template <typename L, Cmp C>
uint32_t cmp_mask(const uint64_t* a, const uint64_t* b) {
  uint32_t m = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) m |= uint32_t(compare<C>(L::get(a[l]), L::get(b[l]))) << l;
  return m;
}

// flags: bits 0-1 boolean op (0 none, 1 and, 2 or, 3 xor). Operands: d/p, q (or none), a, b, c (or none).
inline uint32_t boolop(uint32_t flags, uint32_t t, uint32_t c) {
  switch (flags & 3) {
    case 1: return t & c;
    case 2: return t | c;
    case 3: return t ^ c;
    default: return t;
  }
}

template <MaskFn F>
void exec_setp(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* o = ctx.ops(in);
  uint32_t t = F(ctx.src(o[2]), ctx.src(o[3]));
  uint32_t c = (in.flags & 3) ? ctx.pred(o[4]) : 0;
  uint32_t p = boolop(in.flags, t, c), q = boolop(in.flags, ~t, c);
  ctx.set_pred(o[0], p, mask);
  if (!o[1].is_none()) ctx.set_pred(o[1], q, mask);
}

// setp on packed pairs: p from the low halves, q from the high halves.
template <MaskFn FLo, MaskFn FHi>
void exec_setp_x2(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* o = ctx.ops(in);
  const uint64_t* a = ctx.src(o[2]);
  const uint64_t* b = ctx.src(o[3]);
  uint32_t t0 = FLo(a, b), t1 = FHi(a, b);
  uint32_t c = (in.flags & 3) ? ctx.pred(o[4]) : 0;
  ctx.set_pred(o[0], boolop(in.flags, t0, c), mask);
  if (!o[1].is_none()) ctx.set_pred(o[1], boolop(in.flags, t1, c), mask);
}

// set: d = BoolOp(t, c) ? imm : 0 (imm: 1.0 in the destination format or all ones).
template <MaskFn F>
void exec_set(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* o = ctx.ops(in);
  uint32_t t = F(ctx.src(o[2]), ctx.src(o[3]));
  uint32_t c = (in.flags & 3) ? ctx.pred(o[4]) : 0;
  uint32_t r = boolop(in.flags, t, c);
  uint64_t one = uint64_t(in.imm);
  for_lanes(ctx.dst(o[0]), mask, [&](unsigned l) { return (r >> l & 1) ? one : uint64_t(0); });
}

// set on packed pairs: each 16-bit half of d is imm (1.0 in f16/bf16, or 0xffff) or 0.
template <MaskFn FLo, MaskFn FHi>
void exec_set_x2(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* o = ctx.ops(in);
  const uint64_t* a = ctx.src(o[2]);
  const uint64_t* b = ctx.src(o[3]);
  uint32_t c = (in.flags & 3) ? ctx.pred(o[4]) : 0;
  uint32_t r0 = boolop(in.flags, FLo(a, b), c), r1 = boolop(in.flags, FHi(a, b), c);
  uint64_t one = uint64_t(in.imm);
  for_lanes(ctx.dst(o[0]), mask, [&](unsigned l) {
    return ((r0 >> l & 1) ? one : 0) | ((r1 >> l & 1) ? one << 16 : 0);
  });
}

enum class Kind : uint8_t { Setp, Set };

template <typename L, Cmp C>
Handler handler1(Kind k) { return k == Kind::Setp ? exec_setp<cmp_mask<L, C>> : exec_set<cmp_mask<L, C>>; }
template <typename LLo, typename LHi, Cmp C>
Handler handler2(Kind k) {
  return k == Kind::Setp ? exec_setp_x2<cmp_mask<LLo, C>, cmp_mask<LHi, C>> : exec_set_x2<cmp_mask<LLo, C>, cmp_mask<LHi, C>>;
}

#define WARPSIM_INT_CMPS(X) X(Eq) X(Ne) X(Lt) X(Le) X(Gt) X(Ge) X(Lo) X(Ls) X(Hi) X(Hs)
#define WARPSIM_FLT_CMPS(X) \
  X(Eq) X(Ne) X(Lt) X(Le) X(Gt) X(Ge) X(Equ) X(Neu) X(Ltu) X(Leu) X(Gtu) X(Geu) X(Num) X(Nan)

template <typename L>
Handler pick_int(Cmp c, Kind k) {
  switch (c) {
#define X(n) case Cmp::n: return handler1<L, Cmp::n>(k);
    WARPSIM_INT_CMPS(X)
#undef X
    default: return nullptr;
  }
}
template <typename L>
Handler pick_flt(Cmp c, Kind k) {
  switch (c) {
#define X(n) case Cmp::n: return handler1<L, Cmp::n>(k);
    WARPSIM_FLT_CMPS(X)
#undef X
    default: return nullptr;
  }
}
template <typename LLo, typename LHi>
Handler pick_flt2(Cmp c, Kind k) {
  switch (c) {
#define X(n) case Cmp::n: return handler2<LLo, LHi, Cmp::n>(k);
    WARPSIM_FLT_CMPS(X)
#undef X
    default: return nullptr;
  }
}

bool cmp_of(const Instruction& ins, Cmp& out) {
  static const std::pair<Mod, Cmp> table[] = {
      {Mod::eq, Cmp::Eq},   {Mod::ne, Cmp::Ne},   {Mod::lt, Cmp::Lt},   {Mod::le, Cmp::Le},
      {Mod::gt, Cmp::Gt},   {Mod::ge, Cmp::Ge},   {Mod::lo, Cmp::Lo},   {Mod::ls, Cmp::Ls},
      {Mod::hi, Cmp::Hi},   {Mod::hs, Cmp::Hs},   {Mod::equ, Cmp::Equ}, {Mod::neu, Cmp::Neu},
      {Mod::ltu, Cmp::Ltu}, {Mod::leu, Cmp::Leu}, {Mod::gtu, Cmp::Gtu}, {Mod::geu, Cmp::Geu},
      {Mod::num, Cmp::Num}, {Mod::nan, Cmp::Nan}};
  // the first compare-class modifier names the operation (lo/hi also spell mul.lo/mul.hi)
  for (unsigned i = 0; i < ins.nmods; ++i)
    for (auto& [m, c] : table)
      if (ins.mods[i] == m) {
        out = c;
        return true;
      }
  return false;
}

// Comparison handler for a source type; nullptr if the op is invalid for it.
Handler cmp_handler(Type st, Cmp c, bool ftz, Kind k, bool& pair_src) {
  pair_src = false;
  switch (st) {
    case Type::B16: case Type::U16: return pick_int<LInt<uint16_t>>(c, k);
    case Type::S16: return pick_int<LInt<int16_t>>(c, k);
    case Type::B32: case Type::U32: return pick_int<LInt<uint32_t>>(c, k);
    case Type::S32: return pick_int<LInt<int32_t>>(c, k);
    case Type::B64: case Type::U64: return pick_int<LInt<uint64_t>>(c, k);
    case Type::S64: return pick_int<LInt<int64_t>>(c, k);
    case Type::F32: return ftz ? pick_flt<LF32<true>>(c, k) : pick_flt<LF32<false>>(c, k);
    case Type::F64: return pick_flt<LF64>(c, k);
    case Type::F16: return ftz ? pick_flt<LF16<0, true>>(c, k) : pick_flt<LF16<0, false>>(c, k);
    case Type::BF16: return pick_flt<LBF16<0>>(c, k);
    case Type::F16x2:
      pair_src = true;
      return ftz ? pick_flt2<LF16<0, true>, LF16<16, true>>(c, k) : pick_flt2<LF16<0, false>, LF16<16, false>>(c, k);
    case Type::BF16x2: pair_src = true; return pick_flt2<LBF16<0>, LBF16<16>>(c, k);
    default: return nullptr;
  }
}

bool dec_compare(DecodeCtx& c, const Instruction& ins, DInstr& out, Kind k) {
  Cmp op;
  if (!cmp_of(ins, op)) return c.fail(fmt::format("{} needs a comparison operator", k == Kind::Setp ? "setp" : "set"));
  auto ts = ins.types();
  Type dt = k == Kind::Set ? ts[0] : Type::Pred;
  Type st = k == Kind::Set ? ts[1] : ts[0];
  if (st == Type::None) return c.fail(k == Kind::Set ? "set needs .dtype.stype" : "setp needs a type");
  bool ftz = ins.has(Mod::ftz);
  bool pair = false;
  Handler h = cmp_handler(st, op, ftz, k, pair);
  if (!h) return c.fail(fmt::format("comparison not valid for .{}", type_name(st)));
  uint32_t bop = ins.has(Mod::and_) ? 1 : ins.has(Mod::or_) ? 2 : ins.has(Mod::xor_) ? 3 : 0;
  size_t n = ins.operands.size();
  if (n != (bop ? 4u : 3u)) return c.fail(bop ? "a boolean operation needs a predicate operand c" : "expected d, a, b");
  std::vector<Ref> refs(5, Ref::none());
  const Operand& d = ins.operands[0];
  if (k == Kind::Setp) {
    if (d.kind == Operand::Kind::Pair) {
      if (d.elems.size() != 2) return c.fail("bad p|q operand");
      refs[0] = c.ref(d.elems[0], Type::Pred);
      if (d.elems[1].kind != Operand::Kind::Sink) refs[1] = c.ref(d.elems[1], Type::Pred);
      if (refs[0].kind() != Ref::Pred || (!refs[1].is_none() && refs[1].kind() != Ref::Pred))
        return c.error.empty() ? c.fail("setp writes predicates") : false;
    } else {
      if (pair) return c.fail("setp on a packed pair writes p|q");
      refs[0] = c.ref(d, Type::Pred);
      if (refs[0].kind() != Ref::Pred) return c.error.empty() ? c.fail("setp writes a predicate") : false;
    }
  } else {
    refs[0] = c.ref(d, dt);
    if (refs[0].is_none() || refs[0].kind() == Ref::Pred) return c.error.empty() ? c.fail("bad destination") : false;
    uint64_t one;
    if (pair) {
      switch (dt) {
        case Type::F16x2: one = 0x3c00; break;
        case Type::BF16x2: one = 0x3f80; break;
        case Type::U32: case Type::S32: case Type::B32: one = 0xffff; break;
        default: return c.fail("set on a packed pair writes .f16x2/.bf16x2/.u32/.s32");
      }
    } else {
      switch (dt) {
        case Type::F32: one = 0x3f800000; break;
        case Type::F16: one = 0x3c00; break;
        case Type::BF16: one = 0x3f80; break;
        case Type::U32: case Type::S32: case Type::B32: one = 0xffffffff; break;
        case Type::U16: case Type::S16: case Type::B16: one = 0xffff; break;
        default: return c.fail("set writes .u32, .s32 or .f32 (.u16/.s16/.f16/.bf16 for half sources)");
      }
    }
    out.imm = int64_t(one);
  }
  refs[2] = c.ref(ins.operands[1], st);
  refs[3] = c.ref(ins.operands[2], st);
  if (refs[2].is_none() || refs[3].is_none()) return c.error.empty() ? c.fail("bad source") : false;
  if (refs[2].kind() == Ref::Pred || refs[3].kind() == Ref::Pred) return c.fail("compare sources cannot be predicates");
  if (bop) {
    refs[4] = c.ref(ins.operands[3], Type::Pred);
    if (refs[4].kind() != Ref::Pred) return c.error.empty() ? c.fail("operand c must be a predicate") : false;
  }
  out.flags = bop;
  out.type = uint8_t(st);
  c.set_ops(out, refs);
  out.exec = h;
  return true;
}

bool dec_setp(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_compare(c, ins, out, Kind::Setp); }
bool dec_set(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_compare(c, ins, out, Kind::Set); }

// ------------------------------------------------------------------ selp / slct

// selp d, a, b, c: d = c ? a : b. width: bits of the type.
void exec_selp(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  uint32_t p = ctx.pred(in.op[3]);
  unsigned w = in.width;
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return canon((p >> l & 1) ? a[l] : b[l], w); });
}

bool dec_selp(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  if (t == Type::None || t == Type::Pred) return c.fail("selp needs a data type");
  if (ins.operands.size() != 4) return c.fail("selp takes d, a, b, c");
  for (int i = 0; i < 3; ++i) {
    out.op[i] = c.ref(ins.operands[i], t);
    if (out.op[i].is_none() || out.op[i].kind() == Ref::Pred) return c.error.empty() ? c.fail("bad selp operand") : false;
  }
  out.op[3] = c.ref(ins.operands[3], Type::Pred);
  if (out.op[3].kind() != Ref::Pred) return c.error.empty() ? c.fail("selp's c must be a predicate") : false;
  out.nops = 4;
  out.width = uint8_t(std::min(type_bits(t), 64u));
  out.exec = exec_selp;
  return true;
}

// slct d, a, b, c: d = c >= 0 ? a : b, c .s32 or .f32 (.ftz: a subnormal c counts as zero).
template <int CKind>  // 0 s32, 1 f32, 2 f32.ftz
void exec_slct(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* s = ctx.src(in.op[3]);
  unsigned w = in.width;
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) {
    bool ge;
    if constexpr (CKind == 0) ge = int32_t(uint32_t(s[l])) >= 0;
    else ge = fp::f32(CKind == 2 ? fp::ftz32(uint32_t(s[l])) : uint32_t(s[l])) >= 0.0f;
    return canon(ge ? a[l] : b[l], w);
  });
}

bool dec_slct(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  auto ts = ins.types();
  Type t = ts[0], ct = ts[1];
  if (t == Type::None || ct == Type::None) return c.fail("slct needs .dtype.ctype");
  if (ct != Type::S32 && ct != Type::F32) return c.fail("slct's ctype is .s32 or .f32");
  if (ins.operands.size() != 4) return c.fail("slct takes d, a, b, c");
  for (int i = 0; i < 4; ++i) {
    out.op[i] = c.ref(ins.operands[i], i == 3 ? ct : t);
    if (out.op[i].is_none() || out.op[i].kind() == Ref::Pred) return c.error.empty() ? c.fail("bad slct operand") : false;
  }
  out.nops = 4;
  out.width = uint8_t(std::min(type_bits(t), 64u));
  out.exec = ct == Type::S32 ? exec_slct<0> : ins.has(Mod::ftz) ? exec_slct<2> : exec_slct<1>;
  return true;
}

}  // namespace

void register_float_ops() {
  register_decoder(Opcode::Add, dec_add);
  register_decoder(Opcode::Sub, dec_sub);
  register_decoder(Opcode::Mul, dec_mul);
  register_decoder(Opcode::Fma, dec_fma);
  register_decoder(Opcode::Mad, dec_fma);
  register_decoder(Opcode::Div, dec_div);
  register_decoder(Opcode::Rcp, dec_rcp);
  register_decoder(Opcode::Sqrt, dec_sqrt);
  register_decoder(Opcode::Rsqrt, dec_mufu<Fn::Rsqrt>);
  register_decoder(Opcode::Sin, dec_mufu<Fn::Sin>);
  register_decoder(Opcode::Cos, dec_mufu<Fn::Cos>);
  register_decoder(Opcode::Lg2, dec_mufu<Fn::Lg2>);
  register_decoder(Opcode::Ex2, dec_mufu<Fn::Ex2>);
  register_decoder(Opcode::Tanh, dec_mufu<Fn::Tanh>);
  register_decoder(Opcode::Abs, dec_abs);
  register_decoder(Opcode::Neg, dec_neg);
  register_decoder(Opcode::Min, dec_minmax<false>);
  register_decoder(Opcode::Max, dec_minmax<true>);
  register_decoder(Opcode::Copysign, dec_copysign);
  register_decoder(Opcode::Testp, dec_testp);
  register_decoder(Opcode::Setp, dec_setp);
  register_decoder(Opcode::Set, dec_set);
  register_decoder(Opcode::Selp, dec_selp);
  register_decoder(Opcode::Slct, dec_slct);
}

}  // namespace warpsim::func
