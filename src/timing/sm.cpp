#include "timing/sm.hpp"

#include <algorithm>
#include <cmath>

namespace warpsim::timing {

using config::OpClass;
using config::Pipe;
using stats::Stall;

namespace {
bool sm_wide(Pipe p) { return p == Pipe::Mio || p == Pipe::Lsu; }

Stall throttle_of(Pipe p) {
  switch (p) {
    case Pipe::Mio: return Stall::MioThrottle;
    case Pipe::Lsu: return Stall::LgThrottle;
    default: return Stall::MathPipeThrottle;
  }
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
}  // namespace

Sm::Sm(const config::Machine& m, uint32_t id) : m_(m), id_(id), subs_(std::max<uint32_t>(1, m.sub_cores)) {
  for (auto& s : subs_) s.l0i.configure(m.l0i_bytes, m.icache_line, m.l0i_assoc);
  l1i_.configure(m.l1i_bytes, m.icache_line, m.l1i_assoc);
  issue_period_ = m.issue_clock_ratio > 0 && m.issue_clock_ratio < 1 ? uint32_t(std::lround(1.0 / m.issue_clock_ratio)) : 1;
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

void Sm::occupancy_change(uint64_t t) {
  if (t > occ_last_) {
    warp_cycles_ += uint64_t(used_warps_) * (t - occ_last_);
    if (!ctas_.empty()) active_cycles_ += t - occ_last_;
  }
  occ_last_ = std::max(occ_last_, t);
}

void Sm::close(uint64_t t) { occupancy_change(t); }

void Sm::dispatch(KernelRun& k, func::Dim3 cta_id, uint64_t start) {
  occupancy_change(start);
  auto slot = std::make_unique<CtaSlot>();
  slot->kernel = &k;
  slot->stepper = std::make_unique<func::CtaStepper>(*k.module, *k.ls, *k.ecfg, cta_id, id_);
  uint32_t n = slot->stepper->warps();
  used_threads_ += k.fp.threads;
  used_warps_ += k.fp.warps;
  used_regs_ += k.fp.regs;
  used_smem_ += k.fp.smem;
  for (uint32_t i = 0; i < n; ++i) {
    auto w = std::make_unique<WarpCtx>();
    w->cta = slot.get();
    w->warp = i;
    w->age = age_++;
    // Warps go to sub-cores by their slot in the SM, as the hardware assigns warp ids.
    w->sub_core = uint32_t((used_warps_ - k.fp.warps + i) % subs_.size());
    w->sb = Scoreboard(m_.scoreboard_entries);
    w->stall_from = start;
    subs_[w->sub_core].warps.push_back(w.get());
    slot->warps.push_back(w.get());
    warp_pool_.push_back(std::move(w));
  }
  slot->live_warps = n;
  CtaSlot* c = slot.get();
  ctas_.push_back(std::move(slot));
  for (auto* w : c->warps) prepare(*w, start);
  next_event_ = std::min(next_event_, start);
}

uint64_t Sm::unit_free(const SubCore& sc, Pipe p) const {
  return sm_wide(p) ? sm_unit_free_[unsigned(p)] : sc.pipe_free[unsigned(p)];
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
    w.ready_at = kNever;
    return;
  }
  w.waiting = false;
  w.pc = pc;
  const KernelRun& k = *c.kernel;
  w.next = pc < k.timing.size() ? &k.timing[pc] : nullptr;
  const InstrTiming& it = w.next ? *w.next : kDefaultTiming;
  w.sb.retire(now);
  uint64_t dep = 0;
  config::Scoreboard kind = config::Scoreboard::Fixed, kk = kind;
  for (unsigned i = 0; i < it.nsrc; ++i) {
    uint64_t r = w.sb.ready(it.src[i], kk);
    if (r > dep) dep = r, kind = kk;
  }
  for (unsigned i = 0; i < it.ndst; ++i) {  // write after write: keep results in order
    uint64_t r = w.sb.ready(it.dst[i], kk);
    if (r > dep) dep = r, kind = kk;
  }
  if (w.sb.full()) {
    uint64_t r = w.sb.earliest(kk);
    if (r > dep) dep = r, kind = kk;
  }
  w.dep_ready = dep;
  w.dep_reason = dep_stall(kind);
  // Instruction fetch: a new line is looked up in the sub-core's L0, then the SM's L1.
  uint64_t addr = uint64_t(pc) * m_.instr_bytes;
  SubCore& sc = subs_[w.sub_core];
  uint64_t line = addr / std::max<uint32_t>(1, m_.icache_line);
  if (line != w.last_line && sc.l0i.enabled()) {
    w.last_line = line;
    if (!sc.l0i.access(addr)) {
      ++c.kernel->icache_misses;
      w.fetch_ready = now + (l1i_.access(addr) ? m_.l0i_miss_latency : m_.l1i_miss_latency);
    }
  }
  w.ready_at = std::max({now, dep, w.fetch_ready, w.hold_until});
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
  uint64_t free = unit_free(sc, p);
  if (free > t) {
    w.ready_at = free;
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
  func::StepResult r = c.stepper->step(w.warp);
  if (r.fault || k.ls->fault.kind != func::FaultKind::None) {
    fault_ = true;
    k.stopped = true;
    return;
  }
  ++sc.issued;
  // Results and pipe occupancy.
  for (unsigned i = 0; i < it.ndst; ++i) w.sb.write(it.dst[i], t + it.latency, it.sb);
  if (sm_wide(it.pipe)) sm_unit_free_[unsigned(it.pipe)] = t + it.pipe_cycles;
  else sc.pipe_free[unsigned(it.pipe)] = t + it.pipe_cycles;
  // Holds after the instruction.
  w.hold_until = 0;
  switch (it.cls) {
    case OpClass::Branch:
    case OpClass::Call:
      if (r.redirected) {
        w.hold_until = t + 1 + m_.branch_latency;
        w.hold_reason = Stall::BranchResolving;
      }
      break;
    case OpClass::Membar:
      w.hold_until = t + it.latency;
      w.hold_reason = Stall::Membar;
      break;
    case OpClass::Barrier:
      w.hold_until = t + 1 + m_.barrier_latency;
      w.hold_reason = Stall::Barrier;
      break;
    default: break;
  }
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
    if (c.live_warps == 0 || c.stepper->done()) retire_cta(&c, t);
  }
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
        o->ready_at = std::max(o->ready_at, o->hold_until);
      } else if (o->finished) {
        --c.live_warps;
      }
    }
    if (!o->finished && !o->waiting) all_waiting = false;
  }
  if (c.live_warps > 0 && all_waiting && !c.stepper->done()) {
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
    sc.warps.erase(std::remove_if(sc.warps.begin(), sc.warps.end(), [&](WarpCtx* w) { return w->cta == c; }),
                   sc.warps.end());
    if (sc.greedy && sc.greedy->cta == c) sc.greedy = nullptr;
    if (sc.rr >= sc.warps.size()) sc.rr = 0;
  }
  warp_pool_.erase(std::remove_if(warp_pool_.begin(), warp_pool_.end(), [&](auto& w) { return w->cta == c; }),
                   warp_pool_.end());
  ++k.retired_ctas;
  k.end = std::max(k.end, t + 1);
  ++retired_;
  ctas_.erase(std::remove_if(ctas_.begin(), ctas_.end(), [&](auto& p) { return p.get() == c; }), ctas_.end());
}

void Sm::recompute_next(uint64_t t) {
  uint64_t n = kNever;
  for (auto& w : warp_pool_)
    if (!w->finished && !w->waiting) n = std::min(n, std::max(w->ready_at, t + 1));
  if (issue_period_ > 1 && n != kNever) n = (n + issue_period_ - 1) / issue_period_ * issue_period_;
  next_event_ = n;
}

bool Sm::tick(uint64_t t) {
  if (issue_period_ > 1 && t % issue_period_) {
    recompute_next(t);
    return !fault_;
  }
  for (auto& sc : subs_) {
    if (sc.warps.empty()) continue;
    WarpCtx* pick = nullptr;
    if (m_.scheduler == config::SchedulerPolicy::Gto) {
      if (sc.greedy && eligible(*sc.greedy, sc, t)) pick = sc.greedy;
      else
        for (WarpCtx* w : sc.warps)
          if (w != sc.greedy && eligible(*w, sc, t)) {
            pick = w;
            break;
          }
    } else {
      size_t n = sc.warps.size();
      for (size_t i = 0; i < n; ++i) {
        WarpCtx* w = sc.warps[(sc.rr + i) % n];
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
    sc.greedy = nullptr;
  }
  warp_pool_.clear();
  ctas_.clear();
  used_threads_ = used_warps_ = used_regs_ = used_smem_ = 0;
  next_event_ = kNever;
  fault_ = false;
}

}  // namespace warpsim::timing
