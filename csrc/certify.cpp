// Disproof certificates: after a "no mate", rebuild an explicit disproof tree
// that a checker independent of the table can replay (usi_mate/certify.py).
//
// The walk trusts nothing the table says: table entries and path-dependent
// results only decide which defender reply to try first. At attacker nodes it
// follows every check; at defender nodes it looks for one reply whose subtree
// walks through, re-searching a reply the table knows nothing about. A wrong
// disproof in the table (a rule that claims too much) therefore shows up as a
// defender node where no reply can be backed: the walk reports it as Failed
// with the position and the moves that lead there.
#include <algorithm>
#include <climits>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "scoped_move.h"
#include "worker.h"

namespace usi_mate {

namespace {
// A re-search of one defender reply the table does not settle may spend this
// many nodes; a reply it cannot settle in that is tried after the others.
constexpr uint64_t kCertifyResearchNodes = 200000;
}  // namespace

struct Worker::CertifyWork {
  uint64_t start_nodes = 0;                    // the solver's node count when the walk began
  bool incomplete = false;                     // the budget (positions walked plus nodes re-searched) spent, or stop()
  std::unordered_map<uint64_t, int> path_ply;  // full key of each position on the walk's path -> ply
  std::unordered_set<uint64_t> independent;    // positions certified without leaning on the path
  std::vector<Move> moves;                     // the walk's path from the root
  DisproofCertificate* out = nullptr;

  // Records the first position where the walk failed, with the moves that lead there.
  void fail_at(const Position& pos) {
    if (!out->failed_at.empty()) return;
    out->failed_at = pos.sfen();
    out->failed_path = moves;
  }
};

// A defender reply and its place in the order certify_and tries them.
struct Worker::CertifyReply {
  Move m;
  int rank;
  uint32_t dn;
};

// Each returns the smallest ply of a path position that the subtree's
// repetitions refer to (INT_MAX: none), or -1 when the subtree could not be
// certified. A subtree that refers to nothing above its root holds on any path.
int Worker::certify_or(int ply, uint64_t path_key, CertifyWork& w) {
  uint64_t fk = pos_->full_key();
  if (w.independent.count(fk)) return INT_MAX;
  ++nodes_;  // a walked position counts against the certificate's budget
  if (monitor_.should_stop(nodes_)) {
    w.incomplete = true;
    return -1;
  }
  // Heap, not stack: the walk recurses once per ply of the tree (thousands on long works).
  auto list = std::make_unique<MoveList>();
  generate_checks(*pos_, *list);
  std::vector<Move> checks(list->begin(), list->end());
  list.reset();
  int low = INT_MAX;
  for (Move m : checks) {
    ScopedMove child(*pos_, m);
    uint64_t ck = child.key();
    auto rep = w.path_ply.find(ck);
    int r;
    if (rep != w.path_ply.end()) {
      r = rep->second;  // the check repeats a position of the path: perpetual check
    } else {
      w.path_ply[ck] = ply + 1;
      w.moves.push_back(m);
      path_.insert(ck);
      r = certify_and(ply + 1, path_key ^ ck, w);
      path_.erase(ck);
      w.moves.pop_back();
      w.path_ply.erase(ck);
    }
    if (r < 0) return -1;
    low = std::min(low, r);
  }
  if (low >= ply) w.independent.insert(fk);
  return low;
}

// Order the replies: repetitions first (they need no subtree), then what the
// table disproves, then path-dependent results, then the rest by disproof number.
std::vector<Worker::CertifyReply> Worker::order_certify_replies(const MoveList& evasions, uint64_t path_key,
                                                                const CertifyWork& w) {
  std::vector<CertifyReply> cands;
  for (Move m : evasions) {
    ScopedMove child(*pos_, m);
    uint64_t ck = child.key();
    CertifyReply c{m, 3, PN_INF};
    if (w.path_ply.count(ck)) {
      c.rank = 0;
    } else {
      TTResult t = tt_->probe(tt_key(), attacker_hand(), BUDGET_NONE);
      if (t.found && t.dn == 0)
        c.rank = 1;
      else if (rep_table_.contains(path_result_key(path_key, ck, 0)))
        c.rank = 2;
      else if (t.found && t.pn == 0)
        c.rank = 4;
      else
        c.dn = t.found ? t.dn : 1;
    }
    cands.push_back(c);
  }
  std::stable_sort(cands.begin(), cands.end(), [](const CertifyReply& a, const CertifyReply& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.dn < b.dn;
  });
  return cands;
}

// One defender reply of certify_and: the smallest path ply its subtree refers
// to, or -1. With research (the second pass: the table does not settle the
// reply), it is first searched again within kCertifyResearchNodes.
int Worker::certify_reply(int ply, uint64_t path_key, Move m, bool research, CertifyWork& w) {
  ScopedMove child(*pos_, m);
  uint64_t ck = child.key();
  auto rep = w.path_ply.find(ck);
  if (rep != w.path_ply.end()) return rep->second;
  int r = -1;
  path_.insert(ck);
  bool disproven = true;
  if (research) {
    {
      auto budget = monitor_.nested(nodes_, kCertifyResearchNodes);
      disproven = prove(ply + 1, path_key ^ ck, BUDGET_NONE).dn == 0;
    }
    if (monitor_.should_stop(nodes_)) w.incomplete = true;  // the certificate's own budget
  }
  if (disproven && !w.incomplete) {
    w.path_ply[ck] = ply + 1;
    w.moves.push_back(m);
    r = certify_or(ply + 1, path_key ^ ck, w);
    w.moves.pop_back();
    w.path_ply.erase(ck);
  }
  path_.erase(ck);
  return r;
}

int Worker::certify_and(int ply, uint64_t path_key, CertifyWork& w) {
  uint64_t fk = pos_->full_key();
  if (w.independent.count(fk)) return INT_MAX;
  ++nodes_;  // a walked position counts against the certificate's budget
  if (monitor_.should_stop(nodes_)) {
    w.incomplete = true;
    return -1;
  }
  auto evasions = std::make_unique<MoveList>();
  generate_evasions(*pos_, *evasions);
  if (evasions->size == 0) {
    // Mate on the board: the "no mate" above was wrong.
    w.fail_at(*pos_);
    return -1;
  }
  std::vector<CertifyReply> cands = order_certify_replies(*evasions, path_key, w);
  for (int pass = 0; pass < 2; ++pass) {
    for (const CertifyReply& c : cands) {
      if (w.incomplete) return -1;
      // First pass: what the table settles; second: re-search the rest.
      if ((pass == 0) != (c.rank <= 2)) continue;
      int r = certify_reply(ply, path_key, c.m, pass == 1, w);
      if (r >= 0) {
        w.out->refutations.emplace_back(pos_->sfen(), c.m);
        if (r >= ply) w.independent.insert(fk);
        return r;
      }
    }
  }
  if (!w.incomplete) w.fail_at(*pos_);
  return -1;
}

void Worker::certify_no_mate(uint64_t root_key, DisproofCertificate& out) {
  CertifyWork w;
  w.start_nodes = nodes_;
  w.out = &out;
  w.path_ply[root_key] = 0;
  // A budget of its own: the search's node and time limits were for the search.
  auto budget = monitor_.own(nodes_ + limits_.certify_nodes, SearchMonitor::Clock::time_point::max(), true);
  bool or_root = pos_->side_to_move() == attacker_;
  int r = or_root ? certify_or(0, root_key, w) : certify_and(0, root_key, w);
  out.nodes = nodes_ - w.start_nodes;
  out.status = r >= 0         ? DisproofCertificate::Built
               : w.incomplete ? DisproofCertificate::Incomplete
                              : DisproofCertificate::Failed;
  if (out.status != DisproofCertificate::Built) out.refutations.clear();
}

}  // namespace usi_mate
