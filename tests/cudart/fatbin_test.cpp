// The fatbinary reader on containers built here byte by byte (the layout documented in
// src/cudart/fatbin.hpp), including LZ4-compressed entries and malformed input.
#include "cudart/cubin.hpp"
#include "cudart/fatbin.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

using namespace warpsim::cudart;

namespace {

template <class T>
void put(std::vector<uint8_t>& b, T v) {
  uint8_t raw[sizeof v];
  std::memcpy(raw, &v, sizeof v);
  b.insert(b.end(), raw, raw + sizeof v);
}

// One entry: header (0x40 bytes, 0x50 for PTX as nvcc writes them) + payload padded to 8.
void entry(std::vector<uint8_t>& b, uint16_t kind, uint32_t arch, const std::vector<uint8_t>& payload,
           uint64_t flags = 0x11, uint64_t dsize = 0) {
  const uint32_t hs = kind == 1 ? 0x50 : 0x40;
  const uint64_t padded = (payload.size() + 7) / 8 * 8;
  put<uint16_t>(b, kind);
  put<uint16_t>(b, 0x0101);
  put<uint32_t>(b, hs);
  put<uint64_t>(b, padded);
  put<uint32_t>(b, (flags & (kFlagLz4 | kFlagZstd)) ? uint32_t(payload.size()) : 0);
  put<uint32_t>(b, kind == 1 ? 0x40 : 0);
  put<uint16_t>(b, kind == 1 ? 0 : 8);  // minor
  put<uint16_t>(b, kind == 1 ? 9 : 1);  // major
  put<uint32_t>(b, arch);
  put<uint32_t>(b, 0);
  put<uint32_t>(b, 0);
  put<uint64_t>(b, flags);
  put<uint64_t>(b, 0);
  put<uint64_t>(b, dsize);
  b.resize(b.size() + (hs - 0x40), 0);
  b.insert(b.end(), payload.begin(), payload.end());
  b.resize(b.size() + (padded - payload.size()), 0);
}

std::vector<uint8_t> container(const std::vector<uint8_t>& entries) {
  std::vector<uint8_t> b;
  put<uint32_t>(b, kFatbinMagic);
  put<uint16_t>(b, 1);
  put<uint16_t>(b, 16);
  put<uint64_t>(b, entries.size());
  b.insert(b.end(), entries.begin(), entries.end());
  return b;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

TEST(Fatbin, PicksHighestPtxNotAboveDevice) {
  std::vector<uint8_t> e;
  entry(e, 2, 80, bytes("\x7f" "ELF fake cubin"));
  entry(e, 1, 75, bytes(".version 9.0\n.target sm_75\n"));
  entry(e, 1, 80, bytes(".version 9.0\n.target sm_80\n"));
  entry(e, 1, 90, bytes(".version 9.0\n.target sm_90\n"));
  auto c = container(e);
  std::vector<FatbinEntry> out;
  std::string err;
  uint64_t used = 0;
  ASSERT_TRUE(parse_fatbin(c.data(), c.size(), out, err, &used)) << err;
  EXPECT_EQ(used, c.size());
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].kind, EntryKind::Elf);
  const FatbinEntry* p = best_ptx(out, 80);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->arch, 80u);
  EXPECT_EQ(std::string(p->payload.begin(), p->payload.end()), ".version 9.0\n.target sm_80\n");  // NUL padding gone
  EXPECT_EQ(best_ptx(out, 70), nullptr);
  EXPECT_EQ(best_ptx(out, 86)->arch, 80u);
}

// nvcc -arch=sm_90a embeds compute_90 PTX and compute_90a PTX, both arch 90: the sm_90a one is
// what the GPU's cubin was built from, whichever comes first.
TEST(Fatbin, PrefersArchSpecificPtxAtEqualArch) {
  for (bool specific_first : {false, true}) {
    std::vector<uint8_t> e;
    const auto plain = bytes(".version 9.0\n.target sm_90\n"), specific = bytes(".version 9.0\n.target sm_90a\n");
    entry(e, 1, 90, specific_first ? specific : plain);
    entry(e, 1, 90, specific_first ? plain : specific);
    auto c = container(e);
    std::vector<FatbinEntry> out;
    std::string err;
    ASSERT_TRUE(parse_fatbin(c.data(), c.size(), out, err)) << err;
    const FatbinEntry* p = best_ptx(out, 90);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(std::string(p->payload.begin(), p->payload.end()), ".version 9.0\n.target sm_90a\n") << specific_first;
  }
}

TEST(Fatbin, Lz4CompressedPtx) {
  // "abcabcabcabc!" as an LZ4 block: 3 literals "abc", match offset 3 length 9, then literal "!".
  std::vector<uint8_t> lz4 = {0x35, 'a', 'b', 'c', 0x03, 0x00, 0x10, '!'};
  std::vector<uint8_t> e;
  entry(e, 1, 80, lz4, 0x2011, 13);
  auto c = container(e);
  std::vector<FatbinEntry> out;
  std::string err;
  ASSERT_TRUE(parse_fatbin(c.data(), c.size(), out, err)) << err;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].compressed);
  EXPECT_EQ(out[0].error, "");
  EXPECT_EQ(std::string(out[0].payload.begin(), out[0].payload.end()), "abcabcabcabc!");
}

TEST(Fatbin, CorruptLz4IsAnEntryErrorNotACrash) {
  std::vector<uint8_t> lz4 = {0x35, 'a', 'b', 'c', 0x09, 0x00, 0x10, '!'};  // offset 9 > output so far
  std::vector<uint8_t> e;
  entry(e, 1, 80, lz4, 0x2011, 13);
  auto c = container(e);
  std::vector<FatbinEntry> out;
  std::string err;
  ASSERT_TRUE(parse_fatbin(c.data(), c.size(), out, err));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].error, "");
  EXPECT_EQ(best_ptx(out, 80), nullptr);
}

TEST(Fatbin, RejectsBadMagicAndOverruns) {
  std::vector<uint8_t> e;
  entry(e, 1, 80, bytes(".version 9.0\n"));
  auto c = container(e);
  std::vector<FatbinEntry> out;
  std::string err;
  auto bad = c;
  bad[0] ^= 1;
  EXPECT_FALSE(parse_fatbin(bad.data(), bad.size(), out, err));
  EXPECT_NE(err.find("magic"), std::string::npos);
  auto trunc = c;
  EXPECT_FALSE(parse_fatbin(trunc.data(), trunc.size() - 8, out, err));
  auto overrun = c;
  overrun[16 + 8] = 0xff;  // entry payload size far beyond the container
  EXPECT_FALSE(parse_fatbin(overrun.data(), overrun.size(), out, err));
}

TEST(Fatbin, WrapperVersion2FollowsPrelinkedList) {
  std::vector<uint8_t> linked_e, tu_e;
  entry(linked_e, 2, 80, bytes("\x7f" "ELF linked"));
  entry(tu_e, 1, 80, bytes(".version 9.0\n"));
  auto linked = container(linked_e);
  auto tu = container(tu_e);
  const void* list[] = {tu.data(), nullptr};
  struct {
    int32_t magic, version;
    const void* data;
    const void* fatbins;
  } w{int32_t(kWrapperMagic), 2, linked.data(), list};
  std::vector<Container> out;
  std::string err;
  ASSERT_TRUE(parse_wrapper(&w, out, err)) << err;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(best_ptx(out[0], 80), nullptr);
  ASSERT_NE(best_ptx(out[1], 80), nullptr);
}

// Inputs the fatbin/cubin fuzzer (fuzz/fatbin_fuzz.cpp) found crashing, kept as regressions: a
// cubin whose section-name table is NOBITS (no bytes in the image, an offset far outside it) made
// the name lookup read unmapped memory; a 5 KB compressed entry claiming 1.6 GB had that buffer
// allocated before decompressing; an LZ4 entry with an empty output passed a null buffer to memcpy.
TEST(Cubin, FuzzRegressionsAreRejectedOrReadSafely) {
  const std::string dir = std::string(WARPSIM_SOURCE_DIR) + "/fuzz/regressions-fatbin/";
  for (const char* name : {"cubin_nobits_strtab.bin", "fatbin_huge_claimed_size.bin", "lz4_empty_output.bin"}) {
    std::ifstream in(dir + name, std::ios::binary);
    ASSERT_TRUE(in) << dir + name;
    std::vector<uint8_t> img((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::map<std::string, warpsim::cudart::KernelResources> res;
    std::string err;
    const bool ok = warpsim::cudart::read_cubin_resources(img.data(), img.size(), res, err);
    EXPECT_TRUE(ok || !err.empty()) << name;
    std::vector<warpsim::cudart::FatbinEntry> entries;
    if (!warpsim::cudart::parse_fatbin(img.data(), img.size(), entries, err)) EXPECT_FALSE(err.empty());
    for (auto& e : entries) EXPECT_LE(e.payload.size(), size_t(1) << 24) << name;  // no claimed size taken on trust
  }
}

extern "C" void* warpsim_driver_proc(const char* name, int version);

// cuModuleLoadFatBinary of a bare container in the caller's memory: the driver reads the container
// when a kernel is first looked up, after the caller may have reused its buffer, so it keeps a copy.
TEST(DriverModules, BareFatbinIsReadAfterTheCallersBufferIsGone) {
  auto load = reinterpret_cast<int (*)(void**, const void*)>(warpsim_driver_proc("cuModuleLoadFatBinary", 2000));
  auto get = reinterpret_cast<int (*)(void**, void*, const char*)>(warpsim_driver_proc("cuModuleGetFunction", 2000));
  ASSERT_TRUE(load && get);
  std::vector<uint8_t> e;
  entry(e, 1, 80,
        bytes(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry kept(.param .u64 p)\n{\n  ret;\n}\n"));
  auto buf = std::make_unique<std::vector<uint8_t>>(container(e));
  void* mod = nullptr;
  ASSERT_EQ(load(&mod, buf->data()), 0);
  std::fill(buf->begin(), buf->end(), 0xee);
  buf.reset();
  void* fn = nullptr;
  EXPECT_EQ(get(&fn, mod, "kept"), 0);
  EXPECT_NE(fn, nullptr);
}
