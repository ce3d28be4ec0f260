// A Hopper GEMM the way hand-written sm_90a kernels do it: C (M x N, f32) = A (M x K, f16, row-major)
// x B^T (B: N x K, f16, row-major), 128 x 128 CTA tiles of two warpgroups (64 rows each), 64-wide
// k-tiles copied by cp.async into a 3-stage shared-memory ring in the 128-byte-swizzled K-major
// layout (PTX ISA 9.7.15.5.1), each k-tile four wgmma.mma_async m64n128k16 (descriptor start
// advanced 32 bytes per k16 step), one commit group waited for before the stage is refilled.
// Small-integer inputs make every sum exact, so C is compared exactly with a CPU product.
// `--time` also prints the kernel time (not part of the expected output).
// Built with -arch=sm_90a; the expected output is what our H100 printed.
#include <cuda_fp16.h>

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

constexpr int BM = 128, BN = 128, BK = 64, STAGES = 3;
constexpr int TILE_BYTES = BM * BK * 2;              // 16 KB per operand per stage
constexpr int SMEM = STAGES * 2 * TILE_BYTES + 1024;  // + alignment slack

// D (64 x 128, f32) += A (64 x 16) * B (16 x 128), both K-major f16 in shared memory.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, 1, 1, 1, 0, 0;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a), "l"(b));
#else
  __trap();  // compute_90 PTX (nvcc -arch=sm_90a embeds it too): no wgmma there
#endif
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_SYNC(x) asm volatile(x ::: "memory")
#else
#define WG_SYNC(x)
#endif

// Byte offset of 16-byte chunk c (0..7) of row r in a 128-byte-swizzled K-major tile (rows 128
// bytes apart in 8-row groups of 1024 bytes; the chunk index XOR the row within the group).
__device__ __forceinline__ uint32_t swz(int r, int c) { return (r / 8) * 1024 + (r % 8) * 128 + ((c ^ (r % 8)) * 16); }

// 128-byte swizzle, SBO 1024 (next 8 rows), LBO unused (1).
__device__ __forceinline__ uint64_t desc128(uint32_t addr) {
  return uint64_t((addr & 0x3ffff) >> 4) | uint64_t(1) << 16 | uint64_t(1024 >> 4) << 32 | uint64_t(1) << 62;
}

__global__ void __launch_bounds__(256) gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  uint32_t raw = uint32_t(__cvta_generic_to_shared(smem_raw));
  uint32_t base = (raw + 1023) & ~1023u;
  const int tid = threadIdx.x, wg = tid / 128, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;
  // Stage s: A tile at base + s * 2 * TILE_BYTES, B tile after it. 256 threads copy 1024 chunks
  // of each tile: 4 per thread.
  auto load = [&](int stage, int kt) {
    uint32_t sa = base + stage * 2 * TILE_BYTES, sb = sa + TILE_BYTES;
    for (int i = 0; i < 4; ++i) {
      int q = tid + i * 256, r = q / 8, c = q % 8;
      const __half* ga = A + size_t(m0 + r) * K + kt * BK + c * 8;
      const __half* gb = B + size_t(n0 + r) * K + kt * BK + c * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa + swz(r, c)), "l"(ga) : "memory");
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb + swz(r, c)), "l"(gb) : "memory");
    }
  };
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load(s, s);
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  for (int kt = 0; kt < KT; ++kt) {
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // cp.async data -> wgmma's async proxy
    __syncthreads();
    if (kt + STAGES - 1 < KT) load((kt + STAGES - 1) % STAGES, kt + STAGES - 1);
    asm volatile("cp.async.commit_group;" ::: "memory");
    const int st = kt % STAGES;
    uint32_t sa = base + st * 2 * TILE_BYTES + wg * 64 * 128, sb = base + st * 2 * TILE_BYTES + TILE_BYTES;
    WG_SYNC("wgmma.fence.sync.aligned;");
    for (int k = 0; k < BK / 16; ++k) wgmma_m64n128k16(d, desc128(sa + k * 32), desc128(sb + k * 32));
    WG_SYNC("wgmma.commit_group.sync.aligned;");
    WG_SYNC("wgmma.wait_group.sync.aligned 0;");
  }
  // D fragment: warp w of the warpgroup holds rows 16w..16w+15; element i at row g + 8((i>>1)&1),
  // column 8(i>>2) + 2t + (i&1).
  const int lane = tid % 32, w = (tid % 128) / 32, g = lane / 4, t = lane % 4;
  for (int i = 0; i < 64; ++i) {
    int row = m0 + wg * 64 + w * 16 + g + 8 * ((i >> 1) & 1), col = n0 + 8 * (i >> 2) + 2 * t + (i & 1);
    C[size_t(row) * N + col] = d[i];
  }
}

int main(int argc, char** argv) {
  const bool timed = argc > 1 && strcmp(argv[1], "--time") == 0;
  const int M = 1024, N = 2048, K = 1024;
  std::vector<__half> A(size_t(M) * K), B(size_t(N) * K);
  std::vector<float> Af(A.size()), Bf(B.size());
  uint64_t s = 12345;
  auto rnd = [&]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return int(s >> 33) % 5 - 2; };
  for (size_t i = 0; i < A.size(); ++i) { Af[i] = float(rnd()); A[i] = __float2half(Af[i]); }
  for (size_t i = 0; i < B.size(); ++i) { Bf[i] = float(rnd()); B[i] = __float2half(Bf[i]); }
  __half *dA, *dB;
  float* dC;
  CHECK(cudaMalloc(&dA, A.size() * 2));
  CHECK(cudaMalloc(&dB, B.size() * 2));
  CHECK(cudaMalloc(&dC, size_t(M) * N * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dC, 0, size_t(M) * N * 4));
  CHECK(cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  dim3 grid(N / BN, M / BM);
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  if (timed) gemm<<<grid, 256, SMEM>>>(dA, dB, dC, M, N, K);  // warm-up (module load, clocks)
  CHECK(cudaEventRecord(e0));
  gemm<<<grid, 256, SMEM>>>(dA, dB, dC, M, N, K);
  CHECK(cudaEventRecord(e1));
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  std::vector<float> C(size_t(M) * N);
  CHECK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
  // CPU reference (exact: |sums| <= 4K, integers).
  long bad = 0;
  double checksum = 0;
  std::vector<float> row(K);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const float* a = &Af[size_t(m) * K];
      const float* b = &Bf[size_t(n) * K];
      float acc = 0;
      for (int k = 0; k < K; ++k) acc += a[k] * b[k];
      checksum += double(acc) * ((m * 7 + n * 13) % 17);
      if (C[size_t(m) * N + n] != acc && bad++ < 3)
        printf("C(%d,%d) = %g, want %g\n", m, n, C[size_t(m) * N + n], acc);
    }
  printf("wgmma gemm %dx%dx%d (128x128 tiles, 2 warpgroups, 3-stage cp.async, 128B swizzle): %s\n", M, N, K,
         bad ? "WRONG" : "ok");
  if (bad) printf("%ld wrong elements\n", bad);
  printf("checksum %.0f\n", checksum);
  if (timed) printf("kernel %.3f us, %.1f TFLOPS\n", ms * 1e3, 2.0 * M * N * K / (ms * 1e-3) / 1e12);
  return 0;
}
