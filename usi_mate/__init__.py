"""usi-mate: a tsume-shogi (mate problem) engine with a compiled df-pn core.

The public Python API: :class:`Position` for positions and exact move generation.
"""

from ._core import BLACK, START_SFEN, WHITE, Position

__version__ = "0.1.0"

__all__ = ["BLACK", "WHITE", "START_SFEN", "Position", "__version__"]
