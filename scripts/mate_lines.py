"""Mating lines replayed with cshogi, an independent move generator: the line checker of
the benchmarks and the futility oracle, a judge independent of this engine (its rule
written again on purpose: usi_mate.verify.judge_drop is the engine's).

    from scripts.mate_lines import check_mate_line, oracle_only_futile_replies
    reason = check_mate_line(sfen, ["G*5b", "4a5b", ...])   # None: a valid mating line

:func:`check_mate_line` replays a line and takes a judge for the line's last position:
:func:`oracle_only_futile_replies` (cshogi's move generator and a small exhaustive search,
what a benchmark of other engines' answers needs) or this engine's own,
:func:`usi_mate.verify.only_futile_replies`. Needs cshogi (the ``test`` extra), so it is
not part of the usi_mate package: the benchmark tools (scripts.bench, scripts.bench_usi,
scripts.make_problems) and the tests (tests/oracle.py, test_bench_usi.py; tests/conftest.py
puts scripts/ on the path) import it from here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import cshogi

from usi_mate.verify import given_back_sfen

# A position reached for the fourth time ends the game (sennichite): perpetual check loses
# for the checker, anything else is a draw; either way no mate.
_REPETITION_ENDS_GAME = 4
# At most 7 empty squares lie between a ranging checker and the king on a 9x9 board, so a
# defender can interpose on one line at most 7 times in a row.
FUTILE_MAX_NESTED = 7
# Plies the defender may survive after the capture of a futile drop (see
# oracle_only_futile_replies). 0 is the composers' rule where a line ends: the mate without
# the drop is 0 plies away there, so after the capture it must be mate at once (further
# futile drops aside); 2 also accepts one more reply and a mating check.
FUTILE_CAPTURE_DEPTH = 0


def check_mate_line(
    sfen: str,
    moves: list[str],
    *,
    and_root: bool = False,
    attacker_moves_must_check: bool = True,
    futile_end: Callable[[str], bool] | None = None,
) -> str | None:
    """Replay ``moves`` (USI) from ``sfen`` with cshogi; None when it is a valid mating
    line, else a short reason.

    Valid: every move is in cshogi's legal move list (exact, including the rule that a
    pawn drop may not give mate, so a line ending in a pawn-drop mate fails); every
    attacker move gives check (unless ``attacker_moves_must_check`` is False); no
    position occurs a fourth time; the line has the attacker's parity (odd length, or
    even with ``and_root``, where the side to move defends first); and the last position
    is checkmate, or, when ``futile_end`` is given, a position where the defender is in
    check, every legal reply is a drop and ``futile_end(sfen)`` accepts them all (pass
    :func:`oracle_only_futile_replies` for a judge independent of this engine, or
    :func:`usi_mate.verify.only_futile_replies` for this engine's own rule).
    """
    try:
        board = cshogi.Board(sfen)
    except RuntimeError as e:  # cshogi: "incorrect SFEN string"
        return f"bad SFEN: {e}"
    if not moves and not and_root:  # with the defender to move, the root itself may be mate
        return "empty line"
    attacker_parity = 1 if and_root else 0
    seen: Counter[str] = Counter({_position_key(board.sfen()): 1})
    for i, usi in enumerate(moves):
        ply = i + 1
        legal = {cshogi.move_to_usi(m): m for m in board.legal_moves}
        move = legal.get(usi)
        if move is None:
            return f"ply {ply} ({usi}): illegal move"
        board.push(move)
        if i % 2 == attacker_parity and attacker_moves_must_check and not board.is_check():
            return f"ply {ply} ({usi}): attacker move does not give check"
        key = _position_key(board.sfen())
        seen[key] += 1
        if seen[key] >= _REPETITION_ENDS_GAME:
            return f"ply {ply} ({usi}): fourfold repetition ends the game"
    if len(moves) % 2 == attacker_parity:
        return f"line of {len(moves)} plies ends with a defender move"
    if not board.is_check():
        return "final position: the defender is not in check"
    replies = [cshogi.move_to_usi(m) for m in board.legal_moves]
    if not replies:
        return None
    if futile_end is not None and all(r[1] == "*" for r in replies) and futile_end(board.sfen()):
        return None
    shown = " ".join(replies[:5]) + (" ..." if len(replies) > 5 else "")
    kind = "only drops, not all futile" if all(r[1] == "*" for r in replies) else "not mate"
    return f"final position: {kind}: the defender has {len(replies)} legal replies ({shown})"


def oracle_only_futile_replies(
    sfen: str,
    *,
    depth: int = FUTILE_CAPTURE_DEPTH,
    max_nested: int = FUTILE_MAX_NESTED,
) -> bool:
    """True when the side to move is in check and every legal reply is a futile drop,
    judged with cshogi alone (no search of this engine).

    Exactly what it accepts: every legal reply (cshogi's list) is a drop, and for each
    drop of a piece X on square s there is a legal attacker move that captures on s and
    gives check after which, with that X moved from the attacker's hand back to the
    defender's hand (so the attacker never uses it), the defender is mated within
    ``depth`` plies: every defender reply is met by a checking move, ``depth`` counting
    the defender's replies and the attacker's checks (0: the capture itself mates; 2:
    one more reply and one mating check). A defender reply that is itself a drop
    futile by this same test is not counted, up to ``max_nested`` interpositions in a
    row (at most 7 squares lie between a ranging checker and the king). The search is
    exhaustive within those bounds (pawn-drop mate is excluded by cshogi's move
    list), so a ``False`` means no such capture-and-mate exists, not that a limit ran
    out. Repetition is not considered (the bounds are too small for it to matter).

    With ``depth`` 0 (the default) this is the composers' rule at a line's end: after
    the capture the mate is the one that existed without the drop (0 plies), so the
    drop only adds two plies. A ``depth`` above 0 is looser: a drop that forces one
    more move pair after its capture is accepted too.
    """
    try:
        board = cshogi.Board(sfen)
    except RuntimeError:  # cshogi: "incorrect SFEN string"
        return False
    if not board.is_check():
        return False
    replies = [cshogi.move_to_usi(m) for m in board.legal_moves]
    if not replies or any(r[1] != "*" for r in replies):
        return False
    # Every recursive call lowers depth or the nesting allowance, so the memo (shared
    # across the drops: drops of different pieces on one square lead, once captured and
    # given back, to the same position) never meets a question still being answered.
    memo: dict[tuple, bool] = {}
    return all(_drop_is_futile(board, r, depth, max_nested, memo) for r in replies)


def _position_key(sfen: str) -> str:
    """Board, side to move and hands, without the move number."""
    return sfen.rsplit(" ", 1)[0]


def _drop_is_futile(board, drop: str, depth: int, nested: int, memo: dict) -> bool:
    """Whether the defender's ``drop`` (USI, legal in ``board``) is taken by a checking
    capture after which, the piece given back, the defender is mated within ``depth``."""
    key = ("drop", _position_key(board.sfen()), drop, depth, nested)
    if key in memo:
        return memo[key]
    legal = {cshogi.move_to_usi(m): m for m in board.legal_moves}
    board.push(legal[drop])
    square, letter = drop[2:4], drop[0]
    futile = False
    for move in list(board.legal_moves):
        usi = cshogi.move_to_usi(move)
        if usi[1] == "*" or usi[2:4] != square:
            continue
        board.push(move)
        if board.is_check():
            given_back = given_back_sfen(board.sfen(), letter)
            if given_back is not None:
                futile = _mated_within(cshogi.Board(given_back), depth, nested, memo)
        board.pop()
        if futile:
            break
    board.pop()
    memo[key] = futile
    return futile


def _mated_within(board, depth: int, nested: int, memo: dict) -> bool:
    """The defender to move, in check: is it mated within ``depth`` plies, futile drops
    (at most ``nested`` in a row) not counted as replies?"""
    key = ("mated", _position_key(board.sfen()), depth, nested)
    if key in memo:
        return memo[key]
    mated = True
    for reply in list(board.legal_moves):
        usi = cshogi.move_to_usi(reply)
        if usi[1] == "*" and nested > 0 and _drop_is_futile(board, usi, depth, nested - 1, memo):
            continue
        if depth < 2:
            mated = False
            break
        board.push(reply)
        answered = False
        for check in list(board.legal_moves):
            board.push(check)
            if board.is_check() and _mated_within(board, depth - 2, nested, memo):
                answered = True
            board.pop()
            if answered:
                break
        board.pop()
        if not answered:
            mated = False
            break
    memo[key] = mated
    return mated
