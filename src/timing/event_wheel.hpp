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
    uint32_t n;
    if (!free_.empty()) {
      n = free_.back();
      free_.pop_back();
      nodes_[n] = Node{e, kNil};
    } else {
      n = uint32_t(nodes_.size());
      nodes_.push_back(Node{e, kNil});
    }
    Bucket& k = buckets_[b];
    if (k.tail == kNil) k.head = n;
    else nodes_[k.tail].next = n;
    k.tail = n;
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
    return nodes_[buckets_[cur_ & mask_].head].e;
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
    const uint32_t n = b.head;
    b.head = nodes_[n].next;
    free_.push_back(n);
    if (b.head == kNil) {
      b.tail = kNil;
      used_[i / 64] &= ~(uint64_t(1) << (i % 64));
    }
    --wheel_events_;
  }

 private:
  // A bucket is a FIFO list of nodes in one pool (per-bucket vectors made thousands of small
  // allocations, and their memory stayed with the bucket).
  static constexpr uint32_t kNil = ~0u;
  struct Node {
    E e;
    uint32_t next;
  };
  struct Bucket {
    uint32_t head = kNil, tail = kNil;
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
  const E& top_wheel() const { return nodes_[buckets_[cur_ & mask_].head].e; }

  uint64_t mask_;
  std::vector<Bucket> buckets_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_;  // nodes to reuse
  std::vector<uint64_t> used_;  // non-empty buckets
  uint64_t cur_ = 0;            // the window's first cycle; no wheel event is earlier
  size_t wheel_events_ = 0;
  bool from_far_ = false;
  std::priority_queue<E, std::vector<E>, std::greater<E>> far_;
};

}  // namespace warpsim::timing
