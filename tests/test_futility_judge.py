"""The futility judge (FutilityJudge, csrc/futility.cpp) on hand-built positions.

The rule (docs/FUTILE.md): at an AND node P in check from one distant piece, a drop
between king and checker is futile when a checking capture of the dropped piece,
with the piece given back to the defender, leaves a mate no longer than `bound`, the
mate P's other replies allow (0 when it has none: then the mate must follow at once,
further futile drops aside). Moved interpositions are never futile.

Each position P is asked directly (a Worker of its own on P as the root, set up as a
composers' count solve sets up its main worker: tests/hooks.py, _FutilityJudgeBench)
and checked against whole solves under both counts: the composers' count leaves the
futile drops out, the strict count counts them, so the two lengths differ by two
plies for each futile drop on the strict line.

Boards, in the SFEN's order: rank a (top, the defender's side) to i, files 9 to 1;
Black (upper case) attacks the White king at 1a.
"""

from __future__ import annotations

import pytest
from hooks import UNCAPPED, _FutilityJudgeBench

import usi_mate
from usi_mate import Position

ZERO = dict.fromkeys("PLNSBRG", 0)


def both_counts(sfen: str, and_root: bool = False) -> tuple[list[str], list[str]]:
    """The lines (shortest mate under the longest defence) under the composers' count
    and the strict count."""
    lines = []
    for ignore_futile in (True, False):
        result = usi_mate.solve(
            sfen,
            hash_mb=16,
            nodes_limit=1_000_000,
            root_is_and_node_if_checked=and_root,
            ignore_futile_interpositions=ignore_futile,
        )
        assert result.status == "mate" and result.min_length == len(result.moves), result
        lines.append(result.moves)
    return lines[0], lines[1]


def shortest_after(sfen: str, move: str) -> int:
    """The shortest mate (composers' count) after the defender's ``move`` in ``sfen``."""
    position = Position(sfen)
    position.push_usi(move)
    result = usi_mate.solve(position, hash_mb=16, nodes_limit=1_000_000)
    assert result.status == "mate" and result.min_length, result
    return result.min_length


# ---------------------------------------------------------------------------
# Futile at once: the capture mates, with the piece given back
#
# ALL_FUTILE: the rook comes to 1e. The king's squares are its own pawn's (2a) or
# the gold's (2b; 1b also the rook's). Every gold dropped on 1b-1d is taken by the
# rook with check, and mate follows at once: on 1b the rook, guarded by the gold,
# mates; further off, the gold given back can only be dropped again, nearer.
ALL_FUTILE_ROOT = "7pk/9/7G1/9/4R4/9/9/9/9 b g 1"
ALL_FUTILE = "7pk/9/7G1/9/8R/9/9/9/9 w g 2"  # after 5e1e


@pytest.mark.parametrize("drop", ["G*1b", "G*1c", "G*1d"])
def test_a_drop_taken_with_mate_at_once_is_futile(drop):
    judge = _FutilityJudgeBench(ALL_FUTILE)
    futile, hand, mate_len, nodes = judge.futile_drop(drop, 0)
    assert futile and mate_len == 0
    assert hand == ZERO  # the mate needs nothing in the attacker's hand
    assert nodes == 0  # "mate at once" is a look at the replies, not a search
    assert judge.unchanged


def test_a_check_answered_only_by_futile_drops_is_mate():
    assert _FutilityJudgeBench(ALL_FUTILE).only_futile_evasions()
    composers, strict = both_counts(ALL_FUTILE_ROOT)
    assert composers == ["5e1e"]
    # Strict: 5e1e G*1b 1e1b+ (or the drop further off, taken: the same length).
    assert len(strict) == 3 and "*" in strict[1]


# ---------------------------------------------------------------------------
# Not futile: the capture does not mate, or needs the piece
#
# ESCAPE: the rook on 1f checks; 2a and 2b are the gold's on 3b, so the king cannot
# move and every reply is a drop. After G*1b the rook's capture lands next to the
# king, unguarded, and the king takes it: no mate follows with the gold given back.
# The drop is real resistance, answered by G*2a (guarded by 3b): 2 plies both counts.
ESCAPE = "8k/6G2/9/9/9/8R/9/9/9 w Gg 1"
# NEEDS: the king may go to 2a (G*3b mates) or 2b (3 plies), so P's bound is 4.
# After S*1b, 1f1b+ 1a1b (the dragon is unguarded) G*1c 1b1a, and the captured
# silver mates: S*1b. With the silver given back instead, no mate follows (none
# within 40 plies).
NEEDS = "8k/9/5G3/9/7N1/8R/9/9/9 w Gs 1"


def test_a_capture_the_king_answers_is_not_futile():
    judge = _FutilityJudgeBench(ESCAPE, UNCAPPED)
    for bound in (0, 2, 40):
        assert not judge.futile_drop("G*1b", bound)[0]
    assert not judge.only_futile_evasions()
    composers, strict = both_counts(ESCAPE, and_root=True)
    assert composers == strict == ["G*1b", "G*2a"]


def test_a_drop_whose_capture_line_needs_the_piece_is_not_futile():
    bound = 1 + max(shortest_after(NEEDS, "1a2a"), shortest_after(NEEDS, "1a2b"))
    assert bound == 4
    judge = _FutilityJudgeBench(NEEDS, UNCAPPED)
    for b in (0, bound, 40):
        assert not judge.futile_drop("S*1b", b)[0]
    # Counted by both counts: the longest defence, longer than the king's moves.
    composers, strict = both_counts(NEEDS, and_root=True)
    assert composers == strict == ["S*1b", "1f1b+", "1a1b", "G*1c", "1b1a", "S*1b"]


# ---------------------------------------------------------------------------
# Futile only against a longer bound
#
# LONGER: the rook on 1f; the silver on 2c guards 2b and 1b, and 2a is open: 1a2a
# 1f1b+ 2a3a 1b3b, so P's bound is 4. A drop on 1b is taken by the rook (1f1b+,
# guarded by the silver) with mate at once. On 1c, the capture leaves the king
# 2a, then 1c2b mates: 2 plies. On 1d (or 1e), the capture line is the king's own
# escape with the rook nearer: 4 plies. So each drop is futile against a bound of
# its capture line's length and more, not less, and all of them against P's 4.
LONGER = "8k/9/7S1/9/9/8R/9/9/9 w gn 1"
LONGER_ROOT = "8k/9/7S1/9/9/4R4/9/9/9 b gn 1"  # 5f1f comes to P


@pytest.mark.parametrize(
    "drop, length", [("G*1b", 0), ("N*1b", 0), ("G*1c", 2), ("N*1c", 2), ("G*1d", 4), ("N*1e", 4)]
)
def test_a_drop_is_futile_against_its_capture_lines_length_and_more(drop, length):
    judge = _FutilityJudgeBench(LONGER, UNCAPPED)
    if length:
        assert not judge.futile_drop(drop, length - 2)[0]
    futile, _, mate_len, _ = judge.futile_drop(drop, length)
    assert futile and mate_len == length
    assert judge.futile_drop(drop, length + 2)[:3:2] == (True, length)
    assert judge.unchanged


def test_drops_futile_against_the_kings_escape_are_left_out_of_the_count():
    assert 1 + shortest_after(LONGER, "1a2a") == 4
    composers, strict = both_counts(LONGER, and_root=True)
    assert composers == ["1a2a", "1f1b+", "2a3a", "1b3b"]
    # Strict: one drop more (taken), two plies longer; the drop is futile against 4.
    drops = [m for m in strict if "*" in m]
    assert len(strict) == len(composers) + 2 and len(drops) == 1
    assert strict[0] == drops[0]
    assert _FutilityJudgeBench(LONGER, UNCAPPED).futile_drop(drops[0], 4)[0]
    # The same from the move before: 5f1f, then P.
    composers, strict = both_counts(LONGER_ROOT)
    assert composers == ["5f1f", *both_counts(LONGER, and_root=True)[0]]
    assert len(strict) == len(composers) + 2


# ---------------------------------------------------------------------------
# Against the other replies' shortest mates (exact judgements)
#
# AMONG: the lance on 1e checks; 1a2a is the king's only move, and G*2b (guarded
# by 3c) mates: P's bound is 2. After N*1b, taken by the lance (1e1b+), the king
# must take the lance back and is mated in 3 more (G*2c 1b1a 2c2b): the capture
# line is 4 plies long. Asked against a stale, longer
# length recorded for 1a2a (3 plies from its child, a bound of 4), the drop is
# futile against that bound; an exact judgement asks 1a2a "mate within 2?", finds
# one and judges against its shortest mate: not futile.
AMONG = "8k/9/6G2/9/8L/9/9/9/9 w Gn 1"


def test_an_exact_judgement_uses_the_shortest_mates_not_the_recorded_lengths():
    assert 1 + shortest_after(AMONG, "1a2a") == 2
    capped = _FutilityJudgeBench(AMONG)
    assert not capped.exact
    assert capped.futile_among("N*1b", {"1a2a": 3})[0]  # against the recorded 3
    exact = _FutilityJudgeBench(AMONG, UNCAPPED)
    assert exact.exact
    assert not exact.futile_among("N*1b", {"1a2a": 3})[0]
    assert exact.cut_short == 0 and exact.unchanged
    # Against its true length both agree: not futile (the capture line is 4 plies).
    assert not _FutilityJudgeBench(AMONG).futile_among("N*1b", {"1a2a": 1})[0]


def test_an_exact_judgement_keeps_a_drop_futile_when_no_reply_mates_sooner():
    # LONGER's G*1d (capture line 4) against 1a2a's 3: 1a2a has no mate within 2.
    judge = _FutilityJudgeBench(LONGER, UNCAPPED)
    assert judge.futile_among("G*1d", {"1a2a": 3})[0]


# ---------------------------------------------------------------------------
# Moved interpositions are never futile
#
# MOVED is ALL_FUTILE with the gold in hand replaced by a silver on 2b, which can
# move to 1c: taken there by the rook, mate follows at once, as after the futile
# drops; but a moved piece changes the board, and the move counts.
MOVED_ROOT = "7pk/7s1/7G1/9/4R4/9/9/9/9 b - 1"
MOVED = "7pk/7s1/7G1/9/8R/9/9/9/9 w - 2"  # after 5e1e


def test_a_moved_interposition_is_never_futile():
    assert Position(MOVED).evasions() == ["2b1c"]
    assert not _FutilityJudgeBench(MOVED).only_futile_evasions()
    with pytest.raises(ValueError, match="only drops"):
        _FutilityJudgeBench(MOVED).futile_drop("2b1c", 0)
    # Both counts count it: 3 plies, where ALL_FUTILE's drops leave 1.
    composers, strict = both_counts(MOVED_ROOT)
    assert composers == strict == ["5e1e", "2b1c", "1e1c+"]


# ---------------------------------------------------------------------------
# The memo and the cap


def test_a_judgement_is_asked_once_per_solve():
    # The memo gives every question about one drop the same answer, without a search.
    judge = _FutilityJudgeBench(LONGER)
    first = judge.futile_drop("G*1d", 4)
    assert first[0] and first[3] > 0
    again = judge.futile_drop("G*1d", 4)
    assert again[:3] == first[:3] and again[3] == 0
    # Another bound is another question.
    assert not judge.futile_drop("G*1d", 2)[0]


def test_a_judgement_cut_at_its_cap_counts_as_resistance_and_is_counted():
    # A cap of one node cuts every judgement that needs a search: the drop counts as
    # resistance, and no minimum is then claimed on it (docs/FUTILE.md, "Cut-short
    # judgements").
    judge = _FutilityJudgeBench(LONGER, 1)
    assert not judge.futile_drop("G*1d", 4)[0]
    assert judge.cut_short == 1
    assert not judge.futile_drop("G*1d", 4)[0]  # (from the memo: not counted again)
    assert judge.cut_short == 1
    assert judge.futile_drop("G*1b", 0)[0]  # a look, not a search: never cut
    assert judge.cut_short == 1
    # With the usual cap the same judgement is settled.
    settled = _FutilityJudgeBench(LONGER)
    assert settled.futile_drop("G*1d", 4)[0] and settled.cut_short == 0
