// The TMA's tensor copies (ops_tensor.cpp) on hand-computed references: the swizzle address
// function, the tensor map's layout, a box over the tensor's edges (zero fill), the swizzled and
// span-padded shared-memory layouts, the map as a kernel parameter named directly or through
// cvta.param, and the faults the H100 raises (a box starting inside a 16-byte chunk, a store at a
// negative coordinate, a map the encoder did not make, multicast to other CTAs).
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "func/tensor_map.hpp"
#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::func::TensorMap;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90a\n.address_size 64\n";

TEST(TensorSwizzle, HandComputed) {
  // 128B: 1008 = 0b11_1111_0000: chunk bits 4-6 (111) ^ bits 7-9 (111) = 000 -> 0b11_1000_0000.
  EXPECT_EQ(func::swizzle_address(1008, 128), 896u);
  EXPECT_EQ(func::swizzle_address(0x80, 128), 0x90u);
  EXPECT_EQ(func::swizzle_address(0x7f, 128), 0x7fu);   // row 0: unchanged
  EXPECT_EQ(func::swizzle_address(0x400, 128), 0x400u);  // repeats every 1024 bytes
  // 64B: 416 = 0b1_1010_0000: bits 4-5 (10) ^ bits 7-8 (11) = 01 -> 400.
  EXPECT_EQ(func::swizzle_address(416, 64), 400u);
  EXPECT_EQ(func::swizzle_address(0x200, 64), 0x200u);  // repeats every 512 bytes
  // 32B: 144 = 0b1001_0000: bit 4 (1) ^ bit 7 (1) = 0 -> 128; every 256 bytes.
  EXPECT_EQ(func::swizzle_address(144, 32), 128u);
  EXPECT_EQ(func::swizzle_address(0x100, 32), 0x100u);
  EXPECT_EQ(func::swizzle_address(144, 0), 144u);
}

TEST(TensorMapLayout, RoundTripAndGarbage) {
  TensorMap m;
  m.dtype = 7, m.rank = 3, m.esize = 4, m.swizzle = TensorMap::Sw64, m.oob_nan = 1;
  m.address = 0x7000001000;
  const uint64_t dims[3] = {100, 70, uint64_t(1) << 32};
  for (int d = 0; d < 3; ++d) m.dim[d] = dims[d], m.box[d] = d == 0 ? 16 : 256, m.estride[d] = uint32_t(d + 1);
  m.stride[0] = 4, m.stride[1] = 416, m.stride[2] = 416 * 70;
  uint8_t b[TensorMap::kBytes];
  m.pack(b);
  TensorMap n;
  ASSERT_TRUE(n.unpack(b));
  EXPECT_EQ(n.address, m.address);
  EXPECT_EQ(n.dim[2], uint64_t(1) << 32);
  EXPECT_EQ(n.box[1], 256u);
  EXPECT_EQ(n.estride[2], 3u);
  EXPECT_EQ(n.stride[2], 416u * 70);
  EXPECT_EQ(n.swizzle_bytes(), 64u);
  uint8_t zero[TensorMap::kBytes] = {};
  EXPECT_FALSE(n.unpack(zero));
  b[6] = 6;  // rank 6
  EXPECT_FALSE(n.unpack(b));
}

// Thread 0 loads a box of the map (kernel parameter `tmap`, named directly) at (x, y) into a
// 1024-byte aligned tile prefilled with 0xEE, waits on the mbarrier (expect-tx `bytes`), then the
// warp copies the 1024-byte tile to `out`. CVTA: the map through cvta.param instead.
const char* kLoadKernel = R"(
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 x, .param .u32 y, .param .u32 bytes)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r5, [x];
  ld.param.u32 %r6, [y];
  ld.param.u32 %r7, [bytes];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mov.u32 %r3, bar;
  mov.u32 %r8, -286331154;
  shl.b32 %r9, %r1, 4;
  add.u32 %r10, %r2, %r9;
  st.shared.v4.u32 [%r10], {%r8, %r8, %r8, %r8};
  st.shared.v4.u32 [%r10+512], {%r8, %r8, %r8, %r8};
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r3], 1;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @!%p1 bra DONE;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r3], %r7;
  COPY
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra WAIT;
DONE:
  bar.sync 0;
  ld.shared.v4.u32 {%r11, %r12, %r13, %r14}, [%r10];
  cvt.u64.u32 %rd4, %r9;
  add.u64 %rd5, %rd2, %rd4;
  st.global.v4.u32 [%rd5], {%r11, %r12, %r13, %r14};
  ld.shared.v4.u32 {%r11, %r12, %r13, %r14}, [%r10+512];
  st.global.v4.u32 [%rd5+512], {%r11, %r12, %r13, %r14};
  ret;
}
)";

std::string load_kernel(bool cvta, int multicast_mask = -1) {
  std::string k = kLoadKernel;
  const std::string copy =
      multicast_mask >= 0
          ? "{\n .reg .b16 %rs1;\n mov.b16 %rs1, " + std::to_string(multicast_mask) +
                ";\n cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
                "[%r2], [tmap, {%r5, %r6}], [%r3], %rs1;\n}"
      : cvta ? "mov.b64 %rd6, tmap;\n  cvta.param.u64 %rd7, %rd6;\n  "
             "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd7, {%r5, "
             "%r6}], [%r3];"
           : "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [tmap, {%r5, "
             "%r6}], [%r3];";
  k.replace(k.find("COPY"), 4, copy);
  return kHead + k;
}

constexpr uint32_t kFillWord = 0xEEEEEEEEu;

// A 2D u32 tensor of w x h elements, rows 48 bytes apart, element (x, y) = 100 y + x + 1.
struct Fixture {
  Harness h;
  uint64_t tensor = 0, out = 0;
  void setup(uint32_t w, uint32_t h_) {
    std::vector<uint32_t> t(12 * h_, 0);
    for (uint32_t y = 0; y < h_; ++y)
      for (uint32_t x = 0; x < w; ++x) t[y * 12 + x] = 100 * y + x + 1;
    tensor = h.upload(t);
    out = h.alloc(1024);
  }
  std::array<uint8_t, 128> map(uint32_t w, uint32_t h_, uint32_t bx, uint32_t by, uint8_t swizzle) const {
    TensorMap m;
    m.dtype = 2, m.rank = 2, m.esize = 4, m.swizzle = swizzle;
    m.address = tensor;
    m.dim[0] = w, m.dim[1] = h_;
    m.stride[0] = 4, m.stride[1] = 48;
    m.box[0] = bx, m.box[1] = by;
    m.estride[0] = m.estride[1] = 1;
    std::array<uint8_t, 128> b;
    m.pack(b.data());
    return b;
  }
  func::LaunchResult load(const std::array<uint8_t, 128>& m, int x, int y, uint32_t bytes) {
    return h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(m).add(out).add(x).add(y).add(bytes));
  }
  std::vector<uint32_t> words() { return h.download<uint32_t>(out, 256); }
};

TEST(TensorCopy, BoxOverTheEdgesZeroFilled) {
  Fixture f;
  f.setup(10, 6);
  ASSERT_TRUE(f.h.load(load_kernel(false)));
  // Box 8 x 4 at (8, 4): x 8..15 (10.. outside), y 4..7 (6.. outside).
  auto r = f.load(f.map(10, 6, 8, 4, TensorMap::SwNone), 8, 4, 128);
  ASSERT_TRUE(r.ok()) << r.report();
  const auto w = f.words();
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 8; ++x) {
      const uint32_t gx = 8 + x, gy = 4 + y;
      EXPECT_EQ(w[y * 8 + x], gx < 10 && gy < 6 ? 100 * gy + gx + 1 : 0u) << x << "," << y;
    }
  for (uint32_t i = 32; i < 256; ++i) EXPECT_EQ(w[i], kFillWord) << i;
}

TEST(TensorCopy, MapThroughCvtaParam) {
  Fixture f;
  f.setup(10, 6);
  ASSERT_TRUE(f.h.load(load_kernel(true)));
  auto r = f.load(f.map(10, 6, 4, 2, TensorMap::SwNone), 4, 1, 32);
  ASSERT_TRUE(r.ok()) << r.report();
  const auto w = f.words();
  EXPECT_EQ(w[0], 105u);  // (4, 1)
  EXPECT_EQ(w[7], 208u);  // (7, 2)
  EXPECT_EQ(w[8], kFillWord);
}

TEST(TensorCopy, Swizzle32B) {
  Fixture f;
  f.setup(10, 8);
  ASSERT_TRUE(f.h.load(load_kernel(false)));
  // 32-byte rows: rows 4..7 start at 128..224, where address bit 7 swaps their two 16-byte chunks.
  auto r = f.load(f.map(10, 8, 8, 8, TensorMap::Sw32), 0, 0, 256);
  ASSERT_TRUE(r.ok()) << r.report();
  const auto w = f.words();
  EXPECT_EQ(w[0], 1u);         // (0, 0), unswizzled row
  EXPECT_EQ(w[4], 5u);         // (4, 0)
  EXPECT_EQ(w[128 / 4], 405u);  // byte 128: (4, 4), the row's second chunk
  EXPECT_EQ(w[144 / 4], 401u);  // byte 144: (0, 4)
}

TEST(TensorCopy, RowsNarrowerThanTheSpanArePadded) {
  Fixture f;
  f.setup(10, 8);
  ASSERT_TRUE(f.h.load(load_kernel(false)));
  // 16-byte rows with the 32-byte swizzle: each row takes 32 bytes; rows 4..7 land in the span's
  // second half (bit 7), the other half is not written.
  auto r = f.load(f.map(10, 8, 4, 8, TensorMap::Sw32), 0, 0, 128);
  ASSERT_TRUE(r.ok()) << r.report();
  const auto w = f.words();
  EXPECT_EQ(w[32 / 4], 101u);   // row 1 at byte 32
  EXPECT_EQ(w[48 / 4], kFillWord);
  EXPECT_EQ(w[128 / 4], kFillWord);
  EXPECT_EQ(w[144 / 4], 401u);  // row 4 at byte 128, chunk 1
  EXPECT_EQ(w[240 / 4], 701u);  // row 7 at byte 224, chunk 1
  EXPECT_EQ(w[256 / 4], kFillWord);
}

// .multicast::cluster without clusters: ctaMask 1 is the issuing CTA (a cluster of one) and any
// other bit names a CTA that does not exist.
TEST(TensorCopy, MulticastToOwnCta) {
  Fixture f;
  f.setup(10, 6);
  ASSERT_TRUE(f.h.load(load_kernel(false, 1)));
  auto r = f.load(f.map(10, 6, 4, 2, TensorMap::SwNone), 0, 0, 32);
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(f.words()[5], 102u);  // (1, 1)
  Fixture g;
  g.setup(10, 6);
  ASSERT_TRUE(g.h.load(load_kernel(false, 3)));
  r = g.load(g.map(10, 6, 4, 2, TensorMap::SwNone), 0, 0, 32);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.fault.message.find("ctaMask"), std::string::npos) << r.fault.message;
}

// .multicast::cluster in a cluster of 4: rank 1 loads the box once for ranks 0, 1 and 3 (ctaMask
// 0xb), each of which waits on its own mbarrier; rank 2's tile keeps its fill. Every CTA writes its
// tile to out + 1024 x ctaid.
TEST(TensorCopy, MulticastToOtherCtasOfTheCluster) {
  const std::string k = kHead + R"(
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .b16 %rs1;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mov.u32 %r3, bar;
  mov.u32 %r4, %cluster_ctarank;
  mov.u32 %r8, -286331154;
  shl.b32 %r9, %r1, 4;
  add.u32 %r10, %r2, %r9;
  st.shared.v4.u32 [%r10], {%r8, %r8, %r8, %r8};
  st.shared.v4.u32 [%r10+512], {%r8, %r8, %r8, %r8};
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r3], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra DONE;
  setp.eq.u32 %p3, %r4, 2;
  @%p3 bra DONE;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r3], 32;
  setp.ne.u32 %p3, %r4, 1;
  @%p3 bra WAIT;
  mov.b16 %rs1, 11;
  mov.u32 %r5, 4;
  mov.u32 %r6, 1;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r2], [tmap, {%r5, %r6}], [%r3], %rs1;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra WAIT;
DONE:
  bar.sync 0;
  mov.u32 %r15, %ctaid.x;
  shl.b32 %r16, %r15, 10;
  add.u32 %r17, %r16, %r9;
  ld.shared.v4.u32 {%r11, %r12, %r13, %r14}, [%r10];
  cvt.u64.u32 %rd4, %r17;
  add.u64 %rd5, %rd2, %rd4;
  st.global.v4.u32 [%rd5], {%r11, %r12, %r13, %r14};
  ld.shared.v4.u32 {%r11, %r12, %r13, %r14}, [%r10+512];
  st.global.v4.u32 [%rd5+512], {%r11, %r12, %r13, %r14};
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
  Fixture f;
  f.setup(10, 6);
  ASSERT_TRUE(f.h.load(k));
  const uint64_t out = f.h.alloc(4 * 1024);
  func::LaunchConfig lc;
  lc.grid = {4, 1, 1};
  lc.block = {32, 1, 1};
  lc.cluster = {4, 1, 1};
  auto r = f.h.run("k", lc, Harness::Params().add(f.map(10, 6, 4, 2, TensorMap::SwNone)).add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  const auto w = f.h.download<uint32_t>(out, 4 * 256);
  for (uint32_t c = 0; c < 4; ++c) {
    SCOPED_TRACE("rank " + std::to_string(c));
    if (c == 2) {
      EXPECT_EQ(w[c * 256], kFillWord);
      continue;
    }
    EXPECT_EQ(w[c * 256 + 0], 105u);  // (4, 1)
    EXPECT_EQ(w[c * 256 + 7], 208u);  // (7, 2)
    EXPECT_EQ(w[c * 256 + 8], kFillWord);
  }
}

// The .L2::cache_hint form (its cache-policy operand last) loads the same box.
TEST(TensorCopy, CacheHintForm) {
  Fixture f;
  f.setup(10, 6);
  std::string k = load_kernel(false);
  const std::string plain = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], "
                            "[tmap, {%r5, %r6}], [%r3];";
  ASSERT_NE(k.find(plain), std::string::npos);
  k.replace(k.find(plain), plain.size(),
            "createpolicy.fractional.L2::evict_last.b64 %rd9, 1.0;\n  "
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%r2], "
            "[tmap, {%r5, %r6}], [%r3], %rd9;");
  ASSERT_TRUE(f.h.load(k));
  auto r = f.load(f.map(10, 6, 4, 2, TensorMap::SwNone), 4, 1, 32);
  ASSERT_TRUE(r.ok()) << r.report();
  EXPECT_EQ(f.words()[0], 105u);  // (4, 1)
  EXPECT_EQ(f.words()[7], 208u);  // (7, 2)
}

TEST(TensorCopy, StartInsideA16ByteChunkFaults) {
  Fixture f;
  f.setup(10, 6);
  ASSERT_TRUE(f.h.load(load_kernel(false)));
  auto r = f.load(f.map(10, 6, 4, 2, TensorMap::SwNone), 2, 0, 32);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalInstruction);
  EXPECT_NE(r.fault.message.find("16-byte boundary"), std::string::npos) << r.fault.message;
}

TEST(TensorCopy, GarbageMapFaults) {
  Fixture f;
  f.setup(10, 6);
  ASSERT_TRUE(f.h.load(load_kernel(false)));
  std::array<uint8_t, 128> zero{};
  auto r = f.load(zero, 0, 0, 32);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalInstruction);
  EXPECT_NE(r.fault.message.find("cuTensorMapEncodeTiled"), std::string::npos) << r.fault.message;
}

// A tile store and a reduce-add of a 4 x 2 box from shared memory (values 1000 + i) at (x, y).
const char* kStoreKernel = R"(
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u32 x, .param .u32 y, .param .u32 add)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .shared .align 128 .b32 tile[8];
  ld.param.u32 %r5, [x];
  ld.param.u32 %r6, [y];
  ld.param.u32 %r7, [add];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  setp.lt.u32 %p1, %r1, 8;
  add.u32 %r3, %r1, 1000;
  shl.b32 %r4, %r1, 2;
  add.u32 %r4, %r2, %r4;
  @%p1 st.shared.u32 [%r4], %r3;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 ret;
  setp.ne.u32 %p2, %r7, 0;
  @%p2 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [tmap, {%r5, %r6}], [%r2];
  @!%p2 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tmap, {%r5, %r6}], [%r2];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";

TEST(TensorCopy, StoreAndReduceClipAt16ByteChunks) {
  Fixture f;
  f.setup(10, 6);
  ASSERT_TRUE(f.h.load(kHead + kStoreKernel));
  const auto m = f.map(10, 6, 4, 2, TensorMap::SwNone);
  // Store at (8, 5): row 5 x 8..11. Elements 10 and 11 lie past globalDim[0] = 10 but in the
  // 16-byte chunk of x 8..11 (rows are 48 bytes): written, as on the H100; row 6 is outside.
  auto r = f.h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(m).add(8).add(5).add(0));
  ASSERT_TRUE(r.ok()) << r.report();
  auto t = f.h.download<uint32_t>(f.tensor, 12 * 6);
  EXPECT_EQ(t[5 * 12 + 7], 508u);
  EXPECT_EQ(t[5 * 12 + 8], 1000u);
  EXPECT_EQ(t[5 * 12 + 9], 1001u);
  EXPECT_EQ(t[5 * 12 + 10], 1002u);
  EXPECT_EQ(t[5 * 12 + 11], 1003u);
  EXPECT_EQ(t[4 * 12 + 8], 409u);
  // Reduce-add at (0, 0): elements + 1000 + i.
  r = f.h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(m).add(0).add(0).add(1));
  ASSERT_TRUE(r.ok()) << r.report();
  t = f.h.download<uint32_t>(f.tensor, 12 * 6);
  EXPECT_EQ(t[0], 1u + 1000);
  EXPECT_EQ(t[3], 4u + 1003);
  EXPECT_EQ(t[12 + 2], 103u + 1006);
  EXPECT_EQ(t[4], 5u);
  // A store at a negative coordinate stops the kernel, as on the H100.
  r = f.h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(m).add(4).add(-1).add(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::IllegalInstruction);
  EXPECT_NE(r.fault.message.find("negative"), std::string::npos) << r.fault.message;
}

// tensormap.replace in shared memory, in the ISA's encodings (rank - 1; element type .bf16 = 10;
// strides in bytes), then tensormap.cp_fenceproxy publishes the map to global memory.
TEST(TensorMapReplace, FieldsInIsaEncodings) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 src, .param .u64 dst)
{
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .shared .align 128 .b8 m[128];
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, m;
  setp.lt.u32 %p1, %r1, 16;
  shl.b32 %r3, %r1, 3;
  cvt.u64.u32 %rd3, %r3;
  add.u64 %rd4, %rd1, %rd3;
  add.u32 %r4, %r2, %r3;
  @%p1 ld.global.u64 %rd5, [%rd4];
  @%p1 st.shared.u64 [%r4], %rd5;
  bar.sync 0;
  setp.eq.u32 %p2, %r1, 0;
  mov.b64 %rd6, 4096;
  @%p2 tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r2], 2;
  @%p2 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r2], 10;
  @%p2 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r2], 2, 7;
  @%p2 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r2], 2, 9;
  @%p2 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r2], 1, %rd6;
  @%p2 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r2], 2, 3;
  @%p2 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r2], 1;
  @%p2 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r2], 1;
  bar.warp.sync -1;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [%r2], 128;
  fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;
  ret;
}
)"));
  TensorMap m;
  m.dtype = 7, m.rank = 2, m.esize = 4;
  m.address = 0x1000;
  m.dim[0] = 100, m.dim[1] = 70, m.stride[0] = 4, m.stride[1] = 416;
  m.box[0] = 16, m.box[1] = 8, m.estride[0] = m.estride[1] = 1;
  std::vector<uint8_t> b(TensorMap::kBytes);
  m.pack(b.data());
  const uint64_t src = h.upload(b), dst = h.alloc(TensorMap::kBytes);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(src).add(dst));
  ASSERT_TRUE(r.ok()) << r.report() << r.fault.message;
  const auto out = h.download<uint8_t>(dst, TensorMap::kBytes);
  TensorMap n;
  ASSERT_TRUE(n.unpack(out.data()));
  EXPECT_TRUE(n.complete());
  EXPECT_EQ(n.rank, 3);
  EXPECT_EQ(n.dtype, 9);  // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  EXPECT_EQ(n.esize, 2);
  EXPECT_EQ(n.box[2], 7u);
  EXPECT_EQ(n.dim[2], 9u);
  EXPECT_EQ(n.stride[2], 4096u);
  EXPECT_EQ(n.estride[2], 3u);
  EXPECT_EQ(n.swizzle_bytes(), 32u);
  EXPECT_EQ(n.oob_nan, 1);
  EXPECT_EQ(n.dim[0], 100u);  // untouched
  EXPECT_EQ(n.address, 0x1000u);
}

TEST(TensorCopy, BadFormsAreRejected) {
  Harness h;
  auto e = h.load_errors(kHead + R"(
.visible .entry k(.param .align 64 .b8 tmap[128])
{
  .reg .b32 %r<8>;
  .reg .b16 %rs<4>;
  cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [tmap, {%r2, %r3, %r5}], [%r4], {%rs1};
  ret;
}
)");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("im2col"), std::string::npos) << e[0];
  e = h.load_errors(kHead + R"(
.visible .entry k(.param .align 64 .b8 tmap[128])
{
  .reg .b32 %r<8>;
  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [tmap, {%r2, %r3}], [%r4];
  ret;
}
)");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("3 coordinates"), std::string::npos) << e[0];
}

}  // namespace
