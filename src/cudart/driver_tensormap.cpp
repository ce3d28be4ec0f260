// Tensor maps (CUDA driver API "Tensor Map Object Management"): cuTensorMapEncodeTiled and
// cuTensorMapReplaceAddress write the 128-byte CUtensorMap in warpsim's own layout
// (func/tensor_map.hpp), which the functional engine's tensor copies read. The arguments are checked
// as the driver documents them (cuda.h), each failure CUDA_ERROR_INVALID_VALUE, with the reason
// under WARPSIM_TRACE. cuTensorMapEncodeIm2col is not implemented (it stays a stub that says so).
// Lookups: driver_tensormap_entry.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "cudart/driver.hpp"
#include "func/tensor_map.hpp"

using namespace warpsim::cudart;
using warpsim::func::TensorMap;

namespace {

// CUtensorMapDataType: element sizes of UINT8, UINT16, UINT32, INT32, UINT64, INT64, FLOAT16,
// FLOAT32, FLOAT64, BFLOAT16, FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ. The packed sub-byte types
// (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B: sm_100's) are not supported.
constexpr uint8_t kElemBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
constexpr unsigned kTypes = sizeof(kElemBytes);
bool is_float(unsigned t) { return t >= 6; }

int invalid(const char* why) {
  if (driver_tracing()) fmt::print(stderr, "warpsim: trace: cuTensorMapEncodeTiled: {}\n", why);
  return CuInvalidValue;
}

int encode_tiled(void* map, unsigned type, uint32_t rank, void* address, const uint64_t* dim, const uint64_t* strides,
                 const uint32_t* box, const uint32_t* es, unsigned interleave, unsigned swizzle, unsigned l2promo,
                 unsigned oob) {
  // cuda.h asks for a 64-byte aligned map, but the H100's driver (13.0) also fills one 32 bytes off
  // (hopper_tma); the copies check the alignment of the map they read.
  if (!map) return invalid("null tensor map");
  if (type >= kTypes) {
    if (type < kTypes + 3) return invalid("the packed sub-byte data types are not supported by warpsim");
    return invalid("unknown data type");
  }
  if (rank < 1 || rank > 5) return invalid("the rank must be 1..5");
  if (interleave > 2) return invalid("unknown interleave layout");
  if (interleave != 0) {
    // warpsim: the interleaved layouts (NC/8HWC8, NC/16HWC16) are not modelled.
    return invalid("interleaved layouts are not supported by warpsim");
  }
  if (swizzle > 3) return invalid("unknown swizzle mode (the 128B atom modes are sm_100's)");
  if (l2promo > 3) return invalid("unknown L2 promotion");
  if (oob > 1) return invalid("unknown out-of-bound fill");
  if (oob == 1 && !is_float(type)) return invalid("the NaN-request fill needs a floating-point data type");
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  if (!a || (a & 15)) return invalid("the global address must be 16-byte aligned");
  if (!dim || !box || !es || (rank > 1 && !strides)) return invalid("null array");
  const unsigned esize = kElemBytes[type];
  TensorMap m;
  m.dtype = uint8_t(type);
  m.rank = uint8_t(rank);
  m.esize = uint8_t(esize);
  m.interleave = uint8_t(interleave);
  m.swizzle = uint8_t(swizzle);
  m.l2promo = uint8_t(l2promo);
  m.oob_nan = uint8_t(oob);
  m.address = a;
  m.stride[0] = esize;
  for (uint32_t d = 0; d < rank; ++d) {
    if (dim[d] == 0 || dim[d] > (uint64_t(1) << 32)) return invalid("globalDim must be 1..2^32");
    if (box[d] == 0 || box[d] > 256) return invalid("boxDim must be 1..256");
    if (es[d] == 0 || es[d] > 8) return invalid("elementStrides must be 1..8");
    m.dim[d] = dim[d];
    m.box[d] = box[d];
    m.estride[d] = es[d];
    if (d + 1 < rank) {
      const uint64_t s = strides[d];
      if (s % 16 || s >= (uint64_t(1) << 40)) return invalid("globalStrides must be multiples of 16 below 2^40");
      m.stride[d + 1] = s;
    }
  }
  const uint64_t row = uint64_t(box[0]) * esize;
  if (row % 16) return invalid("boxDim[0] * element size must be a multiple of 16 bytes");
  if (swizzle && row > m.swizzle_bytes()) return invalid("the box's inner dimension exceeds the swizzle span");
  uint8_t bytes[TensorMap::kBytes];
  m.pack(bytes);
  std::memcpy(map, bytes, sizeof(bytes));
  return CuSuccess;
}

int replace_address(void* map, void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  if (!map || !a || (a & 15)) return CuInvalidValue;
  TensorMap m;
  if (!m.unpack(static_cast<const uint8_t*>(map))) return CuInvalidValue;
  m.address = a;
  uint8_t bytes[TensorMap::kBytes];
  m.pack(bytes);
  std::memcpy(map, bytes, sizeof(bytes));
  return CuSuccess;
}

}  // namespace

namespace warpsim::cudart {

void* driver_tensormap_entry(const std::string& base) {
  if (base == "cuTensorMapEncodeTiled") return reinterpret_cast<void*>(&encode_tiled);
  if (base == "cuTensorMapReplaceAddress") return reinterpret_cast<void*>(&replace_address);
  return nullptr;
}

}  // namespace warpsim::cudart
