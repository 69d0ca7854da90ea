"""Issue 9: random command sequences against the real engine process.

A Hypothesis state machine plays a hostile GUI: valid, malformed and illegal
positions, ``go mate`` with small limits, ``go mate infinite``, analysis-mode
``go``, ``go`` while a search runs, ``stop``, ``isready``, good and bad
``setoption``, ``usinewgame`` and junk lines. After every step the process must
be alive; at every sync point (a ``stop`` and an ``isready``) every ``go`` must
have exactly one answer, in order, and each answer must be true of the
position the GUI had set when it sent that ``go``:

- a ``checkmate <moves>`` replays to mate (cshogi) from that position;
- ``checkmate nomate`` only for positions that have no mate;
- a rejected or unsearchable position only ever gets ``checkmate timeout`` /
  ``bestmove resign``, never a verdict.

The default run plays about 1,250 steps in 25 sequences (4-8 s); ``-m slow``
plays about 40,000 in 400. (The default run played 40 sequences until issue 45: each of
the 15 rules is still drawn dozens of times, and the slow run is the thorough one.)
"""

from __future__ import annotations

import cshogi
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from oracle import check_mate_line
from test_usi_process import Engine

from usi_mate.usi import _meant_as_position

MATE1 = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
# name -> (position command text, the position's verdict: "mate", "nomate", None unknown)
GOOD = {
    "mate1": (f"sfen {MATE1}", "mate"),
    "mate3": ("sfen 9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1", "mate"),
    "pawn-drop": ("sfen 4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1", "nomate"),
    "perpetual": ("sfen 6R+P1/8k/7sp/9/9/9/9/9/9 b r2b4g3s4n4l16p 1", "nomate"),
    "no-check": ("startpos moves 7g7f 3c3d", "nomate"),
    "hard": ("sfen 4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1", "mate"),
    "big-move-number": (
        "sfen 4k4/9/4P4/9/9/9/9/9/8K b G2r2b3g4s4n4l17p 999999998 moves 1i2i 5a4a 2i1i 4a5a",
        "mate",
    ),
}
# Defender to move (in check), taken along solution lines: with RootIsAndNodeIfChecked the
# side to move defends and each is a mate; without it the side to move would attack a king
# that is not there, so the engine must say it cannot search them. The first three end in
# positions whose every reply is a futile interposition (issue 44: answered "nomate").
DEFENDER = {
    "after-mate3": "sfen 9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1 moves 3d1d",
    "mate3-futile-end": "sfen 9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1 "
    "moves 3d1d 1c1d 3f3c+",
    "lance-futile-end": "sfen 9/Pk1+B5/9/+S2l5/9/9/8G/9/9 b BL2r3g3s4n2l17p 1 "
    "moves L*8c 8b9b B*8a 9b9a 6b7c",
    "bishop-futile-end": "sfen 9/9/9/9/9/4P1+S2/5+S2+b/4+rNK1L/9 w R4G2S2N2L15Pbnl2p 1 "
    "moves B*2i 3h2i 5h4i",
}
# Parse, but are no tsume: the engine must say it cannot search them.
UNSEARCHABLE = {
    "defender-in-check": "sfen 4k4/4R4/9/9/9/9/9/9/4K4 b - 1",
    "no-defender-king": "sfen 9/9/9/9/9/9/9/9/4K4 b 2G 1",
}
REJECTED = [
    "sfen garbage",
    "sfen 4k4/9/4P4 b - 1",
    f"sfen {MATE1} moves 5c5d",
    "sfen P3k4/9/9/9/9/9/9/9/9 b G 1",
    "sfen 4k4/9/4P4/4P4/9/9/9/9/9 b G 1",
    "startpos moves 7g7e",
    f"sfen {MATE1[:-1]}x",
    "sfen 4k4/4R4/9/9/9/9/9/9/4K4 b - 1 moves 5b5a+",
    "sfen \u738b",
    "",
]
OPTIONS = [
    "setoption name USI_Hash value 16",
    "setoption name USI_Hash value 32",
    "setoption name NodesLimit value 20000",
    "setoption name NodesLimit value 0",
    "setoption name PostSearchLevel value None",
    "setoption name PostSearchLevel value MinLength",
    "setoption name IgnoreFutileInterpositions value false",
    "setoption name PvInterval value 0",
    "setoption name ReportCooks value true",
    "setoption name ReportCooks value false",
    "setoption name USI_Hash value abc",
    "setoption name USI_Hash value 99999999999",
    "setoption name Bogus value 1",
    "setoption nam USI_Hash",
]
COMMANDS = {"usi", "isready", "setoption", "usinewgame", "position", "go", "stop", "ponderhit",
            "gameover", "quit"}  # fmt: skip


def _junk_ok(line: str) -> bool:
    # (Not a word that means to set the board, "xposition" or "sfen": the engine takes
    # such a line as an unreadable position, and this model does not.)
    words = line.split()
    return bool(words) and words[0] not in COMMANDS and not _meant_as_position(words[0])


def _board(text: str) -> cshogi.Board:
    words = text.split()
    board = cshogi.Board()
    if words[0] == "sfen":
        i = words.index("moves") if "moves" in words else len(words)
        board.set_sfen(" ".join(words[1:i]))
        moves = words[i + 1 :]
    else:
        moves = words[2:]
    for m in moves:
        board.push_usi(m)
    return board


class HostileGui(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.engine = Engine()
        self.engine.send("usi")
        self.engine.send("setoption name USI_Hash value 16")
        self.engine.send("isready")
        self.readyok = 1
        self.engine.wait_count("readyok", 1)
        self.position: str | None = GOOD["mate1"][0]  # what the GUI set; None: rejected
        self.kind = "good"  # "good", "unsearchable" or "rejected"
        self.verdict: str | None = "mate"
        self.defender = False  # the position is one of DEFENDER
        self.and_root = False  # RootIsAndNodeIfChecked as last set
        self.gos: list[
            tuple[str, str | None, str, str | None, bool]
        ] = []  # (kind, position, class, verdict, RootIsAndNodeIfChecked)
        self.engine.send(f"position {self.position}")

    # -- positions ------------------------------------------------------------

    @rule(name=st.sampled_from(sorted(GOOD)))
    def set_good_position(self, name):
        text, verdict = GOOD[name]
        self.engine.send(f"position {text}")
        self.position, self.kind, self.verdict = text, "good", verdict
        self.defender = False

    @rule(name=st.sampled_from(sorted(DEFENDER)))
    def set_defender_position(self, name):
        self.engine.send(f"position {DEFENDER[name]}")
        self.position, self.defender = DEFENDER[name], True

    @rule(value=st.booleans())
    def set_root_is_and_node(self, value):
        self.engine.send(f"setoption name RootIsAndNodeIfChecked value {str(value).lower()}")
        self.and_root = value

    @rule(name=st.sampled_from(sorted(UNSEARCHABLE)))
    def set_unsearchable_position(self, name):
        text = UNSEARCHABLE[name]
        self.engine.send(f"position {text}")
        self.position, self.kind, self.verdict = text, "unsearchable", None
        self.defender = False

    @rule(text=st.sampled_from(REJECTED))
    def set_rejected_position(self, text):
        self.engine.send(f"position {text}")
        self.position, self.kind, self.verdict = None, "rejected", None
        self.defender = False

    # -- searches ------------------------------------------------------------

    def _go(self, line: str, kind: str) -> None:
        self.engine.send(line)
        if self.defender:  # what the position is depends on RootIsAndNodeIfChecked
            klass, verdict = ("good", "mate") if self.and_root else ("unsearchable", None)
            self.gos.append((kind, self.position, klass, verdict, self.and_root))
        else:
            self.gos.append((kind, self.position, self.kind, self.verdict, self.and_root))

    @rule(ms=st.sampled_from([1, 50, 200]))
    def go_mate(self, ms):
        self._go(f"go mate {ms}", "mate")

    @rule()
    def go_mate_infinite(self):
        self._go("go mate infinite", "mate")

    @rule(line=st.sampled_from(["go nodes 5000", "go movetime 50", "go depth 3", "go infinite",
                                "go btime 1000 wtime 1000 byoyomi 100"]))  # fmt: skip
    def go_analysis(self, line):
        self._go(line, "analysis")

    @rule(line=st.sampled_from(["go mate -5", "go mate abc", "go bogus", "go nodes"]))
    def go_malformed(self, line):
        self._go(line, "mate" if "mate" in line else "analysis")

    @rule()
    def stop(self):
        self.engine.send("stop")

    @rule()
    def isready(self):
        self.engine.send("isready")
        self.readyok += 1

    @rule(line=st.sampled_from(OPTIONS))
    def setoption(self, line):
        self.engine.send(line)

    @rule()
    def usinewgame(self):
        self.engine.send("usinewgame")

    @rule(line=st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=0x7F), max_size=40))
    def junk(self, line):
        line = line.replace("\n", " ").replace("\r", " ")
        if _junk_ok(line):
            self.engine.send(line)

    @precondition(lambda self: len(self.gos) > 0)
    @rule()
    def sync(self):
        self._sync()

    # -- checks ---------------------------------------------------------------

    @invariant()
    def alive(self):
        assert self.engine.proc.poll() is None, b"".join(self.engine.stderr)[-2000:]

    def _sync(self) -> None:
        # stop waits for the running search's answer; isready's readyok then comes
        # after every answer the engine owes.
        self.engine.send("stop")
        self.engine.send("isready")
        self.readyok += 1
        self.engine.wait_count("readyok", self.readyok, timeout=30)
        got = [x for x in self.engine.lines if x.startswith(("checkmate", "bestmove"))]
        assert len(got) == len(self.gos), (got, self.gos)
        for answer, (kind, position, klass, verdict, and_root) in zip(got, self.gos):
            self._check(answer, kind, position, klass, verdict, and_root)

    def _check(self, answer, kind, position, klass, verdict, and_root) -> None:
        assert answer.startswith("checkmate" if kind == "mate" else "bestmove"), answer
        if klass != "good":
            assert answer in ("checkmate timeout", "bestmove resign"), (answer, position)
            return
        word = answer.split()[1]
        if kind == "mate" and word == "nomate":
            assert verdict == "nomate", (answer, position)
        elif kind == "mate" and word not in ("timeout",):
            moves = answer.split()[1:]
            board = _board(position)
            and_node = and_root and board.is_check()
            assert moves, (answer, position)
            assert check_mate_line(board.sfen(), moves, and_root=and_node) is None, (
                answer,
                position,
            )
        elif kind == "analysis" and word != "resign":
            board = _board(position)
            defending = and_root and board.is_check()
            legal = {cshogi.move_to_usi(m): m for m in board.legal_moves}
            assert word in legal, (answer, position)
            board.push(legal[word])
            assert defending or board.is_check(), (answer, position)

    def teardown(self):
        try:
            if self.engine.proc.poll() is None:
                self._sync()
                self.engine.send("quit")
                self.engine.proc.wait(timeout=10)
                assert self.engine.proc.returncode == 0
        finally:
            self.engine.proc.kill()


_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much]

TestHostileGui = HostileGui.TestCase
TestHostileGui.settings = settings(
    max_examples=25, stateful_step_count=50, deadline=None, derandomize=True,
    suppress_health_check=_HEALTH,
)  # fmt: skip


class SlowHostileGui(HostileGui):
    pass


TestHostileGuiSlow = pytest.mark.slow(SlowHostileGui.TestCase)
TestHostileGuiSlow.settings = settings(
    max_examples=400, stateful_step_count=100, deadline=None, derandomize=False,
    suppress_health_check=_HEALTH,
)  # fmt: skip
