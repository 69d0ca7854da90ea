#!/usr/bin/env python3
"""Wall time of ``usi-mate solve --jobs 1`` against ``--jobs 2`` on the same problems.

Runs the whole command (interpreter start, worker start-up, table allocation,
solving, writing jsonl) several times per setting, interleaving the settings so
that load from other processes on the machine hits both alike, and prints a
table with the ratio against ``--jobs 1`` measured in the same run. It also
checks that every setting gives the same verdicts and lines.

    python -m scripts.batch_wall                       # problems/generated.sfen
    python -m scripts.batch_wall --file problems/zukou.sfen --repeat 3
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The usi_mate that this Python imports (an in-place build in the checkout, or the
# installed package): child processes must import the same one.
PACKAGE_ROOT = str(Path(importlib.util.find_spec("usi_mate").origin).resolve().parent.parent)
DEFAULT_FILE = REPO / "problems" / "generated.sfen"
ENV = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}


SOLVE = [sys.executable, "-m", "usi_mate", "solve"]


def run_once(cmd: list[str], problem_file: Path, jobs: int, extra: list[str]) -> tuple[float, list]:
    """One timed run; returns (wall seconds, [(id, status, moves), ...])."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        args = [
            *cmd,
            str(problem_file),
            "--jobs",
            str(jobs),
            "--format",
            "jsonl",
            "--output",
            str(out),
            "--no-progress",
            *extra,
        ]
        start = time.perf_counter()
        proc = subprocess.run(args, env=ENV, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"jobs {jobs}: exit {proc.returncode}\n{proc.stderr}")
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return wall, [(r["id"], r["status"], r["moves"]) for r in records]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--file", type=Path, default=DEFAULT_FILE, help="problem file (default: %(default)s)"
    )
    p.add_argument("--jobs", default="1,2", help="comma-separated --jobs values (default: 1,2)")
    p.add_argument("--repeat", type=int, default=5, help="runs per setting (default: 5)")
    p.add_argument(
        "extra",
        nargs=argparse.REMAINDER,
        help="more options for usi-mate solve after --, e.g. -- --hash 64 --time 10000",
    )
    args = p.parse_args()
    extra = [a for a in args.extra if a != "--"]
    jobs_values = [int(j) for j in args.jobs.split(",")]
    n = sum(
        1
        for line in args.file.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )

    print(
        f"file: {args.file.name} ({n} problems); runs per setting: {args.repeat}; "
        f"options: {' '.join(extra) or '(defaults)'}"
    )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"cpus: {os.cpu_count()}; load average before: {load}")
    walls: dict[int, list[float]] = {j: [] for j in jobs_values}
    answers: dict[int, list] = {}
    for _ in range(args.repeat):
        for j in jobs_values:  # interleaved: drifting load from others hits every setting
            wall, result = run_once(SOLVE, args.file, j, extra)
            walls[j].append(wall)
            answers.setdefault(j, result)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    base = statistics.median(walls[jobs_values[0]])
    print()
    print(
        "| --jobs | min wall (s) | median wall (s) | problems/s (median) "
        f"| median vs --jobs {jobs_values[0]} |"
    )
    print("|---:|---:|---:|---:|---:|")
    for j in jobs_values:
        med = statistics.median(walls[j])
        print(f"| {j} | {min(walls[j]):.3f} | {med:.3f} | {n / med:.0f} | {base / med:.2f}x |")
    reference = answers[jobs_values[0]]
    for j in jobs_values[1:]:
        diff = sum(a != b for a, b in zip(reference, answers[j]))
        print(
            f"\nanswers with --jobs {j} vs --jobs {jobs_values[0]}: "
            f"{'identical' if diff == 0 else f'{diff} of {n} differ'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
