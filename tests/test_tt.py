"""The transposition table on its own (csrc/tt.h): superiority lookups,
length budgets, unknown-entry estimates, replacement and generations."""

from __future__ import annotations

from hooks import BUDGET_NONE, _TranspositionTable

INF = 0x3FFFFFFF  # PN_INF
NONE = BUDGET_NONE  # the unbounded search's budget (csrc/tt.h)
LEN_INF = 0xFFFF
ZERO = dict.fromkeys("PLNSBRG", 0)


def hand(**counts):
    return {**ZERO, **counts}


def test_a_proof_applies_to_every_superior_hand():
    tt = _TranspositionTable()
    tt.store(42, hand(G=1), 0, INF, mate_len=3)
    assert tt.probe(42, hand(G=1))[:2] == (0, INF)
    assert tt.probe(42, hand(G=2, P=5))[:2] == (0, INF)
    pn, dn, proof, *_ = tt.probe(42, hand(G=2, P=5))
    assert proof == hand(G=1)  # the proof hand, not the probe's
    assert not tt.probe(42, hand(S=1))[5]  # no gold: nothing known


def test_a_disproof_applies_to_every_inferior_hand():
    tt = _TranspositionTable()
    tt.store(7, hand(G=2, P=3), INF, 0, mate_len=LEN_INF)
    assert tt.probe(7, hand(G=1))[:2] == (INF, 0)
    assert tt.probe(7, hand())[:2] == (INF, 0)
    assert not tt.probe(7, hand(G=3))[5]  # more than the disproof hand: unknown


def test_bounded_results_apply_only_within_their_lengths():
    tt = _TranspositionTable()
    tt.store(1, hand(), 0, INF, mate_len=9)  # a mate in 9
    assert tt.probe(1, hand(), budget=9)[0] == 0
    assert not tt.probe(1, hand(), budget=7)[5]  # no use when asked for a mate within 7
    tt.store(2, hand(), INF, 0, mate_len=11)  # no mate shorter than 11
    assert tt.probe(2, hand(), budget=9)[1] == 0
    assert not tt.probe(2, hand(), budget=11)[5]
    assert not tt.probe(2, hand(), budget=NONE)[5]  # "not within 9" is not "no mate"


def test_the_shortest_applicable_proof_wins():
    tt = _TranspositionTable()
    tt.store(3, hand(G=1), 0, INF, mate_len=15)
    tt.store(3, hand(G=1, S=1), 0, INF, mate_len=5)
    assert tt.probe(3, hand(G=1, S=1))[3] == 5
    assert tt.probe(3, hand(G=1))[3] == 15


def test_unknown_entries_raise_estimates_by_superiority():
    tt = _TranspositionTable()
    tt.store(5, hand(G=1), 30, 4)
    assert tt.probe(5, hand(G=1))[:2] == (30, 4)
    # Fewer attacker pieces: at least as hard to prove (pn >= 30); dn stays default.
    pn, dn, *_ = tt.probe(5, hand())
    assert pn == 30 and dn == 1
    # More attacker pieces: at least as hard to disprove.
    pn, dn, *_ = tt.probe(5, hand(G=2))
    assert pn == 1 and dn == 4


def test_unknown_entries_keep_the_budget_they_were_searched_with():
    # Estimates answer one question ("mate within b?"); a futility judgement's
    # sub-search reads only those of its own budget (csrc/futility.cpp).
    tt = _TranspositionTable()
    tt.store(6, hand(G=1), 40, 3, mate_len=NONE)  # the unbounded first proof's
    tt.store(6, hand(G=1, S=1), 25, 2, mate_len=9)  # an attempt's, 9 plies left
    assert tt.probe(6, hand(G=1), budget=5)[:2] == (40, 3)  # shared by default
    assert not tt.probe(6, hand(G=1), budget=5, own_budget_only=True)[5]
    assert tt.probe(6, hand(G=1), budget=NONE, own_budget_only=True)[:2] == (40, 3)
    assert tt.probe(6, hand(G=1, S=1), budget=9, own_budget_only=True)[:2] == (25, 2)
    # By superiority too: the 9-ply estimates raise pn for a smaller hand, the
    # unbounded one dn for a larger hand, each only under its own budget.
    assert tt.probe(6, hand(G=1), budget=9, own_budget_only=True)[:2] == (25, 1)
    assert tt.probe(6, hand(G=1, S=1), budget=NONE, own_budget_only=True)[:2] == (1, 3)
    # Resolved entries apply whatever the flag: they answer every budget they cover.
    tt.store(6, hand(G=1), 0, INF, mate_len=7)
    assert tt.probe(6, hand(G=1), budget=9, own_budget_only=True)[:2] == (0, INF)


def test_a_full_cluster_replaces_older_searches_first():
    tt = _TranspositionTable()
    for i in range(8):  # one key, eight hands: one cluster of 8 entries
        tt.store(99, hand(P=i), 5, 5, amount=1000)
    tt.new_search()
    tt.store(99, hand(P=8), 5, 5, amount=1)  # a cheap entry of the current search
    assert tt.probe(99, hand(P=8))[5]
    # Within one search: the entry with the least work goes first.
    tt2 = _TranspositionTable()
    for i in range(8):
        tt2.store(98, hand(P=i), 5, 5, amount=100 + i)
    tt2.store(98, hand(P=9), 5, 5, amount=500)
    assert not tt2.probe(98, hand(P=0))[5]
    assert tt2.probe(98, hand(P=7))[5] and tt2.probe(98, hand(P=9))[5]


def test_resolved_entries_outlive_unknown_ones():
    tt = _TranspositionTable()
    tt.store(11, hand(P=0), INF, 0, mate_len=LEN_INF, amount=1)
    for i in range(1, 9):
        tt.store(11, hand(P=i, G=1), 5, 5, amount=10**6)
    assert tt.probe(11, hand())[1] == 0


def test_clear_forgets_and_hashfull_counts():
    tt = _TranspositionTable()
    for k in range(1, 2000):
        tt.store(k * 0x9E3779B97F4A7C15 % 2**64, hand(), 3, 3)
    assert tt.hashfull > 0
    tt.clear()
    assert tt.hashfull == 0


def cluster_key(index, salt=0):
    """A key of cluster `index` in a 1 MB table (4096 clusters of 256 bytes):
    the index is the key's top 12 bits (multiply-shift, csrc/tt.h)."""
    return (index << 52) | (salt << 1) | 2


def antichain(n):
    """n hands none of which contains another: pawns rising as the other
    pieces (lance, knight, silver, gold, at most 4 each) fall."""
    out = []
    for i in range(n):
        rest, counts = n - 1 - i, {}
        for kind in "LNSG":
            counts[kind] = min(4, rest)
            rest -= counts[kind]
        out.append(hand(P=i, **counts))
    return out


def test_proofs_of_one_board_beyond_its_cluster_stay_in_the_table():
    # One board proven with 12 incomparable hands: 8 fill its cluster, the
    # others move to the partner cluster instead of replacing proofs.
    tt = _TranspositionTable()
    key = cluster_key(10)
    hands = antichain(12)
    for i, h in enumerate(hands):
        tt.store(key, h, 0, INF, mate_len=9 + 2 * i, amount=100 + i)
    for i, h in enumerate(hands):
        pn, dn, proof, length, *_ = tt.probe(key, h)
        assert (pn, proof, length) == (0, h, 9 + 2 * i)
    # Unknown entries never move: a full cluster of proofs still loses one to
    # an unknown store, and that proof moves to the partner.
    tt.store(key, hand(G=1), 7, 7)
    assert tt.probe(key, hand(G=1))[:2] == (7, 7)
    assert all(tt.probe(key, h)[0] == 0 for h in hands)


def test_a_moved_proof_takes_only_what_is_worth_less_in_the_partner():
    tt = _TranspositionTable()
    home, other = cluster_key(20), cluster_key(21)
    for h in antichain(8):  # the partner full of proofs with much work under them
        tt.store(other, h, 0, INF, mate_len=5, amount=10**6)
    hands = antichain(9)
    for i, h in enumerate(hands):  # the ninth proof of `home` replaces its cheapest
        tt.store(home, h, 0, INF, mate_len=5, amount=1 + i)
    assert all(tt.probe(other, h)[0] == 0 for h in antichain(8))
    assert not tt.probe(home, hands[0])[5]  # the cheapest left the table
    assert all(tt.probe(home, h)[0] == 0 for h in hands[1:])
    # A shorter proof of an inferior hand covers them all.
    tt.store(home, hand(), 0, INF, mate_len=3)
    assert all(tt.probe(home, h)[3] == 3 for h in hands)


def test_the_table_grows_without_losing_entries():
    # A table starts in its first 4 MB and doubles as it fills (csrc/tt.h, grow): a
    # search touches pages in proportion to what it stores. Every entry survives the
    # moves: proofs, disproofs and estimates of 150,000 boards, stored while a 64 MB
    # table grows from 16,384 clusters to all its 262,144 (7% full, nothing replaced), and one
    # board with 12 incomparable proof hands (its cluster's 8 slots and 4 in the
    # partner's) stored first.
    import random

    rng = random.Random(7)
    tt = _TranspositionTable(64)
    board = rng.getrandbits(64) | 1
    hands = [hand(P=p, L=lance, N=6 - p - lance) for p in range(7) for lance in range(5)]
    hands = [h for h in hands if h["N"] <= 4][:12]
    assert len(hands) == 12
    for i, h in enumerate(hands):
        tt.store(board, h, 0, INF, mate_len=3 + 2 * i)
    kinds = [(0, INF, 7), (INF, 0, LEN_INF), (5, 9, NONE)]  # proof, disproof, estimate
    keys = [(rng.getrandbits(64) | 1, kinds[i % 3]) for i in range(150_000)]
    for key, (pn, dn, length) in keys:
        tt.store(key, hand(G=1), pn, dn, mate_len=length)
    for key, (pn, dn, length) in keys:
        got = tt.probe(key, hand(G=1))
        assert got[:2] == (pn, dn) and got[5], hex(key)
    for i, h in enumerate(hands):
        assert tt.probe(board, h)[0] == 0 and tt.probe(board, h)[3] == 3 + 2 * i
    # hashfull is of the whole table, not of the part in use.
    assert tt.hashfull < 150
    tt.clear()
    assert not tt.probe(keys[0][0], hand(G=1))[5] and tt.hashfull == 0
