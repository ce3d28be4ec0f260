#include "ptx/printer.hpp"

#include <fmt/format.h>

namespace warpsim::ptx {

namespace {

using Out = fmt::memory_buffer;

void put(Out& o, std::string_view s) { o.append(s.data(), s.data() + s.size()); }

std::string_view linkage_text(Linkage l) {
  switch (l) {
    case Linkage::None: return "";
    case Linkage::Visible: return ".visible ";
    case Linkage::Extern: return ".extern ";
    case Linkage::Weak: return ".weak ";
    case Linkage::Common: return ".common ";
  }
  return "";
}

void print_init(Out& o, const Init& in) {
  switch (in.kind) {
    case Init::Kind::List:
      put(o, "{");
      for (size_t i = 0; i < in.elems.size(); ++i) {
        if (i) put(o, ", ");
        print_init(o, in.elems[i]);
      }
      put(o, "}");
      return;
    case Init::Kind::Int: fmt::format_to(std::back_inserter(o), "{}", in.ival); return;
    case Init::Kind::F32: fmt::format_to(std::back_inserter(o), "0f{:08X}", uint32_t(in.ival)); return;
    case Init::Kind::F64: fmt::format_to(std::back_inserter(o), "0d{:016X}", uint64_t(in.ival)); return;
    case Init::Kind::Mask:
      fmt::format_to(std::back_inserter(o), "0x{:x}(", uint64_t(in.ival));
      print_init(o, in.elems[0]);
      put(o, ")");
      return;
    case Init::Kind::Symbol:
    case Init::Kind::Generic:
      if (in.kind == Init::Kind::Generic) fmt::format_to(std::back_inserter(o), "generic({})", in.name);
      else put(o, in.name);
      if (in.ival > 0) fmt::format_to(std::back_inserter(o), "+{}", in.ival);
      if (in.ival < 0) fmt::format_to(std::back_inserter(o), "-{}", uint64_t(0) - uint64_t(in.ival));
      return;
  }
}

void print_space(Out& o, Space s, bool cluster_shared = false) {
  (void)cluster_shared;
  fmt::format_to(std::back_inserter(o), ".{}", space_name(s));
}

void print_variable(Out& o, const Variable& v) {
  put(o, linkage_text(v.linkage));
  print_space(o, v.space);
  if (v.managed || !v.attrs.empty()) {
    put(o, " .attribute(");
    bool first = true;
    if (v.managed) {
      put(o, ".managed");
      first = false;
    }
    for (auto& a : v.attrs) {
      if (!first) put(o, ", ");
      put(o, a);
      first = false;
    }
    put(o, ")");
  }
  if (v.align) fmt::format_to(std::back_inserter(o), " .align {}", v.align);
  if (v.vec > 1) fmt::format_to(std::back_inserter(o), " .v{}", v.vec);
  fmt::format_to(std::back_inserter(o), " .{}", type_name(v.type));
  if (v.ptr) {
    put(o, " .ptr");
    if (v.ptr_space != Space::None) fmt::format_to(std::back_inserter(o), " .{}", space_name(v.ptr_space));
    if (v.ptr_align) fmt::format_to(std::back_inserter(o), " .align {}", v.ptr_align);
  }
  fmt::format_to(std::back_inserter(o), " {}", v.name);
  for (uint64_t d : v.dims) {
    if (d) fmt::format_to(std::back_inserter(o), "[{}]", d);
    else put(o, "[]");
  }
  if (v.has_init) {
    put(o, " = ");
    if (!v.fields.empty()) {
      put(o, "{ ");
      for (size_t i = 0; i < v.fields.size(); ++i) {
        if (i) put(o, ", ");
        fmt::format_to(std::back_inserter(o), "{} = {}", v.fields[i].first, v.fields[i].second);
      }
      put(o, " }");
    } else {
      print_init(o, v.init);
    }
  }
}

void print_params(Out& o, const std::vector<Variable>& ps, bool multiline) {
  put(o, "(");
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i) put(o, ",");
    put(o, multiline ? "\n\t" : (i ? " " : ""));
    print_variable(o, ps[i]);
  }
  put(o, multiline && !ps.empty() ? "\n)" : ")");
}

void print_pragma(Out& o, const std::string& p) {
  put(o, ".pragma ");
  size_t start = 0;
  bool first = true;
  for (;;) {
    size_t sep = p.find('\x1f', start);
    if (!first) put(o, ", ");
    fmt::format_to(std::back_inserter(o), "\"{}\"", p.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
    first = false;
    if (sep == std::string::npos) break;
    start = sep + 1;
  }
  put(o, ";");
}

// Address offsets print as nvcc writes them ([%rd1+-8]); symbol offsets as sym-8.
void print_offset(Out& o, int64_t off, bool address = true) {
  if (off > 0) fmt::format_to(std::back_inserter(o), "+{}", off);
  else if (off < 0) fmt::format_to(std::back_inserter(o), "{}{}", address ? "+-" : "-", uint64_t(0) - uint64_t(off));
}

void print_operand(Out& o, const Function& f, const Operand& op);

void print_elems(Out& o, const Function& f, const Operand& op, const char* open, const char* close) {
  put(o, open);
  for (size_t i = 0; i < op.elems.size(); ++i) {
    if (i) put(o, ", ");
    print_operand(o, f, op.elems[i]);
  }
  put(o, close);
}

void print_address_inner(Out& o, const Function& f, const Operand& op) {
  if (op.elems.empty()) {
    fmt::format_to(std::back_inserter(o), "{}", op.ival);
    return;
  }
  print_operand(o, f, op.elems[0]);
  print_offset(o, op.ival);
}

void print_operand(Out& o, const Function& f, const Operand& op) {
  switch (op.kind) {
    case Operand::Kind::Reg:
      if (op.negated) put(o, "!");
      if (op.minus) put(o, "-");
      put(o, f.reg_name(op.reg));
      break;
    case Operand::Kind::SpecialReg: put(o, sreg_spelling(op.sreg, op.sreg_index)); break;
    case Operand::Kind::Imm: fmt::format_to(std::back_inserter(o), "{}", op.ival); return;
    case Operand::Kind::F32: fmt::format_to(std::back_inserter(o), "0f{:08X}", uint32_t(op.ival)); return;
    case Operand::Kind::F64: fmt::format_to(std::back_inserter(o), "0d{:016X}", uint64_t(op.ival)); return;
    case Operand::Kind::Symbol:
      put(o, op.name);
      print_offset(o, op.ival, false);
      return;
    case Operand::Kind::Address:
      put(o, "[");
      print_address_inner(o, f, op);
      put(o, "]");
      if (!op.selector.empty()) fmt::format_to(std::back_inserter(o), ".{}", op.selector.view());
      return;
    case Operand::Kind::MemList:
      put(o, "[");
      for (size_t i = 0; i < op.elems.size(); ++i) {
        if (i) put(o, ", ");
        if (op.elems[i].kind == Operand::Kind::Address) print_address_inner(o, f, op.elems[i]);
        else print_operand(o, f, op.elems[i]);
      }
      put(o, "]");
      return;
    case Operand::Kind::Vector: print_elems(o, f, op, "{", "}"); return;
    case Operand::Kind::CallList: print_elems(o, f, op, "(", ")"); return;
    case Operand::Kind::Pair:
      print_operand(o, f, op.elems[0]);
      put(o, "|");
      print_operand(o, f, op.elems[1]);
      return;
    case Operand::Kind::Sink: put(o, "_"); return;
  }
  if (!op.selector.empty()) {
    put(o, ".");
    put(o, op.selector);
  }
}

void print_instr(Out& o, const Function& f, const Instruction& ins) {
  if (ins.has_guard) fmt::format_to(std::back_inserter(o), "@{}{} ", ins.guard_negated ? "!" : "", f.reg_name(ins.guard_reg));
  put(o, opcode_name(ins.op));
  for (unsigned i = 0; i < ins.nmods; ++i) {
    if (ins.mods[i] == Mod::Shape)
      if (ins.shape.k) fmt::format_to(std::back_inserter(o), ".m{}n{}k{}", ins.shape.m, ins.shape.n, ins.shape.k);
      else fmt::format_to(std::back_inserter(o), ".m{}n{}", ins.shape.m, ins.shape.n);
    else
      fmt::format_to(std::back_inserter(o), ".{}", mod_name(ins.mods[i]));
  }
  for (size_t i = 0; i < ins.operands.size(); ++i) {
    put(o, i ? ", " : " \t");
    print_operand(o, f, ins.operands[i]);
  }
  put(o, ";");
}

void print_function(Out& o, const Function& f) {
  put(o, linkage_text(f.linkage));
  put(o, f.is_entry ? ".entry " : ".func ");
  for (auto& a : f.attrs) fmt::format_to(std::back_inserter(o), ".attribute({}) ", a);
  if (!f.rets.empty()) {
    print_params(o, f.rets, false);
    put(o, " ");
  }
  put(o, f.name);
  if (!f.params.empty() || f.is_entry) print_params(o, f.params, true);
  if (f.noreturn) put(o, " .noreturn");
  auto dims = [&](const char* name, const std::array<uint32_t, 3>& d, uint8_t n) {
    if (!n) return;
    fmt::format_to(std::back_inserter(o), "\n{} ", name);
    for (uint8_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(o), "{}{}", i ? ", " : "", d[i]);
  };
  dims(".maxntid", f.perf.maxntid, f.perf.maxntid_dims);
  dims(".reqntid", f.perf.reqntid, f.perf.reqntid_dims);
  dims(".reqnctapercluster", f.perf.reqnctapercluster, f.perf.reqnctapercluster_dims);
  if (f.perf.minnctapersm) fmt::format_to(std::back_inserter(o), "\n.minnctapersm {}", f.perf.minnctapersm);
  if (f.perf.maxnctapersm) fmt::format_to(std::back_inserter(o), "\n.maxnctapersm {}", f.perf.maxnctapersm);
  if (f.perf.maxnreg) fmt::format_to(std::back_inserter(o), "\n.maxnreg {}", f.perf.maxnreg);
  if (f.perf.maxclusterrank) fmt::format_to(std::back_inserter(o), "\n.maxclusterrank {}", f.perf.maxclusterrank);
  if (f.perf.explicitcluster) put(o, "\n.explicitcluster");
  for (auto& p : f.header_pragmas) {
    put(o, "\n");
    print_pragma(o, p);
  }
  if (!f.has_body) {
    put(o, ";\n");
    return;
  }
  put(o, "\n{\n");
  unsigned depth = 1;
  auto indent = [&] {
    for (unsigned i = 0; i < depth; ++i) put(o, "\t");
  };
  for (const Statement& s : f.body) {
    switch (s.kind) {
      case Statement::Kind::Instr:
        indent();
        print_instr(o, f, f.instrs[s.index]);
        break;
      case Statement::Kind::Label: fmt::format_to(std::back_inserter(o), "{}:", f.labels[s.index].name); break;
      case Statement::Kind::BlockBegin:
        indent();
        put(o, "{");
        ++depth;
        break;
      case Statement::Kind::BlockEnd:
        --depth;
        indent();
        put(o, "}");
        break;
      case Statement::Kind::RegDecl: {
        const RegDecl& d = f.reg_decls[s.index];
        indent();
        put(o, ".reg");
        if (d.vec > 1) fmt::format_to(std::back_inserter(o), " .v{}", d.vec);
        fmt::format_to(std::back_inserter(o), " .{} ", type_name(d.type));
        for (size_t i = 0; i < d.items.size(); ++i) {
          if (i) put(o, ", ");
          put(o, d.items[i].name);
          if (d.items[i].range >= 0) fmt::format_to(std::back_inserter(o), "<{}>", d.items[i].range);
        }
        put(o, ";");
        break;
      }
      case Statement::Kind::LocalVar:
        indent();
        print_variable(o, f.locals[s.index]);
        put(o, ";");
        break;
      case Statement::Kind::Loc: {
        const LocDirective& l = f.locs[s.index];
        indent();
        fmt::format_to(std::back_inserter(o), ".loc\t{} {} {}", l.at.file, l.at.line, l.at.col);
        if (!l.function_name.empty()) fmt::format_to(std::back_inserter(o), ", function_name {}", l.function_name);
        if (l.has_inlined_at)
          fmt::format_to(std::back_inserter(o), ", inlined_at {} {} {}", l.inlined_at.file, l.inlined_at.line, l.inlined_at.col);
        break;
      }
      case Statement::Kind::Pragma:
        indent();
        print_pragma(o, f.pragmas[s.index]);
        break;
      case Statement::Kind::Prototype: {
        const CallPrototype& p = f.prototypes[s.index];
        fmt::format_to(std::back_inserter(o), "{}: .callprototype ", p.name);
        if (!p.rets.empty()) {
          print_params(o, p.rets, false);
          put(o, " ");
        }
        put(o, "_ ");
        print_params(o, p.params, false);
        if (p.noreturn) put(o, " .noreturn");
        put(o, ";");
        break;
      }
      case Statement::Kind::Targets: {
        const TargetList& t = f.target_lists[s.index];
        fmt::format_to(std::back_inserter(o), "{}: {} ", t.name, t.calls ? ".calltargets" : ".branchtargets");
        for (size_t i = 0; i < t.targets.size(); ++i) fmt::format_to(std::back_inserter(o), "{}{}", i ? ", " : "", t.targets[i]);
        put(o, ";");
        break;
      }
    }
    put(o, "\n");
  }
  put(o, "}\n");
}

void print_section(Out& o, const Section& s) {
  fmt::format_to(std::back_inserter(o), ".section\t{}\n{{\n", s.name);
  for (const auto& item : s.items) {
    if (item.is_label) {
      fmt::format_to(std::back_inserter(o), "{}:\n", item.label);
      continue;
    }
    fmt::format_to(std::back_inserter(o), ".{} ", type_name(item.type));
    for (size_t i = 0; i < item.values.size(); ++i) {
      if (i) put(o, ",");
      const auto& v = item.values[i];
      if (v.sym.empty()) {
        fmt::format_to(std::back_inserter(o), "{}", v.num);
      } else {
        put(o, v.sym);
        if (!v.minus_sym.empty()) fmt::format_to(std::back_inserter(o), "-{}", v.minus_sym);
        else print_offset(o, v.num, false);
      }
    }
    put(o, "\n");
  }
  put(o, "}\n");
}

}  // namespace

std::string print_instruction(const Function& f, const Instruction& ins) {
  Out o;
  print_instr(o, f, ins);
  return fmt::to_string(o);
}

std::string print(const Module& m) {
  Out o;
  put(o, "//\n// Printed by warpsim from its PTX module IR\n//\n\n");
  if (m.version_major || m.version_minor)
    fmt::format_to(std::back_inserter(o), ".version {}.{}\n", m.version_major, m.version_minor);
  if (!m.targets.empty()) {
    put(o, ".target ");
    for (size_t i = 0; i < m.targets.size(); ++i) fmt::format_to(std::back_inserter(o), "{}{}", i ? ", " : "", m.targets[i]);
    put(o, "\n");
  }
  if (m.has_address_size) fmt::format_to(std::back_inserter(o), ".address_size {}\n", m.address_size);
  put(o, "\n");
  for (const TopLevel& t : m.order) {
    switch (t.kind) {
      case TopLevel::Kind::Variable:
        print_variable(o, m.vars[t.index]);
        put(o, ";\n");
        break;
      case TopLevel::Kind::Function:
        print_function(o, m.funcs[t.index]);
        put(o, "\n");
        break;
      case TopLevel::Kind::File: {
        const FileDirective& f = m.files[t.index];
        fmt::format_to(std::back_inserter(o), ".file\t{} \"{}\"", f.id, f.path);
        if (f.has_meta) fmt::format_to(std::back_inserter(o), ", {}, {}", f.timestamp, f.size);
        put(o, "\n");
        break;
      }
      case TopLevel::Kind::Section: print_section(o, m.sections[t.index]); break;
      case TopLevel::Kind::Alias:
        fmt::format_to(std::back_inserter(o), ".alias {}, {};\n", m.aliases[t.index].alias, m.aliases[t.index].target);
        break;
      case TopLevel::Kind::Pragma:
        print_pragma(o, m.pragmas[t.index]);
        put(o, "\n");
        break;
    }
  }
  return fmt::to_string(o);
}

}  // namespace warpsim::ptx
