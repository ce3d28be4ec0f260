// Asynchronous copies and mbarriers (PTX ISA 8.7: 9.7.9.25 cp.async, cp.async.commit_group,
// cp.async.wait_group/wait_all, cp.async.mbarrier.arrive, the non-tensor cp.async.bulk forms and
// cp.async.bulk.commit_group/wait_group; 9.7.13.15 mbarrier).
//
// cp.async.bulk model (sm_90's bulk copy engine, what cuda::memcpy_async with a 16-byte aligned
// size and a cuda::barrier compiles to): the copy is done when it is issued, and for the
// mbarrier::complete_tx forms the tx-count of the mbarrier is then decreased by the size (a
// complete-tx before the matching expect-tx leaves it negative, as the ISA allows). The bulk-group
// waits have nothing left to wait for. In timing mode the copy is traced whole (its global side and
// its mbarrier) and the timing model's TMA unit (timing/sm.cpp, Sm::bulk_issue) gives it its memory
// traffic and its time: the mbarrier's phase, seen through test_wait/try_wait, and the bulk-group
// waits are held until the data has arrived (or left).
//
// cp.async model: a thread's copy reads its source (cp-size bytes, zero-filled past src-size, all
// zero with ignore-src) when it is issued and writes shared memory when it completes. Copies are
// pending per thread (Warp::async_copies) and complete at cp.async.wait_group N (all but the newest
// N committed groups), cp.async.wait_all (everything), cp.async.mbarrier.arrive (all prior copies
// complete at once, then the arrive-on is triggered) and when the thread exits. Code that reads the
// destination before waiting sees the old contents, as it may on hardware.
//
// mbarrier model: the 8-byte object in shared memory holds
//   bits  0-20  pending arrivals of the current phase
//   bits 21-41  expected arrivals (the count reloaded when a phase completes)
//   bits 42-62  tx-count (21-bit two's complement)
//   bit  63     current phase parity
// A phase completes when pending arrivals and tx-count are both zero: the parity flips, pending is
// reloaded from expected and tx-count is cleared. The `state` token returned by arrive is the
// object's word right after the arrival was counted, with the parity of the phase the arrival
// belongs to (so mbarrier.pending_count reads the pending count from it, and test_wait/try_wait
// with that token succeed once the object's parity differs). The .parity forms succeed when the
// current parity differs from the operand's. mbarrier.try_wait blocks the thread (LaneState::
// MbarrierWait) until the phase it waits for completes and then returns true; a block whose live
// threads all wait is reported as a deadlock by the engine. Lanes of one instruction apply their
// operations in lane order. Memory-ordering qualifiers and scopes have no further effect here.
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/memory_access.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

constexpr uint64_t kMask21 = (1ull << 21) - 1;


// ------------------------------------------------------------------ mbarrier word

struct MbWord {
  uint32_t pending, expected;
  int32_t tx;
  uint32_t phase;
  static MbWord from(uint64_t w) {
    MbWord m;
    m.pending = uint32_t(w & kMask21);
    m.expected = uint32_t(w >> 21 & kMask21);
    uint32_t t = uint32_t(w >> 42 & kMask21);
    m.tx = int32_t(t << 11) >> 11;
    m.phase = uint32_t(w >> 63);
    return m;
  }
  uint64_t word() const {
    return uint64_t(pending & kMask21) | uint64_t(expected & kMask21) << 21 | uint64_t(uint32_t(tx) & kMask21) << 42 |
           uint64_t(phase & 1) << 63;
  }
};

// Wakes the threads of the CTA blocked in try_wait on the mbarrier at `key`: they re-run their
// try_wait, which now succeeds if the phase they wait for completed.
void wake_waiters(Cta& cta, uint64_t key) {
  for (auto& wp : cta.warps) {
    Warp& w = *wp;
    bool any = false;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (w.state[l] == LaneState::MbarrierWait && w.wait_mbar[l] == key) {
        w.state[l] = LaneState::Ready;
        any = true;
      }
    if (any) {
      w.done = false;
      w.converged = false;
      ++w.wake_gen;
    }
  }
}

// Completes the phase if nothing is pending, waking the threads of `owner` (the CTA whose shared
// memory holds the mbarrier) that wait on it; returns the new word.
uint64_t maybe_complete(Cta& owner, MbWord m, uint64_t key, bool allow = true) {
  if (allow && m.pending == 0 && m.tx == 0) {
    m.phase ^= 1;
    m.pending = m.expected;
    m.tx = 0;
    uint64_t w = m.word();
    wake_waiters(owner, key);
    return w;
  }
  return m.word();
}

// The CTA whose shared memory holds p (this one, or another CTA of its cluster reached through a
// shared::cluster address), and p's offset there as the key naming an mbarrier.
Cta& shared_owner(ExecCtx& ctx, const uint8_t* p, uint64_t& key) {
  auto inside = [p](const Cta& c) { return p >= c.shared.data() && p < c.shared.data() + c.shared.size(); };
  if (inside(ctx.cta)) {
    key = uint64_t(p - ctx.cta.shared.data());
    return ctx.cta;
  }
  if (ctx.cta.cluster)
    for (Cta* c : ctx.cta.cluster->ctas)
      if (inside(*c)) {
        key = uint64_t(p - c->shared.data());
        return *c;
      }
  key = uint64_t(reinterpret_cast<uintptr_t>(p));
  return ctx.cta;
}

// The mbarrier object of lane l: pointer to its 8 bytes, the CTA holding it and a key naming it
// (its shared offset there). A shared::cluster address may name another CTA's mbarrier (an
// arrive or complete-tx from another CTA of the cluster, PTX ISA 9.7.13.15.2).
uint8_t* mb_access(ExecCtx& ctx, const DInstr& in, const uint64_t* base, unsigned l, uint64_t& key, Cta** owner = nullptr) {
  AccessSpace sp = AccessSpace(in.flags & 15);
  uint64_t a = lane_address(ctx, in, base, l);
  uint8_t* p = resolve_access(ctx, sp, l, a, 8, true);
  if (!p) return nullptr;
  Cta& c = shared_owner(ctx, p, key);
  if (owner) *owner = &c;
  return p;
}

inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void store64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// flag bits (above the space/rel bits)
constexpr uint32_t kNoComplete = 1u << 16, kDrop = 1u << 17, kExpectTx = 1u << 18, kParity = 1u << 19,
                   kTry = 1u << 20, kNoInc = 1u << 21, kHasCount = 1u << 22;

// ops: [base, a, b]: init (count in b), expect_tx/complete_tx (count in b), arrive (state in a,
// count in b), test/try_wait (pred in a, state/parity in b), pending_count (a = count, b = state).
void exec_mb_init(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* cnt = ctx.src(ops[2]);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t key;
    uint8_t* p = mb_access(ctx, in, base, l, key);
    if (!p) return;
    uint32_t c = uint32_t(cnt[l]);
    if (c == 0 || c > (1u << 20) - 1) {
      ctx.fault(FaultKind::IllegalInstruction, l, 0,
                fmt::format("mbarrier.init with count {} (the count must be 1..{})", c, (1u << 20) - 1));
      return;
    }
    MbWord m{c, c, 0, 0};
    store64(p, m.word());
  }
}

void exec_mb_inval(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t key;
    uint8_t* p = mb_access(ctx, in, base, l, key);
    if (!p) return;
    store64(p, 0);
  }
}

template <bool Complete>
void exec_mb_tx(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* cnt = ctx.src(ops[2]);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t key;
    Cta* owner;
    uint8_t* p = mb_access(ctx, in, base, l, key, &owner);
    if (!p) return;
    MbWord m = MbWord::from(load64(p));
    int32_t c = int32_t(uint32_t(cnt[l]));
    m.tx += Complete ? -c : c;
    store64(p, Complete ? maybe_complete(*owner, m, key) : m.word());
  }
}

void exec_mb_arrive(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  uint64_t* st = ops[1].is_none() ? nullptr : ctx.dst(ops[1]);
  const uint64_t* cnt = (in.flags & kHasCount) ? ctx.src(ops[2]) : nullptr;
  uint64_t cv[kWarpSize];
  for (unsigned l = 0; l < kWarpSize; ++l) cv[l] = cnt ? cnt[l] : 1;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t key;
    Cta* owner;
    uint8_t* p = mb_access(ctx, in, base, l, key, &owner);
    if (!p) return;
    MbWord m = MbWord::from(load64(p));
    uint32_t count = 1;
    if (in.flags & kExpectTx) m.tx += int32_t(uint32_t(cv[l]));  // arrive.expect_tx: b is the tx-count
    else count = uint32_t(cv[l]);
    if (count > m.pending) {
      ctx.fault(FaultKind::IllegalInstruction, l, key,
                fmt::format("mbarrier arrive with count {} on an mbarrier with {} pending arrivals (undefined "
                            "behaviour)", count, m.pending));
      return;
    }
    m.pending -= count;
    if (in.flags & kDrop) m.expected -= std::min(count, m.expected);
    if (st) st[l] = m.word();  // the token: this phase's parity and the pending count
    store64(p, maybe_complete(*owner, m, key, !(in.flags & kNoComplete)));
  }
}

void exec_mb_pending(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  uint64_t* d = ctx.dst(ops[1]);
  const uint64_t* s = ctx.src(ops[2]);
  for_lanes(d, mask, [&](unsigned l) { return s[l] & kMask21; });
}

void exec_mb_wait(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* s = ctx.src(ops[2]);
  uint32_t done = 0, wait = 0;
  uint64_t keys[kWarpSize];
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint8_t* p = mb_access(ctx, in, base, l, keys[l]);
    if (!p) return;
    uint32_t cur = uint32_t(load64(p) >> 63);
    uint32_t waited = (in.flags & kParity) ? uint32_t(s[l] & 1) : uint32_t(s[l] >> 63);
    if (cur != waited) done |= 1u << l;
    else wait |= 1u << l;
  }
  if ((in.flags & kTry) && wait) {
    // Blocks until the phase completes; the instruction runs again then (pc stays).
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (wait >> l & 1) {
        ctx.w.state[l] = LaneState::MbarrierWait;
        ctx.w.wait_mbar[l] = keys[l];
      }
    ctx.blocked |= wait;
  }
  if (!ops[1].is_none()) ctx.set_pred(ops[1], done, (in.flags & kTry) ? done : mask);
}

// ------------------------------------------------------------------ cp.async

// ops: [dst base, src base, src-size (or none), ignore-src predicate (or none)].
// imm: dst offset, imm2: src offset, target: dst shared variable, width: cp-size,
// flags: bits 8-10 dst MemRef::Rel.
void exec_cp_async(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* db = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* sb = ops[1].is_none() ? nullptr : ctx.src(ops[1]);
  const uint64_t* ss = ops[2].is_none() ? nullptr : ctx.src(ops[2]);
  uint32_t ignore = ops[3].is_none() ? 0 : ctx.pred(ops[3]);
  const uint64_t* pol = in.nops > 4 && !ops[4].is_none() && ctx.launch.trace ? ctx.src(ops[4]) : nullptr;
  unsigned n = in.width;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t da = lane_address(ctx, in, db, l);
    uint64_t sa = uint64_t(in.imm2) + (sb ? sb[l] : 0);
    uint8_t* dp = resolve_access(ctx, AccessSpace::Shared, l, da, n, true);
    if (!dp) return;
    AsyncCopy c{};
    c.dst = uint32_t(dp - ctx.cta.shared.data());
    c.n = uint8_t(n);
    c.group = ctx.w.async_groups[l];
    unsigned take = ss ? unsigned(std::min<uint64_t>(uint32_t(ss[l]), n)) : n;
    if (ignore >> l & 1) take = 0;
    if (take) {
      if (sa & (n - 1)) {
        ctx.fault(FaultKind::MisalignedAddress, l, sa,
                  fmt::format("cp.async of {} bytes from misaligned global address 0x{:x}", n, sa));
        return;
      }
      // The whole cp-size block is aligned, so it lies in one page: resolve its first byte.
      if (pol) ctx.launch.trace->l2 = policy_hint(pol[l], sa, ctx.launch.range_policies);
      const uint8_t* sp = resolve_access(ctx, AccessSpace::Global, l, sa, std::has_single_bit(take) ? take : 1, false);
      if (pol) ctx.launch.trace->l2 = L2Hint::Unchanged;
      if (!sp) return;
      std::memcpy(c.data, sp, take);
    }
    ctx.w.async_copies[l].push_back(c);
  }
}

void exec_cp_commit(ExecCtx& ctx, const DInstr&, uint32_t mask) {
  for (unsigned l = 0; l < kWarpSize; ++l)
    if (mask >> l & 1) ++ctx.w.async_groups[l];
}

// imm: N (wait_group), -1 for wait_all.
void exec_cp_wait(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    Warp& w = ctx.w;
    if (in.imm < 0) {  // wait_all = commit_group + wait_group 0
      ++w.async_groups[l];
      w.complete_async_copies(l, ~0u, ctx.cta.shared);
      continue;
    }
    uint32_t g = w.async_groups[l];
    uint32_t below = uint64_t(in.imm) >= g ? 0 : g - uint32_t(in.imm);
    if (!w.async_copies.empty_at(l)) w.complete_async_copies(l, below, ctx.cta.shared);
  }
}

// cp.async.mbarrier.arrive{.noinc}: the thread's prior copies complete, then the arrive-on. Without
// .noinc the pending count is first incremented, so the net effect on the count is nil.
void exec_cp_mb_arrive(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    ctx.w.complete_async_copies(l, ~0u, ctx.cta.shared);
    uint64_t key;
    Cta* owner;
    uint8_t* p = mb_access(ctx, in, base, l, key, &owner);
    if (!p) return;
    if (!(in.flags & kNoInc)) continue;
    MbWord m = MbWord::from(load64(p));
    if (m.pending == 0) {
      ctx.fault(FaultKind::IllegalInstruction, l, key,
                "cp.async.mbarrier.arrive.noinc on an mbarrier with no pending arrivals (undefined behaviour)");
      return;
    }
    m.pending -= 1;
    store64(p, maybe_complete(*owner, m, key));
  }
}

// ------------------------------------------------------------------ cp.async.bulk

constexpr uint32_t kBulkG2S = 0, kBulkS2S = 1, kBulkS2G = 2;
constexpr uint32_t kBulkMbarVar = 1u << 24;  // the mbarrier operand names a shared variable
constexpr uint32_t kBulkTracePiece = 4096;  // bytes per traced access of a bulk copy (MemAccess::bytes is 16 bits)

constexpr uint32_t kBulkMulticast = 1u << 25;  // .multicast::cluster: ops[6] is the ctaMask

// ops: [dst base, src base, size, mbar base (or none), mbar offset, mbar shared-variable id,
// ctaMask (multicast)]; imm/target/flags bits 8-10: the destination (lane_address), imm2: source
// offset, width: kind. With .multicast::cluster the data and the complete-tx go to the same
// CTA-relative offsets of destination and mbarrier in every CTA of the cluster the ctaMask names
// (PTX ISA 9.7.9.25.4.1); the source is read once.
void exec_cp_bulk(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* db = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* sb = ops[1].is_none() ? nullptr : ctx.src(ops[1]);
  const uint64_t* sz = ctx.src(ops[2]);
  const uint64_t* mb = in.width == kBulkS2G || ops[3].is_none() ? nullptr : ctx.src(ops[3]);
  const uint64_t* moff = in.width == kBulkS2G ? nullptr : ctx.src(ops[4]);
  const uint64_t* mvar = (in.flags & kBulkMbarVar) ? ctx.src(ops[5]) : nullptr;
  const uint64_t* cmask = (in.flags & kBulkMulticast) ? ctx.src(ops[6]) : nullptr;
  const uint32_t csize = ctx.cta.cluster ? uint32_t(ctx.cta.cluster->ctas.size()) : 1;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    const uint64_t da = lane_address(ctx, in, db, l), sa = uint64_t(in.imm2) + (sb ? sb[l] : 0);
    const uint32_t n = uint32_t(sz[l]);
    if ((n & 15) || (da & 15) || (sa & 15)) {
      ctx.fault(FaultKind::MisalignedAddress, l, (da & 15) ? da : sa,
                fmt::format("cp.async.bulk of {} bytes from 0x{:x} to 0x{:x}: addresses and size must be multiples of 16",
                            n, sa, da));
      return;
    }
    uint64_t ma = 0;
    if (in.width != kBulkS2G) {
      ma = moff[l] + (mb ? mb[l] : 0);
      if (mvar) ma += (*ctx.cta.shared_offsets)[uint32_t(mvar[l])];
    }
    // The destinations: (shared address, mbarrier address) per CTA written.
    uint64_t dsts[16][2];
    unsigned ndst = 0;
    if (cmask) {
      const uint32_t cm = uint32_t(cmask[l]) & 0xffff;
      if (cm >> csize) {
        ctx.fault(FaultKind::IllegalInstruction, l, cm,
                  fmt::format("cp.async.bulk .multicast::cluster with ctaMask 0x{:x} in a cluster of {} CTAs", cm, csize));
        return;
      }
      for (uint32_t r = 0; r < csize; ++r)
        if (cm >> r & 1) {
          dsts[ndst][0] = cluster_shared_address(r, da);
          dsts[ndst++][1] = cluster_shared_address(r, ma);
        }
    } else {
      dsts[0][0] = da, dsts[0][1] = ma;
      ndst = 1;
    }
    const AccessSpace src_sp = in.width == kBulkG2S ? AccessSpace::Global : AccessSpace::Shared;
    const AccessSpace dst_sp = in.width == kBulkS2G ? AccessSpace::Global : AccessSpace::Shared;
    // The copy's 16-byte steps are not traced one by one; the timing model gets it whole below.
    auto* trace = ctx.launch.trace;
    ctx.launch.trace = nullptr;
    for (uint32_t off = 0; off < n; off += 16) {
      const uint8_t* sp = resolve_access(ctx, src_sp, l, sa + off, 16, false);
      if (!sp) { ctx.launch.trace = trace; return; }
      uint8_t chunk[16];
      std::memcpy(chunk, sp, 16);
      for (unsigned k = 0; k < ndst; ++k) {
        uint8_t* dp = resolve_access(ctx, dst_sp, l, dsts[k][0] + off, 16, true);
        if (!dp) { ctx.launch.trace = trace; return; }
        std::memcpy(dp, chunk, 16);
      }
    }
    ctx.launch.trace = trace;
    if (trace) {
      // For the timing model (the SM's TMA unit, Sm::bulk_issue): the global side of the copy as
      // accesses of at most kBulkTracePiece bytes, written for shared -> global (a shared -> shared
      // copy: its source, as shared reads); the mbarrier follows as the one shared write.
      const bool s2s = in.width == kBulkS2S, s2g = in.width == kBulkS2G;
      const uint64_t a = s2g ? da : sa;
      for (uint32_t off = 0; off < n; off += kBulkTracePiece)
        trace->add(a + off, std::min(n - off, kBulkTracePiece), l, s2s ? TraceSpace::Shared : TraceSpace::Global, s2g);
    }
    if (in.width == kBulkS2G) continue;
    for (unsigned k = 0; k < ndst; ++k) {
      uint8_t* p = resolve_access(ctx, AccessSpace::Shared, l, dsts[k][1], 8, true);
      if (!p) return;
      uint64_t key;
      Cta& owner = shared_owner(ctx, p, key);
      MbWord m = MbWord::from(load64(p));
      m.tx -= int32_t(n);
      store64(p, maybe_complete(owner, m, key));
    }
  }
}

void exec_nop(ExecCtx&, const DInstr&, uint32_t) {}

bool dec_cp_bulk(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const auto& o = ins.operands;
  const bool multicast = ins.has(Mod::multicast_cluster);
  uint32_t kind;
  if (ins.has(Mod::bulk_group)) {
    if (!ins.has(Mod::global) || !(ins.has(Mod::shared_cta) || ins.has(Mod::shared)))
      return c.fail("cp.async.bulk.bulk_group supports .global.shared::cta only");
    kind = kBulkS2G;
  } else if (ins.has(Mod::mbarrier_complete_tx_bytes)) {
    kind = ins.has(Mod::global) ? kBulkG2S : kBulkS2S;
  } else {
    return c.fail("cp.async.bulk needs .mbarrier::complete_tx::bytes or .bulk_group");
  }
  if (multicast && kind != kBulkG2S)
    return c.fail("cp.async.bulk .multicast::cluster copies from global to shared::cluster memory only");
  const size_t need = kind == kBulkS2G ? 3 : multicast ? 5 : 4;
  size_t nops = o.size();
  if (ins.has(Mod::L2_cache_hint)) --nops;  // the cache policy has no functional effect
  if (nops != need) return c.fail(fmt::format("cp.async.bulk needs {} operands", need));
  MemRef d, s;
  if (!c.mem(o[0], d) || !c.mem(o[1], s)) return false;
  const bool dst_shared = kind != kBulkS2G, src_shared = kind != kBulkG2S;
  auto ok_rel = [](const MemRef& r, bool shared) {
    return r.rel == MemRef::Absolute || (shared && r.rel == MemRef::SharedVar);
  };
  if (!ok_rel(d, dst_shared) || !ok_rel(s, src_shared) || s.rel == MemRef::SharedVar)
    return c.fail("cp.async.bulk operands must be addresses in registers or immediates (or a shared variable "
                  "as the destination)");
  Ref size = c.ref(o[2], Type::U32);
  if (size.is_none()) return false;
  Ref mbase = Ref::none(), moff = Ref::none(), mvar = Ref::none();
  if (kind != kBulkS2G) {
    MemRef m;
    if (!c.mem(o[3], m)) return false;
    if (m.rel != MemRef::Absolute && m.rel != MemRef::SharedVar) return c.fail("the mbarrier must be in shared memory");
    mbase = m.base;
    moff = c.cnst(uint64_t(m.offset));
    if (m.rel == MemRef::SharedVar) {
      mvar = c.cnst(m.shared_var);
      out.flags |= kBulkMbarVar;
    }
  }
  Ref cta_mask = Ref::none();
  if (multicast) {
    cta_mask = c.ref(o[4], Type::U16);
    if (cta_mask.is_none()) return false;
    out.flags |= kBulkMulticast;
  }
  out.flags |= mem_flags(d);
  out.imm = d.offset;
  out.imm2 = s.offset;
  out.target = d.shared_var;
  out.width = uint8_t(kind);
  c.set_ops(out, {d.base, s.base, size, mbase, moff, mvar, cta_mask});
  out.exec = exec_cp_bulk;
  return true;
}

// Bulk copies are done at issue, so committing and waiting have nothing to do here (the timing
// model holds bulk-group waits until the copies are done, Sm::async_issue); prefetches only warm the
// L2 (not modelled).
bool dec_nop(DecodeCtx& c, const Instruction&, DInstr& out) {
  c.set_ops(out, {});
  out.exec = exec_nop;
  return true;
}

// ------------------------------------------------------------------ decoding

bool mb_space(DecodeCtx& c, const Instruction& ins, const MemRef& r, DInstr& out) {
  AccessSpace sp = AccessSpace::Generic;
  if (r.rel == MemRef::SharedVar || ins.has(Mod::shared) || ins.has(Mod::shared_cta) || ins.has(Mod::shared_cluster))
    sp = AccessSpace::Shared;
  else if (r.rel != MemRef::Absolute)
    return c.fail("an mbarrier object must be in shared memory");
  out.flags = uint32_t(sp) | mem_flags(r);
  out.imm = r.offset;
  out.target = r.shared_var;
  return true;
}

bool mb_addr(DecodeCtx& c, const Instruction& ins, const Operand& o, DInstr& out, Ref& base) {
  MemRef r;
  if (!c.mem(o, r)) return false;
  if (!mb_space(c, ins, r, out)) return false;
  base = r.base;
  return true;
}

bool check_b64(DecodeCtx& c, const Instruction& ins, const char* name) {
  if (first_type(ins) != Type::B64) return c.fail(fmt::format("{} needs .b64", name));
  return true;
}

bool dec_mb_init(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!check_b64(c, ins, "mbarrier.init")) return false;
  Ref base;
  if (!mb_addr(c, ins, ins.operands[0], out, base)) return false;
  Ref cnt = c.ref(ins.operands[1], Type::U32);
  if (cnt.is_none()) return false;
  c.set_ops(out, {base, Ref::none(), cnt});
  out.exec = exec_mb_init;
  return true;
}

bool dec_mb_inval(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!check_b64(c, ins, "mbarrier.inval")) return false;
  Ref base;
  if (!mb_addr(c, ins, ins.operands[0], out, base)) return false;
  c.set_ops(out, {base});
  out.exec = exec_mb_inval;
  return true;
}

template <bool Complete>
bool dec_mb_tx(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!check_b64(c, ins, Complete ? "mbarrier.complete_tx" : "mbarrier.expect_tx")) return false;
  Ref base;
  if (!mb_addr(c, ins, ins.operands[0], out, base)) return false;
  Ref cnt = c.ref(ins.operands[1], Type::U32);
  if (cnt.is_none()) return false;
  c.set_ops(out, {base, Ref::none(), cnt});
  out.exec = exec_mb_tx<Complete>;
  return true;
}

template <bool Drop>
bool dec_mb_arrive(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!check_b64(c, ins, Drop ? "mbarrier.arrive_drop" : "mbarrier.arrive")) return false;
  size_t n = ins.operands.size();
  Ref base, st = Ref::none(), cnt = Ref::none();
  size_t ai = n == 1 ? 0 : 1;
  if (!mb_addr(c, ins, ins.operands[ai], out, base)) return false;
  if (n >= 2 && ins.operands[0].kind != Operand::Kind::Sink) {
    st = c.ref(ins.operands[0], Type::B64);
    if (st.is_none()) return false;
    if (st.kind() != Ref::Reg) return c.fail("the mbarrier state destination must be a .b64 register");
  }
  if (n == 3) {
    cnt = c.ref(ins.operands[2], Type::U32);
    if (cnt.is_none()) return false;
    out.flags |= kHasCount;
  }
  if (ins.has(Mod::expect_tx)) {
    if (cnt.is_none()) return c.fail("mbarrier.arrive.expect_tx needs a tx-count operand");
    out.flags |= kExpectTx;
  }
  if (ins.has(Mod::noComplete)) {
    if (cnt.is_none()) return c.fail("mbarrier.arrive.noComplete needs a count operand");
    out.flags |= kNoComplete;
  }
  if (Drop) out.flags |= kDrop;
  c.set_ops(out, {base, st, cnt});
  out.exec = exec_mb_arrive;
  return true;
}

template <bool Try>
bool dec_mb_wait(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!check_b64(c, ins, Try ? "mbarrier.try_wait" : "mbarrier.test_wait")) return false;
  Ref base;
  if (!mb_addr(c, ins, ins.operands[1], out, base)) return false;
  Ref p = Ref::none();
  if (ins.operands[0].kind != Operand::Kind::Sink) {
    p = c.ref(ins.operands[0], Type::Pred);
    if (p.is_none()) return false;
    if (p.kind() != Ref::Pred) return c.fail("the wait result must be a predicate");
  }
  bool parity = ins.has(Mod::parity);
  Ref s = c.ref(ins.operands[2], parity ? Type::U32 : Type::B64);
  if (s.is_none()) return false;
  if (parity) out.flags |= kParity;
  if (Try) out.flags |= kTry;
  c.set_ops(out, {base, p, s});  // a suspendTimeHint operand has no functional effect
  out.exec = exec_mb_wait;
  return true;
}

bool dec_mb_pending(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!check_b64(c, ins, "mbarrier.pending_count")) return false;
  Ref d = c.ref(ins.operands[0], Type::U32);
  Ref s = c.ref(ins.operands[1], Type::B64);
  if (d.is_none() || s.is_none()) return false;
  c.set_ops(out, {Ref::none(), d, s});
  out.exec = exec_mb_pending;
  return true;
}

bool dec_cp_async(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!(ins.has(Mod::ca) || ins.has(Mod::cg))) return c.fail("cp.async needs .ca or .cg");
  if (!(ins.has(Mod::shared) || ins.has(Mod::shared_cta)) || !ins.has(Mod::global))
    return c.fail("cp.async supports .shared{::cta}.global only");
  const auto& o = ins.operands;
  if (o.size() < 3) return c.fail("cp.async needs [dst], [src], cp-size");
  MemRef d, s;
  if (!c.mem(o[0], d) || !c.mem(o[1], s)) return false;
  if (d.rel != MemRef::Absolute && d.rel != MemRef::SharedVar) return c.fail("cp.async destination must be shared");
  if (s.rel != MemRef::Absolute) return c.fail("cp.async source must be global");
  if (o[2].kind != Operand::Kind::Imm) return c.fail("cp.async cp-size must be an immediate");
  int64_t n = o[2].ival;
  if (n != 4 && n != 8 && n != 16) return c.fail(fmt::format("cp.async cp-size {} (must be 4, 8 or 16)", n));
  if (ins.has(Mod::cg) && n != 16) return c.fail("cp.async.cg needs cp-size 16");
  size_t nops = o.size();
  Ref policy = Ref::none();
  if (ins.has(Mod::L2_cache_hint)) {
    if (nops < 4) return c.fail("cp.async.L2::cache_hint needs a cache-policy operand");
    --nops;  // the cache policy: no functional effect; its L2 hint goes to the trace
    policy = c.ref(o[nops], Type::B64);
    if (policy.is_none()) return false;
  }
  Ref size = Ref::none(), ignore = Ref::none();
  if (nops >= 4) {
    Ref r = c.ref(o[3], Type::U32);
    if (r.is_none()) return false;
    if (r.kind() == Ref::Pred) ignore = r;
    else size = r;
  }
  if (nops > 4) return c.fail("cp.async has too many operands");
  out.flags = mem_flags(d);
  out.imm = d.offset;
  out.imm2 = s.offset;
  out.target = d.shared_var;
  out.width = uint8_t(n);
  c.set_ops(out, {d.base, s.base, size, ignore, policy});
  out.exec = exec_cp_async;
  return true;
}

bool dec_cp_commit(DecodeCtx& c, const Instruction&, DInstr& out) {
  c.set_ops(out, {});
  out.exec = exec_cp_commit;
  return true;
}

bool dec_cp_wait_group(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (ins.operands[0].kind != Operand::Kind::Imm || ins.operands[0].ival < 0)
    return c.fail("cp.async.wait_group needs a non-negative integer constant");
  out.imm = ins.operands[0].ival;
  c.set_ops(out, {});
  out.exec = exec_cp_wait;
  return true;
}

bool dec_cp_wait_all(DecodeCtx& c, const Instruction&, DInstr& out) {
  out.imm = -1;
  c.set_ops(out, {});
  out.exec = exec_cp_wait;
  return true;
}

bool dec_cp_mb_arrive(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!check_b64(c, ins, "cp.async.mbarrier.arrive")) return false;
  Ref base;
  if (!mb_addr(c, ins, ins.operands[0], out, base)) return false;
  if (ins.has(Mod::noinc)) out.flags |= kNoInc;
  c.set_ops(out, {base});
  out.exec = exec_cp_mb_arrive;
  return true;
}

}  // namespace

bool mbarrier_complete_tx(ExecCtx& ctx, unsigned lane, uint64_t addr, uint32_t bytes) {
  uint8_t* p = resolve_access(ctx, AccessSpace::Shared, lane, addr, 8, true);
  if (!p) return false;
  uint64_t key;
  Cta& owner = shared_owner(ctx, p, key);
  MbWord m = MbWord::from(load64(p));
  m.tx -= int32_t(bytes);
  store64(p, maybe_complete(owner, m, key));
  return true;
}

void register_async_ops() {
  register_decoder(Opcode::CpAsync, dec_cp_async);
  register_decoder(Opcode::CpAsyncCommitGroup, dec_cp_commit);
  register_decoder(Opcode::CpAsyncWaitGroup, dec_cp_wait_group);
  register_decoder(Opcode::CpAsyncWaitAll, dec_cp_wait_all);
  register_decoder(Opcode::CpAsyncMbarrierArrive, dec_cp_mb_arrive);
  register_decoder(Opcode::MbarrierInit, dec_mb_init);
  register_decoder(Opcode::MbarrierInval, dec_mb_inval);
  register_decoder(Opcode::MbarrierExpectTx, dec_mb_tx<false>);
  register_decoder(Opcode::MbarrierCompleteTx, dec_mb_tx<true>);
  register_decoder(Opcode::MbarrierArrive, dec_mb_arrive<false>);
  register_decoder(Opcode::MbarrierArriveDrop, dec_mb_arrive<true>);
  register_decoder(Opcode::MbarrierTestWait, dec_mb_wait<false>);
  register_decoder(Opcode::MbarrierTryWait, dec_mb_wait<true>);
  register_decoder(Opcode::MbarrierPendingCount, dec_mb_pending);
  register_decoder(Opcode::CpAsyncBulk, dec_cp_bulk);
  register_decoder(Opcode::CpAsyncBulkCommitGroup, dec_nop);
  register_decoder(Opcode::CpAsyncBulkWaitGroup, dec_nop);
  register_decoder(Opcode::CpAsyncBulkPrefetch, dec_nop);
}

}  // namespace warpsim::func
