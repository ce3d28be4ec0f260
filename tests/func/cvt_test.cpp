// cvt: every rounding mode, saturation, NaN/inf/subnormal handling and the packed forms, compared
// bit-exactly with CPU references written independently of src/func/softfloat.hpp (table search
// over the destination's values with exact midpoint comparisons, host conversions in the default
// round-to-nearest mode, and explicit formulas).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <random>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

// One thread per element: %rd4 points at the element's input (stride in bytes), %rd6 at its
// output. The body loads, converts and stores.
std::string kernel(unsigned in_stride, unsigned out_stride, const std::string& body) {
  return kHead + fmt::format(R"(
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
  .reg .b16 %h<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<8>;
  .reg .u8 %c<4>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd3, %r4, {};
  add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r4, {};
  add.s64 %rd6, %rd2, %rd5;
{}
  ret;
}}
)",
                             in_stride, out_stride, body);
}

// Runs `body` over `in` (elements of type In) and returns the outputs (type Out).
template <typename Out, typename In>
std::vector<Out> run(const std::string& body, std::vector<In> in, unsigned in_stride = sizeof(In)) {
  Harness h;
  size_t n = in.size() * sizeof(In) / in_stride;
  size_t blocks = (n + 127) / 128, total = blocks * 128;
  in.resize(total * in_stride / sizeof(In));
  EXPECT_TRUE(h.load(kernel(in_stride, sizeof(Out), body)));
  if (!h.mod) return {};
  uint64_t a = h.upload(in), o = h.alloc(total * sizeof(Out));
  auto r = h.run("k", {uint32_t(blocks), 1, 1}, {128, 1, 1}, Harness::Params().add(a).add(o));
  EXPECT_TRUE(r.ok()) << r.report();
  auto out = h.download<Out>(o, total);
  out.resize(n);
  return out;
}

// ---------------------------------------------------------------- independent references

double f16_value(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
double bf16_value(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
float f32_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

enum RM { RN, RZ, RM_, RP };

// Rounds an exact double to a 16-bit format whose positive finite values are the bit patterns
// 0..maxfin (monotone), by binary search and an exact midpoint comparison.
uint16_t ref_round16(double v, RM m, double (*val)(uint16_t), uint16_t maxfin, uint16_t inf) {
  if (std::isnan(v)) return 0x7fff;
  bool neg = std::signbit(v);
  double a = std::fabs(v);
  uint16_t s = neg ? 0x8000 : 0;
  double maxv = val(maxfin);
  bool up_dir = (m == RP && !neg) || (m == RM_ && neg);
  if (std::isinf(a)) return s | inf;  // exact in every mode
  if (a > maxv) {
    double next = 2 * maxv - val(maxfin - 1);  // the value one ulp above max
    if (m == RN) return s | ((a >= (maxv + next) / 2) ? inf : maxfin);
    return s | (up_dir ? inf : maxfin);
  }
  uint16_t lo = 0, hi = maxfin;  // largest pattern with value <= a
  while (lo < hi) {
    uint16_t mid = uint16_t((lo + hi + 1) / 2);
    if (val(mid) <= a) lo = mid; else hi = uint16_t(mid - 1);
  }
  if (val(lo) == a) return s | lo;
  uint16_t up = uint16_t(lo + 1);
  switch (m) {
    case RZ: return s | lo;
    case RP: case RM_: return s | (up_dir ? up : lo);
    default: {
      double midv = (val(lo) + val(up)) / 2;
      if (a < midv) return s | lo;
      if (a > midv) return s | up;
      return s | ((lo & 1) ? up : lo);
    }
  }
}
uint16_t ref_f16(double v, RM m) { return ref_round16(v, m, f16_value, 0x7bff, 0x7c00); }
uint16_t ref_bf16(double v, RM m) { return ref_round16(v, m, bf16_value, 0x7f7f, 0x7f80); }

const char* rname(RM m) { return m == RN ? "rn" : m == RZ ? "rz" : m == RM_ ? "rm" : "rp"; }

std::vector<uint32_t> special_f32() {
  std::vector<uint32_t> v = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
                             0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu,
                             0x3f800000u, 0xbf800000u, 0x3effffffu, 0x3f000000u, 0x3fc00000u, 0x40200000u,
                             0x4f000000u, 0xcf000000u, 0x4effffffu, 0x5f000000u, 0xdf000000u, 0x5f800000u,
                             0x477fe000u, 0x477ff000u, 0x477fefffu, 0x477ff001u, 0x38800000u, 0x33800000u,
                             0x33000000u, 0x33000001u, 0x32ffffffu, 0xb3000000u, 0x387fc000u, 0x387fe000u};
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) v.push_back(rng());
  for (int i = 0; i < 500; ++i) v.push_back((rng() & 0x807fffffu) | ((100 + rng() % 60) << 23));
  return v;
}

// ---------------------------------------------------------------- float -> float

TEST(Cvt, F16ToF32Exhaustive) {
  std::vector<uint16_t> in(65536);
  for (uint32_t i = 0; i < 65536; ++i) in[i] = uint16_t(i);
  auto out = run<uint32_t>("  ld.global.b16 %h1, [%rd4];\n  cvt.f32.f16 %f1, %h1;\n  st.global.f32 [%rd6], %f1;", in);
  ASSERT_EQ(out.size(), 65536u);
  for (uint32_t i = 0; i < 65536; ++i) {
    double v = f16_value(uint16_t(i));
    if (std::isnan(v)) {
      // payload kept, quietened: sign | 0x7f800000 | (mant << 13) | quiet bit
      uint32_t want = ((i & 0x8000u) << 16) | 0x7f800000u | ((i & 0x3ffu) << 13) | 0x400000u;
      EXPECT_EQ(out[i], want) << std::hex << i;
    } else {
      EXPECT_EQ(out[i], bits_of(float(v))) << std::hex << i;
    }
  }
}

TEST(Cvt, F32ToF16AllModesAtEveryBoundary) {
  // For every positive finite f16 pattern: the value itself, the midpoint to the next, and the
  // f32 neighbours of that midpoint, both signs.
  std::vector<uint32_t> in;
  for (uint32_t h = 0; h <= 0x7bff; h += (h < 0x0400 || h > 0x7800) ? 1 : 7) {
    double a = f16_value(uint16_t(h)), b = h == 0x7bff ? 65536.0 : f16_value(uint16_t(h + 1));
    uint32_t mid = bits_of(float((a + b) / 2));
    for (uint32_t x : {bits_of(float(a)), mid, mid - 1, mid + 1}) {
      in.push_back(x);
      in.push_back(x | 0x80000000u);
    }
  }
  for (uint32_t x : special_f32()) in.push_back(x);
  for (RM m : {RN, RZ, RM_, RP}) {
    auto out = run<uint16_t>(fmt::format("  ld.global.f32 %f1, [%rd4];\n  cvt.{}.f16.f32 %h1, %f1;\n  st.global.b16 [%rd6], %h1;", rname(m)), in);
    ASSERT_EQ(out.size(), in.size());
    int bad = 0;
    for (size_t i = 0; i < in.size() && bad < 10; ++i) {
      uint16_t want = ref_f16(f32_of(in[i]), m);
      if (out[i] != want) {
        ++bad;
        ADD_FAILURE() << rname(m) << " f32 0x" << std::hex << in[i] << " -> 0x" << out[i] << " want 0x" << want;
      }
    }
  }
}

TEST(Cvt, F32ToBF16AllModes) {
  std::vector<uint32_t> in = special_f32();
  for (uint32_t x : {0x3f808000u, 0x3f818000u, 0x3f808001u, 0x3f817fffu, 0x7f7f8000u, 0x7f7f7fffu, 0x00008000u, 0x00018000u})
    in.push_back(x), in.push_back(x | 0x80000000u);
  for (RM m : {RN, RZ, RM_, RP}) {
    auto out = run<uint16_t>(fmt::format("  ld.global.f32 %f1, [%rd4];\n  cvt.{}.bf16.f32 %h1, %f1;\n  st.global.b16 [%rd6], %h1;", rname(m)), in);
    ASSERT_EQ(out.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(out[i], ref_bf16(f32_of(in[i]), m)) << rname(m) << " 0x" << std::hex << in[i];
  }
}

TEST(Cvt, F64ToF32AllModesAndFtz) {
  std::vector<double> in = {0.0, -0.0, 1.0, 1.0 + std::ldexp(1, -24), 1.0 + std::ldexp(3, -24),
                            1.0 + std::ldexp(1, -24) + std::ldexp(1, -52), -1.0 - std::ldexp(1, -24),
                            std::ldexp(1, -149), std::ldexp(1, -150), std::ldexp(3, -151), std::ldexp(1, -126) * 0.75,
                            3.4028235677973366e38, 3.4028235677973366e38 * 1.0000001, 1e300, -1e300,
                            INFINITY, -INFINITY, NAN, 1e-300, -1e-300, 0.1, -0.1, 1.0 / 3};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 500; ++i) {
    uint64_t b = (rng() & 0x800fffffffffffffull) | (uint64_t(800 + rng() % 450) << 52);
    double d;
    std::memcpy(&d, &b, 8);
    in.push_back(d);
  }
  for (RM m : {RN, RZ, RM_, RP}) {
    auto out = run<uint32_t>(fmt::format("  ld.global.f64 %fd1, [%rd4];\n  cvt.{}.f32.f64 %f1, %fd1;\n  st.global.f32 [%rd6], %f1;", rname(m)), in);
    ASSERT_EQ(out.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      double v = in[i];
      uint32_t want;
      if (std::isnan(v)) want = 0x7fffffffu;
      else {
        float r = float(v);  // host default: round to nearest even
        if (m != RN && std::isfinite(v) && double(r) != v) {
          bool above = double(r) > v;
          if (m == RZ && std::fabs(double(r)) > std::fabs(v)) r = std::nextafter(r, 0.0f);
          if (m == RP && !above) r = std::nextafter(r, INFINITY);
          if (m == RM_ && above) r = std::nextafter(r, -INFINITY);
        }
        if (m == RZ && std::isinf(r) && std::isfinite(v)) r = std::copysign(FLT_MAX, r);
        if (m == RP && std::isinf(r) && r < 0 && std::isfinite(v)) r = -FLT_MAX;
        if (m == RM_ && std::isinf(r) && r > 0 && std::isfinite(v)) r = FLT_MAX;
        want = bits_of(r);
      }
      ASSERT_EQ(out[i], want) << rname(m) << " " << v;
    }
  }
  // .ftz flushes an f32 subnormal result to a signed zero
  auto out = run<uint32_t>("  ld.global.f64 %fd1, [%rd4];\n  cvt.rn.ftz.f32.f64 %f1, %fd1;\n  st.global.f32 [%rd6], %f1;",
                           std::vector<double>{std::ldexp(1, -140), -std::ldexp(1, -140), std::ldexp(1, -126)});
  EXPECT_EQ(out, (std::vector<uint32_t>{0u, 0x80000000u, 0x00800000u}));
}

TEST(Cvt, F32SatReluSatfinite) {
  std::vector<float> in = {-2.0f, -0.0f, 0.25f, 1.0f, 1.5f, NAN, INFINITY, -INFINITY, 70000.0f, -70000.0f, 65519.0f, 65520.0f};
  auto sat = run<uint32_t>("  ld.global.f32 %f1, [%rd4];\n  cvt.sat.f32.f32 %f2, %f1;\n  st.global.f32 [%rd6], %f2;", in);
  EXPECT_EQ(sat, (std::vector<uint32_t>{0, 0, 0x3e800000u, 0x3f800000u, 0x3f800000u, 0, 0x3f800000u, 0, 0x3f800000u, 0,
                                        0x3f800000u, 0x3f800000u}));
  auto relu = run<uint16_t>("  ld.global.f32 %f1, [%rd4];\n  cvt.rn.relu.f16.f32 %h1, %f1;\n  st.global.b16 [%rd6], %h1;", in);
  EXPECT_EQ(relu, (std::vector<uint16_t>{0, 0, 0x3400, 0x3c00, 0x3e00, 0x7fff, 0x7c00, 0, 0x7c00, 0, 0x7bff, 0x7c00}));
  auto sf = run<uint16_t>("  ld.global.f32 %f1, [%rd4];\n  cvt.rn.satfinite.f16.f32 %h1, %f1;\n  st.global.b16 [%rd6], %h1;", in);
  EXPECT_EQ(sf, (std::vector<uint16_t>{0xc000, 0x8000, 0x3400, 0x3c00, 0x3e00, 0x7fff, 0x7bff, 0xfbff, 0x7bff, 0xfbff, 0x7bff, 0x7bff}));
}

TEST(Cvt, RoundToIntegralSameType) {
  std::vector<float> in = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, 2.7f, -2.7f, 8388609.0f, 1e30f, -0.0f, INFINITY, 1e-40f};
  const char* modes[] = {"rni", "rzi", "rmi", "rpi"};
  for (int mi = 0; mi < 4; ++mi) {
    auto out = run<uint32_t>(fmt::format("  ld.global.f32 %f1, [%rd4];\n  cvt.{}.f32.f32 %f2, %f1;\n  st.global.f32 [%rd6], %f2;", modes[mi]), in);
    for (size_t i = 0; i < in.size(); ++i) {
      double v = in[i];
      double r = mi == 0 ? std::nearbyint(v) : mi == 1 ? std::trunc(v) : mi == 2 ? std::floor(v) : std::ceil(v);
      ASSERT_EQ(out[i], bits_of(float(r))) << modes[mi] << " " << v;
    }
  }
}

// ---------------------------------------------------------------- float <-> int

TEST(Cvt, FloatToIntSaturatesAndNaNIsZero) {
  std::vector<double> in = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999999, -2.7, 127.5, 128.0, -128.5, -129.0, 255.5, 256.0,
                            2147483647.4, 2147483647.5, 2147483648.0, -2147483648.6, -3e9, 4294967295.5, 5e9,
                            9.3e18, 1.9e19, -1e19, NAN, INFINITY, -INFINITY, -0.0, 1e-310};
  struct T { const char* ty; bool sgn; int bits; };
  const char* modes[] = {"rni", "rzi", "rmi", "rpi"};
  for (T t : {T{"s8", true, 8}, T{"u8", false, 8}, T{"s16", true, 16}, T{"s32", true, 32}, T{"u32", false, 32},
              T{"s64", true, 64}, T{"u64", false, 64}}) {
    for (int mi = 0; mi < 4; ++mi) {
      auto out = run<uint64_t>(fmt::format("  ld.global.f64 %fd1, [%rd4];\n  cvt.{}.{}.f64 %rd7, %fd1;\n  st.global.u64 [%rd6], %rd7;",
                                           modes[mi], t.ty), in);
      for (size_t i = 0; i < in.size(); ++i) {
        double v = in[i];
        long double r = mi == 0 ? std::nearbyint(v) : mi == 1 ? std::trunc(v) : mi == 2 ? std::floor(v) : std::ceil(v);
        long double lo = t.sgn ? -std::ldexp(1.0L, t.bits - 1) : 0, hi = t.sgn ? std::ldexp(1.0L, t.bits - 1) - 1 : std::ldexp(1.0L, t.bits) - 1;
        uint64_t want;
        if (std::isnan(v)) want = 0;
        else {
          r = std::clamp(r, lo, hi);
          want = t.sgn ? uint64_t(int64_t(r)) : uint64_t(r);  // signed results sign-extend into the 64-bit register
        }
        ASSERT_EQ(out[i], want) << modes[mi] << "." << t.ty << " " << v;
      }
    }
  }
}

TEST(Cvt, F16ToIntAndNarrowRegisterExtension) {
  // cvt.rni.s8.f16 into a 32-bit register: the s8 result is sign-extended to the register.
  std::vector<uint16_t> in = {0x3c00, 0xbc00, 0x5bf8 /*255*/, 0xd800 /*-128*/, 0xd808 /*-129*/, 0x7c00, 0xfc00, 0x7e00, 0x3800, 0x3e00};
  auto out = run<uint32_t>("  ld.global.b16 %h1, [%rd4];\n  cvt.rni.s8.f16 %r5, %h1;\n  st.global.u32 [%rd6], %r5;", in);
  EXPECT_EQ(out, (std::vector<uint32_t>{1, 0xffffffffu, 127, 0xffffff80u, 0xffffff80u, 127, 0xffffff80u, 0, 0, 2}));
}

TEST(Cvt, IntToFloatAllModes) {
  std::vector<uint64_t> in = {0, 1, 3, 16777217, 16777219, 33554435, 0x7fffffffffffffffull, 0x8000000000000000ull,
                              0xffffffffffffffffull, 0xfffffffffffffffeull, 0x0020000000000001ull, 0x0020000000000003ull,
                              0xffffff7fffffffffull, 0x8000008000000000ull, 0x8000008000000001ull, 0xffffffffff000000ull};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 300; ++i) in.push_back(rng() >> (rng() % 64));
  for (const char* ty : {"s64", "u64"}) {
    bool sgn = ty[0] == 's';
    for (RM m : {RN, RZ, RM_, RP}) {
      auto out = run<uint32_t>(fmt::format("  ld.global.u64 %rd7, [%rd4];\n  cvt.{}.f32.{} %f1, %rd7;\n  st.global.f32 [%rd6], %f1;", rname(m), ty), in);
      auto outd = run<uint64_t>(fmt::format("  ld.global.u64 %rd7, [%rd4];\n  cvt.{}.f64.{} %fd1, %rd7;\n  st.global.f64 [%rd6], %fd1;", rname(m), ty), in);
      for (size_t i = 0; i < in.size(); ++i) {
        long double x = sgn ? (long double)int64_t(in[i]) : (long double)in[i];  // exact: 64-bit mantissa
        auto adjust = [&](auto r) {
          using F = decltype(r);
          if ((long double)r != x) {
            bool above = (long double)r > x;
            if (m == RZ && std::fabs((long double)r) > std::fabs(x)) r = std::nextafter(r, F(0));
            if (m == RP && !above) r = std::nextafter(r, F(INFINITY));
            if (m == RM_ && above) r = std::nextafter(r, F(-INFINITY));
          }
          return r;
        };
        float rf = adjust(float(x));
        double rd = adjust(double(x));
        uint64_t db;
        std::memcpy(&db, &rd, 8);
        ASSERT_EQ(out[i], bits_of(rf)) << rname(m) << "." << ty << " " << std::hex << in[i];
        ASSERT_EQ(outd[i], db) << rname(m) << "." << ty << " f64 " << std::hex << in[i];
      }
    }
  }
  // u16 -> f16 (overflow to inf under .rn), s32 -> bf16
  auto h = run<uint16_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.rn.f16.u32 %h1, %r5;\n  st.global.b16 [%rd6], %h1;",
                         std::vector<uint32_t>{0, 1, 2049, 2051, 65504, 65519, 65520, 0xffffffffu});
  EXPECT_EQ(h, (std::vector<uint16_t>{0, 0x3c00, 0x6800, 0x6802, 0x7bff, 0x7bff, 0x7c00, 0x7c00}));
  auto z = run<uint16_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.rz.f16.u32 %h1, %r5;\n  st.global.b16 [%rd6], %h1;",
                         std::vector<uint32_t>{2051, 65520, 0xffffffffu});
  EXPECT_EQ(z, (std::vector<uint16_t>{0x6801, 0x7bff, 0x7bff}));
}

// ---------------------------------------------------------------- int -> int

TEST(Cvt, IntToIntExtendTruncateSaturate) {
  std::vector<uint32_t> in = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x12345678, 0x80000000u, 0xffffffffu};
  auto s64 = run<uint64_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.s64.s32 %rd7, %r5;\n  st.global.u64 [%rd6], %rd7;", in);
  auto u64 = run<uint64_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.u64.u32 %rd7, %r5;\n  st.global.u64 [%rd6], %rd7;", in);
  auto s8 = run<uint32_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.s32.s8 %r6, %r5;\n  st.global.u32 [%rd6], %r6;", in);
  auto u8 = run<uint32_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.u32.u8 %r6, %r5;\n  st.global.u32 [%rd6], %r6;", in);
  auto sat_u8 = run<uint32_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.sat.u8.s32 %r6, %r5;\n  st.global.u32 [%rd6], %r6;", in);
  auto sat_s16 = run<uint32_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.sat.s16.u32 %r6, %r5;\n  st.global.u32 [%rd6], %r6;", in);
  auto sat_u32 = run<uint32_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.sat.u32.s32 %r6, %r5;\n  st.global.u32 [%rd6], %r6;", in);
  auto tr_s16 = run<uint32_t>("  ld.global.u32 %r5, [%rd4];\n  cvt.s16.s32 %r6, %r5;\n  st.global.u32 [%rd6], %r6;", in);
  for (size_t i = 0; i < in.size(); ++i) {
    uint32_t x = in[i];
    EXPECT_EQ(s64[i], uint64_t(int64_t(int32_t(x))));
    EXPECT_EQ(u64[i], uint64_t(x));
    EXPECT_EQ(s8[i], uint32_t(int32_t(int8_t(x & 0xff))));
    EXPECT_EQ(u8[i], x & 0xff);
    EXPECT_EQ(sat_u8[i], uint32_t(std::clamp<int64_t>(int32_t(x), 0, 255)));
    EXPECT_EQ(sat_s16[i], uint32_t(int32_t(std::clamp<int64_t>(x, -32768, 32767))));
    EXPECT_EQ(sat_u32[i], uint32_t(std::max<int32_t>(int32_t(x), 0)));
    EXPECT_EQ(tr_s16[i], uint32_t(int32_t(int16_t(x & 0xffff))));  // truncate, then sign-extend into the register
  }
}

// ---------------------------------------------------------------- packed and small formats

TEST(Cvt, F16x2FromF32PutsFirstSourceInUpperHalf) {
  std::vector<float> in = {1.0f, 2.0f, -0.5f, 65520.0f, 1.0f + 1.0f / 4096, NAN};
  auto out = run<uint32_t>("  ld.global.f32 %f1, [%rd4];\n  ld.global.f32 %f2, [%rd4+4];\n  cvt.rn.f16x2.f32 %r5, %f1, %f2;\n  st.global.b32 [%rd6], %r5;", in, 8);
  EXPECT_EQ(out, (std::vector<uint32_t>{0x3c004000u, 0xb8007c00u, 0x3c007fffu}));
  auto rz = run<uint32_t>("  ld.global.f32 %f1, [%rd4];\n  ld.global.f32 %f2, [%rd4+4];\n  cvt.rz.satfinite.bf16x2.f32 %r5, %f1, %f2;\n  st.global.b32 [%rd6], %r5;",
                          std::vector<float>{1.0078125f * 1.5f, -INFINITY}, 8);
  EXPECT_EQ(rz, (std::vector<uint32_t>{0x3fc1ff7fu}));
}

// Independent e4m3/e5m2 decoders.
double e4m3_value(uint8_t b) {
  int e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return NAN;
  double v = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
  return (b & 0x80) ? -v : v;
}
double e5m2_value(uint8_t b) {
  int e = (b >> 2) & 31, m = b & 3;
  if (e == 31) return m ? NAN : ((b & 0x80) ? -INFINITY : INFINITY);
  double v = e == 0 ? std::ldexp(m, -16) : std::ldexp(4 + m, e - 17);
  return (b & 0x80) ? -v : v;
}

TEST(Cvt, F8x2ToF16x2Exhaustive) {
  std::vector<uint16_t> in(65536);
  for (uint32_t i = 0; i < 65536; ++i) in[i] = uint16_t(i);
  for (int e4 = 0; e4 < 2; ++e4) {
    auto out = run<uint32_t>(fmt::format("  ld.global.b16 %h1, [%rd4];\n  cvt.rn.f16x2.{} %r5, %h1;\n  st.global.b32 [%rd6], %r5;",
                                         e4 ? "e4m3x2" : "e5m2x2"), in);
    ASSERT_EQ(out.size(), in.size());
    for (uint32_t i = 0; i < 65536; i += 1) {
      for (int half = 0; half < 2; ++half) {
        uint8_t b = uint8_t(i >> (8 * half));
        double v = e4 ? e4m3_value(b) : e5m2_value(b);
        uint16_t got = uint16_t(out[i] >> (16 * half));
        if (std::isnan(v)) {
          ASSERT_TRUE((got & 0x7c00) == 0x7c00 && (got & 0x3ff)) << std::hex << i;
        } else {
          ASSERT_EQ(got, ref_f16(v, RN)) << std::hex << i << " half " << half;
        }
      }
    }
  }
}

// Reference for f32 -> e4m3/e5m2 with .rn.satfinite: nearest (ties to even pattern) among the
// finite values, NaN -> 0x7f.
uint8_t ref_f8(double v, bool e4) {
  if (std::isnan(v)) return 0x7f;
  uint8_t maxfin = e4 ? 0x7e : 0x7b;
  auto val = e4 ? e4m3_value : e5m2_value;
  uint8_t s = std::signbit(v) ? 0x80 : 0;
  double a = std::fabs(v);
  if (a >= val(maxfin)) return s | maxfin;
  uint8_t lo = 0;
  while (val(uint8_t(lo + 1)) <= a) ++lo;
  if (val(lo) == a) return s | lo;
  double mid = (val(lo) + val(uint8_t(lo + 1))) / 2;
  if (a < mid) return s | lo;
  if (a > mid) return s | uint8_t(lo + 1);
  return s | ((lo & 1) ? uint8_t(lo + 1) : lo);
}

TEST(Cvt, F32ToF8x2SatfiniteAllBoundaries) {
  for (int e4 = 0; e4 < 2; ++e4) {
    auto val = e4 ? e4m3_value : e5m2_value;
    std::vector<float> in;
    uint8_t maxfin = e4 ? 0x7e : 0x7b;
    for (int b = 0; b <= maxfin; ++b) {
      double x = val(uint8_t(b)), y = b == maxfin ? 2 * x : val(uint8_t(b + 1));
      float mid = float((x + y) / 2);
      for (float f : {float(x), mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
        in.push_back(f);
        in.push_back(-f);
      }
    }
    for (float f : {NAN, INFINITY, -INFINITY, 1e30f, -1e-30f, 0.0f})
      in.push_back(f);
    if (in.size() % 2) in.push_back(0.0f);
    auto out = run<uint16_t>(fmt::format("  ld.global.f32 %f1, [%rd4];\n  ld.global.f32 %f2, [%rd4+4];\n"
                                         "  cvt.rn.satfinite.{} %h1, %f1, %f2;\n  st.global.b16 [%rd6], %h1;",
                                         e4 ? "e4m3x2.f32" : "e5m2x2.f32"), in, 8);
    ASSERT_EQ(out.size(), in.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_EQ(out[i] >> 8, ref_f8(in[2 * i], e4)) << (e4 ? "e4m3 " : "e5m2 ") << in[2 * i];
      ASSERT_EQ(out[i] & 0xff, ref_f8(in[2 * i + 1], e4)) << (e4 ? "e4m3 " : "e5m2 ") << in[2 * i + 1];
    }
  }
  // from f16x2: upper half to the upper byte; .relu
  auto r = run<uint16_t>("  ld.global.b32 %r5, [%rd4];\n  cvt.rn.satfinite.relu.e4m3x2.f16x2 %h1, %r5;\n  st.global.b16 [%rd6], %h1;",
                         std::vector<uint32_t>{0x3c00bc00u, 0x7c005c00u});
  EXPECT_EQ(r, (std::vector<uint16_t>{0x3800, 0x7e78}));
}

TEST(Cvt, Tf32RoundsAwayFromZeroOnTies) {
  std::vector<uint32_t> in = {0x3f801000u, 0x3f803000u, 0x3f800fffu, 0xbf801000u, 0x7f7ff000u, 0x7fc00000u, 0x00001000u, 0x3f802001u};
  auto rna = run<uint32_t>("  ld.global.b32 %r5, [%rd4];\n  cvt.rna.tf32.f32 %r6, %r5;\n  st.global.b32 [%rd6], %r6;", in);
  EXPECT_EQ(rna, (std::vector<uint32_t>{0x3f802000u, 0x3f804000u, 0x3f800000u, 0xbf802000u, 0x7f800000u, 0x7fffffffu, 0x00002000u, 0x3f802000u}));
  auto rn = run<uint32_t>("  ld.global.b32 %r5, [%rd4];\n  cvt.rn.satfinite.tf32.f32 %r6, %r5;\n  st.global.b32 [%rd6], %r6;", in);
  EXPECT_EQ(rn, (std::vector<uint32_t>{0x3f800000u, 0x3f804000u, 0x3f800000u, 0xbf800000u, 0x7f7fe000u, 0x7fffffffu, 0x00000000u, 0x3f802000u}));
}

TEST(Cvt, PackSat) {
  std::vector<int32_t> in = {70000, -5, 100, -200, 40000, 1};
  auto u16 = run<uint32_t>("  ld.global.b32 %r5, [%rd4];\n  ld.global.b32 %r6, [%rd4+4];\n  cvt.pack.sat.u16.s32 %r7, %r5, %r6;\n  st.global.b32 [%rd6], %r7;", in, 8);
  EXPECT_EQ(u16, (std::vector<uint32_t>{0xffff0000u, 0x00640000u, 0x9c400001u}));
  auto s8 = run<uint32_t>("  ld.global.b32 %r5, [%rd4];\n  ld.global.b32 %r6, [%rd4+4];\n  mov.b32 %r8, 0xabcd;\n  cvt.pack.sat.s8.s32.b32 %r7, %r5, %r6, %r8;\n  st.global.b32 [%rd6], %r7;", in, 8);
  EXPECT_EQ(s8, (std::vector<uint32_t>{0xabcd7ffbu, 0xabcd6480u, 0xabcd7f01u}));
}

TEST(Cvt, UnsupportedFormsAreLoadErrors) {
  Harness h;
  auto e = h.load_errors(kernel(4, 4, "  ld.global.f32 %f1, [%rd4];\n  cvt.rs.f16x2.f32 %r5, %f1, %f1, %r4;"));
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("cvt"), std::string::npos) << e[0];
  Harness h2;
  auto e2 = h2.load_errors(kernel(4, 4, "  ld.global.f32 %f1, [%rd4];\n  cvt.rni.f16.f32 %h1, %f1;"));
  ASSERT_FALSE(e2.empty());
}

}  // namespace
