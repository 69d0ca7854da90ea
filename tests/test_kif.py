"""KIF notation against hand-checked lines.

Every expected string below was worked out by hand from the diagram of its
position (files counted right to left, ranks top to bottom), not produced by
the code under test.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from usi_mate import Position
from usi_mate.kif import (
    FULL_SET,
    KifVariation,
    board_diagram,
    format_kif_moves,
    format_kif_record,
    format_kif_tree,
    parse_kif,
    usi_to_kif,
)

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


# ---------------------------------------------------------------------------
# Variations and reading KIF

TENDO_2 = "l8/pnk1s4/3R5/2B6/2P1N4/9/2N6/9/9 b Prb4g3sn3l15p 1"
TENDO_2_LINE = ["7d8c+", "7b8a", "8c8b", "8a8b", "N*7d", "8b7b", "6c6b+"]


def test_a_variation_that_starts_on_the_previous_destination_is_written_same():
    # △同　飛 is the other capture of ▲１六金打 (tendo banqueta #1): from the
    # position after move 1 alone, only previous_move says that 1f was its square.
    after_first = f"{TENDO_1} moves G*1f"
    assert usi_to_kif(after_first, ["3f1f"], previous_move="G*1f") == ["△同\u3000飛"]
    assert usi_to_kif(after_first, ["3f1f"]) == ["△１六飛"]
    assert format_kif_moves(after_first, ["3f1f"], first_number=2, previous_move="G*1f") == [
        "   2 同\u3000飛(36)"
    ]


def test_kif_tree_writes_variations_from_the_last_branch_back():
    lines = format_kif_tree(
        TENDO_2,
        TENDO_2_LINE,
        [
            KifVariation(2, ("7b7a",), ("variation at 2",)),
            KifVariation(5, ("N*9d",), end=None),
            KifVariation(2, ("7b8a", "8c8b")),
        ],
        notes=["verdict: test"],
    )
    moves_start = lines.index("手数----指手---------消費時間--")
    body = lines[moves_start + 1 :]
    assert body[:3] == ["*verdict: test", "   1 ８三角成(74)", "   2 ８一玉(72)+"]
    assert "   5 ７四桂打+" in body
    # Readers attach a block to the line read just before it: the branch at move 5
    # comes first, then both branches at move 2 (the first marked: another follows).
    blocks = [i for i, line in enumerate(body) if line.startswith("変化：")]
    assert [body[i] for i in blocks] == ["変化：5手", "変化：2手", "変化：2手"]
    assert body[blocks[1] + 1 : blocks[1] + 4] == [
        "   2 ７一玉(72)+",
        "*variation at 2",
        "   3 詰み",
    ]
    assert body[blocks[2] + 1 : blocks[2] + 4] == [
        "   2 ８一玉(72)",
        "   3 ８二馬(83)",
        "   4 詰み",
    ]
    assert body[blocks[0] + 1 :][:2] == ["   5 ９四桂打", ""]


def test_parse_kif_reads_back_what_format_kif_record_writes():
    record = "\n".join(format_kif_record(TENDO_1, TENDO_1_LINE, comments=["x"], end="詰み"))
    parsed = parse_kif(record)
    assert parsed.sfen == Position(TENDO_1).sfen()
    assert list(parsed.moves) == TENDO_1_LINE


def test_parse_kif_of_a_gui_file_with_times_and_the_rest_in_a_hand():
    # As Shogidokoro writes a tsume record (tendo banqueta #2), with the defender's
    # hand given as 残り全部 (the rest of the set), as tsume KIFs often do.
    text = "\n".join(
        [
            "#KIF version=2.0 encoding=UTF-8",
            "後手の持駒：残り全部",
            "  ９ ８ ７ ６ ５ ４ ３ ２ １",
            "+---------------------------+",
            "|v香 ・ ・ ・ ・ ・ ・ ・ ・|一",
            "|v歩v桂v玉 ・v銀 ・ ・ ・ ・|二",
            "| ・ ・ ・ 飛 ・ ・ ・ ・ ・|三",
            "| ・ ・ 角 ・ ・ ・ ・ ・ ・|四",
            "| ・ ・ 歩 ・ 桂 ・ ・ ・ ・|五",
            "| ・ ・ ・ ・ ・ ・ ・ ・ ・|六",
            "| ・ ・ 桂 ・ ・ ・ ・ ・ ・|七",
            "| ・ ・ ・ ・ ・ ・ ・ ・ ・|八",
            "| ・ ・ ・ ・ ・ ・ ・ ・ ・|九",
            "+---------------------------+",
            "先手の持駒：歩",
            "手数----指手---------消費時間--",
            "*13te",
            "   1 ８三角成(74)  (00:00 / 00:00:00)",
            "   2 ８一玉(72)    (00:00 / 00:00:00)",
            "   3 ８二馬(83)    (00:00 / 00:00:00)",
            "   4 同　玉(81)    (00:00 / 00:00:00)",
            "   5 ７四桂打      (00:00 / 00:00:00)",
            "   6 詰み",
            "",
            "変化：2手",
            "   2 同　玉(72)",
        ]
    )
    parsed = parse_kif(text)
    assert parsed.sfen == TENDO_2
    assert list(parsed.moves) == TENDO_2_LINE[:5]


def test_parse_kif_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="no board"):
        parse_kif("   1 ７六歩(77)")
    assert parse_kif("手合割：平手\n   1 ７六歩(77)\n   2 ３四歩(33)").moves == ("7g7f", "3c3d")
    with pytest.raises(ValueError, match="line 2: cannot read the move"):
        parse_kif("手合割：平手\n   1 ７六飛車(77)")
    with pytest.raises(ValueError, match="move 3 where move 2"):
        parse_kif("手合割：平手\n   1 ７六歩(77)\n   3 ３四歩(33)")
    # A board row cut short: a ValueError that says so, never an IndexError.
    record = format_kif_record("9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1", [])
    short = [line if "v金" not in line else "| ・ ・" for line in record]
    with pytest.raises(ValueError, match="shorter than nine squares"):
        parse_kif("\n".join(short))


def test_hand_counts_past_ten_are_written_and_read_in_kanji():
    # 11 pawns were written 歩十 (10: a different position) and 歩十一 could not be read.
    sfen = "4k4/9/9/9/9/9/9/9/4K4 b 11P7p 1"
    assert board_diagram(sfen)[-2] == "先手の持駒：歩十一\u3000"
    assert board_diagram(sfen)[0] == "後手の持駒：歩七\u3000"
    assert parse_kif("\n".join(format_kif_record(sfen, []))).sfen == sfen
    hands = {"十一": 11, "十八": 18, "十": 10, "九": 9, "一": 1, "": 1, "18": 18, "１２": 12}
    for count, pawns in hands.items():
        record = format_kif_record("4k4/9/9/9/9/9/9/9/4K4 b - 1", [])
        record[-2] = "先手の持駒：歩" + count
        assert parse_kif("\n".join(record)).sfen.split()[2] == (f"{pawns}P" if pawns > 1 else "P")
    for bad in ("十十", "一十一", "百", "十〇"):
        record[-2] = "先手の持駒：歩" + bad
        with pytest.raises(ValueError, match="bad piece count"):
            parse_kif("\n".join(record))


# Pieces that may stand on any square (no dead squares, no two-pawn rule), for the boards.
_ANYWHERE = ["G", "S", "B", "R", "+P", "+L", "+N", "+S", "+B", "+R"]


@st.composite
def _positions_with_full_hands(draw):
    """An SFEN with both kings, a few pieces on the board and hands of 0..18 of a kind."""
    squares = draw(st.lists(st.integers(0, 80), min_size=2, max_size=12, unique=True))
    board: dict[int, str] = {squares[0]: "K", squares[1]: "k"}
    left = dict(FULL_SET)
    for square in squares[2:]:
        piece = draw(st.sampled_from(_ANYWHERE))
        if left[piece.lstrip("+")] == 0:
            continue
        left[piece.lstrip("+")] -= 1
        board[square] = piece if draw(st.booleans()) else piece.lower()
    black_hand = white_hand = ""
    for letter in "RBGSNLP":
        black = draw(st.integers(0, left[letter]))
        white = draw(st.integers(0, left[letter] - black))
        black_hand += (str(black) if black > 1 else "") + letter if black else ""
        white_hand += (str(white) if white > 1 else "") + letter.lower() if white else ""
    hand = black_hand + white_hand
    rows = []
    for rank in range(9):
        row, empty = "", 0
        for file in range(9):
            piece = board.get(rank * 9 + file)
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    turn = draw(st.sampled_from("bw"))
    return Position(f"{'/'.join(rows)} {turn} {hand or '-'} 1").sfen()


@settings(max_examples=300, deadline=None)
@given(_positions_with_full_hands())
def test_kif_record_reads_back_to_the_same_position(sfen):
    assert parse_kif("\n".join(format_kif_record(sfen, []))).sfen == sfen
