// Texture and surface instructions on bindless objects (PTX ISA 8.7, 9.7.10 tex, 9.7.11 suld/sust),
// unified texture mode (the texture operand is a cudaTextureObject_t handle; no separate sampler):
//
// - tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.{f32,s32} d, [t, {c}] and the .level
//   (explicit level of detail) and .grad (from the gradients dPdx, dPdy; not .cube/.acube) forms:
//   on a mipmapped texture the level of detail, biased and clamped, in 8.8 fixed point, picks the
//   nearest level or blends the two nearest (texture.hpp, pick_levels); other textures have one
//   level, which every form reads. Layered geometries put the
//   layer index first ({l, x}, {l, x, y, _}, {l, x, y, z} for .acube); the hardware takes it as
//   unsigned and clamps it to the last layer, and never filters across layers. A cube direction
//   selects a face and face coordinates in [0, 1] (texture.hpp, cube_coord), always normalized and
//   clamped within the face (no seamless filtering). Float coordinates go through the texture's sampler
//   as the CUDA Programming Guide's "Texture Fetching" appendix describes: normalized coordinates
//   are scaled by the size; point sampling takes floor(x); linear filtering takes the texels around
//   x - 0.5 with weights in 9-bit fixed point (8 fractional bits); the address mode (wrap and
//   mirror only with normalized coordinates, else clamp; border reads the border colour) maps each
//   texel index into the resource. Integer coordinates (tex1Dfetch) fetch the element directly;
//   outside a linear buffer they read 0. cudaReadModeNormalizedFloat maps 8/16-bit integers to
//   [0, 1] (unsigned) or [-1, 1] (signed); 16-bit float channels are widened. Channels the format
//   lacks read 0.
// - tld4.{r,g,b,a}.{2d,a2d}.v4.{f32,s32,u32}.f32: one component of the four texels linear
//   filtering would weigh, "counter-clockwise from the lower left" with rows growing downwards:
//   (i, j+1), (i+1, j+1), (i+1, j), (i, j) for i = floor(x - 0.5), j = floor(y - 0.5), whatever the
//   filter mode (measured on our H100).
// - suld.b / sust.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero}: the x
//   coordinate is in bytes, y and z in rows and slices, a layer index first for .a1d/.a2d (cubemap
//   surfaces are layered ones with 6 layers per cube); out of range: .trap faults, .clamp uses the
//   nearest element (a layer as unsigned: -1 is the last), .zero reads 0 and drops stores.
//
// Every element access is a global-memory access of the resource (memory_access.hpp), so faults and
// the timing model's access trace are those of loads and stores.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/fp_util.hpp"
#include "func/memory_access.hpp"
#include "func/softfloat.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

enum Geom : unsigned { kNoGeom = 0, kG1d, kG2d, kG3d, kGA1d, kGA2d, kGCube, kGACube };

Geom geometry(const Instruction& ins) {
  if (ins.has(Mod::g1d)) return kG1d;
  if (ins.has(Mod::g2d)) return kG2d;
  if (ins.has(Mod::g3d)) return kG3d;
  if (ins.has(Mod::a1d)) return kGA1d;
  if (ins.has(Mod::a2d)) return kGA2d;
  if (ins.has(Mod::cube)) return kGCube;
  if (ins.has(Mod::acube)) return kGACube;
  return kNoGeom;
}
// Coordinates of the texture's own space (a cube's are a direction); a layer index comes first.
unsigned spatial_dims(unsigned g) {
  static constexpr unsigned d[] = {0, 1, 2, 3, 1, 2, 3, 3};
  return d[g];
}
bool layered(unsigned g) { return g == kGA1d || g == kGA2d || g == kGACube; }

// A brace list or a single register: its first n elements.
bool elements(const Operand& o, unsigned n, std::vector<const Operand*>& out) {
  out.clear();
  if (o.kind == Operand::Kind::Vector) {
    if (o.elems.size() < n) return false;
    for (unsigned i = 0; i < n; ++i) out.push_back(&o.elems[i]);
    return true;
  }
  if (n != 1) return false;
  out.push_back(&o);
  return true;
}

const TextureDesc* object(ExecCtx& ctx, uint64_t h, bool surface, unsigned lane, const char* what) {
  const TextureDesc* t = ctx.launch.textures ? ctx.launch.textures->find(h) : nullptr;
  if (!t || t->surface != surface) {
    ctx.fault(FaultKind::IllegalAddress, lane, h,
              fmt::format("{}: 0x{:x} is not a live {} object", what, h, surface ? "surface" : "texture"));
    return nullptr;
  }
  return t;
}

// ------------------------------------------------------------------ tex

// flags: bits 0-1 dimensions, bit 4 float coordinates, bits 8-9 result type (0 f32, 1 s32, 2 u32).
// Operands: d0..d3, handle, coordinates.
constexpr unsigned kTexFloatCoords = 1u << 4;

int64_t map_index(int64_t i, uint32_t n, AddressMode m, bool& border) {
  switch (m) {
    case AddressMode::Wrap: {
      int64_t r = i % int64_t(n);
      return r < 0 ? r + n : r;
    }
    case AddressMode::Mirror: {
      int64_t p = 2 * int64_t(n), r = i % p;
      if (r < 0) r += p;
      return r >= int64_t(n) ? p - 1 - r : r;
    }
    case AddressMode::Border:
      if (i < 0 || i >= int64_t(n)) border = true;
      return std::clamp<int64_t>(i, 0, int64_t(n) - 1);
    case AddressMode::Clamp:
    default: return std::clamp<int64_t>(i, 0, int64_t(n) - 1);
  }
}

// The element's channels: as floats (the read mode applied) and as integers.
bool read_texel(ExecCtx& ctx, unsigned l, const TextureView& t, uint64_t slice, const int64_t idx[3], float f[4],
                uint32_t u[4]) {
  const uint64_t addr = t.base + slice + uint64_t(idx[2]) * t.slice_pitch + uint64_t(idx[1]) * t.pitch +
                        uint64_t(idx[0]) * t.elem_bytes();
  const unsigned cb = t.channel_bytes;
  for (unsigned c = 0; c < 4; ++c) {
    f[c] = 0;
    u[c] = 0;
    if (c >= t.channels) continue;
    const uint8_t* p = resolve_access(ctx, AccessSpace::Global, l, addr + c * cb, cb, false);
    if (!p) return false;
    const uint64_t raw = load_bytes(p, cb);
    switch (t.kind) {
      case ChannelKind::Float: {
        uint32_t bits = cb == 2 ? uint32_t(sf::convert(sf::kF16, raw, sf::kF32, sf::Mode::Rn)) : uint32_t(raw);
        std::memcpy(&f[c], &bits, 4);
        u[c] = bits;
        break;
      }
      case ChannelKind::Unsigned:
        u[c] = uint32_t(raw);
        f[c] = t.read_normalized && cb <= 2 ? float(double(raw) / double((1u << (8 * cb)) - 1)) : float(uint32_t(raw));
        break;
      case ChannelKind::Signed: {
        const unsigned bits = 8 * cb;
        int64_t v = bits >= 64 ? int64_t(raw) : int64_t(raw << (64 - bits)) >> (64 - bits);
        u[c] = uint32_t(int32_t(v));
        f[c] = t.read_normalized && cb <= 2 ? std::max(-1.0f, float(double(v) / double((1u << (bits - 1)) - 1)))
                                            : float(int32_t(v));
        break;
      }
    }
  }
  return true;
}

AddressMode effective_mode(const TextureView& t, unsigned d, bool normalized) {
  const AddressMode m = t.address[d];
  // Wrap and mirror need normalized coordinates; otherwise they clamp.
  return !normalized && (m == AddressMode::Wrap || m == AddressMode::Mirror) ? AddressMode::Clamp : m;
}

void border_texel(const TextureView& t, float f[4], uint32_t u[4]) {
  std::memcpy(f, t.border, 4 * sizeof(float));
  for (unsigned c = 0; c < 4; ++c) u[c] = uint32_t(int32_t(t.border[c]));
}

// A float coordinate in texel space: NaN reads as 0, normalized coordinates are scaled by the size,
// and linear filtering (and tld4's footprint) shifts the grid by half a texel.
float texel_coord(float x, uint32_t size, bool normalized, bool half_shift) {
  if (std::isnan(x)) x = 0;
  if (normalized) x *= float(size);
  if (half_shift) x -= 0.5f;
  return std::clamp(x, -1e9f, 1e9f);
}

// Float coordinates x[0..dims) through the sampler, in the slice `slice` bytes from the base.
// `cube`: face coordinates, normalized and clamped whatever the texture's settings.
bool sample(ExecCtx& ctx, unsigned l, const TextureView& t, unsigned dims, const float* xs, bool cube, bool lin,
            uint64_t slice, float acc[4], uint32_t ints[4]) {
  const uint32_t size[3] = {t.width, t.height, t.depth};
  const bool normalized = cube || t.normalized_coords;
  int64_t base[3] = {0, 0, 0};
  float frac[3] = {0, 0, 0};
  for (unsigned d = 0; d < dims; ++d) {
    const float x = texel_coord(xs[d], size[d], normalized, lin);
    const float fl = std::floor(x);
    base[d] = int64_t(fl);
    // 9-bit fixed-point weight with 8 fractional bits.
    if (lin) frac[d] = std::nearbyint((x - fl) * 256.0f) / 256.0f;
  }
  const unsigned corners = lin ? 1u << dims : 1u;
  for (unsigned k = 0; k < corners; ++k) {
    int64_t idx[3] = {0, 0, 0};
    float w = 1;
    bool border = false;
    for (unsigned d = 0; d < dims; ++d) {
      const unsigned up = k >> d & 1;
      if (lin) w *= up ? frac[d] : 1 - frac[d];
      const AddressMode m = cube ? AddressMode::Clamp : effective_mode(t, d, normalized);
      idx[d] = map_index(base[d] + up, size[d], m, border);
    }
    if (lin && w == 0) continue;
    float f[4];
    uint32_t u[4];
    if (border) border_texel(t, f, u);
    else if (!read_texel(ctx, l, t, slice, idx, f, u)) return false;
    for (unsigned c = 0; c < 4; ++c) acc[c] += lin ? w * f[c] : f[c];
    if (!lin) std::memcpy(ints, u, 4 * sizeof(uint32_t));
  }
  return true;
}

// flags: bit 5 tex.level (operand after the coordinates: the level of detail), bit 6 tex.grad
// (then dPdx and dPdy, `dims` components each).
constexpr unsigned kTexLevel = 1u << 5, kTexGrad = 1u << 6;

// The level of detail of a tex.grad fetch: log2 of the longer gradient, in texels of level 0
// (normalized units times the size: mipmapped textures always take normalized coordinates, and the
// H100 scales gradients by the size even where the texture was made with unnormalized ones).
// Euclidean lengths: exact for axis-aligned gradients; the H100's answer for diagonal ones differs
// (a gradient (1, 1) texel reads level 0.43, not 0.5; see docs/architecture.md).
float grad_lod(const TextureDesc& t, unsigned dims, const float* dx, const float* dy) {
  const double size[3] = {double(t.width), double(t.height), double(t.depth)};
  double lx = 0, ly = 0;
  for (unsigned d = 0; d < dims; ++d) {
    const double a = double(dx[d]) * size[d], b = double(dy[d]) * size[d];
    lx += a * a, ly += b * b;
  }
  const float rho = float(std::sqrt(std::max(lx, ly)));
  const int32_t l256 = lod_of_length(rho);
  return float(l256) / 256.0f;
}

void exec_tex(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const unsigned geom = in.flags & 7;
  const unsigned dims = spatial_dims(geom);
  const bool has_layer = layered(geom), cube = geom == kGCube || geom == kGACube;
  const bool fcoords = in.flags & kTexFloatCoords;
  const unsigned rtype = (in.flags >> 8) & 3;
  const uint64_t* h = ctx.src(ops[4]);
  const uint64_t* layer = has_layer ? ctx.src(ops[5]) : nullptr;
  const unsigned c0 = has_layer ? 6 : 5;
  const uint64_t* cs[3] = {nullptr, nullptr, nullptr};
  for (unsigned i = 0; i < dims; ++i) cs[i] = ctx.src(ops[c0 + i]);
  const uint64_t* lod_op = in.flags & kTexLevel ? ctx.src(ops[c0 + dims]) : nullptr;
  const uint64_t* gs[2][3] = {};
  if (in.flags & kTexGrad)
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned d = 0; d < dims; ++d) gs[k][d] = ctx.src(ops[c0 + dims + k * dims + d]);
  uint32_t out[4][kWarpSize] = {};
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    const TextureDesc* t = object(ctx, h[l], false, l, "tex");
    if (!t) return;
    // The slice: a layer (a cube's six faces per layer, chosen below).
    uint32_t slice = 0;
    if (has_layer) {
      const uint32_t count = cube ? std::max(1u, t->slices() / 6) : t->slices();
      slice = clamp_layer(uint32_t(layer[l]), count) * (cube ? 6 : 1);
    }
    // One level's texel (or filtered value) into acc / ints.
    auto fetch = [&](const TextureView& v, float acc[4], uint32_t ints[4]) {
      const uint32_t size[3] = {v.width, v.height, v.depth};
      if (cube) {
        const CubeCoord cc =
            cube_coord(fp::f32(uint32_t(cs[0][l])), fp::f32(uint32_t(cs[1][l])), fp::f32(uint32_t(cs[2][l])));
        const float st[2] = {cc.s, cc.t};
        return sample(ctx, l, v, 2, st, true, v.filter_linear && rtype == 0,
                      uint64_t(slice + cc.face) * v.layer_pitch, acc, ints);
      }
      if (!fcoords) {
        // Integer coordinates: the element itself, no sampler.
        int64_t idx[3] = {0, 0, 0};
        bool outside = false, border = false;
        for (unsigned d = 0; d < dims; ++d) {
          int64_t i = int32_t(uint32_t(cs[d][l]));
          if (v.linear) outside |= i < 0 || i >= int64_t(size[d]);
          else i = map_index(i, size[d], effective_mode(v, d, v.normalized_coords), border);
          idx[d] = i;
        }
        if (outside) return true;  // zero
        if (border) {
          border_texel(v, acc, ints);
          return true;
        }
        return read_texel(ctx, l, v, uint64_t(slice) * v.layer_pitch, idx, acc, ints);
      }
      float xs[3];
      for (unsigned d = 0; d < dims; ++d) xs[d] = fp::f32(uint32_t(cs[d][l]));
      return sample(ctx, l, v, dims, xs, false, v.filter_linear && rtype == 0, uint64_t(slice) * v.layer_pitch, acc,
                    ints);
    };
    float acc[4] = {0, 0, 0, 0};
    uint32_t ints[4] = {0, 0, 0, 0};
    if (t->mips.empty()) {
      // One level: tex.level and tex.grad read it whatever the level of detail.
      if (!fetch(*t, acc, ints)) return;
    } else {
      float lod = 0;  // plain tex: no derivatives in compute, level of detail 0
      if (lod_op) lod = fp::f32(uint32_t(lod_op[l]));
      else if (gs[0][0]) {
        float dx[3], dy[3];
        for (unsigned d = 0; d < dims; ++d) dx[d] = fp::f32(uint32_t(gs[0][d][l])), dy[d] = fp::f32(uint32_t(gs[1][d][l]));
        lod = grad_lod(*t, dims, dx, dy);
      }
      // Integer results and integer coordinates are never blended.
      const LevelPick p = pick_levels(sampler_lod256(lod, *t), t->levels(), t->mip_linear && rtype == 0 && fcoords);
      if (!fetch(t->level(p.l0), acc, ints)) return;
      if (p.w) {
        // The H100 blends the two levels' filtered values with the 8-bit weight: a(1-w) + bw.
        float b[4] = {0, 0, 0, 0};
        uint32_t bi[4];
        if (!fetch(t->level(p.l1), b, bi)) return;
        const float w = float(p.w) / 256.0f;
        for (unsigned c = 0; c < 4; ++c) acc[c] = acc[c] * (1.0f - w) + b[c] * w;
      }
    }
    for (unsigned c = 0; c < 4; ++c) {
      if (rtype == 0) std::memcpy(&out[c][l], &acc[c], 4);
      else out[c][l] = ints[c];
    }
  }
  for (unsigned c = 0; c < 4; ++c)
    if (!ops[c].is_none()) for_lanes(ctx.dst(ops[c]), mask, [&](unsigned l) { return uint64_t(out[c][l]); });
}

// The coordinate operands of [t, {c}]: a layer index (Type::B32) first for layered geometries,
// then the spatial coordinates of type ct. False with the error set otherwise.
bool coordinate_refs(DecodeCtx& c, const Operand& list, unsigned geom, Type ct, const char* name,
                     std::vector<Ref>& refs) {
  const unsigned n = spatial_dims(geom) + (layered(geom) ? 1 : 0);
  std::vector<const Operand*> coords;
  if (!elements(list, n, coords)) return c.fail(fmt::format("{}: too few coordinates for the geometry", name));
  for (unsigned i = 0; i < n; ++i) refs.push_back(c.ref(*coords[i], layered(geom) && i == 0 ? Type::B32 : ct));
  return c.error.empty();
}

// What tex and tld4 share once their types are checked: the destination 4-vector (results of type
// dt), the texture handle and the coordinates of [t, {c}] (unified texture mode), as refs in that
// order.
bool fetch_operands(DecodeCtx& c, const Instruction& ins, Geom geom, Type dt, Type ct, const char* name,
                    std::vector<Ref>& refs) {
  const Operand& d = ins.operands[0];
  const Operand& a = ins.operands[1];
  if (d.kind != Operand::Kind::Vector || d.elems.size() != 4)
    return c.fail(fmt::format("{}: the destination must be a 4-vector", name));
  if (a.kind != Operand::Kind::MemList || a.elems.size() != 2)
    return c.fail(fmt::format("{}: only unified texture mode [texture, {{coordinates}}] is supported (no separate "
                              "sampler)", name));
  const Type rt = dt == Type::F32 ? Type::B32 : dt;
  for (auto& e : d.elems) refs.push_back(e.kind == Operand::Kind::Sink ? Ref::none() : c.ref(e, rt));
  refs.push_back(c.ref(a.elems[0], Type::B64));
  return coordinate_refs(c, a.elems[1], geom, ct, name, refs);
}

bool dec_tex(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const Geom geom = geometry(ins);
  if (!geom) return c.fail("tex: the multisample geometries (.2dms, .a2dms) are not supported");
  const auto ts = ins.types();
  const Type dt = ts[0], ct = ts[1];
  if (!ins.has(Mod::v4) || (dt != Type::F32 && dt != Type::S32 && dt != Type::U32))
    return c.fail("tex: only the .v4.f32, .v4.s32 and .v4.u32 results are supported");
  if (ct != Type::F32 && ct != Type::S32) return c.fail("tex: coordinates must be .f32 or .s32");
  if ((geom == kGCube || geom == kGACube) && ct != Type::F32) return c.fail("tex: .cube and .acube need .f32 coordinates");
  const bool level = ins.has(Mod::level), grad = ins.has(Mod::grad);
  const size_t want = level ? 3 : grad ? 4 : 2;
  if (ins.operands.size() != want)
    return c.fail("tex: a destination predicate, texel offset or depth compare is not supported");
  if (grad && (geom == kGCube || geom == kGACube))
    return c.fail("tex.grad: the .cube and .acube geometries are not supported (texCubemapGrad)");
  std::vector<Ref> refs;
  if (!fetch_operands(c, ins, geom, dt, ct, "tex", refs)) return false;
  if (level) {
    const Operand& lod = ins.operands[2];
    if (lod.kind == Operand::Kind::Vector || lod.kind == Operand::Kind::Sink)
      return c.fail("tex.level: the level of detail must be one .f32 value");
    refs.push_back(c.ref(lod, Type::F32));
  }
  if (grad) {
    // dPdx and dPdy: vectors of one component per spatial dimension (.3d's are 4-vectors, the
    // fourth unused).
    const unsigned n = spatial_dims(geom);
    for (unsigned k = 2; k < 4; ++k) {
      std::vector<const Operand*> g;
      if (!elements(ins.operands[k], n, g)) return c.fail("tex.grad: too few gradient components for the geometry");
      for (auto* o : g) {
        if (o->kind == Operand::Kind::Sink) return c.fail("tex.grad: a gradient component cannot be '_'");
        refs.push_back(c.ref(*o, Type::F32));
      }
    }
  }
  if (!c.error.empty()) return false;
  c.set_ops(out, refs);
  out.flags = geom | (ct == Type::F32 ? kTexFloatCoords : 0u) | (level ? kTexLevel : 0u) | (grad ? kTexGrad : 0u) |
              (dt == Type::S32 ? 1u : dt == Type::U32 ? 2u : 0u) << 8;
  out.exec = exec_tex;
  return true;
}

// ------------------------------------------------------------------ tld4

// flags: bits 0-2 geometry, bits 4-5 component, bits 8-9 result type. Operands as tex's.
void exec_tld4(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const unsigned geom = in.flags & 7, comp = (in.flags >> 4) & 3, rtype = (in.flags >> 8) & 3;
  const bool has_layer = layered(geom);
  const uint64_t* h = ctx.src(ops[4]);
  const uint64_t* layer = has_layer ? ctx.src(ops[5]) : nullptr;
  const uint64_t* cs[2] = {ctx.src(ops[has_layer ? 6 : 5]), ctx.src(ops[has_layer ? 7 : 6])};
  uint32_t out[4][kWarpSize] = {};
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    const TextureDesc* t = object(ctx, h[l], false, l, "tld4");
    if (!t) return;
    const uint64_t slice = has_layer ? uint64_t(clamp_layer(uint32_t(layer[l]), t->slices())) * t->layer_pitch : 0;
    const uint32_t size[2] = {t->width, t->height};
    int64_t base[2];
    for (unsigned d = 0; d < 2; ++d)
      base[d] = int64_t(std::floor(texel_coord(fp::f32(uint32_t(cs[d][l])), size[d], t->normalized_coords, true)));
    for (unsigned k = 0; k < 4; ++k) {
      const unsigned dx = tld4_corner(k).dx, dy = tld4_corner(k).dy;
      int64_t idx[3] = {0, 0, 0};
      bool border = false;
      idx[0] = map_index(base[0] + dx, size[0], effective_mode(*t, 0, t->normalized_coords), border);
      idx[1] = map_index(base[1] + dy, size[1], effective_mode(*t, 1, t->normalized_coords), border);
      float f[4];
      uint32_t u[4];
      if (border) border_texel(*t, f, u);
      else if (!read_texel(ctx, l, *t, slice, idx, f, u)) return;
      if (rtype == 0) std::memcpy(&out[k][l], &f[comp], 4);
      else out[k][l] = u[comp];
    }
  }
  for (unsigned k = 0; k < 4; ++k)
    if (!ops[k].is_none()) for_lanes(ctx.dst(ops[k]), mask, [&](unsigned l) { return uint64_t(out[k][l]); });
}

bool dec_tld4(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const Geom geom = geometry(ins);
  if (geom != kG2d && geom != kGA2d) return c.fail("tld4: only the .2d and .a2d geometries are supported (not .cube)");
  const unsigned comp = ins.has(Mod::r) ? 0 : ins.has(Mod::g) ? 1 : ins.has(Mod::bch) ? 2 : ins.has(Mod::ach) ? 3 : 4;
  if (comp == 4) return c.fail("tld4: expects a component .r, .g, .b or .a");
  const auto ts = ins.types();
  const Type dt = ts[0], ct = ts[1];
  if (!ins.has(Mod::v4) || (dt != Type::F32 && dt != Type::S32 && dt != Type::U32))
    return c.fail("tld4: only the .v4.f32, .v4.s32 and .v4.u32 results are supported");
  if (ct != Type::F32) return c.fail("tld4: coordinates must be .f32");
  if (ins.operands.size() != 2)
    return c.fail("tld4: a destination predicate, texel offset or depth compare is not supported");
  std::vector<Ref> refs;
  if (!fetch_operands(c, ins, geom, dt, ct, "tld4", refs)) return false;
  c.set_ops(out, refs);
  out.flags = geom | comp << 4 | (dt == Type::S32 ? 1u : dt == Type::U32 ? 2u : 0u) << 8;
  out.exec = exec_tld4;
  return true;
}

// ------------------------------------------------------------------ suld.b / sust.b

// flags: bits 0-1 dimensions, bit 3 layered, bits 4-6 vector count, bits 8-9 boundary (0 trap,
// 1 clamp, 2 zero), bits 12-15 component bytes. Operands: suld d..., handle, [layer], coords; sust
// handle, [layer], coords, values...
enum Boundary : unsigned { kTrap = 0, kClamp = 1, kZero = 2 };

template <bool Store>
void exec_surface(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const unsigned dims = in.flags & 3, n = (in.flags >> 4) & 7, boundary = (in.flags >> 8) & 3;
  const unsigned eb = (in.flags >> 12) & 15;
  const bool has_layer = in.flags & 8;
  const unsigned hop = Store ? 0 : n;  // operand index of the handle
  const uint64_t* h = ctx.src(ops[hop]);
  const uint64_t* layer = has_layer ? ctx.src(ops[hop + 1]) : nullptr;
  const unsigned c0 = hop + 1 + (has_layer ? 1 : 0);
  const uint64_t* cs[3] = {nullptr, nullptr, nullptr};
  for (unsigned i = 0; i < dims; ++i) cs[i] = ctx.src(ops[c0 + i]);
  uint64_t vals[4][kWarpSize] = {};
  if (Store)
    for (unsigned k = 0; k < n; ++k) {
      const uint64_t* v = ctx.src(ops[c0 + dims + k]);
      for (unsigned l = 0; l < kWarpSize; ++l) vals[k][l] = v[l];
    }
  const unsigned size = n * eb;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    const TextureDesc* t = object(ctx, h[l], true, l, Store ? "sust" : "suld");
    if (!t) return;
    int64_t c[3] = {0, 0, 0};
    for (unsigned d = 0; d < dims; ++d) c[d] = int32_t(uint32_t(cs[d][l]));
    const int64_t limit[3] = {int64_t(t->width) * t->elem_bytes(), int64_t(t->height), int64_t(t->depth)};
    uint32_t li = has_layer ? uint32_t(layer[l]) : 0;
    bool outside = c[0] < 0 || c[0] + int64_t(size) > limit[0] || li >= t->slices();
    for (unsigned d = 1; d < dims; ++d) outside |= c[d] < 0 || c[d] >= limit[d];
    if (outside) {
      if (boundary == kTrap) {
        ctx.fault(FaultKind::IllegalAddress, l, t->base,
                  fmt::format("{}: surface coordinates ({}, {}, {}) layer {} outside the {}x{}x{} surface of {} "
                              "layer(s) (x in bytes)",
                              Store ? "sust" : "suld", c[0], c[1], c[2], li, limit[0], limit[1], limit[2],
                              t->slices()));
        return;
      }
      if (boundary == kZero) continue;  // loads read 0, stores are dropped
      c[0] = std::clamp<int64_t>(c[0], 0, std::max<int64_t>(0, limit[0] - size)) / size * size;
      for (unsigned d = 1; d < dims; ++d) c[d] = std::clamp<int64_t>(c[d], 0, limit[d] - 1);
      li = clamp_layer(li, t->slices());
    }
    const uint64_t addr = t->base + uint64_t(li) * t->layer_pitch + uint64_t(c[2]) * t->slice_pitch +
                          uint64_t(c[1]) * t->pitch + uint64_t(c[0]);
    for (unsigned k = 0; k < n; ++k) {
      uint8_t* p = resolve_access(ctx, AccessSpace::Global, l, addr + k * eb, eb, Store);
      if (!p) return;
      if (Store) store_bytes(p, vals[k][l], eb);
      else vals[k][l] = load_bytes(p, eb);
    }
  }
  if (!Store)
    for (unsigned k = 0; k < n; ++k)
      if (!ops[k].is_none()) for_lanes(ctx.dst(ops[k]), mask, [&](unsigned l) { return vals[k][l]; });
}

template <bool Store>
bool dec_surface(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const char* name = Store ? "sust" : "suld";
  if (!ins.has(Mod::bch)) return c.fail(fmt::format("{}: only the .b (unformatted) form is supported", name));
  const Geom geom = geometry(ins);
  if (geom != kG1d && geom != kG2d && geom != kG3d && geom != kGA1d && geom != kGA2d)
    return c.fail(fmt::format("{}: only the 1d, 2d, 3d, a1d and a2d geometries are supported", name));
  const unsigned dims = spatial_dims(geom);
  const Type t = ins.types()[0];
  const unsigned eb = t == Type::B8 ? 1 : t == Type::B16 ? 2 : t == Type::B32 ? 4 : t == Type::B64 ? 8 : 0;
  if (!eb) return c.fail(fmt::format("{}: the type must be .b8, .b16, .b32 or .b64", name));
  const unsigned n = ins.has(Mod::v4) ? 4 : ins.has(Mod::v2) ? 2 : 1;
  const unsigned boundary = ins.has(Mod::clamp) ? kClamp : ins.has(Mod::zero) ? kZero : kTrap;
  if (ins.operands.size() != 2) return c.fail(fmt::format("{}: expects two operands", name));
  const Operand& a = ins.operands[Store ? 0 : 1];
  const Operand& v = ins.operands[Store ? 1 : 0];
  if (a.kind != Operand::Kind::MemList || a.elems.size() != 2)
    return c.fail(fmt::format("{}: expects [surface, {{coordinates}}]", name));
  std::vector<const Operand*> values;
  if (!elements(v, n, values)) return c.fail(fmt::format("{}: expects {} value registers", name, n));
  if (Store)
    for (auto* o : values)
      if (o->kind == Operand::Kind::Sink) return c.fail("sust: a value cannot be the sink '_'");
  const Type rt = eb == 8 ? Type::B64 : Type::B32;
  std::vector<Ref> refs;
  auto val = [&](const Operand* o) { return o->kind == Operand::Kind::Sink ? Ref::none() : c.ref(*o, rt); };
  if (!Store)
    for (auto* o : values) refs.push_back(val(o));
  refs.push_back(c.ref(a.elems[0], Type::B64));
  if (!coordinate_refs(c, a.elems[1], geom, Type::S32, name, refs)) return false;
  if (Store)
    for (auto* o : values) refs.push_back(val(o));
  if (!c.error.empty()) return false;
  c.set_ops(out, refs);
  out.flags = dims | (layered(geom) ? 8u : 0u) | n << 4 | boundary << 8 | eb << 12;
  out.exec = exec_surface<Store>;
  return true;
}


// ------------------------------------------------------------------ txq / suq

// txq.{width,height,depth}.b32 d, [t] and txq.level.{width,height,depth}.b32 d, [t], lod: level 0's
// size as TextureDesc::query holds it, or level `lod`'s; a level the texture lacks (or negative)
// answers 0, as on our H100. suq.{width,height,depth}.b32 d, [s]: TextureDesc::query of the
// surface (width in elements; height 0 for 1D arrays; depth: a 3D depth, or the layer count of a
// layered array, 6 per cube).
// The other queries (channel_data_type, channel_order, normalized_coords, filter_mode,
// addr_mode_N, array_size, num_mipmap_levels, num_samples, memory_layout) are refused at decode:
// the H100's driver refuses a module using them on texture/surface objects (cudaErrorSymbolNotFound /
// cudaErrorNotSupported at launch).
// flags: bits 0-1 query (0 width, 1 height, 2 depth), bit 2 .level, bit 3 suq. Operands: d, handle, [lod].
uint32_t texture_query(const TextureDesc& t, unsigned q, bool at_level, int32_t lvl) {
  if (!at_level || lvl == 0) return t.query[q];
  if (lvl < 0 || t.mips.empty() || uint32_t(lvl) >= t.mips.size()) return 0;
  const MipLevel& m = t.mips[uint32_t(lvl)];
  if (!t.query[q]) return 0;
  if (q == 0) return m.width;
  if (q == 1) return m.height;
  return t.layers ? t.query[2] : m.depth;  // layers and cubes are the same on every level
}
void exec_query(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const unsigned q = in.flags & 3;
  const bool at_level = in.flags & 4, surf = in.flags & 8;
  const uint64_t* h = ctx.src(ops[1]);
  const uint64_t* lv = at_level ? ctx.src(ops[2]) : nullptr;
  uint32_t out[kWarpSize] = {};
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    const TextureDesc* t = object(ctx, h[l], surf, l, surf ? "suq" : "txq");
    if (!t) return;
    out[l] = surf ? t->query[q] : texture_query(*t, q, at_level, lv ? int32_t(uint32_t(lv[l])) : 0);
  }
  for_lanes(ctx.dst(ops[0]), mask, [&](unsigned l) { return uint64_t(out[l]); });
}

template <bool Surface>
bool dec_query(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const char* name = Surface ? "suq" : "txq";
  const int q = ins.has(Mod::width) ? 0 : ins.has(Mod::height) ? 1 : ins.has(Mod::depth) ? 2 : -1;
  if (q < 0)
    return c.fail(fmt::format("{}: only .width, .height and .depth are supported (the H100's driver refuses the "
                              "other queries on texture and surface objects)", name));
  const bool at_level = !Surface && ins.has(Mod::level);
  if (ins.types().empty() || ins.types()[0] != Type::B32) return c.fail(fmt::format("{}: the type must be .b32", name));
  if (ins.operands.size() != (at_level ? 3u : 2u))
    return c.fail(fmt::format("{}: expects d, [object]{}", name, at_level ? ", lod" : ""));
  const Operand& a = ins.operands[1];
  if (a.kind != Operand::Kind::Address || a.elems.size() != 1 || a.elems[0].kind != Operand::Kind::Reg || a.ival)
    return c.fail(fmt::format("{}: only a .u64 object handle in a register is supported ([%rd]; no .texref/.surfref)", name));
  std::vector<Ref> refs;
  refs.push_back(c.ref(ins.operands[0], Type::B32));
  refs.push_back(c.ref(a.elems[0], Type::B64));
  if (at_level) refs.push_back(c.ref(ins.operands[2], Type::B32));
  if (!c.error.empty()) return false;
  c.set_ops(out, refs);
  out.flags = unsigned(q) | (at_level ? 4u : 0u) | (Surface ? 8u : 0u);
  out.exec = exec_query;
  return true;
}

}  // namespace

void register_tex_ops() {
  register_decoder(Opcode::Tex, dec_tex);
  register_decoder(Opcode::Tld4, dec_tld4);
  register_decoder(Opcode::Suld, dec_surface<false>);
  register_decoder(Opcode::Sust, dec_surface<true>);
  register_decoder(Opcode::Txq, dec_query<false>);
  register_decoder(Opcode::Suq, dec_query<true>);
}

}  // namespace warpsim::func
