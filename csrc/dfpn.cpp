#include "dfpn.h"

#include <algorithm>

namespace usi_mate {

namespace {

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Initial proof number of a new AND node: its number of evasions, with drops
// to one square counted once. Seven drop interpositions on one square are
// usually refuted together, so counting them all would make far checks look
// seven times harder than they are.
uint32_t evasion_weight(const MoveList& moves) {
  uint32_t n = 0;
  Bitboard drop_squares;
  for (Move m : moves) {
    if (is_drop(m)) drop_squares |= square_bb(move_to(m));
    else ++n;
  }
  return n + uint32_t(drop_squares.popcount());
}

// Material of the whole position (board and both hands, by unpromoted type and
// colour-blind) is the same at every node of one search. Salting table keys
// with it keeps entries of positions from different piece sets apart when one
// table is reused across problems: the attacker's hand and the board then
// determine the defender's hand.
uint64_t material_salt(const Position& pos, Color attacker) {
  int counts[PIECE_TYPE_NB] = {0};
  for (Square s = 0; s < SQ_NB; ++s)
    if (pos.piece_on(s) != NO_PIECE) ++counts[hand_type(type_of(pos.piece_on(s))) + (color_of(pos.piece_on(s)) == WHITE && type_of(pos.piece_on(s)) == KING ? 1 : 0)];
  for (int c = 0; c < 2; ++c)
    for (int pt = PAWN; pt < KING; ++pt) counts[pt] += hand_count(pos.hand(Color(c)), PieceType(pt));
  uint64_t h = 0x6d617465ULL + uint64_t(attacker);
  for (int pt = 0; pt < PIECE_TYPE_NB; ++pt) h = mix64(h ^ (uint64_t(counts[pt]) << (pt * 3)));
  return h & ~1ULL;  // keep bit 0: it is the side-to-move bit of the board key
}

// One ply more; LEN_INF and the unbounded budget stay where they are.
constexpr uint64_t kFutilityNodeCap = 3000;
constexpr uint64_t kFutileSalt = 0x5a5a5a5a5a5a5a5aULL;  // bit 0 clear: it is the side-to-move bit

inline uint16_t add_len(uint16_t len) { return len >= BUDGET_NONE ? len : uint16_t(len + 1); }
inline uint16_t child_budget(uint16_t b) { return b >= BUDGET_NONE ? b : uint16_t(b - 1); }
// Repetition-table keys are per budget: a path-dependent "no mate within b" says nothing about b + 2.
inline uint64_t budget_salt(uint16_t b) { return b >= BUDGET_NONE ? 0 : mix64(b + 0x9e37ULL); }

}  // namespace

Solver::Solver(uint64_t hash_mb) {
  init_core();
  tt_.resize(hash_mb);
}

void Solver::resize(uint64_t hash_mb) { tt_.resize(hash_mb); }

void Solver::clear() {
  tt_.clear();
  rep_table_.clear();
}

SearchFrame& Solver::frame(int ply) {
  // Frames are created once per new maximum depth and reused: the search loop itself never allocates.
  while (int(frames_.size()) <= ply) frames_.push_back(std::make_unique<SearchFrame>());
  return *frames_[ply];
}

void Solver::report_progress(uint32_t pn, uint32_t dn) {
  if (!progress_fn_) return;
  SearchProgress p;
  p.nodes = nodes_;
  p.time_ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - start_).count());
  p.hashfull = tt_.hashfull();
  p.root_pn = pn;
  p.root_dn = dn;
  p.max_ply_reached = max_ply_reached_;
  progress_fn_(progress_ctx_, p);
}

bool Solver::should_stop() {
  if (stopped_) return true;
  if (nodes_ >= nested_node_limit_) return true;  // ends the sub-search only, not the search
  // While the line is rebuilt, the limits of the search give way to the
  // rebuild's own node budget (and, for the exact line only, to stop/time).
  bool limited = !extracting_ || extract_honor_stop_;
  if (stop_requested_.load(std::memory_order_relaxed) && limited) return stopped_ = true;
  if (limits_.nodes && nodes_ >= limits_.nodes && !extracting_) return stopped_ = true;
  if (extracting_ && nodes_ >= extract_node_budget_) return stopped_ = true;
  if ((nodes_ & 1023) == 0) {
    auto now = std::chrono::steady_clock::now();
    uint64_t ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(now - start_).count());
    if (limits_.time_ms && ms >= limits_.time_ms && limited) return stopped_ = true;
    if (progress_fn_ && progress_interval_ms_ &&
        uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(now - last_report_).count()) >=
            progress_interval_ms_) {
      last_report_ = now;
      report_progress(root_pn_, root_dn_);
    }
  }
  return false;
}

void Solver::init_child(ChildNode& c, int ply, bool or_node, uint64_t path_key, MoveList& scratch,
                        uint16_t budget) {
  c.hand = 0;
  c.mate_len = 0;
  c.path_dependent = 0;
  c.delayed = 0;
  c.futile = 0;
  if (!or_node && futile_mode_ && budget != BUDGET_NONE && is_drop(c.move) &&
      is_futile_drop(ply, path_key, c.move, &c.hand)) {
    c.pn = 0; c.dn = PN_INF; c.futile = 1;
    return;
  }
  pos_->do_move(c.move);
  ++nodes_;
  uint64_t fk = pos_->full_key();
  if (path_.contains(fk)) {
    c.pn = PN_INF; c.dn = 0; c.path_dependent = 1; c.mate_len = LEN_INF;
    pos_->undo_move();
    return;
  }
  uint64_t key = tt_key();
  Hand hand = attacker_hand();
  TTResult r = tt_.probe(key, hand, budget);
  if (r.found && (r.pn == 0 || r.dn == 0)) {
    c.pn = r.pn; c.dn = r.dn; c.hand = r.hand; c.mate_len = r.mate_len;
  } else if (rep_table_.contains(path_result_key(path_key, fk, budget_salt(budget)))) {
    c.pn = PN_INF; c.dn = 0; c.path_dependent = 1; c.mate_len = LEN_INF;
  } else if (r.found) {
    c.pn = r.pn; c.dn = r.dn;
  } else if (or_node) {
    // A new AND node. No evasion: mate in one, settled here without a visit.
    generate_evasions(*pos_, scratch);
    if (scratch.size == 0) {
      c.pn = 0; c.dn = PN_INF;
      c.hand = and_node_proof_hand(*pos_, attacker_, HAND_ZERO);
      tt_.store(key, c.hand, 0, PN_INF, 0, 1);
    } else if (budget == 0) {
      // The defender has a move, so no mate within 0 plies (at least 2 are
      // needed), unless every move is a futile interposition.
      Hand u = HAND_ZERO;
      if (futile_mode_ && only_futile_evasions(ply + 1, path_key ^ fk, scratch, &u)) {
        c.pn = 0; c.dn = PN_INF; c.hand = and_node_proof_hand(*pos_, attacker_, u);
        tt_.store(key, c.hand, 0, PN_INF, 0, 1);
      } else {
        c.pn = PN_INF; c.dn = 0; c.hand = hand; c.mate_len = 2;
      }
    } else {
      c.pn = std::max(r.pn, evasion_weight(scratch));
      c.dn = r.dn;
    }
  } else if (budget == 0) {
    c.pn = PN_INF; c.dn = 0; c.hand = full_hand(); c.mate_len = 1;  // an OR node needs a ply to mate
  } else {
    // A new OR node. No check: no mate, settled here.
    generate_checks(*pos_, scratch);
    if (scratch.size == 0) {
      c.pn = PN_INF; c.dn = 0; c.mate_len = LEN_INF;
      c.hand = or_node_disproof_hand(*pos_, attacker_, full_hand());
      tt_.store(key, c.hand, PN_INF, 0, LEN_INF, 1);
    } else {
      c.pn = r.pn;
      c.dn = std::max(r.dn, uint32_t(scratch.size));
    }
  }
  pos_->undo_move();
}

// Delayed expansion of interpositions (合駒の遅延展開, as in KomoringHeights):
// against a distant check the defender may drop any of up to seven piece types
// on each square between. Those drops are usually refuted the same way, so only
// the first drop on each square takes part in the search; the next one on that
// square is expanded when it is proven. The AND node is proven only when every
// drop has been, so this changes the order of work, never the verdict. Summing
// seven similar proof numbers would otherwise make far checks look seven times
// harder than they are.
void Solver::expand(SearchFrame& f, int ply, bool or_node, uint64_t path_key, int& n) {
  if (or_node) generate_checks(*pos_, f.moves);
  else generate_evasions(*pos_, f.moves);
  n = f.moves.size;
  // Every child's cluster is probed below; a probe is a cache miss in a large
  // table, so start all the loads now and let them overlap.
  for (int i = 0; i < n; ++i)
    tt_.prefetch(TranspositionTable::fix_key(pos_->board_key_after(f.moves[i]) ^ salt_));
  uint16_t budget = child_budget(f.budget);
  MoveList& scratch = frame(ply + 1).moves;  // the child frame is not in use yet
  Bitboard drop_seen;
  for (int i = 0; i < n; ++i) {
    Move m = f.moves[i];
    ChildNode& c = f.child[i];
    c.move = m;
    if (!or_node && is_drop(m)) {
      Bitboard to = square_bb(move_to(m));
      if (drop_seen & to) {
        c.delayed = 1; c.pn = 1; c.dn = 1; c.hand = 0; c.mate_len = 0; c.path_dependent = 0;
        continue;
      }
      drop_seen |= to;
    }
    init_child(c, ply, or_node, path_key, scratch, budget);
    if ((or_node && c.pn == 0) || (!or_node && c.dn == 0 && !c.path_dependent)) {
      n = i + 1;  // settled: the rest need not be looked at
      break;
    }
  }
  // A drop proven at once lets the next one on its square in.
  if (!or_node)
    for (int i = 0; i < n; ++i)
      if (f.child[i].pn == 0 && !f.child[i].delayed && is_drop(f.child[i].move))
        activate_next_drop(f, n, i, or_node, path_key, ply);
}

void Solver::activate_next_drop(SearchFrame& f, int n, int proven, bool or_node, uint64_t path_key, int ply) {
  Square to = move_to(f.child[proven].move);
  for (int j = 0; j < n; ++j) {
    const ChildNode& c = f.child[j];
    if (!c.delayed && c.pn != 0 && is_drop(c.move) && move_to(c.move) == to) return;  // square still has a stand-in
  }
  MoveList& scratch = frame(ply + 1).moves;
  for (int j = 0; j < n; ++j) {
    ChildNode& c = f.child[j];
    if (!c.delayed || move_to(c.move) != to) continue;
    init_child(c, ply, or_node, path_key, scratch, child_budget(f.budget));
    if (c.pn != 0) return;  // this one now stands for the square
  }
}

void Solver::finalize(SearchFrame& f, int n, bool or_node, uint32_t pn, uint32_t dn, uint64_t path_key,
                      uint32_t amount, NodeValue& out) {
  out.pn = pn;
  out.dn = dn;
  out.hand = attacker_hand();
  out.mate_len = 0;
  out.path_dependent = false;
  auto captured = [&](Move m) { return is_drop(m) ? NO_PIECE : pos_->piece_on(move_to(m)); };
  uint64_t key = tt_key();
  if (pn == 0) {
    if (or_node) {
      int b = -1;
      for (int i = 0; i < n; ++i)
        if (f.child[i].pn == 0 && (b < 0 || f.child[i].mate_len < f.child[b].mate_len)) b = i;
      const ChildNode& c = f.child[b];
      out.hand = hand_before_move(c.hand, c.move, captured(c.move));
      out.mate_len = add_len(c.mate_len);
    } else {
      Hand u = HAND_ZERO;
      uint16_t len = 0;
      bool resisting = false;  // some reply is not a futile interposition
      for (int i = 0; i < n; ++i) {
        u = hand_max(u, f.child[i].hand);
        if (f.child[i].futile) continue;
        len = std::max(len, f.child[i].mate_len);
        resisting = true;
      }
      out.hand = and_node_proof_hand(*pos_, attacker_, u);
      out.mate_len = resisting ? add_len(len) : 0;
    }
    tt_.store(key, out.hand, 0, PN_INF, out.mate_len, amount);
  } else if (dn == 0) {
    if (or_node) {
      // No mate within the budget after any check: the shortest conceivable mate is
      // one ply longer than the shortest conceivable after the best check.
      Hand meet = full_hand();
      uint16_t min_len = LEN_INF;
      for (int i = 0; i < n; ++i) {
        out.path_dependent |= f.child[i].path_dependent != 0;
        meet = hand_min(meet, hand_before_move(f.child[i].hand, f.child[i].move, captured(f.child[i].move)));
        min_len = std::min(min_len, f.child[i].mate_len);
      }
      out.mate_len = n ? add_len(min_len) : LEN_INF;
      if (!out.path_dependent) out.hand = or_node_disproof_hand(*pos_, attacker_, meet);
    } else {
      int b = -1;
      for (int i = 0; i < n; ++i) {
        const ChildNode& c = f.child[i];
        if (c.dn != 0) continue;
        if (b < 0 || (f.child[b].path_dependent && !c.path_dependent) ||
            (f.child[b].path_dependent == c.path_dependent && c.mate_len > f.child[b].mate_len))
          b = i;
      }
      out.path_dependent = f.child[b].path_dependent != 0;
      out.hand = and_node_disproof_hand(*pos_, attacker_, f.child[b].hand, f.child[b].move);
      out.mate_len = add_len(f.child[b].mate_len);
    }
    if (out.path_dependent) {
      uint64_t fk = pos_->full_key();
      rep_table_.insert(path_result_key(path_key ^ fk, fk, budget_salt(f.budget)));
    }
    else tt_.store(key, out.hand, PN_INF, 0, out.mate_len, amount);
  } else {
    tt_.store(key, attacker_hand(), pn, dn, 0, amount);
  }
}

NodeValue Solver::mid(int ply, uint32_t th_pn, uint32_t th_dn, uint64_t path_key, uint16_t budget) {
  NodeValue out;
  if (ply > max_ply_reached_) max_ply_reached_ = ply;
  if (ply >= limits_.max_ply) {
    // Too deep to follow: give up on this path only. A "no mate" built on this is not trusted.
    depth_cut_ = true;
    out = {PN_INF, 0, attacker_hand(), LEN_INF, true};
    return out;
  }
  bool or_node = pos_->side_to_move() == attacker_;
  if (budget == 0) {
    // Nothing fits in zero plies but a mate already on the board (or, ignoring
    // futile interpositions, a check that only they can answer).
    Hand u = HAND_ZERO;
    bool mated = false;
    if (!or_node) {
      MoveList evasions;
      generate_evasions(*pos_, evasions);
      mated = evasions.size == 0 || (futile_mode_ && only_futile_evasions(ply, path_key, evasions, &u));
    }
    out = mated ? NodeValue{0, PN_INF, and_node_proof_hand(*pos_, attacker_, u), 0, false}
                : NodeValue{PN_INF, 0, attacker_hand(), uint16_t(or_node ? 1 : 2), false};
    if (mated) tt_.store(tt_key(), out.hand, 0, PN_INF, 0, 1);
    return out;
  }
  uint64_t nodes_start = nodes_;
  SearchFrame& f = frame(ply);
  f.budget = budget;
  int n = 0;
  expand(f, ply, or_node, path_key, n);
  uint16_t cbudget = child_budget(budget);
  uint32_t pn = 1, dn = 1;
  for (;;) {
    // OR: pn = min child pn, dn = sum child dn. AND: the other way round.
    uint32_t min_v = PN_INF, second = PN_INF;
    uint64_t sum = 0;
    int best = -1;
    for (int i = 0; i < n; ++i) {
      const ChildNode& c = f.child[i];
      if (c.delayed) continue;
      uint32_t v = or_node ? c.pn : c.dn;
      uint32_t w = or_node ? c.dn : c.pn;
      sum += w;
      if (v < min_v || best < 0) {
        second = min_v;
        min_v = v;
        best = i;
      } else if (v < second) {
        second = v;
      }
    }
    uint32_t sum_v = min_v == 0 ? PN_INF : uint32_t(std::min<uint64_t>(sum, PN_INF - 1));
    if (n == 0) { min_v = PN_INF; sum_v = 0; }
    pn = or_node ? min_v : sum_v;
    dn = or_node ? sum_v : min_v;
    if (pn >= th_pn || dn >= th_dn || should_stop()) break;

    ChildNode& c = f.child[best];
    uint32_t th_min = or_node ? th_pn : th_dn;
    uint32_t th_sum = or_node ? th_dn : th_pn;
    uint32_t w_best = or_node ? c.dn : c.pn;
    // 1+epsilon trick (Pawlewicz & Lew): stay in the best child until it is a
    // quarter worse than the second best, not just one worse; this cuts the
    // thrashing between siblings of similar value.
    uint64_t child_th_min = std::min<uint64_t>(th_min, uint64_t(second) + std::max<uint32_t>(1, second / 4));
    uint64_t child_th_sum = std::min<uint64_t>(PN_INF, uint64_t(th_sum) - sum_v + w_best);
    uint32_t cth_pn = uint32_t(or_node ? child_th_min : child_th_sum);
    uint32_t cth_dn = uint32_t(or_node ? child_th_sum : child_th_min);

    pos_->do_move(c.move);
    ++nodes_;
    uint64_t fk = pos_->full_key();
    path_.insert(fk);
    NodeValue r = mid(ply + 1, cth_pn, cth_dn, path_key ^ fk, cbudget);
    path_.erase(fk);
    pos_->undo_move();
    c.pn = r.pn;
    c.dn = r.dn;
    c.hand = r.hand;
    c.mate_len = r.mate_len;
    c.path_dependent = r.path_dependent;
    if (!or_node && r.pn == 0 && is_drop(c.move)) activate_next_drop(f, n, best, or_node, path_key, ply);
    if (ply == 0) { root_pn_ = pn; root_dn_ = dn; }
  }
  uint64_t spent = nodes_ - nodes_start;
  if (stopped_ && pn != 0 && dn != 0) {
    // Interrupted: keep the estimates, they are still valid lower bounds of work.
    tt_.store(tt_key(), attacker_hand(), pn, dn, 0, uint32_t(std::min<uint64_t>(spent, 0xffffffffu)));
    out = {pn, dn, attacker_hand(), 0, false};
    return out;
  }
  finalize(f, n, or_node, pn, dn, path_key, uint32_t(std::min<uint64_t>(spent, 0xffffffffu)), out);
  return out;
}

// Futile interposition (無駄合; docs/FUTILE.md): a drop between the king and a
// single distant checker, after which the attacker takes the dropped piece
// (with a check) and mates without needing it: the position after the capture is proven with a
// proof hand holding fewer of that piece than the attacker then has. The
// drop's own proof hand is returned through proof_hand. Called at the AND node
// before the drop; the capture line is proven here if the table lacks it.
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
  pos_->do_move(drop);
  uint64_t fk1 = pos_->full_key();
  path_.insert(fk1);
  MoveList captures;
  generate_checks(*pos_, captures);
  for (Move m : captures) {
    if (is_drop(m) || move_to(m) != b) continue;  // any checking capture of the dropped piece
    pos_->do_move(m);
    uint64_t fk2 = pos_->full_key();
    if (!path_.contains(fk2)) {
      TTResult r = tt_.probe(tt_key(), attacker_hand(), BUDGET_NONE);
      // An unresolved entry that already cost a capped sub-search is not tried
      // again: every re-expansion of the AND node would repeat it.
      bool tried = r.found && r.pn != 0 && r.amount >= kFutilityNodeCap / 2;
      if (!(r.found && r.pn == 0) && !tried && !stopped_) {
        // A futile interposition is refuted by a plain capture-and-mate, which
        // df-pn proves in a few hundred nodes; a capture line that needs more is
        // real resistance. The cap keeps hard or unmateable lines from costing
        // a full search each.
        uint64_t saved = nested_node_limit_;
        nested_node_limit_ = std::min(saved, nodes_ + kFutilityNodeCap);
        path_.insert(fk2);
        NodeValue v = mid(ply + 2, PN_INF, PN_INF, path_key ^ fk1 ^ fk2, BUDGET_NONE);
        path_.erase(fk2);
        nested_node_limit_ = saved;
        if (v.pn == 0) { r.found = true; r.pn = 0; r.hand = v.hand; }
      }
      if (r.found && r.pn == 0 && hand_count(r.hand, x) < hand_count(attacker_hand(), x)) {
        futile = true;
        *proof_hand = hand_before_move(r.hand, m, make_piece(~attacker_, x));
      }
    }
    pos_->undo_move();
    if (futile) break;
  }
  path_.erase(fk1);
  pos_->undo_move();
  // Only a completed judgement is remembered: one cut short by stop() is not a judgement.
  if (!stopped_) futility_memo_.put(memo_key, futile, futile ? *proof_hand : HAND_ZERO);
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

bool Solver::prove_here(int ply, uint64_t path_key, uint16_t budget) {
  return mid(ply, PN_INF, PN_INF, path_key, budget).pn == 0;
}

// 1 when the position (the side to move as it stands) has no mate within
// `budget` plies, 0 when it has one, -1 when the search could not tell.
int Solver::decide_no_mate_within(int ply, uint64_t path_key, uint16_t budget) {
  TTResult r = tt_.probe(tt_key(), attacker_hand(), budget);
  if (r.found && r.dn == 0) return 1;
  if (r.found && r.pn == 0) return 0;
  NodeValue v = mid(ply, PN_INF, PN_INF, path_key, budget);
  return v.dn == 0 ? 1 : v.pn == 0 ? 0 : -1;
}

// Rebuilds a mating line of at most `budget` plies from the table, from the
// current position (ply plies below the root). At OR nodes: a proven check with
// the shortest mate. At AND nodes: a reply that resists longest; with `exact`,
// "longest" is proven (the reply after which no shorter mate exists), otherwise
// it is the longest mate the table has recorded. Entries lost to replacement
// are proven again on the spot. The position is restored before returning.
bool Solver::extract_line(int ply, uint64_t path_key, uint16_t budget, bool exact, bool tie_break,
                          std::vector<Move>& line) {
  std::vector<uint64_t> keys;
  size_t start = line.size();
  uint16_t r = budget;
  bool ok = false;
  for (int depth = ply; depth < limits_.max_ply; ++depth) {
    bool or_node = pos_->side_to_move() == attacker_;
    MoveList list;
    if (or_node) generate_checks(*pos_, list);
    else generate_evasions(*pos_, list);
    if (!or_node && list.size == 0) { ok = true; break; }
    if (!or_node && futile_mode_) {
      // Futile interpositions are no resistance: drop them from the replies;
      // when nothing else is left, the line ends here as a mate.
      int kept = 0;
      for (int i = 0; i < list.size; ++i) {
        Hand h;
        if (!(is_drop(list[i]) && is_futile_drop(depth, path_key, list[i], &h))) list.moves[kept++] = list[i];
      }
      list.size = kept;
      if (kept == 0) { ok = true; break; }
    }
    if (r == 0) break;
    uint16_t rc = child_budget(r);
    Move chosen = MOVE_NONE;
    uint16_t chosen_len = 0;
    if (or_node) {
      for (int attempt = 0; attempt < 2 && chosen == MOVE_NONE; ++attempt) {
        for (Move m : list) {
          pos_->do_move(m);
          if (!path_.contains(pos_->full_key())) {
            TTResult t = tt_.probe(tt_key(), attacker_hand(), rc);
            if (t.found && t.pn == 0 && (chosen == MOVE_NONE || t.mate_len < chosen_len)) {
              chosen = m;
              chosen_len = t.mate_len;
            }
          }
          pos_->undo_move();
        }
        if (chosen == MOVE_NONE && (attempt > 0 || !prove_here(depth, path_key, r))) break;
      }
    } else {
      // Every reply must be mated within rc; note how long each mate is.
      uint16_t lens[MAX_MOVES];
      bool all = true;
      for (int i = 0; i < list.size && all; ++i) {
        pos_->do_move(list[i]);
        uint64_t fk = pos_->full_key();
        TTResult t = tt_.probe(tt_key(), attacker_hand(), rc);
        if (!(t.found && t.pn == 0) && !path_.contains(fk)) {
          path_.insert(fk);
          if (prove_here(depth + 1, path_key ^ fk, rc)) t = tt_.probe(tt_key(), attacker_hand(), rc);
          path_.erase(fk);
        }
        all = t.found && t.pn == 0;
        lens[i] = t.mate_len;
        pos_->undo_move();
      }
      if (!all) break;
      // The longest resistance: with `exact`, the replies whose mate cannot be
      // shorter than t, for the largest t; otherwise the longest recorded mate.
      int candidates[MAX_MOVES];
      int nc = 0;
      uint16_t t = 0;
      if (exact) {
        for (t = rc;; t = uint16_t(t - 2)) {
          if (t < 2) {
            for (int i = 0; i < list.size; ++i) candidates[nc++] = i;
            break;
          }
          // First what the table already knows (the minimality proof left
          // exactly these facts behind), then searches, stopping at the first hit.
          for (int pass = 0; pass < 2 && nc == 0; ++pass) {
            for (int i = 0; i < list.size; ++i) {
              pos_->do_move(list[i]);
              uint64_t fk = pos_->full_key();
              int d;
              if (pass == 0) {
                TTResult p = tt_.probe(tt_key(), attacker_hand(), uint16_t(t - 2));
                d = p.found && p.dn == 0 ? 1 : 0;
              } else {
                path_.insert(fk);
                d = decide_no_mate_within(depth + 1, path_key ^ fk, uint16_t(t - 2));
                path_.erase(fk);
              }
              pos_->undo_move();
              if (d != 0) candidates[nc++] = i;  // undecided (stopped) counts as resisting
              if (pass == 1 && nc) break;
            }
          }
          if (nc) break;
        }
      } else {
        for (int i = 0; i < list.size; ++i) t = std::max(t, lens[i]);
        for (int i = 0; i < list.size; ++i)
          if (lens[i] == t) candidates[nc++] = i;
      }
      int pick = candidates[0];
      if (nc > 1) {
        // Equal resistance: prefer the reply that leaves the attacker fewest
        // pieces in hand at the end (no 駒余り), judged on each reply's own line.
        int best_spare = 1 << 30;
        for (int k = 0; k < nc; ++k) {
          int spare;
          if (tie_break && t <= 128) {
            Move m = list[candidates[k]];
            pos_->do_move(m);
            uint64_t fk = pos_->full_key();
            path_.insert(fk);
            std::vector<Move> sub;
            bool sub_ok = extract_line(depth + 1, path_key ^ fk, t, exact, false, sub);
            for (Move x : sub) pos_->do_move(x);
            spare = sub_ok ? hand_total(attacker_hand()) : 1 << 29;
            for (size_t j = sub.size(); j-- > 0;) pos_->undo_move();
            path_.erase(fk);
            pos_->undo_move();
          } else {
            spare = is_drop(list[candidates[k]]) ? 1 : 0;  // a dropped piece ends up in the attacker's hand
          }
          if (spare < best_spare) { best_spare = spare; pick = candidates[k]; }
        }
      }
      chosen = list[pick];
      chosen_len = exact ? t : lens[pick];
    }
    if (chosen == MOVE_NONE || stopped_) break;
    line.push_back(chosen);
    pos_->do_move(chosen);
    uint64_t fk = pos_->full_key();
    path_.insert(fk);
    keys.push_back(fk);
    path_key ^= fk;
    r = chosen_len;
  }
  for (size_t i = keys.size(); i-- > 0;) {
    path_.erase(keys[i]);
    pos_->undo_move();
  }
  if (!ok) line.resize(start);
  return ok;
}

TTResult Solver::probe(const Position& pos, bool and_root) const {
  Color attacker = and_root ? ~pos.side_to_move() : pos.side_to_move();
  // The same salt as the last search used (its futility mode included).
  uint64_t salt = material_salt(pos, attacker) ^ (futile_mode_ ? kFutileSalt : 0);
  uint64_t key = TranspositionTable::fix_key(pos.board_key() ^ salt);
  return tt_.probe(key, pos.hand(attacker));
}

SearchResult Solver::solve(const std::string& sfen, const SearchLimits& limits) {
  Position pos;
  try {
    pos.set_sfen(sfen);
  } catch (const std::invalid_argument& e) {
    SearchResult r;
    r.error = e.what();
    return r;
  }
  return solve(pos, limits);
}

SearchResult Solver::solve(Position& pos, const SearchLimits& limits) {
  SearchResult result;
  start_ = last_report_ = std::chrono::steady_clock::now();
  limits_ = limits;
  nodes_ = 0;
  nested_node_limit_ = UINT64_MAX;
  stopped_ = false;
  depth_cut_ = false;
  extracting_ = false;
  max_ply_reached_ = 0;
  root_pn_ = root_dn_ = 1;
  pos_ = &pos;
  Color us = pos.side_to_move();
  attacker_ = pos.in_check() && limits.root_is_and_node_if_checked ? ~us : us;
  auto finish = [&]() {
    result.nodes = nodes_;
    result.time_ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - start_).count());
    result.hashfull = tt_.hashfull();
    result.max_ply_reached = max_ply_reached_;
    pos_ = nullptr;
    return result;
  };
  Square their_king = pos.king_square(~us);
  if (attacker_ == us && their_king != SQ_NONE && pos.attackers_to(us, their_king)) {
    result.error = "the side not to move is in check (its king could be captured)";
    return finish();
  }
  if (pos.king_square(~attacker_) == SQ_NONE) {
    result.status = MateStatus::NoMate;  // nothing to check
    return finish();
  }
  futile_mode_ = limits.ignore_futile_interpositions && limits.post_search == PostSearchLevel::MinLength;
  // Bounded results differ with and without futility: keep the two kinds apart.
  salt_ = material_salt(pos, attacker_) ^ (futile_mode_ ? kFutileSalt : 0);
  path_.clear_if_dirty();
  rep_table_.clear();
  futility_memo_.clear();
  tt_.new_search();
  uint64_t root_key = pos.full_key();
  path_.insert(root_key);
  NodeValue v = mid(0, PN_INF, PN_INF, root_key, BUDGET_NONE);
  root_pn_ = v.pn;
  root_dn_ = v.dn;
  if (v.pn == 0) {
    // Shortest mate: binary search over the length. "Is there a mate within b?"
    // either proves one (the bound drops to its length) or proves there is none
    // (the lower bound rises to b). Budgets keep the parity of the mate length.
    // Bisecting rather than stepping down by two matters when the first proof is
    // far too long (muso-001: 27 plies found first, 11 the answer): small
    // budgets are cheap to search, and only the last step near the answer is
    // an expensive "no shorter mate" proof.
    uint16_t best = v.mate_len;
    bool minimal = false;
    if (limits.post_search == PostSearchLevel::MinLength) {
      int lo = (best % 2) ? -1 : -2;  // no mate within lo plies (trivially)
      while (!stopped_ && int(best) - 2 > lo) {
        int candidates = (int(best) - 2 - lo) / 2;
        int b = lo + 2 * ((candidates + 1) / 2);
        NodeValue w = mid(0, PN_INF, PN_INF, root_key, uint16_t(b));
        if (w.pn == 0) best = std::min<uint16_t>(best, w.mate_len);
        else if (w.dn == 0 && !depth_cut_) lo = b;
        else break;
      }
      minimal = int(best) - 2 <= lo;
    }
    // Rebuild the line. The exact line (a proven longest defence at every AND
    // node) may need searches of its own; if it cannot be had within its node
    // budget, or stop() or the time limit cut it short, fall back to the lines
    // the table gives at once. The fallbacks ignore stop: a proven mate is
    // always answered with a line.
    bool exact = minimal;
    auto rebuild = [&](uint16_t budget, bool exact_line, bool tie_break, bool honor_stop, uint64_t node_budget) {
      stopped_ = false;
      extracting_ = true;
      extract_honor_stop_ = honor_stop;
      extract_node_budget_ = nodes_ + node_budget;
      result.pv.clear();
      bool done = extract_line(0, root_key, budget, exact_line, tie_break, result.pv);
      extracting_ = false;
      return done;
    };
    uint16_t first_budget = limits.post_search == PostSearchLevel::None ? BUDGET_NONE : best;
    bool ok = rebuild(first_budget, exact, limits.post_search == PostSearchLevel::MinLength, true,
                      std::max<uint64_t>(4 * nodes_, 10000000));
    exact = exact && ok;
    if (!ok) ok = rebuild(first_budget, false, false, false, 2000000);
    if (!ok) ok = rebuild(BUDGET_NONE, false, false, false, 10000000);
    root_pn_ = 0;
    root_dn_ = PN_INF;
    if (ok) {
      result.status = MateStatus::Mate;
      result.min_length_proven = exact && result.pv.size() == best;
    } else {
      result.error = "mate proven but the mating line could not be rebuilt within the node budget";
    }
  } else if (v.dn == 0 && !depth_cut_) {
    result.status = MateStatus::NoMate;
    if (limits.certify_nodes) {
      uint64_t search_nodes = nodes_;
      certify_no_mate(root_key, result.certificate);
      nodes_ = search_nodes;  // the result counts the search; the certificate counts its own walk
    }
  }
  path_.erase(root_key);
  report_progress(root_pn_, root_dn_);
  return finish();
}

}  // namespace usi_mate
