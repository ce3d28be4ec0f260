// Results of the CUDA math functions that end in MUFU (special function unit) instructions, printed
// as bit patterns, so that the output is what the GPU computes to the last bit: expf, exp2f, tanhf,
// powf, __expf, exp10f/__exp10f, __sinf, __cosf, __logf, __log2f, rsqrtf, __fdividef, __frcp_rn's
// approximate sibling (1/x under fast math is not used: only intrinsics), and the half forms h2exp,
// hexp2, htanh-like tanh.approx.f16 (through h2exp2/hexp2) and bf16 exp2. The expected output is the
// H100's (validation/driver/h100_mufu_results.out). Each value is also checked against a CPU
// reference in double within the documented error of the function, so the program fails by itself
// when a result is far off.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

constexpr int N = 320;
constexpr int F = 14;  // f32 results per input

__global__ void fns(const float* x, const float* y, uint32_t* out, const uint16_t* h, uint16_t* hout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float a = x[i], b = y[i];
  float r[F] = {expf(a), exp2f(a), tanhf(a), powf(fabsf(b), a), __expf(a), __exp10f(a), __sinf(a), __cosf(a),
                __logf(fabsf(b)), __log2f(fabsf(b)), rsqrtf(fabsf(b)), __fdividef(a, b), __powf(fabsf(b), a),
                1.0f / (1.0f + __expf(-a))};
  for (int k = 0; k < F; ++k) out[i * F + k] = __float_as_uint(r[k]);
  __half hx = __ushort_as_half(h[i]);
  __half2 h2 = __halves2half2(hx, __hneg(hx));
  __half2 e2 = h2exp(h2), e22 = h2exp2(h2);
  __nv_bfloat16 bx = __ushort_as_bfloat16(h[i]);
  hout[i * 6 + 0] = __half_as_ushort(__low2half(e2));
  hout[i * 6 + 1] = __half_as_ushort(__high2half(e2));
  hout[i * 6 + 2] = __half_as_ushort(__low2half(e22));
  hout[i * 6 + 3] = __half_as_ushort(hexp2(hx));
  hout[i * 6 + 4] = __bfloat16_as_ushort(hexp2(bx));
  hout[i * 6 + 5] = __half_as_ushort(htanh_approx(hx));
}

static float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

int main() {
  std::vector<float> x(N), y(N);
  std::vector<uint16_t> h(N);
  uint32_t s = 12345;
  auto rnd = [&]() { s = s * 1664525u + 1013904223u; return s; };
  for (int i = 0; i < N; ++i) {
    // a: mostly in [-16, 16], some wide; b: spread over many binades, both signs
    float u = float(rnd() >> 8) / 16777216.0f;
    x[i] = i < 256 ? (u * 32.0f - 16.0f) : (u * 160.0f - 80.0f);
    if (i % 16 == 0) x[i] = float(i / 16) * 0.5f - 2.0f;  // exact halves: 2^n cases
    int e = int(rnd() % 40) - 20;
    float m = 1.0f + float(rnd() >> 9) / 8388608.0f;
    y[i] = std::ldexp(m, e) * ((rnd() & 1) ? -1.0f : 1.0f);
    // half inputs: a spread of finite halves in [-16, 16]
    h[i] = uint16_t((rnd() >> 16) & 0x7fff) % 0x4c00 | ((rnd() & 1) ? 0x8000 : 0);
  }
  float *dx, *dy;
  uint32_t* dout;
  uint16_t *dh, *dhout;
  CK(cudaMalloc(&dx, N * 4));
  CK(cudaMalloc(&dy, N * 4));
  CK(cudaMalloc(&dout, N * F * 4));
  CK(cudaMalloc(&dh, N * 2));
  CK(cudaMalloc(&dhout, N * 6 * 2));
  CK(cudaMemcpy(dx, x.data(), N * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, y.data(), N * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dh, h.data(), N * 2, cudaMemcpyHostToDevice));
  fns<<<(N + 127) / 128, 128>>>(dx, dy, dout, dh, dhout);
  CK(cudaGetLastError());
  std::vector<uint32_t> out(N * F);
  std::vector<uint16_t> hout(N * 6);
  CK(cudaMemcpy(out.data(), dout, N * F * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hout.data(), dhout, N * 6 * 2, cudaMemcpyDeviceToHost));
  std::printf("i x y: expf exp2f tanhf powf __expf __exp10f __sinf __cosf __logf __log2f rsqrtf __fdividef __powf sigmoid | h: h2exp(lo,hi) h2exp2 hexp2 bf16exp2 htanh\n");
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    uint32_t xb, yb;
    std::memcpy(&xb, &x[i], 4);
    std::memcpy(&yb, &y[i], 4);
    std::printf("%3d %08x %08x:", i, xb, yb);
    for (int k = 0; k < F; ++k) std::printf(" %08x", out[i * F + k]);
    std::printf(" | %04x:", h[i]);
    for (int k = 0; k < 6; ++k) std::printf(" %04x", hout[i * 6 + k]);
    std::printf("\n");
    // loose CPU checks (relative 2^-10 where the result is normal and not tiny; absolute for sin/cos)
    double a = x[i], b = y[i];
    double ref[F] = {std::exp(a), std::exp2(a), std::tanh(a), std::pow(std::fabs(b), a), std::exp(a), std::pow(10.0, a),
                     std::sin(a), std::cos(a), std::log(std::fabs(b)), std::log2(std::fabs(b)), 1 / std::sqrt(std::fabs(b)),
                     a / b, std::pow(std::fabs(b), a), 1 / (1 + std::exp(-a))};
    for (int k = 0; k < F; ++k) {
      double r = u2f(out[i * F + k]), e = ref[k];
      if (!std::isfinite(e) || std::fabs(e) > 1e37 || std::fabs(e) < 1e-30) continue;
      double tol = (k == 6 || k == 7) ? 1e-5 * std::max(1.0, std::fabs(a)) : std::fabs(e) * 1e-3 + 1e-6;
      if (k == 3 || k == 12) tol = std::fabs(e) * 1e-2;
      if (k == 8 || k == 9) tol = 1e-5 + std::fabs(e) * 1e-5;
      if (!(std::fabs(r - e) <= tol)) {
        if (bad++ < 10) std::printf("FAIL: input %d function %d: %.9g, reference %.9g\n", i, k, r, e);
      }
    }
  }
  std::printf("%s\n", bad ? "some results are off" : "all results within tolerance");
  return bad ? 1 : 0;
}
