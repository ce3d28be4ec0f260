// The config layer: built-in machines load and validate; their numbers match the seed documents;
// inheritance, overrides, and every error names its field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "config/config.hpp"

namespace warpsim::config {
namespace {

Machine load_ok(const std::string& name, const std::vector<std::string>& overrides = {}) {
  Machine m;
  std::string err;
  EXPECT_TRUE(load_machine(name, overrides, m, err)) << name << ": " << err;
  return m;
}

// Loads `name` with `overrides`, expects failure, returns the message.
std::string load_err(const std::string& name, const std::vector<std::string>& overrides) {
  Machine m;
  std::string err;
  EXPECT_FALSE(load_machine(name, overrides, m, err)) << name << " with overrides loaded";
  return err;
}

// a100.toml with `line` replaced (text substitution on the embedded file).
std::string a100_with(const std::string& from, const std::string& to) {
  std::string t(builtin_toml("a100"));
  size_t p = t.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) t.replace(p, from.size(), to);
  return t;
}

std::string text_err(const std::string& text) {
  Machine m;
  std::string err;
  EXPECT_FALSE(load_machine_text(text, "a100.toml", {}, m, err)) << "loaded";
  return err;
}

TEST(Config, EveryBuiltinLoadsAndValidates) {
  auto names = machine_names();
  EXPECT_EQ(names, (std::vector<std::string>{"a100", "a100-80gb", "ga100-full", "v100", "g80", "h100"}));
  for (auto& n : names) {
    Machine m = load_ok(n);
    EXPECT_EQ(m.key, n);
    std::string err;
    EXPECT_TRUE(validate(m, err)) << n << ": " << err;
    EXPECT_FALSE(describe(m).empty());
  }
}

TEST(Config, DefaultAndAliases) {
  EXPECT_EQ(load_ok("").key, "a100");
  EXPECT_EQ(load_ok("a100-40gb").name, load_ok("a100").name);
}

// Checks against the A100 whitepaper (seeds/000_cfb7b06f8ff65bce.txt), not against loader output.
TEST(Config, A100MatchesWhitepaper) {
  Machine m = load_ok("a100");
  EXPECT_EQ(m.cc_major, 8);
  EXPECT_EQ(m.cc_minor, 0);
  EXPECT_EQ(m.sms, 108u);                                     // Table 4
  EXPECT_EQ(m.gpcs, 7u);                                      // "7 GPCs, 7 or 8 TPCs/GPC"
  for (auto t : m.tpcs_per_gpc) EXPECT_TRUE(t == 7 || t == 8);
  EXPECT_EQ(std::accumulate(m.tpcs_per_gpc.begin(), m.tpcs_per_gpc.end(), 0u), 54u);  // Table 4: 54 TPCs
  EXPECT_EQ(m.sms_per_tpc, 2u);
  EXPECT_DOUBLE_EQ(m.sm_clock_mhz, 1410);                     // boost clock
  EXPECT_EQ(m.sub_cores, 4u);
  EXPECT_EQ(m.pipe_lanes[unsigned(Pipe::Fma)] * m.sub_cores, 64u);   // 64 FP32 cores / SM
  EXPECT_EQ(m.pipe_lanes[unsigned(Pipe::Alu)] * m.sub_cores, 64u);   // 64 INT32 cores / SM
  EXPECT_EQ(m.pipe_lanes[unsigned(Pipe::Fp64)] * m.sub_cores, 32u);  // 32 FP64 cores / SM
  EXPECT_EQ(m.max_warps, 64u);                                // Table 5
  EXPECT_EQ(m.max_threads, 2048u);
  EXPECT_EQ(m.max_ctas, 32u);
  EXPECT_EQ(m.registers, 65536u);
  EXPECT_EQ(m.max_regs_per_thread, 255u);
  EXPECT_EQ(m.l1_shared_bytes, 192u * 1024);                  // 192 KB L1 + shared
  EXPECT_EQ(m.max_shared_per_sm, 164u * 1024);                // "Configurable up to 164 KB"
  EXPECT_EQ(m.l2_bytes, 40ull << 20);                         // 40960 KB
  EXPECT_EQ(m.global_mem_bytes, 40ull << 30);
  EXPECT_EQ(m.mem_bus_bits, 5120u);
  EXPECT_EQ(m.tensor_cores_per_sm, 4u);
  EXPECT_EQ(m.tensor_fma_f16 * m.tensor_cores_per_sm, 1024u);  // "1024 dense FP16/FP32 FMA operations per clock"
  EXPECT_EQ(m.tensor_fma_f64 * m.tensor_cores_per_sm, 64u);    // "64 FP64 FMA operations/clock"
  // Peak FP32: 108 SMs x 64 FMA x 2 x 1.41 GHz = 19.5 TFLOPS (Table 4)
  EXPECT_NEAR(m.sms * 64.0 * 2 * m.sm_clock_mhz * 1e6 / 1e12, 19.5, 0.05);
  // HBM2: 1215 MHz DDR x 5120 bits = 1555 GB/s
  EXPECT_NEAR(m.mem_clock_mhz * 2 * m.mem_bus_bits / 8 / 1000, 1555, 1);
  EXPECT_EQ(m.ops[unsigned(OpClass::Fp32)].latency, 4u);  // Abdelkhalik Table 2
  EXPECT_EQ(m.ops[unsigned(OpClass::LdGlobal)].scoreboard, Scoreboard::Long);
  EXPECT_EQ(m.ops[unsigned(OpClass::LdShared)].scoreboard, Scoreboard::Short);
  EXPECT_EQ(m.ops[unsigned(OpClass::Fp32)].scoreboard, Scoreboard::Fixed);
}

TEST(Config, OtherMachinesMatchTheirSeeds) {
  Machine g80 = load_ok("g80");  // seeds/004 (Tesla)
  EXPECT_EQ(g80.sms, 16u);
  EXPECT_EQ(g80.tpcs_per_gpc, std::vector<uint32_t>{8});
  EXPECT_EQ(g80.max_warps, 24u);
  EXPECT_EQ(g80.max_threads, 768u);
  EXPECT_EQ(g80.max_ctas, 8u);
  EXPECT_EQ(g80.l1_shared_bytes, 16u * 1024);
  EXPECT_EQ(g80.issue_model, IssueModel::G80);
  EXPECT_EQ(g80.sub_cores, 1u);
  EXPECT_DOUBLE_EQ(g80.issue_clock_ratio, 0.5);
  EXPECT_EQ(g80.pipe_lanes[unsigned(Pipe::Fma)], 8u);
  EXPECT_EQ(g80.pipe_lanes[unsigned(Pipe::Mufu)], 2u);
  EXPECT_EQ(g80.pipe_lanes[unsigned(Pipe::Fp64)], 0u);
  EXPECT_EQ(g80.tensor_cores_per_sm, 0u);

  Machine v = load_ok("v100");  // seeds/003 (Volta) and the A100 whitepaper's V100 column
  EXPECT_EQ(v.sms, 80u);
  EXPECT_EQ(v.sub_cores, 4u);
  EXPECT_EQ(v.l1_shared_bytes, 128u * 1024);
  EXPECT_EQ(v.max_shared_per_sm, 96u * 1024);
  EXPECT_EQ(v.tensor_cores_per_sm, 8u);
  EXPECT_DOUBLE_EQ(v.sm_clock_mhz, 1530);

  Machine h = load_ok("h100");
  EXPECT_EQ(h.sms, 132u);
  EXPECT_EQ(h.pipe_lanes[unsigned(Pipe::Fma)] * h.sub_cores, 128u);
  EXPECT_EQ(h.max_shared_per_sm, 228u * 1024);
  EXPECT_EQ(h.max_shared_per_cta, 227u * 1024);
}

TEST(Config, DerivedConfigsInherit) {
  Machine a = load_ok("a100"), b = load_ok("a100-80gb"), f = load_ok("ga100-full");
  EXPECT_EQ(b.global_mem_bytes, 80ull << 30);
  EXPECT_DOUBLE_EQ(b.mem_clock_mhz, 1593);
  EXPECT_NEAR(b.mem_clock_mhz * 2 * b.mem_bus_bits / 8 / 1000, 2039, 1);  // datasheet 2039 GB/s
  EXPECT_EQ(b.sms, a.sms);
  EXPECT_EQ(b.ops[unsigned(OpClass::Fp32)].latency, a.ops[unsigned(OpClass::Fp32)].latency);
  EXPECT_NE(b.name, a.name);
  EXPECT_EQ(f.sms, 128u);
  EXPECT_EQ(f.gpcs, 8u);
  EXPECT_EQ(f.max_warps, a.max_warps);
}

TEST(Config, FileInheritsFromBuiltinAndFile) {
  auto dir = std::filesystem::temp_directory_path() / "warpsim_config_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "slow.toml") << "inherits = \"a100\"\n[gpu]\nname = \"slow\"\nsm_clock_mhz = 700\n"
                                        "[ops]\nfp32 = { latency = 9 }\n";
    std::ofstream(dir / "slower.toml") << "inherits = \"slow.toml\"\n[ops]\nld_global = { latency = 999 }\n";
  }
  Machine m = load_ok((dir / "slower.toml").string());
  EXPECT_EQ(m.name, "slow");
  EXPECT_EQ(m.key, "slower");
  EXPECT_DOUBLE_EQ(m.sm_clock_mhz, 700);
  EXPECT_EQ(m.ops[unsigned(OpClass::LdGlobal)].latency, 999u);
  EXPECT_EQ(m.ops[unsigned(OpClass::Fp32)].latency, 9u);
  EXPECT_EQ(m.ops[unsigned(OpClass::Fp32)].pipe, Pipe::Fma);  // inline tables merge key by key
  std::filesystem::remove_all(dir);
}

TEST(Config, OverridesChangeValues) {
  Machine m = load_ok("a100", {"sm.scheduler=lrr", "ops.fp32.latency=5", "ops.ld_global.latency=300",
                               "gpu.sm_clock_mhz=1095", "sm.shared_carveouts_kb=[0, 100, 164]",
                               "ops.ld_global.scoreboard=\"short\""});
  EXPECT_EQ(m.scheduler, SchedulerPolicy::Lrr);
  EXPECT_EQ(m.ops[unsigned(OpClass::Fp32)].latency, 5u);
  EXPECT_EQ(m.ops[unsigned(OpClass::LdGlobal)].latency, 300u);
  EXPECT_DOUBLE_EQ(m.sm_clock_mhz, 1095);
  EXPECT_EQ(m.shared_carveouts_kb, (std::vector<uint32_t>{0, 100, 164}));
  EXPECT_EQ(m.ops[unsigned(OpClass::LdGlobal)].scoreboard, Scoreboard::Short);
}

TEST(Config, BadOverridesNameTheKey) {
  std::string e = load_err("a100", {"sm.max_warps=abc"});
  EXPECT_NE(e.find("sm.max_warps"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer"), std::string::npos) << e;
  e = load_err("a100", {"sm.max_warp=64"});
  EXPECT_NE(e.find("unknown key 'sm.max_warp'"), std::string::npos) << e;
  e = load_err("a100", {"nosuch.key=1"});
  EXPECT_NE(e.find("unknown key 'nosuch.key'"), std::string::npos) << e;
  e = load_err("a100", {"sm.scheduler=fifo"});
  EXPECT_NE(e.find("sm.scheduler"), std::string::npos) << e;
  EXPECT_NE(e.find("gto"), std::string::npos) << e;
  e = load_err("a100", {"sm.max_warps"});
  EXPECT_NE(e.find("key=value"), std::string::npos) << e;
  e = load_err("a100", {"sm=1"});
  EXPECT_NE(e.find("is a table"), std::string::npos) << e;
  // An override that breaks a validation rule names the override.
  e = load_err("a100", {"gpu.sms=100"});
  EXPECT_NE(e.find("gpu.sms"), std::string::npos) << e;
  EXPECT_NE(e.find("--set gpu.sms=100"), std::string::npos) << e;
}

TEST(Config, UnknownMachine) {
  std::string e = load_err("nosuch", {});
  EXPECT_NE(e.find("unknown GPU 'nosuch'"), std::string::npos) << e;
  e = load_err("/nonexistent/x.toml", {});
  EXPECT_NE(e.find("cannot read"), std::string::npos) << e;
}

TEST(Config, MissingFieldIsNamed) {
  std::string e = text_err(a100_with("max_warps = 64", ""));
  EXPECT_NE(e.find("a100.toml: missing field sm.max_warps"), std::string::npos) << e;
  e = text_err(a100_with("fp32        = { pipe = \"fma\",    latency = 4,", "fp32        = { pipe = \"fma\","));
  EXPECT_NE(e.find("missing field ops.fp32.latency"), std::string::npos) << e;
}

TEST(Config, UnknownKeyIsNamed) {
  std::string e = text_err(a100_with("max_warps = 64", "max_warps = 64\nmax_wraps = 64"));
  EXPECT_NE(e.find("unknown key 'sm.max_wraps'"), std::string::npos) << e;
  e = text_err(a100_with("[ops]", "[ops]\nfp33 = { pipe = \"fma\" }"));
  EXPECT_NE(e.find("unknown key 'ops.fp33.pipe'"), std::string::npos) << e;
  e = text_err(a100_with("[mem]", "[memory]\nx = 1\n[mem]"));
  EXPECT_NE(e.find("unknown key 'memory.x'"), std::string::npos) << e;
}

TEST(Config, WrongTypeIsNamed) {
  std::string e = text_err(a100_with("max_warps = 64", "max_warps = \"64\""));
  EXPECT_NE(e.find("sm.max_warps: expected an integer"), std::string::npos) << e;
  e = text_err(a100_with("sm_clock_mhz = 1410", "sm_clock_mhz = \"fast\""));
  EXPECT_NE(e.find("gpu.sm_clock_mhz: expected a number"), std::string::npos) << e;
  e = text_err(a100_with("max_warps = 64", "max_warps = -64"));
  EXPECT_NE(e.find("sm.max_warps: must not be negative"), std::string::npos) << e;
  e = text_err(a100_with("l2_bytes = \"40 MiB\"", "l2_bytes = \"40 MB\""));
  EXPECT_NE(e.find("gpu.l2_bytes: expected a size"), std::string::npos) << e;
  e = text_err(a100_with("tpcs_per_gpc = [8, 8, 8, 8, 8, 7, 7]", "tpcs_per_gpc = 54"));
  EXPECT_NE(e.find("gpu.tpcs_per_gpc: expected an array"), std::string::npos) << e;
}

TEST(Config, SyntaxErrorHasPosition) {
  std::string e = text_err("[gpu\nname = 1\n");
  EXPECT_NE(e.find("a100.toml:1:"), std::string::npos) << e;
}

TEST(Config, InheritanceErrors) {
  std::string e = text_err("inherits = \"nosuch\"\n");
  EXPECT_NE(e.find("unknown built-in machine 'nosuch'"), std::string::npos) << e;
  e = text_err("inherits = 5\n");
  EXPECT_NE(e.find("inherits: expected a string"), std::string::npos) << e;
}

// Each validation rule, through an override, names its field.
TEST(Config, ValidationRules) {
  struct Case {
    std::vector<std::string> set;
    const char* field;
  } cases[] = {
      {{"gpu.sms=0"}, "gpu.sms"},
      {{"gpu.sms=100"}, "gpu.sms"},
      {{"gpu.gpcs=6"}, "gpu.tpcs_per_gpc"},
      {{"gpu.tpcs_per_gpc=[8, 8, 8, 8, 8, 7, 0]"}, "gpu.tpcs_per_gpc"},
      {{"gpu.sm_clock_mhz=0"}, "gpu.sm_clock_mhz"},
      {{"gpu.cc_major=0"}, "gpu.cc_major"},
      {{"gpu.ptx_target=\"compute_80\""}, "gpu.ptx_target"},
      {{"gpu.persisting_l2_max_bytes=\"64 MiB\""}, "gpu.persisting_l2_max_bytes"},
      {{"gpu.access_policy_max_window_bytes=0"}, "gpu.access_policy_max_window_bytes"},
      {{"gpu.access_policy_max_window_bytes=\"4 GiB\""}, "gpu.access_policy_max_window_bytes"},
      {{"sm.sub_cores=0"}, "sm.sub_cores"},
      {{"sm.its_spin_yield=0"}, "sm.its_spin_yield"},
      {{"l1.atomic_request_cycles=0"}, "l1.atomic_request_cycles"},
      {{"l2.atomic_sectors_per_clk=0"}, "l2.bytes_per_clk"},
      {{"l2.fetch_sectors=3"}, "l2.fetch_sectors"},
      {{"l2.fetch_sectors=8"}, "l2.fetch_sectors"},
      {{"sm.sub_cores=3"}, "sm.max_warps"},
      {{"sm.max_threads=2000"}, "sm.max_threads"},
      {{"sm.max_threads_per_cta=1000"}, "sm.max_threads_per_cta"},
      {{"sm.max_regs_per_thread=256"}, "sm.max_regs_per_thread"},
      {{"sm.reg_alloc_unit=0"}, "sm.reg_alloc_unit"},
      {{"sm.shared_carveouts_kb=[0, 16, 8]"}, "sm.shared_carveouts_kb"},
      {{"sm.shared_carveouts_kb=[0, 8, 200]"}, "sm.shared_carveouts_kb"},
      {{"sm.max_shared_per_cta=\"200 KiB\""}, "sm.max_shared_per_cta"},
      {{"sm.default_shared_per_cta=\"164 KiB\""}, "sm.default_shared_per_cta"},
      {{"sm.shared_alloc_unit=100"}, "sm.shared_alloc_unit"},
      {{"sm.issue_clock_ratio=0"}, "sm.issue_clock_ratio"},
      {{"sm.issue_clock_ratio=1.5"}, "sm.issue_clock_ratio"},
      {{"sm.pipes.fma=0"}, "sm.pipes.fma"},
      {{"sm.pipes.alu=33"}, "sm.pipes.alu"},
      {{"sm.pipes.mio=64"}, "sm.pipes.mio"},
      {{"sm.pipes.fp64=0"}, "ops.fp64.pipe"},
      {{"sm.icache.l1i_bytes=0"}, "sm.icache.l1i_bytes"},
      {{"ops.ld_global.latency=0"}, "ops.ld_global.latency"},
      {{"ops.ld_shared.latency=0"}, "ops.ld_shared.latency"},
      {{"mem.shared_banks=0"}, "mem.shared_banks"},
      {{"tensor.cores_per_sm=0"}, "tensor.cores_per_sm"},
      {{"tensor.fma_f16=0"}, "tensor.fma_f16"},
      {{"ops.fp32.latency=0"}, "ops.fp32.latency"},
      {{"ops.fdiv.issue=0"}, "ops.fdiv.issue"},
      {{"ops.fp32.pipe=\"warp\""}, "ops.fp32.pipe"},
      {{"sm.issue_model=\"g80\""}, "sm.sub_cores"},
      {{"tma.enabled=true", "tma.bytes_per_clk=0"}, "tma.bytes_per_clk"},
      {{"tma.enabled=true", "tma.copy_cycles=0"}, "tma.copy_cycles"},
      {{"tma.enabled=true", "tma.store_bytes_per_clk=0"}, "tma.store_bytes_per_clk"},
  };
  for (auto& c : cases) {
    std::string e = load_err("a100", c.set);
    EXPECT_NE(e.find(std::string(c.field) + ":"), std::string::npos) << c.set[0] << " -> " << e;
  }
}

// [cluster]: the H100's measured cluster timing loads; machines without the table keep zeros.
TEST(Config, ClusterTimingIsOptionalAndChecked) {
  Machine h = load_ok("h100");
  EXPECT_GT(h.cluster.barrier_latency, 700u);
  EXPECT_GT(h.cluster.dsmem_latency, 150u);
  EXPECT_NEAR(h.cluster.dsmem_bytes_per_clk, 17.07, 1e-9);
  Machine a = load_ok("a100");
  EXPECT_EQ(a.cluster.barrier_latency, 0u);
  EXPECT_EQ(a.cluster.dsmem_bytes_per_clk, 0.0);
  for (const char* set : {"cluster.dsmem_bytes_per_clk=-1", "cluster.barrier_cycles_per_cta=-2"}) {
    std::string e = load_err("h100", {set});
    const std::string field = std::string(set).substr(0, std::string(set).find('='));
    EXPECT_NE(e.find(field + ":"), std::string::npos) << set << " -> " << e;
  }
}

TEST(Config, NamesAreStable) {
  EXPECT_STREQ(pipe_name(Pipe::Fma), "fma");
  EXPECT_STREQ(pipe_name(Pipe::Lsu), "lsu");
  EXPECT_STREQ(op_class_name(OpClass::Fp32), "fp32");
  EXPECT_STREQ(op_class_name(OpClass::IntWide), "int_wide");
  EXPECT_STREQ(op_class_name(OpClass::AtomGlobal), "atom_global");
  EXPECT_STREQ(op_class_name(OpClass::Nop), "nop");
}

TEST(Config, DescribeMentionsTheEssentials) {
  std::string d = describe(load_ok("a100"));
  EXPECT_NE(d.find("NVIDIA A100-SXM4-40GB"), std::string::npos);
  EXPECT_NE(d.find("108 = 7 GPCs"), std::string::npos) << d;
  EXPECT_NE(d.find("fp32"), std::string::npos);
}

}  // namespace
}  // namespace warpsim::config
