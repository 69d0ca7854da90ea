"""Engine options: declared once, validated where they enter, handed to the search typed.

Each option is a frozen dataclass instance (:class:`SpinOption`, :class:`CheckOption`,
:class:`ComboOption`) carrying its USI name, default, range or choices and a help text.
:data:`OPTIONS` is the registry: the ``usi`` answer lists it in order, and
:class:`OptionValues` looks ``setoption`` names up in it case-insensitively (GUIs differ
in case) and snapshots the current values into a frozen :class:`EngineConfig` for the
search.

To add an option (e.g. ``PostSearchLevel``), append one declaration to :data:`OPTIONS`
and one field of the same ``field`` name to :class:`EngineConfig`; the import-time check
at the bottom of this module fails if the two disagree::

    ComboOption("PostSearchLevel", "post_search_level", default="None",
                choices=("None", "UpperBound", "MinLength"), help="...")
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from .settings import (
    DEFAULT_HASH_MB,
    DEFAULT_MIN_LENGTH_EFFORT,
    MAX_HASH_MB,
    MAX_MIN_LENGTH_EFFORT,
    MAX_NODES,
    MAX_THREADS,
    POST_SEARCH_LEVELS,
    SearchRequest,
)

# Strict decimal integers only: Python's int() would also take "1_000", " 12 " and
# full-width digits, which no GUI sends and which would only hide a typo.
_INTEGER = re.compile(r"[+-]?[0-9]+")
# A longer digit string is out of any range we declare; checking the length first
# also keeps int() away from pathological 100,000-digit inputs.
_MAX_INTEGER_DIGITS = 30


class OptionError(ValueError):
    """A value that an option does not accept; the message says why, for an ``info string``."""


@dataclass(frozen=True)
class Option:
    """What every option has: its USI ``name``, the ``field`` of :class:`EngineConfig` it
    fills, a ``default`` and a one-line ``help`` (for ``--help`` and docs/USI.md)."""

    name: str
    field: str
    default: Any
    help: str = ""

    type: ClassVar[str] = ""

    def parse(self, value_text: str | None) -> Any:
        """Validate the text of ``setoption ... value <text>`` and return the typed value.

        Raises :class:`OptionError` with a message naming the option and the accepted values.
        """
        raise NotImplementedError

    def usi_line(self) -> str:
        """The ``option name ... type ...`` line of the ``usi`` answer."""
        return f"option name {self.name} type {self.type} default {self.format(self.default)}"

    def format(self, value: Any) -> str:
        """A value as USI writes it (``true``, ``<empty>``, ``256``)."""
        return str(value)

    def _error(self, message: str, value_text: str | None) -> OptionError:
        shown = "nothing" if value_text is None else repr(_clip(value_text))
        return OptionError(f"{self.name} {message}, not {shown}")


@dataclass(frozen=True)
class SpinOption(Option):
    """An integer in ``min..max`` (USI ``type spin``)."""

    default: int
    min: int = 0
    max: int = 0

    type: ClassVar[str] = "spin"

    def parse(self, value_text: str | None) -> int:
        """Accept a decimal integer within ``min..max``."""
        text = (value_text or "").strip()
        if len(text) > _MAX_INTEGER_DIGITS or not _INTEGER.fullmatch(text):
            raise self._error(f"must be an integer from {self.min} to {self.max}", value_text)
        value = int(text)
        if not self.min <= value <= self.max:
            raise self._error(f"must be from {self.min} to {self.max}", value_text)
        return value

    def usi_line(self) -> str:
        """The ``usi`` answer's line, with the range: ``... min 1 max 256``."""
        return f"{super().usi_line()} min {self.min} max {self.max}"


@dataclass(frozen=True)
class CheckOption(Option):
    """A boolean (USI ``type check``: ``true`` or ``false``)."""

    default: bool

    type: ClassVar[str] = "check"

    def parse(self, value_text: str | None) -> bool:
        """Accept ``true`` or ``false`` in any case."""
        text = (value_text or "").strip().lower()
        if text not in ("true", "false"):
            raise self._error("must be true or false", value_text)
        return text == "true"

    def format(self, value: Any) -> str:
        """``true`` or ``false``."""
        return "true" if value else "false"


@dataclass(frozen=True)
class ComboOption(Option):
    """One of a fixed list of words (USI ``type combo ... var a var b``)."""

    default: str
    choices: tuple[str, ...] = ()

    type: ClassVar[str] = "combo"

    def parse(self, value_text: str | None) -> str:
        """Accept one of ``choices`` in any case; return it spelt as declared."""
        text = (value_text or "").strip()
        for choice in self.choices:
            if choice.lower() == text.lower():
                return choice
        raise self._error(f"must be one of {', '.join(self.choices)}", value_text)

    def usi_line(self) -> str:
        """The ``usi`` answer's line, with each choice: ``... var None var MinLength``."""
        return super().usi_line() + "".join(f" var {c}" for c in self.choices)


# The ranges (hash, nodes, threads) are settings.py's, the one place they are written:
# USI GUIs store spin values as numbers and ShogiHome (JavaScript) loses integers above
# 2^53, so every max stays under that.
# An hour between progress lines is already pointless; larger values are typos.
MAX_PV_INTERVAL_MS = 3_600_000

OPTIONS: tuple[Option, ...] = (
    SpinOption(
        "USI_Hash",
        "hash_mb",
        default=DEFAULT_HASH_MB,
        min=1,
        max=MAX_HASH_MB,
        help="Transposition table size in MB, allocated at isready. A size the machine "
        "cannot hold is refused with an info string and the previous size is kept.",
    ),
    SpinOption(
        "Threads",
        "threads",
        default=1,
        min=1,
        max=MAX_THREADS,
        help="Search threads for one problem, sharing the table (applied at the next "
        "isready or go). The answer is the first thread's: verdicts never depend on it; "
        "NodesLimit counts the first thread's nodes.",
    ),
    SpinOption(
        "NodesLimit",
        "nodes_limit",
        default=0,
        min=0,
        max=MAX_NODES,
        help="Stop a search after this many nodes and answer timeout (0 = no limit).",
    ),
    SpinOption(
        "PvInterval",
        "pv_interval_ms",
        default=1000,
        min=0,
        max=MAX_PV_INTERVAL_MS,
        help="Milliseconds between progress info lines during a search (0 = none).",
    ),
    CheckOption(
        "RootIsAndNodeIfChecked",
        "root_is_and_node_if_checked",
        default=False,
        help="When the side to move is in check, let it defend (the other side attacks) "
        "instead of attacking; the mate line then has an even length.",
    ),
    ComboOption(
        "PostSearchLevel",
        "post_search",
        default="MinLength",
        choices=POST_SEARCH_LEVELS,
        help="After the first proof: None answers it as found; UpperBound answers a line as "
        "long as its proven bound; MinLength looks for shorter mates until the shortest under "
        "the longest defence is proven or it has spent its share of work (MinLengthEffort), "
        "and then answers: an info string says whether the length is proven the shortest.",
    ),
    SpinOption(
        "MinLengthEffort",
        "min_length_effort",
        default=DEFAULT_MIN_LENGTH_EFFORT,
        min=0,
        max=MAX_MIN_LENGTH_EFFORT,
        help="MinLength's share of work after the first proof, in times the first proof's "
        "nodes (its first 2 M count 3/4 each, the rest 1/4; at least 1,000,000 nodes): then the "
        "answer is final, also after go mate infinite. "
        "0: no share, the search for a shorter mate goes on until the minimum is proven, "
        "stop, or the time limit.",
    ),
    CheckOption(
        "IgnoreFutileInterpositions",
        "ignore_futile_interpositions",
        default=True,
        help="Leave futile interpositions (無駄合) out of the mate length and the line, as "
        "problem composers count; off counts every legal reply.",
    ),
    CheckOption(
        "ReportCooks",
        "report_cooks",
        default=False,
        help="After go mate finds a mate, look for cooks (余詰: other checking moves that also "
        "mate) along its line and report them as info string lines before the answer, "
        "within what is left of the time limit (go mate infinite: at most 10 s); stop "
        "answers at once.",
    ),
    CheckOption(
        "USI_Ponder",
        "ponder",
        default=False,
        help="Accepted and ignored: a mate engine does not ponder.",
    ),
)


@dataclass(frozen=True)
class EngineConfig:
    """The typed option values a search runs with (one field per entry of :data:`OPTIONS`)."""

    hash_mb: int = DEFAULT_HASH_MB
    threads: int = 1
    nodes_limit: int = 0
    pv_interval_ms: int = 1000
    root_is_and_node_if_checked: bool = False
    post_search: str = "MinLength"
    min_length_effort: int = DEFAULT_MIN_LENGTH_EFFORT
    ignore_futile_interpositions: bool = True
    report_cooks: bool = False
    ponder: bool = False

    def request(
        self, *, time_limit_ms: int | None, nodes_limit: int | None, max_length: int | None
    ) -> SearchRequest:
        """The search request of one ``go`` under these options, with the go's own limits
        (TypeError/ValueError for a bad value, as :class:`SearchRequest` raises)."""
        return SearchRequest(
            time_limit_ms=time_limit_ms,
            nodes_limit=nodes_limit,
            max_length=max_length,
            root_is_and_node_if_checked=self.root_is_and_node_if_checked,
            post_search=self.post_search,
            min_length_effort=self.min_length_effort,
            ignore_futile_interpositions=self.ignore_futile_interpositions,
        )


class OptionValues:
    """The current value of every option, as ``setoption`` changed them.

    Mutable on purpose (the protocol loop owns it); :meth:`config` snapshots it into an
    immutable :class:`EngineConfig` for the search.
    """

    def __init__(self, options: Iterable[Option] = OPTIONS) -> None:
        self._options = {o.name.lower(): o for o in options}
        self._values: dict[str, Any] = {o.field: o.default for o in self._options.values()}

    def option(self, name: str) -> Option | None:
        """The option called ``name`` (case-insensitive, as GUIs differ), or None."""
        return self._options.get(name.strip().lower())

    def get(self, name: str) -> Any:
        """The current value of the option called ``name``. Raises KeyError when unknown."""
        option = self.option(name)
        if option is None:
            raise KeyError(name)
        return self._values[option.field]

    def set(self, name: str, value_text: str | None) -> Option:
        """Parse and store a value; returns the option it set.

        Raises :class:`OptionError` for an unknown name or a bad value; the stored value
        is then unchanged.
        """
        option = self.option(name)
        if option is None:
            raise OptionError(f"unknown option {_clip(name)!r}")
        self._values[option.field] = option.parse(value_text)
        return option

    def restore(self, field: str, value: Any) -> None:
        """Put back a value the engine could not apply (a hash size that failed to allocate)."""
        self._values[field] = value

    def config(self) -> EngineConfig:
        """A frozen snapshot of the current values."""
        return EngineConfig(**self._values)


def _clip(text: str, limit: int = 60) -> str:
    # Values end up in an info string: keep them short so junk cannot flood the GUI log.
    return text if len(text) <= limit else text[:limit] + "..."


def _check_registry() -> None:
    # Registry and EngineConfig must name the same fields: a mismatch would only show up
    # as a TypeError at the first isready, so fail at import instead.
    declared = [o.field for o in OPTIONS]
    fields = [f.name for f in dataclasses.fields(EngineConfig)]
    if sorted(declared) != sorted(fields) or len(set(declared)) != len(declared):
        raise AssertionError(f"OPTIONS fields {declared} do not match EngineConfig {fields}")
    defaults = EngineConfig()
    for o in OPTIONS:
        if getattr(defaults, o.field) != o.default:
            raise AssertionError(f"EngineConfig.{o.field} default differs from {o.name}")


_check_registry()
