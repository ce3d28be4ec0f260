// The load/store unit's coalescer and the shared-memory bank model: what one warp instruction's
// lane addresses (func::MemTrace) cost.
//   - Global/local: the distinct 128-byte lines and, in each, the 32-byte sectors touched. Every
//     line is one L1 tag lookup (a "t-stage" wavefront); every sector is 32 bytes of data.
//   - Shared: 32 banks of 4 bytes. Lanes are processed in phases of 128 bytes (all 32 lanes for
//     4-byte accesses, 16 for 8-byte, 8 for 16-byte); in a phase each bank serves one 4-byte word
//     per cycle, and lanes reading the same word share it (broadcast). The cost is the number of
//     wavefronts: the sum over phases of the most distinct words any one bank must serve.
#pragma once

#include <cstdint>
#include <vector>

#include "func/mem_trace.hpp"

namespace warpsim::timing {

struct LineAccess {
  uint64_t line;       // line address (address / line bytes)
  uint32_t sectors;    // bit i: sector i of the line touched
  uint32_t lanes;      // lanes whose access falls in this line
  uint32_t accesses;   // lane accesses
  uint32_t distinct;   // distinct addresses among them
  // Atomics: the L1 sends a line's atomics in rounds, each round holding every address at most
  // once (Nsight Compute on the H100: 32 lanes on one word are 32 L2 requests, 32 distinct words of
  // one line one request; validation/mem/h100_atomics_shape_ncu.txt). `rounds` is the most lanes
  // on any one address; rounds after the first carry only the sectors of repeated addresses.
  uint32_t rounds = 1;
  uint32_t repeat_sectors = 0;
  func::L2Hint l2 = func::L2Hint::Unchanged;  // the first L2 hint among its accesses
};

// The accesses of one instruction as one ascending run of equal, naturally aligned elements with
// no gap and one L2 hint (acc[i] at lo + i x bytes): the unit-stride loads and stores of most
// memory-bound kernels. Lines, sectors and partly written sectors then follow from [lo, hi)
// without a search per lane.
struct UnitStrideRun {
  bool yes = false;
  uint64_t lo = 0, hi = 0;
};
UnitStrideRun unit_stride_run(const std::vector<func::MemAccess>& acc, uint32_t line_bytes);

// Groups the accesses of one instruction into lines, in first-touch order. `addr_of` maps an
// access to the address the memory system sees (local memory is interleaved across lanes).
// `distinct`, `rounds` and `repeat_sectors` are counted only with count_distinct (atomics need them;
// they cost a search per access).
void coalesce(const std::vector<func::MemAccess>& acc, uint32_t line_bytes, uint32_t sector_bytes,
              std::vector<LineAccess>& out, bool count_distinct = true, const UnitStrideRun* run = nullptr);

// The address of local-memory word `addr` of lane `lane` of the warp whose local window starts
// at `warp_base`: local memory is interleaved so that the same local address across a warp's
// lanes is contiguous (`interleave` bytes per lane), which is why local accesses coalesce.
inline uint64_t local_address(uint64_t warp_base, uint64_t addr, unsigned lane, uint32_t interleave) {
  return warp_base + (addr / interleave) * (32ull * interleave) + uint64_t(lane) * interleave + addr % interleave;
}

// The sectors a byte range of one line touches: bit i = sector i. `first_sector` and `last_sector`
// are the sectors of its first and last byte (inclusive); sector_mask(lo, hi, sector_bytes) takes
// the range's offsets within the line, [lo, hi) with lo < hi. The coalescer, the instruction-cache
// fills and the constant-cache fetches all compute their sector masks here.
inline uint32_t sector_bits(uint64_t first_sector, uint64_t last_sector) {
  return uint32_t(((2ull << last_sector) - 1) & ~((1ull << first_sector) - 1));
}
inline uint32_t sector_mask(uint64_t lo, uint64_t hi, uint32_t sector_bytes) {
  return sector_bits(lo / sector_bytes, (hi - 1) / sector_bytes);
}

// Shared-memory wavefronts (>= 1) of the accesses of one instruction.
uint32_t shared_wavefronts(const std::vector<func::MemAccess>& acc, uint32_t banks, uint32_t bank_bytes);

}  // namespace warpsim::timing
