// Futile interpositions (無駄合; docs/FUTILE.md): the memo that keeps every
// judgement of one solve() consistent. The judgement itself is
// Solver::is_futile_drop (futility.cpp): it needs the search.
#pragma once

#include <cstdint>
#include <vector>

#include "hand.h"

namespace usi_mate {

// A futility check is a capped sub-search: a plain capture-and-mate takes df-pn
// a few hundred nodes, so a capture line that needs more than this is counted
// as real resistance.
constexpr uint64_t kFutilityNodeCap = 3000;

// A judgement: the drop is futile, real resistance, or not known because a
// sub-search was cut short (then counted as resistance, and counted in
// Solver::cut_judgements_).
enum Judgement : int { kNotFutile = 0, kFutile = 1, kCutShort = 2 };

// Futility decisions of one solve() call, so that every question about the same
// drop gets the same answer: the length search and the line extraction must
// agree, and a capped sub-search could otherwise say "not futile" once and,
// after the table learnt more, "futile" later. Direct-mapped, 2^16 entries; a
// new generation (one per solve) forgets everything in O(1).
class FutilityMemo {
 public:
  FutilityMemo() : slots_(kSize) {}
  void clear() { generation_ = (generation_ + 0x9e3779b97f4a7c15ULL) | 1; }
  // A Judgement, or -1 when not asked yet; *len: the length of the mate
  // after the capture, for a futile drop.
  int get(uint64_t key, Hand* hand, uint16_t* len = nullptr) const {
    const Slot& s = slots_[index(key)];
    if (s.key != (key ^ generation_)) return -1;
    *hand = s.hand;
    if (len) *len = s.len;
    return s.futile;
  }
  void put(uint64_t key, int futile, Hand hand, uint16_t len = 0) {
    Slot& s = slots_[index(key)];
    s.key = key ^ generation_;
    s.futile = uint16_t(futile);
    s.len = len;
    s.hand = hand;
  }

 private:
  static constexpr uint32_t kSize = 1u << 16;
  uint32_t index(uint64_t key) const { return uint32_t((key ^ generation_) >> 32) & (kSize - 1); }
  struct Slot {
    uint64_t key = 0;
    Hand hand = 0;
    uint16_t futile = 0;
    uint16_t len = 0;
  };
  std::vector<Slot> slots_;
  uint64_t generation_ = 1;
};

}  // namespace usi_mate
