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
abi::Error cudaGraphConditionalHandleCreate(unsigned long long* handle, void* graph, unsigned dflt, unsigned flags);
abi::Error cudaGraphAddNode(void** node, void* graph, const void* const* deps, const void* edges, size_t n, void* p);
abi::Error cudaGraphNodeSetParams(void* node, void* p);
abi::Error cudaGraphExecNodeSetParams(void* exec, void* node, void* p);
abi::Error cudaGraphAddMemAllocNode(void** node, void* graph, const void* const* deps, size_t n, void* p);
abi::Error cudaGraphMemAllocNodeGetParams(void* node, void* p);
abi::Error cudaGraphAddMemFreeNode(void** node, void* graph, const void* const* deps, size_t n, void* dptr);
abi::Error cudaGraphMemFreeNodeGetParams(void* node, void** dptr);
abi::Error cudaDeviceGraphMemTrim(int device);
abi::Error cudaDeviceGetGraphMemAttribute(int device, int attr, void* value);
abi::Error cudaDeviceSetGraphMemAttribute(int device, int attr, void* value);
abi::Error cudaGraphGetEdges(void* graph, void** from, void** to, void* edges, size_t* n);
abi::Error cudaGraphNodeGetDependencies(void* node, void** deps, void* edges, size_t* n);
abi::Error cudaGraphNodeGetDependentNodes(void* node, void** deps, void* edges, size_t* n);
abi::Error cudaGraphRemoveDependencies(void* graph, const void* const* from, const void* const* to, const void* edges,
                                       size_t n);
abi::Error cudaGraphDestroyNode(void* node);
abi::Error cudaStreamBeginCaptureToGraph(abi::Stream st, void* graph, const void* const* deps, const void* edges,
                                         size_t n, int mode);
abi::Error cudaStreamUpdateCaptureDependencies(abi::Stream st, void* const* deps, const void* edges, size_t n,
                                               unsigned flags);
abi::Error cudaGraphMemcpyNodeGetParams(void* node, abi::Memcpy3DParms* p);
abi::Error cudaGraphMemcpyNodeSetParams(void* node, const abi::Memcpy3DParms* p);
abi::Error cudaGraphExecMemcpyNodeSetParams(void* exec, void* node, const abi::Memcpy3DParms* p);
abi::Error cudaGraphMemsetNodeGetParams(void* node, void* p);
abi::Error cudaGraphMemsetNodeSetParams(void* node, const void* p);
abi::Error cudaGraphExecMemsetNodeSetParams(void* exec, void* node, const void* p);
abi::Error cudaGraphHostNodeGetParams(void* node, void* p);
abi::Error cudaGraphHostNodeSetParams(void* node, const void* p);
abi::Error cudaGraphExecHostNodeSetParams(void* exec, void* node, const void* p);
abi::Error cudaGraphChildGraphNodeGetGraph(void* node, void** graph);
abi::Error cudaGraphExecChildGraphNodeSetParams(void* exec, void* node, void* child);
abi::Error cudaGraphEventRecordNodeGetEvent(void* node, void** ev);
abi::Error cudaGraphEventWaitNodeGetEvent(void* node, void** ev);
abi::Error cudaGraphEventRecordNodeSetEvent(void* node, void* ev);
abi::Error cudaGraphEventWaitNodeSetEvent(void* node, void* ev);
abi::Error cudaGraphExecEventRecordNodeSetEvent(void* exec, void* node, void* ev);
abi::Error cudaGraphExecEventWaitNodeSetEvent(void* exec, void* node, void* ev);
abi::Error cudaGraphKernelNodeSetAttribute(void* node, int attr, const void* value);
abi::Error cudaGraphKernelNodeGetAttribute(void* node, int attr, void* value);
abi::Error cudaGraphKernelNodeCopyAttributes(void* dst, void* src);
abi::Error cudaGraphDebugDotPrint(void* graph, const char* path, unsigned flags);
abi::Error cudaUserObjectCreate(void** obj, void* ptr, void (*destroy)(void*), unsigned refs, unsigned flags);
abi::Error cudaUserObjectRetain(void* obj, unsigned count);
abi::Error cudaUserObjectRelease(void* obj, unsigned count);
abi::Error cudaGraphRetainUserObject(void* graph, void* obj, unsigned count, unsigned flags);
abi::Error cudaGraphReleaseUserObject(void* graph, void* obj, unsigned count);
abi::Error cudaGraphNodeSetEnabled(void* exec, void* node, unsigned enabled);
abi::Error cudaGraphNodeGetEnabled(void* exec, void* node, unsigned* enabled);
abi::Error cudaGraphInstantiateWithParams(void** exec, void* graph, void* p);
abi::Error cudaGraphExecGetFlags(void* exec, unsigned long long* flags);
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

// ---- CUDA 11.4+ / 12.x entry points

// The runtime's cudaMemcpy3DParms as a CUDA_MEMCPY3D: pointers as host or device memory by the
// copy's kind (unified memory for cudaMemcpyDefault), arrays as arrays.
int cu_memcpy3d(const abi::Memcpy3DParms& p, CuMemcpy3D& c) {
  c = CuMemcpy3D{};
  auto side = [&](void* array, const abi::PitchedPtr& ptr, const abi::Pos& pos, bool host, int& type,
                  const void** hp, void** hpw, uint64_t& dev, void*& arr, size_t& pitch, size_t& height, size_t& x,
                  size_t& y, size_t& z) {
    x = pos.x, y = pos.y, z = pos.z;
    if (array) {
      type = 3;
      arr = array;
      return;
    }
    type = p.kind == abi::Default ? 4 : host ? 1 : 2;
    if (hp) *hp = ptr.ptr;
    if (hpw) *hpw = ptr.ptr;
    dev = reinterpret_cast<uint64_t>(ptr.ptr);
    pitch = ptr.pitch;
    height = ptr.ysize;
  };
  const bool src_host = p.kind == abi::HostToHost || p.kind == abi::HostToDevice;
  const bool dst_host = p.kind == abi::HostToHost || p.kind == abi::DeviceToHost;
  side(p.srcArray, p.srcPtr, p.srcPos, src_host, c.src_type, &c.src_host, nullptr, c.src_device, c.src_array,
       c.src_pitch, c.src_height, c.src_x, c.src_y, c.src_z);
  side(p.dstArray, p.dstPtr, p.dstPos, dst_host, c.dst_type, nullptr, &c.dst_host, c.dst_device, c.dst_array,
       c.dst_pitch, c.dst_height, c.dst_x, c.dst_y, c.dst_z);
  c.width = p.extent.width;
  c.height = p.extent.height;
  c.depth = p.extent.depth;
  return CuSuccess;
}

// CUgraphNodeParams: as cudaGraphNodeParams (256 bytes, the union at byte 16) but for the kernel
// (CUfunction / CUkernel) and memcpy (CUDA_MEMCPY3D after a context) members.
struct CuGraphNodeParams {
  int type;
  int reserved0[3];
  unsigned char u[232];
  long long reserved2;
};
static_assert(sizeof(CuGraphNodeParams) == 256);
// The runtime's form of the same parameters; `p` gets the outputs back (alloc's dptr, a
// conditional's body graphs) through `back`.
int to_runtime_params(const CuGraphNodeParams* p, CuGraphNodeParams& r) {
  if (!p) return CuInvalidValue;
  r = *p;
  if (p->type == 0) {  // kernel
    CuKernelNodeParams k;
    std::memcpy(&k, p->u, sizeof k);
    const KernelNodeParams rk = to_runtime(k);
    std::memset(r.u, 0, sizeof r.u);
    std::memcpy(r.u, &rk, sizeof rk);
  } else if (p->type == 1) {  // memcpy: flags, reserved, context, CUDA_MEMCPY3D
    CuMemcpy3D c;
    std::memcpy(&c, p->u + 16, sizeof c);
    abi::Memcpy3DParms q{};
    if (int e = memcpy3d_params(c, q)) return e;
    std::memset(r.u, 0, sizeof r.u);
    std::memcpy(r.u + 16, &q, sizeof q);
  }
  return CuSuccess;
}
void from_runtime_outputs(const CuGraphNodeParams& r, CuGraphNodeParams* p) {
  if (p->type == 10) std::memcpy(p->u + 112, r.u + 112, 8);  // CUDA_MEM_ALLOC_NODE_PARAMS::dptr
  if (p->type == 13) std::memcpy(p->u + 16, r.u + 16, 8);    // CUDA_CONDITIONAL_NODE_PARAMS::phGraph_out
}
int add_node1(void** node, void* g, const void* const* deps, size_t n, CuGraphNodeParams* p) {
  CuGraphNodeParams r;
  if (int e = to_runtime_params(p, r)) return e;
  const int e = cu(cudaGraphAddNode(node, g, deps, nullptr, n, &r));
  if (!e) from_runtime_outputs(r, p);
  return e;
}
int add_node2(void** node, void* g, const void* const* deps, const void* edges, size_t n, CuGraphNodeParams* p) {
  CuGraphNodeParams r;
  if (int e = to_runtime_params(p, r)) return e;
  const int e = cu(cudaGraphAddNode(node, g, deps, edges, n, &r));
  if (!e) from_runtime_outputs(r, p);
  return e;
}
int node_set_params(void* node, CuGraphNodeParams* p) {
  CuGraphNodeParams r;
  if (int e = to_runtime_params(p, r)) return e;
  return cu(cudaGraphNodeSetParams(node, &r));
}
int exec_node_set_params(void* exec, void* node, CuGraphNodeParams* p) {
  CuGraphNodeParams r;
  if (int e = to_runtime_params(p, r)) return e;
  return cu(cudaGraphExecNodeSetParams(exec, node, &r));
}
int cond_handle_create(unsigned long long* h, void* g, void*, unsigned dflt, unsigned flags) {
  return cu(cudaGraphConditionalHandleCreate(h, g, dflt, flags));
}
// CUDA_MEM_ALLOC_NODE_PARAMS is laid out as cudaMemAllocNodeParams.
int add_mem_alloc_node(void** node, void* g, const void* const* deps, size_t n, void* p) {
  return cu(cudaGraphAddMemAllocNode(node, g, deps, n, p));
}
int mem_alloc_node_get(void* node, void* p) { return cu(cudaGraphMemAllocNodeGetParams(node, p)); }
int add_mem_free_node(void** node, void* g, const void* const* deps, size_t n, uint64_t dptr) {
  return cu(cudaGraphAddMemFreeNode(node, g, deps, n, reinterpret_cast<void*>(dptr)));
}
int mem_free_node_get(void* node, uint64_t* dptr) {
  void* p = nullptr;
  const int e = cu(cudaGraphMemFreeNodeGetParams(node, dptr ? &p : nullptr));
  if (!e) *dptr = reinterpret_cast<uint64_t>(p);
  return e;
}
int graph_mem_trim(int dev) { return cu(cudaDeviceGraphMemTrim(dev)); }
int graph_mem_get(int dev, int attr, void* v) { return cu(cudaDeviceGetGraphMemAttribute(dev, attr, v)); }
int graph_mem_set(int dev, int attr, void* v) { return cu(cudaDeviceSetGraphMemAttribute(dev, attr, v)); }
int get_edges1(void* g, void** from, void** to, size_t* n) { return cu(cudaGraphGetEdges(g, from, to, nullptr, n)); }
int get_edges2(void* g, void** from, void** to, void* edges, size_t* n) {
  return cu(cudaGraphGetEdges(g, from, to, edges, n));
}
int node_deps1(void* node, void** d, size_t* n) { return cu(cudaGraphNodeGetDependencies(node, d, nullptr, n)); }
int node_deps2(void* node, void** d, void* e, size_t* n) { return cu(cudaGraphNodeGetDependencies(node, d, e, n)); }
int node_dependents1(void* node, void** d, size_t* n) {
  return cu(cudaGraphNodeGetDependentNodes(node, d, nullptr, n));
}
int node_dependents2(void* node, void** d, void* e, size_t* n) {
  return cu(cudaGraphNodeGetDependentNodes(node, d, e, n));
}
int remove_deps1(void* g, const void* const* from, const void* const* to, size_t n) {
  return cu(cudaGraphRemoveDependencies(g, from, to, nullptr, n));
}
int remove_deps2(void* g, const void* const* from, const void* const* to, const void* e, size_t n) {
  return cu(cudaGraphRemoveDependencies(g, from, to, e, n));
}
int destroy_node(void* node) { return cu(cudaGraphDestroyNode(node)); }
int begin_capture_to_graph(void* st, void* g, const void* const* deps, const void* e, size_t n, int mode) {
  return cu(cudaStreamBeginCaptureToGraph(st, g, deps, e, n, mode));
}
int update_capture_deps1(void* st, void* const* deps, size_t n, unsigned flags) {
  return cu(cudaStreamUpdateCaptureDependencies(st, deps, nullptr, n, flags));
}
int update_capture_deps2(void* st, void* const* deps, const void* e, size_t n, unsigned flags) {
  return cu(cudaStreamUpdateCaptureDependencies(st, deps, e, n, flags));
}
int memcpy_node_get(void* node, CuMemcpy3D* c) {
  if (!c) return CuInvalidValue;
  abi::Memcpy3DParms p{};
  if (int e = cudaGraphMemcpyNodeGetParams(node, &p)) return cu(e);
  return cu_memcpy3d(p, *c);
}
int memcpy_node_set(void* node, const CuMemcpy3D* c) {
  if (!c) return CuInvalidValue;
  abi::Memcpy3DParms p{};
  if (int e = memcpy3d_params(*c, p)) return e;
  return cu(cudaGraphMemcpyNodeSetParams(node, &p));
}
int exec_memcpy_node_set(void* exec, void* node, const CuMemcpy3D* c, void*) {
  if (!c) return CuInvalidValue;
  abi::Memcpy3DParms p{};
  if (int e = memcpy3d_params(*c, p)) return e;
  return cu(cudaGraphExecMemcpyNodeSetParams(exec, node, &p));
}
// CUDA_MEMSET_NODE_PARAMS and CUDA_HOST_NODE_PARAMS are laid out as the runtime's.
int memset_node_get(void* node, void* p) { return cu(cudaGraphMemsetNodeGetParams(node, p)); }
int memset_node_set(void* node, const void* p) { return cu(cudaGraphMemsetNodeSetParams(node, p)); }
int exec_memset_node_set(void* exec, void* node, const void* p, void*) {
  return cu(cudaGraphExecMemsetNodeSetParams(exec, node, p));
}
int host_node_get(void* node, void* p) { return cu(cudaGraphHostNodeGetParams(node, p)); }
int host_node_set(void* node, const void* p) { return cu(cudaGraphHostNodeSetParams(node, p)); }
int exec_host_node_set(void* exec, void* node, const void* p) { return cu(cudaGraphExecHostNodeSetParams(exec, node, p)); }
int child_node_get(void* node, void** g) { return cu(cudaGraphChildGraphNodeGetGraph(node, g)); }
int exec_child_node_set(void* exec, void* node, void* g) { return cu(cudaGraphExecChildGraphNodeSetParams(exec, node, g)); }
int record_node_get(void* node, void** ev) { return cu(cudaGraphEventRecordNodeGetEvent(node, ev)); }
int wait_node_get(void* node, void** ev) { return cu(cudaGraphEventWaitNodeGetEvent(node, ev)); }
int record_node_set(void* node, void* ev) { return cu(cudaGraphEventRecordNodeSetEvent(node, ev)); }
int wait_node_set(void* node, void* ev) { return cu(cudaGraphEventWaitNodeSetEvent(node, ev)); }
int exec_record_node_set(void* exec, void* node, void* ev) { return cu(cudaGraphExecEventRecordNodeSetEvent(exec, node, ev)); }
int exec_wait_node_set(void* exec, void* node, void* ev) { return cu(cudaGraphExecEventWaitNodeSetEvent(exec, node, ev)); }
// CUkernelNodeAttrID / CUkernelNodeAttrValue are the runtime's launch attributes.
int kernel_attr_set(void* node, int attr, const void* v) { return cu(cudaGraphKernelNodeSetAttribute(node, attr, v)); }
int kernel_attr_get(void* node, int attr, void* v) { return cu(cudaGraphKernelNodeGetAttribute(node, attr, v)); }
int kernel_attr_copy(void* dst, void* src) { return cu(cudaGraphKernelNodeCopyAttributes(dst, src)); }
int debug_dot_print(void* g, const char* path, unsigned flags) { return cu(cudaGraphDebugDotPrint(g, path, flags)); }
int user_object_create(void** o, void* ptr, void (*destroy)(void*), unsigned refs, unsigned flags) {
  return cu(cudaUserObjectCreate(o, ptr, destroy, refs, flags));
}
int user_object_retain(void* o, unsigned n) { return cu(cudaUserObjectRetain(o, n)); }
int user_object_release(void* o, unsigned n) { return cu(cudaUserObjectRelease(o, n)); }
int graph_retain_user_object(void* g, void* o, unsigned n, unsigned flags) {
  return cu(cudaGraphRetainUserObject(g, o, n, flags));
}
int graph_release_user_object(void* g, void* o, unsigned n) { return cu(cudaGraphReleaseUserObject(g, o, n)); }
int node_set_enabled(void* exec, void* node, unsigned on) { return cu(cudaGraphNodeSetEnabled(exec, node, on)); }
int node_get_enabled(void* exec, void* node, unsigned* on) { return cu(cudaGraphNodeGetEnabled(exec, node, on)); }
// CUDA_GRAPH_INSTANTIATE_PARAMS is laid out as cudaGraphInstantiateParams.
int instantiate_params(void** exec, void* g, void* p) { return cu(cudaGraphInstantiateWithParams(exec, g, p)); }
int exec_get_flags(void* exec, unsigned long long* f) { return cu(cudaGraphExecGetFlags(exec, f)); }

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
  // Edge data joined these in CUDA 12.3 (the _v2 names, the base names from CUDA 13).
  const bool edges = v2 || version >= 12030;
  if (is("cuGraphAddNode")) return edges ? fn(&add_node2) : fn(&add_node1);
  if (is("cuGraphNodeSetParams")) return fn(&node_set_params);
  if (is("cuGraphExecNodeSetParams")) return fn(&exec_node_set_params);
  if (is("cuGraphConditionalHandleCreate")) return fn(&cond_handle_create);
  if (is("cuGraphAddMemAllocNode")) return fn(&add_mem_alloc_node);
  if (is("cuGraphMemAllocNodeGetParams")) return fn(&mem_alloc_node_get);
  if (is("cuGraphAddMemFreeNode")) return fn(&add_mem_free_node);
  if (is("cuGraphMemFreeNodeGetParams")) return fn(&mem_free_node_get);
  if (is("cuDeviceGraphMemTrim")) return fn(&graph_mem_trim);
  if (is("cuDeviceGetGraphMemAttribute")) return fn(&graph_mem_get);
  if (is("cuDeviceSetGraphMemAttribute")) return fn(&graph_mem_set);
  if (is("cuGraphGetEdges")) return edges ? fn(&get_edges2) : fn(&get_edges1);
  if (is("cuGraphNodeGetDependencies")) return edges ? fn(&node_deps2) : fn(&node_deps1);
  if (is("cuGraphNodeGetDependentNodes")) return edges ? fn(&node_dependents2) : fn(&node_dependents1);
  if (is("cuGraphRemoveDependencies")) return edges ? fn(&remove_deps2) : fn(&remove_deps1);
  if (is("cuGraphDestroyNode")) return fn(&destroy_node);
  if (is("cuStreamBeginCaptureToGraph")) return fn(&begin_capture_to_graph);
  if (is("cuStreamUpdateCaptureDependencies")) return edges ? fn(&update_capture_deps2) : fn(&update_capture_deps1);
  if (is("cuGraphMemcpyNodeGetParams")) return fn(&memcpy_node_get);
  if (is("cuGraphMemcpyNodeSetParams")) return fn(&memcpy_node_set);
  if (is("cuGraphExecMemcpyNodeSetParams")) return fn(&exec_memcpy_node_set);
  if (is("cuGraphMemsetNodeGetParams")) return fn(&memset_node_get);
  if (is("cuGraphMemsetNodeSetParams")) return fn(&memset_node_set);
  if (is("cuGraphExecMemsetNodeSetParams")) return fn(&exec_memset_node_set);
  if (is("cuGraphHostNodeGetParams")) return fn(&host_node_get);
  if (is("cuGraphHostNodeSetParams")) return fn(&host_node_set);
  if (is("cuGraphExecHostNodeSetParams")) return fn(&exec_host_node_set);
  if (is("cuGraphChildGraphNodeGetGraph")) return fn(&child_node_get);
  if (is("cuGraphExecChildGraphNodeSetParams")) return fn(&exec_child_node_set);
  if (is("cuGraphEventRecordNodeGetEvent")) return fn(&record_node_get);
  if (is("cuGraphEventWaitNodeGetEvent")) return fn(&wait_node_get);
  if (is("cuGraphEventRecordNodeSetEvent")) return fn(&record_node_set);
  if (is("cuGraphEventWaitNodeSetEvent")) return fn(&wait_node_set);
  if (is("cuGraphExecEventRecordNodeSetEvent")) return fn(&exec_record_node_set);
  if (is("cuGraphExecEventWaitNodeSetEvent")) return fn(&exec_wait_node_set);
  if (is("cuGraphKernelNodeSetAttribute")) return fn(&kernel_attr_set);
  if (is("cuGraphKernelNodeGetAttribute")) return fn(&kernel_attr_get);
  if (is("cuGraphKernelNodeCopyAttributes")) return fn(&kernel_attr_copy);
  if (is("cuGraphDebugDotPrint")) return fn(&debug_dot_print);
  if (is("cuUserObjectCreate")) return fn(&user_object_create);
  if (is("cuUserObjectRetain")) return fn(&user_object_retain);
  if (is("cuUserObjectRelease")) return fn(&user_object_release);
  if (is("cuGraphRetainUserObject")) return fn(&graph_retain_user_object);
  if (is("cuGraphReleaseUserObject")) return fn(&graph_release_user_object);
  if (is("cuGraphNodeSetEnabled")) return fn(&node_set_enabled);
  if (is("cuGraphNodeGetEnabled")) return fn(&node_get_enabled);
  if (is("cuGraphInstantiateWithParams")) return fn(&instantiate_params);
  if (is("cuGraphExecGetFlags")) return fn(&exec_get_flags);
  return nullptr;
}

}  // namespace warpsim::cudart
