// `warpsim run`'s check of a program's CUDA runtime linkage, on ELF files built here byte by byte
// (so the test needs no nvcc; tests/cudart/static_runtime.sh checks a real nvcc build).
#include "cli/program_check.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using warpsim::cli::CudaRuntimeLink;
using warpsim::cli::inspect_program;

void put(std::vector<uint8_t>& b, size_t off, uint64_t v, int bytes) {
  if (b.size() < off + size_t(bytes)) b.resize(off + size_t(bytes));
  for (int i = 0; i < bytes; ++i) b[off + size_t(i)] = uint8_t(v >> (8 * i));
}

// A minimal ELF64 executable image: the section-name table, a dynamic string table, a dynamic
// section listing `needed`, and a .nv_fatbin section when `fatbin`.
std::vector<uint8_t> make_elf(const std::vector<std::string>& needed, bool fatbin) {
  std::string shstr = std::string("\0.shstrtab\0.dynstr\0.dynamic\0.nv_fatbin\0", 39);
  std::string dynstr(1, '\0');
  std::vector<uint64_t> offs;
  for (auto& n : needed) offs.push_back(dynstr.size()), dynstr += n + '\0';
  std::vector<uint8_t> b(64, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::copy(std::begin(ident), std::end(ident), b.begin());
  put(b, 0x10, 2, 2);   // ET_EXEC
  put(b, 0x12, 62, 2);  // EM_X86_64
  struct Sec { uint32_t name, type, link; uint64_t off, size; };
  std::vector<Sec> secs = {{0, 0, 0, 0, 0}};
  auto add = [&](uint32_t name, uint32_t type, uint32_t link, const std::vector<uint8_t>& data) {
    secs.push_back({name, type, link, b.size(), data.size()});
    b.insert(b.end(), data.begin(), data.end());
  };
  add(1, 3, 0, std::vector<uint8_t>(shstr.begin(), shstr.end()));
  add(11, 3, 0, std::vector<uint8_t>(dynstr.begin(), dynstr.end()));
  std::vector<uint8_t> dyn;
  for (size_t i = 0; i < offs.size(); ++i) put(dyn, 16 * i, 1, 8), put(dyn, 16 * i + 8, offs[i], 8);
  put(dyn, dyn.size(), 0, 16);  // DT_NULL
  add(19, 6, 2, dyn);
  if (fatbin) add(28, 1, 0, std::vector<uint8_t>(32, 0xab));
  const size_t shoff = b.size();
  for (auto& s : secs) {
    const size_t o = b.size();
    b.resize(o + 64, 0);
    put(b, o, s.name, 4), put(b, o + 4, s.type, 4), put(b, o + 0x18, s.off, 8), put(b, o + 0x20, s.size, 8);
    put(b, o + 0x28, s.link, 4);
  }
  put(b, 0x28, shoff, 8);
  put(b, 0x34, 64, 2);  // e_ehsize
  put(b, 0x3a, 64, 2);
  put(b, 0x3c, secs.size(), 2);
  put(b, 0x3e, 1, 2);
  return b;
}

CudaRuntimeLink inspect_bytes(const std::vector<uint8_t>& b) {
  std::istringstream in(std::string(b.begin(), b.end()));
  return warpsim::cli::inspect_image(in);
}

std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
  const auto p = std::filesystem::temp_directory_path() / ("warpsim_progcheck_" + std::to_string(::getpid()) + name);
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return p.string();
}

// Written to a file, inspected as `warpsim run` does, removed.
CudaRuntimeLink inspect_file(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string p = write(name, bytes);
  const auto r = inspect_program(p);
  std::filesystem::remove(p);
  return r;
}

TEST(ProgramCheck, TellsTheSharedRuntimeFromTheStaticOne) {
  const std::vector<std::string> dyn_libs = {"libstdc++.so.6", "libc.so.6"};
  std::vector<std::string> with_cudart = dyn_libs;
  with_cudart.insert(with_cudart.begin(), "libcudart.so.13");
  EXPECT_EQ(inspect_file("shared", make_elf(with_cudart, true)), CudaRuntimeLink::shared);
  EXPECT_EQ(inspect_file("shared12", make_elf({"libcudart.so.12"}, true)), CudaRuntimeLink::shared);
  EXPECT_EQ(inspect_file("static", make_elf(dyn_libs, true)), CudaRuntimeLink::static_runtime);
  // Fully static executables have no dynamic section at all.
  EXPECT_EQ(inspect_file("nodyn", make_elf({}, true)), CudaRuntimeLink::static_runtime);
  EXPECT_EQ(inspect_file("host", make_elf(dyn_libs, false)), CudaRuntimeLink::no_device_code);
  EXPECT_EQ(inspect_file("hostcudart", make_elf(with_cudart, false)), CudaRuntimeLink::no_device_code);
}

TEST(ProgramCheck, AnythingElseIsUnknownAndNeverBlocks) {
  EXPECT_EQ(inspect_program("/nonexistent/warpsim/program"), CudaRuntimeLink::unknown);
  EXPECT_EQ(inspect_file("script", {'#', '!', '/', 'b', 'i', 'n', '/', 's', 'h', '\n'}), CudaRuntimeLink::unknown);
  auto elf32 = make_elf({"libc.so.6"}, true);
  elf32[4] = 1;
  EXPECT_EQ(inspect_file("elf32", elf32), CudaRuntimeLink::unknown);
  EXPECT_EQ(inspect_program(std::filesystem::temp_directory_path().string()), CudaRuntimeLink::unknown);
  // The test's own executable: an ELF with no device code.
  EXPECT_EQ(inspect_program("/proc/self/exe"), CudaRuntimeLink::no_device_code);
}

// Truncated and corrupted images answer something (mostly `unknown`) without reading out of bounds.
TEST(ProgramCheck, TruncatedAndCorruptedImagesAreSafe) {
  const auto good = make_elf({"libc.so.6"}, true);
  for (size_t n = 0; n < good.size(); ++n) {
    const auto r = inspect_bytes(std::vector<uint8_t>(good.begin(), good.begin() + long(n)));
    // The section table is at the end: any cut loses it.
    EXPECT_EQ(r, CudaRuntimeLink::unknown) << n;
  }
  std::mt19937 rng(7);
  int decided = 0;
  for (int i = 0; i < 20000; ++i) {
    auto bad = good;
    for (int k = 0; k < 4; ++k) bad[rng() % bad.size()] = uint8_t(rng());
    decided += inspect_bytes(bad) != CudaRuntimeLink::unknown;
  }
  EXPECT_GT(decided, 0);  // most flips land in data that does not matter
}

TEST(ProgramCheck, ResolvesLikeExecvp) {
  EXPECT_FALSE(warpsim::cli::resolve_program("sh").empty());
  EXPECT_EQ(warpsim::cli::resolve_program("/nonexistent/prog"), "");
  EXPECT_EQ(warpsim::cli::resolve_program("warpsim-no-such-program-xyz"), "");
  EXPECT_EQ(warpsim::cli::resolve_program(""), "");
}

}  // namespace
