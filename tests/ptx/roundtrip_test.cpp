// Every PTX file of the corpus parses, prints, and parses back to an equal module; where ptxas is
// installed, the printed PTX must also assemble for the architecture the file was written for.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

namespace fs = std::filesystem;
using namespace warpsim::ptx;

namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  fs::path root(WARPSIM_SOURCE_DIR);
  for (const char* dir : {"tests/corpus", "workloads"}) {
    if (!fs::exists(root / dir)) continue;
    for (auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && e.path().extension() == ".ptx") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string rel = fs::relative(info.param, WARPSIM_SOURCE_DIR).string();
  for (char& c : rel)
    if (!isalnum(uint8_t(c))) c = '_';
  return rel;
}

// The arch to assemble for: the file's "// ptxas-arch: sm_XX" note, else its .target.
std::string arch_for(const std::string& text, const Module& m) {
  std::smatch sm;
  static const std::regex note("ptxas-arch:\\s*(sm_[0-9]+[a-z]?)");
  if (std::regex_search(text, sm, note)) return sm[1];
  for (auto& t : m.targets)
    if (t.rfind("sm_", 0) == 0) return t;
  return "sm_80";
}

bool have_ptxas() {
  static const bool have = std::system("ptxas --version > /dev/null 2>&1") == 0;
  return have;
}

}  // namespace

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, RoundTrips) {
  std::string text = read(GetParam());
  auto a = parse(text, GetParam());
  for (auto& e : a.errors) ADD_FAILURE() << e.str();
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a.module->funcs.empty());
  std::string printed = print(*a.module);
  auto b = parse(printed, GetParam() + " (printed)");
  for (auto& e : b.errors) ADD_FAILURE() << e.str();
  ASSERT_TRUE(b.ok());
  std::string why;
  EXPECT_TRUE(equal(*a.module, *b.module, &why)) << why;
  // Printing is a fixed point: print(parse(print(m))) == print(m).
  EXPECT_EQ(print(*b.module), printed);
}

TEST_P(Corpus, PrintedPtxAssembles) {
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not on PATH";
  std::string text = read(GetParam());
  auto a = parse(text, GetParam());
  ASSERT_TRUE(a.ok());
  std::string arch = arch_for(text, *a.module);
  fs::path tmp = fs::temp_directory_path() / ("warpsim_rt_" + std::to_string(::getpid()) + "_" +
                                              fs::path(GetParam()).stem().string() + ".ptx");
  {
    std::ofstream out(tmp, std::ios::binary);
    out << print(*a.module);
  }
  // Check the original first: a file ptxas itself rejects says nothing about the printer.
  std::string orig_cmd = "ptxas -arch=" + arch + " '" + GetParam() + "' -o /dev/null > /dev/null 2>&1";
  std::string cmd = "ptxas -arch=" + arch + " '" + tmp.string() + "' -o /dev/null 2>&1";
  if (std::system(orig_cmd.c_str()) != 0) {
    fs::remove(tmp);
    GTEST_SKIP() << "ptxas rejects the original for " << arch;
  }
  int rc = std::system(cmd.c_str());
  fs::remove(tmp);
  EXPECT_EQ(rc, 0) << "ptxas rejected the printed PTX: " << cmd;
}

INSTANTIATE_TEST_SUITE_P(Ptx, Corpus, ::testing::ValuesIn(corpus()), test_name);

TEST(Equality, DetectsDifferences) {
  auto a = parse(".version 8.7\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\nadd.s32 %r1, %r2, 5;\nret;\n}\n", "a");
  ASSERT_TRUE(a.ok());
  auto b = parse(".version 8.7\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\nadd.s32 %r1, %r2, 6;\nret;\n}\n", "b");
  ASSERT_TRUE(b.ok());
  std::string why;
  EXPECT_FALSE(equal(*a.module, *b.module, &why));
  EXPECT_NE(why.find("value 5 vs 6"), std::string::npos) << why;
  auto c = parse(".version 8.7\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\nsub.s32 %r1, %r2, 5;\nret;\n}\n", "c");
  EXPECT_FALSE(equal(*a.module, *c.module, &why));
  EXPECT_NE(why.find("opcode"), std::string::npos) << why;
  EXPECT_TRUE(equal(*a.module, *a.module));
}
