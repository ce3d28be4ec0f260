// What an instruction handler sees while it runs: the warp's registers, the CTA, the launch, memory,
// and the ways it can redirect control or report a fault. Handlers are written as loops over the 32
// lanes of a warp so the compiler can vectorise them; the helpers below keep those loops short.
#pragma once

#include <cstring>
#include <string>

#include "func/state.hpp"
#include "mem/device_memory.hpp"

namespace warpsim::func {

struct ExecCtx {
  const Program& prog;
  LaunchState& launch;
  Cta& cta;
  Warp& w;
  uint32_t pc = 0;        // pc of the executing instruction
  uint32_t group = 0;     // lanes of the executing group (guard not applied)

  // Control outputs, applied by the engine after the handler returns. By default every lane of
  // the group moves to pc + 1.
  uint32_t redirected = 0;   // lanes whose pc the handler set itself (w.pc[l])
  uint32_t blocked = 0;      // lanes that now wait (w.state set by the handler)
  bool stop = false;         // the kernel faulted

  // ---- operands
  uint64_t* dst(Ref r) { return w.reg(r.index()); }
  const uint64_t* src(Ref r) const {
    return r.kind() == Ref::Const ? &prog.consts[size_t(r.index()) * kWarpSize]
                                  : w.reg(r.index());
  }
  uint32_t pred(Ref r) const {
    uint32_t v = w.preds[r.index()];
    return r.negated() ? ~v : v;
  }
  void set_pred(Ref r, uint32_t value, uint32_t mask) {
    uint32_t& p = w.preds[r.index()];
    p = (p & ~mask) | (value & mask);
  }
  const Ref* ops(const DInstr& in) const { return prog.operands(in); }

  // ---- faults: the first one wins; the engine stops the kernel.
  void fault(FaultKind k, unsigned lane, uint64_t addr, std::string msg);
  Dim3 thread_of(unsigned lane) const;
};

// Scheduling services the engine provides to control-flow handlers (engine.cpp).
void lanes_exit(ExecCtx& ctx, uint32_t mask);                 // threads finish
// Completes the cluster barrier's phase if every live thread of the cluster has arrived, waking
// the threads waiting for it in every CTA of the cluster.
void cluster_barrier_check(Cluster& cl);
// Threads arrive at CTA barrier `id`; `wait` blocks them until it completes. expected == 0: all
// live threads of the CTA. Returns false (after reporting a fault) on a malformed barrier.
// `red` (optional) adds the arriving lanes' predicate values to a bar.red reduction whose result is
// written to `red->dst` of the waiting lanes on release.
struct BarrierRed {
  uint8_t op;        // 0 popc, 1 and, 2 or
  uint32_t values;   // predicate per lane
  Ref dst;
};
bool barrier_arrive(ExecCtx& ctx, uint32_t id, uint32_t expected, uint32_t mask, bool wait,
                    const BarrierRed* red = nullptr);
// Warp-synchronous instructions (shfl.sync, vote.sync, bar.warp.sync, ...): true when every live
// lane of `members` is in the executing group; otherwise the group waits for the others (the
// handler must return without doing anything) and false is returned.
bool warp_sync(ExecCtx& ctx, uint32_t members);
// bar.warp.sync's handler: the engine lets it find its waiting members itself, since from sm_70 on
// they may wait at another bar.warp.sync (ops_control.cpp).
void exec_bar_warp(ExecCtx& ctx, const DInstr& in, uint32_t mask);
// Keeps a narrower-than-64-bit value canonical (zero-extended) in a 64-bit register slot.
inline uint64_t canon(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }

// d[l] = f(l) for the lanes in mask; other lanes keep their value. Written as compute-then-blend so
// the loop vectorises.
template <typename F>
inline void for_lanes(uint64_t* d, uint32_t mask, F&& f) {
  for (unsigned l = 0; l < kWarpSize; ++l) {
    uint64_t r = f(l);
    d[l] = (mask >> l & 1) ? r : d[l];
  }
}

template <typename T>
inline T as(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) {
    float f;
    uint32_t u = uint32_t(v);
    std::memcpy(&f, &u, 4);
    return f;
  } else if constexpr (std::is_same_v<T, double>) {
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  } else {
    return T(v);
  }
}

template <typename T>
inline uint64_t bits(T v) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    return u;
  } else if constexpr (std::is_signed_v<T>) {
    // keep registers canonical: a value narrower than 64 bits is stored zero-extended
    using U = std::make_unsigned_t<T>;
    return uint64_t(U(v));
  } else {
    return uint64_t(v);
  }
}

}  // namespace warpsim::func
