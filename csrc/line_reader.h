// The line reader: the mating line read off the table after a proof, with the
// tie-breaks composers expect (longest defence, then no spare pieces).
// Entries lost to replacement are proven again on the spot, within the
// enclosing budget (the worker's monitor). One per solver: its memo of lines
// already read keeps its memory from one read to the next.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "line_memo.h"
#include "movegen.h"
#include "scoped_move.h"
#include "types.h"

namespace usi_mate {

class Worker;

class LineReader {
 public:
  explicit LineReader(Worker& worker) : w_(worker) {}
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // A mating line of at most `budget` plies from the worker's current position
  // (the root, ply 0) into `line`. At OR nodes: a proven check with the
  // shortest mate. At AND nodes: a reply that resists longest; with `exact`,
  // "longest" is proven (the reply after which no shorter mate exists),
  // otherwise it is the longest mate the table has recorded. With `tie_break`,
  // the composers' choices among equals (spare pieces). False when the budget
  // ran out or no line was found. *tree_len: the mating tree the read proves,
  // for strict non-exact reads (LEN_INF otherwise).
  bool read(uint64_t root_key, uint16_t budget, bool exact, bool tie_break, std::vector<Move>& line,
            uint16_t* tree_len = nullptr);
  // The last read ran past its budget and finished on recorded lengths, so its
  // line may be shorter than what the table proves.
  bool cut_short() const { return recorded_lengths_only_; }
  // Positions the last read visited (its cost besides the nodes it searched).
  uint32_t positions() const { return positions_; }

 private:
  struct Read;
  enum class Step { Next, Mated, Failed };
  bool extract_line(int ply, uint64_t path_key, uint16_t budget, bool exact, bool tie_break, std::vector<Move>& line,
                    uint16_t* tree_len = nullptr, LineMemo* summary = nullptr);
  Step step(Read& rd, LineMemo* summary);
  bool budget_spent(bool exact);
  int drop_futile_replies(MoveList& list, const Read& rd, uint16_t rc);
  bool choose_check(const Read& rd, const MoveList& list, uint16_t rc, Move& chosen, uint16_t& chosen_len);
  // The proven checks of `list` and their recorded lengths; with `first_mate`, it
  // stops at the first check that mates at once.
  int proven_checks(const Read& rd, const MoveList& list, uint16_t rc, bool first_mate, Move* proven,
                    uint16_t* recorded);
  int fewest_spare_check(const Read& rd, const Move* proven, const uint16_t* recorded, int np, int pick, uint16_t rc);
  bool replies_mated(const Read& rd, const MoveList& list, uint16_t rc, uint16_t* lens);
  int longest_proven_reply(const Read& rd, const MoveList& list, uint16_t rc, uint16_t& t, uint64_t& pick_key);
  int level_candidates(const Read& rd, const MoveList& list, uint16_t t, bool* leveled, int* candidates);
  int best_candidate(const Read& rd, const MoveList& list, const int* candidates, int nc, uint16_t t, int& best_spare,
                     uint64_t& best_key);
  int longest_read_reply(Read& rd, const MoveList& list, const uint16_t* lens, uint16_t rc, uint16_t& t,
                         uint64_t& pick_key);
  bool finish(Read& rd, bool ok, uint16_t* tree_len, LineMemo* summary);
  bool child_line(int ply, uint64_t path_key, uint64_t memo_key, uint16_t budget, bool exact, bool tie_break,
                  LineMemo& out);
  int decide_no_mate_within(int ply, uint64_t path_key, uint16_t budget);
  uint16_t fresher_length(Move reply, uint16_t recorded);

  Worker& w_;
  // Lines already read while choosing defences: their length and the
  // attacker's spare pieces at their end, by position (and length, for exact
  // lines); cleared per read.
  LineMemoTable memo_;
  // Positions visited by the read (the clock is read every 16 of them).
  uint32_t positions_ = 0;
  // Set when a non-exact read runs past its budget: from then on it ranks an
  // AND node's replies by their recorded proof lengths instead of reading
  // each reply's line, and finishes within milliseconds.
  bool recorded_lengths_only_ = false;
};

}  // namespace usi_mate
