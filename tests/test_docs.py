"""Every fenced code block of README.md and docs/*.md runs as a test (issue 46 item 2).

One test a block, named by file and line (``README.md:191``). What each kind of block runs,
how shown output is compared and the markers that keep a block from running
(``<!-- doc-test: skip (needs shtsume) -->``, ``slow``, ``output of ...``,
``synopsis of ...``) are in scripts/doc_blocks.py; USI sessions are replayed by
scripts/usi_transcript.py, which also writes them afresh. A block of no kind the test can
run, and without a marker, fails: a new example either runs or says why not.

The commands run in a scratch folder that links every top-level entry of the checkout, so
they see it as from its root (``problems/zukou.sfen``, ``python -m scripts.perft``) and the
files they write (``--output checked.kif``) stay out of it. ``usi_mate`` is linked only when
the package under test is this checkout's (an editable install, ``pip install -e .``);
otherwise the installed one is used, as from any other folder.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from doc_blocks import REPO_ROOT, Block, all_blocks, output_matches
from usi_transcript import run_block

import usi_mate

TIMEOUT = 300  # seconds for one command; the default run's blocks take a second or less
# The usi-mate commands; anything else (pip install, git, dask) is shown, not run.
RUNNABLE = re.compile(r"(?:usi-mate|python -m usi_mate|python -m scripts\.|pytest)\b")
# What may feed a usi-mate command through a pipe: head -3 file | usi-mate solve -
FEEDERS = re.compile(r"(?:head|cat|printf|echo)\b")
ASSIGNMENT = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*")
EXIT_COMMENT = re.compile(r"\bexit (?:status )?(\d+)\b")
CHECKOUT_PACKAGE = Path(usi_mate.__file__).resolve().parent == REPO_ROOT / "usi_mate"

BLOCKS = all_blocks()


def _param(block: Block):
    marker = block.marker_kind
    marks = [pytest.mark.slow] if marker and marker[0] == "slow" else []
    return pytest.param(block, id=block.id, marks=marks)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder that sees the checkout as its root (see the module's docstring)."""
    for entry in REPO_ROOT.iterdir():
        if entry.name == ".git" or (entry.name == "usi_mate" and not CHECKOUT_PACKAGE):
            continue
        try:
            (tmp_path / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        except OSError as e:  # Windows without the symlink privilege
            pytest.skip(f"cannot link the checkout's entries into a scratch folder: {e}")
    return tmp_path


def _environment(folder: Path) -> dict[str, str]:
    """``python`` and ``usi-mate`` as this interpreter's, first on PATH."""
    bin_dir = folder / ".doc-test-bin"
    bin_dir.mkdir(exist_ok=True)
    shims = {"python": f'exec "{sys.executable}" "$@"'}
    if not (Path(sys.executable).parent / "usi-mate").exists():
        shims["usi-mate"] = f'exec "{sys.executable}" -m usi_mate "$@"'
    for name, body in shims.items():
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\n{body}\n")
        shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "USI_MATE_PROBLEMS"}
    path = [str(bin_dir), str(Path(sys.executable).parent), env.get("PATH", "")]
    env.update(PATH=os.pathsep.join(path), PYTHONIOENCODING="utf-8")
    return env


def _run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=folder,
        env=_environment(folder),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        check=False,
    )


def _mismatch(what: str, shown: list[str], actual: list[str]) -> str:
    return (
        f"{what}: the output differs from the doc's. The doc shows:\n"
        + "\n".join(shown)
        + "\n--- the run printed:\n"
        + "\n".join(actual)
    )


# --- shell blocks ------------------------------------------------------------------------


def _split_outside_quotes(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` where it is outside quotes; a ``#`` after a blank,
    outside quotes, ends the text (a comment) when ``separator`` is ``"#"``: then the code
    and the comment are returned."""
    parts, start, quote, i = [], 0, "", 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif text.startswith(separator, i) and (
            separator != "#" or i == 0 or text[i - 1].isspace()
        ):
            parts.append(text[start:i])
            start = i + len(separator)
            if separator == "#":
                break
            i = start
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _complete(text: str) -> bool:
    """Whether a command line is whole: no continuation backslash, no open quote."""
    if text.rstrip().endswith("\\"):
        return False
    try:
        shlex.split(_split_outside_quotes(text, "#")[0])
    except ValueError:  # "No closing quotation"
        return False
    return True


def _runnable(step: str) -> bool:
    step = ASSIGNMENT.sub("", step.strip())
    if RUNNABLE.match(step):
        return True
    stages = _split_outside_quotes(step, "|")
    return (
        len(stages) > 1
        and FEEDERS.match(stages[0].strip()) is not None
        and all(RUNNABLE.match(stage.strip()) for stage in stages[1:])
    )


@dataclass
class Command:
    text: str  # as shown, continuation lines included
    status: int = 0  # the exit status it must have
    output: list[str] | None = None  # shown output (blocks with "$ " lines)
    steps: list[str] = field(default_factory=list)  # what is run

    def __post_init__(self) -> None:
        code = _split_outside_quotes(self.text, "#")[0]
        self.steps = [s.strip() for s in _split_outside_quotes(code, "&&") if _runnable(s)]


def shell_commands(block: Block) -> list[Command]:
    """A shell block's commands with what the doc says of each (see doc_blocks)."""
    console = any(line.startswith("$ ") for line in block.lines)
    commands: list[Command] = []
    pending = ""
    for line in block.lines:
        if pending:
            pending += "\n" + line
        elif console and line.startswith("$ "):
            pending = line[2:]
        elif console:
            if commands and commands[-1].output is not None:
                commands[-1].output.append(line)
            continue
        elif line.strip() and not line.lstrip().startswith("#"):
            pending = line
        else:
            continue
        if not _complete(pending):
            continue
        if console and pending.strip() == "echo $?":
            commands.append(Command("echo $?", output=[]))
        else:
            comment = _split_outside_quotes(pending, "#")[1:]
            status = EXIT_COMMENT.search(comment[0]) if comment and not console else None
            commands.append(
                Command(pending, int(status[1]) if status else 0, [] if console else None)
            )
        pending = ""
    assert not pending, f"{block.id}: a command that does not end: {pending!r}"
    # "$ echo $?" and the number after it: the exit status of the command before.
    for i, command in enumerate(commands):
        if command.text == "echo $?":
            shown = [line for line in command.output or [] if line.strip()]
            assert i > 0 and len(shown) == 1, f"{block.id}: 'echo $?' needs one number after it"
            commands[i - 1].status = int(shown[0])
    return [command for command in commands if command.text != "echo $?"]


def run_shell_block(block: Block, folder: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash to run the commands with")
    commands = shell_commands(block)
    if not any(command.steps for command in commands):
        pytest.fail(
            f"{block.id}: no usi-mate command to run; mark the block "
            "(<!-- doc-test: skip (REASON) --> or <!-- doc-test: output of COMMAND -->)"
        )
    for command in commands:
        if not command.steps:
            continue
        done = _run(["bash", "-c", " && ".join(command.steps)], folder)
        printed = done.stdout.splitlines()
        assert done.returncode == command.status, (
            f"{block.id}: {command.text!r} exited with {done.returncode}, "
            f"the doc says {command.status}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
        if command.output is not None and any(line.strip() for line in command.output):
            assert output_matches(command.output, printed), _mismatch(
                f"{block.id}: {command.text}", command.output, printed
            )


# --- Python blocks -----------------------------------------------------------------------


def run_python_block(block: Block, folder: Path) -> None:
    script = folder / "doc_block.py"
    script.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
    done = _run([sys.executable, script.name], folder)
    assert done.returncode == 0, f"{block.id} fails as pasted:\n{done.stderr[-3000:]}"
    # The comments that end the block are its output.
    code = [line for line in block.lines if line.strip()]
    shown: list[str] = []
    while code and code[-1].startswith("#"):
        shown.insert(0, code.pop()[1:].removeprefix(" "))
    if shown:
        printed = done.stdout.splitlines()
        assert output_matches(shown, printed), _mismatch(block.id, shown, printed)


# --- other markers -----------------------------------------------------------------------


def check_synopsis(block: Block, command: str, folder: Path) -> None:
    """Every option the synopsis shows is one the command knows."""
    done = _run(["bash", "-c", command], folder)
    assert done.returncode == 0, done.stderr
    known = set(re.findall(r"--[\w-]+", done.stdout))
    shown = set(re.findall(r"--[\w-]+", "\n".join(block.lines)))
    assert shown <= known, f"{block.id}: not options of {command}: {sorted(shown - known)}"


@pytest.mark.parametrize("block", [_param(block) for block in BLOCKS])
def test_block(block: Block, checkout: Path) -> None:
    marker = block.marker_kind
    if marker is not None:
        kind, argument = marker
        if kind == "skip":
            pytest.skip(argument)
        if kind == "output of":
            pytest.skip(f"the output of {argument}")
        if kind == "synopsis of":
            check_synopsis(block, argument, checkout)
            return
    if block.kind == "python":
        run_python_block(block, checkout)
    elif block.kind == "shell":
        run_shell_block(block, checkout)
    elif block.kind == "usi":
        engine = [sys.executable, "-m", "usi_mate"]
        matches, fresh = run_block(block, engine, cwd=checkout)
        shown = [line for line in block.lines if line.strip()]
        assert matches, _mismatch(
            f"{block.id} (python -m scripts.usi_transcript --update {block.id.split(':')[0]})",
            shown,
            fresh,
        )
    else:
        pytest.fail(
            f"{block.id}: a block the test cannot run; mark it (<!-- doc-test: output of "
            "COMMAND -->, <!-- doc-test: skip (REASON) -->, ...)"
        )


def test_markers_say_why() -> None:
    """Every marker is a known one, and every skip and output block says why."""
    for block in BLOCKS:
        marker = block.marker_kind  # raises on an unknown marker
        if marker is not None and marker[0] != "slow":
            assert marker[1], f"{block.id}: '{marker[0]}' needs a reason or a command"


def test_shown_output_rules() -> None:
    """What a shown line stands for (scripts/doc_blocks.py)."""
    shown = ["mate 5   376 nodes   0.000 s  ok", "  ... (two more)", "info time 3 nodes 9"]
    assert output_matches(shown, ["mate 5     376 nodes  12.500 s  ok", "info time 1000 nodes 9"])
    assert output_matches(shown, ["mate 5 376 nodes 0.1 s ok", "a", "b", "info time 0 nodes 9"])
    assert not output_matches(shown, ["mate 5 377 nodes 0.000 s ok", "info time 3 nodes 9"])
    assert not output_matches(shown, ["mate 5 376 nodes 0.000 s ok", "info time 3 nodes 10"])
    assert output_matches(shown, ["mate 5 376 nodes 0 s ok", "info time 3 nodes 10"], True)
    assert output_matches(["a ... z"], ["a b c z"])
    assert not output_matches(["a"], ["a", "b"])
