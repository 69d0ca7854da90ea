"""``usi-mate check``: a composer's check of problems from the command line.

Each input is a position (SFEN, ``sfen ... moves ...``), a problem file (one
position a line, as ``usi-mate solve`` reads them), a KIF file (``.kif`` or
``.kifu``: its start position and its main line, the intended solution) or ``-``
for stdin. ``--line`` gives the intended solution of a single position as USI
moves. Each problem gets a report (:func:`usi_mate.check`) written as text,
JSON lines, KIF with variations, or one HTML page with board diagrams
(:mod:`usi_mate.check_html`).

Exit status: 0 every problem is sound; 1 some problem is cooked, has an unsound
defence, has no mate or cannot be searched; 3 no flaw was found but some
question stayed open (undecided); 2 bad usage, an unreadable file, an input
without a problem line, or reports that cannot be written (a full disk, a
missing folder, an I/O error: one ``error: cannot write`` line, see
:mod:`usi_mate.outputs`; a reader that goes away, as ``| head``, ends the run
quietly with 2 as well); 130 interrupted by Ctrl-C (the reports finished so far
are written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ._core import Solver
from .batch import _group_inputs, _hash_mb, _nodes, _time_ms
from .check_html import HTML_TAIL, html_head, html_section
from .check_report import CheckReport, format_kif, format_text
from .checker import check
from .echo import ECHO_ERROR_LIMIT, ECHO_ID_LIMIT, printable
from .kif import parse_kif
from .memory import tables_fit
from .outputs import (
    EXIT_IO,
    OutputError,
    OutputStream,
    encoding_name,
    open_output,
    output_format,
)
from .problems import make_problem
from .settings import DEFAULT_HASH_MB

__all__ = ["main", "build_parser"]

PROG = "usi-mate check"
FORMATS = ("text", "jsonl", "kif", "html")
# A check asks many questions; without a limit one hard question could keep it
# busy for hours. 60 s a problem settles the tendo problems (44, 1-23 plies)
# that can be settled at all; --time raises it.
DEFAULT_TIME_MS = 60_000
KIF_SUFFIXES = (".kif", ".kifu")
EXIT_FLAW, EXIT_UNDECIDED = 1, 3
EXIT_USAGE = EXIT_IO  # one status for every failure that is not a verdict: 2


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``usi-mate check`` (every option declared once, here)."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Check tsume-shogi problems as a composer would: cooks (余詰), "
        "variations (変化, 変同), longer defences and spare pieces (駒余り) along the main "
        "line, with a verdict for each problem.",
        epilog="exit status: 0 every problem sound; 1 some problem flawed (cooked, unsound "
        "defence, no mate, invalid); 3 no flaw but a question open (undecided); 2 no "
        "verdict: bad usage, unreadable input, no problem line, or reports that cannot "
        "be written (error: cannot write ...); 130 interrupted.",
    )
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="a position (SFEN, 'sfen ... moves ...'), a problem file, a KIF file (.kif, "
        ".kifu: the start position and the intended line), or - for stdin",
    )
    p.add_argument(
        "--line",
        metavar="MOVES",
        help="the intended solution (作意) of a single position, as USI moves; without it "
        "the solver's shortest mate is the main line",
    )
    p.add_argument(
        "--time",
        type=_time_ms,
        default=DEFAULT_TIME_MS,
        metavar="MS",
        help=f"time for each problem's whole check (default: {DEFAULT_TIME_MS})",
    )
    p.add_argument("--nodes", type=_nodes, metavar="N", help="node limit for each problem's check")
    p.add_argument(
        "--hash",
        type=_hash_mb,
        default=DEFAULT_HASH_MB,
        metavar="MB",
        help=f"transposition table size in MB (default: {DEFAULT_HASH_MB}); the hardest "
        "questions may use a second table as large",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="count futile interpositions as defences (by default they are left out, as in "
        "the answer)",
    )
    p.add_argument(
        "--first-flaw",
        action="store_true",
        help="stop each check as soon as its verdict is settled (by default every question "
        "the limits allow is settled, to list every cook)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="text for people (the default, unless --output's name implies another: .kif, "
        ".kifu, .jsonl, .html), jsonl for tools, kif for a GUI (variations as 変化), html: one "
        "page with a board diagram of each problem and of each finding and variation (the "
        "diagrams need cshogi: pip install 'usi-mate[board]'; without it, text diagrams)",
    )
    p.add_argument(
        "--verbose", "-v", action="store_true", help="text: also list the shorter variations"
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write to FILE instead of stdout; a .kif file is written in Shift_JIS (CP932, "
        "CRLF), a .kifu file and any other in UTF-8, as KIF readers expect; the name's "
        "format unless --format says otherwise (a --format that contradicts it is refused)",
    )
    p.add_argument(
        "--encoding",
        type=encoding_name,
        metavar="NAME",
        help="write the output in this encoding instead (utf-8, cp932, ...)",
    )
    return p


def _echo_error(error: Exception) -> str:
    # A message that quotes the input: clipped, and no escape sequence reaches the terminal.
    return printable(str(error), ECHO_ERROR_LIMIT, ascii_only=False)


def _decode(data: bytes) -> str:
    # KIF files from Windows tools are often Shift_JIS (.kif); .kifu is UTF-8.
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp932", errors="replace")


def _read_inputs(inputs: list[str], line: str | None, stdin: Any) -> list[dict[str, Any]]:
    """The problems to check: dicts with id, sfen (or error), the given line and where from."""
    problems: list[dict[str, Any]] = []
    groups = _group_inputs(inputs)
    for kind, value in groups:
        if kind == "file" and value.lower().endswith(KIF_SUFFIXES):
            try:
                record = parse_kif(_decode(Path(value).read_bytes()))
            except OSError as e:
                raise _UsageError(f"cannot read {value}: {e.strerror}") from None
            except ValueError as e:
                raise _UsageError(f"{value}: {_echo_error(e)}") from None
            problems.append(
                {
                    "id": printable(Path(value).stem, ECHO_ID_LIMIT, ascii_only=False),
                    "sfen": record.sfen,
                    "line": list(record.moves),
                    "source": value,
                    "error": None,
                }
            )
            continue
        if kind == "position":
            source, lines = "argument", [(len(problems) + 1, value)]
        else:
            source = "<stdin>" if kind == "stdin" else value
            try:
                data = stdin.buffer.read() if kind == "stdin" else Path(value).read_bytes()
            except OSError as e:
                raise _UsageError(f"cannot read {value}: {e.strerror}") from None
            lines = list(enumerate(_decode(data).splitlines(), 1))
        for line_no, raw in lines:
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            fallback = f"arg {line_no}" if kind == "position" else f"{source}:line {line_no}"
            problem = make_problem(len(problems), source, line_no, raw, fallback)
            problems.append(
                {
                    "id": problem.id,
                    "sfen": problem.sfen,
                    "line": None,
                    "source": source,
                    "error": problem.error,
                }
            )
    if line is not None:
        if len(problems) != 1:
            raise _UsageError("--line needs exactly one position")
        problems[0]["line"] = line.split()
    return problems


def _record(problem: dict[str, Any], report: CheckReport) -> dict[str, Any]:
    return {
        "id": problem["id"],
        "sfen": report.sfen,
        "source": problem["source"],
        **report.to_dict(),
    }


def _write(
    out: Any, fmt: str, problem: dict[str, Any], report: CheckReport, verbose: bool, index: int
) -> None:
    if fmt == "jsonl":
        text = json.dumps(_record(problem, report), ensure_ascii=False) + "\n"
    elif fmt == "kif":
        text = "\n".join(format_kif(report, comments=(problem["id"],))) + "\n\n"
    elif fmt == "html":
        text = html_section(report, title=problem["id"], index=index)
    else:
        text = format_text(report, title=problem["id"], verbose=verbose) + "\n"
    out.write(text)
    out.flush()


def _check_one(
    solver: Solver, args: argparse.Namespace, problem: dict[str, Any], out: OutputStream, index: int
) -> str:
    """Check one problem of the run and write its report; its verdict ("invalid" when it
    could not be checked, said on stderr)."""
    if problem["sfen"] is None:
        print(f"{PROG}: {problem['id']}: skipped: {problem['error']}", file=sys.stderr)
        return "invalid"
    try:
        report = check(
            problem["sfen"],
            line=problem["line"],
            time_limit_ms=args.time,
            nodes_limit=args.nodes,
            solver=solver,
            ignore_futile_interpositions=not args.strict,
            exhaustive=not args.first_flaw,
        )
    except ValueError as e:
        # e.g. an illegal move of --line, quoted in the message as it was given
        print(f"{PROG}: {problem['id']}: {_echo_error(e)}", file=sys.stderr)
        return "invalid"
    _write(out, args.format, problem, report, args.verbose, index)
    return report.verdict


def main(argv: list[str] | None = None) -> int:
    """Run ``usi-mate check`` with ``argv`` (without the program name); return the exit status."""
    parser = build_parser()
    args = parser.parse_intermixed_args(argv)
    try:
        if not args.inputs:
            raise _UsageError("no input: give positions, problem or KIF files, or - for stdin")
        try:
            args.format = output_format(args.output, args.format, FORMATS)
        except ValueError as e:
            raise _UsageError(str(e)) from None
        problems = _read_inputs(args.inputs, args.line, sys.stdin)
        if not problems:
            # Nothing checked is no verdict: 0 would read as "every problem is sound".
            raise _UsageError("no problem to check: the input has only blank and comment lines")
        # A check may use a second table as large for its hardest questions.
        too_big = tables_fit(args.hash, 2)
        if too_big:
            raise _UsageError(f"--hash {args.hash}: {too_big}")
    except _UsageError as e:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        out = open_output(args.output, args.encoding)
    except OutputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_IO
    try:
        # Before any search, not at the problem's report (a .kif file is CP932).
        for problem in problems:
            out.check_encodable(problem["id"], f"in problem id {problem['id']!r}")
            out.check_encodable(problem["source"], f"in file name {problem['source']!r}")
    except OutputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        out.close()
        return EXIT_IO
    solver = Solver(args.hash)
    status = None
    verdicts: list[str] = []
    html = args.format == "html"
    try:
        if html:
            # One page for the whole run: its head now, its end after the last report.
            one = problems[0]["id"] if len(problems) == 1 else f"{len(problems)} problems"
            out.write(html_head(f"usi-mate check: {one}"))
        for index, problem in enumerate(problems):
            verdicts.append(_check_one(solver, args, problem, out, index))
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as other filters do.
        status = EXIT_IO
    except OutputError as e:
        # Reports that cannot be written are no verdict about the problems.
        print(f"{PROG}: error: {e}", file=sys.stderr)
        status = EXIT_IO
    finally:
        try:
            if html:
                out.write(HTML_TAIL)  # a no-op once writing has failed
            out.close()
        except OutputError as e:
            # The last buffer did not reach the disk: the reports are incomplete.
            print(f"{PROG}: error: {e}", file=sys.stderr)
            status = EXIT_IO
        except BrokenPipeError:
            status = EXIT_IO
    if status is not None:
        return status
    if any(v in ("cooked", "unsound_defence", "nomate", "invalid") for v in verdicts):
        return EXIT_FLAW
    return EXIT_UNDECIDED if "undecided" in verdicts else 0


if __name__ == "__main__":  # python -m usi_mate.check_cli ...
    sys.exit(main())
