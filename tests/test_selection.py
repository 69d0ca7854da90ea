"""The MID loop's choice at a node (select_child, child_thresholds: csrc/selection.h).

At an OR node the search goes into the check with the smallest proof number, at an AND
node into the reply with the smallest disproof number; of equals, the one the other
number rates harder first, then (OR nodes) a drop before a board move. The child gets
thresholds by the 1+epsilon trick: it keeps the search until it is a quarter worse than
the second best (capped by the node's own threshold), and its other threshold is the
node's less its siblings' sum, where an infinite threshold stays infinite. In that sum
the drops (drop checks, interposing drops) count as one, by the largest of them.
"""

from __future__ import annotations

from hooks import PN_INF, _choose_child


def child(pn, dn, drop=False, delayed=0):
    return (pn, dn, drop, delayed)


def test_or_node_takes_the_smallest_proof_number_and_sums_disproof_numbers():
    r = _choose_child([child(5, 2), child(3, 4), child(7, 1)], or_node=True)
    assert (r["best"], r["min"], r["second"], r["sum"]) == (1, 3, 5, 7)


def test_and_node_takes_the_smallest_disproof_number_and_sums_proof_numbers():
    r = _choose_child([child(5, 2), child(3, 4), child(7, 1)], or_node=False)
    assert (r["best"], r["min"], r["second"], r["sum"]) == (2, 1, 2, 15)


def test_of_equals_the_harder_by_the_other_number_goes_first():
    # OR: equal proof numbers, the check with the larger disproof number first.
    assert _choose_child([child(3, 2), child(3, 9), child(3, 4)], or_node=True)["best"] == 1
    # AND: equal disproof numbers, the reply with the larger proof number first.
    assert _choose_child([child(2, 3), child(6, 3), child(4, 3)], or_node=False)["best"] == 1


def test_then_a_drop_check_before_a_board_move_and_otherwise_the_first():
    equal = [child(3, 4), child(3, 4, drop=True), child(3, 4)]
    assert _choose_child(equal, or_node=True)["best"] == 1
    # Not at AND nodes: the first of equal replies.
    assert _choose_child(equal, or_node=False)["best"] == 0
    # A helper's order (tie_last): the last of equals.
    assert (
        _choose_child([child(3, 4), child(3, 4), child(3, 4)], or_node=True, tie_last=True)["best"]
        == 2
    )


def test_drops_count_by_their_largest_in_the_sum():
    def choose(children, or_node):
        return _choose_child(children, or_node=or_node, th_pn=30, th_dn=30)

    # AND node: board replies' proof numbers summed (5), the drops' by their largest (7).
    drops = [child(3, 4, drop=True), child(7, 3, drop=True), child(2, 6, drop=True)]
    r = choose([child(5, 2), *drops], or_node=False)
    assert (r["best"], r["sum"]) == (0, 12)
    # The best child, a board reply, may grow until the node reaches 30: 30 - (12 - 5).
    assert r["th_pn"] == 23
    # A drop as the best child may grow until it alone, with the board replies, reaches 30.
    r = choose([child(5, 6), child(3, 2, drop=True), child(7, 3, drop=True)], or_node=False)
    assert (r["best"], r["sum"], r["th_pn"]) == (1, 12, 25)
    # OR node: the drop checks' disproof numbers count by their largest too.
    r = choose([child(3, 4), child(5, 2, drop=True), child(6, 5, drop=True)], or_node=True)
    assert (r["best"], r["sum"], r["th_dn"]) == (0, 9, 25)


def test_delayed_children_take_no_part():
    r = _choose_child([child(1, 1, drop=True, delayed=1), child(4, 2), child(6, 3)], or_node=False)
    assert (r["best"], r["sum"]) == (1, 10)


def test_one_plus_epsilon_threshold_and_the_sum_threshold():
    # OR node with thresholds (20, 30): best pn 3, second 8: pn threshold
    # min(20, 8 + 8 // 4) = 10; dn threshold 30 - (sum 2 + 4 + 1) + 4 = 27.
    r = _choose_child([child(8, 2), child(3, 4), child(9, 1)], or_node=True, th_pn=20, th_dn=30)
    assert (r["th_pn"], r["th_dn"]) == (10, 27)
    # The node's own threshold caps it.
    r = _choose_child([child(8, 2), child(3, 4)], or_node=True, th_pn=6, th_dn=30)
    assert r["th_pn"] == 6
    # A margin of at least one: second 2 gives 3.
    r = _choose_child([child(2, 2), child(1, 4)], or_node=True, th_pn=50, th_dn=50)
    assert r["th_pn"] == 3
    # Another margin (a helper's eps_shift 1: a half).
    r = _choose_child([child(8, 2), child(3, 4)], or_node=True, th_pn=50, th_dn=50, eps_shift=1)
    assert r["th_pn"] == 12


def test_an_infinite_threshold_stays_infinite():
    # The siblings' sum near PN_INF must not leave the child one above its own value.
    big = PN_INF - 10
    r = _choose_child([child(3, 4), child(5, big)], or_node=True)
    assert r["th_dn"] == PN_INF
    r = _choose_child([child(4, 3), child(big, 5)], or_node=False)
    assert r["th_pn"] == PN_INF
