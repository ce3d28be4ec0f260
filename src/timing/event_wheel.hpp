// The event queue of a discrete-event model: pops events in (t, seq) order, as a binary heap
// would, in O(1) per event instead of O(log n). Memory-bound kernels keep thousands of requests
// in flight, and sifting a heap of them was the largest single cost of simulating them.
//
// A timing wheel: one bucket per cycle of a window [cur, cur + buckets) holds that cycle's
// events in push order. Callers push with increasing seq, so push order is seq order within a
// cycle. Events outside the window (further out, or earlier than cur) go to a small heap, which
// top() also consults; nothing moves from the heap into the wheel, so order never needs repair.
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace warpsim::timing {

// E has uint64_t members t and seq, and operator> ordering by (t, seq).
template <class E>
class EventWheel {
 public:
  static constexpr uint64_t kNone = ~0ull;

  explicit EventWheel(uint32_t log2_buckets = 12)
      : mask_((uint64_t(1) << log2_buckets) - 1), buckets_(mask_ + 1), used_((mask_ + 64) / 64, 0) {}

  bool empty() const { return wheel_events_ == 0 && far_.empty(); }
  size_t size() const { return wheel_events_ + far_.size(); }

  void push(const E& e) {
    if (e.t < cur_ || e.t - cur_ > mask_) {
      far_.push(e);
      return;
    }
    const uint64_t b = e.t & mask_;
    Bucket& k = buckets_[b];
    if (k.tail == kNil || k.tail_pos == kChunk) {
      const uint32_t c = new_chunk();
      if (k.tail == kNil) k.head = c, k.head_pos = 0;
      else chunks_[k.tail].next = c;
      k.tail = c;
      k.tail_pos = 0;
    }
    chunks_[k.tail].ev[k.tail_pos++] = e;
    used_[b / 64] |= uint64_t(1) << (b % 64);
    ++wheel_events_;
  }

  // The cycle of the next event; kNone when empty.
  uint64_t next_time() const {
    uint64_t t = far_.empty() ? kNone : far_.top().t;
    if (wheel_events_) t = std::min(t, cur_ + distance_to_next());
    return t;
  }

  // The next event (the queue must not be empty).
  const E& top() {
    settle();
    if (from_far_) return far_.top();
    return top_wheel();
  }

  // The wheel event `k` places after the next one in the present cycle's bucket (k < kChunk), or
  // null: a caller may prefetch what that event will touch (valid until the next push or pop).
  const E* ahead(size_t k) const {
    const Bucket& b = buckets_[cur_ & mask_];
    if (b.head == kNil) return nullptr;
    size_t pos = b.head_pos + k;
    uint32_t c = b.head;
    if (pos >= kChunk) {  // in the next chunk, if the bucket has one
      if (c == b.tail) return nullptr;
      c = chunks_[c].next;
      pos -= kChunk;
    }
    if (c == b.tail && pos >= b.tail_pos) return nullptr;
    return &chunks_[c].ev[pos];
  }

  void pop() {
    settle();
    if (from_far_) {
      const uint64_t t = far_.top().t;
      far_.pop();
      if (wheel_events_ == 0 && t > cur_) cur_ = t;  // keep the window at the present
      return;
    }
    const uint64_t i = cur_ & mask_;
    Bucket& b = buckets_[i];
    ++b.head_pos;
    if (b.head == b.tail && b.head_pos == b.tail_pos) {  // the bucket is empty
      free_chunks_.push_back(b.head);
      b = Bucket{};
      used_[i / 64] &= ~(uint64_t(1) << (i % 64));
    } else if (b.head_pos == kChunk) {  // on to the bucket's next chunk
      const uint32_t c = b.head;
      b.head = chunks_[c].next;
      b.head_pos = 0;
      free_chunks_.push_back(c);
      prefetch_chunk(b.head);
    }
    --wheel_events_;
  }

 private:
  // A bucket is a FIFO list of chunks of kChunk events, from one pool of chunks reused most
  // recently freed first: the events in flight stay dense in memory (per-bucket vectors kept
  // every bucket's largest burst allocated, megabytes touched once per turn of the wheel, each
  // page a fault on first use), and a cycle's events are read in sequence (lists of single
  // events sent every pop to a node pushed hundreds of cycles earlier, a cache miss each), so
  // ahead() can name the next ones for prefetching.
  static constexpr uint32_t kNil = ~0u;
  static constexpr uint32_t kChunk = 8;
  struct Chunk {
    E ev[kChunk];
    uint32_t next = kNil;
  };
  struct Bucket {
    uint32_t head = kNil, tail = kNil;  // chunks
    uint32_t head_pos = 0, tail_pos = 0;  // the next event to pop in `head`, the next free place in `tail`
  };
  uint32_t new_chunk() {
    uint32_t c;
    if (!free_chunks_.empty()) {
      c = free_chunks_.back();
      free_chunks_.pop_back();
    } else {
      c = uint32_t(chunks_.size());
      chunks_.emplace_back();
    }
    chunks_[c].next = kNil;
    return c;
  }

  // Buckets from cur_ to the first non-empty one (wheel_events_ > 0).
  uint64_t distance_to_next() const {
    const uint64_t start = cur_ & mask_;
    uint64_t i = start;
    // Every word once, the first one again for the bits before `start`.
    for (size_t k = 0; k <= used_.size(); ++k) {
      const uint64_t w = used_[i / 64] >> (i % 64);
      if (w) return (i + uint64_t(std::countr_zero(w)) - start) & mask_;
      i = (i + 64 - i % 64) & mask_;
    }
    return 0;  // unreachable while wheel_events_ > 0
  }

  // (Host caches: a chunk is read from its start, all of it while the bucket lasts.)
  void prefetch_chunk(uint32_t c) const {
    const char* p = reinterpret_cast<const char*>(&chunks_[c]);
    for (size_t off = 0; off < sizeof(Chunk); off += 64) __builtin_prefetch(p + off);
  }
  // Moves cur_ to the earliest wheel event and picks the source of the next event.
  void settle() {
    if (wheel_events_) {
      const uint64_t d = distance_to_next();
      if (d) {
        cur_ += d;
        // A new cycle: its first chunk, and the next cycle's (usually the one after).
        prefetch_chunk(buckets_[cur_ & mask_].head);
        if (const Bucket& n = buckets_[(cur_ + 1) & mask_]; n.head != kNil) prefetch_chunk(n.head);
      }
    }
    from_far_ = !far_.empty() &&
                (wheel_events_ == 0 || far_.top().t < cur_ || (far_.top().t == cur_ && far_.top().seq < top_wheel().seq));
  }
  const E& top_wheel() const {
    const Bucket& b = buckets_[cur_ & mask_];
    return chunks_[b.head].ev[b.head_pos];
  }

  uint64_t mask_;
  std::vector<Bucket> buckets_;
  std::vector<Chunk> chunks_;
  std::vector<uint32_t> free_chunks_;  // chunks to reuse
  std::vector<uint64_t> used_;  // non-empty buckets
  uint64_t cur_ = 0;            // the window's first cycle; no wheel event is earlier
  size_t wheel_events_ = 0;
  bool from_far_ = false;
  std::priority_queue<E, std::vector<E>, std::greater<E>> far_;
};

}  // namespace warpsim::timing
