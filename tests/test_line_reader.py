"""The line reader (LineReader, csrc/line_reader.cpp) on tables the test makes.

Each test solves a small problem with a Solver (the table it leaves is the test's),
then reads lines off that table from the root, as the post-search reads them, in the
reader's modes (tests/hooks.py, _LineReaderBench): exact (a proven longest defence at
every AND node, within a budget) or on the lines the table records; with or without
the composers' tie-break; under the composers' or the strict count; cut short, as
past its deadline. The rules: docs/DFPN.md, "Mate lengths and the shortest mate"
(step 3 and "Composers' choices among defences").
"""

from __future__ import annotations

import pytest
from hooks import _LineReaderBench

from usi_mate import Position

# CHOICE (generated gen-0290, mate in 3 by the composers' count): G*3c, and the king
# has three defences. 2b1a and 2b2a are mated at once by G*2b, the second gold: 3
# plies, nothing left in hand. 2b1c resists longer: G*2c 1b2c 3c2c, 5 plies, and
# the attacker ends with the bishop it took, a spare piece.
CHOICE = "9/6Pkb/9/6+S1r/9/9/9/9/9 b 2Grb2g3s4n4l17p 1"
CHOICE_LONGEST = ["G*3c", "2b1c", "G*2c", "1b2c", "3c2c"]
CHOICE_SHORT_REPLIES = {"2b1a", "2b2a"}
# EQUAL (gen-0370, mate in 3): G*6c, and two defences equally long: 6b7a G*7b (the
# second gold: nothing left) and 6b6a 5c5a+ (a gold left in hand).
EQUAL = "9/3k1G3/4R+b3/9/9/9/9/8K/9 b 2Grbg4s4n4l18p 1"
EQUAL_NO_SPARE = ["G*6c", "6b7a", "G*7b"]
EQUAL_SPARE = ["G*6c", "6b6a", "5c5a+"]
# From tests/test_futility_judge.py: every reply to 5e1e is a futile drop.
ALL_FUTILE_ROOT = "7pk/9/7G1/9/4R4/9/9/9/9 b g 1"
# ... and after 5f1f the drops are futile against the king's escape (5 plies).
LONGER_ROOT = "8k/9/7S1/9/9/4R4/9/9/9 b gn 1"


def spare_pieces(sfen: str, line: list[str]) -> int:
    """The attacker's pieces in hand at the end of ``line``."""
    position = Position(sfen)
    for move in line:
        position.push_usi(move)
    return sum(position.hands[0].values())


def solved(sfen: str, count: str = "composers", post_search: str = "MinLength"):
    """A bench whose table holds ``sfen``'s solve, and that solve's (moves, minimum)."""
    bench = _LineReaderBench(16)
    status, moves, minimum = bench.solve(
        sfen, 200_000, post_search, ignore_futile=count == "composers"
    )
    assert status == "mate"
    return bench, moves, minimum


# ---------------------------------------------------------------------------
# The longest defence, the strict count


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("tie_break", [True, False])
def test_the_strict_count_takes_the_longest_defence(exact, tie_break):
    bench, moves, minimum = solved(CHOICE, "strict")
    assert moves == CHOICE_LONGEST and minimum == 5
    read = bench.read(minimum, exact, tie_break)
    assert read["ok"] and read["line"] == CHOICE_LONGEST
    assert not read["cut_short"]


def test_a_strict_read_on_recorded_lines_bounds_the_mating_tree():
    # Non-exact strict reads also return the tree the table proves: the line, or
    # longer where a defence not taken has a longer mate. Here the line is the
    # longest: 5. Exact reads and composers' reads bound nothing (None).
    bench, _, _ = solved(CHOICE, "strict")
    assert bench.read(None, exact=False)["tree_len"] == 5
    assert bench.read(5, exact=True)["tree_len"] is None
    composers, _, _ = solved(CHOICE)
    assert composers.read(None, exact=False)["tree_len"] is None


def test_the_budget_must_hold_every_defence():
    # A line within 3 plies cannot be read where one defence needs 5, whichever
    # defence the line would take: every reply must be mated within the budget.
    for count in ("strict", "composers"):
        bench, _, minimum = solved(CHOICE, count)
        assert minimum == 5
        for exact in (True, False):
            assert not bench.read(3, exact)["ok"]
            assert bench.read(5, exact)["ok"]


# ---------------------------------------------------------------------------
# The composers' choices: no spare pieces


@pytest.mark.parametrize("exact", [True, False])
def test_the_composers_count_prefers_a_shorter_defence_without_spare_pieces(exact):
    # The shortest mate under the longest defence is 5 plies, but that defence
    # leaves the attacker a bishop: the composers' line (tie-break) takes a defence
    # without spare pieces, 3 plies.
    bench, moves, minimum = solved(CHOICE)
    assert minimum == 5 and len(moves) == 3
    read = bench.read(minimum, exact, tie_break=True)
    assert read["ok"] and len(read["line"]) == 3
    assert read["line"][1] in CHOICE_SHORT_REPLIES
    assert spare_pieces(CHOICE, read["line"]) == 0
    # Without the tie-break, the longest defence, spare bishop and all.
    plain = bench.read(minimum, exact, tie_break=False)
    assert plain["line"] == CHOICE_LONGEST
    assert spare_pieces(CHOICE, plain["line"]) == 1


@pytest.mark.parametrize("count", ["composers", "strict"])
def test_of_equal_defences_the_one_without_spare_pieces(count):
    # Both counts, exact or not: among equally long defences, the line that leaves
    # the attacker nothing in hand.
    bench, moves, minimum = solved(EQUAL, count)
    assert moves == EQUAL_NO_SPARE and minimum == 3
    for exact in (True, False):
        assert bench.read(minimum, exact, tie_break=True)["line"] == EQUAL_NO_SPARE
    assert spare_pieces(EQUAL, EQUAL_NO_SPARE) == 0 and spare_pieces(EQUAL, EQUAL_SPARE) == 1
    # Without the tie-break an exact read takes the first longest defence (generation
    # order: 6b6a), leaving a gold; a read on recorded lines still ranks equal lines
    # by their spare pieces (the strict count's rule: the longest, then the fewest).
    assert bench.read(minimum, exact=True, tie_break=False)["line"] == EQUAL_SPARE
    assert bench.read(minimum, exact=False, tie_break=False)["line"] == EQUAL_NO_SPARE


# ---------------------------------------------------------------------------
# Cut short: past its deadline a read goes on with recorded lengths


def test_a_read_cut_short_finishes_on_recorded_lengths():
    # After one position a read ranks the replies by their recorded lengths: it
    # still answers a mate, but no line's end is read, so it cannot see the spare
    # gold and takes the first of the equal defences. An exact read fails instead
    # (its caller has a fallback).
    bench, _, minimum = solved(EQUAL)
    cut = bench.read(None, exact=False, read_positions=1)
    assert cut["ok"] and cut["cut_short"]
    assert cut["line"] == EQUAL_SPARE and cut["positions"] == 1
    assert not bench.read(minimum, exact=True, read_positions=1)["ok"]
    whole = bench.read(None, exact=False)
    assert whole["line"] == EQUAL_NO_SPARE and not whole["cut_short"]


# ---------------------------------------------------------------------------
# What the table holds


def test_an_exact_read_proves_what_the_first_proof_left_out():
    # After the length search the table holds every fact an exact read asks ("no
    # mate within t - 2" after each reply): no search. After the first proof alone
    # (post_search None, the strict count) some must be proven: a few nodes. The
    # line is the same.
    after_min, _, _ = solved(CHOICE, "strict")
    assert after_min.read(5, exact=True)["nodes"] == 0
    first_only, moves, _ = solved(CHOICE, "strict", post_search="None")
    assert moves == CHOICE_LONGEST
    read = first_only.read(5, exact=True)
    assert read["line"] == CHOICE_LONGEST and read["nodes"] > 0


def test_futile_drops_are_no_resistance_in_the_composers_line():
    # Every reply to 5e1e is a futile drop: the composers' line ends there. The
    # strict line (on the strict count's own entries, the root proven again, as
    # PostSearch's strict line) counts the drop and its capture. The composers'
    # entries do not prove that strict line: a strict read on them fails.
    bench, moves, _ = solved(ALL_FUTILE_ROOT)
    assert moves == ["5e1e"]
    assert bench.read(1, exact=True)["line"] == ["5e1e"]
    assert bench.read(None, exact=False)["line"] == ["5e1e"]
    strict = bench.read(None, exact=False, count="strict-own")
    assert strict["ok"] and len(strict["line"]) == 3 and "*" in strict["line"][1]
    assert not bench.read(None, exact=False, count="strict")["ok"]
    # Drops futile against the king's escape: left out, the escape is the line.
    bench, moves, minimum = solved(LONGER_ROOT)
    expected = ["5f1f", "1a2a", "1f1b+", "2a3a", "1b3b"]
    assert moves == expected and minimum == 5
    for exact in (True, False):
        assert bench.read(minimum, exact)["line"] == expected
