"""Measure how fast the USI engine reacts to `stop`, `quit` and `isready` during a search.

GUIs depend on these: ShogiHome ends a mate search with `quit` and kills the engine 5 s
later; analysis modes send `stop` and wait for the answer before the next `go`. Each run
starts the engine as a GUI does (`python -m usi_mate`), sets `USI_Hash 1024`, searches a
position that is not solved within seconds with `go mate infinite`, and after ~2 s sends
the command under test, timing from the write to the reaction seen on the pipe:

- isready (1024 MB): `isready` -> `readyok` before the search (allocates the table);
- isready mid-search: `isready` -> `readyok` while the search runs;
- stop: `stop` -> the `checkmate` line;
- quit: `quit` -> process exit.

Usage: python scripts/usi_latency.py [--runs 3] [--hash 1024] [--search-seconds 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HARD = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"
REPO = Path(__file__).resolve().parent.parent
# The usi_mate that this Python imports (an in-place build in the checkout, or the
# installed package): child processes must import the same one.
PACKAGE_ROOT = str(Path(importlib.util.find_spec("usi_mate").origin).resolve().parent.parent)


class Engine:
    """The engine process; each output line is stamped with its arrival time."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "usi_mate"],
            cwd=PACKAGE_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), line.rstrip("\n")))

    def send(self, line: str) -> float:
        """Write a command; returns the time it was written."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return time.perf_counter()

    def wait_for(self, prefix: str, timeout: float = 30.0) -> float:
        """Arrival time of the next line starting with ``prefix``."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no {prefix!r} within {timeout} s")
            try:
                t, line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line.startswith(prefix):
                return t

    def start_search(self, hash_mb: int, search_seconds: float) -> float:
        """Set up as ShogiHome does and search; returns the isready latency."""
        self.send("usi")
        self.wait_for("usiok")
        self.send(f"setoption name USI_Hash value {hash_mb}")
        self.send("setoption name PvInterval value 1000")
        sent = self.send("isready")
        ready = self.wait_for("readyok") - sent
        self.send("usinewgame")
        self.send(f"position sfen {HARD}")
        self.send("go mate infinite")
        time.sleep(search_seconds)
        return ready

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def measure(runs: int, hash_mb: int, search_seconds: float) -> dict[str, list[float]]:
    """Latencies in seconds, by measure name."""
    results: dict[str, list[float]] = {
        f"isready ({hash_mb} MB table)": [],
        "isready mid-search": [],
        "stop -> checkmate": [],
        "quit -> exit": [],
    }
    names = list(results)
    for _ in range(runs):
        engine = Engine()
        try:
            results[names[0]].append(engine.start_search(hash_mb, search_seconds))
            sent = engine.send("isready")
            results[names[1]].append(engine.wait_for("readyok") - sent)
            sent = engine.send("stop")
            results[names[2]].append(engine.wait_for("checkmate") - sent)
            engine.send("quit")
            engine.proc.wait(10)
        finally:
            engine.kill()
        engine = Engine()
        try:
            engine.start_search(hash_mb, search_seconds)
            sent = engine.send("quit")
            engine.proc.wait(10)
            results[names[3]].append(time.perf_counter() - sent)
        finally:
            engine.kill()
    return results


def main() -> None:
    """Run the measurements and print a table (milliseconds)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hash", type=int, default=1024, help="USI_Hash in MB")
    parser.add_argument("--search-seconds", type=float, default=2.0)
    args = parser.parse_args()
    results = measure(args.runs, args.hash, args.search_seconds)
    print(
        f"USI latency, {args.runs} runs, USI_Hash {args.hash}, "
        f"after {args.search_seconds:g} s of go mate infinite"
    )
    print(f"{'measure':<26} {'min ms':>8} {'median ms':>10} {'max ms':>8}")
    for name, values in results.items():
        ms = [v * 1000 for v in values]
        print(f"{name:<26} {min(ms):8.1f} {statistics.median(ms):10.1f} {max(ms):8.1f}")


if __name__ == "__main__":
    main()
