#include "large_ptx.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "ptx/parser.hpp"

namespace warpsim::bench {
namespace {

namespace fs = std::filesystem;

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}

// One corpus file prepared for copying: the text split into literal pieces and renamable names.
struct Template {
  std::string path;
  std::string version, target;  // from the header
  // Alternating pieces: text[0] name[0] text[1] name[1] ... text[n]
  std::vector<std::string> texts;
  std::vector<std::string> names;

  unsigned id = 0;  // index among the files: the same kernel may be in several corpus files
  void emit(std::string& out, unsigned copy) const {
    const std::string suffix = "_f" + std::to_string(id) + "c" + std::to_string(copy);
    for (size_t i = 0; i < texts.size(); ++i) {
      out += texts[i];
      if (i < names.size()) {
        out += names[i];
        out += suffix;
      }
    }
  }
};

// Drops the header directives and splits text at identifiers in `rename`, skipping comments and
// strings.
Template make_template(const std::string& path, std::string_view src,
                       const std::unordered_set<std::string>& rename) {
  Template t;
  t.path = path;
  std::string cur;
  size_t i = 0;
  const size_t n = src.size();
  bool line_start = true;
  while (i < n) {
    char c = src[i];
    if (line_start) {
      // Header directive lines are dropped (one header is written for the whole module).
      size_t j = i;
      while (j < n && (src[j] == ' ' || src[j] == '\t')) ++j;
      auto starts = [&](std::string_view d) {
        return src.substr(j, d.size()) == d && j + d.size() < n &&
               (src[j + d.size()] == ' ' || src[j + d.size()] == '\t');
      };
      if (starts(".version") || starts(".target") || starts(".address_size")) {
        size_t e = src.find('\n', j);
        if (e == std::string_view::npos) e = n;
        std::string_view line = src.substr(j, e - j);
        if (starts(".version")) t.version = std::string(line.substr(9));
        if (starts(".target")) t.target = std::string(line.substr(8));
        i = e;
        continue;
      }
    }
    line_start = false;
    if (c == '\n') {
      line_start = true;
      cur += c;
      ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      size_t e = src.find('\n', i);
      if (e == std::string_view::npos) e = n;
      cur.append(src.substr(i, e - i));
      i = e;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      size_t e = src.find("*/", i + 2);
      e = e == std::string_view::npos ? n : e + 2;
      cur.append(src.substr(i, e - i));
      i = e;
    } else if (c == '"') {
      size_t e = i + 1;
      while (e < n && src[e] != '"' && src[e] != '\n') e += src[e] == '\\' ? 2 : 1;
      e = std::min(n, e + 1);
      cur.append(src.substr(i, e - i));
      i = e;
    } else if (ident_start(c) && !(i > 0 && (ident_char(src[i - 1]) || src[i - 1] == '.'))) {
      size_t e = i + 1;
      while (e < n && ident_char(src[e])) ++e;
      std::string word(src.substr(i, e - i));
      // "bar.sync" is an instruction even where a module symbol is called bar
      if (rename.count(word) && !(e < n && src[e] == '.')) {
        t.texts.push_back(std::move(cur));
        cur.clear();
        t.names.push_back(std::move(word));
      } else {
        cur += word;
      }
      i = e;
    } else if (c >= '0' && c <= '9') {
      // numbers (0f3f800000, 1e-3) are copied whole so their letters are not taken as names
      size_t e = i + 1;
      while (e < n && ident_char(src[e])) ++e;
      cur.append(src.substr(i, e - i));
      i = e;
    } else {
      cur += c;
      ++i;
    }
  }
  t.texts.push_back(std::move(cur));
  return t;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b);
}

}  // namespace

LargePtx make_large_ptx(const std::vector<std::string>& dirs, size_t min_bytes) {
  LargePtx out;
  std::vector<std::string> files;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (e.is_regular_file() && e.path().extension() == ".ptx") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());

  std::vector<Template> templates;
  std::string version = "", target = "";
  for (const auto& path : files) {
    std::string src;
    if (!read_file(path, src)) {
      out.skipped_files.push_back(path + " (unreadable)");
      continue;
    }
    auto r = ptx::parse(src, path);
    if (!r.ok()) {
      out.skipped_files.push_back(path + " (does not parse: " + r.errors[0].str() + ")");
      continue;
    }
    const auto& m = *r.module;
    if (!m.files.empty() || !m.sections.empty()) {
      out.skipped_files.push_back(path + " (has .file/.section debug data)");
      continue;
    }
    std::unordered_set<std::string> rename;
    for (const auto& f : m.funcs) rename.insert(f.name);
    for (const auto& v : m.vars) rename.insert(v.name);
    for (const auto& a : m.aliases) rename.insert(a.alias);
    Template t = make_template(path, src, rename);
    t.version = trim(t.version);
    t.target = trim(t.target);
    if (t.target.find(',') != std::string::npos) {
      out.skipped_files.push_back(path + " (target with modes: " + t.target + ")");
      continue;
    }
    // Two renamed copies must parse together, with twice the functions.
    std::string probe = ".version " + (t.version.empty() ? std::string("8.7") : t.version) +
                        "\n.target " + (t.target.empty() ? std::string("sm_90a") : t.target) +
                        "\n.address_size 64\n";
    t.emit(probe, 0);
    t.emit(probe, 1);
    auto r2 = ptx::parse(probe, path + " (2 copies)");
    if (!r2.ok() || r2.module->funcs.size() != 2 * m.funcs.size()) {
      out.skipped_files.push_back(path + " (renamed copies do not parse: " +
                                  (r2.ok() ? std::string("function count") : r2.errors[0].str()) + ")");
      continue;
    }
    t.id = unsigned(templates.size());
    templates.push_back(std::move(t));
    out.used_files.push_back(path);
  }
  if (templates.empty()) return out;

  // Header: the highest .version seen, and the target most files use.
  auto vkey = [](const std::string& v) {
    unsigned a = 0, b = 0;
    std::sscanf(v.c_str(), "%u.%u", &a, &b);
    return a * 1000 + b;
  };
  std::vector<std::pair<std::string, unsigned>> targets;
  for (const auto& t : templates) {
    if (!t.version.empty() && (version.empty() || vkey(t.version) > vkey(version))) version = t.version;
    auto it = std::find_if(targets.begin(), targets.end(), [&](auto& p) { return p.first == t.target; });
    if (it == targets.end()) targets.emplace_back(t.target, 1);
    else ++it->second;
  }
  target = std::max_element(targets.begin(), targets.end(),
                            [](auto& a, auto& b) { return a.second < b.second; })->first;
  if (version.empty()) version = "8.7";
  if (target.empty()) target = "sm_90a";
  // Keep the module valid for ptxas too: only files for that target or a plain older sm_NN.
  auto sm = [](const std::string& t) {
    unsigned v = 0;
    return std::sscanf(t.c_str(), "sm_%u", &v) == 1 ? v : 0u;
  };
  auto plain = [](const std::string& t) { return !t.empty() && std::isdigit((unsigned char)t.back()); };
  std::vector<Template> kept;
  out.used_files.clear();
  for (auto& t : templates) {
    if (t.target == target || t.target.empty() || (plain(t.target) && sm(t.target) <= sm(target))) {
      out.used_files.push_back(t.path);
      kept.push_back(std::move(t));
    } else {
      out.skipped_files.push_back(t.path + " (target " + t.target + " differs from " + target + ")");
    }
  }
  templates = std::move(kept);

  out.text = "//\n// Generated by warpsim_bench_parse from " + std::to_string(templates.size()) +
             " corpus files\n//\n\n.version " + version + "\n.target " + target +
             "\n.address_size 64\n\n";
  size_t one = 0;
  for (const auto& t : templates) {
    std::string s;
    t.emit(s, 0);
    one += s.size();
  }
  out.text.reserve(min_bytes + 2 * one + 4096);
  while (out.text.size() < min_bytes) {
    for (const auto& t : templates) t.emit(out.text, out.copies);
    ++out.copies;
  }
  return out;
}

}  // namespace warpsim::bench
