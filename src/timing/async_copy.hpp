// Completion tracking of asynchronous global->shared copies (cp.async, PTX ISA 9.7.9.25): the
// functional engine performs a copy when it issues, but the data lands in shared memory only when
// the memory hierarchy returns it. Two mechanisms tell a warp that copies have landed, and each
// needs its own bookkeeping:
//  - AsyncGroups: per warp, cp.async.commit_group closes the open group and
//    cp.async.wait_group N waits until at most the N newest committed groups are in flight. A
//    multistage pipeline depends on waiting for the old group only, not for everything. The same
//    groups serve cp.async.bulk's bulk groups and wgmma's commit groups, whose members' done
//    cycles are known at issue (add_done).
//  - AsyncBarriers: per SM, cp.async.mbarrier.arrive makes an mbarrier's phase depend on every
//    copy the thread issued before it; mbarrier.test_wait/try_wait results on that barrier are
//    not visible before those copies land.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "timing/fifo.hpp"

namespace warpsim::timing {

class AsyncGroups {
 public:
  static constexpr uint64_t kInFlight = ~0ull;

  // A copy joins the open group (opening one if none is); returns the group's sequence number.
  uint64_t add() {
    if (!open_) {
      groups_.push_back(Group{next_seq_++, 0, 0});
      open_ = true;
    }
    ++groups_.back().pending;
    return groups_.back().seq;
  }
  // commit_group: closes the open group; with no open group it commits an empty (complete) one.
  void commit() {
    if (!open_) groups_.push_back(Group{next_seq_++, 0, 0});
    open_ = false;
    trim();
  }
  // A member whose done cycle is known when it joins the open group (a bulk copy's, a wgmma's).
  void add_done(uint64_t t) { complete(add(), t); }
  // A copy of group `seq` landed at cycle t.
  void complete(uint64_t seq, uint64_t t) {
    for (auto& g : groups_)
      if (g.seq == seq) {
        if (g.pending) --g.pending;
        g.done = std::max(g.done, t);
        break;
      }
    trim();
  }
  // The cycle wait_group n is satisfied (all groups but the n newest committed ones landed), or
  // kInFlight. wait_all = commit_group + wait_group 0 (the caller commits first).
  uint64_t ready(uint32_t n) const {
    size_t committed = groups_.size() - (open_ ? 1 : 0);
    size_t must = committed > n ? committed - n : 0;
    uint64_t at = retired_done_;
    for (size_t i = 0; i < must; ++i) {
      if (groups_[i].pending) return kInFlight;
      at = std::max(at, groups_[i].done);
    }
    return at;
  }
  // No copy of any group in flight.
  bool idle() const {
    for (size_t i = 0; i < groups_.size(); ++i)
      if (groups_[i].pending) return false;
    return true;
  }

 private:
  struct Group {
    uint64_t seq;
    uint32_t pending;  // copies not landed
    uint64_t done;     // when the last landed copy landed
  };
  // Complete committed groups at the front are only needed for their landing time, once they are
  // not among the newest kKeep committed groups: wait_group N (N < kKeep) may still have to skip
  // them. (Bulk groups are complete at issue with a landing time in the future; folding the newest
  // of those into retired_done_ made every wait_group N wait for all of them.)
  static constexpr size_t kKeep = 32;
  void trim() {
    while (!groups_.empty() && !groups_.front().pending && groups_.size() - (open_ ? 1 : 0) > kKeep) {
      retired_done_ = std::max(retired_done_, groups_.front().done);
      groups_.pop_front();
    }
  }
  Fifo<Group> groups_;  // oldest first; the open group, if any, is last
  bool open_ = false;
  uint64_t next_seq_ = 0;
  uint64_t retired_done_ = 0;
};

// The mbarriers of an SM that wait on copies (keyed by CTA and shared-memory address).
class AsyncBarriers {
 public:
  struct Waiter {
    uint64_t warp_uid;
    const void* instr;  // the test_wait/try_wait whose result waits
  };
  struct Barrier {
    const void* cta = nullptr;
    uint64_t addr = 0;
    uint32_t pending = 0;  // linked copies not landed
    uint64_t done = 0;     // when the last linked copy landed
    std::vector<Waiter> waiters;
  };
  static constexpr uint32_t kNone = ~0u;

  // The barrier's index, created if new.
  uint32_t get(const void* cta, uint64_t addr) {
    uint32_t i = find(cta, addr);
    if (i != kNone) return i;
    for (i = 0; i < bars_.size(); ++i)
      if (!bars_[i].cta) break;
    if (i == bars_.size()) bars_.emplace_back();
    bars_[i] = Barrier{cta, addr, 0, 0, {}};
    return i;
  }
  uint32_t find(const void* cta, uint64_t addr) const {
    for (uint32_t i = 0; i < bars_.size(); ++i)
      if (bars_[i].cta == cta && bars_[i].addr == addr) return i;
    return kNone;
  }
  Barrier& operator[](uint32_t i) { return bars_[i]; }
  // A CTA retired: its barriers are gone (their shared memory is reused).
  void drop(const void* cta) {
    for (auto& b : bars_)
      if (b.cta == cta) b = Barrier{};
  }
  void clear() { bars_.clear(); }

 private:
  std::vector<Barrier> bars_;
};

}  // namespace warpsim::timing
