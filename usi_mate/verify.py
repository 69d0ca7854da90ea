"""The futility rule in Python, and where a mating line may end by it.

:func:`judge_drop` is the rule's one Python copy (docs/FUTILE.md; the core's is
``FutilityJudge``, csrc/futility.h): which positions it asks about and what their
answers make of the drop. Its callers say how each question is searched:
:func:`only_futile_replies` (a line's end, with this engine's solver: what the engine
itself believes) and the composer's check (usi_mate/checker.py, within its budget).
:func:`given_back` and :func:`given_back_sfen` make the position the rule asks about.
The checks that need cshogi, an independent move generator (the ``test`` extra), are not
part of the package: the benchmarks' line checker and the futility *oracle* independent
of this engine (``oracle_only_futile_replies``) are in scripts/mate_lines.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ._core import Position
from .solver import solve

# Hand letters in SFEN order; uppercase is black.
_HAND_ORDER = "RBGSNLPrbgsnlp"

FutilityVerdict = Literal["futile", "not futile", "unsettled", "spent"]


def judge_drop(
    pos: Position, drop: str, mate_status: Callable[[str], str | None]
) -> tuple[FutilityVerdict, str | None]:
    """Whether the interposing ``drop`` (a USI drop, legal at ``pos``: the defender to
    move, in check) is futile (docs/FUTILE.md): some checking capture of the dropped
    piece leaves a position that is still mate with the piece given back to the defender.

    Each checking capture on the drop's square is asked in turn, as
    ``mate_status(sfen)`` of the position after it with the piece given back (the
    defender to move, in check: an AND root); it answers "mate", "nomate", anything else
    (not settled), or None (no more questions: the caller's budget is spent). Returns
    ("futile", the capture) at the first mate; else ("spent", None) when a question
    went unasked, ("unsettled", None) when one was not settled, ("not futile", None)
    when every one is a proven "no mate" (or there is no such capture). ``pos`` is as
    it was.
    """
    square, piece = drop[2:4], drop[0]
    pos.push_usi(drop)
    try:
        captures = [m for m in pos.check_moves() if m[1] != "*" and m[2:4] == square]
        unsettled = False
        for capture in captures:
            pos.push_usi(capture)
            without = given_back(pos, piece)
            pos.pop()
            if without is None:
                continue  # the capture took something else (cannot happen for a drop's square)
            status = mate_status(without)
            if status is None:
                return "spent", None
            if status == "mate":
                return "futile", capture
            if status != "nomate":
                unsettled = True
        return ("unsettled" if unsettled else "not futile"), None
    finally:
        pos.pop()


def only_futile_replies(sfen: str, *, nodes_limit: int = 200_000) -> bool:
    """True when the side to move is in check and every legal reply is a futile interposition.

    A reply is futile (docs/FUTILE.md) when it is a drop that the attacker takes
    with a checking move, after which the attacker still mates with the captured
    piece given back to the defender. Such a position ends a line under the
    composers' count (``ignore_futile_interpositions=True``). Each capture-and-mate
    is proven with a search of at most ``nodes_limit`` nodes; a search that does
    not finish counts as "not futile" (the rule's questions: :func:`judge_drop`).
    """
    pos = Position(sfen)
    replies = pos.legal_moves()
    if not pos.is_check() or not replies or any(r[1] != "*" for r in replies):
        return False

    def mate_status(sfen: str) -> str:
        return solve(
            sfen,
            root_is_and_node_if_checked=True,
            nodes_limit=nodes_limit,
            hash_mb=16,
            post_search="None",
        ).status

    return all(judge_drop(pos, reply, mate_status)[0] == "futile" for reply in replies)


def given_back(pos: Position, letter: str) -> str | None:
    """``pos`` with one ``letter`` piece moved from the attacker's hand to the defender's.

    ``pos`` has the defender to move, just after the attacker took an interposed
    piece: the futility rule asks whether the mate holds without it. Returns
    the SFEN (move number 1), or None when the attacker holds no such piece.
    """
    return given_back_sfen(pos.sfen(), letter)


def given_back_sfen(sfen: str, letter: str) -> str | None:
    """``sfen`` (the defender to move) with one ``letter`` piece moved from the attacker's
    hand to the defender's, move number 1; None when the attacker holds no such piece
    (:func:`given_back` on an SFEN)."""
    board, side, hands = sfen.split()[:3]
    # The defender is to move, so the attacker is the other side.
    attacker_black = side == "w"
    taken = letter.upper() if attacker_black else letter.lower()
    given = letter.lower() if attacker_black else letter.upper()
    counts: dict[str, int] = {}
    number = ""
    for ch in "" if hands == "-" else hands:
        if ch.isdigit():
            number += ch
        else:
            counts[ch] = counts.get(ch, 0) + (int(number) if number else 1)
            number = ""
    if counts.get(taken, 0) < 1:
        return None
    counts[taken] -= 1
    counts[given] = counts.get(given, 0) + 1
    hand = "".join(
        f"{counts[c] if counts[c] > 1 else ''}{c}" for c in _HAND_ORDER if counts.get(c, 0) > 0
    )
    return f"{board} {side} {hand or '-'} 1"
