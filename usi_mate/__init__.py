"""usi-mate: a tsume-shogi (mate problem) engine with a compiled df-pn core.

Public API:

- :class:`Position`: positions (SFEN, USI moves) and exact move generation; in Jupyter
  it shows itself as a board diagram (:mod:`usi_mate.board`, cshogi's drawing);
- :func:`solve` and :class:`Solver`: the df-pn mate search;
- :class:`SearchRequest`: one search's limits and settings, as :meth:`Solver.search`
  takes them;
- :func:`solve_many`: many positions, in order, optionally in worker processes;
- :func:`usi_to_kif`: a line of USI moves in Japanese (KIF) notation;
- :func:`check`: a composer's check of a problem (cooks, variations, spare pieces),
  giving a :class:`CheckReport` (module :mod:`usi_mate.checker`);
- :class:`MateResult`, :class:`SearchProgress`: what a search returns and reports;
- :class:`Certification`: an independent check of a "no mate" (``certify=True``).
"""

from typing import Any

try:
    from ._core import BLACK, START_SFEN, WHITE, Position, Solver
except ImportError as error:
    import os
    from importlib.machinery import EXTENSION_SUFFIXES

    _folder = os.path.dirname(os.path.abspath(__file__))
    if any(os.path.exists(os.path.join(_folder, "_core" + s)) for s in EXTENSION_SUFFIXES):
        raise  # a core is there but does not load: the error says why
    # Typically a checkout's usi_mate/ after a plain `pip install .`: Python looks in the
    # current folder first, so `python -m usi_mate` from the checkout root finds the
    # sources, whose core the install compiled into site-packages only.
    raise ImportError(
        f"usi_mate was imported from the source folder {_folder}, which has no compiled "
        f"core for this Python (_core{EXTENSION_SUFFIXES[0]}). In the checkout, build it in "
        "place with `pip install -e .` (the developer's install); or run from another "
        "folder to use the installed usi_mate."
    ) from error
from .settings import SearchRequest
from .solver import solve
from .types import Certification, MateResult, SearchProgress

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Imported on first use: the USI engine never loads the batch machinery
    # (multiprocessing, queues) or the KIF tables.
    if name == "solve_many":
        from .runners import solve_many

        return solve_many
    if name == "usi_to_kif":
        from .kif import usi_to_kif

        return usi_to_kif
    if name == "check":
        # The function lives in usi_mate.checker: a submodule named "check" would
        # replace this attribute with itself once imported.
        from .checker import check

        return check
    if name == "CheckReport":
        from .check_report import CheckReport

        return CheckReport
    raise AttributeError(f"module 'usi_mate' has no attribute {name!r}")


__all__ = [
    "BLACK",
    "WHITE",
    "START_SFEN",
    "Position",
    "Solver",
    "solve",
    "solve_many",
    "usi_to_kif",
    "check",
    "CheckReport",
    "MateResult",
    "Certification",
    "SearchProgress",
    "SearchRequest",
    "__version__",
]
