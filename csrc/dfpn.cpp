// The df-pn MID loop and local expansion: children, their initial proof and
// disproof numbers, delayed interposing drops, and what a node stores when it
// is done. OR nodes (attacker to move) expand check moves, AND nodes
// (defender, in check) expand evasions. One translation unit on purpose: the
// compiler inlines init_child and expand into the hot loop.
#include <algorithm>
#include <utility>
#ifdef USI_MATE_TRACE_PATH
#include <cstdio>
#endif

#include "delayed_drops.h"
#include "scoped_move.h"
#include "selection.h"
#include "worker.h"

namespace usi_mate {

#ifdef USI_MATE_TRACE_PATH
void Worker::dump_path(int ply) {
  std::fprintf(stderr, "path at %llu nodes, ply %d\n", (unsigned long long)nodes_, ply);
  for (int p = 0; p <= ply; ++p) {
    const SearchFrame& g = frame(p);
    std::fprintf(stderr, "%d %s %s pn %u dn %u th %u %u passes %llu nodes %llu children %d\n", p,
                 g.trace_or ? "OR" : "AND", move_to_usi(g.child[g.trace_best].move).c_str(), g.trace_pn, g.trace_dn,
                 g.trace_th_pn, g.trace_th_dn, (unsigned long long)g.trace_passes,
                 (unsigned long long)(nodes_ - g.trace_nodes_at_entry), g.trace_n);
  }
}
#endif

SearchFrame& Worker::frame(int ply) {
  // Frames are created once per new maximum depth and reused: the search loop itself never allocates.
  while (int(frames_.size()) <= ply) frames_.push_back(std::make_unique<SearchFrame>());
  return *frames_[ply];
}

void Worker::init_child(ChildNode& c, int ply, bool or_node, uint64_t path_key, MoveList& scratch, uint16_t budget) {
  c.hand = 0;
  c.mate_len = 0;
  c.path_dependent = 0;
  c.delayed = 0;
  c.futile = 0;
  ScopedMove child(*pos_, c.move);
  ++nodes_;
  uint64_t fk = child.key();
  if (path_.contains(fk)) {
    c.pn = PN_INF;
    c.dn = 0;
    c.path_dependent = 1;
    c.mate_len = LEN_INF;
    return;
  }
  uint64_t key = tt_key();
  Hand hand = attacker_hand();
  TTResult r = tt_->probe(key, hand, budget, futility_.own_estimates());
  if (r.found && (r.pn == 0 || r.dn == 0)) {
    c.pn = r.pn;
    c.dn = r.dn;
    c.hand = r.hand;
    c.mate_len = r.mate_len;
  } else if (rep_table_.contains(path_result_key(path_key, fk, budget_salt(budget)))) {
    c.pn = PN_INF;
    c.dn = 0;
    c.path_dependent = 1;
    c.mate_len = LEN_INF;
  } else if (r.found) {
    c.pn = r.pn;
    c.dn = r.dn;
  } else if (or_node) {
    // A new AND node. No evasion: mate in one, settled here without a visit.
    generate_evasions(*pos_, scratch);
    if (scratch.size == 0) {
      c.pn = 0;
      c.dn = PN_INF;
      c.hand = and_node_proof_hand(*pos_, attacker_, HAND_ZERO);
      tt_->store(key, c.hand, 0, PN_INF, 0, 1);
    } else if (budget == 0) {
      // The defender has a move, so no mate within 0 plies (at least 2 are
      // needed), unless every move is a futile interposition.
      Hand u = HAND_ZERO;
      if (futility_.enabled() && futility_.only_futile_evasions(ply + 1, path_key ^ fk, scratch, &u)) {
        c.pn = 0;
        c.dn = PN_INF;
        c.hand = and_node_proof_hand(*pos_, attacker_, u);
        tt_->store(key, c.hand, 0, PN_INF, 0, 1);
      } else {
        c.pn = PN_INF;
        c.dn = 0;
        c.hand = hand;
        c.mate_len = 2;
      }
    } else {
      c.pn = std::max(r.pn, evasion_weight(scratch));
      c.dn = r.dn;
    }
  } else if (budget == 0) {
    c.pn = PN_INF;
    c.dn = 0;
    c.hand = full_hand();
    c.mate_len = 1;  // an OR node needs a ply to mate
  } else {
    // A new OR node. No check: no mate, settled here.
    generate_checks(*pos_, scratch);
    if (scratch.size == 0) {
      c.pn = PN_INF;
      c.dn = 0;
      c.mate_len = LEN_INF;
      c.hand = or_node_disproof_hand(*pos_, attacker_, full_hand());
      tt_->store(key, c.hand, PN_INF, 0, LEN_INF, 1);
    } else {
      c.pn = r.pn;
      c.dn = std::max(r.dn, uint32_t(scratch.size));
    }
  }
}

// Expands a node's children: checks at OR nodes, evasions at AND nodes, each
// initialised from a one-ply look, except the interposing drops held back
// (DelayedDrops, delayed_drops.h).
void Worker::expand(SearchFrame& f, int ply, bool or_node, uint64_t path_key, int& n) {
  if (or_node)
    generate_checks(*pos_, f.moves);
  else
    generate_evasions(*pos_, f.moves);
  n = f.moves.size;
  f.waiting = 0;
  // Every child's cluster is probed below; a probe is a cache miss in a large
  // table, so start all the loads now and let them overlap.
  for (int i = 0; i < n; ++i) tt_->prefetch(TranspositionTable::fix_key(pos_->board_key_after(f.moves[i]) ^ salt_));
  uint16_t budget = child_budget(f.budget);
  MoveList& scratch = frame(ply + 1).moves;  // the child frame is not in use yet
  // Composers' count in a bounded search: whether a drop is futile depends on
  // the mate the other replies allow (futility.cpp), so drops wait until
  // those are proven (resolve_waiting_drops).
  bool drops_wait = !or_node && futility_.enabled() && f.budget != BUDGET_NONE;
  DelayedDrops drops(drops_wait);
  for (int i = 0; i < n; ++i) {
    ChildNode& c = f.child[i];
    c.move = f.moves[i];
    if (!or_node && drops.hold_back(c)) {
      f.waiting += c.delayed == kWaiting;
      continue;
    }
    init_child(c, ply, or_node, path_key, scratch, budget);
    if ((or_node && c.pn == 0) || (!or_node && c.dn == 0 && !c.path_dependent)) {
      n = i + 1;  // settled: the rest need not be looked at
      f.waiting = DelayedDrops::count_waiting(f, n);
      break;
    }
  }
  // A drop proven at once lets the next one on its square in.
  if (!or_node)
    for (int i = 0; i < n; ++i)
      if (f.child[i].pn == 0 && !f.child[i].delayed && is_drop(f.child[i].move))
        activate_next_drop(f, n, i, or_node, path_key, ply);
}

// The drops of an AND node whose other replies are all proven: a drop is
// futile when its capture leaves a mate no longer than those replies allow
// (counted from this node; 0 when there are none), else it is resistance and
// searched like any reply (the first one on each square, the next when that
// one is proven). Where judgements are uncapped, "allow" is the longest of
// their shortest mates, else of their proven lengths (FutilityJudge::is_futile).
// False, with the drop from which on none is judged still waiting, when the
// budget ran out during a judgement: the node must then stay unresolved.
bool Worker::resolve_waiting_drops(SearchFrame& f, int n, int ply, uint64_t path_key) {
  // The other replies, all proven: what the drops are judged against.
  Move others[MAX_MOVES];
  uint16_t lens[MAX_MOVES];
  int n_others = DelayedDrops::judged_against(f, n, others, lens);
  MoveList& scratch = frame(ply + 1).moves;
  uint16_t budget = child_budget(f.budget);
  Bitboard active;  // squares with a drop in the search
  for (int i = 0; i < n; ++i) {
    ChildNode& c = f.child[i];
    if (c.delayed != kWaiting) continue;
    Hand h = HAND_ZERO;
    if (futility_.is_futile(ply, path_key, c.move, f.budget, others, lens, n_others, &h)) {
      c.delayed = 0;
      c.pn = 0;
      c.dn = PN_INF;
      c.hand = h;
      c.futile = 1;
      continue;
    }
    if (monitor_.exhausted()) return false;  // (the judgement may have been cut short)
    Bitboard to = square_bb(move_to(c.move));
    if (active & to) {
      c.delayed = kStandBy;
      continue;
    }
    active |= to;
    init_child(c, ply, false, path_key, scratch, budget);
    if (c.pn == 0) active ^= to;  // proven at once: the next one on the square comes in
  }
  f.waiting = 0;
  return true;
}

void Worker::activate_next_drop(SearchFrame& f, int n, int proven, bool or_node, uint64_t path_key, int ply) {
  MoveList& scratch = frame(ply + 1).moves;
  for (int j = DelayedDrops::next_on_square(f, n, proven); j >= 0;
       j = DelayedDrops::next_on_square(f, n, proven, j + 1)) {
    ChildNode& c = f.child[j];
    init_child(c, ply, or_node, path_key, scratch, child_budget(f.budget));
    if (c.pn != 0) return;  // this one now stands for the square
  }
}

// Stores a node's outcome and fills `out`: proof or disproof hands by the
// rules of proof_hand.h, mate lengths, and path dependence (a disproof that
// leaned on a repetition goes to the repetition table, never the TT).
void Worker::finalize(SearchFrame& f, int n, bool or_node, uint32_t pn, uint32_t dn, uint64_t path_key, uint32_t amount,
                      NodeValue& out) {
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
    tt_->store(key, out.hand, 0, PN_INF, out.mate_len, amount);
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
    } else {
      tt_->store(key, out.hand, PN_INF, 0, out.mate_len, amount);
    }
  } else {
    // Unresolved (thresholds reached or the budget spent): the estimates stay
    // valid lower bounds of the work left, for the next visit, marked with the
    // budget they were made under.
    tt_->store(key, attacker_hand(), pn, dn, f.budget, amount);
  }
}

// A node with no plies left: nothing fits but a mate already on the board
// (or, ignoring futile interpositions, a check that only they can answer).
NodeValue Worker::no_plies_left(int ply, bool or_node, uint64_t path_key) {
  Hand u = HAND_ZERO;
  bool mated = false;
  if (!or_node) {
    // The ply's frame, not a local: a 2.4 KB MoveList in mid()'s stack frame
    // would cost 10 MB of stack at the 4000-ply depth limit.
    MoveList& evasions = frame(ply).moves;
    generate_evasions(*pos_, evasions);
    mated = evasions.size == 0 || (futility_.enabled() && futility_.only_futile_evasions(ply, path_key, evasions, &u));
  }
  NodeValue out = mated ? NodeValue{0, PN_INF, and_node_proof_hand(*pos_, attacker_, u), 0, false}
                        : NodeValue{PN_INF, 0, attacker_hand(), uint16_t(or_node ? 1 : 2), false};
  if (mated) tt_->store(tt_key(), out.hand, 0, PN_INF, 0, 1);
  return out;
}

NodeValue Worker::mid(int ply, uint32_t th_pn, uint32_t th_dn, uint64_t path_key, uint16_t budget) {
  NodeValue out;
  if (ply > seen_.max_ply) seen_.max_ply = ply;
  if (ply >= limits_.max_ply) {
    // Too deep to follow: give up on this path only. A "no mate" built on this is not trusted.
    seen_.depth_cut = true;
    out = {PN_INF, 0, attacker_hand(), LEN_INF, true};
    return out;
  }
  bool or_node = pos_->side_to_move() == attacker_;
  if (budget == 0) return no_plies_left(ply, or_node, path_key);
  uint64_t nodes_start = nodes_;
  SearchFrame& f = frame(ply);
  f.budget = budget;
  int n = 0;
  expand(f, ply, or_node, path_key, n);
#ifdef USI_MATE_TRACE_PATH
  f.trace_passes = 0;
  f.trace_nodes_at_entry = nodes_;
#endif
  uint16_t cbudget = child_budget(budget);
  uint32_t pn = 1, dn = 1;
  for (;;) {
    // OR: pn = min child pn, dn = sum child dn. AND: the other way round.
    Selection s = select_child(f, n, or_node, order_.tie_last);
    uint32_t min_v = s.min_v;
    uint32_t sum_v = s.summed();
    if (n == 0) {
      min_v = PN_INF;
      sum_v = 0;
    }
    pn = or_node ? min_v : sum_v;
    dn = or_node ? sum_v : min_v;
    if (pn == 0 && f.waiting) {
      // Every other reply is proven: now the waiting drops can be judged.
      if (resolve_waiting_drops(f, n, ply, path_key)) continue;
      pn = dn = 1;  // the budget ran out first: unresolved, nothing to conclude
      break;
    }
    if (ply == 0) {
      seen_.root_pn = pn;
      seen_.root_dn = dn;
    }
    if (pn >= th_pn || dn >= th_dn || monitor_.should_stop(nodes_) || yielding()) break;
#ifdef USI_MATE_TRACE_PATH
    f.trace_th_pn = th_pn;
    f.trace_th_dn = th_dn;
    f.trace_pn = pn;
    f.trace_dn = dn;
    f.trace_best = s.best;
    f.trace_n = n;
    f.trace_or = or_node;
    ++f.trace_passes;
    if (nodes_ >= next_path_dump_) {
      next_path_dump_ = nodes_ + kPathDumpNodes;
      dump_path(ply);
    }
#endif

    ChildNode& c = f.child[s.best];
    auto [cth_pn, cth_dn] = child_thresholds(s, or_node ? c.dn : c.pn, or_node, th_pn, th_dn, order_.eps_shift);
    NodeValue r;
    {
      ScopedMove child(*pos_, path_, c.move);
      ++nodes_;
      r = mid(ply + 1, cth_pn, cth_dn, path_key ^ child.key(), cbudget);
    }
    c.pn = r.pn;
    c.dn = r.dn;
    c.hand = r.hand;
    c.mate_len = r.mate_len;
    c.path_dependent = r.path_dependent;
    if (!or_node && r.pn == 0 && is_drop(c.move)) activate_next_drop(f, n, s.best, or_node, path_key, ply);
  }
  uint64_t spent = nodes_ - nodes_start;
  finalize(f, n, or_node, pn, dn, path_key, uint32_t(std::min<uint64_t>(spent, 0xffffffffu)), out);
  return out;
}

}  // namespace usi_mate
