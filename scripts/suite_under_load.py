#!/usr/bin/env python3
"""Run the test suite beside CPU hogs, several times in a row: no test may depend on speed.

    python -m scripts.suite_under_load                  # 5 runs of `pytest -n auto -q`, 2 hogs
    python -m scripts.suite_under_load --runs 1 --hogs 4 -- tests/test_hostile.py

Each hog is a Python process spinning on one core, started before the first run and
killed after the last, so every run of the suite shares the machine with them (on 2
cores and 2 hogs, the suite gets about half of what it gets alone). Whatever follows
`--` is handed to pytest in place of the default arguments (`-n auto -q`). Prints one
line a run (passed or failed, its time, pytest's summary line) and the names of the
failed tests, and exits 1 if any run failed. It is the check that a change to a test's
waiting cannot make the suite flaky on a busy machine (CI runs right after a session,
possibly beside other work).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time

HOG = "while True: pass"


def start_hogs(count: int) -> list[subprocess.Popen]:
    """``count`` processes that each keep one core busy until killed."""
    return [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]


def run_suite(pytest_args: list[str], log: str | None = None) -> tuple[bool, float, str, list[str]]:
    """One run of pytest: (passed, seconds, its summary line, the failed tests' ids, each
    with pytest's one-line reason)."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_args, "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - start
    if log is not None:
        with open(log, "w", encoding="utf-8") as f:
            f.write(proc.stdout + proc.stderr)
    lines = proc.stdout.splitlines()
    summary = next((x for x in reversed(lines) if re.search(r"\b(passed|failed|error)", x)), "")
    failed = [x.split(" ", 1)[1] for x in lines if x.startswith(("FAILED ", "ERROR "))]
    return proc.returncode == 0, seconds, summary.strip("= "), failed


def main(argv: list[str] | None = None) -> int:
    """Run the suite ``--runs`` times beside ``--hogs`` busy processes; 1 if any run failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of the suite (default 5)")
    parser.add_argument("--hogs", type=int, default=2, help="busy processes (default 2)")
    parser.add_argument(
        "--logs", metavar="DIR", help="keep each run's whole pytest output in DIR/run-N.txt"
    )
    parser.add_argument("pytest_args", nargs="*", help="pytest's arguments (after --)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.hogs < 0:
        parser.error("--runs must be at least 1 and --hogs at least 0")
    pytest_args = args.pytest_args or ["-n", "auto", "-q"]
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)
    # A shell starts a background job with SIGINT ignored, and its children inherit
    # that: Python then leaves Ctrl-C ignored, and the tests of Ctrl-C cannot pass.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    hogs = start_hogs(args.hogs)
    failures = 0
    try:
        for run in range(1, args.runs + 1):
            log = os.path.join(args.logs, f"run-{run}.txt") if args.logs else None
            ok, seconds, summary, failed = run_suite(pytest_args, log)
            failures += not ok
            verdict = "passed" if ok else "FAILED"
            print(f"run {run}/{args.runs}: {verdict} in {seconds:.0f} s ({summary})", flush=True)
            for name in failed:
                print(f"    {name}", flush=True)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    hogs_said = f"{args.hogs} busy process" + ("" if args.hogs == 1 else "es")
    print(f"{args.runs - failures} of {args.runs} runs passed beside {hogs_said}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
