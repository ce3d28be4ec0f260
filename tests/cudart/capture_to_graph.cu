// Stream capture into an existing graph (cudaStreamBeginCaptureToGraph) ended without asking for the
// graph back (cudaStreamEndCapture(stream, NULL)), as CUDA 12.4+ programs fill conditional-node bodies;
// the captured work then runs as part of the graph (CPU reference). A capture that made a new graph
// ended with NULL (the H100 ends it and succeeds), and the capture state afterwards. Expected output
// as our H100 printed it (validation/driver/h100_capture_to_graph.out, sm_90 build, static and
// shared runtime alike). Found by cuda-samples' graphConditionalNodes.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                          \
  do {                                                                    \
    cudaError_t e_ = (x);                                                 \
    if (e_ != cudaSuccess) {                                              \
      std::printf("FAIL %s -> %d at line %d\n", #x, int(e_), __LINE__);   \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)

__global__ void scale_add(int* p, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * mul + add;
}

static const char* status_name(cudaStreamCaptureStatus s) {
  return s == cudaStreamCaptureStatusNone ? "none" : s == cudaStreamCaptureStatusActive ? "active" : "invalidated";
}

int main() {
  const int n = 1000;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  std::vector<int> h(n), ref(n);
  for (int i = 0; i < n; ++i) h[i] = ref[i] = i * 7 - 300;

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // A graph with one node made by hand, then two kernels captured after it into the same graph.
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t copy;
  CHECK(cudaGraphAddMemcpyNode1D(&copy, g, nullptr, 0, d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaStreamBeginCaptureToGraph(s, g, &copy, nullptr, 1, cudaStreamCaptureModeGlobal));
  scale_add<<<(n + 127) / 128, 128, 0, s>>>(d, n, 3, 1);
  scale_add<<<(n + 255) / 256, 256, 0, s>>>(d, n, -2, 5);
  cudaError_t e = cudaStreamEndCapture(s, nullptr);
  std::printf("end of a capture into an existing graph, no graph asked back: %d\n", int(e));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s, &st));
  std::printf("stream capture status afterwards: %s\n", status_name(st));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  std::printf("nodes in the graph: %zu\n", nodes);

  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    ref[i] = (ref[i] * 3 + 1) * -2 + 5;
    bad += out[i] != ref[i];
  }
  std::printf("graph with the captured kernels: %s (%d wrong)\n", bad ? "FAIL" : "PASS", bad);

  // The same capture ended with a graph handle, for comparison.
  cudaGraph_t g2, back = nullptr;
  CHECK(cudaGraphCreate(&g2, 0));
  CHECK(cudaStreamBeginCaptureToGraph(s, g2, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  scale_add<<<1, 32, 0, s>>>(d, 32, 1, 0);
  CHECK(cudaStreamEndCapture(s, &back));
  std::printf("graph handed back is the one captured into: %s\n", back == g2 ? "yes" : "no");

  // A capture that made a new graph, ended without a place to put it.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  scale_add<<<1, 32, 0, s>>>(d, 32, 1, 0);
  e = cudaStreamEndCapture(s, nullptr);
  std::printf("end of a capture into a new graph, no graph asked back: %d\n", int(e));
  CHECK(cudaStreamIsCapturing(s, &st));
  std::printf("stream capture status afterwards: %s\n", status_name(st));
  if (st != cudaStreamCaptureStatusNone) {
    cudaGraph_t g3;
    CHECK(cudaStreamEndCapture(s, &g3));
    CHECK(cudaGraphDestroy(g3));
  }
  (void)cudaGetLastError();

  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(g2));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d));
  std::printf("done\n");
  return 0;
}
