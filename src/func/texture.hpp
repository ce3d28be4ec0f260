// Texture and surface objects as the functional engine sees them: what a cudaTextureObject_t or
// cudaSurfaceObject_t handle names (the resource in device memory, its format and, for textures,
// the sampler state). The runtime creates them (cudaCreateTextureObject, ...) in the engine's
// table; tex/suld/sust (ops_tex.cpp) look the handle up per lane.
#pragma once

#include <cstdint>
#include <map>

namespace warpsim::func {

enum class ChannelKind : uint8_t { Signed, Unsigned, Float };                 // cudaChannelFormatKind
enum class AddressMode : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };  // cudaTextureAddressMode

struct TextureDesc {
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
