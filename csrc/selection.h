// The MID loop's choice at a node (dfpn.cpp): which child to search next
// (select_child) and with what thresholds (child_thresholds), from the
// children's cached numbers. On their own so that the rule has its own tests
// (tests/test_selection.py, over csrc/testing.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "node.h"

namespace usi_mate {

// The children's values at a node: the best child (by pn at OR nodes, dn at
// AND nodes), the best and second-best values, and the other number summed
// over the board moves and taken by its largest over the drops.
//
// Drops (drop checks at an OR node, interposing drops at an AND node) count as
// one: the drops of one node are usually settled the same way, so their sum
// counted one piece of work many times, and a far check with three squares to
// interpose on looked three times harder to prove than it was (measured in
// docs/DFPN.md, "df-pn").
struct Selection {
  uint32_t min_v = PN_INF, second = PN_INF;
  uint64_t sum = 0;       // the other number, summed over the board moves
  uint32_t drop_max = 0;  // and its largest over the drops
  int best = -1;
  bool best_drop = false;  // the best child is a drop

  // The node's number in the summed direction: infinite once a child settles it
  // (min_v 0), else the board moves' sum plus the drops' largest, clamped below PN_INF.
  uint32_t summed() const { return min_v == 0 ? PN_INF : uint32_t(std::min<uint64_t>(sum + drop_max, PN_INF - 1)); }
};

inline Selection select_child(const SearchFrame& f, int n, bool or_node, bool tie_last) {
  Selection s;
  for (int i = 0; i < n; ++i) {
    const ChildNode& c = f.child[i];
    if (c.delayed) continue;
    uint32_t v = or_node ? c.pn : c.dn;
    uint32_t w = or_node ? c.dn : c.pn;
    if (is_drop(c.move))
      s.drop_max = std::max(s.drop_max, w);
    else
      s.sum += w;
    // Of equally good children the one the other number rates higher goes
    // first: at an OR node the check harder to disprove, at an AND node the
    // reply harder to prove: fewer nodes on the hardest first proofs
    // (docs/DFPN.md, "df-pn"). Of those, a drop check first
    // (checks are generated board moves first): on the longest works the first
    // proof then comes out nearer the composer's length.
    bool better = v < s.min_v || s.best < 0;
    if (!better && v == s.min_v) {
      const ChildNode& b = f.child[s.best];
      uint32_t wb = or_node ? b.dn : b.pn;
      better = w != wb ? w > wb : tie_last || (or_node && is_drop(c.move) && !is_drop(b.move));
    }
    if (better) {
      s.second = s.min_v;
      s.min_v = v;
      s.best = i;
      s.best_drop = is_drop(c.move);
    } else if (v < s.second) {
      s.second = v;
    }
  }
  return s;
}

// The best child's thresholds (pn, dn) from the node's and its siblings'
// (`w_best`: the best child's number in the summed direction).
inline std::pair<uint32_t, uint32_t> child_thresholds(const Selection& s, uint32_t w_best, bool or_node, uint32_t th_pn,
                                                      uint32_t th_dn, uint32_t eps_shift) {
  uint32_t th_min = or_node ? th_pn : th_dn;
  uint32_t th_sum = or_node ? th_dn : th_pn;
  // 1+epsilon trick (Pawlewicz & Lew): stay in the best child until it is a
  // quarter worse than the second best, not just one worse; this cuts the
  // thrashing between siblings of similar value.
  uint64_t child_th_min = std::min<uint64_t>(th_min, uint64_t(s.second) + std::max<uint32_t>(1, s.second >> eps_shift));
  // The summed direction: the node stays below its threshold while the best
  // child stays below the threshold less the rest: its siblings' sum, or for a
  // drop the board moves' sum (the drops count by their largest). An infinite
  // threshold stays infinite: with the siblings' sum clamped just below PN_INF,
  // the threshold less it left the child one above its own value, and it
  // returned after every step, to be entered again down the same forced
  // stretch, so a long work could stall (docs/DFPN.md, "df-pn").
  uint64_t rest = s.best_drop ? s.sum : s.sum + s.drop_max - w_best;
  uint64_t child_th_sum = th_sum >= PN_INF ? PN_INF : std::min<uint64_t>(PN_INF, uint64_t(th_sum) - rest);
  return {uint32_t(or_node ? child_th_min : child_th_sum), uint32_t(or_node ? child_th_sum : child_th_min)};
}

}  // namespace usi_mate
