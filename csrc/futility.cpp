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
#include <algorithm>

#include "scoped_move.h"
#include "solver.h"

namespace usi_mate {

// A judgement whose capped sub-search ended undecided (kCutShort) counts the
// drop as resistance, and is counted in cut_judgements_: a length proven
// after one may rest on it (docs/FUTILE.md, "Cut-short judgements").
bool Solver::is_futile_drop(int ply, uint64_t path_key, Move drop, uint16_t bound, Hand* proof_hand,
                            uint16_t* mate_len) {
  Bitboard checkers = pos_->checkers();
  Square k = pos_->king_square(~attacker_);
  if (!checkers || checkers.more_than_one() || k == SQ_NONE) return false;
  Square s = checkers.lsb(), b = move_to(drop);
  if (!T.between[s][k].test(b)) return false;
  uint64_t memo_key = pos_->full_key() ^ mix64(drop) ^ mix64(0xb0b0000ULL + bound);
  uint16_t known_len = 0;
  int known = futility_memo_.get(memo_key, proof_hand, &known_len);
  if (known >= 0) {
    if (mate_len) *mate_len = known_len;
    return known == kFutile;
  }
  PieceType x = drop_type(drop);
  bool futile = false;
  uint16_t len = 0;        // the mate after the capture, when futile
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
            r.mate_len = v.mate_len;
          } else if (v.dn != 0) {
            unsettled = true;
          }
        }
        if (r.found && r.pn == 0) {
          // The attacker's hand at Q (the piece given back) is its hand at P:
          // the same proof hand covers the drop at P.
          futile = true;
          *proof_hand = r.hand;
          len = r.mate_len;
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
  futility_memo_.put(memo_key, j, futile ? *proof_hand : HAND_ZERO, len);
  if (mate_len) *mate_len = len;
  return futile;
}

// Whether `drop` is futile at P, judged against P's non-drop replies
// (`others`, with `proven` lengths, each counted from its child: upper bounds
// of their shortest mates). The capped searches of long problems judge
// against the longest proven length (exact judgements there too cost 図巧 +
// 無双 minima, docs/FUTILE.md). Where judgements are uncapped
// (Solver::futility_exact), against the other replies' shortest mates, not
// the ones the search happened to prove: a drop futile against the longest
// proven, its capture line mating in k plies, is futile by the rule when some
// reply has no mate within k - 2 (its shortest is then at least k - 1 plies,
// k from P); when every reply mates sooner, the bound falls to the longest of
// those shorter mates and the drop is judged again. Judged against the proven
// lengths alone, the count depended on which proofs came first: yaneuraou
// mate11-0064 (label 11) came out 7, claimed minimal, a drop that lets the
// king take the checker two plies later counted futile (docs/FUTILE.md).
// A reply's question is a sub-search capped as a judgement's; one left open
// there keeps the judgement against the proven lengths (futile) and counts it
// cut short (cut_judgements_), so no minimum rests on it unverified. Memoised
// per (position, drop): the judgement does not depend on the bound the node
// was asked with.
bool Solver::is_futile_among(int ply, uint64_t path_key, Move drop, const Move* others, const uint16_t* proven,
                             int n_others, Hand* proof_hand) {
  uint16_t bound = 0;
  for (int i = 0; i < n_others; ++i) bound = std::max<uint16_t>(bound, add_len(proven[i]));
  if (!futility_exact()) return is_futile_drop(ply, path_key, drop, bound, proof_hand);
  uint64_t memo_key = pos_->full_key() ^ mix64(drop) ^ 0x6578616374000000ULL;
  int known = futility_memo_.get(memo_key, proof_hand);
  if (known >= 0) return known == kFutile;
  uint16_t lens[MAX_MOVES];  // lowered below as shorter mates are proven
  std::copy(proven, proven + n_others, lens);
  Judgement j = kNotFutile;
  for (;;) {
    uint16_t k = 0;
    if (n_others == 0) {  // nothing else: the mate must follow at once, exactly as asked
      if (is_futile_drop(ply, path_key, drop, 0, proof_hand)) j = kFutile;
      break;
    }
    if (!is_futile_drop(ply, path_key, drop, bound, proof_hand, &k)) {
      if (monitor_.exhausted()) return false;  // no judgement: the search is stopping
      break;                                   // not futile against more: not against less
    }
    // A reply with no mate within k - 2 shows the bound is at least k; the
    // longest proven first (the likeliest to have no shorter mate).
    bool shown = false, unsettled = false;
    uint16_t next = 0;
    bool asked[MAX_MOVES] = {};
    for (int step = 0; step < n_others && !shown; ++step) {
      int i = -1;
      for (int c = 0; c < n_others; ++c)
        if (!asked[c] && (i < 0 || lens[c] > lens[i])) i = c;
      asked[i] = true;
      if (add_len(lens[i]) < k) {
        next = std::max<uint16_t>(next, add_len(lens[i]));
        continue;
      }
      if (k <= 2) {  // an OR node needs a ply: trivially at least k - 1
        shown = true;
        break;
      }
      uint16_t b = uint16_t(k - 2);
      ScopedMove reply(*pos_, others[i]);
      if (path_.contains(reply.key())) {  // a repetition: its length here is the path's, not the position's
        unsettled = true;
        next = std::max<uint16_t>(next, add_len(lens[i]));
        continue;
      }
      TTResult t = tt_->probe(tt_key(), attacker_hand(), b);
      if (!(t.found && (t.pn == 0 || t.dn == 0))) {
        NodeValue v;
        bool own = own_budget_estimates_;
        own_budget_estimates_ = true;
        path_.insert(reply.key());
        {
          auto cap = monitor_.nested(nodes_, limits_.futility_node_cap ? limits_.futility_node_cap : kFutilityNodeCap);
          v = prove(ply + 1, path_key ^ reply.key(), b);
        }
        path_.erase(reply.key());
        own_budget_estimates_ = own;
        if (monitor_.should_stop(nodes_) && v.pn != 0 && v.dn != 0) return false;  // cut by the enclosing search
        t.found = v.pn == 0 || v.dn == 0;
        t.pn = v.pn;
        t.dn = v.dn;
        t.mate_len = v.mate_len;
      }
      if (t.found && t.dn == 0) {
        shown = true;
      } else if (t.found && t.pn == 0) {
        lens[i] = std::min(lens[i], t.mate_len);
        next = std::max<uint16_t>(next, add_len(lens[i]));
      } else {
        unsettled = true;
        next = std::max<uint16_t>(next, add_len(lens[i]));
      }
    }
    if (shown) {
      j = kFutile;
      break;
    }
    if (unsettled) {
      // Not known within the cap: futile against the proven lengths (as
      // judged above), but cut short: no minimum is claimed on it unverified.
      j = kFutile;
      ++cut_judgements_;
      break;
    }
    if (next >= bound) break;  // (cannot happen: every reply mates within k - 2 < bound)
    bound = next;
  }
  futility_memo_.put(memo_key, j, j == kFutile ? *proof_hand : HAND_ZERO);
  return j == kFutile;
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
