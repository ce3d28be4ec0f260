// One memory controller and the DRAM behind it (the A100 has ten, each driving four HBM2 channels
// of two pseudo-channels). The standard's timing rules come from dram_spec.hpp as a table; this
// class keeps the state (open rows, the clock at which each command becomes legal on each node),
// queues the requests and schedules commands.
//
// Time: the interface speaks SM clock cycles; inside, everything is in DRAM clocks of the memory
// clock (gpu.mem_clock_mhz). A request pushed at SM cycle s arrives at the first DRAM clock edge at
// or after s; a command at DRAM clock d is issued by advance(now) once d's edge is at or before now;
// a completion time is rounded up to the next SM cycle. Push the requests of a cycle before calling
// advance() for that cycle.
//
// Scheduling, per pseudo-channel (pseudo-channels are independent: own banks, own data bus):
// FR-FCFS over the arrived requests of the active queue (reads, or writes while draining): among the
// commands that can issue earliest, refresh first, then column commands (row hits), then
// ACT/PRE, oldest request first. A row is not closed under pending hits, but once `row_hit_cap` hits
// have bypassed an older request to another row of the bank, the hits wait and the bank switches
// rows. Writes are served when a pseudo-channel has `write_high_watermark` of them queued (until
// `write_low_watermark` remain), when it has no reads, or when its oldest write has waited
// `write_max_wait` clocks. Refresh: all-bank (PREA then REF every nREFI) or per-bank (REFsb of one
// bank every nREFI / banks, round robin), staggered over the pseudo-channels.
//
// Nothing ticks per DRAM clock: a pseudo-channel computes the next clock at which anything can
// happen (a command becomes legal, a request arrives, a refresh falls due) and jumps there.
//
// A decision costs O(banks with requests), not a pass over the queue: requests are linked into
// per-bank lists as they arrive, and each bank keeps the command it offers until its list, its open
// row or its hit streak changes (BankQueue). tests/timing/dram_reference.hpp keeps the plain
// whole-queue scheduler this replaced; a randomized test checks that both decide the same.
#pragma once

#include <cstdint>
#include <vector>

#include "config/machine.hpp"
#include "timing/dram/dram_spec.hpp"

namespace warpsim::timing::dram {

struct Request {
  uint64_t id;
  uint64_t addr;   // controller-local physical address (see controller_local_address)
  bool write;
  uint32_t bytes;  // 32 or 64: a multiple of the access granularity, within one interleave granule
};

// How a request found its bank when its first column command was decided (ControllerStats).
enum class RowOutcome : uint8_t { Hit, Miss, Conflict };

struct Completion {
  uint64_t id;
  uint64_t done;  // SM cycle: read data back at the controller, or write data written
  RowOutcome row = RowOutcome::Hit;
};

struct ControllerStats {
  uint64_t reads = 0, writes = 0;  // completed requests
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t row_hits = 0;       // requests whose row was open when they were first served
  uint64_t row_misses = 0;     // ... whose bank was closed (ACT)
  uint64_t row_conflicts = 0;  // ... whose bank had another row open (PRE + ACT)
  uint64_t activates = 0, precharges = 0, refreshes = 0;
  uint64_t read_to_write_turnarounds = 0, write_to_read_turnarounds = 0;
  uint64_t data_bus_busy = 0;       // DRAM clocks of data transfer, summed over pseudo-channels
  uint64_t queue_latency_sum = 0;   // SM cycles from push to the request's last column command
  uint64_t read_latency_sum = 0;    // SM cycles from push to completion, reads
};

// Where an address lives inside one controller.
struct Location {
  uint32_t pc;          // pseudo-channel index in the controller: channel * pseudo_channels + pseudo-channel
  uint32_t bank_group;
  uint32_t bank;        // within its bank group
  uint32_t row;
  uint32_t column;      // in accesses (access_bytes units)
};

// The controller-local address of a physical address when consecutive `interleave_bytes` granules
// go to `controllers` controllers round robin: the granule index divided by the controller count,
// with the offset inside the granule kept.
inline uint64_t controller_local_address(uint64_t phys, uint32_t controllers, uint32_t interleave_bytes) {
  return (phys / interleave_bytes / controllers) * interleave_bytes + phys % interleave_bytes;
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
  // Clock conversions (exact rational arithmetic on the two frequencies).
  uint64_t dram_to_sm(uint64_t dram_clock) const;      // rounded up
  uint64_t sm_to_dram_ceil(uint64_t sm_cycle) const;
  uint64_t sm_to_dram_floor(uint64_t sm_cycle) const;

 private:
  static constexpr uint64_t kNever = ~0ull;
  static constexpr uint32_t kClosed = ~0u;
  enum Kind : uint8_t { kUnset, kHit, kMiss, kConflict };

  static constexpr uint32_t kNil = ~0u;  // no entry (end of a list)

  // A queued request. Entries live in one pool (entries_) and are linked into two lists of their
  // pseudo-channel's read or write queue: the queue in arrival order (every entry), and, once
  // arrived, the list of arrived entries of its bank (also in arrival order). Removing a served
  // request from the middle of either is O(1).
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
    uint32_t prev, next;            // the queue, arrival order
    uint32_t bank_prev, bank_next;  // the bank's arrived entries, arrival order
  };

  // Per bank of one queue: the arrived requests, the two a scheduling decision looks at (the
  // oldest to the open row, the oldest to any other row), and the command the bank offers. A
  // decision issues one command on one bank, while evaluate() looks at every bank with requests, so
  // both are kept until something they depend on changes: the hit and the other when the list or
  // the bank's open row changes (`stale`: walk the list again), the candidate also when the bank's
  // streak does (`offer_ok`).
  struct BankQueue {
    uint32_t head = kNil, tail = kNil;
    uint32_t hit = kNil, other = kNil;
    bool stale = false;
    bool offer_ok = false;
    // The candidate (valid while offer_ok): the command, its priority class, the request it serves.
    Cmd cmd = Cmd::Count;
    uint8_t prio = 0;
    bool bypass = false;
    uint32_t idx = kNil;
    uint64_t seq = 0;
  };

  // A read or write queue of one pseudo-channel. Requests arrive in order (arrival clocks do not
  // decrease: a push arrives at the later of its clock edge and the pseudo-channel's last decision),
  // so the arrived ones are a prefix of the queue and `pending` marks where the rest begins.
  struct Queue {
    uint32_t head = kNil, tail = kNil;  // every entry, arrival order
    uint32_t pending = kNil;            // the first entry that has not arrived yet
    uint32_t size = 0, arrived = 0;
    std::vector<BankQueue> banks;
    std::vector<uint64_t> busy;  // bit per bank whose arrived list is not empty
  };

  struct Pc {
    Queue rq, wq;
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
    // The decision evaluate() made at `cur` that lay beyond the last advance(): valid until a
    // request arrives (push) or the clock moves, so the next advance() need not redo it.
    bool decided = false;
  };

  struct Decision {
    uint64_t time = kNever;
    uint8_t prio = 255;     // 0 refresh, 1 column (row hit), 2 ACT/PRE
    uint64_t seq = kNever;  // age of the request it serves
    Cmd cmd = Cmd::Count;   // Count: nothing to issue, only wake up (an arrival, a due refresh)
    bool write_queue = false;
    bool bypass = false;    // a column command that passes an older request to another row
    uint32_t idx = kNil;    // the request it serves (entries_), kNil for refresh and closed-page PRE
    uint32_t bank = 0;      // flat bank index in the pseudo-channel
  };

  void run_pc(uint32_t p, uint64_t limit);
  Decision evaluate(uint32_t p);
  void execute(uint32_t p, const Decision& d);
  void admit(Pc& pc, Queue& q);                    // moves the arrived requests into their banks' lists
  void remove(Queue& q, uint32_t e);               // a served request leaves its queue
  void scan_bank(const Pc& pc, BankQueue& bq, uint32_t bank);  // finds the oldest hit and other
  void make_offer(const Pc& pc, BankQueue& bq, uint32_t bank);  // the bank's candidate command
  void row_changed(Pc& pc, uint32_t bank);         // ACT or PRE: the bank's hits and others change
  uint64_t earliest(Cmd c, uint32_t p, uint32_t bank) const;
  void update_timing(Cmd c, uint32_t p, uint32_t bank, uint64_t t);
  uint64_t refresh_interval() const { return refresh_interval_; }
  uint64_t compute_refresh_interval() const;
  void skip_idle_refreshes(Pc& pc, uint64_t until);

  config::DramConfig cfg_;
  Spec spec_;
  uint64_t fs_ = 1, fd_ = 1;  // SM and DRAM clock frequencies, reduced ratio
  uint64_t refresh_interval_ = 0;  // DRAM clocks between refresh commands of a pseudo-channel (0: none)
  // Address decoding.
  uint32_t access_shift_ = 0, col_lo_bits_ = 0, pc_bits_ = 0, bg_bits_ = 0, col_hi_bits_ = 0, bank_bits_ = 0;

  // Timing state: per node of each timing level, the first clock at which each command may issue.
  using Ready = std::array<uint64_t, kCmdCount>;
  std::vector<Ready> ready_[kTimingLevels];
  // Per (command, level): the (following command, latency) pairs the table gives.
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
  std::vector<Entry> entries_;      // every queued request (see Entry), named by index
  std::vector<uint32_t> free_entries_;
  struct Done {
    uint64_t done, seq, id;
    RowOutcome row;
    bool operator>(const Done& o) const { return done != o.done ? done > o.done : seq > o.seq; }
  };
  std::vector<Done> done_;  // min-heap
  uint64_t seq_ = 0;
  size_t reads_queued_ = 0, writes_queued_ = 0;
  ControllerStats stats_;
};

}  // namespace warpsim::timing::dram
