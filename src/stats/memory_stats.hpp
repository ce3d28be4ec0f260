// Per-kernel memory-hierarchy counters, named after the Nsight Compute metrics they correspond to
// (l1tex__*, idc__*, lts__*, dram__*), so a user can put a warpsim report next to an ncu report. TLB
// and constant-L1.5 counters have no public Nsight equivalent and carry warpsim names (tlb__*,
// idc__l15_*, idc__serialization_cycles).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpsim::stats {

struct MemoryStats {
  // L1TEX, global and local (LSU) traffic
  uint64_t l1_global_ld_requests = 0;   // l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  uint64_t l1_global_ld_sectors = 0;    // l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  uint64_t l1_global_ld_hits = 0;       // l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
  uint64_t l1_global_st_requests = 0;   // l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  uint64_t l1_global_st_sectors = 0;    // l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  uint64_t l1_atom_requests = 0;        // l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum (+ red)
  uint64_t l1_local_requests = 0;       // l1tex__t_requests_pipe_lsu_mem_local_op_{ld,st}.sum
  uint64_t l1_local_sectors = 0;
  uint64_t l1_local_hits = 0;
  uint64_t l1_wavefronts = 0;           // l1tex__t_output_wavefronts (tag lookups: lines per request)
  uint64_t l1_miss_queue_stalls = 0;    // requests that waited for a free miss-status entry
  // shared memory
  uint64_t shared_requests = 0;         // l1tex__data_pipe_lsu_wavefronts_mem_shared requests
  uint64_t shared_wavefronts = 0;       // l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  uint64_t shared_bank_conflicts = 0;   // l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  // constant caches (ld.const; Nsight Compute's IDC unit)
  uint64_t const_instructions = 0;      // warp-level ld.const instructions that touched memory
  uint64_t const_requests = 0;          // idc__requests.sum: one per distinct address of an instruction
  uint64_t const_l1_hits = 0;           // idc__requests_lookup_hit.sum (incl. hits on a line still being filled)
  uint64_t const_l1_misses = 0;         // idc__requests_lookup_miss.sum
  uint64_t const_l15_hits = 0;          // constant L1.5 hits (no Nsight metric)
  uint64_t const_l15_misses = 0;        // constant L1.5 misses: fetches from L2
  uint64_t const_serialization = 0;     // cycles added by splitting: (distinct addresses - 1) x const_cache.address_cycles
  // bulk copies (cp.async.bulk, the SM's TMA unit; no Nsight metric of their own: ncu counts their
  // L2 sectors as lts__t_sectors_srcunit_tex_op_read/write, validation/mem/h100_bulk_ncu.txt)
  uint64_t tma_copies = 0;              // copies (one per issuing lane)
  uint64_t tma_bytes_read = 0;          // global -> shared bytes
  uint64_t tma_bytes_write = 0;         // shared -> global bytes
  // TLBs
  uint64_t tlb_l1_hits = 0, tlb_l1_misses = 0, tlb_l2_hits = 0, tlb_l2_misses = 0;
  // L2 (LTS)
  uint64_t l2_requests_read = 0;        // lts__t_requests_op_read.sum (a request: one line's sectors from one L1)
  uint64_t l2_requests_write = 0;       // lts__t_requests_op_write.sum
  uint64_t l2_requests_atom = 0;        // lts__t_requests_op_atom.sum + op_red
  uint64_t l2_sectors_read = 0;         // lts__t_sectors_op_read.sum
  uint64_t l2_sectors_write = 0;        // lts__t_sectors_op_write.sum
  uint64_t l2_sectors_atom = 0;         // lts__t_sectors_op_atom.sum + op_red
  uint64_t l2_sector_hits = 0;          // lts__t_sectors_lookup_hit.sum (reads and atomics)
  uint64_t l2_sector_misses = 0;        // lts__t_sectors_lookup_miss.sum
  uint64_t l2_far_sectors = 0;          // sectors served through the other L2 partition
  // DRAM
  uint64_t dram_bytes_read = 0;         // dram__bytes_read.sum
  uint64_t dram_bytes_write = 0;        // dram__bytes_write.sum
  // Of the L2 reads and DRAM reads above, those of instruction-cache fills (code; no Nsight metric
  // of its own: ncu counts them in lts__t_sectors_op_read and dram__bytes_read like these totals)
  uint64_t ifetch_l2_sectors_read = 0;
  uint64_t ifetch_dram_bytes_read = 0;
  // DRAM accesses by how they found their bank when first served: [0] row open (a row-buffer
  // hit), [1] bank closed (ACT), [2] another row open (PRE + ACT); and the bytes each memory
  // controller read and wrote (index: controller). No Nsight metric: ncu has no row counters.
  std::array<uint64_t, 3> dram_row{};
  std::vector<uint64_t> dram_ctrl_read_bytes, dram_ctrl_write_bytes;
  void add_controller_bytes(uint32_t c, uint32_t controllers, bool write, uint64_t bytes) {
    auto& v = write ? dram_ctrl_write_bytes : dram_ctrl_read_bytes;
    if (v.size() < controllers) v.resize(controllers, 0);
    if (c < v.size()) v[c] += bytes;
  }
  size_t controllers() const { return std::max(dram_ctrl_read_bytes.size(), dram_ctrl_write_bytes.size()); }
  uint64_t controller_bytes(size_t c, bool write) const {
    const auto& v = write ? dram_ctrl_write_bytes : dram_ctrl_read_bytes;
    return c < v.size() ? v[c] : 0;
  }
  // crossbar
  uint64_t xbar_read_bytes = 0;         // l1tex__m_xbar2l1tex_read_bytes.sum: data L2 returns to L1
  uint64_t xbar_write_bytes = 0;        // l1tex__m_l1tex2xbar_write_bytes.sum: requests and store data to L2
  // load latency (global/local loads, issue to data): sum and log2 histogram
  uint64_t load_latency_sum = 0, load_latency_count = 0;
  std::array<uint64_t, 16> load_latency_hist{};  // bucket b: [2^b, 2^(b+1)) cycles, last open

  void add_load_latency(uint64_t c) {
    load_latency_sum += c;
    ++load_latency_count;
    unsigned b = 0;
    while (b + 1 < load_latency_hist.size() && (c >> (b + 1))) ++b;
    ++load_latency_hist[b];
  }
  // Adds the L2 and DRAM traffic of instruction fetch (counted on its own while the kernel runs)
  // to the totals, and keeps it apart in ifetch_*.
  void add_ifetch(const MemoryStats& f) {
    l2_sectors_read += f.l2_sectors_read;
    l2_requests_read += f.l2_requests_read;
    l2_sector_hits += f.l2_sector_hits;
    l2_sector_misses += f.l2_sector_misses;
    l2_far_sectors += f.l2_far_sectors;
    dram_bytes_read += f.dram_bytes_read;
    for (size_t i = 0; i < dram_row.size(); ++i) dram_row[i] += f.dram_row[i];
    for (size_t c = 0; c < f.dram_ctrl_read_bytes.size(); ++c)
      add_controller_bytes(uint32_t(c), uint32_t(f.dram_ctrl_read_bytes.size()), false, f.dram_ctrl_read_bytes[c]);
    ifetch_l2_sectors_read += f.l2_sectors_read;
    ifetch_dram_bytes_read += f.dram_bytes_read;
  }
  // Nsight-named metrics (name, value), rates and bandwidths derived with the kernel's time.
  std::vector<std::pair<std::string, double>> metrics(double seconds) const;
  std::string json(double seconds) const;
  std::string text(double seconds) const;
};

}  // namespace warpsim::stats
