"""How closely searches keep their time and node limits, and what the line costs.

    python scripts/limits.py                      # built-in positions
    python scripts/limits.py problems/zukou.sfen --count 30

For each time limit (ms) and node limit, every position is solved with a fresh
table and the overshoot measured: the engine's own elapsed time (``time_ms``)
and the wall time of the ``solve()`` call, against the limit; nodes against the
node limit. Also reports ``line_nodes``: the nodes spent rebuilding the mating
line after the proof (docs/USI.md quotes these figures).
"""

from __future__ import annotations

import argparse
import statistics
import time

from usi_mate import Solver
from usi_mate.problems import read_problem_file

BUILT_IN = [
    "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1",  # 59 plies
    "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1",  # 3 plies with futile drops
    "4k4/9/9/9/9/9/9/9/9 b 2G2S2N2L4P2r2b2g2s2n2l14p 1",
    "l3+P2B+p/k2+rpg+P2/3+p+rPS1n/PP1s4p/3l+p+B1pP/L2n4g/+p4p+N2/5S1s+P/+PL+P+pg+N1G1 b - 1",
]


def main() -> None:
    """Print the overshoot tables."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("files", nargs="*", help="problem files (default: built-in positions)")
    ap.add_argument("--count", type=int, default=20, help="positions per file")
    ap.add_argument("--times", default="100,300,1000", help="time limits in ms")
    ap.add_argument("--nodes", default="1000,10000,100000,1000000", help="node limits")
    args = ap.parse_args()
    sfens = list(BUILT_IN)
    for f in args.files:
        sfens += [p.sfen for p in read_problem_file(f) if p.sfen][: args.count]

    print(f"{len(sfens)} positions, post_search MinLength, 64 MB fresh table each")
    header = ("time limit", "engine max", "engine med", "wall max", "over limit")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (10, 11, 11, 9, 12))))
    for limit in [int(x) for x in args.times.split(",")]:
        engine, wall, over = [], [], 0
        for sfen in sfens:
            t = time.perf_counter()
            r = Solver(64).solve(sfen, time_limit_ms=limit)
            wall.append((time.perf_counter() - t) * 1000)
            engine.append(r.time_ms)
            over += r.time_ms > limit
        print(
            f"{limit:>8}ms {max(engine):>9}ms {statistics.median(engine):>9.0f}ms "
            f"{max(wall):>7.0f}ms {over:>12}"
        )
    print()
    print(f"{'node limit':>10} {'max nodes':>10} {'max/limit':>10} {'line nodes max':>15}")
    for limit in [int(x) for x in args.nodes.split(",")]:
        nodes, lines = [], []
        for sfen in sfens:
            r = Solver(64).solve(sfen, nodes_limit=limit)
            nodes.append(r.nodes)
            lines.append(r.line_nodes)
        print(f"{limit:>10} {max(nodes):>10} {max(nodes) / limit:>10.3f} {max(lines):>15}")
    print()
    lines = []
    for sfen in sfens:
        r = Solver(64).solve(sfen, time_limit_ms=10000)
        if r.status == "mate":
            lines.append((r.line_nodes, r.nodes))
    if lines:
        share = [a / b for a, b in lines if b]
        print(
            f"line rebuild, unlimited but 10 s: {len(lines)} mates, line nodes median "
            f"{statistics.median(a for a, _ in lines):.0f}, max {max(a for a, _ in lines)}, "
            f"share of all nodes median {statistics.median(share):.1%}"
        )


if __name__ == "__main__":
    main()
