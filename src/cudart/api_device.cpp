// Devices, versions, limits, function attributes and occupancy.
#include <cstddef>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "cudart/device_props.hpp"
#include "cudart/export.hpp"
#include "cudart/launch.hpp"
#include "cudart/state.hpp"
#include "runtime/occupancy.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

namespace {
constexpr int kVersion = 13000;  // CUDA 13.0
}

CUDART_API abi::Error cudaGetDeviceCount(int* count) {
  if (!count) return ret(abi::ErrInvalidValue);
  *count = 1;
  return 0;
}

CUDART_API abi::Error cudaSetDevice(int device) {
  if (device != 0) return ret(abi::ErrInvalidDevice);
  State::get().current_device = 0;
  return 0;
}

CUDART_API abi::Error cudaGetDevice(int* device) {
  if (!device) return ret(abi::ErrInvalidValue);
  *device = State::get().current_device;
  return 0;
}

CUDART_API abi::Error cudaInitDevice(int device, unsigned, unsigned) { return device == 0 ? 0 : ret(abi::ErrInvalidDevice); }
CUDART_API abi::Error cudaSetDeviceFlags(unsigned) { return 0; }
CUDART_API abi::Error cudaGetDeviceFlags(unsigned* flags) {
  if (flags) *flags = 0;
  return 0;
}
CUDART_API abi::Error cudaChooseDevice(int* device, const abi::DeviceProp*) {
  if (device) *device = 0;
  return 0;
}
CUDART_API abi::Error cudaSetValidDevices(int*, int) { return 0; }

CUDART_API abi::Error cudaGetDeviceProperties(abi::DeviceProp* prop, int device) {
  if (!prop) return ret(abi::ErrInvalidValue);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  fill_props(State::get().dev->spec(), *prop);
  return 0;
}


// CUDA 12's headers make cudaGetDeviceProperties this (programs built with CUDA 12 that run on
// warpsim's libcudart.so.12).
CUDART_API abi::Error cudaGetDeviceProperties_v2(abi::DeviceProp12* prop, int device) {
  if (!prop) return ret(abi::ErrInvalidValue);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  const runtime::GpuSpec& g = State::get().dev->spec();
  abi::DeviceProp p{};
  fill_props(g, p);
  abi::DeviceProp12& q = *prop;
  q = abi::DeviceProp12{};
  auto attr = [&](int a) {
    int v = 0;
    device_attribute(g, a, v);
    return v;
  };
  std::memcpy(q.name, p.name, sizeof q.name);
  q.uuid = p.uuid;
  std::memcpy(q.luid, p.luid, sizeof q.luid);
  q.luidDeviceNodeMask = p.luidDeviceNodeMask;
  q.totalGlobalMem = p.totalGlobalMem;
  q.sharedMemPerBlock = p.sharedMemPerBlock;
  q.regsPerBlock = p.regsPerBlock;
  q.warpSize = p.warpSize;
  q.memPitch = p.memPitch;
  q.maxThreadsPerBlock = p.maxThreadsPerBlock;
  std::memcpy(q.maxThreadsDim, p.maxThreadsDim, sizeof q.maxThreadsDim);
  std::memcpy(q.maxGridSize, p.maxGridSize, sizeof q.maxGridSize);
  q.clockRate = attr(13);  // cudaDevAttrClockRate
  q.totalConstMem = p.totalConstMem;
  q.major = p.major;
  q.minor = p.minor;
  q.textureAlignment = p.textureAlignment;
  q.texturePitchAlignment = p.texturePitchAlignment;
  q.deviceOverlap = attr(15);  // cudaDevAttrGpuOverlap
  q.multiProcessorCount = p.multiProcessorCount;
  q.kernelExecTimeoutEnabled = attr(17);
  q.integrated = p.integrated;
  q.canMapHostMemory = p.canMapHostMemory;
  q.computeMode = attr(20);
  q.maxTexture1D = p.maxTexture1D;
  q.maxTexture1DMipmap = p.maxTexture1DMipmap;
  q.maxTexture1DLinear = 1 << 28;  // the Programming Guide's limit for compute capability 5.0 and later
  // maxTexture2D ... maxSurfaceCubemapLayered are contiguous ints in both layouts.
  std::memcpy(q.maxTexture2D, p.maxTexture2D,
              offsetof(abi::DeviceProp, surfaceAlignment) - offsetof(abi::DeviceProp, maxTexture2D));
  q.surfaceAlignment = p.surfaceAlignment;
  q.concurrentKernels = p.concurrentKernels;
  q.ECCEnabled = p.ECCEnabled;
  q.pciBusID = p.pciBusID;
  q.pciDeviceID = p.pciDeviceID;
  q.pciDomainID = p.pciDomainID;
  q.tccDriver = p.tccDriver;
  q.asyncEngineCount = p.asyncEngineCount;
  q.unifiedAddressing = p.unifiedAddressing;
  q.memoryClockRate = attr(36);
  q.memoryBusWidth = p.memoryBusWidth;
  q.l2CacheSize = p.l2CacheSize;
  q.persistingL2CacheMaxSize = p.persistingL2CacheMaxSize;
  q.maxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  q.streamPrioritiesSupported = p.streamPrioritiesSupported;
  q.globalL1CacheSupported = p.globalL1CacheSupported;
  q.localL1CacheSupported = p.localL1CacheSupported;
  q.sharedMemPerMultiprocessor = p.sharedMemPerMultiprocessor;
  q.regsPerMultiprocessor = p.regsPerMultiprocessor;
  q.managedMemory = p.managedMemory;
  q.isMultiGpuBoard = p.isMultiGpuBoard;
  q.multiGpuBoardGroupID = p.multiGpuBoardGroupID;
  q.hostNativeAtomicSupported = p.hostNativeAtomicSupported;
  q.singleToDoublePrecisionPerfRatio = attr(87);
  q.pageableMemoryAccess = p.pageableMemoryAccess;
  q.concurrentManagedAccess = p.concurrentManagedAccess;
  q.computePreemptionSupported = p.computePreemptionSupported;
  q.canUseHostPointerForRegisteredMem = p.canUseHostPointerForRegisteredMem;
  q.cooperativeLaunch = p.cooperativeLaunch;
  q.cooperativeMultiDeviceLaunch = 0;  // one device
  q.sharedMemPerBlockOptin = p.sharedMemPerBlockOptin;
  q.pageableMemoryAccessUsesHostPageTables = p.pageableMemoryAccessUsesHostPageTables;
  q.directManagedMemAccessFromHost = p.directManagedMemAccessFromHost;
  q.maxBlocksPerMultiProcessor = p.maxBlocksPerMultiProcessor;
  q.accessPolicyMaxWindowSize = p.accessPolicyMaxWindowSize;
  q.reservedSharedMemPerBlock = p.reservedSharedMemPerBlock;
  std::memcpy(q.tail, &p.hostRegisterSupported, sizeof q.tail);
  return 0;
}

// Doubles need no conversion for the simulated device (these did nothing since CUDA 3.x hardware).
CUDART_API abi::Error cudaSetDoubleForDevice(double*) { return 0; }
CUDART_API abi::Error cudaSetDoubleForHost(double*) { return 0; }

namespace warpsim::cudart {
// Our H100 answers 2^28 for float4 (16-byte) texels and 2^30 for 1-byte ones: a 4 GiB span, and
// at most 2^30 elements (validation/driver/h100_managed_api.out).
size_t tex1d_linear_max_width(size_t elem_bytes) {
  if (elem_bytes == 0) return 0;
  return std::min<size_t>(size_t(1) << 30, (size_t(1) << 32) / elem_bytes);
}
}  // namespace warpsim::cudart

CUDART_API abi::Error cudaDeviceGetTexture1DLinearMaxWidth(size_t* w, const abi::ChannelFormatDesc* fd, int device) {
  if (!w || !fd) return ret(abi::ErrInvalidValue);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  const int bits = fd->x + fd->y + fd->z + fd->w;
  if (bits <= 0 || bits % 8) return ret(abi::ErrInvalidValue);
  *w = tex1d_linear_max_width(size_t(bits / 8));
  return 0;
}

// Writes from third-party devices (GPUDirect RDMA) are none on the simulated GPU: nothing to flush.
// Target: cudaFlushGPUDirectRDMAWritesTargetCurrentDevice (0); scope: to the owner (100) or to all
// devices (200).
CUDART_API abi::Error cudaDeviceFlushGPUDirectRDMAWrites(int target, int scope) {
  if (target != 0 || (scope != 100 && scope != 200)) return ret(abi::ErrInvalidValue);
  return 0;
}

CUDART_API abi::Error cudaDeviceGetAttribute(int* value, int attr, int device) {
  if (!value) return ret(abi::ErrInvalidValue);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  if (!device_attribute(State::get().dev->spec(), attr, *value)) return ret(abi::ErrInvalidValue);
  return 0;
}

// domain:bus:device.function of the simulated GPU (the GPU description's PCI numbers).
CUDART_API abi::Error cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  if (!pciBusId || len <= 0) return ret(abi::ErrInvalidValue);
  if (device != 0) return ret(abi::ErrInvalidDevice);
  const runtime::GpuSpec& g = State::get().dev->spec();
  std::snprintf(pciBusId, size_t(len), "%04x:%02x:%02x.0", g.pci_domain_id, g.pci_bus_id, g.pci_device_id);
  return 0;
}

// "[domain:]bus:device.function" in hex; cudaErrorInvalidValue if malformed, cudaErrorInvalidDevice
// if it is not the simulated GPU's (as our H100 answers for another bus id).
CUDART_API abi::Error cudaDeviceGetByPCIBusId(int* device, const char* id) {
  if (!device || !id) return ret(abi::ErrInvalidValue);
  unsigned dom = 0, bus = 0, dev = 0, fn = 0;
  char end = 0;
  if (std::sscanf(id, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &end) != 4) {
    dom = 0;
    if (std::sscanf(id, "%x:%x.%x%c", &bus, &dev, &fn, &end) != 3) return ret(abi::ErrInvalidValue);
  }
  const runtime::GpuSpec& g = State::get().dev->spec();
  if (dom != unsigned(g.pci_domain_id) || bus != unsigned(g.pci_bus_id) || dev != unsigned(g.pci_device_id) || fn)
    return ret(abi::ErrInvalidDevice);
  *device = 0;
  return 0;
}

CUDART_API abi::Error cudaDeviceCanAccessPeer(int* can, int, int) {
  if (can) *can = 0;
  return 0;
}

// One GPU, as our H100 machine answers: no peer can be enabled (device 0 itself:
// cudaErrorPeerAccessUnsupported; any other: cudaErrorInvalidDevice).
CUDART_API abi::Error cudaDeviceEnablePeerAccess(int peer, unsigned int) {
  return ret(peer == 0 ? abi::ErrPeerAccessUnsupported : abi::ErrInvalidDevice);
}
CUDART_API abi::Error cudaDeviceDisablePeerAccess(int peer) {
  return ret(peer == 0 ? abi::ErrPeerAccessNotEnabled : abi::ErrInvalidDevice);
}
CUDART_API abi::Error cudaDeviceGetP2PAttribute(int*, int, int, int) { return ret(abi::ErrInvalidDevice); }

CUDART_API abi::Error cudaDriverGetVersion(int* v) {
  if (!v) return ret(abi::ErrInvalidValue);
  *v = kVersion;
  return 0;
}

CUDART_API abi::Error cudaRuntimeGetVersion(int* v) {
  if (!v) return ret(abi::ErrInvalidValue);
  *v = kVersion;
  return 0;
}

CUDART_API abi::Error cudaDeviceSynchronize() {
  State& s = State::get();
  std::lock_guard g(s.mu);
  return s.sticky ? ret(s.sticky) : 0;
}

// Clears the sticky error; allocations and loaded modules stay (a real reset destroys the
// context; programs that reset and continue re-register nothing, so keeping modules is kinder).
CUDART_API abi::Error cudaDeviceReset() {
  State& s = State::get();
  std::lock_guard g(s.mu);
  s.sticky = 0;
  last_error() = 0;
  return 0;
}

namespace {
size_t g_limits[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 32, 0};
}

// Stored and reported back; cudaLimitStackSize (0) sets the per-thread stack of later launches;
// cudaLimitPersistingL2CacheSize (6) sets the L2 set-aside for persisting accesses. As measured on
// an H100 with CUDA 13 (docs/ampere-features.md): a value above persistingL2CacheMaxSize is
// cudaErrorInvalidValue and leaves the limit as it was; others are rounded up to a multiple of
// 1/16 of the L2 ([WP]: "set-aside for persistent accesses in 1/16th increments (2.5 MB)"), and
// cudaDeviceGetLimit reports the rounded value (1 byte -> 3276800 on the 50 MiB H100).
CUDART_API abi::Error cudaDeviceSetLimit(int limit, size_t value) {
  if (limit < 0 || limit > 6) return ret(abi::ErrInvalidValue);
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (limit == 0) {
    if (value > (1u << 20)) return ret(abi::ErrInvalidValue);  // far above any real stack need
    s.dev->engine().set_stack_bytes(uint32_t(value));
  }
  if (limit == 2) {  // cudaLimitMallocHeapSize: fixed once a kernel has used the heap
    if (!s.dev->engine().heap().set_capacity(value)) return ret(abi::ErrInvalidValue);
  }
  if (limit == abi::LimitPersistingL2CacheSize) {
    if (value > size_t(std::max(0, s.dev->spec().persisting_l2_max))) return ret(abi::ErrInvalidValue);
    const size_t step = std::max<size_t>(1, size_t(s.dev->spec().machine.l2_bytes) / 16);
    value = (value + step - 1) / step * step;
    s.dev->set_persisting_l2(value);
  }
  g_limits[limit] = value;
  return 0;
}

// Persisting lines in L2 become normal ones (the set-aside stays as set).
CUDART_API abi::Error cudaCtxResetPersistingL2Cache() {
  State& s = State::get();
  std::lock_guard g(s.mu);
  s.dev->reset_persisting_l2();
  return 0;
}

CUDART_API abi::Error cudaDeviceGetLimit(size_t* value, int limit) {
  if (!value || limit < 0 || limit > 6) return ret(abi::ErrInvalidValue);
  *value = g_limits[limit];
  return 0;
}

CUDART_API abi::Error cudaDeviceSetCacheConfig(int) { return 0; }
CUDART_API abi::Error cudaDeviceGetCacheConfig(int* c) {
  if (c) *c = 0;
  return 0;
}
CUDART_API abi::Error cudaDeviceSetSharedMemConfig(int) { return 0; }
CUDART_API abi::Error cudaFuncSetCacheConfig(const void*, int) { return 0; }
CUDART_API abi::Error cudaFuncSetSharedMemConfig(const void*, int) { return 0; }

CUDART_API abi::Error cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return 0;
}

// ------------------------------------------------------------------ functions

namespace {
KernelEntry* kernel_for(State& s, const void* func, int& err) {
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) {
    if (s.opts.trace) fmt::print(stderr, "warpsim: trace: unregistered function {}\n", func);
    err = abi::ErrInvalidDeviceFunction;
    return nullptr;
  }
  err = s.resolve(it->second);
  return err ? nullptr : &it->second;
}
}  // namespace

namespace {
// The static shared memory of a kernel: the cubin's, else the engine's layout of the PTX.
uint32_t static_smem(const KernelEntry& k) {
  if (!k.regs_estimated) return k.res.static_shared;
  const auto* df = k.module->loaded->prog.find_kernel(k.name);
  return df ? uint32_t(df->static_shared) : 0;
}
int max_threads(const runtime::GpuSpec& spec, const KernelEntry& k) {
  int n = runtime::max_threads_for_regs(spec, k.regs_estimated ? 0 : k.res.regs);
  if (k.res.max_threads) n = std::min<int>(n, int(k.res.max_threads));
  return n;
}
}  // namespace

runtime::KernelUsage warpsim::cudart::kernel_usage(const runtime::GpuSpec& spec, const KernelEntry& k) {
  runtime::KernelUsage u;
  u.regs = k.res.regs;
  u.static_smem = static_smem(k);
  u.max_threads = uint32_t(max_threads(spec, k));
  u.max_dynamic_smem = uint32_t(k.max_dynamic_smem);
  u.carveout = k.carveout;
  return u;
}

CUDART_API abi::Error cudaFuncGetAttributes(abi::FuncAttributes* attr, const void* func) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!attr) return ret(abi::ErrInvalidValue);
  int err = 0;
  KernelEntry* k = kernel_for(s, func, err);
  if (!k) return ret(err);
  std::memset(attr, 0, sizeof *attr);
  const auto* df = k->module->loaded->prog.find_kernel(k->name);
  const auto& spec = s.dev->spec();
  attr->sharedSizeBytes = static_smem(*k);
  // Registers, stack frame and launch bounds come from the fatbinary's sm_80 cubin (what ptxas
  // reports); without one, registers are estimated from the PTX (estimate_registers).
  attr->localSizeBytes = k->regs_estimated ? (df ? df->local_frame : 0) : k->res.frame;
  attr->maxThreadsPerBlock = max_threads(spec, *k);
  attr->numRegs = k->res.regs;
  // ptxVersion is the virtual architecture the PTX targets (80 for .target sm_80), not the ISA
  // version; CUB picks its tuning policies by it.
  attr->ptxVersion = spec.cc_major * 10 + spec.cc_minor;
  for (auto& t : k->module->loaded->ptx->targets)
    if (t.rfind("sm_", 0) == 0) attr->ptxVersion = std::atoi(t.c_str() + 3);
  attr->binaryVersion = spec.cc_major * 10 + spec.cc_minor;
  attr->maxDynamicSharedSizeBytes =
      k->max_dynamic_smem ? k->max_dynamic_smem : int(spec.smem_per_block - attr->sharedSizeBytes);
  attr->preferredShmemCarveout = k->carveout;
  // __cluster_dims__ (.reqnctapercluster) and the non-portable opt-in
  if (k->fn->perf.reqnctapercluster_dims) {
    attr->requiredClusterWidth = int(std::max(1u, k->fn->perf.reqnctapercluster[0]));
    attr->requiredClusterHeight = int(std::max(1u, k->fn->perf.reqnctapercluster[1]));
    attr->requiredClusterDepth = int(std::max(1u, k->fn->perf.reqnctapercluster[2]));
  }
  attr->nonPortableClusterSizeAllowed = k->nonportable_cluster;
  return 0;
}

CUDART_API abi::Error cudaFuncSetAttribute(const void* func, int attr, int value) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) return ret(abi::ErrInvalidDeviceFunction);
  KernelEntry& k = it->second;
  if (attr == 8) {  // cudaFuncAttributeMaxDynamicSharedMemorySize
    if (value < 0 || uint32_t(value) > s.dev->spec().smem_per_block_optin) return ret(abi::ErrInvalidValue);
    k.max_dynamic_smem = value;
    return 0;
  }
  if (attr == 9) {  // cudaFuncAttributePreferredSharedMemoryCarveout: -1 (default) or 0..100 percent
    if (value < -1 || value > 100) return ret(abi::ErrInvalidValue);
    k.carveout = value;
    return 0;
  }
  if (attr == 14) {  // cudaFuncAttributeNonPortableClusterSizeAllowed
    if (value != 0 && value != 1) return ret(abi::ErrInvalidValue);
    k.nonportable_cluster = value;
    return 0;
  }
  if (attr >= 10 && attr <= 15) return 0;  // cluster hints
  return ret(abi::ErrInvalidValue);
}

// The CUDA occupancy calculator's rules (runtime/occupancy.hpp).
CUDART_API abi::Error cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                             int blockSize, size_t dynamicSMemSize,
                                                                             unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!numBlocks || blockSize <= 0) return ret(abi::ErrInvalidValue);
  (void)flags;  // cudaOccupancyDisableCachingOverride: no partitioned global caching on cc 8.0
  int err = 0;
  KernelEntry* k = kernel_for(s, func, err);
  if (!k) return ret(err);
  *numBlocks = runtime::occupancy(s.dev->spec(), kernel_usage(s.dev->spec(), *k), blockSize, dynamicSMemSize).blocks;
  return 0;
}

CUDART_API abi::Error cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                                    size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

namespace {
// The groups of SMs one cluster may spread over (configs: gpu.cluster_sm_groups, measured on our
// H100), else the GPCs (tpcs_per_gpc x sms_per_tpc).
std::vector<uint32_t> cluster_groups(const runtime::GpuSpec& spec) {
  const config::Machine& m = spec.machine;
  if (!m.cluster_sm_groups.empty()) return m.cluster_sm_groups;
  std::vector<uint32_t> out;
  for (uint32_t t : m.tpcs_per_gpc) out.push_back(t * m.sms_per_tpc);
  if (out.empty()) out.push_back(uint32_t(spec.sm_count));
  return out;
}

// Clusters of `csize` CTAs, `per_sm` CTAs of the kernel fitting on an SM, that the GPU holds at
// once: a cluster's CTAs sit on distinct SMs of one group, so a group of g >= csize SMs holds
// floor(g x per_sm / csize) of them and a smaller group none, with per_sm at most
// gpu.cluster_ctas_per_sm. With the H100's groups and limit this gives each of the 160 answers of
// validation/driver/h100_cluster_occupancy.out.
int clusters_that_fit(const runtime::GpuSpec& spec, uint32_t csize, int per_sm) {
  if (per_sm <= 0 || csize == 0) return 0;
  if (spec.machine.cluster_ctas_per_sm) per_sm = std::min(per_sm, int(spec.machine.cluster_ctas_per_sm));
  uint64_t n = 0;
  for (uint32_t g : cluster_groups(spec))
    if (g >= csize) n += uint64_t(g) * uint64_t(per_sm) / csize;
  return int(n);
}

// The cluster dimension attribute of a launch configuration, if any.
const abi::LaunchAttribute* cluster_attr(const abi::LaunchConfig* c) {
  for (unsigned i = 0; c->attrs && i < c->numAttrs; ++i)
    if (c->attrs[i].id == abi::LaunchAttributeClusterDimension) return &c->attrs[i];
  return nullptr;
}
}  // namespace

// How many clusters of the configuration's shape (its cluster attribute, else the kernel's
// __cluster_dims__) can be resident at once.
CUDART_API abi::Error cudaOccupancyMaxActiveClusters(int* numClusters, const void* func, const abi::LaunchConfig* config) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!numClusters || !config) return ret(abi::ErrInvalidValue);
  int err = 0;
  KernelEntry* k = kernel_for(s, func, err);
  if (!k) return ret(err);
  const abi::LaunchAttribute* a = cluster_attr(config);
  abi::Dim3 dim = a ? abi::Dim3{a->val.clusterDim.x, a->val.clusterDim.y, a->val.clusterDim.z} : abi::Dim3{1, 1, 1};
  func::Dim3 shape;
  bool explicit_cluster = false;
  if (int e = cluster_shape(s.dev->spec(), *k->fn, k->nonportable_cluster, config->gridDim, a ? &dim : nullptr, shape,
                            explicit_cluster))
    return ret(e);
  const int threads = int(config->blockDim.x * config->blockDim.y * config->blockDim.z);
  if (threads <= 0) return ret(abi::ErrInvalidValue);
  const int per_sm =
      runtime::occupancy(s.dev->spec(), kernel_usage(s.dev->spec(), *k), threads, config->dynamicSmemBytes).blocks;
  *numClusters = clusters_that_fit(s.dev->spec(), uint32_t(shape.count()), per_sm);
  return 0;
}

// The largest cluster a launch of this configuration could use: 8 CTAs (16 with
// cudaFuncAttributeNonPortableClusterSizeAllowed), or fewer where no GPC holds that many of its CTAs.
CUDART_API abi::Error cudaOccupancyMaxPotentialClusterSize(int* clusterSize, const void* func,
                                                           const abi::LaunchConfig* config) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!clusterSize || !config) return ret(abi::ErrInvalidValue);
  int err = 0;
  KernelEntry* k = kernel_for(s, func, err);
  if (!k) return ret(err);
  const runtime::GpuSpec& spec = s.dev->spec();
  if (spec.cc_major < 9) {
    *clusterSize = 1;  // no clusters before sm_90
    return 0;
  }
  const int threads = int(config->blockDim.x * config->blockDim.y * config->blockDim.z);
  if (threads <= 0) return ret(abi::ErrInvalidValue);
  const int per_sm = runtime::occupancy(spec, kernel_usage(spec, *k), threads, config->dynamicSmemBytes).blocks;
  int best = 0;
  for (uint32_t c = k->nonportable_cluster ? 16 : 8; c >= 1 && !best; --c)
    if (clusters_that_fit(spec, c, per_sm) > 0) best = int(c);
  *clusterSize = best;
  return 0;
}

// The cudaThread* names of CUDA 3 (removed from the CUDA 13 headers, still exported by its
// libcudart and called by old programs built against CUDA 12) are the cudaDevice* calls.
CUDART_API abi::Error cudaThreadSynchronize() { return cudaDeviceSynchronize(); }
CUDART_API abi::Error cudaThreadExit() { return cudaDeviceReset(); }
CUDART_API abi::Error cudaThreadSetLimit(int limit, size_t value) { return cudaDeviceSetLimit(limit, value); }
CUDART_API abi::Error cudaThreadGetLimit(size_t* value, int limit) { return cudaDeviceGetLimit(value, limit); }
CUDART_API abi::Error cudaThreadSetCacheConfig(int c) { return cudaDeviceSetCacheConfig(c); }
CUDART_API abi::Error cudaThreadGetCacheConfig(int* c) { return cudaDeviceGetCacheConfig(c); }
CUDART_API abi::Error cudaDeviceGetSharedMemConfig(int* c) {
  if (!c) return ret(abi::ErrInvalidValue);
  *c = 1;  // cudaSharedMemBankSizeFourByte
  return 0;
}
