// The data of one node of the df-pn search: its children as cached between
// MID iterations (ChildNode, in a per-ply SearchFrame) and the values a MID
// call hands back to its parent (NodeValue). Also the length arithmetic of
// bounded searches ("is there a mate within `budget` plies?").
#pragma once

#include <cstdint>

#include "hand.h"
#include "mix.h"
#include "movegen.h"
#include "tt.h"

namespace usi_mate {

// One child of a node, cached in the node's frame between iterations.
struct ChildNode {
  Move move;
  uint32_t pn, dn;
  Hand hand;               // proof hand if pn == 0, disproof hand if dn == 0
  uint16_t mate_len;       // proven: mate length; disproven: shortest possible mate length
  uint8_t path_dependent;  // disproven only because of a repetition on the path
  uint8_t delayed;         // an interposing drop not expanded yet: kStandBy or kWaiting (delayed_drops.h)
  uint8_t futile;          // a futile interposition: proven, and its length does not count
};

// ChildNode::delayed: a drop on a square whose first drop is still in the
// search (delayed expansion), or one waiting for the other replies to be
// proven before its futility can be judged (composers' count).
constexpr uint8_t kStandBy = 1;
constexpr uint8_t kWaiting = 2;

// A ply's moves and children, ~14 KB: created once per new maximum depth and
// reused, so the search loop never allocates.
struct SearchFrame {
  uint16_t budget;  // mates longer than this many plies do not count at this node
  int waiting;      // drops waiting for their futility judgement
#ifdef USI_MATE_TRACE_PATH
  // The node's state as of its last pass through the MID loop, for Worker::dump_path.
  uint32_t trace_th_pn, trace_th_dn, trace_pn, trace_dn;
  int trace_best, trace_n;
  bool trace_or;
  uint64_t trace_passes, trace_nodes_at_entry;
#endif
  MoveList moves;
  ChildNode child[MAX_MOVES];
};

// Values a MID call returns to its parent.
struct NodeValue {
  uint32_t pn, dn;
  Hand hand;
  uint16_t mate_len;
  bool path_dependent;
};

// Initial proof number of a new AND node: its number of evasions, with drops
// to one square counted once. Seven drop interpositions on one square are
// usually refuted together, so counting them all would make far checks look
// seven times harder than they are.
inline uint32_t evasion_weight(const MoveList& moves) {
  uint32_t n = 0;
  Bitboard drop_squares;
  for (Move m : moves) {
    if (is_drop(m))
      drop_squares |= square_bb(move_to(m));
    else
      ++n;
  }
  return n + uint32_t(drop_squares.popcount());
}

// One ply more; LEN_INF and the unbounded budget stay where they are.
inline uint16_t add_len(uint16_t len) { return len >= BUDGET_NONE ? len : uint16_t(len + 1); }
inline uint16_t child_budget(uint16_t b) { return b >= BUDGET_NONE ? b : uint16_t(b - 1); }
// Repetition-table keys are per budget: a path-dependent "no mate within b" says nothing about b + 2.
inline uint64_t budget_salt(uint16_t b) { return b >= BUDGET_NONE ? 0 : mix64(b + 0x9e37ULL); }

}  // namespace usi_mate
