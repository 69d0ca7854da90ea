// The mate solver: df-pn+ (Nagai 2002) with proof/disproof hands, a superiority
// transposition table, path-aware repetition handling and the 1+epsilon trick,
// then the post-search (shortest mate, the mating line) and, on request, a
// certificate for "no mate".
//
// One class, its work split by concept (docs/DFPN.md has the map):
//   solver.cpp      solve(): validation, phases, result
//   dfpn.cpp        the MID loop and local expansion (children, initial pn/dn,
//                   delayed drops, finalize); kept in one translation unit so
//                   the compiler inlines the hot path
//   futility.cpp    futile interpositions (FutilityJudge, its own class)
//   post_search.cpp shortest mate and the answer's line (PostSearch, its own class)
//   line_reader.cpp the mating line read off the table (LineReader, its own class)
//   certify.cpp     disproof certificates
// Limits and nested budgets live in SearchMonitor (monitor.h); the core never
// prints: progress goes through a callback.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "futility.h"
#include "line_reader.h"
#include "monitor.h"
#include "movegen.h"
#include "node.h"
#include "position.h"
#include "post_search.h"
#include "proof_hand.h"
#include "refine.h"
#include "repetition.h"
#include "search_thread.h"
#include "search_types.h"
#include "tt.h"

namespace usi_mate {

class Solver {
  friend class TreeRefiner;    // refine.cpp: the walk searches with the solver's table and position
  friend class LineReader;     // line_reader.cpp: reads with the solver's table and position
  friend class PostSearch;     // post_search.cpp: the phases after the first proof
  friend class FutilityJudge;  // futility.cpp: judges with sub-searches on the solver's table

 public:
  explicit Solver(uint64_t hash_mb = 256);
  ~Solver();
  void resize(uint64_t hash_mb);
  // Search threads for one problem (1: this thread alone). The others share
  // the table and search the same root with other move orders (docs/THREADS.md);
  // the answer is this thread's, so verdicts never depend on the count. Set
  // only while no search runs; throws std::bad_alloc when a helper's memory
  // is not there (the count is then unchanged).
  void set_threads(int n);
  int threads() const { return int(helpers_.size()) + 1; }
  // Empties the table: the next solve searches exactly as a new solver's would.
  void clear();
  // Blocks until the search ends. Thread-safe against stop() from another thread.
  SearchResult solve(const std::string& sfen, const SearchLimits& limits);
  SearchResult solve(Position& pos, const SearchLimits& limits);
  void stop() { stop_requested_.store(true, std::memory_order_relaxed); }
  // Clears a stop request. solve() does not, so that a stop() arriving between
  // arming a search and its start is not lost.
  void reset_stop() { stop_requested_.store(false, std::memory_order_relaxed); }
  void set_progress(ProgressFn fn, void* ctx, uint64_t interval_ms) {
    progress_fn_ = fn;
    progress_ctx_ = ctx;
    progress_interval_ms_ = interval_ms;
  }
  int hashfull() const { return tt_->hashfull(); }
  // The table's knowledge of a position, searched with the side to move
  // attacking (or defending, with and_root) in the last search's futility
  // mode: for tests and tools.
  TTResult probe(const Position& pos, bool and_root) const;
  uint64_t hash_bytes() const { return tt_->size_bytes(); }
  // The last solve's refinement walk (refine.h): for tests and tools.
  const TreeRefiner::Stats& refine_stats() const { return refine_stats_; }

  // Why a position cannot be searched with `attacker` attacking ("" when it can).
  static std::string unsearchable(const Position& pos, Color attacker);

 private:
  // A helper thread's solver: the shared table, its own everything else.
  Solver(TranspositionTable* shared, int id);
  // solver.cpp: helpers search the root with the same budget as this thread
  // while one phase runs; the helpers' stop flag ends them.
  class HelperScope {
   public:
    HelperScope(Solver& s, uint16_t budget, bool fresh);
    ~HelperScope();
    HelperScope(const HelperScope&) = delete;
    HelperScope& operator=(const HelperScope&) = delete;

   private:
    Solver& s_;
  };
  void help(uint16_t budget, bool fresh);
  // After the table is emptied (clear, resize): what earlier solves left
  // besides it, so that the next solve is a new solver's.
  void forget_solves();

  // dfpn.cpp
  NodeValue mid(int ply, uint32_t th_pn, uint32_t th_dn, uint64_t path_key, uint16_t budget);
  // mid() with infinite thresholds: runs until the node is resolved or the budget is spent.
  NodeValue prove(int ply, uint64_t path_key, uint16_t budget) { return mid(ply, PN_INF, PN_INF, path_key, budget); }
  void expand(SearchFrame& f, int ply, bool or_node, uint64_t path_key, int& n);
  void init_child(ChildNode& c, int ply, bool or_node, uint64_t path_key, MoveList& scratch, uint16_t budget);
  void activate_next_drop(SearchFrame& f, int n, int proven, bool or_node, uint64_t path_key, int ply);
  bool resolve_waiting_drops(SearchFrame& f, int n, int ply, uint64_t path_key);
  void finalize(SearchFrame& f, int n, bool or_node, uint32_t pn, uint32_t dn, uint64_t path_key, uint32_t amount,
                NodeValue& out);
  SearchFrame& frame(int ply);
  uint64_t tt_key() const { return TranspositionTable::fix_key(pos_->board_key() ^ salt_); }
  Hand attacker_hand() const { return pos_->hand(attacker_); }

  // post_search.cpp
  // prove() at the root with the helper threads searching beside it (HelperScope).
  NodeValue prove_root(uint64_t root_key, uint16_t budget, bool fresh) {
    HelperScope helpers(*this, budget, fresh);
    return prove(0, root_key, budget);
  }
  bool rebuild_line(uint64_t root_key, uint16_t budget, bool exact, bool tie_break, std::vector<Move>& line,
                    bool* cut_short = nullptr, uint16_t* tree_len = nullptr);

  // certify.cpp
  struct CertifyWork;
  int certify_or(int ply, uint64_t path_key, CertifyWork& w);
  int certify_and(int ply, uint64_t path_key, CertifyWork& w);
  void certify_no_mate(uint64_t root_key, DisproofCertificate& out);

  // solver.cpp
  static void on_tick(void* self);
  // `line`: a line just read, sent with this report only (SearchProgress::line).
  void report_progress(const std::vector<Move>* line = nullptr);

  std::unique_ptr<TranspositionTable> own_tt_;  // null in helpers
  TranspositionTable* tt_;
  RepetitionTable rep_table_;
  FutilityJudge futility_{*this};
  PathSet path_;
  SearchMonitor monitor_;
  std::vector<std::unique_ptr<SearchFrame>> frames_;
  LineReader reader_{*this};
  Position* pos_ = nullptr;
  Color attacker_ = BLACK;
  uint64_t salt_ = 0;
  uint64_t nodes_ = 0;
  SearchLimits limits_;
  std::atomic<bool> stop_requested_{false};
  TreeRefiner::Stats refine_stats_;  // the last solve's refinement walk
  bool depth_cut_ = false;           // some path reached max_ply: a "no mate" may rest on the cut
  int max_ply_reached_ = 0;
  ProgressFn progress_fn_ = nullptr;
  void* progress_ctx_ = nullptr;
  uint64_t progress_interval_ms_ = 0;
  uint32_t root_pn_ = 1, root_dn_ = 1;
  uint16_t mate_len_upper_ = 0;  // shortest mate found so far (0: none), for progress reports
  uint16_t mate_len_lower_ = 0;  // no mate shorter than this is possible (proven)

  // Threads > 1. helpers_[i] has id i + 1; each has a copy of the root and of
  // the main solver's settings for the solve (attacker, salt, limits).
  std::vector<std::unique_ptr<Solver>> helpers_;
  std::vector<std::unique_ptr<SearchThread>> helper_threads_;
  std::atomic<bool> helpers_stop_{false};
  uint64_t helper_nodes_ = 0;  // nodes of helper runs already joined, this solve
  std::string root_sfen_;      // the root, for the helpers (main solver)
  Position root_copy_;         // a helper's root
  // Move-order diversity (helpers only): the 1+epsilon margin (a shift) and which of
  // equal children goes first. Threads that all searched alike would only
  // repeat each other's work through the shared table.
  int id_ = 0;
  uint32_t eps_shift_ = 2;  // margin = second >> eps_shift_ (a shift: this is the hot loop)
  bool tie_last_ = false;
};

}  // namespace usi_mate
