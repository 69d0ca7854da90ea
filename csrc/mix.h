// 64-bit mixing (SplitMix64's finaliser): spreads keys that differ in a few
// bits over the whole word, for salts and derived table keys.
#pragma once

#include <cstdint>

namespace usi_mate {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace usi_mate
