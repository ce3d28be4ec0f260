#include "timing/dram/controller.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "timing/free_slots.hpp"

namespace warpsim::timing::dram {
namespace {

uint32_t log2u(uint64_t v) { return v ? uint32_t(std::bit_width(v) - 1) : 0; }
uint64_t mask(uint32_t bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// XOR of successive `bits`-wide chunks of v: spreads power-of-two strides over the pseudo-channels.
uint64_t fold(uint64_t v, uint32_t bits) {
  if (bits == 0) return 0;
  uint64_t r = 0;
  for (; v; v >>= bits) r ^= v & mask(bits);
  return r;
}

}  // namespace

Controller::Controller(const config::DramConfig& cfg, double sm_clock_mhz, double dram_clock_mhz)
    : cfg_(cfg), spec_(Spec::build(cfg)) {
  // The clock ratio as a reduced fraction of kHz values (877.5 MHz stays exact).
  fs_ = uint64_t(std::llround(sm_clock_mhz * 1000));
  fd_ = uint64_t(std::llround(dram_clock_mhz * 1000));
  if (fs_ == 0) fs_ = 1;
  if (fd_ == 0) fd_ = 1;
  const uint64_t g = std::gcd(fs_, fd_);
  fs_ /= g;
  fd_ /= g;

  access_shift_ = log2u(spec_.access_bytes);
  col_lo_bits_ = log2u(spec_.interleave_bytes / spec_.access_bytes);
  pc_bits_ = log2u(spec_.pcs());
  bg_bits_ = log2u(spec_.bank_groups);
  const uint32_t col_bits = log2u(spec_.columns);
  col_hi_bits_ = col_bits > col_lo_bits_ ? col_bits - col_lo_bits_ : 0;
  bank_bits_ = log2u(spec_.banks_per_group);

  const uint32_t npc = spec_.pcs(), nb = spec_.banks();
  const size_t nodes[kTimingLevels] = {spec_.channels, npc, size_t(npc) * spec_.bank_groups, size_t(npc) * nb};
  for (unsigned l = 0; l < kTimingLevels; ++l) {
    Ready zero{};
    ready_[l].assign(nodes[l], zero);
  }
  for (const TimingRule& r : spec_.rules) {
    const unsigned l = unsigned(r.level);
    if (l >= kTimingLevels) continue;
    if (r.window > 1) {
      WindowRule w{r.level, r.prev, r.next, r.latency, r.window, {}, {}};
      w.history.assign(nodes[l] * r.window, 0);
      w.count.assign(nodes[l], 0);
      windows_.push_back(std::move(w));
      continue;
    }
    for (unsigned c = 0; c < kCmdCount; ++c) {
      if (!(r.prev & bit(Cmd(c)))) continue;
      for (unsigned n = 0; n < kCmdCount; ++n) {
        if (!(r.next & bit(Cmd(n)))) continue;
        auto& list = effects_[c][l];
        auto it = std::find_if(list.begin(), list.end(), [&](const Effect& e) { return e.next == Cmd(n); });
        if (it == list.end()) list.push_back({Cmd(n), r.latency});
        else it->latency = std::max(it->latency, r.latency);
      }
    }
  }

  pcs_.resize(npc);
  decision_.resize(npc);
  for (const WindowRule& w : windows_) channel_windows_ |= w.level == Level(0);
  refresh_interval_ = compute_refresh_interval();
  const uint64_t interval = refresh_interval_;
  for (uint32_t p = 0; p < npc; ++p) {
    Pc& pc = pcs_[p];
    pc.open_row.assign(nb, kClosed);
    pc.streak.assign(nb, 0);
    for (Queue* q : {&pc.rq, &pc.wq}) {
      q->banks.assign(nb, BankQueue{});
      q->busy.assign((nb + 63) / 64, 0);
    }
    // Stagger the pseudo-channels' refreshes over one interval.
    pc.next_ref = interval ? interval * (p + 1) / npc : kNever;
    if (pc.next_ref == 0) pc.next_ref = 1;
  }
}

uint64_t Controller::compute_refresh_interval() const {
  switch (cfg_.refresh) {
    case config::DramRefresh::AllBank: return spec_.t.nREFI;
    case config::DramRefresh::PerBank: return std::max<uint64_t>(1, spec_.t.nREFI / spec_.banks());
    case config::DramRefresh::None: return 0;
  }
  return 0;
}

// 64-bit arithmetic while the product fits (always, for any realistic cycle count), 128-bit beyond.
uint64_t Controller::dram_to_sm(uint64_t d) const {
  if (d < (uint64_t(1) << 40)) return (d * fs_ + fd_ - 1) / fd_;
  return uint64_t(((unsigned __int128)d * fs_ + fd_ - 1) / fd_);
}
uint64_t Controller::sm_to_dram_ceil(uint64_t s) const {
  if (s < (uint64_t(1) << 40)) return (s * fd_ + fs_ - 1) / fs_;
  return uint64_t(((unsigned __int128)s * fd_ + fs_ - 1) / fs_);
}
uint64_t Controller::sm_to_dram_floor(uint64_t s) const {
  if (s < (uint64_t(1) << 40)) return s * fd_ / fs_;
  return uint64_t((unsigned __int128)s * fd_ / fs_);
}

// Address mapping, low bits to high (sizes for the A100: 32 B accesses, 256 B granules, 8
// pseudo-channels, 4 bank groups, 1 KB rows, 4 banks per group):
//   [access offset | column low (granule) | pseudo-channel | bank group | column high | bank | row]
// Consecutive granules go round robin over the pseudo-channels, then over the bank groups (so a
// stream keeps several bank groups of each pseudo-channel busy and pays nCCD_S, not nCCD_L), then
// along the row. Hashes (each an XOR with other address bits, so the mapping stays a bijection):
// pseudo-channel ^= XOR-fold of every bit above it; bank group ^= low row bits; bank ^= the row
// bits above those.
Location Controller::decode(uint64_t addr) const {
  uint64_t x = addr >> access_shift_;
  const uint64_t col_lo = x & mask(col_lo_bits_);
  x >>= col_lo_bits_;
  uint64_t pc = x & mask(pc_bits_);
  x >>= pc_bits_;
  pc ^= fold(x, pc_bits_);
  uint64_t bg = x & mask(bg_bits_);
  x >>= bg_bits_;
  const uint64_t col_hi = x & mask(col_hi_bits_);
  x >>= col_hi_bits_;
  uint64_t bank = x & mask(bank_bits_);
  x >>= bank_bits_;
  const uint64_t row = x & (spec_.rows - 1);
  bg ^= row & mask(bg_bits_);
  bank ^= (row >> bg_bits_) & mask(bank_bits_);
  return {uint32_t(pc), uint32_t(bg), uint32_t(bank), uint32_t(row), uint32_t((col_hi << col_lo_bits_) | col_lo)};
}

bool Controller::can_accept(bool write) const {
  return write ? writes_queued_ < cfg_.write_queue : reads_queued_ < cfg_.read_queue;
}

// An idle pseudo-channel (nothing queued, every bank closed) refreshes without anyone watching: its
// refreshes before `until` change nothing but the count, except the last one or two, which the
// scheduler then issues itself.
void Controller::skip_idle_refreshes(Pc& pc, uint64_t until) {
  const uint64_t interval = refresh_interval();
  if (!interval || pc.ref_pending || pc.open_banks || pc.rq.size || pc.wq.size) return;
  if (pc.next_ref == kNever || until < pc.next_ref + 2 * interval) return;
  const uint64_t k = (until - pc.next_ref) / interval - 1;
  pc.next_ref += k * interval;
  stats_.refreshes += k;
  if (cfg_.refresh == config::DramRefresh::PerBank) pc.ref_bank = uint32_t((pc.ref_bank + k) % spec_.banks());
  pc.cur = std::max(pc.cur, pc.next_ref - interval);
}

void Controller::push(const Request& r, uint64_t now) {
  const Location loc = decode(r.addr);
  Pc& pc = pcs_[loc.pc];
  uint64_t arrive = sm_to_dram_ceil(now);
  skip_idle_refreshes(pc, arrive);
  arrive = std::max(arrive, pc.cur);
  const uint32_t slot = take_slot(entries_, free_entries_);
  Entry& e = entries_[slot];
  e = Entry{};
  e.id = r.id;
  e.seq = seq_++;
  e.arrive = arrive;
  e.push_sm = now;
  e.row = loc.row;
  e.bank = uint16_t(loc.bank_group * spec_.banks_per_group + loc.bank);
  e.bank_group = uint8_t(loc.bank_group);
  e.column = uint16_t(loc.column);
  e.bytes = r.bytes;
  e.bursts_left = uint8_t(std::clamp<uint32_t>((r.bytes + spec_.access_bytes - 1) / spec_.access_bytes, 1, 255));
  e.kind = kUnset;
  e.write = r.write;
  e.prev = e.next = e.bank_prev = e.bank_next = kNil;
  Queue& q = r.write ? pc.wq : pc.rq;
  // Append to the queue; it joins its bank's list when evaluate() sees the clock reach `arrive`.
  e.prev = q.tail;
  if (q.tail != kNil) entries_[q.tail].next = slot;
  else q.head = slot;
  q.tail = slot;
  if (q.pending == kNil) q.pending = slot;
  ++q.size;
  ++(r.write ? writes_queued_ : reads_queued_);
  pc.next_time = std::min(pc.next_time, arrive);
  pc.next_sm = dram_to_sm(pc.next_time);
  pc.decided = false;
}

uint64_t Controller::earliest(Cmd c, uint32_t p, uint32_t bank) const {
  const uint32_t bg = bank / spec_.banks_per_group;
  const unsigned depth = timing_depth(c);
  uint64_t t = ready_[0][p / spec_.pseudo_channels][unsigned(c)];
  t = std::max(t, ready_[1][p][unsigned(c)]);
  if (depth >= 2) t = std::max(t, ready_[2][size_t(p) * spec_.bank_groups + bg][unsigned(c)]);
  if (depth >= 3) t = std::max(t, ready_[3][size_t(p) * spec_.banks() + bank][unsigned(c)]);
  return t;
}

void Controller::update_timing(Cmd c, uint32_t p, uint32_t bank, uint64_t t) {
  const uint32_t bg = bank / spec_.banks_per_group;
  const size_t node[kTimingLevels] = {p / spec_.pseudo_channels, p, size_t(p) * spec_.bank_groups + bg,
                                      size_t(p) * spec_.banks() + bank};
  const unsigned depth = timing_depth(c);
  for (unsigned l = 0; l <= depth; ++l) {
    Ready& r = ready_[l][node[l]];
    for (const Effect& e : effects_[unsigned(c)][l]) r[unsigned(e.next)] = std::max(r[unsigned(e.next)], t + e.latency);
  }
  for (WindowRule& w : windows_) {
    const unsigned l = unsigned(w.level);
    if (l > depth || !(w.prev & bit(c))) continue;
    const size_t n = node[l];
    uint64_t* hist = &w.history[n * w.window];
    hist[w.count[n] % w.window] = t;
    ++w.count[n];
    if (w.count[n] >= w.window) {
      const uint64_t oldest = hist[w.count[n] % w.window];  // the window-th most recent
      Ready& r = ready_[l][n];
      for (unsigned x = 0; x < kCmdCount; ++x)
        if (w.next & bit(Cmd(x))) r[x] = std::max(r[x], oldest + w.latency);
    }
  }
}

void Controller::admit(Pc& pc, Queue& q) {
  while (q.pending != kNil && entries_[q.pending].arrive <= pc.cur) {
    const uint32_t i = q.pending;
    Entry& e = entries_[i];
    BankQueue& bq = q.banks[e.bank];
    e.bank_prev = bq.tail;
    e.bank_next = kNil;
    if (bq.tail != kNil) {
      entries_[bq.tail].bank_next = i;
    } else {
      bq.head = i;
      bq.hit = bq.other = kNil;
      bq.stale = false;
      bq.offer_ok = false;
      q.busy[e.bank / 64] |= 1ull << (e.bank % 64);
    }
    bq.tail = i;
    // The newest arrival is the oldest hit (or other) only when the bank had none.
    if (!bq.stale) {
      if (pc.open_row[e.bank] == e.row) {
        if (bq.hit == kNil) bq.hit = i, bq.offer_ok = false;
      } else if (bq.other == kNil) {
        bq.other = i, bq.offer_ok = false;
      }
    }
    ++q.arrived;
    q.pending = e.next;
  }
}

void Controller::remove(Queue& q, uint32_t i) {
  Entry& e = entries_[i];
  (e.prev != kNil ? entries_[e.prev].next : q.head) = e.next;
  (e.next != kNil ? entries_[e.next].prev : q.tail) = e.prev;
  BankQueue& bq = q.banks[e.bank];
  (e.bank_prev != kNil ? entries_[e.bank_prev].bank_next : bq.head) = e.bank_next;
  (e.bank_next != kNil ? entries_[e.bank_next].bank_prev : bq.tail) = e.bank_prev;
  if (bq.head == kNil) q.busy[e.bank / 64] &= ~(1ull << (e.bank % 64));
  if (bq.hit == i) {
    // The served request is the bank's oldest hit (make_offer): the next one, if any, comes after
    // it (no walk over a long list of hits from its head).
    bq.hit = e.bank_next;
    while (bq.hit != kNil && entries_[bq.hit].row != e.row) bq.hit = entries_[bq.hit].bank_next;
    bq.offer_ok = false;
  }
  if (bq.other == i) bq.stale = true, bq.offer_ok = false;
  --q.size;
  --q.arrived;  // only arrived requests are served
  free_entries_.push_back(i);
}

void Controller::scan_bank(const Pc& pc, BankQueue& bq, uint32_t bank) {
  const uint32_t open = pc.open_row[bank];
  bq.hit = bq.other = kNil;
  for (uint32_t i = bq.head; i != kNil && (bq.hit == kNil || bq.other == kNil); i = entries_[i].bank_next) {
    if (entries_[i].row == open) {
      if (bq.hit == kNil) bq.hit = i;
    } else if (bq.other == kNil) {
      bq.other = i;
    }
  }
  bq.stale = false;
}

// The oldest row hit, unless `row_hit_cap` hits have already bypassed an older request to another
// row; else the oldest other request opens its row (PRE first if another is open).
void Controller::make_offer(const Pc& pc, BankQueue& bq, uint32_t b) {
  if (bq.stale) scan_bank(pc, bq, b);
  const uint32_t h = bq.hit, o = bq.other;
  if (h != kNil && !(o != kNil && pc.streak[b] >= cfg_.row_hit_cap)) {
    const Entry& eh = entries_[h];
    bq.cmd = eh.write ? Cmd::WR : Cmd::RD;
    bq.prio = 1;
    bq.seq = eh.seq;
    bq.idx = h;
    bq.bypass = o != kNil && entries_[o].seq < eh.seq;
  } else {  // o != kNil: the list is not empty
    bq.cmd = pc.open_row[b] != kClosed ? Cmd::PRE : Cmd::ACT;
    bq.prio = 2;
    bq.seq = entries_[o].seq;
    bq.idx = o;
    bq.bypass = false;
  }
  bq.offer_ok = true;
}

void Controller::row_changed(Pc& pc, uint32_t bank) {
  for (Queue* q : {&pc.rq, &pc.wq}) {
    q->banks[bank].stale = true;
    q->banks[bank].offer_ok = false;
  }
}

Controller::Decision Controller::evaluate(uint32_t p) {
  Pc& pc = pcs_[p];
  const uint64_t cur = pc.cur;
  const uint64_t interval = refresh_interval();

  admit(pc, pc.rq);
  admit(pc, pc.wq);
  const size_t nr = pc.rq.arrived, nw = pc.wq.arrived;
  uint64_t wake = kNever;
  if (pc.rq.pending != kNil) wake = std::min(wake, entries_[pc.rq.pending].arrive);
  if (pc.wq.pending != kNil) wake = std::min(wake, entries_[pc.wq.pending].arrive);

  // Refresh falls due.
  if (interval && !pc.ref_pending) {
    if (cur >= pc.next_ref) pc.ref_pending = true;
    else if (pc.rq.size || pc.wq.size || pc.open_banks) wake = std::min(wake, pc.next_ref);
  }

  // Read or write mode. The oldest write (the head of the queue) has arrived when any has.
  if (nw >= cfg_.write_high_watermark) pc.draining = true;
  if (nw <= cfg_.write_low_watermark) pc.draining = false;
  const uint64_t oldest_write = nw > 0 ? entries_[pc.wq.head].arrive : 0;
  const bool aged = nw > 0 && oldest_write + cfg_.write_max_wait <= cur;
  const bool write_mode = nw > 0 && (pc.draining || nr == 0 || aged);
  if (!write_mode && nw > 0) wake = std::min(wake, oldest_write + cfg_.write_max_wait);
  Queue& q = write_mode ? pc.wq : pc.rq;

  // Every candidate command goes through here; the earliest wins, then the lowest priority class,
  // then the oldest request. Candidates with equal keys (only closed-page PREs, which share one
  // age) keep the first, the lowest bank.
  Decision best;
  auto take = [&](uint64_t t, Cmd c, uint8_t prio, uint64_t seq, uint32_t idx, uint32_t bank, bool bypass) {
    if (t < best.time || (t == best.time && (prio < best.prio || (prio == best.prio && seq < best.seq)))) {
      best.time = t;
      best.prio = prio;
      best.seq = seq;
      best.cmd = c;
      best.write_queue = write_mode;
      best.idx = idx;
      best.bank = bank;
      best.bypass = bypass;
    }
  };
  auto consider = [&](Cmd c, uint8_t prio, uint64_t seq, uint32_t idx, uint32_t bank, bool bypass) {
    take(std::max(cur, earliest(c, p, bank)), c, prio, seq, idx, bank, bypass);
  };

  const bool all_bank_ref = pc.ref_pending && cfg_.refresh == config::DramRefresh::AllBank;
  if (all_bank_ref) {
    consider(pc.open_banks ? Cmd::PREA : Cmd::REF, 0, 0, kNil, 0, false);
  } else {
    const int32_t ref_bank = pc.ref_pending ? int32_t(pc.ref_bank) : -1;
    if (ref_bank >= 0) consider(pc.open_row[uint32_t(ref_bank)] != kClosed ? Cmd::PRE : Cmd::REFsb, 0, 0, kNil, uint32_t(ref_bank), false);
    // Closed-page policy: an open bank without requests closes.
    if (cfg_.page_policy == config::DramPagePolicy::Closed && pc.open_banks)
      for (uint32_t b = 0; b < spec_.banks(); ++b)
        if (pc.open_row[b] != kClosed && q.banks[b].head == kNil && int32_t(b) != ref_bank)
          consider(Cmd::PRE, 2, kNever - 1, kNil, b, false);
    // Per bank with arrived requests, its candidate (make_offer). earliest() is inlined: the
    // channel and pseudo-channel parts are the same for every bank, so they are read once (ACT,
    // PRE, RD and WR all reach down to the bank level). The loop keeps the least (time, priority
    // class, age) as one 128-bit key (time < 2^62: DRAM clocks) and the bank; no two banks tie, as
    // each offers a different request.
    static_assert(timing_depth(Cmd::ACT) == 3 && timing_depth(Cmd::PRE) == 3 && timing_depth(Cmd::RD) == 3 &&
                  timing_depth(Cmd::WR) == 3);
    const Ready& r0 = ready_[0][p / spec_.pseudo_channels];
    const Ready& r1 = ready_[1][p];
    uint64_t base[kCmdCount] = {};
    for (Cmd c : {Cmd::ACT, Cmd::PRE, Cmd::RD, Cmd::WR})
      base[unsigned(c)] = std::max({cur, r0[unsigned(c)], r1[unsigned(c)]});
    const Ready* group_ready = &ready_[2][size_t(p) * spec_.bank_groups];
    const Ready* bank_ready = &ready_[3][size_t(p) * spec_.banks()];
    using Key = unsigned __int128;
    Key best_key = ~Key(0);
    uint32_t best_bank = kNil;
    // (Host caches: every busy bank's queue and ready times are asked for at once, so that their
    // misses overlap instead of coming one bank after another. No effect on the decision.)
    for (size_t w = 0; w < q.busy.size(); ++w)
      for (uint64_t bits = q.busy[w]; bits; bits &= bits - 1) {
        const uint32_t b = uint32_t(w * 64 + unsigned(std::countr_zero(bits)));
        __builtin_prefetch(&q.banks[b]);
        __builtin_prefetch(&bank_ready[b]);
      }
    for (size_t w = 0; w < q.busy.size(); ++w) {
      for (uint64_t bits = q.busy[w]; bits; bits &= bits - 1) {
        const uint32_t b = uint32_t(w * 64 + unsigned(std::countr_zero(bits)));
        if (int32_t(b) == ref_bank) continue;
        BankQueue& bq = q.banks[b];
        if (!bq.offer_ok) make_offer(pc, bq, b);
        const unsigned c = unsigned(bq.cmd);
        const uint64_t t = std::max({base[c], group_ready[b >> bank_bits_][c], bank_ready[b][c]});
        const Key key = Key((t << 2) | bq.prio) << 64 | bq.seq;
        if (key < best_key) {
          best_key = key;
          best_bank = b;
        }
      }
    }
    if (best_bank != kNil) {
      const BankQueue& bq = q.banks[best_bank];
      take(uint64_t(best_key >> 66), bq.cmd, bq.prio, bq.seq, bq.idx, best_bank, bq.bypass);
    }
  }
  if (wake < best.time) {
    Decision d;
    d.time = wake;
    return d;
  }
  return best;
}

void Controller::execute(uint32_t p, const Decision& d) {
  Pc& pc = pcs_[p];
  const uint64_t t = d.time;
  Queue& q = d.write_queue ? pc.wq : pc.rq;
  switch (d.cmd) {
    case Cmd::ACT: {
      Entry& e = entries_[d.idx];
      pc.open_row[d.bank] = e.row;
      row_changed(pc, d.bank);
      pc.streak[d.bank] = 0;
      ++pc.open_banks;
      if (e.kind == kUnset) e.kind = kMiss;
      ++stats_.activates;
      break;
    }
    case Cmd::PRE:
      if (pc.open_row[d.bank] != kClosed) --pc.open_banks;
      pc.open_row[d.bank] = kClosed;
      row_changed(pc, d.bank);
      if (d.idx != kNil && entries_[d.idx].kind == kUnset) entries_[d.idx].kind = kConflict;
      ++stats_.precharges;
      break;
    case Cmd::PREA:
      std::fill(pc.open_row.begin(), pc.open_row.end(), kClosed);
      for (uint32_t b = 0; b < spec_.banks(); ++b) row_changed(pc, b);
      pc.open_banks = 0;
      ++stats_.precharges;
      break;
    case Cmd::REF:
      pc.ref_pending = false;
      pc.next_ref += refresh_interval();
      ++stats_.refreshes;
      break;
    case Cmd::REFsb:
      pc.ref_pending = false;
      pc.next_ref += refresh_interval();
      pc.ref_bank = (pc.ref_bank + 1) % spec_.banks();
      ++stats_.refreshes;
      break;
    case Cmd::RD:
    case Cmd::WR: {
      const bool wr = d.cmd == Cmd::WR;
      Entry& e = entries_[d.idx];
      if (e.kind == kUnset) e.kind = kHit;
      if (d.bypass) {
        ++pc.streak[d.bank];
        pc.rq.banks[d.bank].offer_ok = pc.wq.banks[d.bank].offer_ok = false;  // the cap may be reached
      }
      if (pc.last_col >= 0 && pc.last_col != int8_t(wr)) {
        if (wr) ++stats_.read_to_write_turnarounds;
        else ++stats_.write_to_read_turnarounds;
      }
      pc.last_col = int8_t(wr);
      stats_.data_bus_busy += spec_.nBL;
      const uint64_t data_end = t + (wr ? spec_.write_latency() : spec_.read_latency());
      if (--e.bursts_left == 0) {
        const uint64_t done = dram_to_sm(data_end);
        stats_.queue_latency_sum += dram_to_sm(t) - std::min(dram_to_sm(t), e.push_sm);
        if (wr) {
          ++stats_.writes;
          stats_.bytes_written += e.bytes;
          --writes_queued_;
        } else {
          ++stats_.reads;
          stats_.bytes_read += e.bytes;
          stats_.read_latency_sum += done - e.push_sm;
          --reads_queued_;
        }
        RowOutcome row = RowOutcome::Hit;
        if (e.kind == kHit) ++stats_.row_hits;
        else if (e.kind == kMiss) ++stats_.row_misses, row = RowOutcome::Miss;
        else ++stats_.row_conflicts, row = RowOutcome::Conflict;
        done_.push_back({done, e.seq, e.id, row});
        std::push_heap(done_.begin(), done_.end(), std::greater<Done>());
        remove(q, d.idx);
      } else {
        e.column = uint16_t((e.column + 1) % spec_.columns);
      }
      break;
    }
    default: break;
  }
  update_timing(d.cmd, p, d.bank, t);
  // A rule at the channel level also delays the other pseudo-channels of the channel: their
  // remembered decisions may be too early now.
  if (!effects_[unsigned(d.cmd)][0].empty() || channel_windows_) {
    const uint32_t first = p / spec_.pseudo_channels * spec_.pseudo_channels;
    for (uint32_t q = first; q < first + spec_.pseudo_channels && q < pcs_.size(); ++q) pcs_[q].decided = false;
  }
}

void Controller::run_pc(uint32_t p, uint64_t limit) {
  Pc& pc = pcs_[p];
  for (;;) {
    const Decision d = pc.decided ? decision_[p] : evaluate(p);
    if (d.time > limit || d.time == kNever) {
      pc.next_time = d.time;
      pc.next_sm = d.time == kNever ? kNever : dram_to_sm(d.time);
      decision_[p] = d;
      pc.decided = true;
      return;
    }
    pc.decided = false;
    pc.cur = d.time;
    if (d.cmd != Cmd::Count) execute(p, d);
  }
}

void Controller::advance(uint64_t now, std::vector<Completion>& out) {
  const uint64_t limit = sm_to_dram_floor(now);
  for (uint32_t p = 0; p < pcs_.size(); ++p)
    if (pcs_[p].next_time <= limit) run_pc(p, limit);
  while (!done_.empty() && done_.front().done <= now) {
    out.push_back({done_.front().id, done_.front().done, done_.front().row});
    std::pop_heap(done_.begin(), done_.end(), std::greater<Done>());
    done_.pop_back();
  }
}

uint64_t Controller::next_event() const {
  uint64_t t = done_.empty() ? kNever : done_.front().done;
  for (const Pc& pc : pcs_)
    if (pc.rq.size || pc.wq.size) t = std::min(t, pc.next_sm);
  return t;
}

}  // namespace warpsim::timing::dram
