#include "func/schedule.hpp"

#include <algorithm>

namespace warpsim::func {

using ptx::Instruction;
using ptx::Mod;
using ptx::Opcode;
using ptx::Operand;

namespace {

// Registers an instruction names (read or written), including its guard.
void regs_of(const Instruction& ins, std::vector<uint32_t>& out) {
  out.clear();
  if (ins.has_guard) out.push_back(ins.guard_reg);
  auto walk = [&](auto&& self, const Operand& o) -> void {
    switch (o.kind) {
      case Operand::Kind::Reg: out.push_back(o.reg); break;
      case Operand::Kind::Address: case Operand::Kind::Vector: case Operand::Kind::Pair:
      case Operand::Kind::MemList: case Operand::Kind::CallList:
        for (auto& e : o.elems) self(self, e);
        break;
      default: break;
    }
  };
  for (auto& o : ins.operands) walk(walk, o);
}

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

// A plain load that may move: no ordering semantics (volatile, acquire, relaxed/mmio scopes).
bool movable_load(const Instruction& ins) {
  if (ins.op != Opcode::Ld && ins.op != Opcode::Ldu) return false;
  for (unsigned i = 0; i < ins.nmods; ++i) switch (ins.mods[i]) {
      case Mod::volatile_: case Mod::acquire: case Mod::relaxed: case Mod::mmio: return false;
      default: break;
    }
  return true;
}

// Instructions a load may pass: register-only arithmetic, with no memory, control or clock effect.
bool passable(const Instruction& ins) {
  if (movable_load(ins)) return true;
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

}  // namespace

std::vector<uint32_t> schedule_loads(const ptx::Function& f) {
  const uint32_t n = uint32_t(f.instrs.size());
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  // Block starts: labels, and the instruction after a block-ending one.
  std::vector<bool> start(n + 1, false);
  start[0] = true;
  for (auto& l : f.labels)
    if (l.instr <= n) start[l.instr] = true;
  for (uint32_t i = 0; i < n; ++i)
    if (ends_block(f.instrs[i])) start[i + 1] = true;
  std::vector<uint32_t> a, b;
  for (uint32_t k = 1; k < n; ++k) {
    const Instruction& ld = f.instrs[order[k]];
    if (start[k] || !movable_load(ld)) continue;
    regs_of(ld, a);
    // Bubble the load up while the instruction above is passable and shares no register.
    uint32_t j = k;
    while (j > 0 && !start[j]) {
      const Instruction& above = f.instrs[order[j - 1]];
      if (!passable(above) || ends_block(above)) break;
      if (movable_load(above)) break;  // loads keep their relative order
      regs_of(above, b);
      bool shared = false;
      for (uint32_t r : a)
        if (std::find(b.begin(), b.end(), r) != b.end()) {
          shared = true;
          break;
        }
      if (shared) break;
      std::swap(order[j - 1], order[j]);
      --j;
    }
  }
  return order;
}

}  // namespace warpsim::func
