#include "short_mates.h"

#include "hand.h"
#include "scoped_move.h"

namespace usi_mate {

Bitboard king_escape_squares(const Position& pos) {
  Color us = pos.side_to_move(), them = ~us;
  Square k = pos.king_square(them);
  if (k == SQ_NONE) return Bitboard();
  Bitboard occ = pos.pieces() ^ square_bb(k);
  Bitboard free;
  for (Bitboard t = king_attacks(k) & ~pos.pieces(them); t;) {
    Square s = t.pop_lsb();
    if (!pos.attacked(us, s, occ)) free |= square_bb(s);
  }
  return free;
}

bool check_may_mate(const Position& pos, Move m, Bitboard escapes) {
  if (!escapes) return true;
  Color us = pos.side_to_move();
  Square k = pos.king_square(~us), to = move_to(m);
  // After m only two things can newly cover a square: the piece on `to`, and a
  // slider whose line m opens at `from` (looked for only on squares in line
  // with `from`). What m uncovers or captures only adds escapes: ignored.
  Bitboard occ = (pos.pieces() ^ square_bb(k)) | square_bb(to);
  Bitboard from_bb;
  if (!is_drop(m)) {
    from_bb = square_bb(move_from(m));
    occ ^= from_bb;
  }
  escapes &= ~attacks(us, is_drop(m) ? drop_type(m) : moved_after(m), to, occ);
  if (!escapes || !from_bb) return !escapes;
  Square from = move_from(m);
  Bitboard rooks = pos.rook_likes(us) & ~from_bb, bishops = pos.bishop_likes(us) & ~from_bb;
  Bitboard lances = pos.pieces(us, LANCE) & ~from_bb;
  Bitboard sliders = rooks | bishops | lances;
  for (Bitboard t = escapes; t;) {
    Square s = t.pop_lsb();
    // Still free unless a slider of ours on the line through `from` reaches s now
    // that `from` is empty: read from s's own lines over the new occupancy (the
    // position still has the moving piece on `from`, and a slider there would hide
    // one behind it from the position's attack lookups).
    if (!(T.line[from][s] & sliders)) return false;
    if (!((rook_attacks(s, occ) & rooks) | (bishop_attacks(s, occ) & bishops) | (lance_attacks(~us, s, occ) & lances)))
      return false;
  }
  return true;
}

namespace {
bool mates(Position& pos, Move m) {
  ScopedMove child(pos, m);
  return !has_legal_move(pos);
}

// first_mating_check, also counting in `made` the checks made.
Move first_mate(Position& pos, const MoveList& checks, uint64_t& looked_at, uint64_t& made) {
  Bitboard escapes = king_escape_squares(pos);
  for (Move m : checks) {
    ++looked_at;
    if (!check_may_mate(pos, m, escapes)) continue;
    ++made;
    if (mates(pos, m)) return m;
  }
  return MOVE_NONE;
}
}  // namespace

Move first_mating_check(Position& pos, const MoveList& checks, uint64_t& looked_at) {
  uint64_t made = 0;
  return first_mate(pos, checks, looked_at, made);
}

namespace {
// A mate in one among the direct checks (no check discovered by a piece leaving
// a line, no pawn drop: never a legal mate; none when the side to move is in
// check itself), each screened where it is found and made only when it may
// mate, without listing the checks first: MOVE_NONE when there is none among them.
Move direct_mate_in_one(Position& pos, uint64_t& made) {
  Color us = pos.side_to_move();
  Square k = pos.king_square(~us), ksq = pos.king_square(us);
  if (k == SQ_NONE) return MOVE_NONE;
  Bitboard escapes = king_escape_squares(pos);
  Bitboard chk[PIECE_TYPE_NB];
  check_squares(pos, us, k, chk);
  Bitboard empty = ~pos.pieces();
  auto try_move = [&](Move m) {
    if (!check_may_mate(pos, m, escapes)) return false;
    ++made;
    return mates(pos, m);
  };
  Hand h = pos.hand(us);
  Bitboard near = king_attacks(k);
  for (PieceType pt : {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE}) {
    if (!hand_has(h, pt)) continue;
    Bitboard t = chk[pt] & empty;
    if (pt == KNIGHT) t &= ~T.no_move_ranks[us][1];
    if (pt == LANCE) t &= ~T.no_move_ranks[us][0];
    if (pt == ROOK || pt == BISHOP || pt == LANCE) {
      // Two squares or more from the king, a slider covers the same squares next
      // to it from anywhere on one line: one screen a line (its nearest square),
      // then each drop on the line made (interpositions and captures differ).
      for (int dir = pt == BISHOP ? 4 : 0; dir < (pt == ROOK ? 4 : DIR_NB); ++dir) {
        Bitboard line = t & ~near & T.ray[k][dir];
        if (!line || !check_may_mate(pos, make_drop(pt, (dir & 1) ? line.lsb() : line.msb()), escapes)) continue;
        while (line) {
          Move m = make_drop(pt, line.pop_lsb());
          ++made;
          if (mates(pos, m)) return m;
        }
      }
      t &= near;
    }
    while (t) {
      Move m = make_drop(pt, t.pop_lsb());
      if (try_move(m)) return m;
    }
  }
  Bitboard own = pos.pieces(us), occ = pos.pieces();
  Bitboard pinned;
  bool pins_known = false;
  // A stepping piece checks from next to the king (or a knight's jump away), so it
  // moves from at most two squares away; knights and sliders from anywhere.
  Bitboard files, ranks;
  for (int d = -2; d <= 2; ++d) {
    int f = file_of(k) + d, r = rank_of(k) + d;
    if (f >= 0 && f < 9) files |= T.file[f];
    if (r >= 0 && r < 9) ranks |= T.rank[r];
  }
  Bitboard far_ok = pos.pieces(KNIGHT) | pos.pieces(LANCE) | pos.pieces(BISHOP) | pos.pieces(ROOK) | pos.pieces(HORSE) |
                    pos.pieces(DRAGON);
  Bitboard movers = own & ((files & ranks) | far_ok);
  if (ksq != SQ_NONE) movers &= ~square_bb(ksq);
  while (movers) {
    Square from = movers.pop_lsb();
    PieceType pt = type_of(pos.piece_on(from));
    Bitboard reach = attacks(us, pt, from, occ) & ~own;
    Bitboard plain = reach & chk[pt], promo;
    if (can_promote(pt)) promo = reach & chk[promoted(pt)] & (in_promotion_zone(us, from) ? ~Bitboard() : T.zone[us]);
    plain &= ~(pt == KNIGHT ? T.no_move_ranks[us][1] : pt == PAWN || pt == LANCE ? T.no_move_ranks[us][0] : Bitboard());
    if (!(plain | promo)) continue;
    if (!pins_known) {
      pinned = ksq == SQ_NONE ? Bitboard() : pos.pinned(us);
      pins_known = true;
    }
    if (pinned.test(from)) {
      plain &= T.line[from][ksq];
      promo &= T.line[from][ksq];
    }
    while (promo) {
      Move m = make_promotion(from, promo.pop_lsb(), pt);
      if (try_move(m)) return m;
    }
    while (plain) {
      Move m = make_move(from, plain.pop_lsb(), pt);
      if (try_move(m)) return m;
    }
  }
  return MOVE_NONE;
}

// The position's own mate in one, counting the positions made: among the direct
// checks first, then (all checks) where the side to move is in check.
Move mating_check(Position& pos, uint64_t& made) {
  if (!pos.in_check()) return direct_mate_in_one(pos, made);
  MoveList checks;
  generate_checks(pos, checks);
  uint64_t looked_at = 0;
  return first_mate(pos, checks, looked_at, made);
}
}  // namespace

namespace {
// Pieces left in the attacker's hand after its mate m (the side to move's):
// the composers' spare pieces at the end of the line.
int spare_after(const Position& pos, Move m) {
  int n = hand_total(pos.hand(pos.side_to_move()));
  if (is_drop(m)) return n - 1;
  return pos.piece_on(move_to(m)) != NO_PIECE ? n + 1 : n;
}

// Whether a line ending with `spare` pieces in hand is shown before one ending
// with `best` (-1: none yet): none left first, then the fewest, the earlier
// reply on a tie (the line reader's order for equally long defences).
bool fewer_spare(int spare, int best) { return best < 0 || spare < best; }

// The line the line reader reads from a proven tree (csrc/line_reader.cpp), after
// check c proven by every reply (`replies`, in generation order) being mated at
// once: each reply's mate the first mating check in generation order, the reply
// the one whose line leaves the fewest spare pieces.
void read_line(Position& pos, const MoveList& replies, Move& reply, Move& mate) {
  int best = -1;
  MoveList checks;
  for (Move r : replies) {
    ScopedMove after_reply(pos, r);
    generate_checks(pos, checks);
    uint64_t looked_at = 0;
    Move m = first_mating_check(pos, checks, looked_at);
    int spare = spare_after(pos, m);
    if (fewer_spare(spare, best)) {
      best = spare;
      reply = r;
      mate = m;
    }
  }
}
}  // namespace

bool mate_in_three(Position& pos, const MoveList& checks, Move line[3], uint64_t& made, uint64_t limit,
                   bool read_as_reader) {
  MoveList replies;
  for (Move c : checks) {
    if (made >= limit) return false;
    ScopedMove after_check(pos, c);
    ++made;
    Move shown = MOVE_NONE, shown_mate = MOVE_NONE;
    int shown_spare = -1;
    // Whether reply r is mated at once (a mate found shown if its line leaves fewer spare pieces).
    auto mated = [&](Move r) {
      ScopedMove after_reply(pos, r);
      ++made;
      Move m = mating_check(pos, made);
      if (m == MOVE_NONE) return false;
      int spare = spare_after(pos, m);
      if (fewer_spare(spare, shown_spare)) {
        shown_spare = spare;
        shown = r;
        shown_mate = m;
      }
      return true;
    };
    // The king's own steps first: most checks are refuted by one, found before
    // the other replies are generated (the evasion generator's own first replies).
    Color defender = pos.side_to_move();
    Square kd = pos.king_square(defender);
    Bitboard occ = pos.pieces() ^ square_bb(kd);
    bool refuted = false;
    for (Bitboard t = king_attacks(kd) & ~pos.pieces(defender); t && !refuted;) {
      Square to = t.pop_lsb();
      refuted = !pos.attacked(~defender, to, occ) && !mated(make_move(kd, to, KING));
    }
    if (refuted) continue;
    generate_evasions(pos, replies);
    bool all = replies.size > 0;  // (none: a mate in one, not looked for here)
    for (int i = 0; i < replies.size && all; ++i)
      if (is_drop(replies[i]) || move_from(replies[i]) != kd) all = mated(replies[i]);
    if (!all) continue;
    if (made > limit) return false;
    if (read_as_reader) read_line(pos, replies, shown, shown_mate);
    line[0] = c;
    line[1] = shown;
    line[2] = shown_mate;
    return true;
  }
  return false;
}

}  // namespace usi_mate
