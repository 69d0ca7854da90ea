"""What the engine writes when a search reports or ends: ``info`` lines, then
exactly one ``checkmate ...`` (``go mate``) or ``bestmove ...`` (analysis mode).
"""

from __future__ import annotations

from .types import MateResult, SearchProgress
from .usi_commands import GoCommand, printable


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


def mate_info_line(res: MateResult) -> str:
    """The ``info depth N seldepth N ... score mate N pv ...`` line of a proven mate.

    N is the number of plies. It is negative when the line has an even length: then the
    side to move is the one being mated (RootIsAndNodeIfChecked), as USI scores go.
    """
    n = len(res.moves)
    score = n if n % 2 else -n
    return (
        f"info depth {n} seldepth {n} {_stats(res.time_ms, res.nodes, res.nps, res.hashfull)}"
        f" score mate {score} pv {' '.join(res.moves)}"
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
        return [
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
