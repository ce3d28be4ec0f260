// Machine descriptions as data: TOML (toml++) -> config::Machine, with inheritance, overrides and
// validation. The TOML schema is the list of `rd.*` calls in read_machine(); each TOML key is the
// Machine field's name (a few grouped under [sm.pipes], [sm.icache], [sm.latency], [mem],
// [tensor], [ops]).
#include "config/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>

#include "config/embedded_configs.hpp"

namespace warpsim::config {

namespace {

constexpr const char* kPipeNames[kPipeCount] = {"fma", "alu", "fp16", "fp64", "mufu", "tensor", "branch", "mio", "lsu"};
constexpr const char* kOpClassNames[kOpClassCount] = {
    "fp32",       "fp16",      "fp64",      "int",         "imad",      "int_wide",  "bit_count", "mufu",
    "conv",       "fdiv",      "fdiv_full", "fdiv_approx", "fp64_div",  "int_div",   "int_div_imm", "int_div64",
    "shfl",       "vote",      "match",     "redux",       "ld_shared",
    "st_shared",  "atom_shared", "ld_global", "st_global", "atom_global", "ld_local", "st_local", "ld_const",
    "ld_param",   "tex",       "cp_async",  "mbarrier",    "tensor",    "branch",    "call",      "exit",
    "barrier",    "membar",    "sreg",      "nop"};
static_assert(sizeof(kOpClassNames) / sizeof(kOpClassNames[0]) == kOpClassCount);

std::string node_desc(const toml::node& n) {
  if (n.is_string()) return fmt::format("string \"{}\"", n.as_string()->get());
  if (n.is_integer()) return fmt::format("integer {}", n.as_integer()->get());
  if (n.is_floating_point()) return fmt::format("float {}", n.as_floating_point()->get());
  if (n.is_boolean()) return n.as_boolean()->get() ? "boolean true" : "boolean false";
  if (n.is_array()) return "an array";
  if (n.is_table()) return "a table";
  return "a date/time";
}

// Copies `src` into `dst[key]`, replacing what was there.
void assign(toml::table& dst, std::string_view key, const toml::node& src) {
  src.visit([&](auto&& v) { dst.insert_or_assign(key, v); });
}

// Child keys replace the parent's; tables (including inline tables such as ops.fp32) merge key by key.
void merge_into(toml::table& dst, const toml::table& src) {
  for (auto&& [k, v] : src) {
    toml::node* d = dst.get(k.str());
    if (d && d->is_table() && v.is_table()) merge_into(*d->as_table(), *v.as_table());
    else assign(dst, k.str(), v);
  }
}

// Machine descriptions are small regular files: anything else (a FIFO, /dev/zero, a huge file) is refused.
bool read_file(const std::string& path, std::string& text) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > (1u << 20) || ec) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return bool(in) || in.eof();
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos ||
         (s.size() > 5 && s.compare(s.size() - 5, 5, ".toml") == 0);
}

std::string canonical_builtin(const std::string& name) {
  if (name.empty() || name == "a100-40gb" || name == "a100-sxm4-40gb") return "a100";
  return name;
}

// Parses TOML text and resolves `inherits` (recursively). `source` names the text in messages.
bool parse_with_inheritance(std::string_view text, const std::string& source, const std::string& base_dir,
                            int depth, toml::table& out, std::string& error) {
  if (depth > 8) {
    error = fmt::format("{}: `inherits` chain is too deep (a cycle?)", source);
    return false;
  }
  toml::table tbl;
  try {
    tbl = toml::parse(text, std::string_view(source));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    error = fmt::format("{}:{}:{}: {}", source, b.line, b.column, e.description());
    return false;
  }
  if (toml::node* inh = tbl.get("inherits")) {
    if (!inh->is_string()) {
      error = fmt::format("{}: inherits: expected a string (a built-in name or a .toml path), got {}", source,
                          node_desc(*inh));
      return false;
    }
    std::string parent = inh->as_string()->get();
    tbl.erase("inherits");
    toml::table base;
    if (looks_like_path(parent)) {
      std::filesystem::path p(parent);
      if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
      std::string ptext;
      if (!read_file(p.string(), ptext)) {
        error = fmt::format("{}: inherits: cannot read '{}'", source, p.string());
        return false;
      }
      if (!parse_with_inheritance(ptext, p.string(), p.parent_path().string(), depth + 1, base, error)) return false;
    } else {
      std::string_view ptext = builtin_toml(parent);
      if (ptext.empty()) {
        error = fmt::format("{}: inherits: unknown built-in machine '{}'", source, parent);
        return false;
      }
      if (!parse_with_inheritance(ptext, parent + ".toml", ".", depth + 1, base, error)) return false;
    }
    merge_into(base, tbl);
    out = std::move(base);
    return true;
  }
  out = std::move(tbl);
  return true;
}

std::vector<std::string> split_path(std::string_view key) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// Applies "key=value" overrides to the merged table. `origin` maps each overridden key to its text.
bool apply_overrides(toml::table& root, const std::vector<std::string>& overrides,
                     std::map<std::string, std::string>& origin, std::string& error) {
  for (const auto& ov : overrides) {
    size_t eq = ov.find('=');
    if (eq == std::string::npos) {
      error = fmt::format("--set {}: expected key=value (e.g. sm.scheduler=lrr)", ov);
      return false;
    }
    std::string key = trim(std::string_view(ov).substr(0, eq));
    std::string val = trim(std::string_view(ov).substr(eq + 1));
    if (key.empty() || val.empty()) {
      error = fmt::format("--set {}: expected key=value (e.g. sm.scheduler=lrr)", ov);
      return false;
    }
    auto parts = split_path(key);
    toml::table* t = &root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      toml::node* n = t->get(parts[i]);
      if (!n || !n->is_table()) {
        error = fmt::format("--set {}: unknown key '{}'", ov, key);
        return false;
      }
      t = n->as_table();
    }
    toml::node* target = t->get(parts.back());
    if (!target) {
      error = fmt::format("--set {}: unknown key '{}'", ov, key);
      return false;
    }
    if (target->is_table()) {
      error = fmt::format("--set {}: '{}' is a table; set one of its fields ({}.<field>=...)", ov, key, key);
      return false;
    }
    toml::table parsed;
    bool ok = true;
    try {
      const std::string doc = "v = " + val;
      parsed = toml::parse(std::string_view(doc), std::string_view("--set"));
    } catch (const toml::parse_error&) {
      ok = false;
    }
    if (ok && parsed.get("v") && parsed.size() == 1) {
      assign(*t, parts.back(), *parsed.get("v"));
    } else {
      // A bare word (lrr, gto, sub_core) is taken as a string.
      bool word = std::all_of(val.begin(), val.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_' || c == '-' || c == '.';
      });
      if (!word) {
        error = fmt::format("--set {}: '{}' is not a TOML value", ov, val);
        return false;
      }
      t->insert_or_assign(parts.back(), val);
    }
    origin[key] = ov;
  }
  return true;
}

// Typed reads of the merged table. The first error wins; every read path is remembered so that
// leftover (unknown) keys can be reported.
class Reader {
 public:
  Reader(const toml::table& root, std::string source, const std::map<std::string, std::string>& origin)
      : root_(root), source_(std::move(source)), origin_(origin) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  void fail(const std::string& key, const std::string& msg) {
    if (!error_.empty()) return;
    auto it = origin_.find(key);
    error_ = fmt::format("{}: {}{}", source_, msg,
                         it != origin_.end() ? fmt::format(" (from --set {})", it->second) : std::string());
  }

  const toml::node* get(const std::string& key) {
    seen_.insert(key);
    const toml::table* t = &root_;
    auto parts = split_path(key);
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      const toml::node* n = t->get(parts[i]);
      if (!n || !n->is_table()) return nullptr;
      t = n->as_table();
    }
    return t->get(parts.back());
  }

  const toml::node* need(const std::string& key) {
    const toml::node* n = get(key);
    if (!n) fail(key, fmt::format("missing field {}", key));
    return n;
  }

  void u32(const std::string& key, uint32_t& out) {
    uint64_t v = 0;
    if (integer(key, v, std::numeric_limits<uint32_t>::max())) out = uint32_t(v);
  }
  void i32(const std::string& key, int& out) {
    uint64_t v = 0;
    if (integer(key, v, uint64_t(std::numeric_limits<int>::max()))) out = int(v);
  }
  void u64(const std::string& key, uint64_t& out) {
    uint64_t v = 0;
    if (integer(key, v, uint64_t(std::numeric_limits<int64_t>::max()))) out = v;
  }
  // A size in bytes: an integer, or a string "40 GiB" / "192 KiB" / "6 MiB" / "512 B".
  void size(const std::string& key, uint64_t& out) {
    const toml::node* n = need(key);
    if (!n) return;
    if (n->is_string()) {
      const std::string& s = n->as_string()->get();
      uint64_t v = 0;
      if (!parse_size(s, v)) {
        fail(key, fmt::format("{}: expected a size (bytes, or \"N KiB|MiB|GiB\"), got \"{}\"", key, s));
        return;
      }
      out = v;
      return;
    }
    uint64_t v = 0;
    if (integer(key, v, uint64_t(std::numeric_limits<int64_t>::max()))) out = v;
  }
  void size32(const std::string& key, uint32_t& out) {
    uint64_t v = 0;
    size(key, v);
    if (!ok()) return;
    if (v > std::numeric_limits<uint32_t>::max()) fail(key, fmt::format("{}: {} is too large", key, v));
    else out = uint32_t(v);
  }
  void f64(const std::string& key, double& out) {
    const toml::node* n = need(key);
    if (!n) return;
    if (n->is_floating_point()) out = n->as_floating_point()->get();
    else if (n->is_integer()) out = double(n->as_integer()->get());
    else fail(key, fmt::format("{}: expected a number, got {}", key, node_desc(*n)));
    if (ok() && !std::isfinite(out)) fail(key, fmt::format("{}: must be finite", key));
  }
  void boolean(const std::string& key, bool& out) {
    const toml::node* n = need(key);
    if (!n) return;
    if (n->is_boolean()) out = n->as_boolean()->get();
    else fail(key, fmt::format("{}: expected true or false, got {}", key, node_desc(*n)));
  }
  void str(const std::string& key, std::string& out) {
    const toml::node* n = need(key);
    if (!n) return;
    if (n->is_string()) out = n->as_string()->get();
    else fail(key, fmt::format("{}: expected a string, got {}", key, node_desc(*n)));
  }
  template <class E, size_t N>
  void choice(const std::string& key, E& out, const std::pair<const char*, E> (&names)[N]) {
    std::string s;
    str(key, s);
    if (!ok()) return;
    std::string known;
    for (auto& [name, value] : names) {
      if (s == name) {
        out = value;
        return;
      }
      known += (known.empty() ? "" : ", ") + std::string(name);
    }
    fail(key, fmt::format("{}: unknown value \"{}\" (one of: {})", key, s, known));
  }
  void u32_list(const std::string& key, std::vector<uint32_t>& out, size_t min_len, size_t max_len) {
    const toml::node* n = need(key);
    if (!n) return;
    if (!n->is_array()) {
      fail(key, fmt::format("{}: expected an array of integers, got {}", key, node_desc(*n)));
      return;
    }
    const toml::array& a = *n->as_array();
    if (a.size() < min_len || a.size() > max_len) {
      fail(key, fmt::format("{}: expected {} to {} elements, got {}", key, min_len, max_len, a.size()));
      return;
    }
    out.clear();
    for (auto& e : a) {
      if (!e.is_integer() || e.as_integer()->get() < 0 ||
          e.as_integer()->get() > int64_t(std::numeric_limits<uint32_t>::max())) {
        fail(key, fmt::format("{}: expected non-negative integers, got {}", key, node_desc(e)));
        return;
      }
      out.push_back(uint32_t(e.as_integer()->get()));
    }
  }
  void u32x3(const std::string& key, std::array<uint32_t, 3>& out) {
    std::vector<uint32_t> v;
    u32_list(key, v, 3, 3);
    if (ok()) std::copy(v.begin(), v.end(), out.begin());
  }

  // Every leaf of the table that no read asked for.
  void check_unknown() {
    if (ok()) walk(root_, "");
  }

 private:
  bool integer(const std::string& key, uint64_t& out, uint64_t max) {
    const toml::node* n = need(key);
    if (!n) return false;
    if (!n->is_integer()) {
      fail(key, fmt::format("{}: expected an integer, got {}", key, node_desc(*n)));
      return false;
    }
    int64_t v = n->as_integer()->get();
    if (v < 0) {
      fail(key, fmt::format("{}: must not be negative (got {})", key, v));
      return false;
    }
    if (uint64_t(v) > max) {
      fail(key, fmt::format("{}: {} is too large", key, v));
      return false;
    }
    out = uint64_t(v);
    return true;
  }
  static bool parse_size(const std::string& s, uint64_t& out) {
    size_t i = 0;
    uint64_t v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (v > (uint64_t(1) << 50)) return false;
      v = v * 10 + uint64_t(s[i++] - '0');
    }
    if (i == 0) return false;
    std::string unit = trim(std::string_view(s).substr(i));
    uint64_t mul = 0;
    if (unit.empty() || unit == "B") mul = 1;
    else if (unit == "KiB") mul = uint64_t(1) << 10;
    else if (unit == "MiB") mul = uint64_t(1) << 20;
    else if (unit == "GiB") mul = uint64_t(1) << 30;
    else return false;
    if (v > (uint64_t(std::numeric_limits<int64_t>::max()) / mul)) return false;
    out = v * mul;
    return true;
  }
  void walk(const toml::table& t, const std::string& prefix) {
    for (auto&& [k, v] : t) {
      std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
      if (v.is_table()) {
        walk(*v.as_table(), key);
        if (!ok()) return;
        continue;
      }
      if (!seen_.count(key)) {
        fail(key, fmt::format("unknown key '{}'", key));
        return;
      }
    }
  }

  const toml::table& root_;
  std::string source_;
  const std::map<std::string, std::string>& origin_;
  std::set<std::string> seen_;
  std::string error_;
};

void read_machine(Reader& rd, Machine& m) {
  // [gpu]
  rd.str("gpu.name", m.name);
  rd.i32("gpu.cc_major", m.cc_major);
  rd.i32("gpu.cc_minor", m.cc_minor);
  rd.str("gpu.ptx_target", m.ptx_target);
  rd.u32("gpu.gpcs", m.gpcs);
  rd.u32_list("gpu.tpcs_per_gpc", m.tpcs_per_gpc, 1, 1024);
  rd.u32("gpu.sms_per_tpc", m.sms_per_tpc);
  if (rd.get("gpu.cluster_sm_groups")) rd.u32_list("gpu.cluster_sm_groups", m.cluster_sm_groups, 1, 1024);  // optional
  if (rd.get("gpu.cluster_ctas_per_sm")) rd.u32("gpu.cluster_ctas_per_sm", m.cluster_ctas_per_sm);          // optional
  rd.u32("gpu.sms", m.sms);
  rd.f64("gpu.sm_clock_mhz", m.sm_clock_mhz);
  rd.f64("gpu.mem_clock_mhz", m.mem_clock_mhz);
  rd.u32("gpu.mem_bus_bits", m.mem_bus_bits);
  rd.size("gpu.global_mem_bytes", m.global_mem_bytes);
  rd.size("gpu.l2_bytes", m.l2_bytes);
  rd.size("gpu.persisting_l2_max_bytes", m.persisting_l2_max_bytes);
  rd.size("gpu.access_policy_max_window_bytes", m.access_policy_max_window_bytes);
  rd.size("gpu.const_mem_bytes", m.const_mem_bytes);
  rd.u32x3("gpu.max_block_dim", m.max_block_dim);
  rd.u32x3("gpu.max_grid_dim", m.max_grid_dim);

  // [sm]
  static const std::pair<const char*, IssueModel> issue_models[] = {{"sub_core", IssueModel::SubCore},
                                                                    {"g80", IssueModel::G80}};
  rd.choice("sm.issue_model", m.issue_model, issue_models);
  rd.u32("sm.sub_cores", m.sub_cores);
  rd.u32("sm.max_warps", m.max_warps);
  rd.u32("sm.max_threads", m.max_threads);
  rd.u32("sm.max_ctas", m.max_ctas);
  rd.u32("sm.max_threads_per_cta", m.max_threads_per_cta);
  rd.u32("sm.registers", m.registers);
  rd.u32("sm.max_regs_per_thread", m.max_regs_per_thread);
  if (rd.get("sm.int_on_fma_pipe")) rd.boolean("sm.int_on_fma_pipe", m.int_on_fma_pipe);
  rd.u32("sm.max_regs_per_cta", m.max_regs_per_cta);
  rd.u32("sm.reg_alloc_unit", m.reg_alloc_unit);
  rd.size32("sm.l1_shared_bytes", m.l1_shared_bytes);
  rd.u32_list("sm.shared_carveouts_kb", m.shared_carveouts_kb, 1, 64);
  rd.size32("sm.max_shared_per_cta", m.max_shared_per_cta);
  rd.size32("sm.default_shared_per_cta", m.default_shared_per_cta);
  rd.u32("sm.shared_alloc_unit", m.shared_alloc_unit);
  rd.size32("sm.reserved_shared_per_cta", m.reserved_shared_per_cta);
  if (rd.get("sm.carveout_min_per_cta")) rd.size32("sm.carveout_min_per_cta", m.carveout_min_per_cta);
  if (rd.get("sm.carveout_min_cap")) rd.size32("sm.carveout_min_cap", m.carveout_min_cap);
  static const std::pair<const char*, SchedulerPolicy> schedulers[] = {{"gto", SchedulerPolicy::Gto},
                                                                       {"lrr", SchedulerPolicy::Lrr}};
  rd.choice("sm.scheduler", m.scheduler, schedulers);
  if (rd.get("sm.its_spin_yield")) rd.u32("sm.its_spin_yield", m.its_spin_yield);
  rd.f64("sm.issue_clock_ratio", m.issue_clock_ratio);
  rd.u32("sm.scoreboard_entries", m.scoreboard_entries);
  rd.u32("sm.mio_queue", m.mio_queue);
  for (unsigned p = 0; p < kPipeCount; ++p) rd.u32(fmt::format("sm.pipes.{}", kPipeNames[p]), m.pipe_lanes[p]);

  // [sm.icache]
  rd.u32("sm.icache.instr_bytes", m.instr_bytes);
  rd.size32("sm.icache.l0i_bytes", m.l0i_bytes);
  rd.size32("sm.icache.l1i_bytes", m.l1i_bytes);
  rd.u32("sm.icache.line", m.icache_line);
  rd.u32("sm.icache.l0i_assoc", m.l0i_assoc);
  rd.u32("sm.icache.l1i_assoc", m.l1i_assoc);
  rd.u32("sm.icache.l0i_miss_latency", m.l0i_miss_latency);
  rd.u32("sm.icache.l1i_miss_latency", m.l1i_miss_latency);
  rd.u32("sm.icache.l1i_prefetch_lines", m.l1i_prefetch_lines);
  rd.u32("sm.icache.l1i_fill_interval", m.l1i_fill_interval);

  // [sm.latency]
  rd.u32("sm.latency.barrier", m.barrier_latency);
  rd.u32("sm.latency.branch", m.branch_latency);
  rd.u32("sm.latency.cta_launch", m.cta_launch_latency);
  rd.u32("sm.latency.kernel_launch", m.kernel_launch_cycles);
  if (rd.get("sm.latency.cta_dispatch_interval")) rd.f64("sm.latency.cta_dispatch_interval", m.cta_dispatch_interval);
  rd.u32("sm.latency.printf", m.printf_latency);
  if (rd.get("sm.latency.membar_cta")) rd.u32("sm.latency.membar_cta", m.membar_cta_latency);
  rd.u32("sm.latency.barrier_divergent", m.barrier_divergent_latency);

  // [mem]
  rd.u32("mem.shared_banks", m.shared_banks);
  rd.u32("mem.shared_bank_bytes", m.shared_bank_bytes);

  // [l1]
  rd.u32("l1.line", m.l1.line);
  rd.u32("l1.sector", m.l1.sector);
  rd.u32("l1.assoc", m.l1.assoc);
  rd.u32("l1.miss_latency", m.l1.miss_latency);
  rd.u32("l1.tag_lookups_per_clk", m.l1.tag_lookups_per_clk);
  rd.u32("l1.bytes_per_clk", m.l1.bytes_per_clk);
  rd.u32("l1.max_outstanding", m.l1.max_outstanding);
  rd.u32("l1.local_interleave", m.l1.local_interleave);
  rd.u32("l1.atomic_request_cycles", m.l1.atomic_request_cycles);
  rd.u32("l1.store_sector_cycles", m.l1.store_sector_cycles);
  rd.u32("l1.atomic_return_cycles", m.l1.atomic_return_cycles);
  // [tlb]
  rd.size("tlb.page_bytes", m.tlb.page_bytes);
  rd.u32("tlb.l1_entries", m.tlb.l1_entries);
  rd.u32("tlb.l1_assoc", m.tlb.l1_assoc);
  rd.u32("tlb.l2_entries", m.tlb.l2_entries);
  rd.u32("tlb.l2_assoc", m.tlb.l2_assoc);
  rd.u32("tlb.groups_per_gpc", m.tlb.groups_per_gpc);
  rd.u32("tlb.l2_latency", m.tlb.l2_latency);
  rd.u32("tlb.walk_latency", m.tlb.walk_latency);
  rd.u32("tlb.walkers", m.tlb.walkers);
  // [tma]
  rd.boolean("tma.enabled", m.tma.enabled);
  rd.u32("tma.issue_latency", m.tma.issue_latency);
  rd.u32("tma.copy_cycles", m.tma.copy_cycles);
  rd.u32("tma.bytes_per_clk", m.tma.bytes_per_clk);
  rd.u32("tma.store_bytes_per_clk", m.tma.store_bytes_per_clk);
  rd.u32("tma.complete_latency", m.tma.complete_latency);
  rd.u32("tma.wait_after_copy", m.tma.wait_after_copy);
  // [cluster] (optional: sm_90 machines)
  if (rd.get("cluster.barrier_latency")) rd.u32("cluster.barrier_latency", m.cluster.barrier_latency);
  if (rd.get("cluster.barrier_cycles_per_cta")) rd.f64("cluster.barrier_cycles_per_cta", m.cluster.barrier_cycles_per_cta);
  if (rd.get("cluster.dsmem_latency")) rd.u32("cluster.dsmem_latency", m.cluster.dsmem_latency);
  if (rd.get("cluster.dsmem_bytes_per_clk")) rd.f64("cluster.dsmem_bytes_per_clk", m.cluster.dsmem_bytes_per_clk);
  // [const_cache]
  rd.boolean("const_cache.enabled", m.const_cache.enabled);
  rd.size32("const_cache.l1_bytes", m.const_cache.l1_bytes);
  rd.u32("const_cache.l1_line", m.const_cache.l1_line);
  rd.u32("const_cache.l1_assoc", m.const_cache.l1_assoc);
  rd.size32("const_cache.l15_bytes", m.const_cache.l15_bytes);
  rd.u32("const_cache.l15_line", m.const_cache.l15_line);
  rd.u32("const_cache.l15_assoc", m.const_cache.l15_assoc);
  rd.u32("const_cache.l15_latency", m.const_cache.l15_latency);
  rd.u32("const_cache.miss_latency", m.const_cache.miss_latency);
  rd.u32("const_cache.address_cycles", m.const_cache.address_cycles);
  // [xbar]
  rd.u32("xbar.latency", m.xbar.latency);
  rd.u32("xbar.gpc_bytes_per_clk", m.xbar.gpc_bytes_per_clk);
  rd.u32("xbar.slice_bytes_per_clk", m.xbar.slice_bytes_per_clk);
  rd.u32("xbar.header_bytes", m.xbar.header_bytes);
  // [l2]
  rd.u32("l2.partitions", m.l2.partitions);
  rd.u32("l2.slices", m.l2.slices);
  rd.u32("l2.line", m.l2.line);
  rd.u32("l2.sector", m.l2.sector);
  rd.u32("l2.assoc", m.l2.assoc);
  rd.u32("l2.hit_latency", m.l2.hit_latency);
  rd.u32("l2.far_latency", m.l2.far_latency);
  if (rd.get("l2.far_copy")) {
    static const std::pair<const char*, bool> far_copies[] = {{"keep", false}, {"demote", true}};
    rd.choice("l2.far_copy", m.l2.far_demote, far_copies);
  }
  if (rd.get("l2.set_mapping")) {
    static const std::pair<const char*, bool> mappings[] = {{"hash", false}, {"even", true}};
    rd.choice("l2.set_mapping", m.l2.even_map, mappings);
  }
  rd.u32("l2.dram_latency", m.l2.dram_latency);
  rd.u32("l2.bytes_per_clk", m.l2.bytes_per_clk);
  if (rd.get("l2.clock_mhz")) rd.u32("l2.clock_mhz", m.l2.clock_mhz);  // optional: the SM clock when absent
  rd.u32("l2.atomic_sectors_per_clk", m.l2.atomic_sectors_per_clk);
  if (rd.get("l2.fetch_sectors")) rd.u32("l2.fetch_sectors", m.l2.fetch_sectors);
  rd.u32("l2.max_outstanding", m.l2.max_outstanding);
  // [pcie]
  rd.f64("pcie.gbytes_per_s", m.pcie.gbytes_per_s);
  rd.f64("pcie.latency_us", m.pcie.latency_us);

  // [dram]
  {
    DramConfig& d = m.dram;
    rd.u32("dram.controllers", d.controllers);
    rd.u32("dram.channels_per_controller", d.channels_per_controller);
    rd.u32("dram.pseudo_channels", d.pseudo_channels);
    rd.u32("dram.bank_groups", d.bank_groups);
    rd.u32("dram.banks_per_group", d.banks_per_group);
    rd.u32("dram.rows", d.rows);
    rd.size32("dram.row_bytes", d.row_bytes);
    rd.u32("dram.access_bytes", d.access_bytes);
    rd.u32("dram.bus_bits_per_pseudo_channel", d.bus_bits_per_pseudo_channel);
    rd.u32("dram.burst_length", d.burst_length);
    rd.u32("dram.interleave_bytes", d.interleave_bytes);
    rd.u32("dram.read_queue", d.read_queue);
    rd.u32("dram.write_queue", d.write_queue);
    rd.u32("dram.write_high_watermark", d.write_high_watermark);
    rd.u32("dram.write_low_watermark", d.write_low_watermark);
    rd.u32("dram.write_max_wait", d.write_max_wait);
    rd.u32("dram.row_hit_cap", d.row_hit_cap);
    static const std::pair<const char*, DramPagePolicy> page_policies[] = {{"open", DramPagePolicy::Open},
                                                                           {"closed", DramPagePolicy::Closed}};
    rd.choice("dram.page_policy", d.page_policy, page_policies);
    static const std::pair<const char*, DramRefresh> refreshes[] = {
        {"all_bank", DramRefresh::AllBank}, {"per_bank", DramRefresh::PerBank}, {"none", DramRefresh::None}};
    rd.choice("dram.refresh", d.refresh, refreshes);
    DramConfig::Timing& t = d.timing;
    rd.u32("dram.timing.nRCD", t.nRCD);
    rd.u32("dram.timing.nRP", t.nRP);
    rd.u32("dram.timing.nRAS", t.nRAS);
    rd.u32("dram.timing.nCL", t.nCL);
    rd.u32("dram.timing.nCWL", t.nCWL);
    rd.u32("dram.timing.nRTP", t.nRTP);
    rd.u32("dram.timing.nWR", t.nWR);
    rd.u32("dram.timing.nCCD_S", t.nCCD_S);
    rd.u32("dram.timing.nCCD_L", t.nCCD_L);
    rd.u32("dram.timing.nRRD_S", t.nRRD_S);
    rd.u32("dram.timing.nRRD_L", t.nRRD_L);
    rd.u32("dram.timing.nFAW", t.nFAW);
    rd.u32("dram.timing.nWTR_S", t.nWTR_S);
    rd.u32("dram.timing.nWTR_L", t.nWTR_L);
    rd.u32("dram.timing.nRTW", t.nRTW);
    rd.u32("dram.timing.nRFC", t.nRFC);
    rd.u32("dram.timing.nRFCsb", t.nRFCsb);
    rd.u32("dram.timing.nREFI", t.nREFI);
  }

  // [tensor]
  rd.u32("tensor.cores_per_sm", m.tensor_cores_per_sm);
  rd.u32("tensor.fma_f16", m.tensor_fma_f16);
  rd.u32("tensor.fma_tf32", m.tensor_fma_tf32);
  rd.u32("tensor.fma_f64", m.tensor_fma_f64);
  rd.u32("tensor.fma_i8", m.tensor_fma_i8);
  rd.u32("tensor.fma_i4", m.tensor_fma_i4);
  rd.u32("tensor.fma_b1", m.tensor_fma_b1);
  rd.u32("tensor.latency", m.tensor_latency);
  rd.u32("tensor.sync_overhead", m.tensor_sync_overhead);
  m.tensor_wgmma_latency = m.tensor_latency;
  if (rd.get("tensor.wgmma_latency")) rd.u32("tensor.wgmma_latency", m.tensor_wgmma_latency);
  if (rd.get("tensor.wgmma_n_per_cycle")) rd.u32("tensor.wgmma_n_per_cycle", m.tensor_wgmma_n_per_cycle);
  if (rd.get("tensor.s4_emulation_latency")) rd.u32("tensor.s4_emulation_latency", m.tensor_emulated_s4.latency);
  if (rd.get("tensor.s4_emulation_cycles")) rd.u32("tensor.s4_emulation_cycles", m.tensor_emulated_s4.cycles);
  if (rd.get("tensor.u4_emulation_latency")) rd.u32("tensor.u4_emulation_latency", m.tensor_emulated_u4.latency);
  if (rd.get("tensor.u4_emulation_cycles")) rd.u32("tensor.u4_emulation_cycles", m.tensor_emulated_u4.cycles);
  if (rd.get("tensor.b1_xor_emulation_latency")) rd.u32("tensor.b1_xor_emulation_latency", m.tensor_emulated_b1_xor.latency);
  if (rd.get("tensor.b1_xor_emulation_cycles")) rd.u32("tensor.b1_xor_emulation_cycles", m.tensor_emulated_b1_xor.cycles);

  // [ops]
  std::pair<const char*, Pipe> pipes[kPipeCount];
  for (unsigned p = 0; p < kPipeCount; ++p) pipes[p] = {kPipeNames[p], Pipe(p)};
  static const std::pair<const char*, Scoreboard> scoreboards[] = {
      {"fixed", Scoreboard::Fixed}, {"short", Scoreboard::Short}, {"long", Scoreboard::Long}};
  for (unsigned c = 0; c < kOpClassCount; ++c) {
    const std::string base = fmt::format("ops.{}", kOpClassNames[c]);
    OpTiming& t = m.ops[c];
    rd.choice(base + ".pipe", t.pipe, pipes);
    rd.u32(base + ".latency", t.latency);
    rd.u32(base + ".issue", t.issue);
    rd.choice(base + ".scoreboard", t.scoreboard, scoreboards);
  }
  rd.check_unknown();
}

bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

}  // namespace

const char* pipe_name(Pipe p) { return unsigned(p) < kPipeCount ? kPipeNames[unsigned(p)] : "?"; }
const char* op_class_name(OpClass c) { return unsigned(c) < kOpClassCount ? kOpClassNames[unsigned(c)] : "?"; }
const char* scoreboard_name(Scoreboard s) {
  switch (s) {
    case Scoreboard::Fixed: return "fixed";
    case Scoreboard::Short: return "short";
    case Scoreboard::Long: return "long";
  }
  return "?";
}
const char* scheduler_name(SchedulerPolicy p) { return p == SchedulerPolicy::Gto ? "gto" : "lrr"; }
const char* issue_model_name(IssueModel m) { return m == IssueModel::G80 ? "g80" : "sub_core"; }

std::vector<std::string> machine_names() {
  std::vector<std::string> v;
  for (const auto& e : embedded::configs()) v.emplace_back(e.name);
  return v;
}

std::string_view builtin_toml(const std::string& name) {
  for (const auto& e : embedded::configs())
    if (name == e.name) return e.text;
  return {};
}

namespace {
// The [dram] checks; an empty string when the section is sound.
std::string validate_dram(const DramConfig& d, uint32_t mem_bus_bits, uint64_t global_mem_bytes) {
  if (d.controllers == 0) return "dram.controllers: must be at least 1";
  if (d.channels_per_controller == 0) return "dram.channels_per_controller: must be at least 1";
  if (d.pseudo_channels == 0) return "dram.pseudo_channels: must be at least 1";
  if (!is_pow2(uint64_t(d.channels_per_controller) * d.pseudo_channels))
    return "dram.channels_per_controller: channels x dram.pseudo_channels must be a power of two";
  if (!is_pow2(d.bank_groups)) return "dram.bank_groups: must be a power of two";
  if (!is_pow2(d.banks_per_group)) return "dram.banks_per_group: must be a power of two";
  if (d.bank_groups * uint64_t(d.banks_per_group) > 256) return "dram.banks_per_group: at most 256 banks per pseudo-channel";
  if (!is_pow2(d.rows)) return "dram.rows: must be a power of two";
  if (!is_pow2(d.access_bytes)) return "dram.access_bytes: must be a power of two";
  if (d.bus_bits_per_pseudo_channel == 0 || d.bus_bits_per_pseudo_channel % 8)
    return "dram.bus_bits_per_pseudo_channel: must be a positive multiple of 8";
  if (d.burst_length == 0 || d.burst_length % 2) return "dram.burst_length: must be a positive even number of beats";
  if (uint64_t(d.bus_bits_per_pseudo_channel) / 8 * d.burst_length != d.access_bytes)
    return fmt::format("dram.access_bytes: {} is not dram.bus_bits_per_pseudo_channel / 8 x dram.burst_length = {}", d.access_bytes,
                       uint64_t(d.bus_bits_per_pseudo_channel) / 8 * d.burst_length);
  if (!is_pow2(d.row_bytes) || d.row_bytes < d.access_bytes) return "dram.row_bytes: must be a power of two of at least dram.access_bytes";
  if (!is_pow2(d.interleave_bytes) || d.interleave_bytes < d.access_bytes || d.interleave_bytes > d.row_bytes)
    return "dram.interleave_bytes: must be a power of two between dram.access_bytes and dram.row_bytes";
  const uint64_t bits = uint64_t(d.controllers) * d.channels_per_controller * d.pseudo_channels * d.bus_bits_per_pseudo_channel;
  if (bits != mem_bus_bits)
    return fmt::format("dram.controllers: {} controllers x {} channels x {} pseudo-channels x {} bits = {} bits, but gpu.mem_bus_bits is {}",
                       d.controllers, d.channels_per_controller, d.pseudo_channels, d.bus_bits_per_pseudo_channel, bits, mem_bus_bits);
  const unsigned __int128 capacity = (unsigned __int128)(uint64_t(d.controllers) * d.channels_per_controller * d.pseudo_channels) *
                                     (uint64_t(d.bank_groups) * d.banks_per_group) * (uint64_t(d.rows) * d.row_bytes);
  if (capacity < global_mem_bytes) return "dram.rows: the DRAM (controllers x pseudo-channels x banks x rows x row_bytes) is smaller than gpu.global_mem_bytes";
  if (d.read_queue == 0) return "dram.read_queue: must be at least 1";
  if (d.write_queue == 0) return "dram.write_queue: must be at least 1";
  if (d.write_high_watermark == 0 || d.write_high_watermark > d.write_queue)
    return "dram.write_high_watermark: must be between 1 and dram.write_queue";
  if (d.write_low_watermark >= d.write_high_watermark) return "dram.write_low_watermark: must be below dram.write_high_watermark";
  if (d.write_max_wait == 0) return "dram.write_max_wait: must be at least 1 DRAM clock";
  if (d.row_hit_cap == 0) return "dram.row_hit_cap: must be at least 1";
  const DramConfig::Timing& t = d.timing;
  if (t.nRCD == 0) return "dram.timing.nRCD: must be at least 1";
  if (t.nRP == 0) return "dram.timing.nRP: must be at least 1";
  if (t.nRAS < t.nRCD) return "dram.timing.nRAS: must be at least dram.timing.nRCD";
  if (t.nCL == 0) return "dram.timing.nCL: must be at least 1";
  if (t.nCCD_S == 0) return "dram.timing.nCCD_S: must be at least 1";
  if (t.nCCD_L < t.nCCD_S) return "dram.timing.nCCD_L: must be at least dram.timing.nCCD_S";
  if (t.nRRD_S == 0) return "dram.timing.nRRD_S: must be at least 1";
  if (t.nRRD_L < t.nRRD_S) return "dram.timing.nRRD_L: must be at least dram.timing.nRRD_S";
  if (t.nWTR_L < t.nWTR_S) return "dram.timing.nWTR_L: must be at least dram.timing.nWTR_S";
  if (t.nRTW == 0) return "dram.timing.nRTW: must be at least 1";
  if (d.refresh != DramRefresh::None) {
    const uint64_t banks = uint64_t(d.bank_groups) * d.banks_per_group;
    if (t.nREFI == 0) return "dram.timing.nREFI: must be positive when dram.refresh is not \"none\"";
    if (d.refresh == DramRefresh::AllBank && (t.nRFC == 0 || t.nRFC >= t.nREFI))
      return "dram.timing.nRFC: must be positive and below dram.timing.nREFI";
    if (d.refresh == DramRefresh::PerBank && (t.nRFCsb == 0 || t.nREFI / banks == 0))
      return "dram.timing.nRFCsb: must be positive, and dram.timing.nREFI at least one clock per bank";
  }
  return {};
}
}  // namespace

bool validate(const Machine& m, std::string& error) {
  auto bad = [&](std::string msg) {
    error = std::move(msg);
    return false;
  };
  // [gpu]
  if (m.name.empty()) return bad("gpu.name: must not be empty");
  if (m.cc_major < 1 || m.cc_major > 20) return bad(fmt::format("gpu.cc_major: {} is not a compute capability", m.cc_major));
  if (m.cc_minor < 0 || m.cc_minor > 9) return bad(fmt::format("gpu.cc_minor: {} is not a compute capability", m.cc_minor));
  if (m.ptx_target.rfind("sm_", 0) != 0) return bad(fmt::format("gpu.ptx_target: \"{}\" is not an sm_XX target", m.ptx_target));
  if (m.sms == 0) return bad("gpu.sms: must be at least 1");
  if (m.gpcs == 0) return bad("gpu.gpcs: must be at least 1");
  if (m.sms_per_tpc == 0) return bad("gpu.sms_per_tpc: must be at least 1");
  if (m.tpcs_per_gpc.size() != m.gpcs)
    return bad(fmt::format("gpu.tpcs_per_gpc: has {} entries for {} GPCs (gpu.gpcs)", m.tpcs_per_gpc.size(), m.gpcs));
  uint64_t tpcs = 0;
  for (auto t : m.tpcs_per_gpc) {
    if (t == 0) return bad("gpu.tpcs_per_gpc: every GPC needs at least one TPC");
    tpcs += t;
  }
  {
    uint64_t in_groups = 0;
    for (auto g : m.cluster_sm_groups) in_groups += g;
    if (in_groups > m.sms)
      return bad(fmt::format("gpu.cluster_sm_groups: {} SMs in the groups, more than the {} SMs", in_groups, m.sms));
  }
  if (tpcs * m.sms_per_tpc != m.sms)
    return bad(fmt::format("gpu.sms: {} SMs, but gpu.tpcs_per_gpc sums to {} TPCs x {} SMs/TPC = {}", m.sms, tpcs,
                           m.sms_per_tpc, tpcs * m.sms_per_tpc));
  if (!(m.sm_clock_mhz > 0)) return bad("gpu.sm_clock_mhz: must be positive");
  if (!(m.mem_clock_mhz > 0)) return bad("gpu.mem_clock_mhz: must be positive");
  if (m.mem_bus_bits == 0 || m.mem_bus_bits % 8) return bad("gpu.mem_bus_bits: must be a positive multiple of 8");
  if (m.global_mem_bytes == 0) return bad("gpu.global_mem_bytes: must be positive");
  if (m.persisting_l2_max_bytes > m.l2_bytes)
    return bad(fmt::format("gpu.persisting_l2_max_bytes: {} exceeds gpu.l2_bytes ({})", m.persisting_l2_max_bytes, m.l2_bytes));
  if ((m.persisting_l2_max_bytes == 0) != (m.access_policy_max_window_bytes == 0))
    return bad("gpu.access_policy_max_window_bytes: must be 0 exactly when gpu.persisting_l2_max_bytes is 0 (L2 residency control is all or nothing)");
  if (m.access_policy_max_window_bytes > 0x7fffffffull)
    return bad("gpu.access_policy_max_window_bytes: at most 2^31 - 1 (cudaDeviceProp::accessPolicyMaxWindowSize is an int)");
  if (m.const_mem_bytes == 0) return bad("gpu.const_mem_bytes: must be positive");
  for (int i = 0; i < 3; ++i) {
    if (m.max_block_dim[i] == 0) return bad("gpu.max_block_dim: every dimension must be at least 1");
    if (m.max_grid_dim[i] == 0) return bad("gpu.max_grid_dim: every dimension must be at least 1");
  }

  // [sm]
  if (m.sub_cores == 0) return bad("sm.sub_cores: must be at least 1");
  if (m.issue_model == IssueModel::G80 && m.sub_cores != 1) return bad("sm.sub_cores: the g80 issue model has one scheduler per SM (sub_cores = 1)");
  if (m.max_warps == 0) return bad("sm.max_warps: must be at least 1");
  if (m.max_warps > 4096) return bad(fmt::format("sm.max_warps: {} is more than the 4096 warp slots an SM model supports", m.max_warps));
  if (m.max_warps % m.sub_cores)
    return bad(fmt::format("sm.max_warps: {} warps do not divide evenly over {} sub-cores (sm.sub_cores)", m.max_warps, m.sub_cores));
  if (uint64_t(m.max_threads) != uint64_t(m.max_warps) * 32)
    return bad(fmt::format("sm.max_threads: {} is not sm.max_warps x 32 = {}", m.max_threads, uint64_t(m.max_warps) * 32));
  if (m.max_ctas == 0) return bad("sm.max_ctas: must be at least 1");
  if (m.max_threads_per_cta == 0 || m.max_threads_per_cta % 32 || m.max_threads_per_cta > m.max_threads)
    return bad(fmt::format("sm.max_threads_per_cta: {} must be a multiple of 32 no larger than sm.max_threads", m.max_threads_per_cta));
  if (uint64_t(m.max_block_dim[0]) > m.max_threads_per_cta || uint64_t(m.max_block_dim[1]) > m.max_threads_per_cta ||
      m.max_block_dim[2] > m.max_threads_per_cta)
    return bad("gpu.max_block_dim: a dimension exceeds sm.max_threads_per_cta");
  if (m.registers == 0) return bad("sm.registers: must be positive");
  if (m.max_regs_per_thread == 0 || m.max_regs_per_thread > 255)
    return bad(fmt::format("sm.max_regs_per_thread: {} is outside 1..255", m.max_regs_per_thread));
  if (m.max_regs_per_cta == 0 || m.max_regs_per_cta > m.registers)
    return bad(fmt::format("sm.max_regs_per_cta: {} must be between 1 and sm.registers ({})", m.max_regs_per_cta, m.registers));
  if (m.reg_alloc_unit == 0 || m.registers % m.reg_alloc_unit)
    return bad(fmt::format("sm.reg_alloc_unit: {} must be positive and divide sm.registers ({})", m.reg_alloc_unit, m.registers));
  if (m.shared_carveouts_kb.empty()) return bad("sm.shared_carveouts_kb: needs at least one carve-out");
  for (size_t i = 1; i < m.shared_carveouts_kb.size(); ++i)
    if (m.shared_carveouts_kb[i] <= m.shared_carveouts_kb[i - 1])
      return bad(fmt::format("sm.shared_carveouts_kb: must be strictly ascending ({} after {})", m.shared_carveouts_kb[i],
                             m.shared_carveouts_kb[i - 1]));
  const uint64_t max_shared = uint64_t(m.shared_carveouts_kb.back()) * 1024;
  if (max_shared == 0) return bad("sm.shared_carveouts_kb: the largest carve-out must be positive");
  if (max_shared > m.l1_shared_bytes)
    return bad(fmt::format("sm.shared_carveouts_kb: the largest carve-out ({} KB) exceeds sm.l1_shared_bytes ({} bytes)",
                           m.shared_carveouts_kb.back(), m.l1_shared_bytes));
  if (m.max_shared_per_cta == 0 || m.max_shared_per_cta > max_shared)
    return bad(fmt::format("sm.max_shared_per_cta: {} must be between 1 and the largest carve-out ({} bytes)", m.max_shared_per_cta, max_shared));
  if (m.default_shared_per_cta == 0 || m.default_shared_per_cta > m.max_shared_per_cta)
    return bad(fmt::format("sm.default_shared_per_cta: {} must be between 1 and sm.max_shared_per_cta ({})", m.default_shared_per_cta,
                           m.max_shared_per_cta));
  if (!is_pow2(m.shared_alloc_unit)) return bad(fmt::format("sm.shared_alloc_unit: {} must be a power of two", m.shared_alloc_unit));
  if (m.reserved_shared_per_cta >= max_shared)
    return bad(fmt::format("sm.reserved_shared_per_cta: {} must be smaller than the largest carve-out", m.reserved_shared_per_cta));
  if (!(m.issue_clock_ratio > 0 && m.issue_clock_ratio <= 1))
    return bad(fmt::format("sm.issue_clock_ratio: {} is outside (0, 1]", m.issue_clock_ratio));
  if (m.scoreboard_entries == 0) return bad("sm.scoreboard_entries: must be at least 1");
  for (unsigned p = 0; p < kPipeCount; ++p) {
    const bool may_be_absent = Pipe(p) == Pipe::Fp16 || Pipe(p) == Pipe::Fp64 || Pipe(p) == Pipe::Tensor;
    const uint32_t l = m.pipe_lanes[p];
    if (l > 32 || (l == 0 && !may_be_absent))
      return bad(fmt::format("sm.pipes.{}: {} lanes is outside {}..32", kPipeNames[p], l, may_be_absent ? 0 : 1));
  }
  // [sm.icache]
  if (m.instr_bytes == 0 || !is_pow2(m.instr_bytes)) return bad("sm.icache.instr_bytes: must be a power of two");
  if (!is_pow2(m.icache_line) || m.icache_line < m.instr_bytes) return bad("sm.icache.line: must be a power of two of at least one instruction");
  if (m.l1i_bytes == 0 || m.l1i_bytes % m.icache_line) return bad("sm.icache.l1i_bytes: must be a positive multiple of sm.icache.line");
  if (m.l0i_bytes % m.icache_line) return bad("sm.icache.l0i_bytes: must be a multiple of sm.icache.line (0: no L0)");
  if (m.l1i_assoc == 0 || (m.l1i_bytes / m.icache_line) % m.l1i_assoc) return bad("sm.icache.l1i_assoc: must divide the L1I line count");
  if (m.l0i_assoc == 0 || (m.l0i_bytes / m.icache_line) % m.l0i_assoc) return bad("sm.icache.l0i_assoc: must divide the L0I line count");
  if (m.l0i_bytes && m.l0i_miss_latency == 0) return bad("sm.icache.l0i_miss_latency: must be positive");
  if (m.l1i_miss_latency == 0) return bad("sm.icache.l1i_miss_latency: must be positive");
  // [mem]
  if (m.shared_banks == 0 || !is_pow2(m.shared_banks)) return bad("mem.shared_banks: must be a power of two");
  if (m.shared_bank_bytes == 0 || !is_pow2(m.shared_bank_bytes)) return bad("mem.shared_bank_bytes: must be a power of two");
  // [l1]
  auto pow2_field = [&](uint32_t v, const char* name) { return v && is_pow2(v) ? true : bad(fmt::format("{}: {} must be a power of two", name, v)); };
  if (!pow2_field(m.l1.line, "l1.line") || !pow2_field(m.l1.sector, "l1.sector")) return false;
  if (m.l1.sector > m.l1.line || m.l1.line / m.l1.sector > 32) return bad("l1.sector: a line must hold 1 to 32 sectors");
  if (m.l1.assoc == 0) return bad("l1.assoc: must be at least 1");
  if (m.l1.tag_lookups_per_clk == 0) return bad("l1.tag_lookups_per_clk: must be positive");
  if (m.l1.bytes_per_clk == 0) return bad("l1.bytes_per_clk: must be positive");
  if (m.its_spin_yield == 0) return bad("sm.its_spin_yield: must be positive");
  if (m.l1.atomic_request_cycles == 0) return bad("l1.atomic_request_cycles: must be positive");
  if (m.l1.max_outstanding == 0) return bad("l1.max_outstanding: must be positive");
  if (!pow2_field(m.l1.local_interleave, "l1.local_interleave")) return false;
  // [tlb]
  if (m.tlb.page_bytes < 4096 || !is_pow2(m.tlb.page_bytes)) return bad("tlb.page_bytes: must be a power of two of at least 4 KiB");
  if (m.tlb.l1_entries == 0 || m.tlb.l1_assoc == 0 || m.tlb.l1_entries % m.tlb.l1_assoc) return bad("tlb.l1_assoc: must divide tlb.l1_entries (both positive)");
  if (m.tlb.l2_entries == 0 || m.tlb.l2_assoc == 0 || m.tlb.l2_entries % m.tlb.l2_assoc) return bad("tlb.l2_assoc: must divide tlb.l2_entries (both positive)");
  if (m.tlb.groups_per_gpc == 0 || m.tlb.groups_per_gpc > 64) return bad("tlb.groups_per_gpc: must be 1..64");
  if (m.tlb.walkers == 0) return bad("tlb.walkers: must be at least 1");
  // [const_cache]
  if (m.const_cache.enabled) {
    const auto& c = m.const_cache;
    if (!pow2_field(c.l1_line, "const_cache.l1_line") || !pow2_field(c.l15_line, "const_cache.l15_line")) return false;
    if (c.l15_line < c.l1_line) return bad("const_cache.l15_line: must be at least const_cache.l1_line");
    if (c.l1_assoc == 0 || c.l1_bytes < c.l1_line * c.l1_assoc || c.l1_bytes % (c.l1_line * c.l1_assoc))
      return bad("const_cache.l1_bytes: must be a positive multiple of const_cache.l1_line x const_cache.l1_assoc");
    if (c.l15_assoc == 0 || c.l15_bytes < c.l15_line * c.l15_assoc || c.l15_bytes % (c.l15_line * c.l15_assoc))
      return bad("const_cache.l15_bytes: must be a positive multiple of const_cache.l15_line x const_cache.l15_assoc");
    if (c.l15_latency == 0) return bad("const_cache.l15_latency: must be positive");
    if (c.miss_latency == 0) return bad("const_cache.miss_latency: must be positive");
    if (c.address_cycles == 0) return bad("const_cache.address_cycles: must be positive");
  }
  // [tma]
  if (m.cluster.barrier_cycles_per_cta < 0) return bad("cluster.barrier_cycles_per_cta: must not be negative");
  if (m.cluster.dsmem_bytes_per_clk < 0) return bad("cluster.dsmem_bytes_per_clk: must not be negative");
  if (!(m.cta_dispatch_interval >= 0)) return bad("sm.latency.cta_dispatch_interval: must not be negative");
  if (m.tma.enabled) {
    if (m.tma.copy_cycles == 0) return bad("tma.copy_cycles: must be positive");
    if (m.tma.bytes_per_clk == 0) return bad("tma.bytes_per_clk: must be positive");
    if (m.tma.store_bytes_per_clk == 0) return bad("tma.store_bytes_per_clk: must be positive");
  }
  // [xbar]
  if (m.xbar.gpc_bytes_per_clk == 0 || m.xbar.slice_bytes_per_clk == 0) return bad("xbar.gpc_bytes_per_clk: port widths must be positive");
  // [l2]
  if (m.l2.partitions == 0 || m.l2.slices == 0 || m.l2.slices % m.l2.partitions) return bad("l2.slices: must be a positive multiple of l2.partitions");
  if (!pow2_field(m.l2.line, "l2.line") || !pow2_field(m.l2.sector, "l2.sector")) return false;
  if (m.l2.sector > m.l2.line || m.l2.line / m.l2.sector > 32) return bad("l2.sector: a line must hold 1 to 32 sectors");
  if (m.l2.line != m.l1.line || m.l2.sector != m.l1.sector) return bad("l2.line: L1 and L2 must use the same line and sector sizes");
  if (m.l2.assoc == 0 || (m.l2_bytes && m.l2_bytes % (uint64_t(m.l2.slices) * m.l2.line * m.l2.assoc))) return bad("l2.assoc: gpu.l2_bytes must split into l2.slices x sets x l2.assoc lines");
  if (m.l2.hit_latency == 0) return bad("l2.hit_latency: must be positive");
  if (m.l2.bytes_per_clk == 0 || m.l2.atomic_sectors_per_clk == 0 || m.l2.max_outstanding == 0) return bad("l2.bytes_per_clk: slice bandwidth, atomic rate and l2.max_outstanding must be positive");
  if (m.l2.fetch_sectors == 0 || (m.l2.fetch_sectors & (m.l2.fetch_sectors - 1)) || m.l2.fetch_sectors > m.l2.line / m.l2.sector)
    return bad("l2.fetch_sectors: a power of two from 1 to the sectors of a line");
  // [pcie]
  if (!(m.pcie.gbytes_per_s > 0)) return bad("pcie.gbytes_per_s: must be positive");
  if (m.pcie.latency_us < 0) return bad("pcie.latency_us: must not be negative");
  // [dram]
  if (std::string why = validate_dram(m.dram, m.mem_bus_bits, m.global_mem_bytes); !why.empty()) return bad(why);
  // [tensor]
  const bool has_tensor = m.tensor_cores_per_sm > 0;
  if (has_tensor != (m.pipe_lanes[unsigned(Pipe::Tensor)] > 0))
    return bad("tensor.cores_per_sm: tensor cores and sm.pipes.tensor must both be zero (absent) or both positive");
  if (has_tensor && m.tensor_fma_f16 == 0) return bad("tensor.fma_f16: must be positive when the SM has tensor cores");
  if (!has_tensor && (m.tensor_fma_f16 || m.tensor_fma_tf32 || m.tensor_fma_f64 || m.tensor_fma_i8 || m.tensor_fma_i4 || m.tensor_fma_b1))
    return bad("tensor.fma_f16: rates must be zero without tensor cores (tensor.cores_per_sm = 0)");
  if (has_tensor && m.tensor_cores_per_sm % m.sub_cores) return bad("tensor.cores_per_sm: must be a multiple of sm.sub_cores");
  // [ops]
  for (unsigned c = 0; c < kOpClassCount; ++c) {
    const OpTiming& t = m.ops[c];
    if (unsigned(t.pipe) >= kPipeCount) return bad(fmt::format("ops.{}.pipe: not a pipe", kOpClassNames[c]));
    if (m.pipe_lanes[unsigned(t.pipe)] == 0)
      return bad(fmt::format("ops.{}.pipe: pipe \"{}\" has no lanes on this machine (sm.pipes.{} = 0)", kOpClassNames[c],
                             kPipeNames[unsigned(t.pipe)], kPipeNames[unsigned(t.pipe)]));
    if (t.latency == 0) return bad(fmt::format("ops.{}.latency: must be at least 1 cycle", kOpClassNames[c]));
    if (t.issue == 0) return bad(fmt::format("ops.{}.issue: must be at least 1", kOpClassNames[c]));
  }
  return true;
}

bool load_machine_text(std::string_view text, const std::string& source, const std::vector<std::string>& overrides,
                       Machine& out, std::string& error, const std::string& base_dir) {
  toml::table root;
  if (!parse_with_inheritance(text, source, base_dir, 0, root, error)) return false;
  std::map<std::string, std::string> origin;
  if (!apply_overrides(root, overrides, origin, error)) return false;
  Machine m;
  Reader rd(root, source, origin);
  read_machine(rd, m);
  if (!rd.ok()) {
    error = rd.error();
    return false;
  }
  m.max_shared_per_sm = m.shared_carveouts_kb.empty() ? 0 : m.shared_carveouts_kb.back() * 1024;
  std::string why;
  if (!validate(m, why)) {
    // Name the override when the failing field came from one.
    std::string key = why.substr(0, why.find(':'));
    auto it = origin.find(key);
    error = fmt::format("{}: {}{}", source, why, it != origin.end() ? fmt::format(" (from --set {})", it->second) : "");
    return false;
  }
  std::string stem = std::filesystem::path(source).stem().string();
  m.key = stem;
  out = std::move(m);
  return true;
}

bool load_machine(const std::string& name_or_path, const std::vector<std::string>& overrides, Machine& out,
                  std::string& error) {
  if (looks_like_path(name_or_path)) {
    std::string text;
    if (!read_file(name_or_path, text)) {
      error = fmt::format("cannot read machine description '{}'", name_or_path);
      return false;
    }
    std::string dir = std::filesystem::path(name_or_path).parent_path().string();
    return load_machine_text(text, name_or_path, overrides, out, error, dir.empty() ? "." : dir);
  }
  const std::string name = canonical_builtin(name_or_path);
  std::string_view text = builtin_toml(name);
  if (text.empty()) {
    std::string known;
    for (auto& n : machine_names()) known += (known.empty() ? "" : ", ") + n;
    error = fmt::format("unknown GPU '{}' (known: {}; or a path to a .toml file)", name_or_path, known);
    return false;
  }
  if (!load_machine_text(text, name + ".toml", overrides, out, error, ".")) return false;
  out.key = name;
  return true;
}

std::string describe(const Machine& m) {
  std::string s;
  auto line = [&](std::string_view label, const std::string& value) { s += fmt::format("  {:<26}{}\n", label, value); };
  auto bytes = [](uint64_t b) {
    if (b >= (uint64_t(1) << 30) && b % (uint64_t(1) << 30) == 0) return fmt::format("{} GiB", b >> 30);
    if (b >= (uint64_t(1) << 20) && b % (uint64_t(1) << 20) == 0) return fmt::format("{} MiB", b >> 20);
    if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
    return fmt::format("{} B", b);
  };
  auto join = [](const auto& v) {
    std::string o;
    for (auto& x : v) o += (o.empty() ? "" : ", ") + fmt::format("{}", x);
    return o;
  };
  s += fmt::format("{} ({})\n", m.name, m.key);
  line("compute capability", fmt::format("{}.{} ({})", m.cc_major, m.cc_minor, m.ptx_target));
  line("SMs", fmt::format("{} = {} GPCs x [{}] TPCs x {} SMs/TPC", m.sms, m.gpcs, join(m.tpcs_per_gpc), m.sms_per_tpc));
  line("SM clock", fmt::format("{:g} MHz", m.sm_clock_mhz));
  const double gbs = m.mem_clock_mhz * 2 * m.mem_bus_bits / 8 / 1000;
  line("memory", fmt::format("{}, {}-bit bus at {:g} MHz (DDR: {:.0f} GB/s)", bytes(m.global_mem_bytes), m.mem_bus_bits,
                             m.mem_clock_mhz, gbs));
  line("L2 cache", fmt::format("{} (persisting max {}, access-policy window max {})", bytes(m.l2_bytes),
                               bytes(m.persisting_l2_max_bytes), bytes(m.access_policy_max_window_bytes)));
  line("constant memory", bytes(m.const_mem_bytes));
  line("max block / grid dims", fmt::format("{} x {} x {} / {} x {} x {}", m.max_block_dim[0], m.max_block_dim[1],
                                            m.max_block_dim[2], m.max_grid_dim[0], m.max_grid_dim[1], m.max_grid_dim[2]));
  s += "SM\n";
  line("issue", fmt::format("{}: {} sub-core(s), {} scheduler, {:g} issue/cycle", issue_model_name(m.issue_model), m.sub_cores,
                            scheduler_name(m.scheduler), m.issue_clock_ratio));
  line("warps / threads / CTAs", fmt::format("{} / {} / {} per SM; {} threads per CTA", m.max_warps, m.max_threads, m.max_ctas,
                                             m.max_threads_per_cta));
  line("registers per SM", fmt::format("{} (32-bit); {} per CTA, {} per thread, allocated per warp in units of {}", m.registers,
                                m.max_regs_per_cta, m.max_regs_per_thread, m.reg_alloc_unit));
  line("L1 + shared", bytes(m.l1_shared_bytes));
  line("shared memory per SM", fmt::format("{} KB (the largest carve-out)", m.max_shared_per_sm / 1024));
  line("shared carve-outs (KB)", join(m.shared_carveouts_kb));
  line("shared per SM / CTA", fmt::format("{} / {} opt-in, {} default; {} reserved per CTA; unit {} B", bytes(m.max_shared_per_sm),
                                          bytes(m.max_shared_per_cta), bytes(m.default_shared_per_cta),
                                          bytes(m.reserved_shared_per_cta), m.shared_alloc_unit));
  std::string pipes;
  for (unsigned p = 0; p < kPipeCount; ++p) pipes += fmt::format("{}{}={}", p ? " " : "", kPipeNames[p], m.pipe_lanes[p]);
  line("pipe lanes", pipes + " (mio, lsu per SM)");
  line("scoreboard entries", fmt::format("{}", m.scoreboard_entries));
  line("MIO/LSU queue", fmt::format("{} instructions ahead of the unit", m.mio_queue));
  line("instruction caches", fmt::format("{} B/instr; L0 {} ({}-way, miss {} cy), L1 {} ({}-way, miss {} cy), line {} B; "
                                         "prefetch {} lines, a line from L2 every {} cy", m.instr_bytes,
                                         bytes(m.l0i_bytes), m.l0i_assoc, m.l0i_miss_latency, bytes(m.l1i_bytes), m.l1i_assoc,
                                         m.l1i_miss_latency, m.icache_line, m.l1i_prefetch_lines, m.l1i_fill_interval));
  line("latencies (cycles)", fmt::format("barrier {} (divergent warp +{}), branch {}, CTA launch {} (one CTA per {} cy "
                                         "GPU-wide), kernel launch {}, device printf {}, CTA-scope fence {}",
                                         m.barrier_latency, m.barrier_divergent_latency, m.branch_latency,
                                         m.cta_launch_latency, m.cta_dispatch_interval, m.kernel_launch_cycles,
                                         m.printf_latency, m.membar_cta_latency));
  s += "memory\n";
  line("shared banks", fmt::format("{} x {} B", m.shared_banks, m.shared_bank_bytes));
  line("L1 data", fmt::format("{} B lines of {} B sectors, {}-way, {} miss entries/SM, {} lookups + {} B per cycle, miss path {} cy",
                              m.l1.line, m.l1.sector, m.l1.assoc, m.l1.max_outstanding, m.l1.tag_lookups_per_clk,
                              m.l1.bytes_per_clk, m.l1.miss_latency));
  line("TLBs", fmt::format("{} pages; L1 {} entries ({}-way) per SM; L2 {} entries ({}-way) per TLB group ({} groups per GPC), +{} cy; "
                           "{} walker(s) x {} cy",
                           bytes(m.tlb.page_bytes), m.tlb.l1_entries, m.tlb.l1_assoc, m.tlb.l2_entries, m.tlb.l2_assoc,
                           m.tlb.groups_per_gpc, m.tlb.l2_latency, m.tlb.walkers, m.tlb.walk_latency));
  if (m.const_cache.enabled) {
    const auto& c = m.const_cache;
    line("constant caches", fmt::format("L1 {} ({} B lines, {}-way, hit {} cy), L1.5 {} ({} B lines, {}-way, hit {} cy), "
                                        "miss to L2 after {} cy; {} cy per distinct address",
                                        bytes(c.l1_bytes), c.l1_line, c.l1_assoc, m.ops[unsigned(OpClass::LdConst)].latency,
                                        bytes(c.l15_bytes), c.l15_line, c.l15_assoc, c.l15_latency, c.miss_latency,
                                        c.address_cycles));
  } else {
    line("constant caches", fmt::format("not modelled: ld.const costs {} cycles", m.ops[unsigned(OpClass::LdConst)].latency));
  }
  if (m.tma.enabled)
    line("bulk copies (TMA)", fmt::format("start {} cy after issue, one per {} cy per warp; global->shared {} B/clk per SM, "
                                          "shared->global {} B/clk; mbarrier updated {} cy after the last line",
                                          m.tma.issue_latency, m.tma.copy_cycles, m.tma.bytes_per_clk,
                                          m.tma.store_bytes_per_clk, m.tma.complete_latency) +
                                          (m.tma.wait_after_copy ? fmt::format("; a warp's mbarrier waits end >= {} cy after its last copy",
                                                                               m.tma.wait_after_copy)
                                                                 : std::string()));
  else
    line("bulk copies (TMA)", "none (cp.async.bulk costs its instruction only)");
  if (m.cluster.barrier_latency || m.cluster.dsmem_latency)
    line("thread-block clusters", fmt::format("barrier releases {} cy + {:.2f} cy per CTA after the last arrival; "
                                              "another CTA's shared memory {} cy, {:.2f} B/clk per SM",
                                              m.cluster.barrier_latency, m.cluster.barrier_cycles_per_cta,
                                              m.cluster.dsmem_latency, m.cluster.dsmem_bytes_per_clk));
  line("crossbar", fmt::format("{} cy one way; {} B/clk per GPC port, {} B/clk per slice port", m.xbar.latency,
                               m.xbar.gpc_bytes_per_clk, m.xbar.slice_bytes_per_clk));
  line("L2 slices", fmt::format("{} in {} partition(s), {}-way, hit {} cy, far +{} cy, DRAM path {} cy, {} B/clk each, "
                                "clock {}, atomics {} sector(s)/L2 clk at the line's home partition, misses fetch {}-sector groups",
                                m.l2.slices, m.l2.partitions, m.l2.assoc, m.l2.hit_latency, m.l2.far_latency,
                                m.l2.dram_latency, m.l2.bytes_per_clk,
                                m.l2.clock_mhz ? fmt::format("{} MHz", m.l2.clock_mhz) : std::string("the SM's"),
                                m.l2.atomic_sectors_per_clk, m.l2.fetch_sectors));
  const auto& d = m.dram;
  line("DRAM", fmt::format("{} controllers x {} channels x {} pseudo-channels, {} x {} banks, {} B rows; "
                           "tRCD/tRP/tCL/tRAS {}/{}/{}/{} clk; {} refresh",
                           d.controllers, d.channels_per_controller, d.pseudo_channels, d.bank_groups, d.banks_per_group,
                           d.row_bytes, d.timing.nRCD, d.timing.nRP, d.timing.nCL, d.timing.nRAS,
                           d.refresh == DramRefresh::AllBank ? "all-bank" : d.refresh == DramRefresh::PerBank ? "per-bank" : "no"));
  line("host link", fmt::format("{:g} GB/s each way, {:g} us per transfer", m.pcie.gbytes_per_s, m.pcie.latency_us));
  s += "tensor cores\n";
  if (m.tensor_cores_per_sm == 0) {
    line("per SM", "none");
  } else {
    line("per SM", fmt::format("{}", m.tensor_cores_per_sm));
    line("dense FMA/clk per core", fmt::format("f16 {}, tf32 {}, f64 {}, i8 {}, i4 {}, b1 {}", m.tensor_fma_f16, m.tensor_fma_tf32,
                                               m.tensor_fma_f64, m.tensor_fma_i8, m.tensor_fma_i4, m.tensor_fma_b1));
    line("extra latency", fmt::format("{} cycles", m.tensor_latency));
    line("mma.sync overhead", fmt::format("{} pipe cycles per instruction", m.tensor_sync_overhead));
    line("wgmma latency", m.tensor_wgmma_n_per_cycle
                              ? fmt::format("{} + N/{} cycles after the pipe", m.tensor_wgmma_latency, m.tensor_wgmma_n_per_cycle)
                              : fmt::format("{} cycles after the pipe", m.tensor_wgmma_latency));
    for (auto [name, e] : {std::pair{"s4", m.tensor_emulated_s4}, std::pair{"u4", m.tensor_emulated_u4},
                           std::pair{"b1 xor", m.tensor_emulated_b1_xor}})
      if (e.latency || e.cycles)
        line(fmt::format("emulated {}", name),
             fmt::format("latency {} cycles, {} sub-core cycles per mma (measured shape)", e.latency, e.cycles));
  }
  s += "op classes (pipe, latency, issue, scoreboard)\n";
  for (unsigned c = 0; c < kOpClassCount; ++c) {
    const OpTiming& t = m.ops[c];
    s += fmt::format("  {:<12}{:<7}{:>5}{:>4}  {}\n", kOpClassNames[c], kPipeNames[unsigned(t.pipe)], t.latency, t.issue,
                     scoreboard_name(t.scoreboard));
  }
  return s;
}

}  // namespace warpsim::config
