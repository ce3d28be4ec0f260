#include "timing/op_class.hpp"

#include <algorithm>

#include "ptx/isa.hpp"

namespace warpsim::timing {

using config::OpClass;
using config::Pipe;
using ptx::Mod;
using ptx::Opcode;
using ptx::Type;

namespace {

bool is_f16(Type t) { return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2; }

Type first_type(const ptx::Instruction& ins) { return ins.types()[0]; }

bool has_type(const ptx::Instruction& ins, Type want) {
  for (Type t : ins.types())
    if (t == want) return true;
  return false;
}

bool any_f64(const ptx::Instruction& ins) { return has_type(ins, Type::F64); }
bool any_f16(const ptx::Instruction& ins) {
  for (Type t : ins.types())
    if (is_f16(t)) return true;
  return false;
}
bool is_float(Type t) { return t == Type::F32 || t == Type::F64 || is_f16(t) || t == Type::TF32; }

enum class Where { Generic, Global, Shared, Local, Const, Param };
Where space(const ptx::Instruction& ins) {
  if (ins.has(Mod::shared) || ins.has(Mod::shared_cta) || ins.has(Mod::shared_cluster)) return Where::Shared;
  if (ins.has(Mod::global)) return Where::Global;
  if (ins.has(Mod::local)) return Where::Local;
  if (ins.has(Mod::const_)) return Where::Const;
  if (ins.has(Mod::param) || ins.has(Mod::param_entry) || ins.has(Mod::param_func)) return Where::Param;
  return Where::Generic;
}

OpClass arith_class(const ptx::Instruction& ins) {
  if (any_f64(ins)) return OpClass::Fp64;
  if (any_f16(ins)) return OpClass::Fp16;
  if (has_type(ins, Type::F32)) return OpClass::Fp32;
  return OpClass::Int;
}

struct DepCollector {
  const func::DFunction& f;
  std::vector<uint32_t> src, dst;
  void add(std::vector<uint32_t>& v, uint32_t reg) {
    if (reg >= f.reg_ids.size()) return;
    // The virtual register, not its slot: registers that share a slot are still independent.
    const uint32_t raw = f.reg_ids[reg];
    const uint32_t id = raw & func::DFunction::kRegIdPred ? (kPredBit | (raw & ~func::DFunction::kRegIdPred)) : raw;
    if (std::find(v.begin(), v.end(), id) == v.end()) v.push_back(id);
  }
  void walk(const ptx::Operand& o, bool is_dst) {
    using K = ptx::Operand::Kind;
    switch (o.kind) {
      case K::Reg: add(is_dst ? dst : src, o.reg); break;
      case K::Vector:
      case K::Pair:
        for (auto& e : o.elems) walk(e, is_dst);
        break;
      case K::Address:
      case K::MemList:
      case K::CallList:
        for (auto& e : o.elems) walk(e, false);  // address and argument registers are read
        break;
      default: break;
    }
  }
};

uint32_t div_up(uint32_t a, uint32_t b) { return b ? (a + b - 1) / b : a; }

// The op class's [ops] entry: pipe, scoreboard, latency, and the pipe cycles of a warp (32 lanes
// over the pipe's lanes, times the class's issue interval).
void set_class_timing(InstrTiming& t, const config::Machine& m) {
  const config::OpTiming& ot = m.ops[unsigned(t.cls)];
  t.pipe = ot.pipe;
  t.sb = ot.scoreboard;
  t.latency = std::max<uint32_t>(1, ot.latency);
  const uint32_t lanes = m.pipe_lanes[unsigned(ot.pipe)];
  t.pipe_cycles = div_up(32, lanes ? lanes : 32) * std::max<uint32_t>(1, ot.issue);
}

// Tensor-core cycles of one mma: multiply-accumulates of the shape over the tensor core's rate
// for the input type.
uint32_t tensor_cycles(const ptx::Instruction& ins, const config::Machine& m) {
  uint64_t fma = uint64_t(ins.shape.m) * ins.shape.n * ins.shape.k;
  if (!fma) fma = 16 * 16 * 16;
  // The A/B input type picks the tensor core's rate (wmma.mma names layouts first, then types).
  uint32_t rate = m.tensor_fma_f16;
  if (ins.has(Mod::tf32)) rate = m.tensor_fma_tf32;
  else if (ins.has(Mod::s8) || ins.has(Mod::u8) || ins.has(Mod::e4m3) || ins.has(Mod::e5m2)) rate = m.tensor_fma_i8;
  else if (ins.has(Mod::s4) || ins.has(Mod::u4)) rate = m.tensor_fma_i4;
  else if (ins.has(Mod::b1)) rate = m.tensor_fma_b1;
  else if (ins.has(Mod::f64) && !ins.has(Mod::f16) && !ins.has(Mod::bf16)) rate = m.tensor_fma_f64;
  // mma.m8n8k4 with .f16 inputs is four 8x8x4 products, one per quad pair (PTX ISA 9.7.14.5.1).
  if (ins.op == Opcode::Mma && ins.shape.m == 8 && ins.shape.n == 8 && ins.shape.k == 4 && ins.has(Mod::f16)) fma *= 4;
  // Sparse tensor cores skip the zero half of A: an MxNxK mma.sp costs a dense MxNx(K/2)
  // (A100 whitepaper: "the A100 Sparse Tensor Core doubles math throughput by skipping the zeros").
  if (ins.has(Mod::sp) || ins.has(Mod::sp_ordered_metadata)) fma /= 2;
  // A wgmma's 64 rows are the warpgroup's: each warp drives its own sub-core's tensor core with its
  // 16 rows (PTX ISA 9.7.15: warp q of the group owns rows 16q..16q+15 of D), so one warp's share
  // is a quarter of the shape, and the four sub-cores run in parallel.
  if (ins.op == Opcode::WgmmaMmaAsync) fma /= 4;
  if (!rate) rate = m.tensor_fma_f16 ? m.tensor_fma_f16 : 64;
  // A sub-core drives its own tensor cores (Volta: two per sub-core, [VS]; Ampere/Hopper: one).
  rate *= std::max<uint32_t>(1, m.tensor_cores_per_sm / std::max<uint32_t>(1, m.sub_cores));
  // The warp-synchronous forms may hold the pipe longer than their shape needs (Hopper runs them
  // below its wgmma rate).
  const uint64_t extra = ins.op == Opcode::WgmmaMmaAsync ? 0 : m.tensor_sync_overhead;
  return uint32_t(std::max<uint64_t>(1, (fma + rate - 1) / rate + extra));
}

// An mma of an input type the machine's tensor cores lack (config::Machine::MmaEmulation): ptxas
// calls a subroutine of integer and smaller-type mma instructions for it (sm_90 SASS of
// validation/tensor/mma_bench.cu: IMMA.16832.S8/U8 for .s4/.u4, BMMA AND.POPC plus ALU for .b1
// xor). Its warp runs that code serially, so the warp holds for the measured latency; the code's
// instructions take the sub-core's issue cycles, so the pipe stays busy for the measured cycles.
// Measured shapes: m16n8k64 (.s4/.u4), m16n8k256 (.b1); others scale with their multiply-adds.
void emulated_mma(const ptx::Instruction& ins, const config::Machine& m, InstrTiming& t) {
  const config::Machine::MmaEmulation* e = nullptr;
  uint64_t measured = 16 * 8 * 64;
  if (ins.has(Mod::s4)) e = &m.tensor_emulated_s4;
  else if (ins.has(Mod::u4)) e = &m.tensor_emulated_u4;
  else if (ins.has(Mod::b1) && ins.has(Mod::xor_)) e = &m.tensor_emulated_b1_xor, measured = 16 * 8 * 256;
  if (!e || (!e->latency && !e->cycles)) return;
  uint64_t fma = uint64_t(ins.shape.m) * ins.shape.n * ins.shape.k;
  if (!fma) fma = measured;
  auto scale = [&](uint32_t v) { return uint32_t(std::max<uint64_t>(1, (uint64_t(v) * fma + measured / 2) / measured)); };
  t.pipe_cycles = scale(e->cycles);
  t.latency = std::max(t.pipe_cycles, scale(e->latency));
  t.hold = t.latency;
}

unsigned access_bytes(const ptx::Instruction& ins) {
  unsigned vec = 1;
  if (ins.has(Mod::v2)) vec = 2;
  if (ins.has(Mod::v4)) vec = 4;
  if (ins.has(Mod::v8)) vec = 8;
  unsigned sz = ptx::type_size(first_type(ins));
  return std::max(1u, sz * vec);
}


// 32-bit integer adds that ptxas merges into a three-input IADD3 (sm_70 and later): our
// cuobjdump of validation/mem/bandwidth.cu (sm_80 and sm_90) shows `acc += v.x + v.y + v.z + v.w`,
// four dependent add.s32 in the PTX, as two IADD3. An add (or sub) whose result is read once, by
// the next add of a chain in the same basic block, is merged into that reader; the reader then has
// three inputs and takes no further producer. Returns, per PTX instruction, whether it is merged.
bool is_add32(const ptx::Instruction& ins) {
  if (ins.op != Opcode::Add && ins.op != Opcode::Sub) return false;
  if (ins.has(Mod::sat) || ins.has(Mod::cc) || ins.has_guard) return false;
  Type t = first_type(ins);
  return t == Type::S32 || t == Type::U32 || t == Type::B32;
}

std::vector<char> merged_adds(const ptx::Function& f) {
  const size_t n = f.instrs.size();
  std::vector<char> merged(n, 0), absorbs(n, 0), leader(n + 1, 0);
  for (const ptx::Label& l : f.labels)
    if (l.instr < n) leader[l.instr] = 1;
  std::vector<uint32_t> reads(f.regs.size(), 0), writes(f.regs.size(), 0);
  auto count = [&](auto&& self, const ptx::Operand& o, bool dst) -> void {
    using K = ptx::Operand::Kind;
    if (o.kind == K::Reg && o.reg < reads.size()) ++(dst ? writes : reads)[o.reg];
    for (auto& e : o.elems) self(self, e, dst && (o.kind == K::Vector || o.kind == K::Pair));
  };
  for (const ptx::Instruction& ins : f.instrs) {
    if (ins.has_guard && ins.guard_reg < reads.size()) ++reads[ins.guard_reg];
    const bool first_dst = ptx::writes_first_operand(ins.op);
    for (size_t i = 0; i < ins.operands.size(); ++i)
      count(count, ins.operands[i], first_dst && i == 0 && ins.operands[i].kind != ptx::Operand::Kind::Address);
  }
  for (size_t i = 0; i < n; ++i) {
    const ptx::Instruction& a = f.instrs[i];
    if (!is_add32(a) || absorbs[i] || a.operands.empty() || a.operands[0].kind != ptx::Operand::Kind::Reg) continue;
    const uint32_t d = a.operands[0].reg;
    if (d >= reads.size() || reads[d] != 1 || writes[d] != 1) continue;
    // Its one reader, later in the same basic block.
    for (size_t j = i + 1; j < n && !leader[j]; ++j) {
      const ptx::Instruction& b = f.instrs[j];
      bool reads_d = false;
      for (size_t k = 1; k < b.operands.size(); ++k)
        if (b.operands[k].kind == ptx::Operand::Kind::Reg && b.operands[k].reg == d) reads_d = true;
      if (reads_d) {
        if (is_add32(b) && !absorbs[j] && !merged[j]) {
          merged[i] = 1;
          absorbs[j] = 1;
        }
        break;
      }
      if (b.op == Opcode::Bra || b.op == Opcode::BrxIdx || b.op == Opcode::Ret || b.op == Opcode::Exit ||
          b.op == Opcode::Call)
        break;
    }
  }
  return merged;
}
}  // namespace

OpClass classify(const ptx::Instruction& ins) {
  Type t = first_type(ins);
  switch (ins.op) {
    case Opcode::Add: case Opcode::Sub: case Opcode::Min: case Opcode::Max: case Opcode::Abs: case Opcode::Neg:
    case Opcode::Set: case Opcode::Setp: case Opcode::Selp: case Opcode::Slct: case Opcode::Copysign:
    case Opcode::Testp:
      return arith_class(ins);
    case Opcode::Fma:
      return arith_class(ins);
    case Opcode::Mul:
    case Opcode::Mad:
      if (is_float(t)) return arith_class(ins);
      if (ins.has(Mod::wide) || ins.has(Mod::hi) || t == Type::S64 || t == Type::U64 || t == Type::B64)
        return OpClass::IntWide;
      return OpClass::Imad;
    case Opcode::Mul24: case Opcode::Mad24: case Opcode::Sad: case Opcode::Dp4a: case Opcode::Dp2a:
      return OpClass::Imad;
    case Opcode::Addc: case Opcode::Subc: return OpClass::Int;
    case Opcode::Madc: return OpClass::IntWide;
    case Opcode::Div:
    case Opcode::Rem:
      if (t == Type::F64) return OpClass::Fp64Div;
      if (t == Type::F32) {
        if (ins.has(Mod::approx)) return OpClass::FdivApprox;
        return ins.has(Mod::full) ? OpClass::FdivFull : OpClass::Fdiv;
      }
      // ptxas divides 64-bit integers in a subroutine whatever the divisor; a 32-bit divisor it
      // knows needs no reciprocal computed at run time (I2F, MUFU.RCP, F2I), only the multiply by
      // the precomputed one and its corrections (validation/sm/expand.cu: div_u32_imm).
      if (t == Type::S64 || t == Type::U64 || t == Type::B64) return OpClass::IntDiv64;
      if (ins.operands.size() > 2 && ins.operands[2].kind == ptx::Operand::Kind::Imm) return OpClass::IntDivImm;
      return OpClass::IntDiv;
    case Opcode::Rcp:
      if (t == Type::F64) return ins.has(Mod::approx) ? OpClass::Mufu : OpClass::Fp64Div;
      return ins.has(Mod::approx) ? OpClass::Mufu : OpClass::Fdiv;
    case Opcode::Sqrt:
      if (t == Type::F64) return ins.has(Mod::approx) ? OpClass::Mufu : OpClass::Fp64Div;
      // sqrt.approx.f32 is MUFU.SQRT with denormal fix-ups around it (4 SASS on sm_90), like
      // div.approx; with .ftz ptxas emits little more than the MUFU.SQRT
      if (ins.has(Mod::approx)) return ins.has(Mod::ftz) ? OpClass::Mufu : OpClass::FdivApprox;
      return OpClass::Fdiv;
    case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh:
      return OpClass::Mufu;
    case Opcode::Popc: case Opcode::Clz: case Opcode::Brev: case Opcode::Bfind: case Opcode::Fns:
      return OpClass::BitCount;
    case Opcode::Cvt: {
      auto ts = ins.types();
      bool f0 = is_float(ts[0]), f1 = is_float(ts[1]);
      if (ts[0] == Type::F64 || ts[1] == Type::F64) return OpClass::Conv;
      if (f0 != f1) return OpClass::Conv;       // float <-> integer
      if (f0 && f1 && ts[0] != ts[1]) return (is_f16(ts[0]) || is_f16(ts[1])) ? OpClass::Fp16 : OpClass::Fp32;
      if (f0) return OpClass::Fp32;             // rounding to an integral float (frnd)
      return OpClass::Int;                      // integer widening/narrowing
    }
    case Opcode::Mov:
      for (auto& o : ins.operands)
        if (o.kind == ptx::Operand::Kind::SpecialReg) return OpClass::Sreg;
      return OpClass::Int;
    case Opcode::Shfl: return OpClass::Shfl;
    case Opcode::Vote: case Opcode::Activemask: case Opcode::Elect: return OpClass::Vote;
    case Opcode::Match: return OpClass::Match;
    case Opcode::Redux: return OpClass::Redux;
    case Opcode::Ld: case Opcode::Ldu:
      switch (space(ins)) {
        case Where::Shared: return OpClass::LdShared;
        case Where::Local: return OpClass::LdLocal;
        case Where::Const: return OpClass::LdConst;
        case Where::Param: return OpClass::LdParam;
        default: return OpClass::LdGlobal;
      }
    case Opcode::St:
      switch (space(ins)) {
        case Where::Shared: return OpClass::StShared;
        case Where::Local: return OpClass::StLocal;
        case Where::Param: return OpClass::Nop;  // st.param: call arguments live in registers in SASS
        default: return OpClass::StGlobal;
      }
    case Opcode::Atom: case Opcode::Red:
      return space(ins) == Where::Shared ? OpClass::AtomShared : OpClass::AtomGlobal;
    case Opcode::Ldmatrix: return OpClass::LdShared;
    case Opcode::Stmatrix: return OpClass::StShared;
    // Global line operations go through the LSU to L2: a prefetch as a load without a result,
    // discard and applypriority as stores (an acknowledgement, no data).
    case Opcode::Prefetch:
      if (ins.has(Mod::tensormap) || (space(ins) != Where::Global && space(ins) != Where::Generic)) return OpClass::Nop;
      return OpClass::LdGlobal;
    case Opcode::Applypriority: case Opcode::Discard:
      return space(ins) == Where::Global || space(ins) == Where::Generic ? OpClass::StGlobal : OpClass::Nop;
    case Opcode::Prefetchu:
      return OpClass::Nop;
    case Opcode::Tex: case Opcode::Tld4: case Opcode::Suld: case Opcode::Sust: case Opcode::Sured:
      return OpClass::Tex;
    case Opcode::CpAsync: case Opcode::CpAsyncBulk: case Opcode::CpAsyncBulkTensor:
    case Opcode::CpReduceAsyncBulkTensor: case Opcode::CpAsyncBulkPrefetchTensor:
      return OpClass::CpAsync;
    case Opcode::CpAsyncCommitGroup: case Opcode::CpAsyncWaitGroup: case Opcode::CpAsyncWaitAll:
    case Opcode::CpAsyncMbarrierArrive: case Opcode::MbarrierInit: case Opcode::MbarrierInval:
    case Opcode::MbarrierExpectTx: case Opcode::MbarrierCompleteTx: case Opcode::MbarrierArrive:
    case Opcode::MbarrierArriveDrop: case Opcode::MbarrierTestWait: case Opcode::MbarrierTryWait:
    case Opcode::MbarrierPendingCount: case Opcode::CpAsyncBulkCommitGroup: case Opcode::CpAsyncBulkWaitGroup:
      return OpClass::Mbarrier;
    case Opcode::Mma: case Opcode::WmmaMma: case Opcode::WgmmaMmaAsync: return OpClass::Tensor;
    // wgmma.fence/commit_group/wait_group: an issue slot; the wait's hold is Sm::wgmma_issue's.
    case Opcode::WgmmaFence: case Opcode::WgmmaCommitGroup: case Opcode::WgmmaWaitGroup: return OpClass::Nop;
    case Opcode::WmmaLoad: {
      return space(ins) == Where::Shared ? OpClass::LdShared : OpClass::LdGlobal;
    }
    case Opcode::WmmaStore: return space(ins) == Where::Shared ? OpClass::StShared : OpClass::StGlobal;
    case Opcode::Movmatrix: return OpClass::Shfl;
    case Opcode::Bra: case Opcode::BrxIdx: return OpClass::Branch;
    case Opcode::Call: case Opcode::Ret: return OpClass::Call;
    case Opcode::Exit: return OpClass::Exit;
    case Opcode::Bar: case Opcode::Barrier:
      if (ins.has(Mod::warp)) return OpClass::Nop;  // bar.warp.sync
      return OpClass::Barrier;
    case Opcode::Membar: case Opcode::Fence:
      // A proxy fence (fence.proxy.async before a bulk copy reads or overwrites shared memory that
      // ordinary accesses touched) orders the SM's own proxies and waits for no memory operation:
      // on the H100 it adds ~25 cycles to a loop iteration of bulk copies (validation/mem/
      // h100_bulk_measured.csv, run 2/3 _v1 rows), not a membar's wait; it is timed as an mbarrier
      // operation (an MIO issue, no hold).
      if (ins.has(Mod::proxy)) return OpClass::Mbarrier;
      return OpClass::Membar;
    case Opcode::Isspacep: case Opcode::Cvta: case Opcode::Prmt: case Opcode::Bfe: case Opcode::Bfi:
    case Opcode::Lop3: case Opcode::Shf: case Opcode::Shl: case Opcode::Shr: case Opcode::And: case Opcode::Or:
    case Opcode::Xor: case Opcode::Not: case Opcode::Cnot: case Opcode::Szext: case Opcode::Bmsk:
    case Opcode::Createpolicy:
      return OpClass::Int;
    default:
      return OpClass::Int;
  }
}

namespace {
// How many times each register of a function is named (as destination, source or guard).
void count_mentions(const ptx::Operand& o, std::vector<uint32_t>& n) {
  if (o.kind == ptx::Operand::Kind::Reg && o.reg < n.size()) ++n[o.reg];
  for (const ptx::Operand& e : o.elems) count_mentions(e, n);
}
// Which registers hold the same value in every lane of a warp, as far as a compiler can prove it:
// derived only from kernel parameters, constants, symbols and the CTA/grid special registers
// through plain arithmetic. Everything else (thread ids, loads, atomics, calls) is per lane.
bool uniform_sreg(ptx::SReg r) {
  using ptx::SReg;
  switch (r) {
    case SReg::Ntid: case SReg::Ctaid: case SReg::Nctaid: case SReg::Nsmid: case SReg::Gridid: case SReg::WarpSz:
    case SReg::Clusterid: case SReg::Nclusterid: case SReg::ClusterCtaid: case SReg::ClusterNctaid:
    case SReg::ClusterCtarank: case SReg::ClusterNctarank: return true;
    default: return false;
  }
}
bool uniform_operand(const ptx::Operand& o, const std::vector<char>& u) {
  using K = ptx::Operand::Kind;
  switch (o.kind) {
    case K::Reg: return o.reg < u.size() && u[o.reg];
    case K::SpecialReg: return uniform_sreg(o.sreg);
    case K::Imm: case K::F32: case K::F64: case K::Symbol: return true;
    case K::Address: case K::Vector: case K::Pair:
      for (const ptx::Operand& e : o.elems)
        if (!uniform_operand(e, u)) return false;
      return true;
    default: return false;
  }
}
void mark_defined(const ptx::Operand& o, bool uniform, std::vector<char>& u, bool& changed) {
  using K = ptx::Operand::Kind;
  if (o.kind == K::Reg && o.reg < u.size() && u[o.reg] && !uniform) u[o.reg] = 0, changed = true;
  if (o.kind == K::Vector || o.kind == K::Pair || o.kind == K::CallList)
    for (const ptx::Operand& e : o.elems) mark_defined(e, uniform, u, changed);
}
std::vector<char> uniform_registers(const ptx::Function& f) {
  using ptx::Opcode;
  std::vector<char> u(f.regs.size(), 1);
  for (bool changed = true; changed;) {
    changed = false;
    for (const ptx::Instruction& ins : f.instrs) {
      if (ins.operands.empty()) continue;
      const ptx::Operand& d = ins.operands[0];
      if (ins.op == Opcode::Call) {  // return values come from another function
        mark_defined(d, false, u, changed);
        continue;
      }
      if (d.kind != ptx::Operand::Kind::Reg && d.kind != ptx::Operand::Kind::Vector && d.kind != ptx::Operand::Kind::Pair)
        continue;  // stores, reductions, branches: no register written
      bool pure = false;
      switch (ins.op) {
        case Opcode::Mov: case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Shl:
        case Opcode::Shr: case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Not: case Opcode::Neg:
        case Opcode::Min: case Opcode::Max: case Opcode::Cvt: case Opcode::Cvta: case Opcode::Selp: case Opcode::Setp:
          pure = true;
          break;
        case Opcode::Ld: pure = ins.has(Mod::param) || ins.has(Mod::const_); break;
        default: break;
      }
      bool uniform = pure && (!ins.has_guard || (ins.guard_reg < u.size() && u[ins.guard_reg]));
      for (size_t i = 1; uniform && i < ins.operands.size(); ++i) uniform = uniform_operand(ins.operands[i], u);
      mark_defined(d, uniform, u, changed);
    }
  }
  return u;
}

// ld.const of a fixed address (a symbol plus an offset, no register) whose value only arithmetic
// reads: ptxas passes such a value as a constant-bank operand of each reader (stencil2d's nine
// filter taps `ld.const.f32 [c_coef+k]` are `FFMA R, R, c[0x3][k], R` in the sm_90 SASS,
// validation/workloads/probes/constfold_sm90_sass.txt), so there is no LDC to wait for. Returns,
// per PTX instruction, whether it is such a load.
bool operand_reader(ptx::Opcode op) {
  using ptx::Opcode;
  switch (op) {
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Fma:
    case Opcode::Min: case Opcode::Max: case Opcode::Setp: case Opcode::Selp: case Opcode::And:
    case Opcode::Or: case Opcode::Xor: case Opcode::Mov:
      return true;
    default:
      return false;
  }
}
std::vector<char> folded_const_loads(const ptx::Function& f) {
  using K = ptx::Operand::Kind;
  const size_t n = f.instrs.size();
  std::vector<char> folded(n, 0);
  std::vector<uint32_t> writes(f.regs.size(), 0);
  std::vector<char> other_reader(f.regs.size(), 0);
  auto reads = [&](auto&& self, const ptx::Operand& o, bool ok) -> void {
    if (o.kind == K::Reg && o.reg < other_reader.size() && !ok) other_reader[o.reg] = 1;
    // A register inside an address is an address part: no constant operand can stand there.
    for (auto& e : o.elems) self(self, e, ok && o.kind != K::Address);
  };
  for (const ptx::Instruction& ins : f.instrs) {
    const bool first_dst = ptx::writes_first_operand(ins.op);
    if (ins.has_guard && ins.guard_reg < other_reader.size()) other_reader[ins.guard_reg] = 1;
    for (size_t i = 0; i < ins.operands.size(); ++i) {
      const ptx::Operand& o = ins.operands[i];
      if (first_dst && i == 0 && o.kind == K::Reg) {
        if (o.reg < writes.size()) ++writes[o.reg];
        continue;
      }
      reads(reads, o, operand_reader(ins.op) && !ins.has_guard);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const ptx::Instruction& ins = f.instrs[i];
    if (ins.op != Opcode::Ld || !ins.has(Mod::const_) || ins.has_guard || ins.operands.size() != 2) continue;
    const ptx::Operand& d = ins.operands[0];
    const ptx::Operand& a = ins.operands[1];
    if (d.kind != K::Reg || d.reg >= writes.size() || writes[d.reg] != 1 || other_reader[d.reg]) continue;
    bool fixed = a.kind == K::Address;
    for (auto& e : a.elems) fixed &= e.kind == K::Symbol || e.kind == K::Imm;
    folded[i] = fixed;
  }
  return folded;
}

// A per-function analysis, run on a function's first instruction that needs it.
template <class T>
struct PerFunction {
  std::vector<T> value;
  std::vector<char> done;
  explicit PerFunction(size_t n) : value(n), done(n, 0) {}
  template <class Make>
  const T& get(size_t fn, Make&& make) {
    if (!done[fn]) value[fn] = make(), done[fn] = 1;
    return value[fn];
  }
};

std::vector<uint32_t> register_mentions(const ptx::Function& f) {
  std::vector<uint32_t> n(f.regs.size(), 0);
  for (const ptx::Instruction& ins : f.instrs) {
    if (ins.has_guard && ins.guard_reg < n.size()) ++n[ins.guard_reg];
    for (const ptx::Operand& o : ins.operands) count_mentions(o, n);
  }
  return n;
}
}  // namespace

std::vector<InstrTiming> classify_program(const func::Program& prog, const config::Machine& m) {
  std::vector<InstrTiming> out(prog.code.size());
  // Per function, on first need: register mentions (an atom whose result is never read), the
  // warp-uniform registers (aggregated atomics), the adds merged into IADD3s.
  PerFunction<std::vector<uint32_t>> mentions(prog.funcs.size());
  PerFunction<std::vector<char>> uniform(prog.funcs.size()), merged(prog.funcs.size()), folded(prog.funcs.size());
  for (size_t pc = 0; pc < prog.code.size(); ++pc) {
    const func::DInstr& d = prog.code[pc];
    if (!d.exec || d.func >= prog.funcs.size()) continue;
    const func::DFunction& f = prog.funcs[d.func];
    if (!f.src || d.src_index >= f.src->instrs.size()) continue;
    const ptx::Instruction& ins = f.src->instrs[d.src_index];
    InstrTiming& t = out[pc];
    t.cls = classify(ins);
    set_class_timing(t, m);
    if (t.pipe == Pipe::Mio || t.pipe == Pipe::Lsu) {
      // One wavefront moves 32 lanes x 4 bytes through the shared-memory banks / L1 data path.
      unsigned bytes = access_bytes(ins);
      t.bytes = uint8_t(std::min(255u, bytes));
      uint32_t per_wave = m.shared_banks * m.shared_bank_bytes;
      if (t.cls == config::OpClass::LdShared || t.cls == config::OpClass::StShared ||
          t.cls == config::OpClass::LdGlobal || t.cls == config::OpClass::StGlobal ||
          t.cls == config::OpClass::LdLocal || t.cls == config::OpClass::StLocal)
        t.pipe_cycles = std::max<uint32_t>(t.pipe_cycles, div_up(32 * bytes, per_wave ? per_wave : 128));
    }
    switch (t.cls) {
      case config::OpClass::LdGlobal: case config::OpClass::LdLocal: case config::OpClass::Tex:
      case config::OpClass::CpAsync: {
        // The TMA unit's (bulk and tensor copies, tensor prefetches), not L1's (no L1 lookup or
        // allocation).
        if (ins.op == Opcode::CpAsyncBulk || ins.op == Opcode::CpAsyncBulkTensor ||
            ins.op == Opcode::CpReduceAsyncBulkTensor || ins.op == Opcode::CpAsyncBulkPrefetchTensor) {
          t.bulk |= kBulkCopy;
          if (ins.has(Mod::L2_evict_first)) t.mem |= kMemEvictFirst;
          break;
        }
        // Global loads are cached in L1 by default on cc 7.0+; .cg caches in L2 only, .cv and
        // .volatile fetch again; .cs/.lu stream (evict first); L1::no_allocate looks up only.
        bool bypass = ins.has(Mod::cg) || ins.has(Mod::cv) || ins.has(Mod::volatile_);
        if (!bypass) t.mem |= kMemL1Lookup | kMemL1Allocate;
        if (ins.has(Mod::L1_no_allocate)) t.mem &= uint8_t(~kMemL1Allocate);
        // prefetch.L2 (and its .L2::evict_* forms) reaches L2 only.
        if (ins.op == Opcode::Prefetch && !ins.has(Mod::L1)) t.mem &= uint8_t(~(kMemL1Lookup | kMemL1Allocate));
        if (ins.has(Mod::cs) || ins.has(Mod::lu) || ins.has(Mod::L1_evict_first) || ins.has(Mod::L2_evict_first))
          t.mem |= kMemEvictFirst;
        break;
      }
      case config::OpClass::StGlobal: case config::OpClass::StLocal:
        if (ins.has(Mod::cs) || ins.has(Mod::L2_evict_first)) t.mem |= kMemEvictFirst;
        break;
      case config::OpClass::AtomGlobal:
        if (ins.op == Opcode::Atom) {
          // ptxas turns an atom whose result nothing reads into a red (nvcc's PTX for an
          // atomicAdd whose value is unused is such an atom; the H100's SASS of
          // validation/mem/probes/atomics.cu has RED there): no value comes back, nothing waits.
          // PTX registers named only by the atom itself are never read.
          bool dead = !ins.operands.empty() && ins.operands[0].kind == ptx::Operand::Kind::Sink;
          if (!ins.operands.empty() && ins.operands[0].kind == ptx::Operand::Kind::Reg) {
            const auto& n = mentions.get(d.func, [&] { return register_mentions(*f.src); });
            dead = ins.operands[0].reg < n.size() && n[ins.operands[0].reg] == 1;
          }
          if (!dead) t.mem |= kMemReturns;
        }
        {
          // ptxas aggregates a warp's 32-bit integer atomic adds to one address it can prove is
          // the same for the warp (CUDA 9+ "warp-aggregated atomics"): one lane adds the warp's
          // sum. The H100 shows it: every thread adding 1 to a kernel-parameter address reaches
          // 19.4 lane operations per clock (validation/mem/h100_atomics_measured.csv), the same
          // adds to an address the compiler cannot prove uniform 0.7, one request per lane at
          // one slice (h100_atomics_shape_measured.csv, ncu in h100_atomics_shape2_ncu.txt).
          const auto ty = ins.types()[0];
          const bool int32 = ty == ptx::Type::U32 || ty == ptx::Type::S32;
          const size_t a = ins.op == Opcode::Atom ? 1 : 0;
          if (ins.has(Mod::add) && int32 && a < ins.operands.size()) {
            t.aggregated = uniform_operand(ins.operands[a], uniform.get(d.func, [&] { return uniform_registers(*f.src); }));
          }
        }
        break;
      case config::OpClass::Mbarrier:
        if (ins.op == Opcode::CpAsyncBulkCommitGroup) t.bulk |= kBulkCommit;
        if (ins.op == Opcode::CpAsyncBulkWaitGroup) {
          t.bulk |= kBulkWait | (ins.has(Mod::read) ? kBulkWaitRead : 0);
          if (!ins.operands.empty() && ins.operands[0].kind == ptx::Operand::Kind::Imm)
            t.wait_groups = uint8_t(std::clamp<int64_t>(ins.operands[0].ival, 0, 255));
        }
        if (ins.op == Opcode::CpAsyncWaitGroup || ins.op == Opcode::CpAsyncWaitAll) t.mem |= kMemAsyncWait;
        if (ins.op == Opcode::CpAsyncCommitGroup || ins.op == Opcode::CpAsyncWaitAll) t.mem |= kMemAsyncCommit;
        if (ins.op == Opcode::CpAsyncWaitGroup && !ins.operands.empty() &&
            ins.operands[0].kind == ptx::Operand::Kind::Imm)
          t.wait_groups = uint8_t(std::clamp<int64_t>(ins.operands[0].ival, 0, 255));
        if (ins.op == Opcode::CpAsyncMbarrierArrive) t.mem |= kMemAsyncArrive;
        if (ins.op == Opcode::MbarrierTestWait || ins.op == Opcode::MbarrierTryWait) t.mem |= kMemBarrierWait;
        break;
      default: break;
    }
    if (t.cls == config::OpClass::Tensor) {
      t.pipe_cycles = tensor_cycles(ins, m);
      t.latency = t.pipe_cycles + m.tensor_latency;
      if (ins.op == Opcode::WgmmaMmaAsync)
        t.latency = t.pipe_cycles + m.tensor_wgmma_latency +
                    (m.tensor_wgmma_n_per_cycle ? ins.shape.n / m.tensor_wgmma_n_per_cycle : 0);
      emulated_mma(ins, m, t);
    }
    if (ins.op == Opcode::WgmmaMmaAsync) t.wgmma |= kWgmmaMma;
    if (ins.op == Opcode::WgmmaCommitGroup) t.wgmma |= kWgmmaCommit;
    if (ins.op == Opcode::WgmmaWaitGroup) {
      t.wgmma |= kWgmmaWait;
      if (!ins.operands.empty() && ins.operands[0].kind == ptx::Operand::Kind::Imm)
        t.wait_groups = uint8_t(std::clamp<int64_t>(ins.operands[0].ival, 0, 255));
    }
    // Device printf: vprintf is a call into the driver's own code, which the model does not run
    // (the functional engine formats the line at once). Its cost is one measured figure: the warp
    // issues nothing more for sm.latency.printf cycles after the call.
    if (t.cls == config::OpClass::Call && ins.op == Opcode::Call && d.target < prog.call_sites.size() &&
        prog.call_sites[d.target].builtin == func::CallSite::Vprintf)
      t.hold = m.printf_latency;
    // A fence of CTA scope (membar.cta, fence.sc/acq_rel.cta: MEMBAR.SC.CTA in the H100's SASS)
    // orders the warp's accesses inside its SM: on the H100 it costs a warp 12 cycles where
    // membar.gl waits ~670 for the memory system (validation/libtime/probes/membar.cu). cub's
    // decoupled look-back spins on one (radix-sort onesweep, scan).
    if (t.cls == config::OpClass::Membar && ins.has(Mod::cta) && m.membar_cta_latency)
      t.latency = m.membar_cta_latency;
    // barrier.sync without .aligned may be reached by part of a warp: ptxas guards its BAR.SYNC
    // with BRA.DIV, and a divergent warp takes a WARPSYNC.COLLECTIVE sequence instead
    // (validation/workloads/probes/divsync.cu). The SM applies the cost only where the lanes that
    // arrive are not all of the warp's live lanes.
    if (t.cls == config::OpClass::Barrier && ins.op == Opcode::Barrier && ins.has(Mod::cluster))
      t.cluster = ins.has(Mod::arrive) ? kClusterArrive : kClusterWait;
    else if (t.cls == config::OpClass::Barrier && ins.op == Opcode::Barrier && !ins.has(Mod::aligned) &&
             !ins.has(Mod::arrive))
      t.hold = m.barrier_divergent_latency;
    // An add merged into its reader's IADD3 takes an issue slot here (the PTX instruction still
    // runs) but neither pipe time nor latency: the reader is the one SASS instruction.
    if (t.cls == config::OpClass::Int && is_add32(ins)) {
      if (merged.get(d.func, [&] { return merged_adds(*f.src); })[d.src_index]) {
        t.pipe_cycles = 0;
        t.latency = 1;
      }
    }
    // A constant its readers take as a constant-bank operand is timed as ld.param is (the kernel
    // parameters are constant-bank operands too, ops.ld_param): no LDC, no constant-cache access.
    if (t.cls == config::OpClass::LdConst && folded.get(d.func, [&] { return folded_const_loads(*f.src); })[d.src_index]) {
      t.cls = config::OpClass::LdParam;
      set_class_timing(t, m);
      t.bytes = 0;
    }
    // Register dependencies.
    DepCollector dc{f, {}, {}};
    if (ins.has_guard) dc.add(dc.src, ins.guard_reg);
    bool first_dst = ptx::writes_first_operand(ins.op);
    for (size_t i = 0; i < ins.operands.size(); ++i) {
      const ptx::Operand& o = ins.operands[i];
      bool is_dst = first_dst && i == 0 && o.kind != ptx::Operand::Kind::Address;
      dc.walk(o, is_dst);
    }
    // atom/red/mbarrier with a destination also read the address; call lists are handled above.
    // wgmma.mma_async is asynchronous: its accumulators are the warp's again at wgmma.wait_group
    // (which holds the warp until then), and a chain of wgmmas on the same accumulators runs back
    // to back in the tensor core, so it sets no scoreboard on them.
    if (t.wgmma & kWgmmaMma) dc.dst.clear();
    t.nsrc = uint8_t(std::min<size_t>(dc.src.size(), InstrTiming::kMaxDeps));
    t.ndst = uint8_t(std::min<size_t>(dc.dst.size(), InstrTiming::kMaxDeps));
    std::copy_n(dc.src.begin(), t.nsrc, t.src.begin());
    std::copy_n(dc.dst.begin(), t.ndst, t.dst.begin());
  }
  return out;
}

}  // namespace warpsim::timing
