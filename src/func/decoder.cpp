#include "func/decoder.hpp"
#include "func/reg_alloc.hpp"
#include "func/schedule.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "func/decode.hpp"
#include "func/softfloat.hpp"
#include "func/state.hpp"

namespace warpsim::func {

using namespace ptx;

std::string DecodeError::str() const {
  return fmt::format("{}:{}:{}: error: {}{}", file, pos.line, pos.col,
                     function.empty() ? "" : fmt::format("in function '{}': ", function), message);
}

const DFunction* Program::find_kernel(const std::string& name) const {
  for (auto& f : funcs)
    if (f.is_entry && f.name == name) return &f;
  return nullptr;
}

// ------------------------------------------------------------------ family registry

namespace {
// Several families may decode the same opcode (add.s32 is integer, add.f32 float, add.f16 half):
// each is asked in turn; one that does not own the form returns false without setting an error.
std::array<std::vector<DecodeFn>, size_t(Opcode::Count_)>& table() {
  static std::array<std::vector<DecodeFn>, size_t(Opcode::Count_)> t{};
  return t;
}
void register_all() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_control_ops();
    register_data_ops();
    register_int_ops();
    register_float_ops();
    register_half_ops();
    register_cvt_ops();
    register_warp_ops();
    register_atom_ops();
    register_mma_ops();
    register_tex_ops();
    register_async_ops();
    register_tensor_ops();
  });
}
}  // namespace

// The shared memory the hardware reserves at the start of every CTA's window from sm_80 on (1 KiB:
// user .shared starts at 1024 on our H100, validation/cccl/probes/resv_smem.cu; cooperative groups
// keeps the barriers of thread_block_tile<64+> at %reserved_smem_offset_1). Read from the module's
// target: sm_80 and later reserve it.
uint32_t reserved_shared_bytes(const ptx::Module& m) {
  for (const std::string& t : m.targets) {
    if (t.size() > 3 && t.compare(0, 3, "sm_") == 0 && std::atoi(t.c_str() + 3) >= 80) return 1024;
  }
  return 0;
}

void register_decoder(Opcode op, DecodeFn fn) { table()[size_t(op)].push_back(fn); }

bool is_float_type(Type t) {
  switch (t) {
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2: case Type::TF32:
    case Type::F32: case Type::F64: case Type::E4M3: case Type::E5M2: case Type::E4M3x2:
    case Type::E5M2x2: return true;
    default: return false;
  }
}
bool is_signed_type(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}
unsigned type_bits(Type t) {
  if (t == Type::Pred) return 1;
  return type_size(t) * 8;
}

Round round_of(const Instruction& ins) {
  for (unsigned i = 0; i < ins.nmods; ++i) {
    switch (ins.mods[i]) {
      case Mod::rn: return Round::Rn;
      case Mod::rz: return Round::Rz;
      case Mod::rm: return Round::Rm;
      case Mod::rp: return Round::Rp;
      case Mod::rna: return Round::Rna;
      case Mod::rni: return Round::Rni;
      case Mod::rzi: return Round::Rzi;
      case Mod::rmi: return Round::Rmi;
      case Mod::rpi: return Round::Rpi;
      case Mod::rs: return Round::Rs;
      default: break;
    }
  }
  return Round::None;
}

// ------------------------------------------------------------------ decode context

struct DecodeCtx::Impl {
  const VariableAddresses* vars;
  std::array<uint32_t, Program::SpecialCount> specials;  // special register -> its slot (~0u: not read here)
  std::vector<Ref> reg_refs;            // ptx register index -> Ref (first slot for wide regs)
  std::vector<uint32_t> label_pcs;      // label index -> code index
  std::vector<MemRef> local_var;        // function local variable index -> where it lives
  std::vector<uint32_t> param_offsets;  // function params then rets -> offset in param frame
  std::unordered_map<uint64_t, uint32_t> const_slots;  // value -> const slot
  std::unordered_map<std::string, uint32_t>* shared_ids;
};

Ref DecodeCtx::cnst(uint64_t value) {
  auto [it, fresh] = impl->const_slots.emplace(value, uint32_t(prog.consts.size() / kWarpSize));
  if (fresh) prog.consts.insert(prog.consts.end(), kWarpSize, value);
  return Ref::cnst(it->second);
}

namespace {

uint64_t truncate(uint64_t v, Type t) {
  unsigned b = type_bits(t);
  if (b == 0 || b >= 64) return v;
  return v & ((1ull << b) - 1);
}

// The materialised special register (Program::SpecialSlot) an operand reads, or -1 for one read
// another way (%clock, %envreg, ...) or not a special register.
int special_slot_of(const Operand& o) {
  if (o.kind != Operand::Kind::SpecialReg) return -1;
  const int comp = o.selector.empty() ? 0 : int(o.selector[0] - 'x');
  if (comp < 0 || comp > 2) return -1;
  switch (o.sreg) {
    case SReg::Tid: return Program::TidX + comp;
    case SReg::Ntid: return Program::NtidX + comp;
    case SReg::Ctaid: return Program::CtaidX + comp;
    case SReg::Nctaid: return Program::NctaidX + comp;
    case SReg::Laneid: return Program::Laneid;
    case SReg::Warpid: return Program::Warpid;
    case SReg::Nwarpid: return Program::Nwarpid;
    case SReg::Smid: return Program::Smid;
    case SReg::Nsmid: return Program::Nsmid;
    case SReg::Gridid: return Program::Gridid;
    case SReg::LanemaskEq: return Program::LanemaskEq;
    case SReg::LanemaskLe: return Program::LanemaskLe;
    case SReg::LanemaskLt: return Program::LanemaskLt;
    case SReg::LanemaskGe: return Program::LanemaskGe;
    case SReg::LanemaskGt: return Program::LanemaskGt;
    case SReg::DynamicSmemSize: return Program::DynSmem;
    case SReg::TotalSmemSize: return Program::TotalSmem;
    case SReg::WarpSz: return Program::WarpSz;
    case SReg::ClusterCtaid: return Program::ClusterCtaidX + comp;
    case SReg::ClusterNctaid: return Program::ClusterNctaidX + comp;
    case SReg::Clusterid: return Program::ClusteridX + comp;
    case SReg::Nclusterid: return Program::NclusteridX + comp;
    case SReg::ClusterCtarank: return Program::ClusterCtarank;
    case SReg::ClusterNctarank: return Program::ClusterNctarank;
    default: return -1;
  }
}

// The materialised special registers a function reads (bit per Program::SpecialSlot).
uint64_t specials_read(const Function& f) {
  uint64_t used = 0;
  auto walk = [&](auto&& self, const Operand& o) -> void {
    if (int s = special_slot_of(o); s >= 0) used |= 1ull << s;
    for (auto& e : o.elems) self(self, e);
  };
  for (auto& ins : f.instrs)
    for (auto& o : ins.operands) walk(walk, o);
  return used;
}

float f64_to_f32(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return float(d);
}

}  // namespace

Ref DecodeCtx::ref(const Operand& o, Type t) {
  switch (o.kind) {
    case Operand::Kind::Reg: {
      Ref r = impl->reg_refs[o.reg];
      if (r.kind() == Ref::Pred) return Ref::pred(r.index(), o.negated);
      if (!o.selector.empty()) {
        // vector register components .x/.y/.z/.w (.r/.g/.b/.a) are consecutive slots
        static const std::string comps = "xyzwrgba";
        size_t c = comps.find(o.selector[0]);
        if (o.selector.size() == 1 && c != std::string::npos) return Ref::reg(r.index() + uint32_t(c % 4));
        error = fmt::format("register selector '.{}' is not supported here", o.selector.view());
        return Ref::none();
      }
      if (o.minus) {
        error = "negated register operands are only valid for video instructions";
        return Ref::none();
      }
      return r;
    }
    case Operand::Kind::SpecialReg: {
      // %envreg0..31 are read with mov (ops_data.cpp: LaunchState::envreg); as another operand: 0.
      if (o.sreg == SReg::Envreg) return cnst(0);
      const int s = special_slot_of(o);
      if (s < 0) {
        error = fmt::format("special register '{}' is only readable with mov", sreg_spelling(o.sreg, o.sreg_index));
        return Ref::none();
      }
      const uint32_t slot = impl->specials[size_t(s)];
      if (slot == ~0u) {
        error = fmt::format("internal: special register '{}' has no register slot", sreg_spelling(o.sreg, o.sreg_index));
        return Ref::none();
      }
      return Ref::reg(slot);
    }
    case Operand::Kind::Imm: return cnst(truncate(uint64_t(o.ival), t));
    case Operand::Kind::F32:
    case Operand::Kind::F64:
      if (t == Type::F16 || t == Type::BF16 || t == Type::F16x2 || t == Type::BF16x2) {
        // A float literal used as a half-precision operand: rounded to nearest into the format,
        // in both halves for packed types.
        const sf::Format& fmt = (t == Type::F16 || t == Type::F16x2) ? sf::kF16 : sf::kBF16;
        uint64_t h = o.kind == Operand::Kind::F32 ? sf::convert(sf::kF32, uint32_t(o.ival), fmt, sf::Mode::Rn)
                                                  : sf::convert(sf::kF64, uint64_t(o.ival), fmt, sf::Mode::Rn);
        return cnst(t == Type::F16x2 || t == Type::BF16x2 ? (h | h << 16) : h);
      }
      break;
    default: break;
  }
  switch (o.kind) {
    case Operand::Kind::F32: {
      uint32_t b = uint32_t(o.ival);
      if (t == Type::F64) {  // an f32 literal used as f64: widen exactly
        float f;
        std::memcpy(&f, &b, 4);
        double d = f;
        uint64_t db;
        std::memcpy(&db, &d, 8);
        return cnst(db);
      }
      return cnst(b);
    }
    case Operand::Kind::F64: {
      if (t == Type::F64 || type_bits(t) == 64) return cnst(uint64_t(o.ival));
      float f = f64_to_f32(uint64_t(o.ival));
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return cnst(b);
    }
    case Operand::Kind::Symbol: {
      if (o.sym == SymKind::Variable || o.sym == SymKind::Function) {
        auto it = prog.module_symbols.find(o.name);
        if (it != prog.module_symbols.end() &&
            (it->second.space == SymbolAddr::Global || it->second.space == SymbolAddr::Const))
          return cnst(it->second.addr + uint64_t(o.ival));
        if (it != prog.module_symbols.end() && it->second.space == SymbolAddr::Function)
          return cnst(kFunctionBase + it->second.addr);
      }
      error = fmt::format("the address of '{}' cannot be used here", o.name);
      return Ref::none();
    }
    case Operand::Kind::Sink: return Ref::none();
    default:
      error = "unexpected operand form";
      return Ref::none();
  }
}

bool DecodeCtx::mem(const Operand& o, MemRef& out) {
  if (o.kind != Operand::Kind::Address) return fail("expected a memory operand [address]");
  out = MemRef{};
  out.offset = o.ival;
  if (o.elems.empty()) return true;  // [immediate]
  const Operand& b = o.elems[0];
  if (b.kind == Operand::Kind::Reg) {
    out.base = ref(b, Type::U64);
    out.addr32 = b.reg < fn.regs.size() && ptx::type_size(fn.regs[b.reg].type) == 4 && fn.regs[b.reg].vec == 1;
    return !out.base.is_none();
  }
  if (b.kind != Operand::Kind::Symbol) return fail("unsupported address base");
  switch (b.sym) {
    case SymKind::LocalVariable: {
      MemRef lv = impl->local_var.at(b.sym_index);
      lv.offset += out.offset;
      if (lv.rel == MemRef::FuncParam) lv.offset += dfn.param_base;
      out = lv;
      return true;
    }
    case SymKind::Param: {
      out.rel = fn.is_entry ? MemRef::KernelParam : MemRef::FuncParam;
      out.offset += impl->param_offsets.at(b.sym_index) + (fn.is_entry ? 0 : dfn.param_base);
      return true;
    }
    case SymKind::Variable: {
      auto it = prog.module_symbols.find(b.name);
      if (it == prog.module_symbols.end()) return fail(fmt::format("unknown variable '{}'", b.name));
      if (it->second.space == SymbolAddr::Shared) {
        out.rel = MemRef::SharedVar;
        out.shared_var = uint32_t(it->second.addr);
        return true;
      }
      out.offset += int64_t(it->second.addr);
      return true;
    }
    default: return fail(fmt::format("'{}' cannot be used as an address", b.name));
  }
}

void DecodeCtx::set_ops(DInstr& in, const std::vector<Ref>& refs) {
  in.nops = uint8_t(std::min<size_t>(refs.size(), 255));
  if (refs.size() <= DInstr::kInline) {
    for (size_t i = 0; i < refs.size(); ++i) in.op[i] = refs[i];
    in.extra = 0;
    return;
  }
  in.extra = uint32_t(prog.extra_ops.size() + 1);
  prog.extra_ops.insert(prog.extra_ops.end(), refs.begin(), refs.end());
}

uint32_t DecodeCtx::label_pc(const Operand& o) {
  if (o.kind == Operand::Kind::Symbol && o.sym == SymKind::Label) return impl->label_pcs.at(o.sym_index);
  error = "expected a label";
  return 0;
}

// ------------------------------------------------------------------ module decoding

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }
uint64_t natural_align(const Variable& v) {
  if (v.align) return v.align;
  uint64_t s = uint64_t(type_size(v.type)) * v.vec;
  return s ? s : 1;
}

// Functions each function references directly (calls, address-taking), by index into m.funcs.
void references(const Module& m, const Operand& o, std::set<uint32_t>& out, std::set<std::string>& shared_vars) {
  if (o.kind == Operand::Kind::Symbol) {
    if (o.sym == SymKind::Function) {
      const Function* def = m.find_function(m.funcs[o.sym_index].name);
      out.insert(uint32_t(def - m.funcs.data()));
    }
    if (o.sym == SymKind::Variable && m.vars[o.sym_index].space == Space::Shared) shared_vars.insert(o.name);
  }
  for (auto& e : o.elems) references(m, e, out, shared_vars);
}

}  // namespace

uint32_t min_sm_arch(const Instruction& ins) {
  auto has_any = [&](std::initializer_list<Mod> ms) {
    for (Mod x : ms)
      if (ins.has(x)) return true;
    return false;
  };
  const Shape& s = ins.shape;
  switch (ins.op) {
    case Opcode::Ldmatrix: case Opcode::Movmatrix: return 75;
    case Opcode::Stmatrix: return 90;
    case Opcode::WmmaLoad: case Opcode::WmmaStore: case Opcode::WmmaMma:
      if (has_any({Mod::bf16, Mod::tf32, Mod::f64})) return 80;
      if (has_any({Mod::s4, Mod::u4, Mod::b1})) return 75;
      if (has_any({Mod::s8, Mod::u8})) return 72;
      return 70;
    case Opcode::Mma:
      if (ins.has(Mod::sp) || ins.has(Mod::sp_ordered_metadata)) return 80;
      if (s.m == 8 && s.n == 8 && s.k == 4 && ins.has(Mod::f16)) return 70;
      if ((s.m == 16 && s.n == 8 && s.k == 8 && ins.has(Mod::f16) && !ins.has(Mod::bf16)) ||
          (s.m == 8 && s.n == 8 && (s.k == 16 || s.k == 32 || s.k == 128)))
        return 75;
      return 80;
    case Opcode::WgmmaMmaAsync: case Opcode::WgmmaFence: case Opcode::WgmmaCommitGroup: case Opcode::WgmmaWaitGroup:
      return 90;
    default: return 0;
  }
}

DecodeResult decode(const Module& m, const VariableAddresses& vars, const DecodeTarget& target) {
  register_all();
  DecodeResult res;
  Program& prog = res.prog;
  prog.module = &m;

  // Module symbols: variables (addresses from the loader) and shared variable ids.
  std::unordered_map<std::string, uint32_t> shared_ids;
  std::vector<const Variable*> shared_vars;  // by id
  for (auto& v : m.vars) {
    if (v.space == Space::Shared) {
      uint32_t id = uint32_t(shared_vars.size());
      shared_ids.emplace(v.name, id);
      shared_vars.push_back(&v);
      prog.module_symbols[v.name] = SymbolAddr{SymbolAddr::Shared, id};
    } else if (v.space == Space::Global || v.space == Space::Const) {
      auto it = vars.find(v.name);
      if (it == vars.end()) continue;  // .extern without definition: unresolved, an error if used
      prog.module_symbols[v.name] =
          SymbolAddr{v.space == Space::Const ? SymbolAddr::Const : SymbolAddr::Global, it->second};
    }
  }

  // Functions: index the definitions (bodies); prototypes resolve to them by name.
  std::vector<uint32_t> body_index(m.funcs.size(), ~0u);
  for (uint32_t i = 0; i < m.funcs.size(); ++i) {
    const Function& f = m.funcs[i];
    if (!f.has_body) continue;
    body_index[i] = uint32_t(prog.funcs.size());
    DFunction d;
    d.name = f.name;
    d.is_entry = f.is_entry;
    d.src = &f;
    // Branches around bounds-checked loads become predicated loads, as ptxas compiles them.
    if (auto conv = std::make_shared<Function>(); if_convert(f, *conv)) {
      d.rewritten = conv;
      d.src = conv.get();
    }
    // Counted loops of loads unrolled four times, as ptxas unrolls them.
    if (auto unrolled = std::make_shared<Function>(); unroll_loops(*d.src, *unrolled)) {
      d.rewritten = unrolled;
      d.src = unrolled.get();
    }
    // The register saves and reloads of ptxas's calling convention around a non-leaf function.
    if (auto framed = std::make_shared<Function>(); add_call_frame(*d.src, *framed)) {
      d.rewritten = framed;
      d.src = framed.get();
    }
    prog.funcs.push_back(std::move(d));
  }
  for (uint32_t i = 0; i < m.funcs.size(); ++i) {
    const Function* def = m.find_function(m.funcs[i].name);
    uint32_t di = def && def->has_body ? body_index[uint32_t(def - m.funcs.data())] : ~0u;
    if (di != ~0u) prog.module_symbols[m.funcs[i].name] = SymbolAddr{SymbolAddr::Function, di};
  }

  // Registers: each function gets its own slots (calls don't clobber the caller); predicates get
  // their own masks. Special registers (%tid, %ctaid, ...) are materialised at warp start, only
  // those the module reads: a kernel's own in a block just before its registers, so that a warp
  // touches one contiguous range (each slot is 256 bytes, and the first wave of a kernel creates
  // thousands of warps on fresh pages); those read by device functions, which any kernel may
  // call, in one block at the start.
  std::vector<uint64_t> fn_specials(prog.funcs.size());
  uint64_t shared_specials = 0;
  for (size_t fi = 0; fi < prog.funcs.size(); ++fi) {
    fn_specials[fi] = specials_read(*prog.funcs[fi].src);
    if (!prog.funcs[fi].is_entry) shared_specials |= fn_specials[fi];
  }
  std::array<uint32_t, Program::SpecialCount> shared_slots;
  shared_slots.fill(~0u);
  std::vector<std::pair<uint8_t, uint32_t>> shared_list;
  for (uint32_t sp = 0; sp < Program::SpecialCount; ++sp)
    if (shared_specials >> sp & 1) {
      shared_slots[sp] = prog.nregs++;
      shared_list.push_back({uint8_t(sp), shared_slots[sp]});
    }
  std::vector<std::array<uint32_t, Program::SpecialCount>> fn_slots(prog.funcs.size(), shared_slots);
  std::vector<std::vector<uint32_t>> orders(prog.funcs.size());  // decoded order of each function
  std::vector<RegLayout> layouts(prog.funcs.size());
  for (size_t fi = 0; fi < prog.funcs.size(); ++fi) {
    DFunction& d = prog.funcs[fi];
    if (d.is_entry) {
      d.specials = shared_list;
      for (uint32_t sp = 0; sp < Program::SpecialCount; ++sp)
        if ((fn_specials[fi] >> sp & 1) && fn_slots[fi][sp] == ~0u) {
          fn_slots[fi][sp] = prog.nregs++;
          d.specials.push_back({uint8_t(sp), fn_slots[fi][sp]});
        }
    }
    d.reg_base = prog.nregs;
    d.pred_base = prog.npreds;
    for (auto& r : d.src->regs)
      if (r.type == Type::Pred) ++d.npreds;
    // Virtual registers share slots where their live ranges cannot overlap (reg_alloc.hpp); the
    // live ranges follow the decoded order, loads hoisted (schedule.hpp).
    orders[fi] = schedule_loads(*d.src);
    uint32_t pinned = 0;
    for (auto& v : d.src->params) pinned += v.space == Space::Reg;
    for (auto& v : d.src->rets) pinned += v.space == Space::Reg;
    layouts[fi] = allocate_register_slots(*d.src, orders[fi], pinned, target.share_registers);
    d.nregs = layouts[fi].slots;
    prog.nregs += d.nregs;
    prog.npreds += d.npreds;
  }

  // Call graph (for recursion and per-kernel shared layouts).
  std::vector<std::set<uint32_t>> calls(prog.funcs.size());
  std::vector<std::set<std::string>> shared_refs(prog.funcs.size());
  std::vector<bool> address_taken(prog.funcs.size(), false);
  std::vector<bool> calls_indirectly(prog.funcs.size(), false);  // a call through a register
  for (uint32_t fi = 0; fi < prog.funcs.size(); ++fi) {
    const Function& f = *prog.funcs[fi].src;
    for (auto& ins : f.instrs) {
      if (ins.op == Opcode::Call)
        for (auto& o : ins.operands)
          if (o.kind == Operand::Kind::Reg) calls_indirectly[fi] = true;
      std::set<uint32_t> refs;
      for (auto& o : ins.operands) references(m, o, refs, shared_refs[fi]);
      for (uint32_t r : refs) {
        uint32_t di = body_index[r];
        if (di == ~0u) continue;
        calls[fi].insert(di);
        if (ins.op != Opcode::Call) address_taken[di] = true;
      }
    }
  }
  // The register window of each kernel: the slots of the functions it can reach (and the special
  // registers it reads), so that a warp's register file holds those, not the whole module's (a
  // Thrust/CUB module has hundreds of kernels). A kernel that may call through a pointer gets the
  // whole module.
  // The functions a kernel can reach through direct calls and address-taking references, itself
  // included (register windows, shared-memory layouts).
  auto reachable = [&](uint32_t fi) {
    std::set<uint32_t> reach{fi};
    std::vector<uint32_t> work{fi};
    while (!work.empty()) {
      const uint32_t g = work.back();
      work.pop_back();
      for (uint32_t c : calls[g])
        if (reach.insert(c).second) work.push_back(c);
    }
    return reach;
  };
  for (uint32_t fi = 0; fi < prog.funcs.size(); ++fi) {
    DFunction& d = prog.funcs[fi];
    if (!d.is_entry) continue;
    uint32_t lo = d.reg_base, hi = d.reg_base + d.nregs;
    for (auto [sp, slot] : d.specials) lo = std::min(lo, slot), hi = std::max(hi, slot + 1);
    bool whole = false;
    for (uint32_t g : reachable(fi)) {
      const DFunction& c = prog.funcs[g];
      whole |= calls_indirectly[g];
      if (!c.nregs) continue;
      lo = std::min(lo, c.reg_base);
      hi = std::max(hi, c.reg_base + c.nregs);
    }
    if (whole) lo = 0, hi = prog.nregs;
    d.window_lo = lo;
    d.window_hi = std::max(lo, hi);
  }
  // A function reachable from itself is recursive; address-taken functions may be too.
  for (uint32_t fi = 0; fi < prog.funcs.size(); ++fi) {
    std::vector<uint32_t> work(calls[fi].begin(), calls[fi].end());
    std::set<uint32_t> seen;
    bool rec = address_taken[fi];
    while (!work.empty() && !rec) {
      uint32_t g = work.back();
      work.pop_back();
      if (g == fi) rec = true;
      if (!seen.insert(g).second) continue;
      work.insert(work.end(), calls[g].begin(), calls[g].end());
    }
    prog.funcs[fi].recursive = rec;
  }

  // Lay out every function's registers, parameters and local variables first, so calls can be
  // resolved to callees decoded later.
  std::vector<DecodeCtx::Impl> impls(prog.funcs.size());
  uint32_t next_reg_id = 0;  // DFunction::reg_ids: one number per virtual register of the module
  for (uint32_t fi = 0; fi < prog.funcs.size(); ++fi) {
    DFunction& d = prog.funcs[fi];
    const Function& f = *d.src;
    DecodeCtx::Impl& impl = impls[fi];
    impl.vars = &vars;
    impl.shared_ids = &shared_ids;
    impl.specials = fn_slots[fi];
    // register refs
    uint32_t pidx = d.pred_base;
    for (size_t r = 0; r < f.regs.size(); ++r) {
      if (f.regs[r].type == Type::Pred) {
        d.reg_ids.push_back(DFunction::kRegIdPred | pidx);
        impl.reg_refs.push_back(Ref::pred(pidx++));
      } else {
        d.reg_ids.push_back(next_reg_id);
        next_reg_id += f.regs[r].type == Type::B128 ? 2 * f.regs[r].vec : f.regs[r].vec;
        impl.reg_refs.push_back(Ref::reg(d.reg_base + layouts[fi].offset[r]));
      }
    }
    // parameters
    uint64_t poff = 0;
    for (auto& p : f.params) {
      poff = align_up(poff, natural_align(p));
      impl.param_offsets.push_back(uint32_t(poff));
      d.param_offsets.push_back(uint32_t(poff));
      d.param_sizes.push_back(uint32_t(p.size_bytes()));
      poff += p.size_bytes();
    }
    for (auto& p : f.rets) {
      poff = align_up(poff, natural_align(p));
      impl.param_offsets.push_back(uint32_t(poff));
      d.ret_offsets.push_back(uint32_t(poff));
      d.ret_sizes.push_back(uint32_t(p.size_bytes()));
      poff += p.size_bytes();
    }
    if (f.is_entry) poff = 0;  // kernel params live in the launch's parameter buffer
    d.param_base = prog.total_param;
    // local variables
    uint64_t loff = 0;
    for (auto& v : f.locals) {
      MemRef r;
      switch (v.space) {
        case Space::Local:
          loff = align_up(loff, natural_align(v));
          r.rel = MemRef::LocalFrame;
          r.offset = int64_t(loff);
          loff += v.size_bytes();
          break;
        case Space::Param:
          poff = align_up(poff, natural_align(v));
          r.rel = MemRef::FuncParam;
          r.offset = int64_t(poff);
          poff += v.size_bytes();
          break;
        case Space::Shared: {
          uint32_t id = uint32_t(shared_vars.size());
          shared_vars.push_back(&v);
          shared_refs[fi].insert("\x01" + std::to_string(id));  // function-local shared, by id
          r.rel = MemRef::SharedVar;
          r.shared_var = id;
          break;
        }
        default: {
          // .global/.const declared inside a function: placed by the loader like module ones
          auto it = vars.find(f.name + "::" + v.name);
          r.rel = MemRef::Absolute;
          r.offset = it == vars.end() ? 0 : int64_t(it->second);
          break;
        }
      }
      impl.local_var.push_back(r);
    }
    d.local_frame = uint32_t(align_up(loff, 16));
    d.param_frame = uint32_t(align_up(poff, 16));
    prog.total_param += d.param_frame;
    prog.max_local_frame = std::max<uint64_t>(prog.max_local_frame, d.local_frame);
    prog.max_param_frame = std::max<uint32_t>(prog.max_param_frame, d.param_frame);

  }

  // Decode bodies.
  for (uint32_t fi = 0; fi < prog.funcs.size(); ++fi) {
    DFunction& d = prog.funcs[fi];
    const Function& f = *d.src;
    DecodeCtx::Impl& impl = impls[fi];
    // labels -> code indices (instructions are laid out contiguously per function)
    d.entry_pc = uint32_t(prog.code.size());
    for (auto& l : f.labels) impl.label_pcs.push_back(d.entry_pc + l.instr);

    // Loads hoisted within their blocks as ptxas schedules them (func/schedule.hpp).
    const std::vector<uint32_t>& order = orders[fi];
    for (uint32_t k = 0; k < f.instrs.size(); ++k) {
      const uint32_t ii = order[k];
      const Instruction& ins = f.instrs[ii];
      DecodeCtx ctx{prog, m, f, d, fi, {}, &impl};
      DInstr out;
      out.src_index = ii;
      out.func = fi;
      if (ins.has_guard) out.guard = impl.reg_refs[ins.guard_reg].kind() == Ref::Pred
                                         ? Ref::pred(impl.reg_refs[ins.guard_reg].index(), ins.guard_negated)
                                         : Ref::none();
      bool ok = false;
      if (uint32_t need = target.sm_arch ? min_sm_arch(ins) : 0; need > target.sm_arch) {
        std::string what(opcode_name(ins.op));
        if (ins.op == Opcode::Mma) what += ins.has(Mod::sp) || ins.has(Mod::sp_ordered_metadata) ? ".sp" : ".sync";
        if (ins.shape.m) what += fmt::format(".m{}n{}{}", ins.shape.m, ins.shape.n, ins.shape.k ? fmt::format("k{}", ins.shape.k) : "");
        ctx.error = fmt::format("{} needs sm_{} or later; the simulated GPU {} is sm_{}", what, need,
                                target.machine.empty() ? "(unnamed)" : target.machine, target.sm_arch);
      } else {
        for (DecodeFn fn : table()[size_t(ins.op)]) {
          ok = fn(ctx, ins, out);
          if (ok || !ctx.error.empty()) break;
        }
      }
      if (!ok || !out.exec) {
        std::string msg = ctx.error.empty()
                              ? fmt::format("instruction '{}' is not supported by the functional engine yet",
                                            opcode_name(ins.op))
                              : ctx.error;
        res.errors.push_back(DecodeError{m.filename, ins.pos, f.name, msg});
        out.exec = nullptr;
      }
      prog.code.push_back(out);
    }
    d.end_pc = uint32_t(prog.code.size());
  }

  // Shared-memory layout per kernel: the variables the kernel and its callees use.
  for (uint32_t fi = 0; fi < prog.funcs.size(); ++fi) {
    DFunction& d = prog.funcs[fi];
    if (!d.is_entry) continue;
    std::set<uint32_t> ids;
    for (uint32_t g : reachable(fi))
      for (auto& name : shared_refs[g]) {
        if (name[0] == '\x01') ids.insert(uint32_t(std::stoul(name.substr(1))));
        else if (auto it = shared_ids.find(name); it != shared_ids.end()) ids.insert(it->second);
      }
    d.shared_offsets.assign(shared_vars.size(), 0);
    const uint64_t reserved = reserved_shared_bytes(m);  // user .shared starts after it, as on the GPU
    uint64_t off = reserved;
    for (uint32_t id : ids) {
      const Variable* v = shared_vars[id];
      if (!v->dims.empty() && v->dims[0] == 0) continue;  // extern dynamic: placed after static
      off = align_up(off, natural_align(*v));
      d.shared_offsets[id] = uint32_t(off);
      off += v->size_bytes();
    }
    d.static_shared = off - reserved;
    // Dynamic shared memory starts at the strictest alignment its extern declarations ask for
    // (`extern __shared__ __align__(1024)`: tensor copies with a 128-byte swizzle need 1024).
    uint64_t dyn_align = 16;
    for (uint32_t id : ids) {
      const Variable* v = shared_vars[id];
      if (!v->dims.empty() && v->dims[0] == 0) dyn_align = std::max<uint64_t>(dyn_align, natural_align(*v));
    }
    uint64_t dyn = align_up(off, dyn_align);
    for (uint32_t id : ids) {
      const Variable* v = shared_vars[id];
      if (!v->dims.empty() && v->dims[0] == 0) d.shared_offsets[id] = uint32_t(dyn);
    }
    d.dynamic_shared_base = uint32_t(dyn);
  }
  return res;
}

}  // namespace warpsim::func
