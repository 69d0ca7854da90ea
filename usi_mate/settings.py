"""Search settings: one typed, validated object from wherever settings enter.

USI options (:mod:`usi_mate.options`), the ``usi-mate solve`` command line and the
keywords of :func:`usi_mate.solve` / :func:`usi_mate.solve_many` all end up as a
:class:`SearchSettings`, validated once, here; :meth:`SearchSettings.keywords`
hands them to :meth:`usi_mate.Solver.solve`. Times are integer milliseconds
end to end.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_HASH_MB = 256  # transposition table per solver, MB: ~8 M entries of 32 bytes
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
MAX_LENGTH = 3999  # the search follows paths of fewer than 4000 plies
POST_SEARCH_LEVELS = ("None", "UpperBound", "MinLength")
# MinLength's share of work after the first proof, in times the first proof's nodes
# (at least 100,000 nodes): then the answer is final, its length proven the shortest or not
# (docs/DFPN.md, "When the answer is final"). The core's kDefaultMinLengthEffort
# (usi_mate._core.DEFAULT_MIN_LENGTH_EFFORT; tests/test_solver.py checks they agree).
DEFAULT_MIN_LENGTH_EFFORT = 2
MAX_MIN_LENGTH_EFFORT = 1_000_000


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
class SearchSettings:
    """How one search runs (every field as :meth:`usi_mate.Solver.solve` takes it).

    ``time_limit_ms`` / ``nodes_limit``: None for no limit. ``post_search``:
    "None", "UpperBound" or "MinLength". ``min_length_effort``: MinLength's share of
    work, in times the first proof's nodes (0: until the minimum is proven or a limit
    ends it). ``max_length``: only mates of at most that many plies count (None: any).
    Raises TypeError/ValueError when built with a bad value.
    """

    time_limit_ms: int | None = None
    nodes_limit: int | None = None
    post_search: str = "MinLength"
    ignore_futile_interpositions: bool = True
    root_is_and_node_if_checked: bool = False
    certify: bool = False
    max_length: int | None = None
    min_length_effort: int = DEFAULT_MIN_LENGTH_EFFORT

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

    def keywords(self) -> dict[str, Any]:
        """The settings as keywords of :meth:`usi_mate.Solver.solve`."""
        return asdict(self)
