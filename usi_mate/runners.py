"""Where batch searches run, and :func:`solve_many`.

Positions travel in *chunks* (:class:`Chunk`): runs of consecutive tasks sent to a
worker together, each chunk sized from measured cost (:class:`ChunkSizer`: about
:data:`CHUNK_SECONDS` of work, at most :data:`MAX_CHUNK` positions). A search of a
mate in 3 costs ~20 µs; handing one position to a worker process and its answer back
costs more than that (solve_many with jobs=2 ran at 0.42x jobs=1 on 6,000 positions
with one task a position, issue 48), and a Dask task ~3.5 ms. A chunk pays that once.
Costs change along a file, so a chunk is handed to workers a slice at a time, each
sized from the latest costs, and a worker gives back what is left of its slice after
:data:`CHUNK_BUDGET_SECONDS` of work.

Three runners share one small interface (``submit(chunk)``, ``window``, ``sizer``,
``stop()``, ``close()``). What a task does with its Solver is a *task function*
(:data:`Task`): :func:`solve_task` (the default) searches;
:func:`usi_mate.checker.check_task` runs a composer's check. A task function must
be a module-level function (worker processes receive it by name):

- :class:`ThreadRunner`: one Solver in this process, searching in a helper thread
  (the GIL is released, so the caller's thread stays free for Ctrl-C);
- :class:`ProcessRunner`: ``jobs`` worker processes of our own, started once, each
  with its own Solver and table kept from chunk to chunk. A worker that dies (a
  crash, ``kill -9``, the OOM killer) costs exactly the problem it was on, which
  fails with :class:`WorkerDied`; the rest of its chunk goes to the others again, a
  new worker takes its place and the run goes on. Workers die with the parent
  (however it ends) and never hold the caller's stdout open;
- :class:`ExecutorRunner`: any :class:`concurrent.futures.Executor` (a Dask or Ray
  cluster's executor), one task a chunk, each worker process keeping one Solver
  between tasks.

:class:`InOrder` feeds a runner a bounded window of chunks and hands back the
outcomes one position at a time, in input order.
"""

from __future__ import annotations

import ctypes
import functools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import attrgetter, is_, itemgetter
from typing import TYPE_CHECKING, Any

from ._core import Position, Solver, start_search_thread
from .settings import (
    DEFAULT_HASH_MB,
    SearchOptions,
    SearchRequest,
    check_hash_mb,
    check_int,
    check_threads,
    search_request,
)
from .types import MateResult

if sys.version_info >= (3, 11):
    from typing import Unpack
elif TYPE_CHECKING:  # (Python 3.10 runs without it: the annotations are never evaluated)
    from typing_extensions import Unpack

__all__ = [
    "solve_many",
    "ThreadRunner",
    "ProcessRunner",
    "ExecutorRunner",
    "InOrder",
    "Chunk",
    "ChunkSizer",
    "WorkerDied",
    "WorkerStartError",
]

# How many chunks may be in flight (submitted, outcomes not yet all handed back), per
# worker: one running, one waiting for the worker, and room for the other workers to
# go on while a slow problem holds back the head (results leave in input order).
# Memory stays below WINDOW_CHUNKS_PER_JOB * jobs * MAX_CHUNK positions and results,
# whatever the input's size; a lazy input (solve_many on a generator) is read that
# far ahead at most.
WINDOW_CHUNKS_PER_JOB = 4

# A chunk holds about this much measured work. Long enough that a worker's round trip
# (~0.1 ms through a pipe, ~3.5 ms as a Dask task) is under 5% of it; short enough
# that the last chunks leave no worker idle for long and results stream out.
CHUNK_SECONDS = 0.15
# At most this many positions a chunk, whatever their cost: bounds the memory of a
# window (and of a chunk re-run after its worker died).
MAX_CHUNK = 1000
# A worker gives back the rest of a chunk once it has spent this much work on it (at
# least one position), to be handed out again. A chunk is sized from the cost of the
# positions before it, and costs change along a file: problems/generated.sfen's first
# 700 positions take 0.1-0.8 ms each, the next 400 ~20 ms; a chunk of 1,000 sized on the
# first ones held one worker for 9 s while the other had nothing (jobs=2 1.10x jobs=1 on
# that file, 1.9x with the budget).
CHUNK_BUDGET_SECONDS = 2 * CHUNK_SECONDS

# A chunk may hold at once as many positions as this much measured work fits, beyond
# doubling: handing a chunk to a thread or a worker and its answers back costs tens of
# microseconds, which positions answered in microseconds paid at every chunk of the
# doubling from one (docs/BENCHMARKS.md, "The cost of a call").
FREE_GROWTH_SECONDS = 0.002

# How often a worker sends the answers of its chunk so far: what finished before a
# long search is written (at a stop too) without waiting for the chunk's end, at the
# cost of at most 20 messages a second.
FLUSH_SECONDS = 0.05

# How often a wait loop wakes to look at a stop flag. The searches themselves
# never wait on this: it only bounds how late a stop is noticed.
POLL_SECONDS = 0.05


class WorkerDied(RuntimeError):
    """The worker process searching a problem ended before answering it."""


class WorkerStartError(WorkerDied):
    """The worker processes cannot start, so no problem can be searched in them.

    :func:`solve_many` raises it rather than answer every problem "unknown".
    """


# Workers are started with 'spawn', which imports the caller's main script again in
# each worker. A script that calls solve_many(jobs=2) at its top level, without
# `if __name__ == "__main__":`, would start workers from every worker, each of which
# fails and is replaced for ever. The worker leaves with this status instead (silently:
# one clear error in the caller beats a traceback per worker) and the caller says why.
EXIT_UNGUARDED_MAIN = 87
UNGUARDED_MAIN_MESSAGE = (
    "the worker processes could not start: they import the main script again "
    "(multiprocessing's 'spawn'), and the script starts workers (solve_many with jobs > 1) "
    'when it is imported. Put that code under  if __name__ == "__main__":  in the script'
)
# Workers that die before they are ready, this many times in a row, end the run: a
# crash at start-up (a broken install, a module that fails to import) repeats, and
# replacing them for ever would never answer.
MAX_STARTUP_DEATHS = 3


def _importing_main_for_a_child() -> bool:
    """Whether this process is a spawned child still importing its parent's main script.

    multiprocessing sets ``_inheriting`` on the current process while it prepares a
    spawned (or forkserver) child; its own check against starting processes then,
    ``spawn._check_not_importing_main``, reads the same flag.
    """
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


# A task function: (solver, position text, SearchRequest, stopped) -> its result, or
# None when ``stopped()`` cut it short (then it is no result of the problem).
# The solver is armed when the task starts (a stop() from then on is seen).
Task = Callable[[Solver, str, SearchRequest, Callable[[], bool]], Any]


@dataclass(frozen=True)
class SolverSpec:
    """The Solver every worker builds for itself: its table size and search threads.

    Picklable, so worker processes and cluster tasks make their own (a Solver is not).
    """

    hash_mb: int = DEFAULT_HASH_MB
    threads: int = 1

    def make(self) -> Solver:
        """A new Solver of this size (MemoryError when the table does not fit)."""
        return Solver(self.hash_mb, threads=self.threads)

    def describe(self) -> str:
        """The size in words, for error messages."""
        return f"a {self.hash_mb} MB table" + (
            f" and {self.threads} threads" if self.threads > 1 else ""
        )


def solve_task(
    solver: Solver, text: str, request: SearchRequest, stopped: Callable[[], bool]
) -> Any:
    """The default task: one search, as ``request`` asks (:meth:`Solver.search`)."""
    result = solver.search(text, request)
    if result.status == "unknown" and stopped():
        return None  # cut short by stop(): not a result of the problem
    return result


def _never() -> bool:
    return False


# ---------------------------------------------------------------------------
# Chunks


class _Pending:
    """The outcome of a task not answered yet (a sentinel; None means "no result")."""

    def __repr__(self) -> str:
        return "PENDING"


PENDING: Any = _Pending()


class Chunk:
    """Consecutive tasks sent to a runner together, and their outcomes as they arrive.

    ``items[i]`` is ``(text, request)``, or None for an item that needs no search (its
    outcome is None at once). ``outcomes[i]`` is :data:`PENDING` until the runner fills
    it with the task's result, the exception it raised, or None (stopped first).
    Outcomes may be filled in any order (a dead worker's tasks are re-run elsewhere)
    and are read by another thread: :meth:`wait` for one of them.
    """

    __slots__ = ("items", "outcomes", "filled", "_cond")

    def __init__(self, items: list[tuple[str, SearchRequest] | None]):
        self.items = items
        if None in items:
            self.outcomes: list[Any] = [PENDING if item is not None else None for item in items]
        else:
            self.outcomes = [PENDING] * len(items)
        # How many outcomes are in (counted with them, under the condition's lock): a
        # reader that sees them all takes the chunk whole instead of looking at each.
        self.filled = len(items) - self.outcomes.count(PENDING)
        self._cond = threading.Condition()

    def task(self, i: int) -> tuple[str, SearchRequest]:
        """The position and request of task ``i`` (one that needs a search)."""
        item = self.items[i]
        assert item is not None
        return item

    def todo(self) -> list[int]:
        """The indices of the tasks not answered yet."""
        outcomes = self.outcomes
        return list(compress(range(len(outcomes)), map(is_, outcomes, repeat(PENDING))))

    def fill(self, answers: Iterable[tuple[int, Any]], notify: bool = True) -> None:
        """Set outcomes (``(index, outcome)`` pairs; a slot already filled is kept).

        ``notify=False`` leaves the waiters to see it at their next timeout: a runner
        that answers many tasks a millisecond wakes the reader once in a while only.
        """
        with self._cond:  # (runners may fill one chunk from several threads)
            outcomes = self.outcomes
            filled = 0
            for i, o in answers:
                if outcomes[i] is PENDING:
                    outcomes[i] = o
                    filled += 1
            self.filled += filled
            if notify:
                self._cond.notify_all()

    def fill_run(self, indices: list[int], answers: list[Any], notify: bool = True) -> None:
        """:meth:`fill` with ``answers[k]`` the outcome of task ``indices[k]``: in one
        slice when the indices are consecutive and their slots all pending (a whole
        search_many run), which a bulk run of microsecond positions needs."""
        with self._cond:
            outcomes = self.outcomes
            first, end = indices[0], indices[-1] + 1
            if end - first == len(indices) and all(map(is_, outcomes[first:end], repeat(PENDING))):
                outcomes[first:end] = answers
                self.filled += end - first
                if notify:
                    self._cond.notify_all()
            else:
                self.fill(zip(indices, answers), notify)  # (the condition's lock is re-entrant)

    def notify(self) -> None:
        """Wake whoever waits in :meth:`wait`."""
        with self._cond:
            self._cond.notify_all()

    def wait(self, i: int, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for outcome ``i``; whether it is there."""
        with self._cond:
            if self.outcomes[i] is PENDING:
                self._cond.wait(timeout)
        return self.outcomes[i] is not PENDING


class ChunkSizer:
    """How many positions the next chunk holds, from the work measured so far.

    It starts at one position a chunk (the first chunks answer as soon as one task
    per position did, and a hard first problem does not drag a large chunk with it),
    then aims at ``seconds`` of work a chunk from a running mean of the cost per
    position: at most doubling from one measurement to the next (or to what
    :data:`FREE_GROWTH_SECONDS` of work fits, when that is more), at once smaller
    when positions turn out costly, never above ``cap``.
    """

    def __init__(self, seconds: float = CHUNK_SECONDS, cap: int = MAX_CHUNK):
        self.seconds = seconds
        self.cap = cap
        self.size = 1
        self._per_position: float | None = None
        self._lock = threading.Lock()

    def measured(self, positions: int, seconds: float) -> None:
        """A chunk of ``positions`` tasks took ``seconds`` of work (its tasks' time)."""
        if positions <= 0:
            return
        cost = max(seconds, 0.0) / positions
        with self._lock:
            mean = self._per_position
            mean = cost if mean is None else (mean + cost) / 2
            self._per_position = mean
            wanted = round(self.seconds / mean) if mean > 0 else self.cap
            free = round(FREE_GROWTH_SECONDS / mean) if mean > 0 else self.cap
            self.size = max(1, min(self.cap, max(2 * self.size, free), wanted))


# ---------------------------------------------------------------------------
# In this process


class ThreadRunner:
    """Solves in this process with one Solver, from a helper thread.

    The search releases the GIL, so the calling thread stays free to notice
    Ctrl-C and call Solver.stop(); solving in the main thread itself would
    leave a Ctrl-C pending until the search ends (up to the whole time limit).
    The helper takes a chunk at a time: one hand-over per chunk, not per position.
    """

    window = 2  # one running, the next queued so the thread never waits on the writer

    def __init__(self, spec: SolverSpec = SolverSpec(), task: Task = solve_task):
        self.sizer = ChunkSizer()
        self._solver = spec.make()
        self._task = task
        self._chunks: queue.Queue[Any] = queue.Queue()
        self._stopping = threading.Event()
        self._thread = start_search_thread(self._work, name="usi-mate-solve")

    def _work(self) -> None:
        while True:
            chunk = self._chunks.get()
            if chunk is None:
                return
            self._run(chunk)

    def _run(self, chunk: Chunk) -> None:
        work, answered = 0.0, 0
        try:
            if self._task is solve_task:
                work, answered = self._search_runs(chunk)
            else:
                work, answered = self._run_tasks(chunk)
        finally:
            chunk.notify()
            self.sizer.measured(answered, work)

    def _armed(self) -> bool:
        """Arm the solver unless a stop came first; whether to go on.

        arm() before the second look at the flag: a stop() that lands after arm() is
        remembered by the solver, one that lands before it is seen here."""
        if self._stopping.is_set():
            return False
        self._solver.arm()
        if self._stopping.is_set():
            self._solver.disarm()
            return False
        return True

    def _one(self, text: str, request: SearchRequest) -> Any:
        """The task on one position: its result, or the exception it raised."""
        try:
            return self._task(self._solver, text, request, self._stopping.is_set)
        except BaseException as e:  # noqa: BLE001 - handed to whoever reads the chunk
            return e

    def _one_at_a_time(self, chunk: Chunk, run: list[int]) -> list[Any]:
        """The task on each position of ``run`` alone (after the run's one call raised):
        their outcomes, None for those a stop came before."""
        self._solver.disarm()  # (whatever state the failed call left it in)
        outcomes: list[Any] = []
        for i in run:
            outcomes.append(self._one(*chunk.task(i)) if self._armed() else None)
        return outcomes

    def _run_tasks(self, chunk: Chunk) -> tuple[float, int]:
        """The task on each position of the chunk: (seconds of work, positions answered)."""
        work, answered = 0.0, 0
        notified = time.perf_counter()
        for i in chunk.todo():
            if not self._armed():
                break
            start = time.perf_counter()
            result = self._one(*chunk.task(i))
            now = time.perf_counter()
            work += now - start
            answered += 1
            wake = now - notified >= FLUSH_SECONDS
            chunk.fill(((i, result),), notify=wake)
            if wake:
                notified = now
        return work, answered

    def _search_runs(self, chunk: Chunk) -> tuple[float, int]:
        """:func:`solve_task` on the chunk, each run of positions with one request in one
        :meth:`Solver.search_many` call (a mate in one costs less than the call that
        would bring it alone), runs doubling from one: the same outcomes, (seconds of
        work, positions answered)."""
        work, answered = 0.0, 0
        todo = chunk.todo()
        items: list[Any] = chunk.items  # (those in todo are never None)
        requests = list(map(_SECOND, map(items.__getitem__, todo)))
        first, size = 0, 1
        notified = time.perf_counter()
        while first < len(todo):
            request = requests[first]
            # Runs of 1, 2, 4... positions, each filled as it ends: a chunk sized from
            # cheap positions that turn out costly still hands its answers back as they
            # come (a call into the core costs microseconds; a chunk's hand-over more).
            # The reader is woken at most every FLUSH_SECONDS (and by the chunk's end):
            # woken at every run, it took the GIL from this thread over and over.
            end = _run_end(requests, first, size)
            run, first, size = todo[first:end], end, 2 * size
            if not self._armed():
                break
            start = time.perf_counter()
            try:
                texts = list(map(_FIRST, map(items.__getitem__, run)))
                results: list[Any] = self._solver.search_many(texts, request)
            except Exception:  # noqa: BLE001 - each position's own outcome instead
                # One position's fault must not become its neighbours' answer.
                outcomes = self._one_at_a_time(chunk, run)
                work += time.perf_counter() - start
                answered += len(run)
                chunk.fill(zip(run, outcomes), notify=True)
                continue
            except BaseException as e:  # noqa: BLE001 - handed to whoever reads the chunk
                results = [e] * len(run)
            stopped = self._stopping.is_set()
            now = time.perf_counter()
            wake = now - notified >= FLUSH_SECONDS
            if wake:
                notified = now
            if type(results[0]) is MateResult and not _needs_a_look(results, stopped):
                work += now - start
                answered += len(run)
                chunk.fill_run(run, results, notify=wake)
                continue
            outcomes = []  # (i, outcome) pairs
            for i, result in zip(run, results):
                if isinstance(result, MateResult) and result.status == "invalid":
                    # As solve_task answers it: text that is no position raises there.
                    result = self._one(*chunk.task(i))
                elif isinstance(result, MateResult) and result.status == "unknown" and stopped:
                    result = None  # cut short by stop(): not a result of the problem
                outcomes.append((i, result))
            work += time.perf_counter() - start
            answered += len(run)
            chunk.fill(outcomes, notify=wake)
        return work, answered

    def submit(self, chunk: Chunk) -> None:
        """Queue a chunk; its outcomes are the task's results (for :func:`solve_task`,
        MateResults), or stay :data:`PENDING` when stopped first."""
        self._chunks.put(chunk)

    def stop(self) -> None:
        """Abandon queued chunks and stop the running search promptly."""
        self._stopping.set()
        self._solver.stop()
        while True:
            try:
                self._chunks.get_nowait()
            except queue.Empty:
                break
        self._chunks.put(None)
        self._thread.join()

    def close(self) -> None:
        """Release the helper thread after every search has finished."""
        self._chunks.put(None)
        self._thread.join()


# ---------------------------------------------------------------------------
# Worker processes of our own


def _die_with_parent() -> None:
    """End this worker when its parent ends, however it ends, so that no worker
    outlives a killed ``usi-mate solve`` (or a GUI that killed it) and searches on.

    Linux: the kernel sends SIGTERM (PR_SET_PDEATHSIG). Elsewhere (Windows, macOS) a
    watcher thread waits on the parent's sentinel, which multiprocessing's spawn hands
    every child (on Windows a handle on the parent process, signalled when it ends,
    TerminateProcess included), and exits at once. Without it a Windows worker went on
    with its search, up to --time, and only then found its pipe broken.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            return
        except (OSError, AttributeError):
            pass
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return  # not a multiprocessing child (a test calling the worker in-process)

    def watch() -> None:
        parent.join()  # waits on the sentinel; the search releases the GIL meanwhile
        os._exit(1)  # no one is left to read an answer; the table goes with the process

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _detach_stdio() -> None:
    # Workers report through their pipe only. Holding the caller's stdout/stderr
    # open would keep a reader (`| head`, a GUI) waiting after the parent is gone.
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
    except OSError:
        pass


class _Replies:
    """A worker's answers on their way back: sent when its chunk ends, and every
    :data:`FLUSH_SECONDS` before that from a helper thread (the search releases the
    GIL), so that a long search does not hold back the answers that came before it."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._order: int | None = None
        self._answers: list[tuple[int, Any, Exception | None]] = []
        threading.Thread(target=self._flush_loop, name="usi-mate-replies", daemon=True).start()

    def add(self, order: int, answer: tuple[int, Any, Exception | None]) -> None:
        with self._lock:
            self._order = order
            self._answers.append(answer)

    def finish(self, order: int, work: float) -> None:
        """The chunk's last answers and its measured work."""
        with self._lock:
            self._send("done", order, work)

    def _flush_loop(self) -> None:
        while True:
            time.sleep(FLUSH_SECONDS)
            with self._lock:
                if self._answers and self._order is not None:
                    self._send("part", self._order, 0.0)

    def _send(self, kind: str, order: int, work: float) -> None:
        answers, self._answers = self._answers, []
        try:
            try:
                self._conn.send((kind, order, answers, work))
            except (OSError, EOFError):
                raise
            except Exception:  # noqa: BLE001 - an answer that does not pickle: nothing was sent
                self._conn.send((kind, order, [_picklable(a) for a in answers], work))
        except (OSError, EOFError):
            pass  # the parent is gone: the main loop sees it at its next recv()


def _picklable(answer: tuple[int, Any, Exception | None]) -> tuple[int, Any, Exception | None]:
    try:
        pickle.dumps(answer)
        return answer
    except Exception as e:  # noqa: BLE001 - reported as this task's error
        error = answer[2] if answer[2] is not None else e
        return (answer[0], None, RuntimeError(f"{type(error).__name__}: {error}"))


def _worker_main(conn: Any, spec: SolverSpec, task: Task, searching: Any) -> None:
    """A worker process: one Solver, chunks in over the pipe, answers out.

    ``searching`` (shared memory) holds the index of the task being searched, -1
    between tasks: when the worker dies, the parent knows which problem it was on.
    """
    # Ctrl-C at a terminal reaches the whole process group; the parent decides
    # (it stops the workers), so workers ignore it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    _detach_stdio()
    try:
        solver = spec.make()
    except MemoryError as e:
        conn.send(("init-error", f"cannot allocate {spec.describe()}: {e or 'out of memory'}"))
        return
    conn.send(("ready", None))
    replies = _Replies(conn)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if message is None:
            return
        order, items = message
        work = _run_chunk(task, solver, items, searching, replies, order)
        replies.finish(order, work)


def _run_chunk(
    task: Task, solver: Solver, items: list[Any], searching: Any, replies: Any, order: int
) -> float:
    """A worker's chunk (a process's or the local thread's): its answers to
    ``replies.add``, until :data:`CHUNK_BUDGET_SECONDS` of work (the rest goes back);
    ``searching`` holds the index of the task in hand (-1 between tasks). Its seconds
    of work."""
    if task is solve_task:
        return _search_runs_in_worker(solver, items, searching, replies, order)
    work = 0.0
    for n, (i, text, request) in enumerate(items):
        if n and work >= CHUNK_BUDGET_SECONDS:
            break  # the rest goes back (see CHUNK_BUDGET_SECONDS)
        searching.value = i
        start = time.perf_counter()
        replies.add(order, _task_answer(task, solver, i, text, request))
        work += time.perf_counter() - start
        searching.value = -1
    return work


def _task_answer(
    task: Task, solver: Solver, i: int, text: str, request: SearchRequest
) -> tuple[int, Any, Exception | None]:
    try:
        return (i, task(solver, text, request, _never), None)
    except Exception as e:  # noqa: BLE001 - reported as this task's error
        return (i, None, e)


# The first and second of a pair: a task's key and args (as InOrder.run takes them),
# a Chunk item's text and request.
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
_STATUS = attrgetter("status")


def _needs_a_look(results: list[MateResult], stopped: bool) -> bool:
    """Whether search_many's results need a look one by one before they are outcomes:
    text that was no position (answered as solve_task answers it), or a stop came."""
    statuses = set(map(_STATUS, results))
    return "invalid" in statuses or (stopped and "unknown" in statuses)


def _run_end(requests: list[Any], first: int, cap: int) -> int:
    """Where the run of positions from ``first`` with its request ends: at most ``cap``
    positions. (`in` and count look at identity first: one request object for a whole
    call, seen in one pass in C.)"""
    stop = min(len(requests), first + cap)
    if requests[first:stop].count(requests[first]) == stop - first:
        return stop
    end = first + 1
    while end < stop and requests[end] in (requests[first],):
        end += 1
    return end


def _search_runs_in_worker(
    solver: Solver, items: list[Any], searching: Any, replies: Any, order: int
) -> float:
    """:func:`solve_task` on a worker's items, a run of positions with one request in
    one call into the core (as :meth:`ThreadRunner._search_runs`: a mate in one costs
    less than the call that would bring it alone). The core writes the index of the
    problem it searches into ``searching``, as the loop of one task at a time does.
    Runs start at one position and double, so that a chunk of costly positions still
    stops at :data:`CHUNK_BUDGET_SECONDS` and gives the rest back. Its seconds of work."""
    work = 0.0
    n, size = 0, 1
    address = ctypes.addressof(searching)
    requests = [request for _, _, request in items]
    while n < len(items):
        if n and work >= CHUNK_BUDGET_SECONDS:
            break  # the rest goes back (see CHUNK_BUDGET_SECONDS)
        request = requests[n]
        end = _run_end(requests, n, size)
        run, n, size = items[n:end], end, 2 * size
        start = time.perf_counter()
        try:
            results: list[Any] = solver._search_run(
                [text for _, text, _ in run], request, address, [i for i, _, _ in run]
            )
        except Exception:  # noqa: BLE001 - each position's own outcome, below
            # One position's fault must not become its neighbours' answer.
            results = []
            for i, text, request in run:
                searching.value = i
                results.append(_task_answer(solve_task, solver, i, text, request))
        searching.value = -1
        for (i, text, _), result in zip(run, results):
            if type(result) is tuple:
                replies.add(order, result)
            elif result.status == "invalid":
                # As solve_task answers it: text that is no position raises there.
                replies.add(order, _task_answer(solve_task, solver, i, text, request))
            else:
                replies.add(order, (i, result, None))
        work += time.perf_counter() - start
    return work


# A Windows process that crashes ends with the exception's NTSTATUS code as its exit
# status (3221225725 says little; 0xC00000FD, stack overflow, does): the common ones.
_WINDOWS_EXCEPTIONS = {
    0xC0000005: "access violation",
    0xC0000017: "out of memory",
    0xC000001D: "illegal instruction",
    0xC00000FD: "stack overflow",
    0xC0000409: "fail-fast exception",
}


def _has_message(conn: Any) -> bool:
    """Whether a worker's pipe holds a message; False once the pipe is gone. A dead
    worker's pipe polls True at its end on POSIX (recv then raises EOFError), but on
    Windows poll itself raises BrokenPipeError, which failed the whole dispatcher: every
    problem still waiting was answered "worker died" instead of being run again."""
    try:
        return bool(conn.poll())
    except OSError:
        return False


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    if code >= 0xC0000000:
        name = _WINDOWS_EXCEPTIONS.get(code)
        return f"crashed: exception 0x{code:08X}" + (f" ({name})" if name else "")
    return f"exit status {code}"


@dataclass
class _Order:
    """Tasks of one chunk given to one worker (a chunk, or what is left of it)."""

    id: int
    chunk: Chunk
    indices: list[int]


class _Worker:
    def __init__(self, ctx: Any, spec: SolverSpec, task: Task):
        self.conn, child = ctx.Pipe()
        self.searching = ctx.RawValue("q", -1)
        self.process = ctx.Process(
            target=_worker_main, args=(child, spec, task, self.searching), daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False
        self.order: _Order | None = None


# How long the calling process searches alone before solve_many(jobs > 1) starts its
# worker processes (ProcessRunner with its local thread).
LOCAL_ALONE_SECONDS = 0.05


class _LocalWorker:
    """The calling process's own searches until the worker processes are ready.

    A worker process is ready only after its start-up (a new interpreter, the
    package's import, its table): a few tenths of a second, in which a batch of easy
    positions is over. The dispatcher hands chunks to this search thread first; the
    workers start after :data:`LOCAL_ALONE_SECONDS` of its search, one at a time,
    and it takes chunks until every worker is ready. It runs them as a worker would (one Solver
    made on its first chunk, :data:`CHUNK_BUDGET_SECONDS` a chunk) and fills their
    outcomes itself; then it retires, so that the searches never outnumber the jobs
    asked for once the workers are up. ``done(worker, order, work)`` is called
    after each chunk.
    """

    ready = True

    def __init__(
        self,
        spec: SolverSpec,
        task: Task,
        fill: Callable[[_Order, list[tuple[int, Any, Exception | None]]], None],
        done: Callable[[_LocalWorker, _Order, float], None],
    ) -> None:
        self.order: _Order | None = None
        self.preempted = False
        self.searching = ctypes.c_longlong(-1)
        self._spec, self._task, self._fill, self._done = spec, task, fill, done
        self._orders: queue.SimpleQueue[_Order | None] = queue.SimpleQueue()
        self._solver: Solver | None = None
        self._thread = start_search_thread(self._serve, name="usi-mate-local-search")

    def send(self, order: _Order) -> None:
        """Hand it a chunk (it has none)."""
        self.order = order
        self._orders.put(order)

    def retire(self) -> None:
        """End the thread after its chunk, if any."""
        self._orders.put(None)

    def preempt(self) -> None:
        """Stop its search now and end the thread; answers from now on are dropped, so
        the rest of its chunk goes back to the queue (done) for a worker process, which
        alone can lose a problem without losing the caller."""
        self.preempted = True
        solver = self._solver
        if solver is not None:
            solver.stop()
        self._orders.put(None)

    def stop(self) -> None:
        """Stop its search now and end the thread (its answers are dropped)."""
        solver = self._solver
        if solver is not None:
            solver.stop()
        self._orders.put(None)

    def add(self, order: int, answer: tuple[int, Any, Exception | None]) -> None:
        # (As _Replies.add: the answers of the chunk in hand, each as it comes.)
        current = self.order
        if current is not None and current.id == order and not self.preempted:
            self._fill(current, [answer])

    def _serve(self) -> None:
        while (order := self._orders.get()) is not None:
            items = [(i, *order.chunk.task(i)) for i in order.indices]
            try:
                if self._solver is None:
                    self._solver = self._spec.make()
                work = _run_chunk(self._task, self._solver, items, self.searching, self, order.id)
            except MemoryError:
                work = 0.0  # no table here: the chunk's rest goes back to the workers
            self._done(self, order, work)


class ProcessRunner:
    """Solves in ``jobs`` worker processes, each keeping its own Solver and table.

    Processes rather than threads: one Solver searches one position at a time,
    and a crash in the core takes down one worker and one problem, not the
    caller. The 'spawn' start method is used on every platform: forking a
    process that already runs threads (tqdm's monitor, this runner's
    dispatcher) can deadlock the child. Workers that cannot start (an
    unguarded main script, see :data:`EXIT_UNGUARDED_MAIN`; a crash at
    start-up, :data:`MAX_STARTUP_DEATHS` times in a row) fail every task with
    :class:`WorkerStartError`.

    Each worker has one chunk at a time (the dispatcher hands it the next one when
    its answers come back, a pipe's round trip); the chunks wait here. With
    ``local`` (default), this process searches too until every worker is ready
    (:class:`_LocalWorker`), so that a batch shorter than their start-up does not
    wait for it.
    """

    def __init__(
        self,
        jobs: int,
        spec: SolverSpec = SolverSpec(),
        task: Task = solve_task,
        local: bool = True,
    ):
        if _importing_main_for_a_child():
            # We are a worker importing an unguarded script: see EXIT_UNGUARDED_MAIN.
            sys.stdout.flush()
            os._exit(EXIT_UNGUARDED_MAIN)
        self.window = WINDOW_CHUNKS_PER_JOB * jobs
        self.sizer = ChunkSizer()
        self._ctx = multiprocessing.get_context("spawn")
        self._spec = spec
        self._task = task
        self._lock = threading.Lock()
        self._queue: deque[_Order] = deque()
        self._next_id = 0
        self._closing = False
        self._stopping = False
        self._init_error: str | None = None
        self._startup_deaths = 0  # workers dead before ready since one was last ready
        self._wake_r, self._wake_w = self._ctx.Pipe(duplex=False)
        self._jobs = jobs
        # With the local thread the worker processes start once it has searched for
        # LOCAL_ALONE_SECONDS (_start_workers): a batch over by then never pays for
        # their start-up, which on a machine of few cores also slows the searches
        # beside it. Without it, at once.
        self._workers: list[_Worker] = []
        self._start_at: float | None = None
        self._retiring: _LocalWorker | None = None  # preempted, its chunk not back yet
        if not local:
            self._workers = [_Worker(self._ctx, spec, task) for _ in range(jobs)]
        self._local: _LocalWorker | None = (
            _LocalWorker(spec, task, self._local_fill, self._local_done) if local else None
        )
        self._dispatcher = threading.Thread(
            target=self._dispatch, name="usi-mate-workers", daemon=True
        )
        self._dispatcher.start()

    def submit(self, chunk: Chunk) -> None:
        """Queue a chunk; its outcomes are the task's results (for :func:`solve_task`,
        MateResults), the exceptions the tasks raised, or :class:`WorkerDied`."""
        with self._lock:
            if self._init_error is not None:
                chunk.fill((i, WorkerStartError(self._init_error)) for i in chunk.todo())
                return
            self._queue.append(self._order(chunk, chunk.todo()))
        self._wake()

    def _order(self, chunk: Chunk, indices: list[int]) -> _Order:
        self._next_id += 1
        return _Order(self._next_id, chunk, indices)

    def _wake(self) -> None:
        try:
            self._wake_w.send_bytes(b"x")
        except OSError:
            pass

    def _searchers(self) -> list[_Worker | _LocalWorker]:
        # Called with the lock held: the worker processes, and the local search thread
        # while some worker is not ready (retired, once idle, when all are).
        local = self._local
        if local is not None and (
            self._init_error is not None
            or (len(self._workers) == self._jobs and all(w.ready for w in self._workers))
        ):
            if local.order is None:
                local.retire()
            else:
                local.preempt()  # (its chunk's rest comes back through _local_done)
                self._retiring = local
            self._local = local = None
        return [*self._workers, local] if local is not None else list(self._workers)

    def _assign(self) -> None:
        # Called with the lock held: give queued chunks to idle, ready workers, at most
        # the sizer's size at a time (sized now, from the latest costs: the chunk was
        # sized when it was made, and costs change along a file). The local thread
        # takes one only while a worker process is not ready (_searchers).
        for w in self._searchers():
            if not (w.ready and w.order is None and self._queue):
                continue
            order = self._take_order()
            if isinstance(w, _LocalWorker):
                w.send(order)
            else:
                w.order = order
                w.conn.send((order.id, [(i, *order.chunk.task(i)) for i in order.indices]))

    def _take_order(self) -> _Order:
        # Called with the lock held and a queued order: the next, at most the sizer's size.
        order = self._queue[0]
        size = self.sizer.size
        if len(order.indices) > size:
            order.indices, rest = order.indices[:size], order.indices[size:]
            self._queue[0] = self._order(order.chunk, rest)
        else:
            self._queue.popleft()
        return order

    def _local_fill(self, order: _Order, answers: list[tuple[int, Any, Exception | None]]) -> None:
        with self._lock:
            if not self._stopping and self._init_error is None:
                order.chunk.fill(
                    (i, result if error is None else error) for i, result, error in answers
                )

    def _local_done(self, local: _LocalWorker, order: _Order, work: float) -> None:
        with self._lock:
            if self._retiring is local:
                self._retiring = None
            if local.order is order:
                local.order = None
                left = [j for j in order.indices if order.chunk.outcomes[j] is PENDING]
                if left and self._init_error is not None:  # no worker will take them
                    error = WorkerStartError(self._init_error)
                    order.chunk.fill((i, error) for i in left)
                elif left:  # given back (CHUNK_BUDGET_SECONDS, or preempted): first in line
                    self._queue.appendleft(self._order(order.chunk, left))
                self.sizer.measured(len(order.indices) - len(left), work)
        self._wake()

    def _waiting_orders(self) -> list[_Order]:
        # Called with the lock held: every order not answered, queued or on a worker
        # (or the local thread, whose late answers are then dropped).
        searchers: list[_Worker | _LocalWorker] = list(self._workers)
        if self._local is not None:
            searchers.append(self._local)
        orders = list(self._queue) + [w.order for w in searchers if w.order]
        self._queue.clear()
        for w in searchers:
            w.order = None
        return orders

    def _dispatch(self) -> None:
        try:
            self._dispatch_loop()
        except BaseException as e:  # noqa: BLE001 - never leave a caller waiting forever
            with self._lock:
                self._init_error = f"the worker dispatcher failed: {type(e).__name__}: {e}"
                orders = self._waiting_orders()
            for order in orders:
                order.chunk.fill((i, WorkerDied(self._init_error)) for i in order.indices)

    def _start_workers(self) -> float:
        # Called with the lock held: start the worker processes when it is time, one
        # at a time (the first once the local thread has searched LOCAL_ALONE_SECONDS,
        # each next one when those before it are ready: a start-up takes a core for a
        # few tenths of a second, and more of them at once slowed the searches beside
        # them); the seconds until the first is due.
        if self._local is None or len(self._workers) >= self._jobs:
            return 1.0
        now = time.monotonic()
        if not self._workers:
            if self._start_at is None:
                if self._local.order is None:
                    return 1.0  # nothing searched yet
                self._start_at = now + LOCAL_ALONE_SECONDS
            if now < self._start_at:
                return self._start_at - now
        elif not all(w.ready for w in self._workers):
            return 1.0
        try:
            self._workers.append(_Worker(self._ctx, self._spec, self._task))
        except OSError as e:  # no process or pipe to be had
            self._fail_start(f"cannot start a worker process: {e}")
        return 1.0

    def _dispatch_loop(self) -> None:
        while True:
            with self._lock:
                if self._stopping:
                    return
                self._assign()
                timeout = self._start_workers()
                if (
                    self._closing
                    and not self._queue
                    and all(w.order is None for w in self._workers)
                    and (self._local is None or self._local.order is None)
                    and self._retiring is None
                ):
                    if self._local is not None:
                        self._local.retire()
                        self._local = None
                    for w in self._workers:
                        try:
                            w.conn.send(None)
                        except OSError:
                            pass
                    return
                waitables: list[Any] = [self._wake_r]
                for w in self._workers:
                    if not w.conn.closed:  # a dead worker left unreplaced after a start error
                        waitables += [w.conn, w.process.sentinel]
            ready = multiprocessing.connection.wait(waitables, timeout=timeout)
            with self._lock:
                if self._stopping:
                    return
                for obj in ready:
                    if obj is self._wake_r:
                        while self._wake_r.poll():
                            self._wake_r.recv_bytes()
                        continue
                    for i, w in enumerate(self._workers):
                        if obj is w.conn:
                            self._receive(w)
                        elif obj == w.process.sentinel and not w.process.is_alive():
                            self._replace(i)

    def _receive(self, w: _Worker) -> bool:
        # False when the pipe is closed (the worker is gone; its sentinel reports that).
        try:
            kind, value, *rest = w.conn.recv()
        except (EOFError, OSError):
            return False
        if kind == "ready":
            w.ready = True
            self._startup_deaths = 0
        elif kind == "init-error":
            self._init_error = value
            for order in self._queue:
                order.chunk.fill((i, WorkerDied(value)) for i in order.indices)
            self._queue.clear()
        elif w.order is not None and w.order.id == value:
            answers, work = rest
            order = w.order
            order.chunk.fill(
                (i, result if error is None else error) for i, result, error in answers
            )
            if kind == "done":
                w.order = None
                left = [j for j in order.indices if order.chunk.outcomes[j] is PENDING]
                if left:  # given back after CHUNK_BUDGET_SECONDS: first in line
                    self._queue.appendleft(self._order(order.chunk, left))
                self.sizer.measured(len(order.indices) - len(left), work)
        return True

    def _replace(self, i: int) -> None:
        w = self._workers[i]
        # Answers may have arrived just before the end: read them first.
        while w.order is not None and _has_message(w.conn) and self._receive(w):
            pass
        if w.order is not None:
            order, w.order = w.order, None
            left = [j for j in order.indices if order.chunk.outcomes[j] is PENDING]
            lost = w.searching.value
            if lost in left:
                # The problem it was on, as when each task was one position: not tried
                # again (it may be what killed the worker).
                pid, how = w.process.pid, _describe_exit(w.process.exitcode)
                order.chunk.fill(
                    [
                        (
                            lost,
                            WorkerDied(
                                f"worker process {pid} ended ({how}) before answering this problem"
                            ),
                        )
                    ]
                )
                left.remove(lost)
            if left:
                # The rest of its chunk, answered or not before it died, runs again first.
                self._queue.appendleft(self._order(order.chunk, left))
        w.conn.close()
        if not w.ready and self._init_error is None:
            self._startup_deaths += 1
            code = w.process.exitcode
            if code == EXIT_UNGUARDED_MAIN:
                self._fail_start(UNGUARDED_MAIN_MESSAGE)
            elif self._startup_deaths >= MAX_STARTUP_DEATHS:
                self._fail_start(
                    f"the worker processes could not start: {self._startup_deaths} in a row "
                    f"ended before they were ready (the last: {_describe_exit(code)}). From "
                    'a script, is solve_many called under  if __name__ == "__main__":  ?'
                )
        if self._init_error is None and not self._stopping:
            try:
                self._workers[i] = _Worker(self._ctx, self._spec, self._task)
            except OSError as e:  # no process or pipe to be had: as good as a start-up death
                self._fail_start(f"cannot start a worker process: {e}")

    def _fail_start(self, message: str) -> None:
        # Called with the lock held: no worker will answer, so neither queued chunks nor
        # chunks submitted from now on wait for one (a late answer is dropped).
        self._init_error = message
        for order in self._waiting_orders():
            order.chunk.fill((i, WorkerStartError(message)) for i in order.indices)
        if self._local is not None:  # (its search, now answered with the error, ends)
            self._local.stop()
            self._local = None

    def stop(self) -> None:
        """Drop queued chunks and terminate the workers now.

        A worker busy in the core cannot be asked to stop from here (its next
        message is read only after the search), so it is terminated.
        """
        with self._lock:
            self._stopping = True
            self._queue.clear()
            local, self._local = self._local, None
        if local is not None:
            local.stop()
        self._wake()
        self._dispatcher.join()
        for w in self._workers:
            if w.process.is_alive():
                w.process.terminate()
        for w in self._workers:
            w.process.join(timeout=5)

    def close(self) -> None:
        """Finish every queued chunk, then let the workers exit.

        A worker still starting has had no work and has none to finish: it is ended
        at once, not waited for (a batch over before the workers were ready, searched
        here by the local thread, would otherwise wait for their start-up)."""
        with self._lock:
            self._closing = True
        self._wake()
        self._dispatcher.join()
        for w in self._workers:
            if not w.ready and w.process.is_alive():
                w.process.terminate()
        for w in self._workers:
            w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.terminate()


# ---------------------------------------------------------------------------
# Any executor (a cluster's)

_executor_solver: tuple[SolverSpec, Solver] | None = None


def _executor_chunk(
    items: list[tuple[int, str, SearchRequest]], spec: SolverSpec, task: Task = solve_task
) -> tuple[list[tuple[int, Any, Exception | None]], float]:
    """One chunk in whatever process the executor runs it: its answers and its measured
    work; once that reaches :data:`CHUNK_BUDGET_SECONDS`, the rest is left unanswered
    (submitted again). The Solver (and its table) is kept between the tasks of that
    process."""
    global _executor_solver
    if _executor_solver is None or _executor_solver[0] != spec:
        _executor_solver = None  # free the old table before the new one is allocated
        _executor_solver = (spec, spec.make())
    solver = _executor_solver[1]
    answers: list[tuple[int, Any, Exception | None]] = []
    work = 0.0
    for i, text, request in items:
        if answers and work >= CHUNK_BUDGET_SECONDS:
            break
        start = time.perf_counter()
        try:
            answers.append((i, task(solver, text, request, _never), None))
        except Exception as e:  # noqa: BLE001 - reported as this task's error
            answers.append((i, None, e))
        work += time.perf_counter() - start
    return [_picklable(a) for a in answers] if _needs_check(answers) else answers, work


def _needs_check(answers: list[tuple[int, Any, Exception | None]]) -> bool:
    # Exceptions may not pickle (results do): check those only.
    return any(error is not None for _, _, error in answers)


class ExecutorRunner:
    """Solves on any :class:`concurrent.futures.Executor` (e.g. ``distributed.Client
    .get_executor()``), one task a chunk; the executor schedules, we only submit and
    collect. A chunk whose task fails as a whole (Dask gives up on a worker lost three
    times) is sent again one position a task, so only the position that fails on its
    own is lost."""

    def __init__(
        self,
        executor: Executor,
        spec: SolverSpec = SolverSpec(),
        window: int | None = None,
        task: Task = solve_task,
    ):
        self._executor = executor
        self._spec = spec
        self._task = task
        self._futures: set[Future[Any]] = set()
        self._stopping = False
        self.sizer = ChunkSizer()
        workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
        self.window = window or WINDOW_CHUNKS_PER_JOB * workers

    def submit(self, chunk: Chunk) -> None:
        """Submit a chunk to the executor as one task."""
        self._submit(chunk, chunk.todo())

    def _submit(self, chunk: Chunk, indices: list[int]) -> None:
        # One task per sizer's size (sized now: costs change along a file).
        size = self.sizer.size
        for start in range(0, len(indices), size):
            part = indices[start : start + size]
            items = [(i, *chunk.task(i)) for i in part]
            future = self._executor.submit(_executor_chunk, items, self._spec, self._task)
            self._futures.add(future)
            future.add_done_callback(functools.partial(self._done, chunk=chunk, indices=part))

    def _done(self, future: Future[Any], chunk: Chunk, indices: list[int]) -> None:
        self._futures.discard(future)
        if future.cancelled():
            return
        error = future.exception()
        if error is None:
            answers, work = future.result()
            chunk.fill((i, result if e is None else e) for i, result, e in answers)
            self.sizer.measured(len(answers), work)
            left = [i for i in indices if chunk.outcomes[i] is PENDING]
            if left and not self._stopping:  # given back after CHUNK_BUDGET_SECONDS
                self._submit(chunk, left)
        elif len(indices) > 1 and not self._stopping:
            for i in indices:
                self._submit(chunk, [i])
        else:
            chunk.fill((i, error) for i in indices)

    def stop(self) -> None:
        """Cancel what has not started; the executor's owner decides about the rest."""
        self._stopping = True
        for future in list(self._futures):
            future.cancel()

    def close(self) -> None:
        """Nothing to release: the executor belongs to the caller."""


# ---------------------------------------------------------------------------
# In input order


class Stopped(Exception):
    """Raised by a poll callback to leave the wait loop (the CLI's Ctrl-C)."""


class InOrder:
    """Feeds tasks to a runner in chunks and hands back outcomes in input order.

    Each task is ``(key, args)`` where args is ``(text, request)`` (a position and its
    :class:`SearchRequest`) or None for an item that needs no search (a malformed line). The
    outcome of a search is its result, the exception it raised, or None when
    the runner was stopped first. At most ``runner.window`` chunks are in flight.
    """

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.pending: deque[tuple[Sequence[Any], Chunk]] = deque()
        self._head = 0  # outcomes of pending[0] already handed back

    def run(
        self,
        tasks: Iterable[tuple[Any, tuple[Any, ...] | None]],
        poll: Callable[[], None] | None = None,
    ) -> Iterator[tuple[Any, Any]]:
        """Yield ``(key, outcome)`` in task order; ``poll`` runs while waiting and may raise."""
        for keys, outcomes in self.run_chunks(tasks, poll):
            # The head follows each outcome handed back: after a stop, finished() has
            # those of the stretch the consumer had not taken yet.
            head = self._head
            for key, outcome in zip(keys, outcomes):
                head += 1
                self._head = head
                yield key, outcome

    def run_chunks(
        self,
        tasks: Iterable[Any],
        poll: Callable[[], None] | None = None,
        prepare: Callable[[list[Any]], tuple[Sequence[Any], list[Any]]] | None = None,
    ) -> Iterator[tuple[Sequence[Any], Sequence[Any]]]:
        """:meth:`run` a stretch at a time: ``(keys, outcomes)`` of the consecutive tasks
        whose outcomes are in, in task order (a whole chunk when it is done, which is
        what a bulk run of microsecond positions needs: no step a position here).

        ``prepare``, when given, makes a chunk's keys and args from a list of what
        ``tasks`` yields (else those are ``(key, args)`` pairs).

        An exception that ``tasks`` raises (a generator's own error, a file that cannot
        be decoded further on) is raised here only after the outcomes of every task it
        gave before it: what was taken from the input is never lost to what was not."""
        input_error: list[Exception] = []
        it = _until_error(tasks, input_error)
        exhausted = False
        while True:
            while not exhausted and len(self.pending) < self.runner.window:
                size = self.runner.sizer.size
                batch = list(islice(it, size))
                if len(batch) < size:
                    exhausted = True
                if batch:
                    if prepare is not None:
                        keys, items = prepare(batch)
                    else:
                        keys, items = list(map(_FIRST, batch)), list(map(_SECOND, batch))
                    chunk = Chunk(items)
                    self.pending.append((keys, chunk))
                    if PENDING in chunk.outcomes:
                        self.runner.submit(chunk)
            if not self.pending:
                if input_error:
                    raise input_error[0]
                return
            keys, chunk = self.pending[0]
            outcomes = chunk.outcomes
            i = self._head
            if poll is not None:
                poll()  # also when the head is already done: a stop must not wait for a slow item
            while outcomes[i] is PENDING:
                chunk.wait(i, POLL_SECONDS)
                if poll is not None:
                    poll()
            # Hand back every outcome already in, in order, before looking again.
            n = len(keys)
            if chunk.filled == n:
                end = n
            else:
                end = i + 1
                while end < n and outcomes[end] is not PENDING:
                    end += 1
            yield keys[i:end], outcomes[i:end]
            # (After the yield: a consumer stopped inside the stretch leaves it to
            # finished(), as run() does an outcome at a time.)
            self._head = end
            if self._head == n:
                self.pending.popleft()
                self._head = 0

    def finished(self) -> list[tuple[Any, Any]]:
        """What is already done among the tasks not yet yielded, in order (after a stop).

        Searches still running or never started are left out, so whoever writes
        these only writes complete results.
        """
        done = []
        head = self._head
        for keys, chunk in self.pending:
            for i in range(head, len(keys)):
                result = chunk.outcomes[i]
                if chunk.items[i] is None:
                    done.append((keys[i], None))
                elif (
                    result is not PENDING
                    and result is not None
                    and not isinstance(result, BaseException)
                ):
                    done.append((keys[i], result))
            head = 0
        self.pending.clear()
        self._head = 0
        return done


def _until_error(items: Iterable[Any], error: list[Exception]) -> Iterator[Any]:
    """``items`` until they end or raise; an Exception they raise is put in ``error``
    instead (KeyboardInterrupt and the like go through at once)."""
    try:
        yield from items
    except Exception as e:  # noqa: BLE001 - raised by run_chunks once the tasks before it are done
        error.append(e)


def describe_failure(exc: BaseException) -> str:
    """One line for a search that raised instead of answering."""
    if isinstance(exc, WorkerDied):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def make_runner(
    jobs: int,
    spec: SolverSpec,
    executor: Executor | None = None,
    task: Task = solve_task,
    workers: int | None = None,
) -> ThreadRunner | ProcessRunner | ExecutorRunner:
    """The runner for ``jobs`` (1: this process) or for an executor, running ``task``;
    ``workers``: how many tasks an executor runs at once (it sizes the window of
    chunks in flight; default: the executor's ``_max_workers`` or the CPU count)."""
    if executor is not None:
        window = WINDOW_CHUNKS_PER_JOB * workers if workers else None
        return ExecutorRunner(executor, spec, window=window, task=task)
    return ThreadRunner(spec, task) if jobs == 1 else ProcessRunner(jobs, spec, task)


# ---------------------------------------------------------------------------
# Python API


def solve_many(
    positions: Iterable[Position | str],
    request: SearchRequest | None = None,
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    hash_mb: int = DEFAULT_HASH_MB,
    threads: int = 1,
    **options: Unpack[SearchOptions],
) -> Iterator[MateResult]:
    """Solve many positions, yielding one :class:`MateResult` per position in input order.

    ``positions`` is any iterable of :class:`Position` objects or position text
    (SFEN, ``"sfen ... moves ..."``, ``"startpos moves ..."``), read lazily, at
    most a few chunks per worker ahead of the results (positions go to the workers
    in chunks of about 0.15 s of search, see :class:`ChunkSizer`); a bare string is
    refused (it would be read one character at a time). Each problem is searched as
    ``request`` (a :class:`SearchRequest`; None: the defaults) with the fields the
    other keywords name replaced (``options``: ``time_limit_ms``, ``nodes_limit``,
    ``post_search``, ... as :meth:`Solver.solve` takes them); limits apply to each
    problem.

    Where the searches run: with ``jobs=1`` in this process; with more, in
    ``jobs`` worker processes with a ``hash_mb`` table each (a worker that dies
    costs only its problem, reported as an error), started one at a time once this
    process has searched the first positions for a twentieth of a second, which
    it goes on doing until they are all ready (a short batch never waits for their
    start-up); with ``executor`` (any
    :class:`concurrent.futures.Executor`, e.g. a Dask or Ray cluster's), on it.
    ``threads``: search threads for each problem, sharing its worker's table
    (verdicts never depend on it; ``jobs=2, threads=4`` keeps 8 cores busy).

    Every position gets a result: malformed text gives status ``"invalid"``
    with ``error`` set, a lost worker status ``"unknown"`` with ``error``. An
    exception that iterating ``positions`` raises is raised after the results of
    every position taken before it. Ctrl-C, or abandoning the iterator, stops the
    searches and the workers. Raises at once for bad arguments.

    Worker processes (``jobs`` > 1) are started with multiprocessing's "spawn",
    which imports the main script again in each: a script must call this under
    ``if __name__ == "__main__":``. Without it, and whenever the workers keep
    dying before they are ready, iterating raises :class:`WorkerStartError` (a
    RuntimeError that says why) instead of waiting for workers that never come.

    >>> for r in solve_many(["4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"]):
    ...     print(r.status, r.moves)
    mate ['G*5b']
    """
    if isinstance(positions, (str, bytes)):
        raise TypeError("positions must be an iterable of positions; for one position use solve()")
    if isinstance(positions, Position):
        raise TypeError("positions must be an iterable of positions; for one Position use solve()")
    iter(positions)  # TypeError now, not at the first next()
    check_int("jobs", jobs, 1, 4096, none_ok=False)
    check_hash_mb(hash_mb)
    check_threads(threads)
    if (
        executor is not None
        and not isinstance(executor, Executor)
        and not hasattr(executor, "submit")
    ):
        raise TypeError(
            f"executor must be a concurrent.futures.Executor, not {type(executor).__name__}"
        )
    wanted = search_request(request, options)
    return _solve_many(positions, jobs, executor, wanted, SolverSpec(hash_mb, threads))


def _solve_many(
    positions: Iterable[Any],
    jobs: int,
    executor: Executor | None,
    request: SearchRequest,
    spec: SolverSpec,
) -> Iterator[MateResult]:

    def task(p: Any) -> tuple[Any, tuple[str, SearchRequest] | None]:
        """``(key, args)`` of one position: key None, or why it is no position."""
        # Positions do not pickle, and their SFEN is all a search uses.
        if isinstance(p, Position):
            return None, (p.sfen(), request)
        if isinstance(p, str):
            return None, (p, request)
        return TypeError(f"a position must be a Position or text, not {type(p).__name__}"), None

    def prepare(batch: list[Any]) -> tuple[Sequence[Any], list[Any]]:
        """A chunk's keys and args; for text alone (a bulk run's usual input) in C."""
        if set(map(type, batch)) == {str}:
            return [None] * len(batch), list(zip(batch, repeat(request)))
        pairs = list(map(task, batch))
        return list(map(_FIRST, pairs)), list(map(_SECOND, pairs))

    runner = make_runner(jobs, spec, executor)
    finished = False
    try:
        for keys, results in InOrder(runner).run_chunks(positions, prepare=prepare):
            if keys.count(None) == len(keys) and set(map(type, results)) == {MateResult}:
                yield from results
                continue
            for key, result in zip(keys, results):
                if type(result) is MateResult and key is None:
                    yield result
                    continue
                if key is not None:  # not a position at all
                    result = MateResult(status="invalid", error=str(key))
                elif isinstance(result, (ValueError, TypeError)):
                    result = MateResult(status="invalid", error=str(result))
                elif isinstance(result, WorkerStartError):
                    raise WorkerStartError(str(result)) from None  # no problem will be searched
                elif isinstance(result, BaseException):
                    result = MateResult(status="unknown", error=describe_failure(result))
                yield result
        finished = True
    finally:
        # Normal end: let the workers exit. Ctrl-C, an exception or an
        # abandoned iterator (GeneratorExit): stop the searches now.
        runner.close() if finished else runner.stop()
