// The shared-memory matrix descriptor of sm_90a's warpgroup MMA (PTX ISA 8.7, 9.7.15.5.1 "Matrix
// Descriptor Format" and "Shared Memory Matrix Layout"), and where element (mn, k) of an operand it
// describes lives in shared memory. The tensor core reads A (M x K) and B (N x K, "K-major") or
// their transposes ("MN-major", imm-trans-a/b = 1) from these layouts.
//
// Descriptor bits: 0-13 start address >> 4, 16-29 leading dimension byte offset (LBO) >> 4, 32-45
// stride dimension byte offset (SBO) >> 4, 49-51 matrix base offset, 62-63 swizzle (0 none,
// 1 128B, 2 64B, 3 32B).
//
// The unit of every layout is the core matrix: 8 rows of 16 bytes. Without swizzling a core
// matrix is 128 contiguous bytes, its rows 16 bytes apart; with a W-byte swizzle (W = 32, 64, 128)
// a row is W bytes of W/16 consecutive 16-byte chunks and the 8 rows of a pattern are W bytes apart,
// and the 16-byte chunk index within every 128 bytes is XORed with address bits 7.. (Swizzle<B,4,3>
// in CUTLASS terms, B = log2(W/16): bits [4, 4+B) ^= bits [7, 7+B) of the shared address, so the
// pattern repeats every 8 x W bytes and is anchored at absolute addresses).
//   K-major (rows along M/N, K bytes along a row):
//     none:     (mn % 8) * 16 + (mn / 8) * SBO + (kbyte / 16) * LBO + kbyte % 16
//     W-swizzle (mn % 8) * W  + (mn / 8) * SBO + kbyte                (LBO unused; K bytes <= W)
//   MN-major (rows along K, M/N bytes along a row):
//     none:     (k % 8) * 16 + (k / 8) * LBO + (mnbyte / 16) * SBO + mnbyte % 16
//     W-swizzle (k % 8) * W  + (k / 8) * SBO + (mnbyte / W) * LBO + mnbyte % W
// (the strides as CUTLASS's make_gmma_desc derives them from its canonical GMMA layouts, cute
// mma_traits_sm90_gmma.hpp). The matrix base offset is only needed when a swizzle pattern does not
// start at a multiple of its repeat; the model does not implement it (wgmma_smem_address reports it).
#pragma once

#include <cstdint>

namespace warpsim::func {

struct WgmmaDesc {
  uint32_t start, lbo, sbo;  // bytes
  uint32_t base_offset;      // 3 bits
  uint32_t swizzle_bytes;    // 0 (none), 32, 64 or 128

  static WgmmaDesc decode(uint64_t d) {
    WgmmaDesc r;
    r.start = uint32_t(d & 0x3fff) << 4;
    r.lbo = uint32_t((d >> 16) & 0x3fff) << 4;
    r.sbo = uint32_t((d >> 32) & 0x3fff) << 4;
    r.base_offset = uint32_t((d >> 49) & 7);
    static constexpr uint32_t kW[4] = {0, 128, 64, 32};
    r.swizzle_bytes = kW[(d >> 62) & 3];
    return r;
  }
};

// Shared-memory byte address of element (mn, k) of an operand with `ebits`-bit elements (8, 16 or
// 32), K-major (mn_major false) or MN-major.
inline uint32_t wgmma_smem_address(const WgmmaDesc& d, uint32_t mn, uint32_t k, uint32_t ebits, bool mn_major) {
  const uint32_t W = d.swizzle_bytes;
  uint32_t off;
  if (!mn_major) {
    const uint32_t kb = k * ebits / 8;
    off = W ? (mn % 8) * W + (mn / 8) * d.sbo + kb : (mn % 8) * 16 + (mn / 8) * d.sbo + (kb / 16) * d.lbo + kb % 16;
  } else {
    const uint32_t mb = mn * ebits / 8;
    off = W ? (k % 8) * W + (k / 8) * d.sbo + (mb / W) * d.lbo + mb % W
            : (k % 8) * 16 + (k / 8) * d.lbo + (mb / 16) * d.sbo + mb % 16;
  }
  uint32_t a = d.start + off;
  if (W) {
    const uint32_t mask = W / 16 - 1;  // B bits: 1, 3 or 7
    a ^= ((a >> 7) & mask) << 4;
  }
  return a;
}

}  // namespace warpsim::func
