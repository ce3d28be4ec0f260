// sm_90a warpgroup MMA (wgmma.mma_async) through inline PTX: shared-memory operands laid out by
// host code in the canonical layouts of PTX ISA 9.7.15.5.1 (no swizzle / 32B / 64B / 128B, K-major
// and MN-major, described by 64-bit matrix descriptors), A also from registers, scale-d, negated
// operands, chains of K steps with commit_group / wait_group; f16, bf16, tf32, e4m3/e5m2 and
// s8/u8 inputs with f16, f32 and s32 accumulators. Two warpgroups per CTA compute the same
// product (warp id % 4 picks the rows). The host packs the A fragments and the accumulators into
// registers and reads D back by the fragment layouts of the ISA, and compares with a CPU
// reference: exact (the inputs are small integers or halves, so every sum is exact), except one
// case of random f16 values compared with a tolerance. The checksum is over the references only.
// Built with -arch=sm_90a; the expected output is what our H100 printed
// (validation/driver/h100_hopper_wgmma.out).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                      \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      printf("CUDA error %s at line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

// ---------------------------------------------------------------- device: one wrapper per form
template <int SA, int SB, int TA, int TB>
__device__ __forceinline__ void wg_n8_f32_f16(uint32_t (&d)[4], uint64_t a_desc, uint64_t b_desc, int scale_d) {
  float f[4];
  for (int i = 0; i < 4; ++i) f[i] = __uint_as_float(d[i]);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, %7, %8, %9, %10;\n}\n"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(f[i]);
}

template <int SA, int SB, int TA, int TB>
__device__ __forceinline__ void wg_n64_f32_bf16(uint32_t (&d)[32], uint64_t a_desc, uint64_t b_desc, int scale_d) {
  float f[32];
  for (int i = 0; i < 32; ++i) f[i] = __uint_as_float(d[i]);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, %35, %36, %37, %38;\n}\n"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), "+f"(f[7]), "+f"(f[8]), "+f"(f[9]), "+f"(f[10]), "+f"(f[11]), "+f"(f[12]), "+f"(f[13]), "+f"(f[14]), "+f"(f[15]), "+f"(f[16]), "+f"(f[17]), "+f"(f[18]), "+f"(f[19]), "+f"(f[20]), "+f"(f[21]), "+f"(f[22]), "+f"(f[23]), "+f"(f[24]), "+f"(f[25]), "+f"(f[26]), "+f"(f[27]), "+f"(f[28]), "+f"(f[29]), "+f"(f[30]), "+f"(f[31])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
  for (int i = 0; i < 32; ++i) d[i] = __float_as_uint(f[i]);
}

template <int SA, int SB, int TA, int TB>
__device__ __forceinline__ void wg_n256_f16_f16(uint32_t (&d)[64], uint64_t a_desc, uint64_t b_desc, int scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, %67, %68, %69, %70;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
}

template <int SA, int SB>
__device__ __forceinline__ void wg_n32_f32_tf32(uint32_t (&d)[16], uint64_t a_desc, uint64_t b_desc, int scale_d) {
  float f[16];
  for (int i = 0; i < 16; ++i) f[i] = __uint_as_float(d[i]);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, %19, %20;\n}\n"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), "+f"(f[7]), "+f"(f[8]), "+f"(f[9]), "+f"(f[10]), "+f"(f[11]), "+f"(f[12]), "+f"(f[13]), "+f"(f[14]), "+f"(f[15])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
  for (int i = 0; i < 16; ++i) d[i] = __float_as_uint(f[i]);
}

template <int SA, int SB>
__device__ __forceinline__ void wg_n16_f32_e4m3(uint32_t (&d)[8], uint64_t a_desc, uint64_t b_desc, int scale_d) {
  float f[8];
  for (int i = 0; i < 8; ++i) f[i] = __uint_as_float(d[i]);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, %11, %12;\n}\n"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), "+f"(f[7])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
  for (int i = 0; i < 8; ++i) d[i] = __float_as_uint(f[i]);
}

template <int SA, int SB>
__device__ __forceinline__ void wg_n16_f16_e4m3e5m2(uint32_t (&d)[4], uint64_t a_desc, uint64_t b_desc, int scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k32.f16.e4m3.e5m2 {%0, %1, %2, %3}, %4, %5, p, %7, %8;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
}

__device__ __forceinline__ void wg_n32_s32_s8(uint32_t (&d)[16], uint64_t a_desc, uint64_t b_desc, int scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
}

__device__ __forceinline__ void wg_n32_s32_s8u8_sat(uint32_t (&d)[16], uint64_t a_desc, uint64_t b_desc, int scale_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.satfinite.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
}

template <int SA, int SB, int TB>
__device__ __forceinline__ void wg_n16_f32_f16_areg(uint32_t (&d)[8], const uint32_t (&a)[4], uint64_t b_desc, int scale_d) {
  float f[8];
  for (int i = 0; i < 8; ++i) f[i] = __uint_as_float(d[i]);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, %14, %15, %16;\n}\n"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), "+f"(f[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB), "n"(TB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
  for (int i = 0; i < 8; ++i) d[i] = __float_as_uint(f[i]);
}

template <int SA, int SB, int TA, int TB>
__device__ __forceinline__ void wg_n64_f32_f16(uint32_t (&d)[32], uint64_t a_desc, uint64_t b_desc, int scale_d) {
  float f[32];
  for (int i = 0; i < 32; ++i) f[i] = __uint_as_float(d[i]);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, %35, %36, %37, %38;\n}\n"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), "+f"(f[7]), "+f"(f[8]), "+f"(f[9]), "+f"(f[10]), "+f"(f[11]), "+f"(f[12]), "+f"(f[13]), "+f"(f[14]), "+f"(f[15]), "+f"(f[16]), "+f"(f[17]), "+f"(f[18]), "+f"(f[19]), "+f"(f[20]), "+f"(f[21]), "+f"(f[22]), "+f"(f[23]), "+f"(f[24]), "+f"(f[25]), "+f"(f[26]), "+f"(f[27]), "+f"(f[28]), "+f"(f[29]), "+f"(f[30]), "+f"(f[31])
      : "l"(a_desc), "l"(b_desc), "r"(scale_d), "n"(SA), "n"(SB), "n"(TA), "n"(TB));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
  for (int i = 0; i < 32; ++i) d[i] = __float_as_uint(f[i]);
}

// One kernel per form: the shared-memory image in, a fence for the async proxy, the accumulators
// and A fragments from global memory, `steps` wgmmas (one commit group each), wait_group 0, the
// accumulators out. Descriptors come with start addresses relative to the 1024-aligned image.
// wgmma.fence / commit_group / wait_group exist on sm_90a only.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_SYNC(x) asm volatile(x ::: "memory")
#else
#define WG_SYNC(x)
#endif

#define WG_KERNEL(kname, NR, CALL)                                                                      \
  __global__ void kname(const uint8_t* img, int img_bytes, const uint64_t* descs, const uint32_t* areg, \
                        const uint32_t* dinit, uint32_t* dout, int steps, int scale_d) {                \
    extern __shared__ uint8_t smem_raw[];                                                              \
    uint32_t base = uint32_t(__cvta_generic_to_shared(smem_raw));                                      \
    uint32_t pad = (1024 - (base & 1023)) & 1023;                                                      \
    uint8_t* sm = smem_raw + pad;                                                                      \
    for (int i = threadIdx.x * 16; i < img_bytes; i += blockDim.x * 16)                               \
      *reinterpret_cast<uint4*>(sm + i) = *reinterpret_cast<const uint4*>(img + i);                    \
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                                      \
    __syncthreads();                                                                                   \
    const int t = threadIdx.x % 128;                                                                   \
    uint32_t d[NR];                                                                                    \
    for (int i = 0; i < NR; ++i) d[i] = dinit[t * NR + i];                                             \
    uint32_t a[4];                                                                                     \
    for (int i = 0; i < 4; ++i) a[i] = areg[t * 4 + i];                                                \
    (void)a;                                                                                           \
    const uint64_t sbase = (base + pad) >> 4;                                                          \
    WG_SYNC("wgmma.fence.sync.aligned;");                                                               \
    for (int s = 0; s < steps; ++s) {                                                                  \
      uint64_t da = descs[2 * s] + sbase, db = descs[2 * s + 1] + sbase;                               \
      (void)da;                                                                                        \
      int sd = s == 0 ? scale_d : 1;                                                                   \
      CALL;                                                                                            \
      WG_SYNC("wgmma.commit_group.sync.aligned;");                                                    \
    }                                                                                                  \
    WG_SYNC("wgmma.wait_group.sync.aligned 0;");                                                        \
    for (int i = 0; i < NR; ++i) dout[threadIdx.x * NR + i] = d[i];                                    \
  }

WG_KERNEL(k_n8_f16, 4, (wg_n8_f32_f16<1, 1, 0, 0>(d, da, db, sd)))
WG_KERNEL(k_n64_bf16, 32, (wg_n64_f32_bf16<1, 1, 0, 0>(d, da, db, sd)))
WG_KERNEL(k_n256_f16acc, 64, (wg_n256_f16_f16<1, 1, 0, 0>(d, da, db, sd)))
WG_KERNEL(k_n32_tf32, 16, (wg_n32_f32_tf32<1, 1>(d, da, db, sd)))
WG_KERNEL(k_n16_e4m3, 8, (wg_n16_f32_e4m3<1, 1>(d, da, db, sd)))
WG_KERNEL(k_n16_e4m3e5m2, 4, (wg_n16_f16_e4m3e5m2<1, 1>(d, da, db, sd)))
WG_KERNEL(k_n32_s8, 16, (wg_n32_s32_s8(d, da, db, sd)))
WG_KERNEL(k_n32_s8u8_sat, 16, (wg_n32_s32_s8u8_sat(d, da, db, sd)))
WG_KERNEL(k_n16_areg, 8, (wg_n16_f32_f16_areg<1, 1, 0>(d, a, db, sd)))
WG_KERNEL(k_n16_areg_negb_tb, 8, (wg_n16_f32_f16_areg<1, -1, 1>(d, a, db, sd)))
WG_KERNEL(k_n64_trans, 32, (wg_n64_f32_f16<1, 1, 1, 1>(d, da, db, sd)))
WG_KERNEL(k_n64_nega, 32, (wg_n64_f32_f16<-1, 1, 0, 0>(d, da, db, sd)))

// ---------------------------------------------------------------- host
enum class T { F16, BF16, TF32, E4M3, E5M2, S8, U8, F32, S32 };
int ebits(T t) {
  switch (t) {
    case T::F16: case T::BF16: return 16;
    case T::E4M3: case T::E5M2: case T::S8: case T::U8: return 8;
    default: return 32;
  }
}
bool is_int(T t) { return t == T::S8 || t == T::U8 || t == T::S32; }

uint32_t encode(T t, double v) {
  switch (t) {
    case T::F16: { __half h = __double2half(v); uint16_t b; memcpy(&b, &h, 2); return b; }
    case T::BF16: { __nv_bfloat16 h = __double2bfloat16(v); uint16_t b; memcpy(&b, &h, 2); return b; }
    case T::TF32: case T::F32: { float f = float(v); uint32_t b; memcpy(&b, &f, 4); return b; }
    case T::E4M3: { __nv_fp8_e4m3 x{float(v)}; uint8_t b; memcpy(&b, &x, 1); return b; }
    case T::E5M2: { __nv_fp8_e5m2 x{float(v)}; uint8_t b; memcpy(&b, &x, 1); return b; }
    case T::S8: return uint8_t(int8_t(v));
    case T::U8: return uint8_t(v);
    case T::S32: return uint32_t(int32_t(int64_t(v)));
  }
  return 0;
}
double decode(T t, uint32_t b) {
  switch (t) {
    case T::F16: { uint16_t x = uint16_t(b); __half h; memcpy(&h, &x, 2); return __half2float(h); }
    case T::F32: { float f; memcpy(&f, &b, 4); return f; }
    case T::S32: return int32_t(b);
    default: return 0;
  }
}

// The canonical layouts (PTX ISA 9.7.15.5.1) with the strides this test picks for them: the byte
// offset of element (mn, k) from the 1024-aligned start of its region, swizzle included.
struct Layout {
  int W;          // swizzle bytes: 0 (none), 32, 64, 128
  bool mn_major;  // imm-trans = 1
  uint32_t lbo, sbo, bytes;
};
Layout make_layout(int W, bool mn_major, int MN, int eb) {
  Layout L{W, mn_major, 0, 0, 0};
  const uint32_t rowbytes = uint32_t(MN) * eb / 8;  // MN-major: bytes along MN
  if (!mn_major) {
    // K-major, 32 bytes of K per row of the operand.
    if (W == 0) { L.lbo = uint32_t(MN / 8) * 128; L.sbo = 128; L.bytes = 2 * L.lbo; }  // K chunks far apart
    else { L.lbo = 16; L.sbo = 8 * W; L.bytes = uint32_t(MN / 8) * 8 * W; }
  } else {
    // MN-major, 16 K rows (16-bit types).
    if (W == 0) { L.sbo = 128; L.lbo = rowbytes / 16 * 128; L.bytes = 2 * L.lbo; }
    else { L.sbo = 8 * W; L.lbo = 16 * W; L.bytes = rowbytes / W * 16 * W; }
  }
  return L;
}
uint32_t offset_of(const Layout& L, int mn, int k, int eb) {
  uint32_t off;
  if (!L.mn_major) {
    uint32_t kb = uint32_t(k) * eb / 8;
    off = L.W ? (mn % 8) * L.W + (mn / 8) * L.sbo + kb : (mn % 8) * 16 + (mn / 8) * L.sbo + (kb / 16) * L.lbo + kb % 16;
  } else {
    uint32_t mb = uint32_t(mn) * eb / 8;
    off = L.W ? (k % 8) * L.W + (k / 8) * L.sbo + (mb / L.W) * L.lbo + mb % L.W
              : (k % 8) * 16 + (k / 8) * L.lbo + (mb / 16) * L.sbo + mb % 16;
  }
  if (L.W) off ^= ((off >> 7) & (L.W / 16 - 1)) << 4;  // Swizzle<B,4,3> on address bits
  return off;
}
uint64_t descriptor(const Layout& L, uint32_t region) {
  uint64_t sw = L.W == 128 ? 1 : L.W == 64 ? 2 : L.W == 32 ? 3 : 0;
  return uint64_t(region >> 4) | uint64_t(L.lbo >> 4) << 16 | uint64_t(L.sbo >> 4) << 32 | sw << 62;
}

struct Rng {
  uint64_t s;
  uint32_t next() { s = s * 6364136223846793005ull + 1442695040888963407ull; return uint32_t(s >> 33); }
  int range(int lo, int hi) { return lo + int(next() % uint32_t(hi - lo + 1)); }
};

using Kernel = void (*)(const uint8_t*, int, const uint64_t*, const uint32_t*, const uint32_t*, uint32_t*, int, int);
struct Case {
  const char* name;
  Kernel kernel;
  int N, K;
  T at, bt, dt;
  int aW, bW;
  bool ta, tb, areg, nega, negb, sat;
  int scale_d, steps;
  bool random;
};

uint64_t g_checksum = 1469598103934665603ull;
void mix(uint32_t v) {
  for (int i = 0; i < 4; ++i) { g_checksum ^= (v >> (8 * i)) & 0xff; g_checksum *= 1099511628211ull; }
}

int run(const Case& c) {
  const int M = 64, N = c.N, K = c.K, S = c.steps;
  const int ea = ebits(c.at), eb = ebits(c.bt);
  const int NR = c.dt == T::F16 ? N / 4 : N / 2;
  Rng rng{0x9e3779b97f4a7c15ull ^ uint64_t(N * 131 + K * 7 + S)};
  // Values: small integers (halves for tf32), so products and sums are exact in every format.
  auto value = [&](T t) -> double {
    if (c.random) return (int(rng.next() % 2001) - 1000) / 1024.0;  // f16-exact, random mantissas
    switch (t) {
      case T::S8: return rng.range(-128, 127);
      case T::U8: return rng.range(0, 255);
      case T::TF32: return rng.range(-4, 4) * 0.5;
      default: return rng.range(-3, 3);
    }
  };
  std::vector<double> A(size_t(S) * M * K), B(size_t(S) * K * N), C(size_t(M) * N);
  std::vector<uint32_t> Ab(A.size()), Bb(B.size());
  for (size_t i = 0; i < A.size(); ++i) { Ab[i] = encode(c.at, value(c.at)); A[i] = 0; }
  for (size_t i = 0; i < B.size(); ++i) { Bb[i] = encode(c.bt, value(c.bt)); B[i] = 0; }
  // Exact element values from the encoded bits.
  auto val_of = [&](T t, uint32_t b) -> double {
    switch (t) {
      case T::F16: return decode(T::F16, b);
      case T::BF16: { uint32_t x = b << 16; float f; memcpy(&f, &x, 4); return f; }
      case T::TF32: case T::F32: { float f; memcpy(&f, &b, 4); return f; }
      case T::E4M3: { __nv_fp8_e4m3 x; memcpy(&x, &b, 1); return float(x); }
      case T::E5M2: { __nv_fp8_e5m2 x; memcpy(&x, &b, 1); return float(x); }
      case T::S8: return int8_t(b);
      case T::U8: return uint8_t(b);
      default: return 0;
    }
  };
  for (size_t i = 0; i < A.size(); ++i) A[i] = val_of(c.at, Ab[i]);
  for (size_t i = 0; i < B.size(); ++i) B[i] = val_of(c.bt, Bb[i]);
  for (auto& x : C) x = c.sat ? 2147480000.0 + rng.range(0, 3000) : is_int(c.dt) ? rng.range(-1000, 1000) : rng.range(-8, 8);
  // Shared-memory image: per step an A region (unless A is in registers) and a B region, each
  // 1024-aligned.
  Layout LA = make_layout(c.aW, c.ta, M, ea), LB = make_layout(c.bW, c.tb, N, eb);
  auto align = [](uint32_t x) { return (x + 1023) & ~1023u; };
  std::vector<uint64_t> descs(2 * S);
  uint32_t off = 0;
  std::vector<uint8_t> img;
  auto put = [&](uint32_t o, uint32_t v, int bits) {
    for (int i = 0; i < bits / 8; ++i) img[o + i] = uint8_t(v >> (8 * i));
  };
  for (int s = 0; s < S; ++s) {
    uint32_t ra = off;
    if (!c.areg) off = align(off + LA.bytes);
    uint32_t rb = off;
    off = align(off + LB.bytes);
    img.resize(off, 0);
    if (!c.areg) {
      descs[2 * s] = descriptor(LA, ra);
      for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k) put(ra + offset_of(LA, m, k, ea), Ab[(size_t(s) * M + m) * K + k], ea);
    }
    descs[2 * s + 1] = descriptor(LB, rb);
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) put(rb + offset_of(LB, n, k, eb), Bb[(size_t(s) * K + k) * N + n], eb);
  }
  // Registers of the 128 threads of a warpgroup: A fragments (step 0) and accumulators.
  std::vector<uint32_t> areg(128 * 4, 0), dinit(128 * size_t(NR), 0);
  auto drc = [](int tid, int i, int& row, int& col) {
    int q = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    row = 16 * q + g + 8 * ((i >> 1) & 1);
    col = 8 * (i >> 2) + 2 * t + (i & 1);
  };
  for (int tid = 0; tid < 128; ++tid) {
    int q = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4, e = 32 / ea;
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < e; ++j) {
        int row = 16 * q + g + 8 * (r & 1), col = t * e + j + (r >> 1) * 4 * e;
        areg[tid * 4 + r] |= (Ab[size_t(row) * K + col] & (ea == 32 ? 0xffffffffu : (1u << ea) - 1)) << (ea * j % 32);
      }
    for (int i = 0; i < N / 2; ++i) {
      int row, col;
      drc(tid, i, row, col);
      uint32_t v = c.scale_d ? encode(c.dt, C[size_t(row) * N + col]) : (c.dt == T::F16 ? 0x7e00u : 0x7fc00000u + i);
      if (c.dt == T::F16) dinit[tid * NR + i / 2] |= (v & 0xffff) << (16 * (i & 1));
      else dinit[tid * NR + i] = v;
    }
  }
  // Reference.
  std::vector<double> R(size_t(M) * N);
  double sa = c.nega ? -1 : 1, sb = c.negb ? -1 : 1;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double acc = c.scale_d ? C[size_t(m) * N + n] : 0;
      for (int s = 0; s < S; ++s)
        for (int k = 0; k < K; ++k) acc += sa * A[(size_t(s) * M + m) * K + k] * sb * B[(size_t(s) * K + k) * N + n];
      if (c.sat) acc = fmin(fmax(acc, -2147483648.0), 2147483647.0);
      R[size_t(m) * N + n] = acc;
      mix(encode(c.dt, acc));
    }
  // Run with two warpgroups.
  uint8_t* dimg; uint64_t* ddesc; uint32_t *dareg, *ddinit, *dout;
  CHECK(cudaMalloc(&dimg, img.size()));
  CHECK(cudaMalloc(&ddesc, descs.size() * 8));
  CHECK(cudaMalloc(&dareg, areg.size() * 4));
  CHECK(cudaMalloc(&ddinit, dinit.size() * 4));
  CHECK(cudaMalloc(&dout, 256 * size_t(NR) * 4));
  CHECK(cudaMemcpy(dimg, img.data(), img.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ddesc, descs.data(), descs.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dareg, areg.data(), areg.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ddinit, dinit.data(), dinit.size() * 4, cudaMemcpyHostToDevice));
  int smem = int(img.size()) + 1024;
  CHECK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  c.kernel<<<1, 256, smem>>>(dimg, int(img.size()), ddesc, dareg, ddinit, dout, S, c.scale_d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> out(256 * size_t(NR));
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(dimg); cudaFree(ddesc); cudaFree(dareg); cudaFree(ddinit); cudaFree(dout);
  int bad = 0;
  char first[160] = "";
  for (int tid = 0; tid < 256; ++tid)
    for (int i = 0; i < N / 2; ++i) {
      int row, col;
      drc(tid % 128, i, row, col);
      uint32_t reg = c.dt == T::F16 ? out[tid * NR + i / 2] >> (16 * (i & 1)) & 0xffff : out[tid * NR + i];
      double want = R[size_t(row) * N + col], got = decode(c.dt, reg);
      bool ok = c.random ? fabs(got - want) <= 1e-5 * (1 + fabs(want)) : reg == encode(c.dt, want);
      if (!ok && bad++ == 0)
        snprintf(first, sizeof first, "thread %d D(%d,%d): got %.9g (0x%x), want %.9g", tid, row, col, got, reg, want);
    }
  if (bad) printf("%-72s WRONG: %d of %d elements, first %s\n", c.name, bad, 256 * N / 2, first);
  else printf("%-72s ok\n", c.name);
  return 0;
}

int main() {
  const Case cases[] = {
      {"m64n8k16 f16->f32, no swizzle", k_n8_f16, 8, 16, T::F16, T::F16, T::F32, 0, 0, false, false, false, false, false, false, 1, 1, false},
      {"m64n8k16 f16->f32, random values (tolerance)", k_n8_f16, 8, 16, T::F16, T::F16, T::F32, 0, 0, false, false, false, false, false, false, 1, 1, true},
      {"m64n64k16 bf16->f32, 128B swizzle", k_n64_bf16, 64, 16, T::BF16, T::BF16, T::F32, 128, 128, false, false, false, false, false, false, 1, 1, false},
      {"m64n256k16 f16->f16, A 64B swizzle, B 32B swizzle", k_n256_f16acc, 256, 16, T::F16, T::F16, T::F16, 64, 32, false, false, false, false, false, false, 1, 1, false},
      {"m64n32k8 tf32->f32, 64B swizzle", k_n32_tf32, 32, 8, T::TF32, T::TF32, T::F32, 64, 64, false, false, false, false, false, false, 1, 1, false},
      {"m64n16k32 e4m3->f32, 128B swizzle", k_n16_e4m3, 16, 32, T::E4M3, T::E4M3, T::F32, 128, 128, false, false, false, false, false, false, 1, 1, false},
      {"m64n16k32 e4m3 x e5m2->f16, 32B swizzle, 2 k-steps", k_n16_e4m3e5m2, 16, 32, T::E4M3, T::E5M2, T::F16, 32, 32, false, false, false, false, false, false, 1, 2, false},
      {"m64n32k32 s8->s32, no swizzle", k_n32_s8, 32, 32, T::S8, T::S8, T::S32, 0, 0, false, false, false, false, false, false, 1, 1, false},
      {"m64n32k32 s8 x u8->s32 .satfinite, 128B swizzle", k_n32_s8u8_sat, 32, 32, T::S8, T::U8, T::S32, 128, 128, false, false, false, false, false, true, 1, 1, false},
      {"m64n16k16 f16->f32, A from registers, B 128B swizzle", k_n16_areg, 16, 16, T::F16, T::F16, T::F32, 0, 128, false, false, true, false, false, false, 1, 1, false},
      {"m64n16k16 f16->f32, A from registers, negated B, transposed B 32B", k_n16_areg_negb_tb, 16, 16, T::F16, T::F16, T::F32, 0, 32, false, true, true, false, true, false, 1, 1, false},
      {"m64n64k16 f16->f32, transposed A (no swizzle), transposed B 32B", k_n64_trans, 64, 16, T::F16, T::F16, T::F32, 0, 32, true, true, false, false, false, false, 1, 1, false},
      {"m64n64k16 f16->f32, transposed A 128B, transposed B no swizzle", k_n64_trans, 64, 16, T::F16, T::F16, T::F32, 128, 0, true, true, false, false, false, false, 1, 1, false},
      {"m64n64k16 f16->f32, transposed A 64B, B 128B (trans), scale-d = 0", k_n64_trans, 64, 16, T::F16, T::F16, T::F32, 64, 128, true, true, false, false, false, false, 0, 1, false},
      {"m64n64k16 f16->f32, negated A, 128B swizzle, chain of 4 k-steps", k_n64_nega, 64, 16, T::F16, T::F16, T::F32, 128, 128, false, false, false, true, false, false, 1, 4, false},
      {"m64n256k16 f16->f16, no swizzle, scale-d = 0, 2 k-steps", k_n256_f16acc, 256, 16, T::F16, T::F16, T::F16, 0, 0, false, false, false, false, false, false, 0, 2, false},
  };
  for (const Case& c : cases)
    if (run(c)) return 1;
  printf("checksum 0x%016llx\n", (unsigned long long)g_checksum);
  return 0;
}
