// libwarpsim_preload.so: cuBLAS's GEMM entry points for programs run by `warpsim run`
// (preloaded, so they take the place of libcublas's own; everything else stays libcublas's).
//
// Why: cuBLAS ships the GEMM kernels it picks for an A100 or H100 as SASS-only cubins, and warpsim
// runs PTX, so cublasSgemm & co. failed with CUBLAS_STATUS_EXECUTION_FAILED. Here a GEMM runs as
// warpsim's own PTX kernel (one thread per element of C, k-loop of FMAs in the compute type), on
// the handle's stream, through the driver API of the simulated GPU. Results are those of a
// correctly rounded-per-FMA GEMM in the compute type; cuBLAS's own kernels may sum in another
// order, so results agree to rounding, not bit for bit. The kernel's cycles are this kernel's,
// not cuBLAS's: said once on stderr.
//
// Covered: cublas{S,D,H,C,Z}gemm and Cgemm3m/Zgemm3m, their StridedBatched and Batched forms,
// cublasGemmEx, cublasGemmStridedBatchedEx, cublasGemmBatchedEx and cublasSgemmEx for real f16/bf16/f32/f64 data
// with compute type 16F/32F/64F (fast/pedantic variants as 32F), complex c32/c64 and int8 -> int32
// (compute 32I); cublas{S,D,C,Z}{syrk,syrkx,syr2k} and cublas{C,Z}{herk,herkx,her2k} (one triangle
// of C; a real diagonal for the Hermitian ones); cublas{S,D,C,Z}trmm (the GEMM kernel with a
// triangular operand); cublas{S,D,C,Z}trsm (a kernel of its own); cublasLtMatmul and its heuristic
// (see there); cublas{S,D,C,Z}symm and cublas{C,Z}hemm (A written out in full, then the GEMM kernel);
// the 64-bit-index _64 forms of these, which cuSOLVER calls. Anything else (other types) is passed
// to libcublas unchanged.
//
// cublas{S,D,C,Z}gemv go to libcublas first: its GEMV kernels for small matrices are PTX and
// run; for larger ones it picks SASS-only kernels and fails with CUBLAS_STATUS_EXECUTION_FAILED
// (a 385 x 385 DGEMV does), and then the same product runs as the GEMM kernel with one row (y^T =
// x^T op(A)^T). Only for positive incx and incy; negative strides keep libcublas's failure.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "preload_kernels.hpp"

namespace {

using namespace warpsim::preload;

// ---- the few cuBLAS / CUDA ABI values used (cublas_api.h, library_types.h, cuda.h)
using Status = int;
constexpr Status kOk = 0, kNotInitialized = 1, kInvalidValue = 7, kExecutionFailed = 13;
constexpr int kOpN = 0, kOpT = 1, kOpC = 2;
constexpr int kR16F = 2, kR32F = 0, kR64F = 1, kR16BF = 14;
constexpr int kCompute16F = 64, kCompute16FPedantic = 65, kCompute32F = 68, kCompute32FPedantic = 69,
              kCompute64F = 70, kCompute64FPedantic = 71, kCompute32FFast16F = 74, kCompute32FFast16BF = 75,
              kCompute32FFastTF32 = 77;
constexpr int kPointerModeDevice = 1;

enum class Elem { F16, BF16, F32, F64, S8, S32, C32, C64 };
bool is_complex(Elem e) { return e == Elem::C32 || e == Elem::C64; }
unsigned elem_bytes(Elem e) {
  switch (e) {
    case Elem::S8: return 1;
    case Elem::F16: case Elem::BF16: return 2;
    case Elem::F32: case Elem::S32: return 4;
    case Elem::F64: case Elem::C32: return 8;
    case Elem::C64: return 16;
  }
  return 4;
}
// The PTX type of an element (of one part, for complex types).
const char* elem_ptx(Elem e) {
  switch (e) {
    case Elem::F16: return "f16";
    case Elem::BF16: return "bf16";
    case Elem::F32: case Elem::C32: return "f32";
    case Elem::F64: case Elem::C64: return "f64";
    case Elem::S8: return "s8";
    case Elem::S32: return "s32";
  }
  return "f32";
}
const char* elem_name(Elem e) { return e == Elem::C32 ? "c32" : e == Elem::C64 ? "c64" : elem_ptx(e); }
constexpr int kR8I = 3, kR32I = 10, kC32F = 4, kC64F = 5, kCompute32I = 72, kCompute32IPedantic = 73;
bool elem_of(int cuda_type, Elem& e) {
  switch (cuda_type) {
    case kR16F: e = Elem::F16; return true;
    case kR16BF: e = Elem::BF16; return true;
    case kR32F: e = Elem::F32; return true;
    case kR64F: e = Elem::F64; return true;
    case kR8I: e = Elem::S8; return true;
    case kR32I: e = Elem::S32; return true;
    case kC32F: e = Elem::C32; return true;
    case kC64F: e = Elem::C64; return true;
    default: return false;
  }
}

// ---- the kernel: PTX text for one (A/B type, C/D type, compute type) combination
// Parameters: m n k, alpha beta (compute type; for complex types real and imaginary parts), A lda
// (elements) strideA (bytes) opA, B ldb strideB opB, C ldc strideC, arrays (A/B/C are device arrays
// of per-batch pointers, D = C), D ldd strideD, tri (0 all of C, 1 its lower, 2 its upper
// triangle), epi (bits: 1 ReLU, 2 GELU, 4 bias), bias (a vector of m in the D type). Grid (m/16,
// n/16, batch), block 16x16; thread (i, j) computes
//   D(i, j) = epilogue(alpha sum_l op(A)(i, l) op(B)(l, j) + beta C(i, j) [+ bias(i)]).
// op 0 N, 1 T, 2 C (conjugate transpose). Integer GEMMs (s8 in, s32 out) multiply-add exactly.
std::string gemm_ptx(Elem in, Elem out, Elem acc) {
  const bool cplx = is_complex(acc), integer = acc == Elem::S32, half = acc == Elem::F16;
  const std::string a = elem_ptx(acc);  // the compute register type (complex: of one part)
  const std::string rt = half ? "f16" : a;  // arithmetic type
  const std::string pt = half ? "b16" : a;  // parameter type
  const std::string zero = acc == Elem::F64 || acc == Elem::C64 ? "0d0000000000000000" : integer ? "0" : "0f00000000";
  const std::string in_b = std::to_string(elem_bytes(in)), out_b = std::to_string(elem_bytes(out));
  // Loads and stores in a memory element type, converting to and from the compute type.
  auto load = [&](const std::string& dst, const std::string& addr, Elem e) -> std::string {
    if (e == Elem::S8) return "ld.global.s8 " + dst + ", [" + addr + "];\n";
    if (e == acc) return "ld.global." + std::string(e == Elem::F16 ? "b16" : elem_ptx(e)) + " " + dst + ", [" + addr + "];\n";
    if (e == Elem::F16 || e == Elem::BF16)
      return "ld.global.b16 %h1, [" + addr + "];\n  cvt." + a + "." + elem_ptx(e) + " " + dst + ", %h1;\n";
    return "ld.global." + std::string(elem_ptx(e)) + " %x1, [" + addr + "];\n  cvt" +
           (elem_bytes(e) > elem_bytes(acc) ? ".rn." : ".") + a + "." + elem_ptx(e) + " " + dst + ", %x1;\n";
  };
  auto store = [&](const std::string& addr, const std::string& src, Elem e) -> std::string {
    if (e == acc) return "st.global." + std::string(e == Elem::F16 ? "b16" : elem_ptx(e)) + " [" + addr + "], " + src + ";\n";
    if (e == Elem::F16 || e == Elem::BF16)
      return std::string("cvt.rn.") + elem_ptx(e) + "." + a + " %h1, " + src + ";\n  st.global.b16 [" + addr + "], %h1;\n";
    return std::string("cvt") + (elem_bytes(e) < elem_bytes(acc) ? ".rn." : ".") + elem_ptx(e) + "." + a + " %x1, " +
           src + ";\n  st.global." + elem_ptx(e) + " [" + addr + "], %x1;\n";
  };
  const char* other = acc == Elem::F64 ? "f32" : "f64";
  std::string s;
  s += ".version 7.8\n.target ";
  s += (in == Elem::BF16 || out == Elem::BF16 || half) ? "sm_80" : "sm_75";
  s += "\n.address_size 64\n.visible .entry warpsim_gemm(.param .u32 m, .param .u32 n, .param .u32 k,\n";
  if (cplx)
    s += "  .param ." + pt + " alpha, .param ." + pt + " alpha_im, .param ." + pt + " beta, .param ." + pt + " beta_im,\n";
  else
    s += "  .param ." + pt + " alpha, .param ." + pt + " beta,\n";
  s += "  .param .u64 A, .param .u64 lda, .param .u64 sA, .param .u32 opA,\n"
       "  .param .u64 B, .param .u64 ldb, .param .u64 sB, .param .u32 opB,\n"
       "  .param .u64 C, .param .u64 ldc, .param .u64 sC, .param .u32 arrays,\n"
       "  .param .u64 D, .param .u64 ldd, .param .u64 sD, .param .u32 tri, .param .u32 epi, .param .u64 bias,\n"
       "  .param .u32 triA, .param .u32 triB)\n{\n"
       "  .reg .pred %p<16>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<32>;\n  .reg .b16 %h<4>;\n";
  s += "  .reg ." + rt + " %v<24>;\n  .reg ." + other + " %x<2>;\n  .reg .f32 %g<8>;\n";
  s += R"(  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;
  mov.u32 %r1, %ctaid.y; mov.u32 %r2, %ntid.y; mov.u32 %r3, %tid.y; mad.lo.s32 %r5, %r1, %r2, %r3;
  ld.param.u32 %r6, [m]; ld.param.u32 %r7, [n]; ld.param.u32 %r8, [k];
  setp.ge.u32 %p1, %r4, %r6; setp.ge.u32 %p2, %r5, %r7; or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  ld.param.u32 %r14, [tri]; and.b32 %r21, %r14, 3;
  setp.eq.u32 %p4, %r21, 1; setp.lt.u32 %p5, %r4, %r5; and.pred %p4, %p4, %p5; @%p4 bra DONE;
  setp.eq.u32 %p4, %r21, 2; setp.gt.u32 %p5, %r4, %r5; and.pred %p4, %p4, %p5; @%p4 bra DONE;
  mov.u32 %r9, %ctaid.z; cvt.u64.u32 %rd1, %r9;
  ld.param.u64 %rd2, [A]; ld.param.u64 %rd3, [B]; ld.param.u64 %rd4, [C]; ld.param.u64 %rd21, [D];
  ld.param.u32 %r10, [arrays]; setp.ne.u32 %p3, %r10, 0;
  @%p3 bra ARRAYS;
  ld.param.u64 %rd5, [sA]; mad.lo.s64 %rd2, %rd1, %rd5, %rd2;
  ld.param.u64 %rd5, [sB]; mad.lo.s64 %rd3, %rd1, %rd5, %rd3;
  ld.param.u64 %rd5, [sC]; mad.lo.s64 %rd4, %rd1, %rd5, %rd4;
  ld.param.u64 %rd5, [sD]; mad.lo.s64 %rd21, %rd1, %rd5, %rd21;
  bra.uni READY;
ARRAYS:
  shl.b64 %rd5, %rd1, 3;
  add.s64 %rd6, %rd2, %rd5; ld.global.u64 %rd2, [%rd6];
  add.s64 %rd6, %rd3, %rd5; ld.global.u64 %rd3, [%rd6];
  add.s64 %rd6, %rd4, %rd5; ld.global.u64 %rd4, [%rd6];
  mov.u64 %rd21, %rd4;
READY:
  cvt.u64.u32 %rd7, %r4; cvt.u64.u32 %rd8, %r5;
  ld.param.u64 %rd9, [lda]; ld.param.u32 %r11, [opA]; setp.ne.u32 %p2, %r11, 0;
  selp.b64 %rd10, %rd9, 1, %p2; selp.b64 %rd11, 1, %rd9, %p2;
  ld.param.u64 %rd12, [ldb]; ld.param.u32 %r12, [opB]; setp.ne.u32 %p2, %r12, 0;
  selp.b64 %rd13, %rd12, 1, %p2; selp.b64 %rd14, 1, %rd12, %p2;
)";
  // %rd15 = &A(i, 0), step %rd17 bytes; %rd16 = &B(0, j), step %rd18 bytes.
  s += "  mul.lo.s64 %rd15, %rd7, %rd10; mad.lo.s64 %rd15, %rd15, " + in_b + ", %rd2;\n";
  s += "  mul.lo.s64 %rd16, %rd8, %rd14; mad.lo.s64 %rd16, %rd16, " + in_b + ", %rd3;\n";
  s += "  mul.lo.s64 %rd17, %rd11, " + in_b + "; mul.lo.s64 %rd18, %rd13, " + in_b + ";\n";
  s += "  ld.param.u64 %rd19, [ldc]; mad.lo.s64 %rd20, %rd8, %rd19, %rd7; mad.lo.s64 %rd20, %rd20, " + out_b + ", %rd4;\n";
  s += "  ld.param.u64 %rd19, [ldd]; mad.lo.s64 %rd22, %rd8, %rd19, %rd7; mad.lo.s64 %rd22, %rd22, " + out_b + ", %rd21;\n";
  s += "  mov.u32 %r13, 0;\n";
  // Triangular operands (TRMM): triA / triB bits 1 stored lower, 2 stored upper, 4 unit
  // diagonal; op(X)(r, c) is stored at (r, c), or (c, r) when transposed. For complex elements
  // `vi` is the imaginary part (zeroed with the real one; 0 on a unit diagonal).
  const bool tri_ops = in == acc && (acc == Elem::F32 || acc == Elem::F64 || cplx);
  const std::string unit_one = acc == Elem::F64 || acc == Elem::C64 ? "0d3FF0000000000000" : "0f3F800000";
  auto mask = [&](const std::string& v, const std::string& vi, const std::string& tri, const std::string& tp,
                  const std::string& r, const std::string& c, const std::string& label) {
    std::string m = "  setp.eq.u32 %p10, " + tri + ", 0; @%p10 bra " + label + ";\n";
    m += "  selp.b32 %r16, " + c + ", " + r + ", " + tp + "; selp.b32 %r17, " + r + ", " + c + ", " + tp + ";\n";
    m += "  and.b32 %r20, " + tri + ", 1; setp.ne.u32 %p10, %r20, 0; setp.lt.u32 %p11, %r16, %r17; and.pred %p11, %p11, %p10;\n";
    m += "  and.b32 %r20, " + tri + ", 2; setp.ne.u32 %p10, %r20, 0; setp.gt.u32 %p12, %r16, %r17; and.pred %p12, %p12, %p10;\n";
    m += "  or.pred %p11, %p11, %p12; @%p11 mov." + a + " " + v + ", " + zero + ";\n";
    if (!vi.empty()) m += "  @%p11 mov." + a + " " + vi + ", " + zero + ";\n";
    m += "  and.b32 %r20, " + tri + ", 4; setp.ne.u32 %p10, %r20, 0; setp.eq.u32 %p12, %r16, %r17; and.pred %p10, %p10, %p12;\n";
    m += "  @%p10 mov." + a + " " + v + ", " + unit_one + ";\n";
    if (!vi.empty()) m += "  @%p10 mov." + a + " " + vi + ", " + zero + ";\n";
    return m + label + ":\n";
  };
  if (tri_ops)
    s += "  ld.param.u32 %r18, [triA]; ld.param.u32 %r19, [triB]; setp.ne.u32 %p8, %r11, 0; setp.ne.u32 %p9, %r12, 0;\n";
  if (cplx) {
    // Conjugation signs of A and B (op 2), and the complex multiply-add loop.
    const std::string one = acc == Elem::C64 ? "0d3FF0000000000000" : "0f3F800000";
    const std::string mone = acc == Elem::C64 ? "0dBFF0000000000000" : "0fBF800000";
    s += "  setp.eq.u32 %p2, %r11, 2; selp." + a + " %v20, " + mone + ", " + one + ", %p2;\n";
    s += "  setp.eq.u32 %p2, %r12, 2; selp." + a + " %v21, " + mone + ", " + one + ", %p2;\n";
    s += "  mov." + a + " %v1, " + zero + "; mov." + a + " %v2, " + zero + ";\n";
    s += "  setp.eq.u32 %p2, %r8, 0;\n  @%p2 bra EPILOGUE;\nLOOP:\n";
    s += "  ld.global.v2." + a + " {%v3, %v4}, [%rd15];\n  ld.global.v2." + a + " {%v5, %v6}, [%rd16];\n";
    s += mask("%v3", "%v4", "%r18", "%p8", "%r4", "%r13", "ATRI");   // op(A)(i, l)
    s += mask("%v5", "%v6", "%r19", "%p9", "%r13", "%r5", "BTRI");   // op(B)(l, j)
    s += "  mul." + a + " %v4, %v4, %v20; mul." + a + " %v6, %v6, %v21; neg." + a + " %v7, %v4;\n";
    s += "  fma.rn." + a + " %v1, %v3, %v5, %v1; fma.rn." + a + " %v1, %v7, %v6, %v1;\n";
    s += "  fma.rn." + a + " %v2, %v3, %v6, %v2; fma.rn." + a + " %v2, %v4, %v5, %v2;\n";
    s += "  add.s64 %rd15, %rd15, %rd17; add.s64 %rd16, %rd16, %rd18;\n";
    s += "  add.u32 %r13, %r13, 1; setp.lt.u32 %p2, %r13, %r8;\n  @%p2 bra LOOP;\nEPILOGUE:\n";
    // (v1, v2) * alpha; + beta * C unless beta is 0 (then C is not read).
    s += "  ld.param." + a + " %v8, [alpha]; ld.param." + a + " %v9, [alpha_im];\n";
    s += "  mul.rn." + a + " %v10, %v1, %v8; neg." + a + " %v11, %v2; fma.rn." + a + " %v10, %v11, %v9, %v10;\n";
    s += "  mul.rn." + a + " %v12, %v1, %v9; fma.rn." + a + " %v12, %v2, %v8, %v12;\n";
    s += "  ld.param." + a + " %v8, [beta]; ld.param." + a + " %v9, [beta_im];\n";
    s += "  setp.eq." + a + " %p2, %v8, " + zero + "; setp.eq." + a + " %p3, %v9, " + zero + "; and.pred %p2, %p2, %p3;\n";
    s += "  @%p2 bra STORE;\n";
    s += "  ld.global.v2." + a + " {%v3, %v4}, [%rd20];\n";
    s += "  fma.rn." + a + " %v10, %v8, %v3, %v10; neg." + a + " %v11, %v9; fma.rn." + a + " %v10, %v11, %v4, %v10;\n";
    s += "  fma.rn." + a + " %v12, %v8, %v4, %v12; fma.rn." + a + " %v12, %v9, %v3, %v12;\n";
    // Hermitian results (tri bit 4): the diagonal's imaginary part is zero by definition.
    s += "STORE:\n  and.b32 %r21, %r14, 4; setp.ne.u32 %p2, %r21, 0; setp.eq.u32 %p3, %r4, %r5; and.pred %p2, %p2, %p3;\n";
    s += "  @%p2 mov." + a + " %v12, " + zero + ";\n";
    s += "  st.global.v2." + a + " [%rd22], {%v10, %v12};\n";
  } else {
    const std::string mad = integer ? "mad.lo.s32" : "fma.rn." + rt;
    s += half ? "  mov.b16 %v1, 0;\n" : "  mov." + a + " %v1, " + zero + ";\n";
    // Triangular operands (TRMM): triA / triB bits 1 stored lower, 2 stored upper, 4 unit
    // diagonal; op(X)(r, c) is stored at (r, c), or (c, r) when transposed.
    s += "  setp.eq.u32 %p2, %r8, 0;\n  @%p2 bra EPILOGUE;\nLOOP:\n";
    s += "  " + load("%v2", "%rd15", in) + "  " + load("%v3", "%rd16", in);
    if (tri_ops) {
      s += mask("%v2", "", "%r18", "%p8", "%r4", "%r13", "ATRI");   // op(A)(i, l)
      s += mask("%v3", "", "%r19", "%p9", "%r13", "%r5", "BTRI");   // op(B)(l, j)
    }
    s += "  " + mad + " %v1, %v2, %v3, %v1;\n";
    s += "  add.s64 %rd15, %rd15, %rd17; add.s64 %rd16, %rd16, %rd18;\n";
    s += "  add.u32 %r13, %r13, 1; setp.lt.u32 %p2, %r13, %r8;\n  @%p2 bra LOOP;\nEPILOGUE:\n";
    s += "  ld.param." + pt + " %v4, [alpha];\n  ld.param." + pt + " %v5, [beta];\n";
    s += integer ? "  mul.lo.s32 %v1, %v1, %v4;\n" : "  mul.rn." + rt + " %v1, %v1, %v4;\n";
    // beta == 0: C is not read (it may hold NaN), as the BLAS specifies.
    s += half ? "  mov.b16 %h2, %v5;\n  and.b16 %h2, %h2, 0x7fff;\n  setp.eq.b16 %p2, %h2, 0;\n"
              : "  setp.eq." + a + " %p2, %v5, " + zero + ";\n";
    s += "  @%p2 bra BIAS;\n";
    s += "  " + load("%v6", "%rd20", out);
    s += "  " + mad + " %v1, %v5, %v6, %v1;\nBIAS:\n";
    if (acc == Elem::F32) {
      // cublasLt's epilogues (f32 compute): + bias(i), then ReLU or GELU (tanh form).
      s += "  ld.param.u32 %r15, [epi];\n  and.b32 %r16, %r15, 4; setp.eq.u32 %p2, %r16, 0;\n  @%p2 bra ACT;\n";
      s += "  ld.param.u64 %rd23, [bias]; mad.lo.s64 %rd23, %rd7, " + out_b + ", %rd23;\n";
      s += "  " + load("%v7", "%rd23", out) + "  add.rn.f32 %v1, %v1, %v7;\nACT:\n";
      s += "  and.b32 %r16, %r15, 1; setp.eq.u32 %p2, %r16, 0;\n  @%p2 bra GELU;\n  max.f32 %v1, %v1, 0f00000000;\nGELU:\n";
      s += "  and.b32 %r16, %r15, 2; setp.eq.u32 %p2, %r16, 0;\n  @%p2 bra STORE;\n";
      // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      s += "  mul.rn.f32 %g1, %v1, %v1; mul.rn.f32 %g1, %g1, %v1; fma.rn.f32 %g1, %g1, 0f3D372713, %v1;\n"
           "  mul.rn.f32 %g1, %g1, 0f3F4C422A; tanh.approx.f32 %g1, %g1; add.rn.f32 %g1, %g1, 0f3F800000;\n"
           "  mul.rn.f32 %g1, %g1, %v1; mul.rn.f32 %v1, %g1, 0f3F000000;\n";
    }
    s += "STORE:\n  " + store("%rd22", "%v1", out);
  }
  s += "DONE:\n  ret;\n}\n";
  return s;
}

void* kernel_for(Elem in, Elem out, Elem acc) {
  // By type names: complex types share their parts' PTX type with the real ones.
  const std::string key = std::string(elem_name(in)) + "." + elem_name(out) + "." + elem_name(acc);
  void* fn = cached_kernel(key, "warpsim_gemm", [&] { return gemm_ptx(in, out, acc); });
  static std::once_flag told;
  std::call_once(told, [] {
    std::fprintf(stderr, "warpsim: note: cuBLAS's GEMMs (SASS-only in libcublas) run as warpsim's own GEMM kernel: "
                         "results to rounding, cycles of that kernel, not of cuBLAS's\n");
  });
  return fn;
}

// The handle's stream and pointer mode (libcublas's own getters).
Status handle_state(void* h, void*& stream, int& mode) {
  using GetStream = Status (*)(void*, void**);
  using GetMode = Status (*)(void*, int*);
  static const auto get_stream = real<GetStream>("cublasGetStream_v2");
  static const auto get_mode = real<GetMode>("cublasGetPointerMode_v2");
  if (!h || !get_stream || !get_mode || get_stream(h, &stream) != kOk || get_mode(h, &mode) != kOk)
    return kNotInitialized;
  return kOk;
}

struct Gemm {
  void* handle;
  int opa, opb, m, n, k;
  const void *alpha, *beta;
  const void *a, *b;
  void* c;
  int lda, ldb, ldc;
  long long sa = 0, sb = 0, sc = 0;  // elements between batches
  int batch = 1;
  bool arrays = false;
  Elem in = Elem::F32, out = Elem::F32, acc = Elem::F32;
  const char* blas_name = nullptr;  // for the reference-BLAS error line cuBLAS prints (SGEMM, DGEMM)
  // D (the output) when it is not C: cublasLt's D = alpha op(A) op(B) + beta C.
  void* d = nullptr;
  int ldd = 0;
  long long sd = 0;
  int tri = 0;               // 0 all of C, 1 its lower triangle, 2 its upper (SYRK & co.)
  unsigned epi = 0;          // cublasLt epilogue: 1 ReLU, 2 GELU, 4 bias
  const void* bias = nullptr;
  // Without a cuBLAS handle (cublasLt): the stream and whether alpha/beta are device pointers.
  void* stream = nullptr;
  int mode = 0;
  const void* beta_host = nullptr;  // beta on the host whatever the pointer mode (SYR2K's second half: 1)
  unsigned tri_a = 0, tri_b = 0;    // TRMM: A or B triangular (1 lower, 2 upper stored; 4 unit diagonal)
  // Complex GEMMs with real scalars (HERK's alpha and beta), and conj(alpha) (HER2K's second half).
  bool real_alpha = false, real_beta = false, conj_alpha = false;
  bool swap_ab = false;  // cublasLt, row-major D: the caller's A is this GEMM's B and the other way round
};

Status run(const Gemm& g) {
  // The reference BLAS's checks in its order, numbered as its arguments (TRANSA 1 ... LDC 13);
  // cuBLAS prints the same line on stdout for its xGEMMs (seen on our H100).
  auto bad_op = [](int op) { return op != kOpN && op != kOpT && op != kOpC; };
  const int rows_a = g.opa == kOpN ? g.m : g.k, rows_b = g.opb == kOpN ? g.k : g.n;
  const int info = bad_op(g.opa) ? 1 : bad_op(g.opb) ? 2 : g.m < 0 ? 3 : g.n < 0 ? 4 : g.k < 0 ? 5
                 : g.lda < std::max(1, rows_a) ? 8 : g.ldb < std::max(1, rows_b) ? 10 : g.ldc < std::max(1, g.m) ? 13 : 0;
  if (info) {
    if (g.blas_name) std::printf(" ** On entry to %s  parameter number %d had an illegal value\n", g.blas_name, info);
    return kInvalidValue;
  }
  if (g.batch < 0) return kInvalidValue;
  if (g.m == 0 || g.n == 0 || g.batch == 0) return kOk;
  if (!g.alpha || !g.beta) return kInvalidValue;
  void* stream = g.stream;
  int mode = g.mode;
  if (g.handle && handle_state(g.handle, stream, mode) != kOk) return kNotInitialized;
  void* fn = kernel_for(g.in, g.out, g.acc);
  if (!fn) return kExecutionFailed;
  Driver& d = driver();
  // alpha and beta by value in the compute type; from device memory in device pointer mode.
  const size_t sbytes = elem_bytes(g.acc);
  alignas(16) unsigned char alpha[16] = {}, beta[16] = {};
  if (mode == kPointerModeDevice) {
    const size_t abytes = g.real_alpha ? sbytes / 2 : sbytes, bbytes = g.real_beta ? sbytes / 2 : sbytes;
    if (d.stream_sync(stream) != 0 || d.memcpy_dtoh(alpha, uint64_t(uintptr_t(g.alpha)), abytes) != 0 ||
        (!g.beta_host && d.memcpy_dtoh(beta, uint64_t(uintptr_t(g.beta)), bbytes) != 0))
      return kExecutionFailed;
  } else {
    std::memcpy(alpha, g.alpha, g.real_alpha ? sbytes / 2 : sbytes);
    std::memcpy(beta, g.beta, g.real_beta ? sbytes / 2 : sbytes);
  }
  if (g.beta_host) std::memcpy(beta, g.beta_host, sbytes);
  if (is_complex(g.acc)) {
    // Real scalars were read as the real part and whatever followed: their imaginary part is 0.
    const size_t half = sbytes / 2;
    if (g.real_alpha) std::memset(alpha + half, 0, half);
    if (g.real_beta && !g.beta_host) std::memset(beta + half, 0, half);
    if (g.conj_alpha) {
      if (g.acc == Elem::C32) {
        float im;
        std::memcpy(&im, alpha + 4, 4);
        im = -im;
        std::memcpy(alpha + 4, &im, 4);
      } else {
        double im;
        std::memcpy(&im, alpha + 8, 8);
        im = -im;
        std::memcpy(alpha + 8, &im, 8);
      }
    }
  }
  const size_t part = is_complex(g.acc) ? sbytes / 2 : sbytes;
  unsigned m = unsigned(g.m), n = unsigned(g.n), k = unsigned(g.k);
  uint64_t pa = uintptr_t(g.a), pb = uintptr_t(g.b), pc = uintptr_t(g.c), pd = uintptr_t(g.d ? g.d : g.c);
  uint64_t lda = uint64_t(g.lda), ldb = uint64_t(g.ldb), ldc = uint64_t(g.ldc), ldd = uint64_t(g.d ? g.ldd : g.ldc);
  uint64_t sa = uint64_t(g.sa) * elem_bytes(g.in), sb = uint64_t(g.sb) * elem_bytes(g.in),
           sc = uint64_t(g.sc) * elem_bytes(g.out), sd = uint64_t(g.d ? g.sd : g.sc) * elem_bytes(g.out);
  unsigned opa = unsigned(g.opa), opb = unsigned(g.opb), arrays = g.arrays, tri = unsigned(g.tri), epi = g.epi;
  uint64_t bias = uintptr_t(g.bias);
  unsigned tri_a = g.tri_a, tri_b = g.tri_b;
  std::vector<void*> params = {&m, &n, &k, alpha};
  if (is_complex(g.acc)) params.push_back(alpha + part);
  params.push_back(beta);
  if (is_complex(g.acc)) params.push_back(beta + part);
  const size_t first_ptr = params.size();  // A, then B 4 later, C 4 after that, D 4 after that
  for (void* p : {static_cast<void*>(&pa), static_cast<void*>(&lda), static_cast<void*>(&sa), static_cast<void*>(&opa),
                  static_cast<void*>(&pb), static_cast<void*>(&ldb), static_cast<void*>(&sb), static_cast<void*>(&opb),
                  static_cast<void*>(&pc), static_cast<void*>(&ldc), static_cast<void*>(&sc), static_cast<void*>(&arrays),
                  static_cast<void*>(&pd), static_cast<void*>(&ldd), static_cast<void*>(&sd), static_cast<void*>(&tri),
                  static_cast<void*>(&epi), static_cast<void*>(&bias), static_cast<void*>(&tri_a),
                  static_cast<void*>(&tri_b)})
    params.push_back(p);
  const unsigned gx = (m + 15) / 16, gy = (n + 15) / 16;
  // Batches beyond the grid's z limit go in further launches.
  for (int done = 0; done < g.batch;) {
    const int now = std::min(g.batch - done, 65535);
    uint64_t pa_now = pa, pb_now = pb, pc_now = pc, pd_now = pd;
    if (arrays) pa_now += uint64_t(done) * 8, pb_now += uint64_t(done) * 8, pc_now += uint64_t(done) * 8;
    else pa_now += uint64_t(done) * sa, pb_now += uint64_t(done) * sb, pc_now += uint64_t(done) * sc, pd_now += uint64_t(done) * sd;
    params[first_ptr] = &pa_now;
    params[first_ptr + 4] = &pb_now;
    params[first_ptr + 8] = &pc_now;
    params[first_ptr + 12] = &pd_now;
    if (d.launch(fn, gx, gy, unsigned(now), 16, 16, 1, 0, stream, params.data(), nullptr) != 0) return kExecutionFailed;
    done += now;
  }
  return kOk;
}

// The compute type's element, and whether cuBLAS takes this combination at all.
bool compute_elem(int compute, Elem& acc) {
  switch (compute) {
    case kCompute16F: case kCompute16FPedantic: acc = Elem::F16; return true;
    case kCompute32F: case kCompute32FPedantic: case kCompute32FFast16F: case kCompute32FFast16BF:
    case kCompute32FFastTF32: acc = Elem::F32; return true;
    case kCompute64F: case kCompute64FPedantic: acc = Elem::F64; return true;
    default: return false;
  }
}
bool ex_types(int atype, int btype, int ctype, int compute, Gemm& g) {
  Elem a, b, c, acc;
  if (!elem_of(atype, a) || !elem_of(btype, b) || !elem_of(ctype, c) || a != b) return false;
  if (compute == kCompute32I || compute == kCompute32IPedantic) {
    // int8 inputs, int32 result and int32 alpha/beta.
    if (a != Elem::S8 || c != Elem::S32) return false;
    g.in = a, g.out = c, g.acc = Elem::S32;
    return true;
  }
  if (!compute_elem(compute, acc)) return false;
  if (is_complex(a)) {
    // Complex data keeps its width: C32 with 32F compute, C64 with 64F.
    if (c != a || (a == Elem::C32) != (acc == Elem::F32) || (a == Elem::C64) != (acc == Elem::F64)) return false;
    g.in = g.out = g.acc = a;
    return true;
  }
  // The combinations of cublasGemmEx's table for real types.
  const bool ok = (acc == Elem::F64 && a == Elem::F64 && c == Elem::F64) ||
                  (acc == Elem::F16 && a == Elem::F16 && c == Elem::F16) ||
                  (acc == Elem::F32 && (a == Elem::F16 || a == Elem::BF16 || a == Elem::F32) && (c == a || c == Elem::F32));
  if (!ok) return false;
  g.in = a, g.out = c, g.acc = acc;
  return true;
}

// The Ex forms: warpsim's kernel for the real types it covers, libcublas's own function (of type
// F, by name) with the caller's arguments otherwise.
template <class F, class... Args>
Status ex_or_next(Gemm& g, int atype, int btype, int ctype, int compute, const char* name, Args... args) {
  if (ex_types(atype, btype, ctype, compute, g)) return run(g);
  static const F next = real<F>(name);
  return next ? next(args...) : kNotInitialized;
}

}  // namespace

#define WARPSIM_CUBLAS extern "C" __attribute__((visibility("default")))

// cublas{S,D,C,Z}gemm, their StridedBatched and Batched forms (complex pointers as void).
#define WARPSIM_GEMM(P, T, E)                                                                                         \
  WARPSIM_CUBLAS Status cublas##P##gemm_v2(void* h, int ta, int tb, int m, int n, int k, const T* alpha, const T* A,  \
                                           int lda, const T* B, int ldb, const T* beta, T* C, int ldc) {              \
    Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};                                                  \
    g.in = g.out = g.acc = E;                                                                                         \
    g.blas_name = #P "GEMM";                                                                                          \
    return run(g);                                                                                                    \
  }                                                                                                                   \
  WARPSIM_CUBLAS Status cublas##P##gemmStridedBatched(void* h, int ta, int tb, int m, int n, int k, const T* alpha,   \
                                                      const T* A, int lda, long long sa, const T* B, int ldb,         \
                                                      long long sb, const T* beta, T* C, int ldc, long long sc,       \
                                                      int batch) {                                                    \
    Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, sa, sb, sc, batch};                               \
    g.in = g.out = g.acc = E;                                                                                         \
    return run(g);                                                                                                    \
  }                                                                                                                   \
  WARPSIM_CUBLAS Status cublas##P##gemmBatched(void* h, int ta, int tb, int m, int n, int k, const T* alpha,          \
                                               const T* const A[], int lda, const T* const B[], int ldb,              \
                                               const T* beta, T* const C[], int ldc, int batch) {                     \
    Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, const_cast<T**>(C), lda, ldb, ldc, 0, 0, 0, batch, true};           \
    g.in = g.out = g.acc = E;                                                                                         \
    return run(g);                                                                                                    \
  }
WARPSIM_GEMM(S, float, Elem::F32)
WARPSIM_GEMM(D, double, Elem::F64)
WARPSIM_GEMM(C, void, Elem::C32)
WARPSIM_GEMM(Z, void, Elem::C64)
#undef WARPSIM_GEMM
WARPSIM_CUBLAS Status cublasHgemm(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A,
                                  int lda, const void* B, int ldb, const void* beta, void* C, int ldc) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  g.in = g.out = g.acc = Elem::F16;
  return run(g);
}
WARPSIM_CUBLAS Status cublasHgemmStridedBatched(void* h, int ta, int tb, int m, int n, int k, const void* alpha,
                                                const void* A, int lda, long long sa, const void* B, int ldb,
                                                long long sb, const void* beta, void* C, int ldc, long long sc,
                                                int batch) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, sa, sb, sc, batch};
  g.in = g.out = g.acc = Elem::F16;
  return run(g);
}
WARPSIM_CUBLAS Status cublasGemmEx(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A,
                                   int atype, int lda, const void* B, int btype, int ldb, const void* beta, void* C,
                                   int ctype, int ldc, int compute, int algo) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  return ex_or_next<decltype(&cublasGemmEx)>(g, atype, btype, ctype, compute, "cublasGemmEx", h, ta, tb, m, n, k, alpha,
                                              A, atype, lda, B, btype, ldb, beta, C, ctype, ldc, compute, algo);
}
// cublasSgemmEx: the GemmEx of f16/bf16/f32 data with f32 scalars and compute (libcublas's picks
// SASS-only kernels and answers CUBLAS_STATUS_NOT_SUPPORTED for a 256 x 192 f16 product).
WARPSIM_CUBLAS Status cublasSgemmEx(void* h, int ta, int tb, int m, int n, int k, const float* alpha, const void* A,
                                    int atype, int lda, const void* B, int btype, int ldb, const float* beta, void* C,
                                    int ctype, int ldc) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  return ex_or_next<decltype(&cublasSgemmEx)>(g, atype, btype, ctype, kCompute32F, "cublasSgemmEx", h, ta, tb, m, n, k,
                                               alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc);
}
WARPSIM_CUBLAS Status cublasGemmStridedBatchedEx(void* h, int ta, int tb, int m, int n, int k, const void* alpha,
                                                 const void* A, int atype, int lda, long long sa, const void* B,
                                                 int btype, int ldb, long long sb, const void* beta, void* C,
                                                 int ctype, int ldc, long long sc, int batch, int compute, int algo) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, sa, sb, sc, batch};
  return ex_or_next<decltype(&cublasGemmStridedBatchedEx)>(g, atype, btype, ctype, compute, "cublasGemmStridedBatchedEx",
                                                            h, ta, tb, m, n, k, alpha, A, atype, lda, sa, B, btype,
                                                            ldb, sb, beta, C, ctype, ldc, sc, batch, compute, algo);
}
WARPSIM_CUBLAS Status cublasGemmBatchedEx(void* h, int ta, int tb, int m, int n, int k, const void* alpha,
                                          const void* const A[], int atype, int lda, const void* const B[], int btype,
                                          int ldb, const void* beta, void* const C[], int ctype, int ldc, int batch,
                                          int compute, int algo) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, const_cast<void**>(C), lda, ldb, ldc, 0, 0, 0, batch, true};
  return ex_or_next<decltype(&cublasGemmBatchedEx)>(g, atype, btype, ctype, compute, "cublasGemmBatchedEx", h, ta, tb,
                                                     m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc,
                                                     batch, compute, algo);
}

// ---- complex GEMMs (cuComplex / cuDoubleComplex: two parts, real first)
// The 3M forms compute the same product (with three real multiplications instead of four).
WARPSIM_CUBLAS Status cublasCgemm3m(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A,
                                    int lda, const void* B, int ldb, const void* beta, void* C, int ldc) {
  return cublasCgemm_v2(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
WARPSIM_CUBLAS Status cublasZgemm3m(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A,
                                    int lda, const void* B, int ldb, const void* beta, void* C, int ldc) {
  return cublasZgemm_v2(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
WARPSIM_CUBLAS Status cublasCgemm3mStridedBatched(void* h, int ta, int tb, int m, int n, int k, const void* alpha,
                                                  const void* A, int lda, long long sa, const void* B, int ldb,
                                                  long long sb, const void* beta, void* C, int ldc, long long sc,
                                                  int batch) {
  return cublasCgemmStridedBatched(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}

// ---- rank-k updates of one triangle of C: SYRK, SYR2K, SYRKX (libcublas runs them on its
// SASS-only GEMM kernels). uplo: CUBLAS_FILL_MODE_LOWER 0, UPPER 1.
namespace {
constexpr int kFillLower = 0, kFillUpper = 1;
// C = alpha op(A) op(B)^T + beta C on the triangle; op(X) is n x k (trans N) or X^T (trans T).
// The reference BLAS's argument check of xSYRK / xSYR2K / xSYRKX (`name`; two: with a B), numbered
// as its arguments, printed as cuBLAS prints it (seen on our H100).
Status illegal(const char* name, int info) {
  std::printf(" ** On entry to %s  parameter number %d had an illegal value\n", name, info);
  return kInvalidValue;
}
// The number of the first illegal argument of a rank-k update (0: none); `trans_ok` whether its
// trans is one the routine takes, `two` whether it has a B (SYR2K, SYRKX, HER2K, HERKX).
int rank_k_info(int uplo, bool trans_ok, int trans, int n, int k, int lda, int ldb, int ldc, bool two) {
  const int rows = trans == kOpN ? n : k;
  return uplo != kFillLower && uplo != kFillUpper ? 1
       : !trans_ok                                ? 2
       : n < 0                                    ? 3
       : k < 0                                    ? 4
       : lda < std::max(1, rows)                  ? 7
       : two && ldb < std::max(1, rows)           ? 9
       : ldc < std::max(1, n)                     ? (two ? 12 : 10)
                                                  : 0;
}
Status rank_k(void* h, Elem e, int uplo, int trans, int n, int k, const void* alpha, const void* A, int lda,
              const void* B, int ldb, const void* beta, void* C, int ldc, const char* name, bool two,
              const void* beta_host = nullptr) {
  if (!h) return kNotInitialized;
  // Symmetric updates take N and T (and C for real types, where it means T).
  const bool trans_ok = trans == kOpN || trans == kOpT || (trans == kOpC && !is_complex(e));
  if (int info = rank_k_info(uplo, trans_ok, trans, n, k, lda, ldb, ldc, two)) return illegal(name, info);
  const int t = trans == kOpN ? kOpN : kOpT;
  Gemm g{h, t, t == kOpN ? kOpT : kOpN, n, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  g.in = g.out = g.acc = e;
  g.tri = uplo == kFillLower ? 1 : 2;
  g.beta_host = beta_host;
  return run(g);
}
// Element types by the BLAS prefix.
constexpr Elem kS = Elem::F32, kD = Elem::F64, kC = Elem::C32, kZ = Elem::C64;
template <Elem E>
Status syr2k(void* h, int uplo, int trans, int n, int k, const void* alpha, const void* A, int lda, const void* B,
             int ldb, const void* beta, void* C, int ldc) {
  const char* name = E == kS ? "SSYR2K" : E == kD ? "DSYR2K" : E == kC ? "CSYR2K" : "ZSYR2K";
  if (Status st = rank_k(h, E, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, name, true); st != kOk) return st;
  static const double one[2] = {1.0, 0.0};
  static const float onef[2] = {1.0f, 0.0f};
  const void* unit = E == kS || E == kC ? static_cast<const void*>(onef) : static_cast<const void*>(one);
  return rank_k(h, E, uplo, trans, n, k, alpha, B, ldb, A, lda, beta, C, ldc, name, true, unit);
}
}  // namespace

#define WARPSIM_SYRK(P, T)                                                                                        \
  WARPSIM_CUBLAS Status cublas##P##syrk_v2(void* h, int uplo, int trans, int n, int k, const T* alpha, const T* A, \
                                           int lda, const T* beta, T* C, int ldc) {                               \
    return rank_k(h, k##P, uplo, trans, n, k, alpha, A, lda, A, lda, beta, C, ldc, #P "SYRK", false);             \
  }                                                                                                               \
  WARPSIM_CUBLAS Status cublas##P##syrkx(void* h, int uplo, int trans, int n, int k, const T* alpha, const T* A,  \
                                         int lda, const T* B, int ldb, const T* beta, T* C, int ldc) {            \
    return rank_k(h, k##P, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, #P "SYRKX", true);             \
  }                                                                                                               \
  WARPSIM_CUBLAS Status cublas##P##syr2k_v2(void* h, int uplo, int trans, int n, int k, const T* alpha,           \
                                            const T* A, int lda, const T* B, int ldb, const T* beta, T* C,        \
                                            int ldc) {                                                            \
    return syr2k<k##P>(h, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                                \
  }
WARPSIM_SYRK(S, float)
WARPSIM_SYRK(D, double)
WARPSIM_SYRK(C, void)
WARPSIM_SYRK(Z, void)
#undef WARPSIM_SYRK

// Hermitian rank-k updates: C = alpha op(A) op(B)^H + beta C on one triangle, op N or C, beta real,
// the diagonal's imaginary part set to 0. HERK: B = A, alpha real; HER2K adds conj(alpha) op(B)
// op(A)^H; HERKX: one product.
namespace {
Status herm_rank_k(void* h, Elem e, int uplo, int trans, int n, int k, const void* alpha, bool real_alpha,
                   const void* A, int lda, const void* B, int ldb, const void* beta, void* C, int ldc, const char* name,
                   bool two, bool second = false) {
  if (!h) return kNotInitialized;
  // Hermitian updates take N and C.
  if (int info = rank_k_info(uplo, trans == kOpN || trans == kOpC, trans, n, k, lda, ldb, ldc, two))
    return illegal(name, info);
  Gemm g{h, trans, trans == kOpN ? kOpC : kOpN, n, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  g.in = g.out = g.acc = e;
  g.tri = (uplo == kFillLower ? 1 : 2) | 4;
  g.real_alpha = real_alpha;
  g.real_beta = true;
  static const double one[2] = {1.0, 0.0};
  static const float onef[2] = {1.0f, 0.0f};
  if (second) {
    g.beta_host = e == Elem::C32 ? static_cast<const void*>(onef) : static_cast<const void*>(one);
    g.conj_alpha = true;
  }
  return run(g);
}
}  // namespace
#define WARPSIM_HERK(P, R)                                                                                         \
  WARPSIM_CUBLAS Status cublas##P##herk_v2(void* h, int uplo, int trans, int n, int k, const R* alpha,           \
                                           const void* A, int lda, const R* beta, void* C, int ldc) {            \
    return herm_rank_k(h, k##P, uplo, trans, n, k, alpha, true, A, lda, A, lda, beta, C, ldc, #P "HERK", false);  \
  }                                                                                                              \
  WARPSIM_CUBLAS Status cublas##P##herkx(void* h, int uplo, int trans, int n, int k, const void* alpha,          \
                                         const void* A, int lda, const void* B, int ldb, const R* beta, void* C, \
                                         int ldc) {                                                              \
    return herm_rank_k(h, k##P, uplo, trans, n, k, alpha, false, A, lda, B, ldb, beta, C, ldc, #P "HERKX", true); \
  }                                                                                                              \
  WARPSIM_CUBLAS Status cublas##P##her2k_v2(void* h, int uplo, int trans, int n, int k, const void* alpha,       \
                                            const void* A, int lda, const void* B, int ldb, const R* beta,       \
                                            void* C, int ldc) {                                                  \
    Status st = herm_rank_k(h, k##P, uplo, trans, n, k, alpha, false, A, lda, B, ldb, beta, C, ldc, #P "HER2K",  \
                            true);                                                                               \
    if (st != kOk) return st;                                                                                    \
    return herm_rank_k(h, k##P, uplo, trans, n, k, alpha, false, B, ldb, A, lda, beta, C, ldc, #P "HER2K", true, \
                       true);                                                                                    \
  }                                                                                                              \
  WARPSIM_CUBLAS Status cublas##P##herk_v2_64(void* h, int uplo, int trans, int64_t n, int64_t k, const R* alpha, \
                                              const void* A, int64_t lda, const R* beta, void* C, int64_t ldc) { \
    if (n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldc > INT32_MAX) return 15;                         \
    return cublas##P##herk_v2(h, uplo, trans, int(n), int(k), alpha, A, int(lda), beta, C, int(ldc));            \
  }                                                                                                              \
  WARPSIM_CUBLAS Status cublas##P##herkx_64(void* h, int uplo, int trans, int64_t n, int64_t k, const void* alpha, \
                                            const void* A, int64_t lda, const void* B, int64_t ldb, const R* beta, \
                                            void* C, int64_t ldc) {                                              \
    if (n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return 15;      \
    return cublas##P##herkx(h, uplo, trans, int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc)); \
  }                                                                                                              \
  WARPSIM_CUBLAS Status cublas##P##her2k_v2_64(void* h, int uplo, int trans, int64_t n, int64_t k,               \
                                               const void* alpha, const void* A, int64_t lda, const void* B,     \
                                               int64_t ldb, const R* beta, void* C, int64_t ldc) {               \
    if (n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return 15;      \
    return cublas##P##her2k_v2(h, uplo, trans, int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C,         \
                               int(ldc));                                                                        \
  }
WARPSIM_HERK(C, float)
WARPSIM_HERK(Z, double)
#undef WARPSIM_HERK

// ---- TRSM: op(A) X = alpha B (left) or X op(A) = alpha B (right), X over B. libcublas's larger
// solves update with its SASS-only GEMM kernels, and a solve that fails part way has already
// overwritten part of B, so every TRSM runs here: one thread per right-hand side (a column of B
// on the left, a row on the right) substituting along it. Real types.
namespace {
// Parameters: nv (right-hand sides), len, alpha, A lda, B, es (elements between a vector's
// elements), vs (elements between vectors), trans (use A^T), fwd (effective lower: forward), unit.
std::string trsm_ptx(Elem e) {
  // Complex elements: real parts in %v1..%v4, imaginary parts in %v9..%v12; `conj` conjugates A.
  const bool cplx = is_complex(e);
  const std::string t = elem_ptx(e), b = std::to_string(elem_bytes(e));
  std::string s = ".version 7.8\n.target sm_60\n.address_size 64\n"
                  ".visible .entry warpsim_trsm(.param .u32 nv, .param .u32 len, .param ." + t + " alpha, .param ." + t +
                  " alpha_im,\n  .param .u64 A, .param .u64 lda, .param .u64 B, .param .u64 es, .param .u64 vs,\n"
                  "  .param .u32 trans, .param .u32 fwd, .param .u32 unit, .param .u32 conj)\n{\n"
                  "  .reg .pred %p<8>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<32>;\n  .reg ." + t + " %v<24>;\n";
  s += R"(  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [nv]; setp.ge.u32 %p1, %r4, %r5; @%p1 bra DONE;
  ld.param.u32 %r6, [len]; ld.param.u64 %rd1, [A]; ld.param.u64 %rd2, [lda]; ld.param.u64 %rd3, [B];
  ld.param.u64 %rd4, [es]; ld.param.u64 %rd5, [vs]; ld.param.u32 %r7, [trans]; ld.param.u32 %r8, [fwd];
  ld.param.u32 %r9, [unit]; ld.param.u32 %r14, [conj]; setp.ne.u32 %p5, %r14, 0;
)";
  s += "  ld.param." + t + " %v1, [alpha]; ld.param." + t + " %v9, [alpha_im];\n";
  s += R"(  cvt.u64.u32 %rd6, %r4; mul.lo.s64 %rd6, %rd6, %rd5;   // the vector's first element
  setp.ne.u32 %p2, %r7, 0;                                // transposed: Aeff(r, c) = A(c, r)
  selp.b64 %rd7, %rd2, 1, %p2; selp.b64 %rd8, 1, %rd2, %p2;  // Aeff(r, c) at r * %rd7 + c * %rd8
  setp.ne.u32 %p3, %r8, 0; setp.ne.u32 %p4, %r9, 0;
  mov.u32 %r10, 0;                                        // step
ROW:
  setp.ge.u32 %p1, %r10, %r6; @%p1 bra DONE;
  sub.u32 %r11, %r6, 1; sub.u32 %r11, %r11, %r10; selp.b32 %r11, %r10, %r11, %p3;  // r
  cvt.u64.u32 %rd9, %r11;
  mad.lo.s64 %rd10, %rd9, %rd4, %rd6;
)";
  s += "  mad.lo.s64 %rd10, %rd10, " + b + ", %rd3;            // &x(r)\n";
  if (cplx) {  // x = alpha b
    s += "  ld.global.v2." + t + " {%v5, %v13}, [%rd10];\n";
    s += "  mul.rn." + t + " %v2, %v1, %v5; neg." + t + " %v6, %v9; fma.rn." + t + " %v2, %v6, %v13, %v2;\n";
    s += "  mul.rn." + t + " %v10, %v1, %v13; fma.rn." + t + " %v10, %v9, %v5, %v10;\n";
  } else {
    s += "  ld.global." + t + " %v2, [%rd10]; mul.rn." + t + " %v2, %v2, %v1;\n";
  }
  s += R"(  // the solved elements: c < r (forward) or c > r (backward)
  mov.u32 %r12, 0; selp.b32 %r13, %r11, %r6, %p3;
  @!%p3 add.u32 %r12, %r11, 1;
SUM:
  setp.ge.u32 %p1, %r12, %r13; @%p1 bra DIAG;
  cvt.u64.u32 %rd11, %r12;
  mul.lo.s64 %rd12, %rd9, %rd7; mad.lo.s64 %rd12, %rd11, %rd8, %rd12;
)";
  if (cplx) {  // x -= a xc
    s += "  mad.lo.s64 %rd12, %rd12, " + b + ", %rd1; ld.global.v2." + t + " {%v3, %v11}, [%rd12];\n";
    s += "  @%p5 neg." + t + " %v11, %v11;\n";
    s += "  mad.lo.s64 %rd13, %rd11, %rd4, %rd6; mad.lo.s64 %rd13, %rd13, " + b + ", %rd3; ld.global.v2." + t +
         " {%v4, %v12}, [%rd13];\n";
    s += "  neg." + t + " %v3, %v3; fma.rn." + t + " %v2, %v3, %v4, %v2; fma.rn." + t + " %v2, %v11, %v12, %v2;\n";
    s += "  fma.rn." + t + " %v10, %v3, %v12, %v10; neg." + t + " %v11, %v11; fma.rn." + t + " %v10, %v11, %v4, %v10;\n";
  } else {
    s += "  mad.lo.s64 %rd12, %rd12, " + b + ", %rd1; ld.global." + t + " %v3, [%rd12];\n";
    s += "  mad.lo.s64 %rd13, %rd11, %rd4, %rd6; mad.lo.s64 %rd13, %rd13, " + b + ", %rd3; ld.global." + t + " %v4, [%rd13];\n";
    s += "  neg." + t + " %v3, %v3; fma.rn." + t + " %v2, %v3, %v4, %v2;\n";
  }
  s += "  add.u32 %r12, %r12, 1; bra.uni SUM;\nDIAG:\n  @%p4 bra STORE;\n";
  s += "  mul.lo.s64 %rd12, %rd9, %rd7; mad.lo.s64 %rd12, %rd9, %rd8, %rd12; mad.lo.s64 %rd12, %rd12, " + b + ", %rd1;\n";
  if (cplx) {  // x /= d: x conj(d) / |d|^2
    s += "  ld.global.v2." + t + " {%v3, %v11}, [%rd12];\n  @%p5 neg." + t + " %v11, %v11;\n";
    s += "  mul.rn." + t + " %v7, %v3, %v3; fma.rn." + t + " %v7, %v11, %v11, %v7;\n";
    s += "  mul.rn." + t + " %v5, %v2, %v3; fma.rn." + t + " %v5, %v10, %v11, %v5;\n";
    s += "  mul.rn." + t + " %v6, %v10, %v3; neg." + t + " %v8, %v2; fma.rn." + t + " %v6, %v8, %v11, %v6;\n";
    s += "  div.rn." + t + " %v2, %v5, %v7; div.rn." + t + " %v10, %v6, %v7;\n";
    s += "STORE:\n  st.global.v2." + t + " [%rd10], {%v2, %v10};\n";
  } else {
    s += "  ld.global." + t + " %v3, [%rd12]; div.rn." + t + " %v2, %v2, %v3;\n";
    s += "STORE:\n  st.global." + t + " [%rd10], %v2;\n";
  }
  s += "  add.u32 %r10, %r10, 1; bra.uni ROW;\nDONE:\n  ret;\n}\n";
  return s;
}
void* trsm_kernel(Elem e) {
  return cached_kernel(std::string("trsm.") + elem_name(e), "warpsim_trsm", [&] { return trsm_ptx(e); });
}
constexpr int kSideLeft = 0, kSideRight = 1, kDiagNonUnit = 0, kDiagUnit = 1;
template <class T>
Status trsm(Elem e, void* h, int side, int uplo, int trans, int diag, int m, int n, const T* alpha, const T* A, int lda,
            T* B, int ldb) {
  if (!h) return kNotInitialized;
  const int info = side != kSideLeft && side != kSideRight                ? 1
                 : uplo != kFillLower && uplo != kFillUpper               ? 2
                 : trans != kOpN && trans != kOpT && trans != kOpC        ? 3
                 : diag != kDiagNonUnit && diag != kDiagUnit              ? 4
                 : m < 0                                                  ? 5
                 : n < 0                                                  ? 6
                 : lda < std::max(1, side == kSideLeft ? m : n)           ? 9
                 : ldb < std::max(1, m)                                   ? 11
                                                                          : 0;
  if (info) return illegal(e == Elem::F32 ? "STRSM" : e == Elem::F64 ? "DTRSM" : e == Elem::C32 ? "CTRSM" : "ZTRSM", info);
  if (m == 0 || n == 0) return kOk;
  if (!alpha) return kInvalidValue;
  void* stream = nullptr;
  int mode = 0;
  if (handle_state(h, stream, mode) != kOk) return kNotInitialized;
  void* fn = trsm_kernel(e);
  if (!fn) return kExecutionFailed;
  Driver& d = driver();
  // alpha's parts (its imaginary part 0 for real types).
  const size_t part = is_complex(e) ? elem_bytes(e) / 2 : elem_bytes(e);
  alignas(8) unsigned char a[16] = {};
  if (mode == kPointerModeDevice) {
    if (d.stream_sync(stream) != 0 || d.memcpy_dtoh(a, uint64_t(uintptr_t(alpha)), elem_bytes(e)) != 0)
      return kExecutionFailed;
  } else {
    std::memcpy(a, alpha, elem_bytes(e));
  }
  if (!is_complex(e)) std::memset(a + part, 0, part);
  // Left: op(A) x = alpha b for each column of B. Right: X op(A) = alpha B is op(A)^T x = alpha b for
  // each row x of X (op(A)^T of a conjugate transpose: conj(A), not transposed). The effective
  // matrix is lower (forward substitution) when A's stored triangle is lower and not transposed,
  // or upper and transposed.
  const bool left = side == kSideLeft;
  const bool t = left ? trans != kOpN : trans == kOpN;
  unsigned conj = is_complex(e) && trans == kOpC;
  unsigned nv = unsigned(left ? n : m), len = unsigned(left ? m : n);
  uint64_t pa = uintptr_t(A), ulda = uint64_t(lda), pb = uintptr_t(B);
  uint64_t es = left ? 1 : uint64_t(ldb), vs = left ? uint64_t(ldb) : 1;
  unsigned tr = t, fwd = (uplo == kFillLower) != t, unit = diag == kDiagUnit;
  void* params[] = {&nv, &len, a, a + part, &pa, &ulda, &pb, &es, &vs, &tr, &fwd, &unit, &conj};
  return d.launch(fn, (nv + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, nullptr) == 0 ? kOk : kExecutionFailed;
}
}  // namespace

WARPSIM_CUBLAS Status cublasCtrsm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n, const void* alpha,
                                     const void* A, int lda, void* B, int ldb) {
  return trsm<void>(Elem::C32, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb);
}
WARPSIM_CUBLAS Status cublasZtrsm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n, const void* alpha,
                                     const void* A, int lda, void* B, int ldb) {
  return trsm<void>(Elem::C64, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb);
}
WARPSIM_CUBLAS Status cublasStrsm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n, const float* alpha,
                                     const float* A, int lda, float* B, int ldb) {
  return trsm<float>(Elem::F32, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb);
}
WARPSIM_CUBLAS Status cublasDtrsm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n, const double* alpha,
                                     const double* A, int lda, double* B, int ldb) {
  return trsm<double>(Elem::F64, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb);
}

// ---- TRMM: C = alpha op(A) B (left) or alpha B op(A) (right), A triangular; cuBLAS's form is out
// of place, C == B allowed. libcublas runs larger ones on its SASS-only GEMMs (cuSOLVER's SVD and
// QR steps call it), so every TRMM runs here as the GEMM kernel with a triangular operand; in place,
// B is copied first (the GEMM reads all of B while writing C).
namespace {
template <class T>
Status trmm(Elem e, void* h, int side, int uplo, int trans, int diag, int m, int n, const T* alpha, const T* A, int lda,
            const T* B, int ldb, T* C, int ldc) {
  if (!h) return kNotInitialized;
  if ((side != kSideLeft && side != kSideRight) || (uplo != kFillLower && uplo != kFillUpper) ||
      (trans != kOpN && trans != kOpT && trans != kOpC) || (diag != kDiagNonUnit && diag != kDiagUnit) || m < 0 ||
      n < 0 || lda < std::max(1, side == kSideLeft ? m : n) || ldb < std::max(1, m) || ldc < std::max(1, m))
    return kInvalidValue;
  if (m == 0 || n == 0) return kOk;
  Driver& d = driver();
  if (!d.ok) return kExecutionFailed;
  void* stream = nullptr;
  int mode = 0;
  if (handle_state(h, stream, mode) != kOk) return kNotInitialized;
  // B overlapping C: work from a copy of B.
  const uint64_t bb = uintptr_t(B), cb = uintptr_t(C);
  const uint64_t esz = elem_bytes(e);
  const uint64_t b_bytes = (uint64_t(ldb) * (n - 1) + m) * esz, c_bytes = (uint64_t(ldc) * (n - 1) + m) * esz;
  uint64_t copy = 0;
  if (bb < cb + c_bytes && cb < bb + b_bytes) {
    if (d.mem_alloc(&copy, b_bytes) != 0) return kExecutionFailed;  // CUBLAS_STATUS_ALLOC_FAILED would be 3
    if (d.memcpy_dtod(copy, bb, b_bytes, stream) != 0) {
      d.mem_free(copy);
      return kExecutionFailed;
    }
    B = reinterpret_cast<const T*>(uintptr_t(copy));
  }
  static const double zero[2] = {0.0, 0.0};  // 0 in every element type
  const unsigned tri = (uplo == kFillLower ? 1u : 2u) | (diag == kDiagUnit ? 4u : 0u);
  const bool left = side == kSideLeft;
  Gemm g{h, left ? trans : kOpN, left ? kOpN : trans, m, n, left ? m : n, alpha, zero, left ? static_cast<const void*>(A) : B,
         left ? static_cast<const void*>(B) : A, C, left ? lda : ldb, left ? ldb : lda, ldc};
  g.in = g.out = g.acc = e;
  g.beta_host = zero;
  (left ? g.tri_a : g.tri_b) = tri;
  const Status st = run(g);
  if (copy) {
    d.stream_sync(stream);
    d.mem_free(copy);
  }
  return st;
}
}  // namespace
WARPSIM_CUBLAS Status cublasStrmm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n, const float* alpha,
                                     const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  return trmm<float>(Elem::F32, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc);
}
WARPSIM_CUBLAS Status cublasDtrmm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n,
                                     const double* alpha, const double* A, int lda, const double* B, int ldb, double* C,
                                     int ldc) {
  return trmm<double>(Elem::F64, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc);
}
WARPSIM_CUBLAS Status cublasCtrmm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n, const void* alpha,
                                     const void* A, int lda, const void* B, int ldb, void* C, int ldc) {
  return trmm<void>(Elem::C32, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc);
}
WARPSIM_CUBLAS Status cublasZtrmm_v2(void* h, int side, int uplo, int trans, int diag, int m, int n, const void* alpha,
                                     const void* A, int lda, const void* B, int ldb, void* C, int ldc) {
  return trmm<void>(Elem::C64, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc);
}
WARPSIM_CUBLAS Status cublasCtrmm_v2_64(void* h, int side, int uplo, int trans, int diag, int64_t m, int64_t n,
                                        const void* alpha, const void* A, int64_t lda, const void* B, int64_t ldb,
                                        void* C, int64_t ldc) {
  if (m > INT32_MAX || n > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return 15;
  return trmm<void>(Elem::C32, h, side, uplo, trans, diag, int(m), int(n), alpha, A, int(lda), B, int(ldb), C, int(ldc));
}
WARPSIM_CUBLAS Status cublasZtrmm_v2_64(void* h, int side, int uplo, int trans, int diag, int64_t m, int64_t n,
                                        const void* alpha, const void* A, int64_t lda, const void* B, int64_t ldb,
                                        void* C, int64_t ldc) {
  if (m > INT32_MAX || n > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return 15;
  return trmm<void>(Elem::C64, h, side, uplo, trans, diag, int(m), int(n), alpha, A, int(lda), B, int(ldb), C, int(ldc));
}
WARPSIM_CUBLAS Status cublasStrmm_v2_64(void* h, int side, int uplo, int trans, int diag, int64_t m, int64_t n,
                                        const float* alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
                                        float* C, int64_t ldc) {
  if (m > INT32_MAX || n > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return 15;
  return trmm<float>(Elem::F32, h, side, uplo, trans, diag, int(m), int(n), alpha, A, int(lda), B, int(ldb), C, int(ldc));
}
WARPSIM_CUBLAS Status cublasDtrmm_v2_64(void* h, int side, int uplo, int trans, int diag, int64_t m, int64_t n,
                                        const double* alpha, const double* A, int64_t lda, const double* B,
                                        int64_t ldb, double* C, int64_t ldc) {
  if (m > INT32_MAX || n > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return 15;
  return trmm<double>(Elem::F64, h, side, uplo, trans, diag, int(m), int(n), alpha, A, int(lda), B, int(ldb), C,
                      int(ldc));
}

// ---- SYMM / HEMM: C = alpha A B + beta C (left) or alpha B A + beta C (right), A symmetric or
// Hermitian with one triangle stored. libcublas runs them on its SASS-only GEMM kernels from a few
// hundred rows on (a 500 x 300 DSYMM fails with CUBLAS_STATUS_INTERNAL_ERROR), so every SYMM/HEMM
// runs here: A is written out in full to a scratch matrix (the mirrored triangle, conjugated for
// HEMM, whose diagonal is real by definition), then the GEMM kernel multiplies.
namespace {
// Parameters: n, A lda (elements), F (n x n, column-major, ld n), upper (the stored triangle), herm.
// Grid (n/16, n/16), block 16x16: thread (i, j) writes F(i, j).
std::string symm_full_ptx(Elem e) {
  const bool cplx = is_complex(e);
  const std::string t = elem_ptx(e), b = std::to_string(elem_bytes(e));
  std::string s = ".version 7.8\n.target sm_60\n.address_size 64\n"
                  ".visible .entry warpsim_symm_full(.param .u32 n, .param .u64 A, .param .u64 lda, .param .u64 F,\n"
                  "  .param .u32 upper, .param .u32 herm)\n{\n"
                  "  .reg .pred %p<8>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n  .reg ." + t + " %v<4>;\n";
  s += R"(  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;
  mov.u32 %r1, %ctaid.y; mov.u32 %r2, %ntid.y; mov.u32 %r3, %tid.y; mad.lo.s32 %r5, %r1, %r2, %r3;
  ld.param.u32 %r6, [n]; setp.ge.u32 %p1, %r4, %r6; setp.ge.u32 %p2, %r5, %r6; or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  ld.param.u32 %r7, [upper]; setp.ne.u32 %p3, %r7, 0;
  setp.lt.u32 %p4, %r4, %r5; @%p3 setp.gt.u32 %p4, %r4, %r5;
  selp.b32 %r9, %r5, %r4, %p4; selp.b32 %r10, %r4, %r5, %p4;
  ld.param.u64 %rd1, [A]; ld.param.u64 %rd2, [lda];
  cvt.u64.u32 %rd3, %r9; cvt.u64.u32 %rd4, %r10; mad.lo.s64 %rd5, %rd4, %rd2, %rd3;
)";
  // (i, j) outside the stored triangle (%p4: lower stored and i < j, upper stored and i > j) reads
  // A(j, i): %r9/%r10 are the row/column read.
  s += "  mad.lo.s64 %rd5, %rd5, " + b + ", %rd1;\n";
  s += "  ld.param.u64 %rd6, [F]; cvt.u64.u32 %rd7, %r4; cvt.u64.u32 %rd8, %r5; cvt.u64.u32 %rd9, %r6;\n";
  s += "  mad.lo.s64 %rd10, %rd8, %rd9, %rd7; mad.lo.s64 %rd10, %rd10, " + b + ", %rd6;\n";
  if (cplx) {
    s += "  ld.global.v2." + t + " {%v1, %v2}, [%rd5];\n";
    s += "  ld.param.u32 %r11, [herm]; setp.ne.u32 %p6, %r11, 0;\n";
    s += "  and.pred %p7, %p6, %p4; @%p7 neg." + t + " %v2, %v2;\n";
    s += "  setp.eq.u32 %p7, %r4, %r5; and.pred %p7, %p7, %p6; @%p7 mov." + t + " %v2, " + (e == Elem::C64 ? "0d0000000000000000" : "0f00000000") + ";\n";
    s += "  st.global.v2." + t + " [%rd10], {%v1, %v2};\n";
  } else {
    s += "  ld.global." + t + " %v1, [%rd5];\n  st.global." + t + " [%rd10], %v1;\n";
  }
  s += "DONE:\n  ret;\n}\n";
  return s;
}
// The reference BLAS's checks of xSYMM / xHEMM, numbered as its arguments; cuBLAS prints the
// same line on stdout (seen for DSYMM on our H100's libcublas).
int symm_info(int side, int uplo, int m, int n, int lda, int ldb, int ldc) {
  const int ka = side == kSideLeft ? m : n;
  return side != kSideLeft && side != kSideRight ? 1
       : uplo != kFillLower && uplo != kFillUpper ? 2
       : m < 0                                    ? 3
       : n < 0                                    ? 4
       : lda < std::max(1, ka)                    ? 7
       : ldb < std::max(1, m)                     ? 9
       : ldc < std::max(1, m)                     ? 12
                                                  : 0;
}
Status symm(Elem e, bool herm, void* h, int side, int uplo, int m, int n, const void* alpha, const void* A, int lda,
            const void* B, int ldb, const void* beta, void* C, int ldc) {
  if (!h) return kNotInitialized;
  if (int info = symm_info(side, uplo, m, n, lda, ldb, ldc)) {
    const char* names[] = {"SSYMM", "DSYMM", "CSYMM", "ZSYMM", "CHEMM", "ZHEMM"};
    return illegal(names[(herm ? 4 : 0) + (e == Elem::F32 ? 0 : e == Elem::F64 ? 1 : e == Elem::C32 ? 2 : 3) -
                         (herm ? 2 : 0)], info);
  }
  if (m == 0 || n == 0) return kOk;
  Driver& d = driver();
  if (!d.ok) return kExecutionFailed;
  void* stream = nullptr;
  int mode = 0;
  if (handle_state(h, stream, mode) != kOk) return kNotInitialized;
  void* fn = cached_kernel(std::string("symm.") + elem_name(e), "warpsim_symm_full", [&] { return symm_full_ptx(e); });
  if (!fn) return kExecutionFailed;
  unsigned ka = unsigned(side == kSideLeft ? m : n);
  uint64_t full = 0;
  if (d.mem_alloc(&full, uint64_t(ka) * ka * elem_bytes(e)) != 0) return 3;  // CUBLAS_STATUS_ALLOC_FAILED
  uint64_t pa = uintptr_t(A), plda = uint64_t(lda);
  unsigned upper = uplo == kFillUpper, hm = herm;
  void* params[] = {&ka, &pa, &plda, &full, &upper, &hm};
  Status st = kOk;
  if (d.launch(fn, (ka + 15) / 16, (ka + 15) / 16, 1, 16, 16, 1, 0, stream, params, nullptr) != 0) st = kExecutionFailed;
  if (st == kOk) {
    const void* F = reinterpret_cast<const void*>(uintptr_t(full));
    const bool left = side == kSideLeft;
    Gemm g{h, kOpN, kOpN, m, n, int(ka), alpha, beta, left ? F : B, left ? B : F, C, left ? int(ka) : ldb,
           left ? ldb : int(ka), ldc};
    g.in = g.out = g.acc = e;
    st = run(g);
  }
  d.stream_sync(stream);
  d.mem_free(full);
  return st;
}
}  // namespace
#define WARPSIM_SYMM(P, T, NAME, HERM)                                                                              \
  WARPSIM_CUBLAS Status cublas##P##NAME##_v2(void* h, int side, int uplo, int m, int n, const T* alpha, const T* A, \
                                             int lda, const T* B, int ldb, const T* beta, T* C, int ldc) {          \
    return symm(k##P, HERM, h, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);                             \
  }                                                                                                                 \
  WARPSIM_CUBLAS Status cublas##P##NAME##_v2_64(void* h, int side, int uplo, int64_t m, int64_t n, const T* alpha,  \
                                                const T* A, int64_t lda, const T* B, int64_t ldb, const T* beta,    \
                                                T* C, int64_t ldc) {                                                \
    for (int64_t v : {m, n, lda, ldb, ldc})                                                                         \
      if (v < INT32_MIN || v > INT32_MAX) return 15;                                                                \
    return symm(k##P, HERM, h, side, uplo, int(m), int(n), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));    \
  }
WARPSIM_SYMM(S, float, symm, false)
WARPSIM_SYMM(D, double, symm, false)
WARPSIM_SYMM(C, void, symm, false)
WARPSIM_SYMM(Z, void, symm, false)
WARPSIM_SYMM(C, void, hemm, true)
WARPSIM_SYMM(Z, void, hemm, true)
#undef WARPSIM_SYMM

// ---- cublasLtMatmul: D = epilogue(alpha op(A) op(B) + beta C), read from its descriptors through
// libcublasLt's own getters. Covered: column-major and row-major layouts, the real types and compute types of
// cublasGemmEx above (and complex, int8), strided batches, host or device alpha/beta, the DEFAULT,
// RELU, BIAS, RELU_BIAS, GELU and GELU_BIAS epilogues with f32 compute (bias in D's type).
// Anything else answers CUBLAS_STATUS_NOT_SUPPORTED, as cublasLt does for what it lacks.
namespace {
constexpr Status kNotSupported = 15;
template <class T>
bool lt_get(const char* getter, void* obj, int attr, T& v) {
  using F = Status (*)(void*, int, void*, size_t, size_t*);
  F f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, getter));
  size_t written = 0;
  return f && f(obj, attr, &v, sizeof v, &written) == kOk;
}
struct LtLayout {
  int32_t type = -1, order = 0, batch = 1;
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0, stride = 0;
};
bool lt_layout(void* l, LtLayout& o) {
  uint32_t type = 0;
  const char* g = "cublasLtMatrixLayoutGetAttribute";
  if (!l || !lt_get(g, l, 0, type) || !lt_get(g, l, 1, o.order) || !lt_get(g, l, 2, o.rows) ||
      !lt_get(g, l, 3, o.cols) || !lt_get(g, l, 4, o.ld) || !lt_get(g, l, 5, o.batch) || !lt_get(g, l, 6, o.stride))
    return false;
  o.type = int32_t(type);
  return true;
}
}  // namespace

namespace {
// The GEMM a cublasLtMatmul call describes (alpha, beta, the pointers and the stream are the
// caller's to fill in); kOk, or the status cublasLtMatmul answers.
Status lt_plan(void* desc, void* Adesc, void* Bdesc, void* Cdesc, void* Ddesc, Gemm& gm, int32_t& compute) {
  if (!desc) return kInvalidValue;
  const char* g = "cublasLtMatmulDescGetAttribute";
  int32_t scale = 0, pmode = 0, ta = 0, tb = 0, bias_type = -1;
  uint32_t epilogue = 1;
  void* bias = nullptr;
  if (!lt_get(g, desc, 0, compute) || !lt_get(g, desc, 1, scale) || !lt_get(g, desc, 2, pmode) ||
      !lt_get(g, desc, 3, ta) || !lt_get(g, desc, 4, tb) || !lt_get(g, desc, 7, epilogue) ||
      !lt_get(g, desc, 8, bias) || !lt_get(g, desc, 26, bias_type))
    return kInvalidValue;
  LtLayout la, lb, lc, ld;
  if (!lt_layout(Adesc, la) || !lt_layout(Bdesc, lb) || !lt_layout(Cdesc, lc) || !lt_layout(Ddesc, ld))
    return kInvalidValue;
  const uint64_t m = ld.rows, n = ld.cols, k = ta == kOpN ? la.cols : la.rows;
  // op(A) is m x k, op(B) k x n, C m x n like D.
  if ((ta == kOpN ? la.rows : la.cols) != m || (tb == kOpN ? lb.rows : lb.cols) != k ||
      (tb == kOpN ? lb.cols : lb.rows) != n || lc.rows != m || lc.cols != n)
    return kInvalidValue;
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return kNotSupported;
  // Row-major layouts (CUBLASLT_ORDER_ROW, 1): a row-major X is the column-major X^T with the same
  // ld, so op(A) and op(B) flip N and T; a row-major D (C alike) is computed as the column-major
  // D^T = op(B)^T op(A)^T, A and B trading places. A conjugate op has no flipped form here, and a
  // bias runs along D's rows, which the kernel's bias (one per row of its column-major output)
  // cannot follow in the transposed product: those, and tiled orders, answer NOT_SUPPORTED.
  constexpr int32_t kOrderCol = 0, kOrderRow = 1;
  for (int32_t o : {la.order, lb.order, lc.order, ld.order})
    if (o != kOrderCol && o != kOrderRow) return kNotSupported;
  if (lc.order != ld.order || lc.type != ld.type) return kNotSupported;
  auto flip = [](int32_t op) { return op == kOpN ? kOpT : kOpN; };
  if ((la.order == kOrderRow && ta == kOpC) || (lb.order == kOrderRow && tb == kOpC)) return kNotSupported;
  const int32_t opa = la.order == kOrderRow ? flip(ta) : ta, opb = lb.order == kOrderRow ? flip(tb) : tb;
  const bool row_d = ld.order == kOrderRow;
  if (row_d && (opa == kOpC || opb == kOpC)) return kNotSupported;
  gm = row_d ? Gemm{nullptr, flip(opb), flip(opa), int(n), int(m), int(k), nullptr, nullptr, nullptr, nullptr, nullptr,
                    int(lb.ld), int(la.ld), int(lc.ld), lb.stride, la.stride, lc.stride, ld.batch}
             : Gemm{nullptr, opa, opb, int(m), int(n), int(k), nullptr, nullptr, nullptr, nullptr, nullptr, int(la.ld),
                    int(lb.ld), int(lc.ld), la.stride, lb.stride, lc.stride, ld.batch};
  gm.swap_ab = row_d;
  if (!ex_types(la.type, lb.type, ld.type, compute, gm)) return kNotSupported;
  // alpha/beta in the scale type: the compute type's, as cublasGemmEx takes them.
  const int want_scale = gm.acc == Elem::F16 ? kR16F : gm.acc == Elem::F32 ? kR32F : gm.acc == Elem::F64 ? kR64F
                       : gm.acc == Elem::S32 ? kR32I : gm.acc == Elem::C32 ? kC32F : kC64F;
  if (scale != want_scale) return kNotSupported;
  if (pmode != 0 && pmode != 1) return kNotSupported;
  unsigned epi = 0;
  switch (epilogue) {
    case 1: break;
    case 2: epi = 1; break;
    case 4: epi = 4; break;
    case 6: epi = 5; break;
    case 32: epi = 2; break;
    case 36: epi = 6; break;
    default: return kNotSupported;
  }
  if (epi && gm.acc != Elem::F32) return kNotSupported;
  if ((epi & 4) && row_d) return kNotSupported;
  if ((epi & 4) && bias_type != -1 && bias_type != ld.type) return kNotSupported;
  if (lc.batch != ld.batch || (la.batch != ld.batch && la.batch != 1) || (lb.batch != ld.batch && lb.batch != 1))
    return kInvalidValue;
  gm.ldd = int(ld.ld);
  gm.sd = ld.stride;
  gm.epi = epi;
  gm.bias = bias;
  gm.mode = pmode;
  return kOk;
}
}  // namespace

WARPSIM_CUBLAS Status cublasLtMatmul(void* lt, void* desc, const void* alpha, const void* A, void* Adesc, const void* B,
                                     void* Bdesc, const void* beta, const void* C, void* Cdesc, void* D, void* Ddesc,
                                     const void* algo, void* workspace, size_t workspace_bytes, void* stream) {
  if (!lt) return kNotInitialized;
  Gemm gm{};
  int32_t compute = 0;
  if (Status st = lt_plan(desc, Adesc, Bdesc, Cdesc, Ddesc, gm, compute); st != kOk) return st;
  if (!alpha || !beta || ((gm.epi & 4) && !gm.bias)) return kInvalidValue;
  gm.alpha = alpha, gm.beta = beta, gm.a = gm.swap_ab ? B : A, gm.b = gm.swap_ab ? A : B, gm.c = const_cast<void*>(C),
  gm.d = D;
  gm.stream = stream;
  return run(gm);
}

// libcublasLt's heuristic rules out every kernel it cannot load (all are SASS-only), so programs
// that ask it for an algorithm first would find none: where it finds none for a matmul that
// cublasLtMatmul above runs, it answers one algorithm (made by cublasLtMatmulAlgoInit, which
// cublasLtMatmul here does not look at) needing no workspace.
WARPSIM_CUBLAS Status cublasLtMatmulAlgoGetHeuristic(void* lt, void* desc, void* Adesc, void* Bdesc, void* Cdesc,
                                                     void* Ddesc, void* pref, int requested, void* results, int* count) {
  using F = Status (*)(void*, void*, void*, void*, void*, void*, void*, int, void*, int*);
  static const F next = real<F>("cublasLtMatmulAlgoGetHeuristic");
  const Status st = next ? next(lt, desc, Adesc, Bdesc, Cdesc, Ddesc, pref, requested, results, count) : kNotSupported;
  if (st == kOk && count && *count > 0) return st;
  Gemm gm{};
  int32_t compute = 0;
  if (!lt || !results || !count || requested <= 0 || lt_plan(desc, Adesc, Bdesc, Cdesc, Ddesc, gm, compute) != kOk)
    return st;
  struct Result {  // cublasLtMatmulHeuristicResult_t
    uint64_t algo[8];
    size_t workspace;
    int32_t state;
    float waves;
    int32_t reserved[4];
  };
  static_assert(sizeof(Result) == 96);
  using Init = Status (*)(void*, int, int, int, int, int, int, int, void*);
  static const Init init = reinterpret_cast<Init>(dlsym(RTLD_DEFAULT, "cublasLtMatmulAlgoInit"));
  Result r{};
  int32_t scale = 0, atype = 0, btype = 0, ctype = 0, dtype = 0;
  uint32_t t = 0;
  lt_get("cublasLtMatmulDescGetAttribute", desc, 1, scale);
  lt_get("cublasLtMatrixLayoutGetAttribute", Adesc, 0, t), atype = int32_t(t);
  lt_get("cublasLtMatrixLayoutGetAttribute", Bdesc, 0, t), btype = int32_t(t);
  lt_get("cublasLtMatrixLayoutGetAttribute", Cdesc, 0, t), ctype = int32_t(t);
  lt_get("cublasLtMatrixLayoutGetAttribute", Ddesc, 0, t), dtype = int32_t(t);
  if (init) init(lt, compute, scale, atype, btype, ctype, dtype, 0, r.algo);
  r.waves = 1.0f;
  std::memcpy(results, &r, sizeof r);
  *count = 1;
  return kOk;
}

// ---- GEMV: libcublas's own first, the GEMM kernel where its kernel is SASS-only (see above)
namespace {
template <class T>
Status gemv(const char* name, Elem e, void* h, int trans, int m, int n, const T* alpha, const T* A, int lda,
            const T* x, int incx, const T* beta, T* y, int incy) {
  using F = Status (*)(void*, int, int, int, const T*, const T*, int, const T*, int, const T*, T*, int);
  static const F next = real<F>(name);
  const Status st = next ? next(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) : kNotInitialized;
  if (st != kExecutionFailed || incy <= 0 || incx <= 0) return st;
  const bool t = trans != kOpN;
  const int rows = t ? n : m, cols = t ? m : n;
  if (incy == 1) {
    // y (rows x 1) = alpha op(A) x + beta y, x read as the transpose of a 1 x cols matrix whose
    // leading dimension is incx.
    Gemm g{h, trans, kOpT, rows, 1, cols, alpha, beta, A, x, y, lda, incx, std::max(1, rows)};
    g.in = g.out = g.acc = e;
    return run(g);
  }
  // Transposed: y^T (1 x rows, leading dimension incy) = alpha x^T (1 x cols, leading dimension
  // incx) op(A)^T + beta y^T; op(A)^T of a conjugate transpose is no op the kernel has.
  if (trans == kOpC && is_complex(e)) return st;
  Gemm g{h, kOpN, t ? kOpN : kOpT, 1, rows, cols, alpha, beta, x, A, y, incx, lda, incy};
  g.in = g.out = g.acc = e;
  return run(g);
}
}  // namespace

WARPSIM_CUBLAS Status cublasCgemv_v2(void* h, int trans, int m, int n, const void* alpha, const void* A, int lda,
                                     const void* x, int incx, const void* beta, void* y, int incy) {
  return gemv<void>("cublasCgemv_v2", Elem::C32, h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
WARPSIM_CUBLAS Status cublasZgemv_v2(void* h, int trans, int m, int n, const void* alpha, const void* A, int lda,
                                     const void* x, int incx, const void* beta, void* y, int incy) {
  return gemv<void>("cublasZgemv_v2", Elem::C64, h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
WARPSIM_CUBLAS Status cublasSgemv_v2(void* h, int trans, int m, int n, const float* alpha, const float* A, int lda,
                                     const float* x, int incx, const float* beta, float* y, int incy) {
  return gemv<float>("cublasSgemv_v2", Elem::F32, h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
WARPSIM_CUBLAS Status cublasDgemv_v2(void* h, int trans, int m, int n, const double* alpha, const double* A, int lda,
                                     const double* x, int incx, const double* beta, double* y, int incy) {
  return gemv<double>("cublasDgemv_v2", Elem::F64, h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

// ---- the 64-bit-index forms (_64, CUDA 12 on): the same operations; cuSOLVER calls these for its
// blocked factorizations. Dimensions beyond int's range cannot be simulated in any reasonable time
// and answer CUBLAS_STATUS_NOT_SUPPORTED.
namespace {
bool fits(std::initializer_list<int64_t> v) {
  for (int64_t x : v)
    if (x < INT32_MIN || x > INT32_MAX) return false;
  return true;
}
}  // namespace
#define WARPSIM_GEMM64(P, T)                                                                                         \
  WARPSIM_CUBLAS Status cublas##P##gemm_v2_64(void* h, int ta, int tb, int64_t m, int64_t n, int64_t k,              \
                                              const T* alpha, const T* A, int64_t lda, const T* B, int64_t ldb,      \
                                              const T* beta, T* C, int64_t ldc) {                                    \
    if (!fits({m, n, k, lda, ldb, ldc})) return 15;                                                                  \
    return cublas##P##gemm_v2(h, ta, tb, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc)); \
  }                                                                                                                  \
  WARPSIM_CUBLAS Status cublas##P##gemmStridedBatched_64(                                                            \
      void* h, int ta, int tb, int64_t m, int64_t n, int64_t k, const T* alpha, const T* A, int64_t lda,             \
      long long sa, const T* B, int64_t ldb, long long sb, const T* beta, T* C, int64_t ldc, long long sc,           \
      int64_t batch) {                                                                                               \
    if (!fits({m, n, k, lda, ldb, ldc, batch})) return 15;                                                           \
    return cublas##P##gemmStridedBatched(h, ta, tb, int(m), int(n), int(k), alpha, A, int(lda), sa, B, int(ldb), sb, \
                                         beta, C, int(ldc), sc, int(batch));                                         \
  }                                                                                                                  \
  WARPSIM_CUBLAS Status cublas##P##gemmBatched_64(void* h, int ta, int tb, int64_t m, int64_t n, int64_t k,          \
                                                  const T* alpha, const T* const A[], int64_t lda,                   \
                                                  const T* const B[], int64_t ldb, const T* beta, T* const C[],      \
                                                  int64_t ldc, int64_t batch) {                                      \
    if (!fits({m, n, k, lda, ldb, ldc, batch})) return 15;                                                           \
    return cublas##P##gemmBatched(h, ta, tb, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C,       \
                                  int(ldc), int(batch));                                                             \
  }                                                                                                                  \
  WARPSIM_CUBLAS Status cublas##P##syrk_v2_64(void* h, int uplo, int trans, int64_t n, int64_t k, const T* alpha,    \
                                              const T* A, int64_t lda, const T* beta, T* C, int64_t ldc) {           \
    if (!fits({n, k, lda, ldc})) return 15;                                                                          \
    return cublas##P##syrk_v2(h, uplo, trans, int(n), int(k), alpha, A, int(lda), beta, C, int(ldc));                \
  }                                                                                                                  \
  WARPSIM_CUBLAS Status cublas##P##syrkx_64(void* h, int uplo, int trans, int64_t n, int64_t k, const T* alpha,      \
                                            const T* A, int64_t lda, const T* B, int64_t ldb, const T* beta, T* C,   \
                                            int64_t ldc) {                                                           \
    if (!fits({n, k, lda, ldb, ldc})) return 15;                                                                     \
    return cublas##P##syrkx(h, uplo, trans, int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));     \
  }                                                                                                                  \
  WARPSIM_CUBLAS Status cublas##P##syr2k_v2_64(void* h, int uplo, int trans, int64_t n, int64_t k, const T* alpha,   \
                                               const T* A, int64_t lda, const T* B, int64_t ldb, const T* beta,      \
                                               T* C, int64_t ldc) {                                                  \
    if (!fits({n, k, lda, ldb, ldc})) return 15;                                                                     \
    return cublas##P##syr2k_v2(h, uplo, trans, int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));  \
  }
// cuComplex / cuDoubleComplex pointers are void here, as in the 32-bit forms above.
WARPSIM_GEMM64(S, float)
WARPSIM_GEMM64(D, double)
WARPSIM_GEMM64(C, void)
WARPSIM_GEMM64(Z, void)
#undef WARPSIM_GEMM64

#define WARPSIM_TRSM_GEMV64(P, T)                                                                                    \
  WARPSIM_CUBLAS Status cublas##P##trsm_v2_64(void* h, int side, int uplo, int trans, int diag, int64_t m, int64_t n, \
                                              const T* alpha, const T* A, int64_t lda, T* B, int64_t ldb) {          \
    if (!fits({m, n, lda, ldb})) return 15;                                                                          \
    return cublas##P##trsm_v2(h, side, uplo, trans, diag, int(m), int(n), alpha, A, int(lda), B, int(ldb));          \
  }                                                                                                                  \
  WARPSIM_CUBLAS Status cublas##P##gemv_v2_64(void* h, int trans, int64_t m, int64_t n, const T* alpha, const T* A,  \
                                              int64_t lda, const T* x, int64_t incx, const T* beta, T* y,            \
                                              int64_t incy) {                                                        \
    if (!fits({m, n, lda, incx, incy})) return 15;                                                                   \
    return cublas##P##gemv_v2(h, trans, int(m), int(n), alpha, A, int(lda), x, int(incx), beta, y, int(incy));       \
  }
WARPSIM_TRSM_GEMV64(S, float)
WARPSIM_TRSM_GEMV64(D, double)
#undef WARPSIM_TRSM_GEMV64
#define WARPSIM_TRSM64(P)                                                                                            \
  WARPSIM_CUBLAS Status cublas##P##trsm_v2_64(void* h, int side, int uplo, int trans, int diag, int64_t m, int64_t n, \
                                              const void* alpha, const void* A, int64_t lda, void* B, int64_t ldb) { \
    if (!fits({m, n, lda, ldb})) return 15;                                                                          \
    return cublas##P##trsm_v2(h, side, uplo, trans, diag, int(m), int(n), alpha, A, int(lda), B, int(ldb));          \
  }
WARPSIM_TRSM64(C)
WARPSIM_TRSM64(Z)
#undef WARPSIM_TRSM64
#define WARPSIM_GEMV64(P)                                                                                            \
  WARPSIM_CUBLAS Status cublas##P##gemv_v2_64(void* h, int trans, int64_t m, int64_t n, const void* alpha,           \
                                              const void* A, int64_t lda, const void* x, int64_t incx,               \
                                              const void* beta, void* y, int64_t incy) {                             \
    if (!fits({m, n, lda, incx, incy})) return 15;                                                                   \
    return cublas##P##gemv_v2(h, trans, int(m), int(n), alpha, A, int(lda), x, int(incx), beta, y, int(incy));       \
  }
WARPSIM_GEMV64(C)
WARPSIM_GEMV64(Z)
#undef WARPSIM_GEMV64

WARPSIM_CUBLAS Status cublasGemmEx_64(void* h, int ta, int tb, int64_t m, int64_t n, int64_t k, const void* alpha,
                                      const void* A, int atype, int64_t lda, const void* B, int btype, int64_t ldb,
                                      const void* beta, void* C, int ctype, int64_t ldc, int compute, int algo) {
  if (!fits({m, n, k, lda, ldb, ldc})) return 15;
  return cublasGemmEx(h, ta, tb, int(m), int(n), int(k), alpha, A, atype, int(lda), B, btype, int(ldb), beta, C, ctype,
                      int(ldc), compute, algo);
}
WARPSIM_CUBLAS Status cublasGemmStridedBatchedEx_64(void* h, int ta, int tb, int64_t m, int64_t n, int64_t k,
                                                    const void* alpha, const void* A, int atype, int64_t lda,
                                                    long long sa, const void* B, int btype, int64_t ldb, long long sb,
                                                    const void* beta, void* C, int ctype, int64_t ldc, long long sc,
                                                    int64_t batch, int compute, int algo) {
  if (!fits({m, n, k, lda, ldb, ldc, batch})) return 15;
  return cublasGemmStridedBatchedEx(h, ta, tb, int(m), int(n), int(k), alpha, A, atype, int(lda), sa, B, btype,
                                    int(ldb), sb, beta, C, ctype, int(ldc), sc, int(batch), compute, algo);
}
