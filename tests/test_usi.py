"""The USI protocol driven in-process through a scripted transport (no subprocess).

Each test feeds command lines to :class:`usi_mate.usi.UsiEngine` and reads what it wrote.
Searches run in the engine's worker thread, so waits are bounded by timeouts: a broken
engine fails a test instead of hanging the suite.
"""

from __future__ import annotations

import io
import sys
import threading
import time
import types
from pathlib import Path

import pytest
from oracle import load_labelled

from usi_mate import Solver, __version__
from usi_mate.options import OPTIONS, OptionValues, SpinOption
from usi_mate.settings import THREAD_MB
from usi_mate.types import SearchProgress
from usi_mate.usi import (
    MAX_LINE_CHARS,
    GoCommand,
    SetOptionCommand,
    UsiEngine,
    UsiError,
    progress_line,
    progress_lines,
)

MATE_IN_1 = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
NO_MATE = "4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
HARD = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"  # not solved within seconds
# White to move, in check from the rook on 1i; with RootIsAndNodeIfChecked white defends:
# 1a2a G*2b is mate (2 plies).
DEFENDER_IN_CHECK = "8k/9/6G2/9/9/9/9/9/8R w G 1"

TIMEOUT = 60.0  # a guard against a hang, not a measure of speed: a loaded machine is slow


class Transcript:
    """The engine's output, with waits that cannot hang."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._cond = threading.Condition()

    def write(self, line: str) -> None:
        assert "\n" not in line and "\r" not in line, line
        with self._cond:
            self.lines.append(line)
            self._cond.notify_all()

    def wait_for(self, prefix: str, start: int = 0, timeout: float = TIMEOUT) -> int:
        """Index of the first line from ``start`` on that starts with ``prefix``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i in range(start, len(self.lines)):
                    if self.lines[i].startswith(prefix):
                        return i
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {prefix!r} within {timeout} s: {self.lines[start:]}")
                self._cond.wait(left)

    def since(self, start: int) -> list[str]:
        with self._cond:
            return list(self.lines[start:])

    def __len__(self) -> int:
        with self._cond:
            return len(self.lines)


@pytest.fixture
def usi():
    """An engine with a small table, its transcript, and a `send` helper."""
    out = Transcript()
    engine = UsiEngine(out.write)

    def send(*lines: str) -> int:
        start = len(out)
        for line in lines:
            engine.handle_line(line)
        return start

    send("setoption name USI_Hash value 16", "setoption name PvInterval value 100")
    try:
        yield types.SimpleNamespace(engine=engine, out=out, send=send)
    finally:
        engine.handle_line("quit")


def answers(lines: list[str]) -> list[str]:
    return [x for x in lines if x.startswith(("checkmate", "bestmove"))]


# -- registration -------------------------------------------------------------


def test_usi_lists_id_and_every_option_then_usiok(usi):
    out, send = usi.out, usi.send
    start = send("usi")
    lines = out.since(start)
    assert lines[0] == f"id name usi-mate {__version__}"
    assert lines[1] == "id author usi-mate developers"
    assert lines[2:-1] == [o.usi_line() for o in OPTIONS]
    assert lines[-1] == "usiok"
    assert "option name USI_Hash type spin default 256 min 1 max 1048576" in lines
    assert "option name RootIsAndNodeIfChecked type check default false" in lines


def test_every_declared_option_default_parses_back():
    # A GUI sends the defaults it read from `usi` straight back: they must be accepted.
    values = OptionValues()
    for option in OPTIONS:
        values.set(option.name, option.format(option.default))
    assert values.config() == OptionValues().config()


# -- setoption ----------------------------------------------------------------


def test_setoption_names_are_case_insensitive(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    start = send(
        "setoption name usi_hash value 32",
        "setoption name NODESLIMIT value 5000",
        "setoption name rootisandnodeifchecked value TRUE",
    )
    assert out.since(start) == []
    assert engine.config.hash_mb == 32
    assert engine.config.request.nodes_limit == 5000
    assert engine.config.request.root_is_and_node_if_checked is True


@pytest.mark.parametrize(
    "value",
    ["abc", "0", "-5", "1048577", "1e3", "1_000", "", "99999999999999999999999999999999999999999"],
)
def test_bad_hash_value_is_reported_and_the_old_value_kept(usi, value):
    engine, out, send = usi.engine, usi.out, usi.send
    start = send(f"setoption name USI_Hash value {value}".rstrip())
    (line,) = out.since(start)
    assert line.startswith("info string setoption: USI_Hash")
    assert line.endswith("keeping 16")
    assert engine.config.hash_mb == 16


def test_bad_check_value_and_missing_value(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    start = send(
        "setoption name RootIsAndNodeIfChecked value maybe", "setoption name RootIsAndNodeIfChecked"
    )
    lines = out.since(start)
    assert len(lines) == 2 and all(x.startswith("info string setoption:") for x in lines)
    assert lines[0].endswith("keeping false")
    assert engine.config.request.root_is_and_node_if_checked is False


def test_unknown_option_and_malformed_setoption(usi):
    out, send = usi.out, usi.send
    start = send("setoption name NoSuchOption value 3", "setoption USI_Hash 3", "setoption")
    lines = out.since(start)
    assert lines[0] == "info string setoption: unknown option 'NoSuchOption'"
    assert all(x.startswith("info string setoption: expected") for x in lines[1:])
    assert len(lines) == 3


def test_setoption_parse_keeps_spaces_in_names_and_values():
    assert SetOptionCommand.parse("name Book File value C:/my books/a.db") == SetOptionCommand(
        "Book File", "C:/my books/a.db"
    )
    assert SetOptionCommand.parse("name USI_Hash") == SetOptionCommand("USI_Hash", None)
    parsed = SetOptionCommand.parse("name a valuex value  b  c ")
    assert parsed == SetOptionCommand("a valuex", "b  c")
    assert SetOptionCommand.parse("name value") == SetOptionCommand("value", None)
    assert SetOptionCommand.parse("name x value") == SetOptionCommand("x", None)


def test_setoption_parse_of_a_long_run_of_spaces_is_linear():
    # The pattern it replaced backtracked quadratically: 64,000 spaces took 20 s,
    # these 400,000 would take about 13 minutes; the scans take milliseconds.
    spaces = " " * 400_000
    assert SetOptionCommand.parse(f"name x{spaces}y") == SetOptionCommand(f"x{spaces}y", None)
    assert SetOptionCommand.parse(f"name x{spaces}value{spaces}3") == SetOptionCommand("x", "3")


def test_registry_accepts_a_new_option_in_one_declaration():
    spin = SpinOption("Extra", "extra", default=5, min=0, max=9, help="x")
    values = OptionValues((spin,))
    values.set("EXTRA", "7")
    assert values.get("extra") == 7


# -- isready and the table ----------------------------------------------------


def test_isready_allocates_and_resizes_the_table(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    assert engine.table_mb is None  # nothing allocated before isready
    start = send("isready")
    assert out.since(start) == ["readyok"]
    assert engine.table_mb == 16
    send("setoption name USI_Hash value 8", "isready")
    assert engine.table_mb == 8


def test_a_hash_the_machine_cannot_hold_is_refused(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    send("isready")
    start = send("setoption name USI_Hash value 1048576", "isready")
    lines = out.since(start)
    assert lines[0].startswith("info string USI_Hash 1048576 MB")
    assert lines[0].endswith("keeping 16 MB")
    assert lines[-1] == "readyok"
    assert engine.config.hash_mb == 16 and engine.table_mb == 16
    start = send(f"position sfen {MATE_IN_1}", "go mate 1000")
    assert out.since(out.wait_for("checkmate", start))[0] == "checkmate G*5b"


class _FailingSolver:
    """A Solver whose resize to more than 64 MB fails the way the core does: the old table
    is freed first, and the Solver is left without one."""

    def __init__(self, hash_mb: int) -> None:
        self._solver = Solver(hash_mb)
        self.resizes: list[int] = []

    def __getattr__(self, name):
        return getattr(self._solver, name)

    def resize(self, hash_mb: int) -> None:
        self.resizes.append(hash_mb)
        if hash_mb > 64:
            raise MemoryError("std::bad_alloc")
        self._solver.resize(hash_mb)


def test_a_failed_allocation_rebuilds_the_previous_table(monkeypatch):
    monkeypatch.setattr("usi_mate.usi.hash_limit_mb", lambda current: None)
    out = Transcript()
    made: list[_FailingSolver] = []
    engine = UsiEngine(
        out.write, solver_factory=lambda mb: made.append(_FailingSolver(mb)) or made[-1]
    )
    engine.handle_line("setoption name USI_Hash value 16")
    engine.handle_line("isready")
    start = len(out)
    engine.handle_line("setoption name USI_Hash value 128")
    engine.handle_line("isready")
    lines = out.since(start)
    assert lines == ["info string USI_Hash 128 MB could not be allocated; keeping 16 MB", "readyok"]
    assert made[0].resizes == [128, 16]  # the old size was reallocated
    assert engine.config.hash_mb == 16
    engine.handle_line(f"position sfen {MATE_IN_1}")
    engine.handle_line("go mate 1000")
    assert out.since(out.wait_for("checkmate", start))[0] == "checkmate G*5b"
    engine.handle_line("quit")


def test_threads_option_runs_that_many_search_threads(usi):
    out, send = usi.out, usi.send
    start = send("setoption name Threads value 4", "isready")
    assert out.since(start) == ["readyok"]
    assert usi.engine._solver.threads == 4
    start = send(f"position sfen {MATE_IN_1}", "go mate 1000")
    assert out.since(out.wait_for("checkmate", start))[0] == "checkmate G*5b"
    start = send("setoption name Threads value 1", "isready")
    assert usi.engine._solver.threads == 1


def test_threads_the_machine_cannot_hold_are_refused(usi, monkeypatch):
    out, send = usi.out, usi.send
    send("isready")  # a 16 MB table
    # 256 threads take about 1.3 GB beside the table: refused where 200 MB can be had.
    monkeypatch.setattr("usi_mate.memory.available_memory_mb", lambda: 200)
    start = send("setoption name Threads value 256", "isready")
    lines = out.since(start)
    assert lines[0].startswith("info string Threads 256: about 1275 MB for the threads")
    assert lines[0].endswith("keeping 1") and lines[-1] == "readyok"
    assert usi.engine._solver.threads == 1 and usi.engine.config.threads == 1
    start = send("setoption name Threads value 4", "isready")  # 15 MB more: fits
    assert out.since(start) == ["readyok"] and usi.engine._solver.threads == 4


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmRSS")
def test_a_search_thread_takes_no_more_memory_than_thread_mb():
    def rss_mb() -> float:
        status = Path("/proc/self/status").read_text(encoding="ascii")
        return int(next(x for x in status.splitlines() if x.startswith("VmRSS")).split()[1]) / 1024

    solver = Solver(16)
    before = rss_mb()
    solver.set_threads(33)
    solver.solve(MATE_IN_1, nodes_limit=10_000)
    per_thread = (rss_mb() - before) / 32
    assert per_thread <= THREAD_MB, per_thread  # 4.03 MB measured (2026-11-27)


# -- position -----------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        "position sfen 4k4/9/4P4 b - 1",  # too few ranks
        "position sfen 4k4/9/4P4/9/9/9/9/9/9 x G 1",  # bad side to move
        f"position sfen {MATE_IN_1} moves 5c5b5a",  # malformed move
        f"position sfen {MATE_IN_1} moves 1a1b",  # no such piece
        "position startpos moves 7g7f 7g7f",  # illegal second move
        "position",  # nothing
        "position sfen",
        "position startpos junk",
        "position sfen \u738b\u5c06",  # non-ASCII
    ],
)
def test_a_bad_position_is_reported_and_never_answered_for_the_previous_one(usi, bad):
    # Issue 9: answering the previous problem's line would have the GUI play it on
    # the board it just sent. The next go says it cannot search, never "nomate".
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", bad)
    (line,) = out.since(start)
    assert line.startswith("info string position")
    assert line.endswith("the next go answers without searching")
    start = send("go mate 1000")
    out.wait_for("checkmate", start)
    lines = out.since(start)
    assert answers(lines) == ["checkmate timeout"]
    assert any(x.startswith("info string error: no position to search") for x in lines)
    # A good position afterwards is searched as usual.
    start = send(f"position sfen {MATE_IN_1}", "go mate 1000")
    assert answers(out.since(out.wait_for("checkmate", start))) == ["checkmate G*5b"]


def test_position_startpos_with_moves(usi):
    out, send = usi.out, usi.send
    start = send("position startpos moves 7g7f 3c3d", "go mate 500")
    out.wait_for("checkmate", start)
    assert answers(out.since(start)) == ["checkmate nomate"]


# -- go mate ------------------------------------------------------------------


def test_go_mate_finds_a_mate_in_one_and_reports_it_first(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", "go mate 1000")
    end = out.wait_for("checkmate", start)
    lines = out.since(start)
    assert lines[-1] == "checkmate G*5b"
    final = out.lines[end - 1]
    assert final.startswith("info depth 1 seldepth 1 time ")
    assert final.endswith(" score mate 1 pv G*5b")
    for key in ("nodes", "nps", "hashfull"):
        assert f" {key} " in final


def test_mate_score_equals_the_number_of_moves(usi):
    # A three-ply mate (mogami-MateSolverSpec-answers-2): the score is the line's length.
    out, send = usi.out, usi.send
    three = "6Rsk/7r1/8+P/9/9/9/9/9/9 b GN2b3g3s3n4l17p 1"
    start = send(f"position sfen {three}", "go mate 5000")
    end = out.wait_for("checkmate", start)
    moves = out.lines[end].split()[1:]
    assert len(moves) == 3
    assert out.lines[end - 1].endswith(f"score mate {len(moves)} pv {' '.join(moves)}")


def test_go_mate_on_a_position_without_mate(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {NO_MATE}", "go mate 1000")
    out.wait_for("checkmate", start)
    assert answers(out.since(start)) == ["checkmate nomate"]


def test_go_mate_timeout_on_a_hard_position(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {HARD}", "go mate 300")
    out.wait_for("checkmate", start)
    lines = out.since(start)
    assert answers(lines) == ["checkmate timeout"]
    assert any(x.startswith("info time ") and " string pn " in x for x in lines)


def test_node_limit_option_ends_the_search_with_timeout(usi):
    out, send = usi.out, usi.send
    start = send(
        "setoption name NodesLimit value 2000", f"position sfen {HARD}", "go mate infinite"
    )
    out.wait_for("checkmate", start)
    assert answers(out.since(start)) == ["checkmate timeout"]


def test_progress_lines_follow_pv_interval_and_zero_turns_them_off(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {HARD}", "go mate 450")
    out.wait_for("checkmate", start)
    progress = [x for x in out.since(start) if x.startswith("info time")]
    assert len(progress) >= 3  # every 100 ms, plus the last report
    fields = progress[0].split()
    assert fields[:2] == ["info", "time"] and fields[3] == "nodes" and fields[5] == "nps"
    assert fields[7] == "hashfull" and fields[9:11] == ["string", "pn"] and fields[12] == "dn"
    start = send("setoption name PvInterval value 0", "go mate 300")
    out.wait_for("checkmate", start)
    assert not [x for x in out.since(start) if "string pn" in x]


def test_a_progress_report_with_a_line_adds_a_pv_info_line():
    p = SearchProgress(
        nodes=5000,
        time_ms=10,
        hashfull=3,
        proof_number=0,
        disproof_number=1 << 30,
        max_ply=9,
        mate_length=3,
        moves=("G*5b", "4a5b", "S*4b"),
    )
    lines = progress_lines(p)
    assert lines[0] == progress_line(p) and len(lines) == 2
    stats = "time 10 nodes 5000 nps 500000 hashfull 3"
    assert lines[1] == f"info depth 3 seldepth 3 {stats} score mate 3 pv G*5b 4a5b S*4b"
    even = progress_lines(SearchProgress(5000, 10, 3, 0, 1 << 30, 9, 2, moves=("4a5b", "G*5b")))
    assert even[1].split()[14:16] == ["mate", "-2"]  # the side to move is mated
    assert progress_lines(SearchProgress(5000, 10, 3, 1, 1, 9)) == [
        progress_line(SearchProgress(5000, 10, 3, 1, 1, 9))
    ]


def test_stop_mid_search_answers_once_before_stop_returns(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    start = send(f"position sfen {HARD}", "go mate infinite")
    out.wait_for("info time", start)  # the search is running
    assert engine.searching
    send("stop")
    # stop waits for the answer, so the next command finds the engine idle.
    assert answers(out.since(start)) == ["checkmate timeout"]
    assert not engine.searching
    time.sleep(0.2)
    send("stop")  # a stop when idle is a no-op
    assert answers(out.since(start)) == ["checkmate timeout"]


def test_isready_mid_search_answers_while_the_search_continues(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    start = send(f"position sfen {HARD}", "go mate infinite")
    out.wait_for("info time", start)
    mark = send("setoption name USI_Hash value 8", "isready")
    assert out.wait_for("readyok", mark) >= mark
    assert engine.searching and answers(out.since(start)) == []
    assert engine.table_mb == 16  # resizing is deferred while the table is in use
    mark = len(out)
    out.wait_for("info time", mark)  # still reporting progress
    send("stop")
    assert answers(out.since(start)) == ["checkmate timeout"]
    send("isready")
    assert engine.table_mb == 8


def test_a_second_go_while_searching_stops_the_first_and_both_are_answered(usi):
    # Issue 9: a GUI race or piped commands must not leave a go unanswered.
    out, send = usi.out, usi.send
    start = send(f"position sfen {HARD}", "go mate infinite")
    send(f"position sfen {MATE_IN_1}", "go mate 1000")
    deadline = time.monotonic() + TIMEOUT
    while len(answers(out.since(start))) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert answers(out.since(start)) == ["checkmate timeout", "checkmate G*5b"]


def test_exactly_one_answer_per_go_over_many_searches(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}")
    for i in range(200):
        mark = send("go mate 1000")
        out.wait_for("checkmate", mark)
        # The answer is written before the search is marked done; a reply go may follow.
        deadline = time.monotonic() + TIMEOUT
        while engine.searching and time.monotonic() < deadline:
            time.sleep(0.001)
    assert answers(out.since(start)) == ["checkmate G*5b"] * 200


def test_a_go_sent_right_after_the_answer_is_accepted(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    # A GUI answers `checkmate` with the next go at once; the writer callback is the
    # earliest moment it can do so.
    replies: list[int] = []
    out_write = out.write

    def write_and_reply(line: str) -> None:
        out_write(line)
        if line.startswith("checkmate") and len(replies) < 5:
            replies.append(1)
            threading.Thread(target=engine.handle_line, args=("go mate 1000",)).start()

    engine._write_fn = write_and_reply
    start = send(f"position sfen {MATE_IN_1}", "go mate 1000")
    deadline = time.monotonic() + TIMEOUT
    while len(answers(out.since(start))) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert answers(out.since(start)) == ["checkmate G*5b"] * 6
    assert not any("ignored" in x for x in out.since(start))


@pytest.mark.parametrize(
    "go", ["go mate abc", "go mate -1", "go mate 1e3", "go mate 5 junk", "go mate 10 btime"]
)
def test_a_malformed_go_mate_gets_an_info_string_and_one_answer(usi, go):
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", go)
    lines = out.since(start)
    assert lines[0].startswith("info string go: ")
    assert lines[1:] == ["checkmate timeout"]


def test_an_echoed_token_is_escaped_once(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", "go mate \uff10", "setoption name \u30cf value 1")
    lines = out.since(start)
    assert lines[0] == "info string go: go mate must be a non-negative integer, not '\\uff10'"
    assert lines[2] == "info string setoption: unknown option '\\u30cf'"


def test_bare_go_mate_and_huge_times_search_until_stopped(usi):
    out, send = usi.out, usi.send
    # (10^13 ms and more overflowed the core's clock: the search ended after 1 ms.)
    for go in ("go mate", "go mate 10000000000000", "go mate 99999999999999999999999999"):
        start = send(f"position sfen {HARD}", go)
        out.wait_for("info time", start)
        time.sleep(0.05)
        assert not answers(out.since(start)), go
        send("stop")
        assert answers(out.since(start)) == ["checkmate timeout"]
        # A bare go mate says how it was read (it said nothing, issue 46).
        noted = [line for line in out.since(start) if "no time given" in line]
        assert len(noted) == (go == "go mate"), out.since(start)


def test_go_mate_zero_means_now_not_forever(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {HARD}", "go mate 0")
    out.wait_for("checkmate", start)
    assert answers(out.since(start)) == ["checkmate timeout"]


@pytest.mark.parametrize(
    "sfen",
    [
        "4k4/4R4/9/9/9/9/9/9/4K4 b - 1",  # white's king already in check, black to move
        "9/9/9/9/9/9/9/9/4K4 b 2G 1",  # no defender king
    ],
)
def test_an_unsearchable_position_answers_timeout_with_the_reason(usi, sfen):
    # Issue 9: "nomate" is a verdict about the position; a position that is no tsume
    # gets an error and "timeout", never "nomate".
    out, send = usi.out, usi.send
    start = send(f"position sfen {sfen}", "go mate 1000")
    out.wait_for("checkmate", start)
    lines = out.since(start)
    assert lines[0].startswith("info string error: ")
    assert lines[-1] == "checkmate timeout"


def test_root_is_and_node_if_checked_gives_an_even_line_and_negative_score(usi):
    out, send = usi.out, usi.send
    start = send(
        "setoption name RootIsAndNodeIfChecked value true",
        f"position sfen {DEFENDER_IN_CHECK}",
        "go mate 1000",
    )
    end = out.wait_for("checkmate", start)
    assert out.lines[end] == "checkmate 1a2a G*2b"
    assert out.lines[end - 1].endswith("score mate -2 pv 1a2a G*2b")


# -- go without mate (analysis mode) ------------------------------------------


def test_go_with_byoyomi_answers_bestmove_with_a_mate_score(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", "go btime 0 wtime 0 byoyomi 1000")
    end = out.wait_for("bestmove", start)
    assert out.lines[end] == "bestmove G*5b"
    assert out.lines[end - 1].endswith("score mate 1 pv G*5b")
    assert answers(out.since(start)) == ["bestmove G*5b"]


@pytest.mark.parametrize("position", [NO_MATE, HARD])
def test_go_without_a_mate_resigns(usi, position):
    # A 0.5 s budget (a twentieth of 6 s, plus byoyomi, less the margin): HARD is not
    # solved within seconds, so 3.3 s (btime 60000) showed nothing more; the budget's
    # arithmetic is test_go_command_parsing's.
    out, send = usi.out, usi.send
    start = send(f"position sfen {position}", "go btime 6000 wtime 6000 byoyomi 300")
    out.wait_for("bestmove", start)
    assert answers(out.since(start)) == ["bestmove resign"]


def test_go_infinite_waits_for_stop(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", "go infinite")
    out.wait_for("info time", start)  # the search is over: the answer is held
    time.sleep(0.3)
    assert answers(out.since(start)) == []
    # ... but not the mate it found: its score and line are shown at once (they came
    # only at stop, issue 46).
    assert any(" score mate 1 pv G*5b" in line for line in out.since(start)), out.since(start)
    send("stop")
    assert answers(out.since(start)) == ["bestmove G*5b"]


def test_go_mate_infinite_answers_by_itself_and_says_what_the_length_is(usi):
    # zukou-011 (published 49): `go mate infinite` used to search on until stop where
    # the minimum is not proven. The length search now ends when it has spent its share
    # (test_solver.py) and the answer comes unasked, an info string before it saying
    # that the length is not proven the shortest, and why.
    sfen = next(s for s, _, ident in load_labelled("zukou.sfen") if ident == "zukou-011")
    out, send = usi.out, usi.send
    send("setoption name USI_Hash value 64", "isready")
    start = send(f"position sfen {sfen}", "go mate infinite")
    end = out.wait_for("checkmate", start, timeout=120)
    (answer,) = answers(out.since(start))
    assert len(answer.split()) - 1 == 49
    note = out.lines[end - 2]
    assert note.startswith("info string mate 49: not proven the shortest"), note
    assert note.endswith("it spent its share of work (MinLengthEffort)")
    # A proven minimum says so; MinLengthEffort 0 searches until stop.
    start = send(f"position sfen {MATE_IN_1}", "go mate infinite")
    end = out.wait_for("checkmate", start)
    assert out.lines[end - 2] == "info string mate 1: the shortest, proven"
    start = send(
        "setoption name MinLengthEffort value 0", f"position sfen {sfen}", "go mate infinite"
    )
    out.wait_for("info time", start)
    assert answers(out.since(start)) == []
    send("stop")
    end = out.wait_for("checkmate", start)
    assert out.lines[end - 2].endswith("the search for a shorter mate ended: stop came first")


def test_go_ponder_answers_after_ponderhit(usi):
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", "go ponder btime 0 wtime 0 byoyomi 1000")
    time.sleep(0.2)
    assert answers(out.since(start)) == []
    send("ponderhit")
    out.wait_for("bestmove", start)
    assert answers(out.since(start)) == ["bestmove G*5b"]


def test_go_command_parsing():
    assert GoCommand.parse(["mate", "1000"]) == GoCommand(mate=True, time_ms=1000)
    assert GoCommand.parse(["mate", "infinite"]) == GoCommand(mate=True, time_ms=None)
    assert GoCommand.parse(["infinite"]).holds_answer
    assert GoCommand.parse([]).infinite  # a bare go searches until stop
    go = GoCommand.parse(["btime", "60000", "wtime", "1000", "byoyomi", "500"])
    assert go.analysis_budget_ms(0) == 60000 // 20 + 500 - 100
    assert go.analysis_budget_ms(1) == 1000 // 20 + 500 - 100
    assert GoCommand.parse(["movetime", "700"]).analysis_budget_ms(0) == 700
    with pytest.raises(UsiError):
        GoCommand.parse(["byoyomi"])


# -- robustness ---------------------------------------------------------------


def test_unknown_commands_and_empty_lines(usi):
    out, send = usi.out, usi.send
    start = send("", "   ", "\t", "hello world", "\x00\x1b[2J", "Usi")
    assert out.since(start) == [
        "info string unknown command hello world",
        "info string unknown command \\x00\\x1b[2J",
        "info string unknown command Usi",
    ]


def test_usinewgame_gameover_ponderhit_are_accepted_silently(usi):
    out, send = usi.out, usi.send
    start = send("usinewgame", "gameover win", "ponderhit")
    assert out.since(start) == []


def test_an_exception_in_a_handler_is_reported_not_raised(usi):
    engine, out, send = usi.engine, usi.out, usi.send

    def broken(rest, args):
        raise RuntimeError("boom")

    engine._handlers["usinewgame"] = broken
    start = send("usinewgame")
    assert out.since(start) == ["info string internal error: RuntimeError: boom"]


def test_a_failing_search_still_answers_once():
    out = Transcript()

    class BrokenSolver:
        hash_mb = 16

        def __init__(self, mb):
            pass

        def arm(self):
            pass

        def stop(self):
            pass

        def search(self, *a, **k):
            raise RuntimeError("core exploded")

    engine = UsiEngine(out.write, solver_factory=BrokenSolver)
    engine.handle_line("setoption name USI_Hash value 16")
    engine.handle_line("position startpos")
    engine.handle_line("go mate 1000")
    out.wait_for("checkmate")
    assert out.lines == [
        "info string internal error: RuntimeError: core exploded",
        "checkmate timeout",
    ]
    engine.handle_line("quit")


def test_a_broken_output_does_not_kill_the_engine():
    def write(line):
        raise BrokenPipeError

    engine = UsiEngine(write)
    engine.handle_line("usi")
    engine.handle_line("setoption name USI_Hash value 1")
    engine.handle_line(f"position sfen {MATE_IN_1}")
    engine.handle_line("go mate 100")
    engine.handle_line("quit")
    assert engine.quit_requested


def test_quit_mid_search_returns_promptly(usi):
    engine, out, send = usi.engine, usi.out, usi.send
    start = send(f"position sfen {HARD}", "go mate infinite")
    out.wait_for("info time", start)
    # quit returns without the search's end (it has none of its own: it waits ~100 ms at
    # most, then leaves the thread to stop), and the stop it sent ends the search.
    send("quit")
    assert engine.quit_requested
    deadline = time.monotonic() + TIMEOUT
    while engine.searching and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not engine.searching


def test_serve_treats_end_of_input_as_quit():
    out = Transcript()
    engine = UsiEngine(out.write)
    engine.serve(iter(["usi\n", "setoption name USI_Hash value 1\n", "isready\n"]))
    assert engine.quit_requested and out.lines[-1] == "readyok"


def test_a_line_over_the_limit_is_refused_and_the_next_one_handled():
    # 2.5 M characters: refused as a whole (not parsed), read in pieces.
    moves = " 7g7f 3c3d" * 250_000
    for stdin in (
        io.StringIO(f"setoption name x value{moves}\nisready\n"),
        iter([f"setoption name x value{moves}\n", "isready\n"]),
    ):
        out = Transcript()
        UsiEngine(out.write).serve(stdin)
        refused = f"info string line too long (over {MAX_LINE_CHARS:,} characters); ignored"
        assert out.lines[:2] == [refused, "readyok"]
    # A position line so long leaves no position: the next go does not answer for the one
    # before it.
    out = Transcript()
    lines = [f"position sfen {MATE_IN_1}\n", f"position startpos moves{moves}\n", "go mate 1000\n"]
    UsiEngine(out.write).serve(iter(lines))
    assert out.lines[0].endswith("ignored; the next go answers without searching")
    assert out.lines[1].startswith("info string error: no position to search: the last position")
    assert out.lines[2] == "checkmate timeout"
    # A line at the limit is handled.
    out = Transcript()
    UsiEngine(out.write).serve(io.StringIO("isready" + " " * (MAX_LINE_CHARS - 7) + "\n"))
    assert out.lines == ["readyok"]


# -- the command line -----------------------------------------------------------


def test_cli_version_and_help(capsys):
    from usi_mate import cli

    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"usi-mate {__version__}"
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "USI engine" in capsys.readouterr().out


def test_cli_solve_dispatches_to_the_batch_module(monkeypatch):
    from usi_mate import cli

    calls = []
    fake = types.ModuleType("usi_mate.batch")
    fake.main = lambda argv: calls.append(argv) or 0
    monkeypatch.setitem(sys.modules, "usi_mate.batch", fake)
    monkeypatch.setattr(cli.importlib.util, "find_spec", lambda name: object())
    assert cli.main(["solve", "problems.sfen", "--jobs", "2"]) == 0
    assert calls == [["problems.sfen", "--jobs", "2"]]


def test_cli_solve_without_the_batch_module_exits_2(monkeypatch, capsys):
    from usi_mate import cli

    monkeypatch.setattr(cli.importlib.util, "find_spec", lambda name: None)
    assert cli.main(["solve", "x.sfen"]) == 2
    assert "batch solver" in capsys.readouterr().err


def test_a_defender_whose_every_reply_is_futile_is_not_answered_nomate(usi):
    # Issue 44: the composers' count mates at once (every reply a futile drop), but the
    # side to move has 14 legal drops: a line the GUI can replay, not `checkmate nomate`
    # ("already checkmated") and not `bestmove resign`.
    out, send = usi.out, usi.send
    position = "position sfen 9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1 moves 3d1d 1c1d 3f3c+"
    start = send("setoption name RootIsAndNodeIfChecked value true", position, "go mate 3000")
    end = out.wait_for("checkmate", start)
    assert out.lines[end] == "checkmate P*3f 4g3f P*2e 3f2e"
    assert out.lines[end - 1].endswith("score mate -4 pv P*3f 4g3f P*2e 3f2e")
    assert "every reply is a futile interposition" in out.lines[end - 2]
    assert not any("shortest" in x for x in out.since(start))  # no length search to report
    start = send("go btime 0 wtime 0 byoyomi 1000")
    end = out.wait_for("bestmove", start)
    assert out.lines[end] == "bestmove P*3f"


# -- a byte-order mark, an unreadable position, a go before any position ------------


def test_a_byte_order_mark_before_a_command_is_ignored(usi):
    out, send = usi.out, usi.send
    start = send("\ufeffusi")
    assert out.since(start)[-1] == "usiok"
    start = send(f"\ufeffposition sfen {MATE_IN_1}", "go mate 1000")
    out.wait_for("checkmate", start)
    assert answers(out.since(start)) == ["checkmate G*5b"]


def test_a_go_before_any_position_gives_no_verdict():
    # It once answered for the start position ("checkmate nomate"), a verdict on a board
    # the GUI never sent.
    out = Transcript()
    engine = UsiEngine(out.write)
    engine.handle_line("setoption name USI_Hash value 16")
    engine.handle_line("go mate 1000")
    out.wait_for("checkmate")
    assert out.lines == [
        "info string error: no position to search: no position command yet",
        "checkmate timeout",
    ]
    engine.handle_line("quit")


@pytest.mark.parametrize(
    "line",
    [
        f"\x00position sfen {MATE_IN_1}",
        f"Position sfen {MATE_IN_1}",
        f"sfen {MATE_IN_1}",
        "startpos moves 7g7f",
        f"\u200bposition sfen {MATE_IN_1}",
    ],
)
def test_a_go_after_an_unreadable_position_gives_no_verdict_on_the_one_before(usi, line):
    out, send = usi.out, usi.send
    start = send(f"position sfen {MATE_IN_1}", "go mate 1000")
    out.wait_for("checkmate", start)
    start = send(line, "go mate 1000")
    out.wait_for("checkmate", start)
    lines = out.since(start)
    assert lines[0].startswith("info string unknown command ")
    assert lines[0].endswith("; the next go answers without searching")
    assert answers(lines) == ["checkmate timeout"]
    assert (
        "info string error: no position to search: the last position line could not be read"
        in lines
    )


def test_a_mate_in_one_stopped_at_once_is_still_the_shortest_proven(usi):
    # A stop (or a second go) right after go: the answer said "not proven the shortest
    # ... its share of work spent", though the stop ended it and no mate is shorter.
    out, send = usi.out, usi.send
    for second in ("stop", "go mate 1000"):
        start = send(f"position sfen {MATE_IN_1}", "go mate infinite", second)
        out.wait_for("checkmate", start)
        first_answer = out.wait_for("checkmate", start)
        assert out.lines[first_answer] == "checkmate G*5b"
        assert out.lines[first_answer - 2] == "info string mate 1: the shortest, proven"
        if second != "stop":
            out.wait_for("checkmate", first_answer + 1)


def test_a_mate_in_one_stopped_before_it_starts_is_the_shortest_proven():
    solver = Solver(16)
    solver.arm()
    solver.stop()
    r = solver.solve(MATE_IN_1)
    assert r.moves == ["G*5b"] and r.min_length_proven and r.length_stop is None
