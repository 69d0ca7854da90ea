"""The search's fingerprint: a fixed set of node-limited searches, printed as one digest.

    python -m scripts.fingerprint                 # digest and per-kind counts
    python -m scripts.fingerprint --out fp.txt    # also every search's row, to diff two builds

A change that only reorganises the code (a refactor of the search's pieces) must leave
every search the same, node for node. This runs searches whose results depend only on
the build, never on the machine (one thread, a fresh table each, node limits instead of
time), and hashes what each returned:

- ``first``: first proofs (``post_search="None"``) of 図巧 and 無双, 1 M nodes each;
- ``minlen``: the shortest-mate search (``MinLength``, the default share) on the first
  120 generated mates of 9 plies or more, 400 k nodes each;
- ``strict``: strict count (every interposition counted) with MinLength on the next 120;
- ``upper``: ``UpperBound`` on the 無双 problems, 400 k nodes each;
- ``certify``: certified "no mate" answers on the generated problems labelled no mate
  (the first 100), with the certificate's size.

A row is the kind, the problem, the status, the nodes, the line's nodes, the length
claims, the moves and (for ``certify``) the certificate's status and size. Two builds
whose digests are equal answered every search identically.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Iterator
from pathlib import Path

from usi_mate import Solver
from usi_mate.problems import Problem, read_problem_file

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"


def _problems(name: str) -> list[Problem]:
    return list(read_problem_file(PROBLEMS / name))


def _searches() -> Iterator[tuple[str, Problem, dict[str, object]]]:
    """(kind, problem, keyword arguments of Solver.solve) for every search of the print."""
    for name in ("zukou.sfen", "muso.sfen"):
        for p in _problems(name):
            yield "first", p, {"post_search": "None", "nodes_limit": 1_000_000}
    generated = _problems("generated.sfen")
    # mates of 9 plies or more: the shorter ones are settled before the share matters
    mates = [
        p
        for p in generated
        if p.expected and p.expected.kind == "exact" and (p.expected.plies or 0) >= 9
    ]
    nomates = [p for p in generated if p.expected and p.expected.kind == "nomate"]
    for p in mates[:120]:
        yield "minlen", p, {"nodes_limit": 400_000}
    for p in mates[120:240]:
        yield "strict", p, {"nodes_limit": 400_000, "ignore_futile_interpositions": False}
    for p in _problems("muso.sfen"):
        yield "upper", p, {"post_search": "UpperBound", "nodes_limit": 400_000}
    for p in nomates[:100]:
        yield "certify", p, {"nodes_limit": 400_000, "certify": True}


def main() -> None:
    """Run the print's searches and write the digest (and with --out, every row)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="write every search's row to this file")
    ap.add_argument("--hash", type=int, default=256, help="table size in MB (default 256)")
    args = ap.parse_args()
    solver = Solver(args.hash)
    digest = hashlib.sha256()
    counts: dict[str, int] = {}
    nodes: dict[str, int] = {}
    rows = []
    for kind, problem, kwargs in _searches():
        solver.clear()
        r = solver.solve(problem.sfen, **kwargs)  # type: ignore[arg-type]
        cert = r.certification
        row = "\t".join(
            str(x)
            for x in (
                kind,
                problem.id,
                r.status,
                r.nodes,
                r.line_nodes,
                r.min_length,
                r.shortest_possible,
                " ".join(r.moves),
                cert.status if cert else "",
                cert.nodes if cert else "",
            )
        )
        rows.append(row)
        digest.update(row.encode() + b"\n")
        counts[kind] = counts.get(kind, 0) + 1
        nodes[kind] = nodes.get(kind, 0) + r.nodes
    if args.out:
        Path(args.out).write_text("\n".join(rows) + "\n", encoding="utf-8")
    for kind in counts:
        print(f"{kind:8s} {counts[kind]:4d} searches {nodes[kind]:>12,} nodes")
    print(f"fingerprint {digest.hexdigest()[:16]} ({len(rows)} searches)")


if __name__ == "__main__":
    main()
