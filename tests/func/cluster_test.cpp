// Thread-block clusters: the cluster special registers, the shared::cluster address mapping (mapa,
// getctarank, loads/stores/atomics reaching another CTA's shared memory), barrier.cluster phases
// (arrive/wait, exited threads, a wait without an arrive), an arrive on another CTA's mbarrier, and
// the deadlock report of a cluster whose threads all wait.
#include <gtest/gtest.h>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";
#define RUN_OK(r) ASSERT_TRUE((r).ok()) << (r).report()

func::LaunchConfig cluster_launch(func::Dim3 grid, func::Dim3 block, func::Dim3 cluster) {
  func::LaunchConfig lc;
  lc.grid = grid;
  lc.block = block;
  lc.cluster = cluster;
  lc.explicit_cluster = true;
  return lc;
}

// Thread 0 of every CTA writes its cluster registers (10 words) at out + 48 * linear block id.
TEST(Cluster, SpecialRegisters) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 exit;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ctaid.y;
  mov.u32 %r4, %nctaid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mul.wide.u32 %rd1, %r5, 48;
  ld.param.u64 %rd2, [out];
  add.s64 %rd3, %rd2, %rd1;
  mov.u32 %r6, %cluster_ctarank;
  mov.u32 %r7, %cluster_nctarank;
  mov.u32 %r8, %cluster_ctaid.x;
  mov.u32 %r9, %cluster_ctaid.y;
  mov.u32 %r10, %cluster_nctaid.x;
  mov.u32 %r11, %cluster_nctaid.y;
  mov.u32 %r12, %clusterid.x;
  mov.u32 %r13, %clusterid.y;
  mov.u32 %r14, %nclusterid.x;
  mov.pred %p2, %is_explicit_cluster;
  selp.u32 %r15, 1, 0, %p2;
  st.global.v4.u32 [%rd3], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd3+16], {%r10, %r11, %r12, %r13};
  st.global.v2.u32 [%rd3+32], {%r14, %r15};
  ret;
}
)"));
  uint64_t out = h.alloc(8 * 48);
  auto r = h.run("k", cluster_launch({4, 2, 1}, {64, 1, 1}, {2, 2, 1}), Harness::Params().add(out));
  RUN_OK(r);
  auto v = h.download<uint32_t>(out, 8 * 12);
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      const uint32_t* w = &v[(y * 4 + x) * 12];
      SCOPED_TRACE("block " + std::to_string(x) + "," + std::to_string(y));
      EXPECT_EQ(w[0], x % 2 + 2 * (y % 2));  // rank
      EXPECT_EQ(w[1], 4u);
      EXPECT_EQ(w[2], x % 2);
      EXPECT_EQ(w[3], y % 2);
      EXPECT_EQ(w[4], 2u);
      EXPECT_EQ(w[5], 2u);
      EXPECT_EQ(w[6], x / 2);
      EXPECT_EQ(w[7], y / 2);
      EXPECT_EQ(w[8], 2u);
      EXPECT_EQ(w[9], 1u);
    }
  // Without clusters: one CTA per cluster, not explicit.
  auto r2 = h.run("k", {4, 2, 1}, {64, 1, 1}, Harness::Params().add(out));
  RUN_OK(r2);
  v = h.download<uint32_t>(out, 8 * 12);
  EXPECT_EQ(v[12 * 5 + 0], 0u);
  EXPECT_EQ(v[12 * 5 + 1], 1u);
  EXPECT_EQ(v[12 * 5 + 6], 1u);  // %clusterid.x of block (1,1)
  EXPECT_EQ(v[12 * 5 + 9], 0u);
}

// mapa gives (rank + 1) << 24 | offset for shared::cluster addresses and the generic window plus
// that for generic ones; getctarank inverts it (and names the CTA itself for its own addresses);
// loads, stores and atomics through those addresses reach the owning CTA's shared memory.
TEST(Cluster, SharedClusterAddressMapping) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .reg .pred %p<3>;
  .shared .align 8 .b32 buf[64];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mov.u32 %r4, buf;
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r4, %r5;
  mad.lo.u32 %r7, %r2, 100, %r1;
  st.shared.u32 [%r6], %r7;                    // buf[t] = 100 * rank + t
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  add.u32 %r8, %r2, 1;
  rem.u32 %r9, %r8, %r3;                       // the next rank
  mapa.shared::cluster.u32 %r10, %r6, %r9;
  ld.shared::cluster.u32 %r11, [%r10];         // next rank's buf[t]
  getctarank.shared::cluster.u32 %r12, %r10;
  getctarank.shared::cluster.u32 %r13, %r6;
  cvta.shared.u64 %rd1, %r6;
  mapa.u64 %rd2, %rd1, %r9;
  ld.u32 %r14, [%rd2];                         // the same through a generic address
  getctarank.u64 %r15, %rd2;
  mapa.shared::cluster.u32 %r16, %r4, 0;
  atom.shared::cluster.add.u32 %r17, [%r16+128], 1;   // count every thread of the cluster at rank 0
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.shared.u32 %r18, [buf+128];
  ld.param.u64 %rd3, [out];
  mov.u32 %r19, %ctaid.x;
  mad.lo.u32 %r20, %r19, 64, %r1;
  mul.wide.u32 %rd4, %r20, 32;
  add.s64 %rd5, %rd3, %rd4;
  st.global.v4.u32 [%rd5], {%r10, %r11, %r12, %r13};
  sub.s64 %rd6, %rd2, %rd1;
  cvt.u32.u64 %r21, %rd6;
  st.global.v4.u32 [%rd5+16], {%r14, %r15, %r18, %r21};
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)"));
  uint64_t out = h.alloc(8 * 64 * 32);
  auto r = h.run("k", cluster_launch({8, 1, 1}, {32, 1, 1}, {4, 1, 1}), Harness::Params().add(out));
  RUN_OK(r);
  auto v = h.download<uint32_t>(out, 8 * 64 * 8);
  for (uint32_t b = 0; b < 8; ++b)
    for (uint32_t t = 0; t < 32; ++t) {
      const uint32_t* w = &v[(b * 64 + t) * 8];
      const uint32_t rank = b % 4, next = (rank + 1) % 4;
      SCOPED_TRACE("block " + std::to_string(b) + " thread " + std::to_string(t));
      EXPECT_EQ(w[0], ((next + 1) << 24) | (1024 + 4 * t));  // buf follows the 1 KiB reserved region
      EXPECT_EQ(w[1], 100 * next + t);
      EXPECT_EQ(w[2], next);
      EXPECT_EQ(w[3], rank);
      EXPECT_EQ(w[4], 100 * next + t);
      EXPECT_EQ(w[5], next);
      EXPECT_EQ(w[6], rank == 0 ? 4u * 32 : 0u);  // buf[32] of rank 0 counted every thread of the cluster
      EXPECT_EQ(w[7], (next + 1) << 24);
    }
}

// An address of a rank outside the cluster faults, naming it.
TEST(Cluster, RankOutsideTheClusterFaults) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<5>;
  .shared .align 4 .b32 buf[4];
  mov.u32 %r1, buf;
  mapa.shared::cluster.u32 %r2, %r1, 2;
  ret;
}
.visible .entry k2()
{
  .reg .b32 %r<5>;
  mov.u32 %r1, 0x3000000;
  ld.shared::cluster.u32 %r2, [%r1];
  ret;
}
)"));
  auto r = h.run("k", cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}), Harness::Params());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.fault.message.find("mapa to CTA rank 2 of a cluster of 2"), std::string::npos) << r.fault.message;
  auto r2 = h.run("k2", cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}), Harness::Params());
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.fault.kind, func::FaultKind::IllegalAddress);
  EXPECT_NE(r2.fault.message.find("CTA rank 2 is outside the cluster of 2"), std::string::npos) << r2.fault.message;
}

// Phases of the cluster barrier: in phase p every CTA writes p * 1000 + rank into its slot, and
// after the barrier reads the previous rank's slot, which must hold this phase's value. Threads
// that exit early (all but warp 0 of odd ranks, before the loop) do not hold the barrier back.
TEST(Cluster, BarrierPhases) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  and.b32 %r4, %r2, 1;
  setp.ne.u32 %p1, %r4, 0;
  setp.ge.u32 %p2, %r1, 32;
  and.pred %p3, %p1, %p2;
  @%p3 exit;
  add.u32 %r5, %r2, %r3;
  sub.u32 %r6, %r5, 1;
  rem.u32 %r7, %r6, %r3;           // previous rank
  mov.u32 %r8, slot;
  mapa.shared::cluster.u32 %r9, %r8, %r7;
  mov.u32 %r10, 0;                 // phase
  mov.u32 %r20, 0;                 // mismatches
LOOP:
  setp.eq.u32 %p1, %r1, 0;
  mad.lo.u32 %r11, %r10, 1000, %r2;
  @%p1 st.shared.u32 [slot], %r11;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  ld.shared::cluster.u32 %r12, [%r9];
  mad.lo.u32 %r13, %r10, 1000, %r7;
  setp.ne.u32 %p2, %r12, %r13;
  selp.u32 %r14, 1, 0, %p2;
  add.u32 %r20, %r20, %r14;
  barrier.cluster.arrive.relaxed;
  barrier.cluster.wait;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p1, %r10, 5;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  atom.global.add.u32 %r21, [%rd1], %r20;
  ret;
}
)"));
  uint64_t out = h.alloc(4);
  h.mem.host_write(out, std::vector<uint32_t>{0}.data(), 4);
  auto r = h.run("k", cluster_launch({16, 1, 1}, {128, 1, 1}, {8, 1, 1}), Harness::Params().add(out));
  RUN_OK(r);
  EXPECT_EQ(h.download<uint32_t>(out, 1)[0], 0u);
}

TEST(Cluster, WaitWithoutArriveFaults) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  barrier.cluster.wait;
  ret;
}
)"));
  auto r = h.run("k", cluster_launch({2, 1, 1}, {32, 1, 1}, {2, 1, 1}), Harness::Params());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalInstruction);
  EXPECT_NE(r.fault.message.find("has not arrived"), std::string::npos) << r.fault.message;
}

// Rank 0 initialises an mbarrier for nctarank - 1 arrivals; every other rank arrives on it through
// a shared::cluster address; rank 0's thread waiting in try_wait is woken by the last of them.
// Then rank 1 waits on an mbarrier nobody arrives at while the others wait at the cluster
// barrier: the cluster deadlocks, and the report names both waits.
TEST(Cluster, RemoteMbarrierArriveAndDeadlock) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out, .param .u32 hang)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<6>;
  .reg .pred %p<4>;
  .shared .align 8 .b64 bar;
  .shared .align 8 .b64 bar2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mov.u32 %r4, bar;
  setp.eq.u32 %p1, %r1, 0;
  sub.u32 %r5, %r3, 1;
  @%p1 mbarrier.init.shared::cta.b64 [%r4], %r5;
  @%p1 mbarrier.init.shared::cta.b64 [bar2], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.ne.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  mapa.shared::cluster.u32 %r6, %r4, 0;
  @%p3 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  @!%p3 bra DONE;
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [%r4], 0;
  @!%p2 bra WAIT;
  ld.param.u64 %rd1, [out];
  mov.u32 %r7, %clusterid.x;
  mul.wide.u32 %rd2, %r7, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
DONE:
  ld.param.u32 %r8, [hang];
  setp.ne.u32 %p1, %r8, 0;
  setp.eq.u32 %p2, %r2, 1;
  and.pred %p3, %p1, %p2;
  @!%p3 bra END;
HANG:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar2], 0;
  @!%p2 bra HANG;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)"));
  uint64_t out = h.alloc(16);
  auto r = h.run("k", cluster_launch({8, 1, 1}, {64, 1, 1}, {4, 1, 1}), Harness::Params().add(out).add(uint32_t(0)));
  RUN_OK(r);
  auto v = h.download<uint32_t>(out, 2);
  EXPECT_EQ(v[0], 4u);
  EXPECT_EQ(v[1], 4u);
  auto r2 = h.run("k", cluster_launch({4, 1, 1}, {64, 1, 1}, {4, 1, 1}), Harness::Params().add(out).add(uint32_t(1)));
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.fault.kind, func::FaultKind::Deadlock);
  EXPECT_NE(r2.fault.message.find("and of its cluster"), std::string::npos) << r2.fault.message;
}

// A grid that is not a whole number of clusters is refused before any CTA runs.
TEST(Cluster, GridNotAMultipleIsRefused) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + ".visible .entry k() { ret; }\n"));
  auto r = h.run("k", cluster_launch({6, 1, 1}, {32, 1, 1}, {4, 1, 1}), Harness::Params());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.fault.message.find("not a whole number of clusters"), std::string::npos) << r.fault.message;
}

}  // namespace
