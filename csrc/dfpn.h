// df-pn+ mate search (Nagai 2002) with proof/disproof hands, a superiority
// transposition table, path-aware repetition handling and the 1+epsilon trick.
//
// OR nodes (attacker to move) expand check_moves, AND nodes (defender, in
// check) expand evasions. The search is a recursive MID with thresholds; each
// ply has a preallocated frame (moves and per-child pn/dn), so the search loop
// never allocates. The core never prints: progress goes through a callback.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "movegen.h"
#include "position.h"
#include "proof_hand.h"
#include "repetition.h"
#include "tt.h"

namespace usi_mate {

enum class MateStatus : int { Unknown = 0, Mate = 1, NoMate = 2 };

// What to do after the first proof (KomoringHeights' PostSearchLevel).
enum class PostSearchLevel : int {
  None = 0,        // report the first proof's line
  UpperBound = 1,  // a line as long as the proven upper bound of the mate length
  MinLength = 2,   // keep searching until the shortest mate (longest defence) is proven
};

struct SearchLimits {
  uint64_t nodes = 0;      // 0 = no limit
  uint64_t time_ms = 0;    // 0 = no limit
  bool root_is_and_node_if_checked = false;
  int max_ply = 4000;      // deeper paths are cut; a "no mate" that relied on a cut becomes unknown
  PostSearchLevel post_search = PostSearchLevel::MinLength;
  // Futile interpositions (無駄合, see docs/FUTILE.md) are not counted as
  // resistance by the shortest-mate search; false counts every legal reply.
  bool ignore_futile_interpositions = true;
  // After a "no mate", rebuild a disproof certificate walking at most this
  // many positions (0: none).
  uint64_t certify_nodes = 0;
};

struct SearchProgress {
  uint64_t nodes;
  uint64_t time_ms;
  int hashfull;
  uint32_t root_pn, root_dn;
  int max_ply_reached;
};

using ProgressFn = void (*)(void* ctx, const SearchProgress& progress);

// An explicit disproof tree rebuilt after a "no mate" (SearchLimits::certify):
// for every defender position of the tree, the reply that refutes it. A
// checker that knows nothing of the table (usi_mate.certify) replays it: at
// attacker nodes every check, at defender nodes the recorded reply, down to
// positions with no check or repetitions of positions on the path.
struct DisproofCertificate {
  enum Status : int { None = 0, Built = 1, Incomplete = 2, Failed = 3 };
  Status status = None;
  std::vector<std::pair<std::string, Move>> refutations;  // defender position (SFEN) -> reply
  uint64_t nodes = 0;             // positions walked
  std::string failed_at;          // Failed: a defender position with no refutation found
  std::vector<Move> failed_path;  // Failed: the moves from the root to it
};

struct SearchResult {
  MateStatus status = MateStatus::Unknown;
  std::vector<Move> pv;      // the mating line (attacker and defender moves)
  uint64_t nodes = 0;
  uint64_t time_ms = 0;
  int hashfull = 0;
  int max_ply_reached = 0;
  std::string error;         // set when the position cannot be searched
  bool min_length_proven = false;  // no shorter mate exists (PostSearchLevel::MinLength finished)
  DisproofCertificate certificate;  // filled for "no mate" when SearchLimits::certify_nodes > 0
};

// One child of a node, cached in the node's frame between iterations.
struct ChildNode {
  Move move;
  uint32_t pn, dn;
  Hand hand;          // proof hand if pn == 0, disproof hand if dn == 0
  uint16_t mate_len;  // proven: mate length; disproven: shortest possible mate length
  uint8_t path_dependent;  // disproven only because of a repetition on the path
  uint8_t delayed;         // an interposing drop not expanded yet (see Solver::expand)
  uint8_t futile;          // a futile interposition: proven, and its length does not count
};

struct SearchFrame {
  uint16_t budget;  // mates longer than this many plies do not count at this node
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

// Futility decisions of one solve() call, so that every question about the same
// drop gets the same answer: the length search and the line extraction must
// agree, and a capped sub-search could otherwise say "not futile" once and,
// after the table learnt more, "futile" later. Direct-mapped, 2^16 entries; a
// new generation (one per solve) forgets everything in O(1).
class FutilityMemo {
 public:
  FutilityMemo() : slots_(kSize) {}
  void clear() { generation_ = (generation_ + 0x9e3779b97f4a7c15ULL) | 1; }
  // 1 futile, 0 not futile, -1 not known.
  int get(uint64_t key, Hand* hand) const {
    const Slot& s = slots_[index(key)];
    if (s.key != (key ^ generation_)) return -1;
    *hand = s.hand;
    return s.futile;
  }
  void put(uint64_t key, bool futile, Hand hand) {
    Slot& s = slots_[index(key)];
    s.key = key ^ generation_;
    s.futile = futile;
    s.hand = hand;
  }

 private:
  static constexpr uint32_t kSize = 1u << 16;
  uint32_t index(uint64_t key) const { return uint32_t((key ^ generation_) >> 32) & (kSize - 1); }
  struct Slot { uint64_t key = 0; Hand hand = 0; int futile = 0; };
  std::vector<Slot> slots_;
  uint64_t generation_ = 1;
};

class Solver {
 public:
  explicit Solver(uint64_t hash_mb = 256);
  void resize(uint64_t hash_mb);
  void clear();
  // Blocks until the search ends. Thread-safe against stop() from another thread.
  SearchResult solve(const std::string& sfen, const SearchLimits& limits);
  SearchResult solve(Position& pos, const SearchLimits& limits);
  void stop() { stop_requested_.store(true, std::memory_order_relaxed); }
  // Clears a stop request. solve() does not, so that a stop() arriving between
  // arming a search and its start is not lost.
  void reset_stop() { stop_requested_.store(false, std::memory_order_relaxed); }
  void set_progress(ProgressFn fn, void* ctx, uint64_t interval_ms) {
    progress_fn_ = fn; progress_ctx_ = ctx; progress_interval_ms_ = interval_ms;
  }
  int hashfull() const { return tt_.hashfull(); }
  // The table's knowledge of a position, searched with the side to move
  // attacking (or defending, with and_root) in the last search's futility
  // mode: for tests and tools.
  TTResult probe(const Position& pos, bool and_root) const;
  uint64_t hash_bytes() const { return tt_.size_bytes(); }

 private:
  NodeValue mid(int ply, uint32_t th_pn, uint32_t th_dn, uint64_t path_key, uint16_t budget);
  void expand(SearchFrame& f, int ply, bool or_node, uint64_t path_key, int& n);
  void init_child(ChildNode& c, int ply, bool or_node, uint64_t path_key, MoveList& scratch, uint16_t budget);
  void activate_next_drop(SearchFrame& f, int n, int proven, bool or_node, uint64_t path_key, int ply);
  void finalize(SearchFrame& f, int n, bool or_node, uint32_t pn, uint32_t dn, uint64_t path_key,
                uint32_t amount, NodeValue& out);
  SearchFrame& frame(int ply);
  uint64_t tt_key() const { return TranspositionTable::fix_key(pos_->board_key() ^ salt_); }
  Hand attacker_hand() const { return pos_->hand(attacker_); }
  bool should_stop();
  bool extract_line(int ply, uint64_t path_key, uint16_t budget, bool exact, bool tie_break,
                    std::vector<Move>& line);
  bool prove_here(int ply, uint64_t path_key, uint16_t budget);
  int decide_no_mate_within(int ply, uint64_t path_key, uint16_t budget);
  bool is_futile_drop(int ply, uint64_t path_key, Move drop, Hand* proof_hand);
  bool only_futile_evasions(int ply, uint64_t path_key, const MoveList& evasions, Hand* proof_union);
  void report_progress(uint32_t pn, uint32_t dn);
  struct CertifyWork;
  int certify_or(int ply, uint64_t path_key, CertifyWork& w);
  int certify_and(int ply, uint64_t path_key, CertifyWork& w);
  void certify_no_mate(uint64_t root_key, DisproofCertificate& out);

  TranspositionTable tt_;
  RepetitionTable rep_table_;
  FutilityMemo futility_memo_;
  PathSet path_;
  std::vector<std::unique_ptr<SearchFrame>> frames_;
  Position* pos_ = nullptr;
  Color attacker_ = BLACK;
  uint64_t salt_ = 0;
  uint64_t nodes_ = 0;
  SearchLimits limits_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_report_;
  std::atomic<bool> stop_requested_{false};
  bool stopped_ = false;
  bool depth_cut_ = false;
  bool extracting_ = false;
  bool extract_honor_stop_ = false;  // the exact line gives way to stop and the time limit
  bool futile_mode_ = false;
  uint64_t nested_node_limit_ = UINT64_MAX;  // node cap of the innermost futility sub-search  // futility checks on in bounded searches and line extraction
  uint64_t extract_node_budget_ = 0;
  int max_ply_reached_ = 0;
  ProgressFn progress_fn_ = nullptr;
  void* progress_ctx_ = nullptr;
  uint64_t progress_interval_ms_ = 0;
  uint32_t root_pn_ = 1, root_dn_ = 1;
};

}  // namespace usi_mate
