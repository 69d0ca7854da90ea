// The refinement walk over the proven tree: see refine.h.
#include "refine.h"

#include <algorithm>

#include "scoped_move.h"
#include "worker.h"

namespace usi_mate {

namespace {

// The tiny searches at attacker nodes: a check the table knows nothing of, or
// only with a proof number below kTinyPn, is searched (unbounded, so every
// proof in the table applies) until its proof number reaches kTinyPn or
// kTinyNodes nodes are spent: mates the defender can hardly resist, found for
// a few dozen nodes (shtsume's mt_min_pn is 4).
constexpr uint32_t kTinyPn = 4;
constexpr uint64_t kTinyNodes = 64;
// Each search of a check beside the line (ask_along_line) gets this many nodes.
constexpr uint64_t kAlongLineNodes = 2000;
// A defence whose proof the table lost is proved again within this many nodes.
constexpr uint64_t kReproveNodes = 100000;

}  // namespace

// The walk's values by position (full key), for this pass or an earlier one:
// open addressing, grown by doubling (the walk is not the search's hot loop).
struct TreeRefiner::Memo {
  struct Slot {
    uint64_t key = 0;  // 0: empty (full keys are never 0 in practice; such a position is not memoised)
    uint8_t pass = 0;
    Value value;
  };
  std::vector<Slot> slots = std::vector<Slot>(1 << 12);
  size_t used = 0;

  size_t mask() const { return slots.size() - 1; }
  Slot* find(uint64_t key) {
    for (size_t i = (key * 0x9e3779b97f4a7c15ULL) >> 20 & mask();; i = (i + 1) & mask()) {
      if (slots[i].key == key) return &slots[i];
      if (slots[i].key == 0) return nullptr;
    }
  }
  void put(uint64_t key, uint8_t pass, const Value& v) {
    if (key == 0) return;
    if (2 * (used + 1) > slots.size()) grow();
    for (size_t i = (key * 0x9e3779b97f4a7c15ULL) >> 20 & mask();; i = (i + 1) & mask()) {
      if (slots[i].key == key || slots[i].key == 0) {
        used += slots[i].key == 0;
        slots[i] = {key, pass, v};
        return;
      }
    }
  }
  void grow() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    used = 0;
    for (const Slot& s : old)
      if (s.key) put(s.key, s.pass, s.value);
  }
};

TreeRefiner::TreeRefiner(Worker& worker) : w_(worker), memo_(new Memo) {}
TreeRefiner::~TreeRefiner() = default;

bool TreeRefiner::run(uint64_t root_key, int passes) {
  uint64_t before = w_.nodes();
  bool done = false;
  for (int p = 0; p < passes; ++p) {
    pass_ = uint8_t(p + 1);
    Value v;
    if (!walk(0, root_key, v) || w_.monitor().exhausted()) break;
    if (!read_line()) break;
    bool shorter = !done || v.len < root_.len;
    root_ = v;
    ++stats_.passes;
    done = true;
    // Another pass only after questions along the line found something to walk.
    if (p + 1 < passes && (!shorter || !ask_along_line(root_key))) break;
  }
  stats_.nodes += w_.nodes() - before;
  return done;
}

// At each attacker node of the line, from its end up, every other check the
// table has not settled gets an unbounded search of kAlongLineNodes: a check
// that joins the line a few plies further on is proven for a few hundred
// nodes, and the next pass walks it, carrying the saving to the root through
// the values. A bounded search from the root would have to find it again
// through every ply above, hopeless when a long work's saving lies near the
// end of its line (docs/DFPN.md, "The refinement walk"). True
// when some check now has a mate shorter than the line's from there.
bool TreeRefiner::ask_along_line(uint64_t root_key) {
  int len = int(line_.size());
  if (len < 3) return false;
  std::vector<std::unique_ptr<ScopedMove>> made;
  uint64_t path_key = root_key;
  for (int i = 0; i < len - 1; ++i) {
    made.push_back(std::make_unique<ScopedMove>(w_.position(), w_.path(), line_[size_t(i)]));
    path_key ^= made.back()->key();
  }
  bool found = false;
  for (int d = (len - 1) & ~1; d >= 0 && !w_.monitor().exhausted(); d -= 2) {
    while (int(made.size()) > d) {
      path_key ^= made.back()->key();
      made.pop_back();
    }
    if (len - d < 3) continue;
    // Every other check the table has not settled: an unbounded search, so
    // that every proof in the table applies (a sibling that joins the line a
    // few plies further on is proven in a few hundred nodes).
    uint16_t r = uint16_t(len - d);
    MoveList checks;
    generate_checks(w_.position(), checks);
    for (Move m : checks) {
      if (m == line_[size_t(d)]) continue;
      ScopedMove child(w_.position(), w_.path(), m);
      TTResult t = w_.probe_here();
      if (t.found && (t.pn == 0 || t.dn == 0)) {
        found |= t.pn == 0 && add_len(t.mate_len) < r;
        continue;
      }
      uint64_t n0 = w_.nodes();
      NodeValue v;
      {
        auto scope = w_.budget_scope(kAlongLineNodes);
        v = w_.prove(d + 1, path_key ^ child.key(), BUDGET_NONE);
      }
      stats_.along_nodes += w_.nodes() - n0;
      if (w_.should_stop()) break;  // (the enclosing budget, not this search's)
      found |= v.pn == 0 && add_len(v.mate_len) < r;
    }
  }
  while (!made.empty()) made.pop_back();
  return found;
}

// The moves chosen in the last pass from the root: the checks chosen and the
// defences taken, down to a defender node with nothing that counts.
bool TreeRefiner::read_line() {
  std::vector<std::unique_ptr<ScopedMove>> made;
  std::vector<Move> line;
  bool ok = false;
  for (;;) {
    Memo::Slot* e = memo_->find(w_.position().full_key());
    if (!e || e->pass != pass_) break;
    if (e->value.move == MOVE_NONE) {
      ok = !w_.attacker_to_move();
      break;
    }
    if (int(line.size()) >= w_.limits().max_ply) break;
    line.push_back(e->value.move);
    made.push_back(std::make_unique<ScopedMove>(w_.position(), e->value.move));
  }
  while (!made.empty()) made.pop_back();
  if (ok) line_.swap(line);
  return ok;
}

bool TreeRefiner::walk(int ply, uint64_t path_key, Value& out) {
  uint64_t key = w_.position().full_key();
  if (Memo::Slot* e = memo_->find(key); e && e->pass == pass_) {
    out = e->value;
    return true;
  }
  // The walk counts no nodes of its own: read the clock every 16 positions.
  if ((++stats_.positions & 15) == 0) w_.poll();
  if (w_.monitor().exhausted() || ply >= w_.limits().max_ply) return false;
  bool ok = w_.attacker_to_move() ? walk_or(ply, path_key, out) : walk_and(ply, path_key, out);
  if (ok) memo_->put(key, pass_, out);
  return ok;
}

struct TreeRefiner::CheckCand {
  Move move;
  uint16_t len;  // walked this pass: its value; else an estimate (an earlier pass's value, or the recorded length)
  int spare;
  bool walked;
};

// walk_or's candidates: the checks the table proves, after a tiny search of
// each it has hardly tried. False when the enclosing budget ran out.
bool TreeRefiner::proven_checks(int ply, uint64_t path_key, std::vector<CheckCand>& cands) {
  MoveList checks;
  generate_checks(w_.position(), checks);
  cands.reserve(size_t(checks.size));
  for (Move m : checks) {
    ScopedMove child(w_.position(), m);
    if (w_.on_path(child.key())) continue;
    TTResult t = w_.probe_here();
    bool tiny = !(t.found && (t.pn == 0 || t.dn == 0)) && (!t.found || t.pn < kTinyPn);
    if (tiny && !t.found) {
      // A new defender node starts at its number of replies (drops to one
      // square once, as the search counts them): with that many, the tiny
      // search would stop at once, so it is not started.
      MoveList replies;
      generate_evasions(w_.position(), replies);
      tiny = evasion_weight(replies) < kTinyPn;
    }
    if (tiny) {
      // A tiny search: mates the defender can hardly resist.
      w_.path().insert(child.key());
      uint64_t n0 = w_.nodes();
      {
        auto scope = w_.budget_scope(kTinyNodes);
        w_.mid(ply + 1, kTinyPn, PN_INF, path_key ^ child.key(), BUDGET_NONE);
      }
      w_.path().erase(child.key());
      stats_.tiny_nodes += w_.nodes() - n0;
      if (w_.should_stop()) return false;  // (the enclosing budget, not the tiny one)
      t = w_.probe_here();
    }
    if (!(t.found && t.pn == 0)) continue;
    CheckCand c{m, t.mate_len, 1 << 29, false};
    if (Memo::Slot* e = memo_->find(child.key())) {
      c.len = std::min(c.len, e->value.len);
      c.spare = e->value.spare;
    }
    cands.push_back(c);
  }
  return true;
}

// The index of the best candidate, -1 when none has a mate.
int TreeRefiner::best_check(const std::vector<CheckCand>& cands) {
  int best = -1;
  for (int i = 0; i < int(cands.size()); ++i) {
    const CheckCand& c = cands[size_t(i)];
    if (c.len >= LEN_INF) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const CheckCand& b = cands[size_t(best)];
    // The shortest; among equals the one walked, then the fewest spare pieces.
    bool better = c.len != b.len ? c.len < b.len : c.walked != b.walked ? c.walked : c.spare < b.spare;
    if (better) best = i;
  }
  return best;
}

bool TreeRefiner::walk_or(int ply, uint64_t path_key, Value& out) {
  std::vector<CheckCand> cands;
  if (!proven_checks(ply, path_key, cands)) return false;
  // Walk the best until the best is one already walked.
  for (;;) {
    int best = best_check(cands);
    if (best < 0) return false;
    CheckCand& c = cands[size_t(best)];
    if (c.walked) {
      out.len = add_len(c.len);
      out.spare = c.spare;
      out.move = c.move;
      return true;
    }
    Value v;
    bool ok;
    {
      ScopedMove child(w_.position(), w_.path(), c.move);
      ok = walk(ply + 1, path_key ^ child.key(), v);
    }
    if (w_.monitor().exhausted()) return false;
    c.walked = true;
    if (!ok) {
      c.len = LEN_INF;
      continue;
    }
    c.len = v.len;
    c.spare = v.spare;
  }
}

bool TreeRefiner::ensure_proven(int ply, uint64_t path_key) {
  TTResult t = w_.probe_here();
  if (t.found && t.pn == 0) return true;
  auto scope = w_.budget_scope(kReproveNodes);
  uint64_t n0 = w_.nodes();
  bool ok = w_.prove(ply, path_key, BUDGET_NONE).pn == 0;
  stats_.reprove_nodes += w_.nodes() - n0;
  return ok;
}

struct TreeRefiner::Reply {
  Move move;
  uint16_t rec;  // a proven bound of its mate: the table's recorded length (or an earlier pass's walk)
  Value v;
  bool walked;
};

// walk_and's replies, each with a proof in the table (proved again where it
// was lost). False when one cannot be proven or repeats a position of the path.
bool TreeRefiner::proven_replies(int ply, uint64_t path_key, std::vector<Reply>& replies) {
  MoveList evasions;
  generate_evasions(w_.position(), evasions);
  replies.reserve(size_t(evasions.size));
  for (Move m : evasions) {
    ScopedMove child(w_.position(), m);
    if (w_.on_path(child.key())) return false;  // a repetition: this tree cannot go here
    TTResult t = w_.probe_here();
    if (!(t.found && t.pn == 0)) {
      w_.path().insert(child.key());
      bool ok = ensure_proven(ply + 1, path_key ^ child.key());
      w_.path().erase(child.key());
      if (!ok) return false;
      t = w_.probe_here();
      if (!(t.found && t.pn == 0)) return false;
    }
    Reply r{m, t.mate_len, Value{}, false};
    if (Memo::Slot* e = memo_->find(child.key())) r.rec = std::min(r.rec, e->value.len);
    replies.push_back(r);
  }
  return true;
}

// Walks the replies not yet walked that are drops (or not), skipping those
// judged futile, longest recorded first; longest is the longest line walked.
bool TreeRefiner::walk_replies(int ply, uint64_t path_key, std::vector<Reply>& replies, bool drops,
                               const uint8_t* futile, uint16_t& longest) {
  for (;;) {
    int next = -1;
    for (int i = 0; i < int(replies.size()); ++i) {
      const Reply& r = replies[size_t(i)];
      if (r.walked || is_drop(r.move) != drops || (futile && futile[i])) continue;
      if (next < 0 || r.rec > replies[size_t(next)].rec) next = i;
    }
    if (next < 0) return true;
    Reply& r = replies[size_t(next)];
    r.walked = true;
    if (r.rec <= longest && longest > 0) {
      r.v.len = r.rec;  // (not walked: bounded by its record)
      r.v.spare = -1;
      continue;
    }
    ScopedMove child(w_.position(), w_.path(), r.move);
    if (!walk(ply + 1, path_key ^ child.key(), r.v)) return false;
    longest = std::max(longest, r.v.len);
  }
}

// Marks in futile the drops that are futile interpositions, judged against
// the walked lines of the replies that are not drops. False when the budget ran out.
bool TreeRefiner::judge_drops(int ply, uint64_t path_key, const std::vector<Reply>& replies, uint16_t longest,
                              uint8_t* futile) {
  Move others[MAX_MOVES];
  uint16_t lens[MAX_MOVES];
  int n_others = 0;
  for (const Reply& r : replies)
    if (!is_drop(r.move)) {
      others[n_others] = r.move;
      lens[n_others++] = r.v.len;
    }
  for (int i = 0; i < int(replies.size()); ++i) {
    // A drop no longer than the longest line walked decides nothing whether it
    // counts or not (there is another reply): not judged.
    if (!is_drop(replies[size_t(i)].move) || (n_others && replies[size_t(i)].rec <= longest)) continue;
    Hand h = HAND_ZERO;
    uint64_t n0 = w_.nodes();
    futile[i] =
        w_.futility().is_futile(ply, path_key, replies[size_t(i)].move, BUDGET_NONE, others, lens, n_others, &h);
    stats_.judge_nodes += w_.nodes() - n0;
    if (w_.monitor().exhausted()) return false;
  }
  return true;
}

// The longest defence among those walked, then the fewest spare pieces. Not
// the composers' "no spare pieces first" (line_reader.cpp): on a tree not yet
// shortest, a spare piece at a line's end may be an artefact of an attacker
// move still to be improved, and preferring lines without one cut lines short
// of the longest defence (docs/DFPN.md, "The refinement walk"). The line read
// at the end applies it.
void TreeRefiner::take_longest_defence(const std::vector<Reply>& replies, const uint8_t* futile, Value& out) const {
  const Reply* pick = nullptr;
  bool counted = false;
  for (int i = 0; i < int(replies.size()); ++i) {
    const Reply& r = replies[size_t(i)];
    if (futile[i]) continue;
    counted = true;
    if (r.v.spare < 0) continue;  // (not walked)
    if (!pick) {
      pick = &r;
      continue;
    }
    if (r.v.len != pick->v.len ? r.v.len > pick->v.len : r.v.spare < pick->v.spare) pick = &r;
  }
  if (!counted) {
    // Checkmate, or only futile interpositions left: the line ends here.
    out.len = 0;
    out.spare = hand_total(w_.attacker_hand());
    out.move = MOVE_NONE;
    return;
  }
  out.len = add_len(pick->v.len);
  out.spare = pick->v.spare;
  out.move = pick->move;
}

bool TreeRefiner::walk_and(int ply, uint64_t path_key, Value& out) {
  std::vector<Reply> replies;
  if (!proven_replies(ply, path_key, replies)) return false;
  // The longest defence decides, so replies are walked longest recorded
  // first, and one whose recorded length is no longer than the longest line
  // walked so far is not walked at all: its mate, no longer than the record,
  // changes neither the node's line nor its bound.
  uint16_t longest = 0;  // the longest line walked
  if (!walk_replies(ply, path_key, replies, false, nullptr, longest)) return false;
  // A drop's futility is judged against what the other replies allow (futility.cpp).
  uint8_t futile[MAX_MOVES] = {0};
  if (w_.futility().enabled() && !judge_drops(ply, path_key, replies, longest, futile)) return false;
  if (!walk_replies(ply, path_key, replies, true, futile, longest)) return false;
  take_longest_defence(replies, futile, out);
  return true;
}

}  // namespace usi_mate
