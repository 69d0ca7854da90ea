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
from dataclasses import dataclass
from typing import Any, Literal

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

    def legal(self) -> list[Any]:
        return list(self._board.legal_moves)

    def usi(self, move: Any) -> str:
        return str(self._cshogi.move_to_usi(move))

    def push(self, move: Any) -> None:
        self._board.push(move)

    def pop(self) -> None:
        self._board.pop()

    def in_check(self) -> bool:
        return bool(self._board.is_check())


class _OwnBoard:
    name = "usi_mate"

    def __init__(self, sfen: str):
        from ._core import Position

        self._pos = Position(sfen)

    def key(self) -> str:
        return canonical_sfen(self._pos.sfen())

    def legal(self) -> list[Any]:
        return self._pos.legal_moves()

    def usi(self, move: Any) -> str:
        return str(move)

    def push(self, move: Any) -> None:
        self._pos.push_usi(move)

    def pop(self) -> None:
        self._pos.pop()

    def in_check(self) -> bool:
        return self._pos.is_check()


def _board(sfen: str, generator: str) -> Any:
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
    return _Replay(_board(sfen, generator), refutations, max_nodes).run(and_root)


@dataclass(slots=True)
class _Frame:
    """One position on the replay's path and what is left to check there."""

    is_or: bool  # the attacker to move: every check must be refuted
    key: str
    ply: int
    pending: list[Any]  # moves still to check: every check (OR) or the recorded reply (AND)
    low: int = _NONE  # the shallowest ply of the path its subtree refers to


class _Replay:
    """One replay of a disproof tree on a board: the path, the memo and the explicit stack."""

    def __init__(self, board: Any, refutations: Mapping[str, str], max_nodes: int) -> None:
        self.board = board
        self.refutations = refutations
        self.refute = {canonical_sfen(k): v for k, v in refutations.items()}
        self.max_nodes = max_nodes
        self.independent: set[str] = set()  # positions whose subtree holds on any path
        self.on_path: dict[str, int] = {}  # position -> its ply on the current path
        self.nodes = 0
        # An explicit stack: disproof trees of looping works are thousands of plies deep.
        self.stack: list[_Frame] = []

    def certification(
        self, status: Literal["certified", "refuted", "incomplete"], reason: str | None
    ) -> Certification:
        """The answer with the nodes replayed so far."""
        return Certification(status, self.nodes, self.board.name, reason, dict(self.refutations))

    def run(self, and_root: bool) -> Certification:
        """Replay the whole tree from the root: certified, refuted or incomplete."""
        root_key = self.board.key()
        self.on_path[root_key] = 0
        reason = self.enter(not and_root, root_key, 0)
        if reason:
            return self.certification("refuted", reason)
        result: int | None = None  # value handed up from a finished child
        while self.stack:
            frame = self.stack[-1]
            if result is not None:
                # A child finished: undo its move, fold its value in.
                self.board.pop()
                frame.low = min(frame.low, result)
                result = None
            if frame.pending:
                failure = self.descend(frame)
                if failure is not None:
                    return failure
                continue
            result = self.leave()
        return self.certification("certified", None)

    def enter(self, is_or: bool, key: str, ply: int) -> str | None:
        """Push a frame for the position on the board; returns a failure reason."""
        self.nodes += 1
        if is_or:
            self.stack.append(_Frame(True, key, ply, self.checks()))
            return None
        legal = self.board.legal()
        if not legal:
            return f"checkmate in {key}: the defence has no reply"
        reply = self.refute.get(key)
        if reply is None:
            return f"no refutation recorded for {key}"
        move = next((m for m in legal if self.board.usi(m) == reply), None)
        if move is None:
            return f"the recorded refutation {reply} is not legal in {key}"
        self.stack.append(_Frame(False, key, ply, [move]))
        return None

    def checks(self) -> list[Any]:
        """Every legal move of the position on the board that gives check."""
        checks = []
        for m in self.board.legal():
            self.board.push(m)
            if self.board.in_check():
                checks.append(m)
            self.board.pop()
        return checks

    def descend(self, frame: _Frame) -> Certification | None:
        """Play the frame's next move and enter its child; the answer if that ends the replay."""
        self.board.push(frame.pending.pop())
        child = self.board.key()
        if child in self.on_path:
            self.board.pop()
            frame.low = min(frame.low, self.on_path[child])  # a repetition: no mate on this path
            return None
        if child in self.independent:
            self.board.pop()
            return None
        if self.nodes >= self.max_nodes:
            return self.certification("incomplete", "node budget spent")
        self.on_path[child] = frame.ply + 1
        reason = self.enter(not frame.is_or, child, frame.ply + 1)
        return self.certification("refuted", reason) if reason else None

    def leave(self) -> int:
        """Pop a frame whose every child holds, remember it if it holds on any path; its low."""
        frame = self.stack.pop()
        del self.on_path[frame.key]
        if frame.low >= frame.ply:
            self.independent.add(frame.key)
        return frame.low
