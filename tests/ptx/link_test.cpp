// ptx::link_ptx: translation units of relocatable device code linked into one module.
#include "ptx/link.hpp"

#include <gtest/gtest.h>

#include <set>

#include "ptx/parser.hpp"

using namespace warpsim;

namespace {

const char* kUnitA = R"(
.version 8.7
.target sm_80
.address_size 64
.extern .func (.param .b32 r) helper(.param .b32 a);
.extern .global .align 4 .u32 shared_count;
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.global .align 1 .b8 $str[4] = {65, 58, 10, 0};
.weak .func (.param .b32 r) inl(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry ka(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .loc 1 7 3, function_name $L__info_string0, inlined_at 1 9 2
  mov.u64 %rd1, $str;
  ret;
}
	.file	1 "/src/a.cu"
	.section	.debug_str
	{
$L__info_string0:
.b8 97,0
	}
)";

const char* kUnitB = R"(
.version 8.8
.target sm_80
.address_size 64
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.global .align 1 .b8 $str[4] = {66, 58, 10, 0};
.visible .global .align 4 .u32 shared_count = 3;
.weak .func (.param .b32 r) inl(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .func (.param .b32 r) helper(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry kb(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .loc 1 4 1
  mov.u64 %rd1, $str;
  ret;
}
	.file	1 "/src/b.cu" // a comment
)";

}  // namespace

TEST(Link, ResolvesExternsRenamesClashesKeepsOneWeakCopy) {
  std::string out, err;
  ASSERT_TRUE(ptx::link_ptx({kUnitA, kUnitB}, out, err)) << err;
  auto r = ptx::parse(out, "linked.ptx");
  ASSERT_TRUE(r.ok()) << (r.errors.empty() ? std::string() : r.errors.front().message) << "\n" << out;
  const ptx::Module& m = *r.module;
  EXPECT_EQ(m.version_major * 10 + m.version_minor, 88);  // the highest .version
  int helpers = 0, inls = 0, vprintfs = 0;
  bool ka = false, kb = false;
  for (auto& f : m.funcs) {
    helpers += f.name == "helper";
    inls += f.name == "inl";
    vprintfs += f.name == "vprintf";
    ka |= f.name == "ka";
    kb |= f.name == "kb";
  }
  EXPECT_EQ(helpers, 1);   // the extern declaration dropped for the definition
  EXPECT_EQ(inls, 1);      // one copy of the weak function
  EXPECT_EQ(vprintfs, 1);  // an extern no unit defines, declared once
  EXPECT_TRUE(ka && kb);
  std::set<std::string> vars;
  for (auto& v : m.vars) vars.insert(v.name);
  EXPECT_TRUE(vars.count("$str__tu0") && vars.count("$str__tu1")) << out;
  EXPECT_TRUE(vars.count("shared_count"));
  EXPECT_EQ(vars.count("$str"), 0u);
  // Each unit's function names its own string; .file ids renumbered per unit, .loc kept.
  EXPECT_NE(out.find("mov.u64 %rd1, $str__tu0;"), std::string::npos) << out;
  EXPECT_NE(out.find("mov.u64 %rd1, $str__tu1;"), std::string::npos) << out;
  EXPECT_NE(out.find(".file 1001 \"/src/b.cu\""), std::string::npos) << out;
  EXPECT_NE(out.find(".loc 1001 4 1"), std::string::npos) << out;
  EXPECT_NE(out.find(".loc 1 7 3"), std::string::npos) << out;
  EXPECT_EQ(out.find("inlined_at"), std::string::npos);
  EXPECT_EQ(out.find(".section"), std::string::npos);
}

TEST(Link, TwoStrongDefinitionsAreAnError) {
  const char* a = ".version 8.7\n.target sm_80\n.address_size 64\n.visible .global .u32 x = 1;\n";
  const char* b = ".version 8.7\n.target sm_80\n.address_size 64\n.visible .global .u32 x = 2;\n";
  std::string out, err;
  EXPECT_FALSE(ptx::link_ptx({a, b}, out, err));
  EXPECT_NE(err.find("'x'"), std::string::npos) << err;
}

TEST(Link, UnbalancedInputIsAnError) {
  std::string out, err;
  EXPECT_FALSE(ptx::link_ptx({".version 8.7\n.target sm_80\n.entry k() {\n", ".version 8.7\n"}, out, err));
  EXPECT_FALSE(err.empty());
}
