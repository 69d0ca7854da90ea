#include "tt.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace usi_mate {

void TranspositionTable::resize(uint64_t mb) {
  uint64_t n = std::max<uint64_t>(1, (mb << 20) / sizeof(Cluster));
  if (n == count_) {
    clear();
    return;
  }
  uint64_t old = count_;
  clusters_.reset();  // free first so that old and new never coexist
  count_ = 0;
  auto* p = static_cast<Cluster*>(std::calloc(n, sizeof(Cluster)));
  if (!p) {
    // Put the old size back (it fitted before), then report the failure.
    p = static_cast<Cluster*>(std::calloc(old ? old : 1, sizeof(Cluster)));
    if (p) {
      clusters_.reset(p);
      count_ = old ? old : 1;
    }
    throw std::bad_alloc();
  }
  clusters_.reset(p);
  count_ = n;
  dirty_ = false;
}

void TranspositionTable::clear() {
  if (count_ && dirty_) std::memset(static_cast<void*>(clusters_.get()), 0, size_bytes());
  dirty_ = false;
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

void TranspositionTable::store(uint64_t key, Hand hand, uint32_t pn, uint32_t dn, uint16_t mate_len, uint32_t amount) {
  if (!dirty_.load(std::memory_order_relaxed)) dirty_.store(true, std::memory_order_relaxed);
  uint64_t i = index(key);
  Cluster& c = clusters_[i];
  ClusterLock lock(*this, i);
  TTEntry* slot = nullptr;
  if (pn == 0 || dn == 0) {
    // A new proof or disproof makes the entries it covers redundant: the
    // first becomes its slot, the others are emptied (in the partner too,
    // where this cluster's resolved entries may have moved).
    auto sweep = [&](Cluster& k) {
      for (TTEntry& e : k.e) {
        if (e.key != key || !covered(e, hand, pn, mate_len)) continue;
        if (slot)
          e.key = 0;
        else
          slot = &e;
      }
    };
    sweep(c);
    if (c.spilled()) sweep(*partner(i));
  } else {
    for (TTEntry& e : c.e)
      if (e.key == key && e.hand == hand && e.pn != 0 && e.dn != 0) {
        slot = &e;
        break;
      }
  }
  if (!slot) {
    // An empty slot, else replace the entry worth least: older searches'
    // first, then unresolved before resolved, then the least work.
    auto value = [this](const TTEntry& e) -> uint64_t {
      bool resolved = e.pn == 0 || e.dn == 0;
      bool current = e.generation == generation_;
      return (uint64_t(current) << 33) | (uint64_t(resolved) << 32) | e.amount;
    };
    auto least = [&](Cluster& k) {
      TTEntry* m = &k.e[0];
      for (TTEntry& e : k.e) {
        if (e.key == 0) return &e;
        if (value(e) < value(*m)) m = &e;
      }
      return m;
    };
    slot = least(c);
    // A resolved entry of this search moves to the partner over an entry
    // worth less there, rather than leave the table.
    constexpr uint64_t kCurrentResolved = uint64_t(3) << 32;
    Cluster* p = partner(i);
    if (p && slot->key != 0 && value(*slot) >= kCurrentResolved) {
      TTEntry* to = least(*p);
      if (to->key == 0 || value(*to) < value(*slot)) {
        to->set(slot->key, slot->hand, slot->pn, slot->dn, slot->mate_len, slot->amount, slot->generation);
        c.e[kSpillSlot].aux.store(1, std::memory_order_relaxed);
      }
    }
  }
  slot->set(key, hand, pn, dn, mate_len, amount, generation_);
}

int TranspositionTable::hashfull() const {
  size_t n = std::min<size_t>(count_, 1000);
  if (n == 0) return 0;
  size_t used = 0;
  for (size_t i = 0; i < n; ++i) {
    ClusterLock lock(*this, i);
    for (const TTEntry& e : clusters_[i].e) used += e.key != 0;
  }
  return int(used * 1000 / (n * kClusterSize));
}

}  // namespace usi_mate
