// Half-precision arithmetic (.f16/.f16x2/.bf16/.bf16x2) compared bit-exactly with CPU references
// written independently of src/func/softfloat.hpp: exact results (double for sums and products of
// f16 values, 128-bit integers for f16 fma) rounded by a table search over the destination format
// with exact midpoint comparisons.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <random>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

std::string kernel(unsigned in_stride, unsigned out_stride, const std::string& body) {
  return kHead + fmt::format(R"(
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
  .reg .b16 %h<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<8>;
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

template <typename Out, typename In>
std::vector<Out> run(const std::string& body, std::vector<In> in, unsigned in_stride) {
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

// ---------------------------------------------------------------- references

double f16v(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
double bf16v(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Round-to-nearest-even of an exact double to a 16-bit format (positive finite patterns 0..maxfin
// are monotone in value). NaN -> 0x7fff.
uint16_t rn16(double v, double (*val)(uint16_t), uint16_t maxfin, uint16_t inf) {
  if (std::isnan(v)) return 0x7fff;
  uint16_t s = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v), maxv = val(maxfin);
  if (a > maxv) return s | ((a >= maxv + (maxv - val(maxfin - 1)) / 2) ? inf : maxfin);
  uint16_t lo = 0, hi = maxfin;
  while (lo < hi) {
    uint16_t mid = uint16_t((lo + hi + 1) / 2);
    if (val(mid) <= a) lo = mid; else hi = uint16_t(mid - 1);
  }
  if (val(lo) == a) return s | lo;
  double midv = (val(lo) + val(uint16_t(lo + 1))) / 2;
  if (a < midv) return s | lo;
  if (a > midv) return s | uint16_t(lo + 1);
  return s | ((lo & 1) ? uint16_t(lo + 1) : lo);
}
uint16_t rnf16(double v) { return rn16(v, f16v, 0x7bff, 0x7c00); }
uint16_t rnbf16(double v) { return rn16(v, bf16v, 0x7f7f, 0x7f80); }

// f16 a*b + c exactly, rounded to nearest even: the exact value in units of 2^-48 as __int128.
uint16_t ref_fma16(uint16_t a, uint16_t b, uint16_t c) {
  double x = f16v(a), y = f16v(b), z = f16v(c);
  if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z)) return rnf16(std::fma(x, y, z));
  auto units24 = [](double v) { return (__int128)std::llround(std::ldexp(v, 24)); };  // exact
  __int128 X = units24(x) * units24(y) + units24(z) * ((__int128)1 << 24);
  if (X == 0) return rnf16(std::fma(x, y, z));  // the sign of an exact zero follows IEEE rules
  uint16_t s = X < 0 ? 0x8000 : 0;
  __int128 A = X < 0 ? -X : X;
  auto U = [&](uint16_t h) { return units24(f16v(h)) * ((__int128)1 << 24); };
  if (2 * A >= U(0x7bff) + ((__int128)65536 << 48)) return s | 0x7c00;
  if (A >= U(0x7bff)) return s | 0x7bff;
  uint16_t lo = 0;
  uint16_t l = 0, h = 0x7bff;
  while (l < h) {
    uint16_t m = uint16_t((l + h + 1) / 2);
    if (U(m) <= A) l = m; else h = uint16_t(m - 1);
  }
  lo = l;
  if (U(lo) == A) return s | lo;
  __int128 two_mid = U(lo) + U(uint16_t(lo + 1));
  if (2 * A < two_mid) return s | lo;
  if (2 * A > two_mid) return s | uint16_t(lo + 1);
  return s | ((lo & 1) ? uint16_t(lo + 1) : lo);
}

std::vector<uint16_t> f16_specials() {
  return {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x3bff, 0x7bff, 0xfbff,
          0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x3800, 0x4000, 0x1400, 0x0200, 0x6bff, 0x5640, 0xd123, 0x0801};
}

bool is_nan16(uint16_t h, bool bf) { return bf ? ((h & 0x7f80) == 0x7f80 && (h & 0x7f)) : ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)); }

struct Case { uint16_t a, b, c; };

std::vector<Case> f16_cases(unsigned seed, unsigned nrand) {
  std::vector<Case> v;
  auto sp = f16_specials();
  for (auto a : sp)
    for (auto b : sp) v.push_back({a, b, sp[(a + b) % sp.size()]});
  std::mt19937 rng(seed);
  for (unsigned i = 0; i < nrand; ++i) {
    uint16_t a = uint16_t(rng()), b = uint16_t(rng()), c = uint16_t(rng());
    if (i % 3 == 0) b = uint16_t((a & 0x7c00) ^ (rng() & 0x83ff));  // close exponents: cancellation
    v.push_back({a, b, c});
  }
  return v;
}

// Runs `op` on packed pairs: each element is (a, b, c) as three b32 f16x2 words whose halves are
// cases i and i+1, so both halves are checked.
std::vector<uint32_t> run_x2(const std::string& instr, const std::vector<Case>& cs, unsigned nsrc) {
  std::vector<uint32_t> in;
  for (size_t i = 0; i + 1 < cs.size(); i += 2) {
    in.push_back(uint32_t(cs[i].a) | uint32_t(cs[i + 1].a) << 16);
    in.push_back(uint32_t(cs[i].b) | uint32_t(cs[i + 1].b) << 16);
    in.push_back(uint32_t(cs[i].c) | uint32_t(cs[i + 1].c) << 16);
  }
  std::string srcs = nsrc == 1 ? "%r5" : nsrc == 2 ? "%r5, %r6" : "%r5, %r6, %r7";
  return run<uint32_t>(fmt::format("  ld.global.b32 %r5, [%rd4];\n  ld.global.b32 %r6, [%rd4+4];\n  ld.global.b32 %r7, [%rd4+8];\n"
                                   "  {} %r8, {};\n  st.global.b32 [%rd6], %r8;", instr, srcs),
                       in, 12);
}

std::vector<uint16_t> run_x1(const std::string& instr, const std::vector<Case>& cs, unsigned nsrc) {
  std::vector<uint16_t> in;
  for (auto& c : cs) in.insert(in.end(), {c.a, c.b, c.c});
  std::string srcs = nsrc == 1 ? "%h1" : nsrc == 2 ? "%h1, %h2" : "%h1, %h2, %h3";
  return run<uint16_t>(fmt::format("  ld.global.b16 %h1, [%rd4];\n  ld.global.b16 %h2, [%rd4+2];\n  ld.global.b16 %h3, [%rd4+4];\n"
                                   "  {} %h4, {};\n  st.global.b16 [%rd6], %h4;", instr, srcs),
                       in, 6);
}

template <typename Ref>
void check(const std::string& what, const std::vector<Case>& cs, const std::vector<uint16_t>& got, Ref ref, bool bf = false) {
  ASSERT_EQ(got.size(), cs.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < cs.size() && bad < 8; ++i) {
    uint16_t want = ref(cs[i]);
    bool ok = got[i] == want;
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << std::hex << " a=0x" << cs[i].a << " b=0x" << cs[i].b << " c=0x" << cs[i].c << " got 0x"
                    << got[i] << " want 0x" << want;
    }
  }
  (void)bf;
}

std::vector<uint16_t> halves(const std::vector<uint32_t>& w, size_t n) {
  std::vector<uint16_t> out;
  for (uint32_t x : w) out.insert(out.end(), {uint16_t(x), uint16_t(x >> 16)});
  out.resize(std::min(n, out.size()));
  return out;
}

// ---------------------------------------------------------------- tests

TEST(Half, F16AddSubMulAreCorrectlyRounded) {
  auto cs = f16_cases(1, 6000);
  cs.resize(cs.size() & ~size_t(1));
  auto add = [](const Case& c) { return rnf16(f16v(c.a) + f16v(c.b)); };  // exact in double
  auto sub = [](const Case& c) { return rnf16(f16v(c.a) - f16v(c.b)); };
  auto mul = [](const Case& c) { return rnf16(f16v(c.a) * f16v(c.b)); };
  check("add.f16", cs, run_x1("add.f16", cs, 2), add);
  check("add.rn.f16x2", cs, halves(run_x2("add.rn.f16x2", cs, 2), cs.size()), add);
  check("sub.f16", cs, run_x1("sub.rn.f16", cs, 2), sub);
  check("sub.f16x2", cs, halves(run_x2("sub.f16x2", cs, 2), cs.size()), sub);
  check("mul.f16", cs, run_x1("mul.f16", cs, 2), mul);
  check("mul.f16x2", cs, halves(run_x2("mul.rn.f16x2", cs, 2), cs.size()), mul);
}

TEST(Half, F16FmaIsSinglyRounded) {
  auto cs = f16_cases(2, 8000);
  cs.resize(cs.size() & ~size_t(1));
  // double rounding would show up here: products with 22 significant bits plus distant addends
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) {
    uint16_t a = uint16_t(0x3c00 | (rng() & 0x3ff)), b = uint16_t(0x3c00 | (rng() & 0x3ff));
    uint16_t c = uint16_t((rng() & 0x8000) | ((3 + rng() % 14) << 10) | (rng() & 0x3ff));
    cs.push_back({a, b, c});
  }
  auto ref = [](const Case& c) { return ref_fma16(c.a, c.b, c.c); };
  check("fma.rn.f16", cs, run_x1("fma.rn.f16", cs, 3), ref);
  check("fma.rn.f16x2", cs, halves(run_x2("fma.rn.f16x2", cs, 3), cs.size()), ref);
}

TEST(Half, BF16ArithmeticIsCorrectlyRounded) {
  std::vector<Case> cs;
  std::vector<uint16_t> sp = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0x7f7f, 0x0001, 0x0080, 0x3f81, 0x4000};
  for (auto a : sp)
    for (auto b : sp) cs.push_back({a, b, sp[(a ^ b) % sp.size()]});
  std::mt19937 rng(9);
  auto rnd = [&] { return uint16_t((rng() & 0x807f) | ((120 + rng() % 16) << 7)); };  // exponents keep a*b + c exact in double
  for (int i = 0; i < 4000; ++i) cs.push_back({rnd(), rnd(), rnd()});
  cs.resize(cs.size() & ~size_t(1));
  auto add = [](const Case& c) { return rnbf16(bf16v(c.a) + bf16v(c.b)); };
  auto mul = [](const Case& c) { return rnbf16(bf16v(c.a) * bf16v(c.b)); };
  auto fma = [](const Case& c) { return rnbf16(bf16v(c.a) * bf16v(c.b) + bf16v(c.c)); };
  check("add.bf16", cs, run_x1("add.rn.bf16", cs, 2), add);
  check("mul.bf16x2", cs, halves(run_x2("mul.rn.bf16x2", cs, 2), cs.size()), mul);
  check("fma.bf16", cs, run_x1("fma.rn.bf16", cs, 3), fma);
}

TEST(Half, SatFtzRelu) {
  std::vector<Case> cs = {{0x3c00, 0x3c00, 0}, {0xbc00, 0x3800, 0}, {0x7e00, 0x3c00, 0}, {0x0001, 0x0000, 0},
                          {0x3800, 0x0000, 0}, {0x0400, 0x8001, 0}, {0x7c00, 0xfc00, 0}, {0x8001, 0x8000, 0}};
  auto sat = run_x1("add.sat.f16", cs, 2);
  EXPECT_EQ(sat, (std::vector<uint16_t>{0x3c00, 0x0000, 0x0000, 0x0001, 0x3800, 0x03ff, 0x0000, 0x0000}));
  auto ftz = run_x1("add.ftz.f16", cs, 2);
  // subnormal inputs and results flush to sign-preserving zero
  EXPECT_EQ(ftz, (std::vector<uint16_t>{0x4000, 0xb800, 0x7fff, 0x0000, 0x3800, 0x0400, 0x7fff, 0x8000}));
  std::vector<Case> fc = {{0x3c00, 0xbc00, 0x0000}, {0x3c00, 0x3c00, 0x3c00}, {0x7e00, 0x3c00, 0}, {0x7fff, 0x7c00, 0x3c00},
                          {0x3c00, 0x7fff, 0xbc00}};
  auto relu = run_x1("fma.rn.relu.f16", fc, 3);
  EXPECT_EQ(relu, (std::vector<uint16_t>{0x0000, 0x4000, 0x7fff, 0x7fff, 0x7fff}));
  auto oob = run_x1("fma.rn.oob.f16", fc, 3);
  EXPECT_EQ(oob, (std::vector<uint16_t>{0xbc00, 0x4000, 0x7fff, 0x0000, 0x0000}));
}

TEST(Half, MinMaxNegAbs) {
  std::vector<Case> cs = {{0x3c00, 0x4000, 0}, {0x8000, 0x0000, 0}, {0x7e00, 0xbc00, 0}, {0xbc00, 0x7e00, 0},
                          {0x7e00, 0x7e01, 0}, {0xc000, 0x3c00, 0}, {0x0001, 0x8002, 0}};
  EXPECT_EQ(run_x1("min.f16", cs, 2), (std::vector<uint16_t>{0x3c00, 0x8000, 0xbc00, 0xbc00, 0x7fff, 0xc000, 0x8002}));
  EXPECT_EQ(run_x1("max.f16", cs, 2), (std::vector<uint16_t>{0x4000, 0x0000, 0xbc00, 0xbc00, 0x7fff, 0x3c00, 0x0001}));
  EXPECT_EQ(run_x1("min.NaN.f16", cs, 2), (std::vector<uint16_t>{0x3c00, 0x8000, 0x7fff, 0x7fff, 0x7fff, 0xc000, 0x8002}));
  EXPECT_EQ(run_x1("min.ftz.f16", cs, 2), (std::vector<uint16_t>{0x3c00, 0x8000, 0xbc00, 0xbc00, 0x7fff, 0xc000, 0x8000}));
  // |min| with sign a^b
  EXPECT_EQ(run_x1("min.xorsign.abs.f16", cs, 2), (std::vector<uint16_t>{0x3c00, 0x8000, 0xbc00, 0xbc00, 0x7fff, 0xbc00, 0x8001}));
  EXPECT_EQ(run_x1("max.xorsign.abs.bf16", std::vector<Case>{{0xc000, 0x3f80, 0}}, 2), (std::vector<uint16_t>{0xc000}));
  EXPECT_EQ(run_x1("neg.f16", cs, 1), (std::vector<uint16_t>{0xbc00, 0x0000, 0xfe00, 0x3c00, 0xfe00, 0x4000, 0x8001}));
  EXPECT_EQ(run_x1("abs.ftz.f16", cs, 1), (std::vector<uint16_t>{0x3c00, 0x0000, 0x7e00, 0x3c00, 0x7e00, 0x4000, 0x0000}));
  auto x2 = run_x2("max.f16x2", std::vector<Case>{{0x3c00, 0x4000, 0}, {0xc000, 0xbc00, 0}}, 2);
  EXPECT_EQ(x2, (std::vector<uint32_t>{0xbc004000u}));
}

TEST(Half, Ex2AndTanhApprox) {
  std::vector<Case> cs = {{0x0000, 0, 0}, {0x3c00, 0, 0}, {0xbc00, 0, 0}, {0x4c00, 0, 0}, {0x7c00, 0, 0}, {0xfc00, 0, 0}, {0x7e00, 0, 0}};
  auto e = run_x1("ex2.approx.f16", cs, 1);
  EXPECT_EQ(e, (std::vector<uint16_t>{0x3c00, 0x4000, 0x3800, 0x7c00, 0x7c00, 0x0000, 0x7fff}));
  auto t = run_x1("tanh.approx.f16", cs, 1);
  ASSERT_EQ(t.size(), cs.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    double x = f16v(cs[i].a), got = f16v(t[i]);
    if (std::isnan(x)) EXPECT_TRUE(std::isnan(got));
    else EXPECT_NEAR(got, std::tanh(x), std::ldexp(1, -10)) << x;
  }
  auto b = run_x1("ex2.approx.ftz.bf16", std::vector<Case>{{0x3f80, 0, 0}, {0xc2fe, 0, 0}}, 1);  // 2^1, 2^-127 flushed
  EXPECT_EQ(b, (std::vector<uint16_t>{0x4000, 0x0000}));
}

TEST(Half, ImmediateOperandsAndErrors) {
  std::vector<Case> cs = {{0x3c00, 0, 0}};
  EXPECT_EQ(run_x1("add.f16 %h4, %h1, 0f3F800000; //", cs, 1), (std::vector<uint16_t>{0x4000}));
  Harness h;
  auto e = h.load_errors(kernel(2, 2, "  ld.global.b16 %h1, [%rd4];\n  add.rz.f16 %h2, %h1, %h1;"));
  ASSERT_FALSE(e.empty());
  Harness h2;
  auto e2 = h2.load_errors(kernel(2, 2, "  ld.global.b16 %h1, [%rd4];\n  add.sat.bf16 %h2, %h1, %h1;"));
  ASSERT_FALSE(e2.empty());
}

}  // namespace
