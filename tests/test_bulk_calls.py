"""Issue 48: the cost of a call. What the cheap paths answer must be what the search
answers: a mate in one at the root settled by the move generator alone, MateResults
built without the dataclass's __init__, and Solver.search_many against one search() a
position."""

from __future__ import annotations

import dataclasses
import threading

import cshogi
import pytest
from hooks import _solve_by_search
from oracle import check_mate_line, load_generated, load_labelled, run_script

from usi_mate import MateResult, Position, SearchRequest, Solver, solve_many
from usi_mate._core import _mate_result_of_values
from usi_mate.types import RefineStats, _python_result_of_values

MATE_IN_1 = [s for s, _, _ in load_labelled("nshogi_mate1.sfen")]
GENERATED = load_generated()
# Mates of 1 and 3 plies and no-mates: the shortcut's answers, and the searches it
# hands on (its nodes forgotten) unchanged.
SHORT = [s for s, e, _, _ in GENERATED if e in ("1", "3", "nomate")]
# No mate in one ply: most of them have no check at all (1,368 of 1,574).
NO_MATE_1 = [s for s, _, _ in load_labelled("nshogi_nomate1ply.sfen")]


def _answer(r: MateResult) -> tuple:
    return (r.status, r.moves, r.nodes, r.min_length or 0, r.shortest_possible or 0)


COUNTS = [("None", False), ("MinLength", False), ("MinLength", True)]


@pytest.mark.parametrize(("post_search", "strict"), COUNTS)
def test_a_root_settled_by_the_move_generator_is_the_searchs_answer(post_search, strict):
    """Solver.solve answers a mate in one, a root without a check, and (where every
    reply counts, or for a first proof) a mate in three before any search; the search
    alone (the test hook) gives the same verdict and length claims, and for the first
    two the same move and node count, on a third of nshogi's mates in one, a twentieth
    of its no-mates and a sample of the generated set's short problems (the searches the
    shortcut hands on unchanged); every one of them in the slow variant."""
    _compare_with_the_search(MATE_IN_1[::3] + NO_MATE_1[::20] + SHORT[::10], post_search, strict)


@pytest.mark.slow
@pytest.mark.parametrize(("post_search", "strict"), COUNTS)
def test_every_root_settled_by_the_move_generator_is_the_searchs_answer(post_search, strict):
    _compare_with_the_search(MATE_IN_1 + NO_MATE_1 + SHORT, post_search, strict)


def test_a_root_without_check_keeps_the_length_limit_and_the_certificate():
    """Without a check there is no mate; but with max_length the answer stays "none
    within the length" (a longer mate is not what was asked), and certify still gets
    its disproof tree: those go to the search."""
    no_check = next(s for s in NO_MATE_1 if not Position(s).check_moves())
    solver = Solver(1)
    assert solver.solve(no_check).status == "nomate"
    limited = solver.solve(no_check, max_length=5)
    assert (limited.status, limited.stop_reason) == ("unknown", "length")
    certified = solver.solve(no_check, certify=True)
    assert certified.status == "nomate" and certified.certification.status == "certified"


def _compare_with_the_search(positions, post_search, strict):
    solver = Solver(1)
    wrong = []
    settled_in_three = 0
    for sfen in positions:
        solver.clear()
        r = solver.solve(
            sfen,
            nodes_limit=200_000,
            post_search=post_search,
            ignore_futile_interpositions=not strict,
        )
        ours = _answer(r)
        searched = _solve_by_search(sfen, 200_000, post_search, hash_mb=1, strict=strict)
        if ours != searched and r.status == "mate" and len(r.moves) == 3:
            # Settled in three plies: a mate of its own (first proofs may differ), never
            # where the search finds one in one, the same shortest length claimed, and
            # the shortest mate's line the one the line reader reads.
            settled_in_three += 1
            why = check_mate_line(sfen, r.moves)
            differs = ours[3:] != searched[3:] or len(searched[1]) == 1
            if post_search == "MinLength" and not why:
                # The search may prove another first check; after ours, its line reader
                # takes the same defence (the fewest spare pieces) and the same mate.
                differs |= _line_after(sfen, r.moves[0]) != r.moves[1:]
            if why or searched[0] != "mate" or differs:
                wrong.append(f"{sfen}: {ours} against {searched}: {why}")
        elif ours != searched:
            wrong.append(f"{sfen}: {ours} != {searched}")
    assert not wrong, f"{len(wrong)} of {len(positions)}:\n" + "\n".join(wrong[:10])
    composers_length_search = post_search == "MinLength" and not strict
    assert (settled_in_three == 0) == composers_length_search, settled_in_three


def _line_after(sfen: str, check: str) -> list[str]:
    """The shortest-mate line (every reply counted) the search reads from the AND node
    after ``check``."""
    board = cshogi.Board(sfen)
    board.push_usi(check)
    r = Solver(1).solve(
        board.sfen(),
        nodes_limit=200_000,
        ignore_futile_interpositions=False,
        root_is_and_node_if_checked=True,
    )
    return r.moves


def test_a_mate_in_one_reports_its_end_as_the_search_does():
    """The USI engine takes its statistics from the last progress report: one comes."""
    reports = []
    result = Solver(1).solve(MATE_IN_1[0], on_progress=reports.append, progress_interval_ms=0)
    assert result.mate_length == 1 and result.min_length == 1
    (last,) = reports
    assert (last.proof_number, last.mate_length, last.nodes) == (0, 1, result.nodes)


def test_a_result_built_from_fields_is_the_dataclasss():
    fields = {
        "status": "mate",
        "moves": ["G*5b"],
        "nodes": 5,
        "time_ms": 1,
        "hashfull": 2,
        "error": None,
        "certification": None,
        "stop_reason": None,
        "line_nodes": 3,
        "min_length": 1,
        "shortest_possible": 1,
        "length_stop": None,
        "refine": RefineStats(positions=4, nodes=9, passes=1),
    }
    assert set(fields) == {f.name for f in dataclasses.fields(MateResult)}
    values = tuple(fields.values())
    as_dict = {**fields, "refine": dataclasses.asdict(fields["refine"])}
    # The core's builder and the plain Python one.
    for built in (_mate_result_of_values(values), _python_result_of_values(values)):
        assert built == MateResult(**fields)
        assert repr(built) == repr(MateResult(**fields))
        assert dataclasses.asdict(built) == as_dict
        with pytest.raises(dataclasses.FrozenInstanceError):
            built.nodes = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        _mate_result_of_values(values[:-1])


def test_the_core_builds_every_field():
    """Each result field the core fills, in the dataclass's order."""
    result = Solver(1).solve(MATE_IN_1[0])
    for f in dataclasses.fields(MateResult):
        getattr(result, f.name)  # AttributeError for a slot the core left unset
    assert not hasattr(result, "__dict__")


MIXED = [
    MATE_IN_1[0],
    SHORT[0],
    next(s for s, e, _, _ in GENERATED if e == "nomate"),
    next(s for s, e, _, _ in GENERATED if e == "7"),
    "startpos moves 7g7f 3c3d",  # position text with moves: read in Python first
    Position(MATE_IN_1[1]),
    "4k4/9/9/9/9/9/9/9/9 b - 1",  # no attacker pieces: no mate
    "k8/9/9/9/9/9/9/9/8K w - 1",  # the side to move attacks; nothing gives check
]


@pytest.mark.parametrize("certify", [False, True])
def test_search_many_answers_as_one_search_a_position(certify):
    """Two solvers, the same positions in the same order: the same results (the
    tables learn the same things), certificates included."""
    request = SearchRequest(nodes_limit=100_000, certify=certify)
    one, many = Solver(4), Solver(4)
    expected = [one.search(p, request) for p in MIXED]
    got = many.search_many(MIXED, request)
    assert [dataclasses.replace(r, time_ms=0) for r in got] == [
        dataclasses.replace(r, time_ms=0) for r in expected
    ]
    if certify:
        assert any(r.certification is not None for r in got)


def test_search_many_answers_text_that_is_no_position_as_invalid():
    request = SearchRequest(nodes_limit=1000)
    results = Solver(1).search_many([MATE_IN_1[0], "not a position", "sfen 9/9 b - 1"], request)
    assert [r.status for r in results] == ["mate", "invalid", "invalid"]
    assert results[1].error and results[2].error
    with pytest.raises(ValueError):
        Solver(1).search("not a position", request)  # one search still raises


# Text an IME or a broken file may give: a full-width digit, a lone surrogate, a NUL.
NOT_ASCII = "\uff14k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
SURROGATE = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1\ud800"
WITH_NUL = "4k4\x00/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"


def test_one_bad_text_is_answered_alone_and_says_what_is_wrong():
    # A full-width digit once made the core quote a byte of it, and decoding that
    # message raised for the whole call: every position of the batch was lost.
    m1, m3 = MATE_IN_1[0], "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1"
    solver, request = Solver(16), SearchRequest()
    batch = [m1, NOT_ASCII, m3, SURROGATE, m1, WITH_NUL, None, m3]
    results = solver.search_many(batch, request)
    assert [r.status for r in results] == [
        "invalid" if t in (NOT_ASCII, SURROGATE, WITH_NUL, None) else "mate" for t in batch
    ]
    errors = [r.error for r in results if r.status == "invalid"]
    assert errors[0] == "position text must be ASCII (SFEN and USI moves); found '\uff14'"
    assert errors[1].startswith("position text must be ASCII") and "\\ud800" in errors[1]
    assert errors[2] == "position text contains a NUL character"
    assert errors[3] == "position must be a Position or position text, not NoneType"
    for text, error in zip((NOT_ASCII, SURROGATE, WITH_NUL), errors):
        with pytest.raises(ValueError) as info:
            solver.search(text, request)  # one search raises, with the same message
        assert str(info.value) == error


@pytest.mark.parametrize("jobs", [1, 2])
def test_bad_texts_in_solve_many_cost_only_themselves(jobs):
    m1, m3 = MATE_IN_1[0], "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1"
    seq = [m1, m3, m1, NOT_ASCII, m3, m1, SURROGATE, m1] * 3
    results = list(solve_many(seq, jobs=jobs, hash_mb=16))
    assert [r.status for r in results] == [
        "invalid" if t in (NOT_ASCII, SURROGATE) else "mate" for t in seq
    ]


def test_search_many_checks_its_request():
    solver = Solver(1)
    with pytest.raises(TypeError, match="SearchRequest"):
        solver.search_many([MATE_IN_1[0]], {"nodes_limit": 5})  # type: ignore[arg-type]
    assert solver.state == "idle"
    assert solver.search_many([], SearchRequest()) == []


def test_search_many_after_stop_searches_no_more():
    """stop() between arm() and the call: nothing is searched, every position answers
    "unknown" stopped; the next call searches again."""
    solver = Solver(1)
    solver.arm()
    solver.stop()
    results = solver.search_many(MATE_IN_1[:5], SearchRequest())
    assert [(r.status, r.stop_reason, r.nodes) for r in results] == [("unknown", "stop", 0)] * 5
    assert solver.search_many(MATE_IN_1[:1], SearchRequest())[0].status == "mate"


def test_stop_from_another_thread_ends_a_batch():
    """A batch of searches that would take minutes, stopped from another thread: the
    call returns at once with a result for every position, the rest "unknown"."""
    hard = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"  # a long first proof
    solver = Solver(16)
    timer = threading.Timer(0.3, solver.stop)
    timer.start()
    try:
        results = solver.search_many([hard] * 50, SearchRequest(post_search="None"))
    finally:
        timer.cancel()
    assert len(results) == 50
    assert results[-1].status == "unknown" and results[-1].stop_reason == "stop"
    assert solver.state == "idle"


def test_solve_many_in_this_process_answers_as_one_search_a_position():
    """solve_many(jobs=1) hands its chunks to Solver.search_many: the same results as a
    search() a position on a table of the same size, text that is no position answered
    "invalid" with the reason, as before."""
    from usi_mate import solve_many

    positions = [*MIXED, "not a position", MATE_IN_1[2]]
    request = SearchRequest(nodes_limit=100_000, post_search="None")
    solver = Solver(4)
    expected = []
    for p in positions:
        try:
            expected.append(solver.search(p, request))
        except ValueError as e:
            expected.append(MateResult("invalid", error=str(e)))
    got = list(solve_many(positions, hash_mb=4, nodes_limit=100_000, post_search="None"))
    assert [dataclasses.replace(r, time_ms=0) for r in got] == [
        dataclasses.replace(r, time_ms=0) for r in expected
    ]


def test_the_call_cost_benchmark_prints_its_table(tmp_path):
    """scripts.call_cost on a few positions of the sets the repository carries, from any
    folder: a row each (the yaneuraou sets named as missing without USI_MATE_PROBLEMS),
    no wrong answer."""
    args = ["--rounds", "1", "--count", "3", "--nodes", "10000", "--hash", "1"]
    run = run_script("scripts.call_cost", *args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "| nshogi mate-1 (3) |" in run.stdout and "| nshogi no mate (1 ply) (3) |" in run.stdout
    assert "yaneuraou500m_mate3.sfen not found (USI_MATE_PROBLEMS)" in run.stdout
    assert "wrong: 0" in run.stdout
    stream = run_script(
        "scripts.call_cost", *args, "--only", "mate-1", "--repeat", "2", cwd=tmp_path
    )
    assert stream.returncode == 0, stream.stderr
    assert "--repeat 2 --only mate-1`" in stream.stdout
    assert "| nshogi mate-1 (6) |" in stream.stdout and "no mate" not in stream.stdout


def test_solve_checks_its_keywords_each_call():
    """solve() keeps the requests its keywords made lately: what SearchRequest refuses
    is refused every time, a float for an integer after the integer's request included."""
    solver = Solver(1)
    assert solver.solve(MATE_IN_1[0], nodes_limit=1000).status == "mate"
    for bad, error in [
        ({"nodes_limit": 1000.0}, TypeError),
        ({"nodes_limit": True}, TypeError),
        ({"nodes_limit": [1000]}, TypeError),
        ({"post_search": "Bogus"}, ValueError),
    ]:
        with pytest.raises(error):
            solver.solve(MATE_IN_1[0], **bad)
        assert solver.state == "idle"


def test_a_result_pickles_as_its_field_values():
    """Workers send results as their field values (MateResult.__reduce__): what comes
    back is equal, has every field in order, and copies and replaces as a dataclass."""
    import copy
    import pickle

    from usi_mate import solve

    certified = solve("6R+P1/8k/7sp/9/9/9/9/9/9 b r2b4g3s4n4l16p 1", certify=True)
    assert certified.certification is not None
    results = [Solver(1).solve(MATE_IN_1[0]), certified, MateResult("invalid", error="why")]
    for result in results:
        back = pickle.loads(pickle.dumps(result))
        assert back == result and repr(back) == repr(result)
        assert dataclasses.astuple(back) == dataclasses.astuple(result)
        assert copy.deepcopy(result) == result
        assert dataclasses.replace(back, nodes=7).nodes == 7


def test_each_request_gets_its_own_limits():
    """A Solver keeps the core's limits of the last request it was sent: another
    request, even one equal to an earlier one, is read again."""
    solver = Solver(1)
    deep = next(s for s, e, _, _ in GENERATED if e == "5")
    short, again = SearchRequest(max_length=3), SearchRequest(max_length=3)
    for request, status in [(short, "unknown"), (SearchRequest(), "mate"), (again, "unknown")]:
        assert solver.search(deep, request).status == status
        assert solver.search_many([deep], request)[0].status == status
