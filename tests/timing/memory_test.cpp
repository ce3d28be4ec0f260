// Memory-hierarchy components, each against numbers derived by hand from its rules: the
// coalescer's lines and sectors for the classic access patterns (CUDA Programming Guide, "Device
// Memory Accesses"), shared-memory wavefronts for bank-conflict patterns, the sectored cache's
// LRU and write-back behaviour, the TLB, the crossbar's port serialisation, and the memory
// system's latency composition (L2 hit, far-partition hit, DRAM) on a machine defined here.
#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "timing/memory/coalescer.hpp"
#include "timing/memory/const_cache.hpp"
#include "timing/memory/crossbar.hpp"
#include "timing/memory/l1_cache.hpp"
#include "timing/memory/memory_system.hpp"
#include "timing/memory/sector_cache.hpp"
#include "timing/memory/tlb.hpp"
#include "test_memory.hpp"

namespace warpsim::timing {
namespace {

using func::MemAccess;
using func::TraceSpace;

std::vector<MemAccess> warp(uint64_t base, uint64_t stride, unsigned bytes, unsigned lanes = 32) {
  std::vector<MemAccess> v;
  for (unsigned l = 0; l < lanes; ++l) v.push_back(MemAccess{base + l * stride, uint16_t(bytes), uint8_t(l), TraceSpace::Global, false});
  return v;
}

TEST(Coalescer, UnitStrideFloatIsOneLineFourSectors) {
  std::vector<LineAccess> out;
  coalesce(warp(0x1000, 4, 4), 128, 32, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sectors, 0xfu);
  EXPECT_EQ(out[0].lanes, 0xffffffffu);
}

TEST(Coalescer, MisalignedUnitStrideTouchesTwoLinesFiveSectors) {
  std::vector<LineAccess> out;
  coalesce(warp(0x1000 + 4, 4, 4), 128, 32, out);  // bytes 4..131
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::popcount(out[0].sectors) + std::popcount(out[1].sectors), 5);
}

TEST(Coalescer, Float4IsFourLinesSixteenSectors) {
  std::vector<LineAccess> out;
  coalesce(warp(0x2000, 16, 16), 128, 32, out);
  ASSERT_EQ(out.size(), 4u);
  for (auto& l : out) EXPECT_EQ(l.sectors, 0xfu);
}

TEST(Coalescer, Stride128IsOneSectorPerLane) {
  std::vector<LineAccess> out;
  coalesce(warp(0, 128, 4), 128, 32, out);
  ASSERT_EQ(out.size(), 32u);
  for (auto& l : out) EXPECT_EQ(l.sectors, 1u);
}

TEST(Coalescer, SameAddressIsOneSectorOneDistinctAddress) {
  std::vector<LineAccess> out;
  coalesce(warp(0x40, 0, 4), 128, 32, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sectors, 0x4u);  // byte 0x40 is in sector 2
  EXPECT_EQ(out[0].accesses, 32u);
  EXPECT_EQ(out[0].distinct, 1u);
  // An atomic: 32 rounds of one address each, all in that sector.
  EXPECT_EQ(out[0].rounds, 32u);
  EXPECT_EQ(out[0].repeat_sectors, 0x4u);
  // Distinct words of one line: one round.
  coalesce(warp(0, 4, 4), 128, 32, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rounds, 1u);
  EXPECT_EQ(out[0].repeat_sectors, 0u);
}

// Any access pattern, against a plain map-based grouping written here: uncoalesced warps with
// many lines (the coalescer indexes lines by hash beyond a few), repeats, vectors, atomics.
TEST(Coalescer, MatchesReferenceGroupingForRandomPatterns) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<MemAccess> acc;
    const unsigned n = 1 + unsigned(rng() % 128);
    const uint64_t span = uint64_t(128) << (rng() % 12);  // 1 line ... 2048 lines
    for (unsigned i = 0; i < n; ++i) {
      const unsigned bytes = 1u << (rng() % 5);  // 1..16
      const uint64_t addr = (0x100000 + rng() % span) & ~uint64_t(bytes - 1);
      acc.push_back(MemAccess{addr, uint16_t(bytes), uint8_t(i % 32), TraceSpace::Global, false});
    }
    const bool atomic = rng() % 2;
    std::vector<LineAccess> out;
    coalesce(acc, 128, 32, out, atomic);
    // Reference: lines in first-touch order, with their sectors, lanes, accesses, distinct addresses.
    std::vector<uint64_t> order;
    std::map<uint64_t, LineAccess> ref;
    std::map<uint64_t, std::set<uint64_t>> addrs;
    std::map<uint64_t, std::map<uint64_t, uint32_t>> times;  // line -> address -> accesses
    std::map<uint64_t, uint32_t> repeat;                      // line -> sectors of repeated addresses
    for (auto& a : acc)
      for (uint64_t b = a.addr; b < a.addr + a.bytes; ++b) {
        const uint64_t line = b / 128;
        if (!ref.count(line)) {
          order.push_back(line);
          ref[line] = LineAccess{line, 0, 0, 0, 0};
        }
        ref[line].sectors |= 1u << (b % 128 / 32);
        ref[line].lanes |= 1u << a.lane;
      }
    for (auto& a : acc)
      for (uint64_t line = a.addr / 128; line <= (a.addr + a.bytes - 1) / 128; ++line) {
        ++ref[line].accesses;
        addrs[line].insert(a.addr);
        if (++times[line][a.addr] > 1)
          for (uint64_t b = std::max(a.addr, line * 128); b < std::min(a.addr + a.bytes, line * 128 + 128); ++b)
            repeat[line] |= 1u << (b % 128 / 32);
      }
    ASSERT_EQ(out.size(), order.size()) << "iteration " << iter;
    for (size_t i = 0; i < order.size(); ++i) {
      const LineAccess& r = ref[order[i]];
      EXPECT_EQ(out[i].line, r.line);
      EXPECT_EQ(out[i].sectors, r.sectors);
      EXPECT_EQ(out[i].lanes, r.lanes);
      EXPECT_EQ(out[i].accesses, r.accesses);
      if (atomic) {
        EXPECT_EQ(out[i].distinct, addrs[order[i]].size());
        uint32_t most = 0;
        for (auto& [ad, k] : times[order[i]]) most = std::max(most, k);
        EXPECT_EQ(out[i].rounds, most);
        EXPECT_EQ(out[i].repeat_sectors, repeat[order[i]]);
      }
    }
  }
}

// sector_mask is the one place a byte range's sectors are computed (coalescer, instruction-cache
// fills, constant-cache fetches): every range of a 128-byte line, for 32- and 16-byte sectors,
// against the bit-by-bit loops the instruction-cache and constant-cache fetches used before.
TEST(Coalescer, SectorMaskOfAByteRangeMatchesBitByBitLoops) {
  for (uint32_t sec : {32u, 16u})
    for (uint64_t lo = 0; lo < 128; ++lo)
      for (uint64_t hi = lo + 1; hi <= 128; ++hi) {
        uint32_t ifetch = 0;  // Sm::l1i_fill's former loop
        for (uint64_t s = lo / sec; s * sec < hi; ++s) ifetch |= 1u << s;
        uint32_t konst = 0;   // the constant-cache fetch's former loop
        for (uint32_t b = 0; b < 128; b += sec)
          if (b + sec > lo && b < hi) konst |= 1u << (b / sec);
        ASSERT_EQ(sector_mask(lo, hi, sec), ifetch) << lo << ".." << hi << " sector " << sec;
        ASSERT_EQ(sector_mask(lo, hi, sec), konst) << lo << ".." << hi << " sector " << sec;
      }
  EXPECT_EQ(sector_mask(0, 128, 32), 0xfu);
  EXPECT_EQ(sector_mask(31, 33, 32), 0x3u);
  EXPECT_EQ(sector_bits(1, 2), 0x6u);
}

TEST(Coalescer, LocalInterleaveMakesSameOffsetContiguous) {
  // Every lane reads local word 8: interleaved, the 32 lanes read 128 consecutive bytes.
  uint64_t a0 = local_address(1 << 20, 8, 0, 4), a31 = local_address(1 << 20, 8, 31, 4);
  EXPECT_EQ(a31 - a0, 124u);
  EXPECT_EQ(a0 % 128, 0u);
}

// The L1's miss-status entries against a plain list of the entries in flight: which sectors a
// new miss finds in flight (join) and how many entries it waits on, through random allocations,
// completions and joins over a few lines (several entries per line, index collisions, growth).
TEST(L1Cache, MissEntriesMatchReferenceUnderRandomTraffic) {
  L1Cache l1;
  l1.configure(64 * 1024, 128, 4, 256);
  struct Ref { uint64_t line; uint32_t sectors; bool joinable; std::vector<uint32_t> waiters; };
  std::map<uint32_t, Ref> busy;  // entry -> what it holds
  std::mt19937_64 rng(11);
  uint32_t waiter = 0;
  for (int step = 0; step < 50000; ++step) {
    const uint64_t line = rng() % 300;  // more lines than entries, so chains and probes vary
    const uint32_t sectors = 1u + uint32_t(rng() % 15);
    const unsigned op = unsigned(rng() % 3);
    if (op == 0 && !l1.full()) {
      const bool joinable = rng() % 4 != 0;
      const uint32_t e = l1.allocate(line, sectors, true, false, waiter, joinable);
      ASSERT_FALSE(busy.count(e));
      busy[e] = Ref{line, sectors, joinable, {waiter++}};
    } else if (op == 1 && !busy.empty()) {
      auto it = busy.begin();
      std::advance(it, rng() % busy.size());
      ASSERT_TRUE(l1.valid_entry(it->first));
      std::vector<uint32_t> got{12345};  // replaced, not appended to
      l1.complete(it->first, got);
      EXPECT_EQ(got, it->second.waiters) << "step " << step;  // the allocating tracker, then the joiners in order
      EXPECT_FALSE(l1.valid_entry(it->first));
      busy.erase(it);
    } else {
      uint32_t want = 0, want_joined = 0, joined = 0;
      for (auto& [e, r] : busy)
        if (r.joinable && r.line == line && (r.sectors & sectors)) want |= r.sectors & sectors, ++want_joined, r.waiters.push_back(waiter);
      EXPECT_EQ(l1.join(line, sectors, waiter++, joined), want) << "step " << step;
      EXPECT_EQ(joined, want_joined) << "step " << step;
    }
    EXPECT_EQ(l1.full(), busy.size() == 256u);
  }
}

TEST(SharedBanks, ConflictPatterns) {
  auto sh = [](uint64_t stride, unsigned bytes) {
    auto v = warp(0, stride, bytes);
    for (auto& a : v) a.space = TraceSpace::Shared;
    return shared_wavefronts(v, 32, 4);
  };
  EXPECT_EQ(sh(4, 4), 1u);     // consecutive words: 32 banks
  EXPECT_EQ(sh(0, 4), 1u);     // one word: broadcast
  EXPECT_EQ(sh(8, 4), 2u);     // stride 2 words: two lanes per bank
  EXPECT_EQ(sh(128, 4), 32u);  // stride 32 words: all lanes in bank 0
  EXPECT_EQ(sh(132, 4), 1u);   // stride 33 words: conflict-free (the padding trick)
  EXPECT_EQ(sh(8, 8), 2u);     // 64-bit, consecutive: two half-warp phases
  EXPECT_EQ(sh(16, 16), 4u);   // 128-bit, consecutive: four quarter-warp phases
}

TEST(SectorCache, LruEvictionAndSectors) {
  SectorCache c;
  c.configure(4, 2, false);  // 2 sets x 2 ways
  EXPECT_EQ(c.lookup(0, 0xf), 0u);
  c.fill(0, 0x3);
  EXPECT_EQ(c.lookup(0, 0xf), 0x3u);  // only the filled sectors are valid
  c.fill(2, 0xf);                     // same set (even lines)
  c.lookup(0, 0x1);                   // 0 is now most recent
  auto v = c.fill(4, 0xf);            // evicts 2
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.line, 2u);
  EXPECT_EQ(c.lookup(2, 0xf), 0u);
  EXPECT_EQ(c.lookup(0, 0x1), 0x1u);
}

// l2.far_copy = "demote" (H100): an aged line is its set's next victim, whatever its age.
TEST(SectorCache, AgedLineIsTheNextVictim) {
  SectorCache c;
  c.configure(4, 4, false);  // 1 set x 4 ways
  for (uint64_t l = 0; l < 4; ++l) c.fill(l, 1);
  c.lookup(1, 1);  // 1 is now the most recent
  c.age(1);
  auto v = c.fill(9, 1);
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line, 1u);
}

// l2.set_mapping = "even": a slice holding one line of every run of 40 (a partition of 40 slices)
// takes a contiguous range of exactly its capacity of such lines, aligned to its set count, with
// no victim, also when the set count is not a power of two (the H100's 320 sets per slice); an
// unaligned range may put one line more in some sets (the rotations of its first and last runs
// overlap), so it fits when one way per set is left. The hashed index (the default) overloads some
// sets of the same lines, as a Poisson draw does.
TEST(SectorCache, EvenRunsFillEverySetExactly) {
  for (uint32_t sets : {320u, 256u}) {
    const uint64_t cap = uint64_t(sets) * 16;
    auto line_of = [](uint64_t local) { return 40 * local + 7; };  // the slice's lines, local index
    for (uint64_t start : {uint64_t(sets) * 15, uint64_t(sets) * 15 + 123}) {
      const bool aligned = start % sets == 0;
      const uint64_t n = aligned ? cap : cap - sets;
      SectorCache even, hashed;
      even.configure(cap, 16, true, 40);
      hashed.configure(cap, 16, true);
      uint32_t even_victims = 0, hashed_victims = 0;
      for (uint64_t k = 0; k < n; ++k) {
        even_victims += even.fill(line_of(start + k), 0xf).valid;
        hashed_victims += hashed.fill(line_of(start + k), 0xf).valid;
      }
      EXPECT_EQ(even_victims, 0u) << sets << " sets, start " << start;
      EXPECT_GT(hashed_victims, 0u) << sets << " sets, start " << start;
      for (uint64_t k = 0; k < n; ++k) ASSERT_EQ(even.lookup(line_of(start + k), 0xf), 0xfu);
      // One line more in a full aligned range overloads a set.
      if (aligned) EXPECT_TRUE(even.fill(line_of(start + n), 0xf).valid);
    }
  }
}

// Sets are initialised on first allocation and way arrays are recycled between caches of one size
// (every SM's L1 is built again per launch): each cache must start empty whatever its storage held
// before, and behave as a plain LRU cache. Checked against a reference (a list per set, set = line
// mod sets without hashing) over random fills, writes, lookups and invalidations, for a sequence
// of caches of two sizes that take over each other's storage.
TEST(SectorCache, MatchesReferenceLruAcrossRecycledStorage) {
  struct Line {
    uint64_t line;
    uint32_t valid, dirty;
    uint64_t age;
  };
  std::mt19937_64 rng(7);
  for (int round = 0; round < 8; ++round) {
    const uint32_t assoc = round % 2 ? 4 : 8, sets = 64;
    SectorCache c;
    c.configure(uint64_t(sets) * assoc, assoc, false);
    std::vector<std::vector<Line>> ref(sets);
    uint64_t tick = 0;
    auto find = [&](uint64_t line) -> Line* {
      for (auto& l : ref[line % sets])
        if (l.line == line) return &l;
      return nullptr;
    };
    for (int op = 0; op < 20000; ++op) {
      const uint64_t line = rng() % (uint64_t(sets) * assoc * 3);
      const uint32_t sectors = uint32_t(rng() % 15) + 1;
      const int kind = int(rng() % 4);
      Line* r = find(line);
      if (kind == 0) {
        const uint32_t got = c.lookup(line, 0xf);
        ASSERT_EQ(got, r ? r->valid : 0u) << "round " << round << " op " << op;
        if (r) r->age = ++tick;
      } else if (kind == 3) {
        ASSERT_EQ(c.invalidate(line), r ? r->dirty : 0u) << "round " << round << " op " << op;
        if (r) {
          auto& v = ref[line % sets];
          v.erase(v.begin() + (r - v.data()));
        }
      } else {
        const auto victim = kind == 1 ? c.fill(line, sectors) : c.write(line, sectors);
        auto& set = ref[line % sets];
        if (!r) {
          if (set.size() == assoc) {  // the least recently used line goes
            auto old = std::min_element(set.begin(), set.end(), [](const Line& x, const Line& y) { return x.age < y.age; });
            ASSERT_TRUE(victim.valid) << "round " << round << " op " << op;
            EXPECT_EQ(victim.line, old->line);
            EXPECT_EQ(victim.sectors, old->valid);
            EXPECT_EQ(victim.dirty, old->dirty);
            set.erase(old);
          } else {
            ASSERT_FALSE(victim.valid) << "round " << round << " op " << op << ": evicted with a free way";
          }
          set.push_back(Line{line, 0, 0, 0});
          r = &set.back();
        } else {
          ASSERT_FALSE(victim.valid);
        }
        r->valid |= sectors;
        if (kind == 2) r->dirty |= sectors;
        r->age = ++tick;
      }
    }
  }
}

TEST(SectorCache, WriteBackReportsDirtySectors) {
  SectorCache c;
  c.configure(2, 1, false);  // 2 sets x 1 way
  c.write(0, 0x5);
  auto v = c.fill(2, 0x1);
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.dirty, 0x5u);
}

TEST(SectorCache, EvictFirstGoesOutBeforeOlderLines) {
  SectorCache c;
  c.configure(2, 2, false);  // 1 set x 2 ways
  c.fill(0, 1);
  c.fill(1, 1, Evict::First);
  auto v = c.fill(2, 1);
  EXPECT_EQ(v.line, 1u);
}

TEST(SectorCache, StreamingLinesGoBeforeNormalOnesEvenWhenRecent) {
  SectorCache c;
  c.configure(4, 4, false);  // 1 set x 4 ways
  c.fill(0, 1);
  c.fill(1, 1);
  c.fill(2, 1, Evict::First);
  c.fill(3, 1);
  c.lookup(2, 1);  // the streaming line is now the most recently used: it stays streaming
  EXPECT_EQ(c.fill(4, 1).line, 2u);
  EXPECT_EQ(c.fill(5, 1).line, 0u);  // then LRU among normal lines
}

TEST(SectorCache, PersistingLinesStayInTheSetAside) {
  SectorCache c;
  c.configure(4, 4, false);  // 1 set x 4 ways
  c.set_reserved(2);
  c.fill(10, 1, Evict::Last);
  c.fill(11, 1, Evict::Last);
  // Normal lines cycle through the other two ways only.
  for (uint64_t l = 100; l < 120; ++l) {
    auto v = c.fill(l, 1);
    if (v.valid) {
      EXPECT_GE(v.line, 100u);
    }
  }
  EXPECT_EQ(c.class_of(10), Evict::Last);
  EXPECT_EQ(c.class_of(11), Evict::Last);
  // A third persisting line displaces the oldest persisting one, not a normal line.
  auto v = c.fill(12, 1, Evict::Last);
  EXPECT_EQ(v.line, 10u);
  EXPECT_EQ(c.persisting_lines(), 2u);
  // Normal fills the set-aside while no persisting line needs it.
  SectorCache d;
  d.configure(4, 4, false);
  d.set_reserved(3);
  for (uint64_t l = 0; l < 4; ++l) EXPECT_FALSE(d.fill(l, 1).valid);
  EXPECT_EQ(d.lookup(0, 1) | d.lookup(1, 1) | d.lookup(2, 1) | d.lookup(3, 1), 1u);
  // A set-aside that shrinks under its persisting lines leaves them evictable as normal lines.
  SectorCache g;
  g.configure(4, 4, false);
  g.set_reserved(2);
  g.fill(10, 1, Evict::Last);
  g.fill(11, 1, Evict::Last);
  g.set_reserved(0);
  bool gone = false;
  for (uint64_t l = 100; l < 104; ++l) {
    auto v = g.fill(l, 1);
    gone |= v.valid && v.line == 10;
  }
  EXPECT_TRUE(gone);
  // Without a set-aside a persisting access allocates as a normal line.
  SectorCache e;
  e.configure(2, 2, false);
  e.fill(0, 1, Evict::Last);
  EXPECT_EQ(e.class_of(0), Evict::Normal);
}

// The constant caches: latencies by level, and accesses to lines whose data is still on its way
// wait for it (joining the L2 fetch) instead of missing again.
TEST(ConstCache, LevelsAndAccessesUnderAFetch) {
  config::Machine::ConstCache c;
  c.enabled = true;
  c.l1_bytes = 2048, c.l1_line = 64, c.l1_assoc = 4;
  c.l15_bytes = 8192, c.l15_line = 256, c.l15_assoc = 4;
  c.l15_latency = 50, c.miss_latency = 60;
  ConstCache cc;
  cc.configure(c, 20);
  using L = ConstCache::Level;
  auto a = cc.access(0x1000, 0, 7);  // cold: misses both, a new fetch of L1.5 line 0x10
  EXPECT_EQ(a.level, L::Miss);
  EXPECT_TRUE(a.new_fetch);
  EXPECT_EQ(a.fetch_line, 0x1000u / 256);
  cc.add_part(a.fetch);
  cc.add_part(a.fetch);
  auto b = cc.access(0x1040, 1, 8);  // another L1 line of the same L1.5 line: waits for the fetch
  EXPECT_EQ(b.level, L::L15);
  EXPECT_EQ(b.fetch, a.fetch);
  EXPECT_FALSE(b.new_fetch);
  auto d = cc.access(0x1004, 2, 9);  // the first L1 line again: a hit on a line being filled
  EXPECT_EQ(d.level, L::L1);
  EXPECT_EQ(d.fetch, a.fetch);
  std::vector<uint32_t> w;
  EXPECT_FALSE(cc.part_done(a.fetch, w));  // one of two L2 lines
  EXPECT_TRUE(cc.part_done(a.fetch, w));
  EXPECT_EQ(w, (std::vector<uint32_t>{7, 8, 9}));
  auto e = cc.access(0x1080, 500, 1);  // filled: L1 miss, L1.5 hit at its latency
  EXPECT_EQ(e.level, L::L15);
  EXPECT_EQ(e.fetch, ConstCache::kNoFetch);
  EXPECT_EQ(e.ready, 550u);
  auto f = cc.access(0x1084, 510, 1);  // the same L1 line before its data arrived (550): waits for it
  EXPECT_EQ(f.level, L::L1);
  EXPECT_EQ(f.ready, 550u);
  auto g = cc.access(0x1088, 600, 1);  // after: a plain L1 hit
  EXPECT_EQ(g.ready, 620u);
}

TEST(Tlb, HitMissAndInflightReadiness) {
  Tlb t;
  t.configure(4, 4);
  EXPECT_EQ(t.lookup(7), ~0ull);
  t.insert(7, 500);
  EXPECT_EQ(t.lookup(7), 500u);  // a hit on an entry still being walked waits for the walk
  for (uint64_t v = 10; v < 14; ++v) t.insert(v, 0);
  EXPECT_EQ(t.lookup(7), ~0ull);  // LRU replaced
}

TEST(Crossbar, PortsSerialiseAndAddLatency) {
  Crossbar x;
  x.configure(2, 4, 10, 32, 64);
  // 128 B: 4 cycles through a 32 B/clk GPC port, the wires, 2 cycles through a 64 B/clk slice port.
  EXPECT_EQ(x.to_slice(0, 0, 128, 100), 100u + 4 + 10 + 2);
  EXPECT_EQ(x.to_slice(0, 1, 128, 100), 104u + 4 + 10 + 2);  // waits for the same GPC port
  EXPECT_EQ(x.to_slice(1, 2, 16, 100), 100u + 1 + 10 + 1);   // another GPC, another slice
  EXPECT_EQ(x.to_slice(1, 3, 16, 100), 100u + 1 + 10 + 1);   // shares GPC 1's cycle (32 B/clk)
  EXPECT_EQ(x.to_slice(1, 0, 16, 100), 116u + 1);            // slice 0's port is busy until 116
}

}  // namespace
}  // namespace warpsim::timing

namespace warpsim::timing {
namespace {

config::Machine mem_machine() {
  config::Machine m;
  m.name = "memory test";
  m.sms = 4;
  m.gpcs = 2;
  m.tpcs_per_gpc = {1, 1};
  m.sms_per_tpc = 2;
  m.sm_clock_mhz = 1000;
  set_test_memory(m);
  // Two partitions, a visible far hop and L2 TLB latency for the tests below.
  m.l2.partitions = 2;
  m.l2.far_latency = 60;
  m.tlb.l2_latency = 10;
  return m;
}

struct Catcher : MemClient {
  std::vector<std::pair<uint32_t, uint64_t>> got;
  void on_response(uint32_t tag, uint64_t t) override { got.emplace_back(tag, t); }
};

// One request of one sector from `sm` at cycle t, alone in the memory system: its round trip.
uint64_t round_trip(MemorySystem& ms, Catcher& c, uint32_t sm, uint64_t line, uint64_t t, MemOpKind kind = MemOpKind::Read) {
  c.got.clear();
  MemRequest r;
  r.sm = sm;
  r.tag = 7;
  r.line = line;
  r.sectors = 1;
  r.kind = kind;
  ms.send(r, t);
  ms.drain();
  EXPECT_EQ(c.got.size(), 1u);
  return c.got.empty() ? 0 : c.got[0].second - t;
}


TEST(MemorySystem, LatenciesComposeFromTheConfig) {
  config::Machine m = mem_machine();
  MemorySystem ms(m);
  Catcher c;
  for (uint32_t s = 0; s < 4; ++s) ms.attach(s, &c);
  // Each way: one cycle through the source port, the wires, one cycle through the destination port.
  const uint64_t xbar_round = 2 * (2 + m.xbar.latency);
  ASSERT_NE(ms.partition_of_sm(0), ms.partition_of_sm(2));
  const uint64_t line = 1000;
  uint64_t cold = round_trip(ms, c, 0, line, 10000);
  // Cold: near miss, far miss (the probe costs far_latency), DRAM: at least its fixed path and
  // ACT + CL + burst, at most a row conflict more.
  const uint64_t path = xbar_round + m.l2.hit_latency + m.l2.far_latency + m.l2.dram_latency;
  const auto& d = m.dram.timing;
  EXPECT_GE(cold, path + d.nRCD + d.nCL + m.dram.burst_length / 2 - 1);
  EXPECT_LE(cold, path + d.nRP + d.nRCD + d.nCL + m.dram.burst_length / 2 + 2);
  // Warm: an L2 hit is the crossbar both ways plus the slice.
  EXPECT_EQ(round_trip(ms, c, 0, line, 20000), xbar_round + m.l2.hit_latency);
  // SM 2 (the other partition) misses in its near partition and finds the line in the far one
  // (SM 0's): far_latency more; the line is copied to SM 2's partition, where it then hits.
  EXPECT_EQ(round_trip(ms, c, 2, line, 30000), xbar_round + m.l2.hit_latency + m.l2.far_latency);
  EXPECT_EQ(round_trip(ms, c, 2, line, 40000), xbar_round + m.l2.hit_latency);
  // Read data is replicated: SM 0 still hits in its own partition.
  EXPECT_EQ(round_trip(ms, c, 0, line, 50000), xbar_round + m.l2.hit_latency);
  // A write from SM 2 drops partition 0's copy: SM 0 then finds the line only in the far partition.
  MemRequest w;
  w.sm = 2;
  w.tag = 9;
  w.line = line;
  w.sectors = 1;
  w.kind = MemOpKind::Write;
  ms.send(w, 60000);
  ms.drain();
  EXPECT_EQ(round_trip(ms, c, 0, line, 70000), xbar_round + m.l2.hit_latency + m.l2.far_latency);
}

// Both partitions miss on one line: DRAM reads it once. Whatever the gap between SM 0's and SM 2's
// (other partition) reads, even when their far probes cross on the way, the later one waits for
// the fetch in flight in the other partition (or hits there), both are answered, and DRAM moves
// one sector. The same for lines of either home partition.
TEST(MemorySystem, BothPartitionsMissingReadTheLineFromDramOnce) {
  config::Machine m = mem_machine();
  ASSERT_GT(m.l2.far_latency, 4u);
  for (uint64_t line = 2000; line < 2016; ++line)
    for (uint64_t gap : std::vector<uint64_t>{0, 1, 5, m.l2.far_latency / 2, m.l2.far_latency, 400, 5000}) {
      MemorySystem ms(m);
      Catcher c;
      for (uint32_t s = 0; s < 4; ++s) ms.attach(s, &c);
      stats::MemoryStats st;
      for (uint32_t sm : {0u, 2u}) {
        MemRequest r;
        r.sm = sm;
        r.tag = sm;
        r.line = line;
        r.sectors = 1;
        r.ctr = &st;
        ms.send(r, 1000 + (sm ? gap : 0));
        if (gap >= 400) ms.drain();
      }
      ms.drain();
      EXPECT_EQ(c.got.size(), 2u) << "line " << line << " gap " << gap;
      EXPECT_EQ(st.dram_bytes_read, m.l2.sector) << "line " << line << " gap " << gap;
    }
}

// An atomic resolves in its line's home partition: from an SM of the other partition it is looked
// up in the near slice and crosses to the home one (far_latency there and back). So for every
// line, SM 0's and SM 2's (other partition) warm atomics differ by exactly far_latency, and each
// partition is home to some of the lines.
TEST(MemorySystem, AtomicsResolveInTheHomePartition) {
  config::Machine m = mem_machine();
  MemorySystem ms(m);
  Catcher c;
  for (uint32_t s = 0; s < 4; ++s) ms.attach(s, &c);
  ASSERT_NE(ms.partition_of_sm(0), ms.partition_of_sm(2));
  auto atomic = [&](uint32_t sm, uint64_t line, uint64_t t) { return int64_t(round_trip(ms, c, sm, line, t, MemOpKind::Atomic)); };
  const int64_t xbar_round = 2 * (2 + m.xbar.latency), far = m.l2.far_latency;
  int home0 = 0, home2 = 0;
  uint64_t t = 10000;
  for (uint64_t line = 500; line < 564; ++line) {
    atomic(0, line, t);  // brings the line into its home slice
    const int64_t a0 = atomic(0, line, t + 5000), a2 = atomic(2, line, t + 10000);
    t += 20000;
    EXPECT_EQ(std::abs(a0 - a2), far) << "line " << line;
    // A hit: the crossbar both ways, the slice, one cycle of the atomic unit (and the hop).
    const int64_t near = std::min(a0, a2);
    EXPECT_GE(near, xbar_round + int64_t(m.l2.hit_latency));
    EXPECT_LE(near, xbar_round + int64_t(m.l2.hit_latency) + 2);
    (a0 < a2 ? home0 : home2) += 1;
  }
  EXPECT_GT(home0, 16);
  EXPECT_GT(home2, 16);
}

// l2.set_mapping = "even": one partition holds a contiguous range of its capacity less one line per
// set (every line of the second pass hits); the hashed slice and set indices (the default) lose
// some of it.
TEST(MemorySystem, EvenMappingHoldsAContiguousRangeOfTheL2Size) {
  for (bool even : {true, false}) {
    config::Machine m = mem_machine();
    m.l2.partitions = 1;
    m.l2.slices = 4;
    m.l2.even_map = even;
    MemorySystem ms(m);
    Catcher c;
    for (uint32_t s = 0; s < 4; ++s) ms.attach(s, &c);
    // An unaligned range of the capacity less one line per set (see EvenRunsFillEverySetExactly).
    const uint64_t sets = m.l2_bytes / m.l2.line / m.l2.assoc, lines = m.l2_bytes / m.l2.line - sets, base = 123457;
    const uint64_t hit = 2 * (2 + m.xbar.latency) + m.l2.hit_latency;
    uint64_t t = 1000;
    for (uint64_t l = 0; l < lines; ++l, t += 1000) round_trip(ms, c, 0, base + l, t);
    uint64_t misses = 0;
    for (uint64_t l = 0; l < lines; ++l, t += 1000) misses += round_trip(ms, c, 0, base + l, t) != hit;
    if (even) EXPECT_EQ(misses, 0u);
    else EXPECT_GT(misses, lines / 100);
  }
}

TEST(MemorySystem, TlbWalksAreSharedByAGroupAndLimitedByWalkers) {
  config::Machine m = mem_machine();
  MemorySystem ms(m);
  stats::MemoryStats st;
  // Three misses at once on two walkers: the third waits for the first walk.
  uint64_t a = ms.translate(0, 1, 100, &st), b = ms.translate(0, 2, 100, &st), c = ms.translate(0, 3, 100, &st);
  EXPECT_EQ(a, 100u + m.tlb.l2_latency + m.tlb.walk_latency);
  EXPECT_EQ(b, a);
  EXPECT_EQ(c, a + m.tlb.walk_latency);
  // SM 1 shares SM 0's group (same GPC): page 1 is now a hit there.
  EXPECT_EQ(ms.translate(1, 1, 1000, &st), 1000u + m.tlb.l2_latency);
  // SM 2 is in another GPC: its own group TLB misses.
  EXPECT_EQ(ms.translate(2, 1, 1000, &st), 1000u + m.tlb.l2_latency + m.tlb.walk_latency);
  EXPECT_EQ(st.tlb_l2_misses, 4u);
  EXPECT_EQ(st.tlb_l2_hits, 1u);
}

TEST(MemorySystem, BandwidthIsBoundedByTheDram) {
  // Many reads of distinct lines: the achieved rate stays at or under the DRAM peak.
  config::Machine m = mem_machine();
  MemorySystem ms(m);
  Catcher c;
  for (uint32_t s = 0; s < 4; ++s) ms.attach(s, &c);
  const unsigned n = 4000;
  for (unsigned i = 0; i < n; ++i) {
    MemRequest r;
    r.sm = i % 4;
    r.line = 100000 + i;
    r.sectors = 0xf;
    ms.send(r, 1000 + i / 4);
  }
  ms.drain();
  ASSERT_EQ(c.got.size(), n);
  uint64_t last = 0;
  for (auto& g : c.got) last = std::max(last, g.second);
  const double bytes = double(n) * 128;
  const double peak_bytes_per_cycle = double(m.dram.controllers * m.dram.channels_per_controller * m.dram.pseudo_channels *
                                             m.dram.bus_bits_per_pseudo_channel) / 8 * 2 * m.mem_clock_mhz / m.sm_clock_mhz;
  const double achieved = bytes / double(last - 1000);
  EXPECT_LE(achieved, peak_bytes_per_cycle * 1.001);
  EXPECT_GE(achieved, peak_bytes_per_cycle * 0.5);  // sequential lines: most of the peak
  std::printf("achieved %.1f of %.1f B/cycle\n", achieved, peak_bytes_per_cycle);
}


// ---- L2 residency control (set-aside, persisting / streaming lines, reset, discard)

config::Machine one_partition() {
  config::Machine m = mem_machine();
  m.l2.partitions = 1;
  return m;
}

// Reads `n` lines from `first` (one sector each) from SM 0, all at once, with class `e`.
void read_lines(MemorySystem& ms, uint64_t first, uint64_t n, Evict e, stats::MemoryStats* st, uint64_t t) {
  for (uint64_t i = 0; i < n; ++i) {
    MemRequest r;
    r.sm = 0;
    r.line = first + i;
    r.sectors = 1;
    r.evict = e;
    r.ctr = st;
    ms.send(r, t);
  }
  ms.drain();
}

// L2 sector hits when reading `n` lines again.
uint64_t hits_of(MemorySystem& ms, uint64_t first, uint64_t n, uint64_t t) {
  stats::MemoryStats st;
  read_lines(ms, first, n, Evict::Unchanged, &st, t);
  return st.l2_sector_hits;
}

constexpr uint64_t kHot = 1u << 20, kStream = 1u << 22;

TEST(L2Residency, PersistingLinesSurviveAStreamLargerThanL2) {
  const config::Machine m = one_partition();
  const uint64_t l2_lines = m.l2_bytes / m.l2.line, hot = 64;
  for (bool set_aside : {false, true}) {
    MemorySystem ms(m);
    Catcher c;
    ms.attach(0, &c);
    EXPECT_EQ(ms.set_persisting_bytes(set_aside ? m.l2_bytes / 4 : 0), set_aside ? m.l2.assoc / 4 : 0u);
    read_lines(ms, kHot, hot, Evict::Last, nullptr, 1000);
    EXPECT_EQ(ms.persisting_lines(), set_aside ? hot : 0u);
    read_lines(ms, kStream, 3 * l2_lines, Evict::Unchanged, nullptr, 100000);
    const uint64_t h = hits_of(ms, kHot, hot, 10000000);
    if (set_aside) EXPECT_EQ(h, hot);
    else EXPECT_EQ(h, 0u);
  }
}

TEST(L2Residency, NormalLinesUseTheSetAsideWhileNoPersistingLineNeedsIt) {
  const config::Machine m = one_partition();
  const uint64_t l2_lines = m.l2_bytes / m.l2.line;
  MemorySystem ms(m);
  Catcher c;
  ms.attach(0, &c);
  ms.set_persisting_bytes(m.l2_bytes * 3 / 4);  // 12 of 16 ways
  // Half the L2 of normal data: twice what the ways outside the set-aside hold, so it fits only
  // by using the (empty) set-aside.
  const uint64_t ws = l2_lines / 2;
  read_lines(ms, kStream, ws, Evict::Unchanged, nullptr, 1000);
  EXPECT_GE(hits_of(ms, kStream, ws, 1000000), ws * 98 / 100);
  // Persisting data then takes set-aside ways back from normal lines, whatever their age.
  const uint64_t hot = l2_lines / 4;
  read_lines(ms, kHot, hot, Evict::Last, nullptr, 2000000);
  const uint64_t persisting = ms.persisting_lines();
  EXPECT_GE(persisting, hot * 95 / 100);
  read_lines(ms, kStream, ws, Evict::Unchanged, nullptr, 3000000);  // normal traffic again
  read_lines(ms, kStream, ws, Evict::Unchanged, nullptr, 4000000);
  EXPECT_EQ(ms.persisting_lines(), persisting);
}

TEST(L2Residency, StreamingLinesAreEvictedBeforeNormalOnes) {
  const config::Machine m = one_partition();
  const uint64_t l2_lines = m.l2_bytes / m.l2.line;
  for (bool streaming : {false, true}) {
    MemorySystem ms(m);
    Catcher c;
    ms.attach(0, &c);
    // A working set of half the L2, then a stream as large as the L2, marked evict-first or not.
    read_lines(ms, kHot, l2_lines / 2, Evict::Unchanged, nullptr, 1000);
    read_lines(ms, kStream, l2_lines, streaming ? Evict::First : Evict::Unchanged, nullptr, 1000000);
    const uint64_t h = hits_of(ms, kHot, l2_lines / 2, 5000000);
    if (streaming) EXPECT_GE(h, l2_lines / 2 * 98 / 100);
    else EXPECT_LE(h, l2_lines / 2 / 4);
  }
}

TEST(L2Residency, ResetTurnsPersistingLinesNormal) {
  const config::Machine m = one_partition();
  const uint64_t l2_lines = m.l2_bytes / m.l2.line, hot = 64;
  MemorySystem ms(m);
  Catcher c;
  ms.attach(0, &c);
  ms.set_persisting_bytes(m.l2_bytes / 4);
  read_lines(ms, kHot, hot, Evict::Last, nullptr, 1000);
  EXPECT_EQ(ms.persisting_lines(), hot);
  ms.reset_persisting();
  EXPECT_EQ(ms.persisting_lines(), 0u);
  read_lines(ms, kStream, 3 * l2_lines, Evict::Unchanged, nullptr, 100000);
  EXPECT_EQ(hits_of(ms, kHot, hot, 10000000), 0u);
  // A normal access also demotes a persisting line (cudaAccessPropertyNormal), and so does Demote.
  read_lines(ms, kHot, 2, Evict::Last, nullptr, 20000000);
  EXPECT_EQ(ms.persisting_lines(), 2u);
  read_lines(ms, kHot, 1, Evict::Normal, nullptr, 20100000);
  MemRequest d;
  d.line = kHot + 1;
  d.sectors = 0xf;
  d.kind = MemOpKind::Demote;
  ms.send(d, 20200000);
  ms.drain();
  EXPECT_EQ(ms.persisting_lines(), 0u);
}

TEST(L2Residency, DiscardDropsADirtyLineWithoutWriteBack) {
  for (uint32_t parts : {1u, 2u}) {
    config::Machine m = one_partition();
    m.l2.partitions = parts;
    const uint64_t l2_lines = m.l2_bytes / m.l2.line;
    for (bool discard : {false, true}) {
      MemorySystem ms(m);
      Catcher c;
      for (uint32_t s = 0; s < 4; ++s) ms.attach(s, &c);
      MemRequest w;
      w.line = kHot;
      w.sectors = 0xf;
      w.kind = MemOpKind::Write;
      ms.send(w, 1000);
      ms.drain();
      if (discard) {
        MemRequest d = w;
        d.kind = MemOpKind::Discard;
        ms.send(d, 2000);
        ms.drain();
        EXPECT_EQ(hits_of(ms, kHot, 1, 3000), 0u);  // gone from L2
      }
      // Push everything out of L2 (both partitions): only an undiscarded line is written back.
      stats::MemoryStats st;
      read_lines(ms, kStream, 4 * l2_lines, Evict::Unchanged, &st, 100000);
      EXPECT_EQ(st.dram_bytes_write, discard ? 0u : 4u * m.l2.sector) << parts << " partition(s)";
    }
  }
}

// l2.fetch_sectors = 2 (the H100): a lone missing sector is read from DRAM with its aligned
// neighbour (64 B), which then hits; the other pair of the line does not come. With 1, 32 B.
TEST(MemorySystem, MissFetchesTheAlignedSectorGroup) {
  for (uint32_t group : {1u, 2u}) {
    config::Machine m = one_partition();
    m.l2.fetch_sectors = group;
    MemorySystem ms(m);
    Catcher c;
    ms.attach(0, &c);
    MemRequest r;
    r.line = kHot;
    r.sectors = 0x4;  // sector 2 alone
    stats::MemoryStats st;
    r.ctr = &st;
    ms.send(r, 1000);
    ms.drain();
    EXPECT_EQ(st.dram_bytes_read, uint64_t(group) * m.l2.sector);
    stats::MemoryStats again;
    for (uint32_t sec : {0x8u, 0x1u}) {  // the neighbour of the pair, then a sector of the other pair
      r.sectors = sec;
      r.ctr = &again;
      ms.send(r, 100000 + sec);
      ms.drain();
    }
    EXPECT_EQ(again.l2_sector_hits, group == 2 ? 1u : 0u);
    EXPECT_EQ(again.dram_bytes_read, 2u * m.l2.sector);  // 1: the two lone sectors; 2: the other pair
  }
}

// Per-kernel DRAM statistics: every DRAM access is counted once by how it found its bank, and
// the bytes per controller add up to dram__bytes_read. Whole lines read in order open each 1 KiB
// row once for several 64-B accesses (the 256-B interleave keeps two lines of a controller's
// share in one row), so most are row hits; single sectors of lines far apart mostly open a row.
TEST(MemorySystem, DramRowOutcomesAndBytesPerControllerArePerKernel) {
  config::Machine m = one_partition();
  m.l2.fetch_sectors = 2;
  MemorySystem ms(m);
  Catcher c;
  ms.attach(0, &c);
  auto accesses = [](const stats::MemoryStats& st) { return st.dram_row[0] + st.dram_row[1] + st.dram_row[2]; };
  auto ctrl_sum = [](const stats::MemoryStats& st) {
    uint64_t b = 0;
    for (uint64_t x : st.dram_ctrl_read_bytes) b += x;
    return b;
  };
  stats::MemoryStats seq, other;
  const uint64_t n = 512;
  for (uint64_t i = 0; i < n; ++i) {
    MemRequest r;
    r.line = kHot + i;
    r.sectors = 0xF;
    r.ctr = &seq;
    ms.send(r, 1000 + i / 8);
  }
  ms.drain();
  EXPECT_EQ(seq.dram_bytes_read, n * 4 * m.l2.sector);
  EXPECT_EQ(accesses(seq), seq.dram_bytes_read / (2 * m.l2.sector));  // one 64-B access per sector pair
  EXPECT_EQ(ctrl_sum(seq), seq.dram_bytes_read);
  ASSERT_EQ(seq.dram_ctrl_read_bytes.size(), size_t(m.dram.controllers));
  for (uint64_t b : seq.dram_ctrl_read_bytes) EXPECT_GT(b, 0u);  // 64 KB spread over every controller
  EXPECT_GE(seq.dram_row[0], accesses(seq) / 2);
  EXPECT_EQ(other.dram_bytes_read, 0u);  // nothing charged to a kernel that sent nothing
  // One sector of every 4096th line (512 KB apart): a new row almost every time.
  stats::MemoryStats scattered;
  for (uint64_t i = 0; i < 256; ++i) {
    MemRequest r;
    r.line = kStream + i * 4096;
    r.sectors = 0x1;
    r.ctr = &scattered;
    ms.send(r, ms.now() + 1 + i);
  }
  ms.drain();
  EXPECT_EQ(accesses(scattered), 256u);
  EXPECT_EQ(ctrl_sum(scattered), scattered.dram_bytes_read);
  EXPECT_LT(double(scattered.dram_row[0]) / 256.0, double(seq.dram_row[0]) / double(accesses(seq)));
  EXPECT_GT(scattered.dram_row[1] + scattered.dram_row[2], 128u);
}

// ---- Cache control (warpsim run --cache-control all: Nsight Compute's flush before each kernel)

TEST(MemorySystem, FlushWritesDirtyLinesBackAndEmptiesTheL2) {
  for (uint32_t parts : {1u, 2u}) {
    config::Machine m = one_partition();
    m.l2.partitions = parts;
    for (bool dirty : {false, true}) {
      MemorySystem ms(m);
      Catcher c;
      for (uint32_t s = 0; s < 4; ++s) ms.attach(s, &c);
      const uint64_t n = 64;
      read_lines(ms, kHot, n, Evict::Unchanged, nullptr, 1000);
      if (dirty) {
        for (uint64_t i = 0; i < n; ++i) {
          MemRequest w;
          w.line = kStream + i;
          w.sectors = 0xf;
          w.kind = MemOpKind::Write;
          ms.send(w, 2000);
        }
        ms.drain();
      }
      EXPECT_GE(ms.l2_lines(), dirty ? 2 * n : n);
      const uint64_t t = 100000;
      ASSERT_LT(ms.now(), t);
      ms.flush_l2(t);
      EXPECT_EQ(ms.l2_lines(), 0u) << parts << " partition(s)";
      // Write-backs go through DRAM before the flush is over; a clean L2 is dropped at once.
      if (dirty) EXPECT_GE(ms.now(), t + m.l2.dram_latency / 2);
      else EXPECT_LT(ms.now(), t);
      EXPECT_EQ(hits_of(ms, kHot, n, 200000), 0u);
      // Nothing is left to write back: pushing every line out afterwards writes only what the
      // reads above brought in (clean), i.e. nothing.
      stats::MemoryStats st;
      read_lines(ms, kStream + n, 4 * (m.l2_bytes / m.l2.line), Evict::Unchanged, &st, 300000);
      EXPECT_EQ(st.dram_bytes_write, 0u);
    }
  }
}

}  // namespace
}  // namespace warpsim::timing
