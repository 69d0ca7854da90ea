// Repetition detection for the mate search.
//
// In tsume every attacker move checks, so a position that repeats on the
// current path is perpetual check (or, with both kings checking, at best a
// draw): no mate for the attacker. Such a "no mate" depends on the path, not
// only on the position, so it must never be stored as a disproof of the
// position (the graph-history-interaction problem). It is stored instead in
// RepetitionTable under a key of the whole set of positions on the path, which
// makes it valid exactly where it was found (and sound for any path with the
// same positions).
#pragma once

#include <cstdint>
#include <vector>

#include "mix.h"
#include "zeroed.h"

namespace usi_mate {

// The full keys of the positions on the current search path, as a counted
// open-addressing hash set: O(1) insert/erase/contains at any depth.
//
// contains() is asked for every child of every expanded node and is almost
// always false; the slots are 1 MB, so each question was a cache miss, most of
// the child initialisation's own time (docs/DFPN.md, "Repetition (GHI)"). A
// counting filter of 4096 buckets (8 KB, stays in L1) answers most of them
// first: a bucket counts the keys on the path that fall in it, at most the
// path length (max_ply, 4000, plus a few plies of futility sub-searches),
// below 65536.
class PathSet {
 public:
  PathSet() : slots_(kSize), filter_(kFilterSize) {}
  void clear() {
    for (auto& s : slots_) s = Slot{};
    for (auto& b : filter_) b = 0;
    size_ = 0;
  }
  // Every search erases what it inserts, so the set is normally empty already.
  void clear_if_dirty() {
    if (size_) clear();
  }
  bool contains(uint64_t key) const {
    if (!filter_[bucket(key)]) return false;
    for (uint32_t i = home(key); slots_[i].count; i = (i + 1) & kMask)
      if (slots_[i].key == key) return true;
    return false;
  }
  void insert(uint64_t key) {
    ++filter_[bucket(key)];
    uint32_t i = home(key);
    for (; slots_[i].count; i = (i + 1) & kMask)
      if (slots_[i].key == key) {
        ++slots_[i].count;
        return;
      }
    slots_[i].key = key;
    slots_[i].count = 1;
    ++size_;
  }
  void erase(uint64_t key) {
    uint32_t i = home(key);
    for (; slots_[i].count; i = (i + 1) & kMask)
      if (slots_[i].key == key) break;
    if (!slots_[i].count) return;
    --filter_[bucket(key)];
    if (--slots_[i].count) return;
    --size_;
    // Backward-shift deletion keeps probe chains intact without tombstones.
    for (uint32_t j = (i + 1) & kMask; slots_[j].count; j = (j + 1) & kMask) {
      uint32_t h = home(slots_[j].key);
      bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
      if (movable) {
        slots_[i] = slots_[j];
        slots_[j] = Slot{};
        i = j;
      }
    }
  }

 private:
  // 2^16 slots: paths are at most a few thousand plies, so probes stay short.
  static constexpr uint32_t kSize = 1u << 16, kMask = kSize - 1;
  static uint32_t home(uint64_t key) { return uint32_t(key >> 40) & kMask; }
  static constexpr uint32_t kFilterSize = 1u << 12;
  static uint32_t bucket(uint64_t key) { return uint32_t(key) & (kFilterSize - 1); }
  struct Slot {
    uint64_t key = 0;
    uint32_t count = 0;
  };
  ZeroedArray<Slot> slots_;
  std::vector<uint16_t> filter_;
  uint32_t size_ = 0;  // occupied slots
};

// Key of a path-dependent result: the node's full key and the XOR of its
// ancestors' full keys (a set: the result only asks "is this position on the
// path?", so the order of the ancestors does not matter), salted by the
// length budget. The node must stay apart from the set: with one XOR over
// ancestors and node, the result for D below A-B-C had the key of C below
// A-B-D, and a king walking back and forth reaches both (a false "no mate" on a
// long work: docs/DFPN.md, "Repetition (GHI)").
inline uint64_t path_result_key(uint64_t ancestors, uint64_t node, uint64_t budget_salt) {
  return mix64(ancestors ^ budget_salt) ^ node;
}

// Path-dependent "no mate" results, keyed by path_result_key. Direct-mapped and overwritable: a
// lost entry only costs a re-search, which finds the same repetition again.
class RepetitionTable {
 public:
  explicit RepetitionTable(uint32_t bits = 18)
      : keys_(size_t(1) << bits), mask_((1u << bits) - 1), filter_(kFilterWords) {}
  // Forgetting is O(1): a new generation salts every key, so old entries stop
  // matching. Wiping 2 MB instead cost as much as a whole short search (docs/DFPN.md,
  // "Repetition (GHI)").
  // The 8 KB filter is wiped (a few hundred ns).
  void clear() {
    salt_ = (salt_ + 0x9e3779b97f4a7c15ULL) | 1;
    for (auto& w : filter_) w = 0;
  }
  void insert(uint64_t path_key) {
    uint64_t k = path_key ^ salt_;
    keys_[uint32_t(k >> 20) & mask_] = k | 1;
    filter_[filter_word(k)] |= filter_bit(k);
  }
  // Asked for nearly every new child and nearly always false: the filter (one
  // bit per inserted key, set since the last clear, L1-resident) answers most
  // questions without touching the 2 MB of keys, whose load was a cache miss
  // and most of the child initialisation's own time (docs/DFPN.md, "Repetition
  // (GHI)").
  bool contains(uint64_t path_key) const {
    uint64_t k = path_key ^ salt_;
    if (!(filter_[filter_word(k)] & filter_bit(k))) return false;
    return keys_[uint32_t(k >> 20) & mask_] == (k | 1);
  }

 private:
  static constexpr uint32_t kFilterWords = 1024;  // 65536 bits
  static uint32_t filter_word(uint64_t k) { return uint32_t(k >> 6) & (kFilterWords - 1); }
  static uint64_t filter_bit(uint64_t k) { return uint64_t(1) << (k & 63); }
  ZeroedArray<uint64_t> keys_;
  uint32_t mask_;
  std::vector<uint64_t> filter_;
  uint64_t salt_ = 1;
};

}  // namespace usi_mate
