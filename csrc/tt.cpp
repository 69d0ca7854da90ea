#include "tt.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace usi_mate {

void TranspositionTable::resize(uint64_t mb) {
  uint64_t n = std::max<uint64_t>(1, (mb << 20) / sizeof(Cluster));
  if (n == capacity_) {
    clear();
    return;
  }
  uint64_t old = capacity_;
  clusters_.reset();  // free first so that old and new never coexist
  capacity_ = count_ = used_ = 0;
  auto* p = static_cast<Cluster*>(zeroed_alloc(n * sizeof(Cluster)));
  if (!p) {
    // Put the old size back (it fitted before), then report the failure.
    uint64_t back = old ? old : 1;
    p = static_cast<Cluster*>(zeroed_alloc(back * sizeof(Cluster)));
    if (p) {
      clusters_ = std::unique_ptr<Cluster[], Free>(p, Free{back * sizeof(Cluster)});
      capacity_ = back;
      count_ = initial_count();
    }
    throw std::bad_alloc();
  }
  clusters_ = std::unique_ptr<Cluster[], Free>(p, Free{n * sizeof(Cluster)});
  capacity_ = n;
  count_ = initial_count();
  counted_ = !shared_;
  dirty_ = false;
  dirty_n_ = 0;
  dirty_all_ = shared_;  // a shared table's stores are not noted
}

void TranspositionTable::clear() {
  // Only the clusters in use were ever written: the rest are still zero. Of
  // those, only the pairs noted, while they are few (note_written).
  if (count_ && dirty_) {
    if (dirty_all_ || (uint64_t(1) << 32) <= count_) {
      std::memset(static_cast<void*>(clusters_.get()), 0, count_ * sizeof(Cluster));
    } else {
      for (uint32_t k = 0; k < dirty_n_; ++k) {
        uint64_t i = uint64_t(dirty_pairs_[k]) * 2;
        std::memset(static_cast<void*>(&clusters_[i]), 0, std::min<uint64_t>(2, count_ - i) * sizeof(Cluster));
      }
    }
  }
  dirty_n_ = 0;
  dirty_all_ = shared_;  // a shared table's stores are not noted
  count_ = initial_count();
  used_ = 0;
  counted_ = !shared_;
  dirty_ = false;
}

void TranspositionTable::grow(uint64_t n) {
  dirty_all_ = true;  // entries move all over the larger table
  uint64_t old = count_;
  count_ = n;
  used_ = 0;
  // index() is monotone in the key and count_ only grows, so every entry of
  // clusters i and i + 1 moves to a cluster at or above i (its partner too):
  // pairs taken from the top down never land on a pair still to be moved.
  TTEntry moved[2 * kClusterSize];
  for (uint64_t a = (old - 1) & ~uint64_t(1);; a -= 2) {
    uint64_t end = std::min(a + 2, old);
    int m = 0;
    for (uint64_t i = a; i < end; ++i) {
      for (const TTEntry& e : clusters_[i].e)
        if (e.key) moved[m++].set(e.key, e.hand, e.pn, e.dn, e.mate_len, e.amount, e.generation);
      std::memset(static_cast<void*>(&clusters_[i]), 0, sizeof(Cluster));
    }
    for (int j = 0; j < m; ++j) place(moved[j]);
    if (a == 0) break;
  }
}

void TranspositionTable::place(const TTEntry& e) {
  uint64_t i = index(e.key);
  Cluster& c = clusters_[i];
  auto put = [&](TTEntry& to) {
    if (!to.key) ++used_;
    to.set(e.key, e.hand, e.pn, e.dn, e.mate_len, e.amount, e.generation);
  };
  for (TTEntry& to : c.e)
    if (!to.key) return put(to);
  Cluster* p = partner(i);
  if (p && (e.pn == 0 || e.dn == 0)) {
    for (TTEntry& to : p->e)
      if (!to.key) {
        c.e[kSpillSlot].aux.store(1, std::memory_order_relaxed);
        return put(to);
      }
  }
  TTEntry* least = &c.e[0];
  for (TTEntry& to : c.e)
    if (worth(to) < worth(*least)) least = &to;
  if (worth(*least) < worth(e)) put(*least);
}

namespace {

// The resolved entries of (key, hand) in one cluster that apply within budget,
// merged into r: the shortest applicable proof, else the disproof of the most.
void probe_resolved(const TranspositionTable::Cluster& c, uint64_t key, Hand hand, uint16_t budget, TTResult& r) {
  for (const TTEntry& e : c.e) {
    if (e.key != key) continue;
    if (e.pn == 0) {
      if (e.mate_len <= budget && hand_is_superior_or_equal(hand, e.hand)) {
        // Several proofs may apply: keep the shortest.
        if (!r.found || r.pn != 0 || e.mate_len < r.mate_len) {
          r.pn = 0;
          r.dn = PN_INF;
          r.hand = e.hand;
          r.mate_len = e.mate_len;
          r.amount = e.amount;
          r.found = true;
        }
      }
    } else if (e.dn == 0) {
      if (e.mate_len > budget && hand_is_superior_or_equal(e.hand, hand) && !(r.found && r.pn == 0) &&
          !(r.found && r.mate_len >= e.mate_len)) {
        r.pn = PN_INF;
        r.dn = 0;
        r.hand = e.hand;
        r.mate_len = e.mate_len;
        r.amount = e.amount;
        r.found = true;
      }
    }
  }
}

// Whether a new resolved entry (pn, dn, hand, mate_len) makes e, of the same
// key, redundant: a proof covers unknown entries and longer proofs of superior
// hands, a disproof unknown entries and weaker disproofs of inferior hands.
bool covered(const TTEntry& e, Hand hand, uint32_t pn, uint16_t mate_len) {
  bool unknown = e.pn != 0 && e.dn != 0;
  if (pn == 0) return (unknown || (e.pn == 0 && e.mate_len >= mate_len)) && hand_is_superior_or_equal(e.hand, hand);
  return (unknown || (e.dn == 0 && e.mate_len <= mate_len)) && hand_is_superior_or_equal(hand, e.hand);
}

}  // namespace

TTResult TranspositionTable::probe(uint64_t key, Hand hand, uint16_t budget, bool own_budget_only) const {
  TTResult r;
  uint64_t i = index(key);
  const Cluster& c = clusters_[i];
  ClusterLock lock(*this, i);
  probe_resolved(c, key, hand, budget, r);
  if (c.spilled()) probe_resolved(*partner(i), key, hand, budget, r);
  if (r.found) return r;
  // Unknown entries never leave their cluster.
  for (const TTEntry& e : c.e) {
    if (e.key != key || e.pn == 0 || e.dn == 0) continue;
    if (own_budget_only && e.mate_len != budget) continue;
    if (e.hand == hand) {
      r.pn = std::max(r.pn, e.pn);
      r.dn = std::max(r.dn, e.dn);
      r.amount = e.amount;
      r.found = true;
    } else if (hand_is_superior_or_equal(e.hand, hand)) {
      r.pn = std::max(r.pn, e.pn);  // fewer attacker pieces: at least as hard to prove
    } else if (hand_is_superior_or_equal(hand, e.hand)) {
      r.dn = std::max(r.dn, e.dn);  // more attacker pieces: at least as hard to disprove
    }
  }
  return r;
}

// A new proof or disproof makes the entries it covers redundant: the first
// becomes its slot (returned, null when none), the others are emptied (in the
// partner too, where this cluster's resolved entries may have moved).
inline TTEntry* TranspositionTable::sweep_covered(Cluster& c, uint64_t i, uint64_t key, Hand hand, uint32_t pn,
                                                  uint16_t mate_len) {
  TTEntry* slot = nullptr;
  auto sweep = [&](Cluster& k) {
    for (TTEntry& e : k.e) {
      if (e.key != key || !covered(e, hand, pn, mate_len)) continue;
      if (slot) {
        e.key = 0;
        if (!shared_) --used_;
      } else {
        slot = &e;
      }
    }
  };
  sweep(c);
  if (c.spilled()) sweep(*partner(i));
  return slot;
}

// A slot for an entry the cluster has none of: an empty slot, else the entry
// worth least: older searches' first, then unresolved before resolved, then
// the least work.
inline TTEntry* TranspositionTable::replacement_slot(Cluster& c, uint64_t i) {
  auto least = [&](Cluster& k) {
    TTEntry* m = &k.e[0];
    for (TTEntry& e : k.e) {
      if (e.key == 0) return &e;
      if (worth(e) < worth(*m)) m = &e;
    }
    return m;
  };
  TTEntry* slot = least(c);
  // A resolved entry of this search moves to the partner over an entry
  // worth less there, rather than leave the table.
  constexpr uint64_t kCurrentResolved = uint64_t(3) << 32;
  Cluster* p = partner(i);
  if (p && slot->key != 0 && worth(*slot) >= kCurrentResolved) {
    TTEntry* to = least(*p);
    if (to->key == 0 || worth(*to) < worth(*slot)) {
      if (!to->key && !shared_) {
        ++used_;
        note_written(i ^ 1);
      }
      to->set(slot->key, slot->hand, slot->pn, slot->dn, slot->mate_len, slot->amount, slot->generation);
      c.e[kSpillSlot].aux.store(1, std::memory_order_relaxed);
    }
  }
  return slot;
}

void TranspositionTable::store(uint64_t key, Hand hand, uint32_t pn, uint32_t dn, uint16_t mate_len, uint32_t amount) {
  if (!dirty_.load(std::memory_order_relaxed)) dirty_.store(true, std::memory_order_relaxed);
  uint64_t i = index(key);
  Cluster& c = clusters_[i];
  ClusterLock lock(*this, i);
  TTEntry* slot = nullptr;
  if (pn == 0 || dn == 0) {
    slot = sweep_covered(c, i, key, hand, pn, mate_len);
  } else {
    for (TTEntry& e : c.e)
      if (e.key == key && e.hand == hand && e.pn != 0 && e.dn != 0) {
        slot = &e;
        break;
      }
  }
  if (!slot) slot = replacement_slot(c, i);
  if (!slot->key && !shared_) {
    ++used_;
    note_written(i);  // a cluster gets its first entry here or by a spill: only those need zeroing
  }
  slot->set(key, hand, pn, dn, mate_len, amount, generation_);
  if (!shared_ && count_ < capacity_ && used_ * kGrowLoad > count_ * kClusterSize)
    grow(std::min(capacity_, count_ * 2));
}

int TranspositionTable::hashfull() const {
  // Counted by store() since the table was last emptied: exact and free. A
  // search of a few microseconds (a mate in 3) spent a tenth of its time
  // sampling the clusters below.
  if (counted_ && capacity_) return int(used_ * 1000 / (capacity_ * kClusterSize));
  size_t n = std::min<size_t>(count_, 1000);
  if (n == 0) return 0;
  size_t used = 0;
  for (size_t i = 0; i < n; ++i) {
    ClusterLock lock(*this, i);
    for (const TTEntry& e : clusters_[i].e) used += e.key != 0;
  }
  // Of the whole table: the clusters not yet in use are empty.
  return int(used * 1000 * count_ / (n * kClusterSize * capacity_));
}

}  // namespace usi_mate
