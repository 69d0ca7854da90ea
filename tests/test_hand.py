"""Hands and their superiority relation (csrc/hand.h): the guard-bit compare
the table's lookups rest on, checked against a plain count-by-count model."""

from __future__ import annotations

import random

from hooks import _hand_join, _hand_meet, _hand_superior_or_equal

MAX = {"P": 18, "L": 4, "N": 4, "S": 4, "B": 2, "R": 2, "G": 4}


def random_hand(rng: random.Random) -> dict[str, int]:
    return {t: rng.randint(0, m) if rng.random() < 0.6 else 0 for t, m in MAX.items()}


def test_superiority_matches_the_count_model_on_random_hands():
    rng = random.Random(2)
    for _ in range(20000):
        a, b = random_hand(rng), random_hand(rng)
        if rng.random() < 0.3:
            b = {t: min(a[t], b[t]) for t in MAX}  # often comparable
        assert _hand_superior_or_equal(a, b) == all(a[t] >= b[t] for t in MAX), (a, b)


def test_every_field_at_its_maximum_compares_without_overflow():
    full = dict(MAX)
    empty = dict.fromkeys(MAX, 0)
    assert _hand_superior_or_equal(full, full)
    assert _hand_superior_or_equal(full, empty)
    assert not _hand_superior_or_equal(empty, full)
    for t in MAX:
        assert not _hand_superior_or_equal({**full, t: MAX[t] - 1}, full)


def test_meet_and_join_are_fieldwise_min_and_max():
    rng = random.Random(3)
    for _ in range(2000):
        a, b = random_hand(rng), random_hand(rng)
        assert _hand_meet(a, b) == {t: min(a[t], b[t]) for t in MAX}
        assert _hand_join(a, b) == {t: max(a[t], b[t]) for t in MAX}
