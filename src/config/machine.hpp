// A simulated machine as data: everything the timing model and the runtime need to know about one
// GPU, loaded from configs/<name>.toml (config.cpp). Every field is required in the TOML unless it
// says otherwise; the TOML carries the source of each value in a comment next to it.
//
// Units: cycles are SM (shader) clock cycles unless a name says otherwise; sizes are bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::config {

// The execution pipes of a sub-core (processing block). A warp instruction occupies its pipe for
// ceil(32 / lanes) cycles (times its `issue` count), so a 16-lane FP32 pipe takes a warp
// instruction every 2 cycles. `mio` is shared by the SM's sub-cores (shared memory, shuffles,
// special registers, mbarriers: the MIO queue in front of the L1/shared unit); `lsu` is the
// SM's path to L1TEX (global, local, texture, global atomics).
enum class Pipe : uint8_t { Fma, Alu, Fp16, Fp64, Mufu, Tensor, Branch, Mio, Lsu, Count };
constexpr unsigned kPipeCount = unsigned(Pipe::Count);
const char* pipe_name(Pipe p);  // "fma", "alu", ...; the TOML keys of [sm.pipes]

// Instruction classes: how the timing model sees a PTX instruction (timing/op_class.cpp maps
// every opcode/type to one). The TOML keys of [ops] are these names.
enum class OpClass : uint8_t {
  Fp32,       // add/sub/mul/fma/mad/min/max/abs/neg/setp .f32, selp.f32 (FFMA class)
  Fp16,       // .f16/.f16x2/.bf16/.bf16x2 arithmetic (HFMA2 class)
  Fp64,       // .f64 add/mul/fma/min/max/setp (DFMA class)
  Int,        // integer add/sub/logic/shift/min/max/setp/selp/mov/prmt/bfe/bfi/lop3 (IADD3/LOP3 class)
  Imad,       // mul.lo/mad.lo .32, mul24/mad24 (IMAD)
  IntWide,    // mul.wide, mul.hi, 64-bit mul/mad (IMAD.WIDE / IMAD.HI pairs)
  BitCount,   // popc, clz, brev, bfind (16 lanes per SM on cc 8.0)
  Mufu,       // ex2/lg2/sin/cos/rsqrt/rcp/sqrt/tanh .approx (SFU)
  Conv,       // cvt between float and int, to/from f64 (XU class conversions)
  Fdiv,       // div.rn/.rz/.rm/.rp .f32, rcp.rn .f32, sqrt.rn .f32 (~10 SASS: MUFU.RCP/RSQ, FFMA refinement, range check)
  FdivFull,   // div.full.f32 (MUFU.RCP and a few FMULs with range scaling, no refinement)
  FdivApprox, // div.approx.f32, sqrt.approx.f32 (one MUFU with range fix-ups around it)
  Fp64Div,    // div/rcp/sqrt .rn .f64
  IntDiv,     // div/rem .s32/.u32 (and narrower) by a register: I2F, MUFU.RCP, F2I, IMAD.HI corrections
  IntDivImm,  // div/rem .s32/.u32 by an immediate: IMAD.HI by a precomputed reciprocal, corrections
  IntDiv64,   // div/rem .s64/.u64 (a SASS subroutine, also for an immediate divisor)
  Shfl,       // shfl.sync
  Vote,       // vote, activemask (an ALU op on Volta+)
  Match,      // match.any/.all.sync
  Redux,      // redux.sync
  LdShared,   // ld.shared, ldmatrix
  StShared,   // st.shared, stmatrix
  AtomShared, // atom/red .shared
  LdGlobal,   // ld.global/generic, ldu, prefetch
  StGlobal,   // st.global/generic
  AtomGlobal, // atom/red .global/generic
  LdLocal,
  StLocal,
  LdConst,    // ld.const (constant-L1 hit; misses add [const_cache])
  LdParam,    // ld.param of a kernel parameter (a constant-bank operand in SASS)
  Tex,        // tex, tld4, suld/sust
  CpAsync,    // cp.async (global -> shared through L1TEX)
  Mbarrier,   // mbarrier.*, cp.async.commit/wait
  Tensor,     // mma.sync, wmma.mma (cycles from the shape and the tensor rates)
  Branch,     // bra, brx.idx
  Call,       // call, ret
  Exit,       // exit, trap
  Barrier,    // bar.sync/bar.arrive/bar.red/barrier.*
  Membar,     // membar/fence
  Sreg,       // mov from %tid/%clock/... (S2R/CS2R), nanosleep
  Nop,        // bar.warp.sync, pmevent, and anything the model treats as free
  Count
};
constexpr unsigned kOpClassCount = unsigned(OpClass::Count);
const char* op_class_name(OpClass c);  // "fp32", "fp16", ..., the TOML keys of [ops]

// Which scoreboard a result waits on, named as Nsight Compute names the stall: fixed-latency
// results (the compiler's wait counts) show as stall_wait, MIO results (shared memory, shuffles,
// MUFU) as stall_short_scoreboard, L1TEX results (global, local, texture) as stall_long_scoreboard.
enum class Scoreboard : uint8_t { Fixed, Short, Long };

struct OpTiming {
  Pipe pipe = Pipe::Alu;
  uint32_t latency = 4;  // issue to dependent issue, cycles
  uint32_t issue = 1;    // SASS instructions per PTX instruction (pipe occupancy multiplier)
  Scoreboard scoreboard = Scoreboard::Fixed;
};

enum class SchedulerPolicy : uint8_t { Gto, Lrr };
// SubCore: Volta and later, one scheduler per sub-core issuing one warp instruction per cycle.
// G80: one scheduler per SM issuing at half the SP clock; a warp instruction takes 4 SP cycles on
// 8 SPs (Tesla seed).
enum class IssueModel : uint8_t { SubCore, G80 };

// [dram]: the DRAM behind each memory controller (timing/dram/). A controller drives
// `channels_per_controller` channels of `pseudo_channels` pseudo-channels each; every pseudo-channel
// has its own banks (bank_groups x banks_per_group), command timing and data bus. Timings are in
// DRAM clocks of gpu.mem_clock_mhz (the command clock; data moves on both edges, so the peak
// bandwidth is gpu.mem_bus_bits / 8 x 2 x mem_clock). TOML keys: dram.<field>, and
// dram.timing.<field> for the timing members (dram.timing.nRCD, ...).
enum class DramPagePolicy : uint8_t { Open, Closed };
enum class DramRefresh : uint8_t { AllBank, PerBank, None };
struct DramConfig {
  uint32_t controllers = 0;              // memory controllers (address space split over them)
  uint32_t channels_per_controller = 0;
  uint32_t pseudo_channels = 1;          // per channel (HBM2 pseudo-channel mode: 2; GDDR: 1)
  uint32_t bank_groups = 1;              // per pseudo-channel (1: no bank groups)
  uint32_t banks_per_group = 0;
  uint32_t rows = 0;                     // per bank
  uint32_t row_bytes = 0;                // a row (page) of one pseudo-channel's bank; columns = row_bytes / access_bytes
  uint32_t access_bytes = 32;            // one column access (one burst) = bus_bits_per_pseudo_channel / 8 x burst_length
  uint32_t bus_bits_per_pseudo_channel = 0;
  uint32_t burst_length = 4;             // beats per access; the data bus is busy burst_length / 2 clocks (DDR)
  uint32_t interleave_bytes = 256;       // granule of consecutive bytes on one pseudo-channel
  uint32_t read_queue = 0, write_queue = 0;  // request entries per controller
  uint32_t write_high_watermark = 0;     // queued writes of one pseudo-channel that start a write drain
  uint32_t write_low_watermark = 0;      // ... and end it
  uint32_t write_max_wait = 0;           // DRAM clocks a write may wait behind reads before it is served anyway
  uint32_t row_hit_cap = 0;              // row hits that may bypass an older request to another row of the same bank
  DramPagePolicy page_policy = DramPagePolicy::Open;
  DramRefresh refresh = DramRefresh::AllBank;
  struct Timing {                        // DRAM clocks
    uint32_t nRCD = 0;    // ACT -> RD/WR, same bank
    uint32_t nRP = 0;     // PRE -> ACT, same bank
    uint32_t nRAS = 0;    // ACT -> PRE, same bank (tRC = nRAS + nRP)
    uint32_t nCL = 0;     // RD -> first data (read latency)
    uint32_t nCWL = 0;    // WR -> first data (write latency)
    uint32_t nRTP = 0;    // RD -> PRE
    uint32_t nWR = 0;     // end of write data -> PRE (write recovery)
    uint32_t nCCD_S = 0;  // RD->RD / WR->WR, different bank groups
    uint32_t nCCD_L = 0;  // ... same bank group
    uint32_t nRRD_S = 0;  // ACT -> ACT, different bank groups
    uint32_t nRRD_L = 0;  // ... same bank group
    uint32_t nFAW = 0;    // at most 4 ACTs per pseudo-channel in this window (0: no limit)
    uint32_t nWTR_S = 0;  // end of write data -> RD, different bank groups
    uint32_t nWTR_L = 0;  // ... same bank group
    uint32_t nRTW = 0;    // RD -> WR (bus turnaround)
    uint32_t nRFC = 0;    // all-bank REF -> ACT
    uint32_t nRFCsb = 0;  // per-bank REF -> ACT of that bank
    uint32_t nREFI = 0;   // refresh interval (all-bank: per REF; per-bank: nREFI / banks per REFsb)
  } timing;
};

struct Machine {
  // [gpu]
  std::string name;          // e.g. "NVIDIA A100-SXM4-40GB"
  std::string key;           // the --gpu name, e.g. "a100"
  int cc_major = 8, cc_minor = 0;
  std::string ptx_target;    // preferred PTX/cubin target, e.g. "sm_80"
  uint32_t gpcs = 0;
  std::vector<uint32_t> tpcs_per_gpc;  // length gpcs; sum * sms_per_tpc = sms
  uint32_t sms_per_tpc = 2;
  // Thread-block clusters (sm_90; optional, empty/0 elsewhere): the groups of SMs one cluster's
  // CTAs may spread over (each on its own SM) as the cluster occupancy query counts them, and the
  // most CTAs per SM it counts; empty: the GPCs, 0: no limit beyond occupancy.
  std::vector<uint32_t> cluster_sm_groups;
  uint32_t cluster_ctas_per_sm = 0;
  uint32_t sms = 0;
  double sm_clock_mhz = 0;   // boost clock: cycles -> time
  double mem_clock_mhz = 0;
  uint32_t mem_bus_bits = 0;
  uint64_t global_mem_bytes = 0;
  uint64_t l2_bytes = 0;
  uint64_t persisting_l2_max_bytes = 0;
  uint64_t access_policy_max_window_bytes = 0;  // cudaDevAttrMaxAccessPolicyWindowSize
  uint64_t const_mem_bytes = 65536;
  std::array<uint32_t, 3> max_block_dim{1024, 1024, 64};          // CTA dimension limits (x, y, z)
  std::array<uint32_t, 3> max_grid_dim{2147483647u, 65535, 65535};  // grid dimension limits (x, y, z)

  // [sm]
  IssueModel issue_model = IssueModel::SubCore;
  uint32_t sub_cores = 4;              // processing blocks, one warp scheduler each
  uint32_t max_warps = 64;             // resident warps per SM
  uint32_t max_threads = 2048;
  uint32_t max_ctas = 32;
  uint32_t max_threads_per_cta = 1024;
  uint32_t registers = 65536;          // 32-bit registers per SM
  uint32_t max_regs_per_thread = 255;
  uint32_t max_regs_per_cta = 65536;   // 32-bit registers one CTA may use
  uint32_t reg_alloc_unit = 256;       // registers per warp are allocated in units of this
  uint32_t l1_shared_bytes = 0;        // unified L1 + shared capacity
  std::vector<uint32_t> shared_carveouts_kb;  // allowed shared-memory carve-outs, ascending
  uint32_t max_shared_per_sm = 0;      // the largest carve-out, bytes (derived by the loader, no TOML key)
  uint32_t max_shared_per_cta = 0;     // with opt-in
  uint32_t default_shared_per_cta = 48 * 1024;  // without opt-in
  uint32_t shared_alloc_unit = 128;
  uint32_t reserved_shared_per_cta = 0;  // runtime-reserved shared memory per CTA (1 KB on cc 8.x)
  // The driver's default carve-out: the smallest one holding max(resident CTAs x their shared
  // memory, min(resident CTAs x carveout_min_per_cta, carveout_min_cap)). Optional keys; 0 (the
  // default) leaves only the first term.
  uint32_t carveout_min_per_cta = 0;
  uint32_t carveout_min_cap = 0;
  SchedulerPolicy scheduler = SchedulerPolicy::Gto;
  // Independent thread scheduling (cc 7.0+): when one path of a diverged warp keeps branching
  // backwards (a spin loop) while another path waits, the other path runs after this many of its
  // backward branches (optional key sm.its_spin_yield).
  uint32_t its_spin_yield = 64;
  double issue_clock_ratio = 1.0;      // scheduler issues per SM cycle (G80: 0.5)
  std::array<uint32_t, kPipeCount> pipe_lanes{};  // lanes per sub-core ([sm.pipes]); mio/lsu per SM
  uint32_t scoreboard_entries = 64;    // outstanding register writes per warp before it stalls
  uint32_t mio_queue = 0;              // instructions the SM-wide units (mio, lsu) take ahead of the one they work on

  // [sm.icache]
  uint32_t instr_bytes = 16;           // bytes per (SASS) instruction, for instruction-cache footprint
  uint32_t l0i_bytes = 0;              // per sub-core L0 instruction cache
  uint32_t l1i_bytes = 0;              // per SM L1 instruction cache
  uint32_t icache_line = 128;
  uint32_t l0i_assoc = 4, l1i_assoc = 4;
  uint32_t l0i_miss_latency = 0;       // an L0 miss that hits L1I, cycles
  uint32_t l1i_miss_latency = 0;       // an L1I miss (served by L2), cycles
  uint32_t l1i_prefetch_lines = 0;     // lines past a warp's fetch line its sub-core keeps requested (0: no prefetch)
  uint32_t l1i_fill_interval = 0;      // cycles between two lines arriving from L2 at an SM's L1I (0: no limit)

  // Integer arithmetic (ops.int, ops.imad) may issue to the FMA pipe when the ALU pipe is busy:
  // ptxas spreads it over both as IMAD.MOV/IMAD.IADD/IMAD.SHL/VIADD (FMA-heavy) and IADD3/LOP3 (ALU).
  bool int_on_fma_pipe = false;

  // [sm.latency]: fixed latencies not tied to an op class
  uint32_t barrier_latency = 0;        // last arrival at bar.sync to the waiting warps' next issue
  uint32_t branch_latency = 0;         // a taken or divergent branch to the warp's next issue
  uint32_t cta_launch_latency = 0;     // a CTA slot freed to the next CTA's first issue on that SM
  uint32_t kernel_launch_cycles = 0;   // launch overhead of a kernel (runtime + front end), cycles
  double cta_dispatch_interval = 0;    // the GPU's work distributor starts one CTA per this many SM cycles
                                       // (all SMs together; 0: no limit)
  uint32_t printf_latency = 0;         // a device printf (vprintf call) to the warp's next issue
  uint32_t membar_cta_latency = 0;     // a fence of CTA scope to the warp's next issue (0: ops.membar's latency)
  uint32_t barrier_divergent_latency = 0;  // lanes of a warp arriving at a non-.aligned barrier.sync while
                                           // others of it are elsewhere, to the warp's next issue

  // [mem]: shared-memory banking. Until the memory hierarchy (issue 6) exists, load/store latencies
  // are those of the memory op classes in [ops].
  uint32_t shared_banks = 32;
  uint32_t shared_bank_bytes = 4;

  // [l1]: the SM's L1 data cache (unified with shared memory: its capacity is l1_shared_bytes less
  // the kernel's shared-memory carve-out), its load/store unit and the path to the crossbar.
  struct L1 {
    uint32_t line = 128, sector = 32;   // bytes
    uint32_t assoc = 4;                 // ways (sets = capacity / line / assoc)
    // The load-to-use latency of an L1 hit is the [ops] latency of the load's class (ld_global,
    // ld_local, tex); a miss adds miss_latency and the levels below.
    uint32_t miss_latency = 0;          // L1 tag miss to the request leaving for the crossbar, cycles
    uint32_t tag_lookups_per_clk = 1;   // 128-B lines (t-stage lookups) per cycle
    uint32_t bytes_per_clk = 128;       // L1 data bandwidth per SM
    uint32_t max_outstanding = 0;       // line requests in flight to L2 per SM (miss status entries)
    uint32_t local_interleave = 4;      // bytes of a thread's local word before the next lane's
    // Global atomics: the L1 splits a warp's atomic into L2 requests (one per line per round of
    // distinct addresses); each occupies the LSU data pipe this many cycles, plus the return's.
    uint32_t atomic_request_cycles = 1;
    // LSU data-pipe cycles per sector of a store (its data leaves the SM a sector per cycle), on top
    // of one t-stage lookup per line; 0: stores cost what loads do
    uint32_t store_sector_cycles = 0;
    uint32_t atomic_return_cycles = 1;  // atom (result returned) only; red has none
  } l1;
  // [tlb]: address translation. A per-SM L1 TLB, an L2 TLB shared by a group of SMs (about half a
  // GPC on the A100, seeds/002), and the GMMU's page walkers behind it.
  struct Tlb {
    uint64_t page_bytes = 2u << 20;     // translation granularity (large pages of cudaMalloc)
    uint32_t l1_entries = 0, l1_assoc = 0;
    uint32_t l2_entries = 0, l2_assoc = 0;
    uint32_t groups_per_gpc = 1;        // L2 TLB groups per GPC (the GPC's TPCs split evenly, in order)
    uint32_t l2_latency = 0;            // extra cycles of an L1 TLB miss that hits the L2 TLB
    uint32_t walk_latency = 0;          // extra cycles of a page walk (L2 TLB miss)
    uint32_t walkers = 0;               // concurrent page walks per group
  } tlb;
  // [const_cache]: the SM's constant caches on the ld.const path (LDC in SASS): a small constant L1
  // and a larger L1.5 behind it; L1.5 misses fetch from L2 through the crossbar. A warp's ld.const
  // is split into one request per distinct address, served address_cycles apart. With enabled = false an
  // ld.const costs the fixed [ops] ld_const latency and pipe time (the model before the caches).
  struct ConstCache {
    bool enabled = false;
    uint32_t l1_bytes = 0;              // per SM
    uint32_t l1_line = 64;
    uint32_t l1_assoc = 4;
    uint32_t l15_bytes = 0;             // per SM
    uint32_t l15_line = 256;            // also the amount an L1.5 miss fetches from L2
    uint32_t l15_assoc = 4;
    // The load-to-use latency of a constant-L1 hit is the [ops] ld_const latency.
    uint32_t l15_latency = 0;           // load-to-use of an L1 miss that hits the L1.5, cycles
    uint32_t miss_latency = 0;          // issue to an L1.5 miss's request leaving for the crossbar, cycles
    uint32_t address_cycles = 1;        // cycles the unit spends per distinct address of a warp's request
  } const_cache;
  // [tma]: the SM's bulk-copy unit (sm_90's TMA, here its non-tensor cp.async.bulk forms). A copy
  // is one job of the unit: it starts issue_latency after the instruction and no sooner than
  // copy_cycles after the issuing warp's previous copy started; a global -> shared copy sends its lines
  // to L2 at bytes_per_clk (line reads, answered like an L1 miss's but without the L1), and its
  // mbarrier's transaction count completes complete_latency after the last line is back; a shared
  // -> global copy reads shared memory at store_bytes_per_clk and sends its lines as writes, and its
  // bulk group is complete (wait_group and wait_group.read alike) when the last line has left. With
  // enabled = false a bulk copy costs its instruction only (no traffic, no wait).
  struct Tma {
    bool enabled = false;
    uint32_t issue_latency = 0;         // cycles from the copy's issue to the unit starting it
    uint32_t copy_cycles = 1;           // a warp's copies start at most one per this many cycles
    uint32_t bytes_per_clk = 1;         // global -> shared: line requests per cycle, in bytes
    uint32_t store_bytes_per_clk = 1;   // shared -> global (and shared -> shared): bytes read per cycle
    uint32_t complete_latency = 0;      // last data in to the mbarrier's transaction count seeing it
    // A warp's mbarrier test_wait/try_wait is not satisfied before wait_after_copy cycles after the
    // warp's most recent global -> shared bulk copy issued (0: no such rule; a rule fitted to the
    // H100's single-thread streams, docs/validation-mem.md "Bulk copies").
    uint32_t wait_after_copy = 0;
  } tma;
  // [cluster] (sm_90, optional): thread-block clusters in the timing model. A cluster barrier phase
  // releases its waiters (barrier.cluster.wait) barrier_latency + barrier_cycles_per_cta x (CTAs in
  // the cluster) cycles after its last arrival. An access to another CTA's shared memory (DSMEM)
  // crosses the SM-to-SM network: a load's data is back dsmem_latency cycles after its bytes have
  // left the SM's network port, which moves dsmem_bytes_per_clk; a store or remote mbarrier arrive
  // is seen by the other CTA dsmem_latency / 2 cycles after it left. All 0: clusters cost what
  // their instructions do on one SM.
  struct Cluster {
    uint32_t barrier_latency = 0;
    double barrier_cycles_per_cta = 0;
    uint32_t dsmem_latency = 0;
    double dsmem_bytes_per_clk = 0;  // 0: no bandwidth limit
  } cluster;
  // [xbar]: the crossbar between GPCs and L2 slices.
  struct Xbar {
    uint32_t latency = 0;               // one way, cycles
    uint32_t gpc_bytes_per_clk = 0;     // per GPC port, each direction
    uint32_t slice_bytes_per_clk = 0;   // per L2 slice port, each direction
    uint32_t header_bytes = 0;          // a request without data (read) costs this much of a port
  } xbar;
  // [l2]: the L2 cache, in partitions of slices; each slice fronts one memory controller's share.
  // gpu.l2_bytes = 0 means no L2 for global memory (G80): requests go straight to DRAM.
  struct L2 {
    uint32_t partitions = 1;            // L2 halves; SMs reach the far one through an extra hop
    uint32_t slices = 0;                // total (a multiple of partitions and of dram.controllers)
    uint32_t line = 128, sector = 32;
    uint32_t assoc = 16;
    uint32_t hit_latency = 0;           // slice tag + data, cycles (SM load-to-use adds l1 + xbar)
    uint32_t far_latency = 0;           // extra cycles of a near-partition miss that looks in the far one
    bool far_demote = false;            // a far hit copied to the near partition leaves its far copy least recently used (optional key l2.far_copy = "demote"; default "keep")
    bool even_map = false;              // optional key l2.set_mapping: "hash" (default; slice and set are independent hashes of the line) or "even" (one line of every run of slices-per-partition lines in each slice, one line of every run of sets lines of a slice in each set, each run rotated by a hash: a contiguous range loads slices and sets evenly)
    uint32_t dram_latency = 0;          // fixed cycles L2 -> memory controller -> L2, besides DRAM timing
    uint32_t bytes_per_clk = 0;         // data per slice per cycle
    uint32_t clock_mhz = 0;             // the slices' clock (0: the SM clock); tag lookups and the atomic unit count in it
    uint32_t atomic_sectors_per_clk = 1;  // per slice and L2 clock: sectors an atomic unit updates
    uint32_t fetch_sectors = 1;         // optional: a read miss fetches the aligned group of this many sectors around each missing one (H100: 2, a 64-B DRAM read)
    uint32_t max_outstanding = 0;       // DRAM transactions (fills, write-backs) in flight per slice; at the limit it takes no new requests
  } l2;
  // [pcie]: the host link (cudaMemcpy between host and device).
  struct Pcie {
    double gbytes_per_s = 0;            // each direction, sustained
    double latency_us = 0;              // per transfer
  } pcie;

  // [dram]
  DramConfig dram;

  // [tensor]: dense FMA per clock per tensor core, by input type (sparse doubles them)
  uint32_t tensor_cores_per_sm = 4;
  uint32_t tensor_fma_f16 = 0, tensor_fma_tf32 = 0, tensor_fma_f64 = 0, tensor_fma_i8 = 0,
           tensor_fma_i4 = 0, tensor_fma_b1 = 0;
  uint32_t tensor_latency = 0;         // extra cycles from the last pipe cycle to the result
  uint32_t tensor_sync_overhead = 0;   // pipe cycles an mma.sync / wmma.mma adds to its shape's (not wgmma)
  // wgmma.mma_async: cycles from its last pipe cycle to done (tensor.wgmma_latency, default
  // tensor.latency), plus N / wgmma_n_per_cycle for writing back an m64nN result (0: none).
  uint32_t tensor_wgmma_latency = 0, tensor_wgmma_n_per_cycle = 0;
  // Input types the tensor cores lack, which ptxas emulates with a called subroutine per mma
  // (sm_90: .s4, .u4 and .b1 xor.popc; optional keys tensor.<type>_emulation_latency / _cycles):
  // the mma's result latency, during which its warp issues nothing else, and the issue cycles of
  // its sub-core it takes, both for the shape measured (m16n8k64; b1: m16n8k256) and scaled by
  // multiply-accumulates for others. 0: native (the rate above applies).
  struct MmaEmulation {
    uint32_t latency = 0, cycles = 0;
  };
  MmaEmulation tensor_emulated_s4, tensor_emulated_u4, tensor_emulated_b1_xor;

  // [ops]
  std::array<OpTiming, kOpClassCount> ops{};

  // Derived, filled by the loader.
  uint32_t shared_per_sm() const { return max_shared_per_sm; }
};

}  // namespace warpsim::config
