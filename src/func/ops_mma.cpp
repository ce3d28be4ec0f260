// Warp-level matrix instructions (PTX ISA 8.7, 9.7.14): ldmatrix / stmatrix / movmatrix, mma.sync
// (sm_80 shapes and the Volta-shape m8n8k4 .f16), mma.sp / mma.sp::ordered_metadata (2:4 sparse A,
// every sm_80 form) and wmma.load / wmma.store / wmma.mma; sm_90a's warpgroup wgmma.mma_async
// (9.7.15) at the end.
//
// All of them are .sync.aligned without a member mask: every live lane of the warp takes part, so
// each handler first waits (warp_sync) until all live lanes of the warp have arrived. A handler
// reads every lane's source registers, computes the whole warp's result, then writes the
// destinations (d may alias c).
//
// mma.sync fragment layouts follow the ISA figures (groupID = laneid >> 2, tig = laneid % 4, e =
// elements per 32-bit register: 2 for 16-bit, 4 for 8-bit, 8 for 4-bit, 32 for 1-bit, 1 for
// tf32/f64):
//   A (M x K):  element j of register r:  row = groupID + 8 * (r & 1)      (M == 16)
//                                          col = tig * e + j + (r >> 1) * 4e
//               (M == 8: row = groupID, col = tig * e + j + r * 4e)
//   B (K x N):  element j of register r:  row = tig * e + j + r * 4e, col = groupID
//   C/D (M x 8): element i:               row = groupID + 8 * (i >> 1), col = 2 * tig + (i & 1)
//               (M == 8: row = groupID, col = 2 * tig + i); .f16 accumulators pack elements
//               2i, 2i+1 in register i.
// Arithmetic: products are exact (f16, bf16, tf32 and integer products all fit a double / int64);
// the exact sum of the products and C is rounded once to the accumulator format (round to
// nearest even). TF32 operands use the upper 19 bits of the f32 register (low 13 mantissa bits
// ignored). f64 accumulates with fused multiply-adds in k order. Integer: exact sum, wrapped to
// s32, or clamped with .satfinite. .b1: c + popc(a op b).
//
// wmma (every sm_80 form: f16/bf16 m16n16k16/m32n8k16/m8n32k16, tf32 m16n16k8, f64 m8n8k4 with
// .rnd, s8/u8 16-wide shapes with .satfinite, s4/u4 m8n8k32, b1 m8n8k128 .xor/.and.popc).
// wmma fragment layout (implementation-defined; this model's choice): a fragment of an R x C
// logical matrix (A: M x K, B: K x N, C/D: M x N) holds U = R*C/32 distinct elements per lane;
// lane l's element u (0 <= u < U) is logical element idx = l*U + u, at (idx / C, idx % C). When the
// PTX fragment has more slots than U (f16 A/B fragments are 8 registers = 16 halves), slot s
// holds element s % U (replicated). The memory layout (.row/.col) and stride only affect load and
// store; wmma.mma ignores its layout qualifiers since fragments are in logical coordinates.
// Sub-byte elements in memory are packed, element i at bit i * bits (least significant first), and
// strides count elements.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "func/decode.hpp"
#include "func/exec.hpp"
#include "func/fp_util.hpp"
#include "func/memory_access.hpp"
#include "func/softfloat.hpp"
#include "func/wgmma_desc.hpp"

namespace warpsim::func {

using namespace ptx;

namespace {

// ------------------------------------------------------------------ shared helpers

// Element types of matrix operands.
enum class ET : uint8_t { None, F16, BF16, TF32, F32, F64, S8, U8, S4, U4, B1, S32, B16, E4M3, E5M2 };

ET et_of(Mod m) {
  switch (m) {
    case Mod::f16: return ET::F16;
    case Mod::bf16: return ET::BF16;
    case Mod::tf32: return ET::TF32;
    case Mod::f32: return ET::F32;
    case Mod::f64: return ET::F64;
    case Mod::s8: return ET::S8;
    case Mod::u8: return ET::U8;
    case Mod::s4: return ET::S4;
    case Mod::u4: return ET::U4;
    case Mod::b1: return ET::B1;
    case Mod::s32: return ET::S32;
    case Mod::b16: return ET::B16;
    case Mod::e4m3: return ET::E4M3;
    case Mod::e5m2: return ET::E5M2;
    default: return ET::None;
  }
}

std::vector<ET> types_of(const Instruction& ins) {
  std::vector<ET> t;
  for (unsigned i = 0; i < ins.nmods; ++i)
    if (ET e = et_of(ins.mods[i]); e != ET::None) t.push_back(e);
  return t;
}

unsigned et_bits(ET t) {
  switch (t) {
    case ET::F16: case ET::BF16: case ET::B16: return 16;
    case ET::TF32: case ET::F32: case ET::S32: return 32;
    case ET::F64: return 64;
    case ET::S8: case ET::U8: case ET::E4M3: case ET::E5M2: return 8;
    case ET::S4: case ET::U4: return 4;
    case ET::B1: return 1;
    default: return 0;
  }
}

const char* et_name(ET t) {
  static const char* n[] = {"?", "f16", "bf16", "tf32", "f32", "f64", "s8", "u8", "s4", "u4", "b1", "s32", "b16", "e4m3", "e5m2"};
  return n[size_t(t)];
}

// Element j (of `bits` bits) of a register value.
inline uint64_t field(uint64_t v, unsigned j, unsigned bits) {
  if (bits >= 64) return v;
  return (v >> (j * bits)) & ((1ull << bits) - 1);
}

// An f16 as an exact integer count of 2^-24 (|v| < 2^40); false for infinities and NaNs.
inline bool f16_fixed(uint64_t b, int64_t& v) {
  unsigned e = unsigned(b >> 10) & 31, m = unsigned(b) & 1023;
  if (e == 31) return false;
  int64_t x = e ? int64_t(1024 + m) << (e - 1) : int64_t(m);
  v = (b & 0x8000) ? -x : x;
  return true;
}

// Exact conversions without libm (the mma inner loops call this per element): f16 through its
// integer form, the 32-bit formats through float.
double fp_value(ET t, uint64_t b) {
  switch (t) {
    case ET::F16: {
      int64_t v;
      if (f16_fixed(b, v)) return double(v) * 0x1p-24;
      double inf = (b & 0x8000) ? -INFINITY : INFINITY;
      return (b & 1023) ? NAN : inf;
    }
    case ET::BF16: return double(std::bit_cast<float>(uint32_t(b & 0xffff) << 16));
    case ET::TF32: return double(std::bit_cast<float>(uint32_t(b & 0xffffe000u)));  // upper 19 bits
    case ET::F32: return double(std::bit_cast<float>(uint32_t(b)));
    case ET::F64: return sf::d_of(b);
    case ET::E4M3: return sf::to_double(sf::kE4M3, b & 0xff);
    case ET::E5M2: return sf::to_double(sf::kE5M2, b & 0xff);
    default: return 0;
  }
}

int64_t int_value(ET t, uint64_t b) {
  switch (t) {
    case ET::S8: return int8_t(uint8_t(b));
    case ET::U8: return uint8_t(b);
    case ET::S4: return int64_t(b & 8 ? int64_t(b & 15) - 16 : int64_t(b & 15));
    case ET::U4: return int64_t(b & 15);
    case ET::S32: return int32_t(uint32_t(b));
    default: return int64_t(b & 1);
  }
}

// Exact sum of doubles (Shewchuk's partials, as Python's math.fsum), rounded once to `f`.
struct ExactSum {
  double p[64];
  unsigned n = 0;
  bool nan = false;
  double inf = 0;  // sum of infinities seen (NaN if +inf and -inf)
  void add(double x) {
    if (std::isnan(x)) { nan = true; return; }
    if (std::isinf(x)) { inf += x; return; }
    unsigned i = 0;
    for (unsigned j = 0; j < n; ++j) {
      double y = p[j];
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y, lo = y - (hi - x);
      if (lo != 0) p[i++] = lo;
      x = hi;
    }
    if (i < 64) p[i++] = x;
    n = i;
  }
  uint64_t round(const sf::Format& f) const {
    if (nan || std::isnan(inf)) return f.qnan;
    if (inf != 0) return sf::round_sum(inf, 0, f, sf::Mode::Rn);
    if (n == 0) return 0;
    double s = p[n - 1], rest = 0;
    for (int j = int(n) - 2; j >= 0; --j) rest += p[j];
    double hi, lo;
    sf::two_sum(s, rest, hi, lo);
    return sf::round_sum(hi, lo, f, sf::Mode::Rn);
  }
};

// R = A x B + C for f16/bf16/tf32 inputs (A: M x K, B: K x N, C and R: M x N, raw element bits):
// the exact sum of the products and C, rounded once to the accumulator format.
void float_mma(unsigned M, unsigned N, unsigned K, ET at, ET bt, ET ct, ET dt, const uint64_t* A, const uint64_t* B,
               const uint64_t* C, uint64_t* R) {
  const sf::Format& out = dt == ET::F16 ? sf::kF16 : sf::kF32;
  thread_local std::vector<int64_t> ai, bi;
  thread_local std::vector<double> ad, bd;
  if (at == ET::F16 && bt == ET::F16) {
    // f16 values are integers of 2^-24 below 2^40, so products are integers of 2^-48 below 2^80
    // and K of them sum exactly in 128 bits: the fast path of the common case.
    ai.resize(M * K);
    bi.resize(K * N);
    bool finite = true;
    for (unsigned x = 0; x < M * K; ++x) finite &= f16_fixed(A[x], ai[x]);
    for (unsigned x = 0; x < K * N; ++x) finite &= f16_fixed(B[x], bi[x]);
    if (finite) {
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) {
          __int128 p = 0;
          for (unsigned k = 0; k < K; ++k) p += __int128(ai[i * K + k]) * bi[k * N + j];
          // |p| < 2^85: p = hi * 2^32 + lo with hi < 2^53 and lo < 2^32, both exact doubles.
          int64_t hi = int64_t(p >> 32);
          uint64_t lo = uint64_t(p) & 0xffffffffu;
          ExactSum s;
          s.add(fp_value(ct, C[i * N + j]));
          s.add(double(hi) * 0x1p-16);
          s.add(double(lo) * 0x1p-48);
          R[i * N + j] = s.round(out);
        }
      return;
    }
  }
  ad.resize(M * K);
  bd.resize(K * N);
  for (unsigned x = 0; x < M * K; ++x) ad[x] = fp_value(at, A[x]);
  for (unsigned x = 0; x < K * N; ++x) bd[x] = fp_value(bt, B[x]);
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      ExactSum s;
      s.add(fp_value(ct, C[i * N + j]));
      for (unsigned k = 0; k < K; ++k) s.add(ad[i * K + k] * bd[k * N + j]);  // exact: <= 2 x 11 bits
      R[i * N + j] = s.round(out);
    }
}

inline bool sync_all(ExecCtx& ctx) { return warp_sync(ctx, ctx.w.valid); }

bool vec_refs(DecodeCtx& c, const Operand& o, Type t, std::vector<Ref>& out, size_t want, const char* what) {
  if (o.kind != Operand::Kind::Vector) {
    if (want == 1 && o.kind == Operand::Kind::Reg) {
      Ref r = c.ref(o, t);
      if (r.is_none()) return false;
      out.push_back(r);
      return true;
    }
    return c.fail(fmt::format("{} must be a vector of {} registers", what, want));
  }
  if (o.elems.size() != want)
    return c.fail(fmt::format("{} must be a vector of {} registers, not {}", what, want, o.elems.size()));
  for (auto& e : o.elems) {
    Ref r = c.ref(e, t);
    if (r.is_none()) return false;
    if (r.kind() == Ref::Pred) return c.fail(fmt::format("{} cannot hold predicates", what));
    out.push_back(r);
  }
  return true;
}

// ------------------------------------------------------------------ ldmatrix / stmatrix / movmatrix

// ops: base, then nmat registers. width = nmat, flags bit 16 = .trans, bits 0-3 space, 8-10 rel.
// Matrix j's row r is at the address given by lane 8j + r (16 bytes, 8 b16 elements). Lane t holds,
// in register j, row t/4 columns 2(t%4), 2(t%4)+1 (low half first); .trans gives the transposed
// matrix.
template <bool Store>
void exec_ldst_matrix(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if (!sync_all(ctx)) return;
  const Ref* ops = ctx.ops(in);
  AccessSpace sp = AccessSpace(in.flags & 15);
  bool trans = in.flags & (1u << 16);
  unsigned nmat = in.width;
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  uint16_t m[4][8][8];
  uint8_t* rowp[4][8];
  for (unsigned j = 0; j < nmat; ++j)
    for (unsigned r = 0; r < 8; ++r) {
      unsigned l = j * 8 + r;
      uint64_t a = lane_address(ctx, in, base, l);
      uint8_t* p = resolve_access(ctx, sp, l, a, 16, Store);
      if (!p) return;
      rowp[j][r] = p;
      if (!Store) std::memcpy(m[j][r], p, 16);
    }
  if (!Store) {
    for (unsigned j = 0; j < nmat; ++j) {
      uint64_t* d = ctx.dst(ops[1 + j]);
      for (unsigned t = 0; t < kWarpSize; ++t) {
        unsigned r = t / 4, c0 = 2 * (t % 4);
        uint16_t lo = trans ? m[j][c0][r] : m[j][r][c0];
        uint16_t hi = trans ? m[j][c0 + 1][r] : m[j][r][c0 + 1];
        if (mask >> t & 1) d[t] = uint64_t(lo) | uint64_t(hi) << 16;
      }
    }
  } else {
    for (unsigned j = 0; j < nmat; ++j) {
      const uint64_t* s = ctx.src(ops[1 + j]);
      for (unsigned t = 0; t < kWarpSize; ++t) {
        unsigned r = t / 4, c0 = 2 * (t % 4);
        uint16_t lo = uint16_t(s[t]), hi = uint16_t(s[t] >> 16);
        if (trans) { m[j][c0][r] = lo; m[j][c0 + 1][r] = hi; }
        else { m[j][r][c0] = lo; m[j][r][c0 + 1] = hi; }
      }
      for (unsigned r = 0; r < 8; ++r) std::memcpy(rowp[j][r], m[j][r], 16);
    }
  }
}

bool dec_ldst_matrix(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  bool store = ins.op == Opcode::Stmatrix;
  const char* name = store ? "stmatrix" : "ldmatrix";
  if (!ins.has(Mod::sync) || !ins.has(Mod::aligned)) return c.fail(fmt::format("{} needs .sync.aligned", name));
  if (ins.shape.m != 8 || ins.shape.n != 8 || ins.shape.k != 0)
    return c.fail(fmt::format("{}: only the .m8n8 shape is supported", name));
  auto ts = types_of(ins);
  if (ts.size() != 1 || ts[0] != ET::B16) return c.fail(fmt::format("{}: only .b16 is supported", name));
  unsigned nmat = ins.has(Mod::x4) ? 4 : ins.has(Mod::x2) ? 2 : ins.has(Mod::x1) ? 1 : 0;
  if (!nmat) return c.fail(fmt::format("{} needs .x1, .x2 or .x4", name));
  if (ins.operands.size() != 2) return c.fail(fmt::format("{} takes two operands", name));
  const Operand& addr = store ? ins.operands[0] : ins.operands[1];
  const Operand& data = store ? ins.operands[1] : ins.operands[0];
  MemRef r;
  if (!c.mem(addr, r)) return false;
  AccessSpace sp = space_of(ins, r);
  if (sp != AccessSpace::Shared && sp != AccessSpace::Generic)
    return c.fail(fmt::format("{} accesses shared memory only", name));
  std::vector<Ref> refs{r.base};
  if (!vec_refs(c, data, Type::B32, refs, nmat, name)) return false;
  out.flags = uint32_t(sp) | (uint32_t(r.rel) << 8) | (ins.has(Mod::trans) ? 1u << 16 : 0);
  out.imm = r.offset;
  out.target = r.shared_var;
  out.width = uint8_t(nmat);
  c.set_ops(out, refs);
  out.exec = store ? exec_ldst_matrix<true> : exec_ldst_matrix<false>;
  return true;
}

void exec_movmatrix(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if (!sync_all(ctx)) return;
  const uint64_t* s = ctx.src(in.op[1]);
  uint16_t m[8][8];
  for (unsigned t = 0; t < kWarpSize; ++t) {
    m[t / 4][2 * (t % 4)] = uint16_t(s[t]);
    m[t / 4][2 * (t % 4) + 1] = uint16_t(s[t] >> 16);
  }
  uint64_t* d = ctx.dst(in.op[0]);
  for (unsigned t = 0; t < kWarpSize; ++t) {
    unsigned r = t / 4, c0 = 2 * (t % 4);
    if (mask >> t & 1) d[t] = uint64_t(m[c0][r]) | uint64_t(m[c0 + 1][r]) << 16;
  }
}

bool dec_movmatrix(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!ins.has(Mod::sync) || !ins.has(Mod::aligned) || !ins.has(Mod::trans))
    return c.fail("movmatrix needs .sync.aligned and .trans");
  if (ins.shape.m != 8 || ins.shape.n != 8) return c.fail("movmatrix: only .m8n8 is supported");
  auto ts = types_of(ins);
  if (ts.size() != 1 || ts[0] != ET::B16) return c.fail("movmatrix: only .b16 is supported");
  if (ins.operands.size() != 2) return c.fail("movmatrix takes two operands");
  out.op[0] = c.ref(ins.operands[0], Type::B32);
  out.op[1] = c.ref(ins.operands[1], Type::B32);
  out.nops = 2;
  if (out.op[0].is_none() || out.op[1].is_none()) return false;
  out.exec = exec_movmatrix;
  return true;
}

// ------------------------------------------------------------------ mma.sync

// Descriptor packed in imm (shape, types, register counts) and flags.
struct MmaDesc {
  uint8_t m, n;
  uint16_t k;
  ET at, bt, ct, dt;
  uint8_t na, nb, nc, nd;
  uint8_t flags;  // kSat | kPopcAnd | kSparse | kAcol | kBcol
  uint8_t sel;    // mma.sp sparsity selector
};
constexpr uint8_t kSat = 1, kPopcAnd = 2, kSparse = 4, kAcol = 8, kBcol = 16;
static_assert(sizeof(MmaDesc) <= 16);

void put_desc(DInstr& out, const MmaDesc& d) {
  uint64_t w[2] = {0, 0};
  std::memcpy(w, &d, sizeof d);
  out.imm = int64_t(w[0]);
  out.imm2 = int64_t(w[1]);
}
MmaDesc get_desc(const DInstr& in) {
  uint64_t w[2] = {uint64_t(in.imm), uint64_t(in.imm2)};
  MmaDesc d;
  std::memcpy(&d, w, sizeof d);
  return d;
}

// .alayout.blayout: the first .row/.col modifier is A's, the second B's; false unless both are there.
bool ab_layouts(const Instruction& ins, bool& acol, bool& bcol) {
  int seen = 0;
  acol = bcol = false;
  for (unsigned i = 0; i < ins.nmods && seen < 2; ++i)
    if (ins.mods[i] == Mod::row || ins.mods[i] == Mod::col) {
      (seen == 0 ? acol : bcol) = ins.mods[i] == Mod::col;
      ++seen;
    }
  return seen == 2;
}

// Elements per register of an input type.
unsigned per_reg(ET t) { return t == ET::F64 ? 1 : 32 / et_bits(t); }

// mma.sp (PTX ISA 9.7.14.6): A is 2:4 structured sparse. Its rows are cut into chunks (four
// elements for 16- and 8-bit types, two for tf32, eight for 4-bit types) of which half is kept; each
// chunk has a 4-bit metadata field holding two 2-bit indices (low bits first), one per kept element
// in the order the compressed row lists them. tf32 (1:2): the field is 0b0100 (element 0 kept) or
// 0b1110 (element 1): the indices count 16-bit halves, so bit 1 names the element. 4-bit types keep
// two pairs of adjacent elements: the indices name pairs. Which lanes' metadata registers hold which
// fields (9.7.14.6.2 figures; checked on an H100 by validation/mma): the T = chunks-per-row / 4
// lanes 4g + T*sel .. 4g + T*sel + T-1 of each group g of four lanes supply rows g and g+8;
//   f16/bf16/tf32: lane h holds chunks 4h..4h+3, row g in bits 0-15, row g+8 in bits 16-31;
//   s8/u8/s4/u4:   lane 2p holds chunks 8p..8p+7 of row g, lane 2p+1 those of row g+8.
// The other lanes' metadata registers are not read. Repeated indices (undefined behaviour in the
// ISA): the later element of the chunk wins.
std::vector<uint64_t> decompress_sparse_a(ExecCtx& ctx, const MmaDesc& D, Ref oe, const std::vector<uint64_t>& Ac) {
  unsigned M = D.m, K = D.k, KA = K / 2;
  bool isint = D.at != ET::F16 && D.at != ET::BF16 && D.at != ET::TF32;
  unsigned cs = D.at == ET::TF32 ? 2 : (D.at == ET::S4 || D.at == ET::U4) ? 8 : 4;
  unsigned nchunk = K / cs, T = nchunk / 4, kept = cs / 2;
  const uint64_t* e = ctx.src(oe);
  std::vector<uint64_t> A(M * K, 0);
  for (unsigned row = 0; row < M; ++row) {
    unsigned g = row % 8, hi = row / 8;
    for (unsigned c = 0; c < nchunk; ++c) {
      unsigned lane, shift;
      if (isint) { lane = 4 * g + T * D.sel + 2 * (c / 8) + hi; shift = 4 * (c % 8); }
      else { lane = 4 * g + T * D.sel + c / 4; shift = 16 * hi + 4 * (c % 4); }
      unsigned nib = unsigned(e[lane] >> shift) & 15;
      for (unsigned i = 0; i < kept; ++i) {
        unsigned col;
        if (cs == 2) col = 2 * c + (nib >> 1 & 1);
        else if (cs == 8) col = 8 * c + 2 * (nib >> (2 * (i / 2)) & 3) + i % 2;
        else col = 4 * c + (nib >> (2 * i) & 3);
        A[row * K + col] = Ac[row * KA + c * kept + i];
      }
    }
  }
  return A;
}

// mma.m8n8k4 with .f16 inputs (9.7.14.5.1): four independent 8x8x4 products, one per quad pair
// (lanes 4i..4i+3 with 4i+16..4i+19). In the ISA's fragment tables hi = 4 for lanes 16-31, t =
// laneid % 4; element i of lane l:
//   A .row: (t + hi, i)      A .col: (i + hi, t)
//   B .row: (t, i + hi)      B .col: (i, t + hi)
//   C/D .f16 (8 halves):  (t + hi, i)
//   C/D .f32 (8 regs):    ((l & 1) + (i & 2) + hi, (i & 4) + (l & 2) + (i & 1))
void exec_mma_quadpair(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if (!sync_all(ctx)) return;
  MmaDesc D = get_desc(in);
  const Ref* ops = ctx.ops(in);
  const Ref *od = ops, *oa = od + D.nd, *ob = oa + D.na, *oc = ob + D.nb;
  auto cpos = [](bool f16, unsigned l, unsigned i, unsigned& row, unsigned& col) {
    unsigned hi = l >= 16 ? 4 : 0;
    if (f16) { row = (l & 3) + hi; col = i; }
    else { row = (l & 1) + (i & 2) + hi; col = (i & 4) + (l & 2) + (i & 1); }
  };
  double A[4][8][4], B[4][4][8], C[4][8][8];
  bool acol = D.flags & kAcol, bcol = D.flags & kBcol, c16 = D.ct == ET::F16, d16 = D.dt == ET::F16;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    unsigned p = (l % 16) / 4, t = l & 3, hi = l >= 16 ? 4 : 0;
    for (unsigned i = 0; i < 4; ++i) {
      double a = fp_value(ET::F16, field(ctx.src(oa[i / 2])[l], i & 1, 16));
      double b = fp_value(ET::F16, field(ctx.src(ob[i / 2])[l], i & 1, 16));
      if (acol) A[p][i + hi][t] = a; else A[p][t + hi][i] = a;
      if (bcol) B[p][i][t + hi] = b; else B[p][t][i + hi] = b;
    }
    for (unsigned i = 0; i < 8; ++i) {
      unsigned row, col;
      cpos(c16, l, i, row, col);
      C[p][row][col] = c16 ? fp_value(ET::F16, field(ctx.src(oc[i / 2])[l], i & 1, 16)) : fp_value(ET::F32, ctx.src(oc[i])[l]);
    }
  }
  uint64_t outv[8][kWarpSize] = {};
  for (unsigned l = 0; l < kWarpSize; ++l) {
    unsigned p = (l % 16) / 4;
    for (unsigned i = 0; i < 8; ++i) {
      unsigned row, col;
      cpos(d16, l, i, row, col);
      ExactSum s;
      s.add(C[p][row][col]);
      for (unsigned k = 0; k < 4; ++k) s.add(A[p][row][k] * B[p][k][col]);
      uint64_t v = s.round(d16 ? sf::kF16 : sf::kF32);
      if (d16) outv[i / 2][l] |= v << (16 * (i & 1));
      else outv[i][l] = v;
    }
  }
  for (unsigned r = 0; r < D.nd; ++r) {
    uint64_t* d = ctx.dst(od[r]);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1) d[l] = outv[r][l];
  }
}

void exec_mma(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if (!sync_all(ctx)) return;
  MmaDesc D = get_desc(in);
  const Ref* ops = ctx.ops(in);
  const Ref* od = ops;
  const Ref* oa = od + D.nd;
  const Ref* ob = oa + D.na;
  const Ref* oc = ob + D.nb;
  unsigned M = D.m, N = D.n, K = D.k;
  unsigned ea = per_reg(D.at), eb = per_reg(D.bt);
  unsigned abits = et_bits(D.at), bbits = et_bits(D.bt);
  bool sparse = D.flags & kSparse;
  // mma.sp: A's registers hold the M x K/2 compressed matrix in the dense layout of that shape.
  unsigned KA = sparse ? K / 2 : K;
  // Gather raw element bits into A[M][KA], B[K][N], C[M][N].
  std::vector<uint64_t> A(M * KA), B(K * N), C(M * N);
  for (unsigned t = 0; t < kWarpSize; ++t) {
    unsigned g = t >> 2, q = t & 3;
    for (unsigned r = 0; r < D.na; ++r) {
      uint64_t v = ctx.src(oa[r])[t];
      for (unsigned j = 0; j < ea; ++j) {
        unsigned row = M == 16 ? g + 8 * (r & 1) : g;
        unsigned col = M == 16 ? q * ea + j + (r >> 1) * 4 * ea : q * ea + j + r * 4 * ea;
        A[row * KA + col] = field(v, j, abits);
      }
    }
    for (unsigned r = 0; r < D.nb; ++r) {
      uint64_t v = ctx.src(ob[r])[t];
      for (unsigned j = 0; j < eb; ++j) B[(q * eb + j + r * 4 * eb) * N + g] = field(v, j, bbits);
    }
    unsigned ncel = M == 16 ? 4 : 2;
    for (unsigned i = 0; i < ncel; ++i) {
      unsigned row = M == 16 ? g + 8 * (i >> 1) : g, col = 2 * q + (i & 1);
      uint64_t v = D.ct == ET::F16 ? field(ctx.src(oc[i >> 1])[t], i & 1, 16) : ctx.src(oc[i])[t];
      C[row * N + col] = v;
    }
  }
  if (sparse) A = decompress_sparse_a(ctx, D, ops[D.nd + D.na + D.nb + D.nc], A);
  std::vector<uint64_t> R(M * N);
  bool isfloat = D.at == ET::F16 || D.at == ET::BF16 || D.at == ET::TF32;
  if (isfloat) float_mma(M, N, K, D.at, D.bt, D.ct, D.dt, A.data(), B.data(), C.data(), R.data());
  for (unsigned i = 0; i < M && !isfloat; ++i)
    for (unsigned j = 0; j < N; ++j) {
      uint64_t res;
      if (D.at == ET::F64) {
        double acc = sf::d_of(C[i * N + j]);
        for (unsigned k = 0; k < K; ++k) acc = std::fma(sf::d_of(A[i * K + k]), sf::d_of(B[k * N + j]), acc);
        res = sf::b_of(acc);
      } else {
        int64_t acc = int_value(ET::S32, C[i * N + j]);
        if (D.at == ET::B1) {
          for (unsigned k = 0; k < K; ++k)
            acc += (D.flags & kPopcAnd) ? (A[i * K + k] & B[k * N + j]) : (A[i * K + k] ^ B[k * N + j]);
        } else {
          for (unsigned k = 0; k < K; ++k) acc += int_value(D.at, A[i * K + k]) * int_value(D.bt, B[k * N + j]);
        }
        if (D.flags & kSat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        res = uint32_t(acc);
      }
      R[i * N + j] = res;
    }
  // Write D (after every read: d may alias a, b or c).
  unsigned ncel = M == 16 ? 4 : 2;
  uint64_t outv[8][kWarpSize] = {};
  for (unsigned t = 0; t < kWarpSize; ++t) {
    unsigned g = t >> 2, q = t & 3;
    for (unsigned i = 0; i < ncel; ++i) {
      unsigned row = M == 16 ? g + 8 * (i >> 1) : g, col = 2 * q + (i & 1);
      uint64_t v = R[row * N + col];
      if (D.dt == ET::F16) outv[i >> 1][t] |= (v & 0xffff) << (16 * (i & 1));
      else outv[i][t] = v;
    }
  }
  for (unsigned r = 0; r < D.nd; ++r) {
    uint64_t* d = ctx.dst(od[r]);
    for (unsigned t = 0; t < kWarpSize; ++t)
      if (mask >> t & 1) d[t] = outv[r][t];
  }
}

Type reg_type(ET t) {
  switch (t) {
    case ET::F32: return Type::F32;
    case ET::F64: return Type::F64;
    case ET::S32: return Type::S32;
    default: return Type::B32;
  }
}

bool dec_mma(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!ins.has(Mod::sync) || !ins.has(Mod::aligned)) return c.fail("mma needs .sync.aligned");
  bool sparse = ins.has(Mod::sp) || ins.has(Mod::sp_ordered_metadata);
  auto ts = types_of(ins);
  unsigned M = ins.shape.m, N = ins.shape.n, K = ins.shape.k;
  std::string form = fmt::format("{}.m{}n{}k{}", sparse ? "mma.sp" : "mma", M, N, K);
  for (auto t : ts) form += std::string(".") + et_name(t);
  auto unsupported = [&](const char* why) {
    return c.fail(fmt::format("{} is not supported ({})", form, why));
  };
  if (ins.operands.size() != (sparse ? 6u : 4u))
    return unsupported(sparse ? "expected d, a, b, c, e, f operands" : "expected d, a, b, c operands");
  MmaDesc D{};
  D.m = uint8_t(M); D.n = uint8_t(N); D.k = uint16_t(K);
  if (ts.size() != 4) return unsupported("expected .dtype.atype.btype.ctype");
  D.dt = ts[0]; D.at = ts[1]; D.bt = ts[2]; D.ct = ts[3];
  bool quadpair = D.at == ET::F16 && M == 8 && N == 8 && K == 4;
  bool arow = ins.has(Mod::row), acol_b = ins.has(Mod::col);
  if (quadpair) {
    bool acol, bcol;
    if (!ab_layouts(ins, acol, bcol)) return unsupported("expected .alayout.blayout");
    D.flags |= (acol ? kAcol : 0) | (bcol ? kBcol : 0);
  } else if (!arow || !acol_b) {
    return unsupported("only .row.col layouts");
  }
  if (D.at != D.bt && !((D.at == ET::S8 || D.at == ET::U8) && (D.bt == ET::S8 || D.bt == ET::U8)) &&
      !((D.at == ET::S4 || D.at == ET::U4) && (D.bt == ET::S4 || D.bt == ET::U4)))
    return unsupported("A and B types differ");
  auto shape_is = [&](unsigned m, unsigned n, unsigned k) { return M == m && N == n && K == k; };
  bool ok = false;
  if (sparse) {
    // The sm_80 mma.sp forms (9.7.14.6); .f16 needs dtype == ctype.
    switch (D.at) {
      case ET::F16:
        ok = (shape_is(16, 8, 16) || shape_is(16, 8, 32)) && D.dt == D.ct && (D.dt == ET::F32 || D.dt == ET::F16);
        break;
      case ET::BF16: ok = (shape_is(16, 8, 16) || shape_is(16, 8, 32)) && D.dt == ET::F32 && D.ct == ET::F32; break;
      case ET::TF32: ok = (shape_is(16, 8, 8) || shape_is(16, 8, 16)) && D.dt == ET::F32 && D.ct == ET::F32; break;
      case ET::S8: case ET::U8:
        ok = (shape_is(16, 8, 32) || shape_is(16, 8, 64)) && D.dt == ET::S32 && D.ct == ET::S32;
        break;
      case ET::S4: case ET::U4:
        ok = (shape_is(16, 8, 64) || shape_is(16, 8, 128)) && D.dt == ET::S32 && D.ct == ET::S32;
        break;
      default: break;
    }
    if (!ok) return unsupported("no such sparse shape/type combination");
  } else {
    switch (D.at) {
      case ET::F16:
        ok = (shape_is(16, 8, 16) || shape_is(16, 8, 8) || shape_is(8, 8, 4)) && (D.dt == ET::F32 || D.dt == ET::F16) &&
             (D.ct == ET::F32 || D.ct == ET::F16);
        // m8n8k4: a .f16 result needs a .f16 accumulator
        if (ok && M == 8 && D.dt == ET::F16 && D.ct == ET::F32) ok = false;
        break;
      case ET::BF16:
        ok = (shape_is(16, 8, 16) || shape_is(16, 8, 8)) && D.dt == ET::F32 && D.ct == ET::F32;
        break;
      case ET::TF32: ok = (shape_is(16, 8, 4) || shape_is(16, 8, 8)) && D.dt == ET::F32 && D.ct == ET::F32; break;
      case ET::F64: ok = shape_is(8, 8, 4) && D.dt == ET::F64 && D.ct == ET::F64; break;
      case ET::S8: case ET::U8:
        ok = (shape_is(16, 8, 16) || shape_is(16, 8, 32) || shape_is(8, 8, 16)) && D.dt == ET::S32 && D.ct == ET::S32;
        break;
      case ET::S4: case ET::U4:
        ok = (shape_is(16, 8, 32) || shape_is(16, 8, 64) || shape_is(8, 8, 32)) && D.dt == ET::S32 && D.ct == ET::S32;
        break;
      case ET::B1:
        ok = (shape_is(16, 8, 128) || shape_is(16, 8, 256) || shape_is(8, 8, 128)) && D.dt == ET::S32 &&
             D.ct == ET::S32;
        if (ok && !ins.has(Mod::popc)) return unsupported(".b1 needs .xor.popc or .and.popc");
        if (ins.has(Mod::and_)) D.flags |= kPopcAnd;
        break;
      default: break;
    }
    if (!ok) return unsupported("shape/type combination not implemented");
  }
  if (ins.has(Mod::satfinite)) D.flags |= kSat;
  unsigned ea = per_reg(D.at), eb = per_reg(D.bt);
  unsigned celems = quadpair ? 8 : M * N / 32;
  if (quadpair) {
    D.na = D.nb = 2;
  } else {
    D.na = uint8_t(M * (sparse ? K / 2 : K) / 32 / ea);
    D.nb = uint8_t(K * N / 32 / eb);
  }
  D.nc = uint8_t(D.ct == ET::F16 ? celems / 2 : celems);
  D.nd = uint8_t(D.dt == ET::F16 ? celems / 2 : celems);
  std::vector<Ref> refs;
  if (!vec_refs(c, ins.operands[0], reg_type(D.dt), refs, D.nd, "the D operand")) return false;
  if (!vec_refs(c, ins.operands[1], reg_type(D.at), refs, D.na, "the A operand")) return false;
  if (!vec_refs(c, ins.operands[2], reg_type(D.bt), refs, D.nb, "the B operand")) return false;
  if (!vec_refs(c, ins.operands[3], reg_type(D.ct), refs, D.nc, "the C operand")) return false;
  if (sparse) {
    D.flags |= kSparse;
    const Operand& e = ins.operands[4];
    if (e.kind != Operand::Kind::Reg) return unsupported("the metadata operand e must be a 32-bit register");
    Ref er = c.ref(e, Type::B32);
    if (er.is_none()) return false;
    refs.push_back(er);
    // f: which lanes of each group of four supply the metadata; an integer constant in
    // [0, 4 / T), T = metadata lanes per group (chunks per row / 4).
    const Operand& f = ins.operands[5];
    if (f.kind != Operand::Kind::Imm) return unsupported("the sparsity selector f must be an integer constant");
    unsigned cs = D.at == ET::TF32 ? 2 : (D.at == ET::S4 || D.at == ET::U4) ? 8 : 4;
    unsigned T = K / cs / 4;
    if (f.ival < 0 || f.ival >= int64_t(4 / T))
      return c.fail(fmt::format("{}: sparsity selector {} is out of range (0..{} for this shape)", form, f.ival, 4 / T - 1));
    D.sel = uint8_t(f.ival);
  }
  for (unsigned i = 0; i < D.nd; ++i)
    if (refs[i].kind() != Ref::Reg) return c.fail("mma destinations must be registers");
  put_desc(out, D);
  c.set_ops(out, refs);
  out.exec = quadpair ? exec_mma_quadpair : exec_mma;
  return true;
}

// ------------------------------------------------------------------ wmma

// A fragment: its logical matrix (rows x cols), element type and register count. Registers hold
// per_reg(et) elements of et_bits(et) bits (64-bit registers for .f64); slot s is element s % epr
// of register s / epr.
struct WmmaFrag {
  unsigned rows, cols;
  ET et;
  unsigned nregs;
  unsigned bits() const { return et_bits(et); }
  unsigned epr() const { return bits() >= 32 ? 1 : 32 / bits(); }
  unsigned slots() const { return nregs * epr(); }
  unsigned uniq() const { return rows * cols / 32; }
};

inline uint64_t frag_get(ExecCtx& ctx, const Ref* regs, const WmmaFrag& f, unsigned lane, unsigned slot) {
  uint64_t v = ctx.src(regs[slot / f.epr()])[lane];
  if (f.bits() == 64) return v;
  return field(v, slot % f.epr(), f.bits());
}

inline void frag_put(ExecCtx& ctx, const Ref* regs, const WmmaFrag& f, unsigned lane, unsigned slot, uint64_t v) {
  uint64_t& d = ctx.dst(regs[slot / f.epr()])[lane];
  unsigned b = f.bits();
  if (b >= 32) {
    d = b == 64 ? v : v & 0xffffffffull;
    return;
  }
  unsigned sh = (slot % f.epr()) * b;
  uint64_t m = ((1ull << b) - 1) << sh;
  d = ((d & ~m) | ((v << sh) & m)) & 0xffffffffull;
}

// flags: space (0-3), rel (8-10), bit 16: column-major memory layout.
// imm/target: address offset/shared var; imm2: rows | cols << 8 | nregs << 16 | et << 24.
// ops: base, stride (or none), registers. Strides count elements (sub-byte types too: element
// (r, c) of a row-major 4-bit matrix is at bit 4 * (r * stride + c)).
WmmaFrag frag_of_imm2(int64_t v) {
  return WmmaFrag{unsigned(v & 0xff), unsigned((v >> 8) & 0xff), ET((v >> 24) & 0xff), unsigned((v >> 16) & 0xff)};
}

template <bool Store>
void exec_wmma_ldst(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if (!sync_all(ctx)) return;
  const Ref* ops = ctx.ops(in);
  WmmaFrag f = frag_of_imm2(in.imm2);
  AccessSpace sp = AccessSpace(in.flags & 15);
  bool colmajor = in.flags & (1u << 16);
  unsigned bits = f.bits(), esz = std::max(1u, bits / 8);
  const uint64_t* base = ops[0].is_none() ? nullptr : ctx.src(ops[0]);
  const uint64_t* stride = ops[1].is_none() ? nullptr : ctx.src(ops[1]);
  const Ref* regs = ops + 2;
  unsigned U = f.uniq(), S = f.slots();
  // The fragment in logical coordinates: lane l, element u at idx = l*U + u.
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    uint64_t a0 = lane_address(ctx, in, base, l);
    uint64_t ld = stride ? uint32_t(stride[l]) : (colmajor ? f.rows : f.cols);
    for (unsigned u = 0; u < U; ++u) {
      unsigned idx = l * U + u, r = idx / f.cols, cc = idx % f.cols;
      uint64_t off = colmajor ? uint64_t(cc) * ld + r : uint64_t(r) * ld + cc;
      uint64_t bit = off * bits;
      uint8_t* p = resolve_access(ctx, sp, l, a0 + bit / 8, esz, Store);
      if (!p) return;
      if (Store) {
        uint64_t v = frag_get(ctx, regs, f, l, u);
        std::memcpy(p, &v, esz);
      } else {
        uint64_t v = 0;
        std::memcpy(&v, p, esz);
        if (bits < 8) v = (v >> (bit % 8)) & ((1u << bits) - 1);
        for (unsigned s = u; s < S; s += U) frag_put(ctx, regs, f, l, s, v);
      }
    }
  }
}

// Element type and register count of a wmma fragment (PTX ISA 9.7.14.4.1 fragment tables); 0 when
// the type is not valid for this fragment and shape.
unsigned wmma_nregs(char frag, unsigned M, unsigned N, unsigned K, ET et) {
  bool s16 = K == 16 && ((M == 16 && N == 16) || (M == 32 && N == 8) || (M == 8 && N == 32));
  bool tf = M == 16 && N == 16 && K == 8, f64 = M == 8 && N == 8 && K == 4;
  bool i4 = M == 8 && N == 8 && K == 32, b1 = M == 8 && N == 8 && K == 128;
  unsigned rows = frag == 'a' ? M : frag == 'b' ? K : M, cols = frag == 'a' ? K : N;
  unsigned U = rows * cols / 32;
  if (frag == 'a' || frag == 'b') {
    switch (et) {
      case ET::F16: return s16 ? 8 : 0;  // 16 halves hold the 8 elements twice
      case ET::BF16: return s16 ? U / 2 : 0;
      case ET::S8: case ET::U8: return s16 ? U / 4 : 0;
      case ET::TF32: return tf ? U : 0;
      case ET::F64: return f64 ? U : 0;
      case ET::S4: case ET::U4: return i4 ? U / 8 : 0;
      case ET::B1: return b1 ? U / 32 : 0;
      default: return 0;
    }
  }
  switch (et) {
    case ET::F16: return s16 ? U / 2 : 0;
    case ET::F32: return s16 || tf ? U : 0;
    case ET::S32: return s16 || i4 || b1 ? U : 0;
    case ET::F64: return f64 ? U : 0;
    default: return 0;
  }
}

bool dec_wmma_ldst(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  bool store = ins.op == Opcode::WmmaStore;
  const char* name = store ? "wmma.store" : "wmma.load";
  if (!ins.has(Mod::sync) || !ins.has(Mod::aligned)) return c.fail(fmt::format("{} needs .sync.aligned", name));
  unsigned M = ins.shape.m, N = ins.shape.n, K = ins.shape.k;
  bool is_a = ins.has(Mod::ach), is_b = ins.has(Mod::bch), is_c = ins.has(Mod::c), is_d = ins.has(Mod::d);
  if (store ? !is_d : !(is_a || is_b || is_c)) return c.fail(fmt::format("{}: missing fragment kind", name));
  bool col = ins.has(Mod::col);
  if (!col && !ins.has(Mod::row)) return c.fail(fmt::format("{} needs .row or .col", name));
  auto ts = types_of(ins);
  if (ts.size() != 1) return c.fail(fmt::format("{} needs one element type", name));
  ET et = ts[0];
  char frag = is_a ? 'a' : is_b ? 'b' : 'c';
  unsigned nregs = wmma_nregs(frag, M, N, K, et);
  if (!nregs)
    return c.fail(fmt::format("{}.{}.m{}n{}k{}.{} is not a wmma fragment (shape/type combination)", name,
                              is_d ? 'd' : frag, M, N, K, et_name(et)));
  // Sub-byte matrices: A is row-major and B column-major only.
  if ((et == ET::S4 || et == ET::U4 || et == ET::B1) && (is_a ? col : is_b ? !col : false))
    return c.fail(fmt::format("{}.{}.{}: .{} A fragments must be .row and B fragments .col", name, frag,
                              col ? "col" : "row", et_name(et)));
  WmmaFrag f{};
  f.rows = is_b ? K : M;
  f.cols = is_a ? K : N;
  f.et = et;
  f.nregs = nregs;
  const Operand& addr = store ? ins.operands[0] : ins.operands[1];
  const Operand& data = store ? ins.operands[1] : ins.operands[0];
  MemRef r;
  if (!c.mem(addr, r)) return false;
  AccessSpace sp = space_of(ins, r);
  std::vector<Ref> refs{r.base};
  if (ins.operands.size() >= 3) {
    Ref s = c.ref(ins.operands[2], Type::U32);
    if (s.is_none()) return false;
    refs.push_back(s);
  } else {
    refs.push_back(Ref::none());
  }
  if (!vec_refs(c, data, reg_type(et), refs, nregs, name)) return false;
  out.flags = uint32_t(sp) | (uint32_t(r.rel) << 8) | (col ? 1u << 16 : 0);
  out.imm = r.offset;
  out.target = r.shared_var;
  out.imm2 = int64_t(f.rows | f.cols << 8 | nregs << 16 | uint32_t(et) << 24);
  c.set_ops(out, refs);
  out.exec = store ? exec_wmma_ldst<true> : exec_wmma_ldst<false>;
  return true;
}

// imm: M | N << 8 | K << 16 | at << 24 | ct << 32 | dt << 40 | flags << 48 (kSat, kPopcAnd) |
// rounding << 56 (f64); imm2: na | nb << 8 | nc << 16 | nd << 24
void exec_wmma_mma(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if (!sync_all(ctx)) return;
  const Ref* ops = ctx.ops(in);
  uint64_t p = uint64_t(in.imm), q = uint64_t(in.imm2);
  unsigned M = p & 0xff, N = (p >> 8) & 0xff, K = (p >> 16) & 0xff;
  ET at = ET((p >> 24) & 0xff), ct = ET((p >> 32) & 0xff), dt = ET((p >> 40) & 0xff);
  uint8_t flags = uint8_t(p >> 48);
  fp::Rnd rnd = fp::Rnd(p >> 56);
  unsigned na = q & 0xff, nb = (q >> 8) & 0xff, nc = (q >> 16) & 0xff, nd = (q >> 24) & 0xff;
  WmmaFrag fa{M, K, at, na}, fb{K, N, at, nb}, fc{M, N, ct, nc}, fd{M, N, dt, nd};
  const Ref *od = ops, *oa = od + nd, *ob = oa + na, *oc = ob + nb;
  std::vector<uint64_t> A(M * K), B(K * N), C(M * N);
  auto gather = [&](const WmmaFrag& f, const Ref* regs, std::vector<uint64_t>& X) {
    unsigned U = f.uniq();
    for (unsigned l = 0; l < kWarpSize; ++l)
      for (unsigned u = 0; u < U; ++u) X[l * U + u] = frag_get(ctx, regs, f, l, u);
  };
  gather(fa, oa, A);
  gather(fb, ob, B);
  gather(fc, oc, C);
  std::vector<uint64_t> R(M * N);
  bool isfloat = at == ET::F16 || at == ET::BF16 || at == ET::TF32;
  if (isfloat) float_mma(M, N, K, at, at, ct, dt, A.data(), B.data(), C.data(), R.data());
  for (unsigned i = 0; i < M && !isfloat; ++i)
    for (unsigned j = 0; j < N; ++j) {
      if (at == ET::F64) {
        // fused multiply-adds in k order, each rounded in the instruction's mode
        double acc = sf::d_of(C[i * N + j]);
        fp::with_rounding(rnd, [&] {
          for (unsigned k = 0; k < K; ++k) acc = std::fma(sf::d_of(A[i * K + k]), sf::d_of(B[k * N + j]), acc);
        });
        R[i * N + j] = sf::b_of(acc);
      } else {
        int64_t acc = int_value(ET::S32, C[i * N + j]);
        for (unsigned k = 0; k < K; ++k) {
          if (at == ET::B1) acc += (flags & kPopcAnd) ? (A[i * K + k] & B[k * N + j]) : (A[i * K + k] ^ B[k * N + j]);
          else acc += int_value(at, A[i * K + k]) * int_value(at, B[k * N + j]);
        }
        if (flags & kSat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        R[i * N + j] = uint32_t(acc);
      }
    }
  // D after every read (d may alias a, b or c): stage the values, then write the registers.
  unsigned U = fd.uniq();
  std::vector<uint64_t> staged(size_t(kWarpSize) * U);
  for (unsigned l = 0; l < kWarpSize; ++l)
    for (unsigned u = 0; u < U; ++u) staged[l * U + u] = R[l * U + u];
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1)) continue;
    for (unsigned r = 0; r < nd; ++r) ctx.dst(od[r])[l] = 0;
    for (unsigned u = 0; u < U; ++u) frag_put(ctx, od, fd, l, u, staged[l * U + u]);
  }
}

bool dec_wmma_mma(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  if (!ins.has(Mod::sync) || !ins.has(Mod::aligned)) return c.fail("wmma.mma needs .sync.aligned");
  unsigned M = ins.shape.m, N = ins.shape.n, K = ins.shape.k;
  auto ts = types_of(ins);
  ET at, ct, dt;
  if (ts.size() == 2) {  // .dtype.ctype with f16 inputs
    at = ET::F16; dt = ts[0]; ct = ts[1];
  } else if (ts.size() == 4 && ts[1] == ts[2]) {
    dt = ts[0]; at = ts[1]; ct = ts[3];
  } else {
    return c.fail("wmma.mma: unsupported type combination (.dtype.atype.btype.ctype with atype == btype, or .dtype.ctype for .f16)");
  }
  std::string form = fmt::format("wmma.mma.m{}n{}k{}.{}.{}.{}.{}", M, N, K, et_name(dt), et_name(at), et_name(at), et_name(ct));
  bool isint = at == ET::S8 || at == ET::U8 || at == ET::S4 || at == ET::U4 || at == ET::B1;
  if (ins.has(Mod::satfinite) && (!isint || at == ET::B1))
    return c.fail(fmt::format("{}: .satfinite applies to integer wmma only", form));
  // Accumulators: f16 inputs take f16 or f32; bf16/tf32 f32; integer s32; f64 f64.
  bool acc_ok = false;
  switch (at) {
    case ET::F16: acc_ok = (dt == ET::F32 || dt == ET::F16) && (ct == ET::F32 || ct == ET::F16); break;
    case ET::BF16: case ET::TF32: acc_ok = dt == ET::F32 && ct == ET::F32; break;
    case ET::F64: acc_ok = dt == ET::F64 && ct == ET::F64; break;
    default: acc_ok = isint && dt == ET::S32 && ct == ET::S32; break;
  }
  unsigned na = wmma_nregs('a', M, N, K, at), nb = wmma_nregs('b', M, N, K, at);
  unsigned nc = wmma_nregs('c', M, N, K, ct), nd = wmma_nregs('c', M, N, K, dt);
  if (!acc_ok || !na || !nb || !nc || !nd) return c.fail(fmt::format("{} is not supported", form));
  // Sub-byte types are .row.col only.
  bool acol, bcol;
  if (!ab_layouts(ins, acol, bcol)) return c.fail(fmt::format("{} needs .alayout.blayout", form));
  if ((at == ET::S4 || at == ET::U4 || at == ET::B1) && (acol || !bcol))
    return c.fail(fmt::format("{}: sub-byte wmma.mma is .row.col only", form));
  uint8_t flags = 0;
  if (ins.has(Mod::satfinite)) flags |= kSat;
  if (at == ET::B1) {
    if (!ins.has(Mod::popc) || !(ins.has(Mod::xor_) || ins.has(Mod::and_)))
      return c.fail(fmt::format("{} needs .xor.popc or .and.popc", form));
    if (ins.has(Mod::and_)) flags |= kPopcAnd;
  }
  fp::Rnd rnd = fp::Rnd::Rn;
  if (ins.has(Mod::rz)) rnd = fp::Rnd::Rz;
  else if (ins.has(Mod::rm)) rnd = fp::Rnd::Rm;
  else if (ins.has(Mod::rp)) rnd = fp::Rnd::Rp;
  if (rnd != fp::Rnd::Rn && at != ET::F64) return c.fail(fmt::format("{}: rounding modifiers apply to .f64 only", form));
  if (ins.operands.size() != 4) return c.fail("wmma.mma takes d, a, b, c");
  std::vector<Ref> refs;
  if (!vec_refs(c, ins.operands[0], reg_type(dt), refs, nd, "the D fragment")) return false;
  if (!vec_refs(c, ins.operands[1], reg_type(at), refs, na, "the A fragment")) return false;
  if (!vec_refs(c, ins.operands[2], reg_type(at), refs, nb, "the B fragment")) return false;
  if (!vec_refs(c, ins.operands[3], reg_type(ct), refs, nc, "the C fragment")) return false;
  for (unsigned i = 0; i < nd; ++i)
    if (refs[i].kind() != Ref::Reg) return c.fail("wmma.mma destinations must be registers");
  out.imm = int64_t(uint64_t(M) | uint64_t(N) << 8 | uint64_t(K) << 16 | uint64_t(at) << 24 | uint64_t(ct) << 32 |
                    uint64_t(dt) << 40 | uint64_t(flags) << 48 | uint64_t(rnd) << 56);
  out.imm2 = int64_t(na | nb << 8 | nc << 16 | nd << 24);
  c.set_ops(out, refs);
  out.exec = exec_wmma_mma;
  return true;
}

// ------------------------------------------------------------------ wgmma (sm_90a)

// wgmma.mma_async (PTX ISA 8.7, 9.7.15): D (64 x N) = A (64 x K) x B (K x N) + (scale-d ? D : 0),
// issued by a warpgroup of four consecutive warps (warp id % 4 == 0 first). Warp q of the group
// owns rows 16q..16q+15 of D, and of A when A comes from registers, so each warp computes its own
// share at its own issue: its 16 rows of A (shared memory through the descriptor, or its
// registers), all of B (shared memory), its accumulators. No warp waits for the others; the ISA
// forbids changing the operands before wgmma.wait_group says the MMA is done, so reading them at
// issue is what the hardware computes. The arithmetic is mma.sync's (float_mma: the exact sum of
// the products and C rounded once; integer: exact, wrapped or .satfinite). imm-scale-a/b = -1
// negate A/B; scale-d false ignores D's old value.
// Fragments per warp (ISA figures for .m64nNk16/k8/k32; groupID g = lane / 4, t = lane % 4):
//   D element i (i < N/2): row g + 8 * ((i >> 1) & 1), col 8 * (i >> 2) + 2t + (i & 1); .f16
//     accumulators pack elements 2j, 2j+1 in register j; .f32/.s32 one per register.
//   A in registers (4 x 32 bits): mma.m16n8kK's A layout (register r, element j: row g + 8(r & 1),
//     col t * e + j + (r >> 1) * 4e, e = elements per register).
// Shared-memory operands: func/wgmma_desc.hpp. Sparse (.sp) and .b1 forms are refused at decode.
struct WgDesc {
  uint16_t n;
  uint8_t k;
  ET at, bt, dt;
  uint8_t nd;
  uint8_t flags;  // kWgAReg | kWgTransA | kWgTransB | kWgNegA | kWgNegB | kWgSat | kWgScaleImm | kWgScaleOne
};
constexpr uint8_t kWgAReg = 1, kWgTransA = 2, kWgTransB = 4, kWgNegA = 8, kWgNegB = 16, kWgSat = 32, kWgScaleImm = 64,
                  kWgScaleOne = 128;
static_assert(sizeof(WgDesc) <= 8);

// Reads the rows [mn0, mn0 + rows) x K of an operand from shared memory into X (row-major, raw
// element bits); false after a fault.
bool wgmma_read_smem(ExecCtx& ctx, uint64_t desc, unsigned mn0, unsigned rows, unsigned K, ET et, bool mn_major,
                     uint64_t* X) {
  WgmmaDesc d = WgmmaDesc::decode(desc);
  unsigned lane = std::countr_zero(ctx.w.valid ? ctx.w.valid : 1u);
  if (d.swizzle_bytes && d.base_offset) {
    ctx.fault(FaultKind::Unsupported, lane, d.start,
              fmt::format("wgmma: matrix descriptor 0x{:016x} has base offset {} (a swizzle pattern not aligned to its "
                          "repeat), which is not modelled",
                          desc, d.base_offset));
    return false;
  }
  unsigned bits = et_bits(et), bytes = bits / 8;
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned k = 0; k < K; ++k) {
      uint32_t a = wgmma_smem_address(d, mn0 + r, k, bits, mn_major);
      const uint8_t* p = resolve_access(ctx, AccessSpace::Shared, lane, a, bytes, false);
      if (!p) return false;
      X[r * K + k] = load_bytes(p, bytes);
    }
  return true;
}

void exec_wgmma(ExecCtx& ctx, const DInstr& in, uint32_t mask) {
  if (!sync_all(ctx)) return;
  WgDesc D;
  {
    uint64_t w = uint64_t(in.imm);
    std::memcpy(&D, &w, sizeof D);
  }
  const Ref* ops = ctx.ops(in);
  const unsigned N = D.n, K = D.k, M = 16, q = ctx.w.id % 4;
  const Ref* od = ops;
  const bool areg = D.flags & kWgAReg;
  const Ref* oa = od + D.nd;
  const Ref ob = oa[areg ? 4 : 1];
  const Ref oscale = oa[areg ? 5 : 2];
  const unsigned first = std::countr_zero(ctx.w.valid ? ctx.w.valid : 1u);
  thread_local std::vector<uint64_t> A, Bt, B, C, R;
  A.assign(M * K, 0);
  Bt.assign(size_t(N) * K, 0);
  B.resize(size_t(K) * N);
  C.assign(M * N, 0);
  R.resize(M * N);
  if (areg) {
    unsigned ea = per_reg(D.at), abits = et_bits(D.at);
    for (unsigned t = 0; t < kWarpSize; ++t) {
      unsigned g = t >> 2, tq = t & 3;
      for (unsigned r = 0; r < 4; ++r) {
        uint64_t v = ctx.src(oa[r])[t];
        for (unsigned j = 0; j < ea; ++j) A[(g + 8 * (r & 1)) * K + tq * ea + j + (r >> 1) * 4 * ea] = field(v, j, abits);
      }
    }
  } else if (!wgmma_read_smem(ctx, ctx.src(oa[0])[first], 16 * q, M, K, D.at, D.flags & kWgTransA, A.data())) {
    return;
  }
  if (!wgmma_read_smem(ctx, ctx.src(ob)[first], 0, N, K, D.bt, D.flags & kWgTransB, Bt.data())) return;
  for (unsigned n = 0; n < N; ++n)
    for (unsigned k = 0; k < K; ++k) B[k * N + n] = Bt[n * K + k];
  // Negation flips the sign bit of every element (the float types only: the ISA has no
  // imm-scale for integers).
  auto negate = [](std::vector<uint64_t>& X, ET t) {
    uint64_t s = 1ull << (et_bits(t) - 1);
    for (auto& x : X) x ^= s;
  };
  if (D.flags & kWgNegA) negate(A, D.at);
  if (D.flags & kWgNegB) negate(B, D.bt);
  bool scale_d = (D.flags & kWgScaleImm) ? (D.flags & kWgScaleOne) : (ctx.pred(oscale) >> first & 1);
  const bool d16 = D.dt == ET::F16;
  if (scale_d)
    for (unsigned t = 0; t < kWarpSize; ++t) {
      unsigned g = t >> 2, tq = t & 3;
      for (unsigned i = 0; i < N / 2; ++i) {
        unsigned row = g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * tq + (i & 1);
        C[row * N + col] = d16 ? field(ctx.src(od[i >> 1])[t], i & 1, 16) : ctx.src(od[i])[t] & 0xffffffffu;
      }
    }
  const bool isint = D.at == ET::S8 || D.at == ET::U8;
  if (!isint) {
    float_mma(M, N, K, D.at, D.bt, d16 ? ET::F16 : ET::F32, D.dt, A.data(), B.data(), C.data(), R.data());
  } else {
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        int64_t acc = int_value(ET::S32, C[i * N + j]);
        for (unsigned k = 0; k < K; ++k) acc += int_value(D.at, A[i * K + k]) * int_value(D.bt, B[k * N + j]);
        if (D.flags & kWgSat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        R[i * N + j] = uint32_t(acc);
      }
  }
  for (unsigned t = 0; t < kWarpSize; ++t) {
    if (!(mask >> t & 1)) continue;
    unsigned g = t >> 2, tq = t & 3;
    if (d16)
      for (unsigned j = 0; j < D.nd; ++j) ctx.dst(od[j])[t] = 0;
    for (unsigned i = 0; i < N / 2; ++i) {
      unsigned row = g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * tq + (i & 1);
      uint64_t v = R[row * N + col];
      if (d16) ctx.dst(od[i >> 1])[t] |= (v & 0xffff) << (16 * (i & 1));
      else ctx.dst(od[i])[t] = v & 0xffffffffu;
    }
  }
}

bool dec_wgmma(DecodeCtx& c, const Instruction& ins, DInstr& out) {
  auto ts = types_of(ins);
  unsigned M = ins.shape.m, N = ins.shape.n, K = ins.shape.k;
  std::string form = fmt::format("wgmma.mma_async{}.m{}n{}k{}", ins.has(Mod::sp) ? ".sp" : "", M, N, K);
  for (auto t : ts) form += std::string(".") + et_name(t);
  auto unsupported = [&](const std::string& why) { return c.fail(fmt::format("{} is not supported ({})", form, why)); };
  if (!ins.has(Mod::sync) || !ins.has(Mod::aligned)) return c.fail("wgmma.mma_async needs .sync.aligned");
  if (ins.has(Mod::sp)) return unsupported("sparse wgmma is not implemented");
  if (ts.size() != 3) return unsupported("expected .dtype.atype.btype");
  WgDesc D{};
  D.dt = ts[0];
  D.at = ts[1];
  D.bt = ts[2];
  auto is8f = [](ET t) { return t == ET::E4M3 || t == ET::E5M2; };
  auto is8i = [](ET t) { return t == ET::S8 || t == ET::U8; };
  bool ok = false, isint = false, trans_ok = false;
  unsigned want_k = 0;
  if ((D.at == ET::F16 || D.at == ET::BF16) && D.bt == D.at) {
    want_k = 16;
    trans_ok = true;
    ok = D.dt == ET::F32 || (D.dt == ET::F16 && D.at == ET::F16);
  } else if (D.at == ET::TF32 && D.bt == ET::TF32) {
    want_k = 8;
    ok = D.dt == ET::F32;
  } else if (is8f(D.at) && is8f(D.bt)) {
    want_k = 32;
    ok = D.dt == ET::F32 || D.dt == ET::F16;
  } else if (is8i(D.at) && is8i(D.bt)) {
    want_k = 32;
    isint = true;
    ok = D.dt == ET::S32;
  } else if (D.at == ET::B1) {
    return unsupported(".b1 wgmma is not implemented");
  }
  if (!ok) return unsupported("no such type combination");
  bool n_ok = isint ? (N == 8 || N == 24 || (N % 16 == 0 && N >= 16 && N <= 256)) : (N % 8 == 0 && N >= 8 && N <= 256);
  if (M != 64 || K != want_k || !n_ok) return unsupported("no such shape for these types");
  if (ins.has(Mod::satfinite)) {
    if (!isint) return unsupported(".satfinite applies to integer wgmma only");
    D.flags |= kWgSat;
  }
  D.n = uint16_t(N);
  D.k = uint8_t(K);
  D.nd = uint8_t(D.dt == ET::F16 ? N / 4 : N / 2);
  const auto& o = ins.operands;
  const bool areg = o.size() >= 2 && o[1].kind == Operand::Kind::Vector;
  // d, a, b, scale-d, then imm-scale-a, imm-scale-b (floating types), imm-trans-a (16-bit types, A
  // from shared memory), imm-trans-b (16-bit types).
  size_t want = 4 + (isint ? 0 : 2) + (trans_ok ? (areg ? 1 : 2) : 0);
  if (o.size() != want) return unsupported(fmt::format("expected {} operands, not {}", want, o.size()));
  std::vector<Ref> refs;
  if (!vec_refs(c, o[0], reg_type(D.dt), refs, D.nd, "the D operand")) return false;
  for (auto& r : refs)
    if (r.kind() != Ref::Reg) return c.fail("wgmma.mma_async destinations must be registers");
  if (areg) {
    D.flags |= kWgAReg;
    if (!vec_refs(c, o[1], Type::B32, refs, 4, "the A operand")) return false;
  } else {
    Ref a = c.ref(o[1], Type::B64);
    if (a.is_none()) return false;
    refs.push_back(a);
  }
  Ref b = c.ref(o[2], Type::B64);
  if (b.is_none()) return false;
  refs.push_back(b);
  if (o[3].kind == Operand::Kind::Imm) {
    D.flags |= kWgScaleImm | (o[3].ival ? kWgScaleOne : 0);
    refs.push_back(Ref::none());
  } else {
    Ref p = c.ref(o[3], Type::Pred);
    if (p.is_none()) return false;
    if (p.kind() != Ref::Pred) return c.fail("wgmma.mma_async: scale-d must be a predicate or an integer constant");
    refs.push_back(p);
  }
  auto imm = [&](size_t i, int64_t& v) {
    if (o[i].kind != Operand::Kind::Imm) return false;
    v = o[i].ival;
    return true;
  };
  size_t i = 4;
  if (!isint) {
    for (unsigned s = 0; s < 2; ++s, ++i) {
      int64_t v;
      if (!imm(i, v) || (v != 1 && v != -1)) return c.fail(fmt::format("{}: imm-scale-{} must be 1 or -1", form, s ? 'b' : 'a'));
      if (v == -1) D.flags |= s ? kWgNegB : kWgNegA;
    }
  }
  if (trans_ok) {
    for (unsigned s = areg ? 1 : 0; s < 2; ++s, ++i) {
      int64_t v;
      if (!imm(i, v) || (v != 0 && v != 1)) return c.fail(fmt::format("{}: imm-trans-{} must be 0 or 1", form, s ? 'b' : 'a'));
      if (v) D.flags |= s ? kWgTransB : kWgTransA;
    }
  }
  uint64_t w = 0;
  std::memcpy(&w, &D, sizeof D);
  out.imm = int64_t(w);
  c.set_ops(out, refs);
  out.exec = exec_wgmma;
  return true;
}

}  // namespace

void register_mma_ops() {
  register_decoder(Opcode::Ldmatrix, dec_ldst_matrix);
  register_decoder(Opcode::Stmatrix, dec_ldst_matrix);
  register_decoder(Opcode::Movmatrix, dec_movmatrix);
  register_decoder(Opcode::Mma, dec_mma);
  register_decoder(Opcode::WmmaLoad, dec_wmma_ldst);
  register_decoder(Opcode::WmmaStore, dec_wmma_ldst);
  register_decoder(Opcode::WmmaMma, dec_wmma_mma);
  register_decoder(Opcode::WgmmaMmaAsync, dec_wgmma);
  // The functional engine computes a wgmma at issue (its operands may not change until
  // wgmma.wait_group says it is done), so fencing, committing and waiting change nothing it can
  // observe; the timing model holds wait_group until the groups' MMAs are done.
  register_decoder(Opcode::WgmmaFence, decode_nop);
  register_decoder(Opcode::WgmmaCommitGroup, decode_nop);
  register_decoder(Opcode::WgmmaWaitGroup, decode_nop);
}

}  // namespace warpsim::func
