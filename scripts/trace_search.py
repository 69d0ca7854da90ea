#!/usr/bin/env python3
"""Where a long search's work goes: the root's proof and disproof numbers, the table's
fill, the deepest ply and the node rate over time, one problem after another (issue 47).

    USI_MATE_PROBLEMS=/path/to/collections python -m scripts.trace_search hard_long.sfen \\
        --only hadaka38 --seconds 100 --hash 4096

A problem file is looked for as given, then in problems/ and in the folder
USI_MATE_PROBLEMS names. Each problem is searched for its first proof
(``post_search="None"``, ``--threads`` threads, one by default) on a fresh table for
``--seconds``; a row is printed every ``--every`` seconds from the core's progress
reports, and a summary row per problem at its end, a mating line replayed with cshogi
(and written to ``--lines``, as a USI position command, when given). A root proof number that climbs
while its disproof number stays low means the search keeps finding new defences under
the same attacking line (or counts one subtree through many parents); a table at 1000
per mille that keeps the node rate falling means
thrashing: what replacement throws away is rebuilt. ``--max-length N`` asks for a mate
within N plies only (as ``go depth N``): whether bounding the paths at the published
length is what the search lacks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from usi_mate import SearchRequest, Solver
from usi_mate.problems import read_problem_file

try:  # python -m scripts.<tool> from the checkout's root
    from scripts.mate_lines import check_mate_line, oracle_only_futile_replies
except ImportError:  # python scripts/<tool>.py, or tests (scripts/ on the path)
    from mate_lines import check_mate_line, oracle_only_futile_replies

ROOT = Path(__file__).resolve().parent.parent


def find(name: str) -> Path:
    """``name`` as given, else in problems/ or the folder USI_MATE_PROBLEMS names."""
    path = Path(name)
    if path.is_file():
        return path
    folders = [ROOT / "problems"]
    extra = os.environ.get("USI_MATE_PROBLEMS", "").strip()
    if extra:
        folders.append(Path(extra).expanduser())
    for folder in folders:
        if (folder / name).is_file():
            return folder / name
    sys.exit(f"{name}: not found (as given, in problems/, or in USI_MATE_PROBLEMS)")


def replay(sfen: str, moves: list[str]) -> str:
    """The line replayed with cshogi (scripts/mate_lines.py): "replayed", or why not."""
    bad = check_mate_line(sfen, moves, futile_end=oracle_only_futile_replies)
    return "replayed with cshogi" if bad is None else f"WRONG LINE: {bad}"


def trace(problem, args) -> None:
    """Search one problem, printing a row of its progress every ``args.every`` seconds."""
    solver = Solver(args.hash, threads=args.threads)
    last = [0.0, 0]  # time and nodes of the previous row

    def report(p) -> None:
        if p.seconds - last[0] < args.every:
            return
        rate = (p.nodes - last[1]) / max(p.seconds - last[0], 1e-9)
        last[:] = [p.seconds, p.nodes]
        print(
            f"| {problem.id} | {p.seconds:.0f} | {p.nodes:,} | {rate / 1e6:.2f} M/s | "
            f"{p.proof_number} | {p.disproof_number} | {p.hashfull} | {p.max_ply} |",
            flush=True,
        )

    request = SearchRequest(
        time_limit_ms=int(args.seconds * 1000), post_search="None", max_length=args.max_length
    )
    start = time.perf_counter()
    result = solver.search(problem.sfen, request, on_progress=report, progress_interval_ms=1000)
    wall = time.perf_counter() - start
    answer = f"mate {result.mate_length}" if result.status == "mate" else result.status
    if result.stop_reason == "length":
        answer = f"no mate within {args.max_length}"
    if result.status == "mate":
        answer += f", {replay(problem.sfen, list(result.moves))}"
        if args.lines:
            args.lines.mkdir(parents=True, exist_ok=True)
            (args.lines / f"{problem.id}.usi").write_text(
                f"position sfen {problem.sfen} moves {' '.join(result.moves)}\n", encoding="utf-8"
            )
    print(
        f"| {problem.id} | **{wall:.0f}** | {result.nodes:,} | {answer} "
        f"(published {problem.expected.text if problem.expected else '?'}) | | | "
        f"{result.hashfull} | |",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="a problem file (<sfen> # <expected> <id> ...)")
    ap.add_argument("--only", nargs="*", default=None, help="problem ids to trace (default all)")
    ap.add_argument("--seconds", type=float, default=100.0, help="time for each problem")
    ap.add_argument("--every", type=float, default=10.0, help="seconds between rows")
    ap.add_argument("--hash", type=int, default=4096, help="table size in MB")
    ap.add_argument(
        "--threads", type=int, default=1, help="search threads (nodes counted over all)"
    )
    ap.add_argument(
        "--max-length",
        type=int,
        default=None,
        help="only mates of at most this many plies count (a bounded search, as `go depth`)",
    )
    ap.add_argument(
        "--lines", type=Path, default=None, help="a folder for the mating lines found (<id>.usi)"
    )
    args = ap.parse_args(argv)
    problems = [
        p for p in read_problem_file(find(args.file)) if args.only is None or p.id in args.only
    ]
    print("| problem | s | nodes | nodes/s | root pn | root dn | hashfull | deepest ply |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for problem in problems:
        trace(problem, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
