// Bad input must give a clear error at the right place, never a crash or a silent skip.
#include <gtest/gtest.h>

#include "ptx/parser.hpp"

using namespace warpsim::ptx;

namespace {

struct Expect {
  const char* body;      // function body lines, after the standard declarations
  const char* message;   // substring of the first error
  uint32_t line;         // line of the first error (1-based, in the whole module)
};

std::string module_with(const char* body) {
  return std::string(
             ".version 8.7\n.target sm_80\n.address_size 64\n"  // lines 1-3
             ".visible .entry k(.param .u64 p)\n{\n"          // lines 4-5
             ".reg .b32 %r<4>;\n.reg .pred %p<2>;\n") +          // lines 6-7
         body + "\n}\n";                                          // body from line 8
}

}  // namespace

class BadInstruction : public ::testing::TestWithParam<Expect> {};

TEST_P(BadInstruction, ReportsFileLineColumnAndWhat) {
  const Expect& e = GetParam();
  auto r = parse(module_with(e.body), "bad.ptx");
  ASSERT_FALSE(r.ok()) << "accepted: " << e.body;
  ASSERT_FALSE(r.errors.empty());
  const Diagnostic& d = r.errors[0];
  EXPECT_NE(d.message.find(e.message), std::string::npos) << "got: " << d.str();
  EXPECT_EQ(d.pos.line, e.line) << d.str();
  EXPECT_GT(d.pos.col, 0u);
  EXPECT_EQ(d.str().rfind("bad.ptx:", 0), 0u) << d.str();
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BadInstruction,
    ::testing::Values(
        Expect{"frob.u32 %r1, %r2;", "unknown instruction 'frob'", 8},
        Expect{"add.s33 %r1, %r2, %r3;", "unknown modifier '.s33' on instruction 'add'", 8},
        Expect{"add.s32 %r1, %r2;", "'add' takes 3 operands, found 2", 8},
        Expect{"mov.u32 %r1, 1\nret;", "expected ',' or ';'", 9},
        Expect{"mov.u32 %r9, 1;", "undeclared register '%r9'", 8},
        Expect{"mov.u32 %r1, %q;", "undeclared register '%q'", 8},
        Expect{"@%r1 bra L;", "is not a .pred register", 8},
        Expect{"@%p7 bra L;", "undeclared guard predicate", 8},
        Expect{"bra nowhere;", "undefined symbol 'nowhere'", 8},
        Expect{"mov.u32 %r1, %tid.w;", "has no component '.w'", 8},
        Expect{"mov.u32 %r1, %r2.q;", "unknown register selector", 8},
        Expect{"add.s32 %r1, !%r2, 1;", "'!' applies only to a predicate", 8},
        Expect{".reg .b32 %r<4>;", "already declared", 8},
        Expect{"L1:\nL1:\nret;", "defined twice", 4},
        Expect{"mov.u32 %r1, 0f3F80;", "0f float literal", 8},
        Expect{"mov.u32 %r1, 1 / 0;", "division by zero", 8},
        Expect{".reg .b32 %x<0>;", "N > 0", 8},
        Expect{".shared .align 3 .b8 s[4];", "power of two", 8},
        Expect{".local .b8 s[0];", "array dimension must be positive", 8},
        Expect{"ld.global.u32 %r1, [%r2+];", "expected an integer constant", 8},
        Expect{"st.global.u32 [%r2 %r1;", "expected ']'", 8},
        Expect{"/* unterminated", "unterminated /* comment", 8},
        Expect{".bogus 1;", "unknown or misplaced directive '.bogus'", 8}));

TEST(ParseErrors, SeveralErrorsAreReportedAndTheRestStillChecked) {
  auto r = parse(module_with("frob %r1;\nadd.s32 %r1, %r2, %r3;\nadd.zz.s32 %r1, %r2, %r3;\nmov.u32 %r1, {%r2};\nbad2;"), "m.ptx");
  ASSERT_FALSE(r.ok());
  ASSERT_GE(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0].pos.line, 8u);
  EXPECT_EQ(r.errors[1].pos.line, 10u);
  EXPECT_EQ(r.errors.back().pos.line, 12u);
}

TEST(ParseErrors, ErrorLimitIsRespected) {
  std::string body;
  for (int i = 0; i < 100; ++i) body += "frob;\n";
  ParseOptions o;
  o.max_errors = 5;
  auto r = parse(module_with(body.c_str()), "m.ptx", o);
  EXPECT_EQ(r.errors.size(), 5u);
}

TEST(ParseErrors, ModuleLevel) {
  auto r = parse(".version 8.7\n.target sm_80\n.address_size 48\n", "m.ptx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("32 or 64"), std::string::npos);
  r = parse(".version eight\n", "m.ptx");
  ASSERT_FALSE(r.ok());
  r = parse(".version 8.7\n.entry k(\n", "m.ptx");
  ASSERT_FALSE(r.ok());
  r = parse(".version 8.7\n.entry k()\n{\nret;\n", "m.ptx");  // missing '}'
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("'}'"), std::string::npos);
  r = parse(".version 8.7\n.global .u32 x = {1, y};\n", "m.ptx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("undefined symbol 'y'"), std::string::npos);
  r = parse(".version 8.7\n.entry k()\n{\nret;\n}\n.entry k()\n{\nret;\n}\n", "m.ptx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("defined twice"), std::string::npos);
}

TEST(ParseErrors, HostileSizesAreBounded) {
  // A huge register range must be refused, not allocated.
  auto r = parse(module_with(".reg .b32 %big<4000000000>;"), "m.ptx");
  ASSERT_FALSE(r.ok());
  // Deep nesting must not overflow the stack.
  std::string deep(100000, '{');
  r = parse(".version 8.7\n.global .u32 x[1] = " + deep + ";\n", "m.ptx");
  ASSERT_FALSE(r.ok());
  std::string parens(100000, '(');
  r = parse(module_with(("mov.u32 %r1, " + parens + "1;").c_str()), "m.ptx");
  ASSERT_FALSE(r.ok());
  std::string blocks(100000, '{');
  r = parse(module_with(blocks.c_str()), "m.ptx");
  ASSERT_FALSE(r.ok());
}

TEST(ParseErrors, BinaryGarbageDoesNotCrash) {
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 1664525u + 1013904223u;
    junk.push_back(char(x >> 24));
  }
  auto r = parse(junk, "junk.ptx");
  EXPECT_FALSE(r.ok());
  junk.insert(0, std::string(".version 8.7\n.entry k()\n{\n"));
  r = parse(junk, "junk.ptx");
  EXPECT_FALSE(r.ok());
}

TEST(ParseErrors, MissingFile) {
  auto r = parse_file("/nonexistent/dir/x.ptx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("cannot open"), std::string::npos);
}
