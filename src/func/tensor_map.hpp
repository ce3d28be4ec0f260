// The 128-byte CUtensorMap object as warpsim lays it out. The driver's layout is opaque (programs
// may only make one with cuTensorMapEncode* and hand it to PTX), so warpsim's driver
// (cudart/driver_tensormap.cpp) writes this one and the functional engine's tensor copies
// (func/ops_tensor.cpp) read it back from wherever the program put it: a __grid_constant__ kernel
// parameter, global or constant memory.
//
//   bytes   0-3   magic 'WTMP' (a map not made by the encoder is refused with a clear fault)
//   byte    4     mode: 0 tiled, 1 im2col
//   byte    5     CUtensorMapDataType
//   byte    6     rank (1..5)
//   byte    7     element size in bytes
//   byte    8     CUtensorMapInterleave
//   byte    9     CUtensorMapSwizzle
//   byte   10     CUtensorMapL2promotion
//   byte   11     CUtensorMapFloatOOBfill
//   bytes  16-23  global address
//   bytes  24-63  globalDim[0..4] (u64; up to 2^32)
//   bytes  64-95  globalStrides[0..3] in bytes (of dimensions 1..4)
//   bytes  96-100 boxDim[0..4] - 1
//   bytes 101-105 elementStrides[0..4]
// (mode 1, im2col, is reserved: cuTensorMapEncodeIm2col is not implemented yet.)
#pragma once

#include <cstdint>
#include <cstring>

namespace warpsim::func {

struct TensorMap {
  static constexpr uint32_t kMagic = 0x504d5457;  // "WTMP"
  static constexpr unsigned kBytes = 128;
  enum Mode : uint8_t { Tiled = 0, Im2col = 1 };
  enum Swizzle : uint8_t { SwNone = 0, Sw32 = 1, Sw64 = 2, Sw128 = 3 };

  uint8_t mode = Tiled, dtype = 0, rank = 0, esize = 0, interleave = 0, swizzle = 0, l2promo = 0, oob_nan = 0;
  uint64_t address = 0;
  uint64_t dim[5] = {};
  uint64_t stride[5] = {};  // bytes; stride[0] is the element size
  uint32_t box[5] = {};     // tiled: boxDim
  uint32_t estride[5] = {};

  void pack(uint8_t out[kBytes]) const {
    std::memset(out, 0, kBytes);
    const uint32_t m = kMagic;
    std::memcpy(out, &m, 4);
    const uint8_t h[8] = {mode, dtype, rank, esize, interleave, swizzle, l2promo, oob_nan};
    std::memcpy(out + 4, h, 8);
    std::memcpy(out + 16, &address, 8);
    std::memcpy(out + 24, dim, 40);
    std::memcpy(out + 64, stride + 1, 32);
    for (int d = 0; d < 5; ++d) {
      out[96 + d] = uint8_t(box[d] ? box[d] - 1 : 0);
      out[101 + d] = uint8_t(estride[d]);
    }
  }

  // False if the bytes are not a map the encoder made.
  bool unpack(const uint8_t in[kBytes]) {
    uint32_t m;
    std::memcpy(&m, in, 4);
    if (m != kMagic) return false;
    mode = in[4], dtype = in[5], rank = in[6], esize = in[7], interleave = in[8], swizzle = in[9], l2promo = in[10],
    oob_nan = in[11];
    if (rank < 1 || rank > 5 || !esize || esize > 8 || swizzle > 3 || mode != Tiled) return false;
    std::memcpy(&address, in + 16, 8);
    std::memcpy(dim, in + 24, 40);
    stride[0] = esize;
    std::memcpy(stride + 1, in + 64, 32);
    for (int d = 0; d < 5; ++d) {
      box[d] = uint32_t(in[96 + d]) + 1;
      estride[d] = in[101 + d];
    }
    return true;
  }

  // Whether every dimension of the rank has an extent and a traversal stride (tensormap.replace
  // may leave a map half-edited between its instructions; a copy needs it whole).
  bool complete() const {
    for (unsigned d = 0; d < rank; ++d)
      if (!dim[d] || !estride[d]) return false;
    return true;
  }

  // Bytes of the swizzle span (0: none).
  unsigned swizzle_bytes() const { return swizzle ? 16u << swizzle : 0u; }
};

// The shared-memory byte a box's row-major byte offset lands at, for the absolute shared address
// `a` (PTX ISA "Tensor swizzling modes"): the 16-byte chunk index within the span (address bits 4
// up) is XORed with the address bits from 7 up, one bit for the 32-byte span, two for 64, three
// for 128 (the pattern repeats every 256, 512, 1024 bytes).
inline uint32_t swizzle_address(uint32_t a, unsigned span_bytes) {
  if (!span_bytes) return a;
  const uint32_t mask = span_bytes / 16 - 1;
  return a ^ (((a >> 7) & mask) << 4);
}

}  // namespace warpsim::func
