#include "ptx/parser.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "ptx/lexer.hpp"

namespace warpsim::ptx {

std::string Diagnostic::str() const {
  return fmt::format("{}:{}:{}: error: {}", file, pos.line, pos.col, message);
}

namespace {

struct ParseError {
  SrcPos pos;
  std::string message;
};

constexpr unsigned kMaxDepth = 64;  // nesting of braces/brackets/parentheses/expressions

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "end of file";
    case Tok::String: return fmt::format("string \"{}\"", t.text);
    case Tok::Error: return fmt::format("'{}'", t.text);
    default: return fmt::format("'{}'", t.text);
  }
}

// Splits "name.a.b::c.d" at dots that are not part of "::".
void split_dots(std::string_view s, std::vector<std::string_view>& parts) {
  parts.clear();
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
}

bool parse_shape(std::string_view s, Shape& shape) {
  // m<digits>n<digits>[k<digits>]  (ldmatrix/stmatrix/movmatrix shapes have no k)
  size_t i = 0;
  auto number = [&](char lead, uint16_t& out) {
    if (i >= s.size() || s[i] != lead) return false;
    ++i;
    uint32_t v = 0;
    size_t digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 5) v = v * 10 + (s[i++] - '0'), ++digits;
    if (digits == 0 || v == 0 || v > 65535) return false;
    out = uint16_t(v);
    return true;
  };
  if (!number('m', shape.m) || !number('n', shape.n)) return false;
  shape.k = 0;
  if (i == s.size()) return true;
  return number('k', shape.k) && i == s.size();
}

bool valid_selector(std::string_view s) {
  if (s == "x" || s == "y" || s == "z" || s == "w" || s == "r" || s == "g" || s == "b" || s == "a")
    return true;
  if (s.size() >= 2 && s[0] == 'b') {  // .b0-.b3, or video byte selects .b10/.b3210 (digits 0-7)
    if (s.size() == 2) return s[1] >= '0' && s[1] <= '3';
    if (s.size() > 5) return false;
    for (size_t i = 1; i < s.size(); ++i)
      if (s[i] < '0' || s[i] > '7') return false;
    return true;
  }
  if (s.size() >= 2 && s[0] == 'h') {  // .h0/.h1, or half masks .h10 (digits 0-3)
    if (s.size() == 2) return s[1] == '0' || s[1] == '1';
    if (s.size() > 3) return false;
    for (size_t i = 1; i < s.size(); ++i)
      if (s[i] < '0' || s[i] > '3') return false;
    return true;
  }
  return false;
}

struct Scope {
  std::unordered_map<std::string_view, uint32_t> regs;                       // plain names
  std::unordered_map<std::string_view, std::pair<uint32_t, uint32_t>> ranges;  // prefix -> first,count
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> locals;  // variables
};

class Parser {
 public:
  Parser(std::string_view text, std::string filename, const ParseOptions& opts)
      : lex_(text), file_(std::move(filename)), opts_(opts) {
    cur_ = lex_.next();
    peek_ = lex_.next();
  }

  ParseResult run() {
    auto m = std::make_unique<Module>();
    m->filename = file_;
    mod_ = m.get();
    while (cur_.kind != Tok::End && errors_.size() < opts_.max_errors) {
      try {
        top_level();
      } catch (const ParseError& e) {
        error(e.pos, e.message);
        recover_top();
      }
    }
    if (errors_.empty()) resolve_module();
    ParseResult r;
    r.errors = std::move(errors_);
    if (r.errors.empty()) r.module = std::move(m);
    return r;
  }

 private:
  // ------------------------------------------------------------ token helpers
  void advance() {
    prev_end_ = cur_.end;
    cur_ = peek_;
    peek_ = lex_.next();
    if (cur_.kind == Tok::Error) fail(cur_.pos, std::string(cur_.text));
  }
  [[noreturn]] void fail(SrcPos pos, std::string msg) { throw ParseError{pos, std::move(msg)}; }
  [[noreturn]] void expected(std::string_view what) {
    fail(cur_.pos, fmt::format("expected {}, found {}", what, describe(cur_)));
  }
  void error(SrcPos pos, std::string msg) {
    if (errors_.size() < opts_.max_errors) errors_.push_back(Diagnostic{file_, pos, std::move(msg)});
  }
  bool at(char c) const { return cur_.is(c); }
  bool at_directive(std::string_view d) const { return cur_.kind == Tok::Directive && cur_.text == d; }
  void expect(char c) {
    if (!at(c)) expected(fmt::format("'{}'", c));
    advance();
  }
  bool accept(char c) {
    if (!at(c)) return false;
    advance();
    return true;
  }
  std::string_view expect_word(std::string_view what) {
    if (cur_.kind != Tok::Word) expected(what);
    std::string_view t = cur_.text;
    advance();
    return t;
  }
  // A plain identifier: no dotted suffix.
  std::string_view expect_name(std::string_view what) {
    if (cur_.kind != Tok::Word) expected(what);
    std::string_view t = cur_.text;
    if (t.find('.') != std::string_view::npos || t.find("::") != std::string_view::npos)
      fail(cur_.pos, fmt::format("expected {}, found '{}' (a name cannot contain '.')", what, t));
    advance();
    return t;
  }
  uint64_t expect_uint(std::string_view what, uint64_t max = std::numeric_limits<uint32_t>::max()) {
    if (cur_.kind != Tok::Int) expected(what);
    uint64_t v = cur_.ival;
    if (v > max) fail(cur_.pos, fmt::format("{} {} is out of range (at most {})", what, v, max));
    advance();
    return v;
  }
  void recover_top() {
    // Skip to the next top-level directive start; make progress in every case.
    unsigned depth = 0;
    bool first = true;
    for (;;) {
      if (cur_.kind == Tok::End) return;
      if (depth == 0 && !first && cur_.kind == Tok::Directive &&
          (cur_.text == ".visible" || cur_.text == ".entry" || cur_.text == ".func" ||
           cur_.text == ".extern" || cur_.text == ".weak" || cur_.text == ".global" ||
           cur_.text == ".const" || cur_.text == ".file" || cur_.text == ".section"))
        return;
      first = false;
      if (at('{')) ++depth;
      if (at('}') && depth > 0) {
        --depth;
        if (depth == 0) {
          safe_advance();
          return;
        }
      }
      safe_advance();
    }
  }
  void safe_advance() {
    try {
      advance();
    } catch (const ParseError&) {
    }
  }

  // ------------------------------------------------------------ module level
  void top_level() {
    if (cur_.kind != Tok::Directive) expected("a directive (.version, .target, .entry, .func, a variable, ...)");
    std::string_view d = cur_.text;
    if (d == ".version") {
      advance();
      if (cur_.kind != Tok::F64 && cur_.kind != Tok::Int) expected("a version number like 8.7");
      std::string_view t = cur_.text;
      size_t dot = t.find('.');
      if (dot == std::string_view::npos || dot == 0 || dot + 1 >= t.size())
        fail(cur_.pos, fmt::format("malformed .version '{}': expected MAJOR.MINOR", t));
      auto num = [&](std::string_view s) {
        uint32_t v = 0;
        if (s.size() > 4) fail(cur_.pos, fmt::format("malformed .version '{}'", t));
        for (char c : s) {
          if (c < '0' || c > '9') fail(cur_.pos, fmt::format("malformed .version '{}'", t));
          v = v * 10 + uint32_t(c - '0');
        }
        return v;
      };
      mod_->version_major = num(t.substr(0, dot));
      mod_->version_minor = num(t.substr(dot + 1));
      advance();
      return;
    }
    if (d == ".target") {
      advance();
      do {
        mod_->targets.emplace_back(expect_name("a target name such as sm_80"));
      } while (accept(','));
      return;
    }
    if (d == ".address_size") {
      advance();
      SrcPos p = cur_.pos;
      uint64_t v = expect_uint("an address size");
      if (v != 32 && v != 64) fail(p, fmt::format(".address_size must be 32 or 64, not {}", v));
      mod_->address_size = uint32_t(v);
      mod_->has_address_size = true;
      return;
    }
    if (d == ".file") {
      advance();
      FileDirective f;
      f.id = uint32_t(expect_uint("a file number"));
      if (cur_.kind != Tok::String) expected("a file name string");
      f.path = std::string(cur_.text);
      advance();
      if (accept(',')) {
        f.has_meta = true;
        f.timestamp = expect_uint("a timestamp", UINT64_MAX);
        expect(',');
        f.size = expect_uint("a file size", UINT64_MAX);
      }
      push_top(TopLevel::Kind::File, mod_->files, std::move(f));
      return;
    }
    if (d == ".section") {
      section();
      return;
    }
    if (d == ".alias") {
      advance();
      Alias a;
      a.alias = std::string(expect_name("an alias name"));
      expect(',');
      a.target = std::string(expect_name("an aliased function name"));
      expect(';');
      push_top(TopLevel::Kind::Alias, mod_->aliases, std::move(a));
      return;
    }
    if (d == ".pragma") {
      advance();
      std::string p = pragma_strings();
      push_top(TopLevel::Kind::Pragma, mod_->pragmas, std::move(p));
      return;
    }
    Linkage linkage = Linkage::None;
    if (d == ".visible" || d == ".extern" || d == ".weak" || d == ".common") {
      linkage = d == ".visible" ? Linkage::Visible
                : d == ".extern" ? Linkage::Extern
                : d == ".weak"   ? Linkage::Weak
                                 : Linkage::Common;
      advance();
      if (cur_.kind != Tok::Directive) expected("a declaration after the linkage directive");
      d = cur_.text;
    }
    if (d == ".entry" || d == ".func") {
      function(linkage);
      return;
    }
    if (d == ".global" || d == ".const" || d == ".shared" || d == ".local" || d == ".tex" ||
        d == ".shared::cta" || d == ".shared::cluster") {
      Variable v = declaration(DeclContext::Module);
      v.linkage = linkage;
      expect(';');
      push_top(TopLevel::Kind::Variable, mod_->vars, std::move(v));
      return;
    }
    fail(cur_.pos, fmt::format("unknown or misplaced directive '{}' at module level", d));
  }

  template <typename T>
  void push_top(TopLevel::Kind k, std::vector<T>& vec, T&& item) {
    mod_->order.push_back(TopLevel{k, uint32_t(vec.size())});
    vec.push_back(std::forward<T>(item));
  }

  std::string pragma_strings() {
    // .pragma "a", "b";  -- kept as the list written, joined by a separator the printer undoes.
    std::string out;
    do {
      if (cur_.kind != Tok::String) expected("a pragma string");
      if (!out.empty()) out += '\x1f';
      out += cur_.text;
      advance();
    } while (accept(','));
    expect(';');
    return out;
  }

  void section() {
    advance();
    Section s;
    if (cur_.kind != Tok::Directive) expected("a section name like .debug_info");
    s.name = std::string(cur_.text);
    advance();
    expect('{');
    while (!at('}')) {
      if (cur_.kind == Tok::End) expected("'}' closing the section");
      SectionItem item;
      if (cur_.kind == Tok::Word && peek_.is(':')) {
        item.is_label = true;
        item.label = std::string(expect_name("a label"));
        advance();  // ':'
        s.items.push_back(std::move(item));
        continue;
      }
      if (cur_.kind != Tok::Directive) expected("a data directive (.b8, .b16, .b32, .b64) or a label");
      auto t = find_type(cur_.text.substr(1));
      if (!t || (*t != Type::B8 && *t != Type::B16 && *t != Type::B32 && *t != Type::B64))
        fail(cur_.pos, fmt::format("expected .b8/.b16/.b32/.b64 in a section, found '{}'", cur_.text));
      item.type = *t;
      advance();
      do {
        SectionItem::Value v;
        if (cur_.kind == Tok::Word || cur_.kind == Tok::Directive) {
          // a label, or a section name (.b32 .debug_abbrev) for DWARF section offsets
          if (cur_.kind == Tok::Directive) {
            v.sym = std::string(cur_.text);
            advance();
          } else {
            v.sym = std::string(expect_name("a symbol"));
          }
          if (at('+') || at('-')) {
            bool minus = at('-');
            advance();
            if (minus && cur_.kind == Tok::Word) {
              v.minus_sym = std::string(expect_name("a symbol"));
            } else {
              int64_t off = const_expr(0);
              v.num = minus ? int64_t(0 - uint64_t(off)) : off;
            }
          }
        } else {
          v.num = const_expr(0);
        }
        item.values.push_back(std::move(v));
      } while (accept(','));
      s.items.push_back(std::move(item));
    }
    advance();
    push_top(TopLevel::Kind::Section, mod_->sections, std::move(s));
  }

  // ------------------------------------------------------------ declarations
  enum class DeclContext { Module, Body, Param };

  // [space] then, in any order, .align N / .attribute(...) / .vN / type / .ptr [.space] [.align N],
  // then name [<N>] [dims] [= init]. The terminator is left to the caller.
  Variable declaration(DeclContext ctx, int64_t* range = nullptr) {
    Variable v;
    v.pos = cur_.pos;
    std::string_view sp = cur_.text;
    if (sp == ".global") v.space = Space::Global;
    else if (sp == ".const") v.space = Space::Const;
    else if (sp == ".shared" || sp == ".shared::cta" || sp == ".shared::cluster") v.space = Space::Shared;
    else if (sp == ".local") v.space = Space::Local;
    else if (sp == ".param") v.space = Space::Param;
    else if (sp == ".reg") v.space = Space::Reg;
    else if (sp == ".tex") v.space = Space::Tex;
    else expected("a state space");
    advance();
    bool have_type = false;
    while (cur_.kind == Tok::Directive) {
      std::string_view d = cur_.text;
      if (d == ".align") {
        advance();
        SrcPos p = cur_.pos;
        uint64_t a = expect_uint("an alignment", 1u << 20);
        if (a == 0 || (a & (a - 1))) fail(p, fmt::format(".align must be a power of two, not {}", a));
        v.align = uint32_t(a);
      } else if (d == ".attribute") {
        advance();
        expect('(');
        do {
          if (cur_.kind != Tok::Directive) expected("an attribute like .managed");
          if (cur_.text == ".managed") {
            v.managed = true;
            advance();
          } else if (cur_.text == ".unified") {
            std::string a(cur_.text);
            advance();
            if (accept('(')) {
              a += '(';
              a += fmt::format("{}", expect_uint("a uuid", UINT64_MAX));
              expect(',');
              a += fmt::format(",{})", expect_uint("a uuid", UINT64_MAX));
              expect(')');
            }
            v.attrs.push_back(a);
          } else {
            fail(cur_.pos, fmt::format("unknown variable attribute '{}'", cur_.text));
          }
        } while (accept(','));
        expect(')');
      } else if (d == ".v2" || d == ".v4" || d == ".v8") {
        v.vec = uint8_t(d[2] - '0');
        advance();
      } else if (d == ".ptr") {
        if (ctx != DeclContext::Param) fail(cur_.pos, ".ptr is only allowed on kernel parameters");
        v.ptr = true;
        advance();
        while (cur_.kind == Tok::Directive) {
          if (cur_.text == ".global") v.ptr_space = Space::Global;
          else if (cur_.text == ".const") v.ptr_space = Space::Const;
          else if (cur_.text == ".shared") v.ptr_space = Space::Shared;
          else if (cur_.text == ".local") v.ptr_space = Space::Local;
          else if (cur_.text == ".align") {
            advance();
            SrcPos p = cur_.pos;
            uint64_t a = expect_uint("an alignment", 1u << 20);
            if (a == 0 || (a & (a - 1))) fail(p, fmt::format(".align must be a power of two, not {}", a));
            v.ptr_align = uint32_t(a);
            continue;
          } else break;
          advance();
        }
      } else {
        auto t = find_type(d.substr(1));
        if (!t) fail(cur_.pos, fmt::format("expected a type, found '{}'", d));
        if (have_type) fail(cur_.pos, fmt::format("a second type '{}' in one declaration", d));
        v.type = *t;
        have_type = true;
        advance();
      }
    }
    if (!have_type) fail(v.pos, "declaration without a type");
    v.name = std::string(expect_name("a declared name"));
    if (range && at('<')) {
      advance();
      SrcPos p = cur_.pos;
      uint64_t n = expect_uint("a register count", opts_.max_registers_per_function);
      if (n == 0) fail(p, "a register range <N> needs N > 0");
      *range = int64_t(n);
      expect('>');
    }
    while (at('[')) {
      advance();
      if (at(']')) {
        v.dims.push_back(0);
      } else {
        SrcPos p = cur_.pos;
        int64_t n = const_expr(0);
        if (n <= 0) fail(p, fmt::format("array dimension must be positive, not {}", n));
        v.dims.push_back(uint64_t(n));
      }
      expect(']');
    }
    if (at('=')) {
      if (ctx == DeclContext::Param || v.space == Space::Reg)
        fail(cur_.pos, "parameters and registers cannot have initialisers");
      advance();
      v.has_init = true;
      if ((v.type == Type::TexRef || v.type == Type::SamplerRef || v.type == Type::SurfRef) && at('{')) {
        advance();
        do {
          std::string key(expect_name("a field name such as filter_mode"));
          expect('=');
          std::string val;
          if (cur_.kind == Tok::Word) val = std::string(expect_name("a field value"));
          else val = fmt::format("{}", const_expr(0));
          v.fields.emplace_back(std::move(key), std::move(val));
        } while (accept(','));
        expect('}');
      } else {
        v.init = initializer(0);
      }
    }
    return v;
  }

  Init initializer(unsigned depth) {
    if (depth > kMaxDepth) fail(cur_.pos, "initialiser nested too deeply");
    Init in;
    if (accept('{')) {
      in.kind = Init::Kind::List;
      if (!at('}')) {
        do in.elems.push_back(initializer(depth + 1));
        while (accept(','));
      }
      expect('}');
      return in;
    }
    if (cur_.kind == Tok::F32 || cur_.kind == Tok::F64) {
      in.kind = cur_.kind == Tok::F32 ? Init::Kind::F32 : Init::Kind::F64;
      in.ival = int64_t(cur_.ival);
      advance();
      return in;
    }
    if (at('-') && (peek_.kind == Tok::F64 || peek_.kind == Tok::F32)) {
      advance();
      in.kind = cur_.kind == Tok::F32 ? Init::Kind::F32 : Init::Kind::F64;
      in.ival = int64_t(cur_.ival ^ (cur_.kind == Tok::F32 ? 0x80000000ull : 0x8000000000000000ull));
      advance();
      return in;
    }
    if (cur_.kind == Tok::Word) {
      std::string_view w = cur_.text;
      if (w == "generic" && peek_.is('(')) {
        in.kind = Init::Kind::Generic;
        advance();
        advance();
        in.name = std::string(expect_name("a symbol"));
        expect(')');
      } else {
        in.kind = Init::Kind::Symbol;
        in.name = std::string(expect_name("a symbol"));
      }
      if (at('+') || at('-')) {
        bool minus = at('-');
        advance();
        int64_t off = const_expr(0);
        in.ival = minus ? -off : off;
      }
      return in;
    }
    in.kind = Init::Kind::Int;
    in.ival = const_expr(0);
    if (at('(')) {  // 0xff00(sym): one byte of an address
      advance();
      Init inner = initializer(depth + 1);
      if (inner.kind != Init::Kind::Symbol && inner.kind != Init::Kind::Generic)
        fail(cur_.pos, "a byte mask like 0xff(...) applies to a symbol or generic(symbol)");
      expect(')');
      in.kind = Init::Kind::Mask;
      in.elems.push_back(std::move(inner));
    }
    return in;
  }

  // Integer constant expressions (PTX ISA 4.6): C operators on 64-bit integers. The '|' operator
  // is only accepted inside parentheses, since at operand level it separates p|q destinations.
  int64_t const_expr(unsigned depth, bool allow_or = false) { return binary(0, depth, allow_or); }

  static int precedence(char c, char next) {
    switch (c) {
      case '*': case '/': case '%': return 10;
      case '+': case '-': return 9;
      case '<': return next == '<' ? 8 : -1;
      case '>': return next == '>' ? 8 : -1;
      case '&': return 6;
      case '^': return 5;
      case '|': return 4;
      default: return -1;
    }
  }

  int64_t binary(int min_prec, unsigned depth, bool allow_or) {
    if (depth > kMaxDepth) fail(cur_.pos, "expression nested too deeply");
    int64_t lhs = unary(depth, allow_or);
    for (;;) {
      if (cur_.kind != Tok::Punct) return lhs;
      char c = cur_.text[0];
      if (c == '|' && !allow_or) return lhs;
      char next = peek_.kind == Tok::Punct && peek_.offset == cur_.end ? peek_.text[0] : 0;
      int prec = precedence(c, next);
      if (prec < min_prec || prec < 0) return lhs;
      SrcPos p = cur_.pos;
      advance();
      if (c == '<' || c == '>') advance();
      int64_t rhs = binary(prec + 1, depth + 1, allow_or);
      uint64_t a = uint64_t(lhs), b = uint64_t(rhs);
      switch (c) {
        case '*': lhs = int64_t(a * b); break;
        case '/':
          if (rhs == 0) fail(p, "division by zero in a constant expression");
          lhs = (lhs == INT64_MIN && rhs == -1) ? lhs : lhs / rhs;
          break;
        case '%':
          if (rhs == 0) fail(p, "division by zero in a constant expression");
          lhs = (rhs == -1) ? 0 : lhs % rhs;
          break;
        case '+': lhs = int64_t(a + b); break;
        case '-': lhs = int64_t(a - b); break;
        case '<': lhs = b >= 64 ? 0 : int64_t(a << b); break;
        case '>': lhs = b >= 64 ? (lhs < 0 ? -1 : 0) : (lhs >> b); break;
        case '&': lhs = int64_t(a & b); break;
        case '^': lhs = int64_t(a ^ b); break;
        case '|': lhs = int64_t(a | b); break;
      }
    }
  }

  int64_t unary(unsigned depth, bool allow_or) {
    if (depth > kMaxDepth) fail(cur_.pos, "expression nested too deeply");
    if (at('-')) {
      advance();
      return int64_t(0 - uint64_t(unary(depth + 1, allow_or)));
    }
    if (at('+')) {
      advance();
      return unary(depth + 1, allow_or);
    }
    if (at('~')) {
      advance();
      return ~unary(depth + 1, allow_or);
    }
    if (at('!')) {
      advance();
      return !unary(depth + 1, allow_or);
    }
    if (at('(')) {
      advance();
      int64_t v = binary(0, depth + 1, true);
      expect(')');
      return v;
    }
    if (cur_.kind != Tok::Int) expected("an integer constant");
    int64_t v = int64_t(cur_.ival);
    advance();
    return v;
  }

  // ------------------------------------------------------------ functions
  void param_list(std::vector<Variable>& out, bool allow_reg) {
    expect('(');
    if (!at(')')) {
      do {
        if (!at_directive(".param") && !(allow_reg && at_directive(".reg")))
          expected(allow_reg ? "a .param or .reg parameter" : "a .param parameter");
        Variable v = declaration(DeclContext::Param);
        out.push_back(std::move(v));
      } while (accept(','));
    }
    expect(')');
  }

  void perf_directives(Function& f) {
    auto dims = [&](std::array<uint32_t, 3>& d, uint8_t& n) {
      advance();
      n = 0;
      do {
        if (n == 3) fail(cur_.pos, "at most three dimensions");
        SrcPos p = cur_.pos;
        uint64_t v = expect_uint("a dimension");
        if (v == 0) fail(p, "a dimension must be positive");
        d[n++] = uint32_t(v);
      } while (accept(','));
    };
    for (;;) {
      if (cur_.kind != Tok::Directive) return;
      std::string_view d = cur_.text;
      if (d == ".maxntid") dims(f.perf.maxntid, f.perf.maxntid_dims);
      else if (d == ".reqntid") dims(f.perf.reqntid, f.perf.reqntid_dims);
      else if (d == ".reqnctapercluster") dims(f.perf.reqnctapercluster, f.perf.reqnctapercluster_dims);
      else if (d == ".minnctapersm") { advance(); f.perf.minnctapersm = uint32_t(expect_uint("a CTA count")); }
      else if (d == ".maxnctapersm") { advance(); f.perf.maxnctapersm = uint32_t(expect_uint("a CTA count")); }
      else if (d == ".maxnreg") { advance(); f.perf.maxnreg = uint32_t(expect_uint("a register count")); }
      else if (d == ".maxclusterrank") { advance(); f.perf.maxclusterrank = uint32_t(expect_uint("a cluster rank")); }
      else if (d == ".explicitcluster") { advance(); f.perf.explicitcluster = true; }
      else if (d == ".noreturn") { advance(); f.noreturn = true; }
      else if (d == ".pragma") { advance(); f.header_pragmas.push_back(pragma_strings()); }
      else return;
    }
  }

  void function(Linkage linkage) {
    Function f;
    f.pos = cur_.pos;
    f.linkage = linkage;
    f.is_entry = cur_.text == ".entry";
    advance();
    while (at_directive(".attribute")) {
      advance();
      expect('(');
      std::string a;
      while (!at(')')) {
        if (cur_.kind == Tok::End) expected("')'");
        a += cur_.text;
        advance();
      }
      advance();
      f.attrs.push_back(a);
    }
    if (!f.is_entry && at('(')) param_list(f.rets, true);
    f.name = std::string(expect_name("a function name"));
    if (at('(')) param_list(f.params, !f.is_entry);
    perf_directives(f);
    if (accept(';')) {
      push_top(TopLevel::Kind::Function, mod_->funcs, std::move(f));
      return;
    }
    if (!at('{')) expected("'{' or ';' after the function header");
    f.has_body = true;
    fn_ = &f;
    scopes_.clear();
    scopes_.emplace_back();
    for (uint32_t i = 0; i < f.params.size(); ++i) {
      if (f.params[i].space == Space::Reg) declare_param_reg(f.params[i]);
    }
    for (uint32_t i = 0; i < f.rets.size(); ++i) {
      if (f.rets[i].space == Space::Reg) declare_param_reg(f.rets[i]);
    }
    advance();  // '{'
    body(0);
    resolve_function(f);
    fn_ = nullptr;
    push_top(TopLevel::Kind::Function, mod_->funcs, std::move(f));
  }

  void declare_param_reg(const Variable& v) {
    // A .reg parameter behaves as a register of the body; record it so operands resolve.
    RegDecl d;
    d.type = v.type;
    d.vec = v.vec;
    d.items.push_back({v.name, -1, uint32_t(fn_->regs.size())});
    uint32_t first = uint32_t(fn_->regs.size());
    add_regs(d, v.pos, /*record_statement=*/false);
    if (!scopes_.back().regs.emplace(v.name, first).second)
      fail(v.pos, fmt::format("parameter '{}' is declared twice", v.name));
  }

  void add_regs(RegDecl& d, SrcPos pos, bool record_statement) {
    uint32_t decl_index = uint32_t(fn_->reg_decls.size());
    for (uint32_t it = 0; it < d.items.size(); ++it) {
      auto& item = d.items[it];
      item.first = uint32_t(fn_->regs.size());
      uint64_t count = item.range < 0 ? 1 : uint64_t(item.range);
      if (fn_->regs.size() + count > opts_.max_registers_per_function)
        fail(pos, fmt::format("function '{}' declares more than {} registers", fn_->name,
                              opts_.max_registers_per_function));
      for (uint64_t i = 0; i < count; ++i)
        fn_->regs.push_back(Register{d.type, d.vec, decl_index, it, item.range < 0 ? -1 : int32_t(i)});
    }
    fn_->reg_decls.push_back(std::move(d));
    if (record_statement) fn_->body.push_back({Statement::Kind::RegDecl, decl_index});
  }

  void reg_directive() {
    SrcPos pos = cur_.pos;
    advance();  // .reg
    RegDecl d;
    bool have_type = false;
    while (cur_.kind == Tok::Directive) {
      std::string_view t = cur_.text;
      if (t == ".v2" || t == ".v4" || t == ".v8") d.vec = uint8_t(t[2] - '0');
      else if (auto ty = find_type(t.substr(1)); ty && *ty != Type::TexRef && *ty != Type::SamplerRef && *ty != Type::SurfRef) {
        if (have_type) fail(cur_.pos, "a second type in one .reg declaration");
        d.type = *ty;
        have_type = true;
      } else {
        fail(cur_.pos, fmt::format("expected a register type, found '{}'", t));
      }
      advance();
    }
    if (!have_type) expected("a register type such as .b32");
    std::vector<std::pair<std::string_view, SrcPos>> names;
    do {
      SrcPos p = cur_.pos;
      std::string_view name = expect_name("a register name");
      RegDecl::Item item{std::string(name), -1, 0};
      if (accept('<')) {
        SrcPos np = cur_.pos;
        uint64_t n = expect_uint("a register count", opts_.max_registers_per_function);
        if (n == 0) fail(np, "a register range <N> needs N > 0");
        item.range = int64_t(n);
        expect('>');
      }
      d.items.push_back(std::move(item));
      names.emplace_back(name, p);
    } while (accept(','));
    expect(';');
    uint32_t decl_index = uint32_t(fn_->reg_decls.size());
    add_regs(d, pos, true);
    const RegDecl& stored = fn_->reg_decls[decl_index];
    Scope& s = scopes_.back();
    for (size_t i = 0; i < stored.items.size(); ++i) {
      std::string_view name = names[i].first;  // view into the source text: stable
      if (lookup_reg_local(s, name))
        fail(names[i].second, fmt::format("register '{}' is already declared in this scope", name));
      if (stored.items[i].range < 0) s.regs.emplace(name, stored.items[i].first);
      else {
        if (s.ranges.count(name))
          fail(names[i].second, fmt::format("register range '{}<>' is already declared in this scope", name));
        s.ranges.emplace(name, std::make_pair(stored.items[i].first, uint32_t(stored.items[i].range)));
      }
    }
  }

  static std::optional<uint32_t> lookup_reg_local(const Scope& s, std::string_view name) {
    // Most register operands are members of a %r<N> range: try the range (split the trailing
    // number, e.g. %r17 -> "%r", 17; no leading zeros except "0") before the plain names.
    size_t d = name.size();
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
    if (!s.ranges.empty() && d != name.size() && d != 0 && !(name.size() - d > 1 && name[d] == '0') &&
        name.size() - d <= 9) {
      auto it = s.ranges.find(name.substr(0, d));
      if (it != s.ranges.end()) {
        uint32_t n = 0;
        for (size_t i = d; i < name.size(); ++i) n = n * 10 + uint32_t(name[i] - '0');
        if (n < it->second.second) return it->second.first + n;
      }
    }
    if (auto it = s.regs.find(name); it != s.regs.end()) return it->second;
    return std::nullopt;
  }

  std::optional<uint32_t> lookup_reg(std::string_view name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (auto r = lookup_reg_local(*s, name)) return r;
    return std::nullopt;
  }

  std::optional<uint32_t> lookup_local(std::string_view name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (auto it = s->locals.find(name); it != s->locals.end()) return it->second;
    return std::nullopt;
  }

  void body(unsigned depth) {
    if (depth > kMaxDepth) fail(cur_.pos, "blocks nested too deeply");
    for (;;) {
      if (errors_.size() >= opts_.max_errors) return;
      if (cur_.kind == Tok::End) expected("'}' closing the function body");
      if (at('}')) {
        advance();
        return;
      }
      try {
        statement(depth);
      } catch (const ParseError& e) {
        error(e.pos, e.message);
        recover_statement();
      }
    }
  }

  void recover_statement() {
    // Skip to the end of the statement; stop before a '}' that closes an enclosing block so the
    // block structure survives ({...} vector operands inside the statement are skipped whole).
    int depth = 0;
    for (;;) {
      if (cur_.kind == Tok::End) return;
      if (at('{')) ++depth;
      if (at('}')) {
        if (depth == 0) return;
        --depth;
      }
      if (at(';') && depth == 0) {
        safe_advance();
        return;
      }
      safe_advance();
    }
  }

  void statement(unsigned depth) {
    Function& f = *fn_;
    if (at('{')) {
      advance();
      f.body.push_back({Statement::Kind::BlockBegin, 0});
      scopes_.emplace_back();
      struct Pop {
        std::vector<Scope>& s;
        ~Pop() { s.pop_back(); }
      } pop{scopes_};
      body(depth + 1);
      f.body.push_back({Statement::Kind::BlockEnd, 0});
      return;
    }
    if (cur_.kind == Tok::Directive) {
      std::string_view d = cur_.text;
      if (d == ".reg") return reg_directive();
      if (d == ".loc") return loc_directive();
      if (d == ".pragma") {
        advance();
        f.body.push_back({Statement::Kind::Pragma, uint32_t(f.pragmas.size())});
        f.pragmas.push_back(pragma_strings());
        return;
      }
      if (d == ".local" || d == ".shared" || d == ".param" || d == ".const" || d == ".global" ||
          d == ".shared::cta") {
        SrcPos p = cur_.pos;
        Variable v = declaration(DeclContext::Body);
        expect(';');
        auto& locals = scopes_.back().locals;
        if (locals.count(v.name)) fail(p, fmt::format("'{}' is already declared in this scope", v.name));
        uint32_t idx = uint32_t(f.locals.size());
        f.locals.push_back(std::move(v));
        locals.emplace(f.locals.back().name, idx);
        f.body.push_back({Statement::Kind::LocalVar, idx});
        return;
      }
      fail(cur_.pos, fmt::format("unknown or misplaced directive '{}' in a function body", d));
    }
    if (cur_.kind == Tok::Word && peek_.is(':')) return label_statement();
    instruction();
  }

  void label_statement() {
    Function& f = *fn_;
    SrcPos p = cur_.pos;
    std::string name(expect_name("a label"));
    advance();  // ':'
    if (at_directive(".callprototype")) {
      advance();
      CallPrototype proto;
      proto.name = std::move(name);
      if (at('(')) param_list(proto.rets, true);
      if (!(cur_.kind == Tok::Word && cur_.text == "_")) expected("'_' in a .callprototype");
      advance();
      if (at('(')) param_list(proto.params, true);
      if (at_directive(".noreturn")) {
        advance();
        proto.noreturn = true;
      }
      expect(';');
      f.body.push_back({Statement::Kind::Prototype, uint32_t(f.prototypes.size())});
      f.prototypes.push_back(std::move(proto));
      return;
    }
    if (at_directive(".branchtargets") || at_directive(".calltargets")) {
      TargetList t;
      t.name = std::move(name);
      t.calls = cur_.text == ".calltargets";
      advance();
      do t.targets.emplace_back(expect_name("a target label"));
      while (accept(','));
      expect(';');
      f.body.push_back({Statement::Kind::Targets, uint32_t(f.target_lists.size())});
      f.target_lists.push_back(std::move(t));
      return;
    }
    (void)p;
    f.body.push_back({Statement::Kind::Label, uint32_t(f.labels.size())});
    f.labels.push_back(Label{std::move(name), uint32_t(f.instrs.size())});
  }

  void loc_directive() {
    advance();
    LocDirective l;
    l.at.file = uint32_t(expect_uint("a file number"));
    l.at.line = uint32_t(expect_uint("a line number"));
    l.at.col = uint32_t(expect_uint("a column number"));
    while (accept(',')) {
      std::string_view key = expect_name("function_name or inlined_at");
      if (key == "function_name") {
        l.function_name = std::string(expect_name("a label"));
      } else if (key == "inlined_at") {
        l.has_inlined_at = true;
        l.inlined_at.file = uint32_t(expect_uint("a file number"));
        l.inlined_at.line = uint32_t(expect_uint("a line number"));
        l.inlined_at.col = uint32_t(expect_uint("a column number"));
      } else {
        fail(cur_.pos, fmt::format("unknown .loc attribute '{}'", key));
      }
    }
    fn_->body.push_back({Statement::Kind::Loc, uint32_t(fn_->locs.size())});
    fn_->locs.push_back(std::move(l));
    line_ = fn_->locs.back().at;
  }

  // ------------------------------------------------------------ instructions
  void instruction() {
    Function& f = *fn_;
    Instruction ins;
    ins.pos = cur_.pos;
    ins.line = line_;
    if (accept('@')) {
      ins.has_guard = true;
      if (accept('!')) ins.guard_negated = true;
      SrcPos p = cur_.pos;
      std::string_view g = expect_name("a predicate register after '@'");
      auto r = lookup_reg(g);
      if (!r) fail(p, fmt::format("undeclared guard predicate '{}'", g));
      if (f.regs[*r].type != Type::Pred) fail(p, fmt::format("guard '{}' is not a .pred register", g));
      ins.guard_reg = *r;
    }
    if (cur_.kind != Tok::Word) expected("an instruction");
    SrcPos name_pos = cur_.pos;
    std::string_view name = cur_.text;
    split_dots(name, parts_);
    // Longest dotted prefix that names an instruction.
    size_t used = 0;
    std::optional<Opcode> op;
    size_t longest = has_dotted_opcodes(parts_[0]) ? std::min<size_t>(parts_.size(), 5) : 1;
    for (size_t n = longest; n >= 1 && !op; --n) {
      size_t len = size_t(parts_[n - 1].data() + parts_[n - 1].size() - name.data());
      if ((op = find_opcode(name.substr(0, len)))) used = n;
    }
    if (!op) fail(name_pos, fmt::format("unknown instruction '{}'", parts_[0]));
    ins.op = *op;
    for (size_t i = used; i < parts_.size(); ++i) {
      std::string_view m = parts_[i];
      Mod mod;
      if (auto found = find_mod(m)) {
        mod = *found;
      } else if (parse_shape(m, ins.shape)) {
        mod = Mod::Shape;
      } else {
        fail(name_pos, fmt::format("unknown modifier '.{}' on instruction '{}'", m, opcode_name(*op)));
      }
      if (ins.nmods == Instruction::kMaxMods)
        fail(name_pos, fmt::format("too many modifiers on '{}'", opcode_name(*op)));
      ins.mods[ins.nmods++] = mod;
    }
    advance();
    ins.operands.reserve(4);
    if (!at(';')) {
      do ins.operands.push_back(operand(ins.op, 0));
      while (accept(','));
    }
    if (!at(';')) expected("',' or ';' after an operand");
    advance();
    const OpcodeInfo& info = opcode_info(ins.op);
    if (ins.operands.size() < info.min_operands || ins.operands.size() > info.max_operands) {
      if (info.min_operands == info.max_operands)
        fail(name_pos, fmt::format("'{}' takes {} operand{}, found {}", info.name, info.min_operands,
                                   info.min_operands == 1 ? "" : "s", ins.operands.size()));
      fail(name_pos, fmt::format("'{}' takes {} to {} operands, found {}", info.name, info.min_operands,
                                 info.max_operands, ins.operands.size()));
    }
    f.body.push_back({Statement::Kind::Instr, uint32_t(f.instrs.size())});
    f.instrs.push_back(std::move(ins));
  }

  Operand operand(Opcode op, unsigned depth) {
    Operand o = primary(op, depth);
    if (at('|')) {
      advance();
      Operand pair;
      pair.kind = Operand::Kind::Pair;
      pair.pos = o.pos;
      pair.elems.push_back(std::move(o));
      pair.elems.push_back(primary(op, depth + 1));
      return pair;
    }
    return o;
  }

  Operand primary(Opcode op, unsigned depth) {
    if (depth > kMaxDepth) fail(cur_.pos, "operand nested too deeply");
    Operand o;
    o.pos = cur_.pos;
    if (at('{')) {
      advance();
      o.kind = Operand::Kind::Vector;
      if (!at('}')) {
        do o.elems.push_back(operand(op, depth + 1));
        while (accept(','));
      }
      expect('}');
      return o;
    }
    if (at('[')) return memory_operand(op, depth);
    if (at('(') && op == Opcode::Call) {
      advance();
      o.kind = Operand::Kind::CallList;
      if (!at(')')) {
        do o.elems.push_back(primary(op, depth + 1));
        while (accept(','));
      }
      expect(')');
      return o;
    }
    if (at('!') && peek_.kind == Tok::Word) {
      advance();
      o = name_operand();
      if (o.kind != Operand::Kind::Reg || fn_->regs[o.reg].type != Type::Pred)
        fail(o.pos, "'!' applies only to a predicate register");
      o.negated = true;
      return o;
    }
    if (cur_.kind == Tok::Word) return name_operand();
    if (at('-') && peek_.kind == Tok::Word) {
      advance();
      o = name_operand();
      if (o.kind != Operand::Kind::Reg) fail(o.pos, "'-' before a name applies only to a register");
      o.minus = true;
      return o;
    }
    if (cur_.kind == Tok::F32 || cur_.kind == Tok::F64) {
      o.kind = cur_.kind == Tok::F32 ? Operand::Kind::F32 : Operand::Kind::F64;
      o.ival = int64_t(cur_.ival);
      advance();
      return o;
    }
    if (at('-') && (peek_.kind == Tok::F32 || peek_.kind == Tok::F64)) {
      advance();
      o.kind = cur_.kind == Tok::F32 ? Operand::Kind::F32 : Operand::Kind::F64;
      o.ival = int64_t(cur_.ival ^ (cur_.kind == Tok::F32 ? 0x80000000ull : 0x8000000000000000ull));
      advance();
      return o;
    }
    if (cur_.kind == Tok::Int || at('-') || at('~') || at('(') || at('!') || at('+')) {
      // An immediate is never the left half of a p|q pair, so '|' here is bitwise or.
      o.kind = Operand::Kind::Imm;
      o.ival = const_expr(depth, /*allow_or=*/true);
      return o;
    }
    expected("an operand");
  }

  // A register, special register, sink or symbol, with an optional .selector; symbols take an
  // optional +/- constant offset.
  Operand name_operand() {
    Operand o;
    o.pos = cur_.pos;
    std::string_view w = cur_.text;
    advance();
    if (w == "_") {
      o.kind = Operand::Kind::Sink;
      return o;
    }
    std::string_view base = w, sel;
    if (size_t dot = w.find('.'); dot != std::string_view::npos) {
      base = w.substr(0, dot);
      sel = w.substr(dot + 1);
    }
    if (base.find("::") != std::string_view::npos)
      fail(o.pos, fmt::format("'{}' is not a valid operand name", w));
    if (auto r = lookup_reg(base)) {
      o.kind = Operand::Kind::Reg;
      o.reg = *r;
      if (!sel.empty()) {
        if (!valid_selector(sel)) fail(o.pos, fmt::format("unknown register selector '.{}' on '{}'", sel, base));
        o.selector = sel;
      }
      return o;
    }
    if (auto s = find_sreg(base)) {
      o.kind = Operand::Kind::SpecialReg;
      o.sreg = s->reg;
      o.sreg_index = s->index;
      if (!sel.empty()) {
        if (!sreg_has_components(s->reg) || (sel != "x" && sel != "y" && sel != "z"))
          fail(o.pos, fmt::format("special register '{}' has no component '.{}'", base, sel));
        o.selector = sel;
      }
      return o;
    }
    if (base[0] == '%' && !sel.empty())
      fail(o.pos, fmt::format("undeclared register '{}'", base));
    if (!sel.empty()) fail(o.pos, fmt::format("unexpected '.{}' after symbol '{}'", sel, base));
    if (base[0] == '%') fail(o.pos, fmt::format("undeclared register '{}'", base));
    o.kind = Operand::Kind::Symbol;
    o.name = std::string(base);
    if (auto l = lookup_local(base)) {
      o.sym = SymKind::LocalVariable;
      o.sym_index = *l;
    }
    if ((at('+') || at('-')) && peek_.kind == Tok::Int) {
      bool minus = at('-');
      advance();
      int64_t off = int64_t(cur_.ival);
      advance();
      o.ival = minus ? int64_t(0 - uint64_t(off)) : off;
    }
    return o;
  }

  Operand memory_operand(Opcode op, unsigned depth) {
    Operand o;
    o.pos = cur_.pos;
    advance();  // '['
    std::vector<Operand> items;
    do {
      Operand item;
      item.pos = cur_.pos;
      if (at('{')) {
        items.push_back(primary(op, depth + 1));
        continue;
      }
      if (cur_.kind == Tok::Word) {
        Operand base = name_operand();
        // name_operand took "+N" after a symbol; general offsets (+-4, +(2*8)) are taken here.
        int64_t off = base.kind == Operand::Kind::Symbol ? base.ival : 0;
        base.ival = 0;
        if (at('+') || at('-')) {
          bool minus = at('-');
          advance();
          int64_t v = const_expr(depth + 1);
          off += minus ? -v : v;
        }
        if (base.kind != Operand::Kind::Reg && base.kind != Operand::Kind::Symbol &&
            base.kind != Operand::Kind::SpecialReg)
          fail(item.pos, "expected a register or symbol as an address base");
        item.kind = Operand::Kind::Address;
        item.ival = off;
        item.elems.push_back(std::move(base));
      } else {
        item.kind = Operand::Kind::Address;
        item.ival = const_expr(depth + 1);
      }
      items.push_back(std::move(item));
    } while (accept(','));
    expect(']');
    if (items.size() == 1 && items[0].kind == Operand::Kind::Address) {
      Operand a = std::move(items[0]);
      a.pos = o.pos;
      // ld [a].unified: the address is unified (generic) across host and device.
      if (cur_.kind == Tok::Directive && cur_.text == ".unified" && cur_.offset == prev_end_) {
        a.selector = "unified";
        advance();
      }
      return a;
    }
    o.kind = Operand::Kind::MemList;
    // Inside a list, plain names stay plain operands ([tex, sampler, {x,y}]).
    for (auto& it : items) {
      if (it.kind == Operand::Kind::Address && it.ival == 0 && it.elems.size() == 1) {
        Operand inner = std::move(it.elems[0]);
        o.elems.push_back(std::move(inner));
      } else {
        o.elems.push_back(std::move(it));
      }
    }
    return o;
  }

  // ------------------------------------------------------------ resolution
  void resolve_function(Function& f) {
    std::unordered_map<std::string_view, std::pair<SymKind, uint32_t>> names;
    auto add = [&](std::string_view n, SymKind k, uint32_t i, SrcPos p) {
      if (!names.emplace(n, std::make_pair(k, i)).second)
        error(p, fmt::format("'{}' is defined twice in function '{}'", n, f.name));
    };
    for (uint32_t i = 0; i < f.labels.size(); ++i) add(f.labels[i].name, SymKind::Label, i, f.pos);
    for (uint32_t i = 0; i < f.prototypes.size(); ++i) add(f.prototypes[i].name, SymKind::Prototype, i, f.pos);
    for (uint32_t i = 0; i < f.target_lists.size(); ++i)
      add(f.target_lists[i].name, f.target_lists[i].calls ? SymKind::CallTargets : SymKind::BranchTargets, i, f.pos);
    for (uint32_t i = 0; i < f.params.size(); ++i) names.emplace(f.params[i].name, std::make_pair(SymKind::Param, i));
    for (uint32_t i = 0; i < f.rets.size(); ++i)
      names.emplace(f.rets[i].name, std::make_pair(SymKind::Param, uint32_t(f.params.size() + i)));
    for (auto& t : f.target_lists) {
      for (auto& target : t.targets) {
        if (!t.calls) {
          auto it = names.find(target);
          if (it == names.end() || it->second.first != SymKind::Label)
            error(f.pos, fmt::format(".branchtargets '{}' names '{}', which is not a label of '{}'", t.name, target, f.name));
        }
      }
    }
    for (auto& ins : f.instrs) {
      for (auto& o : ins.operands) resolve_operand(o, names);
    }
  }

  void resolve_operand(Operand& o, const std::unordered_map<std::string_view, std::pair<SymKind, uint32_t>>& names) {
    if (o.kind == Operand::Kind::Symbol && o.sym == SymKind::Unresolved) {
      auto it = names.find(o.name);
      if (it != names.end()) {
        o.sym = it->second.first;
        o.sym_index = it->second.second;
      }  // else a module symbol: resolved once every declaration is known
    }
    for (auto& e : o.elems) resolve_operand(e, names);
  }

  void resolve_module() {
    std::unordered_map<std::string_view, std::pair<SymKind, uint32_t>> names;
    for (uint32_t i = 0; i < mod_->vars.size(); ++i) {
      const Variable& v = mod_->vars[i];
      if (!names.emplace(v.name, std::make_pair(SymKind::Variable, i)).second && v.linkage != Linkage::Extern)
        error(v.pos, fmt::format("variable '{}' is declared twice", v.name));
    }
    for (uint32_t i = 0; i < mod_->funcs.size(); ++i) {
      const Function& f = mod_->funcs[i];
      auto [it, fresh] = names.emplace(f.name, std::make_pair(SymKind::Function, i));
      if (fresh) continue;
      if (it->second.first != SymKind::Function) {
        error(f.pos, fmt::format("'{}' is declared both as a variable and a function", f.name));
      } else if (f.has_body) {
        if (mod_->funcs[it->second.second].has_body)
          error(f.pos, fmt::format("function '{}' is defined twice", f.name));
        it->second.second = i;  // calls bind to the definition, not a prototype
      }
    }
    for (auto& a : mod_->aliases) {
      if (!names.count(a.target)) error({}, fmt::format(".alias '{}' names undefined function '{}'", a.alias, a.target));
      names.emplace(a.alias, names.count(a.target) ? names.at(a.target) : std::make_pair(SymKind::Function, 0u));
    }
    // Operands were collected while their functions were still local objects; find them again.
    pending_.clear();
    for (auto& f : mod_->funcs)
      for (auto& ins : f.instrs)
        for (auto& o : ins.operands) collect_unresolved(o);
    for (Operand* o : pending_) {
      auto it = names.find(o->name);
      if (it == names.end()) {
        if (errors_.size() < opts_.max_errors)
          error(o->pos, fmt::format("undefined symbol '{}'", o->name));
        continue;
      }
      o->sym = it->second.first;
      o->sym_index = it->second.second;
    }
    for (auto& v : mod_->vars) check_init_symbols(v.init, names, v);
  }

  void collect_unresolved(Operand& o) {
    if (o.kind == Operand::Kind::Symbol && o.sym == SymKind::Unresolved) pending_.push_back(&o);
    for (auto& e : o.elems) collect_unresolved(e);
  }

  void check_init_symbols(const Init& in, const std::unordered_map<std::string_view, std::pair<SymKind, uint32_t>>& names,
                          const Variable& v) {
    if ((in.kind == Init::Kind::Symbol || in.kind == Init::Kind::Generic) &&
        !names.count(in.name))
      error(v.pos, fmt::format("initialiser of '{}' names undefined symbol '{}'", v.name, in.name));
    for (auto& e : in.elems) check_init_symbols(e, names, v);
  }

  Lexer lex_;
  std::string file_;
  ParseOptions opts_;
  Token cur_, peek_;
  uint32_t prev_end_ = 0;
  Module* mod_ = nullptr;
  Function* fn_ = nullptr;
  std::vector<Scope> scopes_;
  std::vector<Diagnostic> errors_;
  std::vector<std::string_view> parts_;
  std::vector<Operand*> pending_;
  LineInfo line_;
};

}  // namespace

ParseResult parse(std::string_view text, std::string filename, const ParseOptions& options) {
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    ParseResult r;
    r.errors.push_back({filename, {1, 1}, "PTX text larger than 4 GiB is not supported"});
    return r;
  }
  try {
    Parser p(text, std::move(filename), options);
    return p.run();
  } catch (const ParseError& e) {
    // Only reachable if the first tokens are already malformed.
    ParseResult r;
    r.errors.push_back({"", e.pos, e.message});
    return r;
  }
}

ParseResult parse_file(const std::string& path, const ParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ParseResult r;
    r.errors.push_back({path, {0, 0}, fmt::format("cannot open '{}': {}", path, std::strerror(errno))});
    return r;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  return parse(text, path, options);
}

}  // namespace warpsim::ptx
