#include "ptx/summary.hpp"
#include "ptx/regpressure.hpp"

#include <fmt/format.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace warpsim::ptx {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

uint64_t natural_align(const Variable& v) {
  if (v.align) return v.align;
  uint64_t s = type_size(v.type) * v.vec;
  return s ? s : 1;
}

std::string type_text(const Variable& v) {
  std::string t;
  if (v.vec > 1) t += fmt::format(".v{} ", v.vec);
  t += fmt::format(".{}", type_name(v.type));
  for (uint64_t d : v.dims) t += d ? fmt::format("[{}]", d) : "[]";
  if (v.ptr) {
    t += " .ptr";
    if (v.ptr_space != Space::None) t += fmt::format(".{}", space_name(v.ptr_space));
    if (v.ptr_align) t += fmt::format(".align{}", v.ptr_align);
  }
  return t;
}

void walk_symbols(const Operand& o, std::set<uint32_t>& funcs, std::set<uint32_t>& vars, bool& indirect, bool is_call_target) {
  if (o.kind == Operand::Kind::Symbol) {
    if (o.sym == SymKind::Function) funcs.insert(o.sym_index);
    if (o.sym == SymKind::Variable) vars.insert(o.sym_index);
  }
  if (is_call_target && o.kind == Operand::Kind::Reg) indirect = true;
  for (auto& e : o.elems) walk_symbols(e, funcs, vars, indirect, false);
}

}  // namespace

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out(d);
  std::free(d);
  return out;
}

ModuleSummary summarize(const Module& m) {
  ModuleSummary s;
  s.version = fmt::format("{}.{}", m.version_major, m.version_minor);
  s.targets = m.targets;
  s.address_size = m.address_size;
  s.functions = m.funcs.size();
  for (auto& f : m.funcs) s.instructions += f.instrs.size();

  // Per function: the functions and module variables it names directly.
  std::vector<std::set<uint32_t>> fcalls(m.funcs.size()), fvars(m.funcs.size());
  std::vector<bool> findirect(m.funcs.size(), false);
  for (uint32_t i = 0; i < m.funcs.size(); ++i) {
    bool ind = false;
    for (auto& ins : m.funcs[i].instrs) {
      for (size_t k = 0; k < ins.operands.size(); ++k) {
        // call (ret), target, (args): the target is operand 0 or 1 depending on a return list.
        bool target = ins.op == Opcode::Call &&
                      ((k == 0 && ins.operands[0].kind != Operand::Kind::CallList) ||
                       (k == 1 && ins.operands[0].kind == Operand::Kind::CallList));
        walk_symbols(ins.operands[k], fcalls[i], fvars[i], ind, target);
      }
    }
    findirect[i] = ind;
  }

  for (uint32_t k = 0; k < m.funcs.size(); ++k) {
    const Function& f = m.funcs[k];
    if (!f.is_entry || !f.has_body) continue;
    KernelSummary ks;
    ks.name = f.name;
    ks.perf = f.perf;
    uint64_t off = 0;
    for (auto& p : f.params) {
      ParamSummary ps;
      ps.name = p.name;
      ps.type = type_text(p);
      ps.size = p.size_bytes();
      off = align_up(off, natural_align(p));
      ps.offset = off;
      off += ps.size;
      ks.params.push_back(ps);
    }
    ks.param_bytes = off;
    std::map<std::string, uint64_t> regs;
    for (auto& r : f.regs) {
      regs[fmt::format("{}{}", r.vec > 1 ? fmt::format(".v{} ", r.vec) : "", "." + std::string(type_name(r.type)))]++;
      ks.regs_total++;
    }
    ks.regs_by_type.assign(regs.begin(), regs.end());
    ks.live_words = max_live_words(f);

    // Reachable functions through direct references (calls and address-taking).
    std::vector<uint32_t> work{k};
    std::set<uint32_t> seen{k};
    std::set<uint32_t> vars;
    while (!work.empty()) {
      uint32_t i = work.back();
      work.pop_back();
      const Function& g = m.funcs[i];
      if (findirect[i]) ks.indirect_calls = true;
      ks.instructions += g.instrs.size();
      vars.insert(fvars[i].begin(), fvars[i].end());
      for (auto& v : g.locals) {
        if (v.space == Space::Shared) ks.static_shared_bytes = align_up(ks.static_shared_bytes, natural_align(v)) + v.size_bytes();
        if (v.space == Space::Local) ks.local_bytes = align_up(ks.local_bytes, natural_align(v)) + v.size_bytes();
      }
      for (uint32_t c : fcalls[i]) {
        // Bind to the definition when a prototype and a definition share the name.
        const Function* def = m.find_function(m.funcs[c].name);
        uint32_t ci = def ? uint32_t(def - m.funcs.data()) : c;
        if (seen.insert(ci).second) {
          work.push_back(ci);
          ks.callees.push_back(m.funcs[ci].name);
        }
      }
    }
    for (uint32_t v : vars) {
      const Variable& var = m.vars[v];
      if (var.space != Space::Shared) continue;
      if (!var.dims.empty() && var.dims[0] == 0) ks.dynamic_shared = true;
      else ks.static_shared_bytes = align_up(ks.static_shared_bytes, natural_align(var)) + var.size_bytes();
    }
    std::sort(ks.callees.begin(), ks.callees.end());
    s.kernels.push_back(std::move(ks));
  }
  return s;
}

std::string format_summary(const ModuleSummary& s, const std::string& filename) {
  std::string o;
  auto out = std::back_inserter(o);
  fmt::format_to(out, "{}: PTX {} for {}, {}-bit addresses\n", filename, s.version,
                 s.targets.empty() ? "(no target)" : fmt::format("{}", fmt::join(s.targets, ", ")), s.address_size);
  fmt::format_to(out, "  {} function{}, {} instructions, {} kernel{}\n", s.functions, s.functions == 1 ? "" : "s",
                 s.instructions, s.kernels.size(), s.kernels.size() == 1 ? "" : "s");
  for (auto& k : s.kernels) {
    std::string pretty = demangle(k.name);
    if (pretty != k.name) fmt::format_to(out, "\nkernel {}\n  ({})\n", k.name, pretty);
    else fmt::format_to(out, "\nkernel {}\n", k.name);
    fmt::format_to(out, "  parameters: {} ({} bytes)\n", k.params.size(), k.param_bytes);
    for (auto& p : k.params) fmt::format_to(out, "    +{:<4} {:<24} {} ({} bytes)\n", p.offset, p.type, p.name, p.size);
    fmt::format_to(out, "  registers (PTX virtual): {}", k.regs_total);
    if (!k.regs_by_type.empty()) {
      o += " =";
      for (auto& [t, n] : k.regs_by_type) fmt::format_to(out, " {}x{}", n, t);
    }
    o += "\n";
    fmt::format_to(out, "  registers live at once (32-bit, PTX liveness): {}\n", k.live_words);
    fmt::format_to(out, "  shared memory: {} bytes static{}\n", k.static_shared_bytes,
                   k.dynamic_shared ? " + dynamic (extern .shared)" : "");
    fmt::format_to(out, "  local memory: {} bytes\n", k.local_bytes);
    fmt::format_to(out, "  instructions: {} (kernel and callees)\n", k.instructions);
    if (!k.callees.empty()) fmt::format_to(out, "  calls: {}\n", fmt::join(k.callees, ", "));
    if (k.indirect_calls) o += "  calls through function pointers\n";
    auto dims = [&](const char* name, const std::array<uint32_t, 3>& d, uint8_t n) {
      if (!n) return;
      fmt::format_to(out, "  {} ", name);
      for (uint8_t i = 0; i < n; ++i) fmt::format_to(out, "{}{}", i ? ", " : "", d[i]);
      o += "\n";
    };
    dims(".maxntid", k.perf.maxntid, k.perf.maxntid_dims);
    dims(".reqntid", k.perf.reqntid, k.perf.reqntid_dims);
    if (k.perf.minnctapersm) fmt::format_to(out, "  .minnctapersm {}\n", k.perf.minnctapersm);
    if (k.perf.maxnreg) fmt::format_to(out, "  .maxnreg {}\n", k.perf.maxnreg);
  }
  return o;
}

}  // namespace warpsim::ptx
