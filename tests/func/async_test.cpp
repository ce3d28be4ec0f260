// cp.async and mbarrier: copies of 4/8/16 bytes with src-size zero fill and ignore-src, commit
// groups and wait_group/wait_all, mbarrier phases with counts, tokens and parities, tx-counts,
// arrive_drop, a producer/consumer pipeline across warps, and deadlock reports.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

std::string subst(std::string s, const std::string& key, const std::string& val) {
  for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + val.size())) s.replace(p, key.size(), val);
  return s;
}

#define RUN_OK(r) ASSERT_TRUE((r).ok()) << (r).report()

// Lane t copies SIZE bytes from in + t*SIZE to shared (pre-filled with 0xAA) with src-size
// t % (SIZE+1); after wait_group 0 the shared buffer is copied to out.
const char* kCopyKernel = R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  // fill shared with 0xAA (16 bytes per lane)
  shl.b32 %r3, %r1, 4;
  add.s32 %r4, %r2, %r3;
  mov.b32 %r5, 0xAAAAAAAA;
  st.shared.v4.b32 [%r4], {%r5, %r5, %r5, %r5};
  bar.sync 0;
  mul.lo.u32 %r6, %r1, SIZE;
  add.s32 %r7, %r2, %r6;
  cvt.u64.u32 %rd3, %r6;
  add.s64 %rd4, %rd1, %rd3;
  rem.u32 %r8, %r1, SIZEP1;
  cp.async.CACHE.shared.global [%r7], [%rd4], SIZE, %r8;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  ld.shared.v4.b32 {%r8, %r9, %r10, %r11}, [%r4];
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.b32 [%rd6], {%r8, %r9, %r10, %r11};
  ret;
}
)";

void copy_sizes(unsigned size, const char* cache) {
  SCOPED_TRACE(std::to_string(size) + " " + cache);
  Harness h;
  std::string text = subst(subst(subst(kCopyKernel, "SIZEP1", std::to_string(size + 1)), "SIZE", std::to_string(size)),
                           "CACHE", cache);
  ASSERT_TRUE(h.load(kHead + text));
  std::vector<uint8_t> in(512);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 7 + 3);
  uint64_t din = h.upload(in), dout = h.alloc(512);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
  RUN_OK(r);
  auto out = h.download<uint8_t>(dout, 512);
  std::vector<uint8_t> ref(512, 0xAA);
  for (unsigned t = 0; t < 32; ++t) {
    unsigned ss = t % (size + 1);
    for (unsigned j = 0; j < size; ++j) ref[t * size + j] = j < ss ? in[t * size + j] : 0;
  }
  EXPECT_EQ(out, ref);
}

TEST(CpAsync, CopySizesWithZeroFill) {
  copy_sizes(4, "ca");
  copy_sizes(8, "ca");
  copy_sizes(16, "ca");
  copy_sizes(16, "cg");
}

TEST(CpAsync, IgnoreSrcAndCacheHint) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  .shared .align 16 .b32 buf[64];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  mov.b32 %r5, 0xAAAAAAAA;
  st.shared.b32 [%r4], %r5;
  st.shared.b32 [%r4+128], %r5;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  and.b32 %r6, %r1, 1;
  setp.ne.u32 %p1, %r6, 0;
  cp.async.ca.shared.global [%r4], [%rd4], 4, %p1;
  createpolicy.fractional.L2::evict_last.b64 %rd7, 1.0;
  cp.async.ca.shared.global.L2::cache_hint [%r4+128], [%rd4], 4, 4, %rd7;
  cp.async.wait_all;
  ld.shared.b32 %r7, [%r4];
  ld.shared.b32 %r8, [%r4+128];
  add.s64 %rd5, %rd2, %rd3;
  st.global.b32 [%rd5], %r7;
  st.global.b32 [%rd5+128], %r8;
  ret;
}
)"));
  std::vector<uint32_t> in(32);
  for (unsigned i = 0; i < 32; ++i) in[i] = 1000 + i;
  uint64_t din = h.upload(in), dout = h.alloc(256);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
  RUN_OK(r);
  auto out = h.download<uint32_t>(dout, 64);
  for (unsigned t = 0; t < 32; ++t) {
    EXPECT_EQ(out[t], (t & 1) ? 0u : 1000 + t) << t;
    EXPECT_EQ(out[32 + t], 1000 + t) << t;
  }
}

// Each thread: copy A (group 0), commit, copy B (group 1), commit, copy C (uncommitted).
// wait_group 1 must complete A; wait_group 0 must complete B; wait_all must complete C.
TEST(CpAsync, WaitGroupCompletesOlderGroups) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b32 buf[96];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r4], [%rd4], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4+128], [%rd4+128], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4+256], [%rd4+256], 4;
  cp.async.wait_group 1;
  ld.shared.b32 %r5, [%r4];
  cp.async.wait_group 0;
  ld.shared.b32 %r6, [%r4+128];
  cp.async.wait_all;
  ld.shared.b32 %r7, [%r4+256];
  mul.wide.u32 %rd5, %r1, 12;
  add.s64 %rd6, %rd2, %rd5;
  st.global.b32 [%rd6], %r5;
  st.global.b32 [%rd6+4], %r6;
  st.global.b32 [%rd6+8], %r7;
  ret;
}
)"));
  std::vector<uint32_t> in(96);
  for (unsigned i = 0; i < 96; ++i) in[i] = 7 * i + 1;
  uint64_t din = h.upload(in), dout = h.alloc(96 * 4);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
  RUN_OK(r);
  auto out = h.download<uint32_t>(dout, 96);
  for (unsigned t = 0; t < 32; ++t) {
    EXPECT_EQ(out[t * 3], in[t]) << t;
    EXPECT_EQ(out[t * 3 + 1], in[32 + t]) << t;
    EXPECT_EQ(out[t * 3 + 2], in[64 + t]) << t;
  }
}

// One thread: init count 3; arrive (token s0, pending 2); test_wait s0 false; arrive with count 2
// completes phase 0; test_wait s0 true; parity 0 true, parity 1 false; a second phase with three
// single arrivals; inval.
TEST(Mbarrier, PhasesCountsAndTokens) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  .reg .pred %p<12>;
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, mb;
  mbarrier.init.shared::cta.b64 [%r1], 3;
  mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r1];
  mbarrier.pending_count.b64 %r2, %rd2;
  mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;
  selp.u32 %r3, 1, 0, %p1;
  mbarrier.arrive.shared.b64 %rd3, [%r1], 2;
  mbarrier.pending_count.b64 %r4, %rd3;
  mbarrier.test_wait.shared.b64 %p2, [%r1], %rd2;
  selp.u32 %r5, 1, 0, %p2;
  mbarrier.test_wait.parity.shared.b64 %p3, [%r1], 0;
  selp.u32 %r6, 1, 0, %p3;
  mbarrier.test_wait.parity.shared.b64 %p4, [%r1], 1;
  selp.u32 %r7, 1, 0, %p4;
  // phase 1: three single arrivals (generic address)
  mov.u64 %rd6, mb;
  cvta.shared.u64 %rd4, %rd6;
  mbarrier.arrive.b64 %rd7, [%rd4];
  mbarrier.arrive.b64 %rd7, [%rd4];
  mbarrier.test_wait.parity.b64 %p5, [%rd4], 1;
  selp.u32 %r8, 1, 0, %p5;
  mbarrier.arrive.b64 %rd8, [%rd4];
  mbarrier.test_wait.b64 %p6, [%rd4], %rd7;
  selp.u32 %r9, 1, 0, %p6;
  mbarrier.try_wait.parity.shared.b64 %p7, [%r1], 1;
  selp.u32 %r10, 1, 0, %p7;
  mbarrier.test_wait.parity.shared.b64 %p8, [%r1], 0;
  selp.u32 %r11, 1, 0, %p8;
  mbarrier.inval.shared.b64 [%r1];
  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
  st.global.v4.u32 [%rd1+16], {%r6, %r7, %r8, %r9};
  st.global.v2.u32 [%rd1+32], {%r10, %r11};
  ret;
}
)"));
  uint64_t dout = h.alloc(64);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(dout));
  RUN_OK(r);
  auto o = h.download<uint32_t>(dout, 10);
  EXPECT_EQ(o[0], 2u);  // pending after the first arrival
  EXPECT_EQ(o[1], 0u);  // phase 0 not complete yet
  EXPECT_EQ(o[2], 0u);  // pending in the completing arrival's token
  EXPECT_EQ(o[3], 1u);  // phase 0 complete
  EXPECT_EQ(o[4], 1u);  // parity 0 completed
  EXPECT_EQ(o[5], 0u);  // parity 1 (the current phase) not complete
  EXPECT_EQ(o[6], 0u);  // phase 1 after two of three arrivals
  EXPECT_EQ(o[7], 1u);  // phase 1 complete
  EXPECT_EQ(o[8], 1u);  // try_wait on the completed phase
  EXPECT_EQ(o[9], 0u);  // phase 2 (parity 0) is current: not complete
}

// 96 threads (3 warps) arrive on a barrier initialised for 96 and block in try_wait with their
// tokens; each thread then records its token's pending count; done three times (phases 0, 1, 0).
TEST(Mbarrier, ManyThreadsTryWait) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  .reg .pred %p<12>;
  .shared .align 8 .b64 mb;
  .shared .align 4 .b32 cnt;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, mb;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [%r2], 96;
  st.shared.u32 [cnt], 0;
SKIP:
  bar.sync 0;
  mov.u32 %r10, 0;
LOOP:
  atom.shared.add.u32 %r3, [cnt], 1;
  mbarrier.arrive.shared.b64 %rd2, [%r2];
WAIT:
  mbarrier.try_wait.shared.b64 %p2, [%r2], %rd2, 1000;
  @!%p2 bra WAIT;
  // everyone arrived: cnt must be 96 * (round + 1)
  ld.shared.u32 %r4, [cnt];
  mul.lo.u32 %r5, %r10, 96;
  add.u32 %r5, %r5, 96;
  setp.eq.u32 %p3, %r4, %r5;
  selp.u32 %r6, 1, 0, %p3;
  mad.lo.u32 %r7, %r10, 96, %r1;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r6;
  bar.sync 0;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p4, %r10, 3;
  @%p4 bra LOOP;
  ret;
}
)"));
  uint64_t dout = h.alloc(3 * 96 * 4);
  auto r = h.run("k", {2, 1, 1}, {96, 1, 1}, Harness::Params().add(dout));
  RUN_OK(r);
  auto o = h.download<uint32_t>(dout, 3 * 96);
  for (unsigned i = 0; i < o.size(); ++i) EXPECT_EQ(o[i], 1u) << i;
}

TEST(Mbarrier, ExpectTxCompleteTxAndArriveDrop) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  .reg .pred %p<12>;
  .shared .align 8 .b64 mb[2];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, mb;
  mbarrier.init.shared.b64 [%r1], 1;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 100;
  mbarrier.arrive.shared.b64 %rd2, [%r1];
  mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 0;
  selp.u32 %r2, 1, 0, %p1;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 60;
  mbarrier.test_wait.parity.shared.b64 %p2, [%r1], 0;
  selp.u32 %r3, 1, 0, %p2;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 40;
  mbarrier.test_wait.shared.b64 %p3, [%r1], %rd2;
  selp.u32 %r4, 1, 0, %p3;
  // arrive.expect_tx: phase 1 needs 16 more bytes
  mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r1], 16;
  mbarrier.test_wait.parity.shared.b64 %p4, [%r1], 1;
  selp.u32 %r5, 1, 0, %p4;
  mbarrier.complete_tx.shared.b64 [%r1], 16;
  mbarrier.test_wait.parity.shared.b64 %p5, [%r1], 1;
  selp.u32 %r6, 1, 0, %p5;
  // arrive_drop: count 3; one drop + two arrivals complete phase 0, then two arrivals suffice
  add.u32 %r7, %r1, 8;
  mbarrier.init.shared.b64 [%r7], 3;
  mbarrier.arrive_drop.shared.b64 %rd4, [%r7];
  mbarrier.arrive.shared.b64 %rd4, [%r7];
  mbarrier.arrive.shared.b64 %rd4, [%r7];
  mbarrier.test_wait.parity.shared.b64 %p6, [%r7], 0;
  selp.u32 %r8, 1, 0, %p6;
  mbarrier.arrive.shared.b64 %rd5, [%r7];
  mbarrier.pending_count.b64 %r9, %rd5;
  mbarrier.arrive.shared.b64 %rd5, [%r7];
  mbarrier.test_wait.parity.shared.b64 %p7, [%r7], 1;
  selp.u32 %r10, 1, 0, %p7;
  // noComplete with count: 2 of 2 pending would complete it; 1 does not
  mbarrier.arrive.noComplete.shared.b64 %rd6, [%r7], 1;
  mbarrier.pending_count.b64 %r11, %rd6;
  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
  st.global.v4.u32 [%rd1+16], {%r6, %r8, %r9, %r10};
  st.global.u32 [%rd1+32], %r11;
  ret;
}
)"));
  uint64_t dout = h.alloc(64);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(dout));
  RUN_OK(r);
  auto o = h.download<uint32_t>(dout, 9);
  EXPECT_EQ(o[0], 0u);  // arrivals done, 100 bytes outstanding
  EXPECT_EQ(o[1], 0u);  // 40 bytes outstanding
  EXPECT_EQ(o[2], 1u);  // complete
  EXPECT_EQ(o[3], 0u);  // arrive.expect_tx: 16 bytes outstanding
  EXPECT_EQ(o[4], 1u);
  EXPECT_EQ(o[5], 1u);  // drop + 2 arrivals complete phase 0
  EXPECT_EQ(o[6], 1u);  // expected count is now 2: one arrival leaves 1 pending
  EXPECT_EQ(o[7], 1u);  // two arrivals complete phase 1
  EXPECT_EQ(o[8], 1u);  // noComplete arrival of 1 leaves 1 pending
}

// Producer warp 0 copies 32 ints per step into one of two stages with cp.async and signals
// full[s] through cp.async.mbarrier.arrive.noinc; consumer warp 1 waits on full[s], doubles the
// values into out and signals empty[s]. 16 steps: every stage is reused 8 times.
TEST(Mbarrier, ProducerConsumerPipeline) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .reg .pred %p<12>;
  .shared .align 8 .b64 full[2];
  .shared .align 8 .b64 empty[2];
  .shared .align 16 .b32 buf[64];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;           // lane
  shr.u32 %r3, %r1, 5;            // warp
  mov.u32 %r4, full;
  mov.u32 %r5, empty;
  mov.u32 %r6, buf;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared.b64 [%r4], 32;
  mbarrier.init.shared.b64 [%r4+8], 32;
  mbarrier.init.shared.b64 [%r5], 32;
  mbarrier.init.shared.b64 [%r5+8], 32;
INIT_DONE:
  bar.sync 0;
  mov.u32 %r10, 0;                // step i
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra CONSUMER;
PRODUCER:
  and.b32 %r11, %r10, 1;          // stage
  shr.u32 %r12, %r10, 1;
  and.b32 %r12, %r12, 1;
  xor.b32 %r13, %r12, 1;          // parity to wait on empty[s]: the previous phase
  shl.b32 %r14, %r11, 3;
  add.s32 %r15, %r5, %r14;        // &empty[s]
  add.s32 %r16, %r4, %r14;        // &full[s]
PWAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r15], %r13;
  @!%p3 bra PWAIT;
  shl.b32 %r17, %r11, 7;
  add.s32 %r18, %r6, %r17;
  shl.b32 %r19, %r2, 2;
  add.s32 %r18, %r18, %r19;       // &buf[s][lane]
  shl.b32 %r20, %r10, 5;
  add.s32 %r20, %r20, %r2;
  mul.wide.u32 %rd3, %r20, 4;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r18], [%rd4], 4;
  cp.async.mbarrier.arrive.noinc.shared.b64 [%r16];
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p4, %r10, 16;
  @%p4 bra PRODUCER;
  ret;
CONSUMER:
  and.b32 %r11, %r10, 1;
  shr.u32 %r12, %r10, 1;
  and.b32 %r12, %r12, 1;          // parity to wait on full[s]
  shl.b32 %r14, %r11, 3;
  add.s32 %r15, %r5, %r14;
  add.s32 %r16, %r4, %r14;
CWAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r16], %r12;
  @!%p3 bra CWAIT;
  shl.b32 %r17, %r11, 7;
  add.s32 %r18, %r6, %r17;
  shl.b32 %r19, %r2, 2;
  add.s32 %r18, %r18, %r19;
  ld.shared.u32 %r21, [%r18];
  shl.b32 %r21, %r21, 1;
  shl.b32 %r20, %r10, 5;
  add.s32 %r20, %r20, %r2;
  mul.wide.u32 %rd3, %r20, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r21;
  mbarrier.arrive.shared.b64 %rd5, [%r15];
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p4, %r10, 16;
  @%p4 bra CONSUMER;
  ret;
}
)"));
  std::vector<uint32_t> in(16 * 32);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = i * 3 + 11;
  uint64_t din = h.upload(in), dout = h.alloc(in.size() * 4);
  auto r = h.run("k", {3, 1, 1}, {64, 1, 1}, Harness::Params().add(din).add(dout));
  RUN_OK(r);
  auto o = h.download<uint32_t>(dout, in.size());
  for (unsigned i = 0; i < in.size(); ++i) EXPECT_EQ(o[i], in[i] * 2) << i;
}

// Every thread waits on a phase that needs one more arrival than there are arrivals.
TEST(Mbarrier, DeadlockIsReported) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  .shared .align 8 .b64 mb;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, mb;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [%r2], 65;
SKIP:
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
WAIT:
  mbarrier.try_wait.shared.b64 %p2, [%r2], %rd1;
  @!%p2 bra WAIT;
  ret;
}
)"));
  auto r = h.run("k", {1, 1, 1}, {64, 1, 1}, Harness::Params());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Deadlock);
  EXPECT_NE(r.fault.message.find("mbarrier"), std::string::npos) << r.fault.message;
}

// Mixed: warp 0 waits on an mbarrier nobody completes while warp 1 waits at bar.sync.
TEST(Mbarrier, DeadlockWithBarrierIsReported) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .pred %p<4>;
  .shared .align 8 .b64 mb;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, mb;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [%r2], 1;
SKIP:
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra W;
  bar.sync 1;
  ret;
W:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;
  @!%p2 bra W;
  ret;
}
)"));
  auto r = h.run("k", {1, 1, 1}, {64, 1, 1}, Harness::Params());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Deadlock);
  EXPECT_NE(r.fault.message.find("mbarrier"), std::string::npos) << r.fault.message;
  EXPECT_NE(r.fault.message.find("barrier 1"), std::string::npos) << r.fault.message;
}

// cp.async.bulk: global -> shared completing on an mbarrier (issued before the expect-tx, as
// cuda::memcpy_async does), shared -> shared::cluster (own CTA), shared -> global with a bulk group.
TEST(CpAsyncBulk, GlobalSharedGlobalWithMbarrier) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .shared .align 16 .b8 tile[1024];
  .shared .align 16 .b8 tile2[1024];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mov.u32 %r3, bar;
  mov.u32 %r4, tile2;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r3], 32;
  bar.sync 0;
  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 1024, [%r3];
  @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 1024;
  mbarrier.arrive.shared::cta.b64 %rd3, [%r3];
WAIT1:
  mbarrier.try_wait.shared.b64 %p2, [%r3], %rd3;
  @!%p2 bra WAIT1;
  @%p1 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r4], [%r2], 1024, [%r3];
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r3], 1024;
  @!%p1 mbarrier.arrive.shared::cta.b64 %rd4, [%r3];
WAIT2:
  mbarrier.try_wait.shared.b64 %p2, [%r3], %rd4;
  @!%p2 bra WAIT2;
  @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r4], 1024;
  @%p1 cp.async.bulk.commit_group;
  @%p1 cp.async.bulk.wait_group.read 0;
  ret;
}
)"));
  std::vector<uint32_t> in(256);
  for (uint32_t i = 0; i < 256; ++i) in[i] = i * 2654435761u;
  uint64_t din = h.upload(in);
  uint64_t dout = h.alloc(1024);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(h.download<uint32_t>(dout, 256), in);
}

TEST(CpAsyncBulk, MisalignedSizeFaults) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 in)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 tile[64];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [in];
  mov.u32 %r2, tile;
  mov.u32 %r3, bar;
  mbarrier.init.shared.b64 [%r3], 1;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 24, [%r3];
  ret;
}
)"));
  uint64_t din = h.alloc(64);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(din));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::MisalignedAddress);
  EXPECT_NE(r.fault.message.find("multiples of 16"), std::string::npos) << r.fault.message;
}

TEST(CpAsync, BadFormsAreRejected) {
  Harness h;
  auto e = h.load_errors(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  cp.async.cg.shared.global [%r1], [%rd1], 8;
  ret;
}
)");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("cp-size 16"), std::string::npos) << e[0];
}

}  // namespace
