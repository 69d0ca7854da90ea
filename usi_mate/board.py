"""Board diagrams: a position drawn as SVG, for Jupyter and the HTML check report.

The drawing is cshogi's (``cshogi.Board.to_svg``): the 9x9 board with its coordinates,
promoted pieces as one glyph (と, 馬, 龍) or two (成香, 成桂, 成銀), the defender's pieces
turned round, and both hands in kanji with their counts (歩十八). It is used as a library,
installed separately (``pip install "usi-mate[board]"``, or cshogi on its own); none of
its code is copied here. cshogi is GPL-3.0: usi-mate stays MIT, and whoever distributes
the two together (a frozen program, say) does so under the GPL's terms.

Without cshogi, :func:`html` gives the KIF text diagram (BOD) with a note saying how to
get the drawing, and :func:`svg` raises :class:`ModuleNotFoundError`.

Two things are changed in cshogi's SVG, and only these:

- the ids of its piece definitions get a prefix, one per drawing: a page (a notebook, the
  report) holding several drawings would otherwise hold the same id many times, and a
  browser may then not draw the pieces of a drawing whose first namesake is hidden;
- the defender's king reads 玉, as in printed problems (cshogi draws 王 for both).

The board has no fill of its own (it is transparent): the report gives it a board colour.
"""

from __future__ import annotations

import html as _html
import itertools
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._core import Position

__all__ = ["available", "svg", "html", "INSTALL_HINT"]

INSTALL_HINT = 'board diagrams need cshogi: pip install "usi-mate[board]"'
# cshogi's piece types for drops (its constants PAWN ... GOLD, stable since 0.x).
_DROP_TYPES = {"P": 1, "L": 2, "N": 3, "S": 4, "B": 5, "R": 6, "G": 7}
_USI_SQUARE = re.compile(r"[1-9][a-i]")
_ids = itertools.count()


def available() -> bool:
    """Whether diagrams can be drawn (cshogi imports)."""
    try:
        import cshogi  # noqa: F401
    except ImportError:
        return False
    return True


def _square(text: str) -> int:
    # cshogi's square numbers: file 1 rank a is 0, then down the file, as usi_mate's core.
    return (ord(text[0]) - ord("1")) * 9 + ord(text[1]) - ord("a")


def _cshogi_move(board: Any, move: str) -> int:
    """cshogi's code for a USI move, for its squares only (``to_svg`` marks from and to).

    Built from the squares alone, so that the move may be one just played (its piece is
    no longer on the from square) as well as one about to be played.
    """
    if len(move) == 4 and move[1] == "*" and move[0] in _DROP_TYPES and _USI_SQUARE.match(move[2:]):
        return int(board.drop_move(_square(move[2:]), _DROP_TYPES[move[0]]))
    if len(move) in (4, 5) and _USI_SQUARE.match(move[:2]) and _USI_SQUARE.match(move[2:4]):
        if len(move) == 4 or move[4] == "+":
            return int(board.move(_square(move[:2]), _square(move[2:4]), len(move) == 5))
    raise ValueError(f"not a USI move: {move!r}")


def _sfen(position: Position | str) -> str:
    if isinstance(position, str):
        from ._core import Position

        return Position(position).sfen()
    return position.sfen()


def svg(
    position: Position | str,
    *,
    move: str | None = None,
    scale: float = 1.5,
    id_prefix: str | None = None,
) -> str:
    """The position drawn as an SVG document (a string starting ``<svg``).

    ``position`` is a :class:`~usi_mate.Position` or a position text (SFEN, ``sfen ...
    moves ...``). ``move`` (USI) has its from and to squares marked (a drop: its square):
    the move that led to the position, or one about to be played in it, as the check
    report marks each alternative where it arises. ``scale`` 1 is 230 x 192 px.
    ``id_prefix`` names the drawing's ids (default: a new one each call). Raises
    ModuleNotFoundError without cshogi, ValueError for a bad position or move text.
    """
    sfen = _sfen(position)
    try:
        import cshogi
    except ImportError:
        raise ModuleNotFoundError(INSTALL_HINT, name="cshogi") from None
    board = cshogi.Board(sfen)
    last = None if move is None else _cshogi_move(board, move)
    text = str(board.to_svg(lastmove=last, scale=scale))
    prefix = f"usi-mate-board-{next(_ids)}-" if id_prefix is None else id_prefix
    text = re.sub(r'( id="|href="#)', rf"\g<1>{prefix}", text)
    # The defender's king as printed problems draw it: cshogi's white-king group holds one
    # text element, 王, which ElementTree writes as a character reference.
    return re.sub(
        rf'(<g id="{re.escape(prefix)}white-king"[^>]*><text[^>]*>)(?:王|&#29579;)<',
        r"\g<1>&#29577;<",  # 玉
        text,
    )


def html(
    position: Position | str,
    *,
    move: str | None = None,
    scale: float = 1.5,
    id_prefix: str | None = None,
) -> str:
    """The diagram as an HTML fragment: the inline SVG, or without cshogi a text board.

    The text board is the KIF board diagram (BOD, :func:`usi_mate.kif.board_diagram`:
    ``v玉`` for the defender's pieces, hands in kanji) in a ``<pre>``, with a note saying
    how to get the drawing; ``move`` is then not marked. Arguments as for :func:`svg`.
    """
    try:
        return svg(position, move=move, scale=scale, id_prefix=id_prefix)
    except ModuleNotFoundError as e:
        if e.name != "cshogi":
            raise
    from .kif import board_diagram

    text = "\n".join(board_diagram(position))
    return (
        f'<pre class="board-text">{_html.escape(text)}</pre>'
        f'<p class="board-note">{_html.escape(INSTALL_HINT)} for a drawn board</p>'
    )
