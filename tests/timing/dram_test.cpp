// DRAM controller tests. Expected values come from the timing parameters and the documented rules
// (controller.hpp, dram_spec.hpp), computed here with exact integer arithmetic, never from the
// model's own output: a closed-bank read costs nRCD + nCL + nBL, a same-row read nCCD_L more, a row
// conflict nRP + nRCD more, one bank sustains one access per nRC = nRAS + nRP, ...
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "config/config.hpp"
#include "timing/dram/controller.hpp"
#include "dram_reference.hpp"

namespace warpsim::timing::dram {
namespace {

using config::DramConfig;

// A small HBM2-like controller with round numbers; refresh off unless a test turns it on.
DramConfig small_cfg() {
  DramConfig d;
  d.controllers = 1;
  d.channels_per_controller = 2;
  d.pseudo_channels = 2;
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.rows = 1 << 14;
  d.row_bytes = 1024;
  d.access_bytes = 32;
  d.bus_bits_per_pseudo_channel = 64;
  d.burst_length = 4;
  d.interleave_bytes = 256;
  d.read_queue = 256;
  d.write_queue = 128;
  d.write_high_watermark = 8;
  d.write_low_watermark = 2;
  d.write_max_wait = 1000000;
  d.row_hit_cap = 4;
  d.page_policy = config::DramPagePolicy::Open;
  d.refresh = config::DramRefresh::None;
  auto& t = d.timing;
  t.nRCD = 14;
  t.nRP = 15;
  t.nRAS = 33;
  t.nCL = 16;
  t.nCWL = 5;
  t.nRTP = 5;
  t.nWR = 16;
  t.nCCD_S = 2;
  t.nCCD_L = 4;
  t.nRRD_S = 4;
  t.nRRD_L = 6;
  t.nFAW = 20;
  t.nWTR_S = 3;
  t.nWTR_L = 8;
  t.nRTW = t.nCL + 2 + 2 - t.nCWL;
  t.nRFC = 300;
  t.nRFCsb = 150;
  t.nREFI = 4000;
  return d;
}

config::Machine load(const std::string& name) {
  config::Machine m;
  std::string err;
  EXPECT_TRUE(config::load_machine(name, {}, m, err)) << err;
  return m;
}

// Clock conversion done independently of the model: kHz integers.
struct Clocks {
  uint64_t fs, fd;  // kHz
  Clocks(double sm_mhz, double dram_mhz) : fs(uint64_t(sm_mhz * 1000 + 0.5)), fd(uint64_t(dram_mhz * 1000 + 0.5)) {}
  uint64_t to_sm(uint64_t d) const { return (d * fs + fd - 1) / fd; }     // DRAM clock edge -> SM cycle (up)
  uint64_t to_dram(uint64_t s) const { return (s * fd + fs - 1) / fs; }   // SM cycle -> next DRAM edge
};

struct Timed {
  Request r;
  uint64_t t;  // push cycle
};

// Drives a controller like its owner would: push what is due (while there is room), advance, jump
// to the next event. Returns completions in order.
std::vector<Completion> run(Controller& c, const std::vector<Timed>& reqs, uint64_t* end_cycle = nullptr) {
  std::vector<Completion> out;
  size_t i = 0;
  uint64_t now = 0;
  uint64_t guard = 0;
  while (i < reqs.size() || c.queued() || c.in_flight()) {
    while (i < reqs.size() && reqs[i].t <= now && c.can_accept(reqs[i].r.write)) {
      c.push(reqs[i].r, now);
      ++i;
    }
    c.advance(now, out);
    uint64_t next = c.next_event();
    if (i < reqs.size() && c.can_accept(reqs[i].r.write)) next = std::min(next, std::max(reqs[i].t, now + 1));
    if (next == ~0ull) break;
    now = std::max(now + 1, next);
    if (++guard > 50'000'000) {
      ADD_FAILURE() << "no progress";
      break;
    }
  }
  if (end_cycle) *end_cycle = now;
  return out;
}

// An address whose location satisfies `pred`, searching upward from `from` in access steps.
template <class P>
uint64_t find_addr(const Controller& c, uint64_t from, P pred) {
  for (uint64_t a = from;; a += c.spec().access_bytes)
    if (pred(c.decode(a))) return a;
}

uint64_t done_of(const std::vector<Completion>& v, uint64_t id) {
  for (auto& x : v)
    if (x.id == id) return x.done;
  ADD_FAILURE() << "request " << id << " did not complete";
  return 0;
}

TEST(DramSpec, TableHasEveryRule) {
  const Spec s = Spec::build(small_cfg());
  auto has = [&](Level l, Cmd p, Cmd n, uint32_t lat, uint32_t window = 1) {
    for (auto& r : s.rules)
      if (r.level == l && (r.prev & bit(p)) && (r.next & bit(n)) && r.latency == lat && r.window == window) return true;
    return false;
  };
  const auto& t = small_cfg().timing;
  EXPECT_TRUE(has(Level::Bank, Cmd::ACT, Cmd::RD, t.nRCD));
  EXPECT_TRUE(has(Level::Bank, Cmd::ACT, Cmd::WR, t.nRCD));
  EXPECT_TRUE(has(Level::Bank, Cmd::PRE, Cmd::ACT, t.nRP));
  EXPECT_TRUE(has(Level::Bank, Cmd::ACT, Cmd::PRE, t.nRAS));
  EXPECT_TRUE(has(Level::Bank, Cmd::RD, Cmd::PRE, t.nRTP));
  EXPECT_TRUE(has(Level::Bank, Cmd::WR, Cmd::PRE, t.nCWL + 2 + t.nWR));
  EXPECT_TRUE(has(Level::PseudoChannel, Cmd::RD, Cmd::RD, t.nCCD_S));
  EXPECT_TRUE(has(Level::BankGroup, Cmd::RD, Cmd::RD, t.nCCD_L));
  EXPECT_TRUE(has(Level::PseudoChannel, Cmd::ACT, Cmd::ACT, t.nRRD_S));
  EXPECT_TRUE(has(Level::BankGroup, Cmd::ACT, Cmd::ACT, t.nRRD_L));
  EXPECT_TRUE(has(Level::PseudoChannel, Cmd::ACT, Cmd::ACT, t.nFAW, 4));
  EXPECT_TRUE(has(Level::PseudoChannel, Cmd::WR, Cmd::RD, t.nCWL + 2 + t.nWTR_S));
  EXPECT_TRUE(has(Level::BankGroup, Cmd::WR, Cmd::RD, t.nCWL + 2 + t.nWTR_L));
  EXPECT_TRUE(has(Level::PseudoChannel, Cmd::RD, Cmd::WR, t.nRTW));
  EXPECT_TRUE(has(Level::PseudoChannel, Cmd::REF, Cmd::ACT, t.nRFC));
  EXPECT_TRUE(has(Level::Bank, Cmd::REFsb, Cmd::ACT, t.nRFCsb));
  EXPECT_EQ(s.nBL, 2u);
  EXPECT_EQ(s.columns, 32u);
}

TEST(DramMapping, BijectiveAndInterleaved) {
  Controller c(small_cfg(), 1410, 1215);
  const Spec& s = c.spec();
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> seen;
  for (uint64_t a = 0; a < (4u << 20); a += s.access_bytes) {
    Location l = c.decode(a);
    ASSERT_LT(l.pc, s.pcs());
    ASSERT_LT(l.bank_group, s.bank_groups);
    ASSERT_LT(l.bank, s.banks_per_group);
    ASSERT_LT(l.column, s.columns);
    ASSERT_TRUE(seen.insert({l.pc, l.bank_group, l.bank, l.row, l.column}).second) << "address " << a << " aliases";
  }
  // A granule stays in one row of one bank; consecutive granules cover every pseudo-channel.
  for (uint64_t g = 0; g < 64; ++g) {
    Location first = c.decode(g * s.interleave_bytes);
    for (uint64_t o = 0; o < s.interleave_bytes; o += s.access_bytes) {
      Location l = c.decode(g * s.interleave_bytes + o);
      EXPECT_EQ(l.pc, first.pc);
      EXPECT_EQ(l.bank, first.bank);
      EXPECT_EQ(l.bank_group, first.bank_group);
      EXPECT_EQ(l.row, first.row);
    }
  }
  for (uint64_t base = 0; base < 64; base += s.pcs()) {
    std::set<uint32_t> pcs;
    for (uint64_t g = base; g < base + s.pcs(); ++g) pcs.insert(c.decode(g * s.interleave_bytes).pc);
    EXPECT_EQ(pcs.size(), s.pcs());
  }
  // Successive granules of one pseudo-channel rotate over its bank groups.
  std::set<uint32_t> bgs;
  for (uint64_t g = 0; g < uint64_t(s.pcs()) * s.bank_groups; ++g) {
    Location l = c.decode(g * s.interleave_bytes);
    if (l.pc == 0) bgs.insert(l.bank_group);
  }
  EXPECT_EQ(bgs.size(), s.bank_groups);
}

TEST(DramController, IsolatedReadToClosedBank) {
  const DramConfig cfg = small_cfg();
  const Clocks k(1410, 1215);
  const auto& t = cfg.timing;
  const uint64_t nBL = cfg.burst_length / 2;
  for (uint64_t push : {0ull, 1000ull, 12345ull}) {
    Controller c(cfg, 1410, 1215);
    auto out = run(c, {{{1, 0, false, 32}, push}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].done, k.to_sm(k.to_dram(push) + t.nRCD + t.nCL + nBL)) << "push " << push;
    EXPECT_EQ(c.stats().row_misses, 1u);
    EXPECT_EQ(c.stats().activates, 1u);
  }
}

TEST(DramController, IsolatedReadLatencyA100) {
  const config::Machine m = load("a100");
  const Clocks k(m.sm_clock_mhz, m.mem_clock_mhz);
  Controller c(m.dram, m.sm_clock_mhz, m.mem_clock_mhz);
  auto out = run(c, {{{1, 0, false, 32}, 0}});
  ASSERT_EQ(out.size(), 1u);
  const auto& t = m.dram.timing;
  const uint64_t expect = k.to_sm(t.nRCD + t.nCL + m.dram.burst_length / 2);
  EXPECT_EQ(out[0].done, expect);
  std::printf("A100 isolated read (closed bank): %llu SM cycles (%u + %u + %u DRAM clocks)\n",
              (unsigned long long)out[0].done, t.nRCD, t.nCL, m.dram.burst_length / 2);
}

TEST(DramController, SecondReadToOpenRowAndRowConflict) {
  const DramConfig cfg = small_cfg();
  const Clocks k(1410, 1215);
  const auto& t = cfg.timing;
  const uint64_t nBL = 2;
  {
    // Two reads of one row at once: the second's RD waits nCCD_L (same bank group) after the first.
    Controller c(cfg, 1410, 1215);
    auto out = run(c, {{{1, 0, false, 32}, 0}, {{2, 32, false, 32}, 0}});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(done_of(out, 1), k.to_sm(t.nRCD + t.nCL + nBL));
    EXPECT_EQ(done_of(out, 2), k.to_sm(t.nRCD + t.nCCD_L + t.nCL + nBL));
    EXPECT_EQ(c.stats().row_hits, 1u);
  }
  {
    // Later reads: to the open row (hit: nCL + nBL), then to another row of that bank (conflict:
    // nRP + nRCD more). Pushed late enough that nRAS/nRTP have passed.
    Controller c(cfg, 1410, 1215);
    const Location l0 = c.decode(0);
    const uint64_t other = find_addr(c, 1 << 20, [&](const Location& l) {
      return l.pc == l0.pc && l.bank_group == l0.bank_group && l.bank == l0.bank && l.row != l0.row;
    });
    const uint64_t t1 = 2000, t2 = 4000;
    auto out = run(c, {{{1, 0, false, 32}, 0}, {{2, 64, false, 32}, t1}, {{3, other, false, 32}, t2}});
    const uint64_t hit = done_of(out, 2), conflict = done_of(out, 3);
    EXPECT_EQ(hit, k.to_sm(k.to_dram(t1) + t.nCL + nBL));
    EXPECT_EQ(conflict, k.to_sm(k.to_dram(t2) + t.nRP + t.nRCD + t.nCL + nBL));
    EXPECT_EQ(c.stats().row_hits, 1u);
    EXPECT_EQ(c.stats().row_conflicts, 1u);
    EXPECT_EQ(c.stats().precharges, 1u);
  }
}

TEST(DramController, ClosedPagePolicyPrecharges) {
  DramConfig cfg = small_cfg();
  cfg.page_policy = config::DramPagePolicy::Closed;
  const Clocks k(1410, 1215);
  const auto& t = cfg.timing;
  Controller c(cfg, 1410, 1215);
  const uint64_t t1 = 2000;
  auto out = run(c, {{{1, 0, false, 32}, 0}, {{2, 64, false, 32}, t1}});
  // The row was closed after the first read: the second is a miss again.
  EXPECT_EQ(done_of(out, 2), k.to_sm(k.to_dram(t1) + t.nRCD + t.nCL + 2));
  EXPECT_EQ(c.stats().row_misses, 2u);
  std::vector<Completion> more;
  c.advance(1000000, more);  // the idle bank closes too
  EXPECT_EQ(c.stats().precharges, 2u);
}

// Streams reads over one controller as fast as it accepts them; returns achieved / peak.
double stream_efficiency(const config::Machine& m, uint32_t bytes, bool random, uint64_t n, double* gbs = nullptr) {
  Controller c(m.dram, m.sm_clock_mhz, m.mem_clock_mhz);
  std::vector<Timed> reqs;
  reqs.reserve(n);
  std::mt19937_64 rng(42);
  const uint64_t span = uint64_t(1) << 32;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t a = random ? (rng() % span) / bytes * bytes : i * bytes;
    reqs.push_back({{i, a, false, bytes}, 0});
  }
  auto out = run(c, reqs);
  EXPECT_EQ(out.size(), n);
  uint64_t last = 0;
  for (auto& x : out) last = std::max(last, x.done);
  const double bytes_total = double(n) * bytes;
  const double seconds = double(last) / (m.sm_clock_mhz * 1e6);
  const auto& d = m.dram;
  const double peak = double(d.channels_per_controller) * d.pseudo_channels * d.bus_bits_per_pseudo_channel / 8 * 2 *
                      m.mem_clock_mhz * 1e6;  // bytes/s of one controller
  if (gbs) *gbs = bytes_total / seconds / 1e9;
  return bytes_total / seconds / peak;
}

TEST(DramController, StreamingReadsReachPeakBandwidth) {
  for (const char* gpu : {"a100", "a100-80gb", "h100", "v100", "g80"}) {
    const config::Machine m = load(gpu);
    double gbs = 0;
    const double eff = stream_efficiency(m, 64, false, 200000, &gbs);
    std::printf("%s: sequential 64 B reads: %.1f%% of peak (%.1f GB/s per controller, %.0f GB/s for %u controllers)\n", gpu,
                eff * 100, gbs, gbs * m.dram.controllers, m.dram.controllers);
    EXPECT_GE(eff, 0.90) << gpu;
    EXPECT_LE(eff, 1.0) << gpu;
  }
}

TEST(DramController, RandomReadBandwidth) {
  const config::Machine m = load("a100");
  for (uint32_t bytes : {32u, 64u}) {
    double gbs = 0;
    const double eff = stream_efficiency(m, bytes, true, 100000, &gbs);
    std::printf("a100: random %u B reads: %.1f%% of peak (%.1f GB/s per controller)\n", bytes, eff * 100, gbs);
    EXPECT_LE(eff, 1.0);
    EXPECT_GT(eff, 0.05);
  }
}

TEST(DramController, OneBankIsLimitedByRowCycle) {
  const DramConfig cfg = small_cfg();
  const auto& t = cfg.timing;
  const Clocks k(1000, 1000);  // equal clocks: SM cycles are DRAM clocks
  Controller c(cfg, 1000, 1000);
  const Location l0 = c.decode(0);
  std::vector<Timed> reqs;
  std::set<uint32_t> rows;
  uint64_t a = 0;
  const int n = 40;
  while (int(reqs.size()) < n) {
    Location l = c.decode(a);
    if (l.pc == l0.pc && l.bank_group == l0.bank_group && l.bank == l0.bank && rows.insert(l.row).second)
      reqs.push_back({{reqs.size(), a, false, 32}, 0});
    a += 4096;
  }
  auto out = run(c, reqs);
  ASSERT_EQ(out.size(), size_t(n));
  uint64_t first = ~0ull, last = 0;
  for (auto& x : out) first = std::min(first, x.done), last = std::max(last, x.done);
  // n activations of one bank, one per nRC = nRAS + nRP (nRTP < nRAS - nRCD here).
  const uint64_t trc = t.nRAS + t.nRP;
  EXPECT_EQ(last - first, uint64_t(n - 1) * trc);
  EXPECT_EQ(c.stats().activates, uint64_t(n));
  (void)k;
}

TEST(DramController, FrFcfsServesYoungerHitFirstWithinTheCap) {
  const DramConfig cfg = small_cfg();
  Controller c(cfg, 1410, 1215);
  const Location l0 = c.decode(0);
  auto same_bank_other_row = find_addr(c, 1 << 20, [&](const Location& l) {
    return l.pc == l0.pc && l.bank_group == l0.bank_group && l.bank == l0.bank && l.row != l0.row;
  });
  // Hits to row 0 of the bank: the same granule's other accesses, then further columns of the row.
  std::vector<uint64_t> hits;
  for (uint64_t a = 32; hits.size() < 12; a += 32) {
    Location l = c.decode(a);
    if (l.pc == l0.pc && l.bank_group == l0.bank_group && l.bank == l0.bank && l.row == l0.row) hits.push_back(a);
  }
  {
    // Open row 0, then an older miss to another row and a younger hit: the hit goes first.
    Controller c2(cfg, 1410, 1215);
    auto out = run(c2, {{{1, 0, false, 32}, 0}, {{2, same_bank_other_row, false, 32}, 2000}, {{3, hits[0], false, 32}, 2000}});
    EXPECT_LT(done_of(out, 3), done_of(out, 2));
  }
  {
    // With many younger hits, exactly row_hit_cap of them bypass the older request.
    Controller c2(cfg, 1410, 1215);
    std::vector<Timed> reqs = {{{1, 0, false, 32}, 0}, {{2, same_bank_other_row, false, 32}, 2000}};
    for (size_t i = 0; i < hits.size(); ++i) reqs.push_back({{100 + i, hits[i], false, 32}, 2000});
    auto out = run(c2, reqs);
    ASSERT_EQ(out.size(), reqs.size());
    const uint64_t miss_done = done_of(out, 2);
    size_t before = 0;
    for (auto& x : out)
      if (x.id >= 100 && x.done < miss_done) ++before;
    EXPECT_EQ(before, cfg.row_hit_cap);
  }
}

TEST(DramController, WritesDrainAtTheHighWatermark) {
  const DramConfig cfg = small_cfg();
  auto scenario = [&](uint32_t writes) {
    Controller c(cfg, 1410, 1215);
    // Reads and writes on pseudo-channel 0, spread over its banks.
    std::vector<uint64_t> addrs;
    for (uint64_t a = 0; addrs.size() < 200 + writes; a += 256)
      if (c.decode(a).pc == 0) addrs.push_back(a);
    std::vector<Timed> reqs;
    for (uint32_t i = 0; i < writes; ++i) reqs.push_back({{1000 + i, addrs[200 + i], true, 32}, 0});
    for (uint32_t i = 0; i < 200; ++i) reqs.push_back({{i, addrs[i], false, 32}, 0});
    auto out = run(c, reqs);
    EXPECT_EQ(out.size(), reqs.size());
    uint64_t last_read = 0;
    for (auto& x : out)
      if (x.id < 1000) last_read = std::max(last_read, x.done);
    size_t writes_before = 0;
    for (auto& x : out)
      if (x.id >= 1000 && x.done < last_read) ++writes_before;
    return std::pair<size_t, uint64_t>(writes_before, c.stats().read_to_write_turnarounds);
  };
  // Below the high watermark, writes wait while reads are queued.
  EXPECT_EQ(scenario(cfg.write_high_watermark - 1).first, 0u);
  // At the watermark they drain down to the low watermark in one batch (one turnaround).
  auto [before, turns] = scenario(cfg.write_high_watermark);
  EXPECT_EQ(before, size_t(cfg.write_high_watermark - cfg.write_low_watermark));
  EXPECT_LE(turns, 2u);
}

TEST(DramController, WritesAreNotStarved) {
  DramConfig cfg = small_cfg();
  cfg.write_max_wait = 500;
  Controller c(cfg, 1000, 1000);
  std::vector<uint64_t> addrs;
  for (uint64_t a = 0; addrs.size() < 3001; a += 256)
    if (c.decode(a).pc == 0) addrs.push_back(a);
  std::vector<Timed> reqs;
  reqs.push_back({{9999, addrs[3000], true, 32}, 0});
  for (uint32_t i = 0; i < 3000; ++i) reqs.push_back({{i, addrs[i], false, 32}, i});  // a read every cycle
  auto out = run(c, reqs);
  const uint64_t w = done_of(out, 9999);
  EXPECT_LE(w, cfg.write_max_wait + 200u);
}

TEST(DramController, AllBankRefreshBlocksForRfc) {
  DramConfig cfg = small_cfg();
  cfg.channels_per_controller = 1;
  cfg.pseudo_channels = 1;
  cfg.refresh = config::DramRefresh::AllBank;
  const auto& t = cfg.timing;
  Controller c(cfg, 1000, 1000);  // equal clocks
  // The only pseudo-channel's first refresh falls due at nREFI (stagger (p + 1) / pcs); a read
  // arriving one clock later waits for nRFC.
  const uint64_t due = t.nREFI;
  auto out = run(c, {{{1, 0, false, 32}, due + 1}});
  EXPECT_EQ(done_of(out, 1), due + t.nRFC + t.nRCD + t.nCL + 2);
  EXPECT_EQ(c.stats().refreshes, 1u);
  // Idle time: refreshes keep their interval (counted without waking anyone).
  Controller c2(cfg, 1000, 1000);
  const uint64_t late = 100 * uint64_t(t.nREFI) + t.nRFC + 7;  // after the 100th refresh's nRFC
  auto out2 = run(c2, {{{1, 0, false, 32}, 0}, {{2, 0, false, 32}, late}});
  EXPECT_EQ(c2.stats().refreshes, 100u);
  EXPECT_EQ(done_of(out2, 2), late + t.nRCD + t.nCL + 2);  // a miss: the refreshes closed the row
  // A read arriving during that refresh waits for it.
  Controller c3(cfg, 1000, 1000);
  const uint64_t during = 100 * uint64_t(t.nREFI) + 7;
  auto out3 = run(c3, {{{1, 0, false, 32}, 0}, {{2, 0, false, 32}, during}});
  EXPECT_EQ(done_of(out3, 2), 100 * uint64_t(t.nREFI) + t.nRFC + t.nRCD + t.nCL + 2);
}

TEST(DramController, PerBankRefreshBlocksOnlyItsBank) {
  DramConfig cfg = small_cfg();
  cfg.channels_per_controller = 1;
  cfg.pseudo_channels = 1;
  cfg.refresh = config::DramRefresh::PerBank;
  const auto& t = cfg.timing;
  Controller c(cfg, 1000, 1000);
  const uint64_t due = t.nREFI / 16;  // bank 0 (bank group 0, bank 0) first
  const uint64_t b0 = find_addr(c, 0, [](const Location& l) { return l.bank_group == 0 && l.bank == 0; });
  const uint64_t b1 = find_addr(c, 0, [](const Location& l) { return l.bank_group == 1 && l.bank == 0; });
  auto out = run(c, {{{1, b0, false, 32}, due + 1}, {{2, b1, false, 32}, due + 1}});
  EXPECT_EQ(done_of(out, 1), due + t.nRFCsb + t.nRCD + t.nCL + 2);
  EXPECT_EQ(done_of(out, 2), due + 1 + t.nRCD + t.nCL + 2);
}

std::vector<Timed> random_mix(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<Timed> v;
  uint64_t t = 0;
  for (size_t i = 0; i < n; ++i) {
    t += rng() % 4 == 0 ? rng() % 200 : 0;
    const uint32_t bytes = rng() % 2 ? 32 : 64;
    // Mostly a few hot rows, some random.
    uint64_t a = rng() % 8 ? (rng() % (1 << 20)) : (rng() % (uint64_t(1) << 34));
    a = a / bytes * bytes;
    v.push_back({{i, a, rng() % 3 == 0, bytes}, t});
  }
  return v;
}

TEST(DramController, RandomStressEveryRequestCompletesOnce) {
  for (const char* gpu : {"a100", "h100", "g80"}) {
    for (auto policy : {config::DramPagePolicy::Open, config::DramPagePolicy::Closed}) {
      config::Machine m = load(gpu);
      m.dram.page_policy = policy;
      const Clocks k(m.sm_clock_mhz, m.mem_clock_mhz);
      Controller c(m.dram, m.sm_clock_mhz, m.mem_clock_mhz);
      const auto reqs = random_mix(7, 50000);
      // The driver pushes when there is room, so record the actual push cycles.
      std::vector<Completion> out;
      std::vector<uint64_t> pushed(reqs.size(), ~0ull);
      size_t i = 0;
      uint64_t now = 0;
      while (i < reqs.size() || c.queued() || c.in_flight()) {
        while (i < reqs.size() && reqs[i].t <= now && c.can_accept(reqs[i].r.write)) {
          c.push(reqs[i].r, now);
          pushed[i++] = now;
        }
        c.advance(now, out);
        uint64_t next = c.next_event();
        if (i < reqs.size() && c.can_accept(reqs[i].r.write)) next = std::min(next, std::max(reqs[i].t, now + 1));
        if (i == reqs.size() && !c.queued() && !c.in_flight()) break;
        ASSERT_NE(next, ~0ull) << gpu << " policy " << int(policy) << ": stuck with " << c.queued() << " queued, "
                               << c.in_flight() << " in flight, " << i << " pushed";
        ASSERT_GE(next, now) << "event in the past";
        now = std::max(now + 1, next);
      }
      ASSERT_EQ(out.size(), reqs.size()) << gpu;
      std::vector<int> seen(reqs.size(), 0);
      const auto& t = m.dram.timing;
      const uint64_t nBL = m.dram.burst_length / 2;
      for (auto& x : out) {
        ASSERT_LT(x.id, reqs.size());
        ++seen[x.id];
        const bool w = reqs[x.id].r.write;
        const uint64_t bursts = reqs[x.id].r.bytes / m.dram.access_bytes;
        const uint64_t min_clocks = (w ? t.nCWL : t.nCL) + nBL + (bursts - 1) * t.nCCD_S;
        EXPECT_GE(x.done, k.to_sm(k.to_dram(pushed[x.id]) + min_clocks)) << gpu << " request " << x.id;
      }
      for (size_t j = 0; j < seen.size(); ++j) ASSERT_EQ(seen[j], 1) << gpu << " request " << j;
      const auto& s = c.stats();
      EXPECT_EQ(s.reads + s.writes, reqs.size());
      EXPECT_EQ(s.row_hits + s.row_misses + s.row_conflicts, reqs.size());
      EXPECT_EQ(c.next_event(), ~0ull);
    }
  }
}

TEST(DramController, Deterministic) {
  const config::Machine m = load("a100");
  auto once = [&](ControllerStats& st) {
    Controller c(m.dram, m.sm_clock_mhz, m.mem_clock_mhz);
    auto out = run(c, random_mix(11, 30000));
    st = c.stats();
    return out;
  };
  ControllerStats s1, s2;
  auto a = once(s1), b = once(s2);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].id, b[i].id);
    ASSERT_EQ(a[i].done, b[i].done);
  }
  EXPECT_EQ(s1.activates, s2.activates);
  EXPECT_EQ(s1.queue_latency_sum, s2.queue_latency_sum);
  // The same requests driven by calling advance() on every cycle give the same completions.
  Controller c(m.dram, m.sm_clock_mhz, m.mem_clock_mhz);
  const auto reqs = random_mix(11, 30000);
  std::vector<Completion> out;
  size_t i = 0;
  for (uint64_t now = 0; i < reqs.size() || c.queued() || c.in_flight(); ++now) {
    while (i < reqs.size() && reqs[i].t <= now && c.can_accept(reqs[i].r.write)) c.push(reqs[i++].r, now);
    c.advance(now, out);
  }
  ASSERT_EQ(out.size(), a.size());
  size_t same = 0;
  for (size_t j = 0; j < a.size(); ++j) same += out[j].id == a[j].id && out[j].done == a[j].done;
  EXPECT_EQ(same, a.size());
}

TEST(DramController, SimulationSpeed) {
  const config::Machine m = load("a100");
  Controller c(m.dram, m.sm_clock_mhz, m.mem_clock_mhz);
  const auto reqs = random_mix(3, 400000);
  const auto t0 = std::chrono::steady_clock::now();
  auto out = run(c, reqs);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(out.size(), reqs.size());
  std::printf("controller simulation: %.2f M requests/s\n", reqs.size() / s / 1e6);
}

// The model against the plain scheduler it replaced (dram_reference.hpp, which scans the whole
// queue for every decision): random configurations (refresh all-bank / per-bank / none, open and
// closed pages, small queues that fill, low watermarks, short write waits, small row-hit caps, up to
// 128 banks, several clock ratios) under random traffic, driven both cycle by cycle and by jumps to
// next_event(). Every completion (id, cycle), every next_event(), can_accept() and the statistics
// must be identical.
void expect_same_stats(const ControllerStats& a, const ControllerStats& b, const std::string& what) {
#define WARPSIM_SAME(f) EXPECT_EQ(a.f, b.f) << what << ": " #f
  WARPSIM_SAME(reads);
  WARPSIM_SAME(writes);
  WARPSIM_SAME(bytes_read);
  WARPSIM_SAME(bytes_written);
  WARPSIM_SAME(row_hits);
  WARPSIM_SAME(row_misses);
  WARPSIM_SAME(row_conflicts);
  WARPSIM_SAME(activates);
  WARPSIM_SAME(precharges);
  WARPSIM_SAME(refreshes);
  WARPSIM_SAME(read_to_write_turnarounds);
  WARPSIM_SAME(write_to_read_turnarounds);
  WARPSIM_SAME(data_bus_busy);
  WARPSIM_SAME(queue_latency_sum);
  WARPSIM_SAME(read_latency_sum);
#undef WARPSIM_SAME
}

TEST(DramController, MatchesReferenceSchedulerUnderRandomTraffic) {
  const char* gpus[] = {"a100", "h100", "v100", "g80"};
  std::vector<config::Machine> machines;
  for (const char* g : gpus) machines.push_back(load(g));
  uint64_t total_requests = 0, total_refreshes = 0, total_turnarounds = 0;
  for (uint64_t seed = 1; seed <= 500; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo + 1); };  // inclusive
    DramConfig d;
    double sm_mhz = 1410, dram_mhz = 1215;
    if (seed % 3 == 0) {
      const config::Machine& m = machines[pick(0, 3)];
      d = m.dram;
      sm_mhz = m.sm_clock_mhz;
      dram_mhz = m.mem_clock_mhz;
    } else {
      d = small_cfg();
      d.banks_per_group = uint32_t(1) << pick(0, 5);  // 4 .. 128 banks per pseudo-channel
      const double ratios[] = {1215, 877.5, 1593, 2000, 705};
      dram_mhz = ratios[pick(0, 4)];
      d.timing.nREFI = uint32_t(pick(1500, 6000));
    }
    const config::DramRefresh refresh[] = {config::DramRefresh::None, config::DramRefresh::AllBank,
                                           config::DramRefresh::PerBank};
    d.refresh = refresh[pick(0, 2)];
    if (d.refresh == config::DramRefresh::PerBank && d.timing.nRFCsb == 0) d.refresh = config::DramRefresh::AllBank;
    d.page_policy = pick(0, 1) ? config::DramPagePolicy::Closed : config::DramPagePolicy::Open;
    if (pick(0, 1)) {  // small queues: the driver finds them full
      d.read_queue = uint32_t(pick(2, 24));
      d.write_queue = uint32_t(pick(2, 24));
    }
    // Within what the config loader accepts (config.cpp): a cap of 0 would let a bank with two
    // rows wanted swap them forever.
    d.write_high_watermark = uint32_t(pick(1, std::min<uint64_t>(20, d.write_queue)));
    d.write_low_watermark = uint32_t(pick(0, d.write_high_watermark - 1));
    d.write_max_wait = uint32_t(pick(0, 3)) ? uint32_t(pick(20, 3000)) : 1000000;
    d.row_hit_cap = uint32_t(pick(1, 8));

    Controller c(d, sm_mhz, dram_mhz);
    reference::Controller r(d, sm_mhz, dram_mhz);
    // Traffic: a few hot rows (hits, conflicts in one bank), some scattered addresses; reads and
    // writes in a per-seed ratio, 32- and 64-byte requests, in bursts.
    const size_t n = pick(500, 3000);
    const uint32_t write_pct = uint32_t(pick(0, 80));
    const uint64_t hot_span = uint64_t(1) << pick(12, 22);
    std::vector<Timed> reqs;
    uint64_t t = 0;
    for (size_t i = 0; i < n; ++i) {
      if (pick(0, 3) == 0) t += pick(0, 300);
      const uint32_t bytes = pick(0, 1) ? 32 : 64;
      uint64_t a = pick(0, 7) ? rng() % hot_span : rng() % (uint64_t(1) << 34);
      a = a / bytes * bytes;
      reqs.push_back({{i, a, pick(1, 100) <= write_pct, bytes}, t});
    }
    const std::string what = "seed " + std::to_string(seed);
    std::vector<Completion> out_c, out_r;
    const bool every_cycle = seed % 4 == 1;
    size_t i = 0;
    uint64_t now = 0, guard = 0;
    while (i < reqs.size() || c.queued() || c.in_flight()) {
      for (; i < reqs.size() && reqs[i].t <= now; ++i) {
        const bool w = reqs[i].r.write;
        ASSERT_EQ(c.can_accept(w), r.can_accept(w)) << what << " at " << now;
        if (!c.can_accept(w)) break;
        c.push(reqs[i].r, now);
        r.push(reqs[i].r, now);
      }
      c.advance(now, out_c);
      r.advance(now, out_r);
      ASSERT_EQ(out_c.size(), out_r.size()) << what << " at " << now;
      ASSERT_EQ(c.next_event(), r.next_event()) << what << " at " << now;
      ASSERT_EQ(c.queued(), r.queued()) << what;
      ASSERT_EQ(c.in_flight(), r.in_flight()) << what;
      uint64_t next = c.next_event();
      if (i < reqs.size()) next = std::min(next, std::max(reqs[i].t, now + 1));
      if (every_cycle || pick(0, 9) == 0) next = now + 1;  // also advance where nothing is due
      if (i == reqs.size() && !c.queued() && !c.in_flight()) break;
      ASSERT_NE(next, ~0ull) << what << ": stuck";
      now = std::max(now + 1, next);
      ASSERT_LT(++guard, 20'000'000u) << what << ": no progress";
    }
    ASSERT_EQ(out_c.size(), reqs.size()) << what;
    for (size_t j = 0; j < out_c.size(); ++j) {
      ASSERT_EQ(out_c[j].id, out_r[j].id) << what << " completion " << j;
      ASSERT_EQ(out_c[j].done, out_r[j].done) << what << " completion " << j;
    }
    expect_same_stats(c.stats(), r.stats(), what);
    total_requests += reqs.size();
    total_refreshes += c.stats().refreshes;
    total_turnarounds += c.stats().read_to_write_turnarounds;
  }
  // The traffic reached the rules it is meant to exercise.
  EXPECT_GT(total_refreshes, 1000u);
  EXPECT_GT(total_turnarounds, 1000u);
  std::printf("compared %llu requests\n", (unsigned long long)total_requests);
}

TEST(DramConfig, ShippedMachinesHaveDram) {
  for (const char* gpu : {"a100", "a100-80gb", "ga100-full", "h100", "v100", "g80"}) {
    const config::Machine m = load(gpu);
    const auto& d = m.dram;
    EXPECT_EQ(uint64_t(d.controllers) * d.channels_per_controller * d.pseudo_channels * d.bus_bits_per_pseudo_channel,
              m.mem_bus_bits)
        << gpu;
  }
  // A bad value names its field.
  config::Machine m;
  std::string err;
  EXPECT_FALSE(config::load_machine("a100", {"dram.banks_per_group=3"}, m, err));
  EXPECT_NE(err.find("dram.banks_per_group"), std::string::npos) << err;
  EXPECT_FALSE(config::load_machine("a100", {"dram.write_low_watermark=1000"}, m, err));
  EXPECT_NE(err.find("dram.write_low_watermark"), std::string::npos) << err;
}

}  // namespace
}  // namespace warpsim::timing::dram
