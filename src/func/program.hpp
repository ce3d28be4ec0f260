// A PTX module decoded once for execution: every instruction becomes a DInstr with its handler
// chosen at decode time (opcode, types and modifiers resolved), operands as register slots, branch
// targets as code indices. Nothing is looked up by name while a kernel runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::func {

constexpr unsigned kWarpSize = 32;

// An operand reference. Registers and broadcast constants are lane arrays of 64-bit values (a 32-bit
// value lives in the low half, zero-extended by writers); predicates are one 32-bit lane mask.
struct Ref {
  enum Kind : uint32_t { Reg = 0, Const = 1, Pred = 2, None = 3 };
  uint32_t bits = None << 30;

  static Ref reg(uint32_t slot) { return Ref{slot}; }
  static Ref cnst(uint32_t slot) { return Ref{(uint32_t(Const) << 30) | slot}; }
  static Ref pred(uint32_t idx, bool negated = false) {
    return Ref{(uint32_t(Pred) << 30) | (negated ? 1u << 29 : 0u) | idx};
  }
  static Ref none() { return Ref{}; }
  Kind kind() const { return Kind(bits >> 30); }
  bool negated() const { return bits & (1u << 29); }
  uint32_t index() const { return bits & ((1u << 29) - 1); }
  bool is_none() const { return kind() == None; }
};

struct ExecCtx;
struct DInstr;
// A handler executes one warp instruction for the lanes in `mask` (active lanes whose guard holds).
using Handler = void (*)(ExecCtx& ctx, const DInstr& in, uint32_t mask);

struct DInstr {
  Handler exec = nullptr;
  uint8_t nops = 0;      // operands used in op[] (or in the extra pool when more than kInline)
  uint8_t type = 0;      // ptx::Type of the instruction (first type modifier), family-specific use
  uint8_t type2 = 0;     // second type modifier (cvt source, mul.wide source, ...)
  uint8_t width = 0;     // vector width (1, 2, 4, 8) or access size, family-specific
  uint32_t flags = 0;    // family-specific: rounding mode, ftz, sat, compare op, space, ...
  Ref guard;             // predicate guard (Ref::none() if unguarded)
  static constexpr unsigned kInline = 6;
  Ref op[kInline];       // operands in PTX order, vectors flattened (see vec_*), unless extra != 0
  uint32_t extra = 0;    // index+1 into Program::extra_ops when operands don't fit inline
  int64_t imm = 0;       // immediate payload: address offset, branch target, shuffle constant, ...
  int64_t imm2 = 0;
  uint32_t target = 0;   // branch/call target (code index) or symbol/function index
  uint8_t member_op = 0xff;  // warp-synchronous: operand holding the member mask (engine splits by it)
  uint32_t src_index = 0;  // index of the ptx::Instruction in its function (for reports)
  uint32_t func = 0;       // index of the DFunction this instruction belongs to
};

// Where a PTX symbol lives once the module is loaded.
struct SymbolAddr {
  enum Space : uint8_t { Global, Const, Shared, Local, KernelParam, FuncParam, Function } space;
  uint64_t addr = 0;  // device address, shared offset, local frame offset, param offset, or function index
};

struct DFunction {
  std::string name;
  bool is_entry = false;
  uint32_t entry_pc = 0;        // first instruction in Program::code
  uint32_t end_pc = 0;          // one past the last
  uint32_t reg_base = 0;        // first register slot of this function
  uint32_t nregs = 0;           // register slots (64-bit lane arrays)
  uint32_t pred_base = 0, npreds = 0;
  // Entry: the register slots a warp of this kernel can touch, [window_lo, window_hi): its own,
  // its callees', its special registers (Warp::reg).
  uint32_t window_lo = 0, window_hi = 0;
  // Entry: the special registers a warp of this kernel materialises at start, (SpecialSlot, slot).
  std::vector<std::pair<uint8_t, uint32_t>> specials;
  uint32_t local_frame = 0;     // bytes of .local variables per activation
  uint32_t param_frame = 0;     // bytes of this function's .param variables (params, rets, call-site params)
  std::vector<uint32_t> param_offsets;  // offset of each parameter in the param frame
  std::vector<uint32_t> ret_offsets;
  std::vector<uint32_t> param_sizes, ret_sizes;
  uint32_t param_base = 0;      // where its param frame starts in each lane's param area
  uint64_t static_shared = 0;   // entry: bytes of static .shared used by it and its callees
  std::vector<uint32_t> shared_offsets;  // entry: shared variable id -> offset in the CTA's shared memory
  uint32_t dynamic_shared_base = 0;      // entry: where extern .shared [] starts
  bool recursive = false;       // on a call-graph cycle or called indirectly: calls save its registers
  // ptx::Function register index -> a number of its own in the module (predicates: their mask
  // index with kRegIdPred): what the timing model's scoreboard tracks. Registers may share slots
  // (reg_alloc.hpp), but a write to one must not delay the readers of another.
  std::vector<uint32_t> reg_ids;
  static constexpr uint32_t kRegIdPred = 1u << 31;
  const ptx::Function* src = nullptr;
  // The function as decoded where it differs from the module's: its if-then regions predicated
  // (func/schedule.hpp, if_convert); src points here then.
  std::shared_ptr<const ptx::Function> rewritten;
};

// Bytes of a kernel's parameter buffer (its .entry parameters, laid out as declared).
uint64_t kernel_param_bytes(const DFunction& f);

// A call instruction's parameter passing, resolved at decode time. Offsets are absolute in a lane's
// param area (caller and callee frames live at their functions' param_base).
struct CallSite {
  uint32_t callee = ~0u;  // DFunction index; ~0u for an indirect call (target register)
  std::vector<std::pair<uint32_t, uint32_t>> args;  // (caller offset, size) per argument
  uint32_t ret_off = ~0u, ret_size = 0;             // caller's return variable
  enum Builtin : uint8_t {
    None, Vprintf, AssertFail, Malloc, Free,
    // The device runtime of dynamic parallelism (libcudadevrt's entry points, CDP2 ABI).
    CdpBufferV2, CdpBufferV1, CdpLaunchV2, CdpLaunchV1, CdpStreamCreate, CdpSuccess,
    // cudaGraphSetConditional(handle, value): the handle is the device address of its 32-bit value.
    GraphSetConditional
  } builtin = None;
};

struct Program {
  const ptx::Module* module = nullptr;
  std::vector<DInstr> code;
  std::vector<Ref> extra_ops;
  std::vector<uint64_t> consts;  // broadcast constant slots: consts[slot * 32 + lane]
  std::vector<DFunction> funcs;
  uint32_t nregs = 0;            // register slots for the whole module (all functions + special regs)
  uint32_t npreds = 0;
  // Special registers that are constant for a warp, materialised at warp start in the slots of
  // DFunction::specials (only those the module reads).
  enum SpecialSlot : uint32_t {
    TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
    Laneid, Warpid, Nwarpid, Smid, Nsmid, Gridid, LanemaskEq, LanemaskLe, LanemaskLt, LanemaskGe,
    LanemaskGt, DynSmem, TotalSmem, WarpSz,
    // thread-block clusters (sm_90)
    ClusterCtaidX, ClusterCtaidY, ClusterCtaidZ, ClusterNctaidX, ClusterNctaidY, ClusterNctaidZ,
    ClusteridX, ClusteridY, ClusteridZ, NclusteridX, NclusteridY, NclusteridZ, ClusterCtarank, ClusterNctarank,
    SpecialCount
  };
  static_assert(SpecialCount <= 64, "special-register sets are 64-bit masks");
  std::unordered_map<std::string, SymbolAddr> module_symbols;  // .global/.const variables, functions
  uint64_t max_local_frame = 0;  // largest single-function local frame (stack sizing)
  uint32_t max_param_frame = 0;
  uint32_t total_param = 0;      // bytes of each lane's param area (all functions' frames)
  std::vector<CallSite> call_sites;

  const Ref* operands(const DInstr& in) const {
    return in.extra ? &extra_ops[in.extra - 1] : in.op;
  }
  const DFunction* find_kernel(const std::string& name) const;
};

}  // namespace warpsim::func
