"""The composer's check (usi_mate.check, in usi_mate/checker.py): cooks, variations, verdicts.

The constructed problems were found by a small random search over sparse
positions and each finding below was then worked out by hand from the diagram
(the comments say why). Every search is capped by nodes, so the results do not
depend on the machine's speed; mating lines are replayed with cshogi.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from oracle import check_mate_line, load_labelled

import usi_mate
from usi_mate import Position, Solver
from usi_mate.check_report import Alternative, _length_text, format_kif, format_text
from usi_mate.checker import _verdict, check
from usi_mate.kif import parse_kif
from usi_mate.usi import UsiEngine

NODES = 2_000_000  # per check; every constructed problem needs under 600,000

# ▲１一飛打 △２三玉 ▲３三角成: the rook drives the king out of the corner (2a is
# the rook's, 2b and 1c the bishop's) and the bishop mates on 3c, the lance and
# the knight holding 3d and 3e. None of the other 25 checks mates.
SOUND = "9/8k/9/5B3/9/5NL2/9/9/9 b Rrb4g4s3n3l18p 1"
# ▲２四桂打 △２二玉 ▲１二金打 △３一玉 ▲３二角成 (the solver's line; ▲３二角成 △１一玉
# ▲２一桂成 at move 3 until drop checks went first among equals): at move 3 the king
# on 2b can be mated in as many moves in six other ways, e.g. ▲２一桂成 △１三玉 ▲２三金打.
COOK_AT_3 = "9/8k/6n1N/8B/9/8L/9/9/9 b 2NG2rb3g4s3l18p 1"
# ▲２三角成 △１一玉 ▲２一角成 △同玉 ▲３二金 △１一玉 ▲２二馬: the gold could
# also mate at the end (▲２二金): a last-move alternative, tolerated.
LAST_MOVE = "9/5G1kB/6p2/8B/9/9/9/9/9 b 2r3g4s4n4l17p 1"
# ▲２三銀打 △１一玉 ▲１二銀打: △２一玉 and △３一玉 are mated just as fast
# (▲２二銀打, ▲３二銀打): two variations as long as the main line (変同).
SAME_LENGTH = "9/7k1/5g3/7+Bp/8L/8+B/9/9/9 b 2S2r3g2s4n3l17p 1"
# ▲２三金打 △１一玉 ▲２二金: the knight in hand is never needed (駒余り).
SPARE = "9/8k/9/7L1/9/6S2/9/9/9 b GN2r2b3g3s3n3l18p 1"
# ▲２三角成 opens the rook's file: every drop on 1b or 1c is taken by the rook with
# mate (無駄合); △２一玉 ▲１一飛成 is the answer.
FUTILE = "8k/8B/9/8R/8L/9/9/9/9 b rb4g4s4n3l18p 1"
# ▲１三飛成 △同玉 ...: the rook is taken at once, so ▲１三飛不成 leads to the very
# same position: not a cook, the same solution (a detour of zero extra plies).
DETOUR = "9/8k/8g/9/8R/7R1/9/9/9 b N2b3g4s3n4l18p 1"
# No mate: after ▲１三金 the king takes the gold (△同玉) and is free; a composer
# who gives ▲１三金 △１一玉 ▲２二金 as the solution has missed that defence.
ESCAPE = "9/8k/7Pl/8G/9/8B/9/9/9 b BL2r3g4s4n2l17p 1"
# 将棋図巧 第66番 (zukou-066, problems/zukou.sfen). Published as 51 plies; a shorter mate
# (17 plies counting futile interpositions, as KomoringHeights does) cooks it at move 3.
ZUKOU_066 = next(sfen for sfen, _, ident in load_labelled("zukou.sfen") if ident == "zukou-066")

REPO = Path(__file__).resolve().parents[1]
PACKAGE_ROOT = str(Path(usi_mate.__file__).resolve().parent.parent)
ENV = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(16)


def run(sfen: str, solver: Solver, **kw):
    # A fresh table: among equally short mates, which one is the main line
    # depends on what the table already holds.
    solver.clear()
    report = check(sfen, solver=solver, nodes_limit=kw.pop("nodes_limit", NODES), **kw)
    assert report.complete
    return report


def before(report, number: int) -> str:
    """The position text before main-line move ``number``."""
    moves = report.main_line[: number - 1]
    return f"sfen {report.sfen}" + (f" moves {' '.join(moves)}" if moves else "")


def assert_replays(report) -> None:
    """The main line and every alternative's line replay to mate (cshogi)."""
    assert check_mate_line(report.sfen, list(report.main_line)) is None
    for a in report.alternatives:
        if a.line and a.kind not in ("futile", "no_mate"):
            start = Position(before(report, a.move_number))
            reason = check_mate_line(start.sfen(), list(a.line), and_root=a.side == "defence")
            assert reason is None, (a, reason)


# ---------------------------------------------------------------------------
# Verdicts on constructed problems


def test_a_sound_problem(solver):
    report = run(SOUND, solver)
    assert report.verdict == "sound" and report.verdict_text == "sound"
    assert report.main_line == ("R*1a", "1b2c", "4d3c+") and report.main_exact
    assert report.counts() == {"no_mate": 25}
    assert report.spare == {} and report.remarks() == []
    assert_replays(report)


def test_a_cook_at_move_3(solver):
    report = run(COOK_AT_3, solver)
    assert (report.verdict, report.verdict_move) == ("cooked", 3)
    assert report.verdict_text == "cooked at move 3"
    cooks = report.cooks
    assert {a.move_number for a in cooks} == {3}
    assert {a.move for a in cooks} >= {"1c2a+", "G*2c"}
    # The first move is forced: nothing else checks and mates at move 1.
    assert not [a for a in report.alternatives if a.move_number == 1 and a.kind != "no_mate"]
    cook = next(a for a in cooks if a.move == "1c2a+")
    assert cook.length == 3 and cook.length_exact and cook.total_length == 5
    assert_replays(report)


def test_a_last_move_alternative_is_tolerated(solver):
    report = run(LAST_MOVE, solver)
    assert report.verdict == "sound"
    last = report.of_kind("last_move")
    assert {a.move for a in last} >= {"3b2b"} and {a.move_number for a in last} == {7}
    assert next(a for a in last if a.move == "3b2b").length == 1
    assert report.cooks == []
    assert "2 last-move alternatives" in report.remarks()
    assert_replays(report)


# A one-move problem with two mates (constructed for this test): the king on 1a, a white
# knight on 2a, a black gold on 2c and a gold in hand. ▲１二金打 and ▲２二金打 both
# mate, each gold guarded by the one on 2c; antma/tsumeshogi-check's
# tsume1 not_unique_mate is the same case.
ONE_MOVE_TWO_MATES = "7nk/9/7G1/9/9/9/9/9/9 b G2r2b2g4s3n4l18p 1"
ONE_MOVE_ONE_MATE = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"  # only ▲５二金打


def test_in_a_one_move_problem_another_mate_is_a_cook(solver):
    # The last move of a one-move problem is its whole solution: it was "sound", with
    # the other mate listed as a tolerated last-move alternative.
    for line in (None, ["G*1b"], ["G*2b"]):
        report = run(ONE_MOVE_TWO_MATES, solver, line=line)
        assert len(report.main_line) == 1
        assert (report.verdict, report.verdict_move) == ("cooked", 1), report.verdict_text
        assert report.of_kind("last_move") == []
        assert {report.main_line[0], *(a.move for a in report.cooks)} == {"G*1b", "G*2b"}
        assert all(a.length == 1 and a.move_number == 1 for a in report.cooks)
    assert run(ONE_MOVE_ONE_MATE, solver).verdict == "sound"  # one mate: nothing to tolerate


def test_variations_as_long_as_the_main_line(solver):
    report = run(SAME_LENGTH, solver)
    assert report.verdict == "sound"
    same = report.of_kind("same_length")
    assert sorted(a.move for a in same) == ["2b2a", "2b3a"]
    assert all(a.move_number == 2 and a.length == 2 and a.length_exact for a in same)
    assert "変同 at move 2" in report.remarks()
    assert_replays(report)


def test_spare_pieces_at_the_end(solver):
    report = run(SPARE, solver)
    assert report.verdict == "sound"
    assert report.main_line == ("G*2c", "1b1a", "2c2b")
    assert report.spare == {"N": 1}
    assert report.remarks()[0] == "spare pieces at the end of the main line (駒余り): 桂"
    # The variation △２一玉 ▲２二金 leaves the knight in hand too.
    (variation,) = report.of_kind("same_length")
    assert variation.spare == {"N": 1}


def test_futile_interpositions_are_left_out(solver):
    report = run(FUTILE, solver)
    assert report.verdict == "sound" and len(report.main_line) == 3
    futile = report.of_kind("futile")
    assert len(futile) == 14  # seven piece types on 1b and on 1c
    assert all(a.move_number == 2 and a.move[1] == "*" for a in futile)
    assert all(a.line[1] in ("1d1b+", "1d1c+") for a in futile)
    strict = run(FUTILE, solver, ignore_futile_interpositions=False)
    assert strict.of_kind("futile") == [] and len(strict.main_line) > 3


def test_a_detour_that_reaches_the_main_line_is_no_cook(solver):
    report = run(DETOUR, solver)
    assert report.verdict == "sound"
    (detour,) = report.of_kind("detour")
    assert (detour.move_number, detour.move) == (1, "1e1c")
    assert "before move 3 in as many plies" in detour.note


def test_a_given_line_whose_defence_is_not_the_longest(solver):
    # The composer's line answers ▲２四桂打 with △１一玉, mated at once; △２二玉
    # holds out two plies longer (the solver's main line).
    report = run(COOK_AT_3, solver, line="N*2d 1b1a G*1b")
    assert report.main_source == "given" and report.main_line == ("N*2d", "1b1a", "G*1b")
    assert (report.verdict, report.verdict_move) == ("unsound_defence", 2)
    (longer,) = report.of_kind("longer")
    assert longer.move == "1b2b" and longer.length == 4 and longer.total_length == 5
    assert report.result.mate_length == 5  # what the solver's own search found
    assert_replays(report)


def test_defences_only_without_the_main_search(solver):
    # scripts.audit_lines: only the defender's replies are asked, and the
    # problem itself is not searched, so the cooks at move 3 go unreported.
    report = run(COOK_AT_3, solver, line="N*2d 1b1a G*1b", attacks=False, main_search=False)
    assert (report.verdict, report.verdict_move) == ("unsound_defence", 2)
    assert report.result is None
    assert {a.side for a in report.alternatives} == {"defence"}
    assert [a.move for a in report.of_kind("longer")] == ["1b2b"]
    main = run(COOK_AT_3, solver).main_line  # the solver's: its defence is the longest
    sound = run(COOK_AT_3, solver, line=main, attacks=False, main_search=False)
    assert sound.verdict == "sound" and sound.cooks == [] and sound.main_line == main


def test_a_longer_reply_that_its_own_search_mates_as_soon_is_disputed():
    # zukou-059 after our 31-ply line's first 15 plies, the rest of it as the line.
    # At move 1 the search bounded by the line finds no mate within 15 plies after
    # △７六桂打, the reply's own search one: the composers' count depends on
    # the order of the futility judgements (FUTILE.md), so neither a flaw nor sound.
    start = "9/9/p8/B8/5l1n1/5p1R1/2+p1S1+bG1/3N1SP1+p/5k3 w Gr2g2s2n3l13p 16"
    line = "N*6g G*5i 4i3h 2g3g 2e3g 9d8c+ P*7d 8c7d P*6e 4h3i 3h3i B*4h 3i3h P*3i 3h4g 5g5f"
    report = check(
        start,
        line=line,
        root_is_and_node_if_checked=True,
        attacks=False,
        main_search=False,
        nodes_limit=2_000_000,
        solver=Solver(64),
    )
    disputed = {a.move: a for a in report.of_kind("disputed")}
    assert "N*7f" in disputed and disputed["N*7f"].move_number == 1
    # (How long its own search's mate is depends on the search's move order: 5 plies
    # once, 15 since equal checks are ordered by their disproof numbers.)
    assert re.fullmatch(
        r"no mate within 15 plies after it by a search bounded so, a \d+-ply mate by its own",
        disputed["N*7f"].note,
    ), disputed["N*7f"].note
    assert (
        check_mate_line(
            Position(f"sfen {start}").sfen(), list(disputed["N*7f"].line), and_root=True
        )
        is None
    )
    assert report.verdict != "sound" and report.verdict_move != 1


def test_a_given_line_that_does_not_end_in_mate(solver):
    report = run(COOK_AT_3, solver, line="N*2d 1b2b 1d3b+")
    assert (report.verdict, report.verdict_move) == ("unsound_defence", 4)
    (longer,) = report.of_kind("longer")
    assert longer.move_number == 4 and longer.note == "the main line does not end in mate"


def test_a_given_line_with_a_defence_that_escapes(solver):
    report = run(ESCAPE, solver, line=["1d1c", "1b1a", "1c2b"])
    assert (report.verdict, report.verdict_move) == ("unsound_defence", 2)
    (escape,) = report.of_kind("escape")
    assert escape.move == "1b1c" and escape.line == ()
    assert run(ESCAPE, solver).verdict == "nomate"


@pytest.mark.parametrize(
    "line, message",
    [
        ("N*2d 1b2b 2b3b", "move 3 .*not legal"),
        ("N*2d 1b2b G*1a", "move 3 .*does not give check"),
        ("N*2d 1b2b", "must end with the attacker's mating move"),
        ("", "must end with the attacker's mating move"),
    ],
)
def test_a_given_line_is_checked_first(solver, line, message):
    with pytest.raises(ValueError, match=message):
        check(COOK_AT_3, line=line, solver=solver)
    assert solver.state == "idle"


def test_positions_without_a_verdict_about_cooks(solver):
    assert run("4k4/9/9/9/9/9/9/9/9 b - 1", solver).verdict == "nomate"
    invalid = run("9/7k1/9/6N1p/9/9/9/9/9 b G2r2b3g4s3n4l17p 1", solver)  # white in check
    assert invalid.verdict == "invalid" and "in check" in invalid.reason
    with pytest.raises(ValueError):
        check("not a position", solver=solver)


# ---------------------------------------------------------------------------
# Limits: undecided, never sound


def test_what_the_limits_leave_open_is_undecided(solver):
    solver.clear()
    report = check(COOK_AT_3, solver=solver, nodes_limit=3_000)
    assert report.verdict == "undecided" and report.verdict_move is None
    assert report.counts().get("undecided", 0) > 0 or not report.main_exact
    assert report.verdict != "sound"


def test_the_main_line_not_proven_shortest_gives_no_verdict_beyond_the_first_move(solver):
    # A line that is only an upper bound of the mate length says little about
    # later moves: the verdict stays undecided unless the first move is cooked.
    solver.clear()
    report = check(ZUKOU_066, solver=solver, nodes_limit=400_000)
    assert not report.main_exact
    assert report.verdict == "undecided"


def test_a_detour_whose_line_is_not_proven_stays_open():
    # A line that is not proven is only what the table gave: its defence may
    # not be the longest, and the defender may avoid the main-line position it
    # passes through. So it keeps the verdict from "sound", and its length is
    # not given as a bound (zukou-033's ▲８五飛成 at move 5 once read "at most
    # 11" off a shared table, where a fresh search proves 18).
    detour = Alternative(1, "attack", "1e1c", "detour", 5, False, ("1e1c",) * 5)
    assert _verdict((detour,), True, 2) == (
        "undecided",
        None,
        "1 question open, the first at move 1",
    )
    proven = Alternative(1, "attack", "1e1c", "detour", 5, True, ("1e1c",) * 5)
    assert _verdict((proven,), True, 2) == ("sound", None, None)
    cook = Alternative(3, "attack", "2d1b+", "cook", 11, False, ("2d1b+",) * 11)
    assert _length_text(cook) == "mates; a line of 11 (total 13), length not proven"


def test_a_stop_request_ends_the_check(solver):
    asked = []

    def stop_after_two():
        asked.append(1)
        return len(asked) > 2

    report = check(COOK_AT_3, solver=solver, nodes_limit=NODES, should_stop=stop_after_two)
    assert not report.complete and solver.state == "idle"
    assert report.verdict != "sound"


def test_first_flaw_stops_once_the_verdict_is_settled(solver):
    full = run(COOK_AT_3, solver)
    quick = run(COOK_AT_3, solver, exhaustive=False)
    assert (quick.verdict, quick.verdict_move) == (full.verdict, full.verdict_move)


def test_findings_are_reported_as_they_come(solver):
    seen = []
    report = run(COOK_AT_3, solver, on_finding=seen.append)
    assert {a.move for a in seen if a.kind == "cook"} == {a.move for a in report.cooks}


# ---------------------------------------------------------------------------
# 将棋図巧 第66番


def test_zukou_066_is_cooked_by_the_short_line():
    solver = Solver(64)
    report = check(ZUKOU_066, solver=solver, nodes_limit=30_000_000, exhaustive=False)
    # 9 plies by the composers' count: the longest defence (15) leaves spare pieces
    # and 1h2h at move 4 leaves none (docs/DFPN.md, composers' choices).
    assert report.main_exact and len(report.main_line) == 9
    assert (report.verdict, report.verdict_move) == ("cooked", 3)
    assert check_mate_line(ZUKOU_066, list(report.main_line)) is None
    # The published line starts ▲３八銀 △１八玉 ▲１九香打: that move also mates,
    # in far more moves than the 13 the short line still needs after move 2.
    published = next(a for a in report.cooks if a.move == "L*1i")
    assert published.length > 13
    start = Position(before(report, 3)).sfen()
    assert check_mate_line(start, list(published.line)) is None


# ---------------------------------------------------------------------------
# Output


def test_text_report_in_japanese_notation(solver):
    text = format_text(run(COOK_AT_3, solver), title="cook-at-3")
    lines = text.splitlines()
    assert lines[0] == "cook-at-3"
    # Several 5-ply mates follow ▲２四桂打 △２二玉; the solver's choice among them is its own.
    main = lines[lines.index("main line (solver's line, 5 plies):") + 1].split()
    assert main[:2] == ["▲２四桂打", "△２二玉"] and len(main) == 5
    assert any(line.startswith("  move 3 ▲２一桂成: cook (余詰); mates in 3") for line in lines)
    assert lines[-1].startswith("verdict: cooked at move 3")


def test_json_report(solver):
    data = json.loads(json.dumps(run(COOK_AT_3, solver).to_dict(), ensure_ascii=False))
    assert data["verdict"] == "cooked" and data["verdict_move"] == 3
    assert data["main_line"][:2] == ["N*2d", "1b2b"] and len(data["main_line"]) == 5
    kinds = {a["kind"] for a in data["alternatives"]}
    assert "cook" in kinds and "no_mate" not in kinds
    assert data["counts"]["no_mate"] == len([o for o in data["others"] if o["kind"] == "no_mate"])


def test_kif_report_has_every_mating_alternative_as_a_variation(solver):
    report = run(COOK_AT_3, solver)
    lines = format_kif(report, comments=("cook-at-3",))
    assert lines[0] == "# cook-at-3"
    assert parse_kif("\n".join(lines)).moves == report.main_line
    mating = [a for a in report.alternatives if a.line and a.kind not in ("futile", "no_mate")]
    blocks = [line for line in lines if line.startswith("変化：")]
    assert len(blocks) == len(mating)
    numbers = [int(b[3:-1]) for b in blocks]
    assert numbers == sorted(numbers, reverse=True)  # the last branch point first
    assert "*verdict: cooked at move 3" in lines


# ---------------------------------------------------------------------------
# Command line


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "usi_mate", *args],
        input=stdin,
        env=ENV,
        cwd=PACKAGE_ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def test_check_command_on_a_file_and_a_kif(tmp_path):
    problems = tmp_path / "p.sfen"
    problems.write_text(f"{SOUND} # 3 sound\n{COOK_AT_3} # 5 cook\n", encoding="utf-8")
    r = run_cli("check", str(problems), "--nodes", str(NODES), "--hash", "16", "--format", "jsonl")
    assert r.returncode == 1, r.stderr  # a cooked problem
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(x["id"], x["verdict"]) for x in records] == [("sound", "sound"), ("cook", "cooked")]
    kif = tmp_path / "intended.kif"
    kif.write_text("\n".join(format_kif(run(COOK_AT_3, Solver(16), line="N*2d 1b1a G*1b"))))
    r = run_cli("check", str(kif), "--nodes", str(NODES), "--hash", "16")
    assert r.returncode == 1
    assert "main line (given line, 3 plies)" in r.stdout
    assert r.stdout.rstrip().splitlines()[-1].startswith("verdict: unsound defence at move 2")
    r = run_cli("check", SOUND, "--line", "R*1a 1b2c 4d3c+", "--nodes", str(NODES), "--hash", "16")
    assert r.returncode == 0 and "verdict: sound" in r.stdout
    r = run_cli("check", SOUND, "--line", "R*1a 1b2c", "--hash", "16")
    assert r.returncode == 1 and "must end with the attacker's mating move" in r.stderr
    assert run_cli("check").returncode == 2


def run_cli_to(stdout, *args: str) -> subprocess.CompletedProcess:
    """``usi-mate`` with its stdout sent to ``stdout`` (an open file), stderr captured."""
    return subprocess.run(
        [sys.executable, "-m", "usi_mate", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=ENV,
        cwd=PACKAGE_ROOT,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def assert_cannot_write(r: subprocess.CompletedProcess, name: str) -> None:
    """Exit 2 (not 1, "flawed") with one ``cannot write`` line naming the output."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr
    assert r.stderr.count(f"usi-mate check: error: cannot write {name}: ") == 1, r.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["text", "jsonl", "kif", "html"])
def test_check_on_a_full_disk_is_an_io_error_not_a_flaw(fmt):
    common = ("check", SOUND, "--nodes", str(NODES), "--hash", "16", "--format", fmt)
    r = run_cli(*common, "--output", "/dev/full")
    assert_cannot_write(r, "/dev/full")
    assert "No space left on device" in r.stderr
    with open("/dev/full", "w") as full:
        assert_cannot_write(run_cli_to(full, *common), "stdout")


def test_check_into_a_missing_folder_is_an_io_error(tmp_path):
    missing = str(tmp_path / "nodir" / "c.txt")
    r = run_cli("check", SOUND, "--nodes", str(NODES), "--hash", "16", "--output", missing)
    assert_cannot_write(r, missing)
    assert "No such file or directory" in r.stderr


@pytest.mark.parametrize("text", ["", "\n", "# only a comment\n  \n"])
def test_check_of_an_input_without_a_problem_line_is_a_usage_error(text, tmp_path):
    empty = tmp_path / "empty.sfen"
    empty.write_text(text, encoding="utf-8")
    for args, stdin in (([str(empty)], None), (["-"], text)):
        r = run_cli("check", *args, "--hash", "16", stdin=stdin)
        assert r.returncode == 2, (args, r.stdout, r.stderr)  # not 0, "every problem is sound"
        assert "usi-mate check: error: no problem to check" in r.stderr


@pytest.mark.parametrize("fmt", ["text", "jsonl", "kif", "html"])
def test_check_clips_and_escapes_what_it_echoes(fmt, tmp_path):
    # A malformed 8 MB line was echoed whole on stderr; ids with escape sequences (clear
    # the screen, set the title) reached the terminal raw.
    problems = tmp_path / "hostile.sfen"
    lines = [
        "x" * 8_000_000 + " # 3 big",
        f"{SOUND} # 3 \x1b[2Jclear",
        f"{SOUND} # 3 \x1b]0;title\x07osc",
        "bad\x1b[31mred # 1 red\x9b2J",
    ]
    problems.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = run_cli("check", str(problems), "--nodes", str(NODES), "--hash", "16", "--format", fmt)
    assert r.returncode == 1, r.stderr[:2000]  # the malformed lines are invalid
    assert len(r.stdout) + len(r.stderr) < 60_000, (len(r.stdout), len(r.stderr))
    for stream in (r.stdout, r.stderr):
        assert not any(c in stream for c in ("\x1b", "\x07", "\x9b")), stream
    assert "x" * 300 not in r.stderr
    shown = r.stdout.replace("\\\\", "\\")  # jsonl escapes the backslash once more
    assert "\\x1b[2Jclear" in shown and "\\x1b]0;title\\x07osc" in shown
    assert "usi-mate check: red\\x9b2J: skipped:" in r.stderr
    assert "'bad\\x1b[31mred'" in r.stderr


def test_check_escapes_an_illegal_move_of_the_given_line():
    r = run_cli("check", SOUND, "--line", "R*1a \x1b[2J" + "y" * 5000, "--hash", "16")
    assert r.returncode == 1
    assert "\x1b" not in r.stderr and "y" * 300 not in r.stderr, r.stderr
    assert "\\x1b[2J" in r.stderr


def test_solve_with_check_cooks_adds_the_check_to_each_record(tmp_path):
    problems = tmp_path / "p.sfen"
    problems.write_text(f"{COOK_AT_3} # 5 cook\n{SPARE} # 3 spare\n", encoding="utf-8")
    r = run_cli("solve", str(problems), "--check-cooks", "--nodes", str(NODES), "--hash", "16",
                "--format", "jsonl", "--no-progress")  # fmt: skip
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["check"]["verdict"] for x in records] == ["cooked", "sound"]
    assert records[0]["status"] == "mate" and records[0]["length"] == 5
    assert "check: cooked" in r.stderr  # the summary
    r = run_cli("solve", str(problems), "--check-cooks", "--nodes", str(NODES), "--hash", "16",
                "--no-progress")  # fmt: skip
    assert "cooked at move 3" in r.stdout and "    move 3: cook " in r.stdout
    r = run_cli("solve", str(problems), "--check-cooks", "--nodes", str(NODES), "--hash", "16",
                "--format", "kif", "--no-progress", "--jobs", "2")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("変化：3手") == len(run(COOK_AT_3, Solver(16)).of_kind("cook"))


# ---------------------------------------------------------------------------
# USI: ReportCooks


class Recorder:
    """Collects what the engine writes, and lets a test wait for a line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cond = threading.Condition()

    def write(self, line: str) -> None:
        with self.cond:
            self.lines.append(line)
            self.cond.notify_all()

    def wait_for(self, prefix: str, timeout: float = 30.0) -> None:
        with self.cond:
            ok = self.cond.wait_for(
                lambda: any(line.startswith(prefix) for line in self.lines), timeout
            )
        assert ok, f"no line starting with {prefix!r} in {self.lines}"


def engine_with(*commands: str) -> tuple[UsiEngine, Recorder]:
    out = Recorder()
    engine = UsiEngine(out.write)
    for c in ("setoption name USI_Hash value 16", "setoption name PvInterval value 0", *commands):
        engine.handle_line(c)
    return engine, out


def test_report_cooks_option_is_declared_off_by_default():
    engine, out = engine_with("usi")
    assert "option name ReportCooks type check default false" in out.lines


def test_report_cooks_lists_cooks_before_the_answer():
    engine, out = engine_with(
        "setoption name ReportCooks value true", f"position sfen {COOK_AT_3}", "go mate 20000"
    )
    out.wait_for("checkmate")
    engine.handle_line("quit")
    cooks = [line for line in out.lines if line.startswith("info string cook at move 3: ")]
    assert cooks and any(" also mates in 5 (3 from there): " in c for c in cooks)
    summary = [line for line in out.lines if line.startswith("info string ReportCooks: ")]
    assert len(summary) == 1 and "the first at move 3" in summary[0]
    answers = [line for line in out.lines if line.startswith("checkmate")]
    assert (
        len(answers) == 1
        and answers[0].startswith("checkmate N*2d 1b2b ")
        and len(answers[0].split()) == 6
    )
    assert out.lines.index(summary[0]) < out.lines.index(answers[0])
    assert all(line.isascii() for line in out.lines)


def test_report_cooks_off_reports_nothing():
    engine, out = engine_with(f"position sfen {COOK_AT_3}", "go mate 20000")
    out.wait_for("checkmate")
    engine.handle_line("quit")
    assert not [line for line in out.lines if "cook" in line]


# Tendō banqueta #12 (tendo.sfen): its 7-ply mate is proven in ~0.2 M nodes, and
# at the last move eight other checks also mate (found at once); but whether
# ▲２一飛成 at move 1 mates is more than 60 M nodes away (cshogi's df-pn does not
# settle it in 3 M either), so the cook search is still busy when stop comes.
TENDO_12 = "6kn1/4+b4/7R1/7lB/8L/9/9/9/9 b R4g4s3n2l18p 1"


def test_stop_during_the_cook_search_answers_at_once():
    engine, out = engine_with(
        "setoption name ReportCooks value true", f"position sfen {TENDO_12}", "go mate infinite"
    )
    out.wait_for("info string last-move alternative (tolerated) at move 7")
    # stop returns once the answer is written; that the cook search was cut short by it
    # (and not waited for: it would take minutes) is the summary's "(stopped)" below.
    engine.handle_line("stop")
    answers = [line for line in out.lines if line.startswith("checkmate")]
    assert len(answers) == 1
    assert check_mate_line(TENDO_12, answers[0].split()[1:]) is None
    (summary,) = [line for line in out.lines if "ReportCooks:" in line]
    assert "(stopped)" in summary and out.lines.index(summary) < out.lines.index(answers[0])
    engine.handle_line("quit")


# ---------------------------------------------------------------------------
# antma/tsumeshogi-check's uniqueness tests (GPL: read from a folder, never copied)


def antma_uniqueness_lines() -> list[tuple[str, str]]:
    folder = os.environ.get("USI_MATE_PROBLEMS")
    if not folder:
        pytest.skip(
            "set USI_MATE_PROBLEMS to a folder holding antma_tsumeshogi_check_tests.sfen "
            "(GPL-3.0; not part of this repository) to run the unique_mate tests"
        )
    path = Path(folder) / "antma_tsumeshogi_check_tests.sfen"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        sfen, _, comment = line.partition("#")
        words = comment.split()
        if len(words) >= 2 and words[1].endswith("unique_mate"):
            out.append((sfen.strip(), words[1]))
    assert out, f"no unique_mate lines in {path}"
    return out


def test_antma_unique_and_not_unique_mates(solver):
    # antma's "unique" means that no other attacker move mates within the
    # problem's length; the check also reports longer mates (cooks of any
    # length), each with its length, so compare those of at most that length.
    for sfen, name in antma_uniqueness_lines():
        report = run(sfen, solver)
        n = len(report.main_line)
        rivals = [a for a in report.of_kind("cook", "last_move") if a.total_length <= n]
        if name.endswith("not_unique_mate"):
            assert rivals, (name, report.verdict_text)
        else:
            assert not rivals and report.main_exact, (name, report.verdict_text)


def test_the_check_takes_a_search_request_as_the_other_entries_do():
    # Its limits, futility count and AND root from a SearchRequest (made and validated by
    # the one maker of requests); a keyword not at its default replaces the request's.
    from usi_mate import SearchRequest

    sfen = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
    by_request = check(sfen, SearchRequest(nodes_limit=200_000, ignore_futile_interpositions=False))
    by_keywords = check(sfen, nodes_limit=200_000, ignore_futile_interpositions=False)
    assert by_request.verdict == by_keywords.verdict == "sound"
    assert by_request.main_line == by_keywords.main_line == ("G*5b",)
    with pytest.raises(ValueError, match="nodes_limit"):
        check(sfen, SearchRequest(), nodes_limit=-1)
    with pytest.raises(TypeError, match="SearchRequest"):
        check(sfen, {"nodes_limit": 5})  # type: ignore[arg-type]
