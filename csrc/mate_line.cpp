// The mating line: read off the table after a proof, with the tie-breaks
// composers expect (longest defence, then no spare pieces). Entries lost to
// replacement are proven again on the spot, within the enclosing budget.
#include <algorithm>

#include "scoped_move.h"
#include "solver.h"

namespace usi_mate {

// 1 when the position (the side to move as it stands) has no mate within
// `budget` plies, 0 when it has one, -1 when the search could not tell.
int Solver::decide_no_mate_within(int ply, uint64_t path_key, uint16_t budget) {
  TTResult r = tt_->probe(tt_key(), attacker_hand(), budget);
  if (r.found && r.dn == 0) return 1;
  if (r.found && r.pn == 0) return 0;
  NodeValue v = prove(ply, path_key, budget);
  return v.dn == 0 ? 1 : v.pn == 0 ? 0 : -1;
}

// The line from the current position (a child the caller has made, ply plies
// below the root), read by the same rules within `budget`: its length and the
// attacker's pieces in hand at its end (the composers' spare pieces), each
// `memo_key` read once per rebuild. False when no line could be read.
bool Solver::child_line(int ply, uint64_t path_key, uint64_t memo_key, uint16_t budget, bool exact, bool tie_break,
                        LineMemo& out) {
  if (const LineMemo* known = line_memo_.find(memo_key)) {
    out = *known;
    return true;
  }
  std::vector<Move> sub;
  if (!extract_line(ply, path_key, budget, exact, tie_break, sub, nullptr, &out)) return false;
  line_memo_.put(memo_key, out);
  return true;
}

// The recorded length of the mate after the defender's `reply` (`recorded`),
// checked one ply further: the shortest mate the table records for the
// attacker's checks there, plus one, when that is shorter. A record goes
// stale when a shorter mate is proven below it later (zukou-099: a reply
// recorded at 75 plies whose position has one proven check, recorded at 6).
// Two or three plies further changed nothing on 図巧's four lines that came
// out shorter than the whole read.
uint16_t Solver::fresher_length(Move reply, uint16_t recorded) {
  if (recorded == 0 || recorded >= BUDGET_NONE) return recorded;
  ScopedMove child(*pos_, reply);
  MoveList checks;
  generate_checks(*pos_, checks);
  uint16_t best = recorded;
  for (Move m : checks) {
    ScopedMove next(*pos_, m);
    if (path_.contains(next.key())) continue;
    TTResult t = tt_->probe(tt_key(), attacker_hand(), uint16_t(recorded - 1));
    if (t.found && t.pn == 0) best = std::min<uint16_t>(best, add_len(t.mate_len));
  }
  return best;
}

// Rebuilds a mating line of at most `budget` plies from the table, from the
// current position (ply plies below the root). At OR nodes: a proven check with
// the shortest mate. At AND nodes: a reply that resists longest; with `exact`,
// "longest" is proven (the reply after which no shorter mate exists), otherwise
// it is the longest mate the table has recorded. The position is restored
// before returning; false when the budget ran out or no line was found.
//
// A strict non-exact read also bounds the mate (`tree_len`, LEN_INF when it
// does not): the line's length, or longer where a defence not taken has a
// longer proven mate (its own read's bound, or its recorded length), so a
// mating tree the table proves. Recorded lengths go stale as shorter mates
// are proven below them: muso-006's first proof records 361 plies at the
// root, its first line reads 199 (published 43).
//
// With `summary`, only the line's length, spare pieces and bound are wanted
// (child_line): the read stops at the first AND node whose chosen reply's own
// line is already in the memo and adds that line's summary, and `line` holds
// only the moves up to there. Walking on instead read every position's line
// to its end again at each AND node above it: muso-030's first line (141
// plies) visited 2.09 M positions after a proof of 9.0 M nodes, now 0.89 M.
bool Solver::extract_line(int ply, uint64_t path_key, uint16_t budget, bool exact, bool tie_break,
                          std::vector<Move>& line, uint16_t* tree_len, LineMemo* summary) {
  // Lines are read to their ends for the composers' spare-piece choices only
  // while they are at most this many plies long: spare pieces arise near the
  // end of a line, and reading every candidate's line is quadratic.
  constexpr uint16_t kSpareHorizon = 128;
  // The moves made so far, each with its position on the path (undone on return).
  std::vector<std::unique_ptr<ScopedMove>> made;
  size_t start = line.size();
  uint16_t r = budget;
  bool ok = false;
  if (tree_len) *tree_len = LEN_INF;
  // Strict counts only: a composers' count judges futile drops against
  // recorded lengths, so its read may understate what the defence can force.
  bool bounding = !exact && !futile_mode_;
  uint32_t tree = 0;               // the longest defence not taken so far, counted from the start
  const LineMemo* rest = nullptr;  // (summary) the memoised line the read ends on
  for (int depth = ply; depth < limits_.max_ply; ++depth) {
    // A read visits up to the whole proof tree without counting a node, so the
    // clock is read here, every 16 positions (~30 us). Past the budget an
    // exact read fails (its caller has a fallback); any other goes on ranking
    // replies by their recorded lengths (recorded_lengths_only_).
    if (!recorded_lengths_only_ && (++line_positions_ & 15) == 0) monitor_.poll(nodes_);
    if (monitor_.exhausted() || (limits_.line_read_positions && line_positions_ >= limits_.line_read_positions)) {
      if (exact) break;
      recorded_lengths_only_ = true;
    }
    bool or_node = pos_->side_to_move() == attacker_;
    MoveList list;
    if (or_node)
      generate_checks(*pos_, list);
    else
      generate_evasions(*pos_, list);
    if (!or_node && list.size == 0) {
      ok = true;
      break;
    }
    uint16_t rc = child_budget(r);
    if (!or_node && futile_mode_) {
      // Futile interpositions are no resistance: drop them from the replies;
      // when nothing else is left, the line ends here as a mate. Futility is
      // judged as the search judges it: against the other replies' shortest
      // mates where judgements are uncapped, else the longest of the lengths
      // the table proves for them (is_futile_among). With no plies left the
      // mate must follow at once.
      Move others[MAX_MOVES];
      uint16_t lens[MAX_MOVES];
      int n_others = 0;
      for (Move m : list) {
        if (is_drop(m) || r == 0) continue;
        ScopedMove child(*pos_, m);
        TTResult t = tt_->probe(tt_key(), attacker_hand(), rc);
        if (!(t.found && t.pn == 0) && !futility_exact()) continue;  // (no bound from it)
        others[n_others] = m;
        lens[n_others++] = t.found && t.pn == 0 ? t.mate_len : rc;  // (exact: the budget bounds it)
      }
      int kept = 0;
      for (int i = 0; i < list.size; ++i) {
        Hand h;
        bool futile =
            is_drop(list[i]) && (r == 0 ? is_futile_drop(depth, path_key, list[i], 0, &h)
                                        : is_futile_among(depth, path_key, list[i], others, lens, n_others, &h));
        if (!futile) list.moves[kept++] = list[i];
      }
      list.size = kept;
      if (kept == 0) {
        ok = true;
        break;
      }
    }
    if (r == 0) break;
    Move chosen = MOVE_NONE;
    uint16_t chosen_len = 0;
    if (or_node) {
      // The checks the table proves within the budget, with their recorded lengths.
      Move proven[MAX_MOVES];
      uint16_t recorded[MAX_MOVES];
      int np = 0;
      for (int attempt = 0; attempt < 2 && np == 0; ++attempt) {
        for (Move m : list) {
          ScopedMove child(*pos_, m);
          if (path_.contains(child.key())) continue;
          TTResult t = tt_->probe(tt_key(), attacker_hand(), rc);
          if (t.found && t.pn == 0) {
            proven[np] = m;
            recorded[np++] = t.mate_len;
          }
        }
        if (np == 0 && (attempt > 0 || prove(depth, path_key, r).pn != 0)) break;
      }
      if (np == 0) break;
      int pick = 0;
      for (int i = 1; i < np; ++i)
        if (recorded[i] < recorded[pick]) pick = i;
      chosen_len = recorded[pick];
      // The attacker mates fastest and, composers add, uses up the pieces in
      // hand (zukou-025, -059: two mates of one length, one leaving a piece,
      // decide which defence is the longest without spare pieces). So the
      // lines of the candidates are read to their ends: all of them when lines
      // are not exact (recorded lengths go stale, see the AND nodes below),
      // the equally short ones when they are.
      if (tie_break && futile_mode_ && np > 1 && rc <= kSpareHorizon) {
        uint16_t best_len = 0;
        int best_spare = 1 << 30;
        int best = -1;
        for (int i = 0; i < np; ++i) {
          if (exact && recorded[i] != recorded[pick]) continue;
          uint16_t len = recorded[i];
          int spare = 1 << 29;
          ScopedMove child(*pos_, path_, proven[i]);
          uint64_t memo_key = child.key() ^ mix64(uint64_t(rc) + (exact ? 0x10000 : 0x20000));
          LineMemo read;
          if (child_line(depth + 1, path_key ^ child.key(), memo_key, exact ? recorded[i] : rc, exact, tie_break,
                         read)) {
            len = read.len;
            spare = read.spare;
          }
          if (best < 0 || len < best_len || (len == best_len && spare < best_spare)) {
            best = i;
            best_len = len;
            best_spare = spare;
          }
        }
        if (best >= 0) {
          pick = best;
          chosen_len = exact ? recorded[best] : rc;
        }
      }
      chosen = proven[pick];
    } else {
      // Every reply must be mated within rc; note how long each mate is.
      uint16_t lens[MAX_MOVES];
      bool all = true;
      for (int i = 0; i < list.size && all; ++i) {
        ScopedMove child(*pos_, list[i]);
        TTResult t = tt_->probe(tt_key(), attacker_hand(), rc);
        if (!(t.found && t.pn == 0) && !path_.contains(child.key())) {
          path_.insert(child.key());
          if (prove(depth + 1, path_key ^ child.key(), rc).pn == 0) t = tt_->probe(tt_key(), attacker_hand(), rc);
          path_.erase(child.key());
        }
        all = t.found && t.pn == 0;
        lens[i] = t.mate_len;
      }
      if (!all) break;
      // The longest resistance. With `exact`, by levels: level t holds the
      // replies after which no mate is shorter than t (proven), from the
      // longest down; otherwise the longest mate the table records.
      //
      // Composers' convention (駒余り): a defence whose line ends with pieces
      // left in the attacker's hand is not the answer when another defence
      // ends with none, even a shorter one (shtsume's defence ordering; zukou-015
      // and zukou-019 are published at 29 and 21 plies where the longest
      // defences, 31 and 25, leave a gold and a pawn). With tie_break, the
      // lines are read to their ends for this, while they are at most
      // kSpareHorizon plies long: spare pieces arise near the end of a line.
      int pick = -1;
      uint64_t pick_key = 0;  // the memo key its own line was read under (0: not read)
      uint16_t t = 0;
      if (exact) {
        bool leveled[MAX_MOVES] = {false};
        int fallback = -1;
        uint16_t fallback_t = 0;
        for (t = rc;; t = uint16_t(t - 2)) {
          int candidates[MAX_MOVES];
          int nc = 0;
          if (t < 2) {
            for (int i = 0; i < list.size; ++i)
              if (!leveled[i]) candidates[nc++] = i;
          } else {
            // First what the table already knows (the minimality proof left
            // exactly these facts behind), then searches.
            for (int i = 0; i < list.size; ++i) {
              if (leveled[i]) continue;
              int d;
              {
                ScopedMove child(*pos_, list[i]);
                TTResult p = tt_->probe(tt_key(), attacker_hand(), uint16_t(t - 2));
                d = p.found && p.dn == 0 ? 1 : 0;
              }
              if (!d) {
                ScopedMove child(*pos_, path_, list[i]);
                d = decide_no_mate_within(depth + 1, path_key ^ child.key(), uint16_t(t - 2));
              }
              if (d != 0) candidates[nc++] = i;  // undecided (budget spent) counts as resisting
              if (nc && !tie_break) break;       // the first longest reply is enough
            }
          }
          for (int k = 0; k < nc; ++k) leveled[candidates[k]] = true;
          if (nc > 0) {
            // Spare pieces at the end of each candidate's own line, and its
            // length: no spare pieces first, then the longest line, then the
            // fewest spare pieces. A line can come out shorter than its level
            // under the composers' count, since a drop futile against a longer
            // bound may be resistance against a shorter one (zukou-056: two
            // replies at level 21, one read as 15 plies; taking it answered a
            // 19-ply line to a proven 25-ply minimum).
            int best = -1, best_spare = 1 << 30, best_len = 0;
            uint64_t best_key = 0;
            for (int k = 0; k < nc; ++k) {
              int spare = is_drop(list[candidates[k]]) ? 1 : 0;  // a dropped piece ends up in the attacker's hand
              int len = t;
              uint64_t memo_key = 0;
              if (tie_break && t <= kSpareHorizon) {
                // The candidate's own line, read by the same rules (so deeper
                // defences avoid spare pieces too); each (position, length) once.
                ScopedMove child(*pos_, path_, list[candidates[k]]);
                LineMemo read;
                memo_key = child.key() ^ mix64(t);
                bool have = child_line(depth + 1, path_key ^ child.key(), memo_key, t, exact, true, read);
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
            if (fallback < 0) {
              fallback = best;
              fallback_t = t;
            }
            // Only the composers' count lets a shorter defence without spare
            // pieces win over a longer one; the strict count keeps the longest.
            if (best_spare == 0 || !tie_break || !futile_mode_ || t > kSpareHorizon) {
              pick = best;
              pick_key = best_key;
              break;
            }
          }
          if (t < 2) break;
        }
        if (pick < 0) {
          pick = fallback;
          t = fallback_t;
        }
      } else {
        // The longest line each reply gets from what the table knows: its own
        // line, read to the end by the same rules. Recorded proof lengths go
        // stale as the post-search finds shorter mates deeper down (zukou-004:
        // both replies recorded 37 plies, one had a 23-ply line and was
        // chosen, a 25-ply answer to a 39-ply problem); lines never overstate
        // a mate, so the longest of them errs long, never short.
        int best_spare = 1 << 30;
        uint16_t best_len = 0;
        uint16_t bounds[MAX_MOVES];  // a proven bound of each reply's mate (recorded, or its read's)
        for (int i = 0; i < list.size; ++i) {
          uint16_t len = lens[i];
          bounds[i] = lens[i];
          uint64_t read_key = 0;                 // the memo key of its read line (0: none)
          int spare = is_drop(list[i]) ? 1 : 0;  // a dropped piece ends up in the attacker's hand
          if (list.size > 1 && !recorded_lengths_only_) {
            ScopedMove child(*pos_, path_, list[i]);
            uint64_t memo_key = child.key() ^ 0x6c696e65ULL;  // not a (position, length) key of the exact lines
            LineMemo read;
            if (child_line(depth + 1, path_key ^ child.key(), memo_key, rc, false, tie_break, read)) {
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
          bool spare_first = tie_break && futile_mode_ && !recorded_lengths_only_ && (spare == 0) != (best_spare == 0);
          bool better = pick < 0 || (spare_first ? spare == 0 : len != best_len ? len > best_len : spare < best_spare);
          if (better) {
            pick = i;
            pick_key = read_key;
            best_len = len;
            best_spare = spare;
          }
        }
        // The chosen reply's line fits in the budget; it is read again from
        // the table (its recorded length, when that is all that is read).
        t = recorded_lengths_only_ && pick >= 0 ? lens[pick] : rc;
        for (int i = 0; i < list.size && bounding; ++i) {
          if (i == pick) continue;  // (its line is the rest of this one)
          if (bounds[i] >= BUDGET_NONE) {
            bounding = false;
            break;
          }
          tree = std::max<uint32_t>(tree, uint32_t(line.size() - start) + 1 + bounds[i]);
        }
      }
      if (pick < 0) break;
      chosen = list[pick];
      chosen_len = t;
      if (summary && pick_key && (rest = line_memo_.find(pick_key)) != nullptr) {
        // The rest is the chosen reply's own line, read just now by the same rules.
        line.push_back(chosen);
        ok = true;
        break;
      }
    }
    if (chosen == MOVE_NONE || (exact && monitor_.exhausted())) break;
    line.push_back(chosen);
    made.push_back(std::make_unique<ScopedMove>(*pos_, path_, chosen));
    path_key ^= made.back()->key();
    r = chosen_len;
  }
  if (ok && summary) {
    uint32_t plies = uint32_t(line.size() - start);
    if (rest) {
      summary->len = uint16_t(std::min<uint32_t>(plies + rest->len, LEN_INF));
      summary->spare = rest->spare;
      if (rest->bound >= LEN_INF)
        bounding = false;
      else
        tree = std::max<uint32_t>(tree, plies + rest->bound);
    } else {
      // (The moves are still made: the attacker's hand is the one at the line's end.)
      summary->len = uint16_t(plies);
      summary->spare = hand_total(attacker_hand());
    }
  }
  while (!made.empty()) made.pop_back();  // undo in reverse order
  if (!ok) {
    line.resize(start);
    return false;
  }
  uint32_t plies = summary ? summary->len : uint32_t(line.size() - start);
  uint16_t bound = bounding ? uint16_t(std::min<uint32_t>(std::max<uint32_t>(tree, plies), LEN_INF)) : LEN_INF;
  if (tree_len) *tree_len = bound;
  if (summary) summary->bound = bound;
  return true;
}

}  // namespace usi_mate
