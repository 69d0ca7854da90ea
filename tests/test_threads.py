"""Several search threads on one problem (Threads, docs/THREADS.md).

The helpers share the table and search the same root in other orders; the
answer is the first thread's. So: verdicts never depend on the thread count,
every mate line replays, every "no mate" is certified, proven shortest lengths
agree, and stop() is as prompt as with one thread.
"""

from __future__ import annotations

import multiprocessing
import os
import threading

import pytest
from oracle import check_mate_line
from test_certify import looping_position, sample, tsume_position

from usi_mate import Solver, solve

# Composed problems with proven shortest lengths (zukou-014, -018, -002; YaneuraOu #162).
KNOWN = [
    ("9/9/3B3G1/6+p1n/7+p1/7k1/5BL1p/7G1/7+R+r b N2P2g4s2n3l13p 1", 21),
    ("9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1", 3),
    ("5pk2/7P1/4+R1+P1+b/8b/6R2/9/9/9/9 b 4g4s4n4l15p 1", 3),
]
# A long first proof: seconds with one thread, long enough to stop in the middle.
HARD = "1pG1B4/Gs+P6/pP7/n1ls5/3k5/nL4+r1b/1+p1p+R4/1S7/2N6 b SP2gn2l11p 1"


@pytest.mark.parametrize("sfen,length", KNOWN)
@pytest.mark.parametrize("threads", [2, 3])
def test_proven_shortest_length_does_not_depend_on_threads(sfen, length, threads):
    result = solve(sfen, nodes_limit=20_000_000, hash_mb=64, threads=threads)
    assert result.status == "mate" and result.min_length_proven
    assert result.mate_length == length
    assert check_mate_line(sfen, result.moves) is None


@pytest.mark.parametrize("make,seed", [(tsume_position, 31), (looping_position, 32)])
def test_verdicts_do_not_depend_on_threads(make, seed):
    """Every verdict with 2 threads is the one thread's (where both settle), mate lines
    replay and every "no mate" is certified."""
    one, two = Solver(32), Solver(32, threads=2)
    settled = 0
    for sfen in sample(make, seed, 120):
        a = one.solve(sfen, nodes_limit=30_000, post_search="None")
        b = two.solve(sfen, nodes_limit=30_000, post_search="None", certify=True)
        if b.status == "mate":
            assert check_mate_line(sfen, b.moves, allow_futile_end=False) is None, sfen
        if b.status == "nomate":
            assert b.certification.status == "certified", (sfen, b.certification)
        if "unknown" not in (a.status, b.status):
            assert a.status == b.status, sfen
            settled += 1
    assert settled >= 60


def test_stop_ends_a_search_with_threads():
    # The stop comes once the search reports progress (an event, not a sleep), and the
    # search has no end of its own: it returns only because the stop ended every thread.
    # (How soon is a benchmark's question: scripts.bench_usi --latency.)
    solver = Solver(64, threads=3)
    out = {}
    searching = threading.Event()
    worker = threading.Thread(
        target=lambda: out.setdefault(
            "r", solver.solve(HARD, on_progress=lambda p: searching.set(), progress_interval_ms=1)
        )
    )
    worker.start()
    assert searching.wait(60)
    solver.stop()
    worker.join(60)
    assert not worker.is_alive()
    assert out["r"].status == "unknown" and out["r"].stop_reason == "stop", out["r"]


def test_thread_count_is_checked_and_kept():
    solver = Solver(8, threads=2)
    assert solver.threads == 2
    solver.set_threads(1)
    assert solver.threads == 1
    for bad in (0, -1, 257):
        with pytest.raises(ValueError):
            Solver(8, threads=bad)
        with pytest.raises(ValueError):
            solver.set_threads(bad)
    with pytest.raises(TypeError):
        solver.set_threads("2")
    assert solver.threads == 1


def test_the_first_thread_gives_way_when_a_helper_has_resolved_the_root():
    """Solver.prove_root ends a phase when a helper resolves the root: the first thread's
    search returns at once (it then reads the helper's result from the table), but a
    sub-search inside the phase (a futility judgement) is never cut by it."""
    from hooks import _yielding_first_proof

    sfen = KNOWN[0][0]
    (nodes, resolved), (nested_nodes, proven) = _yielding_first_proof(sfen)
    assert not resolved and nodes < 200  # the root's checks looked up, nothing more
    assert proven and nested_nodes > 10 * nodes


def _solve_in_child(solver, sfen, out):
    r = solver.solve(sfen, nodes_limit=2_000_000)
    out.put((r.status, r.mate_length))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")
def test_a_solver_with_parked_helpers_searches_in_a_forked_child():
    """The helper threads are parked between searches, and a child of fork() has none of
    them: the child's Solver starts its own instead of handing work to a thread that
    exists only in the parent (which would wait for ever)."""
    sfen, length = KNOWN[0]
    solver = Solver(32, threads=2)
    first = solver.solve(sfen, nodes_limit=2_000_000)  # the helpers now exist, parked
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_solve_in_child, args=(solver, sfen, out))
    child.start()
    try:
        assert out.get(timeout=120) == (first.status, length)
    finally:
        child.join(timeout=60)
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    assert (
        solver.solve(sfen, nodes_limit=2_000_000).mate_length == length
    )  # the parent's still serve
