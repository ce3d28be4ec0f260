// Measures what the GPU's MUFU (special function unit) returns for each PTX .approx instruction over
// dense input sets, and writes, per set, the difference (in units of the result's last place, as an
// int32 of bit patterns) to the correctly rounded result computed on the host in double; the half
// forms are written raw for all 65536 inputs. Run by validation/sm/mufu/run_h100.sh.
// Usage: mufu_measure OUTDIR
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

enum Op { RCP, RSQ, LG2, EX2, SIN, COS, TANH, RCP_NOFTZ, EX2_NOFTZ, LG2_NOFTZ, RSQ_NOFTZ };

__device__ float apply(int op, float x) {
  float r;
  switch (op) {
    case RCP: asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case RSQ: asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case LG2: asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case EX2: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case SIN: asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case COS: asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case TANH: asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case RCP_NOFTZ: asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case EX2_NOFTZ: asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case LG2_NOFTZ: asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    default: asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
  }
  return r;
}
// One kernel per op so that each compiles to its own SASS (checked with cuobjdump -sass).
#define K(NAME, OP) __global__ void k_##NAME(const float* in, float* out, size_t n) { \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) \
    out[i] = apply(OP, in[i]); }
K(rcp, RCP) K(rsq, RSQ) K(lg2, LG2) K(ex2, EX2) K(sin, SIN) K(cos, COS) K(tanh, TANH)
K(rcp_noftz, RCP_NOFTZ) K(ex2_noftz, EX2_NOFTZ) K(lg2_noftz, LG2_NOFTZ) K(rsq_noftz, RSQ_NOFTZ)

__global__ void k_half(const uint16_t* in, uint16_t* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 65536) return;
  uint16_t a = in[i], r0, r1, r2, r3;
  asm("ex2.approx.f16 %0, %1;" : "=h"(r0) : "h"(a));
  asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(r1) : "h"(a));
  asm("tanh.approx.f16 %0, %1;" : "=h"(r2) : "h"(a));
  asm("tanh.approx.bf16 %0, %1;" : "=h"(r3) : "h"(a));
  uint32_t p = a | (uint32_t(uint16_t(a ^ 0x8000)) << 16), q0, q1, q2, q3;
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(q0) : "r"(p));
  asm("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(q1) : "r"(p));
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(q2) : "r"(p));
  asm("tanh.approx.bf16x2 %0, %1;" : "=r"(q3) : "r"(p));
  out[i] = r0; out[65536 + i] = r1; out[2 * 65536 + i] = r2; out[3 * 65536 + i] = r3;
  // x2 forms: low half must equal the scalar result of a, high half that of -a (checked on the host)
  out[4 * 65536 + i] = q0 & 0xffff; out[5 * 65536 + i] = q1 & 0xffff;
  out[6 * 65536 + i] = q2 & 0xffff; out[7 * 65536 + i] = q3 & 0xffff;
  out[8 * 65536 + (uint16_t(a ^ 0x8000))] = q0 >> 16; out[9 * 65536 + (uint16_t(a ^ 0x8000))] = q1 >> 16;
  out[10 * 65536 + (uint16_t(a ^ 0x8000))] = q2 >> 16; out[11 * 65536 + (uint16_t(a ^ 0x8000))] = q3 >> 16;
}

static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static double ref(int op, double x) {
  switch (op) {
    case RCP: case RCP_NOFTZ: return 1.0 / x;
    case RSQ: case RSQ_NOFTZ: return 1.0 / std::sqrt(x);
    case LG2: case LG2_NOFTZ: return std::log2(x);
    case EX2: case EX2_NOFTZ: return std::exp2(x);
    case SIN: return std::sin(x);
    case COS: return std::cos(x);
    default: return std::tanh(x);
  }
}

typedef void (*Kern)(const float*, float*, size_t);

// Every float from lo (bits) for n consecutive bit patterns (step 1), or every step-th.
struct Set { const char* name; int op; Kern k; uint32_t lo; uint32_t n; uint32_t step; bool grid; double gstep; };

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  const uint32_t M = 1u << 23;
  Set sets[] = {
    {"rcp_1_2", RCP, k_rcp, 0x3f800000u, M, 1, false, 0},
    {"rsq_1_4", RSQ, k_rsq, 0x3f800000u, 2 * M, 1, false, 0},
    {"lg2_1_2", LG2, k_lg2, 0x3f800000u, M, 1, false, 0},
    {"lg2_2_4", LG2, k_lg2, 0x40000000u, M, 1, false, 0},
    {"lg2_05_1", LG2, k_lg2, 0x3f000000u, M, 1, false, 0},
    {"ex2_05_1", EX2, k_ex2, 0x3f000000u, M, 1, false, 0},
    {"ex2_1_2", EX2, k_ex2, 0x3f800000u, M, 1, false, 0},
    {"ex2_025_05", EX2, k_ex2, 0x3e800000u, M, 1, false, 0},
    {"ex2_m1_m05", EX2, k_ex2, 0xbf000000u, M, 1, false, 0},
    {"ex2_tiny", EX2, k_ex2, 0x33000000u, 24 * M, 16, false, 0},  // 2^-25 .. 2^-1, every 16th
    {"ex2_big", EX2, k_ex2, 0x40000000u, 5 * M, 8, false, 0},     // 2 .. 128
    {"sin_grid", SIN, k_sin, 0, 13176795u, 1, true, 1.0 / (1 << 21)},  // i*2^-21 over [0, 2pi)
    {"cos_grid", COS, k_cos, 0, 13176795u, 1, true, 1.0 / (1 << 21)},
    {"sin_1_2", SIN, k_sin, 0x3f800000u, M, 1, false, 0},
    {"tanh_1_2", TANH, k_tanh, 0x3f800000u, M, 1, false, 0},
    {"tanh_wide", TANH, k_tanh, 0x30000000u, 32 * M, 64, false, 0},  // 2^-31 .. 2^1, every 64th
    {"tanh_big", TANH, k_tanh, 0x40000000u, 4 * M, 16, false, 0},    // 2 .. 32
    {"rcp_noftz_wide", RCP_NOFTZ, k_rcp_noftz, 0x00000001u, 0x7f000000u, 509, false, 0},
    {"rcp_wide", RCP, k_rcp, 0x00800000u, 0x7e800000u, 509, false, 0},
    {"rsq_wide", RSQ, k_rsq, 0x00800000u, 0x7e800000u, 509, false, 0},
    {"rsq_noftz_wide", RSQ_NOFTZ, k_rsq_noftz, 0x00000001u, 0x7f000000u, 509, false, 0},
    {"lg2_wide", LG2, k_lg2, 0x00800000u, 0x7e800000u, 509, false, 0},
    {"lg2_noftz_wide", LG2_NOFTZ, k_lg2_noftz, 0x00000001u, 0x7f000000u, 509, false, 0},
    {"ex2_noftz_neg", EX2_NOFTZ, k_ex2_noftz, 0xc2f00000u, 0x00400000u, 1, false, 0},  // -120 .. -152: subnormal results
  };
  float *din, *dout;
  size_t cap = 32 * M;
  CK(cudaMalloc(&din, cap * 4));
  CK(cudaMalloc(&dout, cap * 4));
  std::vector<float> in(cap), out(cap);
  std::vector<int32_t> diff(cap);
  FILE* sum = fopen((dir + "/summary.txt").c_str(), "w");
  for (const Set& s : sets) {
    size_t n = s.n / s.step;
    for (size_t i = 0; i < n; ++i)
      in[i] = s.grid ? float(double(i) * s.gstep) : bf(s.lo + uint32_t(i * s.step));
    CK(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
    s.k<<<1024, 256>>>(din, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    long hist[7] = {0}, other = 0, nan_mismatch = 0;
    for (size_t i = 0; i < n; ++i) {
      float r = float(ref(s.op, double(in[i])));
      int64_t d = int64_t(int32_t(fb(out[i]))) - int64_t(int32_t(fb(r)));
      if (std::isnan(r) != std::isnan(out[i])) ++nan_mismatch;
      diff[i] = int32_t(d);
      if (d >= -3 && d <= 3) ++hist[d + 3]; else ++other;
    }
    fprintf(sum, "%-16s n=%zu  -3:%ld -2:%ld -1:%ld 0:%ld +1:%ld +2:%ld +3:%ld other:%ld nanmis:%ld\n", s.name, n,
            hist[0], hist[1], hist[2], hist[3], hist[4], hist[5], hist[6], other, nan_mismatch);
    FILE* f = fopen((dir + "/" + s.name + ".diff").c_str(), "wb");
    fwrite(diff.data(), 4, n, f);
    fclose(f);
  }
  // half forms: all inputs, raw
  std::vector<uint16_t> hin(65536), hout(12 * 65536);
  for (unsigned i = 0; i < 65536; ++i) hin[i] = uint16_t(i);
  uint16_t *dh, *dho;
  CK(cudaMalloc(&dh, 65536 * 2));
  CK(cudaMalloc(&dho, 12 * 65536 * 2));
  CK(cudaMemcpy(dh, hin.data(), 65536 * 2, cudaMemcpyHostToDevice));
  k_half<<<256, 256>>>(dh, dho);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hout.data(), dho, 12 * 65536 * 2, cudaMemcpyDeviceToHost));
  FILE* f = fopen((dir + "/half.raw").c_str(), "wb");
  fwrite(hout.data(), 2, 12 * 65536, f);
  fclose(f);
  for (int k = 0; k < 4; ++k) {
    long m1 = 0, m2 = 0;
    for (unsigned i = 0; i < 65536; ++i) {
      m1 += hout[(4 + k) * 65536 + i] != hout[k * 65536 + i];
      m2 += hout[(8 + k) * 65536 + i] != hout[k * 65536 + i];
    }
    fprintf(sum, "half form %d: x2 low lane differs from scalar %ld, high lane %ld\n", k, m1, m2);
  }
  fclose(sum);
  printf("done\n");
  return 0;
}
