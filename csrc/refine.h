// The refinement walk over the proven tree (after shtsume's make_tree; docs/DFPN.md,
// "The refinement walk"): on long lines, the first step of the shortest-mate
// search, which finds shorter mates near the proven tree for a small share of the
// first proof's work.
//
// The first proof leaves a mating tree in the table whose attacker moves are
// merely the first that df-pn proved. The walk goes over that tree depth-first:
// at each attacker node it gives every check the table knows nothing of (and
// whose defender has fewer than a handful of replies) a tiny unbounded search,
// ranks the proven checks by the length of their own walked subtree (the
// table's recorded length until walked), walks the best, and repeats until the
// best one has been walked; at each defender node it walks the replies that
// count (a futile interposition does not, under the composers' count) longest
// recorded first, and not one whose recorded mate is no longer than a line
// already walked there. The longest defence is the node's value. A shorter
// mate found deep in the tree reaches the root through the values on the way
// back: no search from the root is needed for it.
//
// Between passes, every other check at each attacker node of the line gets a
// small unbounded search (ask_along_line); the next pass walks what it proved.
// Values live in the walk's own memo (by position, so each position is walked
// once a pass), never in the table: the table's lengths feed the futility
// judgements of the bounded searches that follow. Along the chosen moves the
// values strictly decrease, so the chosen moves form an acyclic mating tree and
// the line read along them is a valid mate of the root's value.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "movegen.h"
#include "search_types.h"
#include "types.h"

namespace usi_mate {

class Worker;

class TreeRefiner {
 public:
  // What the walk makes of a position.
  struct Value {
    // The line read along the chosen moves: a proven upper bound of the mate
    // under the longest defence (a defence not walked has a recorded mate no
    // longer than a walked one).
    uint16_t len = 0;
    int spare = 0;          // the attacker's pieces in hand at the line's end (駒余り)
    Move move = MOVE_NONE;  // attacker node: the chosen check; defender node: the defence taken
  };
  using Stats = RefineStats;  // (search_types.h: the result carries it)

  explicit TreeRefiner(Worker& worker);
  ~TreeRefiner();
  TreeRefiner(const TreeRefiner&) = delete;
  TreeRefiner& operator=(const TreeRefiner&) = delete;

  // Walks the proven tree from the root (the worker's current position, ply 0)
  // in up to `passes` passes, within the worker's current budget. True when a
  // pass completed: root() and line() then hold its result.
  bool run(uint64_t root_key, int passes);
  const Value& root() const { return root_; }
  // The line along the chosen moves of the last completed pass.
  const std::vector<Move>& line() const { return line_; }
  const Stats& stats() const { return stats_; }

 private:
  struct Memo;
  struct CheckCand;  // a proven check at an attacker node
  struct Reply;      // a defence at a defender node
  bool walk(int ply, uint64_t path_key, Value& out);
  bool walk_or(int ply, uint64_t path_key, Value& out);
  bool proven_checks(int ply, uint64_t path_key, std::vector<CheckCand>& cands);
  static int best_check(const std::vector<CheckCand>& cands);
  bool walk_and(int ply, uint64_t path_key, Value& out);
  bool proven_replies(int ply, uint64_t path_key, std::vector<Reply>& replies);
  bool walk_replies(int ply, uint64_t path_key, std::vector<Reply>& replies, bool drops, const uint8_t* futile,
                    uint16_t& longest);
  bool judge_drops(int ply, uint64_t path_key, const std::vector<Reply>& replies, uint16_t longest, uint8_t* futile);
  void take_longest_defence(const std::vector<Reply>& replies, const uint8_t* futile, Value& out) const;
  // A proof of the current position in the table (proving it again, capped, when it was lost).
  bool ensure_proven(int ply, uint64_t path_key);
  bool read_line();
  bool ask_along_line(uint64_t root_key);

  Worker& w_;
  std::unique_ptr<Memo> memo_;
  uint8_t pass_ = 0;
  Value root_;
  std::vector<Move> line_;
  Stats stats_;
};

}  // namespace usi_mate
