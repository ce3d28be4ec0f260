// wgmma throughput on one SM: a loop of m64n256k16 f16 -> f32 wgmma (4 per commit group, one
// group kept in flight, as CUTLASS's mainloop does), 1 or 2 warpgroups per CTA, one CTA per SM.
// Prints SM cycles (clock64) per wgmma per SM. Operands are zeros in shared memory (no swizzle).
#include <cstdint>
#include <cstdio>
#include <vector>
#include <algorithm>
__device__ __forceinline__ void wg256(float (&d)[128], uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, 1, 1, 1, 0, 0;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a), "l"(b));
}

__device__ __forceinline__ void wg8(float (&d)[4], uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(a), "l"(b));
}

// Latency: one wgmma per commit group, waited for at once (N = 256 or 8).
template <int N>
__global__ void latency(int iters, long long* cycles, float* sink) {
  __shared__ __align__(1024) uint8_t sm[64 * 32 + 256 * 32];
  for (int i = threadIdx.x; i < int(sizeof sm); i += blockDim.x) sm[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t base = uint32_t(__cvta_generic_to_shared(sm));
  uint64_t da = uint64_t(base >> 4) | uint64_t(1024 >> 4) << 16 | uint64_t(128 >> 4) << 32;
  uint64_t db = uint64_t((base + 2048) >> 4) | uint64_t(4096 >> 4) << 16 | uint64_t(128 >> 4) << 32;
  float d[N == 256 ? 128 : 4];
  for (int i = 0; i < (N == 256 ? 128 : 4); ++i) d[i] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    if constexpr (N == 256) wg256(d, da, db); else wg8(d, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int i = 0; i < (N == 256 ? 128 : 4); ++i) s += d[i];
  if (s != 0.f) sink[threadIdx.x] = s;
}

__global__ void bench(int iters, long long* cycles, float* sink) {
  __shared__ __align__(1024) uint8_t sm[64 * 32 + 256 * 32];
  for (int i = threadIdx.x; i < int(sizeof sm); i += blockDim.x) sm[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t base = uint32_t(__cvta_generic_to_shared(sm));
  // K-major, no swizzle: A 64 rows (LBO 1024 = 8 row groups x 128, SBO 128), B 256 rows.
  uint64_t da = uint64_t(base >> 4) | uint64_t(1024 >> 4) << 16 | uint64_t(128 >> 4) << 32;
  uint64_t db = uint64_t((base + 2048) >> 4) | uint64_t(4096 >> 4) << 16 | uint64_t(128 >> 4) << 32;
  float d[128];
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    wg256(d, da, db); wg256(d, da, db); wg256(d, da, db); wg256(d, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int i = 0; i < 128; ++i) s += d[i];
  if (s != 0.f) sink[threadIdx.x] = s;
}

int main(int argc, char** argv) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int ctas = argc > 1 ? atoi(argv[1]) : sms;
  int iters = argc > 2 ? atoi(argv[2]) : 256;
  long long* dc; float* sink;
  cudaMalloc(&dc, ctas * sizeof(long long));
  cudaMalloc(&sink, 1024 * sizeof(float));
  for (int wgs = 1; wgs <= 2; ++wgs) {
    bench<<<ctas, 128 * wgs>>>(iters, dc, sink);  // warm-up
    bench<<<ctas, 128 * wgs>>>(iters, dc, sink);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    std::vector<long long> c(ctas);
    cudaMemcpy(c.data(), dc, ctas * sizeof(long long), cudaMemcpyDeviceToHost);
    std::sort(c.begin(), c.end());
    double per = double(c[ctas / 2]) / (double(iters) * 4 * wgs);
    printf("ctas %d warpgroups/cta %d iters %d: median %lld cycles, %.2f cycles per m64n256k16 wgmma per SM (%.0f dense f16 FMA/clk/SM)\n",
           ctas, wgs, iters, c[ctas / 2], per, 64.0 * 256 * 16 / per);
  }
  for (int n : {256, 8}) {
    for (int rep = 0; rep < 2; ++rep) {
      if (n == 256) latency<256><<<1, 128>>>(iters, dc, sink); else latency<8><<<1, 128>>>(iters, dc, sink);
    }
    cudaDeviceSynchronize();
    long long c;
    cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost);
    printf("latency: m64n%dk16 f16->f32, commit + wait_group 0 after each: %.2f cycles per wgmma (1 warpgroup)\n", n, double(c) / iters);
  }
  return 0;
}
