// Testing hooks: the core's small structures and rules with plain types (hands as
// counts P L N S B R G), so unit tests can check each concept on its own
// (tests/test_tt.py, test_hand.py, test_proof_hand.py, test_repetition.py,
// test_futility.py, test_monitor.py, test_line_memo.py, test_futility_judge.py,
// test_line_reader.py), and solves with the SearchLimits fields that only tests
// set (line_read_positions, line_pass: tests/test_answers.py). Nothing here is
// used by the search, and the usi_mate package does not include it: only the
// tests' own extension (tests/usi_mate_testing.pyx, built by tests/hooks.py) does.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "api.h"
#include "delayed_drops.h"
#include "futility.h"
#include "hand.h"
#include "line_memo.h"
#include "line_reader.h"
#include "monitor.h"
#include "proof_hand.h"
#include "repetition.h"
#include "selection.h"
#include "short_mates.h"
#include "solver.h"
#include "tt.h"
#include "worker.h"

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

// Each legal check of the side to move: (screened as a possible mate, mates at
// once), by check_may_mate and by making it (short_mates.h): a screen that turned
// a mate away would make the mates in one and three the root settles wrong.
inline std::vector<std::pair<int, int>> mate_screen(Position& pos) {
  MoveList checks;
  generate_checks(pos, checks);
  Bitboard escapes = king_escape_squares(pos);
  std::vector<std::pair<int, int>> out;
  for (Move m : checks) {
    bool screened = check_may_mate(pos, m, escapes);
    pos.do_move(m);
    out.emplace_back(screened, !has_legal_move(pos));
    pos.undo_move();
  }
  return out;
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
// positions (TestHooks::line_read_positions; 0: never).
inline LineSolve solve_with_line_cut(const std::string& sfen, uint64_t nodes, int post_search, uint64_t read_positions,
                                     uint64_t hash_mb) {
  SearchLimits limits;
  limits.nodes_limit = nodes;
  limits.post_search = PostSearchLevel(post_search);
  limits.test.line_read_positions = read_positions;
  SearchResult r = solve_fresh(sfen, limits, hash_mb);
  return {int(r.status), api::to_usi(r.moves)};
}

// A MinLength solve within `nodes`, with or without the search for shorter
// mates along the line from its end up (TestHooks::line_pass).
inline LineSolve solve_with_line_pass(const std::string& sfen, uint64_t nodes, bool line_pass, uint64_t hash_mb) {
  SearchLimits limits;
  limits.nodes_limit = nodes;
  limits.test.line_pass = line_pass;
  SearchResult r = solve_fresh(sfen, limits, hash_mb);
  return {int(r.status), api::to_usi(r.moves)};
}

class Futility {
 public:
  // `judgement`: a Judgement (futility.h); `len`: the mate after the capture.
  void put(uint64_t key, int judgement, const std::vector<int>& hand, uint16_t len) {
    memo_.put(key, judgement, hand_from_counts(hand), len);
  }
  // -1 unknown, else a Judgement (futility.h) with the hand in `hand` and the
  // length in `len`.
  int get(uint64_t key, std::vector<int>& hand, uint16_t& len) const {
    Hand h = HAND_ZERO;
    int r = memo_.get(key, &h, &len);
    hand = hand_to_counts(h);
    return r;
  }
  void clear() { memo_.clear(); }

 private:
  FutilityMemo memo_;
};

// The line reader's memo (line_memo.h) with plain fields.
struct MemoEntry {
  bool found = false;
  uint16_t len = 0;
  int spare = 0;
  uint16_t bound = 0;
};

class LineMemos {
 public:
  void put(uint64_t key, uint16_t len, int spare, uint16_t bound) { table_.put(key, LineMemo{len, spare, bound}); }
  MemoEntry find(uint64_t key) const {
    const LineMemo* m = table_.find(key);
    return m ? MemoEntry{true, m->len, m->spare, m->bound} : MemoEntry{};
  }
  void clear() { table_.clear(); }
  // `n` clears in a row: what one costs, whatever the table holds.
  void clear_times(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) table_.clear();
  }

 private:
  LineMemoTable table_;
};

// ---------------------------------------------------------------------------
// SearchMonitor (monitor.h) on its own: a caller's budget started with a stop
// flag of its own, and scopes pushed and popped by index (pop(i) ends the
// scopes from the i-th on, innermost first, as scopes end in the search).

// SearchMonitor::kGraceTime in ms.
constexpr uint64_t kGraceMs = uint64_t(SearchMonitor::kGraceTime.count());

struct MonitorRun {
  uint64_t nodes = 0;       // the count should_stop() or poll() said stop at
  uint64_t elapsed_us = 0;  // from the run's start
  bool stopped = false;     // false: the run's own guard ended it first
};

class Monitor {
 public:
  using Clock = SearchMonitor::Clock;

  // The caller's budget (0: no limit), the scopes of an earlier start ended first.
  void start(uint64_t nodes, uint64_t time_ms) {
    pop(0);
    stop_.store(false, std::memory_order_relaxed);
    ticks_ = 0;
    before_start_ = Clock::now();
    m_.start(nodes, time_ms, &stop_);
    after_start_ = Clock::now();
  }
  bool should_stop(uint64_t nodes) { return m_.should_stop(nodes); }
  bool poll(uint64_t nodes) { return m_.poll(nodes); }
  bool exhausted() const { return m_.exhausted(); }
  bool caller_budget_spent() const { return m_.caller_budget_spent(); }
  int reason() const { return int(m_.reason()); }
  void set_stop(bool stop) { stop_.store(stop, std::memory_order_relaxed); }
  uint64_t caller_node_cap() const { return m_.caller_node_cap(); }

  // A nested budget (at most `budget` more nodes from `nodes`); returns its index.
  int push_nested(uint64_t nodes, uint64_t budget) {
    scopes_.push_back(std::make_unique<SearchMonitor::Scope>(m_.nested(nodes, budget)));
    return int(scopes_.size()) - 1;
  }
  // An own budget: `node_cap` (0: none), a deadline `deadline_ms` from now (< 0: none).
  int push_own(uint64_t node_cap, int64_t deadline_ms, bool honors_stop) {
    Clock::time_point deadline =
        deadline_ms < 0 ? Clock::time_point::max() : Clock::now() + std::chrono::milliseconds(deadline_ms);
    scopes_.push_back(std::make_unique<SearchMonitor::Scope>(
        m_.own(node_cap ? node_cap : SearchMonitor::kNoLimit, deadline, honors_stop)));
    return int(scopes_.size()) - 1;
  }
  // Ends the scopes from the index-th on, innermost first.
  void pop(int index) {
    while (int(scopes_.size()) > std::max(index, 0)) scopes_.pop_back();
  }
  int scopes() const { return int(scopes_.size()); }

  // should_stop() (or poll()) at from, from + step, from + 2 step, ... until it
  // says stop, or for at most guard_ms (then stopped is false).
  MonitorRun run(uint64_t from, uint64_t step, bool use_poll, uint64_t guard_ms) {
    MonitorRun out;
    Clock::time_point t0 = Clock::now();
    const Clock::time_point guard = t0 + std::chrono::milliseconds(guard_ms);
    uint64_t n = from;
    for (uint64_t i = 1;; ++i, n += step) {
      if (use_poll ? m_.poll(n) : m_.should_stop(n)) {
        out.stopped = true;
        break;
      }
      if ((i & 4095) == 0 && Clock::now() >= guard) break;
    }
    out.nodes = n;
    out.elapsed_us = uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
    return out;
  }

  // Progress ticks every interval_ms, counted (ticks()).
  void count_ticks(uint64_t interval_ms) { m_.set_tick(&Monitor::on_tick, this, interval_ms); }
  uint64_t ticks() const { return ticks_; }

  // Deadlines in µs from just before start() (-1: none), and how long start()
  // took (the deadlines are that uncertain).
  int64_t caller_deadline_us() const { return since_start(m_.caller_deadline()); }
  int64_t answer_deadline_us() const { return since_start(m_.answer_deadline()); }
  int64_t start_took_us() const {
    return int64_t(std::chrono::duration_cast<std::chrono::microseconds>(after_start_ - before_start_).count());
  }

 private:
  static void on_tick(void* self) { ++static_cast<Monitor*>(self)->ticks_; }
  int64_t since_start(Clock::time_point t) const {
    // (A deadline "never" is max(), or max() less the grace: past a year from now.)
    if (t - before_start_ > std::chrono::hours(24 * 365)) return -1;
    return int64_t(std::chrono::duration_cast<std::chrono::microseconds>(t - before_start_).count());
  }

  SearchMonitor m_;
  std::atomic<bool> stop_{false};
  std::vector<std::unique_ptr<SearchMonitor::Scope>> scopes_;
  Clock::time_point before_start_, after_start_;
  uint64_t ticks_ = 0;
};

// ---------------------------------------------------------------------------
// The search classes' private state, for the concept tests below: Worker and
// Solver keep it private and name this struct their only friend (a
// declaration only: nothing of it is compiled into the package).
struct Access {
  static SearchMonitor& monitor(Worker& w) { return w.monitor_; }
  static FutilityJudge& futility(Worker& w) { return w.futility_; }
  static PathSet& path(Worker& w) { return w.path_; }
  static RepetitionTable& rep_table(Worker& w) { return w.rep_table_; }
  static Position*& pos(Worker& w) { return w.pos_; }
  static Color& attacker(Worker& w) { return w.attacker_; }
  static uint64_t& salt(Worker& w) { return w.salt_; }
  static uint64_t& nodes(Worker& w) { return w.nodes_; }
  static SearchLimits& limits(Worker& w) { return w.limits_; }
  static NodeValue prove(Worker& w, int ply, uint64_t path_key, uint16_t budget) {
    return w.prove(ply, path_key, budget);
  }
  static Worker& main_worker(Solver& s) { return s.main_; }
  static void set_yield(Worker& w, const std::atomic<bool>* flag, int depth) { w.yield_ = {flag, depth}; }
  static SearchResult run(Solver& s, Position& pos, const SearchLimits& limits, bool root_shortcut) {
    return s.run(pos, limits, root_shortcut);
  }
};

// Sets a worker up on `pos` as Solver::run sets up its main worker: limits,
// monitor (stopped by `stop`), attacker, the judge's new solve, the salt (the
// judge's only: a table of its own needs no material salt, and the judge's
// keeps bit 0, the side to move's, clear) and the path with the root in it.
// Returns the root's key, for disarm_worker.
inline uint64_t arm_worker(Worker& w, TranspositionTable& tt, Position& pos, const SearchLimits& limits, Color attacker,
                           bool judge_enabled, uint64_t cap, const std::atomic<bool>* stop) {
  Access::limits(w) = limits;
  Access::nodes(w) = 0;
  Access::monitor(w).start(0, 0, stop);
  Access::pos(w) = &pos;
  Access::attacker(w) = attacker;
  FutilityJudge& judge = Access::futility(w);
  judge.new_solve(judge_enabled, cap);
  Access::salt(w) = judge.salt();
  Access::path(w).clear_if_dirty();
  Access::rep_table(w).clear();
  tt.new_search();
  uint64_t root_key = pos.full_key();
  Access::path(w).insert(root_key);
  return root_key;
}

inline void disarm_worker(Worker& w, uint64_t root_key) {
  Access::path(w).erase(root_key);
  Access::pos(w) = nullptr;
}

// Worker::yielding, as Solver::prove_root arms it: a first proof of `sfen` (the
// side to move attacking, every reply counted) on a fresh table with the flag
// "a helper has resolved the root" already set. Returns the first thread's
// nodes and whether the root was resolved, twice: searched at the phase's
// budget depth (it gives way after the root's expansion, unresolved), then
// inside a sub-search's budget (one more; a futility judgement's, which must
// end on its own terms: it searches on to the proof).
inline std::vector<uint64_t> yielding_first_proof(const std::string& sfen) {
  init_core();
  TranspositionTable tt;
  tt.resize(16);
  Worker w(&tt, 0);
  Position pos;
  pos.set_sfen(sfen);
  std::atomic<bool> stop{false}, resolved{true};
  SearchLimits limits;
  limits.ignore_futile_interpositions = false;
  uint64_t root_key = arm_worker(w, tt, pos, limits, pos.side_to_move(), false, 0, &stop);
  std::vector<uint64_t> out;
  Access::set_yield(w, &resolved, Access::monitor(w).depth());
  Access::nodes(w) = 0;
  NodeValue v = Access::prove(w, 0, root_key, BUDGET_NONE);
  out.push_back(Access::nodes(w));
  out.push_back(v.pn == 0 || v.dn == 0);
  {
    auto scope = Access::monitor(w).nested(Access::nodes(w), SearchMonitor::kNoLimit);
    Access::nodes(w) = 0;
    v = Access::prove(w, 0, root_key, BUDGET_NONE);
    out.push_back(Access::nodes(w));
    out.push_back(v.pn == 0);
  }
  Access::set_yield(w, nullptr, 0);
  disarm_worker(w, root_key);
  return out;
}

// A solve on a fresh table by the search alone: no mate-in-one answer at the
// root before it, nor "no check, no mate" (Solver::settled_at_root), for tests that
// compare the two.
// With it, what the table then holds for the root (as Solver::probe answers):
// 1 proven, 2 disproven, 0 other; the hand (P L N S B R G) and the mate length.
struct SearchedSolve {
  int status = 0;
  std::vector<std::string> pv;
  uint64_t nodes = 0;
  int min_length = 0;
  int min_length_lower = 0;
  int root_entry = 0;
  std::vector<int> root_hand;
  int root_mate_len = 0;
};

inline SearchedSolve solve_by_search(const std::string& sfen, uint64_t nodes, int post_search, uint64_t hash_mb,
                                     bool strict) {
  Solver solver(hash_mb);
  Position pos;
  pos.set_sfen(sfen);
  SearchLimits limits;
  limits.nodes_limit = nodes;
  limits.post_search = PostSearchLevel(post_search);
  limits.ignore_futile_interpositions = !strict;
  SearchResult r = Access::run(solver, pos, limits, false);
  SearchedSolve out{int(r.status), api::to_usi(r.moves), r.nodes, r.min_length, r.shortest_possible};
  TTResult t = solver.probe(pos, false);
  out.root_entry = t.found && t.pn == 0 ? 1 : t.found && t.dn == 0 ? 2 : 0;
  out.root_hand = hand_to_counts(t.hand);
  out.root_mate_len = t.mate_len;
  return out;
}

// ---------------------------------------------------------------------------
// FutilityJudge (futility.h) on a hand-built position: a Worker of its own on
// the AND node `sfen` (the defender to move, in check; the other side
// attacks) and a fresh table, set up as Solver::solve sets up its main worker
// for a composers' count (MinLength): limits, monitor, attacker, the judge's
// new solve with `cap` (0: kFutilityNodeCap; ~0: uncapped, exact), the salt
// and the path. Questions are asked at ply 0, the position as the root.

// A judgement: the verdict, the drop's proof hand and the length of the mate
// after the capture (when futile), and the nodes its sub-searches spent.
struct JudgeAnswer {
  bool futile = false;
  std::vector<int> hand;
  int mate_len = 0;
  uint64_t nodes = 0;
};

class JudgeBench {
 public:
  JudgeBench(const std::string& sfen, uint64_t cap, uint64_t hash_mb) : sfen_(sfen) {
    init_core();
    tt_.resize(hash_mb);
    pos_.set_sfen(sfen);
    if (!pos_.in_check()) throw std::invalid_argument("not a position in check: " + sfen);
    SearchLimits limits;
    limits.post_search = PostSearchLevel::MinLength;
    limits.futility_node_cap = cap;
    root_key_ = arm_worker(w_, tt_, pos_, limits, ~pos_.side_to_move(), true, cap, &stop_);
  }
  ~JudgeBench() { disarm_worker(w_, root_key_); }
  JudgeBench(const JudgeBench&) = delete;
  JudgeBench& operator=(const JudgeBench&) = delete;

  // FutilityJudge::is_futile_drop for `drop` (a legal drop, in USI) against `bound`.
  JudgeAnswer futile_drop(const std::string& drop, uint16_t bound) {
    Move m = legal_drop(drop);
    JudgeAnswer out;
    uint64_t before = Access::nodes(w_);
    Hand h = HAND_ZERO;
    uint16_t len = 0;
    out.futile = Access::futility(w_).is_futile_drop(0, root_key_, m, bound, &h, &len);
    out.hand = hand_to_counts(h);
    out.mate_len = len;
    out.nodes = Access::nodes(w_) - before;
    return out;
  }
  // FutilityJudge::is_futile_among for `drop` against the other replies
  // (`others`, in USI) with their proven lengths (each from its child).
  JudgeAnswer futile_among(const std::string& drop, const std::vector<std::string>& others,
                           const std::vector<int>& proven) {
    Move m = legal_drop(drop);
    if (others.size() != proven.size()) throw std::invalid_argument("one proven length per other reply");
    std::vector<Move> moves;
    std::vector<uint16_t> lens;
    for (size_t i = 0; i < others.size(); ++i) {
      moves.push_back(api::parse_legal_move(pos_, others[i]));
      lens.push_back(uint16_t(proven[i]));
    }
    JudgeAnswer out;
    uint64_t before = Access::nodes(w_);
    Hand h = HAND_ZERO;
    out.futile =
        Access::futility(w_).is_futile_among(0, root_key_, m, moves.data(), lens.data(), int(moves.size()), &h);
    out.hand = hand_to_counts(h);
    out.nodes = Access::nodes(w_) - before;
    return out;
  }
  // FutilityJudge::only_futile_evasions over every evasion of the position.
  bool only_futile_evasions() {
    MoveList evasions;
    generate_evasions(pos_, evasions);
    Hand u = HAND_ZERO;
    return Access::futility(w_).only_futile_evasions(0, root_key_, evasions, &u);
  }
  // The judge's settings and counts.
  bool exact() { return Access::futility(w_).exact(); }
  uint64_t cut_short() { return Access::futility(w_).cut_short(); }
  uint64_t nodes() { return Access::nodes(w_); }
  // The position is as it was (every judgement undoes its moves).
  bool unchanged() const {
    Position fresh;
    fresh.set_sfen(sfen_);
    return pos_.sfen() == fresh.sfen() && pos_.full_key() == fresh.full_key();
  }

 private:
  Move legal_drop(const std::string& usi) {
    Move m = api::parse_legal_move(pos_, usi);
    if (!is_drop(m)) throw std::invalid_argument("not a drop: " + usi + " (only drops are judged)");
    return m;
  }

  std::string sfen_;
  TranspositionTable tt_;
  Position pos_;
  std::atomic<bool> stop_{false};
  Worker w_{&tt_, 0};
  uint64_t root_key_ = 0;
};

// ---------------------------------------------------------------------------
// LineReader (line_reader.h) on a table the test controls: a Solver's solve,
// then reads with a reader of the test's own over the solver's main worker,
// from the root again, as PostSearch reads (its monitor started anew without
// limits; the futility judge, the attacker and the table salt as the solve
// left them).

struct LineRead {
  bool ok = false;
  std::vector<std::string> line;
  int tree_len = 0;        // the mating tree the read proves (LEN_INF: none)
  bool cut_short = false;  // finished on recorded lengths
  uint32_t positions = 0;  // positions visited
  uint64_t nodes = 0;      // nodes searched (lost entries, judgements)
};

struct ReaderSolve {
  int status = 0;
  std::vector<std::string> pv;
  int min_length = 0;
};

class ReaderBench {
 public:
  explicit ReaderBench(uint64_t hash_mb) : solver_(hash_mb) {}

  // A solve on a fresh table: MinLength without a share of work (until the
  // minimum is proven or `nodes`), or post_search None or UpperBound.
  ReaderSolve solve(const std::string& sfen, uint64_t nodes, int post_search, bool ignore_futile) {
    sfen_ = sfen;
    solver_.clear();
    SearchLimits limits;
    limits.nodes_limit = nodes;
    limits.post_search = PostSearchLevel(post_search);
    limits.ignore_futile_interpositions = ignore_futile;
    limits.min_length_effort = 0;
    SearchResult r = solver_.solve(sfen, limits);
    return {int(r.status), api::to_usi(r.moves), r.min_length};
  }

  // LineReader::read from the root within `budget` plies (< 0: none). `count`:
  // 0 as solved (the composers' count when the solve judged futile drops),
  // 1 the strict count on the solve's own entries (PostSearch's first line),
  // 2 the strict count on its own entries, the root proven again first
  // (PostSearch's strict line). After `read_positions` positions (0: never)
  // the read goes on with recorded lengths, as past its deadline.
  LineRead read(int budget, bool exact, bool tie_break, int count, uint64_t read_positions) {
    Worker& w = Access::main_worker(solver_);
    Position pos;
    pos.set_sfen(sfen_);
    Access::pos(w) = &pos;
    Access::limits(w).test.line_read_positions = read_positions;
    Access::monitor(w).start(0, 0, &stop_);
    uint64_t root_key = pos.full_key();
    Access::path(w).insert(root_key);
    LineRead out;
    {
      std::unique_ptr<FutilityJudge::StrictCount> strict;
      if (count) strict = std::make_unique<FutilityJudge::StrictCount>(Access::futility(w), count == 2);
      uint64_t before = Access::nodes(w);
      bool proven = count != 2 || Access::prove(w, 0, root_key, BUDGET_NONE).pn == 0;
      before = count == 2 ? Access::nodes(w) : before;
      LineReader reader(w);
      std::vector<Move> line;
      uint16_t tree_len = 0;
      uint16_t b = budget < 0 ? BUDGET_NONE : uint16_t(budget);
      out.ok = proven && reader.read(root_key, b, exact, tie_break, line, &tree_len);
      out.line = api::to_usi(line);
      out.tree_len = tree_len;
      out.cut_short = reader.cut_short();
      out.positions = reader.positions();
      out.nodes = Access::nodes(w) - before;
    }
    Access::path(w).erase(root_key);
    Access::limits(w).test.line_read_positions = 0;
    Access::pos(w) = nullptr;
    return out;
  }

 private:
  Solver solver_;
  std::string sfen_;
  std::atomic<bool> stop_{false};
};

// ---------------------------------------------------------------------------
// The MID loop's choice (selection.h) over children given as numbers: each
// child is (pn, dn, drop, delayed); a drop is a pawn drop, a board move a
// rook's, both to distinct squares (the rule reads only whether a move is a
// drop). Returns the best child's index, the best and second values, the
// node's other number (the board moves' sum plus the drops' largest) and,
// given the node's thresholds, the best child's thresholds (pn, dn).
struct ChoiceResult {
  int best;
  uint32_t min_v, second;
  uint64_t sum;
  uint32_t child_th_pn, child_th_dn;
};

inline ChoiceResult choose_child(const std::vector<std::vector<uint32_t>>& children, bool or_node, bool tie_last,
                                 uint32_t th_pn, uint32_t th_dn, uint32_t eps_shift) {
  if (children.size() > size_t(MAX_MOVES)) throw std::invalid_argument("too many children");
  auto f = std::make_unique<SearchFrame>();
  int n = int(children.size());
  for (int i = 0; i < n; ++i) {
    const auto& v = children[size_t(i)];
    if (v.size() != 4) throw std::invalid_argument("a child is (pn, dn, drop, delayed)");
    ChildNode& c = f->child[i];
    c = ChildNode{};
    c.move = v[2] ? make_drop(PAWN, Square(i)) : make_move(Square(80 - i), Square(i), ROOK);
    c.pn = v[0];
    c.dn = v[1];
    c.delayed = uint8_t(v[3]);
  }
  Selection s = select_child(*f, n, or_node, tie_last);
  ChoiceResult out{s.best, s.min_v, s.second, s.sum + s.drop_max, 0, 0};
  if (s.best >= 0) {
    const ChildNode& c = f->child[s.best];
    auto th = child_thresholds(s, or_node ? c.dn : c.pn, or_node, th_pn, th_dn, eps_shift);
    out.child_th_pn = th.first;
    out.child_th_dn = th.second;
  }
  return out;
}

// ---------------------------------------------------------------------------
// DelayedDrops (delayed_drops.h) over the evasions of a position in check, as
// Worker::expand asks it: which replies go in and which are held back
// (0 in, kStandBy, kWaiting), then drops proven one by one (prove: the child
// index; returns the stand-by let in for its square, -1 none; a let-in child
// is in the search, unproven).
class DropsBench {
 public:
  DropsBench(const std::string& sfen, bool drops_wait) : f_(std::make_unique<SearchFrame>()) {
    init_core();
    Position pos;
    pos.set_sfen(sfen);
    if (!pos.in_check()) throw std::invalid_argument("not a position in check: " + sfen);
    generate_evasions(pos, f_->moves);
    n_ = f_->moves.size;
    DelayedDrops drops(drops_wait);
    for (int i = 0; i < n_; ++i) {
      ChildNode& c = f_->child[i];
      c = ChildNode{};
      c.move = f_->moves[i];
      if (!drops.hold_back(c)) c.pn = c.dn = 5;  // (in the search, unproven)
      moves_.push_back(move_to_usi(c.move));
    }
  }
  std::vector<std::string> moves() const { return moves_; }
  std::vector<int> delayed() const {
    std::vector<int> out;
    for (int i = 0; i < n_; ++i) out.push_back(f_->child[i].delayed);
    return out;
  }
  int waiting() const { return DelayedDrops::count_waiting(*f_, n_); }
  int prove(int i) {
    if (i < 0 || i >= n_ || f_->child[i].delayed) throw std::invalid_argument("not a child in the search");
    f_->child[i].pn = 0;
    f_->child[i].mate_len = 3;
    int j = DelayedDrops::next_on_square(*f_, n_, i);
    if (j >= 0) f_->child[j].delayed = 0;
    return j;
  }
  // The replies a waiting drop is judged against (judged_against), in USI.
  std::vector<std::string> judged_against() const {
    Move others[MAX_MOVES];
    uint16_t lens[MAX_MOVES];
    int k = DelayedDrops::judged_against(*f_, n_, others, lens);
    std::vector<std::string> out;
    for (int i = 0; i < k; ++i) out.push_back(move_to_usi(others[i]));
    return out;
  }

 private:
  std::unique_ptr<SearchFrame> f_;
  int n_ = 0;
  std::vector<std::string> moves_;
};

}  // namespace testing
}  // namespace usi_mate
