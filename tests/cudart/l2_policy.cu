// L2 residency-control API: cudaDeviceSetLimit/GetLimit(cudaLimitPersistingL2CacheSize),
// cudaStreamSetAttribute/GetAttribute/CopyAttributes with an access-policy window,
// cudaLaunchKernelEx with the window as a launch attribute, cudaCtxResetPersistingL2Cache.
// Expected values and error codes are what an H100 with CUDA 13 returned for the same calls
// (docs/ampere-features.md), expressed through the device's own properties so they hold on the
// A100 model: the limit rounds up to 1/16 of the L2, a limit above persistingL2CacheMaxSize, a
// window above accessPolicyMaxWindowSize, a hitRatio outside [0, 1] and missProp = Persisting are
// cudaErrorInvalidValue.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int fails = 0;
#define EXPECT(cond)                                        \
  do {                                                      \
    if (!(cond)) {                                          \
      printf("FAIL line %d: %s\n", __LINE__, #cond);        \
      ++fails;                                              \
    }                                                       \
  } while (0)

__global__ void touch(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += i;
}

static cudaStreamAttrValue window(void* base, size_t bytes, float ratio, cudaAccessProperty hit, cudaAccessProperty miss) {
  cudaStreamAttrValue a;
  memset(&a, 0, sizeof a);
  a.accessPolicyWindow.base_ptr = base;
  a.accessPolicyWindow.num_bytes = bytes;
  a.accessPolicyWindow.hitRatio = ratio;
  a.accessPolicyWindow.hitProp = hit;
  a.accessPolicyWindow.missProp = miss;
  return a;
}

int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
  const size_t step = size_t(p.l2CacheSize) / 16, maxp = size_t(p.persistingL2CacheMaxSize);
  const size_t maxw = size_t(p.accessPolicyMaxWindowSize);
  EXPECT(maxp > 0 && maxp <= size_t(p.l2CacheSize) && maxw > 0);

  // The set-aside limit.
  size_t v = 1;
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize) == cudaSuccess && v == 0);
  EXPECT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1) == cudaSuccess);
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize) == cudaSuccess && v == step);
  EXPECT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 3 * step - 7) == cudaSuccess);
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize) == cudaSuccess && v == 3 * step);
  EXPECT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, maxp) == cudaSuccess);
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize) == cudaSuccess && v == maxp);
  EXPECT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, maxp + 1) == cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize) == cudaSuccess && v == maxp);  // unchanged

  int* d = nullptr;
  const int n = 1 << 16;
  EXPECT(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
  EXPECT(cudaMemset(d, 0, n * sizeof(int)) == cudaSuccess);
  cudaStream_t s, s2;
  EXPECT(cudaStreamCreate(&s) == cudaSuccess && cudaStreamCreate(&s2) == cudaSuccess);

  // Round trip of a valid window, and of the largest allowed size.
  cudaStreamAttrValue a = window(d, n * sizeof(int), 0.6f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming), b;
  EXPECT(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &a) == cudaSuccess);
  memset(&b, 0x5a, sizeof b);
  EXPECT(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &b) == cudaSuccess);
  EXPECT(b.accessPolicyWindow.base_ptr == d && b.accessPolicyWindow.num_bytes == n * sizeof(int) &&
         b.accessPolicyWindow.hitRatio == 0.6f && b.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
         b.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);
  cudaStreamAttrValue big = window(d, maxw, 1.0f, cudaAccessPropertyPersisting, cudaAccessPropertyNormal);
  EXPECT(cudaStreamSetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &big) == cudaSuccess);

  // Bad windows: rejected, and the stream keeps its window.
  cudaStreamAttrValue bad[] = {
      window(d, maxw + 1, 1.0f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming),
      window(d, 4096, 1.5f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming),
      window(d, 4096, -0.1f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming),
      window(d, 4096, 0.5f, cudaAccessPropertyPersisting, cudaAccessPropertyPersisting)};
  for (auto& x : bad) {
    EXPECT(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &x) == cudaErrorInvalidValue);
    cudaGetLastError();
  }
  memset(&b, 0, sizeof b);
  EXPECT(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &b) == cudaSuccess &&
         b.accessPolicyWindow.num_bytes == n * sizeof(int) && b.accessPolicyWindow.hitRatio == 0.6f);

  // cudaStreamCopyAttributes: s2 takes s's window.
  EXPECT(cudaStreamCopyAttributes(s2, s) == cudaSuccess);
  memset(&b, 0, sizeof b);
  EXPECT(cudaStreamGetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &b) == cudaSuccess &&
         b.accessPolicyWindow.base_ptr == d && b.accessPolicyWindow.num_bytes == n * sizeof(int));

  // Launches under the stream window and with a launch-attribute window compute the same thing.
  touch<<<n / 256, 256, 0, s>>>(d, n);
  EXPECT(cudaGetLastError() == cudaSuccess);
  cudaLaunchAttribute la[1];
  memset(la, 0, sizeof la);
  la[0].id = cudaLaunchAttributeAccessPolicyWindow;
  la[0].val.accessPolicyWindow = a.accessPolicyWindow;
  cudaLaunchConfig_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gridDim = dim3(n / 256);
  cfg.blockDim = dim3(256);
  cfg.stream = s2;
  cfg.attrs = la;
  cfg.numAttrs = 1;
  EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
  EXPECT(cudaLaunchKernelEx(&cfg, touch, d, n) == cudaSuccess);
  la[0].val.accessPolicyWindow.hitRatio = 2.0f;
  EXPECT(cudaLaunchKernelEx(&cfg, touch, d, n) == cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  static int h[1 << 16];
  EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != 2 * i;
  EXPECT(wrong == 0);

  // Window off (num_bytes 0), persisting lines reset, limit back to 0.
  a.accessPolicyWindow.num_bytes = 0;
  EXPECT(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &a) == cudaSuccess);
  EXPECT(cudaCtxResetPersistingL2Cache() == cudaSuccess);
  EXPECT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0) == cudaSuccess);
  EXPECT(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize) == cudaSuccess && v == 0);

  cudaStreamDestroy(s);
  cudaStreamDestroy(s2);
  cudaFree(d);
  printf("l2_policy: %s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
