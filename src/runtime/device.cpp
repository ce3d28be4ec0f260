#include <cstdlib>
#include "runtime/device.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "ptx/parser.hpp"
#include "timing/gpu.hpp"

namespace warpsim::runtime {

namespace {
constexpr int kErrInvalidValue = 1;
constexpr int kErrInvalidDeviceFunction = 98;
constexpr int kErrCooperativeLaunchTooLarge = 720;
}  // namespace

const ptx::Function* Module::kernel(const std::string& name) const {
  if (!loaded || !loaded->ptx) return nullptr;
  for (auto& f : loaded->ptx->funcs)
    if (f.is_entry && f.name == name) return &f;
  return nullptr;
}

uint64_t Module::variable(const std::string& name) const {
  if (!loaded) return 0;
  auto it = loaded->vars.find(name);
  return it == loaded->vars.end() ? 0 : it->second;
}

Device::Device(GpuSpec spec) : spec_(std::move(spec)) {
  mem::MemoryConfig mc;
  mc.capacity = spec_.global_mem;
  mem_ = std::make_unique<mem::DeviceMemory>(mc);
  func::EngineConfig ec;
  ec.num_sms = uint32_t(spec_.sm_count);
  // The engine enforces the opt-in ceiling; the runtime checks the per-kernel limit (launch()).
  ec.max_shared_per_block = spec_.smem_per_block_optin;
  ec.sm_arch = uint32_t(spec_.cc_major * 10 + spec_.cc_minor);
  ec.machine = spec_.machine.name.empty() ? spec_.name : spec_.machine.name;
  if (const char* v = std::getenv("WARPSIM_REG_SHARING"); v && std::string_view(v) == "0") ec.share_registers = false;
  ec.spin_yield_threshold = spec_.machine.its_spin_yield;
  engine_ = std::make_unique<func::Engine>(*mem_, ec);
}

Device::~Device() {
  for (auto& m : modules_)
    if (m->loaded) engine_->unload(*m->loaded);
}

Module* Device::load_ptx(std::string_view text, const std::string& name, std::string& errors) {
  auto pr = ptx::parse(text, name);
  if (!pr.ok()) {
    for (auto& e : pr.errors) errors += e.str() + "\n";
    return nullptr;
  }
  auto lr = engine_->load(std::move(pr.module));
  if (!lr.ok()) {
    for (auto& e : lr.errors) errors += e + "\n";
    return nullptr;
  }
  auto m = std::make_unique<Module>();
  m->name = name;
  m->loaded = std::move(lr.module);
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

void Device::unload(Module* m) {
  for (auto it = modules_.begin(); it != modules_.end(); ++it)
    if (it->get() == m) {
      if (m->loaded) engine_->unload(*m->loaded);
      modules_.erase(it);
      return;
    }
}

int Device::check(const Module& m, const ptx::Function& k, const LaunchRequest& req, std::string& message) const {
  auto bad = [&](int err, std::string msg) {
    message = fmt::format("launch of {}: {}", k.name, msg);
    return err;
  };
  const auto& g = req.grid;
  const auto& b = req.block;
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 ||
      b.count() > uint64_t(spec_.max_threads_per_block) || b.x > uint32_t(spec_.max_block_dim[0]) ||
      b.y > uint32_t(spec_.max_block_dim[1]) || b.z > uint32_t(spec_.max_block_dim[2]) ||
      g.x > uint32_t(spec_.max_grid_dim[0]) || g.y > uint32_t(spec_.max_grid_dim[1]) ||
      g.z > uint32_t(spec_.max_grid_dim[2]))
    // cudaErrorInvalidValue, as CUDA 13's runtime and driver answer on our H100 for a zero grid, a
    // 2048-thread block, block z 65 and grid y 65536 (validation/driver/h100_driver_api.out), not
    // cudaErrorInvalidConfiguration, which older runtimes returned.
    return bad(kErrInvalidValue,
               fmt::format("invalid configuration grid ({},{},{}) block ({},{},{})", g.x, g.y, g.z, b.x, b.y, b.z));
  uint32_t limit = req.max_dynamic_smem ? req.max_dynamic_smem : spec_.smem_per_block;
  if (req.dynamic_smem > limit)
    return bad(kErrInvalidValue, fmt::format("{} bytes of dynamic shared memory exceed the limit of {} "
                                             "(raise it with cudaFuncSetAttribute)", req.dynamic_smem, limit));
  if (!m.loaded || !m.loaded->prog.find_kernel(k.name))
    return bad(kErrInvalidDeviceFunction, "kernel is not loaded");
  if (req.cooperative) {
    // Every CTA of a cooperative grid must be resident at once (CUDA Programming Guide, grid
    // synchronization): at most the occupancy limit times the SM count.
    KernelUsage u = req.usage;
    if (u.regs <= 0) u.regs = req.regs > 0 ? req.regs : 32;
    const Occupancy occ = occupancy(spec_, u, int(b.count()), req.dynamic_smem);
    const uint64_t fit = uint64_t(std::max(occ.blocks, 0)) * uint64_t(spec_.sm_count);
    if (g.count() > fit)
      return bad(kErrCooperativeLaunchTooLarge,
                 fmt::format("cooperative grid of {} blocks exceeds the {} that can be resident at once ({} per SM)",
                             g.count(), fit, occ.blocks));
  }
  return 0;
}

uint64_t Device::grid_workspace(size_t slot) {
  if (!grid_workspaces_) grid_workspaces_ = mem_->allocate(kWorkspaceBytes * kWorkspaceSlots, 256, "grid workspace");
  if (!grid_workspaces_) return 0;
  const uint64_t addr = grid_workspaces_ + kWorkspaceBytes * (slot % kWorkspaceSlots);
  const uint32_t ws[4] = {uint32_t(kWorkspaceBytes), 0, 0, 0};  // wsSize, barrier (cleared per launch)
  mem_->host_write(addr, ws, sizeof ws);
  return addr;
}

LaunchOutcome Device::launch(const Module& m, const ptx::Function& k, const LaunchRequest& req) {
  return launch_together({LaunchItem{&m, &k, req}}).at(0);
}

std::vector<LaunchOutcome> Device::launch_together(const std::vector<LaunchItem>& items) {
  std::vector<LaunchOutcome> outs = launch_batch(items);
  launch_children(items, outs, 1);
  return outs;
}

void Device::launch_children(const std::vector<LaunchItem>& parents, std::vector<LaunchOutcome>& outs, int depth) {
  // The nesting limit of the device runtime (CUDA Programming Guide, dynamic parallelism: 24).
  constexpr int kMaxDepth = 24;
  std::vector<LaunchItem> children;
  std::vector<size_t> parent_of;
  for (size_t i = 0; i < outs.size(); ++i) {
    auto grids = std::move(outs[i].result.children);
    outs[i].result.children.clear();
    if (grids.empty() || !outs[i].result.ok()) continue;
    if (depth > kMaxDepth) {
      outs[i].result.fault.kind = func::FaultKind::Unsupported;
      outs[i].result.fault.message = fmt::format("kernel launches from device code nested deeper than {} levels", kMaxDepth);
      continue;
    }
    for (auto& g : grids) {
      LaunchItem c;
      c.module = parents[i].module;
      c.kernel = parents[i].module->kernel(g.kernel);
      if (!c.kernel) continue;  // the engine only hands out the module's own kernels
      c.req.grid = g.grid;
      c.req.block = g.block;
      c.req.dynamic_smem = g.dynamic_smem;
      c.req.marshalled = true;
      c.req.params = std::move(g.params);
      if (child_resources_) child_resources_(*c.module, g.kernel, c.req);
      children.push_back(std::move(c));
      parent_of.push_back(i);
    }
  }
  if (children.empty()) return;
  std::vector<LaunchOutcome> couts = launch_batch(children);
  launch_children(children, couts, depth + 1);
  // A child that could not launch or that faulted fails its parent's launch, as a device-side
  // error surfaces at the host's next synchronisation.
  for (size_t j = 0; j < couts.size(); ++j) {
    LaunchOutcome& p = outs[parent_of[j]];
    // Device printf of a child comes after its parent's (and its own children's after it).
    auto& lines = couts[j].result.printf_out;
    p.result.printf_out.insert(p.result.printf_out.end(), std::make_move_iterator(lines.begin()),
                               std::make_move_iterator(lines.end()));
    if (!p.result.ok() || p.cuda_error) continue;
    if (couts[j].cuda_error) {
      p.result.fault.kind = func::FaultKind::Unsupported;
      p.result.fault.message = fmt::format("a kernel it launched ({}) could not start: {}", children[j].kernel->name,
                                           couts[j].message);
    } else if (!couts[j].result.ok()) {
      p.result.fault = couts[j].result.fault;
      p.result.fault.message = fmt::format("in a kernel it launched ({}): {}", children[j].kernel->name,
                                           couts[j].result.fault.message);
    }
  }
}

std::vector<LaunchOutcome> Device::launch_batch(const std::vector<LaunchItem>& items) {
  std::vector<LaunchOutcome> outs(items.size());
  // Timing mode: every launch that passes its checks is prepared, then all run on one GPU.
  struct Timed {
    size_t item;
    func::LaunchState ls;
    func::LaunchResult res;
    timing::KernelLaunch kl;
    KernelRecord rec;
  };
  std::vector<std::unique_ptr<Timed>> timed;
  for (size_t i = 0; i < items.size(); ++i) {
    const Module& m = *items[i].module;
    const ptx::Function& k = *items[i].kernel;
    const LaunchRequest& req = items[i].req;
    LaunchOutcome& out = outs[i];
    if ((out.cuda_error = check(m, k, req, out.message))) continue;
    func::LaunchConfig lc;
    lc.grid = req.grid;
    lc.block = req.block;
    lc.dynamic_smem = req.dynamic_smem;
    lc.params = req.marshalled ? req.params : marshal_params(k, req.args);
    lc.cluster = req.cluster;
    lc.explicit_cluster = req.explicit_cluster;
    if (req.cooperative) {
      lc.co_resident = true;
      const uint64_t ws = grid_workspace(i);
      lc.envreg[1] = uint32_t(ws >> 32);
      lc.envreg[2] = uint32_t(ws);
    }
    KernelRecord rec;
    rec.name = k.name;
    rec.grid = req.grid;
    rec.block = req.block;
    rec.dynamic_smem = req.dynamic_smem;
    rec.regs = req.regs;
    rec.regs_estimated = req.regs_estimated;
    rec.start_ns = now_ns_;
    if (mode_ == Mode::Timing) {
      auto t = std::make_unique<Timed>();
      t->item = i;
      t->rec = std::move(rec);
      if (!engine_->prepare(*m.loaded, k.name, lc, t->ls, t->res)) {
        out.result = std::move(t->res);
        out.ran = true;
        record(out, t->rec);
        continue;
      }
      t->kl = timed_launch(m, lc, req, k.name, t->ls);
      timed.push_back(std::move(t));
      continue;
    }
    // CTAs that wait for each other without a cooperative launch (a software grid barrier, as
    // cuSPARSE's triangular solves use) rely on being resident together, as many as fit.
    lc.resident_ctas = uint64_t(std::max(launch_occupancy(req, int(req.block.count()), req.dynamic_smem).blocks, 1)) *
                       uint64_t(spec_.sm_count);
    if (progress_) {
      std::string kname = k.name;
      lc.progress = [this, kname](uint64_t done, uint64_t total, uint64_t instrs) { progress_(kname, done, total, instrs); };
    }
    const auto wall0 = std::chrono::steady_clock::now();
    out.result = engine_->launch(*m.loaded, k.name, lc);
    out.ran = true;
    rec.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const double issue_per_cycle = double(spec_.sm_count) * spec_.schedulers_per_sm;
    now_ns_ += std::ceil(double(out.result.warp_instrs) / issue_per_cycle) * 1e6 / spec_.clock_khz;
    rec.end_ns = now_ns_;
    record(out, rec);
  }
  if (timed.empty()) return outs;

  std::vector<timing::KernelLaunch*> kls;
  for (auto& t : timed) kls.push_back(&t->kl);
  // One GPU for the device's lifetime: its L2 and DRAM state carry from kernel to kernel. Built
  // before the clock starts: setting up tag arrays is not simulation.
  if (!gpu_) {
    gpu_ = std::make_unique<timing::Gpu>(spec_.machine);
    gpu_->memory().set_persisting_bytes(persisting_l2_);
  }
  if (flush_caches_) gpu_->flush_caches();
  gpu_->enable_timeline(timeline_every_);
  const uint64_t base_cycle = gpu_->now();
  const auto wall0 = std::chrono::steady_clock::now();
  std::vector<stats::KernelStats> st = gpu_->run(kls);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (timeline_every_) {
    // The batch starts at now_ns_ on the device's clock and at base_cycle on the GPU's.
    const double ns_per_cycle = spec_.machine.sm_clock_mhz > 0 ? 1e3 / spec_.machine.sm_clock_mhz : 0;
    for (auto& s : gpu_->take_timeline())
      timeline_.push_back({now_ns_ + double(s.cycle >= base_cycle ? s.cycle - base_cycle : 0) * ns_per_cycle, s});
  }
  double end = now_ns_;
  for (size_t j = 0; j < timed.size(); ++j) {
    Timed& t = *timed[j];
    const LaunchItem& it = items[t.item];
    LaunchOutcome& out = outs[t.item];
    out.result = engine_->finish(*it.module->loaded, t.ls, std::move(t.res));
    out.ran = true;
    t.rec.timed = true;
    t.rec.timing = st.at(j);
    t.rec.timing.kernel = it.kernel->name;
    t.rec.timing.regs_estimated = it.req.regs_estimated;
    t.rec.wall_s = wall / double(timed.size());  // the kernels ran together: share the wall time
    t.rec.end_ns = t.rec.start_ns + t.rec.timing.time_ns();
    end = std::max(end, t.rec.end_ns);
    record(out, t.rec);
  }
  now_ns_ = end;
  return outs;
}

const char* copy_kind_name(CopyKind k) {
  switch (k) {
    case CopyKind::HostToDevice: return "HtoD";
    case CopyKind::DeviceToHost: return "DtoH";
    case CopyKind::DeviceToDevice: return "DtoD";
    case CopyKind::Memset: return "memset";
  }
  return "?";
}

const CopyRecord& Device::copy(CopyKind kind, uint64_t bytes) {
  CopyRecord r{kind, bytes, now_ns_, now_ns_};
  if (mode_ == Mode::Timing) {
    const config::Machine& m = spec_.machine;
    double ns = 0;
    if (kind == CopyKind::HostToDevice || kind == CopyKind::DeviceToHost) {
      ns = m.pcie.latency_us * 1e3 + (m.pcie.gbytes_per_s > 0 ? double(bytes) / m.pcie.gbytes_per_s : 0);
    } else {
      // DRAM peak: bus bits / 8 x 2 (DDR) x memory clock; a copy reads and writes every byte.
      const double gbs = double(m.mem_bus_bits) / 8.0 * 2.0 * m.mem_clock_mhz * 1e-3;
      const double moved = kind == CopyKind::DeviceToDevice ? 2.0 * double(bytes) : double(bytes);
      ns = gbs > 0 ? moved / gbs : 0;
    }
    now_ns_ += ns;
    r.end_ns = now_ns_;
  }
  copies_.push_back(r);
  return copies_.back();
}

void Device::record(LaunchOutcome& out, KernelRecord& rec) {
  rec.warp_instrs = out.result.warp_instrs;
  rec.thread_instrs = out.result.thread_instrs;
  if (rec.end_ns < rec.start_ns) rec.end_ns = rec.start_ns;
  rec.ok = out.result.ok();
  if (!rec.ok) {
    rec.fault = out.result.report();
    out.cuda_error = func::fault_cuda_error(out.result.fault.kind);
  }
  kernels_.push_back(rec);
}

Occupancy Device::launch_occupancy(const LaunchRequest& req, int threads, uint32_t dynamic_smem) const {
  // The same numbers cudaOccupancyMaxActiveBlocksPerMultiprocessor reports.
  KernelUsage u = req.usage;
  if (u.regs <= 0) u.regs = req.regs > 0 ? req.regs : 32;
  Occupancy occ = occupancy(spec_, u, threads, dynamic_smem);
  // Counts estimated from PTX virtual registers overshoot what ptxas allocates; a JIT-compiled
  // kernel of this block size would be fitted to the register file, so cap the estimate there.
  while (req.regs_estimated && occ.by_regs == 0 && u.regs > 16) {
    u.regs -= 8;
    occ = occupancy(spec_, u, threads, dynamic_smem);
  }
  return occ;
}

timing::KernelLaunch Device::timed_launch(const Module& m, const func::LaunchConfig& lc, const LaunchRequest& req,
                                          const std::string& kernel, func::LaunchState& ls) {
  const int threads = int(lc.block.count());
  const Occupancy occ = launch_occupancy(req, threads, lc.dynamic_smem);
  timing::KernelLaunch kl;
  kl.module = m.loaded.get();
  kl.ls = &ls;
  kl.ecfg = &engine_->config();
  kl.fp.threads = uint32_t(threads);
  kl.fp.warps = uint32_t((threads + 31) / 32);
  kl.fp.regs = uint32_t(occ.regs_per_block);
  kl.fp.smem = occ.smem_per_block;
  kl.max_ctas_per_sm = uint32_t(std::max(occ.blocks, 0));
  if (kl.max_ctas_per_sm == 0) kl.max_ctas_per_sm = 1;  // launchability was checked by the caller
  // cudaFuncAttributePreferredSharedMemoryCarveout (percent of the largest carve-out): the L1 gets
  // what the carve-out leaves.
  if (req.usage.carveout >= 0)
    kl.preferred_carveout = uint32_t(std::min<uint64_t>(spec_.machine.max_shared_per_sm,
                                                        uint64_t(req.usage.carveout) * spec_.machine.max_shared_per_sm / 100));
  kl.window = req.window;
  if (progress_) {
    std::string kname = kernel;
    kl.progress = [this, kname](uint64_t done, uint64_t total, uint64_t instrs) { progress_(kname, done, total, instrs); };
  }
  return kl;
}

void Device::set_persisting_l2(uint64_t bytes) {
  persisting_l2_ = bytes;
  if (gpu_) gpu_->memory().set_persisting_bytes(bytes);
}

void Device::reset_persisting_l2() {
  if (gpu_) gpu_->memory().reset_persisting();
}

std::string Device::summary() const {
  std::string s;
  for (auto& k : kernels_) {
    s += fmt::format("warpsim: kernel {} grid ({},{},{}) block ({},{},{}) {} thread instrs, {:.3f} us simulated{}\n",
                     k.name, k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z, k.thread_instrs,
                     (k.end_ns - k.start_ns) / 1000.0, k.ok ? "" : " (FAULTED)");
    if (k.timed) s += "warpsim:   " + k.timing.text() + "\n";
  }
  return s;
}

}  // namespace warpsim::runtime
