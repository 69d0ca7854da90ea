// The certificate builder: after a "no mate", an explicit disproof tree that
// a checker independent of the table can replay (usi_mate/certify.py). It
// walks with a Worker's position, table and budget (certify.cpp says how).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "movegen.h"
#include "search_types.h"
#include "types.h"

namespace usi_mate {

class Position;
class Worker;

class CertificateBuilder {
 public:
  explicit CertificateBuilder(Worker& worker) : w_(worker) {}
  CertificateBuilder(const CertificateBuilder&) = delete;
  CertificateBuilder& operator=(const CertificateBuilder&) = delete;
  // The certificate of the worker's current position (the root, `root_key`)
  // into `out`, within SearchLimits::certify_nodes positions and nodes.
  void build(uint64_t root_key, DisproofCertificate& out);

 private:
  struct Reply;
  // Each returns the smallest ply of a path position that the subtree's
  // repetitions refer to (INT_MAX: none), or -1 when it could not be certified.
  int enter(uint64_t fk);
  int certify_or(int ply, uint64_t path_key);
  int certify_and(int ply, uint64_t path_key);
  std::vector<Reply> order_replies(const MoveList& evasions, uint64_t path_key);
  int certify_reply(int ply, uint64_t path_key, Move m, bool research);
  void fail_at(const Position& pos);

  Worker& w_;
  uint64_t start_nodes_ = 0;                    // the worker's node count when the walk began
  bool incomplete_ = false;                     // the budget (positions walked plus nodes re-searched) spent, or stop()
  std::unordered_map<uint64_t, int> path_ply_;  // full key of each position on the walk's path -> ply
  std::unordered_set<uint64_t> independent_;    // positions certified without leaning on the path
  std::vector<Move> moves_;                     // the walk's path from the root
  DisproofCertificate* out_ = nullptr;
};

}  // namespace usi_mate
