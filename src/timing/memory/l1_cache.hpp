// An SM's L1 data cache on the load/store path (the "streaming" L1 of Volta and Ampere): sectored
// tags whose capacity is what the shared-memory carve-out leaves, and miss-status entries for the
// line requests in flight to L2. A miss never blocks the tag stage: later hits proceed, and a
// miss to a sector already in flight joins that request (hit-under-miss, miss-under-miss). Only
// running out of miss-status entries holds the load/store unit. Write-through, no allocation on
// stores; global atomics bypass it.
#pragma once

#include <cstdint>
#include <algorithm>
#include <vector>

#include "timing/free_slots.hpp"
#include "timing/memory/line_map.hpp"
#include "timing/memory/sector_cache.hpp"

namespace warpsim::timing {

class L1Cache {
 public:
  struct Entry {
    uint64_t line = 0;      // virtual line (the L1 is virtually tagged)
    uint32_t sectors = 0;
    bool allocate = true;   // fill the tags when the data returns
    bool evict_first = false;
    bool busy = false;
    bool joinable = true;
    uint32_t next_same_line = kNil;  // the next joinable entry of the same line
    // Its waiters (instruction trackers of the SM), oldest first: a list in waiters_.
    uint32_t first_waiter = kNil, last_waiter = kNil;
  };
  static constexpr uint32_t kNil = ~0u;

  void configure(uint32_t capacity_bytes, uint32_t line, uint32_t assoc, uint32_t entries) {
    resize(capacity_bytes, line, assoc);
    // Entries are created as misses need them (in the order a full free list would hand them out):
    // a kernel with few misses in flight never touches the memory of 1024 of them on 108 SMs.
    entries_.clear();
    free_.clear();
    max_entries_ = entries;
    heads_.clear();
  }
  // A new capacity for the tags (a different shared-memory carve-out); requests in flight keep
  // their miss-status entries.
  void resize(uint32_t capacity_bytes, uint32_t line, uint32_t assoc) {
    tags_.configure(uint64_t(capacity_bytes / line) / assoc * assoc, assoc, false);
  }
  bool enabled() const { return tags_.enabled(); }
  // Valid sectors among `sectors`.
  uint32_t lookup(uint64_t line, uint32_t sectors) { return tags_.lookup(line, sectors); }
  // Sectors among `sectors` already in flight; adds `waiter` to each entry that has some.
  uint32_t join(uint64_t line, uint32_t sectors, uint32_t waiter, uint32_t& joined) {
    joined = 0;
    uint32_t got = 0;
    for (uint32_t e = heads_.head(line); e != kNil; e = entries_[e].next_same_line) {
      Entry& en = entries_[e];
      if (en.sectors & sectors) {
        got |= en.sectors & sectors;
        add_waiter(en, waiter);
        ++joined;
      }
    }
    return got;
  }
  bool full() const { return free_.empty() && entries_.size() >= max_entries_; }
  // A new miss-status entry (the caller checked !full()).
  // `joinable`: later misses may wait on it (loads); a store's entry only holds its place in
  // the write path until L2 accepts the data.
  uint32_t allocate(uint64_t line, uint32_t sectors, bool allocate, bool evict_first, uint32_t waiter,
                    bool joinable = true) {
    const uint32_t e = take_slot(entries_, free_);
    Entry& en = entries_[e];
    en.line = line;
    en.sectors = sectors;
    en.allocate = allocate;
    en.evict_first = evict_first;
    en.busy = true;
    en.first_waiter = en.last_waiter = kNil;
    add_waiter(en, waiter);
    en.joinable = joinable;
    en.next_same_line = kNil;
    if (joinable) {
      en.next_same_line = heads_.head(line);
      heads_.set(line, e);
    }
    return e;
  }
  // The data of entry e is back: fills the tags and frees the entry; its waiters, oldest first,
  // replace the contents of `waiters`.
  void complete(uint32_t e, std::vector<uint32_t>& waiters) {
    Entry& en = entries_[e];
    if (en.allocate) tags_.fill(en.line, en.sectors, en.evict_first ? Evict::First : Evict::Unchanged);
    if (en.joinable) {
      // Unlink e from its line's chain.
      uint32_t h = heads_.head(en.line);
      if (h == e) {
        if (en.next_same_line == kNil) heads_.erase(en.line);
        else heads_.set(en.line, en.next_same_line);
      } else {
        while (h != kNil && entries_[h].next_same_line != e) h = entries_[h].next_same_line;
        if (h != kNil) entries_[h].next_same_line = en.next_same_line;
      }
    }
    en.busy = false;
    free_.push_back(e);
    waiters.clear();
    for (uint32_t n = en.first_waiter; n != kNil;) {
      waiters.push_back(waiter_nodes_[n].tracker);
      const uint32_t next = waiter_nodes_[n].next;
      free_waiters_.push_back(n);
      n = next;
    }
    en.first_waiter = en.last_waiter = kNil;
  }
  bool valid_entry(uint32_t e) const { return e < entries_.size() && entries_[e].busy; }
  void prefetch_entry(uint32_t e) const {
    if (e < entries_.size()) __builtin_prefetch(&entries_[e]);
  }
  void clear_inflight() {
    for (uint32_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].busy) {
        entries_[i].busy = false;
        free_.push_back(i);
      }
    heads_.clear();
    waiter_nodes_.clear();
    free_waiters_.clear();
  }

 private:
  SectorCache tags_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;  // entries created and free again
  size_t max_entries_ = 0;
  // The first joinable entry of each line in flight (a map of vectors made two heap allocations
  // per miss).
  LineMap heads_;
  // Waiters of all entries, as lists in one pool (a vector per entry cost an allocation for every
  // entry an SM created, hundreds per SM and launch, and their frees when the SM went).
  struct WaiterNode {
    uint32_t tracker;
    uint32_t next;
  };
  std::vector<WaiterNode> waiter_nodes_;
  std::vector<uint32_t> free_waiters_;
  void add_waiter(Entry& en, uint32_t tracker) {
    const uint32_t n = take_slot(waiter_nodes_, free_waiters_);
    waiter_nodes_[n] = WaiterNode{tracker, kNil};
    if (en.last_waiter == kNil) en.first_waiter = n;
    else waiter_nodes_[en.last_waiter].next = n;
    en.last_waiter = n;
  }
};

}  // namespace warpsim::timing
