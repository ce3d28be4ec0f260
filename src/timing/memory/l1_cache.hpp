// An SM's L1 data cache on the load/store path (the "streaming" L1 of Volta and Ampere): sectored
// tags whose capacity is what the shared-memory carve-out leaves, and miss-status entries for the
// line requests in flight to L2. A miss never blocks the tag stage: later hits proceed, and a
// miss to a sector already in flight joins that request (hit-under-miss, miss-under-miss). Only
// running out of miss-status entries holds the load/store unit. Write-through, no allocation on
// stores; global atomics bypass it.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

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
    std::vector<uint32_t> waiters;  // instruction trackers of the SM
  };

  void configure(uint32_t capacity_bytes, uint32_t line, uint32_t assoc, uint32_t entries) {
    resize(capacity_bytes, line, assoc);
    // Entries are created as misses need them (in the order a full free list would hand them out):
    // a kernel with few misses in flight never touches the memory of 1024 of them on 108 SMs.
    entries_.clear();
    free_.clear();
    max_entries_ = entries;
    by_line_.clear();
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
    auto it = by_line_.find(line);
    if (it == by_line_.end()) return 0;
    uint32_t got = 0;
    for (uint32_t e : it->second) {
      Entry& en = entries_[e];
      if (en.sectors & sectors) {
        got |= en.sectors & sectors;
        en.waiters.push_back(waiter);
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
    uint32_t e;
    if (free_.empty()) {
      e = uint32_t(entries_.size());
      entries_.emplace_back();
    } else {
      e = free_.back();
      free_.pop_back();
    }
    Entry& en = entries_[e];
    en.line = line;
    en.sectors = sectors;
    en.allocate = allocate;
    en.evict_first = evict_first;
    en.busy = true;
    en.waiters.clear();
    en.waiters.push_back(waiter);
    en.joinable = joinable;
    if (joinable) by_line_[line].push_back(e);
    return e;
  }
  // The data of entry e is back: fills the tags and frees the entry; its waiters are returned
  // (valid until the next allocate).
  const std::vector<uint32_t>& complete(uint32_t e) {
    Entry& en = entries_[e];
    if (en.allocate) tags_.fill(en.line, en.sectors, en.evict_first ? Evict::First : Evict::Unchanged);
    auto it = en.joinable ? by_line_.find(en.line) : by_line_.end();
    if (it != by_line_.end()) {
      auto& v = it->second;
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i] == e) {
          v[i] = v.back();
          v.pop_back();
          break;
        }
      if (v.empty()) by_line_.erase(it);
    }
    en.busy = false;
    free_.push_back(e);
    return en.waiters;
  }
  bool valid_entry(uint32_t e) const { return e < entries_.size() && entries_[e].busy; }
  void clear_inflight() {
    for (uint32_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].busy) {
        entries_[i].busy = false;
        free_.push_back(i);
      }
    by_line_.clear();
  }

 private:
  SectorCache tags_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;  // entries created and free again
  size_t max_entries_ = 0;
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_line_;
};

}  // namespace warpsim::timing
