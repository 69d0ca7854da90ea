// Bit operations on 64-bit words, each with the intrinsic its compiler has.
//
// This is the only file in csrc/ that names compiler-specific intrinsics (and,
// with bitboard.h, `unsigned __int128`): GCC and Clang have __builtin_*, MSVC
// (the compiler CPython uses on Windows) has <intrin.h>. Everything else in
// the core is ISO C++17, checked by compiling the portable variant with
// -pedantic-errors in .ci/run.
//
// USI_MATE_INT128 is 1 where the compiler has a 128-bit integer and the build
// did not ask for the portable path (setup.py: USI_MATE_PORTABLE=1); the
// bitboards and the table index then use it. MSVC has none, so on Windows the
// bitboard is two 64-bit halves (bitboard.h) and the table index uses
// mul_hi64's portable form; a Linux build with USI_MATE_PORTABLE=1 compiles
// that same code, so the tests here run the Windows code path.
#pragma once

#include <cstdint>

// USI_MATE_MSVC_INTRINSICS: the MSVC branches below. MSVC takes them; a mingw-w64 GCC
// build takes them too when asked (scripts.windows_check cross-compiles the Windows core
// so: mingw-w64's <intrin.h> declares the same intrinsics), so that the code MSVC
// compiles is the code run under Wine.
#if defined(_MSC_VER) || (defined(USI_MATE_MSVC_INTRINSICS) && defined(__MINGW64__))
#define USI_MATE_MSVC_BRANCHES 1
#else
#define USI_MATE_MSVC_BRANCHES 0
#endif

#if USI_MATE_MSVC_BRANCHES
#include <intrin.h>
#if defined(_M_X64) || defined(_M_IX86)
#include <xmmintrin.h>  // _mm_prefetch
#endif
#endif

#if !defined(USI_MATE_PORTABLE) && !USI_MATE_MSVC_BRANCHES && defined(__SIZEOF_INT128__)
#define USI_MATE_INT128 1
#else
#define USI_MATE_INT128 0
#endif

namespace usi_mate {

inline int popcount64(uint64_t x) {
#if USI_MATE_MSVC_BRANCHES && defined(_M_X64)
  // The POPCNT instruction: every x86-64 CPU since 2008 (Intel Nehalem, AMD K10);
  // Windows 11 requires it. Called once per AND-node expansion (dfpn.cpp).
  return int(__popcnt64(x));
#elif USI_MATE_MSVC_BRANCHES
  // MSVC for other CPUs (no release build targets them): the classic bit count.
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return int((x * 0x0101010101010101ull) >> 56);
#else
  return __builtin_popcountll(x);
#endif
}

// Index of the lowest set bit; x must not be 0.
inline int lsb64(uint64_t x) {
#if USI_MATE_MSVC_BRANCHES && defined(_M_X64)
  unsigned long i;
  _BitScanForward64(&i, x);
  return int(i);
#elif USI_MATE_MSVC_BRANCHES
  unsigned long i;  // 32-bit scans: on every CPU MSVC targets
  if (_BitScanForward(&i, uint32_t(x))) return int(i);
  _BitScanForward(&i, uint32_t(x >> 32));
  return int(i) + 32;
#else
  return __builtin_ctzll(x);
#endif
}

// Index of the highest set bit; x must not be 0.
inline int msb64(uint64_t x) {
#if USI_MATE_MSVC_BRANCHES && defined(_M_X64)
  unsigned long i;
  _BitScanReverse64(&i, x);
  return int(i);
#elif USI_MATE_MSVC_BRANCHES
  unsigned long i;
  if (_BitScanReverse(&i, uint32_t(x >> 32))) return int(i) + 32;
  _BitScanReverse(&i, uint32_t(x));
  return int(i);
#else
  return 63 - __builtin_clzll(x);
#endif
}

// A hint to start loading the cache line of p; no effect on results.
inline void prefetch(const void* p) {
#if USI_MATE_MSVC_BRANCHES && (defined(_M_X64) || defined(_M_IX86))
  _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
#elif USI_MATE_MSVC_BRANCHES
  (void)p;  // a hint only: other CPUs go without
#else
  __builtin_prefetch(p);
#endif
}

// High 64 bits of the 128-bit product a * b, from 32-bit halves (schoolbook
// multiplication; no term overflows 64 bits). This is the form every build
// without a 128-bit integer runs, MSVC's included, so it is the form the
// portable CI build tests; it costs a few multiplies per table access, next
// to the ~100 ns cache miss of the access itself.
constexpr uint64_t mul_hi64_portable(uint64_t a, uint64_t b) {
  uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  uint64_t lo_lo = a_lo * b_lo;
  uint64_t hi_lo = a_hi * b_lo;
  uint64_t lo_hi = a_lo * b_hi;
  uint64_t hi_hi = a_hi * b_hi;
  // At most (2^32 - 1) + (2^32 - 1) + (2^32 - 1)^2 = 2^64 - 1: no overflow.
  uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (cross >> 32);
}
static_assert(mul_hi64_portable(~0ull, ~0ull) == ~0ull - 1, "(2^64-1)^2 = 2^128 - 2^65 + 1");
static_assert(mul_hi64_portable(1ull << 63, 2) == 1, "2^63 * 2 = 2^64");
static_assert(mul_hi64_portable(0x123456789abcdef0ull, 0x0fedcba987654321ull) == 0x0121fa00ad77d742ull,
              "a product with carries between the halves");

inline uint64_t mul_hi64(uint64_t a, uint64_t b) {
#if USI_MATE_INT128
  return uint64_t((unsigned __int128)a * b >> 64);
#else
  return mul_hi64_portable(a, b);
#endif
}

}  // namespace usi_mate
