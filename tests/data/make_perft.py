#!/usr/bin/env python3
"""Regenerate ``tests/data/perft.txt`` from cshogi, the move-generation oracle.

Usage (from the repository root)::

    python tests/data/make_perft.py            # rewrites tests/data/perft.txt
    python tests/data/make_perft.py --check    # recomputes and diffs, writes nothing

The output is deterministic: the positions are fixed below (openings are given as
move lists and replayed here, so the SFENs come out of cshogi, not out of a hand
transcription), and the counts come from a plain recursive perft over
``cshogi.Board.legal_moves``. cshogi's legality is trusted (DOMAIN.md section 5),
including pawn-drop mate with pinned defenders.

File format, one position per line, ``#`` lines are comments naming the position::

    <sfen> ; <perft 1> ; <perft 2> ; <perft 3> [; <perft 4> ...]

Depths are listed from 1 upwards and stop before the first count above
``LEAF_LIMIT`` (or at ``MAX_DEPTH``), so the whole file costs our C++ perft well
under a second while still reaching depth 3-4 where drops, promotions, pins and
pawn-drop mates interact.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cshogi

try:
    from importlib.metadata import version

    CSHOGI_VERSION = version("cshogi")
except Exception:  # noqa: BLE001 - metadata missing in odd installs; counts do not depend on it
    CSHOGI_VERSION = "(unknown version)"

# ~3M leaves is ~0.15 s for a C++ perft at 20M leaves/s; the file totals ~15M.
LEAF_LIMIT = 3_000_000
MAX_DEPTH = 5
OUT = Path(__file__).with_name("perft.txt")
PROBLEMS = Path(__file__).resolve().parents[2] / "problems"  # the committed collections

START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

# (name, start sfen, moves to replay). Openings are standard joseki lines; the
# move lists only need to be legal, which replay() asserts.
OPENINGS = [
    ("startpos", START, ""),
    # Bishop exchange: both sides hold a bishop, so every later ply has drops.
    (
        "kakugawari (bishop exchange), both bishops in hand",
        START,
        (
            "7g7f 8c8d 2g2f 3c3d 8h2b+ 3a2b 7i8h 2b3c 8h7g 7a7b 3i4h 4a3b "
            "6i7h 5a4b 4g4f 6c6d 4h4g 7b6c 2f2e 8d8e 5i6h 6a5b"
        ),
    ),
    # Yokofudori: rook capture of the side pawn, open files, pawns in both hands.
    (
        "yokofudori (side-pawn capture), pawns in both hands, open rooks",
        START,
        (
            "7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d 8e8f 8g8f 8b8f "
            "2d3d 2b3c 3d3f 8f8d 3f2f 5a5b"
        ),
    ),
    # Yagura castle middle game: closed position, many gold/silver moves.
    (
        "yagura middle game",
        START,
        (
            "7g7f 8c8d 6g6f 3c3d 6i7h 4a3b 5g5f 5c5d 3i4h 3a4b 4i5h 7a6b 5h6g 6b5c "
            "7i6h 6a5b 5i6i 5a4a 6h7g 4c4d 2g2f 4b4c 4h5g 7c7d 2f2e 6c6d"
        ),
    ),
    # "Matsuri" (festival) position: a well-known perft benchmark full of checks,
    # promotions and drops, white to move.
    (
        "matsuri benchmark position, white to move",
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "",
    ),
    # The position with the largest known number of legal moves (593).
    (
        "593-legal-move position (maximum), huge hand",
        "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
        "",
    ),
    # Bare king against every piece in hand: drops everywhere, pawn-drop mates
    # near the king are filtered at depth 3.
    (
        "lone king, attacker holds everything",
        "9/9/9/9/4k4/9/9/9/9 b 2R2B4G4S4N4L18P 1",
        "",
    ),
    # DOMAIN.md section 5: P*1b would mate because the gold on 2a is pinned by
    # the rook on 9a, so it is illegal; python-shogi gets this one wrong.
    (
        "pawn-drop mate with a pinned capturer",
        "R6gk/7n1/7G1/9/9/9/9/9/K8 b P 1",
        "",
    ),
]


def problem_line(file: str, ident: str) -> tuple[str, str, str]:
    """Take the position tagged ``ident`` from a committed problem file (problems/)."""
    for line in (PROBLEMS / file).read_text().splitlines():
        sfen, _, comment = line.partition("#")
        if ident in comment.split():
            return (f"{ident} ({file})", sfen.strip(), "")
    raise KeyError(f"{ident} not in {file}")


TSUME = [
    ("zukou.sfen", "zukou-001"),  # attacker has no king; defender holds 2gn2l11p
    ("muso.sfen", "muso-001"),  # big defender hand: b2s3l15p
    ("nshogi_mate1.sfen", "nshogi-mate-1-ply-0002"),  # real game, both kings, black to move
    ("nshogi_mate1.sfen", "nshogi-mate-1-ply-0000"),  # real game, white to move
    (
        "komori_mate_engine_test.sfen",
        "komori-mate-engine-test-basic-obvious-reversed",
    ),  # white attacker
    ("mogami_tests.sfen", "mogami-bench-s1"),  # tsume with 4G in hand, defender holds the rest
]


def replay(sfen: str, moves: str) -> cshogi.Board:
    board = cshogi.Board(sfen)
    for usi in moves.split():
        legal = {cshogi.move_to_usi(m): m for m in board.legal_moves}
        if usi not in legal:
            raise ValueError(f"{usi} is illegal in {board.sfen()}")
        board.push(legal[usi])
    return board


def perft(board: cshogi.Board, depth: int) -> int:
    """Leaf count; the last ply is bulk-counted with len(legal_moves)."""
    if depth == 1:
        return len(board.legal_moves)
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def counts(board: cshogi.Board) -> list[int]:
    out: list[int] = []
    for depth in range(1, MAX_DEPTH + 1):
        n = perft(board, depth)
        if n > LEAF_LIMIT:
            break
        out.append(n)
    return out


def render() -> str:
    lines = [
        f"# Perft counts computed by tests/data/make_perft.py with cshogi {CSHOGI_VERSION}",
        f"# <sfen> ; perft(1) ; perft(2) ; ... (depths stop before {LEAF_LIMIT} leaves)",
    ]
    entries = list(OPENINGS) + [problem_line(f, i) for f, i in TSUME]
    for name, sfen, moves in entries:
        board = replay(sfen, moves)
        found = counts(board)
        if len(found) < 2:
            raise ValueError(f"{name}: fewer than two depths under the limit")
        lines.append(f"# {name}")
        lines.append(" ; ".join([board.sfen()] + [str(n) for n in found]))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    args = ap.parse_args()
    text = render()
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("perft.txt is up to date" if same else "perft.txt differs from a fresh run")
        return 0 if same else 1
    OUT.write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
