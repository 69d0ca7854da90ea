"""Where a mating line may end when futile interpositions are ignored, by this engine's rule.

:func:`only_futile_replies` proves each capture-and-mate with this project's solver (what
the engine itself believes); :func:`given_back` and :func:`given_back_sfen` make the
position the rule asks about. The checks that need cshogi, an independent move
generator (the ``test`` extra), are not part of the package: the benchmarks' line
checker and their futility judge independent of this engine are in
scripts/mate_lines.py.
"""

from __future__ import annotations

from ._core import Position
from .solver import solve

# Hand letters in SFEN order; uppercase is black.
_HAND_ORDER = "RBGSNLPrbgsnlp"


def only_futile_replies(sfen: str, *, nodes_limit: int = 200_000) -> bool:
    """True when the side to move is in check and every legal reply is a futile interposition.

    A reply is futile (docs/FUTILE.md) when it is a drop that the attacker takes
    with a checking move, after which the attacker still mates with the captured
    piece given back to the defender. Such a position ends a line under the
    composers' count (``ignore_futile_interpositions=True``). Each capture-and-mate
    is proven with a search of at most ``nodes_limit`` nodes; a search that does
    not finish counts as "not futile".
    """
    pos = Position(sfen)
    replies = pos.legal_moves()
    if not pos.is_check() or not replies or any(r[1] != "*" for r in replies):
        return False
    for reply in replies:
        pos.push_usi(reply)
        square = reply[2:]
        captures = [m for m in pos.check_moves() if m[1] != "*" and m[2:4] == square]
        futile = any(_mates_without(pos, c, reply[0], nodes_limit) for c in captures)
        pos.pop()
        if not futile:
            return False
    return True


def _mates_without(pos: Position, capture: str, letter: str, nodes_limit: int) -> bool:
    """After `capture`, does the attacker still mate with one `letter` moved to the defender?"""
    pos.push_usi(capture)
    given_back = given_back_sfen(pos.sfen(), letter)
    pos.pop()
    if given_back is None:
        return False
    result = solve(
        given_back,
        root_is_and_node_if_checked=True,
        nodes_limit=nodes_limit,
        hash_mb=16,
        post_search="None",
    )
    return result.status == "mate"


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
