// libwarpsim_preload.so, cuFFT part: plans whose kernels libcufft ships as SASS only run as
// warpsim's own PTX FFT (preloaded, so these entry points take the place of libcufft's).
//
// Why: libcufft carries PTX for most plans, but the kernels of some (1D sizes from 65536 up, sizes
// with several large prime factors) are SASS-only cubins, and warpsim runs PTX, so their plan
// creation failed with CUFFT_INTERNAL_ERROR. Every plan is first made by libcufft; only when that
// fails (CUFFT_INTERNAL_ERROR, SETUP_FAILED or NOT_SUPPORTED, never for a size or layout libcufft
// rejects as invalid) does the handle get a plan of this file, decided at plan time so that a plan
// never fails half way at exec. The plan's cycles are those of these kernels, not of cuFFT's: said
// once on stderr.
//
// The plan: the input is gathered (any advanced layout, real or complex, a half spectrum expanded
// by Hermitian symmetry for C2R/Z2D) into a dense complex work array [batch][n0][n1][n2]; each
// dimension is transformed by Stockham autosort passes (one launch per pass, ping-ponging between
// two work arrays; radix 2 and 4 and odd radices up to kMaxRadix as butterflies of one thread
// each, twiddles from a table computed in long double on the host); a dimension with a prime
// factor above kMaxRadix is done by Bluestein's chirp-z algorithm (a power-of-two circular convolution whose
// chirp spectra are computed in double on the host); the result is scattered to the output layout
// (the first n/2+1 bins of the last dimension for R2C, the real part for C2R). Real transforms
// thus cost a full complex transform: simple, and correct to rounding. Precision: the plan's, with
// twiddles rounded once from double.
#include <dlfcn.h>

#include "preload_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

// ---- the cuFFT ABI values used (cufft.h, library_types.h)
using Result = int;
constexpr Result kSuccess = 0, kInvalidPlan = 1, kAllocFailed = 2, kInvalidType = 3, kInvalidValue = 4,
                 kInternalError = 5, kExecFailed = 6, kSetupFailed = 7, kInvalidSize = 8, kNotSupported = 16;
constexpr int kR2C = 0x2a, kC2R = 0x2c, kC2C = 0x29, kD2Z = 0x6a, kZ2D = 0x6c, kZ2Z = 0x69;
constexpr int kForward = -1, kInverse = 1;
constexpr int kCudaR32F = 0, kCudaR64F = 1, kCudaC32F = 4, kCudaC64F = 5;
// Prime factors up to this are radices of a Stockham pass (a pass of radix R costs R loads per
// output, so this is where Bluestein's two power-of-two FFTs of >= 2N points become cheaper).
constexpr long long kMaxRadix = 61;

// The simulated GPU's driver API and libcufft's own entry points, as the preload's other files
// reach them (preload_kernels.hpp).
using warpsim::preload::Driver;
using warpsim::preload::driver;
using warpsim::preload::real;

// ---- the kernels: one module per precision. Every kernel has one thread per element of `total`
// (a 1D grid of 256-thread blocks); complex numbers are (re, im) pairs of the precision's type.
std::string fft_ptx(bool dbl) {
  const std::string T = dbl ? "f64" : "f32", CS = dbl ? "16" : "8", RS = dbl ? "8" : "4";
  const std::string Z = dbl ? "0d0000000000000000" : "0f00000000";
  auto head = [&](const std::string& name, const std::string& params) {
    return ".visible .entry " + name + "(.param .u64 total, " + params +
           ")\n{\n  .reg .pred %p<8>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<48>;\n  .reg ." + T +
           " %f<24>;\n"
           "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n"
           "  mul.wide.u32 %rd1, %r1, %r2; cvt.u64.u32 %rd2, %r3; add.u64 %rd1, %rd1, %rd2;\n"
           "  ld.param.u64 %rd2, [total]; setp.ge.u64 %p1, %rd1, %rd2; @%p1 bra DONE;\n";
  };
  // (dr, di) = (ar, ai) * (br, bi), through %f20/%f21.
  auto cmul = [&](const std::string& dr, const std::string& di, const std::string& ar, const std::string& ai,
                  const std::string& br, const std::string& bi) {
    return "  mul.rn." + T + " %f20, " + ar + ", " + br + "; neg." + T + " %f21, " + ai + "; fma.rn." + T +
           " %f20, %f21, " + bi + ", %f20;\n  mul.rn." + T + " %f21, " + ar + ", " + bi + "; fma.rn." + T +
           " %f21, " + ai + ", " + br + ", %f21;\n  mov." + T + " " + dr + ", %f20; mov." + T + " " + di + ", %f21;\n";
  };
  std::string s = ".version 7.0\n.target sm_70\n.address_size 64\n\n";

  // A Stockham pass of radix r over lines of n elements, element stride s (layout [b][n][s]):
  // out[b][o][i] = sum_q in[b][j + q n/r][i] w^(q (o mod ns r) n/(ns r)), w = e^(-2 pi i/n) from
  // `tw` (its imaginary part times sgn: +1 forward, -1 inverse), j = (o / (ns r)) ns + o mod ns;
  // ns is the product of the radices of the earlier passes.
  s += head("warpsim_fft_pass", ".param .u64 in, .param .u64 out, .param .u64 tw, .param .u64 n, .param .u64 r, "
                                ".param .u64 ns, .param .u64 s, .param ." + T + " sgn");
  s += "  ld.param.u64 %rd3, [s]; ld.param.u64 %rd4, [n]; ld.param.u64 %rd5, [r]; ld.param.u64 %rd6, [ns];\n"
       "  rem.u64 %rd7, %rd1, %rd3; div.u64 %rd8, %rd1, %rd3; rem.u64 %rd9, %rd8, %rd4; div.u64 %rd10, %rd8, %rd4;\n"
       "  mul.lo.u64 %rd11, %rd6, %rd5; rem.u64 %rd12, %rd9, %rd11; rem.u64 %rd13, %rd9, %rd6;\n"
       "  div.u64 %rd14, %rd9, %rd11; mad.lo.u64 %rd15, %rd14, %rd6, %rd13;\n"
       "  div.u64 %rd16, %rd4, %rd5; div.u64 %rd17, %rd4, %rd11; mul.lo.u64 %rd18, %rd12, %rd17;\n"
       "  mad.lo.u64 %rd19, %rd10, %rd4, %rd15; mad.lo.u64 %rd19, %rd19, %rd3, %rd7;\n"
       "  ld.param.u64 %rd20, [in]; mad.lo.u64 %rd19, %rd19, " + CS + ", %rd20;\n"
       "  mul.lo.u64 %rd21, %rd16, %rd3; mul.lo.u64 %rd21, %rd21, " + CS + ";\n"
       "  ld.param.u64 %rd22, [tw]; mov.u64 %rd23, 0; mov.u64 %rd24, 0;\n"
       "  ld.param." + T + " %f1, [sgn]; mov." + T + " %f2, " + Z + "; mov." + T + " %f3, " + Z + ";\n"
       "PASS_LOOP:\n"
       "  ld.global.v2." + T + " {%f4, %f5}, [%rd19];\n"
       "  mad.lo.u64 %rd25, %rd23, " + CS + ", %rd22; ld.global.v2." + T + " {%f6, %f7}, [%rd25];\n"
       "  mul.rn." + T + " %f7, %f7, %f1;\n"
       "  fma.rn." + T + " %f2, %f4, %f6, %f2; neg." + T + " %f8, %f5; fma.rn." + T + " %f2, %f8, %f7, %f2;\n"
       "  fma.rn." + T + " %f3, %f4, %f7, %f3; fma.rn." + T + " %f3, %f5, %f6, %f3;\n"
       "  add.u64 %rd19, %rd19, %rd21;\n"
       "  add.u64 %rd23, %rd23, %rd18; setp.ge.u64 %p2, %rd23, %rd4; @%p2 sub.u64 %rd23, %rd23, %rd4;\n"
       "  add.u64 %rd24, %rd24, 1; setp.lt.u64 %p3, %rd24, %rd5; @%p3 bra PASS_LOOP;\n"
       "  ld.param.u64 %rd26, [out]; mad.lo.u64 %rd26, %rd1, " + CS + ", %rd26;\n"
       "  st.global.v2." + T + " [%rd26], {%f2, %f3};\nDONE:\n  ret;\n}\n\n";

  // The same pass for radix 2 and 4 (most passes of power-of-two sizes and of Bluestein's
  // convolutions) as butterflies: a thread per butterfly jj < n/r reads its r inputs once,
  // multiplies input q by w^(q jlo n/(ns r)) (jlo = jj mod ns) and does an r-point DFT in adds,
  // writing outputs (jj / ns) ns r + jlo + q ns. Five times fewer instructions than the loop.
  for (int r : {2, 4}) {
    const std::string R = std::to_string(r);
    s += head("warpsim_fft_pass" + R, ".param .u64 in, .param .u64 out, .param .u64 tw, .param .u64 n, "
                                      ".param .u64 ns, .param .u64 s, .param ." + T + " sgn");
    s += "  ld.param.u64 %rd3, [s]; ld.param.u64 %rd4, [n]; ld.param.u64 %rd6, [ns];\n"
         "  shr.u64 %rd16, %rd4, " + std::string(r == 2 ? "1" : "2") + ";\n"  // n / r
         "  rem.u64 %rd7, %rd1, %rd3; div.u64 %rd8, %rd1, %rd3; rem.u64 %rd9, %rd8, %rd16; div.u64 %rd10, %rd8, %rd16;\n"
         "  rem.u64 %rd13, %rd9, %rd6; div.u64 %rd14, %rd9, %rd6;\n"  // jlo, jhi
         "  mul.lo.u64 %rd11, %rd6, " + R + "; div.u64 %rd17, %rd4, %rd11; mul.lo.u64 %rd18, %rd13, %rd17;\n"  // twiddle step
         // input q at ((b n + jj + q n/r) s + i); output q at ((b n + jhi ns r + jlo + q ns) s + i)
         "  mad.lo.u64 %rd19, %rd10, %rd4, %rd9; mad.lo.u64 %rd19, %rd19, %rd3, %rd7;\n"
         "  ld.param.u64 %rd20, [in]; mad.lo.u64 %rd19, %rd19, " + CS + ", %rd20;\n"
         "  mul.lo.u64 %rd21, %rd16, %rd3; mul.lo.u64 %rd21, %rd21, " + CS + ";\n"
         "  mul.lo.u64 %rd12, %rd14, %rd11; add.u64 %rd12, %rd12, %rd13; mad.lo.u64 %rd12, %rd10, %rd4, %rd12;\n"
         "  mad.lo.u64 %rd12, %rd12, %rd3, %rd7; ld.param.u64 %rd20, [out]; mad.lo.u64 %rd12, %rd12, " + CS + ", %rd20;\n"
         "  mul.lo.u64 %rd23, %rd6, %rd3; mul.lo.u64 %rd23, %rd23, " + CS + ";\n"  // output step ns s
         "  ld.param.u64 %rd22, [tw]; mul.lo.u64 %rd18, %rd18, " + CS + ";\n"
         "  ld.param." + T + " %f1, [sgn];\n";
    // inputs (%f2 + 2q, %f3 + 2q), q < r, twiddled from q = 1
    for (int q = 0; q < r; ++q) {
      const std::string re = "%f" + std::to_string(2 + 2 * q), im = "%f" + std::to_string(3 + 2 * q);
      s += "  ld.global.v2." + T + " {" + re + ", " + im + "}, [%rd19];" + (q + 1 < r ? " add.u64 %rd19, %rd19, %rd21;" : "") + "\n";
      if (q == 0) continue;
      s += "  mad.lo.u64 %rd25, %rd18, " + std::to_string(q) + ", %rd22; ld.global.v2." + T + " {%f12, %f13}, [%rd25];\n"
           "  mul.rn." + T + " %f13, %f13, %f1;\n" + cmul(re, im, re, im, "%f12", "%f13");
    }
    if (r == 2) {
      s += "  add.rn." + T + " %f12, %f2, %f4; add.rn." + T + " %f13, %f3, %f5;\n"
           "  sub.rn." + T + " %f14, %f2, %f4; sub.rn." + T + " %f15, %f3, %f5;\n"
           "  st.global.v2." + T + " [%rd12], {%f12, %f13}; add.u64 %rd12, %rd12, %rd23;\n"
           "  st.global.v2." + T + " [%rd12], {%f14, %f15};\n";
    } else {
      // a0 = v0 + v2, a1 = v0 - v2, a2 = v1 + v3, a3 = v1 - v3; X0 = a0 + a2, X2 = a0 - a2,
      // X1 = a1 - i sgn a3, X3 = a1 + i sgn a3 (sgn +1 forward).
      s += "  add.rn." + T + " %f12, %f2, %f6; add.rn." + T + " %f13, %f3, %f7;\n"
           "  sub.rn." + T + " %f14, %f2, %f6; sub.rn." + T + " %f15, %f3, %f7;\n"
           "  add.rn." + T + " %f16, %f4, %f8; add.rn." + T + " %f17, %f5, %f9;\n"
           "  sub.rn." + T + " %f18, %f4, %f8; sub.rn." + T + " %f19, %f5, %f9;\n"
           "  mul.rn." + T + " %f18, %f18, %f1; mul.rn." + T + " %f19, %f19, %f1;\n"
           "  add.rn." + T + " %f2, %f12, %f16; add.rn." + T + " %f3, %f13, %f17;\n"
           "  add.rn." + T + " %f4, %f14, %f19; sub.rn." + T + " %f5, %f15, %f18;\n"
           "  sub.rn." + T + " %f6, %f12, %f16; sub.rn." + T + " %f7, %f13, %f17;\n"
           "  sub.rn." + T + " %f8, %f14, %f19; add.rn." + T + " %f9, %f15, %f18;\n";
      for (int q = 0; q < 4; ++q)
        s += "  st.global.v2." + T + " [%rd12], {%f" + std::to_string(2 + 2 * q) + ", %f" + std::to_string(3 + 2 * q) +
             "};" + (q < 3 ? " add.u64 %rd12, %rd12, %rd23;" : "") + "\n";
    }
    s += "DONE:\n  ret;\n}\n\n";
  }

  // Bluestein, first step: dst[line][k] = src[b][k][i] chirp(k) for k < n, 0 up to m (line = b s + i);
  // chirp's imaginary part times sgn.
  s += head("warpsim_fft_chirp_in", ".param .u64 src, .param .u64 dst, .param .u64 chirp, .param .u64 n, "
                                    ".param .u64 m, .param .u64 s, .param ." + T + " sgn");
  s += "  ld.param.u64 %rd3, [m]; ld.param.u64 %rd4, [n]; ld.param.u64 %rd5, [s];\n"
       "  rem.u64 %rd6, %rd1, %rd3; div.u64 %rd7, %rd1, %rd3;\n"
       "  mov." + T + " %f10, " + Z + "; mov." + T + " %f11, " + Z + ";\n"
       "  setp.ge.u64 %p2, %rd6, %rd4; @%p2 bra CIN_STORE;\n"
       "  rem.u64 %rd8, %rd7, %rd5; div.u64 %rd9, %rd7, %rd5;\n"
       "  mad.lo.u64 %rd10, %rd9, %rd4, %rd6; mad.lo.u64 %rd10, %rd10, %rd5, %rd8;\n"
       "  ld.param.u64 %rd11, [src]; mad.lo.u64 %rd11, %rd10, " + CS + ", %rd11; ld.global.v2." + T + " {%f1, %f2}, [%rd11];\n"
       "  ld.param.u64 %rd12, [chirp]; mad.lo.u64 %rd12, %rd6, " + CS + ", %rd12; ld.global.v2." + T + " {%f3, %f4}, [%rd12];\n"
       "  ld.param." + T + " %f5, [sgn]; mul.rn." + T + " %f4, %f4, %f5;\n" +
       cmul("%f10", "%f11", "%f1", "%f2", "%f3", "%f4") +
       "CIN_STORE:\n  ld.param.u64 %rd13, [dst]; mad.lo.u64 %rd13, %rd1, " + CS + ", %rd13;\n"
       "  st.global.v2." + T + " [%rd13], {%f10, %f11};\nDONE:\n  ret;\n}\n\n";

  // Bluestein, the convolution's pointwise product: buf[line][k] *= spec[k].
  s += head("warpsim_fft_pointwise", ".param .u64 buf, .param .u64 spec, .param .u64 m");
  s += "  ld.param.u64 %rd3, [m]; rem.u64 %rd4, %rd1, %rd3;\n"
       "  ld.param.u64 %rd5, [buf]; mad.lo.u64 %rd5, %rd1, " + CS + ", %rd5; ld.global.v2." + T + " {%f1, %f2}, [%rd5];\n"
       "  ld.param.u64 %rd6, [spec]; mad.lo.u64 %rd6, %rd4, " + CS + ", %rd6; ld.global.v2." + T + " {%f3, %f4}, [%rd6];\n" +
       cmul("%f10", "%f11", "%f1", "%f2", "%f3", "%f4") +
       "  st.global.v2." + T + " [%rd5], {%f10, %f11};\nDONE:\n  ret;\n}\n\n";

  // Bluestein, last step: dst[b][k][i] = src[line][k] chirp(k) (thread per element of dst).
  s += head("warpsim_fft_chirp_out", ".param .u64 src, .param .u64 dst, .param .u64 chirp, .param .u64 n, "
                                     ".param .u64 m, .param .u64 s, .param ." + T + " sgn");
  s += "  ld.param.u64 %rd3, [m]; ld.param.u64 %rd4, [n]; ld.param.u64 %rd5, [s];\n"
       "  rem.u64 %rd6, %rd1, %rd5; div.u64 %rd7, %rd1, %rd5; rem.u64 %rd8, %rd7, %rd4; div.u64 %rd9, %rd7, %rd4;\n"
       "  mad.lo.u64 %rd10, %rd9, %rd5, %rd6; mad.lo.u64 %rd10, %rd10, %rd3, %rd8;\n"
       "  ld.param.u64 %rd11, [src]; mad.lo.u64 %rd11, %rd10, " + CS + ", %rd11; ld.global.v2." + T + " {%f1, %f2}, [%rd11];\n"
       "  ld.param.u64 %rd12, [chirp]; mad.lo.u64 %rd12, %rd8, " + CS + ", %rd12; ld.global.v2." + T + " {%f3, %f4}, [%rd12];\n"
       "  ld.param." + T + " %f5, [sgn]; mul.rn." + T + " %f4, %f4, %f5;\n" +
       cmul("%f10", "%f11", "%f1", "%f2", "%f3", "%f4") +
       "  ld.param.u64 %rd13, [dst]; mad.lo.u64 %rd13, %rd1, " + CS + ", %rd13;\n"
       "  st.global.v2." + T + " [%rd13], {%f10, %f11};\nDONE:\n  ret;\n}\n\n";

  // The element (b, k0, k1, k2) of dims d0 x d1 x d2 (thread g) and its offset in elements
  // b dist + k0 st0 + k1 st1 + k2 st2 of a user's layout: %rd10 b, %rd11 k0, %rd12 k1, %rd13 k2.
  const std::string split =
      "  ld.param.u64 %rd3, [d0]; ld.param.u64 %rd4, [d1]; ld.param.u64 %rd5, [d2];\n"
      "  rem.u64 %rd13, %rd1, %rd5; div.u64 %rd6, %rd1, %rd5; rem.u64 %rd12, %rd6, %rd4; div.u64 %rd6, %rd6, %rd4;\n"
      "  rem.u64 %rd11, %rd6, %rd3; div.u64 %rd10, %rd6, %rd3;\n";
  auto offset = [&](const std::string& dst, const std::string& k0, const std::string& k1, const std::string& k2) {
    return "  ld.param.u64 %rd20, [dist]; mul.lo.u64 " + dst + ", %rd10, %rd20;\n"
           "  ld.param.u64 %rd20, [st0]; mad.lo.u64 " + dst + ", " + k0 + ", %rd20, " + dst + ";\n"
           "  ld.param.u64 %rd20, [st1]; mad.lo.u64 " + dst + ", " + k1 + ", %rd20, " + dst + ";\n"
           "  ld.param.u64 %rd20, [st2]; mad.lo.u64 " + dst + ", " + k2 + ", %rd20, " + dst + ";\n";
  };
  const std::string layout = ".param .u64 d0, .param .u64 d1, .param .u64 d2, .param .u64 st0, .param .u64 st1, "
                             ".param .u64 st2, .param .u64 dist, .param .u32 kind";
  // The user's input into the dense work array [b][k0][k1][k2] (thread g writes element g). kind
  // 0 complex, 1 real (imaginary part 0), 2 the half spectrum (d2/2 + 1 bins stored) of a
  // Hermitian array: bin k2 > d2/2 is conj(X(-k0, -k1, d2 - k2)).
  s += head("warpsim_fft_gather", ".param .u64 src, .param .u64 dst, " + layout);
  // %f3: the sign of the imaginary part read (-1 for a mirrored bin).
  s += split + "  ld.param.u32 %r4, [kind]; ld.param.u64 %rd21, [src];\n"
       "  mov." + T + " %f2, " + Z + "; mov." + T + " %f3, 0" + (dbl ? "d3FF0000000000000" : "f3F800000") + ";\n";
  s += "  setp.ne.u32 %p2, %r4, 1; @%p2 bra GATHER_COMPLEX;\n" + offset("%rd14", "%rd11", "%rd12", "%rd13") +
       "  mad.lo.u64 %rd15, %rd14, " + RS + ", %rd21; ld.global." + T + " %f1, [%rd15]; bra.uni GATHER_STORE;\n"
       "GATHER_COMPLEX:\n"
       "  setp.ne.u32 %p2, %r4, 2; @%p2 bra GATHER_DIRECT;\n"
       "  shr.u64 %rd16, %rd5, 1; setp.le.u64 %p3, %rd13, %rd16; @%p3 bra GATHER_DIRECT;\n"
       // the mirrored bin: (d0 - k0) mod d0, (d1 - k1) mod d1, d2 - k2; conjugated
       "  sub.u64 %rd11, %rd3, %rd11; rem.u64 %rd11, %rd11, %rd3; sub.u64 %rd12, %rd4, %rd12; rem.u64 %rd12, %rd12, %rd4;\n"
       "  sub.u64 %rd13, %rd5, %rd13; mov." + T + " %f3, 0" + (dbl ? "dBFF0000000000000" : "fBF800000") + ";\n"
       "GATHER_DIRECT:\n" + offset("%rd14", "%rd11", "%rd12", "%rd13") +
       "  mad.lo.u64 %rd15, %rd14, " + CS + ", %rd21; ld.global." + T + " %f1, [%rd15];\n"
       "  ld.global." + T + " %f4, [%rd15+" + RS + "]; mul.rn." + T + " %f2, %f4, %f3;\n"
       "GATHER_STORE:\n  ld.param.u64 %rd22, [dst]; mad.lo.u64 %rd22, %rd1, " + CS + ", %rd22;\n"
       "  st.global.v2." + T + " [%rd22], {%f1, %f2};\nDONE:\n  ret;\n}\n\n";

  // The work array [b][k0][k1][full2] out to the user's layout of d0 x d1 x d2 (d2 = full2/2 + 1
  // for R2C): kind 0 complex, 1 the real part.
  s += head("warpsim_fft_scatter", ".param .u64 src, .param .u64 dst, .param .u64 full2, " + layout);
  s += split + "  ld.param.u64 %rd7, [full2]; mad.lo.u64 %rd8, %rd10, %rd3, %rd11; mad.lo.u64 %rd8, %rd8, %rd4, %rd12;\n"
       "  mad.lo.u64 %rd8, %rd8, %rd7, %rd13; ld.param.u64 %rd9, [src]; mad.lo.u64 %rd9, %rd8, " + CS + ", %rd9;\n"
       "  ld.global.v2." + T + " {%f1, %f2}, [%rd9];\n" + offset("%rd14", "%rd11", "%rd12", "%rd13") +
       "  ld.param.u64 %rd21, [dst]; ld.param.u32 %r4, [kind]; setp.ne.u32 %p2, %r4, 1; @%p2 bra SCATTER_COMPLEX;\n"
       "  mad.lo.u64 %rd15, %rd14, " + RS + ", %rd21; st.global." + T + " [%rd15], %f1; bra.uni DONE;\n"
       "SCATTER_COMPLEX:\n"
       "  mad.lo.u64 %rd15, %rd14, " + CS + ", %rd21; st.global." + T + " [%rd15], %f1; st.global." + T +
       " [%rd15+" + RS + "], %f2;\nDONE:\n  ret;\n}\n";
  return s;
}

// A pass of an odd radix R (3, 5, 7, ..., kMaxRadix) as butterflies, like warpsim_fft_pass2/4
// (same parameters, thread per butterfly jj < n/R): the R-point DFT after the twiddles is written
// out with its cosines and sines as constants, X_q = sum_p v_p (cos(2 pi pq/R) - i sgn sin(2 pi pq/R)),
// four FMAs a term, about four times fewer instructions than the generic loop for R = 17..23.
std::string radix_ptx(bool dbl, int R) {
  const std::string T = dbl ? "f64" : "f32", CS = dbl ? "16" : "8";
  auto lit = [&](double v) {
    char b[32];
    if (dbl) {
      uint64_t u;
      std::memcpy(&u, &v, 8);
      std::snprintf(b, sizeof b, "0d%016llX", (unsigned long long)u);
    } else {
      const float f = float(v);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      std::snprintf(b, sizeof b, "0f%08X", u);
    }
    return std::string(b);
  };
  auto v = [](const char* base, int i) { return std::string("%") + base + std::to_string(i); };
  std::string s = ".version 7.0\n.target sm_70\n.address_size 64\n\n";
  s += ".visible .entry warpsim_fft_radix(.param .u64 total, .param .u64 in, .param .u64 out, .param .u64 tw, "
       ".param .u64 n, .param .u64 ns, .param .u64 s, .param ." + T + " sgn)\n{\n"
       "  .reg .pred %p<4>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<32>;\n  .reg ." + T + " %f<8>;\n";
  // vr/vi: the twiddled inputs; ur/ui: the same times sgn; xr/xi: the sums.
  for (const char* b : {"vr", "vi", "ur", "ui"}) s += "  .reg ." + T + " %" + b + "<" + std::to_string(R) + ">;\n";
  s += "  .reg ." + T + " %xr, %xi;\n"
       "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n"
       "  mul.wide.u32 %rd1, %r1, %r2; cvt.u64.u32 %rd2, %r3; add.u64 %rd1, %rd1, %rd2;\n"
       "  ld.param.u64 %rd2, [total]; setp.ge.u64 %p1, %rd1, %rd2; @%p1 bra DONE;\n"
       "  ld.param.u64 %rd3, [s]; ld.param.u64 %rd4, [n]; ld.param.u64 %rd6, [ns];\n"
       "  div.u64 %rd16, %rd4, " + std::to_string(R) + ";\n"
       "  rem.u64 %rd7, %rd1, %rd3; div.u64 %rd8, %rd1, %rd3; rem.u64 %rd9, %rd8, %rd16; div.u64 %rd10, %rd8, %rd16;\n"
       "  rem.u64 %rd13, %rd9, %rd6; div.u64 %rd14, %rd9, %rd6;\n"
       "  mul.lo.u64 %rd11, %rd6, " + std::to_string(R) + "; div.u64 %rd17, %rd4, %rd11; mul.lo.u64 %rd18, %rd13, %rd17;\n"
       "  mad.lo.u64 %rd19, %rd10, %rd4, %rd9; mad.lo.u64 %rd19, %rd19, %rd3, %rd7;\n"
       "  ld.param.u64 %rd20, [in]; mad.lo.u64 %rd19, %rd19, " + CS + ", %rd20;\n"
       "  mul.lo.u64 %rd21, %rd16, %rd3; mul.lo.u64 %rd21, %rd21, " + CS + ";\n"
       "  mul.lo.u64 %rd12, %rd14, %rd11; add.u64 %rd12, %rd12, %rd13; mad.lo.u64 %rd12, %rd10, %rd4, %rd12;\n"
       "  mad.lo.u64 %rd12, %rd12, %rd3, %rd7; ld.param.u64 %rd20, [out]; mad.lo.u64 %rd12, %rd12, " + CS + ", %rd20;\n"
       "  mul.lo.u64 %rd23, %rd6, %rd3; mul.lo.u64 %rd23, %rd23, " + CS + ";\n"
       "  ld.param.u64 %rd22, [tw]; mul.lo.u64 %rd18, %rd18, " + CS + "; mov.u64 %rd24, %rd22;\n"
       "  ld.param." + T + " %f1, [sgn];\n";
  for (int q = 0; q < R; ++q) {
    s += "  ld.global.v2." + T + " {" + v("vr", q) + ", " + v("vi", q) + "}, [%rd19]; add.u64 %rd19, %rd19, %rd21;\n";
    if (q) {
      // twiddle w^(q jlo n/(ns R)): table index q tstep, reached by adding tstep
      s += "  add.u64 %rd24, %rd24, %rd18; ld.global.v2." + T + " {%f2, %f3}, [%rd24]; mul.rn." + T + " %f3, %f3, %f1;\n"
           "  mul.rn." + T + " %f4, " + v("vr", q) + ", %f2; neg." + T + " %f5, " + v("vi", q) + "; fma.rn." + T + " %f4, %f5, %f3, %f4;\n"
           "  mul.rn." + T + " %f6, " + v("vr", q) + ", %f3; fma.rn." + T + " " + v("vi", q) + ", " + v("vi", q) + ", %f2, %f6;\n"
           "  mov." + T + " " + v("vr", q) + ", %f4;\n";
    }
    s += "  mul.rn." + T + " " + v("ur", q) + ", " + v("vr", q) + ", %f1; mul.rn." + T + " " + v("ui", q) + ", " + v("vi", q) + ", %f1;\n";
  }
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int q = 0; q < R; ++q) {
    s += "  mov." + T + " %xr, %vr0; mov." + T + " %xi, %vi0;\n";
    for (int p = 1; p < R; ++p) {
      const int e = p * q % R;
      if (e == 0) {
        s += "  add.rn." + T + " %xr, %xr, " + v("vr", p) + "; add.rn." + T + " %xi, %xi, " + v("vi", p) + ";\n";
        continue;
      }
      const double c = double(std::cos(2 * pi * e / R)), sn = double(std::sin(2 * pi * e / R));
      // (vr + i vi)(c - i sgn sn) = (vr c + sgn vi sn) + i (vi c - sgn vr sn)
      s += "  fma.rn." + T + " %xr, " + v("vr", p) + ", " + lit(c) + ", %xr; fma.rn." + T + " %xr, " + v("ui", p) + ", " +
           lit(sn) + ", %xr;\n  fma.rn." + T + " %xi, " + v("vi", p) + ", " + lit(c) + ", %xi; fma.rn." + T + " %xi, " +
           v("ur", p) + ", " + lit(-sn) + ", %xi;\n";
    }
    s += "  st.global.v2." + T + " [%rd12], {%xr, %xi}; add.u64 %rd12, %rd12, %rd23;\n";
  }
  s += "DONE:\n  ret;\n}\n";
  return s;
}
// The odd-radix kernel for (precision, R), loaded once (null, said once, if it cannot be).
void* radix_kernel(bool dbl, int R) {
  static std::mutex mu;
  static std::map<std::pair<bool, int>, void*> fns;
  std::lock_guard g(mu);
  if (auto it = fns.find({dbl, R}); it != fns.end()) return it->second;
  Driver& d = driver();
  void* mod = nullptr;
  void* fn = nullptr;
  const std::string ptx = radix_ptx(dbl, R);
  if (!d.ok || d.module_load_data(&mod, ptx.c_str()) != 0 || d.module_get_function(&fn, mod, "warpsim_fft_radix") != 0) {
    std::fprintf(stderr, "warpsim: cuFFT: cannot load warpsim's radix-%d FFT kernel; the generic pass runs\n", R);
    fn = nullptr;
  }
  return fns[{dbl, R}] = fn;
}

struct Module {
  void *pass = nullptr, *pass2 = nullptr, *pass4 = nullptr, *chirp_in = nullptr, *pointwise = nullptr, *chirp_out = nullptr, *gather = nullptr,
       *scatter = nullptr;
};
// The precision's kernels, loaded once (null members, said once, if they cannot be).
const Module* module_for(bool dbl) {
  static std::mutex mu;
  static std::map<bool, Module> mods;
  std::lock_guard g(mu);
  if (auto it = mods.find(dbl); it != mods.end()) return it->second.pass ? &it->second : nullptr;
  Driver& d = driver();
  Module m;
  void* mod = nullptr;
  const std::string ptx = fft_ptx(dbl);
  bool ok = d.ok && d.module_load_data(&mod, ptx.c_str()) == 0;
  auto get = [&](void*& fn, const char* name) { ok = ok && d.module_get_function(&fn, mod, name) == 0; };
  get(m.pass, "warpsim_fft_pass");
  get(m.pass2, "warpsim_fft_pass2");
  get(m.pass4, "warpsim_fft_pass4");
  get(m.chirp_in, "warpsim_fft_chirp_in");
  get(m.pointwise, "warpsim_fft_pointwise");
  get(m.chirp_out, "warpsim_fft_chirp_out");
  get(m.gather, "warpsim_fft_gather");
  get(m.scatter, "warpsim_fft_scatter");
  if (!ok) {
    std::fprintf(stderr, "warpsim: cuFFT: cannot load warpsim's FFT kernels (%s)\n", dbl ? "double" : "single");
    m = Module{};
  }
  auto& slot = mods[dbl] = m;
  return slot.pass ? &slot : nullptr;
}

// ---- plans
struct DeviceBuffer {
  uint64_t ptr = 0;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr) driver().mem_free(ptr);
  }
};

// One dimension's transform: its radices, twiddle table, and for Bluestein the chirp and the
// convolution length m with the chirp's spectra (forward and inverse, scaled by 1/m) and m's own
// radices and twiddles.
struct Dim {
  long long n = 1;
  std::vector<long long> radices;
  DeviceBuffer tw;
  bool bluestein = false;
  long long m = 0;
  std::vector<long long> m_radices;
  DeviceBuffer m_tw, chirp, spec_fwd, spec_inv;
};

struct Plan {
  int type = kC2C;
  bool dbl = false, real_in = false, real_out = false;  // R2C/D2Z read reals, C2R/Z2D write reals
  int rank = 1;
  long long n[3] = {1, 1, 1};  // logical sizes, padded at the front to rank 3
  long long batch = 1;
  bool in_basic = true, out_basic = true;  // no inembed / onembed: the dense layout
  long long inembed[3] = {1, 1, 1}, onembed[3] = {1, 1, 1}, istride = 1, idist = 0, ostride = 1, odist = 0;
  std::vector<std::unique_ptr<Dim>> dims;  // per logical dimension (3)
  size_t work_bytes = 0;
  DeviceBuffer own_work;  // when auto-allocating
  uint64_t user_work = 0;
  bool auto_alloc = true;
  void* stream = nullptr;
};

struct Plans {
  std::mutex mu;
  std::map<int, std::shared_ptr<Plan>> by_handle;  // the handles libcufft could not plan
  std::map<int, void*> streams;                     // cufftSetStream before a plan is made
  std::map<int, bool> auto_alloc;
  std::map<int, uint64_t> work_areas;
};
Plans& plans() {
  static Plans p;
  return p;
}
std::shared_ptr<Plan> own_plan(int handle) {
  Plans& ps = plans();
  std::lock_guard g(ps.mu);
  auto it = ps.by_handle.find(handle);
  return it == ps.by_handle.end() ? nullptr : it->second;
}

std::vector<long long> factor(long long n) {
  std::vector<long long> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  for (long long p = 2; p * p <= n; ++p)
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  return f;
}

template <class T>
bool upload(DeviceBuffer& b, const std::vector<std::complex<double>>& v) {
  std::vector<T> h(2 * v.size());
  for (size_t i = 0; i < v.size(); ++i) h[2 * i] = T(v[i].real()), h[2 * i + 1] = T(v[i].imag());
  Driver& d = driver();
  return d.mem_alloc(&b.ptr, h.size() * sizeof(T)) == 0 && d.memcpy_htod(b.ptr, h.data(), h.size() * sizeof(T)) == 0;
}
bool upload(DeviceBuffer& b, const std::vector<std::complex<double>>& v, bool dbl) {
  return dbl ? upload<double>(b, v) : upload<float>(b, v);
}
// e^(-2 pi i k / n), k < n, in long double before rounding to double.
std::vector<std::complex<double>> twiddles(long long n) {
  std::vector<std::complex<double>> w(static_cast<size_t>(n));
  for (long long k = 0; k < n; ++k) {
    const long double a = -2.0L * 3.141592653589793238462643383279502884L * (long double)k / (long double)n;
    w[size_t(k)] = {double(std::cos(a)), double(std::sin(a))};
  }
  return w;
}
// In-place iterative radix-2 FFT in double (host), sign -1 forward.
void host_fft(std::vector<std::complex<double>>& a, int sign) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const auto w = twiddles(static_cast<long long>(n));
  for (size_t len = 2; len <= n; len <<= 1)
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < len / 2; ++k) {
        std::complex<double> t = w[k * (n / len)];
        if (sign > 0) t = std::conj(t);
        const auto u = a[i + k], v = a[i + k + len / 2] * t;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
}

bool make_dim(Dim& d, long long n, bool dbl) {
  d.n = n;
  if (n == 1) return true;
  d.radices = factor(n);
  d.bluestein = std::any_of(d.radices.begin(), d.radices.end(), [](long long p) { return p > kMaxRadix; });
  if (!d.bluestein) return upload(d.tw, twiddles(n), dbl);
  d.m = 1;
  while (d.m < 2 * n - 1) d.m <<= 1;
  d.m_radices = factor(d.m);
  // chirp(k) = e^(-pi i k^2 / n), k^2 reduced mod 2n exactly.
  std::vector<std::complex<double>> chirp(static_cast<size_t>(n));
  for (long long k = 0; k < n; ++k) {
    const long long e = (long long)((unsigned __int128)(k) * (unsigned __int128)(k) % (unsigned __int128)(2 * n));
    const long double a = -3.141592653589793238462643383279502884L * (long double)e / (long double)n;
    chirp[size_t(k)] = {double(std::cos(a)), double(std::sin(a))};
  }
  // The convolution kernel: conj(chirp) forward, chirp inverse, at 0..n-1 and m-n+1..m-1.
  std::vector<std::complex<double>> fwd(size_t(d.m)), inv(size_t(d.m));
  for (long long k = 0; k < n; ++k) {
    fwd[size_t(k)] = std::conj(chirp[size_t(k)]), inv[size_t(k)] = chirp[size_t(k)];
    if (k) fwd[size_t(d.m - k)] = fwd[size_t(k)], inv[size_t(d.m - k)] = inv[size_t(k)];
  }
  host_fft(fwd, -1);
  host_fft(inv, -1);
  for (auto* v : {&fwd, &inv})
    for (auto& x : *v) x /= double(d.m);
  return upload(d.chirp, chirp, dbl) && upload(d.m_tw, twiddles(d.m), dbl) && upload(d.spec_fwd, fwd, dbl) &&
         upload(d.spec_inv, inv, dbl);
}

long long prod(const long long* v, int k) {
  long long p = 1;
  for (int i = 0; i < k; ++i) p *= v[i];
  return p;
}

// The plan for these arguments (null and a cuFFT result for arguments it cannot take).
std::shared_ptr<Plan> make_plan(int rank, const long long* n, const long long* inembed, long long istride,
                                long long idist, const long long* onembed, long long ostride, long long odist,
                                int type, long long batch, Result& res) {
  res = kInvalidValue;
  if (rank < 1 || rank > 3 || !n || batch < 1) return nullptr;
  auto p = std::make_shared<Plan>();
  p->type = type;
  switch (type) {
    case kC2C: break;
    case kZ2Z: p->dbl = true; break;
    case kR2C: p->real_in = true; break;
    case kD2Z: p->real_in = p->dbl = true; break;
    case kC2R: p->real_out = true; break;
    case kZ2D: p->real_out = p->dbl = true; break;
    default: res = kInvalidType; return nullptr;
  }
  p->rank = rank;
  for (int i = 0; i < rank; ++i) {
    if (n[i] < 1) { res = kInvalidSize; return nullptr; }
    p->n[3 - rank + i] = n[i];
  }
  p->batch = batch;
  p->in_basic = !inembed;
  p->out_basic = !onembed;
  for (int i = 0; i < rank; ++i) {
    if (inembed) p->inembed[3 - rank + i] = inembed[i];
    if (onembed) p->onembed[3 - rank + i] = onembed[i];
  }
  p->istride = istride, p->idist = idist, p->ostride = ostride, p->odist = odist;
  if ((inembed && istride < 1) || (onembed && ostride < 1)) return nullptr;
  if (!module_for(p->dbl)) { res = kInternalError; return nullptr; }
  size_t lines_m = 0;  // the largest Bluestein buffer, in complex elements
  const long long total = prod(p->n, 3) * batch;
  for (int i = 0; i < 3; ++i) {
    p->dims.push_back(std::make_unique<Dim>());
    if (!make_dim(*p->dims.back(), p->n[i], p->dbl)) { res = kAllocFailed; return nullptr; }
    if (p->dims.back()->bluestein) lines_m = std::max(lines_m, size_t(total / p->n[i] * p->dims.back()->m));
  }
  const size_t cs = p->dbl ? 16 : 8;
  // Two dense arrays (passes go back and forth) and Bluestein's two padded ones.
  p->work_bytes = (2 * size_t(total) + 2 * lines_m) * cs;
  res = kSuccess;
  return p;
}

Result allocate_work(Plan& p) {
  if (!p.auto_alloc || p.own_work.ptr || !p.work_bytes) return kSuccess;
  return driver().mem_alloc(&p.own_work.ptr, p.work_bytes) == 0 ? kSuccess : kAllocFailed;
}

unsigned grid_for(uint64_t total) { return unsigned((total + 255) / 256); }

// Runs the Stockham passes of one length (radices, twiddle table) over layout [b][n][s] from
// `a`, ping-ponging with `b`; returns where the result is.
struct Launcher {
  const Module* mod;
  void* stream;
  bool dbl;
  bool ok = true;
  void launch(void* fn, uint64_t total, std::vector<void*> params) {
    if (!ok || total == 0) return;
    const unsigned grid = grid_for(total);
    ok = driver().launch(fn, grid, 1, 1, 256, 1, 1, 0, stream, params.data(), nullptr) == 0;
  }
  uint64_t passes(uint64_t a, uint64_t b, uint64_t tw, long long n, const std::vector<long long>& radices, long long s,
                  uint64_t total, int dir) {
    uint64_t ns = 1, un = uint64_t(n), us = uint64_t(s);
    const double sd = dir == kForward ? 1.0 : -1.0;
    const float sf = float(sd);
    for (long long r : radices) {
      uint64_t ur = uint64_t(r);
      void* sgn = dbl ? (void*)&sd : (void*)&sf;
      void* odd = r % 2 && r <= kMaxRadix ? radix_kernel(dbl, int(r)) : nullptr;
      if (r == 2 || r == 4 || odd) {
        uint64_t butterflies = total / ur;
        launch(r == 2 ? mod->pass2 : r == 4 ? mod->pass4 : odd, butterflies, {&butterflies, &a, &b, &tw, &un, &ns, &us, sgn});
      } else {
        launch(mod->pass, total, {&total, &a, &b, &tw, &un, &ur, &ns, &us, sgn});
      }
      std::swap(a, b);
      ns *= ur;
    }
    return a;
  }
};

Result exec(Plan& p, void* in, void* out, int dir) {
  if (!in || !out) return kInvalidValue;
  if (dir != kForward && dir != kInverse) return kInvalidValue;
  const Module* mod = module_for(p.dbl);
  if (!mod) return kExecFailed;
  const uint64_t work = p.auto_alloc ? p.own_work.ptr : p.user_work;
  if (p.work_bytes && !work) return kInvalidValue;  // no work area set where auto-allocation is off
  const size_t cs = p.dbl ? 16 : 8;
  const uint64_t total = uint64_t(prod(p.n, 3) * p.batch);
  uint64_t a = work, b = work + total * cs;
  const uint64_t ba = work + 2 * total * cs;
  Launcher L{mod, p.stream, p.dbl};
  // Element strides of the user's arrays; the real side of an in-place transform with the basic
  // layout is padded to 2 (n/2 + 1) reals a row, as cuFFT's is.
  const bool in_place = in == out;
  const long long last = p.n[2], half = last / 2 + 1;
  auto strides = [&](bool basic, const long long* embed, long long stride, long long dist, bool real_side,
                     bool half_side, uint64_t st[3], uint64_t& d) {
    long long e[3] = {p.n[0], p.n[1], p.n[2]};
    long long str = 1;
    if (basic) {
      if (half_side) e[2] = half;
      else if (real_side && in_place) e[2] = 2 * half;
    } else {
      e[1] = embed[1], e[2] = embed[2];
      str = stride;
    }
    st[2] = uint64_t(str);
    st[1] = uint64_t(str * e[2]);
    st[0] = uint64_t(str * e[2] * e[1]);
    d = basic ? uint64_t(p.n[0] * e[1] * e[2]) : uint64_t(dist);
  };
  uint64_t ist[3], idist, ost[3], odist;
  strides(p.in_basic, p.inembed, p.istride, p.idist, p.real_in, p.real_out, ist, idist);
  strides(p.out_basic, p.onembed, p.ostride, p.odist, p.real_out, p.real_in, ost, odist);
  uint64_t d0 = uint64_t(p.n[0]), d1 = uint64_t(p.n[1]), d2 = uint64_t(p.n[2]);
  uint64_t src = uintptr_t(in), dst = uintptr_t(out);
  unsigned kind = p.real_in ? 1 : p.real_out ? 2 : 0;
  L.launch(mod->gather, total, {(void*)&total, &src, &a, &d0, &d1, &d2, &ist[0], &ist[1], &ist[2], &idist, &kind});
  // Real transforms go one way: R2C forward, C2R inverse, whatever `dir` says.
  if (p.real_in) dir = kForward;
  if (p.real_out) dir = kInverse;
  for (int i = 0; i < 3; ++i) {
    const Dim& dim = *p.dims[size_t(i)];
    if (dim.n == 1) continue;
    const long long s = prod(p.n + i + 1, 2 - i);
    if (!dim.bluestein) {
      const uint64_t r = L.passes(a, b, dim.tw.ptr, dim.n, dim.radices, s, total, dir);
      if (r != a) std::swap(a, b);
      continue;
    }
    // Bluestein: chirp into [line][m] (ba), m-point FFT, times the spectrum, inverse, chirp out.
    const uint64_t lines = total / uint64_t(dim.n), bt = lines * uint64_t(dim.m);
    uint64_t bb = ba + bt * cs, un = uint64_t(dim.n), um = uint64_t(dim.m), us = uint64_t(s);
    const double sd = dir == kForward ? 1.0 : -1.0;
    const float sf = float(sd);
    void* sgn = p.dbl ? (void*)&sd : (void*)&sf;
    uint64_t chirp = dim.chirp.ptr, spec = dir == kForward ? dim.spec_fwd.ptr : dim.spec_inv.ptr;
    uint64_t cur = ba;
    L.launch(mod->chirp_in, bt, {(void*)&bt, &a, &cur, &chirp, &un, &um, &us, sgn});
    cur = L.passes(ba, bb, dim.m_tw.ptr, dim.m, dim.m_radices, 1, bt, kForward);
    L.launch(mod->pointwise, bt, {(void*)&bt, &cur, &spec, &um});
    uint64_t other = cur == ba ? bb : ba;
    cur = L.passes(cur, other, dim.m_tw.ptr, dim.m, dim.m_radices, 1, bt, kInverse);
    L.launch(mod->chirp_out, total, {(void*)&total, &cur, &a, &chirp, &un, &um, &us, sgn});
  }
  uint64_t full2 = d2;
  if (p.real_in) d2 = uint64_t(half);
  const uint64_t out_total = d0 * d1 * d2 * uint64_t(p.batch);
  kind = p.real_out ? 1 : 0;
  L.launch(mod->scatter, out_total,
           {(void*)&out_total, &a, &dst, &full2, &d0, &d1, &d2, &ost[0], &ost[1], &ost[2], &odist, &kind});
  return L.ok ? kSuccess : kExecFailed;
}

// ---- plan making: libcufft first, this file's plan when libcufft cannot
thread_local int depth = 0;  // libcufft's own make-plan functions may call each other through us
bool falls_back(Result r) { return r == kInternalError || r == kSetupFailed || r == kNotSupported; }

Result adopt(int handle, std::shared_ptr<Plan> p, size_t* work_size) {
  Plans& ps = plans();
  {
    std::lock_guard g(ps.mu);
    if (auto it = ps.streams.find(handle); it != ps.streams.end()) p->stream = it->second;
    if (auto it = ps.auto_alloc.find(handle); it != ps.auto_alloc.end()) p->auto_alloc = it->second;
    if (auto it = ps.work_areas.find(handle); it != ps.work_areas.end()) p->user_work = it->second;
  }
  if (Result r = allocate_work(*p); r != kSuccess) return r;
  if (work_size) *work_size = p->work_bytes;
  {
    std::lock_guard g(ps.mu);
    ps.by_handle[handle] = p;
  }
  static std::once_flag told;
  std::call_once(told, [] {
    // After libcufft's own attempt, whose refused SASS-only module the driver has reported.
    std::fprintf(stderr, "warpsim: note: cuFFT plans that libcufft cannot make here (their kernels are SASS only) run as "
                         "warpsim's own FFT kernels: results to rounding, cycles of those kernels, not of cuFFT's\n");
  });
  return kSuccess;
}

// Tries libcufft's `call`; where it fails for want of runnable kernels, makes this file's plan.
template <class Call>
Result make_or_fallback(int handle, Call call, int rank, const long long* n, const long long* inembed, long long istride,
                        long long idist, const long long* onembed, long long ostride, long long odist, int type,
                        long long batch, size_t* work_size) {
  if (depth > 0) return call();
  // WARPSIM_CUFFT_OWN=1: every plan is this file's (how its kernels are tested on sizes libcufft
  // can run itself, tests/cudart/CMakeLists.txt).
  static const bool own = [] {
    const char* e = std::getenv("WARPSIM_CUFFT_OWN");
    return e && std::strcmp(e, "1") == 0;
  }();
  Result r = kInternalError;
  if (!own) {
    ++depth;
    r = call();
    --depth;
  }
  {
    Plans& ps = plans();
    std::lock_guard g(ps.mu);
    ps.by_handle.erase(handle);  // a handle planned again
  }
  if (r == kSuccess || !falls_back(r)) return r;
  Result mine;
  auto p = make_plan(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, mine);
  if (!p) return mine == kSuccess ? kInternalError : mine;
  return adopt(handle, std::move(p), work_size);
}

std::vector<long long> widen(int rank, const int* v) {
  std::vector<long long> w;
  if (v)
    for (int i = 0; i < std::max(rank, 0) && i < 3; ++i) w.push_back(v[i]);
  return w;
}

Result exec_or_next(int handle, void* in, void* out, int dir, int type, auto next_call) {
  if (auto p = own_plan(handle)) {
    if (p->type != type) return kInvalidValue;  // cuFFT's answer for an exec of the wrong type
    return exec(*p, in, out, dir);
  }
  return next_call();
}

}  // namespace

#define WARPSIM_CUFFT extern "C" __attribute__((visibility("default")))

WARPSIM_CUFFT Result cufftMakePlanMany64(int plan, int rank, long long* n, long long* inembed, long long istride,
                                         long long idist, long long* onembed, long long ostride, long long odist,
                                         int type, long long batch, size_t* ws) {
  using F = Result (*)(int, int, long long*, long long*, long long, long long, long long*, long long, long long, int,
                       long long, size_t*);
  static const F next = real<F>("cufftMakePlanMany64");
  if (!next) return kInternalError;
  return make_or_fallback(
      plan, [&] { return next(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, ws); },
      rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, ws);
}

WARPSIM_CUFFT Result cufftMakePlanMany(int plan, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                                       int ostride, int odist, int type, int batch, size_t* ws) {
  using F = Result (*)(int, int, int*, int*, int, int, int*, int, int, int, int, size_t*);
  static const F next = real<F>("cufftMakePlanMany");
  if (!next) return kInternalError;
  const auto nn = widen(rank, n), ie = widen(rank, inembed), oe = widen(rank, onembed);
  return make_or_fallback(
      plan, [&] { return next(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, ws); },
      rank, n ? nn.data() : nullptr, inembed ? ie.data() : nullptr, istride, idist, onembed ? oe.data() : nullptr,
      ostride, odist, type, batch, ws);
}

WARPSIM_CUFFT Result cufftMakePlan1d(int plan, int nx, int type, int batch, size_t* ws) {
  using F = Result (*)(int, int, int, int, size_t*);
  static const F next = real<F>("cufftMakePlan1d");
  if (!next) return kInternalError;
  const long long n[1] = {nx};
  return make_or_fallback(plan, [&] { return next(plan, nx, type, batch, ws); }, 1, n, nullptr, 1, 0, nullptr, 1, 0,
                          type, batch, ws);
}
WARPSIM_CUFFT Result cufftMakePlan2d(int plan, int nx, int ny, int type, size_t* ws) {
  using F = Result (*)(int, int, int, int, size_t*);
  static const F next = real<F>("cufftMakePlan2d");
  if (!next) return kInternalError;
  const long long n[2] = {nx, ny};
  return make_or_fallback(plan, [&] { return next(plan, nx, ny, type, ws); }, 2, n, nullptr, 1, 0, nullptr, 1, 0,
                          type, 1, ws);
}
WARPSIM_CUFFT Result cufftMakePlan3d(int plan, int nx, int ny, int nz, int type, size_t* ws) {
  using F = Result (*)(int, int, int, int, int, size_t*);
  static const F next = real<F>("cufftMakePlan3d");
  if (!next) return kInternalError;
  const long long n[3] = {nx, ny, nz};
  return make_or_fallback(plan, [&] { return next(plan, nx, ny, nz, type, ws); }, 3, n, nullptr, 1, 0, nullptr, 1, 0,
                          type, 1, ws);
}

// cufftXtMakePlanMany: the single and double precision types of the cufftType set; half and
// bfloat16 plans stay libcufft's.
WARPSIM_CUFFT Result cufftXtMakePlanMany(int plan, int rank, long long* n, long long* inembed, long long istride,
                                         long long idist, int itype, long long* onembed, long long ostride,
                                         long long odist, int otype, long long batch, size_t* ws, int etype) {
  using F = Result (*)(int, int, long long*, long long*, long long, long long, int, long long*, long long, long long,
                       int, long long, size_t*, int);
  static const F next = real<F>("cufftXtMakePlanMany");
  if (!next) return kInternalError;
  int type = -1;
  if (itype == kCudaC32F && otype == kCudaC32F && etype == kCudaC32F) type = kC2C;
  else if (itype == kCudaC64F && otype == kCudaC64F && etype == kCudaC64F) type = kZ2Z;
  else if (itype == kCudaR32F && otype == kCudaC32F && etype == kCudaC32F) type = kR2C;
  else if (itype == kCudaR64F && otype == kCudaC64F && etype == kCudaC64F) type = kD2Z;
  else if (itype == kCudaC32F && otype == kCudaR32F && etype == kCudaC32F) type = kC2R;
  else if (itype == kCudaC64F && otype == kCudaR64F && etype == kCudaC64F) type = kZ2D;
  auto call = [&] {
    return next(plan, rank, n, inembed, istride, idist, itype, onembed, ostride, odist, otype, batch, ws, etype);
  };
  if (type < 0) return call();
  return make_or_fallback(plan, call, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, ws);
}

// The one-call plans: libcufft's handle, then the make-plan path above (so a plan libcufft cannot
// make is still a handle libcufft knows, for its destroy and its setters).
WARPSIM_CUFFT Result cufftCreate(int* plan);
WARPSIM_CUFFT Result cufftDestroy(int plan);
static Result plan_with(int* plan, auto make) {
  if (!plan) return kInvalidValue;
  if (Result r = cufftCreate(plan); r != kSuccess) return r;
  size_t ws = 0;
  Result r = make(*plan, &ws);
  if (r != kSuccess) cufftDestroy(*plan);
  return r;
}
WARPSIM_CUFFT Result cufftPlan1d(int* plan, int nx, int type, int batch) {
  return plan_with(plan, [&](int h, size_t* ws) { return cufftMakePlan1d(h, nx, type, batch, ws); });
}
WARPSIM_CUFFT Result cufftPlan2d(int* plan, int nx, int ny, int type) {
  return plan_with(plan, [&](int h, size_t* ws) { return cufftMakePlan2d(h, nx, ny, type, ws); });
}
WARPSIM_CUFFT Result cufftPlan3d(int* plan, int nx, int ny, int nz, int type) {
  return plan_with(plan, [&](int h, size_t* ws) { return cufftMakePlan3d(h, nx, ny, nz, type, ws); });
}
WARPSIM_CUFFT Result cufftPlanMany(int* plan, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                                   int ostride, int odist, int type, int batch) {
  return plan_with(plan, [&](int h, size_t* ws) {
    return cufftMakePlanMany(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, ws);
  });
}

WARPSIM_CUFFT Result cufftCreate(int* plan) {
  using F = Result (*)(int*);
  static const F next = real<F>("cufftCreate");
  return next ? next(plan) : kInternalError;
}
WARPSIM_CUFFT Result cufftDestroy(int plan) {
  {
    Plans& ps = plans();
    std::lock_guard g(ps.mu);
    ps.by_handle.erase(plan);
    ps.streams.erase(plan);
    ps.auto_alloc.erase(plan);
    ps.work_areas.erase(plan);
  }
  using F = Result (*)(int);
  static const F next = real<F>("cufftDestroy");
  return next ? next(plan) : kInternalError;
}

WARPSIM_CUFFT Result cufftSetStream(int plan, void* stream) {
  using F = Result (*)(int, void*);
  static const F next = real<F>("cufftSetStream");
  Result r = next ? next(plan, stream) : kInternalError;
  Plans& ps = plans();
  std::lock_guard g(ps.mu);
  if (auto it = ps.by_handle.find(plan); it != ps.by_handle.end()) it->second->stream = stream, r = kSuccess;
  else if (r == kSuccess) ps.streams[plan] = stream;
  return r;
}
WARPSIM_CUFFT Result cufftSetAutoAllocation(int plan, int autoAllocate) {
  using F = Result (*)(int, int);
  static const F next = real<F>("cufftSetAutoAllocation");
  Result r = next ? next(plan, autoAllocate) : kInternalError;
  Plans& ps = plans();
  std::lock_guard g(ps.mu);
  if (r == kSuccess) ps.auto_alloc[plan] = autoAllocate != 0;
  return r;
}
WARPSIM_CUFFT Result cufftSetWorkArea(int plan, void* area) {
  if (auto p = own_plan(plan)) {
    p->user_work = uintptr_t(area);
    return kSuccess;
  }
  using F = Result (*)(int, void*);
  static const F next = real<F>("cufftSetWorkArea");
  Result r = next ? next(plan, area) : kInternalError;
  Plans& ps = plans();
  std::lock_guard g(ps.mu);
  if (r == kSuccess) ps.work_areas[plan] = uintptr_t(area);
  return r;
}
WARPSIM_CUFFT Result cufftGetSize(int plan, size_t* ws) {
  if (auto p = own_plan(plan)) {
    if (!ws) return kInvalidValue;
    *ws = p->work_bytes;
    return kSuccess;
  }
  using F = Result (*)(int, size_t*);
  static const F next = real<F>("cufftGetSize");
  return next ? next(plan, ws) : kInternalError;
}

WARPSIM_CUFFT Result cufftExecC2C(int plan, void* in, void* out, int dir) {
  using F = Result (*)(int, void*, void*, int);
  static const F next = real<F>("cufftExecC2C");
  return exec_or_next(plan, in, out, dir, kC2C, [&] { return next ? next(plan, in, out, dir) : kInternalError; });
}
WARPSIM_CUFFT Result cufftExecZ2Z(int plan, void* in, void* out, int dir) {
  using F = Result (*)(int, void*, void*, int);
  static const F next = real<F>("cufftExecZ2Z");
  return exec_or_next(plan, in, out, dir, kZ2Z, [&] { return next ? next(plan, in, out, dir) : kInternalError; });
}
WARPSIM_CUFFT Result cufftExecR2C(int plan, void* in, void* out) {
  using F = Result (*)(int, void*, void*);
  static const F next = real<F>("cufftExecR2C");
  return exec_or_next(plan, in, out, kForward, kR2C, [&] { return next ? next(plan, in, out) : kInternalError; });
}
WARPSIM_CUFFT Result cufftExecD2Z(int plan, void* in, void* out) {
  using F = Result (*)(int, void*, void*);
  static const F next = real<F>("cufftExecD2Z");
  return exec_or_next(plan, in, out, kForward, kD2Z, [&] { return next ? next(plan, in, out) : kInternalError; });
}
WARPSIM_CUFFT Result cufftExecC2R(int plan, void* in, void* out) {
  using F = Result (*)(int, void*, void*);
  static const F next = real<F>("cufftExecC2R");
  return exec_or_next(plan, in, out, kInverse, kC2R, [&] { return next ? next(plan, in, out) : kInternalError; });
}
WARPSIM_CUFFT Result cufftExecZ2D(int plan, void* in, void* out) {
  using F = Result (*)(int, void*, void*);
  static const F next = real<F>("cufftExecZ2D");
  return exec_or_next(plan, in, out, kInverse, kZ2D, [&] { return next ? next(plan, in, out) : kInternalError; });
}
// cufftXtExec: the plan's own type decides (direction ignored for real transforms, as cuFFT does).
WARPSIM_CUFFT Result cufftXtExec(int plan, void* in, void* out, int dir) {
  if (auto p = own_plan(plan)) return exec(*p, in, out, dir);
  using F = Result (*)(int, void*, void*, int);
  static const F next = real<F>("cufftXtExec");
  return next ? next(plan, in, out, dir) : kInternalError;
}
