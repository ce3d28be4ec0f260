// The driver's JIT linker (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete,
// cuLinkDestroy), as programs use it to build one module from several pieces of device code at
// run time: PTX text (a file nvcc -ptx wrote, NVRTC's output), fatbinaries (their PTX for this
// device), and cubins NVRTC compiled in this process (the PTX they came from). The real driver
// compiles each input to SASS and links the objects with nvlink; warpsim runs PTX, so the linker's
// product is the linked PTX (ptx::link_ptx, the same linking as nvcc -rdc=true programs get), which
// cuModuleLoadData and cuLibraryLoadData accept as they accept any PTX image. libcudadevrt.a, which
// programs add for dynamic parallelism, is accepted and ignored: the device runtime is built in.
// Inputs warpsim cannot run (SASS-only cubins, host objects, archives, NVVM IR for link-time
// optimisation) fail with a message in the error log and a CUresult, never silently.
// Lookups: driver_link_entry.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cudart/driver.hpp"
#include "cudart/fatbin.hpp"
#include "cudart/state.hpp"
#include "ptx/link.hpp"
#include "ptx/parser.hpp"

using namespace warpsim::cudart;

namespace {

// CUjit_option values (cuda.h) the linker reads or writes.
enum : int {
  JitWallTime = 2,
  JitInfoLogBuffer = 3,
  JitInfoLogBufferSize = 4,
  JitErrorLogBuffer = 5,
  JitErrorLogBufferSize = 6,
};
// CUjitInputType.
enum : int { InputCubin = 0, InputPtx = 1, InputFatbinary = 2, InputObject = 3, InputLibrary = 4, InputNvvm = 5 };

struct LinkState {
  // The caller's option arrays: the driver writes its outputs (wall time, log sizes) into the
  // option values, which cuda.h says stay valid for the life of the link state.
  unsigned num_options = 0;
  const int* options = nullptr;
  void** values = nullptr;
  char* info_log = nullptr;
  size_t info_size = 0;
  char* error_log = nullptr;
  size_t error_size = 0;
  std::vector<std::string> units;  // the PTX of each input, in the order added
  std::string linked;              // cuLinkComplete's product, owned until cuLinkDestroy
  std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();
};

std::mutex g_mu;
std::set<LinkState*> g_states;

LinkState* as_state(void* h) {
  std::lock_guard g(g_mu);
  auto* s = static_cast<LinkState*>(h);
  return g_states.count(s) ? s : nullptr;
}

// Writes `text` into a log buffer the caller passed (truncated, always terminated) and the bytes
// used into the size option's value, as the driver reports them.
void write_log(LinkState& s, bool error, const std::string& text) {
  char* buf = error ? s.error_log : s.info_log;
  const size_t cap = error ? s.error_size : s.info_size;
  if (!buf || cap == 0) return;
  const size_t n = std::min(text.size(), cap - 1);
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
  for (unsigned i = 0; i < s.num_options; ++i)
    if (s.options[i] == (error ? JitErrorLogBufferSize : JitInfoLogBufferSize))
      s.values[i] = reinterpret_cast<void*>(uintptr_t(n + 1));
}

int fail(LinkState& s, int code, const std::string& why) {
  write_log(s, true, "warpsim: " + why);
  return code;
}

uint32_t device_arch() {
  State& st = State::get();
  return uint32_t(st.dev->spec().cc_major * 10 + st.dev->spec().cc_minor);
}

int link_create(unsigned num_options, int* options, void** values, void** out) {
  if (!out || (num_options && (!options || !values))) return CuInvalidValue;
  auto s = std::make_unique<LinkState>();
  s->num_options = num_options;
  s->options = options;
  s->values = values;
  for (unsigned i = 0; i < num_options; ++i) {
    switch (options[i]) {
      case JitInfoLogBuffer: s->info_log = static_cast<char*>(values[i]); break;
      case JitInfoLogBufferSize: s->info_size = size_t(reinterpret_cast<uintptr_t>(values[i])); break;
      case JitErrorLogBuffer: s->error_log = static_cast<char*>(values[i]); break;
      case JitErrorLogBufferSize: s->error_size = size_t(reinterpret_cast<uintptr_t>(values[i])); break;
      default: break;  // optimisation level, target, cache mode, ...: nothing to compile for
    }
  }
  if (s->info_log && s->info_size) s->info_log[0] = '\0';
  if (s->error_log && s->error_size) s->error_log[0] = '\0';
  std::lock_guard g(g_mu);
  g_states.insert(s.get());
  *out = s.release();
  return CuSuccess;
}

// Adds one input: its PTX, checked by the parser now, as the driver compiles each input when it is
// added (so a syntax error is reported by cuLinkAddData, with the log).
int add_ptx(LinkState& s, std::string text, const char* name) {
  const std::string file = name && *name ? name : "<cuLinkAddData input>";
  warpsim::ptx::ParseResult r = warpsim::ptx::parse(text, file);
  if (!r.ok()) {
    std::string log;
    for (auto& d : r.errors) log += d.str() + "\n";
    return fail(s, CuInvalidPtx, "the PTX input " + file + " does not parse:\n" + log);
  }
  s.units.push_back(std::move(text));
  return CuSuccess;
}

int link_add_data(void* h, int type, void* data, size_t size, const char* name, unsigned, int*, void**) {
  LinkState* s = as_state(h);
  if (!s) return CuInvalidHandle;
  if (!data || size == 0) return CuInvalidValue;
  const auto* p = static_cast<const uint8_t*>(data);
  switch (type) {
    case InputPtx:
      // The size may count the terminating NUL (nvrtcGetPTXSize does).
      return add_ptx(*s, std::string(reinterpret_cast<const char*>(p), strnlen(reinterpret_cast<const char*>(p), size)), name);
    case InputFatbinary: {
      std::vector<FatbinEntry> entries;
      std::string err;
      if (!parse_fatbin(p, size, entries, err))
        return fail(*s, CuInvalidImage, "the fatbinary input does not parse: " + err);
      const FatbinEntry* e = best_ptx(entries, device_arch());
      if (!e) return fail(*s, CuNoBinaryForGpu, "the fatbinary input holds no PTX for this device (warpsim runs PTX)");
      if (!e->error.empty()) return fail(*s, CuInvalidImage, "the fatbinary's PTX cannot be read: " + e->error);
      return add_ptx(*s, std::string(e->payload.begin(), e->payload.end()), name);
    }
    case InputCubin: {
      std::string ptx;
      if (driver_cubin_ptx(p, size, ptx)) return add_ptx(*s, std::move(ptx), name);
      return fail(*s, CuNoBinaryForGpu, "a cubin input holds SASS only; warpsim runs PTX (add the PTX or a fatbinary with PTX)");
    }
    case InputLibrary:
    case InputObject:
      return fail(*s, CuNotSupported, "host objects and archives cannot be linked at run time by warpsim (add PTX)");
    case InputNvvm:
      return fail(*s, CuNotSupported, "NVVM IR (link-time optimisation) inputs are not supported by warpsim");
    default:
      return CuInvalidValue;
  }
}

int link_add_file(void* h, int type, const char* path, unsigned n, int* options, void** values) {
  LinkState* s = as_state(h);
  if (!s) return CuInvalidHandle;
  if (!path) return CuInvalidValue;
  // The device runtime (libcudadevrt.a) is part of the simulator.
  if (type == InputLibrary && std::strstr(path, "cudadevrt")) return CuSuccess;
  std::ifstream f(path, std::ios::binary);
  if (!f) return fail(*s, CuFileNotFound, std::string("cannot open ") + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return fail(*s, CuInvalidImage, std::string(path) + " is empty");
  return link_add_data(h, type, bytes.data(), bytes.size(), path, n, options, values);
}

int link_complete(void* h, void** out, size_t* out_size) {
  LinkState* s = as_state(h);
  if (!s) return CuInvalidHandle;
  if (!out || !out_size) return CuInvalidValue;
  if (s->units.empty()) {
    // The driver links nothing into an empty image (our H100 returns CUDA_SUCCESS): a module
    // without functions.
    const uint32_t arch = device_arch();
    s->linked = ".version 8.0\n.target sm_" + std::to_string(arch) + "\n.address_size 64\n";
  } else if (s->units.size() == 1) {
    s->linked = s->units[0];
  } else {
    std::string err;
    if (!warpsim::ptx::link_ptx(s->units, s->linked, err))
      return fail(*s, CuInvalidPtx, "cannot link the " + std::to_string(s->units.size()) + " inputs: " + err);
  }
  *out = s->linked.data();  // NUL-terminated: std::string keeps one after its last byte
  *out_size = s->linked.size() + 1;
  const float ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - s->created).count();
  for (unsigned i = 0; i < s->num_options; ++i)
    if (s->options[i] == JitWallTime) std::memcpy(&s->values[i], &ms, sizeof ms);
  write_log(*s, false, "");
  return CuSuccess;
}

int link_destroy(void* h) {
  std::lock_guard g(g_mu);
  auto* s = static_cast<LinkState*>(h);
  if (!g_states.erase(s)) return CuInvalidHandle;
  delete s;
  return CuSuccess;
}

}  // namespace

namespace warpsim::cudart {

void* driver_link_entry(const std::string& base) {
  auto fn = [](auto f) { return reinterpret_cast<void*>(f); };
  if (base == "cuLinkCreate") return fn(&link_create);
  if (base == "cuLinkAddData") return fn(&link_add_data);
  if (base == "cuLinkAddFile") return fn(&link_add_file);
  if (base == "cuLinkComplete") return fn(&link_complete);
  if (base == "cuLinkDestroy") return fn(&link_destroy);
  return nullptr;
}

}  // namespace warpsim::cudart
