// 81-square bitboards and attack tables.
//
// A bitboard is one unsigned __int128 (bit sq set = square sq) where the
// compiler has it (GCC and Clang on every 64-bit target). Shifts and logic
// compile to two 64-bit operations; popcount and bit scans split into the two
// halves. MSVC has no 128-bit integer, so there (and in a build with
// USI_MATE_PORTABLE=1, which is how CI tests the Windows code path on Linux)
// the same interface is two uint64_t halves: squares 0-63 in lo, 64-80 in hi.
// Both give the same results bit for bit and search the same nodes at the same
// speed; only perft tells them apart (docs/BENCHMARKS.md, "Move generation
// (perft)": both builds in one run with `python -m scripts.perft --builds`).
//
// Sliding attacks use per-direction rays and the nearest blocker (found with one
// bit scan), which costs a handful of instructions per direction and needs only
// 81 * 8 * 16 bytes = 10 KB of rays, small enough to stay in L1.
#pragma once

#include <cstdint>

#include "bitops.h"
#include "types.h"

namespace usi_mate {

#if USI_MATE_INT128

using u128 = unsigned __int128;

struct Bitboard {
  u128 v = 0;
  constexpr Bitboard() = default;
  constexpr explicit Bitboard(u128 x) : v(x) {}
  constexpr Bitboard(uint64_t lo, uint64_t hi) : v(u128(hi) << 64 | lo) {}
  explicit operator bool() const { return v != 0; }
  Bitboard operator&(Bitboard o) const { return Bitboard(v & o.v); }
  Bitboard operator|(Bitboard o) const { return Bitboard(v | o.v); }
  Bitboard operator^(Bitboard o) const { return Bitboard(v ^ o.v); }
  Bitboard operator~() const { return Bitboard(~v & ((u128(1) << 81) - 1)); }
  Bitboard& operator&=(Bitboard o) {
    v &= o.v;
    return *this;
  }
  Bitboard& operator|=(Bitboard o) {
    v |= o.v;
    return *this;
  }
  Bitboard& operator^=(Bitboard o) {
    v ^= o.v;
    return *this;
  }
  bool operator==(Bitboard o) const { return v == o.v; }
  bool test(Square s) const { return (v >> s) & 1; }
  uint64_t lo() const { return uint64_t(v); }
  uint64_t hi() const { return uint64_t(v >> 64); }
  int popcount() const { return popcount64(lo()) + popcount64(hi()); }
  bool more_than_one() const { return (v & (v - 1)) != 0; }
  Square lsb() const { return lo() ? lsb64(lo()) : 64 + lsb64(hi()); }
  Square msb() const { return hi() ? 64 + msb64(hi()) : msb64(lo()); }
  Square pop_lsb() {
    Square s = lsb();
    v &= v - 1;
    return s;
  }
};

inline Bitboard square_bb(Square s) { return Bitboard(u128(1) << s); }

#else  // two 64-bit halves: MSVC, or USI_MATE_PORTABLE=1

struct Bitboard {
  uint64_t lo_ = 0;  // squares 0-63 (files 1-7 and 8a)
  uint64_t hi_ = 0;  // squares 64-80 in bits 0-16
  constexpr Bitboard() = default;
  constexpr Bitboard(uint64_t lo, uint64_t hi) : lo_(lo), hi_(hi) {}
  explicit operator bool() const { return (lo_ | hi_) != 0; }
  Bitboard operator&(Bitboard o) const { return Bitboard(lo_ & o.lo_, hi_ & o.hi_); }
  Bitboard operator|(Bitboard o) const { return Bitboard(lo_ | o.lo_, hi_ | o.hi_); }
  Bitboard operator^(Bitboard o) const { return Bitboard(lo_ ^ o.lo_, hi_ ^ o.hi_); }
  Bitboard operator~() const { return Bitboard(~lo_, ~hi_ & ((uint64_t(1) << 17) - 1)); }
  Bitboard& operator&=(Bitboard o) {
    lo_ &= o.lo_;
    hi_ &= o.hi_;
    return *this;
  }
  Bitboard& operator|=(Bitboard o) {
    lo_ |= o.lo_;
    hi_ |= o.hi_;
    return *this;
  }
  Bitboard& operator^=(Bitboard o) {
    lo_ ^= o.lo_;
    hi_ ^= o.hi_;
    return *this;
  }
  bool operator==(Bitboard o) const { return lo_ == o.lo_ && hi_ == o.hi_; }
  bool test(Square s) const { return s < 64 ? (lo_ >> s) & 1 : (hi_ >> (s - 64)) & 1; }
  uint64_t lo() const { return lo_; }
  uint64_t hi() const { return hi_; }
  int popcount() const { return popcount64(lo_) + popcount64(hi_); }
  // Two bits in one half, or one in each.
  bool more_than_one() const { return ((lo_ & (lo_ - 1)) | (hi_ & (hi_ - 1))) != 0 || (lo_ != 0 && hi_ != 0); }
  Square lsb() const { return lo_ ? lsb64(lo_) : 64 + lsb64(hi_); }
  Square msb() const { return hi_ ? 64 + msb64(hi_) : msb64(lo_); }
  Square pop_lsb() {
    if (lo_) {
      Square s = lsb64(lo_);
      lo_ &= lo_ - 1;
      return s;
    }
    Square s = 64 + lsb64(hi_);
    hi_ &= hi_ - 1;
    return s;
  }
};

inline Bitboard square_bb(Square s) {
  return s < 64 ? Bitboard(uint64_t(1) << s, 0) : Bitboard(0, uint64_t(1) << (s - 64));
}

#endif

static_assert(sizeof(Bitboard) == 16, "both bitboards are 16 bytes: the tables have one layout");
// Which of the two this build uses (usi_mate._core.BITBOARD; CI checks the portable build).
constexpr const char* BITBOARD_KIND = USI_MATE_INT128 ? "int128" : "uint64x2";

// Direction indices: even directions decrease the square index, odd ones increase it,
// so the nearest blocker is msb (even) or lsb (odd).
enum Direction : int {
  DIR_N = 0,   // towards rank a (black's forward)
  DIR_S = 1,   // towards rank i
  DIR_E = 2,   // towards file 1
  DIR_W = 3,   // towards file 9
  DIR_NE = 4,  // file-1, rank-1
  DIR_SW = 5,  // file+1, rank+1
  DIR_SE = 6,  // file-1, rank+1
  DIR_NW = 7,  // file+1, rank-1
  DIR_NB = 8
};

struct Tables {
  Bitboard ray[SQ_NB][DIR_NB];
  Bitboard step[COLOR_NB][PIECE_TYPE_NB][SQ_NB];  // non-sliding attacks (pawn, knight, silver, gold, king)
  Bitboard between[SQ_NB][SQ_NB];                 // squares strictly between two aligned squares
  Bitboard line[SQ_NB][SQ_NB];                    // the full line through two aligned squares
  Bitboard file[9];
  Bitboard rank[9];
  Bitboard zone[COLOR_NB];              // promotion zone
  Bitboard no_move_ranks[COLOR_NB][3];  // [c][0] last rank (pawn, lance), [c][1] last two (knight)
};
extern Tables T;
void init_tables();

inline Bitboard slide(Square s, int dir, Bitboard occ) {
  Bitboard r = T.ray[s][dir];
  Bitboard b = r & occ;
  if (!b) return r;
  Square blocker = (dir & 1) ? b.lsb() : b.msb();
  return r ^ T.ray[blocker][dir];
}
inline Bitboard rook_attacks(Square s, Bitboard occ) {
  return slide(s, DIR_N, occ) | slide(s, DIR_S, occ) | slide(s, DIR_E, occ) | slide(s, DIR_W, occ);
}
inline Bitboard bishop_attacks(Square s, Bitboard occ) {
  return slide(s, DIR_NE, occ) | slide(s, DIR_SW, occ) | slide(s, DIR_SE, occ) | slide(s, DIR_NW, occ);
}
inline Bitboard lance_attacks(Color c, Square s, Bitboard occ) { return slide(s, c == BLACK ? DIR_N : DIR_S, occ); }
inline Bitboard king_attacks(Square s) { return T.step[BLACK][KING][s]; }
inline Bitboard step_attacks(Color c, PieceType pt, Square s) { return T.step[c][pt][s]; }
// Empty-board rays, used to find the sliders that could pin or discover.
inline Bitboard rook_rays(Square s) { return T.ray[s][DIR_N] | T.ray[s][DIR_S] | T.ray[s][DIR_E] | T.ray[s][DIR_W]; }
inline Bitboard bishop_rays(Square s) {
  return T.ray[s][DIR_NE] | T.ray[s][DIR_SW] | T.ray[s][DIR_SE] | T.ray[s][DIR_NW];
}

// Attacks of a piece of colour c and type pt on square s, given the occupancy.
inline Bitboard attacks(Color c, PieceType pt, Square s, Bitboard occ) {
  switch (pt) {
    case LANCE: return lance_attacks(c, s, occ);
    case BISHOP: return bishop_attacks(s, occ);
    case ROOK: return rook_attacks(s, occ);
    case HORSE: return bishop_attacks(s, occ) | king_attacks(s);
    case DRAGON: return rook_attacks(s, occ) | king_attacks(s);
    case PRO_PAWN:
    case PRO_LANCE:
    case PRO_KNIGHT:
    case PRO_SILVER: return T.step[c][GOLD][s];
    default: return T.step[c][pt][s];
  }
}

inline bool aligned(Square a, Square b, Square c) { return T.line[a][b].test(c); }

}  // namespace usi_mate
