// After the first proof: the shortest mate (PostSearchLevel::MinLength) and
// the mating line, within the caller's limits, as phases of one object per
// solve: the first line (and the refinement walk), the length search, the
// answer's line, the claim. It searches with the main worker's table, position and
// monitor; its own state is what the phases hand each other.
#pragma once

#include <cstdint>
#include <vector>

#include "length_bounds.h"
#include "monitor.h"
#include "node.h"
#include "search_types.h"
#include "types.h"

namespace usi_mate {

class LineReader;
class Solver;
class Worker;

class PostSearch {
 public:
  // After a first proof of `first_len` plies from the root (`root_key`) by
  // `main`, the solver's main worker; lines are read with `reader`.
  PostSearch(Solver& solver, Worker& main, LineReader& reader, uint64_t root_key, uint16_t first_len,
             SearchResult& result);
  PostSearch(const PostSearch&) = delete;
  PostSearch& operator=(const PostSearch&) = delete;
  // Fills the result: status, line, length claims and why the length search ended.
  void run();

 private:
  // The first line: the first proof's (or the walk's), read whole.
  struct FirstLine {
    std::vector<Move> moves;
    bool have = false, cut_short = false;
    bool walk_confirmed = false;  // the walk's bound is proven in the table
    uint16_t tree = LEN_INF;      // the mating tree the read proves
  };
  // The line of the best mate proven so far during narrow_length, read whole.
  struct KeptLine {
    std::vector<Move> moves;
    uint16_t budget = LEN_INF;  // the bound it was read within (last tried)
    uint64_t cost = 0;          // positions and nodes of the reads so far
    uint64_t nodes = 0;         // nodes spent reading (futility judgements, lost entries)
  };

  bool min_length() const;
  // The phases, in order.
  void read_first_line();
  void walk();
  bool search_length();
  bool read_answer_line(bool minimal, bool table_proves, bool& exact);
  bool answer_strict_line();
  void claim(bool ok, bool proven_min, bool all_futile_root);

  SearchMonitor::Scope grace_scope(uint64_t own_nodes);
  void narrow_length(LengthBounds& bounds, KeptLine* kept);
  void keep_line(uint16_t best, KeptLine& kept);
  bool shorten_along_line(uint16_t best, const std::vector<Move>& line, uint64_t effort);
  bool verify_min_length(uint16_t& best, std::vector<Move>& line, uint64_t cap);
  bool strict_line(std::vector<Move>& line);
  // Reads the line from the root into `line` within the current budget (the
  // caller's scope sets it); see the definition for cut_short and tree_len.
  bool rebuild_line(uint16_t budget, bool exact, bool tie_break, std::vector<Move>& line, bool* cut_short = nullptr,
                    uint16_t* tree_len = nullptr);

  Solver& solver_;
  Worker& w_;  // the main thread's
  LineReader& reader_;
  SearchResult& result_;
  const uint64_t root_key_;
  const uint16_t first_len_;
  const uint64_t first_nodes_;  // the first proof's work (this thread's)
  uint64_t share_;              // MinLength's share of work (kNoLimit: none)
  uint64_t line_nodes_ = 0;     // nodes spent reading lines
  FirstLine first_;
  KeptLine kept_;
  LengthBounds bounds_{0, -2};  // the shortest mate proven so far, and none below lo (proven)
  bool out_of_time_ = false;    // the caller's limits or stop() came before the post-search
};

}  // namespace usi_mate
