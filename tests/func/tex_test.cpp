// tex / suld.b / sust.b on texture and surface objects (ops_tex.cpp) against hand-computed values
// from the CUDA Programming Guide's texture-fetching rules.
#include <gtest/gtest.h>

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
