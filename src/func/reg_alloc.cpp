#include "func/reg_alloc.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <limits>
#include <map>
#include <queue>

namespace warpsim::func {

using ptx::Operand;

namespace {

uint32_t width_of(const ptx::Register& r) {
  if (r.type == ptx::Type::Pred) return 0;
  return r.type == ptx::Type::B128 ? 2u * r.vec : r.vec;
}

RegLayout one_per_register(const ptx::Function& f) {
  RegLayout l;
  l.offset.resize(f.regs.size(), 0);
  for (size_t r = 0; r < f.regs.size(); ++r) {
    l.offset[r] = l.slots;
    l.slots += width_of(f.regs[r]);
  }
  return l;
}


// Operand 0 of these instructions is only written, on every lane that executes the instruction
// (unguarded): its registers are dead before it. Everything else counts as a read, which only ever
// makes a live range longer.
bool defines_operand0(ptx::Opcode op) {
  using O = ptx::Opcode;
  switch (op) {
    case O::Add: case O::Sub: case O::Mul: case O::Mad: case O::Mul24: case O::Mad24: case O::Sad:
    case O::Div: case O::Rem: case O::Abs: case O::Neg: case O::Min: case O::Max: case O::Popc:
    case O::Clz: case O::Bfind: case O::Fns: case O::Brev: case O::Bfe: case O::Bfi: case O::Szext:
    case O::Bmsk: case O::Dp4a: case O::Dp2a: case O::Addc: case O::Subc: case O::Madc:
    case O::Vadd2: case O::Vsub2: case O::Vavrg2: case O::Vabsdiff2: case O::Vmin2: case O::Vmax2:
    case O::Vadd4: case O::Vsub4: case O::Vavrg4: case O::Vabsdiff4: case O::Vmin4: case O::Vmax4:
    case O::Copysign: case O::Fma: case O::Rcp: case O::Sqrt: case O::Rsqrt: case O::Sin: case O::Cos:
    case O::Lg2: case O::Ex2: case O::Tanh: case O::Set: case O::Selp: case O::Slct: case O::And:
    case O::Or: case O::Xor: case O::Not: case O::Cnot: case O::Lop3: case O::Shf: case O::Shl:
    case O::Shr: case O::Mov: case O::Shfl: case O::Prmt: case O::Ld: case O::Ldu: case O::Isspacep:
    case O::Cvta: case O::Cvt: case O::Mapa: case O::Getctarank: case O::Createpolicy: case O::Atom:
    case O::Vote: case O::Match: case O::Activemask: case O::Redux: case O::Elect: case O::Ldmatrix:
    case O::WmmaLoad: case O::WmmaMma: case O::Mma:
      return true;
    default:
      return false;
  }
}

// Exact liveness over the decoded order (a backward dataflow over instructions), then a greedy
// assignment: a register takes the first block of slots of its width that no register live at, or
// appearing at, any of its positions holds. False when the function is too large for the bitsets
// or branches indirectly (the caller falls back to the span method).
bool liveness_layout(const ptx::Function& f, const std::vector<uint32_t>& order, uint32_t pinned, RegLayout& l) {
  const size_t n = f.regs.size(), ni = f.instrs.size();
  const size_t words = (n + 63) / 64, pwords = (ni + 63) / 64;
  if (ni == 0 || double(n) * double(ni) > 64e6) return false;
  std::vector<uint64_t> use(ni * words, 0), kill(ni * words, 0), occurs(ni * words, 0);
  std::vector<std::vector<uint32_t>> succ(ni);
  auto set = [&](std::vector<uint64_t>& v, size_t p, uint32_t r) { v[p * words + r / 64] |= 1ull << (r % 64); };
  for (uint32_t p = 0; p < ni; ++p) {
    const ptx::Instruction& ins = f.instrs[order[p]];
    if (ins.op == ptx::Opcode::BrxIdx) return false;
    bool falls_through = true, label_seen = false;
    auto walk = [&](auto&& self, const Operand& o, bool def) -> bool {
      if (o.kind == Operand::Kind::Reg) {
        if (o.reg >= n) return false;
        set(occurs, p, o.reg);
        // A component (.x) of a vector register is a partial write: not a kill.
        if (def && o.selector.empty()) set(kill, p, o.reg);
        else set(use, p, o.reg);
      } else if (o.kind == Operand::Kind::Symbol) {
        if (o.sym == ptx::SymKind::BranchTargets) return false;
        if (o.sym == ptx::SymKind::Label) {
          if (o.sym_index >= f.labels.size()) return false;
          if (f.labels[o.sym_index].instr < ni) succ[p].push_back(f.labels[o.sym_index].instr);
          label_seen = true;
        }
      }
      // Elements of a destination vector / pair are destinations; an address's are sources.
      const bool elems_def = def && (o.kind == Operand::Kind::Vector || o.kind == Operand::Kind::Pair);
      for (const Operand& e : o.elems)
        if (!self(self, e, elems_def)) return false;
      return true;
    };
    const bool defs = !ins.has_guard && defines_operand0(ins.op);
    for (size_t k = 0; k < ins.operands.size(); ++k)
      if (!walk(walk, ins.operands[k], defs && k == 0)) return false;
    // A register both read and written by the instruction is read first: it stays live.
    for (size_t w = 0; w < words; ++w) kill[p * words + w] &= ~use[p * words + w];
    const bool uncond = !ins.has_guard;
    if ((ins.op == ptx::Opcode::Bra && label_seen) || ins.op == ptx::Opcode::Ret || ins.op == ptx::Opcode::Exit ||
        ins.op == ptx::Opcode::Trap)
      falls_through = !uncond;
    if (falls_through && p + 1 < ni) succ[p].push_back(p + 1);
  }
  // .reg parameters and returns carry values in and out of the body: live everywhere.
  for (uint32_t r = 0; r < pinned && r < n; ++r)
    for (size_t p = 0; p < ni; ++p) set(use, p, r);
  // live_in(p) = use(p) | (live_out(p) & ~kill(p)); live_out(p) = union of live_in(successors).
  std::vector<uint64_t> live(ni * words, 0), out(words);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t p = ni; p-- > 0;) {
      std::fill(out.begin(), out.end(), 0);
      for (uint32_t q : succ[p])
        for (size_t w = 0; w < words; ++w) out[w] |= live[q * words + w];
      for (size_t w = 0; w < words; ++w) {
        const uint64_t v = use[p * words + w] | (out[w] & ~kill[p * words + w]);
        if (v != live[p * words + w]) {
          live[p * words + w] = v;
          changed = true;
        }
      }
    }
  }
  // Positions each register holds its slot: live before the instruction, or written by it.
  std::vector<uint64_t> held(n * pwords, 0);
  std::vector<uint32_t> first(n, ~0u);
  for (size_t p = 0; p < ni; ++p)
    for (size_t w = 0; w < words; ++w) {
      uint64_t bits = live[p * words + w] | occurs[p * words + w];
      while (bits) {
        const uint32_t r = uint32_t(w * 64 + size_t(std::countr_zero(bits)));
        bits &= bits - 1;
        held[r * pwords + p / 64] |= 1ull << (p % 64);
        first[r] = std::min(first[r], uint32_t(p));
      }
    }
  std::vector<uint32_t> regs;
  for (uint32_t r = 0; r < n; ++r)
    if (width_of(f.regs[r]) && first[r] != ~0u) regs.push_back(r);
  std::stable_sort(regs.begin(), regs.end(), [&](uint32_t a, uint32_t b) { return first[a] < first[b]; });
  struct Block {
    uint32_t offset, width;
    std::vector<uint64_t> held;
  };
  std::vector<Block> blocks;
  l = RegLayout{};
  l.offset.assign(n, 0);
  for (uint32_t r : regs) {
    const uint32_t w = width_of(f.regs[r]);
    const uint64_t* h = &held[r * pwords];
    Block* fit = nullptr;
    for (Block& b : blocks) {
      if (b.width != w) continue;
      bool clash = false;
      for (size_t k = 0; k < pwords && !clash; ++k) clash = (b.held[k] & h[k]) != 0;
      if (!clash) {
        fit = &b;
        break;
      }
    }
    if (!fit) {
      blocks.push_back(Block{l.slots, w, std::vector<uint64_t>(pwords, 0)});
      l.slots += w;
      fit = &blocks.back();
    }
    for (size_t k = 0; k < pwords; ++k) fit->held[k] |= h[k];
    l.offset[r] = fit->offset;
  }
  return true;
}

// The span method (see the header) for functions too large for the liveness bitsets.
RegLayout span_layout(const ptx::Function& f, const std::vector<uint32_t>& order, uint32_t pinned) {
  const size_t n = f.regs.size(), ni = f.instrs.size();
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> lo(n, kNone), hi(n, 0);
  std::vector<std::pair<uint32_t, uint32_t>> loops;  // (label position, branch position)
  bool indirect = false;
  for (uint32_t p = 0; p < ni; ++p) {
    const ptx::Instruction& ins = f.instrs[order[p]];
    if (ins.op == ptx::Opcode::BrxIdx) indirect = true;
    auto walk = [&](auto&& self, const Operand& o) -> void {
      if (o.kind == Operand::Kind::Reg && o.reg < n) {
        lo[o.reg] = std::min(lo[o.reg], p);
        hi[o.reg] = std::max(hi[o.reg], p);
      } else if (o.kind == Operand::Kind::Symbol) {
        if (o.sym == ptx::SymKind::BranchTargets) indirect = true;
        if (o.sym == ptx::SymKind::Label) {
          if (o.sym_index >= f.labels.size()) {
            indirect = true;  // unresolved: do not guess
          } else if (f.labels[o.sym_index].instr <= p) {
            loops.push_back({f.labels[o.sym_index].instr, p});
          }
        }
      }
      for (const Operand& e : o.elems) self(self, e);
    };
    for (const Operand& o : ins.operands) walk(walk, o);
  }
  if (indirect) return one_per_register(f);
  // .reg parameters and returns carry values across the call: live over the whole body.
  for (uint32_t r = 0; r < pinned && r < n; ++r) lo[r] = 0, hi[r] = ni;
  // Widen spans over the loops they touch, until nothing changes (nested and overlapping loops).
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [t, b] : loops)
      for (size_t r = 0; r < n; ++r) {
        if (lo[r] == kNone || hi[r] < t || lo[r] > b) continue;
        if (lo[r] > t || hi[r] < b) {
          lo[r] = std::min(lo[r], t);
          hi[r] = std::max(hi[r], b);
          changed = true;
        }
      }
  }
  // Linear scan: registers by span start; a block of slots is free again once its register's span
  // has ended strictly before the next span starts (an instruction reading one register and writing
  // another never gets both in one slot). Blocks are reused only by registers of the same width.
  RegLayout l;
  l.offset.assign(n, 0);
  std::vector<uint32_t> by_start;
  for (uint32_t r = 0; r < n; ++r)
    if (width_of(f.regs[r]) && lo[r] != kNone) by_start.push_back(r);
  std::stable_sort(by_start.begin(), by_start.end(), [&](uint32_t a, uint32_t b) { return lo[a] < lo[b]; });
  using Active = std::pair<uint32_t, uint32_t>;  // (span end, register)
  std::priority_queue<Active, std::vector<Active>, std::greater<Active>> active;
  std::map<uint32_t, std::vector<uint32_t>> free_blocks;  // width -> offsets
  for (uint32_t r : by_start) {
    while (!active.empty() && active.top().first < lo[r]) {
      const uint32_t d = active.top().second;
      free_blocks[width_of(f.regs[d])].push_back(l.offset[d]);
      active.pop();
    }
    const uint32_t w = width_of(f.regs[r]);
    auto& fb = free_blocks[w];
    if (!fb.empty()) {
      l.offset[r] = fb.back();
      fb.pop_back();
    } else {
      l.offset[r] = l.slots;
      l.slots += w;
    }
    active.push({hi[r], r});
  }
  // Registers that appear nowhere are never read or written: any slot will do.
  return l;
}

}  // namespace

RegLayout allocate_register_slots(const ptx::Function& f, const std::vector<uint32_t>& order, uint32_t pinned,
                                  bool share) {
  const size_t n = f.regs.size(), ni = f.instrs.size();
  if (!share || n == 0 || order.size() != ni) return one_per_register(f);
  RegLayout exact;
  if (liveness_layout(f, order, pinned, exact)) return exact;
  return span_layout(f, order, pinned);
}

}  // namespace warpsim::func
