#include "func/schedule.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>

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

}  // namespace

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
  // Segment boundaries: labels, block ends, and every instruction that is neither a load, a plain
  // store nor register-only arithmetic (atomics, fences, barriers, clock reads...) stand alone.
  std::vector<bool> label(n + 1, false);
  for (auto& l : f.labels)
    if (l.instr <= n) label[l.instr] = true;
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
