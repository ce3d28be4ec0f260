#include "timing/memory/const_cache.hpp"

#include <algorithm>

#include "timing/free_slots.hpp"

namespace warpsim::timing {

void ConstCache::configure(const config::Machine::ConstCache& c, uint32_t l1_latency) {
  enabled_ = c.enabled && c.l1_line && c.l15_line && c.l1_assoc && c.l15_assoc;
  if (!enabled_) return;
  l1_line_ = c.l1_line;
  l15_line_ = c.l15_line;
  l1_latency_ = std::max<uint32_t>(1, l1_latency);
  l15_latency_ = std::max<uint32_t>(1, c.l15_latency);
  l1_.configure(uint64_t(c.l1_bytes / c.l1_line) / c.l1_assoc * c.l1_assoc, c.l1_assoc, false);
  l15_.configure(uint64_t(c.l15_bytes / c.l15_line) / c.l15_assoc * c.l15_assoc, c.l15_assoc, false);
  pend1_.clear();
  pend15_.clear();
  fetches_.clear();
  free_.clear();
}

ConstCache::Pending* ConstCache::pending(std::unordered_map<uint64_t, Pending>& map, uint64_t line, uint64_t t) {
  auto it = map.find(line);
  if (it == map.end()) return nullptr;
  if (it->second.fetch == kNoFetch && it->second.ready <= t) {
    map.erase(it);
    return nullptr;
  }
  return &it->second;
}

// Entries whose data has arrived are dropped when looked up; this bounds the ones never looked up again.
void ConstCache::sweep(std::unordered_map<uint64_t, Pending>& map, uint64_t t) {
  if (map.size() < 4096) return;
  for (auto it = map.begin(); it != map.end();)
    if (it->second.fetch == kNoFetch && it->second.ready <= t) it = map.erase(it);
    else ++it;
}

uint32_t ConstCache::join(uint32_t fetch, uint32_t waiter) {
  fetches_[fetch].waiters.push_back(waiter);
  return fetch;
}

ConstCache::Result ConstCache::access(uint64_t addr, uint64_t t, uint32_t waiter) {
  Result r;
  const uint64_t l1 = addr / l1_line_, l15 = addr / l15_line_;
  sweep(pend1_, t);
  sweep(pend15_, t);
  // Constant L1.
  if (l1_.lookup(l1, 1)) {
    r.level = Level::L1;
    r.ready = t + l1_latency_;
    if (Pending* p = pending(pend1_, l1, t)) {
      if (p->fetch != kNoFetch) r.fetch = join(p->fetch, waiter);
      else r.ready = std::max(r.ready, p->ready);
    }
    return r;
  }
  l1_.fill(l1, 1);
  // L1.5.
  if (l15_.lookup(l15, 1)) {
    r.level = Level::L15;
    r.ready = t + l15_latency_;
    if (Pending* p = pending(pend15_, l15, t)) {
      if (p->fetch != kNoFetch) r.fetch = join(p->fetch, waiter);
      else r.ready = std::max(r.ready, p->ready);
    }
    if (r.fetch != kNoFetch) {
      pend1_[l1] = Pending{0, r.fetch};
      fetches_[r.fetch].l1_lines.push_back(l1);
    } else {
      pend1_[l1] = Pending{r.ready, kNoFetch};
    }
    return r;
  }
  // Miss in both: a fetch from L2 fills both levels.
  l15_.fill(l15, 1);
  const uint32_t f = take_slot(fetches_, free_);
  Fetch& fe = fetches_[f];
  fe.busy = true;
  fe.parts = 0;
  fe.l15 = l15;
  fe.l1_lines.assign(1, l1);
  fe.waiters.assign(1, waiter);
  pend15_[l15] = Pending{0, f};
  pend1_[l1] = Pending{0, f};
  r.level = Level::Miss;
  r.ready = t + l15_latency_;
  r.fetch = f;
  r.new_fetch = true;
  r.fetch_line = l15;
  return r;
}

bool ConstCache::part_done(uint32_t f, std::vector<uint32_t>& out) {
  if (!valid_fetch(f)) return false;
  Fetch& fe = fetches_[f];
  if (fe.parts && --fe.parts) return false;
  auto drop = [f](std::unordered_map<uint64_t, Pending>& map, uint64_t line) {
    auto it = map.find(line);
    if (it != map.end() && it->second.fetch == f) map.erase(it);
  };
  drop(pend15_, fe.l15);
  for (uint64_t l : fe.l1_lines) drop(pend1_, l);
  out.insert(out.end(), fe.waiters.begin(), fe.waiters.end());
  fe.busy = false;
  fe.waiters.clear();
  fe.l1_lines.clear();
  free_.push_back(f);
  return true;
}

void ConstCache::clear_inflight() {
  for (uint32_t i = 0; i < fetches_.size(); ++i)
    if (fetches_[i].busy) {
      fetches_[i].busy = false;
      free_.push_back(i);
    }
  pend1_.clear();
  pend15_.clear();
}

}  // namespace warpsim::timing
