// Atomics: atom/red on global, shared and generic addresses for every operation and type, under
// contention from many threads and CTAs (final memory against a CPU reference), lane-order
// semantics within a warp, cas loops, exch permutations, inc/dec wrap, faults, and the Volta
// spinlock (threads of one warp taking a lock in turn under independent thread scheduling).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cmath>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

std::string subst(std::string s, const std::string& key, const std::string& val) {
  for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + val.size())) s.replace(p, key.size(), val);
  return s;
}

// Every thread g (of all CTAs) applies `atom.SPACE.OP.TYPE old, [bins + (g % 7) * SIZE], vals[g]`
// and stores old to olds[g]. REG is the register type for the operand width.
const char* kHistKernel = R"(
.visible .entry k(.param .u64 bins, .param .u64 vals, .param .u64 olds)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<12>;
  .reg .REGT %v<3>;
  ld.param.u64 %rd1, [bins];
  ld.param.u64 %rd2, [vals];
  ld.param.u64 %rd3, [olds];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  rem.u32 %r5, %r4, 7;
  mul.wide.u32 %rd4, %r5, SIZE;
  add.s64 %rd5, %rd1, %rd4;
  mul.wide.u32 %rd6, %r4, SIZE;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.REGT %v1, [%rd7];
  atom.SEM.global.OP.TYPE %v2, [%rd5], %v1;
  add.s64 %rd8, %rd3, %rd6;
  st.global.REGT [%rd8], %v2;
  ret;
}
)";

constexpr unsigned kCtas = 3, kThreads = 96, kN = kCtas * kThreads, kBins = 7;

template <typename T, typename F>
void run_hist(const std::string& op, const std::string& type, const std::string& sem, std::vector<T> init,
              const std::vector<T>& vals, F fold) {
  SCOPED_TRACE(op + "." + type + " " + sem);
  std::string regt = sizeof(T) == 8 ? "b64" : sizeof(T) == 4 ? "b32" : "b16";
  std::string text = subst(subst(subst(subst(subst(kHistKernel, "REGT", regt), "SIZE", std::to_string(sizeof(T))),
                                       "SEM", sem), "OP", op), "TYPE", type);
  Harness h;
  ASSERT_TRUE(h.load(kHead + text));
  uint64_t bins = h.upload(init), dv = h.upload(vals), olds = h.alloc(kN * sizeof(T));
  auto r = h.run("k", {kCtas, 1, 1}, {kThreads, 1, 1}, Harness::Params().add(bins).add(dv).add(olds));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<T>(bins, kBins);
  std::vector<T> want = init;
  for (unsigned g = 0; g < kN; ++g) want[g % kBins] = fold(want[g % kBins], vals[g]);
  for (unsigned b = 0; b < kBins; ++b) EXPECT_EQ(std::memcmp(&got[b], &want[b], sizeof(T)), 0) << "bin " << b;
  // The threads of one bin saw a chain of values: every old value, replayed in thread order
  // (threads run in warp order, lanes in lane order), reproduces the updates.
  auto o = h.download<T>(olds, kN);
  std::vector<T> cur = init;
  for (unsigned g = 0; g < kN; ++g) {
    ASSERT_EQ(std::memcmp(&o[g], &cur[g % kBins], sizeof(T)), 0) << "old value of thread " << g;
    cur[g % kBins] = fold(cur[g % kBins], vals[g]);
  }
}

template <typename T>
std::vector<T> pattern(uint64_t seed) {
  std::vector<T> v(kN);
  uint64_t x = seed;
  for (auto& e : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    e = T(x >> 17);
  }
  return v;
}

TEST(Atom, HistogramIntegerOpsAllTypes) {
  using u32 = uint32_t;
  using u64 = uint64_t;
  auto v32 = pattern<u32>(1);
  auto v64 = pattern<u64>(2);
  v32[5] = 0x80000000u;
  v32[6] = 0x7fffffffu;
  v64[5] = 0x8000000000000000ull;
  v64[6] = 0x7fffffffffffffffull;
  std::vector<u32> i32(kBins, 0x12345678u);
  std::vector<u64> i64(kBins, 0x1234567890abcdefull);
  run_hist<u32>("add", "u32", "relaxed.gpu", i32, v32, [](u32 a, u32 b) { return a + b; });
  run_hist<u32>("add", "s32", "acq_rel.cta", i32, v32, [](u32 a, u32 b) { return a + b; });
  run_hist<u64>("add", "u64", "sys", i64, v64, [](u64 a, u64 b) { return a + b; });
  run_hist<u32>("and", "b32", "acquire", i32, v32, [](u32 a, u32 b) { return a & b; });
  run_hist<u64>("or", "b64", "release.gpu", i64, v64, [](u64 a, u64 b) { return a | b; });
  run_hist<u32>("xor", "b32", "relaxed.cluster", i32, v32, [](u32 a, u32 b) { return a ^ b; });
  run_hist<u64>("xor", "b64", "relaxed.sys", i64, v64, [](u64 a, u64 b) { return a ^ b; });
  run_hist<u32>("min", "u32", "relaxed.gpu", i32, v32, [](u32 a, u32 b) { return std::min(a, b); });
  run_hist<u32>("max", "u32", "relaxed.gpu", i32, v32, [](u32 a, u32 b) { return std::max(a, b); });
  run_hist<u32>("min", "s32", "relaxed.gpu", i32, v32,
                [](u32 a, u32 b) { return u32(std::min(int32_t(a), int32_t(b))); });
  run_hist<u32>("max", "s32", "relaxed.gpu", i32, v32,
                [](u32 a, u32 b) { return u32(std::max(int32_t(a), int32_t(b))); });
  run_hist<u64>("min", "u64", "relaxed.gpu", i64, v64, [](u64 a, u64 b) { return std::min(a, b); });
  run_hist<u64>("max", "s64", "relaxed.gpu", i64, v64,
                [](u64 a, u64 b) { return u64(std::max(int64_t(a), int64_t(b))); });
  run_hist<u64>("min", "s64", "relaxed.gpu", i64, v64,
                [](u64 a, u64 b) { return u64(std::min(int64_t(a), int64_t(b))); });
  run_hist<u32>("exch", "b32", "relaxed.gpu", i32, v32, [](u32, u32 b) { return b; });
  run_hist<u64>("exch", "b64", "relaxed.gpu", i64, v64, [](u64, u64 b) { return b; });
  std::vector<u32> lim(kN);
  for (unsigned g = 0; g < kN; ++g) lim[g] = 5 + g % 11;
  std::vector<u32> z(kBins, 0);
  run_hist<u32>("inc", "u32", "relaxed.gpu", z, lim, [](u32 a, u32 b) { return a >= b ? 0 : a + 1; });
  run_hist<u32>("dec", "u32", "relaxed.gpu", z, lim, [](u32 a, u32 b) { return (a == 0 || a > b) ? b : a - 1; });
}

TEST(Atom, HistogramFloatAddExactValues) {
  // Multiples of 1/8 with small magnitude: every partial sum is exact, any order gives one answer.
  std::vector<float> vf(kN);
  std::vector<double> vd(kN);
  for (unsigned g = 0; g < kN; ++g) {
    vf[g] = float(int(g * 37 % 101) - 50) * 0.125f;
    vd[g] = double(int(g * 53 % 211) - 100) * 0.25;
  }
  run_hist<float>("add", "f32", "relaxed.gpu", std::vector<float>(kBins, 1.5f), vf, [](float a, float b) { return a + b; });
  run_hist<double>("add", "f64", "relaxed.gpu", std::vector<double>(kBins, -3.0), vd,
                   [](double a, double b) { return a + b; });
  // f16 / bf16 (stored as raw bits): small integers, exact in both formats
  auto h16 = [](int v) -> uint16_t {  // exact small integers as binary16
    if (v == 0) return 0;
    uint16_t s = v < 0 ? 0x8000 : 0;
    int a = std::abs(v), e = 31 - __builtin_clz(a);
    return uint16_t(s | ((e + 15) << 10) | ((a << (10 - e)) & 0x3ff));
  };
  auto bf = [](int v) -> uint16_t {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t(u >> 16);
  };
  auto h2f = [](uint16_t h) {  // binary16 -> float for the reference (normals and zero only)
    if ((h & 0x7fff) == 0) return (h & 0x8000) ? -0.0f : 0.0f;
    int e = (h >> 10 & 31) - 15;
    float m = 1.0f + float(h & 0x3ff) / 1024.0f;
    float v = std::ldexp(m, e);
    return (h & 0x8000) ? -v : v;
  };
  std::vector<uint16_t> vh(kN), vb(kN);
  for (unsigned g = 0; g < kN; ++g) {
    int v = int(g % 9) - 4;
    vh[g] = h16(v);
    vb[g] = bf(v);
  }
  run_hist<uint16_t>("add.noftz", "f16", "relaxed.gpu", std::vector<uint16_t>(kBins, h16(100)), vh,
                     [&](uint16_t a, uint16_t b) { return h16(int(h2f(a) + h2f(b))); });
  run_hist<uint16_t>("add.noftz", "bf16", "relaxed.gpu", std::vector<uint16_t>(kBins, bf(-100)), vb,
                     [&](uint16_t a, uint16_t b) {
                       auto b2f = [](uint16_t x) {
                         uint32_t u = uint32_t(x) << 16;
                         float f;
                         std::memcpy(&f, &u, 4);
                         return f;
                       };
                       return bf(int(b2f(a) + b2f(b)));
                     });
  // f16x2: two lanes of f16 in a 32-bit word
  std::vector<uint32_t> vx(kN);
  for (unsigned g = 0; g < kN; ++g) vx[g] = uint32_t(h16(int(g % 5) - 2)) | uint32_t(h16(int(g % 3))) << 16;
  run_hist<uint32_t>("add.noftz", "f16x2", "relaxed.gpu", std::vector<uint32_t>(kBins, uint32_t(h16(8)) * 0x10001u), vx,
                     [&](uint32_t a, uint32_t b) {
                       uint16_t lo = h16(int(h2f(uint16_t(a)) + h2f(uint16_t(b))));
                       uint16_t hi = h16(int(h2f(uint16_t(a >> 16)) + h2f(uint16_t(b >> 16))));
                       return uint32_t(lo) | uint32_t(hi) << 16;
                     });
}

TEST(Atom, FloatAddRoundingAndFlush) {
  // f32: subnormal inputs/results flush to signed zero; f16: round to nearest even, subnormals kept.
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b16 %h<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  atom.global.add.f32 %r1, [%rd1], 0f00000001;
  atom.global.add.f32 %r2, [%rd1+4], 0f00800000;
  mov.b16 %h1, 0x0001;
  atom.global.add.noftz.f16 %h2, [%rd1+8], %h1;
  mov.b16 %h3, 0x3c00;
  atom.global.add.noftz.f16 %h4, [%rd1+10], %h3;
  mov.b32 %r3, 0x3f803f80;
  atom.global.add.noftz.bf16x2 %r4, [%rd1+12], %r3;
  ret;
}
)"));
  std::vector<uint32_t> init = {0x3f800000u, 0x80800000u, 0x00010000u | 0x0001u, 0x3f803f80u};
  // [0]: 1.0 + subnormal(flushed) = 1.0; [1]: -2^-126 + 2^-126 = +0 (exact zero);
  // [2] f16 lo: 1 subnormal ulp + 1 ulp = 2 ulps (kept); f16 hi: 0x0001 + 1.0 = 1.0 (rounded, RNE)
  // [3] bf16x2: 1.0 + 1.0 = 2.0 in both halves
  uint64_t buf = h.upload(init);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(buf));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(buf, 4);
  EXPECT_EQ(got[0], 0x3f800000u);
  EXPECT_EQ(got[1], 0x00000000u);
  EXPECT_EQ(got[2], 0x3c000002u);
  EXPECT_EQ(got[3], 0x40004000u);
}

TEST(Atom, LaneOrderWithinOneWarp) {
  // One warp, one address: lane l sees the sum of lanes 0..l-1 (documented lane order).
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 ctr, .param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [ctr];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  atom.global.add.u32 %r3, [%rd1], %r2;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
)"));
  uint64_t ctr = h.alloc(4), out = h.alloc(128);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(ctr).add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 32);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got[l], l * (l + 1) / 2) << l;
  EXPECT_EQ(h.download<uint32_t>(ctr, 1)[0], 32u * 33 / 2);
}

TEST(Atom, IncDecWrap) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 p, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [out];
  atom.global.inc.u32 %r1, [%rd1], 2;
  atom.global.inc.u32 %r2, [%rd1], 2;
  atom.global.inc.u32 %r3, [%rd1], 2;
  atom.global.inc.u32 %r4, [%rd1], 2;
  atom.global.dec.u32 %r5, [%rd1+4], 2;
  atom.global.dec.u32 %r6, [%rd1+4], 2;
  atom.global.dec.u32 %r7, [%rd1+4], 2;
  atom.global.dec.u32 %r8, [%rd1+4], 2;
  atom.global.inc.u32 %r9, [%rd1+8], 3;
  atom.global.dec.u32 %r10, [%rd1+12], 3;
  red.global.inc.u32 [%rd1+16], 0;
  red.global.dec.u32 [%rd1+20], 0xffffffff;
  st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd2+16], {%r5, %r6, %r7, %r8};
  ret;
}
)"));
  std::vector<uint32_t> init = {0, 1, 9, 9, 5, 0};
  uint64_t p = h.upload(init), out = h.alloc(32);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(p).add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto o = h.download<uint32_t>(out, 8);
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 0, 1, 0, 2, 1}));
  auto m = h.download<uint32_t>(p, 6);
  EXPECT_EQ(m[0], 1u);
  EXPECT_EQ(m[1], 0u);
  EXPECT_EQ(m[2], 0u);            // 9 >= 3 -> 0
  EXPECT_EQ(m[3], 3u);            // 9 > 3 -> 3
  EXPECT_EQ(m[4], 0u);            // inc with limit 0: always 0
  EXPECT_EQ(m[5], 0xffffffffu);   // dec of 0 -> limit
}

TEST(Atom, CasLoopIncrementAndExchPermutation) {
  // Every thread of 4 CTAs adds its value with an ld/cas retry loop (not atom.add); then
  // exchanges its id into one of 8 slots: the old values and the final slots together are a
  // permutation of the initial slot contents and all ids.
  func::EngineConfig cfg;
  cfg.max_warp_instructions = 2000000;  // a broken cas ends as InstructionLimit, not a stuck test
  Harness h(cfg);
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 ctr, .param .u64 slots, .param .u64 olds)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [ctr];
  ld.param.u64 %rd2, [slots];
  ld.param.u64 %rd3, [olds];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  ld.volatile.global.u32 %r5, [%rd1];
RETRY:
  add.u32 %r6, %r5, %r4;
  atom.global.cas.b32 %r7, [%rd1], %r5, %r6;
  setp.ne.u32 %p1, %r7, %r5;
  mov.u32 %r5, %r7;
@%p1 bra RETRY;
  and.b32 %r8, %r4, 7;
  mul.wide.u32 %rd4, %r8, 4;
  add.s64 %rd5, %rd2, %rd4;
  add.u32 %r9, %r4, 1000;
  atom.exch.b32 %r10, [%rd5], %r9;
  mul.wide.u32 %rd6, %r4, 4;
  add.s64 %rd7, %rd3, %rd6;
  st.global.u32 [%rd7], %r10;
  ret;
}
)"));
  const unsigned ctas = 4, threads = 64, n = ctas * threads;
  std::vector<uint32_t> slots0(8);
  for (unsigned i = 0; i < 8; ++i) slots0[i] = 7 + i;
  uint64_t ctr = h.alloc(4), slots = h.upload(slots0), olds = h.alloc(n * 4);
  auto r = h.run("k", {ctas, 1, 1}, {threads, 1, 1}, Harness::Params().add(ctr).add(slots).add(olds));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(ctr, 1)[0], n * (n - 1) / 2);
  std::vector<uint32_t> all = h.download<uint32_t>(olds, n);
  auto fin = h.download<uint32_t>(slots, 8);
  all.insert(all.end(), fin.begin(), fin.end());
  std::vector<uint32_t> want = slots0;
  for (unsigned g = 0; g < n; ++g) want.push_back(g + 1000);
  std::sort(all.begin(), all.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(all, want);
}

TEST(Atom, CasB16AndB64) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 p)
{
  .reg .b16 %h<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p];
  mov.b16 %h1, 0x1234;
  mov.b16 %h2, 0xbeef;
  atom.global.cas.b16 %h3, [%rd1+2], %h1, %h2;
  atom.global.cas.b16 %h3, [%rd1+4], %h1, %h2;
  atom.global.cas.b64 %rd2, [%rd1+8], 5, 0x123456789;
  atom.global.cas.b64 %rd3, [%rd1+16], 5, 6;
  st.global.u16 [%rd1], %h3;
  st.global.u64 [%rd1+24], %rd2;
  ret;
}
)"));
  std::vector<uint16_t> init(16, 0);
  init[1] = 0x1234;  // matches
  init[2] = 0x1111;  // doesn't
  init[4] = 5;       // b64 at +8 low half: matches 5
  init[8] = 7;       // b64 at +16: no match
  uint64_t p = h.upload(init);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(p));
  ASSERT_TRUE(r.ok()) << r.report();
  auto m = h.download<uint16_t>(p, 16);
  EXPECT_EQ(m[1], 0xbeef);
  EXPECT_EQ(m[2], 0x1111);
  EXPECT_EQ(m[0], 0x1111);  // old value of the second cas
  auto q = h.download<uint64_t>(p, 4);
  EXPECT_EQ(q[1], 0x123456789ull);
  EXPECT_EQ(q[2], 7u);
  EXPECT_EQ(q[3], 5u);
}

TEST(Atom, SharedAndGenericAddresses) {
  // Shared counters through .shared and through generic addresses (cvta), plus red on shared;
  // a generic pointer to global memory; results copied out by thread 0.
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out, .param .u64 g)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  .shared .align 8 .b32 sh[4];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [g];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
@!%p1 bra INIT_DONE;
  st.shared.u32 [sh], 0;
  st.shared.u32 [sh+4], 0;
  st.shared.u32 [sh+8], 0xffffffff;
  st.shared.u32 [sh+12], 0;
INIT_DONE:
  bar.sync 0;
  atom.shared.add.u32 %r2, [sh], 1;
  mov.u64 %rd3, sh;
  cvta.shared.u64 %rd4, %rd3;
  atom.add.u32 %r3, [%rd4+4], %r1;
  atom.shared::cta.min.u32 %r4, [%rd3+8], %r1;
  red.shared.max.s32 [sh+12], %r1;
  atom.relaxed.gpu.add.u32 %r5, [%rd2], 2;
  red.add.u32 [%rd2+4], 3;
  bar.sync 0;
@!%p1 bra DONE;
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [sh];
  st.global.v4.u32 [%rd1], {%r6, %r7, %r8, %r9};
DONE:
  ret;
}
)"));
  uint64_t out = h.alloc(16), g = h.alloc(8);
  auto r = h.run("k", {2, 1, 1}, {100, 1, 1}, Harness::Params().add(out).add(g));
  ASSERT_TRUE(r.ok()) << r.report();
  auto o = h.download<uint32_t>(out, 4);
  EXPECT_EQ(o[0], 100u);
  EXPECT_EQ(o[1], 99u * 100 / 2);
  EXPECT_EQ(o[2], 0u);
  EXPECT_EQ(o[3], 99u);
  auto gg = h.download<uint32_t>(g, 2);
  EXPECT_EQ(gg[0], 2u * 200);
  EXPECT_EQ(gg[1], 3u * 200);
}

TEST(Atom, VectorF32AddAndCacheHint) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 p, .param .u64 out)
{
  .reg .f32 %f<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [out];
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f40000000;
  mov.f32 %f3, 0f40400000;
  mov.f32 %f4, 0f40800000;
  createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;
  atom.global.v4.f32.add.L2::cache_hint {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4}, %rd3;
  red.global.add.L2::cache_hint.f32 [%rd1+16], %f1, %rd3;
  st.global.v4.f32 [%rd2], {%f5, %f6, %f7, %f8};
  ret;
}
)"));
  std::vector<float> init = {10, 20, 30, 40, 0.5f, 0, 0, 0};
  uint64_t p = h.upload(init), out = h.alloc(16);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(p).add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto m = h.download<float>(p, 5);
  EXPECT_EQ(m, (std::vector<float>{42, 84, 126, 168, 32.5f}));
  auto o = h.download<float>(out, 4);
  EXPECT_EQ(o[0], 10.0f + 31.0f);  // the last lane's old value
  EXPECT_EQ(o[3], 40.0f + 31 * 4.0f);
}

TEST(Atom, FaultsUnmappedMisalignedAndLocal) {
  const std::string body = R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .local .align 4 .b32 loc[4];
  ld.param.u64 %rd1, [p];
  ADDR
  atom.add.u32 %r1, [%rd1], 1;
  ret;
}
)";
  {
    Harness h;
    ASSERT_TRUE(h.load(kHead + subst(body, "ADDR", "")));
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(uint64_t(0x40)));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalAddress);
    EXPECT_EQ(r.fault.address, 0x40u);
  }
  {
    Harness h;
    ASSERT_TRUE(h.load(kHead + subst(body, "ADDR", "add.s64 %rd1, %rd1, 2;")));
    uint64_t buf = h.alloc(64);
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(buf));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault.kind, func::FaultKind::MisalignedAddress);
    EXPECT_EQ(r.fault.address, buf + 2);
  }
  {
    Harness h;
    ASSERT_TRUE(h.load(kHead + subst(body, "ADDR", "mov.u64 %rd2, loc; cvta.local.u64 %rd1, %rd2;")));
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(uint64_t(0)));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalAddress);
    EXPECT_NE(r.fault.message.find("local"), std::string::npos) << r.fault.message;
  }
  {
    // shared out of range
    Harness h;
    ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  .shared .b32 s[2];
  mov.u32 %r2, 0x100000;
  atom.shared.exch.b32 %r1, [%r2+0], 1;
  ret;
}
)"));
    auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalAddress);
  }
}

TEST(Atom, DecodeErrors) {
  auto err = [](const std::string& ins) {
    Harness h;
    auto e = h.load_errors(kHead + ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .b16 %h<4>;\n"
                                   ".reg .b64 %rd<4>;\n.local .b32 l;\n" + ins + "\nret;\n}\n");
    return e.empty() ? std::string() : e[0];
  };
  EXPECT_NE(err("atom.local.add.u32 %r1, [l], 1;").find("only valid on .global, .shared or generic"), std::string::npos);
  EXPECT_NE(err("atom.global.add.f16 %h1, [%rd1], %h2;").find(".noftz"), std::string::npos);
  EXPECT_NE(err("atom.global.inc.s32 %r1, [%rd1], 2;").find("does not support .s32"), std::string::npos);
  EXPECT_NE(err("atom.global.add.s64 %rd1, [%rd1], 2;").find("does not support .s64"), std::string::npos);
  EXPECT_NE(err("atom.global.exch.b128 %rd1, [%rd1], %rd2;").find("not supported"), std::string::npos);
  EXPECT_EQ(err("atom.global.add.u32 %r1, [%rd1], 2;"), "");
}

TEST(Atom, VoltaSpinlockWithinOneWarp) {
  // demo_A (Volta whitepaper): every thread of two CTAs x 64 threads takes one global lock with a
  // cas loop, increments a plain counter inside the critical section and releases with exch. The
  // lanes of a warp contend with each other: ITS must let the lock holder run while the others spin.
  func::EngineConfig cfg;
  cfg.max_warp_instructions = 2000000;  // a hang ends as InstructionLimit, not a stuck test
  Harness h(cfg);
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 mutex, .param .u64 counter)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [mutex];
  ld.param.u64 %rd2, [counter];
SPIN:
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.eq.s32 %p1, %r1, 1;
@%p1 bra SPIN;
  ld.volatile.global.u32 %r2, [%rd2];
  add.s32 %r2, %r2, 1;
  st.volatile.global.u32 [%rd2], %r2;
  atom.global.exch.b32 %r3, [%rd1], 0;
  ret;
}
)"));
  uint64_t mutex = h.alloc(4), counter = h.alloc(4);
  auto r = h.run("k", {2, 1, 1}, {64, 1, 1}, Harness::Params().add(mutex).add(counter));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(counter, 1)[0], 128u);
  EXPECT_EQ(h.download<uint32_t>(mutex, 1)[0], 0u);
}

}  // namespace
