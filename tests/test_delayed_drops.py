"""Delayed expansion of interposing drops (DelayedDrops, csrc/delayed_drops.h).

Against a distant check only the first drop on each square between king and checker
takes part in the search; the next drop on that square comes in when the one before it
is proven. Under the composers' count in a bounded search every drop waits for the
other replies instead, to be judged futile or not against them. Board moves are never
held back, and every drop comes in at last: the verdict cannot change, only the order.
"""

from __future__ import annotations

from collections import defaultdict

from hooks import _DelayedDropsBench

# A rook checks the white king on 1a from 1i: seven empty squares between, and white
# holds a pawn, lance, knight, silver, gold and bishop to drop on them (knight and
# lance drops only where they may move on), besides the king's own moves.
FAR_CHECK = "8k/9/9/9/9/9/9/9/K7R w bgsnlp 1"
STANDBY, WAITING = 1, 2


def drop_square(move):
    return move[2:] if move[1] == "*" else None


def test_one_drop_per_square_goes_in_the_rest_stand_by():
    bench = _DelayedDropsBench(FAR_CHECK)
    moves, delayed = bench.moves(), bench.delayed()
    active = defaultdict(list)
    for m, d in zip(moves, delayed):
        sq = drop_square(m)
        if sq is None:
            assert d == 0, m  # board moves are never held back
        elif d == 0:
            active[sq].append(m)
        else:
            assert d == STANDBY, m
    squares = {drop_square(m) for m in moves if drop_square(m)}
    assert len(squares) == 7 and all(len(active[sq]) == 1 for sq in squares)
    assert bench.waiting() == 0


def test_each_proven_drop_lets_the_next_on_its_square_in_until_all_are_in():
    bench = _DelayedDropsBench(FAR_CHECK)
    moves = bench.moves()
    in_order = defaultdict(list)
    first_in = [
        i for i, (m, d) in enumerate(zip(moves, bench.delayed())) if drop_square(m) and d == 0
    ]
    for i in first_in:
        m = moves[i]
        j = i
        while j >= 0:  # prove the square's stand-in, then whichever came in
            in_order[drop_square(m)].append(moves[j])
            j = bench.prove(j)
    assert all(d == 0 for d in bench.delayed())  # every drop came in
    for sq, order in in_order.items():
        assert sorted(order) == sorted(m for m in moves if drop_square(m) == sq)


def test_a_board_move_proven_lets_nothing_in():
    bench = _DelayedDropsBench(FAR_CHECK)
    king_move = next(i for i, m in enumerate(bench.moves()) if drop_square(m) is None)
    assert bench.prove(king_move) == -1


def test_under_the_composers_count_every_drop_waits_against_the_proven_replies():
    bench = _DelayedDropsBench(FAR_CHECK, drops_wait=True)
    moves, delayed = bench.moves(), bench.delayed()
    drops = [m for m in moves if drop_square(m)]
    assert bench.waiting() == len(drops)
    assert all(d == WAITING for m, d in zip(moves, delayed) if drop_square(m))
    assert bench.judged_against() == []  # nothing proven yet
    board = [i for i, m in enumerate(moves) if drop_square(m) is None]
    for i in board:
        bench.prove(i)
    assert bench.judged_against() == [moves[i] for i in board]
