// The process-wide state behind the C ABI: one simulated device, the fatbinaries and the
// kernels/variables the program registered, the launch configuration stack, streams, events,
// host and managed allocations, and the last/sticky error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cudart/abi.hpp"
#include "cudart/cubin.hpp"
#include "cudart/fatbin.hpp"
#include "runtime/device.hpp"

namespace warpsim::cudart {

// An environment variable set to anything but empty or "0" (WARPSIM_TRACE, WARPSIM_QUIET).
bool env_flag(const char* name);

struct FatbinHandle {
  const void* wrapper = nullptr;
  std::string ptx_text;           // or PTX given as text (the driver's cuModuleLoadData)
  bool loaded = false;            // load attempted
  std::vector<runtime::Module*> modules;  // one per translation unit with PTX
  std::string error;              // why loading failed (reported at first use)
  int error_code = 0;
  // Kernel resources from the fatbinary's ELF cubins for this device (ptxas's register counts).
  std::map<std::string, KernelResources> cubin;
  bool has_cubin = false;
};

struct KernelEntry {
  FatbinHandle* fatbin = nullptr;
  std::string name;               // mangled device name
  runtime::Module* module = nullptr;  // resolved at first use
  const ptx::Function* fn = nullptr;
  int max_dynamic_smem = 0;       // cudaFuncAttributeMaxDynamicSharedMemorySize (0: default)
  int carveout = -1;              // cudaFuncAttributePreferredSharedMemoryCarveout
  KernelResources res;            // registers, stack, launch bounds (set by resolve)
  bool regs_estimated = false;    // no cubin: registers estimated from the PTX
  bool nonportable_cluster = false;  // cudaFuncAttributeNonPortableClusterSizeAllowed: clusters up to 16 CTAs
};

// Registers per thread estimated from a kernel's PTX when the fatbinary has no cubin for the
// device (an sm_80 binary on the H100, whose driver would JIT-compile the PTX): the most 32-bit
// register words live at once in the kernel (ptx::max_live_words; 64-bit ones count two,
// predicates none), at least 2, capped at .maxnreg and at 255. Close to ptxas's count (0.91x in
// the geometric mean over the workloads' kernels); callees are not looked into.
int estimate_registers(const ptx::Function& f);
// What a CTA of the kernel takes from an SM, for the occupancy calculator and the timing model.
runtime::KernelUsage kernel_usage(const runtime::GpuSpec& spec, const KernelEntry& k);

struct VarEntry {
  FatbinHandle* fatbin = nullptr;
  std::string name;
  size_t size = 0;
  bool constant = false;
  void** managed_host_ptr = nullptr;  // __cudaRegisterManagedVar
};

struct CallConfig {
  abi::Dim3 grid, block;
  size_t shared = 0;
  void* stream = nullptr;
};

struct EventObj {
  double ns = 0;
  bool recorded = false;
  unsigned flags = 0;  // cudaEventBlockingSync 1, cudaEventDisableTiming 2, cudaEventInterprocess 4
};
struct StreamObj {
  int flags = 0;
  std::map<int, abi::LaunchAttributeValue> attrs;  // cudaStreamSetAttribute, by cudaLaunchAttributeID
};

struct Options {
  std::string gpu = "a100";
  bool quiet = false;
  bool trace = false;  // WARPSIM_TRACE: log every API call
};

// A kernel launch queued to share the GPU with launches from other streams (timing mode).
struct PendingLaunch {
  KernelEntry* kernel;
  runtime::LaunchRequest req;  // with its parameters marshalled
  void* stream;
};

class State {
 public:
  // Creates the device on first use. Runs the queued launches first: any runtime call other than
  // a launch into a created stream is a point where earlier asynchronous work has been issued.
  static State& get();
  static State& instance();  // the same, without running the queued launches

  std::recursive_mutex mu;
  Options opts;
  std::unique_ptr<runtime::Device> dev;
  std::vector<std::unique_ptr<FatbinHandle>> fatbins;
  std::map<const void*, KernelEntry> kernels;   // host stub address -> kernel
  std::map<const void*, VarEntry> vars;         // host shadow address -> variable
  std::map<void*, size_t> host_allocs;          // cudaMallocHost/cudaHostAlloc
  std::map<uint64_t, size_t> managed;           // cudaMallocManaged: host view mapped at the device address
  // cudaHostRegister: host range -> its device mirror (kernels reach it through the pointer
  // cudaHostGetDevicePointer gives; synchronised around kernels as managed memory is).
  struct Registered {
    uint64_t dev = 0;
    size_t size = 0;
    unsigned flags = 0;
    std::vector<uint8_t> sent;  // what the mirror was given before the kernels (see sync_managed_to_host)
  };
  std::map<uint64_t, Registered> registered;
  // The registered range holding host address p, or nullptr.
  const std::pair<const uint64_t, Registered>* registered_range(const void* p) const;
  std::set<StreamObj*> streams;
  std::set<EventObj*> events;
  int sticky = 0;                               // a kernel fault: every later call returns it
  std::vector<PendingLaunch> pending;           // launches into created streams, not yet run
  int current_device = 0;
  std::map<int, abi::LaunchAttributeValue> default_stream_attrs;  // the NULL / legacy / per-thread stream's

  // A stream's attributes (nullptr: not a stream we know).
  std::map<int, abi::LaunchAttributeValue>* stream_attrs(void* stream);
  // The value of attribute `id` set on `stream`, or nullptr.
  const abi::LaunchAttributeValue* stream_attr(void* stream, int id);

  // Loads the fatbin's PTX on first use; false (with the error recorded) on failure.
  bool ensure_loaded(FatbinHandle& h);
  // Resolves a registered kernel to its loaded module; returns a cudaError_t.
  int resolve(KernelEntry& k);
  // Device address of a registered variable, 0 if none; err gets a cudaError_t.
  uint64_t var_address(const void* host_var, size_t* size, int& err);

  // Maps the host view of a managed variable of `size` bytes at its device address `a` and fills
  // it from the device (once; later calls find it mapped). False if the address is taken.
  bool map_managed(uint64_t a, size_t size);

  bool is_device_ptr(const void* p) const;  // in a device allocation that is not managed
  bool is_managed_ptr(const void* p) const;
  void sync_managed_to_device();
  void sync_managed_to_host();

  // Runs the queued launches together (their CTAs share the GPU), prints their device printf
  // output and turns a fault into the sticky error.
  void flush();

  bool driver_api_used = false;  // cuInit was called (the static runtime, or a library's driver calls)
  const char* program_runtime() const;

  void print_summary();
  // The simulation's part of `warpsim run --report`: {"gpu":..., "kernels":[...], "totals":{...}}.
  std::string report_json();

 private:
  State();
};

// Per-thread: the last error (cudaGetLastError) and the <<<>>> configuration stack.
int& last_error();
std::vector<CallConfig>& call_stack();

// Records err as the last error (unless success) and returns it.
// Stream capture (api_graph.cpp). Each returns false when `stream` is not capturing (the caller
// then does the work itself); true when the work was recorded into the capture's graph.
// op(stream) replays it; type: its cudaGraphNodeType (1 memcpy, 2 memset, 3 host).
bool capture_op(void* stream, std::function<int(void*)> op, int type);
bool capture_launch(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream,
                    bool cooperative, int& err);
bool capture_event_record(void* event, void* stream);
bool capture_wait_event(void* stream, void* event);  // a waiting stream joins the event's capture
bool capture_free(void* stream, void* ptr);          // cudaFreeAsync: a free node
// cudaMallocAsync: an allocation node (its memory allocated now); err: the allocation's result.
bool capture_malloc(void* stream, void** ptr, size_t size, int& err);
// cudaFree of memory a graph's allocation node made: marks it freed (released with its graphs).
bool graph_free(const void* ptr);
// cudaStreamGetCaptureInfo: status, capture id, graph and the nodes the stream's next node follows.
int capture_info(void* stream, int* status, unsigned long long* id, void** graph, const void** deps, size_t* ndeps);
// cudaStreamCaptureStatus of a stream (0 none, 1 active) and its capture id.
int capture_status(void* stream, unsigned long long* id);
// For cudaMemcpy3D: a CUDA array (api_texture.cpp) as a pitched pointer, its element size in
// `elem`; false if `a` is not a live array. The caller holds State::mu.
bool array_as_pitched(const void* a, abi::PitchedPtr& out, size_t& elem, size_t& depth);
// cudaMemcpyBatchAsync / cudaMemcpy3DBatchAsync (api_memory.cpp), shared with the driver's forms;
// they return a cudaError_t without recording it.
int memcpy_batch(void* const* dsts, const void* const* srcs, const size_t* sizes, size_t count,
                 const abi::MemcpyAttributes* attrs, const size_t* idx, size_t nattrs, void* stream);
int memcpy3d_batch(size_t nops, const abi::Memcpy3DBatchOp* ops, unsigned long long flags, void* stream);
// The widest 1D texture over linear memory, in elements of `elem_bytes` bytes (cudaDeviceGetTexture1DLinearMaxWidth).
size_t tex1d_linear_max_width(size_t elem_bytes);
int ret(int err);
// Prints "warpsim: NAME is not implemented" once per name.
int not_implemented(const char* name);
void trace_call(const char* name);

}  // namespace warpsim::cudart
