// A first-in first-out queue over a vector, which allocates nothing until its first push. std::deque
// allocates a 512-byte block and its map when it is constructed; every warp context and every SM
// unit queue had one, and the timing model builds them again for every launch (thousands of
// warps, on fresh pages).
#pragma once

#include <cstddef>
#include <vector>

namespace warpsim::timing {

template <class T>
class Fifo {
 public:
  bool empty() const { return head_ == v_.size(); }
  size_t size() const { return v_.size() - head_; }
  T& front() { return v_[head_]; }
  const T& front() const { return v_[head_]; }
  T& back() { return v_.back(); }
  const T& back() const { return v_.back(); }
  T& operator[](size_t i) { return v_[head_ + i]; }
  const T& operator[](size_t i) const { return v_[head_ + i]; }
  auto begin() { return v_.begin() + std::ptrdiff_t(head_); }
  auto end() { return v_.end(); }
  auto begin() const { return v_.begin() + std::ptrdiff_t(head_); }
  auto end() const { return v_.end(); }

  void push_back(const T& x) {
    // Drop the popped prefix once it is half the storage, so a queue that never drains fully
    // stays bounded.
    if (head_ >= 16 && head_ * 2 >= v_.size()) {
      v_.erase(v_.begin(), v_.begin() + std::ptrdiff_t(head_));
      head_ = 0;
    }
    v_.push_back(x);
  }
  void pop_front() {
    if (++head_ == v_.size()) clear();
  }
  void clear() {
    v_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> v_;
  size_t head_ = 0;
};

}  // namespace warpsim::timing
