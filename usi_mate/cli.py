"""The ``usi-mate`` command: the USI engine that GUIs launch, plus subcommands.

``usi-mate`` with no arguments speaks USI on stdin/stdout (what ShogiGUI, Shogidokoro and
ShogiHome run). ``usi-mate solve ...`` is the batch solver (:mod:`usi_mate.batch`),
``usi-mate check ...`` the composer's check (:mod:`usi_mate.check_cli`).
``--version`` and ``--help`` are the only top-level flags, so a GUI that starts the
engine without arguments always gets the USI loop.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import os
import sys
import threading

from . import __version__
from ._core import SEARCH_THREAD_STACK

_DESCRIPTION = """\
A tsume-shogi (mate problem) engine.

Without arguments, usi-mate is a USI engine: it reads commands on stdin and answers on
stdout. Register this command in a GUI (ShogiGUI, Shogidokoro, ShogiHome) as a USI
engine; the GUI sends `go mate <ms>` or `go mate infinite` and reads `checkmate ...`.
"""

_EPILOG = """\
subcommands:
  usi-mate solve ...   solve positions in batch (see `usi-mate solve --help`)
  usi-mate check ...   check problems for cooks, variations and spare pieces
                       (see `usi-mate check --help`)

example session (type the lines marked >):
  > usi
  > isready
  > position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1
  > go mate 1000
  checkmate G*5b
  > quit
"""


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``usi-mate``; returns the process exit code."""
    # Stack reserved for each thread started from here on: the USI search thread and the
    # in-process batch worker. The search recurses once per ply in C++ (Solver::mid, 2.6
    # KB a frame with GCC 12; paths are cut at 4000 plies, 10.6 MB), and the default a
    # thread gets is the platform's: 1 MB for a Windows program linked with MSVC's default
    # /STACK, RLIMIT_STACK (usually 8 MB) on Linux. zukou-100 (611 plies) crashed the
    # engine with 1 MB (tests/test_usi_process.py). SEARCH_THREAD_STACK (64 MB, the core's
    # own helper threads get the same: csrc/search_thread.h) is address space reserved,
    # not memory used: pages are committed only as deep as the search goes.
    threading.stack_size(SEARCH_THREAD_STACK)
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "solve":
        return _solve(args[1:])
    if args and args[0] == "check":
        return _subcommand("usi_mate.check_cli", "composer's check", args[1:])
    parser = argparse.ArgumentParser(
        prog="usi-mate",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"usi-mate {__version__}")
    parser.parse_args(args)
    return _usi_loop()


def _solve(args: list[str]) -> int:
    return _subcommand("usi_mate.batch", "batch solver", args)


def _subcommand(module: str, name: str, args: list[str]) -> int:
    # Imported lazily: each subcommand is a separate module (and may not be installed
    # yet in a development checkout); the USI loop must never depend on it.
    if importlib.util.find_spec(module) is None:
        print(
            f"usi-mate: the {name} ({module}) is not available in this installation",
            file=sys.stderr,
        )
        return 2
    code = importlib.import_module(module).main(args)
    return 0 if code is None else int(code)


def _usi_loop() -> int:
    from .usi import run

    # Decode stdin as UTF-8 with replacement: a GUI on a Japanese Windows may send a
    # Shift-JIS path in a string option, and a decoding error must not end the engine.
    # utf-8-sig drops a byte-order mark before the first command (the engine drops one
    # anywhere too). Universal newlines accept the CRLF that Windows GUIs send.
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="replace")
    stdout = sys.stdout
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(encoding="utf-8", errors="backslashreplace", line_buffering=True)
    try:
        run(stdin, stdout)
    except KeyboardInterrupt:
        pass  # Ctrl-C in a terminal: leave like quit
    try:
        stdout.flush()
    except (OSError, ValueError):
        pass
    if any(t.daemon and t.is_alive() for t in threading.enumerate()):
        # A search thread that did not stop within quit's 100 ms wait is still inside the
        # native solver; exiting now is faster and safer than interpreter teardown
        # racing that thread.
        os._exit(0)
    return 0
