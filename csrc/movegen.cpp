#include "movegen.h"

namespace usi_mate {

namespace {

const Bitboard kAll = ~Bitboard();

// Squares where a piece of type pt must promote (it would have no further move).
inline Bitboard must_promote_squares(Color us, PieceType pt) {
  if (pt == PAWN || pt == LANCE) return T.no_move_ranks[us][0];
  if (pt == KNIGHT) return T.no_move_ranks[us][1];
  return Bitboard();
}

// Pushes the moves of the piece on `from` to every square of `targets`, with the
// promotion and non-promotion variants the rules allow, restricted further to
// the squares of promo_ok (promotion) and plain_ok (no promotion).
inline void add_piece_moves(MoveList& list, Color us, PieceType pt, Square from, Bitboard targets, Bitboard promo_ok,
                            Bitboard plain_ok) {
  if (!targets) return;
  Bitboard must = must_promote_squares(us, pt);
  if (can_promote(pt)) {
    bool from_zone = in_promotion_zone(us, from);
    while (targets) {
      Square to = targets.pop_lsb();
      if ((from_zone || T.zone[us].test(to)) && promo_ok.test(to)) list.push(make_promotion(from, to, pt));
      if (!must.test(to) && plain_ok.test(to)) list.push(make_move(from, to, pt));
    }
  } else {
    targets &= plain_ok;
    while (targets) list.push(make_move(from, targets.pop_lsb(), pt));
  }
}

// Pushes drops of every piece in hand onto `targets` (empty squares). For each
// piece type, only the squares of allowed[pt] (check generation) are used.
template <bool kChecksOnly>
void add_drops(MoveList& list, const Position& pos, Bitboard targets, const Bitboard* allowed) {
  Color us = pos.side_to_move();
  Hand h = pos.hand(us);
  if (!h) return;
  for (int p = PAWN; p < KING; ++p) {
    PieceType pt = PieceType(p);
    if (!hand_has(h, pt)) continue;
    Bitboard t = targets;
    if (kChecksOnly) t &= allowed[pt];
    if (pt == PAWN || pt == LANCE)
      t &= ~T.no_move_ranks[us][0];
    else if (pt == KNIGHT)
      t &= ~T.no_move_ranks[us][1];
    if (pt == PAWN && t) {
      Bitboard pawns = pos.pieces(us, PAWN);
      while (pawns) t &= ~T.file[file_of(pawns.pop_lsb())];  // nifu
      Square k = pos.king_square(~us);
      // Only a drop in front of the enemy king gives check, so only there can it be a pawn-drop mate.
      if (k != SQ_NONE) {
        Bitboard front = step_attacks(~us, PAWN, k) & t;
        if (front && is_pawn_drop_mate(pos, front.lsb())) t ^= front;
      }
    }
    while (t) list.push(make_drop(pt, t.pop_lsb()));
  }
}

inline bool king_move_safe(const Position& pos, Color them, Square from, Square to) {
  return !pos.attacked(them, to, pos.pieces() ^ square_bb(from));
}

}  // namespace

void check_squares(const Position& pos, Color us, Square k, Bitboard* out) {
  Color them = ~us;
  Bitboard occ = pos.pieces();
  Bitboard gold = step_attacks(them, GOLD, k);
  Bitboard rook = rook_attacks(k, occ), bishop = bishop_attacks(k, occ);
  out[NO_PIECE_TYPE] = Bitboard();
  out[PAWN] = step_attacks(them, PAWN, k);
  out[LANCE] = lance_attacks(them, k, occ);
  out[KNIGHT] = step_attacks(them, KNIGHT, k);
  out[SILVER] = step_attacks(them, SILVER, k);
  out[BISHOP] = bishop;
  out[ROOK] = rook;
  out[GOLD] = out[PRO_PAWN] = out[PRO_LANCE] = out[PRO_KNIGHT] = out[PRO_SILVER] = gold;
  out[KING] = Bitboard();
  out[HORSE] = bishop | king_attacks(k);
  out[DRAGON] = rook | king_attacks(k);
}

bool is_pawn_drop_mate(const Position& pos, Square to) {
  Color us = pos.side_to_move(), them = ~us;
  Square k = pos.king_square(them);
  Bitboard pawn = square_bb(to);
  Bitboard occ = pos.pieces() | pawn;
  // The king may take an unprotected pawn.
  if (!pos.attacked(us, to, occ)) return false;
  // Another defender may take it unless pinned off the line. Dropping the pawn can
  // only remove pins, never add one, and a capture along a pin line stays legal.
  Bitboard capturers = pos.attackers_to(them, to, occ) & ~square_bb(k);
  if (capturers) {
    Bitboard pinned = pos.pinned(them);
    while (capturers) {
      Square s = capturers.pop_lsb();
      if (!pinned.test(s) || aligned(s, to, k)) return false;
    }
  }
  // Or the king steps away to an unattacked square.
  Bitboard escapes = king_attacks(k) & ~pos.pieces(them) & ~pawn;
  Bitboard occ_without_king = occ ^ square_bb(k);
  while (escapes) {
    if (!pos.attacked(us, escapes.pop_lsb(), occ_without_king)) return false;
  }
  return true;
}

namespace {
// The replies to a check: pushed onto `list`, or with kAnyOnly only whether there
// is one, answered at the first found (a king that escapes, a piece that reaches a
// target square, where some form of its move is always legal, else a drop between).
// Checking for a mate in one asks it of every check, and most let the king step away.
template <bool kAnyOnly>
bool evasions(const Position& pos, MoveList& list) {
  Color us = pos.side_to_move(), them = ~us;
  Square ksq = pos.king_square(us);
  Bitboard own = pos.pieces(us);
  Bitboard checkers = pos.checkers();
  for (Bitboard t = king_attacks(ksq) & ~own; t;) {
    Square to = t.pop_lsb();
    if (!king_move_safe(pos, them, ksq, to)) continue;
    if (kAnyOnly) return true;
    list.push(make_move(ksq, to, KING));
  }
  if (checkers.more_than_one()) return list.size > 0;
  Square checker = checkers.lsb();
  Bitboard between = T.between[checker][ksq];
  Bitboard target = between | checkers;
  Bitboard pinned = pos.pinned(us);
  Bitboard occ = pos.pieces();
  // Only pieces that reach a target square can answer the check: find them
  // from the (one to eight) target squares instead of computing the moves of
  // every piece, which in full-board problems meant some twenty attack sets
  // per evasion list. Same pieces, same order of moves.
  Bitboard movers;
  for (Bitboard t = target; t;) movers |= pos.attackers_to(us, t.pop_lsb(), occ);
  for (Bitboard b = movers & ~square_bb(ksq); b;) {
    Square from = b.pop_lsb();
    PieceType pt = type_of(pos.piece_on(from));
    Bitboard t = attacks(us, pt, from, occ) & target;
    if (pinned.test(from)) t &= T.line[from][ksq];
    if (kAnyOnly && t) return true;
    add_piece_moves(list, us, pt, from, t, kAll, kAll);
  }
  if (between) add_drops<false>(list, pos, between, nullptr);
  return list.size > 0;
}
}  // namespace

void generate_evasions(const Position& pos, MoveList& list) {
  list.size = 0;
  if (pos.in_check()) evasions<false>(pos, list);
}

void generate_legal(const Position& pos, MoveList& list) {
  if (pos.in_check()) {
    generate_evasions(pos, list);
    return;
  }
  list.size = 0;
  Color us = pos.side_to_move(), them = ~us;
  Square ksq = pos.king_square(us);
  Bitboard own = pos.pieces(us);
  Bitboard target = ~own;
  Bitboard occ = pos.pieces();
  Bitboard pinned = ksq == SQ_NONE ? Bitboard() : pos.pinned(us);
  Bitboard movers = ksq == SQ_NONE ? own : own ^ square_bb(ksq);
  while (movers) {
    Square from = movers.pop_lsb();
    PieceType pt = type_of(pos.piece_on(from));
    Bitboard t = attacks(us, pt, from, occ) & target;
    if (pinned.test(from)) t &= T.line[from][ksq];
    add_piece_moves(list, us, pt, from, t, kAll, kAll);
  }
  if (ksq != SQ_NONE)
    for (Bitboard t = king_attacks(ksq) & target; t;) {
      Square to = t.pop_lsb();
      if (king_move_safe(pos, them, ksq, to)) list.push(make_move(ksq, to, KING));
    }
  add_drops<false>(list, pos, ~occ, nullptr);
}

void generate_checks(const Position& pos, MoveList& list) {
  Color us = pos.side_to_move(), them = ~us;
  Square k = pos.king_square(them);
  if (k == SQ_NONE) {
    list.size = 0;
    return;
  }
  if (pos.in_check()) {
    // The attacker's own king is in check (double-king problems): few evasions, so filter them.
    MoveList ev;
    generate_evasions(pos, ev);
    list.size = 0;
    for (Move m : ev)
      if (pos.gives_check(m)) list.push(m);
    return;
  }
  list.size = 0;
  Bitboard chk[PIECE_TYPE_NB];
  check_squares(pos, us, k, chk);
  Square ksq = pos.king_square(us);
  Bitboard own = pos.pieces(us);
  Bitboard target = ~own;
  Bitboard occ = pos.pieces();
  Bitboard pinned = ksq == SQ_NONE ? Bitboard() : pos.pinned(us);
  Bitboard discoverers = pos.blockers_for_king(them) & own;
  Bitboard movers = ksq == SQ_NONE ? own : own ^ square_bb(ksq);
  while (movers) {
    Square from = movers.pop_lsb();
    PieceType pt = type_of(pos.piece_on(from));
    Bitboard t = attacks(us, pt, from, occ) & target;
    if (pinned.test(from)) t &= T.line[from][ksq];
    if (discoverers.test(from)) {
      // Leaving the line to the enemy king discovers check, whatever the move.
      add_piece_moves(list, us, pt, from, t & ~T.line[from][k], kAll, kAll);
      t &= T.line[from][k];
    }
    Bitboard promo_ok = can_promote(pt) ? chk[promoted(pt)] : Bitboard();
    add_piece_moves(list, us, pt, from, t & (promo_ok | chk[pt]), promo_ok, chk[pt]);
  }
  if (ksq != SQ_NONE && discoverers.test(ksq))
    for (Bitboard t = king_attacks(ksq) & target & ~T.line[ksq][k]; t;) {
      Square to = t.pop_lsb();
      if (king_move_safe(pos, them, ksq, to)) list.push(make_move(ksq, to, KING));
    }
  add_drops<true>(list, pos, ~occ, chk);
}

bool has_legal_move(const Position& pos) {
  MoveList list;
  if (pos.in_check()) return evasions<true>(pos, list);
  generate_legal(pos, list);
  return list.size > 0;
}

uint64_t perft(Position& pos, int depth) {
  MoveList list;
  generate_legal(pos, list);
  if (depth <= 1) return depth == 1 ? uint64_t(list.size) : 1;
  uint64_t n = 0;
  for (Move m : list) {
    pos.do_move(m);
    n += perft(pos, depth - 1);
    pos.undo_move();
  }
  return n;
}

}  // namespace usi_mate
