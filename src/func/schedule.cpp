#include "func/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>

#include "ptx/isa.hpp"
#include "ptx/parser.hpp"

namespace warpsim::func {

using ptx::Instruction;
using ptx::Mod;
using ptx::Opcode;
using ptx::Operand;

namespace {

bool reads_special(const Instruction& ins) {
  auto walk = [&](auto&& self, const Operand& o) -> bool {
    if (o.kind == Operand::Kind::SpecialReg) return true;
    for (auto& e : o.elems)
      if (self(self, e)) return true;
    return false;
  };
  for (auto& o : ins.operands)
    if (walk(walk, o)) return true;
  return false;
}

// The state space an access names, for deciding whether two accesses may touch the same byte:
// distinct explicit spaces never alias (PTX ISA 5.1), a generic address may be any of them.
enum class Space : uint8_t { Global, Shared, Local, Const, Param, Any };

Space access_space(const Instruction& ins) {
  for (unsigned i = 0; i < ins.nmods; ++i) switch (ins.mods[i]) {
      case Mod::global: return Space::Global;
      // shared::cluster may name this CTA's own shared memory: the same class as shared.
      case Mod::shared: case Mod::shared_cta: case Mod::shared_cluster: return Space::Shared;
      case Mod::local: return Space::Local;
      case Mod::const_: return Space::Const;
      case Mod::param: case Mod::param_entry: case Mod::param_func: return Space::Param;
      default: break;
    }
  return Space::Any;
}

bool may_alias(Space a, Space b) { return a == b || a == Space::Any || b == Space::Any; }

bool has_any(const Instruction& ins, std::initializer_list<Mod> ms) {
  for (Mod m : ms)
    if (ins.has(m)) return true;
  return false;
}

// A weak load (no ordering semantics: not volatile, acquire, relaxed, mmio).
bool weak_load(const Instruction& ins) {
  // ldmatrix: ptxas issues the next k-step's fragment loads (LDSM) under the current mma's.
  if (ins.op == Opcode::Ldmatrix) return true;
  if (ins.op != Opcode::Ld && ins.op != Opcode::Ldu) return false;
  return !has_any(ins, {Mod::volatile_, Mod::acquire, Mod::relaxed, Mod::mmio, Mod::sc});
}

// ld.volatile moves up over register arithmetic but keeps its place among all memory accesses.
// ptxas does so: cooperative.cu's `sum += ((volatile int*)partials)[b]` loop, unrolled by 4 in
// the PTX with each ld.volatile.global next to its add, is 16 LDG.E.STRONG.SYS in a row followed
// by the IADD3s in the sm_90 SASS (CUDA 13.0; docs/validation-workloads.md, "Load scheduling").
bool volatile_load(const Instruction& ins) {
  return ins.op == Opcode::Ld && ins.has(Mod::volatile_) &&
         !has_any(ins, {Mod::acquire, Mod::relaxed, Mod::mmio, Mod::sc});
}

bool movable_load(const Instruction& ins) { return weak_load(ins) || volatile_load(ins); }

// A weak store to an explicit or generic space: loads of another state space pass it, loads that
// may alias it do not. ptxas issues an unrolled staging loop's LDGs above its STSs (sm_90 SASS:
// mma_gemm<true> 4 LDG then 4 STS, sgemm_regblock 8 then 8, bitonic_kv_desc 4 then 4;
// validation/workloads/probes/schedule_sm90_sass.txt).
bool plain_store(const Instruction& ins) {
  return ins.op == Opcode::St &&
         !has_any(ins, {Mod::volatile_, Mod::relaxed, Mod::release, Mod::mmio, Mod::sc, Mod::async,
                        Mod::acq_rel});
}

// Instructions a load may pass: register-only arithmetic, with no memory, control or clock effect.
bool passable(const Instruction& ins) {
  if (movable_load(ins) || plain_store(ins)) return true;
  switch (ins.op) {
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Fma:
    case Opcode::Mul24: case Opcode::Mad24: case Opcode::Sad: case Opcode::Div: case Opcode::Rem:
    case Opcode::Abs: case Opcode::Neg: case Opcode::Min: case Opcode::Max: case Opcode::And:
    case Opcode::Or: case Opcode::Xor: case Opcode::Not: case Opcode::Cnot: case Opcode::Shl:
    case Opcode::Shr: case Opcode::Shf: case Opcode::Lop3: case Opcode::Prmt: case Opcode::Bfe:
    case Opcode::Bfi: case Opcode::Popc: case Opcode::Clz: case Opcode::Brev: case Opcode::Bfind:
    case Opcode::Setp: case Opcode::Set: case Opcode::Selp: case Opcode::Slct: case Opcode::Cvt:
    case Opcode::Cvta: case Opcode::Copysign: case Opcode::Testp: case Opcode::Rcp: case Opcode::Sqrt:
    case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2:
    case Opcode::Tanh:
    case Opcode::Mma: case Opcode::WmmaMma:  // register-only matrix arithmetic
      return true;
    case Opcode::Mov:
      return !reads_special(ins);  // %clock and friends keep their place relative to loads
    default:
      return false;
  }
}

bool ends_block(const Instruction& ins) {
  switch (ins.op) {
    case Opcode::Bra: case Opcode::BrxIdx: case Opcode::Call: case Opcode::Ret: case Opcode::Exit:
    case Opcode::Trap: case Opcode::Bar: case Opcode::Barrier:
      return true;
    default:
      return false;
  }
}

// Registers an instruction writes (its first operand, for every instruction a segment holds) and
// reads (the rest, its guard, and address parts).
void reads_writes(const Instruction& ins, std::vector<uint32_t>& rd, std::vector<uint32_t>& wr) {
  rd.clear();
  wr.clear();
  if (ins.has_guard) rd.push_back(ins.guard_reg);
  auto walk = [&](auto&& self, const Operand& o, std::vector<uint32_t>& out) -> void {
    switch (o.kind) {
      case Operand::Kind::Reg: out.push_back(o.reg); break;
      case Operand::Kind::Address: case Operand::Kind::Vector: case Operand::Kind::Pair:
      case Operand::Kind::MemList: case Operand::Kind::CallList:
        for (auto& e : o.elems) self(self, e, o.kind == Operand::Kind::Address ? rd : out);
        break;
      default: break;
    }
  };
  for (size_t i = 0; i < ins.operands.size(); ++i) walk(walk, ins.operands[i], i == 0 ? wr : rd);
}

// The label a branch names, or ~0u.
uint32_t branch_label(const Instruction& ins) {
  if (ins.op != Opcode::Bra) return ~0u;
  for (auto& o : ins.operands)
    if (o.kind == Operand::Kind::Symbol && o.sym == ptx::SymKind::Label) return o.sym_index;
  return ~0u;
}

// A body instruction of a region to predicate: one a load may pass, not guarded already.
bool predicable(const Instruction& ins) { return !ins.has_guard && passable(ins) && !ends_block(ins); }

bool global_load(const Instruction& ins) { return weak_load(ins) && access_space(ins) == Space::Global; }

bool global_store(const Instruction& ins) {
  if (ins.op != Opcode::St) return false;
  const Space sp = access_space(ins);
  return sp == Space::Global || sp == Space::Any;
}

bool writes_reg(const Instruction& ins, uint32_t reg, std::vector<uint32_t>& rd, std::vector<uint32_t>& wr) {
  reads_writes(ins, rd, wr);
  return std::find(wr.begin(), wr.end(), reg) != wr.end();
}

}  // namespace

std::vector<bool> referenced_labels(const ptx::Function& f) {
  std::vector<bool> ref(f.labels.size(), false);
  auto walk = [&](auto&& self, const Operand& o) -> void {
    if (o.kind == Operand::Kind::Symbol && o.sym == ptx::SymKind::Label && o.sym_index < ref.size())
      ref[o.sym_index] = true;
    for (auto& e : o.elems) self(self, e);
  };
  for (auto& ins : f.instrs)
    for (auto& o : ins.operands) walk(walk, o);
  for (auto& tl : f.target_lists)
    for (auto& name : tl.targets)
      for (size_t l = 0; l < f.labels.size(); ++l)
        if (f.labels[l].name == name) ref[l] = true;
  return ref;
}

bool if_convert(const ptx::Function& f, ptx::Function& out) {
  const uint32_t n = uint32_t(f.instrs.size());
  // How many branches name each label, and which labels sit at each position.
  std::vector<uint32_t> uses(f.labels.size(), 0);
  for (auto& ins : f.instrs) {
    auto walk = [&](auto&& self, const Operand& o) -> void {
      if (o.kind == Operand::Kind::Symbol && o.sym == ptx::SymKind::Label && o.sym_index < uses.size())
        ++uses[o.sym_index];
      for (auto& e : o.elems) self(self, e);
    };
    for (auto& o : ins.operands) walk(walk, o);
  }
  std::vector<bool> listed(f.labels.size(), false);  // named by a brx.idx target list
  for (auto& tl : f.target_lists)
    for (auto& name : tl.targets)
      for (size_t l = 0; l < f.labels.size(); ++l)
        if (f.labels[l].name == name) listed[l] = true;
  std::vector<uint32_t> labels_at(n + 1, 0);
  for (auto& l : f.labels)
    if (l.instr <= n) ++labels_at[l.instr];
  // The position of label l if only one branch names it and no target list does.
  auto single_use = [&](uint32_t l) -> int64_t {
    if (l >= f.labels.size() || uses[l] != 1 || listed[l]) return -1;
    return f.labels[l].instr;
  };
  auto is_uncond_bra = [&](uint32_t i) { return i < n && f.instrs[i].op == Opcode::Bra && !f.instrs[i].has_guard; };
  std::vector<uint32_t> rd, wr;
  // [a, b) is a body: no label inside, every instruction predicable, none writing `pred`.
  auto body_ok = [&](uint32_t a, uint32_t b, uint32_t pred, bool& has_gload, bool& has_gstore) {
    for (uint32_t i = a; i < b; ++i) {
      if (i > a && labels_at[i]) return false;
      const Instruction& ins = f.instrs[i];
      if (!predicable(ins) || writes_reg(ins, pred, rd, wr)) return false;
      has_gload |= global_load(ins);
      has_gstore |= global_store(ins);
    }
    return true;
  };
  // Whether the branch at i sits directly in the body of an enclosing if: a forward conditional
  // branch past `join` earlier in the same block. ptxas keeps such nested regions as branches:
  // stencil_zmarch's `if (threadIdx.x == 0) plane[..] = inside ? in[..] : 0.f` halo loads (14
  // LDGs behind BRA in the sm_90 SASS) and conv_direct's remainder taps, each behind the loop's
  // exit test (3 LDGs), where every region that is alone in its block is predicated.
  auto nested = [&](uint32_t i, uint32_t join) {
    for (uint32_t k = i; k-- > 0;) {
      if (labels_at[k + 1]) return false;
      const Instruction& b = f.instrs[k];
      if (b.op == Opcode::Bra && b.has_guard) {
        const uint32_t l = branch_label(b);
        // An early `return` (a branch to the function's ret) is an EXIT in SASS, not an if:
        // stencil2d's `if (x >= w || y >= h) return;` before its predicated at() pairs.
        if (l < f.labels.size() && f.labels[l].instr > join &&
            !(f.labels[l].instr < n && (f.instrs[f.labels[l].instr].op == Opcode::Ret ||
                                         f.instrs[f.labels[l].instr].op == Opcode::Exit)))
          return true;
      }
      if (ends_block(b) && !(b.op == Opcode::Bra && b.has_guard)) return false;
    }
    return false;
  };
  struct Region { uint32_t a, b; bool neg; };  // body [a, b) runs under guard pred (negated: !pred)
  std::vector<bool> drop(n, false);
  std::vector<std::pair<Region, uint32_t>> bodies;  // (body, predicate register)
  for (uint32_t i = 0; i < n; ++i) {
    const Instruction& br = f.instrs[i];
    if (br.op != Opcode::Bra || !br.has_guard) continue;
    const uint32_t pred = br.guard_reg;
    const int64_t t = single_use(branch_label(br));
    if (t <= int64_t(i) + 1) continue;
    bool gload = false, gstore = false;
    // if-then with the branch at the end of an else-less region: `@p bra J; body; J:`, unless
    // the body ends in `bra J2` (the if-then-else below).
    const uint32_t j = uint32_t(t);
    if (j > i + 1 && !labels_at[i + 1] && body_ok(i + 1, j, pred, gload, gstore)) {
      if (gload && !gstore && !nested(i, j)) {
        bodies.push_back({{i + 1, j, !br.guard_negated}, pred});
        drop[i] = true;
        i = j - 1;
      }
      continue;
    }
    // `@p bra T; bra E; T: body1; bra J; E: body2; J:` (T = i + 2) or
    // `@p bra E; body1; bra J; E: body2; J:` (E = t).
    uint32_t b1, e_pos, first_bra;  // body1 start, E's position, the `bra E` to drop or ~0u
    bool body1_neg;                  // body1 runs where the guard is false
    if (j == i + 2 && is_uncond_bra(i + 1)) {
      const int64_t e = single_use(branch_label(f.instrs[i + 1]));
      if (e <= int64_t(i) + 2) continue;
      b1 = i + 2, e_pos = uint32_t(e), first_bra = i + 1, body1_neg = br.guard_negated;
    } else {
      b1 = i + 1, e_pos = j, first_bra = ~0u, body1_neg = !br.guard_negated;
      if (labels_at[i + 1]) continue;
    }
    // body1 ends in `bra J` just before E.
    const uint32_t k = e_pos - 1;
    if (k < b1 || !is_uncond_bra(k)) continue;
    const int64_t jj = single_use(branch_label(f.instrs[k]));
    if (jj <= int64_t(e_pos)) continue;
    // E (and T) start their bodies, with no other label there.
    if (labels_at[e_pos] != 1 || labels_at[b1] != (first_bra == ~0u ? 0u : 1u)) continue;
    if (!body_ok(b1, k, pred, gload, gstore) || !body_ok(e_pos, uint32_t(jj), pred, gload, gstore)) continue;
    if (!gload || gstore || nested(i, uint32_t(jj))) continue;
    bodies.push_back({{b1, k, body1_neg}, pred});
    bodies.push_back({{e_pos, uint32_t(jj), !body1_neg}, pred});
    drop[i] = drop[k] = true;
    if (first_bra != ~0u) drop[first_bra] = true;
    i = uint32_t(jj) - 1;
  }
  if (bodies.empty()) return false;
  out = f;
  for (auto& [r, pred] : bodies)
    for (uint32_t i = r.a; i < r.b; ++i) {
      Instruction& ins = out.instrs[i];
      ins.has_guard = true;
      ins.guard_negated = r.neg;
      ins.guard_reg = pred;
    }
  // Remove the branches; labels and statements move with the instructions after them.
  std::vector<uint32_t> new_index(n + 1);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; ++i) {
    new_index[i] = m;
    if (drop[i]) continue;
    if (m != i) out.instrs[m] = std::move(out.instrs[i]);
    ++m;
  }
  new_index[n] = m;
  out.instrs.resize(m);
  for (auto& l : out.labels) l.instr = new_index[std::min(l.instr, n)];
  std::vector<ptx::Statement> body;
  for (auto& st : out.body) {
    if (st.kind == ptx::Statement::Kind::Instr) {
      if (st.index >= n || drop[st.index]) continue;
      st.index = new_index[st.index];
    }
    body.push_back(st);
  }
  out.body = std::move(body);
  return true;
}

namespace {

// 32-bit words a register takes in the register file.
uint32_t reg_words(const ptx::Register& r) {
  if (r.type == ptx::Type::Pred) return 0;
  return std::max(1u, ptx::type_size(r.type) / 4) * r.vec;
}

// Rebuilds f.body (printer order) after instructions were inserted or removed: declarations,
// then labels and instructions in order.
void rebuild_body(ptx::Function& f) {
  std::vector<ptx::Statement> body;
  for (auto& st : f.body)
    if (st.kind != ptx::Statement::Kind::Instr && st.kind != ptx::Statement::Kind::Label &&
        st.kind != ptx::Statement::Kind::Loc && st.kind != ptx::Statement::Kind::BlockBegin &&
        st.kind != ptx::Statement::Kind::BlockEnd)
      body.push_back(st);
  std::vector<std::vector<uint32_t>> labels_at(f.instrs.size() + 1);
  for (uint32_t l = 0; l < f.labels.size(); ++l) labels_at[std::min<size_t>(f.labels[l].instr, f.instrs.size())].push_back(l);
  for (uint32_t i = 0; i <= f.instrs.size(); ++i) {
    for (uint32_t l : labels_at[i]) body.push_back({ptx::Statement::Kind::Label, l});
    if (i < f.instrs.size()) body.push_back({ptx::Statement::Kind::Instr, i});
  }
  f.body = std::move(body);
}

}  // namespace

bool add_call_frame(const ptx::Function& f, ptx::Function& out) {
  if (f.is_entry || !f.has_body) return false;
  const uint32_t n = uint32_t(f.instrs.size());
  std::vector<uint32_t> calls;
  bool branches = false;
  for (uint32_t i = 0; i < n; ++i) {
    if (f.instrs[i].op == Opcode::Call) calls.push_back(i);
    if ((f.instrs[i].op == Opcode::Bra || f.instrs[i].op == Opcode::BrxIdx) && f.instrs[i].has_guard) branches = true;
  }
  if (calls.empty()) return false;
  // Registers written before a call whose first access after it is a read.
  std::vector<uint32_t> rd, wr;
  std::vector<int64_t> first_write(f.regs.size(), -1);
  std::vector<std::vector<std::pair<uint32_t, bool>>> access(f.regs.size());  // (position, is read)
  for (uint32_t i = 0; i < n; ++i) {
    reads_writes(f.instrs[i], rd, wr);
    for (uint32_t r : rd)
      if (r < f.regs.size()) access[r].push_back({i, true});
    for (uint32_t r : wr)
      if (r < f.regs.size()) {
        access[r].push_back({i, false});
        if (first_write[r] < 0) first_write[r] = i;
      }
  }
  uint32_t words = 0;
  for (uint32_t r = 0; r < f.regs.size(); ++r) {
    if (first_write[r] < 0) continue;
    bool live = false;
    for (uint32_t c : calls) {
      if (first_write[r] >= int64_t(c)) continue;
      for (auto [pos, is_read] : access[r])
        if (pos > c) {
          live = is_read;
          break;
        }
      if (live) break;
    }
    if (live) words += reg_words(f.regs[r]);
  }
  const uint32_t frame = 2 + (branches ? 1 : 0) + words;
  // The frame's instructions, parsed from PTX, then renumbered into f.
  std::string text = fmt::format(
      ".version 8.0\n.target sm_80\n.address_size 64\n.func __warpsim_frame_f()\n{{\n"
      ".reg .b32 %__warpsim_save<{}>;\n.local .align 4 .b8 __warpsim_frame[{}];\n",
      frame, 4 * frame);
  // One register per word, as ptxas reloads each saved register: loads into one register would
  // wait for each other (write after write).
  for (uint32_t k = 0; k < frame; ++k)
    text += fmt::format("st.local.b32 [__warpsim_frame+{}], %__warpsim_save{};\n", 4 * k, k);
  for (uint32_t k = 0; k < frame; ++k)
    text += fmt::format("ld.local.b32 %__warpsim_save{}, [__warpsim_frame+{}];\n", k, 4 * k);
  text += "ret;\n}\n";
  auto t = ptx::parse(text, "<call frame>");
  if (!t.ok()) return false;
  const ptx::Function& tf = t.module->funcs.at(0);
  out = f;
  const uint32_t reg0 = uint32_t(out.regs.size()), local0 = uint32_t(out.locals.size());
  const uint32_t decl0 = uint32_t(out.reg_decls.size());
  for (auto d : tf.reg_decls) {
    for (auto& it : d.items) it.first += reg0;
    out.reg_decls.push_back(d);
    out.body.push_back({ptx::Statement::Kind::RegDecl, uint32_t(out.reg_decls.size() - 1)});
  }
  for (auto r : tf.regs) {
    r.decl += decl0;
    out.regs.push_back(r);
  }
  for (auto& v : tf.locals) {
    out.locals.push_back(v);
    out.body.push_back({ptx::Statement::Kind::LocalVar, uint32_t(out.locals.size() - 1)});
  }
  auto renumber = [&](ptx::Instruction ins) {
    auto walk = [&](auto&& self, Operand& o) -> void {
      if (o.kind == Operand::Kind::Reg) o.reg += reg0;
      if (o.kind == Operand::Kind::Symbol && o.sym == ptx::SymKind::LocalVariable) o.sym_index += local0;
      for (auto& e : o.elems) self(self, e);
    };
    for (auto& o : ins.operands) walk(walk, o);
    ins.pos = f.pos;
    return ins;
  };
  std::vector<Instruction> saves, restores;
  for (auto& ins : tf.instrs) {
    if (ins.op == Opcode::St) saves.push_back(renumber(ins));
    else if (ins.op == Opcode::Ld) restores.push_back(renumber(ins));
  }
  // RET.REL.NODEC R20 reads the reloaded return address: ret gets it as an operand (PTX's ret has
  // none; the functional engine ignores it, the timing model waits for it).
  Operand ra;
  ra.kind = Operand::Kind::Reg;
  ra.reg = reg0;  // %__warpsim_save0, the return address
  // Saves before the first instruction (a loop back to it does not save again), restores before
  // every ret, after any label on it.
  std::vector<Instruction> code;
  std::vector<uint32_t> new_index(n + 1);
  for (auto& s : saves) code.push_back(s), code.back().pos = f.instrs.empty() ? f.pos : f.instrs[0].pos;
  for (uint32_t i = 0; i < n; ++i) {
    new_index[i] = uint32_t(code.size());
    if (f.instrs[i].op == Opcode::Ret) {
      for (auto r : restores) {
        r.pos = f.instrs[i].pos;
        r.has_guard = f.instrs[i].has_guard;
        r.guard_negated = f.instrs[i].guard_negated;
        r.guard_reg = f.instrs[i].guard_reg;
        code.push_back(r);
      }
      Instruction rt = f.instrs[i];
      rt.operands.assign(1, ra);
      code.push_back(rt);
    } else {
      code.push_back(f.instrs[i]);
    }
  }
  new_index[n] = uint32_t(code.size());
  for (auto& l : out.labels) l.instr = l.instr == 0 ? uint32_t(saves.size()) : new_index[std::min(l.instr, n)];
  out.instrs = std::move(code);
  rebuild_body(out);
  return true;
}

// Within a segment (a stretch of loads, plain stores and register-only arithmetic between block
// boundaries and other instructions), every load moves up together with what it depends on (its
// address computation, a store it may read from): that dependency closure goes first, the rest
// of the segment after it in its original order. The closure is ordered by load depth, the number
// of load results on the instruction's longest register-dependency chain, and by original position
// within a depth, as ptxas lists independent loads before the loads whose addresses they produce
// (spmv_csr's unrolled `x[col[j]]`: the SASS issues the col[j] and val[j] LDGs of the iteration
// before the first x[] LDG). Kept: register dependencies (read after write, write after read,
// write after write); a load after a store it may alias, a store after a load or store it may
// alias (stores also keep their order among themselves); a volatile load's place among all loads
// and stores. Weak loads are unordered among themselves (a thread's reads with no write between
// them read the same values in any order). So values are unchanged.
std::vector<uint32_t> schedule_loads(const ptx::Function& f) {
  const uint32_t n = uint32_t(f.instrs.size());
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  // Segment boundaries: labels a branch names, block ends, and every instruction that is neither a load, a plain
  // store nor register-only arithmetic (atomics, fences, barriers, clock reads...) stand alone.
  std::vector<bool> label(n + 1, false);
  const std::vector<bool> referenced = referenced_labels(f);
  for (size_t l = 0; l < f.labels.size(); ++l)
    if (referenced[l] && f.labels[l].instr <= n) label[f.labels[l].instr] = true;
  auto movable = [&](uint32_t i) { return passable(f.instrs[i]) && !ends_block(f.instrs[i]); };
  std::vector<uint32_t> rd, wr;
  // deps[i]: (j, w): i comes after j; w = 1 where i reads a register the load j writes.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> deps;
  std::vector<int64_t> last_writer(f.regs.size() + 1, -1);
  std::vector<std::vector<uint32_t>> readers(f.regs.size() + 1);
  std::vector<uint32_t> touched;
  constexpr size_t kSpaces = size_t(Space::Any) + 1;
  uint32_t s = 0;
  while (s < n) {
    if (!movable(s)) {
      ++s;
      continue;
    }
    uint32_t e = s + 1;
    while (e < n && !label[e] && movable(e)) ++e;
    const uint32_t len = e - s;
    if (len > 1) {
      deps.assign(len, {});
      std::vector<bool> is_load(len, false);
      int64_t last_store = -1, last_ordered = -1;
      std::array<int64_t, kSpaces> last_store_in{};
      last_store_in.fill(-1);
      // Loads since the last store that covers them, by space (a store depends on these).
      std::array<std::vector<uint32_t>, kSpaces> loads_in;
      for (uint32_t i = 0; i < len; ++i) {
        const Instruction& ins = f.instrs[s + i];
        reads_writes(ins, rd, wr);
        auto dep = [&](int64_t j, uint32_t w = 0) {
          if (j >= 0) deps[i].push_back({uint32_t(j), w});
        };
        for (uint32_t r : rd) {
          if (r >= last_writer.size()) continue;
          const int64_t j = last_writer[r];
          dep(j, j >= 0 && is_load[size_t(j)] ? 1 : 0);
        }
        for (uint32_t r : wr) {
          if (r >= last_writer.size()) continue;
          dep(last_writer[r]);
          for (uint32_t j : readers[r]) dep(j);
        }
        if (movable_load(ins)) {
          is_load[i] = true;
          const Space sp = access_space(ins);
          if (sp == Space::Any) dep(last_store);
          else dep(last_store_in[size_t(sp)]), dep(last_store_in[size_t(Space::Any)]);
          dep(last_ordered);
          if (volatile_load(ins)) {
            dep(last_store);
            for (auto& v : loads_in)
              for (uint32_t j : v) dep(j);
            last_ordered = i;
          }
          loads_in[size_t(sp)].push_back(i);
        } else if (plain_store(ins)) {
          const Space sp = access_space(ins);
          dep(last_store);
          dep(last_ordered);
          for (size_t c = 0; c < kSpaces; ++c)
            if (may_alias(sp, Space(c))) {
              for (uint32_t j : loads_in[c]) dep(j);
              loads_in[c].clear();  // later stores come after this one, so after these loads
            }
          last_store = i;
          last_store_in[size_t(sp)] = i;
        }
        for (uint32_t r : rd)
          if (r < readers.size()) readers[r].push_back(i), touched.push_back(r);
        for (uint32_t r : wr)
          if (r < last_writer.size()) {
            last_writer[r] = i;
            readers[r].clear();
            touched.push_back(r);
          }
      }
      for (uint32_t r : touched) last_writer[r] = -1, readers[r].clear();
      touched.clear();
      // The loads' dependency closure: dependencies point backwards, so one reverse pass.
      std::vector<bool> early(len, false);
      for (uint32_t i = len; i-- > 0;) {
        if (is_load[i]) early[i] = true;
        if (early[i])
          for (auto [j, w] : deps[i]) early[j] = true;
      }
      // Load depth; every dependency has depth(j) <= depth(i), so sorting by (depth, position)
      // keeps them all.
      std::vector<uint32_t> depth(len, 0);
      for (uint32_t i = 0; i < len; ++i)
        for (auto [j, w] : deps[i]) depth[i] = std::max(depth[i], depth[j] + w);
      std::vector<uint32_t> first;
      for (uint32_t i = 0; i < len; ++i)
        if (early[i]) first.push_back(i);
      std::stable_sort(first.begin(), first.end(), [&](uint32_t a, uint32_t b) { return depth[a] < depth[b]; });
      uint32_t k = s;
      for (uint32_t i : first) order[k++] = s + i;
      for (uint32_t i = 0; i < len; ++i)
        if (!early[i]) order[k++] = s + i;
    }
    s = e;
  }
  return order;
}

}  // namespace warpsim::func

namespace warpsim::func {

bool unroll_loops(const ptx::Function& f, ptx::Function& out) {
  const uint32_t n = uint32_t(f.instrs.size());
  std::vector<uint32_t> labels_at(n + 1, 0);
  for (auto& l : f.labels)
    if (l.instr <= n) ++labels_at[l.instr];
  // `.pragma "nounroll"` (nvcc's `#pragma unroll 1`) before an instruction: ptxas leaves that loop.
  std::vector<bool> nounroll_at(n + 1, false);
  {
    uint32_t next = 0;
    for (auto& st : f.body) {
      if (st.kind == ptx::Statement::Kind::Instr) next = st.index + 1;
      else if (st.kind == ptx::Statement::Kind::Pragma && st.index < f.pragmas.size() &&
               f.pragmas[st.index].find("nounroll") != std::string::npos)
        nounroll_at[std::min(next, n)] = true;
    }
  }
  struct Loop {
    uint32_t head, back;  // [head, back) the body, back the `@p bra head`
    uint32_t counter, pred, setp;
    int64_t step;
    Mod type;  // of the trip test setp.gt
  };
  std::vector<Loop> loops;
  std::vector<uint32_t> rd, wr;
  for (uint32_t e = 0; e < n; ++e) {
    const Instruction& br = f.instrs[e];
    if (br.op != Opcode::Bra || !br.has_guard || br.guard_negated) continue;
    const uint32_t l = branch_label(br);
    if (l >= f.labels.size()) continue;
    const uint32_t h = f.labels[l].instr;
    if (h >= e || (!loops.empty() && h <= loops.back().back)) continue;
    bool ok = true, gload = false;
    for (uint32_t i = h; i <= e && ok; ++i) {
      if ((i > h && labels_at[i]) || nounroll_at[i]) ok = false;
      if (i < e && (!passable(f.instrs[i]) || ends_block(f.instrs[i]))) ok = false;
      if (i < e) gload |= global_load(f.instrs[i]);
    }
    if (!ok || !gload) continue;
    // The exit test: `setp.ne p, c, 0` on a counter stepped down once per trip by a constant.
    const uint32_t p = br.guard_reg;
    int64_t sp = -1;
    for (uint32_t i = h; i < e; ++i)
      if (writes_reg(f.instrs[i], p, rd, wr)) sp = i;
    if (sp < 0) continue;
    const Instruction& s = f.instrs[sp];
    if (s.op != Opcode::Setp || s.has_guard || !s.has(Mod::ne) || s.operands.size() != 3 ||
        s.operands[0].kind != Operand::Kind::Reg)
      continue;
    const Operand *cv = &s.operands[1], *zero = &s.operands[2];
    if (cv->kind != Operand::Kind::Reg) std::swap(cv, zero);
    if (cv->kind != Operand::Kind::Reg || zero->kind != Operand::Kind::Imm || zero->ival != 0) continue;
    const uint32_t c = cv->reg;
    Mod type = Mod::Count_;
    for (unsigned k = 0; k < s.nmods; ++k) {
      const Mod m = s.mods[k];
      if (m == Mod::s32 || m == Mod::s64) type = m;
      if (m == Mod::u32 || m == Mod::b32) type = Mod::u32;
      if (m == Mod::u64 || m == Mod::b64) type = Mod::u64;
    }
    if (type == Mod::Count_) continue;
    int64_t step = 0;
    uint32_t writers = 0;
    for (uint32_t i = h; i < e; ++i) {
      if (!writes_reg(f.instrs[i], c, rd, wr)) continue;
      ++writers;
      const Instruction& a = f.instrs[i];
      if (i < sp && !a.has_guard && a.operands.size() == 3 && a.operands[0].kind == Operand::Kind::Reg &&
          a.operands[1].kind == Operand::Kind::Reg && a.operands[1].reg == c &&
          a.operands[2].kind == Operand::Kind::Imm) {
        if (a.op == Opcode::Add) step = -a.operands[2].ival;
        if (a.op == Opcode::Sub) step = a.operands[2].ival;
      }
    }
    if (writers != 1 || step <= 0 || step > (1 << 20)) continue;
    loops.push_back({h, e, c, p, uint32_t(sp), step, type});
  }
  if (loops.empty()) return false;

  out = f;
  auto new_reg = [&](ptx::Register r, const std::string& name) {
    ptx::RegDecl d;
    d.type = r.type;
    d.vec = r.vec;
    d.items.push_back({name, -1, uint32_t(out.regs.size())});
    out.reg_decls.push_back(d);
    out.body.push_back({ptx::Statement::Kind::RegDecl, uint32_t(out.reg_decls.size() - 1)});
    r.decl = uint32_t(out.reg_decls.size() - 1);
    r.item = 0;
    r.number = -1;
    out.regs.push_back(r);
    return uint32_t(out.regs.size() - 1);
  };
  auto new_label = [&](const std::string& name) {
    out.labels.push_back({name, 0});
    return uint32_t(out.labels.size() - 1);
  };
  auto rename = [](Instruction ins, const std::vector<uint32_t>& map) {
    auto walk = [&](auto&& self, Operand& o) -> void {
      if (o.kind == Operand::Kind::Reg && o.reg < map.size() && map[o.reg] != ~0u) o.reg = map[o.reg];
      for (auto& e : o.elems) self(self, e);
    };
    for (auto& o : ins.operands) walk(walk, o);
    if (ins.has_guard && ins.guard_reg < map.size() && map[ins.guard_reg] != ~0u) ins.guard_reg = map[ins.guard_reg];
    return ins;
  };
  auto branch = [&](const Instruction& like, uint32_t label, bool guarded, uint32_t pred, bool negated) {
    Instruction b = like;
    b.has_guard = guarded;
    b.guard_reg = pred;
    b.guard_negated = negated;
    for (auto& o : b.operands)
      if (o.kind == Operand::Kind::Symbol && o.sym == ptx::SymKind::Label) {
        o.sym_index = label;
        o.name = out.labels[label].name;
      }
    return b;
  };

  std::vector<Instruction> code;
  std::vector<uint32_t> new_index(n + 1, 0);
  std::vector<uint32_t> body_pos(loops.size());  // where each loop's unrolled copies start
  std::vector<uint32_t> loop_at(n + 1, ~0u);
  std::vector<std::pair<uint32_t, uint32_t>> new_labels;  // (copies, exit) of each loop
  for (uint32_t k = 0; k < loops.size(); ++k) loop_at[loops[k].head] = k;
  for (uint32_t i = 0; i <= n; ++i) {
    if (loop_at[i] != ~0u) {
      const Loop& lp = loops[loop_at[i]];
      const Instruction& br = f.instrs[lp.back];
      const uint32_t id = loop_at[i];
      const uint32_t q = new_reg(f.regs[br.guard_reg], fmt::format("__warpsim_unroll{}_q", id));
      const uint32_t lu = new_label(fmt::format("__warpsim_unroll{}_body", id));
      const uint32_t lx = new_label(fmt::format("__warpsim_unroll{}_exit", id));
      new_labels.push_back({lu, lx});
      // `setp.gt q, c, (U-1)*step`: at least U trips are left, none of the first U-1 exit tests
      // can succeed (c - k*step > 0 for k < U), so the copies need no test between them.
      Instruction test = f.instrs[lp.setp];
      for (unsigned k = 0; k < test.nmods; ++k) {
        if (test.mods[k] == Mod::ne) test.mods[k] = Mod::gt;
        if (mod_class(test.mods[k]) == ptx::ModClass::Type) test.mods[k] = lp.type;
      }
      Operand qo, co, ko;
      qo.kind = Operand::Kind::Reg, qo.reg = q;
      co.kind = Operand::Kind::Reg, co.reg = lp.counter;
      ko.kind = Operand::Kind::Imm, ko.ival = int64_t(kPtxasLoopUnroll - 1) * lp.step;
      test.operands = {qo, co, ko};
      test.pos = br.pos, test.line = br.line;
      const uint32_t head_label = branch_label(br);
      code.push_back(test);
      code.push_back(branch(br, head_label, true, q, true));
      body_pos[id] = uint32_t(code.size());
      // Registers the body writes before it reads them get fresh names in all but the last copy,
      // as ptxas's unrolled SASS gives each copy's loads registers of their own; the last copy
      // keeps the names, so values live after the loop are the last trip's, as before.
      std::vector<bool> seen(f.regs.size(), false), local(f.regs.size(), false);
      for (uint32_t j = lp.head; j < lp.back; ++j) {
        reads_writes(f.instrs[j], rd, wr);
        for (uint32_t r : rd)
          if (r < seen.size()) seen[r] = true;
        for (uint32_t r : wr)
          if (r < seen.size() && !seen[r]) seen[r] = true, local[r] = !f.instrs[j].has_guard;
      }
      // Sets of names, used in turn so that the last copy has the original ones: as many as keep
      // kLoadsInFlight load results in flight. A copy's loads then write the registers a copy
      // `sets` before it read, and move up past the arithmetic of the copies in between but not
      // past that one's (write after read), as ptxas's LDGs reuse the registers its earlier FFMAs
      // freed: 13-16 LDGs outstanding in sgemm_naive's loop (8 per copy: two copies' worth),
      // 14-16 in radix_sort's exclusive_scan (4 per copy: all four copies issue together).
      uint32_t loads = 0;
      for (uint32_t j = lp.head; j < lp.back; ++j) loads += global_load(f.instrs[j]);
      const uint32_t sets = std::clamp<uint32_t>(kLoadsInFlight / std::max(1u, loads), 1, kPtxasLoopUnroll);
      std::vector<std::vector<uint32_t>> names(sets, std::vector<uint32_t>(f.regs.size(), ~0u));
      for (uint32_t k = 1; k < sets; ++k)
        for (uint32_t r = 0; r < f.regs.size(); ++r)
          if (local[r]) names[k][r] = new_reg(f.regs[r], fmt::format("__warpsim_unroll{}_{}_{}", id, k, r));
      for (uint32_t copy = 0; copy < kPtxasLoopUnroll; ++copy) {
        const std::vector<uint32_t>& map = names[(kPtxasLoopUnroll - 1 - copy) % sets];
        for (uint32_t j = lp.head; j < lp.back; ++j) code.push_back(rename(f.instrs[j], map));
      }
      code.push_back(test);
      code.push_back(branch(br, lu, true, q, false));
      // Fewer than U trips left: the original loop runs them, unless the last copy's test ended it.
      code.push_back(branch(br, lx, true, lp.pred, true));
    }
    new_index[i] = uint32_t(code.size());
    if (i < n) code.push_back(f.instrs[i]);
  }
  // Labels of f go where their instruction went (a label on a loop's head to the original loop,
  // which fall-through no longer reaches without the trip test); each loop's new labels to its
  // copies and to the instruction after its branch.
  for (uint32_t l = 0; l < f.labels.size(); ++l) out.labels[l].instr = new_index[std::min(f.labels[l].instr, n)];
  for (uint32_t k = 0; k < loops.size(); ++k) {
    out.labels[new_labels[k].first].instr = body_pos[k];
    out.labels[new_labels[k].second].instr = new_index[loops[k].back + 1];
  }
  out.instrs = std::move(code);
  rebuild_body(out);
  return true;
}

}  // namespace warpsim::func
