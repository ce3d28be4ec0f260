// Atomic memory operations (PTX ISA 8.7, 9.7.13.5 atom and 9.7.13.6 red).
//
// Ordering model: the functional engine runs one warp instruction at a time, so every atomic is
// indivisible by construction. Within one warp instruction the lanes apply their operations in
// ascending lane order (lane 0 first); a lane's `d` receives the value it found before its own
// update. The memory-ordering qualifiers (.relaxed/.acquire/.release/.acq_rel/.sc), the scopes
// (.cta/.cluster/.gpu/.sys) and .L2::cache_hint (with its cache-policy operand) are accepted and
// have no further functional effect in this sequential model (the policy's L2 hint goes to the
// timing model's access trace).
//
// Spaces: .global, .shared / .shared::cta, .shared::cluster (clusters are single CTAs here, and a
// shared::cta address is a valid shared::cluster address of the executing CTA), and generic
// addresses, which resolve through the shared/local windows; a generic address in the local window
// faults (the ISA allows atomics only on global and shared memory).
//
// Floating point: atom.add.f32 rounds to nearest even and flushes subnormal inputs and results to
// sign-preserving zero, as the ISA states for every space (current GPUs do not flush on shared
// memory; the ISA text is followed). .f64 adds are IEEE round-to-nearest-even without flushing.
// .f16/.f16x2/.bf16/.bf16x2 need .noftz and keep subnormals; NaN results are the canonical NaN
// (0x7fffffff, 0x7fff).
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/memory_access.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

// ------------------------------------------------------------------ small float formats

// Exact value of an IEEE binary16 (E=5, M=10) or bfloat16 (E=8, M=7) bit pattern.
template <int E, int M>
double small_to_double(uint32_t h) {
  constexpr int bias = (1 << (E - 1)) - 1;
  bool neg = h >> (E + M) & 1;
  uint32_t e = (h >> M) & ((1u << E) - 1);
  uint32_t m = h & ((1u << M) - 1);
  double v;
  if (e == (1u << E) - 1) v = m ? std::nan("") : INFINITY;
  else if (e == 0) v = std::ldexp(double(m), 1 - bias - M);
  else v = std::ldexp(double(m | (1u << M)), int(e) - bias - M);
  return neg ? -v : v;
}

// Rounds a double to binary16/bfloat16 with round-to-nearest-even (subnormals kept). The inputs
// here are exact sums of two small-format values rounded once to double; double has more than
// 2p+2 bits for both formats, so this second rounding gives the correctly rounded result.
template <int E, int M>
uint32_t double_to_small(double x) {
  constexpr int bias = (1 << (E - 1)) - 1;
  constexpr uint32_t canon_nan = (1u << (E + M)) - 1;  // 0x7fff for both formats
  if (std::isnan(x)) return canon_nan;
  uint32_t sign = std::signbit(x) ? 1u << (E + M) : 0;
  double ax = std::fabs(x);
  uint32_t inf = ((1u << E) - 1) << M;
  if (std::isinf(ax)) return sign | inf;
  if (ax == 0) return sign;
  int ex;
  std::frexp(ax, &ex);  // ax = f * 2^ex, f in [0.5, 1)
  int e = std::max(ex - 1, 1 - bias);
  double r = std::nearbyint(std::ldexp(ax, M - e));  // default rounding mode: to nearest even
  uint64_t q = uint64_t(r);
  if (q >> (M + 1)) {  // rounded up to the next binade
    q >>= 1;
    ++e;
  }
  if (e > bias) return sign | inf;
  if (q < (1ull << M)) return sign | uint32_t(q);  // subnormal (e == 1 - bias)
  return sign | (uint32_t(e + bias) << M) | uint32_t(q & ((1u << M) - 1));
}

template <int E, int M>
uint32_t small_add(uint32_t a, uint32_t b) {
  return double_to_small<E, M>(small_to_double<E, M>(a) + small_to_double<E, M>(b));
}

// min/max of two small-format values: NaN inputs are ignored unless both are NaN (canonical NaN);
// -0.0 < +0.0.
template <int E, int M, bool Max>
uint32_t small_minmax(uint32_t a, uint32_t b) {
  constexpr uint32_t canon_nan = (1u << (E + M)) - 1;
  double x = small_to_double<E, M>(a), y = small_to_double<E, M>(b);
  if (std::isnan(x) && std::isnan(y)) return canon_nan;
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x == y) {  // equal values differ at most in the sign of zero
    bool an = a >> (E + M) & 1;
    return Max ? (an ? b : a) : (an ? a : b);
  }
  return (Max ? x > y : x < y) ? a : b;
}

uint32_t f32_ftz(uint32_t b) { return (b & 0x7f800000u) == 0 ? (b & 0x80000000u) : b; }

uint32_t f32_add_ftz(uint32_t a, uint32_t b) {
  float x, y;
  uint32_t ua = f32_ftz(a), ub = f32_ftz(b);
  std::memcpy(&x, &ua, 4);
  std::memcpy(&y, &ub, 4);
  float r = x + y;
  if (std::isnan(r)) return 0x7fffffffu;
  uint32_t u;
  std::memcpy(&u, &r, 4);
  return f32_ftz(u);
}

// ------------------------------------------------------------------ element operations

enum class AOp : uint8_t { And, Or, Xor, Add, Inc, Dec, Min, Max, Cas, Exch };
enum class AKind : uint8_t { B16, U32, S32, U64, S64, F32, F64, F16, F16x2, BF16, BF16x2 };

constexpr unsigned kind_bytes(AKind k) {
  switch (k) {
    case AKind::B16: case AKind::F16: case AKind::BF16: return 2;
    case AKind::U64: case AKind::S64: case AKind::F64: return 8;
    default: return 4;
  }
}

// New memory value from the old one, operand b (and c for cas).
template <AOp Op, AKind K>
inline uint64_t apply(uint64_t old, uint64_t b, uint64_t c) {
  constexpr unsigned nbits = kind_bytes(K) * 8;
  if constexpr (Op == AOp::And) return old & b;
  else if constexpr (Op == AOp::Or) return old | b;
  else if constexpr (Op == AOp::Xor) return old ^ b;
  else if constexpr (Op == AOp::Exch) return b;
  else if constexpr (Op == AOp::Cas) return canon(old, nbits) == canon(b, nbits) ? c : old;
  else if constexpr (Op == AOp::Inc) {
    uint32_t o = uint32_t(old), v = uint32_t(b);
    return o >= v ? 0 : o + 1;
  } else if constexpr (Op == AOp::Dec) {
    uint32_t o = uint32_t(old), v = uint32_t(b);
    return (o == 0 || o > v) ? v : o - 1;
  } else if constexpr (Op == AOp::Add) {
    if constexpr (K == AKind::F32) return f32_add_ftz(uint32_t(old), uint32_t(b));
    else if constexpr (K == AKind::F64) return bits(as<double>(old) + as<double>(b));
    else if constexpr (K == AKind::F16) return small_add<5, 10>(uint32_t(old & 0xffff), uint32_t(b & 0xffff));
    else if constexpr (K == AKind::BF16) return small_add<8, 7>(uint32_t(old & 0xffff), uint32_t(b & 0xffff));
    else if constexpr (K == AKind::F16x2)
      return small_add<5, 10>(uint32_t(old & 0xffff), uint32_t(b & 0xffff)) |
             uint64_t(small_add<5, 10>(uint32_t(old >> 16 & 0xffff), uint32_t(b >> 16 & 0xffff))) << 16;
    else if constexpr (K == AKind::BF16x2)
      return small_add<8, 7>(uint32_t(old & 0xffff), uint32_t(b & 0xffff)) |
             uint64_t(small_add<8, 7>(uint32_t(old >> 16 & 0xffff), uint32_t(b >> 16 & 0xffff))) << 16;
    else return old + b;  // integers wrap; truncated to the width on store
  } else {  // Min / Max
    constexpr bool mx = Op == AOp::Max;
    if constexpr (K == AKind::S32) {
      int32_t o = int32_t(uint32_t(old)), v = int32_t(uint32_t(b));
      return uint32_t(mx ? std::max(o, v) : std::min(o, v));
    } else if constexpr (K == AKind::S64) {
      int64_t o = int64_t(old), v = int64_t(b);
      return uint64_t(mx ? std::max(o, v) : std::min(o, v));
    } else if constexpr (K == AKind::U32) {
      uint32_t o = uint32_t(old), v = uint32_t(b);
      return mx ? std::max(o, v) : std::min(o, v);
    } else if constexpr (K == AKind::U64) {
      return mx ? std::max(old, b) : std::min(old, b);
    } else if constexpr (K == AKind::F16) {
      return small_minmax<5, 10, mx>(uint32_t(old & 0xffff), uint32_t(b & 0xffff));
    } else if constexpr (K == AKind::BF16) {
      return small_minmax<8, 7, mx>(uint32_t(old & 0xffff), uint32_t(b & 0xffff));
    } else if constexpr (K == AKind::F16x2) {
      return small_minmax<5, 10, mx>(uint32_t(old & 0xffff), uint32_t(b & 0xffff)) |
             uint64_t(small_minmax<5, 10, mx>(uint32_t(old >> 16 & 0xffff), uint32_t(b >> 16 & 0xffff))) << 16;
    } else if constexpr (K == AKind::BF16x2) {
      return small_minmax<8, 7, mx>(uint32_t(old & 0xffff), uint32_t(b & 0xffff)) |
             uint64_t(small_minmax<8, 7, mx>(uint32_t(old >> 16 & 0xffff), uint32_t(b >> 16 & 0xffff))) << 16;
    } else {
      static_assert(K == AKind::U32, "no min/max for this type");
      return 0;
    }
  }
}

// ------------------------------------------------------------------ addressing

// Addresses: lane_address() and the flags layout of memory_access.hpp.

inline uint8_t* atom_access(ExecCtx& ctx, AccessSpace sp, unsigned l, uint64_t a, unsigned n) {
  if (sp == AccessSpace::Generic && a >= kLocalWindow && a - kLocalWindow < kWindowSize) {
    ctx.fault(FaultKind::IllegalAddress, l, a,
              fmt::format("atomic of {} bytes on generic address 0x{:x}, which is local memory", n, a));
    return nullptr;
  }
  return resolve_access(ctx, sp, l, a, n, true);
}

// flags bit 16: a cache-policy operand (.L2::cache_hint) is the last operand.
constexpr uint32_t kAtomHasPolicy = 1u << 16;

// The L2 hint of lane l's access while it is recorded (timing mode); put back by the destructor.
struct AtomHint {
  MemTrace* tr = nullptr;
  const uint64_t* pol = nullptr;
  AtomHint(ExecCtx& ctx, const DInstr& in, const Ref* ops) {
    if (!(in.flags & kAtomHasPolicy) || !ctx.launch.trace) return;
    tr = ctx.launch.trace;
    pol = ctx.src(ops[in.nops - 1]);
  }
  void lane(ExecCtx& ctx, unsigned l, uint64_t a) {
    if (pol) tr->l2 = policy_hint(pol[l], a, ctx.launch.range_policies);
  }
  ~AtomHint() {
    if (tr) tr->l2 = L2Hint::Unchanged;
  }
};

// ops: d[0..vec) (none for red), base, b[0..vec), c (cas). width: vector length. HasD: atom vs red.
// Layout in op[]: [base, d0.., b0.., c, policy]; imm2 = index of the first b.
template <AOp Op, AKind K, bool HasD>
void exec_atom(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  constexpr unsigned es = kind_bytes(K);
  AccessSpace sp = AccessSpace(in.flags & 15);
  unsigned vec = in.width;
  unsigned bi = unsigned(in.imm2);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* cv = Op == AOp::Cas ? ctx.src(ops[bi + 1]) : nullptr;
  AtomHint hint(ctx, in, ops);
  if (vec == 1) {
    const uint64_t* b = ctx.src(ops[bi]);
    uint64_t* d = HasD && !ops[1].is_none() ? ctx.dst(ops[1]) : nullptr;
    // Read all operands before any lane's d is written (d may alias b, c or the base).
    uint64_t bv[kWarpSize], cvv[kWarpSize], av[kWarpSize];
    for (unsigned l = 0; l < kWarpSize; ++l) {
      bv[l] = b[l];
      cvv[l] = cv ? cv[l] : 0;
      av[l] = lane_address(ctx, in, base, l);
    }
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (!(mask >> l & 1)) continue;
      hint.lane(ctx, l, av[l]);
      uint8_t* p = atom_access(ctx, sp, l, av[l], es);
      if (!p) return;
      uint64_t old = 0;
      std::memcpy(&old, p, es);
      uint64_t nv = apply<Op, K>(old, bv[l], cvv[l]);
      std::memcpy(p, &nv, es);
      if (d) d[l] = old;  // zero-extended: memcpy into a zeroed 64-bit value
    }
    return;
  }
  // Vector forms (global only): each element is updated; the access is vec * es bytes, aligned.
  uint64_t bv[8][kWarpSize], av[kWarpSize];
  for (unsigned k = 0; k < vec; ++k) std::memcpy(bv[k], ctx.src(ops[bi + k]), sizeof bv[k]);
  for (unsigned l = 0; l < kWarpSize; ++l) av[l] = lane_address(ctx, in, base, l);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    hint.lane(ctx, l, av[l]);
    uint8_t* p = atom_access(ctx, sp, l, av[l], es * vec);
    if (!p) return;
    for (unsigned k = 0; k < vec; ++k) {
      uint64_t old = 0;
      std::memcpy(&old, p + k * es, es);
      uint64_t nv = apply<Op, K>(old, bv[k][l], 0);
      std::memcpy(p + k * es, &nv, es);
      if (HasD && !ops[1 + k].is_none()) ctx.dst(ops[1 + k])[l] = old;
    }
  }
}

template <AOp Op, AKind K>
Handler pick2(bool has_d) {
  return has_d ? exec_atom<Op, K, true> : exec_atom<Op, K, false>;
}

template <AOp Op>
Handler pick_int(AKind k, bool has_d) {
  switch (k) {
    case AKind::U32: return pick2<Op, AKind::U32>(has_d);
    case AKind::S32: return pick2<Op, AKind::S32>(has_d);
    case AKind::U64: return pick2<Op, AKind::U64>(has_d);
    case AKind::S64: return pick2<Op, AKind::S64>(has_d);
    default: return nullptr;
  }
}

template <AOp Op>
Handler pick_float(AKind k, bool has_d) {
  switch (k) {
    case AKind::F16: return pick2<Op, AKind::F16>(has_d);
    case AKind::F16x2: return pick2<Op, AKind::F16x2>(has_d);
    case AKind::BF16: return pick2<Op, AKind::BF16>(has_d);
    case AKind::BF16x2: return pick2<Op, AKind::BF16x2>(has_d);
    default: return nullptr;
  }
}

AKind kind_of(Type t) {
  switch (t) {
    case Type::B16: case Type::U16: case Type::S16: return AKind::B16;
    case Type::B32: case Type::U32: return AKind::U32;
    case Type::S32: return AKind::S32;
    case Type::B64: case Type::U64: return AKind::U64;
    case Type::S64: return AKind::S64;
    case Type::F32: return AKind::F32;
    case Type::F64: return AKind::F64;
    case Type::F16: return AKind::F16;
    case Type::F16x2: return AKind::F16x2;
    case Type::BF16: return AKind::BF16;
    case Type::BF16x2: return AKind::BF16x2;
    default: return AKind::U32;
  }
}

bool dec_atom_common(DecodeCtx& c, const Instruction& ins, DInstr& out, bool is_red) {
  const char* name = is_red ? "red" : "atom";
  if (ins.has(Mod::async)) return c.fail(fmt::format("{}.async is not supported yet", name));
  if (ins.has(Mod::mmio)) return c.fail(fmt::format("{}.mmio is not a valid form", name));
  // operation
  AOp op;
  if (ins.has(Mod::and_)) op = AOp::And;
  else if (ins.has(Mod::or_)) op = AOp::Or;
  else if (ins.has(Mod::xor_)) op = AOp::Xor;
  else if (ins.has(Mod::add)) op = AOp::Add;
  else if (ins.has(Mod::inc)) op = AOp::Inc;
  else if (ins.has(Mod::dec)) op = AOp::Dec;
  else if (ins.has(Mod::min)) op = AOp::Min;
  else if (ins.has(Mod::max)) op = AOp::Max;
  else if (ins.has(Mod::cas)) op = AOp::Cas;
  else if (ins.has(Mod::exch)) op = AOp::Exch;
  else return c.fail(fmt::format("{} needs an operation (.add, .min, .max, .inc, .dec, .and, .or, .xor{})", name,
                                 is_red ? "" : ", .cas, .exch"));
  if (is_red && (op == AOp::Cas || op == AOp::Exch)) return c.fail("red has no .cas or .exch");
  // type
  Type t = first_type(ins);
  if (t == Type::None) return c.fail(fmt::format("{} needs a type", name));
  if (t == Type::B128) return c.fail(fmt::format("{} on .b128 is not supported yet", name));
  unsigned vec = ins.has(Mod::v2) ? 2 : ins.has(Mod::v4) ? 4 : ins.has(Mod::v8) ? 8 : 1;
  AKind k = kind_of(t);
  bool half = t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2;
  if (half && !ins.has(Mod::noftz))
    return c.fail(fmt::format("{}.{} on half-precision types needs .noftz", name, op == AOp::Add ? "add" : "op"));
  auto bad_type = [&]() {
    return c.fail(fmt::format("{} with this operation does not support .{}", name, type_name(t)));
  };
  // valid (operation, type) pairs of the ISA
  switch (op) {
    case AOp::And: case AOp::Or: case AOp::Xor: case AOp::Exch:
      if (type_size(t) != 4 && type_size(t) != 8) return bad_type();
      if (t == Type::F32 || t == Type::F64 || half) return bad_type();
      k = type_size(t) == 4 ? AKind::U32 : AKind::U64;
      break;
    case AOp::Cas:
      if (type_size(t) != 2 && type_size(t) != 4 && type_size(t) != 8) return bad_type();
      if (half) return bad_type();
      k = type_size(t) == 2 ? AKind::B16 : type_size(t) == 4 ? AKind::U32 : AKind::U64;
      break;
    case AOp::Inc: case AOp::Dec:
      if (t != Type::U32) return bad_type();
      break;
    case AOp::Add:
      if (!(t == Type::U32 || t == Type::S32 || t == Type::U64 || t == Type::F32 || t == Type::F64 || half))
        return bad_type();
      if (t == Type::S32) k = AKind::U32;  // two's complement: the same bits
      break;
    case AOp::Min: case AOp::Max:
      if (!(t == Type::U32 || t == Type::S32 || t == Type::U64 || t == Type::S64 || (half && vec > 1)))
        return bad_type();
      break;
  }
  if (vec > 1) {
    bool ok = (op == AOp::Add && t == Type::F32 && vec <= 4) || (half && (t == Type::F16 || t == Type::BF16)) ||
              (half && vec <= 4);
    if (!ok) return c.fail(fmt::format("{}.v{} is not valid for this operation and type", name, vec));
  }
  // space
  AccessSpace sp = AccessSpace::Generic;
  if (ins.has(Mod::global)) sp = AccessSpace::Global;
  else if (ins.has(Mod::shared) || ins.has(Mod::shared_cta) || ins.has(Mod::shared_cluster)) sp = AccessSpace::Shared;
  else if (ins.has(Mod::local) || ins.has(Mod::const_) || ins.has(Mod::param))
    return c.fail(fmt::format("{} is only valid on .global, .shared or generic addresses", name));
  if (vec > 1 && sp == AccessSpace::Shared) return c.fail(fmt::format("vector {} is only valid on global memory", name));
  // operands: atom d, [a], b {, c} {, policy};  red [a], b {, policy}
  const auto& o = ins.operands;
  size_t i = 0;
  std::vector<Ref> refs;
  Type et = t;  // element register type
  auto reg_list = [&](const Operand& x, std::vector<Ref>& outv, bool dest) {
    if (vec == 1) {
      if (x.kind == Operand::Kind::Vector) return c.fail("a scalar atomic takes a register, not a vector");
      if (dest && x.kind == Operand::Kind::Sink) {
        outv.push_back(Ref::none());
        return true;
      }
      Ref r = c.ref(x, et);
      if (r.is_none()) return false;
      if (r.kind() == Ref::Pred) return c.fail("atomic operands cannot be predicates");
      if (dest && r.kind() != Ref::Reg) return c.fail("the destination must be a register");
      outv.push_back(r);
      return true;
    }
    if (x.kind != Operand::Kind::Vector || x.elems.size() != vec)
      return c.fail(fmt::format("a .v{} atomic needs a vector of {} registers", vec, vec));
    for (auto& e : x.elems) {
      if (dest && e.kind == Operand::Kind::Sink) {
        outv.push_back(Ref::none());
        continue;
      }
      Ref r = c.ref(e, et);
      if (r.is_none()) return false;
      if (r.kind() == Ref::Pred || (dest && r.kind() != Ref::Reg)) return c.fail("invalid atomic vector element");
      outv.push_back(r);
    }
    return true;
  };
  size_t nvals = op == AOp::Cas ? 2 : 1;
  size_t need = (is_red ? 0 : 1) + 1 + nvals + (ins.has(Mod::L2_cache_hint) ? 1 : 0);
  if (o.size() != need)
    return c.fail(fmt::format("{} takes {} operands here{}", name, need,
                              ins.has(Mod::L2_cache_hint) ? " (including the cache policy)" : ""));
  std::vector<Ref> dsts;
  if (!is_red) {
    if (!reg_list(o[i++], dsts, true)) return false;
  }
  MemRef mr;
  if (!c.mem(o[i++], mr)) return false;
  if (mr.rel == MemRef::LocalFrame || mr.rel == MemRef::KernelParam || mr.rel == MemRef::FuncParam)
    return c.fail(fmt::format("{} is only valid on .global, .shared or generic addresses", name));
  if (mr.rel == MemRef::SharedVar) {
    if (sp == AccessSpace::Global) return c.fail(fmt::format("{}.global on a .shared variable", name));
    sp = AccessSpace::Shared;
  }
  std::vector<Ref> srcs;
  for (size_t n = 0; n < nvals; ++n)
    if (!reg_list(o[i++], srcs, false)) return false;
  Ref pol = Ref::none();
  if (ins.has(Mod::L2_cache_hint)) {
    pol = c.ref(o[i++], Type::B64);  // no functional effect; its L2 hint goes to the trace
    if (pol.is_none()) return false;
  }
  refs.push_back(mr.base);
  if (!is_red) refs.insert(refs.end(), dsts.begin(), dsts.end());
  out.imm2 = int64_t(refs.size());
  refs.insert(refs.end(), srcs.begin(), srcs.end());
  if (!pol.is_none()) refs.push_back(pol);  // last: op[nops - 1]
  c.set_ops(out, refs);
  out.flags = uint32_t(sp) | mem_flags(mr) | (pol.is_none() ? 0u : kAtomHasPolicy);
  out.imm = mr.offset;
  out.target = mr.shared_var;
  out.width = uint8_t(vec);
  out.type = uint8_t(t);
  bool hd = !is_red;
  Handler h = nullptr;
  switch (op) {
    case AOp::And: h = k == AKind::U32 ? pick2<AOp::And, AKind::U32>(hd) : pick2<AOp::And, AKind::U64>(hd); break;
    case AOp::Or: h = k == AKind::U32 ? pick2<AOp::Or, AKind::U32>(hd) : pick2<AOp::Or, AKind::U64>(hd); break;
    case AOp::Xor: h = k == AKind::U32 ? pick2<AOp::Xor, AKind::U32>(hd) : pick2<AOp::Xor, AKind::U64>(hd); break;
    case AOp::Exch: h = k == AKind::U32 ? pick2<AOp::Exch, AKind::U32>(hd) : pick2<AOp::Exch, AKind::U64>(hd); break;
    case AOp::Cas:
      h = k == AKind::B16 ? pick2<AOp::Cas, AKind::B16>(hd)
          : k == AKind::U32 ? pick2<AOp::Cas, AKind::U32>(hd) : pick2<AOp::Cas, AKind::U64>(hd);
      break;
    case AOp::Inc: h = pick2<AOp::Inc, AKind::U32>(hd); break;
    case AOp::Dec: h = pick2<AOp::Dec, AKind::U32>(hd); break;
    case AOp::Add:
      if (k == AKind::F32) h = pick2<AOp::Add, AKind::F32>(hd);
      else if (k == AKind::F64) h = pick2<AOp::Add, AKind::F64>(hd);
      else if (half) h = pick_float<AOp::Add>(k, hd);
      else h = k == AKind::U32 ? pick2<AOp::Add, AKind::U32>(hd) : pick2<AOp::Add, AKind::U64>(hd);
      break;
    case AOp::Min: h = half ? pick_float<AOp::Min>(k, hd) : pick_int<AOp::Min>(k, hd); break;
    case AOp::Max: h = half ? pick_float<AOp::Max>(k, hd) : pick_int<AOp::Max>(k, hd); break;
  }
  if (!h) return c.fail(fmt::format("{} form not supported", name));
  out.exec = h;
  return true;
}

bool dec_atom(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_atom_common(c, ins, out, false); }
bool dec_red(DecodeCtx& c, const Instruction& ins, DInstr& out) { return dec_atom_common(c, ins, out, true); }

}  // namespace

void register_atom_ops() {
  register_decoder(Opcode::Atom, dec_atom);
  register_decoder(Opcode::Red, dec_red);
}

}  // namespace warpsim::func
