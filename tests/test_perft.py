"""Perft counts of ``Position.perft`` against the cshogi-computed table in data/perft.txt.

The table is produced by ``tests/data/make_perft.py``; every count there is at most
~3M leaves, so the whole file runs in about a second with the C++ perft.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from usi_mate import Position

DATA = Path(__file__).parent / "data" / "perft.txt"


def load_cases() -> list:
    """One pytest.param per (position, depth), named '<comment>-d<depth>'."""
    cases = []
    name = None
    for line in DATA.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            name = line[1:].strip()
            continue
        sfen, *counts = (field.strip() for field in line.split(";"))
        label = (name or sfen).split(" (")[0].replace(" ", "_")
        for depth, count in enumerate(counts, start=1):
            cases.append(pytest.param(sfen, depth, int(count), id=f"{label}-d{depth}"))
        name = None
    return cases


CASES = load_cases()


def test_table_is_not_empty():
    """Guard against a truncated data file silently passing with zero cases."""
    assert len({c.values[0] for c in CASES}) >= 7
    assert ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", 4, 719731) in [
        tuple(c.values) for c in CASES
    ]


@pytest.mark.parametrize("sfen,depth,expected", CASES)
def test_perft(sfen: str, depth: int, expected: int):
    assert Position(sfen).perft(depth) == expected


@pytest.mark.parametrize("sfen", sorted({c.values[0] for c in CASES}))
def test_perft_leaves_position_unchanged(sfen: str):
    """perft walks the tree with do/undo; the root must come back intact."""
    pos = Position(sfen)
    before = (pos.sfen(), pos.key, sorted(pos.legal_moves()))
    pos.perft(2)
    assert (pos.sfen(), pos.key, sorted(pos.legal_moves())) == before


@pytest.mark.parametrize("sfen", sorted({c.values[0] for c in CASES}))
def test_perft_1_is_legal_move_count(sfen: str):
    pos = Position(sfen)
    assert pos.perft(1) == len(pos.legal_moves()) == len(set(pos.legal_moves()))
