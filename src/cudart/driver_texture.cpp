// CUDA arrays and texture/surface objects through the driver API (cuArrayCreate, cuTexObjectCreate,
// ...), as the static runtime calls them for cudaMallocArray and cudaCreateTextureObject: each maps
// onto the runtime's arrays and texture objects (api_texture.cpp), converting the driver's
// descriptors (an element format and a channel count where the runtime has bits per channel; the
// sampler's options as flags). Array handles are the runtime's; CUDA_ARRAY3D_LAYERED, _SURFACE_LDST,
// _CUBEMAP and _TEXTURE_GATHER have the values of the runtime's cudaArray* flags, so they pass
// through unchanged. Mipmapped arrays (cuMipmappedArrayCreate/GetLevel/Destroy) are the runtime's
// too. Lookups: driver_texture_entry.
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "cudart/abi.hpp"
#include "cudart/driver.hpp"
#include "cudart/state.hpp"

using namespace warpsim::cudart;

using abi::ResourceDesc;
using abi::TextureDesc;

extern "C" {
abi::Error cudaMallocArray(void** array, const abi::ChannelFormatDesc* desc, size_t width, size_t height, unsigned int flags);
abi::Error cudaMalloc3DArray(void** array, const abi::ChannelFormatDesc* desc, abi::Extent e, unsigned int flags);
abi::Error cudaFreeArray(void* array);
abi::Error cudaMallocMipmappedArray(void** mip, const abi::ChannelFormatDesc* desc, abi::Extent e, unsigned int numLevels,
                                    unsigned int flags);
abi::Error cudaGetMipmappedArrayLevel(void** level, const void* mip, unsigned int lvl);
abi::Error cudaFreeMipmappedArray(void* mip);
abi::Error cudaArrayGetInfo(abi::ChannelFormatDesc* desc, abi::Extent* extent, unsigned int* flags, void* array);
abi::Error cudaCreateTextureObject(unsigned long long* tex, const ResourceDesc* res, const TextureDesc* td,
                                   const void* view);
abi::Error cudaDestroyTextureObject(unsigned long long tex);
abi::Error cudaCreateSurfaceObject(unsigned long long* surf, const ResourceDesc* res);
abi::Error cudaDestroySurfaceObject(unsigned long long surf);
}

namespace {

int cu(int e) { return cu_result(e); }

// CUarray_format: 0x01/0x02/0x03 unsigned 8/16/32-bit, 0x08/0x09/0x0a signed, 0x10 half, 0x20 float.
bool to_channel_format(int format, unsigned channels, abi::ChannelFormatDesc& out) {
  int bits = 0, kind = 0;
  switch (format) {
    case 0x01: bits = 8, kind = 1; break;
    case 0x02: bits = 16, kind = 1; break;
    case 0x03: bits = 32, kind = 1; break;
    case 0x08: bits = 8, kind = 0; break;
    case 0x09: bits = 16, kind = 0; break;
    case 0x0a: bits = 32, kind = 0; break;
    case 0x10: bits = 16, kind = 2; break;
    case 0x20: bits = 32, kind = 2; break;
    default: return false;
  }
  if (channels != 1 && channels != 2 && channels != 4) return false;
  out = abi::ChannelFormatDesc{bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0, channels > 2 ? bits : 0, kind};
  return true;
}
void from_channel_format(const abi::ChannelFormatDesc& f, int& format, unsigned& channels) {
  channels = 1u + (f.y > 0) + 2u * (f.z > 0);
  if (f.f == 2) format = f.x == 16 ? 0x10 : 0x20;
  else format = (f.x == 8 ? 0x01 : f.x == 16 ? 0x02 : 0x03) + (f.f == 0 ? 0x07 : 0);
}

// CUDA_ARRAY_DESCRIPTOR and CUDA_ARRAY3D_DESCRIPTOR.
struct ArrayDescriptor {
  size_t width, height;
  int format;
  unsigned channels;
};
struct Array3DDescriptor {
  size_t width, height, depth;
  int format;
  unsigned channels, flags;
};

int array_create(void** a, const ArrayDescriptor* d) {
  if (!a || !d) return CuInvalidValue;
  abi::ChannelFormatDesc f{};
  if (!to_channel_format(d->format, d->channels, f)) return CuInvalidValue;
  return cu(cudaMallocArray(a, &f, d->width, d->height, 0));
}
int array3d_create(void** a, const Array3DDescriptor* d) {
  if (!a || !d) return CuInvalidValue;
  abi::ChannelFormatDesc f{};
  if (!to_channel_format(d->format, d->channels, f)) return CuInvalidValue;
  return cu(cudaMalloc3DArray(a, &f, abi::Extent{d->width, d->height, d->depth}, d->flags));
}
int array_destroy(void* a) { return cu(cudaFreeArray(a)); }
// A driver call's failure is not the runtime's last error (cudaGetLastError).
template <class F>
int quietly(F f) {
  const int saved = last_error();
  const int e = f();
  last_error() = saved;
  return cu(e);
}
// Mipmapped arrays: the runtime's (levels are runtime arrays, so cuArray* and copies take them).
int mipmapped_array_create(void** m, const Array3DDescriptor* d, unsigned levels) {
  if (!m || !d) return CuInvalidValue;
  abi::ChannelFormatDesc f{};
  if (!to_channel_format(d->format, d->channels, f)) return CuInvalidValue;
  return quietly([&] { return cudaMallocMipmappedArray(m, &f, abi::Extent{d->width, d->height, d->depth}, levels, d->flags); });
}
int mipmapped_array_get_level(void** level, void* m, unsigned l) {
  return quietly([&] { return cudaGetMipmappedArrayLevel(level, m, l); });
}
int mipmapped_array_destroy(void* m) {
  return quietly([&] { return cudaFreeMipmappedArray(m); });
}
int array_get_descriptor(ArrayDescriptor* d, void* a) {
  if (!d) return CuInvalidValue;
  abi::ChannelFormatDesc f{};
  abi::Extent e{};
  if (int err = cudaArrayGetInfo(&f, &e, nullptr, a)) return cu(err);
  d->width = e.width;
  d->height = e.height;
  from_channel_format(f, d->format, d->channels);
  return CuSuccess;
}
int array3d_get_descriptor(Array3DDescriptor* d, void* a) {
  if (!d) return CuInvalidValue;
  abi::ChannelFormatDesc f{};
  abi::Extent e{};
  unsigned flags = 0;
  if (int err = cudaArrayGetInfo(&f, &e, &flags, a)) return cu(err);
  *d = Array3DDescriptor{e.width, e.height, e.depth, 0, 0, flags};
  from_channel_format(f, d->format, d->channels);
  return CuSuccess;
}

// CUDA_RESOURCE_DESC: the type (0 array, 1 mipmapped array, 2 linear, 3 pitch 2D), then a union of
// the resource (an element format and channel count where the runtime has a channel descriptor).
struct CuResourceDesc {
  int type;
  union {
    struct {
      void* array;
    } array;
    struct {
      void* mipmap;
    } mipmap;
    struct {
      uint64_t dev;
      int format;
      unsigned channels;
      size_t bytes;
    } linear;
    struct {
      uint64_t dev;
      int format;
      unsigned channels;
      size_t width, height, pitch;
    } pitch2d;
    int reserved[32];
  } res;
  unsigned flags;
};
int to_runtime(const CuResourceDesc& c, ResourceDesc& r) {
  std::memset(&r, 0, sizeof r);
  r.resType = c.type;
  r.flags = c.flags;
  switch (c.type) {
    case 0: r.res.array.array = c.res.array.array; return CuSuccess;
    case 1: r.res.mipmap.mipmap = c.res.mipmap.mipmap; return CuSuccess;
    case 2:
      r.res.linear.devPtr = reinterpret_cast<void*>(c.res.linear.dev);
      r.res.linear.sizeInBytes = c.res.linear.bytes;
      return to_channel_format(c.res.linear.format, c.res.linear.channels, r.res.linear.desc) ? CuSuccess
                                                                                              : CuInvalidValue;
    case 3:
      r.res.pitch2D.devPtr = reinterpret_cast<void*>(c.res.pitch2d.dev);
      r.res.pitch2D.width = c.res.pitch2d.width;
      r.res.pitch2D.height = c.res.pitch2d.height;
      r.res.pitch2D.pitchInBytes = c.res.pitch2d.pitch;
      return to_channel_format(c.res.pitch2d.format, c.res.pitch2d.channels, r.res.pitch2D.desc) ? CuSuccess
                                                                                                : CuInvalidValue;
    default: return CuInvalidValue;
  }
}

// CUDA_TEXTURE_DESC: address modes and filter as the runtime's, options as CU_TRSF_* flags (0x1 read
// as integer, 0x2 normalized coordinates, 0x10 sRGB, 0x20 no trilinear optimization, 0x40 seamless
// cubemap). Without "read as integer", 8- and 16-bit integer data reads as normalized floats.
struct CuTextureDesc {
  int address[3];
  int filter;
  unsigned flags;
  unsigned max_anisotropy;
  int mipmap_filter;
  float mipmap_bias, min_clamp, max_clamp;
  float border[4];
  int reserved[12];
};
// What objects made through the driver were made from (cuTexObjectGetResourceDesc, ...).
struct CuObjectDescs {
  CuResourceDesc res;
  CuTextureDesc tex;
};
std::map<unsigned long long, CuObjectDescs>& cu_object_descs() {
  static std::map<unsigned long long, CuObjectDescs> d;
  return d;
}
std::mutex& cu_object_mu() {
  static std::mutex m;
  return m;
}
void remember(unsigned long long h, const CuResourceDesc& r, const CuTextureDesc* t) {
  std::lock_guard g(cu_object_mu());
  CuObjectDescs d{};
  d.res = r;
  if (t) d.tex = *t;
  cu_object_descs()[h] = d;
}
void forget(unsigned long long h) {
  std::lock_guard g(cu_object_mu());
  cu_object_descs().erase(h);
}
template <class F>
int recall(unsigned long long h, F f) {
  std::lock_guard g(cu_object_mu());
  auto it = cu_object_descs().find(h);
  if (it == cu_object_descs().end()) return CuInvalidValue;
  f(it->second);
  return CuSuccess;
}

int tex_object_create(unsigned long long* tex, const CuResourceDesc* res, const CuTextureDesc* td, const void* view) {
  if (!tex || !res || !td) return CuInvalidValue;
  if (view) return CuNotSupported;
  ResourceDesc r;
  if (int e = to_runtime(*res, r)) return e;
  TextureDesc t{};
  for (int i = 0; i < 3; ++i) t.addressMode[i] = td->address[i];
  t.filterMode = td->filter;
  t.readMode = (td->flags & 0x1) ? 0 : 1;  // cudaReadModeElementType / cudaReadModeNormalizedFloat
  // Float data has no normalized read: the runtime reads it as is.
  const abi::ChannelFormatDesc& f = r.resType == 2 ? r.res.linear.desc : r.res.pitch2D.desc;
  if (r.resType >= 2 && (f.f == 2 || f.x == 32)) t.readMode = 0;
  if (r.resType <= 1) {
    void* arr = r.res.array.array;
    if (r.resType == 1 && cudaGetMipmappedArrayLevel(&arr, r.res.mipmap.mipmap, 0)) return CuInvalidHandle;
    abi::ChannelFormatDesc af{};
    abi::Extent e{};
    if (cudaArrayGetInfo(&af, &e, nullptr, arr) == 0 && (af.f == 2 || af.x == 32)) t.readMode = 0;
  }
  t.sRGB = (td->flags & 0x10) != 0;
  std::memcpy(t.borderColor, td->border, sizeof t.borderColor);
  t.normalizedCoords = (td->flags & 0x2) != 0;
  t.maxAnisotropy = td->max_anisotropy;
  t.mipmapFilterMode = td->mipmap_filter;
  t.mipmapLevelBias = td->mipmap_bias;
  t.minMipmapLevelClamp = td->min_clamp;
  t.maxMipmapLevelClamp = td->max_clamp;
  t.disableTrilinearOptimization = (td->flags & 0x20) != 0;
  t.seamlessCubemap = (td->flags & 0x40) != 0;
  const int e = cu(cudaCreateTextureObject(tex, &r, &t, nullptr));
  if (!e) remember(*tex, *res, td);
  return e;
}
int tex_object_destroy(unsigned long long tex) {
  const int e = cu(cudaDestroyTextureObject(tex));
  if (!e) forget(tex);
  return e;
}
int tex_object_resource_desc(CuResourceDesc* res, unsigned long long tex) {
  if (!res) return CuInvalidValue;
  return recall(tex, [&](const CuObjectDescs& d) { *res = d.res; });
}
int tex_object_texture_desc(CuTextureDesc* td, unsigned long long tex) {
  if (!td) return CuInvalidValue;
  return recall(tex, [&](const CuObjectDescs& d) { *td = d.tex; });
}
int surf_object_create(unsigned long long* surf, const CuResourceDesc* res) {
  if (!surf || !res) return CuInvalidValue;
  ResourceDesc r;
  if (int e = to_runtime(*res, r)) return e;
  const int e = cu(cudaCreateSurfaceObject(surf, &r));
  if (!e) remember(*surf, *res, nullptr);
  return e;
}
int surf_object_destroy(unsigned long long surf) {
  const int e = cu(cudaDestroySurfaceObject(surf));
  if (!e) forget(surf);
  return e;
}
int surf_object_resource_desc(CuResourceDesc* res, unsigned long long surf) {
  if (!res) return CuInvalidValue;
  return recall(surf, [&](const CuObjectDescs& d) { *res = d.res; });
}

}  // namespace

namespace warpsim::cudart {

void* driver_texture_entry(const std::string& base) {
  auto fn = [](auto f) { return reinterpret_cast<void*>(f); };
  if (base == "cuArrayCreate") return fn(&array_create);
  if (base == "cuArray3DCreate") return fn(&array3d_create);
  if (base == "cuArrayDestroy") return fn(&array_destroy);
  if (base == "cuMipmappedArrayCreate") return fn(&mipmapped_array_create);
  if (base == "cuMipmappedArrayGetLevel") return fn(&mipmapped_array_get_level);
  if (base == "cuMipmappedArrayDestroy") return fn(&mipmapped_array_destroy);
  if (base == "cuArrayGetDescriptor") return fn(&array_get_descriptor);
  if (base == "cuArray3DGetDescriptor") return fn(&array3d_get_descriptor);
  if (base == "cuTexObjectCreate") return fn(&tex_object_create);
  if (base == "cuTexObjectDestroy") return fn(&tex_object_destroy);
  if (base == "cuSurfObjectCreate") return fn(&surf_object_create);
  if (base == "cuSurfObjectDestroy") return fn(&surf_object_destroy);
  if (base == "cuTexObjectGetResourceDesc") return fn(&tex_object_resource_desc);
  if (base == "cuTexObjectGetTextureDesc") return fn(&tex_object_texture_desc);
  if (base == "cuSurfObjectGetResourceDesc") return fn(&surf_object_resource_desc);
  return nullptr;
}

}  // namespace warpsim::cudart
