// The CUDA graph API beyond capture and basic nodes, as programs that update graphs use it:
// cudaGraphAddMemcpyNode (3D parameters), child-graph and event-record nodes, node types and root
// nodes, cudaGraphKernelNodeGet/SetParams, cudaGraphExecKernelNodeSetParams, cudaGraphExecUpdate,
// cudaGraphClone / cudaGraphNodeFindInClone. Every result against a CPU reference.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  if (!ok) ++failures;
}
#define OK(x) ((x) == cudaSuccess)

__global__ void axpb(float* y, const float* x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
__global__ void scale(float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}

int main() {
  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) hx[i] = float(i % 37) - 10;
  float *dx, *dy;
  cudaMalloc(&dx, n * 4);
  cudaMalloc(&dy, n * 4);
  cudaStream_t s;
  cudaStreamCreate(&s);

  // Graph: memcpy (3D parms) H->D, kernel y = a*x + b, child graph (scale y), D->H memcpy, event.
  cudaGraph_t g, child;
  cudaGraphCreate(&g, 0);
  cudaGraphCreate(&child, 0);
  cudaGraphNode_t cp_in, kern, sub, cp_out, ev_node, child_k;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(hx.data(), n * 4, n, 1);
  p.dstPtr = make_cudaPitchedPtr(dx, n * 4, n, 1);
  p.extent = make_cudaExtent(n * 4, 1, 1);
  p.kind = cudaMemcpyHostToDevice;
  bool ok = OK(cudaGraphAddMemcpyNode(&cp_in, g, nullptr, 0, &p));
  float a = 2.0f, b = 1.0f;
  int nn = n;
  void* args[] = {&dy, &dx, &a, &b, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)axpb;
  kp.gridDim = dim3((n + 127) / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  ok &= OK(cudaGraphAddKernelNode(&kern, g, &cp_in, 1, &kp));
  float sc = 3.0f;
  void* cargs[] = {&dy, &sc, &nn};
  cudaKernelNodeParams ckp = kp;
  ckp.func = (void*)scale;
  ckp.kernelParams = cargs;
  ok &= OK(cudaGraphAddKernelNode(&child_k, child, nullptr, 0, &ckp));
  ok &= OK(cudaGraphAddChildGraphNode(&sub, g, &kern, 1, child));
  ok &= OK(cudaGraphAddMemcpyNode1D(&cp_out, g, &sub, 1, hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  cudaEvent_t ev;
  cudaEventCreate(&ev);
  ok &= OK(cudaGraphAddEventRecordNode(&ev_node, g, &cp_out, 1, ev));
  report("graph built (memcpy 3D, kernel, child graph, memcpy 1D, event record)", ok);

  cudaGraphNodeType t[5];
  cudaGraphNodeGetType(cp_in, &t[0]);
  cudaGraphNodeGetType(kern, &t[1]);
  cudaGraphNodeGetType(sub, &t[2]);
  cudaGraphNodeGetType(cp_out, &t[3]);
  cudaGraphNodeGetType(ev_node, &t[4]);
  report("cudaGraphNodeGetType", t[0] == cudaGraphNodeTypeMemcpy && t[1] == cudaGraphNodeTypeKernel &&
                                     t[2] == cudaGraphNodeTypeGraph && t[3] == cudaGraphNodeTypeMemcpy &&
                                     t[4] == cudaGraphNodeTypeEventRecord);
  size_t nroots = 0;
  cudaGraphNode_t roots[4];
  ok = OK(cudaGraphGetRootNodes(g, nullptr, &nroots)) && nroots == 1;
  nroots = 4;
  ok &= OK(cudaGraphGetRootNodes(g, roots, &nroots)) && nroots == 1 && roots[0] == cp_in;
  report("cudaGraphGetRootNodes", ok);

  cudaGraphExec_t ge;
  ok = OK(cudaGraphInstantiate(&ge, g, 0)) && OK(cudaGraphLaunch(ge, s)) && OK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) ok &= hy[i] == (2.0f * hx[i] + 1.0f) * 3.0f;
  ok &= cudaEventQuery(ev) == cudaSuccess;
  report("graph launch (child graph runs after its dependency)", ok);

  // Read back and change a kernel node's parameters in the graph.
  cudaKernelNodeParams got = {};
  ok = OK(cudaGraphKernelNodeGetParams(kern, &got)) && got.func == (void*)axpb && got.gridDim.x == kp.gridDim.x &&
       got.blockDim.x == 128 && *static_cast<float*>(got.kernelParams[2]) == 2.0f &&
       *static_cast<int*>(got.kernelParams[4]) == n;
  report("cudaGraphKernelNodeGetParams", ok);

  // In the executable graph only: y = 5x - 2.
  float a2 = 5.0f, b2 = -2.0f;
  void* args2[] = {&dy, &dx, &a2, &b2, &nn};
  cudaKernelNodeParams kp2 = kp;
  kp2.kernelParams = args2;
  ok = OK(cudaGraphExecKernelNodeSetParams(ge, kern, &kp2)) && OK(cudaGraphLaunch(ge, s)) && OK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) ok &= hy[i] == (5.0f * hx[i] - 2.0f) * 3.0f;
  report("cudaGraphExecKernelNodeSetParams", ok);

  // Clone, change the clone's kernel node (y = -x + 4), update the executable graph from it.
  cudaGraph_t g2;
  cudaGraphNode_t kern2;
  ok = OK(cudaGraphClone(&g2, g)) && OK(cudaGraphNodeFindInClone(&kern2, kern, g2)) && kern2 != kern;
  float a3 = -1.0f, b3 = 4.0f;
  void* args3[] = {&dy, &dx, &a3, &b3, &nn};
  cudaKernelNodeParams kp3 = kp;
  kp3.kernelParams = args3;
  ok &= OK(cudaGraphKernelNodeSetParams(kern2, &kp3));
  cudaGraphExecUpdateResultInfo info = {};
  ok &= OK(cudaGraphExecUpdate(ge, g2, &info)) && info.result == cudaGraphExecUpdateSuccess;
  ok &= OK(cudaGraphLaunch(ge, s)) && OK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) ok &= hy[i] == (-hx[i] + 4.0f) * 3.0f;
  report("cudaGraphClone + cudaGraphKernelNodeSetParams + cudaGraphExecUpdate", ok);

  // The original graph still has y = 2x + 1.
  cudaGraphExec_t ge2;
  ok = OK(cudaGraphInstantiate(&ge2, g, 0)) && OK(cudaGraphLaunch(ge2, s)) && OK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) ok &= hy[i] == (2.0f * hx[i] + 1.0f) * 3.0f;
  report("the original graph is unchanged by the clone's update", ok);

  // An update from a graph of another shape is refused.
  cudaGraph_t g3;
  cudaGraphCreate(&g3, 0);
  cudaGraphNode_t e3;
  cudaGraphAddEmptyNode(&e3, g3, nullptr, 0);
  info = {};
  cudaError_t e = cudaGraphExecUpdate(ge, g3, &info);
  ok = e == cudaErrorGraphExecUpdateFailure && info.result == cudaGraphExecUpdateErrorTopologyChanged;
  cudaGetLastError();
  report("cudaGraphExecUpdate refuses a changed topology", ok);

  cudaGraphExecDestroy(ge);
  cudaGraphExecDestroy(ge2);
  cudaGraphDestroy(g);
  cudaGraphDestroy(g2);
  cudaGraphDestroy(g3);
  cudaGraphDestroy(child);
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("cuda error: %s\n", cudaGetErrorString(e)); ++failures; }
  std::printf("graph_api: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
