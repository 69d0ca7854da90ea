#!/usr/bin/env python3
"""Perft benchmark: usi_mate's C++ perft against cshogi, measured in the same run.

    python -m scripts.perft                      # start position, depth 5
    python -m scripts.perft --depth 3 --sfen "9/9/9/9/4k4/9/9/9/9 b 2R2B4G4S4N4L18P 1"
    python -m scripts.perft --depth 6 --cshogi-depth 4

Prints one row per measurement (engine, depth, leaves, seconds, leaves per second)
and the usi_mate / cshogi speed ratio at a depth both engines ran, after checking
that their leaf counts agree.

cshogi has no perft of its own in Python, so its figure comes from the fastest
honest recursion its API allows: a Python function doing push/pop per interior
node, with the last ply bulk-counted by ``len(board.legal_moves)`` (generated in
C++). The cshogi figure therefore includes Python-call overhead at every interior
node; usi_mate's runs entirely in C++ without the GIL.

cshogi's depth defaults to --depth. Before each deeper cshogi iteration the time is
estimated from the previous depth times its branching factor; when the estimate is
over --cshogi-budget seconds (60), cshogi stops at the last depth it finished and
the table says so. --cshogi-depth caps the depth explicitly.
"""

from __future__ import annotations

import argparse
import sys
import time

import cshogi

from usi_mate import Position


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="usi_mate perft against cshogi, same run.")
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
    args = ap.parse_args(argv)
    if args.depth < 1:
        ap.error("--depth must be at least 1")

    pos = Position(args.sfen)
    sfen = pos.sfen()
    board = cshogi.Board(sfen)
    cap = args.depth if args.cshogi_depth is None else min(args.cshogi_depth, args.depth)

    # cshogi: deepen one ply at a time so a hopeless depth is never started. The
    # next depth costs about this depth's time times its branching factor.
    c_depth, c_leaves, c_secs, prev_leaves, note = 0, 1, 0.0, 1, ""
    for depth in range(1, cap + 1):
        estimate = c_secs * c_leaves / max(prev_leaves, 1)
        if c_depth and estimate > args.cshogi_budget:
            note = (
                f"cshogi stopped at depth {c_depth}: depth {depth} estimated at "
                f"{estimate:.0f} s > {args.cshogi_budget:.0f} s budget"
            )
            break
        prev_leaves = c_leaves
        c_leaves, c_secs = timed(cshogi_perft, board, depth)
        c_depth = depth
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


if __name__ == "__main__":
    sys.exit(main())
