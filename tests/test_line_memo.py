"""The memos of one solve: the line reader's lines read (LineMemoTable,
csrc/line_memo.h) and what tests/test_futility.py leaves out of the futility memo
(FutilityMemo, csrc/futility.h)."""

from __future__ import annotations

import random

from hooks import LEN_INF, _FutilityMemo, _LineMemoTable

ZERO = dict.fromkeys("PLNSBRG", 0)

# ---------------------------------------------------------------------------
# LineMemoTable: open addressing, at most half full, cleared by a generation stamp


def test_a_line_is_found_after_it_is_put():
    memo = _LineMemoTable()
    assert memo.find(42) is None  # (an empty table has no slots at all)
    memo.put(42, 17, 0, 19)
    assert memo.find(42) == (17, 0, 19)
    assert memo.find(43) is None
    memo.put(0, 3, 2)  # key 0 is a key like any other; the bound defaults to none
    assert memo.find(0) == (3, 2, LEN_INF)


def test_a_second_put_overwrites():
    memo = _LineMemoTable()
    memo.put(7, 11, 1, LEN_INF)
    memo.put(7, 9, 0, 9)
    assert memo.find(7) == (9, 0, 9)


def test_clear_forgets_every_line():
    # One read's lines must not answer the next read's questions.
    memo = _LineMemoTable()
    for key in range(1000):
        memo.put(key, key % 50, key % 3, LEN_INF)
    memo.clear()
    assert all(memo.find(key) is None for key in range(1000))
    memo.put(5, 1, 0, 1)  # the table works on after a clear
    assert memo.find(5) == (1, 0, 1) and memo.find(6) is None


def test_repeated_clears_of_a_full_table_forget_every_line():
    # clear() moves a generation stamp instead of wiping the slots (a rebuild after a
    # long first proof leaves hundreds of thousands of lines, and the read after a
    # time limit has only the grace); many stamps later nothing old is found.
    memo = _LineMemoTable()
    keys = [key * 0x9E3779B97F4A7C15 % 2**64 for key in range(200_000)]
    for key in keys:
        memo.put(key, 1, 0, 1)
    memo.clear_times(1000)
    assert all(memo.find(key) is None for key in keys[::997])


def test_growth_keeps_every_line():
    rng = random.Random(45)
    keys = list({rng.getrandbits(64) for _ in range(5000)})  # 1024 slots, grown 4 times
    memo = _LineMemoTable()
    for i, key in enumerate(keys):
        memo.put(key, i % 4000, i % 7, i % 5000)
    assert all(memo.find(key) == (i % 4000, i % 7, i % 5000) for i, key in enumerate(keys))
    absent = {key ^ 1 for key in keys} - set(keys)
    assert all(memo.find(key) is None for key in absent)


def test_growth_after_a_clear_keeps_only_the_live_lines():
    memo = _LineMemoTable()
    for key in range(3000):
        memo.put(key, 1, 0, 1)
    memo.clear()
    new_keys = range(10_000, 16_000)  # more than the table holds: it grows
    for key in new_keys:
        memo.put(key, 2, 1, 2)
    assert all(memo.find(key) == (2, 1, 2) for key in new_keys)
    assert all(memo.find(key) is None for key in range(3000))


def test_colliding_keys_are_kept_apart():
    # Keys below 2^29 that differ by a multiple of the table's size (1024 slots at
    # first, then 2048, ...) share a home slot: each gets its own slot down the chain.
    memo = _LineMemoTable()
    keys = [5 + 1024 * i for i in range(8)]
    for i, key in enumerate(keys):
        memo.put(key, i, i, i)
    assert [memo.find(key) for key in keys] == [(i, i, i) for i in range(8)]
    # After a clear, the chain's first slot is free again: a later key put there is
    # found, and the forgotten ones further down are not.
    memo.clear()
    memo.put(keys[3], 30, 0, 30)
    assert memo.find(keys[3]) == (30, 0, 30)
    assert all(memo.find(key) is None for key in keys if key != keys[3])


# ---------------------------------------------------------------------------
# FutilityMemo: what test_futility.py does not check


def test_a_judgement_keeps_its_length_and_outcome():
    memo = _FutilityMemo()
    memo.put(1, True, {**ZERO, "S": 1}, length=4)
    assert memo.judgement(1) == (1, {**ZERO, "S": 1}, 4)
    # A judgement cut short at its cap is its own outcome: counted as resistance
    # (get says not futile) and known not to be settled.
    memo.put(2, _FutilityMemo.CUT_SHORT, ZERO)
    assert memo.judgement(2) == (2, ZERO, 0)
    assert memo.get(2) == (False, ZERO)


def test_the_memo_is_direct_mapped():
    # One slot a home (2^16 of them, by the key's bits 32-47): a later judgement in
    # the same slot replaces the earlier, which is then asked again.
    memo = _FutilityMemo()
    first, second = 1 << 40, (1 << 40) | 12345
    memo.put(first, True, ZERO)
    memo.put(second, False, ZERO)
    assert memo.get(first) is None
    assert memo.get(second) == (False, ZERO)


def test_each_clear_is_a_new_generation():
    # Judgements of an earlier solve are never read, however many solves ago, and a
    # key put again after a clear is a new judgement.
    memo = _FutilityMemo()
    keys = [i << 32 | i for i in range(100)]
    for key in keys:
        memo.put(key, True, ZERO, length=2)
    for _ in range(1000):
        memo.clear()
        assert memo.get(keys[0]) is None
    assert all(memo.get(key) is None for key in keys)
    memo.put(keys[0], False, ZERO)
    assert memo.judgement(keys[0]) == (0, ZERO, 0)
