#!/usr/bin/env python3
"""Mate-problem benchmark of USI mate engines, each driven as a program over USI.

    python -m scripts.bench_usi --time 10000 \\
        --engine "usi-mate=python -m usi_mate" \\
        --engine "shtsume=/path/to/shtsume" \\
        --engine "kh=/path/to/KomoringHeights-by-gcc" \\
        --option kh:Threads=1 --option kh:PostSearchLevel=MinLength \\
        --option '*:USI_Hash=1024' --jsonl run.jsonl \\
        problems/zukou.sfen problems/muso.sfen

Engines (``--engine NAME=CMD``, repeatable; CMD is split like a shell line, no shell
runs it) are measured one after the other, never two at once: each is started once,
sent ``usi``, its ``--option NAME:Key=Value`` settings (``*:Key=Value`` for every engine),
``isready`` and ``usinewgame``, then for every problem ``position sfen <sfen>`` and
``go mate <ms>``, and its ``checkmate ...`` line is awaited. Time is the wall time from
sending ``go mate`` to reading ``checkmate``; before it the driver waits until the engine
process is idle (on Linux, by its CPU time), since shtsume clears its table after
answering and that would count in the next problem's time. An engine that has not
answered within the time limit + 5 s is killed (its process group) and restarted before
the next problem, and the problem counts as a timeout. Tables are not cleared between
problems unless ``--restart-each`` restarts the engine before every problem (outside the
timing): usi-mate and KomoringHeights keep their table across ``go mate`` commands,
shtsume clears its own after each.

Problem files are read with :mod:`usi_mate.problems` (``<sfen> # <label> <id> ...``;
labels ``N``, ``nomate``, ``nomate<=N``, ``>=N``). Every mating line is replayed with
:func:`mate_lines.check_mate_line` (scripts/mate_lines.py, cshogi's move generator):
every move legal, every attacker move a check, no fourfold repetition, ending in
checkmate or where every legal reply is a futile drop as
:func:`mate_lines.oracle_only_futile_replies` judges it with cshogi alone (``--futile-depth``
plies allowed after the capture; not this engine's solver).

Verdicts, one per problem and engine:
- exact: the answer agrees with the label (``Expected.agrees``): a valid line of exactly
  N plies for ``N`` (the published, intended length), ``nomate`` for ``nomate``, a line
  of at least N plies for ``>=N``, ``nomate`` or a line longer than N for ``nomate<=N``;
- longer / shorter: a valid mating line of another length than the label ``N`` (a
  shorter line than ``>=N`` also counts as shorter);
- solved: exact + longer + shorter (+ answers to unlabelled problems);
- wrong: a line that fails the replay (illegal move, a non-check, not mate), ``nomate``
  for a position labelled with a mate, a mate for one labelled ``nomate``, or an answer
  the driver cannot read (``checkmate notimplemented``, garbage);
- timeout: ``checkmate timeout``, no answer within the guard (killed), the engine
  exiting, or ``checkmate nomate`` answered once the time limit had passed: shtsume
  1.2.7e prints ``checkmate nomate`` when its time runs out, so a "no mate" that late is
  not taken as a proof.

A line that arrives after the limit still counts (it is a proven line); such answers are
counted as "late" under the table. The time ratio is the geometric mean, over the
problems both engines solved, of this engine's time over the first engine's. Each record
also keeps the engine's own node count (its last ``info ... nodes N`` line before the
answer; engines count nodes differently, so compare them within an engine) and the
process's peak resident memory by then (per problem with ``--restart-each``).

``--latency N`` measures instead how fast each engine reacts while it searches, what
GUIs rely on (ShogiHome ends a mate search with ``quit`` and kills the engine 5 s later;
analysis modes send ``stop`` and wait for the answer before the next ``go``). N times,
a fresh process each: ``isready`` before the search (the table's allocation),
``go mate infinite`` on a position no engine here solves within seconds, then after
``--latency-wait`` seconds ``isready`` (to ``readyok``) and ``stop`` (to ``checkmate``);
and in another fresh process ``quit`` after the same wait (to the process's exit). Each
time runs from the write to the line read on the pipe. No problem files::

    python -m scripts.bench_usi --latency 3 --engine "usi-mate=python -m usi_mate" \\
        --option '*:USI_Hash=1024'
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import queue
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from usi_mate.problems import Expected, Problem, read_problem_file

try:  # python -m scripts.<tool> from the checkout's root
    from scripts.mate_lines import FUTILE_CAPTURE_DEPTH, check_mate_line, oracle_only_futile_replies
except ImportError:  # python scripts/<tool>.py, or tests (scripts/ on the path)
    from mate_lines import FUTILE_CAPTURE_DEPTH, check_mate_line, oracle_only_futile_replies

REPO = Path(__file__).resolve().parents[1]

# An engine that has not answered `go mate` this long after its time limit is killed.
GUARD_S = 5.0
# `usi` to `usiok`: a Python engine imports its package first (0.1-0.3 s measured for
# usi-mate); a loaded machine can make that seconds.
USIOK_TIMEOUT_S = 60.0
# `isready` to `readyok`: engines allocate their table here; 8 GB took a few seconds.
READYOK_TIMEOUT_S = 300.0
# After `quit`, how long an engine may take to exit before it is killed.
QUIT_TIMEOUT_S = 5.0
# --latency: the search the commands arrive during (59 plies; no first proof within 4 s
# with 256 MB, so the search still runs when they come).
LATENCY_SFEN = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"
LATENCY_MEASURES = ("isready, the table", "isready mid-search", "stop -> checkmate", "quit -> exit")
# Before each `go mate` the engine must be idle: its CPU time may advance at most one
# clock tick (10 ms at Linux's 100 Hz) in a 100 ms window. shtsume clears its table
# after it has answered: 0.3-0.7 s for 1 GB (measured), which would otherwise land in the
# next problem's time; its stdin poll (a 1 ms nanosleep loop) stays under a tick.
IDLE_WINDOW_S = 0.1
IDLE_MAX_CPU_S = 0.01
IDLE_TIMEOUT_S = 30.0


# --------------------------------------------------------------------------- arguments


@dataclass(frozen=True)
class EngineSpec:
    """An engine to run: its name in the tables, its command line and its USI options."""

    name: str
    argv: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()


def parse_engine_arg(text: str) -> tuple[str, tuple[str, ...]]:
    """``"kh=/path/kh --flag"`` -> ``("kh", ("/path/kh", "--flag"))``; ValueError if malformed."""
    name, eq, command = text.partition("=")
    name = name.strip()
    if not eq or not name or not command.strip():
        raise ValueError(f"--engine wants NAME=CMD, not {text!r}")
    if ":" in name or name == "*":
        raise ValueError(f"engine name {name!r} may not contain ':' or be '*'")
    return name, tuple(shlex.split(command))


def parse_option_arg(text: str) -> tuple[str, str, str]:
    """``"kh:Threads=1"`` -> ``("kh", "Threads", "1")``; ``*`` as the name means every engine."""
    name, colon, setting = text.partition(":")
    key, eq, value = setting.partition("=")
    if not colon or not eq or not name.strip() or not key.strip():
        raise ValueError(f"--option wants NAME:Key=Value, not {text!r}")
    return name.strip(), key.strip(), value.strip()


def engine_specs(engines: list[str], options: list[str]) -> list[EngineSpec]:
    """Combine ``--engine`` and ``--option`` arguments, in order; ValueError on a bad one."""
    parsed = [parse_engine_arg(e) for e in engines]
    names = [name for name, _ in parsed]
    if len(set(names)) != len(names):
        raise ValueError(f"engine names must differ: {names}")
    settings = [parse_option_arg(o) for o in options]
    for name, key, _ in settings:
        if name != "*" and name not in names:
            raise ValueError(f"--option {name}:{key}=...: no engine named {name!r}")
    return [
        EngineSpec(
            name,
            argv,
            tuple((key, value) for target, key, value in settings if target in ("*", name)),
        )
        for name, argv in parsed
    ]


# --------------------------------------------------------------------------- USI


@dataclass(frozen=True)
class Answer:
    """An engine's answer to one ``go mate``.

    ``status``: "mate", "nomate", "timeout" (the engine said so), "killed" (no answer
    within the guard), "exited" (the process ended) or "unreadable" (an answer the
    driver does not understand, e.g. ``checkmate notimplemented``).
    """

    status: str
    moves: tuple[str, ...] = ()
    seconds: float = 0.0
    raw: str = ""
    nodes: int | None = None  # the last ``info ... nodes N`` before the answer, if any
    peak_rss_mb: int | None = None  # the process's peak resident memory so far (Linux)


def parse_checkmate(line: str) -> tuple[str, tuple[str, ...]] | None:
    """Read a ``checkmate ...`` line: ("mate", moves), ("nomate", ()), ("timeout", ()),
    ("unreadable", ()) for anything else after ``checkmate``; None for other lines."""
    tokens = line.split()
    if not tokens or tokens[0] != "checkmate":
        return None
    rest = tokens[1:]
    if rest == ["nomate"]:
        return "nomate", ()
    if rest == ["timeout"]:
        return "timeout", ()
    if rest and all(_USI_MOVE.match(t) for t in rest):
        return "mate", tuple(rest)
    return "unreadable", ()


_INFO_NODES = re.compile(r"\bnodes (\d+)")
_USI_MOVE = re.compile(r"^(?:[1-9][a-i][1-9][a-i]\+?|[RBGSNLP]\*[1-9][a-i])$")


class UsiEngine:
    """One engine process spoken to over USI; ``solve`` never waits past limit + GUARD_S."""

    def __init__(self, spec: EngineSpec, log_dir: Path) -> None:
        self.spec = spec
        self.log_path = log_dir / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', spec.name)}.stderr"
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.id_name = ""
        self.advertised: set[str] = set()
        self.peak_rss_kb = 0
        self.ready_s = 0.0  # `isready` to `readyok` at the last start
        self.restarts = 0
        self.warnings: list[str] = []

    # -- process

    def start(self) -> None:
        """Start the process and run the handshake (usi, setoption, isready, usinewgame)."""
        stderr = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            list(self.spec.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
            start_new_session=True,  # its own process group, so a kill takes its children too
        )
        stderr.close()
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.send("usi")
        for line in self._until("usiok", USIOK_TIMEOUT_S):
            if line.startswith("id name "):
                self.id_name = line[len("id name ") :].strip()
            elif line.startswith("option name "):
                self.advertised.add(line.split()[2].lower())
        for key, value in self.spec.options:
            if key.lower() not in self.advertised:
                warning = f"{self.spec.name}: option {key} is not among those it lists"
                if warning not in self.warnings:
                    self.warnings.append(warning)
            self.send(f"setoption name {key} value {value}")
        sent = time.perf_counter()
        self.send("isready")
        list(self._until("readyok", READYOK_TIMEOUT_S))
        self.ready_s = time.perf_counter() - sent
        self.send("usinewgame")

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        """Reader thread: every stdout line into ``lines``, then None at end of file."""
        for line in proc.stdout:
            lines.put(line.rstrip("\r\n"))
        lines.put(None)

    def send(self, command: str) -> None:
        """Write one command line (a dead pipe is noticed by the next read)."""
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def _until(self, token: str, timeout_s: float):
        """Yield lines until one equal to ``token``; RuntimeError on timeout or exit."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                raise RuntimeError(
                    f"{self.spec.name}: no {token} within {timeout_s:.0f} s"
                ) from None
            if line is None:
                raise RuntimeError(f"{self.spec.name}: exited before {token} (see {self.log_path})")
            if line.strip() == token:
                return
            yield line

    def _cpu_seconds(self) -> float | None:
        """The process's user + system CPU time, all threads (Linux /proc; else None)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        # Fields 14 and 15 of proc(5) (utime, stime), counted after the ")" of the name.
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_idle(self) -> float:
        """Wait until the engine stops using CPU (see IDLE_WINDOW_S); the seconds waited."""
        start = time.monotonic()
        before = self._cpu_seconds()
        while before is not None and time.monotonic() - start < IDLE_TIMEOUT_S:
            time.sleep(IDLE_WINDOW_S)
            after = self._cpu_seconds()
            if after is None or after - before <= IDLE_MAX_CPU_S:
                break
            before = after
        return time.monotonic() - start

    def _vm_hwm_kb(self) -> int | None:
        """The process's peak resident memory in kB (Linux /proc; elsewhere None)."""
        if self.proc is None:
            return None
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return None
        m = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
        return int(m.group(1)) if m else None

    def _note_rss(self) -> int | None:
        """Record the process's peak resident memory; that peak in MB (None if unknown)."""
        kb = self._vm_hwm_kb()
        if kb is None:
            return None
        self.peak_rss_kb = max(self.peak_rss_kb, kb)
        return round(kb / 1024)

    def kill(self) -> None:
        """Kill the engine's process group at once."""
        if self.proc is None:
            return
        self._note_rss()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        self.proc = None

    def close(self) -> None:
        """Send ``quit``; kill the engine if it has not exited within QUIT_TIMEOUT_S."""
        if self.proc is None:
            return
        self._note_rss()
        self.send("quit")
        try:
            self.proc.wait(timeout=QUIT_TIMEOUT_S)
            self.proc = None
        except subprocess.TimeoutExpired:
            self.kill()

    # -- solving

    def solve(self, sfen: str, time_ms: int, infinite: bool = False) -> Answer:
        """``position sfen`` + ``go mate time_ms``; the answer and its wall time.

        With ``infinite``, ``go mate infinite`` instead, and ``time_ms`` is the harness's
        cap: a GUI user who gives up presses Stop (ShogiHome then sends ``quit`` and
        ignores what follows), so an engine without an answer by then is killed and the
        problem counts as a timeout."""
        if self.proc is None:
            self.start()
            self.restarts += 1
        self.wait_idle()
        self.send(f"position sfen {sfen}")
        start = time.perf_counter()
        self.send("go mate infinite" if infinite else f"go mate {time_ms}")
        deadline = start + time_ms / 1000.0 + (0.0 if infinite else GUARD_S)
        nodes = None
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                seconds = time.perf_counter() - start
                rss = self._note_rss()
                self.kill()
                return Answer("killed", (), seconds, "", nodes, rss)
            if line is None:
                seconds = time.perf_counter() - start
                self.kill()
                return Answer("exited", (), seconds, "", nodes)
            parsed = parse_checkmate(line)
            if parsed is not None:
                seconds = time.perf_counter() - start
                rss = self._note_rss()
                return Answer(parsed[0], parsed[1], seconds, line.strip(), nodes, rss)
            m = _INFO_NODES.search(line) if line.startswith("info ") else None
            if m:
                nodes = int(m.group(1))

    # -- reacting (--latency)

    def search_for(self, sfen: str, seconds: float) -> None:
        """``go mate infinite`` on ``sfen`` for ``seconds``; RuntimeError if it answered."""
        self.send(f"position sfen {sfen}")
        self.send("go mate infinite")
        time.sleep(seconds)
        while True:  # what it printed meanwhile: progress, never an answer
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None or parse_checkmate(line) is not None:
                raise RuntimeError(f"{self.spec.name}: answered or ended within {seconds:g} s")

    def reaction(self, command: str, prefix: str, timeout_s: float = 30.0) -> float:
        """Send ``command``; the seconds until a line starting with ``prefix`` is read."""
        sent = time.perf_counter()
        self.send(command)
        deadline = sent + timeout_s
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                raise RuntimeError(
                    f"{self.spec.name}: no {prefix!r} within {timeout_s:g} s of {command!r}"
                ) from None
            if line is None:
                raise RuntimeError(f"{self.spec.name}: exited after {command!r}")
            if line.startswith(prefix):
                return time.perf_counter() - sent

    def exit_after_quit(self) -> float:
        """Send ``quit``; the seconds until the process has exited (killed after
        QUIT_TIMEOUT_S, then RuntimeError)."""
        sent = time.perf_counter()
        self.send("quit")
        try:
            self.proc.wait(timeout=QUIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()
            raise RuntimeError(f"{self.spec.name}: still running {QUIT_TIMEOUT_S:g} s after quit")
        seconds = time.perf_counter() - sent
        self.proc = None
        return seconds


# --------------------------------------------------------------------------- scoring


@dataclass
class Record:
    """One engine's result on one problem, as written to ``--jsonl``."""

    engine: str
    collection: str
    id: str
    label: str | None
    answer: str  # Answer.status
    moves: list[str] = field(default_factory=list)
    length: int | None = None
    seconds: float = 0.0
    verdict: str = ""  # exact, longer, shorter, solved, wrong, timeout
    reason: str = ""
    end: str = ""  # for valid lines: "mate" (checkmate) or "futile" (only futile drops left)
    late: bool = False  # answered after the time limit
    nodes: int | None = None  # the engine's last reported node count (Answer.nodes)
    peak_rss_mb: int | None = None  # the engine process's peak memory by then (Answer.peak_rss_mb)


def judge(
    sfen: str,
    expected: Expected | None,
    answer: Answer,
    limit_s: float,
    futile_depth: int = FUTILE_CAPTURE_DEPTH,
) -> tuple[str, str, str]:
    """(verdict, reason, end) of one answer; see the module docstring for the verdicts."""
    late = answer.seconds > limit_s
    if answer.status in ("timeout", "killed", "exited"):
        reason = {
            "timeout": "checkmate timeout",
            "killed": f"no answer within the limit + {GUARD_S:.0f} s: killed",
            "exited": "the engine exited",
        }[answer.status]
        return "timeout", reason, ""
    if answer.status == "unreadable":
        return "wrong", f"unreadable answer: {answer.raw!r}", ""
    if answer.status == "nomate":
        if late:
            return "timeout", f"nomate after the time limit ({answer.seconds:.1f} s)", ""
        if expected is None:
            return "solved", "", ""
        if expected.agrees("nomate", None):
            return "exact", "", ""
        return "wrong", f"nomate, label {expected.text}", ""
    # A mating line: replay it first, whatever the label.
    futile_calls: list[bool] = []

    def futile_end(final_sfen: str) -> bool:
        accepted = oracle_only_futile_replies(final_sfen, depth=futile_depth)
        futile_calls.append(accepted)
        return accepted

    bad = check_mate_line(sfen, list(answer.moves), futile_end=futile_end)
    if bad is not None:
        return "wrong", bad, ""
    end = "futile" if futile_calls and futile_calls[-1] else "mate"
    length = len(answer.moves)
    if expected is None:
        return "solved", "", end
    if expected.agrees("mate", length):
        return "exact", "", end
    if expected.kind in ("exact", "at_least") and length < expected.plies:
        return "shorter", "", end
    if expected.kind == "exact":
        return "longer", "", end
    # "nomate", or "nomate<=N" with a mate of N plies or fewer: the line contradicts the label.
    return "wrong", f"a valid mating line of {length} plies, label {expected.text}", end


# --------------------------------------------------------------------------- tables

SOLVED = ("exact", "longer", "shorter", "solved")


def seconds_text(s: float) -> str:
    """Seconds for a table: 3 significant digits below 100 s, whole seconds above."""
    if s >= 100:
        return f"{s:,.0f} s"
    return f"{s:.3g} s"


def ratio_to_first(mine: list[Record], first: list[Record]) -> str:
    """Geometric mean of my time / the first engine's on problems both solved, with n."""
    first_by_id = {(r.collection, r.id): r for r in first}
    logs = []
    for r in mine:
        f = first_by_id.get((r.collection, r.id))
        if f and r.verdict in SOLVED and f.verdict in SOLVED and r.seconds > 0 and f.seconds > 0:
            logs.append(math.log(r.seconds / f.seconds))
    if not logs:
        return "-"
    return f"{math.exp(sum(logs) / len(logs)):.2f}x (n={len(logs)})"


def table(records: list[Record], engines: list[str], collections: list[str]) -> str:
    """The markdown table: one row per collection and engine, plus "all" rows."""
    head = (
        "| collection | engine | problems | solved | exact | longer | shorter | wrong "
        "| timeouts | total | median | time vs first |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    rows = []
    groups = [(c, [c]) for c in collections]
    if len(collections) > 1:
        groups.append(("**all**", collections))
    for title, members in groups:
        first = [r for r in records if r.engine == engines[0] and r.collection in members]
        for engine in engines:
            mine = [r for r in records if r.engine == engine and r.collection in members]
            if not mine:
                continue
            count = {v: sum(r.verdict == v for r in mine) for v in (*SOLVED, "wrong", "timeout")}
            solved = sum(count[v] for v in SOLVED)
            times = [r.seconds for r in mine]
            ratio = "1" if engine == engines[0] else ratio_to_first(mine, first)
            rows.append(
                f"| {title} | {engine} | {len(mine)} | {solved} | {count['exact']} "
                f"| {count['longer']} | {count['shorter']} | {count['wrong']} "
                f"| {count['timeout']} | {seconds_text(sum(times))} "
                f"| {seconds_text(statistics.median(times))} | {ratio} |"
            )
    return head + "\n".join(rows) + "\n"


def disagreements(records: list[Record], engines: list[str]) -> str:
    """Problems where some engine is not exact: one row each, every engine's result."""
    by_problem: dict[tuple[str, str], dict[str, Record]] = {}
    order: list[tuple[str, str]] = []
    for r in records:
        key = (r.collection, r.id)
        if key not in by_problem:
            by_problem[key] = {}
            order.append(key)
        by_problem[key][r.engine] = r
    rows = []
    for key in order:
        results = by_problem[key]
        if all(r.verdict == "exact" for r in results.values()):
            continue
        label = next(iter(results.values())).label
        cells = [_cell(results.get(e)) for e in engines]
        rows.append(f"| {key[1]} | {label} | " + " | ".join(cells) + " |")
    if not rows:
        return ""
    head = "| problem | label | " + " | ".join(engines) + " |\n"
    head += "|---|---|" + "---|" * len(engines) + "\n"
    return head + "\n".join(rows) + "\n"


def _cell(r: Record | None) -> str:
    """One engine's result in the disagreement table."""
    if r is None:
        return ""
    t = seconds_text(r.seconds)
    if r.verdict == "timeout":
        return f"timeout ({t})"
    if r.verdict == "wrong":
        what = f"{r.length} plies" if r.length else r.answer
        return f"**wrong**: {what}, {r.reason} ({t})"
    if r.answer == "nomate":
        return f"nomate ({t})"
    mark = "" if r.verdict == "exact" else f" {r.verdict}"
    end = ", futile end" if r.end == "futile" else ""
    return f"{r.length}{mark}{end} ({t})"


# --------------------------------------------------------------------------- main


def machine() -> str:
    """Date, commit, CPU, cores and Python of this run."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        commit += "-dirty" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "?"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{datetime.now():%Y-%m-%d %H:%M}, commit {commit}, {cpu}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )


def header(args: argparse.Namespace, engines: list[UsiEngine]) -> str:
    """Machine, commit, date, limits and each engine's identity and options."""
    lines = [
        f"{machine()}; "
        + (
            f"`go mate infinite`, the harness's cap {args.time} ms a problem, "
            if args.infinite
            else f"{args.time} ms a problem (`go mate {args.time}`), "
        )
        + f"futile ends judged with --futile-depth {args.futile_depth}"
        + (", every engine restarted before each problem" if args.restart_each else ""),
        "",
    ]
    for e in engines:
        options = " ".join(f"{k}={v}" for k, v in e.spec.options) or "defaults"
        rss = f"{e.peak_rss_kb / 1024:,.0f} MB" if e.peak_rss_kb else "?"
        lines.append(
            f"- **{e.spec.name}**: `{shlex.join(e.spec.argv)}` ({e.id_name or '?'}); "
            f"options {options}; peak RSS {rss}; restarts {e.restarts}"
        )
        lines.extend(f"  - warning: {w}" for w in e.warnings)
    return "\n".join(lines) + "\n"


def latency_run(engine: UsiEngine, wait_s: float) -> list[float]:
    """The seconds of each of LATENCY_MEASURES, on two fresh processes of ``engine``."""
    engine.start()
    ready = engine.ready_s
    engine.search_for(LATENCY_SFEN, wait_s)
    mid_search = engine.reaction("isready", "readyok")
    stop = engine.reaction("stop", "checkmate")
    engine.close()
    engine.start()
    engine.search_for(LATENCY_SFEN, wait_s)
    return [ready, mid_search, stop, engine.exit_after_quit()]


def run_latency(args: argparse.Namespace) -> int:
    """--latency: every engine's reactions, ``args.latency`` runs each; a table in ms."""
    specs = engine_specs(args.engine, args.option)
    log_dir = Path(tempfile.mkdtemp(prefix="bench_usi_"))
    print(
        f"{machine()}; {args.latency} runs an engine, the command after "
        f"{args.latency_wait:g} s of `go mate infinite` on {LATENCY_SFEN}\n"
    )
    print("| engine | options | measure | min | median | max |")
    print("|---|---|---|---:|---:|---:|")
    for spec in specs:
        engine = UsiEngine(spec, log_dir)
        try:
            runs = [latency_run(engine, args.latency_wait) for _ in range(args.latency)]
        finally:
            engine.kill()
        options = " ".join(f"{k}={v}" for k, v in spec.options) or "defaults"
        for i, measure in enumerate(LATENCY_MEASURES):
            ms = [run[i] * 1000 for run in runs]
            print(
                f"| {spec.name} | {options} | {measure} | {min(ms):.1f} ms "
                f"| {statistics.median(ms):.1f} ms | {max(ms):.1f} ms |"
            )
    return 0


def run(args: argparse.Namespace) -> int:
    """Run every engine on every selected problem, then print the tables."""
    specs = engine_specs(args.engine, args.option)
    collections: list[tuple[str, list[Problem]]] = []
    only = re.compile(args.only) if args.only else None
    for path in args.files:
        problems = [p for p in read_problem_file(path) if only is None or only.search(p.id)]
        if args.limit is not None:
            problems = problems[: args.limit]
        bad = [p for p in problems if p.sfen is None]
        for p in bad:
            print(f"{p.source}:{p.line}: skipped: {p.error}", file=sys.stderr)
        collections.append((Path(path).stem, [p for p in problems if p.sfen is not None]))
    limit_s = args.time / 1000.0
    records: list[Record] = []
    out = open(args.jsonl, "w", encoding="utf-8") if args.jsonl else None
    log_dir = Path(tempfile.mkdtemp(prefix="bench_usi_"))
    engines = [UsiEngine(spec, log_dir) for spec in specs]
    try:
        for engine in engines:
            engine.start()
            for collection, problems in collections:
                for p in problems:
                    if args.restart_each and engine.proc is not None:
                        engine.close()
                        engine.start()
                    answer = engine.solve(p.sfen, args.time, args.infinite)
                    verdict, reason, end = judge(
                        p.sfen, p.expected, answer, limit_s, args.futile_depth
                    )
                    rec = Record(
                        engine.spec.name,
                        collection,
                        p.id,
                        p.expected.text if p.expected else None,
                        answer.status,
                        list(answer.moves),
                        len(answer.moves) if answer.status == "mate" else None,
                        round(answer.seconds, 4),
                        verdict,
                        reason,
                        end,
                        answer.seconds > limit_s,
                        answer.nodes,
                        answer.peak_rss_mb,
                    )
                    records.append(rec)
                    if out:
                        out.write(json.dumps(asdict(rec), ensure_ascii=False) + "\n")
                        out.flush()
                    what = rec.length if rec.length is not None else answer.status
                    spent = f"{answer.seconds:.2f} s"
                    if answer.nodes is not None:
                        spent += f", {answer.nodes:,} nodes"
                    if answer.peak_rss_mb is not None:
                        spent += f", {answer.peak_rss_mb:,} MB"
                    print(
                        f"{engine.spec.name} {p.id}: {verdict}, {what} ({spent})",
                        file=sys.stderr,
                        flush=True,
                    )
            engine.close()
    except KeyboardInterrupt:
        print("interrupted: tables of what was measured", file=sys.stderr)
    finally:
        for engine in engines:
            engine.kill()
        if out:
            out.close()
    names = [s.name for s in specs]
    print(header(args, engines))
    print(table(records, names, [c for c, _ in collections]))
    late = {n: sum(r.late and r.verdict in SOLVED for r in records if r.engine == n) for n in names}
    if any(late.values()):
        print(
            "Answers after the time limit, counted: "
            + ", ".join(f"{n} {k}" for n, k in late.items())
            + "\n"
        )
    rest = disagreements(records, names)
    if rest:
        print("Problems where an engine is not at the label (length, or verdict; time):\n")
        print(rest)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command line: problem files, engines and their options, limits, outputs."""
    parser = argparse.ArgumentParser(
        description="Benchmark USI mate engines on problem files (one engine at a time).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    parser.add_argument("files", nargs="*", help="problem files (<sfen> # <label> <id> ...)")
    parser.add_argument(
        "--engine", action="append", required=True, metavar="NAME=CMD", help="repeatable"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME:Key=Value",
        help="a USI option for engine NAME (* = every engine); repeatable",
    )
    parser.add_argument("--time", type=int, default=10_000, metavar="MS", help="per problem")
    parser.add_argument(
        "--infinite",
        action="store_true",
        help="send `go mate infinite` (what GUIs send without a time limit); --time is then "
        "the harness's cap, after which the engine is killed and the problem is a timeout",
    )
    parser.add_argument("--jsonl", metavar="OUT", help="write every record here")
    parser.add_argument("--only", metavar="REGEX", help="problems whose id matches (re.search)")
    parser.add_argument("--limit", type=int, metavar="N", help="first N problems of each file")
    parser.add_argument(
        "--futile-depth",
        type=int,
        default=FUTILE_CAPTURE_DEPTH,
        metavar="PLIES",
        help="plies allowed after capturing a futile drop "
        "(oracle_only_futile_replies of scripts/mate_lines.py)",
    )
    parser.add_argument(
        "--restart-each",
        action="store_true",
        help="restart each engine before every problem (a fresh table; outside the timing)",
    )
    parser.add_argument(
        "--latency",
        type=int,
        metavar="N",
        help="no problems: time each engine's isready, stop and quit during a search, N runs",
    )
    parser.add_argument(
        "--latency-wait",
        type=float,
        default=2.0,
        metavar="S",
        help="seconds of search before the command under test (default 2)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.time <= 0:
        parser.error("--time must be positive")
    if args.latency is not None and (args.latency < 1 or args.files):
        parser.error("--latency takes a positive number of runs and no problem files")
    if args.latency is None and not args.files:
        parser.error("problem files are needed (or --latency N)")
    try:
        return run_latency(args) if args.latency else run(args)
    except (ValueError, RuntimeError) as e:
        print(f"bench_usi: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
