"""The runners of batch searches (usi_mate/runners.py): chunks sized from measured work,
outcomes in input order through a bounded window, a worker killed in the middle of a
chunk, an executor's chunk that fails as a whole."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import Executor, ThreadPoolExecutor

import pytest

from usi_mate import SearchRequest, Solver, solve_many
from usi_mate.runners import (
    FREE_GROWTH_SECONDS,
    MAX_CHUNK,
    PENDING,
    Chunk,
    ChunkSizer,
    ExecutorRunner,
    InOrder,
    ProcessRunner,
    SolverSpec,
    Stopped,
    ThreadRunner,
    WorkerDied,
    _describe_exit,
    _die_with_parent,
    _search_runs_in_worker,
)
from usi_mate.types import MateResult

MATE1 = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
HARD = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"  # 59 plies: busy for the whole limit
SPEC = SolverSpec(hash_mb=16)


def _wait_for_every_outcome(chunk: Chunk, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while PENDING in chunk.outcomes:
        assert time.monotonic() < deadline, chunk.outcomes
        chunk.wait(chunk.outcomes.index(PENDING), 0.1)


def test_chunks_start_at_one_position_and_grow_to_the_measured_target():
    sizer = ChunkSizer(seconds=0.1, cap=MAX_CHUNK)
    assert sizer.size == 1
    sizes = []
    for _ in range(12):  # 20 µs a position: 5,000 would fill 0.1 s, the cap comes first
        sizer.measured(sizer.size, sizer.size * 20e-6)
        sizes.append(sizer.size)
    # At once what FREE_GROWTH_SECONDS fits (100 positions), then doubling.
    assert round(FREE_GROWTH_SECONDS / 20e-6) == 100
    assert sizes[:4] == [100, 200, 400, 800]
    assert sizes[-1] == MAX_CHUNK
    slow = ChunkSizer(seconds=0.1, cap=MAX_CHUNK)
    for _ in range(4):  # 1 ms a position: no more than doubling a step
        slow.measured(slow.size, slow.size * 1e-3)
    assert slow.size == 16
    sizer.measured(MAX_CHUNK, 60.0)  # one long search among them: small chunks at once
    assert sizer.size <= 3
    for _ in range(30):
        sizer.measured(sizer.size, sizer.size * 0.01)  # 10 ms a position
    assert sizer.size == 10
    sizer.measured(0, 1.0)  # nothing answered (a stop): nothing learnt
    assert sizer.size == 10


class _Reversed:
    """A runner that answers each pair of chunks second first, from a thread, and
    counts the chunks it holds."""

    window = 3

    def __init__(self) -> None:
        self.sizer = ChunkSizer()
        self.sizer.size = 4
        self.held: list[Chunk] = []
        self.most_held = 0

    def submit(self, chunk: Chunk) -> None:
        self.held.append(chunk)
        self.most_held = max(self.most_held, len(self.held))
        if len(self.held) == 2:
            pair, self.held = self.held[::-1], []
            threading.Thread(target=self._answer, args=(pair,)).start()

    def _answer(self, pair: list[Chunk]) -> None:
        for chunk in pair:
            time.sleep(0.01)
            chunk.fill((i, f"answer {chunk.items[i][0]}") for i in reversed(chunk.todo()))


def test_outcomes_come_back_in_input_order_with_a_bounded_window():
    runner = _Reversed()
    tasks = [(n, None if n % 7 == 3 else (str(n), None)) for n in range(40)]
    tasks.append((40, (str(40), None)))  # an odd chunk count: the last one answered alone
    runner_answers_last = runner._answer

    def submit_last(chunk: Chunk) -> None:
        _Reversed.submit(runner, chunk)
        if chunk.items[-1] == ("40", None):
            pair, runner.held = runner.held, []
            threading.Thread(target=runner_answers_last, args=(pair,)).start()

    runner.submit = submit_last  # type: ignore[method-assign]
    got = list(InOrder(runner).run(tasks))
    assert [key for key, _ in got] == list(range(41))
    for key, outcome in got:
        assert outcome == (None if key % 7 == 3 else f"answer {key}")
    assert runner.most_held <= runner.window


def test_finished_after_a_stop_keeps_only_whole_results_in_order():
    held: list[Chunk] = []

    class Holder:  # takes chunks, answers nothing itself
        window = 2
        sizer = ChunkSizer()
        submit = held.append

    Holder.sizer.size = 3
    ordered = InOrder(Holder())

    def poll():
        # While waiting for task 0: some answers came, then Ctrl-C.
        a, b = held
        a.fill([(1, "result 1"), (2, RuntimeError("lost"))])
        b.fill([(0, "result 3"), (1, None)])  # None: stopped before it answered
        raise Stopped

    tasks = [(n, (str(n), None)) for n in range(5)] + [(5, None)]
    with pytest.raises(Stopped):
        next(ordered.run(tasks, poll))
    assert ordered.finished() == [(1, "result 1"), (3, "result 3"), (5, None)]
    assert not ordered.pending


def test_a_consumer_stopped_inside_a_done_chunk_leaves_the_rest_to_finished():
    # A whole chunk answered at once is handed back as one stretch; a consumer that stops
    # after two of its outcomes (Ctrl-C while writing a record) finds the others in
    # finished(), none of them twice.
    class Whole:
        window = 2
        sizer = ChunkSizer()

        @staticmethod
        def submit(chunk: Chunk) -> None:
            todo = chunk.todo()
            chunk.fill_run(todo, [f"result {chunk.items[i][0]}" for i in todo])

    Whole.sizer.size = 4
    ordered = InOrder(Whole())
    run = ordered.run([(n, (str(n), None)) for n in range(6)])
    assert [next(run), next(run)] == [(0, "result 0"), (1, "result 1")]
    run.close()
    assert ordered.finished() == [(n, f"result {n}") for n in range(2, 6)]


def test_a_chunk_sized_on_cheap_positions_still_streams_costly_ones():
    # After two mates in one the next chunk may hold what 2 ms of them fits (hundreds of
    # positions); the costly ones after them come back run by run, not with the chunk's
    # end: the first of them within a few of their searches, not all twenty. Measured
    # in this process's CPU time (the searches run in its helper thread, and the
    # waiting costs next to nothing), which a busy machine does not stretch.
    texts = [MATE1, MATE1] + [HARD] * 20
    start = time.process_time()
    results = solve_many(texts, nodes_limit=200_000, post_search="None", hash_mb=16)
    got = [next(results) for _ in range(3)]
    first_costly = time.process_time() - start
    rest = list(results)
    everything = time.process_time() - start
    assert [r.status for r in got] == ["mate", "mate", "unknown"] and len(rest) == 19
    assert first_costly < everything / 4, (first_costly, everything)


def test_chunk_fills_a_run_whole_or_a_task_at_a_time():
    chunk = Chunk([("a", None), None, ("b", None), ("c", None), ("d", None)])
    assert chunk.todo() == [0, 2, 3, 4] and chunk.filled == 1
    chunk.fill([(3, "early")])
    chunk.fill_run([2, 3, 4], ["B", "C", "D"])  # 3 is taken: kept, the rest filled one by one
    assert chunk.outcomes[1:] == [None, "B", "early", "D"] and chunk.filled == 4
    chunk.fill_run([0], ["A"])
    assert chunk.todo() == [] and chunk.filled == 5


def test_a_worker_killed_in_the_middle_of_a_chunk_costs_the_problem_it_was_on():
    runner = ProcessRunner(1, SPEC, local=False)  # (the chunk must go to the process)
    try:
        request = SearchRequest(time_limit_ms=20_000)
        texts = [MATE1, MATE1, HARD, MATE1, MATE1]
        chunk = Chunk([(t, request) for t in texts])
        runner.submit(chunk)
        worker = runner._workers[0]
        deadline = time.monotonic() + 30
        while worker.searching.value != 2:  # on HARD, after the two answers before it
            assert time.monotonic() < deadline, "the worker never reached the hard problem"
            time.sleep(0.01)
        if sys.platform == "win32":
            # No SIGKILL: TerminateProcess, which multiprocessing reports as -SIGTERM.
            worker.process.kill()
        else:
            os.kill(worker.process.pid, signal.SIGKILL)
        _wait_for_every_outcome(chunk)
    finally:
        runner.stop()
    lost = chunk.outcomes[2]
    killed_by = "SIGTERM" if sys.platform == "win32" else "SIGKILL"
    assert isinstance(lost, WorkerDied) and f"killed by {killed_by}" in str(lost)
    for i in (0, 1, 3, 4):  # before it (answered, maybe again) and after it (re-run)
        assert isinstance(chunk.outcomes[i], MateResult), chunk.outcomes[i]
        assert chunk.outcomes[i].moves == ["G*5b"]


def _a_worker_searching(conn) -> None:
    """A worker as ProcessRunner starts one: it dies with its parent, and searches."""
    _die_with_parent()
    told = []

    def tell(progress) -> None:
        if not told:  # once the search runs, in native code without the GIL
            told.append(True)
            conn.send(("searching", os.getpid()))

    Solver(16).solve(HARD, time_limit_ms=120_000, on_progress=tell, progress_interval_ms=10)


def _a_parent_of_a_searching_worker(conn) -> None:
    # Alive for as long as its worker searches: the test kills it meanwhile.
    worker = multiprocessing.get_context("spawn").Process(target=_a_worker_searching, args=(conn,))
    worker.start()
    worker.join()


def _pipe_ends(reader, seconds: float) -> bool:
    """Whether every writing end of the pipe closes within ``seconds``: EOF, or on
    Windows BrokenPipeError from poll itself when the writer is already gone."""
    try:
        if reader.poll(seconds):
            reader.recv()  # EOFError at the end; data would be a surprise
        return False
    except (EOFError, BrokenPipeError):
        return True


def test_a_worker_ends_with_its_parent_however_the_parent_ends():
    # A killed `usi-mate solve` (SIGKILL; on Windows TerminateProcess, as a GUI or the
    # task manager ends it) gets no chance to stop its workers: each must end by itself
    # rather than search on for nobody. The worker holds the last writing end of the
    # pipe, so the pipe ends when the worker does.
    ctx = multiprocessing.get_context("spawn")
    reader, writer = ctx.Pipe(duplex=False)
    parent = ctx.Process(target=_a_parent_of_a_searching_worker, args=(writer,))
    parent.start()
    writer.close()
    worker = None
    try:
        assert reader.poll(60)
        what, worker = reader.recv()
        assert what == "searching"
        parent.kill()
        parent.join(60)
        assert _pipe_ends(reader, 60), "the worker outlived its parent"
        worker = None
    finally:
        parent.kill()
        reader.close()
        if worker is not None:  # the test failed: end the worker it left searching
            try:
                os.kill(worker, signal.SIGTERM)  # TerminateProcess on Windows
            except OSError:
                pass


def test_exits_are_described_by_signal_or_windows_exception():
    assert _describe_exit(None) == "still running"
    assert _describe_exit(3) == "exit status 3"
    assert _describe_exit(-signal.SIGTERM) == "killed by SIGTERM"
    # A crashed Windows worker's exit status is the exception's code.
    assert _describe_exit(0xC00000FD) == "crashed: exception 0xC00000FD (stack overflow)"
    assert _describe_exit(0xC0000135) == "crashed: exception 0xC0000135"


class _NoChunks(Executor):
    """A one-thread executor whose tasks of more than one position fail as a whole
    (as a Dask task does when its worker is lost three times)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1)
        self.submitted: list[int] = []

    def submit(self, fn, /, *args, **kwargs):
        items = args[0]
        self.submitted.append(len(items))
        if len(items) > 1:
            return self._pool.submit(_lost)
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True, **kwargs):
        self._pool.shutdown(wait=wait)


def _lost():
    raise RuntimeError("worker lost")


def _mates_in_one_on(executor, pool, size: int, count: int) -> list:
    """``count`` mates in one through an ExecutorRunner on ``executor``, chunks of ``size``
    (``pool`` shut down after): the (key, outcome) pairs, checked to be in input order."""
    runner = ExecutorRunner(executor, SPEC, window=2)
    runner.sizer.size = size
    request = SearchRequest(nodes_limit=10_000)
    try:
        got = list(InOrder(runner).run([(n, (MATE1, request)) for n in range(count)]))
    finally:
        pool.shutdown()
    assert [key for key, _ in got] == list(range(count))
    return got


def test_an_executor_chunk_that_fails_as_a_whole_runs_again_a_position_a_task():
    executor = _NoChunks()
    got = _mates_in_one_on(executor, executor, size=3, count=5)
    assert all(isinstance(o, MateResult) and o.moves == ["G*5b"] for _, o in got)
    # Two chunks (3 and 2 positions), each failed, then each position alone.
    assert sorted(n for n in executor.submitted if n > 1) == [2, 3]
    assert executor.submitted.count(1) == 5


def test_an_executor_runs_chunks_and_measures_them():
    pool = ThreadPoolExecutor(max_workers=1)
    runner = ExecutorRunner(pool, SPEC, window=2)
    request = SearchRequest(nodes_limit=10_000)
    try:
        tasks = [
            (n, (MATE1, request) if n != 4 else ("not a position", request)) for n in range(30)
        ]
        got = list(InOrder(runner).run(tasks))
    finally:
        pool.shutdown()
    assert [key for key, _ in got] == list(range(30))
    assert isinstance(got[4][1], ValueError)  # the task's own error, as raised
    assert all(o.moves == ["G*5b"] for n, o in got if n != 4)
    assert runner.sizer.size > 1  # mate in 1 is cheap: chunks grew


@pytest.mark.parametrize("jobs", [1, 2])
def test_solve_many_keeps_order_across_growing_chunks(jobs):
    from usi_mate import solve_many

    texts = [MATE1 if n % 5 else "4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1" for n in range(400)]
    results = list(solve_many(texts, jobs=jobs, hash_mb=16, nodes_limit=50_000))
    assert [r.status for r in results] == ["mate" if n % 5 else "nomate" for n in range(400)]


def test_worker_processes_take_a_chunk_a_slice_at_a_time():
    # A chunk made when positions looked cheap is handed out in slices of the size
    # measured since, so that the other worker gets its share (generated.sfen: 1.10x
    # jobs=1 when whole chunks went to one worker, 1.98x sliced).
    runner = ProcessRunner(2, SPEC)
    runner.sizer.measured = lambda positions, seconds: None  # type: ignore[method-assign]
    runner.sizer.size = 5
    try:
        chunk = Chunk([(MATE1, SearchRequest(nodes_limit=10_000))] * 40)
        first_order = runner._next_id
        runner.submit(chunk)
        _wait_for_every_outcome(chunk)
    finally:
        runner.stop()
    assert all(o.moves == ["G*5b"] for o in chunk.outcomes)
    assert runner._next_id - first_order >= 8  # 40 positions, 5 at a time


def test_a_worker_answers_as_this_process_does_across_its_runs():
    """A worker searches runs of its chunk in one call into the core; the outcomes are
    one search() each: results, the error of text that is no position, and a change of
    request between runs."""
    quick, strict = SearchRequest(nodes_limit=10_000), SearchRequest(max_length=1)
    items = [(MATE1, quick), ("not a position", quick), (MATE1, quick), (HARD, strict)]
    items += [(MATE1, quick)] * 5
    outcomes = []
    for runner in (ThreadRunner(SPEC), ProcessRunner(1, SPEC)):
        chunk = Chunk(list(items))
        try:
            runner.submit(chunk)
            _wait_for_every_outcome(chunk)
        finally:
            runner.stop()
        outcomes.append(
            [
                (type(o).__name__, str(o)) if isinstance(o, Exception) else (o.status, o.moves)
                for o in chunk.outcomes
            ]
        )
    here, worker = outcomes
    assert worker == here
    assert here[1][0] == "ValueError" and here[3] == ("unknown", [])


def test_an_executor_task_gives_back_what_its_budget_left(monkeypatch):
    import usi_mate.runners as runners

    monkeypatch.setattr(runners, "CHUNK_BUDGET_SECONDS", 0.0)  # one position a task, then back
    pool = ThreadPoolExecutor(max_workers=1)
    submitted: list[int] = []

    class Counting(Executor):
        def submit(self, fn, /, *args, **kwargs):
            submitted.append(len(args[0]))
            return pool.submit(fn, *args, **kwargs)

    got = _mates_in_one_on(Counting(), pool, size=6, count=6)
    assert all(o.moves == ["G*5b"] for _, o in got)
    assert len(submitted) == 6 and submitted[0] == 6  # the rest given back each time


# ---------------------------------------------------------------------------
# One fault costs only its own position


POISON = "9/9/9/9/9/9/9/9/9 b - 1 (a text the call chokes on)"


class _Touchy:
    """A Solver whose batch call raises whenever POISON is among its texts (as one bad
    text once spoiled a whole call), and whose single search fails on POISON alone."""

    def __init__(self) -> None:
        self.real = Solver(16)
        self.calls: list[int] = []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def search_many(self, texts, request):
        self.calls.append(len(texts))
        if POISON in texts:
            self.real.disarm()  # (as a Solver's calls do, whatever their outcome)
            raise RuntimeError("one text spoils the call")
        return self.real.search_many(texts, request)

    def _search_run(self, texts, request, searching, labels):
        return self.search_many(texts, request)

    def search(self, text, request):
        if text == POISON:
            self.real.disarm()
            raise RuntimeError("this one fails alone")
        return self.real.search(text, request)


def test_a_run_that_raises_is_answered_a_position_at_a_time_in_this_process():
    runner = ThreadRunner(SPEC)
    runner._solver = _Touchy()
    runner.sizer.size = 8  # one chunk: runs of 1, 2, 4 and 1; POISON in the run of 4
    request = SearchRequest(nodes_limit=10_000)
    texts = [MATE1] * 3 + [POISON] + [MATE1] * 4
    try:
        got = list(InOrder(runner).run([(n, (t, request)) for n, t in enumerate(texts)]))
    finally:
        runner.close()
    assert runner._solver.calls[:3] == [1, 2, 4]
    outcomes = [outcome for _, outcome in got]
    assert str(outcomes[3]) == "this one fails alone"
    assert [o.moves for k, o in enumerate(outcomes) if k != 3] == [["G*5b"]] * 7


def test_a_run_that_raises_is_answered_a_position_at_a_time_in_a_worker():
    class Replies:
        def __init__(self) -> None:
            self.answers: list = []

        def add(self, order, answer) -> None:
            self.answers.append(answer)

    request = SearchRequest(nodes_limit=10_000)
    items = [(i, t, request) for i, t in enumerate([MATE1] * 3 + [POISON] + [MATE1] * 4)]
    replies = Replies()
    _search_runs_in_worker(_Touchy(), items, ctypes.c_int64(-1), replies, 0)
    assert [i for i, _, _ in replies.answers] == list(range(8))
    (i, result, error), *_ = [a for a in replies.answers if a[2] is not None]
    assert i == 3 and result is None and str(error) == "this one fails alone"
    assert [r.moves for k, r, _ in replies.answers if k != 3] == [["G*5b"]] * 7


class _InputFault(Exception):
    pass


def _then_raise(texts):
    yield from texts
    raise _InputFault("the input broke")


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_input_that_raises_keeps_every_result_taken_before_it(jobs):
    # 234 of 500 results came back with jobs=1, 5 with jobs=2: the chunks in flight
    # when the input raised were dropped.
    got = []
    with pytest.raises(_InputFault, match="the input broke"):
        for result in solve_many(_then_raise([MATE1] * 500), jobs=jobs, hash_mb=16):
            got.append(result)
    assert len(got) == 500 and {r.status for r in got} == {"mate"}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_with_a_bad_byte_further_on_keeps_the_lines_before_it(tmp_path, jobs):
    path = tmp_path / "p.sfen"
    path.write_bytes((MATE1 + "\n").encode() * 300 + b"\xff\xfe bad\n" + (MATE1 + "\n").encode())
    # A text file decodes a block at a time: what it gives before it raises.
    given = []
    with open(path, encoding="utf-8") as f, pytest.raises(UnicodeDecodeError):
        given.extend(f)
    got = []
    with open(path, encoding="utf-8") as f, pytest.raises(UnicodeDecodeError):
        for result in solve_many(f, jobs=jobs, hash_mb=16):
            got.append(result)
    assert 0 < len(got) == len(given) and {r.status for r in got} == {"mate"}
