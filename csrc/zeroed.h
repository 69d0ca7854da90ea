// Zeroed memory for the search's large tables (the transposition table, and
// per worker the path set, repetition table and futility memo: ~4 MB). Large
// blocks are fresh pages from the OS, which zeroes each when first touched,
// where a std::vector wrote every byte up front: a Solver made for a few
// trivial positions (solve_many, one call) spent ~2 ms wiping memory it never
// used. Not calloc for those: glibc raises its mmap threshold to the largest
// block freed (up to 32 MB), after which calloc takes a block of a few MB from
// the heap and clears it byte by byte, so a new small Solver cost more to
// build than a 256 MB one (docs/BENCHMARKS.md, "The cost of a call").
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>

namespace usi_mate {

// Blocks of at least this many bytes are mapped pages; smaller ones calloc's.
constexpr size_t kZeroedPagesFrom = size_t(64) << 10;

// `bytes` of zeros (null when the memory is not there); free with zeroed_free(p,
// bytes). (zeroed.cpp: windows.h stays out of the headers, its near and far
// macros would break every file that includes them.)
void* zeroed_alloc(size_t bytes);
void zeroed_free(void* p, size_t bytes);

template <class T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>, "zero bytes must be a valid T");

 public:
  explicit ZeroedArray(size_t n) : p_(static_cast<T*>(zeroed_alloc(bytes(n)))), n_(n) {
    if (!p_) throw std::bad_alloc();
  }
  ~ZeroedArray() { zeroed_free(p_, bytes(n_)); }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;

  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  size_t size() const { return n_; }

 private:
  static size_t bytes(size_t n) { return (n ? n : 1) * sizeof(T); }
  T* p_;
  size_t n_;
};

}  // namespace usi_mate
