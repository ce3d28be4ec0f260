// Instruction order as ptxas would issue it, for the part that matters most to timing: loads
// (ld, ldmatrix) hoisted, with the address arithmetic they need, above the independent arithmetic,
// mma and stores to other state spaces of their basic block, independent loads ahead of the loads
// whose addresses they produce, so that a warp has several loads in flight before it uses the
// first (nvcc emits PTX with each load next to its use; ptxas schedules the loads early in SASS,
// the next k-step's LDSM under the current HMMAs, a staging loop's LDGs above its STSs:
// docs/validation-workloads.md, "Load scheduling"). The engine decodes a function's instructions
// in this order; values are unchanged because only loads, plain stores and register-only
// arithmetic move, never across atomics, fences, barriers, control-flow or clock instructions,
// no access passes one it may alias, and every register dependency keeps its order.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.hpp"

namespace warpsim::func {

// The if-then and if-then-else regions ptxas turns into predicated code: a forward conditional
// branch around one straight-line body (`@p bra J; body; J:`) or two (`@p bra T; bra E; T: body1;
// bra J; E: body2; J:`, or `@p bra E; body1; bra J; E: body2; J:`) whose bodies hold a weak
// global load, no store to global or generic memory, and only instructions a load may pass
// (loads, stores to other spaces, register arithmetic), none of them already guarded or writing
// the branch's predicate, with labels that nothing else jumps to. The branches go; each body's
// instructions get the guard under which the branch would have run them. Values are unchanged
// (a guarded-off instruction does nothing, as the skipped one did); loads of consecutive regions
// then share one block and schedule_loads issues them together, as ptxas's SASS does: transpose's
// four `if (in bounds) tile[..] = in[..]` regions are four @!P LDG then four @!P STS, stencil's
// nine `inside ? __ldg(in[..]) : g_boundary` pairs @P LDG.CONSTANT / @!P LDG, dgemm's and
// sgemm_tiled's tile loads @!P LDG (validation/workloads/probes/ifconv_sm90_sass.txt). The
// regions the same SASS keeps as branches (BSSY/BRA, @P EXIT) have no global load (transpose's
// LDS + STG write-back) or store to global memory (the `if (row < M && col < N) C[..] = ..`
// epilogues). Returns false, leaving `out` alone, where f has no such region.
bool if_convert(const ptx::Function& f, ptx::Function& out);

// ptxas's calling convention for a device function that calls others (sm_90 SASS of device_calls'
// fib and tree_max_path, validation/workloads/probes/callframe_sm90_sass.txt): at entry it stores
// to a local-memory frame the return address (2 words), the convergence-barrier register where the
// function branches (BMOV.32.CLEAR R18, B6), and the callee-saved registers that carry values
// across its calls; before RET it loads them all back, and RET waits for the reloaded return
// address. The PTX shows none of it: this adds those STLs and LDLs (st.local / ld.local of a
// frame variable and two scratch registers; ret reads the first scratch register, the return
// address), so that their issue slots, the reload's latency and the local stores' traffic are
// simulated. Values are unchanged: the frame is a .local variable of its own that nothing else
// reads, the scratch registers are read by nothing else. The words of "values across its calls"
// are those of the registers whose first access after some call is a read and that are written
// before it: 2 for fib, 7 for tree_max_path, so 5 and 10 words, which ptxas -v reports (20- and
// 40-byte spills). Returns false, leaving `out` alone, where f is a kernel or makes no call.
bool add_call_frame(const ptx::Function& f, ptx::Function& out);

// ptxas's unrolling of a counted loop of unknown trip count (sm_90 SASS of sgemm_naive's k loop,
// validation/workloads/probes/unroll_sm90_sass.txt): the PTX loop, one block of 8 loads and 4 FMAs
// counting a register down by 4 to zero, becomes a loop of four copies of it, entered while more
// than 12 are left (`ISETP.GT.AND P1, PT, R4, 0xc`; 32 LDGs, 13 of them issued before the first
// FFMA waits, 13-16 outstanding at a time), followed by the remainder. The loads of later trips
// no longer all wait behind the FMA chain of earlier ones. This does the same to every loop whose body is one block of
// loads, plain stores and register arithmetic with a weak global load, whose `@p bra head` tests
// `setp.ne p, c, 0` of a counter stepped down once per trip by a constant, and which no
// `.pragma "nounroll"` marks: before the loop, `setp.gt q, c, (U-1)*step; @!q bra head`; then U
// copies of the body without their branches, `setp.gt q, c, (U-1)*step; @q bra copies;
// @!p bra exit`, then the original loop for the rest. Values are unchanged: with c > (U-1)*step
// none of the first U-1 exit tests the copies skip could succeed. The other loops ptxas unrolls so
// in the corpus: radix_sort's exclusive_scan (16 LDGs per trip) and tensor_gemm's mma_direct
// (4 HMMAs per trip; probes/unroll_sm90_sass.txt).
// Registers the body writes before it reads them get fresh names in turn (enough sets for
// kLoadsInFlight loads of the copies to be in flight, as ptxas's register allocation allows;
// the last copy keeps the original names), so that schedule_loads moves later copies' loads up.
// Returns false, leaving `out` alone, where f has no such loop.
inline constexpr uint32_t kPtxasLoopUnroll = 4;
inline constexpr uint32_t kLoadsInFlight = 16;
bool unroll_loops(const ptx::Function& f, ptx::Function& out);

// The labels a branch or a branch-target list names (the others do not start a basic block).
std::vector<bool> referenced_labels(const ptx::Function& f);

// A permutation of f.instrs: order[k] is the instruction placed at position k. Positions of
// referenced labels and block boundaries (branches, calls, returns, barriers) are unchanged.
std::vector<uint32_t> schedule_loads(const ptx::Function& f);

}  // namespace warpsim::func
