"""Engine options: declared once, validated where they enter, handed to the search typed.

Each option is a frozen dataclass instance (:class:`SpinOption`, :class:`CheckOption`,
:class:`ComboOption`) carrying its USI name, default, range or choices and a help text.
:data:`OPTIONS` is the registry: the ``usi`` answer lists it in order, and
:class:`OptionValues` looks ``setoption`` names up in it case-insensitively (GUIs differ
in case) and snapshots the current values into a frozen :class:`EngineConfig` for the
search.

An option's ``field`` names either a field of :class:`usi_mate.SearchRequest` (the option
sets that field of :attr:`EngineConfig.request`, each ``go`` replacing only its own
limits) or one of :class:`EngineConfig`'s own (the engine's settings: table, threads,
reports). To add an option for a search field, append one declaration to
:data:`OPTIONS`; for an engine setting, also add its field to :class:`EngineConfig`. The
import-time check at the bottom of this module fails if they disagree::

    ComboOption("PostSearchLevel", "post_search", default="MinLength",
                choices=POST_SEARCH_LEVELS, help="...")
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
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


# The options that set a field of the search request (the rest are EngineConfig's own).
_REQUEST_FIELDS = frozenset(f.name for f in dataclasses.fields(SearchRequest))
_REQUEST_DEFAULTS = SearchRequest()


def _request_value(field: str, value: Any) -> Any:
    """An option's value as its SearchRequest field takes it: 0 is "no limit" (None)
    where the field's default is None (NodesLimit 0)."""
    return None if value == 0 and getattr(_REQUEST_DEFAULTS, field) is None else value


@dataclass(frozen=True)
class EngineConfig:
    """The typed option values a search runs with: the engine's own settings, and in
    ``request`` the search request the search options make (each ``go`` derives its own
    from it with :func:`dataclasses.replace`, its limits replaced)."""

    hash_mb: int = DEFAULT_HASH_MB
    threads: int = 1
    pv_interval_ms: int = 1000
    report_cooks: bool = False
    ponder: bool = False
    request: SearchRequest = field(default_factory=SearchRequest)


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
        """A frozen snapshot of the current values (TypeError/ValueError for a search
        field's value that :class:`SearchRequest` refuses)."""
        own = {k: v for k, v in self._values.items() if k not in _REQUEST_FIELDS}
        asked = {k: _request_value(k, v) for k, v in self._values.items() if k in _REQUEST_FIELDS}
        return EngineConfig(**own, request=SearchRequest(**asked))


def _clip(text: str, limit: int = 60) -> str:
    # Values end up in an info string: keep them short so junk cannot flood the GUI log.
    return text if len(text) <= limit else text[:limit] + "..."


def _check_registry() -> None:
    # Registry and EngineConfig must name the same fields: a mismatch would only show up
    # as a TypeError at the first isready, so fail at import instead.
    declared = [o.field for o in OPTIONS]
    own = [f.name for f in dataclasses.fields(EngineConfig) if f.name != "request"]
    if sorted(d for d in declared if d not in _REQUEST_FIELDS) != sorted(own) or len(
        set(declared)
    ) != len(declared):
        raise AssertionError(f"OPTIONS fields {declared} do not match EngineConfig {own}")
    defaults = EngineConfig()
    for o in OPTIONS:
        if o.field in _REQUEST_FIELDS:
            wanted, default = getattr(defaults.request, o.field), _request_value(o.field, o.default)
        else:
            wanted, default = getattr(defaults, o.field), o.default
        if wanted != default:
            raise AssertionError(f"the default of {o.field} differs from {o.name}'s")


_check_registry()
