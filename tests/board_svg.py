"""Reading a board diagram (usi_mate.board's SVG, cshogi's drawing) back, for the tests.

The board's place and pitch are read off the drawing itself (its outline: the one
unfilled rectangle), so the tests compare squares, not cshogi's coordinates.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from usi_mate import Position

SVG = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
RANKS = "abcdefghi"


def board_box(root: ET.Element) -> tuple[float, float, float]:
    """(x, y, pitch) of the 9x9 board in the drawing's units: its outline rectangle."""
    (outline,) = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "none"]
    return float(outline.get("x")), float(outline.get("y")), float(outline.get("width")) / 9


def square_at(root: ET.Element, x: float, y: float) -> str:
    """The USI square whose cell starts at (x, y) (file 9 is on the left, rank a on top)."""
    x0, y0, pitch = board_box(root)
    file, rank = 9 - round((x - x0) / pitch), round((y - y0) / pitch) + 1
    assert 1 <= file <= 9 and 1 <= rank <= 9, (x, y)
    return f"{file}{RANKS[rank - 1]}"


def cell(root: ET.Element, square: str) -> tuple[float, float, float]:
    """(x, y, pitch): where the cell of a USI square starts, in the drawing's units."""
    x0, y0, pitch = board_box(root)
    return x0 + (9 - int(square[0])) * pitch, y0 + RANKS.index(square[1]) * pitch, pitch


def drawn_pieces(root: ET.Element) -> dict[str, tuple[str, str, bool]]:
    """USI square -> (the piece definition's id, its glyphs, whether it is turned round)."""
    defs = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    out = {}
    for use in root.iter(f"{SVG}use"):
        ident = use.get(XLINK_HREF)[1:]
        g = defs[ident]
        glyphs = "".join(t.text or "" for t in g.iter(f"{SVG}text"))
        turned = "rotate(180)" in (g.get("transform") or "")
        out[square_at(root, float(use.get("x")), float(use.get("y")))] = (ident, glyphs, turned)
    return out


# cshogi's names of its piece definitions (black-..., white-...), by USI letter.
PIECE_NAMES = {
    "pawn": "P",
    "lance": "L",
    "knight": "N",
    "silver": "S",
    "gold": "G",
    "bishop": "B",
    "rook": "R",
    "king": "K",
    "pro-pawn": "+P",
    "pro-lance": "+L",
    "pro-knight": "+N",
    "pro-silver": "+S",
    "horse": "+B",
    "dragon": "+R",
}


def drawn_board(root: ET.Element) -> dict[str, str]:
    """USI square -> piece as usi_mate writes it ("P", "+s"), by the definition placed."""
    out = {}
    for square, (ident, _, _) in drawn_pieces(root).items():
        colour, name = re.search(r"(black|white)-([a-z-]+)$", ident).groups()
        piece = PIECE_NAMES[name]
        out[square] = piece if colour == "black" else piece.lower()
    return out


def pieces_of(position: Position) -> dict[str, str]:
    """USI square -> piece ("P", "+s", ...) for every occupied square."""
    out = {}
    for file in range(1, 10):
        for rank in RANKS:
            piece = position.piece_at(f"{file}{rank}")
            if piece is not None:
                out[f"{file}{rank}"] = piece
    return out


def marked_squares(root: ET.Element) -> dict[str, str]:
    """Fill colour -> USI square of the filled squares: cshogi fills a marked move's
    destination orange (#f6b94d) and its origin pale (#fdf0e3)."""
    return {
        r.get("fill"): square_at(root, float(r.get("x")), float(r.get("y")))
        for r in root.findall(f"{SVG}rect")
        if r.get("fill") not in (None, "none")
    }


def hand_texts(root: ET.Element) -> tuple[str, str]:
    """The hands as read: black's top to bottom, white's as white reads it (turned round).

    They are the drawing's own top-level texts (the coordinates are in a group)."""
    texts = root.findall(f"{SVG}text")
    black = [t for t in texts if not t.get("transform")]
    white = [t for t in texts if t.get("transform") == "rotate(180)"]

    def read(ts):
        return "".join(t.text or "" for t in sorted(ts, key=lambda t: float(t.get("y"))))

    return read(black), read(white)
