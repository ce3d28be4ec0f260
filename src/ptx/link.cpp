#include "ptx/link.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <set>

namespace warpsim::ptx {

namespace {

struct Stmt {
  std::string text;
  enum Kind { Header, File, Section, Func, Var, Other } kind = Other;
  std::string name;
  bool ext = false, visible = false, weak = false, common = false, definition = false;
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }

// The words of a statement's head (up to its body or initializer), without comments.
std::vector<std::string> head_words(const std::string& s) {
  std::vector<std::string> w;
  std::string cur;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '{' || c == '=' || c == ';') break;
    if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == ',' || c == '[' || c == '<') {
      if (!cur.empty()) w.push_back(cur);
      cur.clear();
      if (c == '(' || c == ')') w.push_back(std::string(1, c));
      if (c == '[' || c == '<') w.push_back("[");
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) w.push_back(cur);
  return w;
}

void classify(Stmt& st) {
  const auto w = head_words(st.text);
  if (w.empty()) return;
  if (w[0] == ".version" || w[0] == ".target" || w[0] == ".address_size") {
    st.kind = Stmt::Header;
    return;
  }
  if (w[0] == ".file") {
    st.kind = Stmt::File;
    return;
  }
  if (w[0] == ".section") {
    st.kind = Stmt::Section;
    return;
  }
  size_t i = 0;
  for (; i < w.size() && w[i][0] == '.'; ++i) {
    if (w[i] == ".extern") st.ext = true;
    if (w[i] == ".visible") st.visible = true;
    if (w[i] == ".weak") st.weak = true;
    if (w[i] == ".common") st.common = true;
    if (w[i] == ".func" || w[i] == ".entry") st.kind = Stmt::Func;
    if (w[i] == ".global" || w[i] == ".const" || w[i] == ".shared" || w[i] == ".local") st.kind = Stmt::Var;
    if (st.kind == Stmt::Func) {
      ++i;
      break;
    }
  }
  if (st.kind == Stmt::Func) {
    if (i < w.size() && w[i] == "(") {  // the return parameter list
      int depth = 0;
      for (; i < w.size(); ++i) {
        if (w[i] == "(") ++depth;
        if (w[i] == ")" && --depth == 0) {
          ++i;
          break;
        }
      }
    }
    if (i < w.size()) st.name = w[i];
    st.definition = st.text.find('{') != std::string::npos;
    return;
  }
  if (st.kind == Stmt::Var) {
    // .global .align 4 .u32 name[...] = ...: the first word that is neither a directive nor a number.
    for (; i < w.size(); ++i) {
      if (w[i][0] == '.' || std::isdigit(static_cast<unsigned char>(w[i][0]))) continue;
      if (ident_start(w[i][0])) {
        st.name = w[i];
        break;
      }
    }
    st.definition = !st.ext;
  }
}

// Top-level statements: ';'-terminated, a function with its body, a braced .section, or a
// line-based directive (.version, .target, .address_size, .file). Comments are dropped.
bool split(const std::string& src, std::vector<Stmt>& out, std::string& error) {
  std::string cur;
  int depth = 0;
  bool line_directive = false;
  auto flush = [&] {
    size_t b = cur.find_first_not_of(" \t\r\n");
    if (b != std::string::npos) {
      Stmt st;
      st.text = cur.substr(b);
      classify(st);
      out.push_back(std::move(st));
    }
    cur.clear();
    line_directive = false;
  };
  for (size_t i = 0; i < src.size(); ++i) {
    char c = src[i];
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') ++i;
      if (i < src.size()) --i;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      size_t e = src.find("*/", i + 2);
      if (e == std::string::npos) {
        error = "unterminated comment";
        return false;
      }
      i = e + 1;
      cur += ' ';
      continue;
    }
    if (c == '"') {
      size_t e = i + 1;
      while (e < src.size() && src[e] != '"') e += src[e] == '\\' ? 2 : 1;
      if (e >= src.size()) {
        error = "unterminated string";
        return false;
      }
      cur.append(src, i, e - i + 1);
      i = e;
      continue;
    }
    if (depth == 0 && cur.find_first_not_of(" \t\r\n") == std::string::npos && c == '.') {
      for (const char* d : {".version", ".target", ".address_size", ".file"})
        if (src.compare(i, std::strlen(d), d) == 0 && i + std::strlen(d) < src.size() &&
            std::isspace(static_cast<unsigned char>(src[i + std::strlen(d)])))
          line_directive = true;
    }
    if (line_directive && c == '\n') {
      flush();
      continue;
    }
    cur += c;
    if (c == '{') ++depth;
    if (c == '}') {
      if (--depth < 0) {
        error = "unbalanced '}'";
        return false;
      }
      // A function body or section ends the statement; an initializer ends at its ';'.
      if (depth == 0) {
        size_t brace = cur.find('{'), eq = cur.find('=');
        if (eq == std::string::npos || eq > brace) flush();
      }
    }
    if (c == ';' && depth == 0) flush();
  }
  flush();
  if (depth != 0) {
    error = "unbalanced '{'";
    return false;
  }
  return true;
}

// Replaces the identifier `from` by `to` wherever it stands as a whole identifier.
std::string rename(const std::string& s, const std::string& from, const std::string& to) {
  std::string r;
  r.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    size_t p = s.find(from, i);
    if (p == std::string::npos) break;
    bool left = p == 0 || !(ident_char(s[p - 1]) || s[p - 1] == '%');
    bool right = p + from.size() >= s.size() || !ident_char(s[p + from.size()]);
    r.append(s, i, p - i);
    r += left && right ? to : from;
    i = p + from.size();
  }
  r.append(s, i, std::string::npos);
  return r;
}

}  // namespace

bool link_ptx(const std::vector<std::string>& units, std::string& out, std::string& error) {
  std::vector<std::vector<Stmt>> tus(units.size());
  for (size_t u = 0; u < units.size(); ++u)
    if (!split(units[u], tus[u], error)) {
      error = fmt::format("unit {}: {}", u, error);
      return false;
    }
  // Who defines what.
  std::map<std::string, size_t> strong;        // visible / common definitions -> unit
  std::set<std::string> defined;               // with external linkage, any unit
  std::map<std::string, int> internal_count;   // internal definitions per name
  for (size_t u = 0; u < tus.size(); ++u)
    for (auto& st : tus[u]) {
      if ((st.kind != Stmt::Func && st.kind != Stmt::Var) || st.name.empty() || !st.definition) continue;
      if (st.visible || st.common) {
        auto [it, fresh] = strong.emplace(st.name, u);
        if (!fresh && it->second != u && !st.common) {
          error = fmt::format("'{}' is defined in two translation units", st.name);
          return false;
        }
      }
      if (st.visible || st.weak || st.common) defined.insert(st.name);
      else ++internal_count[st.name];
    }
  // Header: the highest .version, the first unit's .target and .address_size.
  std::string version, target, address;
  double best = -1;
  for (auto& tu : tus)
    for (auto& st : tu) {
      if (st.kind != Stmt::Header) continue;
      auto w = head_words(st.text);
      if (w.size() < 2) continue;
      if (w[0] == ".version" && std::atof(w[1].c_str()) > best) {
        best = std::atof(w[1].c_str());
        version = st.text;
      }
      if (w[0] == ".target" && target.empty()) target = st.text;
      if (w[0] == ".address_size" && address.empty()) address = st.text;
    }
  out = version + "\n" + target + "\n" + address + "\n";
  std::set<std::string> emitted_ext, emitted_weak;
  static const std::regex file_re(R"(^\.file\s+(\d+))");
  static const std::regex loc_re(R"(\.loc\s+(\d+)\s+(\d+)\s+(\d+)[^\n;]*)");
  for (size_t u = 0; u < tus.size(); ++u) {
    const unsigned file_base = unsigned(u) * 1000;
    std::vector<std::pair<std::string, std::string>> renames;
    for (auto& st : tus[u])
      if ((st.kind == Stmt::Func || st.kind == Stmt::Var) && !st.name.empty() && st.definition && !st.visible &&
          !st.weak && !st.common && (internal_count[st.name] > 1 || defined.count(st.name)))
        renames.emplace_back(st.name, fmt::format("{}__tu{}", st.name, u));
    for (auto& st : tus[u]) {
      std::string text = st.text;
      switch (st.kind) {
        case Stmt::Header:
        case Stmt::Section:
          continue;
        case Stmt::File: {
          std::smatch m;
          if (std::regex_search(text, m, file_re))
            text = fmt::format(".file {}{}", file_base + std::stoul(m[1].str()), m.suffix().str());
          out += text + "\n";
          continue;
        }
        case Stmt::Func:
        case Stmt::Var:
          if (!st.name.empty() && !st.definition) {
            // A declaration: dropped where a unit defines the symbol, else kept once.
            if (st.ext && (defined.count(st.name) || !emitted_ext.insert(st.name).second)) continue;
          }
          if (st.weak && st.definition && !emitted_weak.insert(st.name).second) continue;
          break;
        default: break;
      }
      for (auto& [from, to] : renames) text = rename(text, from, to);
      if (st.kind == Stmt::Func && st.definition) {
        std::string r;
        auto it = text.cbegin();
        for (std::sregex_iterator m(text.begin(), text.end(), loc_re), e; m != e; ++m) {
          r.append(it, text.cbegin() + (*m).position());
          r += fmt::format(".loc {} {} {}", file_base + std::stoul((*m)[1].str()), (*m)[2].str(), (*m)[3].str());
          it = text.cbegin() + (*m).position() + (*m).length();
        }
        r.append(it, text.cend());
        text = std::move(r);
      }
      out += text + "\n";
    }
  }
  return true;
}

}  // namespace warpsim::ptx
