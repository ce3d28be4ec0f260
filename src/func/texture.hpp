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
  // The sampler (textures).
  AddressMode address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  bool filter_linear = false;      // cudaFilterModeLinear
  bool normalized_coords = false;  // coordinates in [0, 1)
  bool read_normalized = false;    // cudaReadModeNormalizedFloat: 8/16-bit integers read as [0,1] / [-1,1]
  float border[4] = {0, 0, 0, 0};
  uint32_t elem_bytes() const { return uint32_t(channels) * channel_bytes; }
};

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
