#include "tt.h"

#include <algorithm>
#include <cstring>

namespace usi_mate {

void TranspositionTable::resize(uint64_t mb) {
  uint64_t n = std::max<uint64_t>(1, (mb << 20) / sizeof(Cluster));
  std::vector<Cluster>().swap(clusters_);  // free first so old + new never coexist
  clusters_.resize(n);
  clear();
}

void TranspositionTable::clear() {
  if (!clusters_.empty()) std::memset(static_cast<void*>(clusters_.data()), 0, size_bytes());
}

TTResult TranspositionTable::probe(uint64_t key, Hand hand, uint16_t budget) const {
  TTResult r;
  const Cluster& c = cluster(key);
  for (const TTEntry& e : c.e) {
    if (e.key != key) continue;
    if (e.pn == 0) {
      if (e.mate_len <= budget && hand_is_superior_or_equal(hand, e.hand)) {
        // Several proofs may apply: keep the shortest.
        if (!r.found || r.pn != 0 || e.mate_len < r.mate_len) {
          r.pn = 0; r.dn = PN_INF; r.hand = e.hand; r.mate_len = e.mate_len; r.amount = e.amount;
          r.found = true;
        }
      }
    } else if (e.dn == 0) {
      if (e.mate_len > budget && hand_is_superior_or_equal(e.hand, hand) && !(r.found && r.pn == 0) &&
          !(r.found && r.mate_len >= e.mate_len)) {
        r.pn = PN_INF; r.dn = 0; r.hand = e.hand; r.mate_len = e.mate_len; r.amount = e.amount; r.found = true;
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

void TranspositionTable::store(uint64_t key, Hand hand, uint32_t pn, uint32_t dn, uint16_t mate_len,
                               uint32_t amount) {
  Cluster& c = cluster(key);
  TTEntry* slot = nullptr;
  for (TTEntry& e : c.e) {
    if (e.key != key) continue;
    if (pn == 0) {
      // A new proof makes entries it covers redundant: unknown or proven with superior hands.
      if ((e.pn != 0 && e.dn != 0 && hand_is_superior_or_equal(e.hand, hand)) ||
          (e.pn == 0 && hand_is_superior_or_equal(e.hand, hand) && e.mate_len >= mate_len)) {
        if (slot) e.key = 0; else slot = &e;
      }
    } else if (dn == 0) {
      if ((e.pn != 0 && e.dn != 0 && hand_is_superior_or_equal(hand, e.hand)) ||
          (e.dn == 0 && hand_is_superior_or_equal(hand, e.hand) && e.mate_len <= mate_len)) {
        if (slot) e.key = 0; else slot = &e;
      }
    } else if (e.hand == hand && e.pn != 0 && e.dn != 0) {
      slot = &e;
      break;
    }
  }
  if (!slot) {
    for (TTEntry& e : c.e)
      if (e.key == 0) { slot = &e; break; }
  }
  if (!slot) {
    // Replace the entry worth least: unresolved before resolved, then the least work.
    auto value = [](const TTEntry& e) -> uint64_t {
      bool resolved = e.pn == 0 || e.dn == 0;
      return (uint64_t(resolved) << 32) | e.amount;
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
}

int TranspositionTable::hashfull() const {
  size_t n = std::min<size_t>(clusters_.size(), 1000);
  if (n == 0) return 0;
  size_t used = 0;
  for (size_t i = 0; i < n; ++i)
    for (const TTEntry& e : clusters_[i].e) used += e.key != 0;
  return int(used * 1000 / (n * kClusterSize));
}

}  // namespace usi_mate
