// Probe of the L2 residency-control API on real hardware: device limits, how
// cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize) rounds and rejects values, which
// access-policy windows cudaStreamSetAttribute accepts, cudaStreamCopyAttributes, the NULL stream,
// cudaCtxResetPersistingL2Cache. h100_probe.txt is its output on an H100 80GB HBM3 (CUDA 13);
// tests/cudart/l2_policy.cu checks warpsim against the same rules.
//   nvcc -o probe probe.cu && ./probe
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  printf("name %s l2 %d persistingMax %d windowMax %d\n", p.name, p.l2CacheSize, p.persistingL2CacheMaxSize, p.accessPolicyMaxWindowSize);
  size_t vals[] = {0, 1, 1 << 20, 3 << 20, (size_t)p.persistingL2CacheMaxSize, (size_t)p.persistingL2CacheMaxSize + 1, (size_t)p.l2CacheSize, (size_t)1 << 40};
  for (size_t v : vals) {
    cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, v);
    size_t got = 12345; cudaError_t e2 = cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize);
    printf("setlimit %zu -> %d (%s), get %zu (%d)\n", v, (int)e, cudaGetErrorName(e), got, (int)e2);
    cudaGetLastError();
  }
  cudaStream_t s; cudaStreamCreate(&s);
  void* d; cudaMalloc(&d, 1 << 20);
  struct T { const char* what; size_t nb; float hr; int hp, mp; } ts[] = {
    {"ok", 1 << 20, 0.6f, 2, 1}, {"nb=max", (size_t)p.accessPolicyMaxWindowSize, 1.f, 2, 1},
    {"nb=max+1", (size_t)p.accessPolicyMaxWindowSize + 1, 1.f, 2, 1}, {"hr=1.5", 1 << 20, 1.5f, 2, 1},
    {"hr=-0.1", 1 << 20, -0.1f, 2, 1}, {"miss=persisting", 1 << 20, 0.5f, 2, 2}, {"hit=3", 1 << 20, 0.5f, 3, 1},
    {"miss=normal", 1 << 20, 0.5f, 1, 0}, {"nb=0", 0, 0.5f, 2, 1}};
  for (auto& t : ts) {
    cudaStreamAttrValue a; memset(&a, 0, sizeof a);
    a.accessPolicyWindow.base_ptr = d; a.accessPolicyWindow.num_bytes = t.nb; a.accessPolicyWindow.hitRatio = t.hr;
    a.accessPolicyWindow.hitProp = (cudaAccessProperty)t.hp; a.accessPolicyWindow.missProp = (cudaAccessProperty)t.mp;
    cudaError_t e = cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &a);
    cudaStreamAttrValue b; memset(&b, 0x5a, sizeof b);
    cudaError_t e2 = cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &b);
    printf("window %s -> %d (%s); get %d: base %s nb %zu hr %g hit %d miss %d\n", t.what, (int)e, cudaGetErrorName(e), (int)e2,
           b.accessPolicyWindow.base_ptr == d ? "same" : "other", b.accessPolicyWindow.num_bytes, b.accessPolicyWindow.hitRatio,
           (int)b.accessPolicyWindow.hitProp, (int)b.accessPolicyWindow.missProp);
    cudaGetLastError();
  }
  cudaStream_t s2; cudaStreamCreate(&s2);
  printf("copy attrs %d\n", (int)cudaStreamCopyAttributes(s2, s));
  cudaStreamAttrValue b; memset(&b, 0, sizeof b);
  cudaStreamGetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &b);
  printf("copied nb %zu\n", b.accessPolicyWindow.num_bytes);
  cudaStreamAttrValue a0; memset(&a0, 0, sizeof a0);
  printf("default stream set %d\n", (int)cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &a0));
  printf("reset %d\n", (int)cudaCtxResetPersistingL2Cache());
  return 0;
}
