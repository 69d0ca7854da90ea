"""Board diagrams (usi_mate.board): cshogi's SVG of a position, and the text board without it.

The drawing is read back as XML: each piece placed (``<use>``) on its square with the
glyphs of its definition, the hands as text, the marked squares as rectangles, and
compared with what usi_mate's Position says is there.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

import pytest

from usi_mate import Position, board

SVG = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
# Every kind of piece, promoted and not, for both sides, and both hands (legal: black to
# move, white not in check; 4 of each piece but 18 pawns): 後手 s 11p, 先手 2G 3P.
EVERY_PIECE = "ln2k4/1r1+s1+l2+P/p+n+p6/8+R/4+b4/9/P+N+S+L5/1B7/LN1GK1s1g b 2G3Ps11p 1"
GLYPHS = {
    "P": "歩",
    "L": "香",
    "N": "桂",
    "S": "銀",
    "G": "金",
    "B": "角",
    "R": "飛",
    "+P": "と",
    "+L": "成香",
    "+N": "成桂",
    "+S": "成銀",
    "+B": "馬",
    "+R": "龍",
}


def squares_of(root: ET.Element) -> dict[str, tuple[str, str, bool]]:
    """Square -> (piece id, its glyphs, turned round) for every piece the drawing places.

    The board's origin and pitch are read off the drawing (cshogi places a piece of file
    f, rank r at x = x0 + (9 - f) * 20, y = y0 + (r - 1) * 20); the defender's pieces are
    the definitions drawn rotated by 180 degrees.
    """
    defs = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    uses = list(root.iter(f"{SVG}use"))
    x0 = min(float(u.get("x")) for u in uses) if uses else 0.0
    y0 = min(float(u.get("y")) for u in uses) if uses else 0.0
    out = {}
    for u in uses:
        ident = u.get(XLINK_HREF)[1:]
        g = defs[ident]
        glyphs = "".join(t.text for t in g.iter(f"{SVG}text"))
        file = 9 - round((float(u.get("x")) - x0) / 20)
        rank = round((float(u.get("y")) - y0) / 20) + 1
        out[(file, rank)] = (ident, glyphs, "rotate(180)" in (g.get("transform") or ""))
    return out


def test_every_piece_is_drawn_on_its_square_with_its_glyphs():
    pos = Position(EVERY_PIECE)
    root = ET.fromstring(board.svg(pos))
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 230 192"
    drawn = squares_of(root)
    # The leftmost file and top rank hold pieces (9a, 9c), so the origin read off the
    # drawing is file 9, rank 1.
    expected = {}
    for file in range(1, 10):
        for rank in range(1, 10):
            piece = pos.piece_at(f"{file}{'abcdefghi'[rank - 1]}")
            if piece is not None:
                expected[(file, rank)] = piece
    assert set(drawn) == set(expected)
    for square, piece in expected.items():
        ident, glyphs, turned = drawn[square]
        white = piece.lstrip("+").islower()
        assert turned == white and ident.split("-", 4)[-1].startswith("white" if white else "black")
        if piece.upper() == "K":
            # 玉 for the defender (white) as printed problems draw it; cshogi draws 王.
            assert glyphs == ("玉" if white else "王"), (square, piece, glyphs)
        else:
            assert glyphs == GLYPHS[piece.upper()], (square, piece, glyphs)


def hand_texts(root: ET.Element) -> tuple[str, str]:
    """The hands as read: black's top to bottom, white's as white reads it (turned round)."""
    texts = [t for t in root.findall(f"{SVG}text")]  # the hands are the drawing's own texts
    black = [t for t in texts if not t.get("transform")]
    white = [t for t in texts if t.get("transform") == "rotate(180)"]

    def read(ts):
        return "".join(t.text for t in sorted(ts, key=lambda t: float(t.get("y"))))

    return read(black), read(white)


def test_both_hands_with_their_counts():
    assert hand_texts(ET.fromstring(board.svg(EVERY_PIECE))) == ("☗先手金二歩三", "☖後手銀歩十一")
    # A tsume problem's defender holds the rest: eighteen pawns and more (drawn smaller).
    black, white = hand_texts(
        ET.fromstring(board.svg("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"))
    )
    assert black == "☗先手金" and white == "☖後手飛二角二金三銀四桂四香四歩十七"


def marked(root: ET.Element) -> dict[str, tuple[float, float]]:
    """The marked squares by colour: cshogi fills the destination orange, the origin pale."""
    return {
        r.get("fill"): (float(r.get("x")), float(r.get("y"))) for r in root.findall(f"{SVG}rect")
    }


@pytest.mark.parametrize("move", ["7g7f", "8h2b+", "G*5e"])
def test_a_move_is_marked_whether_about_to_be_played_or_just_played(move):
    before = Position("startpos moves 7g7f 3c3d" if move == "8h2b+" else "startpos")
    if move == "G*5e":
        before = Position("4k4/9/9/9/9/9/9/9/4K4 b G 1")
    after = Position(before.sfen() + " moves " + move)
    ahead, played = (marked(ET.fromstring(board.svg(p, move=move))) for p in (before, after))
    assert ahead == played
    assert len(played) == (1 if "*" in move else 2)
    # The destination rectangle lies where the moved piece is drawn.
    drawn = {(u.get("x"), u.get("y")) for u in ET.fromstring(board.svg(after)).iter(f"{SVG}use")}
    x, y = played["#f6b94d"]
    assert (str(x), str(y)) in drawn
    assert marked(ET.fromstring(board.svg(before))) == {}


@pytest.mark.parametrize("move", ["7g7", "x*5e", "K*5e", "7g7f=", ""])
def test_a_malformed_move_is_a_value_error(move):
    with pytest.raises(ValueError, match="not a USI move"):
        board.svg("startpos", move=move)


def test_a_bad_position_is_a_value_error_before_anything_is_drawn():
    with pytest.raises(ValueError):
        board.svg("not a position")
    with pytest.raises(ValueError):
        board.html("9/9/9 b - 1")


def test_each_drawing_has_its_own_ids_and_every_reference_resolves():
    a, b = board.svg("startpos"), board.svg("startpos")
    ids = []
    for text in (a, b):
        root = ET.fromstring(text)
        own = {e.get("id") for e in root.iter() if e.get("id")}
        refs = {u.get(XLINK_HREF)[1:] for u in root.iter(f"{SVG}use")}
        assert refs and refs <= own
        ids.append(own)
    assert not ids[0] & ids[1]
    fixed = board.svg("startpos", id_prefix="p0-start-")
    assert fixed == board.svg("startpos", id_prefix="p0-start-")  # deterministic
    assert 'id="p0-start-black-pawn"' in fixed


def test_position_shows_itself_as_a_board_in_jupyter():
    pos = Position("startpos moves 7g7f 3c3d 8h2b+")
    svg = pos._repr_svg_()
    assert svg is not None and svg.startswith("<svg")
    root = ET.fromstring(svg)
    assert len(marked(root)) == 2  # the last move, 8h2b+
    assert pos._repr_html_().startswith("<svg")
    assert len(marked(ET.fromstring(Position()._repr_svg_()))) == 0  # no move pushed


def test_without_cshogi_the_text_diagram_with_a_note(monkeypatch):
    monkeypatch.setitem(sys.modules, "cshogi", None)  # import cshogi now fails
    assert not board.available()
    pos = Position("9/8k/6n1N/8B/9/8L/9/9/9 b 2NG2rb3g4s3l18p 1")
    with pytest.raises(ModuleNotFoundError, match=r"usi-mate\[board\]"):
        board.svg(pos)
    assert pos._repr_svg_() is None  # Jupyter falls back to the HTML
    page = pos._repr_html_()
    assert page.startswith('<pre class="board-text">')
    assert "| ・ ・ ・ ・ ・ ・ ・ ・v玉|二" in page and "先手の持駒：金　桂二　" in page
    assert "pip install &quot;usi-mate[board]&quot;" in page
    assert board.html(pos, move="N*2d") == page  # no move marked in text
