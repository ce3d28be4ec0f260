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
// Covered: cublas{S,D,H}gemm, their StridedBatched and (S, D) Batched forms, cublasGemmEx,
// cublasGemmStridedBatchedEx and cublasGemmBatchedEx for real f16/bf16/f32/f64 data with compute
// type 16F/32F/64F (fast/pedantic variants as 32F). Anything else (complex, int8, the 64-bit-index
// _64 forms) is passed to libcublas unchanged.
//
// cublasSgemv/cublasDgemv go to libcublas first: its GEMV kernels for small matrices are PTX and
// run; for larger ones it picks SASS-only kernels and fails with CUBLAS_STATUS_EXECUTION_FAILED
// (a 385 x 385 DGEMV does), and then the same product runs as the GEMM kernel with one column
// (x as a k x 1 matrix with leading dimension incx). Only for incy == 1 and incx > 0; other
// strides keep libcublas's failure.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

// ---- the few cuBLAS / CUDA ABI values used (cublas_api.h, library_types.h, cuda.h)
using Status = int;
constexpr Status kOk = 0, kNotInitialized = 1, kInvalidValue = 7, kExecutionFailed = 13;
constexpr int kOpN = 0, kOpT = 1, kOpC = 2;
constexpr int kR16F = 2, kR32F = 0, kR64F = 1, kR16BF = 14;
constexpr int kCompute16F = 64, kCompute16FPedantic = 65, kCompute32F = 68, kCompute32FPedantic = 69,
              kCompute64F = 70, kCompute64FPedantic = 71, kCompute32FFast16F = 74, kCompute32FFast16BF = 75,
              kCompute32FFastTF32 = 77;
constexpr int kPointerModeDevice = 1;

enum class Elem { F16, BF16, F32, F64 };
unsigned elem_bytes(Elem e) { return e == Elem::F64 ? 8 : e == Elem::F32 ? 4 : 2; }
const char* elem_ptx(Elem e) { return e == Elem::F64 ? "f64" : e == Elem::F32 ? "f32" : e == Elem::F16 ? "f16" : "bf16"; }
bool elem_of(int cuda_type, Elem& e) {
  switch (cuda_type) {
    case kR16F: e = Elem::F16; return true;
    case kR16BF: e = Elem::BF16; return true;
    case kR32F: e = Elem::F32; return true;
    case kR64F: e = Elem::F64; return true;
    default: return false;
  }
}

// ---- the driver API of the simulated GPU (warpsim's libcuda.so.1)
struct Driver {
  int (*module_load_data)(void**, const void*) = nullptr;
  int (*module_get_function)(void**, void*, const char*) = nullptr;
  int (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                void**) = nullptr;
  int (*memcpy_dtoh)(void*, uint64_t, size_t) = nullptr;
  int (*stream_sync)(void*) = nullptr;
  bool ok = false;
};
Driver& driver() {
  static Driver d = [] {
    Driver x;
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h) return x;
    x.module_load_data = reinterpret_cast<decltype(x.module_load_data)>(dlsym(h, "cuModuleLoadData"));
    x.module_get_function = reinterpret_cast<decltype(x.module_get_function)>(dlsym(h, "cuModuleGetFunction"));
    x.launch = reinterpret_cast<decltype(x.launch)>(dlsym(h, "cuLaunchKernel"));
    x.memcpy_dtoh = reinterpret_cast<decltype(x.memcpy_dtoh)>(dlsym(h, "cuMemcpyDtoH_v2"));
    x.stream_sync = reinterpret_cast<decltype(x.stream_sync)>(dlsym(h, "cuStreamSynchronize"));
    x.ok = x.module_load_data && x.module_get_function && x.launch && x.memcpy_dtoh && x.stream_sync;
    return x;
  }();
  return d;
}

// libcublas's own function of that name (the next definition after this library's).
template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// ---- the kernel: PTX text for one (A/B type, C type, compute type) combination
// Parameters: m n k, alpha beta (compute type), A lda(elements) strideA(bytes) opA, B ldb strideB
// opB, C ldc strideC, arrays (A/B/C are device arrays of per-batch pointers). Grid (m/16, n/16,
// batch), block 16x16; thread (i, j) computes C(i, j) = alpha sum_l op(A)(i, l) op(B)(l, j) + beta C.
std::string gemm_ptx(Elem in, Elem out, Elem acc) {
  const char* a = elem_ptx(acc);
  auto load = [&](const char* dst, const char* addr, Elem e) {
    std::string s;
    if (e == acc) return "ld.global." + std::string(e == Elem::F16 ? "b16" : elem_ptx(e)) + " " + dst + ", [" + addr + "];\n";
    if (e == Elem::F16 || e == Elem::BF16) {
      s = "ld.global.b16 %h1, [" + std::string(addr) + "];\n";
      s += std::string("cvt.") + a + "." + elem_ptx(e) + " " + dst + ", %h1;\n";
      return s;
    }
    s = "ld.global." + std::string(elem_ptx(e)) + " %x1, [" + addr + "];\n";
    return s + "cvt" + (elem_bytes(e) > elem_bytes(acc) ? ".rn." : ".") + a + "." + elem_ptx(e) + " " + dst + ", %x1;\n";
  };
  auto store = [&](const char* addr, const char* src, Elem e) {
    if (e == acc) return "st.global." + std::string(e == Elem::F16 ? "b16" : elem_ptx(e)) + " [" + addr + "], " + src + ";\n";
    if (e == Elem::F16 || e == Elem::BF16)
      return std::string("cvt.rn.") + elem_ptx(e) + "." + a + " %h1, " + src + ";\nst.global.b16 [" + addr + "], %h1;\n";
    return std::string("cvt") + (elem_bytes(e) < elem_bytes(acc) ? ".rn." : ".") + elem_ptx(e) + "." + a + " %x1, " +
           src + ";\nst.global." + elem_ptx(e) + " [" + addr + "], %x1;\n";
  };
  // The other float width for conversions through %x1 (f32 data with f64 compute or the reverse).
  const char* other = acc == Elem::F64 ? "f32" : "f64";
  const bool half = acc == Elem::F16;
  std::string s;
  s += ".version 7.8\n.target ";
  s += (in == Elem::BF16 || out == Elem::BF16 || half) ? "sm_80" : "sm_60";
  s += "\n.address_size 64\n";
  s += ".visible .entry warpsim_gemm(.param .u32 m, .param .u32 n, .param .u32 k, .param .";
  s += half ? "b16" : a;
  s += " alpha, .param .";
  s += half ? "b16" : a;
  s += " beta,\n  .param .u64 A, .param .u64 lda, .param .u64 sA, .param .u32 opA,\n"
       "  .param .u64 B, .param .u64 ldb, .param .u64 sB, .param .u32 opB,\n"
       "  .param .u64 C, .param .u64 ldc, .param .u64 sC, .param .u32 arrays)\n{\n"
       "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<32>;\n  .reg .b16 %h<4>;\n";
  s += std::string("  .reg .") + (half ? "f16" : a) + " %v<8>;\n";
  s += std::string("  .reg .") + other + " %x<2>;\n";
  s += R"(  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;
  mov.u32 %r1, %ctaid.y; mov.u32 %r2, %ntid.y; mov.u32 %r3, %tid.y; mad.lo.s32 %r5, %r1, %r2, %r3;
  ld.param.u32 %r6, [m]; ld.param.u32 %r7, [n]; ld.param.u32 %r8, [k];
  setp.ge.u32 %p1, %r4, %r6; setp.ge.u32 %p2, %r5, %r7; or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  mov.u32 %r9, %ctaid.z; cvt.u64.u32 %rd1, %r9;
  ld.param.u64 %rd2, [A]; ld.param.u64 %rd3, [B]; ld.param.u64 %rd4, [C];
  ld.param.u32 %r10, [arrays]; setp.ne.u32 %p3, %r10, 0;
  @%p3 bra ARRAYS;
  ld.param.u64 %rd5, [sA]; mad.lo.s64 %rd2, %rd1, %rd5, %rd2;
  ld.param.u64 %rd5, [sB]; mad.lo.s64 %rd3, %rd1, %rd5, %rd3;
  ld.param.u64 %rd5, [sC]; mad.lo.s64 %rd4, %rd1, %rd5, %rd4;
  bra.uni READY;
ARRAYS:
  shl.b64 %rd5, %rd1, 3;
  add.s64 %rd6, %rd2, %rd5; ld.global.u64 %rd2, [%rd6];
  add.s64 %rd6, %rd3, %rd5; ld.global.u64 %rd3, [%rd6];
  add.s64 %rd6, %rd4, %rd5; ld.global.u64 %rd4, [%rd6];
READY:
  cvt.u64.u32 %rd7, %r4; cvt.u64.u32 %rd8, %r5;
  ld.param.u64 %rd9, [lda]; ld.param.u32 %r11, [opA]; setp.ne.u32 %p2, %r11, 0;
  selp.b64 %rd10, %rd9, 1, %p2; selp.b64 %rd11, 1, %rd9, %p2;
  ld.param.u64 %rd12, [ldb]; ld.param.u32 %r12, [opB]; setp.ne.u32 %p2, %r12, 0;
  selp.b64 %rd13, %rd12, 1, %p2; selp.b64 %rd14, 1, %rd12, %p2;
)";
  const std::string in_b = std::to_string(elem_bytes(in)), out_b = std::to_string(elem_bytes(out));
  // %rd15 = &A(i, 0), step %rd11 * size; %rd16 = &B(0, j), step %rd13 * size.
  s += "  mul.lo.s64 %rd15, %rd7, %rd10; mad.lo.s64 %rd15, %rd15, " + in_b + ", %rd2;\n";
  s += "  mul.lo.s64 %rd16, %rd8, %rd14; mad.lo.s64 %rd16, %rd16, " + in_b + ", %rd3;\n";
  s += "  mul.lo.s64 %rd17, %rd11, " + in_b + "; mul.lo.s64 %rd18, %rd13, " + in_b + ";\n";
  s += half ? "  mov.b16 %v1, 0;\n" : acc == Elem::F64 ? "  mov.f64 %v1, 0d0000000000000000;\n" : "  mov.f32 %v1, 0f00000000;\n";
  s += "  mov.u32 %r13, 0;\n  setp.eq.u32 %p2, %r8, 0;\n  @%p2 bra EPILOGUE;\nLOOP:\n";
  s += "  " + load("%v2", "%rd15", in) + "  " + load("%v3", "%rd16", in);
  s += std::string("  fma.rn.") + (half ? "f16" : a) + " %v1, %v2, %v3, %v1;\n";
  s += "  add.s64 %rd15, %rd15, %rd17; add.s64 %rd16, %rd16, %rd18;\n";
  s += "  add.u32 %r13, %r13, 1; setp.lt.u32 %p2, %r13, %r8;\n  @%p2 bra LOOP;\nEPILOGUE:\n";
  s += std::string("  ld.param.") + (half ? "b16" : a) + " %v4, [alpha];\n";
  s += std::string("  ld.param.") + (half ? "b16" : a) + " %v5, [beta];\n";
  s += std::string("  mul.rn.") + (half ? "f16" : a) + " %v1, %v1, %v4;\n";
  s += "  ld.param.u64 %rd19, [ldc]; mad.lo.s64 %rd20, %rd8, %rd19, %rd7; mad.lo.s64 %rd20, %rd20, " + out_b +
       ", %rd4;\n";
  // beta == 0: C is not read (it may hold NaN), as the BLAS specifies.
  s += half ? "  mov.b16 %h2, %v5;\n  and.b16 %h2, %h2, 0x7fff;\n  setp.eq.b16 %p2, %h2, 0;\n"
              : std::string("  setp.eq.") + a + " %p2, %v5, " + (acc == Elem::F64 ? "0d0000000000000000" : "0f00000000") + ";\n";
  s += "  @%p2 bra STORE;\n";
  s += "  " + load("%v6", "%rd20", out);
  s += std::string("  fma.rn.") + (half ? "f16" : a) + " %v1, %v5, %v6, %v1;\nSTORE:\n";
  s += "  " + store("%rd20", "%v1", out);
  s += "DONE:\n  ret;\n}\n";
  return s;
}

struct Kernels {
  std::mutex mu;
  std::map<std::string, void*> fns;  // by type combination
};
Kernels& kernels() {
  static Kernels k;
  return k;
}
void* kernel_for(Elem in, Elem out, Elem acc) {
  Kernels& ks = kernels();
  std::lock_guard g(ks.mu);
  const std::string key = std::string(elem_ptx(in)) + elem_ptx(out) + elem_ptx(acc);
  if (auto it = ks.fns.find(key); it != ks.fns.end()) return it->second;
  Driver& d = driver();
  void* mod = nullptr;
  void* fn = nullptr;
  const std::string ptx = gemm_ptx(in, out, acc);
  if (!d.ok || d.module_load_data(&mod, ptx.c_str()) != 0 || d.module_get_function(&fn, mod, "warpsim_gemm") != 0) {
    std::fprintf(stderr, "warpsim: cuBLAS GEMM: cannot load warpsim's GEMM kernel for %s\n", key.c_str());
    fn = nullptr;
  }
  ks.fns[key] = fn;
  static std::once_flag told;
  std::call_once(told, [] {
    std::fprintf(stderr, "warpsim: note: cuBLAS's GEMMs (SASS-only in libcublas) run as warpsim's own GEMM kernel: "
                         "results to rounding, cycles of that kernel, not of cuBLAS's\n");
  });
  return fn;
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
};

Status run(const Gemm& g) {
  using GetStream = Status (*)(void*, void**);
  using GetMode = Status (*)(void*, int*);
  static const auto get_stream = real<GetStream>("cublasGetStream_v2");
  static const auto get_mode = real<GetMode>("cublasGetPointerMode_v2");
  if (!g.handle) return kNotInitialized;
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
  void* stream = nullptr;
  int mode = 0;
  if (!get_stream || !get_mode || get_stream(g.handle, &stream) != kOk || get_mode(g.handle, &mode) != kOk)
    return kNotInitialized;
  void* fn = kernel_for(g.in, g.out, g.acc);
  if (!fn) return kExecutionFailed;
  Driver& d = driver();
  // alpha and beta by value in the compute type; from device memory in device pointer mode.
  const size_t sbytes = elem_bytes(g.acc);
  alignas(8) unsigned char alpha[8] = {}, beta[8] = {};
  if (mode == kPointerModeDevice) {
    if (d.stream_sync(stream) != 0 || d.memcpy_dtoh(alpha, uint64_t(uintptr_t(g.alpha)), sbytes) != 0 ||
        d.memcpy_dtoh(beta, uint64_t(uintptr_t(g.beta)), sbytes) != 0)
      return kExecutionFailed;
  } else {
    std::memcpy(alpha, g.alpha, sbytes);
    std::memcpy(beta, g.beta, sbytes);
  }
  unsigned m = unsigned(g.m), n = unsigned(g.n), k = unsigned(g.k);
  uint64_t pa = uintptr_t(g.a), pb = uintptr_t(g.b), pc = uintptr_t(g.c);
  uint64_t lda = uint64_t(g.lda), ldb = uint64_t(g.ldb), ldc = uint64_t(g.ldc);
  uint64_t sa = uint64_t(g.sa) * elem_bytes(g.in), sb = uint64_t(g.sb) * elem_bytes(g.in),
           sc = uint64_t(g.sc) * elem_bytes(g.out);
  unsigned opa = g.opa != kOpN, opb = g.opb != kOpN, arrays = g.arrays;
  void* params[] = {&m, &n, &k, alpha, beta, &pa, &lda, &sa, &opa, &pb, &ldb, &sb, &opb, &pc, &ldc, &sc, &arrays};
  const unsigned gx = (m + 15) / 16, gy = (n + 15) / 16;
  // Batches beyond the grid's z limit go in further launches.
  for (int done = 0; done < g.batch;) {
    const int now = std::min(g.batch - done, 65535);
    uint64_t pa_now = pa, pb_now = pb, pc_now = pc;
    if (arrays) pa_now += uint64_t(done) * 8, pb_now += uint64_t(done) * 8, pc_now += uint64_t(done) * 8;
    else pa_now += uint64_t(done) * sa, pb_now += uint64_t(done) * sb, pc_now += uint64_t(done) * sc;
    params[5] = &pa_now;
    params[9] = &pb_now;
    params[13] = &pc_now;
    if (d.launch(fn, gx, gy, unsigned(now), 16, 16, 1, 0, stream, params, nullptr) != 0) return kExecutionFailed;
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
  if (!elem_of(atype, a) || !elem_of(btype, b) || !elem_of(ctype, c) || a != b || !compute_elem(compute, acc))
    return false;
  // The combinations of cublasGemmEx's table for real types.
  const bool ok = (acc == Elem::F64 && a == Elem::F64 && c == Elem::F64) ||
                  (acc == Elem::F16 && a == Elem::F16 && c == Elem::F16) ||
                  (acc == Elem::F32 && a != Elem::F64 && (c == a || c == Elem::F32));
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

WARPSIM_CUBLAS Status cublasSgemm_v2(void* h, int ta, int tb, int m, int n, int k, const float* alpha, const float* A,
                                     int lda, const float* B, int ldb, const float* beta, float* C, int ldc) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  g.blas_name = "SGEMM";
  return run(g);
}
WARPSIM_CUBLAS Status cublasDgemm_v2(void* h, int ta, int tb, int m, int n, int k, const double* alpha,
                                     const double* A, int lda, const double* B, int ldb, const double* beta, double* C,
                                     int ldc) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  g.in = g.out = g.acc = Elem::F64;
  g.blas_name = "DGEMM";
  return run(g);
}
WARPSIM_CUBLAS Status cublasHgemm(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A,
                                  int lda, const void* B, int ldb, const void* beta, void* C, int ldc) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  g.in = g.out = g.acc = Elem::F16;
  return run(g);
}
WARPSIM_CUBLAS Status cublasSgemmStridedBatched(void* h, int ta, int tb, int m, int n, int k, const float* alpha,
                                                const float* A, int lda, long long sa, const float* B, int ldb,
                                                long long sb, const float* beta, float* C, int ldc, long long sc,
                                                int batch) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, sa, sb, sc, batch};
  return run(g);
}
WARPSIM_CUBLAS Status cublasDgemmStridedBatched(void* h, int ta, int tb, int m, int n, int k, const double* alpha,
                                                const double* A, int lda, long long sa, const double* B, int ldb,
                                                long long sb, const double* beta, double* C, int ldc, long long sc,
                                                int batch) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, sa, sb, sc, batch};
  g.in = g.out = g.acc = Elem::F64;
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
WARPSIM_CUBLAS Status cublasSgemmBatched(void* h, int ta, int tb, int m, int n, int k, const float* alpha,
                                         const float* const A[], int lda, const float* const B[], int ldb,
                                         const float* beta, float* const C[], int ldc, int batch) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, const_cast<float**>(C), lda, ldb, ldc, 0, 0, 0, batch, true};
  return run(g);
}
WARPSIM_CUBLAS Status cublasDgemmBatched(void* h, int ta, int tb, int m, int n, int k, const double* alpha,
                                         const double* const A[], int lda, const double* const B[], int ldb,
                                         const double* beta, double* const C[], int ldc, int batch) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, const_cast<double**>(C), lda, ldb, ldc, 0, 0, 0, batch, true};
  g.in = g.out = g.acc = Elem::F64;
  return run(g);
}
WARPSIM_CUBLAS Status cublasGemmEx(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A,
                                   int atype, int lda, const void* B, int btype, int ldb, const void* beta, void* C,
                                   int ctype, int ldc, int compute, int algo) {
  Gemm g{h, ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc};
  return ex_or_next<decltype(&cublasGemmEx)>(g, atype, btype, ctype, compute, "cublasGemmEx", h, ta, tb, m, n, k, alpha,
                                              A, atype, lda, B, btype, ldb, beta, C, ctype, ldc, compute, algo);
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

// ---- GEMV: libcublas's own first, the GEMM kernel where its kernel is SASS-only (see above)
namespace {
template <class T>
Status gemv(const char* name, Elem e, void* h, int trans, int m, int n, const T* alpha, const T* A, int lda,
            const T* x, int incx, const T* beta, T* y, int incy) {
  using F = Status (*)(void*, int, int, int, const T*, const T*, int, const T*, int, const T*, T*, int);
  static const F next = real<F>(name);
  const Status st = next ? next(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) : kNotInitialized;
  if (st != kExecutionFailed || incy != 1 || incx <= 0) return st;
  // y(rows) = alpha op(A) x + beta y as C(rows x 1) = alpha op(A)(rows x cols) B(cols x 1) + beta C,
  // with B = x read as op(B) = B^T of a 1 x cols matrix whose leading dimension is incx.
  const bool t = trans != kOpN;
  const int rows = t ? n : m, cols = t ? m : n;
  Gemm g{h, trans, kOpT, rows, 1, cols, alpha, beta, A, x, y, lda, incx, std::max(1, rows)};
  g.in = g.out = g.acc = e;
  return run(g);
}
}  // namespace

WARPSIM_CUBLAS Status cublasSgemv_v2(void* h, int trans, int m, int n, const float* alpha, const float* A, int lda,
                                     const float* x, int incx, const float* beta, float* y, int incy) {
  return gemv<float>("cublasSgemv_v2", Elem::F32, h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
WARPSIM_CUBLAS Status cublasDgemv_v2(void* h, int trans, int m, int n, const double* alpha, const double* A, int lda,
                                     const double* x, int incx, const double* beta, double* y, int incy) {
  return gemv<double>("cublasDgemv_v2", Elem::F64, h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
