// Global atomic throughput by address pattern: how many lane operations per SM clock the L2's
// atomic units resolve when the lanes of a warp (and all warps) hit the same address, distinct
// addresses of one line, or distinct lines. Prints CSV: pattern,blocks,threads,iters,lane_ops,ns,
// cycles,lane_ops_per_clock (cycles = event time x the device's clock rate). Checks every result
// against the value it must have, so a wrong simulation fails instead of printing a figure.
//   nvcc -cudart shared -arch=sm_80 -o atomics atomics.cu && ./atomics [blocks_per_sm]
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

enum Pattern { kSameAddr, kSameAddrRed, kWarpAddr, kLaneInLine, kLaneLines, kWarpAddrRed, kLaneInLineRed };
const char* kNames[] = {"same_address_all_threads", "same_address_all_threads_red", "same_address_per_warp",
                        "distinct_addresses_one_line_per_warp", "distinct_line_per_lane", "same_address_per_warp_red",
                        "distinct_addresses_one_line_per_warp_red"};

// The word lane `lane` of warp `warp` updates (words of 4 bytes; a line is 32 words).
__host__ __device__ inline unsigned long long word_of(int p, unsigned long long warp, unsigned lane) {
  switch (p) {
    case kSameAddr: case kSameAddrRed: return 0;
    case kWarpAddr: case kWarpAddrRed: return warp * 32;
    case kLaneInLine: case kLaneInLineRed: return warp * 32 + lane;
    default: return (warp * 32 + lane) * 32;
  }
}

template <int P>
__global__ void hammer(unsigned* words, int iters, unsigned* sink) {
  const unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned* a = words + word_of(P, tid / 32, threadIdx.x % 32);
  unsigned acc = 0;
  for (int i = 0; i < iters; ++i) {
    if (P == kSameAddrRed || P == kWarpAddrRed || P == kLaneInLineRed)
      atomicAdd(a, 1u);  // result unused: RED
    else
      acc += atomicAdd(a, 1u);
  }
  if (acc == 0xffffffffu) sink[0] = acc;  // keeps the returned values live
}

template <int P>
double run(unsigned* words, size_t nwords, unsigned* sink, int blocks, int threads, int iters, bool& ok) {
  CHECK(cudaMemset(words, 0, nwords * 4));
  hammer<P><<<blocks, threads>>>(words, iters, sink);  // warm-up (also the first check)
  CHECK(cudaMemset(words, 0, nwords * 4));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventRecord(e0));
  hammer<P><<<blocks, threads>>>(words, iters, sink);
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  // Every word must hold the number of increments aimed at it.
  std::vector<unsigned> h(nwords);
  CHECK(cudaMemcpy(h.data(), words, nwords * 4, cudaMemcpyDeviceToHost));
  std::vector<unsigned> want(nwords, 0);
  const unsigned long long n = (unsigned long long)blocks * threads;
  for (unsigned long long t = 0; t < n; ++t) want[word_of(P, t / 32, unsigned(t % 32))] += unsigned(iters);
  for (size_t i = 0; i < nwords; ++i)
    if (h[i] != want[i]) {
      std::printf("# %s: word %zu holds %u, expected %u\n", kNames[P], i, h[i], want[i]);
      ok = false;
      break;
    }
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  return ms * 1e6;
}

// run<P> for a pattern chosen at run time.
double run_pattern(int p, unsigned* words, size_t nwords, unsigned* sink, int blocks, int threads, int iters, bool& ok) {
  switch (p) {
    case kSameAddr: return run<kSameAddr>(words, nwords, sink, blocks, threads, iters, ok);
    case kSameAddrRed: return run<kSameAddrRed>(words, nwords, sink, blocks, threads, iters, ok);
    case kWarpAddr: return run<kWarpAddr>(words, nwords, sink, blocks, threads, iters, ok);
    case kLaneInLine: return run<kLaneInLine>(words, nwords, sink, blocks, threads, iters, ok);
    case kLaneLines: return run<kLaneLines>(words, nwords, sink, blocks, threads, iters, ok);
    case kWarpAddrRed: return run<kWarpAddrRed>(words, nwords, sink, blocks, threads, iters, ok);
    default: return run<kLaneInLineRed>(words, nwords, sink, blocks, threads, iters, ok);
  }
}

// The generic pattern of `atomics shape`: a warp's lanes fall in `lines` groups, each group its own
// line (lines of one warp adjacent); a group's lanes update distinct words of that line, or all the
// line's first word (`same`); only lanes below `active` take part. lines = 0: every active lane of
// the grid updates word 0.
struct Shape {
  int lines, active, same, red;
};
__host__ __device__ inline long long shape_word(const Shape& s, unsigned long long warp, unsigned lane) {
  if (int(lane) >= s.active) return -1;
  if (s.lines == 0) return 0;  // lines 0: one word for the whole grid
  const unsigned per = 32u / unsigned(s.lines), g = lane / per;
  return (long long)((warp * s.lines + g) * 32 + (s.same ? 0 : lane % per));
}
__global__ void hammer_shape(unsigned* words, int iters, unsigned* sink, Shape s) {
  const unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  const long long w = shape_word(s, tid / 32, threadIdx.x % 32);
  if (w < 0) return;
  unsigned* a = words + w;
  unsigned acc = 0;
  if (s.red)
    for (int i = 0; i < iters; ++i) atomicAdd(a, 1u);
  else
    for (int i = 0; i < iters; ++i) acc += atomicAdd(a, 1u);
  if (acc == 0xffffffffu) sink[0] = acc;
}

// One shape at one size: CSV line shape_L<lines>_A<active>_<same|distinct>[_red], with lane_ops
// counting active lanes only.
void measure_shape(const Shape& s, int blocks, int thr, int iters, int khz, bool& ok) {
  const size_t nwords = size_t(blocks) * thr * 32 + 32;
  unsigned *words, *sink;
  CHECK(cudaMalloc(&words, nwords * 4));
  CHECK(cudaMalloc(&sink, 4));
  float best = 1e30f;
  for (int rep = 0; rep < 3; ++rep) {  // rep 0 warms up; the figure is the faster of reps 1 and 2
    CHECK(cudaMemset(words, 0, nwords * 4));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    hammer_shape<<<blocks, thr>>>(words, iters, sink, s);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (rep) best = std::min(best, ms);
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
  }
  std::vector<unsigned> h(nwords), want(nwords, 0);
  CHECK(cudaMemcpy(h.data(), words, nwords * 4, cudaMemcpyDeviceToHost));
  const unsigned long long n = (unsigned long long)blocks * thr;
  double ops = 0;
  for (unsigned long long t = 0; t < n; ++t) {
    long long w = shape_word(s, t / 32, unsigned(t % 32));
    if (w >= 0) want[w] += unsigned(iters), ops += iters;
  }
  for (size_t i = 0; i < nwords; ++i)
    if (h[i] != want[i]) {
      std::printf("# shape: word %zu holds %u, expected %u\n", i, h[i], want[i]);
      ok = false;
      break;
    }
  const double ns = best * 1e6, cycles = ns * khz * 1e-6;
  std::printf("shape_L%d_A%d_%s%s,%d,%d,%d,%.0f,%.0f,%.0f,%.3f\n", s.lines, s.active, s.same ? "same" : "distinct",
              s.red ? "_red" : "", blocks, thr, iters, ops, ns, cycles, ops / cycles);
  CHECK(cudaFree(words));
  CHECK(cudaFree(sink));
}

// `atomics shape`: where the contended limit sits. Lines per warp instruction (1..32, distinct
// words or one word per line), active lanes per instruction, with and without returned values;
// each on one SM and on every SM, 1024 threads per block.
int shape_sweep(int sms, int khz) {
  bool ok = true;
  std::printf("pattern,blocks,threads,iters,lane_ops,ns,cycles,lane_ops_per_clock\n");
  std::vector<Shape> shapes;
  for (int l : {1, 2, 4, 8, 16, 32}) shapes.push_back({l, 32, 0, 0});
  for (int l : {1, 2, 4, 8, 16}) shapes.push_back({l, 32, 1, 0});  // (32 lines of one lane: the line above)
  for (int l : {1, 4, 32}) shapes.push_back({l, 32, 0, 1});
  for (int l : {1, 4}) shapes.push_back({l, 32, 1, 1});
  for (int a : {1, 2, 4, 8, 16}) shapes.push_back({32, a, 0, 0});
  for (int a : {1, 8}) shapes.push_back({1, a, 0, 0});
  for (int blocks : {1, sms})
    for (auto& s : shapes) measure_shape(s, blocks, 1024, 32, khz, ok);
  std::printf("# shape, clock %d kHz, %d SMs: %s\n", khz, sms, ok ? "all counts correct" : "WRONG COUNTS");
  return ok ? 0 : 1;
}

// One configuration: each pattern in turn over fresh words, one CSV line each.
void measure(int blocks, int thr, int iters, const std::vector<int>& patterns, int khz, bool& ok) {
  const size_t nwords = size_t(blocks) * thr * 32 + 32;
  unsigned *words, *sink;
  CHECK(cudaMalloc(&words, nwords * 4));
  CHECK(cudaMalloc(&sink, 4));
  for (int p : patterns) {
    const double ns = run_pattern(p, words, nwords, sink, blocks, thr, iters, ok);
    const double ops = double(blocks) * thr * iters, cycles = ns * khz * 1e-6;
    std::printf("%s,%d,%d,%d,%.0f,%.0f,%.0f,%.3f\n", kNames[p], blocks, thr, iters, ops, ns, cycles, ops / cycles);
  }
  CHECK(cudaFree(words));
  CHECK(cudaFree(sink));
}

int sweep(int sms, int khz) {
  bool ok = true;
  std::printf("pattern,blocks,threads,iters,lane_ops,ns,cycles,lane_ops_per_clock\n");
  std::vector<std::pair<int, int>> cfg;
  for (int k : {1, 2, 4, 8, 16, 33, 66, 99, sms}) cfg.push_back({k, 256});
  for (int t : {32, 64, 128, 512, 1024}) cfg.push_back({sms, t});
  for (auto& c : cfg) measure(c.first, c.second, 32, {kSameAddr, kWarpAddr, kLaneInLine, kLaneLines, kWarpAddrRed}, khz, ok);
  std::printf("# sweep, clock %d kHz, %d SMs: %s\n", khz, sms, ok ? "all counts correct" : "WRONG COUNTS");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  int sms = 0, khz = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  // `atomics sweep`: blocks of 256 threads on 1..all SMs (one block per SM), then 32..1024 threads
  // per block on every SM, for the patterns that differ (where the throughput limit sits).
  if (argc > 1 && std::string(argv[1]) == "sweep") return sweep(sms, khz);
  if (argc > 1 && std::string(argv[1]) == "shape") return shape_sweep(sms, khz);
  // `atomics one LINES ACTIVE SAME RED BLOCKS THREADS ITERS`: one shape (for a profiler).
  if (argc > 8 && std::string(argv[1]) == "one") {
    bool ok = true;
    Shape s{std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5])};
    if (s.lines < 0 || s.lines > 32 || (s.lines && 32 % s.lines) || s.active < 1 || s.active > 32) {
      std::printf("bad shape\n");
      return 2;
    }
    measure_shape(s, std::atoi(argv[6]), std::atoi(argv[7]), std::atoi(argv[8]), khz, ok);
    return ok ? 0 : 1;
  }
  const int per_sm = argc > 1 ? std::atoi(argv[1]) : 2;
  const int threads = 256;
  bool ok = true;
  std::printf("pattern,blocks,threads,iters,lane_ops,ns,cycles,lane_ops_per_clock\n");
  // (blocks, threads, iterations): one warp (latency bound), one block, the whole GPU; each long
  // enough that the launch overhead is a small part of the time.
  const int cfg[][3] = {{1, 32, 256}, {1, threads, 64}, {sms * per_sm, threads, 16}};
  const std::vector<int> all = {kSameAddr, kSameAddrRed, kWarpAddr, kLaneInLine, kLaneLines, kWarpAddrRed, kLaneInLineRed};
  for (auto& c : cfg) measure(c[0], c[1], c[2], all, khz, ok);
  std::printf("# clock %d kHz, %d SMs: %s\n", khz, sms, ok ? "all counts correct" : "WRONG COUNTS");
  return ok ? 0 : 1;
}
