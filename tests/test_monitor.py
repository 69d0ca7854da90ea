"""SearchMonitor on its own (csrc/monitor.h): the caller's limits, the budgets of the
sub-searches as a stack of scopes, the stop flag and the clock (docs/USI.md, "Limits").

Times are small (at most ~40 ms a test) and checked from below exactly, from above
loosely: a loaded machine may pause a test, never make a deadline come early.
"""

from __future__ import annotations

import time

from hooks import (
    CHECK_INTERVAL,
    GRACE_MS,
    GRACE_NODES,
    NO_LIMIT,
    _search_time_ms,
    _SearchMonitor,
)


def started(nodes: int = 0, time_ms: int = 0) -> _SearchMonitor:
    monitor = _SearchMonitor()
    monitor.start(nodes, time_ms)
    return monitor


# ---------------------------------------------------------------------------
# The caller's budget


def test_a_node_limit_ends_the_search_and_says_why():
    monitor = started(nodes=1000)
    assert monitor.caller_node_cap == 1000
    assert not monitor.should_stop(999)
    assert not monitor.exhausted and monitor.reason is None
    assert monitor.should_stop(1000)
    assert monitor.exhausted and monitor.caller_budget_spent
    assert monitor.reason == "nodes"
    # Spent stays spent, whatever count comes next.
    assert monitor.should_stop(0)


def test_no_limit_never_stops():
    monitor = started()
    assert monitor.caller_node_cap == NO_LIMIT
    assert monitor.caller_deadline_ms is None and monitor.answer_deadline_ms is None
    assert not monitor.should_stop(10**15)
    assert not monitor.poll(10**15)
    assert monitor.reason is None


def test_start_begins_afresh():
    # A solve starts the monitor again: the last solve's stop, scopes and reason go.
    monitor = started(nodes=10)
    monitor.nested(0, 5)
    assert monitor.should_stop(5)
    monitor.set_stop()
    monitor.start(0, 0)
    assert monitor.scopes == 0
    assert not monitor.exhausted and monitor.reason is None
    assert not monitor.should_stop(100)


# ---------------------------------------------------------------------------
# Nested budgets: a node cap added to whatever encloses them


def test_a_nested_budget_ends_only_its_scope():
    # A spent futility check ends that check, and the search around it goes on.
    monitor = started(nodes=10_000)
    inner = monitor.nested(100, 500)  # at most 500 more nodes from 100: until 600
    assert not monitor.should_stop(599)
    assert monitor.should_stop(600)
    assert monitor.exhausted
    assert not monitor.caller_budget_spent and monitor.reason is None
    monitor.pop(inner)
    assert not monitor.exhausted  # the outer budget is back in force
    assert not monitor.should_stop(600)
    assert monitor.should_stop(10_000) and monitor.reason == "nodes"


def test_a_nested_budget_never_extends_the_enclosing_one():
    # 900 + 500 would be 1400, but the caller allows 1000: the cap is 1000, and the
    # caller learns at once that its own budget is spent (not only at its next check).
    monitor = started(nodes=1000)
    inner = monitor.nested(900, 500)
    assert not monitor.should_stop(999)
    assert monitor.should_stop(1000)
    assert monitor.caller_budget_spent and monitor.reason == "nodes"
    monitor.pop(inner)
    assert monitor.exhausted


def test_a_nested_budget_in_a_spent_one_is_spent():
    monitor = started(nodes=1000)
    assert monitor.should_stop(1000)
    monitor.nested(1000, 10**6)
    assert monitor.exhausted and monitor.should_stop(0)


def test_nested_budgets_nest_and_pop_innermost_first():
    monitor = started()
    outer = monitor.nested(0, 1000)
    inner = monitor.nested(10, 100)  # until 110
    assert monitor.scopes == 2
    assert monitor.should_stop(110)
    monitor.pop(inner)
    assert not monitor.exhausted and not monitor.should_stop(999)
    assert monitor.should_stop(1000)
    monitor.pop(outer)
    assert not monitor.exhausted and monitor.reason is None
    # Popping an outer scope ends the ones inside it too.
    outer = monitor.nested(0, 1000)
    monitor.nested(0, 100)
    monitor.pop(outer)
    assert monitor.scopes == 0


def test_scopes_deeper_than_the_stack_leave_the_enclosing_budget_in_force():
    # Futility checks nested in futility checks can go deeper than the monitor's
    # stack: a scope past it adds nothing (its cap does not apply) and ends quietly.
    monitor = started()
    for _ in range(100):
        monitor.nested(0, 1000)
    monitor.nested(0, 10)
    assert not monitor.should_stop(10)
    assert monitor.should_stop(1000)
    monitor.pop(0)
    assert not monitor.exhausted and not monitor.should_stop(1000)


# ---------------------------------------------------------------------------
# Own budgets: the enclosing limits do not apply inside them


def test_an_own_budget_answers_after_the_callers_limit():
    # The line of a proven mate is read after the node limit, within a budget of its
    # own; when it ends, the caller's budget is spent as before.
    monitor = started(nodes=1000)
    assert monitor.should_stop(1000)
    own = monitor.own(node_cap=5000)
    assert not monitor.exhausted
    assert not monitor.should_stop(4999)
    assert monitor.should_stop(5000)
    monitor.pop(own)
    assert monitor.exhausted and monitor.reason == "nodes"


def test_an_own_budget_that_honours_stop_ends_with_the_caller():
    monitor = started()
    monitor.own(node_cap=10**9, honors_stop=True)
    monitor.set_stop()
    assert monitor.should_stop(1)
    assert monitor.caller_budget_spent and monitor.reason == "stop"


def test_an_own_budget_that_ignores_stop_gets_the_grace_in_nodes():
    # A stop() shrinks a budget that must still answer to the grace: GRACE_NODES more
    # nodes (or GRACE_MS, below), then it ends; the caller's budget ends on the stop.
    for _ in range(3):  # (a pause of GRACE_MS in the ~50 us this takes ends it by time)
        monitor = started()
        own = monitor.own(honors_stop=False)
        monitor.set_stop()
        assert not monitor.should_stop(100)  # the grace starts here: until 100 + GRACE_NODES
        nodes, _, stopped = monitor.run(start=100, step=1)
        if nodes == 100 + GRACE_NODES:
            break
    assert stopped and nodes == 100 + GRACE_NODES
    assert not monitor.caller_budget_spent and monitor.reason is None
    monitor.pop(own)
    assert monitor.should_stop(nodes) and monitor.reason == "stop"


def test_an_own_budget_that_ignores_stop_gets_the_grace_in_time():
    monitor = started()
    monitor.own(honors_stop=False)
    monitor.set_stop()
    # No nodes counted (a line read): the grace's clock ends it, polled.
    nodes, elapsed_ms, stopped = monitor.run(start=5, step=0, poll=True)
    assert stopped and nodes == 5
    assert GRACE_MS <= elapsed_ms  # never before the grace (how late: a benchmark's question)


def test_an_own_deadline_ends_only_its_scope():
    monitor = started()
    begun = time.monotonic()
    own = monitor.own(deadline_ms=5)
    _, _, stopped = monitor.run(step=1)
    took_ms = (time.monotonic() - begun) * 1000
    assert stopped and 5 <= took_ms
    assert not monitor.caller_budget_spent and monitor.reason is None
    monitor.pop(own)
    assert not monitor.should_stop(10**6)


# ---------------------------------------------------------------------------
# The stop flag


def test_the_stop_flag_ends_the_search():
    monitor = started(nodes=10**6)
    assert not monitor.should_stop(1)
    monitor.set_stop()
    assert monitor.should_stop(2)
    assert monitor.caller_budget_spent and monitor.reason == "stop"


def test_the_stop_flag_ends_a_nested_budget_and_the_caller():
    monitor = started()
    monitor.nested(0, 10**6)
    monitor.set_stop()
    assert monitor.should_stop(1)
    assert monitor.caller_budget_spent and monitor.reason == "stop"


def test_the_first_reason_is_the_one_kept():
    monitor = started(nodes=100)
    assert monitor.should_stop(100)
    monitor.set_stop()
    assert monitor.should_stop(101) and monitor.reason == "nodes"


# ---------------------------------------------------------------------------
# Time


def test_the_searches_time_leaves_room_for_the_answer():
    assert _search_time_ms(0) == 0  # no limit
    # time/20 + two graces before the limit: the line read after the searches, then
    # the answer's way out.
    assert _search_time_ms(1000) == 1000 - (1000 // 20 + 2 * GRACE_MS)
    # Too short for that: half of it (at least 1 ms).
    assert _search_time_ms(30) == 15
    assert _search_time_ms(1) == 1


def test_a_time_limit_ends_the_search_at_the_searches_deadline():
    time_ms = 60
    begun = time.monotonic()
    monitor = started(time_ms=time_ms)
    search_ms = _search_time_ms(time_ms)  # 37
    assert abs(monitor.caller_deadline_ms - search_ms) <= monitor.start_took_ms + 1
    nodes, _, stopped = monitor.run(step=1)
    took_ms = (time.monotonic() - begun) * 1000
    assert stopped and monitor.caller_budget_spent and monitor.reason == "time"
    assert search_ms <= took_ms
    # The clock is read every CHECK_INTERVAL nodes.
    assert nodes % CHECK_INTERVAL == 0


def test_the_clock_is_read_between_intervals_only_when_polled():
    # Reading a line counts no nodes: should_stop() alone would never read the clock
    # again, poll() reads it now (docs/USI.md, "Limits").
    monitor = started(time_ms=30)  # the searches' deadline: 15 ms
    time.sleep(0.03)
    assert not monitor.should_stop(5)
    assert monitor.poll(5) and monitor.reason == "time"


def test_a_nested_budget_cut_by_the_callers_deadline_says_so():
    # A futility check cut by the caller's deadline must not look, to the search
    # around it, like one cut at its own cap: the caller's budget is spent at once.
    monitor = started(time_ms=60)
    inner = monitor.nested(0, 10**12)
    _, _, stopped = monitor.run(step=1)
    assert stopped and monitor.caller_budget_spent and monitor.reason == "time"
    monitor.pop(inner)
    assert monitor.exhausted


def test_the_answer_deadline_leaves_the_grace_before_the_limit():
    monitor = started(time_ms=1000)
    slack = monitor.start_took_ms + 1
    # The line read after the searches may run until GRACE_MS before the limit ...
    assert abs(monitor.answer_deadline_ms - (1000 - GRACE_MS)) <= slack
    # ... and the searches stop time/20 + GRACE_MS before that.
    assert abs(monitor.caller_deadline_ms - _search_time_ms(1000)) <= slack
    assert _search_time_ms(1000) + 1000 // 20 + GRACE_MS == 1000 - GRACE_MS


def test_a_time_limit_past_the_clocks_range_is_no_limit():
    # `go mate 10000000000000` once timed out at once: start + ms overflowed.
    monitor = started(time_ms=10**13)
    assert monitor.caller_deadline_ms is None and monitor.answer_deadline_ms is None
    assert not monitor.poll(10**6)


def test_progress_ticks_come_at_their_interval():
    begun = time.monotonic()
    monitor = started()
    monitor.count_ticks(1)
    _, _, stopped = monitor.run(step=1, guard_ms=20)
    took_ms = (time.monotonic() - begun) * 1000
    assert not stopped  # no limit: the run's own guard ended it
    # At most one a millisecond, seen at the clock's checks.
    assert 1 <= monitor.ticks <= took_ms + 1
    quiet = started()
    quiet.count_ticks(0)  # 0: never
    quiet.run(step=1, guard_ms=5)
    assert quiet.ticks == 0
