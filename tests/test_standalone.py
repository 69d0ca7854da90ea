"""The standalone engine file (scripts.build_standalone) driven over USI as a GUI does.

Marked slow and skipped unless the file exists: build it first, then

    python -m scripts.build_standalone           # -> dist/usi-mate
    pytest -m slow tests/test_standalone.py

USI_MATE_STANDALONE=<path> names another file (e.g. a release download). The file runs
with no PYTHONPATH, as a GUI starts it; it must not need this checkout or any Python.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_usi_process import HARD, MATE_IN_1, TIMEOUT, Engine

import usi_mate
from usi_mate.options import OPTIONS

ROOT = Path(__file__).resolve().parent.parent
EXE = "usi-mate.exe" if sys.platform == "win32" else "usi-mate"
# One file (the default build), then the --onedir build's folder.
CANDIDATES = [ROOT / "dist" / EXE, ROOT / "dist" / "usi-mate" / EXE]
FUTILE_MATE_IN_3 = "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1"  # README, issue #162


def _standalone() -> Path | None:
    if os.environ.get("USI_MATE_STANDALONE"):
        return Path(os.environ["USI_MATE_STANDALONE"])
    return next((p for p in CANDIDATES if p.is_file()), None)


STANDALONE = _standalone()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        STANDALONE is None or not STANDALONE.is_file(),
        reason=(
            f"no standalone engine at {STANDALONE}"
            if STANDALONE
            else "standalone engine not built: run `python -m scripts.build_standalone`"
            " (dist/usi-mate) or set USI_MATE_STANDALONE=<path>"
        ),
    ),
]


@pytest.fixture
def engine():
    e = Engine([str(STANDALONE)])
    try:
        yield e
    finally:
        e.kill()


def test_gui_session(engine):
    # What ShogiGUI, Shogidokoro and ShogiHome send: register, every option, search, quit.
    engine.send("usi")
    engine.wait_count("usiok", 1, timeout=30)  # a one-file build unpacks itself first
    lines = engine.lines[: engine.lines.index("usiok") + 1]
    assert lines[0] == f"id name usi-mate {usi_mate.__version__}"
    assert [x for x in lines if x.startswith("option ")] == [o.usi_line() for o in OPTIONS]
    engine.send_every_option({"USI_Hash": "64", "PvInterval": "200"})
    engine.send("isready")
    engine.wait_count("readyok", 1)
    engine.send("usinewgame")
    engine.send(f"position sfen {FUTILE_MATE_IN_3}")
    engine.send("go mate 30000")
    engine.wait_count("checkmate", 1)
    assert engine.lines[-1] == "checkmate 3d1d 1c1d 3f3c+"
    assert any(
        x.startswith("info ") and " score mate 3 pv 3d1d 1c1d 3f3c+" in x for x in engine.lines
    )
    engine.send(f"position sfen {MATE_IN_1}")
    engine.send("go mate 1000")
    engine.wait_count("checkmate", 2)
    assert engine.lines[-1] == "checkmate G*5b"
    engine.send("quit")
    assert engine.wait_exit() == 0
    # (info strings say what the answer is; none may report an error)
    assert not [x for x in engine.lines if x.startswith("info string") and "error" in x]
    assert b"".join(engine.stderr) == b""


def test_quit_ends_a_running_search(engine):
    # ShogiHome ends a mate search with quit and kills the engine 5 s later.
    engine.send("setoption name USI_Hash value 64")
    engine.send("setoption name PvInterval value 100")
    engine.send("isready")
    engine.wait_count("readyok", 1, timeout=30)
    engine.send(f"position sfen {HARD}")
    engine.send("go mate infinite")
    engine.wait_count("info time", 2)
    engine.send("quit")
    assert engine.wait_exit() == 0  # (the search has no end of its own: quit ended it)


def test_version_and_batch_workers():
    out = subprocess.run(
        [str(STANDALONE), "--version"], capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert (out.returncode, out.stdout.strip()) == (0, f"usi-mate {usi_mate.__version__}")
    # `solve --jobs 2` starts worker processes with the spawn method, which in a frozen
    # program re-runs the executable (multiprocessing.freeze_support in the entry point).
    out = subprocess.run(
        [str(STANDALONE), "solve", FUTILE_MATE_IN_3, MATE_IN_1, "--jobs", "2", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "3d1d 1c1d 3f3c+" in out.stdout
    assert "G*5b" in out.stdout
