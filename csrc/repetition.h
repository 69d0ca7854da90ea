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

namespace usi_mate {

// The full keys of the positions on the current search path, as a counted
// open-addressing hash set: O(1) insert/erase/contains at any depth.
class PathSet {
 public:
  PathSet() : slots_(kSize) {}
  void clear() { for (auto& s : slots_) s = Slot{}; }
  bool contains(uint64_t key) const {
    for (uint32_t i = home(key); slots_[i].count; i = (i + 1) & kMask)
      if (slots_[i].key == key) return true;
    return false;
  }
  void insert(uint64_t key) {
    uint32_t i = home(key);
    for (; slots_[i].count; i = (i + 1) & kMask)
      if (slots_[i].key == key) { ++slots_[i].count; return; }
    slots_[i].key = key;
    slots_[i].count = 1;
  }
  void erase(uint64_t key) {
    uint32_t i = home(key);
    for (; slots_[i].count; i = (i + 1) & kMask)
      if (slots_[i].key == key) break;
    if (!slots_[i].count) return;
    if (--slots_[i].count) return;
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
  struct Slot { uint64_t key = 0; uint32_t count = 0; };
  std::vector<Slot> slots_;
};

// Path-dependent "no mate" results, keyed by the XOR of the full keys of every
// position on the path (the node included). Direct-mapped and overwritable: a
// lost entry only costs a re-search, which finds the same repetition again.
class RepetitionTable {
 public:
  explicit RepetitionTable(uint32_t bits = 18) : keys_(size_t(1) << bits), mask_((1u << bits) - 1) {}
  void clear() { for (auto& k : keys_) k = 0; }
  void insert(uint64_t path_key) { keys_[uint32_t(path_key >> 20) & mask_] = path_key | 1; }
  bool contains(uint64_t path_key) const { return keys_[uint32_t(path_key >> 20) & mask_] == (path_key | 1); }

 private:
  std::vector<uint64_t> keys_;
  uint32_t mask_;
};

}  // namespace usi_mate
