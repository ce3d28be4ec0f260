// The ways of a set-associative tag array, allocated set by set: a set has no ways until its first
// allocation, when it takes the next block of a chunked arena. A lookup of a set never written
// reads nothing, and the tag memory a program touches is as dense as the sets it uses (saxpy uses
// 40 of an L2 slice's 256 sets: 4 pages instead of 20, on each of 80 slices; a kernel's code fills
// a few sets of an instruction cache). The timing model builds its SMs, with their L1 and
// instruction caches, for every launch: chunks of destroyed arenas go to a process-wide pool per
// way type and are handed out again without clearing. Used by SectorCache and InstructionCache.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace warpsim::timing {

template <class Way, unsigned kChunkShift>
class SetArena {
  static_assert(std::is_trivially_copyable_v<Way>);

 public:
  SetArena() = default;
  SetArena(const SetArena&) = delete;
  SetArena& operator=(const SetArena&) = delete;
  SetArena(SetArena&&) noexcept = default;
  SetArena& operator=(SetArena&&) noexcept = default;
  ~SetArena() { release(); }

  // `sets` sets of `assoc` ways, none allocated.
  void configure(uint32_t sets, uint32_t assoc) {
    release();
    assoc_ = assoc;
    block_.assign(sets, kNoBlock);
  }
  bool live(uint32_t set) const { return block_[set] != kNoBlock; }
  void prefetch_index(uint32_t set) const { __builtin_prefetch(&block_[set]); }
  // The ways of a live set.
  Way* ways(uint32_t set) {
    const uint32_t b = block_[set];
    return &chunks_[b >> kChunkShift][size_t(b & ((1u << kChunkShift) - 1)) * assoc_];
  }
  const Way* ways(uint32_t set) const { return const_cast<SetArena*>(this)->ways(set); }
  // Allocates the set's ways, all-zero bytes.
  Way* make_live(uint32_t set) {
    const uint32_t b = blocks_++;
    if ((b >> kChunkShift) >= chunks_.size()) chunks_.push_back(pool().take(chunk_ways()));
    block_[set] = b;
    Way* w = ways(set);
    std::memset(static_cast<void*>(w), 0, sizeof(Way) * assoc_);
    return w;
  }

 private:
  static constexpr uint32_t kNoBlock = ~0u;
  size_t chunk_ways() const { return size_t(assoc_) << kChunkShift; }
  void release() {
    for (auto& c : chunks_) pool().put(std::move(c), chunk_ways());
    chunks_.clear();
    blocks_ = 0;
  }

  // Chunks of destroyed arenas, by size.
  struct Pool {
    static constexpr size_t kMaxBytes = size_t(256) << 20;
    std::mutex mu;
    std::multimap<size_t, std::unique_ptr<Way[]>> free;
    size_t bytes = 0;
    std::unique_ptr<Way[]> take(size_t n) {
      std::lock_guard<std::mutex> lock(mu);
      auto it = free.find(n);
      if (it == free.end()) return std::unique_ptr<Way[]>(new Way[n]);  // uninitialised: see make_live
      std::unique_ptr<Way[]> p = std::move(it->second);
      free.erase(it);
      bytes -= n * sizeof(Way);
      return p;
    }
    void put(std::unique_ptr<Way[]> p, size_t n) {
      if (!p || n == 0) return;
      std::lock_guard<std::mutex> lock(mu);
      if (bytes + n * sizeof(Way) > kMaxBytes) return;
      bytes += n * sizeof(Way);
      free.emplace(n, std::move(p));
    }
  };
  // Never destroyed: arenas owned by objects that outlive static destruction still return chunks.
  static Pool& pool() {
    static Pool* p = new Pool;
    return *p;
  }

  std::vector<uint32_t> block_;                 // per set: its block, or kNoBlock
  std::vector<std::unique_ptr<Way[]>> chunks_;  // 2^kChunkShift sets of ways each
  uint32_t blocks_ = 0;                         // blocks handed out
  uint32_t assoc_ = 0;
};

}  // namespace warpsim::timing
