"""The one-call mate search API: :func:`solve`."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import _core
from ._core import Position, Solver
from .settings import DEFAULT_HASH_MB, SearchOptions, SearchRequest, search_request
from .types import MateResult, SearchProgress

if sys.version_info >= (3, 11):
    from typing import Unpack
elif TYPE_CHECKING:  # (Python 3.10 runs without it: the annotations are never evaluated)
    from typing_extensions import Unpack


def solve(
    position: Position | str,
    request: SearchRequest | None = None,
    *,
    hash_mb: int = DEFAULT_HASH_MB,
    threads: int = 1,
    on_progress: Callable[[SearchProgress], None] | None = None,
    **options: Unpack[SearchOptions],
) -> MateResult:
    """Search ``position`` for a mate with a fresh table of ``hash_mb`` MB.

    ``position`` is a :class:`Position`, an SFEN, or USI position text
    (``"startpos moves ..."``, ``"sfen ... moves ..."``). The side to move
    attacks. The search is ``request`` (a :class:`SearchRequest`; None: the
    defaults) with the fields the other keywords name replaced (``options``, any of
    :class:`usi_mate.settings.SearchOptions`: ``time_limit_ms``, ``nodes_limit``,
    ``post_search``, ...), as :meth:`Solver.solve` takes them. ``post_search`` is
    "MinLength" (default: the shortest mate under the longest defence), "UpperBound"
    or "None" (the first proof, fastest).
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
    wanted = search_request(request, options)  # (bad arguments raise before a table is made)
    solver = _kept_solver(hash_mb, threads)
    if (
        wanted.nodes_limit is None
        and wanted.time_limit_ms is None
        and on_progress is None
        and threads == 1
        and _core._MAIN_STACK_HOLDS_A_SEARCH
        and threading.current_thread() is threading.main_thread()
    ):
        sliced = search_request(wanted, {"nodes_limit": _FIRST_SLICE_NODES})  # (cached)
        first = solver.search(position, sliced)
        if not _reached(first, _FIRST_SLICE_NODES):
            return first  # (nothing reached the cap: the unlimited search's answer)
        solver.clear()
    return solver.search(position, wanted, on_progress=on_progress)


# A search without limits from the main thread runs on the search thread, so that
# Ctrl-C can stop it; the handoff costs more than a mate in a few plies (about 20 us,
# docs/BENCHMARKS.md, "The cost of a call"). solve() first asks the same search within
# this many nodes, which runs on the calling thread (Ctrl-C waits for at most these):
# one that ends within them answers as the unlimited search does, node for node, since
# nothing in it reached the cap; else the table is cleared and the search asked again
# in full, so the answer is still a new Solver's.
_FIRST_SLICE_NODES = 20_000


def _reached(result: MateResult, cap: int) -> bool:
    """Whether a search within ``cap`` nodes may have answered otherwise without it."""
    return result.nodes >= cap or "nodes" in (result.stop_reason, result.length_stop)


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
    _kept.solver = made = Solver(hash_mb, threads=threads)
    return made


def release() -> None:
    """Free the Solver (and its table) that :func:`solve` keeps for this thread."""
    _kept.solver = None


def _forget_in_child() -> None:
    # A forked child has no search thread behind the parent's Solver: it builds its own.
    global _kept
    _kept = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
