"""The length search's arithmetic (LengthBounds, csrc/length_bounds.h), apart from its searches.

After a first proof the search for the shortest mate asks "a mate within b plies?" at
the root: first one step below the best mate, then halfway down to what is proven
impossible (PostSearch::narrow_length). Here the questions are answered by a model
problem whose shortest mate is known, so the order of questions and the bounds they
leave can be checked for every length: budgets keep the root's parity, no question is
asked twice or outside the open interval, and the bounds end at the shortest mate.
"""

from __future__ import annotations

import pytest
from hooks import _LengthBounds


def questions(first: int, shortest: int, found: str = "shortest", undecided_below: int = -1):
    """The budgets narrow_length asks, in order, until the bounds settle, against a problem
    whose shortest mate is ``shortest`` plies. A mate within b is found as the shortest
    one (``found="shortest"``) or as b itself (``"budget"``); questions below
    ``undecided_below`` stay open (the effort cap), as they do on hard refutations."""
    bounds = _LengthBounds(first)
    asked = []

    def ask(b):
        assert bounds.lo < b < bounds.best, (b, bounds.lo, bounds.best)
        assert b % 2 == first % 2 and b not in asked
        asked.append(b)
        if b < undecided_below:
            return 0
        if b >= shortest:
            bounds.mate_found(shortest if found == "shortest" else b)
            return 1
        bounds.none_within(b)
        return -1

    rounds = 0
    while not bounds.settled() and rounds < 100:
        rounds += 1
        if ask(bounds.step_down()) != 0:
            continue
        halfway = bounds.halfway()
        if halfway < 0 or ask(halfway) == 0:
            break  # (the search then doubles its effort; the model's answers would not change)
    return asked, bounds


@pytest.mark.parametrize("found", ["shortest", "budget"])
def test_the_bounds_end_at_the_shortest_mate_for_every_length(found):
    for first in range(1, 80):
        for shortest in range(first % 2 or 2, first + 1, 2):
            asked, bounds = questions(first, shortest, found)
            assert bounds.settled() and bounds.best == shortest, (first, shortest)
            # Down from the first proof (one step, or step by step when each mate found
            # is just within its budget), then the refutation one step below the
            # shortest, unless that is below any mate (a mate in 1).
            if first == shortest:
                down = []
            elif found == "shortest":
                down = [first - 2]
            else:
                down = list(range(first - 2, shortest - 1, -2))
            refute = [shortest - 2] if shortest >= 2 else []
            assert asked == down + refute, (first, shortest, asked)
            assert bounds.proven_lower() == shortest or shortest == 1


def test_a_first_proof_that_is_the_shortest_mate_takes_one_refutation():
    asked, bounds = questions(31, 31)
    assert asked == [29] and bounds.settled() and bounds.lo == 29
    asked, bounds = questions(1, 1)
    assert asked == [] and bounds.settled()
    asked, bounds = questions(2, 2)  # (an AND root: even lengths)
    assert asked == [0] and bounds.proven_lower() == 2


def test_halfway_is_asked_when_the_step_down_stays_open():
    # The step down to 39 is undecided: the round goes on halfway between lo and 39.
    bounds = _LengthBounds(41)
    assert (bounds.step_down(), bounds.halfway()) == (39, 19)
    bounds.none_within(19)
    assert (bounds.step_down(), bounds.halfway(), bounds.proven_lower()) == (39, 29, 21)
    bounds.mate_found(33)
    assert (bounds.best, bounds.step_down(), bounds.halfway()) == (33, 31, 25)
    bounds.none_within(29)
    assert bounds.halfway() == -1 and not bounds.settled()  # only 31 is left: the step down
    bounds.none_within(31)
    assert bounds.settled() and bounds.proven_lower() == 33


def test_bounds_only_narrow():
    bounds = _LengthBounds(21)
    bounds.mate_found(25)  # a longer mate found later changes nothing
    bounds.none_within(9)
    bounds.none_within(5)
    assert (bounds.best, bounds.lo) == (21, 9)


def test_an_open_step_down_with_open_halfway_ends_the_round():
    asked, bounds = questions(41, 21, undecided_below=40)
    assert asked == [39, 19] and not bounds.settled()
