// CUDA arrays, texture objects and surface objects.
//
// A cudaArray is a pitched allocation in device memory (rows 512-byte aligned, as cudaMallocPitch
// gives): its layout is opaque to programs, which reach it only through the array copy functions
// and texture/surface objects. Layered arrays (cudaArrayLayered: extent (w, 0, layers) or
// (w, h, layers)) and cubemaps (cudaArrayCubemap: w == h, depth 6, or 6 x cubes with
// cudaArrayLayered) are laid out as 3D arrays, one slice per layer or face, so cudaMemcpy3D copies
// them as it copies 3D arrays. Texture and surface objects are entries of the engine's
// func::TextureTable (handles are small integers, as the driver's), read by tex/tld4/suld/sust.
// A mipmapped array is a list of such arrays, level i of a w x h x d array max(1, w >> i) x ...
// (layers and cubemap faces on every level), each a cudaArray the copy functions take.
// Not supported: texture references, resource views, sRGB, seamless cubemap filtering (each an
// error, not a silent approximation); anisotropic filtering (maxAnisotropy reads as 1).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>
#include <memory>

#include "cudart/abi.hpp"
#include "cudart/export.hpp"
#include "cudart/state.hpp"
#include "func/texture.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

namespace {

using abi::ChannelFormatDesc;
using abi::ResourceDesc;
using TextureDescAbi = abi::TextureDesc;

struct ArrayObj {
  ChannelFormatDesc desc;
  size_t width = 0, height = 0, depth = 0;  // as given (0 for absent dimensions)
  unsigned flags = 0;
  bool mip_level = false;  // a level of a mipmapped array: freed with it
  uint64_t base = 0, pitch = 0;
  size_t elem_bytes() const { return size_t(desc.x + desc.y + desc.z + desc.w) / 8; }
  size_t rows() const { return (height ? height : 1) * (depth ? depth : 1); }
};

std::map<const void*, std::unique_ptr<ArrayObj>>& arrays() {
  static std::map<const void*, std::unique_ptr<ArrayObj>> a;
  return a;
}

// What texture and surface objects were made from, for cudaGetTextureObject*Desc.
struct ObjectDescs {
  ResourceDesc res{};
  TextureDescAbi tex{};
};
std::map<unsigned long long, ObjectDescs>& object_descs() {
  static std::map<unsigned long long, ObjectDescs> d;
  return d;
}

ArrayObj* find_array(const void* a) {
  auto it = arrays().find(a);
  return it == arrays().end() ? nullptr : it->second.get();
}

// A mipmapped array: its levels, level 0 first (each also in arrays()).
struct MipmapObj {
  std::vector<ArrayObj*> levels;
};
std::map<const void*, std::unique_ptr<MipmapObj>>& mipmaps() {
  static std::map<const void*, std::unique_ptr<MipmapObj>> m;
  return m;
}
MipmapObj* find_mipmap(const void* m) {
  auto it = mipmaps().find(m);
  return it == mipmaps().end() ? nullptr : it->second.get();
}

// A channel format the simulator can read: 1, 2 or 4 channels of equal 8/16/32-bit size.
bool format_of(const ChannelFormatDesc& d, func::TextureDesc& t) {
  const int ch = (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0);
  if (ch == 0 || ch == 3 || d.x <= 0) return false;
  const int bits[4] = {d.x, d.y, d.z, d.w};
  for (int i = 0; i < ch; ++i)
    if (bits[i] != d.x) return false;
  if (d.x != 8 && d.x != 16 && d.x != 32) return false;
  if (d.f < 0 || d.f > 2) return false;
  if (d.f == 2 && d.x == 8) return false;
  t.channels = uint8_t(ch);
  t.channel_bytes = uint8_t(d.x / 8);
  t.kind = d.f == 0 ? func::ChannelKind::Signed : d.f == 1 ? func::ChannelKind::Unsigned : func::ChannelKind::Float;
  return true;
}

// cudaArray flags: cudaArrayLayered 1, SurfaceLoadStore 2, Cubemap 4, TextureGather 8, ColorAttachment 0x20.
constexpr unsigned kLayered = 0x1, kCubemap = 0x4, kGather = 0x8, kKnown = 0x2f;

// With State::mu held.
int allocate_array_locked(void** out, const ChannelFormatDesc* desc, size_t w, size_t h, size_t d, unsigned flags) {
  State& s = State::get();
  if (s.sticky) return ret(s.sticky);
  func::TextureDesc probe;
  if (!out || !desc || w == 0 || !format_of(*desc, probe)) return ret(abi::ErrInvalidValue);
  if (flags & ~kKnown) {
    fmt::print(stderr, "warpsim: cudaArray flags 0x{:x} are not supported\n", flags & ~kKnown);
    return ret(abi::ErrInvalidValue);
  }
  const char* bad = nullptr;
  if (flags & kCubemap) {
    if (w != h) bad = "a cubemap's width and height must be equal";
    else if (flags & kLayered ? d == 0 || d % 6 : d != 6)
      bad = flags & kLayered ? "a layered cubemap's depth must be 6 x its layers" : "a cubemap's depth must be 6";
  } else if (flags & kLayered) {
    if (d == 0) bad = "a layered array needs a depth (its number of layers)";
  } else if (d && !h) {
    bad = "a 3D array needs a height";
  }
  if (!bad && (flags & kGather) && (h == 0 || (d && !(flags & kLayered)))) bad = "texture gather needs a 2D array";
  if (bad) {
    fmt::print(stderr, "warpsim: cudaMalloc3DArray {}x{}x{} flags 0x{:x}: {}\n", w, h, d, flags, bad);
    return ret(abi::ErrInvalidValue);
  }
  auto a = std::make_unique<ArrayObj>();
  a->desc = *desc;
  a->width = w;
  a->height = h;
  a->depth = d;
  a->flags = flags;
  a->pitch = (w * a->elem_bytes() + 511) / 512 * 512;
  a->base = s.dev->memory().allocate(a->pitch * a->rows(), 512, "cudaArray");
  if (!a->base) return ret(abi::ErrMemoryAllocation);
  *out = a.get();
  arrays().emplace(a.get(), std::move(a));
  return 0;
}

int allocate_array(void** out, const ChannelFormatDesc* desc, size_t w, size_t h, size_t d, unsigned flags) {
  std::lock_guard g(State::get().mu);
  return allocate_array_locked(out, desc, w, h, d, flags);
}

void free_array_locked(ArrayObj* a) {
  State::get().dev->memory().release(a->base);
  arrays().erase(a);
}

}  // namespace

namespace warpsim::cudart {
bool array_as_pitched(const void* a, abi::PitchedPtr& out, size_t& elem, size_t& depth) {
  const ArrayObj* arr = find_array(a);
  if (!arr) return false;
  out.ptr = reinterpret_cast<void*>(arr->base);
  out.pitch = arr->pitch;
  out.xsize = arr->width;
  out.ysize = arr->height ? arr->height : 1;
  elem = arr->elem_bytes();
  depth = arr->depth ? arr->depth : 1;
  return true;
}
}  // namespace warpsim::cudart

extern "C" abi::Error cudaMemcpy2D(void*, size_t, const void*, size_t, size_t, size_t, int);

CUDART_API ChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
  return ChannelFormatDesc{x, y, z, w, f};
}

CUDART_API abi::Error cudaMallocArray(void** array, const ChannelFormatDesc* desc, size_t width, size_t height,
                                      unsigned int flags) {
  return allocate_array(array, desc, width, height, 0, flags);
}

CUDART_API abi::Error cudaMalloc3DArray(void** array, const ChannelFormatDesc* desc, abi::Extent e,
                                        unsigned int flags) {
  return allocate_array(array, desc, e.width, e.height, e.depth, flags);
}

CUDART_API abi::Error cudaFreeArray(void* array) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!array) return 0;
  auto it = arrays().find(array);
  if (it == arrays().end()) return ret(abi::ErrInvalidResourceHandle);
  if (it->second->mip_level) return 0;  // as the H100 answers; the level goes with its mipmapped array
  free_array_locked(it->second.get());
  return 0;
}

// ------------------------------------------------------------------ mipmapped arrays

// numLevels 0 makes one level, and more levels than the extent has (floor(log2(max extent)) + 1)
// make as many as it has, as on our H100 (validation/driver/h100_texture_mipmap_probe.out).
CUDART_API abi::Error cudaMallocMipmappedArray(void** mip, const ChannelFormatDesc* desc, abi::Extent e,
                                               unsigned int numLevels, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (s.sticky) return ret(s.sticky);
  if (!mip || !desc || e.width == 0) return ret(abi::ErrInvalidValue);
  const bool layers = flags & (kLayered | kCubemap);  // the depth counts layers or faces: never halved
  size_t biggest = std::max(e.width, e.height);
  if (!layers) biggest = std::max(biggest, e.depth);
  unsigned most = 1;
  while (biggest >> most) ++most;
  const unsigned n = std::clamp(numLevels, 1u, most);
  auto m = std::make_unique<MipmapObj>();
  for (unsigned i = 0; i < n; ++i) {
    auto half = [&](size_t x) -> size_t { return x ? std::max<size_t>(1, x >> i) : 0; };
    void* a = nullptr;
    if (int err = allocate_array_locked(&a, desc, half(e.width), half(e.height), layers ? e.depth : half(e.depth),
                                        flags)) {
      for (ArrayObj* l : m->levels) free_array_locked(l);
      return err;
    }
    auto* obj = static_cast<ArrayObj*>(a);
    obj->mip_level = true;
    m->levels.push_back(obj);
  }
  *mip = m.get();
  mipmaps().emplace(m.get(), std::move(m));
  return 0;
}

CUDART_API abi::Error cudaGetMipmappedArrayLevel(void** level, const void* mip, unsigned int lvl) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const MipmapObj* m = find_mipmap(mip);
  if (!m) return ret(abi::ErrInvalidResourceHandle);
  if (!level || lvl >= m->levels.size()) return ret(abi::ErrInvalidValue);
  *level = m->levels[lvl];
  return 0;
}

CUDART_API abi::Error cudaFreeMipmappedArray(void* mip) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!mip) return 0;
  auto it = mipmaps().find(mip);
  if (it == mipmaps().end()) return ret(abi::ErrInvalidResourceHandle);
  for (ArrayObj* l : it->second->levels) free_array_locked(l);
  mipmaps().erase(it);
  return 0;
}

CUDART_API abi::Error cudaArrayGetInfo(ChannelFormatDesc* desc, abi::Extent* extent, unsigned int* flags,
                                       void* array) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const ArrayObj* a = find_array(array);
  if (!a) return ret(abi::ErrInvalidResourceHandle);
  if (desc) *desc = a->desc;
  if (extent) *extent = abi::Extent{a->width, a->height, a->depth};
  if (flags) *flags = a->flags;
  return 0;
}

CUDART_API abi::Error cudaGetChannelDesc(ChannelFormatDesc* desc, const void* array) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const ArrayObj* a = find_array(array);
  if (!a) return ret(abi::ErrInvalidResourceHandle);
  if (!desc) return ret(abi::ErrInvalidValue);
  *desc = a->desc;
  return 0;
}

// ------------------------------------------------------------------ copies (offsets: bytes in x, rows in y)

namespace {
// The device address of (x bytes, y rows) of an array, after checking that width x height fits.
int array_region(const void* array, size_t x, size_t y, size_t width, size_t height, uint64_t& addr,
                 uint64_t& pitch) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const ArrayObj* a = find_array(array);
  if (!a) return ret(abi::ErrInvalidResourceHandle);
  if (x + width > a->width * a->elem_bytes() || y + height > a->rows()) return ret(abi::ErrInvalidValue);
  addr = a->base + y * a->pitch + x;
  pitch = a->pitch;
  return 0;
}
}  // namespace

CUDART_API abi::Error cudaMemcpy2DToArray(void* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                          size_t width, size_t height, int kind) {
  uint64_t addr = 0, pitch = 0;
  if (int e = array_region(dst, wOffset, hOffset, width, height, addr, pitch)) return e;
  return cudaMemcpy2D(reinterpret_cast<void*>(addr), pitch, src, spitch, width, height, kind);
}

CUDART_API abi::Error cudaMemcpy2DFromArray(void* dst, size_t dpitch, const void* src, size_t wOffset,
                                            size_t hOffset, size_t width, size_t height, int kind) {
  uint64_t addr = 0, pitch = 0;
  if (int e = array_region(src, wOffset, hOffset, width, height, addr, pitch)) return e;
  return cudaMemcpy2D(dst, dpitch, reinterpret_cast<const void*>(addr), pitch, width, height, kind);
}

CUDART_API abi::Error cudaMemcpy2DToArrayAsync(void* dst, size_t wOffset, size_t hOffset, const void* src,
                                               size_t spitch, size_t width, size_t height, int kind, abi::Stream) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

CUDART_API abi::Error cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, const void* src, size_t wOffset,
                                                 size_t hOffset, size_t width, size_t height, int kind, abi::Stream) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

namespace {
// The deprecated 1D forms: `count` bytes from (wOffset, hOffset) of array `arr`, continuing on the
// next rows; copy_row(offset into the linear buffer, wOffset, hOffset, bytes) moves one piece.
template <class CopyRow>
abi::Error array_rows(const void* arr, size_t wOffset, size_t hOffset, size_t count, CopyRow copy_row) {
  size_t row = 0;
  {
    State& s = State::get();
    std::lock_guard g(s.mu);
    const ArrayObj* a = find_array(arr);
    if (!a) return ret(abi::ErrInvalidResourceHandle);
    row = a->width * a->elem_bytes();
  }
  size_t done = 0;
  while (count) {
    if (wOffset >= row) return ret(abi::ErrInvalidValue);
    const size_t n = std::min(count, row - wOffset);
    if (abi::Error e = copy_row(done, wOffset, hOffset, n)) return e;
    done += n;
    count -= n;
    wOffset = 0;
    ++hOffset;
  }
  return 0;
}
}  // namespace

CUDART_API abi::Error cudaMemcpyToArray(void* dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                        int kind) {
  const char* p = static_cast<const char*>(src);
  return array_rows(dst, wOffset, hOffset, count, [&](size_t off, size_t w, size_t h, size_t n) {
    return cudaMemcpy2DToArray(dst, w, h, p + off, n, n, 1, kind);
  });
}

CUDART_API abi::Error cudaMemcpyFromArray(void* dst, const void* src, size_t wOffset, size_t hOffset, size_t count,
                                          int kind) {
  char* p = static_cast<char*>(dst);
  return array_rows(src, wOffset, hOffset, count, [&](size_t off, size_t w, size_t h, size_t n) {
    return cudaMemcpy2DFromArray(p + off, n, src, w, h, n, 1, kind);
  });
}

// Stream-ordered forms: copies here complete in issue order, so the stream adds nothing.
CUDART_API abi::Error cudaMemcpyToArrayAsync(void* dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                             int kind, abi::Stream) {
  return cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
}
CUDART_API abi::Error cudaMemcpyFromArrayAsync(void* dst, const void* src, size_t wOffset, size_t hOffset,
                                               size_t count, int kind, abi::Stream) {
  return cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
}

// Array to array: a 2D copy between the two arrays' device memory.
CUDART_API abi::Error cudaMemcpy2DArrayToArray(void* dst, size_t wOffsetDst, size_t hOffsetDst, const void* src,
                                               size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                               int kind) {
  if (kind != abi::DeviceToDevice && kind != abi::Default) return ret(abi::ErrInvalidMemcpyDirection);
  uint64_t da = 0, dp = 0, sa = 0, sp = 0;
  if (int e = array_region(dst, wOffsetDst, hOffsetDst, width, height, da, dp)) return e;
  if (int e = array_region(src, wOffsetSrc, hOffsetSrc, width, height, sa, sp)) return e;
  return cudaMemcpy2D(reinterpret_cast<void*>(da), dp, reinterpret_cast<const void*>(sa), sp, width, height,
                      abi::DeviceToDevice);
}
// The 1D form: `count` bytes, row after row, through a host copy (the rows of the two arrays
// need not line up).
CUDART_API abi::Error cudaMemcpyArrayToArray(void* dst, size_t wOffsetDst, size_t hOffsetDst, const void* src,
                                             size_t wOffsetSrc, size_t hOffsetSrc, size_t count, int kind) {
  if (kind != abi::DeviceToDevice && kind != abi::Default) return ret(abi::ErrInvalidMemcpyDirection);
  std::vector<uint8_t> tmp(count);
  if (abi::Error e = cudaMemcpyFromArray(tmp.data(), src, wOffsetSrc, hOffsetSrc, count, abi::DeviceToHost)) return e;
  return cudaMemcpyToArray(dst, wOffsetDst, hOffsetDst, tmp.data(), count, abi::HostToDevice);
}

// The per-thread default-stream forms (nvcc --default-stream per-thread), as api_extra.cpp's.
CUDART_API abi::Error cudaMemcpy2DToArray_ptds(void* dst, size_t wo, size_t ho, const void* src, size_t sp, size_t w,
                                               size_t h, int kind) {
  return cudaMemcpy2DToArray(dst, wo, ho, src, sp, w, h, kind);
}
CUDART_API abi::Error cudaMemcpy2DFromArray_ptds(void* dst, size_t dp, const void* src, size_t wo, size_t ho, size_t w,
                                                 size_t h, int kind) {
  return cudaMemcpy2DFromArray(dst, dp, src, wo, ho, w, h, kind);
}
CUDART_API abi::Error cudaMemcpy2DToArrayAsync_ptsz(void* dst, size_t wo, size_t ho, const void* src, size_t sp,
                                                    size_t w, size_t h, int kind, abi::Stream st) {
  return cudaMemcpy2DToArrayAsync(dst, wo, ho, src, sp, w, h, kind, st);
}
CUDART_API abi::Error cudaMemcpy2DFromArrayAsync_ptsz(void* dst, size_t dp, const void* src, size_t wo, size_t ho,
                                                      size_t w, size_t h, int kind, abi::Stream st) {
  return cudaMemcpy2DFromArrayAsync(dst, dp, src, wo, ho, w, h, kind, st);
}
CUDART_API abi::Error cudaMemcpyToArray_ptds(void* dst, size_t wo, size_t ho, const void* src, size_t n, int kind) {
  return cudaMemcpyToArray(dst, wo, ho, src, n, kind);
}
CUDART_API abi::Error cudaMemcpyFromArray_ptds(void* dst, const void* src, size_t wo, size_t ho, size_t n, int kind) {
  return cudaMemcpyFromArray(dst, src, wo, ho, n, kind);
}
CUDART_API abi::Error cudaMemcpyToArrayAsync_ptsz(void* dst, size_t wo, size_t ho, const void* src, size_t n, int kind,
                                                  abi::Stream st) {
  return cudaMemcpyToArrayAsync(dst, wo, ho, src, n, kind, st);
}
CUDART_API abi::Error cudaMemcpyFromArrayAsync_ptsz(void* dst, const void* src, size_t wo, size_t ho, size_t n, int kind,
                                                    abi::Stream st) {
  return cudaMemcpyFromArrayAsync(dst, src, wo, ho, n, kind, st);
}
CUDART_API abi::Error cudaMemcpy2DArrayToArray_ptds(void* dst, size_t wd, size_t hd, const void* src, size_t ws,
                                                    size_t hs, size_t w, size_t h, int kind) {
  return cudaMemcpy2DArrayToArray(dst, wd, hd, src, ws, hs, w, h, kind);
}
CUDART_API abi::Error cudaMemcpyArrayToArray_ptds(void* dst, size_t wd, size_t hd, const void* src, size_t ws, size_t hs,
                                                  size_t n, int kind) {
  return cudaMemcpyArrayToArray(dst, wd, hd, src, ws, hs, n, kind);
}

// ------------------------------------------------------------------ texture and surface objects

namespace {
int resource_of(const ResourceDesc& r, func::TextureDesc& t) {
  switch (r.resType) {
    case 0:    // array
    case 1: {  // mipmapped array: level 0 here, the levels below
      const MipmapObj* m = r.resType == 1 ? find_mipmap(r.res.mipmap.mipmap) : nullptr;
      if (r.resType == 1 && !m) return abi::ErrInvalidResourceHandle;
      const ArrayObj* a = m ? m->levels[0] : find_array(r.res.array.array);
      if (!a) return abi::ErrInvalidResourceHandle;
      if (!format_of(a->desc, t)) return abi::ErrInvalidValue;
      t.base = a->base;
      t.pitch = a->pitch;
      t.width = uint32_t(a->width);
      t.height = uint32_t(a->height ? a->height : 1);
      t.depth = uint32_t(a->depth ? a->depth : 1);
      t.slice_pitch = t.pitch * t.height;
      if (a->flags & (kLayered | kCubemap)) {  // the depth counts layers (faces), not slices of a 3D volume
        t.layers = t.depth;
        t.layer_pitch = t.slice_pitch;
        t.depth = 1;
        t.cubemap = (a->flags & kCubemap) != 0;
      }
      // txq: 1D arrays have height 1; depth is 0 in 1D/2D and cubemaps, the layers of a layered
      // array, or the cubes of a layered cubemap.
      t.query[0] = t.width;
      t.query[1] = t.height;
      t.query[2] = !t.layers ? (a->depth ? t.depth : 0)
                   : !t.cubemap ? t.layers
                   : (a->flags & kLayered) ? t.layers / 6 : 0;
      if (m) {
        for (const ArrayObj* l : m->levels) {
          func::MipLevel v;
          v.base = l->base;
          v.pitch = l->pitch;
          v.width = uint32_t(l->width);
          v.height = uint32_t(l->height ? l->height : 1);
          v.depth = t.layers ? 1 : uint32_t(l->depth ? l->depth : 1);
          v.slice_pitch = v.pitch * v.height;
          v.layer_pitch = t.layers ? v.slice_pitch : 0;
          t.mips.push_back(v);
        }
      }
      return 0;
    }
    case 2: {  // linear
      if (!r.res.linear.devPtr || !format_of(r.res.linear.desc, t)) return abi::ErrInvalidValue;
      t.base = reinterpret_cast<uint64_t>(r.res.linear.devPtr);
      t.width = uint32_t(r.res.linear.sizeInBytes / t.elem_bytes());
      t.pitch = r.res.linear.sizeInBytes;
      t.slice_pitch = t.pitch;
      t.linear = true;
      t.query[0] = t.width;
      return t.width ? 0 : abi::ErrInvalidValue;
    }
    case 3: {  // pitch2D
      const auto& p = r.res.pitch2D;
      if (!p.devPtr || !format_of(p.desc, t) || p.width == 0 || p.height == 0) return abi::ErrInvalidValue;
      if (p.pitchInBytes < p.width * t.elem_bytes()) return abi::ErrInvalidValue;
      t.base = reinterpret_cast<uint64_t>(p.devPtr);
      t.width = uint32_t(p.width);
      t.height = uint32_t(p.height);
      t.pitch = p.pitchInBytes;
      t.slice_pitch = t.pitch * t.height;
      t.query[0] = t.width;
      t.query[1] = t.height;
      return 0;
    }
    default:
      return abi::ErrInvalidValue;
  }
}
}  // namespace

CUDART_API abi::Error cudaCreateTextureObject(unsigned long long* tex, const ResourceDesc* res,
                                              const TextureDescAbi* td, const void* view) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (s.sticky) return ret(s.sticky);
  if (!tex || !res || !td) return ret(abi::ErrInvalidValue);
  if (view) {
    fmt::print(stderr, "warpsim: texture resource views are not supported\n");
    return ret(abi::ErrNotSupported);
  }
  func::TextureDesc t;
  if (int e = resource_of(*res, t)) return ret(e);
  for (int i = 0; i < 3; ++i) {
    if (td->addressMode[i] < 0 || td->addressMode[i] > 3) return ret(abi::ErrInvalidValue);
    t.address[i] = func::AddressMode(td->addressMode[i]);
  }
  if (td->filterMode < 0 || td->filterMode > 1 || td->readMode < 0 || td->readMode > 1) return ret(abi::ErrInvalidValue);
  t.filter_linear = td->filterMode == 1;
  t.read_normalized = td->readMode == 1;
  t.normalized_coords = td->normalizedCoords != 0;
  std::memcpy(t.border, td->borderColor, sizeof t.border);
  // As the runtime: linear filtering needs float results (a float format or normalized reads).
  if (t.filter_linear && t.kind != func::ChannelKind::Float && !(t.read_normalized && t.channel_bytes <= 2))
    return ret(abi::ErrInvalidValue);
  if (t.linear && (t.filter_linear || t.normalized_coords)) {
    // tex1Dfetch reads elements by index; a linear resource has no sampler.
    t.filter_linear = false;
    t.normalized_coords = false;
  }
  if (td->seamlessCubemap && t.cubemap) {
    fmt::print(stderr, "warpsim: seamless cubemap filtering is not supported\n");
    return ret(abi::ErrNotSupported);
  }
  if (td->sRGB) {
    fmt::print(stderr, "warpsim: sRGB textures are not supported\n");
    return ret(abi::ErrNotSupported);
  }
  if (!t.mips.empty()) {
    if (td->mipmapFilterMode < 0 || td->mipmapFilterMode > 1) return ret(abi::ErrInvalidValue);
    // As on our H100, a mipmapped texture takes normalized coordinates whatever normalizedCoords
    // says (its gradients are in units of the texture's size too).
    t.normalized_coords = true;
    t.mip_linear = td->mipmapFilterMode == 1;
    t.mip_bias = td->mipmapLevelBias;
    t.mip_min = td->minMipmapLevelClamp;
    t.mip_max = td->maxMipmapLevelClamp;
  }
  *tex = s.dev->engine().textures().create(t);
  object_descs()[*tex] = ObjectDescs{*res, *td};
  return 0;
}

CUDART_API abi::Error cudaDestroyTextureObject(unsigned long long tex) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const func::TextureDesc* t = s.dev->engine().textures().find(tex);
  if (!t || t->surface) return ret(abi::ErrInvalidValue);
  s.dev->engine().textures().destroy(tex);
  object_descs().erase(tex);
  return 0;
}

CUDART_API abi::Error cudaCreateSurfaceObject(unsigned long long* surf, const ResourceDesc* res) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (s.sticky) return ret(s.sticky);
  if (!surf || !res) return ret(abi::ErrInvalidValue);
  if (res->resType != 0) return ret(abi::ErrInvalidValue);  // surfaces are backed by arrays only
  const ArrayObj* a = find_array(res->res.array.array);
  if (!a) return ret(abi::ErrInvalidResourceHandle);
  if (!(a->flags & 0x2)) return ret(abi::ErrInvalidValue);  // needs cudaArraySurfaceLoadStore
  func::TextureDesc t;
  if (int e = resource_of(*res, t)) return ret(e);
  t.surface = true;
  // suq: a 1D array's height is 0, a layered array's depth its layers (a cubemap's, its faces).
  t.query[1] = a->height ? t.height : 0;
  t.query[2] = t.layers ? t.layers : a->depth ? t.depth : 0;
  *surf = s.dev->engine().textures().create(t);
  object_descs()[*surf] = ObjectDescs{*res, {}};
  return 0;
}

CUDART_API abi::Error cudaDestroySurfaceObject(unsigned long long surf) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const func::TextureDesc* t = s.dev->engine().textures().find(surf);
  if (!t || !t->surface) return ret(abi::ErrInvalidValue);
  s.dev->engine().textures().destroy(surf);
  object_descs().erase(surf);
  return 0;
}

// The descriptions a texture or surface object was made with.
namespace {
template <class F>
abi::Error with_descs(unsigned long long h, bool surface, const void* out, F f) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  const func::TextureDesc* t = s.dev->engine().textures().find(h);
  auto it = object_descs().find(h);
  if (!out || !t || t->surface != surface || it == object_descs().end()) return ret(abi::ErrInvalidValue);
  f(it->second);
  return 0;
}
}  // namespace
CUDART_API abi::Error cudaGetTextureObjectResourceDesc(ResourceDesc* res, unsigned long long tex) {
  return with_descs(tex, false, res, [&](const ObjectDescs& d) { *res = d.res; });
}
CUDART_API abi::Error cudaGetTextureObjectTextureDesc(TextureDescAbi* td, unsigned long long tex) {
  return with_descs(tex, false, td, [&](const ObjectDescs& d) { *td = d.tex; });
}
CUDART_API abi::Error cudaGetSurfaceObjectResourceDesc(ResourceDesc* res, unsigned long long surf) {
  return with_descs(surf, true, res, [&](const ObjectDescs& d) { *res = d.res; });
}
