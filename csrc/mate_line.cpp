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
  TTResult r = tt_.probe(tt_key(), attacker_hand(), budget);
  if (r.found && r.dn == 0) return 1;
  if (r.found && r.pn == 0) return 0;
  NodeValue v = prove(ply, path_key, budget);
  return v.dn == 0 ? 1 : v.pn == 0 ? 0 : -1;
}

// Rebuilds a mating line of at most `budget` plies from the table, from the
// current position (ply plies below the root). At OR nodes: a proven check with
// the shortest mate. At AND nodes: a reply that resists longest; with `exact`,
// "longest" is proven (the reply after which no shorter mate exists), otherwise
// it is the longest mate the table has recorded. The position is restored
// before returning; false when the budget ran out or no line was found.
bool Solver::extract_line(int ply, uint64_t path_key, uint16_t budget, bool exact, bool tie_break,
                          std::vector<Move>& line) {
  // The moves made so far, each with its position on the path (undone on return).
  std::vector<std::unique_ptr<ScopedMove>> made;
  size_t start = line.size();
  uint16_t r = budget;
  bool ok = false;
  for (int depth = ply; depth < limits_.max_ply; ++depth) {
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
    if (!or_node && futile_mode_) {
      // Futile interpositions are no resistance: drop them from the replies;
      // when nothing else is left, the line ends here as a mate.
      int kept = 0;
      for (int i = 0; i < list.size; ++i) {
        Hand h;
        if (!(is_drop(list[i]) && is_futile_drop(depth, path_key, list[i], &h))) list.moves[kept++] = list[i];
      }
      list.size = kept;
      if (kept == 0) {
        ok = true;
        break;
      }
    }
    if (r == 0) break;
    uint16_t rc = child_budget(r);
    Move chosen = MOVE_NONE;
    uint16_t chosen_len = 0;
    if (or_node) {
      for (int attempt = 0; attempt < 2 && chosen == MOVE_NONE; ++attempt) {
        for (Move m : list) {
          ScopedMove child(*pos_, m);
          if (path_.contains(child.key())) continue;
          TTResult t = tt_.probe(tt_key(), attacker_hand(), rc);
          if (t.found && t.pn == 0 && (chosen == MOVE_NONE || t.mate_len < chosen_len)) {
            chosen = m;
            chosen_len = t.mate_len;
          }
        }
        if (chosen == MOVE_NONE && (attempt > 0 || prove(depth, path_key, r).pn != 0)) break;
      }
    } else {
      // Every reply must be mated within rc; note how long each mate is.
      uint16_t lens[MAX_MOVES];
      bool all = true;
      for (int i = 0; i < list.size && all; ++i) {
        ScopedMove child(*pos_, list[i]);
        TTResult t = tt_.probe(tt_key(), attacker_hand(), rc);
        if (!(t.found && t.pn == 0) && !path_.contains(child.key())) {
          path_.insert(child.key());
          if (prove(depth + 1, path_key ^ child.key(), rc).pn == 0) t = tt_.probe(tt_key(), attacker_hand(), rc);
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
      constexpr uint16_t kSpareHorizon = 128;
      int pick = -1;
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
                TTResult p = tt_.probe(tt_key(), attacker_hand(), uint16_t(t - 2));
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
            // Spare pieces at the end of each candidate's own line.
            int best = -1, best_spare = 1 << 30;
            for (int k = 0; k < nc; ++k) {
              int spare = is_drop(list[candidates[k]]) ? 1 : 0;  // a dropped piece ends up in the attacker's hand
              if (tie_break && t <= kSpareHorizon) {
                // The candidate's own line, read by the same rules (so deeper
                // defences avoid spare pieces too); each (position, length) once.
                ScopedMove child(*pos_, path_, list[candidates[k]]);
                uint64_t memo_key = child.key() ^ mix64(t);
                auto known = spare_memo_.find(memo_key);
                if (known != spare_memo_.end()) {
                  spare = known->second;
                } else {
                  std::vector<Move> sub;
                  bool sub_ok = extract_line(depth + 1, path_key ^ child.key(), t, exact, true, sub);
                  for (Move x : sub) pos_->do_move(x);
                  spare = sub_ok ? hand_total(attacker_hand()) : 1 << 29;
                  for (size_t j = sub.size(); j-- > 0;) pos_->undo_move();
                  if (sub_ok) spare_memo_[memo_key] = spare;
                }
              }
              if (spare < best_spare) {
                best_spare = spare;
                best = candidates[k];
              }
            }
            if (fallback < 0) {
              fallback = best;
              fallback_t = t;
            }
            if (best_spare == 0 || !tie_break || t > kSpareHorizon) {
              pick = best;
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
        for (int i = 0; i < list.size; ++i) t = std::max(t, lens[i]);
        int best_spare = 1 << 30;
        for (int i = 0; i < list.size; ++i) {
          if (lens[i] != t) continue;
          int spare = is_drop(list[i]) ? 1 : 0;  // a dropped piece ends up in the attacker's hand
          if (spare < best_spare) {
            best_spare = spare;
            pick = i;
          }
        }
      }
      if (pick < 0) break;
      chosen = list[pick];
      chosen_len = exact ? t : lens[pick];
    }
    if (chosen == MOVE_NONE || monitor_.exhausted()) break;
    line.push_back(chosen);
    made.push_back(std::make_unique<ScopedMove>(*pos_, path_, chosen));
    path_key ^= made.back()->key();
    r = chosen_len;
  }
  while (!made.empty()) made.pop_back();  // undo in reverse order
  if (!ok) line.resize(start);
  return ok;
}

}  // namespace usi_mate
