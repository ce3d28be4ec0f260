// An SM's constant caches on the ld.const path (LDC in SASS): a small constant L1 and a larger
// L1.5 behind it ([const_cache] in the machine description). The SM hands over one address at a
// time (a warp's ld.const is split into one request per distinct address, CUDA C++ Programming
// Guide, "Constant Memory"); this class says when each address's data is ready:
//
//   constant-L1 hit          issue + ops.ld_const latency
//   L1 miss, L1.5 hit        issue + const_cache.l15_latency      (the L1 line is filled)
//   L1.5 miss                a fetch of the L1.5 line from L2, sent at issue + miss_latency by the
//                            SM; ready when L2 answers (both levels are filled)
//
// Tags only (the data lives in the functional memory), in SectorCache arrays with one sector per
// line. A line is allocated when it misses; until its data arrives it is "pending": a later
// access that finds it waits for the same data (a known cycle for an L1.5 hit, or the fetch in
// flight to L2, which the access joins) instead of counting a second miss. The caches start empty
// at every launch (the SMs are made per run of the GPU).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "config/machine.hpp"
#include "timing/memory/sector_cache.hpp"

namespace warpsim::timing {

class ConstCache {
 public:
  static constexpr uint32_t kNoFetch = ~0u;

  enum class Level : uint8_t { L1, L15, Miss };
  struct Result {
    Level level = Level::L1;
    uint64_t ready = 0;          // the data's cycle when known; else the floor the fetch cannot beat
    uint32_t fetch = kNoFetch;   // the L2 fetch the access waits on (joined or new)
    bool new_fetch = false;      // the caller sends the fetch's requests (fetch_line tells which)
    uint64_t fetch_line = 0;     // L1.5 line number (address / l15_line) of a new fetch
  };

  // l1_latency: the load-to-use of a constant-L1 hit (ops.ld_const).
  void configure(const config::Machine::ConstCache& c, uint32_t l1_latency);
  bool enabled() const { return enabled_; }

  // One address looked up at cycle t by instruction tracker `waiter` (added to the fetch it
  // waits on, if any).
  Result access(uint64_t addr, uint64_t t, uint32_t waiter);
  // A request sent for `fetch` (a fetch of an L1.5 line larger than an L2 line is several).
  void add_part(uint32_t fetch) { ++fetches_[fetch].parts; }
  // One part of `fetch` is back. When it was the last, the fetch's waiters are appended to `out`,
  // its lines stop being pending, and true is returned.
  bool part_done(uint32_t fetch, std::vector<uint32_t>& out);
  bool valid_fetch(uint32_t f) const { return f < fetches_.size() && fetches_[f].busy; }
  // Forgets fetches in flight (after a fault: their responses are dropped).
  void clear_inflight();
  uint32_t l15_line() const { return l15_line_; }

 private:
  // A line whose data is on its way: at a known cycle, or with an L2 fetch.
  struct Pending {
    uint64_t ready = 0;
    uint32_t fetch = kNoFetch;
  };
  struct Fetch {
    bool busy = false;
    uint32_t parts = 0;
    uint64_t l15 = 0;
    std::vector<uint64_t> l1_lines;  // constant-L1 lines that wait for it
    std::vector<uint32_t> waiters;   // instruction trackers
  };
  // A pending entry of `map` for `line` that still matters at t (drops those whose data is there).
  Pending* pending(std::unordered_map<uint64_t, Pending>& map, uint64_t line, uint64_t t);
  void sweep(std::unordered_map<uint64_t, Pending>& map, uint64_t t);
  uint32_t join(uint32_t fetch, uint32_t waiter);

  bool enabled_ = false;
  SectorCache l1_, l15_;
  uint32_t l1_line_ = 64, l15_line_ = 256;
  uint32_t l1_latency_ = 1, l15_latency_ = 1;
  std::unordered_map<uint64_t, Pending> pend1_, pend15_;
  std::vector<Fetch> fetches_;
  std::vector<uint32_t> free_;
};

}  // namespace warpsim::timing
