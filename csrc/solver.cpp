// The solver facade: which positions can be searched, the phases of solve()
// (first proof, post-search, certificate) and the result that says how the
// search ended.
#include <algorithm>

#include "solver.h"

#include "certify.h"
#include "short_mates.h"

namespace usi_mate {

namespace {

// Material of the whole position (board and both hands, by unpromoted type and
// colour-blind) is the same at every node of one search. Salting table keys
// with it keeps entries of positions from different piece sets apart when one
// table is reused across problems: the attacker's hand and the board then
// determine the defender's hand.
uint64_t material_salt(const Position& pos, Color attacker) {
  int counts[PIECE_TYPE_NB] = {0};
  for (Square s = 0; s < SQ_NB; ++s) {
    Piece p = pos.piece_on(s);
    if (p != NO_PIECE) ++counts[hand_type(type_of(p)) + (color_of(p) == WHITE && type_of(p) == KING ? 1 : 0)];
  }
  for (int c = 0; c < 2; ++c)
    for (int pt = PAWN; pt < KING; ++pt) counts[pt] += hand_count(pos.hand(Color(c)), PieceType(pt));
  uint64_t h = 0x6d617465ULL + uint64_t(attacker);
  for (int pt = 0; pt < PIECE_TYPE_NB; ++pt) h = mix64(h ^ (uint64_t(counts[pt]) << (pt * 3)));
  return h & ~1ULL;  // keep bit 0: it is the side-to-move bit of the board key
}

}  // namespace

Solver::Solver(uint64_t hash_mb) : tt_(new TranspositionTable) {
  init_core();
  tt_->resize(hash_mb);
}

Worker::Worker(TranspositionTable* tt, int id) : tt_(tt) {
  // Diversity by id: odd helpers take the last of equal children, and the
  // 1+epsilon margin alternates between 1/2 and 1/8 of the second best (the
  // main thread's 1/4 in between), so the threads' paths part early.
  if (id == 0) return;
  order_.tie_last = id % 2 == 1;
  order_.eps_shift = (id / 2) % 2 == 0 ? 1 : 3;
}

Solver::~Solver() {
  helpers_.stop.store(true, std::memory_order_relaxed);
  for (auto& t : helpers_.threads) t->wait();
}

void Solver::set_threads(int n) {
  n = std::max(1, n);
  size_t want = size_t(n - 1);
  // Kept helpers keep their memory; new ones are made before any is dropped,
  // so that a bad_alloc leaves the count unchanged.
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::unique_ptr<Position>> roots;
  for (size_t i = 0; i < want; ++i) {
    bool kept = i < helpers_.workers.size();
    workers.emplace_back(kept ? std::move(helpers_.workers[i]) : std::make_unique<Worker>(tt_.get(), int(i) + 1));
    roots.emplace_back(kept ? std::move(helpers_.roots[i]) : std::make_unique<Position>());
  }
  helpers_.workers = std::move(workers);
  helpers_.roots = std::move(roots);
  helpers_.threads.clear();
  for (size_t i = 0; i < want; ++i) helpers_.threads.emplace_back(new SearchThread);
  tt_->set_shared(n > 1);
}

// Runs the helpers on the root with `budget` for as long as it lives: the
// first proof and each shortest-mate attempt. The main thread's result is the
// answer, or a helper's that resolved the root first (prove_root); otherwise
// the helpers only fill the shared table.
Solver::HelperScope::HelperScope(Solver& s, uint16_t budget, bool fresh) : s_(s) {
  Helpers& hs = s.helpers_;
  if (hs.workers.empty()) return;
  hs.stop.store(false, std::memory_order_relaxed);
  hs.resolved.store(false, std::memory_order_relaxed);
  for (size_t i = 0; i < hs.workers.size(); ++i) {
    Worker* h = hs.workers[i].get();
    Position* root = hs.roots[i].get();
    h->follow(s.main_, &hs.stop);
    if (fresh) root->set_sfen(hs.root_sfen);
    std::atomic<bool>* resolved = &hs.resolved;
    hs.threads[i]->run([h, root, budget, fresh, resolved] { h->help(*root, budget, fresh, resolved); });
  }
}

Solver::HelperScope::~HelperScope() {
  Helpers& hs = s_.helpers_;
  if (hs.workers.empty()) return;
  hs.stop.store(true, std::memory_order_relaxed);
  for (size_t i = 0; i < hs.workers.size(); ++i) {
    hs.threads[i]->wait();
    hs.nodes += hs.workers[i]->nodes();
    s_.main_.futility().add_cuts(hs.workers[i]->futility().take_cuts());
  }
}

void Worker::start(Position& pos, Color attacker, const SearchLimits& limits, const std::atomic<bool>* stop) {
  limits_ = limits;
  nodes_ = 0;
  seen_ = {};
  monitor_.start(limits.nodes_limit, limits.time_limit_ms, stop);
  pos_ = &pos;
  attacker_ = attacker;
}

uint64_t Worker::enter_root(uint64_t material_salt) {
  futility_.new_solve(limits_.composers_count(), limits_.futility_node_cap);
  salt_ = material_salt ^ futility_.salt();
  path_.clear_if_dirty();
  rep_table_.clear();
  uint64_t root_key = pos_->full_key();
  path_.insert(root_key);
  return root_key;
}

void Worker::finish(uint64_t root_key) {
  path_.erase(root_key);
  pos_ = nullptr;
}

void Worker::follow(const Worker& main, const std::atomic<bool>* stop) {
  monitor_.start(0, 0, stop);
  limits_ = main.limits_;
  attacker_ = main.attacker_;
  salt_ = main.salt_;
  futility_.follow(main.futility_);
}

void Worker::help(Position& root, uint16_t budget, bool fresh, std::atomic<bool>* resolved) {
  nodes_ = 0;
  if (fresh) {
    seen_.depth_cut = false;
    seen_.max_ply = 0;
    path_.clear_if_dirty();
    rep_table_.clear();
    futility_.clear_memo();
  }
  pos_ = &root;
  uint64_t root_key = pos_->full_key();
  try {
    path_.insert(root_key);
    NodeValue v = prove(0, root_key, budget);
    // In the table, so the main thread can take it from there (a result that
    // rests on this thread's path, a repetition, is not); release: the entry
    // is written before the flag is seen.
    if (v.pn == 0 || (v.dn == 0 && !v.path_dependent)) resolved->store(true, std::memory_order_release);
  } catch (...) {
    // Out of memory for a new frame: this helper stops; the main thread goes on.
  }
  path_.erase(root_key);
  pos_ = nullptr;
}

// Without this the main thread went on after a helper had proven the root,
// until its own search came back to the proof in the table: minutes on a
// long work whose root it never revisits, with the helper idle. It gives way
// (Worker::yielding) and reads the helper's result from the table here.
NodeValue Solver::prove_root(uint64_t root_key, uint16_t budget, bool fresh) {
  HelperScope helpers(*this, budget, fresh);
  bool with_helpers = !helpers_.workers.empty();
  main_.yield_on(with_helpers ? &helpers_.resolved : nullptr);
  NodeValue v = main_.prove(0, root_key, budget);
  while (with_helpers && v.pn != 0 && v.dn != 0 && helpers_.resolved.load(std::memory_order_acquire)) {
    TTResult r = main_.probe_here(budget, main_.futility().own_estimates());
    if (r.found && (r.pn == 0 || r.dn == 0)) {
      v = {r.pn, r.dn, r.hand, r.mate_len, false};
      break;
    }
    // The entry was replaced before it was read: search on (the helper's work
    // is still in the table), unless the caller's limits are spent.
    if (main_.monitor().exhausted()) break;
    helpers_.resolved.store(false, std::memory_order_relaxed);
    v = main_.prove(0, root_key, budget);
  }
  main_.stop_yielding();
  return v;
}

void Solver::resize(uint64_t hash_mb) {
  // The table comes back empty, also when the new size is refused: the
  // futility salts start over, so that the next solve is a new solver's.
  // (Each solve starts its repetition table and memos afresh itself.)
  main_.futility().forget();
  tt_->resize(hash_mb);
}

void Solver::clear() {
  main_.futility().forget();  // (as resize)
  tt_->clear();
}

TTResult Solver::probe(const Position& pos, bool and_root) const {
  Color attacker = and_root ? ~pos.side_to_move() : pos.side_to_move();
  // The same salt as the last search used (its futility mode included).
  uint64_t salt = material_salt(pos, attacker) ^ main_.futility().salt();
  uint64_t key = TranspositionTable::fix_key(pos.board_key() ^ salt);
  return tt_->probe(key, pos.hand(attacker));
}

std::string Solver::unsearchable(const Position& pos, Color attacker) {
  // The side not to move must not be in check: its king could be captured.
  Color mover = pos.side_to_move();
  Square idle_king = pos.king_square(~mover);
  if (idle_king != SQ_NONE && pos.attackers_to(mover, idle_king))
    return "the side not to move is in check (its king could be captured)";
  // A tsume needs the defender's king; the attacker's is optional.
  if (pos.king_square(~attacker) == SQ_NONE)
    return std::string("the defender (") + (~attacker == BLACK ? "black" : "white") + ") has no king to mate";
  return "";
}

void Solver::on_tick(void* self) { static_cast<Solver*>(self)->report_progress(); }

void Solver::report_progress(const std::vector<Move>* line) {
  if (!progress_.fn) return;
  SearchProgress p;
  p.nodes = main_.nodes() + helpers_.nodes;
  p.time_ms = main_.monitor().elapsed_ms();
  p.hashfull = tt_->hashfull();
  p.proof_number = main_.seen().root_pn;
  p.disproof_number = main_.seen().root_dn;
  p.max_ply = main_.seen().max_ply;
  p.mate_length = progress_.mate_length;
  p.shortest_possible = progress_.shortest_possible;
  p.moves = line;
  // A report with nothing new (the same numbers, no line) is not sent again: a
  // search settled at once would report one state twice, at its proof and at
  // its end, a millisecond apart.
  const SearchProgress& q = progress_.last;
  if (!line && progress_.sent && p.nodes == q.nodes && p.hashfull == q.hashfull && p.proof_number == q.proof_number &&
      p.disproof_number == q.disproof_number && p.max_ply == q.max_ply && p.mate_length == q.mate_length &&
      p.shortest_possible == q.shortest_possible)
    return;
  progress_.last = p;
  progress_.last.moves = nullptr;
  progress_.sent = true;
  progress_.fn(progress_.ctx, p);
}

bool Solver::settled_at_root(Position& pos, const SearchLimits& limits, SearchResult& result) {
  if (main_.attacker() != pos.side_to_move() || stop_requested_.load(std::memory_order_relaxed)) return false;
  MoveList checks;
  generate_checks(pos, checks);
  if (checks.size == 0) {
    // No check, no mate. (A length limit makes it "none within the length", and a
    // certificate is the search's to build: those go on to the search.)
    if (limits.max_length > 0 || limits.certify_nodes > 0) return false;
    result.status = MateStatus::NoMate;
    main_.note_root(PN_INF, 0);
    report_progress();  // the report the search ends with (the USI layer's statistics)
    return true;
  }
  Move line[3];
  int length = 0;
  uint64_t looked_at = 0;
  if ((line[0] = first_mating_check(pos, checks, looked_at)) != MOVE_NONE) {
    length = 1;
    main_.set_nodes(looked_at);
  } else if (three_plies_settle(limits)) {
    uint64_t made = 0;
    bool as_reader = limits.post_search == PostSearchLevel::MinLength;
    uint64_t cap = limits.nodes_limit ? limits.nodes_limit : UINT64_MAX;
    if (mate_in_three(pos, checks, line, made, cap, as_reader)) {
      length = 3;
      main_.set_nodes(made);
    } else if (made >= cap) {
      // The look spent the caller's nodes: they count, and the search below stops at
      // once (it was given the whole limit again, and a run under a node limit then
      // looked like one that never reached it).
      main_.set_nodes(made);
    }
  }
  if (length == 0) return false;
  result.status = MateStatus::Mate;
  result.moves.assign(line, line + length);
  if (limits.post_search == PostSearchLevel::MinLength) result.min_length = result.shortest_possible = length;
  main_.note_root(0, PN_INF);
  progress_.mate_length = length;
  report_progress();
  return true;
}

// A mate in three (the root having none in one) is the shortest mate when every
// reply counts. Under the composers' count a check answered only by futile
// interpositions is a mate in one, so their length search goes to the search;
// as does a search within a length limit (`go depth`), as for a root without a check.
bool Solver::three_plies_settle(const SearchLimits& limits) {
  return !limits.composers_count() && limits.max_length == 0;
}

SearchResult Solver::solve(const std::string& sfen, const SearchLimits& limits) {
  try {
    root_.set_sfen(sfen);
  } catch (const std::invalid_argument& e) {
    SearchResult r;
    r.status = MateStatus::Invalid;
    r.error = e.what();
    return r;
  }
  return solve(root_, limits);
}

SearchResult Solver::solve(Position& pos, const SearchLimits& limits) { return run(pos, limits, true); }

SearchResult Solver::run(Position& pos, const SearchLimits& limits, bool root_shortcut) {
  SearchResult result;
  helpers_.nodes = 0;
  progress_.mate_length = progress_.shortest_possible = 0;
  progress_.sent = false;
  Color us = pos.side_to_move();
  main_.start(pos, pos.in_check() && limits.root_is_and_node_if_checked ? ~us : us, limits, &stop_requested_);
  main_.monitor().set_tick(&Solver::on_tick, this, progress_.fn ? progress_.interval_ms : 0);
  auto finish = [&]() {
    result.nodes = main_.nodes() + helpers_.nodes;
    result.time_ms = main_.monitor().elapsed_ms();
    result.hashfull = tt_->hashfull();
    result.max_ply = main_.seen().max_ply;
    main_.finish();
    return result;
  };
  result.error = unsearchable(pos, main_.attacker());
  if (!result.error.empty()) {
    result.status = MateStatus::Invalid;
    return finish();
  }
  if (root_shortcut && settled_at_root(pos, limits, result)) return finish();
  uint64_t root_key = main_.enter_root(material_salt(pos, main_.attacker()));
  tt_->new_search();
  if (!helpers_.workers.empty()) helpers_.root_sfen = pos.sfen();
  // `go depth N`: only mates within N plies count (a bounded search from the start).
  uint16_t root_budget =
      limits.max_length > 0 ? uint16_t(std::min(limits.max_length, int(BUDGET_NONE) - 1)) : BUDGET_NONE;
  // A bound this short: judgements uncapped and exact from the start, as in
  // the length search after a first proof this short (post_search.cpp).
  main_.futility().uncap_short(root_budget);
  NodeValue v = prove_root(root_key, root_budget, true);
  main_.note_root(v.pn, v.dn);
  if (v.pn == 0) {
    PostSearch(*this, main_, reader_, root_key, v.mate_len, result).run();
  } else if (v.dn == 0 && !main_.seen().depth_cut) {
    if (root_budget == BUDGET_NONE) {
      result.status = MateStatus::NoMate;
      if (limits.certify_nodes) {
        uint64_t search_nodes = main_.nodes();
        CertificateBuilder(main_).build(root_key, result.certificate);
        main_.set_nodes(search_nodes);  // the result counts the search; the certificate counts its own walk
      }
    } else if (!main_.futility().cut_short()) {
      result.stop_reason = StopReason::LengthLimit;  // no mate within the length: not "no mate"
    } else {
      // (Composers' count only.) No stop reason: nothing was proven.
      result.error = "no mate was found within the length, but a futile-interposition judgement was cut short";
    }
  } else {
    result.stop_reason = v.dn == 0 ? StopReason::DepthLimit : main_.monitor().reason();
  }
  report_progress();
  main_.finish(root_key);
  return finish();
}

}  // namespace usi_mate
