// When a search stops: the caller's limits (nodes, time, Solver::stop()) and
// the budgets of the sub-searches run inside it, as a stack.
//
// The bottom budget is the caller's. A sub-search (a futility check, a
// certificate re-search, the line rebuild) pushes a budget of its own for its
// lifetime (SearchMonitor::Scope): nested budgets add a node cap to whatever
// encloses them; own budgets replace the enclosing limits, for work that
// must still answer after the search proper was stopped (the line of a
// proven mate). should_stop() looks at the innermost budget only, so a
// spent futility check ends that check and nothing else, while a spent
// caller budget ends everything above it and says why (reason()).
//
// should_stop() is called once per MID iteration. It reads the clock only
// every kCheckInterval nodes, a fraction of a millisecond of search
// (docs/USI.md, "Limits"), well inside "a few percent plus a small constant"
// of any time limit.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "search_types.h"

namespace usi_mate {

class SearchMonitor {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint64_t kNoLimit = UINT64_MAX;
  static constexpr uint64_t kCheckInterval = 1024;
  // What work that must answer even after a limit or stop() (the line of a
  // proven mate) may still spend: fewer nodes than kGraceTime holds of search
  // (docs/USI.md, "Limits").
  static constexpr uint64_t kGraceNodes = 20000;
  static constexpr std::chrono::milliseconds kGraceTime{10};
  using TickFn = void (*)(void* ctx);

  // The time the searches get under a caller's limit of time_ms (0: none):
  // the line read after a proof may run on until answer_deadline(), so they
  // stop time_ms / 20 + kGraceTime before it, and that is another kGraceTime
  // before the limit, for the answer's way out (a long line written over USI),
  // so that it comes within time_ms: a GUI counts a late answer as a timeout
  // (docs/USI.md, "Limits").
  static uint64_t search_time_ms(uint64_t time_ms) {
    if (!time_ms) return 0;
    uint64_t reserve = time_ms / 20 + 2 * uint64_t(kGraceTime.count());
    return time_ms > 2 * reserve ? time_ms - reserve : std::max<uint64_t>(time_ms / 2, 1);
  }

  // from + ms, or "never" when that is past the clock's range: steady_clock counts
  // nanoseconds in 64 bits, so from + ms overflowed for limits over ~9.2e12 ms (292
  // years), and `go mate 10000000000000` timed out at once.
  static Clock::time_point after(Clock::time_point from, uint64_t ms) {
    const auto room = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - from);
    return ms >= uint64_t(room.count()) ? Clock::time_point::max() : from + std::chrono::milliseconds(ms);
  }

  // Starts the clock and the caller's budget (0 = no limit for nodes and time):
  // the searches' deadline is search_time_ms(time_ms) away.
  void start(uint64_t node_limit, uint64_t time_ms, const std::atomic<bool>* stop_flag) {
    start_ = last_tick_ = Clock::now();
    answer_deadline_ = time_ms ? after(start_, time_ms) - kGraceTime : Clock::time_point::max();
    stop_flag_ = stop_flag;
    depth_ = 1;
    reason_ = StopReason::None;
    next_check_ = kCheckInterval;
    Budget& b = stack_[0];
    b.node_cap = node_limit ? node_limit : kNoLimit;
    b.deadline = time_ms ? after(start_, search_time_ms(time_ms)) : Clock::time_point::max();
    b.honors_stop = true;
    b.exhausted = false;
    b.grace_given = false;
  }
  // Calls tick(ctx) every interval_ms (0: never), from should_stop().
  void set_tick(TickFn tick, void* ctx, uint64_t interval_ms) {
    tick_ = tick;
    tick_ctx_ = ctx;
    tick_interval_ = std::chrono::milliseconds(interval_ms);
  }

  // True when the innermost budget is spent: the running (sub-)search must return.
  bool should_stop(uint64_t nodes) {
    Budget& b = stack_[depth_ - 1];
    if (b.exhausted) return true;
    if (nodes >= b.node_cap) return exhaust(StopReason::NodeLimit, nodes);
    if (stop_flag_->load(std::memory_order_relaxed)) {
      if (b.honors_stop) return exhaust(StopReason::Stopped, nodes);
      if (!b.grace_given) give_grace(b, nodes);
    }
    if (nodes >= next_check_) return check_clock(nodes);
    return false;
  }
  // should_stop() with the clock read now: for work that counts no nodes
  // (reading a line off the table), which should_stop() alone would let run
  // past its deadline: reading a long proof's mating line visits its whole
  // proof tree without a node, long enough to make the answer late
  // (docs/USI.md, "Limits").
  bool poll(uint64_t nodes) {
    next_check_ = nodes;
    return should_stop(nodes);
  }
  // The innermost budget is spent (as last seen by should_stop).
  bool exhausted() const { return stack_[depth_ - 1].exhausted; }
  // How many budgets are in force: the phase's own, or more inside a sub-search.
  int depth() const { return depth_; }
  // The caller's budget is spent: the search proper is over, for reason().
  bool caller_budget_spent() const { return stack_[0].exhausted; }
  StopReason reason() const { return reason_; }
  uint64_t elapsed_ms() const {
    return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count());
  }
  uint64_t elapsed_us() const {
    return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count());
  }
  // What the caller's budget allows from now: nodes left (kNoLimit: none) and the deadline.
  uint64_t caller_node_cap() const { return stack_[0].node_cap; }
  Clock::time_point caller_deadline() const { return stack_[0].deadline; }
  // The latest a line read after the searches may run under the caller's time
  // limit: kGraceTime before it (max(): no time limit).
  Clock::time_point answer_deadline() const { return answer_deadline_; }

  // A budget in force while the Scope lives (scopes end in reverse order).
  class [[nodiscard]] Scope {
   public:
    explicit Scope(SearchMonitor* m) : m_(m) {}
    Scope(Scope&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;
    ~Scope() {
      if (m_) --m_->depth_;
    }

   private:
    SearchMonitor* m_;
  };
  // At most node_budget more nodes, within whatever the enclosing budget allows.
  Scope nested(uint64_t nodes, uint64_t node_budget) {
    const Budget& outer = stack_[depth_ - 1];
    uint64_t cap = node_budget > kNoLimit - nodes ? kNoLimit : nodes + node_budget;
    return push({std::min(cap, outer.node_cap), outer.deadline, outer.honors_stop, outer.exhausted, outer.grace_given});
  }
  // A budget of its own: the enclosing limits do not apply inside it. Without
  // honors_stop, a stop() shrinks it to the grace (kGraceNodes, kGraceTime).
  Scope own(uint64_t node_cap, Clock::time_point deadline, bool honors_stop) {
    return push({node_cap, deadline, honors_stop, false, false});
  }

 private:
  struct Budget {
    uint64_t node_cap;
    Clock::time_point deadline;
    bool honors_stop;
    bool exhausted;
    bool grace_given;  // stop() was seen by a budget that does not honour it
  };

  void give_grace(Budget& b, uint64_t nodes) {
    b.grace_given = true;
    b.node_cap = std::min(b.node_cap, nodes + kGraceNodes);
    b.deadline = std::min(b.deadline, Clock::now() + kGraceTime);
  }

  Scope push(const Budget& b) {
    // Deeper than the stack (futility checks nested in futility checks): the
    // enclosing budget stays in force.
    if (depth_ >= int(stack_.size())) return Scope(nullptr);
    stack_[depth_++] = b;
    return Scope(this);
  }

  bool check_clock(uint64_t nodes) {
    next_check_ = nodes + kCheckInterval;
    Clock::time_point now = Clock::now();
    if (tick_ && tick_interval_.count() && now - last_tick_ >= tick_interval_) {
      last_tick_ = now;
      tick_(tick_ctx_);
    }
    if (now >= stack_[depth_ - 1].deadline) return exhaust(StopReason::TimeLimit, nodes, now);
    return false;
  }

  // Marks the innermost budget spent, and every enclosing one the same
  // condition also ends (a nested budget inherits its caps), so each learns
  // why at once rather than at its next check: a futility check cut by the
  // caller's deadline must not look, to the attempt around it, like one cut
  // at its own cap (the clock is read again only 1024 nodes later).
  bool exhaust(StopReason why, uint64_t nodes, Clock::time_point now = Clock::time_point::min()) {
    stack_[depth_ - 1].exhausted = true;
    for (int i = depth_ - 2; i >= 0; --i) {
      Budget& b = stack_[i];
      if ((why == StopReason::NodeLimit && nodes >= b.node_cap) || (why == StopReason::Stopped && b.honors_stop) ||
          (why == StopReason::TimeLimit && now >= b.deadline))
        b.exhausted = true;
    }
    if (stack_[0].exhausted && reason_ == StopReason::None) reason_ = why;
    return true;
  }

  // Depth: the caller's budget, a rebuild or certificate budget, futility
  // checks inside it (a chain of futile drops nests one check in another, up
  // to the 7 squares between a king and a checker), a re-search inside that.
  std::array<Budget, 32> stack_{};
  int depth_ = 1;
  uint64_t next_check_ = kCheckInterval;
  const std::atomic<bool>* stop_flag_ = nullptr;
  StopReason reason_ = StopReason::None;
  Clock::time_point start_, last_tick_, answer_deadline_ = Clock::time_point::max();
  TickFn tick_ = nullptr;
  void* tick_ctx_ = nullptr;
  std::chrono::milliseconds tick_interval_{0};
};

}  // namespace usi_mate
