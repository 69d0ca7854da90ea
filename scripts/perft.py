#!/usr/bin/env python3
"""Perft benchmarks: usi_mate's C++ perft against cshogi, or the two bitboard builds.

    python -m scripts.perft                      # start position, depth 5, against cshogi
    python -m scripts.perft --depth 3 --sfen "9/9/9/9/4k4/9/9/9/9 b 2R2B4G4S4N4L18P 1"
    python -m scripts.perft --depth 6 --cshogi-depth 4
    python -m scripts.perft --builds             # __int128 against two 64-bit halves
    python -m scripts.perft --builds --baseline main --rounds 3

**Against cshogi** (the default), measured in the same run. Prints one row per
measurement (engine, depth, leaves, seconds, leaves per second) and the usi_mate /
cshogi speed ratio at a depth both engines ran, after checking that their leaf counts
agree.

cshogi has no perft of its own in Python, so its figure comes from the fastest
honest recursion its API allows: a Python function doing push/pop per interior
node, with the last ply bulk-counted by ``len(board.legal_moves)`` (generated in
C++). The cshogi figure therefore includes Python-call overhead at every interior
node; usi_mate's runs entirely in C++ without the GIL.

cshogi's depth defaults to --depth. Before each deeper cshogi iteration the time is
estimated from the previous depth times its branching factor; when the estimate is
over --cshogi-budget seconds (60), cshogi stops at the last depth it finished and
the table says so. --cshogi-depth caps the depth explicitly.

**--builds**: the two bitboard builds, measured in the same run. Builds the extension
twice from this checkout, each in its own temporary copy with the same compiler flags:
the default build (``unsigned __int128`` bitboards on GCC and Clang) and
USI_MATE_PORTABLE=1 (two 64-bit halves, the code MSVC compiles on Windows); with
--baseline REV, also the default build of that git revision (to show that a change
left the default path's speed alone). Then runs perft in a fresh process per
measurement, alternating the builds round by round so that load from other work on
the machine hits them alike (each process keeps its fastest of --repeat perfts), and
prints each build's median and best leaves per second and the ratio of medians.

Exits 1 if the engines or the builds count different leaves.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cshogi

from usi_mate import Position

ROOT = Path(__file__).resolve().parents[1]
BUILDS = (("default", {}), ("portable", {"USI_MATE_PORTABLE": "1"}))

# A fresh process per measurement of --builds runs perft `repeat` times and prints the
# bitboard kind, the leaves and its fastest time: bursts of other work on the machine
# lengthen single runs, never shorten them.
_CHILD = """
import sys, time
from usi_mate import Position, _core
pos = Position(sys.argv[1])
best = float("inf")
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    leaves = pos.perft(int(sys.argv[2]))
    best = min(best, time.perf_counter() - start)
print(getattr(_core, "BITBOARD", "int128"), leaves, best)
"""


# --------------------------------------------------------------------------- against cshogi


def cshogi_perft(board: cshogi.Board, depth: int) -> int:
    """Leaf count with bulk counting at the last ply (Python recursion above it)."""
    if depth <= 0:
        return 1
    if depth == 1:
        return len(board.legal_moves)
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += cshogi_perft(board, depth - 1)
        board.pop()
    return total


def timed(fn, *args) -> tuple[int, float]:
    start = time.perf_counter()
    leaves = fn(*args)
    return leaves, time.perf_counter() - start


def rate(leaves: int, seconds: float) -> float:
    return leaves / seconds if seconds > 0 else float("inf")


def cshogi_deepening(board: cshogi.Board, cap: int, budget_s: float) -> tuple[int, int, float, str]:
    """cshogi's perft one ply deeper at a time up to ``cap``, so that a hopeless depth is
    never started (the next depth costs about this depth's time times its branching
    factor): (depth reached, leaves, seconds, a note when it stopped early)."""
    c_depth, c_leaves, c_secs, prev_leaves = 0, 1, 0.0, 1
    for depth in range(1, cap + 1):
        estimate = c_secs * c_leaves / max(prev_leaves, 1)
        if c_depth and estimate > budget_s:
            note = (
                f"cshogi stopped at depth {c_depth}: depth {depth} estimated at "
                f"{estimate:.0f} s > {budget_s:.0f} s budget"
            )
            return c_depth, c_leaves, c_secs, note
        prev_leaves = c_leaves
        c_leaves, c_secs = timed(cshogi_perft, board, depth)
        c_depth = depth
    return c_depth, c_leaves, c_secs, ""


def against_cshogi(args: argparse.Namespace) -> int:
    """usi_mate's perft and cshogi's at the same depth; the table and the ratio."""
    pos = Position(args.sfen)
    sfen = pos.sfen()
    cap = args.depth if args.cshogi_depth is None else min(args.cshogi_depth, args.depth)
    c_depth, c_leaves, c_secs, note = cshogi_deepening(cshogi.Board(sfen), cap, args.cshogi_budget)
    if args.cshogi_depth is not None and args.cshogi_depth < args.depth and not note:
        note = f"cshogi depth capped at {c_depth} by --cshogi-depth"

    ours, ours_secs = timed(pos.perft, args.depth)
    rows = [("usi_mate (C++)", args.depth, ours, ours_secs)]
    same_depth = (ours, ours_secs)
    if c_depth != args.depth:
        same_depth = timed(pos.perft, c_depth)
        rows.append(("usi_mate (C++)", c_depth, *same_depth))
    rows.append(("cshogi (Python recursion)", c_depth, c_leaves, c_secs))

    print(f"position: {sfen}")
    header = f"{'engine':<26} {'depth':>5} {'leaves':>14} {'seconds':>9} {'leaves/s':>14}"
    print(header)
    print("-" * len(header))
    for name, depth, leaves, secs in rows:
        print(f"{name:<26} {depth:>5} {leaves:>14,} {secs:>9.3f} {rate(leaves, secs):>14,.0f}")
    print("-" * len(header))
    ratio = rate(*same_depth) / rate(c_leaves, c_secs)
    print(f"ratio usi_mate / cshogi at depth {c_depth}: {ratio:.2f}x leaves per second")
    print(
        "note: cshogi's figure includes Python-call overhead (push/pop per interior node;"
        " only the last ply is counted in C++)"
    )
    if note:
        print(f"note: {note}")
    if same_depth[0] != c_leaves:
        print(f"MISMATCH at depth {c_depth}: usi_mate {same_depth[0]}, cshogi {c_leaves}")
        return 1
    return 0


# --------------------------------------------------------------------------- --builds


def build(dest: Path, extra_env: dict[str, str], revision: str | None = None) -> None:
    """Copies the sources (of the work tree, or of a git revision) to dest and builds
    the extension there in place."""
    if revision:
        dest.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    else:
        for name in ("csrc", "usi_mate"):
            shutil.copytree(
                ROOT / name,
                dest / name,
                ignore=shutil.ignore_patterns("*.so", "*.pyd", "_core.cpp", "__pycache__"),
            )
        for name in ("setup.py", "pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, dest / name)
    env = {**os.environ, **extra_env}
    env.pop("USI_MATE_NATIVE", None)  # both builds get the same, portable flags
    done = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace", "--force", "-q"],
        cwd=dest,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"build failed in {dest}:\n{done.stdout}{done.stderr}")


def measure(where: Path, sfen: str, depth: int, repeat: int) -> tuple[str, int, float]:
    """(bitboard kind, leaves, fastest seconds) of one process on the build in ``where``."""
    env = {**os.environ, "PYTHONPATH": str(where)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, sfen, str(depth), str(repeat)],
        cwd=where,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return out[0], int(out[1]), float(out[2])


def compare_builds(args: argparse.Namespace) -> int:
    """Build each bitboard path, alternate their perft processes, print the table."""
    builds = list(BUILDS)
    if args.baseline:
        builds.insert(0, (f"{args.baseline}", {}))
    with tempfile.TemporaryDirectory(prefix="usi-mate-perft-") as tmp:
        dirs = {}
        for i, (name, extra) in enumerate(builds):
            dirs[name] = Path(tmp) / f"build{i}"
            print(f"building {name} ...", file=sys.stderr, flush=True)
            build(dirs[name], extra, args.baseline if name == args.baseline else None)
        results: dict[str, list[tuple[str, int, float]]] = {name: [] for name, _ in builds}
        for _ in range(args.rounds):
            for name, _ in builds:
                results[name].append(measure(dirs[name], args.sfen, args.depth, args.repeat))

    print(
        f"position: {args.sfen}, depth {args.depth}; {args.rounds} processes per build,"
        f" alternating, each the fastest of {args.repeat} perfts"
    )
    header = (
        f"{'build':<10} {'bitboard':<9} {'leaves':>13} {'median s':>9}"
        f" {'median leaves/s':>16} {'best leaves/s':>14}"
    )
    print(header)
    print("-" * len(header))
    medians = {}
    for name, _ in builds:
        kind, leaves, _ = results[name][0]
        secs = [s for _, _, s in results[name]]
        medians[name] = leaves / statistics.median(secs)
        print(
            f"{name:<10} {kind:<9} {leaves:>13,} {statistics.median(secs):>9.3f}"
            f" {medians[name]:>16,.0f} {leaves / min(secs):>14,.0f}"
        )
    print("-" * len(header))
    print(f"ratio portable / default (medians): {medians['portable'] / medians['default']:.3f}")
    if args.baseline:
        ratio = medians["default"] / medians[args.baseline]
        print(f"ratio default / {args.baseline} (medians): {ratio:.3f}")
    counts = {leaves for rows in results.values() for _, leaves, _ in rows}
    kinds = [results[name][0][0] for name, _ in BUILDS]
    if len(counts) != 1:
        print(f"MISMATCH: leaf counts {sorted(counts)}")
        return 1
    if kinds != ["int128", "uint64x2"]:
        print(f"note: the builds report bitboards {kinds} (no __int128 on this compiler?)")
    return 0


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="usi_mate perft against cshogi, or the two bitboard builds; same run."
    )
    ap.add_argument("--depth", type=int, default=5, help="usi_mate perft depth (default 5)")
    ap.add_argument(
        "--sfen",
        default="startpos",
        help="position: 'startpos', an SFEN, or either with 'moves ...'",
    )
    ap.add_argument(
        "--cshogi-depth",
        type=int,
        default=None,
        help="cap for the cshogi depth (default: --depth, reduced if too slow)",
    )
    ap.add_argument(
        "--cshogi-budget",
        type=float,
        default=60.0,
        help="skip a cshogi depth whose estimated time exceeds this (s)",
    )
    builds = ap.add_argument_group("--builds: __int128 bitboards against two 64-bit halves")
    builds.add_argument("--builds", action="store_true", help="compare the bitboard builds")
    builds.add_argument("--rounds", type=int, default=7, help="processes per build (default 7)")
    builds.add_argument(
        "--repeat", type=int, default=3, help="perfts per process, fastest kept (default 3)"
    )
    builds.add_argument(
        "--baseline", metavar="REV", help="also build the default path of this git revision"
    )
    args = ap.parse_args(argv)
    if args.depth < 1:
        ap.error("--depth must be at least 1")
    if args.baseline and not args.builds:
        ap.error("--baseline goes with --builds")
    return compare_builds(args) if args.builds else against_cshogi(args)


if __name__ == "__main__":
    sys.exit(main())
