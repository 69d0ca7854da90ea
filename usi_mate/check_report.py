"""What a composer's check finds (:func:`usi_mate.check`), and how it reads.

A :class:`CheckReport` holds the main line, every alternative tried along it
(:class:`Alternative`, one per other move at each main-line move) and the
verdict. This module turns it into what people and tools read:

- :func:`format_text`: the report in Japanese move notation, one finding a line,
  and the verdict line;
- :meth:`CheckReport.to_dict`: plain data for JSON lines;
- :func:`format_kif`: a KIF record whose variations (変化) hold every mating
  alternative, so a GUI shows the tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .kif import KifVariation, format_kif_tree, usi_to_kif
from .types import MateResult

Side = Literal["attack", "defence"]
# What an alternative turned out to be. Attacker moves: cook (余詰), last_move
# (最終手余詰, tolerated), detour (迂回手順: it comes back to a later position of
# the main line and is no shorter, not a cook), no_mate. Defender moves:
# variation (mated sooner, 変化), same_length (変同: mated in as many moves as
# the main line), longer (holds out longer than the main line: the main line is
# not the longest defence), escape (no mate at all), futile (無駄合, left out
# as in the answer), disputed (a search bounded by the main line's length finds
# no mate after the reply, its own search one no longer: under the composers'
# count lengths depend on the order of search, docs/FUTILE.md). undecided: the
# limits ran out before the question was settled. Neither is read as sound.
Kind = Literal[
    "cook",
    "last_move",
    "detour",
    "no_mate",
    "variation",
    "same_length",
    "longer",
    "escape",
    "futile",
    "disputed",
    "undecided",
]
Verdict = Literal["sound", "cooked", "unsound_defence", "undecided", "nomate", "invalid"]

# Kinds that make a problem unsound, and the verdict each one gives.
FLAWS: dict[str, Verdict] = {
    "cook": "cooked",
    "longer": "unsound_defence",
    "escape": "unsound_defence",
}
# Kinds shown as findings (the rest are counted only).
FINDINGS = (
    "cook",
    "last_move",
    "detour",
    "same_length",
    "longer",
    "escape",
    "disputed",
    "undecided",
)

KIND_LABELS = {
    "cook": "cook (余詰)",
    "last_move": "last-move alternative (最終手余詰, tolerated)",
    "detour": "detour (迂回手順: rejoins the main line, not a cook)",
    "no_mate": "no mate",
    "variation": "variation (変化)",
    "same_length": "same length as the main line (変同)",
    "longer": "LONGER than the main line: the main line is not the longest defence",
    "escape": "ESCAPES: no mate after this defence",
    "futile": "futile interposition (無駄合), left out",
    "disputed": "disputed: longer by a search bounded by the main line, not by its own",
    "undecided": "undecided within the limits",
}
HAND_NAMES = {"R": "飛", "B": "角", "G": "金", "S": "銀", "N": "桂", "L": "香", "P": "歩"}


@dataclass(frozen=True)
class Alternative:
    """One move other than the main line's, tried at main-line move ``move_number``.

    ``line`` is this move followed by the mate found after it (USI), replayable
    from the position before main move ``move_number``; empty when there is
    no mate (or none was found). ``length`` counts the plies of ``line`` (the
    alternative move included; for a futile interposition the plies to the
    capture) and ``length_exact`` says whether no shorter mate exists after
    the move (proven), which is what ``kind`` relies on for 変同. ``spare`` is
    the attacker's hand at the end of ``line`` (駒余り), by USI letter.
    ``note`` says why a question stayed undecided, or what took a futile
    interposition. ``nodes``: search nodes spent on this alternative.
    """

    move_number: int
    side: Side
    move: str
    kind: Kind
    length: int | None = None
    length_exact: bool = False
    line: tuple[str, ...] = ()
    spare: dict[str, int] = field(default_factory=dict)
    note: str | None = None
    nodes: int = 0

    @property
    def total_length(self) -> int | None:
        """Plies from the start of the problem to the mate through this alternative."""
        return None if self.length is None else self.move_number - 1 + self.length

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON)."""
        return {
            "move_number": self.move_number,
            "side": self.side,
            "move": self.move,
            "kind": self.kind,
            "length": self.length,
            "length_exact": self.length_exact,
            "total_length": self.total_length,
            "line": list(self.line),
            "spare": dict(self.spare),
            "note": self.note,
            "nodes": self.nodes,
        }


@dataclass(frozen=True)
class CheckReport:
    """The outcome of :func:`usi_mate.check` for one problem.

    ``main_line`` is the line the check walked: the one given, or the solver's
    shortest mate (``main_source`` "given" or "solver"); ``main_exact`` says
    that the solver proved no shorter mate exists (always True for a given
    line, which is checked as given). ``result`` is the solver's own search of
    the problem. ``alternatives`` lists every other move tried, in move order.
    ``spare`` is the attacker's hand at the end of the main line (駒余り).

    ``verdict``: "sound" (every question settled, no flaw), "cooked" (a cook
    at ``verdict_move``), "unsound_defence" (a defence at ``verdict_move``
    holds out longer than the main line, or escapes), "undecided" (no flaw
    found, but something was not settled within the limits: ``reason``),
    "nomate" (the problem has no mate) or "invalid" (it cannot be searched:
    ``reason``). ``complete`` is False when the check was stopped before its
    limits (USI ``stop``, Ctrl-C).
    """

    sfen: str
    main_line: tuple[str, ...]
    main_source: Literal["given", "solver"]
    main_exact: bool
    result: MateResult | None
    alternatives: tuple[Alternative, ...]
    spare: dict[str, int]
    verdict: Verdict
    verdict_move: int | None = None
    reason: str | None = None
    nodes: int = 0
    time_ms: int = 0
    complete: bool = True

    @property
    def verdict_text(self) -> str:
        """The verdict as one phrase: ``sound``, ``cooked at move 5``, ``undecided (...)``."""
        if self.verdict == "cooked":
            return f"cooked at move {self.verdict_move}"
        if self.verdict == "unsound_defence":
            return f"unsound defence at move {self.verdict_move}"
        if self.verdict in ("undecided", "invalid") and self.reason:
            return f"{self.verdict} ({self.reason})"
        return "no mate" if self.verdict == "nomate" else self.verdict

    def of_kind(self, *kinds: str) -> list[Alternative]:
        """The alternatives of the given kinds, in move order."""
        return [a for a in self.alternatives if a.kind in kinds]

    @property
    def cooks(self) -> list[Alternative]:
        """The cooks (余詰), in move order."""
        return self.of_kind("cook")

    def counts(self) -> dict[str, int]:
        """How many alternatives of each kind."""
        out: dict[str, int] = {}
        for a in self.alternatives:
            out[a.kind] = out.get(a.kind, 0) + 1
        return out

    def remarks(self) -> list[str]:
        """Short notes for the verdict line: spare pieces, 変同, last-move alternatives."""
        notes = []
        if self.spare:
            notes.append(
                f"spare pieces at the end of the main line (駒余り): {hand_text(self.spare)}"
            )
            # Among equally long defences the one leaving no spare pieces is the
            # answer: point at a 変同 that leaves fewer than the main line.
            fewer = [
                a
                for a in self.of_kind("same_length")
                if sum(a.spare.values()) < sum(self.spare.values())
            ]
            if fewer:
                where = ", ".join(f"move {a.move_number} {a.move}" for a in fewer)
                notes.append(f"a defence as long leaves fewer spare pieces: {where}")
        same = self.of_kind("same_length")
        if same:
            moves = ", ".join(str(n) for n in sorted({a.move_number for a in same}))
            notes.append(f"変同 at move {moves}")
        last = self.of_kind("last_move")
        if last:
            notes.append(f"{len(last)} last-move alternative{'s' if len(last) > 1 else ''}")
        detours = self.of_kind("detour")
        if detours:
            notes.append(f"{len(detours)} detour{'s' if len(detours) > 1 else ''}")
        if not self.complete:
            notes.append("stopped before the limits")
        return notes

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON lines: the verdict, the main line and every finding.

        Alternatives that are neither findings nor variations (attacker
        moves with no mate, futile interpositions) are counted in ``counts``
        and listed without lines under ``others``.
        """
        shown = [a for a in self.alternatives if a.kind not in ("no_mate", "futile")]
        return {
            "verdict": self.verdict,
            "verdict_move": self.verdict_move,
            "verdict_text": self.verdict_text,
            "reason": self.reason,
            "remarks": self.remarks(),
            "main_source": self.main_source,
            "main_exact": self.main_exact,
            "main_length": len(self.main_line),
            "main_line": list(self.main_line),
            "spare": dict(self.spare),
            "counts": self.counts(),
            "alternatives": [a.to_dict() for a in shown],
            "others": [
                {"move_number": a.move_number, "move": a.move, "kind": a.kind}
                for a in self.alternatives
                if a.kind in ("no_mate", "futile")
            ],
            "nodes": self.nodes,
            "time_ms": self.time_ms,
            "complete": self.complete,
        }


def hand_text(hand: dict[str, int]) -> str:
    """A hand in Japanese: ``歩2 金`` (``なし`` when empty)."""
    parts = [HAND_NAMES[p] + (str(n) if n > 1 else "") for p, n in hand.items() if n]
    return " ".join(parts) or "なし"


# ---------------------------------------------------------------------------
# Text for composers


def _notation(report: CheckReport, number: int, moves: tuple[str, ...]) -> str:
    """``moves`` from the position before main move ``number``, in Japanese notation."""
    from ._core import Position

    pos = Position(report.sfen)
    for m in report.main_line[: number - 1]:
        pos.push_usi(m)
    previous = report.main_line[number - 2] if number >= 2 else None
    return " ".join(usi_to_kif(pos, moves, previous_move=previous))


def _length_text(a: Alternative) -> str:
    # An unproven length is only the length of the line the table gave: its
    # attacker moves need not be the fastest nor its defence the longest, so
    # it bounds the mate's length neither way.
    if a.length is None:
        return ""
    if a.length_exact:
        return f"mates in {a.length} (total {a.total_length})"
    return f"mates; a line of {a.length} (total {a.total_length}), length not proven"


def main_line_text(report: CheckReport) -> list[str]:
    """The lines on the main line: its source and length, the moves (indented), notes."""
    out = []
    if report.main_line:
        source = "given line" if report.main_source == "given" else "solver's line"
        exact = "" if report.main_exact else ", not proven shortest"
        out.append(f"main line ({source}, {len(report.main_line)} plies{exact}):")
        out.append("  " + _notation(report, 1, report.main_line))
    if report.main_line and not report.main_exact:
        out.append(
            "  (not proven shortest: a later defender move may not be the longest defence, "
            "so only flaws before the first defender move decide the verdict)"
        )
    if report.result is not None and report.main_source == "given":
        r = report.result
        if r.status == "mate":
            proven = "" if r.min_length_proven else " (not proven shortest)"
            out.append(f"shortest mate found by the solver: {len(r.moves)} plies{proven}")
    return out


def shown_alternatives(report: CheckReport, *, verbose: bool = False) -> list[Alternative]:
    """The alternatives the report lists with their lines: findings, and with ``verbose``
    the shorter variations too; attacker moves that do not mate and futile
    interpositions are only counted."""
    listed = FINDINGS + (("variation",) if verbose else ())
    return [a for a in report.alternatives if a.kind in listed]


def finding_text(report: CheckReport, a: Alternative) -> tuple[str, str | None]:
    """One alternative as the text report shows it: the heading (``move 3 ▲２一桂成: cook
    (余詰); mates in 3 (total 5)``) and its line in Japanese notation (None for a
    line of one move or none)."""
    head = f"move {a.move_number} {_notation(report, a.move_number, (a.move,))}: "
    head += KIND_LABELS[a.kind]
    details = [d for d in (_length_text(a), a.note) if d]
    if a.spare and a.line:
        details.append(f"spare: {hand_text(a.spare)}")
    if details:
        head += "; " + "; ".join(details)
    line = _notation(report, a.move_number, a.line) if a.line and len(a.line) > 1 else None
    return head, line


def summary_text(report: CheckReport) -> list[str]:
    """The closing lines: alternatives tried by kind, spare pieces at the end, effort."""
    out = []
    counts = report.counts()
    if counts:
        summary = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(counts.items()))
        out.append(f"alternatives tried: {len(report.alternatives)} ({summary})")
    if report.main_line:
        out.append(
            "spare pieces at the end: "
            + (hand_text(report.spare) + " (駒余り)" if report.spare else "none")
        )
    out.append(f"({report.nodes} nodes, {report.time_ms / 1000:.3f} s)")
    return out


def verdict_line(report: CheckReport) -> str:
    """``verdict: cooked at move 3; <remarks>``."""
    verdict = "verdict: " + report.verdict_text
    remarks = report.remarks()
    if remarks:
        verdict += "; " + "; ".join(remarks)
    return verdict


def format_text(report: CheckReport, *, title: str | None = None, verbose: bool = False) -> str:
    """The report as text: the main line, one line a finding, the verdict line last.

    Findings (cooks, last-move alternatives, detours, 変同, longer defences,
    escapes, undecided questions) are always listed with their lines;
    ``verbose`` also lists shorter variations. Moves are in Japanese notation
    with their move numbers (``5 ▲２三銀成``).
    """
    out = []
    if title:
        out.append(title)
    out.append(f"position: {report.sfen}")
    out.extend(main_line_text(report))
    for a in shown_alternatives(report, verbose=verbose):
        head, line = finding_text(report, a)
        out.append("  " + head)
        if line:
            out.append("      " + line)
    out.extend(summary_text(report))
    out.append(verdict_line(report))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# KIF with variations


def kif_variations(report: CheckReport) -> list[KifVariation]:
    """Every alternative with a mating line, as a KIF variation with a comment."""
    variations = []
    for a in report.alternatives:
        if not a.line or a.kind in ("no_mate", "futile"):
            continue
        comment = KIND_LABELS[a.kind]
        length = _length_text(a)
        if length:
            comment += ": " + length
        if a.spare:
            comment += f"; spare: {hand_text(a.spare)}"
        variations.append(KifVariation(a.move_number, a.line, (comment,), end="詰み"))
    return variations


def format_kif(report: CheckReport, *, comments: tuple[str, ...] = ()) -> list[str]:
    """The report as a KIF record: the main line, each mating alternative a variation (変化).

    The verdict is a comment on the start position; each variation carries
    its kind and length as a comment on its first move. Returns the lines;
    a report without a main line gives only ``#`` comment lines.
    """
    notes = ["verdict: " + report.verdict_text, *report.remarks()]
    if not report.main_line:
        return ["# " + c for c in (*comments, f"sfen {report.sfen}", *notes)]
    return format_kif_tree(
        report.sfen,
        report.main_line,
        kif_variations(report),
        comments=(*comments, f"sfen {report.sfen}"),
        notes=notes,
    )
