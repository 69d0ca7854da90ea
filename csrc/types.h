// Basic shogi types: colours, piece types, pieces, squares and moves.
//
// Square numbering follows the USI file-major convention used by Apery and
// YaneuraOu: sq = (file - 1) * 9 + (rank - 1), so "1a" = 0, "1i" = 8, "9i" = 80.
// Squares of one file are contiguous, which makes file masks (nifu, lance rays)
// single runs of 9 bits.
#pragma once

#include <cstdint>

namespace usi_mate {

enum Color : int { BLACK = 0, WHITE = 1, COLOR_NB = 2 };
constexpr Color operator~(Color c) { return Color(c ^ 1); }

// Piece types. Unpromoted hand-capable types are 1..7 in the order PAWN, LANCE,
// KNIGHT, SILVER, BISHOP, ROOK, GOLD so that a hand can be indexed directly;
// promoting adds PROMOTE (8).
enum PieceType : int {
  NO_PIECE_TYPE = 0,
  PAWN = 1,
  LANCE,
  KNIGHT,
  SILVER,
  BISHOP,
  ROOK,
  GOLD,
  KING,
  PRO_PAWN = 9,
  PRO_LANCE,
  PRO_KNIGHT,
  PRO_SILVER,
  HORSE,
  DRAGON,
  PIECE_TYPE_NB = 15
};
constexpr int PROMOTE = 8;
constexpr int HAND_TYPE_BEGIN = PAWN;
constexpr int HAND_TYPE_END = KING;  // exclusive: PAWN..GOLD

// A piece is its type plus 16 for white; 0 is the empty square.
enum Piece : int { NO_PIECE = 0, PIECE_NB = 32 };
constexpr Piece make_piece(Color c, PieceType pt) { return Piece(pt | (c << 4)); }
constexpr PieceType type_of(Piece p) { return PieceType(p & 15); }
constexpr Color color_of(Piece p) { return Color(p >> 4); }
constexpr bool can_promote(PieceType pt) { return pt >= PAWN && pt <= ROOK; }
constexpr PieceType promoted(PieceType pt) { return PieceType(pt + PROMOTE); }
// The type a captured piece becomes in hand (promotion and colour are lost).
constexpr PieceType hand_type(PieceType pt) { return pt == KING ? KING : PieceType(pt > KING ? pt - PROMOTE : pt); }

using Square = int;
constexpr Square SQ_NB = 81;
constexpr Square SQ_NONE = 81;
constexpr int file_of(Square s) { return s / 9; }  // 0 = file 1
constexpr int rank_of(Square s) { return s % 9; }  // 0 = rank a
constexpr Square make_square(int file, int rank) { return file * 9 + rank; }
// Rank as seen by colour c: 0 is the far (promotion) end.
constexpr int relative_rank(Color c, int rank) { return c == BLACK ? rank : 8 - rank; }
constexpr bool in_promotion_zone(Color c, Square s) { return relative_rank(c, rank_of(s)) <= 2; }

// A move in 32 bits:
//   bits 0-6   destination square
//   bits 7-13  origin square, or the dropped piece type for a drop
//   bit  14    promotion
//   bit  15    drop
//   bits 16-19 type of the moving piece before the move (for drops, the dropped type)
// 0 is no move (no move goes from 1a to 1a).
using Move = uint32_t;
constexpr Move MOVE_NONE = 0;
constexpr Move MOVE_PROMOTE = 1u << 14;
constexpr Move MOVE_DROP = 1u << 15;
constexpr Move make_move(Square from, Square to, PieceType moved) {
  return Move(to) | (Move(from) << 7) | (Move(moved) << 16);
}
constexpr Move make_promotion(Square from, Square to, PieceType moved) {
  return make_move(from, to, moved) | MOVE_PROMOTE;
}
constexpr Move make_drop(PieceType pt, Square to) { return Move(to) | (Move(pt) << 7) | MOVE_DROP | (Move(pt) << 16); }
constexpr Square move_to(Move m) { return Square(m & 0x7f); }
constexpr Square move_from(Move m) { return Square((m >> 7) & 0x7f); }
constexpr bool is_drop(Move m) { return (m & MOVE_DROP) != 0; }
constexpr bool is_promotion(Move m) { return (m & MOVE_PROMOTE) != 0; }
constexpr PieceType drop_type(Move m) { return PieceType((m >> 7) & 0x7f); }
constexpr PieceType moved_type(Move m) { return PieceType((m >> 16) & 15); }
// The piece type standing on the destination after the move.
constexpr PieceType moved_after(Move m) { return is_promotion(m) ? promoted(moved_type(m)) : moved_type(m); }

}  // namespace usi_mate
