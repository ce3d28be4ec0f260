// Data movement: mov (incl. vector pack/unpack, symbol addresses, special registers), ld/ldu/st in
// every state space with vector widths, cvta, isspacep, and the cache-control instructions that
// do nothing functionally (prefetch, applypriority, discard) but tell the timing model's L2, and
// createpolicy with the L2 hints of .L2::cache_hint accesses (cache_policy.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/memory_access.hpp"

namespace warpsim::func {

using namespace ptx;

// ------------------------------------------------------------------ memory access

// A shared::cluster address tagged with another CTA's rank (mapa; state.hpp): that CTA's shared
// memory, which stays until the whole cluster has finished.
static uint8_t* resolve_cluster_shared(ExecCtx& ctx, unsigned l, uint64_t addr, unsigned n, bool write) {
  const uint64_t rank = cluster_rank_of(addr), off = addr & kClusterOffsetMask;
  const Cluster* cl = ctx.cta.cluster;
  const size_t size = cl ? cl->ctas.size() : 1;
  if (addr >> 32 || rank >= size) {
    ctx.fault(FaultKind::IllegalAddress, l, addr,
              fmt::format("{} of {} bytes {} shared::cluster address 0x{:x}: CTA rank {} is outside the cluster of {} "
                          "CTAs", write ? "store" : "load", n, write ? "to" : "from", addr, rank, size));
    return nullptr;
  }
  Cta& t = cl ? *cl->ctas[rank] : ctx.cta;
  if (off >= t.shared.size() || t.shared.size() - off < n) {
    ctx.fault(FaultKind::IllegalAddress, l, addr,
              fmt::format("{} of {} bytes {} shared::cluster address 0x{:x}: offset 0x{:x} is outside the {} bytes of "
                          "shared memory of CTA rank {}", write ? "store" : "load", n, write ? "to" : "from", addr, off,
                          t.shared.size(), rank));
    return nullptr;
  }
  // The timing model sends another CTA's accesses over the SM-to-SM network.
  if (ctx.launch.trace) {
    if (&t == &ctx.cta) ctx.launch.trace->add(off, n, l, TraceSpace::Shared, write);
    else ctx.launch.trace->add(cluster_shared_address(rank, off), n, l, TraceSpace::RemoteShared, write);
  }
  return &t.shared[off];
}

uint8_t* resolve_access(ExecCtx& ctx, AccessSpace sp, unsigned l, uint64_t addr, unsigned n, bool write) {
  auto bad = [&](FaultKind k, const char* what) -> uint8_t* {
    ctx.fault(k, l, addr,
              fmt::format("{} of {} bytes {} {} address 0x{:x}", write ? "store" : "load", n,
                          write ? "to" : "from", what, addr));
    return nullptr;
  };
  if (n > 1 && (addr & (n - 1))) return bad(FaultKind::MisalignedAddress, "misaligned");
  switch (sp) {
    case AccessSpace::Generic:
      if (addr >= kSharedWindow && addr - kSharedWindow < kWindowSize)
        return resolve_access(ctx, AccessSpace::Shared, l, addr - kSharedWindow, n, write);
      if (addr >= kLocalWindow && addr - kLocalWindow < kWindowSize)
        return resolve_access(ctx, AccessSpace::Local, l, addr - kLocalWindow, n, write);
      if (addr >= kParamWindow && addr - kParamWindow < kWindowSize)
        return resolve_access(ctx, AccessSpace::KernelParam, l, addr - kParamWindow, n, write);
      [[fallthrough]];
    case AccessSpace::Global:
    case AccessSpace::Const: {
      if (ctx.launch.trace) ctx.launch.trace->add(addr, n, l, sp == AccessSpace::Const ? TraceSpace::Const : TraceSpace::Global, write);
      if (write) {
        uint8_t* p = ctx.launch.mem->page_for_write(addr);
        if (!p) {
          const mem::Allocation* a = ctx.launch.mem->find(addr);
          if (a && a->read_only) return bad(FaultKind::WriteToConst, "read-only (constant)");
          return bad(FaultKind::IllegalAddress, sp == AccessSpace::Generic ? "unmapped generic" : "unmapped global");
        }
        return p + (addr & (ctx.launch.mem->page_size() - 1));
      }
      const uint8_t* p = ctx.launch.mem->page_for_read(addr);
      if (!p) return bad(FaultKind::IllegalAddress, sp == AccessSpace::Const ? "unmapped constant" : sp == AccessSpace::Generic ? "unmapped generic" : "unmapped global");
      return const_cast<uint8_t*>(p) + (addr & (ctx.launch.mem->page_size() - 1));
    }
    case AccessSpace::Shared:
      if (addr >= ctx.cta.shared.size() || ctx.cta.shared.size() - addr < n) {
        if (addr >> kClusterRankShift) return resolve_cluster_shared(ctx, l, addr, n, write);
        return bad(FaultKind::IllegalAddress, "out-of-range shared");
      }
      if (ctx.launch.trace) ctx.launch.trace->add(addr, n, l, TraceSpace::Shared, write);
      return &ctx.cta.shared[addr];
    case AccessSpace::Local:
      if (addr >= ctx.w.local_size || ctx.w.local_size - addr < n) return bad(FaultKind::IllegalAddress, "out-of-range local");
      if (ctx.launch.trace) ctx.launch.trace->add(addr, n, l, TraceSpace::Local, write);
      return ctx.w.local_at(l, addr);
    case AccessSpace::KernelParam:
      if (write) return bad(FaultKind::IllegalAddress, "kernel parameter");
      if (addr >= ctx.launch.params.size() || ctx.launch.params.size() - addr < n)
        return bad(FaultKind::IllegalAddress, "out-of-range kernel parameter");
      return &ctx.launch.params[addr];
    case AccessSpace::FuncParam:
      if (addr >= ctx.prog.total_param || ctx.prog.total_param - addr < n)
        return bad(FaultKind::IllegalAddress, "out-of-range parameter");
      return &ctx.w.param[size_t(l) * ctx.prog.total_param + addr];
  }
  return nullptr;
}

// The shared memory the hardware reserves at the start of every CTA's window from sm_80 on
// (decoder.cpp, where the shared-memory layout starts after it).
uint32_t reserved_shared_bytes(const ptx::Module& m);

namespace {

// The global page the previous lane of an ld/st touched: the lanes of a warp usually share it, so
// the page table is walked once per page, not per lane. Faults, shared/local windows of generic
// addresses and the constant space go through resolve_access every time.
struct GlobalPage {
  explicit GlobalPage(const ExecCtx& ctx) : off_mask(ctx.launch.mem->page_size() - 1) {}
  const uint64_t off_mask;
  uint64_t page = ~0ull;
  uint8_t* data = nullptr;
  // A global access within the page of the lane before, naturally aligned: the usual case.
  bool same_page(uint64_t a, unsigned n) const { return (a & ~off_mask) == page && !(n > 1 && (a & (n - 1))); }
  uint8_t* resolve(ExecCtx& ctx, AccessSpace sp, unsigned l, uint64_t a, unsigned n, bool write) {
    const bool global = sp == AccessSpace::Global || sp == AccessSpace::Generic;
    if (global && (a & ~off_mask) == page && !(n > 1 && (a & (n - 1)))) {
      if (ctx.launch.trace) ctx.launch.trace->add(a, n, l, TraceSpace::Global, write);
      return data + (a & off_mask);
    }
    uint8_t* p = resolve_access(ctx, sp, l, a, n, write);
    if (p && global && !(sp == AccessSpace::Generic && in_window(a))) {
      page = a & ~off_mask;
      data = p - (a & off_mask);
    }
    return p;
  }
};

// An ld/st whose address is a register plus an offset (no shared variable or local frame to add):
// lane addresses without the per-lane dispatch of lane_address.
bool plain_address(const DInstr& in) {
  const auto rel = MemRef::Rel((in.flags >> kRelShift) & 7);
  return rel != MemRef::SharedVar && rel != MemRef::LocalFrame;
}

// The lanes of a global ld/st with a plain address, in lane order: f(lane, data) for each lane
// until one faults (GlobalPage::resolve reports it). The lanes of one page append to the trace
// without a capacity test each.
template <class F>
void plain_lanes(ExecCtx& ctx, const DInstr& in, const uint64_t* base, uint32_t mask, AccessSpace sp, unsigned total,
                 bool write, GlobalPage& page, F&& f) {
  MemTrace* tr = ctx.launch.trace;
  if (tr) tr->acc.reserve(tr->acc.size() + kWarpSize);
  const uint64_t imm = uint64_t(in.imm);
  const bool a32 = in.flags & kAddr32;
  bool appended = false;  // (the trace's summary is updated once for all of them)
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint64_t a = imm + (base ? base[l] : 0);
    if (a32) a = uint32_t(a);
    uint8_t* p;
    if (page.same_page(a, total)) {
      p = page.data + (a & page.off_mask);
      if (tr) tr->append(a, total, l, TraceSpace::Global, write), appended = true;
    } else if (!(p = page.resolve(ctx, sp, l, a, total, write))) {
      break;
    }
    f(l, p);
  }
  if (appended) tr->note(TraceSpace::Global, total);
}

AccessSpace space_of_impl(const Instruction& ins, const MemRef& r) {
  if (r.rel == MemRef::KernelParam) return AccessSpace::KernelParam;
  if (r.rel == MemRef::FuncParam) return AccessSpace::FuncParam;
  if (r.rel == MemRef::SharedVar) return AccessSpace::Shared;
  if (r.rel == MemRef::LocalFrame) return AccessSpace::Local;
  for (unsigned i = 0; i < ins.nmods; ++i) switch (ins.mods[i]) {
      case Mod::global: return AccessSpace::Global;
      case Mod::shared: case Mod::shared_cta: case Mod::shared_cluster: return AccessSpace::Shared;
      case Mod::local: return AccessSpace::Local;
      case Mod::const_: return AccessSpace::Const;
      case Mod::param: case Mod::param_entry: case Mod::param_func:
        return AccessSpace::KernelParam;  // a param address in a register: kernel parameters
      default: break;
    }
  return AccessSpace::Generic;
}

unsigned vec_of(const Instruction& ins) {
  if (ins.has(Mod::v2)) return 2;
  if (ins.has(Mod::v4)) return 4;
  if (ins.has(Mod::v8)) return 8;
  return 1;
}

// ld/st flags bits 12-15: the instruction's static L2 hint; bit 16: a cache-policy operand
// (.L2::cache_hint) follows the data operands.
constexpr unsigned kHintShift = 12;
constexpr uint32_t kHasPolicy = 1u << 16;

L2Hint static_l2_hint(const Instruction& ins) {
  if (ins.has(Mod::L2_evict_first)) return L2Hint::First;
  if (ins.has(Mod::L2_evict_last)) return L2Hint::Last;
  if (ins.has(Mod::L2_evict_normal)) return L2Hint::Normal;
  if (ins.has(Mod::L2_no_allocate)) return L2Hint::NoAllocate;
  return L2Hint::Unchanged;
}

// Sets the trace's L2 hint for each lane's accesses while an ld/st runs; puts it back after.
struct HintScope {
  MemTrace* tr;
  const DInstr& in;
  const uint64_t* policy;
  HintScope(ExecCtx& ctx, const DInstr& d, const Ref* ops) : tr(ctx.launch.trace), in(d), policy(nullptr) {
    if (!tr) return;
    if (in.flags & kHasPolicy) policy = ctx.src(ops[in.nops - 1]);
    tr->l2 = L2Hint((in.flags >> kHintShift) & 15);
  }
  void lane(ExecCtx& ctx, unsigned l, uint64_t addr) {
    if (tr && policy) tr->l2 = policy_hint(policy[l], addr, ctx.launch.range_policies);
  }
  ~HintScope() {
    if (tr) tr->l2 = L2Hint::Unchanged;
  }
};

// A loaded element into destination d for `lanes`: a predicate is set if non-zero, a register
// gets the value sign-extended (ld.s*) and canonical for its width.
template <bool Signed>
uint64_t loaded_value(const DInstr& in, uint64_t v, unsigned esize) {
  if (Signed && esize < 8) {
    unsigned sh = 64 - esize * 8;
    v = uint64_t(int64_t(v << sh) >> sh);
  }
  return canon(v, in.type2);
}

template <bool Signed>
void put_loaded(ExecCtx& ctx, const DInstr& in, Ref d, uint64_t v, unsigned esize, uint32_t lanes) {
  if (d.kind() == Ref::Pred) {
    ctx.set_pred(d, v ? ~0u : 0u, lanes);
    return;
  }
  v = loaded_value<Signed>(in, v, esize);
  uint64_t* dst = ctx.dst(d);
  for (uint32_t m = lanes; m; m &= m - 1) dst[std::countr_zero(m)] = v;
}

// flags: bits 0-3 space, bit 4 sign-extend, bits 8-10 MemRef::Rel; width: vector length;
// imm2: element size; type2: destination register bits per element (for extension).
template <bool Signed>
void exec_ld(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  AccessSpace sp = AccessSpace(in.flags & 15);
  unsigned esize = unsigned(in.imm2), vec = in.width, total = esize * vec;
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  // Shared memory and kernel parameters are one flat buffer each: check bounds and alignment
  // inline (the hot loads of tiled kernels) and let resolve_access report any fault.
  const uint8_t* flat = nullptr;
  uint64_t flat_size = 0;
  if (sp == AccessSpace::Shared) flat = ctx.cta.shared.data(), flat_size = ctx.cta.shared.size();
  else if (sp == AccessSpace::KernelParam) flat = ctx.launch.params.data(), flat_size = ctx.launch.params.size();
  // A kernel parameter at a fixed offset (every warp's first loads) is the same for every lane:
  // read it once. It records no trace: the timing model gives parameter loads a fixed latency
  // without looking at their addresses (Sm::memory_issue). Out of bounds or misaligned, the general
  // path below reports.
  if (sp == AccessSpace::KernelParam && !base) {
    const uint64_t a = lane_address(ctx, in, nullptr, 0);
    if (!(total > 1 && (a & (total - 1))) && a < flat_size && flat_size - a >= total) {
      for (unsigned k = 0; k < vec; ++k)
        if (!ops[1 + k].is_none()) put_loaded<Signed>(ctx, in, ops[1 + k], load_bytes(flat + a + k * esize, esize), esize, mask);
      return;
    }
  }
  GlobalPage page(ctx);
  HintScope hint(ctx, in, ops);
  // One global element into a register, no per-lane cache policy: the bulk of memory-bound
  // kernels' loads. The same steps as the loop below without its per-lane dispatch (vector
  // elements, predicate destinations, hint operands); GlobalPage::resolve reports faults.
  if ((sp == AccessSpace::Global || sp == AccessSpace::Generic) && vec == 1 && ops[1].kind() == Ref::Reg &&
      !hint.policy) {
    uint64_t* dst = ctx.dst(ops[1]);
    if (plain_address(in)) {
      plain_lanes(ctx, in, base, mask, sp, total, false, page,
                  [&](unsigned l, uint8_t* p) { dst[l] = loaded_value<Signed>(in, load_bytes(p, esize), esize); });
      return;
    }
    for (uint32_t m = mask; m; m &= m - 1) {
      const unsigned l = unsigned(std::countr_zero(m));
      const uint8_t* p = page.resolve(ctx, sp, l, lane_address(ctx, in, base, l), total, false);
      if (!p) return;
      dst[l] = loaded_value<Signed>(in, load_bytes(p, esize), esize);
    }
    return;
  }
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t a = lane_address(ctx, in, base, l);
    hint.lane(ctx, l, a);
    const uint8_t* p;
    if (flat && !(total > 1 && (a & (total - 1))) && a < flat_size && flat_size - a >= total) {
      p = flat + a;
      if (ctx.launch.trace)
        ctx.launch.trace->add(a, total, l, sp == AccessSpace::Shared ? TraceSpace::Shared : TraceSpace::Param, false);
    } else if (!(p = page.resolve(ctx, sp, l, a, total, false))) return;
    for (unsigned k = 0; k < vec; ++k)
      if (!ops[1 + k].is_none()) put_loaded<Signed>(ctx, in, ops[1 + k], load_bytes(p + k * esize, esize), esize, 1u << l);
  }
}

void exec_st(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  AccessSpace sp = AccessSpace(in.flags & 15);
  unsigned esize = unsigned(in.imm2), vec = in.width, total = esize * vec;
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  // Shared memory: bounds and alignment checked inline, as in exec_ld.
  uint8_t* flat = sp == AccessSpace::Shared ? ctx.cta.shared.data() : nullptr;
  const uint64_t flat_size = ctx.cta.shared.size();
  GlobalPage page(ctx);
  HintScope hint(ctx, in, ops);
  // One global element from a register or constant, no per-lane cache policy: as in exec_ld.
  if ((sp == AccessSpace::Global || sp == AccessSpace::Generic) && vec == 1 &&
      (ops[1].kind() == Ref::Reg || ops[1].kind() == Ref::Const) && !hint.policy) {
    const uint64_t* src = ctx.src(ops[1]);
    if (plain_address(in)) {
      plain_lanes(ctx, in, base, mask, sp, total, true, page, [&](unsigned l, uint8_t* p) { store_bytes(p, src[l], esize); });
      return;
    }
    for (uint32_t m = mask; m; m &= m - 1) {
      const unsigned l = unsigned(std::countr_zero(m));
      uint8_t* p = page.resolve(ctx, sp, l, lane_address(ctx, in, base, l), total, true);
      if (!p) return;
      store_bytes(p, src[l], esize);
    }
    return;
  }
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t a = lane_address(ctx, in, base, l);
    hint.lane(ctx, l, a);
    uint8_t* p;
    if (flat && !(total > 1 && (a & (total - 1))) && a < flat_size && flat_size - a >= total) {
      p = flat + a;
      if (ctx.launch.trace) ctx.launch.trace->add(a, total, l, TraceSpace::Shared, true);
    } else if (!(p = page.resolve(ctx, sp, l, a, total, true))) return;
    for (unsigned k = 0; k < vec; ++k) {
      Ref s = ops[1 + k];
      uint64_t v = s.kind() == Ref::Pred ? ((ctx.pred(s) >> l) & 1) : ctx.src(s)[l];
      store_bytes(p + k * esize, v, esize);
    }
  }
}

unsigned reg_bits(DecodeCtx& c, const Operand& o) {
  if (o.kind != Operand::Kind::Reg) return 64;
  const Register& r = c.fn.regs[o.reg];
  return std::max(1u, type_size(r.type) * 8);
}

bool dec_mem_common(DecodeCtx& c, const Instruction& ins, DInstr& out, const Operand& addr, const Operand& data,
                    bool store) {
  MemRef r;
  if (!c.mem(addr, r)) return false;
  Type t = first_type(ins);
  unsigned esize = type_size(t);
  if (t == Type::Pred || esize == 0) return c.fail("ld/st need a data type");
  if (esize > 8) return c.fail(fmt::format("{}-byte {} elements are not supported yet", esize, store ? "st" : "ld"));
  unsigned vec = vec_of(ins);
  AccessSpace sp = space_of(ins, r);
  out.flags = uint32_t(sp) | mem_flags(r);
  out.imm = r.offset;
  out.target = r.shared_var;
  out.imm2 = esize;
  out.width = uint8_t(vec);
  out.type = uint8_t(t);
  std::vector<Ref> refs{r.base};
  auto add = [&](const Operand& o) {
    if (o.kind == Operand::Kind::Sink) {
      refs.push_back(Ref::none());
      return true;
    }
    Ref x = c.ref(o, t);
    if (x.is_none()) return false;
    refs.push_back(x);
    if (!store) out.type2 = uint8_t(std::min(reg_bits(c, o), 64u));
    return true;
  };
  if (vec == 1) {
    if (!add(data)) return false;
  } else {
    if (data.kind != Operand::Kind::Vector || data.elems.size() != vec)
      return c.fail(fmt::format("a .v{} access needs a vector of {} registers", vec, vec));
    for (auto& e : data.elems)
      if (!add(e)) return false;
  }
  if (!store && out.type2 == 0) out.type2 = 64;
  out.flags |= uint32_t(static_l2_hint(ins)) << kHintShift;
  if (ins.has(Mod::L2_cache_hint)) {
    const size_t at = 2;  // ld d, [a], policy / st [a], b, policy
    if (ins.operands.size() <= at) return c.fail("an .L2::cache_hint access needs a cache-policy operand");
    Ref pol = c.ref(ins.operands[at], Type::B64);
    if (pol.is_none()) return false;
    refs.push_back(pol);
    out.flags |= kHasPolicy;
  }
  c.set_ops(out, refs);
  return true;
}

bool dec_ld(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (ins.operands.size() < 2) return c.fail("ld needs a destination and an address");
  if (!dec_mem_common(c, ins, out, ins.operands[1], ins.operands[0], false)) return false;
  out.exec = is_signed_type(first_type(ins)) ? exec_ld<true> : exec_ld<false>;
  return true;
}

bool dec_st(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (ins.has(Mod::async)) return c.fail("st.async is not supported yet");
  if (ins.operands.size() < 2) return c.fail("st needs an address and a source");
  if (!dec_mem_common(c, ins, out, ins.operands[0], ins.operands[1], true)) return false;
  out.exec = exec_st;
  return true;
}

// ------------------------------------------------------------------ mov

void exec_mov(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* a = ctx.src(in.op[1]);
  unsigned bits = in.width;
  for_lanes(d, mask, [&](unsigned l) { return canon(a[l], bits); });
}

void exec_mov_pred(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t v = in.op[1].kind() == Ref::Pred ? ctx.pred(in.op[1]) : (ctx.src(in.op[1])[0] ? ~0u : 0u);
  ctx.set_pred(in.op[0], v, mask);
}

// mov d, {a, b, ...}: pack elements, lowest first. imm2 = element bits.
void exec_pack(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  uint64_t* d = ctx.dst(ops[0]);
  unsigned eb = unsigned(in.imm2), n = in.nops - 1;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t v = 0;
    for (unsigned k = 0; k < n; ++k) v |= canon(ctx.src(ops[1 + k])[l], eb) << (k * eb);
    d[l] = v;
  }
}

// mov {a, b, ...}, d: unpack.
void exec_unpack(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  unsigned eb = unsigned(in.imm2), n = in.nops - 1;
  const uint64_t* s = ctx.src(ops[n]);
  uint64_t tmp[kWarpSize];
  std::memcpy(tmp, s, sizeof tmp);  // the source may also be a destination
  for (unsigned k = 0; k < n; ++k) {
    if (ops[k].is_none()) continue;
    uint64_t* d = ctx.dst(ops[k]);
    for_lanes(d, mask, [&](unsigned l) { return canon(tmp[l] >> (k * eb), eb); });
  }
}

void exec_mov_shared_sym(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t v = (*ctx.cta.shared_offsets)[in.target] + uint64_t(in.imm);
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned) { return canon(v, in.width); });
}

void exec_mov_local_sym(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return canon(ctx.w.local_base[l] + uint64_t(in.imm), in.width); });
}

// Special registers that change while a kernel runs. flags: which.
void exec_mov_dynamic(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t v = 0;
  switch (SReg(in.flags)) {
    case SReg::Clock: v = uint32_t(ctx.launch.clock); break;
    case SReg::ClockHi: v = uint32_t(ctx.launch.clock >> 32); break;
    case SReg::Clock64: v = ctx.launch.clock; break;
    case SReg::Globaltimer:
    case SReg::GlobaltimerLo:
    case SReg::GlobaltimerHi: {
      // nanoseconds: the timing model's clock at the SM clock rate (a functional run has no real
      // time: 1 ns per warp instruction issued)
      uint64_t ns = ctx.launch.ns_per_clock > 0 ? uint64_t(double(ctx.launch.clock) * ctx.launch.ns_per_clock)
                                                : ctx.launch.clock;
      v = SReg(in.flags) == SReg::GlobaltimerLo ? uint32_t(ns) : SReg(in.flags) == SReg::GlobaltimerHi ? ns >> 32 : ns;
      break;
    }
    case SReg::IsExplicitCluster: v = ctx.launch.explicit_cluster; break;
    default: v = 0; break;  // performance monitors: 0
  }
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned) { return canon(v, in.width); });
}

// mov.pred p, %is_explicit_cluster
void exec_mov_explicit_cluster(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  ctx.set_pred(in.op[0], ctx.launch.explicit_cluster ? ~0u : 0u, mask);
}

// %envreg<imm>: set by the driver per launch (LaunchState::envreg).
void exec_mov_envreg(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t v = ctx.launch.envreg[size_t(in.imm) % ctx.launch.envreg.size()];
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned) { return canon(v, in.width); });
}

bool dec_mov(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  Type t = first_type(ins);
  const Operand& d = ins.operands[0];
  const Operand& a = ins.operands[1];
  unsigned bits = type_bits(t);
  if (t == Type::Pred) {
    out.op[0] = c.ref(d, t);
    if (a.kind == Operand::Kind::SpecialReg && a.sreg == SReg::IsExplicitCluster) {
      out.nops = 1;
      out.exec = exec_mov_explicit_cluster;
      return !out.op[0].is_none();
    }
    out.op[1] = c.ref(a, Type::U32);
    out.nops = 2;
    out.exec = exec_mov_pred;
    return !out.op[0].is_none() && !out.op[1].is_none();
  }
  if (d.kind == Operand::Kind::Vector || a.kind == Operand::Kind::Vector) {
    const Operand& v = d.kind == Operand::Kind::Vector ? d : a;
    unsigned n = unsigned(v.elems.size());
    if (n < 2 || bits % n) return c.fail("mov vector operand does not divide the type");
    out.imm2 = bits / n;
    Type et = out.imm2 == 8 ? Type::B8 : out.imm2 == 16 ? Type::B16 : out.imm2 == 32 ? Type::B32 : Type::B64;
    std::vector<Ref> refs;
    if (d.kind == Operand::Kind::Vector) {
      for (auto& e : v.elems) refs.push_back(e.kind == Operand::Kind::Sink ? Ref::none() : c.ref(e, et));
      refs.push_back(c.ref(a, t));
      out.exec = exec_unpack;
    } else {
      refs.push_back(c.ref(d, t));
      for (auto& e : v.elems) refs.push_back(c.ref(e, et));
      out.exec = exec_pack;
    }
    if (!c.error.empty()) return false;
    c.set_ops(out, refs);
    return true;
  }
  out.op[0] = c.ref(d, t);
  out.nops = 2;
  out.width = uint8_t(std::min(bits, 64u));
  if (out.op[0].is_none()) return false;
  if (a.kind == Operand::Kind::SpecialReg) {
    switch (a.sreg) {
      case SReg::ResvSmemOffsetBegin: case SReg::ResvSmemOffsetEnd: case SReg::ResvSmemOffsetCap:
      case SReg::ResvSmemOffset2: {
        // The reserved region at the start of the CTA's shared window (reserved_shared_bytes). Our
        // H100 reads begin 0, end 288, cap 1024, offset_0 = offset_1 = 0 for sm_80 and sm_90 code
        // (validation/cccl/probes/resv_smem.cu); without the region, all are 0.
        const uint32_t cap = reserved_shared_bytes(c.mod);
        const uint32_t v = a.sreg == SReg::ResvSmemOffsetEnd ? std::min(cap, 288u)
                           : a.sreg == SReg::ResvSmemOffsetCap ? cap : 0u;
        out.op[1] = c.cnst(v);
        out.exec = exec_mov;
        return true;
      }
      case SReg::Clock: case SReg::ClockHi: case SReg::Clock64: case SReg::Globaltimer:
      case SReg::GlobaltimerLo: case SReg::GlobaltimerHi: case SReg::Pm: case SReg::Pm64:
      case SReg::AggrSmemSize: case SReg::IsExplicitCluster:
      case SReg::CurrentGraphExec:
        out.flags = uint32_t(a.sreg);
        out.exec = exec_mov_dynamic;
        return true;
      case SReg::Envreg:
        out.imm = int64_t(a.sreg_index);
        out.exec = exec_mov_envreg;
        return true;
      default: break;
    }
  }
  if (a.kind == Operand::Kind::Symbol && (a.sym == SymKind::LocalVariable || a.sym == SymKind::Variable ||
                                          a.sym == SymKind::Param)) {
    Operand addr;
    addr.kind = Operand::Kind::Address;
    Operand base = a;
    base.ival = 0;
    addr.elems.push_back(base);
    addr.ival = a.ival;
    MemRef r;
    if (!c.mem(addr, r)) return false;
    out.imm = r.offset;
    out.target = r.shared_var;
    switch (r.rel) {
      case MemRef::SharedVar: out.exec = exec_mov_shared_sym; return true;
      case MemRef::LocalFrame: out.exec = exec_mov_local_sym; return true;
      default:
        out.op[1] = c.cnst(uint64_t(r.offset));  // global/const address, or a parameter-space offset
        out.exec = exec_mov;
        return true;
    }
  }
  out.op[1] = c.ref(a, t);
  if (out.op[1].is_none()) return false;
  if (out.op[1].kind() == Ref::Pred) return c.fail("mov of a predicate into a non-predicate register");
  out.exec = exec_mov;
  return true;
}

// ------------------------------------------------------------------ cvta / isspacep

// flags: 0 to-generic from shared, 1 from local, 2 global/const (identity), 3 from the kernel's
// parameters; +4 for cvta.to
void exec_cvta(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  constexpr uint64_t kBase[4] = {kSharedWindow, kLocalWindow, 0, kParamWindow};
  const uint64_t base = kBase[in.flags & 3];
  bool to = in.flags & 4;
  unsigned bits = in.width;
  for_lanes(ctx.dst(in.op[0]), mask, [&](unsigned l) { return canon(to ? a[l] - base : a[l] + base, bits); });
}

bool dec_cvta(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  bool to = ins.has(Mod::to);
  uint32_t kind = 2;
  if (ins.has(Mod::shared) || ins.has(Mod::shared_cta) || ins.has(Mod::shared_cluster)) kind = 0;
  else if (ins.has(Mod::local)) kind = 1;
  else if (ins.has(Mod::param)) kind = 3;  // of a kernel parameter's offset (mov.b64 %rd, param)
  out.flags = kind | (to ? 4 : 0);
  Type t = first_type(ins);
  out.width = uint8_t(type_bits(t));
  const Operand& a = ins.operands[1];
  out.op[0] = c.ref(ins.operands[0], t);
  if (a.kind == Operand::Kind::Symbol && kind != 2) {
    // cvta.shared.u64 d, sharedvar: take the variable's address first
    return c.fail("cvta of a shared/local symbol: use mov first (not supported yet)");
  }
  out.op[1] = c.ref(a, t);
  out.nops = 2;
  out.exec = exec_cvta;
  return !out.op[0].is_none() && !out.op[1].is_none();
}

// flags: 0 global, 1 shared::cta, 2 local, 3 const, 4 param, 5 shared::cluster
void exec_isspacep(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* a = ctx.src(in.op[1]);
  uint32_t v = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    uint64_t x = a[l];
    bool sh = x >= kSharedWindow && x - kSharedWindow < kWindowSize;
    bool lo = x >= kLocalWindow && x - kLocalWindow < kWindowSize;
    bool pa = x >= kParamWindow && x - kParamWindow < kWindowSize;
    bool r = false;
    switch (in.flags) {
      case 0: r = !sh && !lo && !pa; break;
      case 1: {  // shared::cta: the CTA's own window (a mapa of another rank is shared::cluster only)
        const uint64_t tag = sh ? (x - kSharedWindow) >> kClusterRankShift : 0;
        r = sh && (tag == 0 || tag - 1 == ctx.cta.cluster_rank);
        break;
      }
      case 5: r = sh; break;  // shared::cluster
      case 2: r = lo; break;
      case 4: r = pa; break;
      case 3: {
        const mem::Allocation* al = ctx.launch.mem->find(x);
        r = al && al->read_only;
        break;
      }
      default: r = false;
    }
    if (r) v |= 1u << l;
  }
  ctx.set_pred(in.op[0], v, mask);
}

bool dec_isspacep(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  out.flags = ins.has(Mod::shared_cluster) ? 5 : ins.has(Mod::shared) || ins.has(Mod::shared_cta) ? 1 : ins.has(Mod::local) ? 2
              : ins.has(Mod::const_) ? 3 : ins.has(Mod::param) ? 4 : 0;
  out.op[0] = c.ref(ins.operands[0], Type::Pred);
  out.op[1] = c.ref(ins.operands[1], Type::U64);
  out.nops = 2;
  out.exec = exec_isspacep;
  return !out.op[0].is_none() && !out.op[1].is_none();
}

// ------------------------------------------------------------------ cache control

// The L2 hints of createpolicy's priority modifiers, in source order (primary, then secondary).
void policy_hints(const Instruction& ins, L2Hint& first, L2Hint& second) {
  first = second = L2Hint::Unchanged;
  int n = 0;
  for (unsigned i = 0; i < ins.nmods; ++i) {
    L2Hint h;
    switch (ins.mods[i]) {
      case Mod::L2_evict_last: h = L2Hint::Last; break;
      case Mod::L2_evict_normal: h = L2Hint::Normal; break;
      case Mod::L2_evict_first: h = L2Hint::First; break;
      case Mod::L2_evict_unchanged: h = L2Hint::Unchanged; break;
      default: continue;
    }
    (n++ == 0 ? first : second) = h;
  }
}

// createpolicy.fractional: imm = primary/secondary hints; op[1] the fraction (f32) or none (1.0).
void exec_createpolicy_fraction(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint64_t* d = ctx.dst(in.op[0]);
  const uint64_t* f = in.nops > 1 ? ctx.src(in.op[1]) : nullptr;
  for_lanes(d, mask, [&](unsigned l) {
    float x = 1.0f;
    if (f) {
      uint32_t bits = uint32_t(f[l]);
      std::memcpy(&x, &bits, 4);
    }
    return fractional_policy(L2Hint(in.imm & 15), L2Hint((in.imm >> 4) & 15), fraction_fixed(x));
  });
}

// createpolicy.range: op[0] the address base, op[1] the destination, op[2]/op[3] primary and
// total sizes. Each distinct range is one entry of the launch's table.
void exec_createpolicy_range(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* prim = ctx.src(ops[2]);
  const uint64_t* tot = ctx.src(ops[3]);
  uint64_t* d = ctx.dst(ops[1]);
  auto& tab = ctx.launch.range_policies;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    RangePolicy r{lane_address(ctx, in, base, l), uint32_t(prim[l]), uint32_t(tot[l]), L2Hint(in.imm2 & 15),
                  L2Hint((in.imm2 >> 4) & 15)};
    if (r.total < r.primary) r.total = r.primary;
    // Kernels make the same few policies over and over: look back a little before adding.
    auto same = [&](const RangePolicy& e) {
      return e.base == r.base && e.primary == r.primary && e.total == r.total && e.first == r.first && e.second == r.second;
    };
    size_t i = SIZE_MAX;
    for (size_t k = tab.size(); k > 0 && tab.size() - k < 64; --k)
      if (same(tab[k - 1])) {
        i = k - 1;
        break;
      }
    if (i == SIZE_MAX) {
      if (tab.size() >= (1u << 20)) {  // bounded: beyond this, a policy without effect
        d[l] = 0;
        continue;
      }
      tab.push_back(r);
      i = tab.size() - 1;
    }
    d[l] = kPolicyValid | kPolicyRange | uint64_t(i) << 8;
  }
}

bool dec_createpolicy(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  L2Hint first, second;
  policy_hints(ins, first, second);
  if (second != L2Hint::Unchanged && second != L2Hint::First)
    return c.fail("createpolicy: the secondary priority must be .L2::evict_first or .L2::evict_unchanged");
  const auto& o = ins.operands;
  if (ins.has(Mod::range)) {
    if (o.size() != 4) return c.fail("createpolicy.range needs cache-policy, [a], primary-size, total-size");
    MemRef r;
    if (!c.mem(o[1], r)) return false;
    out.flags = uint32_t(AccessSpace::Global) | mem_flags(r);
    out.imm = r.offset;
    out.target = r.shared_var;
    out.imm2 = int64_t(first) | int64_t(second) << 4;
    std::vector<Ref> refs{r.base, c.ref(o[0], Type::B64), c.ref(o[2], Type::U32), c.ref(o[3], Type::U32)};
    for (size_t i = 1; i < refs.size(); ++i)
      if (refs[i].is_none()) return false;
    c.set_ops(out, refs);
    out.exec = exec_createpolicy_range;
    return true;
  }
  out.op[0] = c.ref(o[0], Type::B64);
  if (out.op[0].is_none()) return false;
  if (ins.has(Mod::cvt)) {
    // createpolicy.cvt.L2 converts a CUDA cuda::access_property, whose encoding is the CUDA
    // library's own: the result is no hint.
    out.op[1] = c.cnst(0);
    out.nops = 2;
    out.width = 64;
    out.exec = exec_mov;
    return true;
  }
  out.imm = int64_t(first) | int64_t(second) << 4;
  out.nops = 1;
  if (o.size() > 1) {
    if (o[1].kind == Operand::Kind::F64 || o[1].kind == Operand::Kind::F32) {
      double x;
      if (o[1].kind == Operand::Kind::F32) {
        float f;
        uint32_t bits = uint32_t(o[1].ival);
        std::memcpy(&f, &bits, 4);
        x = f;
      } else {
        uint64_t bits = uint64_t(o[1].ival);
        std::memcpy(&x, &bits, 8);
      }
      if (!(x > 0.0f && x <= 1.0f)) return c.fail("createpolicy.fractional: the fraction must be in (0.0, 1.0]");
    }
    out.op[1] = c.ref(o[1], Type::F32);
    if (out.op[1].is_none()) return false;
    out.nops = 2;
  }
  out.exec = exec_createpolicy_fraction;
  return true;
}

// prefetch / discard / applypriority on global memory: no functional effect; in timing mode the
// line is recorded (with its L2 hint) for the memory system. flags: space | rel; imm2: the hint.
// A prefetch of an unmapped address is dropped, as a prefetch cannot fault.
void exec_line_op(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  MemTrace* tr = ctx.launch.trace;
  if (!tr) return;
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const AccessSpace sp = AccessSpace(in.flags & 15);
  const bool write = in.width != 0;
  tr->l2 = L2Hint(in.imm2);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t a = lane_address(ctx, in, base, l);
    if (sp == AccessSpace::Generic && in_window(a)) continue;
    if (!ctx.launch.mem->page_for_read(a)) continue;
    tr->add(a & ~uint64_t(127), 128, l, TraceSpace::Global, write);
  }
  tr->l2 = L2Hint::Unchanged;
}

// kind: 0 prefetch, 1 discard, 2 applypriority.
template <int Kind>
bool dec_line_op(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  MemRef r;
  if (ins.operands.empty() || !c.mem(ins.operands[0], r)) return false;
  const AccessSpace sp = space_of(ins, r);
  if (sp != AccessSpace::Global && sp != AccessSpace::Generic) {
    out.exec = nullptr;
    return decode_nop(c, ins, out);  // local prefetches and the like: nothing reaches L2
  }
  if (Kind != 0) {
    if (ins.operands.size() != 2 || ins.operands[1].kind != Operand::Kind::Imm || ins.operands[1].ival != 128)
      return c.fail(fmt::format("{}: the size operand must be 128", Kind == 1 ? "discard" : "applypriority"));
    if (Kind == 2 && !ins.has(Mod::L2_evict_normal))
      return c.fail("applypriority supports .L2::evict_normal only");
  }
  if (Kind == 0 && ins.has(Mod::tensormap)) return decode_nop(c, ins, out);
  out.flags = uint32_t(sp) | mem_flags(r);
  out.imm = r.offset;
  out.target = r.shared_var;
  out.imm2 = int64_t(Kind == 1 ? L2Hint::Discard : Kind == 2 ? L2Hint::Demote : static_l2_hint(ins));
  out.width = Kind != 0;  // discard and applypriority travel like stores
  c.set_ops(out, {r.base});
  out.exec = exec_line_op;
  return true;
}

}  // namespace

AccessSpace space_of(const Instruction& ins, const MemRef& r) { return space_of_impl(ins, r); }

void register_data_ops() {
  register_decoder(Opcode::Mov, dec_mov);
  register_decoder(Opcode::Ld, dec_ld);
  register_decoder(Opcode::Ldu, dec_ld);
  register_decoder(Opcode::St, dec_st);
  register_decoder(Opcode::Cvta, dec_cvta);
  register_decoder(Opcode::Isspacep, dec_isspacep);
  register_decoder(Opcode::Prefetch, dec_line_op<0>);
  register_decoder(Opcode::Prefetchu, decode_nop);
  register_decoder(Opcode::Applypriority, dec_line_op<2>);
  register_decoder(Opcode::Discard, dec_line_op<1>);
  register_decoder(Opcode::Createpolicy, dec_createpolicy);
}

}  // namespace warpsim::func
