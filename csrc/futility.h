// Futile interpositions (無駄合; docs/FUTILE.md): the judge that owns the rule
// (FutilityJudge: the judgements, their caps and bounds, the memo that keeps
// them consistent within a solve, the count of those cut short and the table
// salt of searches that use them). Every caller, the df-pn search, the line
// reader and the refinement walk, asks it. The judgements themselves are in
// futility.cpp: they search with their worker (its table, position and budgets).
#pragma once

#include <cstdint>
#include <vector>

#include "hand.h"
#include "mix.h"
#include "movegen.h"
#include "node.h"
#include "types.h"
#include "zeroed.h"

namespace usi_mate {

// A futility check is a capped sub-search: a plain capture-and-mate takes df-pn
// a few hundred nodes, so a capture line that needs more than this is counted
// as real resistance.
constexpr uint64_t kFutilityNodeCap = 3000;

// A first proof this short (or a bounded solve, `max_length`, this short):
// every futility judgement of the length search and the line is asked without
// a cap (a cut one then never needs the verification), and against the other
// replies' shortest mates (is_futile_among). See docs/FUTILE.md, "Cut-short
// judgements", for what the cap costs and saves.
constexpr uint16_t kUncappedMaxLength = 21;
// A cap that caps nothing: every judgement settled (SearchLimits::futility_node_cap).
constexpr uint64_t kUncappedNodeCap = ~0ULL;

// A judgement: the drop is futile, real resistance, or not known because a
// sub-search was cut short (then counted as resistance, and counted in
// FutilityJudge::cut_short()).
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
  ZeroedArray<Slot> slots_;
  uint64_t generation_ = 1;
};

class Worker;

class FutilityJudge {
 public:
  explicit FutilityJudge(Worker& worker) : w_(worker) {}
  FutilityJudge(const FutilityJudge&) = delete;
  FutilityJudge& operator=(const FutilityJudge&) = delete;

  // Whether drops are judged at all (the composers' count, MinLength): per solve.
  bool enabled() const { return enabled_; }
  // Judgements against the other replies' shortest mates (is_futile_among),
  // every sub-search uncapped: short problems and the verification.
  bool exact() const { return cap_ == kUncapped; }
  // The node cap of a judgement's sub-search.
  uint64_t cap() const { return cap_; }
  // While a judgement's sub-search runs: it reads only the estimates made
  // under its own budget (TranspositionTable::probe, futility.cpp).
  bool own_estimates() const { return own_estimates_; }
  // Judgements cut short this solve: a length or a "no mate within b" proven
  // after one may rest on it, so none is claimed proven.
  uint64_t cut_short() const { return cuts_; }
  // The table salt of searches with judgements (0 when not enabled): bounded
  // results differ with and without them.
  uint64_t salt() const { return enabled_ ? salt_ : 0; }

  // A new solve: judgements on or off, the cap (0: kFutilityNodeCap); the
  // memo forgets, and the salt moves on when the last solve cut judgements
  // short (its entries may rest on them).
  void new_solve(bool enabled, uint64_t cap);
  // A bound this short: every judgement uncapped, unless the caller set a cap.
  void uncap_short(uint16_t bound);
  // After the table is emptied: salts start over, as a new solver's.
  void forget();
  // A helper thread's judge takes the main thread's settings for a phase; its
  // cut judgements are handed back (take_cuts) when it is joined.
  void follow(const FutilityJudge& main);
  void add_cuts(uint64_t n) { cuts_ += n; }
  uint64_t take_cuts() {
    uint64_t n = cuts_;
    cuts_ = 0;
    return n;
  }
  void clear_memo() { memo_.clear(); }

  // The judge's one question for a search (the MID loop, the line reader, the
  // refinement walk): whether `drop`, a reply at the current AND node with
  // `plies_left` plies for the rest of the line, is futile. With none left the
  // mate must follow the drop's capture at once (is_futile_drop against 0);
  // otherwise it is judged against the other replies (`others`, with their
  // proven lengths: is_futile_among). The two below are its parts (and the
  // tests' units).
  bool is_futile(int ply, uint64_t path_key, Move drop, uint16_t plies_left, const Move* others, const uint16_t* proven,
                 int n_others, Hand* proof_hand) {
    if (plies_left == 0) return is_futile_drop(ply, path_key, drop, 0, proof_hand);
    return is_futile_among(ply, path_key, drop, others, proven, n_others, proof_hand);
  }
  // Whether `drop` at the current position (an AND node in check, ply plies
  // below the root) is futile against a mate of `bound` plies (futility.cpp).
  bool is_futile_drop(int ply, uint64_t path_key, Move drop, uint16_t bound, Hand* proof_hand,
                      uint16_t* mate_len = nullptr);
  // Whether `drop` is futile against the other replies (`others`, with proven lengths).
  bool is_futile_among(int ply, uint64_t path_key, Move drop, const Move* others, const uint16_t* proven, int n_others,
                       Hand* proof_hand);
  // Every evasion a drop, and every one futile with nothing to compare against.
  bool only_futile_evasions(int ply, uint64_t path_key, const MoveList& evasions, Hand* proof_union);

  // The strict count for as long as it lives: no judgements; with `own_salt`
  // also the strict count's own table entries (else the entries of the count
  // in force, read without judging).
  class StrictCount {
   public:
    StrictCount(FutilityJudge& judge, bool own_salt);
    ~StrictCount();
    StrictCount(const StrictCount&) = delete;
    StrictCount& operator=(const StrictCount&) = delete;

   private:
    FutilityJudge& j_;
    bool enabled_;
    uint64_t worker_salt_;
  };
  // Every judgement settled for as long as it lives: uncapped, with a new salt
  // and an empty memo, so that nothing the capped searches stored or judged
  // is read (the verification of a claimed minimum).
  class Settled {
   public:
    explicit Settled(FutilityJudge& judge);
    ~Settled();
    Settled(const Settled&) = delete;
    Settled& operator=(const Settled&) = delete;

   private:
    FutilityJudge& j_;
    uint64_t salt_, worker_salt_, cap_;
  };

 private:
  static constexpr uint64_t kUncapped = kUncappedNodeCap;  // (SearchMonitor::kNoLimit)
  static uint64_t salt_of(uint64_t generation) {
    return mix64(0x5a5a5a5a5a5a5a5aULL + generation) & ~1ULL;  // bit 0 clear: it is the side-to-move bit
  }
  // A judgement's sub-search: the current position (`key` on the path, ply
  // plies below the root) proven within `bound`, under the cap when `capped`,
  // reading only the estimates made under its own budget.
  NodeValue sub_search(int ply, uint64_t path_key, uint64_t key, uint16_t bound, bool capped);
  enum class Answer { NoShorter, Mate, Open, Cut };
  Answer ask_reply(int ply, uint64_t path_key, Move reply, uint16_t b, uint16_t& len);
  Worker& w_;
  FutilityMemo memo_;
  bool enabled_ = false;
  bool own_estimates_ = false;
  uint64_t cap_ = kFutilityNodeCap;
  uint64_t set_cap_ = 0;  // the caller's cap (0: none set)
  uint64_t cuts_ = 0;
  // Table keys with judgements are salted apart from those without, and anew
  // (one generation on) after a solve that counted cut judgements and for
  // each verification, so that no claim rests on what a search with cut
  // judgements stored.
  uint64_t generation_ = 0;
  uint64_t salt_ = salt_of(0);
};

}  // namespace usi_mate
