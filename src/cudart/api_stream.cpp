// Streams and events. Every operation other than a kernel launch into a created stream runs to
// completion when it is issued, in program order, which is a valid execution of any stream
// schedule; such launches are queued (timing mode) and run together at the next synchronising
// call, so kernels of different streams share the GPU (api_launch.cpp, State::flush). Events read
// the simulated clock (runtime::Device::now_ns).
#include <cstring>

#include "cudart/export.hpp"
#include "cudart/launch.hpp"
#include "cudart/state.hpp"

using namespace warpsim;
using namespace warpsim::cudart;

namespace {
bool valid_stream(State& s, abi::Stream st) {
  // 0 (legacy default), 1 (cudaStreamLegacy), 2 (cudaStreamPerThread) and our own.
  return reinterpret_cast<uintptr_t>(st) <= 2 || s.streams.count(static_cast<StreamObj*>(st));
}
}  // namespace

CUDART_API abi::Error cudaStreamCreateWithPriority(abi::Stream* stream, unsigned int flags, int) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!stream) return ret(abi::ErrInvalidValue);
  auto* o = new StreamObj;
  o->flags = int(flags);
  s.streams.insert(o);
  *stream = o;
  return 0;
}
CUDART_API abi::Error cudaStreamCreateWithFlags(abi::Stream* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}
CUDART_API abi::Error cudaStreamCreate(abi::Stream* stream) { return cudaStreamCreateWithPriority(stream, 0, 0); }

CUDART_API abi::Error cudaStreamDestroy(abi::Stream stream) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* o = static_cast<StreamObj*>(stream);
  if (!s.streams.erase(o)) return ret(abi::ErrInvalidResourceHandle);
  delete o;
  return 0;
}

CUDART_API abi::Error cudaStreamSynchronize(abi::Stream stream) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!valid_stream(s, stream)) return ret(abi::ErrInvalidResourceHandle);
  return s.sticky ? ret(s.sticky) : 0;
}

CUDART_API abi::Error cudaStreamQuery(abi::Stream stream) { return cudaStreamSynchronize(stream); }
CUDART_API abi::Error cudaStreamWaitEvent(abi::Stream stream, abi::Event event, unsigned int) {
  if (capture_wait_event(stream, event)) return 0;  // joins a capture, or inside one: an edge only
  return cudaStreamSynchronize(stream);
}
CUDART_API abi::Error cudaStreamGetFlags(abi::Stream stream, unsigned int* flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!flags || !valid_stream(s, stream)) return ret(abi::ErrInvalidValue);
  *flags = reinterpret_cast<uintptr_t>(stream) <= 2 ? 0 : unsigned(static_cast<StreamObj*>(stream)->flags);
  return 0;
}
CUDART_API abi::Error cudaStreamGetPriority(abi::Stream, int* priority) {
  if (priority) *priority = 0;
  return 0;
}

// Stream attributes (cudaStreamAttrID = cudaLaunchAttributeID). The access-policy window is
// checked (launch.hpp) and applies to the stream's later launches; the stream-valid hints
// (synchronisation policy, priority, memory-sync domains) are stored and reported back.
namespace {
bool stream_attribute_id(int id) { return id == 1 || id == 3 || id == 8 || id == 9 || id == 10; }
}  // namespace

CUDART_API abi::Error cudaStreamSetAttribute(abi::Stream stream, int attr, const abi::LaunchAttributeValue* value) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* attrs = s.stream_attrs(stream);
  if (!attrs) return ret(abi::ErrInvalidResourceHandle);
  if (!value || !stream_attribute_id(attr)) return ret(abi::ErrInvalidValue);
  if (attr == abi::LaunchAttributeAccessPolicyWindow) {
    timing::AccessWindow w;
    const size_t max_window = size_t(std::max(0, s.dev->spec().access_policy_max_window));
    if (int e = access_window_from(value->accessPolicyWindow, max_window, w)) return ret(e);
  }
  (*attrs)[attr] = *value;
  return 0;
}
CUDART_API abi::Error cudaStreamSetAttribute_ptsz(abi::Stream stream, int attr, const abi::LaunchAttributeValue* value) {
  return cudaStreamSetAttribute(stream, attr, value);
}

CUDART_API abi::Error cudaStreamGetAttribute(abi::Stream stream, int attr, abi::LaunchAttributeValue* value) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* attrs = s.stream_attrs(stream);
  if (!attrs) return ret(abi::ErrInvalidResourceHandle);
  if (!value || !stream_attribute_id(attr)) return ret(abi::ErrInvalidValue);
  auto it = attrs->find(attr);
  if (it != attrs->end()) *value = it->second;
  else std::memset(value, 0, sizeof *value);
  return 0;
}
CUDART_API abi::Error cudaStreamGetAttribute_ptsz(abi::Stream stream, int attr, abi::LaunchAttributeValue* value) {
  return cudaStreamGetAttribute(stream, attr, value);
}

CUDART_API abi::Error cudaStreamCopyAttributes(abi::Stream dst, abi::Stream src) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* d = s.stream_attrs(dst);
  auto* f = s.stream_attrs(src);
  if (!d || !f) return ret(abi::ErrInvalidResourceHandle);
  if (d != f) *d = *f;
  return 0;
}
CUDART_API abi::Error cudaStreamCopyAttributes_ptsz(abi::Stream dst, abi::Stream src) {
  return cudaStreamCopyAttributes(dst, src);
}

CUDART_API abi::Error cudaLaunchHostFunc(abi::Stream stream, void (*fn)(void*), void* userData) {
  if (!fn) return ret(abi::ErrInvalidValue);
  if (capture_op(stream, [=](void* st) { return cudaLaunchHostFunc(st, fn, userData); }, 3)) return 0;
  fn(userData);
  return 0;
}

CUDART_API abi::Error cudaStreamAddCallback(abi::Stream stream, void (*cb)(abi::Stream, abi::Error, void*),
                                            void* userData, unsigned int) {
  if (!cb) return ret(abi::ErrInvalidValue);
  cb(stream, State::get().sticky, userData);
  return 0;
}

CUDART_API abi::Error cudaEventCreateWithFlags(abi::Event* event, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  // An interprocess event must also disable timing.
  if (!event || flags > 7 || ((flags & 4) && !(flags & 2))) return ret(abi::ErrInvalidValue);
  auto* e = new EventObj{};
  e->flags = flags;
  s.events.insert(e);
  *event = e;
  return 0;
}
CUDART_API abi::Error cudaEventCreate(abi::Event* event) { return cudaEventCreateWithFlags(event, 0); }

CUDART_API abi::Error cudaEventDestroy(abi::Event event) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* e = static_cast<EventObj*>(event);
  if (!s.events.erase(e)) return ret(abi::ErrInvalidResourceHandle);
  delete e;
  return 0;
}

CUDART_API abi::Error cudaEventRecord(abi::Event event, abi::Stream stream) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* e = static_cast<EventObj*>(event);
  if (!s.events.count(e) || !valid_stream(s, stream)) return ret(abi::ErrInvalidResourceHandle);
  if (capture_event_record(event, stream)) return 0;  // a node of the capture, not a time
  e->ns = s.dev->now_ns();
  e->recorded = true;
  return 0;
}
CUDART_API abi::Error cudaEventRecordWithFlags(abi::Event event, abi::Stream stream, unsigned int) {
  return cudaEventRecord(event, stream);
}

CUDART_API abi::Error cudaEventSynchronize(abi::Event event) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!s.events.count(static_cast<EventObj*>(event))) return ret(abi::ErrInvalidResourceHandle);
  return s.sticky ? ret(s.sticky) : 0;
}
CUDART_API abi::Error cudaEventQuery(abi::Event event) { return cudaEventSynchronize(event); }

CUDART_API abi::Error cudaEventElapsedTime(float* ms, abi::Event start, abi::Event end) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  auto* a = static_cast<EventObj*>(start);
  auto* b = static_cast<EventObj*>(end);
  if (!ms) return ret(abi::ErrInvalidValue);
  if (!s.events.count(a) || !s.events.count(b)) return ret(abi::ErrInvalidResourceHandle);
  // Never recorded, or created with cudaEventDisableTiming: no time to give (the runtime's answer).
  if (!a->recorded || !b->recorded || ((a->flags | b->flags) & 2)) return ret(abi::ErrInvalidResourceHandle);
  *ms = float((b->ns - a->ns) / 1e6);
  return 0;
}

// Managed memory is visible to every stream here (it is synchronised at kernel boundaries), so
// attaching it to one changes nothing; the arguments are checked as the runtime checks them.
CUDART_API abi::Error cudaStreamAttachMemAsync(abi::Stream stream, void* ptr, size_t length, unsigned int flags) {
  State& s = State::get();
  std::lock_guard g(s.mu);
  if (!valid_stream(s, stream)) return ret(abi::ErrInvalidResourceHandle);
  // cudaMemAttachGlobal 1, cudaMemAttachHost 2, cudaMemAttachSingle 4: exactly one.
  if (flags != 1 && flags != 2 && flags != 4) return ret(abi::ErrInvalidValue);
  if (!ptr || (length != 0 && !s.is_managed_ptr(static_cast<char*>(ptr) + length - 1))) return ret(abi::ErrInvalidValue);
  return s.sticky ? ret(s.sticky) : 0;
}
CUDART_API abi::Error cudaStreamAttachMemAsync_ptsz(abi::Stream stream, void* ptr, size_t length, unsigned int flags) {
  return cudaStreamAttachMemAsync(stream, ptr, length, flags);
}
