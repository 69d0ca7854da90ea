// A child move for the length of a scope: the move is made, and for moves
// along the search path its position joins the path set; both are undone, in
// reverse order, when the scope ends. The search makes and unmakes moves in
// a dozen places (MID, futility checks, line rebuild, certificates); one
// object keeps every do/insert paired with its erase/undo.
#pragma once

#include <cstdint>

#include "position.h"
#include "repetition.h"

namespace usi_mate {

class ScopedMove {
 public:
  // The move only (a look at the child: probes, move lists).
  ScopedMove(Position& pos, Move m) : pos_(pos) {
    pos.do_move(m);
    key_ = pos.full_key();
  }
  // The move, with the child on the search path (repetitions are detected against it).
  ScopedMove(Position& pos, PathSet& path, Move m) : pos_(pos), path_(&path) {
    pos.do_move(m);
    key_ = pos.full_key();
    path.insert(key_);
  }
  ~ScopedMove() {
    if (path_) path_->erase(key_);
    pos_.undo_move();
  }
  ScopedMove(const ScopedMove&) = delete;
  ScopedMove& operator=(const ScopedMove&) = delete;

  // The child's full key (board, hands and side to move).
  uint64_t key() const { return key_; }

 private:
  Position& pos_;
  PathSet* path_ = nullptr;
  uint64_t key_;
};

}  // namespace usi_mate
