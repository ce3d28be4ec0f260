// The decoder's load scheduling (func/schedule.cpp): which instructions move, which never do.
// Expected orders are written out by hand from the rules: a load goes up with the arithmetic it
// depends on; nothing crosses memory, control-flow or clock instructions; register dependencies
// and the order among loads stay.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "func/schedule.hpp"
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

TEST(Schedule, NothingCrossesClockReadsStoresOrBranches) {
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
  // Line 6 passes line 5 (both between the store and the branch); line 9 passes line 8 within
  // its block; the clock read, the store and the branch stay where they are.
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

}  // namespace
}  // namespace warpsim::func
