#include "cudart/state.hpp"
#include "ptx/link.hpp"

#include <fmt/format.h>
#include <cxxabi.h>
#include <sys/mman.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>

#include "ptx/isa.hpp"
#include "ptx/regpressure.hpp"

namespace warpsim::cudart {

namespace {
bool g_created = false;
// Stops the program over a bad simulator setting. _exit, not exit: we are inside State::get()'s
// static initialisation, and exit handlers that reach State::get() again would abort with a
// recursive-initialisation error.
[[noreturn]] void die_at_init(const std::string& msg) {
  fmt::print(stderr, "warpsim: {}\n", msg);
  std::fflush(nullptr);
  _exit(2);
}
}  // namespace

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

State::State() {
  if (const char* g = std::getenv("WARPSIM_GPU")) opts.gpu = g;
  opts.quiet = env_flag("WARPSIM_QUIET");
  opts.trace = env_flag("WARPSIM_TRACE");
  // Timing is the default; functional mode runs the engine alone (fast, placeholder times).
  runtime::Mode mode = runtime::Mode::Timing;
  if (const char* m = std::getenv("WARPSIM_MODE"); m && *m) {
    if (std::strcmp(m, "functional") == 0) mode = runtime::Mode::Functional;
    else if (std::strcmp(m, "timing") != 0) {
      die_at_init(fmt::format("unknown mode '{}' (WARPSIM_MODE): use functional or timing", m));
    }
  }
  // The machine: WARPSIM_GPU (a built-in name or a .toml path) with the WARPSIM_SET overrides
  // (newline-separated key=value, from `warpsim run --set`). A bad description stops the program:
  // simulating some other GPU than the one asked for would give silently wrong numbers.
  std::vector<std::string> overrides;
  if (const char* set = std::getenv("WARPSIM_SET")) {
    std::string all = set;
    for (size_t pos = 0; pos <= all.size();) {
      size_t nl = all.find('\n', pos);
      if (nl == std::string::npos) nl = all.size();
      if (nl > pos) overrides.push_back(all.substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  runtime::GpuSpec spec;
  std::string gpu_error;
  if (!runtime::gpu_spec_load(opts.gpu, overrides, spec, gpu_error)) {
    die_at_init(fmt::format("{} (WARPSIM_GPU={}{})", gpu_error, opts.gpu, overrides.empty() ? "" : ", WARPSIM_SET"));
  }
  dev = std::make_unique<runtime::Device>(spec);
  dev->set_mode(mode);
  // Kernels launched from device code: their KernelEntry's resources, as for a host launch. Called
  // during a launch, under `mu`.
  dev->set_child_resources([this](const runtime::Module& m, const std::string& name, runtime::LaunchRequest& req) {
    for (auto& [stub, k] : kernels) {
      if (k.name != name || !k.fatbin) continue;
      if (std::find(k.fatbin->modules.begin(), k.fatbin->modules.end(), &m) == k.fatbin->modules.end()) continue;
      if (resolve(k) != 0) return;
      req.regs = k.res.regs;
      req.regs_estimated = k.regs_estimated;
      req.max_dynamic_smem = uint32_t(k.max_dynamic_smem);
      req.usage = kernel_usage(dev->spec(), k);
      return;
    }
  });
  // WARPSIM_CACHE_CONTROL (warpsim run --cache-control): "all" flushes the L2 before every kernel,
  // as Nsight Compute does by default; "none" (the default) leaves it as the last kernel left it.
  if (const char* cc = std::getenv("WARPSIM_CACHE_CONTROL"); cc && *cc) {
    if (std::strcmp(cc, "all") == 0) dev->set_flush_caches(true);
    else if (std::strcmp(cc, "none") != 0)
      die_at_init(fmt::format("unknown cache control '{}' (WARPSIM_CACHE_CONTROL): use all or none", cc));
  }
  // WARPSIM_TIMELINE=CYCLES (warpsim run --timeline): sample the whole GPU every CYCLES cycles.
  if (const char* tl = std::getenv("WARPSIM_TIMELINE"); tl && *tl) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(tl, &end, 10);
    if (!end || *end || n == 0 || n > (1ull << 40))
      die_at_init(fmt::format("bad timeline interval '{}' (WARPSIM_TIMELINE): a number of cycles from 1 on", tl));
    dev->set_timeline(n);
  }
  // Long runs show a progress line on a terminal (at most 4 updates a second), nothing otherwise.
  if (!opts.quiet && isatty(STDERR_FILENO)) {
    dev->set_progress([](const std::string& kernel, uint64_t done, uint64_t total, uint64_t instrs) {
      using clock = std::chrono::steady_clock;
      static clock::time_point start = clock::now(), last{};
      static uint64_t last_instrs = 0;
      clock::time_point now = clock::now();
      if (now - last < std::chrono::milliseconds(250)) return;
      double secs = std::chrono::duration<double>(now - (last == clock::time_point{} ? start : last)).count();
      double rate = secs > 0 ? double(instrs >= last_instrs ? instrs - last_instrs : instrs) / secs : 0;
      last = now;
      last_instrs = instrs;
      std::string name = kernel.size() > 40 ? kernel.substr(0, 37) + "..." : kernel;
      fmt::print(stderr, "\rwarpsim: {} block {}/{}, {:.1f} M warp instructions, {:.1f} M/s   ", name, done, total,
                 instrs / 1e6, rate / 1e6);
      std::fflush(stderr);
    });
  }
}

State& State::instance() {
  // Never destroyed: host code may call us from atexit handlers.
  static State* s = (g_created = true, new State());
  return *s;
}

State& State::get() {
  State& s = instance();
  if (!s.pending.empty()) s.flush();
  return s;
}

std::map<int, abi::LaunchAttributeValue>* State::stream_attrs(void* stream) {
  if (reinterpret_cast<uintptr_t>(stream) <= 2) return &default_stream_attrs;
  auto* o = static_cast<StreamObj*>(stream);
  return streams.count(o) ? &o->attrs : nullptr;
}

const abi::LaunchAttributeValue* State::stream_attr(void* stream, int id) {
  auto* a = stream_attrs(stream);
  if (!a) return nullptr;
  auto it = a->find(id);
  return it == a->end() ? nullptr : &it->second;
}

void State::flush() {
  std::lock_guard g(mu);
  if (pending.empty()) return;
  std::vector<PendingLaunch> batch = std::move(pending);
  pending.clear();
  std::vector<runtime::LaunchItem> items;
  for (auto& p : batch) items.push_back(runtime::LaunchItem{p.kernel->module, p.kernel->fn, p.req});
  sync_managed_to_device();
  std::vector<runtime::LaunchOutcome> outs = dev->launch_together(items);
  for (auto& out : outs)
    for (auto& line : out.result.printf_out) fwrite(line.data(), 1, line.size(), stdout);
  sync_managed_to_host();
  for (size_t i = 0; i < outs.size(); ++i) {
    const runtime::LaunchOutcome& out = outs[i];
    if (!out.ran) {
      if (opts.trace) fmt::print(stderr, "warpsim: {}\n", out.message);
      if (out.cuda_error) last_error() = out.cuda_error;
      continue;
    }
    if (!out.result.ok()) {
      fflush(stdout);
      fmt::print(stderr, "warpsim: {}\n", out.result.report());
      // Like a fault on real hardware: the launch itself succeeded (it is asynchronous there), and
      // the error is sticky: every later call reports it.
      if (!sticky) sticky = out.cuda_error ? out.cuda_error : abi::ErrLaunchFailure;
      last_error() = sticky;
    }
  }
}

namespace {
// Loads a PTX module onto the device. With WARPSIM_DUMP_PTX=DIR each one is also written to DIR
// (named as in diagnostics, numbered in load order), to see what the simulator runs for a
// library's kernels.
runtime::Module* load_module(runtime::Device& dev, std::string_view text, const std::string& name,
                             std::string& errors) {
  if (const char* dir = std::getenv("WARPSIM_DUMP_PTX"); dir && *dir) {
    static int n = 0;
    std::string file = fmt::format("{}/{:04}_{}", dir, n++, name);
    for (size_t i = std::strlen(dir) + 1; i < file.size(); ++i)
      if (file[i] == '/') file[i] = '_';
    if (FILE* f = std::fopen(file.c_str(), "w")) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
  }
  return dev.load_ptx(text, name, errors);
}
}  // namespace

// libcudadevrt's PTX (linked in by -lcudadevrt for dynamic parallelism): its functions wrap
// driver "syscalls"; warpsim's engine provides the device runtime's entry points itself
// (func/ops_control.cpp), so this unit is left out of the link.
bool is_device_runtime(const FatbinEntry& e) {
  static const std::string marker = "__cuda_syscall_cnpv2LaunchDevice";
  return std::search(e.payload.begin(), e.payload.end(), marker.begin(), marker.end()) != e.payload.end();
}

bool State::ensure_loaded(FatbinHandle& h) {
  if (h.loaded) return h.error.empty();
  h.loaded = true;
  if (!h.ptx_text.empty()) {
    std::string errors;
    runtime::Module* m =
        load_module(*dev, h.ptx_text, fmt::format("{}[module].ptx", program_invocation_short_name), errors);
    if (!m) {
      h.error = errors;
      h.error_code = abi::ErrInvalidPtx;
      return false;
    }
    h.modules.push_back(m);
    return true;
  }
  std::vector<Container> containers;
  std::string err;
  if (!parse_wrapper(h.wrapper, containers, err)) {
    h.error = err;
    h.error_code = abi::ErrInvalidPtx;
    return false;
  }
  const uint32_t arch = uint32_t(dev->spec().cc_major * 10 + dev->spec().cc_minor);
  // Resources (register counts, stack sizes) from the cubins a device of this architecture would
  // run: same major version, minor <= ours. The device-linked cubin (first container) wins.
  for (auto& c : containers)
    for (auto& e : c)
      if (e.kind == EntryKind::Elf && e.error.empty() && e.arch / 10 == arch / 10 && e.arch <= arch) {
        std::map<std::string, KernelResources> res;
        std::string cerr;
        if (!read_cubin_resources(e.payload.data(), e.payload.size(), res, cerr)) {
          if (opts.trace) fmt::print(stderr, "warpsim: trace: {}\n", cerr);
          continue;
        }
        for (auto& [n, r] : res)
          if (r.regs >= 0) h.cubin.emplace(n, r);
        h.has_cubin = true;
      }
  std::string why_not;
  // Relocatable device code (nvcc -rdc=true): one PTX per translation unit, which reference each
  // other's functions and variables; linked into one module, as nvlink links their cubins.
  {
    std::vector<const FatbinEntry*> ptxs;
    for (auto& c : containers)
      if (const FatbinEntry* e = best_ptx(c, arch); e && !is_device_runtime(*e)) ptxs.push_back(e);
    if (ptxs.size() > 1) {
      std::vector<std::string> units;
      uint32_t lowest = ~0u;
      for (auto* e : ptxs) {
        units.emplace_back(e->payload.begin(), e->payload.end());
        lowest = std::min(lowest, e->arch);
      }
      std::string text, errors;
      if (!ptx::link_ptx(units, text, errors)) {
        h.error = fmt::format("cannot link the PTX of {} translation units: {}\n", units.size(), errors);
        h.error_code = abi::ErrInvalidPtx;
        return false;
      }
      std::string name = fmt::format("{}[linked compute_{}].ptx", program_invocation_short_name, lowest);
      runtime::Module* m = load_module(*dev, text, name, errors);
      if (!m) {
        h.error = fmt::format("cannot load the linked PTX of {} translation units:\n{}", units.size(), errors);
        h.error_code = abi::ErrInvalidPtx;
        return false;
      }
      h.modules.push_back(m);
      return true;
    }
  }
  for (size_t i = 0; i < containers.size(); ++i) {
    const FatbinEntry* e = best_ptx(containers[i], arch);
    // A container with SASS this GPU would run but PTX only for a newer architecture (libcurand
    // and cuBLAS ship PTX for their newest target alone): the hardware runs the SASS; we run the
    // same source's newer PTX in its place, and say so once.
    if (!e) {
      bool runnable_sass = false;
      for (auto& x : containers[i])
        runnable_sass |= x.kind == EntryKind::Elf && x.arch / 10 == arch / 10 && x.arch <= arch;
      if (runnable_sass)
        for (auto& x : containers[i])
          if (x.kind == EntryKind::Ptx && x.error.empty() && x.arch > arch && (!e || x.arch < e->arch)) e = &x;
      if (e) {
        static bool told = false;
        if (!told && !opts.quiet)
          fmt::print(stderr, "warpsim: note: a fatbinary has sm_{} SASS but no PTX for compute_{} or below; its "
                             "compute_{} PTX runs in the SASS's place\n", arch, arch, e->arch);
        told = true;
      }
      // The launch bounds that hold are the PTX's own: cuSPARSE launches its compute_120 kernels
      // with the block sizes that PTX was tuned for (128 threads where the sm_80 SASS of the same
      // kernel is bounded at 32).
      if (e)
        for (auto& [n, r] : h.cubin) r.max_threads = 0;
    }
    if (e && is_device_runtime(*e)) continue;
    if (!e) {
      for (auto& x : containers[i])
        if (x.kind == EntryKind::Ptx && !x.error.empty()) why_not += "  PTX entry: " + x.error + "\n";
      continue;
    }
    std::string text(e->payload.begin(), e->payload.end());
    std::string errors;
    // Diagnostics name the program and the embedded PTX: "vecadd[compute_80].ptx".
    std::string name = fmt::format("{}[{}compute_{}].ptx", program_invocation_short_name,
                                   containers.size() > 2 ? fmt::format("tu{}.", i) : "", e->arch);
    runtime::Module* m = load_module(*dev, text, name, errors);
    if (!m) {
      h.error += fmt::format("cannot load the compute_{} PTX:\n{}", e->arch, errors);
      h.error_code = abi::ErrInvalidPtx;
      continue;
    }
    h.modules.push_back(m);
  }
  if (h.modules.empty() && h.error.empty()) {
    h.error = fmt::format("the fatbinary holds no PTX for compute_{} or below (warpsim runs PTX, not SASS; "
                          "build with -arch=sm_{} or -gencode arch=compute_XX,code=compute_XX)\n{}",
                          arch, arch, why_not);
    h.error_code = abi::ErrNoKernelImageForDevice;
  }
  return h.error.empty();
}

int State::resolve(KernelEntry& k) {
  if (k.fn) return 0;
  if (opts.trace) fmt::print(stderr, "warpsim: trace: loading kernel {}\n", k.name);
  if (!k.fatbin) return abi::ErrInvalidDeviceFunction;
  ensure_loaded(*k.fatbin);
  for (auto* m : k.fatbin->modules)
    if (auto* f = m->kernel(k.name)) {
      k.module = m;
      k.fn = f;
      if (auto c = k.fatbin->cubin.find(k.name); c != k.fatbin->cubin.end()) {
        k.res = c->second;
      } else {
        k.res = KernelResources{};
        k.res.regs = estimate_registers(*f);
        k.regs_estimated = true;
        uint64_t t = 0;
        if (f->perf.reqntid_dims) t = uint64_t(f->perf.reqntid[0]) * std::max(1u, f->perf.reqntid[1]) * std::max(1u, f->perf.reqntid[2]);
        else if (f->perf.maxntid_dims) t = uint64_t(f->perf.maxntid[0]) * std::max(1u, f->perf.maxntid[1]) * std::max(1u, f->perf.maxntid[2]);
        if (t && t <= 1024) k.res.max_threads = uint32_t(t);
      }
      return 0;
    }
  static std::set<std::string> reported;
  if (reported.insert(k.name).second) {
    if (!k.fatbin->error.empty())
      fmt::print(stderr, "warpsim: kernel {} cannot run: {}\n", k.name, k.fatbin->error);
    else
      fmt::print(stderr, "warpsim: kernel {} is not in the fatbinary's PTX\n", k.name);
  }
  return k.fatbin->error_code ? k.fatbin->error_code : abi::ErrInvalidDeviceFunction;
}

uint64_t State::var_address(const void* host_var, size_t* size, int& err) {
  err = 0;
  auto it = vars.find(host_var);
  if (it == vars.end()) {
    err = abi::ErrInvalidSymbol;
    return 0;
  }
  VarEntry& v = it->second;
  if (v.fatbin) ensure_loaded(*v.fatbin);
  if (v.fatbin)
    for (auto* m : v.fatbin->modules)
      if (uint64_t a = m->variable(v.name)) {
        if (size) *size = v.size;
        return a;
      }
  err = abi::ErrInvalidSymbol;
  return 0;
}

bool State::map_managed(uint64_t a, size_t size) {
  if (managed.count(a)) return true;
  const uint64_t page = dev->memory().page_size();
  const uint64_t len = (size + page - 1) / page * page;
  void* p = mmap(reinterpret_cast<void*>(a), len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                 -1, 0);
  if (p != reinterpret_cast<void*>(a)) {
    if (p != MAP_FAILED) munmap(p, len);
    fmt::print(stderr, "warpsim: cannot map managed variable at 0x{:x}\n", a);
    return false;
  }
  dev->memory().host_read(a, p, size);
  managed[a] = size;
  return true;
}

bool State::is_device_ptr(const void* p) const {
  uint64_t a = reinterpret_cast<uint64_t>(p);
  return dev->memory().find(a) != nullptr && !is_managed_ptr(p);
}

bool State::is_managed_ptr(const void* p) const {
  uint64_t a = reinterpret_cast<uint64_t>(p);
  auto it = managed.upper_bound(a);
  if (it == managed.begin()) return false;
  --it;
  return a >= it->first && a < it->first + it->second;
}

const std::pair<const uint64_t, State::Registered>* State::registered_range(const void* p) const {
  uint64_t a = reinterpret_cast<uint64_t>(p);
  auto it = registered.upper_bound(a);
  if (it == registered.begin()) return nullptr;
  --it;
  return a < it->first + it->second.size ? &*it : nullptr;
}

void State::sync_managed_to_device() {
  for (auto& [a, n] : managed) dev->memory().host_write(a, reinterpret_cast<const void*>(a), n);
  for (auto& [a, r] : registered) {
    r.sent.assign(reinterpret_cast<const uint8_t*>(a), reinterpret_cast<const uint8_t*>(a) + r.size);
    dev->memory().host_write(r.dev, r.sent.data(), r.size);
  }
}

// Registered memory gets back only the bytes the kernels changed: a program may free a buffer it
// forgot to unregister, and a mirror nobody wrote must not be copied over the freed memory.
void State::sync_managed_to_host() {
  for (auto& [a, n] : managed) dev->memory().host_read(a, reinterpret_cast<void*>(a), n);
  std::vector<uint8_t> now;
  for (auto& [a, r] : registered) {
    if (r.sent.size() != r.size) continue;
    now.resize(r.size);
    dev->memory().host_read(r.dev, now.data(), r.size);
    uint8_t* host = reinterpret_cast<uint8_t*>(a);
    for (size_t i = 0; i < r.size; ++i)
      if (now[i] != r.sent[i]) host[i] = now[i];
  }
}

// How the program reached us, as `warpsim run` found it in the executable (WARPSIM_PROGRAM_RUNTIME):
// "static" (libcudart_static, through the driver API), "shared" (our libcudart.so) or "unknown".
const char* State::program_runtime() const {
  const char* r = std::getenv("WARPSIM_PROGRAM_RUNTIME");
  return r && (std::strcmp(r, "static") == 0 || std::strcmp(r, "shared") == 0) ? r : "unknown";
}

void State::print_summary() {
  if (opts.quiet || dev->kernels().empty()) return;
  fflush(stdout);
  std::string s = dev->summary();
  if (isatty(STDERR_FILENO)) fmt::print(stderr, "\r\x1b[K");  // clear a progress line
  bool estimated = false;
  for (auto& k : dev->kernels()) estimated |= k.regs_estimated;
  fmt::print(stderr, "{}warpsim: {} kernel launch{}, {:.3f} us simulated ({}{}{})\n", s,
             dev->kernels().size(), dev->kernels().size() == 1 ? "" : "es", dev->now_ns() / 1000.0,
             dev->mode() == runtime::Mode::Timing ? "timing mode on the " + dev->spec().machine.name
                                                  : std::string("functional mode; placeholder timing"),
             estimated ? fmt::format("; register counts estimated: no sm_{}{} cubin in the fatbinary",
                                     dev->spec().cc_major, dev->spec().cc_minor)
                       : std::string(),
             std::strcmp(program_runtime(), "static") == 0 ? "; static CUDA runtime, through the driver API" : "");
}

namespace {
std::string json_str(std::string_view v) {
  std::string o = "\"";
  for (unsigned char c : v) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) o += fmt::format("\\u{:04x}", c);
        else o += char(c);
    }
  }
  return o + "\"";
}
std::string demangle(const std::string& n) {
  int st = 0;
  char* d = ::abi::__cxa_demangle(n.c_str(), nullptr, nullptr, &st);
  std::string r = (st == 0 && d) ? d : n;
  std::free(d);
  return r;
}
}  // namespace

std::string State::report_json() {
  std::string o = fmt::format("{{\"gpu\": {}, \"mode\": \"{}\", \"cache_control\": \"{}\", \"cuda_runtime\": \"{}\", "
                              "\"driver_api\": {}, \"kernels\": [",
                              json_str(dev->spec().name), dev->mode() == runtime::Mode::Timing ? "timing" : "functional",
                              dev->flush_caches() ? "all" : "none", program_runtime(), driver_api_used ? "true" : "false");
  uint64_t wi = 0, ti = 0, faults = 0;
  bool estimated = false;
  const auto& ks = dev->kernels();
  for (size_t i = 0; i < ks.size(); ++i) {
    const auto& k = ks[i];
    wi += k.warp_instrs;
    ti += k.thread_instrs;
    faults += !k.ok;
    estimated |= k.regs_estimated;
    o += fmt::format(
        "{}\n    {{\"name\": {}, \"demangled\": {}, \"grid\": [{}, {}, {}], \"block\": [{}, {}, {}], "
        "\"dynamic_smem\": {}, \"registers\": {}, \"registers_estimated\": {}, \"warp_instructions\": {}, "
        "\"thread_instructions\": {}, \"start_ns\": {:.3f}, \"simulated_ns\": {:.3f}, \"fault\": {}, \"simulation_wall_s\": {:.6f}, \"timing\": {}}}",
        i ? "," : "", json_str(k.name), json_str(demangle(k.name)), k.grid.x, k.grid.y, k.grid.z, k.block.x,
        k.block.y, k.block.z, k.dynamic_smem, k.regs, k.regs_estimated ? "true" : "false", k.warp_instrs,
        k.thread_instrs, k.start_ns, k.end_ns - k.start_ns, k.ok ? "null" : json_str(k.fault), k.wall_s,
        k.timed ? k.timing.json() : std::string("null"));
  }
  o += fmt::format("{}],\n  \"copies\": [", ks.empty() ? "" : "\n  ");
  const auto& cs = dev->copies();
  for (size_t i = 0; i < cs.size(); ++i)
    o += fmt::format("{}\n    {{\"kind\": \"{}\", \"bytes\": {}, \"start_ns\": {:.3f}, \"simulated_ns\": {:.3f}}}", i ? "," : "",
                     runtime::copy_kind_name(cs[i].kind), cs[i].bytes, cs[i].start_ns, cs[i].end_ns - cs[i].start_ns);
  o += fmt::format("{}]", cs.empty() ? "" : "\n  ");
  // The GPU timeline (WARPSIM_TIMELINE): each sample's rates cover the time since the one before
  // (0 for the first, and across the gap between two launches' batches, where nothing ran).
  if (const uint64_t every = dev->timeline_interval()) {
    const auto& tl = dev->timeline();
    const double mhz = dev->spec().machine.sm_clock_mhz;
    o += fmt::format(",\n  \"timeline\": {{\"interval_cycles\": {}, \"sms\": {}, \"columns\": [\"t_ns\", \"ipc\", "
                     "\"resident_warps\", \"l1_gbytes_per_s\", \"l2_gbytes_per_s\", \"dram_read_gbytes_per_s\", "
                     "\"dram_write_gbytes_per_s\"], \"samples\": [",
                     every, dev->spec().machine.sms);
    for (size_t i = 0; i < tl.size(); ++i) {
      const auto& p = tl[i].s;
      double ipc = 0, l1 = 0, l2 = 0, rd = 0, wr = 0;
      const double dt = i && !p.run_start ? tl[i].t_ns - tl[i - 1].t_ns : 0;  // ns
      if (dt > 0) {
        const auto& q = tl[i - 1].s;
        auto d = [](uint64_t a, uint64_t b) { return a >= b ? double(a - b) : 0.0; };
        ipc = d(p.warp_instrs, q.warp_instrs) / (dt * mhz * 1e-3);
        l1 = d(p.l1_sectors, q.l1_sectors) * 32 / dt;  // bytes per ns = GB/s
        l2 = d(p.l2_sectors, q.l2_sectors) * 32 / dt;
        rd = d(p.dram_read, q.dram_read) / dt;
        wr = d(p.dram_written, q.dram_written) / dt;
      }
      o += fmt::format("{}\n    [{:.3f}, {:.4f}, {}, {:.2f}, {:.2f}, {:.2f}, {:.2f}]", i ? "," : "", tl[i].t_ns, ipc, p.warps,
                       l1, l2, rd, wr);
    }
    o += fmt::format("{}]}}", tl.empty() ? "" : "\n  ");
  }
  o += fmt::format(
      ",\n  \"totals\": {{\"kernels\": {}, \"faulted\": {}, \"warp_instructions\": {}, \"thread_instructions\": {}, "
      "\"simulated_ns\": {:.3f}, \"registers_estimated\": {}}}}}",
      ks.size(), faults, wi, ti, dev->now_ns(), estimated ? "true" : "false");
  return o;
}

int estimate_registers(const ptx::Function& f) {
  // The most register words live at once (ptx/regpressure.hpp), not the declared PTX registers:
  // nvcc's PTX names every value once, so declarations overstate ptxas's allocation about 6.5x
  // (geometric mean over the workloads' and validation kernels: 147 kernels, sm_80 ptxas -v), and a
  // kernel run on a machine its fatbinary has no cubin for (sm_80 code on the H100) would get a
  // fraction of its occupancy. Liveness gives 0.91x ptxas's count (geometric mean; 0.4x-1.9x) and
  // the same register-limited occupancy at 256 threads per CTA for 115 of the 147 kernels (19 with
  // the declarations).
  uint64_t n = ptx::max_live_words(f);
  uint64_t cap = 255;
  if (f.perf.maxnreg) cap = std::min<uint64_t>(cap, f.perf.maxnreg);
  return int(std::clamp<uint64_t>(n, 2, cap));
}

int& last_error() {
  thread_local int e = 0;
  return e;
}

std::vector<CallConfig>& call_stack() {
  thread_local std::vector<CallConfig> s;
  return s;
}

int ret(int err) {
  if (err) last_error() = err;
  return err;
}

int not_implemented(const char* name) {
  static std::mutex m;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> g(m);
  if (seen.insert(name).second) fmt::print(stderr, "warpsim: {} is not implemented\n", name);
  last_error() = abi::ErrNotSupported;
  return abi::ErrNotSupported;
}

void trace_call(const char* name) { fmt::print(stderr, "warpsim: trace: {}\n", name); }

namespace {
// Prints the per-kernel summary when the program exits (if it ever touched the device).
__attribute__((destructor)) void at_unload() {
  if (!g_created) return;
  State& s = State::get();
  s.print_summary();
  // `warpsim run --report DIR` passes DIR/.simulation.json; it assembles DIR/report.json.
  if (const char* path = std::getenv("WARPSIM_REPORT_SIM"); path && *path) {
    std::string text = s.report_json() + "\n";
    if (FILE* f = std::fopen(path, "w")) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    } else {
      fmt::print(stderr, "warpsim: cannot write {}: {}\n", path, std::strerror(errno));
    }
  }
}
}  // namespace

}  // namespace warpsim::cudart
