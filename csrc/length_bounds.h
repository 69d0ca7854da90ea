// The length search's arithmetic, apart from its searches (post_search.cpp):
// what is proven of the shortest mate's length, and which budget to ask next.
// A mate has the parity of the root (an attacker's root: odd), so budgets keep
// the parity of the first proof's length.
#pragma once

#include <algorithm>
#include <cstdint>

namespace usi_mate {

struct LengthBounds {
  uint16_t best;  // a mate within best plies is proven
  int lo;         // no mate within lo plies is proven (-1 or -2: nothing yet)

  // After a mate of `len` plies: nothing below it is proven yet.
  static LengthBounds after_mate(uint16_t len) { return {len, (len % 2) ? -1 : -2}; }
  // best is the shortest mate: no budget of its parity lies between lo and best.
  bool settled() const { return int(best) - 2 <= lo; }
  // The first question of a round: one step below the best mate (composed
  // problems are usually found within a few plies of their length).
  int step_down() const { return int(best) - 2; }
  // The round's second question: the budget halfway between lo and best - 2
  // (both excluded: lo is settled, best - 2 was just asked), rounded up; -1
  // when there is none.
  int halfway() const {
    if (int(best) - 4 <= lo) return -1;
    int candidates = (int(best) - 4 - lo) / 2;  // budgets lo + 2 .. best - 4
    return lo + 2 * ((candidates + 1) / 2);
  }
  // The answers: a mate of `len` plies (within the budget asked), or none within `budget`.
  void mate_found(uint16_t len) { best = std::min(best, len); }
  void none_within(int budget) { lo = std::max(lo, budget); }
  // The shortest mate possible by what is proven (lo + 2).
  int proven_lower() const { return lo + 2; }
};

}  // namespace usi_mate
