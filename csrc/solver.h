// The mate solver: df-pn+ (Nagai 2002) with proof/disproof hands, a superiority
// transposition table, path-aware repetition handling and the 1+epsilon trick,
// then the post-search (shortest mate, the mating line) and, on request, a
// certificate for "no mate".
//
// The Solver coordinates a search (after Stockfish's SearchManager): the
// table, the main thread's Worker and the helpers', the phases, progress
// reports and the result. The work is split by concept (docs/DFPN.md has the map):
//   solver.cpp      solve(): validation, phases, helpers, result
//   worker.h        one thread's search state (Worker)
//   dfpn.cpp        the MID loop and local expansion (children, initial pn/dn,
//                   delayed drops, finalize); kept in one translation unit so
//                   the compiler inlines the hot path
//   futility.cpp    futile interpositions (FutilityJudge)
//   post_search.cpp shortest mate and the answer's line (PostSearch)
//   line_reader.cpp the mating line read off the table (LineReader)
//   refine.cpp      the refinement walk over the proven tree (TreeRefiner)
//   certify.cpp     disproof certificates
// Limits and nested budgets live in SearchMonitor (monitor.h); the core never
// prints: progress goes through a callback.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "line_reader.h"
#include "post_search.h"
#include "refine.h"
#include "search_thread.h"
#include "search_types.h"
#include "worker.h"

namespace usi_mate {

class Solver {
  friend struct testing::Access;  // csrc/testing.h: the tests' hooks

 public:
  explicit Solver(uint64_t hash_mb = kDefaultHashMb);
  ~Solver();
  void resize(uint64_t hash_mb);
  // Search threads for one problem (1: this thread alone). The others share
  // the table and search the same root with other move orders (docs/THREADS.md);
  // the answer is this thread's, so verdicts never depend on the count. Set
  // only while no search runs; throws std::bad_alloc when a helper's memory
  // is not there (the count is then unchanged).
  void set_threads(int n);
  int threads() const { return int(helpers_.workers.size()) + 1; }
  // Empties the table: the next solve searches exactly as a new solver's would.
  void clear();
  // Blocks until the search ends. Thread-safe against stop() from another thread.
  SearchResult solve(const std::string& sfen, const SearchLimits& limits);
  SearchResult solve(Position& pos, const SearchLimits& limits);
  void stop() { stop_requested_.store(true, std::memory_order_relaxed); }
  // Clears a stop request. solve() does not, so that a stop() arriving between
  // arming a search and its start is not lost.
  void reset_stop() { stop_requested_.store(false, std::memory_order_relaxed); }
  bool stop_requested() const { return stop_requested_.load(std::memory_order_relaxed); }
  void set_progress(ProgressFn fn, void* ctx, uint64_t interval_ms) {
    progress_.fn = fn;
    progress_.ctx = ctx;
    progress_.interval_ms = interval_ms;
  }
  int hashfull() const { return tt_->hashfull(); }
  // The table's knowledge of a position, searched with the side to move
  // attacking (or defending, with and_root) in the last search's futility
  // mode: for tests and tools.
  TTResult probe(const Position& pos, bool and_root) const;

  // Why a position cannot be searched with `attacker` attacking ("" when it can).
  static std::string unsearchable(const Position& pos, Color attacker);

  // --- What the phases after the first proof (PostSearch) ask of the search ---
  // prove() at the root with the helper threads searching beside it
  // (HelperScope); the first thread to resolve the root ends the phase
  // (solver.cpp).
  NodeValue prove_root(uint64_t root_key, uint16_t budget, bool fresh);
  // The mate's length as known so far, for progress reports: the shortest mate
  // found, and the length below which none is possible (proven).
  void note_mate_length(uint16_t len) { progress_.mate_length = len; }
  void note_shortest_possible(uint16_t len) { progress_.shortest_possible = len; }
  // A progress report now; `line`: a line just read, sent with this report only
  // (SearchProgress::moves).
  void report_progress(const std::vector<Move>* line = nullptr);

 private:
  // The helper threads (Threads > 1): helper i has id i + 1, its own worker
  // on the shared table and its own copy of the root.
  struct Helpers {
    std::vector<std::unique_ptr<Worker>> workers;
    std::vector<std::unique_ptr<Position>> roots;
    std::vector<std::unique_ptr<SearchThread>> threads;
    std::atomic<bool> stop{false};
    std::atomic<bool> resolved{false};  // a helper has resolved the root in this phase (its result is in the table)
    uint64_t nodes = 0;                 // nodes of helper runs already joined, this solve
    std::string root_sfen;              // the root they copy
  };
  // Progress reports: where they go, and the bounds of the mate's length so far.
  struct Progress {
    ProgressFn fn = nullptr;
    void* ctx = nullptr;
    uint64_t interval_ms = 0;
    uint16_t mate_length = 0;        // shortest mate found so far (0: none)
    uint16_t shortest_possible = 0;  // no mate shorter than this is possible (proven)
    SearchProgress last{};           // the last report sent (its line not kept)
    bool sent = false;               // a report was sent in this search
  };
  // Helpers search the root with the same budget as the main thread while one
  // phase runs; the helpers' stop flag ends them.
  class HelperScope {
   public:
    HelperScope(Solver& s, uint16_t budget, bool fresh);
    ~HelperScope();
    HelperScope(const HelperScope&) = delete;
    HelperScope& operator=(const HelperScope&) = delete;

   private:
    Solver& s_;
  };
  // solve(); `root_shortcut` false searches the roots settled_at_root answers too
  // (tests compare the two).
  SearchResult run(Position& pos, const SearchLimits& limits, bool root_shortcut);
  // An attacker's root with no check (no mate), with a check that mates at once, or
  // (where three_plies_settle) with a mate in three plies, answered from the move
  // generator before any search machinery (table, helpers, line reading,
  // short_mates.h): a mate in one is the first mating check in generation order,
  // which is the move the search proves and reads first on a fresh table; a mate
  // in three the first check after which every reply is mated at once. True when
  // answered.
  bool settled_at_root(Position& pos, const SearchLimits& limits, SearchResult& result);
  static bool three_plies_settle(const SearchLimits& limits);
  static void on_tick(void* self);

  std::unique_ptr<TranspositionTable> tt_;
  Worker main_{tt_.get(), 0};
  LineReader reader_{main_};
  Helpers helpers_;
  Progress progress_;
  std::atomic<bool> stop_requested_{false};
  // The root of a solve given as text, kept between solves: a new Position costs a
  // bulk caller's mate-in-one more than its search (its state stack and a parse).
  Position root_;
};

}  // namespace usi_mate
