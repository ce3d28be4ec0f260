// The driver's private export tables (cuGetExportTable): what libcudart_static asks the driver
// for besides the documented API. Each table is an array of function pointers found by a 16-byte
// id; the first slot of most holds the table's size in bytes. The ids, the slots the runtime calls
// and their arguments are public knowledge from the ZLUDA project's notes on this interface; we
// checked each against CUDA 13.0's runtime by running nvcc-built programs on this library (what
// the runtime calls, in which order, and what it accepts): tests/cudart (static_runtime).
//
// Slots we know nothing about hold a stub that names the table and slot and returns
// CUDA_ERROR_NOT_SUPPORTED, so that a newer runtime fails with a message, not a jump to null.
#include <fmt/format.h>
#include <pthread.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#include "cudart/abi.hpp"
#include "cudart/driver.hpp"
#include "cudart/md2.hpp"

extern "C" {
warpsim::cudart::abi::Error cudaGetDeviceProperties(warpsim::cudart::abi::DeviceProp* prop, int device);
warpsim::cudart::abi::Error cudaDeviceGetAttribute(int* value, int attr, int device);
}

extern "C" void* warpsim_driver_proc(const char* name, int version);

namespace warpsim::cudart {
namespace {

using Id = std::array<uint8_t, 16>;
constexpr Id kCudartInterface = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
constexpr Id kToolsTls = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
constexpr Id kToolsCallbackHooks = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                    0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
constexpr Id kContextLocalStorage = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                     0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
constexpr Id kCtxCreateBypass = {0x0c, 0xa5, 0x0b, 0x8c, 0x10, 0x04, 0x92, 0x9a,
                                 0x89, 0xa7, 0xd0, 0xdf, 0x10, 0xe7, 0x72, 0x86};
constexpr Id kHeapAccess = {0x19, 0x5b, 0xcb, 0xf4, 0xd6, 0x7d, 0x02, 0x4a, 0xac, 0xc5, 0x1d, 0x29, 0xce, 0xa6, 0x31, 0xae};
constexpr Id kDeviceExtended = {0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a,
                                0x9f, 0x64, 0xf2, 0x23, 0xbe, 0x99, 0xf1, 0xe2};
constexpr Id kIntegrityCheck = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
constexpr Id kUnknownChecks = {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
                               0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e};
// Contexts for tools: slot 3 a context's device, slot 4 its unique id (cuCtxGetId's), slots 51 and
// 39 a stream handle and its id (cuBLAS); cuBLASLt and cuFFT ask for it too (public notes of
// projects that serve these tables: 94 slots after the size).
constexpr Id kToolsContext = {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48,
                              0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2};
// Modules for tools (CU_ETID_ToolsModule in public notes). cuFFT calls its slot 7 after loading
// each of its modules to get the module's kernel.
constexpr Id kToolsModule = {0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d,
                             0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99, 0x1e};
// Asked for by CUDA 13's runtime at start-up; no slot of it has been seen called.
constexpr Id kRuntimeStartup = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
                                0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};

void trace(const char* what) {
  if (driver_tracing()) fmt::print(stderr, "warpsim: trace: private driver table: {}\n", what);
}

constexpr int kSlots = 96;  // room in every table; the runtime never reads past a table's size

const char* table_name(int t) {
  static const char* names[] = {"CUDART_INTERFACE", "TOOLS_TLS",  "TOOLS_RUNTIME_CALLBACK_HOOKS",
                                "CONTEXT_LOCAL_STORAGE", "CTX_CREATE_BYPASS", "HEAP_ACCESS",
                                "DEVICE_EXTENDED_RT", "INTEGRITY_CHECK", "UNKNOWN_CHECKS", "RUNTIME_STARTUP",
                                "TOOLS_CONTEXT", "TOOLS_MODULE"};
  return names[t];
}

template <int T, int S>
int unknown_slot() {
  static std::once_flag told;
  std::call_once(told, [] {
    fmt::print(stderr, "warpsim: the CUDA runtime called slot {} of the driver's private table {}, which warpsim does "
                       "not know; returning CUDA_ERROR_NOT_SUPPORTED\n", S, table_name(T));
  });
  return CuNotSupported;
}
template <int T, int... S>
std::array<void*, kSlots> unknown_slots(std::integer_sequence<int, S...>) {
  return {reinterpret_cast<void*>(&unknown_slot<T, S>)...};
}
template <int T>
std::array<void*, kSlots> table(int size_slots) {
  auto t = unknown_slots<T>(std::make_integer_sequence<int, kSlots>{});
  if (size_slots) t[0] = reinterpret_cast<void*>(uintptr_t(sizeof(void*) * size_slots));
  return t;
}

// --- CUDART_INTERFACE
int module_from_fatbin(void** mod, const void* wrapper) {
  trace("module_from_fatbin"); return driver_load_module(mod, wrapper); }
int module_from_fatbin_ext1(void** mod, const void* wrapper, void*, void*, unsigned) {
  trace("module_from_fatbin_ext1");
  return driver_load_module(mod, wrapper);
}
int module_from_fatbin_ext2(const void* fatbin, void** mod, void*, void*, unsigned) {
  trace("module_from_fatbin_ext2");
  return driver_load_module(mod, fatbin);
}
int cudart_slot7(uintptr_t) {
  trace("cudart slot 7");
  return CuSuccess;
}

// --- TOOLS_RUNTIME_CALLBACK_HOOKS: two buffers the runtime writes its tool callbacks' state to.
uint32_t g_hooks1[1024], g_hooks2[14];
void hooks_buffer1(void** p, size_t* n) {
  trace("hooks_buffer1");
  *p = g_hooks1;
  *n = 1024;
}
void hooks_buffer2(void** p, size_t* n) {
  trace("hooks_buffer2");
  *p = g_hooks2;
  *n = 14;
}

// --- CTX_CREATE_BYPASS, HEAP_ACCESS
int ctx_create_bypass(void** ctx, unsigned flags, int dev) {
  trace("ctx_create_bypass");
  static const auto create = reinterpret_cast<int (*)(void**, unsigned, int)>(warpsim_driver_proc("cuCtxCreate", 3020));
  return create(ctx, flags, dev);
}
struct HeapRecord {
  uintptr_t a, b;
};
int heap_alloc(HeapRecord** rec, uintptr_t a, uintptr_t b) {
  trace("heap_alloc");
  *rec = new HeapRecord{a, b};
  return CuSuccess;
}
int heap_free(HeapRecord* rec, uintptr_t* b) {
  trace("heap_free");
  if (b) *b = rec ? rec->b : 0;
  delete rec;
  return CuSuccess;
}

// --- TOOLS_TLS: slot 2, the calling thread's current context (cuBLASLt keys its kernels by it).
int tools_current_context(void** ctx) {
  trace("tools current context");
  if (!ctx) return CuInvalidValue;
  static const auto get = reinterpret_cast<int (*)(void**)>(warpsim_driver_proc("cuCtxGetCurrent", 4000));
  return get(ctx);
}

// --- TOOLS_CONTEXT
int tools_context_device(void*, int* dev) {
  trace("tools context device");
  if (!dev) return CuInvalidValue;
  *dev = 0;
  return CuSuccess;
}
int tools_context_id(void* ctx, unsigned long long* id) {
  trace("tools context id");
  if (!id) return CuInvalidValue;
  static const auto get = reinterpret_cast<int (*)(void*, unsigned long long*)>(warpsim_driver_proc("cuCtxGetId", 12000));
  return get(ctx, id);
}

// --- TOOLS_MODULE
// Slot 7, as cuFFT calls it after loading one of its kernel modules without naming the kernel:
// (context, module, callback, user data); the callback is called with (user data, CUfunction) for
// the module's kernels, and 1 means done (cuFFT takes any other value as failure). Read off
// libcufft.so.12's caller, which keeps the last function the callback hands it.
int tools_module_each_function(void*, void* mod, void (*cb)(void*, void*), void* user) {
  trace("tools module: each function");
  std::vector<void*> fns;
  if (!cb || driver_module_kernels(mod, fns) != CuSuccess) return 0;
  for (void* f : fns) cb(user, f);
  return 1;
}

// Slots 51 and 39, as cuBLAS calls them before a reduction that returns to the host (dot, nrm2,
// amax): 51 resolves a stream handle (context, stream, out, "is cudaStreamPerThread") to the
// driver's stream, 39 gives that stream's id (context, stream, out), which cuBLAS looks up in its
// per-stream cache. Read off libcublas.so.13's caller: it passes the flag as stream == 2.
int tools_context_stream(void*, void* stream, void** out, int per_thread) {
  trace("tools context: stream");
  if (!out) return CuInvalidValue;
  *out = stream ? stream : reinterpret_cast<void*>(uintptr_t(per_thread ? 2 : 1));
  return CuSuccess;
}
int tools_context_stream_id(void*, void* stream, unsigned long long* id) {
  trace("tools context: stream id");
  if (!id) return CuInvalidValue;
  static const auto get = reinterpret_cast<int (*)(void*, unsigned long long*)>(warpsim_driver_proc("cuStreamGetId", 12000));
  return get(stream, id);
}

// --- DEVICE_EXTENDED_RT
int device_flag(unsigned char* out, int) {
  trace("device_flag");
  *out = 0;
  return CuSuccess;
}

// --- UNKNOWN_CHECKS
int context_check(void*, uint32_t* r1, const void** r2) {
  trace("context_check");
  if (r1) *r1 = 0;
  if (r2) *r2 = nullptr;
  return CuSuccess;
}
uint32_t check3() {
  trace("check3"); return 0; }

// --- INTEGRITY_CHECK: the runtime proves it talks to a genuine driver by asking for an HMAC-MD2
// of facts both sides know (versions, the process and thread, the two tables' addresses, this
// function's address, the time it passes, and each device's UUID and PCI location), keyed with a
// constant, and comparing with its own. Versions ending in 0 and 1 have fixed answers.
std::array<void*, kSlots>* g_cudart_table = nullptr;
std::array<void*, kSlots>* g_integrity_table = nullptr;
int integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]);

#pragma pack(push, 1)
struct IntegrityInput {
  uint32_t driver_version, version, process, thread;
  const void *cudart_table, *integrity_table, *function;
  uint64_t unix_seconds;
};
struct DeviceIdentity {
  uint8_t uuid[16];
  int32_t pci_domain, pci_bus, pci_device;
};
#pragma pack(pop)

int integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]) {
  if (!result) return CuInvalidValue;
  trace("integrity_check");
  if (version % 10 == 0 || version % 10 == 1) {
    result[0] = version % 10 == 0 ? 0x3341181C03CB675Cull : 0x1841181C03CB675Cull;
    result[1] = 0x8ED383AA1F4CD1E8ull;
    return CuSuccess;
  }
  static constexpr uint8_t kKey[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                       0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};
  uint8_t msg[sizeof(IntegrityInput) + sizeof(DeviceIdentity)];
  IntegrityInput in{};
  in.driver_version = kDriverVersion;
  in.version = version;
  in.process = uint32_t(getpid());
  in.thread = uint32_t(uintptr_t(pthread_self()));
  in.cudart_table = g_cudart_table ? g_cudart_table->data() : nullptr;
  in.integrity_table = g_integrity_table ? g_integrity_table->data() : nullptr;
  in.function = reinterpret_cast<const void*>(&integrity_check);
  in.unix_seconds = unix_seconds;
  // The device as cuDeviceGetUuid and the PCI attributes (50 domain, 33 bus, 34 device) give it.
  DeviceIdentity dev{};
  abi::DeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) == 0) std::memcpy(dev.uuid, p.uuid.bytes, 16);
  cudaDeviceGetAttribute(&dev.pci_domain, 50, 0);
  cudaDeviceGetAttribute(&dev.pci_bus, 33, 0);
  cudaDeviceGetAttribute(&dev.pci_device, 34, 0);
  std::memcpy(msg, &in, sizeof in);
  std::memcpy(msg + sizeof in, &dev, sizeof dev);
  uint8_t mac[16];
  hmac_md2(kKey, msg, sizeof msg, mac);
  std::memcpy(result, mac, 16);
  return CuSuccess;
}

struct Tables {
  std::array<void*, kSlots> cudart = table<0>(10), tls = table<1>(4), hooks = table<2>(7), cls = table<3>(0),
                            bypass = table<4>(2), heap = table<5>(3), device = table<6>(26), integrity = table<7>(3),
                            checks = table<8>(4), startup = table<9>(kSlots), tools_context = table<10>(95),
                            tools_module = table<11>(kSlots);
  Tables() {
    cudart[1] = reinterpret_cast<void*>(&module_from_fatbin);
    cudart[2] = reinterpret_cast<void*>(&driver_primary_context);
    cudart[6] = reinterpret_cast<void*>(&module_from_fatbin_ext1);
    cudart[7] = reinterpret_cast<void*>(&cudart_slot7);
    cudart[8] = reinterpret_cast<void*>(&module_from_fatbin_ext2);
    hooks[2] = reinterpret_cast<void*>(&hooks_buffer1);
    hooks[6] = reinterpret_cast<void*>(&hooks_buffer2);
    cls[0] = reinterpret_cast<void*>(&driver_cls_put);
    cls[1] = reinterpret_cast<void*>(&driver_cls_delete);
    cls[2] = reinterpret_cast<void*>(&driver_cls_get);
    bypass[1] = reinterpret_cast<void*>(&ctx_create_bypass);
    heap[1] = reinterpret_cast<void*>(&heap_alloc);
    heap[2] = reinterpret_cast<void*>(&heap_free);
    device[13] = reinterpret_cast<void*>(&device_flag);
    tls[2] = reinterpret_cast<void*>(&tools_current_context);
    tools_context[3] = reinterpret_cast<void*>(&tools_context_device);
    tools_context[4] = reinterpret_cast<void*>(&tools_context_id);
    tools_context[39] = reinterpret_cast<void*>(&tools_context_stream_id);
    tools_context[51] = reinterpret_cast<void*>(&tools_context_stream);
    tools_module[7] = reinterpret_cast<void*>(&tools_module_each_function);
    integrity[1] = reinterpret_cast<void*>(&integrity_check);
    checks[2] = reinterpret_cast<void*>(&context_check);
    checks[3] = reinterpret_cast<void*>(&check3);
    g_cudart_table = &cudart;
    g_integrity_table = &integrity;
  }
};

}  // namespace

const void* driver_export_table(const uint8_t id[16]) {
  static Tables* t = new Tables();
  Id key;
  std::memcpy(key.data(), id, 16);
  const std::pair<Id, std::array<void*, kSlots>*> all[] = {
      {kCudartInterface, &t->cudart}, {kToolsTls, &t->tls},         {kToolsCallbackHooks, &t->hooks},
      {kContextLocalStorage, &t->cls}, {kCtxCreateBypass, &t->bypass}, {kHeapAccess, &t->heap},
      {kDeviceExtended, &t->device},   {kIntegrityCheck, &t->integrity}, {kUnknownChecks, &t->checks},
      {kRuntimeStartup, &t->startup},   {kToolsContext, &t->tools_context}, {kToolsModule, &t->tools_module}};
  for (auto& [k, tab] : all)
    if (k == key) return tab->data();
  return nullptr;
}

}  // namespace warpsim::cudart
