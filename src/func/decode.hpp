// Decoding interface shared by the instruction families (ops_*.cpp). Each family registers a decode
// function per opcode; it picks the handler for the instruction's types and modifiers and fills the
// operands. An instruction form a family does not implement is reported at load time, by name,
// never executed wrongly.
#pragma once

#include <string>
#include <vector>

#include "func/program.hpp"
#include "ptx/ir.hpp"

namespace warpsim::func {

// A memory operand once decoded: address = base register (if any) + offset, where the offset may
// be relative to the space of a symbol (local frame, shared variable, parameter frame).
struct MemRef {
  enum Rel : uint8_t { Absolute, SharedVar, LocalFrame, KernelParam, FuncParam } rel = Absolute;
  Ref base = Ref::none();
  int64_t offset = 0;
  uint32_t shared_var = 0;  // for SharedVar: variable id (per-kernel offset table)
  // The base is a 32-bit register: [%r+off] wraps at 2^32 as the hardware's 32-bit address
  // arithmetic does (ptxas folds a negative index into the offset: [%r-16+508] is address 492).
  bool addr32 = false;
};

struct DecodeCtx {
  Program& prog;
  const ptx::Module& mod;
  const ptx::Function& fn;
  DFunction& dfn;
  uint32_t fn_index = 0;
  std::string error;  // set when the instruction cannot be decoded

  // Register, predicate, special register or immediate as a Ref. Immediates become broadcast
  // constant slots holding the value as the instruction type expects it (an f64 literal used by a
  // .f32 instruction is rounded to f32; integers are truncated to the type's width).
  Ref ref(const ptx::Operand& o, ptx::Type t);
  Ref cnst(uint64_t value);
  // A memory operand [reg+off], [sym+off], [imm]; false (and error set) if not one.
  bool mem(const ptx::Operand& o, MemRef& out);
  // Fills in.op/in.extra from a list.
  void set_ops(DInstr& in, const std::vector<Ref>& refs);
  // The code index of a label of the current function.
  uint32_t label_pc(const ptx::Operand& o);
  bool fail(std::string msg) {
    error = std::move(msg);
    return false;
  }
  // Hooks the decoder provides (see decoder.cpp).
  struct Impl;
  Impl* impl = nullptr;
};

// Returns true when it decoded the instruction (out.exec set). Returns false with ctx.error empty
// when the form belongs to another family (e.g. the integer decoder of `add` seeing add.f32), and
// false with ctx.error set when the form is its own but invalid or unsupported.
using DecodeFn = bool (*)(DecodeCtx& ctx, const ptx::Instruction& ins, DInstr& out);

// Families register their decoders here (several per opcode are allowed; asked in order).
void register_decoder(ptx::Opcode op, DecodeFn fn);
void register_control_ops();   // ops_control.cpp
void register_data_ops();      // ops_data.cpp: mov, ld/st/ldu, cvta, isspacep, prefetch
void register_int_ops();       // ops_int.cpp
void register_float_ops();     // ops_float.cpp
void register_half_ops();      // ops_half.cpp
void register_cvt_ops();       // ops_cvt.cpp
void register_warp_ops();      // ops_warp.cpp: shfl/vote/match/activemask/redux/bar.warp
void register_atom_ops();      // ops_atom.cpp
void register_mma_ops();       // ops_mma.cpp: ldmatrix/stmatrix/movmatrix, mma.sync, wmma, wgmma
void register_async_ops();     // ops_async.cpp: cp.async, mbarrier
void register_tex_ops();       // ops_tex.cpp: tex, suld.b, sust.b
void register_tensor_ops();    // ops_tensor.cpp: the TMA's tensor copies (cp.async.bulk.tensor, ...)

// Helpers for families.
// For instructions that change nothing a functional model can observe (fences, prefetches, hints).
bool decode_nop(DecodeCtx& ctx, const ptx::Instruction& ins, DInstr& out);
inline ptx::Type first_type(const ptx::Instruction& ins, unsigned i = 0) { return ins.types()[i]; }
bool is_float_type(ptx::Type t);
bool is_signed_type(ptx::Type t);
unsigned type_bits(ptx::Type t);  // 8..64 (pred: 1)

// Rounding mode of an instruction (ptx::Mod::rn... or rni...), None if absent.
enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi, Rs };
Round round_of(const ptx::Instruction& ins);

}  // namespace warpsim::func
