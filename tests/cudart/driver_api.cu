// The CUDA driver API called directly (cuda.h, linked with -lcuda): a PTX module loaded from text,
// kernels launched with an argument array and with a packed `extra` buffer, a module variable,
// memset patterns, attributes and the errors of bad input. Every result is checked on the host.
// The expected output is what our H100 printed with the real driver.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

static const char* kPtx = R"(
.version 7.0
.target sm_80
.address_size 64
.global .align 4 .u32 counter = 7;
.visible .entry axpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.f32 %f1, [a];
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra done;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f3, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f3;
  atom.global.add.u32 %r4, [counter], 1;
done:
  ret;
}
)";

__global__ void touch(int* p) {
  if (p) *p = 1;
}

static int failures = 0;
#define CHECK(call)                                                               \
  do {                                                                            \
    CUresult r_ = (call);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                     \
      const char* name_ = nullptr;                                                \
      cuGetErrorName(r_, &name_);                                                 \
      std::printf("FAIL %s: %s\n", #call, name_ ? name_ : "?");                  \
      ++failures;                                                                 \
    }                                                                             \
  } while (0)

int main() {
  CHECK(cuInit(0));
  int count = 0;
  CHECK(cuDeviceGetCount(&count));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  int major = 0;
  CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  std::printf("devices >= 1: %d, compute capability >= 8: %d\n", count >= 1, major >= 8);
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUcontext cur = nullptr;
  CHECK(cuCtxGetCurrent(&cur));
  std::printf("current context is the primary: %d\n", cur == ctx);

  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, kPtx));
  CUfunction axpy;
  CHECK(cuModuleGetFunction(&axpy, mod, "axpy"));
  CUfunction missing;
  CUresult r = cuModuleGetFunction(&missing, mod, "no_such_kernel");
  const char* rname = nullptr;
  cuGetErrorName(r, &rname);
  std::printf("missing kernel: %s\n", rname ? rname : "?");
  unsigned nfun = 0;
  CHECK(cuModuleGetFunctionCount(&nfun, mod));
  CUfunction listed[2] = {nullptr, nullptr};
  CHECK(cuModuleEnumerateFunctions(listed, nfun < 2 ? nfun : 2, mod));
  const char* listed_name = nullptr;
  CHECK(cuFuncGetName(&listed_name, listed[0]));
  std::printf("kernels in the module: %u, the first: %s\n", nfun, listed_name ? listed_name : "?");
  CUmodule bad;
  const char garbage[64] = "\x01\x02\x03 this is not a module";
  r = cuModuleLoadData(&bad, garbage);
  std::printf("garbage image rejected: %d\n", r != CUDA_SUCCESS);

  const unsigned n = 1000;
  std::vector<float> x(n), y(n), out(n);
  for (unsigned i = 0; i < n; ++i) {
    x[i] = float(i) * 0.5f;
    y[i] = float(n - i);
  }
  CUdeviceptr dx, dy;
  CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));

  // y = 2x + y with an argument array, then y = -1x + y with a packed buffer: y = x + y.
  float a = 2.0f;
  unsigned nn = n;
  void* args[] = {&a, &dx, &dy, &nn};
  CHECK(cuLaunchKernel(axpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  struct {
    float a;
    unsigned pad;
    CUdeviceptr x, y;
    unsigned n;
  } packed = {-1.0f, 0, dx, dy, n};
  size_t packed_size = offsetof(decltype(packed), n) + sizeof(unsigned);  // the parameters' 28 bytes
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                   CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(axpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
  int wrong = 0;
  for (unsigned i = 0; i < n; ++i) wrong += out[i] != x[i] + y[i];
  std::printf("axpy twice: %d wrong of %u\n", wrong, n);

  CUdeviceptr counter;
  size_t counter_bytes = 0;
  CHECK(cuModuleGetGlobal(&counter, &counter_bytes, mod, "counter"));
  unsigned c = 0;
  CHECK(cuMemcpyDtoH(&c, counter, sizeof c));
  std::printf("counter: %u (7 + 2 x %u), %zu bytes\n", c, n, counter_bytes);

  // A 32-bit pattern whose bytes differ, then a byte fill.
  CHECK(cuMemsetD32(dx, 0x11223344u, n));
  std::vector<unsigned> words(n);
  CHECK(cuMemcpyDtoH(words.data(), dx, n * 4));
  wrong = 0;
  for (unsigned w : words) wrong += w != 0x11223344u;
  CHECK(cuMemsetD8(dx + 4, 0xab, 8));
  CHECK(cuMemcpyDtoH(words.data(), dx, 16));
  std::printf("memset D32: %d wrong; D8: %08x %08x %08x %08x\n", wrong, words[0], words[1], words[2], words[3]);

  int threads = 0;
  CHECK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, axpy));
  std::printf("max threads per block: %d\n", threads);
  int blocks = 0;
  CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 128, 0));
  std::printf("resident 128-thread blocks per SM >= 8: %d\n", blocks >= 8);
  unsigned type = 0;
  CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dy));
  CUdeviceptr base = 0;
  size_t size = 0;
  CHECK(cuMemGetAddressRange(&base, &size, dy + 40));
  std::printf("dy: memory type %u, range starts at dy: %d, %zu bytes\n", type, base == dy, size);

  CUstream stream;
  CUevent start, stop;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  CHECK(cuEventRecord(start, stream));
  CHECK(cuMemcpyHtoDAsync(dx, x.data(), n * sizeof(float), stream));
  CHECK(cuMemcpyHtoDAsync(dy, y.data(), n * sizeof(float), stream));
  CHECK(cuLaunchKernel(axpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, args, nullptr));
  CHECK(cuEventRecord(stop, stream));
  CHECK(cuStreamSynchronize(stream));
  float ms = -1;
  CHECK(cuEventElapsedTime(&ms, start, stop));
  CHECK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
  wrong = 0;
  for (unsigned i = 0; i < n; ++i) wrong += out[i] != 2.0f * x[i] + y[i];
  std::printf("stream: %d wrong, elapsed time positive: %d\n", wrong, ms > 0);

  // Launch configurations the hardware refuses, through the driver and through the runtime.
  struct Bad {
    const char* what;
    unsigned g[3], b[3];
  } bad_configs[] = {{"grid 0", {0, 1, 1}, {32, 1, 1}},
                     {"block 2048", {1, 1, 1}, {2048, 1, 1}},
                     {"block z 65", {1, 1, 1}, {1, 1, 65}},
                     {"grid y 65536", {1, 65536, 1}, {32, 1, 1}}};
  for (const Bad& c : bad_configs) {
    r = cuLaunchKernel(axpy, c.g[0], c.g[1], c.g[2], c.b[0], c.b[1], c.b[2], 0, nullptr, args, nullptr);
    rname = nullptr;
    cuGetErrorName(r, &rname);
    touch<<<dim3(c.g[0], c.g[1], c.g[2]), dim3(c.b[0], c.b[1], c.b[2])>>>(nullptr);
    std::printf("%s: driver %s, runtime %s\n", c.what, rname ? rname : "?", cudaGetErrorName(cudaGetLastError()));
  }

  CHECK(cuEventDestroy(start));
  CHECK(cuEventDestroy(stop));
  CHECK(cuStreamDestroy(stream));
  CHECK(cuMemFree(dx));
  CHECK(cuMemFree(dy));
  CHECK(cuModuleUnload(mod));
  CHECK(cuDevicePrimaryCtxRelease(dev));
  std::printf("%s\n", failures ? "FAILED" : "done");
  return failures ? 1 : 0;
}
