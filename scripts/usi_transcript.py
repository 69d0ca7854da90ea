"""Run a scripted USI session against the `usi-mate` engine and print it as a transcript.

Lines sent to the engine are shown with '> ', engine output with '< '. Used to keep
the example session in README.md true: paste what this prints.

    python -m scripts.usi_transcript
    python -m scripts.usi_transcript dist/usi-mate    # another engine (the standalone file)
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

SESSION = [
    ("usi", "usiok"),
    ("setoption name USI_Hash value 256", None),
    ("setoption name PvInterval value 1000", None),
    ("isready", "readyok"),
    ("usinewgame", None),
    # YaneuraOu issue #162: a mate in 3 that solvers counting futile drops report as 7.
    ("position sfen 9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1", None),
    ("go mate 10000", "checkmate"),
    ("setoption name IgnoreFutileInterpositions value false", None),
    ("go mate 10000", "checkmate"),
    ("setoption name IgnoreFutileInterpositions value true", None),
    ("position sfen 4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1", None),
    ("go mate 10000", "checkmate"),
    ("position sfen 4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1", None),
    ("go mate 2500", "checkmate"),
    ("setoption name USI_Hash value abc", None),
    ("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1 moves 5c5d", None),
    ("hello", None),
    ("quit", None),
]


def main(engine: list[str]) -> int:
    proc = subprocess.Popen(
        engine or [sys.executable, "-m", "usi_mate"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def reader() -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    for command, wait_for in SESSION:
        print(f"> {command}")
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + (30 if wait_for else 0.3)
        while True:
            try:
                line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            print(f"< {line}")
            if wait_for and line.startswith(wait_for):
                break
    code = proc.wait(timeout=10)
    print(f"(exit code {code})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
