// The memory hierarchy of the timing tests' machines: a small L1/L2 and an HBM2-like DRAM,
// values for tests only (expectations are computed from these fields, never from the shipped
// configs). Refresh is off so exact latency bounds hold.
#pragma once

#include "config/machine.hpp"

namespace warpsim::timing {

inline void set_test_memory(config::Machine& m) {
  m.mem_clock_mhz = 1000;
  m.l1_shared_bytes = 128 * 1024;
  m.shared_carveouts_kb = {0, 32, 64, 100};
  m.l1.max_outstanding = 64;
  m.l1.miss_latency = 10;
  m.tlb.page_bytes = 2 << 20;
  m.tlb.l1_entries = m.tlb.l1_assoc = 16;
  m.tlb.l2_entries = 1024;
  m.tlb.l2_assoc = 16;
  m.tlb.groups_per_gpc = 1;
  m.tlb.walkers = 2;
  m.tlb.walk_latency = 100;
  m.xbar = {20, 256, 64, 16};
  m.l2_bytes = 1 << 20;
  m.l2.partitions = 1;
  m.l2.slices = 4;
  m.l2.hit_latency = 50;
  m.l2.dram_latency = 100;
  m.l2.bytes_per_clk = 64;
  m.l2.max_outstanding = 64;
  auto& d = m.dram;
  d.controllers = 2;
  d.channels_per_controller = 2;
  d.pseudo_channels = 2;
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.rows = 16384;
  d.row_bytes = 1024;
  d.access_bytes = 32;
  d.bus_bits_per_pseudo_channel = 64;
  d.burst_length = 4;
  d.interleave_bytes = 256;
  d.read_queue = d.write_queue = 64;
  d.write_high_watermark = 24;
  d.write_low_watermark = 8;
  d.write_max_wait = 1000;
  d.row_hit_cap = 16;
  d.refresh = config::DramRefresh::None;
  d.timing = {14, 14, 33, 14, 4, 4, 16, 2, 4, 4, 6, 16, 4, 8, 4, 350, 160, 3900};
}

}  // namespace warpsim::timing
