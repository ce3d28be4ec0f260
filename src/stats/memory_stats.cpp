#include "stats/memory_stats.hpp"

#include <fmt/format.h>

namespace warpsim::stats {

namespace {
double pct(uint64_t a, uint64_t b) { return b ? 100.0 * double(a) / double(b) : 0.0; }
double per_s(double bytes, double s) { return s > 0 ? bytes / s : 0.0; }
}  // namespace

std::vector<std::pair<std::string, double>> MemoryStats::metrics(double s) const {
  const uint64_t l1_sectors = l1_global_ld_sectors + l1_local_sectors;
  return {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", double(l1_global_ld_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", double(l1_global_ld_sectors)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", double(l1_global_ld_hits)},
      {"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", pct(l1_global_ld_hits, l1_global_ld_sectors)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", double(l1_global_st_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", double(l1_global_st_sectors)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", double(l1_atom_requests)},
      {"l1tex__t_requests_pipe_lsu_mem_local.sum", double(l1_local_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_local.sum", double(l1_local_sectors)},
      {"l1tex__t_sector_hit_rate.pct", pct(l1_global_ld_hits + l1_local_hits, l1_sectors)},
      {"l1tex__t_output_wavefronts.sum", double(l1_wavefronts)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", double(shared_wavefronts)},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", double(shared_bank_conflicts)},
      {"idc__instructions.sum", double(const_instructions)},
      {"idc__requests.sum", double(const_requests)},
      {"idc__requests_lookup_hit.sum", double(const_l1_hits)},
      {"idc__requests_lookup_miss.sum", double(const_l1_misses)},
      {"idc__l15_lookup_hit.sum", double(const_l15_hits)},
      {"idc__l15_lookup_miss.sum", double(const_l15_misses)},
      {"idc__serialization_cycles.sum", double(const_serialization)},
      {"warpsim__tma_copies.sum", double(tma_copies)},
      {"warpsim__tma_bytes_read.sum", double(tma_bytes_read)},
      {"warpsim__tma_bytes_write.sum", double(tma_bytes_write)},
      {"tlb__l1_hit_rate.pct", pct(tlb_l1_hits, tlb_l1_hits + tlb_l1_misses)},
      {"tlb__l1_misses.sum", double(tlb_l1_misses)},
      {"tlb__l2_hit_rate.pct", pct(tlb_l2_hits, tlb_l2_hits + tlb_l2_misses)},
      {"tlb__l2_misses.sum", double(tlb_l2_misses)},
      {"lts__t_requests_op_read.sum", double(l2_requests_read)},
      {"lts__t_requests_op_write.sum", double(l2_requests_write)},
      {"lts__t_requests_op_atom.sum", double(l2_requests_atom)},
      {"lts__t_sectors_op_read.sum", double(l2_sectors_read)},
      {"lts__t_sectors_op_write.sum", double(l2_sectors_write)},
      {"lts__t_sectors_op_atom.sum", double(l2_sectors_atom)},
      {"lts__t_sector_hit_rate.pct", pct(l2_sector_hits, l2_sector_hits + l2_sector_misses)},
      {"lts__t_sectors_srcunit_ltcfabric.sum", double(l2_far_sectors)},
      {"dram__bytes_read.sum", double(dram_bytes_read)},
      {"dram__bytes_write.sum", double(dram_bytes_write)},
      {"dram__bytes_read.sum.per_second", per_s(double(dram_bytes_read), s)},
      {"warpsim__dram_row_hits.sum", double(dram_row[0])},
      {"warpsim__dram_row_misses.sum", double(dram_row[1])},
      {"warpsim__dram_row_conflicts.sum", double(dram_row[2])},
      {"warpsim__dram_row_hit_rate.pct", pct(dram_row[0], dram_row[0] + dram_row[1] + dram_row[2])},
      {"warpsim__ifetch_lts_sectors_read.sum", double(ifetch_l2_sectors_read)},
      {"warpsim__ifetch_dram_bytes_read.sum", double(ifetch_dram_bytes_read)},
      {"dram__bytes_write.sum.per_second", per_s(double(dram_bytes_write), s)},
      {"l1tex__t_bytes.sum.per_second",
       per_s(32.0 * double(l1_global_ld_sectors + l1_global_st_sectors + l1_local_sectors), s)},
      {"lts__t_bytes.sum.per_second", per_s(32.0 * double(l2_sectors_read + l2_sectors_write + l2_sectors_atom), s)},
      {"l1tex__m_xbar2l1tex_read_bytes.sum", double(xbar_read_bytes)},
      {"l1tex__m_l1tex2xbar_write_bytes.sum", double(xbar_write_bytes)},
      {"smsp__average_load_latency", load_latency_count ? double(load_latency_sum) / double(load_latency_count) : 0.0},
  };
}

std::string MemoryStats::json(double s) const {
  std::string o = "{";
  bool first = true;
  for (auto& [k, v] : metrics(s)) {
    o += fmt::format("{}\"{}\": {}", first ? "" : ", ", k, v);
    first = false;
  }
  // Per memory controller: bytes and achieved bandwidth over the kernel's time.
  o += ", \"dram_controllers\": [";
  for (size_t c = 0; c < controllers(); ++c) {
    const uint64_t rd = controller_bytes(c, false), wr = controller_bytes(c, true);
    o += fmt::format("{}{{\"read_bytes\": {}, \"write_bytes\": {}, \"read_bytes_per_second\": {}, \"write_bytes_per_second\": {}}}",
                     c ? ", " : "", rd, wr, per_s(double(rd), s), per_s(double(wr), s));
  }
  o += "]";
  o += ", \"load_latency_histogram_log2\": [";
  for (size_t i = 0; i < load_latency_hist.size(); ++i) o += fmt::format("{}{}", i ? ", " : "", load_latency_hist[i]);
  o += "]}";
  return o;
}

std::string MemoryStats::text(double s) const {
  std::string o;
  o += fmt::format("  L1: {} global load requests, {} sectors, hit rate {:.1f}%; {} store requests; shared {} wavefronts ({} bank conflicts)\n",
                   l1_global_ld_requests, l1_global_ld_sectors, pct(l1_global_ld_hits, l1_global_ld_sectors),
                   l1_global_st_requests, shared_wavefronts, shared_bank_conflicts);
  if (const_instructions)
    o += fmt::format("  constant: {} ld.const, {} requests ({} serialisation cycles); L1 hit rate {:.1f}%, L1.5 {} hits, {} misses to L2\n",
                     const_instructions, const_requests, const_serialization, pct(const_l1_hits, const_requests),
                     const_l15_hits, const_l15_misses);
  if (tma_copies)
    o += fmt::format("  bulk copies (TMA): {}, {} bytes global -> shared, {} bytes shared -> global\n", tma_copies,
                     tma_bytes_read, tma_bytes_write);
  o += fmt::format("  TLB: L1 hit rate {:.1f}%, L2 TLB misses {}\n", pct(tlb_l1_hits, tlb_l1_hits + tlb_l1_misses), tlb_l2_misses);
  o += fmt::format("  L2: {} read ({} of them code) / {} write / {} atomic sectors, hit rate {:.1f}%, {} through the far partition\n",
                   l2_sectors_read, ifetch_l2_sectors_read, l2_sectors_write, l2_sectors_atom,
                   pct(l2_sector_hits, l2_sector_hits + l2_sector_misses), l2_far_sectors);
  o += fmt::format("  DRAM: {:.1f} MB read ({:.3f} MB of code), {:.1f} MB written, {:.1f} GB/s\n", double(dram_bytes_read) / 1e6,
                   double(ifetch_dram_bytes_read) / 1e6, double(dram_bytes_write) / 1e6,
                   per_s(double(dram_bytes_read + dram_bytes_write), s) / 1e9);
  if (const uint64_t acc = dram_row[0] + dram_row[1] + dram_row[2]) {
    uint64_t lo = ~0ull, hi = 0;
    for (size_t c = 0; c < controllers(); ++c) {
      const uint64_t b = controller_bytes(c, false) + controller_bytes(c, true);
      lo = std::min(lo, b), hi = std::max(hi, b);
    }
    o += fmt::format("  DRAM row buffer: {:.1f}% hits, {} misses, {} conflicts; per controller {:.1f}-{:.1f} GB/s\n",
                     pct(dram_row[0], acc), dram_row[1], dram_row[2], per_s(double(lo), s) / 1e9, per_s(double(hi), s) / 1e9);
  }
  if (load_latency_count)
    o += fmt::format("  average global/local load latency {:.1f} cycles over {} loads\n",
                     double(load_latency_sum) / double(load_latency_count), load_latency_count);
  return o;
}

}  // namespace warpsim::stats
