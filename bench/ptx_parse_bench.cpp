// warpsim_bench_parse: single-threaded PTX parse/print throughput on a large generated module.
//
//   warpsim_bench_parse [--size MB] [--runs N] [--write FILE] [--input FILE] [--corpus DIR]...
//
// Without --input it builds a module of at least --size MB (default 64) from the corpus
// directories (default: tests/corpus/isa, tests/corpus/nvcc and workloads/* of the source tree)
// by pasting renamed copies of real kernels (see large_ptx.hpp). It then parses it --runs times
// (default 5) and prints it as many times, reporting best and median times and throughput.
// Exit status 1 if the module does not parse, or if print -> parse does not give an equal module.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "large_ptx.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#ifndef WARPSIM_SOURCE_DIR
#define WARPSIM_SOURCE_DIR "."
#endif

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Stats {
  double best = 0, median = 0;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Stats s;
  s.best = v.front();
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return s;
}

void usage() {
  std::fprintf(stderr,
               "usage: warpsim_bench_parse [--size MB] [--runs N] [--write FILE] [--input FILE] "
               "[--corpus DIR]... [--no-check]\n");
}

}  // namespace

int main(int argc, char** argv) {
  double size_mb = 64;
  int runs = 5;
  std::string write_path, input_path;
  std::vector<std::string> dirs;
  bool check = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--size") size_mb = std::atof(value().c_str());
    else if (a == "--runs") runs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--write") write_path = value();
    else if (a == "--input") input_path = value();
    else if (a == "--corpus") dirs.push_back(value());
    else if (a == "--no-check") check = false;
    else {
      usage();
      return 2;
    }
  }

  std::string text;
  if (!input_path.empty()) {
    std::ifstream in(input_path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", input_path.c_str());
      return 1;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    std::printf("input: %s\n", input_path.c_str());
  } else {
    if (dirs.empty()) {
      const std::string root = WARPSIM_SOURCE_DIR;
      dirs = {root + "/tests/corpus/isa", root + "/tests/corpus/nvcc"};
      std::error_code ec;
      std::vector<std::string> wl;
      if (std::filesystem::is_directory(root + "/workloads", ec))
        for (const auto& e : std::filesystem::directory_iterator(root + "/workloads", ec))
          if (e.is_directory()) wl.push_back(e.path().string());
      std::sort(wl.begin(), wl.end());
      dirs.insert(dirs.end(), wl.begin(), wl.end());
    }
    auto t0 = Clock::now();
    auto large = warpsim::bench::make_large_ptx(dirs, size_t(size_mb * 1e6));
    double gen = seconds_since(t0);
    if (large.text.empty()) {
      std::fprintf(stderr, "no usable corpus file found in:");
      for (auto& d : dirs) std::fprintf(stderr, " %s", d.c_str());
      std::fprintf(stderr, "\n");
      for (auto& s : large.skipped_files) std::fprintf(stderr, "  skipped %s\n", s.c_str());
      return 1;
    }
    std::printf("generated: %zu corpus files x %u copies in %.2f s (%zu files skipped)\n",
                large.used_files.size(), large.copies, gen, large.skipped_files.size());
    for (auto& s : large.skipped_files) std::printf("  skipped %s\n", s.c_str());
    text = std::move(large.text);
  }
  if (!write_path.empty()) {
    std::ofstream out(write_path, std::ios::binary);
    out << text;
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", write_path.c_str());
      return 1;
    }
    std::printf("wrote %s\n", write_path.c_str());
  }
  const double mb = double(text.size()) / 1e6;

  // Parse
  std::vector<double> parse_t;
  std::unique_ptr<warpsim::ptx::Module> module;
  for (int r = 0; r < runs; ++r) {
    module.reset();  // freeing the previous module is not timed
    auto t0 = Clock::now();
    auto res = warpsim::ptx::parse(text, "large.ptx");
    parse_t.push_back(seconds_since(t0));
    if (!res.ok()) {
      std::fprintf(stderr, "parse FAILED with %zu error(s):\n", res.errors.size());
      for (size_t i = 0; i < res.errors.size() && i < 10; ++i)
        std::fprintf(stderr, "  %s\n", res.errors[i].str().c_str());
      return 1;
    }
    module = std::move(res.module);
  }
  size_t ninstr = 0, nfuncs = module->funcs.size();
  for (const auto& f : module->funcs) ninstr += f.instrs.size();

  // Print
  std::vector<double> print_t;
  std::string printed;
  for (int r = 0; r < runs; ++r) {
    printed.clear();
    printed.shrink_to_fit();
    auto t0 = Clock::now();
    printed = warpsim::ptx::print(*module);
    print_t.push_back(seconds_since(t0));
  }
  const double pmb = double(printed.size()) / 1e6;

  auto ps = stats(parse_t), qs = stats(print_t);
  std::printf("module: %.1f MB, %zu functions, %zu instructions, %d runs\n", mb, nfuncs, ninstr,
              runs);
  std::printf("parse: %.1f MB in %.3f s best = %.1f MB/s (%.2f M instructions/s); median %.3f s = %.1f MB/s\n",
              mb, ps.best, mb / ps.best, ninstr / ps.best / 1e6, ps.median, mb / ps.median);
  std::printf("print: %.1f MB in %.3f s best = %.1f MB/s (%.2f M instructions/s); median %.3f s = %.1f MB/s\n",
              pmb, qs.best, pmb / qs.best, ninstr / qs.best / 1e6, qs.median, pmb / qs.median);
  std::printf("print (input MB / s): %.1f MB/s\n", mb / qs.best);

  if (check) {
    auto back = warpsim::ptx::parse(printed, "printed.ptx");
    std::string why;
    if (!back.ok()) {
      std::fprintf(stderr, "round trip FAILED: printed module does not parse: %s\n",
                   back.errors[0].str().c_str());
      return 1;
    }
    if (!warpsim::ptx::equal(*module, *back.module, &why)) {
      std::fprintf(stderr, "round trip FAILED: %s\n", why.c_str());
      return 1;
    }
    std::printf("round trip: ok\n");
  }
  std::printf("target: 50 MB/s parse on one core: %s\n", mb / ps.best >= 50 ? "MET" : "NOT MET");
  return 0;
}
