// Register slot sharing (func/reg_alloc.hpp): virtual registers with disjoint live ranges share
// slots. Random programs (straight-line arithmetic, guarded writes, a loop with values carried
// around it, a divergent forward branch, vector moves, unused results) run with sharing and
// without it, and every thread's outputs must be the same; the slot counts must also shrink.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "func/reg_alloc.hpp"
#include "func/schedule.hpp"
#include "ptx/parser.hpp"
#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_80\n.address_size 64\n";

// A kernel over `nregs` b32 registers whose last four are stored per thread. Every register is
// written before it is read except where `uninit` asks for a read of a never-written register
// (it must read zero either way).
std::string random_kernel(std::mt19937& rng, unsigned nregs, unsigned nops) {
  std::string b;
  auto R = [](unsigned i) { return fmt::format("%r{}", i); };
  unsigned defined = 2;  // %r0 = tid, %r1 = a constant
  b += "  mov.u32 %r0, %tid.x;\n  mov.u32 %r1, 7;\n";
  auto pick = [&]() { return R(rng() % defined); };
  auto dst = [&]() -> std::string {
    if (defined < nregs && rng() % 3) return R(defined++);
    return R(rng() % defined);
  };
  auto ops = [&](unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      switch (rng() % 9) {
        case 0: b += fmt::format("  add.u32 {}, {}, {};\n", dst(), pick(), pick()); break;
        case 1: b += fmt::format("  mul.lo.u32 {}, {}, {};\n", dst(), pick(), pick()); break;
        case 2: b += fmt::format("  xor.b32 {}, {}, {};\n", dst(), pick(), pick()); break;
        case 3: b += fmt::format("  shl.b32 {}, {}, {};\n", dst(), pick(), rng() % 7); break;
        case 4: {  // guarded write: the old value survives where the guard is false
          std::string d = R(rng() % defined);
          b += fmt::format("  and.b32 %t, {}, 1;\n  setp.eq.u32 %p1, %t, 0;\n  @%p1 add.u32 {}, {}, {};\n", pick(), d,
                           pick(), rng() % 100);
          break;
        }
        case 5: {  // a vector move through a 64-bit register and back
          std::string a = pick(), c = pick();
          b += fmt::format("  mov.b64 %d, {{{}, {}}};\n  mov.b64 {{{}, {}}}, %d;\n", a, c, dst(), dst());
          break;
        }
        case 6: b += fmt::format("  selp.b32 {}, {}, {}, %p1;\n", dst(), pick(), pick()); break;
        case 7: b += fmt::format("  add.u32 {}, {}, 1;\n", dst(), pick()); break;  // result often unused
        case 8: b += fmt::format("  mad.lo.u32 {}, {}, 3, {};\n", dst(), pick(), pick()); break;
      }
    }
  };
  b += "  setp.ne.u32 %p1, %r0, 0;\n";
  ops(nops / 3);
  // A loop: the counter and whatever the body reads from before the loop live across it.
  b += "  mov.u32 %c, 0;\nLOOP:\n";
  ops(nops / 3);
  b += "  add.u32 %c, %c, 1;\n  setp.lt.u32 %p2, %c, 3;\n  @%p2 bra LOOP;\n";
  // A divergent forward branch: odd threads skip a stretch.
  b += "  mov.u32 %t, %tid.x;\n  and.b32 %t, %t, 1;\n  setp.eq.u32 %p3, %t, 1;\n  @%p3 bra SKIP;\n";
  ops(nops / 6);
  b += "SKIP:\n";
  ops(nops / 6);
  std::string regs = fmt::format("  .reg .b32 %r<{}>;\n  .reg .b32 %t, %c;\n  .reg .b64 %d, %rd<4>;\n  .reg .pred %p<4>;\n", nregs);
  std::string tail = "  ld.param.u64 %rd1, [out];\n  mov.u32 %t, %tid.x;\n  mul.wide.u32 %rd2, %t, 16;\n  add.s64 %rd3, %rd1, %rd2;\n";
  tail += fmt::format("  st.global.v4.u32 [%rd3], {{{}, {}, {}, {}}};\n  ret;\n", R(defined - 1), R(defined / 2),
                      R(defined / 3), R(1));
  return ".visible .entry k(.param .u64 out)\n{\n" + regs + b + tail + "}\n";
}

std::vector<uint32_t> run(const std::string& body, bool share) {
  func::EngineConfig cfg;
  cfg.share_registers = share;
  Harness h(cfg);
  if (!h.load(kHead + body)) return {};
  uint64_t out = h.alloc(64 * 16);
  auto r = h.run("k", {1, 1, 1}, {64, 1, 1}, Harness::Params().add(out));
  EXPECT_TRUE(r.ok()) << r.report();
  return h.download<uint32_t>(out, 64 * 4);
}

uint32_t slots_of(const std::string& body, bool share) {
  auto r = ptx::parse(kHead + body, "t.ptx");
  if (!r.ok()) return 0;
  const ptx::Function& f = r.module->funcs.front();
  return func::allocate_register_slots(f, func::schedule_loads(f), 0, share).slots;
}

}  // namespace

TEST(RegAlloc, SharedSlotsGiveTheSameResultsOnRandomPrograms) {
  std::mt19937 rng(11);
  unsigned shrunk = 0;
  for (int i = 0; i < 60; ++i) {
    const std::string k = random_kernel(rng, 40, 90);
    auto a = run(k, false), b = run(k, true);
    ASSERT_FALSE(a.empty()) << k;
    ASSERT_EQ(a, b) << "program " << i << ":\n" << k;
    if (slots_of(k, true) < slots_of(k, false)) ++shrunk;
  }
  EXPECT_GT(shrunk, 50u);  // sharing actually happened
}

// A straight chain of temporaries needs two slots, not one per register; a value carried around a
// loop keeps its slot for the whole loop.
TEST(RegAlloc, ChainOfTemporariesNeedsFewSlots) {
  std::string body = ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<64>;\n  .reg .b64 %rd<3>;\n";
  body += "  mov.u32 %r0, %tid.x;\n";
  for (int i = 1; i < 64; ++i) body += fmt::format("  add.u32 %r{}, %r{}, {};\n", i, i - 1, i);
  body += "  ld.param.u64 %rd1, [out];\n  mul.wide.u32 %rd2, %r0, 4;\n  add.s64 %rd1, %rd1, %rd2;\n";
  body += "  st.global.u32 [%rd1], %r63;\n  ret;\n}\n";
  EXPECT_EQ(slots_of(body, false), 64u + 3u);
  EXPECT_LE(slots_of(body, true), 5u);  // %r0 (live to the end), two alternating temporaries, the address
  auto v = run(body, true);
  ASSERT_EQ(v.size(), 64u * 4);
  // Read back as thread t's word at t*4 bytes: in run()'s 16-byte stride layout that is element t.
  uint32_t expect0 = 0;
  for (int i = 1; i < 64; ++i) expect0 += uint32_t(i);
  EXPECT_EQ(v[0], expect0);
  EXPECT_EQ(v[5], 5u + expect0);
}

// A warp's register file is its kernel's window: the slots of the kernel, its callees and its
// special registers, not the whole module's. Kernel `a` calls `twice`; `b` calls nothing; `c`
// calls through a pointer and gets the whole module. Results are checked against the arithmetic.
TEST(RegAlloc, KernelRegisterWindowsCoverTheirCallees) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %q<3>;
  ld.param.b32 %q1, [x];
  add.u32 %q2, %q1, %q1;
  st.param.b32 [r], %q2;
  ret;
}
.visible .entry a(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 xa;
  .param .b32 ra;
  st.param.b32 [xa], %r1;
  call.uni (ra), twice, (xa);
  ld.param.b32 %r2, [ra];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
.visible .entry b(.param .u64 out)
{
  .reg .b32 %s<4>;
  .reg .b64 %sd<4>;
  ld.param.u64 %sd1, [out];
  mov.u32 %s1, %tid.x;
  mul.lo.u32 %s2, %s1, 3;
  mul.wide.u32 %sd2, %s1, 4;
  add.s64 %sd3, %sd1, %sd2;
  st.global.u32 [%sd3], %s2;
  ret;
}
.visible .entry c(.param .u64 out)
{
  .reg .b32 %t<4>;
  .reg .b64 %td<5>;
  .reg .b64 %fp;
  ld.param.u64 %td1, [out];
  mov.u32 %t1, %tid.x;
  mov.u64 %fp, twice;
  {
  .param .b32 xc;
  .param .b32 rc;
  st.param.b32 [xc], %t1;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  call (rc), %fp, (xc), proto;
  ld.param.b32 %t2, [rc];
  }
  mul.wide.u32 %td2, %t1, 4;
  add.s64 %td3, %td1, %td2;
  st.global.u32 [%td3], %t2;
  ret;
}
)"));
  const auto& funcs = h.mod->prog.funcs;
  auto fn = [&](const char* name) -> const func::DFunction& {
    for (auto& f : funcs)
      if (f.name == name) return f;
    ADD_FAILURE() << name;
    return funcs.front();
  };
  const auto &tw = fn("twice"), &ka = fn("a"), &kb = fn("b"), &kc = fn("c");
  EXPECT_LE(ka.window_lo, tw.reg_base);
  EXPECT_GE(ka.window_hi, tw.reg_base + tw.nregs);
  EXPECT_LE(ka.window_lo, ka.reg_base);
  EXPECT_GE(ka.window_hi, ka.reg_base + ka.nregs);
  // b reaches nothing else: its window is its own slots and its %tid.x.
  EXPECT_EQ(kb.window_hi - kb.window_lo, kb.nregs + uint32_t(kb.specials.size()));
  EXPECT_EQ(kc.window_lo, 0u);
  EXPECT_EQ(kc.window_hi, h.mod->prog.nregs);
  uint64_t out = h.alloc(48 * 4);
  for (const char* k : {"a", "b", "c", "a"}) {  // storage is reused between the kernels' warps
    auto r = h.run(k, {1, 1, 1}, {48, 1, 1}, Harness::Params().add(out));
    ASSERT_TRUE(r.ok()) << k << ": " << r.report();
    auto v = h.download<uint32_t>(out, 48);
    for (uint32_t t = 0; t < 48; ++t) EXPECT_EQ(v[t], std::string(k) == "b" ? 3 * t : 2 * t) << k << " thread " << t;
  }
}
