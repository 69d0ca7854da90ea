"""Board diagrams (usi_mate.board): cshogi's SVG of a position, and the text board without it.

The drawing is read back as XML: each piece placed (``<use>``) on its square with the
glyphs of its definition, the hands as text, the marked squares as rectangles, and
compared with what usi_mate's Position says is there.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

import pytest
from board_svg import (
    SVG,
    XLINK_HREF,
    drawn_board,
    drawn_pieces,
    hand_texts,
    marked_squares,
    pieces_of,
)

from usi_mate import Position, board

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


def test_every_piece_is_drawn_on_its_square_with_its_glyphs():
    pos = Position(EVERY_PIECE)
    root = ET.fromstring(board.svg(pos))
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 230 192"
    expected = pieces_of(pos)
    assert drawn_board(root) == expected
    drawn = drawn_pieces(root)
    for square, piece in expected.items():
        _, glyphs, turned = drawn[square]
        white = piece.lstrip("+").islower()
        assert turned == white, (square, piece)
        if piece.upper() == "K":
            # 玉 for the defender (white) as printed problems draw it; cshogi draws 王.
            assert glyphs == ("玉" if white else "王"), (square, piece, glyphs)
        else:
            assert glyphs == GLYPHS[piece.upper()], (square, piece, glyphs)


def test_both_hands_with_their_counts():
    assert hand_texts(ET.fromstring(board.svg(EVERY_PIECE))) == ("☗先手金二歩三", "☖後手銀歩十一")
    # A tsume problem's defender holds the rest: seventeen pawns and more (drawn smaller).
    tsume = board.svg("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1")
    black, white = hand_texts(ET.fromstring(tsume))
    assert black == "☗先手金" and white == "☖後手飛二角二金三銀四桂四香四歩十七"


@pytest.mark.parametrize(
    "before, move, squares",
    [
        ("startpos", "7g7f", {"#f6b94d": "7f", "#fdf0e3": "7g"}),
        ("startpos moves 7g7f 3c3d", "8h2b+", {"#f6b94d": "2b", "#fdf0e3": "8h"}),
        ("4k4/9/9/9/9/9/9/9/4K4 b G 1", "G*5b", {"#f6b94d": "5b"}),
    ],
)
def test_a_move_is_marked_whether_about_to_be_played_or_just_played(before, move, squares):
    ahead = Position(before)
    played = Position(ahead.sfen() + " moves " + move)
    for pos in (ahead, played):
        assert marked_squares(ET.fromstring(board.svg(pos, move=move))) == squares
    assert marked_squares(ET.fromstring(board.svg(ahead))) == {}


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
    assert marked_squares(root) == {"#f6b94d": "2b", "#fdf0e3": "8h"}  # the last move
    assert pos._repr_html_().startswith("<svg")
    assert marked_squares(ET.fromstring(Position()._repr_svg_())) == {}  # no move pushed


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
