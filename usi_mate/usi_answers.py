"""What the engine writes when a search reports or ends: ``info`` lines, then
exactly one ``checkmate ...`` (``go mate``) or ``bestmove ...`` (analysis mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from .echo import printable
from .types import MateResult, SearchProgress
from .usi_commands import GoCommand

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .check_report import Alternative, CheckReport


def _stats(time_ms: int, nodes: int, nps: int, hashfull: int) -> str:
    return f"time {time_ms} nodes {nodes} nps {nps} hashfull {hashfull}"


def progress_line(p: SearchProgress) -> str:
    """The periodic ``info`` line: time, nodes, nps, hashfull and the root's pn/dn; during
    the shortest-mate post-search also the shortest mate found so far (it only improves)
    and the length below which no mate is proven to exist."""
    text = f"pn {p.proof_number} dn {p.disproof_number}"
    if p.mate_length:
        text += f" mate {p.mate_length}"
        if p.shortest_possible:
            text += f" shortest >= {p.shortest_possible}"
    return f"info {_stats(p.time_ms, p.nodes, p.nps, p.hashfull)} string {text}"


def progress_lines(p: SearchProgress) -> list[str]:
    """The ``info`` lines of one progress report: progress_line(p), and after it the
    ``info depth N ... score mate N pv ...`` line of the shortest mate found so far when
    the report carries its newly read line (so a GUI shows the line improving)."""
    lines = [progress_line(p)]
    if p.moves:
        lines.append(_pv_line(p.moves, _stats(p.time_ms, p.nodes, p.nps, p.hashfull)))
    return lines


def _pv_line(moves: Sequence[str], stats: str) -> str:
    n = len(moves)
    score = n if n % 2 else -n
    return f"info depth {n} seldepth {n} {stats} score mate {score} pv {' '.join(moves)}"


def mate_info_line(res: MateResult) -> str:
    """The ``info depth N seldepth N ... score mate N pv ...`` line of a proven mate.

    N is the number of plies. It is negative when the line has an even length: then the
    side to move is the one being mated (RootIsAndNodeIfChecked), as USI scores go.
    """
    return _pv_line(res.moves, _stats(res.time_ms, res.nodes, res.nps, res.hashfull))


_LENGTH_STOPS = {
    "effort": "it spent its share of work (MinLengthEffort)",
    "time": "the time limit came first",
    "nodes": "the node limit came first",
    "stop": "stop came first",
}


def length_note(res: MateResult) -> str | None:
    """What a mate's length is, for the ``info string`` before the answer: proven the
    shortest, or not (the proven lower bound and why the search for a shorter mate
    stopped); None when no such search ran (PostSearchLevel None or UpperBound)."""
    n = len(res.moves)
    if res.min_length is not None:
        note = f"mate {n}: the shortest, proven"
        if res.min_length != n:
            # (a longer defence leaves the attacker spare pieces: docs/DFPN.md)
            note += f" ({res.min_length} against the longest defence, which leaves spare pieces)"
        return note
    if res.length_stop is None:
        return None
    lower = res.shortest_possible
    bound = f"no mate shorter than {lower} is proven" if lower else "no shorter mate is ruled out"
    why = _LENGTH_STOPS.get(res.length_stop, res.length_stop)
    return (
        f"mate {n}: not proven the shortest ({bound}); the search for a shorter mate ended: {why}"
    )


def answer_lines(
    command: GoCommand, res: MateResult | None, *, stats_reported: bool = False
) -> list[str]:
    """Every line that ends a search: info lines, then ``checkmate ...`` or ``bestmove ...``.

    ``res`` is None when there was no search (an internal error or a missing position,
    already reported): the answer is then ``checkmate timeout`` / ``bestmove resign``.
    ``stats_reported``: progress reports were on, and the core's last report already gave
    the final time/nodes/hashfull, so a search without mate adds no statistics line.
    """
    if res is None:
        return ["checkmate timeout" if command.mate else "bestmove resign"]
    if res.status == "mate" and res.moves:
        notes = [note for note in (res.error, length_note(res)) if note]
        return [f"info string {printable(note, 300)}" for note in notes] + [
            mate_info_line(res),
            f"checkmate {' '.join(res.moves)}" if command.mate else f"bestmove {res.moves[0]}",
        ]
    lines = []
    if res.status == "invalid":
        lines.append(
            f"info string error: {printable(res.error or 'position cannot be searched', 200)}"
        )
    elif res.error:
        lines.append(f"info string {printable(res.error, 200)}")
    if not stats_reported and res.status != "invalid":
        lines.append(f"info {_stats(res.time_ms, res.nodes, res.nps, res.hashfull)}")
    if res.status == "mate":
        lines.append("info string the side to move is already checkmated")
    elif res.stop_reason == "length":
        lines.append(f"info string no mate within {command.depth} plies")
    if not command.mate:
        if res.status == "nomate":
            lines.append("info string no mate")
        elif res.status == "unknown" and res.stop_reason != "length":
            lines.append("info string no mate found within the limits")
        return lines + ["bestmove resign"]
    # Only a search of this very position proves "no mate" (or finds it already mated).
    verdict = res.status in ("nomate", "mate")
    return lines + ["checkmate nomate" if verdict else "checkmate timeout"]


def cook_lines(found: Alternative | CheckReport) -> list[str]:
    """``info string`` lines of ReportCooks.

    For one finding (reported as soon as it is known): a cook (余詰) with its
    line, or a last-move alternative (tolerated); other kinds give no line.
    For the finished report: one summary line (cooks, alternatives settled,
    undecided, last-move alternatives, detours). Moves are USI, so the lines
    stay ASCII.
    """
    if hasattr(found, "alternatives"):  # a report (not imported here: USI does not load it)
        report = cast("CheckReport", found)
        counts = report.counts()
        cooks = report.cooks
        tried = len(report.alternatives)
        open_ = counts.get("undecided", 0)
        if cooks:
            head = f"{len(cooks)} cook{'s' if len(cooks) > 1 else ''}, the first at move "
            head += str(cooks[0].move_number)
        else:
            head = "no cook" if open_ == 0 else "no cook found"
        tail = f"{tried} other checks tried, {open_} undecided"
        if not report.complete:
            tail += " (stopped)"
        for kind, name in (("last_move", "last-move alternative"), ("detour", "detour")):
            if counts.get(kind):
                tail += f", {counts[kind]} {name}{'s' if counts[kind] > 1 else ''}"
        return [f"info string ReportCooks: {head} on the main line; {tail}"]
    a = found
    if a.kind not in ("cook", "last_move"):
        return []
    what = "cook" if a.kind == "cook" else "last-move alternative (tolerated)"
    if a.length_exact:
        length = f"in {a.total_length} ({a.length} from there)"
    else:  # the length of the line found, which bounds nothing (check_report._length_text)
        length = f"by a line of {a.total_length} ({a.length} from there), length not proven"
    text = f"{what} at move {a.move_number}: {a.move} also mates {length}: {' '.join(a.line)}"
    return [f"info string {printable(text, 2000)}"]
