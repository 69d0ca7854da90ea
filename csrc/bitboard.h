// 81-square bitboards and attack tables.
//
// A bitboard is one unsigned __int128 (bit sq set = square sq), supported by GCC
// and Clang on every 64-bit target we build for. Shifts and logic compile to two
// 64-bit operations; popcount and bit scans split into the two halves. Sliding
// attacks use per-direction rays and the nearest blocker (found with one bit
// scan), which costs a handful of instructions per direction and needs only
// 81 * 8 * 16 bytes = 10 KB of rays, small enough to stay in L1.
#pragma once

#include <cstdint>

#include "types.h"

namespace usi_mate {

using u128 = unsigned __int128;

struct Bitboard {
  u128 v = 0;
  constexpr Bitboard() = default;
  constexpr explicit Bitboard(u128 x) : v(x) {}
  explicit operator bool() const { return v != 0; }
  Bitboard operator&(Bitboard o) const { return Bitboard(v & o.v); }
  Bitboard operator|(Bitboard o) const { return Bitboard(v | o.v); }
  Bitboard operator^(Bitboard o) const { return Bitboard(v ^ o.v); }
  Bitboard operator~() const { return Bitboard(~v & ((u128(1) << 81) - 1)); }
  Bitboard& operator&=(Bitboard o) { v &= o.v; return *this; }
  Bitboard& operator|=(Bitboard o) { v |= o.v; return *this; }
  Bitboard& operator^=(Bitboard o) { v ^= o.v; return *this; }
  bool operator==(Bitboard o) const { return v == o.v; }
  bool test(Square s) const { return (v >> s) & 1; }
  uint64_t lo() const { return uint64_t(v); }
  uint64_t hi() const { return uint64_t(v >> 64); }
  int popcount() const { return __builtin_popcountll(lo()) + __builtin_popcountll(hi()); }
  bool more_than_one() const { return (v & (v - 1)) != 0; }
  Square lsb() const { return lo() ? __builtin_ctzll(lo()) : 64 + __builtin_ctzll(hi()); }
  Square msb() const { return hi() ? 127 - __builtin_clzll(hi()) : 63 - __builtin_clzll(lo()); }
  Square pop_lsb() { Square s = lsb(); v &= v - 1; return s; }
};

inline Bitboard square_bb(Square s) { return Bitboard(u128(1) << s); }

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
  Bitboard between[SQ_NB][SQ_NB];  // squares strictly between two aligned squares
  Bitboard line[SQ_NB][SQ_NB];     // the full line through two aligned squares
  Bitboard file[9];
  Bitboard rank[9];
  Bitboard zone[COLOR_NB];         // promotion zone
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
inline Bitboard lance_attacks(Color c, Square s, Bitboard occ) {
  return slide(s, c == BLACK ? DIR_N : DIR_S, occ);
}
inline Bitboard king_attacks(Square s) { return T.step[BLACK][KING][s]; }
inline Bitboard step_attacks(Color c, PieceType pt, Square s) { return T.step[c][pt][s]; }
// Empty-board rays, used to find the sliders that could pin or discover.
inline Bitboard rook_rays(Square s) {
  return T.ray[s][DIR_N] | T.ray[s][DIR_S] | T.ray[s][DIR_E] | T.ray[s][DIR_W];
}
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
    case PRO_PAWN: case PRO_LANCE: case PRO_KNIGHT: case PRO_SILVER: return T.step[c][GOLD][s];
    default: return T.step[c][pt][s];
  }
}

inline bool aligned(Square a, Square b, Square c) { return T.line[a][b].test(c); }

}  // namespace usi_mate
