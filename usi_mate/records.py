"""Output of batch runs: one record per problem, in four formats, and the summary.

A record is a plain dict (:data:`RECORD_FIELDS`, in that order): ``jsonl`` writes it
as it is, ``csv`` as a row, ``text`` as an aligned line, ``kif`` as a KIF game a
GUI imports. With ``--check-cooks`` a record also holds ``check``, the composer's
check (:meth:`usi_mate.check_report.CheckReport.to_dict`): jsonl writes it whole,
csv adds its verdict columns (:data:`CHECK_FIELDS`), text adds the verdict and one
line per flaw, kif writes the alternatives as variations (変化).

Every writer writes whole records and flushes each, so a reader (or an
interrupted run) never sees half a record.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from .echo import ECHO_ERROR_LIMIT, printable
from .problems import Problem
from .types import MateResult

RECORD_FIELDS = [
    "id",
    "sfen",
    "expected",
    "status",
    "length",
    "moves",
    "nodes",
    "time_ms",
    "agrees",
    "error",
    "min_length_proven",
    "min_length",
    "shortest_possible",
    "length_stop",
    "certified",
    "source",
    "line",
]


# Columns csv adds with --check-cooks.
CHECK_FIELDS = ["verdict", "verdict_move", "cooks", "undecided"]


def make_check_record(problem: Problem, outcome: Any, check: bool) -> dict[str, Any]:
    """The record of one problem checked with ``--check-cooks`` (``outcome``: a
    :class:`usi_mate.check_report.CheckReport`): its main search's record plus ``check``;
    ``nodes`` and ``time_ms`` are those of the whole check."""
    result = outcome.result or MateResult(status="unknown", error=outcome.reason)
    record = make_record(problem, result, None, check)
    record["nodes"], record["time_ms"] = outcome.nodes, outcome.time_ms
    record["check"] = outcome.to_dict()
    # Kept for the KIF writer, which writes the variations; not written as data.
    record["_report"] = outcome
    return record


def make_record(
    problem: Problem, result: MateResult | None, error: str | None, check: bool
) -> dict[str, Any]:
    """The output record of one problem (field order = RECORD_FIELDS).

    ``status`` is the result's ("mate", "nomate", "unknown", "invalid"), "invalid"
    for a line that could not be read, or "error" when no result came back (the
    search raised, or its worker process died: ``error`` says which).
    """
    min_length_proven = None
    min_length = None
    shortest_possible = None
    length_stop = None
    certified = None
    if result is None:
        status = "invalid" if problem.sfen is None else "error"
        length, moves, nodes, time_ms = None, [], 0, 0
    else:
        status, length, moves = result.status, result.mate_length, list(result.moves)
        nodes, time_ms = result.nodes, result.time_ms
        error = result.error
        if status == "mate":
            # Whether no shorter mate exists (the shortest-mate post-search
            # finished); None from a core that does not report it.
            min_length_proven = getattr(result, "min_length_proven", None)
            # That proven minimum: the longest defence's, which the line may not take.
            min_length = getattr(result, "min_length", None)
            # Else the proven lower bound and why the search for a shorter mate ended
            # (MateResult.shortest_possible, MateResult.length_stop).
            shortest_possible = getattr(result, "shortest_possible", None)
            length_stop = getattr(result, "length_stop", None)
        certification = getattr(result, "certification", None)
        if certification is not None:
            certified = certification.status
            if certification.status == "refuted":
                # A "no mate" the independent check does not back is a bug to report, not a verdict.
                error = f"no mate not certified: {certification.reason}"
    agrees = None
    if check and problem.expected is not None:
        agrees = problem.expected.agrees(status, length) and certified != "refuted"
    elif check and status in ("error", "invalid"):
        agrees = False  # a line that could not be read or solved confirms no label
    return {
        "id": problem.id,
        # A line that is no position is echoed as read, clipped and escaped (see .echo).
        "sfen": problem.sfen or printable(problem.text, ECHO_ERROR_LIMIT, ascii_only=False),
        "expected": problem.expected.text if problem.expected else None,
        "status": status,
        "length": length,
        "moves": moves,
        "nodes": nodes,
        "time_ms": time_ms,
        "agrees": agrees,
        "error": error,
        "min_length_proven": min_length_proven,
        "min_length": min_length,
        "shortest_possible": shortest_possible,
        "length_stop": length_stop,
        "certified": certified,
        "source": problem.source,
        "line": problem.line,
    }


@dataclass
class InputShape:
    """What the text writer sizes its columns by, gathered from every problem before
    the first search (without keeping the problems: a run may have millions)."""

    id_columns: int = 0  # the widest id, in terminal columns
    label_chars: int = 0  # the longest label
    any_error: bool = False  # a line that could not be read

    def add(self, problem: Problem) -> None:
        """Take one problem into account."""
        self.id_columns = max(self.id_columns, _columns(problem.id))
        if problem.expected:
            self.label_chars = max(self.label_chars, len(problem.expected.text))
        self.any_error = self.any_error or bool(problem.error)


class _Writer:
    """Writes records to a text stream, one complete record per write() call.

    One write per record (built as a whole string first) is what keeps an
    interrupted run's output valid: a record is either all there or absent.
    """

    def __init__(self, out: Any, shape: InputShape, check: bool, *, check_cooks: bool = False):
        self.out, self.shape, self.check = out, shape, check
        self.check_cooks = check_cooks

    def begin(self) -> None:
        """Write whatever precedes the records."""

    def format(self, record: dict[str, Any]) -> str:
        """The text of one record, newline included."""
        raise NotImplementedError

    def write(self, record: dict[str, Any]) -> None:
        """Write one record and flush it, so a reader (or a crash) sees whole records."""
        self.out.write(self.format(record))
        self.out.flush()

    def end(self, summary: str) -> None:
        """Write whatever follows the records (the text format's summary table)."""


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


class _JsonlWriter(_Writer):
    def format(self, record: dict[str, Any]) -> str:
        return json.dumps(_public(record), ensure_ascii=False) + "\n"


class _CsvWriter(_Writer):
    def begin(self) -> None:
        self.out.write(self._row(RECORD_FIELDS + (CHECK_FIELDS if self.check_cooks else [])))

    @staticmethod
    def _row(values: list[Any]) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        return buf.getvalue()

    def format(self, record: dict[str, Any]) -> str:
        values = []
        for name in RECORD_FIELDS:
            v = record[name]
            if name == "moves":
                v = " ".join(v)
            elif isinstance(v, bool):
                v = "true" if v else "false"
            values.append("" if v is None else v)
        if self.check_cooks:
            c = record.get("check") or {}
            counts = c.get("counts", {})
            values += [
                c.get("verdict", ""),
                "" if c.get("verdict_move") is None else c["verdict_move"],
                counts.get("cook", 0),
                counts.get("undecided", 0),
            ]
        return self._row(values)


def _verdict(record: dict[str, Any]) -> str:
    if record["status"] == "mate":
        # "?": a limit ended the shortest-mate search first, so a shorter mate
        # may exist. Worth seeing next to a length that differs from its label.
        unsure = "?" if record.get("min_length_proven") is False else ""
        return f"mate {record['length']}{unsure}"
    if record["status"] == "nomate" and record.get("certified"):
        # nomate+ certified, nomate! refuted (a bug), nomate~ tree too large to check
        return "nomate" + {"certified": "+", "refuted": "!", "incomplete": "~"}[record["certified"]]
    return str(record["status"])


def _check_note(record: dict[str, Any]) -> str:
    if record["agrees"] is None:
        return ""
    if record["agrees"]:
        return "ok"
    if record["expected"] is None:
        return "DIFFERS (unreadable line)"
    return f"DIFFERS (expected {record['expected']})"


def _columns(text: str) -> int:
    """Terminal columns of ``text``: wide (East Asian) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _fit(text: str, width: int) -> str:
    """``text`` in exactly ``width`` terminal columns: padded, or cut with an ellipsis."""
    if _columns(text) > width:
        while text and _columns(text) > width - 1:
            text = text[:-1]
        text += "…"
    return text + " " * (width - _columns(text))


class _TextWriter(_Writer):
    """One aligned line a problem, then the summary table.

    The mating line goes last although it is the most interesting field: it
    can be hundreds of moves long, and the fixed-width columns before it stay
    readable only if nothing variable comes first.
    """

    def begin(self) -> None:
        # Every problem is read before the first search, so the id column
        # can be sized up front, in terminal columns (capped so that one long id
        # does not push everything: longer ones are cut, jsonl and csv keep them whole).
        self.id_width = min(self.shape.id_columns or 2, 40)
        self.check_width = max(
            len("DIFFERS (expected )") + self.shape.label_chars,
            len("DIFFERS (unreadable line)") if self.shape.any_error else 0,
        )

    def format(self, record: dict[str, Any]) -> str:
        cols = [
            _fit(record["id"], self.id_width),
            _verdict(record).ljust(8),
            f"{record['nodes']:>10} nodes",
            f"{record['time_ms'] / 1000:>8.3f} s",
        ]
        if self.check:
            cols.append(_check_note(record).ljust(self.check_width))
        report = record.get("check")
        if report is not None:
            cols.append(report["verdict_text"].ljust(24))
        if record["status"] in ("error", "invalid") or (record["error"] and not record["moves"]):
            cols.append(f"({record['error']})")
        else:
            cols.append(" ".join(record["moves"]))
        text = "  ".join(cols).rstrip() + "\n"
        if report is not None:
            # One line per flaw: what a composer acts on (jsonl and kif hold everything).
            for a in report["alternatives"]:
                if a["kind"] in ("cook", "longer", "escape"):
                    length = "" if a["length"] is None else f" (mates in {a['length']})"
                    text += f"    move {a['move_number']}: {a['kind']} {' '.join(a['line'])}"
                    text += f"{length}\n" if a["line"] else f"{a['move']}{length}\n"
        return text

    def end(self, summary: str) -> None:
        self.out.write("\n" + summary)
        self.out.flush()


class _KifWriter(_Writer):
    """A KIF record a problem (board diagram and numbered moves), blank-line separated.

    Each block is a complete KIF game that a GUI imports when pasted on its
    own; the ``#`` lines carry the id, the SFEN and the verdict.
    """

    def format(self, record: dict[str, Any]) -> str:
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
        comments.append(
            f"result: {verdict}  ({record['nodes']} nodes, {record['time_ms'] / 1000:.3f} s)"
        )
        if record["error"]:
            comments.append(f"error: {record['error']}")
        if record["status"] in ("error", "invalid"):
            return "\n".join("# " + c for c in comments) + "\n\n"
        report = record.get("_report")
        if report is not None and report.main_line:
            from .check_report import format_kif

            return "\n".join(format_kif(report, comments=tuple(comments))) + "\n\n"
        end = {"mate": "詰み", "nomate": "不詰"}.get(record["status"], "中断")
        lines = format_kif_record(record["sfen"], record["moves"], comments=comments, end=end)
        return "\n".join(lines) + "\n\n"


WRITERS = {"text": _TextWriter, "jsonl": _JsonlWriter, "csv": _CsvWriter, "kif": _KifWriter}


@dataclass
class Tally:
    """Counts of a run, for the summary table."""

    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("mate", "nomate", "unknown", "invalid", "error"), 0)
    )
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    unlabelled: int = 0
    unsure_lengths: int = 0
    certified: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("certified", "refuted", "incomplete"), 0)
    )
    search_ms: int = 0
    written: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)

    def add(self, record: dict[str, Any]) -> None:
        """Count one written record (its status, check verdict, time and label agreement)."""
        self.counts[record["status"]] += 1
        if "check" in record:
            verdict = record["check"]["verdict"]
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
        self.search_ms += record["time_ms"]
        self.written += 1
        if record["agrees"] is False:
            self.disagreements.append(record)
        if record["status"] == "mate" and record.get("min_length_proven") is False:
            self.unsure_lengths += 1
        if record.get("certified") is not None:
            self.certified[record["certified"]] += 1

    def table(self, total: int, wall_ms: int, check: bool, interrupted: bool) -> str:
        """The summary table printed after the records."""
        rows = [
            ("problems", str(total)),
            ("mate", str(self.counts["mate"])),
            ("no mate", str(self.counts["nomate"])),
            ("unknown", str(self.counts["unknown"])),
            ("invalid", str(self.counts["invalid"])),
            ("errors", str(self.counts["error"])),
            ("disagreements", str(len(self.disagreements)) if check else "-"),
            ("search time", f"{self.search_ms / 1000:.3f} s"),
            ("wall time", f"{wall_ms / 1000:.3f} s"),
        ]
        if check and self.unlabelled:
            rows.insert(6, ("no label", str(self.unlabelled)))
        if interrupted:
            rows.insert(1, ("not solved", str(total - self.written)))
        if self.verdicts:
            rows += [
                (f"check: {v.replace('_defence', '')}", str(self.verdicts.get(v, 0)))
                for v in ("sound", "cooked", "unsound_defence", "undecided", "nomate", "invalid")
                if self.verdicts.get(v) or v in ("sound", "cooked", "undecided")
            ]
        # Names up to 16 characters ("check: undecided"), values right-aligned.
        width = 16 if self.verdicts else 14
        table = "".join(f"{name:<{width}}{value:>12}\n" for name, value in rows)
        if self.unsure_lengths:
            table += f"(mate N?: {self.unsure_lengths} not proven the shortest)\n"
        if any(self.certified.values()):
            c = self.certified
            table += (
                f"(no mate checked without the table: {c['certified']} certified, "
                f"{c['incomplete']} too large to check, {c['refuted']} NOT BACKED)\n"
            )
        return table


def print_disagreements(records: list[dict[str, Any]], total: int, prog: str) -> None:
    """The --check report on stderr: one line per disagreeing problem."""
    lines = [f"{prog}: {len(records)} of {total} problems disagree with their labels:"]
    width = min(max(len(r["id"]) for r in records), 40)
    for r in records:
        got = _verdict(r)
        if got.endswith("?"):
            spent = r.get("length_stop") == "effort"
            why = "its share of work spent" if spent else "a limit came first"
            got = got[:-1] + f" (not proven the shortest: {why})"
        if r["error"]:
            got += f" ({r['error']})"
        lines.append(f"  {r['id']:<{width}}  expected {r['expected'] or '-'}, got {got}")
    sys.stderr.write("\n".join(lines) + "\n")
