// After the first proof: the shortest mate (PostSearchLevel::MinLength) and
// the mating line, within the caller's limits.
#include <algorithm>

#include "solver.h"

namespace usi_mate {

namespace {

// The exact line (a proven longest defence at every AND node) may need
// searches of its own: up to 4x the nodes of the search so far, at least 10 M.
constexpr uint64_t kExactLineMinNodes = 10000000;
// The fallback lines (read off the table, searching only for lost entries)
// must still answer a proven mate after a limit or stop(): they may overrun a
// node limit by 5% plus one clock-check interval (1024 nodes), a time limit by
// 5% plus SearchMonitor::kGraceTime. Reading a line off the table costs no
// nodes at all unless entries were replaced (measured in docs/USI.md).
constexpr uint64_t kGraceNodes = SearchMonitor::kCheckInterval;
constexpr auto kGraceTime = SearchMonitor::kGraceTime;
// Without caller limits, the fallbacks stop after 2 M and 10 M nodes.
constexpr uint64_t kFallbackNodes[2] = {2000000, 10000000};

}  // namespace

// Rebuilds the line into `line` within the current budget; the scope that sets
// that budget is the caller's.
bool Solver::rebuild_line(uint64_t root_key, uint16_t budget, bool exact, bool tie_break,
                          std::vector<Move>& line) {
  line.clear();
  return extract_line(0, root_key, budget, exact, tie_break, line);
}

void Solver::post_search(uint64_t root_key, uint16_t first_len, SearchResult& result) {
  const SearchLimits& limits = limits_;
  uint16_t best = first_len;
  bool minimal = false;
  if (limits.post_search == PostSearchLevel::MinLength) {
    // Shortest mate: binary search over the length. "Is there a mate within b?"
    // either proves one (the bound drops to its length) or proves there is none
    // (the lower bound rises to b). Budgets keep the parity of the mate length.
    // Bisecting rather than stepping down by two matters when the first proof is
    // far too long (muso-001: 27 plies found first, 11 the answer): small
    // budgets are cheap to search, and only the last step near the answer is
    // an expensive "no shorter mate" proof.
    int lo = (best % 2) ? -1 : -2;  // no mate within lo plies (trivially)
    while (!monitor_.caller_budget_spent() && int(best) - 2 > lo) {
      int candidates = (int(best) - 2 - lo) / 2;
      int b = lo + 2 * ((candidates + 1) / 2);
      NodeValue w = prove(0, root_key, uint16_t(b));
      if (w.pn == 0) best = std::min<uint16_t>(best, w.mate_len);
      else if (w.dn == 0 && !depth_cut_) lo = b;
      else break;
    }
    minimal = int(best) - 2 <= lo;
  }

  uint64_t line_start = nodes_;
  uint16_t line_budget = limits.post_search == PostSearchLevel::None ? BUDGET_NONE : best;
  bool ok = false, exact = false;
  if (minimal) {
    // The exact line, within the caller's limits.
    auto scope = monitor_.nested(nodes_, std::max<uint64_t>(4 * nodes_, kExactLineMinNodes));
    ok = exact = rebuild_line(root_key, line_budget, true, true, result.pv);
  }
  // Fallbacks: the lines the table gives at once. They answer after a limit
  // or stop() too (a proven mate deserves its line), with a small grace.
  using Clock = SearchMonitor::Clock;
  for (int attempt = 0; attempt < 2 && !ok; ++attempt) {
    uint64_t cap = nodes_ + kFallbackNodes[attempt];
    Clock::time_point deadline = Clock::time_point::max();
    if (limits.nodes) cap = std::min(cap, std::max(limits.nodes + limits.nodes / 20, nodes_) + kGraceNodes);
    if (limits.time_ms)
      deadline = std::max(monitor_.caller_deadline() + std::chrono::milliseconds(limits.time_ms / 20), Clock::now()) +
                 kGraceTime;
    // stop() (before or during the rebuild) shrinks the budget to the grace.
    auto scope = monitor_.own(cap, deadline, false);
    ok = rebuild_line(root_key, attempt == 0 ? line_budget : BUDGET_NONE, false, false, result.pv);
  }
  result.line_nodes = nodes_ - line_start;
  root_pn_ = 0;
  root_dn_ = PN_INF;
  if (ok) {
    result.status = MateStatus::Mate;
    result.min_length_proven = exact && result.pv.size() == best;
  } else {
    result.pv.clear();
    result.status = MateStatus::Unknown;
    result.stop_reason = StopReason::LineBudget;
    result.error = "a mate is proven but its line could not be rebuilt within the limits";
  }
}

}  // namespace usi_mate
