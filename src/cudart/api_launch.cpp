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

int cluster_shape(const runtime::GpuSpec& spec, const ptx::Function& fn, bool nonportable, abi::Dim3 grid,
                  const abi::Dim3* attr, func::Dim3& out, bool& explicit_cluster) {
  const auto& d = fn.perf.reqnctapercluster;
  const bool declared = fn.perf.reqnctapercluster_dims != 0;
  const func::Dim3 decl{std::max(1u, d[0]), std::max(1u, d[1]), std::max(1u, d[2])};
  out = func::Dim3{};
  explicit_cluster = declared || attr || fn.perf.explicitcluster;
  if (attr) {
    out = func::Dim3{attr->x, attr->y, attr->z};
    if (!out.x || !out.y || !out.z) return abi::ErrInvalidClusterSize;
    if (declared && (out.x != decl.x || out.y != decl.y || out.z != decl.z)) return abi::ErrInvalidClusterSize;
  } else if (declared) {
    out = decl;
  }
  if (out.count() > 1 && spec.cc_major < 9) {
    fmt::print(stderr, "warpsim: kernel {} is launched with clusters of {} CTAs: thread-block clusters need compute "
               "capability 9.0, the {} has {}.{}; the launch fails with cudaErrorNotSupported\n",
               fn.name, out.count(), spec.name, spec.cc_major, spec.cc_minor);
    return abi::ErrNotSupported;
  }
  // 8 CTAs is the portable limit; the H100 allows 16 with the opt-in (CUDA Programming Guide,
  // Thread Block Clusters).
  if (out.count() > (nonportable ? 16u : 8u)) return abi::ErrInvalidClusterSize;
  if (grid.x % out.x || grid.y % out.y || grid.z % out.z) return abi::ErrInvalidClusterSize;
  return 0;
}

int launch_kernel(const void* func, abi::Dim3 grid, abi::Dim3 block, void** args, size_t shmem, void* stream,
                  const timing::AccessWindow* window, bool cooperative, const abi::Dim3* cluster) {
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
  func::Dim3 cdim;
  bool explicit_cluster = false;
  if (int e = cluster_shape(s.dev->spec(), *k.fn, k.nonportable_cluster, grid, cluster, cdim, explicit_cluster)) {
    if (s.opts.trace)
      fmt::print(stderr, "warpsim: launch of {}: grid ({},{},{}) with clusters of ({},{},{}) refused\n", k.name, grid.x,
                 grid.y, grid.z, cdim.x, cdim.y, cdim.z);
    return ret(e);
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
  req.cluster = cdim;
  req.explicit_cluster = explicit_cluster;
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


// Launch attributes: the access-policy window is applied; cluster dimensions shape the launch's
// clusters (launch_kernel); the others (priorities, ...) are hints without effect here.
CUDART_API abi::Error cudaLaunchKernelExC(const abi::LaunchConfig* config, const void* func, void** args) {
  if (!config) return ret(abi::ErrInvalidValue);
  if (config->numAttrs && !config->attrs) return ret(abi::ErrInvalidValue);
  timing::AccessWindow win;
  bool has_window = false;
  // instance(), not get(): a launch into a created stream must not run the queued launches.
  const size_t max_window = size_t(std::max(0, State::instance().dev->spec().access_policy_max_window));
  bool cooperative = false;
  abi::Dim3 cluster{1, 1, 1};
  bool has_cluster = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const abi::LaunchAttribute& a = config->attrs[i];
    if (a.id == abi::LaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
    if (a.id == abi::LaunchAttributeClusterDimension) {
      cluster = abi::Dim3{a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z};
      has_cluster = true;
    }
    if (a.id != abi::LaunchAttributeAccessPolicyWindow) continue;
    if (int e = access_window_from(a.val.accessPolicyWindow, max_window, win)) return ret(e);
    has_window = true;
  }
  return launch_kernel(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                       has_window ? &win : nullptr, cooperative, has_cluster ? &cluster : nullptr);
}

CUDART_API abi::Error cudaLaunchKernelExC_ptsz(const abi::LaunchConfig* config, const void* func, void** args) {
  return cudaLaunchKernelExC(config, func, args);
}
