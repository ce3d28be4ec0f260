#include "func/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "func/exec.hpp"
#include "func/reconvergence.hpp"
#include "mem/device_memory.hpp"
#include "ptx/printer.hpp"

namespace warpsim::func {

using namespace ptx;

// ------------------------------------------------------------------ faults

const char* fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::None: return "none";
    case FaultKind::IllegalAddress: return "illegal address";
    case FaultKind::MisalignedAddress: return "misaligned address";
    case FaultKind::WriteToConst: return "write to constant memory";
    case FaultKind::InvalidGenericAddress: return "invalid generic address";
    case FaultKind::Trap: return "trap";
    case FaultKind::Assert: return "device-side assert";
    case FaultKind::StackOverflow: return "stack overflow";
    case FaultKind::Deadlock: return "deadlock";
    case FaultKind::Livelock: return "livelock";
    case FaultKind::IllegalInstruction: return "illegal instruction";
    case FaultKind::Unsupported: return "unsupported operation";
    case FaultKind::InstructionLimit: return "instruction limit reached";
  }
  return "?";
}

// cudaError_t values of the CUDA runtime (driver_types.h).
int fault_cuda_error(FaultKind k) {
  switch (k) {
    case FaultKind::None: return 0;
    case FaultKind::IllegalAddress: return 700;         // cudaErrorIllegalAddress
    case FaultKind::MisalignedAddress: return 716;      // cudaErrorMisalignedAddress
    case FaultKind::WriteToConst: return 700;
    case FaultKind::InvalidGenericAddress: return 717;  // cudaErrorInvalidAddressSpace
    case FaultKind::Trap: return 719;                   // cudaErrorLaunchFailure ("unspecified launch failure")
    case FaultKind::Assert: return 710;                 // cudaErrorAssert
    case FaultKind::StackOverflow: return 700;
    case FaultKind::Deadlock: return 702;               // cudaErrorLaunchTimeout (a hung kernel)
    case FaultKind::Livelock: return 702;
    case FaultKind::IllegalInstruction: return 715;     // cudaErrorIllegalInstruction
    case FaultKind::Unsupported: return 715;
    case FaultKind::InstructionLimit: return 702;
  }
  return 719;
}

const char* fault_cuda_error_name(FaultKind k) {
  switch (fault_cuda_error(k)) {
    case 0: return "cudaSuccess";
    case 700: return "cudaErrorIllegalAddress";
    case 702: return "cudaErrorLaunchTimeout";
    case 710: return "cudaErrorAssert";
    case 714: return "cudaErrorHardwareStackError";
    case 715: return "cudaErrorIllegalInstruction";
    case 716: return "cudaErrorMisalignedAddress";
    case 717: return "cudaErrorInvalidAddressSpace";
    default: return "cudaErrorLaunchFailure";
  }
}

Dim3 ExecCtx::thread_of(unsigned lane) const {
  uint32_t t = w.id * kWarpSize + lane;
  Dim3 d;
  d.x = t % launch.block.x;
  d.y = (t / launch.block.x) % launch.block.y;
  d.z = t / (launch.block.x * launch.block.y);
  return d;
}

void ExecCtx::fault(FaultKind k, unsigned lane, uint64_t addr, std::string msg) {
  stop = true;
  if (launch.fault.kind != FaultKind::None) return;
  launch.fault.kind = k;
  launch.fault.message = std::move(msg);
  launch.fault.block = cta.id;
  launch.fault.thread = thread_of(lane);
  launch.fault.address = addr;
  launch.fault.pc = pc;
}

std::string LaunchResult::report() const {
  if (ok()) return fmt::format("kernel {} completed", kernel);
  return fmt::format("kernel {} failed: {}: {}\n  at block ({},{},{}), thread ({},{},{}){}\n  the runtime reports {}",
                     kernel, fault_kind_name(fault.kind), fault.message, fault.block.x, fault.block.y,
                     fault.block.z, fault.thread.x, fault.thread.y, fault.thread.z,
                     fault.where.empty() ? "" : "\n  at " + fault.where, fault_cuda_error_name(fault.kind));
}

// ------------------------------------------------------------------ loading

std::vector<uint32_t> param_offsets(const Function& k) {
  std::vector<uint32_t> out;
  uint64_t off = 0;
  for (auto& p : k.params) {
    uint64_t a = p.align ? p.align : std::max<uint64_t>(1, type_size(p.type) * p.vec);
    off = (off + a - 1) / a * a;
    out.push_back(uint32_t(off));
    off += p.size_bytes();
  }
  return out;
}

namespace {

uint64_t natural_align(const Variable& v) {
  if (v.align) return v.align;
  uint64_t s = uint64_t(type_size(v.type)) * v.vec;
  return s ? s : 1;
}

// Flattens an initialiser into bytes of the variable's element type.
bool init_bytes(const Init& in, const Variable& v, const VariableAddresses& addrs, std::vector<uint8_t>& out,
                std::string& err) {
  unsigned esize = type_size(v.type);
  auto put = [&](uint64_t x, unsigned n) {
    for (unsigned i = 0; i < n; ++i) out.push_back(uint8_t(x >> (8 * i)));
  };
  auto sym_addr = [&](const std::string& name, uint64_t& a) {
    auto it = addrs.find(name);
    if (it == addrs.end()) {
      err = fmt::format("initialiser of '{}' takes the address of '{}', which has no device address", v.name, name);
      return false;
    }
    a = it->second;
    return true;
  };
  switch (in.kind) {
    case Init::Kind::List:
      for (auto& e : in.elems)
        if (!init_bytes(e, v, addrs, out, err)) return false;
      return true;
    case Init::Kind::Int: {
      uint64_t x = uint64_t(in.ival);
      if (v.type == Type::F32) {  // integer literal for a float variable: the value, converted
        float f = float(in.ival);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        x = b;
      } else if (v.type == Type::F64) {
        double d = double(in.ival);
        std::memcpy(&x, &d, 8);
      }
      put(x, esize);
      return true;
    }
    case Init::Kind::F32: {
      if (v.type == Type::F64) {
        uint32_t b = uint32_t(in.ival);
        float f;
        std::memcpy(&f, &b, 4);
        double d = f;
        uint64_t x;
        std::memcpy(&x, &d, 8);
        put(x, 8);
      } else {
        put(uint64_t(in.ival), esize);
      }
      return true;
    }
    case Init::Kind::F64: {
      if (v.type == Type::F32) {
        double d;
        uint64_t b = uint64_t(in.ival);
        std::memcpy(&d, &b, 8);
        float f = float(d);
        uint32_t x;
        std::memcpy(&x, &f, 4);
        put(x, 4);
      } else {
        put(uint64_t(in.ival), esize);
      }
      return true;
    }
    case Init::Kind::Symbol:
    case Init::Kind::Generic: {
      uint64_t a;
      if (!sym_addr(in.name, a)) return false;
      put(a + uint64_t(in.ival), esize);
      return true;
    }
    case Init::Kind::Mask: {
      const Init& inner = in.elems.at(0);
      uint64_t a;
      if (!sym_addr(inner.name, a)) return false;
      a += uint64_t(inner.ival);
      uint64_t m = uint64_t(in.ival);
      unsigned shift = m ? unsigned(std::countr_zero(m)) : 0;
      put((a & m) >> shift, esize);
      return true;
    }
  }
  return true;
}

}  // namespace

Engine::Engine(mem::DeviceMemory& mem, EngineConfig cfg) : mem_(mem), cfg_(cfg) {}

LoadResult Engine::load(std::unique_ptr<Module> m) {
  LoadResult r;
  auto lm = std::make_unique<LoadedModule>();
  // Allocate every defined .global/.const variable (also those declared inside functions).
  struct Pending {
    const Variable* v;
    std::string key;
  };
  std::vector<Pending> vars;
  for (auto& v : m->vars)
    if ((v.space == Space::Global || v.space == Space::Const) && v.linkage != Linkage::Extern)
      vars.push_back({&v, v.name});
  for (auto& f : m->funcs)
    for (auto& v : f.locals)
      if (v.space == Space::Global || v.space == Space::Const) vars.push_back({&v, f.name + "::" + v.name});
  for (auto& p : vars) {
    uint64_t size = std::max<uint64_t>(p.v->size_bytes(), 1);
    if (p.v->type == Type::TexRef || p.v->type == Type::SurfRef || p.v->type == Type::SamplerRef) size = 8;
    uint64_t addr = mem_.allocate(size, std::max<uint64_t>(natural_align(*p.v), 256), p.key);
    if (!addr) {
      r.errors.push_back(fmt::format("{}: out of device memory placing variable '{}' ({} bytes)", m->filename, p.key, size));
      for (uint64_t a : lm->allocations) mem_.release(a);
      return r;
    }
    lm->allocations.push_back(addr);
    lm->vars[p.key] = addr;
  }
  // Initialisers may take the address of variables and of functions (function-pointer tables); a
  // function's "address" is kFunctionBase + its index among the defined functions, as the decoder
  // numbers them.
  VariableAddresses init_addrs = lm->vars;
  {
    uint64_t index = 0;
    std::unordered_map<std::string, uint64_t> body_index;
    for (auto& f : m->funcs)
      if (f.has_body) body_index.emplace(f.name, index++);
    for (auto& f : m->funcs)
      if (auto it = body_index.find(f.name); it != body_index.end())
        init_addrs.emplace(f.name, kFunctionBase + it->second);
  }
  for (auto& p : vars) {
    uint64_t addr = lm->vars[p.key];
    if (p.v->has_init && p.v->fields.empty()) {
      std::vector<uint8_t> bytes;
      std::string err;
      if (!init_bytes(p.v->init, *p.v, init_addrs, bytes, err)) {
        r.errors.push_back(fmt::format("{}: {}", m->filename, err));
        continue;
      }
      uint64_t size = std::max<uint64_t>(p.v->size_bytes(), 1);
      if (bytes.size() > size) bytes.resize(size);
      mem_.host_write(addr, bytes.data(), bytes.size());
    }
    if (p.v->space == Space::Const) mem_.set_read_only(addr, true);
  }
  DecodeResult d = decode(*m, lm->vars, DecodeTarget{cfg_.sm_arch, cfg_.machine, cfg_.share_registers});
  for (auto& e : d.errors) r.errors.push_back(e.str());
  if (!r.errors.empty()) {
    for (uint64_t a : lm->allocations) mem_.release(a);
    return r;
  }
  lm->prog = std::move(d.prog);
  lm->ptx = std::move(m);
  lm->prog.module = lm->ptx.get();
  r.module = std::move(lm);
  return r;
}

void Engine::unload(LoadedModule& m) {
  for (uint64_t a : m.allocations) mem_.release(a);
  m.allocations.clear();
}

// ------------------------------------------------------------------ scheduling

namespace {

// A CTA of the launch `ls` about to run: its id, its threads and its shared memory, zeroed (the
// kernel's static shared variables, then the launch's dynamic part).
void init_cta(Cta& c, const LaunchState& ls, Dim3 id) {
  c.id = id;
  c.nthreads = uint32_t(ls.block.count());
  c.live_threads = c.nthreads;
  c.shared.assign(uint64_t(ls.kernel->dynamic_shared_base) + ls.dynamic_smem, 0);
  c.shared_offsets = &ls.kernel->shared_offsets;
}

struct CtaRunner {
  const Program& prog;
  LaunchState& launch;
  const EngineConfig& cfg;
  Cta& cta;
  const std::vector<uint32_t>* rpcs = nullptr;  // reconvergence points (stack mode)

  // Pre-Volta scheduling: the warp runs the lanes of the top stack entry; a divergent branch pushes
  // one entry per path, each popped when its lanes reach the branch's immediate post-dominator.
  uint32_t select_stack(Warp& w, uint32_t& pc_out) {
    auto& st = w.simt_stack;
    if (st.empty() && !w.stack_started) {
      st.emplace_back(w.valid, kNoReconvergence);
      w.stack_started = true;
    }
    uint32_t exited = w.lanes_in(LaneState::Exited) | ~w.valid;
    while (!st.empty()) {
      auto [mask, rpc] = st.back();
      uint32_t live = mask & ~exited;
      if (!live) {
        st.pop_back();
        w.stack_spin = 0;
        continue;
      }
      uint32_t ready = live & w.lanes_in(LaneState::Ready);
      if (ready != live) return 0;  // some of this path's lanes wait at a barrier
      uint32_t p0 = w.pc[std::countr_zero(ready)];
      bool same = true;
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((ready >> l & 1) && w.pc[l] != p0) same = false;
      if (same) {
        if (p0 == rpc) {
          st.pop_back();
          w.stack_spin = 0;
          continue;
        }
        pc_out = p0;
        w.converged = false;
        return ready;
      }
      // The last instruction diverged this entry: one entry per path, lowest pc on top.
      uint32_t join = (*rpcs)[w.last_pc];
      st.back().first = ready;  // lanes that exited stay out
      std::vector<std::pair<uint32_t, uint32_t>> paths;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(ready >> l & 1)) continue;
        auto it = std::find_if(paths.begin(), paths.end(), [&](auto& p) { return w.pc[std::countr_zero(p.first)] == w.pc[l]; });
        if (it == paths.end()) paths.emplace_back(1u << l, join);
        else it->first |= 1u << l;
      }
      std::sort(paths.begin(), paths.end(), [&](auto& a, auto& b) {
        return w.pc[std::countr_zero(a.first)] > w.pc[std::countr_zero(b.first)];
      });
      for (auto& p : paths) st.push_back(p);
      w.stack_spin = 0;
    }
    return 0;
  }

  void init_warp(Warp& w, uint32_t first_thread) {
    const DFunction& k = *launch.kernel;
    const size_t nregs = size_t(k.window_hi - k.window_lo) * kWarpSize, nparam = size_t(prog.total_param) * kWarpSize;
    WarpStorage reused;
    if (launch.storage_pool && launch.storage_pool->take(nregs, nparam, reused)) {
      w.regs = std::move(reused.regs);
      w.param = std::move(reused.param);
    } else {
      w.regs.assign_uninitialized(nregs);
      w.param.assign_uninitialized(nparam);
    }
    // Registers read as zero until written: the kernel's are cleared now, a callee's on entry; the
    // special registers are all set below.
    w.reg_lo = k.window_lo;
    w.zeroed.assign(prog.funcs.size(), 0);
    clear_function(w, prog, uint32_t(&k - prog.funcs.data()));
    w.preds.assign(prog.npreds, 0);
    w.local_size = uint64_t(cfg.stack_bytes) + k.local_frame;
    w.valid = 0;
    for (unsigned l = 0; l < kWarpSize; ++l) {
      uint32_t t = first_thread + l;
      bool valid = t < cta.nthreads;
      if (valid) w.valid |= 1u << l;
      w.pc[l] = k.entry_pc;
      w.state[l] = valid ? LaneState::Ready : LaneState::Exited;
      w.local_base[l] = 0;
    }
    // The special registers the module reads (DFunction::specials), per lane.
    const Dim3& b = launch.block;
    for (auto [sp, slot] : k.specials) {
      uint64_t* r = w.reg(slot);
      for (unsigned l = 0; l < kWarpSize; ++l) {
        const uint32_t t = first_thread + l;
        uint64_t v = 0;
        switch (sp) {
          case Program::TidX: v = t % b.x; break;
          case Program::TidY: v = (t / b.x) % b.y; break;
          case Program::TidZ: v = t / (b.x * b.y); break;
          case Program::NtidX: v = b.x; break;
          case Program::NtidY: v = b.y; break;
          case Program::NtidZ: v = b.z; break;
          case Program::CtaidX: v = cta.id.x; break;
          case Program::CtaidY: v = cta.id.y; break;
          case Program::CtaidZ: v = cta.id.z; break;
          case Program::NctaidX: v = launch.grid.x; break;
          case Program::NctaidY: v = launch.grid.y; break;
          case Program::NctaidZ: v = launch.grid.z; break;
          case Program::Laneid: v = l; break;
          case Program::Warpid: v = w.id; break;
          case Program::Nwarpid: v = 64; break;  // A100: 64 warp slots per SM
          case Program::Smid: v = launch.smid; break;
          case Program::Nsmid: v = launch.nsmid; break;
          case Program::Gridid: v = launch.gridid; break;
          case Program::LanemaskEq: v = 1ull << l; break;
          case Program::LanemaskLe: v = (2ull << l) - 1; break;
          case Program::LanemaskLt: v = (1ull << l) - 1; break;
          case Program::LanemaskGe: v = uint32_t(~((1ull << l) - 1)); break;
          case Program::LanemaskGt: v = uint32_t(~((2ull << l) - 1)); break;
          case Program::DynSmem: v = launch.dynamic_smem; break;
          case Program::TotalSmem: v = cta.shared.size(); break;
          case Program::WarpSz: v = kWarpSize; break;
          case Program::ClusterCtaidX: v = cta.id.x % launch.cluster.x; break;
          case Program::ClusterCtaidY: v = cta.id.y % launch.cluster.y; break;
          case Program::ClusterCtaidZ: v = cta.id.z % launch.cluster.z; break;
          case Program::ClusterNctaidX: v = launch.cluster.x; break;
          case Program::ClusterNctaidY: v = launch.cluster.y; break;
          case Program::ClusterNctaidZ: v = launch.cluster.z; break;
          case Program::ClusteridX: v = cta.id.x / launch.cluster.x; break;
          case Program::ClusteridY: v = cta.id.y / launch.cluster.y; break;
          case Program::ClusteridZ: v = cta.id.z / launch.cluster.z; break;
          case Program::NclusteridX: v = launch.grid.x / launch.cluster.x; break;
          case Program::NclusteridY: v = launch.grid.y / launch.cluster.y; break;
          case Program::NclusteridZ: v = launch.grid.z / launch.cluster.z; break;
          case Program::ClusterCtarank: v = cta.cluster_rank; break;
          case Program::ClusterNctarank: v = launch.cluster.count(); break;
          default: break;
        }
        r[l] = v;
      }
    }
    w.converged = true;
  }

  // Picks the lanes to run next: the Ready lanes at the lowest pc (threads behind catch up, which
  // re-converges structured code), preferring `favor` lanes after a spin was detected.
  uint32_t select(Warp& w, uint32_t& pc_out) {
    uint32_t ready = 0, syncw = 0;
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (w.state[l] == LaneState::Ready) ready |= 1u << l;
      else if (w.state[l] == LaneState::WarpSyncWait) syncw |= 1u << l;
    }
    if (!ready) {
      if (!syncw || w.sync_retried) return 0;
      // Nothing else can run: give the lanes waiting at a warp-synchronous instruction one more
      // look (their partners may have exited).
      w.sync_retried = true;
      ready = syncw;
    }
    uint32_t pool = ready;
    if (w.favor & ready) pool = w.favor & ready;
    else w.favor = 0;
    uint32_t best = ~0u;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if ((pool >> l & 1) && w.pc[l] < best) best = w.pc[l];
    uint32_t group = 0;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (((ready | syncw) >> l & 1) && w.pc[l] == best) group |= 1u << l;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (group >> l & 1) w.state[l] = LaneState::Ready;
    w.converged = group == ready && !syncw && !w.favor;
    pc_out = best;
    return group;
  }

  // Warp-synchronous instructions: lanes passing the same member mask form one group; a group whose
  // live members are not all here waits (its lanes stay at this pc), the others execute.
  void run_member_groups(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
    Warp& w = ctx.w;
    const uint64_t* m = ctx.src(prog.operands(in)[in.member_op]);
    uint32_t live = w.valid & ~w.lanes_in(LaneState::Exited);
    uint32_t left = mask;
    while (left) {
      uint32_t members = uint32_t(m[std::countr_zero(left)]);
      uint32_t sub = 0;
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((left >> l & 1) && uint32_t(m[l]) == members) sub |= 1u << l;
      left &= ~sub;
      if ((members & live & ~ctx.group) && in.exec != exec_bar_warp) {
        for (unsigned l = 0; l < kWarpSize; ++l)
          if (sub >> l & 1) w.state[l] = LaneState::WarpSyncWait;
        ctx.blocked |= sub;
        continue;
      }
      in.exec(ctx, in, sub);
      if (ctx.stop) return;
    }
  }

  // Runs the instruction at `pc` for the lanes `group` of warp w: guard, execution, counters, pc
  // update, spin/livelock detection. Returns Stop (the kernel faulted), Next (the whole converged
  // warp moved to pc + 1: the caller may run pc + 1 without selecting again) or Reselect.
  enum Outcome { Stop, Next, Reselect };
  Outcome execute(Warp& w, uint32_t pc, uint32_t group, StepResult* out = nullptr) {
    if (pc >= prog.code.size() || !prog.code[pc].exec) {
      ExecCtx c{prog, launch, cta, w, pc, group};
      c.fault(FaultKind::IllegalInstruction, unsigned(std::countr_zero(group)), 0,
              fmt::format("no executable instruction at code index {}", pc));
      if (out) out->fault = true;
      return Stop;
    }
    const DInstr& in = prog.code[pc];
    ExecCtx ctx{prog, launch, cta, w, pc, group};
    uint32_t mask = group;
    if (!in.guard.is_none()) mask &= ctx.pred(in.guard);
    if (mask && in.member_op != 0xff) run_member_groups(ctx, in, mask);
    else if (mask) in.exec(ctx, in, mask);
    ++launch.warp_instrs;
    ++launch.clock;
    launch.thread_instrs += uint64_t(std::popcount(group));
    launch.thread_instrs_pred_on += uint64_t(std::popcount(mask));
    if (out) {
      out->pc = pc;
      out->group = group;
      out->active = mask;
      out->redirected = ctx.redirected;
      out->blocked = ctx.blocked;
      out->fault = ctx.stop;
    }
    if (ctx.stop) return Stop;
    uint32_t moved = group & ~ctx.redirected & ~ctx.blocked;
    if (moved == ~0u) w.pc.fill(pc + 1);  // (a converged warp: one vector store, no per-lane test)
    else
      for (uint32_t m = moved; m; m &= m - 1) w.pc[unsigned(std::countr_zero(m))] = pc + 1;
    w.last_pc = pc;
    if (rpcs) {
      // A path that keeps looping while other lanes wait for it to reconverge can never let
      // them run (the pre-Volta spinlock problem, Volta seed demo_A): report it.
      bool backward = false;
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((ctx.redirected >> l & 1) && w.pc[l] <= pc) backward = true;
      if (backward && w.simt_stack.size() > 1 && ++w.stack_spin > cfg.livelock_iterations) {
        ExecCtx c{prog, launch, cta, w, pc, group};
        uint32_t waiting = 0;
        for (size_t i = 0; i + 1 < w.simt_stack.size(); ++i) waiting |= w.simt_stack[i].first;
        waiting &= ~group & ~w.lanes_in(LaneState::Exited);
        c.fault(FaultKind::Livelock, unsigned(std::countr_zero(group)), 0,
                fmt::format("livelock: {} threads of warp {} looped {} times at pc {} while {} threads of the same warp "
                            "wait to reconverge with them; with a SIMT reconvergence stack (pre-Volta) they can "
                            "never run (e.g. a spinlock held by a thread of the same warp)",
                            std::popcount(group), w.id, w.stack_spin, pc, std::popcount(waiting)));
        if (out) out->fault = true;
        return Stop;
      }
      return Reselect;
    }
    // A branch that every lane of a converged warp took to one target leaves the warp converged
    // there: what select() would find, without its scans of the lanes (loops end every iteration
    // with one). Converged means the group is every Ready lane, none waits at a warp-synchronous
    // instruction and none is favoured, so the spin bookkeeping below has nothing to do either.
    if (ctx.redirected == group && !ctx.blocked && w.converged && !w.favor) {
      const uint32_t target = w.pc[std::countr_zero(group)];
      bool same = true;
      for (uint32_t m = group; m; m &= m - 1) same &= w.pc[std::countr_zero(m)] == target;
      if (same) {
        w.sync_retried = false;
        next_pc = target;
        return Next;
      }
    }
    if (ctx.redirected | ctx.blocked) {
      // Spin detection: one path keeps branching backwards while another path waits.
      bool backward = false;
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((ctx.redirected >> l & 1) && w.pc[l] <= pc) backward = true;
      uint32_t others = w.lanes_in(LaneState::Ready) & ~group;
      if (backward && others) {
        if (group == w.spin_group) {
          if (++w.spin >= cfg.spin_yield_threshold) {
            w.favor = others;  // let the waiting path run: a spinning lock holder may be there
            w.spin = 0;
          }
        } else {
          w.spin_group = group;
          w.spin = 1;
        }
      } else if (w.favor && backward) {
        w.favor = 0;  // the favoured path looped too: back to lowest-pc order
      }
      w.converged = false;
      // A step that only parked lanes at a warp-synchronous instruction is no progress: keep the
      // retry flag so a warp whose lanes wait for each other at different instructions is reported
      // as a deadlock instead of retried forever.
      if (moved || ctx.redirected) w.sync_retried = false;
      return Reselect;
    }
    next_pc = pc + 1;
    return moved == group && w.converged ? Next : Reselect;
  }
  uint32_t next_pc = 0;  // after execute() returned Next: where the (converged) warp goes on

  uint32_t select_next(Warp& w, uint32_t& pc) { return rpcs ? select_stack(w, pc) : select(w, pc); }

  // Runs a warp for up to `budget` instructions; returns instructions executed.
  uint64_t run_warp(Warp& w, uint64_t budget) {
    uint64_t n = 0;
    uint32_t pc = 0, group = 0;
    bool have = false;
    while (n < budget) {
      if (!have) {
        group = select_next(w, pc);
        if (!group) break;
      }
      have = false;
      Outcome o = execute(w, pc, group);
      ++n;
      if (o == Stop) return n;
      if (o == Next) {
        pc = next_pc;
        have = true;
      }
    }
    return n;
  }

  void create_warps() {
    cta.storage_pool = launch.storage_pool;  // the warps' storage goes back to it with the CTA
    uint32_t nwarps = (cta.nthreads + kWarpSize - 1) / kWarpSize;
    for (uint32_t i = 0; i < nwarps; ++i) {
      auto w = std::make_unique<Warp>();
      w->id = i;
      cta.warps.push_back(std::move(w));
      init_warp(*cta.warps.back(), i * kWarpSize);
    }
  }

  static bool finished(const Warp& w) {
    return w.lanes_in(LaneState::Ready) == 0 && w.lanes_in(LaneState::BarrierWait) == 0 &&
           w.lanes_in(LaneState::WarpSyncWait) == 0 && w.lanes_in(LaneState::MbarrierWait) == 0 &&
           w.lanes_in(LaneState::ClusterWait) == 0;
  }

  // One time slice of every unfinished warp, at most `slice` instructions each.
  enum class Round { Done, Progress, Stuck, Fault };
  Round round(uint64_t slice) {
    bool progress = false, all_done = true;
    for (auto& wp : cta.warps) {
      Warp& w = *wp;
      if (w.done) continue;
      uint64_t budget = slice;
      if (cfg.max_warp_instructions) {
        if (launch.warp_instrs >= cfg.max_warp_instructions) {
          ExecCtx c{prog, launch, cta, w, w.pc[0], 0};
          c.fault(FaultKind::InstructionLimit, 0, 0,
                  fmt::format("stopped after {} warp instructions (limit set by the user)", launch.warp_instrs));
          return Round::Fault;
        }
        budget = std::min<uint64_t>(budget, cfg.max_warp_instructions - launch.warp_instrs);
      }
      uint64_t n = run_warp(w, budget);
      if (launch.fault.kind != FaultKind::None) return Round::Fault;
      if (n) progress = true;
      if (finished(w))
        w.done = true;
      else
        all_done = false;
    }
    return all_done ? Round::Done : progress ? Round::Progress : Round::Stuck;
  }

  void report_deadlock() {
    std::string waits;
    unsigned lane = 0;
    Warp* first = nullptr;
    for (auto& wp : cta.warps) {
      Warp& w = *wp;
      if (w.done) continue;
      uint32_t bw = w.lanes_in(LaneState::BarrierWait), sw = w.lanes_in(LaneState::WarpSyncWait);
      uint32_t mw = w.lanes_in(LaneState::MbarrierWait), cw = w.lanes_in(LaneState::ClusterWait);
      if (!first && (bw | sw | mw | cw)) {
        first = &w;
        lane = unsigned(std::countr_zero(bw | sw | mw | cw));
      }
      if (cw)
        waits += fmt::format("; warp {}: {} threads wait at the cluster barrier (pc {}; {} of the cluster's {} live "
                             "threads arrived)", w.id, std::popcount(cw), w.pc[std::countr_zero(cw)],
                             cta.cluster->arrived, cta.cluster->live_threads);
      if (mw) {
        unsigned l = unsigned(std::countr_zero(mw));
        waits += fmt::format("; warp {}: {} threads wait on the mbarrier at shared offset 0x{:x} (pc {})", w.id,
                             std::popcount(mw), w.wait_mbar[l], w.pc[l]);
      }
      if (bw) {
        unsigned l = unsigned(std::countr_zero(bw));
        waits += fmt::format("; warp {}: {} threads wait at barrier {} (pc {})", w.id, std::popcount(bw),
                             w.wait_barrier[l], w.pc[l] - 1);
      }
      if (sw)
        waits += fmt::format("; warp {}: {} threads wait for the rest of their warp at pc {}", w.id,
                             std::popcount(sw), w.pc[std::countr_zero(sw)]);
    }
    Warp& w = first ? *first : *cta.warps.front();
    ExecCtx c{prog, launch, cta, w, w.pc[lane], 0};
    c.fault(FaultKind::Deadlock, lane, 0,
            fmt::format("every live thread of the block{} waits and none can proceed{}",
                        cta.cluster && cta.cluster->ctas.size() > 1 ? " and of its cluster" : "", waits));
  }
};

}  // namespace

void lanes_exit(ExecCtx& ctx, uint32_t mask) {
  for (unsigned l = 0; l < kWarpSize; ++l)
    if (mask >> l & 1) {
      ctx.w.state[l] = LaneState::Exited;
      // A thread's outstanding cp.async copies complete when it exits.
      if (!ctx.w.async_copies.empty_at(l)) ctx.w.complete_async_copies(l, ~0u, ctx.cta.shared);
    }
  ctx.blocked |= mask;
  ctx.cta.live_threads -= uint32_t(std::popcount(mask));
  if (Cluster* cl = ctx.cta.cluster) {
    cl->live_threads -= uint32_t(std::popcount(mask));
    // An arrival of this phase by a thread that now exits no longer counts: it is not live.
    for (uint32_t m = mask; m; m &= m - 1)
      if (ctx.w.cluster_arrival[std::countr_zero(m)] == cl->phase + 1) --cl->arrived;
    cluster_barrier_check(*cl);
  }
  // Barriers that counted on these threads may complete now.
  for (uint32_t id = 0; id < ctx.cta.barriers.size(); ++id) {
    BarrierState& b = ctx.cta.barriers[id];
    if (b.arrived && b.expected == 0 && b.arrived >= ctx.cta.live_threads) barrier_arrive(ctx, id, 0, 0, false);
  }
}

void cluster_barrier_check(Cluster& cl) {
  if (!cl.arrived || cl.arrived < cl.live_threads) return;
  cl.arrived = 0;
  ++cl.phase;
  for (Cta* c : cl.ctas)
    for (auto& wp : c->warps) {
      Warp& w = *wp;
      bool any = false;
      for (unsigned l = 0; l < kWarpSize; ++l)
        if (w.state[l] == LaneState::ClusterWait) w.state[l] = LaneState::Ready, any = true;
      if (any) {
        w.done = false;
        w.converged = false;
        ++w.wake_gen;
      }
    }
}

bool warp_sync(ExecCtx& ctx, uint32_t members) {
  uint32_t live = ctx.w.valid & ~ctx.w.lanes_in(LaneState::Exited);
  uint32_t missing = members & live & ~ctx.group;
  if (!missing) return true;
  for (unsigned l = 0; l < kWarpSize; ++l)
    if (ctx.group >> l & 1) ctx.w.state[l] = LaneState::WarpSyncWait;
  ctx.blocked |= ctx.group;  // pc stays: the instruction runs again once the others arrive
  return false;
}

bool barrier_arrive(ExecCtx& ctx, uint32_t id, uint32_t expected, uint32_t mask, bool wait, const BarrierRed* red) {
  if (id >= ctx.cta.barriers.size()) {
    ctx.fault(FaultKind::IllegalInstruction, unsigned(std::countr_zero(mask | 1)), 0,
              fmt::format("barrier id {} is out of range (0..15)", id));
    return false;
  }
  BarrierState& b = ctx.cta.barriers[id];
  if (expected) b.expected = expected;
  b.arrived += uint32_t(std::popcount(mask));
  if (red) {
    uint32_t v = red->values & mask;
    b.red_popc += uint32_t(std::popcount(v));
    if (v != mask) b.red_and = false;
    if (v) b.red_or = true;
    b.waiters.push_back({&ctx.w, mask, red->dst, red->op});
  }
  if (wait) {
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1) {
        ctx.w.state[l] = LaneState::BarrierWait;
        ctx.w.wait_barrier[l] = uint8_t(id);
        ctx.w.pc[l] = ctx.pc + 1;
      }
    ctx.blocked |= mask;
  }
  uint32_t need = b.expected ? b.expected : ctx.cta.live_threads;
  if (b.arrived >= need) {
    for (auto& wt : b.waiters) {
      if (wt.op == 0) {
        uint64_t* d = &wt.w->regs[size_t(wt.dst.index()) * kWarpSize];
        for (unsigned l = 0; l < kWarpSize; ++l)
          if (wt.mask >> l & 1) d[l] = b.red_popc;
      } else {
        bool v = wt.op == 1 ? b.red_and : b.red_or;
        uint32_t& p = wt.w->preds[wt.dst.index()];
        p = (p & ~wt.mask) | (v ? wt.mask : 0);
      }
    }
    for (auto& wp : ctx.cta.warps)
      for (unsigned l = 0; l < kWarpSize; ++l)
        if (wp->state[l] == LaneState::BarrierWait && wp->wait_barrier[l] == id) {
          wp->state[l] = LaneState::Ready;
          wp->done = false;
          ++wp->wake_gen;
        }
    b = BarrierState{};
  }
  return true;
}

// ------------------------------------------------------------------ launch

namespace {
// "file.cu:12 (vecadd.ptx:40:2: ld.global.f32 %f1, [%rd4];)" for a code index.
std::string source_location(const LoadedModule& m, uint32_t pc) {
  if (pc >= m.prog.code.size()) return {};
  const DInstr& in = m.prog.code[pc];
  const DFunction& f = m.prog.funcs[in.func];
  const Instruction& ins = f.src->instrs[in.src_index];
  std::string s;
  if (ins.line.file) {
    for (auto& fd : m.ptx->files)
      if (fd.id == ins.line.file) s = fmt::format("{}:{}, ", fd.path, ins.line.line);
  }
  s += fmt::format("{}:{}:{} in {}: {}", m.ptx->filename, ins.pos.line, ins.pos.col, f.name,
                   print_instruction(*f.src, ins));
  return s;
}
}  // namespace

bool Engine::prepare(const LoadedModule& m, const std::string& kernel, const LaunchConfig& lc, LaunchState& ls,
                     LaunchResult& res) {
  res = LaunchResult{};
  res.kernel = kernel;
  const DFunction* k = m.prog.find_kernel(kernel);
  auto fail = [&](FaultKind kind, std::string msg) {
    res.fault.kind = kind;
    res.fault.message = std::move(msg);
    return false;
  };
  if (!k) return fail(FaultKind::IllegalInstruction, fmt::format("no kernel named '{}' in the module", kernel));
  if (lc.grid.count() == 0 || lc.block.count() == 0 || lc.block.count() > 1024)
    return fail(FaultKind::IllegalInstruction,
                fmt::format("invalid launch configuration: grid ({},{},{}), block ({},{},{})", lc.grid.x, lc.grid.y,
                            lc.grid.z, lc.block.x, lc.block.y, lc.block.z));
  if (k->static_shared + lc.dynamic_smem > 227 * 1024)
    return fail(FaultKind::IllegalInstruction,
                fmt::format("kernel needs {} bytes of shared memory per block", k->static_shared + lc.dynamic_smem));
  ls.prog = &m.prog;
  ls.kernel = k;
  ls.storage_pool = &m.storage_pool;
  ls.mem = &mem_;
  if (lc.cluster.x == 0 || lc.cluster.y == 0 || lc.cluster.z == 0 || lc.grid.x % lc.cluster.x ||
      lc.grid.y % lc.cluster.y || lc.grid.z % lc.cluster.z)
    return fail(FaultKind::IllegalInstruction,
                fmt::format("grid ({},{},{}) is not a whole number of clusters of ({},{},{}) CTAs", lc.grid.x, lc.grid.y,
                            lc.grid.z, lc.cluster.x, lc.cluster.y, lc.cluster.z));
  ls.grid = lc.grid;
  ls.cluster = lc.cluster;
  ls.explicit_cluster = lc.explicit_cluster;
  ls.block = lc.block;
  ls.dynamic_smem = lc.dynamic_smem;
  ls.params = lc.params;
  ls.nsmid = cfg_.num_sms;
  ls.envreg = lc.envreg;
  ls.textures = &textures_;
  ls.heap = &heap_;
  uint32_t need_params = 0;
  {
    auto offs = param_offsets(*k->src);
    if (!offs.empty()) need_params = offs.back() + uint32_t(k->src->params.back().size_bytes());
  }
  if (ls.params.size() < need_params) ls.params.resize(need_params, 0);
  if (cfg_.reconvergence_stack) ls.rpcs = reconvergence_points(m.prog);
  return true;
}

LaunchResult Engine::finish(const LoadedModule& m, LaunchState& ls, LaunchResult res) {
  // Grids its threads launched: their parameters as the parent left them, then the buffers go
  // back to the heap (launched or not).
  for (auto& d : ls.device_launches) {
    if (d.launched && d.func < m.prog.funcs.size() && ls.fault.kind == FaultKind::None) {
      const DFunction& f = m.prog.funcs[d.func];
      ChildGrid c;
      c.kernel = f.name;
      c.grid = d.grid, c.block = d.block;
      c.dynamic_smem = d.smem;
      c.params.resize(kernel_param_bytes(f));
      if (!c.params.empty()) ls.mem->host_read(d.params, c.params.data(), c.params.size());
      res.children.push_back(std::move(c));
    }
    if (ls.heap) ls.heap->release(d.params);
  }
  ls.device_launches.clear();
  res.fault = ls.fault;
  if (ls.fault.kind != FaultKind::None) res.fault.where = source_location(m, ls.fault.pc);
  res.warp_instrs = ls.warp_instrs;
  res.thread_instrs = ls.thread_instrs;
  res.thread_instrs_pred_on = ls.thread_instrs_pred_on;
  res.printf_out = std::move(ls.printf_out);
  return res;
}

namespace {
// A CTA resident in the functional engine: its storage and the runner that steps its warps.
struct ResidentCta {
  Cta cta;
  CtaRunner runner;
  ResidentCta(const Program& prog, LaunchState& ls, const EngineConfig& cfg, const std::vector<uint32_t>* rpcs)
      : runner{prog, ls, cfg, cta, rpcs} {}
};
// The CTAs of one cluster (one CTA without clusters): resident together, taking turns, and kept
// (with their shared memory, which the others may still read) until all of them have finished.
struct ResidentCluster {
  Cluster cluster;
  std::vector<std::unique_ptr<ResidentCta>> ctas;
  std::vector<uint8_t> done;
  // One slice of every unfinished CTA: Done when all are done, Stuck when none ran.
  CtaRunner::Round round(uint64_t slice) {
    bool progress = false, all = true;
    for (size_t i = 0; i < ctas.size(); ++i) {
      if (done[i]) continue;
      const auto r = ctas[i]->runner.round(slice);
      if (r == CtaRunner::Round::Fault) return r;
      progress |= r != CtaRunner::Round::Stuck;
      if (r == CtaRunner::Round::Done) done[i] = 1;
      else all = false;
    }
    return all ? CtaRunner::Round::Done : progress ? CtaRunner::Round::Progress : CtaRunner::Round::Stuck;
  }
  void report_deadlock() {
    for (size_t i = 0; i < ctas.size(); ++i)
      if (!done[i]) return ctas[i]->runner.report_deadlock();
  }
};
// Warp instructions a CTA may run alone before the launch assumes it waits for another CTA.
constexpr uint64_t kSoloBudget = 1u << 20;
}  // namespace

LaunchResult Engine::launch(const LoadedModule& m, const std::string& kernel, const LaunchConfig& lc) {
  LaunchState ls;
  LaunchResult res;
  if (!prepare(m, kernel, lc, ls, res)) return res;
  const uint64_t total = lc.grid.count();
  const Dim3 cdim = ls.cluster;
  const uint64_t csize = cdim.count();
  const Dim3 cgrid{lc.grid.x / cdim.x, lc.grid.y / cdim.y, lc.grid.z / cdim.z};
  const uint64_t nclusters = cgrid.count();
  uint64_t next = 0;  // the next cluster (in x, y, z order of %clusterid) to become resident
  uint64_t next_progress = lc.progress_every;
  uint64_t finished = 0;
  auto admit = [&]() {
    auto g = std::make_unique<ResidentCluster>();
    g->cluster.dims = cdim;
    g->cluster.id = Dim3{uint32_t(next % cgrid.x), uint32_t(next / cgrid.x % cgrid.y),
                         uint32_t(next / (uint64_t(cgrid.x) * cgrid.y))};
    for (uint32_t rank = 0; rank < csize; ++rank) {
      const Dim3 id{g->cluster.id.x * cdim.x + rank % cdim.x, g->cluster.id.y * cdim.y + rank / cdim.x % cdim.y,
                    g->cluster.id.z * cdim.z + rank / (cdim.x * cdim.y)};
      auto r = std::make_unique<ResidentCta>(m.prog, ls, cfg_, cfg_.reconvergence_stack ? &ls.rpcs : nullptr);
      init_cta(r->cta, ls, id);
      r->cta.cluster = &g->cluster;
      r->cta.cluster_rank = rank;
      g->cluster.ctas.push_back(&r->cta);
      g->cluster.live_threads += r->cta.nthreads;
      ls.smid = uint32_t((next * csize + rank) % cfg_.num_sms);  // read when the warps are made
      r->runner.create_warps();
      g->ctas.push_back(std::move(r));
    }
    g->done.assign(csize, 0);
    ++next;
    return g;
  };
  auto report_progress = [&] {
    if (lc.progress && ls.warp_instrs >= next_progress) {
      lc.progress(finished, total, ls.warp_instrs);
      next_progress = ls.warp_instrs + lc.progress_every;
    }
  };
  std::vector<std::unique_ptr<ResidentCluster>> resident;
  // One cluster (a CTA without clusters) at a time while each finishes alone within kSoloBudget
  // per CTA (a cooperative launch skips this: its CTAs are all resident by contract).
  while (!lc.co_resident && next < nclusters) {
    auto r = admit();
    const uint64_t start = ls.warp_instrs;
    bool alone = true;
    for (bool running = true; running;) {
      report_progress();
      switch (r->round(4096)) {
        case CtaRunner::Round::Done: running = false; break;
        case CtaRunner::Round::Fault: return finish(m, ls, std::move(res));
        case CtaRunner::Round::Stuck: r->report_deadlock(); return finish(m, ls, std::move(res));
        case CtaRunner::Round::Progress:
          if (ls.warp_instrs - start > kSoloBudget * csize && nclusters > 1 && lc.resident_ctas > csize)
            running = alone = false;
          break;
      }
    }
    if (!alone) {
      resident.push_back(std::move(r));
      break;
    }
    finished += csize;
  }
  // The rest of the grid as the GPU runs it: up to `window` CTAs resident (whole clusters),
  // taking turns in short slices so that one spinning on memory another CTA will write lets that
  // CTA run; a finished cluster's place goes to the next. Stuck only when no warp of any resident
  // CTA can run.
  const uint64_t window = lc.co_resident ? total : std::max<uint64_t>(lc.resident_ctas, csize);
  while (next < nclusters || !resident.empty()) {
    while ((resident.size() + 1) * csize <= window && next < nclusters) resident.push_back(admit());
    bool progress = false;
    for (size_t i = 0; i < resident.size();) {
      auto r = resident[i]->round(256);
      if (r == CtaRunner::Round::Fault) return finish(m, ls, std::move(res));
      progress |= r != CtaRunner::Round::Stuck;
      if (r == CtaRunner::Round::Done) {
        resident.erase(resident.begin() + ptrdiff_t(i));  // its warps' storage back to the pool
        finished += csize;
      } else {
        ++i;
      }
    }
    report_progress();
    if (!progress && !resident.empty()) {
      resident.front()->report_deadlock();
      return finish(m, ls, std::move(res));
    }
  }
  return finish(m, ls, std::move(res));
}

// ------------------------------------------------------------------ stepping (timing mode)

struct CtaStepper::Impl {
  Cta cta;
  Cluster solo;  // a cluster of this one CTA
  CtaRunner runner;
  // next() remembers its selection so that step() need not select again, unless the warp ran or
  // another warp woke some of its lanes since (Warp::wake_gen).
  struct Next {
    uint32_t pc = 0, group = 0, gen = 0;
    bool valid = false;
  };
  std::vector<Next> next;
  Impl(const Program& prog, LaunchState& ls, const EngineConfig& cfg)
      : runner{prog, ls, cfg, cta, cfg.reconvergence_stack ? &ls.rpcs : nullptr} {}
};

CtaStepper::CtaStepper(const LoadedModule& m, LaunchState& ls, const EngineConfig& cfg, Dim3 id, uint32_t smid,
                       Cluster* cluster, uint32_t rank)
    : impl_(std::make_unique<Impl>(m.prog, ls, cfg)) {
  init_cta(impl_->cta, ls, id);
  if (cluster && rank < cluster->ctas.size()) {
    cluster->ctas[rank] = &impl_->cta;
    cluster->live_threads += impl_->cta.nthreads;
    impl_->cta.cluster = cluster;
    impl_->cta.cluster_rank = rank;
  } else {
    Cluster& cl = impl_->solo;
    cl.dims = ls.cluster;
    cl.id = Dim3{id.x / ls.cluster.x, id.y / ls.cluster.y, id.z / ls.cluster.z};
    cl.ctas = {&impl_->cta};
    cl.live_threads = impl_->cta.nthreads;
    impl_->cta.cluster = &cl;
    impl_->cta.cluster_rank =
        id.x % ls.cluster.x + ls.cluster.x * (id.y % ls.cluster.y + ls.cluster.y * (id.z % ls.cluster.z));
  }
  uint32_t saved = ls.smid;
  ls.smid = smid;
  impl_->runner.create_warps();
  impl_->next.resize(impl_->cta.warps.size());
  ls.smid = saved;
}

CtaStepper::~CtaStepper() = default;

uint32_t CtaStepper::warps() const { return uint32_t(impl_->cta.warps.size()); }

uint32_t CtaStepper::next(uint32_t warp, uint32_t& pc) {
  Warp& w = *impl_->cta.warps[warp];
  Impl::Next& n = impl_->next[warp];
  if (w.done) return 0;
  if (n.valid && n.gen == w.wake_gen) {
    pc = n.pc;
    return n.group;
  }
  uint32_t group = impl_->runner.select_next(w, pc);
  n = {pc, group, w.wake_gen, group != 0};
  return group;
}

StepResult CtaStepper::step(uint32_t warp) {
  StepResult r;
  Warp& w = *impl_->cta.warps[warp];
  uint32_t pc = 0;
  uint32_t group = next(warp, pc);
  Impl::Next& n = impl_->next[warp];
  n.valid = false;
  if (!group) return r;
  // Next: the converged warp simply moved on, so its next selection is known without a scan.
  if (impl_->runner.execute(w, pc, group, &r) == CtaRunner::Next) n = {impl_->runner.next_pc, group, w.wake_gen, true};
  r.executed = true;
  if (r.blocked && CtaRunner::finished(w)) w.done = true;
  return r;
}

bool CtaStepper::warp_done(uint32_t warp) const { return impl_->cta.warps[warp]->done; }

bool CtaStepper::done() const {
  for (auto& w : impl_->cta.warps)
    if (!w->done) return false;
  return true;
}

void CtaStepper::report_deadlock() { impl_->runner.report_deadlock(); }

const Cta& CtaStepper::cta() const { return impl_->cta; }

}  // namespace warpsim::func
