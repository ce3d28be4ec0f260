// Everything a memory request meets after it leaves an SM's L1: the L2 TLBs shared by groups of
// SMs and the GMMU's page walkers, the crossbar, the L2 slices in their partitions (the near
// partition caches what its GPCs read; its victims move to the far one), and the memory
// controllers with their DRAM. Event-driven: requests and responses are events in time order;
// the GPU advances the memory system to each cycle before its SMs issue in it.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "config/machine.hpp"
#include "stats/memory_stats.hpp"
#include "timing/dram/controller.hpp"
#include "timing/memory/crossbar.hpp"
#include "timing/memory/sector_cache.hpp"
#include "timing/memory/tlb.hpp"

namespace warpsim::timing {

// Who receives responses: an SM's L1 (its miss-status entry `tag`).
class MemClient {
 public:
  virtual ~MemClient() = default;
  virtual void on_response(uint32_t tag, uint64_t t) = 0;
  // A response for `tag` comes soon: the client may bring what on_response will read into the
  // host's caches. No effect on the model.
  virtual void prefetch_response(uint32_t tag) const {}
};

// Discard (PTX discard.global.L2): the line's contents become undefined; its L2 copies go without a
// write-back. Demote (applypriority.global.L2::evict_normal): a persisting line becomes normal.
// Both answer like a store (an acknowledgement, no data).
enum class MemOpKind : uint8_t { Read, Write, Atomic, Discard, Demote };

struct MemRequest {
  uint32_t sm = 0;
  uint32_t tag = 0;          // returned to the SM with the response
  uint64_t line = 0;         // physical line address (address / line bytes)
  uint32_t sectors = 0;      // sectors of the line
  MemOpKind kind = MemOpKind::Read;
  bool respond = true;       // a response goes back: data (reads, atom) or an acknowledgement (stores, red)
  bool red = false;          // an atomic whose value does not return (its response is an acknowledgement)
  // Atomics: the rounds of distinct addresses the L1 splits the line's lanes into (coalescer.hpp),
  // carried as one message: the first round has `sectors`, the others `repeat_sectors` each; the
  // L1 needs `spread` cycles to feed them all. Each round costs a tag lookup at the slice.
  uint16_t rounds = 1;
  uint16_t spread = 0;
  uint32_t repeat_sectors = 0;
  uint32_t atomic_sectors() const {
    return uint32_t(std::popcount(sectors)) + uint32_t(rounds - 1) * uint32_t(std::popcount(repeat_sectors));
  }
  Evict evict = Evict::Unchanged;  // eviction class asked for (cache operators, hints, access-policy window)
  bool no_allocate = false;  // .L2::no_allocate: a read miss does not fill the L2
  stats::MemoryStats* ctr = nullptr;  // the issuing kernel's counters
};

class MemorySystem {
 public:
  explicit MemorySystem(const config::Machine& m);
  ~MemorySystem();

  void attach(uint32_t sm, MemClient* c);
  uint32_t gpc_of(uint32_t sm) const;
  uint32_t tlb_group_of(uint32_t sm) const;
  uint32_t partition_of_sm(uint32_t sm) const;
  // The L2 slice that serves SM `sm`'s requests for `line` (in the SM's partition).
  uint32_t slice_for(uint32_t sm, uint64_t line) const;

  // An L1 TLB miss of SM `sm` for virtual page `vpn` at cycle t: the cycle its translation is
  // ready (L2 TLB hit, or a page walk by one of the group's walkers).
  uint64_t translate(uint32_t sm, uint64_t vpn, uint64_t t, stats::MemoryStats* ctr);

  // A request leaving SM `sm`'s L1 at cycle t (>= the cycle the GPU last advanced to).
  void send(const MemRequest& r, uint64_t t);
  // Processes every event up to and including cycle t.
  void advance(uint64_t t);
  uint64_t next_event() const;
  // The last cycle the memory system has advanced to (the clock a later run must not go behind).
  uint64_t now() const;
  // Forgets every SM (responses are dropped) and every request's counters; cache contents stay.
  void detach_all();
  // Runs every event in flight to completion.
  void drain();
  // L2 state persists from kernel to kernel, as on the GPU, unless flushed: flush_l2 writes every
  // dirty sector back to DRAM from cycle t on, runs those writes to completion (now() moves past
  // them) and leaves every slice empty. Nsight Compute does this before each profiled kernel
  // (--cache-control all, its default); `warpsim run --cache-control all` asks for the same so
  // that per-kernel figures compare with ncu's. Translations (the L2 TLBs) are kept.
  void flush_l2(uint64_t t);
  // Lines held by all slices (tests, reports).
  uint64_t l2_lines() const;
  // Bytes every DRAM controller has read and written so far (the timeline's DRAM series).
  void dram_bytes(uint64_t& read, uint64_t& written) const;

  // L2 residency control (cudaLimitPersistingL2CacheSize): sets aside `bytes` of the L2 for
  // persisting lines, in 1/16ths of the L2 ([WP]: "A100 allows L2 cache to be set-aside for
  // persistent accesses in 1/16th increments (2.5 MB)"), rounded up to a whole step; a step is
  // assoc/16 ways of every set of every slice. Returns the ways per set now reserved. Not in MIG
  // mode on hardware ([WP]: "when the GPU is configured in MIG mode, the L2 cache set-aside
  // functionality is disabled"); there is no MIG model here.
  uint32_t set_persisting_bytes(uint64_t bytes);
  // cudaCtxResetPersistingL2Cache: every persisting line becomes normal.
  void reset_persisting();
  // Persisting lines held by all slices (tests, reports).
  uint64_t persisting_lines() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

}  // namespace warpsim::timing
