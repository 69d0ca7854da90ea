// Proof hands and disproof hands (証明駒 / 反証駒), after seed 000
// (komori-n, "詰将棋探索における証明駒/反証駒の活用方法").
//
// A proof hand p of a proven node n: every position with n's board and an
// attacker hand containing p is mate. A disproof hand d of a disproven node:
// every position with n's board and an attacker hand contained in d is not.
// The smaller the proof hand (the larger the disproof hand), the more
// positions one table entry settles.
//
// Rules (attacker hand h; a move m at an OR node; "before" maps a hand after m
// back to the hand before it):
//   before(h) = h - captured piece (clamped at 0) for a capture,
//             = h + dropped piece for a drop, h otherwise.
//   (The seed writes these two the other way round; that version is unsound:
//    a mate by G*xx would get a proof hand without the gold. See docs/DFPN.md.)
//   OR proven by m:    p = before(p_child)
//   AND proven:        p = union of p_child, plus, when the check can be blocked
//                      (a single distant checker), every piece type the defender
//                      does not hold at all in the attacker's full count (set A_n):
//                      with fewer of them the defender would hold one to interpose.
//   AND disproven by m: d = d_child (defender moves leave the attacker's hand as
//                      it is), except that a refuting drop of piece type X needs
//                      the defender to hold an X: d keeps at most (X off the
//                      board) - 1 for the attacker. The seed writes d = d_child;
//                      with every X in the attacker's hand the drop is gone.
//   OR disproven:      d = intersection of before(d_child), minus every piece type
//                      the attacker does not hold but could drop with check (set B_n):
//                      with one in hand the attacker would have a new check to try.
#pragma once

#include "bitboard.h"
#include "hand.h"
#include "position.h"

namespace usi_mate {

// Full count of each hand type in a full set; disproof hands are capped here.
constexpr int FULL_COUNT[8] = {0, 18, 4, 4, 4, 2, 2, 4};

inline Hand full_hand() {
  Hand h = 0;
  for (int pt = PAWN; pt < KING; ++pt) h = hand_set(h, PieceType(pt), FULL_COUNT[pt]);
  return h;
}

// The hand before move m (played by the attacker), given the hand after it.
// `captured` is the piece the move captured (NO_PIECE if none).
inline Hand hand_before_move(Hand after, Move m, Piece captured) {
  if (is_drop(m)) {
    PieceType pt = drop_type(m);
    int n = hand_count(after, pt) + 1;
    return hand_set(after, pt, n > FULL_COUNT[pt] ? FULL_COUNT[pt] : n);
  }
  if (captured != NO_PIECE) {
    PieceType pt = hand_type(type_of(captured));
    if (pt != KING && hand_count(after, pt) > 0) return hand_sub(after, pt);
  }
  return after;
}

// Proof hand of an AND node (defender to move, in check) from the union of its
// children's proof hands: adds set A_n when the check can be blocked.
inline Hand and_node_proof_hand(const Position& pos, Color attacker, Hand children_union) {
  Color defender = ~attacker;
  Bitboard checkers = pos.checkers();
  Square k = pos.king_square(defender);
  if (!checkers || checkers.more_than_one() || k == SQ_NONE) return children_union;
  if (!T.between[checkers.lsb()][k]) return children_union;  // adjacent or knight check
  Hand own = pos.hand(attacker), theirs = pos.hand(defender);
  Hand p = children_union;
  for (int pt = PAWN; pt < KING; ++pt)
    if (!hand_has(theirs, PieceType(pt)) && hand_count(own, PieceType(pt)) > hand_count(p, PieceType(pt)))
      p = hand_set(p, PieceType(pt), hand_count(own, PieceType(pt)));
  return p;
}

// Disproof hand of an AND node (defender to move) refuted by `refutation`,
// whose child has the disproof hand `child`: see the rules above.
inline Hand and_node_disproof_hand(const Position& pos, Color attacker, Hand child, Move refutation) {
  if (!is_drop(refutation)) return child;
  PieceType x = drop_type(refutation);
  int most = hand_count(pos.hand(attacker), x) + hand_count(pos.hand(~attacker), x) - 1;
  return hand_count(child, x) > most ? hand_set(child, x, most) : child;
}

// Disproof hand of an OR node (attacker to move) from the intersection of
// before(d_child) over all children: removes set B_n, the piece types the
// attacker lacks but could drop with check somewhere.
inline Hand or_node_disproof_hand(const Position& pos, Color attacker, Hand children_meet) {
  Color defender = ~attacker;
  Square k = pos.king_square(defender);
  Hand own = pos.hand(attacker);
  if (k == SQ_NONE) return children_meet;
  Bitboard empty = ~pos.pieces();
  Bitboard occ = pos.pieces();
  Hand d = children_meet;
  for (int p = PAWN; p < KING; ++p) {
    PieceType pt = PieceType(p);
    if (hand_has(own, pt)) continue;
    Bitboard sq;
    switch (pt) {
      case LANCE: sq = lance_attacks(defender, k, occ) & ~T.no_move_ranks[attacker][0]; break;
      case BISHOP: sq = bishop_attacks(k, occ); break;
      case ROOK: sq = rook_attacks(k, occ); break;
      case PAWN: sq = step_attacks(defender, PAWN, k) & ~T.no_move_ranks[attacker][0]; break;
      case KNIGHT: sq = step_attacks(defender, KNIGHT, k) & ~T.no_move_ranks[attacker][1]; break;
      default: sq = step_attacks(defender, pt, k); break;
    }
    // A drop check of this type would be a new move: the disproof must not cover it.
    // (Conservative for pawns: nifu and pawn-drop mate are not excluded here.)
    if (sq & empty) d = hand_set(d, pt, 0);
  }
  return d;
}

}  // namespace usi_mate
