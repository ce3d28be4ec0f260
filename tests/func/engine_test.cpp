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
