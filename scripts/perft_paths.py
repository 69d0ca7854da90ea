#!/usr/bin/env python3
"""Perft speed of the two bitboard builds, measured in the same run.

    python scripts/perft_paths.py                 # start position, depth 5, 7 rounds
    python scripts/perft_paths.py --depth 4 --rounds 3 --sfen "..."
    python scripts/perft_paths.py --baseline main   # also the default build of a git revision

Builds the extension twice from this checkout, each in its own temporary copy with
the same compiler flags: the default build (`unsigned __int128` bitboards on GCC and
Clang) and USI_MATE_PORTABLE=1 (two 64-bit halves, the code MSVC compiles on
Windows); with --baseline REV, also the default build of that git revision (to show
that a change left the default path's speed alone). Then runs perft in a fresh
process per measurement, alternating the builds round by round so that load from
other work on the machine hits them alike (each process keeps its fastest of
--repeat perfts), and prints each build's median and best leaves per second and the
ratio of medians.
Exits 1 if the two builds count different leaves.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILDS = (("default", {}), ("portable", {"USI_MATE_PORTABLE": "1"}))

# A fresh process per measurement runs perft `repeat` times and prints the bitboard
# kind, the leaves and its fastest time: bursts of other work on the machine lengthen
# single runs, never shorten them.
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="perft: __int128 bitboards against two halves")
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=7, help="processes per build (default 7)")
    ap.add_argument("--repeat", type=int, default=3, help="perfts per process, fastest kept (3)")
    ap.add_argument("--sfen", default="startpos")
    ap.add_argument(
        "--baseline", metavar="REV", help="also build the default path of this git revision"
    )
    args = ap.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
