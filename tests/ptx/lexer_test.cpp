#include <gtest/gtest.h>

#include <cstring>

#include "ptx/lexer.hpp"

using namespace warpsim::ptx;

namespace {
std::vector<Token> lex_all(std::string_view s) {
  Lexer l(s);
  std::vector<Token> out;
  for (;;) {
    Token t = l.next();
    out.push_back(t);
    if (t.kind == Tok::End || t.kind == Tok::Error) return out;
  }
}
Token one(std::string_view s) {
  auto t = lex_all(s);
  EXPECT_GE(t.size(), 1u);
  return t[0];
}
double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
}  // namespace

TEST(Lexer, IntegerForms) {
  EXPECT_EQ(one("42").ival, 42u);
  EXPECT_EQ(one("0x1F").ival, 31u);
  EXPECT_EQ(one("0XfF").ival, 255u);  // 0X is hex too
  EXPECT_EQ(one("017").ival, 15u);    // octal
  EXPECT_EQ(one("0b101").ival, 5u);
  EXPECT_EQ(one("0").ival, 0u);
  Token u = one("4294967295U");
  EXPECT_EQ(u.kind, Tok::Int);
  EXPECT_TRUE(u.is_unsigned);
  EXPECT_EQ(u.ival, 4294967295u);
  EXPECT_EQ(one("0xFFFFFFFFFFFFFFFF").ival, UINT64_MAX);
}

TEST(Lexer, IntegerErrors) {
  EXPECT_EQ(one("0x1FFFFFFFFFFFFFFFF").kind, Tok::Error);  // 65 bits
  EXPECT_EQ(one("018").kind, Tok::Error);                  // not octal
  EXPECT_EQ(one("12abc").kind, Tok::Error);
  EXPECT_EQ(one("0x").kind, Tok::Error);
}

TEST(Lexer, FloatBitPatterns) {
  Token f = one("0f3F800000");
  EXPECT_EQ(f.kind, Tok::F32);
  EXPECT_EQ(f.ival, 0x3F800000u);
  Token d = one("0D3FF0000000000000");
  EXPECT_EQ(d.kind, Tok::F64);
  EXPECT_EQ(d.ival, 0x3FF0000000000000ull);
  EXPECT_EQ(one("0f3F80000").kind, Tok::Error);   // 7 digits
  EXPECT_EQ(one("0d3FF00000").kind, Tok::Error);  // too short
}

TEST(Lexer, DecimalFloatsAreDoubles) {
  Token t = one("1.5");
  EXPECT_EQ(t.kind, Tok::F64);
  EXPECT_EQ(as_double(t.ival), 1.5);
  EXPECT_EQ(as_double(one("2.5e-3").ival), 2.5e-3);
  EXPECT_EQ(as_double(one("1e10").ival), 1e10);
}

TEST(Lexer, WordsKeepDottedSuffixes) {
  auto t = lex_all("ld.global.L2::cache_hint.v4.u32 {%r1, _}, [%rd2+-8];");
  ASSERT_EQ(t[0].kind, Tok::Word);
  EXPECT_EQ(t[0].text, "ld.global.L2::cache_hint.v4.u32");
  EXPECT_TRUE(t[1].is('{'));
  EXPECT_EQ(t[2].text, "%r1");
  EXPECT_EQ(t[4].text, "_");
  EXPECT_TRUE(t[7].is('['));
  EXPECT_EQ(t[8].text, "%rd2");
  EXPECT_TRUE(t[9].is('+'));
  EXPECT_TRUE(t[10].is('-'));
  EXPECT_EQ(t[11].ival, 8u);
}

TEST(Lexer, LabelColonIsSeparate) {
  auto t = lex_all("$L__BB0_1:\n cp.async.bulk.tensor.2d.shared::cluster");
  EXPECT_EQ(t[0].text, "$L__BB0_1");
  EXPECT_TRUE(t[1].is(':'));
  EXPECT_EQ(t[2].text, "cp.async.bulk.tensor.2d.shared::cluster");
}

TEST(Lexer, DirectivesAndStrings) {
  auto t = lex_all(".shared::cta .b32 .file 1 \"a \\\"b\\\".cu\"");
  EXPECT_EQ(t[0].kind, Tok::Directive);
  EXPECT_EQ(t[0].text, ".shared::cta");
  EXPECT_EQ(t[1].text, ".b32");
  EXPECT_EQ(t[4].kind, Tok::String);
  EXPECT_EQ(t[4].text, "a \\\"b\\\".cu");
}

TEST(Lexer, CommentsAndPositions) {
  auto t = lex_all("// line comment\n  /* block\n comment */ add // x\n\tret;");
  EXPECT_EQ(t[0].text, "add");
  EXPECT_EQ(t[0].pos.line, 3u);
  EXPECT_EQ(t[0].pos.col, 13u);
  EXPECT_EQ(t[1].text, "ret");
  EXPECT_EQ(t[1].pos.line, 4u);
  EXPECT_EQ(t[1].pos.col, 2u);
}

TEST(Lexer, MalformedInput) {
  EXPECT_EQ(one("/* never closed").kind, Tok::Error);
  EXPECT_EQ(one("\"no end").kind, Tok::Error);
  EXPECT_EQ(one("#").kind, Tok::Error);
  EXPECT_EQ(one("%").kind, Tok::Error);
  EXPECT_EQ(one("").kind, Tok::End);
}
