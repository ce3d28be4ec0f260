// Warp-level instructions: shfl(.sync) in every mode with segment widths and clamps, the predicate
// output, partial member masks in divergent code; vote/ballot; match; redux; elect; activemask.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

// Replaces every occurrence of `key` in `s`.
std::string subst(std::string s, const std::string& key, const std::string& val) {
  for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + val.size())) s.replace(p, key.size(), val);
  return s;
}

// out[tid] = shfl(in[tid], b, c); out[32 + tid] = predicate. MODE and the optional .sync/mask are
// substituted.
const char* kShflKernel = R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 b, .param .u32 c)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r3, [b];
  ld.param.u32 %r4, [c];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  shfl.sync.MODE.b32 %r5|%p1, %r2, %r3, %r4, 0xffffffff;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r5;
  selp.u32 %r6, 1, 0, %p1;
  st.global.u32 [%rd5+128], %r6;
  ret;
}
)";

// CUDA-level reference (__shfl_*_sync with a width), independent of the ISA pseudo-code.
void shfl_ref(const std::string& mode, const std::vector<uint32_t>& in, uint32_t b, unsigned width,
              std::vector<uint32_t>& out, std::vector<uint32_t>& pred) {
  out.assign(32, 0);
  pred.assign(32, 0);
  for (int lane = 0; lane < 32; ++lane) {
    int seg = lane & ~int(width - 1);
    int src;
    bool ok;
    if (mode == "up") {
      src = lane - int(b);
      ok = src >= seg;
    } else if (mode == "down") {
      src = lane + int(b);
      ok = src < seg + int(width);
    } else if (mode == "bfly") {
      src = lane ^ int(b);
      ok = src < seg + int(width);
    } else {
      src = seg + int(b % width);
      ok = true;
    }
    out[lane] = ok ? in[src] : in[lane];
    pred[lane] = ok;
  }
}

TEST(Shfl, AllModesAllWidthsMatchCuda) {
  std::vector<uint32_t> in(32);
  for (unsigned i = 0; i < 32; ++i) in[i] = 1000 + i * 7;
  for (std::string mode : {"up", "down", "bfly", "idx"}) {
    Harness h;
    ASSERT_TRUE(h.load(kHead + subst(kShflKernel, "MODE", mode))) << mode;
    uint64_t din = h.upload(in), dout = h.alloc(256);
    for (unsigned width : {1u, 2u, 8u, 16u, 32u}) {
      for (uint32_t b : {0u, 1u, 3u, 5u, 8u, 15u, 16u, 31u}) {
        // c as nvcc builds it: up: (32-w)<<8; down/bfly/idx: ((32-w)<<8) | 0x1f
        uint32_t c = ((32 - width) << 8) | (mode == "up" ? 0u : 0x1fu);
        auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout).add(b).add(c));
        ASSERT_TRUE(r.ok()) << r.report();
        auto got = h.download<uint32_t>(dout, 64);
        std::vector<uint32_t> want, wp;
        shfl_ref(mode, in, b, width, want, wp);
        for (unsigned l = 0; l < 32; ++l) {
          ASSERT_EQ(got[l], want[l]) << mode << " width " << width << " b " << b << " lane " << l;
          if (mode != "idx") ASSERT_EQ(got[32 + l], wp[l]) << mode << " pred, width " << width << " b " << b << " lane " << l;
        }
      }
    }
  }
}

TEST(Shfl, IsaClampAndOutOfRangeOperands) {
  // c without a segment mask and a clamp of 5: only lanes <= 5 are valid sources for down/idx;
  // b wider than 5 bits uses b[4:0].
  std::vector<uint32_t> in(32);
  for (unsigned i = 0; i < 32; ++i) in[i] = 0x100 + i;
  {
    Harness h;
    ASSERT_TRUE(h.load(kHead + subst(kShflKernel, "MODE", "down")));
    uint64_t din = h.upload(in), dout = h.alloc(256);
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout).add(2u).add(5u));
    ASSERT_TRUE(r.ok()) << r.report();
    auto got = h.download<uint32_t>(dout, 64);
    for (unsigned l = 0; l < 32; ++l) {
      bool ok = l + 2 <= 5;
      EXPECT_EQ(got[l], ok ? in[l + 2] : in[l]) << l;
      EXPECT_EQ(got[32 + l], ok ? 1u : 0u) << l;
    }
  }
  {
    Harness h;
    ASSERT_TRUE(h.load(kHead + subst(kShflKernel, "MODE", "idx")));
    uint64_t din = h.upload(in), dout = h.alloc(256);
    // b = 35 -> 3; c = 0x1f: idx 3 from every lane
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout).add(35u).add(0x1fu));
    ASSERT_TRUE(r.ok()) << r.report();
    auto got = h.download<uint32_t>(dout, 64);
    for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got[l], in[3]) << l;
    // idx 9 with a clamp of 5: invalid (j > maxLane) -> own value, p false
    r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout).add(9u).add(5u));
    ASSERT_TRUE(r.ok()) << r.report();
    got = h.download<uint32_t>(dout, 64);
    for (unsigned l = 0; l < 32; ++l) {
      EXPECT_EQ(got[l], in[l]) << l;
      EXPECT_EQ(got[32 + l], 0u) << l;
    }
  }
}

TEST(Shfl, PartialMembersInDivergentHalves) {
  // Lanes 0-15 butterfly among themselves, lanes 16-31 shift down among themselves, each half with
  // its own member mask; a full-warp shfl after reconvergence sees both halves' results.
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  mul.lo.u32 %r2, %r1, 10;
  setp.lt.u32 %p1, %r1, 16;
@%p1 bra LOW;
  shfl.sync.down.b32 %r5|%p2, %r2, 1, 0x1f, 0xffff0000;
  bra.uni JOIN;
LOW:
  shfl.sync.bfly.b32 %r5|%p2, %r2, 1, 0x1f, 0x0000ffff;
JOIN:
  st.global.u32 [%rd4], %r5;
  selp.u32 %r6, 1, 0, %p2;
  st.global.u32 [%rd4+128], %r6;
  shfl.sync.idx.b32 %r7, %r5, 31, 0x1f, 0xffffffff;
  st.global.u32 [%rd4+256], %r7;
  ret;
}
)"));
  uint64_t out = h.alloc(384);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 96);
  for (unsigned l = 0; l < 32; ++l) {
    uint32_t want = l < 16 ? (l ^ 1) * 10 : (l == 31 ? 310 : (l + 1) * 10);
    EXPECT_EQ(got[l], want) << l;
    EXPECT_EQ(got[32 + l], l == 31 ? 0u : 1u) << l;
    EXPECT_EQ(got[64 + l], 310u) << l;
  }
}

// ISA: shfl.sync waits for the members "to have executed shfl.sync with the same qualifiers and
// membermask", which on sm_70+ may be different shfl.sync instructions. The engine's warp_sync only
// joins lanes at the same pc: the two halves wait for each other alternately and the warp never
// finishes (no Deadlock report either: warp_sync resets Warp::sync_retried on every wait). Enable
// once the engine joins compatible warp-synchronous instructions at different pcs.
TEST(Shfl, DISABLED_FullMaskAtTwoDifferentInstructions) {
  func::EngineConfig cfg;
  cfg.max_warp_instructions = 100000;  // bounded: today this ends in InstructionLimit
  Harness h(cfg);
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  setp.lt.u32 %p1, %r1, 16;
@%p1 bra A;
  shfl.sync.idx.b32 %r5, %r1, 0, 0x1f, 0xffffffff;
  bra.uni D;
A:
  shfl.sync.idx.b32 %r5, %r1, 31, 0x1f, 0xffffffff;
D:
  st.global.u32 [%rd4], %r5;
  ret;
}
)"));
  uint64_t out = h.alloc(128);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 32);
  // every lane reads the source lane its own instruction names (lane values are the tids)
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got[l], l < 16 ? 31u : 0u) << l;
}

TEST(Shfl, LaneOutsideMemberMaskFaults) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shfl.sync.idx.b32 %r2, %r1, 0, 0x1f, 0x0000ffff;
  ret;
}
)"));
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalInstruction);
  EXPECT_NE(r.fault.message.find("member mask"), std::string::npos) << r.fault.message;
}

TEST(Shfl, PartialWarpWithFullMaskAndLegacyShfl) {
  // 20 threads: the missing lanes 20-31 never exist, so a full mask does not wait for them. The
  // legacy (non-.sync) shfl works among the active lanes.
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.u32 %r2, %r1, 100;
  shfl.sync.up.b32 %r5, %r2, 4, 0, 0xffffffff;
  st.global.u32 [%rd4], %r5;
  shfl.down.b32 %r6, %r2, 2, 0x1f;
  st.global.u32 [%rd4+128], %r6;
  ret;
}
)"));
  uint64_t out = h.alloc(256);
  auto r = h.run("k", {1, 1, 1}, {20, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 64);
  for (unsigned l = 0; l < 20; ++l) {
    EXPECT_EQ(got[l], l >= 4 ? 100 + l - 4 : 100 + l) << l;
    // lanes 18/19 read lanes 20/21, which don't exist: their (zero) registers, deterministically
    EXPECT_EQ(got[32 + l], l + 2 < 20 ? 100 + l + 2 : 0u) << l;
  }
}

// ------------------------------------------------------------------ vote

TEST(Vote, BallotAllAnyUniInDivergentCode) {
  // Lanes with tid % 3 == 0 enter a branch and vote there with the branch's active mask; every
  // lane then votes with the full mask after reconvergence.
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .pred %p<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r8, 0;
  mov.u32 %r9, 0;
  rem.u32 %r2, %r1, 3;
  setp.ne.u32 %p1, %r2, 0;
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p2, %r3, 1;
@%p1 bra SKIP;
  activemask.b32 %r4;
  vote.sync.ballot.b32 %r8, %p2, %r4;
  vote.sync.any.pred %p3, %p2, %r4;
  selp.u32 %r9, 1, 0, %p3;
SKIP:
  st.global.u32 [%rd4], %r8;
  st.global.u32 [%rd4+128], %r9;
  vote.sync.ballot.b32 %r5, !%p2, 0xffffffff;
  st.global.u32 [%rd4+256], %r5;
  setp.lt.u32 %p4, %r1, 40;
  vote.sync.all.pred %p5, %p4, 0xffffffff;
  vote.sync.all.pred %p6, %p2, 0xffffffff;
  vote.sync.uni.pred %p7, %p4, 0xffffffff;
  selp.u32 %r6, 1, 0, %p5;
  selp.u32 %r7, 2, 0, %p6;
  or.b32 %r6, %r6, %r7;
  selp.u32 %r7, 4, 0, %p7;
  or.b32 %r6, %r6, %r7;
  vote.sync.uni.pred %p7, %p2, 0xffffffff;
  selp.u32 %r7, 8, 0, %p7;
  or.b32 %r6, %r6, %r7;
  st.global.u32 [%rd4+384], %r6;
  ret;
}
)"));
  uint64_t out = h.alloc(512);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 128);
  uint32_t branch_ballot = 0;
  for (unsigned l = 0; l < 32; l += 3)
    if (l & 1) branch_ballot |= 1u << l;
  for (unsigned l = 0; l < 32; ++l) {
    bool in_branch = l % 3 == 0;
    EXPECT_EQ(got[l], in_branch ? branch_ballot : 0u) << l;
    EXPECT_EQ(got[32 + l], in_branch ? 1u : 0u) << l;
    EXPECT_EQ(got[64 + l], 0x55555555u) << l;  // !odd
    EXPECT_EQ(got[96 + l], 1u | 4u) << l;       // all(<40), !all(odd), uni(<40), !uni(odd)
  }
}

TEST(Vote, LegacyVoteUsesActiveLanes) {
  Harness h;
  const std::string text = kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  setp.ge.u32 %p1, %r1, 8;
  vote.ballot.b32 %r2, %p1;
  vote.all.pred %p2, %p1;
  selp.u32 %r3, 1, 0, %p2;
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd4+128], %r3;
  ret;
}
)";
  {
    // The opcode table (src/ptx/opcodes.def) gives vote 3-4 operands, so the two-operand legacy
    // form does not parse yet; skip until the front end accepts it.
    Harness probe;
    auto e = probe.load_errors(text);
    if (!e.empty() && e[0].find("takes 3 to 4 operands") != std::string::npos) GTEST_SKIP() << e[0];
  }
  ASSERT_TRUE(h.load(text));
  uint64_t out = h.alloc(256);
  auto r = h.run("k", {1, 1, 1}, {12, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 64);
  for (unsigned l = 0; l < 12; ++l) {
    EXPECT_EQ(got[l], 0xf00u) << l;
    EXPECT_EQ(got[32 + l], 0u) << l;
  }
}

// ------------------------------------------------------------------ match

TEST(Match, AnyAndAllB32B64) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  shr.u32 %r2, %r1, 2;
  match.sync.any.b32 %r3, %r2, 0xffffffff;
  st.global.u32 [%rd4], %r3;
  // 64-bit: lanes differ only in the high word for odd/even
  and.b32 %r4, %r1, 1;
  mov.b64 %rd5, {%r2, %r4};
  match.sync.any.b64 %r5, %rd5, 0xffffffff;
  st.global.u32 [%rd4+128], %r5;
  match.sync.all.b32 %r6|%p1, %r4, 0xffffffff;
  selp.u32 %r7, 1, 0, %p1;
  st.global.u32 [%rd4+256], %r6;
  st.global.u32 [%rd4+384], %r7;
  mov.u32 %r8, 77;
  match.sync.all.b32 %r9|%p2, %r8, 0xffffffff;
  selp.u32 %r10, 1, 0, %p2;
  st.global.u32 [%rd4+512], %r9;
  st.global.u32 [%rd4+640], %r10;
  ret;
}
)"));
  uint64_t out = h.alloc(768);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 192);
  for (unsigned l = 0; l < 32; ++l) {
    uint32_t quad = 0xfu << (l & ~3u);
    EXPECT_EQ(got[l], quad) << l;
    EXPECT_EQ(got[32 + l], quad & ((l & 1) ? 0xaaaaaaaau : 0x55555555u)) << l;
    EXPECT_EQ(got[64 + l], 0u) << l;
    EXPECT_EQ(got[96 + l], 0u) << l;
    EXPECT_EQ(got[128 + l], 0xffffffffu) << l;
    EXPECT_EQ(got[160 + l], 1u) << l;
  }
}

// The destination is the source (as in validation/sm/expand.cu's match chains): every lane's mask
// must come from the values before the instruction, not from lanes already overwritten.
TEST(Match, AnyInPlace) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  shr.u32 %r2, %r1, 3;
  match.any.sync.b32 %r2, %r2, 0xffffffff;
  st.global.u32 [%rd4], %r2;
  mov.u32 %r3, 7;
  match.any.sync.b32 %r3, %r3, 0xffffffff;
  st.global.u32 [%rd4+128], %r3;
  ret;
}
)"));
  uint64_t out = h.alloc(256);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 64);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(got[l], 0xffu << (l & ~7u)) << l;
    EXPECT_EQ(got[32 + l], 0xffffffffu) << l;
  }
}

// ------------------------------------------------------------------ redux

TEST(Redux, AllIntegerOpsWithExtremes) {
  std::vector<uint32_t> in(32);
  for (unsigned i = 0; i < 32; ++i) in[i] = i * 0x9e3779b9u;
  in[3] = 0x80000000u;  // INT_MIN
  in[7] = 0x7fffffffu;  // INT_MAX
  in[11] = 0xffffffffu;
  in[13] = 0;
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"add", "u32"}, {"add", "s32"}, {"min", "u32"}, {"min", "s32"}, {"max", "u32"},
      {"max", "s32"}, {"and", "b32"}, {"or", "b32"},  {"xor", "b32"}};
  for (auto& [op, ty] : ops) {
    Harness h;
    ASSERT_TRUE(h.load(kHead + subst(subst(R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  redux.sync.OP.TY %r3, %r2, 0xffffffff;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r3;
  ret;
}
)", "OP", op), "TY", ty)));
    uint64_t din = h.upload(in), dout = h.alloc(128);
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
    ASSERT_TRUE(r.ok()) << r.report();
    uint32_t want = in[0];
    for (unsigned i = 1; i < 32; ++i) {
      uint32_t v = in[i];
      if (op == "add") want += v;
      else if (op == "and") want &= v;
      else if (op == "or") want |= v;
      else if (op == "xor") want ^= v;
      else if (ty == "s32") {
        int32_t a = int32_t(want), b = int32_t(v);
        want = uint32_t(op == "min" ? std::min(a, b) : std::max(a, b));
      } else {
        want = op == "min" ? std::min(want, v) : std::max(want, v);
      }
    }
    auto got = h.download<uint32_t>(dout, 32);
    for (unsigned l = 0; l < 32; ++l) ASSERT_EQ(got[l], want) << op << "." << ty << " lane " << l;
  }
}

TEST(Redux, PartialMaskInBranchAndF32MinMax) {
  // Odd lanes reduce among themselves; f32 min/max with .abs and .NaN.
  auto f = [](float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  };
  std::vector<uint32_t> in(32);
  for (unsigned i = 0; i < 32; ++i) in[i] = f(float(int(i) - 20) * 0.5f);
  in[5] = f(-0.0f);
  in[6] = f(0.0f);
  in[9] = 0x7fc00001u;  // NaN (odd lane)
  struct Case {
    std::string mods;
    uint32_t want;
  };
  // odd lanes: values (i-20)*0.5 for odd i except 5 (-0.0) and 9 (NaN): min -9.5 (i=1), max 5.5 (i=31)
  std::vector<Case> cases = {{"min", f(-9.5f)},       {"max", f(5.5f)},          {"min.abs", f(0.0f)},
                             {"max.abs", f(9.5f)},    {"min.NaN", 0x7fffffffu},  {"max.abs.NaN", 0x7fffffffu}};
  for (auto& cs : cases) {
    Harness h;
    ASSERT_TRUE(h.load(".version 8.7\n.target sm_100a\n.address_size 64\n" + subst(R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  and.b32 %r4, %r1, 1;
  setp.eq.u32 %p1, %r4, 0;
@%p1 bra DONE;
  redux.sync.MODS.f32 %r3, %r2, 0xaaaaaaaa;
  st.global.u32 [%rd5], %r3;
DONE:
  ret;
}
)", "MODS", cs.mods)));
    uint64_t din = h.upload(in), dout = h.alloc(128);
    auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
    ASSERT_TRUE(r.ok()) << r.report();
    auto got = h.download<uint32_t>(dout, 32);
    for (unsigned l = 0; l < 32; ++l) ASSERT_EQ(got[l], (l & 1) ? cs.want : 0u) << cs.mods << " lane " << l;
  }
}

TEST(Redux, SignedZeroOrderingAndAllNaN) {
  Harness h;
  ASSERT_TRUE(h.load(".version 8.7\n.target sm_100a\n.address_size 64\n" + std::string(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  selp.b32 %r3, 0x80000000, 0x00000000, %p1;
  redux.sync.min.f32 %r4, %r3, 0xffffffff;
  redux.sync.max.f32 %r5, %r3, 0xffffffff;
  mov.b32 %r6, 0x7fc12345;
  redux.sync.max.f32 %r7, %r6, 0xffffffff;
  st.global.u32 [%rd1], %r4;
  st.global.u32 [%rd1+4], %r5;
  st.global.u32 [%rd1+8], %r7;
  ret;
}
)")));
  uint64_t out = h.alloc(12);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 3);
  EXPECT_EQ(got[0], 0x80000000u);
  EXPECT_EQ(got[1], 0u);
  EXPECT_EQ(got[2], 0x7fffffffu);
}

// ------------------------------------------------------------------ elect / activemask

TEST(Elect, LeaderIsLowestActiveMember) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r2, 99;
  mov.u32 %r3, 99;
  setp.lt.u32 %p1, %r1, 5;
@%p1 bra DONE;
  activemask.b32 %r5;
  elect.sync %r2|%p2, %r5;
  selp.u32 %r3, 1, 0, %p2;
  st.global.u32 [%rd4+256], %r5;
DONE:
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd4+128], %r3;
  elect.sync _|%p2, 0xffffffff;
  selp.u32 %r6, 1, 0, %p2;
  st.global.u32 [%rd4+384], %r6;
  ret;
}
)"));
  uint64_t out = h.alloc(512);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 128);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(got[l], l < 5 ? 99u : 5u) << l;
    EXPECT_EQ(got[32 + l], l < 5 ? 99u : (l == 5 ? 1u : 0u)) << l;
    EXPECT_EQ(got[64 + l], l < 5 ? 0u : 0xffffffe0u) << l;
    EXPECT_EQ(got[96 + l], l == 0 ? 1u : 0u) << l;
  }
}

TEST(Activemask, PartialWarpAndGuard) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  activemask.b32 %r2;
  st.global.u32 [%rd4], %r2;
  mov.u32 %r3, 0;
  and.b32 %r4, %r1, 1;
  setp.eq.u32 %p1, %r4, 1;
@%p1 activemask.b32 %r3;
  st.global.u32 [%rd4+256], %r3;
  ret;
}
)"));
  uint64_t out = h.alloc(512);
  auto r = h.run("k", {1, 1, 1}, {40, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto got = h.download<uint32_t>(out, 128);
  for (unsigned t = 0; t < 40; ++t) {
    EXPECT_EQ(got[t], t < 32 ? 0xffffffffu : 0xffu) << t;
    EXPECT_EQ(got[64 + t], (t & 1) ? (t < 32 ? 0xaaaaaaaau : 0xaau) : 0u) << t;
  }
}

TEST(WarpOps, DecodeErrorsAreClear) {
  Harness h;
  auto e = h.load_errors(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  redux.sync.add.b32 %r1, %r2, 0xffffffff;
  ret;
}
)");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("redux.sync .add/.min/.max need .u32 or .s32"), std::string::npos) << e[0];
}

}  // namespace
