// The CUDA graph API of CUDA 12/13 beyond graph_api.cu: conditional nodes (if / if-else / while /
// switch, the condition set by cudaGraphSetConditional in a kernel, default values at launch),
// memory allocation and free nodes (by hand and from cudaMallocAsync / cudaFreeAsync in capture),
// the generic cudaGraphAddNode / cudaGraphNodeSetParams / cudaGraphExecNodeSetParams, edge queries,
// node removal, parameters read back and changed (memcpy, memset, host, event, kernel attributes),
// disabled nodes, capture into an existing graph, capture info and dependency updates, user
// objects, instantiate-with-params, and a DOT dump. Every result is checked against a CPU
// reference; one PASS/FAIL line per check, nothing that depends on the GPU.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  if (!ok) ++failures;
}
#define OK(x) ((x) == cudaSuccess)

__global__ void add_one(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
__global__ void times(int* x, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= k;
}
// Sets the condition to (*counter < limit) and counts: a while loop that runs `limit` times.
__global__ void loop_step(cudaGraphConditionalHandle h, int* counter, int limit) {
  if (threadIdx.x == 0) {
    int c = ++*counter;
    cudaGraphSetConditional(h, c < limit ? 1 : 0);
  }
}
__global__ void set_cond(cudaGraphConditionalHandle h, const int* v) {
  if (threadIdx.x == 0) cudaGraphSetConditional(h, unsigned(*v));
}
__global__ void fill(int* x, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
__global__ void copy_k(int* dst, const int* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

static void host_count(void* p) { ++*static_cast<int*>(p); }
static int destroyed = 0;
static void on_destroy(void* p) { destroyed += *static_cast<int*>(p); }

static int read_int(const int* d) {
  int v = -1;
  cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost);
  return v;
}

// Adds a kernel node through the generic cudaGraphAddNode.
static cudaError_t add_kernel(cudaGraphNode_t* node, cudaGraph_t g, const cudaGraphNode_t* deps, size_t n,
                              const void* func, int threads, void** args) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = const_cast<void*>(func);
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(threads);
  p.kernel.kernelParams = args;
  return cudaGraphAddNode(node, g, deps, nullptr, n, &p);
}

static void conditional_while(cudaStream_t s) {
  int* counter;
  cudaMalloc(&counter, 4);
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphConditionalHandle h;
  bool ok = OK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams cp = {};
  cp.type = cudaGraphNodeTypeConditional;
  cp.conditional.handle = h;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  cudaGraphNode_t cnode, body_k;
  ok = ok && OK(cudaGraphAddNode(&cnode, g, nullptr, nullptr, 0, &cp));
  cudaGraph_t body = cp.conditional.phGraph_out[0];
  int limit = 7;
  void* args[] = {&h, &counter, &limit};
  ok = ok && OK(add_kernel(&body_k, body, nullptr, 0, (const void*)loop_step, 32, args));
  cudaGraphExec_t x;
  ok = ok && OK(cudaGraphInstantiate(&x, g, 0));
  cudaMemset(counter, 0, 4);
  ok = ok && OK(cudaGraphLaunch(x, s)) && OK(cudaStreamSynchronize(s));
  const int first = read_int(counter);
  // The default (1) is assigned again at the next launch: the loop runs while counter < 7 again,
  // one more time since the counter is already 7.
  ok = ok && OK(cudaGraphLaunch(x, s)) && OK(cudaStreamSynchronize(s));
  const int second = read_int(counter);
  report("while node runs its body until the kernel clears the condition (7 iterations)", ok && first == 7);
  report("while node: default value assigned at every launch (one more iteration)", second == 8);
  int type = -1;
  cudaGraphNodeGetType(cnode, (cudaGraphNodeType*)&type);
  report("conditional node type", type == cudaGraphNodeTypeConditional);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaFree(counter);
}

static void conditional_if_switch(cudaStream_t s) {
  const int n = 64;
  int *x, *sel;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&sel, 4);
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphConditionalHandle hif, hsw;
  // No cudaGraphCondAssignDefault: the value a kernel sets stays from launch to launch.
  bool ok = OK(cudaGraphConditionalHandleCreate(&hif, g, 0, 0)) && OK(cudaGraphConditionalHandleCreate(&hsw, g, 0, 0));
  cudaGraphNode_t k_if, k_sw, n_if, n_sw;
  void* a_if[] = {&hif, &sel};
  void* a_sw[] = {&hsw, &sel};
  ok = ok && OK(add_kernel(&k_if, g, nullptr, 0, (const void*)set_cond, 32, a_if));
  ok = ok && OK(add_kernel(&k_sw, g, &k_if, 1, (const void*)set_cond, 32, a_sw));
  // if / else: body 0 adds one, body 1 multiplies by 3.
  cudaGraphNodeParams ip = {};
  ip.type = cudaGraphNodeTypeConditional;
  ip.conditional.handle = hif;
  ip.conditional.type = cudaGraphCondTypeIf;
  ip.conditional.size = 2;
  ok = ok && OK(cudaGraphAddNode(&n_if, g, &k_sw, nullptr, 1, &ip));
  int nn = n, three = 3;
  void* a_add[] = {&x, &nn};
  void* a_mul[] = {&x, &three, &nn};
  cudaGraphNode_t t0, t1;
  ok = ok && OK(add_kernel(&t0, ip.conditional.phGraph_out[0], nullptr, 0, (const void*)add_one, n, a_add));
  ok = ok && OK(add_kernel(&t1, ip.conditional.phGraph_out[1], nullptr, 0, (const void*)times, n, a_mul));
  // switch with 3 bodies: body k fills with 100 + k; values >= 3 run nothing.
  cudaGraphNodeParams sp = {};
  sp.type = cudaGraphNodeTypeConditional;
  sp.conditional.handle = hsw;
  sp.conditional.type = cudaGraphCondTypeSwitch;
  sp.conditional.size = 3;
  ok = ok && OK(cudaGraphAddNode(&n_sw, g, &n_if, nullptr, 1, &sp));
  static int vals[3] = {100, 101, 102};
  for (int k = 0; k < 3; ++k) {
    cudaGraphNode_t f;
    void* a_fill[] = {&x, &vals[k], &nn};
    ok = ok && OK(add_kernel(&f, sp.conditional.phGraph_out[k], nullptr, 0, (const void*)fill, n, a_fill));
  }
  cudaGraphExec_t ex;
  ok = ok && OK(cudaGraphInstantiate(&ex, g, 0));
  std::vector<int> h(n);
  bool all = ok;
  for (int v : {0, 1, 2, 5}) {
    std::vector<int> init(n);
    for (int i = 0; i < n; ++i) init[i] = i;
    cudaMemcpy(x, init.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(sel, &v, 4, cudaMemcpyHostToDevice);
    all = all && OK(cudaGraphLaunch(ex, s)) && OK(cudaStreamSynchronize(s));
    cudaMemcpy(h.data(), x, n * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
      int e = v ? i + 1 : i * 3;   // if / else
      if (v < 3) e = 100 + v;      // switch
      all = all && h[i] == e;
    }
  }
  report("if/else and switch nodes follow the values kernels set (0, 1, 2, 5)", all);
  cudaGraphExecDestroy(ex);
  cudaGraphDestroy(g);
  cudaFree(x);
  cudaFree(sel);
}

static void memory_nodes(cudaStream_t s) {
  const int n = 256;
  int* out;
  cudaMalloc(&out, n * 4);
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = n * 4;
  cudaGraphNode_t an, fk, ck, fn;
  bool ok = OK(cudaGraphAddMemAllocNode(&an, g, nullptr, 0, &ap)) && ap.dptr != nullptr;
  int* tmp = static_cast<int*>(ap.dptr);
  int nn = n, v = 42;
  void* a_fill[] = {&tmp, &v, &nn};
  void* a_copy[] = {&out, &tmp, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)fill;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(n);
  kp.kernelParams = a_fill;
  ok = ok && OK(cudaGraphAddKernelNode(&fk, g, &an, 1, &kp));
  kp.func = (void*)copy_k;
  kp.kernelParams = a_copy;
  ok = ok && OK(cudaGraphAddKernelNode(&ck, g, &fk, 1, &kp));
  ok = ok && OK(cudaGraphAddMemFreeNode(&fn, g, &ck, 1, tmp));
  cudaMemAllocNodeParams back = {};
  void* freed = nullptr;
  ok = ok && OK(cudaGraphMemAllocNodeGetParams(an, &back)) && back.dptr == tmp && back.bytesize == size_t(n) * 4;
  ok = ok && OK(cudaGraphMemFreeNodeGetParams(fn, &freed)) && freed == tmp;
  cudaGraphExec_t ex;
  ok = ok && OK(cudaGraphInstantiate(&ex, g, 0));
  cudaMemset(out, 0, n * 4);
  ok = ok && OK(cudaGraphLaunch(ex, s)) && OK(cudaStreamSynchronize(s));
  std::vector<int> h(n);
  cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost);
  bool vals = true;
  for (int x : h) vals = vals && x == 42;
  report("allocation node, kernels on its memory, free node", ok && vals);
  unsigned long long used = 0;
  ok = OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &used));
  report("graph memory high-water mark covers the allocation", ok && used >= size_t(n) * 4);
  // A free node may only name memory an allocation node made.
  cudaGraphNode_t bad;
  report("free node of ordinary memory is refused", cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, out) == cudaErrorInvalidValue);
  cudaGetLastError();
  cudaGraphExecDestroy(ex);
  cudaGraphDestroy(g);
  cudaDeviceGraphMemTrim(0);

  // cudaMallocAsync / cudaFreeAsync in a capture become allocation and free nodes.
  cudaGraph_t cg;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  int* t2 = nullptr;
  ok = OK(cudaMallocAsync((void**)&t2, n * 4, s));
  fill<<<1, n, 0, s>>>(t2, 7, n);
  copy_k<<<1, n, 0, s>>>(out, t2, n);
  ok = ok && OK(cudaFreeAsync(t2, s));
  ok = ok && OK(cudaStreamEndCapture(s, &cg));
  size_t count = 0;
  cudaGraphGetNodes(cg, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  cudaGraphGetNodes(cg, nodes.data(), &count);
  std::vector<int> types;
  for (auto nd : nodes) {
    cudaGraphNodeType t;
    cudaGraphNodeGetType(nd, &t);
    types.push_back(int(t));
  }
  const bool shape = count == 4 && types[0] == cudaGraphNodeTypeMemAlloc && types[1] == cudaGraphNodeTypeKernel &&
                     types[2] == cudaGraphNodeTypeKernel && types[3] == cudaGraphNodeTypeMemFree;
  cudaGraphExec_t cx;
  ok = ok && OK(cudaGraphInstantiate(&cx, cg, 0)) && OK(cudaGraphLaunch(cx, s)) && OK(cudaStreamSynchronize(s));
  cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost);
  vals = true;
  for (int x : h) vals = vals && x == 7;
  report("captured cudaMallocAsync/cudaFreeAsync: alloc, kernel, kernel, free nodes", ok && shape && vals);
  cudaGraphExecDestroy(cx);
  cudaGraphDestroy(cg);
  cudaFree(out);
}

static void structure(cudaStream_t s) {
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t a, b, c, d;
  cudaGraphAddEmptyNode(&a, g, nullptr, 0);
  cudaGraphAddEmptyNode(&b, g, &a, 1);
  cudaGraphAddEmptyNode(&c, g, &a, 1);
  cudaGraphNode_t bc[] = {b, c};
  cudaGraphAddEmptyNode(&d, g, bc, 2);
  size_t ne = 0;
  bool ok = OK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &ne)) && ne == 4;
  std::vector<cudaGraphNode_t> from(ne), to(ne);
  ok = ok && OK(cudaGraphGetEdges(g, from.data(), to.data(), nullptr, &ne));
  int found = 0;
  for (size_t i = 0; i < ne; ++i)
    found += (from[i] == a && to[i] == b) + (from[i] == a && to[i] == c) + (from[i] == b && to[i] == d) +
             (from[i] == c && to[i] == d);
  report("cudaGraphGetEdges lists the four edges", ok && found == 4);
  size_t nd = 0, nt = 0;
  cudaGraphNodeGetDependencies(d, nullptr, nullptr, &nd);
  cudaGraphNodeGetDependentNodes(a, nullptr, nullptr, &nt);
  report("dependencies of d (2) and dependents of a (2)", nd == 2 && nt == 2);
  ok = OK(cudaGraphRemoveDependencies(g, &b, &d, nullptr, 1));
  cudaGraphNodeGetDependencies(d, nullptr, nullptr, &nd);
  report("cudaGraphRemoveDependencies removes b -> d", ok && nd == 1);
  report("removing an edge that does not exist is refused",
         cudaGraphRemoveDependencies(g, &b, &d, nullptr, 1) == cudaErrorInvalidValue);
  cudaGetLastError();
  ok = OK(cudaGraphDestroyNode(c));
  size_t nn = 0, nr = 0;
  cudaGraphGetNodes(g, nullptr, &nn);
  cudaGraphGetRootNodes(g, nullptr, &nr);
  cudaGraphNodeGetDependencies(d, nullptr, nullptr, &nd);
  // a -> b, d alone: roots a and d.
  report("cudaGraphDestroyNode takes the node and its edges", ok && nn == 3 && nr == 2 && nd == 0);
  // A cycle cannot be instantiated.
  cudaGraphAddDependencies(g, &b, &a, nullptr, 1);
  cudaGraphExec_t x;
  report("a graph with a cycle is not instantiated", cudaGraphInstantiate(&x, g, 0) != cudaSuccess);
  cudaGetLastError();
  cudaGraphDestroy(g);
  (void)s;
}

static void params(cudaStream_t s) {
  const int n = 128;
  int *d, *d2;
  cudaMalloc(&d, n * 4);
  cudaMalloc(&d2, n * 4);
  std::vector<int> h(n), src(n), src2(n);
  for (int i = 0; i < n; ++i) src[i] = i, src2[i] = 1000 - i;
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t cp, ms, hn, kn, ev;
  bool ok = OK(cudaGraphAddMemcpyNode1D(&cp, g, nullptr, 0, d, src.data(), n * 4, cudaMemcpyHostToDevice));
  cudaMemcpy3DParms p3 = {};
  ok = ok && OK(cudaGraphMemcpyNodeGetParams(cp, &p3));
  report("1D memcpy node reads back as 3D parameters",
         ok && p3.dstPtr.ptr == d && p3.srcPtr.ptr == src.data() && p3.extent.width == size_t(n) * 4 &&
             p3.extent.height == 1 && p3.kind == cudaMemcpyHostToDevice);
  cudaMemsetParams mp = {};
  mp.dst = d2;
  mp.value = 5;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  ok = OK(cudaGraphAddMemsetNode(&ms, g, &cp, 1, &mp));
  mp.value = 9;
  ok = ok && OK(cudaGraphMemsetNodeSetParams(ms, &mp));
  cudaMemsetParams mb = {};
  ok = ok && OK(cudaGraphMemsetNodeGetParams(ms, &mb)) && mb.value == 9 && mb.dst == d2;
  report("memset node parameters changed and read back", ok);
  static int counter = 0, counter2 = 0;
  cudaHostNodeParams hp = {host_count, &counter};
  ok = OK(cudaGraphAddHostNode(&hn, g, &ms, 1, &hp));
  cudaHostNodeParams hb = {};
  ok = ok && OK(cudaGraphHostNodeGetParams(hn, &hb)) && hb.fn == host_count && hb.userData == &counter;
  report("host node parameters read back", ok);
  int nn = n, k = 2;
  void* ka[] = {&d, &k, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)times;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(n);
  kp.kernelParams = ka;
  ok = OK(cudaGraphAddKernelNode(&kn, g, &hn, 1, &kp));
  for (int prio : {-2, 3}) {
    cudaLaunchAttributeValue av = {}, ab = {};
    av.priority = prio;
    const int rs = cudaGraphKernelNodeSetAttribute(kn, cudaLaunchAttributePriority, &av);
    const int rg = cudaGraphKernelNodeGetAttribute(kn, cudaLaunchAttributePriority, &ab);
    std::printf("kernel node priority %d: set -> %d, get -> %d, reads %d\n", prio, rs, rg, ab.priority);
  }
  cudaGetLastError();
  cudaEvent_t e1, e2;
  cudaEventCreate(&e1);
  cudaEventCreate(&e2);
  ok = OK(cudaGraphAddEventRecordNode(&ev, g, &kn, 1, e1));
  ok = ok && OK(cudaGraphEventRecordNodeSetEvent(ev, e2));
  cudaEvent_t eb = nullptr;
  ok = ok && OK(cudaGraphEventRecordNodeGetEvent(ev, &eb)) && eb == e2;
  report("event record node's event changed and read back", ok);

  cudaGraphExec_t x;
  ok = OK(cudaGraphInstantiate(&x, g, 0)) && OK(cudaGraphLaunch(x, s)) && OK(cudaStreamSynchronize(s));
  cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost);
  bool v1 = true;
  for (int i = 0; i < n; ++i) v1 = v1 && h[i] == 2 * i;
  cudaMemcpy(h.data(), d2, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) v1 = v1 && h[i] == 9;
  report("graph runs: copy, memset 9, host node, kernel x2", ok && v1 && counter == 1);

  // Executable-graph updates leave the graph as it was.
  ok = OK(cudaGraphExecMemcpyNodeSetParams1D(x, cp, d, src2.data(), n * 4, cudaMemcpyHostToDevice));
  mp.value = 11;
  ok = ok && OK(cudaGraphExecMemsetNodeSetParams(x, ms, &mp));
  cudaHostNodeParams hp2 = {host_count, &counter2};
  ok = ok && OK(cudaGraphExecHostNodeSetParams(x, hn, &hp2));
  cudaGraphNodeParams gp = {};
  gp.type = cudaGraphNodeTypeKernel;
  int k3 = 3;
  void* ka3[] = {&d, &k3, &nn};
  gp.kernel.func = (void*)times;
  gp.kernel.gridDim = dim3(1);
  gp.kernel.blockDim = dim3(n);
  gp.kernel.kernelParams = ka3;
  ok = ok && OK(cudaGraphExecNodeSetParams(x, kn, &gp));
  ok = ok && OK(cudaGraphLaunch(x, s)) && OK(cudaStreamSynchronize(s));
  cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost);
  bool v2 = true;
  for (int i = 0; i < n; ++i) v2 = v2 && h[i] == 3 * (1000 - i);
  cudaMemcpy(h.data(), d2, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) v2 = v2 && h[i] == 11;
  report("executable graph updated: new copy source, memset 11, other host data, kernel x3",
         ok && v2 && counter == 1 && counter2 == 1);
  ok = OK(cudaGraphMemsetNodeGetParams(ms, &mb)) && mb.value == 9;
  report("the graph keeps its own parameters", ok);

  // Disabled nodes do nothing.
  unsigned en = 7;
  ok = OK(cudaGraphNodeSetEnabled(x, kn, 0)) && OK(cudaGraphNodeGetEnabled(x, kn, &en)) && en == 0;
  ok = ok && OK(cudaGraphLaunch(x, s)) && OK(cudaStreamSynchronize(s));
  cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost);
  bool v3 = true;
  for (int i = 0; i < n; ++i) v3 = v3 && h[i] == 1000 - i;
  report("a disabled kernel node does not run", ok && v3);
  report("host nodes cannot be disabled", cudaGraphNodeSetEnabled(x, hn, 0) == cudaErrorInvalidValue);
  cudaGetLastError();
  cudaGraphExecDestroy(x);

  // Instantiate with parameters; flags read back.
  cudaGraphInstantiateParams ip = {};
  ip.flags = cudaGraphInstantiateFlagAutoFreeOnLaunch;
  unsigned long long fl = 0;
  ok = OK(cudaGraphInstantiateWithParams(&x, g, &ip)) && ip.result_out == cudaGraphInstantiateSuccess;
  ok = ok && OK(cudaGraphExecGetFlags(x, &fl)) && fl == cudaGraphInstantiateFlagAutoFreeOnLaunch;
  report("cudaGraphInstantiateWithParams and cudaGraphExecGetFlags", ok);
  cudaGraphExecDestroy(x);

  // A DOT file names the kernel.
  const char* path = "graph_nodes_test.dot";
  ok = OK(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
  FILE* f = std::fopen(path, "r");
  std::string dot;
  if (f) {
    char buf[4096];
    size_t r;
    while ((r = std::fread(buf, 1, sizeof buf, f)) > 0) dot.append(buf, r);
    std::fclose(f);
    std::remove(path);
  }
  report("cudaGraphDebugDotPrint writes a digraph naming the kernel",
         ok && dot.find("digraph") != std::string::npos && dot.find("timesPiii") != std::string::npos);
  cudaGraphDestroy(g);
  cudaEventDestroy(e1);
  cudaEventDestroy(e2);
  cudaFree(d);
  cudaFree(d2);
}

static void capture_and_user_objects(cudaStream_t s) {
  const int n = 32;
  int* d;
  cudaMalloc(&d, n * 4);
  // Capture into an existing graph after one of its nodes.
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t first;
  int nn = n, v = 5;
  void* fa[] = {&d, &v, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)fill;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(n);
  kp.kernelParams = fa;
  bool ok = OK(cudaGraphAddKernelNode(&first, g, nullptr, 0, &kp));
  ok = ok && OK(cudaStreamBeginCaptureToGraph(s, g, &first, nullptr, 1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st;
  cudaGraph_t cg = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  size_t nd = 0;
  ok = ok && OK(cudaStreamGetCaptureInfo(s, &st, nullptr, &cg, &deps, nullptr, &nd));
  report("capture info: active, into the given graph, after its node",
         ok && st == cudaStreamCaptureStatusActive && cg == g && nd == 1 && deps[0] == first);
  add_one<<<1, n, 0, s>>>(d, n);
  ok = OK(cudaStreamGetCaptureInfo(s, &st, nullptr, &cg, &deps, nullptr, &nd)) && nd == 1;
  cudaGraphNode_t kernel_node = ok ? deps[0] : nullptr;
  // A node added by hand after the captured kernel, made the stream's dependency.
  cudaGraphNode_t extra;
  int three = 3;
  void* ta[] = {&d, &three, &nn};
  kp.func = (void*)times;
  kp.kernelParams = ta;
  ok = ok && OK(cudaGraphAddKernelNode(&extra, g, &kernel_node, 1, &kp));
  ok = ok && OK(cudaStreamUpdateCaptureDependencies(s, &extra, nullptr, 1, cudaStreamSetCaptureDependencies));
  add_one<<<1, n, 0, s>>>(d, n);
  cudaGraph_t out = nullptr;
  ok = ok && OK(cudaStreamEndCapture(s, &out)) && out == g;
  size_t count = 0, ne = 0;
  cudaGraphGetNodes(g, nullptr, &count);
  cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &ne);
  cudaGraphExec_t x;
  ok = ok && OK(cudaGraphInstantiate(&x, g, 0)) && OK(cudaGraphLaunch(x, s)) && OK(cudaStreamSynchronize(s));
  std::vector<int> h(n);
  cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost);
  bool vals = true;
  for (int y : h) vals = vals && y == (5 + 1) * 3 + 1;
  report("capture into a graph with updated dependencies: a chain of 4 kernels", ok && count == 4 && ne == 3 && vals);
  cudaGraphExecDestroy(x);

  // User objects: destroyed when the last reference (the program's, the graph's) goes.
  static int payload = 10;
  cudaUserObject_t uo;
  ok = OK(cudaUserObjectCreate(&uo, &payload, on_destroy, 1, cudaUserObjectNoDestructorSync));
  ok = ok && OK(cudaGraphRetainUserObject(g, uo, 1, cudaGraphUserObjectMove));
  cudaGraph_t clone;
  ok = ok && OK(cudaGraphClone(&clone, g));
  cudaGraphDestroy(g);
  cudaDeviceSynchronize();
  const int after_first = destroyed;
  cudaGraphDestroy(clone);
  // The runtime may call the destructor on a thread of its own (cudaUserObjectNoDestructorSync).
  for (int i = 0; i < 100 && destroyed != 10; ++i) {
    cudaDeviceSynchronize();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  report("user object kept while a clone of its graph holds it", ok && after_first == 0);
  report("user object destroyed with the last graph holding it", destroyed == 10);
  cudaFree(d);
}

int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  conditional_while(s);
  conditional_if_switch(s);
  memory_nodes(s);
  structure(s);
  params(s);
  capture_and_user_objects(s);
  cudaStreamDestroy(s);
  std::printf("%s\n", failures ? "FAILED" : "ALL PASSED");
  return failures ? 1 : 0;
}
