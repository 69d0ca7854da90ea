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
  friend struct testing::Access;  // csrc/testing.h: the tests' hooks

 public:
  // What the search has seen so far: the root's numbers and depth (progress
  // reports), and whether a path reached max_ply (a "no mate" may rest on the cut).
  struct Seen {
    uint32_t root_pn = 1, root_dn = 1;
    int max_ply = 0;
    bool depth_cut = false;
  };

  // A worker on `tt`; `id` 0 is the main thread, helpers take other move
  // orders by id (Order).
  Worker(TranspositionTable* tt, int id);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // --- A search's life (the Solver, the tests' hooks) ---
  // Starts a search on `pos` with `attacker` attacking: its limits, node count,
  // what it has seen and its clock (stopped by `stop`). The position stays the
  // caller's; finish() lets go of it.
  void start(Position& pos, Color attacker, const SearchLimits& limits, const std::atomic<bool>* stop);
  // The table keys of this problem (its material salt, with the futility mode's
  // own) and a fresh path and repetition table, with the root on the path:
  // after start(), before the first proof. Returns the root's key.
  uint64_t enter_root(uint64_t material_salt);
  // The root leaves the path and the position is let go of.
  void finish(uint64_t root_key);
  void finish() { pos_ = nullptr; }
  // A helper takes the main worker's problem for one phase: its limits,
  // attacker, table keys and futility mode, on a clock stopped by `stop`.
  void follow(const Worker& main, const std::atomic<bool>* stop);
  // A helper's run on its copy of the root within `budget` (solver.cpp);
  // `fresh`: a new phase, whose memos start empty. When it resolves the root
  // into the table it sets `resolved`, which ends the main thread's phase.
  void help(Position& root, uint16_t budget, bool fresh, std::atomic<bool>* resolved);
  // While set (a flag, at the monitor's current depth), the search gives way
  // when `flag` is raised (yielding); stop_yielding() clears it.
  void yield_on(const std::atomic<bool>* flag) { yield_ = {flag, monitor_.depth()}; }
  void stop_yielding() { yield_ = {}; }

  // --- Searching from the current position ---
  // Runs until the node at `ply` is resolved or the budget is spent.
  NodeValue prove(int ply, uint64_t path_key, uint16_t budget) { return mid(ply, PN_INF, PN_INF, path_key, budget); }
  // The MID loop itself, with thresholds.
  NodeValue mid(int ply, uint32_t th_pn, uint32_t th_dn, uint64_t path_key, uint16_t budget);
  // The table's knowledge of the current position within `budget` plies.
  TTResult probe_here(uint16_t budget = BUDGET_NONE) const { return tt_->probe(tt_key(), attacker_hand(), budget); }
  TTResult probe_here(uint16_t budget, bool own_estimates) const {
    return tt_->probe(tt_key(), attacker_hand(), budget, own_estimates);
  }
  // Whether a position (by full key) is on the current path (a repetition).
  bool on_path(uint64_t key) const { return path_.contains(key); }
  // The path of positions from the root, which ScopedMove extends.
  PathSet& path() { return path_; }
  // At most `nodes` more nodes for as long as the scope lives, within the
  // enclosing budget (SearchMonitor::nested).
  SearchMonitor::Scope budget_scope(uint64_t nodes) { return monitor_.nested(nodes_, nodes); }
  // The innermost budget is spent (checked now, or with the clock read now: poll).
  bool should_stop() { return monitor_.should_stop(nodes_); }
  bool poll() { return monitor_.poll(nodes_); }
  // One node of work besides the search's (a certificate's walk).
  void count_node() { ++nodes_; }
  // The node count set back (work that the result does not count as the search's).
  void set_nodes(uint64_t nodes) { nodes_ = nodes; }
  // Repetition results remembered by this search: forgotten, or asked.
  void forget_repetitions() { rep_table_.clear(); }
  const RepetitionTable& repetitions() const { return rep_table_; }
  // The root's numbers for progress reports, once settled.
  void note_root(uint32_t pn, uint32_t dn) {
    seen_.root_pn = pn;
    seen_.root_dn = dn;
  }

  // --- Reads ---
  Position& position() { return *pos_; }
  const Position& position() const { return *pos_; }
  Color attacker() const { return attacker_; }
  Hand attacker_hand() const { return pos_->hand(attacker_); }
  bool attacker_to_move() const { return pos_->side_to_move() == attacker_; }
  FutilityJudge& futility() { return futility_; }
  const FutilityJudge& futility() const { return futility_; }
  uint64_t nodes() const { return nodes_; }
  const SearchLimits& limits() const { return limits_; }
  const Seen& seen() const { return seen_; }
  SearchMonitor& monitor() { return monitor_; }
  const SearchMonitor& monitor() const { return monitor_; }
  // The table keys' salt: the problem's material and the futility mode (the
  // judge's scopes change it for their searches).
  uint64_t salt() const { return salt_; }
  void set_salt(uint64_t salt) { salt_ = salt; }

 private:
  // Move-order diversity (helpers only): the 1+epsilon margin (a shift) and
  // which of equal children goes first. Threads that all searched alike would
  // only repeat each other's work through the shared table.
  struct Order {
    uint32_t eps_shift = 2;  // margin = second >> eps_shift (a shift: this is the hot loop)
    bool tie_last = false;
  };
  // The main thread's search gives way (returns, unresolved) because a helper
  // has resolved the root: only at the phase's own budget depth, so that a
  // sub-search inside it (a futility judgement) always ends on its own terms.
  bool yielding() const {
    return yield_.flag && yield_.flag->load(std::memory_order_relaxed) && monitor_.depth() == yield_.depth;
  }

  // dfpn.cpp
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
  struct Yield {
    const std::atomic<bool>* flag = nullptr;
    int depth = 0;
  };
  Yield yield_;
};

}  // namespace usi_mate
