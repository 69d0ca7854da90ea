#!/usr/bin/env python3
"""Build the standalone engine: one file a shogi GUI registers, with no Python needed.

    pip install -e ".[standalone]"            # usi-mate, built in place, and PyInstaller
    python -m scripts.build_standalone        # -> dist/usi-mate (usi-mate.exe on Windows)

The file holds a Python interpreter, the compiled core and the engine (PyInstaller
one-file mode), so `usi-mate.exe` alone is what a GUI user downloads and registers.
It is built from the usi_mate that this Python imports, for this OS and CPU only. From
the checkout root (``-m``) that is the checkout's own, which must then be built in place
(``pip install -e``); after a plain ``pip install .`` run the file instead
(``python scripts/build_standalone.py``), which keeps the unbuilt source tree off the
import path: the release workflow does that, once per OS (.github/workflows/wheels.yml).

After building, the script runs scripts.smoke on the file (--version and one
`go mate` over stdin) and measures its start-up: the time from launching the process
to `usiok` after sending `usi`, the wait a GUI sees when it registers or starts the
engine (median of --startup-runs launches, the first one included: a one-file build
unpacks itself into a temporary folder on every start).

--onedir builds a folder (dist/usi-mate/ with the executable and an _internal/
folder beside it) instead: it starts faster, since nothing is unpacked, but the user
must keep the folder together.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "usi-mate"

# The frozen program's entry point. freeze_support() first: `usi-mate solve --jobs N`
# starts its workers with multiprocessing's spawn method, which in a frozen program
# re-runs this executable, and that call turns such a run into the worker.
ENTRY = """\
import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from usi_mate.cli import main

    sys.exit(main())
"""

# Standard-library packages the engine never imports that PyInstaller would still
# find through optional imports; leaving them out keeps the file small.
EXCLUDES = ["tkinter", "unittest", "pydoc", "doctest", "xmlrpc", "lib2to3", "sqlite3"]


def find_package() -> Path:
    """The usi_mate package to freeze: the one this Python imports, with its compiled core."""
    spec = importlib.util.find_spec("usi_mate")
    if spec is None or spec.origin is None:
        sys.exit('usi_mate is not importable: pip install -e ".[standalone]" first')
    pkg = Path(spec.origin).parent
    if importlib.util.find_spec("usi_mate._core") is None:
        sys.exit(f"{pkg} has no compiled usi_mate._core: pip install -e . or build_ext --inplace")
    return pkg


def build(onedir: bool, dist: Path) -> Path:
    try:
        import PyInstaller.__main__ as pyinstaller
    except ImportError:
        sys.exit('PyInstaller is missing: pip install -e ".[standalone]"')
    pkg = find_package()
    print(f"freezing usi_mate from {pkg}", flush=True)
    with tempfile.TemporaryDirectory(prefix="usi-mate-standalone-") as tmp:
        entry = Path(tmp) / "usi_mate_engine.py"
        entry.write_text(ENTRY, encoding="utf-8")
        args = [
            str(entry),
            f"--name={NAME}",
            "--onedir" if onedir else "--onefile",
            "--console",  # USI is stdin/stdout; GUIs start engines without a window
            "--noconfirm",
            "--clean",
            "--log-level=WARN",
            # Strip symbol tables (Linux, macOS): 19.7 MB -> 8.7 MB on Linux (measured),
            # less to unpack at every start; nothing to strip on Windows.
            *(["--strip"] if sys.platform != "win32" else []),
            f"--distpath={dist}",
            f"--workpath={Path(tmp) / 'work'}",
            f"--specpath={tmp}",  # the generated .spec is a build output, not source
            # usi_mate.batch is imported with importlib (cli.py), which the analysis
            # cannot follow; take every submodule.
            "--collect-submodules=usi_mate",
        ]
        args.append(f"--paths={pkg.parent}")  # where the analysis finds the same usi_mate
        args += [f"--exclude-module={m}" for m in EXCLUDES]
        pyinstaller.run(args)
    exe = NAME + (".exe" if sys.platform == "win32" else "")
    return dist / NAME / exe if onedir else dist / exe


def startup_seconds(exe: Path) -> float:
    """Seconds from launching exe to reading `usiok` after sending `usi`."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    try:
        proc.stdin.write("usi\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if line.strip() == "usiok":
                elapsed = time.perf_counter() - start
                break
        else:
            raise RuntimeError(f"{exe} ended without usiok")
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return elapsed


def size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build the standalone usi-mate engine file.")
    ap.add_argument("--onedir", action="store_true", help="a folder instead of one file")
    ap.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (dist/)")
    ap.add_argument("--no-smoke", action="store_true", help="skip scripts.smoke")
    ap.add_argument("--startup-runs", type=int, default=10, help="start-up launches (10)")
    args = ap.parse_args(argv)

    exe = build(args.onedir, args.dist.resolve())
    shipped = exe.parent if args.onedir else exe
    print(f"built {exe}: {size_of(shipped) / 1e6:.1f} MB{' (folder)' if args.onedir else ''}")
    if not args.no_smoke:
        # The file, not -m: sys.path then starts at scripts/, never at an unbuilt source tree.
        smoke = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "smoke.py"), str(exe)], check=False
        )
        if smoke.returncode:
            return smoke.returncode
    if args.startup_runs > 0:
        times = [startup_seconds(exe) for _ in range(args.startup_runs)]
        print(
            f"start-up, launch to usiok: median {statistics.median(times) * 1000:.0f} ms,"
            f" min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
            f" ({len(times)} launches)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
