// CUDA graphs: stream capture (cudaStreamBeginCapture ... cudaStreamEndCapture, and capture into an
// existing graph) and graphs built node by node, instantiated and launched.
//
// A graph is a list of typed nodes with their parameters and their dependencies (node indices). A
// removed node (cudaGraphDestroyNode) stays in the list, marked removed, so that node handles (graph,
// index) stay valid. Captured work becomes nodes that depend on the previous node of their stream
// (kernels with their arguments copied at capture time, as the driver does); a stream that waits on
// an event recorded in a capturing stream joins that capture (fork/join) and depends on what the
// event followed. Launching an executable graph runs its nodes into the launch stream one after
// another, in an order their edges allow (creation order where they allow it): one valid schedule.
//
// An executable graph holds a deep copy of its graph (child graphs and conditional bodies
// included), so that later changes to the graph do not reach it; cudaGraphExec*SetParams change the
// copy; cudaGraphExecUpdate takes the parameters of a graph of the same shape.
//
// Conditional nodes (CUDA 12.4+): a conditional handle is the device address of a 32-bit value
// (cudaGraphSetConditional in device code stores to it, src/func/ops_control.cpp), set to its default
// at every launch with cudaGraphCondAssignDefault. At the node, the launch stream is synchronised
// and the value read: if (body 0 when non-zero, else body 1 if any), while (body 0 as long as
// non-zero, at most 2^24 iterations before the launch fails instead of hanging), switch (body n).
//
// Memory nodes: an allocation node's memory is allocated when the node is made (its address is
// fixed for the graph's lifetime, as on hardware) and owned by the graph and every executable graph
// made from it; a free node, or cudaFree of that memory by the program, has no effect on it (a
// later launch gets the same address, as CUDA promises); it is released when the last of them is
// destroyed. cudaMallocAsync / cudaFreeAsync during capture make such nodes.
#include <fmt/format.h>

#include <algorithm>
#include <array>
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

extern "C" abi::Error cudaFree(void*);
extern "C" abi::Error cudaMemcpyAsync(void*, const void*, size_t, int, abi::Stream);
extern "C" abi::Error cudaMemset2DAsync(void*, size_t, int, size_t, size_t, abi::Stream);
extern "C" abi::Error cudaLaunchHostFunc(abi::Stream, void (*)(void*), void*);
extern "C" abi::Error cudaMemcpy3DAsync(const abi::Memcpy3DParms*, abi::Stream);
extern "C" abi::Error cudaEventRecord(abi::Event, abi::Stream);
extern "C" abi::Error cudaStreamSynchronize(abi::Stream);
extern "C" abi::Error cudaGetSymbolAddress(void**, const void*);

namespace {

using Op = std::function<int(void* stream)>;

// cudaGraphNodeType values.
enum NodeType {
  Kernel = 0, Memcpy = 1, Memset = 2, Host = 3, ChildGraph = 4, Empty = 5, WaitEvent = 6, EventRecord = 7,
  ExtSemSignal = 8, ExtSemWait = 9, MemAlloc = 10, MemFree = 11, BatchMemOp = 12, Conditional = 13
};
enum CondType { CondIf = 0, CondWhile = 1, CondSwitch = 2 };
constexpr uint64_t kMaxWhileIterations = 1ull << 24;

using abi::ConditionalNodeParams;
using abi::GraphNodeParams;
using abi::HostNodeParams;
using abi::KernelNodeParams;
using abi::MemAllocNodeParams;
using abi::MemsetParams;

// cudaLaunchAttributeValue is a 64-byte union; a kernel node keeps what it was given per attribute.
using AttrValue = std::array<uint8_t, 64>;
constexpr int kAttrCooperative = 2;  // cudaLaunchAttributeCooperative
constexpr int kAttrPriority = 8;     // cudaLaunchAttributePriority

// A kernel node's launch, kept so that it can be read back and changed: the arguments are copied
// when the node is made (as the runtime does), and kernelParams points into that copy.
struct KernelSpec {
  const void* func = nullptr;
  abi::Dim3 grid, block;
  size_t shmem = 0;
  bool cooperative = false;
  std::shared_ptr<std::vector<uint8_t>> buf;
  std::shared_ptr<std::vector<uint32_t>> offs;
  std::shared_ptr<std::vector<void*>> ptrs;  // kernelParams as cudaGraphKernelNodeGetParams gives them
  std::map<int, AttrValue> attrs;
};

// Memory of an allocation node (see the file comment). Released by the last owner; its owners are
// destroyed with State::mu held.
struct GraphAlloc {
  uint64_t addr = 0, bytes = 0;
  bool freed = false;  // a free node of a graph, or cudaFree by the program, frees it
  ~GraphAlloc();
};

struct CondHandle {
  uint64_t addr;   // the device word cudaGraphSetConditional writes
  unsigned dflt;   // stays where it is while the graph lives: a launch copies it from here
  unsigned flags;  // cudaGraphCondAssignDefault 1
};

struct UserObject {
  void* ptr;
  void (*destroy)(void*);
  unsigned refs;
};

struct GraphObj;
using GraphPtr = std::shared_ptr<GraphObj>;

struct Node {
  int type = Empty;
  bool removed = false;
  std::vector<size_t> deps;  // node indices
  Op op;                     // kernel, memcpy, memset, host and event-record nodes
  std::shared_ptr<KernelSpec> kernel;
  abi::Memcpy3DParms copy{};
  MemsetParams memset{};
  HostNodeParams host{};
  abi::Event event = nullptr;
  std::shared_ptr<GraphAlloc> alloc;  // allocation nodes
  MemAllocNodeParams alloc_params{};
  void* free_ptr = nullptr;           // free nodes
  unsigned long long cond = 0;        // conditional nodes: handle and type
  int cond_type = CondIf;
  std::vector<GraphPtr> bodies;       // child graph: [0]; conditional: its bodies
  std::shared_ptr<std::vector<void*>> body_handles;  // phGraph_out of a conditional node
};

struct GraphObj {
  std::vector<Node> nodes;
  std::vector<CondHandle> handles;
  std::vector<void*> deferred_frees;  // cudaFreeAsync during capture of memory the graph does not own
  std::map<UserObject*, unsigned> user_refs;
};

struct ExecObj {
  GraphPtr snap;               // the graph as instantiated (a deep copy)
  GraphObj* origin = nullptr;  // the graph it was instantiated from (node handles name its nodes)
  std::vector<char> disabled;  // per top-level node (cudaGraphNodeSetEnabled)
  unsigned long long flags = 0;
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
  std::map<void*, std::vector<size_t>> tails;  // per stream: the nodes its next node depends on
};

struct Registry {
  std::map<GraphObj*, GraphPtr> graphs;  // valid graph handles: the program's graphs and their bodies
  std::set<GraphObj*> owned;             // of those, the ones cudaGraphDestroy may destroy
  std::set<ExecObj*> execs;
  std::set<NodeObj*> nodes;
  std::map<std::pair<GraphObj*, size_t>, NodeObj*> node_at;  // the handle of (graph, index), once made
  std::map<void*, std::shared_ptr<Capture>> capturing;                       // stream -> its capture
  std::map<void*, std::pair<std::shared_ptr<Capture>, std::vector<size_t>>> event_capture;  // event -> what it followed
  unsigned long long next_capture_id = 1;
  std::map<GraphObj*, unsigned long long> capture_ids;
  std::map<uint64_t, std::weak_ptr<GraphAlloc>> allocs;  // live allocation-node memory by address
  uint64_t alloc_bytes = 0, alloc_high = 0;
  std::set<UserObject*> user_objects;
};
// Never destroyed: at exit, graphs still held would otherwise release their allocation-node memory
// through members of the registry already destroyed (members go in reverse order).
Registry& reg() {
  static Registry& r = *new Registry;
  return r;
}

// Memory nothing frees outlives its graphs as an ordinary allocation (the program frees it with
// cudaFree, as CUDA asks of it).
GraphAlloc::~GraphAlloc() {
  State& s = State::instance();
  if (addr && s.dev && freed) s.dev->memory().release(addr);
  reg().allocs.erase(addr);
  reg().alloc_bytes -= bytes;
}

void release_user_object(UserObject* u, unsigned n) {
  if (!reg().user_objects.count(u)) return;
  u->refs = u->refs > n ? u->refs - n : 0;
  if (u->refs) return;
  reg().user_objects.erase(u);
  if (u->destroy) u->destroy(u->ptr);
  delete u;
}
void drop_user_refs(GraphObj& g) {
  for (auto& [u, n] : g.user_refs) release_user_object(u, n);
  g.user_refs.clear();
}

GraphPtr deep_copy(const GraphObj& g);
Node copy_node(const Node& n) {
  Node c = n;
  for (auto& b : c.bodies) b = deep_copy(*b);
  if (c.body_handles) {
    c.body_handles = std::make_shared<std::vector<void*>>();
    for (auto& b : c.bodies) c.body_handles->push_back(b.get());
  }
  return c;
}
GraphPtr deep_copy(const GraphObj& g) {
  auto c = std::make_shared<GraphObj>();
  for (auto& n : g.nodes) c->nodes.push_back(copy_node(n));
  c->handles = g.handles;
  for (auto& [u, n] : g.user_refs) {
    c->user_refs[u] += n;
    u->refs += n;
  }
  return c;
}

// Registers a graph's bodies (and theirs) as graph handles, or takes them off.
void register_bodies(const GraphObj& g, bool on) {
  for (auto& n : g.nodes)
    for (auto& b : n.bodies) {
      if (on) reg().graphs[b.get()] = b;
      else reg().graphs.erase(b.get());
      register_bodies(*b, on);
    }
}

GraphObj* graph_of(void* h) {
  auto it = reg().graphs.find(static_cast<GraphObj*>(h));
  return it == reg().graphs.end() ? nullptr : it->first;
}

NodeObj* handle_for(GraphObj* g, size_t i) {
  NodeObj*& h = reg().node_at[{g, i}];
  if (!h) {
    h = new NodeObj{g, i};
    reg().nodes.insert(h);
  }
  return h;
}

// The node behind a handle, or nullptr.
Node* node_of(const void* h) {
  auto* n = static_cast<NodeObj*>(const_cast<void*>(h));
  if (!reg().nodes.count(n) || !graph_of(n->graph) || n->index >= n->graph->nodes.size()) return nullptr;
  Node* node = &n->graph->nodes[n->index];
  return node->removed ? nullptr : node;
}

bool valid_deps(GraphObj* g, const void* const* deps, size_t n) {
  if (n && !deps) return false;
  for (size_t i = 0; i < n; ++i) {
    auto* h = static_cast<NodeObj*>(const_cast<void*>(deps[i]));
    if (!node_of(h) || h->graph != g) return false;
  }
  return true;
}

size_t add_node(GraphObj* g, Node n, const std::vector<size_t>& deps) {
  n.deps = deps;
  g->nodes.push_back(std::move(n));
  return g->nodes.size() - 1;
}

int launch_spec(const KernelSpec& k, void* stream) {
  std::vector<void*> a(k.offs->size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = k.buf->data() + (*k.offs)[i];
  return launch_kernel(k.func, k.grid, k.block, a.data(), k.shmem, stream, nullptr, k.cooperative);
}

// A kernel node's launch with its arguments copied now.
int kernel_spec(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, bool cooperative,
                std::shared_ptr<KernelSpec>& spec) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) return abi::ErrInvalidDeviceFunction;
  if (int err = s.resolve(it->second)) return err;
  const ptx::Function& fn = *it->second.fn;
  auto k = std::make_shared<KernelSpec>();
  k->func = func;
  k->grid = grid;
  k->block = block;
  k->shmem = shmem;
  k->cooperative = cooperative;
  k->buf = std::make_shared<std::vector<uint8_t>>(runtime::marshal_params(fn, args));
  k->offs = std::make_shared<std::vector<uint32_t>>(func::param_offsets(fn));
  k->ptrs = std::make_shared<std::vector<void*>>(k->offs->size());
  for (size_t i = 0; i < k->offs->size(); ++i) (*k->ptrs)[i] = k->buf->data() + (*k->offs)[i];
  spec = k;
  return 0;
}

int kernel_node(const KernelNodeParams* p, Node& n) {
  if (!p || !p->func) return abi::ErrInvalidValue;
  if (p->extra) {
    fmt::print(stderr, "warpsim: kernel nodes with 'extra' parameter buffers are not supported\n");
    return abi::ErrNotSupported;
  }
  std::shared_ptr<KernelSpec> spec;
  const bool coop = n.kernel && n.kernel->cooperative;
  if (int e = kernel_spec(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, coop, spec)) return e;
  if (n.kernel) spec->attrs = n.kernel->attrs;
  n.type = Kernel;
  n.kernel = spec;
  n.op = [spec](void* st) { return launch_spec(*spec, st); };
  return 0;
}

int memcpy_node(const abi::Memcpy3DParms* p, Node& n) {
  if (!p) return abi::ErrInvalidValue;
  n.type = Memcpy;
  n.copy = *p;
  const abi::Memcpy3DParms q = *p;
  n.op = [q](void* st) { return cudaMemcpy3DAsync(&q, st); };
  return 0;
}

// A 1D copy kept as the 3D parameters cudaGraphMemcpyNodeGetParams gives back.
int memcpy1d_node(void* dst, const void* src, size_t count, int kind, Node& n) {
  if (!dst || !src) return abi::ErrInvalidValue;
  n.type = Memcpy;
  n.copy = abi::Memcpy3DParms{};
  n.copy.srcPtr = abi::PitchedPtr{const_cast<void*>(src), count, count, 1};
  n.copy.dstPtr = abi::PitchedPtr{dst, count, count, 1};
  n.copy.extent = abi::Extent{count, 1, 1};
  n.copy.kind = kind;
  n.op = [=](void* st) { return cudaMemcpyAsync(dst, src, count, kind, st); };
  return 0;
}

int memset_node(const MemsetParams* p, Node& n) {
  if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)) return abi::ErrInvalidValue;
  const MemsetParams m = *p;
  n.type = Memset;
  n.memset = m;
  n.op = [m](void* st) -> int {
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
  };
  return 0;
}

int host_node(const HostNodeParams* p, Node& n) {
  if (!p || !p->fn) return abi::ErrInvalidValue;
  const HostNodeParams h = *p;
  n.type = Host;
  n.host = h;
  n.op = [h](void* st) { return cudaLaunchHostFunc(st, h.fn, h.userData); };
  return 0;
}

int event_node(int type, abi::Event ev, Node& n) {
  if (!ev) return abi::ErrInvalidValue;
  n.type = type;
  n.event = ev;
  // Work in a stream runs in issue order here, so waiting on an event is already satisfied.
  if (type == EventRecord) n.op = [ev](void* st) { return cudaEventRecord(ev, st); };
  return 0;
}

// The node indices of a graph in an order its edges allow (Kahn's algorithm, lowest index first:
// creation order where the edges allow it); empty if it has a cycle. Removed nodes are left out.
std::vector<size_t> topo_order(const GraphObj& gr, bool* cycle = nullptr) {
  const size_t n = gr.nodes.size();
  std::vector<size_t> indeg(n, 0), order;
  std::vector<std::vector<size_t>> out(n);
  size_t live = 0;
  for (size_t i = 0; i < n; ++i) {
    if (gr.nodes[i].removed) continue;
    ++live;
    for (size_t d : gr.nodes[i].deps) {
      ++indeg[i];
      out[d].push_back(i);
    }
  }
  std::set<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (!gr.nodes[i].removed && !indeg[i]) ready.insert(i);
  while (!ready.empty()) {
    size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (size_t j : out[i])
      if (--indeg[j] == 0) ready.insert(j);
  }
  if (cycle) *cycle = order.size() != live;
  return order;
}

bool has_cycle(const GraphObj& g) {
  bool c = false;
  topo_order(g, &c);
  if (c) return true;
  for (auto& n : g.nodes)
    for (auto& b : n.bodies)
      if (!n.removed && has_cycle(*b)) return true;
  return false;
}

void collect_handles(const GraphObj& g, std::vector<const CondHandle*>& out) {
  for (auto& h : g.handles) out.push_back(&h);
  for (auto& n : g.nodes)
    for (auto& b : n.bodies) collect_handles(*b, out);
}

int run_graph(const GraphObj& g, void* stream, const std::vector<char>* disabled);

// The value of a conditional handle once the work before it in the stream is done.
int read_condition(unsigned long long handle, void* stream, unsigned& v) {
  if (int e = cudaMemcpyAsync(&v, reinterpret_cast<void*>(handle), 4, abi::DeviceToHost, stream)) return e;
  return cudaStreamSynchronize(stream);
}

int run_node(const Node& n, void* stream) {
  switch (n.type) {
    case Kernel: case Memcpy: case Memset: case Host: case EventRecord:
      return n.op ? n.op(stream) : 0;
    case ChildGraph:
      return n.bodies.empty() ? 0 : run_graph(*n.bodies[0], stream, nullptr);
    case Conditional: {
      unsigned v = 0;
      if (int e = read_condition(n.cond, stream, v)) return e;
      if (n.cond_type == CondIf) {
        if (v) return run_graph(*n.bodies[0], stream, nullptr);
        return n.bodies.size() > 1 ? run_graph(*n.bodies[1], stream, nullptr) : 0;
      }
      if (n.cond_type == CondSwitch) return v < n.bodies.size() ? run_graph(*n.bodies[v], stream, nullptr) : 0;
      for (uint64_t it = 0; v; ++it) {
        if (it == kMaxWhileIterations) {
          fmt::print(stderr, "warpsim: a conditional while node ran {} iterations and its condition is still "
                             "non-zero; the graph launch is stopped (on hardware it would not end)\n", it);
          return abi::ErrLaunchFailure;
        }
        if (int e = run_graph(*n.bodies[0], stream, nullptr)) return e;
        if (int e = read_condition(n.cond, stream, v)) return e;
      }
      return 0;
    }
    default:  // empty, event wait (issue order), memory allocation and free (see the file comment)
      return 0;
  }
}

int run_graph(const GraphObj& g, void* stream, const std::vector<char>* disabled) {
  for (size_t i : topo_order(g)) {
    if (disabled && i < disabled->size() && (*disabled)[i]) continue;
    if (int e = run_node(g.nodes[i], stream)) return e;
  }
  return 0;
}

// ------------------------------------------------------------------ helpers of the API functions

int add(void** node, void* graph, const void* const* deps, size_t ndeps, Node n) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!node || !gr || !valid_deps(gr, deps, ndeps)) return ret(abi::ErrInvalidValue);
  std::vector<size_t> d;
  for (size_t i = 0; i < ndeps; ++i) d.push_back(static_cast<const NodeObj*>(deps[i])->index);
  *node = handle_for(gr, add_node(gr, std::move(n), d));
  return 0;
}

// Builds a node with `make` and adds it.
template <class F>
int add_with(void** node, void* graph, const void* const* deps, size_t ndeps, F make) {
  Node n;
  if (int e = make(n)) return ret(e);
  return add(node, graph, deps, ndeps, std::move(n));
}

// Changes a node of a graph (exec == nullptr) or of an executable graph's copy, after checking its
// type; `set` rebuilds the node from new parameters.
template <class F>
int set_node(void* exec, void* node, int type, F set) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  Node* n = node_of(node);
  if (!n || n->type != type) return ret(abi::ErrInvalidValue);
  Node* target = n;
  if (exec) {
    auto* x = static_cast<ExecObj*>(exec);
    auto* h = static_cast<NodeObj*>(node);
    if (!reg().execs.count(x) || h->graph != x->origin || h->index >= x->snap->nodes.size())
      return ret(abi::ErrInvalidValue);
    target = &x->snap->nodes[h->index];
  }
  Node c = *target;
  if (int e = set(c)) return ret(e);
  *target = std::move(c);
  return 0;
}

template <class F>
int get_node(void* node, int type, F get) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  Node* n = node_of(node);
  if (!n || n->type != type) return ret(abi::ErrInvalidValue);
  return get(*n) ? ret(abi::ErrInvalidValue) : 0;
}

// A graph-allocation node: memory now, owned as the file comment says.
int alloc_node(MemAllocNodeParams* p, Node& n) {
  if (!p || !p->bytesize) return abi::ErrInvalidValue;
  if (p->poolProps.allocType != 1 /* cudaMemAllocationTypePinned */ || p->poolProps.location.type != 1 /* Device */)
    return abi::ErrInvalidValue;
  State& s = State::instance();
  uint64_t a = s.dev->memory().allocate(p->bytesize, 256, "graph memory node");
  if (!a) return abi::ErrMemoryAllocation;
  auto ga = std::make_shared<GraphAlloc>();
  ga->addr = a;
  ga->bytes = p->bytesize;
  reg().allocs[a] = ga;
  reg().alloc_bytes += p->bytesize;
  reg().alloc_high = std::max(reg().alloc_high, reg().alloc_bytes);
  p->dptr = reinterpret_cast<void*>(a);
  n.type = MemAlloc;
  n.alloc = ga;
  n.alloc_params = *p;
  n.alloc_params.accessDescs = nullptr;
  n.alloc_params.accessDescCount = 0;
  return 0;
}

// A free node: only of memory an allocation node made.
int free_node(void* dptr, Node& n) {
  auto it = reg().allocs.find(reinterpret_cast<uint64_t>(dptr));
  auto a = it == reg().allocs.end() ? nullptr : it->second.lock();
  if (!a) return abi::ErrInvalidValue;
  a->freed = true;
  n.type = MemFree;
  n.free_ptr = dptr;
  return 0;
}

// A conditional node and its bodies (registered as graph handles while the node's graph is one).
int conditional_node(GraphObj* owner, ConditionalNodeParams* p, Node& n) {
  if (!p) return abi::ErrInvalidValue;
  bool known = false;
  for (auto& h : owner->handles) known |= h.addr == p->handle;
  const bool size_ok = (p->type == CondWhile && p->size == 1) || (p->type == CondIf && (p->size == 1 || p->size == 2)) ||
                       (p->type == CondSwitch && p->size >= 1);
  if (!known || !size_ok) return abi::ErrInvalidValue;
  n.type = Conditional;
  n.cond = p->handle;
  n.cond_type = p->type;
  n.body_handles = std::make_shared<std::vector<void*>>();
  for (unsigned i = 0; i < p->size; ++i) {
    n.bodies.push_back(std::make_shared<GraphObj>());
    n.body_handles->push_back(n.bodies.back().get());
  }
  p->phGraph_out = n.body_handles->data();
  return 0;
}

// A child graph node: a deep copy of `child`, or `child` itself when it is moved in.
int child_node(void* graph, void* child, bool move, Node& n) {
  GraphObj* c = graph_of(child);
  if (!c || c == graph) return abi::ErrInvalidValue;
  if (has_cycle(*c)) return abi::ErrInvalidValue;
  for (auto& cn : c->nodes)
    if (!cn.removed && (cn.type == MemAlloc || cn.type == MemFree)) return abi::ErrNotSupported;
  n.type = ChildGraph;
  if (move) {
    n.bodies.push_back(reg().graphs[c]);
    reg().owned.erase(c);  // the parent owns it now
  } else {
    n.bodies.push_back(deep_copy(*c));
  }
  return 0;
}

void destroy_graph(GraphObj* gr) {
  register_bodies(*gr, false);
  for (auto i = reg().nodes.begin(); i != reg().nodes.end();) {
    if (!reg().graphs.count((*i)->graph) || (*i)->graph == gr) {
      reg().node_at.erase({(*i)->graph, (*i)->index});
      delete *i;
      i = reg().nodes.erase(i);
    } else {
      ++i;
    }
  }
  for (void* p : gr->deferred_frees) cudaFree(p);
  gr->deferred_frees.clear();
  drop_user_refs(*gr);
  reg().capture_ids.erase(gr);
  reg().owned.erase(gr);
  reg().graphs.erase(gr);  // the last reference unless an executable graph or a parent holds it
}

GraphObj* new_graph() {
  auto g = std::make_shared<GraphObj>();
  reg().graphs[g.get()] = g;
  reg().owned.insert(g.get());
  return g.get();
}

// ------------------------------------------------------------------ capture helpers

std::shared_ptr<Capture> capture_of(void* stream) {
  auto it = reg().capturing.find(stream);
  return it == reg().capturing.end() ? nullptr : it->second;
}

// Adds a captured node after the stream's previous one.
void capture_node(const std::shared_ptr<Capture>& c, void* stream, Node n) {
  auto& tail = c->tails[stream];
  size_t i = add_node(c->graph, std::move(n), tail);
  tail = {i};
}

}  // namespace

namespace warpsim::cudart {

bool capture_op(void* stream, std::function<int(void*)> op, int type) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  if (!c) return false;
  Node n;
  n.type = type;
  n.op = std::move(op);
  capture_node(c, stream, std::move(n));
  return true;
}

bool capture_launch(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream,
                    bool cooperative, int& err) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  if (!c) return false;
  std::shared_ptr<KernelSpec> spec;
  err = kernel_spec(func, grid, block, args, shmem, cooperative, spec);
  if (err) return true;
  if (cooperative) spec->attrs[kAttrCooperative][0] = 1;
  Node n;
  n.type = Kernel;
  n.kernel = spec;
  n.op = [spec](void* st) { return launch_spec(*spec, st); };
  capture_node(c, stream, std::move(n));
  return true;
}

bool capture_event_record(void* event, void* stream) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  if (!c) {
    reg().event_capture.erase(event);
    return false;
  }
  reg().event_capture[event] = {c, c->tails[stream]};
  return true;
}

bool capture_wait_event(void* stream, void* event) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto e = reg().event_capture.find(event);
  auto mine = capture_of(stream);
  if (e == reg().event_capture.end()) return mine != nullptr;
  auto& [c, deps] = e->second;
  if (!mine) {
    // Fork: the waiting stream joins the capture the event belongs to.
    reg().capturing[stream] = c;
    c->tails[stream] = deps;
    return true;
  }
  if (mine != c) return true;  // another capture's event: nothing to order here
  auto& t = c->tails[stream];
  for (size_t d : deps)
    if (std::find(t.begin(), t.end(), d) == t.end()) t.push_back(d);
  return true;
}

bool capture_malloc(void* stream, void** ptr, size_t size, int& err) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  if (!c) return false;
  MemAllocNodeParams p{};
  p.poolProps.allocType = 1;
  p.poolProps.location.type = 1;
  p.bytesize = size;
  Node n;
  err = ptr ? alloc_node(&p, n) : abi::ErrInvalidValue;
  if (err) return true;
  *ptr = p.dptr;
  capture_node(c, stream, std::move(n));
  return true;
}

bool capture_free(void* stream, void* ptr) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  if (!c) return false;
  Node n;
  if (free_node(ptr, n)) {
    // Memory no allocation node made: freed with the graph.
    n.type = MemFree;
    n.free_ptr = ptr;
    c->graph->deferred_frees.push_back(ptr);
  }
  capture_node(c, stream, std::move(n));
  return true;
}

bool graph_free(const void* ptr) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto it = reg().allocs.find(reinterpret_cast<uint64_t>(ptr));
  auto a = it == reg().allocs.end() ? nullptr : it->second.lock();
  if (!a) return false;
  a->freed = true;
  return true;
}

int capture_status(void* stream, unsigned long long* id) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  if (!c) return 0;  // cudaStreamCaptureStatusNone
  if (id) *id = reg().capture_ids[c->graph];
  return 1;  // cudaStreamCaptureStatusActive
}

int capture_info(void* stream, int* status, unsigned long long* id, void** graph, const void** deps, size_t* ndeps) {
  State& s = State::instance();
  std::lock_guard g(s.mu);
  if (!status) return abi::ErrInvalidValue;
  auto c = capture_of(stream);
  *status = c ? 1 : 0;
  if (id) *id = c ? reg().capture_ids[c->graph] : 0;
  if (graph) *graph = c ? c->graph : nullptr;
  static thread_local std::vector<void*> hs;  // valid until the next call, as the runtime's
  hs.clear();
  if (c)
    for (size_t i : c->tails[stream]) hs.push_back(handle_for(c->graph, i));
  if (deps) *deps = hs.empty() ? nullptr : hs.data();
  if (ndeps) *ndeps = hs.size();
  return 0;
}

}  // namespace warpsim::cudart

// ------------------------------------------------------------------ capture

namespace {
int begin_capture(void* stream, GraphObj* gr, std::vector<size_t> deps, int mode) {
  // The legacy default stream cannot be captured.
  if (stream == nullptr || reinterpret_cast<uintptr_t>(stream) == 1) return abi::ErrStreamCaptureUnsupported;
  if (reg().capturing.count(stream)) return abi::ErrIllegalState;
  auto c = std::make_shared<Capture>();
  c->graph = gr;
  c->origin = stream;
  c->mode = mode;
  c->tails[stream] = std::move(deps);
  reg().capture_ids[gr] = reg().next_capture_id++;
  reg().capturing[stream] = c;
  return 0;
}
}  // namespace

CUDART_API abi::Error cudaStreamBeginCapture(abi::Stream stream, int mode) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (stream == nullptr || reinterpret_cast<uintptr_t>(stream) == 1) return ret(abi::ErrStreamCaptureUnsupported);
  if (reg().capturing.count(stream)) return ret(abi::ErrIllegalState);
  GraphObj* gr = new_graph();
  return ret(begin_capture(stream, gr, {}, mode));
}
CUDART_API abi::Error cudaStreamBeginCapture_ptsz(abi::Stream stream, int mode) {
  return cudaStreamBeginCapture(stream, mode);
}

// Captures into an existing graph, the first captured node depending on `deps`.
CUDART_API abi::Error cudaStreamBeginCaptureToGraph(abi::Stream stream, void* graph, const void* const* deps,
                                                    const void* edgeData, size_t ndeps, int mode) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!gr || !valid_deps(gr, deps, ndeps)) return ret(abi::ErrInvalidValue);
  (void)edgeData;
  std::vector<size_t> d;
  for (size_t i = 0; i < ndeps; ++i) d.push_back(static_cast<const NodeObj*>(deps[i])->index);
  return ret(begin_capture(stream, gr, std::move(d), mode));
}
CUDART_API abi::Error cudaStreamBeginCaptureToGraph_ptsz(abi::Stream stream, void* graph, const void* const* deps,
                                                         const void* edgeData, size_t ndeps, int mode) {
  return cudaStreamBeginCaptureToGraph(stream, graph, deps, edgeData, ndeps, mode);
}

CUDART_API abi::Error cudaStreamEndCapture(abi::Stream stream, void** graph) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  // pGraph may be NULL: programs end captures into their own graph (cudaStreamBeginCaptureToGraph,
  // the bodies of conditional nodes) without asking for it back. Our H100 ends the capture and
  // succeeds with NULL for a capture into a new graph too (validation/driver/h100_capture_to_graph.out).
  if (!c) return ret(abi::ErrIllegalState);
  if (c->origin != stream) return ret(abi::ErrStreamCaptureUnmatched);
  for (auto i = reg().capturing.begin(); i != reg().capturing.end();)
    i = i->second == c ? reg().capturing.erase(i) : std::next(i);
  for (auto i = reg().event_capture.begin(); i != reg().event_capture.end();)
    i = i->second.first == c ? reg().event_capture.erase(i) : std::next(i);
  if (graph) *graph = c->graph;
  return 0;
}
CUDART_API abi::Error cudaStreamEndCapture_ptsz(abi::Stream stream, void** graph) {
  return cudaStreamEndCapture(stream, graph);
}

// flags: cudaStreamAddCaptureDependencies 0 adds to the stream's dependencies, ...Set 1 replaces them.
CUDART_API abi::Error cudaStreamUpdateCaptureDependencies(abi::Stream stream, void* const* deps, const void* edgeData,
                                                          size_t ndeps, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto c = capture_of(stream);
  if (!c) return ret(abi::ErrIllegalState);
  if (flags > 1 || !valid_deps(c->graph, deps, ndeps)) return ret(abi::ErrInvalidValue);
  (void)edgeData;
  auto& t = c->tails[stream];
  if (flags == 1) t.clear();
  for (size_t i = 0; i < ndeps; ++i) {
    size_t d = static_cast<const NodeObj*>(deps[i])->index;
    if (std::find(t.begin(), t.end(), d) == t.end()) t.push_back(d);
  }
  return 0;
}
CUDART_API abi::Error cudaStreamUpdateCaptureDependencies_ptsz(abi::Stream stream, void* const* deps,
                                                               const void* edgeData, size_t ndeps, unsigned int flags) {
  return cudaStreamUpdateCaptureDependencies(stream, deps, edgeData, ndeps, flags);
}

// ------------------------------------------------------------------ graphs

CUDART_API abi::Error cudaGraphCreate(void** graph, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!graph || flags) return ret(abi::ErrInvalidValue);
  *graph = new_graph();
  return 0;
}

CUDART_API abi::Error cudaGraphDestroy(void* graph) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* gr = static_cast<GraphObj*>(graph);
  if (!reg().owned.count(gr)) return ret(abi::ErrInvalidValue);
  destroy_graph(gr);
  return 0;
}

CUDART_API abi::Error cudaGraphAddKernelNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                             const KernelNodeParams* p) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return kernel_node(p, n); });
}

CUDART_API abi::Error cudaGraphAddMemcpyNode1D(void** node, void* graph, const void* const* deps, size_t ndeps,
                                               void* dst, const void* src, size_t count, int kind) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return memcpy1d_node(dst, src, count, kind, n); });
}

CUDART_API abi::Error cudaGraphAddMemcpyNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                             const abi::Memcpy3DParms* p) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return memcpy_node(p, n); });
}

namespace {
// A copy to or from a __device__ / __constant__ symbol as a 1D copy of its address.
int symbol_copy(const void* symbol, size_t offset, void*& addr) {
  void* base = nullptr;
  if (int e = cudaGetSymbolAddress(&base, symbol)) return e;
  addr = static_cast<char*>(base) + offset;
  return 0;
}
}  // namespace

CUDART_API abi::Error cudaGraphAddMemcpyNodeToSymbol(void** node, void* graph, const void* const* deps, size_t ndeps,
                                                     const void* symbol, const void* src, size_t count, size_t offset,
                                                     int kind) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) {
    void* dst;
    if (int e = symbol_copy(symbol, offset, dst)) return e;
    return memcpy1d_node(dst, src, count, kind, n);
  });
}
CUDART_API abi::Error cudaGraphAddMemcpyNodeFromSymbol(void** node, void* graph, const void* const* deps,
                                                       size_t ndeps, void* dst, const void* symbol, size_t count,
                                                       size_t offset, int kind) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) {
    void* src;
    if (int e = symbol_copy(symbol, offset, src)) return e;
    return memcpy1d_node(dst, src, count, kind, n);
  });
}

CUDART_API abi::Error cudaGraphAddMemsetNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                             const MemsetParams* p) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return memset_node(p, n); });
}

CUDART_API abi::Error cudaGraphAddHostNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                           const HostNodeParams* p) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return host_node(p, n); });
}

CUDART_API abi::Error cudaGraphAddEmptyNode(void** node, void* graph, const void* const* deps, size_t ndeps) {
  return add_with(node, graph, deps, ndeps, [](Node&) { return 0; });
}

CUDART_API abi::Error cudaGraphAddEventRecordNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                                  abi::Event event) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return event_node(EventRecord, event, n); });
}
CUDART_API abi::Error cudaGraphAddEventWaitNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                                abi::Event event) {
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return event_node(WaitEvent, event, n); });
}

// The child graph is copied now (as the runtime clones it) and runs as one node.
CUDART_API abi::Error cudaGraphAddChildGraphNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                                 void* child) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return child_node(graph, child, false, n); });
}

CUDART_API abi::Error cudaGraphAddMemAllocNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                               MemAllocNodeParams* p) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!graph_of(graph) || !valid_deps(graph_of(graph), deps, ndeps)) return ret(abi::ErrInvalidValue);
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return alloc_node(p, n); });
}

CUDART_API abi::Error cudaGraphAddMemFreeNode(void** node, void* graph, const void* const* deps, size_t ndeps,
                                              void* dptr) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  return add_with(node, graph, deps, ndeps, [&](Node& n) { return free_node(dptr, n); });
}

CUDART_API abi::Error cudaGraphConditionalHandleCreate(unsigned long long* handle, void* graph,
                                                       unsigned int defaultValue, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!handle || !gr || flags > 1) return ret(abi::ErrInvalidValue);
  // The handle's word in device memory; it lives as long as the process (4 bytes per handle).
  uint64_t a = s.dev->memory().allocate(4, 4, "conditional handle");
  if (!a) return ret(abi::ErrMemoryAllocation);
  s.dev->memory().write(a, &defaultValue, 4);
  gr->handles.push_back(CondHandle{a, defaultValue, flags});
  *handle = a;
  return 0;
}

// cudaGraphAddNode / cudaGraphNodeSetParams / cudaGraphExecNodeSetParams: the generic forms.
namespace {
int node_from_params(GraphObj* gr, void* graph, GraphNodeParams* p, Node& n) {
  if (!p) return abi::ErrInvalidValue;
  switch (p->type) {
    case Kernel: return kernel_node(&p->kernel, n);
    case Memcpy: return memcpy_node(&p->memcpy.copyParams, n);
    case Memset: return memset_node(&p->memset, n);
    case Host: return host_node(&p->host, n);
    case ChildGraph: return child_node(graph, p->graph.graph, p->graph.ownership == 1, n);
    case Empty: n.type = Empty; return 0;
    case WaitEvent: case EventRecord: return event_node(p->type, p->event.event, n);
    case MemAlloc: return alloc_node(&p->alloc, n);
    case MemFree: return free_node(p->free.dptr, n);
    case Conditional: return conditional_node(gr, &p->conditional, n);
    default:
      fmt::print(stderr, "warpsim: graph nodes of type {} (external semaphores, batch memory operations) are not "
                         "supported\n", p->type);
      return abi::ErrNotSupported;
  }
}
}  // namespace

CUDART_API abi::Error cudaGraphAddNode(void** node, void* graph, const void* const* deps, const void* edgeData,
                                       size_t ndeps, GraphNodeParams* p) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!node || !gr || !valid_deps(gr, deps, ndeps)) return ret(abi::ErrInvalidValue);
  (void)edgeData;
  Node n;
  if (int e = node_from_params(gr, graph, p, n)) return ret(e);
  for (auto& b : n.bodies) {
    reg().graphs[b.get()] = b;
    register_bodies(*b, true);
  }
  return add(node, graph, deps, ndeps, std::move(n));
}
CUDART_API abi::Error cudaGraphAddNode_v2(void** node, void* graph, const void* const* deps, const void* edgeData,
                                          size_t ndeps, GraphNodeParams* p) {
  return cudaGraphAddNode(node, graph, deps, edgeData, ndeps, p);
}

namespace {
int set_from_params(void* exec, void* node, GraphNodeParams* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  switch (p->type) {
    case Kernel: return set_node(exec, node, Kernel, [&](Node& n) { return kernel_node(&p->kernel, n); });
    case Memcpy: return set_node(exec, node, Memcpy, [&](Node& n) { return memcpy_node(&p->memcpy.copyParams, n); });
    case Memset: return set_node(exec, node, Memset, [&](Node& n) { return memset_node(&p->memset, n); });
    case Host: return set_node(exec, node, Host, [&](Node& n) { return host_node(&p->host, n); });
    case WaitEvent: case EventRecord:
      return set_node(exec, node, p->type, [&](Node& n) { return event_node(p->type, p->event.event, n); });
    case ChildGraph:
      return set_node(exec, node, ChildGraph, [&](Node& n) {
        GraphObj* c = graph_of(p->graph.graph);
        if (!c || has_cycle(*c)) return int(abi::ErrInvalidValue);
        // The new graph must have the node's shape (as cudaGraphExecChildGraphNodeSetParams asks).
        if (exec && c->nodes.size() != n.bodies[0]->nodes.size()) return int(abi::ErrInvalidValue);
        n.bodies[0] = deep_copy(*c);
        return 0;
      });
    default: return ret(abi::ErrInvalidValue);
  }
}
}  // namespace

CUDART_API abi::Error cudaGraphNodeSetParams(void* node, GraphNodeParams* p) { return set_from_params(nullptr, node, p); }
CUDART_API abi::Error cudaGraphExecNodeSetParams(void* exec, void* node, GraphNodeParams* p) {
  return set_from_params(exec, node, p);
}

// ------------------------------------------------------------------ structure

CUDART_API abi::Error cudaGraphAddDependencies(void* graph, const void* const* from, const void* const* to,
                                               const void* edgeData, size_t n) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!gr || !valid_deps(gr, from, n) || !valid_deps(gr, to, n) || (n && (!from || !to))) return ret(abi::ErrInvalidValue);
  (void)edgeData;
  for (size_t i = 0; i < n; ++i) {
    auto& d = gr->nodes[static_cast<const NodeObj*>(to[i])->index].deps;
    size_t f = static_cast<const NodeObj*>(from[i])->index;
    if (std::find(d.begin(), d.end(), f) == d.end()) d.push_back(f);
  }
  return 0;
}

CUDART_API abi::Error cudaGraphRemoveDependencies(void* graph, const void* const* from, const void* const* to,
                                                  const void* edgeData, size_t n) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!gr || !valid_deps(gr, from, n) || !valid_deps(gr, to, n) || (n && (!from || !to))) return ret(abi::ErrInvalidValue);
  (void)edgeData;
  // Every edge must exist (the runtime answers cudaErrorInvalidValue otherwise, changing nothing).
  for (size_t i = 0; i < n; ++i) {
    auto& d = gr->nodes[static_cast<const NodeObj*>(to[i])->index].deps;
    if (std::find(d.begin(), d.end(), static_cast<const NodeObj*>(from[i])->index) == d.end())
      return ret(abi::ErrInvalidValue);
  }
  for (size_t i = 0; i < n; ++i) {
    auto& d = gr->nodes[static_cast<const NodeObj*>(to[i])->index].deps;
    d.erase(std::find(d.begin(), d.end(), static_cast<const NodeObj*>(from[i])->index));
  }
  return 0;
}

CUDART_API abi::Error cudaGraphDestroyNode(void* node) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  Node* n = node_of(node);
  if (!n) return ret(abi::ErrInvalidValue);
  auto* h = static_cast<NodeObj*>(node);
  register_bodies(*h->graph, false);
  n->removed = true;
  n->op = nullptr;
  n->kernel.reset();
  n->bodies.clear();
  n->alloc.reset();
  n->deps.clear();
  register_bodies(*h->graph, true);
  for (auto& other : h->graph->nodes) {
    auto& d = other.deps;
    d.erase(std::remove(d.begin(), d.end(), h->index), d.end());
  }
  return 0;
}

namespace {
// Copies a list out as the runtime's query functions do: the count when `out` is null, else at
// most *count entries and *count set to how many there are... (the runtime sets *count to the
// number written when the array is larger, and to the total otherwise).
template <class T>
void give_list(const std::vector<T>& all, T* out, size_t* count) {
  if (!out) {
    *count = all.size();
    return;
  }
  size_t k = std::min(all.size(), *count);
  for (size_t i = 0; i < k; ++i) out[i] = all[i];
  for (size_t i = k; i < *count; ++i) out[i] = T{};
  *count = all.size() < *count ? all.size() : *count;
}
}  // namespace

CUDART_API abi::Error cudaGraphGetNodes(void* graph, void** nodes, size_t* count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!gr || !count) return ret(abi::ErrInvalidValue);
  std::vector<void*> all;
  for (size_t i = 0; i < gr->nodes.size(); ++i)
    if (!gr->nodes[i].removed) all.push_back(handle_for(gr, i));
  give_list(all, nodes, count);
  return 0;
}

CUDART_API abi::Error cudaGraphGetRootNodes(void* graph, void** roots, size_t* count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!gr || !count) return ret(abi::ErrInvalidValue);
  std::vector<void*> all;
  for (size_t i = 0; i < gr->nodes.size(); ++i)
    if (!gr->nodes[i].removed && gr->nodes[i].deps.empty()) all.push_back(handle_for(gr, i));
  give_list(all, roots, count);
  return 0;
}

// cudaGraphEdgeData is 8 bytes (from_port, to_port, type, reserved[5]); every edge here is a
// default one (all zero).
CUDART_API abi::Error cudaGraphGetEdges(void* graph, void** from, void** to, void* edgeData, size_t* count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!gr || !count || (!from) != (!to)) return ret(abi::ErrInvalidValue);
  std::vector<void*> f, t;
  for (size_t i = 0; i < gr->nodes.size(); ++i)
    if (!gr->nodes[i].removed)
      for (size_t d : gr->nodes[i].deps) {
        f.push_back(handle_for(gr, d));
        t.push_back(handle_for(gr, i));
      }
  size_t n = *count;
  give_list(f, from, count);
  if (to) give_list(t, to, &n);
  if (edgeData && from) std::memset(edgeData, 0, 8 * std::min(n, f.size()));
  return 0;
}

CUDART_API abi::Error cudaGraphNodeGetDependencies(void* node, void** deps, void* edgeData, size_t* count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  Node* n = node_of(node);
  if (!n || !count) return ret(abi::ErrInvalidValue);
  GraphObj* gr = static_cast<NodeObj*>(node)->graph;
  std::vector<void*> all;
  for (size_t d : n->deps) all.push_back(handle_for(gr, d));
  give_list(all, deps, count);
  if (edgeData && deps) std::memset(edgeData, 0, 8 * std::min(*count, all.size()));
  return 0;
}

CUDART_API abi::Error cudaGraphNodeGetDependentNodes(void* node, void** out, void* edgeData, size_t* count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  Node* n = node_of(node);
  if (!n || !count) return ret(abi::ErrInvalidValue);
  auto* h = static_cast<NodeObj*>(node);
  std::vector<void*> all;
  for (size_t i = 0; i < h->graph->nodes.size(); ++i) {
    const Node& o = h->graph->nodes[i];
    if (!o.removed && std::find(o.deps.begin(), o.deps.end(), h->index) != o.deps.end())
      all.push_back(handle_for(h->graph, i));
  }
  give_list(all, out, count);
  if (edgeData && out) std::memset(edgeData, 0, 8 * std::min(*count, all.size()));
  return 0;
}

CUDART_API abi::Error cudaGraphNodeGetType(void* node, int* type) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  Node* n = node_of(node);
  if (!n || !type) return ret(abi::ErrInvalidValue);
  *type = n->type;
  return 0;
}

CUDART_API abi::Error cudaGraphClone(void** clone, void* graph) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!clone || !gr) return ret(abi::ErrInvalidValue);
  GraphPtr c = deep_copy(*gr);
  reg().graphs[c.get()] = c;
  reg().owned.insert(c.get());
  register_bodies(*c, true);
  *clone = c.get();
  return 0;
}

// A clone's nodes are at the same indices as the original's.
CUDART_API abi::Error cudaGraphNodeFindInClone(void** found, void* original, void* clone) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* h = static_cast<NodeObj*>(original);
  GraphObj* c = graph_of(clone);
  if (!found || !node_of(original) || !c || h->index >= c->nodes.size() || c->nodes[h->index].removed)
    return ret(abi::ErrInvalidValue);
  *found = handle_for(c, h->index);
  return 0;
}

// ------------------------------------------------------------------ node parameters

CUDART_API abi::Error cudaGraphKernelNodeGetParams(void* node, KernelNodeParams* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  return get_node(node, Kernel, [&](const Node& n) {
    p->func = const_cast<void*>(n.kernel->func);
    p->gridDim = n.kernel->grid;
    p->blockDim = n.kernel->block;
    p->sharedMemBytes = unsigned(n.kernel->shmem);
    p->kernelParams = n.kernel->ptrs->data();
    p->extra = nullptr;
    return 0;
  });
}
CUDART_API abi::Error cudaGraphKernelNodeSetParams(void* node, const KernelNodeParams* p) {
  return set_node(nullptr, node, Kernel, [&](Node& n) { return kernel_node(p, n); });
}
CUDART_API abi::Error cudaGraphExecKernelNodeSetParams(void* exec, void* node, const KernelNodeParams* p) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, Kernel, [&](Node& n) {
    // The function may not change in an instantiated graph.
    if (p && n.kernel && p->func != n.kernel->func) return int(abi::ErrInvalidValue);
    return kernel_node(p, n);
  });
}

// Launch attributes of kernel nodes: kept per node and handed back; cooperative launches made so.
CUDART_API abi::Error cudaGraphKernelNodeSetAttribute(void* node, int attr, const void* value) {
  if (!value) return ret(abi::ErrInvalidValue);
  return set_node(nullptr, node, Kernel, [&](Node& n) {
    auto k = std::make_shared<KernelSpec>(*n.kernel);
    std::memcpy(k->attrs[attr].data(), value, sizeof(AttrValue));
    if (attr == kAttrCooperative) k->cooperative = *static_cast<const int*>(value) != 0;
    if (attr == kAttrPriority) {
      // Clamped into the device's range [-5, 0] (cudaDeviceGetStreamPriorityRange), as our H100
      // reads back 0 after 3 and -2 after -2.
      int prio;
      std::memcpy(&prio, value, 4);
      prio = std::clamp(prio, -5, 0);
      std::memcpy(k->attrs[attr].data(), &prio, 4);
    }
    n.kernel = k;
    n.op = [k](void* st) { return launch_spec(*k, st); };
    return 0;
  });
}
CUDART_API abi::Error cudaGraphKernelNodeGetAttribute(void* node, int attr, void* value) {
  if (!value) return ret(abi::ErrInvalidValue);
  return get_node(node, Kernel, [&](const Node& n) {
    auto it = n.kernel->attrs.find(attr);
    if (it == n.kernel->attrs.end()) std::memset(value, 0, sizeof(AttrValue));
    else std::memcpy(value, it->second.data(), sizeof(AttrValue));
    return 0;
  });
}
CUDART_API abi::Error cudaGraphKernelNodeCopyAttributes(void* dst, void* src) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  Node* from = node_of(src);
  if (!from || from->type != Kernel) return ret(abi::ErrInvalidValue);
  auto attrs = from->kernel->attrs;
  return set_node(nullptr, dst, Kernel, [&](Node& n) {
    auto k = std::make_shared<KernelSpec>(*n.kernel);
    k->attrs = attrs;
    auto c = attrs.find(kAttrCooperative);
    k->cooperative = c != attrs.end() && c->second[0];
    n.kernel = k;
    n.op = [k](void* st) { return launch_spec(*k, st); };
    return 0;
  });
}

CUDART_API abi::Error cudaGraphMemcpyNodeGetParams(void* node, abi::Memcpy3DParms* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  return get_node(node, Memcpy, [&](const Node& n) {
    *p = n.copy;
    return 0;
  });
}
CUDART_API abi::Error cudaGraphMemcpyNodeSetParams(void* node, const abi::Memcpy3DParms* p) {
  return set_node(nullptr, node, Memcpy, [&](Node& n) { return memcpy_node(p, n); });
}
CUDART_API abi::Error cudaGraphExecMemcpyNodeSetParams(void* exec, void* node, const abi::Memcpy3DParms* p) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, Memcpy, [&](Node& n) { return memcpy_node(p, n); });
}
CUDART_API abi::Error cudaGraphMemcpyNodeSetParams1D(void* node, void* dst, const void* src, size_t count, int kind) {
  return set_node(nullptr, node, Memcpy, [&](Node& n) { return memcpy1d_node(dst, src, count, kind, n); });
}
CUDART_API abi::Error cudaGraphExecMemcpyNodeSetParams1D(void* exec, void* node, void* dst, const void* src,
                                                         size_t count, int kind) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, Memcpy, [&](Node& n) { return memcpy1d_node(dst, src, count, kind, n); });
}
CUDART_API abi::Error cudaGraphMemcpyNodeSetParamsToSymbol(void* node, const void* symbol, const void* src,
                                                           size_t count, size_t offset, int kind) {
  return set_node(nullptr, node, Memcpy, [&](Node& n) {
    void* dst;
    if (int e = symbol_copy(symbol, offset, dst)) return e;
    return memcpy1d_node(dst, src, count, kind, n);
  });
}
CUDART_API abi::Error cudaGraphMemcpyNodeSetParamsFromSymbol(void* node, void* dst, const void* symbol, size_t count,
                                                             size_t offset, int kind) {
  return set_node(nullptr, node, Memcpy, [&](Node& n) {
    void* src;
    if (int e = symbol_copy(symbol, offset, src)) return e;
    return memcpy1d_node(dst, src, count, kind, n);
  });
}
CUDART_API abi::Error cudaGraphExecMemcpyNodeSetParamsToSymbol(void* exec, void* node, const void* symbol,
                                                               const void* src, size_t count, size_t offset, int kind) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, Memcpy, [&](Node& n) {
    void* dst;
    if (int e = symbol_copy(symbol, offset, dst)) return e;
    return memcpy1d_node(dst, src, count, kind, n);
  });
}
CUDART_API abi::Error cudaGraphExecMemcpyNodeSetParamsFromSymbol(void* exec, void* node, void* dst,
                                                                 const void* symbol, size_t count, size_t offset,
                                                                 int kind) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, Memcpy, [&](Node& n) {
    void* src;
    if (int e = symbol_copy(symbol, offset, src)) return e;
    return memcpy1d_node(dst, src, count, kind, n);
  });
}

CUDART_API abi::Error cudaGraphMemsetNodeGetParams(void* node, MemsetParams* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  return get_node(node, Memset, [&](const Node& n) {
    *p = n.memset;
    return 0;
  });
}
CUDART_API abi::Error cudaGraphMemsetNodeSetParams(void* node, const MemsetParams* p) {
  return set_node(nullptr, node, Memset, [&](Node& n) { return memset_node(p, n); });
}
CUDART_API abi::Error cudaGraphExecMemsetNodeSetParams(void* exec, void* node, const MemsetParams* p) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, Memset, [&](Node& n) { return memset_node(p, n); });
}

CUDART_API abi::Error cudaGraphHostNodeGetParams(void* node, HostNodeParams* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  return get_node(node, Host, [&](const Node& n) {
    *p = n.host;
    return 0;
  });
}
CUDART_API abi::Error cudaGraphHostNodeSetParams(void* node, const HostNodeParams* p) {
  return set_node(nullptr, node, Host, [&](Node& n) { return host_node(p, n); });
}
CUDART_API abi::Error cudaGraphExecHostNodeSetParams(void* exec, void* node, const HostNodeParams* p) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, Host, [&](Node& n) { return host_node(p, n); });
}

// The embedded graph itself (changes to it show in the node, as the runtime documents).
CUDART_API abi::Error cudaGraphChildGraphNodeGetGraph(void* node, void** graph) {
  if (!graph) return ret(abi::ErrInvalidValue);
  return get_node(node, ChildGraph, [&](const Node& n) {
    reg().graphs[n.bodies[0].get()] = n.bodies[0];
    *graph = n.bodies[0].get();
    return 0;
  });
}
CUDART_API abi::Error cudaGraphExecChildGraphNodeSetParams(void* exec, void* node, void* child) {
  GraphNodeParams p{};
  p.type = ChildGraph;
  p.graph.graph = child;
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_from_params(exec, node, &p);
}

CUDART_API abi::Error cudaGraphEventRecordNodeGetEvent(void* node, abi::Event* ev) {
  if (!ev) return ret(abi::ErrInvalidValue);
  return get_node(node, EventRecord, [&](const Node& n) {
    *ev = n.event;
    return 0;
  });
}
CUDART_API abi::Error cudaGraphEventWaitNodeGetEvent(void* node, abi::Event* ev) {
  if (!ev) return ret(abi::ErrInvalidValue);
  return get_node(node, WaitEvent, [&](const Node& n) {
    *ev = n.event;
    return 0;
  });
}
CUDART_API abi::Error cudaGraphEventRecordNodeSetEvent(void* node, abi::Event ev) {
  return set_node(nullptr, node, EventRecord, [&](Node& n) { return event_node(EventRecord, ev, n); });
}
CUDART_API abi::Error cudaGraphEventWaitNodeSetEvent(void* node, abi::Event ev) {
  return set_node(nullptr, node, WaitEvent, [&](Node& n) { return event_node(WaitEvent, ev, n); });
}
CUDART_API abi::Error cudaGraphExecEventRecordNodeSetEvent(void* exec, void* node, abi::Event ev) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, EventRecord, [&](Node& n) { return event_node(EventRecord, ev, n); });
}
CUDART_API abi::Error cudaGraphExecEventWaitNodeSetEvent(void* exec, void* node, abi::Event ev) {
  if (!exec) return ret(abi::ErrInvalidValue);
  return set_node(exec, node, WaitEvent, [&](Node& n) { return event_node(WaitEvent, ev, n); });
}

CUDART_API abi::Error cudaGraphMemAllocNodeGetParams(void* node, MemAllocNodeParams* p) {
  if (!p) return ret(abi::ErrInvalidValue);
  return get_node(node, MemAlloc, [&](const Node& n) {
    *p = n.alloc_params;
    return 0;
  });
}
CUDART_API abi::Error cudaGraphMemFreeNodeGetParams(void* node, void** dptr) {
  if (!dptr) return ret(abi::ErrInvalidValue);
  return get_node(node, MemFree, [&](const Node& n) {
    *dptr = n.free_ptr;
    return 0;
  });
}

// Graph memory of the device (cudaGraphMemAttrUsedMemCurrent 0, UsedMemHigh 1, ReservedMemCurrent 2,
// ReservedMemHigh 3; 64-bit values): what allocation nodes hold; used and reserved are the same here.
CUDART_API abi::Error cudaDeviceGetGraphMemAttribute(int device, int attr, void* value) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  if (!value || attr < 0 || attr > 3) return ret(abi::ErrInvalidValue);
  const uint64_t v = attr == 0 || attr == 2 ? reg().alloc_bytes : reg().alloc_high;
  std::memcpy(value, &v, 8);
  return 0;
}
CUDART_API abi::Error cudaDeviceSetGraphMemAttribute(int device, int attr, void* value) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  uint64_t v = 0;
  if (value) std::memcpy(&v, value, 8);
  // Only the high-water marks can be set, and only to zero (which resets them).
  if (!value || (attr != 1 && attr != 3) || v) return ret(abi::ErrInvalidValue);
  reg().alloc_high = reg().alloc_bytes;
  return 0;
}
// Nothing is cached beyond what live graphs hold.
CUDART_API abi::Error cudaDeviceGraphMemTrim(int device) { return device == 0 ? 0 : ret(abi::ErrInvalidDevice); }

// ------------------------------------------------------------------ executable graphs

namespace {
int instantiate(void** exec, void* graph, unsigned long long flags) {
  GraphObj* gr = graph_of(graph);
  if (!exec || !gr) return abi::ErrInvalidValue;
  if (has_cycle(*gr)) return abi::ErrInvalidValue;
  // cudaGraphInstantiateFlagAutoFreeOnLaunch 1, Upload 2, DeviceLaunch 4, UseNodePriority 8.
  if (flags & ~0xfull) return abi::ErrInvalidValue;
  if (flags & 4) {
    fmt::print(stderr, "warpsim: graphs launched from the device (cudaGraphInstantiateFlagDeviceLaunch) are not "
                       "supported\n");
    return abi::ErrNotSupported;
  }
  auto* x = new ExecObj;
  x->snap = deep_copy(*gr);
  x->origin = gr;
  x->disabled.assign(gr->nodes.size(), 0);
  x->flags = flags;
  reg().execs.insert(x);
  *exec = x;
  return 0;
}
}  // namespace

CUDART_API abi::Error cudaGraphInstantiate(void** exec, void* graph, unsigned long long flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  return ret(instantiate(exec, graph, flags));
}

CUDART_API abi::Error cudaGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

using abi::GraphInstantiateParams;
CUDART_API abi::Error cudaGraphInstantiateWithParams(void** exec, void* graph, GraphInstantiateParams* p) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!p) return ret(abi::ErrInvalidValue);
  const int e = instantiate(exec, graph, p->flags);
  p->errNode_out = nullptr;
  p->result_out = e ? 1 : 0;
  return ret(e);
}
CUDART_API abi::Error cudaGraphInstantiateWithParams_ptsz(void** exec, void* graph, GraphInstantiateParams* p) {
  return cudaGraphInstantiateWithParams(exec, graph, p);
}

CUDART_API abi::Error cudaGraphExecGetFlags(void* exec, unsigned long long* flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  if (!reg().execs.count(x) || !flags) return ret(abi::ErrInvalidValue);
  *flags = x->flags;
  return 0;
}

CUDART_API abi::Error cudaGraphExecDestroy(void* exec) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  if (!reg().execs.erase(x)) return ret(abi::ErrInvalidValue);
  drop_user_refs(*x->snap);
  delete x;
  return 0;
}

CUDART_API abi::Error cudaGraphLaunch(void* exec, abi::Stream stream) {
  GraphPtr snap;
  std::vector<char> disabled;
  {
    State& s = State::get();
    std::lock_guard g(s.mu);
    auto* x = static_cast<ExecObj*>(exec);
    if (!reg().execs.count(x)) return ret(abi::ErrInvalidValue);
    snap = x->snap;  // kept alive for the launch even if the executable graph is destroyed meanwhile
    disabled = x->disabled;
  }
  std::vector<const CondHandle*> hs;
  collect_handles(*snap, hs);
  for (const CondHandle* h : hs)
    if (h->flags & 1)
      if (int e = cudaMemcpyAsync(reinterpret_cast<void*>(h->addr), &h->dflt, 4, abi::HostToDevice, stream)) return e;
  return run_graph(*snap, stream, &disabled);
}
CUDART_API abi::Error cudaGraphLaunch_ptsz(void* exec, abi::Stream stream) { return cudaGraphLaunch(exec, stream); }

// Executable graphs live on the simulated device already.
CUDART_API abi::Error cudaGraphUpload(void* exec, abi::Stream) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  return reg().execs.count(static_cast<ExecObj*>(exec)) ? 0 : ret(abi::ErrInvalidValue);
}
CUDART_API abi::Error cudaGraphUpload_ptsz(void* exec, abi::Stream stream) { return cudaGraphUpload(exec, stream); }

// Kernel, memcpy and memset nodes of an executable graph can be disabled (they then do nothing).
CUDART_API abi::Error cudaGraphNodeSetEnabled(void* exec, void* node, unsigned int enabled) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  auto* h = static_cast<NodeObj*>(node);
  Node* n = node_of(node);
  if (!reg().execs.count(x) || !n || h->graph != x->origin || h->index >= x->disabled.size()) return ret(abi::ErrInvalidValue);
  if (n->type != Kernel && n->type != Memcpy && n->type != Memset) return ret(abi::ErrInvalidValue);
  x->disabled[h->index] = enabled ? 0 : 1;
  return 0;
}
CUDART_API abi::Error cudaGraphNodeGetEnabled(void* exec, void* node, unsigned int* enabled) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  auto* h = static_cast<NodeObj*>(node);
  Node* n = node_of(node);
  if (!reg().execs.count(x) || !n || !enabled || h->graph != x->origin || h->index >= x->disabled.size())
    return ret(abi::ErrInvalidValue);
  if (n->type != Kernel && n->type != Memcpy && n->type != Memset) return ret(abi::ErrInvalidValue);
  *enabled = x->disabled[h->index] ? 0 : 1;
  return 0;
}

using abi::GraphExecUpdateResultInfo;

// Takes the parameters of a graph with the same nodes (count, types, edges) as the instantiated one.
CUDART_API abi::Error cudaGraphExecUpdate(void* exec, void* graph, GraphExecUpdateResultInfo* info) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* x = static_cast<ExecObj*>(exec);
  GraphObj* gr = graph_of(graph);
  if (!reg().execs.count(x) || !gr) return ret(abi::ErrInvalidValue);
  if (info) *info = GraphExecUpdateResultInfo{0, nullptr, nullptr};
  const GraphObj& old = *x->snap;
  int result = 0;
  size_t bad = 0;
  if (old.nodes.size() != gr->nodes.size()) {
    result = 2;
  } else {
    for (size_t i = 0; i < gr->nodes.size() && !result; ++i) {
      const Node &a = gr->nodes[i], &b = old.nodes[i];
      bad = i;
      if (a.removed != b.removed || a.type != b.type) result = 3;
      else if (a.deps != b.deps) result = 2;
      else if (a.type == Kernel && a.kernel && b.kernel && a.kernel->func != b.kernel->func) result = 5;
      else if (a.type == Conditional && (a.cond != b.cond || a.cond_type != b.cond_type || a.bodies.size() != b.bodies.size()))
        result = 2;
    }
  }
  if (result) {
    if (info) {
      info->result = result;
      if (bad < gr->nodes.size()) info->errorNode = handle_for(gr, bad);
    }
    return ret(abi::ErrGraphExecUpdateFailure);
  }
  GraphPtr snap = deep_copy(*gr);
  drop_user_refs(*snap);
  snap->user_refs = x->snap->user_refs;  // the references taken at instantiation stay
  x->snap->user_refs.clear();
  x->snap = snap;
  x->origin = gr;
  return 0;
}

// ------------------------------------------------------------------ user objects

CUDART_API abi::Error cudaUserObjectCreate(void** object, void* ptr, void (*destroy)(void*), unsigned int refs,
                                           unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  // flags must be cudaUserObjectNoDestructorSync (1).
  if (!object || !destroy || !refs || flags != 1) return ret(abi::ErrInvalidValue);
  auto* u = new UserObject{ptr, destroy, refs};
  reg().user_objects.insert(u);
  *object = u;
  return 0;
}
CUDART_API abi::Error cudaUserObjectRetain(void* object, unsigned int count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* u = static_cast<UserObject*>(object);
  if (!reg().user_objects.count(u) || !count) return ret(abi::ErrInvalidValue);
  u->refs += count;
  return 0;
}
CUDART_API abi::Error cudaUserObjectRelease(void* object, unsigned int count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* u = static_cast<UserObject*>(object);
  if (!reg().user_objects.count(u) || !count) return ret(abi::ErrInvalidValue);
  release_user_object(u, count);
  return 0;
}
// flags: cudaGraphUserObjectMove (1) hands over references the caller holds instead of taking new ones.
CUDART_API abi::Error cudaGraphRetainUserObject(void* graph, void* object, unsigned int count, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  auto* u = static_cast<UserObject*>(object);
  if (!gr || !reg().user_objects.count(u) || !count || flags > 1) return ret(abi::ErrInvalidValue);
  if (!(flags & 1)) u->refs += count;
  gr->user_refs[u] += count;
  return 0;
}
CUDART_API abi::Error cudaGraphReleaseUserObject(void* graph, void* object, unsigned int count) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  auto* u = static_cast<UserObject*>(object);
  if (!gr || !reg().user_objects.count(u) || !count) return ret(abi::ErrInvalidValue);
  auto it = gr->user_refs.find(u);
  if (it == gr->user_refs.end() || it->second < count) return ret(abi::ErrInvalidValue);
  if (!(it->second -= count)) gr->user_refs.erase(it);
  release_user_object(u, count);
  return 0;
}

// ------------------------------------------------------------------ DOT output

namespace {
const char* type_name(int t) {
  static const char* names[] = {"KERNEL", "MEMCPY", "MEMSET", "HOST", "GRAPH", "EMPTY", "WAIT_EVENT", "EVENT_RECORD",
                                "EXT_SEMAS_SIGNAL", "EXT_SEMAS_WAIT", "MEM_ALLOC", "MEM_FREE", "BATCH_MEM_OP",
                                "CONDITIONAL"};
  return t >= 0 && t < int(std::size(names)) ? names[t] : "UNKNOWN";
}
void dot_graph(std::string& out, const GraphObj& g, const std::string& prefix) {
  State& s = State::instance();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.removed) continue;
    std::string label = fmt::format("{} {}", type_name(n.type), i);
    if (n.type == Kernel && n.kernel) {
      auto it = s.kernels.find(n.kernel->func);
      if (it != s.kernels.end()) label += "\\n" + it->second.name;
      label += fmt::format("\\n<<<({},{},{}),({},{},{}),{}>>>", n.kernel->grid.x, n.kernel->grid.y, n.kernel->grid.z,
                           n.kernel->block.x, n.kernel->block.y, n.kernel->block.z, n.kernel->shmem);
    }
    out += fmt::format("\"{}{}\" [shape=record, label=\"{}\"];\n", prefix, i, label);
    for (size_t d : n.deps) out += fmt::format("\"{}{}\" -> \"{}{}\";\n", prefix, d, prefix, i);
    for (size_t b = 0; b < n.bodies.size(); ++b) {
      const std::string sub = fmt::format("{}{}_{}_", prefix, i, b);
      out += fmt::format("subgraph \"cluster_{}\" {{\nlabel=\"{} {} body {}\";\n", sub, type_name(n.type), i, b);
      dot_graph(out, *n.bodies[b], sub);
      out += "}\n";
    }
  }
}
}  // namespace

CUDART_API abi::Error cudaGraphDebugDotPrint(void* graph, const char* path, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  GraphObj* gr = graph_of(graph);
  if (!gr || !path) return ret(abi::ErrInvalidValue);
  (void)flags;
  std::string out = "digraph dot {\nsubgraph cluster_1 {\nlabel=\"graph_1\";\n";
  dot_graph(out, *gr, "graph_1_node_");
  out += "}\n}\n";
  FILE* f = std::fopen(path, "w");
  if (!f) return ret(abi::ErrInvalidValue);
  const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  return std::fclose(f) == 0 && ok ? 0 : ret(abi::ErrInvalidValue);
}
