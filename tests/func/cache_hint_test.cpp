// L2 cache hints as the functional engine records them for the timing model (func/mem_trace.hpp):
// createpolicy values passed with .L2::cache_hint on ld/st/cp.async/red (fractional and
// range forms), discard.global.L2, applypriority.global.L2::evict_normal and prefetch.global.L2.
// Expectations follow from the PTX ISA's definitions: a range policy gives the primary priority to
// [a, a + primary-size), the secondary to the rest of [a, a + total-size), none beyond; a
// fractional policy gives the primary priority to about `fraction` of the lines, the same choice
// for every access to a line. Functionally all of these leave memory as it is.
#include <gtest/gtest.h>

#include <map>

#include "func/cache_policy.hpp"
#include "harness.hpp"

namespace warpsim::test {
namespace {

using func::L2Hint;

const char* kPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 out)
{
  .reg .u64 %rd<8>;
  .reg .u32 %r<8>;
  .reg .b64 %pol<4>;
  .reg .u32 %s<2>;
  .shared .align 16 .b8 sm[128];
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 128;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  createpolicy.fractional.L2::evict_last.b64 %pol1, 1.0;
  ld.global.L2::cache_hint.u32 %r4, [%rd4+16], %pol1;
  mov.u32 %s1, sm;
  mad.lo.u32 %s1, %r1, 4, %s1;
  cp.async.ca.shared.global.L2::cache_hint [%s1], [%rd4+48], 4, %pol1;
  cp.async.wait_all;
  red.global.add.L2::cache_hint.u32 [%rd4+64], 1, %pol1;
  createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %pol2, 0.5;
  ld.global.L2::cache_hint.u32 %r5, [%rd4+20], %pol2;
  ld.global.L2::cache_hint.u32 %r5, [%rd4+24], %pol2;
  createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %pol3, [%rd1], 1024, 2048;
  st.global.L2::cache_hint.u32 [%rd4+28], %r2, %pol3;
  discard.global.L2 [%rd4], 128;
  applypriority.global.L2::evict_normal [%rd4], 128;
  prefetch.global.L2::evict_last [%rd4];
  ld.global.u32 %r6, [%rd4+32];
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd2, %rd5;
  add.u32 %r7, %r2, %r6;
  st.global.u32 [%rd6], %r7;
  ret;
}
)";

// Runs one CTA of `lanes` threads with a trace attached, as the timing model does.
func::MemTrace run_traced(Harness& h, uint64_t a, uint64_t out, unsigned lanes) {
  func::MemTrace tr;
  func::LaunchConfig lc;
  lc.grid = {1, 1, 1};
  lc.block = {lanes, 1, 1};
  Harness::Params p;
  p.add(a).add(out);
  lc.params = p.bytes;
  func::LaunchState ls;
  func::LaunchResult res;
  EXPECT_TRUE(h.eng.prepare(*h.mod, "k", lc, ls, res));
  ls.trace = &tr;
  func::CtaStepper st(*h.mod, ls, h.eng.config(), {0, 0, 0}, 0);
  for (int guard = 0; !st.done() && guard < 10000; ++guard)
    for (uint32_t w = 0; w < st.warps(); ++w) {
      uint32_t pc;
      if (st.next(w, pc)) {
        EXPECT_FALSE(st.step(w).fault) << ls.fault.message;
      }
    }
  EXPECT_TRUE(st.done());
  return tr;
}

TEST(CacheHints, PoliciesAndLineOperationsReachTheTrace) {
  Harness h;
  ASSERT_TRUE(h.load(kPtx));
  const unsigned lanes = 32;
  std::vector<uint32_t> init(lanes * 32);
  for (size_t i = 0; i < init.size(); ++i) init[i] = uint32_t(i * 7 + 1);
  const uint64_t a = h.upload(init), out = h.alloc(lanes * 4);
  func::MemTrace tr = run_traced(h, a, out, lanes);

  // Per lane, the global accesses in program order, by their offset in the lane's line.
  std::map<std::pair<unsigned, unsigned>, std::vector<L2Hint>> by;  // (lane, offset) -> hints
  std::map<unsigned, std::vector<const func::MemAccess*>> line_ops;  // lane -> 128-byte records
  for (const auto& x : tr.acc) {
    if (x.space != func::TraceSpace::Global || x.addr < a || x.addr >= a + lanes * 128) continue;
    const unsigned lane = unsigned((x.addr - a) / 128), off = unsigned((x.addr - a) % 128);
    if (x.bytes == 128) line_ops[lane].push_back(&x);
    else by[std::make_pair(lane, off)].push_back(x.l2);
  }
  auto at = [&](unsigned lane, unsigned off) { return by[std::make_pair(lane, off)]; };
  unsigned primary = 0;
  for (unsigned l = 0; l < lanes; ++l) {
    EXPECT_EQ(at(l, 0), std::vector<L2Hint>(1, L2Hint::Unchanged)) << l;
    EXPECT_EQ(at(l, 16), std::vector<L2Hint>(1, L2Hint::Last)) << l;  // fraction 1.0: all primary
    EXPECT_EQ(at(l, 48), std::vector<L2Hint>(1, L2Hint::Last)) << l;  // cp.async with the same policy
    EXPECT_EQ(at(l, 64), std::vector<L2Hint>(1, L2Hint::Last)) << l;  // red with the same policy
    ASSERT_EQ(at(l, 20).size(), 1u);
    ASSERT_EQ(at(l, 24).size(), 1u);
    const L2Hint f = at(l, 20)[0];
    EXPECT_TRUE(f == L2Hint::Last || f == L2Hint::First);
    EXPECT_EQ(at(l, 24)[0], f) << "the same line gets the same choice";
    primary += f == L2Hint::Last;
    // Range: lines 0-7 are within primary-size 1024, 8-15 within total-size 2048, 16+ outside.
    const L2Hint r = l < 8 ? L2Hint::Last : l < 16 ? L2Hint::First : L2Hint::Unchanged;
    EXPECT_EQ(at(l, 28), std::vector<L2Hint>(1, r)) << l;
    EXPECT_EQ(at(l, 32), std::vector<L2Hint>(1, L2Hint::Unchanged)) << l;
    // discard (a write of the whole line), applypriority (a write), prefetch (a read), in order.
    ASSERT_EQ(line_ops[l].size(), 3u) << l;
    EXPECT_EQ(line_ops[l][0]->l2, L2Hint::Discard);
    EXPECT_TRUE(line_ops[l][0]->write);
    EXPECT_EQ(line_ops[l][1]->l2, L2Hint::Demote);
    EXPECT_EQ(line_ops[l][2]->l2, L2Hint::Last);
    EXPECT_FALSE(line_ops[l][2]->write);
    EXPECT_EQ(line_ops[l][0]->addr, a + l * 128);
  }
  // Fraction 0.5 over 32 lines: a hash, so not exactly half, but not all or nothing.
  EXPECT_GE(primary, 8u);
  EXPECT_LE(primary, 24u);

  // Functionally nothing changed: discard keeps the data (it is undefined; keeping it is allowed),
  // the store of lane l's first word went to word 7 of its line.
  auto mem = h.download<uint32_t>(a, init.size());
  auto got = h.download<uint32_t>(out, lanes);
  for (unsigned l = 0; l < lanes; ++l) {
    EXPECT_EQ(mem[l * 32 + 7], init[l * 32]) << l;
    EXPECT_EQ(mem[l * 32], init[l * 32]) << l;
    EXPECT_EQ(mem[l * 32 + 16], init[l * 32 + 16] + 1) << l;  // the red
    EXPECT_EQ(got[l], init[l * 32] + init[l * 32 + 8]) << l;  // words 0 and 8 (offset 32)
  }
}

TEST(CacheHints, FractionalPolicyCoversAboutTheFractionOfLines) {
  // The policy value alone: over many lines, the primary share follows the fraction.
  for (double f : {0.25, 0.5, 0.9}) {
    const uint64_t pol = func::fractional_policy(L2Hint::Last, L2Hint::First, func::fraction_fixed(f));
    std::vector<func::RangePolicy> none;
    unsigned n = 20000, prim = 0;
    for (unsigned i = 0; i < n; ++i) prim += func::policy_hint(pol, 0x200000000ull + uint64_t(i) * 128, none) == L2Hint::Last;
    EXPECT_NEAR(double(prim) / n, f, 0.02) << f;
  }
  std::vector<func::RangePolicy> none;
  EXPECT_EQ(func::policy_hint(0, 0x1000, none), L2Hint::Unchanged);  // not a createpolicy value
}

TEST(CacheHints, BadOperandsAreDecodeErrors) {
  Harness h;
  auto one = [&](const char* body) {
    std::string s = std::string(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a)
{
  .reg .u64 %rd<4>;
  .reg .b64 %pol;
  ld.param.u64 %rd1, [a];
  )") + body + "\n  ret;\n}\n";
    return h.load_errors(s);
  };
  EXPECT_FALSE(one("discard.global.L2 [%rd1], 64;").empty());
  EXPECT_FALSE(one("applypriority.global.L2::evict_normal [%rd1], 256;").empty());
  EXPECT_TRUE(one("discard.global.L2 [%rd1], 128;").empty());
}

}  // namespace
}  // namespace warpsim::test
