"""The df-pn mate search: verdicts on the shared collections, every line replayed
with cshogi, the special rules, proof hands and superiority, table size and stop.

Searches are capped by nodes (never by time) so results do not depend on the
machine's speed.
"""

from __future__ import annotations

import threading

import pytest
from oracle import check_mate_line, load_labelled, verdict_agrees

from usi_mate import MateResult, Position, Solver, solve

NODES = 3_000_000  # cap a problem: every sampled problem solves far below this


@pytest.fixture(scope="module")
def solver():
    return Solver(hash_mb=64)


def assert_solved(solver, sfen, expected, ident, *, nodes=NODES, **options):
    # Labels count every legal reply (strict); see test_answers.py for the
    # composers' count that leaves futile interpositions out.
    options.setdefault("ignore_futile_interpositions", False)
    result = solver.solve(sfen, nodes_limit=nodes, **options)
    assert result.error is None, f"{ident}: {result.error}"
    assert verdict_agrees(expected, result.status, result.mate_length), (
        f"{ident}: expected {expected}, got {result.status} {result.moves}"
    )
    if result.status == "mate":
        reason = check_mate_line(sfen, result.moves)
        assert reason is None, f"{ident}: {reason}"
    return result


@pytest.mark.parametrize(
    "sfen,expected,ident",
    load_labelled("special_rules.sfen") + load_labelled("komori_mate_engine_test.sfen"),
    ids=lambda v: v if isinstance(v, str) and "/" not in v and not v[0].isdigit() else None,
)
def test_special_rules_and_komori_verdicts(solver, sfen, expected, ident):
    assert_solved(solver, sfen, expected, ident)


# Every 40th problem of each yaneuraou set: 25 a set, 125 in all.
YANEURAOU = [
    item
    for n in (3, 5, 7, 9, 11)
    for item in load_labelled(f"yaneuraou500m_mate{n}.sfen")[::40]
]


@pytest.mark.parametrize("sfen,expected,ident", YANEURAOU, ids=[i for _, _, i in YANEURAOU])
def test_yaneuraou_sample_solves_with_the_stated_length(solver, sfen, expected, ident):
    # Proving that no shorter mate exists takes more nodes than the mate itself.
    result = assert_solved(solver, sfen, expected, ident, nodes=30_000_000)
    assert result.mate_length == int(expected) and result.min_length_proven


@pytest.mark.parametrize(
    "sfen,expected,ident",
    load_labelled("mogami_tests.sfen")[:16] + load_labelled("tendo.sfen")[::4],
    ids=lambda v: v if isinstance(v, str) and "/" not in v and not v[0].isdigit() else None,
)
def test_mogami_and_tendo_sample(solver, sfen, expected, ident):
    assert_solved(solver, sfen, expected, ident)


def test_pawn_drop_mate_is_refused():
    # P*9b would be the only mate, and it is a pawn-drop mate.
    sfen = "kn7/1s7/9/1N7/9/9/9/9/9 b P2r2b4g3s2n4l17p 1"
    assert "P*9b" not in Position(sfen).legal_moves()
    assert solve(sfen).status == "nomate"


def test_mate_that_needs_a_non_promotion():
    # 4a2c (the bishop declines to promote) mates; 4a2c+ leads to a position where
    # the final pawn drop would be a pawn-drop mate, so it does not.
    sfen = "5B1n1/8k/6Rpp/9/9/9/9/9/9 b rb4g4s3n4l16p 1"
    result = solve(sfen)
    assert result.status == "mate" and result.moves[0] == "4a2c"
    assert check_mate_line(sfen, result.moves) is None
    promoted = Position(sfen)
    promoted.push_usi("4a2c+")
    assert solve(promoted, root_is_and_node_if_checked=True).status == "nomate"


def test_perpetual_check_is_no_mate():
    result = solve("6R+P1/8k/7sp/9/9/9/9/9/9 b r2b4g3s4n4l16p 1")
    assert result.status == "nomate"


def test_position_without_checks_is_no_mate():
    assert solve("startpos").status == "nomate"


def test_drop_mate_proof_hand_keeps_the_dropped_piece():
    # G*5b mates: the proof hand must hold the gold (a "before" that removed the
    # dropped piece, as the seed text has it, would give an empty, unsound hand).
    s = Solver(hash_mb=4)
    sfen = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
    assert s.solve(sfen).moves == ["G*5b"]
    status, hand, mate_len = s.probe(sfen)
    assert status == "proven" and mate_len == 1
    assert hand == {"P": 0, "L": 0, "N": 0, "S": 0, "B": 0, "R": 0, "G": 1}


def test_far_check_proof_hand_keeps_every_monopolised_piece():
    # Seed 000's A_n: against a distant check the defender, who holds nothing,
    # cannot interpose. With one piece fewer in the attacker's hand the defender
    # would hold it and could, so the proof hand is the attacker's whole hand.
    s = Solver(hash_mb=4)
    sfen = "8k/9/9/9/9/9/9/9/7R1 b R2B4G4S4N4L18P 1"
    assert s.solve(sfen).mate_length == 1
    status, hand, _ = s.probe(sfen)
    assert status == "proven"
    assert hand == {"P": 18, "L": 4, "N": 4, "S": 4, "B": 2, "R": 1, "G": 4}


def _with_attacker_hand(sfen: str, hand: dict[str, int]) -> str:
    """The same board with the attacker (side to move) holding `hand` and the
    defender holding the rest of the full set."""
    from oracle import FULL_SET, parse_board

    board_field, side = sfen.split()[:2]
    on_board = {k: 0 for k in FULL_SET}
    for piece in parse_board(board_field).values():
        letter = piece[-1].upper()
        if letter != "K":
            on_board[letter] += 1
    attacker = "".join(f"{n}{k}" if n > 1 else k for k, n in hand.items() if n)
    rest = {k: FULL_SET[k] - on_board[k] - hand.get(k, 0) for k in FULL_SET}
    defender = "".join(f"{n}{k.lower()}" if n > 1 else k.lower() for k, n in rest.items() if n > 0)
    if side == "w":
        attacker, defender = attacker.lower(), defender.upper()
    return f"{board_field} {side} {(attacker + defender) or '-'} 1"


@pytest.mark.parametrize("sfen,expected,ident", load_labelled("yaneuraou500m_mate5.sfen")[:400:20])
def test_proof_hand_is_sound(sfen, expected, ident):
    # A proof hand claims the mate holds with only those pieces in hand: check it
    # by solving that position afresh.
    from oracle import FULL_SET, parse_board

    s = Solver(hash_mb=16)
    assert s.solve(sfen, nodes_limit=NODES).status == "mate"
    status, hand, _ = s.probe(sfen)
    assert status == "proven"
    pieces = parse_board(sfen.split()[0]).values()
    if sum(1 for p in pieces if p[-1] in "kK") != 2:
        pytest.skip("not a two-king position")
    reduced = _with_attacker_hand(sfen, hand)
    if any(FULL_SET[k] < 0 for k in FULL_SET):
        pytest.skip("material outside the full set")
    result = Solver(hash_mb=16).solve(reduced, nodes_limit=NODES)
    assert result.status == "mate", f"{ident}: proof hand {hand} does not mate in {reduced}"


def test_tiny_hash_gives_correct_answers():
    s = Solver(hash_mb=1)
    for sfen, expected, ident in load_labelled("yaneuraou500m_mate11.sfen")[:10]:
        assert_solved(s, sfen, expected, ident, nodes=20_000_000)


def test_result_fields():
    result = solve("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1")
    assert isinstance(result, MateResult)
    assert result.status == "mate" and result.moves == ["G*5b"] and result.mate_length == 1
    assert result.nodes > 0 and isinstance(result.seconds, float) and 0 <= result.hashfull <= 1000
    assert solve("startpos").mate_length is None


def test_bad_input_raises_and_an_unsearchable_position_is_invalid():
    # README's contract (issue 9): malformed text raises ValueError with the reason.
    with pytest.raises(ValueError, match="piece letter"):
        solve("not a position")
    with pytest.raises(ValueError, match="SFEN needs"):
        solve("garbage")
    with pytest.raises(ValueError):
        solve("startpos", time_limit_ms=-1)
    with pytest.raises(ValueError):
        Solver(hash_mb=0)
    # The defender already in check: the attacker could take the king.
    r = solve("4k4/4R4/9/9/9/9/9/9/4K4 b - 1")
    assert r.status == "invalid" and "check" in r.error


HARD = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"  # a 59-ply problem


def test_stop_from_another_thread_ends_the_search():
    # The node limit is only a safety net so that an ignored stop fails the test
    # instead of hanging it; the stop latency is measured by scripts/usi_latency.py.
    limit = 500_000_000
    s = Solver(hash_mb=16)
    t = threading.Timer(0.3, s.stop)
    t.start()
    result = s.solve(HARD, nodes_limit=limit)
    t.join()
    assert result.status == "unknown"
    assert result.nodes < limit


def test_stop_before_start_after_arm_is_not_lost():
    s = Solver(hash_mb=4)
    s.arm()
    s.stop()
    assert s.solve(HARD).status == "unknown"
    # A stop while idle is ignored: the next search runs normally.
    s.stop()
    assert s.solve("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").status == "mate"


def test_progress_callback_and_node_limit():
    seen = []
    result = Solver(hash_mb=16).solve(HARD, nodes_limit=300_000, on_progress=seen.append,
                                      progress_interval_ms=1)
    assert result.status == "unknown"
    assert result.nodes >= 300_000
    assert seen and seen[-1].nodes > 0


def test_callback_error_is_raised_after_the_search():
    def boom(progress):
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        Solver(hash_mb=4).solve(HARD, nodes_limit=2_000_000, on_progress=boom, progress_interval_ms=1)


def test_solver_reuse_and_clear():
    s = Solver(hash_mb=8)
    sfen, expected, ident = load_labelled("yaneuraou500m_mate7.sfen")[0]
    first = assert_solved(s, sfen, expected, ident)
    again = assert_solved(s, sfen, expected, ident)
    assert again.nodes <= first.nodes  # the table remembers
    s.clear()
    assert s.probe(sfen)[0] == "unknown"


def test_root_is_and_node_if_checked():
    # White to move is in check; read as the defender, black mates.
    p = Position("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1")
    p.push_usi("G*5b")
    result = solve(p, root_is_and_node_if_checked=True)
    assert result.status == "mate" and result.moves == []
    assert check_mate_line(p.sfen(), result.moves, and_root=True) is None
