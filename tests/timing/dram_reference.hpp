// The DRAM controller's scheduler as it was before the per-bank request lists (commit a864f5f): a
// plain FR-FCFS that scans the whole arrived queue for every decision. Kept verbatim (comments
// dropped) as the reference the randomized test in dram_test.cpp compares the model against; it
// shares only the public types (Request, Completion, ControllerStats, Location) with it.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "timing/dram/controller.hpp"

namespace warpsim::timing::dram::reference {

inline uint32_t log2u(uint64_t v) { return v ? uint32_t(std::bit_width(v) - 1) : 0; }
inline uint64_t mask(uint32_t bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

inline uint64_t fold(uint64_t v, uint32_t bits) {
  if (bits == 0) return 0;
  uint64_t r = 0;
  for (; v; v >>= bits) r ^= v & mask(bits);
  return r;
}

class Controller {
 public:
  Controller(const config::DramConfig& cfg, double sm_clock_mhz, double dram_clock_mhz);

  bool can_accept(bool write) const;                         // queue space
  void push(const Request& r, uint64_t now);                 // now >= every earlier now
  void advance(uint64_t now, std::vector<Completion>& out);  // issues every command due up to `now`, appends finished requests
  uint64_t next_event() const;                               // SM cycle of the next command or completion; ~0ull when idle
  const ControllerStats& stats() const { return stats_; }

  const Spec& spec() const { return spec_; }
  Location decode(uint64_t addr) const;
  size_t queued() const { return reads_queued_ + writes_queued_; }
  size_t in_flight() const { return done_.size(); }
  uint64_t dram_to_sm(uint64_t dram_clock) const;      // rounded up
  uint64_t sm_to_dram_ceil(uint64_t sm_cycle) const;
  uint64_t sm_to_dram_floor(uint64_t sm_cycle) const;

 private:
  static constexpr uint64_t kNever = ~0ull;
  static constexpr uint32_t kClosed = ~0u;
  enum Kind : uint8_t { kUnset, kHit, kMiss, kConflict };

  struct Entry {
    uint64_t id;
    uint64_t seq;      // arrival order in the controller
    uint64_t arrive;   // DRAM clock
    uint64_t push_sm;  // SM cycle
    uint32_t row;
    uint16_t bank;     // flat index in the pseudo-channel: bank_group * banks_per_group + bank
    uint16_t column;
    uint32_t bytes;
    uint8_t bank_group;
    uint8_t bursts_left;
    uint8_t kind;
    bool write;
  };

  struct Pc {
    std::vector<Entry> rq, wq;         // arrival order
    std::vector<uint32_t> open_row;    // per bank, kClosed when precharged
    std::vector<uint32_t> streak;      // hits served since the bank's ACT while another row waited
    uint64_t cur = 0;                  // the clock of the last decision
    uint64_t next_time = kNever;       // the next decision clock
    uint64_t next_sm = kNever;         // ... as an SM cycle
    uint64_t next_ref = 0;             // when the next refresh falls due
    uint32_t ref_bank = 0;             // per-bank refresh: the bank it refreshes next
    uint32_t open_banks = 0;
    bool ref_pending = false;
    bool draining = false;
    int8_t last_col = -1;              // 0: the last column command was RD, 1: WR
    bool decided = false;
  };

  struct Decision {
    uint64_t time = kNever;
    uint8_t prio = 255;     // 0 refresh, 1 column (row hit), 2 ACT/PRE
    uint64_t seq = kNever;  // age of the request it serves
    Cmd cmd = Cmd::Count;   // Count: nothing to issue, only wake up (an arrival, a due refresh)
    bool write_queue = false;
    bool bypass = false;    // a column command that passes an older request to another row
    int32_t idx = -1;       // entry in the active queue
    uint32_t bank = 0;      // flat bank index in the pseudo-channel
  };

  void run_pc(uint32_t p, uint64_t limit);
  Decision evaluate(uint32_t p);
  void execute(uint32_t p, const Decision& d);
  uint64_t earliest(Cmd c, uint32_t p, uint32_t bank) const;
  void update_timing(Cmd c, uint32_t p, uint32_t bank, uint64_t t);
  uint64_t refresh_interval() const { return refresh_interval_; }
  uint64_t compute_refresh_interval() const;
  void skip_idle_refreshes(Pc& pc, uint64_t until);

  config::DramConfig cfg_;
  Spec spec_;
  uint64_t fs_ = 1, fd_ = 1;  // SM and DRAM clock frequencies, reduced ratio
  uint64_t refresh_interval_ = 0;  // DRAM clocks between refresh commands of a pseudo-channel (0: none)
  uint32_t access_shift_ = 0, col_lo_bits_ = 0, pc_bits_ = 0, bg_bits_ = 0, col_hi_bits_ = 0, bank_bits_ = 0;

  using Ready = std::array<uint64_t, kCmdCount>;
  std::vector<Ready> ready_[kTimingLevels];
  struct Effect {
    Cmd next;
    uint32_t latency;
  };
  std::vector<Effect> effects_[kCmdCount][kTimingLevels];
  struct WindowRule {
    Level level;
    CmdMask prev, next;
    uint32_t latency, window;
    std::vector<uint64_t> history;  // per node: `window` most recent issue clocks (ring)
    std::vector<uint32_t> count;    // per node: commands seen (ring position)
  };
  std::vector<WindowRule> windows_;

  std::vector<Pc> pcs_;
  std::vector<Decision> decision_;  // per pseudo-channel: Pc::decided's decision
  bool channel_windows_ = false;    // a window rule (e.g. nFAW) counts at the channel level
  std::vector<int32_t> first_hit_, first_other_;  // scratch for evaluate(), per bank (kept at -1 between calls)
  std::vector<uint32_t> touched_;                 // banks with arrived requests, this evaluation
  struct Done {
    uint64_t done, seq, id;
    bool operator>(const Done& o) const { return done != o.done ? done > o.done : seq > o.seq; }
  };
  std::vector<Done> done_;  // min-heap
  uint64_t seq_ = 0;
  size_t reads_queued_ = 0, writes_queued_ = 0;
  ControllerStats stats_;
};

Controller::Controller(const config::DramConfig& cfg, double sm_clock_mhz, double dram_clock_mhz)
    : cfg_(cfg), spec_(Spec::build(cfg)) {
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
    pc.next_ref = interval ? interval * (p + 1) / npc : kNever;
    if (pc.next_ref == 0) pc.next_ref = 1;
  }
  first_hit_.assign(nb, -1);
  first_other_.assign(nb, -1);
  touched_.reserve(nb);
}

inline uint64_t Controller::compute_refresh_interval() const {
  switch (cfg_.refresh) {
    case config::DramRefresh::AllBank: return spec_.t.nREFI;
    case config::DramRefresh::PerBank: return std::max<uint64_t>(1, spec_.t.nREFI / spec_.banks());
    case config::DramRefresh::None: return 0;
  }
  return 0;
}

inline uint64_t Controller::dram_to_sm(uint64_t d) const {
  if (d < (uint64_t(1) << 40)) return (d * fs_ + fd_ - 1) / fd_;
  return uint64_t(((unsigned __int128)d * fs_ + fd_ - 1) / fd_);
}
inline uint64_t Controller::sm_to_dram_ceil(uint64_t s) const {
  if (s < (uint64_t(1) << 40)) return (s * fd_ + fs_ - 1) / fs_;
  return uint64_t(((unsigned __int128)s * fd_ + fs_ - 1) / fs_);
}
inline uint64_t Controller::sm_to_dram_floor(uint64_t s) const {
  if (s < (uint64_t(1) << 40)) return s * fd_ / fs_;
  return uint64_t((unsigned __int128)s * fd_ / fs_);
}

inline Location Controller::decode(uint64_t addr) const {
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

inline bool Controller::can_accept(bool write) const {
  return write ? writes_queued_ < cfg_.write_queue : reads_queued_ < cfg_.read_queue;
}

inline void Controller::skip_idle_refreshes(Pc& pc, uint64_t until) {
  const uint64_t interval = refresh_interval();
  if (!interval || pc.ref_pending || pc.open_banks || !pc.rq.empty() || !pc.wq.empty()) return;
  if (pc.next_ref == kNever || until < pc.next_ref + 2 * interval) return;
  const uint64_t k = (until - pc.next_ref) / interval - 1;
  pc.next_ref += k * interval;
  stats_.refreshes += k;
  if (cfg_.refresh == config::DramRefresh::PerBank) pc.ref_bank = uint32_t((pc.ref_bank + k) % spec_.banks());
  pc.cur = std::max(pc.cur, pc.next_ref - interval);
}

inline void Controller::push(const Request& r, uint64_t now) {
  const Location loc = decode(r.addr);
  Pc& pc = pcs_[loc.pc];
  uint64_t arrive = sm_to_dram_ceil(now);
  skip_idle_refreshes(pc, arrive);
  arrive = std::max(arrive, pc.cur);
  Entry e{};
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
  if (r.write) {
    pc.wq.push_back(e);
    ++writes_queued_;
  } else {
    pc.rq.push_back(e);
    ++reads_queued_;
  }
  pc.next_time = std::min(pc.next_time, arrive);
  pc.next_sm = dram_to_sm(pc.next_time);
  pc.decided = false;
}

inline uint64_t Controller::earliest(Cmd c, uint32_t p, uint32_t bank) const {
  const uint32_t bg = bank / spec_.banks_per_group;
  const unsigned depth = timing_depth(c);
  uint64_t t = ready_[0][p / spec_.pseudo_channels][unsigned(c)];
  t = std::max(t, ready_[1][p][unsigned(c)]);
  if (depth >= 2) t = std::max(t, ready_[2][size_t(p) * spec_.bank_groups + bg][unsigned(c)]);
  if (depth >= 3) t = std::max(t, ready_[3][size_t(p) * spec_.banks() + bank][unsigned(c)]);
  return t;
}

inline void Controller::update_timing(Cmd c, uint32_t p, uint32_t bank, uint64_t t) {
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

inline Controller::Decision Controller::evaluate(uint32_t p) {
  Pc& pc = pcs_[p];
  const uint64_t cur = pc.cur;
  const uint64_t interval = refresh_interval();

  size_t nr = 0, nw = 0;
  while (nr < pc.rq.size() && pc.rq[nr].arrive <= cur) ++nr;
  while (nw < pc.wq.size() && pc.wq[nw].arrive <= cur) ++nw;
  uint64_t wake = kNever;
  if (nr < pc.rq.size()) wake = std::min(wake, pc.rq[nr].arrive);
  if (nw < pc.wq.size()) wake = std::min(wake, pc.wq[nw].arrive);

  if (interval && !pc.ref_pending) {
    if (cur >= pc.next_ref) pc.ref_pending = true;
    else if (!pc.rq.empty() || !pc.wq.empty() || pc.open_banks) wake = std::min(wake, pc.next_ref);
  }

  if (nw >= cfg_.write_high_watermark) pc.draining = true;
  if (nw <= cfg_.write_low_watermark) pc.draining = false;
  const bool aged = nw > 0 && pc.wq[0].arrive + cfg_.write_max_wait <= cur;
  const bool write_mode = nw > 0 && (pc.draining || nr == 0 || aged);
  if (!write_mode && nw > 0) wake = std::min(wake, pc.wq[0].arrive + cfg_.write_max_wait);
  std::vector<Entry>& q = write_mode ? pc.wq : pc.rq;
  const size_t n = write_mode ? nw : nr;

  Decision best;
  auto consider = [&](Cmd c, uint8_t prio, uint64_t seq, int32_t idx, uint32_t bank, bool bypass) {
    const uint64_t t = std::max(cur, earliest(c, p, bank));
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

  const bool all_bank_ref = pc.ref_pending && cfg_.refresh == config::DramRefresh::AllBank;
  if (all_bank_ref) {
    consider(pc.open_banks ? Cmd::PREA : Cmd::REF, 0, 0, -1, 0, false);
  } else {
    touched_.clear();
    for (size_t i = 0; i < n; ++i) {
      const Entry& e = q[i];
      if (first_hit_[e.bank] < 0 && first_other_[e.bank] < 0) touched_.push_back(e.bank);
      if (pc.open_row[e.bank] == e.row) {
        if (first_hit_[e.bank] < 0) first_hit_[e.bank] = int32_t(i);
      } else if (first_other_[e.bank] < 0) {
        first_other_[e.bank] = int32_t(i);
      }
    }
    const int32_t ref_bank = pc.ref_pending ? int32_t(pc.ref_bank) : -1;
    if (ref_bank >= 0) consider(pc.open_row[uint32_t(ref_bank)] != kClosed ? Cmd::PRE : Cmd::REFsb, 0, 0, -1, uint32_t(ref_bank), false);
    if (cfg_.page_policy == config::DramPagePolicy::Closed && pc.open_banks)
      for (uint32_t b = 0; b < spec_.banks(); ++b)
        if (pc.open_row[b] != kClosed && first_hit_[b] < 0 && first_other_[b] < 0 && int32_t(b) != ref_bank)
          consider(Cmd::PRE, 2, kNever - 1, -1, b, false);
    for (uint32_t b : touched_) {
      const int32_t h = first_hit_[b], o = first_other_[b];
      first_hit_[b] = first_other_[b] = -1;  // leave the scratch clean for the next evaluation
      if (int32_t(b) == ref_bank) continue;
      const bool open = pc.open_row[b] != kClosed;
      if (h >= 0 && !(o >= 0 && pc.streak[b] >= cfg_.row_hit_cap)) {
        consider(q[h].write ? Cmd::WR : Cmd::RD, 1, q[h].seq, h, b, o >= 0 && q[o].seq < q[h].seq);
      } else if (o >= 0) {
        consider(open ? Cmd::PRE : Cmd::ACT, 2, q[o].seq, o, b, false);
      }
    }
  }
  if (wake < best.time) {
    Decision d;
    d.time = wake;
    return d;
  }
  return best;
}

inline void Controller::execute(uint32_t p, const Decision& d) {
  Pc& pc = pcs_[p];
  const uint64_t t = d.time;
  std::vector<Entry>& q = d.write_queue ? pc.wq : pc.rq;
  switch (d.cmd) {
    case Cmd::ACT: {
      Entry& e = q[size_t(d.idx)];
      pc.open_row[d.bank] = e.row;
      pc.streak[d.bank] = 0;
      ++pc.open_banks;
      if (e.kind == kUnset) e.kind = kMiss;
      ++stats_.activates;
      break;
    }
    case Cmd::PRE:
      if (pc.open_row[d.bank] != kClosed) --pc.open_banks;
      pc.open_row[d.bank] = kClosed;
      if (d.idx >= 0 && q[size_t(d.idx)].kind == kUnset) q[size_t(d.idx)].kind = kConflict;
      ++stats_.precharges;
      break;
    case Cmd::PREA:
      std::fill(pc.open_row.begin(), pc.open_row.end(), kClosed);
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
      Entry& e = q[size_t(d.idx)];
      if (e.kind == kUnset) e.kind = kHit;
      if (d.bypass) ++pc.streak[d.bank];
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
        if (e.kind == kHit) ++stats_.row_hits;
        else if (e.kind == kMiss) ++stats_.row_misses;
        else ++stats_.row_conflicts;
        done_.push_back({done, e.seq, e.id});
        std::push_heap(done_.begin(), done_.end(), std::greater<Done>());
        q.erase(q.begin() + d.idx);
      } else {
        e.column = uint16_t((e.column + 1) % spec_.columns);
      }
      break;
    }
    default: break;
  }
  update_timing(d.cmd, p, d.bank, t);
  if (!effects_[unsigned(d.cmd)][0].empty() || channel_windows_) {
    const uint32_t first = p / spec_.pseudo_channels * spec_.pseudo_channels;
    for (uint32_t q = first; q < first + spec_.pseudo_channels && q < pcs_.size(); ++q) pcs_[q].decided = false;
  }
}

inline void Controller::run_pc(uint32_t p, uint64_t limit) {
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

inline void Controller::advance(uint64_t now, std::vector<Completion>& out) {
  const uint64_t limit = sm_to_dram_floor(now);
  for (uint32_t p = 0; p < pcs_.size(); ++p)
    if (pcs_[p].next_time <= limit) run_pc(p, limit);
  while (!done_.empty() && done_.front().done <= now) {
    out.push_back({done_.front().id, done_.front().done});
    std::pop_heap(done_.begin(), done_.end(), std::greater<Done>());
    done_.pop_back();
  }
}

inline uint64_t Controller::next_event() const {
  uint64_t t = done_.empty() ? kNever : done_.front().done;
  for (const Pc& pc : pcs_)
    if (!pc.rq.empty() || !pc.wq.empty()) t = std::min(t, pc.next_sm);
  return t;
}

}  // namespace warpsim::timing::dram::reference
