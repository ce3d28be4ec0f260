// Replays every measured input of run_h100.sh's sets through warpsim's MUFU model (src/func/mufu.hpp)
// and prints the fraction of results that are the H100's bit for bit, and the largest difference.
// Build and run from the repository root (DIR holds the *.diff files and half.raw):
//   g++ -std=c++20 -O2 -Isrc validation/sm/mufu/check_model.cpp src/func/mufu.cpp -o /tmp/check_model
//   /tmp/check_model DIR
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "func/mufu.hpp"

namespace fp = warpsim::fp;
namespace mufu = warpsim::func::mufu;

enum Op { RCP, RCP_NOFTZ, RSQ, RSQ_NOFTZ, EX2, EX2_NOFTZ };

static double ref(Op op, double x) {
  switch (op) {
    case RCP: case RCP_NOFTZ: return 1.0 / x;
    case RSQ: case RSQ_NOFTZ: return 1.0 / std::sqrt(x);
    default: return std::exp2(x);
  }
}

static uint32_t model(Op op, float x) {
  switch (op) {
    case RCP: return fp::canon32(fp::ftz32(mufu::rcp<true>(x)));
    case RCP_NOFTZ: return fp::canon32(mufu::rcp<false>(x));
    case RSQ: return fp::canon32(fp::ftz32(mufu::rsqrt<true>(x)));
    case RSQ_NOFTZ: return fp::canon32(mufu::rsqrt<false>(x));
    case EX2: return fp::canon32(fp::ftz32(mufu::ex2<true>(x)));
    default: return fp::canon32(mufu::ex2<false>(x));
  }
}

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  const uint32_t M = 1u << 23;
  struct Set { const char* name; Op op; uint32_t lo, n, step; } sets[] = {
      {"rcp_1_2", RCP, 0x3f800000u, M, 1}, {"rcp_wide", RCP, 0x00800000u, 0x7e800000u, 509},
      {"rcp_noftz_wide", RCP_NOFTZ, 1u, 0x7f000000u, 509}, {"rsq_1_4", RSQ, 0x3f800000u, 2 * M, 1},
      {"rsq_wide", RSQ, 0x00800000u, 0x7e800000u, 509}, {"rsq_noftz_wide", RSQ_NOFTZ, 1u, 0x7f000000u, 509},
      {"ex2_05_1", EX2, 0x3f000000u, M, 1}, {"ex2_1_2", EX2, 0x3f800000u, M, 1},
      {"ex2_025_05", EX2, 0x3e800000u, M, 1}, {"ex2_m1_m05", EX2, 0xbf000000u, M, 1},
      {"ex2_tiny", EX2, 0x33000000u, 24 * M, 16}, {"ex2_big", EX2, 0x40000000u, 5 * M, 8},
      {"ex2_noftz_neg", EX2_NOFTZ, 0xc2f00000u, 0x00400000u, 1}};
  for (const Set& s : sets) {
    FILE* f = std::fopen((dir + "/" + s.name + ".diff").c_str(), "rb");
    if (!f) { std::printf("%s: missing\n", s.name); continue; }
    size_t n = s.n / s.step, same = 0, rn_same = 0;
    long maxd = 0;
    std::vector<int32_t> d(n);
    if (std::fread(d.data(), 4, n, f) != n) { std::printf("%s: short\n", s.name); std::fclose(f); continue; }
    std::fclose(f);
    for (size_t i = 0; i < n; ++i) {
      float x = fp::f32(s.lo + uint32_t(i * s.step));
      uint32_t rn = fp::b32(float(ref(s.op, double(x))));
      uint32_t hw = uint32_t(int32_t(rn) + d[i]);
      uint32_t got = model(s.op, x);
      same += got == hw;
      rn_same += d[i] == 0;
      long dd = std::labs(long(int32_t(got)) - long(int32_t(hw)));
      if (dd > maxd) maxd = dd;
    }
    std::printf("%-15s %9zu inputs  bit-exact %7.3f%%  (correctly rounded: %7.3f%%)  max |diff| %ld ulp\n", s.name, n,
                100.0 * same / n, 100.0 * rn_same / n, maxd);
  }
  // half forms: every input
  FILE* f = std::fopen((dir + "/half.raw").c_str(), "rb");
  std::vector<uint16_t> raw(12 * 65536);
  if (f && std::fread(raw.data(), 2, raw.size(), f) == raw.size()) {
    const char* names[4] = {"ex2.approx.f16", "ex2.approx.ftz.bf16", "tanh.approx.f16", "tanh.approx.bf16"};
    for (int k = 0; k < 4; ++k) {
      size_t same = 0;
      for (uint32_t a = 0; a < 65536; ++a) same += mufu::half_result(k, uint16_t(a)) == raw[k * 65536 + a];
      std::printf("%-20s 65536 inputs  bit-exact %7.3f%%\n", names[k], 100.0 * same / 65536);
    }
  }
  if (f) std::fclose(f);
  return 0;
}
