// Integer and logic instructions (ops_int.cpp): every thread computes results from its inputs and
// stores them; each result is compared against an independent CPU reference written from the PTX
// ISA definitions.
#include <gtest/gtest.h>

#include <functional>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

// Every thread t loads a = in[3t], b = in[3t+1], c = in[3t+2] (u64) into %rd1-3, their low halves
// into %r1-3 and low quarters into %rs1-3, runs BODY and stores results at [%rd75 + 8*slot].
std::string kernel(const std::string& body) {
  return kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b16 %rs<40>;
  .reg .b32 %r<80>;
  .reg .b64 %rd<80>;
  .reg .pred %p<16>;
  ld.param.u64 %rd70, [in];
  ld.param.u64 %rd71, [out];
  mov.u32 %r70, %tid.x;
  mul.wide.u32 %rd72, %r70, 24;
  add.s64 %rd73, %rd70, %rd72;
  mul.wide.u32 %rd74, %r70, 256;
  add.s64 %rd75, %rd71, %rd74;
  ld.global.u64 %rd1, [%rd73];
  ld.global.u64 %rd2, [%rd73+8];
  ld.global.u64 %rd3, [%rd73+16];
  ld.global.u32 %r1, [%rd73];
  ld.global.u32 %r2, [%rd73+8];
  ld.global.u32 %r3, [%rd73+16];
  ld.global.u16 %rs1, [%rd73];
  ld.global.u16 %rs2, [%rd73+8];
  ld.global.u16 %rs3, [%rd73+16];
)" + body + R"(
  exit;
}
)";
}

struct In {
  uint64_t a, b, c;
};

uint64_t lcg_state = 0x2545F4914F6CDD1Dull;
uint64_t lcg() {
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return lcg_state ^ (lcg_state >> 29);
}

// Special values (interesting at 16, 32 and 64 bits) and a few random ones.
std::vector<uint64_t> specials() {
  std::vector<uint64_t> v = {0, 1, 2, ~0ull, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
                             0x7fffffffffffffffull, 0x8000000000000000ull, 31, 32, 33, 64, 0xfffffffe,
                             0x123456789abcdef0ull};
  lcg_state = 12345;
  for (int i = 0; i < 6; ++i) v.push_back(lcg());
  return v;
}

// All pairs (a, b) of the special values, c random: 24*24 = 576 threads (18 warps).
std::vector<In> pair_inputs() {
  auto v = specials();
  std::vector<In> r;
  lcg_state = 777;
  for (uint64_t a : v)
    for (uint64_t b : v) r.push_back({a, b, lcg()});
  return r;
}

struct Run {
  std::vector<In> in;
  std::vector<uint64_t> out;  // 32 slots per thread
  uint64_t at(size_t t, unsigned slot) const { return out[t * 32 + slot]; }
};

Run run(const std::string& body, std::vector<In> in) {
  Run r{in, {}};
  Harness h;
  EXPECT_TRUE(h.load(kernel(body)));
  if (!h.mod) return r;
  std::vector<uint64_t> flat;
  for (auto& x : in) flat.insert(flat.end(), {x.a, x.b, x.c});
  uint64_t din = h.upload(flat);
  uint64_t dout = h.alloc(in.size() * 256);
  auto res = h.run("k", {1, 1, 1}, {uint32_t(in.size()), 1, 1}, Harness::Params().add(din).add(dout));
  EXPECT_TRUE(res.ok()) << res.report();
  r.out = h.download<uint64_t>(dout, in.size() * 32);
  return r;
}

// Compares slot `slot` of every thread with ref(a, b, c); reports the first few mismatches.
void check(const Run& r, unsigned slot, const char* what, const std::function<uint64_t(uint64_t, uint64_t, uint64_t)>& ref) {
  ASSERT_EQ(r.out.size(), r.in.size() * 32);
  int bad = 0;
  for (size_t t = 0; t < r.in.size() && bad < 5; ++t) {
    uint64_t want = ref(r.in[t].a, r.in[t].b, r.in[t].c), got = r.at(t, slot);
    if (want != got) {
      ++bad;
      ADD_FAILURE() << what << " (slot " << slot << ") a=0x" << std::hex << r.in[t].a << " b=0x" << r.in[t].b
                    << " c=0x" << r.in[t].c << ": got 0x" << got << ", want 0x" << want;
    }
  }
}

// Reference helpers (independent of the simulator's code).
uint32_t u32(uint64_t v) { return uint32_t(v); }
int32_t s32(uint64_t v) { return int32_t(uint32_t(v)); }
uint16_t u16(uint64_t v) { return uint16_t(v); }
int16_t s16(uint64_t v) { return int16_t(uint16_t(v)); }
int64_t s64(uint64_t v) { return int64_t(v); }
uint64_t z32(int64_t v) { return uint32_t(v); }
uint64_t z16(int64_t v) { return uint16_t(v); }
int64_t sat32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v; }

}  // namespace

TEST(IntOps, AddSubSat) {
  auto r = run(R"(
  add.u32 %r10, %r1, %r2;       st.global.u32 [%rd75+0], %r10;
  sub.s32 %r11, %r1, %r2;       st.global.u32 [%rd75+8], %r11;
  add.sat.s32 %r12, %r1, %r2;   st.global.u32 [%rd75+16], %r12;
  sub.sat.s32 %r13, %r1, %r2;   st.global.u32 [%rd75+24], %r13;
  add.s64 %rd10, %rd1, %rd2;    st.global.u64 [%rd75+32], %rd10;
  sub.u64 %rd11, %rd1, %rd2;    st.global.u64 [%rd75+40], %rd11;
  add.s16 %rs10, %rs1, %rs2;    st.global.u16 [%rd75+48], %rs10;
  sub.u16 %rs11, %rs1, %rs2;    st.global.u16 [%rd75+56], %rs11;
  add.u32 %r14, %r1, -5;        st.global.u32 [%rd75+64], %r14;
  add.u16x2 %r15, %r1, %r2;     st.global.u32 [%rd75+72], %r15;
  sub.s16x2 %r16, %r1, %r2;     st.global.u32 [%rd75+80], %r16;
)", pair_inputs());
  check(r, 0, "add.u32", [](uint64_t a, uint64_t b, uint64_t) { return z32(u32(a) + u32(b)); });
  check(r, 1, "sub.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32(int64_t(s32(a)) - s32(b)); });
  check(r, 2, "add.sat.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32(sat32(int64_t(s32(a)) + s32(b))); });
  check(r, 3, "sub.sat.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32(sat32(int64_t(s32(a)) - s32(b))); });
  check(r, 4, "add.s64", [](uint64_t a, uint64_t b, uint64_t) { return a + b; });
  check(r, 5, "sub.u64", [](uint64_t a, uint64_t b, uint64_t) { return a - b; });
  check(r, 6, "add.s16", [](uint64_t a, uint64_t b, uint64_t) { return z16(s16(a) + s16(b)); });
  check(r, 7, "sub.u16", [](uint64_t a, uint64_t b, uint64_t) { return z16(u16(a) - u16(b)); });
  check(r, 8, "add.u32 imm", [](uint64_t a, uint64_t, uint64_t) { return z32(u32(a) - 5u); });
  check(r, 9, "add.u16x2", [](uint64_t a, uint64_t b, uint64_t) {
    return z16(u16(a) + u16(b)) | z16(u16(a >> 16) + u16(b >> 16)) << 16;
  });
  check(r, 10, "sub.s16x2", [](uint64_t a, uint64_t b, uint64_t) {
    return z16(u16(a) - u16(b)) | z16(u16(a >> 16) - u16(b >> 16)) << 16;
  });
}

TEST(IntOps, MulHiWideAllSignedness) {
  auto r = run(R"(
  mul.lo.u32 %r10, %r1, %r2;    st.global.u32 [%rd75+0], %r10;
  mul.hi.u32 %r11, %r1, %r2;    st.global.u32 [%rd75+8], %r11;
  mul.hi.s32 %r12, %r1, %r2;    st.global.u32 [%rd75+16], %r12;
  mul.wide.u32 %rd10, %r1, %r2; st.global.u64 [%rd75+24], %rd10;
  mul.wide.s32 %rd11, %r1, %r2; st.global.u64 [%rd75+32], %rd11;
  mul.lo.s64 %rd12, %rd1, %rd2; st.global.u64 [%rd75+40], %rd12;
  mul.hi.u64 %rd13, %rd1, %rd2; st.global.u64 [%rd75+48], %rd13;
  mul.hi.s64 %rd14, %rd1, %rd2; st.global.u64 [%rd75+56], %rd14;
  mul.lo.u16 %rs10, %rs1, %rs2; st.global.u16 [%rd75+64], %rs10;
  mul.hi.s16 %rs11, %rs1, %rs2; st.global.u16 [%rd75+72], %rs11;
  mul.hi.u16 %rs12, %rs1, %rs2; st.global.u16 [%rd75+80], %rs12;
  mul.wide.s16 %r13, %rs1, %rs2; st.global.u32 [%rd75+88], %r13;
  mul.wide.u16 %r14, %rs1, %rs2; st.global.u32 [%rd75+96], %r14;
  mad.lo.s32 %r15, %r1, %r2, %r3;  st.global.u32 [%rd75+104], %r15;
  mad.hi.u32 %r16, %r1, %r2, %r3;  st.global.u32 [%rd75+112], %r16;
  mad.hi.sat.s32 %r17, %r1, %r2, %r3; st.global.u32 [%rd75+120], %r17;
  mad.wide.s32 %rd15, %r1, %r2, %rd3; st.global.u64 [%rd75+128], %rd15;
  mad.hi.s64 %rd16, %rd1, %rd2, %rd3; st.global.u64 [%rd75+136], %rd16;
  mul24.lo.u32 %r18, %r1, %r2;  st.global.u32 [%rd75+144], %r18;
  mul24.hi.s32 %r19, %r1, %r2;  st.global.u32 [%rd75+152], %r19;
  mul24.hi.u32 %r20, %r1, %r2;  st.global.u32 [%rd75+160], %r20;
  mad24.lo.s32 %r21, %r1, %r2, %r3;  st.global.u32 [%rd75+168], %r21;
  sad.s32 %r22, %r1, %r2, %r3;  st.global.u32 [%rd75+176], %r22;
  sad.u64 %rd17, %rd1, %rd2, %rd3; st.global.u64 [%rd75+184], %rd17;
  mad.wide.u16 %r23, %rs1, %rs2, %r3; st.global.u32 [%rd75+192], %r23;
)", pair_inputs());
  using I = __int128;
  using UI = unsigned __int128;
  check(r, 0, "mul.lo.u32", [](uint64_t a, uint64_t b, uint64_t) { return z32(uint64_t(u32(a)) * u32(b)); });
  check(r, 1, "mul.hi.u32", [](uint64_t a, uint64_t b, uint64_t) { return (uint64_t(u32(a)) * u32(b)) >> 32; });
  check(r, 2, "mul.hi.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32((int64_t(s32(a)) * s32(b)) >> 32); });
  check(r, 3, "mul.wide.u32", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(u32(a)) * u32(b); });
  check(r, 4, "mul.wide.s32", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(int64_t(s32(a)) * s32(b)); });
  check(r, 5, "mul.lo.s64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(UI(a) * UI(b)); });
  check(r, 6, "mul.hi.u64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((UI(a) * UI(b)) >> 64); });
  check(r, 7, "mul.hi.s64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((I(s64(a)) * I(s64(b))) >> 64); });
  check(r, 8, "mul.lo.u16", [](uint64_t a, uint64_t b, uint64_t) { return z16(uint32_t(u16(a)) * u16(b)); });
  check(r, 9, "mul.hi.s16", [](uint64_t a, uint64_t b, uint64_t) { return z16((int32_t(s16(a)) * s16(b)) >> 16); });
  check(r, 10, "mul.hi.u16", [](uint64_t a, uint64_t b, uint64_t) { return z16((uint32_t(u16(a)) * u16(b)) >> 16); });
  check(r, 11, "mul.wide.s16", [](uint64_t a, uint64_t b, uint64_t) { return z32(int32_t(s16(a)) * s16(b)); });
  check(r, 12, "mul.wide.u16", [](uint64_t a, uint64_t b, uint64_t) { return z32(uint32_t(u16(a)) * u16(b)); });
  check(r, 13, "mad.lo.s32", [](uint64_t a, uint64_t b, uint64_t c) { return z32(uint64_t(u32(a)) * u32(b) + u32(c)); });
  check(r, 14, "mad.hi.u32", [](uint64_t a, uint64_t b, uint64_t c) { return z32(((uint64_t(u32(a)) * u32(b)) >> 32) + u32(c)); });
  check(r, 15, "mad.hi.sat.s32", [](uint64_t a, uint64_t b, uint64_t c) {
    return z32(sat32(((int64_t(s32(a)) * s32(b)) >> 32) + s32(c)));
  });
  check(r, 16, "mad.wide.s32", [](uint64_t a, uint64_t b, uint64_t c) { return uint64_t(int64_t(s32(a)) * s32(b)) + c; });
  check(r, 17, "mad.hi.s64", [](uint64_t a, uint64_t b, uint64_t c) { return uint64_t((I(s64(a)) * I(s64(b))) >> 64) + c; });
  auto sx24 = [](uint64_t v) { return int64_t(int32_t(uint32_t(v) << 8) >> 8); };
  check(r, 18, "mul24.lo.u32", [](uint64_t a, uint64_t b, uint64_t) { return z32((a & 0xffffff) * (b & 0xffffff)); });
  check(r, 19, "mul24.hi.s32", [&](uint64_t a, uint64_t b, uint64_t) { return z32((sx24(a) * sx24(b)) >> 16); });
  check(r, 20, "mul24.hi.u32", [](uint64_t a, uint64_t b, uint64_t) { return z32(((a & 0xffffff) * (b & 0xffffff)) >> 16); });
  check(r, 21, "mad24.lo.s32", [&](uint64_t a, uint64_t b, uint64_t c) { return z32(sx24(a) * sx24(b) + s32(c)); });
  check(r, 22, "sad.s32", [](uint64_t a, uint64_t b, uint64_t c) {
    int64_t d = int64_t(s32(a)) - s32(b);
    return z32(int64_t(u32(c)) + (d < 0 ? -d : d));
  });
  check(r, 23, "sad.u64", [](uint64_t a, uint64_t b, uint64_t c) { return c + (a < b ? b - a : a - b); });
  check(r, 24, "mad.wide.u16", [](uint64_t a, uint64_t b, uint64_t c) { return z32(uint32_t(u16(a)) * u16(b) + u32(c)); });
}

TEST(IntOps, DivRemIncludingZeroAndOverflow) {
  auto r = run(R"(
  div.u32 %r10, %r1, %r2;   st.global.u32 [%rd75+0], %r10;
  div.s32 %r11, %r1, %r2;   st.global.u32 [%rd75+8], %r11;
  rem.u32 %r12, %r1, %r2;   st.global.u32 [%rd75+16], %r12;
  rem.s32 %r13, %r1, %r2;   st.global.u32 [%rd75+24], %r13;
  div.u64 %rd10, %rd1, %rd2;  st.global.u64 [%rd75+32], %rd10;
  div.s64 %rd11, %rd1, %rd2;  st.global.u64 [%rd75+40], %rd11;
  rem.s64 %rd12, %rd1, %rd2;  st.global.u64 [%rd75+48], %rd12;
  div.s16 %rs10, %rs1, %rs2;  st.global.u16 [%rd75+56], %rs10;
  rem.u16 %rs11, %rs1, %rs2;  st.global.u16 [%rd75+64], %rs11;
)", pair_inputs());
  // Division by zero: all ones (quotient), dividend (remainder); MIN / -1 wraps to MIN, rem 0.
  check(r, 0, "div.u32", [](uint64_t a, uint64_t b, uint64_t) { return u32(b) ? z32(u32(a) / u32(b)) : 0xffffffffull; });
  check(r, 1, "div.s32", [](uint64_t a, uint64_t b, uint64_t) {
    return s32(b) ? z32(int64_t(s32(a)) / s32(b)) : 0xffffffffull;
  });
  check(r, 2, "rem.u32", [](uint64_t a, uint64_t b, uint64_t) { return u32(b) ? z32(u32(a) % u32(b)) : z32(u32(a)); });
  check(r, 3, "rem.s32", [](uint64_t a, uint64_t b, uint64_t) {
    return s32(b) ? z32(int64_t(s32(a)) % s32(b)) : z32(u32(a));
  });
  check(r, 4, "div.u64", [](uint64_t a, uint64_t b, uint64_t) { return b ? a / b : ~0ull; });
  check(r, 5, "div.s64", [](uint64_t a, uint64_t b, uint64_t) {
    return b ? uint64_t(__int128(s64(a)) / s64(b)) : ~0ull;
  });
  check(r, 6, "rem.s64", [](uint64_t a, uint64_t b, uint64_t) { return b ? uint64_t(__int128(s64(a)) % s64(b)) : a; });
  check(r, 7, "div.s16", [](uint64_t a, uint64_t b, uint64_t) { return s16(b) ? z16(int32_t(s16(a)) / s16(b)) : 0xffff; });
  check(r, 8, "rem.u16", [](uint64_t a, uint64_t b, uint64_t) { return u16(b) ? z16(u16(a) % u16(b)) : z16(u16(a)); });
}

TEST(IntOps, AbsNegMinMax) {
  auto r = run(R"(
  abs.s32 %r10, %r1;   st.global.u32 [%rd75+0], %r10;
  neg.s32 %r11, %r1;   st.global.u32 [%rd75+8], %r11;
  abs.s64 %rd10, %rd1; st.global.u64 [%rd75+16], %rd10;
  neg.s16 %rs10, %rs1; st.global.u16 [%rd75+24], %rs10;
  min.s32 %r12, %r1, %r2;  st.global.u32 [%rd75+32], %r12;
  max.u32 %r13, %r1, %r2;  st.global.u32 [%rd75+40], %r13;
  min.u64 %rd11, %rd1, %rd2; st.global.u64 [%rd75+48], %rd11;
  max.s64 %rd12, %rd1, %rd2; st.global.u64 [%rd75+56], %rd12;
  max.s16 %rs11, %rs1, %rs2; st.global.u16 [%rd75+64], %rs11;
  max.relu.s32 %r14, %r1, %r2; st.global.u32 [%rd75+72], %r14;
  min.relu.s32 %r15, %r1, %r2; st.global.u32 [%rd75+80], %r15;
  min.u16x2 %r16, %r1, %r2;  st.global.u32 [%rd75+88], %r16;
  max.s16x2 %r17, %r1, %r2;  st.global.u32 [%rd75+96], %r17;
  max.relu.s16x2 %r18, %r1, %r2;  st.global.u32 [%rd75+104], %r18;
)", pair_inputs());
  check(r, 0, "abs.s32", [](uint64_t a, uint64_t, uint64_t) { return z32(s32(a) < 0 ? -int64_t(s32(a)) : s32(a)); });
  check(r, 1, "neg.s32", [](uint64_t a, uint64_t, uint64_t) { return z32(-int64_t(s32(a))); });
  check(r, 2, "abs.s64", [](uint64_t a, uint64_t, uint64_t) { return s64(a) < 0 ? 0 - a : a; });
  check(r, 3, "neg.s16", [](uint64_t a, uint64_t, uint64_t) { return z16(-int32_t(s16(a))); });
  check(r, 4, "min.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32(std::min(s32(a), s32(b))); });
  check(r, 5, "max.u32", [](uint64_t a, uint64_t b, uint64_t) { return z32(std::max(u32(a), u32(b))); });
  check(r, 6, "min.u64", [](uint64_t a, uint64_t b, uint64_t) { return std::min(a, b); });
  check(r, 7, "max.s64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(std::max(s64(a), s64(b))); });
  check(r, 8, "max.s16", [](uint64_t a, uint64_t b, uint64_t) { return z16(std::max(s16(a), s16(b))); });
  check(r, 9, "max.relu.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32(std::max({s32(a), s32(b), 0})); });
  check(r, 10, "min.relu.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32(std::max(std::min(s32(a), s32(b)), 0)); });
  check(r, 11, "min.u16x2", [](uint64_t a, uint64_t b, uint64_t) {
    return z16(std::min(u16(a), u16(b))) | z16(std::min(u16(a >> 16), u16(b >> 16))) << 16;
  });
  check(r, 12, "max.s16x2", [](uint64_t a, uint64_t b, uint64_t) {
    return z16(std::max(s16(a), s16(b))) | z16(std::max(s16(a >> 16), s16(b >> 16))) << 16;
  });
  check(r, 13, "max.relu.s16x2", [](uint64_t a, uint64_t b, uint64_t) {
    auto f = [](int16_t x, int16_t y) { return z16(std::max<int>({x, y, 0})); };
    return f(s16(a), s16(b)) | f(s16(a >> 16), s16(b >> 16)) << 16;
  });
}

namespace {
// Plain bit-by-bit references.
uint64_t ref_bfe(uint64_t a, unsigned bits, bool sgn, uint32_t b, uint32_t c) {
  unsigned msb = bits - 1, pos = b & 0xff, len = c & 0xff;
  int sbit = 0;
  if (sgn && len) sbit = (a >> std::min(pos + len - 1, msb)) & 1;
  uint64_t d = 0;
  for (unsigned i = 0; i <= msb; ++i) {
    int bit = (i < len && pos + i <= msb) ? int((a >> (pos + i)) & 1) : sbit;
    d |= uint64_t(bit) << i;
  }
  return d;
}
uint64_t ref_bfi(uint64_t a, uint64_t b, unsigned bits, uint32_t c, uint32_t d) {
  unsigned msb = bits - 1, pos = c & 0xff, len = d & 0xff;
  uint64_t f = bits == 64 ? b : b & 0xffffffff;
  for (unsigned i = 0; i < len && pos + i <= msb; ++i) f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
  return f;
}
uint64_t ref_bfind(uint64_t a, unsigned bits, bool sgn, bool shiftamt) {
  if (bits == 32) a &= 0xffffffff;
  int msb = bits - 1;
  bool neg = sgn && ((a >> msb) & 1);
  for (int i = msb; i >= 0; --i) {
    int bit = (a >> i) & 1;
    if (bit != int(neg)) return shiftamt ? uint64_t(msb - i) : uint64_t(i);
  }
  return 0xffffffff;
}
uint64_t ref_fns(uint32_t mask, uint32_t base, int32_t off) {
  if (off == 0) return (base < 32 && ((mask >> base) & 1)) ? base : 0xffffffff;
  int n = 0;
  int step = off > 0 ? 1 : -1;
  for (int pos = int(base); pos >= 0 && pos < 32; pos += step)
    if ((mask >> pos) & 1)
      if (++n == (off > 0 ? off : -int64_t(off))) return uint64_t(pos);
  return 0xffffffff;
}
}  // namespace

TEST(IntOps, BitManipulation) {
  // b and c are used as positions/lengths: mostly small values.
  auto in = pair_inputs();
  for (size_t i = 0; i < in.size(); ++i) {
    if (i % 3) in[i].b = in[i].b % 70;
    if (i % 5) in[i].c = in[i].c % 70;
  }
  auto r = run(R"(
  popc.b32 %r10, %r1;    st.global.u32 [%rd75+0], %r10;
  popc.b64 %r11, %rd1;   st.global.u32 [%rd75+8], %r11;
  clz.b32 %r12, %r1;     st.global.u32 [%rd75+16], %r12;
  clz.b64 %r13, %rd1;    st.global.u32 [%rd75+24], %r13;
  brev.b32 %r14, %r1;    st.global.u32 [%rd75+32], %r14;
  brev.b64 %rd10, %rd1;  st.global.u64 [%rd75+40], %rd10;
  bfind.u32 %r15, %r1;   st.global.u32 [%rd75+48], %r15;
  bfind.s32 %r16, %r1;   st.global.u32 [%rd75+56], %r16;
  bfind.shiftamt.u64 %r17, %rd1;  st.global.u32 [%rd75+64], %r17;
  bfind.shiftamt.s64 %r18, %rd1;  st.global.u32 [%rd75+72], %r18;
  bfe.u32 %r19, %r1, %r2, %r3;    st.global.u32 [%rd75+80], %r19;
  bfe.s32 %r20, %r1, %r2, %r3;    st.global.u32 [%rd75+88], %r20;
  bfe.u64 %rd11, %rd1, %r2, %r3;  st.global.u64 [%rd75+96], %rd11;
  bfe.s64 %rd12, %rd1, %r2, %r3;  st.global.u64 [%rd75+104], %rd12;
  bfi.b32 %r21, %r1, %r2, %r3, %r2;   st.global.u32 [%rd75+112], %r21;
  bfi.b64 %rd13, %rd1, %rd2, %r2, %r3; st.global.u64 [%rd75+120], %rd13;
  fns.b32 %r22, %r1, %r2, %r3;    st.global.u32 [%rd75+128], %r22;
  szext.clamp.s32 %r23, %r1, %r2; st.global.u32 [%rd75+136], %r23;
  szext.wrap.u32 %r24, %r1, %r2;  st.global.u32 [%rd75+144], %r24;
  szext.wrap.s32 %r25, %r1, %r2;  st.global.u32 [%rd75+152], %r25;
  bmsk.clamp.b32 %r26, %r2, %r3;  st.global.u32 [%rd75+160], %r26;
  bmsk.wrap.b32 %r27, %r2, %r3;   st.global.u32 [%rd75+168], %r27;
  dp4a.u32.u32 %r28, %r1, %r2, %r3;  st.global.u32 [%rd75+176], %r28;
  dp4a.s32.u32 %r29, %r1, %r2, %r3;  st.global.u32 [%rd75+184], %r29;
  dp4a.s32.s32 %r30, %r1, %r2, %r3;  st.global.u32 [%rd75+192], %r30;
  dp2a.lo.s32.u32 %r31, %r1, %r2, %r3;  st.global.u32 [%rd75+200], %r31;
  dp2a.hi.u32.s32 %r32, %r1, %r2, %r3;  st.global.u32 [%rd75+208], %r32;
  fns.b32 %r33, %r1, %r2, -2;    st.global.u32 [%rd75+216], %r33;
)", in);
  check(r, 0, "popc.b32", [](uint64_t a, uint64_t, uint64_t) { uint64_t n = 0; for (int i = 0; i < 32; ++i) n += (a >> i) & 1; return n; });
  check(r, 1, "popc.b64", [](uint64_t a, uint64_t, uint64_t) { uint64_t n = 0; for (int i = 0; i < 64; ++i) n += (a >> i) & 1; return n; });
  check(r, 2, "clz.b32", [](uint64_t a, uint64_t, uint64_t) { uint64_t n = 0; for (int i = 31; i >= 0 && !((a >> i) & 1); --i) ++n; return n; });
  check(r, 3, "clz.b64", [](uint64_t a, uint64_t, uint64_t) { uint64_t n = 0; for (int i = 63; i >= 0 && !((a >> i) & 1); --i) ++n; return n; });
  check(r, 4, "brev.b32", [](uint64_t a, uint64_t, uint64_t) { uint64_t d = 0; for (int i = 0; i < 32; ++i) d |= ((a >> i) & 1) << (31 - i); return d; });
  check(r, 5, "brev.b64", [](uint64_t a, uint64_t, uint64_t) { uint64_t d = 0; for (int i = 0; i < 64; ++i) d |= ((a >> i) & 1) << (63 - i); return d; });
  check(r, 6, "bfind.u32", [](uint64_t a, uint64_t, uint64_t) { return ref_bfind(a, 32, false, false); });
  check(r, 7, "bfind.s32", [](uint64_t a, uint64_t, uint64_t) { return ref_bfind(a, 32, true, false); });
  check(r, 8, "bfind.shiftamt.u64", [](uint64_t a, uint64_t, uint64_t) { return ref_bfind(a, 64, false, true); });
  check(r, 9, "bfind.shiftamt.s64", [](uint64_t a, uint64_t, uint64_t) { return ref_bfind(a, 64, true, true); });
  check(r, 10, "bfe.u32", [](uint64_t a, uint64_t b, uint64_t c) { return ref_bfe(a & 0xffffffff, 32, false, u32(b), u32(c)); });
  check(r, 11, "bfe.s32", [](uint64_t a, uint64_t b, uint64_t c) { return ref_bfe(a & 0xffffffff, 32, true, u32(b), u32(c)); });
  check(r, 12, "bfe.u64", [](uint64_t a, uint64_t b, uint64_t c) { return ref_bfe(a, 64, false, u32(b), u32(c)); });
  check(r, 13, "bfe.s64", [](uint64_t a, uint64_t b, uint64_t c) { return ref_bfe(a, 64, true, u32(b), u32(c)); });
  check(r, 14, "bfi.b32", [](uint64_t a, uint64_t b, uint64_t c) { return ref_bfi(a, b, 32, u32(c), u32(b)); });
  check(r, 15, "bfi.b64", [](uint64_t a, uint64_t b, uint64_t c) { return ref_bfi(a, b, 64, u32(b), u32(c)); });
  check(r, 16, "fns.b32", [](uint64_t a, uint64_t b, uint64_t c) { return ref_fns(u32(a), u32(b), s32(c)); });
  auto szext = [](uint32_t a, uint32_t n, bool sgn, bool clamp) -> uint64_t {
    uint32_t w = clamp ? std::min<uint32_t>(n, 32) : n % 32;
    if (w == 0) return 0;
    if (w == 32) return a;
    uint32_t v = a & ((1u << w) - 1);
    if (sgn && ((v >> (w - 1)) & 1)) v |= ~0u << w;
    return v;
  };
  check(r, 17, "szext.clamp.s32", [&](uint64_t a, uint64_t b, uint64_t) { return szext(u32(a), u32(b), true, true); });
  check(r, 18, "szext.wrap.u32", [&](uint64_t a, uint64_t b, uint64_t) { return szext(u32(a), u32(b), false, false); });
  check(r, 19, "szext.wrap.s32", [&](uint64_t a, uint64_t b, uint64_t) { return szext(u32(a), u32(b), true, false); });
  auto bmsk = [](uint32_t a, uint32_t b, bool clamp) -> uint64_t {
    // bits [pos, pos+width) set, clipped at 32
    uint32_t pos = clamp ? a : a % 32, w = clamp ? std::min<uint32_t>(b, 32) : b % 32;
    uint32_t m = 0;
    for (uint64_t i = 0; i < w; ++i)
      if (uint64_t(pos) + i < 32) m |= 1u << (pos + i);
    return m;
  };
  check(r, 20, "bmsk.clamp.b32", [&](uint64_t, uint64_t b, uint64_t c) { return bmsk(u32(b), u32(c), true); });
  check(r, 21, "bmsk.wrap.b32", [&](uint64_t, uint64_t b, uint64_t c) { return bmsk(u32(b), u32(c), false); });
  auto dp4a = [](uint32_t a, uint32_t b, uint32_t c, bool sa, bool sb) -> uint64_t {
    int64_t acc = int32_t(c);
    for (int i = 0; i < 4; ++i) {
      int64_t x = (a >> (8 * i)) & 0xff, y = (b >> (8 * i)) & 0xff;
      if (sa && x >= 128) x -= 256;
      if (sb && y >= 128) y -= 256;
      acc += x * y;
    }
    return uint32_t(acc);
  };
  check(r, 22, "dp4a.u32.u32", [&](uint64_t a, uint64_t b, uint64_t c) { return dp4a(u32(a), u32(b), u32(c), false, false); });
  check(r, 23, "dp4a.s32.u32", [&](uint64_t a, uint64_t b, uint64_t c) { return dp4a(u32(a), u32(b), u32(c), true, false); });
  check(r, 24, "dp4a.s32.s32", [&](uint64_t a, uint64_t b, uint64_t c) { return dp4a(u32(a), u32(b), u32(c), true, true); });
  auto dp2a = [](uint32_t a, uint32_t b, uint32_t c, bool hi, bool sa, bool sb) -> uint64_t {
    int64_t acc = int32_t(c);
    for (int i = 0; i < 2; ++i) {
      int64_t x = (a >> (16 * i)) & 0xffff, y = (b >> (8 * (i + (hi ? 2 : 0)))) & 0xff;
      if (sa && x >= 32768) x -= 65536;
      if (sb && y >= 128) y -= 256;
      acc += x * y;
    }
    return uint32_t(acc);
  };
  check(r, 25, "dp2a.lo.s32.u32", [&](uint64_t a, uint64_t b, uint64_t c) { return dp2a(u32(a), u32(b), u32(c), false, true, false); });
  check(r, 26, "dp2a.hi.u32.s32", [&](uint64_t a, uint64_t b, uint64_t c) { return dp2a(u32(a), u32(b), u32(c), true, false, true); });
  check(r, 27, "fns.b32 -2", [](uint64_t a, uint64_t b, uint64_t) { return ref_fns(u32(a), u32(b), -2); });
}

TEST(IntOps, FnsDocumentedExamples) {
  EXPECT_EQ(ref_fns(0xaaaaaaaa, 3, 1), 3u);  // the reference itself against the ISA's examples
  EXPECT_EQ(ref_fns(0xaaaaaaaa, 2, -1), 1u);
  auto r = run(R"(
  fns.b32 %r10, 0xaaaaaaaa, 3, 1;   st.global.u32 [%rd75+0], %r10;
  fns.b32 %r11, 0xaaaaaaaa, 3, -1;  st.global.u32 [%rd75+8], %r11;
  fns.b32 %r12, 0xaaaaaaaa, 2, 1;   st.global.u32 [%rd75+16], %r12;
  fns.b32 %r13, 0xaaaaaaaa, 2, -1;  st.global.u32 [%rd75+24], %r13;
  fns.b32 %r14, 0xaaaaaaaa, 2, 0;   st.global.u32 [%rd75+32], %r14;
  bmsk.wrap.b32 %r15, 1, 2;         st.global.u32 [%rd75+40], %r15;
  szext.wrap.u32 %r16, 0xffffffff, 0; st.global.u32 [%rd75+48], %r16;
)", {{0, 0, 0}});
  ASSERT_EQ(r.out.size(), 32u);
  EXPECT_EQ(r.at(0, 0), 3u);
  EXPECT_EQ(r.at(0, 1), 3u);
  EXPECT_EQ(r.at(0, 2), 3u);
  EXPECT_EQ(r.at(0, 3), 1u);
  EXPECT_EQ(r.at(0, 4), 0xffffffffu);
  EXPECT_EQ(r.at(0, 5), 6u);
  EXPECT_EQ(r.at(0, 6), 0u);
}

TEST(IntOps, Shifts) {
  auto in = pair_inputs();
  const uint64_t amounts[] = {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 0xffffffff, 0x100000001ull};
  for (size_t i = 0; i < in.size(); ++i) in[i].b = amounts[i % 13], in[i].c = amounts[(i / 13) % 13];
  auto r = run(R"(
  shl.b32 %r10, %r1, %r2;   st.global.u32 [%rd75+0], %r10;
  shr.u32 %r11, %r1, %r2;   st.global.u32 [%rd75+8], %r11;
  shr.s32 %r12, %r1, %r2;   st.global.u32 [%rd75+16], %r12;
  shl.b64 %rd10, %rd1, %r2; st.global.u64 [%rd75+24], %rd10;
  shr.u64 %rd11, %rd1, %r2; st.global.u64 [%rd75+32], %rd11;
  shr.s64 %rd12, %rd1, %r2; st.global.u64 [%rd75+40], %rd12;
  shl.b16 %rs10, %rs1, %r2; st.global.u16 [%rd75+48], %rs10;
  shr.s16 %rs11, %rs1, %r2; st.global.u16 [%rd75+56], %rs11;
  shf.l.wrap.b32 %r13, %r1, %r3, %r2;   st.global.u32 [%rd75+64], %r13;
  shf.l.clamp.b32 %r14, %r1, %r3, %r2;  st.global.u32 [%rd75+72], %r14;
  shf.r.wrap.b32 %r15, %r1, %r3, %r2;   st.global.u32 [%rd75+80], %r15;
  shf.r.clamp.b32 %r16, %r1, %r3, %r2;  st.global.u32 [%rd75+88], %r16;
  shl.b32 %r17, %r1, 33;    st.global.u32 [%rd75+96], %r17;
  shr.s32 %r18, %r1, 31;    st.global.u32 [%rd75+104], %r18;
)", in);
  check(r, 0, "shl.b32", [](uint64_t a, uint64_t b, uint64_t) { return u32(b) >= 32 ? 0 : z32(uint64_t(u32(a)) << u32(b)); });
  check(r, 1, "shr.u32", [](uint64_t a, uint64_t b, uint64_t) { return u32(b) >= 32 ? 0 : uint64_t(u32(a) >> u32(b)); });
  check(r, 2, "shr.s32", [](uint64_t a, uint64_t b, uint64_t) { return z32(s32(a) >> std::min(u32(b), 31u)); });
  check(r, 3, "shl.b64", [](uint64_t a, uint64_t b, uint64_t) { return u32(b) >= 64 ? 0 : a << u32(b); });
  check(r, 4, "shr.u64", [](uint64_t a, uint64_t b, uint64_t) { return u32(b) >= 64 ? 0 : a >> u32(b); });
  check(r, 5, "shr.s64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(s64(a) >> std::min(u32(b), 63u)); });
  check(r, 6, "shl.b16", [](uint64_t a, uint64_t b, uint64_t) { return u32(b) >= 16 ? 0 : z16(u16(a) << u32(b)); });
  check(r, 7, "shr.s16", [](uint64_t a, uint64_t b, uint64_t) { return z16(s16(a) >> std::min(u32(b), 15u)); });
  auto shf = [](uint32_t lo, uint32_t hi, uint32_t n, bool left, bool clamp) -> uint64_t {
    uint32_t k = clamp ? std::min<uint32_t>(n, 32) : n & 31;
    unsigned __int128 v = (unsigned __int128)(((uint64_t)hi << 32) | lo);
    return left ? uint32_t(uint64_t((v << k) >> 32)) : uint32_t(uint64_t(v >> k));
  };
  check(r, 8, "shf.l.wrap", [&](uint64_t a, uint64_t b, uint64_t c) { return shf(u32(a), u32(c), u32(b), true, false); });
  check(r, 9, "shf.l.clamp", [&](uint64_t a, uint64_t b, uint64_t c) { return shf(u32(a), u32(c), u32(b), true, true); });
  check(r, 10, "shf.r.wrap", [&](uint64_t a, uint64_t b, uint64_t c) { return shf(u32(a), u32(c), u32(b), false, false); });
  check(r, 11, "shf.r.clamp", [&](uint64_t a, uint64_t b, uint64_t c) { return shf(u32(a), u32(c), u32(b), false, true); });
  check(r, 12, "shl.b32 33", [](uint64_t, uint64_t, uint64_t) { return uint64_t(0); });
  check(r, 13, "shr.s32 31", [](uint64_t a, uint64_t, uint64_t) { return s32(a) < 0 ? 0xffffffffull : 0; });
}

TEST(IntOps, Prmt) {
  auto r = run(R"(
  prmt.b32 %r10, %r1, %r2, %r3;       st.global.u32 [%rd75+0], %r10;
  prmt.b32.f4e %r11, %r1, %r2, %r3;   st.global.u32 [%rd75+8], %r11;
  prmt.b32.b4e %r12, %r1, %r2, %r3;   st.global.u32 [%rd75+16], %r12;
  prmt.b32.rc8 %r13, %r1, %r2, %r3;   st.global.u32 [%rd75+24], %r13;
  prmt.b32.ecl %r14, %r1, %r2, %r3;   st.global.u32 [%rd75+32], %r14;
  prmt.b32.ecr %r15, %r1, %r2, %r3;   st.global.u32 [%rd75+40], %r15;
  prmt.b32.rc16 %r16, %r1, %r2, %r3;  st.global.u32 [%rd75+48], %r16;
  prmt.b32 %r17, %r1, %r2, 0x3210;    st.global.u32 [%rd75+56], %r17;
  prmt.b32 %r18, %r1, %r2, 0x89ab;    st.global.u32 [%rd75+64], %r18;
)", pair_inputs());
  auto byte = [](uint64_t a, uint64_t b, unsigned i) -> uint32_t { return i < 4 ? (u32(a) >> (8 * i)) & 0xff : (u32(b) >> (8 * (i - 4))) & 0xff; };
  auto generic = [&](uint64_t a, uint64_t b, uint32_t c) -> uint64_t {
    uint32_t d = 0;
    for (int i = 0; i < 4; ++i) {
      uint32_t s = (c >> (4 * i)) & 0xf, v = byte(a, b, s & 7);
      if (s & 8) v = (v & 0x80) ? 0xff : 0;
      d |= v << (8 * i);
    }
    return d;
  };
  // Mode tables as the ISA lists them: d.b3 d.b2 d.b1 d.b0 for c[1:0] = 0..3.
  const char* tables[6][4] = {{"3210", "4321", "5432", "6543"}, {"5670", "6701", "7012", "0123"},
                              {"0000", "1111", "2222", "3333"}, {"3210", "3211", "3222", "3333"},
                              {"0000", "1110", "2210", "3210"}, {"1010", "3232", "1010", "3232"}};
  auto moded = [&](int m, uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
    const char* t = tables[m][c & 3];
    uint32_t d = 0;
    for (int i = 0; i < 4; ++i) d |= byte(a, b, unsigned(t[3 - i] - '0')) << (8 * i);
    return d;
  };
  check(r, 0, "prmt", [&](uint64_t a, uint64_t b, uint64_t c) { return generic(a, b, u32(c)); });
  const char* names[6] = {"prmt.f4e", "prmt.b4e", "prmt.rc8", "prmt.ecl", "prmt.ecr", "prmt.rc16"};
  for (int m = 0; m < 6; ++m)
    check(r, 1 + m, names[m], [&](uint64_t a, uint64_t b, uint64_t c) { return moded(m, a, b, c); });
  check(r, 7, "prmt 0x3210", [](uint64_t a, uint64_t, uint64_t) { return z32(u32(a)); });
  check(r, 8, "prmt 0x89ab", [&](uint64_t a, uint64_t b, uint64_t) { return generic(a, b, 0x89ab); });
}

TEST(IntOps, LogicLop3AndPredicates) {
  auto r = run(R"(
  and.b32 %r10, %r1, %r2;   st.global.u32 [%rd75+0], %r10;
  or.b64 %rd10, %rd1, %rd2; st.global.u64 [%rd75+8], %rd10;
  xor.b16 %rs10, %rs1, %rs2; st.global.u16 [%rd75+16], %rs10;
  not.b32 %r11, %r1;        st.global.u32 [%rd75+24], %r11;
  cnot.b32 %r12, %r1;       st.global.u32 [%rd75+32], %r12;
  not.b64 %rd11, %rd1;      st.global.u64 [%rd75+40], %rd11;
  lop3.b32 %r13, %r1, %r2, %r3, 0x96;  st.global.u32 [%rd75+48], %r13;
  lop3.b32 %r14, %r1, %r2, %r3, 0xe8;  st.global.u32 [%rd75+56], %r14;
  lop3.b32 %r15, %r1, %r2, %r3, 0x1;   st.global.u32 [%rd75+64], %r15;
  lop3.b32 %r16, %r1, %r2, %r3, 0xca;  st.global.u32 [%rd75+72], %r16;
  // predicates from values: p1 = a != 0, p2 = b != 0 (lop3 with LUT 0xf0 = a, or-ed with false)
  mov.pred %p0, 0;
  lop3.or.b32 %r17|%p1, %r1, 0, 0, 0xf0, %p0;
  lop3.or.b32 %r18|%p2, %r2, 0, 0, 0xf0, %p0;
  lop3.and.b32 %r19|%p3, %r1, %r2, 0, 0xc0, %p1;
  and.pred %p4, %p1, %p2;
  or.pred %p5, %p1, !%p2;
  xor.pred %p6, %p1, %p2;
  not.pred %p7, %p1;
  mov.u32 %r20, 0; mov.u32 %r21, 0; mov.u32 %r22, 0; mov.u32 %r23, 0; mov.u32 %r24, 0;
  @%p3 mov.u32 %r20, 1;
  @%p4 mov.u32 %r21, 1;
  @%p5 mov.u32 %r22, 1;
  @%p6 mov.u32 %r23, 1;
  @%p7 mov.u32 %r24, 1;
  st.global.u32 [%rd75+80], %r20;
  st.global.u32 [%rd75+88], %r21;
  st.global.u32 [%rd75+96], %r22;
  st.global.u32 [%rd75+104], %r23;
  st.global.u32 [%rd75+112], %r24;
  st.global.u32 [%rd75+120], %r19;
  cnot.b16 %rs11, %rs1;     st.global.u16 [%rd75+128], %rs11;
)", pair_inputs());
  check(r, 0, "and.b32", [](uint64_t a, uint64_t b, uint64_t) { return z32(u32(a) & u32(b)); });
  check(r, 1, "or.b64", [](uint64_t a, uint64_t b, uint64_t) { return a | b; });
  check(r, 2, "xor.b16", [](uint64_t a, uint64_t b, uint64_t) { return z16(u16(a) ^ u16(b)); });
  check(r, 3, "not.b32", [](uint64_t a, uint64_t, uint64_t) { return z32(~u32(a)); });
  check(r, 4, "cnot.b32", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u32(a) == 0); });
  check(r, 5, "not.b64", [](uint64_t a, uint64_t, uint64_t) { return ~a; });
  auto lut = [](uint32_t a, uint32_t b, uint32_t c, uint8_t l) -> uint64_t {
    uint32_t d = 0;
    for (int i = 0; i < 32; ++i) {
      int idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
      d |= uint32_t((l >> idx) & 1) << i;
    }
    return d;
  };
  check(r, 6, "lop3 0x96 (xor3)", [&](uint64_t a, uint64_t b, uint64_t c) { return lut(u32(a), u32(b), u32(c), 0x96); });
  check(r, 7, "lop3 0xe8 (majority)", [&](uint64_t a, uint64_t b, uint64_t c) { return z32((u32(a) & u32(b)) | (u32(a) & u32(c)) | (u32(b) & u32(c))); });
  check(r, 8, "lop3 0x01 (nor3)", [&](uint64_t a, uint64_t b, uint64_t c) { return z32(~(u32(a) | u32(b) | u32(c))); });
  check(r, 9, "lop3 0xca (select)", [&](uint64_t a, uint64_t b, uint64_t c) { return z32((u32(a) & u32(b)) | (~u32(a) & u32(c))); });
  check(r, 10, "lop3.and pred", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((u32(a) & u32(b)) != 0 && u32(a) != 0); });
  check(r, 11, "and.pred", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(u32(a) != 0 && u32(b) != 0); });
  check(r, 12, "or.pred !", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(u32(a) != 0 || u32(b) == 0); });
  check(r, 13, "xor.pred", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((u32(a) != 0) != (u32(b) != 0)); });
  check(r, 14, "not.pred", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u32(a) == 0); });
  check(r, 15, "lop3.and d", [](uint64_t a, uint64_t b, uint64_t) { return z32(u32(a) & u32(b)); });
  check(r, 16, "cnot.b16", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u16(a) == 0); });
}

// An integer constant where and/or/xor.pred take a predicate: zero is False, anything else True.
// nvcc writes LLVM's `not i1` as `xor.pred %p, %q, -1` (CUB 3.0's ReduceByKey kernel at sm_80).
TEST(IntOps, PredicateLogicWithConstants) {
  auto r = run(R"(
  mov.pred %p0, 0;
  lop3.or.b32 %r17|%p1, %r1, 0, 0, 0xf0, %p0;
  xor.pred %p2, %p1, -1;
  xor.pred %p3, %p1, 0;
  and.pred %p4, %p1, 1;
  and.pred %p5, %p1, 0;
  or.pred %p6, %p1, 1;
  or.pred %p7, %p1, 0;
  xor.pred %p8, %p1, 2;
  mov.u32 %r20, 0; mov.u32 %r21, 0; mov.u32 %r22, 0; mov.u32 %r23, 0;
  mov.u32 %r24, 0; mov.u32 %r25, 0; mov.u32 %r26, 0;
  @%p2 mov.u32 %r20, 1;
  @%p3 mov.u32 %r21, 1;
  @%p4 mov.u32 %r22, 1;
  @%p5 mov.u32 %r23, 1;
  @%p6 mov.u32 %r24, 1;
  @%p7 mov.u32 %r25, 1;
  @%p8 mov.u32 %r26, 1;
  st.global.u32 [%rd75+0], %r20;
  st.global.u32 [%rd75+8], %r21;
  st.global.u32 [%rd75+16], %r22;
  st.global.u32 [%rd75+24], %r23;
  st.global.u32 [%rd75+32], %r24;
  st.global.u32 [%rd75+40], %r25;
  st.global.u32 [%rd75+48], %r26;
)", pair_inputs());
  check(r, 0, "xor.pred p, -1", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u32(a) == 0); });
  check(r, 1, "xor.pred p, 0", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u32(a) != 0); });
  check(r, 2, "and.pred p, 1", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u32(a) != 0); });
  check(r, 3, "and.pred p, 0", [](uint64_t, uint64_t, uint64_t) { return uint64_t(0); });
  check(r, 4, "or.pred p, 1", [](uint64_t, uint64_t, uint64_t) { return uint64_t(1); });
  check(r, 5, "or.pred p, 0", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u32(a) != 0); });
  check(r, 6, "xor.pred p, 2", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(u32(a) == 0); });
}

TEST(IntOps, CarryChains128Bit) {
  auto in = pair_inputs();
  auto r = run(R"(
  // a = rd1:rd2 (hi:lo), b = rd2:rd3 as 128-bit values split into 32-bit limbs
  mov.b64 {%r10, %r11}, %rd2;
  mov.b64 {%r12, %r13}, %rd1;
  mov.b64 {%r14, %r15}, %rd3;
  // x = rd1:rd2 = r13 r12 r11 r10, y = rd2:rd3 = r11 r10 r15 r14
  add.cc.u32 %r20, %r10, %r14;
  addc.cc.u32 %r21, %r11, %r15;
  addc.cc.u32 %r22, %r12, %r10;
  addc.u32 %r23, %r13, %r11;
  mov.b64 %rd20, {%r20, %r21}; st.global.u64 [%rd75+0], %rd20;
  mov.b64 %rd21, {%r22, %r23}; st.global.u64 [%rd75+8], %rd21;
  sub.cc.u32 %r24, %r10, %r14;
  subc.cc.u32 %r25, %r11, %r15;
  subc.cc.u32 %r26, %r12, %r10;
  subc.u32 %r27, %r13, %r11;
  mov.b64 %rd22, {%r24, %r25}; st.global.u64 [%rd75+16], %rd22;
  mov.b64 %rd23, {%r26, %r27}; st.global.u64 [%rd75+24], %rd23;
  // 64-bit limbs
  add.cc.u64 %rd24, %rd2, %rd3;
  addc.u64 %rd25, %rd1, %rd2;
  st.global.u64 [%rd75+32], %rd24; st.global.u64 [%rd75+40], %rd25;
  sub.cc.s64 %rd26, %rd2, %rd3;
  subc.s64 %rd27, %rd1, %rd2;
  st.global.u64 [%rd75+48], %rd26; st.global.u64 [%rd75+56], %rd27;
  // 64x64 -> 128 multiply of rd1 * rd2 from 32-bit pieces: a = r13:r12, b = r11:r10
  mul.lo.u32 %r30, %r12, %r10;
  mul.hi.u32 %r31, %r12, %r10;
  mad.lo.cc.u32 %r31, %r12, %r11, %r31;
  madc.hi.u32 %r32, %r12, %r11, 0;
  mad.lo.cc.u32 %r31, %r13, %r10, %r31;
  madc.hi.cc.u32 %r32, %r13, %r10, %r32;
  madc.hi.u32 %r33, %r13, %r11, 0;
  mad.lo.cc.u32 %r32, %r13, %r11, %r32;
  addc.u32 %r33, %r33, 0;
  mov.b64 %rd28, {%r30, %r31}; st.global.u64 [%rd75+64], %rd28;
  mov.b64 %rd29, {%r32, %r33}; st.global.u64 [%rd75+72], %rd29;
  // the same with 64-bit mad carry forms: rd1*rd2 + rd3 (128-bit)
  mad.lo.cc.u64 %rd30, %rd1, %rd2, %rd3;
  madc.hi.u64 %rd31, %rd1, %rd2, 0;
  st.global.u64 [%rd75+80], %rd30; st.global.u64 [%rd75+88], %rd31;
  // signed: hi(s64 a*b) + c + carry
  mad.lo.cc.s64 %rd32, %rd1, %rd2, %rd3;
  madc.hi.s64 %rd33, %rd1, %rd2, 0;
  st.global.u64 [%rd75+96], %rd32; st.global.u64 [%rd75+104], %rd33;
  // a carry-out that is consumed by addc.cc and then by addc
  add.cc.u32 %r40, %r10, %r12;
  addc.cc.u32 %r41, 0, 0;
  addc.u32 %r42, 0, 0;
  st.global.u32 [%rd75+112], %r41; st.global.u32 [%rd75+120], %r42;
)", in);
  using UI = unsigned __int128;
  using I = __int128;
  auto lo = [](UI v) { return uint64_t(v); };
  auto hi = [](UI v) { return uint64_t(v >> 64); };
  auto X = [](uint64_t a, uint64_t b) { return (UI(a) << 64) | b; };
  check(r, 0, "128 add lo", [&](uint64_t a, uint64_t b, uint64_t c) { return lo(X(a, b) + X(b, c)); });
  check(r, 1, "128 add hi", [&](uint64_t a, uint64_t b, uint64_t c) { return hi(X(a, b) + X(b, c)); });
  check(r, 2, "128 sub lo", [&](uint64_t a, uint64_t b, uint64_t c) { return lo(X(a, b) - X(b, c)); });
  check(r, 3, "128 sub hi", [&](uint64_t a, uint64_t b, uint64_t c) { return hi(X(a, b) - X(b, c)); });
  check(r, 4, "128 add64 lo", [&](uint64_t a, uint64_t b, uint64_t c) { return lo(X(a, b) + X(b, c)); });
  check(r, 5, "128 add64 hi", [&](uint64_t a, uint64_t b, uint64_t c) { return hi(X(a, b) + X(b, c)); });
  check(r, 6, "128 sub64 lo", [&](uint64_t a, uint64_t b, uint64_t c) { return lo(X(a, b) - X(b, c)); });
  check(r, 7, "128 sub64 hi", [&](uint64_t a, uint64_t b, uint64_t c) { return hi(X(a, b) - X(b, c)); });
  check(r, 8, "64x64 lo", [&](uint64_t a, uint64_t b, uint64_t) { return lo(UI(a) * b); });
  check(r, 9, "64x64 hi", [&](uint64_t a, uint64_t b, uint64_t) { return hi(UI(a) * b); });
  check(r, 10, "mad.cc.u64 lo", [&](uint64_t a, uint64_t b, uint64_t c) { return lo(UI(a) * b + c); });
  check(r, 11, "madc.hi.u64", [&](uint64_t a, uint64_t b, uint64_t c) { return hi(UI(a) * b + c); });
  check(r, 12, "mad.cc.s64 lo", [&](uint64_t a, uint64_t b, uint64_t c) { return lo(UI(I(int64_t(a)) * I(int64_t(b))) + c); });
  check(r, 13, "madc.hi.s64", [&](uint64_t a, uint64_t b, uint64_t c) {
    // high half of the signed product, plus the carry of (low half + c)
    UI p = UI(I(int64_t(a)) * I(int64_t(b)));
    return hi(p) + (lo(p) + c < c ? 1 : 0);
  });
  check(r, 14, "addc.cc carry", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((uint64_t(u32(b)) + u32(a)) >> 32); });
  check(r, 15, "addc after addc.cc", [](uint64_t, uint64_t, uint64_t) { return uint64_t(0); });
}

TEST(IntOps, GuardedLanesKeepRegistersAndCarry) {
  // Odd lanes run the guarded instructions; even lanes must keep their registers and carry flag.
  std::vector<In> in;
  lcg_state = 99;
  for (int i = 0; i < 64; ++i) in.push_back({lcg(), lcg(), lcg()});
  auto r = run(R"(
  and.b32 %r10, %r70, 1;
  mov.pred %p0, 0;
  lop3.or.b32 %r11|%p1, %r10, 0, 0, 0xf0, %p0;
  mov.u32 %r20, 0xdeadbeef;
  mov.u64 %rd20, 0x0123456789abcdef;
  mov.u16 %rs20, 0x5a5a;
  @%p1 add.u32 %r20, %r1, %r2;
  @%p1 mul.wide.u32 %rd20, %r1, %r2;
  @%p1 shl.b16 %rs20, %rs1, 3;
  st.global.u32 [%rd75+0], %r20;
  st.global.u64 [%rd75+8], %rd20;
  st.global.u16 [%rd75+16], %rs20;
  // carry: set CF = 1 everywhere, clear it on odd lanes only, then read it
  add.cc.u32 %r21, 0xffffffff, 1;
  @%p1 add.cc.u32 %r21, 5, 0;
  addc.u32 %r22, 0, 0;
  st.global.u32 [%rd75+24], %r22;
  st.global.u32 [%rd75+40], %r21;
  // predicate logic on odd lanes only: even lanes keep p2 = true
  not.pred %p2, %p0;
  @%p1 and.pred %p2, %p0, %p0;
  mov.u32 %r23, 0;
  @%p2 mov.u32 %r23, 1;
  st.global.u32 [%rd75+32], %r23;
)", in);
  ASSERT_EQ(r.out.size(), in.size() * 32);
  for (size_t t = 0; t < in.size(); ++t) {
    bool odd = t & 1;
    EXPECT_EQ(r.at(t, 0), odd ? z32(u32(in[t].a) + u32(in[t].b)) : 0xdeadbeefull) << t;
    EXPECT_EQ(r.at(t, 1), odd ? uint64_t(u32(in[t].a)) * u32(in[t].b) : 0x0123456789abcdefull) << t;
    EXPECT_EQ(r.at(t, 2), odd ? z16(u16(in[t].a) << 3) : 0x5a5aull) << t;
    EXPECT_EQ(r.at(t, 3), odd ? 0u : 1u) << t;
    EXPECT_EQ(r.at(t, 4), odd ? 0u : 1u) << t;
    EXPECT_EQ(r.at(t, 5), odd ? 5u : 0u) << t;
  }
}

TEST(IntOps, DecodeErrorsNameTheForm) {
  Harness h;
  auto errs = h.load_errors(kHead + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  add.sat.u32 %r1, %r2, %r3;
  mul.wide.u64 %rd1, %rd2, %rd3;
  mad.hi.sat.u32 %r1, %r2, %r3, %r1;
  abs.u32 %r1, %r2;
  ret;
}
)");
  ASSERT_EQ(errs.size(), 4u);
  EXPECT_NE(errs[0].find("add.sat.u32"), std::string::npos) << errs[0];
  EXPECT_NE(errs[1].find("mul.wide.u64"), std::string::npos) << errs[1];
  EXPECT_NE(errs[2].find("mad.hi.sat.u32"), std::string::npos) << errs[2];
  EXPECT_NE(errs[3].find("abs.u32"), std::string::npos) << errs[3];
}

// SIMD video instructions (PTX ISA 9.7.18.2): per-lane references written from the ISA text.
namespace {
// Lane k of v (bits wide), extended by signedness.
int64_t vlane(uint64_t v, int k, int bits, bool sgn) {
  int64_t x = int64_t((uint32_t(v) >> (k * bits)) & ((1u << bits) - 1));
  if (sgn && (x >> (bits - 1))) x -= int64_t(1) << bits;
  return x;
}
uint64_t vref(uint64_t a, uint64_t b, uint64_t c, int lanes, bool sa, bool sb, bool sd, bool sat, bool add,
              const std::function<int64_t(int64_t, int64_t)>& f) {
  const int bits = 32 / lanes;
  uint32_t out = 0;
  int64_t sum = 0;
  for (int k = 0; k < lanes; ++k) {
    int64_t r = f(vlane(a, k, bits, sa), vlane(b, k, bits, sb));
    sum += r;
    if (sat) {
      int64_t lo = sd ? -(int64_t(1) << (bits - 1)) : 0, hi = sd ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
      r = std::min(std::max(r, lo), hi);
    }
    out |= uint32_t(r & ((int64_t(1) << bits) - 1)) << (k * bits);
  }
  return add ? z32(s32(c) + sum) : out;
}
}  // namespace

TEST(IntOps, SimdVideo) {
  auto r = run(R"(
  vabsdiff4.u32.u32.u32 %r10, %r1, %r2, %r3;       st.global.u32 [%rd75+0], %r10;
  vadd4.s32.s32.s32.sat %r11, %r1, %r2, %r3;       st.global.u32 [%rd75+8], %r11;
  vsub2.u32.u32.u32.sat %r12, %r1, %r2, %r3;       st.global.u32 [%rd75+16], %r12;
  vavrg2.s32.s32.s32 %r13, %r1, %r2, %r3;          st.global.u32 [%rd75+24], %r13;
  vmin4.s32.u32.s32 %r14, %r1, %r2, %r3;           st.global.u32 [%rd75+32], %r14;
  vmax2.u32.s32.u32 %r15, %r1, %r2, %r3;           st.global.u32 [%rd75+40], %r15;
  vabsdiff4.u32.u32.u32.add %r16, %r1, %r2, %r3;   st.global.u32 [%rd75+48], %r16;
  vadd2.s32.s32.u32.add %r17, %r1, %r2, %r3;       st.global.u32 [%rd75+56], %r17;
  vavrg4.u32.u32.u32 %r18, %r1, %r2, %r3;          st.global.u32 [%rd75+64], %r18;
)", pair_inputs());
  auto absd = [](int64_t x, int64_t y) { return x > y ? x - y : y - x; };
  auto addf = [](int64_t x, int64_t y) { return x + y; };
  auto subf = [](int64_t x, int64_t y) { return x - y; };
  auto avg = [](int64_t x, int64_t y) { return (x + y + 1) >> 1; };
  auto mn = [](int64_t x, int64_t y) { return std::min(x, y); };
  auto mx = [](int64_t x, int64_t y) { return std::max(x, y); };
  check(r, 0, "vabsdiff4.u32", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 4, false, false, false, false, false, absd); });
  check(r, 1, "vadd4.s32.sat", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 4, true, true, true, true, false, addf); });
  check(r, 2, "vsub2.u32.sat", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 2, false, false, false, true, false, subf); });
  check(r, 3, "vavrg2.s32", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 2, true, true, true, false, false, avg); });
  check(r, 4, "vmin4.s32.u32.s32", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 4, false, true, true, false, false, mn); });
  check(r, 5, "vmax2.u32.s32.u32", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 2, true, false, false, false, false, mx); });
  check(r, 6, "vabsdiff4.add", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 4, false, false, false, false, true, absd); });
  check(r, 7, "vadd2.add", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 2, true, false, true, false, true, addf); });
  check(r, 8, "vavrg4.u32", [&](uint64_t a, uint64_t b, uint64_t c) { return vref(a, b, c, 4, false, false, false, false, false, avg); });
}

// Scalar video instructions (PTX ISA 9.7.18.1): byte/half selectors, extension by each source's
// signedness, full-precision operation, .sat to the destination type, then .add/.min/.max with c;
// shift counts unsigned, clamped to 32 (.clamp) or taken mod 32 (.wrap). References from the ISA text.
namespace {
int64_t vpart(uint64_t v, int sel, bool sgn) {  // sel: -1 word, 0-3 byte, 4-5 half
  uint32_t w = uint32_t(v);
  if (sel < 0) return sgn ? int64_t(int32_t(w)) : int64_t(w);
  if (sel < 4) return sgn ? int64_t(int8_t(w >> (8 * sel))) : int64_t((w >> (8 * sel)) & 0xff);
  return sgn ? int64_t(int16_t(w >> (16 * (sel - 4)))) : int64_t((w >> (16 * (sel - 4))) & 0xffff);
}
uint64_t vfinish(int64_t t, uint64_t c, bool sd, bool sat, char op2) {
  if (sat) t = std::min<int64_t>(std::max<int64_t>(t, sd ? INT32_MIN : 0), sd ? INT32_MAX : int64_t(UINT32_MAX));
  uint32_t r = uint32_t(t), y = uint32_t(c);
  if (op2 == '+') return z32(r + y);
  if (op2 == 'm') return sd ? z32(uint32_t(std::min(int32_t(r), int32_t(y)))) : z32(std::min(r, y));
  if (op2 == 'M') return sd ? z32(uint32_t(std::max(int32_t(r), int32_t(y)))) : z32(std::max(r, y));
  return z32(r);
}
}  // namespace

TEST(IntOps, ScalarVideo) {
  auto r = run(R"(
  vshr.u32.u32.u32.clamp.add %r10, %r1, %r2, %r3;  st.global.u32 [%rd75+0], %r10;
  vshr.s32.s32.u32.wrap %r11, %r1, %r2;             st.global.u32 [%rd75+8], %r11;
  vshl.u32.u32.u32.wrap.sat %r12, %r1, %r2;         st.global.u32 [%rd75+16], %r12;
  vadd.s32.s32.s32.sat %r13, %r1.h1, %r2.b2;        st.global.u32 [%rd75+24], %r13;
  vsub.u32.s32.s32.max %r14, %r1.b0, %r2.h0, %r3;   st.global.u32 [%rd75+32], %r14;
  vabsdiff.s32.u32.u32.min %r15, %r1, %r2, %r3;     st.global.u32 [%rd75+40], %r15;
  vmin.s32.s32.s32 %r16, %r1, %r2;                  st.global.u32 [%rd75+48], %r16;
  vmax.u32.u32.u32.add %r17, %r1.b3, %r2.b1, %r3;   st.global.u32 [%rd75+56], %r17;
  vshl.u32.u32.u32.clamp %r18, %r1, %r2.b0;         st.global.u32 [%rd75+64], %r18;
)", pair_inputs());
  check(r, 0, "vshr.clamp.add", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(vpart(a, -1, false) >> std::min<int64_t>(vpart(b, -1, false), 32), c, false, false, '+');
  });
  check(r, 1, "vshr.s32.wrap", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(vpart(a, -1, true) >> (vpart(b, -1, false) & 31), c, true, false, 0);
  });
  check(r, 2, "vshl.wrap.sat", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(int64_t(uint64_t(vpart(a, -1, false)) << (vpart(b, -1, false) & 31)), c, false, true, 0);
  });
  check(r, 3, "vadd.sat h1 b2", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(vpart(a, 5, true) + vpart(b, 2, true), c, true, true, 0);
  });
  check(r, 4, "vsub.max b0 h0", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(vpart(a, 0, true) - vpart(b, 4, true), c, false, false, 'M');
  });
  check(r, 5, "vabsdiff.min", [](uint64_t a, uint64_t b, uint64_t c) {
    int64_t x = vpart(a, -1, false), y = vpart(b, -1, false);
    return vfinish(x > y ? x - y : y - x, c, true, false, 'm');
  });
  check(r, 6, "vmin.s32", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(std::min(vpart(a, -1, true), vpart(b, -1, true)), c, true, false, 0);
  });
  check(r, 7, "vmax.add b3 b1", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(std::max(vpart(a, 3, false), vpart(b, 1, false)), c, false, false, '+');
  });
  check(r, 8, "vshl.clamp b0", [](uint64_t a, uint64_t b, uint64_t c) {
    return vfinish(int64_t(uint64_t(vpart(a, -1, false)) << std::min<int64_t>(vpart(b, 0, false), 32)), c, false, false, 0);
  });
}
