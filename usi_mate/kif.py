"""Japanese move notation: USI moves as KIF move text and as a KIF record.

Two forms, for two readers:

- :func:`usi_to_kif` gives what a person reads in a book or on a web page,
  ``▲５二金打 △同　玉 ▲４二銀不成``: a side mark (▲ black/sente, △ white/gote),
  the destination (full-width file digit and kanji rank, or ``同　`` when it is
  the previous move's destination), the piece name and a suffix (成, 不成, 打).
- :func:`format_kif_record` (with :func:`format_kif_moves` and
  :func:`board_diagram`) writes a Kakinoki-format KIF record that GUIs import:
  the board diagram of the start position, then numbered moves such as
  ``   1 ５二金打`` and ``   2 同　玉(51)``.

The two differ on purpose. A KIF file names the origin square of every board
move in parentheses, ``(51)``, which makes the move unambiguous without the
relative words (右, 左, 上, 引, 寄, 直) of hand-written notation, and it does not
write 不成: the Kakinoki format spec leaves a declined promotion unmarked, and
ShogiHome's KIF reader (tsshogi ``kakinoki.ts``: ``(成?)(打|\\([1-9][1-9]\\))``)
does not accept ``不成`` at all; it would read ``２三銀不成(34)`` as an unknown
terminal move and drop the rest of the line. The human form has no origin
square, so it needs 不成 to say that the piece stayed unpromoted.

Both follow the KIF convention of writing 打 on every drop (KI2 writes it only
when a piece on the board could also reach the square).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ._core import BLACK, Position

FILE_DIGITS = "０１２３４５６７８９"  # index = file number; index 0 unused
RANK_KANJI = "〇一二三四五六七八九"  # index = rank number; index 0 unused
SAME_SQUARE = "同\u3000"  # 同 + full-width space, as KIF writes it before every piece name

# Piece names in move text: the upper-case USI letter (with "+" when promoted).
# Both kings are 玉: tsume collections do not use 王 for either side.
MOVE_PIECE_NAMES = {
    "P": "歩",
    "L": "香",
    "N": "桂",
    "S": "銀",
    "G": "金",
    "B": "角",
    "R": "飛",
    "K": "玉",
    "+P": "と",
    "+L": "成香",
    "+N": "成桂",
    "+S": "成銀",
    "+B": "馬",
    "+R": "龍",
}
# Board diagrams need one character a square, so promoted lance, knight and
# silver take their one-kanji forms there (杏 圭 全), as Kifu for Windows writes them.
BOARD_PIECE_NAMES = {**MOVE_PIECE_NAMES, "+L": "杏", "+N": "圭", "+S": "全"}
PROMOTABLE = frozenset("PLNSBR")
# Hand pieces in the order KIF lists them: rook first, pawns last.
HAND_ORDER = "RBGSNLP"
KANJI_NUMBERS = ["", "", "二", "三", "四", "五", "六", "七", "八", "九", "十"]


@dataclass(frozen=True)
class NotatedMove:
    """One move with everything the notations need, worked out on the position it is played in.

    ``piece`` is the upper-case USI piece code of the moving piece *before* the
    move ("S", "+S"); ``origin`` is None for a drop; ``declined_promotion`` is
    True when the piece could have promoted on this move but did not.
    """

    usi: str
    color: int
    destination: str
    origin: str | None
    piece: str
    promotes: bool
    declined_promotion: bool
    same_as_previous: bool


def _square_file_rank(square: str) -> tuple[int, int]:
    return int(square[0]), ord(square[1]) - ord("a") + 1


def _in_promotion_zone(square: str, color: int) -> bool:
    rank = _square_file_rank(square)[1]
    return rank <= 3 if color == BLACK else rank >= 7


def _as_position(position: Position | str) -> Position:
    # A copy, so that annotating a line never moves the caller's Position.
    if isinstance(position, Position):
        return position.copy()
    return Position(position)


def notate_moves(position: Position | str, moves: Iterable[str]) -> list[NotatedMove]:
    """Replay ``moves`` (USI) from ``position`` and describe each one for notation.

    ``position`` is a :class:`Position` (left unchanged) or position text (an
    SFEN, ``"sfen ... moves ..."``, ``"startpos moves ..."``). Raises ValueError,
    naming the move, when a move is malformed or illegal.
    """
    pos = _as_position(position)
    notated: list[NotatedMove] = []
    previous_destination = None
    for number, move in enumerate(moves, start=1):
        if not isinstance(move, str) or len(move) < 4:
            raise ValueError(f"move {number}: {move!r} is not a USI move")
        color = pos.turn
        if move[1] == "*":
            origin, destination, piece, promotes = None, move[2:4], move[0].upper(), False
        else:
            origin, destination, promotes = move[0:2], move[2:4], move.endswith("+")
            on_board = pos.piece_at(origin) if _looks_like_square(origin) else None
            piece = on_board.upper() if on_board else "?"
        try:
            pos.push_usi(move)
        except ValueError as e:
            raise ValueError(f"move {number} ({move}) is not legal here: {e}") from None
        declined = (
            origin is not None
            and not promotes
            and piece in PROMOTABLE
            and (_in_promotion_zone(origin, color) or _in_promotion_zone(destination, color))
        )
        notated.append(
            NotatedMove(
                usi=move,
                color=color,
                destination=destination,
                origin=origin,
                piece=piece,
                promotes=promotes,
                declined_promotion=declined,
                same_as_previous=destination == previous_destination,
            )
        )
        previous_destination = destination
    return notated


def _looks_like_square(text: str) -> bool:
    return len(text) == 2 and text[0] in "123456789" and text[1] in "abcdefghi"


def _destination_text(m: NotatedMove) -> str:
    if m.same_as_previous:
        return SAME_SQUARE
    file, rank = _square_file_rank(m.destination)
    return FILE_DIGITS[file] + RANK_KANJI[rank]


def usi_to_kif(position: Position | str, moves: Iterable[str]) -> list[str]:
    """The moves in Japanese notation for people: ``["▲５二金打", "△同　玉", ...]``.

    Each move is the side mark (▲ black/sente, △ white/gote), the destination
    (``５二``, or ``同　`` when it equals the previous move's destination), the
    piece name before the move (歩 香 桂 銀 金 角 飛 玉 と 成香 成桂 成銀 馬 龍)
    and a suffix: 成 (promotes), 不成 (could have promoted and did not: an
    unpromoted rook, bishop, silver, knight, lance or pawn moving from or into
    the promotion zone) or 打 (every drop). ``position`` is a Position (left
    unchanged) or position text. Raises ValueError on an illegal move.
    """
    out = []
    for m in notate_moves(position, moves):
        mark = "▲" if m.color == BLACK else "△"
        if m.origin is None:
            suffix = "打"
        elif m.promotes:
            suffix = "成"
        elif m.declined_promotion:
            suffix = "不成"
        else:
            suffix = ""
        out.append(mark + _destination_text(m) + MOVE_PIECE_NAMES[m.piece] + suffix)
    return out


def _kif_move_text(m: NotatedMove) -> str:
    text = _destination_text(m) + MOVE_PIECE_NAMES[m.piece]
    if m.origin is None:
        return text + "打"
    # File and rank digits of the origin, half-width: "(51)" for 5a.
    file, rank = _square_file_rank(m.origin)
    return text + ("成" if m.promotes else "") + f"({file}{rank})"


def format_kif_moves(
    position: Position | str, moves: Iterable[str], *, end: str | None = None
) -> list[str]:
    """The numbered move lines of a KIF record: ``["   1 ５二金打", "   2 同　玉(51)", ...]``.

    Board moves carry their origin square (``(51)``) and 成 when they promote;
    a declined promotion is not marked (the Kakinoki KIF convention; see the
    module docstring). ``end`` adds a terminal line after the last move, e.g.
    ``"詰み"`` (mate), ``"不詰"`` (no mate) or ``"中断"`` (search gave up), which
    GUIs read as the result. Raises ValueError on an illegal move.
    """
    lines = [f"{n:>4} {_kif_move_text(m)}" for n, m in enumerate(notate_moves(position, moves), 1)]
    if end:
        lines.append(f"{len(lines) + 1:>4} {end}")
    return lines


def _kanji_count(n: int) -> str:
    # Hand counts run to 18 (pawns): 二 … 十, then 十一 … 十八.
    if n <= 10:
        return KANJI_NUMBERS[n]
    return "十" + KANJI_NUMBERS[n - 10] if n < 20 else str(n)


def _hand_text(hand: dict[str, int]) -> str:
    parts = [
        BOARD_PIECE_NAMES[p] + _kanji_count(hand.get(p, 0))
        for p in HAND_ORDER
        if hand.get(p, 0) > 0
    ]
    return "".join(part + "\u3000" for part in parts) or "なし"


def board_diagram(position: Position | str) -> list[str]:
    """The position as a KIF board diagram (BOD): hands, the 9x9 board, side to move.

    White's pieces are prefixed ``v``, empty squares are ``・``, hands read like
    ``金二　銀　`` (or ``なし``). GUIs that import KIF set up the start position
    from these lines.
    """
    pos = _as_position(position)
    black_hand, white_hand = pos.hands
    lines = [
        "後手の持駒：" + _hand_text(white_hand),
        "  ９ ８ ７ ６ ５ ４ ３ ２ １",
        "+---------------------------+",
    ]
    for rank in range(1, 10):
        row = "|"
        for file in range(9, 0, -1):
            piece = pos.piece_at(f"{file}{chr(ord('a') + rank - 1)}")
            if piece is None:
                row += " ・"
            else:
                row += (" " if piece.lstrip("+").isupper() else "v") + BOARD_PIECE_NAMES[
                    piece.upper()
                ]
        lines.append(row + "|" + RANK_KANJI[rank])
    lines += [
        "+---------------------------+",
        "先手の持駒：" + _hand_text(black_hand),
        "先手番" if pos.turn == BLACK else "後手番",
    ]
    return lines


def format_kif_record(
    position: Position | str,
    moves: Sequence[str],
    *,
    comments: Iterable[str] = (),
    end: str | None = None,
) -> list[str]:
    """A complete KIF record (as lines) that a GUI can import: comments, board, moves.

    ``comments`` become ``#`` lines at the top (KIF readers skip them; use them
    for the SFEN and the problem id). ``end`` is the terminal move, see
    :func:`format_kif_moves`; after a mate the record closes with
    ``まで9手で詰み``. Raises ValueError on an illegal move.
    """
    lines = ["# " + c for c in comments]
    lines += board_diagram(position)
    lines.append("手数----指手---------消費時間--")
    lines += format_kif_moves(position, moves, end=end)
    if end == "詰み":
        lines.append(f"まで{len(moves)}手で詰み")
    return lines
