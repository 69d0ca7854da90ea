// After the first proof: the shortest mate and the mating line (post_search.h).
#include "post_search.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "refine.h"
#include "scoped_move.h"
#include "solver.h"

namespace usi_mate {

namespace {

// The exact line (a proven longest defence at every AND node) may need
// searches of its own: up to 4x the nodes of the search so far, at least 10 M.
constexpr uint64_t kExactLineMinNodes = 10000000;
// The first effort cap of a shortest-mate attempt (it starts at the first
// proof's size, doubling while attempts settle nothing): 100 k nodes are a
// small fraction of a second (docs/DFPN.md, "When the answer is final"), below
// which caps only add restarts.
constexpr uint64_t kMinAttemptNodes = 100000;
// The fallback lines (read off the table, searching only for lost entries)
// must still answer a proven mate after a limit or stop(): they may overrun a
// node limit by 5% plus one clock-check interval (1024 nodes), the searches'
// deadline up to kGraceTime before SearchMonitor::answer_deadline() (5% of
// the time limit later, still inside the limit). Reading a line off the table
// costs no nodes at all unless entries were replaced (measured in
// docs/USI.md), but time: it reads the clock itself (line_reader.cpp).
constexpr uint64_t kLineOverrunNodes = SearchMonitor::kCheckInterval;
constexpr auto kGraceTime = SearchMonitor::kGraceTime;
// Under `go mate <ms>` the share may run on to a quarter of the search time,
// at most this long (docs/DFPN.md, "When the answer is final").
constexpr uint64_t kTimeShareMs = 2000;
// The lines the refinement walk is for: see docs/DFPN.md, "When the answer is final".
constexpr size_t kWalkMinPlies = 128;
// Without caller limits, the fallbacks stop after 2 M and 10 M nodes.
constexpr uint64_t kFallbackNodes[2] = {2000000, 10000000};

}  // namespace

// Rebuilds the line into `line` within the current budget; the scope that sets
// that budget is the caller's. *cut_short: a non-exact read ran past that
// budget and finished on recorded lengths (line_reader.cpp), so its line may
// be shorter than what the table proves. *tree_len: the mating tree the read
// proves, for strict non-exact reads (extract_line).
bool PostSearch::rebuild_line(uint16_t budget, bool exact, bool tie_break, std::vector<Move>& line, bool* cut_short,
                              uint16_t* tree_len) {
  bool ok = reader_.read(root_key_, budget, exact, tie_break, line, tree_len);
  if (cut_short) *cut_short = reader_.cut_short();
  return ok;
}

// The shortest mate, anytime. "Is there a mate within b?" either proves one
// (the upper bound `best` drops to its length) or proves there is none (the
// lower bound `lo` rises to b); budgets keep the parity of the length. Each
// attempt has an effort cap. A round first steps down (b = best - 2: composed
// problems are usually found within a few plies of their length, and finding
// a mate is far cheaper than refuting all of them), then probes halfway
// between lo and best (a first proof can be far longer than the minimum, and
// small budgets are cheap to settle either way). When both settle nothing,
// the kept line is searched for a shorter mate from its end up
// (shorten_along_line, not when verifying); a round that settles nothing
// doubles the effort. Bisecting alone could spend the whole time limit
// refuting a budget far below the first proof while a shorter mate was one
// step below it. Refutations from below also leave lower
// bounds of the mate's length in the table that make the next refutation
// cheap, where the same question asked at once may not finish.
// Both: docs/DFPN.md, "Mate lengths and the shortest mate", step 2. Until
// best - 2 <= lo or the budget is spent: the caller's, or when verifying
// (`kept` null) the innermost one (then the bounds are not reported as
// progress). Otherwise the line of the best mate so far is kept read
// (keep_line) before each attempt.
void PostSearch::narrow_length(LengthBounds& bounds, KeptLine* kept) {
  bool verifying = kept == nullptr;
  // (Verifying, the step down to best - 2 is expected to fail: start small.)
  uint64_t effort = verifying ? kMinAttemptNodes : std::max<uint64_t>(w_.nodes(), kMinAttemptNodes);
  auto attempt = [&](int b) -> int {  // 1: mate within b, -1: none, 0: undecided
    if (kept) keep_line(bounds.best, *kept);
    NodeValue w;
    {
      auto scope = w_.budget_scope(effort);
      w = solver_.prove_root(root_key_, uint16_t(b), false);
    }
    if (w.pn == 0) {
      bounds.mate_found(w.mate_len);
      if (!verifying) {
        solver_.note_mate_length(bounds.best);
        solver_.report_progress();
      }
      return 1;
    }
    if (w.dn == 0 && !w_.seen().depth_cut) {
      bounds.none_within(b);
      if (!verifying) {
        if (!w_.futility().cut_short())
          solver_.note_shortest_possible(uint16_t(bounds.proven_lower()));  // reported as proven
        solver_.report_progress();
      }
      return -1;
    }
    return 0;
  };
  // The innermost budget: the length search's share (post_search) or the verification's.
  auto spent = [&] { return w_.should_stop(); };
  while (!spent() && !bounds.settled()) {
    if (attempt(bounds.step_down()) != 0) continue;
    if (spent()) break;
    int halfway = bounds.halfway();
    bool progress = halfway >= 0 && attempt(halfway) != 0;
    if (!progress && kept && w_.limits().test.line_pass && !spent()) {
      keep_line(bounds.best, *kept);
      progress = shorten_along_line(bounds.best, kept->moves, effort);
    }
    if (!progress) effort *= 2;
  }
}

// Shorter mates along the line, from its end up, after a round of
// narrow_length that settled nothing: at each OR node of the line, "mate
// within r - 2?" (r: the line's plies from there), so that what a node near
// the end settles (a shorter mate, or none that short) is in the table when
// the nodes above ask, and each of those searches mostly its own
// alternatives. A long work's saving can lie near the end of its line, where
// the root's attempts, which must find it through every ply above, do not
// get; asked from the end up, the node at the saving finds it cheaply and the
// nodes above it mostly cheaper still (docs/DFPN.md, "Shorter mates along
// the line"). All within `effort`, each node within a quarter of
// it. True when the root's reply on the line is then proven within best - 3,
// so that the next step down finds the mate.
bool PostSearch::shorten_along_line(uint16_t best, const std::vector<Move>& line, uint64_t effort) {
  int len = int(line.size());
  if (len < 5 || best < 5) return false;
  // The line's moves, each with its position on the path, down to its last OR
  // node (its last move mates); undone in reverse order, as extract_line does.
  std::vector<std::unique_ptr<ScopedMove>> made;
  uint64_t path_key = root_key_;
  auto back = [&] {
    path_key ^= made.back()->key();
    made.pop_back();
  };
  for (int i = 0; i < len - 1; ++i) {
    made.push_back(std::make_unique<ScopedMove>(w_.position(), w_.path(), line[size_t(i)]));
    path_key ^= made.back()->key();
  }
  uint64_t cap = std::max<uint64_t>(kMinAttemptNodes, effort / 4);
  {
    auto scope = w_.budget_scope(effort);
    for (int d = (len - 1) & ~1; d > 0 && !w_.monitor().exhausted(); d -= 2) {
      while (int(made.size()) > d) back();
      if (len - d < 3) continue;
      uint16_t b = uint16_t(len - d - 2);
      TTResult t = w_.probe_here(b);
      if (t.found && (t.pn == 0 || t.dn == 0)) continue;
      auto local = w_.budget_scope(cap);
      w_.prove(d, path_key, b);
    }
  }
  while (made.size() > 1) back();
  bool shorter = false;
  if (made.size() == 1) {
    TTResult t = w_.probe_here(uint16_t(best - 3));
    shorter = t.found && t.pn == 0;
    back();
  }
  return shorter;
}

// Reads the line within `best` when the kept one is longer and a read is due,
// so that the answer is the best mate proven so far whenever the search is cut
// short: the read at the end runs in the grace after a limit or stop(), which
// may not hold a long line's read (then a proven mate was lost to a longer
// first line), and a read cut there may err short (then it loses to the kept
// line). A line is read as soon as it is proven, while the proof is whole in
// the table: the attempts after it replace proofs, which a later read must
// prove again (docs/DFPN.md, "Mate lengths and the shortest mate", step 2). The reads' cost (positions and nodes, the
// first line's included) stays within a fifth of the search: past it, the read waits.
void PostSearch::keep_line(uint16_t best, KeptLine& kept) {
  if (kept.budget <= best || 4 * kept.cost > w_.nodes()) return;
  uint64_t before = w_.nodes();
  std::vector<Move> line;
  bool ok, cut_short = false;
  {
    // As many nodes as the search so far: the read may have to prove replies
    // again within the new bound, on a long work more than a fixed cap allows
    // (docs/DFPN.md, "Known limits").
    auto scope = w_.budget_scope(std::max(kFallbackNodes[0], w_.nodes()));
    ok = rebuild_line(best, false, true, line, &cut_short);
  }
  kept.nodes += w_.nodes() - before;
  kept.cost += reader_.positions() + w_.nodes() - before;
  kept.budget = best;
  // A read cut short may err short, unless its line is as long as the bound.
  if (!ok || (cut_short && line.size() < best)) return;
  kept.moves.swap(line);
  solver_.report_progress(&kept.moves);
}

// The minimum `best` settled again with every futility judgement exact: no
// cap of its own on any sub-search (one is then cut short only when the budget
// here runs out), on a table salt, repetition table and memos of their own so
// that nothing the capped searches stored or judged is read. Proven "mate
// within best" and, by narrow_length, "no mate within best - 2", with no
// judgement cut short.
// The capped judgements stay for the length search: uncapped ones are sound
// too but slower to converge, and gave longer answers within the same nodes
// (docs/FUTILE.md, "Cut-short judgements").
// A shorter mate proven here (the capped searches refuted it on a judgement
// cut short) replaces `best` and `line`, its line read with the same exact
// judgements; it is then the one verified.
bool PostSearch::verify_min_length(uint16_t& best, std::vector<Move>& line, uint64_t node_cap) {
  uint64_t cuts = w_.futility().cut_short();
  FutilityJudge::Settled settled(w_.futility());
  w_.forget_repetitions();
  bool verified = false;
  {
    uint64_t budget = std::min(node_cap, std::max<uint64_t>(4 * w_.nodes(), kExactLineMinNodes));
    auto scope = w_.budget_scope(budget);
    NodeValue w = solver_.prove_root(root_key_, best, true);  // (fresh: the helpers forget their memos too)
    if (w.pn == 0 && w_.futility().cut_short() == cuts) {
      LengthBounds v = LengthBounds::after_mate(w.mate_len);
      {
        // From below (narrow_length) with half the budget, then "no mate
        // within b - 2" asked at once with the rest: which settles a problem
        // first varies (a refutation from below leaves lower bounds in the
        // table; one asked at once wastes no attempts).
        auto half = w_.budget_scope(budget / 2);
        narrow_length(v, nullptr);
      }
      if (!v.settled() && !w_.should_stop()) {
        NodeValue r = solver_.prove_root(root_key_, uint16_t(v.step_down()), false);
        if (r.pn == 0) v.best = r.mate_len;
        if (r.dn == 0 && !w_.seen().depth_cut) v.lo = v.best - 2;
      }
      uint16_t b = v.best;
      bool minimal = v.settled();
      if (b < best && w_.futility().cut_short() == cuts && !w_.should_stop()) {
        std::vector<Move> shorter;
        if (rebuild_line(b, minimal, true, shorter)) {
          best = b;
          line.swap(shorter);
        }
      }
      verified = b == best && minimal && w_.futility().cut_short() == cuts;
    }
  }
  return verified;
}

// A mating line under the strict count (every reply counted), proven and read
// under the strict count's own table salt: lengths recorded with futility
// judgements would cut a strict read short (a reply recorded as "mate in 1"
// because its only defences are futile drops). Within the caller's scope.
bool PostSearch::strict_line(std::vector<Move>& line) {
  FutilityJudge::StrictCount strict(w_.futility(), true);
  return solver_.prove_root(root_key_, BUDGET_NONE, false).pn == 0 && rebuild_line(BUDGET_NONE, false, false, line) &&
         !line.empty();
}

PostSearch::PostSearch(Solver& solver, Worker& main, LineReader& reader, uint64_t root_key, uint16_t first_len,
                       SearchResult& result)
    : solver_(solver),
      w_(main),
      reader_(reader),
      result_(result),
      root_key_(root_key),
      first_len_(first_len),
      first_nodes_(main.nodes()),
      share_(SearchMonitor::kNoLimit) {
  // MinLength's share of work: the walk, the length search and its
  // verification spend at most this many nodes between them; then the answer
  // is final, its length proven the shortest or not.
  const SearchLimits& limits = w_.limits();
  if (min_length() && limits.min_length_effort) {
    share_ = min_length_share(first_nodes_, limits.min_length_effort);
    // Under a time limit alone (`go mate <ms>`) the share may run on to a
    // quarter of the search time, at most kTimeShareMs, in nodes at the rate so
    // far: the user gave that time, and a short first proof leaves most of it,
    // but a long limit is a ceiling, not a wish to wait. A node limit keeps the
    // answer deterministic, so it gets the node share only.
    uint64_t floor_us = std::min(SearchMonitor::search_time_ms(limits.time_limit_ms) / 4, kTimeShareMs) * 1000;
    uint64_t elapsed_us = w_.monitor().elapsed_us();
    if (!limits.nodes_limit && elapsed_us < floor_us) {
      // Nodes a millisecond so far (the first proof's), times the milliseconds left.
      uint64_t by_time = first_nodes_ * 1000 / std::max<uint64_t>(elapsed_us, 1) * ((floor_us - elapsed_us) / 1000);
      share_ = std::max(share_, by_time);
    }
  }
}

bool PostSearch::min_length() const { return w_.limits().post_search == PostSearchLevel::MinLength; }

// A budget of its own for reading a line: it must answer a proven mate after
// a limit or stop() too, so it may overrun the caller's limits by the grace
// (and a stop() before or during it shrinks it to the grace).
SearchMonitor::Scope PostSearch::grace_scope(uint64_t own_nodes) {
  using Clock = SearchMonitor::Clock;
  const SearchLimits& limits = w_.limits();
  uint64_t cap = w_.nodes() + own_nodes;
  Clock::time_point deadline = Clock::time_point::max();
  if (limits.nodes_limit) cap = std::min(cap, limits.nodes_limit + limits.nodes_limit / 20 + kLineOverrunNodes);
  // Until kGraceTime before the answer is due (at least 1 ms): a read cut
  // there still walks the rest of its line on recorded lengths
  // (line_reader.cpp), milliseconds on a long line with futility judgements
  // (docs/USI.md, "Limits").
  if (limits.time_limit_ms)
    deadline = std::max(w_.monitor().answer_deadline() - kGraceTime, Clock::now() + std::chrono::milliseconds(1));
  return w_.monitor().own(cap, deadline, false);
}

void PostSearch::run() {
  using Clock = SearchMonitor::Clock;
  w_.futility().uncap_short(first_len_);
  std::optional<SearchMonitor::Scope> shortening(w_.budget_scope(share_));
  // 1. The first line, and for MinLength the refinement walk.
  out_of_time_ =
      w_.monitor().caller_budget_spent() || Clock::now() >= w_.monitor().caller_deadline() || solver_.stop_requested();
  if (!out_of_time_) read_first_line();
  if (min_length() && !out_of_time_ && w_.limits().test.refine_passes && first_.have &&
      first_.moves.size() > kWalkMinPlies)
    walk();
  // 2. The shortest mate.
  bool from_tree = first_.have && first_.tree < first_len_ && !first_.walk_confirmed;
  bool minimal = search_length();
  shortening.reset();  // the line and a verification below answer for a minimum already found
  line_nodes_ += kept_.nodes;
  bool table_proves = !from_tree || bounds_.best < first_.tree;
  // 3. The line of that length.
  bool exact = false;
  bool ok = read_answer_line(minimal, table_proves, exact);
  // A mate in one is the shortest there is, and its line (one move, no defence
  // to choose) is exact however the reads were cut short (a stop at once).
  if (ok && minimal && bounds_.best == 1 && result_.moves.size() == 1) exact = true;
  // A defender to move whose every reply is a futile interposition is mated at
  // once by the composers' count (length 0), yet it can move: an empty line
  // would read as "already checkmated" and a GUI would show no mate.
  bool all_futile_root = ok && result_.moves.empty() && !w_.attacker_to_move();
  if (all_futile_root) all_futile_root = answer_strict_line();
  result_.line_nodes = line_nodes_;
  // 4. The claim. The shortest mate is proven (a defence without spare pieces
  // may make the line shorter than `best`). After a futility judgement cut
  // short (futility.cpp) the refutations and lengths may rest on it: then only
  // when the minimum holds with every judgement settled. The line itself is
  // the capped search's, unless the verification proves a shorter mate (then
  // that one and its line).
  bool proven_min = ok && exact && !all_futile_root &&
                    (!w_.futility().cut_short() || verify_min_length(bounds_.best, result_.moves, share_));
  claim(ok, proven_min, all_futile_root);
}

// The first proof's own line, read off the table at once: every node of the
// proof is still there, so this costs no search (unless entries were
// replaced). Read without futility judgements (each may need a capped
// sub-search): a valid mating line that may count futile interpositions, the
// answer whenever what follows is cut short. Each AND node's replies are
// ranked by their own lines, read to the end (recorded lengths go stale, see
// line_reader.cpp): that visits the whole proof tree, seconds of reading
// after a hard first proof. A read cut short ranks the rest by recorded
// lengths and may come out far short (docs/USI.md, "Limits"), so after a proof
// found at the limit this line is read only if the line of step 3 (with
// futility, the answer's count) fails.
void PostSearch::read_first_line() {
  uint64_t before = w_.nodes();
  auto scope = grace_scope(kFallbackNodes[1]);
  FutilityJudge::StrictCount strict(w_.futility(), false);
  first_.have = rebuild_line(BUDGET_NONE, false, false, first_.moves, &first_.cut_short, &first_.tree);
  line_nodes_ += w_.nodes() - before;
}

// The refinement walk over the proven tree (refine.h), within a quarter of the
// share: shorter mates near the tree for a small share of the work, and a line
// read along its choices, so a line this good is the answer whatever follows.
// When its tree is shorter than the first read's, its line and bound replace
// them. The walk's values are not in the table, so its tree is proven there
// once within its bound (the walked proofs are all in the table, only their
// ancestors' records are stale): the length search then starts from it and
// lines are read within it.
void PostSearch::walk() {
  uint64_t before = w_.nodes();
  TreeRefiner walk(w_);
  bool walked;
  {
    auto scope = w_.budget_scope(share_ == SearchMonitor::kNoLimit ? first_nodes_ : share_ / 4);
    walked = walk.run(root_key_, w_.limits().test.refine_passes);
  }
  result_.refine = walk.stats();
  uint16_t bound = walk.root().len;
  if (walked && !walk.line().empty() && walk.line().size() < first_.moves.size()) {
    first_.moves = walk.line();
    first_.cut_short = false;
    solver_.report_progress(&first_.moves);
  }
  if (walked && bound < std::min(first_.tree, first_len_)) {
    NodeValue w;
    {
      auto scope = w_.budget_scope(std::max(kMinAttemptNodes, first_nodes_ / 4));
      w = solver_.prove_root(root_key_, bound, false);
    }
    if (w.pn == 0) {
      first_.tree = std::min(bound, w.mate_len);
      first_.walk_confirmed = true;
      solver_.note_mate_length(first_.tree);
    }
  }
  line_nodes_ += w_.nodes() - before;
}

// The shortest mate (narrow_length); true when the minimum is proven.
// Recorded lengths go stale (line_reader.cpp): the first read's mating tree
// can be far shorter than the root's record (docs/DFPN.md, "Mate lengths and
// the shortest mate", step 1), so the search for shorter mates starts below
// that tree. The table does not record it (reads store nothing), so a line is
// read within it only once an attempt has proven a mate that short (run's
// `table_proves`).
bool PostSearch::search_length() {
  bounds_.best = first_len_;
  if (first_.have && first_.tree < first_len_) bounds_.best = first_.tree;
  solver_.note_mate_length(bounds_.best);
  // The first line, read whole, is the first kept line (keep_line); its read
  // counts in the reads' cost.
  if (first_.have && !first_.cut_short) {
    kept_.moves = first_.moves;
    // (The walk's line takes the longest defences: read it again within the
    // proven bound for the composers' choices.)
    kept_.budget = first_.walk_confirmed ? first_len_ : bounds_.best;
    kept_.cost = reader_.positions() + line_nodes_;
  }
  bounds_ = LengthBounds::after_mate(bounds_.best);
  if (!min_length()) return false;
  narrow_length(bounds_, &kept_);
  bool minimal = bounds_.settled();
  if (!minimal) {
    StopReason why = w_.monitor().caller_budget_spent() ? w_.monitor().reason() : StopReason::None;
    if (why == StopReason::None && solver_.stop_requested()) why = StopReason::Stopped;
    result_.length_stop = why != StopReason::None ? why : StopReason::Effort;
  }
  return minimal;
}

// The answer's line into result_.moves: exact (a proven longest defence at every
// AND node, within the caller's limits) when the minimum is proven, else the
// longest defences the table records within the bound; else the kept or first
// line. False when there is none.
bool PostSearch::read_answer_line(bool minimal, bool table_proves, bool& exact) {
  bool ok = false;
  uint64_t before = w_.nodes();
  if (minimal) {
    auto scope = w_.budget_scope(std::max<uint64_t>(4 * w_.nodes(), kExactLineMinNodes));
    ok = exact = rebuild_line(bounds_.best, true, true, result_.moves);
  }
  bool cut_short = false;
  if (!ok && w_.limits().post_search != PostSearchLevel::None) {
    auto scope = grace_scope(kFallbackNodes[0]);
    ok = rebuild_line(table_proves ? bounds_.best : first_len_, false, true, result_.moves, &cut_short);
  }
  line_nodes_ += w_.nodes() - before;
  // A read cut short may err short: then the kept line (read whole: the first
  // line, or the last one keep_line read), when it was read within `best` or
  // is longer (it errs long). Not when the cut line is as long as `best`, the
  // root's proven bound: it is not short then (such a cut line at the
  // published length lost to a longer first line; docs/DFPN.md, "Mate lengths
  // and the shortest mate", step 3).
  if (ok && cut_short && result_.moves.size() < bounds_.best && !kept_.moves.empty() &&
      (kept_.budget == bounds_.best || kept_.moves.size() > result_.moves.size()))
    result_.moves = kept_.moves;
  // Read within the root's record, longer than the first line's tree: the
  // first line.
  if (ok && !table_proves && result_.moves.size() > first_.moves.size()) result_.moves = first_.moves;
  if (!ok && !kept_.moves.empty()) {
    result_.moves = kept_.moves;
    ok = true;
  }
  if (!ok && out_of_time_) read_first_line();
  if (!ok && first_.have) {
    result_.moves = first_.moves;
    ok = true;
  }
  return ok;
}

// Every reply at the root a futile interposition: the line that counts every
// reply is the answer; its length is not claimed the shortest. False when
// there is none (no reply at all: checkmated on the board).
bool PostSearch::answer_strict_line() {
  std::vector<Move> strict;
  auto scope = grace_scope(kFallbackNodes[1]);
  if (!strict_line(strict)) return false;
  result_.moves.swap(strict);
  result_.length_stop = StopReason::None;  // (a length the composers' count does not use)
  result_.error =
      "every reply is a futile interposition (mated at once by the composers' count); "
      "the line counts every reply";
  return true;
}

void PostSearch::claim(bool ok, bool proven_min, bool all_futile_root) {
  solver_.note_mate_length(bounds_.best);
  w_.note_root(0, PN_INF);  // (after the verification's own root searches)
  if (ok) {
    result_.status = MateStatus::Mate;
    if (proven_min) result_.min_length = result_.shortest_possible = bounds_.best;
    if (!proven_min && bounds_.lo >= 0 && !w_.futility().cut_short())
      result_.shortest_possible = bounds_.proven_lower();
    if (!proven_min && min_length() && !all_futile_root && result_.length_stop == StopReason::None)
      result_.length_stop = solver_.stop_requested() ? StopReason::Stopped : StopReason::Effort;
  } else {
    result_.moves.clear();
    result_.status = MateStatus::Unknown;
    result_.stop_reason = StopReason::LineBudget;
    result_.error = "a mate is proven but its line could not be rebuilt within the limits";
  }
}

}  // namespace usi_mate
