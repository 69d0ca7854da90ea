// Testing hooks: the core's small structures and rules with plain types (hands as
// counts P L N S B R G), so unit tests can check each concept on its own
// (tests/test_tt.py, test_hand.py, test_proof_hand.py, test_repetition.py,
// test_futility.py), and solves with the SearchLimits fields that only tests set
// (line_read_positions, line_pass: tests/test_answers.py). Nothing here is used by
// the search, and the usi_mate package does not include it: only the tests' own
// extension (tests/usi_mate_testing.pyx, built by tests/hooks.py) does.
#pragma once

#include <string>
#include <vector>

#include "api.h"
#include "futility.h"
#include "hand.h"
#include "proof_hand.h"
#include "repetition.h"
#include "solver.h"
#include "tt.h"

namespace usi_mate {
namespace testing {

inline Hand hand_from_counts(const std::vector<int>& counts) {
  Hand h = 0;
  for (int pt = PAWN; pt < KING; ++pt) h = hand_set(h, PieceType(pt), counts.at(pt - 1));
  return h;
}
inline std::vector<int> hand_to_counts(Hand h) {
  std::vector<int> out;
  for (int pt = PAWN; pt < KING; ++pt) out.push_back(hand_count(h, PieceType(pt)));
  return out;
}

inline bool hand_superior_or_equal(const std::vector<int>& a, const std::vector<int>& b) {
  return hand_is_superior_or_equal(hand_from_counts(a), hand_from_counts(b));
}
inline std::vector<int> hand_meet(const std::vector<int>& a, const std::vector<int>& b) {
  return hand_to_counts(hand_min(hand_from_counts(a), hand_from_counts(b)));
}
inline std::vector<int> hand_join(const std::vector<int>& a, const std::vector<int>& b) {
  return hand_to_counts(hand_max(hand_from_counts(a), hand_from_counts(b)));
}

// Proof-hand rules on a position (the attacker is the side to move at OR nodes,
// the side not to move at AND nodes).
inline std::vector<int> hand_before(const Position& pos, const std::string& usi, const std::vector<int>& after) {
  Move m = api::parse_legal_move(pos, usi);
  Piece captured = is_drop(m) ? NO_PIECE : pos.piece_on(move_to(m));
  return hand_to_counts(hand_before_move(hand_from_counts(after), m, captured));
}
inline std::vector<int> and_proof_hand(const Position& pos, const std::vector<int>& children_union) {
  return hand_to_counts(and_node_proof_hand(pos, ~pos.side_to_move(), hand_from_counts(children_union)));
}
inline std::vector<int> or_disproof_hand(const Position& pos, const std::vector<int>& children_meet) {
  return hand_to_counts(or_node_disproof_hand(pos, pos.side_to_move(), hand_from_counts(children_meet)));
}
// The AND node pos refuted by `refutation`, whose child has disproof hand `child`.
inline std::vector<int> and_disproof_hand(const Position& pos, const std::string& refutation,
                                          const std::vector<int>& child) {
  return hand_to_counts(and_node_disproof_hand(pos, ~pos.side_to_move(), hand_from_counts(child),
                                               api::parse_legal_move(pos, refutation)));
}

struct ProbeResult {
  uint32_t pn = 0, dn = 0;
  std::vector<int> hand;
  uint16_t mate_len = 0;
  uint32_t amount = 0;
  bool found = false;
};

class Table {
 public:
  explicit Table(uint64_t mb) { tt_.resize(mb); }
  void store(uint64_t key, const std::vector<int>& hand, uint32_t pn, uint32_t dn, uint16_t len, uint32_t amount) {
    tt_.store(TranspositionTable::fix_key(key), hand_from_counts(hand), pn, dn, len, amount);
  }
  ProbeResult probe(uint64_t key, const std::vector<int>& hand, uint16_t budget, bool own_budget_only) const {
    TTResult r = tt_.probe(TranspositionTable::fix_key(key), hand_from_counts(hand), budget, own_budget_only);
    return {r.pn, r.dn, hand_to_counts(r.hand), r.mate_len, r.amount, r.found};
  }
  void new_search() { tt_.new_search(); }
  void clear() { tt_.clear(); }
  int hashfull() const { return tt_.hashfull(); }

 private:
  TranspositionTable tt_;
};

// A solve within `limits` on a fresh table of hash_mb MB.
// MinLength without a share of work (min_length_effort 0): these hooks test
// the length search's proofs, which run until the minimum or the node limit.
// (Solves with a futility cap go through the Python API:
// SearchRequest.futility_node_cap.)
inline SearchResult solve_fresh(const std::string& sfen, SearchLimits limits, uint64_t hash_mb) {
  Solver solver(hash_mb);
  limits.min_length_effort = 0;
  return solver.solve(sfen, limits);
}

// The status (MateStatus) and the line in USI.
struct LineSolve {
  int status = 0;
  std::vector<std::string> pv;
};

// A solve whose line reads go on recorded lengths after `read_positions`
// positions (SearchLimits::line_read_positions; 0: never).
inline LineSolve solve_with_line_cut(const std::string& sfen, uint64_t nodes, int post_search, uint64_t read_positions,
                                     uint64_t hash_mb) {
  SearchLimits limits;
  limits.nodes = nodes;
  limits.post_search = PostSearchLevel(post_search);
  limits.line_read_positions = read_positions;
  SearchResult r = solve_fresh(sfen, limits, hash_mb);
  return {int(r.status), api::to_usi(r.pv)};
}

// A MinLength solve within `nodes`, with or without the search for shorter
// mates along the line from its end up (SearchLimits::line_pass).
inline LineSolve solve_with_line_pass(const std::string& sfen, uint64_t nodes, bool line_pass, uint64_t hash_mb) {
  SearchLimits limits;
  limits.nodes = nodes;
  limits.line_pass = line_pass;
  SearchResult r = solve_fresh(sfen, limits, hash_mb);
  return {int(r.status), api::to_usi(r.pv)};
}

class Futility {
 public:
  void put(uint64_t key, bool futile, const std::vector<int>& hand) { memo_.put(key, futile, hand_from_counts(hand)); }
  // -1 unknown, else a Judgement (futility.h) with the hand in `hand`.
  int get(uint64_t key, std::vector<int>& hand) const {
    Hand h = HAND_ZERO;
    int r = memo_.get(key, &h);
    hand = hand_to_counts(h);
    return r;
  }
  void clear() { memo_.clear(); }

 private:
  FutilityMemo memo_;
};

}  // namespace testing
}  // namespace usi_mate
