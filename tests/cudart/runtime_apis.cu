// Runtime API calls real programs make that the other tests do not: library management
// (cudaLibraryLoadData / GetKernel / EnumerateKernels / GetGlobal, launching a cudaKernel_t),
// kernel parameter queries (cudaFuncGetParamInfo, cudaGetFuncBySymbol), the array-copy forms
// (cudaMemcpyToArrayAsync, FromArrayAsync, ArrayToArray, 2DArrayToArray), texture and surface
// objects read back (cudaGetTextureObjectResourceDesc / TextureDesc, cudaGetSurfaceObjectResourceDesc),
// and the peer-access and PCI queries of a one-GPU machine (their error codes). Results against CPU
// references; lines that do not depend on the GPU.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  if (!ok) ++failures;
}
#define OK(x) ((x) == cudaSuccess)

struct Pair {
  int a;
  double b;
};
__global__ void params_kernel(char c, Pair p, float* out, short s) {
  if (threadIdx.x == 0) *out = float(c) + float(p.a) + float(p.b) + float(s);
}

// A library in PTX: a kernel and a global it reads.
static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 bias = 7;
.visible .entry add_bias(.param .u64 p, .param .u32 n) {
  .reg .pred %q;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %q, %r2, %r1;
  @%q bra done;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  ld.global.u32 %r4, [bias];
  add.u32 %r5, %r3, %r4;
  st.global.u32 [%rd3], %r5;
done:
  ret;
}
.visible .entry other_kernel() { ret; }
)";

static void libraries() {
  cudaLibrary_t lib;
  bool ok = OK(cudaLibraryLoadData(&lib, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  unsigned count = 0;
  ok = ok && OK(cudaLibraryGetKernelCount(&count, lib));
  report("cudaLibraryLoadData of PTX, two kernels", ok && count == 2);
  cudaKernel_t k = nullptr;
  ok = OK(cudaLibraryGetKernel(&k, lib, "add_bias"));
  void* gptr = nullptr;
  size_t gbytes = 0;
  ok = ok && OK(cudaLibraryGetGlobal(&gptr, &gbytes, lib, "bias"));
  int bias = 0;
  if (ok) cudaMemcpy(&bias, gptr, 4, cudaMemcpyDeviceToHost);
  report("cudaLibraryGetKernel and cudaLibraryGetGlobal (4 bytes, initialised to 7)", ok && gbytes == 4 && bias == 7);
  const int n = 64;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i * 3;
  int* d;
  cudaMalloc(&d, n * 4);
  cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice);
  unsigned nn = n;
  void* args[] = {&d, &nn};
  ok = OK(cudaLaunchKernel((const void*)k, dim3(1), dim3(n), args, 0, nullptr)) && OK(cudaDeviceSynchronize());
  std::vector<int> r(n);
  cudaMemcpy(r.data(), d, n * 4, cudaMemcpyDeviceToHost);
  bool vals = true;
  for (int i = 0; i < n; ++i) vals = vals && r[i] == i * 3 + 7;
  report("launching a cudaKernel_t with cudaLaunchKernel", ok && vals);
  cudaKernel_t ks[4] = {};
  ok = OK(cudaLibraryEnumerateKernels(ks, 2, lib)) && ks[0] && ks[1] && ks[0] != ks[1];
  report("cudaLibraryEnumerateKernels", ok);
  report("cudaLibraryGetKernel of a missing name", cudaLibraryGetKernel(&k, lib, "nope") != cudaSuccess);
  cudaGetLastError();
  report("cudaLibraryUnload", OK(cudaLibraryUnload(lib)));
  cudaFree(d);
}

static void param_info() {
  size_t off[4], size[4];
  bool ok = true;
  for (int i = 0; i < 4; ++i) ok = ok && OK(cudaFuncGetParamInfo((const void*)params_kernel, i, &off[i], &size[i]));
  std::printf("cudaFuncGetParamInfo: offsets %zu %zu %zu %zu sizes %zu %zu %zu %zu\n", off[0], off[1], off[2], off[3],
              size[0], size[1], size[2], size[3]);
  report("cudaFuncGetParamInfo of the four parameters", ok && off[0] == 0 && size[0] == 1 && off[1] == 8 &&
                                                               size[1] == 16 && off[2] == 24 && size[2] == 8 &&
                                                               off[3] == 32 && size[3] == 2);
  report("cudaFuncGetParamInfo past the last parameter",
         cudaFuncGetParamInfo((const void*)params_kernel, 4, &off[0], &size[0]) == cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFunction_t f = nullptr;
  ok = OK(cudaGetFuncBySymbol(&f, (const void*)params_kernel)) && f != nullptr;
  int regs = -1;
  ok = ok && cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS && regs > 0;
  report("cudaGetFuncBySymbol gives a CUfunction the driver accepts", ok);
}

static void array_copies() {
  const int w = 16, hgt = 8;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a, b;
  bool ok = OK(cudaMallocArray(&a, &fd, w, hgt)) && OK(cudaMallocArray(&b, &fd, w, hgt));
  std::vector<float> src(w * hgt), out(w * hgt, -1.f), ref(w * hgt, 0.f);
  for (int i = 0; i < w * hgt; ++i) src[i] = float(i) * 0.5f;
  cudaStream_t s;
  cudaStreamCreate(&s);
  // Whole array in, async.
  ok = ok && OK(cudaMemcpyToArrayAsync(a, 0, 0, src.data(), src.size() * 4, cudaMemcpyHostToDevice, s));
  // b = 0, then a 2D block (width 5 floats, 3 rows) from a(2, 1) to b(4, 3); then 10 floats from
  // a's row 5 to b's row 0 (1D ArrayToArray).
  std::vector<float> zero(w * hgt, 0.f);
  ok = ok && OK(cudaMemcpyToArray(b, 0, 0, zero.data(), zero.size() * 4, cudaMemcpyHostToDevice));
  ok = ok && OK(cudaStreamSynchronize(s));
  ok = ok && OK(cudaMemcpy2DArrayToArray(b, 4 * 4, 3, a, 2 * 4, 1, 5 * 4, 3, cudaMemcpyDeviceToDevice));
  ok = ok && OK(cudaMemcpyArrayToArray(b, 0, 0, a, 0, 5, 10 * 4, cudaMemcpyDeviceToDevice));
  ok = ok && OK(cudaMemcpyFromArrayAsync(out.data(), b, 0, 0, out.size() * 4, cudaMemcpyDeviceToHost, s));
  ok = ok && OK(cudaStreamSynchronize(s));
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) ref[(3 + y) * w + 4 + x] = src[(1 + y) * w + 2 + x];
  for (int x = 0; x < 10; ++x) ref[x] = src[5 * w + x];
  report("cudaMemcpyToArrayAsync, 2DArrayToArray, ArrayToArray, FromArrayAsync", ok && out == ref);
  report("cudaMemcpy2DArrayToArray out of the array's bounds",
         cudaMemcpy2DArrayToArray(b, 14 * 4, 0, a, 0, 0, 5 * 4, 1, cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue);
  cudaGetLastError();

  // Texture and surface objects read back.
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = cudaAddressModeClamp;
  td.addressMode[1] = cudaAddressModeWrap;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  cudaTextureObject_t tex;
  ok = OK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
  cudaResourceDesc rb = {};
  cudaTextureDesc tb = {};
  ok = ok && OK(cudaGetTextureObjectResourceDesc(&rb, tex)) && OK(cudaGetTextureObjectTextureDesc(&tb, tex));
  report("texture object's resource and texture descriptions read back",
         ok && rb.resType == cudaResourceTypeArray && rb.res.array.array == a &&
             tb.addressMode[0] == cudaAddressModeClamp && tb.addressMode[1] == cudaAddressModeWrap &&
             tb.filterMode == cudaFilterModeLinear && tb.normalizedCoords == 1);
  cudaDestroyTextureObject(tex);
  cudaArray_t sa;
  ok = OK(cudaMallocArray(&sa, &fd, w, hgt, cudaArraySurfaceLoadStore));
  rd.res.array.array = sa;
  cudaSurfaceObject_t surf;
  ok = ok && OK(cudaCreateSurfaceObject(&surf, &rd));
  cudaResourceDesc sb = {};
  ok = ok && OK(cudaGetSurfaceObjectResourceDesc(&sb, surf));
  report("surface object's resource description read back", ok && sb.resType == cudaResourceTypeArray && sb.res.array.array == sa);
  cudaDestroySurfaceObject(surf);
  cudaFreeArray(sa);
  cudaFreeArray(a);
  cudaFreeArray(b);
  cudaStreamDestroy(s);
}

static void one_gpu_queries() {
  int can = -1;
  int rc = cudaDeviceCanAccessPeer(&can, 0, 0);
  std::printf("cudaDeviceCanAccessPeer(0, 0): %d, can %d\n", rc, can);
  rc = cudaDeviceEnablePeerAccess(0, 0);
  std::printf("cudaDeviceEnablePeerAccess(0): %d\n", rc);
  cudaGetLastError();
  rc = cudaDeviceEnablePeerAccess(1, 0);
  std::printf("cudaDeviceEnablePeerAccess(1): %d\n", rc);
  cudaGetLastError();
  rc = cudaDeviceDisablePeerAccess(0);
  std::printf("cudaDeviceDisablePeerAccess(0): %d\n", rc);
  cudaGetLastError();
  int v = -7;
  rc = cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0);
  std::printf("cudaDeviceGetP2PAttribute(0, 0): %d\n", rc);
  cudaGetLastError();
  rc = cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 1);
  std::printf("cudaDeviceGetP2PAttribute(0, 1): %d\n", rc);
  cudaGetLastError();
  char bus[32] = {};
  int dev = -1;
  bool ok = OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0)) && OK(cudaDeviceGetByPCIBusId(&dev, bus));
  report("cudaDeviceGetByPCIBusId of the device's own bus id", ok && dev == 0);
  rc = cudaDeviceGetByPCIBusId(&dev, "0000:ff:1f.7");
  std::printf("cudaDeviceGetByPCIBusId of another bus id: %d\n", rc);
  cudaGetLastError();
  rc = cudaDeviceGetByPCIBusId(&dev, "not a bus id");
  std::printf("cudaDeviceGetByPCIBusId of a malformed id: %d\n", rc);
  cudaGetLastError();
}

int main() {
  libraries();
  param_info();
  array_copies();
  one_gpu_queries();
  std::printf("%s\n", failures ? "FAILED" : "ALL PASSED");
  return failures ? 1 : 0;
}
