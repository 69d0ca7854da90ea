// The solver facade: which positions can be searched, the phases of solve()
// (first proof, post-search, certificate) and the result that says how the
// search ended.
#include <algorithm>

#include "solver.h"

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

Solver::Solver(uint64_t hash_mb) : own_tt_(new TranspositionTable), tt_(own_tt_.get()) {
  init_core();
  tt_->resize(hash_mb);
}

Solver::Solver(TranspositionTable* shared, int id) : tt_(shared), id_(id) {
  // Diversity by id: odd helpers take the last of equal children, and the
  // 1+epsilon margin alternates between 1/2 and 1/8 of the second best (the
  // main thread's 1/4 in between), so the threads' paths part early.
  tie_last_ = id % 2 == 1;
  eps_shift_ = (id / 2) % 2 == 0 ? 1 : 3;
}

Solver::~Solver() {
  helpers_stop_.store(true, std::memory_order_relaxed);
  for (auto& t : helper_threads_) t->join();
}

void Solver::set_threads(int n) {
  n = std::max(1, n);
  std::vector<std::unique_ptr<Solver>> helpers;
  for (int i = 1; i < n; ++i)
    helpers.emplace_back(i - 1 < int(helpers_.size()) ? std::move(helpers_[i - 1])
                                                      : std::unique_ptr<Solver>(new Solver(tt_, i)));
  helpers_ = std::move(helpers);
  helper_threads_.clear();
  for (int i = 1; i < n; ++i) helper_threads_.emplace_back(new SearchThread);
  tt_->set_shared(n > 1);
}

// Runs the helpers on the root with `budget` for as long as it lives: the
// first proof and each shortest-mate attempt. The main thread's result is the
// answer; the helpers only fill the shared table.
Solver::HelperScope::HelperScope(Solver& s, uint16_t budget, bool fresh) : s_(s) {
  if (s.helpers_.empty()) return;
  s.helpers_stop_.store(false, std::memory_order_relaxed);
  for (size_t i = 0; i < s.helpers_.size(); ++i) {
    Solver* h = s.helpers_[i].get();
    h->monitor_.start(0, 0, &s.helpers_stop_);
    h->limits_ = s.limits_;
    h->attacker_ = s.attacker_;
    h->salt_ = s.salt_;
    h->futility_.follow(s.futility_);
    if (fresh) h->root_copy_.set_sfen(s.root_sfen_);
    s.helper_threads_[i]->start([h, budget, fresh] { h->help(budget, fresh); });
  }
}

Solver::HelperScope::~HelperScope() {
  if (s_.helpers_.empty()) return;
  s_.helpers_stop_.store(true, std::memory_order_relaxed);
  for (size_t i = 0; i < s_.helpers_.size(); ++i) {
    s_.helper_threads_[i]->join();
    s_.helper_nodes_ += s_.helpers_[i]->nodes_;
    s_.futility_.add_cuts(s_.helpers_[i]->futility_.take_cuts());
  }
}

void Solver::help(uint16_t budget, bool fresh) {
  nodes_ = 0;
  if (fresh) {
    depth_cut_ = false;
    max_ply_reached_ = 0;
    path_.clear_if_dirty();
    rep_table_.clear();
    futility_.clear_memo();
  }
  pos_ = &root_copy_;
  uint64_t root_key = pos_->full_key();
  try {
    path_.insert(root_key);
    prove(0, root_key, budget);
  } catch (...) {
    // Out of memory for a new frame: this helper stops; the main thread goes on.
  }
  path_.erase(root_key);
  pos_ = nullptr;
}

void Solver::resize(uint64_t hash_mb) {
  forget_solves();  // the table comes back empty, also when the new size is refused
  tt_->resize(hash_mb);
}

void Solver::clear() {
  forget_solves();
  tt_->clear();
}

void Solver::forget_solves() {
  // The table holds nothing an earlier solve stored: the futility salts start
  // over, so that a solver with an emptied table searches exactly as a new
  // one. (Each solve starts its repetition table and memos afresh itself.)
  futility_.forget();
}

TTResult Solver::probe(const Position& pos, bool and_root) const {
  Color attacker = and_root ? ~pos.side_to_move() : pos.side_to_move();
  // The same salt as the last search used (its futility mode included).
  uint64_t salt = material_salt(pos, attacker) ^ futility_.salt();
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
  if (!progress_fn_) return;
  SearchProgress p;
  p.nodes = nodes_ + helper_nodes_;
  p.time_ms = monitor_.elapsed_ms();
  p.hashfull = tt_->hashfull();
  p.root_pn = root_pn_;
  p.root_dn = root_dn_;
  p.max_ply_reached = max_ply_reached_;
  p.mate_len_upper = mate_len_upper_;
  p.mate_len_lower = mate_len_lower_;
  p.line = line;
  progress_fn_(progress_ctx_, p);
}

SearchResult Solver::solve(const std::string& sfen, const SearchLimits& limits) {
  Position pos;
  try {
    pos.set_sfen(sfen);
  } catch (const std::invalid_argument& e) {
    SearchResult r;
    r.status = MateStatus::Invalid;
    r.error = e.what();
    return r;
  }
  return solve(pos, limits);
}

SearchResult Solver::solve(Position& pos, const SearchLimits& limits) {
  SearchResult result;
  limits_ = limits;
  nodes_ = 0;
  depth_cut_ = false;
  max_ply_reached_ = 0;
  root_pn_ = root_dn_ = 1;
  mate_len_upper_ = mate_len_lower_ = 0;
  refine_stats_ = {};
  monitor_.start(limits.nodes, limits.time_ms, &stop_requested_);
  monitor_.set_tick(&Solver::on_tick, this, progress_fn_ ? progress_interval_ms_ : 0);
  pos_ = &pos;
  Color us = pos.side_to_move();
  attacker_ = pos.in_check() && limits.root_is_and_node_if_checked ? ~us : us;
  auto finish = [&]() {
    result.nodes = nodes_ + helper_nodes_;
    result.time_ms = monitor_.elapsed_ms();
    result.hashfull = tt_->hashfull();
    result.max_ply_reached = max_ply_reached_;
    pos_ = nullptr;
    return result;
  };
  result.error = unsearchable(pos, attacker_);
  if (!result.error.empty()) {
    result.status = MateStatus::Invalid;
    return finish();
  }
  futility_.new_solve(limits.ignore_futile_interpositions && limits.post_search == PostSearchLevel::MinLength,
                      limits.futility_node_cap);
  salt_ = material_salt(pos, attacker_) ^ futility_.salt();
  path_.clear_if_dirty();
  rep_table_.clear();
  tt_->new_search();
  helper_nodes_ = 0;
  if (!helpers_.empty()) root_sfen_ = pos.sfen();
  uint64_t root_key = pos.full_key();
  path_.insert(root_key);
  // `go depth N`: only mates within N plies count (a bounded search from the start).
  uint16_t root_budget =
      limits.max_length > 0 ? uint16_t(std::min(limits.max_length, int(BUDGET_NONE) - 1)) : BUDGET_NONE;
  // A bound this short: judgements uncapped and exact from the start, as in
  // the length search after a first proof this short (post_search.cpp).
  futility_.uncap_short(root_budget);
  NodeValue v = prove_root(root_key, root_budget, true);
  root_pn_ = v.pn;
  root_dn_ = v.dn;
  if (v.pn == 0) {
    PostSearch(*this, root_key, v.mate_len, result).run();
  } else if (v.dn == 0 && !depth_cut_) {
    if (root_budget == BUDGET_NONE) {
      result.status = MateStatus::NoMate;
      if (limits.certify_nodes) {
        uint64_t search_nodes = nodes_;
        certify_no_mate(root_key, result.certificate);
        nodes_ = search_nodes;  // the result counts the search; the certificate counts its own walk
      }
    } else if (!futility_.cut_short()) {
      result.stop_reason = StopReason::LengthLimit;  // no mate within the length: not "no mate"
    } else {
      // (Composers' count only.) No stop reason: nothing was proven.
      result.error = "no mate was found within the length, but a futile-interposition judgement was cut short";
    }
  } else {
    result.stop_reason = v.dn == 0 ? StopReason::DepthLimit : monitor_.reason();
  }
  path_.erase(root_key);
  report_progress();
  return finish();
}

}  // namespace usi_mate
