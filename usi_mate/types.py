"""Result and progress types of the mate search (plain Python, no compiled code)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

MateStatus = Literal["mate", "nomate", "unknown"]


@dataclass(frozen=True)
class DisproofCertificate:
    """An explicit disproof tree rebuilt after a "no mate" (``certify_nodes``).

    ``refutations`` maps every defender position of the tree (SFEN without the
    move number) to the reply that refutes it; :func:`usi_mate.certify.verify_no_mate`
    replays it without the search's table. ``status`` is "built", "incomplete"
    (the walk ran out of nodes or was stopped) or "failed" (a defender position
    of the claimed disproof has no refutation: ``failed_at``, reached by
    ``failed_path`` from the root).
    """

    status: Literal["built", "incomplete", "failed"]
    refutations: dict[str, str] = field(default_factory=dict)
    nodes: int = 0
    failed_at: str | None = None
    failed_path: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MateResult:
    """The outcome of one mate search.

    ``status`` is ``"mate"`` (a mate is proven and ``moves`` is a mating line:
    attacker moves and the defender's replies, ending in checkmate), ``"nomate"``
    (no mate exists, proven) or ``"unknown"`` (a time, node or memory limit or a
    stop ended the search first, or the position could not be searched: then
    ``error`` says why).
    """

    status: MateStatus
    moves: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    hashfull: int = 0
    error: str | None = None
    min_length_proven: bool = False  # no shorter mate exists (post_search="MinLength" finished)
    certificate: DisproofCertificate | None = None

    @property
    def mate_length(self) -> int | None:
        """Number of plies of the mating line, or None when there is no proven mate."""
        return len(self.moves) if self.status == "mate" else None

    @property
    def nps(self) -> int:
        """Nodes per second of the search."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else self.nodes


@dataclass(frozen=True)
class SearchProgress:
    """A progress report sent to ``on_progress`` while a search runs."""

    nodes: int
    seconds: float
    hashfull: int
    proof_number: int
    disproof_number: int
    max_ply: int

    @property
    def nps(self) -> int:
        """Nodes per second so far."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else self.nodes
