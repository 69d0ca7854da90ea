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

import re
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
# Kanji digits 1..9 by value; index 0 unused (a KIF hand never writes 〇).
KANJI_DIGITS = "〇一二三四五六七八九"


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


def notate_moves(
    position: Position | str, moves: Iterable[str], *, previous_move: str | None = None
) -> list[NotatedMove]:
    """Replay ``moves`` (USI) from ``position`` and describe each one for notation.

    ``position`` is a :class:`Position` (left unchanged) or position text (an
    SFEN, ``"sfen ... moves ..."``, ``"startpos moves ..."``). ``previous_move``
    is the USI move that led to ``position``, if any: a first move to its
    destination is then written ``同`` (a variation read off a main line).
    Raises ValueError, naming the move, when a move is malformed or illegal.
    """
    pos = _as_position(position)
    notated: list[NotatedMove] = []
    previous_destination = previous_move[2:4] if previous_move else None
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


def usi_to_kif(
    position: Position | str, moves: Iterable[str], *, previous_move: str | None = None
) -> list[str]:
    """The moves in Japanese notation for people: ``["▲５二金打", "△同　玉", ...]``.

    Each move is the side mark (▲ black/sente, △ white/gote), the destination
    (``５二``, or ``同　`` when it equals the previous move's destination), the
    piece name before the move (歩 香 桂 銀 金 角 飛 玉 と 成香 成桂 成銀 馬 龍)
    and a suffix: 成 (promotes), 不成 (could have promoted and did not: an
    unpromoted rook, bishop, silver, knight, lance or pawn moving from or into
    the promotion zone) or 打 (every drop). ``position`` is a Position (left
    unchanged) or position text; ``previous_move`` as in :func:`notate_moves`.
    Raises ValueError on an illegal move.
    """
    out = []
    for m in notate_moves(position, moves, previous_move=previous_move):
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
    position: Position | str,
    moves: Iterable[str],
    *,
    end: str | None = None,
    first_number: int = 1,
    previous_move: str | None = None,
) -> list[str]:
    """The numbered move lines of a KIF record: ``["   1 ５二金打", "   2 同　玉(51)", ...]``.

    Board moves carry their origin square (``(51)``) and 成 when they promote;
    a declined promotion is not marked (the Kakinoki KIF convention; see the
    module docstring). ``end`` adds a terminal line after the last move, e.g.
    ``"詰み"`` (mate), ``"不詰"`` (no mate) or ``"中断"`` (search gave up), which
    GUIs read as the result. A variation starts at ``first_number`` from the
    position after ``previous_move`` (for ``同``). Raises ValueError on an
    illegal move.
    """
    notated = notate_moves(position, moves, previous_move=previous_move)
    lines = [f"{n:>4} {_kif_move_text(m)}" for n, m in enumerate(notated, first_number)]
    if end:
        lines.append(f"{first_number + len(lines):>4} {end}")
    return lines


def _kanji_count(n: int) -> str:
    # Hand counts run to 18 (pawns). One piece is written without a count (金), as GUIs
    # write it; then 二 … 九, 十, 十一 … 十八 (十 + the units digit, which may be 一).
    if n <= 1:
        return ""
    if n < 10:
        return KANJI_DIGITS[n]
    if n < 20:
        return "十" + (KANJI_DIGITS[n - 10] if n > 10 else "")
    return str(n)  # not a hand count of one set; kept readable rather than wrong


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


# ---------------------------------------------------------------------------
# Records with variations (変化)


@dataclass(frozen=True)
class KifVariation:
    """A line that branches off the main line: its first move replaces main move ``number``.

    ``moves`` are USI moves from the position before main move ``number``;
    ``comments`` become ``*`` lines after its first move (GUIs show them there);
    ``end`` is its terminal move (``"詰み"``) or None.
    """

    number: int
    moves: tuple[str, ...]
    comments: tuple[str, ...] = ()
    end: str | None = "詰み"


def format_kif_tree(
    position: Position | str,
    main: Sequence[str],
    variations: Iterable[KifVariation] = (),
    *,
    comments: Iterable[str] = (),
    notes: Iterable[str] = (),
    end: str | None = "詰み",
) -> list[str]:
    """A KIF record with variations (変化) that GUIs show as a tree.

    The main line comes first, then one block a variation::

        変化：3手
           3 ２三金打
        *余詰: mates in 5

    Readers (Kifu for Windows, ShogiHome) attach a ``変化：N手`` block to the
    line read just before it, at move N, so blocks are written from the last
    branch point to the first: read in that order, every block's move N-1 still
    lies on the main line. A main-line move that has variations ends with
    ``+``, as Kifu for Windows writes it. ``comments`` become ``#`` lines at the
    top; ``notes`` become ``*`` lines before the first move (a GUI shows them on
    the start position). Raises ValueError on an illegal move.
    """
    start = _as_position(position)
    variations = sorted(variations, key=lambda v: -v.number)  # stable: same-move order kept
    branch_numbers = {v.number for v in variations}
    lines = ["# " + c for c in comments]
    lines += board_diagram(start)
    lines.append("手数----指手---------消費時間--")
    lines += ["*" + n for n in notes]
    main_lines = format_kif_moves(start, main, end=end)
    for i, text in enumerate(main_lines[: len(main)]):
        lines.append(text + ("+" if i + 1 in branch_numbers else ""))
    lines += main_lines[len(main) :]
    if end == "詰み":
        lines.append(f"まで{len(main)}手で詰み")
    # Positions before each main move, for the variations that start there.
    before = [start.copy()]
    for move in main:
        pos = before[-1].copy()
        pos.push_usi(move)
        before.append(pos)
    for k, v in enumerate(variations):
        if not 1 <= v.number <= len(main) + 1:
            raise ValueError(f"variation at move {v.number}: the main line has {len(main)} moves")
        previous = main[v.number - 2] if v.number >= 2 else None
        body = format_kif_moves(
            before[v.number - 1], v.moves, end=v.end, first_number=v.number, previous_move=previous
        )
        # "+" on a variation's first move: another variation at the same move follows.
        more = k + 1 < len(variations) and variations[k + 1].number == v.number
        lines += ["", f"変化：{v.number}手", body[0] + ("+" if more and v.moves else "")]
        lines += ["*" + c for c in v.comments]
        lines += body[1:]
    return lines


# ---------------------------------------------------------------------------
# Reading a KIF record (the start position and the main line)

_PIECE_LETTERS = {
    "歩": "P",
    "香": "L",
    "桂": "N",
    "銀": "S",
    "金": "G",
    "角": "B",
    "飛": "R",
    "玉": "K",
    "王": "K",
    "と": "+P",
    "杏": "+L",
    "成香": "+L",
    "圭": "+N",
    "成桂": "+N",
    "全": "+S",
    "成銀": "+S",
    "馬": "+B",
    "龍": "+R",
    "竜": "+R",
}
# Pieces of a full set, by hand letter: what "the rest" (残り全部) of a hand counts from.
FULL_SET = {"R": 2, "B": 2, "G": 4, "S": 4, "N": 4, "L": 4, "P": 18}
_KIF_MOVE = re.compile(
    r"^\s*(?P<number>[0-9]+)\s+[▲△☗☖]?"
    r"(?:(?P<file>[１２３４５６７８９1-9])(?P<rank>[一二三四五六七八九])|(?P<same>同)[\u3000 ]*)"
    r"(?P<piece>成銀|成桂|成香|[玉王飛龍竜角馬金銀全桂圭香杏歩と])"
    r"(?P<promotion>不成|成)?(?:(?P<drop>打)|\((?P<origin>[1-9][1-9])\))"
)
_KIF_END_WORDS = ("詰み", "詰", "中断", "投了", "不詰", "千日手", "持将棋")


@dataclass(frozen=True)
class KifProblem:
    """What a KIF record holds for a problem check: the start position and the main line."""

    sfen: str
    moves: tuple[str, ...]


def _kanji_number(text: str) -> int:
    # Hand counts: none (one piece), 一 … 九, 十, 十一 … 十九, 二十 …, or half-width or
    # full-width digits. Anything else is refused rather than guessed at.
    digits = text.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if not digits:
        return 1
    if digits.isascii() and digits.isdigit():
        return int(digits)
    tens, ten, units = digits.partition("十")
    if ten:
        # 十 alone is ten; a tens digit before it is 二 … 九 (一十 is not how counts are written).
        if tens and (len(tens) != 1 or tens not in KANJI_DIGITS[2:]):
            raise ValueError(f"bad piece count {text!r}")
        value = (KANJI_DIGITS.index(tens) if tens else 1) * 10
    else:
        value, units = 0, digits
    if units and (len(units) != 1 or units not in KANJI_DIGITS[1:]):
        raise ValueError(f"bad piece count {text!r}")
    return value + (KANJI_DIGITS.index(units) if units else 0)


def _read_hand(text: str) -> dict[str, int] | None:
    """A KIF hand as counts by USI letter; None for 残り全部 (the rest of the set)."""
    text = text.strip()
    if text.startswith("残り"):
        return None
    hand: dict[str, int] = {}
    for part in re.split(r"[ \u3000]+", text):
        if not part or part == "なし":
            continue
        letter = _PIECE_LETTERS.get(part[0])
        if letter is None or letter.startswith("+") or letter == "K":
            raise ValueError(f"bad hand piece {part!r}")
        hand[letter] = hand.get(letter, 0) + _kanji_number(part[1:])
    return hand


def _hand_sfen(hand: dict[str, int], black: bool) -> str:
    out = ""
    for letter in HAND_ORDER:
        n = hand.get(letter, 0)
        if n:
            out += (str(n) if n > 1 else "") + (letter if black else letter.lower())
    return out


def parse_kif(text: str) -> KifProblem:
    """Read the start position (board diagram or 手合割：平手) and the main line of a KIF record.

    Variations (``変化：`` blocks), comments and times are skipped; the main
    line ends at its first terminal word (詰み, 中断, ...). A hand written
    ``残り全部`` holds every piece of the set not on the board or in the other
    hand, as tsume KIFs write the defender's. Moves are checked only for
    form; replay them (e.g. :class:`Position`) to check legality. Raises
    ValueError, naming the line, for what cannot be read.
    """
    board_rows: list[str] = []
    hands: dict[str, dict[str, int] | None] = {"b": {}, "w": {}}
    side = "b"
    startpos = False
    moves: list[str] = []
    previous_destination: str | None = None
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line or line.startswith(("#", "*", "&")):
            continue
        if re.match(r"^[ \u3000]*変化[：:]", line):
            break  # only the main line
        if line.startswith("|"):
            board_rows.append(line)
            continue
        head = re.match(r"^(先手|下手|後手|上手)の持駒[：:](.*)$", line)
        if head:
            try:
                hands["b" if head[1] in ("先手", "下手") else "w"] = _read_hand(head[2])
            except ValueError as e:
                raise ValueError(f"KIF line {line_no}: {e}") from None
            continue
        if re.match(r"^(後手|上手)番", line):
            side = "w"
            continue
        if re.match(r"^手合割[：:]\s*平手", line):
            startpos = True
            continue
        number = re.match(r"^\s*([0-9]+)\s+(\S+)", line)
        if not number:
            continue  # headers (先手：, 作者：, 手数----...) and anything unknown
        m = _KIF_MOVE.match(line)
        if m is None:
            if number[2].startswith(_KIF_END_WORDS):
                break
            raise ValueError(f"KIF line {line_no}: cannot read the move {number[2]!r}")
        if int(m["number"]) != len(moves) + 1:
            raise ValueError(
                f"KIF line {line_no}: move {m['number']} where move {len(moves) + 1} was expected"
            )
        if m["same"]:
            if previous_destination is None:
                raise ValueError(f"KIF line {line_no}: 同 without a previous move")
            destination = previous_destination
        else:
            file = str(_kanji_number(m["file"]))
            destination = file + "abcdefghi"[RANK_KANJI.index(m["rank"]) - 1]
        if m["drop"]:
            letter = _PIECE_LETTERS[m["piece"]]
            if letter.startswith("+") or letter == "K":
                raise ValueError(f"KIF line {line_no}: {m['piece']} cannot be dropped")
            moves.append(f"{letter}*{destination}")
        else:
            origin = m["origin"][0] + "abcdefghi"[int(m["origin"][1]) - 1]
            moves.append(origin + destination + ("+" if m["promotion"] == "成" else ""))
        previous_destination = destination
    if not board_rows:
        if not startpos:
            raise ValueError("KIF: no board diagram and no 手合割：平手")
        return KifProblem(Position("startpos").sfen(), tuple(moves))
    return KifProblem(_board_sfen(board_rows, hands, side), tuple(moves))


def _board_sfen(rows: list[str], hands: dict[str, dict[str, int] | None], side: str) -> str:
    if len(rows) != 9:
        raise ValueError(f"KIF: the board diagram has {len(rows)} rows, not 9")
    sfen_rows = []
    on_board: dict[str, int] = {}
    for row in rows:
        cells = row[1:19]
        if len(cells) < 18:
            raise ValueError(f"KIF: a board row is shorter than nine squares: {row!r}")
        out, empty = "", 0
        for i in range(0, 18, 2):
            colour, name = cells[i], cells[i + 1]
            if name == "・" or name == " ":
                empty += 1
                continue
            letter = _PIECE_LETTERS.get(name)
            if letter is None:
                raise ValueError(f"KIF: unknown piece {name!r} in {row!r}")
            base = letter.lstrip("+")
            on_board[base] = on_board.get(base, 0) + 1
            if empty:
                out, empty = out + str(empty), 0
            out += letter if colour != "v" else letter.lower()
        sfen_rows.append(out + (str(empty) if empty else ""))
    for rest, other in (("b", "w"), ("w", "b")):
        if hands[rest] is None:
            known = hands[other] or {}
            counted = {p: n - on_board.get(p, 0) - known.get(p, 0) for p, n in FULL_SET.items()}
            hands[rest] = counted
            if any(n < 0 for n in counted.values()):
                raise ValueError("KIF: more pieces than a full set; 残り全部 cannot be counted")
    hand_text = _hand_sfen(hands["b"] or {}, True) + _hand_sfen(hands["w"] or {}, False)
    return f"{'/'.join(sfen_rows)} {side} {hand_text or '-'} 1"
