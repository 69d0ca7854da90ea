"""The fenced code blocks of README.md and docs/*.md, what each one is, and how the output a
block shows is compared with a real run: one definition for tests/test_docs.py, which runs
every block, and scripts.usi_transcript, which writes the USI sessions.

A block's kind comes from its fence and its lines:

- ``python``: a script, run as a file (``python block.py``) from a folder that sees the
  checkout as its root; when its last lines are comments, they are what it prints;
- ``sh``, ``bash``, ``shell``, ``console``, or any block with ``$ `` lines: commands. With
  ``$ `` lines, the lines up to the next ``$ `` are the command's output, and
  ``$ echo $?`` followed by N says the command before it exits with N. Without them each
  line is a command and a comment on it may say ``exit N``; otherwise it must exit 0.
  Only the usi-mate commands are run (``usi-mate``, ``python -m usi_mate``,
  ``python -m scripts.<tool>``, ``pytest``, also after a ``|`` or ``&&``); ``pip install``,
  git and the like are not;
- ``> command`` / ``< answer`` lines: a USI session (scripts.usi_transcript replays it);
- anything else (a table of figures, a synopsis): marked, or the test fails.

A marker, an HTML comment on the line before the fence, says what the test does instead::

    <!-- doc-test: skip (REASON) -->       not run, for the reason given
    <!-- doc-test: slow -->                 run only with ``pytest -m slow`` (seconds or more)
    <!-- doc-test: output of COMMAND -->    the output of a run the test does not repeat
    <!-- doc-test: synopsis of COMMAND -->  every --option shown must be in COMMAND's output

Shown output is compared with what the command writes to stdout, not stderr (where
``usi-mate solve`` writes its summary). It matches line by line, except: a line that starts
with ``...`` stands for any number of lines (what follows it on the line is a remark);
``...`` within a line for any text; runs of two or more spaces for any run of spaces
(columns widen); and numbers that vary from run to run: durations (``0.104 s``, ``12 ms``),
the USI ``time``, ``nps`` and ``hashfull`` and JSON ``time_ms``; node counts (and USI
``pn``, ``dn``) only where the run is cut by a clock (``vary_nodes``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

_FENCE = re.compile(r"^( *)(`{3,}|~{3,})\s*([\w+-]*)\s*$")
_MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
_MARKER_KINDS = ("skip", "slow", "output of", "synopsis of")
SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
_EXIT_CODE = re.compile(r"\(exit code (-?\d+)\)")  # a USI session's last line


def doc_files(root: Path = REPO_ROOT) -> list[Path]:
    """README.md and docs/*.md, in that order."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One fenced block: ``lines`` are its content, the fence's indentation removed."""

    path: Path
    line: int  # 1-based, the opening fence's
    language: str
    lines: tuple[str, ...]
    marker: str | None  # the marker's text after "doc-test:", if any

    @property
    def id(self) -> str:
        try:
            name = self.path.resolve().relative_to(REPO_ROOT).as_posix()
        except ValueError:
            name = self.path.name
        return f"{name}:{self.line}"

    @property
    def kind(self) -> str:
        """``python``, ``shell``, ``usi`` or ``text`` (see the module's docstring)."""
        content = [line for line in self.lines if line.strip()]
        if self.language == "python":
            return "python"
        if self.language in SHELL_LANGUAGES or any(line.startswith("$ ") for line in content):
            return "shell"
        if (
            content
            and content[0].startswith("> ")
            and all(
                line[:2] in ("> ", "< ") or is_elision(line) or _EXIT_CODE.fullmatch(line)
                for line in content
            )
        ):
            return "usi"
        return "text"

    @property
    def marker_kind(self) -> tuple[str, str] | None:
        """The marker as (kind, argument): ("skip", "needs shtsume"), ("slow", "")."""
        if self.marker is None:
            return None
        for kind in _MARKER_KINDS:
            if self.marker == kind or self.marker.startswith(kind + " "):
                argument = self.marker[len(kind) :].strip()
                if kind == "skip":
                    argument = argument.removeprefix("(").removesuffix(")")
                return kind, argument
        raise ValueError(f"{self.path.name}:{self.line}: unknown doc-test marker {self.marker!r}")


def read_blocks(path: Path) -> list[Block]:
    """Every fenced block of one Markdown file."""
    text = path.read_text(encoding="utf-8").splitlines()
    blocks = []
    i = 0
    while i < len(text):
        opening = _FENCE.match(text[i])
        if not opening:
            i += 1
            continue
        indent, fence, language = len(opening[1]), opening[2], opening[3]
        j = i + 1
        while j < len(text) and not (
            text[j].strip().startswith(fence) and text[j].strip().strip(fence[0]) == ""
        ):
            j += 1
        previous = next((text[k] for k in range(i - 1, -1, -1) if text[k].strip()), "")
        marker = _MARKER.match(previous)
        lines = tuple(
            line[indent:] if line[:indent].strip() == "" else line for line in text[i + 1 : j]
        )
        blocks.append(Block(path, i + 1, language, lines, marker[1] if marker else None))
        i = j + 1
    return blocks


def all_blocks(root: Path = REPO_ROOT) -> list[Block]:
    return [block for path in doc_files(root) for block in read_blocks(path)]


# --- comparing shown output with a run --------------------------------------------------


def is_elision(line: str) -> bool:
    """A shown line that stands for any number of lines: ``...`` or ``... (four more)``."""
    stripped = line.strip()
    return stripped == "..." or stripped.startswith("... (") or stripped == "…"


_NUMBER = r"\d+(?:\.\d+)?"
_ALWAYS_VARY = [
    rf"{_NUMBER}(?= ?(?:s|ms|µs)\b)",  # durations
    r"(?<=\btime )\d+",  # USI info
    r"(?<=\bnps )\d+",
    r"(?<=\bhashfull )\d+",
    r'(?<="time_ms": )\d+',  # jsonl records
]
_NODES_VARY = [
    r"(?<=\bnodes )\d+",
    r"(?<=\bpn )\d+",
    r"(?<=\bdn )\d+",
    r"\d+(?= nodes\b)",
    r'(?<="nodes": )\d+',
]


def _token_re(vary_nodes: bool) -> re.Pattern[str]:
    numbers = "|".join(_ALWAYS_VARY + (_NODES_VARY if vary_nodes else []))
    return re.compile(rf"(?P<dots>\.\.\.|…)|(?P<number>{numbers})|(?P<spaces> {{2,}})")


def line_pattern(shown: str, vary_nodes: bool = False) -> str:
    """A regular expression (for one line, no anchors) that a run's line must match."""
    parts = []
    position = 0
    for token in _token_re(vary_nodes).finditer(shown):
        parts.append(re.escape(shown[position : token.start()]))
        if token["dots"]:
            parts.append(r"[^\n]*?")
        elif token["number"]:
            parts.append(r"\d+(?:\.\d+)?")
        else:
            parts.append(" +")
        position = token.end()
    parts.append(re.escape(shown[position:]))
    return "".join(parts)


def block_pattern(
    shown: Sequence[str], vary_nodes: bool | Sequence[bool] = False
) -> re.Pattern[str]:
    """The pattern a whole run (its lines joined by newlines) must match; ``vary_nodes``
    may be given line by line."""
    flags = [vary_nodes] * len(shown) if isinstance(vary_nodes, bool) else list(vary_nodes)
    if len(flags) != len(shown):
        raise ValueError("vary_nodes: one flag a shown line")
    parts = []
    for line, vary in zip(shown, flags):
        if is_elision(line):
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[ \t]*" + line_pattern(line.rstrip(), vary).lstrip() + r"[ \t]*\n")
    return re.compile("".join(parts))


def output_matches(
    shown: Sequence[str], actual: Iterable[str], vary_nodes: bool | Sequence[bool] = False
) -> bool:
    """Whether a run's lines match the shown ones (trailing blank lines of either ignored);
    ``vary_nodes`` may be given for each shown line."""
    shown = list(shown)
    flags = [vary_nodes] * len(shown) if isinstance(vary_nodes, bool) else list(vary_nodes)
    while shown and not shown[-1].strip():
        shown.pop()
    lines = [line.rstrip() for line in actual]
    while lines and not lines[-1]:
        lines.pop()
    text = "".join(line + "\n" for line in lines)
    return block_pattern(shown, flags[: len(shown)]).fullmatch(text) is not None


def replace_block(block: Block, new_lines: Sequence[str]) -> None:
    """Write ``new_lines`` as the block's content, reading the file afresh (others may have
    edited it since it was read) and refusing when the block is no longer where it was."""
    text = block.path.read_text(encoding="utf-8").splitlines(keepends=True)
    fresh = {b.line: b for b in read_blocks(block.path)}
    if fresh.get(block.line) is None or fresh[block.line].lines != block.lines:
        raise RuntimeError(f"{block.id}: the block changed since it was read; run again")
    opening = _FENCE.match(text[block.line - 1])
    assert opening is not None
    indent = opening[1]
    start, end = block.line, block.line + len(block.lines)
    text[start:end] = [(indent + line).rstrip() + "\n" for line in new_lines]
    block.path.write_text("".join(text), encoding="utf-8")
