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

TTResult TranspositionTable::probe(uint64_t key, Hand hand, uint16_t budget) const {
  TTResult r;
  const Cluster& c = cluster(key);
  ClusterLock lock(*this, c);
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
  if (r.found) return r;
  for (const TTEntry& e : c.e) {
    if (e.key != key || e.pn == 0 || e.dn == 0) continue;
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
  Cluster& c = cluster(key);
  ClusterLock lock(*this, c);
  TTEntry* slot = nullptr;
  for (TTEntry& e : c.e) {
    if (e.key != key) continue;
    if (pn == 0) {
      // A new proof makes entries it covers redundant: unknown or proven with superior hands.
      if ((e.pn != 0 && e.dn != 0 && hand_is_superior_or_equal(e.hand, hand)) ||
          (e.pn == 0 && hand_is_superior_or_equal(e.hand, hand) && e.mate_len >= mate_len)) {
        if (slot)
          e.key = 0;
        else
          slot = &e;
      }
    } else if (dn == 0) {
      if ((e.pn != 0 && e.dn != 0 && hand_is_superior_or_equal(hand, e.hand)) ||
          (e.dn == 0 && hand_is_superior_or_equal(hand, e.hand) && e.mate_len <= mate_len)) {
        if (slot)
          e.key = 0;
        else
          slot = &e;
      }
    } else if (e.hand == hand && e.pn != 0 && e.dn != 0) {
      slot = &e;
      break;
    }
  }
  if (!slot) {
    for (TTEntry& e : c.e)
      if (e.key == 0) {
        slot = &e;
        break;
      }
  }
  if (!slot) {
    // Replace the entry worth least: older searches' first, then unresolved
    // before resolved, then the least work.
    auto value = [this](const TTEntry& e) -> uint64_t {
      bool resolved = e.pn == 0 || e.dn == 0;
      bool current = e.generation == generation_;
      return (uint64_t(current) << 33) | (uint64_t(resolved) << 32) | e.amount;
    };
    slot = &c.e[0];
    for (TTEntry& e : c.e)
      if (value(e) < value(*slot)) slot = &e;
  }
  slot->key = key;
  slot->hand = hand;
  slot->pn = pn;
  slot->dn = dn;
  slot->mate_len = mate_len;
  slot->amount = amount;
  slot->generation = generation_;
}

int TranspositionTable::hashfull() const {
  size_t n = std::min<size_t>(count_, 1000);
  if (n == 0) return 0;
  size_t used = 0;
  for (size_t i = 0; i < n; ++i) {
    ClusterLock lock(*this, clusters_[i]);
    for (const TTEntry& e : clusters_[i].e) used += e.key != 0;
  }
  return int(used * 1000 / (n * kClusterSize));
}

}  // namespace usi_mate
