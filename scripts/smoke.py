#!/usr/bin/env python3
"""Smoke test of an installed or standalone usi-mate: the checks a release must pass.

    python -m scripts.smoke                         # the usi-mate command on PATH
    python -m scripts.smoke dist/usi-mate/usi-mate  # a standalone engine file
    python -m scripts.smoke python -m usi_mate      # any command line

Runs `<engine> --version`, then one GUI session over stdin (usi, isready, position,
go mate, quit) on YaneuraOu issue #162's mate in 3 and checks the answer: three moves
that mate, futile interpositions left out (checked with usi_mate when it can be
imported, else against the known line).
cibuildwheel runs it after installing each wheel (pyproject.toml, test-command) and
the release workflow runs it on the sdist's install and on each standalone engine, as
the file (``python scripts/smoke.py``): it imports nothing from the checkout, and
sys.path then starts at scripts/, so an unbuilt source tree never shadows the package
under test. Prints the session and exits non-zero on any failure; every wait has a
timeout.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import sys
import threading
import time

SFEN = "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1"
KNOWN_LINE = ["3d1d", "1c1d", "3f3c+"]
TIMEOUT = 60  # seconds; a first start of a one-file build on a slow CI runner takes ~1 s


def fail(message: str) -> None:
    sys.exit(f"smoke test FAILED: {message}")


def check_line(moves: list[str]) -> None:
    if len(moves) != 3:
        fail(f"expected a mate in 3, got {moves}")
    try:
        from usi_mate import Position
        from usi_mate.verify import only_futile_replies
    except ImportError:
        if moves != KNOWN_LINE:
            fail(f"expected {' '.join(KNOWN_LINE)}, got {' '.join(moves)}")
        return
    pos = Position(SFEN)
    for move in moves:
        pos.push_usi(move)  # raises ValueError on an illegal move
    # The line ends where the defender has only futile interpositions (the engine's
    # default count, IgnoreFutileInterpositions): a mate by the composers' rule.
    if not (pos.is_mate() or only_futile_replies(pos.sfen())):
        fail(f"{' '.join(moves)} does not end in mate")


def main(argv: list[str]) -> int:
    engine = argv or [shutil.which("usi-mate") or fail("usi-mate is not on PATH")]
    version = subprocess.run(
        [*engine, "--version"], capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    print(f"$ {' '.join(engine)} --version\n{version.stdout.strip()}")
    if version.returncode != 0 or not version.stdout.startswith("usi-mate "):
        fail(f"--version: exit {version.returncode}, stderr {version.stderr!r}")

    # A GUI's order: quit only after the answer (quit during a search stops it).
    proc = subprocess.Popen(
        engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)  # end of output

    threading.Thread(target=read, daemon=True).start()
    seen: list[str] = []

    def send(command: str) -> None:
        print(f"> {command}", flush=True)
        proc.stdin.write(command + "\n")
        proc.stdin.flush()

    def wait_for(prefix: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not (seen and seen[-1].startswith(prefix)):
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                fail(f"no {prefix!r} within {TIMEOUT} s")
            if line is None:
                fail(f"the engine ended before {prefix!r} (exit {proc.wait()})")
            seen.append(line.rstrip("\r\n"))
            print(f"< {seen[-1]}", flush=True)

    try:
        send("usi")
        wait_for("usiok")
        send("isready")
        wait_for("readyok")
        send(f"position sfen {SFEN}")
        send("go mate 30000")
        wait_for("checkmate")
        send("quit")
        code = proc.wait(TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read()
    print(f"(exit code {code})")
    if code != 0 or stderr:
        fail(f"exit {code}, stderr {stderr!r}")
    check_line(seen[-1].split()[1:])
    print("smoke test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
