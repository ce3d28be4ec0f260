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
    buckets_[b].ev.push_back(e);
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

  // The wheel event `k` places after the next one in the present cycle's bucket, or null: a
  // caller may prefetch what that event will touch (valid until the next push or pop).
  const E* ahead(size_t k) const {
    const Bucket& b = buckets_[cur_ & mask_];
    return b.head + k < b.ev.size() ? &b.ev[b.head + k] : nullptr;
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
    if (++b.head == b.ev.size()) {
      b.head = 0;
      // A burst (an L2 flush's write-backs) does not keep its memory with the bucket.
      if (b.ev.capacity() > kKeepEvents) std::vector<E>().swap(b.ev);
      else b.ev.clear();
      used_[i / 64] &= ~(uint64_t(1) << (i % 64));
    }
    --wheel_events_;
  }

 private:
  // A bucket holds its cycle's events contiguously, in push order, read from `head` on: popping
  // a cycle's events reads memory in sequence (a FIFO list of nodes in one pool, as before, sent
  // every pop to a node pushed hundreds of cycles earlier, a cache miss each), and ahead() can name
  // the next events for prefetching. A bucket keeps its capacity up to kKeepEvents, so after the
  // first few thousand cycles pushes allocate nothing.
  static constexpr size_t kKeepEvents = 4096;
  struct Bucket {
    std::vector<E> ev;
    size_t head = 0;
  };

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

  // Moves cur_ to the earliest wheel event and picks the source of the next event.
  void settle() {
    if (wheel_events_) cur_ += distance_to_next();
    from_far_ = !far_.empty() &&
                (wheel_events_ == 0 || far_.top().t < cur_ || (far_.top().t == cur_ && far_.top().seq < top_wheel().seq));
  }
  const E& top_wheel() const {
    const Bucket& b = buckets_[cur_ & mask_];
    return b.ev[b.head];
  }

  uint64_t mask_;
  std::vector<Bucket> buckets_;
  std::vector<uint64_t> used_;  // non-empty buckets
  uint64_t cur_ = 0;            // the window's first cycle; no wheel event is earlier
  size_t wheel_events_ = 0;
  bool from_far_ = false;
  std::priority_queue<E, std::vector<E>, std::greater<E>> far_;
};

}  // namespace warpsim::timing
