// The thin layer the Cython binding calls: plain integers, strings and vectors,
// errors as std::invalid_argument (Cython turns them into ValueError).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "movegen.h"
#include "position.h"

namespace usi_mate {
namespace api {

inline std::vector<std::string> to_usi(const MoveList& list) {
  std::vector<std::string> out;
  out.reserve(list.size);
  for (Move m : list) out.push_back(move_to_usi(m));
  return out;
}

inline std::vector<std::string> to_usi(const std::vector<Move>& moves) {
  std::vector<std::string> out;
  out.reserve(moves.size());
  for (Move m : moves) out.push_back(move_to_usi(m));
  return out;
}

inline std::vector<std::string> legal_moves(const Position& pos) {
  MoveList list;
  generate_legal(pos, list);
  return to_usi(list);
}

inline std::vector<std::string> check_moves(const Position& pos) {
  MoveList list;
  generate_checks(pos, list);
  return to_usi(list);
}

inline std::vector<std::string> evasions(const Position& pos) {
  MoveList list;
  generate_evasions(pos, list);
  return to_usi(list);
}

// The legal move written as `usi` in pos; throws std::invalid_argument naming
// why it is malformed or illegal.
inline Move parse_legal_move(const Position& pos, const std::string& usi) {
  Move m16 = usi_to_move16(usi);
  if (m16 == MOVE_NONE) throw std::invalid_argument("malformed move '" + usi + "' (expected e.g. 7g7f, 8h2b+ or G*5b)");
  Move m = pos.complete_move(m16);
  if (m == MOVE_NONE)
    throw std::invalid_argument("illegal move '" + usi + "': no piece of the side to move on " +
                                square_to_usi(move_from(m16)));
  MoveList list;
  generate_legal(pos, list);
  bool legal = false;
  for (Move x : list) legal |= x == m;
  if (!legal) throw std::invalid_argument("illegal move '" + usi + "' in " + pos.sfen());
  // Only reachable when the side not to move was in check, which no legal game allows.
  if (!is_drop(m) && type_of(pos.piece_on(move_to(m))) == KING)
    throw std::invalid_argument("illegal move '" + usi +
                                "': it captures the king (the position before it was illegal)");
  return m;
}

inline void push_usi(Position& pos, const std::string& usi) { pos.do_move(parse_legal_move(pos, usi)); }

inline bool is_mate(const Position& pos) { return pos.in_check() && !has_legal_move(pos); }

inline bool gives_check(const Position& pos, const std::string& usi) {
  return pos.gives_check(parse_legal_move(pos, usi));
}

inline int hand_count_of(const Position& pos, int color, int piece_type) {
  return hand_count(pos.hand(Color(color)), PieceType(piece_type));
}

inline int side_to_move(const Position& pos) { return int(pos.side_to_move()); }

// Piece on a square as a 2-3 character string ("+P", "k", "" for empty).
inline std::string piece_str(const Position& pos, int sq) {
  static const char* chars = " PLNSBRGK";
  Piece p = pos.piece_on(sq);
  if (p == NO_PIECE) return "";
  PieceType pt = type_of(p);
  std::string s = pt > KING ? "+" : "";
  char ch = chars[hand_type(pt)];
  s += color_of(p) == BLACK ? ch : char(ch - 'A' + 'a');
  return s;
}

inline std::string last_move_usi(const Position& pos) { return move_to_usi(pos.last_move()); }

}  // namespace api
}  // namespace usi_mate

#include "solver.h"

namespace usi_mate {
namespace api {

// One search after another on `sfens`, in one call without the GIL: a caller
// that reads results on another thread meanwhile is not held up by each search
// taking the GIL back. Once stop() is asked for, the positions left are not
// searched: "unknown", stopped, no nodes. With `searching` (memory another
// process watches: a worker's supervisor), labels[k] is written there before
// sfens[k] is searched, so that a process killed mid-search tells which position
// it was on.
inline void solve_many(Solver& solver, const std::vector<std::string>& sfens, const SearchLimits& limits,
                       std::vector<SearchResult>& results, volatile int64_t* searching = nullptr,
                       const std::vector<int64_t>* labels = nullptr) {
  results.clear();
  results.reserve(sfens.size());
  for (size_t k = 0; k < sfens.size(); ++k) {
    if (solver.stop_requested()) {
      results.emplace_back();
      results.back().stop_reason = StopReason::Stopped;
      continue;
    }
    if (searching) *searching = (*labels)[k];
    results.push_back(solver.solve(sfens[k], limits));
  }
}

// What the table knows of a position: status 1 proven, 2 disproven, 0 other,
// and the proof/disproof hand as counts in the order P L N S B R G.
struct ProbeOutput {
  int status = 0;
  std::vector<int> hand;
  int mate_len = 0;
};

inline ProbeOutput probe(const Solver& solver, const std::string& sfen, bool and_root) {
  Position pos;
  pos.set_sfen(sfen);
  TTResult r = solver.probe(pos, and_root);
  ProbeOutput out;
  out.status = r.found && r.pn == 0 ? 1 : r.found && r.dn == 0 ? 2 : 0;
  for (int pt = PAWN; pt < KING; ++pt) out.hand.push_back(hand_count(r.hand, PieceType(pt)));
  out.mate_len = r.mate_len;
  return out;
}

}  // namespace api
}  // namespace usi_mate
