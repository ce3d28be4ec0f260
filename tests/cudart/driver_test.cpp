// The pieces of the driver layer that can be checked without a CUDA program: MD2 against RFC
// 1319's test suite, and the private export tables the CUDA runtime asks for.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "cudart/driver.hpp"
#include "cudart/md2.hpp"

using namespace warpsim::cudart;

namespace {
std::string md2_hex(const std::string& msg) {
  Md2 h;
  h.update(msg.data(), msg.size());
  uint8_t d[16];
  h.finish(d);
  std::string out;
  char buf[3];
  for (uint8_t b : d) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    out += buf;
  }
  return out;
}
}  // namespace

TEST(Md2, Rfc1319TestSuite) {
  EXPECT_EQ(md2_hex(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(md2_hex("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(md2_hex("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(md2_hex("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(md2_hex("abcdefghijklmnopqrstuvwxyz"), "4e8ddff3650292ab5a4108c3aa47940b");
  EXPECT_EQ(md2_hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "da33def2a42df13975352846c30338cd");
  EXPECT_EQ(md2_hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(Md2, FeedingInPiecesGivesTheSameDigest) {
  const std::string msg = "12345678901234567890123456789012345678901234567890123456789012345678901234567890";
  for (size_t split : {1u, 15u, 16u, 17u, 33u}) {
    Md2 h;
    h.update(msg.data(), split);
    h.update(msg.data() + split, msg.size() - split);
    uint8_t a[16], b[16];
    h.finish(a);
    Md2 whole;
    whole.update(msg.data(), msg.size());
    whole.finish(b);
    EXPECT_EQ(0, std::memcmp(a, b, 16)) << "split at " << split;
  }
}

TEST(Md2, HmacKeysTheDigest) {
  const uint8_t k1[16] = {1}, k2[16] = {2};
  uint8_t a[16], b[16], c[16];
  hmac_md2(k1, "abc", 3, a);
  hmac_md2(k2, "abc", 3, b);
  hmac_md2(k1, "abc", 3, c);
  EXPECT_NE(0, std::memcmp(a, b, 16));
  EXPECT_EQ(0, std::memcmp(a, c, 16));
}

TEST(DriverTables, KnownIdsHaveTablesUnknownOnesDoNot) {
  // CUDART_INTERFACE, whose first slot is the table's size in bytes.
  const uint8_t cudart[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                              0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
  const auto* t = static_cast<const uintptr_t*>(driver_export_table(cudart));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t[0], 10 * sizeof(void*));
  EXPECT_NE(t[1], 0u);
  uint8_t unknown[16] = {};
  EXPECT_EQ(driver_export_table(unknown), nullptr);
}

TEST(DriverTables, IntegrityCheckFixedAnswers) {
  const uint8_t id[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                          0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
  const auto* t = static_cast<void* const*>(driver_export_table(id));
  ASSERT_NE(t, nullptr);
  auto check = reinterpret_cast<int (*)(uint32_t, uint64_t, uint64_t*)>(t[1]);
  uint64_t r[2] = {};
  EXPECT_EQ(check(13000, 0, r), 0);
  EXPECT_EQ(r[1], 0x8ED383AA1F4CD1E8ull);
  uint64_t a[2] = {}, b[2] = {};
  check(13002, 100, a);  // the keyed hash depends on the time the runtime passes
  check(13002, 101, b);
  EXPECT_FALSE(a[0] == b[0] && a[1] == b[1]);
}

extern "C" void* warpsim_driver_proc(const char* name, int version);

// cuModuleLoad of files: bad images are refused with CUDA_ERROR_INVALID_IMAGE (or the PTX error),
// never read past their end; a PTX file loads and its kernel is found.
TEST(DriverModules, FilesAreCheckedBeforeTheyAreLoaded) {
  auto load = reinterpret_cast<int (*)(void**, const char*)>(warpsim_driver_proc("cuModuleLoad", 2000));
  auto get = reinterpret_cast<int (*)(void**, void*, const char*)>(warpsim_driver_proc("cuModuleGetFunction", 2000));
  ASSERT_TRUE(load && get);
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return path;
  };
  void* mod = nullptr;
  EXPECT_EQ(load(&mod, (dir + "/no_such_file.fatbin").c_str()), 301);  // CUDA_ERROR_FILE_NOT_FOUND
  // A fatbin header claiming 1 MiB of entries in a 32-byte file.
  std::vector<uint8_t> fat = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0x10, 0, 0, 0, 0, 0};
  fat.resize(32, 0);
  EXPECT_EQ(load(&mod, write("short.fatbin", fat).c_str()), 200);  // CUDA_ERROR_INVALID_IMAGE
  std::vector<uint8_t> junk(64, 0xab);
  EXPECT_EQ(load(&mod, write("junk.bin", junk).c_str()), 200);
  const std::string ptx =
      ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n  ret;\n}\n";
  ASSERT_EQ(load(&mod, write("k.ptx", std::vector<uint8_t>(ptx.begin(), ptx.end())).c_str()), 0);
  void* fn = nullptr;
  EXPECT_EQ(get(&fn, mod, "k"), 0);
  EXPECT_NE(fn, nullptr);
  EXPECT_EQ(get(&fn, mod, "absent"), 500);  // CUDA_ERROR_NOT_FOUND
}
