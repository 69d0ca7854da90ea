"""Replay the USI sessions the docs show against the engine, and print or write the fresh ones.

A session is a fenced block of README.md or docs/*.md in lines ``> command`` (sent to the
engine) and ``< answer`` (received), and may end with ``(exit code N)``, the engine's exit
status once its input has ended (after the last command, the end of input: as ``quit``,
but a search with a limit answers first). The block is the script:
its commands are sent one by one, and after each one the replay waits for what the block
shows after it: up to the answer that ends it (``usiok``, ``readyok``, ``checkmate``,
``bestmove``), or up to a line like the last one shown when the block leaves lines out
(``...``), or else as many lines as it shows (``go mate infinite`` waits for its first
progress line before the ``stop`` that follows). tests/test_docs.py replays every session
and compares the engine's lines with the block's (numbers that vary excepted:
scripts/doc_blocks.py); this prints them, or writes them in.

    python -m scripts.usi_transcript                     # README.md's example session
    python -m scripts.usi_transcript docs/USI.md         # every session in docs/USI.md
    python -m scripts.usi_transcript --engine dist/usi-mate   # another engine (the standalone file)
    python -m scripts.usi_transcript --update README.md docs/USI.md   # write stale ones in

``--update`` rewrites a block only when the engine's lines no longer match it, and then in
full: shorten it again by hand with ``...`` lines where the docs leave lines out.
"""

from __future__ import annotations

import argparse
import queue
import re
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

try:  # python -m scripts.<tool> from the checkout's root
    from scripts.doc_blocks import (
        REPO_ROOT,
        Block,
        is_elision,
        output_matches,
        read_blocks,
        replace_block,
    )
except ImportError:  # python scripts/<tool>.py, or tests (scripts/ on the path)
    from doc_blocks import (  # type: ignore[no-redef]
        REPO_ROOT,
        Block,
        is_elision,
        output_matches,
        read_blocks,
        replace_block,
    )

# Answers that end what a command asked for.
TERMINAL = ("usiok", "readyok", "checkmate", "bestmove")
TIMEOUT = 60.0  # seconds a step may wait; a step waits only this long when the engine is wrong
_EXIT_CODE = re.compile(r"\(exit code (-?\d+)\)")


@dataclass
class Step:
    """One command and the lines the doc shows after it (``< `` removed; ``...`` lines kept)."""

    command: str
    shown: list[str]


def session_steps(lines: Sequence[str]) -> tuple[list[Step], int | None]:
    """A session block's commands, what it shows after each, and the exit code it shows."""
    steps: list[Step] = []
    exit_code = None
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("> "):
            steps.append(Step(line[2:], []))
        elif match := _EXIT_CODE.fullmatch(line.strip()):
            exit_code = int(match[1])
        elif not steps:
            raise ValueError(f"a session starts with a command ('> ...'), not {line!r}")
        else:
            steps[-1].shown.append(line[2:] if line.startswith("< ") else line)
    return steps, exit_code


def _waits_for(step: Step):
    """A function of the lines read so far: True once the step has what it waits for."""
    shown = [line for line in step.shown if not is_elision(line)]
    if not shown:
        return lambda got: True
    last = shown[-1].split(" ", 1)[0]
    if any(is_elision(line) for line in step.shown):
        return lambda got: bool(got) and output_matches(shown[-1:], got[-1:], True)
    if last in TERMINAL:
        return lambda got: bool(got) and got[-1].split(" ", 1)[0] == last
    return lambda got: len(got) >= len(shown)


def replay(
    steps: Sequence[Step], engine: Sequence[str], *, settle: float = 0.0, cwd: Path | None = None
) -> tuple[list[list[str]], int | None]:
    """Send each step's command and read its answer; the engine's lines step by step and its
    exit code (None if it did not exit within TIMEOUT of the last command).

    ``settle``: how long to wait for output after a command the doc shows no answer to
    (with 0 an unexpected line is read with the next command's answer, where a comparison
    still catches it)."""
    proc = subprocess.Popen(
        list(engine),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        bufsize=1,
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdout = proc.stdout
    lines: queue.Queue[str | None] = queue.Queue()

    def reader() -> None:
        for line in stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    answers: list[list[str]] = []
    ended = False
    try:
        for index, step in enumerate(steps):
            got: list[str] = []
            answers.append(got)
            if ended:
                continue
            try:
                proc.stdin.write(step.command + "\n")
                proc.stdin.flush()
            except BrokenPipeError:
                ended = True
                continue
            if index == len(steps) - 1:
                # The end of input counts as quit: read the engine's output to its end.
                proc.stdin.close()
                done, wait = (lambda got: False), TIMEOUT
            elif step.shown:
                done, wait = _waits_for(step), TIMEOUT
            else:
                done, wait = (lambda got: False), settle
            deadline = time.monotonic() + wait
            while not done(got):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    line = lines.get(timeout=remaining)
                except queue.Empty:
                    break
                if line is None:
                    ended = True
                    break
                got.append(line)
        if not proc.stdin.closed:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            code: int | None = proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
        return answers, code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def transcript(
    steps: Sequence[Step],
    answers: Sequence[Sequence[str]],
    code: int | None,
    with_exit: bool = True,
) -> list[str]:
    lines = []
    for step, got in zip(steps, answers):
        lines.append(f"> {step.command}")
        lines.extend(f"< {line}" for line in got)
    if with_exit:
        lines.append(f"(exit code {code})" if code is not None else "(no exit)")
    return lines


def shown_lines(block: Block) -> tuple[list[str], list[bool]]:
    """The block's lines without blank ones, and for each whether node counts may vary
    there: everywhere but in an answer that is a proof (``checkmate <moves>`` or
    ``nomate``); a search cut by a clock or by ``stop`` counts differently every run."""
    steps, code = session_steps(block.lines)
    lines, vary = [], []
    for step in steps:
        proof = any(
            line.startswith("checkmate ") and line != "checkmate timeout" for line in step.shown
        )
        lines.append(f"> {step.command}")
        vary.append(False)
        for line in step.shown:
            lines.append(line if is_elision(line) else f"< {line}")
            vary.append(not proof)
    if code is not None:
        lines.append(f"(exit code {code})")
        vary.append(False)
    return lines, vary


def run_block(
    block: Block, engine: Sequence[str], *, settle: float = 0.0, cwd: Path | None = None
) -> tuple[bool, list[str]]:
    """Replay one session block: whether the engine's lines match it, and the fresh transcript."""
    steps, shown_code = session_steps(block.lines)
    answers, code = replay(steps, engine, settle=settle, cwd=cwd)
    fresh = transcript(steps, answers, code, with_exit=shown_code is not None)
    shown, vary = shown_lines(block)
    return output_matches(shown, fresh, vary), fresh


def session_blocks(path: Path) -> list[Block]:
    return [block for block in read_blocks(path) if block.kind == "usi" and block.marker is None]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.usi_transcript",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("docs", nargs="*", type=Path, help="Markdown files (default: README.md)")
    parser.add_argument(
        "--engine",
        default=f"{shlex.quote(sys.executable)} -m usi_mate",
        help="the engine's command line (default: python -m usi_mate)",
    )
    parser.add_argument(
        "--update", action="store_true", help="write the fresh session into stale blocks"
    )
    args = parser.parse_args(argv)
    engine = shlex.split(args.engine)
    stale: list[tuple[Block, list[str]]] = []
    for path in args.docs or [REPO_ROOT / "README.md"]:
        for block in session_blocks(path):
            # The settle places an unexpected line after the command that caused it.
            matches, fresh = run_block(block, engine, settle=0.3)
            print(f"# {block.id}: {'as shown' if matches else 'differs from the doc'}")
            print("\n".join(fresh))
            if not matches:
                stale.append((block, fresh))
    if args.update:
        # From the end of each file up, so the blocks above keep their line numbers.
        for block, fresh in sorted(stale, key=lambda s: (str(s[0].path), -s[0].line)):
            replace_block(block, fresh)
            print(f"# {block.id}: written")
    return 1 if stale and not args.update else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
