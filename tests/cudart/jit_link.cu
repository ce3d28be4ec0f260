// The driver's JIT linker (cuLinkCreate/AddData/AddFile/Complete/Destroy): two PTX units, one
// calling a function the other defines, linked at run time and launched (CPU reference); one unit
// from a file; the logs and the wall time the linker writes back; a PTX syntax error, an empty
// link, a bad handle. Expected output as our H100 printed it.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const char* kScalePtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .func (.param .b32 ret) scale(.param .b32 x)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  mad.lo.s32 %r2, %r1, 3, 1;
  st.param.b32 [ret], %r2;
  ret;
}
)";

static const char* kApplyPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 ret) scale(.param .b32 x);
.visible .entry apply(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r6, [%rd4];
  {
  .param .b32 a0;
  st.param.b32 [a0], %r6;
  .param .b32 r0;
  call.uni (r0), scale, (a0);
  ld.param.b32 %r7, [r0];
  }
  st.global.u32 [%rd4], %r7;
DONE:
  ret;
}
)";

static const char* kBadPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry broken(.param .u64 p)
{
  .reg .b32 %r<2>;
  frobnicate.u32 %r1, 7;
  ret;
}
)";

#define CHECK(x)                                                                 \
  do {                                                                           \
    CUresult r_ = (x);                                                           \
    if (r_ != CUDA_SUCCESS) {                                                    \
      std::printf("FAIL %s -> %d at line %d\n", #x, int(r_), __LINE__);          \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// Runs `apply` from a linked image on n values and checks each against 3x+1.
static bool run_apply(const void* image, int n) {
  CUmodule mod;
  CUfunction f;
  CHECK(cuModuleLoadData(&mod, image));
  CHECK(cuModuleGetFunction(&f, mod, "apply"));
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i * 7 - 1000;
  CUdeviceptr d;
  CHECK(cuMemAlloc(&d, n * sizeof(int)));
  CHECK(cuMemcpyHtoD(d, h.data(), n * sizeof(int)));
  unsigned un = unsigned(n);
  void* args[] = {&d, &un};
  CHECK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  std::vector<int> out(n);
  CHECK(cuMemcpyDtoH(out.data(), d, n * sizeof(int)));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (out[i] != h[i] * 3 + 1) ++bad;
  CHECK(cuMemFree(d));
  CHECK(cuModuleUnload(mod));
  return bad == 0;
}

int main() {
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));

  // Two units from memory, with logs and the wall time requested.
  {
    char info[4096], error[4096];
    std::memset(info, 'x', sizeof info);
    std::memset(error, 'x', sizeof error);
    CUjit_option opts[5] = {CU_JIT_WALL_TIME, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[5] = {nullptr, info, (void*)(uintptr_t)sizeof info, error, (void*)(uintptr_t)sizeof error};
    CUlinkState ls;
    CHECK(cuLinkCreate(5, opts, vals, &ls));
    CHECK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)kScalePtx, std::strlen(kScalePtx) + 1, "scale.ptx", 0, nullptr, nullptr));
    CHECK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)kApplyPtx, std::strlen(kApplyPtx), "apply.ptx", 0, nullptr, nullptr));
    void* image = nullptr;
    size_t size = 0;
    CHECK(cuLinkComplete(ls, &image, &size));
    float ms;
    std::memcpy(&ms, &vals[0], sizeof ms);
    std::printf("two units: image %s, size %s, wall time %s, error log \"%s\"\n", image ? "set" : "null",
                size > 0 ? "> 0" : "0", ms >= 0.0f && ms < 60000.0f ? "plausible" : "implausible", error);
    std::printf("two units: apply 1000 values %s\n", run_apply(image, 1000) ? "PASS" : "FAIL");
    CHECK(cuLinkDestroy(ls));
  }

  // One unit from a file (the reverse order of definition and use).
  {
    const char* path = "jit_link_scale.ptx";
    FILE* f = std::fopen(path, "w");
    std::fputs(kScalePtx, f);
    std::fclose(f);
    CUlinkState ls;
    CHECK(cuLinkCreate(0, nullptr, nullptr, &ls));
    CHECK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)kApplyPtx, std::strlen(kApplyPtx) + 1, nullptr, 0, nullptr, nullptr));
    CHECK(cuLinkAddFile(ls, CU_JIT_INPUT_PTX, path, 0, nullptr, nullptr));
    void* image = nullptr;
    size_t size = 0;
    CHECK(cuLinkComplete(ls, &image, &size));
    std::printf("file unit: apply 4097 values %s\n", run_apply(image, 4097) ? "PASS" : "FAIL");
    CHECK(cuLinkDestroy(ls));
    std::remove(path);
    CUlinkState ls2;
    CHECK(cuLinkCreate(0, nullptr, nullptr, &ls2));
    std::printf("missing file: %d\n", int(cuLinkAddFile(ls2, CU_JIT_INPUT_PTX, "no/such/file.ptx", 0, nullptr, nullptr)));
    CHECK(cuLinkDestroy(ls2));
  }

  // A syntax error: reported by cuLinkAddData, with the error log filled.
  {
    char error[4096];
    error[0] = 0;
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[2] = {error, (void*)(uintptr_t)sizeof error};
    CUlinkState ls;
    CHECK(cuLinkCreate(2, opts, vals, &ls));
    CUresult r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)kBadPtx, std::strlen(kBadPtx) + 1, "bad.ptx", 0, nullptr, nullptr);
    std::printf("bad PTX: cuLinkAddData %d, error log %s\n", int(r), error[0] ? "filled" : "empty");
    CHECK(cuLinkDestroy(ls));
  }

  // Nothing added, and handles that are not link states.
  {
    CUlinkState ls;
    CHECK(cuLinkCreate(0, nullptr, nullptr, &ls));
    void* image = nullptr;
    size_t size = 0;
    std::printf("empty link: cuLinkComplete %d\n", int(cuLinkComplete(ls, &image, &size)));
    CHECK(cuLinkDestroy(ls));
    std::printf("null state: cuLinkAddData %d\n",
                int(cuLinkAddData(nullptr, CU_JIT_INPUT_PTX, (void*)kScalePtx, std::strlen(kScalePtx) + 1, nullptr, 0, nullptr, nullptr)));
  }
  std::printf("done\n");
  return 0;
}
