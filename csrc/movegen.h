// Exact move generation: all legal moves, checking moves for the attacker and
// evasions for the defender, with the exact pawn-drop-mate test.
//
// Every generator returns legal moves only. check_moves is generated directly
// (targets restricted to check squares and discovered-check lines) because it
// is the hot path of mate search: an OR node never looks at quiet moves.
#pragma once

#include "position.h"

namespace usi_mate {

// 593 is the largest known number of legal moves in a shogi position; 600 leaves room.
constexpr int MAX_MOVES = 600;

struct MoveList {
  Move moves[MAX_MOVES];
  int size = 0;
  void push(Move m) { moves[size++] = m; }
  const Move* begin() const { return moves; }
  const Move* end() const { return moves + size; }
  Move operator[](int i) const { return moves[i]; }
  bool contains(Move m) const {
    for (int i = 0; i < size; ++i)
      if (moves[i] == m) return true;
    return false;
  }
};

void generate_legal(const Position& pos, MoveList& list);
// Legal moves of the side to move that give check (the attacker's moves in tsume).
void generate_checks(const Position& pos, MoveList& list);
// Legal replies to a check; empty when the side to move is not in check.
void generate_evasions(const Position& pos, MoveList& list);

// True when dropping a pawn of the side to move on `to` would checkmate the
// opponent (and so is illegal). Exact: the defender's king moves, captures of
// the pawn by unpinned pieces, and whether the pawn is protected all count.
// out[pt]: the squares from which a piece of colour us and type pt attacks the
// square k (over the position's occupancy), for every piece type.
void check_squares(const Position& pos, Color us, Square k, Bitboard* out);

bool is_pawn_drop_mate(const Position& pos, Square to);

// True when the side to move has at least one legal move (cheaper than generating all).
bool has_legal_move(const Position& pos);

uint64_t perft(Position& pos, int depth);

}  // namespace usi_mate
