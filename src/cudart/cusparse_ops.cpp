// libwarpsim_preload.so's cuSPARSE part: the cuSPARSE routines whose kernels libcusparse ships as
// SASS only, run as warpsim's own PTX kernels (through the driver API of the simulated GPU, on the
// handle's stream). Everything else stays libcusparse's: its generic API's other kernels (SpMV,
// SpMM on CSR/COO, SpGEMM, SpSV/SpSM, SDDMM, conversions, sorts, gtsv2) carry PTX and run as they
// are.
//
// cusparseSpMM with a Blocked-ELL matrix: libcusparse runs it as a CUTLASS tensor-core kernel
// (EllGemm) of which it has SASS only; the launch fails (warpsim names the kernel) while
// cusparseSpMM still answers CUSPARSE_STATUS_SUCCESS and C is left as it was. Here it runs as a
// kernel with one thread per element of C, multiply-adding along the row's ELL blocks in the
// compute type: results to rounding, cycles of this kernel, not of cuSPARSE's.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "preload_kernels.hpp"

namespace {

using namespace warpsim::preload;

// ---- the cuSPARSE / CUDA ABI values used (cusparse.h, library_types.h)
using Status = int;
constexpr Status kOk = 0, kNotInitialized = 1, kInvalidValue = 3, kExecutionFailed = 6;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kFormatBlockedEll = 5;
constexpr int kOrderCol = 1, kOrderRow = 2;
constexpr int kIndex32 = 2;
constexpr int kPointerDevice = 1;
constexpr int kR16F = 2, kR32F = 0, kR64F = 1, kR16BF = 14;

const char* type_ptx(int t) {
  switch (t) {
    case kR16F: return "f16";
    case kR16BF: return "bf16";
    case kR32F: return "f32";
    case kR64F: return "f64";
    default: return nullptr;
  }
}
unsigned type_bytes(int t) { return t == kR64F ? 8 : t == kR32F ? 4 : 2; }

// Parameters: m n (C's size), ellcols (elements per row of the ELL value array), bs (block size),
// alpha beta (compute type), colind (blocks: (m / bs) x (ellcols / bs), row-major, 32-bit), base
// (index base; a block column below it is padding), vals (m x ellcols, row-major), B, bc bj
// (elements between op(B)(c, j) and op(B)(c + 1, j), op(B)(c, j + 1)), C, ci cj (likewise for C).
// Grid (m/16, n/16), block 16x16: thread (i, j) computes
//   C(i, j) = alpha sum_e vals(i, e) op(B)(colind(i / bs, e / bs) bs + e % bs, j) + beta C(i, j).
std::string bell_ptx(int vt, int ct, int acc) {
  const std::string a = type_ptx(acc), v = type_ptx(vt), c = type_ptx(ct);
  const std::string vb = std::to_string(type_bytes(vt)), cb = std::to_string(type_bytes(ct));
  const std::string zero = acc == kR64F ? "0d0000000000000000" : "0f00000000";
  auto load = [&](const std::string& dst, const std::string& addr, int t) -> std::string {
    if (t == acc) return "ld.global." + a + " " + dst + ", [" + addr + "];\n";
    if (t == kR16F || t == kR16BF)
      return "ld.global.b16 %h1, [" + addr + "];\n  cvt." + a + "." + type_ptx(t) + " " + dst + ", %h1;\n";
    return "ld.global." + std::string(type_ptx(t)) + " %x1, [" + addr + "];\n  cvt." + a + "." + type_ptx(t) + " " + dst +
           ", %x1;\n";
  };
  std::string s = ".version 7.8\n.target sm_80\n.address_size 64\n"
                  ".visible .entry warpsim_bell_spmm(.param .u32 m, .param .u32 n, .param .u32 ellcols, .param .u32 bs,\n"
                  "  .param ." + a + " alpha, .param ." + a + " beta, .param .u64 colind, .param .u32 base, .param .u64 vals,\n"
                  "  .param .u64 B, .param .u64 bc, .param .u64 bj, .param .u64 C, .param .u64 ci, .param .u64 cj)\n{\n"
                  "  .reg .pred %p<8>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<32>;\n  .reg .b16 %h<4>;\n"
                  "  .reg ." + a + " %v<8>;\n  .reg .f32 %x<2>;\n";
  s += R"(  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;
  mov.u32 %r1, %ctaid.y; mov.u32 %r2, %ntid.y; mov.u32 %r3, %tid.y; mad.lo.s32 %r5, %r1, %r2, %r3;
  ld.param.u32 %r6, [m]; ld.param.u32 %r7, [n];
  setp.ge.u32 %p1, %r4, %r6; setp.ge.u32 %p2, %r5, %r7; or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  ld.param.u32 %r8, [ellcols]; ld.param.u32 %r9, [bs]; ld.param.u32 %r10, [base];
  div.u32 %r11, %r8, %r9;            // blocks per block row
  div.u32 %r12, %r4, %r9;            // this row's block row
  ld.param.u64 %rd1, [colind]; ld.param.u64 %rd2, [vals]; ld.param.u64 %rd3, [B];
  ld.param.u64 %rd4, [bc]; ld.param.u64 %rd5, [bj];
  cvt.u64.u32 %rd6, %r4; cvt.u64.u32 %rd7, %r5; cvt.u64.u32 %rd8, %r8;
  mul.wide.u32 %rd9, %r12, %r11; shl.b64 %rd9, %rd9, 2; add.s64 %rd9, %rd9, %rd1;   // &colind(row block, 0)
  mul.lo.s64 %rd10, %rd6, %rd8;      // vals row offset (elements)
  mul.lo.s64 %rd11, %rd7, %rd5;      // op(B)(0, j) offset (elements)
)";
  s += "  mov." + a + " %v1, " + zero + ";\n";
  s += R"(  mov.u32 %r13, 0;                  // block kb
  setp.eq.u32 %p3, %r11, 0; @%p3 bra EPILOGUE;
BLOCKS:
  ld.global.s32 %r14, [%rd9]; sub.s32 %r14, %r14, %r10;
  setp.lt.s32 %p4, %r14, 0; @%p4 bra NEXTBLOCK;
  mul.lo.s32 %r15, %r13, %r9;        // e of the block's first element
  mul.lo.s32 %r16, %r14, %r9;        // c of the block's first column
  mov.u32 %r17, 0;
ELEMS:
  add.s32 %r18, %r15, %r17; cvt.u64.u32 %rd12, %r18; add.s64 %rd12, %rd12, %rd10;
)";
  s += "  mad.lo.s64 %rd12, %rd12, " + vb + ", %rd2;\n";
  s += "  add.s32 %r19, %r16, %r17; cvt.u64.u32 %rd13, %r19; mad.lo.s64 %rd13, %rd13, %rd4, %rd11;\n";
  s += "  mad.lo.s64 %rd13, %rd13, " + vb + ", %rd3;\n";
  s += "  " + load("%v2", "%rd12", vt) + "  " + load("%v3", "%rd13", vt);
  s += "  fma.rn." + a + " %v1, %v2, %v3, %v1;\n";
  s += R"(  add.u32 %r17, %r17, 1; setp.lt.u32 %p5, %r17, %r9; @%p5 bra ELEMS;
NEXTBLOCK:
  add.s64 %rd9, %rd9, 4;
  add.u32 %r13, %r13, 1; setp.lt.u32 %p3, %r13, %r11; @%p3 bra BLOCKS;
EPILOGUE:
  ld.param.u64 %rd14, [C]; ld.param.u64 %rd15, [ci]; ld.param.u64 %rd16, [cj];
  mul.lo.s64 %rd17, %rd6, %rd15; mad.lo.s64 %rd17, %rd7, %rd16, %rd17;
)";
  s += "  mad.lo.s64 %rd17, %rd17, " + cb + ", %rd14;\n";
  s += "  ld.param." + a + " %v4, [alpha]; ld.param." + a + " %v5, [beta];\n";
  s += "  mul.rn." + a + " %v1, %v1, %v4;\n";
  // beta == 0: C is not read (it may hold NaN).
  s += "  setp.eq." + a + " %p6, %v5, " + zero + "; @%p6 bra STORE;\n";
  s += "  " + load("%v6", "%rd17", ct) + "  fma.rn." + a + " %v1, %v5, %v6, %v1;\nSTORE:\n";
  if (ct == acc) s += "  st.global." + a + " [%rd17], %v1;\n";
  else if (ct == kR16F || ct == kR16BF) s += "  cvt.rn." + c + "." + a + " %h2, %v1;\n  st.global.b16 [%rd17], %h2;\n";
  else s += "  cvt.rn." + c + "." + a + " %x1, %v1;\n  st.global." + c + " [%rd17], %x1;\n";
  s += "DONE:\n  ret;\n}\n";
  return s;
}

// libcusparse's own getters, by name.
template <class F>
F fn(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// The Blocked-ELL product if this call is one warpsim runs: kOk or the status to answer; `mine`
// false when the call is libcusparse's to run.
Status bell_spmm(void* h, int opA, int opB, const void* alpha, void* A, void* B, const void* beta, void* C, int compute,
                 bool& mine) {
  mine = false;
  using GetFormat = Status (*)(void*, int*);
  static const auto get_format = fn<GetFormat>("cusparseSpMatGetFormat");
  int format = -1;
  if (!A || !get_format || get_format(A, &format) != kOk || format != kFormatBlockedEll) return kOk;
  mine = true;
  if (!h) return kNotInitialized;
  if (!B || !C || !alpha || !beta) return kInvalidValue;
  using EllGet = Status (*)(void*, int64_t*, int64_t*, int64_t*, int64_t*, void**, void**, int*, int*, int*);
  using DnGet = Status (*)(void*, int64_t*, int64_t*, int64_t*, void**, int*, int*);
  using Batch = Status (*)(void*, int*);
  using DnBatch = Status (*)(void*, int*, int64_t*);
  using GetStream = Status (*)(void*, void**);
  using GetMode = Status (*)(void*, int*);
  static const auto ell_get = fn<EllGet>("cusparseBlockedEllGet");
  static const auto dn_get = fn<DnGet>("cusparseDnMatGet");
  static const auto sp_batch = fn<Batch>("cusparseSpMatGetStridedBatch");
  static const auto dn_batch = fn<DnBatch>("cusparseDnMatGetStridedBatch");
  static const auto get_stream = fn<GetStream>("cusparseGetStream");
  static const auto get_mode = fn<GetMode>("cusparseGetPointerMode");
  if (!ell_get || !dn_get || !sp_batch || !dn_batch || !get_stream || !get_mode) return kExecutionFailed;
  int64_t rows = 0, cols = 0, bs = 0, ellcols = 0, brows = 0, bcols = 0, ldb = 0, crows = 0, ccols = 0, ldc = 0;
  void *colind = nullptr, *vals = nullptr, *bv = nullptr, *cv = nullptr;
  int itype = 0, base = 0, vtype = 0, btype = 0, border = 0, ctype = 0, corder = 0;
  if (ell_get(A, &rows, &cols, &bs, &ellcols, &colind, &vals, &itype, &base, &vtype) != kOk ||
      dn_get(B, &brows, &bcols, &ldb, &bv, &btype, &border) != kOk ||
      dn_get(C, &crows, &ccols, &ldc, &cv, &ctype, &corder) != kOk)
    return kInvalidValue;
  int sb = 1, db = 1, dc = 1;
  int64_t stride = 0;
  if (sp_batch(A, &sb) != kOk || dn_batch(B, &db, &stride) != kOk || dn_batch(C, &dc, &stride) != kOk)
    return kInvalidValue;
  // What cuSPARSE documents for Blocked-ELL SpMM: op(A) = A; B and C in either order; op(B) N or
  // T; sizes that agree. Batches, 64-bit indices and other types are not run here.
  const int64_t k = opB == kOpN ? brows : bcols, n = opB == kOpN ? bcols : brows;
  if (opA != kOpN || (opB != kOpN && opB != kOpT) || k != cols || crows != rows || ccols != n || bs <= 0 ||
      ellcols % bs != 0 || rows % bs != 0)
    return kInvalidValue;
  if (itype != kIndex32 || sb != 1 || db != 1 || dc != 1 || btype != vtype ||
      (border != kOrderCol && border != kOrderRow) || (corder != kOrderCol && corder != kOrderRow) ||
      rows > INT32_MAX || n > INT32_MAX || ellcols > INT32_MAX) {
    std::fprintf(stderr, "warpsim: cusparseSpMM on a Blocked-ELL matrix: only one 32-bit-indexed matrix of f16, bf16, "
                         "f32 or f64 runs (libcusparse's kernel for it is SASS-only)\n");
    return 10;  // CUSPARSE_STATUS_NOT_SUPPORTED
  }
  const bool half = vtype == kR16F || vtype == kR16BF;
  const int acc = vtype == kR64F ? kR64F : kR32F;
  if (compute != acc || !type_ptx(vtype) || !(ctype == vtype || (half && ctype == kR32F))) {
    std::fprintf(stderr, "warpsim: cusparseSpMM on a Blocked-ELL matrix: A/B type %d, C type %d, compute type %d "
                         "not run (f16/bf16 with f16/bf16 or f32 C and f32 compute; f32; f64)\n", vtype, ctype, compute);
    return 10;
  }
  if (rows == 0 || n == 0) return kOk;
  void* stream = nullptr;
  int mode = 0;
  if (get_stream(h, &stream) != kOk || get_mode(h, &mode) != kOk) return kNotInitialized;
  Driver& d = driver();
  if (!d.ok) return kExecutionFailed;
  void* kernel = cached_kernel(std::string("cusparse.bell.") + type_ptx(vtype) + "." + type_ptx(ctype), "warpsim_bell_spmm",
                               [&] { return bell_ptx(vtype, ctype, acc); });
  if (!kernel) return kExecutionFailed;
  static std::once_flag told;
  std::call_once(told, [] {
    std::fprintf(stderr, "warpsim: note: cuSPARSE's Blocked-ELL SpMM (SASS-only in libcusparse) runs as warpsim's own "
                         "kernel: results to rounding, cycles of that kernel, not of cuSPARSE's\n");
  });
  alignas(8) unsigned char al[8] = {}, be[8] = {};
  const size_t sbytes = acc == kR64F ? 8 : 4;
  if (mode == kPointerDevice) {
    if (d.stream_sync(stream) != 0 || d.memcpy_dtoh(al, uint64_t(uintptr_t(alpha)), sbytes) != 0 ||
        d.memcpy_dtoh(be, uint64_t(uintptr_t(beta)), sbytes) != 0)
      return kExecutionFailed;
  } else {
    std::memcpy(al, alpha, sbytes);
    std::memcpy(be, beta, sbytes);
  }
  // op(B)(c, j): B(c, j) or B(j, c), column-major at r + col ldb, row-major at r ldb + col.
  const bool bcol = border == kOrderCol;
  uint64_t bc = (opB == kOpN) == bcol ? 1 : uint64_t(ldb), bj = (opB == kOpN) == bcol ? uint64_t(ldb) : 1;
  uint64_t ci = corder == kOrderCol ? 1 : uint64_t(ldc), cj = corder == kOrderCol ? uint64_t(ldc) : 1;
  unsigned m32 = unsigned(rows), n32 = unsigned(n), e32 = unsigned(ellcols), bs32 = unsigned(bs), base32 = unsigned(base);
  uint64_t pci = uintptr_t(colind), pv = uintptr_t(vals), pb = uintptr_t(bv), pc = uintptr_t(cv);
  void* params[] = {&m32, &n32, &e32, &bs32, al, be, &pci, &base32, &pv, &pb, &bc, &bj, &pc, &ci, &cj};
  if (d.launch(kernel, (m32 + 15) / 16, (n32 + 15) / 16, 1, 16, 16, 1, 0, stream, params, nullptr) != 0)
    return kExecutionFailed;
  return kOk;
}

}  // namespace

#define WARPSIM_CUSPARSE extern "C" __attribute__((visibility("default")))

WARPSIM_CUSPARSE Status cusparseSpMM(void* h, int opA, int opB, const void* alpha, void* A, void* B, const void* beta,
                                     void* C, int compute, int alg, void* buffer) {
  bool mine = false;
  const Status st = bell_spmm(h, opA, opB, alpha, A, B, beta, C, compute, mine);
  if (mine) return st;
  using F = Status (*)(void*, int, int, const void*, void*, void*, const void*, void*, int, int, void*);
  static const F next = real<F>("cusparseSpMM");
  return next ? next(h, opA, opB, alpha, A, B, beta, C, compute, alg, buffer) : kNotInitialized;
}
