// Pieces in hand packed into 32 bits, with the superiority relation.
//
// Layout (one guard bit above each field, always 0 in a valid hand):
//   pawn   bits  0-4  (0..18)  guard 5
//   lance  bits  6-8  (0..4)   guard 9
//   knight bits 10-12 (0..4)   guard 13
//   silver bits 14-16 (0..4)   guard 17
//   bishop bits 18-19 (0..2)   guard 20
//   rook   bits 21-22 (0..2)   guard 23
//   gold   bits 24-26 (0..4)   guard 27
// With guard bits, "a holds at least as many of every type as b" is one
// subtraction and one mask: a field of a smaller than b's borrows into its guard
// bit, and a borrow is the only way a guard bit becomes 1 (YaneuraOu's trick).
// This makes the superiority test of the transposition table a few instructions.
#pragma once

#include <cstdint>

#include "types.h"

namespace usi_mate {

using Hand = uint32_t;
constexpr Hand HAND_ZERO = 0;

constexpr int HAND_SHIFT[8] = {0, 0, 6, 10, 14, 18, 21, 24};
constexpr Hand HAND_MASK[8] = {0, 0x1f, 0x7, 0x7, 0x7, 0x3, 0x3, 0x7};
constexpr int HAND_MAX[8] = {0, 18, 4, 4, 4, 2, 2, 4};
constexpr Hand HAND_BORROW = (1u << 5) | (1u << 9) | (1u << 13) | (1u << 17) | (1u << 20) | (1u << 23) | (1u << 27);

constexpr Hand hand_one(PieceType pt) { return Hand(1) << HAND_SHIFT[pt]; }
constexpr int hand_count(Hand h, PieceType pt) { return int((h >> HAND_SHIFT[pt]) & HAND_MASK[pt]); }
constexpr bool hand_has(Hand h, PieceType pt) { return (h & (HAND_MASK[pt] << HAND_SHIFT[pt])) != 0; }
constexpr Hand hand_add(Hand h, PieceType pt, int n = 1) { return h + Hand(n) * hand_one(pt); }
constexpr Hand hand_sub(Hand h, PieceType pt, int n = 1) { return h - Hand(n) * hand_one(pt); }
constexpr Hand hand_set(Hand h, PieceType pt, int n) {
  return (h & ~(HAND_MASK[pt] << HAND_SHIFT[pt])) | (Hand(n) << HAND_SHIFT[pt]);
}
// a >= b for every piece type: a is "superior or equal" to b.
constexpr bool hand_is_superior_or_equal(Hand a, Hand b) { return ((a - b) & HAND_BORROW) == 0; }
// Field-wise minimum and maximum (used for disproof-hand intersection and proof-hand union).
inline Hand hand_min(Hand a, Hand b) {
  Hand r = 0;
  for (int pt = PAWN; pt < KING; ++pt) {
    int x = hand_count(a, PieceType(pt)), y = hand_count(b, PieceType(pt));
    r |= Hand(x < y ? x : y) << HAND_SHIFT[pt];
  }
  return r;
}
inline Hand hand_max(Hand a, Hand b) {
  Hand r = 0;
  for (int pt = PAWN; pt < KING; ++pt) {
    int x = hand_count(a, PieceType(pt)), y = hand_count(b, PieceType(pt));
    r |= Hand(x > y ? x : y) << HAND_SHIFT[pt];
  }
  return r;
}
inline int hand_total(Hand h) {
  int n = 0;
  for (int pt = PAWN; pt < KING; ++pt) n += hand_count(h, PieceType(pt));
  return n;
}

}  // namespace usi_mate
