// Kernel launches: <<<>>> (__cudaPushCallConfiguration, __cudaPopCallConfiguration, then
// __cudaGetKernel + __cudaLaunchKernel in CUDA 13 host code, cudaLaunchKernel in CUDA 12),
// cudaLaunchKernel and cudaLaunchCooperativeKernel. A launch runs at once, except in timing mode
// into a created stream: then it is queued until the next synchronising call, with the launches
// of other streams, and they share the GPU (State::flush).
#include <fmt/format.h>

#include <cstdio>

#include "cudart/export.hpp"
#include "cudart/device_props.hpp"
#include "cudart/launch.hpp"
#include "cudart/state.hpp"
#include "runtime/occupancy.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

namespace warpsim::cudart {

int access_window_from(const abi::AccessPolicyWindow& w, size_t max_window, timing::AccessWindow& out) {
  // A hitProp outside the enum is accepted (as on an H100) and taken as Normal.
  auto hint = [](int p) {
    return p == abi::AccessPropertyPersisting ? func::L2Hint::Last
           : p == abi::AccessPropertyStreaming ? func::L2Hint::First
                                               : func::L2Hint::Normal;
  };
  if (w.num_bytes > max_window) return abi::ErrInvalidValue;
  if (!(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f)) return abi::ErrInvalidValue;  // NaN too
  if (w.missProp != abi::AccessPropertyNormal && w.missProp != abi::AccessPropertyStreaming) return abi::ErrInvalidValue;
  out = timing::AccessWindow{};
  if (w.num_bytes == 0) return 0;  // no window
  out.base = reinterpret_cast<uint64_t>(w.base_ptr);
  out.bytes = w.num_bytes;
  out.hit_fraction = func::fraction_fixed(w.hitRatio);
  out.hit = hint(w.hitProp);
  out.miss = hint(w.missProp);
  return 0;
}

namespace {
// The first instruction of a kernel that would see a cluster of more than one CTA differently
// from a one-CTA cluster (the functional engine runs one-CTA clusters): the cluster special
// registers, cluster barriers, mapa/getctarank and shared::cluster loads, stores and atomics; -1
// if none. (Bulk copies to shared::cluster addresses of the CTA itself behave the same.)
int cluster_feature(const ptx::Function& f) {
  using ptx::Opcode;
  using ptx::SReg;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const ptx::Instruction& ins = f.instrs[i];
    if (ins.op == Opcode::Mapa || ins.op == Opcode::Getctarank) return int(i);
    if (ins.op == Opcode::Barrier && ins.has(ptx::Mod::cluster)) return int(i);
    if ((ins.op == Opcode::Ld || ins.op == Opcode::St || ins.op == Opcode::Atom || ins.op == Opcode::Red) &&
        ins.has(ptx::Mod::shared_cluster))
      return int(i);
    for (const ptx::Operand& o : ins.operands)
      if (o.kind == ptx::Operand::Kind::SpecialReg &&
          (o.sreg == SReg::Clusterid || o.sreg == SReg::Nclusterid || o.sreg == SReg::ClusterCtaid ||
           o.sreg == SReg::ClusterNctaid || o.sreg == SReg::ClusterCtarank || o.sreg == SReg::ClusterNctarank))
        return int(i);
  }
  return -1;
}
}  // namespace

int launch_kernel(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream,
                  const timing::AccessWindow* window, bool cooperative, unsigned cluster_ctas) {
  // Into a capturing stream: recorded with its arguments, not run.
  if (int err = 0; capture_launch(func, grid, block, args, shmem, stream, cooperative, err)) return err ? ret(err) : 0;
  State& s = State::instance();
  std::lock_guard g(s.mu);
  // Timing mode: a launch into a created stream waits in a queue, so that launches from other
  // streams issued before the next synchronising call share the GPU with it; one into a stream
  // that already has a queued launch runs the queue first (a stream is in order). The legacy
  // default stream synchronises with every stream: the queue runs before and after its launch.
  const bool created = reinterpret_cast<uintptr_t>(stream) > 2 && s.streams.count(static_cast<StreamObj*>(stream));
  const bool concurrent = created && s.dev->mode() == runtime::Mode::Timing;
  bool queued_here = false;
  for (auto& p : s.pending) queued_here |= p.stream == stream;
  if (!concurrent || queued_here) s.flush();
  if (s.sticky) return ret(s.sticky);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) {
    if (s.opts.trace) fmt::print(stderr, "warpsim: trace: launch of unregistered function {}\n", func);
    return ret(abi::ErrInvalidDeviceFunction);
  }
  KernelEntry& k = it->second;
  if (int e = s.resolve(k)) return ret(e);
  // Clusters of several CTAs (a launch attribute or the kernel's __cluster_dims__) are run as
  // one-CTA clusters; a kernel that would notice is refused rather than given wrong answers.
  {
    const auto& d = k.fn->perf.reqnctapercluster;
    const unsigned declared =
        k.fn->perf.reqnctapercluster_dims ? std::max(1u, d[0]) * std::max(1u, d[1]) * std::max(1u, d[2]) : 1;
    if (std::max(cluster_ctas, declared) > 1) {
      if (k.cluster_feature == -2) k.cluster_feature = cluster_feature(*k.fn);
      if (k.cluster_feature >= 0) {
        const auto& ins = k.fn->instrs[size_t(k.cluster_feature)];
        fmt::print(stderr,
                   "warpsim: kernel {} is launched with clusters of {} CTAs and uses them (PTX line {}): clusters of "
                   "more than one CTA (distributed shared memory, cluster barriers and ranks) are not supported; "
                   "the launch fails with cudaErrorNotSupported\n",
                   k.name, std::max(cluster_ctas, declared), ins.pos.line);
        return ret(abi::ErrNotSupported);
      }
    }
  }
  runtime::LaunchRequest req;
  req.grid = func::Dim3{grid.x, grid.y, grid.z};
  req.block = func::Dim3{block.x, block.y, block.z};
  req.dynamic_smem = uint32_t(shmem);
  req.max_dynamic_smem = uint32_t(k.max_dynamic_smem);
  req.regs = k.res.regs;
  req.regs_estimated = k.regs_estimated;
  req.usage = kernel_usage(s.dev->spec(), k);
  req.cooperative = cooperative;
  if (window) req.window = *window;
  else if (const abi::LaunchAttributeValue* v = s.stream_attr(stream, abi::LaunchAttributeAccessPolicyWindow))
    access_window_from(v->accessPolicyWindow, SIZE_MAX, req.window);  // checked when it was set
  if (shmem > 0xffffffffu) return ret(abi::ErrInvalidValue);
  // As on hardware: a block needing more registers than an SM has (or more threads than the
  // kernel's launch bounds allow) cannot launch. Estimated counts are not trusted for this.
  {
    const uint64_t threads = uint64_t(block.x) * block.y * block.z;
    const int cap = k.regs_estimated ? s.dev->spec().max_threads_per_block
                                     : runtime::max_threads_for_regs(s.dev->spec(), k.res.regs);
    const uint64_t bound = k.res.max_threads ? std::min<uint64_t>(cap, k.res.max_threads) : uint64_t(cap);
    if (threads > bound && threads <= uint64_t(s.dev->spec().max_threads_per_block)) {
      if (s.opts.trace)
        fmt::print(stderr, "warpsim: launch of {}: {} threads per block exceed the kernel's limit of {}\n", k.name,
                   threads, bound);
      return ret(abi::ErrLaunchOutOfResources);
    }
  }
  std::string msg;
  if (int e = s.dev->check(*k.module, *k.fn, req, msg)) {
    if (s.opts.trace) fmt::print(stderr, "warpsim: {}\n", msg);
    return ret(e);
  }
  // The arguments live in the caller's frame only during this call: marshal them now.
  req.params = runtime::marshal_params(*k.fn, args);
  req.marshalled = true;
  s.pending.push_back(PendingLaunch{&k, std::move(req), stream});
  if (!concurrent) s.flush();
  return 0;
}

}  // namespace warpsim::cudart

CUDART_API unsigned __cudaPushCallConfiguration(abi::Dim3 gridDim, abi::Dim3 blockDim, size_t sharedMem,
                                                void* stream) {
  call_stack().push_back(CallConfig{gridDim, blockDim, sharedMem, stream});
  return 0;
}

CUDART_API abi::Error __cudaPopCallConfiguration(abi::Dim3* gridDim, abi::Dim3* blockDim, size_t* sharedMem,
                                                 void* stream) {
  auto& cs = call_stack();
  if (cs.empty()) return ret(abi::ErrMissingConfiguration);
  CallConfig c = cs.back();
  cs.pop_back();
  if (gridDim) *gridDim = c.grid;
  if (blockDim) *blockDim = c.block;
  if (sharedMem) *sharedMem = c.shared;
  if (stream) *static_cast<void**>(stream) = c.stream;
  return 0;
}

// Our cudaKernel_t is the host stub's address.
CUDART_API abi::Error __cudaGetKernel(abi::Kernel* kernel, const void* func) {
  if (!kernel) return ret(abi::ErrInvalidValue);
  *kernel = const_cast<void*>(func);
  return 0;
}

CUDART_API abi::Error cudaGetKernel(abi::Kernel* kernel, const void* func) { return __cudaGetKernel(kernel, func); }

CUDART_API abi::Error __cudaLaunchKernel(abi::Kernel kernel, abi::Dim3 grid, abi::Dim3 block, void** args,
                                         size_t shmem, abi::Stream stream) {
  return launch_kernel(kernel, grid, block, args, shmem, stream);
}

CUDART_API abi::Error __cudaLaunchKernel_ptsz(abi::Kernel kernel, abi::Dim3 grid, abi::Dim3 block, void** args,
                                              size_t shmem, abi::Stream stream) {
  return launch_kernel(kernel, grid, block, args, shmem, stream);
}

CUDART_API abi::Error cudaLaunchKernel(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem,
                                       abi::Stream stream) {
  return launch_kernel(func, grid, block, args, shmem, stream);
}

CUDART_API abi::Error cudaLaunchKernel_ptsz(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args,
                                            size_t shmem, abi::Stream stream) {
  return launch_kernel(func, grid, block, args, shmem, stream);
}

// A cooperative grid runs with all its CTAs resident (runtime::LaunchRequest::cooperative), so a
// grid-wide sync (cg::this_grid().sync()) completes; too large a grid is
// cudaErrorCooperativeLaunchTooLarge.
CUDART_API abi::Error cudaLaunchCooperativeKernel(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args,
                                                  size_t shmem, abi::Stream stream) {
  return launch_kernel(func, grid, block, args, shmem, stream, nullptr, true);
}

CUDART_API abi::Error cudaLaunchCooperativeKernel_ptsz(const void* func, abi::Dim3 grid, abi::Dim3 block,
                                                       void** args, size_t shmem, abi::Stream stream) {
  return launch_kernel(func, grid, block, args, shmem, stream, nullptr, true);
}


// Launch attributes: the access-policy window is applied; cluster dimensions are checked against
// what the kernel does (launch_kernel); the others (priorities, ...) are hints without effect here.
CUDART_API abi::Error cudaLaunchKernelExC(const abi::LaunchConfig* config, const void* func, void** args) {
  if (!config) return ret(abi::ErrInvalidValue);
  if (config->numAttrs && !config->attrs) return ret(abi::ErrInvalidValue);
  timing::AccessWindow win;
  bool has_window = false;
  // instance(), not get(): a launch into a created stream must not run the queued launches.
  const size_t max_window = size_t(std::max(0, State::instance().dev->spec().access_policy_max_window));
  bool cooperative = false;
  unsigned cluster_ctas = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const abi::LaunchAttribute& a = config->attrs[i];
    if (a.id == abi::LaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
    if (a.id == abi::LaunchAttributeClusterDimension)
      cluster_ctas = std::max(1u, a.val.clusterDim.x) * std::max(1u, a.val.clusterDim.y) * std::max(1u, a.val.clusterDim.z);
    if (a.id != abi::LaunchAttributeAccessPolicyWindow) continue;
    if (int e = access_window_from(a.val.accessPolicyWindow, max_window, win)) return ret(e);
    has_window = true;
  }
  return launch_kernel(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                       has_window ? &win : nullptr, cooperative, cluster_ctas);
}

CUDART_API abi::Error cudaLaunchKernelExC_ptsz(const abi::LaunchConfig* config, const void* func, void** args) {
  return cudaLaunchKernelExC(config, func, args);
}
