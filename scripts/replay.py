#!/usr/bin/env python3
"""Replay a mating line with cshogi, an independent move generator, and say whether it mates.

    from replay import check_mate_line
    reason = check_mate_line(sfen, ["G*5b", "4a5b", ...])   # None: a valid mating line

A thin wrapper over :func:`mate_lines.check_mate_line` (scripts/mate_lines.py), the one
line checker of the benchmarks (``scripts/bench.py`` imports it from here;
``scripts/bench_usi.py`` uses ``mate_lines`` directly). The side to move in ``sfen`` is
the attacker. A line is a valid mating line when every move is legal (membership in
``cshogi.Board.legal_moves``: ``Board.is_legal`` accepts a few illegal moves, e.g. a
bishop 2i7d+ promoting outside the zone), every attacker move gives check, no position
occurs a fourth time, and the final position is checkmate (a pawn-drop mate is not in
cshogi's legal list, so it never ends a valid line).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The installed usi_mate when there is one (CI installs it), else this checkout's in-place build.
if importlib.util.find_spec("usi_mate") is None and str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import mate_lines  # noqa: E402  (scripts/, beside this file)

from usi_mate import verify  # noqa: E402  (the checkout first, then the import)


def check_mate_line(
    sfen: str,
    moves: list[str],
    *,
    attacker_moves_must_check: bool = True,
    allow_futile_end: bool = False,
) -> str | None:
    """Return None if ``moves`` (USI) is a valid mating line from ``sfen``, else a short reason.

    With ``allow_futile_end`` the line may also end where every legal reply is a
    futile interposition as usi_mate judges it (:func:`usi_mate.verify.only_futile_replies`,
    which proves the capture-and-mate with this project's solver). With
    ``attacker_moves_must_check=False`` attacker moves need not give check (a mate in
    the ordinary-game sense rather than a tsume line); the end must still be checkmate.
    """
    return mate_lines.check_mate_line(
        sfen,
        moves,
        attacker_moves_must_check=attacker_moves_must_check,
        futile_end=verify.only_futile_replies if allow_futile_end else None,
    )


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print('usage: replay.py "<sfen>" [usi moves ...]', file=sys.stderr)
        sys.exit(2)
    result = check_mate_line(sys.argv[1], sys.argv[2:])
    print("valid mating line" if result is None else f"invalid: {result}")
    sys.exit(0 if result is None else 1)
