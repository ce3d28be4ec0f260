// cvt (PTX ISA 8.7, 9.7.9.21) between the integer types u8..s64 and the floating-point types
// f16, bf16, tf32 (destination, from f32), f32, f64, the packed forms f16x2/bf16x2 from two f32,
// e4m3x2/e5m2x2 from two f32 or one f16x2 and back to f16x2, and cvt.pack.sat.
//
// Rules followed (ISA "cvt" description and 6.4 operand-size rules):
// - float -> float: .rn/.rz/.rm/.rp (.rna for tf32), exact when widening. Same type with an integer
//   rounding (.rni/.rzi/.rmi/.rpi) rounds to an integral value. NaN: narrowing gives the canonical
//   NaN of the destination, widening keeps the payload (quietened).
// - float -> int: .rni/.rzi/.rmi/.rpi (default .rzi when absent), always saturating to the
//   destination range; NaN -> 0.
// - int -> float: .rn/.rz/.rm/.rp (default .rn when absent), exact integer rounding of all 64 bits.
// - int -> int: the source (its low atype bits) is sign- or zero-extended per atype, then truncated
//   to dtype, or clamped to the dtype range with .sat.
// - .ftz flushes f32 subnormal inputs and f32 subnormal results (after rounding) to signed zero.
// - .sat on a float destination clamps to [0.0, 1.0], NaN -> +0. .relu: negative -> +0, NaN ->
//   canonical NaN. .satfinite: +-inf and values beyond MAX_NORM -> +-MAX_NORM, NaN stays NaN.
// - A destination register wider than dtype receives the value sign-extended when dtype is a
//   signed integer, zero-extended otherwise.
// - f16x2/bf16x2 from (a, b): a goes to the upper half, b to the lower; e4m3x2/e5m2x2 likewise
//   with bytes; from f16x2, the upper half goes to the upper byte.
#include <fmt/format.h>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/softfloat.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

// flags
constexpr uint32_t kModeMask = 7, kIrnd = 8, kFtz = 16, kSat = 32, kRelu = 64, kSatfinite = 128,
                   kSrcSigned = 256, kDstSigned = 512;

enum Fi : int { F16 = 0, BF16, TF32, F32, F64, E4M3, E5M2, NFmt };

template <int FI>
constexpr const sf::Format& fmt() {
  if constexpr (FI == F16) return sf::kF16;
  else if constexpr (FI == BF16) return sf::kBF16;
  else if constexpr (FI == TF32) return sf::kTF32;
  else if constexpr (FI == F32) return sf::kF32;
  else if constexpr (FI == F64) return sf::kF64;
  else if constexpr (FI == E4M3) return sf::kE4M3;
  else return sf::kE5M2;
}

inline uint64_t low(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64) return int64_t(v);
  unsigned sh = 64 - bits;
  return int64_t(v << sh) >> sh;
}
// Writes an integer result of dtype width into a register of `reg` bits.
inline uint64_t extend(uint64_t v, unsigned dbits, bool dsigned, unsigned reg) {
  uint64_t x = dsigned ? uint64_t(sext(v, dbits)) : low(v, dbits);
  return canon(x, reg);
}

// .ftz (f32 only), .relu, .sat on a float result.
template <int DI>
inline uint64_t post(uint64_t r, uint32_t flags) {
  const sf::Format& D = fmt<DI>();
  if (DI == F32 && (flags & kFtz)) r = sf::ftz(D, r);
  if (flags & kRelu) {
    if (sf::is_nan(D, r)) return D.qnan;
    if (sf::is_neg(D, r)) return 0;
  }
  if (flags & kSat) {
    if (sf::is_nan(D, r) || sf::is_neg(D, r)) return 0;
    if (sf::to_double(D, r) > 1.0) return sf::from_double(1.0, D, sf::Mode::Rn);
  }
  return r;
}

template <int SI, int DI>
inline uint64_t f2f(uint64_t a, uint32_t flags) {
  const sf::Format& S = fmt<SI>();
  const sf::Format& D = fmt<DI>();
  a = low(a, S.bits);
  if (SI == F32 && (flags & kFtz)) a = sf::ftz(S, a);
  sf::Mode m = sf::Mode(flags & kModeMask);
  uint64_t r;
  if constexpr (SI == DI) {
    if (flags & kIrnd) {
      if (sf::is_nan(S, a)) r = S.qnan;
      else if (sf::is_inf(S, a)) r = a;
      else r = sf::from_double(sf::round_integral(sf::to_double(S, a), m), S, sf::Mode::Rn);
    } else {
      r = a;
    }
  } else {
    r = sf::convert(S, a, D, m, flags & kSatfinite);
  }
  return post<DI>(r, flags);
}

template <int SI, int DI>
void exec_f2f(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t flags = in.flags;
  for_lanes(d, mask, [&](unsigned l) { return f2f<SI, DI>(a[l], flags); });
}

// imm2: destination bits; width: destination register bits.
template <int SI>
void exec_f2i(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const sf::Format& S = fmt<SI>();
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t flags = in.flags;
  unsigned dbits = unsigned(in.imm2), reg = in.width;
  bool dsigned = flags & kDstSigned;
  sf::Mode m = sf::Mode(flags & kModeMask);
  for_lanes(d, mask, [&](unsigned l) {
    uint64_t x = low(a[l], S.bits);
    if (SI == F32 && (flags & kFtz)) x = sf::ftz(S, x);
    uint64_t r = sf::to_int(sf::to_double(S, x), m, dsigned, dbits);
    return extend(r, dbits, dsigned, reg);
  });
}

// imm: source bits.
template <int DI>
void exec_i2f(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t flags = in.flags;
  unsigned sbits = unsigned(in.imm);
  bool ssigned = flags & kSrcSigned;
  sf::Mode m = sf::Mode(flags & kModeMask);
  for_lanes(d, mask, [&](unsigned l) {
    bool neg = false;
    uint64_t mag;
    if (ssigned) {
      int64_t v = sext(a[l], sbits);
      neg = v < 0;
      mag = neg ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    } else {
      mag = low(a[l], sbits);
    }
    return post<DI>(sf::from_int(neg, mag, fmt<DI>(), m), flags);
  });
}

// imm: source bits, imm2: destination bits, width: destination register bits.
void exec_i2i(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t flags = in.flags;
  unsigned sbits = unsigned(in.imm), dbits = unsigned(in.imm2), reg = in.width;
  bool ssigned = flags & kSrcSigned, dsigned = flags & kDstSigned, sat = flags & kSat;
  __int128 lo = dsigned ? -(__int128(1) << (dbits - 1)) : 0;
  __int128 hi = dsigned ? (__int128(1) << (dbits - 1)) - 1 : (__int128(1) << dbits) - 1;
  for_lanes(d, mask, [&](unsigned l) {
    __int128 v = ssigned ? __int128(sext(a[l], sbits)) : __int128(low(a[l], sbits));
    if (sat) v = v < lo ? lo : v > hi ? hi : v;
    return extend(uint64_t(v), dbits, dsigned, reg);
  });
}

// Two f32 sources -> packed pair in the destination: a to the upper element, b to the lower.
template <int DI>
void exec_pair_f32(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  uint32_t flags = in.flags;
  constexpr unsigned eb = fmt<DI>().bits;
  for_lanes(d, mask, [&](unsigned l) {
    return (f2f<F32, DI>(a[l], flags) << eb) | f2f<F32, DI>(b[l], flags);
  });
}

// f16x2 -> e4m3x2/e5m2x2 (upper half to upper byte).
template <int DI>
void exec_f8x2_from_f16x2(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t flags = in.flags;
  for_lanes(d, mask, [&](unsigned l) {
    return (f2f<F16, DI>((a[l] >> 16) & 0xffff, flags) << 8) | f2f<F16, DI>(a[l] & 0xffff, flags);
  });
}

// e4m3x2/e5m2x2 -> f16x2 (upper byte to upper half), exact.
template <int SI>
void exec_f16x2_from_f8x2(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t flags = in.flags;
  for_lanes(d, mask, [&](unsigned l) {
    return (f2f<SI, F16>((a[l] >> 8) & 0xff, flags) << 16) | f2f<SI, F16>(a[l] & 0xff, flags);
  });
}

// cvt.pack.sat.{u8,s8,u16,s16,u4,s4,u2,s2}.s32[.b32]: imm: element bits, flags: kDstSigned.
void exec_pack(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  const uint64_t* b = ctx.src(in.op[2]);
  const uint64_t* c = in.nops > 3 ? ctx.src(in.op[3]) : nullptr;
  unsigned size = unsigned(in.imm);
  bool dsigned = in.flags & kDstSigned;
  int64_t lo = dsigned ? -(int64_t(1) << (size - 1)) : 0;
  int64_t hi = dsigned ? (int64_t(1) << (size - 1)) - 1 : (int64_t(1) << size) - 1;
  uint64_t m = (1ull << size) - 1;
  unsigned reg = in.width;
  for_lanes(d, mask, [&](unsigned l) {
    int64_t ta = sext(a[l], 32), tb = sext(b[l], 32);
    ta = ta < lo ? lo : ta > hi ? hi : ta;
    tb = tb < lo ? lo : tb > hi ? hi : tb;
    uint64_t r = (uint64_t(tb) & m) | ((uint64_t(ta) & m) << size);
    if (c) r |= c[l] << (2 * size);
    return canon(r & 0xffffffffu, reg);
  });
}

// ------------------------------------------------------------------ decode

int fmt_index(Type t) {
  switch (t) {
    case Type::F16: return F16;
    case Type::BF16: return BF16;
    case Type::TF32: return TF32;
    case Type::F32: return F32;
    case Type::F64: return F64;
    case Type::E4M3: return E4M3;
    case Type::E5M2: return E5M2;
    default: return -1;
  }
}

bool is_int(Type t) {
  switch (t) {
    case Type::U8: case Type::U16: case Type::U32: case Type::U64:
    case Type::S8: case Type::S16: case Type::S32: case Type::S64: return true;
    default: return false;
  }
}

unsigned reg_bits(DecodeCtx& c, const Operand& o) {
  if (o.kind != Operand::Kind::Reg) return 64;
  unsigned b = type_size(c.fn.regs[o.reg].type) * 8;
  return b == 0 ? 64 : std::min(b, 64u);
}

// A source operand: floating-point literals are rounded (to nearest) into the source format.
Ref src_ref(DecodeCtx& c, const Operand& o, Type t) {
  int fi = fmt_index(t);
  if ((o.kind == Operand::Kind::F32 || o.kind == Operand::Kind::F64) && fi >= 0 && fi != F32 && fi != F64) {
    double v = o.kind == Operand::Kind::F64 ? sf::d_of(uint64_t(o.ival)) : double(sf::f_of(uint32_t(o.ival)));
    static const sf::Format* fs[] = {&sf::kF16, &sf::kBF16, &sf::kTF32, &sf::kF32, &sf::kF64, &sf::kE4M3, &sf::kE5M2};
    return c.cnst(sf::from_double(v, *fs[fi], sf::Mode::Rn));
  }
  if ((o.kind == Operand::Kind::F32 || o.kind == Operand::Kind::F64) && is_int(t))
    return c.fail("a floating-point literal cannot be an integer cvt source"), Ref::none();
  return c.ref(o, t);
}

template <int SI>
Handler f2f_for(int di) {
  switch (di) {
    case F16: return exec_f2f<SI, F16>;
    case BF16: return exec_f2f<SI, BF16>;
    case TF32: return exec_f2f<SI, TF32>;
    case F32: return exec_f2f<SI, F32>;
    case F64: return exec_f2f<SI, F64>;
    default: return nullptr;
  }
}

Handler f2f_handler(int si, int di) {
  switch (si) {
    case F16: return f2f_for<F16>(di);
    case BF16: return f2f_for<BF16>(di);
    case F32: return f2f_for<F32>(di);
    case F64: return f2f_for<F64>(di);
    default: return nullptr;
  }
}

uint32_t mode_bits(Round r, bool& irnd) {
  irnd = false;
  switch (r) {
    case Round::Rz: return uint32_t(sf::Mode::Rz);
    case Round::Rm: return uint32_t(sf::Mode::Rm);
    case Round::Rp: return uint32_t(sf::Mode::Rp);
    case Round::Rna: return uint32_t(sf::Mode::Rna);
    case Round::Rni: irnd = true; return uint32_t(sf::Mode::Rn);
    case Round::Rzi: irnd = true; return uint32_t(sf::Mode::Rz);
    case Round::Rmi: irnd = true; return uint32_t(sf::Mode::Rm);
    case Round::Rpi: irnd = true; return uint32_t(sf::Mode::Rp);
    default: return uint32_t(sf::Mode::Rn);
  }
}

bool dec_pack(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  unsigned size = 0;
  bool sgn = false;
  for (unsigned i = 0; i < ins.nmods && !size; ++i) switch (ins.mods[i]) {
      case Mod::u16: size = 16; break;
      case Mod::s16: size = 16; sgn = true; break;
      case Mod::u8: size = 8; break;
      case Mod::s8: size = 8; sgn = true; break;
      case Mod::u4: size = 4; break;
      case Mod::s4: size = 4; sgn = true; break;
      case Mod::u2: size = 2; break;
      case Mod::s2: size = 2; sgn = true; break;
      default: break;
    }
  if (!size) return c.fail("cvt.pack needs a .u16/.s16/.u8/.s8/.u4/.s4/.u2/.s2 convert type");
  if (!ins.has(Mod::sat)) return c.fail("cvt.pack needs .sat");
  unsigned n = size == 16 ? 3 : 4;
  if (ins.operands.size() != n) return c.fail(fmt::format("cvt.pack with this type needs {} operands", n));
  out.op[0] = c.ref(ins.operands[0], Type::B32);
  out.op[1] = c.ref(ins.operands[1], Type::S32);
  out.op[2] = c.ref(ins.operands[2], Type::S32);
  if (n == 4) out.op[3] = c.ref(ins.operands[3], Type::B32);
  out.nops = uint8_t(n);
  for (unsigned i = 0; i < n; ++i)
    if (out.op[i].is_none() || out.op[i].kind() == Ref::Pred) return c.error.empty() ? c.fail("invalid operand") : false;
  out.imm = size;
  out.flags = sgn ? kDstSigned : 0;
  out.width = uint8_t(reg_bits(c, ins.operands[0]));
  out.exec = exec_pack;
  return true;
}

bool dec_cvt(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (ins.has(Mod::pack)) return dec_pack(c, ins, out);
  for (unsigned i = 0; i < ins.nmods; ++i)
    if (mod_class(ins.mods[i]) == ModClass::Type && !mod_type(ins.mods[i]))
      return c.fail(fmt::format("cvt with .{} is not supported", mod_name(ins.mods[i])));
  auto ts = ins.types();
  Type dt = ts[0], at = ts[1];
  if (dt == Type::None || at == Type::None || ts[2] != Type::None)
    return c.fail("cvt needs a destination and a source type");
  Round r = round_of(ins);
  if (r == Round::Rs) return c.fail("cvt.rs (stochastic rounding) is not supported");
  bool irnd;
  uint32_t flags = mode_bits(r, irnd);
  if (irnd) flags |= kIrnd;
  if (ins.has(Mod::ftz)) flags |= kFtz;
  if (ins.has(Mod::sat)) flags |= kSat;
  if (ins.has(Mod::relu)) flags |= kRelu;
  if (ins.has(Mod::satfinite)) flags |= kSatfinite;
  if (is_signed_type(at)) flags |= kSrcSigned;
  if (is_signed_type(dt)) flags |= kDstSigned;

  const auto& ops = ins.operands;
  auto finish = [&](unsigned n, Type srct, Handler h) {
    if (ops.size() != n) return c.fail(fmt::format("this cvt form needs {} operands", n));
    out.op[0] = c.ref(ops[0], dt);
    for (unsigned i = 1; i < n; ++i) out.op[i] = src_ref(c, ops[i], srct);
    out.nops = uint8_t(n);
    for (unsigned i = 0; i < n; ++i)
      if (out.op[i].is_none() || out.op[i].kind() == Ref::Pred)
        return c.error.empty() ? c.fail("invalid cvt operand") : false;
    if (!h) return c.fail(fmt::format("cvt.{}.{} is not supported", type_name(dt), type_name(at)));
    out.exec = h;
    out.flags = flags;
    out.type = uint8_t(dt);
    out.type2 = uint8_t(at);
    out.width = uint8_t(reg_bits(c, ops[0]));
    return true;
  };
  bool fr = r == Round::Rn || r == Round::Rz;
  // ---- packed forms
  if (dt == Type::F16x2 || dt == Type::BF16x2) {
    if (at == Type::F32) {
      if (!fr) return c.fail("cvt to f16x2/bf16x2 needs .rn or .rz");
      return finish(3, Type::F32, dt == Type::F16x2 ? Handler(exec_pair_f32<F16>) : exec_pair_f32<BF16>);
    }
    if (dt == Type::F16x2 && (at == Type::E4M3x2 || at == Type::E5M2x2)) {
      if (r != Round::Rn) return c.fail("cvt.f16x2 from e4m3x2/e5m2x2 needs .rn");
      flags &= ~kSrcSigned;
      return finish(2, Type::B16, at == Type::E4M3x2 ? Handler(exec_f16x2_from_f8x2<E4M3>) : exec_f16x2_from_f8x2<E5M2>);
    }
    return c.fail(fmt::format("cvt.{}.{} is not supported", type_name(dt), type_name(at)));
  }
  if (dt == Type::E4M3x2 || dt == Type::E5M2x2) {
    if (r != Round::Rn || !ins.has(Mod::satfinite)) return c.fail("cvt to e4m3x2/e5m2x2 needs .rn.satfinite");
    bool e4 = dt == Type::E4M3x2;
    if (at == Type::F32) return finish(3, Type::F32, e4 ? Handler(exec_pair_f32<E4M3>) : exec_pair_f32<E5M2>);
    if (at == Type::F16x2) return finish(2, Type::B32, e4 ? Handler(exec_f8x2_from_f16x2<E4M3>) : exec_f8x2_from_f16x2<E5M2>);
    return c.fail(fmt::format("cvt.{}.{} is not supported", type_name(dt), type_name(at)));
  }
  if (at == Type::F16x2 || at == Type::BF16x2 || at == Type::E4M3x2 || at == Type::E5M2x2 ||
      dt == Type::E4M3 || dt == Type::E5M2 || at == Type::E4M3 || at == Type::E5M2)
    return c.fail(fmt::format("cvt.{}.{} is not a valid conversion", type_name(dt), type_name(at)));

  int di = fmt_index(dt), si = fmt_index(at);
  bool dint = is_int(dt), sint = is_int(at);
  if ((di < 0 && !dint) || (si < 0 && !sint))
    return c.fail(fmt::format("cvt.{}.{} is not supported", type_name(dt), type_name(at)));
  if (si == TF32) return c.fail("cvt from .tf32 is not a valid conversion");
  if (di == TF32) {
    if (at != Type::F32) return c.fail("cvt to .tf32 needs an .f32 source");
    if (r != Round::Rna && r != Round::Rn && r != Round::Rz) return c.fail("cvt.tf32.f32 needs .rna, .rn or .rz");
    if (r == Round::Rna && ins.has(Mod::relu)) return c.fail("cvt.rna.tf32.f32 does not take .relu");
    return finish(2, at, exec_f2f<F32, TF32>);
  }
  if (dint && sint) {
    if (irnd || r != Round::None) return c.fail("integer-to-integer cvt takes no rounding modifier");
    out.imm = type_bits(at);
    out.imm2 = type_bits(dt);
    return finish(2, at, exec_i2i);
  }
  if (dint) {  // float -> int
    if (r != Round::None && !irnd) return c.fail("float-to-integer cvt needs an integer rounding (.rni/.rzi/.rmi/.rpi)");
    if (r == Round::None) flags = (flags & ~kModeMask) | uint32_t(sf::Mode::Rz);
    out.imm2 = type_bits(dt);
    Handler h = si == F16 ? Handler(exec_f2i<F16>) : si == BF16 ? exec_f2i<BF16> : si == F32 ? exec_f2i<F32> : exec_f2i<F64>;
    return finish(2, at, h);
  }
  if (sint) {  // int -> float
    if (irnd) return c.fail("integer-to-float cvt needs a floating-point rounding (.rn/.rz/.rm/.rp)");
    out.imm = type_bits(at);
    Handler h = di == F16 ? Handler(exec_i2f<F16>) : di == BF16 ? exec_i2f<BF16> : di == F32 ? exec_i2f<F32> : exec_i2f<F64>;
    return finish(2, at, h);
  }
  // float -> float
  if (irnd && di != si) return c.fail("integer rounding needs the same source and destination float type");
  if (r == Round::Rna) return c.fail(".rna is only valid for cvt.tf32.f32");
  return finish(2, at, f2f_handler(si, di));
}

}  // namespace

void register_cvt_ops() { register_decoder(Opcode::Cvt, dec_cvt); }

}  // namespace warpsim::func
