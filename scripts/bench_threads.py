"""Threads on one problem: the same problems with 1 and N threads, in one run.

    python -m scripts.bench_threads problems/zukou.sfen problems/muso.sfen --hardest 20
    python -m scripts.bench_threads FILE --threads 1 2 4 --time 60

Each problem is solved with a fresh table (post_search MinLength by default) once per
thread count. With ``--hardest N`` a first pass solves every problem with one thread
and keeps the N that took longest among those it finished (the shortest mate proven);
``--rank-from FILE.jsonl`` takes that ranking from an earlier ``--jsonl`` output
instead. The table gives time, nodes (all threads'), length and whether the minimum was
proven, per thread count, and the speed-up of the total time against the first count;
a verdict or a proven length that differs between thread counts is printed as such
(it must never happen).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from usi_mate import Solver
from usi_mate.problems import read_problem_file


def solve(sfen: str, threads: int, args: argparse.Namespace) -> dict:
    """One solve with a fresh table; the record the table and --jsonl use."""
    solver = Solver(args.hash, threads=threads)
    start = time.perf_counter()
    r = solver.solve(sfen, time_limit_ms=int(args.time * 1000), post_search=args.post_search)
    wall = time.perf_counter() - start
    return {
        "threads": threads,
        "status": r.status,
        "length": r.mate_length,
        "proven": bool(r.min_length_proven),
        "nodes": r.nodes,
        "secs": round(wall, 3),
    }


def build_parser() -> argparse.ArgumentParser:
    """The command line: problem files, thread counts, limits, ranking, output."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("files", nargs="+", type=Path, help="problem files")
    ap.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=[1, 2],
        help="thread counts (first: the reference)",
    )
    ap.add_argument("--time", type=float, default=60.0, help="seconds a problem (default 60)")
    ap.add_argument("--hash", type=int, default=1024, help="table MB (default 1024)")
    ap.add_argument(
        "--post-search", default="MinLength", choices=["None", "UpperBound", "MinLength"]
    )
    ap.add_argument("--hardest", type=int, help="keep the N problems one thread takes longest on")
    ap.add_argument("--rank-from", type=Path, help="a --jsonl file of an earlier run to rank by")
    ap.add_argument("--jsonl", type=Path, help="write every solve as a JSON line here")
    return ap


def hardest(problems: list, args: argparse.Namespace, record) -> tuple[list, dict[str, dict]]:
    """The ``args.hardest`` problems the first thread count took longest on (among those
    it finished), ranked by a first pass or by ``--rank-from``; with their records of that
    pass, which the table then reuses."""
    first: dict[str, dict] = {}
    if args.rank_from:
        for line in args.rank_from.open():
            rec = json.loads(line)
            if rec["threads"] == args.threads[0]:
                first[rec["id"]] = rec
    else:
        for ident, sfen, _ in problems:
            first[ident] = record(ident, solve(sfen, args.threads[0], args))
            print(f"  ranking {ident}: {first[ident]['secs']:.2f} s", file=sys.stderr, flush=True)
    # Finished: the shortest mate proven, or with --post-search None a first proof.
    finished = args.post_search != "MinLength"
    done = [i for i, r in first.items() if r["status"] == "mate" and (r["proven"] or finished)]
    keep = set(sorted(done, key=lambda i: -first[i]["secs"])[: args.hardest])
    kept = [p for p in problems if p[0] in keep]
    return kept, ({} if args.rank_from else {i: r for i, r in first.items() if i in keep})


def print_table(rows: list[dict], ts: list[int]) -> int:
    """One line a problem (time, nodes, length per thread count, speed-ups), the totals;
    the number of problems whose verdict or proven length differs between counts."""
    head = (
        f"{'problem':<14}"
        + "".join(f" | {t}T {'secs':>7} {'nodes':>11} {'len':>4}" for t in ts)
        + " | speed-up"
    )
    print(head)
    print("-" * len(head))
    totals = {t: 0.0 for t in ts}
    nodes = {t: 0 for t in ts}
    differ = 0
    for row in rows:
        cells = ""
        for t in ts:
            r = row[t]
            totals[t] += r["secs"]
            nodes[t] += r["nodes"]
            length = (
                f"{r['length'] or '-'}{'' if r['proven'] else '?'}"
                if r["status"] == "mate"
                else r["status"]
            )
            cells += f" | {t}T {r['secs']:>7.2f} {r['nodes']:>11,} {length:>4}"
        ref = row[ts[0]]
        for t in ts[1:]:
            r = row[t]
            settled = "unknown" not in (ref["status"], r["status"])
            if (settled and ref["status"] != r["status"]) or (
                ref["proven"] and r["proven"] and ref["length"] != r["length"]
            ):
                differ += 1
                cells += f"  DIFFERS ({t}T)"
        speed = " ".join(f"{ref['secs'] / max(row[t]['secs'], 1e-6):.2f}" for t in ts[1:])
        print(f"{row['id']:<14}{cells} | {speed}")
    print("-" * len(head))
    cells = "".join(f" | {t}T {totals[t]:>7.1f} {nodes[t]:>11,} {'':>4}" for t in ts)
    speed = " ".join(f"{totals[ts[0]] / max(totals[t], 1e-6):.2f}" for t in ts[1:])
    print(f"{'total':<14}{cells} | {speed}")
    return differ


def main() -> int:
    """Run the comparison and print the table."""
    args = build_parser().parse_args()
    problems = []
    for f in args.files:
        problems += [(p.id, p.sfen, p.expected) for p in read_problem_file(f) if p.sfen]
    out = args.jsonl.open("w") if args.jsonl else None

    def record(ident: str, rec: dict) -> dict:
        rec = {"id": ident, **rec}
        if out:
            out.write(json.dumps(rec) + "\n")
            out.flush()
        return rec

    first: dict[str, dict] = {}
    if args.hardest:
        problems, first = hardest(problems, args, record)
    rows = []
    for ident, sfen, expected in problems:
        row = {"id": ident, "expected": expected}
        for t in args.threads:
            if t == args.threads[0] and ident in first:
                row[t] = first[ident]
            else:
                row[t] = record(ident, solve(sfen, t, args))
            print(f"  {ident} threads {t}: {row[t]['secs']:.2f} s", file=sys.stderr, flush=True)
        rows.append(row)
    differ = print_table(rows, args.threads)
    print(f"verdicts or proven lengths that differ: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
