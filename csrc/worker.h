// One thread's df-pn search (after Stockfish's Worker): its position and path,
// its stacks, its repetition table, its futility judge, its budget and its
// counters. The main thread's worker and the helpers' share one transposition
// table; the Solver (solver.h) coordinates them. The line reader, the
// refinement walk and the post-search search with the main thread's worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "futility.h"
#include "monitor.h"
#include "movegen.h"
#include "node.h"
#include "position.h"
#include "proof_hand.h"
#include "repetition.h"
#include "search_types.h"
#include "tt.h"

namespace usi_mate {

namespace testing {
struct Access;
}

class Worker {
  friend class Solver;              // solver.cpp: starts solves and phases, reads the counters
  friend class PostSearch;          // post_search.cpp
  friend class LineReader;          // line_reader.cpp
  friend class FutilityJudge;       // futility.cpp
  friend class TreeRefiner;         // refine.cpp
  friend class CertificateBuilder;  // certify.cpp
  friend struct testing::Access;    // csrc/testing.h: the tests' hooks

 public:
  // A worker on `tt`; `id` 0 is the main thread, helpers take other move
  // orders by id (Order).
  Worker(TranspositionTable* tt, int id);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

 private:
  // Move-order diversity (helpers only): the 1+epsilon margin (a shift) and
  // which of equal children goes first. Threads that all searched alike would
  // only repeat each other's work through the shared table.
  struct Order {
    uint32_t eps_shift = 2;  // margin = second >> eps_shift (a shift: this is the hot loop)
    bool tie_last = false;
  };
  // What the search has seen so far: the root's numbers and depth (progress
  // reports), and whether a path reached max_ply (a "no mate" may rest on the cut).
  struct Seen {
    uint32_t root_pn = 1, root_dn = 1;
    int max_ply = 0;
    bool depth_cut = false;
  };

  // A helper's run on its copy of the root within `budget` (solver.cpp);
  // `fresh`: a new phase, whose memos start empty. When it resolves the root
  // into the table it sets `resolved`, which ends the main thread's phase.
  void help(Position& root, uint16_t budget, bool fresh, std::atomic<bool>* resolved);
  // The main thread's search gives way (returns, unresolved) because a helper
  // has resolved the root: only at the phase's own budget depth, so that a
  // sub-search inside it (a futility judgement) always ends on its own terms.
  bool yielding() const {
    return yield_.flag && yield_.flag->load(std::memory_order_relaxed) && monitor_.depth() == yield_.depth;
  }

  // dfpn.cpp
  NodeValue mid(int ply, uint32_t th_pn, uint32_t th_dn, uint64_t path_key, uint16_t budget);
  // mid() with infinite thresholds: runs until the node is resolved or the budget is spent.
  NodeValue prove(int ply, uint64_t path_key, uint16_t budget) { return mid(ply, PN_INF, PN_INF, path_key, budget); }
  NodeValue no_plies_left(int ply, bool or_node, uint64_t path_key);
  void expand(SearchFrame& f, int ply, bool or_node, uint64_t path_key, int& n);
  void init_child(ChildNode& c, int ply, bool or_node, uint64_t path_key, MoveList& scratch, uint16_t budget);
  void activate_next_drop(SearchFrame& f, int n, int proven, bool or_node, uint64_t path_key, int ply);
  bool resolve_waiting_drops(SearchFrame& f, int n, int ply, uint64_t path_key);
  void finalize(SearchFrame& f, int n, bool or_node, uint32_t pn, uint32_t dn, uint64_t path_key, uint32_t amount,
                NodeValue& out);
  SearchFrame& frame(int ply);
#ifdef USI_MATE_TRACE_PATH
  // Prints the path from the root to `ply` to stderr: each node's move being
  // searched, numbers, thresholds, passes and nodes (a diagnostic build: setup.py,
  // USI_MATE_TRACE_PATH=1; docs/BENCHMARKS.md, "Where the nodes go").
  void dump_path(int ply);
  static constexpr uint64_t kPathDumpNodes = uint64_t(1) << 28;
  uint64_t next_path_dump_ = kPathDumpNodes;
#endif
  uint64_t tt_key() const { return TranspositionTable::fix_key(pos_->board_key() ^ salt_); }
  Hand attacker_hand() const { return pos_->hand(attacker_); }

  TranspositionTable* tt_;
  RepetitionTable rep_table_;
  FutilityJudge futility_{*this};
  PathSet path_;
  SearchMonitor monitor_;
  std::vector<std::unique_ptr<SearchFrame>> frames_;
  Position* pos_ = nullptr;
  Color attacker_ = BLACK;
  uint64_t salt_ = 0;  // table keys of this search: its material and futility mode (solver.cpp)
  uint64_t nodes_ = 0;
  SearchLimits limits_;
  Seen seen_;
  Order order_;
  // Set by Solver::prove_root on the main thread while helpers run (null otherwise).
  struct Yield {  // (testing.h sets it too)
    const std::atomic<bool>* flag = nullptr;
    int depth = 0;
  };
  Yield yield_;
};

}  // namespace usi_mate
