// Futile interpositions (無駄合; docs/FUTILE.md), by the composers' rule.
//
// At an AND node P in check from a single distant piece, a drop of piece X
// between king and checker is futile when the attacker can take the dropped
// piece with a check and then, with X given back to the defender, mate in no
// more plies than P's mate without any drop: the drop only adds two plies (the
// drop and the capture) to a mate that was there before. `bound` is that
// length, counted from P over its other (non-drop) replies; 0 when it has
// none, when the capture must leave a mate at once (further futile drops
// aside). A drop after which the attacker needs X, or mates more slowly, is
// real resistance. Moved interpositions are never futile.
#include "scoped_move.h"
#include "solver.h"

namespace usi_mate {

// A judgement whose capped sub-search ended undecided (kCutShort) counts the
// drop as resistance, and is counted in cut_judgements_: a length proven
// after one may rest on it (docs/FUTILE.md, "Cut-short judgements").
bool Solver::is_futile_drop(int ply, uint64_t path_key, Move drop, uint16_t bound, Hand* proof_hand) {
  Bitboard checkers = pos_->checkers();
  Square k = pos_->king_square(~attacker_);
  if (!checkers || checkers.more_than_one() || k == SQ_NONE) return false;
  Square s = checkers.lsb(), b = move_to(drop);
  if (!T.between[s][k].test(b)) return false;
  uint64_t memo_key = pos_->full_key() ^ mix64(drop) ^ mix64(0xb0b0000ULL + bound);
  int known = futility_memo_.get(memo_key, proof_hand);
  if (known >= 0) return known == kFutile;
  PieceType x = drop_type(drop);
  bool futile = false;
  bool cut = false;        // a limit of the enclosing search ended a sub-search: no judgement
  bool unsettled = false;  // a capped sub-search ended undecided: not known
  {
    ScopedMove dropped(*pos_, path_, drop);
    MoveList captures;
    generate_checks(*pos_, captures);
    for (Move m : captures) {
      if (is_drop(m) || move_to(m) != b) continue;  // any checking capture of the dropped piece
      ScopedMove capture(*pos_, m);
      // The mate without the drop: the captured piece goes back to the defender.
      pos_->pass_hand_piece(attacker_, x);
      uint64_t q_key = pos_->full_key();
      if (!path_.contains(q_key)) {
        TTResult r = tt_->probe(tt_key(), attacker_hand(), bound);
        if (!(r.found && r.pn == 0) && !(r.found && r.dn == 0)) {
          // Mates this short are proven in a few hundred nodes; the cap keeps
          // a hard capture line from costing a full search (it is then real
          // resistance), and the memo asks each question once per solve.
          //
          // The sub-search reads only the estimates made under its own
          // budget. Those the other searches left there (the first proof's,
          // unbounded, or a longer attempt's) measure other questions, and
          // their large proof numbers held the capped sub-search off the
          // short mate: on yaneuraou mate11-0670 (first proof 23 plies) 1,415
          // judgements were cut short, each counting a futile drop as
          // resistance, and "mate within 21" stayed unproven for 20 M nodes;
          // reading own estimates only, 38 were, and the 11-ply mate was
          // proven minimal in 1.3 M (BENCHMARKS.md, sixth session).
          NodeValue v;
          bool own = own_budget_estimates_;
          own_budget_estimates_ = true;
          path_.insert(q_key);
          if (bound == 0) {
            // "Mate at once": a look at the replies, no search to cap.
            v = prove(ply + 2, path_key ^ dropped.key() ^ q_key, 0);
          } else {
            auto budget =
                monitor_.nested(nodes_, limits_.futility_node_cap ? limits_.futility_node_cap : kFutilityNodeCap);
            v = prove(ply + 2, path_key ^ dropped.key() ^ q_key, bound);
          }
          path_.erase(q_key);
          own_budget_estimates_ = own;
          cut = bound != 0 && monitor_.should_stop(nodes_);  // (a budget-0 look is never cut)
          if (v.pn == 0) {
            r.found = true;
            r.pn = 0;
            r.hand = v.hand;
          } else if (v.dn != 0) {
            unsettled = true;
          }
        }
        if (r.found && r.pn == 0) {
          // The attacker's hand at Q (the piece given back) is its hand at P:
          // the same proof hand covers the drop at P.
          futile = true;
          *proof_hand = r.hand;
        }
      }
      pos_->pass_hand_piece(~attacker_, x);
      if (futile || cut) break;
    }
  }
  // One cut short by a limit of the enclosing search is no judgement: the
  // search is stopping, and resolve_waiting_drops leaves the drop waiting.
  if (cut && !futile) return false;
  Judgement j = futile ? kFutile : unsettled ? kCutShort : kNotFutile;
  if (j == kCutShort) ++cut_judgements_;
  futility_memo_.put(memo_key, j, futile ? *proof_hand : HAND_ZERO);
  return futile;
}

// True when the defender (to move, in check) has replies, none of them a king
// move, capture or moved interposition, and every one is a futile drop with
// nothing to compare against (bound 0): the check is mate but for futile
// drops. proof_union collects their proof hands.
bool Solver::only_futile_evasions(int ply, uint64_t path_key, const MoveList& evasions, Hand* proof_union) {
  if (evasions.size == 0) return false;
  for (Move m : evasions)
    if (!is_drop(m)) return false;  // a king move, capture or moved interposition resists
  Hand u = HAND_ZERO;
  for (Move m : evasions) {
    Hand h = HAND_ZERO;
    if (!is_futile_drop(ply, path_key, m, 0, &h)) return false;
    u = hand_max(u, h);
  }
  *proof_union = u;
  return true;
}

}  // namespace usi_mate
