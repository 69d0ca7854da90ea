"""Batch solving: ``usi-mate solve`` on problem files, and :func:`solve_many` for scripts.

Input is the problem-file format of the shared collections, one position a line::

    <position> # <expected> <id> [key=value ...]

where ``<position>`` is a bare SFEN, ``sfen <sfen> [moves ...]`` or ``startpos
[moves ...]`` and ``<expected>`` is ``N`` (a mate in exactly N plies), ``nomate``,
``nomate<=N`` (no mate within N plies; a longer one may exist) or ``>=N`` (the
shortest mate is at least N plies). Blank lines and lines that start with ``#``
are skipped.

Results always come out in input order. With ``jobs > 1`` the problems are
solved in worker processes, each with its own :class:`Solver` (and table); a
bounded window of problems is in flight, so memory stays flat on long inputs.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass, field
from typing import Any

from ._core import MAX_HASH_MB, POST_SEARCH_LEVELS, Position, Solver
from .types import MateResult

__all__ = ["Expected", "Problem", "main", "parse_problem_line", "solve_many"]

PROG = "usi-mate solve"

# How many problems may be in flight (submitted, result not yet written), per
# worker. Results leave in input order, so a slow problem at the head holds
# back the finished ones behind it: while one worker is on it, the others can
# finish 8*jobs-1 problems before they run out of work. A lazy input
# (solve_many on a generator) is read at most 8*jobs items ahead.
WINDOW_PER_JOB = 8

# How often the CLI's wait loop wakes to look at the Ctrl-C flag. The searches
# themselves never wait on this: it only bounds how late a stop is noticed.
POLL_SECONDS = 0.05


# ---------------------------------------------------------------------------
# Problem lines


_EXPECTED_RE = re.compile(r"^(?:(?P<exact>\d+)|nomate|nomate<=(?P<within>\d+)|>=(?P<least>\d+))$")
# A comment token that tries to be a label but is not one ("9x", "nomate<5"),
# as opposed to a plain id ("tendo-banqueta-001"): reject it instead of
# silently reading the line as unlabelled.
_LABEL_LIKE_RE = re.compile(r"^(?:\d|nomate|>=|<=)")


@dataclass(frozen=True)
class Expected:
    """A problem's expected answer, parsed from its label.

    ``kind`` is ``"exact"`` (label ``N``), ``"nomate"``, ``"nomate_within"``
    (``nomate<=N``) or ``"at_least"`` (``>=N``); ``plies`` is N (None for
    ``nomate``); ``text`` is the label as written.
    """

    kind: str
    plies: int | None
    text: str

    @classmethod
    def parse(cls, text: str) -> Expected:
        """Parse a label (``9``, ``nomate``, ``nomate<=5``, ``>=15``); ValueError if it is none."""
        m = _EXPECTED_RE.match(text)
        if not m:
            raise ValueError(f"bad expected label {text!r} (expected N, nomate, nomate<=N or >=N)")
        if m["exact"] is not None:
            return cls("exact", int(m["exact"]), text)
        if m["within"] is not None:
            return cls("nomate_within", int(m["within"]), text)
        if m["least"] is not None:
            return cls("at_least", int(m["least"]), text)
        return cls("nomate", None, text)

    def agrees(self, status: str, length: int | None) -> bool:
        """Whether a solver's verdict (``status``, mate ``length``) agrees with this label.

        ``N``: a mate of exactly N plies. ``nomate``: proven no mate.
        ``nomate<=N``: anything but a mate of N plies or fewer, as long as the
        search finished (a longer mate and a proven no-mate both agree).
        ``>=N``: a mate of N plies or more. An unfinished search (``unknown``)
        or an ``error`` never agrees: it confirms nothing.
        """
        if status not in ("mate", "nomate"):
            return False
        mate = status == "mate"
        if self.kind == "exact":
            return mate and length == self.plies
        if self.kind == "nomate":
            return not mate
        if self.kind == "nomate_within":
            return not (mate and length is not None and length <= self.plies)
        return mate and length is not None and length >= self.plies


def parse_problem_line(line: str) -> tuple[str, Expected | None, str | None, dict[str, str]]:
    """Split one problem line into (position text, expected label, id, extra fields).

    ``"<position> # 9 tendo-001 author=x"`` gives ``("<position>", Expected(exact, 9),
    "tendo-001", {"author": "x"})``. Everything after ``#`` is optional: with no
    comment the label and id are None. The position text is not checked here
    (see :class:`Position`). Raises ValueError for a malformed label.
    """
    position_text, _, comment = line.partition("#")
    expected: Expected | None = None
    problem_id: str | None = None
    extra: dict[str, str] = {}
    tokens = comment.split()
    if tokens and (_EXPECTED_RE.match(tokens[0]) or _LABEL_LIKE_RE.match(tokens[0])):
        expected = Expected.parse(tokens.pop(0))
    for token in tokens:
        key, eq, value = token.partition("=")
        if eq:
            extra[key] = value
        elif problem_id is None:
            problem_id = token
        else:
            # A second bare word is not part of the format; keep it rather than drop it.
            extra.setdefault("note", token)
    return position_text.strip(), expected, problem_id, extra


@dataclass(frozen=True)
class Problem:
    """One input position of a batch run, parsed and checked before any search starts.

    ``sfen`` is the position to solve (after any ``moves``), or None when the
    line is malformed; then ``error`` says why.
    """

    index: int
    source: str
    line: int
    id: str
    text: str
    sfen: str | None
    expected: Expected | None
    error: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _make_problem(index: int, source: str, line_no: int, raw: str, fallback_id: str) -> Problem:
    try:
        text, expected, problem_id, extra = parse_problem_line(raw)
    except ValueError as e:
        text = raw.partition("#")[0].strip()
        return Problem(index, source, line_no, fallback_id, text, None, None, str(e))
    pid = problem_id or fallback_id
    try:
        sfen = Position(text).sfen()
    except ValueError as e:
        return Problem(index, source, line_no, pid, text, None, expected, str(e), extra)
    return Problem(index, source, line_no, pid, text, sfen, expected, None, extra)


# ---------------------------------------------------------------------------
# Runners: where the searches happen


class _ThreadRunner:
    """Solves in this process with one Solver, from a helper thread.

    The search releases the GIL, so the main thread stays free to notice
    Ctrl-C and call Solver.stop(); solving in the main thread itself would
    leave a Ctrl-C pending until the search ends (up to the whole --time).
    """

    window = 2  # one running, the next queued so the thread never waits on the writer

    def __init__(self, hash_mb: int):
        self._solver = Solver(hash_mb)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="usi-mate-solve")
        self._stopping = threading.Event()

    def _solve(self, text: str, options: dict):
        # arm() before the second look at the flag: a stop() that lands after
        # arm() is remembered by the solver, one that lands before it is seen here.
        if self._stopping.is_set():
            return None
        self._solver.arm()
        if self._stopping.is_set():
            return None
        result = self._solver.solve(text, **options)
        if result.status == "unknown" and self._stopping.is_set():
            return None  # cut short by stop(): not a result of the problem
        return result

    def submit(self, text: str, options: dict) -> Future:
        """Queue one search (options: Solver.solve keywords); the future's result is a
        MateResult, or None if stopped."""
        return self._pool.submit(self._solve, text, options)

    def stop(self) -> None:
        """Abandon queued searches and stop the running one promptly."""
        self._stopping.set()
        self._solver.stop()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        """Release the helper thread after every search has finished."""
        self._pool.shutdown(wait=True)


_worker_solver: Solver | None = None


def _worker_init(hash_mb: int) -> None:
    # A Ctrl-C at a terminal reaches the whole process group. The parent
    # decides what happens (it terminates the workers), so the workers ignore
    # it rather than each printing a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _worker_solver
    _worker_solver = Solver(hash_mb)


def _worker_solve(text: str, options: dict) -> MateResult:
    assert _worker_solver is not None, "worker not initialised"
    return _worker_solver.solve(text, **options)


class _ProcessRunner:
    """Solves in ``jobs`` worker processes, each keeping its own Solver and table.

    Processes rather than threads: one Solver searches one position at a time,
    and separate processes also keep a crash in the core from taking the
    caller down. The 'spawn' start method is used on every platform: forking a
    process that already runs threads (tqdm's monitor, the executor's manager)
    can deadlock the child.
    """

    def __init__(self, jobs: int, hash_mb: int):
        self.window = WINDOW_PER_JOB * jobs
        self._pool = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init,
            initargs=(hash_mb,),
        )

    def submit(self, text: str, options: dict) -> Future:
        """Queue one search (options: Solver.solve keywords); the future's result is a MateResult."""
        return self._pool.submit(_worker_solve, text, options)

    def stop(self) -> None:
        """Cancel queued searches and terminate the workers now.

        A worker busy in the core cannot be asked to stop from here, and
        shutdown() alone would wait for its current search (up to the whole
        time limit), so the workers are terminated. Python 3.14 has
        terminate_workers() for this; before that the executor's _processes
        map is the only handle on them.
        """
        terminate = getattr(self._pool, "terminate_workers", None)
        if terminate is not None:
            terminate()
            return
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            if p.is_alive():
                p.terminate()
        for p in processes:
            p.join(timeout=5)

    def close(self) -> None:
        """Wait for the workers to finish and exit."""
        self._pool.shutdown(wait=True)


def _make_runner(jobs: int, hash_mb: int) -> _ThreadRunner | _ProcessRunner:
    return _ThreadRunner(hash_mb) if jobs == 1 else _ProcessRunner(jobs, hash_mb)


class _Stopped(Exception):
    """Raised by a poll callback to leave the wait loop (the CLI's Ctrl-C)."""


class _InOrder:
    """Feeds tasks to a runner and hands back outcomes in input order.

    Each task is ``(key, args)`` where args is ``(text, options)`` (options:
    Solver.solve keywords) or None for an item that needs no search (a malformed
    line). The outcome of a search is its MateResult, the exception it raised,
    or None when the runner was stopped first.
    """

    def __init__(self, runner):
        self.runner = runner
        self.pending: deque[tuple[Any, Future | None]] = deque()

    def run(
        self, tasks: Iterable[tuple[Any, tuple | None]], poll: Callable[[], None] | None = None
    ) -> Iterator[tuple[Any, Any]]:
        """Yield ``(key, outcome)`` in task order; ``poll`` runs while waiting and may raise."""
        it = iter(tasks)
        exhausted = False
        while True:
            while not exhausted and len(self.pending) < self.runner.window:
                try:
                    key, args = next(it)
                except StopIteration:
                    exhausted = True
                    break
                self.pending.append((key, None if args is None else self.runner.submit(*args)))
            if not self.pending:
                return
            key, fut = self.pending[0]
            if poll is not None:
                poll()  # also when the head is already done: a stop must not wait for a slow item
            if fut is not None:
                if poll is None:
                    wait_futures([fut])
                else:
                    while not fut.done():
                        wait_futures([fut], timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                        poll()
            self.pending.popleft()
            yield key, _outcome(fut)

    def finished(self) -> list[tuple[Any, Any]]:
        """What is already done among the tasks not yet yielded, in order (after a stop).

        Searches still running or cancelled are left out, so whoever writes
        these only writes complete results.
        """
        done = []
        for key, fut in self.pending:
            if fut is None:
                done.append((key, None))
            elif fut.done():  # never wait here: what is not done is left out
                outcome = _outcome(fut)
                if outcome is not None and not isinstance(outcome, BaseException):
                    done.append((key, outcome))
        self.pending.clear()
        return done


def _outcome(fut: Future | None) -> Any:
    if fut is None:
        return None
    if fut.cancelled():
        return None
    exc = fut.exception()
    return exc if exc is not None else fut.result()


def _check_limit(name: str, value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer or None, not {value!r}")
    return value


def _check_jobs_hash(jobs: int, hash_mb: int) -> None:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, not {jobs!r}")
    if isinstance(hash_mb, bool) or not isinstance(hash_mb, int) or not 1 <= hash_mb <= MAX_HASH_MB:
        raise ValueError(f"hash_mb must be an integer from 1 to {MAX_HASH_MB}, not {hash_mb!r}")


# ---------------------------------------------------------------------------
# Python API


def solve_many(
    positions: Iterable[Position | str],
    *,
    jobs: int = 1,
    time_limit_ms: int | None = None,
    nodes_limit: int | None = None,
    hash_mb: int = 256,
    post_search: str = "MinLength",
    ignore_futile_interpositions: bool = True,
    certify: bool = False,
) -> Iterator[MateResult]:
    """Solve many positions, yielding one :class:`MateResult` per position in input order.

    ``positions`` is any iterable of :class:`Position` objects or position text
    (SFEN, ``"sfen ... moves ..."``, ``"startpos moves ..."``); it is read
    lazily, at most a few problems per worker ahead of the results. Limits
    apply to each problem; ``post_search``, ``ignore_futile_interpositions``
    and ``certify`` are those of :meth:`Solver.solve`. With ``jobs=1`` the search runs in this process;
    with more, in ``jobs`` worker processes with a ``hash_mb`` table each.

    As with :meth:`Solver.solve`, a position that cannot be read gives a result
    with status ``"unknown"`` and ``error`` set rather than an exception. A
    Position is solved from its current position (its move history is not
    passed on). Ctrl-C, or abandoning the iterator, stops the searches and the
    workers. Raises ValueError at once for bad arguments.

    >>> for r in solve_many(["4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"]):
    ...     print(r.status, r.moves)
    mate ['G*5b']
    """
    _check_jobs_hash(jobs, hash_mb)
    _check_limit("time_limit_ms", time_limit_ms)
    _check_limit("nodes_limit", nodes_limit)
    if post_search not in POST_SEARCH_LEVELS:
        raise ValueError(f"post_search must be one of {', '.join(POST_SEARCH_LEVELS)}, not {post_search!r}")
    options = {
        "time_limit_ms": time_limit_ms,
        "nodes_limit": nodes_limit,
        "post_search": post_search,
        "ignore_futile_interpositions": bool(ignore_futile_interpositions),
        "certify": bool(certify),
    }
    return _solve_many(positions, jobs, options, hash_mb)


def _solve_many(positions, jobs, options, hash_mb) -> Iterator[MateResult]:
    def tasks():
        for p in positions:
            # Positions do not pickle, and their SFEN is all a search uses.
            if isinstance(p, Position):
                text = p.sfen()
            elif isinstance(p, str):
                text = p
            else:
                raise TypeError(
                    f"positions must be Position objects or strings, not {type(p).__name__}"
                )
            yield None, (text, options)

    runner = _make_runner(jobs, hash_mb)
    finished = False
    try:
        for _, outcome in _InOrder(runner).run(tasks()):
            if isinstance(outcome, BaseException):
                outcome = MateResult(status="unknown", error=_describe_failure(outcome))
            yield outcome
        finished = True
    finally:
        # Normal end: let the workers exit. Ctrl-C, an exception or an
        # abandoned iterator (GeneratorExit): stop the searches now.
        runner.close() if finished else runner.stop()


def _describe_failure(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "BrokenProcessPool":
        return "a worker process died (crash or out of memory) before returning a result"
    return f"{name}: {exc}"


# ---------------------------------------------------------------------------
# Output formats

RECORD_FIELDS = [
    "id",
    "sfen",
    "expected",
    "status",
    "length",
    "moves",
    "nodes",
    "seconds",
    "agrees",
    "error",
    "min_length_proven",
    "certified",
    "source",
    "line",
]


def _record(problem: Problem, result: MateResult | None, error: str | None, check: bool) -> dict:
    """The output record of one problem (field order = RECORD_FIELDS)."""
    min_length_proven = None
    certified = None
    if result is None:
        status, length, moves, nodes, seconds = "error", None, [], 0, 0.0
    else:
        status, length, moves = result.status, result.mate_length, list(result.moves)
        nodes, seconds = result.nodes, round(result.seconds, 4)
        error = result.error
        if status == "mate":
            # Whether no shorter mate exists (the shortest-mate post-search
            # finished); None from a core that does not report it.
            min_length_proven = getattr(result, "min_length_proven", None)
        certification = getattr(result, "certification", None)
        if certification is not None:
            certified = certification.status
            if certification.status == "refuted":
                # A "no mate" the independent check does not back is a bug to report, not a verdict.
                error = f"no mate not certified: {certification.reason}"
    agrees = None
    if check and problem.expected is not None:
        agrees = problem.expected.agrees(status, length) and certified != "refuted"
    elif check and status == "error":
        agrees = False  # a line that could not be read confirms no label
    return {
        "id": problem.id,
        "sfen": problem.sfen or problem.text,
        "expected": problem.expected.text if problem.expected else None,
        "status": status,
        "length": length,
        "moves": moves,
        "nodes": nodes,
        "seconds": seconds,
        "agrees": agrees,
        "error": error,
        "min_length_proven": min_length_proven,
        "certified": certified,
        "source": problem.source,
        "line": problem.line,
    }


class _Writer:
    """Writes records to a text stream, one complete record per write() call.

    One write per record (built as a whole string first) is what keeps an
    interrupted run's output valid: a record is either all there or absent.
    """

    def __init__(self, out, problems: list[Problem], check: bool):
        self.out, self.problems, self.check = out, problems, check

    def begin(self) -> None:
        """Write whatever precedes the records."""

    def format(self, record: dict) -> str:
        """The text of one record, newline included."""
        raise NotImplementedError

    def write(self, record: dict) -> None:
        """Write one record and flush it, so a reader (or a crash) sees whole records."""
        self.out.write(self.format(record))
        self.out.flush()

    def end(self, summary: str) -> None:
        """Write whatever follows the records (the text format's summary table)."""


class _JsonlWriter(_Writer):
    def format(self, record: dict) -> str:
        return json.dumps(record, ensure_ascii=False) + "\n"


class _CsvWriter(_Writer):
    def begin(self) -> None:
        self.out.write(self._row(RECORD_FIELDS))

    @staticmethod
    def _row(values: list) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        return buf.getvalue()

    def format(self, record: dict) -> str:
        values = []
        for name in RECORD_FIELDS:
            v = record[name]
            if name == "moves":
                v = " ".join(v)
            elif isinstance(v, bool):
                v = "true" if v else "false"
            values.append("" if v is None else v)
        return self._row(values)


def _verdict(record: dict) -> str:
    if record["status"] == "mate":
        # "?": a limit ended the shortest-mate search first, so a shorter mate
        # may exist. Worth seeing next to a length that differs from its label.
        unsure = "?" if record.get("min_length_proven") is False else ""
        return f"mate {record['length']}{unsure}"
    if record["status"] == "nomate" and record.get("certified"):
        # nomate+ certified, nomate! refuted (a bug), nomate~ tree too large to check
        return "nomate" + {"certified": "+", "refuted": "!", "incomplete": "~"}[record["certified"]]
    return record["status"]


def _check_note(record: dict) -> str:
    if record["agrees"] is None:
        return ""
    if record["agrees"]:
        return "ok"
    if record["expected"] is None:
        return "DIFFERS (unreadable line)"
    return f"DIFFERS (expected {record['expected']})"


class _TextWriter(_Writer):
    """One aligned line a problem, then the summary table.

    The mating line goes last although it is the most interesting field: it
    can be hundreds of moves long, and the fixed-width columns before it stay
    readable only if nothing variable comes first.
    """

    def begin(self) -> None:
        # Every problem is parsed before the first search, so the id column
        # can be sized up front (capped so one long id does not push everything).
        self.id_width = min(max((len(p.id) for p in self.problems), default=2), 40)
        labels = [len(p.expected.text) for p in self.problems if p.expected]
        self.check_width = max(
            len("DIFFERS (expected )") + max(labels, default=0),
            len("DIFFERS (unreadable line)") if any(p.error for p in self.problems) else 0,
        )

    def format(self, record: dict) -> str:
        cols = [
            record["id"].ljust(self.id_width),
            _verdict(record).ljust(8),
            f"{record['nodes']:>10} nodes",
            f"{record['seconds']:>8.3f} s",
        ]
        if self.check:
            cols.append(_check_note(record).ljust(self.check_width))
        if record["status"] == "error" or (record["error"] and not record["moves"]):
            cols.append(f"({record['error']})")
        else:
            cols.append(" ".join(record["moves"]))
        return "  ".join(cols).rstrip() + "\n"

    def end(self, summary: str) -> None:
        self.out.write("\n" + summary)
        self.out.flush()


class _KifWriter(_Writer):
    """A KIF record a problem (board diagram and numbered moves), blank-line separated.

    Each block is a complete KIF game that a GUI imports when pasted on its
    own; the ``#`` lines carry the id, the SFEN and the verdict.
    """

    def format(self, record: dict) -> str:
        from .kif import format_kif_record

        where = (
            f"argument {record['line']}"
            if record["source"] == "argument"
            else f"{record['source']}:{record['line']}"
        )
        comments = [
            f"{record['id']}  ({where})",
            f"sfen {record['sfen']}",
        ]
        verdict = _verdict(record)
        if record["expected"] is not None:
            verdict += f"  expected {record['expected']}"
        if record["agrees"] is not None:
            verdict += "  " + _check_note(record)
        comments.append(f"result: {verdict}  ({record['nodes']} nodes, {record['seconds']:.3f} s)")
        if record["error"]:
            comments.append(f"error: {record['error']}")
        if record["status"] == "error":
            return "\n".join("# " + c for c in comments) + "\n\n"
        end = {"mate": "詰み", "nomate": "不詰"}.get(record["status"], "中断")
        lines = format_kif_record(record["sfen"], record["moves"], comments=comments, end=end)
        return "\n".join(lines) + "\n\n"


_WRITERS = {"text": _TextWriter, "jsonl": _JsonlWriter, "csv": _CsvWriter, "kif": _KifWriter}


# ---------------------------------------------------------------------------
# Reading the inputs

_SFEN_BOARD_RE = re.compile(r"^[1-9+KRBGSNLPkrbgsnlp]+(?:/[1-9+KRBGSNLPkrbgsnlp]+){8}$")
_POSITION_KEYWORDS = ("position", "sfen", "startpos")


class _UsageError(Exception):
    pass


def _sfen_fields(words: list[str]) -> int | None:
    """How many SFEN fields an unquoted position being collected has so far (None: not an SFEN)."""
    if words and words[0] == "position":
        words = words[1:]
    if words and words[0] == "sfen":
        words = words[1:]
    if not words or words[0] == "startpos" or "moves" in words:
        return None
    return len(words)


def _starts_position(word: str, current: list[str] | None) -> bool:
    """Whether an unquoted word begins a new position rather than continuing ``current``."""
    if word in _POSITION_KEYWORDS:
        # "position sfen ..." and "position startpos ..." are one position.
        return not (current == ["position"] and word != "position")
    # A board begins a position unless it is the board that "sfen" announced.
    return bool(_SFEN_BOARD_RE.match(word)) and current not in (["sfen"], ["position", "sfen"])


def _group_inputs(args: list[str]) -> list[tuple[str, str]]:
    """Sort the command-line inputs into ``("file", path)``, ``("stdin", "-")`` and
    ``("position", text)``.

    An existing path is a file. A position may come as one quoted argument
    (``"sfen ... b G 1 # 1 my-id"``) or spread over several unquoted ones
    (``sfen <board> b G 1``, ``startpos moves 7g7f``): a new position starts at
    ``position``/``sfen``/``startpos`` or at an SFEN board, and the words that
    follow belong to it. ``-`` reads stdin, except where an unquoted SFEN
    expects its hands (``... b - 1``, where ``-`` means empty hands).
    """
    groups: list[tuple[str, Any]] = []
    current: list[str] | None = None

    def close():
        nonlocal current
        if current is not None:
            groups.append(("position", " ".join(current)))
            current = None

    for arg in args:
        fields = _sfen_fields(current) if current is not None else None
        if fields is not None and fields < 3:
            # Inside an unquoted SFEN that still lacks its side to move or
            # hands, the word belongs to it, even "-" (no hands) or a word that
            # happens to name a file in the current directory.
            current.append(arg)
        elif arg == "-":
            close()
            groups.append(("stdin", "-"))
        elif os.path.isfile(arg):
            close()
            groups.append(("file", arg))
        elif len(arg.split()) > 1:
            close()
            groups.append(("position", arg))
        elif _starts_position(arg, current):
            close()
            current = [arg]
        elif current is not None:
            current.append(arg)
        elif os.path.isdir(arg):
            raise _UsageError(f"{arg!r} is a directory, not a problem file")
        else:
            raise _UsageError(f"{arg!r} is neither an existing file nor a position")
    close()
    return groups


def _read_problems(groups: list[tuple[str, str]], stdin) -> list[Problem]:
    """Parse every input line into Problems (in order), reporting malformed lines on stderr."""
    problems: list[Problem] = []
    several = len(groups) > 1
    arg_number = 0
    for kind, value in groups:
        if kind == "position":
            arg_number += 1
            source, lines = "argument", [(arg_number, value)]
        else:
            if kind == "stdin":
                source = "<stdin>"
                data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
            else:
                source = value
                try:
                    with open(value, "rb") as f:
                        data = f.read()
                except OSError as e:
                    raise _UsageError(f"cannot read {value}: {e.strerror}") from None
            if isinstance(data, bytes):
                # utf-8-sig: files saved by Windows editors start with a BOM.
                data = data.decode("utf-8-sig", errors="replace")
            lines = list(enumerate(data.splitlines(), start=1))
        for line_no, raw in lines:
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            if kind == "position":
                fallback = f"arg {line_no}"
            else:
                fallback = f"{source}:line {line_no}" if several else f"line {line_no}"
            problem = _make_problem(len(problems), source, line_no, raw, fallback)
            if problem.error:
                where = f"argument {line_no}" if kind == "position" else f"{source}:{line_no}"
                print(f"{PROG}: {where}: skipped: {problem.error}", file=sys.stderr)
            problems.append(problem)
    return problems


# ---------------------------------------------------------------------------
# The command


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _hash_mb(text: str) -> int:
    value = _positive_int(text)
    if value > MAX_HASH_MB:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_HASH_MB}, not {value}")
    return value


def _search_options(args: argparse.Namespace) -> dict:
    """Solver.solve keywords from the command line."""
    return {
        "time_limit_ms": args.time,
        "nodes_limit": args.nodes,
        "post_search": args.post_search,
        "ignore_futile_interpositions": not args.strict,
        "certify": args.certify,
    }


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``usi-mate solve`` (every option declared once, here)."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Solve tsume-shogi problems in batch: problem files, positions, "
        "or - for stdin. One position a line: '<sfen> # <expected> <id> [key=value ...]'.",
    )
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="a problem file, a position (SFEN, 'sfen ...', 'startpos moves ...'), or - for stdin",
    )
    p.add_argument(
        "--time", type=_positive_int, metavar="MS", help="time limit per problem in milliseconds"
    )
    p.add_argument("--nodes", type=_positive_int, metavar="N", help="node limit per problem")
    p.add_argument(
        "--post-search",
        choices=tuple(POST_SEARCH_LEVELS),
        default="MinLength",
        help="after the first proof: None answers it, UpperBound a line as long as its bound, "
        "MinLength (default) searches on until the shortest mate is proven",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="count futile interpositions as resistance (as the yaneuraou labels do); "
        "by default they are left out, as composers count",
    )
    p.add_argument(
        "--certify",
        action="store_true",
        help="check every 'no mate' independently: rebuild an explicit disproof tree and "
        "replay it without the search's table (nomate+ certified, nomate~ too large to "
        "check, nomate! not backed: please report it)",
    )
    p.add_argument(
        "--hash",
        type=_hash_mb,
        default=256,
        metavar="MB",
        help="transposition table size per worker in MB (default: 256)",
    )
    p.add_argument(
        "--jobs",
        type=_positive_int,
        default=1,
        metavar="N",
        help="worker processes, each with its own table (default: 1)",
    )
    p.add_argument(
        "--format", choices=sorted(_WRITERS), default="text", help="output format (default: text)"
    )
    p.add_argument(
        "--output", "-o", metavar="FILE", help="write the results to FILE instead of stdout"
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="compare each result with its expected label; exit 1 if any disagrees",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: on when stderr is a terminal)",
    )
    return p


@dataclass
class _Tally:
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("mate", "nomate", "unknown", "error"), 0)
    )
    disagreements: list[dict] = field(default_factory=list)
    unlabelled: int = 0
    unsure_lengths: int = 0
    certified: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("certified", "refuted", "incomplete"), 0)
    )
    search_seconds: float = 0.0
    written: int = 0

    def add(self, record: dict) -> None:
        self.counts[record["status"]] += 1
        self.search_seconds += record["seconds"]
        self.written += 1
        if record["agrees"] is False:
            self.disagreements.append(record)
        if record["status"] == "mate" and record.get("min_length_proven") is False:
            self.unsure_lengths += 1
        if record.get("certified") is not None:
            self.certified[record["certified"]] += 1

    def table(self, total: int, wall: float, check: bool, interrupted: bool) -> str:
        rows = [
            ("problems", str(total)),
            ("mate", str(self.counts["mate"])),
            ("no mate", str(self.counts["nomate"])),
            ("unknown", str(self.counts["unknown"])),
            ("errors", str(self.counts["error"])),
            ("disagreements", str(len(self.disagreements)) if check else "-"),
            ("search time", f"{self.search_seconds:.3f} s"),
            ("wall time", f"{wall:.3f} s"),
        ]
        if check and self.unlabelled:
            rows.insert(6, ("no label", str(self.unlabelled)))
        if interrupted:
            rows.insert(1, ("not solved", str(total - self.written)))
        table = "".join(f"{name:<14}{value:>12}\n" for name, value in rows)
        if self.unsure_lengths:
            table += f"(mate N?: {self.unsure_lengths} not proven shortest within the limits)\n"
        if any(self.certified.values()):
            c = self.certified
            table += (
                f"(no mate checked without the table: {c['certified']} certified, "
                f"{c['incomplete']} too large to check, {c['refuted']} NOT BACKED)\n"
            )
        return table


def _open_output(path: str | None):
    if path and path != "-":
        return open(path, "w", encoding="utf-8", newline="\n"), True
    # Our own UTF-8 view of stdout: KIF and ids are Japanese, whatever the locale.
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        return sys.stdout, False
    return io.TextIOWrapper(buffer, encoding="utf-8", newline="\n", write_through=True), False


def main(argv: list[str] | None = None) -> int:
    """Run ``usi-mate solve`` with ``argv`` (without the program name); return the exit status.

    0: done (with ``--check``: every verdict agrees with its label); 1: with
    ``--check``, some result disagrees, is unknown, or a line could not be
    read; 2: bad usage or an unreadable file; 130: interrupted by Ctrl-C (what
    was solved is written, the output stays valid).
    """
    parser = build_parser()
    args = parser.parse_intermixed_args(argv)
    try:
        if not args.inputs:
            raise _UsageError("no input: give problem files, positions, or - to read stdin")
        problems = _read_problems(_group_inputs(args.inputs), sys.stdin)
    except _UsageError as e:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    try:
        out, close_out = _open_output(args.output)
    except OSError as e:
        print(f"{PROG}: error: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        return _run(args, problems, out)
    finally:
        if close_out:
            out.close()
        elif out is not sys.stdout:
            try:
                out.flush()
            except (BrokenPipeError, ValueError):
                pass
            out.detach()  # leave sys.stdout's buffer open for whoever runs after us


def _run(args, problems: list[Problem], out) -> int:
    writer = _WRITERS[args.format](out, problems, args.check)
    tally = _Tally()
    tally.unlabelled = sum(1 for p in problems if p.expected is None and p.error is None)
    solvable = sum(1 for p in problems if p.sfen is not None)
    # No more workers than problems: each one allocates a full table.
    jobs = max(1, min(args.jobs, solvable))
    show_progress = sys.stderr.isatty() if args.progress is None else args.progress
    bar = None
    if show_progress:
        from tqdm import tqdm

        bar = tqdm(
            total=len(problems), file=sys.stderr, unit="problem", dynamic_ncols=True, desc="solving"
        )
    # A bar and records sharing one terminal: clear the bar around each record.
    bar_shares_terminal = bar is not None and out is not sys.stderr and _is_terminal(out)

    stop_requested = threading.Event()

    def on_sigint(signum, frame):
        if stop_requested.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C: stop waiting for anything
        stop_requested.set()

    def poll():
        if stop_requested.is_set():
            raise _Stopped

    previous_handler = None
    if threading.current_thread() is threading.main_thread():
        previous_handler = signal.signal(signal.SIGINT, on_sigint)

    def emit(problem: Problem, outcome: Any) -> None:
        if isinstance(outcome, BaseException):
            record = _record(problem, None, _describe_failure(outcome), args.check)
            _report(bar, f"{problem.source}:{problem.line}: {record['error']}")
        elif problem.sfen is None:
            record = _record(problem, None, problem.error, args.check)
        else:
            record = _record(problem, outcome, None, args.check)
        if bar_shares_terminal:
            bar.clear()
        writer.write(record)
        tally.add(record)
        if bar is not None:
            bar.set_postfix_str(
                f"solved {tally.counts['mate'] + tally.counts['nomate']}", refresh=False
            )
            bar.update(1)

    def tasks():
        for p in problems:
            yield p, (None if p.sfen is None else (p.sfen, _search_options(args)))

    started = time.perf_counter()
    interrupted = False
    runner = None
    try:
        writer.begin()
        runner = _make_runner(jobs, args.hash)
        ordered = _InOrder(runner)
        try:
            for problem, outcome in ordered.run(tasks(), poll):
                emit(problem, outcome)
        except (_Stopped, KeyboardInterrupt):
            interrupted = True
            runner.stop()
            # Flush what finished behind the problem we were waiting for: in
            # input order, complete records only, the unfinished left out.
            for problem, outcome in ordered.finished():
                emit(problem, outcome)
        else:
            runner.close()
        runner = None
        if bar is not None:
            bar.close()  # leaves the final bar above the summary instead of under it
        summary = tally.table(len(problems), time.perf_counter() - started, args.check, interrupted)
        writer.end(summary)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as other filters do.
        if runner is not None:
            runner.stop()
        _silence_stdout()
        return 1
    except KeyboardInterrupt:
        if runner is not None:
            runner.stop()
        return 130
    finally:
        if bar is not None:
            bar.close()
        if previous_handler is not None:
            signal.signal(signal.SIGINT, previous_handler)

    if args.format != "text":
        sys.stderr.write(summary)
    if interrupted:
        print(
            f"{PROG}: interrupted: wrote {tally.written} of {len(problems)} results",
            file=sys.stderr,
        )
    if args.check and tally.disagreements:
        _print_disagreements(tally.disagreements, len(problems))
    if interrupted:
        return 130
    return 1 if args.check and tally.disagreements else 0


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _report(bar, message: str) -> None:
    text = f"{PROG}: {message}"
    if bar is not None:
        bar.write(text, file=sys.stderr)
    else:
        print(text, file=sys.stderr)


def _silence_stdout() -> None:
    # Python flushes stdout again at exit and would report the broken pipe a
    # second time; point the descriptor at /dev/null first.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _print_disagreements(records: list[dict], total: int) -> None:
    lines = [f"{PROG}: {len(records)} of {total} problems disagree with their labels:"]
    width = min(max(len(r["id"]) for r in records), 40)
    for r in records:
        got = _verdict(r)
        if got.endswith("?"):
            got = got[:-1] + " (not proven shortest: a limit was reached)"
        if r["error"]:
            got += f" ({r['error']})"
        lines.append(f"  {r['id']:<{width}}  expected {r['expected'] or '-'}, got {got}")
    sys.stderr.write("\n".join(lines) + "\n")


if __name__ == "__main__":  # python -m usi_mate.batch ...
    sys.exit(main())
