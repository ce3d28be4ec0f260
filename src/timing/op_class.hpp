// How the timing model sees each decoded instruction: its class (and so its pipe, latency and
// scoreboard), how long it occupies its pipe, and which registers it reads and writes. Computed
// once per loaded program and machine, indexed like Program::code.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "config/machine.hpp"
#include "func/program.hpp"

namespace warpsim::timing {

// A register dependency: a virtual register (DFunction::reg_ids), or a predicate (kPredBit | index).
constexpr uint32_t kPredBit = 0x80000000u;

struct InstrTiming {
  config::OpClass cls = config::OpClass::Nop;
  config::Pipe pipe = config::Pipe::Alu;
  config::Scoreboard sb = config::Scoreboard::Fixed;
  uint32_t latency = 1;      // issue to the cycle a dependent may issue
  uint32_t pipe_cycles = 1;  // cycles the pipe stays busy (sub-core pipes) or the SM unit (mio/lsu)
  uint8_t bytes = 0;         // memory access bytes per lane (for MIO/LSU wavefronts)
  uint8_t mem = 0;           // MemFlag bits: how a global/local access uses the caches
  uint8_t wait_groups = 0;   // cp.async.wait_group N: the N newest groups may stay in flight
  uint8_t bulk = 0;          // BulkFlag bits: cp.async.bulk and its bulk-group commit/wait
  uint8_t wgmma = 0;         // WgmmaFlag bits: wgmma.mma_async and its group commit/wait
  uint8_t cluster = 0;       // ClusterFlag bits: barrier.cluster.arrive / .wait
  bool aggregated = false;   // an integer atomic add to a warp-uniform address: ptxas reduces the warp's lanes to one request
  uint32_t hold = 0;         // cycles the warp waits after issuing it (a device printf: sm.latency.printf)
  uint8_t nsrc = 0, ndst = 0;
  static constexpr unsigned kMaxDeps = 24;
  std::array<uint32_t, kMaxDeps> src{}, dst{};
};

// How a memory instruction treats the caches (from its .ca/.cg/.cs/.lu/.cv/.nc, .volatile and
// eviction-priority qualifiers; PTX ISA "Cache operators").
enum MemFlag : uint8_t {
  kMemL1Lookup = 1,    // looks in L1 (.ca, .nc, .lu, .cs, default loads)
  kMemL1Allocate = 2,  // fills L1 on a miss
  kMemEvictFirst = 4,  // streaming: inserted as the next victim (.cs, .lu, evict_first)
  kMemAsyncWait = 8,   // cp.async.wait_group / wait_all: waits for the warp's cp.async copies
  kMemReturns = 16,    // an atomic that returns a value (atom, not red)
  kMemAsyncCommit = 32,   // cp.async.commit_group (and wait_all, which commits first)
  kMemAsyncArrive = 64,   // cp.async.mbarrier.arrive: the mbarrier waits for the warp's copies
  kMemBarrierWait = 128,  // mbarrier.test_wait/try_wait: the result waits for linked copies
};

// sm_90 bulk copies (cp.async.bulk) and their bulk groups, timed by the SM's TMA unit (Sm::bulk_issue).
enum BulkFlag : uint8_t {
  kBulkCopy = 1,      // cp.async.bulk (the direction comes from its trace: global side read or written)
  kBulkCommit = 2,    // cp.async.bulk.commit_group
  kBulkWait = 4,      // cp.async.bulk.wait_group N (N in wait_groups)
  kBulkWaitRead = 8,  // cp.async.bulk.wait_group.read N: only the sources must have been read
};

// sm_90 thread-block clusters: the cluster barrier's two halves (Sm::cluster_effects).
enum ClusterFlag : uint8_t {
  kClusterArrive = 1,  // barrier.cluster.arrive
  kClusterWait = 2,    // barrier.cluster.wait: held until the phase's release
};

// sm_90a warpgroup MMAs (Sm::wgmma_issue): asynchronous, tracked in groups like cp.async.
enum WgmmaFlag : uint8_t {
  kWgmmaMma = 1,     // wgmma.mma_async: joins the warp's open group, done `latency` cycles after issue
  kWgmmaCommit = 2,  // wgmma.commit_group
  kWgmmaWait = 4,    // wgmma.wait_group N (N in wait_groups)
};

// Classifies every instruction of a decoded program for a machine.
std::vector<InstrTiming> classify_program(const func::Program& prog, const config::Machine& m);

// The op class of one PTX instruction (exposed for tests).
config::OpClass classify(const ptx::Instruction& ins);

}  // namespace warpsim::timing
