"""The one-call mate search API: :func:`solve`."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from ._core import Position, Solver
from .settings import DEFAULT_HASH_MB, DEFAULT_MIN_LENGTH_EFFORT, SearchRequest
from .types import MateResult, SearchProgress


def solve(
    position: Position | str,
    *,
    time_limit_ms: int | None = None,
    nodes_limit: int | None = None,
    hash_mb: int = DEFAULT_HASH_MB,
    on_progress: Callable[[SearchProgress], None] | None = None,
    root_is_and_node_if_checked: bool = False,
    post_search: str = "MinLength",
    ignore_futile_interpositions: bool = True,
    certify: bool = False,
    max_length: int | None = None,
    threads: int = 1,
    min_length_effort: int = DEFAULT_MIN_LENGTH_EFFORT,
) -> MateResult:
    """Search ``position`` for a mate with a fresh table of ``hash_mb`` MB.

    ``position`` is a :class:`Position`, an SFEN, or USI position text
    (``"startpos moves ..."``, ``"sfen ... moves ..."``). The side to move
    attacks. ``post_search`` is "MinLength" (default: the shortest mate under
    the longest defence), "UpperBound" or "None" (the first proof, fastest).
    ``ignore_futile_interpositions`` (default) leaves futile interpositions
    (無駄合) out of the count and the line, as composers do.
    With ``certify``, a "no mate" is checked by replaying an explicit
    disproof tree without the search's table (``result.certification``).
    ``max_length``: only mates of at most that many plies count.
    ``threads``: search threads sharing the table (the verdict never depends on it).
    ``min_length_effort``: MinLength's share of work after the first proof, in times
    its nodes (0: until the shortest mate is proven or a limit); see :meth:`Solver.solve`.

    Raises ValueError for malformed position text and bad arguments; see
    :meth:`Solver.solve` for the result. For many problems in a row, keep a
    :class:`Solver` or use :func:`solve_many`.

    Each thread keeps the Solver of its last call (its ``hash_mb`` and ``threads``) for
    the next, cleared before each search: the answer is the one a new Solver gives
    (the same nodes and line with one thread), without building a Solver every call.
    Its table, as much of ``hash_mb`` as the searches used, stays allocated between
    calls; :func:`release` frees this thread's.
    """
    solver = _kept_solver(hash_mb, threads)
    request = SearchRequest(
        time_limit_ms=time_limit_ms,
        nodes_limit=nodes_limit,
        # (these three are taken for their truth value, as Solver.solve takes them)
        root_is_and_node_if_checked=bool(root_is_and_node_if_checked),
        post_search=post_search,
        ignore_futile_interpositions=bool(ignore_futile_interpositions),
        certify=bool(certify),
        max_length=max_length,
        min_length_effort=min_length_effort,
    )
    return solver.search(position, request, on_progress=on_progress)


_kept = threading.local()


def _kept_solver(hash_mb: int, threads: int) -> Solver:
    """This thread's Solver, cleared, when it has these settings; else a new one, kept in
    its place unless the kept one is searching (solve() called from a progress callback)."""
    kept: Solver | None = getattr(_kept, "solver", None)
    if kept is not None and kept.state != "idle":
        return Solver(hash_mb, threads=threads)  # the outer call's stays kept
    if kept is not None and (kept.hash_mb, kept.threads) == (hash_mb, threads):
        kept.clear()
        return kept
    _kept.solver = None  # the old table goes before the new one is allocated
    _kept.solver = Solver(hash_mb, threads=threads)
    return _kept.solver


def release() -> None:
    """Free the Solver (and its table) that :func:`solve` keeps for this thread."""
    _kept.solver = None


def _forget_in_child() -> None:
    # A forked child has no search thread behind the parent's Solver: it builds its own.
    global _kept
    _kept = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
