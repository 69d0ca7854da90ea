"""USI commands as typed values: each line that the engine reads is parsed here,
where it enters, into :class:`GoCommand`, :class:`SetOptionCommand` or
:class:`PositionCommand`; a malformed one raises :class:`UsiError` with the
message the engine sends back as ``info string``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._core import BLACK, Position

# printable and ECHO_LIMIT live in .echo, shared with the batch tools; imported here too
# because the USI modules import them from this one.
from .echo import ECHO_LIMIT, printable  # noqa: F401
from .settings import MAX_LENGTH, MAX_TIME_MS

# Analysis mode (`go btime ... byoyomi ...`): answer this much before the budget ends so
# that the GUI's clock, which starts before our process sees `go`, does not flag us.
ANALYSIS_MARGIN_MS = 100
ANALYSIS_MIN_MS = 10

_INTEGER = re.compile(r"[+-]?[0-9]+")


class UsiError(ValueError):
    """A malformed command; the message becomes one ``info string`` line."""


def _parse_ms(token: str | None, what: str) -> int:
    # One place for every numeric `go` argument: non-negative decimal, clamped.
    if token is None:
        raise UsiError(f"{what} needs a number")
    if len(token) > 30 or not _INTEGER.fullmatch(token):
        raise UsiError(f"{what} must be a non-negative integer, not '{printable(token, 30)}'")
    value = int(token)
    if value < 0:
        raise UsiError(f"{what} must be a non-negative integer, not {value}")
    return min(value, MAX_TIME_MS)


# ---------------------------------------------------------------------------
# Commands as typed values


@dataclass(frozen=True)
class GoCommand:
    """A parsed ``go`` command.

    ``mate``: ``go mate ...`` (answer with ``checkmate``), else analysis mode (answer with
    ``bestmove``). ``time_ms``: the mate time limit (None: ``go mate infinite``).
    ``infinite``/``ponder``: the analysis answer is held until ``stop`` (or ``ponderhit``).
    The clock fields (``btime`` ...) are milliseconds as the GUI sent them. ``note``:
    what the engine read differently from what was sent, for an ``info string``.
    """

    mate: bool = False
    time_ms: int | None = None
    infinite: bool = False
    ponder: bool = False
    btime: int | None = None
    wtime: int | None = None
    binc: int | None = None
    winc: int | None = None
    byoyomi: int | None = None
    movetime: int | None = None
    nodes: int | None = None
    depth: int | None = None
    note: str | None = None

    _CLOCK_FIELDS = ("btime", "wtime", "binc", "winc", "byoyomi", "movetime", "nodes", "depth")

    @classmethod
    def parse(cls, args: list[str]) -> GoCommand:
        """Parse the tokens after ``go``. Raises :class:`UsiError` when malformed."""
        values: dict[str, object] = {}
        i = 0
        while i < len(args):
            token = args[i]
            if token == "mate":
                values["mate"] = True
                arg = args[i + 1] if i + 1 < len(args) else None
                if arg is None or arg == "infinite":
                    # A bare `go mate` is read as infinite rather than rejected: the GUI
                    # is waiting for an answer either way, and stop/quit still work.
                    values["time_ms"] = None
                    if arg is None:
                        values["note"] = (
                            "go mate: no time given (a number of milliseconds or infinite); "
                            "searching as go mate infinite"
                        )
                else:
                    # `go mate 0` would mean "no limit" to the core; the GUI means "now".
                    values["time_ms"] = max(1, _parse_ms(arg, "go mate"))
                i += 2
            elif token in ("infinite", "ponder"):
                values[token] = True
                i += 1
            elif token in cls._CLOCK_FIELDS:
                values[token] = _parse_ms(args[i + 1] if i + 1 < len(args) else None, token)
                i += 2
            else:
                raise UsiError(f"unknown go parameter '{printable(token, 30)}'")
        if not values.get("mate") and not any(k in values for k in cls._CLOCK_FIELDS):
            # Bare `go` (or `go ponder`): like UCI engines, search until `stop`.
            values["infinite"] = True
        if "depth" in values:
            # `go depth N`: mates of at most N plies (the search ends by itself).
            depth = values["depth"]
            assert isinstance(depth, int)  # _parse_ms gives int
            values["depth"] = None if depth == 0 else min(depth, MAX_LENGTH)
        if values.get("nodes") == 0:
            values["nodes"] = None  # `go nodes 0`: no node limit, as NodesLimit 0
        return cls(**values)  # type: ignore[arg-type]

    @property
    def holds_answer(self) -> bool:
        """True when USI forbids answering before ``stop``/``ponderhit`` (analysis mode)."""
        return not self.mate and (self.infinite or self.ponder)

    def analysis_budget_ms(self, turn: int) -> int | None:
        """Time for an analysis-mode search with the side ``turn`` to move, or None for none.

        ``movetime`` wins; else a twentieth of the remaining time plus increment plus
        byoyomi, less a safety margin.
        """
        if self.infinite and self.movetime is None:
            return None
        if self.movetime is not None:
            return max(1, self.movetime)
        clock = (self.btime, self.binc) if turn == BLACK else (self.wtime, self.winc)
        if clock[0] is None and clock[1] is None and self.byoyomi is None:
            return None
        budget = (clock[0] or 0) // 20 + (clock[1] or 0) + (self.byoyomi or 0)
        return max(ANALYSIS_MIN_MS, budget - ANALYSIS_MARGIN_MS)


@dataclass(frozen=True)
class SetOptionCommand:
    """A parsed ``setoption name <name> [value <value>]`` (the value keeps inner spaces)."""

    name: str
    value: str | None

    # Two linear scans, not one pattern with a lazy name before "\s+value": that one
    # backtracked quadratically over a run of spaces in the name (64,000 spaces kept
    # the reader deaf to `stop` for 20 s).
    _NAME = re.compile(r"name\s+")
    _VALUE = re.compile(r"\svalue(?=\s|$)")

    @classmethod
    def parse(cls, rest: str) -> SetOptionCommand:
        """Parse the text after ``setoption``. Raises :class:`UsiError` when malformed.

        The name runs up to the first word ``value``; the value is the rest, inner
        spaces kept (None when absent or empty)."""
        text = rest.strip()
        m = cls._NAME.match(text)
        if m is None:  # (stripped: `name` needs a name after it)
            raise UsiError("setoption: expected 'setoption name <name> [value <value>]'")
        body = text[m.end() :]
        v = cls._VALUE.search(body)
        if v is None:
            return cls(name=body, value=None)
        value = body[v.end() :].strip()
        return cls(name=body[: v.start()].rstrip(), value=value or None)


@dataclass(frozen=True)
class PositionCommand:
    """A parsed ``position startpos|sfen <sfen> [moves ...]``: the position it sets."""

    position: Position

    @classmethod
    def parse(cls, rest: str) -> PositionCommand:
        """Build the position. Raises :class:`UsiError` with the reason when malformed/illegal."""
        if not rest.strip():
            raise UsiError("position: expected 'startpos' or 'sfen <sfen>' [moves ...]")
        if not rest.isascii():
            raise UsiError("position: non-ASCII characters in the position")
        try:
            return cls(Position(rest))
        except ValueError as e:
            raise UsiError(f"position: {printable(str(e), 200)}") from None
