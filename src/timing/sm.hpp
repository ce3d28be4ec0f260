// One streaming multiprocessor: its resident CTAs and warps, its sub-cores (processing blocks), each
// with a warp scheduler, an L0 instruction cache and math pipes, the SM-wide MIO and LSU units, and
// the L1 instruction cache. Ticked by the GPU (gpu.cpp) only on cycles where some warp can issue.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "config/machine.hpp"
#include "func/engine.hpp"
#include "stats/kernel_stats.hpp"
#include "stats/memory_stats.hpp"
#include "timing/async_copy.hpp"
#include "timing/fifo.hpp"
#include "timing/icache.hpp"
#include "timing/memory/access_window.hpp"
#include "timing/memory/coalescer.hpp"
#include "timing/memory/const_cache.hpp"
#include "timing/memory/l1_cache.hpp"
#include "timing/memory/memory_system.hpp"
#include "timing/memory/tlb.hpp"
#include "timing/op_class.hpp"
#include "timing/scoreboard.hpp"
#include "timing/sub_core.hpp"

namespace warpsim::timing {

constexpr uint64_t kNever = ~0ull;

// What a CTA of a kernel takes from an SM while it is resident.
struct CtaFootprint {
  uint32_t threads = 0, warps = 0;
  uint32_t regs = 0;   // registers allocated for the CTA (per-warp allocation units)
  uint32_t smem = 0;   // shared memory allocated for the CTA, bytes (incl. the reserved part)
};

// One kernel as the timing model runs it; counters are per kernel.
struct KernelRun {
  const func::LoadedModule* module = nullptr;
  func::LaunchState* ls = nullptr;
  const func::EngineConfig* ecfg = nullptr;
  std::vector<InstrTiming> timing;  // per code index
  // Where the module's code lies in device memory (a physical byte address; Gpu::code_address):
  // instruction-cache fills from L2 are reads of it, so code reaches L2 and DRAM like data.
  uint64_t code_pa = 0;
  bool code_in_memory = false;
  CtaFootprint fp;
  uint32_t max_ctas_per_sm = 1;
  uint32_t smem_per_sm = 0;         // the shared-memory carve-out the kernel runs with
  uint32_t l1_carveout = 0;         // shared-memory bytes of the L1/shared array (the L1 gets the rest)
  AccessWindow window;              // L2 access-policy window
  uint64_t next_cta = 0, total_ctas = 0, retired_ctas = 0;
  bool stopped = false;             // faulted or hit a limit
  uint64_t start = 0, end = 0;
  uint64_t mem_end = 0;             // the last memory response (stores still draining at the end count)
  // counters
  std::array<uint64_t, stats::kStallCount> stalls{};
  uint64_t icache_misses = 0;
  stats::MemoryStats mem;
  stats::MemoryStats ifetch;        // the L2 and DRAM reads of instruction-cache fills (added to mem at the end)
};

struct CtaSlot;
class Sm;

// A thread-block cluster (sm_90) in the timing model: its CTAs, each resident on its own SM of one
// group (Gpu::run places them together and only when all fit), sharing one functional cluster.
// They keep their SM resources (and shared memory, which the others may read) until the last of
// them has finished, as the functional engine keeps them.
struct ClusterLink {
  func::Cluster cluster;
  struct Member {
    Sm* sm = nullptr;
    CtaSlot* slot = nullptr;
  };
  std::vector<Member> members;  // by %cluster_ctarank
  uint32_t finished = 0;        // CTAs whose warps have all finished
  bool retired = false;         // every CTA retired: the link can go
};

// Fields in the order of use: what every issue reads and writes first (two cache lines), then
// the scoreboard, then what only cp.async and bulk copies use.
struct WarpCtx {
  CtaSlot* cta = nullptr;
  const InstrTiming* next = nullptr;
  uint64_t ready_at = 0;   // earliest cycle the next instruction may issue
  uint64_t stall_from = 0; // first cycle not yet attributed to a warp state
  uint64_t hold_until = 0; // post-issue hold (branch, barrier, membar) and its reason (hold_reason)
  uint64_t fetch_ready = 0;
  uint64_t dep_ready = 0;
  uint64_t throttle_until = 0;
  uint64_t last_line = ~0ull;  // instruction-cache line of the last fetch
  uint64_t pf_lo = 0, pf_hi = 0;  // lines [pf_lo, pf_hi) its instruction prefetch stream has requested
  uint64_t uid = 0;            // names the warp to memory responses that may outlive it
  uint64_t age = 0;        // dispatch order, for greedy-then-oldest
  uint32_t warp = 0;       // index within its CTA
  uint32_t sub_core = 0;
  uint32_t pc = 0;
  uint32_t slot = 0;           // warp slot in the SM (its local-memory window)
  bool finished = false;
  bool waiting = false;    // no lane can run (barrier, warp sync, mbarrier): woken by other warps
  stats::Stall hold_reason = stats::Stall::BranchResolving;
  stats::Stall dep_reason = stats::Stall::Wait;
  stats::Stall throttle_reason = stats::Stall::MathPipeThrottle;
  Scoreboard sb;
  AsyncGroups async;           // its cp.async groups
  int32_t async_wait = -1;     // held at cp.async.wait_group N (N), or not held (-1)
  AsyncGroups wgmma;           // its wgmma.mma_async commit groups (done cycles known at issue)
  AsyncGroups bulk;            // its cp.async.bulk groups (shared -> global copies; done times known at issue)
  uint64_t bulk_next_start = 0;  // the earliest start of its next bulk copy ([tma] copy_cycles after its last)
  uint64_t bulk_gate = 0;  // [tma] wait_after_copy: its mbarrier waits are not satisfied before this cycle
};

struct CtaSlot {
  KernelRun* kernel = nullptr;
  std::unique_ptr<func::CtaStepper> stepper;
  std::vector<WarpCtx*> warps;
  uint32_t live_warps = 0;
  ClusterLink* cluster = nullptr;  // its cluster of several CTAs (none: a cluster of one)
  uint32_t rank = 0;               // %cluster_ctarank
  bool finished = false;           // every warp finished (waiting for the rest of its cluster)
  uint64_t cluster_release = 0;    // the cluster barrier's latest completed phase releases its waiters then
};

class Sm : public MemClient {
 public:
  Sm(const config::Machine& m, uint32_t id, MemorySystem* mem = nullptr);
  uint32_t id() const { return id_; }

  bool can_accept(const KernelRun& k) const;
  uint32_t ctas_of(const KernelRun& k) const;  // k's CTAs resident here
  // Makes CTA `cta_id` of kernel k resident; its warps may issue from cycle `start`. With a
  // cluster, the CTA is its member of rank `rank`.
  void dispatch(KernelRun& k, func::Dim3 cta_id, uint64_t start, ClusterLink* cluster = nullptr, uint32_t rank = 0);
  // Another CTA of a cluster did something at cycle `at` - 1 that may let warps of c (resident
  // here) go on: a cluster barrier phase completed (c.cluster_release), a remote store or mbarrier
  // arrive reached c's shared memory. Its waiting warps look again and may issue from `at`.
  void cluster_wake(CtaSlot& c, uint64_t at);
  // The whole cluster of c has finished at cycle t: c leaves the SM.
  void cluster_retire(CtaSlot& c, uint64_t t) { retire_cta(&c, t); }
  // A bulk copy issued on another SM signals the mbarrier at shared offset `addr` of c (resident
  // here): test_wait/try_wait results on it wait for remote_bar_landed (as for this SM's copies).
  void remote_bar_link(CtaSlot& c, uint64_t addr);
  void remote_bar_landed(const void* c, uint64_t addr, uint64_t t);  // c: the CtaSlot (compared, not read: it may have gone)
  // Issues on every sub-core that has an eligible warp at cycle t. Returns false if the kernel of
  // some warp faulted (its LaunchState says how).
  bool tick(uint64_t t);
  // The next cycle something may happen here (kNever when idle).
  uint64_t next_event() const { return *next_event_; }
  // Keeps the next-event cycle in `slot` from now on: the GPU reads every SM's at every step of
  // its clock loop, from one array instead of a cache line of each SM.
  void keep_next_event_in(uint64_t* slot) {
    *slot = *next_event_;
    next_event_ = slot;
  }
  bool idle() const { return ctas_.empty(); }
  // CTAs retired since the last call (the GPU dispatches replacements).
  uint32_t take_retired() {
    uint32_t n = retired_;
    retired_ = 0;
    return n;
  }
  // Occupancy and utilisation integrals, closed at cycle t.
  void close(uint64_t t);
  uint64_t warp_cycles() const { return warp_cycles_; }
  uint64_t active_cycles() const { return active_cycles_; }
  uint32_t resident_warps() const { return used_warps_; }
  const std::vector<SubCore>& sub_cores() const { return subs_; }
  // Drops every resident CTA (after a fault).
  void abandon();
  // A line request of miss-status entry `tag` is back from L2 at cycle t.
  void on_response(uint32_t tag, uint64_t t) override;
  void prefetch_response(uint32_t tag) const override;
  // This SM ticks soon (the GPU's loop is at the SM before it): what every tick reads first, into
  // the host's caches. No effect on the model.
  void prefetch_tick() const {
    __builtin_prefetch(&last_tick_);
    for (const SubCore& sc : subs_) __builtin_prefetch(&sc.next_ready);
    __builtin_prefetch(wake_at_.data());
  }

 private:
  void prepare(WarpCtx& w, uint64_t now);
  void issue(WarpCtx& w, uint64_t t);
  void account(WarpCtx& w, uint64_t t);
  uint64_t fetch_line(KernelRun& k, SubCore& sc, uint64_t line, uint64_t now);  // into the L0 (and L1I): arrival cycle
  uint64_t l1i_fill(KernelRun& k, uint64_t line, uint64_t now);                  // from L2 into the L1I: arrival cycle
  void wake(CtaSlot& c, uint64_t t);
  void retire_cta(CtaSlot* c, uint64_t t);
  // A CTA's warps have all finished: it retires, or, in a cluster, waits for the others.
  void cta_finished(CtaSlot& c, uint64_t t);
  // After warp w of a CTA issued `it` at t: the cluster barrier (a completed phase releases every
  // CTA of the cluster; a wait holds until the release) and the wake-ups its accesses to other
  // CTAs' shared memory cause. phase0: the cluster barrier's phase before the instruction.
  // traced: the instruction's accesses are in trace_.
  void cluster_effects(WarpCtx& w, const InstrTiming& it, uint32_t phase0, uint64_t t, bool traced);
  // Every live warp of the CTA (of its whole cluster) waits, so nothing can release them.
  bool stuck(const CtaSlot& c) const;
  // Loads, stores and atomics on other CTAs' shared memory: over the SM's port to the SM-to-SM
  // network ([cluster]); returns the cycle a load's data is back.
  uint64_t dsmem_issue(WarpCtx& w, const InstrTiming& it, uint64_t t);
  void occupancy_change(uint64_t t);
  bool eligible(WarpCtx& w, SubCore& sc, uint64_t t);
  void recompute_next(uint64_t t);
  void refresh_deps(WarpCtx& w, uint64_t now);
  // Memory instructions: the access trace of the instruction just executed, turned into cycles.
  // Returns the cycle the destination registers are ready, or kNever while they wait on L2.
  uint64_t memory_issue(WarpCtx& w, const InstrTiming& it, uint64_t t);
  // ld.const through the constant caches (when [const_cache] is enabled): one distinct address per
  // cycle; returns the ready cycle, or kNever while a fetch from L2 is outstanding.
  uint64_t const_issue(WarpCtx& w, const InstrTiming& it, uint64_t t);
  // cp.async.bulk: the copy becomes a job of the SM's TMA unit ([tma]); the warp goes on at once.
  uint64_t bulk_issue(WarpCtx& w, const InstrTiming& it, uint64_t t);
  uint64_t translate(uint64_t vaddr, uint64_t t, stats::MemoryStats& ctr);
  void tracker_done(uint32_t id, uint64_t t);
  // cp.async bookkeeping after the instruction at `it` executed (commit, wait, mbarrier arrive and
  // test/try_wait): holds the warp or delays the wait result until the copies it names landed.
  void async_issue(WarpCtx& w, const InstrTiming& it, uint64_t t);
  void wgmma_issue(WarpCtx& w, const InstrTiming& it, uint64_t t);  // wgmma.mma_async / commit_group / wait_group
  uint32_t new_tracker();
  void free_tracker(uint32_t id);  // its instruction is complete; the slot is reused
  uint32_t new_tracker(const WarpCtx& w, const InstrTiming& it, KernelRun& k, uint64_t t);
  uint64_t physical_line(const KernelRun& k, uint64_t va) const;

  // A memory instruction in flight: the warp, the registers it writes, its parts outstanding.
  struct Tracker {
    uint64_t warp_uid = 0;
    const InstrTiming* it = nullptr;
    KernelRun* kernel = nullptr;
    uint32_t pending = 0;
    uint64_t issue = 0, ready = 0;
    bool load = false, async = false, store = false, live = false;
    bool bulk = false;   // a global -> shared bulk copy: its mbarriers learn when it lands
    uint64_t group = 0;  // cp.async: its group in the warp's AsyncGroups
    // cp.async: mbarriers whose phase waits for this copy (cp.async.mbarrier.arrive after it)
    std::array<uint32_t, 2> bars{AsyncBarriers::kNone, AsyncBarriers::kNone};
    const void* cta = nullptr;
    uint32_t remote = ~0u;  // a bulk copy's mbarriers in other CTAs of its cluster (remote_bars_ index)
  };
  // The mbarriers of other CTAs a bulk copy signals (a multicast, or a copy to another CTA's
  // shared memory): their SMs learn when it lands.
  struct RemoteBar {
    Sm* sm;
    CtaSlot* cta;
    uint64_t addr;
  };
  std::vector<std::vector<RemoteBar>> remote_bars_;
  std::vector<uint32_t> free_remote_;
  uint64_t dsmem_port_free_ = 0;  // the SM's port to the SM-to-SM network: its backlog ends here
  struct QueuedMiss {
    uint64_t vline, pline;
    uint32_t sectors;
    uint8_t flags;
    func::L2Hint l2;  // after the access-policy window
    uint32_t tracker;
    stats::MemoryStats* ctr;
    bool write;
    uint64_t at;  // the cycle it was ready to leave (translation and miss path done)
  };
  void send_miss(const QueuedMiss& q, uint64_t t);
  void async_landed(const Tracker& tr, uint64_t t);
  void bars_landed(const Tracker& tr, uint64_t t);  // a copy linked to mbarriers (tr.bars) landed at t
  void release_bar_waiters(AsyncBarriers::Barrier& bar, uint64_t t);  // its copies all landed at t
  void send_entry(const QueuedMiss& q, uint64_t t);

  const config::Machine& m_;
  uint32_t id_;
  std::vector<SubCore> subs_;
  std::array<uint64_t, config::kPipeCount> sm_unit_free_{};  // SM-wide units (mio, lsu): end of their backlog
  uint64_t lsu_pipe_until_ = 0;
  // The TMA unit: the end of the line requests (or shared-memory reads) it has scheduled so far.
  uint64_t tma_lines_until_ = 0;  // end of the LSU data pipe's wavefronts (sm_unit_free_ may say kNever meanwhile)
  // Start cycles of the instructions queued at each SM-wide unit (sm.mio_queue deep).
  std::array<Fifo<uint64_t>, config::kPipeCount> unit_queue_;
  uint64_t unit_accepts(config::Pipe p, uint64_t t);
  InstructionCache l1i_;
  uint64_t l1i_next_fill_ = 0;      // earliest arrival of the next line from L2 (sm.icache.l1i_fill_interval)
  MemorySystem* mem_ = nullptr;
  L1Cache l1_;
  uint32_t l1_carveout_ = ~0u;      // shared-memory carve-out the L1 is sized for
  Tlb l1tlb_;
  ConstCache const_;                // constant L1 + L1.5 (disabled without a memory system)
  func::MemTrace trace_;
  AsyncBarriers async_bars_;
  std::vector<LineAccess> lines_;
  std::vector<func::MemAccess> global_acc_;  // memory_issue: the global/local accesses to coalesce
  std::vector<uint32_t> waiters_;            // on_response: the trackers a completed entry wakes
  std::vector<uint64_t> const_addrs_;        // const_issue: the distinct addresses of an ld.const
  std::vector<Tracker> trackers_;
  std::vector<uint32_t> free_trackers_;
  std::vector<QueuedMiss> miss_queue_;  // misses waiting for a miss-status entry (FIFO)
  size_t miss_head_ = 0;
  // A warp's uid: a count in the high bits, its warp slot in the low ones, so that a response finds
  // its warp (or learns it is gone) without a map.
  static constexpr unsigned kUidSlotBits = 16;
  uint64_t next_uid_ = 1;
  WarpCtx* warp_by_uid(uint64_t uid) {
    const uint64_t ws = uid & ((1u << kUidSlotBits) - 1);
    if (ws >= slots_.size() || !slot_used_[ws] || slots_[ws].uid != uid) return nullptr;
    return &slots_[ws];
  }
  std::vector<bool> slot_used_;
  std::vector<std::unique_ptr<CtaSlot>> ctas_;
  // Warp contexts, one per warp slot, contiguous (the scheduler scans them every cycle) and never
  // moved: the capacity is the SM's warp limit, reserved at construction.
  std::vector<WarpCtx> slots_;
  std::vector<WarpCtx*> warp_pool_;  // the resident warps, in dispatch order
  // Per warp slot: its warp's ready_at while it is resident (kNever when free), and its sub-core.
  // Every write of ready_at goes through set_ready, so recompute_next reads these alone.
  std::vector<uint64_t> wake_at_;
  std::vector<uint32_t> slot_sub_;
  void set_ready(WarpCtx& w, uint64_t at) {
    w.ready_at = at;
    wake_at_[w.slot] = at;
  }
  uint64_t age_ = 0;
  uint32_t used_threads_ = 0, used_warps_ = 0, used_regs_ = 0, used_smem_ = 0;
  uint32_t retired_ = 0;
  uint64_t own_next_event_ = kNever;
  uint64_t* next_event_ = &own_next_event_;
  uint32_t issue_period_ = 1;
  uint64_t last_tick_ = 0;
  uint64_t woken_ = ~0ull;  // earliest ready_at among warps refreshed by the current response
  bool ticked_ = false;
  bool fault_ = false;
  // occupancy integrals
  uint64_t occ_last_ = 0, warp_cycles_ = 0, active_cycles_ = 0;
};

}  // namespace warpsim::timing
