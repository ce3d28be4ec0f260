// Run-time state of the functional engine: the launch, its CTAs and their warps.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "func/cache_policy.hpp"
#include "func/mem_trace.hpp"
#include "func/program.hpp"
#include "func/device_heap.hpp"
#include "func/texture.hpp"
#include "func/zero_array.hpp"

namespace warpsim::mem {
class DeviceMemory;
}

namespace warpsim::func {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// Generic-address windows (PTX ISA 5.1.6): a generic address in a window is shared/local memory of
// the executing CTA/thread; anything else is global. Chosen above any device allocation.
constexpr uint64_t kSharedWindow = 0x00007f0000000000ull;
constexpr uint64_t kLocalWindow = 0x00007e0000000000ull;
constexpr uint64_t kWindowSize = 1ull << 32;
// The kernel's parameters as a generic address (cvta.param of a kernel parameter: a
// __grid_constant__ parameter whose address is taken, e.g. a CUtensorMap); read-only.
constexpr uint64_t kParamWindow = 0x00007c0000000000ull;
// Whether a generic address lies in one of the windows above (not global memory).
inline bool in_window(uint64_t a) {
  return (a >= kSharedWindow && a - kSharedWindow < kWindowSize) ||
         (a >= kLocalWindow && a - kLocalWindow < kWindowSize) ||
         (a >= kParamWindow && a - kParamWindow < kWindowSize);
}
// Values of function "addresses" (mov.u64 %rd, func) used by indirect calls.
constexpr uint64_t kFunctionBase = 0x00007d0000000000ull;

// What stops a kernel, and the CUDA error the runtime reports for it.
enum class FaultKind : uint8_t {
  None, IllegalAddress, MisalignedAddress, WriteToConst, InvalidGenericAddress, Trap, Assert,
  StackOverflow, Deadlock, Livelock, IllegalInstruction, Unsupported, InstructionLimit
};
const char* fault_kind_name(FaultKind k);
// cudaError_t numeric value the hardware/runtime would report.
int fault_cuda_error(FaultKind k);
const char* fault_cuda_error_name(FaultKind k);

struct FaultInfo {
  FaultKind kind = FaultKind::None;
  std::string where;      // PTX file:line (from .loc when present) and the instruction
  std::string message;    // what happened, e.g. "load of 4 bytes from unmapped address 0x..."
  Dim3 block, thread;     // the first faulting thread
  uint64_t address = 0;
  uint32_t pc = 0;
};

// MbarrierWait: blocked in mbarrier.try_wait until the phase it waits for completes (ops_async.cpp).
// ClusterWait: blocked in barrier.cluster.wait until every live thread of the cluster has arrived.
enum class LaneState : uint8_t { Ready, Exited, BarrierWait, WarpSyncWait, MbarrierWait, ClusterWait };

// A cp.async copy issued by one thread and not yet complete (ops_async.cpp): the source bytes
// (zero-filled past src-size) are read at issue, written to shared memory at completion.
struct AsyncCopy {
  uint32_t dst;    // shared-memory offset
  uint32_t group;  // commit group number of the issuing thread (== Warp::async_groups: not committed)
  uint8_t n;       // cp-size: 4, 8 or 16
  uint8_t data[16];
};

struct CallFrame {
  uint32_t return_pc;
  uint32_t callee;          // DFunction index
  uint64_t local_base;      // caller's local frame base
  uint32_t ret_param_off;   // where the caller wants the return value (param-frame offset), ~0 if none
  uint32_t ret_size;
  std::vector<uint64_t> saved;  // saved registers/params of a recursive callee (this lane only)
};

// Per-lane vectors for what most warps never use (call frames, pending cp.async copies): the 32
// vectors are allocated on first use, which keeps a warp 1.5 KB smaller (a kernel's first wave
// creates thousands of warps, each touching fresh memory).
template <class T>
class LaneVectors {
 public:
  std::vector<T>& operator[](unsigned l) {
    if (!p_) p_ = std::make_unique<std::array<std::vector<T>, kWarpSize>>();
    return (*p_)[l];
  }
  bool empty_at(unsigned l) const { return !p_ || (*p_)[l].empty(); }

 private:
  std::unique_ptr<std::array<std::vector<T>, kWarpSize>> p_;
};

struct Warp {
  // Hot fields first, in the first cache lines: the timing model keeps thousands of warps
  // resident, and looking at one to issue (done, wake_gen, pc, state, regs) missed in the cache
  // at every field spread over the kilobyte of the struct.
  uint32_t id = 0;            // warp index within the CTA
  uint32_t valid = 0;         // lanes that exist (partial last warp)
  bool done = false;
  bool converged = true;        // every Ready lane is at pc[first ready lane]: no scan needed
  bool sync_retried = false;    // lanes waiting at a warp-synchronous instruction were re-examined
  uint32_t wake_gen = 0;        // bumped when another warp changes this warp's lane states (wake-ups)
  uint32_t favor = 0;           // ITS: lanes to run first after a spin was detected
  uint32_t carry = 0;           // CC.CF per lane for add.cc/addc/sub.cc/subc/mad.cc/madc
  uint32_t reg_lo = 0;
  uint32_t last_pc = 0;
  ZeroArray<uint64_t> regs;     // [slot - reg_lo][lane]: the kernel's register window (DFunction::window_lo/hi)
  // Lane 0 of register slot `slot` (the lanes follow).
  uint64_t* reg(uint32_t slot) { return &regs[(size_t(slot) - reg_lo) * kWarpSize]; }
  std::vector<uint32_t> preds;  // lane masks
  std::array<LaneState, kWarpSize> state{};
  std::array<uint32_t, kWarpSize> pc{};
  // Function f's registers and param frame read as zero until first written: zeroed[f] says
  // whether they were cleared yet (storage is cleared per function on entry, not all at once;
  // see WarpStorage).
  std::vector<uint8_t> zeroed;
  ZeroArray<uint8_t> param;     // per-lane param frames: [lane][Program::total_param]
  uint64_t local_size = 0;      // bytes of local memory per lane (stack + the kernel's frame)

  // Lane l's local memory at offset off. Backed on first use: most kernels never touch local
  // memory, and zeroing 32 x local_size bytes for every warp of every CTA cost a fifth of the
  // simulation time of small memory-bound kernels.
  uint8_t* local_at(unsigned l, uint64_t off) {
    if (local.size() == 0) local.assign(local_size * kWarpSize);
    return &local[l * local_size + off];
  }
  uint32_t spin = 0;            // consecutive backward branches of spin_group while others wait
  uint32_t spin_group = 0;
  std::array<uint8_t, kWarpSize> wait_barrier{};
  std::array<uint64_t, kWarpSize> local_base{};  // current local frame base per lane
  LaneVectors<CallFrame> calls;
  // Pre-Volta SIMT reconvergence stack (EngineConfig::reconvergence_stack): {lanes, reconvergence pc}
  std::vector<std::pair<uint32_t, uint32_t>> simt_stack;
  bool stack_started = false;
  uint64_t stack_spin = 0;      // backward branches taken by the top entry while others wait
  // cp.async / mbarrier (ops_async.cpp)
  LaneVectors<AsyncCopy> async_copies;                         // pending copies per lane
  std::array<uint32_t, kWarpSize> async_groups{};              // commit groups so far per lane
  std::array<uint64_t, kWarpSize> wait_mbar{};                 // MbarrierWait: shared offset waited on
  // barrier.cluster: 1 + the cluster barrier phase the lane's last arrive belongs to (0: none
  // outstanding); barrier.cluster.wait returns once that phase has completed.
  std::array<uint32_t, kWarpSize> cluster_arrival{};

 private:
  ZeroArray<uint8_t> local;  // per-lane local memory: [lane][local_size]; see local_at

 public:
  // Completes lane l's pending copies of commit groups < below (all with ~0u) into `shared`.
  void complete_async_copies(unsigned l, uint32_t below, std::vector<uint8_t>& shared) {
    auto& v = async_copies[l];
    size_t k = 0;
    for (auto& c : v) {
      if (c.group < below) std::memcpy(&shared[c.dst], c.data, c.n);
      else v[k++] = c;
    }
    v.resize(k);
  }

  uint32_t lanes_in(LaneState s) const {
    uint32_t m = 0;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if ((valid >> l & 1) && state[l] == s) m |= 1u << l;
    return m;
  }
};

struct Warp;
struct BarrierState {
  uint32_t arrived = 0;
  uint32_t expected = 0;  // 0: all live threads of the CTA
  // bar.red: the reduction over arriving threads, delivered to the waiters on release
  uint32_t red_popc = 0;
  bool red_and = true, red_or = false;
  struct Waiter {
    Warp* w;
    uint32_t mask;
    Ref dst;
    uint8_t op;  // 0 popc (.u32), 1 and (.pred), 2 or (.pred)
  };
  std::vector<Waiter> waiters;
};

// Clears function f's registers and param frame the first time warp w enters it (WarpStorage):
// every function starts from zero.
inline void clear_function(Warp& w, const Program& prog, uint32_t f) {
  if (w.zeroed[f]) return;
  w.zeroed[f] = 1;
  const DFunction& d = prog.funcs[f];
  if (d.nregs) std::memset(w.reg(d.reg_base), 0, sizeof(uint64_t) * d.nregs * kWarpSize);
  if (d.param_frame)
    for (unsigned l = 0; l < kWarpSize; ++l) std::memset(&w.param[l * size_t(prog.total_param) + d.param_base], 0, d.param_frame);
}

// Register and param storage of finished warps, handed to the next warps of any launch of the
// same module. A register file spans every function of the module (Program::nregs slots x 32
// lanes; 70 KB for an unrolled stencil), so allocating and zeroing one for each warp of each CTA
// cost more than simulating small kernels; storage is cleared only for the functions a warp
// enters (Warp::zeroed).
struct WarpStorage {
  ZeroArray<uint64_t> regs;
  ZeroArray<uint8_t> param;
  size_t bytes() const { return regs.size() * sizeof(uint64_t) + param.size(); }
};
struct StoragePool {
  static constexpr size_t kMaxBytes = size_t(1) << 30;  // beyond this, storage is freed
  std::vector<WarpStorage> free;
  size_t bytes = 0;
  void put(WarpStorage s) {
    if (bytes + s.bytes() > kMaxBytes) return;
    bytes += s.bytes();
    free.push_back(std::move(s));
  }
  // Storage with room for these sizes (kernels of a module have register windows of different
  // sizes; the param area is the module's), if one of the most recently freed has it.
  bool take(size_t nregs, size_t nparam, WarpStorage& out) {
    for (size_t k = 0; k < 8 && k < free.size(); ++k) {
      WarpStorage& s = free[free.size() - 1 - k];
      if (s.regs.size() < nregs || s.param.size() != nparam) continue;
      bytes -= s.bytes();
      out = std::move(s);
      if (k) std::swap(s, free.back());  // the moved-from slot goes last, then away
      free.pop_back();
      return true;
    }
    return false;
  }
};

struct Cta;
// A thread-block cluster (sm_90): CTAs resident together, each able to reach the others' shared
// memory (shared::cluster addresses, mapa) and to wait at the cluster barrier. A launch without
// clusters runs each CTA as a cluster of one.
struct Cluster {
  Dim3 dims;                 // CTAs per cluster (%cluster_nctaid)
  Dim3 id;                   // %clusterid
  std::vector<Cta*> ctas;    // by %cluster_ctarank
  uint32_t live_threads = 0; // threads of the cluster that have not exited
  // barrier.cluster: arrivals counted in the current phase and phases completed so far.
  uint32_t arrived = 0;
  uint32_t phase = 0;
};

// shared::cluster addresses of another CTA (mapa): (rank + 1) << 24 | offset. A CTA's own
// shared::cta addresses (0 ..) are shared::cluster addresses of that CTA, as the ISA has the
// shared::cta window inside the shared::cluster window. (Our H100 places rank r's window at
// r << 24 and a CTA's own addresses there too: validation/mem/h100_dsmem_measured.txt; the tag
// here keeps every CTA's own addresses 0-based, so wgmma descriptors and tensor maps need no
// rank, and gives the same answers to every program that forms the addresses with mapa.)
constexpr unsigned kClusterRankShift = 24;
constexpr uint64_t kClusterOffsetMask = (1ull << kClusterRankShift) - 1;
// The CTA rank a tagged shared::cluster address names (only for a nonzero tag), and the tagged
// address of offset `off` in rank `rank`'s shared memory.
constexpr uint32_t cluster_rank_of(uint64_t addr) { return uint32_t(addr >> kClusterRankShift) - 1; }
constexpr uint64_t cluster_shared_address(uint64_t rank, uint64_t off) {
  return (rank + 1) << kClusterRankShift | (off & kClusterOffsetMask);
}

struct Cta {
  Cta() = default;
  Cta(const Cta&) = delete;
  Cta& operator=(const Cta&) = delete;
  ~Cta() {
    if (!storage_pool) return;
    for (auto& w : warps) storage_pool->put(WarpStorage{std::move(w->regs), std::move(w->param)});
  }
  StoragePool* storage_pool = nullptr;  // where the warps' storage goes at the end
  Dim3 id;
  uint32_t nthreads = 0;
  uint32_t live_threads = 0;
  std::vector<uint8_t> shared;
  const std::vector<uint32_t>* shared_offsets = nullptr;  // shared variable id -> offset
  std::vector<std::unique_ptr<Warp>> warps;
  std::array<BarrierState, 16> barriers{};
  Cluster* cluster = nullptr;  // the cluster it belongs to (set by whoever makes the CTA)
  uint32_t cluster_rank = 0;   // %cluster_ctarank
};

struct LaunchState {
  const Program* prog = nullptr;
  const DFunction* kernel = nullptr;
  mem::DeviceMemory* mem = nullptr;
  Dim3 grid, block;
  Dim3 cluster;                     // CTAs per cluster (1,1,1 without clusters)
  bool explicit_cluster = false;    // %is_explicit_cluster: launched with cluster dimensions
  uint32_t dynamic_smem = 0;
  std::vector<uint8_t> params;      // kernel parameter buffer, laid out as the .entry declares
  uint32_t smid = 0, nsmid = 108;
  uint64_t gridid = 1;
  std::array<uint32_t, 32> envreg{};  // %envreg0..31 (LaunchConfig::envreg)
  const TextureTable* textures = nullptr;  // texture and surface objects (the engine's)
  DeviceHeap* heap = nullptr;              // device-side malloc/free (the engine's)
  uint64_t clock = 0;               // %clock64: the SM's cycle (timing mode) or warp instructions so far
  double ns_per_clock = 0;          // %globaltimer scale in timing mode (0: 1 ns per clock)
  FaultInfo fault;
  // thread_instrs counts the active threads of each warp instruction (Nsight's
  // thread_inst_executed); pred_on only those whose guard predicate held.
  uint64_t warp_instrs = 0, thread_instrs = 0, thread_instrs_pred_on = 0;
  std::vector<std::string> printf_out;  // formatted device printf output, in order
  std::vector<uint32_t> rpcs;           // reconvergence points (EngineConfig::reconvergence_stack)
  MemTrace* trace = nullptr;            // timing mode: the accesses of the instruction being executed
  std::vector<RangePolicy> range_policies;  // createpolicy.range values (cache_policy.hpp)
  StoragePool* storage_pool = nullptr;      // the module's storage of finished warps (WarpStorage)
  // Grids launched by this grid's threads (CUDA dynamic parallelism), in launch order: a parameter
  // buffer from the device heap per launch, filled by the parent; the runtime runs the launched
  // ones after this grid (Engine::finish hands them over).
  struct DeviceLaunch {
    uint32_t func = ~0u;  // the child kernel (Program::funcs index), ~0u until known (CDP1 order)
    Dim3 grid, block;
    uint32_t smem = 0;
    uint64_t params = 0;  // device address of its parameter buffer
    bool launched = false;
  };
  std::vector<DeviceLaunch> device_launches;
  uint64_t device_streams = 0;  // streams created by device code (handles only)
};

}  // namespace warpsim::func
