// Runtime compilation with NVRTC, loaded through the driver API: PTX (compute_XX), a cubin for the
// GPU's own architecture (sm_XX) from memory, the same cubin written to a file and loaded with
// cuModuleLoad, name expressions for a templated kernel, and a program that does not compile
// (its log names the error). Results against a CPU reference; the output is the same on any GPU.
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static const char* kSource = R"(
template <typename T>
__global__ void scale_add(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void square(float* v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[i] = v[i] * v[i];
}
)";

static bool compile(const std::string& arch, std::string& image, std::string& lowered, bool cubin) {
  nvrtcProgram p;
  nvrtcCreateProgram(&p, kSource, "jit.cu", 0, nullptr, nullptr);
  nvrtcAddNameExpression(p, "scale_add<double>");
  std::string opt = "--gpu-architecture=" + arch;
  const char* opts[] = {opt.c_str(), "--std=c++17"};
  nvrtcResult r = nvrtcCompileProgram(p, 2, opts);
  if (r != NVRTC_SUCCESS) {
    std::printf("compile %s: %s\n", arch.substr(0, 3).c_str(), nvrtcGetErrorString(r));
    return false;
  }
  const char* name = nullptr;
  nvrtcGetLoweredName(p, "scale_add<double>", &name);
  lowered = name ? name : "";
  size_t n = 0;
  if (cubin) {
    nvrtcGetCUBINSize(p, &n);
    image.assign(n, '\0');
    nvrtcGetCUBIN(p, image.data());
  } else {
    nvrtcGetPTXSize(p, &n);
    image.assign(n, '\0');
    nvrtcGetPTX(p, image.data());
  }
  nvrtcDestroyProgram(&p);
  return true;
}

static int run_module(CUmodule m, const std::string& lowered, const char* what) {
  const int n = 3000;
  std::vector<double> x(n), y(n);
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) x[i] = i * 0.5, y[i] = 1.0 - i, v[i] = float(i % 37) - 18.0f;
  CUdeviceptr dx, dy, dv;
  cuMemAlloc(&dx, n * sizeof(double));
  cuMemAlloc(&dy, n * sizeof(double));
  cuMemAlloc(&dv, n * sizeof(float));
  cuMemcpyHtoD(dx, x.data(), n * sizeof(double));
  cuMemcpyHtoD(dy, y.data(), n * sizeof(double));
  cuMemcpyHtoD(dv, v.data(), n * sizeof(float));
  CUfunction fa, fs;
  int wrong = 0;
  if (cuModuleGetFunction(&fa, m, lowered.c_str()) != CUDA_SUCCESS || cuModuleGetFunction(&fs, m, "square") != CUDA_SUCCESS) {
    std::printf("%s: kernels not found\n", what);
    return 1;
  }
  double a = 3.0;
  int nn = n;
  void* args1[] = {&a, &dx, &dy, &nn};
  void* args2[] = {&dv, &nn};
  CUresult r1 = cuLaunchKernel(fa, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args1, nullptr);
  CUresult r2 = cuLaunchKernel(fs, 4, 1, 1, 256, 1, 1, 0, nullptr, args2, nullptr);
  std::vector<double> gy(n);
  std::vector<float> gv(n);
  cuMemcpyDtoH(gy.data(), dy, n * sizeof(double));
  cuMemcpyDtoH(gv.data(), dv, n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    wrong += gy[i] != 3.0 * x[i] + y[i];
    wrong += gv[i] != v[i] * v[i];
  }
  std::printf("%s: launches %d %d, %d wrong of %d\n", what, int(r1), int(r2), wrong, 2 * n);
  cuMemFree(dx), cuMemFree(dy), cuMemFree(dv);
  return wrong || r1 || r2;
}

int main() {
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  const std::string cc = std::to_string(major * 10 + minor);
  int failures = 0;
  std::string image, lowered;
  CUmodule m;
  if (compile("compute_" + cc, image, lowered, false)) {
    std::printf("lowered name of scale_add<double>: %s\n", lowered.c_str());
    std::printf("PTX load: %d\n", int(cuModuleLoadData(&m, image.c_str())));
    failures += run_module(m, lowered, "PTX");
    cuModuleUnload(m);
  }
  if (compile("sm_" + cc, image, lowered, true)) {
    std::printf("cubin is ELF: %d\n", image.size() > 4 && std::memcmp(image.data(), "\x7f" "ELF", 4) == 0);
    std::printf("cubin load: %d\n", int(cuModuleLoadData(&m, image.data())));
    failures += run_module(m, lowered, "cubin");
    cuModuleUnload(m);
    char path[] = "/tmp/nvrtc_jit_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
      FILE* f = fdopen(fd, "wb");
      fwrite(image.data(), 1, image.size(), f);
      fclose(f);
      std::printf("cubin file load: %d\n", int(cuModuleLoad(&m, path)));
      failures += run_module(m, lowered, "cubin file");
      cuModuleUnload(m);
      std::remove(path);
    }
  }
  {
    nvrtcProgram p;
    nvrtcCreateProgram(&p, "__global__ void broken() { undeclared_thing = 1; }", "broken.cu", 0, nullptr, nullptr);
    nvrtcResult r = nvrtcCompileProgram(p, 0, nullptr);
    size_t n = 0;
    nvrtcGetProgramLogSize(p, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(p, log.data());
    std::printf("broken program: %s, log names the identifier: %d\n", nvrtcGetErrorString(r),
                log.find("undeclared_thing") != std::string::npos);
    nvrtcDestroyProgram(&p);
  }
  std::printf("%s\n", failures ? "FAILED" : "done");
  return failures ? 1 : 0;
}
