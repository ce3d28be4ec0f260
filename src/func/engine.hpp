// The functional engine: loads decoded PTX modules into device memory and runs kernels to
// completion on the CPU, warp by warp, with independent thread scheduling. It computes *what*
// every instruction does; the timing layer will decide *when*.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "func/decoder.hpp"
#include "func/state.hpp"
#include "ptx/ir.hpp"

namespace warpsim::func {

struct EngineConfig {
  uint32_t num_sms = 108;                 // reported by %nsmid (A100: 108 SMs)
  uint32_t stack_bytes = 1024;            // per-thread stack (cudaLimitStackSize default)
  uint32_t max_shared_per_block = 48 * 1024;  // without opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize)
  uint64_t max_warp_instructions = 0;     // 0: unlimited; else stop with InstructionLimit
  uint32_t spin_yield_threshold = 64;     // ITS: backward branches of one path before the other path runs
  bool reconvergence_stack = false;       // pre-Volta (G80) SIMT stack instead of ITS
  uint64_t livelock_iterations = 1000000; // stack mode: backward branches of one path while others wait
  // The simulated GPU's compute capability (major * 10 + minor) and name: an instruction the
  // architecture lacks (tensor-core instructions on a pre-Volta GPU, ...) fails the module load.
  // 0: no check (tests of the engine alone).
  uint32_t sm_arch = 0;
  std::string machine;
  // PTX virtual registers with disjoint live ranges share register slots (func/reg_alloc.hpp);
  // false keeps one slot per virtual register (WARPSIM_REG_SHARING=0, for debugging).
  bool share_registers = true;
};

struct LoadedModule {
  std::unique_ptr<ptx::Module> ptx;
  Program prog;
  VariableAddresses vars;
  std::vector<uint64_t> allocations;
  mutable StoragePool storage_pool;  // warp storage reused by every launch of the module
};

struct LoadResult {
  std::unique_ptr<LoadedModule> module;
  std::vector<std::string> errors;  // file:line:col: error: ...
  bool ok() const { return module != nullptr; }
};

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamic_smem = 0;
  std::vector<uint8_t> params;  // kernel parameter buffer in .entry layout
  // A cooperative launch (cudaLaunchCooperativeKernel): every CTA is resident at once, so CTAs
  // may wait for each other (cooperative_groups::this_grid().sync()); the functional engine then
  // runs all CTAs interleaved instead of one after another.
  bool co_resident = false;
  // Thread-block clusters (sm_90): CTAs per cluster (the grid is a whole number of them), resident
  // together and run interleaved; explicit_cluster: launched with cluster dimensions (the launch
  // attribute or the kernel's .reqnctapercluster), what %is_explicit_cluster reads.
  Dim3 cluster;
  bool explicit_cluster = false;
  // How many CTAs of this launch the GPU keeps resident at once (SMs x CTAs per SM; 0: one). CTAs
  // run one after another while each finishes within a budget; one that does not may be waiting
  // for another CTA (flags or a software grid barrier through atomics and volatile loads, which
  // the hardware honours for co-resident CTAs), so the rest of the grid then runs with up to this
  // many CTAs taking turns.
  uint64_t resident_ctas = 0;
  // The driver's environment registers %envreg0..31 (0 where the driver sets none). A cooperative
  // launch puts its grid workspace's address in %envreg1 (high word) and %envreg2 (low word),
  // which cooperative_groups reads (cooperative_groups/details/driver_abi.h).
  std::array<uint32_t, 32> envreg{};
  // Called between warp time slices, at most every `progress_every` warp instructions, with
  // (CTAs done, CTAs in the grid, warp instructions so far): for progress displays on long runs.
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
  uint64_t progress_every = 1u << 22;
};

// A grid launched from device code, to run after the grid that launched it.
struct ChildGrid {
  std::string kernel;
  Dim3 grid, block;
  uint32_t dynamic_smem = 0;
  std::vector<uint8_t> params;  // as the parent wrote its parameter buffer
};

struct LaunchResult {
  FaultInfo fault;               // kind None on success
  std::string kernel;
  uint64_t warp_instrs = 0;
  uint64_t thread_instrs = 0;          // active threads per warp instruction, summed
  uint64_t thread_instrs_pred_on = 0;  // ... whose guard predicate held
  std::vector<std::string> printf_out;
  std::vector<ChildGrid> children;  // launched by this grid's threads, in launch order
  bool ok() const { return fault.kind == FaultKind::None; }
  std::string report() const;    // a readable fault report naming kernel, block, thread and PTX line
};

// What one step of a warp did (CtaStepper::step).
struct StepResult {
  bool executed = false;   // false: no lane of the warp could run
  bool fault = false;      // the kernel faulted (LaunchState::fault says how)
  uint32_t pc = 0;         // code index of the instruction
  uint32_t group = 0;      // lanes that ran it (before the guard)
  uint32_t active = 0;     // lanes whose guard predicate held
  uint32_t redirected = 0; // lanes whose pc the instruction set (taken branches, calls, returns)
  uint32_t blocked = 0;    // lanes that now wait (barrier, warp sync, mbarrier) or exited
};

// One CTA run instruction by instruction by someone else (the timing model decides which warp
// issues when; the functional engine computes what the instruction does, at issue).
class CtaStepper {
 public:
  // `cluster`: the thread-block cluster the CTA joins as rank `rank` (its `ctas` sized to the
  // cluster, every CTA made before any runs); none: a cluster of this one CTA.
  CtaStepper(const LoadedModule& m, LaunchState& ls, const EngineConfig& cfg, Dim3 id, uint32_t smid,
             Cluster* cluster = nullptr, uint32_t rank = 0);
  ~CtaStepper();
  uint32_t warps() const;
  // The lanes of `warp` that run next and their pc; 0 when none can (waiting or finished).
  uint32_t next(uint32_t warp, uint32_t& pc);
  StepResult step(uint32_t warp);  // runs the instruction next() names
  bool warp_done(uint32_t warp) const;
  bool done() const;
  void report_deadlock();  // records a Deadlock fault naming the waits
  const Cta& cta() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Engine {
 public:
  Engine(mem::DeviceMemory& mem, EngineConfig cfg = {});
  // Allocates and initialises the module's .global/.const variables and decodes its functions.
  LoadResult load(std::unique_ptr<ptx::Module> m);
  void unload(LoadedModule& m);
  LaunchResult launch(const LoadedModule& m, const std::string& kernel, const LaunchConfig& lc);
  // An externally driven launch (timing mode): prepare() validates the launch and fills the launch
  // state (false with res.fault set when it cannot run); CtaSteppers run its CTAs; finish() gathers
  // the result (fault with its source location, counters, printf output).
  bool prepare(const LoadedModule& m, const std::string& kernel, const LaunchConfig& lc, LaunchState& ls,
               LaunchResult& res);
  LaunchResult finish(const LoadedModule& m, LaunchState& ls, LaunchResult res);
  const EngineConfig& config() const { return cfg_; }
  // cudaDeviceSetLimit(cudaLimitStackSize): per-thread stack of later launches.
  void set_stack_bytes(uint32_t bytes) { cfg_.stack_bytes = bytes; }
  // Texture and surface objects (cudaCreateTextureObject, ...), read by tex/suld/sust.
  TextureTable& textures() { return textures_; }
  // The device-side malloc heap (cudaLimitMallocHeapSize).
  DeviceHeap& heap() { return heap_; }

 private:
  mem::DeviceMemory& mem_;
  EngineConfig cfg_;
  TextureTable textures_;
  DeviceHeap heap_{mem_};
};

// Kernel parameter layout helpers: offsets of each .entry parameter in the buffer.
std::vector<uint32_t> param_offsets(const ptx::Function& kernel);

}  // namespace warpsim::func
