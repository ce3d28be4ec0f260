// Control flow and CTA synchronisation: bra, brx.idx, call/ret (with .param passing, recursion and
// indirect calls), exit, bar/barrier, trap, and the instructions that are no-ops for a functional
// model (membar/fence, nanosleep, ...). Device printf and assert are calls to vprintf/__assertfail.
#include <fmt/format.h>
#include <fmt/printf.h>

#include <bit>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/memory_access.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

// ---------------------------------------------------------------- branches

void exec_bra(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  for (unsigned l = 0; l < kWarpSize; ++l)
    if (mask >> l & 1) ctx.w.pc[l] = in.target;
  ctx.redirected |= mask;
}

bool dec_bra(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  out.target = c.label_pc(ins.operands[0]);
  if (!c.error.empty()) return false;
  out.exec = exec_bra;
  return true;
}

// brx.idx index, table: the targets are in Program::extra_ops as constants holding code indices.
void exec_brx(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const uint64_t* idx = ctx.src(in.op[0]);
  const Ref* table = &ctx.prog.extra_ops[in.target];
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t i = uint32_t(idx[l]);
    if (i >= uint64_t(in.imm)) {
      ctx.fault(FaultKind::IllegalInstruction, l, i, fmt::format("brx.idx index {} is outside its {} targets", i, in.imm));
      return;
    }
    ctx.w.pc[l] = uint32_t(ctx.prog.consts[size_t(table[i].index()) * kWarpSize]);
  }
  ctx.redirected |= mask;
}

bool dec_brx(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  out.op[0] = c.ref(ins.operands[0], Type::U32);
  const Operand& t = ins.operands[1];
  if (t.kind != Operand::Kind::Symbol || t.sym != SymKind::BranchTargets)
    return c.fail("brx.idx needs a .branchtargets list");
  const TargetList& list = c.fn.target_lists[t.sym_index];
  std::vector<Ref> refs;
  for (auto& name : list.targets) {
    uint32_t pc = ~0u;
    for (uint32_t i = 0; i < c.fn.labels.size(); ++i)
      if (c.fn.labels[i].name == name) pc = c.dfn.entry_pc + c.fn.labels[i].instr;
    if (pc == ~0u) return c.fail(fmt::format("branch target '{}' is not a label", name));
    refs.push_back(c.cnst(pc));
  }
  out.target = uint32_t(c.prog.extra_ops.size());
  c.prog.extra_ops.insert(c.prog.extra_ops.end(), refs.begin(), refs.end());
  out.imm = int64_t(refs.size());
  out.nops = 1;
  out.exec = exec_brx;
  return true;
}

// ---------------------------------------------------------------- calls

uint8_t* lane_param(ExecCtx& ctx, unsigned l) { return &ctx.w.param[size_t(l) * ctx.prog.total_param]; }

// Reads a NUL-terminated string at a generic address (global memory); bounded.
std::string read_cstring(ExecCtx& ctx, uint64_t addr, bool& ok) {
  std::string s;
  ok = true;
  for (int i = 0; i < 4096; ++i) {
    char ch = 0;
    if (ctx.launch.mem->read(addr + uint64_t(i), &ch, 1) != mem::Fault::None) {
      ok = false;
      return s;
    }
    if (!ch) return s;
    s.push_back(ch);
  }
  return s;
}

// Reads bytes at a generic address from the lane's point of view (local window or global).
bool read_generic(ExecCtx& ctx, unsigned l, uint64_t addr, void* dst, uint64_t n) {
  if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) {
    uint64_t off = addr - kLocalWindow;
    if (off + n > ctx.w.local_size) return false;
    std::memcpy(dst, ctx.w.local_at(l, off), n);
    return true;
  }
  if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
    uint64_t off = addr - kSharedWindow;
    if (off + n > ctx.cta.shared.size()) return false;
    std::memcpy(dst, &ctx.cta.shared[off], n);
    return true;
  }
  return ctx.launch.mem->read(addr, dst, n) == mem::Fault::None;
}

// CUDA's device printf: the format string and an argument buffer packed with natural alignment.
std::string format_printf(ExecCtx& ctx, unsigned l, uint64_t fmt_addr, uint64_t args, bool& ok) {
  std::string f = read_cstring(ctx, fmt_addr, ok);
  if (!ok) return {};
  std::string out;
  uint64_t off = 0;
  auto arg = [&](unsigned size, uint64_t& v) {
    off = (off + size - 1) / size * size;
    v = 0;
    if (!read_generic(ctx, l, args + off, &v, size)) ok = false;
    off += size;
  };
  for (size_t i = 0; i < f.size() && ok; ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    size_t j = i + 1;
    if (j < f.size() && f[j] == '%') {
      out.push_back('%');
      i = j;
      continue;
    }
    while (j < f.size() && std::strchr("-+ #0123456789.*", f[j])) ++j;
    std::string lenmod;
    while (j < f.size() && std::strchr("hlLqjzt", f[j])) lenmod.push_back(f[j++]);
    if (j >= f.size()) break;
    char conv = f[j];
    std::string spec = f.substr(i, j - i - lenmod.size());
    uint64_t v;
    char buf[512];
    bool wide = lenmod.find('l') != std::string::npos || lenmod == "j" || lenmod == "z" || lenmod == "t" || lenmod == "q";
    switch (conv) {
      case 'd': case 'i': {
        arg(wide ? 8 : 4, v);
        long long x = wide ? (long long)int64_t(v) : (long long)int32_t(v);
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), x);
        break;
      }
      case 'u': case 'x': case 'X': case 'o': case 'c': {
        arg(wide ? 8 : 4, v);
        unsigned long long x = wide ? v : uint32_t(v);
        std::snprintf(buf, sizeof buf, (spec + (conv == 'c' ? "c" : std::string("ll") + conv)).c_str(),
                      conv == 'c' ? (unsigned long long)(unsigned char)x : x);
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        arg(8, v);
        double d;
        std::memcpy(&d, &v, 8);
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
        break;
      }
      case 's': {
        arg(8, v);
        bool sok;
        std::string s = read_cstring(ctx, v, sok);
        std::snprintf(buf, sizeof buf, (spec + "s").c_str(), sok ? s.c_str() : "(bad string)");
        break;
      }
      case 'p': {
        arg(8, v);
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        break;
      }
      default: std::snprintf(buf, sizeof buf, "%s", f.substr(i, j - i + 1).c_str()); break;
    }
    out += buf;
    i = j;
  }
  return out;
}

}  // namespace

uint64_t kernel_param_bytes(const DFunction& f) {
  uint64_t end = 0;
  for (size_t i = 0; i < f.param_offsets.size() && i < f.param_sizes.size(); ++i)
    end = std::max<uint64_t>(end, uint64_t(f.param_offsets[i]) + f.param_sizes[i]);
  return end;
}

namespace {

void exec_builtin(ExecCtx& ctx, const DInstr& in, const CallSite& cs, uint32_t mask) {
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint8_t* p = lane_param(ctx, l);
    auto arg64 = [&](size_t i) {
      uint64_t v = 0;
      if (i < cs.args.size()) std::memcpy(&v, p + cs.args[i].first, std::min<uint32_t>(8, cs.args[i].second));
      return v;
    };
    auto argdim = [&](size_t i) {
      uint32_t v[3] = {1, 1, 1};
      if (i < cs.args.size()) std::memcpy(v, p + cs.args[i].first, std::min<uint32_t>(12, cs.args[i].second));
      return Dim3{v[0], v[1], v[2]};
    };
    uint64_t ret = 0;
    uint32_t ret_bytes = 4;
    switch (cs.builtin) {
      case CallSite::Vprintf: {
        bool ok;
        std::string s = format_printf(ctx, l, arg64(0), arg64(1), ok);
        if (!ok) {
          ctx.fault(FaultKind::IllegalAddress, l, arg64(0), "printf read its format or arguments from a bad address");
          return;
        }
        ctx.launch.printf_out.push_back(std::move(s));
        ret = 0;
        break;
      }
      case CallSite::AssertFail: {
        bool ok;
        std::string msg = read_cstring(ctx, arg64(0), ok);
        std::string file = read_cstring(ctx, arg64(1), ok);
        uint64_t line = arg64(2) & 0xffffffff;
        std::string func = read_cstring(ctx, arg64(3), ok);
        Dim3 t = ctx.thread_of(l);
        ctx.fault(FaultKind::Assert, l, 0,
                  fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.", file, line,
                              func, ctx.cta.id.x, ctx.cta.id.y, ctx.cta.id.z, t.x, t.y, t.z, msg));
        return;
      }
      case CallSite::Malloc:
        // 0 when the heap (cudaLimitMallocHeapSize) cannot hold it, as on hardware.
        ret = ctx.launch.heap ? ctx.launch.heap->alloc(arg64(0)) : 0;
        ret_bytes = 8;
        break;
      case CallSite::Free:
        if (!ctx.launch.heap || !ctx.launch.heap->release(arg64(0))) {
          ctx.fault(FaultKind::IllegalAddress, l, arg64(0),
                    fmt::format("free(0x{:x}): not a block device-side malloc returned", arg64(0)));
          return;
        }
        break;
      case CallSite::CdpBufferV2:
      case CallSite::CdpBufferV1: {
        // V2: (kernel, grid, block, dynamic shared memory); V1: (alignment, size). A null buffer
        // when the launch cannot be made (no such kernel, the heap full, 2048 launches pending:
        // cudaLimitDevRuntimePendingLaunchCount's default), which the parent's code checks.
        ret_bytes = 8;
        auto& dl = ctx.launch.device_launches;
        if (dl.size() >= 2048 || !ctx.launch.heap) break;
        LaunchState::DeviceLaunch d;
        uint64_t bytes = 0;
        if (cs.builtin == CallSite::CdpBufferV2) {
          const uint64_t f = arg64(0) - kFunctionBase;
          if (f >= ctx.prog.funcs.size() || !ctx.prog.funcs[f].is_entry) break;
          d.func = uint32_t(f);
          d.grid = argdim(1), d.block = argdim(2);
          d.smem = uint32_t(arg64(3));
          bytes = kernel_param_bytes(ctx.prog.funcs[f]);
        } else {
          bytes = arg64(1);
        }
        d.params = ctx.launch.heap->alloc(std::max<uint64_t>(bytes, 1));
        if (!d.params) break;
        dl.push_back(d);
        ret = d.params;
        break;
      }
      case CallSite::CdpLaunchV2:
      case CallSite::CdpLaunchV1: {
        // V2: (parameter buffer, stream); V1: (kernel, parameter buffer, grid, block, smem, stream).
        const uint64_t buf = arg64(cs.builtin == CallSite::CdpLaunchV2 ? 0 : 1);
        ret = 1;  // cudaErrorInvalidValue: not a buffer this grid got
        for (auto& d : ctx.launch.device_launches)
          if (d.params == buf && !d.launched) {
            if (cs.builtin == CallSite::CdpLaunchV1) {
              const uint64_t f = arg64(0) - kFunctionBase;
              if (f >= ctx.prog.funcs.size() || !ctx.prog.funcs[f].is_entry) break;
              d.func = uint32_t(f);
              d.grid = argdim(2), d.block = argdim(3);
              d.smem = uint32_t(arg64(4));
            }
            d.launched = true;
            ret = 0;
            break;
          }
        break;
      }
      case CallSite::CdpStreamCreate: {
        // Streams of device code order nothing here: every child grid runs after its parent.
        uint8_t* h = resolve_access(ctx, AccessSpace::Generic, l, arg64(0), 8, true);
        if (!h) return;
        const uint64_t handle = 0x5000 + ++ctx.launch.device_streams;
        std::memcpy(h, &handle, 8);
        break;
      }
      case CallSite::CdpSuccess: break;
      case CallSite::GraphSetConditional: {
        // The runtime's conditional handles are device words (src/cudart/api_graph.cpp).
        uint8_t* h = resolve_access(ctx, AccessSpace::Global, l, arg64(0), 4, true);
        if (!h) return;
        const uint32_t v = uint32_t(arg64(1));
        std::memcpy(h, &v, 4);
        break;
      }
      default:
        ctx.fault(FaultKind::Unsupported, l, 0, "unsupported built-in call");
        return;
    }
    if (cs.ret_off != ~0u) std::memcpy(p + cs.ret_off, &ret, std::min<uint32_t>(ret_bytes, cs.ret_size));
  }
  (void)in;
}

void do_call(ExecCtx& ctx, const DInstr& in, const CallSite& cs, uint32_t callee, uint32_t mask) {
  const DFunction& f = ctx.prog.funcs[callee];
  const DFunction& caller = ctx.prog.funcs[in.func];
  clear_function(ctx.w, ctx.prog, callee);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint8_t* p = lane_param(ctx, l);
    CallFrame fr;
    fr.return_pc = ctx.pc + 1;
    fr.callee = callee;
    fr.local_base = ctx.w.local_base[l];
    fr.ret_param_off = cs.ret_off;
    fr.ret_size = cs.ret_size;
    if (f.recursive) {
      // Another activation of the callee may be live on this lane: keep its registers and frame.
      fr.saved.reserve(f.nregs + 1 + f.param_frame / 8 + 1);
      for (uint32_t s = 0; s < f.nregs; ++s) fr.saved.push_back(ctx.w.reg(f.reg_base + s)[l]);
      uint64_t pbits = 0;
      for (uint32_t q = 0; q < f.npreds && q < 64; ++q) pbits |= uint64_t(ctx.w.preds[f.pred_base + q] >> l & 1) << q;
      fr.saved.push_back(pbits);
      for (uint32_t o = 0; o < f.param_frame; o += 8) {
        uint64_t v;
        std::memcpy(&v, p + f.param_base + o, 8);
        fr.saved.push_back(v);
      }
    }
    // Arguments: caller's call-site .param variables -> callee's parameters.
    for (size_t i = 0; i < cs.args.size() && i < f.param_offsets.size(); ++i) {
      uint32_t n = std::min(cs.args[i].second, f.param_sizes[i]);
      std::memmove(p + f.param_base + f.param_offsets[i], p + cs.args[i].first, n);
    }
    uint64_t base = ctx.w.local_base[l] + caller.local_frame;
    if (base + f.local_frame > ctx.w.local_size || ctx.w.calls[l].size() > 100000) {
      ctx.fault(FaultKind::StackOverflow, l, base,
                fmt::format("call to {} needs {} bytes of stack beyond the {}-byte per-thread stack", f.name,
                            base + f.local_frame - ctx.w.local_size, ctx.w.local_size));
      return;
    }
    ctx.w.local_base[l] = base;
    ctx.w.calls[l].push_back(std::move(fr));
    ctx.w.pc[l] = f.entry_pc;
  }
  ctx.redirected |= mask;
}

void exec_call(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const CallSite& cs = ctx.prog.call_sites[in.target];
  if (cs.builtin != CallSite::None) return exec_builtin(ctx, in, cs, mask);
  if (cs.callee != ~0u) return do_call(ctx, in, cs, cs.callee, mask);
  // Indirect: lanes may call different functions; group them by target.
  const uint64_t* t = ctx.src(in.op[0]);
  uint32_t left = mask;
  while (left) {
    unsigned l0 = unsigned(std::countr_zero(left));
    uint64_t target = t[l0];
    uint32_t same = 0;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if ((left >> l & 1) && t[l] == target) same |= 1u << l;
    left &= ~same;
    uint64_t idx = target - kFunctionBase;
    if (target < kFunctionBase || idx >= ctx.prog.funcs.size() || ctx.prog.funcs[idx].is_entry) {
      ctx.fault(FaultKind::IllegalAddress, l0, target, fmt::format("indirect call to 0x{:x}, which is not a function", target));
      return;
    }
    do_call(ctx, in, cs, uint32_t(idx), same);
    if (ctx.stop) return;
  }
}

uint32_t param_var_size(const Function& fn, const Operand& o) {
  if (o.kind == Operand::Kind::Symbol && o.sym == SymKind::LocalVariable)
    return uint32_t(fn.locals[o.sym_index].size_bytes());
  return 0;
}

// libcudadevrt's entry points that warpsim provides (the names nvcc's CDP2 code calls, and the
// CDP1-era ones).
CallSite::Builtin cdp_builtin(const std::string& name) {
  if (name == "__cudaCDP2GetParameterBufferV2" || name == "cudaGetParameterBufferV2") return CallSite::CdpBufferV2;
  if (name == "__cudaCDP2GetParameterBuffer" || name == "cudaGetParameterBuffer") return CallSite::CdpBufferV1;
  if (name == "__cudaCDP2LaunchDeviceV2" || name == "cudaLaunchDeviceV2") return CallSite::CdpLaunchV2;
  if (name == "__cudaCDP2LaunchDevice" || name == "cudaLaunchDevice") return CallSite::CdpLaunchV1;
  if (name == "__cudaCDP2StreamCreateWithFlags") return CallSite::CdpStreamCreate;
  if (name == "__cudaCDP2StreamDestroy" || name == "__cudaCDP2GetLastError" || name == "__cudaCDP2PeekAtLastError")
    return CallSite::CdpSuccess;
  if (name == "cudaGraphSetConditional") return CallSite::GraphSetConditional;
  return CallSite::None;
}

bool dec_call(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const auto& ops = ins.operands;
  size_t i = 0;
  CallSite cs;
  const Operand* rets = nullptr;
  if (i < ops.size() && ops[i].kind == Operand::Kind::CallList) rets = &ops[i++];
  if (i >= ops.size()) return c.fail("call without a target");
  const Operand& target = ops[i++];
  const Operand* args = nullptr;
  if (i < ops.size() && ops[i].kind == Operand::Kind::CallList) args = &ops[i++];
  auto param_ref = [&](const Operand& o, uint32_t& off, uint32_t& size) {
    MemRef r;
    Operand addr;
    addr.kind = Operand::Kind::Address;
    addr.elems.push_back(o);
    if (!c.mem(addr, r) || r.rel != MemRef::FuncParam)
      return c.fail(fmt::format("call argument '{}' must be a .param variable", o.name));
    off = uint32_t(r.offset);
    size = param_var_size(c.fn, o);
    return true;
  };
  if (rets) {
    if (rets->elems.size() > 1) return c.fail("calls with more than one return value are not supported");
    if (rets->elems.size() == 1 && !param_ref(rets->elems[0], cs.ret_off, cs.ret_size)) return false;
  }
  if (args)
    for (auto& a : args->elems) {
      uint32_t off, size;
      if (!param_ref(a, off, size)) return false;
      cs.args.emplace_back(off, size);
    }
  if (target.kind == Operand::Kind::Symbol && target.sym == SymKind::Function) {
    auto it = c.prog.module_symbols.find(target.name);
    if (it != c.prog.module_symbols.end() && it->second.space == SymbolAddr::Function) {
      cs.callee = uint32_t(it->second.addr);
    } else if (target.name == "vprintf") {
      cs.builtin = CallSite::Vprintf;
    } else if (target.name == "__assertfail") {
      cs.builtin = CallSite::AssertFail;
    } else if (target.name == "malloc" || target.name == "free") {
      cs.builtin = target.name == "malloc" ? CallSite::Malloc : CallSite::Free;
    } else if (CallSite::Builtin b = cdp_builtin(target.name); b != CallSite::None) {
      cs.builtin = b;
    } else if (target.name.rfind("__cudaCDP", 0) == 0 || target.name.rfind("cudaLaunchDevice", 0) == 0 ||
               target.name.rfind("cudaGetParameterBuffer", 0) == 0) {
      // The rest of libcudadevrt (device-side events, memory copies, ...) is not provided.
      return c.fail(fmt::format("call to '{}': this function of the device runtime (dynamic parallelism) is not "
                                "supported by warpsim; kernel launches, streams and error queries are", target.name));
    } else {
      return c.fail(fmt::format("call to '{}', which is declared but not defined in this module", target.name));
    }
  } else if (target.kind == Operand::Kind::Reg) {
    out.op[0] = c.ref(target, Type::U64);
    out.nops = 1;
  } else {
    return c.fail("unsupported call target");
  }
  out.target = uint32_t(c.prog.call_sites.size());
  c.prog.call_sites.push_back(std::move(cs));
  out.exec = exec_call;
  return true;
}

void exec_ret(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t exiting = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    if (ctx.w.calls.empty_at(l)) {
      exiting |= 1u << l;
      continue;
    }
    auto& stack = ctx.w.calls[l];
    CallFrame fr = std::move(stack.back());
    stack.pop_back();
    const DFunction& f = ctx.prog.funcs[fr.callee];
    uint8_t* p = lane_param(ctx, l);
    uint64_t retv[4] = {0, 0, 0, 0};
    uint32_t rsize = 0;
    if (fr.ret_param_off != ~0u && !f.ret_offsets.empty()) {
      rsize = std::min<uint32_t>({fr.ret_size, f.ret_sizes[0], 32});
      std::memcpy(retv, p + f.param_base + f.ret_offsets[0], rsize);
    }
    if (!fr.saved.empty()) {
      size_t k = 0;
      for (uint32_t s = 0; s < f.nregs; ++s) ctx.w.reg(f.reg_base + s)[l] = fr.saved[k++];
      uint64_t pbits = fr.saved[k++];
      for (uint32_t q = 0; q < f.npreds && q < 64; ++q) {
        uint32_t& pm = ctx.w.preds[f.pred_base + q];
        pm = (pm & ~(1u << l)) | (uint32_t(pbits >> q & 1) << l);
      }
      for (uint32_t o = 0; o < f.param_frame; o += 8) std::memcpy(p + f.param_base + o, &fr.saved[k++], 8);
    }
    if (rsize) std::memcpy(p + fr.ret_param_off, retv, rsize);
    ctx.w.local_base[l] = fr.local_base;
    ctx.w.pc[l] = fr.return_pc;
    ctx.redirected |= 1u << l;
  }
  if (exiting) lanes_exit(ctx, exiting);
  (void)in;
}

bool dec_ret(DecodeCtx&, const Instruction&, DInstr& out) {
  out.exec = exec_ret;
  return true;
}

void exec_exit(ExecCtx& ctx, const DInstr&, uint32_t mask) { lanes_exit(ctx, mask); }
bool dec_exit(DecodeCtx&, const Instruction&, DInstr& out) {
  out.exec = exec_exit;
  return true;
}

void exec_trap(ExecCtx& ctx, const DInstr&, uint32_t mask) {
  ctx.fault(FaultKind::Trap, unsigned(std::countr_zero(mask)), 0, "trap instruction executed");
}
bool dec_trap(DecodeCtx&, const Instruction&, DInstr& out) {
  out.exec = exec_trap;
  return true;
}

void exec_nop(ExecCtx&, const DInstr&, uint32_t) {}

// ---------------------------------------------------------------- CTA barriers

// bar{.cta}.sync/.red/.arrive and barrier.*.aligned require every thread of a warp to execute the
// same barrier instruction. Threads of one warp waiting at two different aligned barriers hang real
// hardware (they never combine); report that instead of completing the barrier.
bool aligned_ok(ExecCtx& ctx, uint32_t id) {
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (ctx.w.state[l] != LaneState::BarrierWait || ctx.w.wait_barrier[l] != id) continue;
    if (ctx.w.pc[l] == ctx.pc + 1) continue;
    ctx.fault(FaultKind::Deadlock, unsigned(std::countr_zero(ctx.group)), 0,
              fmt::format("threads of warp {} wait at two different aligned barriers for barrier {} (code {} and {}); "
                          "bar.sync / __syncthreads() is .aligned: every thread of a warp must reach the same "
                          "instruction, otherwise the hardware hangs. Use barrier.sync (cooperative_groups "
                          "this_thread_block().sync() / __barrier_sync) for divergent code",
                          ctx.w.id, id, ctx.w.pc[l] - 1, ctx.pc));
    return false;
  }
  return true;
}

// barrier.cluster.arrive (PTX ISA 9.7.13.2): the lanes arrive at the cluster barrier's current
// phase; the phase completes when every live thread of the cluster has arrived, and the threads
// waiting in barrier.cluster.wait go on.
void exec_cluster_arrive(ExecCtx& ctx, const DInstr&, uint32_t mask) {
  Cluster& cl = *ctx.cta.cluster;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    if (ctx.w.cluster_arrival[l]) {
      ctx.fault(FaultKind::IllegalInstruction, l, 0,
                "barrier.cluster.arrive by a thread whose previous arrive was not followed by barrier.cluster.wait");
      return;
    }
    ctx.w.cluster_arrival[l] = cl.phase + 1;
  }
  cl.arrived += uint32_t(std::popcount(mask));
  cluster_barrier_check(cl);
}

// barrier.cluster.wait: lanes whose arrive's phase has completed go on; the others wait, and run
// the instruction again when the phase completes (cluster_barrier_check wakes them).
void exec_cluster_wait(ExecCtx& ctx, const DInstr&, uint32_t mask) {
  const Cluster& cl = *ctx.cta.cluster;
  uint32_t wait = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    const uint32_t a = ctx.w.cluster_arrival[l];
    if (!a) {
      ctx.fault(FaultKind::IllegalInstruction, l, 0,
                "barrier.cluster.wait by a thread that has not arrived at the cluster barrier (barrier.cluster.arrive)");
      return;
    }
    if (a <= cl.phase) ctx.w.cluster_arrival[l] = 0;
    else wait |= 1u << l;
  }
  for (uint32_t m = wait; m; m &= m - 1) ctx.w.state[std::countr_zero(m)] = LaneState::ClusterWait;
  ctx.blocked |= wait;  // pc stays
}

// flags: bit0 wait (sync) vs arrive; bit1 has count; bit3 aligned; bits 4-5 red op (1 popc, 2 and, 3 or)
void exec_bar(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  unsigned l0 = unsigned(std::countr_zero(mask));
  uint32_t red_op = (in.flags >> 4) & 3;
  size_t a = red_op ? 1 : 0;  // bar.red has a destination first
  uint32_t id = uint32_t(ctx.src(ops[a])[l0]);
  uint32_t count = 0;
  if (in.flags & 2) {
    count = uint32_t(ctx.src(ops[a + 1])[l0]);
    if (count == 0 || count % kWarpSize || count > ctx.cta.nthreads + kWarpSize) {
      ctx.fault(FaultKind::IllegalInstruction, l0, 0,
                fmt::format("barrier thread count {} must be a positive multiple of the warp size", count));
      return;
    }
  }
  if ((in.flags & 8) && !aligned_ok(ctx, id)) return;
  if (red_op) {
    BarrierRed r{uint8_t(red_op - 1), ctx.pred(ops[in.nops - 1]), ops[0]};
    barrier_arrive(ctx, id, count, mask, true, &r);
    return;
  }
  barrier_arrive(ctx, id, count, mask, in.flags & 1);
}

}  // namespace

void exec_bar_warp(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  uint32_t members = uint32_t(ctx.src(in.op[0])[std::countr_zero(mask)]);
  if ((members & mask) != mask) {
    ctx.fault(FaultKind::IllegalInstruction, unsigned(std::countr_zero(mask & ~members)), members,
              fmt::format("bar.warp.sync executed by a thread outside its member mask 0x{:08x}", members));
    return;
  }
  // From sm_70 on, the threads of a warp may meet at different bar.warp.sync instructions: each
  // waits "until all threads corresponding to membermask have executed a bar.warp.sync with the
  // same membermask" (PTX ISA, bar.warp.sync). cuSPARSE's csrmm_v3 kernel (SpMM CSR_ALG3) and
  // cuBLAS's getrf_kernelWarp (getrfBatched below 32 rows) sync the warp on two paths of a branch.
  // Members already waiting at another bar.warp.sync with this mask have arrived: they and these
  // lanes pass together. Otherwise these lanes wait here (their pc stays) for the others.
  Warp& w = ctx.w;
  const uint32_t missing = members & w.valid & ~w.lanes_in(LaneState::Exited) & ~ctx.group;
  if (!missing) return;
  uint32_t elsewhere = 0;
  for (uint32_t m = missing; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    if (w.state[l] != LaneState::WarpSyncWait || w.pc[l] == ctx.pc || w.pc[l] >= ctx.prog.code.size()) continue;
    const DInstr& other = ctx.prog.code[w.pc[l]];
    if (other.exec == exec_bar_warp && uint32_t(ctx.src(other.op[0])[l]) == members) elsewhere |= 1u << l;
  }
  if (elsewhere == missing) {
    for (uint32_t m = elsewhere; m; m &= m - 1) {
      const unsigned l = unsigned(std::countr_zero(m));
      w.state[l] = LaneState::Ready;
      ++w.pc[l];
    }
    w.converged = false;
    ++w.wake_gen;
    return;
  }
  for (uint32_t m = mask; m; m &= m - 1) w.state[std::countr_zero(m)] = LaneState::WarpSyncWait;
  ctx.blocked |= mask;
}

namespace {

bool dec_bar(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (ins.has(Mod::warp)) {  // bar.warp.sync membermask (__syncwarp)
    if (ins.operands.size() != 1) return c.fail("bar.warp.sync takes one member mask");
    out.op[0] = c.ref(ins.operands[0], Type::B32);
    out.nops = 1;
    out.member_op = 0;
    out.exec = exec_bar_warp;
    return !out.op[0].is_none();
  }
  bool red = ins.has(Mod::red);
  bool arrive = ins.has(Mod::arrive);
  if (ins.op == Opcode::Barrier && ins.has(Mod::cluster)) {
    if (!ins.operands.empty()) return c.fail("barrier.cluster takes no operands");
    if (arrive == ins.has(Mod::wait)) return c.fail("barrier.cluster needs .arrive or .wait");
    // .aligned, .release/.relaxed and .acquire change nothing here: memory is coherent at once.
    out.exec = arrive ? exec_cluster_arrive : exec_cluster_wait;
    return true;
  }
  std::vector<Ref> refs;
  size_t first = 0;
  if (red) {
    uint32_t op = ins.has(Mod::popc) ? 1 : ins.has(Mod::and_) ? 2 : ins.has(Mod::or_) ? 3 : 0;
    if (!op) return c.fail("bar.red needs .popc, .and or .or");
    out.flags |= op << 4;
    const Operand& d = ins.operands[0];
    if (d.kind != Operand::Kind::Reg) return c.fail("bar.red destination must be a register");
    refs.push_back(c.ref(d, op == 1 ? Type::U32 : Type::Pred));
    first = 1;
  }
  size_t nargs = ins.operands.size() - first - (red ? 1 : 0);
  if (nargs < 1 || nargs > 2) return c.fail("bar takes a barrier id and an optional thread count");
  for (size_t i = first; i < ins.operands.size(); ++i) refs.push_back(c.ref(ins.operands[i], red && i + 1 == ins.operands.size() ? Type::Pred : Type::U32));
  if (nargs == 2) out.flags |= 2;
  if (!arrive) out.flags |= 1;
  // bar.* is always aligned; barrier.* only with .aligned
  if (ins.op == Opcode::Bar || ins.has(Mod::aligned)) out.flags |= 8;
  for (auto& r : refs)
    if (r.is_none()) return false;
  c.set_ops(out, refs);
  out.exec = exec_bar;
  return true;
}

}  // namespace

bool decode_nop(DecodeCtx&, const Instruction&, DInstr& out) {
  out.exec = exec_nop;
  return true;
}

namespace {
// mapa / getctarank (PTX ISA 9.7.9.20, 9.7.9.21). A shared::cluster address is the CTA's own
// shared::cta address or another rank's tagged one (state.hpp: kClusterRankShift); a generic one
// is that in the shared window. flags: 1 generic (else shared::cluster).
constexpr uint32_t kDsmemGeneric = 1, kDsmemRank = 2;  // kDsmemRank: getctarank

// The shared::cluster address a (or the generic address of one) of lane l: its offset and rank.
bool cluster_address(ExecCtx& ctx, const DInstr& in, unsigned l, uint64_t a, uint64_t& off, uint32_t& rank) {
  if (in.flags & kDsmemGeneric) {
    if (a < kSharedWindow || a - kSharedWindow >= kWindowSize) {
      ctx.fault(FaultKind::IllegalAddress, l, a,
                fmt::format("{} of generic address 0x{:x}, which is not in shared memory",
                            (in.flags & kDsmemRank) ? "getctarank" : "mapa", a));
      return false;
    }
    a -= kSharedWindow;
  }
  const uint64_t tag = a >> kClusterRankShift;
  off = a & kClusterOffsetMask;
  rank = tag ? uint32_t(tag - 1) : ctx.cta.cluster_rank;
  return true;
}

void exec_mapa(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  uint64_t* d = ctx.dst(ops[0]);
  const uint64_t* a = ctx.src(ops[1]);
  const uint64_t* b = ctx.src(ops[2]);
  const size_t n = ctx.cta.cluster ? ctx.cta.cluster->ctas.size() : 1;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint64_t off;
    uint32_t rank;
    if (!cluster_address(ctx, in, l, in.width == 32 ? uint32_t(a[l]) : a[l], off, rank)) return;
    const uint32_t target = uint32_t(b[l]);
    if (target >= n) {
      ctx.fault(FaultKind::IllegalInstruction, l, a[l],
                fmt::format("mapa to CTA rank {} of a cluster of {} CTAs", target, n));
      return;
    }
    const uint64_t r = cluster_shared_address(target, off);
    d[l] = canon((in.flags & kDsmemGeneric) ? kSharedWindow + r : r, in.width);
  }
}

void exec_getctarank(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  uint64_t* d = ctx.dst(ops[0]);
  const uint64_t* a = ctx.src(ops[1]);
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint64_t off;
    uint32_t rank;
    if (!cluster_address(ctx, in, l, in.width == 32 ? uint32_t(a[l]) : a[l], off, rank)) return;
    d[l] = rank;
  }
}

bool dec_dsmem(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const bool mapa = ins.op == Opcode::Mapa;
  const size_t nops = mapa ? 3 : 2;
  if (ins.operands.size() != nops) return c.fail(fmt::format("{} takes {} operands", opcode_name(ins.op), nops));
  const Type t = first_type(ins);
  if (t != Type::U32 && t != Type::U64 && t != Type::B32 && t != Type::B64)
    return c.fail(fmt::format("{} needs .u32 or .u64", opcode_name(ins.op)));
  if (!ins.has(Mod::shared_cluster)) out.flags |= kDsmemGeneric;
  out.width = uint8_t(type_bits(t));
  if (!mapa) out.flags |= kDsmemRank;
  std::vector<Ref> refs{c.ref(ins.operands[0], mapa ? t : Type::U32), c.ref(ins.operands[1], t)};
  if (mapa) refs.push_back(c.ref(ins.operands[2], Type::U32));
  for (const Ref& r : refs)
    if (r.is_none()) return false;
  if (refs[0].kind() != Ref::Reg) return c.fail(fmt::format("the {} destination must be a register", opcode_name(ins.op)));
  c.set_ops(out, refs);
  out.exec = mapa ? exec_mapa : exec_getctarank;
  return true;
}
}  // namespace

void register_control_ops() {
  register_decoder(Opcode::Bra, dec_bra);
  register_decoder(Opcode::BrxIdx, dec_brx);
  register_decoder(Opcode::Call, dec_call);
  register_decoder(Opcode::Ret, dec_ret);
  register_decoder(Opcode::Exit, dec_exit);
  register_decoder(Opcode::Trap, dec_trap);
  register_decoder(Opcode::Brkpt, dec_trap);
  register_decoder(Opcode::Membar, decode_nop);
  register_decoder(Opcode::Fence, decode_nop);
  register_decoder(Opcode::Nanosleep, decode_nop);
  register_decoder(Opcode::Pmevent, decode_nop);
  register_decoder(Opcode::Griddepcontrol, decode_nop);
  register_decoder(Opcode::Setmaxnreg, decode_nop);
  register_decoder(Opcode::Bar, dec_bar);
  register_decoder(Opcode::Barrier, dec_bar);
  register_decoder(Opcode::Mapa, dec_dsmem);
  register_decoder(Opcode::Getctarank, dec_dsmem);
}

}  // namespace warpsim::func
