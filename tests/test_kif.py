"""KIF notation against hand-checked lines.

Every expected string below was worked out by hand from the diagram of its
position (files counted right to left, ranks top to bottom), not produced by
the code under test.
"""

from __future__ import annotations

import pytest

from usi_mate import Position
from usi_mate.kif import board_diagram, format_kif_moves, format_kif_record, usi_to_kif

# Tendō banqueta #1 (9 plies), the solver's line: the king on 2e, a white
# knight on 2d, a black knight on 2h; black holds three golds.
TENDO_1 = "9/9/9/5Bnns/7k1/6r2/6B2/7N1/9 b 3Grg3sn4l18p 1"
TENDO_1_LINE = ["G*1f", "2d1f", "G*2d", "2e2d", "2h3f", "2d1c", "G*2d", "1c1b", "R*1a"]


def test_tsume_line_with_drops_recaptures_and_white_replies():
    # G*1f taken by the knight from 2d; G*2d taken by the king; the knight
    # 2h-3f takes white's rook, which is dropped on 1a at the end.
    assert usi_to_kif(TENDO_1, TENDO_1_LINE) == [
        "▲１六金打",
        "△同\u3000桂",
        "▲２四金打",
        "△同\u3000玉",
        "▲３六桂",
        "△１三玉",
        "▲２四金打",
        "△１二玉",
        "▲１一飛打",
    ]


def test_tsume_line_as_kif_moves_and_board():
    assert format_kif_moves(TENDO_1, TENDO_1_LINE, end="詰み") == [
        "   1 １六金打",
        "   2 同\u3000桂(24)",
        "   3 ２四金打",
        "   4 同\u3000玉(25)",
        "   5 ３六桂(28)",
        "   6 １三玉(24)",
        "   7 ２四金打",
        "   8 １二玉(13)",
        "   9 １一飛打",
        "  10 詰み",
    ]
    board = board_diagram(TENDO_1)
    assert board[0] == "後手の持駒：飛\u3000金\u3000銀三\u3000桂\u3000香四\u3000歩十八\u3000"
    assert board[6] == "| ・ ・ ・ ・ ・ 角v桂v桂v銀|四"
    assert board[7] == "| ・ ・ ・ ・ ・ ・ ・v玉 ・|五"
    assert board[8] == "| ・ ・ ・ ・ ・ ・v飛 ・ ・|六"
    assert board[-2:] == ["先手の持駒：金三\u3000", "先手番"]


def test_opening_with_promotion_recapture_and_drop():
    # 角換わり: ▲7六歩 △3四歩 ▲2二角成 △同銀 ▲4五角打.
    moves = ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]
    assert usi_to_kif("startpos", moves) == [
        "▲７六歩",
        "△３四歩",
        "▲２二角成",
        "△同\u3000銀",
        "▲４五角打",
    ]


def test_declined_promotion_is_marked_for_people():
    assert usi_to_kif("startpos", ["7g7f", "3c3d", "8h2b", "3a2b"]) == [
        "▲７六歩",
        "△３四歩",
        "▲２二角不成",
        "△同\u3000銀",
    ]


@pytest.mark.parametrize(
    "sfen, moves, expected",
    [
        # Silver leaving the zone without promoting: from 4c (in black's zone) to 5d.
        ("k8/9/5S3/9/9/9/9/9/4K4 b - 1", "4c5d", ["▲５四銀不成"]),
        # Knight into rank 3 may stay a knight; into rank 2 it must promote.
        ("k8/9/9/9/7N1/9/9/9/4K4 b - 1", "2e1c", ["▲１三桂不成"]),
        ("k8/9/9/7N1/9/9/9/9/4K4 b - 1", "2d1b+", ["▲１二桂成"]),
        ("k8/9/9/7P1/9/9/9/9/4K4 b - 1", "2d2c+", ["▲２三歩成"]),
        # Gold cannot promote: no suffix even inside the zone.
        ("k8/9/4G4/9/9/9/9/9/4K4 b - 1", "5c5b", ["▲５二金"]),
        # Outside the zone nothing to decline.
        ("k8/9/9/9/9/9/9/9/4K3L b - 1", "1i1e", ["▲１五香"]),
        # White: its zone is ranks 7-9.
        ("4k4/9/9/9/9/9/4s4/9/K8 w - 1", "5g5h", ["△５八銀不成"]),
        ("4k4/9/9/9/9/9/4s4/9/K8 w - 1", "5g5h+", ["△５八銀成"]),
        ("4k4/9/9/9/9/9/9/9/4K4 w p 1", "P*5e", ["△５五歩打"]),
        # Kings are 玉 on both sides.
        ("k8/9/9/9/9/9/9/9/4K4 b - 1", "5i5h 9a9b", ["▲５八玉", "△９二玉"]),
    ],
)
def test_suffixes_and_sides(sfen, moves, expected):
    assert usi_to_kif(sfen, moves.split()) == expected


def test_promoted_pieces_moving():
    sfen = "k8/9/9/9/4+N4/9/9/1+R6+B/4K3+L b - 1"
    moves = ["5e4d", "9a9b", "8h8d", "9b9a", "1h5d", "9a9b", "1i1h"]
    assert usi_to_kif(sfen, moves) == [
        "▲４四成桂",
        "△９二玉",
        "▲８四龍",
        "△９一玉",
        "▲５四馬",
        "△９二玉",
        "▲１八成香",
    ]
    assert usi_to_kif("k8/9/9/9/4+S4/9/9/9/4K4 b - 1", ["5e5d"]) == ["▲５四成銀"]
    assert usi_to_kif("k8/9/9/9/4+P4/9/9/9/4K4 b - 1", ["5e5d"]) == ["▲５四と"]
    # Already promoted: moving in the zone is neither 成 nor 不成.
    assert usi_to_kif("k8/9/4+S4/9/9/9/9/9/4K4 b - 1", ["5c5b"]) == ["▲５二成銀"]


def test_same_square_with_a_two_character_piece_name():
    # ▲5四歩打 (no check: the king is on 5a) and △同成銀 from 5c.
    assert usi_to_kif("4k4/9/4+s4/9/9/9/9/9/4K4 b P 1", ["P*5d", "5c5d"]) == [
        "▲５四歩打",
        "△同\u3000成銀",
    ]


def test_illegal_move_names_the_move_and_leaves_the_position_alone():
    pos = Position("startpos")
    with pytest.raises(ValueError, match=r"move 2 \(7f7e\)"):
        usi_to_kif(pos, ["7g7f", "7f7e"])
    assert usi_to_kif(pos, ["7g7f"]) == ["▲７六歩"]
    assert pos.sfen() == Position("startpos").sfen()  # a copy was annotated


def test_kif_move_lines_carry_origins_and_no_funari():
    lines = format_kif_moves("startpos", ["7g7f", "3c3d", "8h2b", "3a2b", "B*4e"], end="中断")
    assert lines == [
        "   1 ７六歩(77)",
        "   2 ３四歩(33)",
        "   3 ２二角(88)",
        "   4 同\u3000銀(31)",
        "   5 ４五角打",
        "   6 中断",
    ]
    assert format_kif_moves("startpos", ["7g7f", "3c3d", "8h2b+"])[-1] == "   3 ２二角成(88)"


def test_board_diagram():
    assert board_diagram("4k4/9/4+s4/9/9/9/9/9/4K4 w 2P16p 1") == [
        "後手の持駒：歩十六\u3000",
        "  ９ ８ ７ ６ ５ ４ ３ ２ １",
        "+---------------------------+",
        "| ・ ・ ・ ・v玉 ・ ・ ・ ・|一",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|二",
        "| ・ ・ ・ ・v全 ・ ・ ・ ・|三",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|四",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|五",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|六",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|七",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|八",
        "| ・ ・ ・ ・ 玉 ・ ・ ・ ・|九",
        "+---------------------------+",
        "先手の持駒：歩二\u3000",
        "後手番",
    ]
    assert board_diagram("k8/9/9/9/9/9/9/9/8K b - 1")[-2:] == ["先手の持駒：なし", "先手番"]


def test_kif_record_of_a_mate():
    record = format_kif_record(
        "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", ["G*5b"], comments=["mate-in-1"], end="詰み"
    )
    assert record[0] == "# mate-in-1"
    assert (
        record[1]
        == "後手の持駒：飛二\u3000角二\u3000金三\u3000銀四\u3000桂四\u3000香四\u3000歩十七\u3000"
    )
    assert record[-4:] == [
        "手数----指手---------消費時間--",
        "   1 ５二金打",
        "   2 詰み",
        "まで1手で詰み",
    ]
