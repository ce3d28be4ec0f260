// Cooperative launches and runtime entry points programs commonly call, built with
// --default-stream per-thread (so every runtime call goes through its _ptds/_ptsz variant).
// - cudaLaunchCooperativeKernel and cudaLaunchKernelEx(cudaLaunchAttributeCooperative): all CTAs
//   resident, cooperative_groups::this_grid().sync() between phases that read other blocks' data;
//   grid.is_valid() false in an ordinary launch; a grid larger than can be resident at once is
//   cudaErrorCooperativeLaunchTooLarge.
// - cudaMemset2DAsync, cudaMemcpyPeerAsync, cudaProfilerStart/Stop, cudaStreamIsCapturing,
//   cudaStreamGetCaptureInfo, cudaStreamGetId, cudaFuncGetName, the default memory pool,
//   cudaMallocFromPoolAsync, cudaOccupancyAvailableDynamicSMemPerBlock, zero-copy memory
//   (cudaHostAllocMapped, cudaHostGetDevicePointer, cudaHostGetFlags).
// Every result is checked against a CPU reference.
#include <cooperative_groups.h>
#include <cuda_profiler_api.h>

#include <cstdio>
#include <cstring>
#include <vector>
namespace cg = cooperative_groups;

static int fails = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "yes" : "NO");
  if (!ok) ++fails;
}
#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e_));                     \
      ++fails;                                                                 \
    }                                                                          \
  } while (0)

// Three phases separated by grid syncs; each phase reads what other blocks wrote in the previous.
__global__ void phases(int* a, int* b, long long* total, int n) {
  cg::grid_group g = cg::this_grid();
  const unsigned long long rank = g.thread_rank(), size = g.size();
  for (unsigned long long i = rank; i < (unsigned long long)n; i += size) a[i] = int(i) * 3 + 1;
  g.sync();
  for (unsigned long long i = rank; i < (unsigned long long)n; i += size) b[i] = a[(i + 7) % n] + a[n - 1 - i];
  g.sync();
  if (rank == 0) {
    long long s = 0;
    for (int i = 0; i < n; ++i) s += b[i];
    *total = s;
  }
}

__global__ void validity(int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = cg::this_grid().is_valid() ? 1 : 0;
}

__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}

int main() {
  const int n = 5000;
  std::vector<long long> ref_b(n);
  long long ref_total = 0;
  for (int i = 0; i < n; ++i) {
    ref_b[i] = ((i + 7) % n) * 3 + 1 + (n - 1 - i) * 3 + 1;
    ref_total += ref_b[i];
  }
  int *a, *b, *flag;
  long long* total;
  CK(cudaMalloc(&a, n * sizeof(int)));
  CK(cudaMalloc(&b, n * sizeof(int)));
  CK(cudaMalloc(&total, sizeof(long long)));
  CK(cudaMalloc(&flag, sizeof(int)));

  // cudaLaunchCooperativeKernel on a 2D grid.
  {
    int nn = n;
    void* args[] = {&a, &b, &total, &nn};
    CK(cudaLaunchCooperativeKernel((void*)phases, dim3(3, 2), dim3(96), args, 0, 0));
    std::vector<int> hb(n);
    long long ht = 0;
    CK(cudaMemcpy(hb.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&ht, total, sizeof ht, cudaMemcpyDeviceToHost));
    bool ok = ht == ref_total;
    for (int i = 0; i < n; ++i) ok &= hb[i] == ref_b[i];
    report("grid.sync() in cudaLaunchCooperativeKernel", ok);
  }
  // cudaLaunchKernelEx with the cooperative attribute, in a created stream.
  {
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemsetAsync(b, 0, n * sizeof(int), s));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(5);
    cfg.blockDim = dim3(64);
    cfg.stream = s;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, phases, a, b, total, n));
    CK(cudaStreamSynchronize(s));
    long long ht = 0;
    CK(cudaMemcpy(&ht, total, sizeof ht, cudaMemcpyDeviceToHost));
    report("grid.sync() in cudaLaunchKernelEx(cudaLaunchAttributeCooperative)", ht == ref_total);
    CK(cudaStreamDestroy(s));
  }
  // this_grid().is_valid(): only in a cooperative launch.
  {
    int v = -1;
    validity<<<2, 32>>>(flag);
    CK(cudaMemcpy(&v, flag, sizeof v, cudaMemcpyDeviceToHost));
    bool ok = v == 0;
    void* args[] = {&flag};
    CK(cudaLaunchCooperativeKernel((void*)validity, dim3(2), dim3(32), args, 0, 0));
    CK(cudaMemcpy(&v, flag, sizeof v, cudaMemcpyDeviceToHost));
    report("grid.is_valid() only in cooperative launches", ok && v == 1);
  }
  // A cooperative grid that cannot be resident at once.
  {
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, 1024, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int nn = n;
    void* args[] = {&a, &b, &total, &nn};
    cudaError_t e = cudaLaunchCooperativeKernel((void*)phases, dim3(per_sm * sms + 1), dim3(1024), args, 0, 0);
    report("oversized cooperative grid -> cudaErrorCooperativeLaunchTooLarge",
           per_sm > 0 && e == cudaErrorCooperativeLaunchTooLarge);
    report("not a sticky error", cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge &&
                                     cudaDeviceSynchronize() == cudaSuccess);
  }
  // 2D async memset and a peer copy on one device.
  {
    size_t pitch = 0;
    unsigned char* d;
    const int w = 45, h = 7;
    CK(cudaMallocPitch(&d, &pitch, w, h));
    CK(cudaMemset2DAsync(d, pitch, 0x5a, w, h, 0));
    CK(cudaMemset2DAsync(d + 10, pitch, 0x11, 5, h - 2, 0));
    std::vector<unsigned char> o(w * h);
    CK(cudaMemcpy2D(o.data(), w, d, pitch, w, h, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) ok &= o[y * w + x] == (x >= 10 && x < 15 && y < h - 2 ? 0x11 : 0x5a);
    report("cudaMemset2DAsync", ok);
    fill<<<(n + 127) / 128, 128>>>(a, n, 42);
    CK(cudaMemcpyPeerAsync(b, 0, a, 0, n * sizeof(int), 0));
    std::vector<int> hb(n);
    CK(cudaMemcpy(hb.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
    ok = true;
    for (int i = 0; i < n; ++i) ok &= hb[i] == 42 + i;
    report("cudaMemcpyPeerAsync", ok);
    CK(cudaFree(d));
  }
  // Profiler markers, capture queries, stream ids, kernel names.
  {
    report("cudaProfilerStart/Stop", cudaProfilerStart() == cudaSuccess && cudaProfilerStop() == cudaSuccess);
    cudaStream_t s1, s2;
    CK(cudaStreamCreate(&s1));
    CK(cudaStreamCreate(&s2));
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
    CK(cudaStreamIsCapturing(s1, &st));
    cudaStreamCaptureStatus st2 = cudaStreamCaptureStatusActive;
    unsigned long long cid = 1;
    CK(cudaStreamGetCaptureInfo(s1, &st2, &cid));
    report("cudaStreamIsCapturing/GetCaptureInfo: not capturing",
           st == cudaStreamCaptureStatusNone && st2 == cudaStreamCaptureStatusNone);
    unsigned long long id1 = 0, id2 = 0;
    CK(cudaStreamGetId(s1, &id1));
    CK(cudaStreamGetId(s2, &id2));
    report("cudaStreamGetId: distinct ids", id1 != id2);
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
    const char* name = nullptr;
    CK(cudaFuncGetName(&name, validity));
    report("cudaFuncGetName", name && std::strcmp(name, "_Z8validityPi") == 0);
  }
  // The default memory pool.
  {
    cudaMemPool_t pool;
    CK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long thr = ~0ull, got = 0;  // cuuint64_t
    CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
    CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
    int* p = nullptr;
    CK(cudaMallocFromPoolAsync(&p, 1000 * sizeof(int), pool, 0));
    fill<<<8, 128>>>(p, 1000, 7);
    std::vector<int> hp(1000);
    CK(cudaMemcpy(hp.data(), p, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
    bool ok = got == thr;
    for (int i = 0; i < 1000; ++i) ok &= hp[i] == 7 + i;
    CK(cudaFreeAsync(p, 0));
    report("default memory pool attributes + cudaMallocFromPoolAsync", ok);
  }
  // Dynamic shared memory left for 2 and 3 blocks of 256 threads per SM (A100: 164 KB per SM,
  // 1 KB reserved per block, 128-byte allocation units): 82944 and 54912 bytes, once the kernel
  // may use more than the default 48 KB; 49152 for both before.
  {
    size_t two = 0, three = 0, dflt = 0;
    CK(cudaOccupancyAvailableDynamicSMemPerBlock(&dflt, fill, 2, 256));
    CK(cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    CK(cudaOccupancyAvailableDynamicSMemPerBlock(&two, fill, 2, 256));
    CK(cudaOccupancyAvailableDynamicSMemPerBlock(&three, fill, 3, 256));
    int b2 = 0, b2over = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b2, fill, 256, two));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b2over, fill, 256, two + 128));
    report("cudaOccupancyAvailableDynamicSMemPerBlock", dflt == 49152 && two == 82944 && three == 54912 && b2 >= 2 && b2over < 2);
  }
  // Zero-copy: cudaHostAllocMapped memory written by a kernel through cudaHostGetDevicePointer.
  {
    int* h = nullptr;
    CK(cudaHostAlloc(&h, 3000 * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < 3000; ++i) h[i] = -i;
    int* d = nullptr;
    CK(cudaHostGetDevicePointer(&d, h, 0));
    fill<<<(3000 + 127) / 128, 128>>>(d, 3000, 5);
    CK(cudaDeviceSynchronize());
    bool ok = true;
    for (int i = 0; i < 3000; ++i) ok &= h[i] == 5 + i;
    unsigned flags = 0;
    CK(cudaHostGetFlags(&flags, h));
    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, h));
    report("cudaHostAllocMapped zero-copy memory", ok && flags == cudaHostAllocMapped && pa.type == cudaMemoryTypeHost &&
                                                       pa.devicePointer == h);
    CK(cudaFreeHost(h));
  }
  std::printf("coop_api: %s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
