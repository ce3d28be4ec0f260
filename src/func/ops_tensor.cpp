// The tensor memory accelerator's tensor copies (PTX ISA 8.7: 9.7.9.25.5 cp.async.bulk.tensor,
// cp.reduce.async.bulk.tensor, cp.async.bulk.prefetch.tensor; 5.5 "Tensor Data Objects"), tiled
// mode, through a tensor map made by cuTensorMapEncodeTiled (func/tensor_map.hpp, read from the
// generic address the instruction names: a __grid_constant__ parameter, global or constant memory).
//
// A copy moves a bounding box: boxDim[d] elements from the coordinates of the instruction along
// each dimension d, stepping elementStrides[d] elements on dimensions above 0 (so it holds
// ceil(boxDim[d] / elementStrides[d]) of them; non-interleaved layouts have no stride on
// dimension 0). In shared memory the box is row-major (dimension 0 fastest), each row at least
// the swizzle span long, its bytes permuted by the map's swizzle mode (swizzle_address: the XOR of
// the 16-byte chunk index with shared-address bits 7 up; the destination is 128-byte aligned).
// Elements outside the tensor (a coordinate below 0 or at or past globalDim) are filled with zero
// on a load, or with the NaN-request constant for a float map with
// CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, and are dropped on a store or a reduction (at
// 16-byte-chunk granularity); a load's complete_tx counts the box's bytes. The rules the PTX ISA
// leaves open follow what the H100 does (tests/cudart/hopper_tma.cu): the row padding, the fill
// constant, the chunk-granular clipping, and the faults for a box starting inside a 16-byte chunk
// of dimension 0 or a store or reduction at a negative coordinate. As for the
// non-tensor bulk copies (ops_async.cpp) the copy is done when it issues; in timing mode its global
// side is traced as one access per box row's in-bounds run (split at 4 KiB), reads for a load or a
// prefetch, writes for a store or a reduction, and a load's mbarrier as the one shared write, which
// the SM's TMA unit (Sm::bulk_issue) turns into lines, time and traffic.
//
// tensormap.replace and tensormap.cp_fenceproxy rewrite and publish a map (below).
//
// A load with .multicast::cluster writes the box to the same offset of every CTA of the cluster its
// ctaMask names and signals each one's mbarrier (the global side is read and traced once).
//
// Not modelled: im2col mode, interleaved layouts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/fp_util.hpp"
#include "func/memory_access.hpp"
#include "func/tensor_map.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

enum Kind : uint8_t { kLoad = 0, kStore = 1, kReduce = 2, kPrefetch = 3 };
enum RedOp : uint8_t { kAdd, kMin, kMax, kInc, kDec, kAnd, kOr, kXor };

// flags: bits 0-3 AccessSpace (unused), 8-11 the shared operand's mem_flags (lane_address),
// 16-18 rank, 20-23 RedOp, then:
constexpr uint32_t kMapParam = 1u << 24;   // the map operand names a kernel parameter
constexpr uint32_t kMbarVar = 1u << 25;    // the mbarrier operand names a shared variable
constexpr uint32_t kMulticast = 1u << 26;  // .multicast::cluster: a ctaMask operand
constexpr uint32_t kTracePiece = 4096;     // bytes per traced access (MemAccess::bytes is 16 bits)

// ops: [shared base, map base, c0..c4, mbar base, mbar offset, mbar variable, ctaMask]; imm/target:
// the shared operand's offset and variable, imm2: the map operand's offset, width: Kind.
enum Op : unsigned { kOpShared = 0, kOpMap = 1, kOpCoord = 2, kOpMbar = 7, kOpMbarOff = 8, kOpMbarVar = 9, kOpMask = 10 };

// The tensor map lane l names, read (untraced: the TMA unit caches descriptors) and checked.
bool read_map(ExecCtx& ctx, const DInstr& in, unsigned l, TensorMap& m) {
  const Ref* ops = ctx.ops(in);
  uint64_t a = uint64_t(in.imm2) + (ops[kOpMap].is_none() ? 0 : ctx.src(ops[kOpMap])[l]);
  if (in.flags & kMapParam) a += kParamWindow;
  if (a & 63) {
    ctx.fault(FaultKind::MisalignedAddress, l, a, fmt::format("tensor map at 0x{:x}: it must be 64-byte aligned", a));
    return false;
  }
  uint8_t bytes[TensorMap::kBytes];
  auto* trace = ctx.launch.trace;
  ctx.launch.trace = nullptr;
  for (unsigned off = 0; off < TensorMap::kBytes; off += 64) {
    const uint8_t* p = resolve_access(ctx, AccessSpace::Generic, l, a + off, 64, false);
    if (!p) {
      ctx.launch.trace = trace;
      return false;
    }
    std::memcpy(bytes + off, p, 64);
  }
  ctx.launch.trace = trace;
  if (!m.unpack(bytes)) {
    ctx.fault(FaultKind::IllegalInstruction, l, a,
              fmt::format("the tensor map at 0x{:x} was not made by cuTensorMapEncodeTiled (or was overwritten)", a));
    return false;
  }
  if (!m.complete()) {
    ctx.fault(FaultKind::IllegalInstruction, l, a,
              fmt::format("the tensor map at 0x{:x} has a dimension without extent or traversal stride (after "
                          "tensormap.replace?)", a));
    return false;
  }
  const unsigned rank = (in.flags >> 16) & 7;
  if (m.rank != rank) {
    ctx.fault(FaultKind::IllegalInstruction, l, a,
              fmt::format("a {}d tensor copy through a tensor map of rank {}", rank, unsigned(m.rank)));
    return false;
  }
  return true;
}

// Copies n bytes between global memory at `g` and `buf`, page by page (untraced).
bool global_bytes(ExecCtx& ctx, unsigned l, uint64_t g, uint8_t* buf, uint64_t n, bool write) {
  const uint64_t page = ctx.launch.mem->page_size();
  while (n) {
    const uint64_t take = std::min(n, page - (g & (page - 1)));
    uint8_t* p = resolve_access(ctx, AccessSpace::Global, l, g, 1, write);
    if (!p) return false;
    if (write) std::memcpy(p, buf, take);
    else std::memcpy(buf, p, take);
    g += take, buf += take, n -= take;
  }
  return true;
}

// One element of a reduction: global value g combined with shared value s (esize bytes each), as
// the map's data type.
void reduce_element(uint8_t* g, const uint8_t* s, unsigned dtype, RedOp op) {
  auto ints = [&](auto zero) {
    using T = decltype(zero);
    T a, b;
    std::memcpy(&a, g, sizeof(T));
    std::memcpy(&b, s, sizeof(T));
    using U = std::make_unsigned_t<T>;
    T r = a;
    switch (op) {
      case kAdd: r = T(U(a) + U(b)); break;
      case kMin: r = std::min(a, b); break;
      case kMax: r = std::max(a, b); break;
      case kInc: r = U(a) >= U(b) ? T(0) : T(U(a) + 1); break;
      case kDec: r = (U(a) == 0 || U(a) > U(b)) ? b : T(U(a) - 1); break;
      case kAnd: r = a & b; break;
      case kOr: r = a | b; break;
      case kXor: r = a ^ b; break;
    }
    std::memcpy(g, &r, sizeof(T));
  };
  auto minmax = [&](double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : op == kMin ? std::min(a, b) : std::max(a, b); };
  switch (dtype) {
    case 0: ints(uint8_t{}); return;
    case 1: ints(uint16_t{}); return;
    case 2: ints(uint32_t{}); return;
    case 3: ints(int32_t{}); return;
    case 4: ints(uint64_t{}); return;
    case 5: ints(int64_t{}); return;
    case 6: case 9: {  // f16, bf16: the exact sum (two_sum), rounded once to nearest
      uint16_t a, b;
      std::memcpy(&a, g, 2);
      std::memcpy(&b, s, 2);
      const bool bf = dtype == 9;
      const double x = bf ? fp::bf16_to_f32(a) : fp::f16_to_f32(a), y = bf ? fp::bf16_to_f32(b) : fp::f16_to_f32(b);
      uint16_t r;
      if (op == kAdd) {
        double e;
        const double hi = fp::detail::two_sum(x, y, e);
        r = std::isnan(hi) ? fp::kNaN16 : uint16_t(fp::round_dd(hi, e, bf ? 8 : 5, bf ? 7 : 10, fp::Rnd::Rn));
      } else {
        const double v = minmax(x, y);
        r = bf ? fp::to_bf16(v, fp::Rnd::Rn) : fp::to_f16(v, fp::Rnd::Rn);
      }
      std::memcpy(g, &r, 2);
      return;
    }
    case 8: {
      double a, b;
      std::memcpy(&a, g, 8);
      std::memcpy(&b, s, 8);
      const double r = op == kAdd ? a + b : minmax(a, b);
      std::memcpy(g, &r, 8);
      return;
    }
    default: {  // f32, f32 ftz, tf32 (stored as f32)
      uint32_t a, b;
      std::memcpy(&a, g, 4);
      std::memcpy(&b, s, 4);
      const bool ftz = dtype == 10 || dtype == 12;
      if (ftz) a = fp::ftz32(a), b = fp::ftz32(b);
      float r = op == kAdd ? fp::f32(a) + fp::f32(b) : float(minmax(fp::f32(a), fp::f32(b)));
      uint32_t rb = fp::canon32(r);
      if (ftz) rb = fp::ftz32(rb);
      std::memcpy(g, &rb, 4);
      return;
    }
  }
}

// The bytes written for an out-of-bound element under the NaN-request fill: the H100 writes
// 0x7ff77ff7 for f32 (hopper_tma); the same 16-bit pattern, a NaN in f16, bf16, f32 and f64 alike,
// is assumed for the other float types.
constexpr uint64_t kNanFill = 0x7ff77ff77ff77ff7ull;

void exec_tensor(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const Kind kind = Kind(in.width);
  const unsigned rank = (in.flags >> 16) & 7;
  const RedOp redop = RedOp((in.flags >> 20) & 15);
  const uint64_t* sbase = ops[kOpShared].is_none() ? nullptr : ctx.src(ops[kOpShared]);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    TensorMap m;
    if (!read_map(ctx, in, l, m)) return;
    int64_t c[5] = {};
    for (unsigned d = 0; d < rank; ++d) c[d] = int32_t(uint32_t(ctx.src(ops[kOpCoord + d])[l]));
    uint32_t count[5] = {1, 1, 1, 1, 1};
    uint64_t box_bytes = m.esize;
    for (unsigned d = 0; d < rank; ++d) {
      count[d] = d == 0 ? m.box[0] : (m.box[d] + m.estride[d] - 1) / m.estride[d];
      box_bytes *= count[d];
    }
    const uint32_t row_bytes = count[0] * m.esize;
    // A row narrower than the swizzle span takes the whole span in shared memory (the H100 leaves
    // the rest unwritten: hopper_tma's 16-byte rows with the 32-byte swizzle).
    const uint32_t pitch = std::max(row_bytes, m.swizzle_bytes());
    const uint64_t image_bytes = box_bytes / row_bytes * pitch;
    // The H100 stops a tensor copy whose box starts inside a 16-byte chunk along dimension 0
    // ("an illegal instruction was encountered"; hopper_tma).
    if ((c[0] * m.esize) % 16) {
      ctx.fault(FaultKind::IllegalInstruction, l, 0,
                fmt::format("tensor copy at coordinate {} of dimension 0: the box must start on a 16-byte boundary "
                            "({} bytes per element)", c[0], unsigned(m.esize)));
      return;
    }
    // A store or a reduction with a negative coordinate also stops (hopper_tma: a tile store at
    // (-4, -2)), where a load fills the elements before the tensor.
    if (kind == kStore || kind == kReduce)
      for (unsigned d = 0; d < rank; ++d)
        if (c[d] < 0) {
          ctx.fault(FaultKind::IllegalInstruction, l, 0,
                    fmt::format("tensor {} at negative coordinate {} of dimension {} (the H100 refuses it)",
                                kind == kStore ? "store" : "reduction", c[d], d));
          return;
        }
    uint64_t sa = 0;
    if (kind != kPrefetch) {
      sa = lane_address(ctx, in, sbase, l);
      if (sa & 127) {
        ctx.fault(FaultKind::MisalignedAddress, l, sa,
                  fmt::format("tensor copy with shared address 0x{:x}: it must be 128-byte aligned", sa));
        return;
      }
      // The whole box must lie in the CTA's shared memory.
      if (!resolve_access(ctx, AccessSpace::Shared, l, sa + image_bytes - 1, 1, false)) return;
    }
    // The CTAs whose shared memory a load writes: the one the shared::cluster address names (this
    // CTA for its own shared::cta addresses), or with .multicast::cluster those of the ctaMask, at
    // the same CTA-relative offset (PTX ISA 9.7.9.25.5.1); each one's mbarrier at the same offset
    // gets the complete-tx.
    Cta* targets[16];
    uint32_t tranks[16];
    unsigned ntargets = 0;
    const Cluster* cl = ctx.cta.cluster;
    const uint32_t csize = cl ? uint32_t(cl->ctas.size()) : 1;
    if (kind == kLoad && (in.flags & kMulticast)) {
      const uint32_t cta_mask = uint32_t(ctx.src(ops[kOpMask])[l]) & 0xffff;
      if (cta_mask >> csize) {
        ctx.fault(FaultKind::IllegalInstruction, l, 0,
                  fmt::format("cp.async.bulk.tensor .multicast::cluster with ctaMask 0x{:x} in a cluster of {} CTAs",
                              cta_mask, csize));
        return;
      }
      for (uint32_t r = 0; r < csize; ++r)
        if (cta_mask >> r & 1) targets[ntargets] = cl ? cl->ctas[r] : &ctx.cta, tranks[ntargets++] = r;
      if (!ntargets) continue;
      sa &= kClusterOffsetMask;
    } else if (sa >> kClusterRankShift) {  // another CTA's shared::cluster address (mapa)
      const uint32_t r = cluster_rank_of(sa);
      targets[ntargets] = cl ? cl->ctas[r] : &ctx.cta, tranks[ntargets++] = r;  // r checked by resolve_access
      sa &= kClusterOffsetMask;
    } else {
      targets[ntargets] = &ctx.cta, tranks[ntargets++] = ctx.cta.cluster_rank;
    }
    auto* trace = ctx.launch.trace;
    ctx.launch.trace = nullptr;  // the element accesses below are not the timing model's view
    const uint64_t fill = m.oob_nan ? kNanFill : 0;
    uint8_t* shared = targets[0]->shared.data();
    std::vector<uint8_t> row(row_bytes);
    uint32_t idx[5] = {};
    bool ok = true;
    for (uint64_t row_off = 0; row_off < image_bytes && ok; row_off += pitch) {
      // The row's global coordinates above dimension 0, and whether they are inside the tensor.
      bool inside = true;
      uint64_t g = m.address;
      for (unsigned d = 1; d < rank; ++d) {
        const int64_t x = c[d] + int64_t(idx[d]) * m.estride[d];
        if (x < 0 || uint64_t(x) >= m.dim[d]) inside = false;
        else g += uint64_t(x) * m.stride[d];
      }
      // The in-bounds run of the row along dimension 0: elements [lo, hi). A store or a reduction
      // writes whole 16-byte chunks: the H100 also writes the elements past globalDim[0] in the
      // chunk that holds a row's last one (hopper_tma's store and reduce-xor over such an edge),
      // while a load fills them.
      uint64_t end = m.dim[0];
      if (kind == kStore || kind == kReduce) end = (end * m.esize + 15) / 16 * 16 / m.esize;
      const int64_t lo = std::clamp<int64_t>(-c[0], 0, count[0]);
      const int64_t hi = std::clamp<int64_t>(int64_t(end) - c[0], lo, count[0]);
      const bool run = inside && hi > lo;
      const uint64_t run_addr = g + uint64_t(c[0] + lo) * m.esize, run_len = uint64_t(hi - lo) * m.esize;
      if (kind == kLoad) {
        for (uint32_t e = 0; e < count[0]; ++e) std::memcpy(&row[e * m.esize], &fill, m.esize);
        if (run) ok = global_bytes(ctx, l, run_addr, &row[size_t(lo) * m.esize], run_len, false);
        for (unsigned t = 0; t < ntargets; ++t)
          for (uint32_t off = 0; ok && off < row_bytes; off += 16)
            std::memcpy(targets[t]->shared.data() + swizzle_address(uint32_t(sa + row_off + off), m.swizzle_bytes()),
                        &row[off], 16);
      } else if (kind != kPrefetch && run) {
        for (uint32_t off = 0; off < row_bytes; off += 16)
          std::memcpy(&row[off], shared + swizzle_address(uint32_t(sa + row_off + off), m.swizzle_bytes()), 16);
        if (kind == kStore) {
          ok = global_bytes(ctx, l, run_addr, &row[size_t(lo) * m.esize], run_len, true);
        } else {
          std::vector<uint8_t> cur(run_len);
          ok = global_bytes(ctx, l, run_addr, cur.data(), run_len, false);
          for (uint64_t e = 0; ok && e < run_len; e += m.esize)
            reduce_element(&cur[e], &row[size_t(lo) * m.esize + e], m.dtype, redop);
          if (ok) ok = global_bytes(ctx, l, run_addr, cur.data(), run_len, true);
        }
      }
      if (run && trace)
        for (uint64_t off = 0; off < run_len; off += kTracePiece)
          trace->add(run_addr + off, unsigned(std::min<uint64_t>(run_len - off, kTracePiece)), l, TraceSpace::Global,
                     kind == kStore || kind == kReduce);
      for (unsigned d = 1; d < rank; ++d) {
        if (++idx[d] < count[d]) break;
        idx[d] = 0;
      }
    }
    ctx.launch.trace = trace;
    if (!ok) return;
    if (kind != kLoad) continue;
    uint64_t ma = ctx.src(ops[kOpMbarOff])[l] + (ops[kOpMbar].is_none() ? 0 : ctx.src(ops[kOpMbar])[l]);
    if (in.flags & kMbarVar) ma += (*ctx.cta.shared_offsets)[uint32_t(ctx.src(ops[kOpMbarVar])[l])];
    for (unsigned t = 0; t < ntargets; ++t) {
      const uint64_t mt = (in.flags & kMulticast) ? cluster_shared_address(tranks[t], ma) : ma;
      if (!mbarrier_complete_tx(ctx, l, mt, uint32_t(box_bytes))) return;
    }
  }
}

unsigned rank_of(const Instruction& ins) {
  return ins.has(Mod::g1d) ? 1 : ins.has(Mod::g2d) ? 2 : ins.has(Mod::g3d) ? 3 : ins.has(Mod::g4d) ? 4 : ins.has(Mod::g5d) ? 5 : 0;
}

// [tensorMap, {c0, ...}]: the map's address and the coordinates into refs[kOpMap..].
bool tensor_operand(DecodeCtx& c, const Operand& o, unsigned rank, DInstr& out, std::vector<Ref>& refs) {
  if (o.kind != Operand::Kind::MemList || o.elems.size() != 2 || o.elems[1].kind != Operand::Kind::Vector)
    return c.fail("a tensor copy's tensor operand must be [tensorMap, {coordinates}]");
  const Operand& map = o.elems[0];
  Operand addr;
  addr.kind = Operand::Kind::Address;
  if (map.kind == Operand::Kind::Address) addr = map;
  else addr.elems.push_back(map);
  MemRef r;
  if (!c.mem(addr, r)) return false;
  if (r.rel == MemRef::KernelParam) out.flags |= kMapParam;
  else if (r.rel != MemRef::Absolute) return c.fail("the tensor map must be a kernel parameter or a generic/global address");
  refs[kOpMap] = r.base;
  out.imm2 = r.offset;
  const auto& coords = o.elems[1].elems;
  if (coords.size() != rank)
    return c.fail(fmt::format("a {}d tensor copy needs {} coordinates, not {}", rank, rank, coords.size()));
  for (unsigned d = 0; d < rank; ++d) {
    refs[kOpCoord + d] = c.ref(coords[d], Type::S32);
    if (refs[kOpCoord + d].is_none()) return false;
  }
  return true;
}

bool shared_operand(DecodeCtx& c, const Operand& o, DInstr& out, std::vector<Ref>& refs) {
  MemRef s;
  if (!c.mem(o, s)) return false;
  if (s.rel != MemRef::Absolute && s.rel != MemRef::SharedVar)
    return c.fail("a tensor copy's shared-memory operand must be a shared address");
  out.flags |= mem_flags(s);
  out.imm = s.offset;
  out.target = s.shared_var;
  refs[kOpShared] = s.base;
  return true;
}

bool check_tile(DecodeCtx& c, const Instruction& ins, unsigned& rank) {
  rank = rank_of(ins);
  if (!rank) return c.fail("a tensor copy needs a dimension (.1d .. .5d)");
  if (ins.has(Mod::im2col) || ins.has(Mod::im2col_no_offs) || ins.has(Mod::im2col_w) || ins.has(Mod::im2col_w_128))
    return c.fail("tensor copies in im2col mode are not supported by warpsim (tile mode only)");
  if (ins.has(Mod::tile_gather4) || ins.has(Mod::tile_scatter4))
    return c.fail("tensor copies in .tile::gather4 / .tile::scatter4 mode are sm_100's (not supported)");
  return true;
}

// Operand count without the trailing cache policy of .L2::cache_hint (no functional effect).
size_t operand_count(const Instruction& ins) {
  return ins.operands.size() - (ins.has(Mod::L2_cache_hint) ? 1 : 0);
}

bool dec_copy(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  unsigned rank;
  if (!check_tile(c, ins, rank)) return false;
  std::vector<Ref> refs(11, Ref::none());
  out.flags = rank << 16;
  const size_t n = operand_count(ins);
  if (ins.has(Mod::bulk_group)) {  // shared::cta -> global
    if (!ins.has(Mod::global) || !(ins.has(Mod::shared_cta) || ins.has(Mod::shared)))
      return c.fail("cp.async.bulk.tensor .bulk_group supports .global.shared::cta only");
    if (n != 2) return c.fail("cp.async.bulk.tensor (store) needs [tensorMap, {coordinates}], [srcMem]");
    if (!tensor_operand(c, ins.operands[0], rank, out, refs) || !shared_operand(c, ins.operands[1], out, refs)) return false;
    out.width = kStore;
  } else {
    if (!ins.has(Mod::mbarrier_complete_tx_bytes))
      return c.fail("cp.async.bulk.tensor needs .mbarrier::complete_tx::bytes or .bulk_group");
    const bool multicast = ins.has(Mod::multicast_cluster);
    if (n != (multicast ? 4u : 3u))
      return c.fail("cp.async.bulk.tensor (load) needs [dstMem], [tensorMap, {coordinates}], [mbar] (and a ctaMask "
                    "with .multicast::cluster)");
    if (!shared_operand(c, ins.operands[0], out, refs) || !tensor_operand(c, ins.operands[1], rank, out, refs)) return false;
    MemRef mb;
    if (!c.mem(ins.operands[2], mb)) return false;
    if (mb.rel != MemRef::Absolute && mb.rel != MemRef::SharedVar) return c.fail("the mbarrier must be in shared memory");
    refs[kOpMbar] = mb.base;
    refs[kOpMbarOff] = c.cnst(uint64_t(mb.offset));
    if (mb.rel == MemRef::SharedVar) {
      refs[kOpMbarVar] = c.cnst(mb.shared_var);
      out.flags |= kMbarVar;
    }
    if (multicast) {
      refs[kOpMask] = c.ref(ins.operands[3], Type::U16);
      if (refs[kOpMask].is_none()) return false;
      out.flags |= kMulticast;
    }
    out.width = kLoad;
  }
  c.set_ops(out, refs);
  out.exec = exec_tensor;
  return true;
}

bool dec_reduce(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  unsigned rank;
  if (!check_tile(c, ins, rank)) return false;
  if (!ins.has(Mod::bulk_group) || !ins.has(Mod::global))
    return c.fail("cp.reduce.async.bulk.tensor supports .global.shared::cta.bulk_group only");
  RedOp op;
  if (ins.has(Mod::add)) op = kAdd;
  else if (ins.has(Mod::min)) op = kMin;
  else if (ins.has(Mod::max)) op = kMax;
  else if (ins.has(Mod::inc)) op = kInc;
  else if (ins.has(Mod::dec)) op = kDec;
  else if (ins.has(Mod::and_)) op = kAnd;
  else if (ins.has(Mod::or_)) op = kOr;
  else if (ins.has(Mod::xor_)) op = kXor;
  else return c.fail("cp.reduce.async.bulk.tensor needs a reduction (.add .min .max .inc .dec .and .or .xor)");
  if (operand_count(ins) != 2) return c.fail("cp.reduce.async.bulk.tensor needs [tensorMap, {coordinates}], [srcMem]");
  std::vector<Ref> refs(11, Ref::none());
  out.flags = rank << 16 | uint32_t(op) << 20;
  if (!tensor_operand(c, ins.operands[0], rank, out, refs) || !shared_operand(c, ins.operands[1], out, refs)) return false;
  out.width = kReduce;
  c.set_ops(out, refs);
  out.exec = exec_tensor;
  return true;
}

// cp.async.bulk.prefetch.tensor: no functional effect; traced (its in-bounds rows as reads) for the
// timing model, which fetches them into L2.
bool dec_prefetch(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  unsigned rank;
  if (!check_tile(c, ins, rank)) return false;
  if (operand_count(ins) != 1) return c.fail("cp.async.bulk.prefetch.tensor needs [tensorMap, {coordinates}]");
  std::vector<Ref> refs(11, Ref::none());
  out.flags = rank << 16;
  if (!tensor_operand(c, ins.operands[0], rank, out, refs)) return false;
  out.width = kPrefetch;
  c.set_ops(out, refs);
  out.exec = exec_tensor;
  return true;
}

// ------------------------------------------------------------------ tensormap.replace

// tensormap.replace.tile.field{.space}.b1024.type [map], {ordinal,} value (PTX ISA 9.7.9.26):
// rewrites one field of a map in global or shared memory (as CUTLASS's grouped GEMMs patch a copy
// of a map the driver made). The values are in the ISA's encodings: rank - 1, boxDim, globalDim,
// globalStrides in bytes, elementStrides, the ISA's element-type numbering; interleaved layouts
// and swizzle atomicities other than 16 bytes are not modelled and fault.
enum Field : uint8_t { kAddress, kRank, kBoxDim, kGlobalDim, kGlobalStride, kElementStride, kElemType, kInterleave,
                       kSwizzle, kAtomicity, kFill };

// The ISA's tensor-map element types (.u8 .u16 .u32 .s32 .u64 .s64 .f16 .f32 .f32.ftz .f64 .bf16
// .tf32 .tf32.ftz) as CUtensorMapDataType, and their sizes.
constexpr uint8_t kIsaElemType[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12};
constexpr uint8_t kElemBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};  // by CUtensorMapDataType

// ops: [map base, ordinal, value]; imm: map offset; flags: bits 0-3 AccessSpace, 8-11 mem_flags,
// 16-19 Field.
void exec_replace(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const Field field = Field((in.flags >> 16) & 15);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    const uint64_t a = lane_address(ctx, in, base, l);
    uint8_t* p[2];
    for (unsigned h = 0; h < 2; ++h)
      if (!(p[h] = resolve_access(ctx, AccessSpace(in.flags & 15), l, a + 64 * h, 64, true))) return;
    uint8_t bytes[TensorMap::kBytes];
    std::memcpy(bytes, p[0], 64);
    std::memcpy(bytes + 64, p[1], 64);
    TensorMap m;
    if (!m.unpack(bytes)) {
      ctx.fault(FaultKind::IllegalInstruction, l, a,
                fmt::format("tensormap.replace on 0x{:x}: not a tensor map made by cuTensorMapEncodeTiled", a));
      return;
    }
    const uint32_t ord = ops[1].is_none() ? 0 : uint32_t(ctx.src(ops[1])[l]);
    const uint64_t v = ctx.src(ops[2])[l];
    auto bad = [&](const char* what) {
      ctx.fault(FaultKind::IllegalInstruction, l, a, fmt::format("tensormap.replace: {} (value {})", what, v));
    };
    const bool per_dim = field == kBoxDim || field == kGlobalDim || field == kGlobalStride || field == kElementStride;
    if (per_dim && ord >= (field == kGlobalStride ? 4u : 5u)) return bad("ordinal out of range");
    switch (field) {
      case kAddress: m.address = v; break;
      case kRank:
        if (v > 4) return bad("the rank must be 1..5 (the value is rank - 1)");
        m.rank = uint8_t(v + 1);
        break;
      case kBoxDim:
        if (v < 1 || v > 256) return bad("boxDim must be 1..256");
        m.box[ord] = uint32_t(v);
        break;
      case kGlobalDim:
        if (v < 1) return bad("globalDim must not be 0");
        m.dim[ord] = uint32_t(v);
        break;
      case kGlobalStride: m.stride[ord + 1] = v; break;
      case kElementStride:
        if (v < 1 || v > 8) return bad("elementStrides must be 1..8");
        m.estride[ord] = uint32_t(v);
        break;
      case kElemType:
        if (v >= sizeof(kIsaElemType)) return bad("element type not modelled");
        m.dtype = kIsaElemType[v];
        m.esize = kElemBytes[m.dtype];
        m.stride[0] = m.esize;
        break;
      case kInterleave:
        if (v != 0) return bad("interleaved layouts are not modelled");
        break;
      case kSwizzle:
        if (v > 3) return bad("swizzle mode not modelled on sm_90");
        m.swizzle = uint8_t(v);
        break;
      case kAtomicity:
        if (v != 0) return bad("swizzle atomicities other than 16 bytes are sm_100's");
        break;
      case kFill:
        if (v > 1) return bad("unknown fill mode");
        m.oob_nan = uint8_t(v);
        break;
    }
    m.pack(bytes);
    std::memcpy(p[0], bytes, 64);
    std::memcpy(p[1], bytes + 64, 64);
  }
}

bool dec_replace(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!ins.has(Mod::tile)) return c.fail("tensormap.replace supports .tile only");
  static const std::pair<Mod, Field> kFields[] = {
      {Mod::global_address, kAddress}, {Mod::rank, kRank}, {Mod::box_dim, kBoxDim}, {Mod::global_dim, kGlobalDim},
      {Mod::global_stride, kGlobalStride}, {Mod::element_stride, kElementStride}, {Mod::elemtype, kElemType},
      {Mod::interleave_layout, kInterleave}, {Mod::swizzle_mode, kSwizzle}, {Mod::swizzle_atomicity, kAtomicity},
      {Mod::fill_mode, kFill}};
  int field = -1;
  for (auto& f : kFields)
    if (ins.has(f.first)) field = f.second;
  if (field < 0) return c.fail("tensormap.replace needs a field");
  const bool ordinal = field == kBoxDim || field == kGlobalDim || field == kGlobalStride || field == kElementStride;
  if (ins.operands.size() != (ordinal ? 3u : 2u))
    return c.fail(ordinal ? "tensormap.replace of this field needs [map], ordinal, value" : "tensormap.replace needs [map], value");
  MemRef r;
  if (!c.mem(ins.operands[0], r)) return false;
  AccessSpace sp = AccessSpace::Generic;
  if (ins.has(Mod::global)) sp = AccessSpace::Global;
  else if (ins.has(Mod::shared_cta) || ins.has(Mod::shared) || r.rel == MemRef::SharedVar) sp = AccessSpace::Shared;
  if (r.rel != MemRef::Absolute && r.rel != MemRef::SharedVar) return c.fail("tensormap.replace: the map must be global or shared");
  Ref ord = Ref::none();
  if (ordinal) {
    if (ins.operands[1].kind != Operand::Kind::Imm) return c.fail("tensormap.replace: the ordinal must be a constant");
    ord = c.cnst(uint64_t(ins.operands[1].ival));
  }
  const bool wide = field == kAddress || field == kGlobalStride;
  Ref v = c.ref(ins.operands[ordinal ? 2 : 1], wide ? Type::B64 : Type::B32);
  if (v.is_none()) return false;
  out.flags = uint32_t(sp) | mem_flags(r) | uint32_t(field) << 16;
  out.imm = r.offset;
  out.target = r.shared_var;
  c.set_ops(out, {r.base, ord, v});
  out.exec = exec_replace;
  return true;
}

// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [dst],
// [src], 128: the map in shared memory copied to global memory (the proxy fence has nothing to
// order here: tensor copies read their map when they issue).
void exec_cp_fenceproxy(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  const Ref* ops = ctx.ops(in);
  const uint64_t* db = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* sb = ops[1].is_none() ? nullptr : ctx.src(ops[1]);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    const uint64_t da = uint64_t(in.imm) + (db ? db[l] : 0);
    uint64_t sa = uint64_t(in.imm2) + (sb ? sb[l] : 0);
    if (in.flags & kMbarVar) sa += (*ctx.cta.shared_offsets)[in.target];
    for (unsigned off = 0; off < TensorMap::kBytes; off += 64) {
      const uint8_t* s = resolve_access(ctx, AccessSpace::Shared, l, sa + off, 64, false);
      if (!s) return;
      uint8_t chunk[64];
      std::memcpy(chunk, s, 64);
      uint8_t* d = resolve_access(ctx, AccessSpace::Global, l, da + off, 64, true);
      if (!d) return;
      std::memcpy(d, chunk, 64);
    }
  }
}

bool dec_cp_fenceproxy(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  const auto& o = ins.operands;
  if (o[2].kind != Operand::Kind::Imm || o[2].ival != 128) return c.fail("tensormap.cp_fenceproxy copies 128 bytes");
  MemRef d, s;
  if (!c.mem(o[0], d) || !c.mem(o[1], s)) return false;
  if (d.rel != MemRef::Absolute) return c.fail("tensormap.cp_fenceproxy: the destination must be a global address");
  if (s.rel != MemRef::Absolute && s.rel != MemRef::SharedVar)
    return c.fail("tensormap.cp_fenceproxy: the source must be a shared address");
  out.imm = d.offset;
  out.imm2 = s.offset;
  out.target = s.shared_var;
  if (s.rel == MemRef::SharedVar) out.flags |= kMbarVar;  // (the bit: the source names a shared variable)
  c.set_ops(out, {d.base, s.base});
  out.exec = exec_cp_fenceproxy;
  return true;
}

}  // namespace

void register_tensor_ops() {
  register_decoder(Opcode::TensormapReplace, dec_replace);
  register_decoder(Opcode::TensormapCpFenceproxy, dec_cp_fenceproxy);
  register_decoder(Opcode::CpAsyncBulkTensor, dec_copy);
  register_decoder(Opcode::CpReduceAsyncBulkTensor, dec_reduce);
  register_decoder(Opcode::CpAsyncBulkPrefetchTensor, dec_prefetch);
}

}  // namespace warpsim::func
