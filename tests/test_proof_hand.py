"""Proof and disproof hands (csrc/proof_hand.h), rule by rule on positions.

The rules and their reasons are in docs/DFPN.md; these tests pin each one to a
position where it matters. Whole-search soundness is tested in test_solver.py
(proof hands) and test_certify.py (disproof hands)."""

from __future__ import annotations

from hooks import (
    _and_node_disproof_hand,
    _and_node_proof_hand,
    _hand_before,
    _or_node_disproof_hand,
)

from usi_mate import Position

ZERO = dict.fromkeys("PLNSBRG", 0)
FULL = {"P": 18, "L": 4, "N": 4, "S": 4, "B": 2, "R": 2, "G": 4}


def test_before_a_drop_the_hand_held_the_dropped_piece():
    # Seed 000 has this the other way round (docs/DFPN.md): a mate by G*5b needs the gold.
    pos = Position("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1")
    assert _hand_before(pos, "G*5b", ZERO) == {**ZERO, "G": 1}


def test_before_a_capture_the_hand_lacked_the_captured_piece():
    pos = Position("4k4/4g4/4P4/9/9/9/9/9/9 b G2r2b2g4s4n4l17p 1")
    assert _hand_before(pos, "5c5b+", {**ZERO, "G": 2}) == {**ZERO, "G": 1}
    assert _hand_before(pos, "5c5b+", ZERO) == ZERO  # never below zero


def test_an_interposable_check_keeps_every_piece_the_defender_lacks():
    # Rook check along the file: the defender could interpose any piece it held. It holds
    # only pawns, so the proof must keep the attacker's count of every other type (set A_n).
    pos = Position("4k4/9/9/9/9/9/9/9/4R4 w G2S2p 1")
    proof = _and_node_proof_hand(pos, ZERO)
    assert proof == {**ZERO, "G": 1, "S": 2}
    # A contact check cannot be blocked: nothing is added.
    contact = Position("4k4/4G4/4P4/9/9/9/9/9/9 w S 1")
    assert _and_node_proof_hand(contact, ZERO) == ZERO


def test_a_disproof_gives_up_pieces_that_would_give_new_checks():
    # Black has no pieces in hand. A gold dropped next to the king would be a new check,
    # so a disproof of this position cannot cover hands with a gold (set B_n).
    pos = Position("4k4/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1")
    d = _or_node_disproof_hand(pos, FULL)
    assert d["G"] == 0 and d["S"] == 0 and d["R"] == 0 and d["B"] == 0 and d["L"] == 0
    assert d["N"] == 0  # 4c and 6c are empty: a knight would check from there
    assert d["P"] == 0  # 5b is empty: a pawn drop there checks


def test_a_refuting_drop_keeps_that_piece_for_the_defender():
    # AND node refuted by G*1b: with every gold in the attacker's hand the drop is gone.
    pos = Position("7lk/7p1/9/9/9/9/9/9/8L w 3Gg 1")
    assert _and_node_disproof_hand(pos, "G*1b", FULL) == {**FULL, "G": 3}
    assert _and_node_disproof_hand(pos, "G*1b", ZERO) == ZERO
