"""The first call a script writes: ``usi_mate.solve(sfen)`` against cshogi's one call.

    USI_MATE_PROBLEMS=/path/to/collections python -m scripts.one_call   # + yaneuraou mate 3, 7

Mean time a call over distinct positions in one process, without node limits (as a
script calls it): ``solve(sfen)`` with every default, ``solve(sfen, post_search="None",
ignore_futile_interpositions=False, hash_mb=64)`` (a first proof under the strict count,
as cshogi answers) and cshogi's ``Board(sfen)``, ``DfPn()``, ``search``, ``get_pv``. Each
column takes its own slice of the set, so no table or cache has seen a position before
(the first of each slice is a warm-up, not timed). ``scripts.call_cost`` measures
positions a second with a node limit; this is the call as written in the README.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import cshogi

from usi_mate import solve
from usi_mate.problems import read_problem_file

from .call_cost import find

SETS = [
    ("nshogi mate-1", "nshogi_mate1.sfen"),
    ("yaneuraou mate 3", "yaneuraou500m_mate3.sfen"),
    ("yaneuraou mate 7", "yaneuraou500m_mate7.sfen"),
]


def cshogi_call(sfen: str) -> None:
    """cshogi's one call: a board, a DfPn, the search and the line."""
    board, dfpn = cshogi.Board(sfen), cshogi.DfPn()
    if dfpn.search(board):
        dfpn.get_pv(board)


def main() -> None:
    """Print the table: microseconds a call, each way, each set found."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=300, help="positions a column (default 300)")
    args = ap.parse_args()
    calls: list[tuple[str, Callable[[str], object]]] = [
        ("defaults", lambda s: solve(s)),
        (
            "strict first proof",
            lambda s: solve(s, post_search="None", ignore_futile_interpositions=False, hash_mb=64),
        ),
        ("cshogi", cshogi_call),
    ]
    print(
        '| positions | `solve(sfen)`, defaults | `solve(sfen, post_search="None", '
        "ignore_futile_interpositions=False, hash_mb=64)` | cshogi: `Board(sfen)`, `DfPn()`, "
        "`search`, `get_pv` |"
    )
    print("|---|---:|---:|---:|")
    for label, name in SETS:
        path = find(name)
        if path is None:
            continue
        sfens = [p.sfen for p in read_problem_file(path) if p.sfen]
        cells = []
        for k, (_, call) in enumerate(calls):
            part = sfens[k * args.count : (k + 1) * args.count]
            call(part[0])  # (the kept Solver, imports, caches)
            start = time.perf_counter()
            for sfen in part[1:]:
                call(sfen)
            cells.append((time.perf_counter() - start) / (len(part) - 1) * 1e6)
        row = " | ".join(f"{c:,.0f} µs" for c in cells)
        print(f"| {label} ({args.count - 1} a column) | {row} |")


if __name__ == "__main__":
    main()
