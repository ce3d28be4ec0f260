#include "timing/memory/coalescer.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace warpsim::timing {

namespace {

// Line and sector sizes are powers of two on every machine we model: shifts, not divisions (this
// runs for every lane of every global memory instruction). Pow2 is a template parameter so that
// the per-lane loop carries no size test.
template <bool Pow2>
void coalesce_lines(const std::vector<func::MemAccess>& acc, uint32_t line_bytes, uint32_t sector_bytes,
                    std::vector<LineAccess>& out, bool count_distinct) {
  // Addresses seen per line, to count distinct ones (atomics); small linear sets: a warp has at
  // most 32 lanes x a few accesses.
  struct Seen {
    size_t line;
    uint64_t addr;
    uint32_t n;  // accesses to it so far
  };
  static thread_local std::vector<Seen> seen_tls;
  std::vector<Seen>* seen = nullptr;
  if (count_distinct) {
    seen = &seen_tls;
    seen->clear();
  }
  const unsigned lshift = unsigned(std::countr_zero(line_bytes)), sshift = unsigned(std::countr_zero(sector_bytes));
  auto line_of = [&](uint64_t a) {
    if constexpr (Pow2) return a >> lshift;
    else return a / line_bytes;
  };
  auto sector_of = [&](uint64_t off) {
    if constexpr (Pow2) return off >> sshift;
    else return off / sector_bytes;
  };
  // Lines found so far: a linear search while there are few, then (an uncoalesced warp touches up
  // to 32 lines per access slot) an open-addressing index, so the search stays O(1).
  constexpr size_t kLinear = 8, kSlots = 512;
  uint64_t keys[kSlots];
  uint32_t vals[kSlots];
  bool hashed = false;
  auto slot_of = [&](uint64_t line) {
    size_t h = size_t((line * 0x9e3779b97f4a7c15ull) >> 55);  // 9 bits
    while (vals[h] != ~0u && keys[h] != line) h = (h + 1) & (kSlots - 1);
    return h;
  };
  auto find = [&](uint64_t line) -> size_t {
    // Neighbouring lanes usually share the last line touched: look there first.
    if (!out.empty() && out.back().line == line) return out.size() - 1;
    if (!hashed) {
      size_t k = 0;
      while (k < out.size() && out[k].line != line) ++k;
      if (k == out.size()) {
        out.push_back(LineAccess{line, 0, 0, 0, 0, 1, 0});
        if (out.size() > kLinear && out.size() < kSlots / 2) {
          hashed = true;
          std::fill(vals, vals + kSlots, ~0u);
          for (size_t i = 0; i < out.size(); ++i) {
            const size_t h = slot_of(out[i].line);
            keys[h] = out[i].line;
            vals[h] = uint32_t(i);
          }
        }
      }
      return k;
    }
    const size_t h = slot_of(line);
    if (vals[h] != ~0u) return vals[h];
    out.push_back(LineAccess{line, 0, 0, 0, 0, 1, 0});
    if (out.size() < kSlots / 2) {
      keys[h] = line;
      vals[h] = uint32_t(out.size() - 1);
    } else {
      hashed = false;  // beyond the index's load limit: back to searching (never in practice)
    }
    return out.size() - 1;
  };
  // The sectors of bytes [lo, hi) of a line.
  auto sectors_of = [&](uint64_t lo, uint64_t hi) { return sector_bits(sector_of(lo), sector_of(hi - 1)); };
  // Access a touches bytes [lo, hi) of line la (offsets in the line).
  auto add = [&](LineAccess& la, const func::MemAccess& a, uint64_t lo, uint64_t hi) {
    la.sectors |= sectors_of(lo, hi);
    la.lanes |= 1u << (a.lane & 31);
    if (la.l2 == func::L2Hint::Unchanged) la.l2 = a.l2;
    ++la.accesses;
  };
  for (const func::MemAccess& a : acc) {
    const uint64_t end = a.addr + std::max<uint16_t>(a.bytes, 1);
    const uint64_t first = line_of(a.addr), last = line_of(end - 1);
    // The common case first: a coalesced lane inside the line of the lane before it.
    if (!seen && first == last && !out.empty() && out.back().line == first) {
      const uint64_t off = a.addr - first * line_bytes;
      add(out.back(), a, off, off + (end - a.addr));
      continue;
    }
    for (uint64_t line = first; line <= last; ++line) {
      const size_t k = find(line);
      LineAccess& la = out[k];
      const uint64_t base = line * line_bytes;
      add(la, a, std::max(a.addr, base) - base, std::min(end, base + line_bytes) - base);
      if (!seen) continue;
      bool dup = false;
      for (Seen& e : *seen)
        if (e.line == k && e.addr == a.addr) {
          dup = true;
          la.rounds = std::max(la.rounds, ++e.n);
          la.repeat_sectors |= sectors_of(std::max(a.addr, base) - base, std::min(end, base + line_bytes) - base);
          break;
        }
      if (!dup) {
        seen->push_back(Seen{k, a.addr, 1});
        ++la.distinct;
      }
    }
  }
}

// The lines of a unit-stride run: no access crosses a line (natural alignment, element <= line),
// so each lane's line is (addr - first line's address) / line_bytes; the same lines, sectors, lane
// masks, counts and hints as coalesce_lines finds.
void coalesce_run(const std::vector<func::MemAccess>& acc, const UnitStrideRun& run, uint32_t line_bytes,
                  uint32_t sector_bytes, std::vector<LineAccess>& out) {
  const unsigned lshift = unsigned(std::countr_zero(line_bytes)), sshift = unsigned(std::countr_zero(sector_bytes));
  const uint64_t first = run.lo >> lshift, last = (run.hi - 1) >> lshift;
  for (uint64_t line = first; line <= last; ++line) {
    const uint64_t base = line << lshift;
    const uint64_t lo = std::max(run.lo, base) - base, hi = std::min(run.hi, base + line_bytes) - base;
    out.push_back(LineAccess{line, sector_bits(lo >> sshift, (hi - 1) >> sshift), 0, 0, 0, 1, 0, acc[0].l2});
  }
  LineAccess* lines = out.data();
  for (const func::MemAccess& a : acc) {
    LineAccess& la = lines[(a.addr >> lshift) - first];
    la.lanes |= 1u << (a.lane & 31);
    ++la.accesses;
  }
}

}  // namespace

UnitStrideRun unit_stride_run(const std::vector<func::MemAccess>& acc, uint32_t line_bytes) {
  UnitStrideRun r;
  if (acc.empty()) return r;
  const func::MemAccess& a0 = acc[0];
  const uint64_t n = a0.bytes;
  if (n == 0 || !std::has_single_bit(n) || n > line_bytes || (a0.addr & (n - 1)) || !std::has_single_bit(line_bytes))
    return r;
  uint64_t next = a0.addr;
  for (const func::MemAccess& a : acc) {
    if (a.addr != next || a.bytes != n || a.l2 != a0.l2) return r;
    next += n;
  }
  r.yes = true;
  r.lo = a0.addr;
  r.hi = next;
  return r;
}

void coalesce(const std::vector<func::MemAccess>& acc, uint32_t line_bytes, uint32_t sector_bytes,
              std::vector<LineAccess>& out, bool count_distinct, const UnitStrideRun* run) {
  out.clear();
  if (run && run->yes && !count_distinct && std::has_single_bit(sector_bytes)) {
    coalesce_run(acc, *run, line_bytes, sector_bytes, out);
    return;
  }
  if (std::has_single_bit(line_bytes) && std::has_single_bit(sector_bytes))
    coalesce_lines<true>(acc, line_bytes, sector_bytes, out, count_distinct);
  else
    coalesce_lines<false>(acc, line_bytes, sector_bytes, out, count_distinct);
}

uint32_t shared_wavefronts(const std::vector<func::MemAccess>& acc, uint32_t banks, uint32_t bank_bytes) {
  if (acc.empty()) return 1;
  // Phase size: 128 bytes of lane data per wavefront (the width of the banks together).
  const uint32_t row_bytes = banks * bank_bytes;
  uint32_t lane_bytes = 1;
  for (auto& a : acc) lane_bytes = std::max<uint32_t>(lane_bytes, a.bytes);
  const uint32_t lanes_per_phase = std::max<uint32_t>(1, std::min<uint32_t>(32, row_bytes / std::max(lane_bytes, bank_bytes)));
  // Distinct words per bank in the current phase, in fixed arrays (no allocation: this runs for
  // every shared-memory instruction). A phase touches at most 32 lanes x 4 words.
  constexpr uint32_t kMaxBanks = 64, kMaxWords = 128;
  const uint32_t nb = std::min(banks, kMaxBanks);
  uint64_t words[kMaxBanks][8];
  uint8_t count[kMaxBanks];
  uint32_t total = 0;
  for (uint32_t phase_lo = 0; phase_lo < 32; phase_lo += lanes_per_phase) {
    std::fill(count, count + nb, uint8_t(0));
    uint32_t worst = 0, seen = 0;
    for (auto& a : acc) {
      if (a.lane < phase_lo || a.lane >= phase_lo + lanes_per_phase) continue;
      for (uint64_t w = a.addr / bank_bytes; w <= (a.addr + std::max<uint16_t>(a.bytes, 1) - 1) / bank_bytes; ++w) {
        if (++seen > kMaxWords) break;
        const uint32_t bk = uint32_t(w % banks) % nb;
        uint8_t& c = count[bk];
        bool dup = false;
        for (uint8_t i = 0; i < std::min<uint8_t>(c, 8); ++i)
          if (words[bk][i] == w) {
            dup = true;
            break;
          }
        if (dup) continue;
        if (c < 8) words[bk][c] = w;
        ++c;  // beyond 8 distinct words a bank is counted without de-duplication
        worst = std::max<uint32_t>(worst, c);
      }
    }
    total += worst;
  }
  return std::max<uint32_t>(1, total);
}

}  // namespace warpsim::timing
