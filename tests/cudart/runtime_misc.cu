// Runtime API calls programs commonly make, each checked against what the CUDA documentation
// promises or a CPU reference: stream-ordered allocation and memory pools, cudaLaunchKernelEx
// with attributes, occupancy queries, function attributes and >48 KB dynamic shared memory, 2D/3D
// copies and memsets, host registration, host callbacks, events, device attributes, pointer
// attributes, cudaMemGetInfo, and device-side __nanosleep / clock64 / %globaltimer / __ldg /
// __stcs, and cudaStreamAttachMemAsync.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  if (!ok) ++failures;
}
#define OK(x) ((x) == cudaSuccess)

__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}
__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
__global__ void clustered(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x * 1000 + threadIdx.x;
}
extern __shared__ int dyn[];
__global__ void big_smem(int* out, int words) {
  for (int i = threadIdx.x; i < words; i += blockDim.x) dyn[i] = i * 3;
  __syncthreads();
  int s = 0;
  for (int i = threadIdx.x; i < words; i += blockDim.x) s += dyn[words - 1 - i];
  atomicAdd(out, s);
}
__global__ void __launch_bounds__(128, 4) bounded(float* p) { p[threadIdx.x] *= 2.0f; }
__global__ void timers(unsigned long long* t) {
  unsigned long long c0 = clock64();
  unsigned long long g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  __nanosleep(2000);
  unsigned long long c1 = clock64();
  unsigned long long g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  t[0] = c1 - c0;
  t[1] = g1 - g0;
  t[2] = c0;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  t[3] = sm;
}
__global__ void ldg_stcs(const float4* __restrict__ in, float4* out, const int* __restrict__ ii, int* io, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = __ldg(in + i);
  v.x += 1; v.w *= 2;
  __stcs(out + i, v);
  int a = __ldcs(ii + i) + __ldlu(ii + i) + __ldcv(ii + i) + __ldca(ii + i) + __ldcg(ii + i);
  __stwb(io + i, a);
  __stcg(io + i + n, a + 1);
  __stwt(io + i + 2 * n, a + 2);
}

static void CUDART_CB host_fn(void* p) { *static_cast<int*>(p) += 1; }
static void CUDART_CB stream_cb(cudaStream_t, cudaError_t status, void* p) {
  if (status == cudaSuccess) *static_cast<int*>(p) += 10;
}

int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  {  // stream-ordered allocation, default and explicit pools
    const int n = 10000;
    int* p = nullptr;
    bool ok = OK(cudaMallocAsync(&p, n * 4, s));
    fill<<<(n + 255) / 256, 256, 0, s>>>(p, n, 5);
    std::vector<int> h(n);
    ok &= OK(cudaMemcpyAsync(h.data(), p, n * 4, cudaMemcpyDeviceToHost, s));
    ok &= OK(cudaFreeAsync(p, s));
    ok &= OK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) ok &= h[i] == 5 + i;
    report("cudaMallocAsync / cudaFreeAsync", ok);
    cudaMemPool_t def = nullptr, pool = nullptr;
    ok = OK(cudaDeviceGetDefaultMemPool(&def, 0)) && def != nullptr;
    uint64_t thr = UINT64_MAX;
    ok &= OK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &thr));
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    ok &= OK(cudaMemPoolCreate(&pool, &props));
    int* q = nullptr;
    ok &= OK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&q), n * 4, pool, s));
    fill<<<(n + 255) / 256, 256, 0, s>>>(q, n, 9);
    add_one<<<(n + 255) / 256, 256, 0, s>>>(q, n);
    ok &= OK(cudaMemcpyAsync(h.data(), q, n * 4, cudaMemcpyDeviceToHost, s));
    ok &= OK(cudaFreeAsync(q, s));
    ok &= OK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) ok &= h[i] == 10 + i;
    ok &= OK(cudaMemPoolTrimTo(pool, 0));
    ok &= OK(cudaMemPoolDestroy(pool));
    cudaMemPool_t cur = nullptr;
    ok &= OK(cudaDeviceGetMemPool(&cur, 0)) && cur == def;
    report("memory pools (default, created, MallocFromPoolAsync)", ok);
  }
  {  // cudaLaunchKernelEx with attributes
    int* out;
    cudaMalloc(&out, 8 * 64 * 4);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(64);
    cfg.stream = s;
    cudaLaunchAttribute attrs[2];
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim.x = 2; attrs[0].val.clusterDim.y = 1; attrs[0].val.clusterDim.z = 1;
    attrs[1].id = cudaLaunchAttributePriority;
    attrs[1].val.priority = 0;
    cfg.attrs = attrs;
    cfg.numAttrs = 2;
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    if (major < 9) cfg.numAttrs = 0, cfg.attrs = attrs + 1, cfg.numAttrs = 1;  // clusters need sm_90
    bool ok = OK(cudaLaunchKernelEx(&cfg, clustered, out));
    std::vector<int> h(8 * 64);
    cudaMemcpyAsync(h.data(), out, h.size() * 4, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    for (int b = 0; b < 8; ++b)
      for (int t = 0; t < 64; ++t) ok &= h[b * 64 + t] == b * 1000 + t;
    report("cudaLaunchKernelEx with attributes", ok);
    cudaFree(out);
  }
  {  // occupancy, function attributes, >48 KB dynamic shared memory
    int blocks = 0, minGrid = 0, bs = 0;
    bool ok = OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded, 128, 0)) && blocks >= 4;
    ok &= OK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &bs, fill, 0, 0)) && bs > 0 && bs <= 1024 && bs % 32 == 0 && minGrid > 0;
    report("cudaOccupancyMaxActiveBlocksPerMultiprocessor / MaxPotentialBlockSize", ok);
    cudaFuncAttributes fa;
    ok = OK(cudaFuncGetAttributes(&fa, bounded)) && fa.maxThreadsPerBlock == 128 && fa.numRegs > 0 && fa.numRegs <= 128 &&
         fa.binaryVersion >= 80;
    report("cudaFuncGetAttributes (launch bounds)", ok);
    int maxOptin = 0;
    cudaDeviceGetAttribute(&maxOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    const int bytes = 96 * 1024, words = bytes / 4;
    int* out;
    cudaMalloc(&out, 4);
    cudaMemset(out, 0, 4);
    big_smem<<<1, 256, bytes>>>(out, words);
    bool refused = cudaGetLastError() != cudaSuccess;  // > 48 KB without the opt-in
    ok = refused && OK(cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    big_smem<<<1, 256, bytes>>>(out, words);
    ok &= OK(cudaGetLastError());
    int r = 0;
    cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost);
    long long ref = 0;
    for (int i = 0; i < words; ++i) ref += 3LL * i;
    ok &= r == int(ref) && maxOptin >= bytes;
    cudaFuncGetAttributes(&fa, big_smem);
    ok &= fa.maxDynamicSharedSizeBytes == bytes;
    report("cudaFuncSetAttribute MaxDynamicSharedMemorySize (96 KB)", ok);
    cudaFree(out);
  }
  {  // 2D / 3D copies and memsets
    const int W = 37, H = 19;
    size_t pitch = 0;
    int* d;
    bool ok = OK(cudaMallocPitch(reinterpret_cast<void**>(&d), &pitch, W * 4, H)) && pitch >= W * 4;
    std::vector<int> h(W * H), back(W * H, -1);
    for (int i = 0; i < W * H; ++i) h[i] = i * 7;
    ok &= OK(cudaMemset2D(d, pitch, 0xff, W * 4, H));
    ok &= OK(cudaMemcpy2DAsync(d, pitch, h.data(), W * 4, (W - 2) * 4, H, cudaMemcpyHostToDevice, s));
    ok &= OK(cudaMemcpy2DAsync(back.data(), W * 4, d, pitch, W * 4, H, cudaMemcpyDeviceToHost, s));
    cudaStreamSynchronize(s);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) ok &= back[y * W + x] == (x < W - 2 ? h[y * W + x] : -1);
    report("cudaMemset2D / cudaMemcpy2DAsync", ok);
    cudaFree(d);
    cudaExtent ext = make_cudaExtent(10 * 4, 6, 5);
    cudaPitchedPtr pp;
    ok = OK(cudaMalloc3D(&pp, ext));
    std::vector<int> h3(10 * 6 * 5), b3(10 * 6 * 5, 0);
    for (size_t i = 0; i < h3.size(); ++i) h3[i] = int(i * 3 + 1);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(h3.data(), 10 * 4, 10, 6);
    p.dstPtr = pp;
    p.extent = ext;
    p.kind = cudaMemcpyHostToDevice;
    ok &= OK(cudaMemcpy3DAsync(&p, s));
    cudaMemcpy3DParms q = {};
    q.srcPtr = pp;
    q.srcPos = make_cudaPos(2 * 4, 1, 1);
    q.dstPtr = make_cudaPitchedPtr(b3.data(), 10 * 4, 10, 6);
    q.extent = make_cudaExtent(5 * 4, 3, 2);
    q.kind = cudaMemcpyDeviceToHost;
    ok &= OK(cudaMemcpy3D(&q));
    for (int z = 0; z < 2; ++z)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) ok &= b3[(z * 6 + y) * 10 + x] == h3[((z + 1) * 6 + y + 1) * 10 + x + 2];
    ok &= OK(cudaMemset3D(pp, 0, make_cudaExtent(10 * 4, 6, 5)));
    q.srcPos = make_cudaPos(0, 0, 0);
    ok &= OK(cudaMemcpy3D(&q));
    ok &= b3[0] == 0;
    report("cudaMalloc3D / cudaMemcpy3D(Async) with offsets / cudaMemset3D", ok);
    cudaFree(pp.ptr);
  }
  {  // host registration, host functions and callbacks, events
    const int n = 4096;
    std::vector<int> host(n, 0);
    bool ok = OK(cudaHostRegister(host.data(), n * 4, cudaHostRegisterDefault));
    int* dp = nullptr;
    ok &= OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dp), host.data(), 0));
    unsigned flags = 0;
    ok &= OK(cudaHostGetFlags(&flags, host.data()));
    fill<<<n / 256, 256, 0, s>>>(dp, n, 3);  // writes host memory through the mapped pointer
    int counter = 0;
    ok &= OK(cudaLaunchHostFunc(s, host_fn, &counter));
    ok &= OK(cudaStreamAddCallback(s, stream_cb, &counter, 0));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    ok &= OK(cudaEventRecord(e0, s));
    fill<<<n / 256, 256, 0, s>>>(dp, n, 4);
    ok &= OK(cudaEventRecord(e1, s));
    ok &= OK(cudaEventSynchronize(e1));
    float ms = -1;
    ok &= OK(cudaEventElapsedTime(&ms, e0, e1)) && ms >= 0.0f;
    ok &= cudaEventQuery(e1) == cudaSuccess && cudaStreamQuery(s) == cudaSuccess;
    ok &= counter == 11;
    for (int i = 0; i < n; ++i) ok &= host[i] == 4 + i;
    ok &= OK(cudaHostUnregister(host.data()));
    cudaEvent_t nt;
    cudaEventCreateWithFlags(&nt, cudaEventDisableTiming);
    cudaEventRecord(nt, s);
    cudaEventSynchronize(nt);
    ok &= cudaEventElapsedTime(&ms, e0, nt) == cudaErrorInvalidResourceHandle;
    report("cudaHostRegister + mapped pointer, cudaLaunchHostFunc, cudaStreamAddCallback, events", ok);
    cudaEventDestroy(e0); cudaEventDestroy(e1); cudaEventDestroy(nt);
  }
  {  // device attributes, pointer attributes, cudaMemGetInfo
    int v[8] = {};
    bool ok = OK(cudaDeviceGetAttribute(&v[0], cudaDevAttrMultiProcessorCount, 0)) && v[0] > 0;
    ok &= OK(cudaDeviceGetAttribute(&v[1], cudaDevAttrWarpSize, 0)) && v[1] == 32;
    ok &= OK(cudaDeviceGetAttribute(&v[2], cudaDevAttrMaxThreadsPerBlock, 0)) && v[2] == 1024;
    ok &= OK(cudaDeviceGetAttribute(&v[3], cudaDevAttrL2CacheSize, 0)) && v[3] > 0;
    ok &= OK(cudaDeviceGetAttribute(&v[4], cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0)) && v[4] >= 64 * 1024;
    ok &= OK(cudaDeviceGetAttribute(&v[5], cudaDevAttrConcurrentManagedAccess, 0));
    ok &= OK(cudaDeviceGetAttribute(&v[6], cudaDevAttrMemoryPoolsSupported, 0)) && v[6] == 1;
    ok &= OK(cudaDeviceGetAttribute(&v[7], cudaDevAttrCooperativeLaunch, 0)) && v[7] == 1;
    cudaDeviceProp prop;
    ok &= OK(cudaGetDeviceProperties(&prop, 0)) && prop.multiProcessorCount == v[0] && prop.l2CacheSize == v[3];
    int bad = 0;
    ok &= cudaDeviceGetAttribute(&bad, cudaDevAttrWarpSize, 7) == cudaErrorInvalidDevice;
    report("cudaDeviceGetAttribute / cudaGetDeviceProperties", ok);
    int* dptr;
    int* hptr;
    int* mptr;
    cudaMalloc(&dptr, 256);
    cudaMallocHost(&hptr, 256);
    cudaMallocManaged(&mptr, 256);
    int stackvar = 0;
    cudaPointerAttributes a;
    ok = OK(cudaPointerGetAttributes(&a, dptr + 3)) && a.type == cudaMemoryTypeDevice && a.devicePointer == dptr + 3;
    ok &= OK(cudaPointerGetAttributes(&a, hptr)) && a.type == cudaMemoryTypeHost && a.hostPointer == hptr;
    ok &= OK(cudaPointerGetAttributes(&a, mptr)) && a.type == cudaMemoryTypeManaged;
    ok &= OK(cudaPointerGetAttributes(&a, &stackvar)) && a.type == cudaMemoryTypeUnregistered;
    report("cudaPointerGetAttributes (device, host, managed, unregistered)", ok);
    ok = OK(cudaStreamAttachMemAsync(s, mptr, 0, cudaMemAttachSingle));
    fill<<<1, 64, 0, s>>>(mptr, 64, 1);
    ok &= OK(cudaStreamSynchronize(s)) && mptr[63] == 64;
    ok &= OK(cudaDeviceSynchronize());
    report("cudaStreamAttachMemAsync on managed memory", ok);
    size_t fr0 = 0, tot = 0, fr1 = 0;
    ok = OK(cudaMemGetInfo(&fr0, &tot)) && fr0 > 0 && fr0 <= tot;
    int* big;
    cudaMalloc(&big, 256 << 20);
    ok &= OK(cudaMemGetInfo(&fr1, &tot)) && fr1 + (256 << 20) <= fr0 + (2 << 20);
    cudaFree(big);
    report("cudaMemGetInfo tracks allocations", ok);
    cudaFree(dptr); cudaFreeHost(hptr); cudaFree(mptr);
  }
  {  // __nanosleep, clock64, %globaltimer, __ldg / __stcs and the cache-hint loads/stores
    unsigned long long* t;
    cudaMalloc(&t, 32);
    timers<<<1, 1>>>(t);
    unsigned long long h[4];
    cudaMemcpy(h, t, 32, cudaMemcpyDeviceToHost);
    report("clock64 advances across __nanosleep, %globaltimer in ns, %smid", h[0] > 0 && h[1] >= 1 && h[1] < 1000000000ull && h[3] < 1000);
    const int n = 1000;
    std::vector<float4> in(n);
    std::vector<int> ii(n);
    for (int i = 0; i < n; ++i) { in[i] = make_float4(i, i + 0.5f, -i, i * 0.25f); ii[i] = i * 3; }
    float4 *din, *dout;
    int *dii, *dio;
    cudaMalloc(&din, n * 16); cudaMalloc(&dout, n * 16); cudaMalloc(&dii, n * 4); cudaMalloc(&dio, 3 * n * 4);
    cudaMemcpy(din, in.data(), n * 16, cudaMemcpyHostToDevice);
    cudaMemcpy(dii, ii.data(), n * 4, cudaMemcpyHostToDevice);
    ldg_stcs<<<(n + 127) / 128, 128>>>(din, dout, dii, dio, n);
    std::vector<float4> out(n);
    std::vector<int> io(3 * n);
    cudaMemcpy(out.data(), dout, n * 16, cudaMemcpyDeviceToHost);
    cudaMemcpy(io.data(), dio, 3 * n * 4, cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      ok &= out[i].x == in[i].x + 1 && out[i].y == in[i].y && out[i].z == in[i].z && out[i].w == in[i].w * 2;
      ok &= io[i] == 15 * i && io[n + i] == 15 * i + 1 && io[2 * n + i] == 15 * i + 2;
    }
    report("__ldg / __stcs / __ldcs / __ldlu / __ldcv / __ldca / __ldcg / __stwb / __stcg / __stwt", ok);
  }
  cudaStreamDestroy(s);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("cuda error: %s\n", cudaGetErrorString(e)); ++failures; }
  std::printf("runtime_misc: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
