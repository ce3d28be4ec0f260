#include "mem/device_memory.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace warpsim::mem {
namespace {

constexpr uint64_t KiB = 1ull << 10, MiB = 1ull << 20, GiB = 1ull << 30;

MemoryConfig small_config(uint64_t capacity = 64 * MiB, uint32_t page = 64 * KiB) {
  MemoryConfig c;
  c.capacity = capacity;
  c.page_size = page;
  return c;
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 31 + (i >> 8));
  return v;
}

TEST(DeviceMemory, AllocateAlignsAndStaysInWindow) {
  DeviceMemory m;
  EXPECT_EQ(m.capacity(), 40 * GiB);
  EXPECT_EQ(m.page_size(), 64 * KiB);
  uint64_t a = m.allocate(100, 256, "a");
  uint64_t b = m.allocate(1, 256, "b");
  ASSERT_NE(a, 0u);
  ASSERT_NE(b, 0u);
  EXPECT_EQ(a, MemoryConfig{}.base);  // first fit from the bottom of the window
  EXPECT_EQ(a % 256, 0u);
  EXPECT_EQ(b, a + m.page_size());  // whole pages are mapped
  EXPECT_EQ(m.mapped_bytes(), 2 * m.page_size());
  for (uint64_t align : {uint64_t{512}, 4 * KiB, 2 * MiB, 1 * GiB}) {
    uint64_t p = m.allocate(3000, align);
    ASSERT_NE(p, 0u) << align;
    EXPECT_EQ(p % align, 0u) << align;
    EXPECT_GE(p, m.base());
    EXPECT_LE(p + 3000, m.va_end());
  }
}

TEST(DeviceMemory, AllocateRejectsZeroBytesAndBadAlignment) {
  DeviceMemory m(small_config());
  EXPECT_EQ(m.allocate(0), 0u);
  EXPECT_EQ(m.allocate(16, 3), 0u);
  EXPECT_EQ(m.allocate(16, 384), 0u);
  EXPECT_EQ(m.allocate(16, 1ull << 63), 0u);  // no such aligned address in the window
  EXPECT_EQ(m.allocate(~0ull), 0u);           // page count must not overflow
  EXPECT_EQ(m.mapped_bytes(), 0u);
  EXPECT_NE(m.allocate(16, 0), 0u);  // 0 means the default alignment
}

TEST(DeviceMemory, ReleaseAndReuse) {
  DeviceMemory m(small_config());
  uint64_t a = m.allocate(1 * MiB, 256, "a");
  uint64_t b = m.allocate(1 * MiB, 256, "b");
  uint64_t c = m.allocate(1 * MiB, 256, "c");
  ASSERT_TRUE(a && b && c);
  EXPECT_FALSE(m.release(b + 256));  // not the start of an allocation
  EXPECT_FALSE(m.release(0));
  EXPECT_TRUE(m.release(b));
  EXPECT_FALSE(m.release(b));  // already released
  EXPECT_FALSE(m.mapped(b, 1));
  EXPECT_EQ(m.mapped_bytes(), 2 * MiB);
  EXPECT_EQ(m.allocate(512 * KiB, 256, "d"), b);  // first fit reuses the hole
  uint64_t e = m.allocate(512 * KiB, 256, "e");
  EXPECT_EQ(e, b + 512 * KiB);
  EXPECT_EQ(m.allocate(1, 256), c + 1 * MiB);  // the hole is full
}

TEST(DeviceMemory, ReleaseCoalescesFreeRanges) {
  DeviceMemory m(small_config(64 * MiB));
  uint64_t q[4];
  for (auto& p : q) ASSERT_NE(p = m.allocate(16 * MiB), 0u);
  EXPECT_EQ(m.allocate(1), 0u);  // full
  ASSERT_TRUE(m.release(q[1]));
  ASSERT_TRUE(m.release(q[2]));
  // 32 MiB fits only if the two released 16 MiB ranges were merged.
  EXPECT_EQ(m.allocate(32 * MiB), q[1]);
  ASSERT_TRUE(m.release(q[1]));
  ASSERT_TRUE(m.release(q[0]));
  ASSERT_TRUE(m.release(q[3]));
  EXPECT_EQ(m.mapped_bytes(), 0u);
  EXPECT_EQ(m.allocate(64 * MiB), m.base());  // everything merged back into one range
}

class CapacityTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(CapacityTest, OutOfMemoryAtCapacity) {
  const uint64_t cap = GetParam();
  MemoryConfig c;
  c.capacity = cap;
  {
    DeviceMemory m(c);
    EXPECT_EQ(m.allocate(cap + 1), 0u);
    EXPECT_EQ(m.allocate(cap), m.base());
    EXPECT_EQ(m.mapped_bytes(), cap);
    EXPECT_EQ(m.allocate(1), 0u);
    EXPECT_EQ(m.backed_bytes(), 0u);  // mapping costs no host memory
  }
  DeviceMemory m(c);
  std::vector<uint64_t> got;
  for (uint64_t i = 0; i < cap / GiB; ++i) {
    uint64_t p = m.allocate(GiB - 100);  // rounds up to whole pages: exactly 1 GiB each
    ASSERT_NE(p, 0u) << i;
    got.push_back(p);
  }
  EXPECT_EQ(m.mapped_bytes(), cap);
  EXPECT_EQ(m.allocate(1), 0u);
  ASSERT_TRUE(m.release(got[got.size() / 2]));
  EXPECT_EQ(m.allocate(GiB + 1), 0u);  // one page too many
  EXPECT_EQ(m.allocate(GiB), got[got.size() / 2]);
}

INSTANTIATE_TEST_SUITE_P(A100, CapacityTest, ::testing::Values(40 * GiB, 80 * GiB));

TEST(DeviceMemory, CapacityCountsMappedPagesNotBytes) {
  DeviceMemory m(small_config(1 * MiB, 64 * KiB));  // 16 pages
  for (int i = 0; i < 16; ++i) ASSERT_NE(m.allocate(1), 0u) << i;
  EXPECT_EQ(m.mapped_bytes(), 1 * MiB);
  EXPECT_EQ(m.allocate(1), 0u);
}

TEST(DeviceMemory, NonPageMultipleCapacityNeverExceeded) {
  DeviceMemory m(small_config(1 * MiB + 100, 64 * KiB));
  EXPECT_EQ(m.va_end() - m.base(), 1 * MiB + 64 * KiB);  // the window rounds up
  EXPECT_EQ(m.allocate(1 * MiB + 1), 0u);                // but the partial page is not mappable
  EXPECT_NE(m.allocate(1 * MiB), 0u);
}

TEST(DeviceMemory, UntouchedMemoryReadsZeroWithoutBacking) {
  DeviceMemory m;
  uint64_t a = m.allocate(1 * GiB);
  ASSERT_NE(a, 0u);
  std::vector<uint8_t> buf(100000, 0xEE);
  for (uint64_t off : {uint64_t{0}, uint64_t{12345}, 512 * MiB - 7, 1 * GiB - 100000}) {
    std::fill(buf.begin(), buf.end(), 0xEE);
    ASSERT_EQ(m.read(a + off, buf.data(), buf.size()), Fault::None);
    EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](uint8_t v) { return v == 0; })) << off;
  }
  const uint8_t* z1 = m.page_for_read(a);
  const uint8_t* z2 = m.page_for_read(a + 100 * MiB);
  ASSERT_NE(z1, nullptr);
  EXPECT_EQ(z1, z2);  // one shared zero page
  EXPECT_EQ(z1[0], 0);
  EXPECT_EQ(z1[m.page_size() - 1], 0);
  EXPECT_EQ(m.backed_bytes(), 0u);

  uint32_t v = 0xdeadbeef;
  ASSERT_EQ(m.write(a + 100 * MiB + 4, &v, 4), Fault::None);
  EXPECT_EQ(m.backed_bytes(), m.page_size());
  EXPECT_NE(m.page_for_read(a + 100 * MiB), z1);
  EXPECT_EQ(m.page_for_read(a), z1);
  EXPECT_EQ(z1[4], 0);  // the write did not land in the zero page
}

TEST(DeviceMemory, ReadWriteRoundTripAcrossPages) {
  DeviceMemory m(small_config(64 * MiB, 4 * KiB));
  uint64_t a = m.allocate(1 * MiB);
  ASSERT_NE(a, 0u);
  const uint64_t start = a + 4 * KiB - 7;  // begins 7 bytes before a page boundary
  auto data = pattern(3 * 4 * KiB + 100, 5);
  ASSERT_EQ(m.write(start, data.data(), data.size()), Fault::None);
  EXPECT_EQ(m.backed_bytes(), 5 * 4 * KiB);  // pages 0..4 touched
  std::vector<uint8_t> back(data.size());
  ASSERT_EQ(m.read(start, back.data(), back.size()), Fault::None);
  EXPECT_EQ(back, data);
  // The fast path sees the same bytes on both sides of a boundary.
  EXPECT_EQ(m.page_for_read(start)[m.page_offset(start)], data[0]);
  EXPECT_EQ(m.page_for_read(start + 7)[0], data[7]);
  EXPECT_TRUE(m.within_page(start, 7));
  EXPECT_FALSE(m.within_page(start, 8));
  // Unaligned overwrite in the middle, then read around it.
  uint64_t x = 0x0102030405060708ull;
  ASSERT_EQ(m.write(a + 2 * 4 * KiB - 3, &x, 8), Fault::None);
  uint64_t y = 0;
  ASSERT_EQ(m.host_read(a + 2 * 4 * KiB - 3, &y, 8), Fault::None);
  EXPECT_EQ(y, x);
  uint8_t* w = m.page_for_write(a + 64 * KiB + 10);
  ASSERT_NE(w, nullptr);
  w[m.page_offset(a + 64 * KiB + 10)] = 0x5A;
  uint8_t r = 0;
  ASSERT_EQ(m.read(a + 64 * KiB + 10, &r, 1), Fault::None);
  EXPECT_EQ(r, 0x5A);
  EXPECT_EQ(m.page_for_write(a + 64 * KiB), w);  // same page, same backing
}

TEST(DeviceMemory, UnmappedAndPastTheEndFault) {
  DeviceMemory m(small_config(64 * MiB, 64 * KiB));
  uint64_t a = m.allocate(100);
  uint64_t b = m.allocate(64 * KiB);
  uint64_t c = m.allocate(64 * KiB);
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(m.release(b));
  uint8_t buf[16];
  std::memset(buf, 0x11, sizeof buf);
  EXPECT_EQ(m.read(m.base() - 1, buf, 1), Fault::Unmapped);
  EXPECT_EQ(m.read(0, buf, 1), Fault::Unmapped);
  EXPECT_EQ(m.read(b, buf, 1), Fault::Unmapped);
  EXPECT_EQ(m.read(c + 64 * KiB, buf, 1), Fault::Unmapped);   // past the last allocation
  EXPECT_EQ(m.read(m.va_end(), buf, 1), Fault::Unmapped);     // past the window
  EXPECT_EQ(m.read(m.va_end() - 1, buf, 1), Fault::Unmapped); // in the window, never mapped
  // Past the requested size but inside the mapped page: real hardware does not fault either.
  EXPECT_EQ(m.read(a + 200, buf, 4), Fault::None);
  // Straddling the end of a's page into the released page: faults, and writes nothing.
  EXPECT_EQ(m.write(b - 8, buf, 16), Fault::Unmapped);
  uint64_t tail = 1;
  ASSERT_EQ(m.read(b - 8, &tail, 8), Fault::None);
  EXPECT_EQ(tail, 0u);
  EXPECT_EQ(m.backed_bytes(), 0u);
  EXPECT_EQ(m.page_for_read(b), nullptr);
  EXPECT_EQ(m.page_for_write(b), nullptr);
  EXPECT_EQ(m.page_for_read(m.base() - 1), nullptr);
  EXPECT_FALSE(m.mapped(a, 64 * KiB + 1));
  EXPECT_TRUE(m.mapped(a, 64 * KiB));
  EXPECT_EQ(m.read(b, buf, 0), Fault::None);  // empty access
  EXPECT_EQ(m.fill(b, 0, 4), Fault::Unmapped);
  EXPECT_EQ(m.host_write(b, buf, 4), Fault::Unmapped);
}

TEST(DeviceMemory, AddressOverflowNear2To64Faults) {
  // A window ending just below 2^64, fully mapped, so the only way to fault is to run off it.
  MemoryConfig c;
  c.capacity = 1 * MiB;
  c.page_size = 64 * KiB;
  c.base = 0ull - 2 * MiB;
  DeviceMemory m(c);
  EXPECT_EQ(m.va_end(), 0ull - 1 * MiB);
  uint64_t a = m.allocate(1 * MiB);
  ASSERT_EQ(a, c.base);
  uint64_t v = 0;
  EXPECT_EQ(m.read(m.va_end() - 8, &v, 8), Fault::None);
  EXPECT_EQ(m.read(m.va_end() - 4, &v, 8), Fault::Unmapped);
  EXPECT_EQ(m.read(a, &v, ~0ull), Fault::Unmapped);  // addr + n wraps
  EXPECT_EQ(m.write(a + 8, &v, ~0ull - 4), Fault::Unmapped);
  EXPECT_EQ(m.read(~0ull, &v, 1), Fault::Unmapped);
  EXPECT_EQ(m.read(~0ull - 3, &v, 8), Fault::Unmapped);
  EXPECT_EQ(m.page_for_read(~0ull), nullptr);
  EXPECT_EQ(m.page_for_write(~0ull), nullptr);
  EXPECT_FALSE(m.mapped(~0ull - 3, 8));
  EXPECT_FALSE(m.translate(~0ull).mapped);
  // And with the default window: addresses far above it.
  DeviceMemory d;
  uint64_t p = d.allocate(64);
  ASSERT_NE(p, 0u);
  EXPECT_EQ(d.read(p, &v, 0ull - p + 8), Fault::Unmapped);  // p + n wraps to 8
  EXPECT_EQ(d.read(0xFFFF'FFFF'FFFF'FFF8ull, &v, 8), Fault::Unmapped);
}

TEST(DeviceMemory, ReadOnlyFaultsDeviceWritesButNotHostCopies) {
  DeviceMemory m(small_config());
  uint64_t rw = m.allocate(64 * KiB, 256, "rw");
  uint64_t k = m.allocate(2 * 64 * KiB, 256, "__constant__ bank 0");
  ASSERT_EQ(k, rw + 64 * KiB);
  uint32_t init = 0x12345678;
  ASSERT_EQ(m.write(k + 64, &init, 4), Fault::None);
  m.set_read_only(k + 100, true);  // any address inside the allocation
  ASSERT_NE(m.find(k), nullptr);
  EXPECT_TRUE(m.find(k)->read_only);
  EXPECT_FALSE(m.find(rw)->read_only);

  uint32_t v = 0xAAAAAAAA;
  EXPECT_EQ(m.write(k + 64, &v, 4), Fault::ReadOnly);
  EXPECT_EQ(m.write(k + 64 * KiB + 4, &v, 4), Fault::ReadOnly);  // second page too
  EXPECT_EQ(m.page_for_write(k), nullptr);
  EXPECT_EQ(m.page_for_write(k + 64 * KiB), nullptr);
  EXPECT_NE(m.page_for_read(k), nullptr);
  // A write straddling rw into the bank faults without touching the rw part.
  uint64_t big = ~0ull;
  EXPECT_EQ(m.write(k - 4, &big, 8), Fault::ReadOnly);
  uint32_t rw_tail = 1;
  ASSERT_EQ(m.read(k - 4, &rw_tail, 4), Fault::None);
  EXPECT_EQ(rw_tail, 0u);

  uint32_t got = 0;
  ASSERT_EQ(m.read(k + 64, &got, 4), Fault::None);
  EXPECT_EQ(got, init);
  ASSERT_EQ(m.host_write(k + 64, &v, 4), Fault::None);  // cudaMemcpyToSymbol
  ASSERT_EQ(m.read(k + 64, &got, 4), Fault::None);
  EXPECT_EQ(got, v);
  ASSERT_EQ(m.fill(k + 64 * KiB, 0x7F, 4), Fault::None);
  ASSERT_EQ(m.host_read(k + 64 * KiB, &got, 4), Fault::None);
  EXPECT_EQ(got, 0x7F7F7F7Fu);
  EXPECT_TRUE(m.translate(k + 64 * KiB).read_only);
  EXPECT_FALSE(m.translate(rw).read_only);

  m.set_read_only(k, false);
  EXPECT_EQ(m.write(k + 64, &init, 4), Fault::None);
  EXPECT_NE(m.page_for_write(k), nullptr);
  EXPECT_FALSE(m.translate(k).read_only);
}

TEST(DeviceMemory, TranslateAssignsFramesInAllocationOrder) {
  DeviceMemory m(small_config(64 * MiB, 64 * KiB));
  const uint64_t ps = m.page_size();
  uint64_t a = m.allocate(3 * ps);
  uint64_t b = m.allocate(2 * ps);
  for (uint64_t i = 0; i < 3; ++i) {
    auto t = m.translate(a + i * ps + 17);
    EXPECT_TRUE(t.mapped);
    EXPECT_FALSE(t.read_only);
    EXPECT_EQ(t.frame, i);
  }
  EXPECT_EQ(m.translate(b).frame, 3u);
  EXPECT_EQ(m.translate(b + ps).frame, 4u);
  EXPECT_FALSE(m.translate(b + 2 * ps).mapped);
  EXPECT_FALSE(m.translate(m.base() - 1).mapped);
  // Released frames are reused lowest first, so a later allocation may be physically scattered.
  ASSERT_TRUE(m.release(a));
  EXPECT_FALSE(m.translate(a).mapped);
  uint64_t c = m.allocate(4 * ps);
  ASSERT_EQ(c, a + 5 * ps);  // VA: a's 3-page hole is too small, so after b
  const uint64_t want[] = {0, 1, 2, 5};
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(m.translate(c + i * ps).frame, want[i]) << i;
  // Every frame is a real physical page of the device (filling a's VA hole first).
  ASSERT_EQ(m.allocate(3 * ps), a);
  ASSERT_NE(m.allocate(m.capacity() - m.mapped_bytes()), 0u);
  EXPECT_EQ(m.allocate(1), 0u);
  std::set<uint64_t> frames;
  for (const auto& al : m.allocations())
    for (uint64_t off = 0; off < al.size; off += ps) frames.insert(m.translate(al.addr + off).frame);
  EXPECT_EQ(frames.size(), m.capacity() / ps);
  EXPECT_EQ(*frames.rbegin(), m.capacity() / ps - 1);
}

TEST(DeviceMemory, SparseScatterOver80GB) {
  MemoryConfig c;
  c.capacity = 80 * GiB;
  DeviceMemory m(c);
  uint64_t a = m.allocate(80 * GiB, 256, "everything");
  ASSERT_EQ(a, m.base());
  // 2000 8-byte writes spread by an LCG over the whole 80 GB.
  std::vector<uint64_t> addrs;
  std::set<uint64_t> pages;
  uint64_t x = 12345;
  for (int i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t off = ((x >> 11) % (80 * GiB)) & ~7ull;
    addrs.push_back(a + off);
    pages.insert(off / m.page_size());
  }
  for (uint64_t p : addrs) ASSERT_EQ(m.write(p, &p, 8), Fault::None);
  EXPECT_EQ(m.backed_bytes(), pages.size() * m.page_size());
  EXPECT_LT(m.backed_bytes(), 200 * MiB);
  for (uint64_t p : addrs) {
    uint64_t v = 0;
    ASSERT_EQ(m.read(p, &v, 8), Fault::None);
    EXPECT_EQ(v, p);
  }
  // A page nobody wrote still reads as zero.
  uint64_t quiet = 0;
  while (pages.count(quiet)) ++quiet;
  uint64_t untouched = 1;
  ASSERT_EQ(m.read(a + quiet * m.page_size(), &untouched, 8), Fault::None);
  EXPECT_EQ(untouched, 0u);
  // The whole process, page tables included, stays far below 1 GB.
  rusage ru{};
  ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
  EXPECT_LT(static_cast<uint64_t>(ru.ru_maxrss) * KiB, 1 * GiB);
  ASSERT_TRUE(m.release(a));
  EXPECT_EQ(m.backed_bytes(), 0u);
  EXPECT_EQ(m.mapped_bytes(), 0u);
}

TEST(DeviceMemory, FillIsHostSideAndKeepsZeroPagesUnbacked) {
  DeviceMemory m(small_config(64 * MiB, 4 * KiB));
  uint64_t a = m.allocate(1 * MiB);
  ASSERT_EQ(m.fill(a, 0, 1 * MiB), Fault::None);
  EXPECT_EQ(m.backed_bytes(), 0u);
  ASSERT_EQ(m.fill(a + 4 * KiB - 10, 0xAB, 20), Fault::None);
  EXPECT_EQ(m.backed_bytes(), 2 * 4 * KiB);
  uint8_t buf[40];
  ASSERT_EQ(m.read(a + 4 * KiB - 20, buf, 40), Fault::None);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(buf[i], (i >= 10 && i < 30) ? 0xAB : 0) << i;
  ASSERT_EQ(m.fill(a, 0, 1 * MiB), Fault::None);  // zeroes backed pages too
  ASSERT_EQ(m.read(a + 4 * KiB - 20, buf, 40), Fault::None);
  EXPECT_TRUE(std::all_of(buf, buf + 40, [](uint8_t v) { return v == 0; }));
  EXPECT_EQ(m.fill(a, 1, 1 * MiB + 1), Fault::Unmapped);
}

TEST(DeviceMemory, FindAndAllocations) {
  DeviceMemory m(small_config());
  uint64_t a = m.allocate(1000, 256, "x");
  uint64_t b = m.allocate(5000, 256, "y");
  const Allocation* f = m.find(a + 999);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->addr, a);
  EXPECT_EQ(f->size, 1000u);
  EXPECT_EQ(f->tag, "x");
  EXPECT_EQ(m.find(a + 1000), nullptr);  // mapped page, but past the allocation
  EXPECT_EQ(m.find(m.base() - 1), nullptr);
  ASSERT_NE(m.find(b), nullptr);
  EXPECT_EQ(m.find(b)->tag, "y");
  auto all = m.allocations();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].addr, a);
  EXPECT_EQ(all[1].addr, b);
  EXPECT_EQ(all[1].size, 5000u);
  ASSERT_TRUE(m.release(a));
  EXPECT_EQ(m.find(a), nullptr);
  EXPECT_EQ(m.allocations().size(), 1u);
}

TEST(DeviceMemory, InvalidConfigsNameTheField) {
  auto message = [](MemoryConfig c) -> std::string {
    try {
      DeviceMemory m(c);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  auto expect_field = [&](MemoryConfig c, const char* field) {
    std::string msg = message(c);
    EXPECT_NE(msg.find(std::string("MemoryConfig.") + field), std::string::npos) << msg;
  };
  MemoryConfig c;
  c.page_size = 3000; expect_field(c, "page_size");
  c.page_size = 1024; expect_field(c, "page_size");
  c.page_size = 4u << 20; expect_field(c, "page_size");
  c.page_size = 0; expect_field(c, "page_size");
  c = {}; c.capacity = 0; expect_field(c, "capacity");
  c = {}; c.capacity = 1000; expect_field(c, "capacity");
  c = {}; c.capacity = 1ull << 50; expect_field(c, "capacity");
  c = {}; c.base = 0; expect_field(c, "base");
  c = {}; c.base = 0x200001000ull; expect_field(c, "base");  // not 64 KiB aligned
  c = {}; c.base = 0ull - 16 * GiB; expect_field(c, "base");  // window would wrap
  EXPECT_EQ(message(MemoryConfig{}), "(accepted)");
  c = {}; c.capacity = 80 * GiB; c.page_size = 2 * MiB;
  EXPECT_EQ(message(c), "(accepted)");
  c = {}; c.page_size = 4 * KiB; c.base = 0x1000;
  EXPECT_EQ(message(c), "(accepted)");
}

TEST(DeviceMemory, ConcurrentWritesToDifferentPages) {
  DeviceMemory m(small_config(256 * MiB, 4 * KiB));
  const uint64_t ps = m.page_size();
  constexpr int kThreads = 8, kPagesPerThread = 256;
  uint64_t a = m.allocate(uint64_t(kThreads) * kPagesPerThread * ps + ps);
  ASSERT_NE(a, 0u);
  const uint64_t shared = a + uint64_t(kThreads) * kPagesPerThread * ps;  // last page: all race to back it
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPagesPerThread; ++i) {
        // Interleave pages between threads so neighbouring pages are backed concurrently.
        uint64_t page = a + (uint64_t(i) * kThreads + t) * ps;
        uint64_t v = page ^ 0x5555;
        if (i % 2) {
          uint8_t* p = m.page_for_write(page + 8);
          if (p) std::memcpy(p + m.page_offset(page + 8), &v, 8);
        } else {
          m.write(page + 8, &v, 8);
        }
        uint32_t tv = uint32_t(t * 1000 + i);
        m.write(shared + uint64_t(t) * 4, &tv, 4);  // different bytes of one page
        (void)m.page_for_read(page + ps / 2);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (uint64_t i = 0; i < uint64_t(kThreads) * kPagesPerThread; ++i) {
    uint64_t page = a + i * ps, v = 0;
    ASSERT_EQ(m.read(page + 8, &v, 8), Fault::None);
    ASSERT_EQ(v, page ^ 0x5555) << i;
  }
  for (int t = 0; t < kThreads; ++t) {
    uint32_t tv = 0;
    ASSERT_EQ(m.read(shared + uint64_t(t) * 4, &tv, 4), Fault::None);
    EXPECT_EQ(tv, uint32_t(t * 1000 + kPagesPerThread - 1));
  }
  // Exactly one backing per page, including the contended one.
  EXPECT_EQ(m.backed_bytes(), (uint64_t(kThreads) * kPagesPerThread + 1) * ps);
}

// Mostly a measurement: the per-lane fast path's cost, printed. Two working sets: 16k pages
// (lookup only: the page-table entries fit in cache, the data would not) and 256 pages with the
// byte access included (what a warp's coalesced accesses look like). 4 KiB pages keep the
// backing of the wide set at 64 MiB.
TEST(DeviceMemory, FastPathCost) {
  DeviceMemory m(small_config(40 * GiB, 4 * KiB));
  uint64_t a = m.allocate(4 * GiB);
  ASSERT_NE(a, 0u);
  using clock = std::chrono::steady_clock;
  auto lcg_addrs = [&](size_t n, uint64_t span) {
    std::vector<uint64_t> v(n);
    uint64_t x = 7;
    for (auto& p : v) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      p = a + ((x >> 20) % span) / 4 * 4;
    }
    return v;
  };
  constexpr size_t kN = 1 << 16;
  constexpr int kReps = 100;
  const double n = double(kN) * kReps;

  auto wide = lcg_addrs(kN, 64 * MiB);  // ~16k pages, 16 leaves
  for (uint64_t p : wide) ASSERT_NE(m.page_for_write(p), nullptr);  // back them all first
  uintptr_t acc = 0;
  auto t0 = clock::now();
  for (int r = 0; r < kReps; ++r)
    for (uint64_t p : wide) acc ^= reinterpret_cast<uintptr_t>(m.page_for_read(p));
  auto t1 = clock::now();
  for (int r = 0; r < kReps; ++r)
    for (uint64_t p : wide) acc ^= reinterpret_cast<uintptr_t>(m.page_for_write(p));
  auto t2 = clock::now();
  const double rd = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
  const double wr = std::chrono::duration<double, std::nano>(t2 - t1).count() / n;
  EXPECT_EQ(acc, 0u);  // each pointer was xored in an even number of times

  auto hot = lcg_addrs(kN, 1 * MiB);  // 256 pages
  uint64_t sum = 0;
  auto t3 = clock::now();
  for (int r = 0; r < kReps; ++r)
    for (uint64_t p : hot) sum += m.page_for_read(p)[m.page_offset(p)];
  auto t4 = clock::now();
  for (int r = 0; r < kReps; ++r)
    for (uint64_t p : hot) m.page_for_write(p)[m.page_offset(p)] += 1;
  auto t5 = clock::now();
  const double rd_hot = std::chrono::duration<double, std::nano>(t4 - t3).count() / n;
  const double wr_hot = std::chrono::duration<double, std::nano>(t5 - t4).count() / n;
  std::printf("lookup only, 16k pages: page_for_read %.2f ns, page_for_write %.2f ns\n", rd, wr);
  std::printf("lookup + byte access, 256 pages: read %.2f ns, read-modify-write %.2f ns\n", rd_hot, wr_hot);
  RecordProperty("page_for_read_ns", std::to_string(rd));
  RecordProperty("page_for_write_ns", std::to_string(wr));
  EXPECT_EQ(sum, 0u);  // backed pages start zeroed
  // Every address was incremented kReps times per occurrence (mod 256).
  std::map<uint64_t, int> occurrences;
  for (uint64_t p : hot) ++occurrences[p];
  for (auto& [p, cnt] : occurrences) {
    uint8_t v = 0;
    ASSERT_EQ(m.read(p, &v, 1), Fault::None);
    ASSERT_EQ(v, uint8_t(cnt * kReps)) << std::hex << p;
  }
  EXPECT_LT(rd, 1000.0);  // generous: catches a fast path gone pathological, not noise
  EXPECT_LT(wr, 1000.0);
}

}  // namespace
}  // namespace warpsim::mem
