#!/usr/bin/env python3
"""Composer's-check benchmark: usi_mate.check over problem files, one problem at a time.

    python -m scripts.check_bench "$USI_MATE_PROBLEMS/tendo.sfen" --time 10000
    python -m scripts.check_bench problems/zukou.sfen problems/muso.sfen \\
        --time 120000 --jsonl /tmp/classics.jsonl          # resumable: done ids are skipped
    python -m scripts.check_bench problems/zukou.sfen --every 4 --time 120000

Every problem is checked with a fresh table (``Solver.clear()`` outside the
timing), the time limit (--time) holding for its whole check: the solver's
main search (at most half of it) and every alternative along the main line.
Prints one line per problem as it goes, then a markdown table per file: how
many problems are sound, cooked, have an unsound defence, are undecided (or
have no mate, or cannot be searched), with the total and median wall time and
the mean time of the sound ones; then every flaw found, with the first flaw's
move, its length and the problem's label; then every problem with 変同 or spare
pieces. ``--jsonl`` keeps every report (and lets an interrupted run resume).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from usi_mate import Solver, __version__
from usi_mate.check_report import hand_text
from usi_mate.checker import check
from usi_mate.problems import read_problem_file

ROOT = Path(__file__).resolve().parents[1]

VERDICTS = ("sound", "cooked", "unsound_defence", "undecided", "nomate", "invalid")


def commit() -> str:
    """The checkout's short commit id ("?" outside git)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        )
        return out.stdout.strip() or "?"
    except OSError:
        return "?"


def load_done(path: Path | None) -> dict[str, dict]:
    """Rows already in the --jsonl file, by problem id."""
    if path is None or not path.exists():
        return {}
    done = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            done[row["id"]] = row
    return done


def row_of(problem, report, wall: float) -> dict:
    """One problem's record: its id, file, label and wall time, then the whole report."""
    data = report.to_dict()
    return {
        "id": problem.id,
        "file": Path(problem.source).name,
        "expected": problem.expected.text if problem.expected else None,
        "sfen": problem.sfen,
        "wall_s": round(wall, 3),
        **data,
    }


def first_flaw(row: dict) -> dict | None:
    """The finding that gave the verdict (a cook, longer defence or escape), if any."""
    move = row.get("verdict_move")
    for a in row["alternatives"]:
        if a["move_number"] == move and a["kind"] in ("cook", "longer", "escape"):
            return a
    return None


def summary(rows: list[dict]) -> list[str]:
    """The markdown table of verdict counts and times, one row a file and one for all."""
    out = [
        "| file | problems | sound | cooked | unsound defence | undecided | no mate | invalid "
        "| total | median | mean of sound |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    files = sorted({r["file"] for r in rows}, key=lambda f: [r["file"] for r in rows].index(f))
    for name in [*files, "all"]:
        group = [r for r in rows if name == "all" or r["file"] == name]
        if not group:
            continue
        counts = {v: sum(1 for r in group if r["verdict"] == v) for v in VERDICTS}
        times = [r["wall_s"] for r in group]
        sound = [r["wall_s"] for r in group if r["verdict"] == "sound"]
        mean_sound = f"{statistics.mean(sound):.2f} s" if sound else "-"
        out.append(
            f"| {name} | {len(group)} | "
            + " | ".join(str(counts[v]) for v in VERDICTS)
            + f" | {sum(times):.0f} s | {statistics.median(times):.2f} s | {mean_sound} |"
        )
    return out


def flaws(rows: list[dict]) -> list[str]:
    """The markdown table of every problem with a flaw: its first flaw and that line's length."""
    out = [
        "| problem | label | main line | verdict | first flaw | its length (total) |",
        "|---|---:|---:|---|---|---:|",
    ]
    for r in rows:
        if r["verdict"] not in ("cooked", "unsound_defence", "nomate"):
            continue
        main = f"{r['main_length']}{'' if r['main_exact'] else '?'}" if r["main_line"] else "-"
        a = first_flaw(r)
        if a is None:
            out.append(f"| {r['id']} | {r['expected']} | {main} | {r['verdict_text']} | | |")
            continue
        length = "-" if a["total_length"] is None else str(a["total_length"])
        if a["total_length"] is not None and not a["length_exact"]:
            length += "?"  # the line found; its length is not proven (bounds nothing)
        out.append(
            f"| {r['id']} | {r['expected']} | {main} | {r['verdict_text']} | "
            f"{a['kind']} {a['move']} | {length} |"
        )
    return out


def remarks(rows: list[dict]) -> list[str]:
    """The markdown table of 変同 and spare pieces (駒余り), for every problem with either.

    Neither makes a problem unsound; a composer wants to know about both.
    Cooks other than the first are counted here too. Only main lines proven
    shortest: along a longer line, later attacker moves are not the fastest
    and its defences not the longest, so what is found there means little.
    """
    out = [
        "| problem | label | main line | verdict | cooks (moves) | 変同 at moves "
        "| spare at the end | last-move alternatives |",
        "|---|---:|---:|---|---|---|---|---:|",
    ]
    for r in rows:
        by_kind: dict[str, list[dict]] = {}
        for a in r["alternatives"]:
            by_kind.setdefault(a["kind"], []).append(a)
        same = sorted({a["move_number"] for a in by_kind.get("same_length", [])})
        cooks = by_kind.get("cook", [])
        if not r["main_exact"] or not (same or r["spare"] or len(cooks) > 1):
            continue
        cook_moves = sorted({a["move_number"] for a in cooks})
        main = f"{r['main_length']}{'' if r['main_exact'] else '?'}"
        spare = hand_text(r["spare"]) if r["spare"] else "-"
        out.append(
            f"| {r['id']} | {r['expected']} | {main} | {r['verdict_text']} | "
            + (f"{len(cooks)} ({', '.join(map(str, cook_moves))})" if cooks else "-")
            + f" | {', '.join(map(str, same)) or '-'} | {spare} "
            f"| {len(by_kind.get('last_move', []))} |"
        )
    return out


def main() -> int:
    """Run the benchmark; print the tables."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("files", nargs="+", help="problem files")
    ap.add_argument("--time", type=int, default=10_000, help="ms for each problem's check")
    ap.add_argument("--nodes", type=int, help="node limit for each problem's check")
    ap.add_argument("--hash", type=int, default=256, help="table size in MB")
    ap.add_argument("--ids", help="only these problem ids (comma-separated)")
    ap.add_argument("--every", type=int, default=1, help="only every k-th problem of each file")
    ap.add_argument("--first-flaw", action="store_true", help="stop each check at its verdict")
    ap.add_argument("--jsonl", type=Path, help="append each report here; skip ids already in it")
    args = ap.parse_args()

    wanted = set(args.ids.split(",")) if args.ids else None
    done = load_done(args.jsonl)
    solver = Solver(args.hash)
    print(
        f"usi-mate {__version__} (commit {commit()}), {platform.machine()}, "
        f"{os.cpu_count()} cpus; --time {args.time} ms, --hash {args.hash} MB"
        + (f", --nodes {args.nodes}" if args.nodes else "")
        + (", first flaw only" if args.first_flaw else ""),
        flush=True,
    )
    rows = []
    for path in args.files:
        for k, problem in enumerate(read_problem_file(path)):
            if problem.sfen is None or k % args.every:
                continue
            if wanted is not None and problem.id not in wanted:
                continue
            if problem.id in done:
                rows.append(done[problem.id])
                continue
            solver.clear()
            started = time.perf_counter()
            report = check(
                problem.sfen,
                solver=solver,
                time_limit_ms=args.time,
                nodes_limit=args.nodes,
                exhaustive=not args.first_flaw,
            )
            row = row_of(problem, report, time.perf_counter() - started)
            rows.append(row)
            if args.jsonl is not None:
                with args.jsonl.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            counts = row["counts"]
            print(
                f"{problem.id:<28} label {row['expected'] or '-':>5}  main "
                f"{row['main_length'] if row['main_line'] else '-':>4}"
                f"{'' if row['main_exact'] or not row['main_line'] else '?'}  "
                f"{row['verdict_text'][:60]:<60}  {row['wall_s']:7.2f} s  "
                f"cooks {counts.get('cook', 0)}, open {counts.get('undecided', 0)}",
                flush=True,
            )
    print()
    print("\n".join(summary(rows)))
    print()
    print("\n".join(flaws(rows)))
    print()
    print("\n".join(remarks(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
