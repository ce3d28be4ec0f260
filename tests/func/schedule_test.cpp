// The decoder's load scheduling (func/schedule.cpp): which instructions move, which never do.
// Expected orders are written out by hand from the rules: a load goes up with the arithmetic it
// depends on; loads pass stores to another state space, never a store they may alias; independent
// loads go before the loads whose addresses they produce; nothing crosses atomics, barriers,
// control-flow or clock instructions; register dependencies stay.
#include <gtest/gtest.h>

#include <memory>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "func/schedule.hpp"
#include "tests/func/harness.hpp"
#include "ptx/parser.hpp"

namespace warpsim::func {
namespace {

// The body's instructions (one per line) in scheduled order, as their source line numbers
// counted from the first body line (0-based).
std::vector<uint32_t> scheduled(const std::string& body) {
  std::string text = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<40>;
  .reg .f32 %f<40>;
  .reg .pred %p<4>;
  .shared .align 16 .b8 sm[4096];
)" + body + "}\n";
  auto r = ptx::parse(text, "s.ptx");
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return {};
  const ptx::Function& f = r.module->funcs.at(0);
  const uint32_t first = f.instrs.at(0).pos.line;
  std::vector<uint32_t> out;
  for (uint32_t i : schedule_loads(f)) out.push_back(f.instrs[i].pos.line - first);
  return out;
}

TEST(Schedule, LoadMovesUpWithItsAddressArithmetic) {
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mul.f32 %f1, %f2, %f3;
  fma.rn.f32 %f4, %f1, %f3, %f2;
  add.s64 %rd2, %rd1, 64;
  ld.global.f32 %f5, [%rd2];
  add.f32 %f6, %f5, %f4;
)");
  // The second load and its address (line 3) go above the independent mul/fma (lines 1, 2).
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 3, 4, 1, 2, 5}));
}

TEST(Schedule, DependentLoadsKeepTheirOrder) {
  // A pointer chase: each address comes from the previous load; nothing can move.
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  ld.global.u64 %rd2, [%rd1];
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u64 %rd4, [%rd3];
  add.s64 %rd5, %rd3, %rd4;
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
}

TEST(Schedule, NothingCrossesClockReadsAliasingStoresOrBranches) {
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mul.f32 %f1, %f2, %f3;
  mov.u64 %rd9, %clock64;
  ld.global.f32 %f5, [%rd1];
  st.global.f32 [%rd1+4], %f1;
  mul.f32 %f7, %f2, %f2;
  ld.global.f32 %f6, [%rd1+8];
  @%p1 bra DONE;
  mul.f32 %f8, %f2, %f3;
  ld.global.f32 %f9, [%rd1+12];
DONE:
  ret;
)");
  // Line 6 passes line 5 but not the global store it may read (line 4); line 9 passes line 8
  // within its block; the clock read, the store and the branch stay where they are.
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 3, 4, 6, 5, 7, 9, 8, 11}));
}

TEST(Schedule, WriteAfterReadIsKept) {
  // The load overwrites %f1, which the mul still reads: it must stay below it.
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mul.f32 %f2, %f1, %f1;
  ld.global.f32 %f1, [%rd1];
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(Schedule, NextFragmentLoadsGoAboveTheMmas) {
  // Two k-steps: ldmatrix (with its address) of step 2 moves above step 1's mma.
  auto o = scheduled(R"(  mov.u32 %r1, sm;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r1];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, %r5}, {%r2, %r3}, {%f1, %f2, %f3, %f4};
  add.s32 %r6, %r1, 512;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r7, %r8, %r9, %r10}, [%r6];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r7, %r8, %r9, %r10}, {%r7, %r8}, {%f1, %f2, %f3, %f4};
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 3, 4, 2, 5}));
}

TEST(Schedule, GlobalLoadsPassSharedStores) {
  // A staging loop unrolled by two: global load, shared store, global load, shared store. The
  // second load (with its address) goes above the first store: two loads in flight. (The mov
  // only the stores read stays below the loads.)
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mov.u32 %r1, sm;
  ld.global.nc.u32 %r2, [%rd1];
  st.shared.u32 [%r1], %r2;
  add.s64 %rd2, %rd1, 128;
  ld.global.nc.u32 %r3, [%rd2];
  st.shared.u32 [%r1+4], %r3;
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 4, 5, 1, 3, 6}));
}

TEST(Schedule, SharedLoadsPassGlobalStoresButNotSharedOnes) {
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mov.u32 %r1, sm;
  st.global.u32 [%rd1], %r1;
  ld.shared.u32 %r2, [%r1+8];
  st.shared.u32 [%r1], %r1;
  ld.shared.u32 %r3, [%r1+4];
  ld.u32 %r4, [%rd1+8];
)");
  // Line 3 passes the global store; line 5 stays below the shared store (it may read it), and so
  // does the generic load (line 6), which may alias either store.
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 3, 2, 4, 5, 6}));
}

TEST(Schedule, StoreStaysBelowALoadOfTheSameSpace) {
  // Write after read through memory: the shared store may overwrite what the shared load reads.
  // The last load pulls the store into the hoisted group, where its own depth (0) would put it
  // above the dependent load (depth 2) but for that dependency.
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mov.u32 %r1, sm;
  ld.global.u32 %r5, [%rd1];
  ld.shared.u32 %r2, [%r5];
  st.shared.u32 [%r1], %r1;
  ld.shared.u32 %r3, [%r1];
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Schedule, IndependentLoadsGoBeforeTheLoadsTheyAddress) {
  // Two unrolled steps of y += val[j] * x[col[j]]: both col/val loads go first, then the x loads.
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  ld.global.nc.u32 %r1, [%rd1];
  mul.wide.s32 %rd2, %r1, 4;
  ld.global.nc.f32 %f1, [%rd2];
  ld.global.nc.f32 %f2, [%rd1+512];
  fma.rn.f32 %f3, %f1, %f2, %f3;
  ld.global.nc.u32 %r2, [%rd1+4];
  mul.wide.s32 %rd3, %r2, 4;
  ld.global.nc.f32 %f4, [%rd3];
  ld.global.nc.f32 %f5, [%rd1+516];
  fma.rn.f32 %f3, %f4, %f5, %f3;
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 4, 6, 9, 2, 3, 7, 8, 5, 10}));
}

TEST(Schedule, VolatileLoadsGoUpButKeepTheirOrder) {
  // An unrolled sum over volatile words: the loads go above the adds, in their order.
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  ld.volatile.global.u32 %r1, [%rd1];
  add.s32 %r10, %r1, %r10;
  ld.volatile.global.u32 %r2, [%rd1+4];
  add.s32 %r10, %r2, %r10;
  ld.global.u32 %r3, [%rd1+8];
  add.s32 %r10, %r3, %r10;
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 3, 5, 2, 4, 6}));
}

TEST(Schedule, NothingPassesAVolatileLoadOrAnOrderedStore) {
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mov.u32 %r1, sm;
  ld.volatile.global.u32 %r2, [%rd1];
  add.s32 %r3, %r2, 1;
  ld.shared.u32 %r4, [%r1+12];
  st.volatile.shared.u32 [%r1], %r1;
  ld.global.u32 %r5, [%rd1+4];
  st.relaxed.gpu.global.u32 [%rd1+8], %r1;
  ld.shared.u32 %r6, [%r1+8];
)");
  // The shared load (line 4) goes above the add but stays after the volatile load; the volatile
  // and the relaxed stores are segment boundaries.
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 4, 3, 5, 6, 7, 8}));
}

TEST(Schedule, AtomicsAndBarriersStayBoundaries) {
  auto o = scheduled(R"(  ld.param.u64 %rd1, [p];
  mov.u32 %r1, sm;
  st.shared.u32 [%r1], %r1;
  atom.global.add.u32 %r2, [%rd1], 1;
  ld.global.u32 %r3, [%rd1+4];
  st.shared.u32 [%r1+4], %r1;
  bar.sync 0;
  ld.global.u32 %r4, [%rd1+8];
)");
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// If-conversion (if_convert): the body as it is decoded, one line per instruction: its source
// line (from the first body line, 0-based), then "@p1" / "@!p1" where it is now guarded. Empty
// when nothing is converted.
std::vector<std::string> converted(const std::string& body, bool schedule = false) {
  std::string text = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<40>;
  .reg .f32 %f<40>;
  .reg .pred %p<4>;
  .shared .align 16 .b8 sm[4096];
)" + body + "}\n";
  auto r = ptx::parse(text, "s.ptx");
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return {};
  const ptx::Function& f = r.module->funcs.at(0);
  ptx::Function g;
  if (!if_convert(f, g)) return {};
  const uint32_t first = f.instrs.at(0).pos.line;
  std::vector<uint32_t> order;
  if (schedule) order = schedule_loads(g);
  else for (uint32_t i = 0; i < g.instrs.size(); ++i) order.push_back(i);
  std::vector<std::string> out;
  for (uint32_t i : order) {
    const ptx::Instruction& ins = g.instrs[i];
    std::string s = std::to_string(ins.pos.line - first);
    if (ins.has_guard) s += std::string(ins.guard_negated ? " @!" : " @") + g.reg_name(ins.guard_reg).substr(1);
    out.push_back(s);
  }
  return out;
}

using Lines = std::vector<std::string>;

TEST(IfConvert, BoundsCheckedLoadsBecomePredicatedAndIssueTogether) {
  // transpose.cu's staging loop as nvcc writes it: two `if (in bounds) tile[..] = in[..]`
  // regions. ptxas predicates both bodies and issues both LDGs before the STSs.
  const std::string body = R"(  ld.param.u64 %rd1, [p];
  mov.u32 %r1, sm;
  setp.ge.s32 %p1, %r2, %r3;
  @%p1 bra L1;
  add.s64 %rd2, %rd1, 64;
  ld.global.nc.f32 %f1, [%rd2];
  st.shared.f32 [%r1], %f1;
L1:
  setp.ge.s32 %p2, %r4, %r3;
  @%p2 bra L2;
  add.s64 %rd3, %rd1, 128;
  ld.global.nc.f32 %f2, [%rd3];
  st.shared.f32 [%r1+4], %f2;
L2:
  ret;
)";
  EXPECT_EQ(converted(body), (Lines{"0", "1", "2", "4 @!p1", "5 @!p1", "6 @!p1", "8", "10 @!p2", "11 @!p2",
                                    "12 @!p2", "14"}));
  // The labels no branch names any more split no block: both loads go above the first store.
  EXPECT_EQ(converted(body, true), (Lines{"0", "2", "8", "4 @!p1", "5 @!p1", "10 @!p2", "11 @!p2", "1",
                                          "6 @!p1", "12 @!p2", "14"}));
}

TEST(IfConvert, BothArmsOfAnIfThenElseArePredicated) {
  // stencil.cu's `inside ? __ldg(&in[i]) : g_boundary`: then-first and else-first shapes.
  const std::string body = R"(  ld.param.u64 %rd1, [p];
  setp.gt.s32 %p1, %r1, -1;
  @%p1 bra T;
  bra.uni E;
T:
  add.s64 %rd2, %rd1, 64;
  ld.global.nc.f32 %f1, [%rd2];
  bra.uni J;
E:
  ld.global.f32 %f1, [%rd1];
J:
  setp.lt.s32 %p2, %r2, 8;
  @!%p2 bra E2;
  ld.global.nc.f32 %f2, [%rd1+8];
  bra.uni J2;
E2:
  ld.global.f32 %f2, [%rd1+16];
J2:
  add.f32 %f3, %f1, %f2;
  ret;
)";
  EXPECT_EQ(converted(body), (Lines{"0", "1", "5 @p1", "6 @p1", "9 @!p1", "11", "13 @p2", "16 @!p2", "18",
                                    "19"}));
}

TEST(IfConvert, RegionsPtxasKeepsAsBranchesStay) {
  // No global load (transpose.cu's LDS + STG write-back keeps its BSSY/BRA).
  EXPECT_TRUE(converted(R"(  ld.param.u64 %rd1, [p];
  mov.u32 %r1, sm;
  @%p1 bra L1;
  ld.shared.f32 %f1, [%r1];
  st.global.f32 [%rd1], %f1;
L1:
  ret;
)").empty());
  // A store to global memory (the `if (row < M && col < N) C[..] = ..` epilogue, @P EXIT).
  EXPECT_TRUE(converted(R"(  ld.param.u64 %rd1, [p];
  @%p1 bra L1;
  ld.global.f32 %f1, [%rd1];
  st.global.f32 [%rd1+4], %f1;
L1:
  ret;
)").empty());
  // Not convertible: the join has a second branch to it, the body writes the predicate, holds
  // an instruction guarded already, or an atomic; a backward branch (a loop).
  EXPECT_TRUE(converted(R"(  ld.param.u64 %rd1, [p];
  @%p2 bra L1;
  @%p1 bra L1;
  ld.global.f32 %f1, [%rd1];
L1:
  ret;
)").empty());
  EXPECT_TRUE(converted(R"(  ld.param.u64 %rd1, [p];
  @%p1 bra L1;
  ld.global.f32 %f1, [%rd1];
  setp.gt.f32 %p1, %f1, 0f00000000;
L1:
  ret;
)").empty());
  EXPECT_TRUE(converted(R"(  ld.param.u64 %rd1, [p];
  @%p1 bra L1;
  ld.global.f32 %f1, [%rd1];
  @%p2 add.f32 %f2, %f1, %f1;
L1:
  ret;
)").empty());
  EXPECT_TRUE(converted(R"(  ld.param.u64 %rd1, [p];
  @%p1 bra L1;
  ld.global.f32 %f1, [%rd1];
  atom.global.add.u32 %r1, [%rd1+8], 1;
L1:
  ret;
)").empty());
  EXPECT_TRUE(converted(R"(  ld.param.u64 %rd1, [p];
L0:
  ld.global.f32 %f1, [%rd1];
  @%p1 bra L0;
  ret;
)").empty());
}

// The regions the rule predicates in the corpus against ptxas's: in the sm_90 SASS of each kernel
// (validation/workloads/probes/ifconv_sm90_sass.txt), the number of LDGs under a predicate. The
// PTX has no guarded global load in these kernels, so every one counted here was a region.
TEST(IfConvert, CorpusKernelsPredicateTheLoadsPtxasPredicates) {
  struct Case { const char* workload; const char* kernel; int sass_predicated_ldg; };
  const Case cases[] = {
      {"transpose", "_Z15transpose_tiledILi1EEvPKfPfii", 4}, {"transpose", "_Z15transpose_tiledILi0EEvPKfPfii", 4},
      {"transpose_naive", "_Z15transpose_tiledPKjPjii", 4}, {"dgemm", "_Z11dgemm_tilediiidPKdS0_dPd", 2},
      {"sgemm", "_Z11sgemm_tilediiifPKfS0_fPf", 2},          {"stencil", "_Z9stencil2dPKfPfii", 18},
      {"scan", "_Z9tile_scanPKiPiS1_i", 4},                  {"scan", "_Z11scan_totalsPii", 1},
      {"radix_sort", "_Z7scatterPKjS0_PjS1_iiPKi", 8},       {"bitonic_sort", "_Z16bitonic_segmentsPjPKiS1_", 5},
      {"nbody", "_Z11nbody_accelPK6float4P6float3i", 2},     {"conv2d", "_Z11conv_directPKfPfiiii", 4},
      {"conv2d", "_Z10conv_tiledILi2EEvPKfPfiii", 5},        {"conv2d", "_Z10conv_tiledILi1EEvPKfPfiii", 5},
      {"stencil3d", "_Z14stencil_tile3dPKfPfiii", 5},
      // Not matched: stencil_zmarch predicates 4 here, 2 in the SASS (its first `inside ? in[..] :
      // 0` and the odd-plane tail keep their BRA); sgemm_naive has no region.
  };
  for (const Case& c : cases) {
    const std::string path = std::string(WARPSIM_SOURCE_DIR) + "/workloads/" + c.workload + "/" + c.workload + ".ptx";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    auto r = ptx::parse(text.str(), path);
    ASSERT_TRUE(r.ok()) << path;
    const ptx::Function* f = nullptr;
    for (auto& fn : r.module->funcs)
      if (fn.name == c.kernel && fn.has_body) f = &fn;
    ASSERT_NE(f, nullptr) << c.kernel;
    auto guarded_global_loads = [](const ptx::Function& g) {
      int n = 0;
      for (auto& ins : g.instrs) n += ins.has_guard && ins.op == ptx::Opcode::Ld && ins.has(ptx::Mod::global);
      return n;
    };
    ASSERT_EQ(guarded_global_loads(*f), 0) << c.kernel;
    ptx::Function g;
    ASSERT_TRUE(if_convert(*f, g)) << c.kernel;
    EXPECT_EQ(guarded_global_loads(g), c.sass_predicated_ldg) << c.workload << " " << c.kernel;
  }
}

// Call frames (add_call_frame) on device_calls.ptx against ptxas -v and the SASS
// (validation/workloads/probes/callframe_sm90_sass.txt): fib spills 20 bytes, tree_max_path 40,
// each saved word an STL at entry and an LDL before RET, which reads the first (the return
// address); leaf functions and the kernel get none.
TEST(CallFrame, NonLeafFunctionsSaveAndReloadWhatPtxasSpills) {
  const std::string path = std::string(WARPSIM_SOURCE_DIR) + "/workloads/device_calls/device_calls.ptx";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  auto r = ptx::parse(text.str(), path);
  ASSERT_TRUE(r.ok());
  const std::pair<const char*, int> expect[] = {{"_Z3fibi", 5}, {"_Z13tree_max_pathPKii", 10}, {"_Z7minmax3iii", 0},
                                                 {"_Z6op_addii", 0}, {"_Z12calls_kernelPKiS0_Pii", 0}};
  for (auto [name, words] : expect) {
    const ptx::Function* f = nullptr;
    for (auto& fn : r.module->funcs)
      if (fn.name == name && fn.has_body) f = &fn;
    ASSERT_NE(f, nullptr) << name;
    ptx::Function g;
    const bool framed = add_call_frame(*f, g);
    EXPECT_EQ(framed, words > 0) << name;
    if (!framed) continue;
    auto count = [](const ptx::Function& h, ptx::Opcode op) {
      int c = 0;
      for (auto& ins : h.instrs) c += ins.op == op && ins.has(ptx::Mod::local);
      return c;
    };
    EXPECT_EQ(count(g, ptx::Opcode::St) - count(*f, ptx::Opcode::St), words) << name;
    EXPECT_EQ(count(g, ptx::Opcode::Ld) - count(*f, ptx::Opcode::Ld), words) << name;
    // The saves come first; every ret follows its reloads and reads the first reloaded register.
    for (int k = 0; k < words; ++k) EXPECT_EQ(g.instrs[k].op, ptx::Opcode::St) << name;
    for (size_t i = 0; i < g.instrs.size(); ++i) {
      if (g.instrs[i].op != ptx::Opcode::Ret) continue;
      ASSERT_GE(i, size_t(words));
      const ptx::Instruction& ra = g.instrs[i - words];
      ASSERT_EQ(ra.op, ptx::Opcode::Ld);
      ASSERT_EQ(g.instrs[i].operands.size(), 1u);
      EXPECT_EQ(g.instrs[i].operands[0].reg, ra.operands[0].reg) << name;
    }
    // Labels still mark the same instructions.
    for (size_t l = 0; l < f->labels.size(); ++l) {
      const uint32_t a = f->labels[l].instr, b = g.labels[l].instr;
      ASSERT_LT(b, g.instrs.size());
      if (f->instrs[a].op == ptx::Opcode::Ret) EXPECT_EQ(g.instrs[b].op, ptx::Opcode::Ld) << name;
      else EXPECT_EQ(g.instrs[b].pos.line, f->instrs[a].pos.line) << name;
    }
  }
}

}  // namespace
}  // namespace warpsim::func

namespace warpsim::func {
namespace {

// A counted loop of the form nvcc writes (two loads per trip, counter stepped down by 2 to zero,
// an order-sensitive accumulator, a body temporary live after the loop), run with 1..23 trips per
// thread: the unrolled code gives every thread the CPU's values, for trip counts under, at and
// over the 4 copies and not multiples of them.
TEST(Unroll, CountedLoopKeepsItsValuesForEveryTripCount) {
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 23;
  add.u32 %r2, %r2, 1;
  shl.b32 %r3, %r2, 1;
  mov.u32 %r10, 1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
LOOP:
  ld.global.u32 %r4, [%rd4];
  ld.global.u32 %r5, [%rd4+4];
  mad.lo.u32 %r6, %r4, 3, %r5;
  mad.lo.u32 %r10, %r10, 7, %r6;
  add.u64 %rd4, %rd4, 8;
  add.s32 %r3, %r3, -2;
  setp.ne.s32 %p1, %r3, 0;
  @%p1 bra LOOP;
  mul.wide.u32 %rd5, %r1, 8;
  add.u64 %rd6, %rd1, %rd5;
  st.global.v2.u32 [%rd6], {%r10, %r6};
  ret;
}
)";
  auto r = ptx::parse(ptx, "u.ptx");
  ASSERT_TRUE(r.ok());
  ptx::Function g;
  ASSERT_TRUE(unroll_loops(r.module->funcs.at(0), g));
  const unsigned threads = 96, words = threads + 2 * 23 + 2;
  std::vector<uint32_t> in(words);
  for (unsigned i = 0; i < words; ++i) in[i] = i * 2654435761u + 12345u;
  test::Harness h;
  ASSERT_TRUE(h.load(ptx));
  const uint64_t din = h.upload(in), dout = h.alloc(threads * 8);
  auto res = h.run("k", {1, 1, 1}, {threads, 1, 1}, test::Harness::Params().add(dout).add(din));
  ASSERT_TRUE(res.ok()) << res.report();
  const auto out = h.download<uint32_t>(dout, threads * 2);
  for (unsigned t = 0; t < threads; ++t) {
    uint32_t acc = 1, last = 0;
    const unsigned trips = t % 23 + 1;
    for (unsigned k = 0; k < trips; ++k) {
      last = in[t + 2 * k] * 3 + in[t + 2 * k + 1];
      acc = acc * 7 + last;
    }
    EXPECT_EQ(out[2 * t], acc) << "thread " << t;
    EXPECT_EQ(out[2 * t + 1], last) << "thread " << t;
  }
}

const ptx::Function* corpus_function(const std::string& workload, const std::string& name,
                                     std::unique_ptr<ptx::Module>& keep) {
  const std::string path = std::string(WARPSIM_SOURCE_DIR) + "/workloads/" + workload + "/" + workload + ".ptx";
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  auto r = ptx::parse(text.str(), path);
  if (!r.ok()) return nullptr;
  keep = std::move(r.module);
  for (auto& fn : keep->funcs)
    if (fn.name == name && fn.has_body) return &fn;
  return nullptr;
}

// The sm_90 SASS (validation/workloads/probes/unroll_sm90_sass.txt): ptxas unrolls sgemm_naive's
// k loop (8 LDGs per PTX trip) four times, 32 LDGs per trip, of which 13 issue before the first
// FFMA and at most 16 are outstanding; exclusive_scan's (4 per trip) to 16, 14 of them before the
// first use. The unrolled block has the four copies' loads, and the scheduled order puts as many
// ahead of the first arithmetic that reads a load as kLoadsInFlight allows: 16 (two copies) for
// sgemm_naive, all 16 for exclusive_scan. Loops with `.pragma "nounroll"` (sgemm_naive's
// remainder) stay.
TEST(Unroll, CorpusLoopsUnrollAsPtxasUnrollsThem) {
  struct Case { const char* workload; const char* kernel; unsigned loads_per_trip, ahead; };
  const Case cases[] = {{"sgemm", "_Z11sgemm_naiveiiifPKfS0_fPf", 32, 16}, {"radix_sort", "_Z14exclusive_scanPii", 16, 16}};
  for (const Case& c : cases) {
    std::unique_ptr<ptx::Module> keep;
    const ptx::Function* f = corpus_function(c.workload, c.kernel, keep);
    ASSERT_NE(f, nullptr) << c.kernel;
    ptx::Function g;
    ASSERT_TRUE(unroll_loops(*f, g)) << c.kernel;
    // The copies: from the label ending in _body to the branch back to it.
    uint32_t body = ~0u;
    for (auto& l : g.labels)
      if (l.name.find("_body") != std::string::npos) body = l.instr;
    ASSERT_NE(body, ~0u);
    uint32_t end = body;
    while (end < g.instrs.size() && g.instrs[end].op != ptx::Opcode::Bra) ++end;
    unsigned loads = 0;
    for (uint32_t i = body; i < end; ++i) loads += g.instrs[i].op == ptx::Opcode::Ld && g.instrs[i].has(ptx::Mod::global);
    EXPECT_EQ(loads, c.loads_per_trip) << c.kernel;
    // Loads before the first instruction that reads a load's result, in the scheduled order.
    const std::vector<uint32_t> order = schedule_loads(g);
    std::vector<bool> loaded(g.regs.size(), false);
    unsigned ahead = 0;
    for (uint32_t k = body; k < end; ++k) {
      const ptx::Instruction& ins = g.instrs[order[k]];
      bool reads_load = false;
      for (size_t o = 1; o < ins.operands.size(); ++o)
        if (ins.operands[o].kind == ptx::Operand::Kind::Reg && loaded[ins.operands[o].reg]) reads_load = true;
      if (reads_load) break;
      if (ins.op == ptx::Opcode::Ld && ins.has(ptx::Mod::global)) {
        ++ahead;
        loaded[ins.operands[0].reg] = true;
      }
    }
    EXPECT_EQ(ahead, c.ahead) << c.kernel;
  }
  // A loop under `.pragma "nounroll"` alone, as in sgemm_naive's remainder, is left.
  std::unique_ptr<ptx::Module> keep;
  const ptx::Function* f = corpus_function("sgemm", "_Z11sgemm_naiveiiifPKfS0_fPf", keep);
  ASSERT_NE(f, nullptr);
  ptx::Function g;
  ASSERT_TRUE(unroll_loops(*f, g));
  unsigned new_loops = 0;
  for (auto& l : g.labels) new_loops += l.name.find("_body") != std::string::npos;
  EXPECT_EQ(new_loops, 1u);
}

}  // namespace
}  // namespace warpsim::func
