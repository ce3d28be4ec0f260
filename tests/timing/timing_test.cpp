// Timing model tests on small PTX kernels with a machine description written here (not the
// shipped configs), so every expectation follows from the numbers below and the model's rules:
// a dependent chain costs its latency per instruction, independent work is bound by the pipe's
// issue rate, sub-cores run in parallel, barriers hold warps, CTAs wait for free SMs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "func/engine.hpp"
#include "func/tensor_map.hpp"
#include "mem/device_memory.hpp"
#include "ptx/parser.hpp"
#include "timing/gpu.hpp"
#include "timing/op_class.hpp"
#include "timing/scoreboard.hpp"
#include "test_machine.hpp"

namespace warpsim::timing {
namespace {

using config::OpClass;
using config::Pipe;


// An L2 hit as the test machine composes it: the L1 miss path, the crossbar both ways (a port cycle
// each side plus the wire), the L2 slice.
double l2_hit_cycles(const config::Machine& m) {
  return m.l1.miss_latency + 2 * (2 + m.xbar.latency) + m.l2.hit_latency;
}

// A kernel ends when its last store is acknowledged by L2: the tail after the last instruction is
// a first-touch page walk, the L1 miss path, the crossbar both ways and the L2 slice.
uint64_t store_tail(const config::Machine& m) {
  return m.tlb.l2_latency + m.tlb.walk_latency + l2_hit_cycles(m) + 8;
}

// A kernel of `chains` interleaved FMA chains, `n` instructions each, storing one value per thread.
std::string fma_kernel(unsigned chains, unsigned n, bool barrier_after_warp0 = false) {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<16>;
  .reg .u64 %rd<4>;
  .reg .u32 %r<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
)";
  for (unsigned c = 0; c < chains; ++c) s += "  mov.f32 %f" + std::to_string(c + 1) + ", 0f3F000000;\n";
  if (barrier_after_warp0) s += "  setp.ge.u32 %p1, %r1, 32;\n  @%p1 bra WAIT;\n";
  for (unsigned i = 0; i < n; ++i)
    for (unsigned c = 0; c < chains; ++c) {
      std::string f = "%f" + std::to_string(c + 1);
      s += "  fma.rn.f32 " + f + ", " + f + ", 0f3F000000, 0f3E800000;\n";
    }
  if (barrier_after_warp0) s += "WAIT:\n  bar.sync 0;\n";
  for (unsigned c = 1; c < chains; ++c) s += "  add.f32 %f1, %f1, %f" + std::to_string(c + 1) + ";\n";
  s += R"(  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}
)";
  return s;
}

struct Timed {
  stats::KernelStats st;
  func::LaunchResult res;
  std::vector<float> out;
};

Timed run_timed(const config::Machine& m, const std::string& ptx, func::Dim3 grid, func::Dim3 block,
                CtaFootprint fp = {}, uint32_t max_ctas = 0, uint64_t persisting_bytes = 0) {
  mem::DeviceMemory dm{mem::MemoryConfig{}};
  func::EngineConfig ec;
  ec.num_sms = m.sms;
  func::Engine eng(dm, ec);
  auto pr = ptx::parse(ptx, "t.ptx");
  EXPECT_TRUE(pr.ok());
  auto lr = eng.load(std::move(pr.module));
  for (auto& e : lr.errors) ADD_FAILURE() << e;
  Timed t;
  if (!lr.ok()) return t;
  uint64_t threads = grid.count() * block.count();
  uint64_t out = dm.allocate(threads * 4);
  func::LaunchConfig lc;
  lc.grid = grid;
  lc.block = block;
  lc.params.resize(8);
  std::memcpy(lc.params.data(), &out, 8);
  func::LaunchState ls;
  func::LaunchResult res;
  EXPECT_TRUE(eng.prepare(*lr.module, "k", lc, ls, res));
  KernelLaunch kl;
  kl.module = lr.module.get();
  kl.ls = &ls;
  kl.ecfg = &eng.config();
  kl.fp = fp;
  if (!kl.fp.threads) kl.fp = {uint32_t(block.count()), uint32_t((block.count() + 31) / 32), 0, 0};
  kl.max_ctas_per_sm = max_ctas;
  Gpu gpu(m);
  gpu.memory().set_persisting_bytes(persisting_bytes);
  t.st = gpu.run({&kl}).at(0);
  t.res = eng.finish(*lr.module, ls, res);
  t.out.resize(threads);
  dm.host_read(out, t.out.data(), threads * 4);
  return t;
}

TEST(Timing, DependentChainCostsItsLatencyPerInstruction) {
  config::Machine m = test_machine();
  const unsigned n = 400;
  Timed a = run_timed(m, fma_kernel(1, n), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(a.res.ok()) << a.res.report();
  EXPECT_GE(a.st.cycles, n * 4);
  EXPECT_LE(a.st.cycles, n * 4 + 40 + store_tail(m));
  // The same chain with a longer FMA latency takes proportionally longer.
  m.ops[unsigned(OpClass::Fp32)].latency = 6;
  Timed b = run_timed(m, fma_kernel(1, n), {1, 1, 1}, {32, 1, 1});
  EXPECT_GE(b.st.cycles, n * 6);
  EXPECT_LE(b.st.cycles, n * 6 + 40 + store_tail(m));
  // Waiting on a fixed-latency result is stall_wait.
  EXPECT_GT(a.st.stalls[unsigned(stats::Stall::Wait)], uint64_t(n) * 2);
  EXPECT_EQ(a.out, b.out);
}

// A kernel of one dependent chain of `n` integer divisions per thread, x = OP(x), storing x:
// `step` is the PTX of one step on %r2 (the divisor register %r3 holds `a`).
std::string div_kernel(const std::string& step, unsigned n, bool wide) {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u32 %r<4>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 12345;
  mov.u32 %r3, 2147483647;
  cvt.u64.u32 %rd5, %r2;
  mov.u64 %rd6, 9223372036854775807;
)";
  for (unsigned i = 0; i < n; ++i) s += "  " + step + "\n";
  if (wide) s += "  cvt.u32.u64 %r2, %rd5;\n";
  s += R"(  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  return s;
}

// The classes ptxas's expansions fall into (validation/sm/h100_expand_ncu.csv: SASS per PTX op).
TEST(OpClassify, DivisionSqrtAndWarpOpsByForm) {
  auto pr = ptx::parse(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .u32 %r<4>;
  .reg .u64 %rd<4>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  .reg .pred %p<2>;
  div.s32 %r1, %r2, %r3;
  rem.u32 %r1, %r2, 13;
  div.u64 %rd1, %rd2, 7;
  rem.s64 %rd1, %rd2, %rd3;
  div.rn.f32 %f1, %f2, %f3;
  div.full.f32 %f1, %f2, %f3;
  div.approx.f32 %f1, %f2, %f3;
  sqrt.rn.f32 %f1, %f2;
  sqrt.approx.f32 %f1, %f2;
  sqrt.approx.ftz.f32 %f1, %f2;
  rcp.rn.f32 %f1, %f2;
  div.rn.f64 %fd1, %fd2, %fd3;
  vote.sync.ballot.b32 %r1, %p1, 0xffffffff;
  match.any.sync.b32 %r1, %r2, 0xffffffff;
  ret;
}
)", "t.ptx");
  ASSERT_TRUE(pr.ok());
  const OpClass want[] = {OpClass::IntDiv,     OpClass::IntDivImm,  OpClass::IntDiv64, OpClass::IntDiv64,
                          OpClass::Fdiv,       OpClass::FdivFull,   OpClass::FdivApprox, OpClass::Fdiv,
                          OpClass::FdivApprox, OpClass::Mufu,       OpClass::Fdiv,     OpClass::Fp64Div,
                          OpClass::Vote,       OpClass::Match};
  const auto& ins = pr.module->funcs.at(0).instrs;
  ASSERT_GE(ins.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i)
    EXPECT_EQ(config::op_class_name(classify(ins[i])), std::string(config::op_class_name(want[i]))) << i;
}

// Integer division is three classes, each with its own latency: by a register (ptxas computes
// the reciprocal at run time: I2F, MUFU.RCP, F2I), by an immediate (a constant reciprocal; the
// H100 takes 46-61 cycles against 130-138, validation/sm/expand.cu) and 64-bit (a subroutine).
TEST(Timing, IntegerDivisionCostsItsClassLatency) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::IntDiv)] = {Pipe::Alu, 130, 16, config::Scoreboard::Fixed};
  m.ops[unsigned(OpClass::IntDivImm)] = {Pipe::Alu, 50, 7, config::Scoreboard::Fixed};
  m.ops[unsigned(OpClass::IntDiv64)] = {Pipe::Alu, 300, 64, config::Scoreboard::Fixed};
  const unsigned n = 40;
  struct Case {
    const char* step;
    bool wide;
    OpClass cls;
  };
  const Case cases[] = {{"div.u32 %r2, %r3, %r2;", false, OpClass::IntDiv},
                        {"div.u32 %r2, %r2, 7;", false, OpClass::IntDivImm},
                        {"rem.s32 %r2, %r2, -10;", false, OpClass::IntDivImm},
                        {"div.s64 %rd5, %rd6, %rd5;", true, OpClass::IntDiv64},
                        {"div.u64 %rd5, %rd5, 7;", true, OpClass::IntDiv64}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.step);
    Timed t = run_timed(m, div_kernel(c.step, n, c.wide), {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(t.res.ok()) << t.res.report();
    const uint64_t lat = m.ops[unsigned(c.cls)].latency;
    EXPECT_GE(t.st.cycles, n * lat);
    EXPECT_LE(t.st.cycles, n * lat + 60 + store_tail(m));
    // The functional result against the CPU's.
    for (unsigned l = 0; l < 32; ++l) {
      uint32_t x = l + 12345, got;
      uint64_t x64 = x;
      for (unsigned i = 0; i < n; ++i) {
        if (c.cls == OpClass::IntDiv) x = 2147483647u / x;
        else if (std::string(c.step).rfind("div.u32", 0) == 0) x /= 7;
        else if (c.cls == OpClass::IntDivImm) x = uint32_t(int32_t(x) % -10);
        else if (std::string(c.step).rfind("div.s64", 0) == 0) x64 = uint64_t(INT64_MAX / int64_t(x64));
        else x64 /= 7;
      }
      if (c.wide) x = uint32_t(x64);
      std::memcpy(&got, &t.out[l], 4);
      EXPECT_EQ(got, x) << "lane " << l;
    }
  }
}

// 32 warps of division chains: each division holds its sub-core's ALU pipe for issue x 2 cycles
// (16 lanes), so with issue 16 the 8 warps of a sub-core need n x 8 x 32 cycles, twice their
// chains' latency (n x 130); a division by an immediate (issue 7) takes well under that.
TEST(Timing, DivisionsOccupyThePipeForTheirIssueCycles) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::IntDiv)] = {Pipe::Alu, 130, 16, config::Scoreboard::Fixed};
  m.ops[unsigned(OpClass::IntDivImm)] = {Pipe::Alu, 50, 7, config::Scoreboard::Fixed};
  const unsigned n = 16;
  Timed var = run_timed(m, div_kernel("div.u32 %r2, %r3, %r2;", n, false), {1, 1, 1}, {1024, 1, 1});
  Timed imm = run_timed(m, div_kernel("div.u32 %r2, %r2, 7;", n, false), {1, 1, 1}, {1024, 1, 1});
  ASSERT_TRUE(var.res.ok() && imm.res.ok());
  EXPECT_GE(var.st.cycles, n * 8 * 32);
  // (+ the kernel's other ALU instructions, the last division's latency, 32 warps' stores)
  EXPECT_LE(var.st.cycles, n * 8 * 32 + 1000 + store_tail(m));
  EXPECT_GE(imm.st.cycles, n * 8 * 14);
  EXPECT_LT(imm.st.cycles * 10, var.st.cycles * 6);
}

TEST(Timing, IndependentChainsAreBoundByThePipeRate) {
  config::Machine m = test_machine();  // 16 FMA lanes per sub-core: one warp instruction per 2 cycles
  const unsigned n = 200, chains = 4;
  Timed a = run_timed(m, fma_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(a.res.ok());
  EXPECT_GE(a.st.cycles, n * chains * 2);
  EXPECT_LE(a.st.cycles, n * chains * 2 + 60 + store_tail(m));
  EXPECT_GT(a.st.stalls[unsigned(stats::Stall::MathPipeThrottle)], uint64_t(n) * chains / 2);
  // 32 lanes: one per cycle, then the 4-cycle dependency of each chain is the limit.
  m.pipe_lanes[unsigned(Pipe::Fma)] = 32;
  Timed b = run_timed(m, fma_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
  EXPECT_GE(b.st.cycles, n * 4);
  EXPECT_LE(b.st.cycles, n * 4 + 60 + store_tail(m));
}

// Straight-line code that no warp has fetched: without prefetch every 128-byte line waits the
// full L1I miss; with sm.icache.l1i_prefetch_lines the warp's stream keeps the next lines
// requested and the code streams in at one line per l1i_fill_interval (the H100 measurement,
// validation/workloads/probes/ifetch.cu: ~17 cycles per line). Values are unchanged.
TEST(Timing, InstructionPrefetchStreamsStraightLineCode) {
  config::Machine m = test_machine();
  m.pipe_lanes[unsigned(Pipe::Fma)] = 32;
  m.l0i_bytes = 32 * 1024;
  m.l1i_bytes = 128 * 1024;
  m.icache_line = 128;
  m.l0i_miss_latency = 20;
  m.l1i_miss_latency = 265;
  const unsigned chains = 8, n = 128;  // 1024 FMA: 128 lines of 8 instructions
  const uint64_t lines = chains * n * m.instr_bytes / m.icache_line;
  Timed a = run_timed(m, fma_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(a.res.ok()) << a.res.report();
  EXPECT_GE(a.st.cycles, lines * m.l1i_miss_latency);
  m.l1i_prefetch_lines = 16;
  m.l1i_fill_interval = 17;
  Timed b = run_timed(m, fma_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(b.res.ok()) << b.res.report();
  EXPECT_GE(b.st.cycles, lines * 17);
  EXPECT_LE(b.st.cycles, lines * 17 + m.l1i_miss_latency + 200 + store_tail(m));
  EXPECT_LT(b.st.stalls[unsigned(stats::Stall::NoInstructions)], a.st.stalls[unsigned(stats::Stall::NoInstructions)] / 8);
  EXPECT_EQ(a.out, b.out);
}

// Instruction-cache fills read the module's code from the memory system: a kernel that reads no
// data still looks up its code lines in L2 and, on a cold L2, reads them from DRAM (ncu's
// dram__bytes_read on our H100 counts a small kernel's code this way). The fetch latency model
// (fixed miss latency, streaming interval) is unchanged, so are the cycles.
TEST(Timing, InstructionFetchReadsCodeThroughL2AndDram) {
  config::Machine m = test_machine();
  m.pipe_lanes[unsigned(Pipe::Fma)] = 32;
  m.l0i_bytes = 32 * 1024;
  m.l1i_bytes = 128 * 1024;
  m.icache_line = 128;
  m.l0i_miss_latency = 20;
  m.l1i_miss_latency = 265;
  m.l1i_prefetch_lines = 16;
  m.l1i_fill_interval = 17;
  const unsigned chains = 8, n = 256;  // 512 FMA: 64 lines of code, plus the few around them
  const uint64_t lines = chains * n * m.instr_bytes / m.icache_line;
  Timed before = run_timed(m, fma_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(before.res.ok()) << before.res.report();
  EXPECT_EQ(before.st.mem.dram_bytes_read, 0u);  // no device memory for code: nothing to read
  m.global_mem_bytes = uint64_t(1) << 30;
  Timed a = run_timed(m, fma_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(a.res.ok()) << a.res.report();
  EXPECT_EQ(a.out, before.out);
  // Every line the warp ran and the 16 the prefetch runs past the end of the code (a few more
  // instructions than the FMA: the index and the store) were read once, by the one SM that ran it.
  const uint64_t read = lines + m.l1i_prefetch_lines;
  EXPECT_GE(a.st.mem.l2_sectors_read, read * m.icache_line / m.l2.sector);
  EXPECT_LE(a.st.mem.l2_sectors_read, (read + 4) * m.icache_line / m.l2.sector);
  EXPECT_GE(a.st.mem.dram_bytes_read, read * m.icache_line);
  EXPECT_LE(a.st.mem.dram_bytes_read, (read + 4) * m.icache_line * m.l2.fetch_sectors);
  EXPECT_EQ(a.st.mem.ifetch_dram_bytes_read, a.st.mem.dram_bytes_read);  // the kernel reads no data
  EXPECT_EQ(a.st.mem.ifetch_l2_sectors_read, a.st.mem.l2_sectors_read);
  // Same fetch timing: at most the bandwidth the code's reads take from the store at the end.
  EXPECT_NEAR(double(a.st.cycles), double(before.st.cycles), 0.02 * double(before.st.cycles));
  // Two SMs running the same code read it twice (each L1I fills its own), from L2 the second time
  // if it is there by then; DRAM reads it once.
  Timed b = run_timed(m, fma_kernel(chains, n), {2, 1, 1}, {32, 1, 1}, {32, 1, 0, 0}, 1);
  ASSERT_TRUE(b.res.ok()) << b.res.report();
  EXPECT_GE(b.st.mem.l2_sectors_read, 2 * read * m.icache_line / m.l2.sector);
  EXPECT_LE(b.st.mem.dram_bytes_read, (read + 4) * m.icache_line * m.l2.fetch_sectors);
}

// A chain of `n` dependent add.u32, each result read once by the next (`twice`: read twice, as
// both operands). ptxas merges pairs of such adds into one three-input IADD3 (our cuobjdump of
// validation/mem/bandwidth.cu: four PTX adds of `acc += v.x + v.y + v.z + v.w` are two IADD3).
std::string add_chain_kernel(unsigned n, bool twice) {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u32 %r<)" + std::to_string(n + 4) + R"(>;
  .reg .u64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
)";
  for (unsigned i = 1; i <= n; ++i)
    s += "  add.u32 %r" + std::to_string(i + 1) + ", %r" + std::to_string(i) + ", " +
         (twice ? "%r" + std::to_string(i) : std::to_string(i)) + ";\n";
  s += "  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r" + std::to_string(n + 1) +
       ";\n  ret;\n}\n";
  return s;
}

TEST(Timing, AddPairsMergeIntoThreeInputAdds) {
  config::Machine m = test_machine();  // int latency 4
  const unsigned n = 400;
  // Merged: every other add issues with no latency of its own (1 cycle to its reader).
  Timed a = run_timed(m, add_chain_kernel(n, false), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(a.res.ok()) << a.res.report();
  EXPECT_GE(a.st.cycles, n / 2 * 4 + n / 2);
  EXPECT_LE(a.st.cycles, n / 2 * 4 + n / 2 + 40 + store_tail(m));
  // tid + 1 + 2 + ... + n: the values do not change.
  uint32_t want = n * (n + 1) / 2;
  EXPECT_EQ(reinterpret_cast<const uint32_t&>(a.out[5]), want + 5);
  // Each value read twice: nothing merges, the chain costs 4 cycles per add.
  Timed b = run_timed(m, add_chain_kernel(n, true), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(b.res.ok()) << b.res.report();
  EXPECT_GE(b.st.cycles, n * 4);
  EXPECT_LE(b.st.cycles, n * 4 + 40 + store_tail(m));
}

// `chains` independent chains of xor.b32 and shl.b32 (integer class, never merged into IADD3s),
// `n` steps each, one warp.
std::string int_chains_kernel(unsigned chains, unsigned n) {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<)" + std::to_string(chains + 4) + R"(>;
  .reg .u64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
)";
  for (unsigned c = 0; c < chains; ++c) s += "  add.u32 %r" + std::to_string(c + 2) + ", %r1, " + std::to_string(c) + ";\n";
  for (unsigned i = 0; i < n; ++i)
    for (unsigned c = 0; c < chains; ++c) {
      const std::string r = "%r" + std::to_string(c + 2);
      s += i % 2 ? "  shl.b32 " + r + ", " + r + ", 1;\n" : "  xor.b32 " + r + ", " + r + ", " + std::to_string(i * 7 + 3) + ";\n";
    }
  for (unsigned c = 1; c < chains; ++c) s += "  xor.b32 %r2, %r2, %r" + std::to_string(c + 2) + ";\n";
  s += "  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\n  ret;\n}\n";
  return s;
}

// With sm.int_on_fma_pipe, integer arithmetic takes the FMA pipe when the ALU is busy (ptxas's
// IMAD.MOV / IMAD.SHL / VIADD next to IADD3 / LOP3): independent integer work issues every cycle
// where the 16-lane ALU alone takes two cycles per warp instruction. Values do not change.
TEST(Timing, IntegerWorkSpreadsOverTheAluAndFmaPipes) {
  const unsigned chains = 8, n = 256;
  uint32_t want[32];
  for (unsigned lane = 0; lane < 32; ++lane) {
    uint32_t r[chains];
    for (unsigned c = 0; c < chains; ++c) r[c] = lane + c;
    for (unsigned i = 0; i < n; ++i)
      for (unsigned c = 0; c < chains; ++c) r[c] = i % 2 ? r[c] << 1 : r[c] ^ (i * 7 + 3);
    for (unsigned c = 1; c < chains; ++c) r[0] ^= r[c];
    want[lane] = r[0];
  }
  for (bool spread : {false, true}) {
    SCOPED_TRACE(spread ? "int on fma" : "alu only");
    config::Machine m = test_machine();  // int: alu, 16 lanes: 2 cycles per warp instruction
    m.int_on_fma_pipe = spread;
    Timed t = run_timed(m, int_chains_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(t.res.ok()) << t.res.report();
    if (spread) EXPECT_LE(t.st.cycles, chains * n * 5 / 4 + 100 + store_tail(m));
    else EXPECT_GE(t.st.cycles, chains * n * 2);
    for (unsigned lane = 0; lane < 32; ++lane) EXPECT_EQ(reinterpret_cast<const uint32_t&>(t.out[lane]), want[lane]);
  }
}

// One warp issuing `n` independent mma instructions (each writes its own D from the same A, B, C).
// acc: the C/D type ("f32", or "s32" for integer mma); ab: the 32-bit pattern of every A/B register
// (default: f16x2 ones).
std::string mma_kernel(const std::string& instr, unsigned na, unsigned nb, bool sparse, unsigned n,
                       const std::string& acc = "f32", const std::string& ab = "0x3c003c00") {
  auto vec = [](const std::string& p, unsigned cnt, unsigned base) {
    std::string v = "{";
    for (unsigned i = 0; i < cnt; ++i) v += (i ? ", %" : "%") + p + std::to_string(base + i);
    return v + "}";
  };
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %a<4>;
  .reg .b32 %b<4>;
  .reg .)" + acc + R"( %c<4>;
  .reg .)" + acc + R"( %d<)" + std::to_string(4 * n) + R"(>;
  .reg .b32 %e;
  .reg .u64 %rd<4>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.b32 %e, 0x44444444;
)";
  for (unsigned i = 0; i < 4; ++i)
    s += "  mov.b32 %a" + std::to_string(i) + ", " + ab + ";\n  mov.b32 %b" + std::to_string(i) + ", " + ab +
         ";\n  mov.b32 %c" + std::to_string(i) + ", 0;\n";
  for (unsigned i = 0; i < n; ++i)
    s += "  " + instr + " " + vec("d", 4, 4 * i) + ", " + vec("a", na, 0) + ", " + vec("b", nb, 0) + ", " + vec("c", 4, 0) +
         (sparse ? ", %e, 0;\n" : ";\n");
  for (unsigned i = 1; i < n; ++i) s += "  add." + acc + " %d0, %d0, %d" + std::to_string(4 * i) + ";\n";
  s += R"(  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.)" + acc + R"( [%rd3], %d0;
  ret;
}
)";
  return s;
}

// The test machine with a tensor pipe: 256 f16 FMA per clock per core, 10 cycles of latency.
config::Machine tensor_machine() {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::Tensor)] = {Pipe::Tensor, 10, 1, config::Scoreboard::Fixed};
  m.tensor_fma_f16 = 256;
  m.tensor_latency = 10;
  return m;
}

// A sparse tensor core does an MxNxK mma.sp in the time of a dense MxNx(K/2) mma (A100 whitepaper:
// the Sparse Tensor Core "doubles math throughput by skipping the zeros"). Independent mma's are
// bound by the tensor pipe: shape FMAs / tensor_fma_f16 cycles each.
TEST(Timing, SparseMmaRunsAtTwiceTheDenseRate) {
  config::Machine m = tensor_machine();
  const unsigned n = 48;
  const uint64_t dense_k16 = 16 * 8 * 16 / m.tensor_fma_f16;  // cycles per dense m16n8k16
  Timed dense = run_timed(m, mma_kernel("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, false, n),
                          {1, 1, 1}, {32, 1, 1});
  Timed sp32 = run_timed(m, mma_kernel("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 4, 4, true, n),
                         {1, 1, 1}, {32, 1, 1});
  Timed sp16 = run_timed(m, mma_kernel("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 2, 2, true, n),
                         {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(dense.res.ok()) << dense.res.report();
  ASSERT_TRUE(sp32.res.ok()) << sp32.res.report();
  ASSERT_TRUE(sp16.res.ok()) << sp16.res.report();
  // Every D is 16 (dense k16: 16 products of 1*1) or 16 (sparse k32: 16 kept products) or 8.
  EXPECT_EQ(dense.out[0], 16.0f * n);
  EXPECT_EQ(sp32.out[0], 16.0f * n);
  EXPECT_EQ(sp16.out[0], 8.0f * n);
  // The tail: the chain of n-1 dependent adds (4 cycles each) and the store.
  const uint64_t slack = 40 + 4 * n + store_tail(m);
  EXPECT_GE(dense.st.cycles, n * dense_k16);
  EXPECT_LE(dense.st.cycles, n * dense_k16 + slack);
  EXPECT_LE(sp32.st.cycles, dense.st.cycles + 4);
  EXPECT_GE(sp32.st.cycles + 4, dense.st.cycles);
  // m16n8k16 sparse: half the pipe cycles of the dense m16n8k16, the same tail.
  EXPECT_NEAR(double(dense.st.cycles - sp16.st.cycles), double(n * dense_k16 / 2), 8.0);
}

// Volta has two tensor cores per sub-core ([VS]: eight per SM, four sub-cores): a sub-core's mma
// stream runs at twice the per-core rate.
TEST(Timing, TwoTensorCoresPerSubCoreDoubleTheRate) {
  config::Machine m = tensor_machine();
  m.tensor_fma_f16 = 64;
  const unsigned n = 48;
  const std::string k = mma_kernel("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, false, n);
  m.tensor_cores_per_sm = 4;
  Timed one = run_timed(m, k, {1, 1, 1}, {32, 1, 1});
  m.tensor_cores_per_sm = 8;
  Timed two = run_timed(m, k, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(one.res.ok() && two.res.ok());
  const uint64_t per_mma = 16 * 8 * 16 / m.tensor_fma_f16;  // one core: 32 cycles
  // Within one mma: how much of the last mma's result latency the tail hides differs.
  EXPECT_NEAR(double(one.st.cycles - two.st.cycles), double(n * per_mma / 2), double(per_mma / 2));
}

// tensor.sync_overhead (the H100 holds its pipe 2 cycles longer per mma.sync than the shape needs):
// n independent mma's take n x overhead cycles more.
TEST(Timing, MmaSyncOverheadAddsPipeCycles) {
  config::Machine m = tensor_machine();
  const unsigned n = 48;
  const std::string k = mma_kernel("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, false, n);
  Timed base = run_timed(m, k, {1, 1, 1}, {32, 1, 1});
  m.tensor_sync_overhead = 3;
  Timed slow = run_timed(m, k, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(base.res.ok() && slow.res.ok());
  EXPECT_NEAR(double(slow.st.cycles - base.st.cycles), double(n * 3), 4.0);
}

// An mma type the tensor cores lack (tensor.s4_emulation_*, the H100's .s4: ptxas calls a
// subroutine per mma): one warp runs its mma's one after another, each for the emulation latency
// (independent or not), and warps sharing a sub-core are bound by the emulation's issue cycles.
TEST(Timing, EmulatedMmaHoldsItsWarpAndTakesTheSubCoresCycles) {
  config::Machine m = tensor_machine();
  m.tensor_fma_i4 = 1024;
  const unsigned n = 8;
  // A = B = all-ones nibbles: every D element is 64.
  const std::string k = mma_kernel("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", 4, 2, false, n, "s32", "0x11111111");
  Timed native = run_timed(m, k, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(native.res.ok()) << native.res.report();
  EXPECT_EQ(reinterpret_cast<const int32_t&>(native.out[0]), 64 * int(n));
  m.tensor_emulated_s4 = {400, 300};
  Timed one = run_timed(m, k, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(one.res.ok()) << one.res.report();
  EXPECT_EQ(one.out, native.out);
  const uint64_t tail = 40 + 4 * n + store_tail(m);
  EXPECT_GE(one.st.cycles, n * 400);  // serial: natively these 8 overlap in the pipe
  EXPECT_LE(one.st.cycles, n * 400 + tail);
  EXPECT_LT(native.st.cycles, n * 100);
  // Four warps on each sub-core: each mma takes 300 of the sub-core's cycles, more than a quarter
  // of the 400-cycle latency: 4 x n x 300.
  Timed four = run_timed(m, k, {1, 1, 1}, {512, 1, 1});
  ASSERT_TRUE(four.res.ok()) << four.res.report();
  EXPECT_GE(four.st.cycles, 4 * n * 300);
  EXPECT_LE(four.st.cycles, 4 * n * 300 + 400 + tail);
}

TEST(Timing, SubCoresIssueInParallel) {
  config::Machine m = test_machine();
  const unsigned n = 300;
  Timed one = run_timed(m, fma_kernel(1, n), {1, 1, 1}, {32, 1, 1});
  Timed four = run_timed(m, fma_kernel(1, n), {1, 1, 1}, {128, 1, 1});  // one warp per sub-core
  Timed eight = run_timed(m, fma_kernel(1, n), {1, 1, 1}, {256, 1, 1});  // two: fill the 4-cycle gaps
  Timed sixteen = run_timed(m, fma_kernel(1, n), {1, 1, 1}, {512, 1, 1});  // four: pipe-bound, 2x
  ASSERT_TRUE(sixteen.res.ok());
  EXPECT_LE(four.st.cycles, one.st.cycles + 10);
  EXPECT_LE(eight.st.cycles, one.st.cycles + 20);
  EXPECT_GE(sixteen.st.cycles, 2 * n * 4);
  EXPECT_LE(sixteen.st.cycles, 2 * n * 4 + 80 + store_tail(m));
  EXPECT_NEAR(four.st.issue_utilisation_per_sub_core[0], four.st.issue_utilisation_per_sub_core[3], 1e-9);
}

TEST(Timing, GreedyAndRoundRobinComputeTheSameValues) {
  config::Machine m = test_machine();
  Timed g = run_timed(m, fma_kernel(2, 50), {3, 1, 1}, {256, 1, 1});
  m.scheduler = config::SchedulerPolicy::Lrr;
  Timed r = run_timed(m, fma_kernel(2, 50), {3, 1, 1}, {256, 1, 1});
  ASSERT_TRUE(g.res.ok());
  ASSERT_TRUE(r.res.ok());
  EXPECT_EQ(g.out, r.out);
  EXPECT_EQ(g.st.warp_instrs, r.st.warp_instrs);
}

TEST(Timing, BarrierHoldsTheWarpsThatArriveEarly) {
  config::Machine m = test_machine();
  const unsigned n = 300;
  // Warp 0 runs a chain of n FMAs before the barrier; warp 1 reaches it at once and waits.
  Timed t = run_timed(m, fma_kernel(1, n, true), {1, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(t.res.ok()) << t.res.report();
  EXPECT_GE(t.st.stalls[unsigned(stats::Stall::Barrier)], uint64_t(n) * 4 - 50);
  m.barrier_latency = 20;
  Timed u = run_timed(m, fma_kernel(1, n, true), {1, 1, 1}, {64, 1, 1});
  EXPECT_GE(u.st.cycles, t.st.cycles + 20);
}

TEST(Timing, CtasWaitForAFreeSm) {
  config::Machine m = test_machine();
  const unsigned n = 200;
  Timed one = run_timed(m, fma_kernel(1, n), {1, 1, 1}, {32, 1, 1});
  // 8 CTAs on 4 SMs, one CTA per SM at a time: two waves.
  Timed waves = run_timed(m, fma_kernel(1, n), {8, 1, 1}, {32, 1, 1}, {32, 1, 0, 0}, 1);
  // The compute doubles; the first wave's stores drain while the second wave runs.
  EXPECT_GE(waves.st.cycles, 2 * (one.st.cycles - store_tail(m)) - 10);
  EXPECT_LE(waves.st.cycles, 2 * one.st.cycles + 40);
  // Two per SM: their warps land on different sub-cores and run together.
  Timed both = run_timed(m, fma_kernel(1, n), {8, 1, 1}, {32, 1, 1}, {32, 1, 0, 0}, 2);
  EXPECT_LE(both.st.cycles, one.st.cycles + 30);
  EXPECT_EQ(waves.out, both.out);
  // Shared memory as the limit: 60 KB per CTA on a 100 KB SM is one at a time.
  Timed smem = run_timed(m, fma_kernel(1, n), {8, 1, 1}, {32, 1, 1}, {32, 1, 0, 60 * 1024}, 0);
  EXPECT_EQ(smem.st.ctas_per_sm, 1u);
  EXPECT_GE(smem.st.cycles, 2 * (one.st.cycles - store_tail(m)) - 10);
}

TEST(Timing, DispatchOrderSpreadsOverGpcsAndTpcs) {
  config::Machine m = test_machine();
  m.sms = 6;
  m.gpcs = 2;
  m.tpcs_per_gpc = {2, 1};
  Gpu g(m);
  // SM ids: GPC0 TPC0 {0,1}, GPC0 TPC1 {2,3}, GPC1 TPC0 {4,5}.
  EXPECT_EQ(g.dispatch_order(), (std::vector<uint32_t>{0, 4, 2, 1, 5, 3}));
}

TEST(Timing, G80IssuesAtHalfRateOnEightLanes) {
  config::Machine m = test_machine();
  m.issue_model = config::IssueModel::G80;
  m.sub_cores = 1;
  m.issue_clock_ratio = 0.5;
  m.pipe_lanes.fill(8);  // a warp instruction takes 4 cycles on 8 SPs
  const unsigned n = 100, chains = 4;
  Timed t = run_timed(m, fma_kernel(chains, n), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(t.res.ok());
  EXPECT_GE(t.st.cycles, n * chains * 4);
  EXPECT_LE(t.st.cycles, n * chains * 4 + 80 + store_tail(m));
}

TEST(Timing, LongLatencyLoadsShowAsLongScoreboard) {
  config::Machine m = test_machine();
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<4>;
  .reg .u64 %rd<4>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd3], %f2;
  ret;
}
)";
  Timed t = run_timed(m, ptx, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(t.res.ok());
  // A cold load: page walk, L1 miss, crossbar, L2 miss, DRAM (closed bank), crossbar back.
  const auto& d = m.dram.timing;
  const uint64_t miss = m.tlb.l2_latency + m.tlb.walk_latency + m.l1.miss_latency + 2 * (2 + m.xbar.latency) +
                        m.l2.hit_latency + m.l2.dram_latency + d.nRCD + d.nCL + m.dram.burst_length / 2;
  EXPECT_GE(t.st.cycles, miss);
  EXPECT_LE(t.st.cycles, miss + d.nRP + 40 + store_tail(m) - m.tlb.walk_latency);  // + the store's drain
  EXPECT_GE(t.st.stalls[unsigned(stats::Stall::LongScoreboard)], miss - 10);
  EXPECT_EQ(t.out[5], 1.0f);
}

TEST(Timing, DeadlockIsReported) {
  config::Machine m = test_machine();
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u32 %r<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra END;
  bar.sync 1, 64;
END:
  ret;
}
)";
  Timed t = run_timed(m, ptx, {1, 1, 1}, {64, 1, 1});
  EXPECT_EQ(t.res.fault.kind, func::FaultKind::Deadlock) << t.res.report();
}

TEST(Timing, ClockReadsTheSmCycle) {
  config::Machine m = test_machine();
  // Two clock reads around a 100-FMA dependent chain differ by about 100 x 4 cycles.
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<4>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0f3F000000;
  mov.u64 %rd4, %clock64;
)";
  for (int i = 0; i < 100; ++i) s += "  fma.rn.f32 %f1, %f1, 0f3F000000, 0f3E800000;\n";
  s += R"(  mov.f32 %f2, %f1;
  mov.u64 %rd5, %clock64;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f3, %rd6;
  st.global.f32 [%rd1], %f3;
  st.global.f32 [%rd1+4], %f2;
  ret;
}
)";
  Timed t = run_timed(m, s, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(t.res.ok());
  EXPECT_GE(t.out[0], 400.0f);
  EXPECT_LE(t.out[0], 416.0f);
}

// A device printf (a call to vprintf) runs the driver's code on hardware: thousands of cycles
// (validation/workloads/probes/calls.cu measures ~45,700 on the H100). The model does not run that
// code; the warp waits sm.latency.printf after the call. out[0] = the cycles between two clock
// reads around one printf of one thread.
std::string printf_kernel() {
  return R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[4] = {104, 105, 10, 0};
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<2>;
  .reg .b32 %r<2>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.global.u64 %rd2, fmt;
  mov.u64 %rd3, 0;
  mov.u64 %rd4, %clock64;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd3;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r1, [retval0+0];
  }
  mov.u64 %rd5, %clock64;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f1, %rd6;
  st.global.f32 [%rd1], %f1;
  ret;
}
)";
}

// Each thread stores its global index: a grid of many CTAs that each do almost nothing.
const char* kStoreIndexKernel = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<5>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

// The work distributor starts one CTA per sm.latency.cta_dispatch_interval cycles over the whole
// GPU (configs/h100.toml, [MEAS-CTA]): 4,000 short CTAs on 4 SMs take at least 4,000 intervals,
// however many SM slots are free; without the limit the same grid runs in a fraction of that, and
// a grid of a few long CTAs barely notices it.
TEST(Timing, CtaDispatchIntervalBoundsGridsOfShortCtas) {
  config::Machine m = test_machine();
  m.cta_dispatch_interval = 0;
  Timed free_run = run_timed(m, kStoreIndexKernel, {4000, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(free_run.res.ok()) << free_run.res.report();
  m.cta_dispatch_interval = 12.5;
  Timed limited = run_timed(m, kStoreIndexKernel, {4000, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(limited.res.ok()) << limited.res.report();
  for (uint32_t i = 0; i < 4000 * 32; i += 997) ASSERT_EQ(std::bit_cast<uint32_t>(limited.out[i]), i);
  EXPECT_GE(limited.st.cycles, 50000u);  // 4,000 x 12.5
  EXPECT_LE(limited.st.cycles, 50000u + 3000u);  // + the last CTA's own run and the stores' drain
  EXPECT_LT(free_run.st.cycles, 25000u);
  // Eight CTAs: the last starts 87.5 cycles after the first.
  Timed few_free = run_timed(m = test_machine(), kStoreIndexKernel, {8, 1, 1}, {32, 1, 1});
  m.cta_dispatch_interval = 12.5;
  Timed few = run_timed(m, kStoreIndexKernel, {8, 1, 1}, {32, 1, 1});
  EXPECT_LE(few.st.cycles, few_free.st.cycles + 88u);
  EXPECT_GE(few.st.cycles, few_free.st.cycles);
}

// 64 fences of the given scope in a loop; out[0] = thread 0's clock64 cycles for the loop.
std::string fence_loop_kernel(const char* fence) {
  return fmt::format(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{{
  .reg .u64 %rd<5>;
  .reg .u32 %r<2>;
  .reg .f32 %f<2>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 0;
  mov.u64 %rd2, %clock64;
L:
  {};
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 64;
  @%p1 bra L;
  mov.u64 %rd3, %clock64;
  sub.u64 %rd4, %rd3, %rd2;
  cvt.rn.f32.u64 %f1, %rd4;
  st.global.f32 [%rd1], %f1;
  ret;
}}
)", fence);
}

// A fence of CTA scope costs sm.latency.membar_cta (the H100: 12 cycles, [MEAS-FENCE]); one of GPU
// scope still waits ops.membar's latency, and without the key a CTA fence does too.
TEST(Timing, CtaScopeFenceCostsItsOwnLatency) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::Membar)] = {Pipe::Lsu, 500, 1, config::Scoreboard::Long};
  m.membar_cta_latency = 12;
  for (const char* f : {"membar.cta", "fence.sc.cta", "fence.acq_rel.cta"}) {
    Timed a = run_timed(m, fence_loop_kernel(f), {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(a.res.ok()) << a.res.report();
    EXPECT_GE(a.out[0], 64 * 12.0f) << f;
    EXPECT_LE(a.out[0], 64 * (12.0f + 12.0f)) << f;  // + the loop's add, setp and branch
  }
  Timed gl = run_timed(m, fence_loop_kernel("membar.gl"), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(gl.res.ok()) << gl.res.report();
  EXPECT_GE(gl.out[0], 64 * 500.0f);
  m.membar_cta_latency = 0;
  Timed unset = run_timed(m, fence_loop_kernel("membar.cta"), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(unset.res.ok()) << unset.res.report();
  EXPECT_GE(unset.out[0], 64 * 500.0f);
}

TEST(Timing, DevicePrintfHoldsTheWarpForItsConfiguredCost) {
  config::Machine m = test_machine();
  m.printf_latency = 5000;
  Timed a = run_timed(m, printf_kernel(), {1, 1, 1}, {1, 1, 1});
  ASSERT_TRUE(a.res.ok()) << a.res.report();
  EXPECT_GE(a.out[0], 5000.0f);
  EXPECT_LE(a.out[0], 5100.0f);
  EXPECT_GE(a.st.cycles, 5000u);
  // With no cost the call is one branch-pipe instruction.
  m.printf_latency = 0;
  Timed b = run_timed(m, printf_kernel(), {1, 1, 1}, {1, 1, 1});
  ASSERT_TRUE(b.res.ok()) << b.res.report();
  EXPECT_LE(b.out[0], 100.0f);
}

// One 64-thread block, 8 rounds of barrier.sync 0 (not .aligned); with `split` each warp reaches it
// on two paths (odd and even lanes). out[0] = thread 0's clock64 cycles for the rounds.
std::string divergent_barrier_kernel(bool split, const char* barrier = "barrier.sync 0") {
  return fmt::format(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{{
  .reg .u64 %rd<8>;
  .reg .u32 %r<6>;
  .reg .f32 %f<2>;
  .reg .pred %p<3>;
  ld.param.u64 %rd7, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r3, %r1, {0};
  setp.ne.u32 %p2, %r3, 0;
  mov.u32 %r2, 0;
  mov.u64 %rd4, %clock64;
L:
  @%p2 bra ODD;
  {1};
  bra.uni NEXT;
ODD:
  {1};
NEXT:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 8;
  @%p1 bra L;
  mov.u64 %rd5, %clock64;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f1, %rd6;
  st.global.f32 [%rd7], %f1;
DONE:
  ret;
}}
)", split ? 1 : 0, barrier);
}

TEST(Timing, DivergentWarpsPayTheirBarrierSyncSequence) {
  config::Machine m = test_machine();
  m.barrier_divergent_latency = 1000;
  Timed conv = run_timed(m, divergent_barrier_kernel(false), {1, 1, 1}, {64, 1, 1});
  Timed div = run_timed(m, divergent_barrier_kernel(true), {1, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(conv.res.ok()) << conv.res.report();
  ASSERT_TRUE(div.res.ok()) << div.res.report();
  // Converged warps pay nothing; a split warp arrives twice per round, each arrival holding it.
  EXPECT_LT(conv.out[0], 8 * 1000.0f);
  EXPECT_GE(div.out[0], 8 * 2 * 1000.0f);
  EXPECT_LE(div.out[0], 8 * 2 * 1000.0f + 8 * 400.0f);
  // The cost is sm.latency.barrier_divergent's: without it the split warps are as quick as the
  // converged ones, give or take the second path's issue.
  m.barrier_divergent_latency = 0;
  Timed free = run_timed(m, divergent_barrier_kernel(true), {1, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(free.res.ok()) << free.res.report();
  EXPECT_LT(free.out[0], 8 * 1000.0f);
  // bar.sync (.aligned) carries no cost: every lane of a warp reaches it together.
  m.barrier_divergent_latency = 1000;
  Timed aligned = run_timed(m, divergent_barrier_kernel(false, "bar.sync 0"), {1, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(aligned.res.ok()) << aligned.res.report();
  EXPECT_LT(aligned.out[0], 8 * 1000.0f);
}

// A pointer chase by one thread over a module buffer that nothing wrote (it reads as zero): each
// load's value is added to the address (`ld; add`), so the next load depends on this one. With
// stride 0 every load hits the same line; with stride 128 each touches a new line. out[0] = the
// cycles of `n` iterations.
std::string chase_kernel(const char* cop, unsigned stride, unsigned n) {
  return fmt::format(R"(.version 8.0
.target sm_80
.address_size 64
.global .align 128 .b8 buf[1048576];
.visible .entry k(.param .u64 out)
{{
  .reg .u64 %rd<8>;
  .reg .u32 %r<4>;
  .reg .pred %p;
  ld.param.u64 %rd7, [out];
  mov.u64 %rd1, buf;
  ld.global{0}.u64 %rd2, [%rd1];
  add.u64 %rd1, %rd1, %rd2;
  mov.u32 %r2, 0;
  mov.u64 %rd4, %clock64;
L:
  ld.global{0}.u64 %rd2, [%rd1];
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p, %r2, {2};
  add.u64 %rd1, %rd1, %rd2;
  add.u64 %rd1, %rd1, {1};
  @%p bra L;
  mov.u64 %rd5, %clock64;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f1, %rd6;
  st.global.f32 [%rd7], %f1;
  ret;
}}
)", cop, stride, n);
}

double cycles_per_load(const config::Machine& m, const char* cop, unsigned stride, unsigned n) {
  std::string ptx = chase_kernel(cop, stride, n);
  ptx.replace(ptx.find(".reg .pred %p;"), 14, ".reg .pred %p;\n  .reg .f32 %f<2>;");
  Timed t = run_timed(m, ptx, {1, 1, 1}, {1, 1, 1});
  EXPECT_TRUE(t.res.ok()) << t.res.report();
  return t.out.empty() ? 0 : double(t.out[0]) / n;
}

// Expected cycles from the test machine's numbers: an L1 hit costs ops.ld_global.latency; an L2
// hit costs l1.miss_latency + l2.hit_latency + twice (source port cycle + xbar.latency +
// destination port cycle); each iteration adds the dependent 64-bit add (ops.int latency 4) twice.
TEST(Memory, PointerChaseLatenciesComposeFromTheConfig) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::LdGlobal)] = {Pipe::Lsu, 30, 1, config::Scoreboard::Long};
  const double add = 2 * 4;
  const double l2 = l2_hit_cycles(m);
  EXPECT_NEAR(cycles_per_load(m, "", 0, 64), 30 + add, 0.5);           // L1 hits
  EXPECT_NEAR(cycles_per_load(m, ".cg", 0, 64), l2 + add, 0.5);        // .cg: L2 hits
  // New lines every load: L2 misses to DRAM. Its own part is between a row hit (CL + burst) and
  // a row conflict (RP + RCD + CL + burst), in DRAM clocks (here 1 per SM cycle).
  const auto& t = m.dram.timing;
  double dram = cycles_per_load(m, ".cg", 128, 64) - (l2 + add + m.l2.dram_latency);
  EXPECT_GE(dram, t.nCL + m.dram.burst_length / 2 - 1.0);
  EXPECT_LE(dram, t.nRP + t.nRCD + t.nCL + m.dram.burst_length / 2 + 2.0);
}

// Same machine, a bigger L2 latency: the chase follows (a test that the config drives the model).
TEST(Memory, L2LatencyFollowsTheConfig) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::LdGlobal)] = {Pipe::Lsu, 30, 1, config::Scoreboard::Long};
  double a = cycles_per_load(m, ".cg", 0, 32);
  m.l2.hit_latency += 40;
  double b = cycles_per_load(m, ".cg", 0, 32);
  EXPECT_NEAR(b - a, 40, 0.5);
}

// A createpolicy evict_last policy passed with .L2::cache_hint keeps 128 hot lines in the L2
// set-aside through a stream three times the L2 (all .cg, so L1 plays no part): the re-read of the
// hot lines then costs an L2 hit; without a set-aside evict_last is normal and they come from DRAM.
TEST(Memory, EvictLastPolicyKeepsHotLinesInTheSetAside) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::LdGlobal)] = {Pipe::Lsu, 30, 1, config::Scoreboard::Long};
  auto kernel = [&](unsigned stream_iters) { return fmt::format(R"(.version 8.0
.target sm_80
.address_size 64
.global .align 128 .b8 hot[16384];
.global .align 128 .b8 cold[{0}];
.visible .entry k(.param .u64 out)
{{
  .reg .u64 %rd<12>;
  .reg .u32 %r<12>;
  .reg .b64 %pol;
  .reg .pred %p;
  .reg .f32 %f<2>;
  ld.param.u64 %rd9, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 128;
  mov.u64 %rd2, hot;
  add.u64 %rd2, %rd2, %rd1;
  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;
  ld.global.cg.L2::cache_hint.u32 %r2, [%rd2], %pol;
  ld.global.cg.L2::cache_hint.u32 %r3, [%rd2+4096], %pol;
  ld.global.cg.L2::cache_hint.u32 %r4, [%rd2+8192], %pol;
  ld.global.cg.L2::cache_hint.u32 %r5, [%rd2+12288], %pol;
  add.u32 %r6, %r2, %r3;
  add.u32 %r6, %r6, %r4;
  add.u32 %r6, %r6, %r5;
  mov.u64 %rd3, cold;
  add.u64 %rd3, %rd3, %rd1;
  mov.u32 %r7, 0;
L:
  ld.global.cg.u32 %r8, [%rd3];
  add.u32 %r6, %r6, %r8;
  add.u64 %rd3, %rd3, 4096;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p, %r7, {1};
  @%p bra L;
  mov.u64 %rd4, %clock64;
  ld.global.cg.u32 %r2, [%rd2];
  ld.global.cg.u32 %r3, [%rd2+4096];
  ld.global.cg.u32 %r4, [%rd2+8192];
  ld.global.cg.u32 %r5, [%rd2+12288];
  add.u32 %r6, %r6, %r2;
  add.u32 %r6, %r6, %r3;
  add.u32 %r6, %r6, %r4;
  add.u32 %r6, %r6, %r5;
  mov.u64 %rd5, %clock64;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f1, %rd6;
  mul.wide.u32 %rd7, %r1, 4;
  add.u64 %rd8, %rd9, %rd7;
  st.global.f32 [%rd8], %f1;
  ret;
}}
)", 3 * m.l2_bytes, stream_iters); };
  const std::string ptx = kernel(unsigned(3 * m.l2_bytes / 4096));
  const double l2 = l2_hit_cycles(m);
  Timed with = run_timed(m, ptx, {1, 1, 1}, {32, 1, 1}, {}, 0, m.l2_bytes / 4);
  Timed without = run_timed(m, ptx, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(with.res.ok()) << with.res.report();
  ASSERT_TRUE(without.res.ok()) << without.res.report();
  // The same re-read right after the hot loads (one stream line in between): all L2 hits.
  Timed warm = run_timed(m, kernel(1), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(warm.res.ok());
  std::printf("hot re-read: %.0f cycles with a set-aside, %.0f without, %.0f warm (L2 hit path %.0f)\n",
              with.out[0], without.out[0], warm.out[0], l2);
  EXPECT_GE(warm.out[0], l2);
  EXPECT_NEAR(with.out[0], warm.out[0], 8);
  EXPECT_GE(without.out[0] - with.out[0], m.l2.dram_latency);  // the DRAM path, at least its fixed part
}

// The MIO queue: one warp issues 8 independent ld.shared.v4 (32 lanes x 16 B = 4 wavefronts of
// 128 B each, so the unit is busy 4 cycles per load) between two clock reads. Without a queue
// the warp waits for the unit before each load: 7 x 4 cycles. With 8 queue slots it hands all 8
// over in 8 issue cycles and goes on; the loads still take the unit 4 cycles each.
TEST(Timing, MioQueueLetsAWarpHandOverSharedLoads) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::LdShared)] = {Pipe::Mio, 20, 1, config::Scoreboard::Short};
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u64 %rd<8>;
  .reg .u32 %r<8>;
  .reg .f32 %f<40>;
  .shared .align 16 .b8 sm[1024];
  ld.param.u64 %rd7, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, sm;
  add.u32 %r4, %r3, %r2;
  mov.u64 %rd4, %clock64;
)";
  for (int i = 0; i < 8; ++i)
    s += fmt::format("  ld.shared.v4.f32 {{%f{}, %f{}, %f{}, %f{}}}, [%r4];\n", 4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3);
  s += R"(  mov.u64 %rd5, %clock64;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f33, %rd6;
  add.f32 %f34, %f0, %f31;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd7, %rd2;
  st.global.f32 [%rd3], %f33;
  ret;
}
)";
  Timed none = run_timed(m, s, {1, 1, 1}, {32, 1, 1});
  m.mio_queue = 8;
  Timed queued = run_timed(m, s, {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(none.res.ok() && queued.res.ok());
  EXPECT_GE(none.out[0], 7 * 4 + 1);
  EXPECT_LE(queued.out[0], 8 + 2);
}

// ---------------------------------------------------------------- global atomics

// The atomics kernels: one .u64 parameter `out` in %rd1, %tid.x in %r1, then `body`.
std::string atom_ptx(const std::string& body) {
  return R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u64 %rd<6>;
  .reg .u32 %r<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
)" + body + "  ret;\n}\n";
}

// One warp: every lane reads its word of out (so the line is in L2), then adds 1 to word 0 of out
// (`same`, through tid x 0: an address the compiler cannot prove uniform, so not aggregated) or
// to its own word (distinct words of one line). With `use` the returned value is read (an atom);
// without, nothing reads it and the instruction is a red (ptxas's choice, which the model follows).
std::string atom_kernel(bool same, bool use) {
  return atom_ptx(fmt::format(R"(  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.cg.u32 %r4, [%rd5];
  add.u32 %r5, %r4, 1;
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, {0};
  add.u64 %rd3, %rd1, %rd2;
  atom.global.add.u32 %r2, [%rd3], 1;
  {1}
)", same ? 0 : 4, use ? "add.u32 %r3, %r2, 1;" : ""));
}

uint32_t word(const Timed& t, size_t i) {
  uint32_t w;
  std::memcpy(&w, &t.out[i], 4);
  return w;
}

// The L1 sends a line's atomics in rounds of distinct addresses (Nsight Compute on the H100: 32
// lanes on one word are 32 L2 requests and 32 sectors, 32 distinct words of a line one request of
// 4 sectors), one request per atomic_request_cycles (+ atomic_return_cycles for an atom) through
// the LSU; the slice's atomic unit takes one sector per L2 clock.
config::Machine atomic_machine() {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::AtomGlobal)] = {Pipe::Lsu, 30, 1, config::Scoreboard::Long};
  return m;
}

TEST(Atomics, RepeatedAddressesSplitIntoRounds) {
  const config::Machine m = atomic_machine();
  std::map<std::pair<bool, bool>, Timed> r;
  for (bool same : {false, true})
    for (bool use : {false, true}) {
      Timed t = run_timed(m, atom_kernel(same, use), {1, 1, 1}, {32, 1, 1});
      ASSERT_TRUE(t.res.ok()) << t.res.report();
      // The functional result: 32 increments on word 0, or one on each word.
      if (same) {
        EXPECT_EQ(word(t, 0), 32u);
        EXPECT_EQ(word(t, 1), 0u);
      } else {
        for (size_t i = 0; i < 32; ++i) EXPECT_EQ(word(t, i), 1u) << i;
      }
      EXPECT_EQ(t.st.mem.l1_atom_requests, 1u);
      EXPECT_EQ(t.st.mem.l1_wavefronts, 1u + (same ? 32u : 1u));  // the load, then the atomic's requests
      EXPECT_EQ(t.st.mem.l2_sectors_atom, same ? 32u : 4u);
      r[{same, use}] = std::move(t);
    }
  const auto cycles = [&](bool same, bool use) { return int64_t(r[{same, use}].st.cycles); };
  // 32 requests leave the LSU (1 + 1) cycles apart for an atom, 1 for a red: the last one 62 or 31
  // cycles after the first, each then serialised on the one slice. The distinct-word request has
  // 4 sectors where each of those has 1: up to 2 port and 4 atomic-unit cycles of its own, and (an
  // atom) its 4-sector answer up to 2 more on the crossbar.
  EXPECT_GE(cycles(true, true) - cycles(false, true), 62 - 8);
  EXPECT_LE(cycles(true, true) - cycles(false, true), 62 + 8);
  EXPECT_GE(cycles(true, false) - cycles(false, false), 31 - 6);
  EXPECT_LE(cycles(true, false) - cycles(false, false), 31 + 8);
  // The red's requests go out twice as fast as the atom's (and both kernels end only when the
  // last one is performed: a red is acknowledged like a store).
  EXPECT_GE(cycles(true, true) - cycles(true, false), 25);
  EXPECT_LE(cycles(true, true) - cycles(true, false), 40);
}

// A kernel that ends with a red lasts until L2 has performed it: at least the L1 miss path, the
// crossbar both ways and the slice after the instruction.
// ptxas aggregates a 32-bit integer atomic add whose address it can prove is the same for the
// whole warp (here the kernel parameter itself): one request. The same word reached through the
// thread index (tid x 0) is not provably uniform: one request per lane.
TEST(Atomics, ProvablyUniformAddressIsOneRequest) {
  const config::Machine m = atomic_machine();
  Timed uni = run_timed(m, atom_ptx("  atom.global.add.u32 %r2, [%rd1], 1;\n  add.u32 %r3, %r2, 1;\n"), {1, 1, 1}, {32, 1, 1});
  Timed lane = run_timed(m, atom_ptx("  mul.wide.u32 %rd2, %r1, 0;\n  add.u64 %rd3, %rd1, %rd2;\n"
                                   "  atom.global.add.u32 %r2, [%rd3], 1;\n  add.u32 %r3, %r2, 1;\n"),
                         {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(uni.res.ok() && lane.res.ok());
  EXPECT_EQ(word(uni, 0), 32u);
  EXPECT_EQ(word(lane, 0), 32u);
  EXPECT_EQ(uni.st.mem.l1_wavefronts, 1u);
  EXPECT_EQ(uni.st.mem.l2_sectors_atom, 1u);
  EXPECT_EQ(lane.st.mem.l1_wavefronts, 32u);
  EXPECT_EQ(lane.st.mem.l2_sectors_atom, 32u);
  // A float add is not aggregated (the sum's order would change the result).
  Timed f = run_timed(m, atom_ptx("  atom.global.add.f32 %r2, [%rd1], 0f3F800000;\n  add.u32 %r3, %r2, 1;\n"), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(f.res.ok());
  EXPECT_EQ(f.st.mem.l1_wavefronts, 32u);
}

TEST(Atomics, RedIsAcknowledgedBeforeTheKernelEnds) {
  const config::Machine m = atomic_machine();
  Timed t = run_timed(m, atom_kernel(false, false), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(t.res.ok()) << t.res.report();
  EXPECT_GE(double(t.st.cycles), l2_hit_cycles(m) + m.tlb.walk_latency);
}

// ---------------------------------------------------------------- store data path

// 32 warps, each STG scattering its 32 lanes over 32 lines (lane l writes word w of line l, w the
// warp), 16 times. The LSU's data pipe takes a lookup per line and store_sector_cycles per partly
// written sector (each gets 4 bytes)
// (the H100: 32 warps storing 32 sectors in 32 lines take 66.5 cycles per STG, stscatter.cu), and
// keeps that time even while the unit waits for miss-status entries (32 stores in flight per STG).
TEST(Timing, ScatteredStoresOccupyTheLsuPerLineAndSector) {
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shr.u32 %r3, %r1, 5;
  shl.b32 %r4, %r2, 5;
  add.u32 %r5, %r4, %r3;
  mul.wide.u32 %rd2, %r5, 4;
  add.u64 %rd3, %rd1, %rd2;
)" + [] {
    std::string b;
    for (int j = 0; j < 16; ++j) b += "  st.global.u32 [%rd3], %r1;\n";
    return b;
  }() + "  ret;\n}\n";
  const uint64_t stores = 32 * 16, per_store = 32 + 32;
  for (uint32_t cost : {0u, 1u}) {
    config::Machine m = test_machine();
    m.l1.store_sector_cycles = cost;
    Timed t = run_timed(m, ptx, {1, 1, 1}, {1024, 1, 1});
    ASSERT_TRUE(t.res.ok()) << t.res.report();
    for (uint32_t l = 0; l < 32; ++l)  // line l: word w is warp w's thread 32w + l
      for (uint32_t w = 0; w < 32; ++w) {
        uint32_t v;
        std::memcpy(&v, &t.out[l * 32 + w], 4);
        ASSERT_EQ(v, 32 * w + l);
      }
    if (cost) EXPECT_GE(t.st.cycles, stores * per_store);
    else EXPECT_LT(t.st.cycles, stores * per_store);
  }
  // Wholly written sectors do not pay per sector: the same 512 STGs, each warp writing one whole
  // line (lane l, word l of line w), take under the lines + sectors cost (5 per STG).
  std::string coalesced = ptx;
  const std::string scatter = "  shl.b32 %r4, %r2, 5;\n  add.u32 %r5, %r4, %r3;\n";
  ASSERT_NE(coalesced.find(scatter), std::string::npos);
  coalesced.replace(coalesced.find(scatter), scatter.size(), "  shl.b32 %r4, %r3, 5;\n  add.u32 %r5, %r4, %r2;\n");
  config::Machine m = test_machine();
  m.l1.store_sector_cycles = 1;
  Timed t = run_timed(m, coalesced, {1, 1, 1}, {1024, 1, 1});
  ASSERT_TRUE(t.res.ok()) << t.res.report();
  uint32_t v;
  std::memcpy(&v, &t.out[33], 4);
  EXPECT_EQ(v, 33u);
  EXPECT_LT(t.st.cycles, stores * (1 + 4));
}

// ---------------------------------------------------------------- constant caches

// The test machine with its constant caches on: a constant-L1 hit costs 20 cycles (ops.ld_const),
// an L1.5 hit 50, an L1.5 miss leaves for L2 60 cycles after issue; one cycle per distinct address.
config::Machine const_machine() {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::LdConst)] = {Pipe::Mio, 20, 1, config::Scoreboard::Short};
  m.ops[unsigned(OpClass::LdGlobal)] = {Pipe::Lsu, 30, 1, config::Scoreboard::Long};
  auto& c = m.const_cache;
  c.enabled = true;
  c.l1_bytes = 2048;
  c.l1_line = 64;
  c.l1_assoc = 4;
  c.l15_bytes = 64 * 1024;
  c.l15_line = 256;
  c.l15_assoc = 4;
  c.l15_latency = 50;
  c.miss_latency = 60;
  c.address_cycles = 1;
  return m;
}

// n dependent FMAs, each with a coefficient read by ld.const just before it: at a fixed address
// (`[coef+k]`; ptxas makes it a constant-bank operand of the FFMA: stencil2d's sm_90 SASS,
// validation/workloads/probes/constfold_sm90_sass.txt) or through a register (`[%rd4+k]`, an LDC).
std::string const_operand_kernel(unsigned n, bool through_register) {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.const .align 4 .f32 coef[4] = {0f3F000000, 0f3F400000, 0f3E800000, 0f3F200000};
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<4>;
  .reg .f32 %c<)" + std::to_string(n + 1) + R"(>;
  .reg .u32 %r<4>;
  .reg .u64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  mov.u64 %rd4, coef;
)";
  for (unsigned i = 0; i < n; ++i) {
    const std::string c = "%c" + std::to_string(i);
    s += "  ld.const.f32 " + c + ", [" + (through_register ? "%rd4" : "coef") + "+" + std::to_string(4 * (i % 4)) + "];\n";
    s += "  fma.rn.f32 %f1, %f1, " + c + ", 0f3F800000;\n";
  }
  s += "  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.f32 [%rd3], %f1;\n  ret;\n}\n";
  return s;
}

// A constant the FMA takes as an operand costs no constant-cache access and no ld.const latency:
// it is timed as ld.param (the test machine's 1 cycle), so the chain costs the FMA's 4 cycles and
// an issue slot per step. Through a register it is an LDC: however early the loads issue (they
// move up), the first FMA waits out ld.const's latency (2000 cycles here, so that it shows).
TEST(Timing, ConstantsAtFixedAddressesAreFmaOperands) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::LdConst)] = {Pipe::Mio, 2000, 1, config::Scoreboard::Short};
  const unsigned n = 64;
  const float coef[4] = {0.5f, 0.75f, 0.25f, 0.625f};
  for (bool through_register : {false, true}) {
    SCOPED_TRACE(through_register ? "through a register" : "fixed address");
    Timed t = run_timed(m, const_operand_kernel(n, through_register), {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(t.res.ok()) << t.res.report();
    if (through_register) EXPECT_GE(t.st.cycles, 2000u + n * 4);
    else EXPECT_LE(t.st.cycles, n * (1 + 4 + 1) + 200 + store_tail(m));
    for (unsigned lane = 0; lane < 32; lane += 7) {
      float f = float(lane);
      for (unsigned i = 0; i < n; ++i) f = std::fma(f, coef[i % 4], 1.0f);
      EXPECT_EQ(t.out[lane], f) << "lane " << lane;
    }
  }
}

// Lane l reads the constant at tab + (l % distinct) * stride + offset twice: a warm-up load (its
// result used before the first clock read) and the timed one between two clock reads. out[tid] =
// the cycles between the clock reads. With `global_warm`, every lane first reads 8 bytes of the
// table's first 256 bytes through a generic pointer with ld.global.cg (so the L2 and the TLB hold
// them), and the warm-up constant load is left out (the timed load is then the first).
// The constant-cache kernels: a 16 KiB .const table `tab`, the output pointer in %rd9, then `body`.
std::string const_ptx(const std::string& body) {
  return R"(.version 8.0
.target sm_80
.address_size 64
.const .align 256 .b8 tab[16384];
.visible .entry k(.param .u64 out)
{
  .reg .u64 %rd<12>;
  .reg .u32 %r<12>;
  .reg .f32 %f<4>;
  .reg .pred %p;
  ld.param.u64 %rd9, [out];
)" + body + "  ret;\n}\n";
}

std::string const_kernel(unsigned distinct, unsigned stride, unsigned offset = 0, bool global_warm = false) {
  return const_ptx(fmt::format(R"(  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, {0};
  mul.wide.u32 %rd1, %r2, {1};
  mov.u64 %rd2, tab;
  add.u64 %rd2, %rd2, %rd1;
  mov.u32 %r4, 0;
{3}
  mov.u64 %rd4, %clock64;
  ld.const.u32 %r5, [%rd2+{2}];
  add.u32 %r6, %r5, %r4;
  mov.u64 %rd5, %clock64;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f1, %rd6;
  mul.wide.u32 %rd7, %r1, 4;
  add.u64 %rd8, %rd9, %rd7;
  st.global.f32 [%rd8], %f1;
)", distinct, stride, offset,
                     global_warm ? R"(  cvta.const.u64 %rd10, tab;
  mul.wide.u32 %rd11, %r1, 8;
  add.u64 %rd10, %rd10, %rd11;
  ld.global.cg.u64 %rd11, [%rd10];
  cvt.u32.u64 %r4, %rd11;)"
                                 : R"(  ld.const.u32 %r3, [%rd2];
  add.u32 %r4, %r3, 1;)"));
}

// A warp whose lanes read k distinct addresses is served one address per cycle: after the warm-up
// every address hits the constant L1, so the timed load costs the L1 hit latency plus k - 1
// cycles (CUDA C++ Programming Guide, "Constant Memory": the request is split into k requests).
TEST(ConstCache, DistinctAddressesSerialise) {
  const config::Machine m = const_machine();
  std::map<unsigned, double> cycles;
  for (unsigned k : {1u, 2u, 8u, 32u}) {
    Timed t = run_timed(m, const_kernel(k, 64), {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(t.res.ok()) << t.res.report();
    cycles[k] = t.out[0];
    // Two loads of k addresses each: the warm-up misses once per L1 line, the timed one hits.
    EXPECT_EQ(t.st.mem.const_instructions, 2u);
    EXPECT_EQ(t.st.mem.const_requests, 2u * k);
    EXPECT_EQ(t.st.mem.const_serialization, 2u * (k - 1));
    EXPECT_EQ(t.st.mem.const_l1_hits, k);
    EXPECT_EQ(t.st.mem.const_l1_misses, k);
    // 64-B stride: four L1 lines per 256-B L1.5 line; the first of each misses the L1.5.
    EXPECT_EQ(t.st.mem.const_l15_misses, (k + 3) / 4);
    EXPECT_EQ(t.st.mem.const_l15_hits, k - (k + 3) / 4);
  }
  // One address: the hit latency, plus the dependent add's issue and the clock read around it.
  EXPECT_GE(cycles[1], 20.0);
  EXPECT_LE(cycles[1], 20.0 + 4);
  for (unsigned k : {2u, 8u, 32u}) EXPECT_EQ(cycles[k] - cycles[1], double(k - 1)) << k << " addresses";
  // Lanes reading the same address are one request (broadcast), wherever the lanes are.
  Timed b = run_timed(m, const_kernel(1, 0), {1, 1, 1}, {32, 1, 1});
  EXPECT_EQ(b.out[0], cycles[1]);
}

// The requests of a split ld.const go const_cache.address_cycles apart (the H100 measures 11).
TEST(ConstCache, AddressCyclesSetTheSerialisationStep) {
  config::Machine m = const_machine();
  m.const_cache.address_cycles = 3;
  Timed one = run_timed(m, const_kernel(1, 64), {1, 1, 1}, {32, 1, 1});
  Timed eight = run_timed(m, const_kernel(8, 64), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(one.res.ok() && eight.res.ok());
  EXPECT_EQ(eight.out[0] - one.out[0], 3.0 * (8 - 1));
  EXPECT_EQ(eight.st.mem.const_serialization, 2u * 3 * (8 - 1));
}

// With the model off, ld.const costs its fixed latency whatever the addresses (the old model).
TEST(ConstCache, DisabledKeepsTheFixedLatency) {
  config::Machine m = const_machine();
  m.const_cache.enabled = false;
  Timed one = run_timed(m, const_kernel(1, 64), {1, 1, 1}, {32, 1, 1});
  Timed all = run_timed(m, const_kernel(32, 64), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(one.res.ok() && all.res.ok());
  EXPECT_EQ(one.out[0], all.out[0]);
  EXPECT_GE(one.out[0], 20.0);
  EXPECT_LE(one.out[0], 20.0 + 4);
  EXPECT_EQ(all.st.mem.const_requests, 0u);
}

// A first access misses both levels and fetches its 256-B L1.5 line from L2 (made an L2 hit, and
// its page translated, by a generic ld.global.cg of the same bytes): miss_latency, then the
// crossbar both ways and the L2 slice, as a global L2 hit without the L1's own miss path. A
// repeated access hits the constant L1 (20); another 64-B line of the same L1.5 line misses the
// L1 and hits the L1.5 (50).
TEST(ConstCache, FirstAccessGoesToL2AndRepeatsHit) {
  const config::Machine m = const_machine();
  Timed miss = run_timed(m, const_kernel(1, 0, 0, true), {1, 1, 1}, {32, 1, 1});
  Timed hit = run_timed(m, const_kernel(1, 0, 0, false), {1, 1, 1}, {32, 1, 1});
  Timed l15 = run_timed(m, const_kernel(1, 0, 64, false), {1, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(miss.res.ok() && hit.res.ok() && l15.res.ok());
  EXPECT_EQ(miss.st.mem.const_l15_misses, 1u);
  EXPECT_EQ(l15.st.mem.const_l15_hits, 1u);
  const double l2 = l2_hit_cycles(m) - m.l1.miss_latency + m.const_cache.miss_latency;
  // Two L2 lines per fetch: the second request and response trail the first by a port cycle or two.
  EXPECT_GE(miss.out[0] - hit.out[0], l2 - 20);
  EXPECT_LE(miss.out[0] - hit.out[0], l2 - 20 + 3);
  EXPECT_EQ(l15.out[0] - hit.out[0], 50.0 - 20.0);
}

// One thread makes two passes of 64 loads over `bytes` of constants, a 64-B line per load
// (wrapping around), each load's address depending on the previous value (all zero), the last
// one's value used before the clock is read again. out[0] = the cycles of the second pass.
std::string const_sweep_kernel(unsigned bytes) {
  return const_ptx(fmt::format(R"(  mov.u64 %rd2, tab;
  mov.u32 %r7, 0;
SWEEP:
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
  mov.u64 %rd4, %clock64;
L:
  shl.b32 %r4, %r2, 6;
  and.b32 %r4, %r4, {0};
  add.u32 %r4, %r4, %r3;
  cvt.u64.u32 %rd3, %r4;
  add.u64 %rd1, %rd2, %rd3;
  ld.const.u32 %r3, [%rd1];
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p, %r2, 64;
  @%p bra L;
  add.u32 %r8, %r3, 1;
  mov.u64 %rd5, %clock64;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p, %r7, 2;
  @%p bra SWEEP;
  sub.u64 %rd6, %rd5, %rd4;
  cvt.rn.f32.u64 %f1, %rd6;
  st.global.f32 [%rd9], %f1;
)", bytes - 1));
}

// Capacity: a sweep over 1 KiB stays in the 2 KiB constant L1; a sweep over 4 KiB (64 lines,
// LRU) misses the L1 on every load of the second pass and hits the 64 KiB L1.5. The loop is the
// same, so the second passes differ by 64 x (the L1.5 latency less the L1's) = 64 x (50 - 20).
TEST(ConstCache, SweepBeyondTheL1HitsTheL15) {
  const config::Machine m = const_machine();
  Timed small = run_timed(m, const_sweep_kernel(1024), {1, 1, 1}, {1, 1, 1});
  Timed large = run_timed(m, const_sweep_kernel(4096), {1, 1, 1}, {1, 1, 1});
  ASSERT_TRUE(small.res.ok() && large.res.ok());
  EXPECT_EQ(large.out[0] - small.out[0], 64.0 * (50 - 20));
  // 1 KiB: the first pass misses the L1 on its first 16 loads (4 L1.5 misses, 12 L1.5 hits),
  // everything else hits.
  EXPECT_EQ(small.st.mem.const_l1_hits, 112u);
  EXPECT_EQ(small.st.mem.const_l1_misses, 16u);
  EXPECT_EQ(small.st.mem.const_l15_misses, 4u);
  EXPECT_EQ(small.st.mem.const_l15_hits, 12u);
  // 4 KiB: 128 L1 misses; the first pass has 16 L1.5 misses, everything else hits the L1.5.
  EXPECT_EQ(large.st.mem.const_l1_hits, 0u);
  EXPECT_EQ(large.st.mem.const_l1_misses, 128u);
  EXPECT_EQ(large.st.mem.const_l15_misses, 16u);
  EXPECT_EQ(large.st.mem.const_l15_hits, 112u);
}

// ---------------------------------------------------------------- asynchronous copies

TEST(AsyncCopy, GroupsCompleteInAnyOrderAndWaitLeavesTheNewestInFlight) {
  AsyncGroups g;
  uint64_t a = g.add();
  g.add();
  g.commit();           // group a: two copies
  uint64_t b = g.add();
  g.commit();           // group b: one copy
  uint64_t c = g.add();  // open group c (not committed)
  EXPECT_EQ(g.ready(0), AsyncGroups::kInFlight);
  g.complete(b, 50);  // b lands first
  EXPECT_EQ(g.ready(1), AsyncGroups::kInFlight);  // a is older than the newest one
  g.complete(a, 70);
  EXPECT_EQ(g.ready(1), AsyncGroups::kInFlight);  // a still has a copy in flight
  g.complete(a, 90);
  EXPECT_EQ(g.ready(1), 90u);  // a done; b may stay in flight
  EXPECT_EQ(g.ready(0), 90u);  // b landed at 50; the open group c does not count
  g.commit();                  // wait_all commits c first
  EXPECT_EQ(g.ready(0), AsyncGroups::kInFlight);
  g.complete(c, 120);
  EXPECT_EQ(g.ready(0), 120u);
  g.commit();  // an empty group is complete at once
  EXPECT_EQ(g.ready(0), 120u);
  EXPECT_TRUE(g.idle());
}

// Bulk groups (cp.async.bulk ... .bulk_group) are complete when issued, landing in the future:
// wait_group N must still leave the N newest in flight (it waited for all of them once, because
// complete groups were folded away at once).
TEST(AsyncCopy, GroupsCompleteAtIssueKeepTheirOrder) {
  AsyncGroups g;
  for (uint64_t done : {100u, 200u, 300u}) {
    g.complete(g.add(), done);
    g.commit();
  }
  EXPECT_EQ(g.ready(2), 100u);
  EXPECT_EQ(g.ready(1), 200u);
  EXPECT_EQ(g.ready(0), 300u);
  EXPECT_EQ(g.ready(3), 0u);  // nothing older than the three newest
  // Many more groups: the old ones fold away, the newest stay exact.
  for (uint64_t i = 0; i < 100; ++i) {
    g.complete(g.add(), 1000 + i);
    g.commit();
  }
  EXPECT_EQ(g.ready(0), 1099u);
  EXPECT_EQ(g.ready(5), 1094u);
  EXPECT_EQ(g.ready(31), 1068u);
  EXPECT_TRUE(g.idle());
}

// wgmma commit groups: done cycles known at issue; wait_group N waits for all but the N newest
// committed groups; the open group is not waited for.
TEST(Wgmma, WaitGroupLeavesTheNewestGroupsInFlight) {
  AsyncGroups g;
  g.add_done(100);
  g.add_done(80);
  g.commit();  // group a: done at 100
  g.add_done(150);
  g.commit();  // group b: 150
  g.add_done(400);  // open group c
  EXPECT_EQ(g.ready(0), 150u);
  EXPECT_EQ(g.ready(1), 100u);
  EXPECT_EQ(g.ready(2), 0u);
  g.commit();
  EXPECT_EQ(g.ready(0), 400u);
  EXPECT_EQ(g.ready(1), 150u);
  g.commit();  // an empty group is done at once
  EXPECT_EQ(g.ready(1), 400u);
  for (int i = 0; i < 100; ++i) {  // old groups fold into one cycle; recent ones stay exact
    g.add_done(1000 + i);
    g.commit();
  }
  EXPECT_EQ(g.ready(0), 1099u);
  EXPECT_EQ(g.ready(3), 1096u);
}

// n wgmma.mma_async m64n64k16 by one warpgroup, waited for three ways (`mode`): 0 = commit and
// wait_group 0 after each, 1 = commit and wait_group 1 after each, 2 = commit each, wait_group 0
// at the end. Operands: zeros in shared memory (no swizzle).
std::string wgmma_kernel(unsigned n, int mode) {
  std::string d = "{";
  for (unsigned i = 0; i < 32; ++i) d += (i ? ", %f" : "%f") + std::to_string(i);
  d += "}";
  std::string s = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<32>;
  .reg .u64 %rd<8>;
  .reg .u32 %r<4>;
  .shared .align 1024 .b8 sm[4096];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shr.u32 %r3, %r2, 4;
  cvt.u64.u32 %rd4, %r3;
  or.b64 %rd4, %rd4, 0x0000000800400000;
  wgmma.fence.sync.aligned;
)";
  for (unsigned i = 0; i < n; ++i) {
    s += "  wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " + d + ", %rd4, %rd4, " + (i ? "1" : "0") + ", 1, 1, 0, 0;\n";
    s += "  wgmma.commit_group.sync.aligned;\n";
    if (mode == 0) s += "  wgmma.wait_group.sync.aligned 0;\n";
    if (mode == 1) s += "  wgmma.wait_group.sync.aligned 1;\n";
  }
  s += R"(  wgmma.wait_group.sync.aligned 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f0;
  ret;
}
)";
  return s;
}

// Each warp of the warpgroup drives its own sub-core's tensor core with a quarter of the shape, the
// warp goes on after issuing, and wait_group holds it only for the groups it names.
TEST(Wgmma, AsynchronousAtAQuarterOfTheShapePerWarp) {
  config::Machine m = tensor_machine();
  m.tensor_wgmma_latency = 30;
  const unsigned n = 16;
  const uint64_t per = 16 * 64 * 16 / m.tensor_fma_f16;  // one warp's quarter of m64n64k16: 64 cycles
  Timed end = run_timed(m, wgmma_kernel(n, 2), {1, 1, 1}, {128, 1, 1});
  Timed each = run_timed(m, wgmma_kernel(n, 0), {1, 1, 1}, {128, 1, 1});
  Timed one = run_timed(m, wgmma_kernel(n, 1), {1, 1, 1}, {128, 1, 1});
  ASSERT_TRUE(end.res.ok()) << end.res.report();
  ASSERT_TRUE(each.res.ok() && one.res.ok());
  EXPECT_EQ(end.out[0], 0.0f);
  const uint64_t tail = 40 + store_tail(m);
  EXPECT_GE(end.st.cycles, n * per + m.tensor_wgmma_latency);
  EXPECT_LE(end.st.cycles, n * per + m.tensor_wgmma_latency + tail);
  // Keeping one group in flight hides the latency; waiting for each exposes it every time.
  EXPECT_NEAR(double(one.st.cycles), double(end.st.cycles), 8.0);
  EXPECT_NEAR(double(each.st.cycles - end.st.cycles), double((n - 1) * m.tensor_wgmma_latency), double(3 * n));
  // The wgmma's result write-back (tensor.wgmma_n_per_cycle): N / 8 more cycles each.
  m.tensor_wgmma_n_per_cycle = 8;
  Timed wb = run_timed(m, wgmma_kernel(n, 0), {1, 1, 1}, {128, 1, 1});
  ASSERT_TRUE(wb.res.ok());
  EXPECT_NEAR(double(wb.st.cycles - each.st.cycles), double(n * 64 / 8), 4.0);
}

// Every thread (4, one warp) does the same: a .cg load makes line A an L2 hit; then group 1 = a copy from A, group 2 = a copy
// from line B (not in L2: DRAM). out[0] = cycles to `wait_group 1` (group 1 only), out[1] =
// cycles to `wait_group 0`. With `mbar`, group 2's copy is tracked by an mbarrier instead
// (cp.async.mbarrier.arrive + try_wait), and out[1] is the cycles to the successful try_wait.
std::string async_kernel(bool mbar) {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.global .align 128 .b8 buf[65536];
.visible .entry k(.param .u64 out)
{
  .reg .u64 %rd<16>;
  .reg .u32 %r<8>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  .shared .align 16 .b8 sm[64];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd7, [out];
  mov.u64 %rd1, buf;
  add.u64 %rd2, %rd1, 32768;
  ld.global.cg.u32 %r1, [%rd1];
  add.u32 %r2, %r1, 1;
  mov.u32 %r3, sm;
  mov.u32 %r4, bar;
  mbarrier.init.shared.b64 [%r4], 4;
  mov.u64 %rd4, %clock64;
  cp.async.cg.shared.global [%r3], [%rd1], 16;
  cp.async.commit_group;
  cp.async.cg.shared.global [%r3+16], [%rd2], 16;
)";
  if (!mbar) {
    s += R"(  cp.async.commit_group;
  cp.async.wait_group 1;
  mov.u64 %rd5, %clock64;
  cp.async.wait_group 0;
  mov.u64 %rd6, %clock64;
)";
  } else {
    s += R"(  cp.async.mbarrier.arrive.shared.b64 [%r4];
  mbarrier.arrive.shared.b64 %rd8, [%r4];
  mov.u64 %rd5, %clock64;
WAIT:
  mbarrier.try_wait.shared.b64 %p1, [%r4], %rd8;
  @!%p1 bra WAIT;
  mov.u64 %rd6, %clock64;
)";
  }
  s += R"(  sub.u64 %rd9, %rd5, %rd4;
  cvt.rn.f32.u64 %f1, %rd9;
  st.global.f32 [%rd7], %f1;
  sub.u64 %rd9, %rd6, %rd4;
  cvt.rn.f32.u64 %f1, %rd9;
  st.global.f32 [%rd7+4], %f1;
  cvt.rn.f32.u32 %f2, %r2;
  st.global.f32 [%rd7+8], %f2;
  ret;
}
)";
  return s;
}

// Expected from the test machine: an L2 hit costs the miss path, the crossbar both ways and the L2
// hit latency; a DRAM access adds at least l2.dram_latency.
TEST(AsyncCopy, WaitGroupLeavesTheNewestGroupInFlight) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::CpAsync)] = {Pipe::Lsu, 1, 1, config::Scoreboard::Long};
  const double l2 = l2_hit_cycles(m);
  Timed t = run_timed(m, async_kernel(false), {1, 1, 1}, {4, 1, 1});  // 4 threads: room for out[0..2]
  ASSERT_TRUE(t.res.ok()) << t.res.report();
  EXPECT_GE(t.out[0], l2);
  EXPECT_LE(t.out[0], l2 + 40) << "wait_group 1: " << t.out[0] << ", wait_group 0: " << t.out[1];             // group 1 only: an L2 hit
  EXPECT_GE(t.out[1], l2 + m.l2.dram_latency);         // group 2: DRAM
}

TEST(AsyncCopy, MbarrierPhaseWaitsForTheCopiesArrivedOnIt) {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::CpAsync)] = {Pipe::Lsu, 1, 1, config::Scoreboard::Long};
  const double l2 = l2_hit_cycles(m);
  Timed t = run_timed(m, async_kernel(true), {1, 1, 1}, {4, 1, 1});  // 4 threads: room for out[0..2]
  ASSERT_TRUE(t.res.ok()) << t.res.report();
  EXPECT_LE(t.out[0], 40);                             // the arrivals themselves do not wait
  EXPECT_GE(t.out[1], l2 + m.l2.dram_latency);         // the phase completes when B has landed
}

}  // namespace
}  // namespace warpsim::timing

namespace warpsim::timing {
namespace {

// Every shipped machine runs a kernel with more CTAs than fit at once (warp slots are reused as
// CTAs retire, up to the machine's warp limit: 24 per SM on the G80), global stores and loads
// through its whole memory hierarchy, and a constant load: right results, no fault, cycles > 0.
TEST(Timing, EveryShippedMachineRunsAMultiWaveMemoryKernel) {
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.const .align 4 .f32 two = 0f40000000;
.visible .entry k(.param .u64 out)
{
  .reg .u64 %rd<6>;
  .reg .u32 %r<6>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  cvt.rn.f32.u32 %f1, %r4;
  st.global.f32 [%rd3], %f1;
  ld.global.cg.f32 %f2, [%rd3];
  ld.const.f32 %f3, [two];
  fma.rn.f32 %f2, %f2, %f3, 0f3F800000;
  st.global.f32 [%rd3], %f2;
  ret;
}
)";
  for (const char* name : {"a100", "a100-80gb", "h100", "v100", "g80"}) {
    SCOPED_TRACE(name);
    config::Machine m;
    std::string err;
    ASSERT_TRUE(config::load_machine(name, {}, m, err)) << err;
    const uint32_t ctas = m.sms * 6;  // several waves even where 8 CTAs of 4 warps fit per SM
    Timed t = run_timed(m, ptx, func::Dim3{ctas, 1, 1}, func::Dim3{128, 1, 1});
    EXPECT_EQ(t.res.fault.kind, func::FaultKind::None) << t.res.report();
    EXPECT_GT(t.st.cycles, 0u);
    ASSERT_EQ(t.out.size(), size_t(ctas) * 128);
    for (size_t i = 0; i < t.out.size(); i += 97) EXPECT_EQ(t.out[i], 2.0f * float(i) + 1.0f) << "thread " << i;
  }
}

}  // namespace
}  // namespace warpsim::timing

// ---------------------------------------------------------------- bulk copies (sm_90 TMA)
namespace warpsim::timing {
namespace {

// The test machine with a TMA unit of round numbers (expectations below follow from them).
config::Machine tma_machine() {
  config::Machine m = test_machine();
  m.ops[unsigned(OpClass::CpAsync)] = {Pipe::Lsu, 1, 1, config::Scoreboard::Long};
  m.ops[unsigned(OpClass::Mbarrier)] = {Pipe::Mio, 10, 1, config::Scoreboard::Short};
  m.tma.enabled = true;
  m.tma.issue_latency = 30;
  m.tma.copy_cycles = 50;
  m.tma.bytes_per_clk = 32;
  m.tma.store_bytes_per_clk = 16;
  m.tma.complete_latency = 7;
  return m;
}

struct BulkRun {
  stats::KernelStats st;
  func::LaunchResult res;
  std::vector<uint32_t> out, dst;
};

// Runs kernel k(out, src, dst) of an sm_90 module on one CTA: src holds `src_words` words
// src[i] = i * 7 + 3, dst `dst_words` zero words, out `out_words` words (read back as dst).
BulkRun run_bulk(const config::Machine& m, const std::string& ptx, uint32_t threads, size_t out_words,
                 size_t src_words, size_t dst_words,
                 const std::function<std::vector<uint8_t>(uint64_t src)>& dst_init = nullptr) {
  mem::DeviceMemory dm{mem::MemoryConfig{}};
  func::EngineConfig ec;
  ec.num_sms = m.sms;
  ec.sm_arch = 90;
  func::Engine eng(dm, ec);
  auto pr = ptx::parse(ptx, "bulk.ptx");
  EXPECT_TRUE(pr.ok());
  for (auto& d : pr.errors) ADD_FAILURE() << d.str();
  auto lr = eng.load(std::move(pr.module));
  for (auto& e : lr.errors) ADD_FAILURE() << e;
  BulkRun r;
  if (!lr.ok()) return r;
  const uint64_t out = dm.allocate(out_words * 4), src = dm.allocate(src_words * 4 + 4096),
                 dst = dm.allocate(dst_words * 4 + 4096);
  std::vector<uint32_t> init(src_words);
  for (size_t i = 0; i < src_words; ++i) init[i] = uint32_t(i * 7 + 3);
  dm.host_write(src, init.data(), src_words * 4);
  if (dst_init) {  // dst's first bytes, made from src's address (a tensor map)
    const std::vector<uint8_t> b = dst_init(src);
    dm.host_write(dst, b.data(), b.size());
  }
  func::LaunchConfig lc;
  lc.grid = {1, 1, 1};
  lc.block = {threads, 1, 1};
  lc.params.resize(24);
  std::memcpy(lc.params.data(), &out, 8);
  std::memcpy(lc.params.data() + 8, &src, 8);
  std::memcpy(lc.params.data() + 16, &dst, 8);
  func::LaunchState ls;
  func::LaunchResult res;
  EXPECT_TRUE(eng.prepare(*lr.module, "k", lc, ls, res));
  KernelLaunch kl;
  kl.module = lr.module.get();
  kl.ls = &ls;
  kl.ecfg = &eng.config();
  kl.fp = {threads, (threads + 31) / 32, 0, 0};
  Gpu gpu(m);
  r.st = gpu.run({&kl}).at(0);
  r.res = eng.finish(*lr.module, ls, res);
  r.out.resize(out_words);
  dm.host_read(out, r.out.data(), out_words * 4);
  r.dst.resize(dst_words);
  if (dst_words) dm.host_read(dst, r.dst.data(), dst_words * 4);
  return r;
}

// One thread: `copies` global -> shared bulk copies of `bytes` each from src + src_off + i * bytes,
// each on its own mbarrier (expect_tx then the copy), then a try_wait loop on every mbarrier.
// `rounds` times over the same sources (round 2 finds them in L2). Per round r: out[4r] = cycles
// from before the first copy to after the last was issued, out[4r+1] = to the last landed.
// After the last round the shared buffer's words go to out[4 x rounds ...] (the data check).
std::string bulk_g2s_kernel(uint32_t bytes, uint32_t copies, uint32_t src_off, uint32_t rounds) {
  const uint32_t total = bytes * copies;
  std::string s = fmt::format(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 src, .param .u64 dst)
{{
  .reg .u64 %rd<24>;
  .reg .u32 %r<24>;
  .reg .pred %p<4>;
  .shared .align 128 .b8 buf[{0}];
  .shared .align 8 .b64 bars[{1}];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [src];
  add.u64 %rd2, %rd2, {2};
  mov.u32 %r1, buf;
  mov.u32 %r2, bars;
  mov.u32 %r3, 0;
INIT:
  shl.b32 %r4, %r3, 3;
  add.u32 %r4, %r2, %r4;
  mbarrier.init.shared::cta.b64 [%r4], 1;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, {1};
  @%p1 bra INIT;
  fence.proxy.async.shared::cta;
  mov.u32 %r10, 0;
ROUND:
  mov.u64 %rd3, %clock64;
  mov.u32 %r3, 0;
ISSUE:
  shl.b32 %r4, %r3, 3;
  add.u32 %r4, %r2, %r4;
  mul.lo.u32 %r5, %r3, {3};
  add.u32 %r6, %r1, %r5;
  cvt.u64.u32 %rd4, %r5;
  add.u64 %rd5, %rd2, %rd4;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [%r4], {3};
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd5], {3}, [%r4];
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, {1};
  @%p1 bra ISSUE;
  mov.u64 %rd7, %clock64;
  and.b32 %r11, %r10, 1;
  mov.u32 %r3, 0;
WAITALL:
  shl.b32 %r4, %r3, 3;
  add.u32 %r4, %r2, %r4;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], %r11;
  @!%p2 bra WAIT;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, {1};
  @%p1 bra WAITALL;
  mov.u64 %rd8, %clock64;
  mul.wide.u32 %rd9, %r10, 16;
  add.u64 %rd9, %rd1, %rd9;
  sub.u64 %rd10, %rd7, %rd3;
  cvt.u32.u64 %r12, %rd10;
  st.global.u32 [%rd9], %r12;
  sub.u64 %rd10, %rd8, %rd3;
  cvt.u32.u64 %r12, %rd10;
  st.global.u32 [%rd9+4], %r12;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p1, %r10, {4};
  @%p1 bra ROUND;
  add.u64 %rd11, %rd1, {5};
  mov.u32 %r3, 0;
COPYOUT:
  shl.b32 %r5, %r3, 2;
  add.u32 %r6, %r1, %r5;
  ld.shared.u32 %r7, [%r6];
  cvt.u64.u32 %rd12, %r5;
  add.u64 %rd13, %rd11, %rd12;
  st.global.u32 [%rd13], %r7;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, {6};
  @%p1 bra COPYOUT;
  ret;
}}
)",
                              total, copies, src_off, bytes, rounds, rounds * 16, total / 4);
  return s;
}

// The L2 sectors of global -> shared bulk copies are the sectors of the bytes the program names
// (bytes / 32 when aligned to sectors), all read from DRAM the first time; the copied data is the
// source's (CPU reference: src[i] = 7i + 3).
TEST(BulkCopy, L2AndDramSectorsAreTheCopiedBytes) {
  const config::Machine m = tma_machine();
  struct Case {
    uint32_t bytes, copies, off;
  };
  for (Case c : {Case{4096, 1, 0}, Case{4096, 1, 48}, Case{1024, 4, 0}, Case{16, 3, 16}}) {
    SCOPED_TRACE(fmt::format("{} x {} B at +{}", c.copies, c.bytes, c.off));
    const uint32_t total = c.bytes * c.copies;
    BulkRun r = run_bulk(m, bulk_g2s_kernel(c.bytes, c.copies, c.off, 1), 1, 4 + total / 4, total / 4 + 64, 0);
    ASSERT_TRUE(r.res.ok()) << r.res.report();
    for (uint32_t i = 0; i < total / 4; ++i) ASSERT_EQ(r.out[4 + i], (c.off / 4 + i) * 7 + 3) << "word " << i;
    // L2: each copy reads the sectors of its byte range [off + i x bytes, off + (i + 1) x bytes)
    // (copies sharing a sector read it each); DRAM: every distinct sector once
    uint64_t sectors = 0;
    for (uint32_t i = 0; i < c.copies; ++i) {
      const uint64_t lo = c.off + uint64_t(i) * c.bytes, hi = lo + c.bytes;
      sectors += (hi + 31) / 32 - lo / 32;
    }
    const uint64_t distinct = (c.off + total + 31) / 32 - c.off / 32;
    const auto& mem = r.st.mem;
    EXPECT_EQ(mem.l2_sectors_read - mem.ifetch_l2_sectors_read, sectors);
    EXPECT_EQ(mem.dram_bytes_read - mem.ifetch_dram_bytes_read, distinct * 32);
    EXPECT_EQ(mem.tma_copies, c.copies);
    EXPECT_EQ(mem.tma_bytes_read, total);
    EXPECT_EQ(mem.l1_global_ld_sectors, 0u);  // the TMA's reads do not go through L1
  }
}

// A tensor copy (cp.async.bulk.tensor through a map in `dst`) goes through the TMA unit as the
// lines of its box rows' in-bounds bytes: a 16 x 8 box of u32 from a 64 x 16 tensor (rows 256 bytes
// apart) reads 8 rows x 64 bytes; over the corner at (56, 12) only 4 rows x 32 bytes exist; a
// cp.async.bulk.prefetch.tensor before the copy fetches the same lines (read twice in L2, once
// from DRAM). The shared image is checked against src[i] = 7i + 3.
TEST(TensorCopy, TmaTrafficIsTheBoxRowsInBoundsBytes) {
  const config::Machine m = tma_machine();
  func::TensorMap map;
  map.dtype = 2, map.rank = 2, map.esize = 4;
  map.dim[0] = 64, map.dim[1] = 16, map.stride[0] = 4, map.stride[1] = 256;
  map.box[0] = 16, map.box[1] = 8, map.estride[0] = map.estride[1] = 1;
  struct Case {
    int x, y;
    bool prefetch;
    uint32_t rows, row_bytes;
  };
  for (Case c : {Case{16, 4, false, 8, 64}, Case{56, 12, false, 4, 32}, Case{16, 4, true, 8, 64}}) {
    SCOPED_TRACE(fmt::format("box at ({}, {}){}", c.x, c.y, c.prefetch ? " after a prefetch" : ""));
    const std::string k = fmt::format(R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 src, .param .u64 dst)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 1024 .b8 tile[512];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd3, [dst];
  mov.u32 %r2, tile;
  mov.u32 %r3, bar;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  fence.proxy.async.shared::cta;
  mov.u32 %r5, {0};
  mov.u32 %r6, {1};
  {2}
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r3], 512;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd3, {{%r5, %r6}}], [%r3];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra WAIT;
  mov.u32 %r7, 0;
COPYOUT:
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r2, %r8;
  ld.shared.u32 %r10, [%r9];
  cvt.u64.u32 %rd5, %r8;
  add.u64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r10;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, 128;
  @%p1 bra COPYOUT;
  ret;
}}
)",
                                      c.x, c.y,
                                      c.prefetch ? "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd3, {%r5, %r6}];" : "");
    BulkRun r = run_bulk(m, k, 1, 128, 64 * 16, 64, [&](uint64_t src) {
      std::vector<uint8_t> b(func::TensorMap::kBytes);
      func::TensorMap t = map;
      t.address = src;
      t.pack(b.data());
      return b;
    });
    ASSERT_TRUE(r.res.ok()) << r.res.report();
    for (uint32_t y = 0; y < 8; ++y)
      for (uint32_t x = 0; x < 16; ++x) {
        const uint32_t gx = uint32_t(c.x) + x, gy = uint32_t(c.y) + y;
        ASSERT_EQ(r.out[y * 16 + x], gx < 64 && gy < 16 ? (gy * 64 + gx) * 7 + 3 : 0u) << x << "," << y;
      }
    const uint64_t sectors = uint64_t(c.rows) * c.row_bytes / 32;
    const auto& mem = r.st.mem;
    EXPECT_EQ(mem.l2_sectors_read - mem.ifetch_l2_sectors_read, (c.prefetch ? 2 : 1) * sectors);
    EXPECT_EQ(mem.dram_bytes_read - mem.ifetch_dram_bytes_read, sectors * 32);
    EXPECT_EQ(mem.tma_bytes_read, (c.prefetch ? 2 : 1) * uint64_t(c.rows) * c.row_bytes);
    EXPECT_EQ(mem.l1_global_ld_sectors, 0u);
  }
}

// The mbarrier's phase is visible to try_wait only once the data has landed: a 16-byte copy from
// DRAM (first round) and from L2 (second round) waits at least the unit's start, the path to L2
// (and DRAM) and back, and the mbarrier update; the issuing warp is not held meanwhile. The
// config drives it: 100 more cycles of tma.issue_latency are 100 more cycles of wait.
TEST(BulkCopy, MbarrierWaitEndsNoEarlierThanTheModelledLatency) {
  config::Machine m = tma_machine();
  const double path = 2 * (2 + m.xbar.latency) + m.l2.hit_latency;  // SM -> L2 slice -> SM (ports and wires)
  const double min_l2 = m.tma.issue_latency + path + m.tma.complete_latency;
  BulkRun a = run_bulk(m, bulk_g2s_kernel(16, 1, 0, 2), 1, 8 + 4, 64, 0);
  ASSERT_TRUE(a.res.ok()) << a.res.report();
  // The warp issues past the copy long before the copy could have landed.
  EXPECT_LT(a.out[0], m.tma.issue_latency + path) << "the copy's issue does not hold the warp";
  EXPECT_GE(a.out[1], min_l2 + m.l2.dram_latency) << "first round: from DRAM";
  EXPECT_GE(a.out[5], min_l2) << "second round: an L2 hit";
  EXPECT_LT(a.out[5], a.out[1]);
  EXPECT_LE(a.out[5], min_l2 + m.tlb.l2_latency + m.tlb.walk_latency + 40);
  m.tma.issue_latency += 100;
  BulkRun b = run_bulk(m, bulk_g2s_kernel(16, 1, 0, 2), 1, 8 + 4, 64, 0);
  ASSERT_TRUE(b.res.ok()) << b.res.report();
  EXPECT_NEAR(double(b.out[5]) - double(a.out[5]), 100.0, 1.0);
  // Without a TMA model the copy is free: the wait ends sooner by the copy's path.
  m.tma.enabled = false;
  BulkRun c = run_bulk(m, bulk_g2s_kernel(16, 1, 0, 2), 1, 8 + 4, 64, 0);
  ASSERT_TRUE(c.res.ok()) << c.res.report();
  // (the L2 round trip at least: the rest of the unit's time overlaps the instructions around it)
  EXPECT_GE(double(a.out[5]) - double(c.out[5]), path) << "TMA: " << a.out[5] << ", none: " << c.out[5];
}

// A stream of bulk copies is bandwidth-limited, not free: 16 copies of 4 KiB from L2 (second round)
// take at least their bytes at tma.bytes_per_clk, and 16 copies of 16 bytes at least 15 x
// tma.copy_cycles; doubling the byte rate shortens the big copies' stream.
TEST(BulkCopy, StreamOfCopiesIsBoundByTheUnitsRates) {
  config::Machine m = tma_machine();
  BulkRun big = run_bulk(m, bulk_g2s_kernel(4096, 16, 0, 2), 1, 8 + 16384, 16384 + 64, 0);
  ASSERT_TRUE(big.res.ok()) << big.res.report();
  const double bytes = 16.0 * 4096;
  EXPECT_GE(big.out[5], bytes / m.tma.bytes_per_clk);
  EXPECT_EQ(big.st.mem.l2_sectors_read - big.st.mem.ifetch_l2_sectors_read, 2 * 16 * 4096 / 32u);
  BulkRun small = run_bulk(m, bulk_g2s_kernel(16, 16, 0, 2), 1, 8 + 64, 128, 0);
  ASSERT_TRUE(small.res.ok()) << small.res.report();
  EXPECT_GE(small.out[5], 15.0 * m.tma.copy_cycles);
  m.tma.bytes_per_clk *= 2;
  BulkRun fast = run_bulk(m, bulk_g2s_kernel(4096, 16, 0, 2), 1, 8 + 16384, 16384 + 64, 0);
  ASSERT_TRUE(fast.res.ok()) << fast.res.report();
  EXPECT_GE(fast.out[5], bytes / m.tma.bytes_per_clk);
  EXPECT_LT(double(fast.out[5]), double(big.out[5]) - 0.4 * bytes / (m.tma.bytes_per_clk / 2));
}

// [tma] wait_after_copy: copy 1 (bar1) lands; then copy 2 (bar2) is issued and the warp waits on
// bar1, whose phase completed long ago. With the rule the wait ends no sooner than wait_after_copy
// after copy 2's issue; without it, at once. out[0] = cycles from before copy 2's issue to the end
// of the wait on bar1.
TEST(BulkCopy, WaitEndsNoSoonerThanWaitAfterCopyAfterTheWarpsLatestCopy) {
  std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 src, .param .u64 dst)
{
  .reg .u64 %rd<16>;
  .reg .u32 %r<16>;
  .reg .pred %p<4>;
  .shared .align 128 .b8 buf[256];
  .shared .align 8 .b64 bar1;
  .shared .align 8 .b64 bar2;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [src];
  add.u64 %rd3, %rd2, 8192;
  mov.u32 %r1, buf;
  mov.u32 %r2, bar1;
  mov.u32 %r3, bar2;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r2], 16;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 16, [%r2];
W1:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
  @!%p1 bra W1;
  mov.u64 %rd5, %clock64;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r3], 16;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1+128], [%rd3], 16, [%r3];
W2:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra W2;
  mov.u64 %rd6, %clock64;
  sub.u64 %rd7, %rd6, %rd5;
  cvt.u32.u64 %r4, %rd7;
  st.global.u32 [%rd1], %r4;
W3:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra W3;
  ld.shared.u32 %r5, [%r1+128];
  st.global.u32 [%rd1+4], %r5;
  ret;
}
)";
  const std::string ptx_waited = ptx;
  config::Machine m = tma_machine();
  m.tma.wait_after_copy = 400;
  // Copy 1 still in flight when the warp waits on bar1 (no W1 loop): the wait ends at the later of
  // copy 1's landing and wait_after_copy after copy 2.
  {
    std::string p = ptx;
    p.replace(p.find("W1:\n"), std::string("W1:\n  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;\n  @!%p1 bra W1;\n").size(), "");
    BulkRun r = run_bulk(m, p, 1, 2, 4096, 0);
    ASSERT_TRUE(r.res.ok()) << r.res.report();
    EXPECT_EQ(r.out[1], 2048u * 7 + 3);
    EXPECT_GE(r.out[0], m.tma.wait_after_copy);
    EXPECT_LE(r.out[0], m.tma.wait_after_copy + 40);
  }
  BulkRun on = run_bulk(m, ptx_waited, 1, 2, 4096, 0);
  ASSERT_TRUE(on.res.ok()) << on.res.report();
  EXPECT_EQ(on.out[1], 2048u * 7 + 3);  // copy 2's data: src word 2048
  EXPECT_GE(on.out[0], m.tma.wait_after_copy);
  EXPECT_LE(on.out[0], m.tma.wait_after_copy + 40);
  m.tma.wait_after_copy = 0;
  BulkRun off = run_bulk(m, ptx_waited, 1, 2, 4096, 0);
  ASSERT_TRUE(off.res.ok()) << off.res.report();
  EXPECT_EQ(off.out[1], 2048u * 7 + 3);
  EXPECT_LT(off.out[0], m.tma.issue_latency + m.l2.hit_latency) << "bar1's phase completed before copy 2";
}

// shared -> global: 32 threads fill a shared buffer (word i = 5i + 1), thread 0 copies it to dst
// with cp.async.bulk ... .bulk_group, commits and waits (wait_group 0); out[0] = the cycles of
// copy + commit + wait. The wait lasts at least the unit's start and the bytes at
// tma.store_bytes_per_clk; L2 gets the bytes / 32 sectors as writes; dst holds the words.
TEST(BulkCopy, BulkGroupWaitHoldsUntilTheWritesHaveLeft) {
  const config::Machine m = tma_machine();
  const uint32_t bytes = 2048;
  const std::string ptx = fmt::format(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 src, .param .u64 dst)
{{
  .reg .u64 %rd<16>;
  .reg .u32 %r<16>;
  .reg .pred %p<4>;
  .shared .align 128 .b8 buf[{0}];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [dst];
  mov.u32 %r1, buf;
  mov.u32 %r2, %tid.x;
FILL:
  mad.lo.u32 %r3, %r2, 5, 1;
  shl.b32 %r4, %r2, 2;
  add.u32 %r5, %r1, %r4;
  st.shared.u32 [%r5], %r3;
  add.u32 %r2, %r2, 32;
  setp.lt.u32 %p1, %r2, {1};
  @%p1 bra FILL;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra DONE;
  mov.u64 %rd3, %clock64;
  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r1], {0};
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  mov.u64 %rd4, %clock64;
  sub.u64 %rd5, %rd4, %rd3;
  cvt.u32.u64 %r6, %rd5;
  st.global.u32 [%rd1], %r6;
DONE:
  ret;
}}
)",
                                      bytes, bytes / 4);
  BulkRun r = run_bulk(m, ptx, 32, 4, 0, bytes / 4);
  ASSERT_TRUE(r.res.ok()) << r.res.report();
  for (uint32_t i = 0; i < bytes / 4; ++i) ASSERT_EQ(r.dst[i], i * 5 + 1) << "word " << i;
  EXPECT_GE(r.out[0], m.tma.issue_latency + double(bytes) / m.tma.store_bytes_per_clk);
  EXPECT_LE(r.out[0], m.tma.issue_latency + double(bytes) / m.tma.store_bytes_per_clk + 40);
  // the copy's sectors and the one sector of out[0]
  EXPECT_EQ(r.st.mem.l2_sectors_write, bytes / 32 + 1);
  EXPECT_EQ(r.st.mem.tma_bytes_write, bytes);
}

// The scoreboard (entries inline in the warp's context up to Scoreboard::kInline, on the heap
// beyond) against a plain list with the same rules, under random writes, sets, retires and
// resets that cross the inline limit both ways: same ready cycles, kinds, sizes and earliest().
TEST(Scoreboard, MatchesPlainListAcrossTheInlineLimit) {
  struct Ref {
    std::vector<Scoreboard::Entry> e;
    uint32_t capacity;
    Scoreboard::Entry* find(uint32_t reg) {
      for (auto& x : e)
        if (x.reg == reg) return &x;
      return nullptr;
    }
  };
  std::mt19937_64 rng(5);
  Scoreboard sb(8);
  Ref ref{{}, 8};
  uint64_t now = 0;
  const config::Scoreboard kinds[] = {config::Scoreboard::Fixed, config::Scoreboard::Short, config::Scoreboard::Long};
  for (int step = 0; step < 200000; ++step) {
    const uint32_t reg = uint32_t(rng() % 24);
    const uint64_t ready = now + rng() % 40;
    const config::Scoreboard kind = kinds[rng() % 3];
    switch (rng() % 10) {
      case 0: case 1: case 2: case 3:
        sb.write(reg, ready, kind);
        if (auto* x = ref.find(reg)) {
          if (ready > x->ready) x->ready = ready, x->kind = kind;
        } else {
          ref.e.push_back({ready, reg, kind});
        }
        break;
      case 4: case 5:
        sb.set(reg, ready, kind);
        if (auto* x = ref.find(reg)) x->ready = ready, x->kind = kind;
        else ref.e.push_back({ready, reg, kind});
        break;
      case 6: case 7: {
        now += rng() % 8;
        sb.retire(now);
        std::vector<Scoreboard::Entry> kept;
        for (auto& x : ref.e)
          if (x.ready > now) kept.push_back(x);
        ref.e = kept;
        break;
      }
      case 8:
        if (rng() % 50 == 0) {
          const uint32_t cap = 4 + uint32_t(rng() % 8);
          sb.reset(cap);
          ref.e.clear();
          ref.capacity = cap;
        }
        break;
      default: break;
    }
    ASSERT_EQ(sb.size(), ref.e.size()) << "step " << step;
    ASSERT_EQ(sb.full(), ref.e.size() >= ref.capacity);
    for (uint32_t r = 0; r < 24; ++r) {
      config::Scoreboard k1 = config::Scoreboard::Fixed;
      const auto* x = ref.find(r);
      ASSERT_EQ(sb.ready(r, k1), x ? x->ready : 0u) << "step " << step << " reg " << r;
      if (x) {
        ASSERT_EQ(k1, x->kind);
      }
    }
    config::Scoreboard ka = config::Scoreboard::Fixed, kb = config::Scoreboard::Fixed;
    uint64_t best = ~0ull;
    for (auto& x : ref.e)
      if (x.ready < best) best = x.ready, kb = x.kind;
    ASSERT_EQ(sb.earliest(ka), best);
    ASSERT_EQ(ka, kb) << "step " << step;  // ties go to the first entry, as in a plain list
  }
}

}  // namespace
}  // namespace warpsim::timing
