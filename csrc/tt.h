// Transposition table for df-pn with superiority lookups on the attacker's hand.
//
// Entries are keyed by the board key (board + side to move, salted per search
// with the material and attacker, see Solver) and store the attacker's hand:
//   - proven    (pn == 0): hand is a proof hand; any position with the same board
//                and an attacker hand containing it is proven too;
//   - disproven (dn == 0): hand is a disproof hand; any position with the same
//                board and an attacker hand contained in it is disproven too;
//   - unknown: hand is the exact hand, pn/dn are the current estimates, and
//                mate_len the budget the node was searched with (BUDGET_NONE:
//                unbounded): estimates answer one question, "mate within that
//                budget?", and a probe can ask for those of its own budget only.
//
// Entry layout (32 bytes, two to a cache line):
//   +----------------+--------+--------+--------+--------+-------+-------+--------+
//   | key (64)       | hand   | pn     | dn     | amount | len16 | gen16 | aux    |
//   +----------------+--------+--------+--------+--------+-------+-------+--------+
// A cluster holds 8 entries (256 bytes): one board usually appears with several
// hands, and all of them must be scanned together for superiority.
//
// Clusters come in pairs (2i, 2i + 1). When a cluster is full and the entry to
// replace is a resolved one of the current search, it moves to the partner
// cluster (over an entry worth less there) instead of leaving the table, and
// the cluster's spill flag tells probes to scan the partner's resolved entries
// too. A board searched with more than 8 incomparable hands overflows its
// cluster in a nearly empty table, and a proof that leaves the table is proved
// again, over and over on a long work (docs/DFPN.md, "Transposition table").
// Unknown entries never move, so an update of one only looks in its own
// cluster.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "bitops.h"
#include "hand.h"
#include "zeroed.h"

namespace usi_mate {

constexpr uint32_t PN_INF = 0x3fffffff;  // sums of finite numbers are clamped below this

// Mate lengths in plies. A search may be asked "is there a mate within `budget`
// plies?" (the shortest-mate post search asks with shrinking budgets). A proof
// records the length of the mate it found; a disproof records how short a mate
// cannot be, LEN_INF meaning no mate at all.
constexpr uint16_t LEN_INF = 0xffff;
constexpr uint16_t BUDGET_NONE = 0xfffe;  // unbounded search: only real "no mate" disproves

struct TTEntry {
  uint64_t key;  // 0 marks an empty slot (keys are never 0, see TT::fix_key)
  Hand hand;
  uint32_t pn;
  uint32_t dn;
  uint32_t amount;      // nodes spent below this entry (saturating): what replacement keeps
  uint16_t mate_len;    // proven: plies of the mate found (an upper bound of the shortest);
                        // disproven: no mate is shorter than this (LEN_INF: no mate at all);
                        // unknown: the budget the estimates were made under
  uint16_t generation;  // the search that wrote it: older searches' entries are evicted first
  // The 4 bytes that were alignment padding, in the cache line the probe reads
  // anyway: the first entry's is the spin lock of its cluster pair while
  // threads share the table (set_shared), the second entry's the cluster's
  // spill flag (kSpillSlot); the others are 0.
  mutable std::atomic<uint32_t> aux;

  // Everything but aux (the lock and spill flag belong to the cluster).
  void set(uint64_t k, Hand h, uint32_t p, uint32_t d, uint16_t len, uint32_t amt, uint16_t gen) {
    key = k;
    hand = h;
    pn = p;
    dn = d;
    mate_len = len;
    amount = amt;
    generation = gen;
  }
};
static_assert(sizeof(TTEntry) == 32, "TT entries are 32 bytes");

struct TTResult {
  uint32_t pn = 1, dn = 1;
  Hand hand = 0;          // proof or disproof hand when resolved
  uint16_t mate_len = 0;  // proven: mate length; disproven: shortest possible mate length
  uint32_t amount = 0;
  bool found = false;  // an exact or resolving entry was found
};

class TranspositionTable {
 public:
  static constexpr int kClusterSize = 8;
  static constexpr int kSpillSlot = 1;  // whose aux is the spill flag
  struct Cluster {
    TTEntry e[kClusterSize];
    bool spilled() const { return e[kSpillSlot].aux.load(std::memory_order_relaxed) != 0; }
  };

  // Allocates mb megabytes (at least one cluster). Throws std::bad_alloc and
  // keeps the previous table when the memory is not there.
  void resize(uint64_t mb);
  void clear();
  uint64_t size_bytes() const { return capacity_ * sizeof(Cluster); }
  // Looks up (key, hand) for a search that allows mates of up to `budget`
  // plies. Proofs of at most `budget` plies and disproofs of every mate of at
  // most `budget` plies apply through superiority; unknown entries of
  // superior/inferior hands tighten the estimates; with own_budget_only, only
  // those made under this same budget (the futility judgements' sub-searches,
  // futility.cpp, which other questions' estimates starve).
  TTResult probe(uint64_t key, Hand hand, uint16_t budget = BUDGET_NONE, bool own_budget_only = false) const;
  // Stores a node's values. For resolved nodes, hand is the proof/disproof
  // hand; for unknown ones mate_len is the budget of the search (see above).
  void store(uint64_t key, Hand hand, uint32_t pn, uint32_t dn, uint16_t mate_len, uint32_t amount);
  // Starts loading the cluster of key into the cache (all four of its lines).
  void prefetch(uint64_t key) const {
    const char* p = reinterpret_cast<const char*>(&cluster(key));
    for (size_t i = 0; i < sizeof(Cluster); i += 64) usi_mate::prefetch(p + i);
  }
  // Per mille of used slots, sampled over the first clusters.
  int hashfull() const;
  // Starts a new search: what older searches stored stays valid and usable, but
  // is replaced first. Without this, a table reused over thousands of problems
  // (USI sessions, batch workers) fills with old resolved entries, which the
  // replacement rule keeps, and leaves the current search little room.
  void new_search() { ++generation_; }

  static uint64_t fix_key(uint64_t k) { return k ? k : 1; }

  // Several search threads share the table (Threads > 1): probes and stores
  // then take their cluster pair's lock, so no thread reads a half-written entry (a
  // torn proof would be a wrong answer). One thread pays one predictable
  // branch a call. Set only while no search runs.
  void set_shared(bool shared) {
    shared_ = shared;
    dirty_all_ = dirty_all_ || shared;                  // threads' stores are not noted: clear() zeroes all
    counted_ = counted_ && !shared;                     // (threads do not count: used_ is exact only until shared)
    if (shared && count_ < capacity_) grow(capacity_);  // threads never see the table move
  }
  bool shared() const { return shared_; }

 private:
  // A spin lock per cluster pair, taken only when shared_: contention is rare
  // (two threads on one pair at once) and the critical sections are a scan of
  // 8 or 16 entries. It lives in the pair's first entry: 4096 byte-sized
  // stripe locks packed in 64 cache lines, as before, had the two threads of a
  // 2-core run write the same lines on almost every probe. One lock for both
  // clusters of a pair: a store may move an entry across, a probe may scan both.
  class ClusterLock {
   public:
    ClusterLock(const TranspositionTable& t, uint64_t i) {
      if (t.shared_) {
        lock_ = &t.clusters_[i & ~uint64_t(1)].e[0].aux;
        while (lock_->exchange(1, std::memory_order_acquire))
          while (lock_->load(std::memory_order_relaxed)) {}
      }
    }
    ~ClusterLock() {
      if (lock_) lock_->store(0, std::memory_order_release);
    }
    ClusterLock(const ClusterLock&) = delete;
    ClusterLock& operator=(const ClusterLock&) = delete;

   private:
    std::atomic<uint32_t>* lock_ = nullptr;
  };

  // Moves every entry to its place in the first n clusters (n > count_): one
  // thread owns the table (not shared_), no entry is referenced outside it.
  void grow(uint64_t n);
  // Puts an entry moved by grow() in its cluster: an empty slot there, a
  // resolved entry in the partner's, else over the entry worth least there.
  void place(const TTEntry& e);
  // store()'s choice of slot, in tt.cpp (inline there: store is the search's hot path).
  inline TTEntry* sweep_covered(Cluster& c, uint64_t i, uint64_t key, Hand hand, uint32_t pn, uint16_t mate_len);
  inline TTEntry* replacement_slot(Cluster& c, uint64_t i);
  uint64_t worth(const TTEntry& e) const {
    // What replacement keeps: this search's entries first, then resolved
    // before unresolved, then the most work.
    bool resolved = e.pn == 0 || e.dn == 0;
    bool current = e.generation == generation_;
    return (uint64_t(current) << 33) | (uint64_t(resolved) << 32) | e.amount;
  }
  uint64_t initial_count() const { return shared_ ? capacity_ : std::min(capacity_, kInitialClusters); }

  const Cluster& cluster(uint64_t key) const { return clusters_[index(key)]; }
  // The partner of cluster i, null for the last cluster of an odd count.
  Cluster* partner(uint64_t i) const {
    uint64_t j = i ^ 1;
    return j < count_ ? &clusters_[j] : nullptr;
  }
  uint64_t index(uint64_t key) const {
    // Multiply-shift maps the key's high bits onto any table size, not only powers of two:
    // (key >> 1) * count >> 63 of the 128-bit product, written as the high half of
    // (key with bit 0 cleared) * count, the same index on every build.
    return mul_hi64(key & ~uint64_t(1), count_);
  }
  struct Free {
    size_t bytes;  // (no initialiser: a nested class's keeps it from being default-constructible here)
    void operator()(void* p) const { zeroed_free(p, bytes); }
  };
  // Zeroed pages (zeroed.h), not a vector: the OS hands them out lazily, so a
  // 1 GB table costs nothing until used, where value-initialising a vector
  // wrote every page up front, at isready (docs/DFPN.md, "Transposition table").
  std::unique_ptr<Cluster[], Free> clusters_;
  // The table starts in its first kInitialClusters clusters (4 MB) and doubles
  // whenever an eighth of the slots in use is full (kGrowLoad), up to all it
  // holds: a search touches pages in proportion to what it stores, not the
  // whole table (the first touch of a fresh page is a kernel trap, and touching
  // every page cost as much as the search itself on a median problem:
  // docs/DFPN.md, "Transposition table").
  // Several threads get the whole table at once (set_shared).
  static constexpr uint64_t kInitialClusters = uint64_t(1) << 14;
  static constexpr uint64_t kGrowLoad = 8;  // grow at 1/kGrowLoad of the slots in use
  uint64_t capacity_ = 0;                   // clusters allocated
  uint64_t count_ = 0;                      // clusters in use: index() maps keys onto these
  uint64_t used_ = 0;                       // occupied slots among them, counted while not shared_
  bool counted_ = true;                     // used_ is exact: not shared since the table was last emptied
  std::atomic<bool> dirty_{false};          // written since the last clear (by any thread)
  bool shared_ = false;
  uint16_t generation_ = 0;
  // The cluster pairs where one thread's stores put a new entry since the last
  // clear (every other write lands in a cluster that has one), while they are
  // few: clear() zeroes those rather than the 4 MB of the first clusters
  // (a search of a mate in five writes a few dozen; zeroing all cost a one-call
  // solve() three times its search). Past kDirtyPairs, or once shared or grown
  // (entries everywhere) until the next clear(), clear() zeroes every cluster in use.
  static constexpr uint32_t kDirtyPairs = 1024;
  void note_written(uint64_t i) {
    if (dirty_n_ < kDirtyPairs)
      dirty_pairs_[dirty_n_++] = uint32_t(i >> 1);
    else
      dirty_all_ = true;
  }
  std::array<uint32_t, kDirtyPairs> dirty_pairs_{};
  uint32_t dirty_n_ = 0;
  bool dirty_all_ = false;
};

}  // namespace usi_mate
