"""usi-mate: a tsume-shogi (mate problem) engine with a compiled df-pn core.

Public API:

- :class:`Position`: positions (SFEN, USI moves) and exact move generation;
- :func:`solve` and :class:`Solver`: the df-pn mate search;
- :class:`MateResult`, :class:`SearchProgress`: what a search returns and reports.
"""

from ._core import BLACK, START_SFEN, WHITE, Position, Solver
from .solver import solve
from .types import MateResult, SearchProgress

__version__ = "0.1.0"

__all__ = [
    "BLACK",
    "WHITE",
    "START_SFEN",
    "Position",
    "Solver",
    "solve",
    "MateResult",
    "SearchProgress",
    "__version__",
]
