// The mating line read off the table (line_reader.h).
#include "line_reader.h"

#include <algorithm>

#include "worker.h"

namespace usi_mate {

namespace {

// Lines are read to their ends for the composers' spare-piece choices only
// while they are at most this many plies long: spare pieces arise near the
// end of a line, and reading every candidate's line is quadratic.
constexpr uint16_t kSpareHorizon = 128;

}  // namespace

// One extract_line call: where it stands and what it has found so far.
struct LineReader::Read {
  Read(int ply, uint64_t path_key, uint16_t budget, bool exact, bool tie_break, std::vector<Move>& line, bool futile)
      : depth(ply),
        path_key(path_key),
        r(budget),
        exact(exact),
        tie_break(tie_break),
        line(line),
        start(line.size()),
        // Strict counts only: a composers' count judges futile drops against
        // recorded lengths, so its read may understate what the defence can force.
        bounding(!exact && !futile) {}
  int depth;
  uint64_t path_key;
  uint16_t r;  // the plies left for the rest of the line
  bool exact, tie_break;
  std::vector<Move>& line;
  size_t start;
  bool bounding;
  uint32_t tree = 0;               // the longest defence not taken so far, counted from the start
  const LineMemo* rest = nullptr;  // (summary) the memoised line the read ends on
  // The moves made so far, each with its position on the path (undone on return).
  std::vector<std::unique_ptr<ScopedMove>> made;
};

bool LineReader::read(uint64_t root_key, uint16_t budget, bool exact, bool tie_break, std::vector<Move>& line,
                      uint16_t* tree_len) {
  line.clear();
  memo_.clear();
  recorded_lengths_only_ = false;
  positions_ = 0;
  return extract_line(0, root_key, budget, exact, tie_break, line, tree_len);
}

// 1 when the position (the side to move as it stands) has no mate within
// `budget` plies, 0 when it has one, -1 when the search could not tell.
int LineReader::decide_no_mate_within(int ply, uint64_t path_key, uint16_t budget) {
  TTResult r = w_.probe_here(budget);
  if (r.found && r.dn == 0) return 1;
  if (r.found && r.pn == 0) return 0;
  NodeValue v = w_.prove(ply, path_key, budget);
  return v.dn == 0 ? 1 : v.pn == 0 ? 0 : -1;
}

// The line from the current position (a child the caller has made, ply plies
// below the root), read by the same rules within `budget`: its length and the
// attacker's pieces in hand at its end (the composers' spare pieces), each
// `memo_key` read once per read. False when no line could be read.
bool LineReader::child_line(int ply, uint64_t path_key, uint64_t memo_key, uint16_t budget, bool exact, bool tie_break,
                            LineMemo& out) {
  if (const LineMemo* known = memo_.find(memo_key)) {
    out = *known;
    return true;
  }
  std::vector<Move> sub;
  if (!extract_line(ply, path_key, budget, exact, tie_break, sub, nullptr, &out)) return false;
  memo_.put(memo_key, out);
  return true;
}

// The recorded length of the mate after the defender's `reply` (`recorded`),
// checked one ply further: the shortest mate the table records for the
// attacker's checks there, plus one, when that is shorter. A record goes
// stale when a shorter mate is proven below it later, and the records one ply
// down can be far fresher; two or three plies further gained
// nothing on the lines measured (docs/USI.md, "Limits").
uint16_t LineReader::fresher_length(Move reply, uint16_t recorded) {
  if (recorded == 0 || recorded >= BUDGET_NONE) return recorded;
  ScopedMove child(w_.position(), reply);
  MoveList checks;
  generate_checks(w_.position(), checks);
  uint16_t best = recorded;
  for (Move m : checks) {
    ScopedMove next(w_.position(), m);
    if (w_.on_path(next.key())) continue;
    TTResult t = w_.probe_here(uint16_t(recorded - 1));
    if (t.found && t.pn == 0) best = std::min<uint16_t>(best, add_len(t.mate_len));
  }
  return best;
}

// Reads a mating line of at most `budget` plies from the current position
// (ply plies below the root), by the rules of read(). The position is
// restored before returning.
//
// A strict non-exact read also bounds the mate (`tree_len`, LEN_INF when it
// does not): the line's length, or longer where a defence not taken has a
// longer proven mate (its own read's bound, or its recorded length), so a
// mating tree the table proves. Recorded lengths go stale as shorter mates
// are proven below them (a proof records the child proven then, and nothing
// goes back up when a sibling is proven shorter), so the tree read can be far
// shorter than the root's record (docs/DFPN.md, "Mate lengths and the
// shortest mate", step 1).
//
// With `summary`, only the line's length, spare pieces and bound are wanted
// (child_line): the read stops at the first AND node whose chosen reply's own
// line is already in the memo and adds that line's summary, and `line` holds
// only the moves up to there. Walking on instead read every position's line
// to its end again at each AND node above it, so the deeper a position, the
// more often it was read (docs/DFPN.md, "Mate lengths and the shortest mate",
// step 1, has the positions read before and after).
bool LineReader::extract_line(int ply, uint64_t path_key, uint16_t budget, bool exact, bool tie_break,
                              std::vector<Move>& line, uint16_t* tree_len, LineMemo* summary) {
  Read rd(ply, path_key, budget, exact, tie_break, line, w_.futility().enabled());
  if (tree_len) *tree_len = LEN_INF;
  Step last = Step::Failed;
  for (; rd.depth < w_.limits().max_ply; ++rd.depth) {
    if (budget_spent(exact)) break;
    last = step(rd, summary);
    if (last != Step::Next) break;
  }
  return finish(rd, last == Step::Mated, tree_len, summary);
}

// A read visits up to the whole proof tree without counting a node, so the
// clock is read here, every 16 positions (a small part of the grace:
// docs/USI.md, "Limits"). Past the budget an exact read fails (its caller has
// a fallback); any other goes on ranking replies by their recorded lengths
// (recorded_lengths_only_).
bool LineReader::budget_spent(bool exact) {
  if (!recorded_lengths_only_ && (++positions_ & 15) == 0) w_.poll();
  if (w_.monitor().exhausted() ||
      (w_.limits().test.line_read_positions && positions_ >= w_.limits().test.line_read_positions)) {
    if (exact) return true;
    recorded_lengths_only_ = true;
  }
  return false;
}

// One move of the line from the current position: Next when it was made,
// Mated when the line ends here (mate, or the rest read from the memo),
// Failed when no move could be chosen within the budget.
LineReader::Step LineReader::step(Read& rd, LineMemo* summary) {
  bool or_node = w_.attacker_to_move();
  MoveList list;
  if (or_node)
    generate_checks(w_.position(), list);
  else
    generate_evasions(w_.position(), list);
  if (!or_node && list.size == 0) return Step::Mated;
  uint16_t rc = child_budget(rd.r);
  if (!or_node && w_.futility().enabled() && drop_futile_replies(list, rd, rc) == 0) return Step::Mated;
  if (rd.r == 0) return Step::Failed;
  Move chosen = MOVE_NONE;
  uint16_t chosen_len = 0;
  if (or_node) {
    if (!choose_check(rd, list, rc, chosen, chosen_len)) return Step::Failed;
  } else {
    uint16_t lens[MAX_MOVES];
    if (!replies_mated(rd, list, rc, lens)) return Step::Failed;
    uint64_t pick_key = 0;  // the memo key its own line was read under (0: not read)
    uint16_t t = 0;
    int pick = rd.exact ? longest_proven_reply(rd, list, rc, t, pick_key)
                        : longest_read_reply(rd, list, lens, rc, t, pick_key);
    if (pick < 0) return Step::Failed;
    chosen = list[pick];
    chosen_len = t;
    if (summary && pick_key && (rd.rest = memo_.find(pick_key)) != nullptr) {
      // The rest is the chosen reply's own line, read just now by the same rules.
      rd.line.push_back(chosen);
      return Step::Mated;
    }
  }
  if (chosen == MOVE_NONE || (rd.exact && w_.monitor().exhausted())) return Step::Failed;
  rd.line.push_back(chosen);
  rd.made.push_back(std::make_unique<ScopedMove>(w_.position(), w_.path(), chosen));
  rd.path_key ^= rd.made.back()->key();
  rd.r = chosen_len;
  return Step::Next;
}

// Futile interpositions are no resistance: drops them from the replies, and
// returns how many are left (none: the line ends here as a mate). Futility is
// judged as the search judges it: against the other replies' shortest mates
// where judgements are uncapped, else the longest of the lengths the table
// proves for them (is_futile_among). With no plies left the mate must follow
// at once.
int LineReader::drop_futile_replies(MoveList& list, const Read& rd, uint16_t rc) {
  Move others[MAX_MOVES];
  uint16_t lens[MAX_MOVES];
  int n_others = 0;
  for (Move m : list) {
    if (is_drop(m) || rd.r == 0) continue;
    ScopedMove child(w_.position(), m);
    TTResult t = w_.probe_here(rc);
    if (!(t.found && t.pn == 0) && !w_.futility().exact()) continue;  // (no bound from it)
    others[n_others] = m;
    lens[n_others++] = t.found && t.pn == 0 ? t.mate_len : rc;  // (exact: the budget bounds it)
  }
  int kept = 0;
  for (int i = 0; i < list.size; ++i) {
    Hand h;
    bool futile =
        is_drop(list[i]) && w_.futility().is_futile(rd.depth, rd.path_key, list[i], rd.r, others, lens, n_others, &h);
    if (!futile) list.moves[kept++] = list[i];
  }
  list.size = kept;
  return kept;
}

// The checks the table proves within rc, with their recorded lengths (proving
// the position again once when none is there).
int LineReader::proven_checks(const Read& rd, const MoveList& list, uint16_t rc, bool first_mate, Move* proven,
                              uint16_t* recorded) {
  int np = 0;
  for (int attempt = 0; attempt < 2 && np == 0; ++attempt) {
    for (Move m : list) {
      ScopedMove child(w_.position(), m);
      if (w_.on_path(child.key())) continue;
      TTResult t = w_.probe_here(rc);
      if (t.found && t.pn == 0) {
        proven[np] = m;
        recorded[np++] = t.mate_len;
        // A check that mates at once is the first of the shortest: no later one is chosen.
        if (first_mate && t.mate_len == 0) return np;
      }
    }
    if (np == 0 && (attempt > 0 || w_.prove(rd.depth, rd.path_key, rd.r).pn != 0)) break;
  }
  return np;
}

// At an OR node: the proven check with the shortest mate. False when none is proven.
bool LineReader::choose_check(const Read& rd, const MoveList& list, uint16_t rc, Move& chosen, uint16_t& chosen_len) {
  Move proven[MAX_MOVES];
  uint16_t recorded[MAX_MOVES];
  // Without the composers' tie-break the first of the shortest checks is chosen.
  bool tie_break = rd.tie_break && w_.futility().enabled();
  int np = proven_checks(rd, list, rc, !tie_break, proven, recorded);
  if (np == 0) return false;
  int pick = 0;
  for (int i = 1; i < np; ++i)
    if (recorded[i] < recorded[pick]) pick = i;
  chosen_len = recorded[pick];
  // The attacker mates fastest and, composers add, uses up the pieces in
  // hand (two mates of one length, one leaving a piece, decide which
  // defence is the longest without spare pieces: docs/DFPN.md).
  if (tie_break && np > 1 && rc <= kSpareHorizon) {
    int best = fewest_spare_check(rd, proven, recorded, np, pick, rc);
    if (best >= 0) {
      pick = best;
      chosen_len = rd.exact ? recorded[best] : rc;
    }
  }
  chosen = proven[pick];
  return true;
}

// The candidates' lines read to their ends: all of them when lines are not
// exact (recorded lengths go stale, see the AND nodes), the equally short ones
// when they are. The shortest, then the fewest spare pieces; -1 when none.
int LineReader::fewest_spare_check(const Read& rd, const Move* proven, const uint16_t* recorded, int np, int pick,
                                   uint16_t rc) {
  uint16_t best_len = 0;
  int best_spare = 1 << 30;
  int best = -1;
  for (int i = 0; i < np; ++i) {
    if (rd.exact && recorded[i] != recorded[pick]) continue;
    uint16_t len = recorded[i];
    int spare = 1 << 29;
    ScopedMove child(w_.position(), w_.path(), proven[i]);
    uint64_t memo_key = child.key() ^ mix64(uint64_t(rc) + (rd.exact ? 0x10000 : 0x20000));
    LineMemo read;
    if (child_line(rd.depth + 1, rd.path_key ^ child.key(), memo_key, rd.exact ? recorded[i] : rc, rd.exact,
                   rd.tie_break, read)) {
      len = read.len;
      spare = read.spare;
    }
    if (best < 0 || len < best_len || (len == best_len && spare < best_spare)) {
      best = i;
      best_len = len;
      best_spare = spare;
    }
  }
  return best;
}

// At an AND node: every reply must be mated within rc (proven again where the
// table lost it); `lens` gets how long each mate is.
bool LineReader::replies_mated(const Read& rd, const MoveList& list, uint16_t rc, uint16_t* lens) {
  for (int i = 0; i < list.size; ++i) {
    ScopedMove child(w_.position(), list[i]);
    TTResult t = w_.probe_here(rc);
    if (!(t.found && t.pn == 0) && !w_.on_path(child.key())) {
      w_.path().insert(child.key());
      if (w_.prove(rd.depth + 1, rd.path_key ^ child.key(), rc).pn == 0) t = w_.probe_here(rc);
      w_.path().erase(child.key());
    }
    if (!(t.found && t.pn == 0)) return false;
    lens[i] = t.mate_len;
  }
  return true;
}

// The longest resistance, proven (exact reads), by levels: level t holds the
// replies after which no mate is shorter than t, from the longest down. `t`
// gets the chosen reply's level; -1 when none is chosen.
//
// Composers' convention (駒余り): a defence whose line ends with pieces left
// in the attacker's hand is not the answer when another defence ends with
// none, even a shorter one (shtsume's defence ordering; classics are published
// with shorter defences than the longest where that one leaves pieces:
// docs/DFPN.md, "Mate lengths and the shortest mate"). With
// tie_break, the lines are read to their ends for this, while they are at most
// kSpareHorizon plies long: spare pieces arise near the end of a line.
int LineReader::longest_proven_reply(const Read& rd, const MoveList& list, uint16_t rc, uint16_t& t,
                                     uint64_t& pick_key) {
  bool leveled[MAX_MOVES] = {false};
  int fallback = -1;
  uint16_t fallback_t = 0;
  for (t = rc;; t = uint16_t(t - 2)) {
    int candidates[MAX_MOVES];
    int nc = level_candidates(rd, list, t, leveled, candidates);
    if (nc > 0) {
      int best_spare = 1 << 30;
      uint64_t best_key = 0;
      int best = best_candidate(rd, list, candidates, nc, t, best_spare, best_key);
      if (fallback < 0) {
        fallback = best;
        fallback_t = t;
      }
      // Only the composers' count lets a shorter defence without spare
      // pieces win over a longer one; the strict count keeps the longest.
      if (best_spare == 0 || !rd.tie_break || !w_.futility().enabled() || t > kSpareHorizon) {
        pick_key = best_key;
        return best;
      }
    }
    if (t < 2) break;
  }
  t = fallback_t;
  return fallback;
}

// The replies not yet leveled after which no mate is shorter than t: first
// what the table already knows (the minimality proof left exactly these facts
// behind), then searches. An undecided reply (budget spent) counts as
// resisting. They are marked leveled; returns how many.
int LineReader::level_candidates(const Read& rd, const MoveList& list, uint16_t t, bool* leveled, int* candidates) {
  int nc = 0;
  if (t < 2) {
    for (int i = 0; i < list.size; ++i)
      if (!leveled[i]) candidates[nc++] = i;
  } else {
    for (int i = 0; i < list.size; ++i) {
      if (leveled[i]) continue;
      int d;
      {
        ScopedMove child(w_.position(), list[i]);
        TTResult p = w_.probe_here(uint16_t(t - 2));
        d = p.found && p.dn == 0 ? 1 : 0;
      }
      if (!d) {
        ScopedMove child(w_.position(), w_.path(), list[i]);
        d = decide_no_mate_within(rd.depth + 1, rd.path_key ^ child.key(), uint16_t(t - 2));
      }
      if (d != 0) candidates[nc++] = i;
      if (nc && !rd.tie_break) break;  // the first longest reply is enough
    }
  }
  for (int k = 0; k < nc; ++k) leveled[candidates[k]] = true;
  return nc;
}

// Of a level's candidates, by the spare pieces at the end of each one's own
// line and its length: no spare pieces first, then the longest line, then the
// fewest spare pieces. A line can come out shorter than its level under the
// composers' count, since a drop futile against a longer bound may be
// resistance against a shorter one (taking the level's first reply could
// answer a line shorter than the proven minimum; docs/DFPN.md, "Mate lengths
// and the shortest mate", step 3). `best_spare` and `best_key` (its line's
// memo key, 0: not read) of the chosen one.
int LineReader::best_candidate(const Read& rd, const MoveList& list, const int* candidates, int nc, uint16_t t,
                               int& best_spare, uint64_t& best_key) {
  int best = -1, best_len = 0;
  for (int k = 0; k < nc; ++k) {
    int spare = is_drop(list[candidates[k]]) ? 1 : 0;  // a dropped piece ends up in the attacker's hand
    int len = t;
    uint64_t memo_key = 0;
    if (rd.tie_break && t <= kSpareHorizon) {
      // The candidate's own line, read by the same rules (so deeper
      // defences avoid spare pieces too); each (position, length) once.
      ScopedMove child(w_.position(), w_.path(), list[candidates[k]]);
      LineMemo read;
      memo_key = child.key() ^ mix64(t);
      bool have = child_line(rd.depth + 1, rd.path_key ^ child.key(), memo_key, t, rd.exact, true, read);
      spare = have ? read.spare : 1 << 29;
      len = have ? read.len : 0;
    }
    bool better = best < 0 || ((spare == 0) != (best_spare == 0) ? spare == 0
                               : len != best_len                 ? len > best_len
                                                                 : spare < best_spare);
    if (better) {
      best_spare = spare;
      best_len = len;
      best = candidates[k];
      best_key = memo_key;
    }
  }
  return best;
}

// The longest line each reply gets from what the table knows (non-exact
// reads): its own line, read to the end by the same rules. Recorded proof
// lengths go stale as the post-search finds shorter mates deeper down (two
// replies recorded equally long can have lines far apart, and ranking by the
// records may take the shorter: docs/DFPN.md, "Mate lengths and the
// shortest mate", step 3); lines never overstate a mate, so the longest
// of them errs long, never short. `t` gets the plies the chosen reply's line
// is read within; the defences not taken bound the tree.
int LineReader::longest_read_reply(Read& rd, const MoveList& list, const uint16_t* lens, uint16_t rc, uint16_t& t,
                                   uint64_t& pick_key) {
  int pick = -1;
  int best_spare = 1 << 30;
  uint16_t best_len = 0;
  uint16_t bounds[MAX_MOVES];  // a proven bound of each reply's mate (recorded, or its read's)
  for (int i = 0; i < list.size; ++i) {
    uint16_t len = lens[i];
    bounds[i] = lens[i];
    uint64_t read_key = 0;                 // the memo key of its read line (0: none)
    int spare = is_drop(list[i]) ? 1 : 0;  // a dropped piece ends up in the attacker's hand
    if (list.size > 1 && !recorded_lengths_only_) {
      ScopedMove child(w_.position(), w_.path(), list[i]);
      uint64_t memo_key = child.key() ^ 0x6c696e65ULL;  // not a (position, length) key of the exact lines
      LineMemo read;
      if (child_line(rd.depth + 1, rd.path_key ^ child.key(), memo_key, rc, false, rd.tie_break, read)) {
        len = read.len;
        spare = read.spare;
        bounds[i] = std::min(bounds[i], read.bound);
        read_key = memo_key;
      }
    } else if (list.size > 1) {
      len = fresher_length(list[i], len);
    }
    // Composers' count (futile_mode_): no spare pieces first, then the
    // longest; strict count: the longest, then the fewest spare pieces.
    // (Not on recorded lengths: no line's end is known.)
    bool spare_first =
        rd.tie_break && w_.futility().enabled() && !recorded_lengths_only_ && (spare == 0) != (best_spare == 0);
    bool better = pick < 0 || (spare_first ? spare == 0 : len != best_len ? len > best_len : spare < best_spare);
    if (better) {
      pick = i;
      pick_key = read_key;
      best_len = len;
      best_spare = spare;
    }
  }
  // The chosen reply's line fits in the budget; it is read again from the
  // table (its recorded length, when that is all that is read).
  t = recorded_lengths_only_ && pick >= 0 ? lens[pick] : rc;
  for (int i = 0; i < list.size && rd.bounding; ++i) {
    if (i == pick) continue;  // (its line is the rest of this one)
    if (bounds[i] >= BUDGET_NONE) {
      rd.bounding = false;
      break;
    }
    rd.tree = std::max<uint32_t>(rd.tree, uint32_t(rd.line.size() - rd.start) + 1 + bounds[i]);
  }
  return pick;
}

// The read's end: its summary (with the moves still made, so the attacker's
// hand is the one at the line's end), the moves undone in reverse order, and
// the tree's bound. False (and the line as it was) when no line was read.
bool LineReader::finish(Read& rd, bool ok, uint16_t* tree_len, LineMemo* summary) {
  if (ok && summary) {
    uint32_t plies = uint32_t(rd.line.size() - rd.start);
    if (rd.rest) {
      summary->len = uint16_t(std::min<uint32_t>(plies + rd.rest->len, LEN_INF));
      summary->spare = rd.rest->spare;
      if (rd.rest->bound >= LEN_INF)
        rd.bounding = false;
      else
        rd.tree = std::max<uint32_t>(rd.tree, plies + rd.rest->bound);
    } else {
      summary->len = uint16_t(plies);
      summary->spare = hand_total(w_.attacker_hand());
    }
  }
  while (!rd.made.empty()) rd.made.pop_back();  // undo in reverse order
  if (!ok) {
    rd.line.resize(rd.start);
    return false;
  }
  uint32_t plies = summary ? summary->len : uint32_t(rd.line.size() - rd.start);
  uint16_t bound = rd.bounding ? uint16_t(std::min<uint32_t>(std::max<uint32_t>(rd.tree, plies), LEN_INF)) : LEN_INF;
  if (tree_len) *tree_len = bound;
  if (summary) summary->bound = bound;
  return true;
}

}  // namespace usi_mate
