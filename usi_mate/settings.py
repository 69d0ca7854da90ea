"""One search request, and the checks of what enters the API.

USI options (:mod:`usi_mate.options`), the ``usi-mate solve`` command line, the
keywords of :func:`usi_mate.solve`, :meth:`usi_mate.Solver.solve` and
:func:`usi_mate.solve_many` all make a :class:`SearchRequest`, validated once, here:
the entries take a ``request`` and the request's fields as keywords
(:class:`SearchOptions`), and one function, :func:`search_request`, makes the request of
both. It travels unchanged to :meth:`usi_mate.Solver.search`, where the compiled core
reads its limits from it (``_search_limits`` in usi_mate/_core.pyx). Times are integer
milliseconds end to end.

A new search option is a field of :class:`SearchRequest` (and its check), the same key in
:class:`SearchOptions` (the import fails when the two differ), its line in
``_search_limits`` and its field of the core's ``SearchLimits`` (csrc/search_types.h and
usi_mate/_core.pxd); a USI option for it is one declaration in
:data:`usi_mate.options.OPTIONS`.

The core's constants (defaults, the futility cap, post-search level names, the ply
cut) are defined once in csrc/ and imported from :mod:`usi_mate._core`; the limits
below are the API's own.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, TypedDict, get_args

from ._core import (
    DEFAULT_CERTIFY_NODES,
    DEFAULT_HASH_MB,
    DEFAULT_MIN_LENGTH_EFFORT,
    FUTILITY_NODE_CAP,
    MAX_PLY,
    MIN_LENGTH_MIN_NODES,
    POST_SEARCH_LEVELS,
    UNCAPPED_FUTILITY_NODE_CAP,
    UNCAPPED_MAX_LENGTH,
)

__all__ = [
    "SearchRequest",
    "SearchOptions",
    "PostSearchLevel",
    "search_request",
    "check_int",
    "check_threads",
    "check_hash_mb",
    "DEFAULT_CERTIFY_NODES",
    "DEFAULT_HASH_MB",
    "DEFAULT_MIN_LENGTH_EFFORT",
    "FUTILITY_NODE_CAP",
    "MIN_LENGTH_MIN_NODES",
    "POST_SEARCH_LEVELS",
    "MAX_HASH_MB",
    "MAX_TIME_MS",
    "MAX_NODES",
    "MAX_THREADS",
    "THREAD_MB",
    "MAX_LENGTH",
    "MAX_MIN_LENGTH_EFFORT",
    "MAX_FUTILITY_NODE_CAP",
    "UNCAPPED_MAX_LENGTH",
]

MAX_HASH_MB = 1 << 20
# Limits beyond these are typos, not intentions: 2^53 ms is 285,000 years and
# 10^15 nodes thirty years of search, and both stay exact in a JavaScript number
# (GUIs such as ShogiHome store option values as such).
MAX_TIME_MS = 1 << 53
MAX_NODES = 10**15
MAX_THREADS = 256  # search threads for one problem (USI Threads)
# Memory of each search thread beyond the first, beside the shared table: its own
# futility memo, path set, repetition table and line memo (csrc/), 4.03 MB of RSS
# measured a thread; tests/test_usi.py checks that it is no more than this.
THREAD_MB = 5
MAX_LENGTH = MAX_PLY - 1  # the search follows paths of fewer than MAX_PLY plies
# MinLength's share of work after the first proof is priced in the first proof's nodes
# (_core.min_length_share: min_length_effort times them, the first 2 M counted 3/4
# each and the rest 1/4, at least MIN_LENGTH_MIN_NODES): then the answer is final,
# its length proven the shortest or not (docs/DFPN.md, "When the answer is final").
MAX_MIN_LENGTH_EFFORT = 1_000_000
# A futility cap this large is no cap: every judgement is settled, however long.
MAX_FUTILITY_NODE_CAP = UNCAPPED_FUTILITY_NODE_CAP


# What happens after the first proof (csrc/search_types.h, PostSearchLevel): the first
# proof as it is, a line as long as its proven bound, or the shortest mate. Checked
# against the core's names below.
PostSearchLevel = Literal["None", "UpperBound", "MinLength"]

if get_args(PostSearchLevel) != POST_SEARCH_LEVELS:
    raise ImportError(f"PostSearchLevel differs from the core's levels {POST_SEARCH_LEVELS}")


def check_int(name: str, value: Any, low: int, high: int, *, none_ok: bool = True) -> int | None:
    """``value`` if it is an int in ``low..high`` (or None when allowed).

    Raises TypeError for a non-integer (bool included) and ValueError out of range.
    """
    if value is None and none_ok:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer{' or None' if none_ok else ''}, not {value!r}")
    if not low <= value <= high:
        raise ValueError(
            f"{name} must be from {low} to {high}{' (or None)' if none_ok else ''}, not {value}"
        )
    return value


def check_threads(threads: Any) -> int:
    """A search thread count, 1..MAX_THREADS."""
    return check_int("threads", threads, 1, MAX_THREADS, none_ok=False)  # type: ignore[return-value]


def check_hash_mb(hash_mb: Any) -> int:
    """A table size in MB, 1..MAX_HASH_MB."""
    return check_int("hash_mb", hash_mb, 1, MAX_HASH_MB, none_ok=False)  # type: ignore[return-value]


@dataclass(frozen=True)
class SearchRequest:
    """One search: its limits and settings (every field as :meth:`usi_mate.Solver.solve`
    takes it), validated when it is made; TypeError/ValueError for a bad value.

    ``time_limit_ms`` / ``nodes_limit``: None for no limit. ``post_search``:
    "None", "UpperBound" or "MinLength". ``min_length_effort``: MinLength's share of
    work, in times the first proof's nodes (0: until the minimum is proven or a limit
    ends it). ``max_length``: only mates of at most that many plies count (None: any).
    ``certify``: check a "no mate" with a disproof tree of at most ``certify_nodes``
    positions walked and re-searched (None or 0: none is built).

    ``futility_node_cap`` is a diagnostic: the node cap of the first ask of every
    futility judgement (None: the core's, :data:`FUTILITY_NODE_CAP`, and none when a
    first proof or ``max_length`` is at most :data:`UNCAPPED_MAX_LENGTH` (21) plies;
    :data:`MAX_FUTILITY_NODE_CAP`: none, every judgement settled, slower; 1: every
    judgement that needs a search is cut short, so no minimum is claimed proven).

    The same request goes unchanged from whoever made it to
    :meth:`usi_mate.Solver.search`; it pickles, so worker processes receive it as is.
    """

    time_limit_ms: int | None = None
    nodes_limit: int | None = None
    post_search: PostSearchLevel = "MinLength"
    ignore_futile_interpositions: bool = True
    root_is_and_node_if_checked: bool = False
    certify: bool = False
    max_length: int | None = None
    min_length_effort: int = DEFAULT_MIN_LENGTH_EFFORT
    certify_nodes: int | None = DEFAULT_CERTIFY_NODES
    futility_node_cap: int | None = None

    def __post_init__(self) -> None:
        check_int("time_limit_ms", self.time_limit_ms, 0, MAX_TIME_MS)
        check_int(
            "min_length_effort", self.min_length_effort, 0, MAX_MIN_LENGTH_EFFORT, none_ok=False
        )
        check_int("nodes_limit", self.nodes_limit, 0, MAX_NODES)
        check_int("max_length", self.max_length, 1, MAX_LENGTH)
        if self.post_search not in POST_SEARCH_LEVELS:
            levels = ", ".join(POST_SEARCH_LEVELS)
            raise ValueError(f"post_search must be one of {levels}, not {self.post_search!r}")
        for name in ("ignore_futile_interpositions", "root_is_and_node_if_checked", "certify"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, not {getattr(self, name)!r}")
        if self.certify:  # (read only then)
            check_int("certify_nodes", self.certify_nodes, 0, MAX_NODES)
        check_int("futility_node_cap", self.futility_node_cap, 1, MAX_FUTILITY_NODE_CAP)


class SearchOptions(TypedDict, total=False):
    """The fields of :class:`SearchRequest` as keywords (all optional): what
    :func:`usi_mate.solve`, :meth:`usi_mate.Solver.solve` and :func:`usi_mate.solve_many`
    take beside ``request``, typed (``**options: Unpack[SearchOptions]``)."""

    time_limit_ms: int | None
    nodes_limit: int | None
    post_search: PostSearchLevel
    ignore_futile_interpositions: bool
    root_is_and_node_if_checked: bool
    certify: bool
    max_length: int | None
    min_length_effort: int
    certify_nodes: int | None
    futility_node_cap: int | None


if list(SearchOptions.__annotations__) != [f.name for f in fields(SearchRequest)]:
    raise ImportError("SearchOptions must name the fields of SearchRequest, in their order")

_DEFAULT_REQUEST = SearchRequest()
# Taken for their truth value (as the entries' keywords always were): True for 1.
_TRUTH_FIELDS = ("ignore_futile_interpositions", "root_is_and_node_if_checked", "certify")


def search_request(request: SearchRequest | None, options: SearchOptions) -> SearchRequest:
    """The one maker of a request from an entry's arguments: ``request`` (None: the
    defaults) with the fields ``options`` name replaced, validated once. (The entries
    take ``options`` as keywords, ``**options: Unpack[SearchOptions]``, and hand the
    dict over as it is.)

    TypeError for a keyword that is no field of :class:`SearchRequest`, for a request
    that is none, and as :class:`SearchRequest` raises (ValueError likewise).
    ``ignore_futile_interpositions``, ``root_is_and_node_if_checked`` and ``certify``
    are taken for their truth value.
    """
    if request is not None and type(request) is not SearchRequest:
        if not isinstance(request, SearchRequest):
            raise TypeError(f"request must be a SearchRequest, not {type(request).__name__}")
    if not options:
        return _DEFAULT_REQUEST if request is None else request
    try:
        # The names, then the values, each an argument of its own: the cache tells
        # 100000.0 (refused) from 100000.
        return _cached_request(request, *options, *options.values())
    except TypeError:
        # Unhashable (a list where a number belongs) or refused: made again uncached,
        # the request raises its own error.
        return _replaced(request, options)


def _replaced(request: SearchRequest | None, options: Mapping[str, Any]) -> SearchRequest:
    changes: dict[str, Any] = {k: bool(v) if k in _TRUTH_FIELDS else v for k, v in options.items()}
    return replace(_DEFAULT_REQUEST if request is None else request, **changes)


@functools.lru_cache(maxsize=64, typed=True)
def _cached_request(request: SearchRequest | None, *names_values: Any) -> SearchRequest:
    # The requests the keywords made lately: a caller's loop asks the same each time, and
    # validating a SearchRequest again would cost a short search's call more than it
    # (docs/BENCHMARKS.md, "What a call's path costs").
    half = len(names_values) // 2
    return _replaced(request, dict(zip(names_values[:half], names_values[half:], strict=True)))
