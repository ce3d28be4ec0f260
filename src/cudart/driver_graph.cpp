// CUDA graphs and stream capture through the driver API (cuGraph*, cuStreamBeginCapture, ...), as
// the static runtime calls them for cudaGraph* and cudaStreamBeginCapture: each maps onto the
// runtime's graphs (api_graph.cpp), converting the driver's parameter structures where they differ
// (kernel nodes name a CUfunction or CUkernel, memcpy nodes take a CUDA_MEMCPY3D). Graph, node and
// executable handles are the runtime's objects. Lookups: driver_graph_entry (driver_api.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "cudart/abi.hpp"
#include "cudart/driver.hpp"

using namespace warpsim::cudart;

using abi::KernelNodeParams;

extern "C" {
abi::Error cudaStreamBeginCapture(abi::Stream stream, int mode);
abi::Error cudaStreamEndCapture(abi::Stream stream, void** graph);
abi::Error cudaStreamIsCapturing(abi::Stream stream, int* status);
abi::Error cudaStreamGetCaptureInfo(abi::Stream stream, int* status, unsigned long long* id, void** graph,
                                    const void** deps, const void** edges, size_t* ndeps);
abi::Error cudaGraphCreate(void** graph, unsigned int flags);
abi::Error cudaGraphDestroy(void* graph);
abi::Error cudaGraphAddKernelNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                  const KernelNodeParams* p);
abi::Error cudaGraphAddMemsetNode(void** node, void* graph, const void* const* deps, size_t ndeps, const void* p);
abi::Error cudaGraphAddHostNode(void** node, void* graph, const void* const* deps, size_t ndeps, const void* p);
abi::Error cudaGraphAddEmptyNode(void** node, void* graph, const void* const* deps, size_t ndeps);
abi::Error cudaGraphAddDependencies(void* graph, const void* const* from, const void* const* to, const void* edgeData,
                                    size_t n);
abi::Error cudaGraphGetNodes(void* graph, void** nodes, size_t* count);
abi::Error cudaGraphGetRootNodes(void* graph, void** roots, size_t* count);
abi::Error cudaGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long flags);
abi::Error cudaGraphExecDestroy(void* exec);
abi::Error cudaGraphLaunch(void* exec, abi::Stream stream);
abi::Error cudaGraphUpload(void* exec, abi::Stream stream);
abi::Error cudaGraphAddMemcpyNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                  const abi::Memcpy3DParms* p);
abi::Error cudaGraphAddChildGraphNode(void** node, void* graph, const void* const* deps, size_t ndeps, void* child);
abi::Error cudaGraphAddEventRecordNode(void** node, void* graph, const void* const* deps, size_t ndeps, void* event);
abi::Error cudaGraphAddEventWaitNode(void** node, void* graph, const void* const* deps, size_t ndeps, void* event);
abi::Error cudaGraphNodeGetType(void* node, int* type);
abi::Error cudaGraphKernelNodeGetParams(void* node, KernelNodeParams* p);
abi::Error cudaGraphKernelNodeSetParams(void* node, const KernelNodeParams* p);
abi::Error cudaGraphExecKernelNodeSetParams(void* exec, void* node, const KernelNodeParams* p);
abi::Error cudaGraphExecUpdate(void* exec, void* graph, void* info);
abi::Error cudaGraphClone(void** clone, void* graph);
abi::Error cudaGraphNodeFindInClone(void** found, void* original, void* clone);
}

namespace {

int cu(int e) { return cu_result(e); }

// CUDA_KERNEL_NODE_PARAMS (_v2: the CUkernel and context follow; our CUkernel is our CUfunction).
struct CuKernelNodeParams {
  void* func;
  unsigned grid[3], block[3], smem;
  void** kernelParams;
  void** extra;
  void* kern;
  void* ctx;
};
KernelNodeParams to_runtime(const CuKernelNodeParams& p) {
  return KernelNodeParams{p.func ? p.func : p.kern, {p.grid[0], p.grid[1], p.grid[2]},
                          {p.block[0], p.block[1], p.block[2]}, p.smem, p.kernelParams, p.extra};
}

int stream_begin_capture(void* st, int mode) { return cu(cudaStreamBeginCapture(st, mode)); }
int stream_end_capture(void* st, void** graph) { return cu(cudaStreamEndCapture(st, graph)); }
int stream_is_capturing(void* st, int* status) { return cu(cudaStreamIsCapturing(st, status)); }
int stream_capture_info2(void* st, int* status, unsigned long long* id, void** graph, const void** deps, size_t* n) {
  return cu(cudaStreamGetCaptureInfo(st, status, id, graph, deps, nullptr, n));
}
int stream_capture_info3(void* st, int* status, unsigned long long* id, void** graph, const void** deps,
                         const void** edges, size_t* n) {
  return cu(cudaStreamGetCaptureInfo(st, status, id, graph, deps, edges, n));
}
int graph_create(void** g, unsigned flags) { return cu(cudaGraphCreate(g, flags)); }
int graph_destroy(void* g) { return cu(cudaGraphDestroy(g)); }
int add_kernel_node(void** node, void* g, const void* const* deps, size_t n, const CuKernelNodeParams* p) {
  if (!p) return CuInvalidValue;
  const KernelNodeParams k = to_runtime(*p);
  return cu(cudaGraphAddKernelNode(node, g, deps, n, &k));
}
// The structure before CUDA 12 ends at `extra`: only the _v2 form may be written in full.
template <bool V2>
int kernel_node_get(void* node, CuKernelNodeParams* p) {
  if (!p) return CuInvalidValue;
  KernelNodeParams k{};
  if (int e = cudaGraphKernelNodeGetParams(node, &k)) return cu(e);
  const CuKernelNodeParams full{k.func, {k.gridDim.x, k.gridDim.y, k.gridDim.z},
                                {k.blockDim.x, k.blockDim.y, k.blockDim.z}, k.sharedMemBytes, k.kernelParams, k.extra,
                                k.func, nullptr};
  std::memcpy(p, &full, V2 ? sizeof full : offsetof(CuKernelNodeParams, kern));
  return CuSuccess;
}
int kernel_node_set(void* node, const CuKernelNodeParams* p) {
  if (!p) return CuInvalidValue;
  const KernelNodeParams k = to_runtime(*p);
  return cu(cudaGraphKernelNodeSetParams(node, &k));
}
int exec_kernel_node_set(void* exec, void* node, const CuKernelNodeParams* p) {
  if (!p) return CuInvalidValue;
  const KernelNodeParams k = to_runtime(*p);
  return cu(cudaGraphExecKernelNodeSetParams(exec, node, &k));
}

int add_memcpy_node(void** node, void* g, const void* const* deps, size_t n, const CuMemcpy3D* c, void*) {
  if (!c) return CuInvalidValue;
  abi::Memcpy3DParms p{};
  if (int e = memcpy3d_params(*c, p)) return e;
  return cu(cudaGraphAddMemcpyNode(node, g, deps, n, &p));
}
// CUDA_MEMSET_NODE_PARAMS and CUDA_HOST_NODE_PARAMS are laid out as the runtime's.
int add_memset_node(void** node, void* g, const void* const* deps, size_t n, const void* p, void*) {
  return cu(cudaGraphAddMemsetNode(node, g, deps, n, p));
}
int add_host_node(void** node, void* g, const void* const* deps, size_t n, const void* p) {
  return cu(cudaGraphAddHostNode(node, g, deps, n, p));
}
int add_empty_node(void** node, void* g, const void* const* deps, size_t n) {
  return cu(cudaGraphAddEmptyNode(node, g, deps, n));
}
int add_dependencies1(void* g, const void* const* from, const void* const* to, size_t n) {
  return cu(cudaGraphAddDependencies(g, from, to, nullptr, n));
}
int add_dependencies2(void* g, const void* const* from, const void* const* to, const void* edges, size_t n) {
  return cu(cudaGraphAddDependencies(g, from, to, edges, n));
}
int get_nodes(void* g, void** nodes, size_t* n) { return cu(cudaGraphGetNodes(g, nodes, n)); }
int get_root_nodes(void* g, void** nodes, size_t* n) { return cu(cudaGraphGetRootNodes(g, nodes, n)); }
int instantiate(void** exec, void* g, unsigned long long flags) {
  return cu(cudaGraphInstantiateWithFlags(exec, g, flags));
}
// cuGraphInstantiate before CUDA 12 (and _v2): error node and log buffer instead of flags.
int instantiate_log(void** exec, void* g, void** error_node, char* log, size_t log_size) {
  if (error_node) *error_node = nullptr;
  if (log && log_size) log[0] = 0;
  return instantiate(exec, g, 0);
}
int exec_destroy(void* exec) { return cu(cudaGraphExecDestroy(exec)); }
int graph_launch(void* exec, void* st) { return cu(cudaGraphLaunch(exec, st)); }
int graph_upload(void* exec, void* st) { return cu(cudaGraphUpload(exec, st)); }
int add_child_node(void** node, void* g, const void* const* deps, size_t n, void* child) {
  return cu(cudaGraphAddChildGraphNode(node, g, deps, n, child));
}
int add_event_record_node(void** node, void* g, const void* const* deps, size_t n, void* ev) {
  return cu(cudaGraphAddEventRecordNode(node, g, deps, n, ev));
}
int add_event_wait_node(void** node, void* g, const void* const* deps, size_t n, void* ev) {
  return cu(cudaGraphAddEventWaitNode(node, g, deps, n, ev));
}
int node_get_type(void* node, int* type) { return cu(cudaGraphNodeGetType(node, type)); }
// CUgraphExecUpdateResultInfo (_v2) is laid out as cudaGraphExecUpdateResultInfo.
int exec_update(void* exec, void* g, void* info) { return cu(cudaGraphExecUpdate(exec, g, info)); }
// cuGraphExecUpdate before CUDA 12: the error node and the result apart.
int exec_update1(void* exec, void* g, void** error_node, int* result) {
  struct {
    int result;
    void* error_node;
    void* error_from;
  } info{};
  const int e = cu(cudaGraphExecUpdate(exec, g, &info));
  if (error_node) *error_node = info.error_node;
  if (result) *result = info.result;
  return e;
}
int graph_clone(void** clone, void* g) { return cu(cudaGraphClone(clone, g)); }
int find_in_clone(void** found, void* orig, void* clone) { return cu(cudaGraphNodeFindInClone(found, orig, clone)); }

}  // namespace

namespace warpsim::cudart {

void* driver_graph_entry(const std::string& base, const char* name, int version) {
  auto is = [&](const char* n) { return base == n; };
  auto fn = [](auto f) { return reinterpret_cast<void*>(f); };
  const bool v2 = std::strstr(name, "_v2") != nullptr;
  if (is("cuStreamBeginCapture")) return fn(&stream_begin_capture);
  if (is("cuStreamEndCapture")) return fn(&stream_end_capture);
  if (is("cuStreamIsCapturing")) return fn(&stream_is_capturing);
  if (is("cuStreamGetCaptureInfo"))
    return std::strstr(name, "_v3") || version >= 12030 ? fn(&stream_capture_info3) : fn(&stream_capture_info2);
  if (is("cuGraphCreate")) return fn(&graph_create);
  if (is("cuGraphDestroy")) return fn(&graph_destroy);
  if (is("cuGraphAddKernelNode")) return fn(&add_kernel_node);
  const bool cuda12 = v2 || version >= 12000;
  if (is("cuGraphKernelNodeGetParams")) return cuda12 ? fn(&kernel_node_get<true>) : fn(&kernel_node_get<false>);
  if (is("cuGraphKernelNodeSetParams")) return fn(&kernel_node_set);
  if (is("cuGraphExecKernelNodeSetParams")) return fn(&exec_kernel_node_set);
  if (is("cuGraphAddMemcpyNode")) return fn(&add_memcpy_node);
  if (is("cuGraphAddMemsetNode")) return fn(&add_memset_node);
  if (is("cuGraphAddHostNode")) return fn(&add_host_node);
  if (is("cuGraphAddEmptyNode")) return fn(&add_empty_node);
  if (is("cuGraphAddDependencies"))
    return v2 || version >= 12030 ? fn(&add_dependencies2) : fn(&add_dependencies1);
  if (is("cuGraphGetNodes")) return fn(&get_nodes);
  if (is("cuGraphGetRootNodes")) return fn(&get_root_nodes);
  if (is("cuGraphInstantiateWithFlags")) return fn(&instantiate);
  if (is("cuGraphInstantiate")) return !v2 && version >= 12000 ? fn(&instantiate) : fn(&instantiate_log);
  if (is("cuGraphExecDestroy")) return fn(&exec_destroy);
  if (is("cuGraphLaunch")) return fn(&graph_launch);
  if (is("cuGraphUpload")) return fn(&graph_upload);
  if (is("cuGraphAddChildGraphNode")) return fn(&add_child_node);
  if (is("cuGraphAddEventRecordNode")) return fn(&add_event_record_node);
  if (is("cuGraphAddEventWaitNode")) return fn(&add_event_wait_node);
  if (is("cuGraphNodeGetType")) return fn(&node_get_type);
  if (is("cuGraphExecUpdate")) return cuda12 ? fn(&exec_update) : fn(&exec_update1);
  if (is("cuGraphClone")) return fn(&graph_clone);
  if (is("cuGraphNodeFindInClone")) return fn(&find_in_clone);
  return nullptr;
}

}  // namespace warpsim::cudart
