#include <gtest/gtest.h>

#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

using namespace warpsim::ptx;

namespace {

const char* kHeader = ".version 8.7\n.target sm_80\n.address_size 64\n";

std::unique_ptr<Module> parse_ok(const std::string& body) {
  auto r = parse(std::string(kHeader) + body, "test.ptx");
  for (auto& e : r.errors) ADD_FAILURE() << e.str();
  return std::move(r.module);
}

// A kernel with the given body and registers %r<10>, %rd<10>, %f<10>, %p<4>.
std::unique_ptr<Module> kernel(const std::string& instrs) {
  return parse_ok(
      ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n{\n"
      ".reg .b32 %r<10>;\n.reg .b64 %rd<10>;\n.reg .f32 %f<10>;\n.reg .pred %p<4>;\n" +
      instrs + "\nret;\n}\n");
}

const Instruction& first(const Module& m) { return m.funcs.back().instrs.at(0); }

}  // namespace

TEST(Parser, Header) {
  auto m = parse_ok("");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->version_major, 8u);
  EXPECT_EQ(m->version_minor, 7u);
  ASSERT_EQ(m->targets.size(), 1u);
  EXPECT_EQ(m->targets[0], "sm_80");
  EXPECT_EQ(m->address_size, 64u);
}

TEST(Parser, OpcodeModifiersAndTypes) {
  auto m = kernel("cvt.rn.satfinite.f16x2.f32 %r1, %f1, %f2;");
  ASSERT_TRUE(m);
  const auto& i = first(*m);
  EXPECT_EQ(i.op, Opcode::Cvt);
  ASSERT_EQ(i.nmods, 4);
  EXPECT_EQ(i.mods[0], Mod::rn);
  EXPECT_EQ(i.mods[1], Mod::satfinite);
  auto t = i.types();
  EXPECT_EQ(t[0], Type::F16x2);
  EXPECT_EQ(t[1], Type::F32);
  EXPECT_EQ(t[2], Type::None);
}

TEST(Parser, LongestDottedOpcodeWins) {
  auto m = kernel(
      "cp.async.ca.shared.global [%r1], [%rd1], 16;\n"
      "cp.async.commit_group;\n"
      "cp.async.wait_group 0;\n"
      "mbarrier.arrive.shared.b64 %rd2, [%r2];\n");
  ASSERT_TRUE(m);
  const auto& in = m->funcs.back().instrs;
  EXPECT_EQ(in[0].op, Opcode::CpAsync);
  EXPECT_EQ(in[0].mods[0], Mod::ca);
  EXPECT_EQ(in[1].op, Opcode::CpAsyncCommitGroup);
  EXPECT_EQ(in[2].op, Opcode::CpAsyncWaitGroup);
  EXPECT_EQ(in[3].op, Opcode::MbarrierArrive);
}

TEST(Parser, MmaShapeIsDecoded) {
  auto m = kernel(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
      "{%f5,%f6,%f7,%f8};");
  ASSERT_TRUE(m);
  const auto& i = first(*m);
  EXPECT_EQ(i.op, Opcode::Mma);
  EXPECT_TRUE(i.has(Mod::Shape));
  EXPECT_EQ(i.shape.m, 16);
  EXPECT_EQ(i.shape.n, 8);
  EXPECT_EQ(i.shape.k, 16);
  ASSERT_EQ(i.operands.size(), 4u);
  EXPECT_EQ(i.operands[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(i.operands[0].elems.size(), 4u);
}

TEST(Parser, RegisterRangesResolve) {
  auto m = kernel("add.s32 %r9, %r0, 7;");
  ASSERT_TRUE(m);
  const Function& f = m->funcs.back();
  EXPECT_EQ(f.regs.size(), 34u);  // 10 + 10 + 10 + 4
  const auto& i = first(*m);
  EXPECT_EQ(f.reg_name(i.operands[0].reg), "%r9");
  EXPECT_EQ(f.reg_name(i.operands[1].reg), "%r0");
  EXPECT_EQ(f.regs[i.operands[0].reg].type, Type::B32);
  EXPECT_EQ(i.operands[2].kind, Operand::Kind::Imm);
  EXPECT_EQ(i.operands[2].ival, 7);
}

TEST(Parser, RangeBoundIsEnforced) {
  auto r = parse(std::string(kHeader) + ".entry k()\n{\n.reg .b32 %r<10>;\nmov.u32 %r10, 1;\nret;\n}\n", "t.ptx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("%r10"), std::string::npos);
}

TEST(Parser, GuardsAndPredicates) {
  auto m = kernel(
      "@!%p1 bra $L1;\n"
      "setp.lt.and.s32 %p2|%p3, %r1, %r2, !%p1;\n"
      "$L1:\n");
  ASSERT_TRUE(m);
  const Function& f = m->funcs.back();
  const auto& b = f.instrs[0];
  EXPECT_TRUE(b.has_guard);
  EXPECT_TRUE(b.guard_negated);
  EXPECT_EQ(f.reg_name(b.guard_reg), "%p1");
  EXPECT_EQ(b.operands[0].kind, Operand::Kind::Symbol);
  EXPECT_EQ(b.operands[0].sym, SymKind::Label);
  EXPECT_EQ(f.labels[b.operands[0].sym_index].instr, 2u);  // label marks the ret after setp
  const auto& s = f.instrs[1];
  EXPECT_EQ(s.operands[0].kind, Operand::Kind::Pair);
  EXPECT_TRUE(s.operands[3].negated);
}

TEST(Parser, AddressForms) {
  auto m = kernel(
      "ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1+-16];\n"
      "ld.param.u64 %rd2, [k_p0];\n"
      "ld.param.u32 %r1, [k_p1+0];\n"
      "ld.global.u32 %r2, [4096];\n"
      "st.shared.u32 [%r3+(2*8)], %r2;\n");
  ASSERT_TRUE(m);
  const auto& in = m->funcs.back().instrs;
  EXPECT_EQ(in[0].operands[0].elems[2].kind, Operand::Kind::Sink);
  EXPECT_EQ(in[0].operands[1].kind, Operand::Kind::Address);
  EXPECT_EQ(in[0].operands[1].ival, -16);
  EXPECT_EQ(in[1].operands[1].elems[0].sym, SymKind::Param);
  EXPECT_EQ(in[1].operands[1].elems[0].sym_index, 0u);
  EXPECT_EQ(in[2].operands[1].elems[0].sym_index, 1u);
  EXPECT_TRUE(in[3].operands[1].elems.empty());
  EXPECT_EQ(in[3].operands[1].ival, 4096);
  EXPECT_EQ(in[4].operands[0].ival, 16);
}

TEST(Parser, ImmediateForms) {
  auto m = kernel(
      "mov.b32 %r1, 0xFFFFFFFF;\nmov.b32 %r2, -1;\nmov.b32 %r3, 017;\nmov.f32 %f1, 0f3F800000;\n"
      "mov.b32 %r4, (1 << 4) | 3;\nmov.b32 %r5, ~0;\n");
  ASSERT_TRUE(m);
  const auto& in = m->funcs.back().instrs;
  EXPECT_EQ(in[0].operands[1].ival, 0xFFFFFFFFll);
  EXPECT_EQ(in[1].operands[1].ival, -1);
  EXPECT_EQ(in[2].operands[1].ival, 15);
  EXPECT_EQ(in[3].operands[1].kind, Operand::Kind::F32);
  EXPECT_EQ(in[3].operands[1].ival, 0x3F800000);
  EXPECT_EQ(in[4].operands[1].ival, 19);
  EXPECT_EQ(in[5].operands[1].ival, -1);
}

TEST(Parser, SpecialRegisters) {
  auto m = kernel("mov.u32 %r1, %tid.y;\nmov.u32 %r2, %envreg7;\nmov.u64 %rd1, %clock64;\nmov.u32 %r3, WARP_SZ;\n");
  ASSERT_TRUE(m);
  const auto& in = m->funcs.back().instrs;
  EXPECT_EQ(in[0].operands[1].kind, Operand::Kind::SpecialReg);
  EXPECT_EQ(in[0].operands[1].sreg, SReg::Tid);
  EXPECT_EQ(in[0].operands[1].selector, "y");
  EXPECT_EQ(in[1].operands[1].sreg, SReg::Envreg);
  EXPECT_EQ(in[1].operands[1].sreg_index, 7);
  EXPECT_EQ(in[2].operands[1].sreg, SReg::Clock64);
  EXPECT_EQ(in[3].operands[1].sreg, SReg::WarpSz);
}

TEST(Parser, CallsWithScopesAndPrototypes) {
  auto m = parse_ok(
      ".func (.param .b32 r) f(.param .b32 a)\n{\n.reg .b32 %r<2>;\nld.param.b32 %r1, [a];\n"
      "st.param.b32 [r], %r1;\nret;\n}\n"
      ".entry k()\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n"
      "{\n.param .b32 p0;\nst.param.b32 [p0+0], %r1;\n.param .b32 rv;\ncall.uni (rv), f, (p0);\nld.param.b32 %r2, [rv];\n}\n"
      "{\n.param .b32 p0;\n.param .b32 rv;\nproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "mov.u64 %rd1, f;\ncall (rv), %rd1, (p0), proto;\n}\n"
      "ret;\n}\n");
  ASSERT_TRUE(m);
  const Function& k = m->funcs[1];
  EXPECT_EQ(k.locals.size(), 4u);  // p0 and rv, twice, in separate scopes
  const auto& call = k.instrs[1];
  EXPECT_EQ(call.op, Opcode::Call);
  ASSERT_EQ(call.operands.size(), 3u);
  EXPECT_EQ(call.operands[0].kind, Operand::Kind::CallList);
  EXPECT_EQ(call.operands[1].sym, SymKind::Function);
  EXPECT_EQ(call.operands[1].sym_index, 0u);
  EXPECT_EQ(call.operands[2].elems[0].sym, SymKind::LocalVariable);
  const auto& icall = k.instrs[4];
  EXPECT_EQ(icall.operands[1].kind, Operand::Kind::Reg);
  EXPECT_EQ(icall.operands[3].sym, SymKind::Prototype);
  // the second block's p0 is a different variable from the first block's
  EXPECT_NE(icall.operands[2].elems[0].sym_index, call.operands[2].elems[0].sym_index);
}

TEST(Parser, VariablesAndInitialisers) {
  auto m = parse_ok(
      ".global .align 4 .u32 a[4] = {1, 2, 3, -4};\n"
      ".const .align 8 .f64 d = 0d3FF0000000000000;\n"
      ".global .align 8 .u64 ptrs[2] = {generic(a), a+8};\n"
      ".global .align 1 .u8 bytes[2] = {0xff(a), 0xff00(generic(a)+4)};\n"
      ".global .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
      ".extern .shared .align 16 .b8 dyn[];\n"
      ".global .attribute(.managed) .align 4 .u32 m;\n"
      ".global .texref t;\n");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->vars.size(), 8u);
  EXPECT_EQ(m->vars[0].dims[0], 4u);
  EXPECT_EQ(m->vars[0].init.elems[3].ival, -4);
  EXPECT_EQ(m->vars[1].init.kind, Init::Kind::F64);
  EXPECT_EQ(m->vars[2].init.elems[0].kind, Init::Kind::Generic);
  EXPECT_EQ(m->vars[2].init.elems[1].kind, Init::Kind::Symbol);
  EXPECT_EQ(m->vars[2].init.elems[1].ival, 8);
  EXPECT_EQ(m->vars[3].init.elems[1].kind, Init::Kind::Mask);
  EXPECT_EQ(m->vars[3].init.elems[1].ival, 0xff00);
  EXPECT_EQ(m->vars[4].size_bytes(), 24u);
  EXPECT_EQ(m->vars[5].linkage, Linkage::Extern);
  EXPECT_EQ(m->vars[5].dims[0], 0u);
  EXPECT_TRUE(m->vars[6].managed);
  EXPECT_EQ(m->vars[7].type, Type::TexRef);
}

TEST(Parser, EntryDirectivesAndParams) {
  auto m = parse_ok(
      ".visible .entry k(.param .u64 .ptr .global .align 16 p, .param .align 8 .b8 s[24])\n"
      ".maxntid 256, 1, 1\n.minnctapersm 2\n{\nret;\n}\n");
  ASSERT_TRUE(m);
  const Function& f = m->funcs[0];
  EXPECT_TRUE(f.is_entry);
  EXPECT_EQ(f.linkage, Linkage::Visible);
  EXPECT_EQ(f.perf.maxntid_dims, 3);
  EXPECT_EQ(f.perf.maxntid[0], 256u);
  EXPECT_EQ(f.perf.minnctapersm, 2u);
  EXPECT_TRUE(f.params[0].ptr);
  EXPECT_EQ(f.params[0].ptr_space, Space::Global);
  EXPECT_EQ(f.params[0].ptr_align, 16u);
  EXPECT_EQ(f.params[1].size_bytes(), 24u);
  EXPECT_EQ(f.params[1].align, 8u);
}

TEST(Parser, LineInfoFromLoc) {
  auto m = parse_ok(
      ".entry k()\n{\n.reg .b32 %r<2>;\n.loc 1 10 3\nmov.u32 %r1, 0;\n"
      ".loc 2 449 9, function_name $L__info_string0, inlined_at 1 11 3\nmov.u32 %r0, 1;\nret;\n}\n"
      ".file 1 \"a.cu\"\n.file 2 \"b.h\", 1700000000, 1234\n"
      ".section .debug_str\n{\n$L__info_string0:\n.b8 95,0\n}\n");
  ASSERT_TRUE(m);
  const Function& f = m->funcs[0];
  EXPECT_EQ(f.instrs[0].line.file, 1u);
  EXPECT_EQ(f.instrs[0].line.line, 10u);
  EXPECT_EQ(f.instrs[1].line.line, 449u);
  EXPECT_EQ(f.locs[1].inlined_at.line, 11u);
  EXPECT_EQ(f.locs[1].function_name, "$L__info_string0");
  ASSERT_EQ(m->files.size(), 2u);
  EXPECT_EQ(m->files[1].size, 1234u);
  ASSERT_EQ(m->sections.size(), 1u);
  EXPECT_EQ(m->sections[0].items[1].values.size(), 2u);
}

TEST(Parser, BranchTargetsAndVideo) {
  auto m = kernel(
      "ts: .branchtargets $A, $B;\nbrx.idx %r1, ts;\n$A:\nvmad.s32.s32.s32 %r2, -%r3, %r4.b1, %r5;\n"
      "vadd4.u32.u32.u32.sat %r6.b3210, %r7.b7654, %r8, %r9;\n$B:\n");
  ASSERT_TRUE(m);
  const auto& in = m->funcs.back().instrs;
  EXPECT_EQ(in[0].op, Opcode::BrxIdx);
  EXPECT_EQ(in[0].operands[1].sym, SymKind::BranchTargets);
  EXPECT_TRUE(in[1].operands[1].minus);
  EXPECT_EQ(in[1].operands[2].selector, "b1");
  EXPECT_EQ(in[2].operands[0].selector, "b3210");
}

TEST(Parser, TextureOperands) {
  auto m = parse_ok(
      ".global .texref tex;\n.entry k()\n{\n.reg .f32 %f<8>;\n.reg .pred %p;\n"
      "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p, [tex, {%f5, %f6}];\nret;\n}\n");
  ASSERT_TRUE(m);
  const auto& i = m->funcs[0].instrs[0];
  EXPECT_EQ(i.op, Opcode::Tex);
  EXPECT_EQ(i.operands[0].kind, Operand::Kind::Pair);
  ASSERT_EQ(i.operands[1].kind, Operand::Kind::MemList);
  EXPECT_EQ(i.operands[1].elems[0].kind, Operand::Kind::Symbol);
  EXPECT_EQ(i.operands[1].elems[0].sym, SymKind::Variable);
  EXPECT_EQ(i.operands[1].elems[1].kind, Operand::Kind::Vector);
}

TEST(Parser, PrintedInstructionsReadLikePtx) {
  auto m = kernel("@%p1 ld.global.nc.v2.f32 {%f1, %f2}, [%rd1+8];");
  ASSERT_TRUE(m);
  const Function& f = m->funcs.back();
  EXPECT_EQ(print_instruction(f, f.instrs[0]), "@%p1 ld.global.nc.v2.f32 \t{%f1, %f2}, [%rd1+8];");
}
