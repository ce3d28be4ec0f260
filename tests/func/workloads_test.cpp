// The bundled workloads (workloads/<name>/<name>.ptx, real nvcc sm_80 output) run on the functional
// engine and match CPU references written here, independently of the simulator. Each test does on
// the host what the workload's main() does (the CUDA runtime shim does not exist yet): it loads the
// PTX, uploads deterministic inputs (the same LCGs as the .cu files), launches the kernels by their
// mangled names and compares the results.
//
// A load failure is a test failure, except for the tensor-core / async-copy workloads (wmma_gemm,
// mma_ptx, cp_async), whose instructions are not planned for this stage: they skip while the only
// load errors are "not supported" ones, and turn on by themselves once the decoder accepts them.
// WorkloadCorpus.* are informational: they print what the engine cannot decode yet and never fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/func/harness.hpp"

using namespace warpsim;
using warpsim::test::Harness;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string workload_path(const std::string& name) {
  return std::string(WARPSIM_SOURCE_DIR) + "/workloads/" + name + "/" + name + ".ptx";
}

// Parses and loads `text` into h; on failure fills errs (parse or load errors) and returns false.
bool load_text(Harness& h, const std::string& text, const std::string& filename, std::vector<std::string>& errs) {
  errs.clear();
  if (text.empty()) {
    errs.push_back(filename + ": empty or missing file");
    return false;
  }
  auto r = ptx::parse(text, filename);
  if (!r.ok()) {
    for (auto& e : r.errors) errs.push_back(e.str());
    return false;
  }
  auto l = h.eng.load(std::move(r.module));
  errs = l.errors;
  if (!l.ok()) return false;
  h.mod = std::move(l.module);
  return true;
}

// "instruction 'X' is not supported by the functional engine yet" -> "X"; other "... not supported"
// messages -> the message without its file:line prefix; anything else -> "".
std::string unsupported_key(const std::string& err) {
  static const std::string pre = "instruction '";
  static const std::string post = "' is not supported by the functional engine yet";
  size_t p = err.find(post);
  if (p != std::string::npos) {
    size_t s = err.rfind(pre, p);
    if (s != std::string::npos) return err.substr(s + pre.size(), p - s - pre.size());
  }
  if (err.find("not supported") != std::string::npos) {
    size_t f = err.find("': ");  // after "in function 'name': "
    return "(" + (f != std::string::npos ? err.substr(f + 3) : err) + ")";
  }
  return "";
}

bool only_unsupported(const std::vector<std::string>& errs) {
  for (auto& e : errs)
    if (unsupported_key(e).empty()) return false;
  return !errs.empty();
}

std::string describe_errors(const std::vector<std::string>& errs) {
  std::map<std::string, int> uns;
  for (auto& e : errs)
    if (auto k = unsupported_key(e); !k.empty()) ++uns[k];
  std::ostringstream os;
  if (!uns.empty()) {
    os << "  unsupported:";
    for (auto& [k, n] : uns) os << " " << k << "(x" << n << ")";
    os << "\n";
  }
  size_t shown = 0;
  for (auto& e : errs) {
    if (!unsupported_key(e).empty()) continue;
    if (shown++ == 8) { os << "  ...\n"; break; }
    os << "  " << e << "\n";
  }
  return os.str();
}

}  // namespace

// Loads workloads/<name>/<name>.ptx into h, or fails the test.
#define LOAD_WORKLOAD(h, name)                                                                   \
  do {                                                                                           \
    std::vector<std::string> errs_;                                                              \
    if (!load_text(h, slurp(workload_path(name)), workload_path(name), errs_))                   \
      FAIL() << name << ".ptx did not load (" << errs_.size() << " errors)\n" << describe_errors(errs_); \
  } while (0)

// As LOAD_WORKLOAD, but skips while every load error is an unsupported instruction (features not
// planned for this stage).
#define LOAD_WORKLOAD_OR_SKIP(h, name)                                                           \
  do {                                                                                           \
    std::vector<std::string> errs_;                                                              \
    if (!load_text(h, slurp(workload_path(name)), workload_path(name), errs_)) {                 \
      if (only_unsupported(errs_))                                                               \
        GTEST_SKIP() << name << ": not supported by the engine yet\n" << describe_errors(errs_); \
      FAIL() << name << ".ptx did not load (" << errs_.size() << " errors)\n" << describe_errors(errs_); \
    }                                                                                            \
  } while (0)

#define RUN_OK(r) ASSERT_TRUE((r).ok()) << (r).report()

namespace {

struct Lcg {
  uint32_t s;
  uint32_t next() { return s = s * 1664525u + 1013904223u; }
  float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(next() >> 8) * (1.0f / 16777216.0f); }
};

uint32_t fbits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// vecadd: c = a + b, grid-stride loop, bit-exact.
TEST(Workload, Vecadd) {
  Harness h;
  LOAD_WORKLOAD(h, "vecadd");
  const int n = 50000, block = 256, grid = 64;
  Lcg g{0x1234567u};
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) { a[i] = g.uniform(-100.0f, 100.0f); b[i] = g.uniform(-100.0f, 100.0f); }
  uint64_t da = h.upload(a), db = h.upload(b), dc = h.alloc(n * 4);
  auto r = h.run("_Z6vecaddPKfS0_Pfi", {grid, 1, 1}, {block, 1, 1}, Harness::Params().add(da).add(db).add(dc).add(n));
  RUN_OK(r);
  auto c = h.download<float>(dc, n);
  int bad = 0, first = -1;
  for (int i = 0; i < n; ++i)
    if (fbits(c[i]) != fbits(a[i] + b[i])) { if (first < 0) first = i; ++bad; }
  EXPECT_EQ(bad, 0) << "first mismatch at " << first << ": got " << c[first] << " expected " << a[first] + b[first];
}

// ------------------------------------------------------------------------------------------------
// reduce: two-pass block reduction (shared-memory tree + __shfl_down_sync), int exact, float 1e-5.
TEST(Workload, Reduce) {
  Harness h;
  LOAD_WORKLOAD(h, "reduce");
  const int n = 100000, grid = 48, BLOCK = 256;
  Lcg g{2024u};
  std::vector<int> vi(n);
  std::vector<float> vf(n);
  for (int i = 0; i < n; ++i) {
    vi[i] = (int)(g.next() % 2001) - 1000;
    vf[i] = (float)(g.next() >> 8) * (1.0f / 16777216.0f);
  }
  // int: both passes, partials checked exactly
  {
    const char* k = "_Z11reduce_passIiLi256EEvPKT_PS0_i";
    uint64_t din = h.upload(vi), dpart = h.alloc(grid * 4), dout = h.alloc(4);
    auto r1 = h.run(k, {grid, 1, 1}, {BLOCK, 1, 1}, Harness::Params().add(din).add(dpart).add(n));
    RUN_OK(r1);
    auto part = h.download<int>(dpart, grid);
    long long total = 0;
    for (int b = 0; b < grid; ++b) {
      long long s = 0;
      for (int i = b * BLOCK; i < n; i += BLOCK * grid)
        for (int t = 0; t < BLOCK && i + t < n; ++t) s += vi[i + t];
      EXPECT_EQ(part[b], (int)s) << "int partial of block " << b;
      total += s;
    }
    auto r2 = h.run(k, {1, 1, 1}, {BLOCK, 1, 1}, Harness::Params().add(dpart).add(dout).add(grid));
    RUN_OK(r2);
    EXPECT_EQ(h.download<int>(dout, 1)[0], (int)total);
  }
  // float
  {
    const char* k = "_Z11reduce_passIfLi256EEvPKT_PS0_i";
    uint64_t din = h.upload(vf), dpart = h.alloc(grid * 4), dout = h.alloc(4);
    RUN_OK(h.run(k, {grid, 1, 1}, {BLOCK, 1, 1}, Harness::Params().add(din).add(dpart).add(n)));
    RUN_OK(h.run(k, {1, 1, 1}, {BLOCK, 1, 1}, Harness::Params().add(dpart).add(dout).add(grid)));
    double ref = 0;
    for (float v : vf) ref += v;
    float got = h.download<float>(dout, 1)[0];
    EXPECT_LE(std::fabs((double)got - ref), 1e-5 * std::fabs(ref)) << "float sum " << got << " expected " << ref;
  }
}

// ------------------------------------------------------------------------------------------------
// transpose: tiled transpose through padded and unpadded shared tiles, sizes not multiples of 32.
TEST(Workload, Transpose) {
  Harness h;
  LOAD_WORKLOAD(h, "transpose");
  const int rows = 300, cols = 200, TILE = 32, ROWS = 8;
  Lcg g{31337u};
  std::vector<float> in((size_t)rows * cols);
  for (auto& v : in) v = (float)(int)(g.next() % 100000) * 0.5f;
  uint64_t din = h.upload(in);
  const size_t bytes = in.size() * 4;
  func::Dim3 block{TILE, ROWS, 1}, grid{(cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE, 1};
  for (const char* k : {"_Z15transpose_tiledILi1EEvPKfPfii", "_Z15transpose_tiledILi0EEvPKfPfii"}) {
    uint64_t dout = h.mem.allocate(bytes);
    h.mem.fill(dout, 0xff, bytes);
    auto r = h.run(k, grid, block, Harness::Params().add(din).add(dout).add(rows).add(cols));
    RUN_OK(r);
    auto out = h.download<float>(dout, in.size());
    int bad = 0;
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x)
        if (fbits(out[(size_t)x * rows + y]) != fbits(in[(size_t)y * cols + x])) {
          if (!bad) ADD_FAILURE() << k << ": out[" << x << "][" << y << "] = " << out[(size_t)x * rows + y]
                                  << " expected " << in[(size_t)y * cols + x];
          ++bad;
        }
    EXPECT_EQ(bad, 0) << k;
  }
}

// ------------------------------------------------------------------------------------------------
// histogram: shared + global atomics; every global atomic flavour.
namespace {
struct Counters {
  int add_i;
  unsigned long long add_u64;
  float add_f;
  double add_d;
  float cas_fmax;
  int max_i, min_i;
  unsigned max_u, min_u;
  unsigned and_u, or_u, xor_u;
  unsigned exch;
  unsigned inc_u, dec_u;
  int sub_i;
  unsigned long long exch_returned_sum;
};
}  // namespace

TEST(Workload, Histogram) {
  Harness h;
  LOAD_WORKLOAD(h, "histogram");
  const int BINS = 256, n = 65536 + 123, m = 5000;
  Lcg g{777u};
  std::vector<uint8_t> data(n);
  for (int i = 0; i < n; ++i) {
    uint32_t r = g.next();
    data[i] = (r & 3) == 0 ? (uint8_t)((r >> 8) & 7) : (uint8_t)(r >> 24);
  }
  std::vector<int> vals(m);
  for (int i = 0; i < m; ++i) vals[i] = (int)(g.next() % 200001) - 100000;
  uint64_t ddata = h.upload(data), dhist = h.alloc(BINS * 4), dvals = h.upload(vals);
  Counters init = {};
  init.cas_fmax = -1.0e30f;
  init.max_i = INT_MIN; init.min_i = INT_MAX;
  init.max_u = 0; init.min_u = 0xffffffffu;
  init.and_u = 0xffffffffu; init.or_u = 0; init.xor_u = 0x12345678u;
  init.exch = 0; init.inc_u = 0; init.dec_u = 7; init.sub_i = 1000000;
  uint64_t dc = h.upload(std::vector<Counters>{init});

  RUN_OK(h.run("_Z12histo_sharedPKhiPj", {32, 1, 1}, {256, 1, 1}, Harness::Params().add(ddata).add(n).add(dhist)));
  RUN_OK(h.run("_Z11atomics_mixPKiiP8Counters", {(m + 127) / 128, 1, 1}, {128, 1, 1},
               Harness::Params().add(dvals).add(m).add(dc)));
  auto hist = h.download<unsigned>(dhist, BINS);
  Counters got = h.download<Counters>(dc, 1)[0];

  std::vector<unsigned> ref(BINS, 0);
  for (int i = 0; i < n; ++i) ref[data[i]]++;
  for (int b = 0; b < BINS; ++b) EXPECT_EQ(hist[b], ref[b]) << "bin " << b;
  Counters r = init;
  unsigned long long written_sum = 0;
  for (int i = 0; i < m; ++i) {
    int v = vals[i];
    unsigned u = (unsigned)v;
    r.add_i += v;
    r.add_u64 += (unsigned long long)u * 4096ull;
    r.add_f += (float)(v & 1023) * 0.25f;
    r.add_d += (double)v * 0.5;
    if ((float)v * 0.125f > r.cas_fmax) r.cas_fmax = (float)v * 0.125f;
    r.max_i = std::max(r.max_i, v);
    r.min_i = std::min(r.min_i, v);
    unsigned hh = u * 2654435761u;
    r.max_u = std::max(r.max_u, hh);
    r.min_u = std::min(r.min_u, hh);
    r.and_u &= ~(1u << (i % 32)) | (u & 0xff00u);
    r.or_u |= 1u << (u % 29);
    r.xor_u ^= u * 40503u;
    written_sum += (unsigned long long)i + 1u;
    r.inc_u = (r.inc_u >= 99u) ? 0u : r.inc_u + 1u;
    r.dec_u = (r.dec_u == 0u || r.dec_u > 50u) ? 50u : r.dec_u - 1u;
    r.sub_i -= v & 7;
  }
  EXPECT_EQ(got.add_i, r.add_i);
  EXPECT_EQ(got.add_u64, r.add_u64);
  EXPECT_EQ(got.add_f, r.add_f);
  EXPECT_EQ(got.add_d, r.add_d);
  EXPECT_EQ(got.cas_fmax, r.cas_fmax);
  EXPECT_EQ(got.max_i, r.max_i);
  EXPECT_EQ(got.min_i, r.min_i);
  EXPECT_EQ(got.max_u, r.max_u);
  EXPECT_EQ(got.min_u, r.min_u);
  EXPECT_EQ(got.and_u, r.and_u);
  EXPECT_EQ(got.or_u, r.or_u);
  EXPECT_EQ(got.xor_u, r.xor_u);
  EXPECT_EQ(got.inc_u, r.inc_u);
  EXPECT_EQ(got.dec_u, r.dec_u);
  EXPECT_EQ(got.sub_i, r.sub_i);
  EXPECT_GE(got.exch, 1u);
  EXPECT_LE(got.exch, (unsigned)m);
  EXPECT_EQ(got.exch_returned_sum + got.exch, written_sum + init.exch) << "atomicExch permutation";
}

// ------------------------------------------------------------------------------------------------
// warp_intrinsics: shuffles with widths, votes, activemask, match, redux, partial-mask syncwarp.
namespace {
constexpr int kWiNout = 32;
unsigned wi_shfl(const unsigned* w, int lane, int mode, int b, int width) {
  int segmask = 32 - width;
  int maxLane = (lane & segmask) | (31 & ~segmask);
  int minLane = lane & segmask;
  int j;
  bool p;
  switch (mode) {
    case 0: j = minLane | (b & ~segmask & 31); p = j <= maxLane; break;
    case 1: j = lane - b; p = j >= minLane; break;
    case 2: j = lane + b; p = j <= maxLane; break;
    default: j = lane ^ b; p = j <= maxLane; break;
  }
  return p ? w[j] : w[lane];
}
void wi_ref_warp(const unsigned* w, unsigned ref[32][kWiNout]) {
  const unsigned FULL = 0xffffffffu;
  unsigned ballot = 0, anyeq = 0, allne = 1, allhi = 1, radd = 0, rand_ = FULL, ror = 0, rxor = 0;
  int rmin = INT_MAX, rmax = INT_MIN;
  unsigned umin = FULL, umax = 0, oddsum = 0;
  for (int l = 0; l < 32; ++l) {
    if ((w[l] & 3) == 0) ballot |= 1u << l;
    if (w[l] == 0x1234u) anyeq = 1, allne = 0;
    if (w[l] >> 31) allhi = 0;
    radd += w[l] & 0xffffu;
    int s = (int)w[l];
    rmin = std::min(rmin, s);
    rmax = std::max(rmax, s);
    umin = std::min(umin, w[l]);
    umax = std::max(umax, w[l]);
    rand_ &= w[l] | 0x0f0f0f0fu; ror |= w[l] & 0x80808080u; rxor ^= w[l];
    if (l & 1) oddsum += w[l] & 0xff;
  }
  unsigned key0 = w[0] % 5, allsame = 1;
  for (int l = 0; l < 32; ++l) if (w[l] % 5 != key0) allsame = 0;
  for (int l = 0; l < 32; ++l) {
    unsigned* o = ref[l];
    int k = 0;
    o[k++] = wi_shfl(w, l, 0, (int)(w[l] % 32), 32);
    o[k++] = wi_shfl(w, l, 0, 5, 16);
    o[k++] = wi_shfl(w, l, 1, 3, 32);
    o[k++] = wi_shfl(w, l, 1, 2, 8);
    o[k++] = wi_shfl(w, l, 2, 7, 32);
    o[k++] = wi_shfl(w, l, 2, 1, 4);
    o[k++] = wi_shfl(w, l, 3, 1, 32);
    o[k++] = wi_shfl(w, l, 3, 6, 8);
    o[k++] = wi_shfl(w, l, 3, 20, 16);
    o[k++] = ballot;
    o[k++] = anyeq;
    o[k++] = allne;
    o[k++] = ballot != 0;
    o[k++] = allhi;
    o[k++] = (w[l] & 3) == 0 ? 1u : 2u;
    unsigned mm = 0;
    for (int j = 0; j < 32; ++j) if (w[j] % 5 == w[l] % 5) mm |= 1u << j;
    o[k++] = mm;
    o[k++] = allsame ? FULL : 0u;
    o[k++] = allsame;
    o[k++] = FULL;
    o[k++] = 1;
    o[k++] = radd;
    o[k++] = (unsigned)rmin;
    o[k++] = (unsigned)rmax;
    o[k++] = umin;
    o[k++] = umax;
    o[k++] = rand_;
    o[k++] = ror;
    o[k++] = rxor;
    o[k++] = l < 16 ? w[15 - l] * 3u : 0u;
    o[k++] = (l & 1) ? w[(l + 2) & 31] : 0u;
    o[k++] = (l & 1) ? oddsum : 0u;
    o[k] = (unsigned)k;  // 31: C++17 evaluates the right side first, as the device code does
  }
}
const char* const kWiNames[kWiNout] = {
    "shfl.idx(v%32)", "shfl.idx(5,w16)", "shfl.up(3)", "shfl.up(2,w8)", "shfl.down(7)", "shfl.down(1,w4)",
    "shfl.bfly(1)", "shfl.bfly(6,w8)", "shfl.bfly(20,w16)", "ballot", "any(eq)", "all(ne)", "any(pred)",
    "all(hi)", "activemask", "match.any", "match.all", "match.all pred", "match.all(7)", "match.all(7) pred",
    "redux.add", "redux.min.s32", "redux.max.s32", "redux.min.u32", "redux.max.u32", "redux.and", "redux.or",
    "redux.xor", "syncwarp half", "shfl odd lanes", "redux odd lanes", "count"};
}  // namespace

TEST(Workload, WarpIntrinsics) {
  Harness h;
  LOAD_WORKLOAD(h, "warp_intrinsics");
  const int THREADS = 128, BLOCKS = 4, n = THREADS * BLOCKS;
  Lcg g{4242u};
  std::vector<unsigned> in(n);
  for (auto& v : in) v = g.next();
  for (int l = 0; l < 32; ++l) in[32 + l] = (in[32 + l] / 8) * 5 + 2;
  in[64 + 9] = 0x1234u;
  for (int l = 0; l < 32; ++l) in[96 + l] &= 0x7fffffffu;
  uint64_t din = h.upload(in), dout = h.alloc((size_t)n * kWiNout * 4);
  RUN_OK(h.run("_Z8warp_opsPKjPj", {BLOCKS, 1, 1}, {THREADS, 1, 1}, Harness::Params().add(din).add(dout)));
  auto out = h.download<unsigned>(dout, (size_t)n * kWiNout);
  int fails = 0;
  std::set<std::string> bad_ops;
  unsigned ref[32][kWiNout];
  for (int wb = 0; wb < n; wb += 32) {
    wi_ref_warp(&in[wb], ref);
    for (int l = 0; l < 32; ++l)
      for (int j = 0; j < kWiNout; ++j) {
        unsigned got = out[(size_t)(wb + l) * kWiNout + j];
        if (got != ref[l][j]) {
          if (fails < 5)
            ADD_FAILURE() << "warp " << wb / 32 << " lane " << l << " result " << j << " (" << kWiNames[j]
                          << "): got 0x" << std::hex << got << " expected 0x" << ref[l][j];
          bad_ops.insert(kWiNames[j]);
          ++fails;
        }
      }
  }
  std::string ops;
  for (auto& s : bad_ops) ops += " " + s;
  EXPECT_EQ(fails, 0) << "mismatching results:" << ops;
}

// ------------------------------------------------------------------------------------------------
// stencil: __constant__ coefficients written from the host, __device__ globals with initial values,
// a device atomic counter read back, __ldg, 2D grid.
TEST(Workload, Stencil) {
  Harness h;
  LOAD_WORKLOAD(h, "stencil");
  const int w = 200, hgt = 120;
  Lcg g{424242u};
  std::vector<float> in((size_t)w * hgt);
  for (auto& v : in) v = (float)(g.next() >> 8) / 16777216.0f * 10.0f - 5.0f;
  const float coef[9] = {0.5f, 0.125f, 0.125f, 0.0625f, 0.0625f, -0.03125f, -0.03125f, 0.015625f, 0.015625f};
  const float scale = 1.5f;
  auto& vars = h.mod->vars;
  for (const char* v : {"c_coef", "c_offsets", "g_boundary", "g_scale", "g_boundary_hits"})
    ASSERT_TRUE(vars.count(v)) << "module variable " << v << " has no device address";
  // module initial values (cudaMemcpyFromSymbol)
  float boundary = 0, scale0 = 0;
  int offs0[2] = {0, 0};
  unsigned hits0 = 1;
  h.mem.host_read(vars["g_boundary"], &boundary, 4);
  h.mem.host_read(vars["g_scale"], &scale0, 4);
  h.mem.host_read(vars["c_offsets"], offs0, 8);
  h.mem.host_read(vars["g_boundary_hits"], &hits0, 4);
  EXPECT_EQ(boundary, 0.25f);
  EXPECT_EQ(scale0, 2.0f);
  EXPECT_EQ(offs0[0], 1);
  EXPECT_EQ(offs0[1], 2);
  EXPECT_EQ(hits0, 0u);
  // cudaMemcpyToSymbol
  ASSERT_EQ(h.mem.host_write(vars["c_coef"], coef, sizeof coef), mem::Fault{});
  ASSERT_EQ(h.mem.host_write(vars["g_scale"], &scale, 4), mem::Fault{});
  uint64_t din = h.upload(in), dout = h.alloc(in.size() * 4);
  func::Dim3 block{16, 16, 1}, grid{(w + 15) / 16, (hgt + 15) / 16, 1};
  RUN_OK(h.run("_Z9stencil2dPKfPfii", grid, block, Harness::Params().add(din).add(dout).add(w).add(hgt)));
  auto out = h.download<float>(dout, in.size());
  unsigned hits = 0;
  h.mem.host_read(vars["g_boundary_hits"], &hits, 4);
  const int offs[2] = {1, 2};
  auto at = [&](int xx, int yy) -> double {
    if (xx < 0 || yy < 0 || xx >= w || yy >= hgt) return 0.25;
    return in[(size_t)yy * w + xx];
  };
  int bad = 0;
  unsigned ref_hits = 0;
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = coef[0] * at(x, y);
      int k = 1;
      for (int r = 0; r < 2; ++r) {
        int d = offs[r];
        acc += coef[k++] * at(x - d, y);
        acc += coef[k++] * at(x + d, y);
        acc += coef[k++] * at(x, y - d);
        acc += coef[k++] * at(x, y + d);
      }
      acc *= scale;
      float gv = out[(size_t)y * w + x];
      if (!(std::fabs(gv - acc) <= 1e-4 * (1.0 + std::fabs(acc)))) {
        if (!bad) ADD_FAILURE() << "out[" << y << "][" << x << "] = " << gv << " expected " << acc;
        ++bad;
      }
      if (x < 2 || y < 2 || x >= w - 2 || y >= hgt - 2) ++ref_hits;
    }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(hits, ref_hits);
}

// ------------------------------------------------------------------------------------------------
// scan: CUB BlockLoad/BlockScan/BlockStore tile scan, raking scan of the tile totals, uniform add.
TEST(Workload, Scan) {
  Harness h;
  LOAD_WORKLOAD(h, "scan");
  const int THREADS = 128, ITEMS = 4, TILE = THREADS * ITEMS, MAX_TILES = 128;
  const int n = 50000, tiles = (n + TILE - 1) / TILE;
  Lcg g{1618u};
  std::vector<int> in(n);
  for (auto& v : in) v = (int)(g.next() % 201) - 90;
  uint64_t din = h.upload(in), dout = h.alloc(n * 4), dtot = h.alloc(MAX_TILES * 4);
  RUN_OK(h.run("_Z9tile_scanPKiPiS1_i", {tiles, 1, 1}, {THREADS, 1, 1},
               Harness::Params().add(din).add(dout).add(dtot).add(n)));
  auto tile_out = h.download<int>(dout, n);
  auto totals = h.download<int>(dtot, tiles);
  RUN_OK(h.run("_Z11scan_totalsPii", {1, 1, 1}, {MAX_TILES, 1, 1}, Harness::Params().add(dtot).add(tiles)));
  auto excl = h.download<int>(dtot, tiles);
  RUN_OK(h.run("_Z11add_offsetsPiPKii", {tiles, 1, 1}, {THREADS, 1, 1},
               Harness::Params().add(dout).add(dtot).add(n)));
  auto out = h.download<int>(dout, n);
  int bad_tile = 0, bad = 0, bad_tot = 0, bad_excl = 0;
  long long run = 0, tile_run = 0, prefix = 0;
  for (int i = 0; i < n; ++i) {
    if (i % TILE == 0) tile_run = 0;
    run += in[i];
    tile_run += in[i];
    if (tile_out[i] != tile_run) { if (!bad_tile) ADD_FAILURE() << "tile_scan out[" << i << "] = " << tile_out[i] << " expected " << tile_run; ++bad_tile; }
    if (out[i] != run) { if (!bad) ADD_FAILURE() << "out[" << i << "] = " << out[i] << " expected " << run; ++bad; }
    if (i % TILE == TILE - 1 || i == n - 1) {
      int t = i / TILE;
      if (totals[t] != tile_run) { if (!bad_tot) ADD_FAILURE() << "tile total " << t << " = " << totals[t] << " expected " << tile_run; ++bad_tot; }
      if (excl[t] != prefix) { if (!bad_excl) ADD_FAILURE() << "exclusive total " << t << " = " << excl[t] << " expected " << prefix; ++bad_excl; }
      prefix += tile_run;
    }
  }
  EXPECT_EQ(bad_tile + bad + bad_tot + bad_excl, 0);
}

// ------------------------------------------------------------------------------------------------
// device_calls: non-inlined calls with struct return, recursion, indirect calls through a __device__
// table, printf, assert.
namespace {
const int kNodes = 63;
int cpu_fib(int n) { int x = 0, y = 1; for (int k = 0; k < n; ++k) { int z = x + y; x = y; y = z; } return x; }
int cpu_path(const std::vector<int>& tree, int node) {
  std::vector<int> best(kNodes, 0);
  for (int v = kNodes - 1; v >= 0; --v) {
    int l = 2 * v + 1 < kNodes ? best[2 * v + 1] : 0;
    int r = 2 * v + 2 < kNodes ? best[2 * v + 2] : 0;
    best[v] = tree[v] + std::max(l, r);
  }
  return best[node];
}
std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}
}  // namespace

TEST(Workload, DeviceCalls) {
  func::EngineConfig cfg;
  cfg.stack_bytes = 4096;  // cudaDeviceSetLimit(cudaLimitStackSize, 4096)
  Harness h(cfg);
  LOAD_WORKLOAD(h, "device_calls");
  const int n = 2000;
  Lcg g{8675309u};
  std::vector<int> in(n), tree(kNodes);
  for (auto& v : in) v = (int)(g.next() % 20001) - 10000;
  for (auto& v : tree) v = (int)(g.next() % 199) - 99;
  uint64_t din = h.upload(in), dtree = h.upload(tree), dout = h.alloc(4 * n * 4);
  auto r = h.run("_Z12calls_kernelPKiS0_Pii", {(n + 127) / 128, 1, 1}, {128, 1, 1},
                 Harness::Params().add(din).add(dtree).add(dout).add(n));
  RUN_OK(r);
  ASSERT_EQ(r.printf_out.size(), 2u);
  EXPECT_EQ(chomp(r.printf_out[0]), "device_calls: hello from block 0 thread 0");
  EXPECT_EQ(chomp(r.printf_out[1]), "device_calls: fib(10)=55 tree path=" + std::to_string(cpu_path(tree, 0)));
  auto out = h.download<int>(dout, 4 * n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int a = in[i], b = in[(i + 1) % n], c = in[(i + 7) % n];
    int rr;
    switch ((unsigned)a % 4u) {
      case 0: rr = b + c; break;
      case 1: rr = b - c; break;
      case 2: rr = b * c; break;
      default: rr = (int)(((unsigned)b << 3 | (unsigned)b >> 29) ^ (unsigned)c); break;
    }
    int ref[4] = {std::min({a, b, c}), std::max({a, b, c}), rr,
                  cpu_fib((int)((unsigned)a % 13u)) * 1000 + cpu_path(tree, (int)((unsigned)b % kNodes))};
    for (int j = 0; j < 4; ++j)
      if (out[4 * i + j] != ref[j]) {
        if (bad < 3) ADD_FAILURE() << "thread " << i << " result " << j << " got " << out[4 * i + j] << " expected " << ref[j];
        ++bad;
      }
  }
  EXPECT_EQ(bad, 0);
}

// The workload's assert(p.lo <= p.hi) never fires; invert its comparison in the PTX text so that
// every thread fails it, and check the fault: kind Assert, message with the assertion text.
TEST(Workload, DeviceCallsAssertFires) {
  func::EngineConfig cfg;
  cfg.stack_bytes = 4096;
  Harness h(cfg);
  std::string text = slurp(workload_path("device_calls"));
  const std::string cmp = "setp.le.s32 \t%p3, %r8, %r7;\n\t@%p3 bra";
  size_t at = text.find(cmp);
  ASSERT_NE(at, std::string::npos) << "the assert's comparison was not found in device_calls.ptx";
  text.replace(at, std::strlen("setp.le.s32"), "setp.gt.s32");
  std::vector<std::string> errs;
  if (!load_text(h, text, workload_path("device_calls"), errs))
    FAIL() << "device_calls.ptx (patched) did not load\n" << describe_errors(errs);
  const int n = 256;
  std::vector<int> in(n), tree(kNodes, 1);
  for (int i = 0; i < n; ++i) in[i] = i * 37 % 101;
  uint64_t din = h.upload(in), dtree = h.upload(tree), dout = h.alloc(4 * n * 4);
  auto r = h.run("_Z12calls_kernelPKiS0_Pii", {2, 1, 1}, {128, 1, 1}, Harness::Params().add(din).add(dtree).add(dout).add(n));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault.kind, func::FaultKind::Assert) << r.report();
  EXPECT_NE(r.fault.message.find("p.lo <= p.hi"), std::string::npos) << r.fault.message;
  EXPECT_NE(r.fault.message.find("device_calls.cu"), std::string::npos) << r.fault.message;
  EXPECT_NE(r.fault.message.find("63"), std::string::npos) << r.fault.message;
  EXPECT_EQ(func::fault_cuda_error(r.fault.kind), 710);  // cudaErrorAssert
}

// ------------------------------------------------------------------------------------------------
// cooperative: cooperative groups tiles/reduce, __syncthreads_count/and/or, named barriers with
// bar.arrive/bar.sync 1,128, last-block-done reduction.
TEST(Workload, Cooperative) {
  Harness h;
  LOAD_WORKLOAD(h, "cooperative");
  const int THREADS = 128, BLOCKS = 24, NRES = 8, n = BLOCKS * THREADS;
  Lcg g{2718u};
  std::vector<int> in(n);
  for (auto& v : in) v = (int)(g.next() % 1999) - 999;
  for (int i = 0; i < THREADS; ++i) in[5 * THREADS + i] = 500 + i;
  in[7 * THREADS + 3] = 0;
  const int sblocks = n / 64;
  uint64_t din = h.upload(in), dout = h.alloc((size_t)n * NRES * 4), dout2 = h.alloc(n * 4),
           dpart = h.alloc(BLOCKS * 2 * 4), dtotal = h.alloc(4), dticket = h.alloc(4);
  // The two kernels are independent: a fault in one still lets the other be checked.
  auto r1 = h.run("_Z13groups_kernelPKiPi", {BLOCKS, 1, 1}, {THREADS, 1, 1}, Harness::Params().add(din).add(dout));
  EXPECT_TRUE(r1.ok()) << r1.report();
  auto r2 = h.run("_Z18specialised_kernelPKiPiS1_PjS1_", {sblocks, 1, 1}, {THREADS, 1, 1},
                  Harness::Params().add(din).add(dout2).add(dpart).add(dticket).add(dtotal));
  EXPECT_TRUE(r2.ok()) << r2.report();
  auto out = h.download<int>(dout, (size_t)n * NRES);
  auto out2 = h.download<int>(dout2, n);
  int total = h.download<int>(dtotal, 1)[0];
  unsigned ticket = h.download<unsigned>(dticket, 1)[0];
  int bad = 0;
  const char* names[NRES] = {"reduce(t16,plus)", "reduce(t4,greater)", "t16 shfl_down sum", "meta_group_rank",
                             "t4.any", "t16.all", "__syncthreads_count", "__syncthreads_and/or"};
  for (int b = 0; b < BLOCKS && r1.ok(); ++b) {
    const int* bi = &in[b * THREADS];
    int cnt = 0, all_gt = 1, any0 = 0;
    for (int t = 0; t < THREADS; ++t) { cnt += bi[t] > 0; all_gt &= bi[t] > -990; any0 |= bi[t] == 0; }
    for (int t = 0; t < THREADS; ++t) {
      int r[NRES];
      int g16 = t / 16 * 16, g4 = t / 4 * 4;
      int s16 = 0, m4 = bi[g4], all16 = 1, any4 = 0;
      for (int k = 0; k < 16; ++k) { s16 += bi[g16 + k]; all16 &= bi[g16 + k] > -1000; }
      for (int k = 0; k < 4; ++k) { m4 = std::max(m4, bi[g4 + k]); any4 |= bi[g4 + k] > 900; }
      r[0] = s16; r[1] = m4; r[2] = t % 16 == 0 ? s16 : -1; r[3] = (t / 16) * 100 + t / 4;
      r[4] = any4; r[5] = all16; r[6] = cnt; r[7] = all_gt * 2 + any0;
      for (int j = 0; j < NRES; ++j) {
        int got = out[((size_t)b * THREADS + t) * NRES + j];
        if (got != r[j]) {
          if (bad < 5) ADD_FAILURE() << "groups_kernel block " << b << " thread " << t << " result " << j << " ("
                                     << names[j] << ") got " << got << " expected " << r[j];
          ++bad;
        }
      }
    }
  }
  if (!r2.ok()) return;
  int ref_total = 0, bad2 = 0;
  for (int b = 0; b < sblocks; ++b)
    for (int j = 0; j < 64; ++j) {
      int x = in[b * 64 + j] % 256, y = in[b * 64 + 63 - j] % 256;
      int r = x * x + y * y;
      ref_total += r;
      if (out2[b * 64 + j] != r) {
        if (!bad2) ADD_FAILURE() << "specialised_kernel out[" << b * 64 + j << "] = " << out2[b * 64 + j] << " expected " << r;
        ++bad2;
      }
    }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(bad2, 0);
  EXPECT_EQ(total, ref_total) << "last-block-done total";
  EXPECT_EQ(ticket, 0u) << "the last block resets the ticket";
}

// ------------------------------------------------------------------------------------------------
// arith: integer, f32 (all rounding modes), f32 approximate, f64, half/bf16 semantics. The CPU
// reference helpers below are ported verbatim from workloads/arith/arith.cu (plain C++, exact
// rounding done in double); each device kernel is its own test.
namespace arith_ref {
enum Mode { RN = 0, RZ = 1, RU = 2, RD = 3 };

// Round a double (assumed to be the exact value) to an IEEE binary format with `mbits` stored
// mantissa bits and exponent range [emin, emax]; returns the rounded value as a double.
static double round_fmt(double x, int mbits, int emin, int emax, Mode mode) {
    if (std::isnan(x) || std::isinf(x) || x == 0.0) return x;
    bool neg = x < 0;
    double ax = std::fabs(x);
    int e;
    std::frexp(ax, &e);
    int E = e - 1;
    if (E < emin) E = emin;
    double quantum = std::ldexp(1.0, E - mbits);
    double m = ax / quantum;  // exact (power-of-two scaling)
    double mi;
    switch (mode) {
        case RN: mi = std::nearbyint(m); break;  // host default rounding: ties to even
        case RZ: mi = std::trunc(m); break;
        case RU: mi = neg ? std::trunc(m) : std::ceil(m); break;
        default: mi = neg ? std::ceil(m) : std::trunc(m); break;
    }
    double r = mi * quantum;
    double maxv = std::ldexp(2.0 - std::ldexp(1.0, -mbits), emax);
    if (r > maxv) {
        bool to_inf = mode == RN || (mode == RU && !neg) || (mode == RD && neg);
        r = to_inf ? INFINITY : maxv;
    }
    return neg ? -r : r;
}
static float rf(double x, Mode m) { return (float)round_fmt(x, 23, -126, 127, m); }
[[maybe_unused]] static unsigned fbits(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
[[maybe_unused]] static float bitsf(unsigned u) { float f; memcpy(&f, &u, 4); return f; }

// exact value s+e (TwoSum pair, |e| tiny) rounded to float
static float rf2(double s, double e, Mode mode) {
    if (e == 0.0 || std::isnan(e)) return rf(s, mode);
    float r = rf(s, mode);
    if ((double)r != s) {
        if (mode != RN) return r;
        float lo = rf(s, RD), hi = rf(s, RU);
        if (((double)lo + (double)hi) * 0.5 == s) return e > 0 ? hi : lo;  // tie broken by e
        return r;
    }
    switch (mode) {
        case RN: return r;
        case RU: return e > 0 ? std::nextafterf(r, INFINITY) : r;
        case RD: return e < 0 ? std::nextafterf(r, -INFINITY) : r;
        default: return ((s > 0 && e < 0) || (s < 0 && e > 0)) ? std::nextafterf(r, 0.0f) : r;
    }
}
static float ref_fma(float a, float b, float c, Mode mode) {
    double p = (double)a * (double)b;  // exact
    double s = p + (double)c;
    double bb = s - p;
    double e = (p - (s - bb)) + ((double)c - bb);
    if (std::isinf(s)) e = 0.0;
    return rf2(s, e, mode);
}

static float ref_add(float a, float b, Mode mode) {
    double s = (double)a + (double)b;
    double bb = s - a;
    double e = ((double)a - (s - bb)) + ((double)b - bb);
    if (std::isinf(s)) e = 0.0;
    return rf2(s, e, mode);
}

// half / bfloat16 encoding of an exact double value
static uint16_t to_half_bits(double x, Mode mode) {
    if (std::isnan(x)) return 0x7e00;
    double r = round_fmt(x, 10, -14, 15, mode);
    uint16_t sign = std::signbit(r) ? 0x8000 : 0;
    double ar = std::fabs(r);
    if (std::isinf(ar)) return sign | 0x7c00;
    if (ar == 0.0) return sign;
    int e;
    std::frexp(ar, &e);
    int E = e - 1;
    if (E < -14) return sign | (uint16_t)(ar / std::ldexp(1.0, -24));
    return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(ar / std::ldexp(1.0, E - 10) - 1024.0);
}
static double half_val(uint16_t h) {
    int exp = (h >> 10) & 31, man = h & 1023;
    double v;
    if (exp == 31) v = man ? NAN : INFINITY;
    else if (exp == 0) v = std::ldexp((double)man, -24);
    else v = std::ldexp(1024.0 + man, exp - 25);
    return (h & 0x8000) ? -v : v;
}
static uint16_t to_bf16_bits(double x, Mode mode) {
    if (std::isnan(x)) return 0x7fc0;
    float r = (float)round_fmt(x, 7, -126, 127, mode);
    return (uint16_t)(fbits(r) >> 16);
}
static double bf16_val(uint16_t h) { return (double)bitsf((unsigned)h << 16); }

static bool is_half_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static bool is_bf16_nan(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

static int ref_f2i(float f, Mode m) {
    if (std::isnan(f)) return 0;
    double t = m == RZ ? std::trunc((double)f) : m == RN ? std::nearbyint((double)f)
             : m == RU ? std::ceil((double)f) : std::floor((double)f);
    if (t >= 2147483647.0) return INT_MAX;
    if (t <= -2147483648.0) return INT_MIN;
    return (int)t;
}
static unsigned ref_f2u_rz(float f) {
    if (std::isnan(f)) return 0;
    double t = std::trunc((double)f);
    if (t <= 0) return 0;
    if (t >= 4294967295.0) return UINT_MAX;
    return (unsigned)t;
}
static long long ref_f2ll_rz(float f) {
    if (std::isnan(f)) return LLONG_MIN;  // PTX: NaN -> 0x8000000000000000 for 64-bit
    double t = std::trunc((double)f);
    if (t >= 9223372036854775807.0) return LLONG_MAX;
    if (t <= -9223372036854775808.0) return LLONG_MIN;
    return (long long)t;
}

static unsigned bitrev32(unsigned v) { unsigned r = 0; for (int k = 0; k < 32; ++k) if (v >> k & 1) r |= 1u << (31 - k); return r; }
static int popc64(unsigned long long v) { int c = 0; while (v) { c += (int)(v & 1); v >>= 1; } return c; }
static int clz64(unsigned long long v) { int c = 0; for (int k = 63; k >= 0 && !(v >> k & 1); --k) ++c; return c; }

// 128-bit high product via 32-bit limbs
static unsigned long long umulhi64(unsigned long long a, unsigned long long b) {
    unsigned long long al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    unsigned long long ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    unsigned long long mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
static long long mulhi64(long long a, long long b) {
    unsigned long long h = umulhi64((unsigned long long)a, (unsigned long long)b);
    if (a < 0) h -= (unsigned long long)b;
    if (b < 0) h -= (unsigned long long)a;
    return (long long)h;
}

static void ref_int(int x, int y, unsigned s, unsigned* o) {
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    long long x64 = (long long)(((unsigned long long)ux << 32) | uy);
    long long y64 = (long long)(((unsigned long long)uy << 32) | (ux ^ 0x5a5a5a5au));
    o[0] = (unsigned)(((long long)x * y) >> 32);
    o[1] = (unsigned)(((unsigned long long)ux * uy) >> 32);
    long long mh = mulhi64(x64, y64);
    o[2] = (unsigned)mh; o[3] = (unsigned)((unsigned long long)mh >> 32);
    unsigned long long umh = umulhi64((unsigned long long)x64, (unsigned long long)y64);
    o[4] = (unsigned)umh; o[5] = (unsigned)(umh >> 32);
    long long w = (long long)x * y;
    o[6] = (unsigned)w; o[7] = (unsigned)((unsigned long long)w >> 32);
    unsigned long long uw = (unsigned long long)ux * uy;
    o[8] = (unsigned)uw; o[9] = (unsigned)(uw >> 32);
    o[10] = (unsigned)(x / y); o[11] = (unsigned)(x % y);
    o[12] = ux / uy; o[13] = ux % uy;
    long long q64 = x64 / (long long)y, r64 = x64 % (long long)y;
    o[14] = (unsigned)q64; o[15] = (unsigned)((unsigned long long)q64 >> 32);
    o[16] = (unsigned)r64; o[17] = (unsigned)((unsigned long long)r64 >> 32);
    o[18] = (unsigned)(x < y ? x : y); o[19] = (unsigned)(x > y ? x : y);
    o[20] = ux < uy ? ux : uy; o[21] = ux > uy ? ux : uy;
    o[22] = (unsigned)popc64(ux);
    o[23] = (unsigned)popc64((unsigned long long)x64);
    o[24] = (unsigned)clz64(ux) - 32;
    o[25] = (unsigned)clz64((unsigned long long)x64);
    o[26] = bitrev32(ux);
    o[27] = bitrev32((unsigned)((unsigned long long)x64 >> 32));
    o[28] = bitrev32((unsigned)x64);
    int ffs = 0; for (int k = 0; k < 32; ++k) if (ux >> k & 1) { ffs = k + 1; break; }
    o[29] = (unsigned)ffs;
    unsigned sel = (ux ^ uy) & 0x7777u, bp = 0;
    unsigned long long src = ((unsigned long long)uy << 32) | ux;
    for (int k = 0; k < 4; ++k) bp |= (unsigned)((src >> (8 * ((sel >> (4 * k)) & 7))) & 0xff) << (8 * k);
    o[30] = bp;
    unsigned long long cat = ((unsigned long long)uy << 32) | ux;
    unsigned sw = s & 31, sc = s > 32 ? 32 : s;
    o[31] = (unsigned)((cat << sw) >> 32);
    o[32] = (unsigned)(cat >> sw);
    o[33] = (unsigned)((cat << sc) >> 32);
    o[34] = (unsigned)(cat >> sc);
    o[35] = (unsigned)(x >> (s & 31));
    o[36] = ux >> (s & 31);
    o[37] = ux << (s & 31);
    o[38] = (unsigned)(x < y ? (long long)y - x : (long long)x - y) + s;
    o[39] = (unsigned)(int)(((long long)x + y) >> 1);
    o[40] = (unsigned)(int)(((long long)x + y + 1) >> 1);
    o[41] = (unsigned)(((unsigned long long)ux + uy) >> 1);
    o[42] = (unsigned)(x < 0 ? -x : x);
    int dp = (int)s;
    for (int k = 0; k < 4; ++k) dp += (int)(int8_t)(ux >> (8 * k)) * (int)(int8_t)(uy >> (8 * k));
    o[43] = (unsigned)dp;
}

static void ref_f32(float a, float b, float c, unsigned* o) {
    float aa = std::fabs(a);
    float big = rf((double)a * 3.0e7, RN);
    double prod = (double)a * (double)b;  // exact
    o[0] = fbits(ref_add(a, b, RN)); o[1] = fbits(rf(prod, RN));
    o[2] = fbits(ref_add(a, b, RZ)); o[3] = fbits(ref_add(a, b, RU)); o[4] = fbits(ref_add(a, b, RD));
    o[5] = fbits(rf(prod, RZ)); o[6] = fbits(rf(prod, RU)); o[7] = fbits(rf(prod, RD));
    o[8] = fbits(ref_fma(a, b, c, RN)); o[9] = fbits(ref_fma(a, b, c, RZ));
    o[10] = fbits(ref_fma(a, b, c, RU)); o[11] = fbits(ref_fma(a, b, c, RD));
    double q = (double)a / (double)b;  // never a float rounding boundary unless exact
    o[12] = fbits(rf(q, RN)); o[13] = fbits(rf(q, RZ)); o[14] = fbits(rf(q, RU)); o[15] = fbits(rf(q, RD));
    double sq = std::sqrt((double)aa);
    o[16] = fbits(rf(sq, RN)); o[17] = fbits(rf(sq, RZ)); o[18] = fbits(rf(sq, RU)); o[19] = fbits(rf(sq, RD));
    double rc = 1.0 / (double)b;
    o[20] = fbits(rf(rc, RN)); o[21] = fbits(rf(rc, RZ));
    o[22] = fbits(std::isnan(a) ? b : std::isnan(b) ? a : (a < b ? a : b));
    o[23] = fbits(std::isnan(a) ? b : std::isnan(b) ? a : (a > b ? a : b));
    o[24] = (fbits(a) & 0x7fffffffu) | (fbits(b) & 0x80000000u);
    o[25] = fbits(std::isnan(a) ? 0.0f : a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a);
    o[26] = (unsigned)ref_f2i(big, RZ);
    o[27] = (unsigned)ref_f2i(big, RN);
    o[28] = (unsigned)ref_f2i(a, RD);
    o[29] = (unsigned)ref_f2i(a, RU);
    o[30] = ref_f2u_rz(big);
    o[31] = (unsigned)ref_f2ll_rz(rf((double)big * 1.0e3, RN));
    o[32] = (unsigned)to_half_bits(a, RN) | ((unsigned)to_half_bits(big, RN) << 16);
    int ib = (int)fbits(b);
    o[33] = fbits(rf((double)ib, RN)); o[34] = fbits(rf((double)ib, RZ));
    o[35] = fbits(rf((double)fbits(a), RD));
    float a4 = rf((double)a * 4.0, RN);
    o[36] = fbits(std::nearbyint(a4));
    float t = rf((double)std::round(a4) + (double)std::floor(b), RN);
    t = rf((double)t - (double)std::ceil(c), RN);
    t = rf((double)t + (double)std::trunc(a), RN);
    o[37] = fbits(t);
}

static bool close_f(double got, double ref, double rel, double abs_tol) {
    if (std::isnan(ref)) return std::isnan(got);
    return std::fabs(got - ref) <= abs_tol + rel * std::fabs(ref);
}


const int N = 1024, BLOCK = 128, NI = 44, NF = 38, NA = 10, ND = 12, ND_EXACT = 9, NH = 24;

// All inputs, generated in the order arith.cu's main() draws them from its LCG.
struct Inputs {
  std::vector<int> IA, IB;
  std::vector<unsigned> IS;
  std::vector<float> FA, FB, FC;
  std::vector<double> DA, DB, DC;
  std::vector<unsigned short> HA, HB, HC;
  std::vector<float> HF;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs v;
    Lcg g{0xC0FFEEu};
    v.IA.resize(N); v.IB.resize(N); v.IS.resize(N);
    for (int i = 0; i < N; ++i) {
      int x, y;
      switch (i % 4) {
        case 0: x = (int)(g.next() % 2001) - 1000; y = (int)(g.next() % 201) - 100; break;
        case 1: x = (int)g.next(); y = (int)(g.next() % 65536) - 32768; break;
        case 2: x = INT_MAX - (int)(g.next() % 16); y = -(int)(g.next() % 7) - 1; break;
        default: x = (int)g.next(); y = (int)g.next(); break;
      }
      if (x == INT_MIN) x = INT_MIN + 1;
      if (y == 0) y = 3;
      v.IA[i] = x; v.IB[i] = y; v.IS[i] = g.next() % 41;
    }
    v.FA.resize(N); v.FB.resize(N); v.FC.resize(N);
    for (int i = 0; i < N; ++i) {
      v.FA[i] = g.uniform(-100.0f, 100.0f); v.FB[i] = g.uniform(-100.0f, 100.0f); v.FC[i] = g.uniform(-100.0f, 100.0f);
      if (v.FB[i] == 0.0f) v.FB[i] = 1.5f;
    }
    const float specials[][3] = {
        {FLT_MAX, FLT_MAX, -FLT_MAX}, {-FLT_MAX, 3.0f, 1.0f}, {1.0e-40f, 3.0e-39f, 1.0e-44f},
        {1.0f, 5.9604645e-8f, -1.0f}, {INFINITY, 2.0f, 1.0f}, {NAN, 2.0f, 3.0f}, {2.5f, -0.5f, 0.5f},
        {0.75f, 1.0f / 3.0f, -0.25f}, {1.0e30f, 1.0e-30f, 7.0f}, {-3.5f, 1.0e-20f, 1.0e20f}};
    for (int k = 0; k < 10; ++k) { v.FA[k * 7 + 1] = specials[k][0]; v.FB[k * 7 + 1] = specials[k][1]; v.FC[k * 7 + 1] = specials[k][2]; }
    v.DA.resize(N); v.DB.resize(N); v.DC.resize(N);
    for (int i = 0; i < N; ++i) {
      v.DA[i] = (double)g.uniform(-100.0f, 100.0f) + (double)(g.next() >> 8) * 1e-12;
      v.DB[i] = (double)g.uniform(0.5f, 8.0f) * ((g.next() & 1) ? 1.0 : -1.0);
      v.DC[i] = (double)g.uniform(-4.0f, 4.0f);
    }
    v.HA.resize(N); v.HB.resize(N); v.HC.resize(N); v.HF.resize(N);
    for (int i = 0; i < N; ++i) {
      v.HA[i] = to_half_bits(((int)(g.next() % 4097) - 2048) / 256.0, RN);
      v.HB[i] = to_half_bits(((int)(g.next() % 4097) - 2048) / 256.0, RN);
      v.HC[i] = to_half_bits(((int)(g.next() % 4097) - 2048) / 256.0, RN);
      v.HF[i] = g.uniform(-300.0f, 300.0f);
    }
    const uint16_t hspecial[][3] = {{0x7bff, 0x7bff, 0x0001}, {0x0001, 0x0003, 0x8002}, {0x7c00, 0x3c00, 0x3c00},
                                    {0x3c01, 0x3bff, 0x0400}, {0xfbff, 0x4000, 0x7bff}};
    for (int k = 0; k < 5; ++k) { v.HA[k * 11 + 3] = hspecial[k][0]; v.HB[k * 11 + 3] = hspecial[k][1]; v.HC[k * 11 + 3] = hspecial[k][2]; }
    v.HF[5] = 70000.0f; v.HF[6] = 1.0e-7f; v.HF[7] = -65519.0f;
    return v;
  }();
  return in;
}

// Mismatch bookkeeping: total count, the first few examples, and which result slots failed.
struct Mismatches {
  int count = 0;
  std::map<int, int> per_slot;
  std::string first;
  void add(const std::string& what, int i, int j, const std::string& got, const std::string& exp) {
    if (count < 16) first += "  " + what + " element " + std::to_string(i) + " result " + std::to_string(j) +
                            ": got " + got + " expected " + exp + "\n";
    ++count;
    ++per_slot[j];
  }
  std::string report() const {
    std::string s = std::to_string(count) + " mismatches; per result slot:";
    for (auto& [j, c] : per_slot) s += " [" + std::to_string(j) + "]x" + std::to_string(c);
    return s + "\n" + first;
  }
};

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}
std::string num(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

}  // namespace arith_ref

TEST(WorkloadArith, IntOps) {
  using namespace arith_ref;
  Harness h;
  LOAD_WORKLOAD(h, "arith");
  auto& in = inputs();
  uint64_t dA = h.upload(in.IA), dB = h.upload(in.IB), dS = h.upload(in.IS), dO = h.alloc((size_t)N * NI * 4);
  RUN_OK(h.run("_Z7int_opsPKiS0_PKjPji", {N / BLOCK, 1, 1}, {BLOCK, 1, 1},
               Harness::Params().add(dA).add(dB).add(dS).add(dO).add(N)));
  auto out = h.download<unsigned>(dO, (size_t)N * NI);
  Mismatches mm;
  for (int i = 0; i < N; ++i) {
    unsigned r[NI];
    ref_int(in.IA[i], in.IB[i], in.IS[i], r);
    for (int j = 0; j < NI; ++j)
      if (out[(size_t)i * NI + j] != r[j]) mm.add("int", i, j, hex(out[(size_t)i * NI + j]), hex(r[j]));
  }
  EXPECT_EQ(mm.count, 0) << mm.report();
}

TEST(WorkloadArith, F32ExactOps) {
  using namespace arith_ref;
  Harness h;
  LOAD_WORKLOAD(h, "arith");
  auto& in = inputs();
  uint64_t dA = h.upload(in.FA), dB = h.upload(in.FB), dC = h.upload(in.FC), dO = h.alloc((size_t)N * NF * 4);
  RUN_OK(h.run("_Z13f32_exact_opsPKfS0_S0_Pji", {N / BLOCK, 1, 1}, {BLOCK, 1, 1},
               Harness::Params().add(dA).add(dB).add(dC).add(dO).add(N)));
  auto out = h.download<unsigned>(dO, (size_t)N * NF);
  Mismatches mm;
  for (int i = 0; i < N; ++i) {
    unsigned r[NF];
    ref_f32(in.FA[i], in.FB[i], in.FC[i], r);
    for (int j = 0; j < NF; ++j) {
      unsigned g = out[(size_t)i * NF + j];
      bool is_float_result = !(j >= 26 && j <= 32);
      bool ok = g == r[j] || (is_float_result && std::isnan(bitsf(g)) && std::isnan(bitsf(r[j])));
      if (j == 32 && !ok) {
        ok = true;
        for (int hh = 0; hh < 2; ++hh) {
          uint16_t gh = (uint16_t)(g >> (16 * hh)), rh = (uint16_t)(r[j] >> (16 * hh));
          if (gh != rh && !(is_half_nan(gh) && is_half_nan(rh))) ok = false;
        }
      }
      if (!ok)
        mm.add("f32", i, j, hex(g) + " (" + num(bitsf(g)) + ")", hex(r[j]) + " (" + num(bitsf(r[j])) + ")");
    }
  }
  EXPECT_EQ(mm.count, 0) << mm.report();
}

TEST(WorkloadArith, F32ApproxOps) {
  using namespace arith_ref;
  Harness h;
  LOAD_WORKLOAD(h, "arith");
  auto& in = inputs();
  uint64_t dA = h.upload(in.FA), dB = h.upload(in.FB), dO = h.alloc((size_t)N * NA * 4);
  RUN_OK(h.run("_Z14f32_approx_opsPKfS0_Pfi", {N / BLOCK, 1, 1}, {BLOCK, 1, 1},
               Harness::Params().add(dA).add(dB).add(dO).add(N)));
  auto out = h.download<float>(dO, (size_t)N * NA);
  Mismatches mm;
  long checks = 0;
  for (int i = 0; i < N; ++i) {
    float a = in.FA[i], b = in.FB[i];
    if (std::isnan(a) || std::isinf(a) || std::fabs(a) > 1.0e4f || std::fabs(b) > 1.0e4f || std::fabs(b) < 1.0e-4f) continue;
    double r[NA] = {std::exp(a / 32.0), std::sin(a / 32.0), std::cos(a / 32.0), std::log(std::fabs(a) + 1.0),
                    1.0 / std::sqrt(std::fabs(a) + 1.0), (double)a / b, std::exp(a / 16.0), std::sin((double)a),
                    std::log(std::fabs(b) + 0.5), std::pow(std::fabs(a) + 1.0, 0.75)};
    for (int j = 0; j < NA; ++j, ++checks)
      if (!close_f(out[(size_t)i * NA + j], r[j], 1e-5, 1e-6)) mm.add("approx", i, j, num(out[(size_t)i * NA + j]), num(r[j]));
  }
  EXPECT_GT(checks, 9000);
  EXPECT_EQ(mm.count, 0) << mm.report();
}

TEST(WorkloadArith, F64Ops) {
  using namespace arith_ref;
  Harness h;
  LOAD_WORKLOAD(h, "arith");
  auto& in = inputs();
  uint64_t dA = h.upload(in.DA), dB = h.upload(in.DB), dC = h.upload(in.DC), dO = h.alloc((size_t)N * ND * 8);
  RUN_OK(h.run("_Z7f64_opsPKdS0_S0_Pdi", {N / BLOCK, 1, 1}, {BLOCK, 1, 1},
               Harness::Params().add(dA).add(dB).add(dC).add(dO).add(N)));
  auto out = h.download<double>(dO, (size_t)N * ND);
  Mismatches mm;
  for (int i = 0; i < N; ++i) {
    double a = in.DA[i], b = in.DB[i], c = in.DC[i];
    double r[ND];
    r[0] = a + b; r[1] = a * b; r[2] = a / b; r[3] = std::sqrt(std::fabs(a)); r[4] = std::fma(a, b, c);
    r[5] = (double)rf(a * 1.0e-3, RN);
    r[6] = (double)rf(a * 1.0e-3, RZ) + (double)rf(b, RU);
    r[7] = std::trunc(a * 1.0e7);
    r[8] = std::nearbyint(b * 1.0e12);
    r[9] = std::exp(a / 64.0); r[10] = std::sin(b); r[11] = std::log(std::fabs(c) + 1.0);
    for (int j = 0; j < ND; ++j) {
      double g = out[(size_t)i * ND + j];
      bool ok = j < ND_EXACT ? std::memcmp(&g, &r[j], 8) == 0 : close_f(g, r[j], 1e-13, 1e-15);
      if (!ok) mm.add("f64", i, j, num(g), num(r[j]));
    }
  }
  EXPECT_EQ(mm.count, 0) << mm.report();
}

TEST(WorkloadArith, HalfOps) {
  using namespace arith_ref;
  Harness h;
  LOAD_WORKLOAD(h, "arith");
  auto& in = inputs();
  uint64_t dA = h.upload(in.HA), dB = h.upload(in.HB), dC = h.upload(in.HC), dF = h.upload(in.HF),
           dO = h.alloc((size_t)N * NH * 2);
  RUN_OK(h.run("_Z8half_opsPKtS0_S0_PKfPti", {N / BLOCK, 1, 1}, {BLOCK, 1, 1},
               Harness::Params().add(dA).add(dB).add(dC).add(dF).add(dO).add(N)));
  auto out = h.download<unsigned short>(dO, (size_t)N * NH);
  Mismatches mm;
  for (int i = 0; i < N; ++i) {
    double a = half_val(in.HA[i]), b = half_val(in.HB[i]), c = half_val(in.HC[i]);
    double f = in.HF[i];
    uint16_t r[NH];
    r[0] = to_half_bits(a + b, RN); r[1] = to_half_bits(a - b, RN); r[2] = to_half_bits(a * b, RN);
    r[3] = to_half_bits(a * b + c, RN);
    double sat = half_val(to_half_bits(a + b, RN));
    r[4] = to_half_bits(std::isnan(sat) ? 0.0 : sat < 0 ? 0.0 : sat > 1 ? 1.0 : sat, RN);
    r[5] = to_half_bits(std::isnan(a) ? b : std::isnan(b) ? a : (a > b ? a : b), RN);
    r[6] = to_half_bits(std::isnan(a) ? c : std::isnan(c) ? a : (a < c ? a : c), RN);
    r[7] = (uint16_t)(in.HA[i] | 0x8000);
    r[8] = to_half_bits(a + c, RN); r[9] = to_half_bits(b + a, RN);
    r[10] = to_half_bits(a * c, RN); r[11] = to_half_bits(b * a, RN);
    r[12] = to_half_bits(a * c + a, RN); r[13] = to_half_bits(b * a + b, RN);
    r[14] = to_half_bits(f, RZ); r[15] = to_half_bits(f, RU); r[16] = to_half_bits(f, RD);
    double p100 = half_val(to_half_bits(a * 100.0, RN));
    double tr = std::trunc(p100);
    r[17] = (uint16_t)(int16_t)(std::isnan(p100) ? 0 : tr > 32767 ? 32767 : tr < -32768 ? -32768 : (int)tr);
    double ba = bf16_val(to_bf16_bits(a, RN)), bb = bf16_val(to_bf16_bits(b, RN)), bc = bf16_val(to_bf16_bits(c, RN));
    r[18] = to_bf16_bits(ba + bb, RN); r[19] = to_bf16_bits(ba * bb, RN); r[20] = to_bf16_bits(ba * bb + bc, RN);
    r[21] = to_bf16_bits(f, RN); r[22] = to_bf16_bits(f, RZ);
    r[23] = to_bf16_bits(ba * bc, RN) ^ to_bf16_bits(bb * bc, RN);
    for (int j = 0; j < NH; ++j) {
      uint16_t g = out[(size_t)i * NH + j];
      bool bf = j >= 18;
      bool ok = g == r[j] || (j != 23 && j != 17 && (bf ? (is_bf16_nan(g) && is_bf16_nan(r[j])) : (is_half_nan(g) && is_half_nan(r[j]))));
      if (!ok) mm.add(bf ? "bf16" : "half", i, j, hex(g), hex(r[j]));
    }
  }
  EXPECT_EQ(mm.count, 0) << mm.report();
}

// ------------------------------------------------------------------------------------------------
// Tensor-core and async-copy workloads: skipped while their instructions are unsupported.
namespace {
uint16_t f16_bits_exact(float v) {  // v = k/8, |v| <= 4
  if (v == 0.0f) return 0;
  uint16_t s = v < 0 ? 0x8000 : 0;
  float a = v < 0 ? -v : v;
  int e = 0;
  while (a >= 2.0f) { a *= 0.5f; ++e; }
  while (a < 1.0f) { a *= 2.0f; --e; }
  return s | (uint16_t)((e + 15) << 10) | (uint16_t)((a - 1.0f) * 1024.0f);
}
uint16_t bf16_bits_exact(float v) { return (uint16_t)(fbits(v) >> 16); }
}  // namespace

TEST(Workload, WmmaGemm) {
  Harness h;
  LOAD_WORKLOAD_OR_SKIP(h, "wmma_gemm");
  const int M = 64, N = 48, K = 64, WARPS = 4;
  Lcg g{99u};
  std::vector<float> a((size_t)M * K), b((size_t)K * N), c0((size_t)M * N);
  for (auto& v : a) v = (float)((int)(g.next() % 33) - 16) / 8.0f;
  for (auto& v : b) v = (float)((int)(g.next() % 33) - 16) / 8.0f;  // column-major: b[n*K + k]
  for (auto& v : c0) v = (float)((int)(g.next() % 201) - 100) / 4.0f;
  std::vector<uint16_t> ah(a.size()), bh(b.size()), ab(a.size()), bb(b.size());
  for (size_t i = 0; i < a.size(); ++i) { ah[i] = f16_bits_exact(a[i]); ab[i] = bf16_bits_exact(a[i]); }
  for (size_t i = 0; i < b.size(); ++i) { bh[i] = f16_bits_exact(b[i]); bb[i] = bf16_bits_exact(b[i]); }
  std::vector<float> ref((size_t)M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = c0[(size_t)m * N + n];
      for (int k = 0; k < K; ++k) s += (double)a[(size_t)m * K + k] * (double)b[(size_t)n * K + k];
      ref[(size_t)m * N + n] = (float)s;
    }
  uint64_t dAh = h.upload(ah), dBh = h.upload(bh), dAb = h.upload(ab), dBb = h.upload(bb), dAf = h.upload(a),
           dBf = h.upload(b), dC0 = h.upload(c0);
  const int blocks = ((M / 16) * (N / 16) + WARPS - 1) / WARPS;
  struct V { const char* name; const char* kernel; uint64_t A, B; } vs[3] = {
      {"f16", "_Z8gemm_f16PK6__halfS1_PKfPf", dAh, dBh},
      {"bf16", "_Z9gemm_bf16PK13__nv_bfloat16S1_PKfPf", dAb, dBb},
      {"tf32", "_Z9gemm_tf32PKfS0_S0_Pf", dAf, dBf}};
  for (auto& v : vs) {
    uint64_t dC = h.alloc(ref.size() * 4);
    auto r = h.run(v.kernel, {blocks, 1, 1}, {WARPS * 32, 1, 1}, Harness::Params().add(v.A).add(v.B).add(dC0).add(dC));
    RUN_OK(r);
    auto c = h.download<float>(dC, ref.size());
    int bad = 0;
    for (size_t i = 0; i < c.size(); ++i)
      if (c[i] != ref[i]) {
        if (!bad) ADD_FAILURE() << v.name << " C[" << i << "] got " << c[i] << " expected " << ref[i];
        ++bad;
      }
    EXPECT_EQ(bad, 0) << v.name;
  }
}

namespace {
uint16_t to_f16_rn(float f) {
  double x = f;
  uint16_t s = x < 0 ? 0x8000 : 0;
  double ax = std::fabs(x);
  if (ax == 0.0) return s;
  int e;
  std::frexp(ax, &e);
  int E = e - 1;
  if (E < -14) E = -14;
  double q = std::ldexp(1.0, E - 10);
  double m = std::nearbyint(ax / q);
  if (m >= 2048.0) { m /= 2.0; E += 1; }
  if (m < 1024.0) return s | (uint16_t)m;
  return s | (uint16_t)((E + 15) << 10) | (uint16_t)(m - 1024.0);
}
double from_f16(uint16_t h) {
  int ex = (h >> 10) & 31, man = h & 1023;
  double v = ex == 0 ? std::ldexp((double)man, -24) : std::ldexp(1024.0 + man, ex - 25);
  return (h & 0x8000) ? -v : v;
}
}  // namespace

TEST(Workload, MmaPtx) {
  Harness h;
  LOAD_WORKLOAD_OR_SKIP(h, "mma_ptx");
  const int M = 64, N = 64, K = 128;
  Lcg g{0xABCDEFu};
  std::vector<uint16_t> a((size_t)M * K), b_nk((size_t)N * K), b_kn((size_t)K * N);
  for (auto& v : a) v = to_f16_rn(-1.0f + 2.0f * (float)(g.next() >> 8) / 16777216.0f);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      uint16_t hv = to_f16_rn(-1.0f + 2.0f * (float)(g.next() >> 8) / 16777216.0f);
      b_nk[(size_t)n * K + k] = hv;
      b_kn[(size_t)k * N + n] = hv;
    }
  std::vector<double> ref((size_t)M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += from_f16(a[(size_t)m * K + k]) * from_f16(b_nk[(size_t)n * K + k]);
      ref[(size_t)m * N + n] = s;
    }
  uint64_t dA = h.upload(a), dBnk = h.upload(b_nk), dBkn = h.upload(b_kn);
  for (int variant = 0; variant < 2; ++variant) {
    uint64_t dC = h.alloc(ref.size() * 4);
    auto r = h.run(variant ? "_Z8mma_gemmILb1EEvPK6__halfS2_Pf" : "_Z8mma_gemmILb0EEvPK6__halfS2_Pf",
                   {N / 8, M / 16, 1}, {32, 1, 1}, Harness::Params().add(dA).add(variant ? dBkn : dBnk).add(dC));
    RUN_OK(r);
    auto c = h.download<float>(dC, ref.size());
    int bad = 0;
    for (size_t i = 0; i < c.size(); ++i)
      if (!(std::fabs(c[i] - ref[i]) <= 1e-3 * (1.0 + std::fabs(ref[i])))) {
        if (!bad) ADD_FAILURE() << "variant " << variant << " C[" << i << "] got " << c[i] << " expected " << ref[i];
        ++bad;
      }
    EXPECT_EQ(bad, 0) << "variant " << variant;
  }
}

TEST(Workload, CpAsync) {
  Harness h;
  LOAD_WORKLOAD_OR_SKIP(h, "cp_async");
  const int TILE = 256, THREADS = 64, TILES = 8, BLOCKS = 12;
  const size_t n = (size_t)BLOCKS * TILES * TILE;
  Lcg g{5150u};
  std::vector<int> in(n);
  for (auto& v : in) v = (int)(g.next() % 100000) - 50000;
  std::vector<int> ref_plain(n), ref_prim(n);
  for (int b = 0; b < BLOCKS; ++b)
    for (int t = 0; t < TILES; ++t) {
      const int* tile = &in[((size_t)b * TILES + t) * TILE];
      for (int j = 0; j < TILE; ++j) {
        int v = tile[j] * 3 + tile[(j + 1) % TILE] - t;
        ref_plain[((size_t)b * TILES + t) * TILE + j] = v;
        ref_prim[((size_t)b * TILES + t) * TILE + j] = v + tile[(j % THREADS) * 3];
      }
    }
  uint64_t din = h.upload(in);
  struct V { const char* kernel; uint32_t threads; const std::vector<int>* ref; } vs[3] = {
      {"_Z17stream_primitivesPKiPi", THREADS, &ref_prim},
      {"_Z15stream_pipelinePKiPi", THREADS * 2, &ref_plain},
      {"_Z14stream_barrierPKiPi", THREADS * 2, &ref_plain}};
  for (auto& v : vs) {
    uint64_t dout = h.alloc(n * 4);
    auto r = h.run(v.kernel, {BLOCKS, 1, 1}, {v.threads, 1, 1}, Harness::Params().add(din).add(dout));
    RUN_OK(r);
    auto out = h.download<int>(dout, n);
    int bad = 0;
    for (size_t i = 0; i < n; ++i)
      if (out[i] != (*v.ref)[i]) {
        if (!bad) ADD_FAILURE() << v.kernel << " out[" << i << "] = " << out[i] << " expected " << (*v.ref)[i];
        ++bad;
      }
    EXPECT_EQ(bad, 0) << v.kernel;
  }
}

// ------------------------------------------------------------------------------------------------
// thrust_sort: only checks that the module parses; prints how many instructions cannot be decoded.
TEST(Workload, ThrustSortParses) {
  std::string path = workload_path("thrust_sort");
  std::string text = slurp(path);
  auto r = ptx::parse(text, path);
  for (auto& e : r.errors) ADD_FAILURE() << e.str();
  ASSERT_TRUE(r.ok());
  size_t kernels = 0, instrs = 0;
  for (auto& f : r.module->funcs) {
    kernels += f.is_entry ? 1 : 0;
    instrs += f.instrs.size();
  }
  Harness h;
  auto l = h.eng.load(std::move(r.module));
  std::map<std::string, int> uns;
  size_t other = 0;
  for (auto& e : l.errors) {
    if (auto k = unsupported_key(e); !k.empty()) ++uns[k];
    else ++other;
  }
  size_t total = 0;
  for (auto& [k, n] : uns) total += n;
  std::printf("[thrust_sort] %zu kernels, %zu instructions; %s; %zu instructions the engine cannot decode yet",
              kernels, instrs, l.ok() ? "loads" : "does not load", total);
  if (!uns.empty()) {
    std::printf(":");
    for (auto& [k, n] : uns) std::printf(" %s(x%d)", k.c_str(), n);
  }
  std::printf("; %zu other load errors\n", other);
  for (auto& e : l.errors)
    if (unsupported_key(e).empty()) { std::printf("[thrust_sort] first other error: %s\n", e.c_str()); break; }
}

// ------------------------------------------------------------------------------------------------
// Every bundled workload PTX and the sm80/sm90 nvcc corpus: the distinct instructions the engine
// cannot decode yet (informational, never fails).
TEST(WorkloadCorpus, UnsupportedInstructions) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  const std::string root = WARPSIM_SOURCE_DIR;
  for (auto& d : fs::directory_iterator(root + "/workloads"))
    if (d.is_directory())
      for (auto& f : fs::directory_iterator(d.path()))
        if (f.path().extension() == ".ptx") files.push_back(f.path().string());
  if (fs::is_directory(root + "/tests/corpus/nvcc"))
    for (auto& f : fs::directory_iterator(root + "/tests/corpus/nvcc")) {
      std::string n = f.path().filename().string();
      if (n.size() > 4 && n.ends_with(".ptx") && (n.find(".sm80") != std::string::npos || n.ends_with(".sm90.ptx")))
        files.push_back(f.path().string());
    }
  std::sort(files.begin(), files.end());
  std::map<std::string, std::pair<int, std::set<std::string>>> uns;  // instruction -> count, modules
  std::map<std::string, std::string> other;                           // module -> first other error
  int loaded = 0;
  for (auto& path : files) {
    std::string name = fs::path(path).filename().string();
    Harness h;
    std::vector<std::string> errs;
    if (load_text(h, slurp(path), path, errs)) {
      ++loaded;
      continue;
    }
    for (auto& e : errs) {
      if (auto k = unsupported_key(e); !k.empty()) {
        ++uns[k].first;
        uns[k].second.insert(name);
      } else if (!other.count(name)) {
        other[name] = e;
      }
    }
  }
  std::printf("[corpus] %zu modules, %d load cleanly, %zu do not\n", files.size(), loaded, files.size() - loaded);
  std::printf("[corpus] %zu distinct unsupported instructions:\n", uns.size());
  for (auto& [k, v] : uns) {
    std::printf("[corpus]   %-28s x%-5d in", k.c_str(), v.first);
    int shown = 0;
    for (auto& m : v.second) {
      if (shown++ == 6) { std::printf(" ... (%zu modules)", v.second.size()); break; }
      std::printf(" %s", m.c_str());
    }
    std::printf("\n");
  }
  for (auto& [m, e] : other) std::printf("[corpus] other load error in %s: %s\n", m.c_str(), e.c_str());
  SUCCEED();
}
