// Delayed expansion of interposing drops (合駒の遅延展開, as in KomoringHeights),
// the rule on its own: which drops of an AND node take part in the search and
// which wait (dfpn.cpp asks it while expanding, and when a drop is proven or
// the other replies are).
//
// Against a distant check the defender may drop any of up to seven piece types
// on each square between. Those drops are usually refuted the same way, so only
// the first drop on each square takes part; the next one on that square stands
// by (kStandBy) until it is proven. The AND node is proven only when every drop
// has been, so this changes the order of work, never the verdict. Summing seven
// similar proof numbers would otherwise make far checks look seven times harder
// than they are. Under the composers' count in a bounded search, whether a drop
// is futile depends on the mate the other replies allow (futility.cpp), so there
// every drop waits (kWaiting) until those are proven.
#pragma once

#include "bitboard.h"
#include "node.h"

namespace usi_mate {

class DelayedDrops {
 public:
  // For one expansion; `drops_wait`: every drop waits for the other replies.
  explicit DelayedDrops(bool drops_wait) : drops_wait_(drops_wait) {}

  // Whether the reply `c` (its move set) is held back: then it is marked
  // waiting or standing by, with neutral numbers, and must not be initialised.
  // Replies are asked in order; the first drop on each square goes in.
  bool hold_back(ChildNode& c) {
    if (!is_drop(c.move)) return false;
    Bitboard to = square_bb(move_to(c.move));
    if (!drops_wait_ && !(seen_ & to)) {
      seen_ |= to;
      return false;
    }
    c.delayed = drops_wait_ ? kWaiting : kStandBy;
    c.pn = c.dn = 1;
    c.hand = 0;
    c.mate_len = 0;
    c.path_dependent = 0;
    c.futile = 0;
    return true;
  }

  // The drops waiting for a judgement among the first n children.
  static int count_waiting(const SearchFrame& f, int n) {
    int w = 0;
    for (int j = 0; j < n; ++j) w += f.child[j].delayed == kWaiting;
    return w;
  }

  // After the drop `proven` (a child index) is proven: the index of the child
  // that now stands for its square (a stand-by on it, to be initialised), or
  // -1 when none comes in: another drop there is still in the search, or none
  // stands by. `from`: where to look on from (after a stand-by let in was
  // proven at once, the next one).
  static int next_on_square(const SearchFrame& f, int n, int proven, int from = 0) {
    Square to = move_to(f.child[proven].move);
    if (from == 0)
      for (int j = 0; j < n; ++j) {
        const ChildNode& c = f.child[j];
        if (!c.delayed && c.pn != 0 && is_drop(c.move) && move_to(c.move) == to) return -1;  // still a stand-in
      }
    for (int j = from; j < n; ++j)
      if (f.child[j].delayed == kStandBy && move_to(f.child[j].move) == to) return j;
    return -1;
  }

  // The replies the waiting drops are judged against: the proven ones that are
  // not drops, with their mate lengths. Returns their count.
  static int judged_against(const SearchFrame& f, int n, Move* others, uint16_t* lens) {
    int k = 0;
    for (int i = 0; i < n; ++i) {
      const ChildNode& c = f.child[i];
      if (!is_drop(c.move) && c.pn == 0) {
        others[k] = c.move;
        lens[k++] = c.mate_len;
      }
    }
    return k;
  }

 private:
  bool drops_wait_;
  Bitboard seen_;  // squares with a drop in the search
};

}  // namespace usi_mate
