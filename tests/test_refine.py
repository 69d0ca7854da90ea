"""The refinement walk over the proven tree (csrc/refine.h): on lines over 128 plies,
the first step of the shortest-mate search. Node-limited, so results do not depend on
the machine's speed; ``MateResult.refine`` holds the solve's walk (positions, nodes,
passes, and the nodes of its tiny searches, re-proofs, futility judgements and
searches beside the line; None when no walk ran)."""

from __future__ import annotations

from oracle import check_mate_line, load_labelled

from usi_mate import Solver

MUSO = {i: s for s, _, i in load_labelled("muso.sfen")}
ZUKOU = {i: s for s, _, i in load_labelled("zukou.sfen")}


def test_the_walk_refines_a_long_line_and_every_line_it_reports_mates():
    # 将棋無双 75 (225 plies): the first line is long enough for the walk. Each line
    # reported (the walk's, when shorter than the first read's) replays to mate, and the
    # answer is no longer than the first proof's line.
    sfen = MUSO["muso-075"]
    first = Solver(hash_mb=64).solve(sfen, post_search="None", nodes_limit=20_000_000)
    solver = Solver(hash_mb=64)
    lines = []
    result = solver.solve(
        sfen, nodes_limit=20_000_000, on_progress=lambda p: p.moves and lines.append(p.moves)
    )
    walk = result.refine
    assert walk is not None and walk.passes >= 1 and walk.positions > 0 and walk.nodes > 0
    assert result.status == "mate" and result.mate_length <= first.mate_length
    assert all(len(line) <= first.mate_length for line in lines)
    for line in lines + [tuple(result.moves)]:
        assert check_mate_line(sfen, list(line)) is None, len(line)


def test_no_walk_on_short_lines():
    # Up to 128 plies the root's bounded searches find what the walk would (docs/DFPN.md).
    solver = Solver(hash_mb=64)
    result = solver.solve(ZUKOU["zukou-002"])
    assert result.mate_length == 21
    assert result.refine is None


def test_no_walk_without_min_length():
    solver = Solver(hash_mb=64)
    result = solver.solve(MUSO["muso-075"], post_search="UpperBound", nodes_limit=20_000_000)
    assert result.refine is None
