#include <gtest/gtest.h>

#include "ptx/parser.hpp"
#include "ptx/summary.hpp"

using namespace warpsim::ptx;

// Expected figures are worked out by hand from the module text below.
TEST(Summary, KernelResources) {
  auto r = parse(
      ".version 8.7\n.target sm_80\n.address_size 64\n"
      ".shared .align 4 .b8 used[100];\n"
      ".shared .align 4 .b8 unused[4096];\n"
      ".extern .shared .align 16 .b8 dyn[];\n"
      ".func helper()\n{\n.shared .align 8 .b8 hs[16];\n.reg .b32 %r<2>;\nmov.u32 %r1, used;\nret;\n}\n"
      ".visible .entry k(.param .u32 a, .param .u64 b, .param .align 4 .b8 c[12])\n.maxntid 128\n{\n"
      ".local .align 8 .b8 depot[40];\n.shared .align 4 .b8 ks[256];\n"
      ".reg .b32 %r<5>;\n.reg .b64 %rd<3>;\n.reg .pred %p;\n"
      "mov.u64 %rd1, dyn;\ncall helper;\nret;\n}\n",
      "s.ptx");
  for (auto& e : r.errors) ADD_FAILURE() << e.str();
  ASSERT_TRUE(r.ok());
  ModuleSummary s = summarize(*r.module);
  ASSERT_EQ(s.kernels.size(), 1u);
  const KernelSummary& k = s.kernels[0];
  EXPECT_EQ(k.name, "k");
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[0].offset, 0u);
  EXPECT_EQ(k.params[1].offset, 8u);   // .u64 aligned to 8
  EXPECT_EQ(k.params[2].offset, 16u);
  EXPECT_EQ(k.param_bytes, 28u);
  EXPECT_EQ(k.regs_total, 9u);  // %r<5> + %rd<3> + %p
  // ks (256) + helper's hs (16, at 256) + module 'used' (100, at 272); 'unused' is not reached.
  EXPECT_EQ(k.static_shared_bytes, 372u);
  EXPECT_TRUE(k.dynamic_shared);
  EXPECT_EQ(k.local_bytes, 40u);
  EXPECT_EQ(k.instructions, 5u);
  ASSERT_EQ(k.callees.size(), 1u);
  EXPECT_EQ(k.callees[0], "helper");
  EXPECT_EQ(k.perf.maxntid[0], 128u);
  std::string text = format_summary(s, "s.ptx");
  EXPECT_NE(text.find("kernel k"), std::string::npos);
  EXPECT_NE(text.find("372 bytes static + dynamic"), std::string::npos);
}

TEST(Summary, Demangles) {
  EXPECT_EQ(demangle("_Z6vecaddPKfS0_Pfi"), "vecadd(float const*, float const*, float*, int)");
  EXPECT_EQ(demangle("plain_kernel"), "plain_kernel");
  EXPECT_EQ(demangle("_Znot valid"), "_Znot valid");
}
