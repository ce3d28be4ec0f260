// CUDA graphs: stream capture (cudaStreamBeginCapture ... cudaStreamEndCapture) and graphs built
// node by node (kernel, 1D memcpy, memset, host and empty nodes), instantiated and launched.
//
// A graph is a list of operations. Captured work is recorded in issue order (kernels with their
// arguments copied at capture time, as the driver does); a stream that waits on an event recorded
// in a capturing stream joins that capture (fork/join). Nodes added by hand run in an order that
// respects their dependencies (creation order, which every dependency given at creation already
// respects, re-sorted if cudaGraphAddDependencies adds edges). Launching an executable graph runs
// its operations into the launch stream, one after another: one valid schedule of the graph.
//
// Kernel nodes keep their parameters (cudaGraphKernelNodeGet/SetParams, and in an instantiated graph
// cudaGraphExecKernelNodeSetParams); cudaGraphExecUpdate takes the operations of a graph of the same
// shape; child graphs are copied into their node when added (as the runtime clones them); graphs
// are cloned node for node. Not modelled: conditional and memory alloc/free nodes;
// cudaMallocAsync during capture allocates at once (every launch of the graph uses that memory) and
// cudaFreeAsync during capture is deferred to the graph's destruction.
#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "cudart/abi.hpp"
#include "cudart/export.hpp"
#include "cudart/launch.hpp"
#include "cudart/state.hpp"
#include "func/engine.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

namespace {

using Op = std::function<int(void* stream)>;

// cudaGraphNodeType values.
enum NodeType { Kernel = 0, Memcpy = 1, Memset = 2, Host = 3, ChildGraph = 4, Empty = 5, WaitEvent = 6, EventRecord = 7 };

// A kernel node's launch, kept so that it can be read back and changed: the arguments are copied
// when the node is made (as the runtime does), and kernelParams points into that copy.
struct KernelSpec {
  const void* func = nullptr;
  abi::Dim3 grid, block;
  size_t shmem = 0;
  std::shared_ptr<std::vector<uint8_t>> buf;
  std::shared_ptr<std::vector<uint32_t>> offs;
  std::shared_ptr<std::vector<void*>> ptrs;  // kernelParams as cudaGraphKernelNodeGetParams gives them
};

struct GraphObj {
  struct Node {
    Op op;
    std::vector<size_t> deps;  // node indices
    int type = Empty;
    std::shared_ptr<KernelSpec> kernel;  // kernel nodes
  };
  std::vector<Node> nodes;
  std::vector<void*> deferred_frees;  // cudaFreeAsync during capture
};
struct ExecObj {
  std::vector<Op> ops;       // in execution order
  std::vector<size_t> node;  // the graph node index of each op
  GraphObj* graph = nullptr;  // the graph it was instantiated from
};
// A node handle: graph and index.
struct NodeObj {
  GraphObj* graph;
  size_t index;
};

struct Capture {
  GraphObj* graph;
  void* origin;  // the stream that began the capture
  int mode;
};

struct Registry {
  std::set<GraphObj*> graphs;
  std::set<ExecObj*> execs;
  std::set<NodeObj*> nodes;
  std::map<void*, Capture> capturing;        // stream -> its capture
  std::map<void*, GraphObj*> event_capture;  // event recorded in a capturing stream
  unsigned long long next_capture_id = 1;
  std::map<GraphObj*, unsigned long long> capture_ids;
};
Registry& reg() {
  static Registry r;
  return r;
}

NodeObj* add_node(GraphObj* g, Op op, const NodeObj* const* deps, size_t ndeps, int type = Empty,
                  std::shared_ptr<KernelSpec> kernel = nullptr) {
  GraphObj::Node n;
  n.op = std::move(op);
  n.type = type;
  n.kernel = std::move(kernel);
  for (size_t i = 0; i < ndeps; ++i)
    if (deps[i] && deps[i]->graph == g) n.deps.push_back(deps[i]->index);
  g->nodes.push_back(std::move(n));
  auto* h = new NodeObj{g, g->nodes.size() - 1};
  reg().nodes.insert(h);
  return h;
}

bool valid_deps(GraphObj* g, const NodeObj* const* deps, size_t n) {
  if (n && !deps) return false;
  for (size_t i = 0; i < n; ++i)
    if (!deps[i] || !reg().nodes.count(const_cast<NodeObj*>(deps[i])) || deps[i]->graph != g) return false;
  return true;
}

// A kernel launch with its arguments copied now; `spec` (if given) receives what it launches.
Op kernel_op(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, bool cooperative,
             int& err, std::shared_ptr<KernelSpec>* spec = nullptr) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) {
    err = abi::ErrInvalidDeviceFunction;
    return {};
  }
  if ((err = s.resolve(it->second))) return {};
  const ptx::Function& fn = *it->second.fn;
  auto buf = std::make_shared<std::vector<uint8_t>>(runtime::marshal_params(fn, args));
  auto offs = std::make_shared<std::vector<uint32_t>>(func::param_offsets(fn));
  err = 0;
  if (spec) {
    auto k = std::make_shared<KernelSpec>();
    k->func = func;
    k->grid = grid;
    k->block = block;
    k->shmem = shmem;
    k->buf = buf;
    k->offs = offs;
    k->ptrs = std::make_shared<std::vector<void*>>(offs->size());
    for (size_t i = 0; i < offs->size(); ++i) (*k->ptrs)[i] = buf->data() + (*offs)[i];
    *spec = k;
  }
  return [func, grid, block, shmem, cooperative, buf, offs](void* stream) {
    std::vector<void*> a(offs->size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = buf->data() + (*offs)[i];
    return launch_kernel(func, grid, block, a.data(), shmem, stream, nullptr, cooperative);
  };
}

// The node indices of a graph in an order its edges allow (Kahn's algorithm, lowest index first:
// creation order where the edges allow it); empty if it has a cycle.
std::vector<size_t> topo_order(const GraphObj& gr) {
  const size_t n = gr.nodes.size();
  std::vector<size_t> indeg(n, 0), order;
  std::vector<std::vector<size_t>> out(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t d : gr.nodes[i].deps) {
      ++indeg[i];
      out[d].push_back(i);
    }
  std::set<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (!indeg[i]) ready.insert(i);
  while (!ready.empty()) {
    size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (size_t j : out[i])
      if (--indeg[j] == 0) ready.insert(j);
  }
  if (order.size() != n) order.clear();
  return order;
}

}  // namespace

namespace warpsim::cudart {

bool capture_op(void* stream, std::function<int(void*)> op) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = reg().capturing.find(stream);
  if (it == reg().capturing.end()) return false;
  add_node(it->second.graph, std::move(op), nullptr, 0);
  return true;
}

bool capture_launch(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream,
                    bool cooperative, int& err) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = reg().capturing.find(stream);
  if (it == reg().capturing.end()) return false;
  std::shared_ptr<KernelSpec> spec;
  Op op = kernel_op(func, grid, block, args, shmem, cooperative, err, &spec);
  if (!err) add_node(it->second.graph, std::move(op), nullptr, 0, Kernel, spec);
  return true;
}

bool capture_event_record(void* event, void* stream) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = reg().capturing.find(stream);
  if (it == reg().capturing.end()) {
    reg().event_capture.erase(event);
    return false;
  }
  reg().event_capture[event] = it->second.graph;
  return true;
}

bool capture_wait_event(void* stream, void* event) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto e = reg().event_capture.find(event);
  if (e == reg().event_capture.end()) return reg().capturing.count(stream) != 0;
  // Fork: the waiting stream joins the capture the event belongs to.
  for (auto& [st, c] : reg().capturing)
    if (c.graph == e->second) {
      reg().capturing.emplace(stream, Capture{c.graph, c.origin, c.mode});
      return true;
    }
  return false;
}

bool capture_free(void* stream, void* ptr) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = reg().capturing.find(stream);
  if (it == reg().capturing.end()) return false;
  it->second.graph->deferred_frees.push_back(ptr);
  return true;
}

int capture_status(void* stream, unsigned long long* id) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = reg().capturing.find(stream);
  if (it == reg().capturing.end()) return 0;  // cudaStreamCaptureStatusNone
  if (id) *id = reg().capture_ids[it->second.graph];
  return 1;  // cudaStreamCaptureStatusActive
}

}  // namespace warpsim::cudart

extern "C" abi::Error cudaFree(void*);
extern "C" abi::Error cudaMemcpyAsync(void*, const void*, size_t, int, abi::Stream);
extern "C" abi::Error cudaMemset2DAsync(void*, size_t, int, size_t, size_t, abi::Stream);
extern "C" abi::Error cudaMemsetAsync(void*, int, size_t, abi::Stream);
extern "C" abi::Error cudaLaunchHostFunc(abi::Stream, void (*)(void*), void*);

// ------------------------------------------------------------------ capture

CUDART_API abi::Error cudaStreamBeginCapture(abi::Stream stream, int mode) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  // The legacy default stream cannot be captured.
  if (stream == nullptr || reinterpret_cast<uintptr_t>(stream) == 1) return ret(abi::ErrStreamCaptureUnsupported);
  if (reg().capturing.count(stream)) return ret(abi::ErrIllegalState);
  auto* gr = new GraphObj;
  reg().graphs.insert(gr);
  reg().capture_ids[gr] = reg().next_capture_id++;
  reg().capturing.emplace(stream, Capture{gr, stream, mode});
  return 0;
}
CUDART_API abi::Error cudaStreamBeginCapture_ptsz(abi::Stream stream, int mode) {
  return cudaStreamBeginCapture(stream, mode);
}

CUDART_API abi::Error cudaStreamEndCapture(abi::Stream stream, void** graph) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!graph) return ret(abi::ErrInvalidValue);
  auto it = reg().capturing.find(stream);
  if (it == reg().capturing.end()) return ret(abi::ErrIllegalState);
  if (it->second.origin != stream) return ret(abi::ErrStreamCaptureUnmatched);
  GraphObj* gr = it->second.graph;
  for (auto i = reg().capturing.begin(); i != reg().capturing.end();)
    i = i->second.graph == gr ? reg().capturing.erase(i) : std::next(i);
  for (auto i = reg().event_capture.begin(); i != reg().event_capture.end();)
    i = i->second == gr ? reg().event_capture.erase(i) : std::next(i);
  *graph = gr;
  return 0;
}
CUDART_API abi::Error cudaStreamEndCapture_ptsz(abi::Stream stream, void** graph) {
  return cudaStreamEndCapture(stream, graph);
}

// ------------------------------------------------------------------ graphs

CUDART_API abi::Error cudaGraphCreate(void** graph, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!graph || flags) return ret(abi::ErrInvalidValue);
  auto* gr = new GraphObj;
  reg().graphs.insert(gr);
  *graph = gr;
  return 0;
}

CUDART_API abi::Error cudaGraphDestroy(void* graph) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  if (!reg().graphs.erase(gr)) return ret(abi::ErrInvalidValue);
  for (auto i = reg().nodes.begin(); i != reg().nodes.end();) {
    if ((*i)->graph == gr) {
      delete *i;
      i = reg().nodes.erase(i);
    } else {
      ++i;
    }
  }
  for (void* p : gr->deferred_frees) cudaFree(p);
  reg().capture_ids.erase(gr);
  delete gr;
  return 0;
}

namespace {
int add(void** node, void* graph, const void* const* deps, size_t ndeps, Op op, int type = Empty,
        std::shared_ptr<KernelSpec> kernel = nullptr) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  auto d = reinterpret_cast<const NodeObj* const*>(deps);
  if (!node || !reg().graphs.count(gr) || !valid_deps(gr, d, ndeps)) return ret(abi::ErrInvalidValue);
  *node = add_node(gr, std::move(op), d, ndeps, type, std::move(kernel));
  return 0;
}

// The node behind a handle, or nullptr.
GraphObj::Node* node_of(void* h) {
  auto* n = static_cast<NodeObj*>(h);
  if (!reg().nodes.count(n) || !reg().graphs.count(n->graph) || n->index >= n->graph->nodes.size()) return nullptr;
  return &n->graph->nodes[n->index];
}

// cudaMemsetParams, cudaHostNodeParams (driver_types.h); cudaKernelNodeParams is in abi.hpp.
using abi::KernelNodeParams;
struct MemsetParams {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
struct HostNodeParams {
  void (*fn)(void*);
  void* userData;
};
}  // namespace

CUDART_API abi::Error cudaGraphAddKernelNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                             const KernelNodeParams* p) {
  if (!p || !p->func) return ret(abi::ErrInvalidValue);
  if (p->extra) {
    fmt::print(stderr, "warpsim: kernel nodes with 'extra' parameter buffers are not supported\n");
    return ret(abi::ErrNotSupported);
  }
  int err = 0;
  std::shared_ptr<KernelSpec> spec;
  Op op = kernel_op(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, false, err, &spec);
  if (err) return ret(err);
  return add(node, graph, deps, ndeps, std::move(op), Kernel, spec);
}

CUDART_API abi::Error cudaGraphAddMemcpyNode1D(void** node, void* graph, const void* const* deps, size_t ndeps,
                                               void* dst, const void* src, size_t count, int kind) {
  return add(node, graph, deps, ndeps, [=](void* st) { return cudaMemcpyAsync(dst, src, count, kind, st); }, Memcpy);
}

CUDART_API abi::Error cudaGraphAddMemsetNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                             const MemsetParams* p) {
  if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)) return ret(abi::ErrInvalidValue);
  const MemsetParams m = *p;
  return add(node, graph, deps, ndeps, [m](void* st) -> int {
    const size_t h = m.height ? m.height : 1;
    if (m.elementSize == 1) return cudaMemset2DAsync(m.dst, m.pitch ? m.pitch : m.width, int(m.value), m.width, h, st);
    // 2- and 4-byte patterns: written through a host buffer, row by row.
    std::vector<uint8_t> row(m.width * m.elementSize);
    for (size_t i = 0; i < m.width; ++i) std::memcpy(&row[i * m.elementSize], &m.value, m.elementSize);
    const size_t pitch = m.pitch ? m.pitch : row.size();
    for (size_t y = 0; y < h; ++y)
      if (int e = cudaMemcpyAsync(static_cast<char*>(m.dst) + y * pitch, row.data(), row.size(), abi::HostToDevice, st))
        return e;
    return 0;
  }, Memset);
}

CUDART_API abi::Error cudaGraphAddHostNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                           const HostNodeParams* p) {
  if (!p || !p->fn) return ret(abi::ErrInvalidValue);
  const HostNodeParams h = *p;
  return add(node, graph, deps, ndeps, [h](void* st) { return cudaLaunchHostFunc(st, h.fn, h.userData); }, Host);
}

CUDART_API abi::Error cudaGraphAddEmptyNode(void** node, void* graph, const void* const* deps, size_t ndeps) {
  return add(node, graph, deps, ndeps, [](void*) { return 0; });
}

CUDART_API abi::Error cudaGraphAddDependencies(void* graph, const void* const* from, const void* const* to,
                                               const void* edgeData, size_t n) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  auto f = reinterpret_cast<const NodeObj* const*>(from);
  auto t = reinterpret_cast<const NodeObj* const*>(to);
  if (!reg().graphs.count(gr) || !valid_deps(gr, f, n) || !valid_deps(gr, t, n) || (n && (!f || !t)))
    return ret(abi::ErrInvalidValue);
  for (size_t i = 0; i < n; ++i) gr->nodes[t[i]->index].deps.push_back(f[i]->index);
  return 0;
}

CUDART_API abi::Error cudaGraphGetNodes(void* graph, void** nodes, size_t* count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  if (!reg().graphs.count(gr) || !count) return ret(abi::ErrInvalidValue);
  if (!nodes) {
    *count = gr->nodes.size();
    return 0;
  }
  // The handles of nodes added by hand are kept; captured nodes get handles here.
  std::vector<NodeObj*> hs(gr->nodes.size(), nullptr);
  for (NodeObj* n : reg().nodes)
    if (n->graph == gr) hs[n->index] = n;
  size_t k = 0;
  for (size_t i = 0; i < hs.size() && k < *count; ++i, ++k) {
    if (!hs[i]) {
      hs[i] = new NodeObj{gr, i};
      reg().nodes.insert(hs[i]);
    }
    nodes[k] = hs[i];
  }
  *count = k;
  return 0;
}

// ------------------------------------------------------------------ executable graphs

CUDART_API abi::Error cudaGraphInstantiate(void** exec, void* graph, unsigned long long flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  if (!exec || !reg().graphs.count(gr)) return ret(abi::ErrInvalidValue);
  std::vector<size_t> order = topo_order(*gr);
  if (order.size() != gr->nodes.size()) return ret(abi::ErrInvalidValue);  // a cycle
  auto* x = new ExecObj;
  x->graph = gr;
  for (size_t i : order) {
    x->ops.push_back(gr->nodes[i].op);
    x->node.push_back(i);
  }
  reg().execs.insert(x);
  *exec = x;
  return 0;
}

CUDART_API abi::Error cudaGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

CUDART_API abi::Error cudaGraphExecDestroy(void* exec) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  if (!reg().execs.erase(x)) return ret(abi::ErrInvalidValue);
  delete x;
  return 0;
}

CUDART_API abi::Error cudaGraphLaunch(void* exec, abi::Stream stream) {
  std::vector<Op> ops;
  {
    State& s = State::instance();
    std::lock_guard g(s.mu);
    auto* x = static_cast<ExecObj*>(exec);
    if (!reg().execs.count(x)) return ret(abi::ErrInvalidValue);
    ops = x->ops;
  }
  for (auto& op : ops)
    if (int e = op(stream)) return e;
  return 0;
}
CUDART_API abi::Error cudaGraphLaunch_ptsz(void* exec, abi::Stream stream) { return cudaGraphLaunch(exec, stream); }

// Executable graphs live on the simulated device already.
CUDART_API abi::Error cudaGraphUpload(void* exec, abi::Stream) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  return reg().execs.count(static_cast<ExecObj*>(exec)) ? 0 : ret(abi::ErrInvalidValue);
}
CUDART_API abi::Error cudaGraphUpload_ptsz(void* exec, abi::Stream stream) { return cudaGraphUpload(exec, stream); }

// ------------------------------------------------------------------ node queries and updates

extern "C" abi::Error cudaMemcpy3DAsync(const abi::Memcpy3DParms*, abi::Stream);
extern "C" abi::Error cudaEventRecord(abi::Event, abi::Stream);

CUDART_API abi::Error cudaGraphAddMemcpyNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                             const abi::Memcpy3DParms* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  const abi::Memcpy3DParms q = *p;
  return add(node, graph, deps, ndeps, [q](void* st) { return cudaMemcpy3DAsync(&q, st); }, Memcpy);
}

// The child graph is copied now, in an order its edges allow, and runs as one node.
CUDART_API abi::Error cudaGraphAddChildGraphNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                                 void* child) {
  std::vector<Op> ops;
  {
    State& s = State::get();
    std::lock_guard g(s.mu);
    auto* c = static_cast<GraphObj*>(child);
    if (!reg().graphs.count(c) || c == graph) return ret(abi::ErrInvalidValue);
    std::vector<size_t> order = topo_order(*c);
    if (order.size() != c->nodes.size()) return ret(abi::ErrInvalidValue);
    for (size_t i : order) ops.push_back(c->nodes[i].op);
  }
  return add(node, graph, deps, ndeps, [ops](void* st) {
    for (auto& op : ops)
      if (int e = op(st)) return e;
    return 0;
  }, ChildGraph);
}

// Work in a stream runs in issue order here, so waiting on an event is already satisfied.
CUDART_API abi::Error cudaGraphAddEventRecordNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                                  abi::Event event) {
  if (!event) return ret(abi::ErrInvalidValue);
  return add(node, graph, deps, ndeps, [event](void* st) { return cudaEventRecord(event, st); }, EventRecord);
}
CUDART_API abi::Error cudaGraphAddEventWaitNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                                abi::Event event) {
  if (!event) return ret(abi::ErrInvalidValue);
  return add(node, graph, deps, ndeps, [](void*) { return 0; }, WaitEvent);
}

CUDART_API abi::Error cudaGraphNodeGetType(void* node, int* type) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj::Node* n = node_of(node);
  if (!n || !type) return ret(abi::ErrInvalidValue);
  *type = n->type;
  return 0;
}

CUDART_API abi::Error cudaGraphGetRootNodes(void* graph, void** roots, size_t* count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  if (!reg().graphs.count(gr) || !count) return ret(abi::ErrInvalidValue);
  std::vector<size_t> idx;
  for (size_t i = 0; i < gr->nodes.size(); ++i)
    if (gr->nodes[i].deps.empty()) idx.push_back(i);
  if (!roots) {
    *count = idx.size();
    return 0;
  }
  // Handles as cudaGraphGetNodes gives them.
  std::vector<void*> all(gr->nodes.size());
  size_t n = all.size();
  cudaGraphGetNodes(graph, all.data(), &n);
  size_t k = 0;
  for (; k < idx.size() && k < *count; ++k) roots[k] = all[idx[k]];
  *count = k;
  return 0;
}

CUDART_API abi::Error cudaGraphKernelNodeGetParams(void* node, KernelNodeParams* p) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj::Node* n = node_of(node);
  if (!n || !p || n->type != Kernel || !n->kernel) return ret(abi::ErrInvalidValue);
  p->func = const_cast<void*>(n->kernel->func);
  p->gridDim = n->kernel->grid;
  p->blockDim = n->kernel->block;
  p->sharedMemBytes = unsigned(n->kernel->shmem);
  p->kernelParams = n->kernel->ptrs->data();
  p->extra = nullptr;
  return 0;
}

namespace {
// A kernel node's operation rebuilt from new parameters.
int kernel_node_from(const KernelNodeParams* p, Op& op, std::shared_ptr<KernelSpec>& spec) {
  if (!p || !p->func) return abi::ErrInvalidValue;
  if (p->extra) return abi::ErrNotSupported;
  int err = 0;
  op = kernel_op(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, false, err, &spec);
  return err;
}
}  // namespace

CUDART_API abi::Error cudaGraphKernelNodeSetParams(void* node, const KernelNodeParams* p) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj::Node* n = node_of(node);
  if (!n || n->type != Kernel) return ret(abi::ErrInvalidValue);
  Op op;
  std::shared_ptr<KernelSpec> spec;
  if (int e = kernel_node_from(p, op, spec)) return ret(e);
  n->op = std::move(op);
  n->kernel = spec;
  return 0;
}

// Changes the launch of one kernel node in an instantiated graph (the graph itself is unchanged).
CUDART_API abi::Error cudaGraphExecKernelNodeSetParams(void* exec, void* node, const KernelNodeParams* p) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  auto* h = static_cast<NodeObj*>(node);
  GraphObj::Node* n = node_of(node);
  if (!reg().execs.count(x) || !n || h->graph != x->graph || n->type != Kernel) return ret(abi::ErrInvalidValue);
  Op op;
  std::shared_ptr<KernelSpec> spec;
  if (int e = kernel_node_from(p, op, spec)) return ret(e);
  for (size_t i = 0; i < x->node.size(); ++i)
    if (x->node[i] == h->index) x->ops[i] = op;
  return 0;
}

// cudaGraphExecUpdateResultInfo.
struct GraphExecUpdateResultInfo {
  int result;  // cudaGraphExecUpdateSuccess 0, cudaGraphExecUpdateErrorTopologyChanged 2, ...NodeTypeChanged 3
  void* errorNode;
  void* errorFromNode;
};

// Takes the operations of a graph with the same nodes (count, types, edges) as the instantiated one.
CUDART_API abi::Error cudaGraphExecUpdate(void* exec, void* graph, GraphExecUpdateResultInfo* info) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  auto* gr = static_cast<GraphObj*>(graph);
  if (!reg().execs.count(x) || !reg().graphs.count(gr)) return ret(abi::ErrInvalidValue);
  if (info) *info = GraphExecUpdateResultInfo{0, nullptr, nullptr};
  const GraphObj* old = reg().graphs.count(x->graph) ? x->graph : nullptr;
  int result = 0;
  if (!old || old->nodes.size() != gr->nodes.size()) {
    result = 2;
  } else {
    for (size_t i = 0; i < gr->nodes.size() && !result; ++i) {
      if (gr->nodes[i].type != old->nodes[i].type) result = 3;
      else if (gr->nodes[i].deps != old->nodes[i].deps) result = 2;
      else if (gr->nodes[i].type == Kernel && gr->nodes[i].kernel && old->nodes[i].kernel &&
               gr->nodes[i].kernel->func != old->nodes[i].kernel->func)
        result = 5;  // cudaGraphExecUpdateErrorFunctionChanged
    }
  }
  if (result) {
    if (info) info->result = result;
    return ret(abi::ErrGraphExecUpdateFailure);
  }
  for (size_t i = 0; i < x->node.size(); ++i) x->ops[i] = gr->nodes[x->node[i]].op;
  x->graph = gr;
  return 0;
}

CUDART_API abi::Error cudaGraphClone(void** clone, void* graph) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  if (!clone || !reg().graphs.count(gr)) return ret(abi::ErrInvalidValue);
  auto* c = new GraphObj;
  c->nodes = gr->nodes;
  reg().graphs.insert(c);
  *clone = c;
  return 0;
}

// A clone's nodes are at the same indices as the original's.
CUDART_API abi::Error cudaGraphNodeFindInClone(void** found, void* original, void* clone) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* h = static_cast<NodeObj*>(original);
  auto* c = static_cast<GraphObj*>(clone);
  if (!found || !node_of(original) || !reg().graphs.count(c) || h->index >= c->nodes.size())
    return ret(abi::ErrInvalidValue);
  for (NodeObj* n : reg().nodes)
    if (n->graph == c && n->index == h->index) {
      *found = n;
      return 0;
    }
  auto* n = new NodeObj{c, h->index};
  reg().nodes.insert(n);
  *found = n;
  return 0;
}
