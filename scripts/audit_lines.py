#!/usr/bin/env python3
"""Is each answer's defence the longest? An audit of the mating lines of a bench_usi run.

    python -m scripts.audit_lines --jsonl run.jsonl --time 5000 \\
        problems/zukou.sfen problems/muso.sfen

`scripts.bench_usi` replays every line (legal, checks, ends in mate), but a valid
line may still be a wrong answer: at some move the defender had a reply that holds out
longer, so the line is shorter than what the defence can force. Every length verdict
("exact" included) takes the defender's choices on trust. This tool asks, for every
mating line in the JSONL records of ``python -m scripts.bench_usi --jsonl`` (any
engine's), whether any other reply at any defender move of the line holds out longer
than the line does from there: :func:`usi_mate.check` with the line as the main
line, defender questions only (``attacks=False``), no search of the problem itself
(``main_search=False``), futile interpositions judged by usi-mate's rule
(docs/FUTILE.md) unless ``--strict``.

One table row per engine and collection:
- audited: mating lines looked at (verdicts exact, longer, shorter, solved);
- longest: every other reply at every defender move is proven mated no later than the
  line says (within ``--time`` per line);
- longer with spare pieces: as longest, except that replies holding out longer exist,
  each leaving the attacker spare pieces (駒余り) where the line leaves none; composers
  take the line without spare pieces (docs/DFPN.md), and so does usi-mate;
- disputed: as longest, except that at some defender move a search bounded by the
  line's length finds no mate after a reply while the reply's own search finds one no
  longer than the line: lengths under the composers' count depend on the order of
  search (docs/FUTILE.md), so this is no flaw either way;
- longer reply: at some defender move a reply that is not a drop (a king move, a
  capture, a moved interposition) holds out longer than the line (a bounded search
  finds no mate within the line's length after it, and its own search no line as
  short), or escapes;
- longer drop: the reply that holds out longer is a drop interposition (at the end of
  a line: a drop the engine left out as futile and usi-mate's rule does not);
- undecided: no flaw found, but a question stayed open within the time;
- exact but flawed: lines at the label's length with a longer reply or drop.

Lengths are counted as usi-mate counts them (``--strict``: every reply). A longer drop
is a question of the futility rule itself; a longer reply is not, but the mate after
it may contain drops, and a more lenient rule could shorten it: the list under the
table gives the reply and its length for each flaw, to read or replay. The audit runs
this checkout's solver, so it finds what usi-mate's search can prove within the time.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass

from usi_mate import Solver, check
from usi_mate.problems import read_problem_file

COLUMNS = (
    "audited",
    "longest",
    "longer with spare pieces",
    "disputed",
    "longer reply",
    "longer drop",
    "undecided",
)
FLAWED = ("longer reply", "longer drop")


@dataclass
class Audit:
    """The audit of one engine's line on one problem."""

    engine: str
    collection: str
    id: str
    label: str | None
    length: int
    verdict: str  # the bench verdict: exact, longer, shorter, solved
    outcome: str  # one of COLUMNS[1:]
    move: int | None = None  # the defender move (1-based) where a longer reply was found
    reply: str = ""  # that reply (USI)
    holds: str = ""  # how long that reply holds out, as a phrase ("escapes", "more than ...")
    seconds: float = 0.0


def audit_line(
    sfen: str,
    moves: list[str],
    *,
    time_ms: int,
    solver: Solver,
    strict: bool = False,
) -> tuple[str, int | None, str, str]:
    """(outcome, move number, reply, how long it holds) for one mating line; see the module doc."""
    report = check(
        sfen,
        line=moves,
        time_limit_ms=time_ms,
        solver=solver,
        ignore_futile_interpositions=not strict,
        attacks=False,
        main_search=False,
    )
    return classify(report, len(moves))


def classify(report, n: int) -> tuple[str, int | None, str, str]:
    """:func:`audit_line`'s answer from the check's report on a line of ``n`` plies."""
    real, disputed, spare = [], [], []
    for a in report.alternatives:
        if a.kind == "escape":
            real.append(a)
        elif a.kind == "disputed":
            # The bounded search and the reply's own disagree (the check's kind:
            # under the composers' count lengths depend on the order of search).
            disputed.append(a)
        elif a.kind == "longer":
            if a.line and a.spare and not report.spare:
                # Composers take a defence after which no piece is left over (駒余り)
                # over a longer one that leaves some (docs/DFPN.md; so does
                # usi-mate's line): no flaw.
                spare.append(a)
            else:
                real.append(a)
    if real:
        # The first defender move with a longer reply; a reply that is no drop first.
        first = min(a.move_number for a in real)
        a = sorted((a for a in real if a.move_number == first), key=lambda a: a.move[1:2] == "*")[0]
        rest = n - first + 1
        if first > n:
            holds = "a drop usi-mate's rule does not count futile (the line ends before it)"
        elif a.kind == "escape":
            holds = "escapes"
        else:
            holds = f"more than the line's {rest} plies"
            if a.line:
                proven = "" if a.length_exact else ", not proven shortest"
                holds += f" (a {a.length}-ply line found after it{proven})"
        outcome = "longer drop" if a.move[1:2] == "*" else "longer reply"
        return outcome, first, a.move, holds
    if any(a.kind == "undecided" for a in report.alternatives) or not report.complete:
        return "undecided", None, "", ""
    if disputed:
        a = disputed[0]
        return "disputed", a.move_number, a.move, a.note
    if spare:
        return "longer with spare pieces", None, "", ""
    return "longest", None, "", ""


def table(audits: list[Audit]) -> str:
    """One markdown row per engine and collection, then one per engine over all."""
    keys: list[tuple[str, str]] = []
    for a in audits:
        if (a.engine, a.collection) not in keys:
            keys.append((a.engine, a.collection))
    engines = list(dict.fromkeys(a.engine for a in audits))
    rows = [
        "| collection | engine | " + " | ".join(COLUMNS) + " | exact but flawed | time |",
        "|---|---|" + "---:|" * (len(COLUMNS) + 2),
    ]

    def row(collection: str, engine: str, group: list[Audit]) -> str:
        counts = [len(group)] + [sum(a.outcome == c for a in group) for c in COLUMNS[1:]]
        flawed = sum(a.verdict == "exact" and a.outcome in FLAWED for a in group)
        spent = sum(a.seconds for a in group)
        cells = [str(c) for c in counts] + [str(flawed), f"{spent:,.0f} s"]
        return f"| {collection} | {engine} | " + " | ".join(cells) + " |"

    for collection in dict.fromkeys(c for _, c in keys):
        for engine in engines:
            group = [a for a in audits if a.engine == engine and a.collection == collection]
            if group:
                rows.append(row(collection, engine, group))
    if len({c for _, c in keys}) > 1:
        for engine in engines:
            rows.append(row("**all**", engine, [a for a in audits if a.engine == engine]))
    return "\n".join(rows)


def flaws(audits: list[Audit]) -> str:
    """One line per flawed or disputed answer: where, which reply, how long it holds out."""
    out = []
    for outcomes in (FLAWED, ("disputed",)):
        for a in audits:
            if a.outcome in outcomes:
                out.append(
                    f"- {a.engine} {a.id} ({a.length} plies, label {a.label}, {a.verdict}): "
                    f"move {a.move} {a.reply}: {a.holds} ({a.outcome})"
                )
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Audit every selected record, print the table and the flaws."""
    sfens: dict[str, str] = {}
    for path in args.files:
        for p in read_problem_file(path):
            if p.sfen is not None:
                sfens[p.id] = p.sfen
    only = re.compile(args.only) if args.only else None
    engines = set(args.engine) if args.engine else None
    records = []
    with open(args.jsonl, encoding="utf-8") as f:
        for text in f:
            if not text.strip():
                continue
            r = json.loads(text)
            # scripts.bench_usi sets `end` ("mate", or "futile" drops left) on valid lines only.
            if not r.get("end") or not r.get("moves"):
                continue
            if only is not None and not only.search(r["id"]):
                continue
            if engines is not None and r["engine"] not in engines:
                continue
            if r["id"] not in sfens:
                raise ValueError(f"{r['id']}: not in the problem files given")
            records.append(r)
    solver = Solver(args.hash)
    audits: list[Audit] = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    try:
        for r in records:
            start = time.perf_counter()
            outcome, move, reply, holds = audit_line(
                sfens[r["id"]], r["moves"], time_ms=args.time, solver=solver, strict=args.strict
            )
            a = Audit(
                r["engine"],
                r["collection"],
                r["id"],
                r.get("label"),
                len(r["moves"]),
                r["verdict"],
                outcome,
                move,
                reply,
                holds,
                round(time.perf_counter() - start, 3),
            )
            audits.append(a)
            if out:
                out.write(json.dumps(a.__dict__, ensure_ascii=False) + "\n")
                out.flush()
            where = f" at move {move} {reply}: {holds}" if move else ""
            print(f"{a.engine} {a.id}: {outcome}{where} ({a.seconds:.1f} s)", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted: the table of what was audited", file=sys.stderr)
    finally:
        if out:
            out.close()
    rule = "every reply counted (--strict)" if args.strict else "usi-mate's futility rule"
    print(f"Audit of {args.jsonl}: {args.time} ms a line, {args.hash} MB, {rule}\n")
    print(table(audits))
    listed = flaws(audits)
    if listed:
        print("\nLonger and disputed defences (move number, reply: how long it holds out):\n")
        print(listed)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        description="Audit the defence of every mating line in a scripts.bench_usi JSONL run.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    parser.add_argument("files", nargs="+", help="the problem files the run used")
    parser.add_argument(
        "--jsonl", required=True, metavar="RUN", help="scripts.bench_usi --jsonl output"
    )
    parser.add_argument("--time", type=int, default=5_000, metavar="MS", help="per line")
    parser.add_argument("--hash", type=int, default=256, metavar="MB", help="the solver's table")
    parser.add_argument("--engine", action="append", metavar="NAME", help="only these engines")
    parser.add_argument("--only", metavar="REGEX", help="problems whose id matches (re.search)")
    parser.add_argument("--strict", action="store_true", help="count every reply (no futility)")
    parser.add_argument("--out", metavar="OUT", help="write every audit here (JSONL)")
    args = parser.parse_args(argv)
    if args.time <= 0 or args.hash <= 0:
        parser.error("--time and --hash must be positive")
    try:
        return run(args)
    except (ValueError, OSError) as e:
        print(f"audit_lines: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
