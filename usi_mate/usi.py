"""The USI protocol of the mate engine: parse commands, run searches, format answers.

This module never looks inside a position: lines become typed values where they enter
(:class:`GoCommand`, :class:`SetOptionCommand`, :class:`PositionCommand`), searches go
to :class:`usi_mate.Solver`, and :class:`usi_mate.MateResult` comes back out as ``info``,
``checkmate`` and ``bestmove`` lines.

Threads: the thread that reads commands (the *reader*) never searches. ``go`` starts one
worker thread per search; ``Solver.solve`` releases the GIL, so the reader keeps reading
and acts on ``stop``, ``quit`` and ``isready`` while the search runs. Every line goes
through one lock-protected write that flushes, so progress lines from the worker and
answers from the reader never interleave mid-line.

Answers to ``go mate`` (exactly one ``checkmate`` per ``go mate``, always):

- ``checkmate <moves>``: a proven mate (preceded by ``info depth N ... score mate N pv``);
- ``checkmate nomate``: no mate exists, proven by a search of that very position (or the
  side to move is already checkmated, with RootIsAndNodeIfChecked: no move to show);
- ``checkmate timeout``: no verdict: a time or node limit, ``stop``, or a position that
  cannot be searched: a rejected ``position`` command (bad SFEN, illegal move) or one
  that parses but is no tsume (no defender king, the side not to move in check). An
  ``info string error: ...`` line says which. ``timeout`` is the one answer a GUI
  cannot mistake for a verdict about the position, so it is never ``nomate``.

A ``go`` that arrives while a search runs stops that search (which answers first, with
what it has) and then starts: one answer per ``go``, in order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from . import __version__
from ._core import Position, Solver, start_search_thread
from .echo import printable
from .memory import hash_limit_mb, threads_fit
from .options import OPTIONS, EngineConfig, OptionError, OptionValues
from .types import MateResult, SearchProgress
from .usi_answers import answer_lines, cook_lines, mate_info_line, progress_line, progress_lines
from .usi_commands import GoCommand, PositionCommand, SetOptionCommand, UsiError

__all__ = [
    "UsiEngine",
    "run",
    "GoCommand",
    "PositionCommand",
    "SetOptionCommand",
    "UsiError",
    "answer_lines",
    "mate_info_line",
    "progress_line",
    "progress_lines",
]

ENGINE_NAME = "usi-mate"
ENGINE_AUTHOR = "usi-mate developers"
# `stop` waits for the answer before reading the next command: GUIs send `stop`,
# `position`, `go` back to back, and a `go` that finds the old search still running would
# be ignored. The core stops within milliseconds; the bound only guards against a hang.
STOP_WAIT_S = 5.0
# `quit` must end the process promptly (ShogiHome kills the engine 5 s after `quit`).
QUIT_WAIT_S = 0.1
_DEFAULT_HASH_MB = EngineConfig().hash_mb
# ReportCooks after `go mate infinite`: the cook search gets at most this long, as the
# GUI shows nothing while it waits for the answer; `stop` ends it at once.
REPORT_COOKS_INFINITE_MS = 10_000
# After `go mate <ms>` the cook search uses what is left of the limit less a tenth and
# 50 ms: each of its searches may overrun its own limit by a few percent plus a few
# milliseconds (docs/USI.md), and the answer must still come within the GUI's limit.
REPORT_COOKS_MARGIN_MS = 50
# With less than this left, no cook search is started (it would settle nothing).
REPORT_COOKS_MIN_MS = 20


# ---------------------------------------------------------------------------
# The engine


@dataclass
class _Search:
    """One running search: what it answers and how the reader thread talks to it."""

    command: GoCommand
    sfen: str
    time_ms: int | None
    nodes: int | None
    config: EngineConfig
    started: float = field(default_factory=time.monotonic)
    release: threading.Event = field(default_factory=threading.Event)  # stop/ponderhit/quit
    done: threading.Event = field(default_factory=threading.Event)  # answer written
    thread: threading.Thread | None = None


class UsiEngine:
    """The USI mate engine, driven one command line at a time.

    ``write`` receives each output line without its newline; it is called under a lock,
    from the reader thread and from the search thread. Feed lines to :meth:`handle_line`
    (or a whole stream to :meth:`serve`); after ``quit``, :attr:`quit_requested` is True.
    """

    def __init__(
        self, write: Callable[[str], None], solver_factory: Callable[[int], Solver] = Solver
    ) -> None:
        self._write_fn = write
        self._solver_factory = solver_factory
        self._out_lock = threading.Lock()
        # Guards _search. Lock order: _state_lock, then _out_lock (never the reverse).
        self._state_lock = threading.Lock()
        self._output_open = True
        self._options = OptionValues()
        self._config = self._options.config()
        # One Solver for the engine's life: its table is allocated once (at isready or the
        # first go) and reused, so thousands of `go mate` keep memory flat.
        self._solver: Solver | None = None
        # No position until the GUI sends one: a go before it (or after a position line
        # that could not be read) must not answer for a board the GUI did not mean.
        self._position: Position | None = None
        # Why there is no position (then _position is None): a go must not answer for
        # the previous problem, which the GUI would play on the new board.
        self._position_error: str | None = "no position command yet"
        self._search: _Search | None = None
        self.quit_requested = False
        self._handlers: dict[str, Callable[[str, list[str]], None]] = {
            "usi": self._usi,
            "setoption": self._setoption,
            "isready": self._isready,
            "usinewgame": self._usinewgame,
            "position": self._position_command,
            "go": self._go,
            "stop": self._stop,
            "ponderhit": self._ponderhit,
            "gameover": self._gameover,
            "quit": self._quit,
        }

    # -- output ---------------------------------------------------------------

    def write(self, line: str) -> None:
        """Send one line to the GUI (thread-safe; dropped after quit or a broken pipe)."""
        with self._out_lock:
            if not self._output_open:
                return
            try:
                self._write_fn(line)
            except (OSError, ValueError):
                # The GUI closed our stdout (BrokenPipe, or a closed file): nobody is
                # listening; keep running until stdin ends rather than dying mid-search.
                self._output_open = False

    def info_string(self, text: str) -> None:
        """Send ``info string <text>``."""
        self.write(f"info string {text}")

    # -- input ----------------------------------------------------------------

    def handle_line(self, line: str) -> None:
        """Act on one command line. Never raises: errors become ``info string`` lines."""
        # A UTF-8 byte-order mark that an editor or a pipe put before the first command.
        parts = line.strip().lstrip("\ufeff").split(None, 1)
        if not parts:
            return
        name, rest = parts[0], (parts[1] if len(parts) > 1 else "")
        handler = self._handlers.get(name)
        if handler is None:
            unknown = f"unknown command {printable(line.strip())}"
            if _meant_as_position(name):
                # The GUI meant to set a board: the next go must not answer for another.
                unknown += self._forget_position("the last position line could not be read")
            self.info_string(unknown)
            return
        try:
            handler(rest, rest.split())
        except UsiError as e:
            self.info_string(str(e))
        except Exception as e:  # noqa: BLE001 - a bug must not kill the GUI's engine
            self.info_string(f"internal error: {type(e).__name__}: {printable(str(e), 200)}")

    def serve(self, stdin: Iterable[str]) -> None:
        """Handle lines until ``quit`` or the end of input (which counts as ``quit``).

        At the end of input a running search with a limit of its own (``go mate <ms>``,
        a node limit, analysis mode with a clock) answers first: piped commands
        (``position ...`` and ``go mate 2000``, then EOF) get their answer. A search
        without a limit (``go mate infinite``, ``go infinite``) is stopped at once, as
        on ``quit``: a GUI that dies closes the pipe.

        A line longer than MAX_LINE_CHARS is answered with an info string and not
        handled (from a stream, it is not even held whole in memory); a ``position``
        line so long leaves no position, as a malformed one does, so that the next
        ``go`` does not answer for the position before it."""
        for line, whole in _bounded_lines(stdin):
            if not whole:
                self._refuse_long_line(line)
                continue
            self.handle_line(line)
            if self.quit_requested:
                return
        self._finish_limited_search()
        self.handle_line("quit")

    def _finish_limited_search(self) -> None:
        """Wait for a running search that ends by its own limit (end of input)."""
        with self._state_lock:
            search = self._search
        if search is None or search.command.holds_answer:
            return
        if search.time_ms is None and search.nodes is None:
            return
        # The search honours its limit within a grace of a few percent; the bound only
        # guards against a hang (a node limit has no time bound of its own).
        wait_s = None if search.time_ms is None else search.time_ms / 1000 * 1.5 + STOP_WAIT_S
        search.done.wait(wait_s)

    def _refuse_long_line(self, head: str) -> None:
        refused = f"line too long (over {MAX_LINE_CHARS:,} characters); ignored"
        if head.split(maxsplit=1)[:1] == ["position"]:
            refused += self._forget_position("the last position line was too long")
        self.info_string(refused)

    def _forget_position(self, reason: str) -> str:
        """No position until the next good ``position`` (a malformed or refused one):
        the next ``go`` answers without searching, saying ``reason``. The note to add
        to the message that reports it."""
        self._position = None
        self._position_error = reason
        return "; the next go answers without searching"

    @property
    def config(self) -> EngineConfig:
        """The option values as set so far (the table follows USI_Hash at isready/go)."""
        return self._options.config()

    @property
    def table_mb(self) -> int | None:
        """Size of the allocated hash table in MB, or None before the first isready/go."""
        return None if self._solver is None else self._solver.hash_mb

    @property
    def searching(self) -> bool:
        """True while a search thread has not yet written its answer."""
        with self._state_lock:
            return self._search is not None

    # -- commands -------------------------------------------------------------

    def _usi(self, rest: str, args: list[str]) -> None:
        self.write(f"id name {ENGINE_NAME} {__version__}")
        self.write(f"id author {ENGINE_AUTHOR}")
        for option in OPTIONS:
            self.write(option.usi_line())
        self.write("usiok")

    def _setoption(self, rest: str, args: list[str]) -> None:
        command = SetOptionCommand.parse(rest)
        option = self._options.option(command.name)
        if option is None:
            raise UsiError(f"setoption: unknown option '{printable(command.name)}'")
        kept = option.format(self._options.get(option.name))
        try:
            self._options.set(option.name, command.value)
        except OptionError as e:
            raise UsiError(f"setoption: {printable(str(e), 200)}; keeping {kept}") from None
        # Applied at the next isready (or go): resizing the table here could stall the
        # reader for seconds and must not happen while a search uses it.

    def _isready(self, rest: str, args: list[str]) -> None:
        # Answer at once during a search, without stopping it; a new hash size waits
        # for the next isready or go when idle.
        if not self.searching:
            self._apply_config()
        self.write("readyok")

    def _usinewgame(self, rest: str, args: list[str]) -> None:
        # The table is kept: its entries are keyed by position (and material), so they stay
        # valid for any later problem, and clearing 1 GB costs ~0.2 s per game.
        pass

    def _position_command(self, rest: str, args: list[str]) -> None:
        try:
            self._position = PositionCommand.parse(rest).position
            self._position_error = None
        except UsiError as e:
            raise UsiError(f"{e}{self._forget_position(str(e))}") from None

    def _go(self, rest: str, args: list[str]) -> None:
        if self.searching:
            # A GUI race or piped commands: the running search answers its own go
            # first (stopped, with what it has), then this one starts.
            self._stop("", [])
            if self.searching:
                self.info_string("internal error: the previous search did not stop")
        try:
            command = GoCommand.parse(args)
        except UsiError as e:
            # The GUI waits for exactly one answer to its go: give it, with the reason.
            self.info_string(f"go: {e}")
            self.write("checkmate timeout" if "mate" in args else "bestmove resign")
            return
        if command.note:
            self.info_string(command.note)
        if self._position is None:
            self.info_string(f"error: no position to search: {self._position_error}")
            self.write(answer_lines(command, None)[-1])
            return
        self._apply_config()
        solver = self._solver
        if solver is None:
            self.info_string("no hash table could be allocated; lower USI_Hash")
            self.write(answer_lines(command, None)[-1])
            return
        config = self._config
        position = self._position
        time_ms = command.time_ms if command.mate else command.analysis_budget_ms(position.turn)
        node_limits = [n for n in (config.request.nodes_limit, command.nodes) if n]
        search = _Search(
            command=command,
            sfen=position.sfen(),
            time_ms=time_ms,
            nodes=min(node_limits) if node_limits else None,
            config=config,
        )
        # arm() before the thread exists: a stop read right after this go is never lost.
        solver.arm()
        with self._state_lock:
            self._search = search
        try:
            search.thread = start_search_thread(self._run_search, (solver, search))
        except RuntimeError as e:  # no thread to be had: answer now rather than never
            with self._state_lock:
                self._search = None
            solver.disarm()
            self.info_string(f"internal error: cannot start the search thread: {e}")
            self.write(answer_lines(command, None)[-1])

    def _stop(self, rest: str, args: list[str]) -> None:
        search = self._interrupt()
        if search is not None:
            search.done.wait(STOP_WAIT_S)

    def _ponderhit(self, rest: str, args: list[str]) -> None:
        # The search already runs under the go's limits; ponderhit only lets it answer.
        with self._state_lock:
            search = self._search
        if search is not None and search.command.ponder:
            search.release.set()

    def _gameover(self, rest: str, args: list[str]) -> None:
        self._stop(rest, args)  # the game is over: a leftover search has nothing to do

    def _quit(self, rest: str, args: list[str]) -> None:
        self.quit_requested = True
        search = self._interrupt()
        if search is not None:
            search.done.wait(QUIT_WAIT_S)
        with self._out_lock:
            self._output_open = False  # the GUI no longer reads; a late answer goes nowhere

    # -- search ---------------------------------------------------------------

    def _interrupt(self) -> _Search | None:
        with self._state_lock:
            search = self._search
        if search is not None:
            search.release.set()
            if self._solver is not None:
                self._solver.stop()
        return search

    def _write_progress(self, p: SearchProgress) -> None:
        for line in progress_lines(p):
            self.write(line)

    def _run_search(self, solver: Solver, search: _Search) -> None:
        """The search thread: solve, wait for release if USI says so, answer once."""
        interval = search.config.pv_interval_ms
        res: MateResult | None
        try:
            try:
                request = replace(
                    search.config.request,
                    time_limit_ms=search.time_ms,
                    nodes_limit=search.nodes,
                    max_length=search.command.depth,
                )
            except Exception:
                solver.disarm()  # (armed by the go; search() disarms on its own errors)
                raise
            res = solver.search(
                search.sfen,
                request,
                on_progress=self._write_progress if interval else None,
                progress_interval_ms=interval,
            )
        except Exception as e:  # noqa: BLE001 - the GUI still gets its one answer
            self.info_string(f"internal error: {type(e).__name__}: {printable(str(e), 200)}")
            res = None
        if search.config.report_cooks and search.command.mate and res is not None:
            if res.status == "mate" and res.moves and not search.release.is_set():
                self._report_cooks(solver, search, res)
        lines = answer_lines(search.command, res, stats_reported=interval > 0)
        if search.command.holds_answer:
            # Analysis mode holds bestmove until stop/ponderhit, not what the search
            # found: the GUI shows the mate's score and line as soon as it is proven.
            with self._state_lock:
                for line in lines[:-1]:
                    self.write(line)
            lines = lines[-1:]
            search.release.wait()
        with self._state_lock:
            for line in lines:
                self.write(line)
            # Cleared under the lock after the answer: a go sent in reply to it is accepted.
            self._search = None
        search.done.set()

    def _report_cooks(self, solver: Solver, search: _Search, res: MateResult) -> None:
        """ReportCooks: other mating checks along the answer's line, as ``info string``
        lines, within what is left of the go's limits (and at once on ``stop``)."""
        from .checker import check

        if search.time_ms is None:
            budget_ms = REPORT_COOKS_INFINITE_MS
        else:
            left = search.time_ms - int((time.monotonic() - search.started) * 1000)
            budget_ms = left - left // 10 - REPORT_COOKS_MARGIN_MS
        nodes = None if search.nodes is None else search.nodes - res.nodes

        def report_finding(found: Any) -> None:
            for line in cook_lines(found):
                self.write(line)

        if budget_ms < REPORT_COOKS_MIN_MS or (nodes is not None and nodes <= 0):
            self.info_string("ReportCooks: no time left to look for cooks")
            return
        try:
            report = check(
                search.sfen,
                solver=solver,
                main_result=res,
                time_limit_ms=budget_ms,
                nodes_limit=nodes,
                defences=False,
                root_is_and_node_if_checked=search.config.request.root_is_and_node_if_checked,
                ignore_futile_interpositions=search.config.request.ignore_futile_interpositions,
                should_stop=search.release.is_set,
                on_finding=report_finding,
                fresh_retries=False,  # USI_Hash is all the memory the GUI gave us
            )
        except Exception as e:  # noqa: BLE001 - the answer must still come
            self.info_string(f"ReportCooks: internal error: {type(e).__name__}: {e}")
            return
        report_finding(report)

    def _apply_config(self) -> None:
        """Make the table match USI_Hash (only called when no search runs)."""
        wanted = self._options.config().hash_mb
        current = self._solver.hash_mb if self._solver is not None else 0
        if wanted != current:
            self._allocate(wanted, current)
        threads = self._options.config().threads
        current_threads = getattr(self._solver, "threads", threads)
        if self._solver is not None and current_threads != threads:
            why = threads_fit(threads, self._solver.hash_mb)
            if why is not None:
                self.info_string(f"Threads {threads}: {why}; keeping {current_threads}")
                self._options.restore("threads", current_threads)
            else:
                try:
                    self._solver.set_threads(threads)
                except MemoryError:
                    self.info_string(f"Threads {threads}: no memory for the threads; keeping 1")
                    self._options.restore("threads", 1)
        self._config = self._options.config()

    def _allocate(self, wanted: int, current: int) -> None:
        limit = hash_limit_mb(current)
        # What to fall back to when `wanted` is refused: the table we have, or for the
        # first table the default size (or what fits, on a small machine).
        keep = current or min(_DEFAULT_HASH_MB, limit or _DEFAULT_HASH_MB)
        if limit is not None and wanted > limit:
            self.info_string(
                f"USI_Hash {wanted} MB does not fit in memory (about {limit} MB "
                f"can be allocated); keeping {keep} MB"
            )
            self._options.restore("hash_mb", keep)
            if current:
                return  # the old table was not touched
            wanted = keep
        try:
            self._set_table(wanted)
            return
        except MemoryError:
            self.info_string(f"USI_Hash {wanted} MB could not be allocated; keeping {keep} MB")
            self._options.restore("hash_mb", keep)
        try:
            # The core frees the old table before allocating the new one and leaves it
            # empty when that fails; searching an empty table would crash, so rebuild it.
            self._set_table(keep)
        except MemoryError:
            self._solver = None
            self.info_string(f"USI_Hash {keep} MB could not be allocated either")

    def _set_table(self, hash_mb: int) -> None:
        if self._solver is None:
            self._solver = self._solver_factory(hash_mb)
        else:
            self._solver.resize(hash_mb)


# The longest line read: 1 M characters holds a position with 200,000 moves. A 16 MB
# `position ... moves` line (3.2 M moves) took 732 MB to parse.
MAX_LINE_CHARS = 1 << 20


def _meant_as_position(name: str) -> bool:
    """Whether an unknown command's first word was meant to set the board: ``position``
    with something around it (a control character, another mark), or the position
    text without its command (``sfen ...``, ``startpos``)."""
    word = name.lower()
    return "position" in word or word in ("sfen", "startpos")


def _bounded_lines(stdin: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """(line, True) for each line of ``stdin``, or (its first MAX_LINE_CHARS characters,
    False) for one longer, whose rest a stream skips in pieces rather than read whole."""
    readline = getattr(stdin, "readline", None)
    if readline is None:
        for line in stdin:
            whole = len(line.rstrip("\r\n")) <= MAX_LINE_CHARS
            yield (line, True) if whole else (line[:MAX_LINE_CHARS], False)
        return
    while line := readline(MAX_LINE_CHARS + 1):
        if len(line) <= MAX_LINE_CHARS or line.endswith("\n"):
            yield line, True
            continue
        while (rest := readline(MAX_LINE_CHARS)) and not rest.endswith("\n"):
            pass
        yield line[:MAX_LINE_CHARS], False


def run(stdin: TextIO, stdout: TextIO) -> UsiEngine:
    """Run the USI loop on text streams until ``quit`` or end of input; returns the engine."""

    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()  # GUIs read line by line from a pipe: never leave a line buffered

    engine = UsiEngine(write)
    engine.serve(stdin)
    return engine
