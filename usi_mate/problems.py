"""The problem-file format and what its labels mean: one definition for the batch
tool, the benchmarks and the tests.

One position a line::

    <position> # <expected> <id> [key=value ...]

``<position>`` is a bare SFEN, ``sfen <sfen> [moves ...]`` or ``startpos [moves ...]``;
``<expected>`` (optional, like everything after ``#``) is a label:

- ``N``: the answer is a mate in exactly N plies (shortest mate, longest defence,
  futile interpositions left out as composers count, unless a file says otherwise);
- ``nomate``: there is no mate;
- ``nomate<=N``: there is no mate within N plies (a longer one may exist);
- ``>=N``: the shortest mate is at least N plies long.

Blank lines and lines that start with ``#`` are skipped. A label (:class:`Expected`)
is checked against an *answer* (:meth:`Expected.agrees`, exact lengths: what
``usi-mate solve --check`` reports).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ._core import Position
from .echo import ECHO_ERROR_LIMIT, ECHO_ID_LIMIT, printable

__all__ = ["Expected", "Problem", "parse_problem_line", "make_problem", "read_problem_file"]

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
        assert self.plies is not None  # "nomate_within" and "at_least" carry N
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


def make_problem(index: int, source: str, line_no: int, raw: str, fallback_id: str) -> Problem:
    """Parse one line into a :class:`Problem` (a malformed one gets ``sfen=None`` and ``error``).

    The id and the error are made safe to echo (:func:`usi_mate.echo.printable`: clipped,
    control characters escaped): both end up on a terminal or in a report, and the error
    quotes the input it refuses, which may be an 8 MB line or an escape sequence.
    """
    try:
        text, expected, problem_id, extra = parse_problem_line(raw)
    except ValueError as e:
        text = raw.partition("#")[0].strip()
        return Problem(index, source, line_no, _echo_id(fallback_id), text, None, None, _echo(e))
    pid = _echo_id(problem_id or fallback_id)
    try:
        sfen = Position(text).sfen()
    except ValueError as e:
        return Problem(index, source, line_no, pid, text, None, expected, _echo(e), extra)
    return Problem(index, source, line_no, pid, text, sfen, expected, None, extra)


def _echo_id(problem_id: str) -> str:
    return printable(problem_id, ECHO_ID_LIMIT, ascii_only=False)


def _echo(error: ValueError) -> str:
    return printable(str(error), ECHO_ERROR_LIMIT, ascii_only=False)


def read_problem_file(path: str | Path) -> Iterator[Problem]:
    """Every problem of a file, in order (ids default to ``<file>:line N``)."""
    path = Path(path)
    data = path.read_bytes().decode("utf-8-sig", errors="replace")  # a BOM from Windows editors
    index = 0
    for line_no, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        yield make_problem(index, str(path), line_no, raw, f"{path.name}:line {line_no}")
        index += 1
