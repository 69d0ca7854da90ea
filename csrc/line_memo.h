// The lines already read during one line rebuild (line_reader.cpp): by
// position (and length bound), the line's length and the attacker's spare
// pieces at its end.
//
// An open-addressing table whose clear() is O(1) (a generation stamp): a
// rebuild after a long first proof leaves hundreds of thousands of entries,
// and clearing a node-based map that size took longer than the grace the line
// read after a time limit has before the answer is due
// (SearchMonitor::kGraceTime; figures in docs/USI.md, "Limits").
#pragma once

#include <cstdint>
#include <vector>

namespace usi_mate {

struct LineMemo {
  uint16_t len;
  int spare;
  // A mate no longer than this is proven from the position: the line with
  // every other defence at its AND nodes bounded too (line_reader.cpp,
  // strict non-exact reads; LEN_INF otherwise).
  uint16_t bound;
};

class LineMemoTable {
 public:
  // The entry of `key` stored since the last clear(), or null.
  const LineMemo* find(uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = index(key);; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.generation != generation_) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  void put(uint64_t key, const LineMemo& value) {
    // At most half full, so probes stay short and find() always meets a free slot.
    if (2 * (used_ + 1) > slots_.size()) grow();
    for (size_t i = index(key);; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = {key, generation_, value};
        ++used_;
        return;
      }
      if (s.key == key) {
        s.value = value;
        return;
      }
    }
  }
  void clear() {
    used_ = 0;
    if (++generation_ == 0) {  // (after 2^32 clears: stamps would repeat)
      for (Slot& s : slots_) s.generation = 0;
      generation_ = 1;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    uint32_t generation;  // live when equal to generation_
    LineMemo value;
  };
  size_t mask() const { return slots_.size() - 1; }
  size_t index(uint64_t key) const { return size_t(key ^ (key >> 29)) & mask(); }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{0, 0, {0, 0, 0}});
    uint32_t live = generation_;
    generation_ = 1;
    used_ = 0;
    for (const Slot& s : old)
      if (s.generation == live) put(s.key, s.value);
  }

  std::vector<Slot> slots_;  // a power of two in size
  uint32_t generation_ = 1;
  size_t used_ = 0;
};

}  // namespace usi_mate
