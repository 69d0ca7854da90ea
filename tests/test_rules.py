"""One targeted test per rule of DOMAIN.md section 3, on hand-made positions.

Every position is checked twice: the rule-specific assertion (this move is / is not
legal, is / is not a check) and a full comparison of legal_moves() and
check_moves() with cshogi. Each test also runs on the colour-mirrored position
(board turned 180 degrees, colours swapped), because direction tables and
promotion zones are per colour.
"""

from __future__ import annotations

import cshogi
import pytest
from oracle import mirror_sfen, mirror_usi, usi_checks, usi_moves

from usi_mate import Position

colours = pytest.mark.parametrize("colour", ["black", "white"])


def orient(colour: str, sfen: str, *moves: str):
    """The position and moves as given (black) or colour-mirrored (white)."""
    if colour == "black":
        return (sfen, *moves)
    return (mirror_sfen(sfen), *(mirror_usi(m) for m in moves))


def legal(sfen: str) -> set[str]:
    """Our legal moves, after asserting they equal cshogi's."""
    ours = sorted(Position(sfen).legal_moves())
    assert ours == usi_moves(cshogi.Board(sfen)), f"legal_moves differ from cshogi at {sfen}"
    return set(ours)


def checks(sfen: str) -> set[str]:
    """Our checking moves, after asserting they equal cshogi's."""
    ours = sorted(Position(sfen).check_moves())
    assert ours == usi_checks(cshogi.Board(sfen)), f"check_moves differ from cshogi at {sfen}"
    return set(ours)


# --- 打ち歩詰め: a pawn drop that gives checkmate is illegal ---------------------------
# (id, sfen, drop, legal?) -- the drop always gives check.
PAWN_DROP_CASES = [
    # King 1a: 1b is protected by the gold on 1c, 2b is covered by it, 2a holds
    # the king's own knight, nothing can take the pawn: mate, so illegal.
    ("simple-mate", "7nk/9/8G/9/9/9/9/9/9 b P 1", "P*1b", False),
    # DOMAIN.md's example: the gold on 2a could take, but the rook on 9a pins it.
    ("capturer-pinned", "R6gk/7n1/7G1/9/9/9/9/9/K8 b P 1", "P*1b", False),
    # Same without the pinning rook: the gold takes, so the drop is legal.
    ("capturer-free", "7gk/7n1/7G1/9/9/9/9/9/K8 b P 1", "P*1b", True),
    # The king cannot take because the lance on 1i protects the pawn from afar.
    ("protected-by-lance", "7nk/9/6S2/9/9/9/9/9/8L b P 1", "P*1b", False),
    # Without the lance the king simply takes the pawn: legal.
    ("king-takes", "7nk/9/6S2/9/9/9/9/9/9 b P 1", "P*1b", True),
    # Check but not mate: the king steps aside to 4a or 6a (the gold covers 4b, 6b).
    ("king-escapes", "4k4/9/4G4/9/9/9/9/9/9 b P 1", "P*5b", True),
    # The dropped pawn blocks the bishop 7d-6c-5b-4a, which opens 4a for the king:
    # an attack map taken before the drop would wrongly call this mate.
    ("drop-blocks-own-bishop", "3nk4/9/4G4/2B6/9/9/9/9/9 b P 1", "P*5b", True),
    # ... unless the lance on 4i covers 4a as well: then it is mate, illegal.
    ("drop-blocks-own-bishop-4a-covered", "3nk4/9/4G4/2B6/9/9/9/9/5L3 b P 1", "P*5b", False),
    # The gold on 5c is pinned by the rook on 5i before the drop, but the pawn lands
    # between king and gold, so taking it on 5b keeps the file closed: legal.
    ("drop-ends-pin-of-capturer", "3nkn3/9/3SgS3/9/9/9/9/9/4R4 b P 1", "P*5b", True),
    # Control for the case above: a knight on 5c cannot take, so it is mate.
    ("drop-ends-pin-knight-cannot-take", "3nkn3/9/3SnS3/9/9/9/9/9/4R4 b P 1", "P*5b", False),
]


@colours
@pytest.mark.parametrize(
    "sfen,drop,is_legal", [c[1:] for c in PAWN_DROP_CASES], ids=[c[0] for c in PAWN_DROP_CASES]
)
def test_pawn_drop_mate(colour, sfen, drop, is_legal):
    sfen, drop = orient(colour, sfen, drop)
    assert (drop in legal(sfen)) is is_legal
    assert (drop in checks(sfen)) is is_legal
    pos = Position(sfen)
    if is_legal:
        pos.push_usi(drop)
        assert pos.is_check() and not pos.is_mate()
    else:
        with pytest.raises(ValueError):
            pos.push_usi(drop)


@colours
def test_pawn_drop_mate_rule_is_only_for_pawns(colour):
    """The same square with a lance dropped instead is a legal mate."""
    sfen, drop = orient(colour, "7nk/9/8G/9/9/9/9/9/9 b L 1", "L*1b")
    assert drop in checks(sfen)
    pos = Position(sfen)
    pos.push_usi(drop)
    assert pos.is_mate()


@colours
def test_pawn_move_mate_is_legal(colour):
    """Only a *dropped* pawn may not mate; pushing a pawn to mate is fine."""
    sfen, move, promo = orient(colour, "7nk/9/6S1P/9/9/9/9/9/8L b - 1", "1c1b", "1c1b+")
    assert {move, promo} <= checks(sfen)
    for m in (move, promo):
        pos = Position(sfen)
        pos.push_usi(m)
        assert pos.is_mate()


# --- 二歩: two unpromoted pawns of one colour on a file ------------------------------
@colours
def test_nifu(colour):
    (sfen,) = orient(colour, "4k4/9/9/9/9/9/4P4/9/4K4 b P 1")
    moves = legal(sfen)
    assert not any(m.startswith("P*5") for m in moves)  # file 5 mirrors onto itself
    assert sum(m.startswith("P*") for m in moves) == 8 * 8  # other files, ranks b-i


@colours
def test_nifu_ignores_promoted_and_enemy_pawns(colour):
    """A tokin or an enemy pawn on the file does not block a pawn drop there."""
    sfen, drop_a, drop_b = orient(colour, "4k4/9/9/3p5/9/9/4+P4/9/4K4 b P 1", "P*5e", "P*6e")
    moves = legal(sfen)
    assert drop_a in moves and drop_b in moves


# --- 行き所のない駒: no piece may stand where it can never move again ---------------------
@colours
def test_pawn_and_lance_must_promote_on_last_rank(colour):
    sfen, p_plain, p_promo, l_plain, l_promo, l_b, l_b_promo = orient(
        colour, "4k4/1P7/8L/9/9/9/9/9/4K4 b - 1", "8b8a", "8b8a+", "1c1a", "1c1a+", "1c1b", "1c1b+"
    )
    moves = legal(sfen)
    assert p_promo in moves and p_plain not in moves
    assert l_promo in moves and l_plain not in moves
    assert l_b in moves and l_b_promo in moves  # rank b: lance may stay unpromoted


@colours
def test_knight_must_promote_on_last_two_ranks(colour):
    sfen, *ms = orient(
        colour, "4k4/9/9/2N6/6N2/9/9/9/4K4 b - 1", "7d6b", "7d6b+", "7d8b", "7d8b+", "3e2c", "3e2c+"
    )
    moves = legal(sfen)
    b_plain, b_promo, b2_plain, b2_promo, c_plain, c_promo = ms
    assert b_promo in moves and b_plain not in moves
    assert b2_promo in moves and b2_plain not in moves
    assert c_plain in moves and c_promo in moves  # rank c: optional


@colours
def test_no_drops_on_dead_squares(colour):
    (sfen,) = orient(colour, "4k4/9/9/9/9/9/9/9/4K4 b NLP 1")
    moves = legal(sfen)
    last, second = ("a", "b") if colour == "black" else ("i", "h")
    drops = [m for m in moves if "*" in m]
    assert not [m for m in drops if m[0] in "PL" and m[3] == last]
    assert not [m for m in drops if m[0] == "N" and m[3] in (last, second)]
    assert {m for m in drops if m[0] == "L" and m[3] == second}  # lance on rank b is fine
    # 79 empty squares; P and L lose 8 (one rank, less the king), N loses 17.
    assert len(drops) == (79 - 8) * 2 + (79 - 17)


# --- optional promotion ------------------------------------------------------------
@colours
@pytest.mark.parametrize(
    "sfen,move",
    [
        ("4k4/9/9/4S4/9/9/9/9/4K4 b - 1", "5d4c"),  # silver into the zone
        ("4k4/9/4S4/9/9/9/9/9/4K4 b - 1", "5c4d"),  # silver leaving the zone
        ("4k4/9/9/9/7R1/9/9/9/4K4 b - 1", "2e2c"),  # rook into the zone
        ("4k4/9/9/9/9/9/9/1B7/4K4 b - 1", "8h3c"),  # bishop into the zone
        ("4k4/9/9/4P4/9/9/9/9/4K4 b - 1", "5d5c"),  # pawn to rank c
        ("4k4/9/9/4L4/9/9/9/9/4K4 b - 1", "5d5b"),  # lance to rank b
        ("4k4/9/9/9/2N6/9/9/9/4K4 b - 1", "7e6c"),  # knight to rank c
    ],
    ids=["silver-in", "silver-out", "rook", "bishop", "pawn", "lance", "knight"],
)
def test_promotion_is_optional(colour, sfen, move):
    sfen, plain = orient(colour, sfen, move)
    moves = legal(sfen)
    assert plain in moves and plain + "+" in moves


@colours
def test_no_promotion_outside_zone_or_for_gold_king_promoted(colour):
    sfen, *ms = orient(colour, "4k4/9/9/3G+S4/9/4S4/9/9/4K4 b - 1", "6d6c", "5d5c", "5f5e", "5i5h")
    moves = legal(sfen)
    for m in ms:  # gold into the zone, promoted silver, silver outside the zone, king
        assert m in moves and m + "+" not in moves


# --- no self-check ------------------------------------------------------------------
@colours
def test_pinned_piece_stays_on_the_line(colour):
    sfen, *ms = orient(
        colour, "4k4/4r4/9/9/9/9/9/4G4/4K4 b - 1", "5h5g", "5h4h", "5h6h", "5h4g", "5h6g"
    )
    moves = legal(sfen)
    along, *off = ms
    assert along in moves
    assert not set(off) & moves


@colours
def test_pinned_rook_may_capture_the_pinner(colour):
    sfen, capture, sideways = orient(colour, "4k4/4r4/9/9/9/9/9/4R4/4K4 b - 1", "5h5b", "5h4h")
    moves = legal(sfen)
    assert capture in moves and capture + "+" in moves and sideways not in moves


@colours
def test_king_cannot_step_along_the_checking_line(colour):
    """The rook on 9i checks along rank i: 4i lies 'behind' the king on that line."""
    sfen, *ms = orient(
        colour, "4k4/9/9/9/9/9/9/9/r3K4 b - 1", "5i4i", "5i6i", "5i4h", "5i5h", "5i6h"
    )
    moves = legal(sfen)
    behind, towards, *free = ms
    assert behind not in moves and towards not in moves
    assert set(free) == moves
    assert Position(sfen).is_check()


@colours
def test_king_cannot_step_into_attack(colour):
    sfen, *ms = orient(colour, "4k4/9/9/9/9/9/9/3r5/4K4 b - 1", "5i5h", "5i4h", "5i6i", "5i6h")
    moves = legal(sfen)
    *attacked, capture = ms
    assert not set(attacked) & moves
    assert capture in moves  # the rook on 6h is unprotected


# --- checks: discovered, by promotion, by drop --------------------------------------
@colours
def test_discovered_check(colour):
    """The silver on 5e screens the rook on 5i from the king on 5a."""
    sfen, *ms = orient(
        colour, "4k4/9/9/9/4S4/9/9/9/K3R4 b - 1", "5e4d", "5e6d", "5e4f", "5e6f", "5e5d"
    )
    got = checks(sfen)
    *discovering, still_screening = ms
    assert set(discovering) <= got
    assert still_screening not in got


@colours
def test_check_only_when_promoting(colour):
    """Silver 3b-4a attacks 5a only as a promoted silver; pawn 4c-4b only as tokin."""
    sfen, s_plain, s_promo, p_plain, p_promo = orient(
        colour, "4k4/6S2/5P3/9/9/9/9/9/K8 b - 1", "3b4a", "3b4a+", "4c4b", "4c4b+"
    )
    got = checks(sfen)
    assert s_promo in got and s_plain not in got
    assert p_promo in got and p_plain not in got
    assert s_plain in legal(sfen) and p_plain in legal(sfen)


@colours
def test_drop_checks(colour):
    sfen, *ms = orient(
        colour,
        "4k4/9/9/9/9/9/9/9/K8 b RGN 1",
        "G*5b",
        "G*4b",
        "N*4c",
        "N*6c",
        "R*5e",
        "R*1a",
        "G*5c",
        "N*5c",
        "R*4e",
    )
    got = checks(sfen)
    *checking, g_far, n_front, r_side = ms
    assert set(checking) <= got
    assert not {g_far, n_front, r_side} & got


# --- both kings: the side to move is itself in check ------------------------------------
@colours
def test_attacker_in_check_checks_are_evasions(colour):
    """Black is checked by the rook on 5e; only R*5f both blocks and checks 1f."""
    sfen, block_and_check = orient(colour, "9/9/9/9/4r4/8k/9/9/4K4 b RG 1", "R*5f")
    pos = Position(sfen)
    assert pos.is_check()
    evasions = set(pos.evasions())
    assert evasions == legal(sfen) == set(pos.legal_moves())
    got = checks(sfen)
    assert got == {block_and_check}
    for move in got:
        pos.push_usi(move)
        assert pos.is_check()
        pos.pop()


@colours
def test_real_game_double_king_check_moves_are_evasions(colour):
    """nshogi no-mate-1-ply #6: white (to move) is in check; 3 of its 11 evasions
    check black back (逆王手)."""
    (sfen,) = orient(
        colour, "+Pn5nl/4+P2S1/p2+R2gp1/1pp2s1kp/P3Pp2b/6P1G/5P2P/4GGKL1/L+r4SNL w 5pnsb 1"
    )
    pos = Position(sfen)
    assert pos.is_check()
    assert set(pos.evasions()) == legal(sfen)
    got = checks(sfen)
    assert got <= legal(sfen) and len(got) == 3 and len(legal(sfen)) == 11
