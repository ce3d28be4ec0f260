// ptx::max_live_words: hand-worked liveness on small functions, and the workloads' kernels against
// the register counts ptxas reports for them (an independent reference; skipped without ptxas).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "ptx/parser.hpp"
#include "ptx/regpressure.hpp"

using namespace warpsim::ptx;

namespace {

uint32_t live_of(const std::string& body, const std::string& regs) {
  std::string text = ".version 8.7\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" + regs +
                     "\n" + body + "\n}\n";
  auto r = parse(text, "t.ptx");
  for (auto& e : r.errors) ADD_FAILURE() << e.str();
  if (!r.ok()) return 0;
  for (auto& top : r.module->funcs)
    if (top.name == "k") return max_live_words(top);
  ADD_FAILURE() << "no kernel";
  return 0;
}

const char* kRegs = ".reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n.reg .pred %p<3>;";

}  // namespace

// Live sets worked by hand after each instruction (64-bit registers count two words).
TEST(RegPressure, StraightLine) {
  EXPECT_EQ(live_of("ld.param.u64 %rd1, [p];\n"          // {rd1} 2
                    "ld.global.u32 %r1, [%rd1];\n"       // {rd1 r1} 3
                    "ld.global.u32 %r2, [%rd1+4];\n"     // {rd1 r1 r2} 4
                    "add.u32 %r3, %r1, %r2;\n"           // {rd1 r3} 3
                    "st.global.u32 [%rd1], %r3;\n"       // {}
                    "ret;",
                    kRegs),
            4u);
}

TEST(RegPressure, VectorsAndPredicates) {
  // A v4 load writes four words; predicates take none.
  EXPECT_EQ(live_of("ld.param.u64 %rd1, [p];\n"
                    "setp.ne.u64 %p1, %rd1, 0;\n"                      // {rd1 p1} 2
                    "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];\n"  // {rd1 p1 r1-r4} 6
                    "add.u32 %r5, %r1, %r2;\n"                          // {rd1 p1 r3 r4 r5} 5
                    "add.u32 %r6, %r3, %r4;\n"                          // {rd1 p1 r5 r6} 4
                    "@%p1 st.global.v2.u32 [%rd1], {%r5, %r6};\n"
                    "ret;",
                    kRegs),
            6u);
}

TEST(RegPressure, LoopCarriedValueStaysLive) {
  // %r1 is read at the loop head, so it is live through the whole body (back edge); %r9 is read
  // after the loop. Peak in the body: rd1 (2) + r9 + r1 + r2 or r3 = 5. Without the back edge r1
  // would die at `mov %r2, %r1` and the peak would be 4.
  EXPECT_EQ(live_of("ld.param.u64 %rd1, [p];\n"
                    "mov.u32 %r9, 7;\n"
                    "mov.u32 %r1, 0;\n"
                    "$L_top:\n"
                    "add.u32 %r1, %r1, 1;\n"
                    "mov.u32 %r2, %r1;\n"
                    "mov.u32 %r3, %r2;\n"
                    "setp.lt.u32 %p1, %r3, 10;\n"
                    "@%p1 bra $L_top;\n"
                    "st.global.u32 [%rd1], %r9;\n"
                    "ret;",
                    kRegs),
            5u);
}

TEST(RegPressure, GuardedDefinitionDoesNotEndALife) {
  // `@%p1 mov %r2, %r3` may not happen: %r2's first value stays live across it. After the load
  // of %r3: {rd1 p1 r2 r3} = 4 (3 if the guarded write were taken to kill %r2).
  EXPECT_EQ(live_of("ld.param.u64 %rd1, [p];\n"
                    "ld.global.u32 %r1, [%rd1];\n"
                    "setp.eq.u32 %p1, %r1, 0;\n"
                    "mov.u32 %r2, 5;\n"
                    "ld.global.u32 %r3, [%rd1+8];\n"
                    "@%p1 mov.u32 %r2, %r3;\n"
                    "st.global.u32 [%rd1], %r2;\n"
                    "ret;",
                    kRegs),
            4u);
}

TEST(RegPressure, BranchesJoin) {
  // Two paths each define %r2 and meet at $L_join; %r1 is live on both until the join.
  EXPECT_EQ(live_of("ld.param.u64 %rd1, [p];\n"
                    "ld.global.u32 %r1, [%rd1];\n"
                    "setp.eq.u32 %p1, %r1, 0;\n"
                    "@%p1 bra $L_else;\n"
                    "add.u32 %r2, %r1, 1;\n"   // {rd1 r1 r2} 4
                    "bra.uni $L_join;\n"
                    "$L_else:\n"
                    "add.u32 %r2, %r1, 2;\n"   // {rd1 r1 r2} 4
                    "$L_join:\n"
                    "add.u32 %r3, %r2, %r1;\n"  // {rd1 r3} 3
                    "st.global.u32 [%rd1], %r3;\n"
                    "ret;",
                    kRegs),
            4u);
}

// The workloads' nvcc PTX (sm_80) against `ptxas -v`: liveness is what any allocation needs, and
// ptxas adds registers for scheduling (hoisted loads, unrolled address arithmetic), so the
// estimate tracks its counts without matching them. Bounds: every kernel within 0.3x-2.5x, the
// geometric mean within 0.75x-1.25x (the declared registers, which the estimate replaces, are
// 6.5x in the mean).
TEST(RegPressure, CloseToPtxasOnTheWorkloads) {
  if (std::system("ptxas --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "ptxas not on PATH";
  namespace fs = std::filesystem;
  double log_sum = 0;
  int n = 0;
  for (auto& dir : fs::directory_iterator(fs::path(WARPSIM_SOURCE_DIR) / "workloads")) {
    if (!dir.is_directory()) continue;
    for (auto& file : fs::directory_iterator(dir.path())) {
      if (file.path().extension() != ".ptx") continue;
      std::ifstream in(file.path());
      std::stringstream ss;
      ss << in.rdbuf();
      auto r = parse(ss.str(), file.path().string());
      if (!r.ok()) continue;
      const fs::path log = fs::temp_directory_path() / ("regpressure_" + file.path().stem().string() + ".txt");
      std::string cmd = "ptxas -arch=sm_80 -v '" + file.path().string() + "' -o /dev/null > '" + log.string() + "' 2>&1";
      if (std::system(cmd.c_str()) != 0) continue;
      std::ifstream lf(log);
      std::map<std::string, int> regs;
      std::string line, cur;
      static const std::regex fn("(?:Compiling entry function|Function properties for) '?([A-Za-z0-9_$]+)'?");
      static const std::regex used("Used ([0-9]+) registers");
      std::smatch m;
      while (std::getline(lf, line)) {
        if (std::regex_search(line, m, fn)) cur = m[1];
        else if (std::regex_search(line, m, used) && !cur.empty()) regs[cur] = std::stoi(m[1]);
      }
      fs::remove(log);
      for (auto& f : r.module->funcs) {
        if (!f.is_entry || !f.has_body) continue;
        auto it = regs.find(f.name);
        if (it == regs.end() || it->second <= 4) continue;  // empty kernels: ptxas's minimum
        const double ratio = std::max(2u, max_live_words(f)) / double(it->second);
        EXPECT_GE(ratio, 0.3) << f.name << " in " << file.path() << ": ptxas " << it->second;
        EXPECT_LE(ratio, 2.5) << f.name << " in " << file.path() << ": ptxas " << it->second;
        log_sum += std::log(ratio);
        ++n;
      }
    }
  }
  ASSERT_GT(n, 50);
  const double gmean = std::exp(log_sum / n);
  EXPECT_GE(gmean, 0.75);
  EXPECT_LE(gmean, 1.25);
  std::printf("%d kernels: estimate / ptxas geometric mean %.2f\n", n, gmean);
}
