// A zero-initialised array whose large instances cost memory only where they are written. A warp's
// register file spans every function of its module (Program::nregs slots x 32 lanes x 8 bytes: 7 MB
// for a Thrust module), and the timing model keeps thousands of warps resident; anonymous mmap gives
// zero pages on first touch, so each warp pays only for the slots of the functions it runs.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace warpsim::func {

template <typename T>
class ZeroArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroArray() = default;
  ZeroArray(const ZeroArray&) = delete;
  ZeroArray& operator=(const ZeroArray&) = delete;
  ZeroArray(ZeroArray&& o) noexcept { swap(o); }
  ZeroArray& operator=(ZeroArray&& o) noexcept {
    ZeroArray t(std::move(o));
    swap(t);
    return *this;
  }
  ~ZeroArray() { release(); }

  // n zero elements (previous contents dropped).
  void assign(size_t n) {
    release();
    if (n == 0) return;
    size_t bytes = n * sizeof(T);
    if (bytes >= kMapThreshold) {
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      p_ = static_cast<T*>(p);
      mapped_ = true;
    } else {
      p_ = static_cast<T*>(std::calloc(n, sizeof(T)));
      if (!p_) throw std::bad_alloc();
    }
    n_ = n;
  }
  // n elements whose contents are unspecified where the heap recycles memory (large arrays still
  // come zero from mmap): for callers that clear what they read, and only that.
  void assign_uninitialized(size_t n) {
    release();
    if (n == 0) return;
    if (n * sizeof(T) >= kMapThreshold) return assign(n);
    p_ = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (!p_) throw std::bad_alloc();
    n_ = n;
  }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }

 private:
  static constexpr size_t kMapThreshold = 64 * 1024;
  void release() {
    if (p_) {
      if (mapped_) munmap(p_, n_ * sizeof(T));
      else std::free(p_);
    }
    p_ = nullptr;
    n_ = 0;
    mapped_ = false;
  }
  void swap(ZeroArray& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(mapped_, o.mapped_);
  }
  T* p_ = nullptr;
  size_t n_ = 0;
  bool mapped_ = false;
};

}  // namespace warpsim::func
