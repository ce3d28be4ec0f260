#include "timing/gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <numeric>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace warpsim::timing {

namespace {
// A bit per SM of next[0..n) (n <= 64): its next event is due at cycle t. The clock loop asks at
// every step, so where the host has AVX2 four SMs are compared per instruction (unsigned compare
// as signed after flipping the sign bits); the answer is the same either way.
uint64_t due_bits_scalar(const uint64_t* next, uint32_t n, uint64_t t) {
  uint64_t bits = 0;
  for (uint32_t j = 0; j < n; ++j) bits |= uint64_t(next[j] <= t) << j;
  return bits;
}
#if defined(__x86_64__)
__attribute__((target("avx2"))) uint64_t due_bits_avx2(const uint64_t* next, uint32_t n, uint64_t t) {
  const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
  const __m256i tv = _mm256_xor_si256(_mm256_set1_epi64x(int64_t(t)), sign);
  uint64_t late = 0;  // next > t
  uint32_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const __m256i v = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(next + j)), sign);
    late |= uint64_t(unsigned(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(v, tv))))) << j;
  }
  uint64_t bits = ~late & (j == 64 ? ~0ull : (1ull << j) - 1);
  return bits | (j < n ? due_bits_scalar(next + j, n - j, t) << j : 0);
}
// (Initialised before main, possibly before libgcc's own CPU detection has run: hence the init.)
const bool kHostAvx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();
#endif
uint64_t due_bits(const uint64_t* next, uint32_t n, uint64_t t) {
#if defined(__x86_64__)
  if (kHostAvx2) return due_bits_avx2(next, n, t);
#endif
  return due_bits_scalar(next, n, t);
}
}  // namespace

Gpu::Gpu(const config::Machine& m) : m_(m), mem_(std::make_unique<MemorySystem>(m)) {
  // Cluster groups: the measured SM groups (cudaOccupancyMaxActiveClusters' answers fit no other
  // layout, configs/h100.toml), else the GPCs, else the whole GPU; SM ids in order within each.
  {
    std::vector<uint32_t> sizes = m.cluster_sm_groups;
    if (sizes.empty())
      for (uint32_t t : m.tpcs_per_gpc) sizes.push_back(t * m.sms_per_tpc);
    uint32_t next = 0;
    for (uint32_t g : sizes) {
      std::vector<uint32_t> ids;
      for (uint32_t i = 0; i < g && next < m.sms; ++i) ids.push_back(next++);
      if (!ids.empty()) groups_.push_back(std::move(ids));
    }
    if (groups_.empty() && m.sms) {
      groups_.emplace_back(m.sms);
      std::iota(groups_.back().begin(), groups_.back().end(), 0u);
    }
  }
  uint32_t total = 0;
  for (uint32_t t : m.tpcs_per_gpc) total += t * m.sms_per_tpc;
  if (total != m.sms || m.tpcs_per_gpc.empty()) {
    order_.resize(m.sms);
    std::iota(order_.begin(), order_.end(), 0u);
    return;
  }
  // SM ids run GPC by GPC, TPC by TPC; the distributor takes one SM of each TPC of every GPC in
  // turn, so a small grid spreads over all GPCs and TPCs before doubling up.
  std::vector<uint32_t> first(m.tpcs_per_gpc.size());
  for (size_t g = 1; g < first.size(); ++g) first[g] = first[g - 1] + m.tpcs_per_gpc[g - 1] * m.sms_per_tpc;
  uint32_t max_tpc = *std::max_element(m.tpcs_per_gpc.begin(), m.tpcs_per_gpc.end());
  for (uint32_t s = 0; s < m.sms_per_tpc; ++s)
    for (uint32_t j = 0; j < max_tpc; ++j)
      for (size_t g = 0; g < first.size(); ++g)
        if (j < m.tpcs_per_gpc[g]) order_.push_back(first[g] + j * m.sms_per_tpc + s);
}

Gpu::~Gpu() = default;

void Gpu::flush_caches() {
  mem_->flush_l2(now_);
  now_ = std::max(now_, mem_->now() + 1);
}

namespace {

uint32_t ctas_per_sm_limit(const config::Machine& m, const CtaFootprint& fp, uint32_t smem_per_sm) {
  uint32_t n = m.max_ctas;
  if (fp.threads) n = std::min(n, m.max_threads / fp.threads);
  if (fp.warps) n = std::min(n, m.max_warps / fp.warps);
  if (fp.regs) n = std::min(n, m.registers / fp.regs);
  uint32_t cap = smem_per_sm ? smem_per_sm : m.max_shared_per_sm;
  if (fp.smem) n = std::min(n, cap / fp.smem);
  return n;
}

}  // namespace

uint64_t Gpu::code_address(const void* module, uint64_t code_bytes) {
  if (auto it = code_pa_.find(module); it != code_pa_.end()) return it->second;
  constexpr uint64_t kRegion = uint64_t(256) << 20, kPage = uint64_t(64) << 10;
  const uint64_t region = std::min(kRegion, m_.global_mem_bytes);
  const uint64_t base = m_.global_mem_bytes - region;
  const uint64_t size = std::min(region, (code_bytes + kPage - 1) / kPage * kPage);
  if (code_next_ + size > region) code_next_ = 0;
  const uint64_t pa = base + code_next_;
  code_next_ += size;
  code_pa_.emplace(module, pa);
  return pa;
}

std::vector<stats::KernelStats> Gpu::run(std::vector<KernelLaunch*> launches) {
  // The thread-block clusters resident now (declared first: they outlive the SMs' CTA slots).
  std::vector<std::unique_ptr<ClusterLink>> clusters;
  std::vector<std::unique_ptr<Sm>> sms;
  for (uint32_t i = 0; i < m_.sms; ++i) sms.push_back(std::make_unique<Sm>(m_, i, mem_.get()));
  // Every SM's next event, side by side: the loop below reads them all at every step.
  std::vector<uint64_t> sm_next(sms.size(), kNever);
  for (size_t i = 0; i < sms.size(); ++i) sms[i]->keep_next_event_in(&sm_next[i]);
  std::vector<uint32_t> due;
  due.reserve(sms.size());
  const uint64_t base = now_;
  std::vector<std::unique_ptr<KernelRun>> runs;
  std::vector<stats::KernelStats> out(launches.size());
  for (size_t i = 0; i < launches.size(); ++i) {
    KernelLaunch& l = *launches[i];
    auto r = std::make_unique<KernelRun>();
    r->module = l.module;
    r->ls = l.ls;
    r->ecfg = l.ecfg;
    r->timing = classify_program(l.module->prog, m_);
    if (m_.global_mem_bytes) {
      r->code_pa = code_address(l.module, uint64_t(r->timing.size()) * m_.instr_bytes);
      r->code_in_memory = true;
    }
    r->fp = l.fp;
    r->smem_per_sm = l.smem_per_sm;
    r->window = l.window;
    uint32_t lim = ctas_per_sm_limit(m_, l.fp, l.smem_per_sm);
    r->max_ctas_per_sm = l.max_ctas_per_sm ? std::min(l.max_ctas_per_sm, lim) : lim;
    r->total_ctas = l.ls->grid.count();
    r->start = base;
    l.ls->ns_per_clock = m_.sm_clock_mhz > 0 ? 1e3 / m_.sm_clock_mhz : 0;
    size_t widest = 0;
    for (auto& g : groups_) widest = std::max(widest, g.size());
    if (r->max_ctas_per_sm != 0 && l.ls->cluster.count() > widest) {
      l.ls->fault.kind = func::FaultKind::IllegalInstruction;
      l.ls->fault.message = fmt::format("a cluster of {} CTAs does not fit: the {}'s largest group of SMs has {}",
                                        l.ls->cluster.count(), m_.name, widest);
      r->stopped = true;
    }
    if (r->max_ctas_per_sm == 0) {
      l.ls->fault.kind = func::FaultKind::IllegalInstruction;
      l.ls->fault.message = fmt::format(
          "a block of {} threads needing {} registers and {} bytes of shared memory does not fit on one SM of the {}",
          l.fp.threads, l.fp.regs, l.fp.smem, m_.name);
      r->stopped = true;
    }
    runs.push_back(std::move(r));
  }

  size_t rr = 0;
  auto cta_id = [](const func::Dim3& g, uint64_t i) {
    return func::Dim3{uint32_t(i % g.x), uint32_t((i / g.x) % g.y), uint32_t(i / (uint64_t(g.x) * g.y))};
  };
  // A thread-block cluster goes to `csize` distinct SMs of one group, all at once, when that many
  // SMs of a group can take a CTA (no partial cluster waits resident); the least loaded SMs of
  // the group first, groups in turn. An SM holds at most gpu.cluster_ctas_per_sm CTAs of
  // clusters. This is the rule cudaOccupancyMaxActiveClusters counts (cudart/api_device.cpp).
  size_t grr = 0;
  std::vector<uint32_t> cand;
  // The work distributor starts CTAs one after another, sm.latency.cta_dispatch_interval cycles
  // apart over the whole GPU (the H100 measured: validation/libtime/probes/cta_rate.cu): a grid of
  // many short CTAs waits for it rather than for free SM slots. A slot is taken when its CTA is
  // assigned and the CTA starts at its turn (a cluster's CTAs together, after csize turns).
  double dispatch_free = double(base);
  auto dispatch_at = [&](uint64_t when, uint32_t ctas) -> uint64_t {
    if (m_.cta_dispatch_interval <= 0) return when;
    const double at = std::max(double(when), dispatch_free);
    dispatch_free = at + m_.cta_dispatch_interval * ctas;
    return uint64_t(std::ceil(at));
  };
  auto place_cluster = [&](KernelRun& r, uint64_t when) {
    const func::Dim3 cdim = r.ls->cluster, grid = r.ls->grid;
    const uint32_t csize = uint32_t(cdim.count());
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      const auto& g = groups_[(grr + gi) % groups_.size()];
      if (g.size() < csize) continue;
      cand.clear();
      for (uint32_t s : g)
        if (sms[s]->can_accept(r) && (!m_.cluster_ctas_per_sm || sms[s]->ctas_of(r) < m_.cluster_ctas_per_sm))
          cand.push_back(s);
      if (cand.size() < csize) continue;
      std::stable_sort(cand.begin(), cand.end(),
                       [&](uint32_t a, uint32_t b) { return sms[a]->ctas_of(r) < sms[b]->ctas_of(r); });
      const func::Dim3 cgrid{grid.x / cdim.x, grid.y / cdim.y, grid.z / cdim.z};
      const uint64_t q = r.next_cta / csize;  // clusters in x, y, z order of %clusterid
      const func::Dim3 cid{uint32_t(q % cgrid.x), uint32_t(q / cgrid.x % cgrid.y),
                           uint32_t(q / (uint64_t(cgrid.x) * cgrid.y))};
      const uint64_t start = dispatch_at(when, csize);
      auto link = std::make_unique<ClusterLink>();
      link->cluster.dims = cdim;
      link->cluster.id = cid;
      link->cluster.ctas.assign(csize, nullptr);
      link->members.resize(csize);
      for (uint32_t rank = 0; rank < csize; ++rank) {
        const func::Dim3 id{cid.x * cdim.x + rank % cdim.x, cid.y * cdim.y + rank / cdim.x % cdim.y,
                            cid.z * cdim.z + rank / (cdim.x * cdim.y)};
        sms[cand[rank]]->dispatch(r, id, start, link.get(), rank);
      }
      clusters.push_back(std::move(link));
      r.next_cta += csize;
      grr = (grr + gi + 1) % groups_.size();
      return true;
    }
    return false;
  };
  auto distribute = [&](uint64_t when) {
    clusters.erase(std::remove_if(clusters.begin(), clusters.end(), [](auto& c) { return c->retired; }), clusters.end());
    for (auto& r : runs) {
      if (r->ls->cluster.count() > 1) {
        while (!r->stopped && r->next_cta < r->total_ctas && place_cluster(*r, when)) {
        }
        continue;
      }
      while (!r->stopped && r->next_cta < r->total_ctas) {
        bool placed = false;
        for (size_t p = 0; p < order_.size(); ++p) {
          Sm& sm = *sms[order_[(rr + p) % order_.size()]];
          if (sm.can_accept(*r)) {
            sm.dispatch(*r, cta_id(r->ls->grid, r->next_cta), dispatch_at(when, 1));
            ++r->next_cta;
            rr = (rr + p + 1) % order_.size();
            placed = true;
            break;
          }
        }
        if (!placed) break;
      }
    }
  };
  // The shared-memory carve-out the driver picks: the smallest one holding the CTAs the kernel can
  // keep resident, or the program's preferred carve-out if larger (the L1 gets the rest of the
  // unified array). sm.carveout_min_per_cta / carveout_min_cap (the H100's driver, measured:
  // configs/h100.toml) keep at least that much per resident CTA, up to the cap.
  for (size_t i = 0; i < runs.size(); ++i) {
    auto& r = runs[i];
    const uint64_t ctas = r->max_ctas_per_sm;
    const uint64_t floor = std::min<uint64_t>(ctas * m_.carveout_min_per_cta, m_.carveout_min_cap);
    uint64_t need = std::max<uint64_t>({ctas * r->fp.smem, floor, launches[i]->preferred_carveout});
    uint32_t carve = m_.max_shared_per_sm;
    for (uint32_t kb : m_.shared_carveouts_kb)
      if (uint64_t(kb) * 1024 >= need) {
        carve = kb * 1024;
        break;
      }
    if (r->smem_per_sm && r->smem_per_sm > carve) carve = r->smem_per_sm;
    r->l1_carveout = std::min(carve, m_.l1_shared_bytes);
  }
  distribute(base);

  uint64_t t = base, next_progress = 0;
  bool faulted = false;
  // Cumulative counters for the timeline: this run's kernels on top of the earlier runs'.
  auto add_runs = [&](uint64_t& instrs, uint64_t& l1, uint64_t& l2) {
    for (auto& r : runs) {
      instrs += r->ls->warp_instrs;
      l1 += r->mem.l1_global_ld_sectors + r->mem.l1_global_st_sectors + r->mem.l1_local_sectors;
      l2 += r->mem.l2_sectors_read + r->mem.l2_sectors_write + r->mem.l2_sectors_atom + r->ifetch.l2_sectors_read;
    }
  };
  auto sample = [&](uint64_t at) {
    TimelineSample s;
    s.cycle = at;
    s.warp_instrs = timeline_instrs_;
    s.l1_sectors = timeline_l1_;
    s.l2_sectors = timeline_l2_;
    add_runs(s.warp_instrs, s.l1_sectors, s.l2_sectors);
    for (auto& sm : sms) s.warps += sm->resident_warps();
    mem_->dram_bytes(s.dram_read, s.dram_written);
    timeline_.push_back(s);
  };
  if (timeline_every_) {
    sample(base);
    timeline_.back().run_start = true;
    timeline_next_ = base + timeline_every_;
  }
  for (;;) {
    bool all_done = true;
    for (auto& r : runs)
      if (!r->stopped && r->retired_ctas < r->total_ctas) all_done = false;
    if (all_done) break;
    uint64_t next = kNever;
    for (uint64_t n : sm_next) next = std::min(next, n);
    const uint64_t mem_next = mem_->next_event();
    if (next == kNever && mem_next == kNever) {
      // Nothing can ever issue again and no memory request is in flight: unfinished kernels are
      // stuck (barrier deadlocks are reported by the SM with their details; this catches the rest).
      for (auto& r : runs)
        if (!r->stopped && r->retired_ctas < r->total_ctas && r->ls->fault.kind == func::FaultKind::None) {
          r->ls->fault.kind = func::FaultKind::Deadlock;
          r->ls->fault.message = fmt::format("no warp can issue and no memory request is in flight ({} of {} CTAs done)",
                                             r->retired_ctas, r->total_ctas);
          r->stopped = true;
          faulted = true;
        }
      break;
    }
    t = std::max(t, std::min(next, mem_next));
    if (timeline_every_)
      while (timeline_next_ <= t) sample(timeline_next_), timeline_next_ += timeline_every_;
    // Memory events of this cycle first: responses may make warps ready in it.
    mem_->advance(t);
    uint32_t retired = 0;
    // The SMs due now, in index order (a tick changes only its own SM's next event, so the list
    // stays what a check at each SM's turn would find). Each SM's first touches miss the host's
    // caches: the next one due is prefetched while one ticks.
    // (Branch-free: a bit per SM, 64 at a time, then the set bits in order.)
    due.clear();
    for (uint32_t w = 0; w < sm_next.size(); w += 64) {
      const uint32_t n = std::min<uint32_t>(64, uint32_t(sm_next.size()) - w);
      for (uint64_t bits = due_bits(&sm_next[w], n, t); bits; bits &= bits - 1) due.push_back(w + uint32_t(std::countr_zero(bits)));
    }
    for (size_t d = 0; d < due.size(); ++d) {
      if (d + 1 < due.size()) sms[due[d + 1]]->prefetch_tick();
      Sm* s = sms[due[d]].get();
      if (!s->tick(t)) {
        faulted = true;
        break;
      }
      retired += s->take_retired();
    }
    if (faulted) break;
    if (retired) distribute(t + 1 + m_.cta_launch_latency);
    for (size_t i = 0; i < runs.size(); ++i) {
      KernelRun& r = *runs[i];
      uint64_t lim = r.ecfg->max_warp_instructions;
      if (lim && r.ls->warp_instrs >= lim && r.ls->fault.kind == func::FaultKind::None) {
        r.ls->fault.kind = func::FaultKind::InstructionLimit;
        r.ls->fault.message = fmt::format("stopped after {} warp instructions (limit set by the user)", r.ls->warp_instrs);
        faulted = true;
      }
      if (launches[i]->progress && r.ls->warp_instrs >= next_progress) {
        launches[i]->progress(r.retired_ctas, r.total_ctas, r.ls->warp_instrs);
        next_progress = r.ls->warp_instrs + launches[i]->progress_every;
      }
    }
    if (faulted) break;
  }
  for (auto& s : sms) s->close(t + 1);
  // Requests still in flight (stores draining to L2) finish; a kernel ends when its last store is
  // acknowledged. Then the SMs go, and so do the counters requests would still carry.
  if (!faulted) mem_->drain();
  for (auto& r : runs)
    if (r->mem_end > r->end && r->end) t = std::max(t, r->mem_end), r->end = r->mem_end;
  mem_->detach_all();
  mem_->drain();
  // The next run starts after everything this one left in flight (write-backs included).
  now_ = std::max(t + 1, mem_->now() + 1);
  if (timeline_every_) {
    sample(now_);
    timeline_.back().warps = 0;
    add_runs(timeline_instrs_, timeline_l1_, timeline_l2_);
  }

  // Statistics.
  uint64_t warp_cycles = 0, active = 0;
  uint32_t used = 0;
  for (auto& s : sms) {
    warp_cycles += s->warp_cycles();
    active += s->active_cycles();
    if (s->active_cycles()) ++used;
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    KernelRun& r = *runs[i];
    stats::KernelStats& st = out[i];
    st.gpu = m_.name;
    st.clock_mhz = m_.sm_clock_mhz;
    st.cycles = r.end > r.start ? r.end - r.start : (faulted ? t - r.start : 0);
    st.launch_cycles = m_.kernel_launch_cycles;
    st.warp_instrs = r.ls->warp_instrs;
    st.thread_instrs = r.ls->thread_instrs;
    st.ctas = r.total_ctas;
    st.sms = m_.sms;
    st.sms_used = used;
    st.sub_cores = uint32_t(std::max<uint32_t>(1, m_.sub_cores));
    st.ctas_per_sm = r.max_ctas_per_sm;
    st.warps_per_cta = r.fp.warps;
    st.max_warps_per_sm = m_.max_warps;
    st.stalls = r.stalls;
    st.icache_misses = r.icache_misses;
    st.mem = r.mem;
    st.mem.add_ifetch(r.ifetch);
    double cyc = st.cycles ? double(st.cycles) : 1.0;
    st.ipc = double(st.warp_instrs) / cyc / double(m_.sms ? m_.sms : 1);
    st.achieved_occupancy = active ? double(warp_cycles) / (double(active) * m_.max_warps) : 0;
    st.theoretical_occupancy = std::min(1.0, double(r.max_ctas_per_sm) * r.fp.warps / m_.max_warps);
    st.simt_efficiency = st.warp_instrs ? double(st.thread_instrs) / (32.0 * double(st.warp_instrs)) : 0;
    std::vector<double> per(st.sub_cores, 0.0);
    double sum = 0;
    for (auto& s : sms)
      for (size_t j = 0; j < s->sub_cores().size() && j < per.size(); ++j) {
        double u = double(s->sub_cores()[j].issued) / cyc;
        per[j] += u / double(m_.sms);
        sum += u;
      }
    st.issue_utilisation_per_sub_core = per;
    st.issue_utilisation = sum / double(std::max<size_t>(1, size_t(m_.sms) * st.sub_cores));
  }
  return out;
}

}  // namespace warpsim::timing
