#include "timing/memory/memory_system.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <deque>

#include "timing/event_wheel.hpp"
#include "timing/free_slots.hpp"
#include "timing/memory/l2_slice.hpp"

namespace warpsim::timing {

// The L2 partitions as the A100's pointer-chase plateaus show them ([GB]: 213 cycles up to 20 MB,
// 426 from 20 to 40 MB, DRAM beyond): each partition caches what its own GPCs read (a line read
// through the other partition is copied, so data read by all SMs ends up in both), and lines it
// evicts move to the other partition (a victim level), so one SM sees a 20 MB near level and
// behind it a 20 MB far level one hop away. A line has a slice index (an address hash) and lives
// in that slice of either partition or both. Writes and atomics land in the near copy and drop
// the far one. DRAM channels are chosen by another hash of the address, independent of slices.

namespace {
constexpr uint64_t kNone = ~0ull;

// Send/Respond book the crossbar when the message is ready, so ports are booked in time order.
enum class Ev : uint8_t { Send, AtSlice, FarProbe, FarReturn, Respond, AtSm, ToDram };

struct Event {
  uint64_t t;
  uint64_t seq;
  Ev type;
  uint32_t req;
  uint32_t slice;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct Req {
  MemRequest r;
  uint32_t entry_slice = 0;  // the slice in the SM's partition that serves it
  bool forwarded = false;    // an atomic sent on to its line's home partition
  uint64_t ready = 0;        // its answer's cycle so far
  uint32_t hit = 0;          // far probes: sectors the far partition had
  uint32_t joined = 0;       // far probes: sectors the far partition is fetching from DRAM already
};

struct DramTxn {
  uint32_t slice;    // the slice to fill (reads)
  uint64_t line;
  uint32_t sectors;  // one sector, or an aligned pair moved as one 64-B access
  bool write;
  stats::MemoryStats* ctr;  // the kernel charged for it (row outcome at completion)
};

uint64_t mix(uint64_t h, uint64_t k) {
  h ^= h >> 31;
  h *= k;
  h ^= h >> 29;
  return h;
}
}  // namespace

struct MemorySystem::Impl {
  const config::Machine& m;
  std::vector<MemClient*> clients;
  std::vector<uint32_t> sm_gpc, sm_group;
  uint32_t parts = 1, per_part = 1;
  bool l2_on = false;
  Crossbar xbar;
  std::vector<L2Slice> slices;
  std::vector<std::unique_ptr<dram::Controller>> ctrls;
  std::vector<uint64_t> cnext;  // each controller's next_event(), refreshed after every call into it
  // Their minimum, recomputed only when the controller that held it moved later (asked for at
  // every memory event).
  mutable uint64_t cmin = kNone;
  mutable bool cmin_stale = false;
  // DRAM transactions not yet accepted, per controller: reads and writes queue apart so that a
  // full write queue does not hold reads back (and the reverse).
  std::vector<std::deque<uint32_t>> ctrl_reads, ctrl_writes;
  std::vector<Tlb> l2tlb;
  std::vector<std::vector<uint64_t>> walkers;
  EventWheel<Event> q;
  uint64_t seq = 0;
  uint64_t now = 0;  // the last cycle advance() reached
  std::vector<Req> reqs;
  std::vector<uint32_t> free_reqs;
  std::vector<DramTxn> txns;
  std::vector<uint32_t> free_txns;
  std::vector<dram::Completion> done;
  // Diagnostics: with WARPSIM_MEM_SAMPLE=N in the environment, every N cycles one line on stderr
  // of what the memory system did since the previous line: DRAM bytes read/written per cycle and
  // as a share of the peak, row hits / misses / conflicts and read-to-write turnarounds (requests
  // first served), mean DRAM read latency and queueing (cycles from the controller's queue), and the
  // state now: requests in flight, controller queues, transactions waiting to enter them, DRAM
  // transactions in flight per slice (sum), requests stalled at slices (l2.max_outstanding) and L2
  // misses in flight. This is how docs/validation-mem.md finds what bounds a bandwidth.
  uint64_t sample_every = 0, sample_next = 0, sample_from = 0;
  dram::ControllerStats sample_prev{};
  void sample(uint64_t t) {
    dram::ControllerStats a{};
    size_t queued = 0, wait_r = 0, wait_w = 0, stalled = 0, outstanding = 0, misses = 0;
    for (size_t c = 0; c < ctrls.size(); ++c) {
      const dram::ControllerStats& x = ctrls[c]->stats();
      a.reads += x.reads;
      a.writes += x.writes;
      a.bytes_read += x.bytes_read;
      a.bytes_written += x.bytes_written;
      a.row_hits += x.row_hits;
      a.row_misses += x.row_misses;
      a.row_conflicts += x.row_conflicts;
      a.read_to_write_turnarounds += x.read_to_write_turnarounds;
      a.read_latency_sum += x.read_latency_sum;
      a.queue_latency_sum += x.queue_latency_sum;
      queued += ctrls[c]->queued();
      wait_r += ctrl_reads[c].size();
      wait_w += ctrl_writes[c].size();
    }
    for (const L2Slice& sl : slices) {
      stalled += sl.stalled.size();
      outstanding += sl.outstanding;
      misses += sl.misses();
    }
    const double dt = double(std::max<uint64_t>(1, t - sample_from));
    const auto& d = m.dram;
    const double peak = double(d.controllers) * d.channels_per_controller * d.pseudo_channels * d.bus_bits_per_pseudo_channel /
                        8 * 2 * m.mem_clock_mhz / m.sm_clock_mhz;
    const double rb = double(a.bytes_read - sample_prev.bytes_read), wb = double(a.bytes_written - sample_prev.bytes_written);
    const double rd = double(a.reads - sample_prev.reads), all = rd + double(a.writes - sample_prev.writes);
    std::fprintf(stderr,
                 "warpsim: mem t=%llu in_flight=%zu dram_read_B/clk=%.0f write_B/clk=%.0f (%.1f%% of peak) row_hits=%llu "
                 "misses=%llu conflicts=%llu rd_to_wr=%llu read_latency=%.0f queueing=%.0f | ctrl_queued=%zu "
                 "waiting_r=%zu waiting_w=%zu slice_dram_txns=%zu slice_stalled=%zu l2_misses=%zu\n",
                 (unsigned long long)t, reqs.size() - free_reqs.size(), rb / dt, wb / dt, 100.0 * (rb + wb) / dt / peak,
                 (unsigned long long)(a.row_hits - sample_prev.row_hits), (unsigned long long)(a.row_misses - sample_prev.row_misses),
                 (unsigned long long)(a.row_conflicts - sample_prev.row_conflicts),
                 (unsigned long long)(a.read_to_write_turnarounds - sample_prev.read_to_write_turnarounds),
                 rd ? double(a.read_latency_sum - sample_prev.read_latency_sum) / rd : 0.0,
                 all ? double(a.queue_latency_sum - sample_prev.queue_latency_sum) / all : 0.0, queued, wait_r, wait_w,
                 outstanding, stalled, misses);
    sample_prev = a;
    sample_from = t;
  }

  // A tag lookup (one L2 clock) in the slice port's ticks (L2Slice::kTick), set once: every
  // request at a slice pays it.
  const uint64_t tag_ticks;
  explicit Impl(const config::Machine& mm)
      : m(mm),
        tag_ticks(mm.l2.clock_mhz ? uint64_t(double(L2Slice::kTick) * mm.sm_clock_mhz / mm.l2.clock_mhz + 0.5) : L2Slice::kTick) {}

  // The host side of the event loop: thousands of requests in flight keep their records (and the
  // L2 tags they are about to look up) far apart in memory, and each event's first touch of them
  // was a cache miss. While an event is processed, the records of the next two in the cycle and
  // the tag set the next one looks up are brought in. No effect on the model.
  void prefetch_ahead() const {
    // Three events ahead: the record; two: (the record is in) the index of the tag set an L2
    // lookup will read; one: (the index is in) the set's ways, or what an SM's response reads.
    auto looks_up = [&](const Event* n) { return l2_on && (n->type == Ev::AtSlice || n->type == Ev::FarProbe); };
    if (const Event* n = q.ahead(2)) {
      const char* p = n->type == Ev::ToDram ? reinterpret_cast<const char*>(&txns[n->req])
                                            : reinterpret_cast<const char*>(&reqs[n->req]);
      __builtin_prefetch(p);
      __builtin_prefetch(p + 63);
    }
    if (const Event* n = q.ahead(1); n && looks_up(n)) slices[n->slice].tags.prefetch_index(reqs[n->req].r.line);
    if (const Event* n = q.ahead(0)) {
      if (looks_up(n)) {
        slices[n->slice].tags.prefetch(reqs[n->req].r.line);
      } else if (n->type == Ev::AtSm) {
        const MemRequest& r = reqs[n->req].r;
        if (r.sm < clients.size() && clients[r.sm]) clients[r.sm]->prefetch_response(r.tag);
      }
    }
    // The bucket's events further on, read in turn by the next pops.
    if (const Event* n = q.ahead(5)) __builtin_prefetch(n);
  }

  uint32_t new_req(const MemRequest& r) {
    const uint32_t id = take_slot(reqs, free_reqs);
    reqs[id] = Req{};
    reqs[id].r = r;
    return id;
  }
  void free_req(uint32_t id) { free_reqs.push_back(id); }
  void push(Ev type, uint64_t t, uint32_t req, uint32_t slice) { q.push(Event{t, seq++, type, req, slice}); }

  // The slice of a line within a partition: a hash of the line, or (l2.set_mapping = "even") one
  // line of each run of per_part consecutive lines per slice, in an order rotated by a hash of the
  // run (so a contiguous range loads the slices evenly and strides still spread over them).
  uint32_t slice_index(uint64_t line) const {
    if (m.l2.even_map)
      return uint32_t((line % per_part + mix((line / per_part) ^ 0x27d4eb2f165667c5ull, 0x94d049bb133111ebull)) % per_part);
    return uint32_t(mix(line, 0x9e3779b97f4a7c15ull) % per_part);
  }
  uint32_t slice_in(uint32_t part, uint64_t line) const { return part * per_part + slice_index(line); }
  uint32_t other(uint32_t s) const { return parts > 1 ? ((s / per_part + 1) % parts) * per_part + s % per_part : s; }
  // The controller of a line: each run of `controllers` consecutive lines has one line in every
  // controller, in an order rotated by a hash of the run's index (so strides spread over all
  // controllers). That keeps the controller-local address (line / controllers, see
  // controller_local_address) one-to-one: a hash of the line alone sent about a third of each
  // run's lines onto the local address of another line of the run and left a third of the local
  // addresses unused, so a DRAM row held fewer of the lines streamed through it.
  uint32_t ctrl_of(uint64_t line) const {
    const uint64_t n = ctrls.size();
    return uint32_t((line % n + mix((line / n) ^ 0x5bd1e995ull, 0xff51afd7ed558ccdull)) % n);
  }
  uint32_t sector_bytes() const { return m.l2.sector; }
  // Every aligned group of l2.fetch_sectors sectors with a sector in `s`, whole.
  uint32_t fetch_group(uint32_t s) const {
    const uint32_t g = m.l2.fetch_sectors, n = m.l2.line / m.l2.sector;
    const uint32_t ones = g >= 32 ? ~0u : (1u << g) - 1;
    uint32_t out = 0;
    for (uint32_t b = 0; b < n; b += g)
      if (s & (ones << b)) out |= ones << b;
    return out;
  }
  // An atomic resolves in its line's home partition (the point of coherence): Nsight Compute on
  // the H100 counts 1.5 L2 requests per atomic request and half the atomic sectors through the
  // partition fabric (validation/mem/h100_atomics_shape_ncu.txt). Which lines are whose is a hash
  // here (not published).
  uint32_t home_part(uint64_t line) const { return uint32_t(mix(line ^ 0x632be59bd9b4e019ull, 0xc2b2ae3d27d4eb4full) % parts); }
  // Sector data through a slice port, in its ticks.
  uint64_t data_ticks(uint32_t sectors) const {
    return (uint64_t(sectors) * sector_bytes() * L2Slice::kTick + m.l2.bytes_per_clk - 1) / m.l2.bytes_per_clk;
  }

  // ---- DRAM
  // DRAM transactions for `sectors` of `line`: an aligned pair of sectors is one 64-B access (two
  // bursts back to back in one row), a lone sector a 32-B one. Each reaches its controller's queue
  // dram_latency / 2 after cycle t.
  void dram_txns(uint32_t s, uint64_t line, uint32_t sectors, bool write, stats::MemoryStats* ctr, uint64_t t) {
    for (uint32_t b = 0; b < 32; b += 2) {
      uint32_t pair = sectors & (3u << b);
      if (pair) dram_txn(s, line, pair, write, ctr, t);
    }
  }
  void dram_txn(uint32_t s, uint64_t line, uint32_t sectors, bool write, stats::MemoryStats* ctr, uint64_t t) {
    const uint32_t id = take_slot(txns, free_txns);
    txns[id] = DramTxn{s, line, sectors, write, ctr};
    ++slices[s].outstanding;
    if (ctr) {
      const uint64_t bytes = uint64_t(std::popcount(sectors)) * sector_bytes();
      (write ? ctr->dram_bytes_write : ctr->dram_bytes_read) += bytes;
      ctr->add_controller_bytes(ctrl_of(line), uint32_t(ctrls.size()), write, bytes);
    }
    push(Ev::ToDram, t + m.l2.dram_latency / 2, id, s);
  }
  void to_dram(uint32_t id, uint64_t t) {
    uint32_t c = ctrl_of(txns[id].line);
    (txns[id].write ? ctrl_writes : ctrl_reads)[c].push_back(id);
    feed(c, t);
  }
  // Pushes waiting transactions into controller c, in order, while it has room.
  void feed(uint32_t c, uint64_t t) {
    for (auto* w : {&ctrl_reads[c], &ctrl_writes[c]})
      while (!w->empty()) {
        const DramTxn& x = txns[w->front()];
        if (!ctrls[c]->can_accept(x.write)) break;
        // Inside a controller the address is made dense as if controllers took lines in turn.
        const uint64_t pa = x.line * m.l2.line + uint64_t(std::countr_zero(x.sectors)) * m.l2.sector;
        dram::Request rq{w->front(), dram::controller_local_address(pa, uint32_t(ctrls.size()), m.l2.line), x.write,
                         uint32_t(std::popcount(x.sectors)) * m.l2.sector};
        ctrls[c]->push(rq, t);
        w->pop_front();
      }
    const uint64_t old = cnext[c];
    cnext[c] = ctrls[c]->next_event();
    if (cnext[c] <= cmin) cmin = cnext[c];
    else if (old == cmin) cmin_stale = true;
  }
  void dram_done(uint32_t id, uint64_t t, dram::RowOutcome row) {
    DramTxn x = txns[id];
    free_txns.push_back(id);
    if (x.ctr) ++x.ctr->dram_row[unsigned(row)];
    L2Slice& sl = slices[x.slice];
    --sl.outstanding;
    // Room again: the requests the slice turned away go on, oldest first, while it has room.
    while (!sl.stalled.empty() && sl.outstanding < m.l2.max_outstanding) {
      uint32_t r = sl.stalled.front();
      sl.stalled.pop_front();
      at_slice(r, x.slice, t);
    }
    if (x.write) return;
    arrived(x.slice, x.line, x.sectors, t + (m.l2.dram_latency - m.l2.dram_latency / 2), false);
  }

  // Sectors of `line` arrive at slice s at cycle t (from DRAM or the far partition): fill, and
  // answer every waiter whose sectors are all back.
  void arrived(uint32_t s, uint64_t line, uint32_t sectors, uint64_t t, bool from_far) {
    L2Slice& sl = slices[s];
    L2Slice::Miss* it = sl.find_miss(line);
    stats::MemoryStats* ctr = nullptr;
    if (it && !it->waiters.empty()) ctr = reqs[it->waiters[0].req].r.ctr;
    const bool alloc = !it || !it->no_allocate;
    const Evict cls = !it ? Evict::Unchanged : it->evict;
    if (l2_on && alloc) evicted(s, sl.tags.fill(line, sectors, cls), ctr, t);
    if (from_far && ctr) ctr->l2_far_sectors += uint32_t(std::popcount(sectors));
    if (!it) return;
    if (const uint32_t fwd = it->partner & sectors) {
      // The other partition's probe joined this fetch: the sectors go on across to it.
      it->partner &= ~fwd;
      MemRequest pr;
      pr.line = line;
      pr.sectors = fwd;
      const uint32_t p = new_req(pr);
      reqs[p].hit = fwd;
      push(Ev::FarReturn, t + m.l2.far_latency - m.l2.far_latency / 2, p, other(s));
    }
    L2Slice::Miss& ms = *it;
    ms.arrived |= sectors;
    auto& ws = ms.waiters;
    for (const auto& w : ws) __builtin_prefetch(&reqs[w.req]);  // (host caches only: see prefetch_ahead)
    for (size_t i = 0; i < ws.size();) {
      if ((ws[i].needed & ~ms.arrived) == 0) {
        uint32_t rid = ws[i].req;
        ws[i] = ws.back();
        ws.pop_back();
        reqs[rid].ready = std::max(reqs[rid].ready, t);
        finish(rid, s, reqs[rid].ready);
      } else {
        ++i;
      }
    }
    if (ws.empty() && (ms.asked & ~ms.arrived) == 0) sl.erase_miss(line);
  }

  // A line leaves slice s: into the other partition (the victim level), whose own victim, if
  // dirty, is written back to DRAM. With one partition a dirty victim goes straight to DRAM.
  void evicted(uint32_t s, const SectorCache::Victim& v, stats::MemoryStats* ctr, uint64_t t) {
    if (!v.valid) return;
    if (parts > 1) {
      uint32_t f = other(s);
      // A persisting line pushed out of its set-aside is normal data in the victim level.
      SectorCache::Victim v2 = slices[f].tags.fill(v.line, v.sectors, v.cls == Evict::Last ? Evict::Normal : v.cls);
      if (v.dirty) slices[f].tags.write(v.line, v.dirty);
      write_back(s, v2, ctr, t);  // counted against the slice whose eviction caused it (its back-pressure)
      return;
    }
    write_back(s, v, ctr, t);
  }
  void write_back(uint32_t s, const SectorCache::Victim& v, stats::MemoryStats* ctr, uint64_t t) {
    if (!v.valid || !v.dirty) return;
    dram_txns(s, v.line, v.dirty, true, ctr, t);
  }

  // The answer of request `rid` is ready at slice s at cycle t.
  void finish(uint32_t rid, uint32_t s, uint64_t t) {
    Req& q = reqs[rid];
    if (q.r.kind == MemOpKind::Atomic) {
      // The slice's atomic unit updates the request's sectors (one L2 clock per
      // atomic_sectors_per_clk sectors: lts__d_atomic_input_cycles_active counts one per sector);
      // the line is dirty.
      L2Slice& sl = slices[s];
      // A message's rounds reach the unit one by one as their lookups finish (t is the last's).
      const uint64_t n = std::max<uint64_t>(1, q.r.atomic_sectors());
      const uint64_t cost = (n * tag_ticks + m.l2.atomic_sectors_per_clk - 1) / m.l2.atomic_sectors_per_clk;
      const uint64_t ahead = (q.r.rounds - 1) * (cost / q.r.rounds);
      const uint64_t first = t * L2Slice::kTick > ahead ? t * L2Slice::kTick - ahead : 0;
      sl.atomic_free = std::max(first, sl.atomic_free) + cost;
      t = std::max(t, L2Slice::cycles(sl.atomic_free));
      if (l2_on) {
        uint32_t far_dirty = parts > 1 ? slices[other(s)].tags.invalidate(q.r.line) : 0;
        evicted(s, sl.tags.write(q.r.line, q.r.sectors | far_dirty, q.r.evict), q.r.ctr, t);
      } else {
        dram_txns(s, q.r.line, q.r.sectors, true, q.r.ctr, t);
      }
    }
    if (!q.r.respond) {
      free_req(rid);
      return;
    }
    // From the home partition back across to the slice the request came in through.
    if (q.forwarded) t += m.l2.far_latency - m.l2.far_latency / 2;
    push(Ev::Respond, t, rid, q.entry_slice);
  }
  // The answer leaves slice s for its SM's GPC.
  void respond(uint32_t rid, uint64_t t) {
    Req& q = reqs[rid];
    const bool with_data = q.r.kind == MemOpKind::Read || (q.r.kind == MemOpKind::Atomic && !q.r.red);
    // An atom's values come back as the line's sectors once, whatever its rounds (32 lanes on one
    // word return 128 bytes of values, not 32 sectors).
    uint32_t data = with_data ? uint32_t(std::popcount(q.r.sectors)) * sector_bytes() : 0;
    if (q.r.ctr) q.r.ctr->xbar_read_bytes += data;
    uint64_t at = xbar.to_gpc(q.entry_slice, sm_gpc[q.r.sm], m.xbar.header_bytes + data, t);
    push(Ev::AtSm, at, rid, q.entry_slice);
  }

  void at_slice(uint32_t rid, uint32_t s, uint64_t t) {
    L2Slice& sl = slices[s];
    if (sl.outstanding >= m.l2.max_outstanding) {
      // Its DRAM traffic is backed up: the slice takes nothing new (the crossbar holds it).
      sl.stalled.push_back(rid);
      return;
    }
    const MemRequest r = reqs[rid].r;
    const uint32_t n = uint32_t(std::popcount(r.sectors));
    if (r.kind == MemOpKind::Atomic && parts > 1 && l2_on && !reqs[rid].forwarded) {
      const uint32_t home = home_part(r.line);
      if (home != s / per_part) {
        // Looked up here (a tag lookup), then across the fabric to the home slice.
        const uint64_t start = L2Slice::occupy(sl.port_free, t, r.rounds * tag_ticks);
        reqs[rid].forwarded = true;
        push(Ev::AtSlice, start + m.l2.far_latency / 2, rid, home * per_part + s % per_part);
        return;
      }
    }
    uint64_t start, tagged;
    if (r.kind == MemOpKind::Atomic) {
      // Its rounds: a tag lookup each, the last no earlier than the L1 has fed it.
      start = L2Slice::occupy(sl.port_free, t, std::max(r.rounds * tag_ticks, data_ticks(r.atomic_sectors())));
      const uint64_t last = start + L2Slice::cycles((r.rounds - 1) * tag_ticks);
      tagged = std::max(last, t + r.spread) + m.l2.hit_latency;
    } else {
      start = L2Slice::occupy(sl.port_free, t, std::max(tag_ticks, data_ticks(n)));
      tagged = start + m.l2.hit_latency;
    }
    if (r.kind == MemOpKind::Discard || r.kind == MemOpKind::Demote) {
      if (l2_on) {
        for (uint32_t x : {s, other(s)}) {
          if (r.kind == MemOpKind::Discard) slices[x].tags.invalidate(r.line);  // dirty data dropped: no write-back
          else slices[x].tags.reclassify(r.line, Evict::Normal);
          if (parts == 1) break;
        }
      }
      finish(rid, s, tagged);
      return;
    }
    if (r.kind == MemOpKind::Write) {
      if (r.ctr) r.ctr->l2_sectors_write += n, ++r.ctr->l2_requests_write;
      if (l2_on) {
        // The far copy goes; its dirty sectors (a victim moved there) stay dirty here.
        uint32_t far_dirty = parts > 1 ? slices[other(s)].tags.invalidate(r.line) : 0;
        evicted(s, sl.tags.write(r.line, r.sectors | far_dirty, r.evict), r.ctr, t);
      } else {
        dram_txns(s, r.line, r.sectors, true, r.ctr, t);
      }
      finish(rid, s, tagged);
      return;
    }
    uint32_t hit = l2_on ? sl.tags.lookup(r.line, r.sectors, r.evict) : 0;
    uint32_t miss = r.sectors & ~hit;
    if (r.ctr) {
      if (r.kind == MemOpKind::Atomic) r.ctr->l2_sectors_atom += r.atomic_sectors(), ++r.ctr->l2_requests_atom;
      else r.ctr->l2_sectors_read += n, ++r.ctr->l2_requests_read;
      r.ctr->l2_sector_hits += uint32_t(std::popcount(hit));
      r.ctr->l2_sector_misses += uint32_t(std::popcount(r.sectors & ~hit));
    }
    reqs[rid].ready = tagged;
    if (!miss) {
      finish(rid, s, tagged);
      return;
    }
    // Join a fetch in flight for these sectors, or start one: the far partition first, then DRAM.
    auto [mit, fresh] = sl.miss_for(r.line);
    L2Slice::Miss& ms = *mit;
    // The line is filled with the first explicit class asked for; it is not allocated only if
    // every request waiting on it said no_allocate.
    if (fresh) ms.no_allocate = r.no_allocate && r.kind == MemOpKind::Read;
    else if (!r.no_allocate) ms.no_allocate = false;
    if (ms.evict == Evict::Unchanged) ms.evict = r.evict;
    // The DRAM read of a missing sector brings its aligned group (l2.fetch_sectors): the H100 reads
    // 64 B for a lone sector (validation/mem/h100_l2_hits_ncu.csv, stride32). The group's other
    // sectors fill the line too, unless the line has them already.
    uint32_t want = miss;
    if (m.l2.fetch_sectors > 1 && l2_on) {
      const uint32_t extra = fetch_group(miss) & ~miss;
      if (extra) want |= extra & ~sl.tags.lookup(r.line, extra);
    }
    uint32_t fetch = want & ~ms.asked;
    ms.asked |= fetch;
    ms.waiters.push_back(L2Slice::Waiter{rid, miss});
    if (!fetch) return;
    if (parts > 1 && l2_on) {
      MemRequest pr = r;
      pr.sectors = fetch;
      uint32_t p = new_req(pr);
      reqs[p].entry_slice = s;
      push(Ev::FarProbe, tagged + m.l2.far_latency / 2, p, other(s));
      return;
    }
    dram_txns(s, r.line, fetch, false, r.ctr, tagged);
  }

  // A near miss looks in the same slice of the other partition; what it has is copied to the near
  // one (read data is replicated in both partitions; a write drops the other copy).
  void far_probe(uint32_t pid, uint32_t f, uint64_t t) {
    L2Slice& fs = slices[f];
    Req& p = reqs[pid];
    p.hit = fs.tags.lookup(p.r.line, p.r.sectors);
    // l2.far_copy = "demote": the copy that stays behind is the far set's next victim, so that
    // for one SM's data the far partition holds what the near one evicted (no second copy).
    if (p.hit && m.l2.far_demote) fs.tags.age(p.r.line);
    // Sectors this slice is fetching already are not read from DRAM twice: the probe waits for
    // them here, and they cross back when they arrive. It joins sectors asked of DRAM, and, in the
    // line's home partition, any sector being fetched: when both partitions miss at once their
    // probes cross, each finding the other's fetch still waiting on its probe; the home one's
    // goes to DRAM and the other waits for it (never both waiting on each other).
    if (const uint32_t want = p.r.sectors & ~p.hit)
      if (L2Slice::Miss* fm = fs.find_miss(p.r.line)) {
        const bool home = home_part(p.r.line) == f / per_part;
        p.joined = want & ~fm->arrived & (fm->from_dram | (home ? fm->asked : 0u));
        fm->partner |= p.joined;
      }
    push(Ev::FarReturn, t + m.l2.far_latency - m.l2.far_latency / 2, pid, p.entry_slice);
  }
  void far_return(uint32_t pid, uint32_t s, uint64_t t) {
    Req p = reqs[pid];
    free_req(pid);
    uint32_t miss = p.r.sectors & ~p.hit & ~p.joined;
    if (miss) {
      if (L2Slice::Miss* ms = slices[s].find_miss(p.r.line)) ms->from_dram |= miss;
      dram_txns(s, p.r.line, miss, false, p.r.ctr, t);
    }
    if (p.hit) arrived(s, p.r.line, p.hit, t, true);
  }

  uint64_t ctrl_next() const {
    if (cmin_stale) {
      cmin = kNone;
      for (uint64_t c : cnext) cmin = std::min(cmin, c);
      cmin_stale = false;
    }
    return cmin;
  }
};

MemorySystem::MemorySystem(const config::Machine& m) : p_(std::make_unique<Impl>(m)) {
  Impl& s = *p_;
  // SMs are numbered GPC by GPC, TPC by TPC; a TLB group is a contiguous share of a GPC's TPCs.
  uint32_t group = 0;
  for (uint32_t g = 0; g < m.gpcs && g < m.tpcs_per_gpc.size(); ++g) {
    uint32_t tpcs = m.tpcs_per_gpc[g];
    uint32_t groups = std::max<uint32_t>(1, std::min(m.tlb.groups_per_gpc, tpcs));
    for (uint32_t t = 0; t < tpcs; ++t)
      for (uint32_t k = 0; k < m.sms_per_tpc; ++k) {
        s.sm_gpc.push_back(g);
        s.sm_group.push_back(group + t * groups / tpcs);
      }
    group += groups;
  }
  while (s.sm_gpc.size() < m.sms) {
    s.sm_gpc.push_back(0);
    s.sm_group.push_back(0);
  }
  group = std::max<uint32_t>(group, 1);
  s.clients.assign(std::max<size_t>(m.sms, s.sm_gpc.size()), nullptr);
  const uint32_t nslices = std::max<uint32_t>(1, m.l2.slices);
  s.parts = std::max<uint32_t>(1, std::min(m.l2.partitions, nslices));
  s.per_part = std::max<uint32_t>(1, nslices / s.parts);
  s.l2_on = m.l2_bytes > 0;
  s.slices = std::vector<L2Slice>(size_t(s.parts) * s.per_part);
  if (s.l2_on)
    for (auto& sl : s.slices)
      sl.tags.configure(m.l2_bytes / s.slices.size() / m.l2.line, m.l2.assoc, true, m.l2.even_map ? s.per_part : 0);
  s.xbar.configure(std::max<uint32_t>(1, m.gpcs), uint32_t(s.slices.size()), m.xbar.latency, m.xbar.gpc_bytes_per_clk,
                   m.xbar.slice_bytes_per_clk);
  for (uint32_t c = 0; c < std::max<uint32_t>(1, m.dram.controllers); ++c)
    s.ctrls.push_back(std::make_unique<dram::Controller>(m.dram, m.sm_clock_mhz, m.mem_clock_mhz));
  s.cnext.assign(s.ctrls.size(), kNone);
  s.ctrl_reads.resize(s.ctrls.size());
  s.ctrl_writes.resize(s.ctrls.size());
  s.l2tlb.resize(group);
  for (auto& t : s.l2tlb) t.configure(m.tlb.l2_entries, m.tlb.l2_assoc);
  if (const char* e = std::getenv("WARPSIM_MEM_SAMPLE")) s.sample_every = std::strtoull(e, nullptr, 10);
  s.walkers.assign(group, std::vector<uint64_t>(std::max<uint32_t>(1, m.tlb.walkers), 0));
}

MemorySystem::~MemorySystem() = default;

void MemorySystem::attach(uint32_t sm, MemClient* c) {
  if (sm < p_->clients.size()) p_->clients[sm] = c;
}

uint32_t MemorySystem::gpc_of(uint32_t sm) const { return sm < p_->sm_gpc.size() ? p_->sm_gpc[sm] : 0; }
uint32_t MemorySystem::tlb_group_of(uint32_t sm) const { return sm < p_->sm_group.size() ? p_->sm_group[sm] : 0; }

uint32_t MemorySystem::partition_of_sm(uint32_t sm) const {
  const auto& m = p_->m;
  return std::min(p_->parts - 1, gpc_of(sm) * p_->parts / std::max<uint32_t>(1, m.gpcs));
}

uint32_t MemorySystem::slice_for(uint32_t sm, uint64_t line) const { return p_->slice_in(partition_of_sm(sm), line); }

uint64_t MemorySystem::translate(uint32_t sm, uint64_t vpn, uint64_t t, stats::MemoryStats* ctr) {
  Impl& s = *p_;
  uint32_t g = tlb_group_of(sm);
  Tlb& tlb = s.l2tlb[g];
  uint64_t at = t + s.m.tlb.l2_latency;
  uint64_t r = tlb.lookup(vpn);
  if (r != kNone) {
    if (ctr) ++ctr->tlb_l2_hits;
    return std::max(at, r);
  }
  if (ctr) ++ctr->tlb_l2_misses;
  auto& w = s.walkers[g];
  auto it = std::min_element(w.begin(), w.end());
  uint64_t start = std::max(at, *it);
  *it = start + s.m.tlb.walk_latency;
  tlb.insert(vpn, *it);
  return *it;
}

void MemorySystem::send(const MemRequest& r, uint64_t t) {
  Impl& s = *p_;
  uint32_t id = s.new_req(r);
  uint32_t slice = slice_for(r.sm, r.line);
  s.reqs[id].entry_slice = slice;
  s.push(Ev::Send, std::max(t, s.now), id, slice);
}

void MemorySystem::advance(uint64_t t) {
  Impl& s = *p_;
  for (;;) {
    if (s.sample_every && s.now >= s.sample_next) {
      if (s.sample_next) s.sample(s.now);
      else s.sample_from = s.now;
      s.sample_next = s.now + s.sample_every;
    }
    uint64_t qe = s.q.next_time();
    uint64_t ce = s.ctrl_next();
    uint64_t n = std::min(qe, ce);
    if (n == kNone || n > t) break;
    // Queue events of a cycle first (they push requests into the controllers), then the
    // controllers (controller.hpp: push before advance in the same cycle).
    if (ce < qe) {
      s.now = std::max(s.now, n);
      for (size_t c = 0; c < s.ctrls.size(); ++c) {
        if (s.cnext[c] > n) continue;
        s.done.clear();
        s.ctrls[c]->advance(n, s.done);
        for (auto& d : s.done) __builtin_prefetch(&s.txns[d.id]);  // (host caches: their records, all at once)
        for (auto& d : s.done) s.dram_done(uint32_t(d.id), std::max(d.done, n), d.row);
        s.feed(uint32_t(c), n);  // also refreshes cnext[c]
      }
      continue;
    }
    Event e = s.q.top();
    s.q.pop();
    s.prefetch_ahead();
    s.now = std::max(s.now, e.t);
    switch (e.type) {
      case Ev::Send: {
        // The request leaves its GPC's port when it is free and crosses to its slice.
        const MemRequest& r = s.reqs[e.req].r;
        const bool data = r.kind == MemOpKind::Write || r.kind == MemOpKind::Atomic;
        uint32_t bytes = s.m.xbar.header_bytes + (data ? uint32_t(std::popcount(r.sectors)) * s.m.l2.sector : 0);
        // An atomic's further rounds cross as transfers of their own (a header and their sectors
        // each), behind the first: counted, but the message arrives with its first round (the
        // slice's tag lookup per round, not the port, paces them).
        if (r.ctr) r.ctr->xbar_write_bytes += bytes + (r.kind == MemOpKind::Atomic ? (r.rounds - 1u) * s.m.xbar.header_bytes + (r.atomic_sectors() - uint32_t(std::popcount(r.sectors))) * s.m.l2.sector : 0u);
        uint64_t at = s.xbar.to_slice(s.sm_gpc[r.sm < s.sm_gpc.size() ? r.sm : 0], e.slice, bytes, e.t);
        s.push(Ev::AtSlice, at, e.req, e.slice);
        break;
      }
      case Ev::Respond: s.respond(e.req, e.t); break;
      case Ev::AtSlice: s.at_slice(e.req, e.slice, e.t); break;
      case Ev::FarProbe: s.far_probe(e.req, e.slice, e.t); break;
      case Ev::FarReturn: s.far_return(e.req, e.slice, e.t); break;
      case Ev::ToDram: s.to_dram(e.req, e.t); break;
      case Ev::AtSm: {
        const MemRequest r = s.reqs[e.req].r;
        s.free_req(e.req);
        MemClient* c = r.sm < s.clients.size() ? s.clients[r.sm] : nullptr;
        if (c) c->on_response(r.tag, e.t);
        break;
      }
    }
  }
}

uint64_t MemorySystem::next_event() const {
  uint64_t qe = p_->q.next_time();
  return std::min(qe, p_->ctrl_next());
}

uint64_t MemorySystem::now() const { return p_->now; }

void MemorySystem::dram_bytes(uint64_t& read, uint64_t& written) const {
  read = written = 0;
  for (auto& c : p_->ctrls) read += c->stats().bytes_read, written += c->stats().bytes_written;
}

uint32_t MemorySystem::set_persisting_bytes(uint64_t bytes) {
  Impl& s = *p_;
  if (!s.l2_on) return 0;
  const uint64_t l2 = s.m.l2_bytes;
  const uint64_t steps = std::min<uint64_t>(16, (bytes * 16 + l2 - 1) / l2);
  uint32_t ways = 0;
  for (auto& sl : s.slices) {
    const uint32_t assoc = sl.tags.assoc();
    ways = uint32_t((steps * assoc + 15) / 16);
    sl.tags.set_reserved(ways);
  }
  return ways;
}

void MemorySystem::reset_persisting() {
  for (auto& sl : p_->slices) sl.tags.reset_persisting();
}

uint64_t MemorySystem::persisting_lines() const {
  uint64_t n = 0;
  for (auto& sl : p_->slices) n += sl.tags.persisting_lines();
  return n;
}

void MemorySystem::flush_l2(uint64_t t) {
  Impl& p = *p_;
  t = std::max(t, p.now);
  for (uint32_t s = 0; s < p.slices.size(); ++s)
    p.slices[s].tags.flush([&](uint64_t line, uint32_t dirty) { p.dram_txns(s, line, dirty, true, nullptr, t); });
  drain();
}

uint64_t MemorySystem::l2_lines() const {
  uint64_t n = 0;
  for (auto& sl : p_->slices) n += sl.tags.valid_lines();
  return n;
}

void MemorySystem::detach_all() {
  std::fill(p_->clients.begin(), p_->clients.end(), nullptr);
  for (auto& r : p_->reqs) r.r.ctr = nullptr;
  for (auto& x : p_->txns) x.ctr = nullptr;
}

void MemorySystem::drain() {
  // Bounded: every event moves a request forward, and nothing new arrives.
  while (next_event() != kNone) advance(next_event());
}

}  // namespace warpsim::timing
