#!/usr/bin/env python3
"""Replay a mating line with cshogi, an independent move generator, and say whether it mates.

    from replay import check_mate_line
    reason = check_mate_line(sfen, ["G*5b", "4a5b", ...])   # None: a valid mating line

The side to move in ``sfen`` is the attacker. A line is a valid mating line when
every move is legal, every attacker move (even index: plies 1, 3, 5, ...) gives
check, no position occurs a fourth time (a fourfold repetition ends the game:
perpetual check loses for the attacker, anything else is a draw), and the final
position is checkmate: the side to move is in check and has no legal move.

Legality is membership in ``cshogi.Board.legal_moves``, not ``Board.is_legal``:
``is_legal`` accepts a few moves that are not legal (a promotion outside the
promotion zone, e.g. a bishop 2i7d+), while ``legal_moves`` is exact, including
the rule that a pawn drop may not give checkmate (a mate ending in a pawn-drop
mate fails here because that drop is not listed as legal).

Used by ``scripts/bench.py`` to score mate answers; importable by tests.
"""

from __future__ import annotations

from collections import Counter

import cshogi

# A position reached for the fourth time ends the game (sennichite).
_REPETITION_ENDS_GAME = 4


def _position_key(board: cshogi.Board) -> str:
    """Board, side to move and hands, without the move number."""
    return board.sfen().rsplit(" ", 1)[0]


def check_mate_line(
    sfen: str,
    moves: list[str],
    *,
    attacker_moves_must_check: bool = True,
    allow_futile_end: bool = False,
) -> str | None:
    """Return None if ``moves`` (USI) is a valid mating line from ``sfen``, else a short reason.

    With ``allow_futile_end`` the line may also end where every legal reply is a
    futile interposition (the composers' count; usi_mate.verify judges it).

    With ``attacker_moves_must_check=False`` attacker moves need not give check
    (a mate in the ordinary-game sense rather than a tsume line); the final
    position must still be checkmate.
    """
    try:
        board = cshogi.Board(sfen)
    except RuntimeError as e:  # cshogi: "incorrect SFEN string"
        return f"bad SFEN: {e}"
    if not moves:
        return "empty line"
    seen: Counter[str] = Counter({_position_key(board): 1})
    for i, usi in enumerate(moves):
        ply = i + 1
        legal = {cshogi.move_to_usi(m): m for m in board.legal_moves}
        move = legal.get(usi)
        if move is None:
            return f"ply {ply} ({usi}): illegal move"
        board.push(move)
        if i % 2 == 0 and attacker_moves_must_check and not board.is_check():
            return f"ply {ply} ({usi}): attacker move does not give check"
        key = _position_key(board)
        seen[key] += 1
        if seen[key] >= _REPETITION_ENDS_GAME:
            return f"ply {ply} ({usi}): fourfold repetition ends the game"
    if len(moves) % 2 == 0:
        return f"line has an even number of plies ({len(moves)}): it ends with a defender move"
    if not board.is_check():
        return "final position: the defender is not in check"
    replies = [cshogi.move_to_usi(m) for m in board.legal_moves]
    if replies and allow_futile_end and all(r[1] == "*" for r in replies):
        from usi_mate.verify import only_futile_replies

        if only_futile_replies(board.sfen()):
            return None
    if replies:
        shown = " ".join(replies[:5]) + (" ..." if len(replies) > 5 else "")
        return f"final position: the defender has {len(replies)} legal replies ({shown})"
    return None


if __name__ == "__main__":
    import sys

    if len(sys.argv) < 2:
        print('usage: replay.py "<sfen>" [usi moves ...]', file=sys.stderr)
        sys.exit(2)
    result = check_mate_line(sys.argv[1], sys.argv[2:])
    print("valid mating line" if result is None else f"invalid: {result}")
    sys.exit(0 if result is None else 1)
