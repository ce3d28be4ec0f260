// Floating-point family (.f32/.f64 arithmetic in every rounding mode, .ftz/.sat, div/rcp/sqrt,
// MUFU approximations, min/max, abs/neg/copysign, testp) and comparison/selection (setp/set on every
// type, selp, slct), checked bit-exactly against CPU references (directed rounding: the host's
// fesetround, used here in the test only).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>

#include "src/func/fp_util.hpp"
#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

const std::string kHead = ".version 8.7\n.target sm_90\n.address_size 64\n";

float F(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
uint32_t B(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
double D(uint64_t b) { double d; std::memcpy(&d, &b, 8); return d; }
uint64_t B(double d) { uint64_t b; std::memcpy(&b, &d, 8); return b; }

// Interesting f32 values: zeros, ones, infinities, NaNs (quiet, signalling, negative), subnormals,
// FLT_MIN/MAX, halfway cases, then fixed-seed random bit patterns and moderate values.
std::vector<uint32_t> f32_values(unsigned nrandom = 24) {
  std::vector<uint32_t> v = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff,
                             0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00123, 0x00000001,
                             0x807fffff, 0x007fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
                             0x33800000, 0x40400000, 0x3dcccccd, 0x7149f2ca, 0x8ca2d0f5, 0x4b800001,
                             0x3fc00000, 0x34000001};
  std::mt19937 rng(1234);
  for (unsigned i = 0; i < nrandom; ++i) v.push_back(rng());
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (unsigned i = 0; i < nrandom; ++i) v.push_back(B(u(rng)));
  return v;
}

std::vector<uint64_t> f64_values(unsigned nrandom = 16) {
  std::vector<uint64_t> v = {0, 1ull << 63, B(1.0), B(-1.0), B(1.0 + 0x1p-52), 0x7ff0000000000000ull,
                             0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000000001ull, 1,
                             0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
                             B(0x1p-53), B(3.0), B(0.1), B(1e300), B(-1e-300), B(0x1p-1070)};
  std::mt19937_64 rng(99);
  for (unsigned i = 0; i < nrandom; ++i) v.push_back(rng());
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  for (unsigned i = 0; i < nrandom; ++i) v.push_back(B(u(rng)));
  return v;
}

// Runs `instr d, s0[, s1[, s2]]` once per input tuple in one straight-line single-thread kernel.
// T is uint32_t (.f32 registers) or uint64_t (.f64). Source operand k of tuple i is in[i*n + k].
template <typename T>
std::vector<T> run_ops(const std::string& instr, unsigned nsrc, const std::vector<T>& in) {
  const bool w = sizeof(T) == 8;
  const char* ty = w ? "f64" : "f32";
  const char* r = w ? "%fd" : "%f";
  size_t count = in.size() / nsrc;
  std::string body = fmt::format(
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n .reg .b64 %rd<3>;\n .reg .{} {}<5>;\n"
      " ld.param.u64 %rd1, [pin];\n ld.param.u64 %rd2, [pout];\n", ty, r);
  for (size_t i = 0; i < count; ++i) {
    for (unsigned k = 0; k < nsrc; ++k)
      body += fmt::format(" ld.global.{} {}{}, [%rd1+{}];\n", ty, r, k + 1, (i * nsrc + k) * sizeof(T));
    body += fmt::format(" {} {}4", instr, r);
    for (unsigned k = 0; k < nsrc; ++k) body += fmt::format(", {}{}", r, k + 1);
    body += fmt::format(";\n st.global.{} [%rd2+{}], {}4;\n", ty, i * sizeof(T), r);
  }
  body += " ret;\n}\n";
  Harness h;
  if (!h.load(kHead + body)) return {};
  uint64_t pin = h.upload(in), pout = h.alloc(count * sizeof(T));
  auto res = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(pin).add(pout));
  EXPECT_TRUE(res.ok()) << res.report();
  return h.download<T>(pout, count);
}

// All ordered pairs of the values (and triples built from pairs and a third rotating value).
template <typename T>
std::vector<T> pairs(const std::vector<T>& v) {
  std::vector<T> out;
  for (T a : v)
    for (T b : v) out.insert(out.end(), {a, b});
  return out;
}
template <typename T>
std::vector<T> triples(const std::vector<T>& v) {
  std::vector<T> out;
  size_t k = 0;
  for (T a : v)
    for (T b : v) out.insert(out.end(), {a, b, v[(k++ * 7) % v.size()]});
  return out;
}

// ---------------------------------------------------------------- references (host fenv, test only)

int host_mode(const std::string& m) {
  return m == "rz" ? FE_TOWARDZERO : m == "rm" ? FE_DOWNWARD : m == "rp" ? FE_UPWARD : FE_TONEAREST;
}

uint32_t ftzb(uint32_t b) { return (b & 0x7f800000u) == 0 ? b & 0x80000000u : b; }

// f32 reference: op evaluated with the host in mode `m`, ftz/sat applied, NaN canonical.
uint32_t ref_f32(const std::string& op, const std::string& m, bool ftz, bool sat, uint32_t a, uint32_t b, uint32_t c) {
  if (ftz) a = ftzb(a), b = ftzb(b), c = ftzb(c);
  volatile float x = F(a), y = F(b), z = F(c);
  volatile float r;
  std::fesetround(host_mode(m));
  if (op == "add") r = x + y;
  else if (op == "sub") r = x - y;
  else if (op == "mul") r = x * y;
  else if (op == "fma" || op == "mad") r = std::fmaf(x, y, z);
  else if (op == "div") r = x / y;
  else if (op == "rcp") r = 1.0f / x;
  else r = std::sqrt(float(x));
  std::fesetround(FE_TONEAREST);
  uint32_t rb = B(float(r));
  if (ftz) rb = ftzb(rb);
  if (sat) {
    float f = F(rb);
    rb = f != f ? 0 : f <= 0.0f ? 0 : f >= 1.0f ? 0x3f800000 : rb;
  }
  if ((rb & 0x7fffffff) > 0x7f800000) rb = 0x7fffffff;
  return rb;
}

uint64_t ref_f64(const std::string& op, const std::string& m, uint64_t a, uint64_t b, uint64_t c) {
  volatile double x = D(a), y = D(b), z = D(c);
  volatile double r;
  std::fesetround(host_mode(m));
  if (op == "add") r = x + y;
  else if (op == "sub") r = x - y;
  else if (op == "mul") r = x * y;
  else if (op == "fma" || op == "mad") r = std::fma(double(x), double(y), double(z));
  else if (op == "div") r = x / y;
  else if (op == "rcp") r = 1.0 / x;
  else r = std::sqrt(double(x));
  std::fesetround(FE_TONEAREST);
  double rr = r;
  if (rr != rr) return fp::nan64(a, op == "rcp" || op == "sqrt" ? 0 : b, op == "fma" || op == "mad" ? c : 0);
  return B(rr);
}

unsigned arity(const std::string& op) { return op == "fma" || op == "mad" ? 3 : op == "rcp" || op == "sqrt" ? 1 : 2; }

// ---------------------------------------------------------------- arithmetic, every rounding mode

class F32Arith : public ::testing::TestWithParam<std::string> {};

TEST_P(F32Arith, AllModesFtzSatBitExact) {
  const std::string op = GetParam();
  unsigned n = arity(op);
  auto vals = f32_values(n == 3 ? 4 : 8);
  std::vector<uint32_t> in = n == 1 ? vals : n == 2 ? pairs(vals) : triples(vals);
  for (std::string m : {"rn", "rz", "rm", "rp"})
    for (int ftz = 0; ftz < 2; ++ftz)
      for (int sat = 0; sat < 2; ++sat) {
        bool has_sat = op == "add" || op == "sub" || op == "mul" || op == "fma" || op == "mad";
        if (sat && !has_sat) continue;
        std::string instr = op + "." + m + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + ".f32";
        auto out = run_ops<uint32_t>(instr, n, in);
        ASSERT_EQ(out.size(), in.size() / n) << instr;
        int bad = 0;
        for (size_t i = 0; i < out.size() && bad < 5; ++i) {
          uint32_t a = in[i * n], b = n > 1 ? in[i * n + 1] : 0, c = n > 2 ? in[i * n + 2] : 0;
          uint32_t want = ref_f32(op, m, ftz, sat, a, b, c);
          if (out[i] != want) {
            ++bad;
            ADD_FAILURE() << instr << " a=" << std::hex << a << " b=" << b << " c=" << c << " got " << out[i]
                          << " want " << want;
          }
        }
      }
}
INSTANTIATE_TEST_SUITE_P(Ops, F32Arith, ::testing::Values("add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt"));

class F64Arith : public ::testing::TestWithParam<std::string> {};

TEST_P(F64Arith, AllModesBitExact) {
  const std::string op = GetParam();
  unsigned n = arity(op);
  auto vals = f64_values(n == 3 ? 4 : 10);
  std::vector<uint64_t> in = n == 1 ? vals : n == 2 ? pairs(vals) : triples(vals);
  for (std::string m : {"rn", "rz", "rm", "rp"}) {
    std::string instr = op + "." + m + ".f64";
    auto out = run_ops<uint64_t>(instr, n, in);
    ASSERT_EQ(out.size(), in.size() / n) << instr;
    int bad = 0;
    for (size_t i = 0; i < out.size() && bad < 5; ++i) {
      uint64_t a = in[i * n], b = n > 1 ? in[i * n + 1] : 0, c = n > 2 ? in[i * n + 2] : 0;
      uint64_t want = ref_f64(op, m, a, b, c);
      if (out[i] != want) {
        ++bad;
        ADD_FAILURE() << instr << " a=" << std::hex << a << " b=" << b << " c=" << c << " got " << out[i]
                      << " want " << want;
      }
    }
  }
}
INSTANTIATE_TEST_SUITE_P(Ops, F64Arith, ::testing::Values("add", "sub", "mul", "fma", "div", "rcp", "sqrt"));

// Hand-computed cases, independent of the host's rounding modes.
TEST(Float, KnownDirectedRoundings) {
  uint32_t one = 0x3f800000, tiny = 0x33800000;  // 1 + 2^-24: exactly halfway between 1 and 1+2^-23
  std::vector<uint32_t> in = {one, tiny};
  EXPECT_EQ(run_ops<uint32_t>("add.rn.f32", 2, in)[0], 0x3f800000u);  // ties to even
  EXPECT_EQ(run_ops<uint32_t>("add.rp.f32", 2, in)[0], 0x3f800001u);
  EXPECT_EQ(run_ops<uint32_t>("add.rz.f32", 2, in)[0], 0x3f800000u);
  // 1 - 2^-24 lies between 1-2^-24 (representable) ... use -(1+2^-24): rm goes away from zero
  in = {0xbf800000, 0xb3800000};
  EXPECT_EQ(run_ops<uint32_t>("add.rm.f32", 2, in)[0], 0xbf800001u);
  EXPECT_EQ(run_ops<uint32_t>("add.rp.f32", 2, in)[0], 0xbf800000u);
  // x + (-x) is +0, except -0 in .rm
  in = {0x3f800000, 0xbf800000};
  EXPECT_EQ(run_ops<uint32_t>("add.rn.f32", 2, in)[0], 0u);
  EXPECT_EQ(run_ops<uint32_t>("add.rm.f32", 2, in)[0], 0x80000000u);
  // overflow: FLT_MAX * 2 -> inf (rn, rp), FLT_MAX (rz, rm)
  in = {0x7f7fffff, 0x40000000};
  EXPECT_EQ(run_ops<uint32_t>("mul.rn.f32", 2, in)[0], 0x7f800000u);
  EXPECT_EQ(run_ops<uint32_t>("mul.rz.f32", 2, in)[0], 0x7f7fffffu);
  EXPECT_EQ(run_ops<uint32_t>("mul.rm.f32", 2, in)[0], 0x7f7fffffu);
  // underflow: min subnormal * 0.5 -> 0 (rn, tie to even), min subnormal (rp)
  in = {0x00000001, 0x3f000000};
  EXPECT_EQ(run_ops<uint32_t>("mul.rn.f32", 2, in)[0], 0u);
  EXPECT_EQ(run_ops<uint32_t>("mul.rp.f32", 2, in)[0], 1u);
  EXPECT_EQ(run_ops<uint32_t>("mul.rn.ftz.f32", 2, {0x00800000, 0x3f7ffffe})[0], 0u);  // result subnormal: flushed
  // rounding happens before the flush: FLT_MIN*(1-2^-24) rounds (tie to even) up to FLT_MIN, kept
  EXPECT_EQ(run_ops<uint32_t>("mul.rn.ftz.f32", 2, {0x00800000, 0x3f7fffff})[0], 0x00800000u);
  // .sat: NaN -> 0, 2 -> 1, -3 -> 0
  EXPECT_EQ(run_ops<uint32_t>("add.sat.f32", 2, {0x7fc00000, 0})[0], 0u);
  EXPECT_EQ(run_ops<uint32_t>("add.sat.f32", 2, {0x3f800000, 0x3f800000})[0], 0x3f800000u);
  // f32 NaN results are canonical
  EXPECT_EQ(run_ops<uint32_t>("add.f32", 2, {0xffc00123, 0})[0], 0x7fffffffu);
  // f64: 1 + 2^-53 halfway, 1 + 2^-60 directed
  std::vector<uint64_t> d = {B(1.0), B(0x1p-60)};
  EXPECT_EQ(run_ops<uint64_t>("add.rn.f64", 2, d)[0], B(1.0));
  EXPECT_EQ(run_ops<uint64_t>("add.rp.f64", 2, d)[0], B(1.0 + 0x1p-52));
  EXPECT_EQ(run_ops<uint64_t>("add.rz.f64", 2, d)[0], B(1.0));
  d = {B(1.0), B(3.0)};  // 1/3: rz and rp differ by one ulp
  auto rz = run_ops<uint64_t>("div.rz.f64", 2, d)[0], rp = run_ops<uint64_t>("div.rp.f64", 2, d)[0];
  EXPECT_EQ(rz + 1, rp);
  // f64 NaN: payload of the first NaN operand, quieted; invalid -> 0xfff8...
  EXPECT_EQ(run_ops<uint64_t>("add.f64", 2, {1, 0x7ff0000000000123ull})[0], 0x7ff8000000000123ull);
  EXPECT_EQ(run_ops<uint64_t>("mul.rn.f64", 2, {0, 0x7ff0000000000000ull})[0], 0xfff8000000000000ull);
}

// The rounding helper directly: f16/bf16 narrowing in every mode against a brute-force search.
TEST(Float, RoundHelperF16AllModes) {
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    float x = F(rng());
    if (x != x) continue;
    // brute force: neighbours in f16 by scanning the candidate and the next code
    for (fp::Rnd r : {fp::Rnd::Rn, fp::Rnd::Rz, fp::Rnd::Rm, fp::Rnd::Rp, fp::Rnd::Rna}) {
      uint16_t h = fp::to_f16(x, r);
      double v = fp::f16_to_f32(h);
      // the result must be a neighbour of x in the mode's direction
      if (std::isinf(v)) {
        double maxf = 65504.0;
        EXPECT_GT(std::fabs(double(x)), maxf) << x;
        continue;
      }
      uint16_t up = (h & 0x7fff) == 0x7c00 ? h : uint16_t(h + ((h & 0x8000) ? -1 : 1));
      uint16_t dn = uint16_t(h + ((h & 0x8000) ? 1 : -1));
      double vu = fp::f16_to_f32((h & 0x7fff) == 0 ? uint16_t(h ^ 0x8000 | 1) : up);
      (void)vu;
      (void)dn;
      switch (r) {
        case fp::Rnd::Rz: EXPECT_LE(std::fabs(v), std::fabs(double(x))) << x; break;
        case fp::Rnd::Rm: EXPECT_LE(v, double(x)) << x; break;
        case fp::Rnd::Rp: EXPECT_GE(v, double(x)) << x; break;
        default: break;
      }
    }
    // round to nearest: compare with the host's f32 -> _Float16 conversion where available
#if defined(__FLT16_MAX__)
    _Float16 hf = _Float16(x);
    uint16_t hb;
    std::memcpy(&hb, &hf, 2);
    EXPECT_EQ(fp::to_f16(x, fp::Rnd::Rn), hb) << x;
#endif
  }
  EXPECT_EQ(fp::to_f16(1.0 + 0x1p-11, fp::Rnd::Rn), 0x3c00);   // tie to even
  EXPECT_EQ(fp::to_f16(1.0 + 0x1p-11, fp::Rnd::Rna), 0x3c01);  // tie away
  EXPECT_EQ(fp::to_f16(65520.0, fp::Rnd::Rn), 0x7c00);
  EXPECT_EQ(fp::to_f16(65520.0, fp::Rnd::Rz), 0x7bff);
  EXPECT_EQ(fp::to_f16(0x1p-25, fp::Rnd::Rn), 0x0000);  // half the smallest subnormal: tie to even 0
  EXPECT_EQ(fp::to_f16(0x1p-25, fp::Rnd::Rp), 0x0001);
  EXPECT_EQ(fp::to_bf16(1.0 + 0x1p-8, fp::Rnd::Rn), 0x3f80);
  EXPECT_EQ(fp::to_bf16(1.0 + 0x1p-8 + 0x1p-20, fp::Rnd::Rn), 0x3f81);
}

// ---------------------------------------------------------------- approximations

TEST(Float, MufuApproxWithinBounds) {
  std::vector<uint32_t> in;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3.14159f, 3.14159f), pos(1e-3f, 1e3f), e(-100.f, 100.f);
  struct Case { const char* op; std::function<double(double)> f; std::uniform_real_distribution<float>* d; double tol_rel; };
  std::vector<Case> cases = {
      {"sin.approx.f32", [](double x) { return std::sin(x); }, &u, -0x1p-20},  // negative: absolute
      {"cos.approx.f32", [](double x) { return std::cos(x); }, &u, -0x1p-20},
      {"lg2.approx.f32", [](double x) { return std::log2(x); }, &pos, -0x1p-22},
      {"ex2.approx.f32", [](double x) { return std::exp2(x); }, &e, 0x1p-22},
      {"ex2.approx.ftz.f32", [](double x) { return std::exp2(x); }, &e, 0x1p-22},
      {"tanh.approx.f32", [](double x) { return std::tanh(x); }, &u, 0x1p-11},
      {"rsqrt.approx.f32", [](double x) { return 1 / std::sqrt(x); }, &pos, 0x1p-22},
      {"rcp.approx.f32", [](double x) { return 1 / x; }, &e, 0x1p-23},
      {"sqrt.approx.f32", [](double x) { return std::sqrt(x); }, &pos, 0x1p-23},
  };
  for (auto& c : cases) {
    std::vector<uint32_t> xs;
    for (int i = 0; i < 200; ++i) xs.push_back(B((*c.d)(rng)));
    auto out = run_ops<uint32_t>(c.op, 1, xs);
    ASSERT_EQ(out.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      double want = c.f(F(xs[i])), got = F(out[i]);
      // absolute bounds (sin/cos/lg2) also allow the final f32 rounding of the result (0.5 ulp)
      double err = c.tol_rel < 0 ? std::fabs(got - want) : std::fabs(got - want) / std::fabs(want);
      double tol = c.tol_rel < 0 ? -c.tol_rel + std::fabs(want) * 0x1p-24 : c.tol_rel;
      EXPECT_LE(err, tol) << c.op << " x=" << F(xs[i]) << " got " << got << " want " << want;
    }
  }
  // special values
  auto sp = run_ops<uint32_t>("ex2.approx.f32", 1, {0xff800000, 0x7f800000, 0x7fc00000});
  EXPECT_EQ(sp[0], 0u);
  EXPECT_EQ(sp[1], 0x7f800000u);
  EXPECT_EQ(sp[2], 0x7fffffffu);
  sp = run_ops<uint32_t>("lg2.approx.ftz.f32", 1, {0x00000005, 0xbf800000, 0});
  EXPECT_EQ(sp[0], 0xff800000u);  // subnormal flushed: log2(0) = -inf
  EXPECT_EQ(sp[1], 0x7fffffffu);
  EXPECT_EQ(sp[2], 0xff800000u);
  sp = run_ops<uint32_t>("rsqrt.approx.f32", 1, {0x80000000, 0x7f800000});
  EXPECT_EQ(sp[0], 0xff800000u);
  EXPECT_EQ(sp[1], 0u);
  // div.approx: |b| > 2^126 gives 0 (or NaN for an infinite a); div.full correctly rounded
  sp = run_ops<uint32_t>("div.approx.f32", 2, {0x3f800000, 0x7f000000, 0x7f800000, 0x7f000000, 0x40400000, 0x40e00000});
  EXPECT_EQ(sp[0], 0u);
  EXPECT_EQ(sp[1], 0x7fffffffu);
  EXPECT_LE(std::fabs(double(F(sp[2])) - 3.0 / 7.0), 2 * 0x1p-24);
  sp = run_ops<uint32_t>("div.full.f32", 2, {0x40400000, 0x40e00000});
  EXPECT_EQ(sp[0], B(3.0f / 7.0f));
  // rcp.approx.ftz.f64: reciprocal of the top 32 bits, low word zero
  auto r64 = run_ops<uint64_t>("rcp.approx.ftz.f64", 1, {B(3.0), B(-0.0), 0x0000000000000001ull});
  EXPECT_EQ(r64[0] & 0xffffffffu, 0u);
  EXPECT_NEAR(D(r64[0]), 1.0 / 3.0, 1.0 / 3.0 * 0x1p-19);
  EXPECT_EQ(r64[1], 0xfff0000000000000ull);
  EXPECT_EQ(r64[2], 0x7ff0000000000000ull);  // subnormal input flushed to +0
  r64 = run_ops<uint64_t>("rsqrt.approx.f64", 1, {B(4.0)});
  EXPECT_EQ(D(r64[0]), 0.5);
  // rsqrt.approx.ftz.f64 (MUFU.RSQ64H): 1/sqrt of the top 32 bits, low word zero, as our H100's
  // erfcinv results need: a's low word is ignored, the result's is zero. rsqrt.approx.f64 (CUDA's
  // rsqrt(double), 1 ulp) keeps the full 1/sqrt.
  const double x = 3.0 + 0x1p-40;  // low-word bits only
  r64 = run_ops<uint64_t>("rsqrt.approx.ftz.f64", 1, {B(x), B(2.0), B(0.0), B(-1.0), B(double(INFINITY)), 1ull});
  const uint64_t want = B(1.0 / std::sqrt(3.0)) & 0xffffffff00000000ull;
  EXPECT_EQ(r64[0], want);
  EXPECT_EQ(r64[1], B(1.0 / std::sqrt(2.0)) & 0xffffffff00000000ull);
  EXPECT_EQ(r64[2], 0x7ff0000000000000ull);
  EXPECT_TRUE(std::isnan(D(r64[3])));
  EXPECT_EQ(r64[4], 0u);
  EXPECT_EQ(r64[5], 0x7ff0000000000000ull);  // subnormal input flushed to +0
  r64 = run_ops<uint64_t>("rsqrt.approx.f64", 1, {B(x)});
  EXPECT_EQ(r64[0], B(1.0 / std::sqrt(x)));
}

// ---------------------------------------------------------------- min/max, abs/neg, copysign

uint32_t ref_minmax(bool mx, bool nanmode, bool xorabs, uint32_t a, uint32_t b) {
  uint32_t sign = (a ^ b) & 0x80000000u;
  if (xorabs) a &= 0x7fffffff, b &= 0x7fffffff;
  float x = F(a), y = F(b);
  bool xn = std::isnan(x), yn = std::isnan(y);
  uint32_t r;
  if ((xn && yn) || (nanmode && (xn || yn))) return 0x7fffffff;
  if (xn) r = b;
  else if (yn) r = a;
  else if (x == 0 && y == 0) r = mx ? (std::signbit(x) ? b : a) : (std::signbit(x) ? a : b);
  else r = mx ? B(std::fmax(x, y)) : B(std::fmin(x, y));
  if (xorabs) r = (r & 0x7fffffff) | sign;
  return r;
}

TEST(Float, MinMaxAllModifiers) {
  auto vals = f32_values(8);
  auto in = pairs(vals);
  for (int mx = 0; mx < 2; ++mx)
    for (int nanm = 0; nanm < 2; ++nanm)
      for (int xa = 0; xa < 2; ++xa)
        for (int ftz = 0; ftz < 2; ++ftz) {
          std::string instr = std::string(mx ? "max" : "min") + (ftz ? ".ftz" : "") + (nanm ? ".NaN" : "") +
                              (xa ? ".xorsign.abs" : "") + ".f32";
          auto out = run_ops<uint32_t>(instr, 2, in);
          ASSERT_EQ(out.size(), in.size() / 2);
          int bad = 0;
          for (size_t i = 0; i < out.size() && bad < 5; ++i) {
            uint32_t a = in[2 * i], b = in[2 * i + 1];
            if (ftz) a = ftzb(a), b = ftzb(b);
            uint32_t want = ref_minmax(mx, nanm, xa, a, b);
            if (out[i] != want) {
              ++bad;
              ADD_FAILURE() << instr << std::hex << " a=" << in[2 * i] << " b=" << in[2 * i + 1] << " got " << out[i]
                            << " want " << want;
            }
          }
        }
  // -0 < +0
  EXPECT_EQ(run_ops<uint32_t>("min.f32", 2, {0, 0x80000000})[0], 0x80000000u);
  EXPECT_EQ(run_ops<uint32_t>("max.f32", 2, {0x80000000, 0})[0], 0u);
  // three inputs
  EXPECT_EQ(run_ops<uint32_t>("min.f32", 3, {B(3.f), 0x7fc00000, B(-2.f)})[0], B(-2.f));
  EXPECT_EQ(run_ops<uint32_t>("max.NaN.f32", 3, {B(3.f), B(1.f), 0x7fc00000})[0], 0x7fffffffu);
  EXPECT_EQ(run_ops<uint32_t>("max.abs.f32", 3, {B(3.f), B(-5.f), B(4.f)})[0], B(5.f));
  // f64
  auto d = run_ops<uint64_t>("min.f64", 2, {B(1.0), 0x7ff8000000000000ull, 0, 1ull << 63, B(2.0), B(-7.0)});
  EXPECT_EQ(d[0], B(1.0));
  EXPECT_EQ(d[1], 1ull << 63);
  EXPECT_EQ(d[2], B(-7.0));
}

TEST(Float, AbsNegCopysign) {
  auto vals = f32_values(4);
  auto a = run_ops<uint32_t>("abs.f32", 1, vals);
  auto af = run_ops<uint32_t>("abs.ftz.f32", 1, vals);
  auto n = run_ops<uint32_t>("neg.f32", 1, vals);
  auto nf = run_ops<uint32_t>("neg.ftz.f32", 1, vals);
  for (size_t i = 0; i < vals.size(); ++i) {
    EXPECT_EQ(a[i], vals[i] & 0x7fffffffu);
    EXPECT_EQ(n[i], vals[i] ^ 0x80000000u);
    EXPECT_EQ(af[i], ftzb(vals[i]) & 0x7fffffffu);
    EXPECT_EQ(nf[i], ftzb(vals[i]) ^ 0x80000000u);
  }
  EXPECT_EQ(run_ops<uint32_t>("copysign.f32", 2, {0x80000000, B(2.f)})[0], B(-2.f));
  EXPECT_EQ(run_ops<uint64_t>("copysign.f64", 2, {B(1.0), B(-2.0)})[0], B(2.0));
  EXPECT_EQ(run_ops<uint64_t>("neg.f64", 1, {B(2.0)})[0], B(-2.0));
}

// ---------------------------------------------------------------- testp, setp, set, selp, slct

// Kernel: for each (a, b) pair of type `ty` (bytes `sz`), `line` is emitted with %a/%b registers,
// then predicates %p1/%p2 are stored as two u32 (selp 1/0).
std::vector<uint32_t> run_pred(const std::string& ty, unsigned sz, const std::vector<uint64_t>& in, unsigned nsrc,
                               const std::string& line) {
  std::string body =
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n .reg .b64 %rd<3>;\n .reg .pred %p<4>;\n"
      " .reg .b32 %r<4>;\n .reg ." + ty + " %a, %b, %c;\n ld.param.u64 %rd1, [pin];\n ld.param.u64 %rd2, [pout];\n";
  size_t count = in.size() / nsrc;
  for (size_t i = 0; i < count; ++i) {
    body += fmt::format(" ld.global.{} %a, [%rd1+{}];\n", ty, (i * nsrc) * 8);
    if (nsrc > 1) body += fmt::format(" ld.global.{} %b, [%rd1+{}];\n", ty, (i * nsrc + 1) * 8);
    if (nsrc > 2) {
      body += fmt::format(" ld.global.u32 %r3, [%rd1+{}];\n", (i * nsrc + 2) * 8);
      body += " setp.ne.u32 %p3, %r3, 0;\n";
    }
    body += " setp.eq.u32 %p2, 0, 1;\n";  // q defaults to false where unwritten
    body += " " + line + ";\n";
    body += fmt::format(" selp.u32 %r1, 1, 0, %p1;\n selp.u32 %r2, 1, 0, %p2;\n st.global.u32 [%rd2+{}], %r1;\n"
                        " st.global.u32 [%rd2+{}], %r2;\n", i * 8, i * 8 + 4);
  }
  body += " ret;\n}\n";
  (void)sz;
  Harness h;
  if (!h.load(kHead + body)) return {};
  uint64_t pin = h.upload(in), pout = h.alloc(count * 8);
  auto res = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(pin).add(pout));
  EXPECT_TRUE(res.ok()) << res.report();
  return h.download<uint32_t>(pout, count * 2);
}

TEST(Float, TestpAllKinds) {
  auto v32 = f32_values(8);
  std::vector<uint64_t> in(v32.begin(), v32.end());
  for (std::string k : {"finite", "infinite", "number", "notanumber", "normal", "subnormal"}) {
    auto out = run_pred("f32", 4, in, 1, "testp." + k + ".f32 %p1, %a");
    ASSERT_EQ(out.size(), in.size() * 2);
    for (size_t i = 0; i < in.size(); ++i) {
      float x = F(uint32_t(in[i]));
      int c = std::fpclassify(x);
      bool want = k == "finite" ? std::isfinite(x) : k == "infinite" ? std::isinf(x) : k == "number" ? !std::isnan(x)
                  : k == "notanumber" ? std::isnan(x) : k == "normal" ? (c == FP_NORMAL || c == FP_ZERO)
                                                                       : c == FP_SUBNORMAL;
      EXPECT_EQ(out[2 * i], uint32_t(want)) << k << " " << std::hex << in[i];
    }
  }
  auto v64 = f64_values(4);
  for (std::string k : {"normal", "subnormal", "notanumber"}) {
    auto out = run_pred("f64", 8, v64, 1, "testp." + k + ".f64 %p1, %a");
    for (size_t i = 0; i < v64.size(); ++i) {
      double x = D(v64[i]);
      int c = std::fpclassify(x);
      bool want = k == "normal" ? (c == FP_NORMAL || c == FP_ZERO) : k == "subnormal" ? c == FP_SUBNORMAL : std::isnan(x);
      EXPECT_EQ(out[2 * i], uint32_t(want)) << k << " " << std::hex << v64[i];
    }
  }
}

template <typename T>
bool ref_cmp(const std::string& op, T a, T b) {
  bool un = std::isnan(double(a)) || std::isnan(double(b));
  if (op == "eq") return !un && a == b;
  if (op == "ne") return !un && a != b;
  if (op == "lt") return !un && a < b;
  if (op == "le") return !un && a <= b;
  if (op == "gt") return !un && a > b;
  if (op == "ge") return !un && a >= b;
  if (op == "equ") return un || a == b;
  if (op == "neu") return un || a != b;
  if (op == "ltu") return un || a < b;
  if (op == "leu") return un || a <= b;
  if (op == "gtu") return un || a > b;
  if (op == "geu") return un || a >= b;
  if (op == "num") return !un;
  if (op == "nan") return un;
  ADD_FAILURE() << op;
  return false;
}

const char* kFloatCmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

TEST(Float, SetpFloatAllCompareOps) {
  auto v = f32_values(2);
  std::vector<uint64_t> in;
  for (uint32_t a : v)
    for (uint32_t b : v) in.insert(in.end(), {a, b});
  for (const char* op : kFloatCmps)
    for (int ftz = 0; ftz < 2; ++ftz) {
      auto out = run_pred("f32", 4, in, 2, fmt::format("setp.{}{}.f32 %p1|%p2, %a, %b", op, ftz ? ".ftz" : ""));
      ASSERT_EQ(out.size(), in.size());
      int bad = 0;
      for (size_t i = 0; i < in.size() / 2 && bad < 5; ++i) {
        uint32_t a = uint32_t(in[2 * i]), b = uint32_t(in[2 * i + 1]);
        if (ftz) a = ftzb(a), b = ftzb(b);
        bool t = ref_cmp(op, F(a), F(b));
        if (out[2 * i] != uint32_t(t) || out[2 * i + 1] != uint32_t(!t)) {
          ++bad;
          ADD_FAILURE() << op << std::hex << " a=" << a << " b=" << b << " p=" << out[2 * i] << " q=" << out[2 * i + 1];
        }
      }
    }
  // f64
  auto d = f64_values(2);
  std::vector<uint64_t> in64;
  for (uint64_t a : d)
    for (uint64_t b : d) in64.insert(in64.end(), {a, b});
  for (const char* op : kFloatCmps) {
    auto out = run_pred("f64", 8, in64, 2, fmt::format("setp.{}.f64 %p1, %a, %b", op));
    for (size_t i = 0; i < in64.size() / 2; ++i)
      EXPECT_EQ(out[2 * i], uint32_t(ref_cmp(op, D(in64[2 * i]), D(in64[2 * i + 1])))) << op;
  }
}

TEST(Float, SetpIntegerAndBoolOps) {
  std::vector<int64_t> vals = {0, 1, -1, 7, -8, INT32_MAX, INT32_MIN, 0x7fffffffffffffffll, INT64_MIN, 100};
  const char* ops[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
  for (std::string ty : {"s32", "u32", "s64", "u64", "s16", "u16", "b32"}) {
    unsigned bits = std::stoi(ty.substr(1));
    bool sgn = ty[0] == 's';
    std::vector<uint64_t> in;
    for (int64_t a : vals)
      for (int64_t b : vals)
        in.insert(in.end(), {uint64_t(a) & (bits == 64 ? ~0ull : (1ull << bits) - 1), uint64_t(b) & (bits == 64 ? ~0ull : (1ull << bits) - 1)});
    for (std::string op : ops) {
      if (ty == "b32" && op != "eq" && op != "ne" && op != "lo" && op != "hi") continue;
      auto out = run_pred(ty, bits / 8, in, 2, fmt::format("setp.{}.{} %p1|%p2, %a, %b", op, ty));
      ASSERT_EQ(out.size(), in.size()) << ty << op;
      for (size_t i = 0; i < in.size() / 2; ++i) {
        uint64_t ua = in[2 * i], ub = in[2 * i + 1];
        int64_t sa = bits == 64 ? int64_t(ua) : int64_t(ua << (64 - bits)) >> (64 - bits);
        int64_t sb = bits == 64 ? int64_t(ub) : int64_t(ub << (64 - bits)) >> (64 - bits);
        bool uns = op == "lo" || op == "ls" || op == "hi" || op == "hs" || !sgn;
        std::string o = op == "lo" ? "lt" : op == "ls" ? "le" : op == "hi" ? "gt" : op == "hs" ? "ge" : op;
        bool t = uns ? (o == "eq" ? ua == ub : o == "ne" ? ua != ub : o == "lt" ? ua < ub : o == "le" ? ua <= ub : o == "gt" ? ua > ub : ua >= ub)
                     : (o == "eq" ? sa == sb : o == "ne" ? sa != sb : o == "lt" ? sa < sb : o == "le" ? sa <= sb : o == "gt" ? sa > sb : sa >= sb);
        EXPECT_EQ(out[2 * i], uint32_t(t)) << ty << "." << op << " " << sa << " " << sb;
        EXPECT_EQ(out[2 * i + 1], uint32_t(!t)) << ty << "." << op;
      }
    }
  }
  // boolean combination with a (negated) predicate: p = op(t, c), q = op(!t, c)
  std::vector<uint64_t> in;
  for (int a : {1, 2})
    for (int c : {0, 1}) in.insert(in.end(), {uint64_t(a), 2, uint64_t(c)});
  for (std::string bop : {"and", "or", "xor"})
    for (int neg = 0; neg < 2; ++neg) {
      auto out = run_pred("s32", 4, in, 3, fmt::format("setp.lt.{}.s32 %p1|%p2, %a, %b, {}%p3", bop, neg ? "!" : ""));
      for (size_t i = 0; i < 4; ++i) {
        bool t = in[3 * i] < 2, c = in[3 * i + 2] != 0;
        if (neg) c = !c;
        auto f = [&](bool x) { return bop == "and" ? x && c : bop == "or" ? x || c : x != c; };
        EXPECT_EQ(out[2 * i], uint32_t(f(t))) << bop << neg << i;
        EXPECT_EQ(out[2 * i + 1], uint32_t(f(!t))) << bop << neg << i;
      }
    }
}

TEST(Float, SetpHalfAndPacked) {
  // f16 pairs packed in b32: low half and high half compared separately (p: low, q: high)
  std::vector<uint16_t> h = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001, 0x7bff};
  std::vector<uint64_t> in;
  for (uint16_t a : h)
    for (uint16_t b : h) in.insert(in.end(), {uint64_t(a) | uint64_t(b) << 16, uint64_t(b) | uint64_t(a) << 16});
  for (const char* op : kFloatCmps)
    for (int ftz = 0; ftz < 2; ++ftz) {
      auto out = run_pred("b32", 4, in, 2, fmt::format("setp.{}{}.f16x2 %p1|%p2, %a, %b", op, ftz ? ".ftz" : ""));
      ASSERT_EQ(out.size(), in.size());
      for (size_t i = 0; i < in.size() / 2; ++i) {
        auto hv = [&](uint64_t v, int k) {
          uint16_t x = uint16_t(v >> (16 * k));
          if (ftz && (x & 0x7c00) == 0) x &= 0x8000;
          return fp::f16_to_f32(x);
        };
        EXPECT_EQ(out[2 * i], uint32_t(ref_cmp(op, hv(in[2 * i], 0), hv(in[2 * i + 1], 0)))) << op << " lo " << i;
        EXPECT_EQ(out[2 * i + 1], uint32_t(ref_cmp(op, hv(in[2 * i], 1), hv(in[2 * i + 1], 1)))) << op << " hi " << i;
      }
    }
  // scalar f16 and bf16 (b16 registers)
  std::vector<uint64_t> in16 = {0x3c00, 0x4000, 0x7e00, 0x3c00, 0x8000, 0x0000};
  auto out = run_pred("b16", 2, in16, 2, "setp.lt.f16 %p1, %a, %b");
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(out[4], 0u);  // -0 < +0 is false
  std::vector<uint64_t> inbf = {0x3f80, 0x4000, 0xbf80, 0x3f80, 0x7fc0, 0x3f80};
  out = run_pred("b16", 2, inbf, 2, "setp.gtu.bf16 %p1, %a, %b");
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(out[4], 1u);
}

// set: 1.0f / 0xffffffff / packed half results; selp; slct.
TEST(Float, SetSelpSlct) {
  std::string body = R"(
.visible .entry k(.param .u64 pout)
{
  .reg .b64 %rd<2>;
  .reg .f32 %f<4>;
  .reg .b32 %r<12>;
  .reg .pred %p<3>;
  .reg .f64 %fd<3>;
  ld.param.u64 %rd1, [pout];
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f40000000;
  set.lt.f32.f32 %r1, %f1, %f2;
  set.gt.u32.f32 %r2, %f1, %f2;
  set.lt.s32.f32 %r3, %f1, %f2;
  mov.f32 %f3, 0f7FC00000;
  set.neu.f32.f32 %r4, %f3, %f3;
  setp.eq.f32 %p1, %f1, %f1;
  set.lt.xor.u32.f32 %r5, %f1, %f2, %p1;
  mov.b32 %r6, 0x40003C00;
  mov.b32 %r7, 0x3C004000;
  set.lt.f16x2.f16x2 %r8, %r6, %r7;
  set.lt.u32.f16x2 %r9, %r6, %r7;
  selp.b32 %r10, 11, 22, %p1;
  mov.f32 %f3, 0f80000001;
  slct.b32.f32 %r11, 33, 44, %f3;
  st.global.b32 [%rd1], %r1;
  st.global.b32 [%rd1+4], %r2;
  st.global.b32 [%rd1+8], %r3;
  st.global.b32 [%rd1+12], %r4;
  st.global.b32 [%rd1+16], %r5;
  st.global.b32 [%rd1+20], %r8;
  st.global.b32 [%rd1+24], %r9;
  st.global.b32 [%rd1+28], %r10;
  st.global.b32 [%rd1+32], %r11;
  slct.ftz.b32.f32 %r11, 33, 44, %f3;
  st.global.b32 [%rd1+36], %r11;
  slct.s32.s32 %r11, 55, 66, -1;
  st.global.b32 [%rd1+40], %r11;
  mov.f64 %fd1, 0d4000000000000000;
  mov.f64 %fd2, 0d3FF0000000000000;
  setp.gt.f64 %p2, %fd1, %fd2;
  selp.f64 %fd1, %fd1, %fd2, %p2;
  st.global.f64 [%rd1+48], %fd1;
  ret;
}
)";
  Harness h;
  ASSERT_TRUE(h.load(kHead + body));
  uint64_t out = h.alloc(64);
  auto r = h.run("k", {1, 1, 1}, {1, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 14);
  EXPECT_EQ(v[0], 0x3f800000u);
  EXPECT_EQ(v[1], 0u);
  EXPECT_EQ(v[2], 0xffffffffu);
  EXPECT_EQ(v[3], 0x3f800000u);  // NaN != NaN unordered: true
  EXPECT_EQ(v[4], 0u);           // true xor true
  EXPECT_EQ(v[5], 0x00003c00u);  // low: 1 < 2 true, high: 2 < 1 false
  EXPECT_EQ(v[6], 0x0000ffffu);
  EXPECT_EQ(v[7], 11u);
  EXPECT_EQ(v[8], 44u);  // -denormal < 0
  EXPECT_EQ(v[9], 33u);  // .ftz: -0 >= 0
  EXPECT_EQ(v[10], 66u);
  EXPECT_EQ(D(uint64_t(v[12]) | uint64_t(v[13]) << 32), 2.0);
}

// Forms this family owns but rejects, and forms left to other families.
TEST(Float, DecodeErrors) {
  Harness h;
  auto err = h.load_errors(kHead + R"(
.visible .entry k()
{
  .reg .f64 %fd<3>;
  add.sat.f64 %fd1, %fd1, %fd2;
  ret;
}
)");
  ASSERT_FALSE(err.empty());
  EXPECT_NE(err[0].find(".sat"), std::string::npos) << err[0];
  err = h.load_errors(kHead + R"(
.visible .entry k()
{
  .reg .f32 %f<3>;
  .reg .pred %p;
  setp.lo.f32 %p, %f1, %f2;
  ret;
}
)");
  ASSERT_FALSE(err.empty());
}

// The engine runs every lane: a 32-lane warp with a guard computes per-lane results.
TEST(Float, LanesAndGuard) {
  Harness h;
  ASSERT_TRUE(h.load(kHead + R"(
.visible .entry k(.param .u64 pout)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  mov.f32 %f1, 0f3F800000;
  @%p1 add.rz.f32 %f1, %f1, 0f33800000;
  @!%p1 add.rp.f32 %f1, %f1, 0f33800000;
  setp.eq.u32 %p1, %r1, 31;
  @%p1 st.global.f32 [%rd1], %f1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.global.f32 [%rd1+4], %f1;
  ret;
}
)"));
  uint64_t out = h.alloc(8);
  auto r = h.run("k", {1, 1, 1}, {32, 1, 1}, Harness::Params().add(out));
  ASSERT_TRUE(r.ok()) << r.report();
  auto v = h.download<uint32_t>(out, 2);
  EXPECT_EQ(v[0], 0x3f800001u);
  EXPECT_EQ(v[1], 0x3f800000u);
}

}  // namespace
