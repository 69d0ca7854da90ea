// The public contract of the mate search: what a caller asks (SearchLimits),
// what it hears while the search runs (SearchProgress) and what comes back
// (SearchResult, saying why the search ended). Plain data, no behaviour.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "types.h"

namespace usi_mate {

enum class MateStatus : int {
  Unknown = 0,  // no verdict: a limit, stop(), or a line that could not be rebuilt
  Mate = 1,     // a mate is proven; the result holds a mating line
  NoMate = 2,   // no mate exists (proven)
  Invalid = 3,  // the position cannot be searched (SearchResult::error says why)
};

// Why a search ended before its verdict (None: it reached one, or was invalid).
enum class StopReason : int {
  None = 0,
  NodeLimit = 1,    // SearchLimits::nodes_limit
  TimeLimit = 2,    // SearchLimits::time_limit_ms
  Stopped = 3,      // Solver::stop()
  DepthLimit = 4,   // a path reached SearchLimits::max_ply: a "no mate" could rest on the cut
  LengthLimit = 5,  // no mate within SearchLimits::max_length plies (a longer one may exist)
  LineBudget = 6,   // a mate is proven but its line could not be rebuilt within the limits
  Effort = 7,       // (SearchResult::length_stop) the length search spent its share of work
};

// The shortest-mate search's share of work (SearchLimits::min_length_effort):
// after the first proof it may spend min_length_share() nodes, then the answer
// is final, its length proven the shortest or not (docs/DFPN.md, "When the
// answer is final").
constexpr uint32_t kDefaultMinLengthEffort = 2;
constexpr uint64_t kMinLengthMinNodes = 1000000;
constexpr uint64_t kMinLengthKneeNodes = 2000000;
// `effort` times the first proof's nodes, its first kMinLengthKneeNodes counted
// 3/4 each and the rest 1/4 (a hard problem's answer does not wait twice its
// first proof again), and at least kMinLengthMinNodes (about half a second: a
// short problem gets room to prove its minimum). 0: no share.
constexpr uint64_t min_length_share(uint64_t first_nodes, uint32_t effort) {
  if (effort == 0) return 0;
  uint64_t head = first_nodes < kMinLengthKneeNodes ? first_nodes : kMinLengthKneeNodes;
  uint64_t share = (3 * head + (first_nodes - head)) * effort / 4;
  return share > kMinLengthMinNodes ? share : kMinLengthMinNodes;
}

// What to do after the first proof (KomoringHeights' PostSearchLevel).
enum class PostSearchLevel : int {
  None = 0,        // report the first proof's line
  UpperBound = 1,  // a line as long as the proven upper bound of the mate length
  MinLength = 2,   // keep searching until the shortest mate (longest defence) is proven
};
// Their names by value, as KomoringHeights spells them (the USI option's and the
// Python API's words: usi_mate._core.POST_SEARCH_LEVELS).
constexpr int kPostSearchLevelCount = 3;
constexpr const char* kPostSearchLevelNames[kPostSearchLevelCount] = {"None", "UpperBound", "MinLength"};

// Paths are cut at this many plies (SearchLimits::max_ply): a mate is at most
// kMaxPly - 1 plies long (the longest max_length the Python API accepts).
constexpr int kMaxPly = 4000;
// The transposition table of a Solver when none is asked for, in MB (~8 M
// entries of 32 bytes; usi_mate._core.DEFAULT_HASH_MB).
constexpr uint64_t kDefaultHashMb = 256;
// The Python API's default of SearchLimits::certify_nodes when a certificate is
// asked for, far above the certificates of the classics (docs/BENCHMARKS.md).
constexpr uint64_t kDefaultCertifyNodes = 2000000;

// Test hooks: set only by the tests' own extension (tests/usi_mate_testing.pyx,
// csrc/testing.h); the Python API never sets them, so a search from it runs
// with these defaults.
struct TestHooks {
  // A line read goes on with recorded lengths after visiting this many
  // positions (0: never), as it does past its deadline (line_reader.cpp).
  uint64_t line_read_positions = 0;
  // The shortest-mate search looks for shorter mates along its line from the
  // end up after a round of attempts at the root that settles nothing
  // (post_search.cpp, shorten_along_line); false asks only at the root.
  bool line_pass = true;
  // Passes of the refinement walk over the proven tree (refine.h) before the
  // length search; 0: none (for tests and measurements).
  int refine_passes = 4;
};

struct SearchLimits {
  // (Named as the Python request names them: limits, where a result's nodes and
  // time_ms are what the search spent.)
  uint64_t nodes_limit = 0;    // 0 = no limit
  uint64_t time_limit_ms = 0;  // 0 = no limit
  bool root_is_and_node_if_checked = false;
  int max_ply = kMaxPly;  // deeper paths are cut; a "no mate" that relied on a cut becomes unknown
  // Only mates of at most this many plies count (USI `go depth N`); 0 = any length.
  // "No mate within N" is not "no mate": it ends as Unknown with StopReason::LengthLimit.
  int max_length = 0;
  PostSearchLevel post_search = PostSearchLevel::MinLength;
  // MinLength's share of work, in times the first proof's nodes (weighted and
  // floored: min_length_share()); 0: no share, the search for a shorter mate goes on
  // until the minimum is proven or a limit or stop() ends it.
  uint32_t min_length_effort = kDefaultMinLengthEffort;
  // Futile interpositions (無駄合, see docs/FUTILE.md) are not counted as
  // resistance by the shortest-mate search; false counts every legal reply.
  bool ignore_futile_interpositions = true;
  // After a "no mate", rebuild a disproof certificate walking at most this
  // many positions, re-searched nodes included (0: none).
  uint64_t certify_nodes = 0;
  // Node cap of the first ask of every futility judgement (0: kFutilityNodeCap;
  // ~0: none, every judgement settled). A diagnostic: the Python API's
  // SearchRequest.futility_node_cap; a cap of 1 cuts every judgement that needs
  // a search short.
  uint64_t futility_node_cap = 0;

  // Test hooks (TestHooks): set only by csrc/testing.h.
  TestHooks test;

  // The composers' count applies: futile interpositions left out of the shortest
  // mate (only the length search judges them; a first proof counts every reply).
  bool composers_count() const { return ignore_futile_interpositions && post_search == PostSearchLevel::MinLength; }
};

struct SearchProgress {
  uint64_t nodes;
  uint64_t time_ms;
  int hashfull;
  // The root's proof and disproof numbers in the search running now.
  uint32_t proof_number, disproof_number;
  int max_ply;  // the deepest ply reached
  // The shortest-mate post-search so far: the shortest mate found (0: none
  // yet) and the length below which no mate exists (proven; 0: not known).
  uint16_t mate_length, shortest_possible;
  // The line of the shortest mate found so far, in the one report that
  // follows its read (nullptr in every other report).
  const std::vector<Move>* moves;
};

using ProgressFn = void (*)(void* ctx, const SearchProgress& progress);

// An explicit disproof tree rebuilt after a "no mate" (SearchLimits::certify_nodes):
// for every defender position of the tree, the reply that refutes it. A
// checker that knows nothing of the table (usi_mate.certify) replays it: at
// attacker nodes every check, at defender nodes the recorded reply, down to
// positions with no check or repetitions of positions on the path.
struct DisproofCertificate {
  enum Status : int { None = 0, Built = 1, Incomplete = 2, Failed = 3 };
  Status status = None;
  std::vector<std::pair<std::string, Move>> refutations;  // defender position (SFEN) -> reply
  uint64_t nodes = 0;                                     // positions walked plus nodes re-searched
  std::string failed_at;                                  // Failed: a defender position with no refutation found
  std::vector<Move> failed_path;                          // Failed: the moves from the root to it
};

// The refinement walk's work over the proven tree (TreeRefiner, refine.h).
struct RefineStats {
  uint64_t positions = 0;  // positions walked (memo misses), all passes
  uint64_t nodes = 0;      // search nodes spent by the walk (tiny searches, re-proofs, judgements)
  int passes = 0;          // passes completed
  uint64_t tiny_nodes = 0, reprove_nodes = 0, judge_nodes = 0;  // of which: tiny searches, re-proofs, futility
  uint64_t along_nodes = 0;                                     // and questions along the line
};

struct SearchResult {
  MateStatus status = MateStatus::Unknown;
  StopReason stop_reason = StopReason::None;
  std::vector<Move> moves;  // the mating line (attacker and defender moves)
  uint64_t nodes = 0;       // every node of the search, line rebuild included
  uint64_t line_nodes = 0;  // of which the line rebuild after the proof
  uint64_t time_ms = 0;
  int hashfull = 0;
  int max_ply = 0;    // the deepest ply reached (SearchLimits::max_ply is the cut)
  std::string error;  // Invalid: why the position cannot be searched; else a note
  // No shorter mate exists (PostSearchLevel::MinLength finished): the proven
  // shortest mate under the longest defence, in plies (0: not proven). The
  // line (moves) follows the composers' choices among defences and can be
  // shorter (a longer defence that leaves the attacker spare pieces).
  int min_length = 0;
  // No mate shorter than this is proven (0: none beyond the trivial); equals
  // min_length when that is proven.
  int shortest_possible = 0;
  // Why the search for a shorter mate ended before proving the minimum:
  // Effort (its share of work), NodeLimit, TimeLimit or Stopped; None when
  // the minimum is proven or no such search ran (PostSearchLevel None, UpperBound).
  StopReason length_stop = StopReason::None;
  DisproofCertificate certificate;  // filled for "no mate" when SearchLimits::certify_nodes > 0
  RefineStats refine;               // the refinement walk, when MinLength ran one
};

}  // namespace usi_mate
