"""``usi-mate solve``: the batch command on problem files, positions and stdin.

This module is the command line only: the problem-file format is
:mod:`usi_mate.problems`, where searches run is :mod:`usi_mate.runners` (also
:func:`usi_mate.solve_many`), and the output formats are :mod:`usi_mate.records`.

Exit status: 0 done; 1 with ``--check``, some result disagrees with its label (or is
unknown, or its line could not be read), and always when a problem was lost to a
failing worker; 2 bad usage, an unreadable file or position argument (the other
problems are still solved), an input without a problem line, a table that does not
fit in memory, or results that cannot be written (a full disk, a missing folder, an
I/O error: one ``error: cannot write`` line, see :mod:`usi_mate.outputs`; a reader
that goes away, as ``| head``, ends the run quietly with 2 as well); 130 interrupted
by Ctrl-C, 143 by SIGTERM (what was solved is written, the output stays valid).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from .echo import ECHO_LIMIT, printable
from .memory import tables_fit
from .outputs import (
    EXIT_IO,
    OutputError,
    encoding_name,
    open_output,
    output_encoding,
    output_format,
)
from .problems import Problem, make_problem
from .records import (
    WRITERS,
    InputShape,
    Tally,
    make_check_record,
    make_record,
    print_disagreements,
)
from .resume import (
    RESUMABLE_FORMATS,
    Answered,
    PreviousOutput,
    ResumeError,
    names_clash,
    read_previous,
)
from .runners import InOrder, SolverSpec, Stopped, describe_failure, make_runner
from .settings import (
    DEFAULT_HASH_MB,
    DEFAULT_MIN_LENGTH_EFFORT,
    MAX_HASH_MB,
    MAX_MIN_LENGTH_EFFORT,
    MAX_NODES,
    MAX_THREADS,
    MAX_TIME_MS,
    POST_SEARCH_LEVELS,
    SearchRequest,
)

__all__ = ["main", "build_parser"]

PROG = "usi-mate solve"


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

    def close() -> None:
        nonlocal current
        if current is not None:
            groups.append(("position", " ".join(current)))
            current = None

    for arg in args:
        fields = _sfen_fields(current) if current is not None else None
        if current is not None and fields is not None and fields < 3:
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
            raise _UsageError(f"'{_echo_arg(arg)}' is a directory, not a problem file")
        else:
            raise _UsageError(f"'{_echo_arg(arg)}' is neither an existing file nor a position")
    close()
    return groups


def _echo_arg(arg: str) -> str:
    # An argument repeated in a message: clipped, and no escape sequence reaches the terminal.
    return printable(arg, ECHO_LIMIT, ascii_only=False)


class _Inputs:
    """The problems of a run, read from their files again each time they are walked.

    A file of a million lines is never held in memory (nor are its problems): the run
    walks it once before any search (:func:`_survey`) and once to solve. Standard input
    is read once, into a temporary file. A file that cannot be read is a _UsageError
    (before any search, from the survey).
    """

    def __init__(self, groups: list[tuple[str, str]], stdin: Any) -> None:
        self.groups = groups
        self._stdin_copy = None
        if any(kind == "stdin" for kind, _ in groups):
            self._stdin_copy = tempfile.TemporaryFile()
            source = stdin.buffer if hasattr(stdin, "buffer") else stdin
            while True:
                block = source.read(1 << 20)
                if not block:
                    break
                self._stdin_copy.write(block.encode("utf-8") if isinstance(block, str) else block)

    def close(self) -> None:
        if self._stdin_copy is not None:
            self._stdin_copy.close()

    def problems(self, report: bool = False) -> Iterator[Problem]:
        """Every problem in input order; ``report``: malformed lines on stderr as well."""
        several = len(self.groups) > 1
        index = 0
        arg_number = 0
        stdin_read = False
        for kind, value in self.groups:
            lines: Iterable[tuple[int, str]]
            if kind == "position":
                arg_number += 1
                source, lines = "argument", [(arg_number, value)]
            elif kind == "stdin" and stdin_read:
                continue  # a second "-": stdin is read once, as it always was
            else:
                stdin_read = stdin_read or kind == "stdin"
                source = "<stdin>" if kind == "stdin" else value
                lines = self._lines(kind, value)
            for line_no, raw in lines:
                if not raw.strip() or raw.lstrip().startswith("#"):
                    continue
                if kind == "position":
                    fallback = f"arg {line_no}"
                else:
                    fallback = f"{source}:line {line_no}" if several else f"line {line_no}"
                problem = make_problem(index, source, line_no, raw, fallback)
                index += 1
                if report and problem.error and kind == "position":
                    # No such file either: say what an argument may be.
                    print(
                        f"{PROG}: argument {line_no}: skipped: no such file, and not a position "
                        f"({problem.error}); an argument is a problem file, an SFEN, "
                        "'sfen <SFEN> moves ...' or 'startpos moves ...'",
                        file=sys.stderr,
                    )
                elif report and problem.error:
                    print(f"{PROG}: {source}:{line_no}: skipped: {problem.error}", file=sys.stderr)
                yield problem

    def _lines(self, kind: str, path: str) -> Iterator[tuple[int, str]]:
        """Numbered lines of a file or of stdin's copy, as str.splitlines() numbers them."""
        f: IO[bytes]
        if kind == "stdin":
            assert self._stdin_copy is not None
            f = self._stdin_copy
            f.seek(0)
            close = False
        else:
            try:
                f = open(path, "rb")
            except OSError as e:
                raise _UsageError(f"cannot read {path}: {e.strerror}") from None
            close = True
        try:
            line_no = 0
            # utf-8-sig on the first line: files saved by Windows editors start with a BOM.
            encoding = "utf-8-sig"
            for raw in f:
                for line in raw.decode(encoding, errors="replace").splitlines():
                    line_no += 1
                    yield line_no, line
                encoding = "utf-8"
        except OSError as e:
            raise _UsageError(f"cannot read {path}: {e.strerror}") from None
        finally:
            if close:
                f.close()


@dataclass
class _Survey:
    """What the run needs to know of all its problems before the first search."""

    total: int = 0
    solvable: int = 0  # positions that can be read
    to_solve: int = 0  # of those, not answered by the output being resumed
    answered: int = 0  # problems the output being resumed already answers
    unlabelled: int = 0
    shape: InputShape = field(default_factory=InputShape)
    bad_argument: bool = False  # a position typed on the command line cannot be read
    unencodable: tuple[str, str] | None = None  # (text, whose) the output cannot encode


def _survey(inputs: _Inputs, encoding: str, answered: Answered | None) -> _Survey:
    """Walk every problem once: counts, the text columns, what the output cannot encode,
    which problems an earlier output answers; malformed lines reported on stderr."""
    survey = _Survey()
    for p in inputs.problems(report=True):
        survey.total += 1
        survey.shape.add(p)
        if p.sfen is not None:
            survey.solvable += 1
        if p.expected is None and p.error is None:
            survey.unlabelled += 1
        if p.error and p.source == "argument":
            survey.bad_argument = True
        if survey.unencodable is None:
            survey.unencodable = _unencodable(p, encoding)
        if answered is not None and answered.take(p):
            survey.answered += 1
        elif p.sfen is not None:
            survey.to_solve += 1
    return survey


def _unencodable(p: Problem, encoding: str) -> tuple[str, str] | None:
    """A problem's id, file name or error with a character ``encoding`` lacks, and whose."""
    for text, where in (
        (p.id, f"in problem id {p.id!r}"),
        (p.source, f"in file name {p.source!r}"),
        (p.error or "", f"in the error of problem {p.id!r}"),
    ):
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            return text, where
    return None


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


def _at_most(limit: int) -> Callable[[str], int]:
    """An argparse type: a positive integer of at most ``limit``."""

    def parse(text: str) -> int:
        value = _positive_int(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit}, not {value}")
        return value

    return parse


def _effort(text: str) -> int:
    """An argparse type: MinLength's share of work, 0..MAX_MIN_LENGTH_EFFORT."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, not {text!r}") from None
    if not 0 <= value <= MAX_MIN_LENGTH_EFFORT:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_MIN_LENGTH_EFFORT}, not {value}")
    return value


_hash_mb = _at_most(MAX_HASH_MB)
_threads = _at_most(MAX_THREADS)
_time_ms = _at_most(MAX_TIME_MS)
_nodes = _at_most(MAX_NODES)


def _request(args: argparse.Namespace) -> SearchRequest:
    """The search request of every problem, from the command line."""
    return SearchRequest(
        time_limit_ms=args.time,
        nodes_limit=args.nodes,
        post_search=args.post_search,
        min_length_effort=args.min_length_effort,
        ignore_futile_interpositions=not args.strict,
        certify=args.certify,
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``usi-mate solve`` (every option declared once: here and below)."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Solve tsume-shogi problems in batch: problem files, positions, "
        "or - for stdin. One position a line: '<sfen> # <expected> <id> [key=value ...]'.",
        epilog="exit status: 0 done; 1 --check found a disagreement (or a problem was lost "
        "to a failing worker); 2 bad usage, unreadable input, no problem line, a table "
        "too large, or results that cannot be written (error: cannot write ...); "
        "130 interrupted, 143 terminated.",
    )
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="a problem file, a position (SFEN, 'sfen ...', 'startpos moves ...'), or - for stdin",
    )
    _add_search_options(p)
    _add_worker_options(p)
    _add_output_options(p)
    return p


def _add_search_options(p: argparse.ArgumentParser) -> None:
    """Declare the options of each search: its limits, post-search and rules."""
    p.add_argument(
        "--time",
        type=_time_ms,
        metavar="MS",
        help="time limit per problem in milliseconds (default: none; each answer comes when "
        "it is final, see --min-length-effort)",
    )
    p.add_argument(
        "--nodes", type=_nodes, metavar="N", help="node limit per problem (default: none)"
    )
    p.add_argument(
        "--post-search",
        choices=tuple(POST_SEARCH_LEVELS),
        default="MinLength",
        help="after the first proof: None answers it, UpperBound a line as long as its bound, "
        "MinLength (default) searches for shorter mates until the shortest is proven or it "
        "has spent its share of work (--min-length-effort)",
    )
    p.add_argument(
        "--min-length-effort",
        type=_effort,
        default=DEFAULT_MIN_LENGTH_EFFORT,
        metavar="K",
        help=f"MinLength's share of work: K times the first proof's nodes (default "
        f"{DEFAULT_MIN_LENGTH_EFFORT}; 0: until the shortest mate is proven or --time/--nodes)",
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


def _add_worker_options(p: argparse.ArgumentParser) -> None:
    """Declare the options of where searches run: table size, processes, threads, Dask."""
    p.add_argument(
        "--hash",
        type=_hash_mb,
        default=DEFAULT_HASH_MB,
        metavar="MB",
        help=f"transposition table size per worker in MB (default: {DEFAULT_HASH_MB})",
    )
    p.add_argument(
        "--jobs",
        type=_positive_int,
        default=1,
        metavar="N",
        help="worker processes, each with its own table (default: 1)",
    )
    p.add_argument(
        "--threads",
        type=_threads,
        default=1,
        metavar="N",
        help="search threads per problem, sharing its worker's table (default: 1); "
        "--jobs 2 --threads 4 uses 8 cores",
    )
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="solve on a Dask cluster: the scheduler's address (tcp://host:8786); "
        "needs pip install 'usi-mate[dask]'; --jobs is then the cluster's (docs/BATCH.md)",
    )


def _add_output_options(p: argparse.ArgumentParser) -> None:
    """Declare the options of what is written: format, file, checks and progress bar."""
    p.add_argument(
        "--format",
        choices=sorted(WRITERS),
        default=None,
        help="output format (default: the one --output's name implies, .kif/.kifu kif, "
        ".csv csv, .jsonl jsonl; else text)",
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the results to FILE instead of stdout; a .kif file is written in "
        "Shift_JIS (CP932, CRLF), a .kifu file and any other in UTF-8, as KIF readers "
        "expect; the name's format unless --format says otherwise (a --format that "
        "contradicts the name is refused)",
    )
    p.add_argument(
        "--encoding",
        type=encoding_name,
        metavar="NAME",
        help="write the output in this encoding instead (utf-8, cp932, ...)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="go on with the run whose output --output FILE holds (jsonl or csv): skip the "
        "problems it answers, append the others' records (a torn last record is written "
        "again); every problem gets one record",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="compare each result with its expected label; exit 1 if any disagrees",
    )
    p.add_argument(
        "--check-cooks",
        action="store_true",
        help="a composer's check of each problem (usi-mate check): cooks, variations and "
        "spare pieces along the main line, and a verdict, added to each record; --time and "
        "--nodes then limit each problem's whole check",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: on when stderr is a terminal)",
    )


def main(argv: list[str] | None = None) -> int:
    """Run ``usi-mate solve`` with ``argv`` (without the program name); return the exit status.

    See the module documentation for the exit statuses.
    """
    parser = build_parser()
    args = parser.parse_intermixed_args(argv)
    inputs: _Inputs | None = None
    try:
        try:
            inputs, survey, previous, tally = _prepare(args)
        except _UsageError as e:
            parser.print_usage(sys.stderr)
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 130
        return _open_and_run(args, inputs, survey, previous, tally)
    finally:
        if inputs is not None:
            inputs.close()


def _prepare(args: argparse.Namespace) -> tuple[_Inputs, _Survey, PreviousOutput | None, Tally]:
    """Everything before the first search: inputs surveyed, the output being resumed
    read, workers sized; _UsageError for what stops the run here."""
    if not args.inputs:
        raise _UsageError("no input: give problem files, positions, or - to read stdin")
    try:
        args.format = output_format(args.output, args.format, tuple(sorted(WRITERS)))
    except ValueError as e:
        raise _UsageError(str(e)) from None
    previous, tally = None, Tally()
    groups = _group_inputs(args.inputs)
    if args.resume:
        files = [value for kind, value in groups if kind == "file"]
        previous = _read_previous(args, tally, names_clash(files))
    inputs = _Inputs(groups, sys.stdin)
    try:
        survey = _survey(
            inputs,
            output_encoding(args.output, args.encoding),
            previous.answered if previous else None,
        )
        if not survey.total:
            # Nothing solved is no result: 0 would read as "done, all agree".
            raise _UsageError("no problem to solve: the input has only blank and comment lines")
        if previous is not None:
            _check_resumable(args, previous, survey)
        # No more workers than problems: each one allocates a full table.
        args.jobs = max(1, min(args.jobs, survey.to_solve))
        if args.dask is not None:
            args.jobs = 1  # the cluster's workers, on their machines: not ours to size
            args.dask_client = _dask_client(args.dask)
        # With --check-cooks each worker may use a second table for its hardest questions.
        too_big = tables_fit(args.hash, args.jobs * (2 if args.check_cooks else 1))
        if too_big:
            raise _UsageError(f"--hash {args.hash}: {too_big}; lower --hash or --jobs")
        if previous is not None:
            _go_on_from(args, previous, survey)
    except BaseException:
        inputs.close()
        raise
    tally.unlabelled = survey.unlabelled
    return inputs, survey, previous, tally


def _read_previous(args: argparse.Namespace, tally: Tally, by_path: bool) -> PreviousOutput:
    """The output that ``--resume`` goes on from, its records counted in ``tally``;
    ``by_path``: its records answer problems by whole paths (two inputs share a name)."""
    if args.output in (None, "-"):
        raise _UsageError("--resume needs --output FILE: the output of the run to go on with")
    if args.format not in RESUMABLE_FORMATS:
        raise _UsageError(
            f"--resume reads the records back: --format {' or '.join(RESUMABLE_FORMATS)} "
            f"(a {args.format} output does not hold every id, file and line)"
        )
    try:
        return read_previous(
            args.output,
            args.format,
            output_encoding(args.output, args.encoding),
            args.check_cooks,
            tally.add,
            by_path,
        )
    except ResumeError as e:
        raise _UsageError(f"--resume {args.output}: {e}") from None


def _check_resumable(args: argparse.Namespace, previous: PreviousOutput, survey: _Survey) -> None:
    """_UsageError when the output holds records of other problems."""
    unmatched = previous.answered.untaken()
    if unmatched:
        # (Two inputs with one file name are told apart by their paths, as written.)
        where = "path as written" if previous.answered.by_path else "file name"
        raise _UsageError(
            f"--resume {args.output}: {unmatched} of its {len(previous.answered)} records "
            f"answer no problem of these inputs (same id, {where} and line): resume with "
            "the inputs of the first run"
        )


def _go_on_from(args: argparse.Namespace, previous: PreviousOutput, survey: _Survey) -> None:
    """Cut the output's torn end and say where the run goes on: only once nothing can
    refuse the run any more, so that a refused run leaves the file as it was."""
    try:
        previous.cut_torn_end()
    except ResumeError as e:
        raise _UsageError(f"--resume {args.output}: {e}") from None
    torn = (
        f"; removed a torn last record ({previous.torn_bytes} bytes)" if previous.torn_bytes else ""
    )
    print(
        f"{PROG}: {args.output}: {survey.answered} of {survey.total} problems already "
        f"answered, solving the other {survey.total - survey.answered}{torn}",
        file=sys.stderr,
    )


def _open_and_run(
    args: argparse.Namespace,
    inputs: _Inputs,
    survey: _Survey,
    previous: PreviousOutput | None,
    tally: Tally,
) -> int:
    """Open the output, solve, close; the exit status."""
    try:
        out = open_output(
            args.output, args.encoding, append=bool(previous and previous.has_content)
        )
    except OutputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_IO
    if survey.unencodable is not None:
        # Said before the first search rather than at that problem's record, which may
        # come hours later (a .kif file is CP932).
        try:
            out.check_encodable(*survey.unencodable)
        except OutputError as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            out.close()
            return EXIT_IO
    status = EXIT_IO
    try:
        status = _run(args, inputs, survey, previous, tally, out)
        # A position typed on the command line that cannot be read is a usage error,
        # as an unreadable file is (a line of a file is only that problem's "invalid").
        if status in (0, 1) and survey.bad_argument:
            print(f"{PROG}: error: a position argument could not be read", file=sys.stderr)
            status = 2
    finally:
        client = getattr(args, "dask_client", None)
        if client is not None:
            client.close()
        try:
            out.close()
        except OutputError as e:
            # The last buffer did not reach the disk: the output is incomplete.
            print(f"{PROG}: error: {e}", file=sys.stderr)
            status = EXIT_IO
        except BrokenPipeError:
            status = EXIT_IO
    return status


def _dask_client(address: str) -> Any:
    """A Dask client for ``--dask``; _UsageError when the extra is missing or the
    scheduler cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise _UsageError("--dask needs the Dask extra: pip install 'usi-mate[dask]'") from None
    try:
        # Dask's own setting, so users shorten or lengthen the wait the way they know.
        return Client(address, timeout=_dask_connect_timeout())
    except (OSError, TimeoutError, ValueError) as e:
        raise _UsageError(f"--dask {address}: cannot reach the scheduler ({e})") from None


def _dask_connect_timeout() -> str:
    """How long ``--dask`` waits for the scheduler: Dask's ``distributed.comm.timeouts.connect``
    when the user set it (environment or config file), otherwise 10 s (Dask's own default,
    30 s, is long to wait for a mistyped address)."""
    import dask.config

    key = "distributed.comm.timeouts.connect"
    configured = dask.config.get(key, default=None)
    shipped = [dask.config.get(key, default=None, config=dict(d)) for d in dask.config.defaults]
    return "10s" if configured is None or configured in shipped else configured


def _run(
    args: argparse.Namespace,
    inputs: _Inputs,
    survey: _Survey,
    previous: PreviousOutput | None,
    tally: Tally,
    out: Any,
) -> int:
    """Solve the problems, write their records and the summary to ``out``; the exit status."""
    records = _open_records(args, survey, tally, out)
    stop = _StopRequests()
    stop.install()
    request = _request(args)
    started = time.perf_counter()
    try:
        if previous is None or not previous.has_content:
            records.writer.begin()
        answered = previous.answered if previous is not None else None
        if answered is not None:
            answered.restart()
        interrupted = _solve(args, _tasks(inputs, request, answered), records, stop)
        if records.bar is not None:
            records.bar.close()  # leaves the final bar above the summary instead of under it
        wall_ms = int((time.perf_counter() - started) * 1000)
        summary = records.tally.table(survey.total, wall_ms, args.check, interrupted)
        records.writer.end(summary)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as other filters do.
        return EXIT_IO
    except OutputError as e:
        # Results that cannot be written are no verdict: stop solving, say why once.
        if records.bar is not None:
            records.bar.close()
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_IO
    except _UsageError as e:
        # An input file that went away since the survey.
        if records.bar is not None:
            records.bar.close()
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        if records.bar is not None:
            records.bar.close()
        stop.restore()
    return _conclude(args, survey.total, records, stop, summary, interrupted)


@dataclass
class _Records:
    """The records of a run: made from the outcomes, written, tallied and counted on the bar."""

    args: argparse.Namespace
    writer: Any
    tally: Tally
    bar: Any  # a tqdm progress bar, or None
    bar_shares_terminal: bool
    lost: int = 0  # problems lost to a failing worker

    def emit(self, problem: Problem, outcome: Any) -> None:
        """Write the record of one problem, count it, and move the progress bar on."""
        record = self._record(problem, outcome)
        if self.bar_shares_terminal and self.bar is not None:
            self.bar.clear()
        self.writer.write(record)
        self.tally.add(record)
        if self.bar is not None:
            counts = self.tally.counts
            self.bar.set_postfix_str(f"solved {counts['mate'] + counts['nomate']}", refresh=False)
            self.bar.update(1)

    def _record(self, problem: Problem, outcome: Any) -> dict[str, Any]:
        """The record of a problem from its outcome: a result, a check report or an exception."""
        check = self.args.check
        if isinstance(outcome, BaseException):
            if isinstance(outcome, (ValueError, TypeError)):
                record = make_record(problem, None, str(outcome), check)
                record["status"] = "invalid"
            else:
                self.lost += 1
                record = make_record(problem, None, describe_failure(outcome), check)
                _report(self.bar, f"{problem.source}:{problem.line}: {record['error']}")
            return record
        if problem.sfen is None:
            return make_record(problem, None, problem.error, check)
        if self.args.check_cooks:
            return make_check_record(problem, outcome, check)
        return make_record(problem, outcome, None, check)


def _open_records(args: argparse.Namespace, survey: _Survey, tally: Tally, out: Any) -> _Records:
    """The writer of the chosen format on ``out``, the tally and the progress bar if any."""
    writer = WRITERS[args.format](out, survey.shape, args.check, check_cooks=args.check_cooks)
    show_progress = sys.stderr.isatty() if args.progress is None else args.progress
    bar = None
    if show_progress:
        from tqdm import tqdm

        bar = tqdm(
            total=survey.total,
            initial=survey.answered,
            file=sys.stderr,
            unit="problem",
            dynamic_ncols=True,
            desc="solving",
        )
    # A bar and records sharing one terminal: clear the bar around each record.
    bar_shares_terminal = bar is not None and out.isatty()
    return _Records(args, writer, tally, bar, bar_shares_terminal)


class _StopRequests:
    """Ctrl-C and SIGTERM during a run: a request to stop, seen by the runner at its next poll."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self.terminated = threading.Event()
        self._previous_handlers: dict[int, Any] = {}

    def install(self) -> None:
        """Take over SIGINT and SIGTERM (only the main thread may)."""
        if threading.current_thread() is threading.main_thread():
            self._previous_handlers[signal.SIGINT] = signal.signal(signal.SIGINT, self._on_sigint)
            self._previous_handlers[signal.SIGTERM] = signal.signal(
                signal.SIGTERM, self._on_sigterm
            )

    def restore(self) -> None:
        """Give SIGINT and SIGTERM back to the handlers they had before :meth:`install`."""
        for sig, handler in self._previous_handlers.items():
            signal.signal(sig, handler)

    def poll(self) -> None:
        """Raise Stopped once a stop was requested."""
        if self.requested.is_set():
            raise Stopped

    def _on_sigint(self, signum: int, frame: Any) -> None:
        """Ctrl-C: request a stop, or give up waiting at the second one."""
        if self.requested.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C: stop waiting for anything
        self.requested.set()

    def _on_sigterm(self, signum: int, frame: Any) -> None:
        """SIGTERM: request a stop, to end with 143."""
        self.terminated.set()
        self.requested.set()


def _tasks(
    inputs: _Inputs, request: SearchRequest, answered: Answered | None
) -> Iterator[tuple[Problem, Any]]:
    """The runner's tasks: each problem with its SFEN and search settings (None: not
    solvable), read as the runner asks for them; those ``answered`` already are left out."""
    for p in inputs.problems():
        if answered is not None and answered.take(p):
            continue
        yield p, (None if p.sfen is None else (p.sfen, request))


def _solve(
    args: argparse.Namespace,
    tasks: Iterator[tuple[Problem, Any]],
    records: _Records,
    stop: _StopRequests,
) -> bool:
    """Run the tasks and emit each record in input order; True when a stop cut the run short."""
    runner = _make_runner(args)
    try:
        ordered = InOrder(runner)
        try:
            for problem, outcome in ordered.run(tasks, stop.poll):
                records.emit(problem, outcome)
        except (Stopped, KeyboardInterrupt):
            runner.stop()
            # Flush what finished behind the problem we were waiting for: in
            # input order, complete records only, the unfinished left out.
            for problem, outcome in ordered.finished():
                records.emit(problem, outcome)
            return True
        runner.close()
        return False
    except (BrokenPipeError, OutputError, KeyboardInterrupt):
        # The run ends here (see _run): no search may outlive it.
        runner.stop()
        raise


def _make_runner(args: argparse.Namespace) -> Any:
    """The runner of the searches: worker processes or the Dask cluster, solving or checking."""
    spec = SolverSpec(args.hash, args.threads)
    executor, workers = None, None
    client = getattr(args, "dask_client", None)
    if client is not None:
        executor = client.get_executor()
        # Enough tasks in flight for every worker thread of the cluster.
        workers = max(1, sum(client.nthreads().values()))
    if args.check_cooks:
        from .checker import check_task

        return make_runner(args.jobs, spec, executor, check_task, workers)
    return make_runner(args.jobs, spec, executor, workers=workers)


def _conclude(
    args: argparse.Namespace,
    total: int,
    records: _Records,
    stop: _StopRequests,
    summary: str,
    interrupted: bool,
) -> int:
    """The end of the run on stderr (summary, stop, disagreements, losses); the exit status."""
    tally = records.tally
    if args.format != "text":
        sys.stderr.write(summary)
    if interrupted:
        print(
            f"{PROG}: {'terminated' if stop.terminated.is_set() else 'interrupted'}: "
            f"wrote {tally.written} of {total} results",
            file=sys.stderr,
        )
    if args.check and tally.disagreements:
        print_disagreements(tally.disagreements, total, PROG)
    if records.lost:
        print(
            f"{PROG}: {records.lost} problems lost to a failing worker (status error)",
            file=sys.stderr,
        )
    if interrupted:
        return 143 if stop.terminated.is_set() else 130
    return 1 if (args.check and tally.disagreements) or records.lost else 0


def _report(bar: Any, message: str) -> None:
    text = f"{PROG}: {message}"
    if bar is not None:
        bar.write(text, file=sys.stderr)
    else:
        print(text, file=sys.stderr)


if __name__ == "__main__":  # python -m usi_mate.batch ...
    sys.exit(main())
