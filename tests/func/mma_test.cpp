// Warp-level matrix instructions: mma.sync for the sm_80 shapes/types against a CPU reference that
// builds A/B/C from the fragment layout tables of PTX ISA 8.7 section 9.7.14.5 (written here per
// shape, independently of the engine), ldmatrix (.x1/.x2/.x4, .trans), stmatrix, movmatrix, and
// wmma load -> mma -> store.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdio>
#include <bit>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "func/softfloat.hpp"
#include "func/wgmma_desc.hpp"
#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

struct Rng {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(s >> 33);
  }
};

uint16_t f16_of(double d) { return uint16_t(func::sf::from_double(d, func::sf::kF16, func::sf::Mode::Rn)); }
uint16_t bf16_of(double d) { return uint16_t(func::sf::from_double(d, func::sf::kBF16, func::sf::Mode::Rn)); }
double f16_val(uint16_t b) { return func::sf::to_double(func::sf::kF16, b); }
double bf16_val(uint16_t b) { return func::sf::to_double(func::sf::kBF16, b); }
float f32_of_bits(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
uint32_t bits_of(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

using RC = std::pair<int, int>;
// Layout tables of the ISA (9.7.14.5.x), per shape, for element index i of lane `lane`.
struct Layout {
  std::function<RC(int lane, int i)> a, b, c;
};

Layout layout_for(const std::string& kind, int m, int k) {
  auto C16 = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i < 2 ? g : g + 8, t * 2 + (i & 1)}; };
  auto C8 = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{g, t * 2 + i}; };
  Layout L;
  if (kind == "f16" && k == 16) {
    L.a = [](int lane, int i) {
      int g = lane >> 2, t = lane % 4;
      int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
      int col = i < 4 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8;
      return RC{row, col};
    };
    L.b = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i < 2 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8, g}; };
  } else if (kind == "f16" && k == 8) {
    L.a = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i < 2 ? g : g + 8, t * 2 + (i & 1)}; };
    L.b = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{t * 2 + i, g}; };
  } else if (kind == "tf32" && k == 4) {
    L.a = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i == 0 ? g : g + 8, t}; };
    L.b = [](int lane, int) { int g = lane >> 2, t = lane % 4; return RC{t, g}; };
  } else if (kind == "tf32" && k == 8) {
    L.a = [](int lane, int i) {
      int g = lane >> 2, t = lane % 4;
      return RC{(i == 0 || i == 2) ? g : g + 8, i < 2 ? t : t + 4};
    };
    L.b = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i == 0 ? t : t + 4, g}; };
  } else if (kind == "f64") {
    L.a = [](int lane, int) { return RC{lane >> 2, lane % 4}; };
    L.b = [](int lane, int) { return RC{lane % 4, lane >> 2}; };
  } else if (kind == "i8" && m == 8) {
    L.a = [](int lane, int i) { return RC{lane >> 2, (lane % 4) * 4 + i}; };
    L.b = [](int lane, int i) { return RC{(lane % 4) * 4 + i, lane >> 2}; };
  } else if (kind == "i8" && k == 16) {
    L.a = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i < 4 ? g : g + 8, t * 4 + (i & 3)}; };
    L.b = [](int lane, int i) { return RC{(lane % 4) * 4 + i, lane >> 2}; };
  } else if (kind == "i8" && k == 32) {
    L.a = [](int lane, int i) {
      int g = lane >> 2, t = lane % 4;
      return RC{(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, i < 8 ? t * 4 + (i & 3) : t * 4 + (i & 3) + 16};
    };
    L.b = [](int lane, int i) { int t = lane % 4; return RC{i < 4 ? t * 4 + (i & 3) : t * 4 + (i & 3) + 16, lane >> 2}; };
  } else if (kind == "i4" && k == 32) {
    L.a = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i < 8 ? g : g + 8, t * 8 + (i & 7)}; };
    L.b = [](int lane, int i) { return RC{(lane % 4) * 8 + i, lane >> 2}; };
  } else if (kind == "i4" && k == 64) {
    L.a = [](int lane, int i) {
      int g = lane >> 2, t = lane % 4;
      return RC{(i < 8 || (i >= 16 && i < 24)) ? g : g + 8, i < 16 ? t * 8 + (i & 7) : t * 8 + (i & 7) + 32};
    };
    L.b = [](int lane, int i) { int t = lane % 4; return RC{i < 8 ? t * 8 + (i & 7) : t * 8 + (i & 7) + 32, lane >> 2}; };
  } else if (kind == "b1" && k == 128) {
    L.a = [](int lane, int i) { int g = lane >> 2, t = lane % 4; return RC{i < 32 ? g : g + 8, t * 32 + (i & 31)}; };
    L.b = [](int lane, int i) { return RC{(lane % 4) * 32 + i, lane >> 2}; };
  }
  L.c = m == 16 ? std::function<RC(int, int)>(C16) : std::function<RC(int, int)>(C8);
  return L;
}

struct MmaCase {
  std::string ptx_types;  // e.g. "m16n8k16.row.col.f32.f16.f16.f32"
  std::string kind;       // layout family
  int m, n, k;
  int abits;              // element bits of A/B (tf32: 32, f64: 64)
  std::string at, ct, dt; // element types
  std::string extra;      // modifiers after the types (.xor.popc)
};

// Runs one mma over lanes' registers from `in`, writing D registers to `out`.
std::string mma_kernel(const MmaCase& mc, int na, int nb, int nc, int nd) {
  bool f64 = mc.at == "f64";
  std::string rt = f64 ? ".f64" : ".b32";
  std::string ct = mc.ct == "f32" ? ".f32" : rt, dt = mc.dt == "f32" ? ".f32" : rt;
  int rb = f64 ? 8 : 4;
  int tot = na + nb + nc;
  std::string s = kHead + ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n";
  s += "  .reg .b32 %r<4>;\n  .reg .b64 %rd<8>;\n";
  s += "  .reg " + rt + " %a<" + std::to_string(na) + ">;\n  .reg " + rt + " %b<" + std::to_string(nb) + ">;\n";
  s += "  .reg " + ct + " %c<" + std::to_string(nc) + ">;\n  .reg " + dt + " %d<" + std::to_string(nd) + ">;\n";
  s += "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n  mov.u32 %r1, %laneid;\n";
  s += "  mul.wide.u32 %rd3, %r1, " + std::to_string(tot * rb) + ";\n  add.s64 %rd4, %rd1, %rd3;\n";
  s += "  mul.wide.u32 %rd5, %r1, " + std::to_string(nd * rb) + ";\n  add.s64 %rd6, %rd2, %rd5;\n";
  auto lds = [&](const std::string& name, int n, int base, const std::string& ty) {
    for (int i = 0; i < n; ++i)
      s += "  ld.global" + ty + " %" + name + std::to_string(i) + ", [%rd4+" + std::to_string((base + i) * rb) + "];\n";
  };
  lds("a", na, 0, rt);
  lds("b", nb, na, rt);
  lds("c", nc, na + nb, ct);
  auto vec = [](const std::string& name, int n) {
    std::string v = "{";
    for (int i = 0; i < n; ++i) v += (i ? ", %" : "%") + name + std::to_string(i);
    return v + "}";
  };
  s += "  mma.sync.aligned." + mc.ptx_types + mc.extra + " " + vec("d", nd) + ", " + vec("a", na) + ", " + vec("b", nb) +
       ", " + vec("c", nc) + ";\n";
  for (int i = 0; i < nd; ++i)
    s += "  st.global" + dt + " [%rd6+" + std::to_string(i * rb) + "], %d" + std::to_string(i) + ";\n";
  s += "  ret;\n}\n";
  return s;
}

// Generic driver: values[] of A (m x k), B (k x n) and C (m x n) as raw element bits; ref computes
// the expected D element bits.
void run_mma_case(const MmaCase& mc, const std::vector<uint64_t>& A, const std::vector<uint64_t>& B,
                  const std::vector<uint64_t>& C, const std::function<uint64_t(int, int)>& ref) {
  SCOPED_TRACE(mc.ptx_types + mc.extra);
  Layout L = layout_for(mc.kind, mc.m, mc.k);
  bool f64 = mc.at == "f64";
  int epr = f64 ? 1 : 32 / mc.abits;
  int na = mc.m * mc.k / 32 / epr, nb = mc.k * mc.n / 32 / epr;
  int celems = mc.m * mc.n / 32;
  int nc = mc.ct == "f16" ? celems / 2 : celems, nd = mc.dt == "f16" ? celems / 2 : celems;
  int tot = na + nb + nc;
  std::vector<uint64_t> regs(32 * tot, 0);
  auto put = [&](int lane, int reg, int elem, int bits, uint64_t v) {
    uint64_t& r = regs[lane * tot + reg];
    if (bits == 64) r = v;
    else r |= (v & ((1ull << bits) - 1)) << (elem * bits);
  };
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < na * epr; ++i) { auto [r, c] = L.a(lane, i); put(lane, i / epr, i % epr, f64 ? 64 : mc.abits, A[r * mc.k + c]); }
    for (int i = 0; i < nb * epr; ++i) { auto [r, c] = L.b(lane, i); put(lane, na + i / epr, i % epr, f64 ? 64 : mc.abits, B[r * mc.n + c]); }
    for (int i = 0; i < celems; ++i) {
      auto [r, c] = L.c(lane, i);
      if (mc.ct == "f16") put(lane, na + nb + i / 2, i % 2, 16, C[r * mc.n + c]);
      else put(lane, na + nb + i, 0, f64 ? 64 : 32, C[r * mc.n + c]);
    }
  }
  Harness h;
  ASSERT_TRUE(h.load(mma_kernel(mc, na, nb, nc, nd)));
  uint64_t dout = h.alloc(32 * nd * 8);
  uint64_t din;
  if (f64) {
    din = h.upload(regs);
  } else {
    std::vector<uint32_t> r32(regs.begin(), regs.end());
    din = h.upload(r32);
  }
  auto res = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
  ASSERT_TRUE(res.ok()) << res.report();
  std::vector<uint64_t> got(32 * nd);
  if (f64) got = h.download<uint64_t>(dout, 32 * nd);
  else {
    auto g32 = h.download<uint32_t>(dout, 32 * nd);
    for (size_t i = 0; i < g32.size(); ++i) got[i] = g32[i];
  }
  int bad = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < celems; ++i) {
      auto [r, c] = L.c(lane, i);
      uint64_t v = mc.dt == "f16" ? (got[lane * nd + i / 2] >> (16 * (i % 2))) & 0xffff : got[lane * nd + i];
      uint64_t want = ref(r, c);
      if (v != want && bad++ < 5)
        ADD_FAILURE() << "D[" << r << "][" << c << "] (lane " << lane << ", element " << i << ") = 0x" << std::hex << v
                      << ", want 0x" << want;
    }
  EXPECT_EQ(bad, 0);
}

// Exact sum of c and the products (quad precision is exact for these ranges), rounded once.
float exact_f32(double c, const std::vector<double>& prods) {
  __float128 s = c;
  for (double p : prods) s += (__float128)p;
  return (float)s;
}
uint16_t exact_f16(double c, const std::vector<double>& prods) {
  __float128 s = c;
  for (double p : prods) s += (__float128)p;
  // round to f16 in two exact steps: quad -> double is exact here (few significant bits)
  return f16_of((double)s);
}

enum class FK { F16, BF16 };

void float_case(const std::string& shape_types, FK fk, int k, bool c16, bool d16) {
  Rng g{uint64_t(k * 7 + int(fk) * 3 + c16 * 11 + d16 * 13)};
  const int M = 16, N = 8;
  std::vector<uint64_t> A(M * k), B(k * N), C(M * N);
  std::vector<double> a(M * k), b(k * N), c(M * N);
  auto mk = [&](double& val, uint64_t& bitsv, double scale) {
    double d = (int(g.next() % 2000001) - 1000000) / 1000000.0 * scale;  // many mantissa bits
    if (fk == FK::F16) { uint16_t h = f16_of(d); bitsv = h; val = f16_val(h); }
    else { uint16_t h = bf16_of(d); bitsv = h; val = bf16_val(h); }
  };
  for (int i = 0; i < M * k; ++i) mk(a[i], A[i], 2.0);
  for (int i = 0; i < k * N; ++i) mk(b[i], B[i], 2.0);
  for (int i = 0; i < M * N; ++i) {
    double d = (int(g.next() % 2000001) - 1000000) / 1000.0;
    if (c16) { uint16_t h = f16_of(d); C[i] = h; c[i] = f16_val(h); }
    else { float f = float(d) + 1.0f / 3.0f; C[i] = bits_of(f); c[i] = f; }
  }
  MmaCase mc{shape_types, "f16", M, N, k, 16, fk == FK::F16 ? "f16" : "bf16", c16 ? "f16" : "f32", d16 ? "f16" : "f32", ""};
  run_mma_case(mc, A, B, C, [&](int r, int col) -> uint64_t {
    std::vector<double> p;
    for (int kk = 0; kk < k; ++kk) p.push_back(a[r * k + kk] * b[kk * N + col]);
    if (d16) return exact_f16(c[r * N + col], p);
    return bits_of(exact_f32(c[r * N + col], p));
  });
}

TEST(Mma, F16M16N8K16F32) { float_case("m16n8k16.row.col.f32.f16.f16.f32", FK::F16, 16, false, false); }
TEST(Mma, Bf16M16N8K16F32) { float_case("m16n8k16.row.col.f32.bf16.bf16.f32", FK::BF16, 16, false, false); }
TEST(Mma, F16M16N8K8F32) { float_case("m16n8k8.row.col.f32.f16.f16.f32", FK::F16, 8, false, false); }
TEST(Mma, Bf16M16N8K8F32) { float_case("m16n8k8.row.col.f32.bf16.bf16.f32", FK::BF16, 8, false, false); }
TEST(Mma, F16M16N8K16F16) { float_case("m16n8k16.row.col.f16.f16.f16.f16", FK::F16, 16, true, true); }
TEST(Mma, F16M16N8K8F16AccF32Out) { float_case("m16n8k8.row.col.f32.f16.f16.f16", FK::F16, 8, true, false); }

void tf32_case(int k) {
  Rng g{uint64_t(77 + k)};
  const int M = 16, N = 8;
  std::vector<uint64_t> A(M * k), B(k * N), C(M * N);
  std::vector<double> a(M * k), b(k * N), c(M * N);
  auto mk = [&](double& val, uint64_t& bv) {
    float f = (int(g.next() % 2000001) - 1000000) / 999983.0f;  // full 23-bit mantissas
    bv = bits_of(f);
    val = f32_of_bits(bits_of(f) & 0xffffe000u);  // tf32: the low 13 mantissa bits are not used
  };
  for (int i = 0; i < M * k; ++i) mk(a[i], A[i]);
  for (int i = 0; i < k * N; ++i) mk(b[i], B[i]);
  for (int i = 0; i < M * N; ++i) { float f = (int(g.next() % 20001) - 10000) / 7.0f; C[i] = bits_of(f); c[i] = f; }
  MmaCase mc{"m16n8k" + std::to_string(k) + ".row.col.f32.tf32.tf32.f32", "tf32", M, N, k, 32, "tf32", "f32", "f32", ""};
  run_mma_case(mc, A, B, C, [&](int r, int col) -> uint64_t {
    std::vector<double> p;
    for (int kk = 0; kk < k; ++kk) p.push_back(a[r * k + kk] * b[kk * N + col]);
    return bits_of(exact_f32(c[r * N + col], p));
  });
}
TEST(Mma, Tf32M16N8K4) { tf32_case(4); }
TEST(Mma, Tf32M16N8K8) { tf32_case(8); }

TEST(Mma, F64M8N8K4) {
  Rng g{5};
  std::vector<uint64_t> A(32), B(32), C(64);
  std::vector<double> a(32), b(32), c(64);
  for (int i = 0; i < 32; ++i) { a[i] = (int(g.next() % 200001) - 100000) / 997.0; A[i] = std::bit_cast<uint64_t>(a[i]); }
  for (int i = 0; i < 32; ++i) { b[i] = (int(g.next() % 200001) - 100000) / 991.0; B[i] = std::bit_cast<uint64_t>(b[i]); }
  for (int i = 0; i < 64; ++i) { c[i] = (int(g.next() % 200001) - 100000) / 983.0; C[i] = std::bit_cast<uint64_t>(c[i]); }
  MmaCase mc{"m8n8k4.row.col.f64.f64.f64.f64", "f64", 8, 8, 4, 64, "f64", "f64", "f64", ""};
  run_mma_case(mc, A, B, C, [&](int r, int col) -> uint64_t {
    double acc = c[r * 8 + col];
    for (int kk = 0; kk < 4; ++kk) acc = std::fma(a[r * 4 + kk], b[kk * 8 + col], acc);
    return std::bit_cast<uint64_t>(acc);
  });
}

void int_case(const std::string& types, const std::string& kind, int m, int k, int bits, bool sa, bool sb, bool sat) {
  Rng g{uint64_t(m * 100 + k + bits + sa * 3 + sb * 5 + sat * 7)};
  const int N = 8;
  std::vector<uint64_t> A(m * k), B(k * N), C(m * N);
  std::vector<int64_t> a(m * k), b(k * N), c(m * N);
  auto mk = [&](bool s, int64_t& v, uint64_t& bv) {
    uint64_t raw = g.next() & ((1u << bits) - 1);
    bv = raw;
    v = s && (raw >> (bits - 1)) ? int64_t(raw) - (int64_t(1) << bits) : int64_t(raw);
  };
  for (int i = 0; i < m * k; ++i) mk(sa, a[i], A[i]);
  for (int i = 0; i < k * N; ++i) mk(sb, b[i], B[i]);
  for (int i = 0; i < m * N; ++i) {
    // some accumulators near the s32 limits so .satfinite (or wrapping) shows
    int32_t v = (i % 3 == 0) ? INT32_MAX - int32_t(g.next() % 1000) : (i % 3 == 1) ? INT32_MIN + int32_t(g.next() % 1000)
                                                                                  : int32_t(g.next());
    c[i] = v;
    C[i] = uint32_t(v);
  }
  MmaCase mc{types, kind, m, N, k, bits, "int", "s32", "s32", ""};
  run_mma_case(mc, A, B, C, [&](int r, int col) -> uint64_t {
    int64_t s = c[r * N + col];
    for (int kk = 0; kk < k; ++kk) s += a[r * k + kk] * b[kk * N + col];
    if (sat) s = std::min<int64_t>(std::max<int64_t>(s, INT32_MIN), INT32_MAX);
    return uint32_t(s);
  });
}
TEST(Mma, S8M16N8K16Sat) { int_case("m16n8k16.row.col.satfinite.s32.s8.s8.s32", "i8", 16, 16, 8, true, true, true); }
TEST(Mma, S8M16N8K32Wrap) { int_case("m16n8k32.row.col.s32.s8.s8.s32", "i8", 16, 32, 8, true, true, false); }
TEST(Mma, U8S8M16N8K32Sat) { int_case("m16n8k32.row.col.satfinite.s32.u8.s8.s32", "i8", 16, 32, 8, false, true, true); }
TEST(Mma, S8M8N8K16) { int_case("m8n8k16.row.col.satfinite.s32.s8.s8.s32", "i8", 8, 16, 8, true, true, true); }
TEST(Mma, S4M16N8K32) { int_case("m16n8k32.row.col.satfinite.s32.s4.s4.s32", "i4", 16, 32, 4, true, true, true); }
TEST(Mma, U4M16N8K64) { int_case("m16n8k64.row.col.s32.u4.u4.s32", "i4", 16, 64, 4, false, false, false); }

TEST(Mma, B1M16N8K128XorAndPopc) {
  for (int op = 0; op < 2; ++op) {
    Rng g{uint64_t(9 + op)};
    const int M = 16, N = 8, K = 128;
    std::vector<uint64_t> A(M * K), B(K * N), C(M * N);
    for (auto& v : A) v = g.next() & 1;
    for (auto& v : B) v = g.next() >> 7 & 1;
    for (auto& v : C) v = g.next() % 1000;
    MmaCase mc{"m16n8k128.row.col.s32.b1.b1.s32", "b1", M, N, K, 1, "b1", "s32", "s32", op ? ".and.popc" : ".xor.popc"};
    run_mma_case(mc, A, B, C, [&](int r, int col) -> uint64_t {
      int64_t s = int32_t(C[r * N + col]);
      for (int kk = 0; kk < K; ++kk) s += op ? (A[r * K + kk] & B[kk * N + col]) : (A[r * K + kk] ^ B[kk * N + col]);
      return uint32_t(s);
    });
  }
}

// Sanity check of the reference itself: sequential f32 accumulation would differ from the exact
// single rounding for these inputs, so the f32 tests can tell them apart.
// f16 inputs over the whole exponent range (subnormals to 2^15): products from 2^-48 to 2^32 in one
// dot product, where a sum in double would lose bits; the reference sums them exactly.
TEST(Mma, F16WideExponentRangeIsExact) {
  Rng g{99};
  const int M = 16, N = 8, k = 16;
  std::vector<uint64_t> A(M * k), B(k * N), C(M * N);
  std::vector<double> a(M * k), b(k * N), c(M * N);
  auto mk = [&](double& val, uint64_t& bitsv) {
    int e = int(g.next() % 42) - 26;  // 2^-26 .. 2^15
    double d = std::ldexp(1.0 + (g.next() % 1024) / 1024.0, e) * (g.next() & 1 ? -1 : 1);
    uint16_t h = f16_of(d);
    bitsv = h;
    val = f16_val(h);
  };
  for (int i = 0; i < M * k; ++i) mk(a[i], A[i]);
  for (int i = 0; i < k * N; ++i) mk(b[i], B[i]);
  for (int i = 0; i < M * N; ++i) {
    float f = float(std::ldexp(double(g.next() % 1000), int(g.next() % 60) - 40));
    C[i] = bits_of(f);
    c[i] = f;
  }
  MmaCase mc{"m16n8k16.row.col.f32.f16.f16.f32", "f16", M, N, k, 16, "f16", "f32", "f32", ""};
  run_mma_case(mc, A, B, C, [&](int r, int col) -> uint64_t {
    std::vector<double> p;
    for (int kk = 0; kk < k; ++kk) p.push_back(a[r * k + kk] * b[kk * N + col]);
    return bits_of(exact_f32(c[r * N + col], p));
  });
}

// Infinities and NaNs in f16 inputs: a row of A holding +inf (B all positive) gives +inf, a row
// holding a NaN gives a NaN (the canonical f32 NaN), the other rows stay finite and exact.
TEST(Mma, F16InfinityAndNaNInputs) {
  const int M = 16, N = 8, k = 16;
  std::vector<uint64_t> A(M * k, f16_of(0.5)), B(k * N, f16_of(0.25)), C(M * N, bits_of(1.0f));
  A[0 * k + 3] = 0x7c00;  // +inf in row 0
  A[1 * k + 5] = 0x7e00;  // NaN in row 1
  MmaCase mc{"m16n8k16.row.col.f32.f16.f16.f32", "f16", M, N, k, 16, "f16", "f32", "f32", ""};
  run_mma_case(mc, A, B, C, [&](int r, int) -> uint64_t {
    if (r == 0) return 0x7f800000u;
    if (r == 1) return 0x7fffffffu;
    return bits_of(1.0f + 16 * 0.125f);
  });
}

TEST(Mma, ReferenceDistinguishesAccumulationOrder) {
  Rng g{3};
  int differ = 0;
  for (int t = 0; t < 200; ++t) {
    std::vector<double> p;
    float seq = (int(g.next() % 2000001) - 1000000) / 1000.0f + 1.0f / 3.0f;
    double c = seq;
    for (int k = 0; k < 16; ++k) {
      double a = f16_val(f16_of((int(g.next() % 2000001) - 1000000) / 500000.0));
      double b = f16_val(f16_of((int(g.next() % 2000001) - 1000000) / 500000.0));
      p.push_back(a * b);
      seq = seq + float(a * b);
    }
    differ += bits_of(seq) != bits_of(exact_f32(c, p));
  }
  EXPECT_GT(differ, 10);
}

// A kernel holding the one instruction `ins` fails to load with a message that names `word`.
void expect_load_error(const std::string& ins, const std::string& word) {
  SCOPED_TRACE(ins);
  Harness h;
  std::string k = kHead + ".visible .entry k()\n{\n  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n  .reg .f64 %fd<4>;\n  .reg .b64 %rd<2>;\n  " +
                  ins + "\n  ret;\n}\n";
  auto errs = h.load_errors(k);
  ASSERT_FALSE(errs.empty());
  EXPECT_NE(errs[0].find(word), std::string::npos) << errs[0];
}

TEST(Mma, UnsupportedFormsFailToLoad) {
  // Each of these is rejected by ptxas for sm_80 (checked with CUDA 13 ptxas) and must fail the load
  // with a message naming the form, not run.
  const char* bad[] = {
      // bf16 with a .f16 accumulator
      "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r0, %r1}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r6, %r7};",
      // m8n8k4: .f16 D needs a .f16 C
      "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32 {%r0, %r1, %r2, %r3}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
      // sparse .f16 needs dtype == ctype
      "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%r4, %r5}, %r6, 0;",
      // selector out of range for m16n8k32 (0..1)
      "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%f0, %f1, %f2, %f3}, %r6, 2;",
      // selector must be a constant
      "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3}, %r6, %r7;",
      // no sparse s8 m16n8k16
      "mma.sp.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r0, %r1, %r2, %r3}, {%r4}, {%r5}, {%r0, %r1, %r2, %r3}, %r6, 0;",
      // no sparse f64
      "mma.sp.sync.aligned.m8n8k8.row.col.f64.f64.f64.f64 {%fd0, %fd1}, {%fd2}, {%fd3}, {%fd0, %fd1}, %r6, 0;",
      // mma.sp takes the metadata and selector operands
      "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3};",
  };
  for (const char* ins : bad) expect_load_error(ins, "mma");
}

// ------------------------------------------------------------------ mma.sp (2:4 sparse A)

// Sparse A for the PTX ISA 9.7.14.6.1 granularities: a row is cut into chunks of `cs` elements
// (4 for 16/8-bit, 2 for tf32, 8 for 4-bit), half of each is kept, and a 4-bit metadata field per
// chunk names the kept elements (two 2-bit indices; tf32: 0b0100 or 0b1110; 4-bit: indices of
// kept pairs).
struct SparseA {
  int K, cs;
  std::vector<uint64_t> dense, comp;  // raw element bits; dense M x K with zeros, comp M x K/2
  std::vector<uint32_t> nib;          // M x K/cs
};

SparseA make_sparse_a(Rng& g, int K, int cs, const std::function<uint64_t()>& elem) {
  SparseA s{K, cs, std::vector<uint64_t>(16 * K, 0), std::vector<uint64_t>(16 * K / 2), std::vector<uint32_t>(16 * K / cs)};
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < K / cs; ++c) {
      int i0 = int(g.next() % 3), i1 = i0 + 1 + int(g.next() % uint32_t(3 - i0));  // 0 <= i0 < i1 <= 3
      std::vector<int> cols;
      if (cs == 2) {
        int p = int(g.next() & 1);
        s.nib[r * (K / cs) + c] = p ? 0xe : 0x4;
        cols = {2 * c + p};
      } else if (cs == 8) {
        s.nib[r * (K / cs) + c] = uint32_t(i0 | i1 << 2);
        cols = {8 * c + 2 * i0, 8 * c + 2 * i0 + 1, 8 * c + 2 * i1, 8 * c + 2 * i1 + 1};
      } else {
        s.nib[r * (K / cs) + c] = uint32_t(i0 | i1 << 2);
        cols = {4 * c + i0, 4 * c + i1};
      }
      for (size_t i = 0; i < cols.size(); ++i) {
        uint64_t v = elem();
        s.dense[r * K + cols[i]] = v;
        s.comp[r * (K / 2) + c * int(cols.size()) + int(i)] = v;
      }
    }
  return s;
}

// Metadata registers of the 32 lanes for selector `sel` (ISA 9.7.14.6.2 metadata figures; the
// integer arrangement was measured on an H100, validation/mma). Lanes the selector does not name get
// valid metadata of another matrix, so reading the wrong lane shows.
std::vector<uint32_t> sparse_meta(Rng& g, const SparseA& a, bool isint, int sel) {
  int nchunk = a.K / a.cs, T = nchunk / 4;
  std::vector<uint32_t> e(32);
  for (auto& w : e) w = a.cs == 2 ? 0x44e4e44eu ^ (g.next() & 0xa0a0a0au) : 0x84c9d8e4u;
  for (int grp = 0; grp < 8; ++grp)
    for (int h = 0; h < T; ++h) {
      uint32_t w = 0;
      for (int j = 0; j < 8; ++j) {
        // float types: lane h holds chunks 4h..4h+3 of rows g (low half) and g+8 (high half);
        // integer types: lane 2p holds chunks 8p..8p+7 of row g, lane 2p+1 of row g+8.
        int row = isint ? grp + 8 * (h & 1) : grp + 8 * (j / 4);
        int chunk = isint ? 8 * (h / 2) + j : 4 * h + j % 4;
        w |= a.nib[row * nchunk + chunk] << (4 * j);
      }
      e[4 * grp + sel * T + h] = w;
    }
  return e;
}

// One mma.sp on registers loaded per lane from `in` (20 words: A 0-3, B 4-7, C 8-15, e 16); D goes to
// out (8 words per lane). Float accumulators use .f32 registers.
std::string reg20_kernel(const std::string& instr, int na, int nb, int nc, int nd, bool cf32, bool df32, int sel) {
  auto vec = [](const std::string& name, int n, int base) {
    std::string v = "{";
    for (int i = 0; i < n; ++i) v += (i ? ", %" : "%") + name + std::to_string(base + i);
    return v + "}";
  };
  std::string s = kHead + ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n";
  s += "  .reg .b32 %w<20>;\n  .reg .f32 %fc<8>;\n  .reg .f32 %fd<8>;\n  .reg .b32 %d<8>;\n  .reg .b32 %r1;\n  .reg .b64 %rd<8>;\n";
  s += "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n  mov.u32 %r1, %laneid;\n";
  s += "  mul.wide.u32 %rd3, %r1, 80;\n  add.s64 %rd4, %rd1, %rd3;\n  mul.wide.u32 %rd5, %r1, 32;\n  add.s64 %rd6, %rd2, %rd5;\n";
  for (int i = 0; i < 17; ++i) s += "  ld.global.b32 %w" + std::to_string(i) + ", [%rd4+" + std::to_string(4 * i) + "];\n";
  for (int i = 0; i < nc && cf32; ++i) s += "  mov.b32 %fc" + std::to_string(i) + ", %w" + std::to_string(8 + i) + ";\n";
  s += "  " + instr + " " + (df32 ? vec("fd", nd, 0) : vec("d", nd, 0)) + ", " + vec("w", na, 0) + ", " + vec("w", nb, 4) + ", " +
       (cf32 ? vec("fc", nc, 0) : vec("w", nc, 8));
  if (sel >= 0) s += ", %w16, " + std::to_string(sel);
  s += ";\n";
  for (int i = 0; i < nd; ++i)
    s += "  st.global.b32 [%rd6+" + std::to_string(4 * i) + "], " + (df32 ? "%fd" : "%d") + std::to_string(i) + ";\n";
  s += "  ret;\n}\n";
  return s;
}

std::vector<uint32_t> run_reg20(const std::string& kernel, const std::vector<uint32_t>& in) {
  Harness h;
  if (!h.load(kernel)) return {};
  uint64_t din = h.upload(in), dout = h.alloc(32 * 8 * 4);
  auto res = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
  EXPECT_TRUE(res.ok()) << res.report();
  return h.download<uint32_t>(dout, 32 * 8);
}

enum class SpK { F16, BF16, TF32, S8, U8, S4, U4 };

// Random 2:4 sparse A (full-precision values for float types, so the single rounding of the exact
// sum is checked too), dense B and C; D compared with the dense product of the uncompressed A.
void sparse_case(SpK kind, int K, bool acc16, int sel, bool ordered, bool sat) {
  static const char* names[] = {"f16", "bf16", "tf32", "s8", "u8", "s4", "u4"};
  std::string kn = names[int(kind)];
  bool isint = kind >= SpK::S8;
  std::string acc = isint ? "s32" : acc16 ? "f16" : "f32";
  std::string instr = std::string(ordered ? "mma.sp::ordered_metadata" : "mma.sp") + ".sync.aligned.m16n8k" +
                      std::to_string(K) + ".row.col" + (sat ? ".satfinite" : "") + "." + acc + "." + kn + "." + kn + "." + acc;
  SCOPED_TRACE(instr + " selector " + std::to_string(sel));
  int eb = kind == SpK::TF32 ? 32 : (kind == SpK::F16 || kind == SpK::BF16) ? 16 : (kind == SpK::S8 || kind == SpK::U8) ? 8 : 4;
  int epr = 32 / eb, cs = kind == SpK::TF32 ? 2 : eb == 4 ? 8 : 4;
  Rng g{uint64_t(K * 31 + int(kind) * 7 + sel * 3 + acc16 + ordered * 5)};
  auto elem = [&]() -> uint64_t {
    double d = (int(g.next() % 2000001) - 1000000) / 600000.0;
    switch (kind) {
      case SpK::F16: return f16_of(d);
      case SpK::BF16: return bf16_of(d);
      case SpK::TF32: return bits_of(float(d) * 1.0001f);  // low 13 bits set: ignored by tf32
      default: return g.next() & ((1u << eb) - 1);
    }
  };
  auto val = [&](uint64_t b) -> double {
    switch (kind) {
      case SpK::F16: return f16_val(uint16_t(b));
      case SpK::BF16: return bf16_val(uint16_t(b));
      case SpK::TF32: return f32_of_bits(uint32_t(b) & 0xffffe000u);
      case SpK::S8: return int8_t(uint8_t(b));
      case SpK::S4: return (b & 8) ? int(b & 15) - 16 : int(b & 15);
      default: return double(b);
    }
  };
  SparseA a = make_sparse_a(g, K, cs, elem);
  std::vector<uint64_t> B(K * 8);
  for (auto& v : B) v = elem();
  std::vector<double> C(16 * 8);
  for (size_t i = 0; i < C.size(); ++i) {
    if (isint) C[i] = i == 3 ? 2147483000.0 : i == 40 ? -2147482000.0 : double(int32_t(g.next() % 200001) - 100000);
    else C[i] = acc16 ? f16_val(f16_of((int(g.next() % 20001) - 10000) / 1000.0)) : (int(g.next() % 20001) - 10000) / 7.0f;
  }
  std::vector<uint32_t> e = sparse_meta(g, a, isint, sel);
  std::vector<uint32_t> in(32 * 20, 0);
  int na = 16 * (K / 2) * eb / 1024, nb = K * 8 * eb / 1024, nc = acc16 ? 2 : 4;
  for (int l = 0; l < 32; ++l) {
    int grp = l >> 2, t = l & 3;
    // A: the compressed 16 x K/2 matrix in the dense m16n8k(K/2) layout: register r holds row
    // grp (+8 for odd r), compressed columns t*epr .. t*epr+epr-1 (+4*epr for r >= 2).
    for (int r = 0; r < na; ++r)
      for (int j = 0; j < epr; ++j)
        in[l * 20 + r] |= uint32_t(a.comp[(grp + 8 * (r % 2)) * (K / 2) + t * epr + j + (r / 2) * 4 * epr]) << (j * eb % 32);
    // B (K x 8): register r holds rows t*epr + j + 4*epr*r of column grp.
    for (int r = 0; r < nb; ++r)
      for (int j = 0; j < epr; ++j) in[l * 20 + 4 + r] |= uint32_t(B[(t * epr + j + 4 * epr * r) * 8 + grp]) << (j * eb % 32);
    for (int i = 0; i < 4; ++i) {
      double cv = C[(grp + 8 * (i / 2)) * 8 + 2 * t + i % 2];
      if (isint) in[l * 20 + 8 + i] = uint32_t(int32_t(cv));
      else if (acc16) in[l * 20 + 8 + i / 2] |= uint32_t(f16_of(cv)) << (16 * (i % 2));
      else in[l * 20 + 8 + i] = bits_of(float(cv));
    }
    in[l * 20 + 16] = e[l];
  }
  auto out = run_reg20(reg20_kernel(instr, na, nb, nc, nc, !isint && !acc16, !isint && !acc16, sel), in);
  ASSERT_EQ(out.size(), 256u);
  int bad = 0;
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      int row = (l >> 2) + 8 * (i / 2), col = 2 * (l & 3) + i % 2;
      std::vector<double> p;
      double exact = C[row * 8 + col];
      for (int k = 0; k < K; ++k) {
        p.push_back(val(a.dense[row * K + k]) * val(B[k * 8 + col]));
        exact += p.back();
      }
      uint32_t want, got = acc16 ? (out[l * 8 + i / 2] >> (16 * (i % 2))) & 0xffff : out[l * 8 + i];
      if (isint) {
        double w = sat ? std::min(std::max(exact, -2147483648.0), 2147483647.0) : exact;
        want = uint32_t(int64_t(w));
      } else {
        want = acc16 ? exact_f16(C[row * 8 + col], p) : bits_of(exact_f32(C[row * 8 + col], p));
      }
      if (got != want && bad++ < 5)
        ADD_FAILURE() << "D[" << row << "][" << col << "] = 0x" << std::hex << got << ", want 0x" << want;
    }
  EXPECT_EQ(bad, 0);
}

TEST(MmaSp, F16AllSelectors) {
  for (int sel = 0; sel < 4; ++sel) {
    sparse_case(SpK::F16, 16, false, sel, false, false);
    sparse_case(SpK::F16, 16, true, sel, false, false);
  }
  for (int sel = 0; sel < 2; ++sel) {
    sparse_case(SpK::F16, 32, false, sel, false, false);
    sparse_case(SpK::F16, 32, true, sel, true, false);
  }
}
TEST(MmaSp, Bf16) {
  sparse_case(SpK::BF16, 16, false, 2, false, false);
  sparse_case(SpK::BF16, 32, false, 1, true, false);
}
TEST(MmaSp, Tf32) {
  for (int sel = 0; sel < 4; ++sel) sparse_case(SpK::TF32, 8, false, sel, false, false);
  sparse_case(SpK::TF32, 16, false, 0, false, false);
  sparse_case(SpK::TF32, 16, false, 1, true, false);
}
TEST(MmaSp, Int8) {
  sparse_case(SpK::S8, 32, false, 0, false, true);
  sparse_case(SpK::U8, 32, false, 1, true, false);
  sparse_case(SpK::S8, 64, false, 0, false, true);
  sparse_case(SpK::U8, 64, false, 0, false, false);
}
TEST(MmaSp, Int4) {
  sparse_case(SpK::S4, 64, false, 1, false, true);
  sparse_case(SpK::U4, 64, false, 0, true, false);
  sparse_case(SpK::S4, 128, false, 0, false, true);
  sparse_case(SpK::U4, 128, false, 0, false, false);
}

// The registers and results of every mma.sp form and selector and of the mma.m8n8k4 .f16 forms as
// an H100 computed them (validation/mma/mma_layout.cu: 128-byte instruction name, selector, 32 x 20
// input words, 32 x 8 output words per record). The simulator must reproduce every output word.
TEST(MmaSp, MatchesH100Recordings) {
  std::string path = std::string(WARPSIM_SOURCE_DIR) + "/validation/mma/h100_mma_layout.bin";
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr) << path;
  int records = 0;
  for (;;) {
    char name[128];
    int32_t sel;
    std::vector<uint32_t> in(640), want(256);
    if (std::fread(name, 1, 128, f) != 128) break;
    ASSERT_EQ(std::fread(&sel, 4, 1, f), 1u);
    ASSERT_EQ(std::fread(in.data(), 4, 640, f), 640u);
    ASSERT_EQ(std::fread(want.data(), 4, 256, f), 256u);
    name[127] = 0;
    std::string instr = name;
    SCOPED_TRACE(instr + " selector " + std::to_string(sel));
    // The shape and the last four type modifiers (.dtype.atype.btype.ctype) give the register counts.
    std::vector<std::string> parts;
    for (size_t p = 0, q; p <= instr.size(); p = q + 1) {
      q = instr.find('.', p);
      if (q == std::string::npos) q = instr.size();
      parts.push_back(instr.substr(p, q - p));
    }
    ASSERT_GE(parts.size(), 5u);
    std::string dt = parts[parts.size() - 4], at = parts[parts.size() - 3], ct = parts[parts.size() - 1];
    bool sparse = instr.rfind("mma.sp", 0) == 0;
    int K = std::stoi(instr.substr(instr.find(".m") + 1).substr(instr.substr(instr.find(".m") + 1).find('k') + 1));
    int na, nb, nc, nd;
    if (!sparse) {
      na = nb = 2;
      nc = ct == "f16" ? 4 : 8;
      nd = dt == "f16" ? 4 : 8;
    } else {
      int eb = at == "tf32" ? 32 : (at == "f16" || at == "bf16") ? 16 : (at == "s8" || at == "u8") ? 8 : 4;
      na = 16 * (K / 2) * eb / 1024;
      nb = K * 8 * eb / 1024;
      nc = ct == "f16" ? 2 : 4;
      nd = dt == "f16" ? 2 : 4;
    }
    auto got = run_reg20(reg20_kernel(instr, na, nb, nc, nd, ct == "f32", dt == "f32", sparse ? sel : -1), in);
    ASSERT_EQ(got.size(), 256u);
    int bad = 0;
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < nd; ++i)
        if (got[l * 8 + i] != want[l * 8 + i] && bad++ < 3)
          ADD_FAILURE() << "lane " << l << " d" << i << " = 0x" << std::hex << got[l * 8 + i] << ", H100 0x" << want[l * 8 + i];
    EXPECT_EQ(bad, 0);
    ++records;
  }
  std::fclose(f);
  EXPECT_EQ(records, 45);
}

// mma.m8n8k4 with .f16 inputs: four independent 8x8x4 products, one per quad pair, in the fragment
// layouts of ISA 9.7.14.5.1 (written out here per layout).
void quadpair_case(bool acol, bool bcol, bool c16, bool d16) {
  std::string instr = std::string("mma.sync.aligned.m8n8k4.") + (acol ? "col" : "row") + "." + (bcol ? "col" : "row") + "." +
                      (d16 ? "f16" : "f32") + ".f16.f16." + (c16 ? "f16" : "f32");
  SCOPED_TRACE(instr);
  Rng g{uint64_t(acol + 2 * bcol + 4 * c16 + 8 * d16)};
  double A[4][8][4], B[4][4][8], C[4][8][8];
  auto h = [&](double scale) { return f16_val(f16_of((int(g.next() % 2000001) - 1000000) / 1000000.0 * scale)); };
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        if (j < 4) A[p][i][j] = h(3);
        if (i < 4) B[p][i][j] = h(3);
        C[p][i][j] = c16 ? h(20) : (int(g.next() % 20001) - 10000) / 7.0f;
      }
  std::vector<uint32_t> in(32 * 20, 0);
  for (int l = 0; l < 32; ++l) {
    int p = (l % 16) / 4, t = l % 4, hi = l >= 16 ? 4 : 0;
    for (int i = 0; i < 4; ++i) {
      double a = acol ? A[p][i + hi][t] : A[p][t + hi][i];
      double b = bcol ? B[p][i][t + hi] : B[p][t][i + hi];
      in[l * 20 + i / 2] |= uint32_t(f16_of(a)) << (16 * (i % 2));
      in[l * 20 + 4 + i / 2] |= uint32_t(f16_of(b)) << (16 * (i % 2));
    }
    for (int i = 0; i < 8; ++i) {
      if (c16) in[l * 20 + 8 + i / 2] |= uint32_t(f16_of(C[p][t + hi][i])) << (16 * (i % 2));
      else in[l * 20 + 8 + i] = bits_of(float(C[p][(l & 1) + (i & 2) + hi][(i & 4) + (l & 2) + (i & 1)]));
    }
  }
  auto out = run_reg20(reg20_kernel(instr, 2, 2, c16 ? 4 : 8, d16 ? 4 : 8, !c16, !d16, -1), in);
  ASSERT_EQ(out.size(), 256u);
  int bad = 0;
  for (int l = 0; l < 32; ++l) {
    int p = (l % 16) / 4, t = l % 4, hi = l >= 16 ? 4 : 0;
    for (int i = 0; i < 8; ++i) {
      int row = d16 ? t + hi : (l & 1) + (i & 2) + hi, col = d16 ? i : (i & 4) + (l & 2) + (i & 1);
      std::vector<double> prods;
      for (int k = 0; k < 4; ++k) prods.push_back(A[p][row][k] * B[p][k][col]);
      uint32_t want = d16 ? exact_f16(C[p][row][col], prods) : bits_of(exact_f32(C[p][row][col], prods));
      uint32_t got = d16 ? (out[l * 8 + i / 2] >> (16 * (i % 2))) & 0xffff : out[l * 8 + i];
      if (got != want && bad++ < 5)
        ADD_FAILURE() << "quad pair " << p << " D[" << row << "][" << col << "] = 0x" << std::hex << got << ", want 0x" << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(Mma, M8N8K4F16QuadPairs) {
  for (bool ac : {false, true})
    for (bool bc : {false, true}) quadpair_case(ac, bc, false, false);
  quadpair_case(false, true, true, true);
  quadpair_case(true, false, true, false);
}

// ------------------------------------------------------------------ ldmatrix / stmatrix / movmatrix

// Four 8x8 b16 matrices in shared memory with a 48-byte row pitch; lane l gives the address of row
// l%8 of matrix l/8. The loaded registers are stored to out[lane*4 + j]; stmatrix writes them back
// to a second shared area that is copied to out2.
std::string ldmatrix_kernel(int nmat, bool trans) {
  std::string x = ".x" + std::to_string(nmat), tr = trans ? ".trans" : "";
  std::string regs = "{";
  for (int j = 0; j < nmat; ++j) regs += (j ? ", %q" : "%q") + std::to_string(j);
  regs += "}";
  std::string s = kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 out2)
{
  .shared .align 16 .b8 sm[1536];
  .shared .align 16 .b8 sm2[1536];
  .reg .b32 %r<16>;
  .reg .b32 %q<4>;
  .reg .b64 %rd<16>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd9, [out2];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, 0;
LOOP:
  shl.b32 %r3, %r2, 5;
  add.u32 %r3, %r3, %r1;          // word index
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r4, [%rd4];
  mov.u32 %r5, sm;
  shl.b32 %r6, %r3, 2;
  add.u32 %r5, %r5, %r6;
  st.shared.u32 [%r5], %r4;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 12;
  @%p1 bra LOOP;
  bar.sync 0;
  // row address: (lane/8)*384 + (lane%8)*48
  shr.u32 %r7, %r1, 3;
  and.b32 %r8, %r1, 7;
  mul.lo.u32 %r7, %r7, 384;
  mad.lo.u32 %r7, %r8, 48, %r7;
  mov.u32 %r9, sm;
  add.u32 %r10, %r9, %r7;
  ldmatrix.sync.aligned.m8n8X.shared.b16 REGS, [%r10];
  mov.u32 %r11, sm2;
  add.u32 %r12, %r11, %r7;
  stmatrix.sync.aligned.m8n8X.shared.b16 [%r12], REGS;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
)";
  for (int j = 0; j < nmat; ++j) s += "  st.global.u32 [%rd6+" + std::to_string(4 * j) + "], %q" + std::to_string(j) + ";\n";
  s += R"(
  bar.sync 0;
  mov.u32 %r2, 0;
LOOP2:
  shl.b32 %r3, %r2, 5;
  add.u32 %r3, %r3, %r1;
  shl.b32 %r6, %r3, 2;
  add.u32 %r5, %r11, %r6;
  ld.shared.u32 %r4, [%r5];
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd9, %rd3;
  st.global.u32 [%rd4], %r4;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 12;
  @%p1 bra LOOP2;
  ret;
}
)";
  for (auto [key, val] : {std::pair<std::string, std::string>{"X", x + tr}, {"REGS", regs}})
    for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + val.size())) {
      if (key == "X" && s.compare(p - 4, 4, "m8n8") != 0) { p += 1; continue; }
      s.replace(p, key.size(), val);
    }
  return s;
}

TEST(Ldmatrix, AllCountsAndTrans) {
  for (int nmat : {1, 2, 4})
    for (bool trans : {false, true}) {
      SCOPED_TRACE("x" + std::to_string(nmat) + (trans ? ".trans" : ""));
      std::vector<uint16_t> smem(768);
      for (size_t i = 0; i < smem.size(); ++i) smem[i] = uint16_t(i * 37 + 11);
      auto M = [&](int j, int r, int c) { return smem[(j * 384 + r * 48) / 2 + c]; };
      Harness h;
      ASSERT_TRUE(h.load(ldmatrix_kernel(nmat, trans)));
      uint64_t din = h.upload(smem), dout = h.alloc(32 * 16), dout2 = h.alloc(1536);
      auto res = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout).add(dout2));
      ASSERT_TRUE(res.ok()) << res.report();
      auto got = h.download<uint32_t>(dout, 32 * 4);
      auto back = h.download<uint16_t>(dout2, 768);
      for (int t = 0; t < 32; ++t)
        for (int j = 0; j < nmat; ++j) {
          // ISA figure: thread t holds row t/4, elements 2*(t%4) and 2*(t%4)+1 (of the transpose with .trans)
          int r = t / 4, c = 2 * (t % 4);
          uint32_t want = trans ? (uint32_t(M(j, c, r)) | uint32_t(M(j, c + 1, r)) << 16)
                                : (uint32_t(M(j, r, c)) | uint32_t(M(j, r, c + 1)) << 16);
          EXPECT_EQ(got[t * 4 + j], want) << "lane " << t << " matrix " << j;
        }
      // stmatrix with the same shape/trans is the inverse: the rows come back unchanged
      for (int j = 0; j < nmat; ++j)
        for (int r = 0; r < 8; ++r)
          for (int c = 0; c < 8; ++c) EXPECT_EQ(back[(j * 384 + r * 48) / 2 + c], M(j, r, c));
    }
}

TEST(Movmatrix, Transposes) {
  Harness h;
  std::string k = kHead + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r3;
  ret;
}
)";
  ASSERT_TRUE(h.load(k));
  std::vector<uint32_t> in(32);
  uint16_t M[8][8];
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) M[r][c] = uint16_t(r * 8 + c + 0x100);
  for (int t = 0; t < 32; ++t) in[t] = M[t / 4][2 * (t % 4)] | uint32_t(M[t / 4][2 * (t % 4) + 1]) << 16;
  uint64_t din = h.upload(in), dout = h.alloc(128);
  auto res = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(din).add(dout));
  ASSERT_TRUE(res.ok()) << res.report();
  auto got = h.download<uint32_t>(dout, 32);
  for (int t = 0; t < 32; ++t) {
    int r = t / 4, c = 2 * (t % 4);
    EXPECT_EQ(got[t], M[c][r] | uint32_t(M[c + 1][r]) << 16) << "lane " << t;
  }
}

// ------------------------------------------------------------------ wmma

// D = A*B + C with A (row or col major), B (row or col), C/D row-major f32, through global memory.
std::string wmma_kernel(const std::string& shape, const std::string& al, const std::string& bl, const std::string& it,
                        int na, int nb, int lda, int ldb, int ldc) {
  auto vec = [](const std::string& name, int n) {
    std::string v = "{";
    for (int i = 0; i < n; ++i) v += (i ? ", %" : "%") + name + std::to_string(i);
    return v + "}";
  };
  std::string s = kHead + ".visible .entry k(.param .u64 A, .param .u64 B, .param .u64 C, .param .u64 D)\n{\n";
  s += "  .reg .b32 %a<16>;\n  .reg .b32 %b<16>;\n  .reg .f32 %c<8>;\n  .reg .f32 %d<8>;\n  .reg .b64 %rd<8>;\n";
  s += "  ld.param.u64 %rd1, [A];\n  ld.param.u64 %rd2, [B];\n  ld.param.u64 %rd3, [C];\n  ld.param.u64 %rd4, [D];\n";
  s += "  wmma.load.a.sync.aligned." + al + "." + shape + ".global." + it + " " + vec("a", na) + ", [%rd1], " + std::to_string(lda) + ";\n";
  s += "  wmma.load.b.sync.aligned." + bl + "." + shape + ".global." + it + " " + vec("b", nb) + ", [%rd2], " + std::to_string(ldb) + ";\n";
  s += "  wmma.load.c.sync.aligned.row." + shape + ".global.f32 " + vec("c", 8) + ", [%rd3], " + std::to_string(ldc) + ";\n";
  std::string types = it == "f16" ? ".f32.f32" : ".f32." + it + "." + it + ".f32";
  s += "  wmma.mma.sync.aligned." + al + "." + bl + "." + shape + types + " " + vec("d", 8) + ", " + vec("a", na) + ", " +
       vec("b", nb) + ", " + vec("c", 8) + ";\n";
  s += "  wmma.store.d.sync.aligned.row." + shape + ".global.f32 [%rd4], " + vec("d", 8) + ", " + std::to_string(ldc) + ";\n";
  s += "  ret;\n}\n";
  return s;
}

void wmma_case(int M, int N, int K, const std::string& it, bool acol, bool bcol) {
  SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " " + it + (acol ? " Acol" : " Arow") + (bcol ? " Bcol" : " Brow"));
  Rng g{uint64_t(M + N * 3 + K * 5 + acol + 2 * bcol)};
  int lda = (acol ? M : K) + 8, ldb = (bcol ? K : N) + 8, ldc = N + 4;
  std::vector<double> a(M * K), b(K * N);
  std::vector<uint16_t> A16(lda * (acol ? K : M)), B16(ldb * (bcol ? N : K));
  std::vector<float> A32(A16.size()), B32(B16.size());
  auto mk = [&](double& v, size_t idx, std::vector<uint16_t>& v16, std::vector<float>& v32) {
    double d = (int(g.next() % 2000001) - 1000000) / 700000.0;
    if (it == "f16") { v16[idx] = f16_of(d); v = f16_val(v16[idx]); }
    else if (it == "bf16") { v16[idx] = bf16_of(d); v = bf16_val(v16[idx]); }
    else { v32[idx] = float(d); v = f32_of_bits(bits_of(float(d)) & 0xffffe000u); }
  };
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) mk(a[i * K + k], acol ? k * lda + i : i * lda + k, A16, A32);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) mk(b[k * N + j], bcol ? j * ldb + k : k * ldb + j, B16, B32);
  std::vector<float> C(M * ldc);
  for (auto& v : C) v = (int(g.next() % 20001) - 10000) / 3.0f;
  int per = it == "tf32" ? 1 : 2;
  int na = it == "f16" ? 8 : M * K / 32 / per, nb = it == "f16" ? 8 : K * N / 32 / per;
  std::string shape = "m" + std::to_string(M) + "n" + std::to_string(N) + "k" + std::to_string(K);
  Harness h;
  ASSERT_TRUE(h.load(wmma_kernel(shape, acol ? "col" : "row", bcol ? "col" : "row", it, na, nb, lda, ldb, ldc)));
  uint64_t dA = it == "tf32" ? h.upload(A32) : h.upload(A16), dB = it == "tf32" ? h.upload(B32) : h.upload(B16);
  uint64_t dC = h.upload(C), dD = h.alloc(C.size() * 4);
  auto res = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(dA).add(dB).add(dC).add(dD));
  ASSERT_TRUE(res.ok()) << res.report();
  auto got = h.download<float>(dD, C.size());
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      std::vector<double> p;
      for (int k = 0; k < K; ++k) p.push_back(a[i * K + k] * b[k * N + j]);
      float want = exact_f32(C[i * ldc + j], p);
      if (bits_of(got[i * ldc + j]) != bits_of(want) && bad++ < 5)
        ADD_FAILURE() << "D[" << i << "][" << j << "] = " << got[i * ldc + j] << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}

TEST(Wmma, F16M16N16K16AllLayouts) {
  for (bool ac : {false, true})
    for (bool bc : {false, true}) wmma_case(16, 16, 16, "f16", ac, bc);
}
TEST(Wmma, F16OtherShapes) {
  wmma_case(32, 8, 16, "f16", false, true);
  wmma_case(8, 32, 16, "f16", true, false);
}
TEST(Wmma, Bf16AndTf32) {
  wmma_case(16, 16, 16, "bf16", false, true);
  wmma_case(32, 8, 16, "bf16", true, true);
  wmma_case(16, 16, 8, "tf32", false, true);
  wmma_case(16, 16, 8, "tf32", true, false);
}


// wmma with integer, sub-byte and f64 fragments, and f16 accumulators: load A, B, C from global
// memory, mma, store D; compared with a CPU matrix product. Matrix elements in memory: s8/u8 one
// byte each; s4/u4/b1 packed, element i of a row (A, row-major) or column (B, column-major) at bit
// offset i * bits, least significant bits first; C/D row-major s32/f64/f16.
struct WmmaSpec {
  int M, N, K;
  std::string at;  // s8 u8 s4 u4 b1 f64 f16
  std::string ct;  // s32 f64 f16 f32
  std::string dt;
  bool acol, bcol;
  std::string mods;  // after the layouts and shape, before the types (e.g. .rz); popc op for b1
  bool sat;
};

int wmma_bits(const std::string& t) {
  return t == "f64" ? 64 : t == "s32" || t == "f32" ? 32 : t == "f16" ? 16 : t == "s8" || t == "u8" ? 8 : t == "b1" ? 1 : 4;
}

void wmma_generic_case(const WmmaSpec& w) {
  std::string shape = "m" + std::to_string(w.M) + "n" + std::to_string(w.N) + "k" + std::to_string(w.K);
  std::string al = w.acol ? "col" : "row", bl = w.bcol ? "col" : "row";
  SCOPED_TRACE(shape + " " + w.at + " " + w.ct + "->" + w.dt + " A" + al + " B" + bl + w.mods + (w.sat ? " sat" : ""));
  int eb = wmma_bits(w.at), epr = eb >= 32 ? 1 : 32 / eb;
  int ua = w.M * w.K / 32, ub = w.K * w.N / 32, uc = w.M * w.N / 32;
  int na = w.at == "f16" ? 8 : ua / epr, nb = w.at == "f16" ? 8 : ub / epr;
  int nc = w.ct == "f16" ? uc / 2 : uc, nd = w.dt == "f16" ? uc / 2 : uc;
  bool f64 = w.at == "f64";
  int lda = (w.acol ? w.M : w.K) + (eb < 8 ? 0 : 8), ldb = (w.bcol ? w.K : w.N) + (eb < 8 ? 0 : 8), ldc = w.N + 2;
  Rng g{uint64_t(w.M * 3 + w.K + eb + w.acol + 2 * w.bcol + w.sat * 5)};
  // A (M x K) and B (K x N) values and their memory images.
  std::vector<double> a(w.M * w.K), b(w.K * w.N), c(w.M * w.N);
  size_t abytes = size_t(lda) * (w.acol ? w.K : w.M) * eb / 8 + 8, bbytes = size_t(ldb) * (w.bcol ? w.N : w.K) * eb / 8 + 8;
  std::vector<uint8_t> Am(abytes, 0), Bm(bbytes, 0);
  auto put = [&](std::vector<uint8_t>& mem, size_t idx, uint64_t raw) {
    size_t bit = idx * eb;
    if (eb >= 8) std::memcpy(&mem[bit / 8], &raw, eb / 8);
    else mem[bit / 8] |= uint8_t((raw & ((1u << eb) - 1)) << (bit % 8));
  };
  auto elem = [&](double& v) -> uint64_t {
    if (f64) { v = (int(g.next() % 2000001) - 1000000) / 997.0; return std::bit_cast<uint64_t>(v); }
    if (w.at == "f16") { uint16_t h = f16_of((int(g.next() % 2000001) - 1000000) / 500000.0); v = f16_val(h); return h; }
    uint64_t raw = g.next() & ((1ull << eb) - 1);
    bool sgn = w.at[0] == 's' && (raw >> (eb - 1) & 1);
    v = sgn ? double(int64_t(raw) - (int64_t(1) << eb)) : double(raw);
    return raw;
  };
  for (int i = 0; i < w.M; ++i)
    for (int k = 0; k < w.K; ++k) put(Am, w.acol ? size_t(k) * lda + i : size_t(i) * lda + k, elem(a[i * w.K + k]));
  for (int k = 0; k < w.K; ++k)
    for (int j = 0; j < w.N; ++j) put(Bm, w.bcol ? size_t(j) * ldb + k : size_t(k) * ldb + j, elem(b[k * w.N + j]));
  int cb = wmma_bits(w.ct);
  std::vector<uint8_t> Cm(size_t(ldc) * w.M * 8, 0);
  for (int i = 0; i < w.M; ++i)
    for (int j = 0; j < w.N; ++j) {
      double& v = c[i * w.N + j];
      uint64_t raw;
      if (w.ct == "s32") {
        int32_t x = (i + j) % 5 == 0 ? INT32_MAX - int32_t(g.next() % 3000) : (i + j) % 5 == 1 ? INT32_MIN + int32_t(g.next() % 3000)
                                                                                              : int32_t(g.next() % 200001) - 100000;
        v = x;
        raw = uint32_t(x);
      } else if (w.ct == "f64") {
        v = (int(g.next() % 2000001) - 1000000) / 991.0;
        raw = std::bit_cast<uint64_t>(v);
      } else if (w.ct == "f16") {
        uint16_t h = f16_of((int(g.next() % 20001) - 10000) / 100.0);
        v = f16_val(h);
        raw = h;
      } else {
        float f = (int(g.next() % 20001) - 10000) / 7.0f;
        v = f;
        raw = bits_of(f);
      }
      std::memcpy(&Cm[(size_t(i) * ldc + j) * cb / 8], &raw, cb / 8);
    }
  auto vec = [](const std::string& name, int n) {
    std::string v = "{";
    for (int i = 0; i < n; ++i) v += (i ? ", %" : "%") + name + std::to_string(i);
    return v + "}";
  };
  std::string rt = f64 ? ".f64" : ".b32";
  std::string crt = w.ct == "f64" ? ".f64" : w.ct == "f32" ? ".f32" : w.ct == "s32" ? ".s32" : ".b32";
  std::string drt = w.dt == "f64" ? ".f64" : w.dt == "f32" ? ".f32" : w.dt == "s32" ? ".s32" : ".b32";
  std::string k = kHead + ".visible .entry k(.param .u64 A, .param .u64 B, .param .u64 C, .param .u64 D)\n{\n";
  k += "  .reg " + rt + " %a<8>;\n  .reg " + rt + " %b<8>;\n  .reg " + crt + " %c<8>;\n  .reg " + drt + " %d<8>;\n  .reg .b64 %rd<8>;\n";
  k += "  ld.param.u64 %rd1, [A];\n  ld.param.u64 %rd2, [B];\n  ld.param.u64 %rd3, [C];\n  ld.param.u64 %rd4, [D];\n";
  k += "  wmma.load.a.sync.aligned." + al + "." + shape + ".global." + w.at + " " + vec("a", na) + ", [%rd1], " + std::to_string(lda) + ";\n";
  k += "  wmma.load.b.sync.aligned." + bl + "." + shape + ".global." + w.at + " " + vec("b", nb) + ", [%rd2], " + std::to_string(ldb) + ";\n";
  k += "  wmma.load.c.sync.aligned.row." + shape + ".global." + w.ct + " " + vec("c", nc) + ", [%rd3], " + std::to_string(ldc) + ";\n";
  std::string types = w.at == "f16" ? "." + w.dt + "." + w.ct : "." + w.dt + "." + w.at + "." + w.at + "." + w.ct;
  std::string pre = w.at == "b1" ? "wmma.mma" + w.mods + ".sync.aligned." : "wmma.mma.sync.aligned.";
  std::string mid = w.at == "b1" ? "" : w.mods;
  k += "  " + pre + al + "." + bl + "." + shape + mid + types + (w.sat ? ".satfinite" : "") + " " + vec("d", nd) + ", " +
       vec("a", na) + ", " + vec("b", nb) + ", " + vec("c", nc) + ";\n";
  k += "  wmma.store.d.sync.aligned.row." + shape + ".global." + w.dt + " [%rd4], " + vec("d", nd) + ", " + std::to_string(ldc) + ";\n";
  k += "  ret;\n}\n";
  Harness h;
  ASSERT_TRUE(h.load(k));
  uint64_t dA = h.upload(Am), dB = h.upload(Bm), dC = h.upload(Cm), dD = h.alloc(Cm.size());
  auto res = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(dA).add(dB).add(dC).add(dD));
  ASSERT_TRUE(res.ok()) << res.report();
  auto Dm = h.download<uint8_t>(dD, Cm.size());
  int bad = 0, db = wmma_bits(w.dt);
  for (int i = 0; i < w.M; ++i)
    for (int j = 0; j < w.N; ++j) {
      uint64_t got = 0, want = 0;
      std::memcpy(&got, &Dm[(size_t(i) * ldc + j) * db / 8], db / 8);
      if (w.ct == "s32") {
        int64_t acc = int64_t(c[i * w.N + j]);
        for (int kk = 0; kk < w.K; ++kk) {
          int64_t x = int64_t(a[i * w.K + kk]), y = int64_t(b[kk * w.N + j]);
          acc += w.at == "b1" ? (w.mods == ".and.popc" ? (x & y) : (x ^ y)) : x * y;
        }
        if (w.sat) acc = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
        want = uint32_t(acc);
      } else if (f64) {
        int mode = w.mods == ".rz" ? FE_TOWARDZERO : w.mods == ".rm" ? FE_DOWNWARD : w.mods == ".rp" ? FE_UPWARD : FE_TONEAREST;
        volatile double acc = c[i * w.N + j];
        int old = std::fegetround();
        std::fesetround(mode);
        for (int kk = 0; kk < w.K; ++kk) acc = std::fma(a[i * w.K + kk], b[kk * w.N + j], acc);
        std::fesetround(old);
        want = std::bit_cast<uint64_t>(double(acc));
      } else {
        std::vector<double> p;
        for (int kk = 0; kk < w.K; ++kk) p.push_back(a[i * w.K + kk] * b[kk * w.N + j]);
        want = w.dt == "f16" ? exact_f16(c[i * w.N + j], p) : bits_of(exact_f32(c[i * w.N + j], p));
      }
      if (got != want && bad++ < 5)
        ADD_FAILURE() << "D[" << i << "][" << j << "] = 0x" << std::hex << got << ", want 0x" << want;
    }
  EXPECT_EQ(bad, 0);
}

TEST(Wmma, Int8AllShapesAndLayouts) {
  for (bool ac : {false, true})
    for (bool bc : {false, true}) wmma_generic_case({16, 16, 16, "s8", "s32", "s32", ac, bc, "", true});
  wmma_generic_case({32, 8, 16, "u8", "s32", "s32", false, true, "", false});
  wmma_generic_case({8, 32, 16, "s8", "s32", "s32", true, false, "", false});
  wmma_generic_case({32, 8, 16, "u8", "s32", "s32", true, true, "", true});
}
TEST(Wmma, Int4AndB1) {
  wmma_generic_case({8, 8, 32, "s4", "s32", "s32", false, true, "", true});
  wmma_generic_case({8, 8, 32, "u4", "s32", "s32", false, true, "", false});
  wmma_generic_case({8, 8, 128, "b1", "s32", "s32", false, true, ".xor.popc", false});
  wmma_generic_case({8, 8, 128, "b1", "s32", "s32", false, true, ".and.popc", false});
}
TEST(Wmma, F64AllRoundings) {
  for (const char* r : {"", ".rn", ".rz", ".rm", ".rp"}) wmma_generic_case({8, 8, 4, "f64", "f64", "f64", false, true, r, false});
  wmma_generic_case({8, 8, 4, "f64", "f64", "f64", true, false, "", false});
}
TEST(Wmma, F16Accumulators) {
  wmma_generic_case({16, 16, 16, "f16", "f16", "f16", false, true, "", false});
  wmma_generic_case({32, 8, 16, "f16", "f16", "f32", true, false, "", false});
  wmma_generic_case({8, 32, 16, "f16", "f32", "f16", false, false, "", false});
}

TEST(Wmma, InvalidFormsFailToLoad) {
  // Each rejected by ptxas for sm_80 (CUDA 13): sub-byte A must be .row, B .col; .satfinite is for
  // integers; mixed s8/u8; rounding modes only for f64; no s8 m8n8k32.
  const char* bad[] = {
      "wmma.load.a.sync.aligned.col.m8n8k32.global.s4 {%r0}, [%rd1], 32;",
      "wmma.load.b.sync.aligned.row.m8n8k128.global.b1 {%r0}, [%rd1], 128;",
      "wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16.satfinite {%r0, %r1, %r2, %r3}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3};",
      "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1}, {%r2, %r3}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7};",
      "wmma.mma.sync.aligned.col.col.m8n8k32.s32.u4.u4.s32 {%r0, %r1}, {%r2}, {%r3}, {%r4, %r5};",
      "wmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
      "wmma.load.a.sync.aligned.row.m8n8k32.global.s8 {%r0}, [%rd1], 32;",
      "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0, %r1}, {%r2}, {%r3}, {%r4, %r5};",
  };
  for (const char* ins : bad) expect_load_error(ins, "wmma");
}

}  // namespace

// ------------------------------------------------------------------ wgmma (sm_90a)

namespace warpsim::test_wgmma {

using func::WgmmaDesc;
using func::wgmma_smem_address;

uint64_t desc(uint32_t start, uint32_t lbo, uint32_t sbo, unsigned swz, unsigned base = 0) {
  return uint64_t(start >> 4) | uint64_t(lbo >> 4) << 16 | uint64_t(sbo >> 4) << 32 | uint64_t(base) << 49 |
         uint64_t(swz) << 62;
}

TEST(Wgmma, DescriptorFields) {
  // Reserved bits 14-15, 30-31, 46-48 and 52-61 are ignored.
  WgmmaDesc d = WgmmaDesc::decode(desc(0x3fff0, 0x3fff0, 0x10, 1, 5) | 0xc000ull | 0xc0000000ull | 7ull << 46 | 0x3ffull << 52);
  EXPECT_EQ(d.start, 0x3fff0u);
  EXPECT_EQ(d.lbo, 0x3fff0u);
  EXPECT_EQ(d.sbo, 0x10u);
  EXPECT_EQ(d.base_offset, 5u);
  EXPECT_EQ(d.swizzle_bytes, 128u);
  EXPECT_EQ(WgmmaDesc::decode(desc(0, 0, 0, 0)).swizzle_bytes, 0u);
  EXPECT_EQ(WgmmaDesc::decode(desc(0, 0, 0, 2)).swizzle_bytes, 64u);
  EXPECT_EQ(WgmmaDesc::decode(desc(0, 0, 0, 3)).swizzle_bytes, 32u);
}

// Offsets worked out by hand from the ISA's canonical layouts (core matrices of 8 rows x 16 bytes;
// a W-byte swizzle XORs the 16-byte chunk index with address bits 7.. modulo W/16).
TEST(Wgmma, AddressNoSwizzle) {
  // K-major f16, LBO 1024 (next 16 bytes of K), SBO 128 (next 8 rows): (9, 11) is row 1 of the
  // second row group, K byte 22 = chunk 1 byte 6: 4096 + 16 + 128 + 1024 + 6.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(4096, 1024, 128, 0)), 9, 11, 16, false), 5270u);
  // K-major e4m3 (8-bit), LBO 256, SBO 128: (2, 20) = row 2, K byte 20 = chunk 1 byte 4.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(0, 256, 128, 0)), 2, 20, 8, false), 2u * 16 + 256 + 4);
  // MN-major f16, LBO 2048 (next 8 k), SBO 128 (next 16 bytes of M/N): (21, 10) = M/N byte 42 =
  // chunk 2 byte 10, k row 2 of the second k group.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(0, 2048, 128, 0)), 21, 10, 16, true), 32u + 2048 + 256 + 10);
}

TEST(Wgmma, AddressSwizzle128B) {
  WgmmaDesc d = WgmmaDesc::decode(desc(8192, 16, 1024, 1));
  // (3, 5): row 3 of the pattern, K byte 10 in chunk 0, which row 3 moves to chunk 3.
  EXPECT_EQ(wgmma_smem_address(d, 3, 5, 16, false), 8192u + 3 * 128 + 3 * 16 + 10);
  // (12, 14): second row group (SBO), row 4, K byte 28 = chunk 1 -> 1 ^ 4 = 5.
  EXPECT_EQ(wgmma_smem_address(d, 12, 14, 16, false), 8192u + 1024 + 4 * 128 + 5 * 16 + 12);
  // MN-major, SBO 1024 (next 8 k), LBO 2048 (next 128 bytes of M/N): (70, 9) = M/N byte 140 =
  // second atom, byte 12 of chunk 0; k row 1 of the second k group -> chunk 0 ^ 1.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(0, 2048, 1024, 1)), 70, 9, 16, true), 128u + 1024 + 2048 + 16 + 12);
}

TEST(Wgmma, AddressSwizzle64B) {
  // f16 (5, 3): row 5 at 320, K byte 6 in chunk 0; address bits 7-8 = 2 -> chunk 2.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(0, 16, 512, 2)), 5, 3, 16, false), 320u + 32 + 6);
  // tf32 (9, 5) from 128: row 1 of the second group (SBO 512), K byte 20 = chunk 1 byte 4 at
  // 128 + 512 + 64 + 16 + 4 = 724; bits 7-8 = 1 -> chunk 0.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(128, 16, 512, 2)), 9, 5, 32, false), 708u);
}

TEST(Wgmma, AddressSwizzle32B) {
  // f16 (6, 9) from 1024: row 6 at 1216, K byte 18 = chunk 1 byte 2; address bit 7 = 1 -> chunk 0.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(1024, 16, 256, 3)), 6, 9, 16, false), 1218u);
  // Row 2 (at 1024 + 64, bit 7 = 0): chunk 1 stays.
  EXPECT_EQ(wgmma_smem_address(WgmmaDesc::decode(desc(1024, 16, 256, 3)), 2, 9, 16, false), 1024u + 64 + 16 + 2);
}

// One m64n8k16 f16 -> f32 by four warps: A K-major with 32-byte swizzle, B MN-major (imm-trans-b)
// without, C = 1; the layouts and the D fragment written out here from the ISA's figures.
TEST(Wgmma, M64N8K16FromSharedMemory) {
  Harness h;
  const std::string k = ".version 8.7\n.target sm_90a\n.address_size 64\n" R"(
.visible .entry wg(.param .u64 pimg, .param .u64 pdesc, .param .u64 pout)
{
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  .reg .pred p;
  .shared .align 1024 .b8 sm[4096];
  mov.u32 %r0, %tid.x;
  ld.param.u64 %rd0, [pimg];
  ld.param.u64 %rd2, [pdesc];
  ld.param.u64 %rd3, [pout];
  mul.wide.u32 %rd4, %r0, 32;
  add.u64 %rd5, %rd0, %rd4;
  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd5];
  ld.global.v4.b32 {%r6, %r7, %r8, %r9}, [%rd5+16];
  mov.u32 %r5, sm;
  cvt.u32.u64 %r10, %rd4;
  add.u32 %r11, %r5, %r10;
  st.shared.v4.b32 [%r11], {%r1, %r2, %r3, %r4};
  st.shared.v4.b32 [%r11+16], {%r6, %r7, %r8, %r9};
  bar.sync 0;
  ld.global.u64 %rd6, [%rd2];
  ld.global.u64 %rd7, [%rd2+8];
  shr.u32 %r12, %r5, 4;
  cvt.u64.u32 %rd8, %r12;
  add.u64 %rd6, %rd6, %rd8;
  add.u64 %rd7, %rd7, %rd8;
  mov.f32 %f0, 0f3F800000;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f3F800000;
  setp.eq.u32 p, %r0, %r0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd6, %rd7, p, 1, 1, 0, 1;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  mul.wide.u32 %rd9, %r0, 16;
  add.u64 %rd10, %rd3, %rd9;
  st.global.v4.f32 [%rd10], {%f0, %f1, %f2, %f3};
  ret;
}
)";
  ASSERT_TRUE(h.load(k));
  Rng rng{7};
  double A[64][16], B[16][8];
  std::vector<uint8_t> img(4096, 0);
  auto put16 = [&](uint32_t o, uint16_t v) { img[o] = uint8_t(v); img[o + 1] = uint8_t(v >> 8); };
  for (int m = 0; m < 64; ++m)
    for (int kk = 0; kk < 16; ++kk) {
      A[m][kk] = int(rng.next() % 9) - 4;
      // 32-byte swizzle: row m at (m / 8) * 256 + (m % 8) * 32; chunk kk / 8 XOR address bit 7.
      uint32_t row = (m / 8) * 256 + (m % 8) * 32, chunk = (kk / 8) ^ ((row >> 7) & 1);
      put16(row + chunk * 16 + (kk % 8) * 2, f16_of(A[m][kk]));
    }
  for (int kk = 0; kk < 16; ++kk)
    for (int n = 0; n < 8; ++n) {
      B[kk][n] = int(rng.next() % 9) - 4;
      // MN-major core matrices: k row kk % 8 at 16 bytes each, the second 8 k at LBO = 128.
      put16(2048 + (kk / 8) * 128 + (kk % 8) * 16 + n * 2, f16_of(B[kk][n]));
    }
  std::vector<uint64_t> descs = {desc(0, 16, 256, 3), desc(2048, 128, 256, 0)};
  uint64_t dimg = h.upload(img), ddesc = h.upload(descs), dout = h.alloc(128 * 16);
  auto res = h.run("wg", {1, 1, 1}, {128, 1, 1}, Harness::Params().add(dimg).add(ddesc).add(dout));
  ASSERT_TRUE(res.ok()) << res.fault.message;
  auto out = h.download<float>(dout, 128 * 4);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 4; ++i) {
      int lane = t % 32, row = 16 * (t / 32) + lane / 4 + 8 * (i >> 1), col = 2 * (lane % 4) + (i & 1);
      double want = 1;
      for (int kk = 0; kk < 16; ++kk) want += A[row][kk] * B[kk][col];
      EXPECT_EQ(out[t * 4 + i], float(want)) << "thread " << t << " d" << i;
    }
}

// Descriptors that point outside the CTA's shared memory, or use a base offset (not modelled),
// stop the kernel with a fault that says so; nothing is read from elsewhere.
TEST(Wgmma, BadDescriptorsFault) {
  const std::string k = ".version 8.7\n.target sm_90a\n.address_size 64\n" R"(
.visible .entry wg(.param .u64 pa, .param .u64 pb)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .shared .align 1024 .b8 sm[4096];
  ld.param.u64 %rd0, [pa];
  ld.param.u64 %rd1, [pb];
  mov.f32 %f0, 0f00000000;
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, 0, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  ret;
}
)";
  const uint64_t ok_a = desc(0, 16, 256, 3), ok_b = desc(2048, 128, 256, 0);  // 2 KB of A, 256 bytes of B
  struct Case {
    uint64_t a, b;
    const char* want;
  } cases[] = {
      {desc(0x3f000, 16, 256, 3), ok_b, "shared"},         // A far past the 4 KB of shared memory
      {ok_a, desc(2048, 0x3ff0, 256, 0), "shared"},         // B's second K chunk runs off the end
      {desc(0, 16, 256, 1, 3), ok_b, "base offset"},        // swizzled with a base offset
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.want);
    Harness h;
    ASSERT_TRUE(h.load(k));
    auto res = h.run("wg", {1, 1, 1}, {128, 1, 1}, Harness::Params().add(c.a).add(c.b));
    ASSERT_FALSE(res.ok());
    EXPECT_NE(res.report().find(c.want), std::string::npos) << res.report();
  }
  Harness h;
  ASSERT_TRUE(h.load(k));
  EXPECT_TRUE(h.run("wg", {1, 1, 1}, {128, 1, 1}, Harness::Params().add(ok_a).add(ok_b)).ok());
}

TEST(Wgmma, InvalidFormsFailToLoad) {
  const char* bad[] = {
      // bf16 inputs have no .f16 accumulator
      "wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r0, %r1}, %rd0, %rd1, 1, 1, 1, 0, 0;",
      // f16 is k16
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0;",
      // integer N = 40 does not exist
      "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0, %r1, %r2, %r3}, %rd0, %rd1, 1;",
      // imm-scale is 1 or -1
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 2, 1, 0, 0;",
      // .satfinite is for integers
      "wgmma.mma_async.sync.aligned.m64n8k16.satfinite.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0;",
      // tf32 has no transpose operands
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0;",
      // sparse wgmma is not implemented (refused, not run)
      "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %r0, 0, 1, 1, 1, 0, 0;",
  };
  for (const char* ins : bad) expect_load_error(ins, "wgmma");
}

}  // namespace warpsim::test_wgmma
