#include "timing/sm.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "mem/device_memory.hpp"
#include "timing/free_slots.hpp"

namespace warpsim::timing {

using config::OpClass;
using config::Pipe;
using stats::Stall;

namespace {
bool sm_wide(Pipe p) { return p == Pipe::Mio || p == Pipe::Lsu; }
// Integer arithmetic that may take the FMA pipe when the ALU pipe is busy (sm.int_on_fma_pipe):
// ptxas writes much of it as IMAD.MOV / IMAD.IADD / IMAD.SHL / VIADD, which run on the FMA-heavy
// half at the ALU's 16 lanes, so it occupies the FMA pipe for the cycles it would the ALU.
bool int_on_fma(const config::Machine& m, const InstrTiming& it) {
  return m.int_on_fma_pipe && it.pipe == Pipe::Alu && (it.cls == OpClass::Int || it.cls == OpClass::Imad);
}

Stall throttle_of(Pipe p) {
  switch (p) {
    case Pipe::Mio: return Stall::MioThrottle;
    case Pipe::Lsu: return Stall::LgThrottle;
    default: return Stall::MathPipeThrottle;
  }
}

// The lanes of a warp that have not exited (those waiting at a barrier included).
template <class Cta, class Warp>
uint32_t live_lanes(Cta& c, const Warp& w) {
  const func::Warp& fw = *c.stepper->cta().warps[w.warp];
  uint32_t m = 0;
  for (unsigned l = 0; l < func::kWarpSize; ++l)
    if ((fw.valid >> l & 1) && fw.state[l] != func::LaneState::Exited) m |= 1u << l;
  return m;
}

// What an instruction without timing information (none decoded at that pc) is taken to be.
const InstrTiming kDefaultTiming{};

Stall dep_stall(config::Scoreboard k) {
  switch (k) {
    case config::Scoreboard::Short: return Stall::ShortScoreboard;
    case config::Scoreboard::Long: return Stall::LongScoreboard;
    default: return Stall::Wait;
  }
}
// The cycle the registers an instruction reads and writes are ready, and the stall it shows.
uint64_t dependencies(const Scoreboard& sb, const InstrTiming& it, Stall& reason) {
  uint64_t dep = 0;
  config::Scoreboard kind = config::Scoreboard::Fixed, kk = kind;
  for (unsigned i = 0; i < it.nsrc; ++i) {
    uint64_t r = sb.ready(it.src[i], kk);
    if (r > dep) dep = r, kind = kk;
  }
  for (unsigned i = 0; i < it.ndst; ++i) {  // write after write: keep results in order
    uint64_t r = sb.ready(it.dst[i], kk);
    if (r > dep) dep = r, kind = kk;
  }
  if (sb.full()) {
    uint64_t r = sb.earliest(kk);
    if (r > dep) dep = r, kind = kk;
  }
  reason = dep_stall(kind);
  return dep;
}

constexpr uint32_t kDirectTag = 0x80000000u;  // a response for a tracker, not an L1 miss entry
constexpr uint32_t kConstTag = 0x40000000u;   // a response for a constant-cache fetch
}  // namespace

Sm::Sm(const config::Machine& m, uint32_t id, MemorySystem* mem)
    : m_(m), id_(id), subs_(std::max<uint32_t>(1, m.sub_cores)), mem_(mem) {
  for (auto& s : subs_) s.l0i.configure(m.l0i_bytes, m.icache_line, m.l0i_assoc);
  l1tlb_.configure(m.tlb.l1_entries, m.tlb.l1_assoc);
  if (mem_) mem_->attach(id_, this);
  if (mem_) const_.configure(m.const_cache, m.ops[unsigned(OpClass::LdConst)].latency);
  l1i_.configure(m.l1i_bytes, m.icache_line, m.l1i_assoc);
  issue_period_ = m.issue_clock_ratio > 0 && m.issue_clock_ratio < 1 ? uint32_t(std::lround(1.0 / m.issue_clock_ratio)) : 1;
  slots_.reserve(std::max<uint32_t>(1, m.max_warps));
}

bool Sm::can_accept(const KernelRun& k) const {
  uint32_t mine = 0;
  for (auto& c : ctas_)
    if (c->kernel == &k) ++mine;
  if (mine >= k.max_ctas_per_sm) return false;
  if (ctas_.size() >= m_.max_ctas) return false;
  if (used_threads_ + k.fp.threads > m_.max_threads) return false;
  if (used_warps_ + k.fp.warps > m_.max_warps) return false;
  if (used_regs_ + k.fp.regs > m_.registers) return false;
  uint32_t smem_cap = k.smem_per_sm ? k.smem_per_sm : m_.max_shared_per_sm;
  if (used_smem_ + k.fp.smem > smem_cap) return false;
  return true;
}

uint32_t Sm::ctas_of(const KernelRun& k) const {
  uint32_t n = 0;
  for (auto& c : ctas_) n += c->kernel == &k;
  return n;
}

void Sm::occupancy_change(uint64_t t) {
  if (t > occ_last_) {
    warp_cycles_ += uint64_t(used_warps_) * (t - occ_last_);
    if (!ctas_.empty()) active_cycles_ += t - occ_last_;
  }
  occ_last_ = std::max(occ_last_, t);
}

void Sm::close(uint64_t t) { occupancy_change(t); }

void Sm::dispatch(KernelRun& k, func::Dim3 cta_id, uint64_t start, ClusterLink* cluster, uint32_t rank) {
  occupancy_change(start);
  // The L1 gets what the shared-memory carve-out leaves; it is resized (and emptied) only when
  // the SM is idle, as the driver reconfigures the carve-out between kernels.
  if (ctas_.empty() && l1_carveout_ != k.l1_carveout) {
    const bool first = l1_carveout_ == ~0u;
    l1_carveout_ = k.l1_carveout;
    uint32_t cap = m_.l1_shared_bytes > l1_carveout_ ? m_.l1_shared_bytes - l1_carveout_ : 0;
    // Requests of retired warps may still be in flight: they keep their miss-status entries.
    if (first) l1_.configure(cap, m_.l1.line, m_.l1.assoc, m_.l1.max_outstanding);
    else l1_.resize(cap, m_.l1.line, m_.l1.assoc);
  }
  auto slot = std::make_unique<CtaSlot>();
  slot->kernel = &k;
  slot->stepper = std::make_unique<func::CtaStepper>(*k.module, *k.ls, *k.ecfg, cta_id, id_,
                                                     cluster ? &cluster->cluster : nullptr, rank);
  if (cluster) {
    slot->cluster = cluster;
    slot->rank = rank;
    cluster->members.at(rank) = ClusterLink::Member{this, slot.get()};
  }
  uint32_t n = slot->stepper->warps();
  used_threads_ += k.fp.threads;
  used_warps_ += k.fp.warps;
  used_regs_ += k.fp.regs;
  used_smem_ += k.fp.smem;
  for (uint32_t i = 0; i < n; ++i) {
    // A warp slot of the SM: where its context and its local memory live.
    uint32_t ws = 0;
    while (ws < slot_used_.size() && slot_used_[ws]) ++ws;
    if (ws == slot_used_.size()) slot_used_.push_back(false);
    slot_used_[ws] = true;
    if (ws == slots_.size()) {
      // Contexts never move (responses and sub-cores point at them): the capacity is reserved.
      if (slots_.size() == slots_.capacity()) throw std::logic_error("more resident warps than the SM has slots");
      slots_.emplace_back();
      wake_at_.push_back(kNever);
      slot_sub_.push_back(0);
    }
    WarpCtx* w = &slots_[ws];
    // The slot's scoreboard list keeps its memory for the new warp (a fresh one allocated as the
    // warp's first writes went out, for every warp of every CTA).
    Scoreboard sb = std::move(w->sb);
    *w = WarpCtx();
    w->cta = slot.get();
    w->warp = i;
    w->age = age_++;
    // Warps go to sub-cores by their slot in the SM, as the hardware assigns warp ids.
    w->sub_core = uint32_t((used_warps_ - k.fp.warps + i) % subs_.size());
    slot_sub_[ws] = w->sub_core;
    sb.reset(m_.scoreboard_entries);
    w->sb = std::move(sb);
    w->uid = next_uid_++ << kUidSlotBits | ws;
    w->slot = ws;
    w->stall_from = start;
    subs_[w->sub_core].warps.push_back(w);
    subs_[w->sub_core].slots.push_back(ws);
    slot->warps.push_back(w);
    warp_pool_.push_back(w);
  }
  slot->live_warps = n;
  CtaSlot* c = slot.get();
  ctas_.push_back(std::move(slot));
  for (auto* w : c->warps) {
    prepare(*w, start);
    subs_[w->sub_core].next_ready = std::min(subs_[w->sub_core].next_ready, w->ready_at);
  }
  *next_event_ = std::min(*next_event_, start);
}

// An SM-wide unit takes an instruction while it is idle or while fewer than sm.mio_queue
// accepted instructions wait for it (the MIO / LG instruction queues: a warp hands a memory
// instruction over and goes on). Returns t, or the cycle a queue slot frees.
uint64_t Sm::unit_accepts(Pipe p, uint64_t t) {
  const uint64_t free = sm_unit_free_[unsigned(p)];
  if (free == kNever) return kNever;  // the LSU waits for a miss-status entry
  if (free <= t) return t;
  auto& q = unit_queue_[unsigned(p)];
  while (!q.empty() && q.front() <= t) q.pop_front();
  if (q.size() < m_.mio_queue) return t;
  return q.empty() ? free : q.front();
}

// Looks at the warp's next instruction: which lanes, which registers it waits for, whether its
// instruction is in the L0/L1 instruction caches. Sets ready_at.
void Sm::prepare(WarpCtx& w, uint64_t now) {
  CtaSlot& c = *w.cta;
  uint32_t pc = 0;
  uint32_t group = c.stepper->next(w.warp, pc);
  if (!group) {
    if (c.stepper->warp_done(w.warp)) {
      w.finished = true;
    } else {
      w.waiting = true;
    }
    set_ready(w, kNever);
    return;
  }
  w.waiting = false;
  w.pc = pc;
  const KernelRun& k = *c.kernel;
  w.next = pc < k.timing.size() ? &k.timing[pc] : nullptr;
  const InstrTiming& it = w.next ? *w.next : kDefaultTiming;
  w.sb.retire(now);
  w.dep_ready = dependencies(w.sb, it, w.dep_reason);
  // Instruction fetch: a new line is looked up in the sub-core's L0, then the SM's L1; lines carry
  // their arrival cycle, so a line already requested (by a prefetch) costs only what is left of it.
  uint64_t addr = uint64_t(pc) * m_.instr_bytes;
  SubCore& sc = subs_[w.sub_core];
  uint64_t line = addr / std::max<uint32_t>(1, m_.icache_line);
  if (line != w.last_line && sc.l0i.enabled()) {
    w.last_line = line;
    uint64_t ready = 0;
    if (!sc.l0i.lookup_line(line, ready)) {
      ++c.kernel->icache_misses;
      ready = fetch_line(*c.kernel, sc, line, now);
    }
    w.fetch_ready = ready;
    // Sequential prefetch (sm.icache.l1i_prefetch_lines): the warp's stream keeps the lines after
    // its fetch line requested, into its sub-core's L0 and the L1I, also past the end of the code
    // (the front end does not know where code ends: under ncu's L2 flush our H100 reads a small
    // kernel's sm_90 code plus 18-20 lines of 128 B from DRAM, validation/mem/h100_ifetch_dram_ncu.csv;
    // see l1i_fill). A fetch outside the stream's lines (a jump) starts a new stream after it.
    if (m_.l1i_prefetch_lines) {
      const uint64_t end = line + 1 + m_.l1i_prefetch_lines;
      if (line + 1 < w.pf_lo || line > w.pf_hi) w.pf_lo = w.pf_hi = line + 1;
      for (uint64_t l = std::max(w.pf_hi, line + 1); l < end; ++l) {
        uint64_t r;
        if (!sc.l0i.lookup_line(l, r)) fetch_line(*c.kernel, sc, l, now);
      }
      w.pf_hi = std::max(w.pf_hi, end);
    }
  }
  set_ready(w, std::max({now, w.dep_ready, w.fetch_ready, w.hold_until}));
}

// A line for a sub-core's L0: from the L1I (sm.icache.l0i_miss_latency after the L1I has it) or,
// on an L1I miss, from L2 (l1i_fill). Returns the cycle it is in the L0.
uint64_t Sm::fetch_line(KernelRun& k, SubCore& sc, uint64_t line, uint64_t now) {
  uint64_t r = 0;
  const uint64_t t = l1i_.lookup_line(line, r) ? std::max(now, r) + m_.l0i_miss_latency : l1i_fill(k, line, now);
  sc.l0i.fill_line(line, t);
  return t;
}

// A line from L2 into the L1I: sm.icache.l1i_miss_latency after the request, lines arriving at
// most one per sm.icache.l1i_fill_interval cycles.
//
// The line is also read from the memory system, as the GPU reads code from device memory: the
// L2 lookups, and the DRAM reads of code not in L2 (every kernel's, under a flushed L2), appear
// in the kernel's counters and take their share of crossbar, L2 and DRAM bandwidth (ncu's
// dram__bytes_read on our H100 exceeds the data a small kernel reads by 2.7-26 KB, about its code
// and what the prefetch runs ahead: validation/workloads/h100_ncu.csv). The line's arrival stays
// the measured fixed latency and streaming interval above: the H100 streams code it has never
// run at the same 17 cycles per line with it in L2 or in DRAM (configs/h100.toml [MEAS-IF]), so
// the latency of the request's own path is not what the front end waits for.
uint64_t Sm::l1i_fill(KernelRun& k, uint64_t line, uint64_t now) {
  uint64_t t = now + m_.l1i_miss_latency;
  if (m_.l1i_fill_interval) {
    t = std::max(t, l1i_next_fill_);
    l1i_next_fill_ = t + m_.l1i_fill_interval;
  }
  l1i_.fill_line(line, t);
  if (mem_ && k.code_in_memory) {
    const uint64_t icl = std::max<uint32_t>(1, m_.icache_line), l2l = m_.l2.line, sec = m_.l2.sector;
    const uint64_t lo = k.code_pa + line * icl, hi = lo + icl;
    for (uint64_t a = lo; a < hi;) {
      const uint64_t l2_line = a / l2l, end = std::min(hi, (l2_line + 1) * l2l);
      const uint32_t sectors = sector_mask(a - l2_line * l2l, end - l2_line * l2l, uint32_t(sec));
      MemRequest rq;
      rq.sm = id_;
      rq.line = l2_line;
      rq.sectors = sectors;
      rq.kind = MemOpKind::Read;
      rq.respond = false;
      rq.ctr = &k.ifetch;
      mem_->send(rq, t - m_.l1i_miss_latency);
      a = end;
    }
  }
  return t;
}

// Attributes the cycles since the warp's last issue to warp states, in priority order.
void Sm::account(WarpCtx& w, uint64_t t) {
  auto& st = w.cta->kernel->stalls;
  uint64_t c = w.stall_from;
  auto seg = [&](uint64_t until, Stall s) {
    until = std::min(until, t);
    if (until > c) {
      st[unsigned(s)] += until - c;
      c = until;
    }
  };
  seg(w.hold_until, w.hold_reason);
  seg(w.fetch_ready, Stall::NoInstructions);
  seg(w.dep_ready, w.dep_reason);
  seg(w.throttle_until, w.throttle_reason);
  if (t > c) st[unsigned(Stall::NotSelected)] += t - c;
  st[unsigned(Stall::Selected)] += 1;
  w.stall_from = t + 1;
}

bool Sm::eligible(WarpCtx& w, SubCore& sc, uint64_t t) {
  if (w.finished || w.waiting || w.ready_at > t) return false;
  Pipe p = w.next ? w.next->pipe : Pipe::Alu;
  uint64_t free = sm_wide(p) ? unit_accepts(p, t) : sc.pipe_free[unsigned(p)];
  if (w.next && int_on_fma(m_, *w.next)) free = std::min(free, sc.pipe_free[unsigned(Pipe::Fma)]);
  if (free > t) {
    set_ready(w, free);
    if (free > w.throttle_until) {
      w.throttle_until = free;
      w.throttle_reason = throttle_of(p);
    }
    return false;
  }
  return true;
}

void Sm::issue(WarpCtx& w, uint64_t t) {
  CtaSlot& c = *w.cta;
  KernelRun& k = *c.kernel;
  SubCore& sc = subs_[w.sub_core];
  const InstrTiming& it = w.next ? *w.next : kDefaultTiming;
  k.ls->clock = t;
  account(w, t);
  const bool memop = mem_ && (it.pipe == Pipe::Lsu || (it.bulk & kBulkCopy) || it.cls == OpClass::LdShared || it.cls == OpClass::StShared ||
                              it.cls == OpClass::AtomShared || (it.cls == OpClass::LdConst && const_.enabled()));
  // mbarrier instructions are traced for the barrier's address (cp.async completion tracking).
  const bool traced = memop || it.cls == OpClass::Mbarrier;
  if (traced) {
    trace_.clear();
    k.ls->trace = &trace_;
  }
  func::Cluster* const fcl = c.stepper->cta().cluster;
  const uint32_t phase0 = fcl ? fcl->phase : 0;
  func::StepResult r = c.stepper->step(w.warp);
  k.ls->trace = nullptr;
  if (r.fault || k.ls->fault.kind != func::FaultKind::None) {
    fault_ = true;
    k.stopped = true;
    return;
  }
  ++sc.issued;
  // Results and pipe occupancy. An instruction queued at an SM-wide unit starts when the unit
  // has worked through the instructions ahead of it.
  uint64_t start = t;
  if (sm_wide(it.pipe)) {
    const uint64_t free = sm_unit_free_[unsigned(it.pipe)];
    if (free != kNever && free > t) {
      start = free;
      unit_queue_[unsigned(it.pipe)].push_back(start);
    }
  }
  if (memop) {
    uint64_t ready = memory_issue(w, it, start);
    for (unsigned i = 0; i < it.ndst; ++i) w.sb.set(it.dst[i], ready, it.sb);
  } else {
    for (unsigned i = 0; i < it.ndst; ++i) w.sb.write(it.dst[i], start + it.latency, it.sb);
    if (sm_wide(it.pipe)) sm_unit_free_[unsigned(it.pipe)] = start + it.pipe_cycles;
    else if (int_on_fma(m_, it) && sc.pipe_free[unsigned(Pipe::Alu)] > t) sc.pipe_free[unsigned(Pipe::Fma)] = t + it.pipe_cycles;
    else sc.pipe_free[unsigned(it.pipe)] = t + it.pipe_cycles;
  }
  // Holds after the instruction.
  w.hold_until = 0;
  switch (it.cls) {
    case OpClass::Branch:
    case OpClass::Call:
      if (r.redirected) {
        w.hold_until = t + 1 + m_.branch_latency;
        w.hold_reason = Stall::BranchResolving;
      }
      if (it.hold) {  // device printf (vprintf): the driver's code runs, then the warp goes on
        w.hold_until = std::max(w.hold_until, t + it.hold);
        w.hold_reason = Stall::Wait;  // a fixed cost, as a fixed-latency wait (its own stall mix is not measured)
      }
      break;
    case OpClass::Membar:
      w.hold_until = t + it.latency;
      w.hold_reason = Stall::Membar;
      break;
    case OpClass::Mbarrier:
      async_issue(w, it, t);
      break;
    case OpClass::Barrier:
      if (it.cluster) break;  // barrier.cluster: cluster_effects
      w.hold_until = t + 1 + m_.barrier_latency;
      w.hold_reason = Stall::Barrier;
      // A divergent warp's arrival at barrier.sync: its lanes elsewhere wait the sequence out too.
      if (it.hold && r.group != live_lanes(c, w)) w.hold_until += it.hold;
      break;
    case OpClass::Tensor:
      if (it.hold) {  // an emulated mma (op_class.cpp, emulated_mma): the warp runs ptxas's subroutine
        w.hold_until = t + it.hold;
        w.hold_reason = Stall::Wait;  // a measured fixed cost, as printf's (its instructions' own stall mix is not modelled)
      }
      break;
    default: break;
  }
  if (it.wgmma) wgmma_issue(w, it, t);
  if (fcl && (fcl->phase != phase0 || it.cluster || (traced && c.cluster))) cluster_effects(w, it, phase0, t, traced);
  sc.greedy = &w;
  w.throttle_until = 0;
  prepare(w, t + 1);
  // Instructions that can release other warps (barriers, exits, mbarrier arrivals, warp-sync
  // partners) look at the CTA's waiting warps again.
  if (r.blocked || it.cls == OpClass::Barrier || it.cls == OpClass::Mbarrier || it.cls == OpClass::Exit ||
      w.finished)
    wake(c, t);
  if (w.finished) {
    --c.live_warps;
    if (c.live_warps == 0 || c.stepper->done()) cta_finished(c, t);
  }
}

void Sm::cta_finished(CtaSlot& c, uint64_t t) {
  if (!c.cluster) return retire_cta(&c, t);
  if (c.finished) return;
  c.finished = true;
  ClusterLink& l = *c.cluster;
  if (++l.finished < l.members.size()) return;
  // The last CTA of the cluster: all of them leave their SMs now (their shared memory was
  // reachable by the others until here).
  l.retired = true;
  for (auto& mb : l.members) mb.sm->cluster_retire(*mb.slot, t);
}

// The cluster barrier (barrier.cluster.arrive / wait, PTX ISA 9.7.13.2): the functional engine
// completes a phase when the last live thread of the cluster arrives (or exits); its waiters, in
// every CTA of the cluster, go on [cluster] barrier_latency + barrier_cycles_per_cta per CTA later
// (the H100's cluster.sync round trip, configs/h100.toml). A wait that finds its phase complete
// (the last arriver's own wait) is held until the same release. Accesses to other CTAs' shared
// memory (stores, atomics, mbarrier arrives, bulk copies' completions) may release their waits:
// those CTAs look again when the access reaches them, dsmem_latency / 2 later (one way).
void Sm::cluster_effects(WarpCtx& w, const InstrTiming& it, uint32_t phase0, uint64_t t, bool traced) {
  CtaSlot& c = *w.cta;
  const func::Cluster& fcl = *c.stepper->cta().cluster;
  const auto& cc = m_.cluster;
  if (fcl.phase != phase0) {
    const uint64_t at = t + 1 + cc.barrier_latency +
                        uint64_t(std::llround(cc.barrier_cycles_per_cta * double(fcl.ctas.size())));
    if (c.cluster) {
      for (auto& mb : c.cluster->members) {
        mb.slot->cluster_release = at;
        mb.sm->cluster_wake(*mb.slot, at);
      }
    } else {
      c.cluster_release = at;
      cluster_wake(c, at);
    }
  }
  if ((it.cluster & kClusterWait) && c.cluster_release > t && !w.waiting) {
    w.hold_until = std::max(w.hold_until, c.cluster_release);
    w.hold_reason = Stall::Barrier;
  }
  if (!c.cluster || it.cluster || !traced) return;
  uint32_t ranks = 0;
  for (auto& a : trace_.acc)
    if (a.space == func::TraceSpace::RemoteShared) ranks |= 1u << (func::cluster_rank_of(a.addr) & 31);
  const uint64_t at = t + 1 + cc.dsmem_latency / 2;
  for (; ranks; ranks &= ranks - 1) {
    const uint32_t rank = uint32_t(std::countr_zero(ranks));
    if (rank < c.cluster->members.size() && rank != c.rank) {
      auto& mb = c.cluster->members[rank];
      mb.sm->cluster_wake(*mb.slot, at);
    }
  }
}

void Sm::cluster_wake(CtaSlot& c, uint64_t at) {
  uint64_t earliest = kNever;
  for (auto* o : c.warps) {
    if (o->finished || !o->waiting) continue;
    prepare(*o, at);
    if (o->finished) {
      --c.live_warps;
      continue;
    }
    if (o->waiting) continue;
    o->hold_until = std::max(o->hold_until, at);
    o->hold_reason = Stall::Barrier;
    set_ready(*o, std::max(o->ready_at, o->hold_until));
    subs_[o->sub_core].next_ready = std::min(subs_[o->sub_core].next_ready, o->ready_at);
    earliest = std::min(earliest, o->ready_at);
  }
  if (earliest != kNever) *next_event_ = std::min(*next_event_, earliest);
}

bool Sm::stuck(const CtaSlot& c) const {
  auto waits = [](const CtaSlot& s) {
    if (s.finished) return true;
    for (auto* o : s.warps)
      if (!o->finished && !o->waiting) return false;
    return true;
  };
  if (!c.cluster) return waits(c);
  for (auto& mb : c.cluster->members)
    if (!mb.slot || !waits(*mb.slot)) return false;
  return true;
}

void Sm::wake(CtaSlot& c, uint64_t t) {
  bool all_waiting = true;
  for (auto* o : c.warps) {
    if (o->finished) continue;
    if (o->waiting) {
      prepare(*o, t + 1);
      if (!o->waiting && !o->finished) {
        // Released: the barrier's resolution latency before the next issue.
        o->hold_until = std::max(o->hold_until, t + 1 + m_.barrier_latency);
        o->hold_reason = Stall::Barrier;
        set_ready(*o, std::max(o->ready_at, o->hold_until));
      } else if (o->finished) {
        --c.live_warps;
      }
    }
    if (!o->finished && !o->waiting) all_waiting = false;
  }
  // (A CTA of a cluster may wait for the others: stuck only when all of them wait.)
  if (c.live_warps > 0 && all_waiting && !c.stepper->done() && (!c.cluster || stuck(c))) {
    // Every live warp of the CTA waits and nothing can release them.
    c.kernel->ls->clock = t;
    c.stepper->report_deadlock();
    c.kernel->stopped = true;
    fault_ = true;
  }
}

void Sm::retire_cta(CtaSlot* c, uint64_t t) {
  occupancy_change(t + 1);
  KernelRun& k = *c->kernel;
  used_threads_ -= k.fp.threads;
  used_warps_ -= k.fp.warps;
  used_regs_ -= k.fp.regs;
  used_smem_ -= k.fp.smem;
  for (auto& sc : subs_) {
    size_t kept = 0;
    for (size_t i = 0; i < sc.warps.size(); ++i)
      if (sc.warps[i]->cta != c) {
        sc.warps[kept] = sc.warps[i];
        sc.slots[kept] = sc.slots[i];
        ++kept;
      }
    sc.warps.resize(kept);
    sc.slots.resize(kept);
    if (sc.greedy && sc.greedy->cta == c) sc.greedy = nullptr;
    if (sc.rr >= sc.warps.size()) sc.rr = 0;
  }
  for (auto* w : c->warps) {
    if (w->slot < slot_used_.size()) slot_used_[w->slot] = false;
    wake_at_[w->slot] = kNever;
  }
  warp_pool_.erase(std::remove_if(warp_pool_.begin(), warp_pool_.end(), [&](WarpCtx* w) { return w->cta == c; }),
                   warp_pool_.end());
  async_bars_.drop(c);
  ++k.retired_ctas;
  k.end = std::max(k.end, t + 1);
  ++retired_;
  ctas_.erase(std::remove_if(ctas_.begin(), ctas_.end(), [&](auto& p) { return p.get() == c; }), ctas_.end());
}

// ---------------------------------------------------------------- memory instructions

uint32_t Sm::new_tracker() {
  const uint32_t id = take_slot(trackers_, free_trackers_);
  trackers_[id] = Tracker{};
  trackers_[id].live = true;
  return id;
}

void Sm::free_tracker(uint32_t id) {
  trackers_[id].live = false;
  free_trackers_.push_back(id);
}

// A tracker for warp w's memory instruction `it` of kernel k issued at t (ready no earlier than its
// op class's latency).
uint32_t Sm::new_tracker(const WarpCtx& w, const InstrTiming& it, KernelRun& k, uint64_t t) {
  const uint32_t id = new_tracker();
  Tracker& tr = trackers_[id];
  tr.warp_uid = w.uid;
  tr.it = &it;
  tr.kernel = &k;
  tr.issue = t;
  tr.ready = t + it.latency;
  return id;
}

// The physical line (of l1.line bytes) of a virtual address; local memory is not translated.
uint64_t Sm::physical_line(const KernelRun& k, uint64_t va) const {
  if (va >= func::kLocalWindow || !k.ls->mem) return va / m_.l1.line;
  const uint64_t page = k.ls->mem->page_size();
  mem::DeviceMemory::PageInfo pi = k.ls->mem->translate(va);
  uint64_t pa = pi.mapped ? pi.frame * page + (va & (page - 1)) : va;
  return pa / m_.l1.line;
}

uint64_t Sm::translate(uint64_t vaddr, uint64_t t, stats::MemoryStats& ctr) {
  const uint64_t vpn = vaddr / m_.tlb.page_bytes;
  uint64_t r = l1tlb_.lookup(vpn);
  if (r != kNever) {
    ++ctr.tlb_l1_hits;
    return std::max(t, r);
  }
  ++ctr.tlb_l1_misses;
  r = mem_->translate(id_, vpn, t, &ctr);
  l1tlb_.insert(vpn, r);
  return r;
}

// What a line request asks of L2: the access's hint (its instruction's or the access-policy
// window's), else the cache operator's (.cs/.lu/evict_first stream). .L2::no_allocate on a store
// streams the line instead: L2 is where stores land, so it must allocate.
static void set_l2_hint(MemRequest& rq, func::L2Hint h, uint8_t flags) {
  using func::L2Hint;
  switch (h) {
    case L2Hint::Normal: rq.evict = Evict::Normal; break;
    case L2Hint::First: rq.evict = Evict::First; break;
    case L2Hint::Last: rq.evict = Evict::Last; break;
    case L2Hint::NoAllocate:
      if (rq.kind == MemOpKind::Read) rq.no_allocate = true;
      else rq.evict = Evict::First;
      break;
    case L2Hint::Discard: rq.kind = MemOpKind::Discard; break;
    case L2Hint::Demote: rq.kind = MemOpKind::Demote; break;
    case L2Hint::Unchanged:
      if (flags & kMemEvictFirst) rq.evict = Evict::First;
      break;
  }
}

// A line request needs a miss-status entry (stores hold one until L2 takes their data); without
// one it waits in order, and the load/store unit takes nothing new.
void Sm::send_miss(const QueuedMiss& q, uint64_t t) {
  if (l1_.full() || miss_head_ < miss_queue_.size()) {
    miss_queue_.push_back(q);
    sm_unit_free_[unsigned(Pipe::Lsu)] = kNever;
    if (q.ctr) ++q.ctr->l1_miss_queue_stalls;
    return;
  }
  send_entry(q, t);
}

void Sm::send_entry(const QueuedMiss& q, uint64_t t) {
  uint32_t e = l1_.allocate(q.vline, q.sectors, !q.write && (q.flags & kMemL1Allocate), q.flags & kMemEvictFirst,
                            q.tracker, !q.write);
  MemRequest rq;
  rq.sm = id_;
  rq.tag = e;
  rq.line = q.pline;
  rq.sectors = q.sectors;
  rq.kind = q.write ? MemOpKind::Write : MemOpKind::Read;
  set_l2_hint(rq, q.l2, q.flags);
  rq.ctr = q.ctr;
  mem_->send(rq, t);
}

// ld.const: the warp's lanes split into one request per distinct address (CUDA C++ Programming
// Guide, "Constant Memory"), handed to the constant caches const_cache.address_cycles apart from
// `t` (the MIO unit is busy until the last one is in); the result is ready when the slowest
// request's data is. L1.5 misses of one instruction are fetched from L2 in parallel.
uint64_t Sm::const_issue(WarpCtx& w, const InstrTiming& it, uint64_t t) {
  KernelRun& k = *w.cta->kernel;
  stats::MemoryStats& ctr = k.mem;
  const unsigned unit = unsigned(it.pipe);
  std::vector<uint64_t>& addrs = const_addrs_;
  addrs.clear();
  for (auto& a : trace_.acc)
    if (a.space == func::TraceSpace::Const && std::find(addrs.begin(), addrs.end(), a.addr) == addrs.end())
      addrs.push_back(a.addr);
  if (addrs.empty()) {  // every lane off
    sm_unit_free_[unit] = t + it.pipe_cycles;
    return t + it.latency;
  }
  const uint64_t n = addrs.size(), step = std::max<uint32_t>(1, m_.const_cache.address_cycles);
  sm_unit_free_[unit] = t + std::max<uint64_t>(it.pipe_cycles, (n - 1) * step + 1);
  ++ctr.const_instructions;
  ctr.const_requests += n;
  ctr.const_serialization += (n - 1) * step;
  const uint32_t tid = new_tracker(w, it, k, t);
  const uint32_t line = m_.l1.line, sector = m_.l1.sector;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t s = t + i * step;
    ConstCache::Result r = const_.access(addrs[i], s, tid);
    if (r.level == ConstCache::Level::L1) ++ctr.const_l1_hits;
    else {
      ++ctr.const_l1_misses;
      (r.level == ConstCache::Level::L15 ? ctr.const_l15_hits : ctr.const_l15_misses) += 1;
    }
    Tracker& tr = trackers_[tid];
    tr.ready = std::max(tr.ready, r.ready);
    if (r.fetch == ConstCache::kNoFetch) continue;
    ++tr.pending;
    if (!r.new_fetch) continue;
    // The L1.5 line from L2: one request per L2 line it covers, each for the sectors it covers.
    const uint64_t lo = r.fetch_line * const_.l15_line(), hi = lo + const_.l15_line();
    for (uint64_t va = lo / line * line; va < hi; va += line) {
      const uint32_t sectors = sector_mask(std::max(lo, va) - va, std::min(hi, va + line) - va, sector);
      const uint64_t at = translate(va, s, ctr) + m_.const_cache.miss_latency;
      MemRequest rq;
      rq.sm = id_;
      rq.tag = kConstTag | r.fetch;
      rq.line = physical_line(k, va);
      rq.sectors = sectors;
      rq.kind = MemOpKind::Read;
      rq.ctr = &ctr;
      const_.add_part(r.fetch);
      mem_->send(rq, at);
    }
  }
  Tracker& tr = trackers_[tid];
  if (tr.pending == 0) {
    free_tracker(tid);
    return tr.ready;
  }
  return kNever;
}

// Sectors a warp's accesses write only in part (fewer bytes than the sector; lanes are assumed to
// write distinct bytes, as a store's lanes do unless they collide).
static uint32_t partial_sectors(const std::vector<func::MemAccess>& acc, uint32_t sector, const UnitStrideRun& run) {
  // A unit-stride run covers its inner sectors wholly: only the two at its ends can be partial.
  if (run.yes && std::has_single_bit(sector) && (run.hi - 1) / sector - run.lo / sector < 64) {
    const uint64_t fs = run.lo / sector, ls = (run.hi - 1) / sector;
    if (fs == ls) return run.hi - run.lo < sector ? 1 : 0;
    return uint32_t(run.lo % sector != 0) + uint32_t(run.hi % sector != 0);
  }
  std::array<std::pair<uint64_t, uint32_t>, 64> seen;
  uint32_t n = 0;
  for (auto& a : acc)
    for (uint64_t b = a.addr; b < a.addr + a.bytes;) {
      const uint64_t s = b / sector, end = std::min<uint64_t>(a.addr + a.bytes, (s + 1) * sector);
      uint32_t k = 0;
      while (k < n && seen[k].first != s) ++k;
      if (k == n) {
        if (n == seen.size()) return n;  // more than a warp's 32 lanes can touch twice over: call them all partial
        seen[n++] = {s, 0};
      }
      seen[k].second += uint32_t(end - b);
      b = end;
    }
  uint32_t partial = 0;
  for (uint32_t k = 0; k < n; ++k) partial += seen[k].second < sector;
  return partial;
}

uint64_t Sm::memory_issue(WarpCtx& w, const InstrTiming& it, uint64_t t) {
  if (it.cls == OpClass::LdConst) return const_issue(w, it, t);
  if (it.bulk & kBulkCopy) return bulk_issue(w, it, t);
  if (trace_.any(func::TraceSpace::RemoteShared)) return dsmem_issue(w, it, t);
  KernelRun& k = *w.cta->kernel;
  stats::MemoryStats& ctr = k.mem;
  const bool any_shared = trace_.any(func::TraceSpace::Shared);
  const bool any_mem = trace_.any(func::TraceSpace::Global) || trace_.any(func::TraceSpace::Local);
  const bool all_global = trace_.acc.empty() || trace_.only(func::TraceSpace::Global);
  const uint32_t lane_bytes = std::max<uint32_t>(1, trace_.max_bytes);
  const unsigned unit = unsigned(it.pipe);
  if (!any_mem) {
    if (!any_shared) {  // constant, parameter, or nothing touched (all lanes off)
      sm_unit_free_[unit] = t + it.pipe_cycles;
      return t + it.latency;
    }
    // Shared memory: the banks serve the warp in wavefronts; conflicts add wavefronts.
    uint32_t wf = shared_wavefronts(trace_.acc, m_.shared_banks, m_.shared_bank_bytes);
    uint32_t row = m_.shared_banks * m_.shared_bank_bytes;
    uint32_t ideal = std::max<uint32_t>(1, (32 * lane_bytes + row - 1) / row);
    ideal = std::min(ideal, wf);
    ++ctr.shared_requests;
    ctr.shared_wavefronts += wf;
    ctr.shared_bank_conflicts += wf - ideal;
    sm_unit_free_[unit] = t + std::max<uint64_t>(it.pipe_cycles, wf);
    return t + it.latency + (wf - ideal);
  }
  // Global and local memory through L1TEX. Local memory is interleaved across the warp's lanes.
  // (The trace as it is when every access is global: the usual case needs no copy.)
  const std::vector<func::MemAccess>& acc = all_global ? trace_.acc : global_acc_;
  bool local = false;
  if (!all_global) {
    global_acc_.clear();
    // Local memory as the memory system sees it: per SM warp slot, in the generic local window.
    const uint64_t local_base = func::kLocalWindow + (uint64_t(id_) * m_.max_warps + w.slot) * (64ull << 20);
    for (auto& a : trace_.acc) {
      if (a.space == func::TraceSpace::Global) global_acc_.push_back(a);
      else if (a.space == func::TraceSpace::Local) {
        func::MemAccess b = a;
        b.addr = local_address(local_base, a.addr, a.lane, m_.l1.local_interleave);
        global_acc_.push_back(b);
        local = true;
      }
    }
  }
  const UnitStrideRun run = unit_stride_run(acc, m_.l1.line);
  coalesce(acc, m_.l1.line, m_.l1.sector, lines_, it.cls == OpClass::AtomGlobal, &run);
  if (k.window.bytes)
    for (auto& l : lines_)
      if (l.l2 == func::L2Hint::Unchanged) l.l2 = k.window.hint(l.line * m_.l1.line, m_.l1.line);
  const bool l2op = !lines_.empty() && (lines_[0].l2 == func::L2Hint::Discard || lines_[0].l2 == func::L2Hint::Demote);
  uint32_t sectors = 0;
  for (auto& l : lines_) sectors += uint32_t(std::popcount(l.sectors));
  const bool atomic = it.cls == OpClass::AtomGlobal;
  const bool returns = it.mem & kMemReturns;
  // An atomic's L2 requests go through the LSU data pipe one after another (and the returned
  // values come back through it): Nsight Compute on one H100 SM keeps the pipe ~90% busy at one
  // cycle per request of red and two of atom (validation/mem/h100_atomics_shape_ncu.txt).
  uint32_t atom_requests = 0;
  if (atomic)
    for (auto& l : lines_) {
      if (it.aggregated) l.rounds = 1, l.repeat_sectors = 0;  // one lane adds the warp's sum (op_class.cpp)
      atom_requests += l.rounds;
    }
  const uint64_t atom_cycles = m_.l1.atomic_request_cycles + (returns ? m_.l1.atomic_return_cycles : 0);
  const bool store = it.cls == OpClass::StGlobal || it.cls == OpClass::StLocal;
  const uint64_t tag_cycles = (lines_.size() + m_.l1.tag_lookups_per_clk - 1) / m_.l1.tag_lookups_per_clk;
  // A store's partly written sectors leave the SM one per store_sector_cycles after its lines'
  // lookups; wholly written sectors move at the data path's width. 32 warps of one H100 SM take
  // 42.1 / 66.5 cycles per STG for 32 four-byte-written sectors in 8 / 32 lines (lines + sectors:
  // 40 / 64) but 4.1 for a coalesced STG (5 whole sectors in 2 lines: 2 + 1.25), stscatter.cu.
  // Cycles of the L1 data path for n sectors.
  auto data_cycles = [&](uint64_t n) { return (n * m_.l1.sector + m_.l1.bytes_per_clk - 1) / m_.l1.bytes_per_clk; };
  uint64_t store_cycles = 0;
  if (store && m_.l1.store_sector_cycles) {
    const uint32_t partial = partial_sectors(acc, m_.l1.sector, run);
    store_cycles = tag_cycles + uint64_t(partial) * m_.l1.store_sector_cycles + data_cycles(sectors - std::min(sectors, partial));
  }
  const uint64_t wavefronts =
      std::max<uint64_t>({1, tag_cycles, data_cycles(sectors), atom_requests * atom_cycles, store_cycles});
  ctr.l1_wavefronts += atomic ? atom_requests : lines_.size();
  // The pipe's own time is kept apart: when the unit closes for want of a miss-status entry, it
  // reopens no earlier than this instruction's wavefronts are through.
  const uint64_t busy_until = t + std::max<uint64_t>(wavefronts, it.pipe_cycles);
  lsu_pipe_until_ = std::max(lsu_pipe_until_, busy_until);
  if (sm_unit_free_[unit] != kNever) sm_unit_free_[unit] = busy_until;

  const bool async = it.cls == OpClass::CpAsync;
  const uint32_t tid = new_tracker(w, it, k, t);
  if (store) {
    // Write-through: the data goes on to L2; the warp does not wait, but each line holds a
    // miss-status entry until L2 acknowledges it (the back-pressure of a write-heavy kernel).
    if (local) ++ctr.l1_local_requests, ctr.l1_local_sectors += sectors;
    else if (!l2op) ++ctr.l1_global_st_requests, ctr.l1_global_st_sectors += sectors;
    Tracker& tr = trackers_[tid];
    tr.store = true;
    tr.pending = uint32_t(lines_.size());
    for (auto& l : lines_) {
      uint64_t at = translate(l.line * m_.l1.line, t, ctr) + m_.l1.miss_latency;
      send_miss(QueuedMiss{l.line, physical_line(k, l.line * m_.l1.line), l.sectors, it.mem, l.l2, tid, &ctr, true, at}, at);
    }
    if (!trackers_[tid].pending) {
      free_tracker(tid);
    }
    return t + it.latency;
  }
  {
    Tracker& tr = trackers_[tid];
    tr.load = !atomic && !async;
    tr.async = async;
    // A red (no value back) is acknowledged like a store: the warp goes on, and the kernel ends
    // only when L2 has performed it.
    tr.store = atomic && !returns;
  }
  if (atomic) {
    ++ctr.l1_atom_requests;
    // One message per line with its rounds (coalescer.hpp); rounds leave the pipe atom_cycles apart.
    uint64_t nth = 0;
    for (auto& l : lines_) {
      const uint64_t at = translate(l.line * m_.l1.line, t, ctr) + m_.l1.miss_latency;
      MemRequest rq;
      rq.sm = id_;
      rq.tag = kDirectTag | tid;
      rq.line = physical_line(k, l.line * m_.l1.line);
      rq.kind = MemOpKind::Atomic;
      rq.red = !returns;
      rq.ctr = &ctr;
      set_l2_hint(rq, l.l2, it.mem);
      rq.sectors = l.sectors;
      rq.rounds = uint16_t(std::min<uint32_t>(l.rounds, 0xffff));
      rq.repeat_sectors = l.repeat_sectors;
      rq.spread = uint16_t(std::min<uint64_t>((l.rounds - 1) * atom_cycles, 0xffff));
      ++trackers_[tid].pending;
      mem_->send(rq, at + nth * atom_cycles);
      nth += l.rounds;
    }
    if (!returns) {
      if (!trackers_[tid].pending) free_tracker(tid);
      return t + it.latency;
    }
  } else {
    if (local) ++ctr.l1_local_requests, ctr.l1_local_sectors += sectors;
    else ++ctr.l1_global_ld_requests, ctr.l1_global_ld_sectors += sectors;
    const bool lookup = (it.mem & kMemL1Lookup) && l1_.enabled();
    for (auto& l : lines_) {
      uint32_t hit = lookup ? l1_.lookup(l.line, l.sectors) : 0;
      (local ? ctr.l1_local_hits : ctr.l1_global_ld_hits) += uint32_t(std::popcount(hit));
      uint32_t rest = l.sectors & ~hit;
      if (!rest) continue;
      uint32_t joined = 0;
      uint32_t inflight = lookup ? l1_.join(l.line, rest, tid, joined) : 0;
      trackers_[tid].pending += joined;
      uint32_t miss = rest & ~inflight;
      if (!miss) continue;
      ++trackers_[tid].pending;
      uint64_t at = translate(l.line * m_.l1.line, t, ctr) + m_.l1.miss_latency;
      send_miss(QueuedMiss{l.line, physical_line(k, l.line * m_.l1.line), miss,
                           lookup ? it.mem : uint8_t(it.mem & ~kMemL1Allocate), l.l2, tid, &ctr, false, at},
                at);
    }
  }
  Tracker& tr = trackers_[tid];
  if (tr.pending == 0) {
    uint64_t ready = tr.ready;
    if (tr.load) ctr.add_load_latency(ready - t);
    free_tracker(tid);
    if (async) {
      w.async.complete(w.async.add(), ready);
      return t + it.latency;
    }
    return ready;
  }
  if (async) {
    tr.group = w.async.add();
    return t + it.latency;
  }
  return kNever;
}

// cp.async.bulk (sm_90's bulk copies) and the tensor copies (cp.async.bulk.tensor, cp.reduce.
// async.bulk.tensor, cp.async.bulk.prefetch.tensor) on the SM's TMA unit ([tma]). The functional
// engine has done the copy and traced its global side (accesses of up to 4 KiB, written for shared
// -> global; a tensor copy's as one access per box row's in-bounds run; a shared -> shared copy's
// source as shared reads) and its mbarrier (the one shared write; a tensor prefetch has none, its
// lines only reach L2, and it sets no wait_after_copy gate). The
// unit starts the copy issue_latency after issue and copy_cycles after the warp's previous copy
// (one thread's back-to-back copies land ~104 cycles apart on the H100, while 8 warps' 4 KiB copies
// reach the unit's byte rate, one per ~43 cycles), then:
//  - global -> shared: one read request per 128-byte line of the source (the coalescer's lines and
//    sectors), leaving at bytes_per_clk behind the lines of earlier copies, through the SM's TLB to
//    L2 (and DRAM on a miss) like an L1 miss, but holding no L1 miss entry (the TMA writes shared
//    memory, not L1). The copy lands complete_latency after its last line is back; the mbarriers
//    it signals (complete_tx) are linked to it in AsyncBarriers, so an mbarrier.test_wait/try_wait
//    result on them is not visible before it lands (as cp.async.mbarrier.arrive's copies).
//  - shared -> global: the unit reads shared memory at store_bytes_per_clk and sends each line as a
//    write; the copy's bulk group is complete when its last line has left (the H100 ends
//    cp.async.bulk.wait_group, .read or not, about there: 42 + N / 32 cycles, no L2 round trip;
//    validation/mem/h100_bulk_measured.csv), while the writes' acknowledgements keep the kernel
//    running until L2 has them, as stores do.
//  - shared -> shared: no memory traffic; it lands after its bytes at store_bytes_per_clk (and
//    complete_latency).
// The warp is not held: the instruction itself costs its issue and pipe cycles (ops.cp_async).
uint64_t Sm::bulk_issue(WarpCtx& w, const InstrTiming& it, uint64_t t) {
  KernelRun& k = *w.cta->kernel;
  stats::MemoryStats& ctr = k.mem;
  const unsigned unit = unsigned(it.pipe);
  if (sm_unit_free_[unit] != kNever) sm_unit_free_[unit] = t + it.pipe_cycles;
  std::vector<func::MemAccess>& acc = global_acc_;
  acc.clear();
  std::array<uint64_t, 2> bars{};
  uint32_t nbars = 0;
  uint64_t shared_bytes = 0, bytes = 0;
  bool write = false;
  uint32_t copies = 0;
  uint32_t lanes_seen = 0;
  uint32_t remote_ranks = 0;              // other CTAs whose mbarriers the copy signals
  std::array<uint64_t, 32> remote_addr{};  // ... at these shared offsets
  for (auto& a : trace_.acc) {
    lanes_seen |= 1u << (a.lane & 31);
    if (a.space == func::TraceSpace::RemoteShared) {
      if (a.write) {
        const uint32_t rank = func::cluster_rank_of(a.addr) & 31;
        remote_ranks |= 1u << rank;
        remote_addr[rank] = a.addr & func::kClusterOffsetMask;
      }
      continue;
    }
    if (a.space == func::TraceSpace::Global) {
      acc.push_back(a);
      bytes += a.bytes;
      write |= a.write;
    } else if (a.space == func::TraceSpace::Shared && !a.write) {
      shared_bytes += a.bytes;
    } else if (a.space == func::TraceSpace::Shared) {
      bool known = false;
      for (uint32_t i = 0; i < nbars; ++i) known |= bars[i] == a.addr;
      if (!known && nbars < bars.size()) bars[nbars++] = a.addr;
    }
  }
  copies = uint32_t(std::popcount(lanes_seen));
  ctr.tma_copies += copies;
  (write ? ctr.tma_bytes_write : ctr.tma_bytes_read) += bytes;
  if (!m_.tma.enabled || !copies) {
    // No TMA model: the copy is done at issue (its mbarriers and bulk group see it at once).
    if (write) w.bulk.add_done(t);
    return t + it.latency;
  }
  const auto& tm = m_.tma;
  const uint64_t start = std::max(t + tm.issue_latency, w.bulk_next_start);
  w.bulk_next_start = start + tm.copy_cycles;
  uint64_t from = std::max(start, tma_lines_until_);
  const uint32_t rate = write || !bytes ? tm.store_bytes_per_clk : tm.bytes_per_clk;
  const uint32_t line = m_.l1.line, sector = m_.l1.sector;
  uint32_t tid = ~0u;
  uint64_t moved = 0;  // bytes of lines scheduled so far
  if (bytes) {
    coalesce(acc, line, sector, lines_, false);
    if (k.window.bytes)
      for (auto& l : lines_)
        if (l.l2 == func::L2Hint::Unchanged) l.l2 = k.window.hint(l.line * line, line);
    tid = new_tracker(w, it, k, t);
    Tracker& tr = trackers_[tid];
    tr.store = write;
    tr.bulk = !write;
    tr.cta = w.cta;
    for (auto& l : lines_) {
      // A line leaves when the unit has moved the lines before it (a write: read them from shared memory).
      moved += uint64_t(std::popcount(l.sectors)) * sector;
      const uint64_t leave = from + (write ? moved : moved - uint64_t(std::popcount(l.sectors)) * sector) / rate;
      MemRequest rq;
      rq.sm = id_;
      rq.tag = kDirectTag | tid;
      rq.line = physical_line(k, l.line * line);
      rq.sectors = l.sectors;
      rq.kind = write ? MemOpKind::Write : MemOpKind::Read;
      rq.ctr = &ctr;
      set_l2_hint(rq, l.l2, it.mem);
      ++trackers_[tid].pending;
      mem_->send(rq, translate(l.line * line, leave, ctr));
    }
  } else {
    moved = shared_bytes;
  }
  tma_lines_until_ = from + (moved + rate - 1) / rate;
  // Shared -> global: done when the last line has left; shared -> shared: when the last byte is in
  // and its mbarrier updated (complete_latency, as a global -> shared copy's).
  const uint64_t done = tma_lines_until_ + (write ? 0 : tm.complete_latency);
  if (write) w.bulk.add_done(done);
  if (!write && bytes && nbars && tm.wait_after_copy) w.bulk_gate = t + tm.wait_after_copy;
  // Global -> shared (and shared -> shared): the mbarriers the copy signals.
  for (uint32_t i = 0; i < nbars; ++i) {
    const uint32_t b = async_bars_.get(w.cta, bars[i]);
    if (tid != ~0u && !write) {
      ++async_bars_[b].pending;
      trackers_[tid].bars[i] = b;
    } else {
      async_bars_[b].done = std::max(async_bars_[b].done, done);
    }
  }
  // Other CTAs' mbarriers (a .multicast::cluster copy delivers the same data to every CTA of its
  // ctaMask, read from L2 once): each learns of the copy when the issuing SM's would, plus the
  // one-way trip to its SM. Estimate: the multicast's delivery is not measured apart.
  ClusterLink* cl = w.cta->cluster;
  if (remote_ranks && cl) {
    const uint64_t hop = m_.cluster.dsmem_latency / 2;
    std::vector<RemoteBar>* set = nullptr;
    if (tid != ~0u && !write) {
      uint32_t r;
      if (!free_remote_.empty()) r = free_remote_.back(), free_remote_.pop_back();
      else r = uint32_t(remote_bars_.size()), remote_bars_.emplace_back();
      trackers_[tid].remote = r;
      set = &remote_bars_[r];
    }
    for (uint32_t m = remote_ranks; m; m &= m - 1) {
      const uint32_t rank = uint32_t(std::countr_zero(m));
      if (rank >= cl->members.size() || rank == w.cta->rank) continue;
      auto& mb = cl->members[rank];
      mb.sm->remote_bar_link(*mb.slot, remote_addr[rank]);
      if (set) set->push_back(RemoteBar{mb.sm, mb.slot, remote_addr[rank]});
      else mb.sm->remote_bar_landed(mb.slot, remote_addr[rank], done + hop);
    }
  }
  return t + it.latency;
}

// Another CTA's loads, stores and atomics through shared::cluster addresses leave over the SM's
// port to the SM-to-SM network at [cluster] dsmem_bytes_per_clk (the H100's 17.07 B/clk per SM
// with 4-32 warps streaming 16-byte remote loads) behind the accesses before them; a load's data
// is back dsmem_latency after its bytes have left (its dependent chain: 191.6 cycles per load).
// Only the requesting SM's port is modelled (in the probes every SM serves as much as it asks).
uint64_t Sm::dsmem_issue(WarpCtx& w, const InstrTiming& it, uint64_t t) {
  (void)w;
  const auto& cc = m_.cluster;
  uint64_t bytes = 0;
  for (auto& a : trace_.acc)
    if (a.space == func::TraceSpace::RemoteShared) bytes += a.bytes;
  const unsigned unit = unsigned(it.pipe);
  if (sm_unit_free_[unit] != kNever) sm_unit_free_[unit] = t + it.pipe_cycles;
  const uint64_t start = std::max(t, dsmem_port_free_);
  const uint64_t xfer =
      cc.dsmem_bytes_per_clk > 0 ? uint64_t(std::ceil(double(bytes) / cc.dsmem_bytes_per_clk)) : 0;
  dsmem_port_free_ = start + xfer;
  const bool store = it.cls == OpClass::StShared || it.cls == OpClass::StGlobal || it.cls == OpClass::StLocal;
  if (store) return t + it.latency;
  return std::max<uint64_t>(t + it.latency, start + xfer + cc.dsmem_latency);
}

void Sm::remote_bar_link(CtaSlot& c, uint64_t addr) { ++async_bars_[async_bars_.get(&c, addr)].pending; }

void Sm::remote_bar_landed(const void* c, uint64_t addr, uint64_t t) {
  const uint32_t b = async_bars_.find(c, addr);
  if (b == AsyncBarriers::kNone) return;  // the CTA has gone
  auto& bar = async_bars_[b];
  bar.done = std::max(bar.done, t);
  if (!bar.pending || --bar.pending) return;
  release_bar_waiters(bar, t);
  const uint64_t floor = ticked_ ? std::max(t, last_tick_ + 1) : t;
  if (woken_ != kNever) *next_event_ = std::min(*next_event_, std::max(woken_, floor));
  woken_ = kNever;
}

// wgmma.mma_async runs on the warp's sub-core tensor core while the warp goes on issuing: it is
// done when its pipe cycles and the tensor latency have passed (InstrTiming::latency), a time
// known at issue. wgmma.commit_group closes the warp's open group; wgmma.wait_group N holds the
// warp until all but the N newest committed groups are done (PTX ISA 9.7.15.7.3).
void Sm::wgmma_issue(WarpCtx& w, const InstrTiming& it, uint64_t t) {
  if (it.wgmma & kWgmmaMma) w.wgmma.add_done(t + it.latency);
  if (it.wgmma & kWgmmaCommit) w.wgmma.commit();
  if (it.wgmma & kWgmmaWait) {
    const uint64_t at = w.wgmma.ready(it.wait_groups);
    if (at > t) {
      w.hold_until = std::max(w.hold_until, at);
      w.hold_reason = Stall::Wait;
    }
  }
}

void Sm::async_issue(WarpCtx& w, const InstrTiming& it, uint64_t t) {
  if (it.bulk & kBulkCommit) w.bulk.commit();
  if (it.bulk & kBulkWait) {
    // cp.async.bulk.wait_group N (.read): held until all but the N newest bulk groups are done.
    // Their done cycles are known when the copies issue (Sm::bulk_issue).
    const uint64_t at = w.bulk.ready(it.wait_groups);
    if (at != AsyncGroups::kInFlight && at > t) {
      w.hold_until = std::max(w.hold_until, at);
      w.hold_reason = Stall::LongScoreboard;
    }
  }
  if (it.mem & kMemAsyncCommit) w.async.commit();
  if (it.mem & kMemAsyncWait) {
    // cp.async.wait_group N / wait_all: held until all but the N newest groups have landed.
    uint64_t at = w.async.ready(it.wait_groups);
    if (at == AsyncGroups::kInFlight) {
      w.async_wait = it.wait_groups;
      w.hold_until = kNever;
    } else {
      w.hold_until = std::max(w.hold_until, at);
    }
    w.hold_reason = Stall::LongScoreboard;
  }
  if (!(it.mem & (kMemAsyncArrive | kMemBarrierWait))) return;
  // The mbarrier: the first lane's address (a barrier per warp is the norm).
  const func::MemAccess* a = nullptr;
  for (auto& x : trace_.acc)
    if (x.space == func::TraceSpace::Shared || x.space == func::TraceSpace::Global) {
      a = &x;
      break;
    }
  if (!a) return;
  const uint64_t key = a->addr | (a->space == func::TraceSpace::Global ? 1ull << 63 : 0);
  if (it.mem & kMemAsyncArrive) {
    // The arrival counts only once every earlier copy of the thread has landed.
    uint32_t b = AsyncBarriers::kNone;
    for (uint32_t id = 0; id < trackers_.size(); ++id) {
      Tracker& tr = trackers_[id];
      if (!tr.live || !tr.async || tr.warp_uid != w.uid) continue;
      if (b == AsyncBarriers::kNone) b = async_bars_.get(w.cta, key);
      for (auto& s : tr.bars)
        if (s == b) break;
        else if (s == AsyncBarriers::kNone) {
          s = b;
          tr.cta = w.cta;
          ++async_bars_[b].pending;
          break;
        }
    }
    return;
  }
  // test_wait/try_wait: the result is visible once the barrier's copies have landed (and, with
  // [tma] wait_after_copy, no sooner than that long after the warp's latest bulk copy).
  uint32_t b = async_bars_.find(w.cta, key);
  uint64_t at = w.bulk_gate;
  if (b != AsyncBarriers::kNone) {
    auto& bar = async_bars_[b];
    if (bar.pending) {
      for (unsigned i = 0; i < it.ndst; ++i) w.sb.set(it.dst[i], kNever, it.sb);
      bar.waiters.push_back({w.uid, &it});
      return;
    }
    at = std::max(at, bar.done);
  }
  if (at > t)
    for (unsigned i = 0; i < it.ndst; ++i) w.sb.set(it.dst[i], at + it.latency, it.sb);
}

// A copy linked to mbarriers (cp.async.mbarrier.arrive, or a bulk copy's complete_tx) landed at t:
// waiters whose test_wait/try_wait result waited for the last of them get it.
void Sm::bars_landed(const Tracker& tr, uint64_t t) {
  for (uint32_t b : tr.bars) {
    if (b == AsyncBarriers::kNone) break;
    auto& bar = async_bars_[b];
    if (bar.cta != tr.cta || !bar.pending) continue;
    bar.done = std::max(bar.done, t);
    if (--bar.pending) continue;
    release_bar_waiters(bar, t);
  }
}

void Sm::release_bar_waiters(AsyncBarriers::Barrier& bar, uint64_t t) {
  auto waiters = std::move(bar.waiters);
  bar.waiters.clear();
  for (auto& wt : waiters) {
    WarpCtx* f = warp_by_uid(wt.warp_uid);
    if (!f) continue;
    const auto* it = static_cast<const InstrTiming*>(wt.instr);
    const uint64_t at = std::max(t, f->bulk_gate);  // ([tma] wait_after_copy)
    for (unsigned i = 0; i < it->ndst; ++i) f->sb.set(it->dst[i], at + it->latency, it->sb);
    refresh_deps(*f, t);
  }
}

// A cp.async copy landed in shared memory at t: its group and its mbarriers learn of it.
void Sm::async_landed(const Tracker& tr, uint64_t t) {
  bars_landed(tr, t);
  WarpCtx* f = warp_by_uid(tr.warp_uid);
  if (!f) return;  // the warp is gone
  WarpCtx& w = *f;
  w.async.complete(tr.group, t);
  if (w.async_wait >= 0) {
    uint64_t at = w.async.ready(uint32_t(w.async_wait));
    if (at != AsyncGroups::kInFlight) {
      w.async_wait = -1;
      w.hold_until = at;
    }
  }
  refresh_deps(w, t);
}

void Sm::on_response(uint32_t tag, uint64_t t) {
  auto part_done = [&](uint32_t id) {
    if (id >= trackers_.size() || !trackers_[id].live) return;
    Tracker& tr = trackers_[id];
    tr.ready = std::max(tr.ready, t);
    if (tr.pending && --tr.pending == 0) tracker_done(id, tr.ready);
  };
  if (tag & kDirectTag) {
    part_done(tag & ~kDirectTag);
  } else if (tag & kConstTag) {
    std::vector<uint32_t>& waiters = waiters_;
    waiters.clear();
    if (const_.part_done(tag & ~kConstTag, waiters))
      for (uint32_t id : waiters) part_done(id);
  } else if (l1_.valid_entry(tag)) {
    std::vector<uint32_t>& waiters = waiters_;
    l1_.complete(tag, waiters);
    for (uint32_t id : waiters) part_done(id);
    // A miss-status entry is free: queued misses go out, and the load/store unit reopens.
    while (miss_head_ < miss_queue_.size() && !l1_.full()) {
      const QueuedMiss& q = miss_queue_[miss_head_++];
      send_entry(q, std::max(t, q.at));
    }
    if (miss_head_ >= miss_queue_.size()) {
      miss_queue_.clear();
      miss_head_ = 0;
      if (sm_unit_free_[unsigned(Pipe::Lsu)] == kNever) {
        sm_unit_free_[unsigned(Pipe::Lsu)] = std::max(t, lsu_pipe_until_);
        for (auto& w : warp_pool_) refresh_deps(*w, t);
      }
    }
  }
  // Only warps this response touched changed; an earlier next_event_ is at worst early (the tick
  // then finds nothing and recomputes).
  const uint64_t floor = ticked_ ? std::max(t, last_tick_ + 1) : t;
  if (woken_ != kNever) *next_event_ = std::min(*next_event_, std::max(woken_, floor));
  woken_ = kNever;
}

void Sm::prefetch_response(uint32_t tag) const {
  if (tag & kDirectTag) {
    const uint32_t id = tag & ~kDirectTag;
    if (id < trackers_.size()) __builtin_prefetch(&trackers_[id]);
  } else if (!(tag & kConstTag)) {
    l1_.prefetch_entry(tag);
  }
}

void Sm::tracker_done(uint32_t id, uint64_t t) {
  Tracker tr = trackers_[id];
  free_tracker(id);
  if (tr.load && tr.kernel) tr.kernel->mem.add_load_latency(t - tr.issue);
  if (tr.kernel) tr.kernel->mem_end = std::max(tr.kernel->mem_end, t + 1);
  if (tr.store) return;
  if (tr.async) return async_landed(tr, t);
  if (tr.remote != ~0u) {
    for (auto& rb : remote_bars_[tr.remote])
      rb.sm->remote_bar_landed(rb.cta, rb.addr, t + m_.tma.complete_latency + m_.cluster.dsmem_latency / 2);
    remote_bars_[tr.remote].clear();
    free_remote_.push_back(tr.remote);
  }
  if (tr.bulk) return bars_landed(tr, t + m_.tma.complete_latency);
  WarpCtx* f = warp_by_uid(tr.warp_uid);
  if (!f) return;  // the warp is gone
  WarpCtx& w = *f;
  for (unsigned i = 0; i < tr.it->ndst; ++i) w.sb.set(tr.it->dst[i], t, tr.it->sb);
  refresh_deps(w, t);
}

void Sm::refresh_deps(WarpCtx& w, uint64_t now) {
  if (w.finished || w.waiting) return;
  const InstrTiming& it = w.next ? *w.next : kDefaultTiming;
  w.dep_ready = dependencies(w.sb, it, w.dep_reason);
  set_ready(w, std::max({now, w.dep_ready, w.fetch_ready, w.hold_until}));
  woken_ = std::min(woken_, w.ready_at);
  subs_[w.sub_core].next_ready = std::min(subs_[w.sub_core].next_ready, w.ready_at);
}

void Sm::recompute_next(uint64_t t) {
  uint64_t n = kNever;
  for (auto& sc : subs_) sc.next_ready = kNever;
  // wake_at_ (not the warps' contexts, a cache line each, scattered over the SM's 64 slots): the
  // least ready cycle over the slots is what every tick needs.
  for (size_t ws = 0; ws < wake_at_.size(); ++ws) {
    const uint64_t r = wake_at_[ws];
    if (r == kNever) continue;
    n = std::min(n, std::max(r, t + 1));
    uint64_t& sr = subs_[slot_sub_[ws]].next_ready;
    sr = std::min(sr, r);
  }
  if (issue_period_ > 1 && n != kNever) n = (n + issue_period_ - 1) / issue_period_ * issue_period_;
  *next_event_ = n;
}

bool Sm::tick(uint64_t t) {
  if (ticked_ && t <= last_tick_) {  // already issued in this cycle (woken again by a memory response)
    recompute_next(last_tick_);
    return !fault_;
  }
  ticked_ = true;
  last_tick_ = t;
  if (issue_period_ > 1 && t % issue_period_) {
    recompute_next(t);
    return !fault_;
  }
  for (auto& sc : subs_) {
    // A sub-core none of whose warps can be ready yet has nothing to look at.
    if (sc.warps.empty() || sc.next_ready > t) continue;
    WarpCtx* pick = nullptr;
    if (m_.scheduler == config::SchedulerPolicy::Gto) {
      if (sc.greedy && eligible(*sc.greedy, sc, t)) pick = sc.greedy;
      else
        for (size_t i = 0; i < sc.warps.size(); ++i) {
          // A warp not ready by its slot's wake_at_ (its ready_at) is not eligible: its context
          // (a cache line per warp) need not be read.
          if (wake_at_[sc.slots[i]] > t) continue;
          WarpCtx* w = sc.warps[i];
          if (w != sc.greedy && eligible(*w, sc, t)) {
            pick = w;
            break;
          }
        }
    } else {
      size_t n = sc.warps.size();
      for (size_t i = 0; i < n; ++i) {
        const size_t j = (sc.rr + i) % n;
        if (wake_at_[sc.slots[j]] > t) continue;
        WarpCtx* w = sc.warps[j];
        if (eligible(*w, sc, t)) {
          pick = w;
          sc.rr = (sc.rr + i + 1) % n;
          break;
        }
      }
    }
    if (pick) {
      issue(*pick, t);
      if (fault_) return false;
    }
  }
  recompute_next(t);
  return !fault_;
}

void Sm::abandon() {
  for (auto& sc : subs_) {
    sc.warps.clear();
    sc.slots.clear();
    sc.greedy = nullptr;
  }
  warp_pool_.clear();
  std::fill(wake_at_.begin(), wake_at_.end(), kNever);
  ctas_.clear();
  trackers_.clear();
  free_trackers_.clear();
  async_bars_.clear();
  remote_bars_.clear();
  free_remote_.clear();
  miss_queue_.clear();
  miss_head_ = 0;
  for (auto& q : unit_queue_) q.clear();
  l1_.clear_inflight();
  const_.clear_inflight();
  used_threads_ = used_warps_ = used_regs_ = used_smem_ = 0;
  *next_event_ = kNever;
  fault_ = false;
}

}  // namespace warpsim::timing
