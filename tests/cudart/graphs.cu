// CUDA graphs as programs use them: a captured sequence (memset, kernels, copies, a host function)
// with a fork/join onto a second stream through events, instantiated once and launched several
// times (each launch reads the host input at launch time, as the graph's copy node does); a graph
// built node by node with dependencies (kernel, 1D memcpy, memset and empty nodes) added out of
// execution order; capture-status queries. Every result is checked against a CPU reference.
#include <cstdio>
#include <vector>

static int fails = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "yes" : "NO");
  if (!ok) ++fails;
}
#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e_ = (x);                                                  \
    if (e_ != cudaSuccess) {                                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e_));                 \
      ++fails;                                                             \
    }                                                                      \
  } while (0)

__global__ void axpb(float* y, const float* x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
__global__ void add_into(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}
__global__ void iota(int* p, int n, int start) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = start + i;
}

static void CUDART_CB count_calls(void* p) { ++*static_cast<int*>(p); }

int main() {
  const int n = 3000;
  std::vector<float> hx(n), hy(n);
  float *x, *y, *t;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMalloc(&t, n * sizeof(float)));
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  int host_calls = 0;

  // Capture: x <- host; fork: y = 2x + 1 on s1, t = 3x - 2 on s2; join; y += t; y -> host.
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CK(cudaStreamIsCapturing(s1, &st));
  bool active = st == cudaStreamCaptureStatusActive;
  CK(cudaMemcpyAsync(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice, s1));
  CK(cudaMemsetAsync(y, 0, n * sizeof(float), s1));
  CK(cudaEventRecord(fork, s1));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  CK(cudaStreamIsCapturing(s2, &st));
  bool joined = st == cudaStreamCaptureStatusActive;
  axpb<<<(n + 255) / 256, 256, 0, s1>>>(y, x, 2.f, 1.f, n);
  axpb<<<(n + 127) / 128, 128, 0, s2>>>(t, x, 3.f, -2.f, n);
  CK(cudaEventRecord(join, s2));
  CK(cudaStreamWaitEvent(s1, join, 0));
  add_into<<<(n + 255) / 256, 256, 0, s1>>>(y, t, n);
  CK(cudaMemcpyAsync(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
  CK(cudaLaunchHostFunc(s1, count_calls, &host_calls));
  cudaGraph_t graph;
  CK(cudaStreamEndCapture(s1, &graph));
  CK(cudaStreamIsCapturing(s1, &st));
  bool ended = st == cudaStreamCaptureStatusNone;
  report("capture status: active, joined by the forked stream, ended", active && joined && ended);
  size_t nodes = 0;
  CK(cudaGraphGetNodes(graph, nullptr, &nodes));
  report("nothing ran during capture", host_calls == 0 && nodes == 7);
  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, graph, 0));
  bool ok = true;
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < n; ++i) hx[i] = float(i % 97) * 0.5f + rep;
    CK(cudaGraphLaunch(exec, s1));
    CK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; ++i) ok &= hy[i] == (2.f * hx[i] + 1.f) + (3.f * hx[i] - 2.f);
  }
  report("captured graph launched 3 times with fresh input", ok && host_calls == 3);
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));

  // Built by hand: memset (A) -> kernel (B) -> memcpy 1D (C); an empty node (D) before B. Added
  // in the order C, A, D, B with the edges set afterwards.
  {
    int *p, *q;
    const int m = 1000;
    CK(cudaMalloc(&p, m * sizeof(int)));
    CK(cudaMalloc(&q, m * sizeof(int)));
    CK(cudaMemset(q, 0xff, m * sizeof(int)));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t a, b, c, d;
    CK(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, q, p, m * sizeof(int), cudaMemcpyDeviceToDevice));
    cudaMemsetParams ms = {};
    ms.dst = p;
    ms.value = 0x7;
    ms.elementSize = 4;
    ms.width = m;
    ms.height = 1;
    CK(cudaGraphAddMemsetNode(&a, g, nullptr, 0, &ms));
    CK(cudaGraphAddEmptyNode(&d, g, &a, 1));
    int count = m / 2, start = 100;
    void* args[] = {&p, &count, &start};
    cudaKernelNodeParams kp = {};
    kp.func = (void*)iota;
    kp.gridDim = dim3((m / 2 + 63) / 64);
    kp.blockDim = dim3(64);
    kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&b, g, &d, 1, &kp));
    start = -1;  // the node keeps the value it was given
    cudaGraphNode_t from[] = {b}, to[] = {c};
    CK(cudaGraphAddDependencies(g, from, to, nullptr, 1));
    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, g, 0));
    CK(cudaGraphLaunch(e, s2));
    CK(cudaStreamSynchronize(s2));
    std::vector<int> hq(m);
    CK(cudaMemcpy(hq.data(), q, m * sizeof(int), cudaMemcpyDeviceToHost));
    bool ok2 = true;
    for (int i = 0; i < m; ++i) ok2 &= hq[i] == (i < m / 2 ? 100 + i : 7);
    report("graph built node by node runs in dependency order", ok2);
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(p));
    CK(cudaFree(q));
  }
  std::printf("graphs: %s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
