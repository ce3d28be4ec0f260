#include "ptx/ir.hpp"

#include <fmt/format.h>

namespace warpsim::ptx {

std::array<Type, 4> Instruction::types() const {
  std::array<Type, 4> out{Type::None, Type::None, Type::None, Type::None};
  unsigned n = 0;
  for (unsigned i = 0; i < nmods && n < 4; ++i)
    if (auto t = mod_type(mods[i])) out[n++] = *t;
  return out;
}

namespace {
uint64_t sat_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}
}  // namespace

uint64_t Variable::element_count() const {
  uint64_t n = 1;
  for (uint64_t d : dims) n = sat_mul(n, d);
  return n;
}

uint64_t Variable::size_bytes() const {
  return sat_mul(sat_mul(element_count(), vec), type_size(type));
}

std::string Function::reg_name(uint32_t reg) const {
  const Register& r = regs[reg];
  const auto& item = reg_decls[r.decl].items[r.item];
  if (r.number < 0) return item.name;
  return item.name + std::to_string(r.number);
}

const Function* Module::find_function(std::string_view name) const {
  const Function* decl = nullptr;
  for (const auto& f : funcs) {
    if (f.name != name) continue;
    if (f.has_body) return &f;
    decl = &f;
  }
  return decl;
}

const Variable* Module::find_variable(std::string_view name) const {
  for (const auto& v : vars)
    if (v.name == name) return &v;
  return nullptr;
}

// ------------------------------------------------------------------ structural equality

namespace {

struct Cmp {
  std::string* why;
  std::string ctx;

  bool diff(const std::string& what) {
    if (why) *why = ctx.empty() ? what : ctx + ": " + what;
    return false;
  }

  bool operand(const Operand& a, const Operand& b) {
    if (a.kind != b.kind) return diff("operand kind differs");
    if (a.negated != b.negated || a.minus != b.minus) return diff("operand negation differs");
    if (a.selector != b.selector) return diff(fmt::format("selector '{}' vs '{}'", a.selector.view(), b.selector.view()));
    if (a.ival != b.ival) return diff(fmt::format("value {} vs {}", a.ival, b.ival));
    switch (a.kind) {
      case Operand::Kind::Reg:
        if (a.reg != b.reg) return diff(fmt::format("register {} vs {}", a.reg, b.reg));
        break;
      case Operand::Kind::SpecialReg:
        if (a.sreg != b.sreg || a.sreg_index != b.sreg_index) return diff("special register differs");
        break;
      case Operand::Kind::Symbol:
        if (a.name != b.name) return diff(fmt::format("symbol '{}' vs '{}'", a.name, b.name));
        if (a.sym != b.sym || a.sym_index != b.sym_index) return diff(fmt::format("symbol '{}' resolves differently", a.name));
        break;
      default: break;
    }
    if (a.elems.size() != b.elems.size()) return diff("operand element count differs");
    for (size_t i = 0; i < a.elems.size(); ++i)
      if (!operand(a.elems[i], b.elems[i])) return false;
    return true;
  }

  bool instruction(const Instruction& a, const Instruction& b) {
    if (a.op != b.op) return diff(fmt::format("opcode {} vs {}", opcode_name(a.op), opcode_name(b.op)));
    if (a.nmods != b.nmods) return diff("modifier count differs");
    for (unsigned i = 0; i < a.nmods; ++i)
      if (a.mods[i] != b.mods[i]) return diff(fmt::format("modifier .{} vs .{}", mod_name(a.mods[i]), mod_name(b.mods[i])));
    if (a.shape.m != b.shape.m || a.shape.n != b.shape.n || a.shape.k != b.shape.k) return diff("shape differs");
    if (a.has_guard != b.has_guard || a.guard_negated != b.guard_negated || (a.has_guard && a.guard_reg != b.guard_reg))
      return diff("guard differs");
    if (a.line.file != b.line.file || a.line.line != b.line.line || a.line.col != b.line.col)
      return diff("source line mapping differs");
    if (a.operands.size() != b.operands.size()) return diff("operand count differs");
    for (size_t i = 0; i < a.operands.size(); ++i) {
      std::string saved = ctx;
      ctx += fmt::format(": operand {}", i);
      if (!operand(a.operands[i], b.operands[i])) return false;
      ctx = saved;
    }
    return true;
  }

  bool variable(const Variable& a, const Variable& b) {
    if (a.name != b.name) return diff(fmt::format("variable '{}' vs '{}'", a.name, b.name));
    if (a.space != b.space || a.linkage != b.linkage || a.align != b.align || a.type != b.type || a.vec != b.vec ||
        a.dims != b.dims || a.has_init != b.has_init || !(a.init == b.init) || a.fields != b.fields ||
        a.managed != b.managed || a.attrs != b.attrs || a.ptr != b.ptr || a.ptr_space != b.ptr_space ||
        a.ptr_align != b.ptr_align)
      return diff(fmt::format("declaration of '{}' differs", a.name));
    return true;
  }

  bool variables(const std::vector<Variable>& a, const std::vector<Variable>& b, const char* what) {
    if (a.size() != b.size()) return diff(fmt::format("{} count {} vs {}", what, a.size(), b.size()));
    for (size_t i = 0; i < a.size(); ++i)
      if (!variable(a[i], b[i])) return false;
    return true;
  }

  bool function(const Function& a, const Function& b) {
    ctx = fmt::format("function '{}'", a.name);
    if (a.name != b.name) return diff(fmt::format("name vs '{}'", b.name));
    if (a.is_entry != b.is_entry || a.linkage != b.linkage || a.noreturn != b.noreturn || a.has_body != b.has_body ||
        !(a.perf == b.perf) || a.header_pragmas != b.header_pragmas || a.attrs != b.attrs)
      return diff("header differs");
    if (!variables(a.rets, b.rets, "return parameter") || !variables(a.params, b.params, "parameter") ||
        !variables(a.locals, b.locals, "local variable"))
      return false;
    if (a.regs.size() != b.regs.size()) return diff("register count differs");
    for (size_t i = 0; i < a.regs.size(); ++i)
      if (a.reg_name(uint32_t(i)) != b.reg_name(uint32_t(i)) || a.regs[i].type != b.regs[i].type ||
          a.regs[i].vec != b.regs[i].vec)
        return diff(fmt::format("register {} differs", a.reg_name(uint32_t(i))));
    if (a.labels.size() != b.labels.size()) return diff("label count differs");
    for (size_t i = 0; i < a.labels.size(); ++i)
      if (a.labels[i].name != b.labels[i].name || a.labels[i].instr != b.labels[i].instr)
        return diff(fmt::format("label '{}' differs", a.labels[i].name));
    if (a.locs != b.locs || a.pragmas != b.pragmas) return diff(".loc or .pragma differs");
    if (a.prototypes.size() != b.prototypes.size()) return diff("prototype count differs");
    for (size_t i = 0; i < a.prototypes.size(); ++i) {
      const auto &pa = a.prototypes[i], &pb = b.prototypes[i];
      if (pa.name != pb.name || pa.noreturn != pb.noreturn) return diff("prototype differs");
      if (!variables(pa.rets, pb.rets, "prototype return") || !variables(pa.params, pb.params, "prototype parameter"))
        return false;
    }
    if (a.target_lists.size() != b.target_lists.size()) return diff("target list count differs");
    for (size_t i = 0; i < a.target_lists.size(); ++i)
      if (a.target_lists[i].name != b.target_lists[i].name || a.target_lists[i].calls != b.target_lists[i].calls ||
          a.target_lists[i].targets != b.target_lists[i].targets)
        return diff("target list differs");
    if (a.body.size() != b.body.size()) return diff("statement count differs");
    for (size_t i = 0; i < a.body.size(); ++i)
      if (a.body[i].kind != b.body[i].kind || a.body[i].index != b.body[i].index)
        return diff(fmt::format("statement {} differs", i));
    if (a.instrs.size() != b.instrs.size()) return diff("instruction count differs");
    std::string base = ctx;
    for (size_t i = 0; i < a.instrs.size(); ++i) {
      ctx = fmt::format("{}: instruction {} ({})", base, i, opcode_name(a.instrs[i].op));
      if (!instruction(a.instrs[i], b.instrs[i])) return false;
    }
    ctx.clear();
    return true;
  }
};

}  // namespace

bool equal(const Module& a, const Module& b, std::string* why) {
  Cmp c{why, {}};
  if (a.version_major != b.version_major || a.version_minor != b.version_minor) return c.diff(".version differs");
  if (a.targets != b.targets) return c.diff(".target differs");
  if (a.address_size != b.address_size || a.has_address_size != b.has_address_size) return c.diff(".address_size differs");
  if (a.order.size() != b.order.size()) return c.diff("top-level declaration count differs");
  for (size_t i = 0; i < a.order.size(); ++i)
    if (a.order[i].kind != b.order[i].kind || a.order[i].index != b.order[i].index)
      return c.diff(fmt::format("top-level declaration {} differs", i));
  if (!c.variables(a.vars, b.vars, "module variable")) return false;
  if (a.files != b.files) return c.diff(".file differs");
  if (a.sections != b.sections) return c.diff(".section differs");
  if (a.aliases != b.aliases) return c.diff(".alias differs");
  if (a.pragmas != b.pragmas) return c.diff(".pragma differs");
  if (a.funcs.size() != b.funcs.size()) return c.diff("function count differs");
  for (size_t i = 0; i < a.funcs.size(); ++i)
    if (!c.function(a.funcs[i], b.funcs[i])) return false;
  return true;
}

}  // namespace warpsim::ptx
