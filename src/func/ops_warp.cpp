// Warp-level instructions (PTX ISA 8.7, 9.7.8.6-9.7.8.8 and 9.7.13): shfl(.sync), vote(.sync),
// match.sync, activemask, redux.sync, elect.sync.
//
// Synchronisation: every .sync form first calls warp_sync(ctx, membermask) and returns at once when
// it reports that member lanes are still missing; the engine re-runs the instruction when they
// arrive. Lanes that pass different member masks (one per tile of a tiled partition) are run as
// separate groups by the engine (DInstr::member_op), so within one call all lanes pass the same
// mask. A lane that executes a .sync instruction without being in its own member
// mask is undefined behaviour in the ISA; it is reported as an IllegalInstruction fault (as for
// bar.warp.sync) rather than guessed at.
//
// Participants: the lanes of the member mask that execute the instruction with a true guard (after
// the synchronisation, every live member is in the executing group; exited lanes never take part).
// The legacy forms without .sync (shfl, vote) use the executing lanes as members.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

// Reads the member mask (operand `r`) and synchronises. Returns the members, or nullopt-like false
// when the handler must return (waiting, or faulted).
inline bool sync_members(ExecCtx& ctx, Ref r, uint32_t mask, const char* what, uint32_t& members) {
  unsigned l0 = unsigned(std::countr_zero(mask));
  members = uint32_t(ctx.src(r)[l0]);
  if ((members & mask) != mask) {
    unsigned bad = unsigned(std::countr_zero(mask & ~members));
    ctx.fault(FaultKind::IllegalInstruction, bad, members,
              fmt::format("{} executed by lane {}, which is outside its member mask 0x{:08x}", what, bad, members));
    return false;
  }
  return warp_sync(ctx, members);
}

// ------------------------------------------------------------------ shfl

enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };

// ops: d, p (or none), a, b, c, membermask (or none for legacy shfl)
template <ShflMode M, bool HasPred, bool Sync>
void exec_shfl(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if constexpr (Sync) {
    uint32_t members;
    if (!sync_members(ctx, in.op[5], mask, "shfl.sync", members)) return;
  }
  const uint64_t* a = ctx.src(in.op[2]);
  const uint64_t* b = ctx.src(in.op[3]);
  const uint64_t* c = ctx.src(in.op[4]);
  // Sources of lanes that are inactive or predicated off are undefined in the ISA; this model
  // reads their register anyway (deterministic). Copy first: d may be a.
  uint64_t src[kWarpSize];
  std::memcpy(src, a, sizeof src);
  uint32_t pval_mask = 0;
  uint64_t* d = ctx.dst(in.op[0]);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    int lane = int(l);
    int bval = int(b[l] & 31);
    uint32_t cv = uint32_t(c[l]);
    int cval = int(cv & 31);
    int segmask = int((cv >> 8) & 31);
    int max_lane = (lane & segmask) | (cval & ~segmask);
    int min_lane = lane & segmask;
    int j;
    bool pval;
    if constexpr (M == ShflMode::Up) {
      j = lane - bval;
      pval = j >= max_lane;
    } else if constexpr (M == ShflMode::Down) {
      j = lane + bval;
      pval = j <= max_lane;
    } else if constexpr (M == ShflMode::Bfly) {
      j = lane ^ bval;
      pval = j <= max_lane;
    } else {
      j = min_lane | (bval & ~segmask);
      pval = j <= max_lane;
    }
    if (!pval) j = lane;
    uint64_t r = canon(src[j & 31], 32);
    d[l] = (mask >> l & 1) ? r : d[l];
    pval_mask |= uint32_t(pval) << l;
  }
  if constexpr (HasPred) ctx.set_pred(in.op[1], pval_mask, mask);
}

template <ShflMode M>
Handler pick_shfl(bool pred, bool sync) {
  if (sync) return pred ? exec_shfl<M, true, true> : exec_shfl<M, false, true>;
  return pred ? exec_shfl<M, true, false> : exec_shfl<M, false, false>;
}

// Destination `d` or `d|p`: fills refs[0], refs[1].
bool dest_pair(DecodeCtx& c, const Operand& o, Type t, Ref& d, Ref& p, bool d_may_sink) {
  p = Ref::none();
  const Operand* dop = &o;
  if (o.kind == Operand::Kind::Pair) {
    if (o.elems.size() != 2) return c.fail("malformed d|p destination");
    dop = &o.elems[0];
    const Operand& po = o.elems[1];
    if (po.kind != Operand::Kind::Reg) return c.fail("the predicate of a d|p destination must be a register");
    p = c.ref(po, Type::Pred);
    if (p.is_none()) return false;
    if (p.kind() != Ref::Pred) return c.fail("the second part of a d|p destination must be a predicate");
  }
  if (dop->kind == Operand::Kind::Sink) {
    if (!d_may_sink) return c.fail("the destination cannot be '_'");
    d = Ref::none();
    return true;
  }
  if (dop->kind != Operand::Kind::Reg) return c.fail("the destination must be a register");
  d = c.ref(*dop, t);
  if (d.is_none()) return false;
  if (d.kind() != Ref::Reg) return c.fail("the destination must be a non-predicate register");
  return true;
}

bool dec_shfl(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  bool sync = ins.has(Mod::sync);
  Type t = first_type(ins);
  if (t != Type::B32) return c.fail("shfl supports only .b32");
  size_t want = sync ? 5 : 4;
  if (ins.operands.size() != want)
    return c.fail(fmt::format("shfl{} takes {} operands", sync ? ".sync" : "", want));
  Ref d, p;
  if (!dest_pair(c, ins.operands[0], Type::B32, d, p, false)) return false;
  std::vector<Ref> refs{d, p};
  for (size_t i = 1; i < want; ++i) {
    Ref r = c.ref(ins.operands[i], Type::B32);
    if (r.is_none()) return false;
    if (r.kind() == Ref::Pred) return c.fail("shfl operands must be 32-bit values, not predicates");
    refs.push_back(r);
  }
  if (!sync) refs.push_back(Ref::none());
  c.set_ops(out, refs);
  bool hp = !p.is_none();
  if (ins.has(Mod::up)) out.exec = pick_shfl<ShflMode::Up>(hp, sync);
  else if (ins.has(Mod::down)) out.exec = pick_shfl<ShflMode::Down>(hp, sync);
  else if (ins.has(Mod::bfly)) out.exec = pick_shfl<ShflMode::Bfly>(hp, sync);
  else if (ins.has(Mod::idx)) out.exec = pick_shfl<ShflMode::Idx>(hp, sync);
  else return c.fail("shfl needs a mode: .up, .down, .bfly or .idx");
  return true;
}

// ------------------------------------------------------------------ vote

enum class VoteMode : uint8_t { All, Any, Uni, Ballot };

// ops: d, a (predicate, possibly negated), membermask (or none)
template <VoteMode M, bool Sync>
void exec_vote(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t members = mask;
  if constexpr (Sync) {
    if (!sync_members(ctx, in.op[2], mask, "vote.sync", members)) return;
  }
  uint32_t part = mask & members;
  uint32_t v = ctx.pred(in.op[1]) & part;
  if constexpr (M == VoteMode::Ballot) {
    uint64_t* d = ctx.dst(in.op[0]);
    for_lanes(d, mask, [&](unsigned) { return uint64_t(v); });
  } else {
    bool r;
    if constexpr (M == VoteMode::All) r = v == part;
    else if constexpr (M == VoteMode::Any) r = v != 0;
    else r = v == part || v == 0;
    ctx.set_pred(in.op[0], r ? ~0u : 0u, mask);
  }
}

template <VoteMode M>
Handler pick_vote(bool sync) {
  return sync ? exec_vote<M, true> : exec_vote<M, false>;
}

bool dec_vote(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  bool sync = ins.has(Mod::sync);
  size_t want = sync ? 3 : 2;
  if (ins.operands.size() != want) return c.fail(fmt::format("vote{} takes {} operands", sync ? ".sync" : "", want));
  bool ballot = ins.has(Mod::ballot);
  Type t = first_type(ins);
  if (ballot && t != Type::B32) return c.fail("vote.ballot needs .b32");
  if (!ballot && t != Type::Pred) return c.fail("vote.all/.any/.uni need .pred");
  Ref d = c.ref(ins.operands[0], ballot ? Type::B32 : Type::Pred);
  Ref a = c.ref(ins.operands[1], Type::Pred);
  if (d.is_none() || a.is_none()) return false;
  if (a.kind() != Ref::Pred) return c.fail("the vote source must be a predicate");
  if (ballot ? d.kind() != Ref::Reg : d.kind() != Ref::Pred)
    return c.fail(ballot ? "vote.ballot writes a 32-bit register" : "vote writes a predicate");
  Ref m = Ref::none();
  if (sync) {
    m = c.ref(ins.operands[2], Type::B32);
    if (m.is_none()) return false;
  }
  out.op[0] = d;
  out.op[1] = a;
  out.op[2] = m;
  out.nops = 3;
  if (ballot) out.exec = pick_vote<VoteMode::Ballot>(sync);
  else if (ins.has(Mod::all)) out.exec = pick_vote<VoteMode::All>(sync);
  else if (ins.has(Mod::any)) out.exec = pick_vote<VoteMode::Any>(sync);
  else if (ins.has(Mod::uni)) out.exec = pick_vote<VoteMode::Uni>(sync);
  else return c.fail("vote needs a mode: .all, .any, .uni or .ballot");
  return true;
}

// ------------------------------------------------------------------ match

// ops: d, p (or none), a, membermask. width: value bits (32/64).
template <bool All, bool HasPred>
void exec_match(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t members;
  if (!sync_members(ctx, in.op[3], mask, "match.sync", members)) return;
  uint32_t part = mask & members;
  const uint64_t* a = ctx.src(in.op[2]);
  uint64_t vm = in.width == 64 ? ~0ull : 0xffffffffull;
  uint64_t* d = ctx.dst(in.op[0]);
  if constexpr (All) {
    bool same = true;
    uint64_t v0 = a[std::countr_zero(part)] & vm;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if ((part >> l & 1) && (a[l] & vm) != v0) same = false;
    uint64_t r = same ? part : 0;
    for_lanes(d, mask, [&](unsigned) { return r; });
    if constexpr (HasPred) ctx.set_pred(in.op[1], same ? ~0u : 0u, mask);
  } else {
    // The destination may be the source register (match.any.sync.b32 %r, %r, ...): every lane's
    // mask is computed from the values before any lane's result is written.
    uint32_t res[kWarpSize];
    for (unsigned l = 0; l < kWarpSize; ++l) {
      res[l] = 0;
      if (!(mask >> l & 1)) continue;
      uint64_t v = a[l] & vm;
      for (unsigned k = 0; k < kWarpSize; ++k) res[l] |= uint32_t((part >> k & 1) && (a[k] & vm) == v) << k;
    }
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1) d[l] = res[l];
  }
}

bool dec_match(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!ins.has(Mod::sync)) return c.fail("match needs .sync");
  Type t = first_type(ins);
  if (t != Type::B32 && t != Type::B64) return c.fail("match supports .b32 and .b64");
  if (ins.operands.size() != 3) return c.fail("match.sync takes a destination, a value and a member mask");
  bool all = ins.has(Mod::all);
  if (!all && !ins.has(Mod::any)) return c.fail("match.sync needs .any or .all");
  Ref d, p;
  if (!dest_pair(c, ins.operands[0], Type::B32, d, p, false)) return false;
  if (!p.is_none() && !all) return c.fail("match.sync.any has no predicate destination");
  Ref a = c.ref(ins.operands[1], t);
  Ref m = c.ref(ins.operands[2], Type::B32);
  if (a.is_none() || m.is_none()) return false;
  if (a.kind() == Ref::Pred) return c.fail("match.sync compares registers, not predicates");
  c.set_ops(out, {d, p, a, m});
  out.width = uint8_t(type_bits(t));
  if (all) out.exec = p.is_none() ? exec_match<true, false> : exec_match<true, true>;
  else out.exec = exec_match<false, false>;
  return true;
}

// ------------------------------------------------------------------ activemask

void exec_activemask(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  // ISA: active, non-exited and predicated-on threads contribute 1.
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned) { return uint64_t(mask); });
}

bool dec_activemask(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (first_type(ins) != Type::B32) return c.fail("activemask needs .b32");
  out.op[0] = c.ref(ins.operands[0], Type::B32);
  if (out.op[0].is_none()) return false;
  if (out.op[0].kind() != Ref::Reg) return c.fail("activemask writes a 32-bit register");
  out.nops = 1;
  out.exec = exec_activemask;
  return true;
}

// ------------------------------------------------------------------ redux

enum class RedOp : uint8_t { Add, Min, Max, And, Or, Xor };

// ops: d, a, membermask
template <RedOp Op, bool Signed>
void exec_redux_int(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t members;
  if (!sync_members(ctx, in.op[2], mask, "redux.sync", members)) return;
  uint32_t part = mask & members;
  const uint64_t* a = ctx.src(in.op[1]);
  using T = std::conditional_t<Signed, int32_t, uint32_t>;
  T acc = T(a[std::countr_zero(part)]);
  for (unsigned l = unsigned(std::countr_zero(part)) + 1; l < kWarpSize; ++l) {
    if (!(part >> l & 1)) continue;
    T v = T(uint32_t(a[l]));
    if constexpr (Op == RedOp::Add) acc = T(uint32_t(acc) + uint32_t(v));
    else if constexpr (Op == RedOp::Min) acc = v < acc ? v : acc;
    else if constexpr (Op == RedOp::Max) acc = v > acc ? v : acc;
    else if constexpr (Op == RedOp::And) acc &= v;
    else if constexpr (Op == RedOp::Or) acc |= v;
    else acc ^= v;
  }
  uint64_t r = uint64_t(uint32_t(acc));
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned) { return r; });
}

// redux.sync.{min,max}{.abs}{.NaN}.f32: +0.0 > -0.0; without .NaN, NaN inputs are ignored (all NaN:
// canonical NaN); with .NaN, any NaN input gives canonical NaN.
template <bool Max, bool Abs, bool NaN>
void exec_redux_f32(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t members;
  if (!sync_members(ctx, in.op[2], mask, "redux.sync", members)) return;
  uint32_t part = mask & members;
  const uint64_t* a = ctx.src(in.op[1]);
  bool have = false, saw_nan = false;
  uint32_t best = 0;
  // order key on the bit patterns: total order with -0 < +0
  auto key = [](uint32_t b) -> int64_t {
    return (b >> 31) ? -int64_t(b & 0x7fffffffu) - 1 : int64_t(b);
  };
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(part >> l & 1)) continue;
    uint32_t b = uint32_t(a[l]);
    if (Abs) b &= 0x7fffffffu;
    if ((b & 0x7fffffffu) > 0x7f800000u) {
      saw_nan = true;
      continue;
    }
    if (!have) {
      best = b;
      have = true;
    } else if (Max ? key(b) > key(best) : key(b) < key(best)) {
      best = b;
    }
  }
  if (!have || (NaN && saw_nan)) best = 0x7fffffffu;
  uint64_t r = best;
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned) { return r; });
}

template <bool Max>
Handler pick_redux_f32(bool abs, bool nan) {
  if (abs) return nan ? exec_redux_f32<Max, true, true> : exec_redux_f32<Max, true, false>;
  return nan ? exec_redux_f32<Max, false, true> : exec_redux_f32<Max, false, false>;
}

bool dec_redux(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!ins.has(Mod::sync)) return c.fail("redux needs .sync");
  if (ins.operands.size() != 3) return c.fail("redux.sync takes a destination, a value and a member mask");
  Type t = first_type(ins);
  Ref d = c.ref(ins.operands[0], t);
  Ref a = c.ref(ins.operands[1], t);
  Ref m = c.ref(ins.operands[2], Type::B32);
  if (d.is_none() || a.is_none() || m.is_none()) return false;
  if (d.kind() != Ref::Reg || a.kind() == Ref::Pred) return c.fail("redux.sync works on 32-bit registers");
  out.op[0] = d;
  out.op[1] = a;
  out.op[2] = m;
  out.nops = 3;
  bool abs = ins.has(Mod::abs), nan = ins.has(Mod::NaN);
  if (t == Type::F32) {
    if (ins.has(Mod::min)) out.exec = pick_redux_f32<false>(abs, nan);
    else if (ins.has(Mod::max)) out.exec = pick_redux_f32<true>(abs, nan);
    else return c.fail("redux.sync.f32 supports only .min and .max");
    return true;
  }
  if (abs || nan) return c.fail(".abs and .NaN are only valid for redux.sync.f32");
  if (ins.has(Mod::and_) || ins.has(Mod::or_) || ins.has(Mod::xor_)) {
    if (t != Type::B32) return c.fail("redux.sync .and/.or/.xor need .b32");
    out.exec = ins.has(Mod::and_) ? exec_redux_int<RedOp::And, false>
               : ins.has(Mod::or_) ? exec_redux_int<RedOp::Or, false>
                                   : exec_redux_int<RedOp::Xor, false>;
    return true;
  }
  if (t != Type::U32 && t != Type::S32) return c.fail("redux.sync .add/.min/.max need .u32 or .s32");
  bool s = t == Type::S32;
  if (ins.has(Mod::add)) out.exec = exec_redux_int<RedOp::Add, false>;  // same bits for both
  else if (ins.has(Mod::min)) out.exec = s ? exec_redux_int<RedOp::Min, true> : exec_redux_int<RedOp::Min, false>;
  else if (ins.has(Mod::max)) out.exec = s ? exec_redux_int<RedOp::Max, true> : exec_redux_int<RedOp::Max, false>;
  else return c.fail("redux.sync needs an operation: .add, .min, .max, .and, .or or .xor");
  return true;
}

// ------------------------------------------------------------------ elect

// ops: d (or none), p (or none), membermask. The leader is the lowest participating lane.
void exec_elect(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t members;
  if (!sync_members(ctx, in.op[2], mask, "elect.sync", members)) return;
  uint32_t part = mask & members;
  unsigned leader = unsigned(std::countr_zero(part));
  if (!in.op[0].is_none()) for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned) { return uint64_t(leader); });
  if (!in.op[1].is_none()) ctx.set_pred(in.op[1], 1u << leader, mask);
}

bool dec_elect(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!ins.has(Mod::sync)) return c.fail("elect needs .sync");
  if (ins.operands.size() != 2) return c.fail("elect.sync takes d|p and a member mask");
  Ref d, p;
  if (!dest_pair(c, ins.operands[0], Type::B32, d, p, true)) return false;
  Ref m = c.ref(ins.operands[1], Type::B32);
  if (m.is_none()) return false;
  out.op[0] = d;
  out.op[1] = p;
  out.op[2] = m;
  out.nops = 3;
  out.exec = exec_elect;
  return true;
}

}  // namespace

namespace {
// .sync forms name their member-mask operand so the engine can run each group of lanes that passes
// the same mask separately (cooperative groups' tiled partitions execute one instruction with a
// different mask per tile).
template <DecodeFn F, uint8_t MemberOp>
bool with_members(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!F(c, ins, out)) return false;
  if (ins.has(Mod::sync)) out.member_op = MemberOp;
  return true;
}
}  // namespace

void register_warp_ops() {
  register_decoder(Opcode::Shfl, with_members<dec_shfl, 5>);
  register_decoder(Opcode::Vote, with_members<dec_vote, 2>);
  register_decoder(Opcode::Match, with_members<dec_match, 3>);
  register_decoder(Opcode::Activemask, dec_activemask);
  register_decoder(Opcode::Redux, with_members<dec_redux, 2>);
  register_decoder(Opcode::Elect, with_members<dec_elect, 2>);
}

}  // namespace warpsim::func
