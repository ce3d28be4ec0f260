// tex / suld.b / sust.b on texture and surface objects (ops_tex.cpp) against hand-computed values
// from the CUDA Programming Guide's texture-fetching rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {
const std::string kHead = ".version 8.7\n.target sm_80\n.address_size 64\n";

float as_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
}  // namespace

// A 4x2 float texture sampled at (x, y) given per thread: point and linear, clamp and border.
TEST(Tex, Tex2dPointLinearClampBorder) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 tex, .param .u64 xy, .param .u64 out)
{
  .reg .f32 %f<8>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [xy];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v2.f32 {%f1, %f2}, [%rd5];
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd3, %rd6;
  st.global.f32 [%rd7], %f3;
  exit;
}
)"));
  // Texels: row 0 = 0 10 20 30, row 1 = 100 110 120 130.
  const float img[8] = {0, 10, 20, 30, 100, 110, 120, 130};
  uint64_t base = h.alloc(sizeof img);
  h.mem.host_write(base, img, sizeof img);
  func::TextureDesc t;
  t.base = base;
  t.pitch = 16;
  t.width = 4;
  t.height = 2;
  t.slice_pitch = 32;
  const float xy[] = {1.5f, 0.5f,  3.9f, 1.2f,  -2.f, 0.5f,  1.0f, 1.0f,  1.25f, 0.5f};
  uint64_t dxy = h.alloc(sizeof xy), out = h.alloc(5 * 4);
  h.mem.host_write(dxy, xy, sizeof xy);
  auto run = [&](const func::TextureDesc& d) {
    uint64_t handle = h.eng.textures().create(d);
    auto r = h.run("k", {1, 1, 1}, {5, 1, 1}, Harness::Params().add(handle).add(dxy).add(out));
    EXPECT_TRUE(r.ok()) << r.report();
    std::vector<float> o;
    for (uint32_t b : h.download<uint32_t>(out, 5)) o.push_back(as_float(b));
    return o;
  };
  // Point, clamp: floor of the coordinate, clamped into the texture.
  auto p = run(t);
  EXPECT_EQ(p, (std::vector<float>{10, 130, 0, 110, 10}));
  // Linear, clamp: x - 0.5 and y - 0.5, weights in 1/256 steps. (1.0, 1.0): halfway between
  // columns 0/1 and rows 0/1: (0 + 10 + 100 + 110) / 4 = 55. (1.25, 0.5): 0.75*0 + 0.25*10... at
  // x_B = 0.75: 0.25 * 0 + 0.75 * 10 = 7.5.
  t.filter_linear = true;
  auto l = run(t);
  EXPECT_FLOAT_EQ(l[0], 10);
  EXPECT_FLOAT_EQ(l[2], 0);
  EXPECT_FLOAT_EQ(l[3], 55);
  EXPECT_FLOAT_EQ(l[4], 7.5f);
  // (3.9, 1.2): x_B = 3.4 -> column 3 and (clamped) 3: 30 / 130 rows at y_B = 0.7 (179/256).
  EXPECT_FLOAT_EQ(l[1], 30 + (130 - 30) * (179.0f / 256));
  // Point, border: outside reads the border colour.
  t.filter_linear = false;
  t.address[0] = t.address[1] = func::AddressMode::Border;
  t.border[0] = -7;
  auto b = run(t);
  EXPECT_EQ(b[2], -7);
  EXPECT_EQ(b[0], 10);
}

// suld/sust: byte x coordinates, .trap faults outside, .zero drops the store, .clamp clamps.
TEST(Tex, SurfaceLoadStoreBoundaries) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 surf, .param .u32 x, .param .u32 y)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [surf];
  ld.param.u32 %r1, [x];
  ld.param.u32 %r2, [y];
  suld.b.2d.b32.clamp {%r3}, [%rd1, {%r1, %r2}];
  add.s32 %r4, %r3, 1;
  sust.b.2d.b32.zero [%rd1, {%r1, %r2}], {%r4};
  mov.u32 %r5, 0;
  sust.b.2d.b32.trap [%rd1, {%r5, %r5}], {%r3};
  exit;
}
.visible .entry bad(.param .u64 surf)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [surf];
  mov.u32 %r1, 16;
  mov.u32 %r2, 0;
  sust.b.2d.b32.trap [%rd1, {%r1, %r2}], {%r2};
  exit;
}
)"));
  const uint32_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};  // 4 x 2 elements of 4 bytes
  uint64_t base = h.alloc(sizeof data);
  h.mem.host_write(base, data, sizeof data);
  func::TextureDesc t;
  t.base = base;
  t.pitch = 16;
  t.width = 4;
  t.height = 2;
  t.slice_pitch = 32;
  t.surface = true;
  uint64_t s = h.eng.textures().create(t);
  // Inside: element (2, 1) = 7 becomes 8, and element (0, 0) gets 7.
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(s).add(uint32_t(8)).add(uint32_t(1)));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(base, 8), (std::vector<uint32_t>{7, 2, 3, 4, 5, 6, 8, 8}));
  // Outside (x = 40 bytes, y = 5): the load clamps to (3, 1) = 8, the .zero store is dropped.
  r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(s).add(uint32_t(40)).add(uint32_t(5)));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(base, 8), (std::vector<uint32_t>{8, 2, 3, 4, 5, 6, 8, 8}));
  // .trap outside the surface faults.
  r = h.run("bad", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(s));
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalAddress);
  // A handle that names no surface faults too.
  r = h.run("bad", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(uint64_t(12345)));
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalAddress);
}

// Cubemap face selection and face coordinates (the Programming Guide's table), worked by hand;
// ties as our H100 resolves them (z over y over x).
TEST(Tex, CubeFaceSelection) {
  struct Case {
    float x, y, z;
    unsigned face;
    float s, t;
  };
  const Case cases[] = {
      {1, 0, 0, 0, 0.5f, 0.5f},           // +x: s = -z/m, t = -y/m
      {-2, 0.5f, 1, 1, 0.75f, 0.375f},    // -x: s = z/m = 0.5, t = -y/m = -0.25
      {0.5f, 4, -2, 2, 0.5625f, 0.25f},   // +y: s = x/m = 0.125, t = z/m = -0.5
      {0.5f, -4, 2, 3, 0.5625f, 0.25f},   // -y: s = x/m, t = -z/m = -0.5
      {-1, 1, 2, 4, 0.25f, 0.25f},        // +z: s = x/m = -0.5, t = -y/m = -0.5
      {0.25f, -0.5f, -1, 5, 0.375f, 0.75f},  // -z: s = -x/m = -0.25, t = -y/m = 0.5
      {1, 1, 0, 2, 1, 0.5f},              // |x| = |y|: +y
      {-1, 0, -1, 5, 1, 0.5f},            // |x| = |z|: -z
      {0, -1, 1, 4, 0.5f, 1},             // |y| = |z|: +z
      {1, 1, 1, 4, 1, 0},                 // all equal: +z
      {0, 0, 0, 4, 0.5f, 0.5f},           // no direction: the centre of +z
  };
  for (const Case& c : cases) {
    const func::CubeCoord r = func::cube_coord(c.x, c.y, c.z);
    EXPECT_EQ(r.face, c.face) << c.x << "," << c.y << "," << c.z;
    EXPECT_FLOAT_EQ(r.s, c.s) << c.x << "," << c.y << "," << c.z;
    EXPECT_FLOAT_EQ(r.t, c.t) << c.x << "," << c.y << "," << c.z;
  }
}

// Layer indices are unsigned and clamp to the last layer; tld4's texel order.
TEST(Tex, LayerClampAndGatherOrder) {
  EXPECT_EQ(func::clamp_layer(0, 3), 0u);
  EXPECT_EQ(func::clamp_layer(2, 3), 2u);
  EXPECT_EQ(func::clamp_layer(3, 3), 2u);
  EXPECT_EQ(func::clamp_layer(uint32_t(-1), 3), 2u);
  EXPECT_EQ(func::clamp_layer(0x80000000u, 1), 0u);
  const unsigned want[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};  // lower left, lower right, upper right, upper left
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_EQ(func::tld4_corner(k).dx, want[k][0]);
    EXPECT_EQ(func::tld4_corner(k).dy, want[k][1]);
  }
}

// tex.a2d, tex.cube, tld4.2d/.a2d and suld/sust.a2d through the engine on a 4x3 float array of
// 2 layers (layer l, texel (x, y) = l*100 + y*10 + x) and a 2x2 cubemap (face f: 1000 + f*100 +
// y*10 + x).
TEST(Tex, LayeredCubeAndGatherInstructions) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 tex, .param .u64 cube, .param .u64 out, .param .u32 layer)
{
  .reg .f32 %f<24>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [cube];
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r1, [layer];
  mov.f32 %f1, 0f3FC00000;  // 1.5
  mov.f32 %f2, 0f40200000;  // 2.5
  tex.a2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%r1, %f1, %f2, %f2}];
  st.global.f32 [%rd3], %f3;
  // tex.cube toward -x, a little up and toward +z.
  mov.f32 %f13, 0fC0000000;  // -2
  mov.f32 %f14, 0f3F000000;  // 0.5
  mov.f32 %f15, 0f3F800000;  // 1
  tex.cube.v4.f32.f32 {%f16, %f17, %f18, %f19}, [%rd2, {%f13, %f14, %f15, %f15}];
  st.global.f32 [%rd3+4], %f16;
  // tld4 at (2.0, 1.5): x - 0.5 = 1.5, y - 0.5 = 1.0: the footprint of columns 1..2, rows 1..2.
  mov.f32 %f7, 0f40000000;
  mov.f32 %f8, 0f3FC00000;
  tld4.r.2d.v4.f32.f32 {%f9, %f10, %f11, %f12}, [%rd1, {%f7, %f8}];
  st.global.v4.f32 [%rd3+16], {%f9, %f10, %f11, %f12};
  tld4.r.a2d.v4.f32.f32 {%f9, %f10, %f11, %f12}, [%rd1, {%r1, %f7, %f8, %f8}];
  st.global.v4.f32 [%rd3+32], {%f9, %f10, %f11, %f12};
  exit;
}
.visible .entry s(.param .u64 surf, .param .u64 out, .param .u32 layer)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [surf];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [layer];
  mov.u32 %r2, 4;
  mov.u32 %r3, 2;
  suld.b.a2d.b32.zero {%r4}, [%rd1, {%r1, %r2, %r3, %r3}];
  st.global.b32 [%rd2], %r4;
  suld.b.a2d.b32.clamp {%r4}, [%rd1, {%r1, %r2, %r3, %r3}];
  st.global.b32 [%rd2+4], %r4;
  mov.u32 %r5, 0x42C60000;  // 99.0
  sust.b.a2d.b32.zero [%rd1, {%r1, %r2, %r3, %r3}], {%r5};
  exit;
}
.visible .entry trap(.param .u64 surf)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [surf];
  mov.u32 %r1, 2;
  mov.u32 %r2, 0;
  sust.b.a1d.b32.trap [%rd1, {%r1, %r2}], {%r2};
  exit;
}
)"));
  std::vector<float> img(2 * 3 * 4);
  for (int l = 0; l < 2; ++l)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) img[(l * 3 + y) * 4 + x] = float(l * 100 + y * 10 + x);
  uint64_t base = h.alloc(img.size() * 4);
  h.mem.host_write(base, img.data(), img.size() * 4);
  func::TextureDesc t;
  t.base = base;
  t.pitch = 16;
  t.width = 4;
  t.height = 3;
  t.slice_pitch = t.layer_pitch = 48;
  t.layers = 2;
  std::vector<float> faces(6 * 4);
  for (int f = 0; f < 6; ++f)
    for (int i = 0; i < 4; ++i) faces[f * 4 + i] = float(1000 + f * 100 + (i / 2) * 10 + i % 2);
  uint64_t cbase = h.alloc(faces.size() * 4);
  h.mem.host_write(cbase, faces.data(), faces.size() * 4);
  func::TextureDesc c;
  c.base = cbase;
  c.pitch = 8;
  c.width = c.height = 2;
  c.slice_pitch = c.layer_pitch = 16;
  c.layers = 6;
  c.cubemap = true;
  const uint64_t ht = h.eng.textures().create(t), hc = h.eng.textures().create(c);
  func::TextureDesc sd = t;
  sd.surface = true;
  const uint64_t hs = h.eng.textures().create(sd);
  uint64_t out = h.alloc(48);
  auto tex = [&](uint32_t layer) {
    auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(ht).add(hc).add(out).add(layer));
    EXPECT_TRUE(r.ok()) << r.report();
    std::vector<float> o(12);
    h.mem.host_read(out, o.data(), 48);
    return o;
  };
  auto o = tex(1);
  EXPECT_EQ(o[0], 121);  // layer 1, texel (1, 2)
  // Face 1 (-x): s = z/m = 0.5 -> 0.75, t = -y/m = -0.25 -> 0.375; on 2 texels: (1, 0).
  EXPECT_EQ(o[1], 1101);
  // tld4 (layer 0): (1, 2), (2, 2), (2, 1), (1, 1); tld4.a2d: the same in layer 1.
  EXPECT_EQ(std::vector<float>(o.begin() + 4, o.begin() + 8), (std::vector<float>{21, 22, 12, 11}));
  EXPECT_EQ(std::vector<float>(o.begin() + 8, o.end()), (std::vector<float>{121, 122, 112, 111}));
  // A layer past the end or negative reads the last layer.
  EXPECT_EQ(tex(7)[0], 121);
  EXPECT_EQ(tex(uint32_t(-1))[8], 121);
  EXPECT_EQ(tex(0)[0], 21);
  // Surfaces: layer 5 of 2 reads 0 with .zero (the store is dropped), layer 1 with .clamp; x is
  // 4 bytes (column 1), y row 2.
  auto surf = [&](uint32_t layer) {
    auto r = h.run("s", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(hs).add(out).add(layer));
    EXPECT_TRUE(r.ok()) << r.report();
    std::vector<float> o2(2);
    h.mem.host_read(out, o2.data(), 8);
    return o2;
  };
  EXPECT_EQ(surf(5), (std::vector<float>{0, 121}));
  std::vector<float> now(img.size());
  h.mem.host_read(base, now.data(), now.size() * 4);
  EXPECT_EQ(now, img);
  EXPECT_EQ(surf(0), (std::vector<float>{21, 21}));
  h.mem.host_read(base, now.data(), now.size() * 4);
  EXPECT_EQ(now[2 * 4 + 1], 99);  // the store of layer 0 landed
  // .trap outside the layers faults.
  auto r = h.run("trap", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(hs));
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalAddress);
}

// Level-of-detail arithmetic (texture.hpp) against hand-computed values: 8.8 fixed point, the
// nearest level for point mipmap filtering (half-way goes up), the truncated 8-bit blend weight,
// bias then clamps, and the H100's log2 of gradient lengths.
TEST(Tex, MipLevelSelection) {
  func::TextureDesc t;
  t.mip_max = 1000;
  EXPECT_EQ(func::sampler_lod256(0.5f, t), 128);
  EXPECT_EQ(func::sampler_lod256(1.5f / 256, t), 1);       // truncated, not rounded
  EXPECT_EQ(func::sampler_lod256(0.49f, t), 125);          // 125.44
  EXPECT_EQ(func::sampler_lod256(NAN, t), 0);
  t.mip_bias = 0.5f, t.mip_min = 1.25f, t.mip_max = 3.5f;
  EXPECT_EQ(func::sampler_lod256(-1, t), 320);             // clamped up to 1.25
  EXPECT_EQ(func::sampler_lod256(2, t), 640);              // 2.5
  EXPECT_EQ(func::sampler_lod256(10, t), 896);             // clamped down to 3.5
  t.mip_bias = 0, t.mip_min = 2, t.mip_max = 1;            // inverted: the min wins
  EXPECT_EQ(func::sampler_lod256(0, t), 512);
  EXPECT_EQ(func::sampler_lod256(5, t), 512);
  // Point: nearest level, half-way up; never past the last level or below 0.
  auto p = func::pick_levels(127, 7, false);
  EXPECT_EQ(p.l0, 0u);
  p = func::pick_levels(128, 7, false);
  EXPECT_EQ(p.l0, 1u);
  EXPECT_EQ(p.w, 0u);
  p = func::pick_levels(6 * 256 + 200, 7, false);
  EXPECT_EQ(p.l0, 6u);
  p = func::pick_levels(-500, 7, false);
  EXPECT_EQ(p.l0, 0u);
  // Linear: the level below and the weight of the one above (2.3 -> 2, 3, 76/256).
  p = func::pick_levels(2 * 256 + 76, 7, true);
  EXPECT_EQ(p.l0, 2u);
  EXPECT_EQ(p.l1, 3u);
  EXPECT_EQ(p.w, 76u);
  p = func::pick_levels(9 * 256, 7, true);  // beyond the last level: the last alone
  EXPECT_EQ(p.l0, 6u);
  EXPECT_EQ(p.w, 0u);
  // log2 of a length in 1/256: exponent plus the measured fraction of the top 8 mantissa bits.
  EXPECT_EQ(func::lod_of_length(1), 0);
  EXPECT_EQ(func::lod_of_length(8), 3 * 256);
  EXPECT_EQ(func::lod_of_length(0.25f), -2 * 256);
  EXPECT_EQ(func::lod_of_length(1.5f), 150);         // 256 log2 1.5 = 149.75
  EXPECT_EQ(func::lod_of_length(6.0f), 512 + 150);
  EXPECT_EQ(func::lod_of_length(1.00390625f), 2);    // the H100's answer: 256 log2 = 1.44
  EXPECT_EQ(func::lod_of_length(std::nextafter(1.00390625f, 0.0f)), 0);  // mantissa truncated to 8 bits
  EXPECT_LT(func::lod_of_length(0), -100 * 256);
}

// tex.level and tex.grad on a 3-level mipmapped 4x4 float texture whose level l holds 10 l + x:
// point and linear mipmap filtering, gradient lengths in texels of level 0.
TEST(Tex, MipLevelAndGradFetch) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 tex, .param .u64 in, .param .u64 out)
{
  .reg .f32 %f<16>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [in];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
  tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], %f3;
  tex.grad.2d.v4.f32.f32 {%f9, %f10, %f11, %f12}, [%rd1, {%f1, %f2}], {%f4, %f4}, {%f4, %f4};
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v2.f32 [%rd7], {%f5, %f9};
  exit;
}
)"));
  func::TextureDesc t;
  uint64_t base = h.alloc(3 * 64);
  for (unsigned l = 0; l < 3; ++l) {
    func::MipLevel m;
    m.width = m.height = 4u >> l;
    m.pitch = 16;
    m.slice_pitch = 16 * m.height;
    m.base = base + 64 * l;
    for (unsigned y = 0; y < m.height; ++y)
      for (unsigned x = 0; x < m.width; ++x) {
        const float v = 10.0f * l + x;
        h.mem.host_write(m.base + y * 16 + x * 4, &v, 4);
      }
    t.mips.push_back(m);
  }
  t.base = base, t.pitch = 16, t.width = t.height = 4, t.slice_pitch = 64;
  t.normalized_coords = true;
  t.mip_max = 100;
  // (u, v), lod, gradient component (both gradients (g, g): length g sqrt2 texels... g * 4 * sqrt2).
  const float in[] = {0.6f, 0.1f, 0.5f,   0.25f / 1.41421356f,   // lod 0.5; |grad| 1 texel: lod 0
                      0.6f, 0.1f, 1.25f,  0.5f / 1.41421356f,    // lod 1.25; 2 texels: lod 1
                      0.6f, 0.1f, 7.0f,   4.0f / 1.41421356f,    // past the last level; 16 texels
                      0.6f, 0.1f, -3.0f,  0.0f};                 // below 0; zero gradient
  uint64_t din = h.alloc(sizeof in), out = h.alloc(4 * 8);
  h.mem.host_write(din, in, sizeof in);
  auto run = [&](const func::TextureDesc& d) {
    uint64_t handle = h.eng.textures().create(d);
    auto r = h.run("k", {1, 1, 1}, {4, 1, 1}, Harness::Params().add(handle).add(din).add(out));
    EXPECT_TRUE(r.ok()) << r.report();
    std::vector<float> o;
    for (uint32_t b : h.download<uint32_t>(out, 8)) o.push_back(as_float(b));
    return o;
  };
  // u = 0.6: texel 2 of level 0 (value 2), 1 of level 1 (11), 0 of level 2 (20).
  auto p = run(t);  // point mipmap filter: lod 0.5 -> level 1, 1.25 -> 1, 7 -> 2, -3 -> 0
  EXPECT_EQ(p, (std::vector<float>{11, 2, 11, 11, 20, 20, 2, 2}));
  t.mip_linear = true;  // 0.5: half of 2 and 11; 1.25: 11 + (20 - 11) / 4
  auto l = run(t);
  EXPECT_EQ(l, (std::vector<float>{6.5f, 2, 13.25f, 11, 20, 20, 2, 2}));
  // A texture without levels reads its one level whatever the level of detail.
  func::TextureDesc one = t;
  one.mips.clear();
  EXPECT_EQ(run(one), (std::vector<float>{2, 2, 2, 2, 2, 2, 2, 2}));
}

// txq and suq: level 0's answers from TextureDesc::query, the .level forms from the levels (0 past
// the last), and the queries the H100's driver refuses are decode errors.
TEST(Tex, TextureQueries) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 tex, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  txq.width.b32 %r1, [%rd1];
  txq.height.b32 %r2, [%rd1];
  txq.depth.b32 %r3, [%rd1];
  mov.u32 %r7, 1;
  txq.level.width.b32 %r4, [%rd1], %r7;
  mov.u32 %r7, 5;
  txq.level.height.b32 %r5, [%rd1], %r7;
  mov.u32 %r7, -1;
  txq.level.width.b32 %r6, [%rd1], %r7;
  st.global.v4.b32 [%rd2], {%r1, %r2, %r3, %r4};
  st.global.v2.b32 [%rd2+16], {%r5, %r6};
  exit;
}
)"));
  func::TextureDesc t;
  t.query[0] = 40, t.query[1] = 24, t.query[2] = 0;
  for (unsigned l = 0; l < 6; ++l) {
    func::MipLevel m;
    m.width = std::max(1u, 40u >> l), m.height = std::max(1u, 24u >> l);
    t.mips.push_back(m);
  }
  uint64_t out = h.alloc(24);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(h.eng.textures().create(t)).add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(out, 6), (std::vector<uint32_t>{40, 24, 0, 20, 1, 0}));
  Harness bad;
  auto errs = bad.load_errors(kHead + R"(
.visible .entry k(.param .u64 tex)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [tex];
  txq.num_mipmap_levels.b32 %r1, [%rd1];
  exit;
}
)");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].find("only .width, .height and .depth"), std::string::npos) << errs[0];
}
