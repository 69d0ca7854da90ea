#include "dfpn.h"

#include <algorithm>

namespace usi_mate {

namespace {

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Initial proof number of a new AND node: its number of evasions, with drops
// to one square counted once. Seven drop interpositions on one square are
// usually refuted together, so counting them all would make far checks look
// seven times harder than they are.
uint32_t evasion_weight(const MoveList& moves) {
  uint32_t n = 0;
  Bitboard drop_squares;
  for (Move m : moves) {
    if (is_drop(m)) drop_squares |= square_bb(move_to(m));
    else ++n;
  }
  return n + uint32_t(drop_squares.popcount());
}

// Material of the whole position (board and both hands, by unpromoted type and
// colour-blind) is the same at every node of one search. Salting table keys
// with it keeps entries of positions from different piece sets apart when one
// table is reused across problems: the attacker's hand and the board then
// determine the defender's hand.
uint64_t material_salt(const Position& pos, Color attacker) {
  int counts[PIECE_TYPE_NB] = {0};
  for (Square s = 0; s < SQ_NB; ++s)
    if (pos.piece_on(s) != NO_PIECE) ++counts[hand_type(type_of(pos.piece_on(s))) + (color_of(pos.piece_on(s)) == WHITE && type_of(pos.piece_on(s)) == KING ? 1 : 0)];
  for (int c = 0; c < 2; ++c)
    for (int pt = PAWN; pt < KING; ++pt) counts[pt] += hand_count(pos.hand(Color(c)), PieceType(pt));
  uint64_t h = 0x6d617465ULL + uint64_t(attacker);
  for (int pt = 0; pt < PIECE_TYPE_NB; ++pt) h = mix64(h ^ (uint64_t(counts[pt]) << (pt * 3)));
  return h & ~1ULL;  // keep bit 0: it is the side-to-move bit of the board key
}

inline uint16_t add_len(uint16_t len) { return len < 65535 ? len + 1 : len; }

}  // namespace

Solver::Solver(uint64_t hash_mb) {
  init_core();
  tt_.resize(hash_mb);
}

void Solver::resize(uint64_t hash_mb) { tt_.resize(hash_mb); }

void Solver::clear() {
  tt_.clear();
  rep_table_.clear();
}

SearchFrame& Solver::frame(int ply) {
  // Frames are created once per new maximum depth and reused: the search loop itself never allocates.
  while (int(frames_.size()) <= ply) frames_.push_back(std::make_unique<SearchFrame>());
  return *frames_[ply];
}

void Solver::report_progress(uint32_t pn, uint32_t dn) {
  if (!progress_fn_) return;
  SearchProgress p;
  p.nodes = nodes_;
  p.time_ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - start_).count());
  p.hashfull = tt_.hashfull();
  p.root_pn = pn;
  p.root_dn = dn;
  p.max_ply_reached = max_ply_reached_;
  progress_fn_(progress_ctx_, p);
}

bool Solver::should_stop() {
  if (stopped_) return true;
  if (stop_requested_.load(std::memory_order_relaxed) && !extracting_) return stopped_ = true;
  if (limits_.nodes && nodes_ >= limits_.nodes && !extracting_) return stopped_ = true;
  if (extracting_ && nodes_ >= extract_node_budget_) return stopped_ = true;
  if ((nodes_ & 1023) == 0) {
    auto now = std::chrono::steady_clock::now();
    uint64_t ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(now - start_).count());
    if (limits_.time_ms && ms >= limits_.time_ms && !extracting_) return stopped_ = true;
    if (progress_fn_ && progress_interval_ms_ &&
        uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(now - last_report_).count()) >=
            progress_interval_ms_) {
      last_report_ = now;
      report_progress(root_pn_, root_dn_);
    }
  }
  return false;
}

void Solver::init_child(ChildNode& c, bool or_node, uint64_t path_key, MoveList& scratch) {
  c.hand = 0;
  c.mate_len = 0;
  c.path_dependent = 0;
  c.delayed = 0;
  pos_->do_move(c.move);
  ++nodes_;
  uint64_t fk = pos_->full_key();
  if (path_.contains(fk)) {
    c.pn = PN_INF; c.dn = 0; c.path_dependent = 1;
    pos_->undo_move();
    return;
  }
  uint64_t key = tt_key();
  Hand hand = attacker_hand();
  TTResult r = tt_.probe(key, hand);
  if (r.found && (r.pn == 0 || r.dn == 0)) {
    c.pn = r.pn; c.dn = r.dn; c.hand = r.hand; c.mate_len = r.mate_len;
  } else if (rep_table_.contains(path_key ^ fk)) {
    c.pn = PN_INF; c.dn = 0; c.path_dependent = 1;
  } else if (r.found) {
    c.pn = r.pn; c.dn = r.dn;
  } else if (or_node) {
    // A new AND node. No evasion: mate in one, settled here without a visit.
    generate_evasions(*pos_, scratch);
    if (scratch.size == 0) {
      c.pn = 0; c.dn = PN_INF;
      c.hand = and_node_proof_hand(*pos_, attacker_, HAND_ZERO);
      tt_.store(key, c.hand, 0, PN_INF, 0, 1);
    } else {
      c.pn = std::max(r.pn, evasion_weight(scratch));
      c.dn = r.dn;
    }
  } else {
    // A new OR node. No check: no mate, settled here.
    generate_checks(*pos_, scratch);
    if (scratch.size == 0) {
      c.pn = PN_INF; c.dn = 0;
      c.hand = or_node_disproof_hand(*pos_, attacker_, full_hand());
      tt_.store(key, c.hand, PN_INF, 0, 0, 1);
    } else {
      c.pn = r.pn;
      c.dn = std::max(r.dn, uint32_t(scratch.size));
    }
  }
  pos_->undo_move();
}

// Delayed expansion of interpositions (合駒の遅延展開, as in KomoringHeights):
// against a distant check the defender may drop any of up to seven piece types
// on each square between. Those drops are usually refuted the same way, so only
// the first drop on each square takes part in the search; the next one on that
// square is expanded when it is proven. The AND node is proven only when every
// drop has been, so this changes the order of work, never the verdict. Summing
// seven similar proof numbers would otherwise make far checks look seven times
// harder than they are.
void Solver::expand(SearchFrame& f, int ply, bool or_node, uint64_t path_key, int& n) {
  if (or_node) generate_checks(*pos_, f.moves);
  else generate_evasions(*pos_, f.moves);
  n = f.moves.size;
  MoveList& scratch = frame(ply + 1).moves;  // the child frame is not in use yet
  Bitboard drop_seen;
  for (int i = 0; i < n; ++i) {
    Move m = f.moves[i];
    ChildNode& c = f.child[i];
    c.move = m;
    if (!or_node && is_drop(m)) {
      Bitboard to = square_bb(move_to(m));
      if (drop_seen & to) {
        c.delayed = 1; c.pn = 1; c.dn = 1; c.hand = 0; c.mate_len = 0; c.path_dependent = 0;
        continue;
      }
      drop_seen |= to;
    }
    init_child(c, or_node, path_key, scratch);
    if ((or_node && c.pn == 0) || (!or_node && c.dn == 0 && !c.path_dependent)) {
      n = i + 1;  // settled: the rest need not be looked at
      break;
    }
  }
  // A drop proven at once lets the next one on its square in.
  if (!or_node)
    for (int i = 0; i < n; ++i)
      if (f.child[i].pn == 0 && !f.child[i].delayed && is_drop(f.child[i].move))
        activate_next_drop(f, n, i, or_node, path_key, ply);
}

void Solver::activate_next_drop(SearchFrame& f, int n, int proven, bool or_node, uint64_t path_key, int ply) {
  Square to = move_to(f.child[proven].move);
  for (int j = 0; j < n; ++j) {
    const ChildNode& c = f.child[j];
    if (!c.delayed && c.pn != 0 && is_drop(c.move) && move_to(c.move) == to) return;  // square still has a stand-in
  }
  MoveList& scratch = frame(ply + 1).moves;
  for (int j = 0; j < n; ++j) {
    ChildNode& c = f.child[j];
    if (!c.delayed || move_to(c.move) != to) continue;
    init_child(c, or_node, path_key, scratch);
    if (c.pn != 0) return;  // this one now stands for the square
  }
}

void Solver::finalize(SearchFrame& f, int n, bool or_node, uint32_t pn, uint32_t dn, uint64_t path_key,
                      uint32_t amount, NodeValue& out) {
  out.pn = pn;
  out.dn = dn;
  out.hand = attacker_hand();
  out.mate_len = 0;
  out.path_dependent = false;
  auto captured = [&](Move m) { return is_drop(m) ? NO_PIECE : pos_->piece_on(move_to(m)); };
  uint64_t key = tt_key();
  if (pn == 0) {
    if (or_node) {
      int b = -1;
      for (int i = 0; i < n; ++i)
        if (f.child[i].pn == 0 && (b < 0 || f.child[i].mate_len < f.child[b].mate_len)) b = i;
      const ChildNode& c = f.child[b];
      out.hand = hand_before_move(c.hand, c.move, captured(c.move));
      out.mate_len = add_len(c.mate_len);
    } else {
      Hand u = HAND_ZERO;
      uint16_t len = 0;
      for (int i = 0; i < n; ++i) {
        u = hand_max(u, f.child[i].hand);
        len = std::max(len, f.child[i].mate_len);
      }
      out.hand = and_node_proof_hand(*pos_, attacker_, u);
      out.mate_len = n ? add_len(len) : 0;
    }
    tt_.store(key, out.hand, 0, PN_INF, out.mate_len, amount);
  } else if (dn == 0) {
    if (or_node) {
      Hand meet = full_hand();
      for (int i = 0; i < n; ++i) {
        out.path_dependent |= f.child[i].path_dependent != 0;
        meet = hand_min(meet, hand_before_move(f.child[i].hand, f.child[i].move, captured(f.child[i].move)));
      }
      if (!out.path_dependent) out.hand = or_node_disproof_hand(*pos_, attacker_, meet);
    } else {
      int b = -1;
      for (int i = 0; i < n; ++i)
        if (f.child[i].dn == 0 && (b < 0 || (f.child[b].path_dependent && !f.child[i].path_dependent))) b = i;
      out.path_dependent = f.child[b].path_dependent != 0;
      out.hand = f.child[b].hand;
    }
    if (out.path_dependent) rep_table_.insert(path_key);
    else tt_.store(key, out.hand, PN_INF, 0, 0, amount);
  } else {
    tt_.store(key, attacker_hand(), pn, dn, 0, amount);
  }
}

NodeValue Solver::mid(int ply, uint32_t th_pn, uint32_t th_dn, uint64_t path_key) {
  NodeValue out;
  if (ply > max_ply_reached_) max_ply_reached_ = ply;
  if (ply >= limits_.max_ply) {
    // Too deep to follow: give up on this path only. A "no mate" built on this is not trusted.
    depth_cut_ = true;
    out = {PN_INF, 0, attacker_hand(), 0, true};
    return out;
  }
  bool or_node = pos_->side_to_move() == attacker_;
  uint64_t nodes_start = nodes_;
  SearchFrame& f = frame(ply);
  int n = 0;
  expand(f, ply, or_node, path_key, n);
  uint32_t pn = 1, dn = 1;
  for (;;) {
    // OR: pn = min child pn, dn = sum child dn. AND: the other way round.
    uint32_t min_v = PN_INF, second = PN_INF;
    uint64_t sum = 0;
    int best = -1;
    for (int i = 0; i < n; ++i) {
      const ChildNode& c = f.child[i];
      if (c.delayed) continue;
      uint32_t v = or_node ? c.pn : c.dn;
      uint32_t w = or_node ? c.dn : c.pn;
      sum += w;
      if (v < min_v || best < 0) {
        second = min_v;
        min_v = v;
        best = i;
      } else if (v < second) {
        second = v;
      }
    }
    uint32_t sum_v = min_v == 0 ? PN_INF : uint32_t(std::min<uint64_t>(sum, PN_INF - 1));
    if (n == 0) { min_v = PN_INF; sum_v = 0; }
    pn = or_node ? min_v : sum_v;
    dn = or_node ? sum_v : min_v;
    if (pn >= th_pn || dn >= th_dn || should_stop()) break;

    ChildNode& c = f.child[best];
    uint32_t th_min = or_node ? th_pn : th_dn;
    uint32_t th_sum = or_node ? th_dn : th_pn;
    uint32_t w_best = or_node ? c.dn : c.pn;
    // 1+epsilon trick (Pawlewicz & Lew): stay in the best child until it is a
    // quarter worse than the second best, not just one worse; this cuts the
    // thrashing between siblings of similar value.
    uint64_t child_th_min = std::min<uint64_t>(th_min, uint64_t(second) + std::max<uint32_t>(1, second / 4));
    uint64_t child_th_sum = std::min<uint64_t>(PN_INF, uint64_t(th_sum) - sum_v + w_best);
    uint32_t cth_pn = uint32_t(or_node ? child_th_min : child_th_sum);
    uint32_t cth_dn = uint32_t(or_node ? child_th_sum : child_th_min);

    pos_->do_move(c.move);
    ++nodes_;
    uint64_t fk = pos_->full_key();
    path_.insert(fk);
    NodeValue r = mid(ply + 1, cth_pn, cth_dn, path_key ^ fk);
    path_.erase(fk);
    pos_->undo_move();
    c.pn = r.pn;
    c.dn = r.dn;
    c.hand = r.hand;
    c.mate_len = r.mate_len;
    c.path_dependent = r.path_dependent;
    if (!or_node && r.pn == 0 && is_drop(c.move)) activate_next_drop(f, n, best, or_node, path_key, ply);
    if (ply == 0) { root_pn_ = pn; root_dn_ = dn; }
  }
  uint64_t spent = nodes_ - nodes_start;
  if (stopped_ && pn != 0 && dn != 0) {
    // Interrupted: keep the estimates, they are still valid lower bounds of work.
    tt_.store(tt_key(), attacker_hand(), pn, dn, 0, uint32_t(std::min<uint64_t>(spent, 0xffffffffu)));
    out = {pn, dn, attacker_hand(), 0, false};
    return out;
  }
  finalize(f, n, or_node, pn, dn, path_key, uint32_t(std::min<uint64_t>(spent, 0xffffffffu)), out);
  return out;
}

bool Solver::prove_here(int ply, uint64_t path_key) {
  NodeValue v = mid(ply, PN_INF, PN_INF, path_key);
  return v.pn == 0;
}

bool Solver::extract_pv(std::vector<Move>& pv, uint64_t root_path_key) {
  // Walk down the proof: at OR nodes the proven check with the shortest proof,
  // at AND nodes the evasion whose proof is longest. Entries lost to
  // replacement are proven again on the spot.
  extracting_ = true;
  extract_node_budget_ = nodes_ + std::max<uint64_t>(nodes_, 1000000);
  std::vector<uint64_t> keys;
  uint64_t path_key = root_path_key;
  bool ok = false;
  for (int ply = 0; ply < limits_.max_ply; ++ply) {
    bool or_node = pos_->side_to_move() == attacker_;
    MoveList list;
    if (or_node) generate_checks(*pos_, list);
    else generate_evasions(*pos_, list);
    if (!or_node && list.size == 0) { ok = true; break; }
    Move chosen = MOVE_NONE;
    for (int attempt = 0; attempt < 2 && chosen == MOVE_NONE; ++attempt) {
      int best_len = -1;
      bool all_proven = true;
      for (Move m : list) {
        pos_->do_move(m);
        uint64_t fk = pos_->full_key();
        bool proven = false;
        int len = 0;
        if (!path_.contains(fk)) {
          TTResult r = tt_.probe(tt_key(), attacker_hand());
          if (r.found && r.pn == 0) { proven = true; len = r.mate_len; }
          else if (!or_node && attempt == 0) {
            path_.insert(fk);
            proven = prove_here(ply + 1, path_key ^ fk);
            path_.erase(fk);
            if (proven) {
              TTResult r2 = tt_.probe(tt_key(), attacker_hand());
              len = r2.found && r2.pn == 0 ? r2.mate_len : 0;
            }
          }
        }
        pos_->undo_move();
        if (!proven) { all_proven = false; continue; }
        if (best_len < 0 || (or_node ? len < best_len : len > best_len)) { best_len = len; chosen = m; }
      }
      if (!or_node && !all_proven) chosen = MOVE_NONE;
      if (chosen == MOVE_NONE && (attempt > 0 || !prove_here(ply, path_key))) break;
    }
    if (chosen == MOVE_NONE || stopped_) break;
    pv.push_back(chosen);
    pos_->do_move(chosen);
    uint64_t fk = pos_->full_key();
    path_.insert(fk);
    keys.push_back(fk);
    path_key ^= fk;
  }
  for (size_t i = keys.size(); i-- > 0;) {
    path_.erase(keys[i]);
    pos_->undo_move();
  }
  extracting_ = false;
  if (!ok) pv.clear();
  return ok;
}

TTResult Solver::probe(const Position& pos, bool and_root) const {
  Color attacker = and_root ? ~pos.side_to_move() : pos.side_to_move();
  uint64_t key = TranspositionTable::fix_key(pos.board_key() ^ material_salt(pos, attacker));
  return tt_.probe(key, pos.hand(attacker));
}

SearchResult Solver::solve(const std::string& sfen, const SearchLimits& limits) {
  Position pos;
  try {
    pos.set_sfen(sfen);
  } catch (const std::invalid_argument& e) {
    SearchResult r;
    r.error = e.what();
    return r;
  }
  return solve(pos, limits);
}

SearchResult Solver::solve(Position& pos, const SearchLimits& limits) {
  SearchResult result;
  start_ = last_report_ = std::chrono::steady_clock::now();
  limits_ = limits;
  nodes_ = 0;
  stopped_ = false;
  depth_cut_ = false;
  extracting_ = false;
  max_ply_reached_ = 0;
  root_pn_ = root_dn_ = 1;
  pos_ = &pos;
  Color us = pos.side_to_move();
  attacker_ = pos.in_check() && limits.root_is_and_node_if_checked ? ~us : us;
  auto finish = [&]() {
    result.nodes = nodes_;
    result.time_ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - start_).count());
    result.hashfull = tt_.hashfull();
    result.max_ply_reached = max_ply_reached_;
    pos_ = nullptr;
    return result;
  };
  Square their_king = pos.king_square(~us);
  if (attacker_ == us && their_king != SQ_NONE && pos.attackers_to(us, their_king)) {
    result.error = "the side not to move is in check (its king could be captured)";
    return finish();
  }
  if (pos.king_square(~attacker_) == SQ_NONE) {
    result.status = MateStatus::NoMate;  // nothing to check
    return finish();
  }
  salt_ = material_salt(pos, attacker_);
  path_.clear();
  rep_table_.clear();
  uint64_t root_key = pos.full_key();
  path_.insert(root_key);
  NodeValue v = mid(0, PN_INF, PN_INF, root_key);
  root_pn_ = v.pn;
  root_dn_ = v.dn;
  if (v.pn == 0) {
    if (extract_pv(result.pv, root_key)) result.status = MateStatus::Mate;
    else result.error = "mate proven but the mating line could not be rebuilt within the node budget";
  } else if (v.dn == 0 && !depth_cut_) {
    result.status = MateStatus::NoMate;
  }
  path_.erase(root_key);
  report_progress(root_pn_, root_dn_);
  return finish();
}

}  // namespace usi_mate
