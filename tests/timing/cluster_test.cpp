// Thread-block clusters (sm_90) in the timing model: where the distributor puts a cluster's CTAs
// (distinct SMs of one group, all at once or not at all), the cluster barrier's release, and
// distributed shared memory over the SM-to-SM network, the last against our H100's measurement
// (validation/mem/h100_dsmem_measured.txt, h100_dsmem_bw_measured.txt).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "func/engine.hpp"
#include "mem/device_memory.hpp"
#include "ptx/parser.hpp"
#include "timing/gpu.hpp"
#include "test_machine.hpp"

namespace warpsim::timing {
namespace {

using config::OpClass;
using config::Pipe;

// The timing tests' machine (test_machine.hpp), with 8 SMs in two groups of 4 for clusters, and
// shared-memory latencies.
config::Machine cluster_machine() {
  config::Machine m = test_machine();
  m.sms = 8;
  m.tpcs_per_gpc = {2, 2};
  m.cluster_sm_groups = {4, 4};
  m.ops[unsigned(OpClass::LdShared)] = {Pipe::Mio, 20, 1, config::Scoreboard::Short};
  m.ops[unsigned(OpClass::StShared)] = {Pipe::Mio, 1, 1, config::Scoreboard::Short};
  m.cluster.barrier_latency = 500;
  m.cluster.barrier_cycles_per_cta = 10;
  m.cluster.dsmem_latency = 200;
  m.cluster.dsmem_bytes_per_clk = 16;
  return m;
}

struct ClusterRun {
  stats::KernelStats st;
  func::LaunchResult res;
  std::vector<uint32_t> out;
};

// One launch of kernel `k` (parameters: the output buffer, then `arg`) in clusters of `cluster`.
ClusterRun run_cluster(const config::Machine& m, const std::string& ptx, uint32_t grid, uint32_t block, uint32_t cluster,
                uint32_t arg, size_t out_words, uint32_t max_ctas_per_sm = 0) {
  mem::DeviceMemory dm{mem::MemoryConfig{}};
  func::EngineConfig ec;
  ec.num_sms = m.sms;
  func::Engine eng(dm, ec);
  auto pr = ptx::parse(ptx, "t.ptx");
  EXPECT_TRUE(pr.ok());
  auto lr = eng.load(std::move(pr.module));
  for (auto& e : lr.errors) ADD_FAILURE() << e;
  ClusterRun r;
  if (!lr.ok()) return r;
  const uint64_t out = dm.allocate(out_words * 4);
  std::vector<uint32_t> zero(out_words, 0);
  dm.host_write(out, zero.data(), out_words * 4);
  func::LaunchConfig lc;
  lc.grid = {grid, 1, 1};
  lc.block = {block, 1, 1};
  lc.cluster = {cluster, 1, 1};
  lc.explicit_cluster = true;
  lc.params.resize(12);
  std::memcpy(lc.params.data(), &out, 8);
  std::memcpy(lc.params.data() + 8, &arg, 4);
  func::LaunchState ls;
  func::LaunchResult res;
  EXPECT_TRUE(eng.prepare(*lr.module, "k", lc, ls, res));
  KernelLaunch kl;
  kl.module = lr.module.get();
  kl.ls = &ls;
  kl.ecfg = &eng.config();
  kl.fp = {block, (block + 31) / 32, 0, 0};
  kl.max_ctas_per_sm = max_ctas_per_sm;
  Gpu gpu(m);
  r.st = gpu.run({&kl}).at(0);
  r.res = eng.finish(*lr.module, ls, res);
  r.out.resize(out_words);
  dm.host_read(out, r.out.data(), out_words * 4);
  return r;
}

// Each CTA spins `n` dependent FMAs, then thread 0 writes {%smid, start clock, end clock, rank}.
const char* kPlacement = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .u32 %r<8>;
  .reg .u64 %rd<8>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [n];
  mov.u64 %rd4, %clock64;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %smid;
  mov.u32 %r3, %tid.x;
  mov.f32 %f1, 0f3F000000;
  mov.u32 %r4, 0;
LOOP:
  fma.rn.f32 %f1, %f1, 0f3F000000, 0f3E800000;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r5;
  @%p1 bra LOOP;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r1, 16;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  cvt.u32.u64 %r6, %rd4;
  st.global.u32 [%rd3+4], %r6;
  mov.u64 %rd5, %clock64;
  cvt.u32.u64 %r7, %rd5;
  st.global.u32 [%rd3+8], %r7;
  mov.u32 %r6, %cluster_ctarank;
  st.global.u32 [%rd3+12], %r6;
DONE:
  ret;
}
)";

TEST(Cluster, CtasLandOnDistinctSmsOfOneGroup) {
  const config::Machine m = cluster_machine();
  // Four clusters of two: the groups take them in turn, the least loaded SMs of a group first, so
  // all four are resident at once on eight distinct SMs.
  ClusterRun r = run_cluster(m, kPlacement, 8, 32, 2, 100, 8 * 4);
  ASSERT_TRUE(r.res.ok()) << r.res.report();
  std::set<uint32_t> sms;
  for (uint32_t c = 0; c < 8; c += 2) {
    const uint32_t a = r.out[c * 4], b = r.out[(c + 1) * 4];
    EXPECT_NE(a, b) << "cluster " << c / 2;
    EXPECT_EQ(a / 4, b / 4) << "cluster " << c / 2 << ": SMs " << a << " and " << b << " are in different groups";
    EXPECT_EQ(r.out[c * 4 + 3], 0u);
    EXPECT_EQ(r.out[(c + 1) * 4 + 3], 1u);
    sms.insert(a);
    sms.insert(b);
  }
  EXPECT_EQ(sms.size(), 8u);
  for (uint32_t c = 1; c < 8; ++c) EXPECT_EQ(r.out[c * 4 + 1], r.out[1]) << "CTA " << c << " started late";
}

TEST(Cluster, SecondClusterWaitsWhenItsGroupIsFull) {
  // Groups of 3 and 1 SMs, one CTA per SM: a cluster of two fits only in the first group, once.
  // The second waits for the first to leave although two SMs (one in each group) are free.
  config::Machine m = cluster_machine();
  m.sms = 4;
  m.tpcs_per_gpc = {1, 1};
  m.cluster_sm_groups = {3, 1};
  ClusterRun r = run_cluster(m, kPlacement, 4, 32, 2, 400, 4 * 4, 1);
  ASSERT_TRUE(r.res.ok()) << r.res.report();
  for (uint32_t c = 0; c < 4; ++c) EXPECT_LT(r.out[c * 4], 3u) << "CTA " << c << " is outside the group of 3";
  EXPECT_NE(r.out[0], r.out[4]);
  EXPECT_NE(r.out[8], r.out[12]);
  const uint32_t first_end = std::max(r.out[2], r.out[6]);
  const uint32_t second_start = std::min(r.out[9], r.out[13]);
  EXPECT_GT(second_start, first_end);
  // A cluster needs its group: one of four CTAs (a cluster of 4 in a group of 3) never fits.
  ClusterRun bad = run_cluster(m, kPlacement, 4, 32, 4, 10, 4 * 4, 1);
  EXPECT_EQ(bad.res.fault.kind, func::FaultKind::IllegalInstruction);
  EXPECT_NE(bad.res.report().find("cluster of 4 CTAs does not fit"), std::string::npos) << bad.res.report();
}

// `n` cluster.syncs (barrier.cluster.arrive + wait) between clock reads; thread 0 of each CTA
// writes the cycles. Then every CTA reads rank 0's word through DSMEM to check the order.
const char* kBarrierLoop = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .u32 %r<12>;
  .reg .u64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 4 .u32 word;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r8, %cluster_ctarank;
  add.u32 %r9, %r1, 1000;
  st.shared.u32 [word], %r9;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u64 %rd4, %clock64;
  mov.u32 %r4, 0;
LOOP:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r5;
  @%p1 bra LOOP;
  mov.u64 %rd5, %clock64;
  mov.u32 %r10, word;
  mov.u32 %r7, 0;
  mapa.shared::cluster.u32 %r10, %r10, %r7;
  ld.shared::cluster.u32 %r11, [%r10];
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd3, %rd1, %rd2;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.u32.u64 %r6, %rd6;
  st.global.u32 [%rd3], %r6;
  st.global.u32 [%rd3+4], %r11;
DONE:
  ret;
}
)";

TEST(Cluster, BarrierReleasesEveryCtaAfterItsLatency) {
  const config::Machine m = cluster_machine();
  const uint32_t n = 20;
  for (uint32_t cs : {1u, 2u, 4u}) {
    SCOPED_TRACE(fmt::format("clusters of {}", cs));
    ClusterRun r = run_cluster(m, kBarrierLoop, 8, 64, cs, n, 8 * 2);
    ASSERT_TRUE(r.res.ok()) << r.res.report();
    // Per sync: the release latency (500 + 10 per CTA) and the loop's few instructions (add, setp,
    // bra, arrive: under 30 cycles at the test machine's 4-cycle ALU latency).
    const double release = 500.0 + 10.0 * cs;
    for (uint32_t c = 0; c < 8; ++c) {
      const double per = double(r.out[c * 2]) / n;
      EXPECT_GE(per, release) << "CTA " << c;
      EXPECT_LE(per, release + 30) << "CTA " << c;
      EXPECT_EQ(r.out[c * 2 + 1], 1000 + c / cs * cs) << "CTA " << c << " read rank 0's word";
    }
  }
}

// A dependent chain of `n` loads through rank `target`'s shared memory (the chase of
// validation/mem/probes/dsmem.cu as nvcc compiles it: a generic address from mapa.u64, each step
// mul.wide + add + ld.u32), by thread 0 of rank 0; out = {cycles, final index}.
const char* kChase = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 target)
{
  .reg .u32 %r<16>;
  .reg .u64 %rd<16>;
  .reg .pred %p<2>;
  .shared .align 4 .b8 next[8192];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [target];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %r1;
INIT:
  add.u32 %r3, %r2, 33;
  rem.u32 %r3, %r3, 2048;
  shl.b32 %r4, %r2, 2;
  mov.u32 %r5, next;
  add.u32 %r5, %r5, %r4;
  st.shared.u32 [%r5], %r3;
  add.u32 %r2, %r2, 32;
  setp.lt.u32 %p1, %r2, 2048;
  @%p1 bra INIT;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %r6, %cluster_ctarank;
  or.b32 %r6, %r6, %r1;
  setp.ne.u32 %p1, %r6, 0;
  @%p1 bra DONE;
  mov.u32 %r7, next;
  cvt.u64.u32 %rd2, %r7;
  cvta.shared.u64 %rd2, %rd2;
  mapa.u64 %rd3, %rd2, %r9;
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  mov.u64 %rd8, %clock64;
CHASE:
  mul.wide.s32 %rd4, %r10, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.u32 %r10, [%rd5];
  mul.wide.s32 %rd4, %r10, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.u32 %r10, [%rd5];
  mul.wide.s32 %rd4, %r10, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.u32 %r10, [%rd5];
  mul.wide.s32 %rd4, %r10, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.u32 %r10, [%rd5];
  add.u32 %r11, %r11, 4;
  setp.lt.u32 %p1, %r11, 256;
  @%p1 bra CHASE;
  mov.u64 %rd9, %clock64;
  sub.u64 %rd9, %rd9, %rd8;
  cvt.u32.u64 %r12, %rd9;
  st.global.u32 [%rd1], %r12;
  st.global.u32 [%rd1+4], %r10;
DONE:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

TEST(Cluster, DsmemLoadChainMatchesTheH100) {
  config::Machine m;
  std::string err;
  ASSERT_TRUE(config::load_machine("h100", {}, m, err)) << err;
  uint32_t expect = 0;
  for (int i = 0; i < 256; ++i) expect = (expect + 33) % 2048;
  ClusterRun remote = run_cluster(m, kChase, 2, 32, 2, 1, 2);
  ASSERT_TRUE(remote.res.ok()) << remote.res.report();
  EXPECT_EQ(remote.out[1], expect);
  ClusterRun own = run_cluster(m, kChase, 2, 32, 2, 0, 2);
  ASSERT_TRUE(own.res.ok()) << own.res.report();
  EXPECT_EQ(own.out[1], expect);
  const double per_remote = remote.out[0] / 256.0, per_own = own.out[0] / 256.0;
  // Our H100: 191.6 cycles per load through the other CTA's shared memory (three runs, all 191.6),
  // 33.0 through its own. cluster.dsmem_latency is calibrated on this chain, so the model must
  // reproduce it closely: 3% covers the loop counter's share (one add, setp and branch per four
  // loads here; ptxas unrolls the probe's loop the same way) and nothing more.
  EXPECT_NEAR(per_remote, 191.6, 191.6 * 0.03) << "own: " << per_own;
  std::printf("simulated chase: %.1f cycles per load through the other CTA (H100 191.6), %.1f through its own (33.0)\n",
              per_remote, per_own);
  // A remote hop costs the network's latency over a local one.
  EXPECT_GT(per_remote - per_own, 0.5 * m.cluster.dsmem_latency);
}

// Every warp streams 16-byte loads from the next CTA's shared memory (dsmem_bw.cu's loop).
const char* kStream = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 iters)
{
  .reg .u32 %r<44>;
  .reg .u64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 16 .b8 buf[32768];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [iters];
  mov.u32 %r1, %tid.x;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  add.u32 %r2, %r2, 1;
  rem.u32 %r2, %r2, %r3;
  mov.u32 %r4, buf;
  mapa.shared::cluster.u32 %r4, %r4, %r2;
  shl.b32 %r5, %r1, 4;
  and.b32 %r5, %r5, 4095;
  add.u32 %r4, %r4, %r5;
  mov.u32 %r6, 0;
  bar.sync 0;
  mov.u64 %rd2, %clock64;
LOOP:
  ld.shared::cluster.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
  ld.shared::cluster.v4.u32 {%r14, %r15, %r16, %r17}, [%r4+4096];
  ld.shared::cluster.v4.u32 {%r18, %r19, %r20, %r21}, [%r4+8192];
  ld.shared::cluster.v4.u32 {%r22, %r23, %r24, %r25}, [%r4+12288];
  ld.shared::cluster.v4.u32 {%r26, %r27, %r28, %r29}, [%r4+16384];
  ld.shared::cluster.v4.u32 {%r30, %r31, %r32, %r33}, [%r4+20480];
  ld.shared::cluster.v4.u32 {%r34, %r35, %r36, %r37}, [%r4+24576];
  ld.shared::cluster.v4.u32 {%r38, %r39, %r40, %r41}, [%r4+28672];
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, %r9;
  @%p1 bra LOOP;
  bar.sync 0;
  mov.u64 %rd3, %clock64;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  sub.u64 %rd3, %rd3, %rd2;
  cvt.u32.u64 %r7, %rd3;
  mov.u32 %r8, %ctaid.x;
  mul.wide.u32 %rd4, %r8, 4;
  add.u64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r7;
DONE:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

TEST(Cluster, DsmemStreamsAtTheH100sNetworkRate) {
  config::Machine m;
  std::string err;
  ASSERT_TRUE(config::load_machine("h100", {}, m, err)) << err;
  // 8 warps per CTA, clusters of 2: the H100 moves 17.07 B/clk per SM from 4 warps up (its one
  // warp: 8.0, bound by the latency). The model's port moves dsmem_bytes_per_clk, so the stream
  // must come within 5% of it (the loop's first loads and the drain at the end are the rest).
  const uint32_t iters = 40;
  ClusterRun r = run_cluster(m, kStream, 2, 256, 2, iters, 2);
  ASSERT_TRUE(r.res.ok()) << r.res.report();
  for (uint32_t c = 0; c < 2; ++c) {
    const double bpc = 256.0 * 16 * 8 * iters / r.out[c];
    EXPECT_NEAR(bpc, 17.07, 17.07 * 0.05) << "CTA " << c << ": " << r.out[c] << " cycles";
    std::printf("simulated stream, CTA %u: %.2f B/clk (H100 17.07)\n", c, bpc);
  }
}

// Rank 1 waits on an mbarrier nobody arrives at while rank 0 waits at the cluster barrier for
// rank 1: a deadlock of the cluster, reported as such (not a hang, not a CTA deadlock too early).
TEST(Cluster, DeadlockOfTheWholeClusterIsReported) {
  const config::Machine m = cluster_machine();
  const char* ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .u32 %r<4>;
  .reg .u64 %rd<4>;
  .reg .pred %p<3>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra R0;
  mbarrier.init.shared.b64 [bar], 2;
  mbarrier.arrive.shared.b64 %rd1, [bar];
  mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;
  ret;
R0:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
  ClusterRun r = run_cluster(m, ptx, 2, 32, 2, 0, 1);
  EXPECT_EQ(r.res.fault.kind, func::FaultKind::Deadlock) << r.res.report();
  EXPECT_NE(r.res.report().find("and of its cluster"), std::string::npos) << r.res.report();
}

}  // namespace
}  // namespace warpsim::timing
