"""The futility memo (csrc/futility.h): one judgement per drop per solve."""

from __future__ import annotations

from usi_mate._core import _FutilityMemo

ZERO = dict.fromkeys("PLNSBRG", 0)


def test_the_memo_returns_what_was_put_until_cleared():
    memo = _FutilityMemo()
    assert memo.get(12345) is None
    memo.put(12345, True, {**ZERO, "G": 1})
    assert memo.get(12345) == (True, {**ZERO, "G": 1})
    memo.put(999, False, ZERO)
    assert memo.get(999) == (False, ZERO)
    memo.clear()  # a new solve forgets every judgement
    assert memo.get(12345) is None and memo.get(999) is None


def test_a_colliding_key_is_not_mistaken_for_another():
    memo = _FutilityMemo()
    memo.put(1 << 40, True, ZERO)
    assert memo.get((1 << 40) ^ 1) is None
