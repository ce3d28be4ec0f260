// Functional-mode speed: thread-instructions per second on one core for an ALU-bound kernel (FMA
// chains), a memory-bound one (streaming copy) and a divergent one (Mandelbrot), from
// bench/kernels/func_bench.ptx (nvcc output). Each kernel's result is checked against a CPU
// reference so a fast-but-wrong engine does not report a figure.
//
//   build/bench/warpsim_bench_func [--quick]
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "func/engine.hpp"
#include "mem/device_memory.hpp"
#include "ptx/parser.hpp"

using namespace warpsim;

namespace {

struct Params {
  std::vector<uint8_t> b;
  template <typename T>
  Params& add(T v) {
    b.resize((b.size() + alignof(T) - 1) / alignof(T) * alignof(T));
    size_t o = b.size();
    b.resize(o + sizeof(T));
    std::memcpy(&b[o], &v, sizeof(T));
    return *this;
  }
};

struct Run {
  double seconds;
  uint64_t thread_instrs, warp_instrs;
};

Run timed(func::Engine& eng, const func::LoadedModule& m, const char* k, func::Dim3 g, func::Dim3 b, const Params& p) {
  func::LaunchConfig lc;
  lc.grid = g;
  lc.block = b;
  lc.params = p.b;
  auto t0 = std::chrono::steady_clock::now();
  auto r = eng.launch(m, k, lc);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok()) {
    fmt::print(stderr, "{}\n", r.report());
    std::exit(1);
  }
  return {s, r.thread_instrs, r.warp_instrs};
}

void report(const char* name, const Run& r, double target) {
  double rate = r.thread_instrs / r.seconds;
  fmt::print("{:<12} {:>8.3f} s  {:>7.1f} M thread-instr  {:>6.1f} M warp-instr  {:>7.1f} M thread-instr/s  (target {} M/s: {})\n",
             name, r.seconds, r.thread_instrs / 1e6, r.warp_instrs / 1e6, rate / 1e6, target,
             rate >= target * 1e6 ? "met" : "NOT met");
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  std::ifstream in(WARPSIM_SOURCE_DIR "/bench/kernels/func_bench.ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  auto pr = ptx::parse(ss.str(), "func_bench.ptx");
  if (!pr.ok()) {
    for (auto& e : pr.errors) fmt::print(stderr, "{}\n", e.str());
    return 1;
  }
  mem::DeviceMemory dm;
  func::Engine eng(dm);
  auto lr = eng.load(std::move(pr.module));
  if (!lr.ok()) {
    for (auto& e : lr.errors) fmt::print(stderr, "{}\n", e);
    return 1;
  }
  const func::LoadedModule& m = *lr.module;
  int scale = quick ? 8 : 1;

  // FMA chains
  {
    uint32_t blocks = 64 / scale, threads = 256, n = blocks * threads;
    int iters = 2000;
    uint64_t out = dm.allocate(n * 4);
    Run r = timed(eng, m, "_Z9fma_chainPfi", {blocks, 1, 1}, {threads, 1, 1}, Params().add(out).add(iters));
    std::vector<float> got(n);
    dm.host_read(out, got.data(), n * 4);
    for (uint32_t i = 0; i < n; i += 97) {
      float a = 1.0f + i * 1e-6f, b = 0.5f, c = 0.25f, d = 0.125f;
      for (int k = 0; k < iters; ++k) {
        a = std::fma(a, 0.9999f, 0.0001f);
        b = std::fma(b, 0.9998f, 0.0002f);
        c = std::fma(c, 0.9997f, 0.0003f);
        d = std::fma(d, 0.9996f, 0.0004f);
      }
      float want = a + b + c + d;
      if (got[i] != want) {
        fmt::print(stderr, "fma_chain wrong at {}: {} vs {}\n", i, got[i], want);
        return 1;
      }
    }
    report("fma_chain", r, 200);
  }
  // Streaming copy
  {
    int n = (8 << 20) / scale;
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = float(i) * 0.5f;
    uint64_t a = dm.allocate(n * 4), b = dm.allocate(n * 4);
    dm.host_write(a, h.data(), n * 4);
    Run r = timed(eng, m, "_Z11stream_copyPKfPfi", {216, 1, 1}, {256, 1, 1}, Params().add(a).add(b).add(n));
    std::vector<float> got(n);
    dm.host_read(b, got.data(), n * 4);
    if (got != h) {
      fmt::print(stderr, "stream_copy wrong\n");
      return 1;
    }
    report("stream_copy", r, 50);
  }
  // Mandelbrot
  {
    int w = 512 / (quick ? 4 : 1), hgt = 512 / (quick ? 4 : 1), max_iter = 256;
    uint64_t out = dm.allocate(uint64_t(w) * hgt * 4);
    Run r = timed(eng, m, "_Z10mandelbrotPiiii", {uint32_t(w / 16), uint32_t(hgt / 16), 1}, {16, 16, 1},
                  Params().add(out).add(w).add(hgt).add(max_iter));
    std::vector<int> got(size_t(w) * hgt);
    dm.host_read(out, got.data(), got.size() * 4);
    for (int y = 0; y < hgt; y += 7)
      for (int x = 0; x < w; x += 5) {
        // The same operation order and contraction as nvcc's PTX for this loop:
        // zi' = fma(zr + zr, zi, ci), zr' = cr + (zr*zr - zi*zi).
        float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / hgt, zr = 0, zi = 0, zr2 = 0, zi2 = 0;
        int it = 0;
        while (it < max_iter && zr2 + zi2 < 4.0f) {
          float t = cr + (zr2 - zi2);
          zi = std::fma(zr + zr, zi, ci);
          zr = t;
          zr2 = zr * zr;
          zi2 = zi * zi;
          ++it;
        }
        if (got[size_t(y) * w + x] != it) {
          fmt::print(stderr, "mandelbrot wrong at ({},{}): {} iterations, CPU reference {}\n", x, y,
                     got[size_t(y) * w + x], it);
          return 1;
        }
      }
    report("mandelbrot", r, 50);
  }
  return 0;
}
