// Engine-level behaviour: launch geometry, special registers, control flow, calls, barriers,
// faults and their reports, deadlock detection, independent thread scheduling.
#include <gtest/gtest.h>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {
const std::string kHead = ".version 8.7\n.target sm_80\n.address_size 64\n";
}

TEST(Engine, StoresThreadIndex) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.b64 %rd2, {%r1, %r2};
  st.global.u32 [%rd1], %r3;
  exit;
}
)"));
  uint64_t out = h.alloc(4);
  auto r = h.run("k", {1, 1, 1}, {37, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(out, 1)[0], 37u);
  EXPECT_EQ(r.thread_instrs, 37u * 7);  // 7 instructions, every thread
  EXPECT_EQ(r.warp_instrs, 2u * 7);     // two warps (32 + 5 threads)
}

// Special registers live in register slots filled at warp start, only for those the module reads:
// a kernel's own next to its registers, those of device functions in a shared block (%ctaid.y is
// in both here). Two kernels and a device function read different sets, one through a vector
// operand; every value is checked against the launch geometry.
TEST(Engine, SpecialRegistersOfKernelsAndDeviceFunctions) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.func (.param .b32 r) lane_info()
{
  .reg .b32 %a<4>;
  mov.u32 %a1, %laneid;
  mov.u32 %a2, %ctaid.y;
  mad.lo.u32 %a3, %a2, 100, %a1;
  st.param.b32 [r], %a3;
  ret;
}
.visible .entry ka(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.y;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;        // thread index in the CTA
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %ntid.y;
  mul.lo.u32 %r9, %r8, %r2;
  mad.lo.u32 %r4, %r7, %r9, %r4;        // + ctaid.y * threads per CTA
  {
  .param .b32 rv;
  call.uni (rv), lane_info, ();
  ld.param.b32 %r5, [rv];
  }
  mov.u32 %r6, %lanemask_lt;
  mul.wide.u32 %rd2, %r4, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r5, %r6};
  exit;
}
.visible .entry kb(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %warpid;
  mov.u32 %r3, %ntid.z;
  mov.u32 %r4, %nctaid.x;
  mov.b64 %rd2, {%r3, %r4};
  shr.u64 %rd2, %rd2, 32;
  cvt.u32.u64 %r5, %rd2;                // nctaid.x, through a vector operand
  {
  .param .b32 rv;
  call.uni (rv), lane_info, ();
  ld.param.b32 %r6, [rv];
  }
  mad.lo.u32 %r5, %r5, 1000, %r6;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r5};
  exit;
}
)"));
  const unsigned bx = 8, by = 6, per_cta = bx * by;  // 48 threads: a full warp and a partial one
  uint64_t out = h.alloc(2 * per_cta * 8);
  auto r = h.run("ka", {1, 2, 1}, {bx, by, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 2 * per_cta * 2);
  for (unsigned i = 0; i < 2 * per_cta; ++i) {
    const unsigned cta_y = i / per_cta, lane = (i % per_cta) % 32;
    EXPECT_EQ(v[2 * i], cta_y * 100 + lane) << "thread " << i;
    EXPECT_EQ(v[2 * i + 1], (1u << lane) - 1) << "thread " << i;
  }
  uint64_t out2 = h.alloc(40 * 8);
  auto r2 = h.run("kb", {3, 1, 1}, {40, 1, 1}, Harness::Params().add(out2));  // all CTAs write the same
  ASSERT_TRUE(r2.ok()) << r2.report();
  auto u = h.download<uint32_t>(out2, 40 * 2);
  for (unsigned t = 0; t < 40; ++t) {
    EXPECT_EQ(u[2 * t], t / 32) << "thread " << t;  // %warpid: the warp of the CTA
    EXPECT_EQ(u[2 * t + 1], 3u * 1000 + t % 32) << "thread " << t;
  }
}

TEST(Engine, UnmappedStoreFaultsWithReport) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 7;
  st.global.u32 [%rd1+0], %r1;
  ret;
}
)"));
  auto r = h.run("k", {2, 1, 1}, {64, 1, 1}, Harness::Params().add(uint64_t(0x10)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalAddress);
  EXPECT_EQ(r.fault.address, 0x10u);
  EXPECT_EQ(r.fault.block.x, 0u);
  EXPECT_EQ(r.fault.thread.x, 0u);
  std::string rep = r.report();
  EXPECT_NE(rep.find("cudaErrorIllegalAddress"), std::string::npos) << rep;
  EXPECT_NE(rep.find("test.ptx:11"), std::string::npos) << rep;  // the st's PTX line
}

TEST(Engine, MisalignedLoadFaults) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1+2];
  ret;
}
)"));
  uint64_t buf = h.alloc(64);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(buf));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::MisalignedAddress);
  EXPECT_EQ(r.fault.address, buf + 2);
}

TEST(Engine, WriteToConstFaults) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.const .align 4 .u32 c[4] = {1, 2, 3, 4};
.visible .entry k()
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  mov.u64 %rd1, c;
  ld.const.u32 %r1, [c+8];
  st.u32 [%rd1], %r1;
  ret;
}
)"));
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::WriteToConst);
}

TEST(Engine, TrapIsReported) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + ".visible .entry k()\n{\ntrap;\nret;\n}\n"));
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Trap);
  EXPECT_EQ(func::fault_cuda_error(r.fault.kind), 719);
}

TEST(Engine, BarrierDeadlockIsDetected) {
  // Only even warps reach the barrier, which waits for every thread: never completes.
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r2, %r2, 1;
  setp.ne.u32 %p1, %r2, 0;
@%p1 bra SPIN;
  bar.sync 0;
  ret;
SPIN:
  bar.sync 1;
  ret;
}
)"));
  auto r = h.run("k", {1, 1, 1}, {128, 1, 1}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Deadlock);
  EXPECT_NE(r.fault.message.find("barrier"), std::string::npos) << r.fault.message;
}

// A cooperative launch: every CTA resident, %envreg1:%envreg2 the grid workspace's address (as
// cooperative_groups reads it). Each CTA's thread 0 adds 1 to the counter in the workspace and
// spins until all CTAs have arrived, then reads what the other CTAs wrote before the barrier.
// Run one CTA after another, CTA 0 would spin forever; co-resident CTAs take turns.
namespace {
const std::string kGridBarrier = kHead + R"(
.visible .entry gb(.param .u64 data, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %envreg1;
  mov.u32 %r2, %envreg2;
  mov.b64 %rd3, {%r2, %r1};
  setp.eq.s64 %p1, %rd3, 0;
  @%p1 trap;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %nctaid.x;
  mov.u32 %r5, %tid.x;
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s32 %r6, %r3, 100;
  st.global.u32 [%rd5], %r6;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra WAIT;
  add.s64 %rd6, %rd3, 4;
  atom.add.release.gpu.u32 %r7, [%rd6], 1;
SPIN:
  ld.acquire.gpu.u32 %r8, [%rd6];
  setp.lt.u32 %p2, %r8, %r4;
  @%p2 bra SPIN;
WAIT:
  bar.sync 0;
  add.s32 %r9, %r3, 1;
  rem.u32 %r9, %r9, %r4;
  mul.wide.u32 %rd7, %r9, 4;
  add.s64 %rd8, %rd1, %rd7;
  ld.global.u32 %r10, [%rd8];
  add.s64 %rd9, %rd2, %rd4;
  st.global.u32 [%rd9], %r10;
  exit;
}
)";
}  // namespace

TEST(Engine, CoResidentCtasPassAGridBarrier) {
  Harness h;
  ASSERT_TRUE(h.load(kGridBarrier));
  const uint32_t n = 7;
  uint64_t data = h.alloc(4 * n), out = h.alloc(4 * n), ws = h.alloc(16);
  func::LaunchConfig lc;
  lc.grid = {n, 1, 1};
  lc.block = {64, 1, 1};
  lc.co_resident = true;
  lc.envreg[1] = uint32_t(ws >> 32);
  lc.envreg[2] = uint32_t(ws);
  auto r = h.run("gb", lc, Harness::Params().add(data).add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto o = h.download<uint32_t>(out, n);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(o[i], (i + 1) % n + 100) << i;
  EXPECT_EQ(h.download<uint32_t>(ws + 4, 1)[0], n);
}

TEST(Engine, GridBarrierWithoutWorkspaceTraps) {
  Harness h;
  ASSERT_TRUE(h.load(kGridBarrier));
  uint64_t data = h.alloc(16), out = h.alloc(16);
  auto r = h.run("gb", {2, 1, 1}, {32, 1, 1}, Harness::Params().add(data).add(out));
  EXPECT_EQ(r.fault.kind, func::FaultKind::Trap);
}

// Co-resident CTAs that all wait at a barrier some of their threads never reach: a deadlock,
// reported, not a hang.
TEST(Engine, CoResidentDeadlockIsDetected) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra DONE;
  bar.sync 0, 64;
  bar.sync 1;
DONE:
  bar.sync 1, 64;
  exit;
}
)"));
  func::LaunchConfig lc;
  lc.grid = {3, 1, 1};
  lc.block = {64, 1, 1};
  lc.co_resident = true;
  auto r = h.run("k", lc, Harness::Params());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Deadlock) << r.report();
}

// Device-side malloc/free through the heap: 16-byte aligned blocks, first fit, coalescing, NULL
// when full, a bad free faults.
TEST(Engine, DeviceHeapMallocFree) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.extern .func (.param .b64 r) malloc(.param .b64 n);
.extern .func free(.param .b64 p);
.visible .entry k(.param .u64 out, .param .u64 n)
{
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [n];
  {
  .param .b64 a;
  st.param.b64 [a], %rd2;
  .param .b64 r;
  call.uni (r), malloc, (a);
  ld.param.b64 %rd3, [r];
  }
  st.global.u64 [%rd1], %rd3;
  exit;
}
.visible .entry f(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  {
  .param .b64 a;
  st.param.b64 [a], %rd1;
  call.uni free, (a);
  }
  exit;
}
)"));
  ASSERT_TRUE(h.eng.heap().set_capacity(4096));
  uint64_t out = h.alloc(8);
  auto malloc_ = [&](uint64_t n) {
    auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(out).add(n));
    EXPECT_TRUE(r.ok()) << r.report();
    return h.download<uint64_t>(out, 1)[0];
  };
  auto free_ = [&](uint64_t p) { return h.run("f", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(p)); };
  uint64_t a = malloc_(10), b = malloc_(100), c = malloc_(16);
  EXPECT_NE(a, 0u);
  EXPECT_EQ(a % 16, 0u);
  EXPECT_EQ(b, a + 16);   // 10 rounded to 16
  EXPECT_EQ(c, b + 112);  // 100 rounded to 112
  EXPECT_FALSE(h.eng.heap().set_capacity(1 << 20));  // in use
  EXPECT_EQ(malloc_(5000), 0u);                      // more than the heap
  ASSERT_TRUE(free_(a).ok());
  ASSERT_TRUE(free_(b).ok());
  EXPECT_EQ(malloc_(128), a);  // a and b coalesced
  auto bad = free_(b);         // b is inside the new block, not its start
  EXPECT_EQ(bad.fault.kind, func::FaultKind::IllegalAddress);
}

// The ld/st fast path (one element, register destination/source) keeps a lane's page between lanes:
// lanes alternating between two pages, sign extension of a narrow load, stores spread over three
// pages, and a misaligned lane in the middle of a warp (the fault names that lane's address).
TEST(Engine, GlobalLoadsAndStoresSwitchPagesBetweenLanes) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 out2)
{
  .reg .b64 %rd<12>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [out2];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  mul.wide.u32 %rd4, %r2, 65536;
  mul.wide.u32 %rd5, %r1, 2;
  add.s64 %rd6, %rd1, %rd4;
  add.s64 %rd6, %rd6, %rd5;
  ld.global.s16 %r3, [%rd6];
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd2, %rd7;
  st.global.u32 [%rd8], %r3;
  rem.u32 %r4, %r1, 3;
  mul.wide.u32 %rd9, %r4, 65536;
  add.s64 %rd10, %rd3, %rd9;
  add.s64 %rd10, %rd10, %rd7;
  add.u32 %r5, %r1, 1000;
  st.global.u32 [%rd10], %r5;
  ret;
}
.visible .entry bad(.param .u64 in)
{
  .reg .b64 %rd<6>;
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [in];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  setp.eq.u32 %p1, %r1, 17;
  selp.u64 %rd3, 2, 0, %p1;
  add.s64 %rd4, %rd1, %rd2;
  add.s64 %rd4, %rd4, %rd3;
  ld.global.u32 %r2, [%rd4];
  ret;
}
)"));
  const size_t page = 65536;
  ASSERT_EQ(h.mem.page_size(), page);
  std::vector<int16_t> src(page + 64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int16_t(int(i % 4001) * 17 - 30000);
  const uint64_t in = h.upload(src);
  const uint64_t out = h.alloc(32 * 4), out2 = h.alloc(3 * page);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(in).add(out).add(out2));
  ASSERT_TRUE(r.ok()) << r.report();
  const auto got = h.download<int32_t>(out, 32);
  const auto got2 = h.download<uint32_t>(out2, 3 * page / 4);
  for (unsigned t = 0; t < 32; ++t) {
    const size_t elem = (t % 2) * page / 2 + t;  // int16 index of (t % 2) * 64 KiB + 2t bytes
    EXPECT_EQ(got[t], int32_t(src[elem])) << "lane " << t;
    EXPECT_EQ(got2[((t % 3) * page + t * 4) / 4], 1000u + t) << "lane " << t;
  }
  auto b = h.run("bad", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(in));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.fault.kind, func::FaultKind::MisalignedAddress);
  EXPECT_EQ(b.fault.address, in + 17 * 4 + 2);
}

// A 32-bit address register plus an offset wraps at 2^32, as the hardware's 32-bit shared-memory
// address arithmetic does: front ends fold a negative index into the immediate, so [%r+508] with
// %r = -16 is address 492 (cuSOLVER's ipiv_lower_small does this; read as 64-bit it was
// 0x1_000001ec, out of range).
TEST(Engine, ThirtyTwoBitAddressRegisterWrapsWithItsOffset) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[512];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mul.lo.u32 %r5, %r1, 7;
  sub.u32 %r6, %r4, 64;          // 16 words below the thread's word: negative for threads 0-15
  st.shared.u32 [%r6+64], %r5;   // = s[tid]
  bar.sync 0;
  sub.u32 %r6, %r2, 16;          // s - 16 wraps to 0xfffffff0 + s
  add.u32 %r6, %r6, %r3;
  ld.shared.u32 %r7, [%r6+16];   // = s[tid]
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)"));
  uint64_t out = h.alloc(128 * 4);
  auto r = h.run("k", {1, 1, 1}, {128, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(v[t], t * 7) << "thread " << t;
}

// CTAs that wait for each other without a cooperative launch: a software grid barrier (every CTA
// adds to a counter, then spins with volatile loads until all have), as cuSPARSE's triangular
// solves use. The hardware honours it while the grid fits on the GPU at once; the engine runs the
// CTAs one after another until one overruns its solo budget, then lets the resident ones take
// turns. Without that, CTA 0 spun forever (here: until the instruction limit).
namespace {
const std::string kSoftwareGridBarrier = kHead + R"(
.visible .entry k(.param .u64 counter, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %nctaid.x;
  setp.ne.u32 %p1, %r1, 0;
@%p1 bra WAIT;
  membar.gl;
  atom.global.add.u32 %r4, [%rd1], 1;
WAIT:
  ld.volatile.global.u32 %r5, [%rd1];
  setp.lt.u32 %p1, %r5, %r3;
@%p1 bra WAIT;
  mad.lo.u32 %r6, %r2, 64, %r1;          // every thread writes after the barrier
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
  ret;
}
)";
}  // namespace

TEST(Engine, CtasThatFitOnTheGpuMayWaitForEachOther) {
  func::EngineConfig cfg;
  cfg.max_warp_instructions = uint64_t(1) << 26;  // a hang shows as the limit
  Harness h(cfg);
  ASSERT_TRUE(h.load(kSoftwareGridBarrier));
  const uint32_t ctas = 8;
  uint64_t counter = h.alloc(4), out = h.alloc(ctas * 64 * 4);
  func::LaunchConfig lc;
  lc.grid = {ctas, 1, 1};
  lc.block = {64, 1, 1};
  lc.resident_ctas = 16;  // the whole grid fits
  auto r = h.run("k", lc, Harness::Params().add(counter).add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, ctas * 64);
  for (uint32_t i = 0; i < ctas * 64; ++i) ASSERT_EQ(v[i], ctas) << "thread " << i;
}

TEST(Engine, CtasThatDoNotFitTogetherCannotPassASoftwareGridBarrier) {
  // As on the hardware, which hangs: 8 CTAs, 4 resident at once; the launch ends at the limit.
  func::EngineConfig cfg;
  cfg.max_warp_instructions = uint64_t(1) << 23;
  Harness h(cfg);
  ASSERT_TRUE(h.load(kSoftwareGridBarrier));
  uint64_t counter = h.alloc(4), out = h.alloc(8 * 64 * 4);
  func::LaunchConfig lc;
  lc.grid = {8, 1, 1};
  lc.block = {64, 1, 1};
  lc.resident_ctas = 4;
  auto r = h.run("k", lc, Harness::Params().add(counter).add(out));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::InstructionLimit);
  EXPECT_EQ(h.download<uint32_t>(counter, 1)[0], 4u);  // the resident four arrived, no more
}

// Dynamic parallelism's device runtime (CDP2 ABI, as nvcc -rdc=true emits it): each thread gets a
// parameter buffer for `child`, fills it and launches; the grid's result lists the launches with
// their configuration and parameters, in launch order, for the runtime to run after it. A buffer
// for something that is not a kernel is null, and launching an unknown buffer is an error.
TEST(Engine, DeviceLaunchesAreHandedToTheRuntime) {
  func::EngineConfig cfg;
  Harness h(cfg);
  ASSERT_TRUE(h.load(kHead + R"(
.extern .func (.param .b64 ret) __cudaCDP2GetParameterBufferV2(.param .b64 f, .param .align 4 .b8 g[12],
                                                                .param .align 4 .b8 b[12], .param .b32 smem);
.extern .func (.param .b32 ret) __cudaCDP2LaunchDeviceV2(.param .b64 buf, .param .b64 stream);
.visible .entry child(.param .u64 p, .param .u32 v) { ret; }
.visible .func helper() { ret; }
.visible .entry parent(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, child;
  {
  .param .b64 a0; .param .align 4 .b8 a1[12]; .param .align 4 .b8 a2[12]; .param .b32 a3; .param .b64 r0;
  st.param.b64 [a0], %rd2;
  add.u32 %r2, %r1, 1;
  st.param.b32 [a1], %r2; st.param.b32 [a1+4], 1; st.param.b32 [a1+8], 1;
  st.param.b32 [a2], 64; st.param.b32 [a2+4], 2; st.param.b32 [a2+8], 1;
  st.param.b32 [a3], 256;
  call.uni (r0), __cudaCDP2GetParameterBufferV2, (a0, a1, a2, a3);
  ld.param.b64 %rd3, [r0];
  }
  st.u64 [%rd3], %rd1;
  mul.lo.u32 %r3, %r1, 10;
  st.u32 [%rd3+8], %r3;
  {
  .param .b64 b0; .param .b64 b1; .param .b32 s0;
  st.param.b64 [b0], %rd3; st.param.b64 [b1], 0;
  call.uni (s0), __cudaCDP2LaunchDeviceV2, (b0, b1);
  ld.param.b32 %r4, [s0];
  }
  // a buffer for a device function (not a kernel) is null; launching a bogus buffer fails
  mov.u64 %rd4, helper;
  {
  .param .b64 a0; .param .align 4 .b8 a1[12]; .param .align 4 .b8 a2[12]; .param .b32 a3; .param .b64 r0;
  st.param.b64 [a0], %rd4;
  st.param.b32 [a1], 1; st.param.b32 [a1+4], 1; st.param.b32 [a1+8], 1;
  st.param.b32 [a2], 1; st.param.b32 [a2+4], 1; st.param.b32 [a2+8], 1;
  st.param.b32 [a3], 0;
  call.uni (r0), __cudaCDP2GetParameterBufferV2, (a0, a1, a2, a3);
  ld.param.b64 %rd5, [r0];
  }
  {
  .param .b64 b0; .param .b64 b1; .param .b32 s0;
  st.param.b64 [b0], 4096; st.param.b64 [b1], 0;
  call.uni (s0), __cudaCDP2LaunchDeviceV2, (b0, b1);
  ld.param.b32 %r5, [s0];
  }
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r4;
  st.global.u32 [%rd7+4], %r5;
  st.global.u64 [%rd7+8], %rd5;
  ret;
}
)"));
  uint64_t out = h.alloc(4 * 16);
  auto r = h.run("parent", {1, 1, 1}, {4, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 16);
  for (unsigned t = 0; t < 4; ++t) {
    EXPECT_EQ(v[t * 4 + 0], 0u) << "launch status of thread " << t;
    EXPECT_EQ(v[t * 4 + 1], 1u) << "an unknown buffer: cudaErrorInvalidValue";
    EXPECT_EQ(v[t * 4 + 2] | v[t * 4 + 3], 0u) << "no buffer for a non-kernel";
  }
  ASSERT_EQ(r.children.size(), 4u);
  for (unsigned t = 0; t < 4; ++t) {
    const func::ChildGrid& c = r.children[t];
    EXPECT_EQ(c.kernel, "child");
    EXPECT_EQ(c.grid.x, t + 1);
    EXPECT_EQ(c.block.x, 64u);
    EXPECT_EQ(c.block.y, 2u);
    EXPECT_EQ(c.dynamic_smem, 256u);
    ASSERT_EQ(c.params.size(), 12u);
    uint64_t p;
    uint32_t val;
    std::memcpy(&p, c.params.data(), 8);
    std::memcpy(&val, c.params.data() + 8, 4);
    EXPECT_EQ(p, out);
    EXPECT_EQ(val, t * 10);
  }
}

// From sm_80 the hardware reserves 1 KiB at the start of every CTA's shared window: user .shared
// starts at 1024 and the %reserved_smem_offset registers read 0/288/1024/0 (our H100, sm_80 and
// sm_90 code: validation/cccl/probes/h100/resv_smem_sm80.out); cooperative groups keeps the barriers
// of thread_block_tile<64+> at %reserved_smem_offset_1, so that region must be there to store to.
// An sm_70 module has no reserved region.
TEST(Engine, ReservedSharedMemoryFromSm80) {
  for (int sm : {80, 90, 70}) {
    SCOPED_TRACE("sm_" + std::to_string(sm));
    Harness h;
    ASSERT_TRUE(h.load(".version 8.7\n.target sm_" + std::to_string(sm) + "\n.address_size 64\n" + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 buf[8];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %reserved_smem_offset_begin;
  mov.u32 %r2, %reserved_smem_offset_end;
  mov.u32 %r3, %reserved_smem_offset_cap;
  mov.u32 %r4, %reserved_smem_offset_1;
  mov.u32 %r5, buf;
  st.shared.u32 [%r4+4], 77;
  ld.shared.u32 %r6, [%r4+4];
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v2.u32 [%rd1+16], {%r5, %r6};
  exit;
}
)"));
    uint64_t out = h.alloc(32);
    auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(out));
    if (sm == 70) {
      // no region: offset_1 is 0 and address 4 lies in buf (32 bytes of shared memory)
      ASSERT_TRUE(r.ok()) << r.report();
      auto v = h.download<uint32_t>(out, 6);
      EXPECT_EQ(v[0] + v[1] + v[2] + v[3] + v[4], 0u);
      EXPECT_EQ(v[5], 77u);
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.report();
    auto v = h.download<uint32_t>(out, 6);
    EXPECT_EQ(v[0], 0u);
    EXPECT_EQ(v[1], 288u);
    EXPECT_EQ(v[2], 1024u);
    EXPECT_EQ(v[3], 0u);
    EXPECT_EQ(v[4], 1024u);  // user .shared after the reserved region
    EXPECT_EQ(v[5], 77u);
  }
}
