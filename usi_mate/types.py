"""Result and progress types of the mate search (plain Python, no compiled code)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Literal

MateStatus = Literal["mate", "nomate", "unknown", "invalid"]
StopReason = Literal["nodes", "time", "stop", "depth", "length", "line", "effort"]


@dataclass(frozen=True)
class Certification:
    """Whether a "no mate" was checked independently of the search (``certify=True``).

    After a disproof the core rebuilds an explicit disproof tree: for every
    defender position in it, the reply that refutes the attack
    (``refutations``: SFEN without move number -> USI move).
    :func:`usi_mate.certify.verify_no_mate` replays the tree with a move
    generator and plain recursion, without the search's table, hands or
    superiority. ``status``:

    - ``"certified"``: the tree was replayed and proves that no mate exists;
    - ``"refuted"``: the tree does not hold (``reason`` names the position);
      the "no mate" is not backed and should be reported as a bug;
    - ``"incomplete"``: the tree was too large for the node budget, or the
      search was stopped: nothing was checked.

    ``nodes`` counts the positions replayed (or walked, when no tree could be
    built) and ``generator`` names the replay's move generator ("cshogi" when
    installed, else "usi_mate").
    """

    status: Literal["certified", "refuted", "incomplete"]
    nodes: int = 0
    generator: str = ""
    reason: str | None = None
    refutations: dict[str, str] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class RefineStats:
    """The refinement walk's work over the proven tree (``MateResult.refine``).

    After a first proof whose line is long (over 128 plies), the shortest-mate search
    (``post_search="MinLength"``) first walks the proven tree for shorter mates
    (docs/DFPN.md). ``positions``: positions walked; ``nodes``: search nodes the walk
    spent, of which ``tiny_nodes`` in its tiny searches, ``reprove_nodes`` in re-proofs,
    ``judge_nodes`` in futility judgements and ``along_nodes`` in questions along the
    line; ``passes``: passes completed. For benchmarks.
    """

    positions: int = 0
    nodes: int = 0
    passes: int = 0
    tiny_nodes: int = 0
    reprove_nodes: int = 0
    judge_nodes: int = 0
    along_nodes: int = 0


@dataclass(frozen=True, slots=True)
class MateResult:
    """The outcome of one mate search.

    ``status`` is ``"mate"`` (a mate is proven and ``moves`` is a mating line:
    attacker moves and the defender's replies, ending in checkmate), ``"nomate"``
    (no mate exists, proven), ``"unknown"`` (no verdict: ``stop_reason`` says
    why) or ``"invalid"`` (the position cannot be searched: ``error`` says why;
    never a verdict about the position).

    ``stop_reason`` for "unknown": ``"nodes"`` or ``"time"`` (a limit),
    ``"stop"`` (Solver.stop), ``"depth"`` (a path reached the 4000-ply cut),
    ``"length"`` (no mate within ``max_length``), ``"line"`` (a mate is proven
    but its line could not be rebuilt within the limits). ``line_nodes``: nodes
    spent rebuilding the line after the proof (included in ``nodes``).
    ``refine``: the refinement walk's work when the shortest-mate search ran one
    (:class:`RefineStats`; None when it did not), not shown nor compared.
    """

    status: MateStatus
    moves: list[str] = field(default_factory=list)
    nodes: int = 0
    time_ms: int = 0
    hashfull: int = 0
    error: str | None = None
    certification: Certification | None = None  # only for "nomate" with certify=True
    stop_reason: StopReason | None = None
    line_nodes: int = 0
    # The proven shortest mate in plies, None when not proven (see min_length_proven).
    # It is the same whichever line is read (docs/DFPN.md, "Composers' choices among
    # defences": the line can be shorter than the minimum).
    min_length: int | None = None
    # No mate shorter than this is proven (None: nothing beyond the trivial); equal to
    # min_length when that is proven.
    shortest_possible: int | None = None
    # Why the search for a shorter mate ended before proving the minimum (MinLength):
    # "effort" (it spent its share of work, min_length_effort times the first proof's),
    # or the limit or stop() that came first ("nodes", "time", "stop"); None when the
    # minimum is proven or no such search ran.
    length_stop: StopReason | None = None
    refine: RefineStats | None = field(default=None, repr=False, compare=False)

    # Slots, not a __dict__: a bulk caller keeps millions of these (a fraction of the
    # memory, docs/BATCH.md), and the cyclic collector scans one object less per result.

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its field values in order: a worker process sends every result to
        # its parent, and the default (class, then a dict of names) cost a mate in one
        # more than its search. Rebuilt by the builder itself (usi_mate._core's once it
        # is imported, named by pickle as its own): no Python frame a result in the parent.
        return (_mate_result_of_values, (_field_values(self),))

    @property
    def min_length_proven(self) -> bool:
        """No shorter mate exists: ``min_length`` is set.

        post_search="MinLength" finished (under the composers' count with every futility
        judgement it rests on settled, docs/FUTILE.md). The proven minimum is that of the
        longest defence; the line (``mate_length``) follows the composers' choices among
        defences and can be shorter where every longer defence leaves the attacker spare
        pieces (generated gen-1122: a 9-ply line, an 11-ply minimum; docs/DFPN.md
        "Composers' choices among defences").
        """
        return self.min_length is not None

    @property
    def mate_length(self) -> int | None:
        """Number of plies of the mating line, or None when there is no proven mate.

        With ``min_length_proven`` this is the shortest mate against the defence the
        line takes, which is the longest defence unless that one leaves the attacker
        spare pieces (see ``min_length_proven``).
        """
        return len(self.moves) if self.status == "mate" else None

    @property
    def seconds(self) -> float:
        """The search's time in seconds (``time_ms`` / 1000)."""
        return self.time_ms / 1000

    @property
    def nps(self) -> int:
        """Nodes per second of the search (a search under a millisecond counts as one
        millisecond, so that ``nps`` agrees with ``time_ms`` 1 rather than jump)."""
        return _nps(self.nodes, self.time_ms)


_new_object = object.__new__
_set_attribute = object.__setattr__
_RESULT_FIELDS = tuple(f.name for f in fields(MateResult))
_field_values = attrgetter(*_RESULT_FIELDS)


def _python_result_of_values(values: tuple[Any, ...]) -> MateResult:
    """The MateResult whose fields are ``values`` (every field, in order), without the
    frozen dataclass's ``__init__`` and its checks."""
    result = _new_object(MateResult)
    for name, value in zip(_RESULT_FIELDS, values, strict=True):
        _set_attribute(result, name, value)
    return result


# usi_mate._core puts its own here when it is imported: the same result, its slots
# filled in C. tests/test_bulk_calls.py checks both against ``MateResult(**fields)``.
_mate_result_of_values = _python_result_of_values


@dataclass(frozen=True)
class SearchProgress:
    """A progress report sent to ``on_progress`` while a search runs."""

    nodes: int
    time_ms: int
    hashfull: int
    # The root's proof and disproof numbers in the search running now: after the first
    # proof, those of the post-search's current question "is there a mate within b
    # plies?" (disproof_number 0: no mate that short; the mate found stands).
    proof_number: int
    disproof_number: int
    max_ply: int
    # The shortest-mate post-search so far: the shortest mate found (None before
    # the first proof) and the length below which no mate exists (None: not known).
    mate_length: int | None = None
    shortest_possible: int | None = None
    # The mating line of the shortest mate found so far (USI moves), in the one
    # report that follows its reading; None in every other report.
    moves: tuple[str, ...] | None = None

    @property
    def seconds(self) -> float:
        """Time so far in seconds (``time_ms`` / 1000)."""
        return self.time_ms / 1000

    @property
    def nps(self) -> int:
        """Nodes per second so far (under a millisecond counted as one, as
        :attr:`MateResult.nps`)."""
        return _nps(self.nodes, self.time_ms)


def _nps(nodes: int, time_ms: int) -> int:
    # Under a millisecond counts as one: at time 0 "nps" would otherwise be the nodes.
    return nodes * 1000 // max(time_ms, 1)
