"""Where batch searches run, and :func:`solve_many`.

Three runners share one small interface (``submit(text, request) -> Future``,
``window``, ``stop()``, ``close()``). What a task does with its Solver is a
*task function* (:data:`Task`): :func:`solve_task` (the default) searches;
:func:`usi_mate.checker.check_task` runs a composer's check. A task function must
be a module-level function (worker processes receive it by name):

- :class:`ThreadRunner`: one Solver in this process, searching in a helper thread
  (the GIL is released, so the caller's thread stays free for Ctrl-C);
- :class:`ProcessRunner`: ``jobs`` worker processes of our own, each with its own
  Solver and table. A worker that dies (a crash, ``kill -9``, the OOM killer)
  costs exactly the problem it was on, which fails with :class:`WorkerDied`; a
  new worker takes its place and the run goes on. Workers die with the parent
  (Linux) and never hold the caller's stdout open;
- :class:`ExecutorRunner`: any :class:`concurrent.futures.Executor` (a Dask or Ray
  cluster's executor), each worker process keeping one Solver between tasks.

:class:`InOrder` feeds a runner a bounded window of tasks and hands back the
outcomes in input order.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from typing import Any

from ._core import Position, Solver, start_search_thread
from .settings import DEFAULT_HASH_MB, SearchRequest, check_hash_mb, check_int, check_threads
from .types import MateResult

__all__ = [
    "solve_many",
    "ThreadRunner",
    "ProcessRunner",
    "ExecutorRunner",
    "InOrder",
    "WorkerDied",
    "WorkerStartError",
]

# How many problems may be in flight (submitted, result not yet written), per
# worker. Results leave in input order, so a slow problem at the head holds
# back the finished ones behind it: while one worker is on it, the others can
# finish 8*jobs-1 problems before they run out of work. A lazy input
# (solve_many on a generator) is read at most 8*jobs items ahead.
WINDOW_PER_JOB = 8

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
# In this process


class ThreadRunner:
    """Solves in this process with one Solver, from a helper thread.

    The search releases the GIL, so the calling thread stays free to notice
    Ctrl-C and call Solver.stop(); solving in the main thread itself would
    leave a Ctrl-C pending until the search ends (up to the whole time limit).
    """

    window = 2  # one running, the next queued so the thread never waits on the writer

    def __init__(self, spec: SolverSpec = SolverSpec(), task: Task = solve_task):
        self._solver = spec.make()
        self._task = task
        self._tasks: queue.Queue = queue.Queue()
        self._stopping = threading.Event()
        self._thread = start_search_thread(self._work, name="usi-mate-solve")

    def _work(self) -> None:
        while True:
            item = self._tasks.get()
            if item is None:
                return
            future, text, request = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                # arm() before the second look at the flag: a stop() that lands after
                # arm() is remembered by the solver, one that lands before it is seen here.
                if self._stopping.is_set():
                    future.set_result(None)
                    continue
                self._solver.arm()
                if self._stopping.is_set():
                    self._solver.disarm()
                    future.set_result(None)
                    continue
                future.set_result(self._task(self._solver, text, request, self._stopping.is_set))
            except BaseException as e:  # noqa: BLE001 - handed to whoever waits on the future
                future.set_exception(e)

    def submit(self, text: str, request: SearchRequest) -> Future:
        """Queue one task (for :func:`solve_task`, a search of ``text`` as ``request``
        asks); the future's result is the task's (a MateResult), or None if stopped."""
        future: Future = Future()
        self._tasks.put((future, text, request))
        return future

    def stop(self) -> None:
        """Abandon queued searches and stop the running one promptly."""
        self._stopping.set()
        self._solver.stop()
        while True:
            try:
                item = self._tasks.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        self._tasks.put(None)
        self._thread.join()

    def close(self) -> None:
        """Release the helper thread after every search has finished."""
        self._tasks.put(None)
        self._thread.join()


# ---------------------------------------------------------------------------
# Worker processes of our own


def _die_with_parent() -> None:
    # Linux: the kernel sends SIGTERM to this worker when its parent ends, however
    # it ends (SIGKILL included), so no worker outlives a killed `usi-mate solve`.
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _detach_stdio() -> None:
    # Workers report through their pipe only. Holding the caller's stdout/stderr
    # open would keep a reader (`| head`, a GUI) waiting after the parent is gone.
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
    except OSError:
        pass


def _worker_main(conn, spec: SolverSpec, task: Task = solve_task) -> None:
    """A worker process: one Solver, tasks in over the pipe, results out."""
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
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if message is None:
            return
        task_id, text, request = message
        reply: tuple[Any, Any, Exception | None]
        try:
            reply = (task_id, task(solver, text, request, _never), None)
        except Exception as e:  # noqa: BLE001 - reported as this task's error
            reply = (task_id, None, e)
        try:
            conn.send(reply)
        except Exception as e:  # noqa: BLE001 - e.g. an exception that does not pickle
            conn.send((task_id, None, RuntimeError(f"{type(e).__name__}: {e}")))


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class _Worker:
    def __init__(self, ctx, spec: SolverSpec, task: Task):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, spec, task), daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.task: tuple[int, Future] | None = None


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
    """

    def __init__(self, jobs: int, spec: SolverSpec = SolverSpec(), task: Task = solve_task):
        if _importing_main_for_a_child():
            # We are a worker importing an unguarded script: see EXIT_UNGUARDED_MAIN.
            sys.stdout.flush()
            os._exit(EXIT_UNGUARDED_MAIN)
        self.window = WINDOW_PER_JOB * jobs
        self._ctx = multiprocessing.get_context("spawn")
        self._spec = spec
        self._task = task
        self._lock = threading.Lock()
        self._queue: deque[tuple[int, Future, str, SearchRequest]] = deque()
        self._next_id = 0
        self._closing = False
        self._stopping = False
        self._init_error: str | None = None
        self._startup_deaths = 0  # workers dead before ready since one was last ready
        self._wake_r, self._wake_w = self._ctx.Pipe(duplex=False)
        self._workers = [_Worker(self._ctx, spec, task) for _ in range(jobs)]
        self._dispatcher = threading.Thread(
            target=self._dispatch, name="usi-mate-workers", daemon=True
        )
        self._dispatcher.start()

    def submit(self, text: str, request: SearchRequest) -> Future:
        """Queue one task (for :func:`solve_task`, a search of ``text`` as ``request``
        asks); the future's result is the task's (a MateResult)."""
        future: Future = Future()
        with self._lock:
            if self._init_error is not None:
                future.set_exception(WorkerStartError(self._init_error))
                return future
            self._queue.append((self._next_id, future, text, request))
            self._next_id += 1
        self._wake()
        return future

    def _wake(self) -> None:
        try:
            self._wake_w.send_bytes(b"x")
        except OSError:
            pass

    def _assign(self) -> None:
        # Called with the lock held: give queued tasks to idle, ready workers.
        for w in self._workers:
            while w.ready and w.task is None and self._queue:
                task_id, future, text, request = self._queue.popleft()
                if not future.set_running_or_notify_cancel():
                    continue
                w.task = (task_id, future)
                w.conn.send((task_id, text, request))

    def _dispatch(self) -> None:
        try:
            self._dispatch_loop()
        except BaseException as e:  # noqa: BLE001 - never leave a caller waiting forever
            with self._lock:
                self._init_error = f"the worker dispatcher failed: {type(e).__name__}: {e}"
                waiting = [f for _, f, _, _ in self._queue] + [
                    w.task[1] for w in self._workers if w.task
                ]
                self._queue.clear()
            for future in waiting:
                if not future.done():
                    future.set_running_or_notify_cancel()
                    future.set_exception(WorkerDied(self._init_error))

    def _dispatch_loop(self) -> None:
        while True:
            with self._lock:
                if self._stopping:
                    return
                self._assign()
                if self._closing and not self._queue and all(w.task is None for w in self._workers):
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
            ready = multiprocessing.connection.wait(waitables, timeout=1.0)
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
            for _, future, _, _ in self._queue:
                if future.set_running_or_notify_cancel():
                    future.set_exception(WorkerDied(value))
            self._queue.clear()
        elif w.task is not None and w.task[0] == kind:
            future = w.task[1]
            w.task = None
            error = rest[0] if rest else None
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)
        return True

    def _replace(self, i: int) -> None:
        w = self._workers[i]
        # A result may have arrived just before the end: read it first.
        while w.task is not None and w.conn.poll() and self._receive(w):
            pass
        if w.task is not None:
            pid, how = w.process.pid, _describe_exit(w.process.exitcode)
            w.task[1].set_exception(
                WorkerDied(f"worker process {pid} ended ({how}) before answering this problem")
            )
            w.task = None
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
        # Called with the lock held: no worker will answer, so neither queued tasks nor
        # tasks submitted from now on wait for one.
        self._init_error = message
        waiting = [f for _, f, _, _ in self._queue] + [w.task[1] for w in self._workers if w.task]
        self._queue.clear()
        for w in self._workers:
            w.task = None
        for future in waiting:
            # Running: a ready worker's task (its answer, if it comes, is dropped); pending:
            # queued (False when the caller cancelled it).
            if future.running() or future.set_running_or_notify_cancel():
                future.set_exception(WorkerStartError(message))

    def stop(self) -> None:
        """Cancel queued searches and terminate the workers now.

        A worker busy in the core cannot be asked to stop from here (its next
        message is read only after the search), so it is terminated.
        """
        with self._lock:
            self._stopping = True
            for _, future, _, _ in self._queue:
                future.cancel()
            self._queue.clear()
        self._wake()
        self._dispatcher.join()
        for w in self._workers:
            if w.process.is_alive():
                w.process.terminate()
        for w in self._workers:
            w.process.join(timeout=5)

    def close(self) -> None:
        """Finish every queued search, then let the workers exit."""
        with self._lock:
            self._closing = True
        self._wake()
        self._dispatcher.join()
        for w in self._workers:
            w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.terminate()


# ---------------------------------------------------------------------------
# Any executor (a cluster's)

_executor_solver: tuple[SolverSpec, Solver] | None = None


def _executor_task(
    text: str, request: SearchRequest, spec: SolverSpec, task: Task = solve_task
) -> Any:
    """One task in whatever process the executor runs it; the Solver (and its
    table) is kept between tasks of that process."""
    global _executor_solver
    if _executor_solver is None or _executor_solver[0] != spec:
        _executor_solver = None  # free the old table before the new one is allocated
        _executor_solver = (spec, spec.make())
    return task(_executor_solver[1], text, request, _never)


class ExecutorRunner:
    """Solves on any :class:`concurrent.futures.Executor` (e.g. ``distributed.Client
    .get_executor()``); the executor schedules, we only submit and collect."""

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
        self._futures: set[Future] = set()
        workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
        self.window = window or WINDOW_PER_JOB * workers

    def submit(self, text: str, request: SearchRequest) -> Future:
        """Submit one task to the executor."""
        future = self._executor.submit(_executor_task, text, request, self._spec, self._task)
        self._futures.add(future)
        future.add_done_callback(self._futures.discard)
        return future

    def stop(self) -> None:
        """Cancel what has not started; the executor's owner decides about the rest."""
        for future in list(self._futures):
            future.cancel()

    def close(self) -> None:
        """Nothing to release: the executor belongs to the caller."""


# ---------------------------------------------------------------------------
# In input order


class Stopped(Exception):
    """Raised by a poll callback to leave the wait loop (the CLI's Ctrl-C)."""


class InOrder:
    """Feeds tasks to a runner and hands back outcomes in input order.

    Each task is ``(key, args)`` where args is ``(text, request)`` (a position and its
    :class:`SearchRequest`) or None for an item that needs no search (a malformed line). The
    outcome of a search is its MateResult, the exception it raised, or None when
    the runner was stopped first.
    """

    def __init__(self, runner: Any) -> None:
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
                while not fut.done():
                    wait_futures([fut], timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                    if poll is not None:
                        poll()
            self.pending.popleft()
            yield key, outcome(fut)

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
                result = outcome(fut)
                if result is not None and not isinstance(result, BaseException):
                    done.append((key, result))
        self.pending.clear()
        return done


def outcome(fut: Future | None) -> Any:
    """A finished future's MateResult, its exception, or None (cancelled or no search)."""
    if fut is None or fut.cancelled():
        return None
    exc = fut.exception()
    return exc if exc is not None else fut.result()


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
):
    """The runner for ``jobs`` (1: this process) or for an executor, running ``task``;
    ``workers``: how many tasks an executor runs at once (it sizes the window of
    tasks in flight; default: the executor's ``_max_workers`` or the CPU count)."""
    if executor is not None:
        window = WINDOW_PER_JOB * workers if workers else None
        return ExecutorRunner(executor, spec, window=window, task=task)
    return ThreadRunner(spec, task) if jobs == 1 else ProcessRunner(jobs, spec, task)


# ---------------------------------------------------------------------------
# Python API


def solve_many(
    positions: Iterable[Position | str],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    hash_mb: int = DEFAULT_HASH_MB,
    threads: int = 1,
    time_limit_ms: int | None = None,
    nodes_limit: int | None = None,
    post_search: str = "MinLength",
    ignore_futile_interpositions: bool = True,
    certify: bool = False,
) -> Iterator[MateResult]:
    """Solve many positions, yielding one :class:`MateResult` per position in input order.

    ``positions`` is any iterable of :class:`Position` objects or position text
    (SFEN, ``"sfen ... moves ..."``, ``"startpos moves ..."``), read lazily, at
    most a few problems per worker ahead of the results; a bare string is
    refused (it would be read one character at a time). Limits apply to each
    problem; the other keywords are those of :meth:`Solver.solve`.

    Where the searches run: with ``jobs=1`` in this process; with more, in
    ``jobs`` worker processes with a ``hash_mb`` table each (a worker that dies
    costs only its problem, reported as an error); with ``executor`` (any
    :class:`concurrent.futures.Executor`, e.g. a Dask or Ray cluster's), on it.
    ``threads``: search threads for each problem, sharing its worker's table
    (verdicts never depend on it; ``jobs=2, threads=4`` keeps 8 cores busy).

    Every position gets a result: malformed text gives status ``"invalid"``
    with ``error`` set, a lost worker status ``"unknown"`` with ``error``.
    Ctrl-C, or abandoning the iterator, stops the searches and the workers.
    Raises at once for bad arguments.

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
    request = SearchRequest(
        time_limit_ms=time_limit_ms,
        nodes_limit=nodes_limit,
        post_search=post_search,
        ignore_futile_interpositions=ignore_futile_interpositions,
        certify=certify,
    )
    return _solve_many(positions, jobs, executor, request, SolverSpec(hash_mb, threads))


def _solve_many(
    positions, jobs, executor, request: SearchRequest, spec: SolverSpec
) -> Iterator[MateResult]:

    def tasks():
        for p in positions:
            # Positions do not pickle, and their SFEN is all a search uses.
            if isinstance(p, Position):
                yield None, (p.sfen(), request)
            elif isinstance(p, str):
                yield None, (p, request)
            else:
                yield (
                    TypeError(f"a position must be a Position or text, not {type(p).__name__}"),
                    None,
                )

    runner = make_runner(jobs, spec, executor)
    finished = False
    try:
        for key, result in InOrder(runner).run(tasks()):
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
