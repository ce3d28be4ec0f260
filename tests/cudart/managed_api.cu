// Managed-memory hints and queries (cudaMemAdvise, cudaMemPrefetchAsync, cudaMemRangeGetAttribute(s),
// the CUDA 13 batch prefetch/discard), batched copies (cudaMemcpyBatchAsync, cudaMemcpy3DBatchAsync)
// and a few device queries, with the error codes a program sees for bad arguments. Every line is
// either a value the CUDA documentation defines or an error code; the copies are checked against
// CPU-computed data. The expected output is what our H100 printed (validation/driver/h100_managed_api.out).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

static int fails = 0;
#define CHECK(cond, what)                                   \
  do {                                                      \
    bool ok_ = (cond);                                      \
    if (!ok_) ++fails;                                      \
    std::printf("%s: %s\n", what, ok_ ? "ok" : "WRONG");    \
  } while (0)
#define CODE(call, what) std::printf("%s: %d\n", what, int(call))

static cudaMemLocation dev0() { cudaMemLocation l{}; l.type = cudaMemLocationTypeDevice; l.id = 0; return l; }
static cudaMemLocation host() { cudaMemLocation l{}; l.type = cudaMemLocationTypeHost; l.id = 0; return l; }

static int q_int(cudaMemRangeAttribute a, const void* p, size_t n) {
  int v = 12345;
  cudaError_t e = cudaMemRangeGetAttribute(&v, 4, a, p, n);
  if (e != cudaSuccess) return -1000 - int(e);
  return v;
}

__global__ void sum_kernel(const int* a, int n, unsigned long long* out) {
  unsigned long long s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += a[i];
  atomicAdd(out, s);
}

int main() {
  const size_t MB = 1 << 20, KB = 1024;
  char* m = nullptr;
  char* d = nullptr;
  cudaMallocManaged(&m, MB);
  cudaMalloc(&d, MB);
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);

  // ---- read mostly
  std::printf("readmostly initial: %d\n", q_int(cudaMemRangeAttributeReadMostly, m, MB));
  CODE(cudaMemAdvise(m, 64 * KB, cudaMemAdviseSetReadMostly, dev0()), "advise readmostly");
  std::printf("readmostly [0,64K): %d\n", q_int(cudaMemRangeAttributeReadMostly, m, 64 * KB));
  std::printf("readmostly [0,128K): %d\n", q_int(cudaMemRangeAttributeReadMostly, m, 128 * KB));
  std::printf("readmostly [100,300): %d\n", q_int(cudaMemRangeAttributeReadMostly, m + 100, 200));
  CODE(cudaMemAdvise(m + 200 * KB + 100, 10, cudaMemAdviseSetReadMostly, dev0()), "advise readmostly 10 bytes");
  std::printf("readmostly page of the 10 bytes: %d\n", q_int(cudaMemRangeAttributeReadMostly, m + 200 * KB, 4 * KB));
  std::printf("readmostly next page: %d\n", q_int(cudaMemRangeAttributeReadMostly, m + 204 * KB, 4 * KB));
  std::printf("readmostly 64K around: %d\n", q_int(cudaMemRangeAttributeReadMostly, m + 192 * KB, 64 * KB));
  CODE(cudaMemAdvise(m, 32 * KB, cudaMemAdviseUnsetReadMostly, dev0()), "unset readmostly [0,32K)");
  std::printf("readmostly [0,64K): %d\n", q_int(cudaMemRangeAttributeReadMostly, m, 64 * KB));
  std::printf("readmostly [32K,64K): %d\n", q_int(cudaMemRangeAttributeReadMostly, m + 32 * KB, 32 * KB));

  // ---- preferred location
  std::printf("preferred initial: %d\n", q_int(cudaMemRangeAttributePreferredLocation, m, MB));
  CODE(cudaMemAdvise(m, 256 * KB, cudaMemAdviseSetPreferredLocation, dev0()), "advise preferred device");
  CODE(cudaMemAdvise(m + 256 * KB, 256 * KB, cudaMemAdviseSetPreferredLocation, host()), "advise preferred host");
  std::printf("preferred [0,256K): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m, 256 * KB));
  std::printf("preferred [256K,512K): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m + 256 * KB, 256 * KB));
  std::printf("preferred [0,512K): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m, 512 * KB));
  std::printf("preferred [512K,1M): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m + 512 * KB, 512 * KB));
  std::printf("preferred type/id [0,256K): %d %d\n", q_int(cudaMemRangeAttributePreferredLocationType, m, 256 * KB),
              q_int(cudaMemRangeAttributePreferredLocationId, m, 256 * KB));
  std::printf("preferred type [256K,512K): %d\n", q_int(cudaMemRangeAttributePreferredLocationType, m + 256 * KB, 256 * KB));
  std::printf("preferred type [0,512K): %d\n", q_int(cudaMemRangeAttributePreferredLocationType, m, 512 * KB));
  CODE(cudaMemAdvise(m, 128 * KB, cudaMemAdviseUnsetPreferredLocation, dev0()), "unset preferred [0,128K)");
  std::printf("preferred [128K,256K): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m + 128 * KB, 128 * KB));
  std::printf("preferred [0,128K): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m, 128 * KB));

  // ---- accessed by
  {
    int v[3] = {7, 7, 7};
    CODE(cudaMemRangeGetAttribute(v, sizeof v, cudaMemRangeAttributeAccessedBy, m, MB), "accessedby initial");
    std::printf("accessedby initial: %d %d %d\n", v[0], v[1], v[2]);
    CODE(cudaMemAdvise(m, MB, cudaMemAdviseSetAccessedBy, dev0()), "advise accessedby device");
    CODE(cudaMemRangeGetAttribute(v, sizeof v, cudaMemRangeAttributeAccessedBy, m, MB), "accessedby");
    std::printf("accessedby: %d %d %d\n", v[0], v[1], v[2]);
    CODE(cudaMemAdvise(m, MB, cudaMemAdviseSetAccessedBy, host()), "advise accessedby host");
    CODE(cudaMemRangeGetAttribute(v, sizeof v, cudaMemRangeAttributeAccessedBy, m, MB), "accessedby");
    std::printf("accessedby with host: %d %d %d\n", v[0], v[1], v[2]);
    CODE(cudaMemAdvise(m, 4 * KB, cudaMemAdviseUnsetAccessedBy, dev0()), "unset accessedby device [0,4K)");
    CODE(cudaMemRangeGetAttribute(v, sizeof v, cudaMemRangeAttributeAccessedBy, m, MB), "accessedby");
    std::printf("accessedby whole after unset: %d %d %d\n", v[0], v[1], v[2]);
    CODE(cudaMemRangeGetAttribute(v, sizeof v, cudaMemRangeAttributeAccessedBy, m + 4 * KB, 4 * KB), "accessedby");
    std::printf("accessedby [4K,8K): %d %d %d\n", v[0], v[1], v[2]);
    CODE(cudaMemRangeGetAttribute(v, 6, cudaMemRangeAttributeAccessedBy, m, MB), "accessedby size 6");
    CODE(cudaMemRangeGetAttribute(v, 0, cudaMemRangeAttributeAccessedBy, m, MB), "accessedby size 0");
  }

  // ---- prefetch
  std::printf("lastprefetch initial: %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocation, m, MB));
  CODE(cudaMemPrefetchAsync(m, MB, dev0(), 0, st), "prefetch to device");
  CODE(cudaMemPrefetchAsync(m, 4 * KB, host(), 0, st), "prefetch [0,4K) to host");
  cudaStreamSynchronize(st);
  std::printf("lastprefetch [4K,1M): %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocation, m + 4 * KB, MB - 4 * KB));
  std::printf("lastprefetch [0,4K): %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocation, m, 4 * KB));
  std::printf("lastprefetch [0,8K): %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocation, m, 8 * KB));
  std::printf("lastprefetch type/id [4K,8K): %d %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocationType, m + 4 * KB, 4 * KB),
              q_int(cudaMemRangeAttributeLastPrefetchLocationId, m + 4 * KB, 4 * KB));
  std::printf("lastprefetch type [0,8K): %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocationType, m, 8 * KB));
  CODE(cudaMemPrefetchAsync(m + 8 * KB, 100, dev0(), 0, 0), "prefetch 100 bytes on the legacy stream");
  CODE(cudaMemPrefetchAsync(m, MB, dev0(), 1, st), "prefetch flags 1");
  CODE(cudaMemPrefetchAsync(d, MB, dev0(), 0, st), "prefetch device memory");
  {
    cudaMemLocation bad = dev0();
    bad.id = 3;
    CODE(cudaMemPrefetchAsync(m, MB, bad, 0, st), "prefetch to device 3");
    bad.type = cudaMemLocationTypeInvalid;
    CODE(cudaMemPrefetchAsync(m, MB, bad, 0, st), "prefetch to invalid location");
  }

  // ---- several attributes at once
  {
    int rm = 9, pl = 9, lp = 9;
    void* data[3] = {&rm, &pl, &lp};
    size_t sizes[3] = {4, 4, 4};
    cudaMemRangeAttribute at[3] = {cudaMemRangeAttributeReadMostly, cudaMemRangeAttributePreferredLocation,
                                   cudaMemRangeAttributeLastPrefetchLocation};
    CODE(cudaMemRangeGetAttributes(data, sizes, at, 3, m + 32 * KB, 32 * KB), "get attributes");
    std::printf("attributes [32K,64K): %d %d %d\n", rm, pl, lp);
    CODE(cudaMemRangeGetAttributes(data, sizes, at, 0, m, 4 * KB), "get attributes count 0");
  }

  // ---- bad arguments
  {
    int v = 0;
    CODE(cudaMemAdvise(d, 4 * KB, cudaMemAdviseSetReadMostly, dev0()), "advise device memory");
    CODE(cudaMemAdvise(m, 0, cudaMemAdviseSetReadMostly, dev0()), "advise 0 bytes");
    CODE(cudaMemAdvise(nullptr, 4 * KB, cudaMemAdviseSetReadMostly, dev0()), "advise null");
    CODE(cudaMemAdvise(m, 4 * KB, cudaMemoryAdvise(99), dev0()), "advise 99");
    cudaMemLocation bad = dev0();
    bad.id = 3;
    CODE(cudaMemAdvise(m, 4 * KB, cudaMemAdviseSetPreferredLocation, bad), "advise preferred device 3");
    CODE(cudaMemAdvise(m, 2 * MB, cudaMemAdviseSetReadMostly, dev0()), "advise past the end");
    CODE(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly, d, 4 * KB), "query device memory");
    CODE(cudaMemRangeGetAttribute(&v, 8, cudaMemRangeAttributeReadMostly, m, 4 * KB), "query size 8");
    CODE(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttribute(0), m, 4 * KB), "query attribute 0");
    CODE(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttribute(9), m, 4 * KB), "query attribute 9");
    CODE(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly, m, 0), "query 0 bytes");
    CODE(cudaMemRangeGetAttribute(nullptr, 4, cudaMemRangeAttributeReadMostly, m, 4 * KB), "query null data");
    CODE(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly, m, 2 * MB), "query past the end");
    CODE(cudaGetLastError(), "last error after the bad calls");
  }

  // ---- the hints change nothing functionally
  {
    int* a = reinterpret_cast<int*>(m);
    const int n = int(MB / sizeof(int));
    unsigned long long want = 0;
    for (int i = 0; i < n; ++i) a[i] = (i * 7919) % 1000 - 300, want += (unsigned long long)(long long)a[i];
    unsigned long long* out;
    cudaMallocManaged(&out, sizeof *out);
    *out = 0;
    sum_kernel<<<64, 256>>>(a, n, out);
    cudaDeviceSynchronize();
    CHECK(*out == want, "kernel sum over advised managed memory");
    cudaFree(out);
  }

  // ---- batch prefetch / discard (CUDA 13)
  {
    void* ptrs[2] = {m, m + 512 * KB};
    size_t sizes[2] = {64 * KB, 64 * KB};
    cudaMemLocation locs[2] = {dev0(), host()};
    size_t idx[2] = {0, 1};
    CODE(cudaMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, st), "prefetch batch");
    cudaStreamSynchronize(st);
    std::printf("lastprefetch batch: %d %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocation, m, 64 * KB),
                q_int(cudaMemRangeAttributeLastPrefetchLocation, m + 512 * KB, 64 * KB));
    CODE(cudaMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, 0), "prefetch batch legacy stream");
    CODE(cudaMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 1, st), "prefetch batch flags 1");
    size_t idx_bad[2] = {1, 1};
    CODE(cudaMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idx_bad, 2, 0, st), "prefetch batch first index 1");
    CODE(cudaMemDiscardBatchAsync(ptrs, sizes, 2, 0, st), "discard batch");
    CODE(cudaMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, st), "discard and prefetch batch");
    cudaStreamSynchronize(st);
    cudaGetLastError();
  }

  // ---- cudaMemcpyBatchAsync
  {
    const size_t n = 4096;
    std::vector<int> h(n), back(n, 0);
    for (size_t i = 0; i < n; ++i) h[i] = int(i * 2654435761u >> 7);
    int *d1, *d2;
    cudaMalloc(&d1, n * 4);
    cudaMalloc(&d2, n * 4);
    void* dsts[3] = {d1, d2, back.data()};
    const void* srcs[3] = {h.data(), d1, d2};
    size_t sizes[3] = {n * 4, n * 4, n * 4};
    cudaMemcpyAttributes at{};
    at.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t idx = 0;
    // The copies of one batch run in order: d1 <- h, d2 <- d1, back <- d2.
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &at, &idx, 1, st), "memcpy batch");
    cudaStreamSynchronize(st);
    CHECK(back == h, "memcpy batch data");
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &at, &idx, 1, 0), "memcpy batch legacy stream");
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 0, &at, &idx, 1, st), "memcpy batch count 0");
    at.srcAccessOrder = cudaMemcpySrcAccessOrderInvalid;
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &at, &idx, 1, st), "memcpy batch order invalid");
    at.srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    size_t idx1 = 1;
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &at, &idx1, 1, st), "memcpy batch first index 1");
    CODE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &at, &idx, 4, st), "memcpy batch 4 attrs for 3 copies");
    // Two attribute sets, the second from copy 1 on, and a host source read during the call.
    std::vector<int> h2(n);
    for (size_t i = 0; i < n; ++i) h2[i] = int(i) - 77;
    const void* srcs2[3] = {h2.data(), d1, d2};
    cudaMemcpyAttributes at2[2] = {};
    at2[0].srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    at2[1].srcAccessOrder = cudaMemcpySrcAccessOrderAny;
    size_t idx2[2] = {0, 1};
    std::fill(back.begin(), back.end(), 0);
    CODE(cudaMemcpyBatchAsync(dsts, srcs2, sizes, 3, at2, idx2, 2, st), "memcpy batch two attribute sets");
    cudaStreamSynchronize(st);
    CHECK(back == h2, "memcpy batch two attribute sets data");
    cudaGetLastError();

    // ---- cudaMemcpy3DBatchAsync: a 5x3x2 box of ints between pitched buffers, and into an array
    const int W = 16, H = 8, D = 4;
    std::vector<int> src3(W * H * D), dst3(W * H * D, -1), want(W * H * D, -1);
    for (int i = 0; i < W * H * D; ++i) src3[i] = i * 3 + 1;
    int* dv;
    cudaMalloc(&dv, W * H * D * 4);
    cudaMemset(dv, 0xff, W * H * D * 4);
    cudaMemcpy3DBatchOp op{};
    op.src.type = cudaMemcpyOperandTypePointer;
    op.src.op.ptr.ptr = src3.data() + (1 * H + 2) * W + 3;  // from (3,2,1)
    op.src.op.ptr.rowLength = W * 4;  // elements of 1 byte between two pointers
    op.src.op.ptr.layerHeight = H;
    op.dst.type = cudaMemcpyOperandTypePointer;
    op.dst.op.ptr.ptr = dv + (0 * H + 1) * W + 4;  // to (4,1,0)
    op.dst.op.ptr.rowLength = W * 4;
    op.dst.op.ptr.layerHeight = H;
    op.extent = make_cudaExtent(5 * 4, 3, 2);
    op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CODE(cudaMemcpy3DBatchAsync(1, &op, 0, st), "memcpy3d batch");
    cudaStreamSynchronize(st);
    cudaMemcpy(dst3.data(), dv, W * H * D * 4, cudaMemcpyDeviceToHost);
    for (int z = 0; z < 2; ++z)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) want[((0 + z) * H + 1 + y) * W + 4 + x] = src3[((1 + z) * H + 2 + y) * W + 3 + x];
    CHECK(dst3 == want, "memcpy3d batch pointer box");
    // Into a 16x8x4 int array at offset (1,1,1), then back out whole.
    cudaArray_t arr;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<int>();
    cudaMalloc3DArray(&arr, &fd, make_cudaExtent(W, H, D));
    std::vector<int> zero(W * H * D, 0), arr_back(W * H * D, -1);
    cudaMemcpy3DParms p0{};
    p0.srcPtr = make_cudaPitchedPtr(zero.data(), W * 4, W, H);
    p0.dstArray = arr;
    p0.extent = make_cudaExtent(W, H, D);
    p0.kind = cudaMemcpyHostToDevice;
    cudaMemcpy3D(&p0);
    cudaMemcpy3DBatchOp op2{};
    op2.src.type = cudaMemcpyOperandTypePointer;
    op2.src.op.ptr.ptr = src3.data();
    op2.src.op.ptr.rowLength = W;
    op2.src.op.ptr.layerHeight = H;
    op2.dst.type = cudaMemcpyOperandTypeArray;
    op2.dst.op.array.array = arr;
    op2.dst.op.array.offset = {1, 1, 1};  // elements
    op2.extent = make_cudaExtent(4, 2, 2);  // elements when an operand is an array
    op2.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CODE(cudaMemcpy3DBatchAsync(1, &op2, 0, st), "memcpy3d batch into an array");
    cudaStreamSynchronize(st);
    cudaMemcpy3DParms p1{};
    p1.srcArray = arr;
    p1.dstPtr = make_cudaPitchedPtr(arr_back.data(), W * 4, W, H);
    p1.extent = make_cudaExtent(W, H, D);
    p1.kind = cudaMemcpyDeviceToHost;
    cudaMemcpy3D(&p1);
    std::vector<int> want2(W * H * D, 0);
    for (int z = 0; z < 2; ++z)
      for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x) want2[((1 + z) * H + 1 + y) * W + 1 + x] = src3[(z * H + y) * W + x];
    CHECK(arr_back == want2, "memcpy3d batch array box");
    cudaMemcpy3DBatchOp short_op = op;
    short_op.src.op.ptr.rowLength = W;  // 16 < the 20-byte width
    CODE(cudaMemcpy3DBatchAsync(1, &short_op, 0, st), "memcpy3d batch row shorter than the width");
    cudaMemcpy3DBatchOp zero_op = op;
    zero_op.extent = make_cudaExtent(0, 3, 2);
    CODE(cudaMemcpy3DBatchAsync(1, &zero_op, 0, st), "memcpy3d batch zero width");
    CODE(cudaMemcpy3DBatchAsync(1, &op, 0, 0), "memcpy3d batch legacy stream");
    CODE(cudaMemcpy3DBatchAsync(1, &op, 1, st), "memcpy3d batch flags 1");
    CODE(cudaMemcpy3DBatchAsync(0, &op, 0, st), "memcpy3d batch 0 ops");
    cudaStreamSynchronize(st);
    cudaGetLastError();
    cudaFreeArray(arr);
    cudaFree(dv);
    cudaFree(d1);
    cudaFree(d2);
  }

  // ---- device queries
  {
    size_t w = 0;
    cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>(), c1 = cudaCreateChannelDesc<unsigned char>();
    CODE(cudaDeviceGetTexture1DLinearMaxWidth(&w, &f4, 0), "tex1d linear max width float4");
    std::printf("tex1d linear max width float4: %zu\n", w);
    CODE(cudaDeviceGetTexture1DLinearMaxWidth(&w, &c1, 0), "tex1d linear max width uchar");
    std::printf("tex1d linear max width uchar: %zu\n", w);
    CODE(cudaDeviceGetTexture1DLinearMaxWidth(&w, &c1, 4), "tex1d linear max width device 4");
    CODE(cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                            cudaFlushGPUDirectRDMAWritesToOwner),
         "flush gpudirect rdma writes");
    CODE(cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                            cudaFlushGPUDirectRDMAWritesToAllDevices),
         "flush gpudirect rdma writes to all");
    cudaGetLastError();
    // Peer copies on one device are plain copies.
    int *p, *q;
    cudaMalloc(&p, 64 * 64 * 4);
    cudaMalloc(&q, 64 * 64 * 4);
    std::vector<int> hv(64 * 64), hb(64 * 64, 0);
    for (int i = 0; i < 64 * 64; ++i) hv[i] = i ^ 0x5a5a;
    cudaMemcpy(p, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy3DPeerParms pp{};
    pp.srcPtr = make_cudaPitchedPtr(p, 64 * 4, 64, 64);
    pp.dstPtr = make_cudaPitchedPtr(q, 64 * 4, 64, 64);
    pp.extent = make_cudaExtent(64 * 4, 64, 1);
    pp.srcDevice = pp.dstDevice = 0;
    CODE(cudaMemcpy3DPeer(&pp), "memcpy3d peer");
    cudaMemcpy(hb.data(), q, hb.size() * 4, cudaMemcpyDeviceToHost);
    CHECK(hb == hv, "memcpy3d peer data");
    pp.dstDevice = 5;
    CODE(cudaMemcpy3DPeer(&pp), "memcpy3d peer device 5");
    pp.dstDevice = 0;
    cudaMemset(q, 0, 64 * 64 * 4);
    CODE(cudaMemcpy3DPeerAsync(&pp, st), "memcpy3d peer async");
    cudaStreamSynchronize(st);
    cudaMemcpy(hb.data(), q, hb.size() * 4, cudaMemcpyDeviceToHost);
    CHECK(hb == hv, "memcpy3d peer async data");
    cudaGetLastError();
    cudaFree(p);
    cudaFree(q);
  }

  // ---- the driver's older forms, as a CUDA 12 runtime or program finds them by version
  {
    typedef CUresult (*Advise1)(CUdeviceptr, size_t, CUmem_advise, CUdevice);
    typedef CUresult (*Prefetch1)(CUdeviceptr, size_t, CUdevice, CUstream);
    typedef CUresult (*Batch1)(CUdeviceptr*, CUdeviceptr*, size_t*, size_t, CUmemcpyAttributes*, size_t*, size_t,
                               size_t*, CUstream);
    void* fa = nullptr;
    void* fp = nullptr;
    void* fb = nullptr;
    CUdriverProcAddressQueryResult q;
    CODE(cuGetProcAddress("cuMemAdvise", &fa, 11000, CU_GET_PROC_ADDRESS_DEFAULT, &q), "proc cuMemAdvise 11.0");
    CODE(cuGetProcAddress("cuMemPrefetchAsync", &fp, 11000, CU_GET_PROC_ADDRESS_DEFAULT, &q), "proc cuMemPrefetchAsync 11.0");
    CODE(cuGetProcAddress("cuMemcpyBatchAsync", &fb, 12080, CU_GET_PROC_ADDRESS_DEFAULT, &q), "proc cuMemcpyBatchAsync 12.8");
    CUdeviceptr dm = CUdeviceptr(m);
    CODE(reinterpret_cast<Advise1>(fa)(dm + 768 * KB, 64 * KB, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU),
         "cuMemAdvise 11.0 preferred cpu");
    std::printf("preferred [768K,832K): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m + 768 * KB, 64 * KB));
    CODE(reinterpret_cast<Advise1>(fa)(dm + 768 * KB, 32 * KB, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 0),
         "cuMemAdvise 11.0 preferred device 0");
    std::printf("preferred [768K,800K): %d\n", q_int(cudaMemRangeAttributePreferredLocation, m + 768 * KB, 32 * KB));
    CODE(reinterpret_cast<Advise1>(fa)(dm, 4 * KB, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 7), "cuMemAdvise 11.0 device 7");
    CODE(reinterpret_cast<Prefetch1>(fp)(dm + 768 * KB, 64 * KB, CU_DEVICE_CPU, st), "cuMemPrefetchAsync 11.0 cpu");
    cudaStreamSynchronize(st);
    std::printf("lastprefetch [768K,832K): %d\n", q_int(cudaMemRangeAttributeLastPrefetchLocation, m + 768 * KB, 64 * KB));
    CODE(reinterpret_cast<Prefetch1>(fp)(dm, 4 * KB, 7, st), "cuMemPrefetchAsync 11.0 device 7");
    std::vector<int> src(256), dst(256, 0);
    for (int i = 0; i < 256; ++i) src[i] = i * i - 1000;
    CUdeviceptr dsts[2] = {CUdeviceptr(d), CUdeviceptr(dst.data())};
    CUdeviceptr srcs[2] = {CUdeviceptr(src.data()), CUdeviceptr(d)};
    size_t sizes[2] = {1024, 1024};
    CUmemcpyAttributes at{};
    at.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    size_t idx = 0, fail = 77;
    CODE(reinterpret_cast<Batch1>(fb)(dsts, srcs, sizes, 2, &at, &idx, 1, &fail, st), "cuMemcpyBatchAsync 12.8");
    cuStreamSynchronize(st);
    CHECK(dst == src, "cuMemcpyBatchAsync 12.8 data");
    cudaGetLastError();
  }

  cudaStreamDestroy(st);
  cudaFree(m);
  cudaFree(d);
  std::printf("%s\n", fails ? "FAILED" : "PASSED");
  return fails ? 1 : 0;
}
