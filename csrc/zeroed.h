// A fixed-size array of zeros from calloc, for the search's large per-Solver
// tables (path set, repetition table, futility memo: ~4 MB). Large blocks come
// from fresh pages that the kernel zeroes when first touched, where a
// std::vector wrote every byte up front: a Solver made for a few trivial
// positions (solve_many, one call) spent ~2 ms wiping memory it never used.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>

namespace usi_mate {

template <class T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>, "zero bytes must be a valid T");

 public:
  explicit ZeroedArray(size_t n) : p_(static_cast<T*>(std::calloc(n ? n : 1, sizeof(T)))), n_(n) {
    if (!p_) throw std::bad_alloc();
  }
  ~ZeroedArray() { std::free(p_); }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;

  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  size_t size() const { return n_; }

 private:
  T* p_;
  size_t n_;
};

}  // namespace usi_mate
