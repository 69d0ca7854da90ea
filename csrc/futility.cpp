// Futile interpositions (無駄合; docs/FUTILE.md): a drop between the king and a
// single distant checker, after which the attacker takes the dropped piece
// (with a check) and mates without needing it.
#include "scoped_move.h"
#include "solver.h"

namespace usi_mate {

// The position after the capture must be proven with a proof hand holding
// fewer of the dropped type than the attacker then has. The drop's own proof
// hand is returned through proof_hand. Called at the AND node before the drop;
// the capture line is proven here (a capped sub-search) if the table lacks it.
bool Solver::is_futile_drop(int ply, uint64_t path_key, Move drop, Hand* proof_hand) {
  Bitboard checkers = pos_->checkers();
  Square k = pos_->king_square(~attacker_);
  if (!checkers || checkers.more_than_one() || k == SQ_NONE) return false;
  Square s = checkers.lsb(), b = move_to(drop);
  if (!T.between[s][k].test(b)) return false;
  uint64_t memo_key = pos_->full_key() ^ mix64(drop);
  int known = futility_memo_.get(memo_key, proof_hand);
  if (known >= 0) return known == 1;
  PieceType x = drop_type(drop);
  bool futile = false;
  bool cut = false;  // a limit of the enclosing search ended a sub-search: no judgement
  {
    ScopedMove dropped(*pos_, path_, drop);
    MoveList captures;
    generate_checks(*pos_, captures);
    for (Move m : captures) {
      if (is_drop(m) || move_to(m) != b) continue;  // any checking capture of the dropped piece
      ScopedMove capture(*pos_, m);
      if (path_.contains(capture.key())) continue;
      TTResult r = tt_.probe(tt_key(), attacker_hand(), BUDGET_NONE);
      // An unresolved entry that already cost a capped sub-search is not tried
      // again: every re-expansion of the AND node would repeat it.
      bool tried = r.found && r.pn != 0 && r.amount >= kFutilityNodeCap / 2;
      if (!(r.found && r.pn == 0) && !tried) {
        NodeValue v;
        {
          auto budget = monitor_.nested(nodes_, kFutilityNodeCap);
          path_.insert(capture.key());
          v = prove(ply + 2, path_key ^ dropped.key() ^ capture.key(), BUDGET_NONE);
          path_.erase(capture.key());
        }
        cut = monitor_.should_stop(nodes_);
        if (v.pn == 0) {
          r.found = true;
          r.pn = 0;
          r.hand = v.hand;
        }
      }
      if (r.found && r.pn == 0 && hand_count(r.hand, x) < hand_count(attacker_hand(), x)) {
        futile = true;
        *proof_hand = hand_before_move(r.hand, m, make_piece(~attacker_, x));
        break;
      }
      if (cut) break;
    }
  }
  // Only a completed judgement is remembered: one cut short by a limit is not a judgement.
  if (!cut) futility_memo_.put(memo_key, futile, futile ? *proof_hand : HAND_ZERO);
  return futile;
}

// True when the defender (to move, in check) has replies and every one is a
// futile interposition; proof_union collects their proof hands.
bool Solver::only_futile_evasions(int ply, uint64_t path_key, const MoveList& evasions, Hand* proof_union) {
  if (evasions.size == 0) return false;
  for (Move m : evasions)
    if (!is_drop(m)) return false;  // a king move, capture or moved interposition resists
  Hand u = HAND_ZERO;
  for (Move m : evasions) {
    Hand h = HAND_ZERO;
    if (!is_futile_drop(ply, path_key, m, &h)) return false;
    u = hand_max(u, h);
  }
  *proof_union = u;
  return true;
}

}  // namespace usi_mate
