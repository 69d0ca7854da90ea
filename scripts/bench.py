#!/usr/bin/env python3
"""Mate-suite benchmark: usi_mate's df-pn against cshogi.DfPn, same limits, same run.

    python -m scripts.bench                                  # the committed default set
    python -m scripts.bench --time 3000 problems/zukou.sfen problems/muso.sfen
    python -m scripts.bench --no-peer --markdown /tmp/bench.md
    USI_MATE_PROBLEMS=/path/to/collections python -m scripts.bench tendo.sfen

By default it runs problems/generated.sfen, mogami_tests.sfen and
komori_mate_engine_test.sfen, all in the repository (problems/SOURCES.md). A file
given by name alone that is not in the current folder is looked for in
problems/ and then in the folder that USI_MATE_PROBLEMS names, so collections the
repository does not carry can be benchmarked from where they are.

Every problem goes first to usi_mate, then to cshogi.DfPn, one at a time (one
thread each, never both at once), with the same time limit (--time) and, when
given, the same node limit (--nodes). Output is markdown: a header (machine,
commit, date, versions, limits), one table row per file, every wrong answer in
full, and the notes below, ready for docs/BENCHMARKS.md.

Problem files hold ``<sfen> # <expected> <id> [key=value ...]`` per line (read and
labels parsed by ``usi_mate.problems``, the one definition the batch tool and the tests
use), with expected ``N`` (mate in N plies), ``nomate``, ``nomate<=N`` (no mate within
N plies; a longer one may exist) or ``>=N`` (the shortest mate is at least N).

Scoring (the same for both engines). Every mate answer is replayed with cshogi
(``check_mate_line`` of scripts/mate_lines.py): each move legal, each attacker move a check, the
end checkmate.
- solved: the verdict agrees with the label. ``N``: a valid mating line (of any
  length: a line shows one defence only). ``nomate``: nomate. ``nomate<=N``:
  nomate, or a valid mating line longer than N. ``>=N``: a valid mating line of
  at least N plies.
- wrong: a mating line that fails the replay; nomate for a position labelled
  ``N`` or ``>=N``; a mate for ``nomate``; a mate of at most N plies for
  ``nomate<=N``. Every wrong answer is printed under the table.
- exact: valid mating lines whose length equals the label ``N``.
- Anything else (a limit reached, an error, a ``>=N`` line shorter than N) is
  neither solved nor wrong.

Timing. Wall time of the whole call: ``Solver.solve()`` for usi_mate (SFEN
parsing and line extraction included; the table is cleared before each problem,
outside the timing) and, inside the cshogi worker process, ``Board(sfen)`` +
``DfPn.search()`` + ``get_pv()``. "median" is over all problems of the file, a
search that hits the limit counting its full time. An answer that arrives later
than the time limit plus 2% (at least 50 ms) counts as unknown, for both engines.
"nps" is nodes / wall time as each engine counts nodes (not comparable between
engines). The ratio is the geometric mean of usi_mate's time / cshogi's time over
the problems both solved.

cshogi.DfPn.search() holds the GIL and has no time limit, so it runs in a
long-lived worker process fed through a pipe; at the time limit the worker is
killed, restarted and the problem recorded as unknown. search() returns only a
bool: True is a mate (its PV is replayed like ours); False is recorded as
"nomate" only when its node budget was not used up (``searched_node`` below the
limit), i.e. its search ended by disproving the root, within its depth limit set
to the same 4000 plies as usi_mate's; False with the budget used up is
"unknown". cshogi 1.1.0's Python API cannot size its table (--hash is ours only).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from importlib import metadata
from pathlib import Path

import cshogi
from tqdm import tqdm

import usi_mate
from usi_mate.problems import Expected, read_problem_file
from usi_mate.verify import only_futile_replies

try:  # python -m scripts.<tool> from the checkout's root
    from scripts.mate_lines import check_mate_line
except ImportError:  # python scripts/<tool>.py, or tests (scripts/ on the path)
    from mate_lines import check_mate_line

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = REPO / "problems"
# Committed, labelled with lengths, and quick: the generated set solves in about
# a minute (cshogi a few more), the other two in a second.
DEFAULT_FILES = [
    PROBLEMS / name
    for name in ("generated.sfen", "mogami_tests.sfen", "komori_mate_engine_test.sfen")
]
EXTRA_PROBLEMS_ENV = "USI_MATE_PROBLEMS"


def resolve_problem_file(path: Path) -> Path:
    """``path`` as given when it exists; a bare file name is also looked for in
    problems/ and in the folder that USI_MATE_PROBLEMS names."""
    if path.is_file() or path.parent != Path("."):
        return path
    folders = [PROBLEMS]
    extra = os.environ.get(EXTRA_PROBLEMS_ENV, "").strip()
    if extra:
        folders.append(Path(extra).expanduser())
    for folder in folders:
        if (folder / path).is_file():
            return folder / path
    return path


# Same as usi_mate's max_ply (csrc/dfpn.h): both engines cut paths at this depth.
# cshogi adds it to the root's move number into a uint16, so it must stay well below 65535.
PEER_MAX_DEPTH = 4000
# cshogi's default node budget (DfPn's constructor); set_max_search_node takes a C int.
PEER_DEFAULT_NODES = 2**32 - 1
PEER_MAX_NODES = 2**31 - 1
# Worker start-up (spawn + import cshogi) and pipe round trip allowance, seconds.
PEER_STARTUP_S = 60.0
PEER_GRACE_S = 1.0


def late_slack_s(limit_s: float) -> float:
    """How far past the time limit an answer may arrive (timer granularity): 2%, at least 50 ms."""
    return max(0.05, 0.02 * limit_s)


# --------------------------------------------------------------------------- problems


@dataclass(frozen=True)
class BenchProblem:
    """A labelled problem of a run: ``expected`` is :class:`usi_mate.problems.Expected`,
    the one definition of the file format and its labels."""

    sfen: str
    expected: Expected
    pid: str
    where: str  # file:line


def read_problems(path: Path, limit: int | None) -> list[BenchProblem]:
    """The first ``limit`` problems of ``path``; a malformed or unlabelled line ends the run
    with its place (a benchmark without a label measures nothing)."""
    problems: list[BenchProblem] = []
    for p in read_problem_file(path):
        where = f"{path.name}:{p.line}"
        if p.error is not None:
            raise SystemExit(f"{where}: {p.error}")
        if p.expected is None:
            raise SystemExit(f"{where}: expected '<sfen> # <expected> <id> ...' (no label)")
        problems.append(BenchProblem(p.sfen, p.expected, p.id, where))
        if limit is not None and len(problems) >= limit:
            break
    return problems


# --------------------------------------------------------------------------- answers


@dataclass
class Answer:
    """What an engine returned for one problem."""

    status: str  # "mate", "nomate" or "unknown"
    moves: list[str] = field(default_factory=list)
    nodes: int | None = None  # None when unknown (worker killed)
    seconds: float = 0.0
    error: str | None = None

    def describe(self) -> str:
        if self.status == "mate":
            return f"mate, {len(self.moves)} plies: {' '.join(self.moves)}"
        text = self.status
        if self.error:
            text += f" ({self.error})"
        return text


@dataclass(frozen=True)
class Verdict:
    outcome: str  # "solved", "wrong" or "unsolved"
    exact: bool = False
    reason: str = ""


def judge(problem: BenchProblem, answer: Answer, allow_futile_end: bool = False) -> Verdict:
    """Score one answer against the label (see the module docstring). With
    ``allow_futile_end`` a line may end where only futile interpositions remain
    (usi_mate's default count; cshogi's lines always end in checkmate)."""
    exp = problem.expected
    if answer.status == "mate":
        futile_end = only_futile_replies if allow_futile_end else None
        bad = check_mate_line(problem.sfen, answer.moves, futile_end=futile_end)
        if bad is not None:
            return Verdict("wrong", reason=f"mating line fails replay: {bad}")
        length = len(answer.moves)
        if exp.kind == "exact":
            return Verdict("solved", exact=length == exp.plies)
        if exp.kind == "nomate":
            return Verdict("wrong", reason="mate returned for a position labelled nomate")
        if exp.kind == "nomate_within":
            if length > exp.plies:
                return Verdict("solved")
            return Verdict(
                "wrong", reason=f"mate in {length} returned, label says no mate within {exp.plies}"
            )
        # at_least: a shorter line shows one (poor) defence only, so it is no contradiction
        if length >= exp.plies:
            return Verdict("solved")
        return Verdict(
            "unsolved",
            reason=f"line of {length} plies, label says the shortest mate is >= {exp.plies}",
        )
    if answer.status == "nomate":
        if exp.kind in ("exact", "at_least"):
            return Verdict("wrong", reason=f"nomate returned, label says {exp.text}")
        return Verdict("solved")
    return Verdict("unsolved", reason=answer.error or "limit reached")


def enforce_time_limit(answer: Answer, limit_s: float) -> Answer:
    """Demote an answer that arrived after the time limit (plus slack) to unknown."""
    if answer.status != "unknown" and answer.seconds > limit_s + late_slack_s(limit_s):
        return Answer(
            "unknown",
            [],
            answer.nodes,
            answer.seconds,
            f"answered after the time limit ({answer.seconds:.2f} s)",
        )
    return answer


# --------------------------------------------------------------------------- engines


class Ours:
    """usi_mate's Solver, one table reused (and cleared) for every problem."""

    def __init__(
        self, hash_mb: int, time_ms: int, nodes: int | None, post_search: str, strict: bool
    ) -> None:
        self.solver = usi_mate.Solver(hash_mb=hash_mb)
        self.time_ms = time_ms
        self.nodes = nodes
        self.options = {"post_search": post_search, "ignore_futile_interpositions": not strict}

    def solve(self, sfen: str) -> Answer:
        self.solver.clear()  # a fresh table per problem, outside the timing
        start = time.perf_counter()
        res = self.solver.solve(
            sfen, time_limit_ms=self.time_ms, nodes_limit=self.nodes, **self.options
        )
        wall = time.perf_counter() - start
        return Answer(res.status, list(res.moves), res.nodes, wall, res.error)


def _peer_worker(conn, max_depth: int, nodes: int | None) -> None:
    """cshogi worker process: receives SFENs, sends (found, pv, searched_node, seconds, error)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops us
    dfpn = cshogi.DfPn()
    dfpn.set_max_depth(max_depth)
    if nodes is not None:
        dfpn.set_max_search_node(nodes)
    conn.send("ready")
    while True:
        try:
            sfen = conn.recv()
        except EOFError:
            return
        if sfen is None:
            return
        start = time.perf_counter()
        try:
            board = cshogi.Board(sfen)
        except RuntimeError as e:  # cshogi: "incorrect SFEN string"
            conn.send(
                (False, [], 0, time.perf_counter() - start, f"cshogi cannot read the SFEN: {e}")
            )
            continue
        found = dfpn.search(board)
        pv = [cshogi.move_to_usi(m) for m in dfpn.get_pv(board)] if found else []
        seconds = time.perf_counter() - start
        conn.send((found, pv, dfpn.searched_node, seconds, None))


class Peer:
    """cshogi.DfPn in a long-lived worker process, killed and restarted at the time limit."""

    def __init__(self, time_ms: int, nodes: int | None) -> None:
        self.limit_s = time_ms / 1000.0
        self.nodes = nodes
        self.node_budget = PEER_DEFAULT_NODES if nodes is None else nodes
        # spawn, not fork: the parent has threads (tqdm) and a large table
        self.ctx = mp.get_context("spawn")
        self.proc = None
        self.conn = None
        self.restarts = 0
        self.timeouts = 0
        self.busy = False
        self._start()

    def _start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(
            target=_peer_worker,
            args=(child, PEER_MAX_DEPTH, self.nodes),
            daemon=True,
            name="cshogi-dfpn",
        )
        self.proc.start()
        child.close()
        self.conn = parent
        try:
            started = parent.poll(PEER_STARTUP_S) and parent.recv() == "ready"
        except (EOFError, OSError):
            started = False
        if not started:
            self._kill()
            raise RuntimeError("the cshogi worker did not start (see its error above)")

    def _kill(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.proc.kill()
        if self.proc is not None:
            self.proc.join()
        if self.conn is not None:
            self.conn.close()
        self.proc = self.conn = None

    def _restart(self) -> None:
        self._kill()
        self.restarts += 1
        self._start()

    def close(self) -> None:
        """Stop the worker: politely when idle, at once when a search is still running."""
        try:
            if self.proc is not None and self.proc.is_alive() and not self.busy:
                self.conn.send(None)
                self.proc.join(timeout=5)
        except (BrokenPipeError, OSError):
            pass
        finally:
            self._kill()

    def solve(self, sfen: str) -> Answer:
        if not self.proc.is_alive():  # died between problems: start a fresh one
            self._restart()
        self.busy = True  # until the answer is read (an interrupt may leave it searching)
        start = time.perf_counter()
        try:
            self.conn.send(sfen)
        except (BrokenPipeError, OSError):  # died just now: once more with a fresh worker
            self._restart()
            self.busy = True
            start = time.perf_counter()
            self.conn.send(sfen)
        wait = self.limit_s + late_slack_s(self.limit_s) + PEER_GRACE_S
        ready = self.conn.poll(wait)
        self.busy = False
        if not ready:
            self.timeouts += 1
            self._restart()
            return Answer("unknown", [], None, self.limit_s, None)  # killed at the limit
        try:
            found, pv, nodes, seconds, error = self.conn.recv()
        except (EOFError, OSError):
            wall = time.perf_counter() - start
            self.proc.join(timeout=5)
            code = self.proc.exitcode
            self._restart()
            return Answer("unknown", [], None, wall, f"cshogi worker died (exit code {code})")
        if error is not None:
            return Answer("unknown", [], nodes, seconds, error)
        if found:
            return Answer("mate", pv, nodes, seconds)
        if nodes >= self.node_budget:
            return Answer("unknown", [], nodes, seconds)
        return Answer("nomate", [], nodes, seconds)


# --------------------------------------------------------------------------- results


@dataclass
class Record:
    problem: BenchProblem
    ours: Answer
    ours_verdict: Verdict
    peer: Answer | None = None
    peer_verdict: Verdict | None = None


@dataclass
class FileResult:
    name: str
    records: list[Record] = field(default_factory=list)


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1.0:
        return f"{seconds * 1000:.3g} ms"
    return f"{seconds:.2f} s"


def fmt_rate(nodes: int, seconds: float) -> str:
    if seconds <= 0 or nodes <= 0:
        return "-"
    nps = nodes / seconds
    if nps >= 1e6:
        return f"{nps / 1e6:.2f}M"
    if nps >= 1e3:
        return f"{nps / 1e3:.0f}k"
    return f"{nps:.0f}"


def geomean_ratio(pairs: list[tuple[float, float]]) -> float | None:
    if not pairs:
        return None
    tiny = 1e-6  # guards a zero reading; real times are well above it
    return math.exp(statistics.fmean(math.log(max(a, tiny) / max(b, tiny)) for a, b in pairs))


def engine_cells(answers: list[Answer], verdicts: list[Verdict], with_total: bool) -> list[str]:
    solved = sum(v.outcome == "solved" for v in verdicts)
    wrong = sum(v.outcome == "wrong" for v in verdicts)
    exact = sum(v.exact for v in verdicts)
    times = [a.seconds for a in answers]
    counted = [a for a in answers if a.nodes is not None]
    nodes = sum(a.nodes for a in counted)
    node_secs = sum(a.seconds for a in counted)
    cells = [
        str(solved),
        f"**{wrong}**" if wrong else "0",
        str(exact),
        fmt_time(statistics.median(times) if times else None),
    ]
    if with_total:
        cells.append(fmt_time(sum(times)))
    cells.append(fmt_rate(nodes, node_secs))
    return cells


def table_row(name: str, records: list[Record], with_peer: bool) -> list[str]:
    row = [name, str(len(records))]
    row += engine_cells(
        [r.ours for r in records], [r.ours_verdict for r in records], with_total=True
    )
    if with_peer:
        row += engine_cells(
            [r.peer for r in records], [r.peer_verdict for r in records], with_total=False
        )
        pairs = [
            (r.ours.seconds, r.peer.seconds)
            for r in records
            if r.ours_verdict.outcome == "solved" and r.peer_verdict.outcome == "solved"
        ]
        ratio = geomean_ratio(pairs)
        row.append("-" if ratio is None else f"{ratio:.2f}x (n={len(pairs)})")
    return row


def render_table(results: list[FileResult], with_peer: bool) -> list[str]:
    head = [
        "file",
        "problems",
        "ours solved",
        "ours wrong",
        "ours exact",
        "ours median",
        "ours total",
        "ours nps",
    ]
    if with_peer:
        head += [
            "cshogi solved",
            "cshogi wrong",
            "cshogi exact",
            "cshogi median",
            "cshogi nps",
            "ours/cshogi time",
        ]
    rows = [table_row(fr.name, fr.records, with_peer) for fr in results if fr.records]
    if len(rows) > 1:
        everything = [r for fr in results for r in fr.records]
        rows.append(table_row("**all**", everything, with_peer))
    numeric = [""] + ["---:"] * (len(head) - 1)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(a or "---" for a in numeric) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render_wrong(results: list[FileResult], with_peer: bool) -> list[str]:
    lines = []
    for fr in results:
        for r in fr.records:
            cases = [("usi_mate", r.ours, r.ours_verdict)]
            if with_peer:
                cases.append(("cshogi", r.peer, r.peer_verdict))
            for engine, ans, verdict in cases:
                if verdict.outcome != "wrong":
                    continue
                p = r.problem
                lines += [
                    (
                        f"- **{engine}** `{p.pid}` ({p.where}): expected `{p.expected.text}`, "
                        f"returned {ans.status} in {fmt_time(ans.seconds)}; {verdict.reason}"
                    ),
                    f"  - sfen: `{r.problem.sfen}`",
                    f"  - returned: `{ans.describe()}`",
                ]
    return lines


def render_errors(results: list[FileResult], with_peer: bool) -> list[str]:
    """Searches that ended in an error (not a limit), grouped by message."""
    groups: dict[tuple[str, str], list[str]] = {}
    for fr in results:
        for r in fr.records:
            answers = [("usi_mate", r.ours)] + ([("cshogi", r.peer)] if with_peer else [])
            for engine, ans in answers:
                if ans.error:
                    groups.setdefault((engine, ans.error), []).append(r.problem.pid)
    lines = []
    for (engine, error), ids in sorted(groups.items()):
        shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        lines.append(f"- {engine}: {error}: {len(ids)} ({shown})")
    return lines


# --------------------------------------------------------------------------- environment


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def git_commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    try:
        if git("status", "--porcelain", "--untracked-files=no"):
            commit += " (with uncommitted changes)"
    except (OSError, subprocess.SubprocessError):
        pass
    return commit


def version_of(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


LEGEND_NO_PEER = (
    "solved: verdict agrees with the label (mate lines replayed with cshogi); "
    "wrong: contradicts the label, or a line fails replay; "
    "exact: line length equals the label N; "
    "median: over all problems, a search hitting the limit counting its full time; "
    "nps: nodes / wall time. Definitions: scripts.bench."
)
LEGEND = LEGEND_NO_PEER + (
    " ours/cshogi time: geometric mean of the time ratio over problems both solved "
    "(below 1: usi_mate faster). nps counts each engine's own nodes (not comparable). "
    "cshogi's False counts as nomate only when its node budget was not used up."
)


def render_header(args: argparse.Namespace, with_peer: bool) -> list[str]:
    engines = f"usi_mate {usi_mate.__version__}"
    if with_peer:
        engines += f", cshogi {version_of('cshogi')} (DfPn, max depth {PEER_MAX_DEPTH})"
    nodes = "none" if args.nodes is None else f"{args.nodes:,}"
    return [
        f"- date: {datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}",
        (
            f"- machine: {cpu_model()}, {os.cpu_count()} cores, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
        ),
        f"- load average at start: {load_average()} (other work on the machine skews times)",
        f"- commit: {git_commit()}",
        f"- engines: {engines}",
        (
            f"- limits per problem: {args.time} ms, nodes {nodes}; hash {args.hash} MB (usi_mate); "
            "one thread each, problems run one at a time"
        ),
        (
            f"- usi_mate: PostSearchLevel {args.post_search}, futile interpositions "
            f"{'counted (strict)' if args.strict else 'ignored'}"
        ),
    ]


# --------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    """The command line: problem files, limits, usi_mate's options, the report file."""
    ap = argparse.ArgumentParser(
        description="usi_mate against cshogi.DfPn on mate-problem files, same limits, same run."
    )
    ap.add_argument(
        "files",
        nargs="*",
        type=Path,
        help="problem files (default: problems/generated.sfen, mogami_tests.sfen and "
        "komori_mate_engine_test.sfen; a bare name is also looked for in problems/ and "
        f"${EXTRA_PROBLEMS_ENV})",
    )
    ap.add_argument(
        "--time",
        type=int,
        default=10000,
        metavar="MS",
        help="time limit per problem (default 10000)",
    )
    ap.add_argument(
        "--nodes", type=int, default=None, metavar="N", help="node limit per problem, both engines"
    )
    ap.add_argument(
        "--limit", type=int, default=None, metavar="N", help="first N problems of each file"
    )
    ap.add_argument(
        "--hash", type=int, default=256, metavar="MB", help="usi_mate table size (default 256)"
    )
    ap.add_argument("--no-peer", action="store_true", help="skip cshogi")
    ap.add_argument(
        "--post-search",
        choices=("None", "UpperBound", "MinLength"),
        default="MinLength",
        help="usi_mate's PostSearchLevel (default MinLength; None compares first proofs, "
        "as cshogi gives)",
    )
    ap.add_argument(
        "--strict",
        action="store_true",
        help="count futile interpositions as resistance (the yaneuraou labels do)",
    )
    ap.add_argument(
        "--markdown", type=Path, default=None, metavar="FILE", help="also write the report here"
    )
    return ap


def problem_sets(
    ap: argparse.ArgumentParser, args: argparse.Namespace
) -> list[tuple[Path, list[BenchProblem]]]:
    """The limits checked and every file's problems read; a bad argument ends the run."""
    if args.time <= 0:
        ap.error("--time must be positive")
    if args.nodes is not None and not 1 <= args.nodes <= PEER_MAX_NODES:
        ap.error(f"--nodes must be from 1 to {PEER_MAX_NODES} (cshogi's limit is a C int)")
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    files = [resolve_problem_file(p) for p in args.files] or DEFAULT_FILES
    for path in files:
        if not path.is_file():
            hint = (
                ""
                if os.environ.get(EXTRA_PROBLEMS_ENV)
                else (
                    f" (set {EXTRA_PROBLEMS_ENV} to the folder of collections the repository "
                    "does not carry)"
                )
            )
            ap.error(f"no such problem file: {path}{hint}")
    return [(path, read_problems(path, args.limit)) for path in files]


def run_all(
    args: argparse.Namespace, sets: list[tuple[Path, list[BenchProblem]]], peer: Peer | None
) -> tuple[list[FileResult], bool]:
    """Every problem to usi_mate, then to the peer; (the results, interrupted by Ctrl-C)."""
    limit_s = args.time / 1000.0
    ours = Ours(args.hash, args.time, args.nodes, args.post_search, args.strict)
    results: list[FileResult] = []
    bar = tqdm(
        total=sum(len(ps) for _, ps in sets),
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
        unit="problem",
        dynamic_ncols=True,
    )
    try:
        for path, problems in sets:
            fr = FileResult(path.name)
            results.append(fr)
            bar.set_description(path.name)
            for problem in problems:
                ans = enforce_time_limit(ours.solve(problem.sfen), limit_s)
                rec = Record(problem, ans, judge(problem, ans, allow_futile_end=not args.strict))
                if peer is not None:
                    pans = enforce_time_limit(peer.solve(problem.sfen), limit_s)
                    rec.peer, rec.peer_verdict = pans, judge(problem, pans)
                fr.records.append(rec)
                bar.update(1)
    except KeyboardInterrupt:
        return results, True
    finally:
        # a second Ctrl-C must not leave the cshogi worker running: cleanup is quick
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        bar.close()
        if peer is not None:
            peer.close()
        signal.signal(signal.SIGINT, previous)
    return results, False


def report(
    header: list[str], results: list[FileResult], peer: Peer | None, interrupted: int | None
) -> str:
    """The markdown report: header, table, wrong answers, errors, legend. ``interrupted``:
    the number of problems the run was to have, when Ctrl-C cut it short."""
    with_peer = peer is not None
    out = [
        "## Mate-suite benchmark: usi_mate vs cshogi.DfPn"
        if with_peer
        else "## Mate-suite benchmark: usi_mate",
        "",
    ]
    out += header
    if interrupted is not None:
        done = sum(len(fr.records) for fr in results)
        out.append(f"- **interrupted** after {done} of {interrupted} problems: partial results")
    out += [""] + render_table(results, with_peer) + [""]
    wrong = render_wrong(results, with_peer)
    out += ["### Wrong answers", ""] + (wrong or ["none"]) + [""]
    errors = render_errors(results, with_peer)
    if errors:
        out += ["### Searches that ended in an error", ""] + errors + [""]
    if peer is not None and peer.timeouts:
        out += [f"cshogi worker killed at the time limit {peer.timeouts} time(s).", ""]
    out.append(LEGEND if with_peer else LEGEND_NO_PEER)
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    sets = problem_sets(ap, args)
    with_peer = not args.no_peer
    header = render_header(args, with_peer)  # date and load as the run starts
    peer = Peer(args.time, args.nodes) if with_peer else None
    results, interrupted = run_all(args, sets, peer)
    total = sum(len(ps) for _, ps in sets)
    text = report(header, results, peer, total if interrupted else None)
    sys.stdout.write(text)
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
    # exit status 1 flags usi_mate's own wrong answers (cshogi's are reported, not failed on)
    has_wrong = any(r.ours_verdict.outcome == "wrong" for fr in results for r in fr.records)
    return 130 if interrupted else (1 if has_wrong else 0)


if __name__ == "__main__":
    sys.exit(main())
