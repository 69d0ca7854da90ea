"""usi_mate.verify.judge_drop, the futility rule's one Python copy (docs/FUTILE.md), with
the caller's search replaced by a table of answers: which positions it asks about, in
which order, and what their answers make of the drop."""

from __future__ import annotations

from usi_mate import Position
from usi_mate.verify import given_back_sfen, judge_drop, only_futile_replies

# White to move, in check from the rook on 1i; its only replies are drops between them.
DROPS_FUTILE = "7lk/7l1/9/7N1/9/9/9/9/8R w g 1"
DROPS_NOT_FUTILE = "7lk/7l1/9/9/9/9/9/9/8R w g 1"


def questions(sfen: str, drop: str) -> list[tuple[str, str]]:
    """(capture, the position it leaves with the piece given back) of each checking capture."""
    pos = Position(sfen)
    pos.push_usi(drop)
    found = []
    for capture in pos.check_moves():
        if capture[1] != "*" and capture[2:4] == drop[2:4]:
            pos.push_usi(capture)
            found.append((capture, given_back_sfen(pos.sfen(), drop[0]) or ""))
            pos.pop()
    return found


def test_each_answer_makes_its_verdict():
    pos = Position(DROPS_FUTILE)
    drop = "G*1h"
    asked = questions(DROPS_FUTILE, drop)
    assert asked, "the rook takes the gold with check"
    capture, position = asked[0]
    for answer, verdict in [
        ("mate", ("futile", capture)),
        ("nomate", ("not futile", None)),
        ("unknown", ("unsettled", None)),
        (None, ("spent", None)),
    ]:
        seen: list[str] = []

        def mate_status(sfen: str, answer: str | None = answer) -> str | None:
            seen.append(sfen)
            return answer

        assert judge_drop(pos, drop, mate_status) == verdict
        assert seen[0] == position
        assert pos.sfen() == Position(DROPS_FUTILE).sfen()  # as it was


def test_only_futile_replies_asks_the_same_rule():
    assert only_futile_replies(DROPS_FUTILE)
    assert not only_futile_replies(DROPS_NOT_FUTILE)
