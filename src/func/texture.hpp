// Texture and surface objects as the functional engine sees them: what a cudaTextureObject_t or
// cudaSurfaceObject_t handle names (the resource in device memory, its format and, for textures,
// the sampler state). The runtime creates them (cudaCreateTextureObject, ...) in the engine's
// table; tex/suld/sust (ops_tex.cpp) look the handle up per lane.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

namespace warpsim::func {

enum class ChannelKind : uint8_t { Signed, Unsigned, Float };                 // cudaChannelFormatKind
enum class AddressMode : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };  // cudaTextureAddressMode

// One resource as the sampler reads it: a whole non-mipmapped texture or surface, or one level of a
// mipmapped one (TextureDesc::mips).
struct TextureView {
  // The resource: elements of `channels` x `channel_bytes`, row `pitch` bytes apart, slices
  // `slice_pitch` apart. `linear`: a cudaResourceTypeLinear buffer (tex1Dfetch: integer
  // coordinates, no sampler; fetches outside it read 0).
  uint64_t base = 0, pitch = 0, slice_pitch = 0;
  uint32_t width = 1, height = 1, depth = 1;
  uint8_t channels = 1, channel_bytes = 4;
  ChannelKind kind = ChannelKind::Float;
  bool linear = false;
  bool surface = false;  // a surface object (suld/sust), else a texture object (tex)
  // Layered and cubemap arrays: `layers` slices of width x height, `layer_pitch` bytes apart (0: not
  // layered, one slice). A cubemap's slices are its faces, 6 per cube (layered cubemaps: face f of
  // cube c is slice 6c + f), which surfaces address directly as layers.
  uint32_t layers = 0;
  uint64_t layer_pitch = 0;
  bool cubemap = false;
  // The sampler (textures).
  AddressMode address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  bool filter_linear = false;      // cudaFilterModeLinear
  bool normalized_coords = false;  // coordinates in [0, 1)
  bool read_normalized = false;    // cudaReadModeNormalizedFloat: 8/16-bit integers read as [0,1] / [-1,1]
  float border[4] = {0, 0, 0, 0};
  uint32_t elem_bytes() const { return uint32_t(channels) * channel_bytes; }
  uint32_t slices() const { return layers ? layers : 1; }
};

// A level of a mipmapped texture (level i of a w x h x d array is max(1, w >> i) x ...; layers and
// cubemap faces are the same on every level).
struct MipLevel {
  uint64_t base = 0, pitch = 0, slice_pitch = 0, layer_pitch = 0;
  uint32_t width = 1, height = 1, depth = 1;
};

struct TextureDesc : TextureView {
  // Mipmapped textures (cudaResourceTypeMipmappedArray): the levels, level 0 first (also in the
  // view's fields). Empty otherwise: tex.level/tex.grad then read the one level there is.
  std::vector<MipLevel> mips;
  bool mip_linear = false;  // mipmapFilterMode: blend the two nearest levels, else take the nearest
  float mip_bias = 0, mip_min = 0, mip_max = 0;  // mipmapLevelBias, min/maxMipmapLevelClamp
  // What txq.width/.height/.depth (level 0) or suq.width/.height/.depth answer, as the H100 does
  // (the runtime fills it): textures of 1D arrays have height 1, linear buffers 0; depth is 0 for
  // 1D/2D and single cubemaps, the layer count of layered arrays, the number of cubes of layered
  // cubemaps. Surfaces of 1D arrays have height 0, and a cubemap's depth counts faces.
  uint32_t query[3] = {0, 0, 0};
  // A view of level `l` (< mips.size()).
  TextureView level(unsigned l) const {
    TextureView v = *this;
    const MipLevel& m = mips[l];
    v.base = m.base, v.pitch = m.pitch, v.slice_pitch = m.slice_pitch, v.layer_pitch = m.layer_pitch;
    v.width = m.width, v.height = m.height, v.depth = m.depth;
    return v;
  }
  unsigned levels() const { return mips.empty() ? 1u : unsigned(mips.size()); }
};

// ---------------------------------------------------------------- level of detail
// Levels of detail are 8.8 fixed point (8 fractional bits), as the H100 resolves them
// (validation/driver/h100_texture_mipmap_probe.out): the blend weight between two levels steps by
// 1/256 and is truncated (lod 1.5/256 blends 1/256 of the next level); point mipmap filtering takes
// the nearest level (lod 0.5 reads level 1).

// log2 of a gradient length as the H100's level-of-detail unit computes it: the exponent, plus
// the fraction for the top 8 mantissa bits (truncated) from a 256-entry table, in 1/256. The table
// is the H100's own answers for isotropic gradients of 1 + m/256 texels (tex2DGrad, probe above):
// close to round(256 * log2(1 + (m + 0.5) / 256)) but not a formula we could fit exactly.
inline constexpr uint8_t kLog2Mantissa[256] = {
    0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22,
    23, 24, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 39, 40, 42, 43,
    44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63,
    64, 65, 66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82,
    83, 84, 85, 86, 88, 89, 90, 91, 92, 93, 94, 95, 97, 98, 99, 100,
    101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115, 116, 117,
    118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133,
    135, 136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149,
    150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164,
    165, 166, 167, 168, 169, 170, 171, 172, 173, 173, 174, 175, 176, 177, 178, 179,
    180, 181, 181, 182, 183, 184, 185, 186, 187, 188, 188, 189, 190, 191, 192, 193,
    194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203, 204, 205, 205, 206,
    207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218, 219,
    220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232,
    233, 233, 234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244,
    245, 245, 246, 247, 248, 248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255,
};

// The level of detail of a footprint `rho` texels long (at level 0), in 1/256 of a level; a zero,
// negative or NaN length is level -inf (magnification: level 0).
inline int32_t lod_of_length(float rho) {
  if (!(rho > 0)) return INT32_MIN / 2;
  if (std::isinf(rho)) return INT32_MAX / 2;
  uint32_t bits;
  std::memcpy(&bits, &rho, 4);
  const int32_t e = int32_t(bits >> 23 & 0xff);
  if (e == 0) return -126 * 256 - 256;  // denormal: far below level 0 anyway
  return (e - 127) * 256 + kLog2Mantissa[bits >> 15 & 0xff];
}

// The two levels a fetch reads and the weight of the second, in 1/256 (0 with point mipmap
// filtering, which reads only `l0`).
struct LevelPick {
  unsigned l0, l1;
  unsigned w;  // 0..255
};

// From a level of detail in 1/256 (after bias and clamps) to the levels read, for a texture of
// `levels` levels.
inline LevelPick pick_levels(int64_t lod256, unsigned levels, bool linear) {
  const int64_t top = int64_t(levels - 1) * 256;
  lod256 = lod256 < 0 ? 0 : lod256 > top ? top : lod256;
  if (!linear) {
    const unsigned l = unsigned((lod256 + 128) >> 8);
    return {l, l, 0};
  }
  const unsigned l0 = unsigned(lod256 >> 8), w = unsigned(lod256 & 255);
  return {l0, w ? l0 + 1 : l0, w};
}

// The sampler's level of detail: `lod` (an explicit tex.level operand or a gradient's log2), plus
// the bias, within [minMipmapLevelClamp, maxMipmapLevelClamp] (max applied last: an inverted pair
// reads the min), in 1/256 truncated. NaN reads as level 0 (measured).
inline int64_t sampler_lod256(float lod, const TextureDesc& t) {
  if (std::isnan(lod)) lod = 0;
  float l = lod + t.mip_bias;
  l = std::fmin(l, t.mip_max);
  l = std::fmax(l, t.mip_min);
  l = std::fmax(std::fmin(l, 1e6f), -1e6f);
  return int64_t(std::floor(double(l) * 256.0));
}

// The cubemap face a direction selects and its face coordinates (s, t) in [0, 1], as the CUDA
// Programming Guide's cubemap table gives them (face 0..5 = +x, -x, +y, -y, +z, -z). The table
// leaves ties open: on our H100 z wins over y and y over x, and the zero vector reads the centre
// of face +z (tests/cudart/texture_layered.expected).
struct CubeCoord {
  unsigned face;
  float s, t;
};
inline CubeCoord cube_coord(float x, float y, float z) {
  const float ax = x < 0 ? -x : x, ay = y < 0 ? -y : y, az = z < 0 ? -z : z;
  CubeCoord c{};
  float m, sc, tc;
  if (ax > ay && ax > az) {
    c.face = x >= 0 ? 0 : 1, m = ax, sc = x >= 0 ? -z : z, tc = -y;
  } else if (ay > az) {
    c.face = y >= 0 ? 2 : 3, m = ay, sc = x, tc = y >= 0 ? z : -z;
  } else {
    c.face = z >= 0 ? 4 : 5, m = az, sc = z >= 0 ? x : -x, tc = -y;
  }
  if (!(m > 0)) return CubeCoord{c.face, 0.5f, 0.5f};  // zero or NaN direction
  c.s = (sc / m + 1) * 0.5f;
  c.t = (tc / m + 1) * 0.5f;
  return c;
}

// A layer index as the hardware takes it: unsigned, clamped to the last layer (-1 reads the last).
inline uint32_t clamp_layer(uint32_t layer, uint32_t count) { return layer < count ? layer : count - 1; }

// tld4's k-th result: the texel (i + dx, j + dy) of the bilinear footprint whose top-left texel is
// (i, j) = floor(x - 0.5, y - 0.5). The ISA's "counter-clockwise from the lower left", with rows
// growing downwards, as our H100 returns them.
struct Tld4Corner {
  unsigned dx, dy;
};
inline Tld4Corner tld4_corner(unsigned k) {
  static constexpr Tld4Corner c[4] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  return c[k & 3];
}

// Handles are small nonzero integers, as the driver's are; 0 is never a valid object.
class TextureTable {
 public:
  uint64_t create(const TextureDesc& d) {
    uint64_t h = next_++;
    objs_.emplace(h, d);
    return h;
  }
  bool destroy(uint64_t h) { return objs_.erase(h) == 1; }
  const TextureDesc* find(uint64_t h) const {
    auto it = objs_.find(h);
    return it == objs_.end() ? nullptr : &it->second;
  }

 private:
  std::map<uint64_t, TextureDesc> objs_;
  uint64_t next_ = 1;
};

}  // namespace warpsim::func
