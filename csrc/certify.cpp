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
#include "certify.h"

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

// A defender reply and its place in the order certify_and tries them.
struct CertificateBuilder::Reply {
  Move m;
  int rank;
  uint32_t dn;
};

// A position's entry into the walk: INT_MAX when it is certified already without
// leaning on the path, -1 when the budget is spent, else 0 (walk it; it counts
// against the certificate's budget).
int CertificateBuilder::enter(uint64_t fk) {
  if (independent_.count(fk)) return INT_MAX;
  w_.count_node();
  if (w_.should_stop()) {
    incomplete_ = true;
    return -1;
  }
  return 0;
}

// Each returns the smallest ply of a path position that the subtree's
// repetitions refer to (INT_MAX: none), or -1 when the subtree could not be
// certified. A subtree that refers to nothing above its root holds on any path.
int CertificateBuilder::certify_or(int ply, uint64_t path_key) {
  uint64_t fk = w_.position().full_key();
  if (int settled = enter(fk)) return settled;
  // Heap, not stack: the walk recurses once per ply of the tree (thousands on long works).
  auto list = std::make_unique<MoveList>();
  generate_checks(w_.position(), *list);
  std::vector<Move> checks(list->begin(), list->end());
  list.reset();
  int low = INT_MAX;
  for (Move m : checks) {
    ScopedMove child(w_.position(), m);
    uint64_t ck = child.key();
    auto rep = path_ply_.find(ck);
    int r;
    if (rep != path_ply_.end()) {
      r = rep->second;  // the check repeats a position of the path: perpetual check
    } else {
      path_ply_[ck] = ply + 1;
      moves_.push_back(m);
      w_.path().insert(ck);
      r = certify_and(ply + 1, path_key ^ ck);
      w_.path().erase(ck);
      moves_.pop_back();
      path_ply_.erase(ck);
    }
    if (r < 0) return -1;
    low = std::min(low, r);
  }
  if (low >= ply) independent_.insert(fk);
  return low;
}

// Order the replies: repetitions first (they need no subtree), then what the
// table disproves, then path-dependent results, then the rest by disproof number.
std::vector<CertificateBuilder::Reply> CertificateBuilder::order_replies(const MoveList& evasions, uint64_t path_key) {
  std::vector<Reply> cands;
  for (Move m : evasions) {
    ScopedMove child(w_.position(), m);
    uint64_t ck = child.key();
    Reply c{m, 3, PN_INF};
    if (path_ply_.count(ck)) {
      c.rank = 0;
    } else {
      TTResult t = w_.probe_here(BUDGET_NONE);
      if (t.found && t.dn == 0)
        c.rank = 1;
      else if (w_.repetitions().contains(path_result_key(path_key, ck, 0)))
        c.rank = 2;
      else if (t.found && t.pn == 0)
        c.rank = 4;
      else
        c.dn = t.found ? t.dn : 1;
    }
    cands.push_back(c);
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Reply& a, const Reply& b) { return a.rank != b.rank ? a.rank < b.rank : a.dn < b.dn; });
  return cands;
}

// One defender reply of certify_and: the smallest path ply its subtree refers
// to, or -1. With research (the second pass: the table does not settle the
// reply), it is first searched again within kCertifyResearchNodes.
int CertificateBuilder::certify_reply(int ply, uint64_t path_key, Move m, bool research) {
  ScopedMove child(w_.position(), m);
  uint64_t ck = child.key();
  auto rep = path_ply_.find(ck);
  if (rep != path_ply_.end()) return rep->second;
  int r = -1;
  w_.path().insert(ck);
  bool disproven = true;
  if (research) {
    {
      auto budget = w_.budget_scope(kCertifyResearchNodes);
      disproven = w_.prove(ply + 1, path_key ^ ck, BUDGET_NONE).dn == 0;
    }
    if (w_.should_stop()) incomplete_ = true;  // the certificate's own budget
  }
  if (disproven && !incomplete_) {
    path_ply_[ck] = ply + 1;
    moves_.push_back(m);
    r = certify_or(ply + 1, path_key ^ ck);
    moves_.pop_back();
    path_ply_.erase(ck);
  }
  w_.path().erase(ck);
  return r;
}

int CertificateBuilder::certify_and(int ply, uint64_t path_key) {
  uint64_t fk = w_.position().full_key();
  if (int settled = enter(fk)) return settled;
  auto evasions = std::make_unique<MoveList>();
  generate_evasions(w_.position(), *evasions);
  if (evasions->size == 0) {
    // Mate on the board: the "no mate" above was wrong.
    fail_at(w_.position());
    return -1;
  }
  std::vector<Reply> cands = order_replies(*evasions, path_key);
  for (int pass = 0; pass < 2; ++pass) {
    for (const Reply& c : cands) {
      if (incomplete_) return -1;
      // First pass: what the table settles; second: re-search the rest.
      if ((pass == 0) != (c.rank <= 2)) continue;
      int r = certify_reply(ply, path_key, c.m, pass == 1);
      if (r >= 0) {
        out_->refutations.emplace_back(w_.position().sfen(), c.m);
        if (r >= ply) independent_.insert(fk);
        return r;
      }
    }
  }
  if (!incomplete_) fail_at(w_.position());
  return -1;
}

// Records the first position where the walk failed, with the moves that lead there.
void CertificateBuilder::fail_at(const Position& pos) {
  if (!out_->failed_at.empty()) return;
  out_->failed_at = pos.sfen();
  out_->failed_path = moves_;
}

void CertificateBuilder::build(uint64_t root_key, DisproofCertificate& out) {
  start_nodes_ = w_.nodes();
  out_ = &out;
  path_ply_[root_key] = 0;
  // A budget of its own: the search's node and time limits were for the search.
  auto budget = w_.monitor().own(w_.nodes() + w_.limits().certify_nodes, SearchMonitor::Clock::time_point::max(), true);
  bool or_root = w_.attacker_to_move();
  int r = or_root ? certify_or(0, root_key) : certify_and(0, root_key);
  out.nodes = w_.nodes() - start_nodes_;
  out.status = r >= 0        ? DisproofCertificate::Built
               : incomplete_ ? DisproofCertificate::Incomplete
                             : DisproofCertificate::Failed;
  if (out.status != DisproofCertificate::Built) out.refutations.clear();
}

}  // namespace usi_mate
