// SIMT control: re-convergence after divergence (so SIMT efficiency is realistic), independent
// thread scheduling (Volta seed demo_A spinlock and demo_B barriers in divergent code), and the
// pre-Volta reconvergence stack with its livelock report.
#include <gtest/gtest.h>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_80\n.address_size 64\n";

// if (tid & 1) { 4 instrs } else { 4 instrs }; then a common tail. Counted below by hand.
const std::string kIfElse = kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];              // prologue: 5 instructions
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
@%p1 bra EVEN;
  mov.u32 %r3, 100;                      // odd path: 5 instructions (incl. bra)
  add.u32 %r3, %r3, %r1;
  add.u32 %r3, %r3, 1;
  add.u32 %r3, %r3, 1;
  bra JOIN;
EVEN:
  mov.u32 %r3, 200;                      // even path: 4 instructions
  add.u32 %r3, %r3, %r1;
  add.u32 %r3, %r3, 2;
  add.u32 %r3, %r3, 2;
JOIN:
  mul.wide.u32 %rd2, %r1, 4;             // tail: 4 instructions
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

void check_if_else(const func::EngineConfig& cfg) {
  Harness h(cfg);
  ASSERT_TRUE(h.load(kIfElse));
  uint64_t out = h.alloc(32 * 4);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(v[t], t & 1 ? 102 + t : 204 + t) << t;
  // Re-converged: the tail runs once for the whole warp. Without re-convergence it would run twice
  // (5 + 5 + 4 + 4 + 4 = 22 warp instructions).
  EXPECT_EQ(r.warp_instrs, 5u + 5 + 4 + 4);
  EXPECT_EQ(r.thread_instrs, 32u * 5 + 16 * 5 + 16 * 4 + 32 * 4);
}

}  // namespace

TEST(Simt, IfElseReconvergesWithIndependentThreadScheduling) { check_if_else({}); }

TEST(Simt, IfElseReconvergesWithReconvergenceStack) {
  func::EngineConfig cfg;
  cfg.reconvergence_stack = true;
  check_if_else(cfg);
}

// Lanes run a loop tid % 4 + 1 times, then a common tail: the tail must run once.
TEST(Simt, DivergentLoopReconverges) {
  for (bool stack : {false, true}) {
    func::EngineConfig cfg;
    cfg.reconvergence_stack = stack;
    Harness h(cfg);
    ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mov.u32 %r3, 0;
LOOP:
  add.u32 %r3, %r3, 10;
  setp.ne.u32 %p1, %r2, 0;
  sub.u32 %r2, %r2, 1;
@%p1 bra LOOP;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)"));
    uint64_t out = h.alloc(32 * 4);
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
    ASSERT_TRUE(r.ok()) << r.report();
    auto v = h.download<uint32_t>(out, 32);
    for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(v[t], 10 * (t % 4 + 1)) << t;
    // prologue 4, loop body 4 per iteration for the longest lanes (4 iterations), tail 4
    EXPECT_EQ(r.warp_instrs, 4u + 4 * 4 + 4) << (stack ? "stack" : "its");
  }
}

namespace {
// Two divergent paths of one warp (threads 32-47 and 48-63) each reach a CTA barrier. With the
// non-aligned barrier.sync (what cooperative_groups' thread_block::sync() emits) that is sound on
// Volta and later; with bar.sync (= barrier.sync.aligned, __syncthreads()) real hardware hangs,
// and the simulator reports it.
const std::string kTwoBarriers = kHead + R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[512];
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, s;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  setp.lt.u32 %p1, %r1, 48;
@%p1 bra LOW;
  mul.lo.u32 %r2, %r1, 3;
  st.shared.u32 [%r7], %r2;
  BARRIER 0;
  bra DONE;
LOW:
  mul.lo.u32 %r2, %r1, 5;
  st.shared.u32 [%r7], %r2;
  BARRIER 0;
DONE:
  // read the neighbour's value, written before the barrier by the other path
  xor.b32 %r8, %r1, 64;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r5, %r8;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
}
)";

std::string with_barrier(const std::string& b) {
  std::string s = kTwoBarriers;
  for (size_t p; (p = s.find("BARRIER")) != std::string::npos;) s.replace(p, 7, b);
  return s;
}
}  // namespace

TEST(Simt, NonAlignedBarrierReachedThroughDivergentPaths) {
  Harness h;
  ASSERT_TRUE(h.load(with_barrier("barrier.sync")));
  uint64_t out = h.alloc(128 * 4);
  auto r = h.run("k", {1, 1, 1}, {128, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 128; ++t) {
    uint32_t o = t ^ 64;
    EXPECT_EQ(v[t], o < 48 ? o * 5 : o * 3) << t;
  }
}


TEST(Simt, AlignedBarrierAtTwoInstructionsOfOneWarpIsReported) {
  Harness h;
  ASSERT_TRUE(h.load(with_barrier("bar.sync")));
  uint64_t out = h.alloc(128 * 4);
  auto r = h.run("k", {1, 1, 1}, {128, 1, 1}, Harness::Params().add(out));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Deadlock);
  EXPECT_NE(r.fault.message.find("aligned"), std::string::npos) << r.fault.message;
}

// Volta seed demo_B: one __syncthreads() reached through short-circuit divergent code (the paths
// join before the barrier), which is sound on Volta.
TEST(Simt, SyncthreadsAfterShortCircuitDivergence) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[512];
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, s;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;          // is_odd(x)
@%p1 bra BODY;                      // short circuit: odd threads skip is_even
  setp.eq.u32 %p2, %r2, 0;          // is_even(x)
@!%p2 bra END;
BODY:
  st.shared.u32 [%r7], %r1;
  bar.sync 0;
  xor.b32 %r8, %r1, 1;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r5, %r8;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
END:
  ret;
}
)"));
  uint64_t out = h.alloc(64 * 4);
  auto r = h.run("k", {1, 1, 1}, {64, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(v[t], t ^ 1) << t;
}

namespace {
// Volta seed, demo_A-like: every thread takes one global lock (atom.cas spin), increments a plain
// counter inside the critical section, releases with atom.exch.
const std::string kSpinlock = kHead + R"(
.visible .entry k(.param .u64 lock, .param .u64 counter)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [lock];
  ld.param.u64 %rd2, [counter];
SPIN:
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.ne.u32 %p1, %r1, 0;
@%p1 bra SPIN;
  ld.volatile.global.u32 %r2, [%rd2];
  add.u32 %r2, %r2, 1;
  st.volatile.global.u32 [%rd2], %r2;
  membar.gl;
  atom.global.exch.b32 %r3, [%rd1], 0;
  ret;
}
)";
}  // namespace

TEST(Simt, SpinlockWithinAWarpCompletesUnderIndependentThreadScheduling) {
  Harness h;
  ASSERT_TRUE(h.load(kSpinlock));
  uint64_t lock = h.alloc(4), counter = h.alloc(4);
  auto r = h.run("k", {2, 1, 1}, {64, 1, 1}, Harness::Params().add(lock).add(counter));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(counter, 1)[0], 128u);
  EXPECT_EQ(h.download<uint32_t>(lock, 1)[0], 0u);
}

TEST(Simt, SpinlockWithinAWarpIsALivelockWithAReconvergenceStack) {
  func::EngineConfig cfg;
  cfg.reconvergence_stack = true;
  cfg.livelock_iterations = 10000;
  Harness h(cfg);
  ASSERT_TRUE(h.load(kSpinlock));
  uint64_t lock = h.alloc(4), counter = h.alloc(4);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(lock).add(counter));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Livelock);
  EXPECT_NE(r.fault.message.find("reconverge"), std::string::npos) << r.fault.message;
}

// __syncwarp with a partial mask inside a branch taken by half the warp.
TEST(Simt, WarpSyncWithPartialMask) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  mov.u32 %r2, 1;
@!%p1 bra HIGH;
  bar.warp.sync 0x0000ffff;
  mov.u32 %r2, 2;
HIGH:
  bar.warp.sync -1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)"));
  uint64_t out = h.alloc(32 * 4);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(v[t], t < 16 ? 2u : 1u) << t;
}

// sm_70+: lanes on two paths of a branch meet at two different bar.warp.sync instructions with
// the same mask (cuSPARSE's csrmm_v3 and cuBLAS's getrf_kernelWarp do); each side writes shared
// memory before its sync and reads the other side's after it. Before, this was a deadlock.
TEST(Simt, WarpSyncAtTwoPlacesMeets) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, s;
  add.u32 %r4, %r4, %r3;
  xor.b32 %r5, %r1, 16;                     // the partner on the other path
  shl.b32 %r5, %r5, 2;
  mov.u32 %r6, s;
  add.u32 %r5, %r6, %r5;
  setp.lt.u32 %p1, %r1, 16;
@!%p1 bra HIGH;
  add.u32 %r2, %r1, 100;
  st.shared.u32 [%r4], %r2;
  bar.warp.sync -1;
  bra.uni DONE;
HIGH:
  add.u32 %r2, %r1, 200;
  st.shared.u32 [%r4], %r2;
  bar.warp.sync -1;
DONE:
  ld.shared.u32 %r7, [%r5];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)"));
  uint64_t out = h.alloc(32 * 4);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(v[t], (t ^ 16) + ((t ^ 16) < 16 ? 100u : 200u)) << t;
}

// bar.red: every thread contributes a predicate; all get the CTA-wide popc/and/or.
TEST(Simt, BarrierReductions) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;                  // every third thread
  bar.red.popc.u32 %r3, 0, %p1;
  setp.lt.u32 %p2, %r1, 1000;               // all threads
  bar.red.and.pred %p3, 1, %p2;
  setp.eq.u32 %p4, %r1, 77;                 // one thread
  bar.red.or.pred %p5, 2, %p4;
  selp.u32 %r4, 1, 0, %p3;
  selp.u32 %r5, 1, 0, %p5;
  shl.b32 %r4, %r4, 16;
  shl.b32 %r5, %r5, 17;
  or.b32 %r3, %r3, %r4;
  or.b32 %r3, %r3, %r5;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)"));
  const uint32_t n = 96;
  uint64_t out = h.alloc(n * 4);
  auto r = h.run("k", {1, 1, 1}, {n, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, n);
  uint32_t popc = (n + 2) / 3;  // threads 0, 3, 6, ...
  for (uint32_t t = 0; t < n; ++t) EXPECT_EQ(v[t], popc | 1u << 16 | 1u << 17) << t;
}

// Named barrier with a thread count: warps 0-1 synchronise on barrier 1 (64 threads) while warps
// 2-3 use barrier 2, producer/consumer style through shared memory.
TEST(Simt, NamedBarriersWithThreadCounts) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[512];
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, s;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  mul.lo.u32 %r2, %r1, 7;
  st.shared.u32 [%r7], %r2;
  setp.lt.u32 %p1, %r1, 64;
@%p1 bra FIRST;
  bar.sync 2, 64;
  bra READ;
FIRST:
  bar.sync 1, 64;
READ:
  xor.b32 %r8, %r1, 32;                     // partner warp within the same pair
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r5, %r8;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
}
)"));
  uint64_t out = h.alloc(128 * 4);
  auto r = h.run("k", {1, 1, 1}, {128, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(v[t], (t ^ 32) * 7) << t;
}

// A barrier thread count that is not a multiple of the warp size is an error, not a hang.
TEST(Simt, BadBarrierCountFaults) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + ".visible .entry k()\n{\nbar.sync 1, 33;\nret;\n}\n"));
  auto r = h.run("k", {1, 1, 1}, {64, 1, 1}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalInstruction);
}
