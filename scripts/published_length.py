"""Is there a mate within the published length? One bounded search per problem.

    python -m scripts.published_length --nodes 200000000 --only 'zukou-0(15|31)' \
        problems/zukou.sfen problems/muso.sfen

When our answer differs from a problem's published length, the first thing to know is
whether the published length can be reached by our count at all. This asks each
problem with an exact label N "is there a mate within N plies?" (``max_length=N``, a
fresh table, node-limited, so a run is the same on any machine), by default under the
composers' count (futile interpositions left out, docs/FUTILE.md) and, with
``--strict``, under the strict count as well. Each answer is one of:

- ``mate N'``: a mate within N was found (N' plies; ``min`` when N' is proven the
  shortest). The published length is reachable, our longer answer was the time.
- ``none within N``: no mate within N plies, proven. The published length counts the
  solution otherwise (a record, a transcription, another futility rule) or the book's
  line is refuted: more time cannot bring our answer to it.
- ``cut``: none found, but a futility judgement was cut at its sub-search cap, so
  nothing is proven (the composers' count only; a length of 21 or less is asked with
  every judgement settled from the start). ``--uncapped`` asks those again with every
  judgement settled (no cap on any sub-search, each drop judged against the other
  replies' shortest mates: docs/FUTILE.md).
- ``open``: the node limit came first.

A row's nodes and time are its searches' together (a search that finds a mate goes on to
the shortest within its limit). The table ends with the count of each answer, the
composers' count's as settled as it got. ``--jsonl`` keeps every answer.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

from usi_mate import SearchRequest, Solver
from usi_mate.problems import read_problem_file
from usi_mate.settings import MAX_FUTILITY_NODE_CAP

# Every futility judgement settled: no cap at all, which is also what makes the search
# judge drops against the other replies' shortest mates.
UNCAPPED = MAX_FUTILITY_NODE_CAP


def ask_within(
    sfen: str,
    max_length: int,
    nodes: int,
    cap: int = 0,
    futile: bool = True,
    hash_mb: int = 256,
) -> dict:
    """Whether ``sfen`` has a mate within ``max_length`` plies (0: any; a fresh table of
    ``hash_mb`` MB, at most ``nodes`` nodes, MinLength within it, no share of work),
    under the composers' count (``futile``) or the strict one, each futility judgement
    first asked with a ``cap``-node sub-search (SearchRequest.futility_node_cap; 0: the
    search's own, none for a bound of 21 plies or less; UNCAPPED: none, drops judged
    against the other replies' shortest mates). A dict: ``status``, ``plies``,
    ``min_length`` (0: not proven), ``stop_reason``, ``cut`` (no mate found, but a
    judgement was cut short, so "no mate within" is not proven) and ``nodes``."""
    request = SearchRequest(
        nodes_limit=nodes,
        max_length=max_length or None,
        futility_node_cap=cap or None,
        ignore_futile_interpositions=futile,
        min_length_effort=0,
    )
    r = Solver(hash_mb).search(sfen, request)
    # A refutation within the length that rests on a cut judgement ends with no stop
    # reason and a note, not "length".
    cut = r.status == "unknown" and r.stop_reason is None and r.error is not None
    return dict(
        status=r.status,
        plies=len(r.moves),
        min_length=r.min_length or 0,
        stop_reason=r.stop_reason,
        cut=cut,
        nodes=r.nodes,
    )


def verdict(answer: dict, published: int) -> str:
    """One word for an ask_within answer (see the module docstring)."""
    if answer["status"] == "mate":
        return f"mate {answer['plies']}" + (" min" if answer["min_length"] else "")
    if answer["stop_reason"] == "length":  # (a bounded search never answers plain "nomate")
        return f"none within {published}"
    return "cut" if answer["cut"] else "open"


def kind(text: str) -> str:
    """The answer's kind for the summary: mate, none within, cut or open."""
    return "none within" if text.startswith("none") else text.split()[0]


def main(argv: list[str] | None = None) -> int:
    """Run the bounded searches and print one table row per problem, then the counts."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="problem files with exact labels")
    ap.add_argument("--nodes", type=float, default=20e6, help="each search's node limit (20 M)")
    ap.add_argument("--hash", type=int, default=1024, help="table size in MB (default 1024)")
    ap.add_argument("--only", help="problems whose id matches (re.search)")
    ap.add_argument("--strict", action="store_true", help="ask under the strict count too")
    ap.add_argument(
        "--uncapped", action="store_true", help="ask a cut answer again, every judgement settled"
    )
    ap.add_argument("--jsonl", help="write every answer here")
    args = ap.parse_args(argv)

    nodes = int(args.nodes)
    counts: dict[str, int] = {}
    out = open(args.jsonl, "w") if args.jsonl else None
    header = ["problem", "published", "composers' count"]
    if args.uncapped:
        header.append("uncapped")
    if args.strict:
        header.append("strict")
    header += ["nodes", "time"]
    print("| " + " | ".join(header) + " |")
    numeric = ("published", "nodes", "time")
    print("|" + "|".join("---:" if h in numeric else "---" for h in header) + "|")
    for path in args.files:
        for p in read_problem_file(path):
            if p.sfen is None or p.expected is None or p.expected.kind != "exact":
                continue
            if args.only and not re.search(args.only, p.id):
                continue
            n = p.expected.plies
            t = time.monotonic()
            asks = {"composers": ask_within(p.sfen, n, nodes, 0, True, args.hash)}
            cells = [verdict(asks["composers"], n)]
            if args.uncapped:
                if asks["composers"]["cut"]:
                    asks["uncapped"] = ask_within(p.sfen, n, nodes, UNCAPPED, True, args.hash)
                    cells.append(verdict(asks["uncapped"], n))
                else:
                    cells.append("")
            if args.strict:
                asks["strict"] = ask_within(p.sfen, n, nodes, 0, False, args.hash)
                cells.append(verdict(asks["strict"], n))
            seconds = time.monotonic() - t
            total = sum(a["nodes"] for a in asks.values())
            # The composers' count as settled as it gets: uncapped when asked again.
            final = cells[1] if args.uncapped and cells[1] else cells[0]
            counts[kind(final)] = counts.get(kind(final), 0) + 1
            row = [p.id, str(n), *cells, f"{total / 1e6:.1f} M", f"{seconds:.1f} s"]
            print("| " + " | ".join(row) + " |", flush=True)
            if out:
                record = dict(id=p.id, published=n, seconds=round(seconds, 2), **asks)
                out.write(json.dumps(record) + "\n")
                out.flush()
    if out:
        out.close()
    print()
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{sum(counts.values())} problems, {nodes / 1e6:g} M nodes each: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
