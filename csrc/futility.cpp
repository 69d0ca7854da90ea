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
#include "worker.h"

namespace usi_mate {

void FutilityJudge::new_solve(bool enabled, uint64_t cap) {
  enabled_ = enabled;
  set_cap_ = cap;
  cap_ = cap ? cap : kFutilityNodeCap;
  if (cuts_) salt_ = salt_of(++generation_);
  cuts_ = 0;
  memo_.clear();
}

void FutilityJudge::uncap_short(uint16_t bound) {
  if (!set_cap_ && bound <= kUncappedMaxLength) cap_ = kUncapped;
}

void FutilityJudge::forget() {
  // The salt places entries in the table and so decides which collide: a
  // cleared solver starts the salts over to search exactly as a new one
  // (docs/FUTILE.md, "Cut-short judgements").
  generation_ = 0;
  salt_ = salt_of(0);
  cuts_ = 0;
}

void FutilityJudge::follow(const FutilityJudge& main) {
  enabled_ = main.enabled_;
  cap_ = main.cap_;
  set_cap_ = main.set_cap_;
}

FutilityJudge::StrictCount::StrictCount(FutilityJudge& judge, bool own_salt)
    : j_(judge), enabled_(judge.enabled_), worker_salt_(judge.w_.salt()) {
  if (own_salt) j_.w_.set_salt(j_.w_.salt() ^ j_.salt_);
  j_.enabled_ = false;
}

FutilityJudge::StrictCount::~StrictCount() {
  j_.enabled_ = enabled_;
  j_.w_.set_salt(worker_salt_);
}

FutilityJudge::Settled::Settled(FutilityJudge& judge)
    : j_(judge), salt_(judge.salt_), worker_salt_(judge.w_.salt()), cap_(judge.cap_) {
  j_.salt_ = salt_of(++j_.generation_);
  j_.w_.set_salt(worker_salt_ ^ salt_ ^ j_.salt_);
  j_.cap_ = kUncapped;
  j_.memo_.clear();
}

FutilityJudge::Settled::~Settled() {
  j_.cap_ = cap_;
  j_.w_.set_salt(worker_salt_);
  j_.salt_ = salt_;
}

NodeValue FutilityJudge::sub_search(int ply, uint64_t path_key, uint64_t key, uint16_t bound, bool capped) {
  NodeValue v;
  bool own = own_estimates_;
  own_estimates_ = true;
  w_.path().insert(key);
  if (capped) {
    auto budget = w_.budget_scope(cap_);
    v = w_.prove(ply, path_key, bound);
  } else {
    v = w_.prove(ply, path_key, bound);
  }
  w_.path().erase(key);
  own_estimates_ = own;
  return v;
}

// A judgement whose capped sub-search ended undecided (kCutShort) counts the
// drop as resistance, and is counted in cuts_: a length proven
// after one may rest on it (docs/FUTILE.md, "Cut-short judgements").
bool FutilityJudge::is_futile_drop(int ply, uint64_t path_key, Move drop, uint16_t bound, Hand* proof_hand,
                                   uint16_t* mate_len) {
  Bitboard checkers = w_.position().checkers();
  Square k = w_.position().king_square(~w_.attacker());
  if (!checkers || checkers.more_than_one() || k == SQ_NONE) return false;
  Square s = checkers.lsb(), b = move_to(drop);
  if (!T.between[s][k].test(b)) return false;
  uint64_t memo_key = w_.position().full_key() ^ mix64(drop) ^ mix64(0xb0b0000ULL + bound);
  uint16_t known_len = 0;
  int known = memo_.get(memo_key, proof_hand, &known_len);
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
    ScopedMove dropped(w_.position(), w_.path(), drop);
    MoveList captures;
    generate_checks(w_.position(), captures);
    for (Move m : captures) {
      if (is_drop(m) || move_to(m) != b) continue;  // any checking capture of the dropped piece
      ScopedMove capture(w_.position(), m);
      // The mate without the drop: the captured piece goes back to the defender.
      w_.position().pass_hand_piece(w_.attacker(), x);
      uint64_t q_key = w_.position().full_key();
      if (!w_.on_path(q_key)) {
        TTResult r = w_.probe_here(bound);
        if (!(r.found && r.pn == 0) && !(r.found && r.dn == 0)) {
          // Mates this short are proven in a few hundred nodes; the cap keeps
          // a hard capture line from costing a full search (it is then real
          // resistance), and the memo asks each question once per solve.
          //
          // The sub-search reads only the estimates made under its own
          // budget: those the other searches left (the first proof's,
          // unbounded, or a longer attempt's) measure other questions, and
          // their large proof numbers held it off the short mate
          // (docs/FUTILE.md, "Cut-short judgements").
          // "Mate at once" (bound 0): a look at the replies, no search to cap.
          NodeValue v = sub_search(ply + 2, path_key ^ dropped.key() ^ q_key, q_key, bound, bound != 0);
          cut = bound != 0 && w_.should_stop();  // (a budget-0 look is never cut)
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
      w_.position().pass_hand_piece(~w_.attacker(), x);
      if (futile || cut) break;
    }
  }
  // One cut short by a limit of the enclosing search is no judgement: the
  // search is stopping, and resolve_waiting_drops leaves the drop waiting.
  if (cut && !futile) return false;
  Judgement j = futile ? kFutile : unsettled ? kCutShort : kNotFutile;
  if (j == kCutShort) ++cuts_;
  memo_.put(memo_key, j, futile ? *proof_hand : HAND_ZERO, len);
  if (mate_len) *mate_len = len;
  return futile;
}

// Whether `drop` is futile at P, judged against P's non-drop replies
// (`others`, with `proven` lengths, each counted from its child: upper bounds
// of their shortest mates). The capped searches of long problems judge
// against the longest proven length (exact judgements there too cut more
// judgements short, and the verifications then ran out of nodes: fewer minima
// proven, docs/FUTILE.md, "Cut-short judgements"). Where judgements are uncapped
// (FutilityJudge::exact), against the other replies' shortest mates, not
// the ones the search happened to prove: a drop futile against the longest
// proven, its capture line mating in k plies, is futile by the rule when some
// reply has no mate within k - 2 (its shortest is then at least k - 1 plies,
// k from P); when every reply mates sooner, the bound falls to the longest of
// those shorter mates and the drop is judged again. Judged against the proven
// lengths alone, the count depended on which proofs came first: a drop that
// lets the king take the checker two plies later could count futile, and a
// minimum too short be claimed (docs/FUTILE.md).
// A reply's question is a sub-search capped as a judgement's; one left open
// there keeps the judgement against the proven lengths (futile) and counts it
// cut short (cuts_), so no minimum rests on it unverified. Memoised
// per (position, drop): the judgement does not depend on the bound the node
// was asked with.
bool FutilityJudge::is_futile_among(int ply, uint64_t path_key, Move drop, const Move* others, const uint16_t* proven,
                                    int n_others, Hand* proof_hand) {
  uint16_t bound = 0;
  for (int i = 0; i < n_others; ++i) bound = std::max<uint16_t>(bound, add_len(proven[i]));
  if (!exact()) return is_futile_drop(ply, path_key, drop, bound, proof_hand);
  uint64_t memo_key = w_.position().full_key() ^ mix64(drop) ^ 0x6578616374000000ULL;
  int known = memo_.get(memo_key, proof_hand);
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
      if (w_.monitor().exhausted()) return false;  // no judgement: the search is stopping
      break;                                       // not futile against more: not against less
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
      Answer a = ask_reply(ply, path_key, others[i], uint16_t(k - 2), lens[i]);
      if (a == Answer::Cut) return false;  // cut by the enclosing search
      if (a == Answer::NoShorter) {
        shown = true;
      } else {
        unsettled |= a == Answer::Open;
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
      ++cuts_;
      break;
    }
    if (next >= bound) break;  // (cannot happen: every reply mates within k - 2 < bound)
    bound = next;
  }
  memo_.put(memo_key, j, j == kFutile ? *proof_hand : HAND_ZERO);
  return j == kFutile;
}

// "Mate within b?" after the defender's `reply` (the position P of a
// judgement, ply plies below the root): NoShorter when there is none, Mate
// (`len` lowered to the mate's length) when there is, Open when a sub-search
// capped as a judgement's leaves it undecided or the reply repeats a position
// on the path (its length there is the path's, not the position's), Cut when
// the enclosing search's budget ended the sub-search.
FutilityJudge::Answer FutilityJudge::ask_reply(int ply, uint64_t path_key, Move reply, uint16_t b, uint16_t& len) {
  ScopedMove child(w_.position(), reply);
  if (w_.on_path(child.key())) return Answer::Open;
  TTResult t = w_.probe_here(b);
  if (!(t.found && (t.pn == 0 || t.dn == 0))) {
    NodeValue v = sub_search(ply + 1, path_key ^ child.key(), child.key(), b, true);
    if (w_.should_stop() && v.pn != 0 && v.dn != 0) return Answer::Cut;
    t.found = v.pn == 0 || v.dn == 0;
    t.pn = v.pn;
    t.dn = v.dn;
    t.mate_len = v.mate_len;
  }
  if (t.found && t.dn == 0) return Answer::NoShorter;
  if (!(t.found && t.pn == 0)) return Answer::Open;
  len = std::min(len, t.mate_len);
  return Answer::Mate;
}

// True when the defender (to move, in check) has replies, none of them a king
// move, capture or moved interposition, and every one is a futile drop with
// nothing to compare against (bound 0): the check is mate but for futile
// drops. proof_union collects their proof hands.
bool FutilityJudge::only_futile_evasions(int ply, uint64_t path_key, const MoveList& evasions, Hand* proof_union) {
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
