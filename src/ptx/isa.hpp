// The PTX vocabulary as data: instruction names, instruction modifiers, declaration types,
// state spaces and special registers. Tables live in opcodes.def / modifiers.def so that adding
// an ISA form is one line.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace warpsim::ptx {

enum class Opcode : uint16_t {
#define PTX_OP(e, text, lo, hi) e,
#include "opcodes.def"
#undef PTX_OP
  Count_
};

enum class ModClass : uint8_t {
  Type, Rounding, Space, Compare, Operation, Arith, TestClass, Mode, Cache, Vector, Semantics,
  Scope, Proxy, Sync, Geometry, Texture, Matrix, Tensormap, Misc, Shape
};

enum class Mod : uint16_t {
#define PTX_MOD(e, text, cls) e,
#include "modifiers.def"
#undef PTX_MOD
  Shape,  // .mMnNkK: dimensions kept in Instruction::shape
  Count_
};

struct OpcodeInfo {
  std::string_view name;
  uint8_t min_operands;
  uint8_t max_operands;
};

const OpcodeInfo& opcode_info(Opcode op);
inline std::string_view opcode_name(Opcode op) { return opcode_info(op).name; }
// Exact lookup of a (possibly dotted) instruction name such as "cp.async.bulk".
std::optional<Opcode> find_opcode(std::string_view name);
// Whether some instruction name starts with "first." (cp, mbarrier, wmma, ...): only then is a
// longer dotted prefix worth looking up.
bool has_dotted_opcodes(std::string_view first);

// Whether the instruction's first operand is its destination (most instructions; not st, red, bar,
// bra, call, cp.async, mbarrier.init, ...).
bool writes_first_operand(Opcode op);

std::string_view mod_name(Mod m);  // without the leading dot
ModClass mod_class(Mod m);
std::optional<Mod> find_mod(std::string_view text);  // text without the leading dot

// Scalar and packed types of declarations and of type modifiers.
enum class Type : uint8_t {
  None, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, BF16, BF16x2,
  TF32, F32, F64, Pred, E4M3, E5M2, E4M3x2, E5M2x2,
  // opaque handle types of texture/surface/sampler variables
  TexRef, SamplerRef, SurfRef,
  Count_
};
std::string_view type_name(Type t);  // without the dot, "" for None
std::optional<Type> find_type(std::string_view text);
unsigned type_size(Type t);  // bytes; 0 for None/Pred/handles (1 bit / opaque)
// The declaration type a type modifier names (Mod::f32 -> Type::F32), if any.
std::optional<Type> mod_type(Mod m);

enum class Space : uint8_t { None, Reg, SReg, Const, Global, Local, Param, Shared, Tex, Generic };
std::string_view space_name(Space s);

// Special registers (PTX ISA chapter 10). Numbered families (%envreg<32>, %pm<8>, ...) are one
// entry each with the number kept in the operand.
enum class SReg : uint8_t {
  Tid, Ntid, Laneid, Warpid, Nwarpid, Ctaid, Nctaid, Smid, Nsmid, Gridid, LanemaskEq, LanemaskLe,
  LanemaskLt, LanemaskGe, LanemaskGt, Clock, ClockHi, Clock64, Pm, Pm64, Envreg, Globaltimer,
  GlobaltimerLo, GlobaltimerHi, ResvSmemOffsetBegin, ResvSmemOffsetEnd, ResvSmemOffsetCap,
  ResvSmemOffset2, WarpSz, TotalSmemSize, AggrSmemSize, DynamicSmemSize, IsExplicitCluster, Clusterid,
  Nclusterid, ClusterCtaid, ClusterNctaid, ClusterCtarank, ClusterNctarank, CurrentGraphExec,
  Count_
};
struct SRegName {
  SReg reg;
  int8_t index;  // for numbered families, else -1
};
// Parses "%tid", "%envreg3", "%pm0_64", ... and the predefined constant WARP_SZ; nullopt if not a
// special register.
std::optional<SRegName> find_sreg(std::string_view name);
std::string sreg_spelling(SReg r, int index);
// Whether the special register takes a .x/.y/.z component.
bool sreg_has_components(SReg r);

}  // namespace warpsim::ptx
