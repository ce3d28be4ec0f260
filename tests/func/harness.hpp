// Test harness for the functional engine: parse a PTX module, load it into a fresh device memory,
// launch kernels and read results back.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "func/engine.hpp"
#include "mem/device_memory.hpp"
#include "ptx/parser.hpp"

namespace warpsim::test {

struct Harness {
  mem::DeviceMemory mem;
  func::Engine eng;
  std::unique_ptr<func::LoadedModule> mod;

  explicit Harness(func::EngineConfig cfg = {}) : mem(mem::MemoryConfig{}), eng(mem, cfg) {}

  // Parses and loads; returns false (with gtest failures) on any error.
  bool load(const std::string& ptx_text) {
    auto r = ptx::parse(ptx_text, "test.ptx");
    for (auto& e : r.errors) ADD_FAILURE() << e.str();
    if (!r.ok()) return false;
    auto l = eng.load(std::move(r.module));
    for (auto& e : l.errors) ADD_FAILURE() << e;
    if (!l.ok()) return false;
    mod = std::move(l.module);
    return true;
  }
  // Load errors (decode problems) as text, for tests that expect a failure.
  std::vector<std::string> load_errors(const std::string& ptx_text) {
    auto r = ptx::parse(ptx_text, "test.ptx");
    if (!r.ok()) {
      std::vector<std::string> e;
      for (auto& d : r.errors) e.push_back(d.str());
      return e;
    }
    return eng.load(std::move(r.module)).errors;
  }

  template <typename T>
  uint64_t upload(const std::vector<T>& v) {
    uint64_t a = mem.allocate(std::max<size_t>(v.size() * sizeof(T), 1));
    if (!v.empty()) mem.host_write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  uint64_t alloc(size_t bytes) {
    uint64_t a = mem.allocate(bytes);
    mem.fill(a, 0, bytes);
    return a;
  }
  template <typename T>
  std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    mem.host_read(a, v.data(), n * sizeof(T));
    return v;
  }

  // Kernel parameters packed in .entry order with natural alignment.
  struct Params {
    std::vector<uint8_t> bytes;
    template <typename T>
    Params& add(T v) {
      size_t a = alignof(T);
      bytes.resize((bytes.size() + a - 1) / a * a);
      size_t o = bytes.size();
      bytes.resize(o + sizeof(T));
      std::memcpy(&bytes[o], &v, sizeof(T));
      return *this;
    }
  };

  func::LaunchResult run(const std::string& kernel, func::Dim3 grid, func::Dim3 block, const Params& p,
                         uint32_t dyn_smem = 0) {
    func::LaunchConfig lc;
    lc.grid = grid;
    lc.block = block;
    lc.dynamic_smem = dyn_smem;
    lc.params = p.bytes;
    return eng.launch(*mod, kernel, lc);
  }
  // A launch given as a whole configuration (co-resident CTAs, environment registers, ...).
  func::LaunchResult run(const std::string& kernel, func::LaunchConfig lc, const Params& p) {
    lc.params = p.bytes;
    return eng.launch(*mod, kernel, lc);
  }
};

}  // namespace warpsim::test
