"""Checking a "no mate" without trusting the search: disproof certificates.

After a search proves "no mate", the core can rebuild an explicit disproof tree
(``Solver.solve(..., certify_nodes=N)``): for every defender position of the
tree, one reply that refutes the attack. :func:`verify_no_mate` replays that
tree with nothing but a move generator and plain recursion:

- at an attacker position, *every* legal check must be refuted (a position
  with no check is a leaf: no mate);
- at a defender position, the recorded reply must be legal and its subtree
  must hold;
- a move that returns to a position already on the path ends that branch:
  the attacker is checking perpetually, which is no mate (連続王手の千日手);
- a subtree whose repetitions all refer to positions inside it holds on any
  path, so it is checked once per position (memo by the whole position:
  board, hands and side to move).

It never looks at the transposition table, proof or disproof hands,
superiority or path keys, so a rule of the search that claims too much cannot
also fool the check. The move generator is cshogi's when it is installed (an
independent implementation, Apery lineage) and usi-mate's own otherwise (the
same generator the search uses, but none of the search's reasoning); the
result names which one was used.
"""

from __future__ import annotations

from collections.abc import Mapping

from .types import Certification

__all__ = ["verify_no_mate", "canonical_sfen"]

_NONE = 1 << 30  # a subtree that refers to no position of the path


def canonical_sfen(sfen: str) -> str:
    """The board, side and hands fields of an SFEN: a position without its move number."""
    return " ".join(sfen.split()[:3])


class _CshogiBoard:
    name = "cshogi"

    def __init__(self, sfen: str):
        import cshogi

        self._cshogi = cshogi
        self._board = cshogi.Board(sfen)

    def key(self) -> str:
        return canonical_sfen(self._board.sfen())

    def legal(self) -> list:
        return list(self._board.legal_moves)

    def usi(self, move) -> str:
        return self._cshogi.move_to_usi(move)

    def push(self, move) -> None:
        self._board.push(move)

    def pop(self) -> None:
        self._board.pop()

    def in_check(self) -> bool:
        return self._board.is_check()


class _OwnBoard:
    name = "usi_mate"

    def __init__(self, sfen: str):
        from ._core import Position

        self._pos = Position(sfen)

    def key(self) -> str:
        return canonical_sfen(self._pos.sfen())

    def legal(self) -> list:
        return self._pos.legal_moves()

    def usi(self, move) -> str:
        return move

    def push(self, move) -> None:
        self._pos.push_usi(move)

    def pop(self) -> None:
        self._pos.pop()

    def in_check(self) -> bool:
        return self._pos.is_check()


def _board(sfen: str, generator: str):
    if generator == "usi_mate":
        return _OwnBoard(sfen)
    try:
        return _CshogiBoard(sfen)
    except ImportError:
        if generator == "cshogi":
            raise
        return _OwnBoard(sfen)


def verify_no_mate(
    sfen: str,
    refutations: Mapping[str, str],
    *,
    and_root: bool = False,
    max_nodes: int = 2_000_000,
    generator: str = "auto",
) -> Certification:
    """Replay a disproof tree from ``sfen`` and say whether it proves no mate.

    ``refutations`` maps defender positions (SFEN; the move number is
    ignored) to the reply that refutes them, as in
    :attr:`usi_mate.Certification.refutations`. The side to move
    attacks, or defends with ``and_root``. ``generator`` is "auto" (cshogi if
    installed), "cshogi" or "usi_mate".
    """
    if generator not in ("auto", "cshogi", "usi_mate"):
        raise ValueError(f"generator must be 'auto', 'cshogi' or 'usi_mate', not {generator!r}")
    board = _board(sfen, generator)
    refute = {canonical_sfen(k): v for k, v in refutations.items()}
    independent: set[str] = set()  # positions whose subtree holds on any path
    on_path: dict[str, int] = {}  # position -> its ply on the current path
    nodes = 0

    # An explicit stack: disproof trees of looping works are thousands of plies deep.
    # A frame: [is_or, key, ply, moves still to check (OR) or None (AND), low]
    root_key = board.key()
    on_path[root_key] = 0
    stack: list[list] = []
    result: int | None = None  # value handed up from a finished child

    def enter(is_or: bool, key: str, ply: int) -> str | None:
        """Push a frame for the position on the board; returns a failure reason."""
        nonlocal nodes
        nodes += 1
        if is_or:
            checks = []
            for m in board.legal():
                board.push(m)
                if board.in_check():
                    checks.append(m)
                board.pop()
            stack.append([True, key, ply, checks, _NONE])
            return None
        legal = board.legal()
        if not legal:
            return f"checkmate in {key}: the defence has no reply"
        reply = refute.get(key)
        if reply is None:
            return f"no refutation recorded for {key}"
        move = next((m for m in legal if board.usi(m) == reply), None)
        if move is None:
            return f"the recorded refutation {reply} is not legal in {key}"
        stack.append([False, key, ply, [move], _NONE])
        return None

    def fail(reason: str) -> Certification:
        return Certification("refuted", nodes, board.name, reason, dict(refutations))

    reason = enter(not and_root, root_key, 0)
    if reason:
        return fail(reason)
    while stack:
        frame = stack[-1]
        is_or, key, ply, pending, low = frame
        if result is not None:
            # A child finished: undo its move, fold its value in.
            board.pop()
            frame[4] = low = min(low, result)
            result = None
        if pending:
            move = pending.pop()
            board.push(move)
            child = board.key()
            if child in on_path:
                board.pop()
                frame[4] = min(low, on_path[child])  # a repetition: no mate on this path
                continue
            if child in independent:
                board.pop()
                continue
            if nodes >= max_nodes:
                return Certification(
                    "incomplete", nodes, board.name, "node budget spent", dict(refutations)
                )
            on_path[child] = ply + 1
            reason = enter(not is_or, child, ply + 1)
            if reason:
                return fail(reason)
            continue
        # Every child of this frame holds.
        stack.pop()
        del on_path[key]
        if low >= ply:
            independent.add(key)
        result = low
    return Certification("certified", nodes, board.name, None, dict(refutations))
