#include "func/reconvergence.hpp"

#include <algorithm>
#include <functional>

#include "ptx/ir.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

// Control-flow successors of the instruction at pc (code indices), kExit for leaving the function.
constexpr uint32_t kExit = ~0u - 1;

void successors(const Program& prog, const DFunction& f, uint32_t pc, std::vector<uint32_t>& out) {
  out.clear();
  const DInstr& in = prog.code[pc];
  const Instruction& src = f.src->instrs[in.src_index];
  switch (src.op) {
    case Opcode::Bra:
      out.push_back(in.target);
      if (src.has_guard) out.push_back(pc + 1);
      return;
    case Opcode::BrxIdx:
      for (int64_t i = 0; i < in.imm; ++i)
        out.push_back(uint32_t(prog.consts[size_t(prog.extra_ops[in.target + i].index()) * kWarpSize]));
      return;
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap:
      out.push_back(kExit);
      if (src.has_guard) out.push_back(pc + 1);
      return;
    default:
      out.push_back(pc + 1 < f.end_pc ? pc + 1 : kExit);
      return;
  }
}

}  // namespace

std::vector<uint32_t> reconvergence_points(const Program& prog) {
  std::vector<uint32_t> rpc(prog.code.size(), kNoReconvergence);
  std::vector<uint32_t> succ;
  for (const DFunction& f : prog.funcs) {
    uint32_t n = f.end_pc - f.entry_pc;
    if (n == 0) continue;
    // Basic blocks: leaders are the entry, branch targets and instructions after branches.
    std::vector<bool> leader(n + 1, false);
    leader[0] = true;
    for (uint32_t pc = f.entry_pc; pc < f.end_pc; ++pc) {
      successors(prog, f, pc, succ);
      bool branchy = succ.size() != 1 || succ[0] != pc + 1;
      for (uint32_t s : succ)
        if (s != kExit && s >= f.entry_pc && s < f.end_pc) leader[s - f.entry_pc] = true;
      if (branchy && pc + 1 < f.end_pc) leader[pc + 1 - f.entry_pc] = true;
    }
    std::vector<uint32_t> block_of(n), block_start;
    for (uint32_t i = 0; i < n; ++i) {
      if (leader[i]) block_start.push_back(i);
      block_of[i] = uint32_t(block_start.size() - 1);
    }
    uint32_t nb = uint32_t(block_start.size());
    uint32_t exit_node = nb;  // virtual exit
    std::vector<std::vector<uint32_t>> bsucc(nb + 1), bpred(nb + 1);
    for (uint32_t b = 0; b < nb; ++b) {
      uint32_t last = (b + 1 < nb ? block_start[b + 1] : n) - 1;
      successors(prog, f, f.entry_pc + last, succ);
      for (uint32_t s : succ) {
        uint32_t t = (s == kExit || s < f.entry_pc || s >= f.end_pc) ? exit_node : block_of[s - f.entry_pc];
        if (std::find(bsucc[b].begin(), bsucc[b].end(), t) == bsucc[b].end()) {
          bsucc[b].push_back(t);
          bpred[t].push_back(b);
        }
      }
    }
    // Post-dominators: dominators of the reversed CFG rooted at the exit (Cooper, Harvey, Kennedy).
    // Blocks that cannot reach the exit (infinite loops) get no post-dominator.
    std::vector<uint32_t> order, index(nb + 1, ~0u);
    std::vector<bool> seen(nb + 1, false);
    std::function<void(uint32_t)> dfs = [&](uint32_t v) {
      seen[v] = true;
      for (uint32_t p : bpred[v])  // reversed edges: exit -> predecessors
        if (!seen[p]) dfs(p);
      index[v] = uint32_t(order.size());
      order.push_back(v);
    };
    dfs(exit_node);
    std::vector<uint32_t> ipdom(nb + 1, ~0u);
    ipdom[exit_node] = exit_node;
    auto intersect = [&](uint32_t a, uint32_t b) {
      while (a != b) {
        while (index[a] < index[b]) a = ipdom[a];
        while (index[b] < index[a]) b = ipdom[b];
      }
      return a;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        uint32_t v = *it;
        if (v == exit_node) continue;
        uint32_t nd = ~0u;
        for (uint32_t s : bsucc[v]) {  // reversed-graph predecessors are CFG successors
          if (ipdom[s] == ~0u) continue;
          nd = nd == ~0u ? s : intersect(s, nd);
        }
        if (nd != ~0u && ipdom[v] != nd) {
          ipdom[v] = nd;
          changed = true;
        }
      }
    }
    for (uint32_t b = 0; b < nb; ++b) {
      uint32_t last = (b + 1 < nb ? block_start[b + 1] : n) - 1;
      uint32_t d = ipdom[b];
      if (d == ~0u || d == exit_node) continue;
      rpc[f.entry_pc + last] = f.entry_pc + block_start[d];
    }
  }
  return rpc;
}

}  // namespace warpsim::func
