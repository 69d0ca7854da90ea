#!/usr/bin/env python3
"""The cost of a call: positions a second on one core, usi-mate against cshogi's DfPn,
the same positions and limits, in the same process and the same run.

    python -m scripts.call_cost                       # the sets the repository carries
    USI_MATE_PROBLEMS=/path/to/collections python -m scripts.call_cost   # + yaneuraou mate 3-11
    python -m scripts.call_cost --rounds 9 --count 500
    python -m scripts.call_cost --only mate-1 --only "mate 3" --repeat 10   # a stream

Each set is searched in every way below once a round, the ways interleaved so that load
from other processes on the machine hits them alike; the table has each way's best round
(positions / its wall time), and the ratio of usi-mate's best way to cshogi's.

- ``Solver.search``: one call a position, ``Solver(--hash)`` kept across the run, its
  table cleared before each round (outside the timing: a bulk caller searches each
  position once, and cshogi's DfPn starts each search afresh);
- ``Solver.search_many``: the set in one call;
- ``solve_many``: ``usi_mate.solve_many(jobs=1)`` (a new Solver and its search thread each
  round, as a caller gets them);
- ``solve()``: ``usi_mate.solve`` a position, the one call a first script writes (its
  Solver is the one it keeps for the thread, cleared before each search; the first
  round's first call builds it);
- cshogi: ``Board.set_sfen`` + ``DfPn.search`` + ``DfPn.get_pv`` on a mate, a new DfPn
  each round (made outside the timing; its table size is its own: cshogi's Python API
  cannot set it).

``--repeat N`` searches each set N times over in one pass (a bulk run's stream, where
the start of a solve_many call, its Solver and search thread, weighs nothing): only
for the sets answered before any table is looked at (mates in one and three, settled
at the root), where a position seen before is no cheaper the second time.

Limits: first proofs (``post_search="None"``), ``--nodes`` for both engines (default
100,000), usi-mate's table ``--hash`` MB (default 64). Every mate line of the first round
is replayed with cshogi (scripts/mate_lines.py), and the verdicts of the two engines are
compared (a cshogi "no" with its budget left is its "no mate").
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import cshogi

import usi_mate
from usi_mate import SearchRequest, Solver, solve_many
from usi_mate.problems import read_problem_file

from .mate_lines import check_mate_line

ROOT = Path(__file__).resolve().parent.parent
SETS = [
    ("nshogi mate-1", "nshogi_mate1.sfen"),
    ("yaneuraou mate 3", "yaneuraou500m_mate3.sfen"),
    ("yaneuraou mate 5", "yaneuraou500m_mate5.sfen"),
    ("yaneuraou mate 7", "yaneuraou500m_mate7.sfen"),
    ("yaneuraou mate 11", "yaneuraou500m_mate11.sfen"),
    ("nshogi no mate (1 ply)", "nshogi_nomate1ply.sfen"),
]


def find(name: str) -> Path | None:
    """A set in problems/ or in the folder USI_MATE_PROBLEMS names; None when neither has it."""
    folders = [ROOT / "problems"]
    extra = os.environ.get("USI_MATE_PROBLEMS", "").strip()
    if extra:
        folders.append(Path(extra).expanduser())
    return next((f / name for f in folders if (f / name).is_file()), None)


def check_answers(sfens: list[str], ours: list, dfpn_nodes: int) -> list[str]:
    """Every mate line replayed, and the two engines' verdicts compared: what is wrong."""
    board, dfpn = cshogi.Board(), cshogi.DfPn()
    dfpn.set_max_search_node(dfpn_nodes)
    wrong = []
    for sfen, r in zip(sfens, ours):
        if r.status == "mate" and (why := check_mate_line(sfen, r.moves)) is not None:
            wrong.append(f"{sfen}: our line {r.moves}: {why}")
        board.set_sfen(sfen)
        mate = dfpn.search(board)
        theirs = "mate" if mate else "nomate" if dfpn.searched_node < dfpn_nodes else "unknown"
        if {r.status, theirs} == {"mate", "nomate"}:
            wrong.append(f"{sfen}: usi-mate {r.status}, cshogi {theirs}")
    return wrong


def ways(sfens: list[str], args) -> tuple[dict[str, Callable[[], object]], Callable[[], None]]:
    """The ways to answer the set, each a function that answers all of it once, and what
    clears the kept Solver's table."""
    request = SearchRequest(nodes_limit=args.nodes, post_search="None")
    solver = Solver(args.hash)
    board = cshogi.Board()
    peers = [cshogi.DfPn()]

    def clear():
        solver.clear()
        peers[0] = cshogi.DfPn()  # a table of its own that has seen none of the set
        peers[0].set_max_search_node(args.nodes)

    def search():
        return [solver.search(s, request) for s in sfens]

    def search_many():
        return solver.search_many(sfens, request)

    def many_jobs_1():
        return list(
            solve_many(sfens, hash_mb=args.hash, nodes_limit=args.nodes, post_search="None")
        )

    def one_call():
        return [
            usi_mate.solve(s, nodes_limit=args.nodes, post_search="None", hash_mb=args.hash)
            for s in sfens
        ]

    def peer():
        dfpn = peers[0]
        for s in sfens:
            board.set_sfen(s)
            if dfpn.search(board):
                dfpn.get_pv(board)

    return {
        "Solver.search": search,
        "Solver.search_many": search_many,
        "solve_many": many_jobs_1,
        "solve()": one_call,
        "cshogi": peer,
    }, clear


def measure(sfens: list[str], args) -> tuple[dict[str, float], list[str]]:
    """Best seconds of each way over the rounds; what the first round got wrong."""
    todo, clear = ways(sfens, args)
    best = dict.fromkeys(todo, float("inf"))
    wrong: list[str] = []
    for round_ in range(args.rounds):
        for name, run in todo.items():
            clear()  # outside the timing: no position is answered from an earlier round
            start = time.perf_counter()
            answers = run()
            best[name] = min(best[name], time.perf_counter() - start)
            if round_ == 0 and name == "Solver.search_many":
                wrong = check_answers(sfens, answers, args.nodes)
    return best, wrong


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=100_000, help="node limit of each search")
    ap.add_argument("--hash", type=int, default=64, help="usi-mate's table in MB")
    ap.add_argument("--rounds", type=int, default=5, help="rounds (each way once a round)")
    ap.add_argument("--count", type=int, default=1500, help="positions of each set at most")
    ap.add_argument(
        "--repeat", type=int, default=1, help="each set this many times over in one pass"
    )
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="only the sets whose label contains TEXT (repeatable)",
    )
    args = ap.parse_args(argv)
    print(
        f"`python -m scripts.call_cost --nodes {args.nodes} --hash {args.hash} --rounds "
        f"{args.rounds} --count {args.count}"
        + (f" --repeat {args.repeat}" if args.repeat != 1 else "")
        + "".join(f" --only {shlex.quote(t)}" for t in args.only)
        + f"`, {date.today()}, commit {commit()}, "
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"usi-mate {usi_mate.__version__}, one process, first proofs\n"
    )
    names = ["Solver.search", "Solver.search_many", "solve_many", "solve()", "cshogi"]
    print("| positions | " + " | ".join(names) + " | usi-mate's best / cshogi |")
    print("|---|" + "---:|" * (len(names) + 1))
    wrong_all = []
    for label, name in SETS:
        if args.only and not any(t in label for t in args.only):
            continue
        path = find(name)
        if path is None:
            print(f"| {label}: {name} not found (USI_MATE_PROBLEMS) |" + " |" * (len(names) + 1))
            continue
        sfens = [p.sfen for p in read_problem_file(path)][: args.count] * max(1, args.repeat)
        best, wrong = measure(sfens, args)
        wrong_all += wrong
        rate = {k: len(sfens) / v for k, v in best.items()}
        ours = max(rate[k] for k in names[:-1])
        ratio = ours / rate["cshogi"]
        words = f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower"
        cells = " | ".join(f"{rate[k]:,.0f} / s" for k in names)
        print(f"| {label} ({len(sfens)}) | {cells} | {words} |", flush=True)
    print(f"\nwrong: {len(wrong_all)}")
    for line in wrong_all[:20]:
        print("  " + line)
    return 1 if wrong_all else 0


if __name__ == "__main__":
    sys.exit(main())
