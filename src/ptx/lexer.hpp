// PTX tokens. One pass over the text, no allocation per token: a token is a view into the
// source. A word keeps its dotted suffixes ("add.rn.f32", "%tid.x", "ld.global.L2::cache_hint")
// so the parser splits an instruction name from its modifiers without re-lexing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ptx/ir.hpp"

namespace warpsim::ptx {

enum class Tok : uint8_t {
  End,
  Word,       // identifier, possibly with .suffixes: add.s32, %r1, $L__BB0_1, _Z3foo
  Directive,  // .reg, .b32, .shared::cta (text includes the dot)
  Int,        // integer literal (value in ival, is_unsigned for a U suffix)
  F32,        // 0fXXXXXXXX
  F64,        // 0dXXXXXXXXXXXXXXXX or decimal float (bits in ival)
  String,     // "..." (text without quotes, escapes kept as written)
  Punct,      // one character: , ; : ( ) [ ] { } + - * / % ! | < > @ = ~ & ^ ?
  Error,      // malformed input; text says what
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
  uint64_t ival = 0;
  bool is_unsigned = false;
  SrcPos pos;
  uint32_t offset = 0;  // byte offset of the first character
  uint32_t end = 0;     // byte offset past the last character

  bool is(char c) const { return kind == Tok::Punct && text[0] == c; }
};

class Lexer {
 public:
  explicit Lexer(std::string_view src);
  Token next();
  std::string_view source() const { return src_; }

 private:
  void skip_space_and_comments(Token& err);
  Token make(Tok k, size_t start, SrcPos pos);
  Token lex_number(size_t start, SrcPos pos);

  std::string_view src_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace warpsim::ptx
