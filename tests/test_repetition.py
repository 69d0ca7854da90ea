"""The search path and path-dependent results (csrc/repetition.h)."""

from __future__ import annotations

import random

from hooks import _path_result_key, _PathSet, _RepetitionTable


def test_path_set_counts_and_erases_like_a_multiset():
    rng = random.Random(4)
    path, model = _PathSet(), {}
    keys = [rng.getrandbits(64) | 1 for _ in range(300)]
    for _ in range(20000):
        k = rng.choice(keys)
        if rng.random() < 0.55:
            path.insert(k)
            model[k] = model.get(k, 0) + 1
        elif model.get(k):
            path.erase(k)
            model[k] -= 1
        assert (k in path) == bool(model.get(k)), k
    for k in keys:
        assert (k in path) == bool(model.get(k))


def test_path_set_erase_keeps_probe_chains_intact():
    # Keys that share a home slot (bits 40..55) and differ elsewhere.
    path = _PathSet()
    keys = [(7 << 40) | (i << 1) | 1 for i in range(1, 40)]
    for k in keys:
        path.insert(k)
    for k in keys[::2]:
        path.erase(k)
    assert all((k in path) == (i % 2 == 1) for i, k in enumerate(keys))


def test_result_keys_keep_the_node_apart_from_its_ancestors():
    # The false "no mate" of issue 16: with ancestors and node XORed together, the
    # result for D below {A, B, C} had the key of C below {A, B, D}.
    a, b, c, d = (random.Random(i).getrandbits(64) for i in range(4))
    assert _path_result_key(a ^ b ^ c, d) != _path_result_key(a ^ b ^ d, c)
    # The order of the ancestors does not matter (a result only asks "is it on the path?").
    assert _path_result_key(a ^ b ^ c, d) == _path_result_key(c ^ a ^ b, d)
    # Nor may another budget's result be taken for this one.
    assert _path_result_key(a ^ b, c, 0) != _path_result_key(a ^ b, c, 12345)


def test_repetition_table_remembers_until_cleared():
    table = _RepetitionTable(bits=10)
    keys = [random.Random(100 + i).getrandbits(64) for i in range(50)]
    for k in keys[:25]:
        table.insert(k)
    assert all(k in table for k in keys[:25])
    assert sum(k in table for k in keys[25:]) == 0
    table.clear()
    assert not any(k in table for k in keys)
