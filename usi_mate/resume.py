"""Resuming a batch run from its output: ``usi-mate solve ... --output out.jsonl --resume``.

A run that was killed (a crash, ``kill -9``, a machine that went down) or stopped
leaves an output of whole records, written one at a time and flushed
(:mod:`usi_mate.records`), and at most one torn record at its end (a write cut short
by the kill). ``--resume`` reads that output, removes the torn end, skips every
problem a record already answers, and appends the records of the others: run to the
end, the file holds one record for every problem, each exactly once.

Which record answers which problem: the one with the same id, file name and line
number. The file name is taken without its folder, so a path written another way
still matches (``./big.sfen`` and ``/data/big.sfen``), unless two input files share
a name (``a/p.sfen`` and ``b/p.sfen``): then the whole path counts, as written
(normalized: ``a/./p.sfen`` is ``a/p.sfen``), so each record answers the file it came
from. Those three name one input line, also when ids repeat (two ``line 3`` of
different files, a file given twice: then the first records answer the first
occurrences). Records are in input order except after a stop, which writes the
finished records behind an unfinished one, and after a resume, which appends the
gaps: matching does not depend on their order.

Only ``jsonl`` and ``csv`` carry every record's id, source and line as data, so only
they can be resumed; ``text`` cuts long ids and ``kif`` keeps them in comments.

Memory: 9 bytes a record already written (a sorted array of 64-bit keys and one byte
to mark each as matched), whatever the records hold; the output is read a line at a
time. Two different lines have the same key with a chance of about 1 in 2^64 / n.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
import ntpath
import os
import posixpath
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .problems import Problem
from .records import CHECK_FIELDS, RECORD_FIELDS

__all__ = [
    "RESUMABLE_FORMATS",
    "ResumeError",
    "Answered",
    "PreviousOutput",
    "names_clash",
    "read_previous",
    "source_name",
]

RESUMABLE_FORMATS = ("jsonl", "csv")


class ResumeError(Exception):
    """The output cannot be resumed from; ``str()`` says why, for the user."""


def source_name(source: str, by_path: bool) -> str:
    """What of a problem's source tells it apart: its file name, or with ``by_path`` its
    whole path as written, normalized (either way / and \\ both separate folders, so a
    name written on Windows matches too)."""
    if by_path:
        return posixpath.normpath(source.replace("\\", "/"))
    return ntpath.basename(source)


def names_clash(sources: Iterable[str]) -> bool:
    """Whether two of these input files (as given) share a file name: then records are
    matched by whole paths (see the module documentation)."""
    paths = {source_name(s, True) for s in sources}
    return len({source_name(p, False) for p in paths}) < len(paths)


def _key(problem_id: str, source: str, line: int, by_path: bool) -> int:
    data = f"{problem_id}\0{source_name(source, by_path)}\0{line}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


class Answered:
    """The problems an output already answers, as keys (see the module documentation).

    :meth:`take` is asked for every input problem in order; each record answers one
    problem. :meth:`restart` forgets what was taken, for a second walk of the inputs.
    ``by_path``: records and problems are matched by whole paths, not file names.
    """

    def __init__(self, by_path: bool = False) -> None:
        self.by_path = by_path
        self._keys = array("Q")
        self._taken = bytearray()
        self._sorted = True

    def __len__(self) -> int:
        return len(self._keys)

    def add(self, problem_id: str, source: str, line: int) -> None:
        """A record of the output."""
        self._keys.append(_key(problem_id, source, line, self.by_path))
        self._sorted = False

    def _sort(self) -> None:
        if not self._sorted:
            self._keys = array("Q", sorted(self._keys))
            self._taken = bytearray(len(self._keys))
            self._sorted = True

    def take(self, problem: Problem) -> bool:
        """Whether a record answers ``problem`` (then that record is used up)."""
        self._sort()
        key = _key(problem.id, problem.source, problem.line, self.by_path)
        i = bisect_left(self._keys, key)
        while i < len(self._keys) and self._keys[i] == key:
            if not self._taken[i]:
                self._taken[i] = 1
                return True
            i += 1
        return False

    def untaken(self) -> int:
        """Records that answered no problem of the walk so far."""
        self._sort()
        return len(self._taken) - sum(self._taken)

    def restart(self) -> None:
        """Forget what was taken."""
        self._sort()
        self._taken = bytearray(len(self._keys))


@dataclass
class PreviousOutput:
    """What an earlier run left in the output file."""

    path: str
    answered: Answered = field(default_factory=Answered)
    has_content: bool = False  # anything kept (a csv header at least): append, no header
    torn_bytes: int = 0  # the torn end, removed by cut_torn_end()

    def cut_torn_end(self) -> None:
        """Remove the torn end from the file, once the run is sure to go on (a run refused
        before its first search leaves the file as it was). ResumeError if it cannot."""
        if not self.torn_bytes:
            return
        try:
            size = os.path.getsize(self.path)
            os.truncate(self.path, size - self.torn_bytes)
        except OSError as e:
            raise ResumeError(f"cannot remove the torn end of {self.path}: {e.strerror}") from None


def read_previous(
    path: str,
    fmt: str,
    encoding: str,
    check_cooks: bool,
    on_record: Callable[[dict[str, Any]], None],
    by_path: bool = False,
) -> PreviousOutput:
    """Read the output an earlier run left at ``path`` and remove its torn end.

    ``on_record`` gets every whole record (as a record dict, see
    :data:`usi_mate.records.RECORD_FIELDS`). A missing or empty file is a fresh start.
    ``by_path``: match records by whole paths (:func:`names_clash` of the inputs).
    ResumeError when the file cannot be read or is not an output of this format.
    """
    previous = PreviousOutput(path, Answered(by_path))
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return previous
    except OSError as e:
        raise ResumeError(f"cannot read {path}: {e.strerror}") from None
    with f:
        lines = _Lines(f, encoding)
        try:
            if fmt == "jsonl":
                _read_jsonl(lines, previous, on_record)
            else:
                _read_csv(lines, previous, check_cooks, on_record)
        except OSError as e:
            raise ResumeError(f"cannot read {path}: {e.strerror}") from None
        size = lines.size()
    previous.has_content = lines.kept > 0
    previous.torn_bytes = size - lines.kept
    return previous


class _Lines:
    """The lines of a file as text, each with its end; ``kept`` is the size of what has
    been read and accepted so far (what the file is cut back to)."""

    def __init__(self, f: Any, encoding: str) -> None:
        self._f = f
        self._decoder = codecs.getincrementaldecoder(encoding)
        self.encoding = encoding
        self.kept = 0
        self.read = 0  # bytes of whole lines handed out
        self.number = 0

    def __iter__(self) -> Iterator[str]:
        if "\n".encode(self.encoding) != b"\n":
            # UTF-16 and UTF-32: a byte 0x0a is not a line end there.
            yield from self._decoded_lines()
            return
        for raw in self._f:
            if not raw.endswith(b"\n"):
                return  # a torn end: a record's write cut short
            self.read += len(raw)
            self.number += 1
            try:
                yield raw.decode(self.encoding)
            except UnicodeDecodeError:
                raise ResumeError(
                    f"line {self.number} is not {self.encoding} text: not an output of "
                    "usi-mate solve with these options"
                ) from None

    def _decoded_lines(self) -> Iterator[str]:
        """The whole lines of an encoding whose line end is not the byte 0x0a, each line's
        size in bytes measured by encoding it again (a byte-order mark counted once)."""
        decoder = self._decoder()
        encoder = codecs.getincrementalencoder(self.encoding)()
        pending = ""
        for block in iter(lambda: self._f.read(1 << 16), b""):
            try:
                pending += decoder.decode(block)
            except UnicodeDecodeError:
                raise ResumeError(
                    f"line {self.number + 1} is not {self.encoding} text: not an output of "
                    "usi-mate solve with these options"
                ) from None
            *whole, pending = pending.split("\n")
            for text in whole:
                line = text + "\n"
                self.read += len(encoder.encode(line))
                self.number += 1
                yield line
        # What is left without a line end is a torn end: a record's write cut short.

    def accept(self) -> None:
        """Everything handed out so far is kept."""
        self.kept = self.read

    def size(self) -> int:
        self._f.seek(0, os.SEEK_END)
        return int(self._f.tell())


def _not_a_record(where: str, why: str) -> ResumeError:
    return ResumeError(
        f"{where} is not a record of usi-mate solve ({why}): resume only from the output "
        "of the same command"
    )


def _read_jsonl(
    lines: _Lines, previous: PreviousOutput, on_record: Callable[[dict[str, Any]], None]
) -> None:
    last: tuple[int, str, int] | None = None  # a line is kept once another one follows it
    for text in lines:
        if last is not None:
            _jsonl_record(last[0], last[1], previous, on_record)
            lines.kept = last[2]
        last = (lines.number, text, lines.read)
    _last_record(last, lambda n, t: _jsonl_record(n, t, previous, on_record), lines)


def _last_record(last: Any, read: Callable[..., Any], lines: _Lines) -> None:
    """The last whole line: a record, or the start of the torn end (a kill between two
    writes of one long record can leave a line that ends where a field did)."""
    if last is None:
        return
    try:
        read(last[0], last[1])
    except ResumeError:
        return  # solved again
    lines.kept = last[2]


def _jsonl_record(
    number: int, text: str, previous: PreviousOutput, on_record: Callable[[dict[str, Any]], None]
) -> None:
    try:
        record = json.loads(text)
    except ValueError:
        raise _not_a_record(f"line {number}", "not JSON") from None
    if not isinstance(record, dict) or any(name not in record for name in RECORD_FIELDS):
        raise _not_a_record(f"line {number}", "fields missing")
    if not isinstance(record["id"], str) or not isinstance(record["line"], int):
        raise _not_a_record(f"line {number}", "id or line of the wrong type")
    previous.answered.add(record["id"], str(record["source"]), record["line"])
    on_record(record)


def _read_csv(
    lines: _Lines,
    previous: PreviousOutput,
    check_cooks: bool,
    on_record: Callable[[dict[str, Any]], None],
) -> None:
    header = RECORD_FIELDS + (CHECK_FIELDS if check_cooks else [])
    rows = csv.reader(iter(lines))
    try:
        first = next(rows, None)
        if first is None:
            return
        if first != header:
            other = RECORD_FIELDS + ([] if check_cooks else CHECK_FIELDS)
            hint = f" (written {'without' if check_cooks else 'with'} --check-cooks)"
            raise ResumeError(
                "its first line is not the csv header of this command"
                + (hint if first == other else "")
                + ": resume only from the output of the same command"
            )
        lines.kept = lines.read
        last: tuple[int, list[str], int] | None = None
        for row in rows:
            if last is not None:
                _csv_record(last[0], last[1], header, previous, on_record)
                lines.kept = last[2]
            last = (lines.number, row, lines.read)
    except csv.Error as e:
        raise _not_a_record(f"line {lines.number}", str(e)) from None
    _last_record(last, lambda n, r: _csv_record(n, r, header, previous, on_record), lines)


def _csv_record(
    number: int,
    row: list[str],
    header: Any,
    previous: PreviousOutput,
    on_record: Callable[[dict[str, Any]], None],
) -> None:
    if len(row) != len(header):
        raise _not_a_record(f"row {number}", f"{len(row)} fields, not {len(header)}")
    values = dict(zip(header, row))
    try:
        record = {name: _csv_value(name, values[name]) for name in RECORD_FIELDS}
    except ValueError:
        raise _not_a_record(f"row {number}", "a number field that is no number") from None
    if check_verdict := values.get("verdict"):
        record["check"] = {"verdict": check_verdict}
    previous.answered.add(record["id"], record["source"], record["line"])
    on_record(record)


_INT_FIELDS = {"length", "nodes", "time_ms", "line", "min_length", "shortest_possible"}
_BOOL_FIELDS = {"agrees", "min_length_proven"}


def _csv_value(name: str, text: str) -> Any:
    """A csv field as the record holds it (the csv writer's conventions undone)."""
    if name == "moves":
        return text.split()
    if name in ("id", "sfen", "source", "status"):
        return text
    if text == "":
        return None
    if name in _INT_FIELDS:
        return int(text)
    if name in _BOOL_FIELDS:
        return text == "true"
    return text
