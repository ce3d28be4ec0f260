// Half precision arithmetic (PTX ISA 8.7, 9.7.4): add/sub/mul/fma/neg/abs/min/max/ex2/tanh on
// .f16, .f16x2, .bf16, .bf16x2, and the mixed-precision add/sub/fma .f32.f16/.f32.bf16.
//
// Every f16/bf16 value is exact in a double; a sum or product of two of them (or a*b + c split by
// TwoSum) is rounded once to the destination format with softfloat's integer rounder, so results
// are correctly rounded (.rn). Packed forms operate on the low half (first element) and the high
// half independently. NaN results are the canonical NaN 0x7fff. ex2/tanh (.approx) are our H100's
// results, bit for bit, for every input (tabulated: src/func/mufu.hpp).
#include <fmt/format.h>

#include <cmath>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/mufu.hpp"
#include "func/softfloat.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

// flags
constexpr uint32_t kFtz = 1, kSat = 2, kRelu = 4, kOob = 8, kNaN = 16, kXorsign = 32;
constexpr uint32_t kModeShift = 8;  // sf::Mode for mixed-precision forms

enum class HOp : uint8_t { Add, Sub, Mul, Fma, Neg, Abs, Min, Max, Ex2, Tanh };

template <int FI>
constexpr const sf::Format& fmt_of() {
  if constexpr (FI == 0) return sf::kF16;
  else return sf::kBF16;
}

// Post-processing shared by the arithmetic ops: .ftz on the result, .sat clamp to [0, 1] (NaN to
// +0), .relu (negative to +0, NaN to canonical NaN).
inline uint64_t post(const sf::Format& F, uint64_t r, uint32_t flags) {
  if (flags & kFtz) r = sf::ftz(F, r);
  if (flags & kSat) {
    if (sf::is_nan(F, r) || sf::is_neg(F, r)) return 0;
    if (sf::to_double(F, r) > 1.0) return sf::from_double(1.0, F, sf::Mode::Rn);
  }
  if (flags & kRelu) {
    if (sf::is_nan(F, r)) return F.qnan;
    if (sf::is_neg(F, r)) return 0;
  }
  return r;
}

template <int FI, HOp OP>
inline uint64_t elem(uint64_t a, uint64_t b, uint64_t c, uint32_t flags) {
  const sf::Format& F = fmt_of<FI>();
  constexpr uint64_t kOobNaN = 0x7fff;
  if constexpr (OP == HOp::Fma) {
    if ((flags & kOob) && (a == kOobNaN || b == kOobNaN || c == kOobNaN)) return 0;
  }
  if constexpr (OP == HOp::Ex2 || OP == HOp::Tanh) {
    // the H100's result for every input (mufu.hpp); ex2.bf16's .ftz is the unit's own
    return mufu::half_result((OP == HOp::Tanh ? 2 : 0) + FI, uint16_t(a));
  }
  if (flags & kFtz) {
    a = sf::ftz(F, a);
    b = sf::ftz(F, b);
    c = sf::ftz(F, c);
  }
  if constexpr (OP == HOp::Neg) return a ^ 0x8000;
  if constexpr (OP == HOp::Abs) return a & 0x7fff;
  if constexpr (OP == HOp::Min || OP == HOp::Max) {
    // PTX: xorsign = sign(a) ^ sign(b); .abs takes magnitudes; NaN selection; the sign is set on
    // a non-NaN result.
    uint64_t xs = (a ^ b) & 0x8000;
    if (flags & kXorsign) {
      a &= 0x7fff;
      b &= 0x7fff;
    }
    bool an = sf::is_nan(F, a), bn = sf::is_nan(F, b);
    uint64_t r;
    if (an && bn) return F.qnan;
    if (an || bn) {
      if (flags & kNaN) return F.qnan;
      r = an ? b : a;
    } else {
      double x = sf::to_double(F, a), y = sf::to_double(F, b);
      bool pick_a;
      if (x == y) {  // equal values: -0 orders below +0
        bool na = sf::is_neg(F, a), nb = sf::is_neg(F, b);
        pick_a = OP == HOp::Min ? (na || !nb) : (!na || nb);
      } else {
        pick_a = OP == HOp::Min ? x < y : x > y;
      }
      r = pick_a ? a : b;
    }
    if (flags & kXorsign) r = (r & 0x7fff) | xs;
    return r;
  }
  double x = sf::to_double(F, a), y = sf::to_double(F, b);
  uint64_t r;
  if constexpr (OP == HOp::Mul) {
    r = sf::from_double(x * y, F, sf::Mode::Rn);  // exact product (<= 22 significant bits)
  } else {
    double p = x, q = y;
    if constexpr (OP == HOp::Sub) q = -y;
    if constexpr (OP == HOp::Fma) {
      p = x * y;  // exact
      q = sf::to_double(F, c);
    }
    double s, err;
    sf::two_sum(p, q, s, err);
    r = sf::round_sum(s, err, F, sf::Mode::Rn);
  }
  return post(F, r, flags);
}

template <int FI, HOp OP, int N>
void exec_half(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = in.nops > 2 ? ctx.src(in.op[2]) : a;
  const uint64_t* c = in.nops > 3 ? ctx.src(in.op[3]) : a;
  uint32_t flags = in.flags;
  for_lanes(d, mask, [&](unsigned l) {
    uint64_t r = 0;
    for (int k = 0; k < N; ++k) {
      unsigned sh = 16 * k;
      r |= elem<FI, OP>((a[l] >> sh) & 0xffff, (b[l] >> sh) & 0xffff, (c[l] >> sh) & 0xffff, flags) << sh;
    }
    return r;
  });
}

// Mixed precision: d(f32) = a(half) + c(f32), a - c, or a*b + c (a, b half), rounded per mode.
template <int FI, HOp OP>
void exec_mixed(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const sf::Format& F = fmt_of<FI>();
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* c = in.nops > 3 ? ctx.src(in.op[3]) : b;
  sf::Mode mode = sf::Mode((in.flags >> kModeShift) & 7);
  bool sat = in.flags & kSat;
  for_lanes(d, mask, [&](unsigned l) {
    double x = sf::to_double(F, a[l] & 0xffff), p, q;
    double z = sf::to_double(sf::kF32, c[l] & 0xffffffffu);
    if constexpr (OP == HOp::Fma) {
      p = x * sf::to_double(F, b[l] & 0xffff);
      q = z;
    } else {
      p = x;
      q = OP == HOp::Sub ? -z : z;
    }
    double s, err;
    sf::two_sum(p, q, s, err);
    uint64_t r = sf::round_sum(s, err, sf::kF32, mode);
    if (sat) r = post(sf::kF32, r, kSat);
    return r;
  });
}

// ------------------------------------------------------------------ decode

bool half_type(Type t, int& fi, int& n) {
  switch (t) {
    case Type::F16: fi = 0; n = 1; return true;
    case Type::F16x2: fi = 0; n = 2; return true;
    case Type::BF16: fi = 1; n = 1; return true;
    case Type::BF16x2: fi = 1; n = 2; return true;
    default: return false;
  }
}

// A source operand of a half-precision instruction: a floating-point literal is rounded to the
// element format (a packed type gets it in both halves); integer literals are bit patterns.
Ref half_src(DecodeCtx& c, const Operand& o, Type t, Type elem) {
  if (o.kind == Operand::Kind::F32 || o.kind == Operand::Kind::F64) {
    double v = o.kind == Operand::Kind::F64 ? sf::d_of(uint64_t(o.ival)) : double(sf::f_of(uint32_t(o.ival)));
    const sf::Format& F = (elem == Type::BF16 || elem == Type::BF16x2) ? sf::kBF16
                          : elem == Type::F32                          ? sf::kF32
                                                                       : sf::kF16;
    uint64_t b = sf::from_double(v, F, sf::Mode::Rn);
    if (t == Type::F16x2 || t == Type::BF16x2) b |= b << 16;
    return c.cnst(b);
  }
  return c.ref(o, t);
}

using HandlerTable = Handler[2][2];  // [fi][n-1]

template <HOp OP>
HandlerTable& handlers() {
  static HandlerTable t = {{exec_half<0, OP, 1>, exec_half<0, OP, 2>}, {exec_half<1, OP, 1>, exec_half<1, OP, 2>}};
  return t;
}

template <HOp OP>
Handler pick(int fi, int n) {
  return handlers<OP>()[fi][n - 1];
}

// Checks that only the listed modifiers (besides the type) appear.
bool only_mods(DecodeCtx& c, const Instruction& ins, std::initializer_list<Mod> allowed, const char* what) {
  for (unsigned i = 0; i < ins.nmods; ++i) {
    Mod m = ins.mods[i];
    if (mod_class(m) == ModClass::Type) continue;
    bool ok = false;
    for (Mod a : allowed) ok |= a == m;
    if (!ok) return c.fail(fmt::format("{} does not support .{}", what, mod_name(m)));
  }
  return true;
}

bool set_operands(DecodeCtx& c, const Instruction& ins, DInstr& out, Type t, unsigned n) {
  if (ins.operands.size() != n) return c.fail(fmt::format("expected {} operands", n));
  out.op[0] = c.ref(ins.operands[0], t);
  for (unsigned i = 1; i < n; ++i) out.op[i] = half_src(c, ins.operands[i], t, t);
  out.nops = uint8_t(n);
  for (unsigned i = 0; i < n; ++i)
    if (out.op[i].is_none() || out.op[i].kind() == Ref::Pred)
      return c.error.empty() ? c.fail("invalid operand") : false;
  return true;
}

uint32_t common_flags(const Instruction& ins) {
  uint32_t f = 0;
  if (ins.has(Mod::ftz)) f |= kFtz;
  if (ins.has(Mod::sat)) f |= kSat;
  if (ins.has(Mod::relu)) f |= kRelu;
  if (ins.has(Mod::oob)) f |= kOob;
  if (ins.has(Mod::NaN)) f |= kNaN;
  if (ins.has(Mod::xorsign)) f |= kXorsign;
  return f;
}

sf::Mode mode_of(Round r) {
  switch (r) {
    case Round::Rz: return sf::Mode::Rz;
    case Round::Rm: return sf::Mode::Rm;
    case Round::Rp: return sf::Mode::Rp;
    default: return sf::Mode::Rn;
  }
}

// add/sub/fma .f32.f16/.f32.bf16 (mixed precision).
template <HOp OP>
bool dec_mixed(DecodeCtx& c, const Instruction& ins, DInstr& out, Type ht) {
  const char* name = OP == HOp::Fma ? "fma.f32.f16/bf16" : OP == HOp::Add ? "add.f32.f16/bf16" : "sub.f32.f16/bf16";
  if (!only_mods(c, ins, {Mod::rn, Mod::rz, Mod::rm, Mod::rp, Mod::sat}, name)) return false;
  Round r = round_of(ins);
  if (OP == HOp::Fma && r == Round::None) return c.fail("fma.f32.f16/bf16 needs a rounding modifier");
  unsigned n = OP == HOp::Fma ? 4 : 3;
  if (ins.operands.size() != n) return c.fail(fmt::format("expected {} operands", n));
  out.op[0] = c.ref(ins.operands[0], Type::F32);
  for (unsigned i = 1; i < n; ++i) {
    bool is_half = i < n - 1;
    out.op[i] = half_src(c, ins.operands[i], is_half ? ht : Type::F32, is_half ? ht : Type::F32);
  }
  out.nops = uint8_t(n);
  for (unsigned i = 0; i < n; ++i)
    if (out.op[i].is_none() || out.op[i].kind() == Ref::Pred) return c.error.empty() ? c.fail("invalid operand") : false;
  out.flags = (ins.has(Mod::sat) ? kSat : 0) | (uint32_t(mode_of(r)) << kModeShift);
  bool bf = ht == Type::BF16;
  out.exec = bf ? exec_mixed<1, OP> : exec_mixed<0, OP>;
  return true;
}

template <HOp OP>
bool dec_arith(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  auto ts = ins.types();
  int fi, n;
  if constexpr (OP == HOp::Add || OP == HOp::Sub || OP == HOp::Fma) {
    if (ts[0] == Type::F32 && (ts[1] == Type::F16 || ts[1] == Type::BF16)) return dec_mixed<OP>(c, ins, out, ts[1]);
  }
  if (!half_type(ts[0], fi, n)) return false;  // not a half-precision form
  if (ts[1] != Type::None) return c.fail("unexpected second type");
  bool bf = fi == 1;
  Round r = round_of(ins);
  if (r != Round::None && r != Round::Rn)
    return c.fail("half-precision arithmetic supports only the .rn rounding mode");
  if (OP == HOp::Fma && r == Round::None) return c.fail("fma.f16/bf16 needs a rounding modifier (.rn)");
  bool ok;
  switch (OP) {
    case HOp::Add: case HOp::Sub: case HOp::Mul:
      ok = bf ? only_mods(c, ins, {Mod::rn}, "bf16 add/sub/mul")
              : only_mods(c, ins, {Mod::rn, Mod::ftz, Mod::sat}, "f16 add/sub/mul");
      break;
    default:  // fma
      ok = bf ? only_mods(c, ins, {Mod::rn, Mod::relu, Mod::oob}, "fma.bf16")
              : only_mods(c, ins, {Mod::rn, Mod::ftz, Mod::sat, Mod::relu, Mod::oob}, "fma.f16");
      if (ok && ins.has(Mod::sat) && ins.has(Mod::relu)) return c.fail("fma: .sat and .relu are exclusive");
      if (ok && ins.has(Mod::oob) && (ins.has(Mod::ftz) || ins.has(Mod::sat)))
        return c.fail("fma.oob does not combine with .ftz/.sat");
      break;
  }
  if (!ok) return false;
  if (!set_operands(c, ins, out, ts[0], OP == HOp::Fma ? 4 : 3)) return false;
  out.flags = common_flags(ins);
  out.type = uint8_t(ts[0]);
  out.exec = pick<OP>(fi, n);
  return true;
}

template <HOp OP>
bool dec_unary(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  auto ts = ins.types();
  int fi, n;
  if (!half_type(ts[0], fi, n)) return false;
  bool bf = fi == 1;
  bool ok = true;
  switch (OP) {
    case HOp::Neg: case HOp::Abs:
      ok = bf ? only_mods(c, ins, {}, "neg/abs.bf16") : only_mods(c, ins, {Mod::ftz}, "neg/abs.f16");
      break;
    case HOp::Ex2:
      ok = only_mods(c, ins, {Mod::approx, Mod::ftz}, "ex2.f16/bf16");
      if (ok && !ins.has(Mod::approx)) return c.fail("ex2.f16/bf16 needs .approx");
      if (ok && bf && !ins.has(Mod::ftz)) return c.fail("ex2.approx.bf16 needs .ftz");
      if (ok && !bf && ins.has(Mod::ftz)) return c.fail("ex2.approx.f16 does not take .ftz");
      break;
    case HOp::Tanh:
      ok = only_mods(c, ins, {Mod::approx}, "tanh.f16/bf16");
      if (ok && !ins.has(Mod::approx)) return c.fail("tanh.f16/bf16 needs .approx");
      break;
    default: break;
  }
  if (!ok) return false;
  if (!set_operands(c, ins, out, ts[0], 2)) return false;
  out.flags = common_flags(ins);
  out.exec = pick<OP>(fi, n);
  return true;
}

template <HOp OP>
bool dec_minmax(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  auto ts = ins.types();
  int fi, n;
  if (!half_type(ts[0], fi, n)) return false;
  bool bf = fi == 1;
  if (!(bf ? only_mods(c, ins, {Mod::NaN, Mod::xorsign, Mod::abs}, "min/max.bf16")
           : only_mods(c, ins, {Mod::ftz, Mod::NaN, Mod::xorsign, Mod::abs}, "min/max.f16")))
    return false;
  if (ins.has(Mod::xorsign) != ins.has(Mod::abs)) return c.fail(".xorsign and .abs must be used together");
  if (ins.operands.size() != 3) return c.fail("three-input min/max is not supported for f16/bf16");
  if (!set_operands(c, ins, out, ts[0], 3)) return false;
  out.flags = common_flags(ins);
  out.exec = pick<OP>(fi, n);
  return true;
}

}  // namespace

void register_half_ops() {
  register_decoder(Opcode::Add, dec_arith<HOp::Add>);
  register_decoder(Opcode::Sub, dec_arith<HOp::Sub>);
  register_decoder(Opcode::Mul, dec_arith<HOp::Mul>);
  register_decoder(Opcode::Fma, dec_arith<HOp::Fma>);
  register_decoder(Opcode::Neg, dec_unary<HOp::Neg>);
  register_decoder(Opcode::Abs, dec_unary<HOp::Abs>);
  register_decoder(Opcode::Ex2, dec_unary<HOp::Ex2>);
  register_decoder(Opcode::Tanh, dec_unary<HOp::Tanh>);
  register_decoder(Opcode::Min, dec_minmax<HOp::Min>);
  register_decoder(Opcode::Max, dec_minmax<HOp::Max>);
}

}  // namespace warpsim::func
