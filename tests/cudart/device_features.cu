// Device-code features beyond plain arithmetic, each checked against a CPU reference: device-side
// malloc/free/new/delete (blocks that outlive a kernel, a request larger than the heap returns
// NULL, the heap size fixed once used), atomicAdd on __half2, a 16-bit atomicCAS loop,
// cuda::atomic_ref, cuda::barrier with cuda::memcpy_async, cudaMemcpyDefault.
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;
static int fails = 0;
static void report(const char* what, bool ok) { std::printf("%s: %s\n", what, ok ? "yes" : "NO"); if (!ok) ++fails; }
__global__ void dmalloc(int* out) {
  int* p = (int*)malloc(16 * sizeof(int));
  if (!p) { out[threadIdx.x] = -1; return; }
  for (int i = 0; i < 16; ++i) p[i] = threadIdx.x * i;
  int s = 0; for (int i = 0; i < 16; ++i) s += p[i];
  free(p);
  int* q = new int[4]; q[3] = 5; s += q[3]; delete[] q;
  out[threadIdx.x] = s;
}
__global__ void atom2(__half2* h2, unsigned short* u16, int* cnt) {
  atomicAdd(h2, __halves2half2(__float2half(1.f), __float2half(0.5f)));
  unsigned short old = *u16, assumed;
  do { assumed = old; old = atomicCAS(u16, assumed, (unsigned short)(assumed + 3)); } while (old != assumed);
  cuda::atomic_ref<int, cuda::thread_scope_device> r(*cnt);
  r.fetch_add(2, cuda::memory_order_relaxed);
}
__global__ void bar_copy(const int* in, int* out, int n) {
  __shared__ int buf[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, in + blockIdx.x * 256, sizeof(int) * 256, bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = buf[255 - threadIdx.x] * 2;
}
__global__ void keep(int** slot, int n) {
  int* p = (int*)malloc(n * sizeof(int));
  for (int i = 0; p && i < n; ++i) p[i] = i * i;
  *slot = p;
}
__global__ void use_and_free(int** slot, int n, long long* sum, int* big_null) {
  int* p = *slot;
  long long s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  free(p);
  *sum = s;
  *big_null = malloc(2 << 20) == nullptr;  // more than the 1 MB heap
}
int main() {
  int* d; cudaMalloc(&d, 64 * 4);
  report("heap size settable before first use", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20) == cudaSuccess);
  dmalloc<<<1, 64>>>(d);
  std::vector<int> h(64); cudaError_t e = cudaMemcpy(h.data(), d, 256, cudaMemcpyDefault);
  bool ok = e == cudaSuccess; for (int t = 0; t < 64; ++t) ok &= h[t] == t * 120 + 5;
  report("device malloc/free/new/delete + cudaMemcpyDefault", ok);
  {
    int** slot; long long* sum; int* big_null;
    cudaMalloc(&slot, sizeof(int*)); cudaMalloc(&sum, 8); cudaMalloc(&big_null, 4);
    keep<<<1, 1>>>(slot, 1000);
    use_and_free<<<1, 1>>>(slot, 1000, sum, big_null);
    long long hs = 0; int hn = 0;
    cudaMemcpy(&hs, sum, 8, cudaMemcpyDeviceToHost); cudaMemcpy(&hn, big_null, 4, cudaMemcpyDeviceToHost);
    long long ref = 0; for (int i = 0; i < 1000; ++i) ref += (long long)i * i;
    report("heap block kept across kernels; oversized malloc returns NULL", hs == ref && hn == 1);
    report("heap size fixed once used", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 4 << 20) != cudaSuccess);
    cudaGetLastError();
  }
  __half2* h2; unsigned short* u16; int* cnt;
  cudaMalloc(&h2, 4); cudaMalloc(&u16, 2); cudaMalloc(&cnt, 4);
  cudaMemset(h2, 0, 4); cudaMemset(u16, 0, 2); cudaMemset(cnt, 0, 4);
  atom2<<<4, 64>>>(h2, u16, cnt);
  __half2 rh; unsigned short ru; int rc;
  cudaMemcpy(&rh, h2, 4, cudaMemcpyDeviceToHost); cudaMemcpy(&ru, u16, 2, cudaMemcpyDeviceToHost); cudaMemcpy(&rc, cnt, 4, cudaMemcpyDeviceToHost);
  report("atomicAdd half2, 16-bit atomicCAS, cuda::atomic_ref",
         __low2float(rh) == 256.f && __high2float(rh) == 128.f && ru == 768 && rc == 512);
  const int n = 4 * 256; std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i * 3 - 7;
  int *din, *dout; cudaMalloc(&din, n * 4); cudaMalloc(&dout, n * 4);
  cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice);
  bar_copy<<<4, 256>>>(din, dout, n);
  e = cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  ok = e == cudaSuccess; for (int i = 0; i < n; ++i) ok &= out[i] == in[(i / 256) * 256 + 255 - i % 256] * 2;
  report("cuda::barrier + cuda::memcpy_async", ok);
  printf("device_features: %s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
