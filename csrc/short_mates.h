// Mates the move generator finds before any search: in one ply and in three.
// Solver::settled_at_root answers them for bulk callers, whose positions are
// mostly this short, without the table, the df-pn or the line reader.
#pragma once

#include <cstdint>

#include "movegen.h"

namespace usi_mate {

// Screening a check without making it. The squares next to the enemy king it
// could step to now: neither its own pieces nor attacked by the side to move
// (the king off the board: it cannot shelter behind itself).
Bitboard king_escape_squares(const Position& pos);

// False when check m surely leaves one of `escapes` free (no mate); true when
// it may take them all (then the check must be made and the replies counted).
bool check_may_mate(const Position& pos, Move m, Bitboard escapes);

// The first of `checks` (legal checks of the side to move, in generation
// order) that mates at once, or MOVE_NONE. `looked_at` counts the checks
// looked at up to it (the nodes the search would count finding it).
Move first_mating_check(Position& pos, const MoveList& checks, uint64_t& looked_at);

// A mate in three plies where there is none in one: the first of `checks`
// after which every reply is mated at once. `line` gets that check, the reply
// whose line leaves the attacker the fewest pieces in hand (the composers'
// spare pieces; the first such in generation order) and its mate. With
// `read_as_reader` the replies' mates are the first mating checks in
// generation order, as the line reader reads them from a proven tree (the
// shortest-mate answer's line); else the mates found first (a first proof's).
// `made` counts the positions made; false when there is no such mate, or when
// `made` would pass `limit` before the answer.
bool mate_in_three(Position& pos, const MoveList& checks, Move line[3], uint64_t& made, uint64_t limit,
                   bool read_as_reader);

}  // namespace usi_mate
