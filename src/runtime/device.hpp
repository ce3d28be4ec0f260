// One simulated GPU as the CUDA runtime sees it: device memory, the functional engine, the
// modules loaded on it, kernel launches (with argument marshalling from a CUDA `void** args`
// array) and a simulated clock for events. Knows nothing of the C ABI (src/cudart does).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "func/engine.hpp"
#include "mem/device_memory.hpp"
#include "runtime/gpu_spec.hpp"
#include "runtime/occupancy.hpp"
#include "stats/kernel_stats.hpp"
#include "timing/gpu.hpp"

namespace warpsim::runtime {

// A PTX module loaded on the device.
struct Module {
  std::string name;  // where it came from, for messages
  std::unique_ptr<func::LoadedModule> loaded;
  const ptx::Function* kernel(const std::string& name) const;  // null if absent
  // Device address of a module-scope variable (.global/.const), 0 if absent.
  uint64_t variable(const std::string& name) const;
};

struct KernelRecord {
  std::string name;
  func::Dim3 grid, block;
  uint32_t dynamic_smem = 0;
  uint64_t warp_instrs = 0, thread_instrs = 0;
  double start_ns = 0, end_ns = 0;  // simulated time
  bool ok = true;
  int regs = -1;                // registers per thread (-1: unknown)
  bool regs_estimated = false;  // from the PTX, not from a cubin
  std::string fault;            // the engine's report when !ok
  double wall_s = 0;            // host seconds spent simulating it (speed figures)
  bool timed = false;           // run by the timing model: `timing` holds its statistics
  stats::KernelStats timing;
};

// A cudaMemcpy/cudaMemset as the timeline sees it. Host<->device copies cross the host link
// ([pcie]: its latency plus bytes over its bandwidth); device-to-device copies and memsets run at
// the DRAM's peak bandwidth (read + write).
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice, Memset };
struct CopyRecord {
  CopyKind kind;
  uint64_t bytes = 0;
  double start_ns = 0, end_ns = 0;
};
const char* copy_kind_name(CopyKind k);  // "HtoD", "DtoH", "DtoD", "memset"

// Functional: the engine alone, kernel time a placeholder. Timing: the cycle-level model.
enum class Mode { Functional, Timing };

struct LaunchOutcome {
  int cuda_error = 0;           // cudaError_t value; 0 on success
  std::string message;          // why, for errors found before the kernel ran
  func::LaunchResult result;    // when the kernel ran
  bool ran = false;
};

struct LaunchRequest {
  func::Dim3 grid, block;
  uint32_t dynamic_smem = 0;
  uint32_t max_dynamic_smem = 0;  // per-kernel opt-in limit (0: the default per-block limit)
  void** args = nullptr;          // one pointer per kernel parameter, as cudaLaunchKernel takes
  int regs = -1;                  // for the record: registers per thread
  bool regs_estimated = false;
  KernelUsage usage;              // registers, shared memory, limits: what a CTA takes from an SM
  timing::AccessWindow window;    // L2 access-policy window (stream or launch attribute); timing mode only
  // A launch run later (deferred to share the GPU with launches from other streams) carries its
  // parameter buffer, since `args` points into the caller's frame only during the launch call.
  bool marshalled = false;
  std::vector<uint8_t> params;
  // cudaLaunchCooperativeKernel (or the cooperative launch attribute): the grid must fit on the GPU
  // at once (else cudaErrorCooperativeLaunchTooLarge), its CTAs run co-resident, and the kernel
  // gets a grid workspace for cooperative_groups::this_grid().sync().
  bool cooperative = false;
  // Thread-block clusters (sm_90): CTAs per cluster, checked by the caller (the grid is a whole
  // number of clusters); explicit: launched with cluster dimensions (%is_explicit_cluster).
  func::Dim3 cluster;
  bool explicit_cluster = false;
};

struct LaunchItem {
  const Module* module = nullptr;
  const ptx::Function* kernel = nullptr;
  LaunchRequest req;
};

class Device {
 public:
  explicit Device(GpuSpec spec);
  ~Device();
  const GpuSpec& spec() const { return spec_; }
  Mode mode() const { return mode_; }
  void set_mode(Mode m) { mode_ = m; }
  mem::DeviceMemory& memory() { return *mem_; }
  func::Engine& engine() { return *engine_; }

  // Parses and loads a PTX module. On failure returns null and sets errors (one per line).
  Module* load_ptx(std::string_view text, const std::string& name, std::string& errors);
  void unload(Module* m);

  // The checks a launch must pass before it is queued (cudaErrorInvalidConfiguration, ...): 0 or
  // the cudaError_t, with a message.
  int check(const Module& m, const ptx::Function& kernel, const LaunchRequest& req, std::string& message) const;
  LaunchOutcome launch(const Module& m, const ptx::Function& kernel, const LaunchRequest& req);
  // Kernels from different streams that share the GPU: in timing mode their CTAs are distributed
  // together (launch order first) and they overlap in simulated time; functional mode runs them in
  // order. One outcome per item, in order.
  // Grids launched from device code (dynamic parallelism) run after the batch, as a batch of their
  // own (their children after them, up to 24 levels); a child's failure is its parent's.
  std::vector<LaunchOutcome> launch_together(const std::vector<LaunchItem>& items);
  // Fills in what a kernel launched from device code takes (registers from its cubin, limits) as
  // a host launch of it would have: the CUDA runtime layer knows the cubins, the device does not.
  using ChildResources = std::function<void(const Module&, const std::string& kernel, LaunchRequest&)>;
  void set_child_resources(ChildResources f) { child_resources_ = std::move(f); }

  // Simulated time in nanoseconds since device creation. Timing mode: each kernel advances it by
  // its launch overhead and cycles at the SM clock. Functional mode (a placeholder): by
  // ceil(warp instructions / (SMs * schedulers per SM)) cycles, as if every scheduler issued one
  // warp instruction per cycle.
  double now_ns() const { return now_ns_; }
  const std::vector<KernelRecord>& kernels() const { return kernels_; }
  // Advances simulated time by a copy's cost and records it (timing mode; functional mode records
  // it with no duration).
  const CopyRecord& copy(CopyKind kind, uint64_t bytes);
  const std::vector<CopyRecord>& copies() const { return copies_; }
  // "kernel grid block thread-instrs simulated-time" lines for the exit summary.
  std::string summary() const;
  // L2 residency control (timing mode; functional mode has no L2): the persisting set-aside in
  // bytes (cudaLimitPersistingL2CacheSize, already clamped by the caller) and
  // cudaCtxResetPersistingL2Cache. The set-aside holds from the next kernel on.
  void set_persisting_l2(uint64_t bytes);
  // Cache control as Nsight Compute's --cache-control: with `flush` every timed launch starts with
  // an empty L2 (write-backs done beforehand, outside the kernel's time), so per-kernel cycles and
  // DRAM traffic compare with ncu's default measurements. Off by default: a program's kernels find
  // the L2 as the previous one left it, as on the GPU without a profiler.
  void set_flush_caches(bool flush) { flush_caches_ = flush; }
  bool flush_caches() const { return flush_caches_; }
  void reset_persisting_l2();
  // The GPU timeline (`warpsim run --timeline CYCLES`, timing mode): every `interval_cycles` of
  // simulated GPU time, the whole GPU's counters (timing::Gpu::TimelineSample) at simulated time
  // t_ns on the same clock as the kernel and copy records. 0: off.
  struct TimelinePoint {
    double t_ns = 0;
    timing::Gpu::TimelineSample s;
  };
  void set_timeline(uint64_t interval_cycles) { timeline_every_ = interval_cycles; }
  uint64_t timeline_interval() const { return timeline_every_; }
  const std::vector<TimelinePoint>& timeline() const { return timeline_; }
  // Progress of long kernels: (kernel, CTAs done, CTAs in the grid, warp instructions so far).
  using Progress = std::function<void(const std::string&, uint64_t, uint64_t, uint64_t)>;
  void set_progress(Progress p) { progress_ = std::move(p); }

 private:
  GpuSpec spec_;
  std::unique_ptr<mem::DeviceMemory> mem_;
  std::unique_ptr<func::Engine> engine_;
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<KernelRecord> kernels_;
  std::vector<CopyRecord> copies_;
  std::unique_ptr<timing::Gpu> gpu_;  // timing mode, created at the first timed launch
  double now_ns_ = 0;
  uint64_t persisting_l2_ = 0;
  bool flush_caches_ = false;
  uint64_t timeline_every_ = 0;
  std::vector<TimelinePoint> timeline_;
  Progress progress_;
  Mode mode_ = Mode::Timing;
  // Grid workspaces of cooperative launches (cooperative_groups' {wsSize, barrier}), one slot of
  // kWorkspaceBytes per launch of a launch_together batch; allocated at the first one.
  static constexpr uint64_t kWorkspaceBytes = 16, kWorkspaceSlots = 256;
  uint64_t grid_workspaces_ = 0;
  uint64_t grid_workspace(size_t slot);
  std::vector<LaunchOutcome> launch_batch(const std::vector<LaunchItem>& items);
  ChildResources child_resources_;
  void launch_children(const std::vector<LaunchItem>& parents, std::vector<LaunchOutcome>& outs, int depth);
  // The timing model's view of a prepared launch: CTA footprint and limit from the occupancy rules.
  // What one CTA of this launch takes from an SM, by the occupancy calculator's rules (registers
  // estimated from PTX are fitted to the register file, as a JIT compile would be).
  Occupancy launch_occupancy(const LaunchRequest& req, int threads, uint32_t dynamic_smem) const;
  timing::KernelLaunch timed_launch(const Module& m, const func::LaunchConfig& lc, const LaunchRequest& req,
                                    const std::string& kernel, func::LaunchState& ls);
  void record(LaunchOutcome& out, KernelRecord& rec);  // completes the record, sets the CUDA error
};

// Builds the kernel parameter buffer (.entry layout) from cudaLaunchKernel's args array.
std::vector<uint8_t> marshal_params(const ptx::Function& kernel, void** args);

}  // namespace warpsim::runtime
