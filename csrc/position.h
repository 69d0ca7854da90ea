// A shogi position with do/undo, Zobrist keys, check and pin detection.
//
// Keys: board_key() hashes the board and the side to move only; the hands are
// kept apart (hand(c)) so that positions differing only in hands share a board
// key. The mate search's transposition table needs exactly that to look up
// superior and inferior positions. full_key() mixes the hands in, for
// repetition detection.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bitboard.h"
#include "hand.h"
#include "types.h"

namespace usi_mate {

// What do_move changes that undo_move cannot recompute cheaply.
struct StateInfo {
  uint64_t board_key;
  uint64_t hand_key;
  Bitboard checkers;  // pieces giving check to the side to move
  Move move;          // the move that led here (MOVE_NONE at the root)
  Piece captured;     // piece captured by that move
};

class Position {
 public:
  Position();
  // Throws std::invalid_argument with a message naming the problem.
  void set_sfen(const std::string& sfen);
  std::string sfen() const;
  static const char* kStartSfen;
  // Move numbers saturate here, when read and when written (see set_sfen).
  static constexpr int kMaxMoveNumber = 1000000000;

  Color side_to_move() const { return side_; }
  Piece piece_on(Square s) const { return board_[s]; }
  Hand hand(Color c) const { return hand_[c]; }
  Square king_square(Color c) const { return king_sq_[c]; }
  Bitboard pieces() const { return occ_; }
  Bitboard pieces(Color c) const { return by_color_[c]; }
  Bitboard pieces(PieceType pt) const { return by_type_[pt]; }
  Bitboard pieces(Color c, PieceType pt) const { return by_type_[pt] & by_color_[c]; }
  // Gold-movers: gold and the four promoted minor pieces.
  Bitboard golds(Color c) const {
    return (by_type_[GOLD] | by_type_[PRO_PAWN] | by_type_[PRO_LANCE] | by_type_[PRO_KNIGHT] | by_type_[PRO_SILVER]) &
           by_color_[c];
  }
  Bitboard rook_likes(Color c) const { return (by_type_[ROOK] | by_type_[DRAGON]) & by_color_[c]; }
  Bitboard bishop_likes(Color c) const { return (by_type_[BISHOP] | by_type_[HORSE]) & by_color_[c]; }

  uint64_t board_key() const { return st().board_key; }
  uint64_t full_key() const { return st().board_key + st().hand_key; }
  Bitboard checkers() const { return st().checkers; }
  bool in_check() const { return bool(st().checkers); }
  int64_t game_ply() const { return std::min<int64_t>(int64_t(start_ply_) + ply_from_root(), kMaxMoveNumber); }
  int ply_from_root() const { return int(states_.size()) - 1; }
  Move last_move() const { return st().move; }

  // Pieces of colour c attacking square s, with occupancy occ.
  Bitboard attackers_to(Color c, Square s, Bitboard occ) const;
  Bitboard attackers_to(Color c, Square s) const { return attackers_to(c, s, occ_); }
  // attackers_to(c, s, occ) != 0, stopping at the first attacker found.
  bool attacked(Color c, Square s, Bitboard occ) const;
  // Pieces (of either colour) standing alone between a slider of ~king_color and
  // king_color's king. Those of king_color are pinned; those of the slider's colour
  // give discovered check when they leave the line.
  Bitboard blockers_for_king(Color king_color) const;
  Bitboard pinned(Color c) const { return blockers_for_king(c) & by_color_[c]; }

  void do_move(Move m);
  // board_key() after do_move(m), without making the move (to prefetch table entries).
  uint64_t board_key_after(Move m) const;
  void undo_move();
  // True when the move (assumed legal) gives check.
  bool gives_check(Move m) const;

  // Fills a move's moved-type bits from the board; returns MOVE_NONE if the origin
  // holds no piece of the side to move. Used when parsing USI.
  Move complete_move(Move m16) const;

 private:
  const StateInfo& st() const { return states_.back(); }
  void clear();
  void put_piece(Piece p, Square s);
  void remove_piece(Square s);
  void compute_state_from_scratch();

  Piece board_[SQ_NB];
  Bitboard by_type_[PIECE_TYPE_NB];
  Bitboard by_color_[COLOR_NB];
  Bitboard occ_;
  Hand hand_[COLOR_NB];
  Square king_sq_[COLOR_NB];
  Color side_;
  int start_ply_;
  std::vector<StateInfo> states_;  // states_[0] is the root; reserved so do_move never allocates
};

namespace zobrist {
extern uint64_t psq[PIECE_NB][SQ_NB];
extern uint64_t side;
extern uint64_t hand[COLOR_NB][PIECE_TYPE_NB];
}  // namespace zobrist

void init_core();  // tables and Zobrist keys; idempotent

std::string move_to_usi(Move m);
// Parses the USI text of a move (without checking legality); MOVE_NONE when malformed.
Move usi_to_move16(const std::string& s);
std::string square_to_usi(Square s);

}  // namespace usi_mate
