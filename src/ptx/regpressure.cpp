#include "ptx/regpressure.hpp"

#include <algorithm>
#include <vector>

#include "ptx/isa.hpp"

namespace warpsim::ptx {

namespace {

using Bits = std::vector<uint64_t>;

struct Refs {
  std::vector<uint32_t> use, def;
};

void collect(const Operand& o, bool is_dst, Refs& r) {
  using K = Operand::Kind;
  switch (o.kind) {
    case K::Reg: (is_dst ? r.def : r.use).push_back(o.reg); break;
    case K::Vector:
    case K::Pair:
      for (auto& e : o.elems) collect(e, is_dst, r);
      break;
    case K::Address:
    case K::MemList:
    case K::CallList:
      for (auto& e : o.elems) collect(e, false, r);  // address and argument registers are read
      break;
    default: break;
  }
}

Refs refs_of(const Instruction& ins) {
  Refs r;
  if (ins.has_guard) r.use.push_back(ins.guard_reg);
  const bool first_dst = writes_first_operand(ins.op);
  for (size_t i = 0; i < ins.operands.size(); ++i) {
    const Operand& o = ins.operands[i];
    collect(o, first_dst && i == 0 && o.kind != Operand::Kind::Address, r);
  }
  return r;
}

bool ends_block(Opcode op) {
  return op == Opcode::Bra || op == Opcode::BrxIdx || op == Opcode::Ret || op == Opcode::Exit || op == Opcode::Trap;
}

}  // namespace

uint32_t max_live_words(const Function& f) {
  const size_t n = f.instrs.size();
  if (n == 0) return 0;
  const size_t nregs = f.regs.size(), words = (nregs + 63) / 64;
  std::vector<uint32_t> weight(nregs);
  for (size_t i = 0; i < nregs; ++i) {
    const Register& g = f.regs[i];
    weight[i] = g.type == Type::Pred ? 0 : std::max<uint32_t>(1, (type_size(g.type) * g.vec + 3) / 4);
  }
  std::vector<Refs> refs(n);
  for (size_t i = 0; i < n; ++i) refs[i] = refs_of(f.instrs[i]);

  // Basic blocks: leaders at label targets and after control transfers.
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (const Label& l : f.labels)
    if (l.instr < n) leader[l.instr] = 1;
  for (size_t i = 0; i < n; ++i)
    if (ends_block(f.instrs[i].op)) leader[i + 1] = 1;
  std::vector<uint32_t> block_of(n), start, end;
  for (size_t i = 0; i < n; ++i) {
    if (leader[i]) start.push_back(uint32_t(i));
    block_of[i] = uint32_t(start.size() - 1);
  }
  const size_t nb = start.size();
  end.resize(nb);
  for (size_t b = 0; b < nb; ++b) end[b] = b + 1 < nb ? start[b + 1] : uint32_t(n);

  auto label_block = [&](uint32_t label) -> int64_t {
    if (label >= f.labels.size() || f.labels[label].instr >= n) return -1;
    return block_of[f.labels[label].instr];
  };
  std::vector<std::vector<uint32_t>> succ(nb);
  for (size_t b = 0; b < nb; ++b) {
    const Instruction& last = f.instrs[end[b] - 1];
    bool falls = true;
    if (last.op == Opcode::Bra) {
      for (const Operand& o : last.operands)
        if (o.kind == Operand::Kind::Symbol && o.sym == SymKind::Label)
          if (int64_t t = label_block(o.sym_index); t >= 0) succ[b].push_back(uint32_t(t));
      falls = last.has_guard;
    } else if (last.op == Opcode::BrxIdx) {
      for (uint32_t l = 0; l < f.labels.size(); ++l)
        if (int64_t t = label_block(l); t >= 0) succ[b].push_back(uint32_t(t));
      falls = last.has_guard;
    } else if (last.op == Opcode::Ret || last.op == Opcode::Exit || last.op == Opcode::Trap) {
      falls = last.has_guard;
    }
    if (falls && b + 1 < nb) succ[b].push_back(uint32_t(b + 1));
  }

  // use (read before any unguarded write in the block) and def (unguarded writes) per block.
  auto set = [](Bits& v, uint32_t r) { v[r / 64] |= 1ull << (r % 64); };
  auto clr = [](Bits& v, uint32_t r) { v[r / 64] &= ~(1ull << (r % 64)); };
  std::vector<Bits> use(nb, Bits(words)), def(nb, Bits(words)), in(nb, Bits(words)), out(nb, Bits(words));
  for (size_t b = 0; b < nb; ++b)
    for (uint32_t i = end[b]; i-- > start[b];) {
      if (!f.instrs[i].has_guard)
        for (uint32_t r : refs[i].def) {
          set(def[b], r);
          clr(use[b], r);
        }
      for (uint32_t r : refs[i].use) set(use[b], r);
    }
  // Backward dataflow to a fixed point: in = use | (out & ~def), out = union of successors' in.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      Bits& o = out[b];
      for (uint32_t s : succ[b])
        for (size_t w = 0; w < words; ++w) o[w] |= in[s][w];
      for (size_t w = 0; w < words; ++w) {
        uint64_t v = use[b][w] | (o[w] & ~def[b][w]);
        if (v != in[b][w]) {
          in[b][w] = v;
          changed = true;
        }
      }
    }
  }
  // Walk each block backwards from its live-out set; at each instruction the registers live after
  // it plus those it writes occupy registers.
  auto weigh = [&](const Bits& v) {
    uint64_t s = 0;
    for (size_t w = 0; w < words; ++w)
      for (uint64_t x = v[w]; x; x &= x - 1) s += weight[w * 64 + size_t(__builtin_ctzll(x))];
    return s;
  };
  uint64_t best = 0;
  Bits live(words);
  for (size_t b = 0; b < nb; ++b) {
    live = out[b];
    uint64_t cur = weigh(live);
    auto add = [&](uint32_t r) {
      if (!(live[r / 64] >> (r % 64) & 1)) {
        set(live, r);
        cur += weight[r];
      }
    };
    for (uint32_t i = end[b]; i-- > start[b];) {
      // Values written here that are dead afterwards still need a register at this point.
      uint64_t extra = 0;
      for (uint32_t r : refs[i].def)
        if (!(live[r / 64] >> (r % 64) & 1)) extra += weight[r];
      best = std::max(best, cur + extra);
      if (!f.instrs[i].has_guard)
        for (uint32_t r : refs[i].def)
          if (live[r / 64] >> (r % 64) & 1) {
            clr(live, r);
            cur -= weight[r];
          }
      for (uint32_t r : refs[i].use) add(r);
      best = std::max(best, cur);
    }
  }
  return uint32_t(std::min<uint64_t>(best, ~0u));
}

}  // namespace warpsim::ptx
