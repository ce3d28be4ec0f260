#include "func/schedule.hpp"

#include <algorithm>

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

// A plain load that may move: no ordering semantics (volatile, acquire, relaxed/mmio scopes).
bool movable_load(const Instruction& ins) {
  // ldmatrix: ptxas issues the next k-step's fragment loads (LDSM) under the current mma's.
  if (ins.op == Opcode::Ldmatrix) return true;
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

}  // namespace

// Within a segment (a stretch of loads and register-only arithmetic between block boundaries and
// other instructions), every load moves up together with the arithmetic it depends on (its
// address computation): that dependency closure goes first, in its original order, the rest of
// the segment after it, also in order. Register dependencies (read after write, write after read,
// write after write) and the order of loads among themselves are kept, so values are unchanged.
std::vector<uint32_t> schedule_loads(const ptx::Function& f) {
  const uint32_t n = uint32_t(f.instrs.size());
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  // Segment boundaries: labels, block ends, and every instruction that is neither a load nor
  // register-only arithmetic (stores, barriers, clock reads...) stand alone.
  std::vector<bool> label(n + 1, false);
  for (auto& l : f.labels)
    if (l.instr <= n) label[l.instr] = true;
  auto movable = [&](uint32_t i) { return passable(f.instrs[i]) && !ends_block(f.instrs[i]); };
  std::vector<uint32_t> rd, wr;
  std::vector<std::vector<uint32_t>> deps;
  std::vector<int64_t> last_writer(f.regs.size() + 1, -1);
  std::vector<std::vector<uint32_t>> readers(f.regs.size() + 1);
  std::vector<uint32_t> touched;
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
      int64_t last_load = -1;
      for (uint32_t i = 0; i < len; ++i) {
        const Instruction& ins = f.instrs[s + i];
        reads_writes(ins, rd, wr);
        auto dep = [&](int64_t j) {
          if (j >= 0) deps[i].push_back(uint32_t(j));
        };
        for (uint32_t r : rd) {
          if (r >= last_writer.size()) continue;
          dep(last_writer[r]);
        }
        for (uint32_t r : wr) {
          if (r >= last_writer.size()) continue;
          dep(last_writer[r]);
          for (uint32_t j : readers[r]) dep(j);
        }
        if (movable_load(ins)) {
          dep(last_load);  // loads keep their relative order
          last_load = i;
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
        if (movable_load(f.instrs[s + i])) early[i] = true;
        if (early[i])
          for (uint32_t j : deps[i]) early[j] = true;
      }
      uint32_t k = s;
      for (uint32_t i = 0; i < len; ++i)
        if (early[i]) order[k++] = s + i;
      for (uint32_t i = 0; i < len; ++i)
        if (!early[i]) order[k++] = s + i;
    }
    s = e;
  }
  return order;
}

}  // namespace warpsim::func
