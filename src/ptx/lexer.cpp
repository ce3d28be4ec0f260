#include "ptx/lexer.hpp"

#include <cstring>

namespace warpsim::ptx {

namespace {

// Character classes in one table: the lexer's inner loops are a load and a test.
enum : uint8_t { kWordStart = 1, kWord = 2, kDigit = 4, kHex = 8, kSpace = 16 };
struct CharTable {
  uint8_t c[256] = {};
  constexpr CharTable() {
    for (int ch = 'a'; ch <= 'z'; ++ch) c[ch] = kWordStart | kWord;
    for (int ch = 'A'; ch <= 'Z'; ++ch) c[ch] = kWordStart | kWord;
    for (int ch = '0'; ch <= '9'; ++ch) c[ch] = kWord | kDigit | kHex;
    for (int ch = 'a'; ch <= 'f'; ++ch) c[ch] |= kHex;
    for (int ch = 'A'; ch <= 'F'; ++ch) c[ch] |= kHex;
    c[uint8_t('_')] = kWordStart | kWord;
    c[uint8_t('$')] = kWordStart | kWord;
    c[uint8_t('%')] = kWordStart;
    c[uint8_t(' ')] = kSpace;
    c[uint8_t('\t')] = kSpace;
    c[uint8_t('\r')] = kSpace;
    c[uint8_t('\n')] = kSpace;
    c[uint8_t('\f')] = kSpace;
    c[uint8_t('\v')] = kSpace;
  }
};
constexpr CharTable kChars;
inline bool is(char ch, uint8_t cls) { return kChars.c[uint8_t(ch)] & cls; }

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

Lexer::Lexer(std::string_view src) : src_(src) {}

Token Lexer::make(Tok k, size_t start, SrcPos pos) {
  Token t;
  t.kind = k;
  t.text = src_.substr(start, i_ - start);
  t.pos = pos;
  t.offset = uint32_t(start);
  t.end = uint32_t(i_);
  return t;
}

void Lexer::skip_space_and_comments(Token& err) {
  const size_t n = src_.size();
  for (;;) {
    while (i_ < n && is(src_[i_], kSpace)) {
      if (src_[i_] == '\n') {
        ++line_;
        line_start_ = i_ + 1;
      }
      ++i_;
    }
    if (i_ + 1 < n && src_[i_] == '/' && src_[i_ + 1] == '/') {
      const void* nl = std::memchr(src_.data() + i_, '\n', n - i_);
      i_ = nl ? size_t(static_cast<const char*>(nl) - src_.data()) : n;
      continue;
    }
    if (i_ + 1 < n && src_[i_] == '/' && src_[i_ + 1] == '*') {
      SrcPos start{line_, uint32_t(i_ - line_start_ + 1)};
      i_ += 2;
      for (;;) {
        if (i_ + 1 >= n) {
          i_ = n;
          err.kind = Tok::Error;
          err.text = "unterminated /* comment";
          err.pos = start;
          return;
        }
        if (src_[i_] == '*' && src_[i_ + 1] == '/') {
          i_ += 2;
          break;
        }
        if (src_[i_] == '\n') {
          ++line_;
          line_start_ = i_ + 1;
        }
        ++i_;
      }
      continue;
    }
    return;
  }
}

Token Lexer::lex_number(size_t start, SrcPos pos) {
  const size_t n = src_.size();
  auto error = [&](const char* msg) {
    Token t = make(Tok::Error, start, pos);
    t.text = msg;
    return t;
  };
  // Float bit patterns: 0f + 8 hex digits, 0d + 16 hex digits.
  if (src_[i_] == '0' && i_ + 1 < n && (src_[i_ + 1] | 0x20) == 'f' && i_ + 2 < n &&
      is(src_[i_ + 2], kHex)) {
    i_ += 2;
    uint64_t v = 0;
    size_t digits = 0;
    while (i_ < n && is(src_[i_], kHex)) v = (v << 4) | hexval(src_[i_++]), ++digits;
    if (digits != 8 || (i_ < n && is(src_[i_], kWord))) return error("malformed 0f float literal: it takes exactly 8 hex digits");
    Token t = make(Tok::F32, start, pos);
    t.ival = v;
    return t;
  }
  if (src_[i_] == '0' && i_ + 1 < n && (src_[i_ + 1] | 0x20) == 'd' && i_ + 2 < n &&
      is(src_[i_ + 2], kHex)) {
    i_ += 2;
    uint64_t v = 0;
    size_t digits = 0;
    while (i_ < n && is(src_[i_], kHex)) v = (v << 4) | hexval(src_[i_++]), ++digits;
    if (digits != 16 || (i_ < n && is(src_[i_], kWord))) return error("malformed 0d double literal: it takes exactly 16 hex digits");
    Token t = make(Tok::F64, start, pos);
    t.ival = v;
    return t;
  }
  uint64_t v = 0;
  bool overflow = false;
  auto push = [&](unsigned base, int d) {
    if (v > (UINT64_MAX - uint64_t(d)) / base) overflow = true;
    v = v * base + uint64_t(d);
  };
  if (src_[i_] == '0' && i_ + 1 < n && (src_[i_ + 1] | 0x20) == 'x') {
    i_ += 2;
    if (i_ >= n || !is(src_[i_], kHex)) return error("malformed hex literal");
    while (i_ < n && is(src_[i_], kHex)) push(16, hexval(src_[i_++]));
  } else if (src_[i_] == '0' && i_ + 1 < n && (src_[i_ + 1] | 0x20) == 'b' && i_ + 2 < n &&
             (src_[i_ + 2] == '0' || src_[i_ + 2] == '1')) {
    i_ += 2;
    while (i_ < n && (src_[i_] == '0' || src_[i_] == '1')) push(2, src_[i_++] - '0');
  } else {
    // Decimal, octal (leading 0) or a decimal float.
    size_t j = i_;
    while (j < n && is(src_[j], kDigit)) ++j;
    bool is_float = j < n && (src_[j] == '.' || src_[j] == 'e' || src_[j] == 'E') &&
                    j + 1 < n && (is(src_[j + 1], kDigit) || src_[j + 1] == '-' || src_[j + 1] == '+');
    if (is_float && src_[j] == '.' && !is(src_[j + 1], kDigit)) is_float = false;
    if (is_float) {
      // digits [. digits] [e [+-] digits]
      i_ = j;
      if (src_[i_] == '.') {
        ++i_;
        while (i_ < n && is(src_[i_], kDigit)) ++i_;
      }
      if (i_ < n && (src_[i_] == 'e' || src_[i_] == 'E')) {
        ++i_;
        if (i_ < n && (src_[i_] == '+' || src_[i_] == '-')) ++i_;
        if (i_ >= n || !is(src_[i_], kDigit)) return error("malformed float exponent");
        while (i_ < n && is(src_[i_], kDigit)) ++i_;
      }
      if (i_ < n && is(src_[i_], kWord)) return error("malformed float literal");
      std::string text(src_.substr(start, i_ - start));
      double d = std::strtod(text.c_str(), nullptr);
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      Token t = make(Tok::F64, start, pos);
      t.ival = bits;
      return t;
    }
    if (src_[i_] == '0' && j > i_ + 1) {
      ++i_;
      while (i_ < n && is(src_[i_], kDigit)) {
        if (src_[i_] > '7') return error("malformed octal literal");
        push(8, src_[i_++] - '0');
      }
    } else {
      while (i_ < n && is(src_[i_], kDigit)) push(10, src_[i_++] - '0');
    }
  }
  bool is_unsigned = false;
  if (i_ < n && src_[i_] == 'U') {
    is_unsigned = true;
    ++i_;
  }
  if (i_ < n && is(src_[i_], kWord)) return error("malformed integer literal");
  if (overflow) return error("integer literal does not fit in 64 bits");
  Token t = make(Tok::Int, start, pos);
  t.ival = v;
  t.is_unsigned = is_unsigned;
  return t;
}

Token Lexer::next() {
  Token err;
  skip_space_and_comments(err);
  if (err.kind == Tok::Error) return err;
  const size_t n = src_.size();
  const size_t start = i_;
  SrcPos pos{line_, uint32_t(i_ - line_start_ + 1)};
  if (i_ >= n) return make(Tok::End, start, pos);
  const char c = src_[i_];

  // A word: identifier followed by .suffix or ::suffix parts (each part at least one word char).
  if (is(c, kWordStart)) {
    ++i_;
    while (i_ < n && is(src_[i_], kWord)) ++i_;
    if (i_ == start + 1 && (c == '%' || c == '$')) {
      Token t = make(Tok::Error, start, pos);
      t.text = "a name cannot be a lone '%' or '$'";
      return t;
    }
    for (;;) {
      if (i_ + 1 < n && src_[i_] == '.' && is(src_[i_ + 1], kWord)) {
        i_ += 2;
      } else if (i_ + 2 < n && src_[i_] == ':' && src_[i_ + 1] == ':' && is(src_[i_ + 2], kWord)) {
        i_ += 3;
      } else {
        break;
      }
      while (i_ < n && is(src_[i_], kWord)) ++i_;
    }
    return make(Tok::Word, start, pos);
  }
  if (c == '.' && i_ + 1 < n && is(src_[i_ + 1], kWord)) {
    ++i_;
    while (i_ < n && is(src_[i_], kWord)) ++i_;
    while (i_ + 2 < n && src_[i_] == ':' && src_[i_ + 1] == ':' && is(src_[i_ + 2], kWord)) {
      i_ += 3;
      while (i_ < n && is(src_[i_], kWord)) ++i_;
    }
    return make(Tok::Directive, start, pos);
  }
  if (is(c, kDigit)) return lex_number(start, pos);
  if (c == '"') {
    ++i_;
    while (i_ < n && src_[i_] != '"' && src_[i_] != '\n') {
      if (src_[i_] == '\\' && i_ + 1 < n && src_[i_ + 1] != '\n') ++i_;
      ++i_;
    }
    if (i_ >= n || src_[i_] != '"') {
      Token t = make(Tok::Error, start, pos);
      t.text = "unterminated string literal";
      return t;
    }
    ++i_;
    Token t = make(Tok::String, start, pos);
    t.text = src_.substr(start + 1, i_ - start - 2);
    return t;
  }
  switch (c) {
    case ',': case ';': case ':': case '(': case ')': case '[': case ']': case '{': case '}':
    case '+': case '-': case '*': case '/': case '%': case '!': case '|': case '<': case '>':
    case '@': case '=': case '~': case '&': case '^': case '?':
      ++i_;
      return make(Tok::Punct, start, pos);
    default: break;
  }
  ++i_;
  Token t = make(Tok::Error, start, pos);
  t.text = "unexpected character";
  return t;
}

}  // namespace warpsim::ptx
