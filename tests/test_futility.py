"""The futility memo (csrc/futility.h): one judgement per drop per solve; a proven
minimum never rests on a judgement cut short."""

from __future__ import annotations

import pytest
from hooks import _FutilityMemo, _solve_with_futility_cap
from oracle import external_labelled, load_labelled

from usi_mate.settings import FUTILITY_NODE_CAP

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


# ---------------------------------------------------------------------------
# A proven minimum and the judgements it rests on (docs/FUTILE.md, "Cut-short
# judgements")

ZUKOU_029 = next(sfen for sfen, _, ident in load_labelled("zukou.sfen") if ident == "zukou-029")


def test_a_minimum_is_claimed_only_once_its_futility_judgements_are_settled():
    # zukou-029 (15 plies): the length search reaches 15 within 3 M nodes, but
    # on the way some futility sub-searches are cut at their 3000-node cap;
    # settling them without a cap takes more than the nodes left.
    assert _solve_with_futility_cap(ZUKOU_029, 3_000_000, FUTILITY_NODE_CAP) == ("mate", 15, False)
    assert _solve_with_futility_cap(ZUKOU_029, 20_000_000, FUTILITY_NODE_CAP) == ("mate", 15, True)


def test_the_claim_does_not_depend_on_the_futility_cap():
    # With every judgement cut short at its first ask (a cap of one node),
    # the answer is the same and claimed only after each is settled.
    assert _solve_with_futility_cap(ZUKOU_029, 20_000_000, 1) == ("mate", 15, True)


def test_a_shorter_mate_found_while_settling_judgements_is_the_answer():
    # Futile drops (cat=muda-ai) whose judgements are all cut at one node: the
    # capped search counts every drop as resistance and proves the strict
    # length minimal; settling the judgements proves a shorter mate, which is
    # then answered and verified (it was 5, 7, 11 and unclaimed before).
    generated = {ident: sfen for sfen, _, ident in load_labelled("generated.sfen")}
    for ident, plies in (("gen-0427", 3), ("gen-0599", 5), ("gen-0849", 7)):
        answer = _solve_with_futility_cap(generated[ident], 2_000_000, 1)
        assert answer == ("mate", plies, True), ident


@pytest.mark.parametrize(
    "sfen, expected, ident",
    external_labelled(
        "yaneuraou500m_mate11.sfen", lambda items: [i for i in items if i[2].endswith("-0670")]
    ),
)
def test_judgements_read_only_estimates_of_their_own_budget(sfen, expected, ident):
    # The first proof is 23 plies (S*5d); the 11-ply mate starts S*3d. When the
    # judgements' capped sub-searches read the first proof's (unbounded)
    # estimates, over a thousand were cut short, their drops counted as
    # resistance, and "mate within 21" stayed unproven for 20 M nodes.
    assert _solve_with_futility_cap(sfen, 3_000_000, FUTILITY_NODE_CAP) == (
        "mate",
        int(expected),
        True,
    )
