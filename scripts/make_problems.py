#!/usr/bin/env python3
"""Generate tsume-like positions and label them: the project's own test set.

    python -m scripts.make_problems                      # writes problems/generated.sfen
    python -m scripts.make_problems --seed 7 --scale 0.1 --out /tmp/small.sfen
    python -m scripts.make_problems --max-seconds 1140   # stop in time; the header
                                                         # records --max-draws N
    python -m scripts.make_problems --only-non-promotion 60 \
        --out problems/generated_nonpromotion.sfen       # knight non-promotions only
    python -m scripts.make_problems --relabel problems/generated.sfen
                                                         # label and categorise again

The committed files give their exact command and seed in their header: run it
from the repository root to make the same file again (same usi-mate and cshogi
versions; about 20 minutes for generated.sfen, under a minute for
generated_nonpromotion.sfen, on one core of the project's machine).

Every labelled position is agreed by two engines: usi_mate and cshogi.DfPn
(dlshogi's df-pn, an independent implementation). A position is kept only when

- usi_mate proves a mate and its shortest-mate search finishes
  (``post_search="MinLength"``, ``min_length_proven``), its line replays in
  cshogi (every move legal, every attacker move a check, the end checkmate or
  only futile interpositions left), and cshogi.DfPn also finds a mate whose
  line replays to checkmate; the label is usi_mate's proven length in the
  composers' count (futile interpositions left out); or
- usi_mate proves no mate, the disproof certificate it builds verifies
  (``usi_mate.certify.verify_no_mate``, replayed with cshogi's move
  generator), and cshogi.DfPn returns False without using up its node budget
  (its search ended by disproving the root within its depth, not by running
  out). Label ``nomate``.

Everything else (a limit reached, a certificate that does not verify, any
disagreement) is dropped and counted in the summary printed at the end.

Positions come from these sources, all driven by one seeded ``random.Random``:

- ``tsume``: a defender king in its camp, a few pieces of both colours near it,
  a small hand for the attacker and the rest of the set in the defender's hand
  (as in composed problems); 30% have the attacker's king on the board too;
- ``climb``: a ``tsume`` mate mutated step by step (move, add, remove or
  promote a piece, move a piece between the hands), each step kept when the
  proven shortest mate does not get shorter: the way to longer mates;
- ``game``: positions from random games from the start position (a share of
  moves picked among checks), both kings on the board;
- ``line``: positions along a labelled mating line (attacker to move), taken
  when the rule that the category names shows up there;
- ``non-promotion``: ``tsume`` set-ups with a check that could promote and does
  not, screened with small searches for mates that need the non-promotion (the
  other sources give one in ~2,000 labels; this screen found none in the
  committed run, whose 3 such mates came from the other sources);
- ``knight`` (``--only-non-promotion N``, a separate file): set-ups built around
  a knight that jumps to rank 3 with check, which the promoted knight would not
  give (``knight_tsume``), kept only when the mate needs the non-promotion: about
  2 a second.

Half of the ``tsume`` and ``climb`` positions are turned 180 degrees with the
colours swapped, so white attacks in them; ``game`` positions have either side.

Categories (``cat=`` on the line), each decided by a check that a test can redo:

- ``double-king``: both kings on the board;
- ``white-to-move``: white attacks;
- ``uchifuzume``: at the root or at an attacker position of the labelled line,
  a pawn drop in front of the king is check but illegal because it would mate
  (打ち歩詰め: basic rules allow it, cshogi does not list it);
- ``nifu``: at the root or at an attacker position of the labelled line, the
  pawn drop in front of the king is forbidden only by two pawns on the file (二歩);
- ``perpetual-check``: no mate, and the verified disproof closes at least one
  line because the attacker's checks come back to a position on the path
  (連続王手の千日手);
- ``muda-ai``: the strict count (every interposition a defence,
  ``ignore_futile_interpositions=False``) proves a longer shortest mate than the
  composers' count; the strict length is recorded as ``strict=N``;
- ``non-promotion``: every root check that mates in the shortest length is a
  non-promotion (不成) whose promoting twin is legal: the mate needs it.

``strict=N`` is written for every mate whose strict shortest mate is proven
within the limits, ``src=`` names the source. The seed, the command and the
versions of both engines go into the file's header, so the file can be
regenerated; searches are capped by nodes, never by time, and each starts from a
cleared table, so the same seed and versions give the same file.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import cshogi

import usi_mate
from usi_mate.verify import only_futile_replies

try:  # python -m scripts.<tool> from the checkout's root
    from scripts.mate_lines import check_mate_line
except ImportError:  # python scripts/<tool>.py, or tests (scripts/ on the path)
    from mate_lines import check_mate_line

REPO = Path(__file__).resolve().parents[1]

DEFAULT_SEED = 20_260_310
DEFAULT_OUT = REPO / "problems" / "generated.sfen"

# --- search limits (nodes; usi_mate runs ~1-2 M nodes/s on the project machine) ---
# First look at a candidate: most random positions are settled far below this.
PREFILTER_NODES = 500_000
# Shortest-mate proof for a label. Tests re-solve with a cap a few times higher,
# so every label stays provable in well under a second.
LABEL_NODES = 2_000_000
# The strict count (every interposition a defence) costs more: futile drops
# multiply the tree. Not proven within this: no strict= field.
STRICT_NODES = 2_000_000
# Disproof certificate walk (solve's certify_nodes); the replay of the tree
# (usi_mate.certify.verify_no_mate, run by solve) and the repetition walk below
# visit at most VERIFY_NODES positions.
CERT_NODES = 1_000_000
VERIFY_NODES = 2_000_000
# Each climbing step first looks for any mate within CLIMB_FIRST_NODES nodes
# (most mutations that lose the mate are rejected here: a shortest-mate search
# that fails costs ~125 ms at 300 k nodes, this check ~10 ms), then proves the
# shortest mate within CLIMB_NODES, or CLIMB_LONG_NODES from a mate of CLIMB_LONG
# plies up (proving a mate 2 plies longer needs roughly twice the nodes). Small
# caps keep a step cheap and favour positions that tests prove fast.
CLIMB_FIRST_NODES = 30_000
CLIMB_NODES = 100_000
CLIMB_LONG = 7
CLIMB_LONG_NODES = 300_000
# A climb ends after this many mutations in a row that did not lengthen the mate.
CLIMB_PATIENCE = 25
# A climbed position is offered every this many accepted steps (and whenever the
# mate got longer), so the offered positions of one climb differ by several changes.
CLIMB_SAMPLE_EVERY = 3
# ... and only when it differs from the last position offered from the same line
# of climbs in at least this many squares or hand pieces (one climb often runs
# along a family of near-copies).
CLIMB_MIN_CHANGES = 3
# Climbs start from the end of an earlier climb (a pool of the longest ones,
# each used at most POOL_USES times) with this probability, else afresh.
POOL_SHARE = 0.7
POOL_SIZE = 60
POOL_USES = 3
# Root checks solved to decide "non-promotion": each one a shortest-mate search.
NONPROMO_NODES = 500_000
# cshogi.DfPn: node budget and depth (the same 4000 plies as usi_mate's max ply).
PEER_NODES = 2_000_000
PEER_DEPTH = 4000
# Two tables: a small one for the many short searches (a search on a cleared
# 64 MB table costs ~12 ms of page faults even for a mate in 1, on 16 MB ~3 ms),
# a larger one for the label searches of up to 2 M nodes.
QUICK_HASH_MB = 16
LABEL_HASH_MB = 64

# --- the set at --scale 1: mates per length bucket (15 holds 15 and longer) ---
# About 2,000 positions. The long buckets are the slow ones (a climb to 15 plies
# takes tens of seconds) and 7 and 9 fill late: the committed run stopped at its
# 19-minute limit (--max-seconds 1140) with 1,847 positions, 7: 207, 9: 124, 15+: 42.
QUOTA = {
    "1": 250,
    "3": 250,
    "5": 250,
    "7": 250,
    "9": 220,
    "11": 180,
    "13": 120,
    "15": 80,
    "nomate": 400,
}
# Rule categories take precedence over full length buckets, up to this many each.
PER_CATEGORY = 80
# Mates that need a non-promotion are rare (1 in ~2,000 labels of the other
# sources), so the set asks for fewer and screens random set-ups for them (a share
# of the draws while it is short). That screen rarely hits; --only-non-promotion
# (knight set-ups) is the way to many of them.
NON_PROMOTION_WANTED = 12
NON_PROMOTION_SHARE = 0.2  # of the draws while that category is short
RULE_CATEGORIES = ("uchifuzume", "nifu", "perpetual-check", "muda-ai", "non-promotion")
# Stop after this many candidates even if a quota is still open (a safety net).
MAX_CANDIDATES = 200_000
# --max-seconds: a wall-clock limit for the run (the machine may be busy). When it
# ends the run, the file is written with what was kept, and its header records the
# number of draws made as --max-draws: the same command with that cap makes the
# same file whatever the machine's speed (the searches are capped by nodes).

FULL_SET = {"R": 2, "B": 2, "G": 4, "S": 4, "N": 4, "L": 4, "P": 18}
HAND_ORDER = "RBGSNLP"
PROMOTABLE = set("RBSNLP")
FILES = "987654321"
RANKS = "abcdefghi"
START_SFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


# --------------------------------------------------------------------------- positions


def checking_moves(board: cshogi.Board) -> list[int]:
    """Legal moves after which the opponent is in check (push, is_check, pop)."""
    out = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_check():
            out.append(move)
        board.pop()
    return out


def canonical(sfen: str) -> str:
    """cshogi's canonical SFEN (hands in RBGSNLP order) with move number 1."""
    return " ".join(cshogi.Board(sfen).sfen().split()[:3]) + " 1"


@dataclass
class Setup:
    """A position under construction, always with black as the attacker.

    ``squares`` maps (file, rank) (1-9, rank 1 at the top) to an SFEN piece
    ('k', '+R', 'p'); ``hands`` holds black's (attacker) and white's counts.
    """

    squares: dict[tuple[int, int], str] = field(default_factory=dict)
    attacker_hand: Counter = field(default_factory=Counter)
    defender_hand: Counter = field(default_factory=Counter)

    def changes(self, other: Setup) -> int:
        """Squares whose piece differs plus attacker hand pieces that differ."""
        squares = set(self.squares) | set(other.squares)
        board = sum(self.squares.get(sq) != other.squares.get(sq) for sq in squares)
        hand = sum(abs(self.attacker_hand[t] - other.attacker_hand[t]) for t in HAND_ORDER)
        return board + hand

    def copy(self) -> Setup:
        return Setup(dict(self.squares), Counter(self.attacker_hand), Counter(self.defender_hand))

    def king(self) -> tuple[int, int] | None:
        return next((sq for sq, p in self.squares.items() if p == "k"), None)

    def on_board(self) -> Counter:
        """Pieces on the board by unpromoted letter, both colours, kings left out."""
        return Counter(p[-1].upper() for p in self.squares.values() if p[-1] not in "kK")

    def pool(self) -> Counter:
        """Pieces in neither hand nor on the board (given to the defender by default)."""
        used = self.on_board() + self.attacker_hand + self.defender_hand
        return Counter({t: FULL_SET[t] - used[t] for t in FULL_SET if FULL_SET[t] > used[t]})

    def sfen(self, white_attacks: bool = False) -> str:
        """The SFEN, black to move, or turned 180 degrees with the colours swapped."""
        squares = self.squares
        hands = (self.attacker_hand, self.defender_hand)
        if white_attacks:
            squares = {(10 - f, 10 - r): p.swapcase() for (f, r), p in squares.items()}
            hands = (self.defender_hand, self.attacker_hand)
        rows = []
        for rank in range(1, 10):
            row, empty = "", 0
            for file in range(9, 0, -1):
                piece = squares.get((file, rank))
                if piece is None:
                    empty += 1
                    continue
                row += (str(empty) if empty else "") + piece
                empty = 0
            rows.append(row + (str(empty) if empty else ""))
        hand = ""
        for counts, case in zip(hands, (str.upper, str.lower)):
            for t in HAND_ORDER:
                n = counts.get(t, 0)
                if n:
                    hand += (str(n) if n > 1 else "") + case(t)
        side = "w" if white_attacks else "b"
        return f"{'/'.join(rows)} {side} {hand or '-'} 1"

    def is_legal(self) -> bool:
        """No dead piece, no two pawns, no more than the full set, one defender king,
        at most one attacker king, kings apart, neither side in check."""
        for (_, rank), piece in self.squares.items():
            if piece in ("P", "L") and rank == 1 or piece == "N" and rank <= 2:
                return False
            if piece in ("p", "l") and rank == 9 or piece == "n" and rank >= 8:
                return False
        for pawn in "Pp":
            files = [f for (f, _), p in self.squares.items() if p == pawn]
            if len(files) != len(set(files)):
                return False
        used = self.on_board() + self.attacker_hand + self.defender_hand
        if any(used[t] > FULL_SET[t] for t in FULL_SET):
            return False
        kings = Counter(p for p in self.squares.values() if p in "kK")
        if kings["k"] != 1 or kings["K"] > 1:
            return False
        if kings["K"]:
            a = next(sq for sq, p in self.squares.items() if p == "K")
            d = self.king()
            if max(abs(a[0] - d[0]), abs(a[1] - d[1])) <= 1:
                return False
        # Neither side in check: the defender (not to move) cannot be, and an
        # attacker in check would have to answer it first, which no tsume asks.
        if cshogi.Board(self.sfen()).is_check():
            return False
        return not cshogi.Board(self.sfen().replace(" b ", " w ", 1)).is_check()


def _near(rng: random.Random, centre: tuple[int, int], reach: int) -> tuple[int, int]:
    return (centre[0] + rng.randint(-reach, reach), centre[1] + rng.randint(-reach, reach))


def _empty_square(rng: random.Random, setup: Setup, near: bool) -> tuple[int, int] | None:
    king = setup.king()
    for _ in range(30):
        sq = _near(rng, king, 2) if near and king else (rng.randint(1, 9), rng.randint(1, 9))
        if 1 <= sq[0] <= 9 and 1 <= sq[1] <= 9 and sq not in setup.squares:
            return sq
    return None


# Attacker hand pieces of composed problems: golds and silvers most, pawns and
# lances for drops in front of the king, a major piece now and then.
HAND_WEIGHTS = {"R": 2, "B": 2, "G": 5, "S": 4, "N": 3, "L": 2, "P": 3}


def _weighted_type(rng: random.Random, available: Counter) -> str | None:
    types = [t for t in HAND_ORDER if available.get(t, 0) > 0]
    if not types:
        return None
    return rng.choices(types, weights=[HAND_WEIGHTS[t] for t in types])[0]


def _place(rng: random.Random, setup: Setup, attacker: bool, near: bool) -> bool:
    """Put one piece from the pool on an empty square; False when none fits."""
    t = _weighted_type(rng, setup.pool())
    sq = _empty_square(rng, setup, near)
    if t is None or sq is None:
        return False
    promote_share = 0.25 if attacker else 0.1
    piece = t if attacker else t.lower()
    if t in PROMOTABLE and rng.random() < promote_share:
        piece = "+" + piece
    setup.squares[sq] = piece
    return True


def random_tsume(rng: random.Random) -> Setup | None:
    """A composed-problem-like set-up (black attacks), or None when it is illegal."""
    setup = Setup()
    rank = rng.choices((1, 2, 3), weights=(50, 35, 15))[0]
    setup.squares[(rng.randint(1, 9), rank)] = "k"
    if rng.random() < 0.3:
        setup.squares[(rng.randint(1, 9), rng.randint(5, 9))] = "K"
    for _ in range(rng.randint(1, 4)):
        _place(rng, setup, attacker=True, near=rng.random() < 0.8)
    for _ in range(rng.randint(0, 5)):
        _place(rng, setup, attacker=False, near=rng.random() < 0.85)
    for _ in range(rng.choices((0, 1, 2, 3, 4), weights=(1, 4, 4, 3, 1))[0]):
        t = _weighted_type(rng, setup.pool())
        if t:
            setup.attacker_hand[t] += 1
    setup.defender_hand = setup.pool()  # the defender holds the rest
    return setup if setup.is_legal() else None


def knight_tsume(rng: random.Random) -> Setup | None:
    """A set-up built around a knight check that only the unpromoted knight gives.

    The defender king stands on rank 1 and an attacker knight on rank 5 can jump
    to rank 3 beside the king's file, giving check; promoted there (it may, rank 3
    is in the promotion zone) it moves as a gold and gives none. A mate that has
    to start with this jump needs the non-promotion (桂不成), the rarest rule
    category of the random sources. The rest is as in ``random_tsume``, with a
    smaller attacker hand (fewer drops that mate instead). None when illegal.
    """
    setup = Setup()
    king_file = rng.randint(1, 9)
    land = king_file + rng.choice((-1, 1))
    start = land + rng.choice((-1, 1))
    if not (1 <= land <= 9 and 1 <= start <= 9):
        return None
    setup.squares[(king_file, 1)] = "k"
    setup.squares[(start, 5)] = "N"
    if rng.random() < 0.3:
        square = (rng.randint(1, 9), rng.randint(7, 9))
        if square not in setup.squares:
            setup.squares[square] = "K"
    for _ in range(rng.randint(0, 3)):
        _place(rng, setup, attacker=True, near=True)
    for _ in range(rng.randint(1, 5)):
        _place(rng, setup, attacker=False, near=rng.random() < 0.85)
    if setup.squares.get((land, 3), "k").isupper():
        return None  # the knight's own piece (or none could) stands on the landing square
    for _ in range(rng.choices((0, 1, 2), weights=(3, 4, 2))[0]):
        t = _weighted_type(rng, setup.pool())
        if t:
            setup.attacker_hand[t] += 1
    setup.defender_hand = setup.pool()
    return setup if setup.is_legal() else None


def mutate(rng: random.Random, setup: Setup) -> Setup | None:
    """One random change of a set-up, or None when it is illegal or a no-op."""
    s = setup.copy()
    kind = rng.choice(
        (
            "move",
            "move",
            "add-defender",
            "add-attacker",
            "remove",
            "to-defender",
            "to-attacker",
            "promote",
            "swap",
        )
    )
    pieces = sorted(sq for sq, p in s.squares.items() if p not in "kK")
    if kind == "move":
        movable = pieces + ([s.king()] if rng.random() < 0.2 else [])
        if not movable:
            return None
        src = rng.choice(movable)
        dst = _empty_square(rng, s, near=rng.random() < 0.85)
        if dst is None:
            return None
        s.squares[dst] = s.squares.pop(src)
    elif kind in ("add-defender", "add-attacker"):
        t = _weighted_type(rng, s.defender_hand)
        dst = _empty_square(rng, s, near=True)
        if t is None or dst is None:
            return None
        s.defender_hand[t] -= 1
        attacker = kind == "add-attacker"
        piece = t if attacker else t.lower()
        if t in PROMOTABLE and rng.random() < (0.25 if attacker else 0.1):
            piece = "+" + piece
        s.squares[dst] = piece
    elif kind == "remove":
        if not pieces:
            return None
        s.defender_hand[s.squares.pop(rng.choice(pieces))[-1].upper()] += 1
    elif kind in ("to-defender", "to-attacker"):
        giver, taker = (
            (s.attacker_hand, s.defender_hand)
            if kind == "to-defender"
            else (s.defender_hand, s.attacker_hand)
        )
        t = _weighted_type(rng, giver)
        if t is None:
            return None
        giver[t] -= 1
        taker[t] += 1
    elif kind == "promote":
        flippable = [sq for sq in pieces if s.squares[sq][-1].upper() in PROMOTABLE]
        if not flippable:
            return None
        sq = rng.choice(flippable)
        p = s.squares[sq]
        s.squares[sq] = p[1:] if p.startswith("+") else "+" + p
    else:  # swap a board piece's type with one from the defender's hand
        t = _weighted_type(rng, s.defender_hand)
        if t is None or not pieces:
            return None
        sq = rng.choice(pieces)
        old = s.squares[sq]
        s.defender_hand[t] -= 1
        s.defender_hand[old[-1].upper()] += 1
        s.squares[sq] = t if old[-1].isupper() else t.lower()
    s.attacker_hand = +s.attacker_hand
    s.defender_hand = +s.defender_hand
    return s if s.is_legal() else None


# Random games: a share of moves picked among the checks, so kings get exposed
# and material reaches the hands, as in the middle and end of real games.
GAME_CHECK_BIAS = 0.3
GAME_CAPTURE_BIAS = 0.3


def random_game_position(rng: random.Random) -> str | None:
    """A position from a random game where the side to move has a check, or None."""
    board = cshogi.Board(START_SFEN)
    stop_at = rng.randint(40, 200)
    for _ in range(stop_at):
        moves = sorted(board.legal_moves, key=cshogi.move_to_usi)
        if not moves:
            return None
        pool = moves
        roll = rng.random()
        if roll < GAME_CHECK_BIAS:
            pool = checking_moves(board) or moves
        elif roll < GAME_CHECK_BIAS + GAME_CAPTURE_BIAS:
            pool = [m for m in moves if board.piece(cshogi.move_to(m)) != cshogi.NONE] or moves
        board.push(rng.choice(pool))
        if board.is_game_over():
            return None
    if board.is_check() or not checking_moves(board):
        return None
    return canonical(board.sfen())


# --------------------------------------------------------------------------- rules


def _parse_board(field_text: str) -> dict[str, str]:
    squares: dict[str, str] = {}
    for r, row in enumerate(field_text.split("/")):
        f, i = 0, 0
        while i < len(row):
            c = row[i]
            if c.isdigit():
                f += int(c)
                i += 1
                continue
            piece = c
            if c == "+":
                i += 1
                piece = "+" + row[i]
            squares[FILES[f] + RANKS[r]] = piece
            f += 1
            i += 1
    return squares


def pawn_drop_status(board: cshogi.Board) -> str | None:
    """What stops or allows the pawn drop in front of the enemy king, side to move.

    None when there is no such drop to speak of (no pawn in hand, no enemy king,
    square occupied or off the board, the mover in check); "nifu" when only two
    pawns on the file forbid it; "mate" when basic rules allow it but cshogi does
    not list it: the drop would be checkmate (打ち歩詰め); "legal" otherwise.
    """
    if board.is_check():
        return None
    field_text, side = board.sfen().split()[:2]
    black = side == "b"
    if board.pieces_in_hand[0 if black else 1][0] == 0:  # index 0: pawns
        return None
    squares = _parse_board(field_text)
    enemy_king = "k" if black else "K"
    ksq = next((sq for sq, p in squares.items() if p == enemy_king), None)
    if ksq is None:
        return None
    rank = RANKS.index(ksq[1]) + (1 if black else -1)  # black pawns move toward rank a
    if not 0 <= rank <= 8:
        return None
    target = ksq[0] + RANKS[rank]
    if target in squares:
        return None
    own_pawn = "P" if black else "p"
    if any(sq[0] == ksq[0] and p == own_pawn for sq, p in squares.items()):
        return "nifu"
    legal = f"P*{target}" in {cshogi.move_to_usi(m) for m in board.legal_moves}
    return "legal" if legal else "mate"


def line_drop_statuses(sfen: str, moves: list[str]) -> set[str]:
    """pawn_drop_status at the root and at every attacker position of the line."""
    board = cshogi.Board(sfen)
    seen = {pawn_drop_status(board)}
    for i, usi in enumerate(moves):
        board.push_usi(usi)
        if i % 2 == 1:
            seen.add(pawn_drop_status(board))
    return seen - {None}


def disproof_uses_repetition(sfen: str, refutations: dict[str, str], max_nodes: int) -> bool | None:
    """Whether a (verified) disproof tree closes a line by repetition; None if too big.

    Walks the tree as usi_mate.certify does: every check at an attacker
    position, the recorded reply at a defender position. A move back to a
    position on the path is a repetition under continuous check.
    """
    refute = {" ".join(k.split()[:3]): v for k, v in refutations.items()}
    board = cshogi.Board(sfen)
    path: set[str] = set()
    clean: set[str] = set()  # subtrees walked without any repetition
    nodes = 0

    def key() -> str:
        return " ".join(board.sfen().split()[:3])

    def walk(attacker: bool) -> bool | None:
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            return None
        here = key()
        if attacker:
            moves = checking_moves(board)
        else:
            reply = refute.get(here)
            moves = [m for m in board.legal_moves if cshogi.move_to_usi(m) == reply]
            if not moves:
                return None  # not a tree usi_mate.certify accepted
        path.add(here)
        try:
            for m in moves:
                board.push(m)
                child = key()
                if child in path:
                    board.pop()
                    return True
                found = None if child in clean else walk(not attacker)
                board.pop()
                if found is None and child not in clean:
                    return None
                if found:
                    return True
        finally:
            path.discard(here)
        clean.add(here)
        return False

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        return walk(True)
    finally:
        sys.setrecursionlimit(old)


# --------------------------------------------------------------------------- labelling


@dataclass
class Label:
    """A position both engines agree on."""

    sfen: str
    status: str  # "mate" or "nomate"
    moves: list[str]
    strict: int | None
    categories: list[str]
    source: str

    @property
    def length(self) -> int | None:
        return len(self.moves) if self.status == "mate" else None

    def bucket(self) -> str:
        if self.status == "nomate":
            return "nomate"
        return str(min(self.length, 15))


class Labeller:
    """usi_mate and cshogi.DfPn on one position at a time, with the reasons for drops."""

    def __init__(self) -> None:
        self.quick = usi_mate.Solver(hash_mb=QUICK_HASH_MB)
        self.large = usi_mate.Solver(hash_mb=LABEL_HASH_MB)
        self.dropped: Counter = Counter()
        self.seconds: Counter = Counter()

    def _solve(self, sfen: str, large: bool = False, tag: str = "usi_mate", **options):
        solver = self.large if large else self.quick
        solver.clear()  # every search from an empty table: the file is reproducible
        start = time.perf_counter()
        result = solver.solve(sfen, **options)
        self.seconds[tag] += time.perf_counter() - start
        return result

    def shortest(
        self, sfen: str, nodes: int, large: bool = False, tag: str = "usi_mate", **options
    ):
        """usi_mate's proven shortest mate (a MateResult), or None: searched until the
        minimum is proven or ``nodes`` (no share of work: min_length_effort 0)."""
        r = self._solve(
            sfen,
            large,
            tag,
            nodes_limit=nodes,
            post_search="MinLength",
            min_length_effort=0,
            **options,
        )
        return r if r.status == "mate" and r.min_length_proven else None

    def peer(self, sfen: str) -> str:
        """cshogi.DfPn's verdict: "mate" (line replayed), "nomate" or "unknown"."""
        start = time.perf_counter()
        dfpn = cshogi.DfPn()
        dfpn.set_max_depth(PEER_DEPTH)
        dfpn.set_max_search_node(PEER_NODES)
        board = cshogi.Board(sfen)
        found = dfpn.search(board)
        verdict = "unknown"
        if found:
            pv = [cshogi.move_to_usi(m) for m in dfpn.get_pv(board)]
            verdict = "mate" if check_mate_line(sfen, pv) is None else "bad-line"
        elif dfpn.searched_node < PEER_NODES:
            verdict = "nomate"
        self.seconds["cshogi"] += time.perf_counter() - start
        return verdict

    def label(self, sfen: str, source: str) -> Label | None:
        """Both engines' agreed verdict on ``sfen``, or None (reason counted)."""
        first = self._solve(
            sfen,
            nodes_limit=PREFILTER_NODES,
            post_search="None",
            certify=True,
            certify_nodes=CERT_NODES,
        )
        if first.status not in ("mate", "nomate"):
            return self._drop(f"usi_mate: {first.status} in the prefilter")
        if first.status == "mate":
            best = self.shortest(sfen, LABEL_NODES, large=True)
            if best is None:
                return self._drop("usi_mate: shortest mate not proven")
            if check_mate_line(sfen, best.moves, futile_end=only_futile_replies) is not None:
                return self._drop("usi_mate: line fails the cshogi replay")
            moves = list(best.moves)
        else:
            # The core rebuilt the disproof tree and usi_mate.certify.verify_no_mate
            # replayed it (with cshogi's move generator) inside solve().
            cert = first.certification
            if cert is None or cert.status != "certified":
                return self._drop(f"certificate {cert.status if cert else 'missing'}")
            moves = []
        peer = self.peer(sfen)
        if peer != first.status:
            return self._drop(f"cshogi says {peer}, usi_mate {first.status}")
        label = Label(sfen, first.status, moves, None, [], source)
        self._categorise(label, first)
        return label

    def _drop(self, reason: str) -> None:
        self.dropped[reason] += 1

    def _categorise(self, label: Label, first) -> None:
        cats = []
        sfen = label.sfen
        pieces = sfen.split()[0]
        if "K" in pieces and "k" in pieces:
            cats.append("double-king")
        if sfen.split()[1] == "w":
            cats.append("white-to-move")
        drops = line_drop_statuses(sfen, label.moves)
        if "mate" in drops:
            cats.append("uchifuzume")
        if "nifu" in drops:
            cats.append("nifu")
        if label.status == "nomate":
            uses = disproof_uses_repetition(sfen, first.certification.refutations, VERIFY_NODES)
            if uses:
                cats.append("perpetual-check")
        else:
            strict = self.shortest(
                sfen, STRICT_NODES, large=True, ignore_futile_interpositions=False
            )
            if strict is not None:
                label.strict = strict.mate_length
                if label.strict > label.length:
                    cats.append("muda-ai")
            if self.needs_non_promotion(sfen, label.length, label.moves[0]):
                cats.append("non-promotion")
        label.categories = cats

    def needs_non_promotion(self, sfen: str, length: int, first: str) -> bool:
        """Every root check that mates in ``length`` plies is a non-promotion with a
        legal promoting twin (see the module docstring). ``first`` is the first move
        of a shortest line: unless it is such a non-promotion the answer is no."""
        pos = usi_mate.Position(sfen)
        legal = set(pos.legal_moves())

        def non_promotion(move: str) -> bool:
            return move[1] != "*" and not move.endswith("+") and move + "+" in legal

        if not non_promotion(first):
            return False
        # The promoting twin first: it is the likeliest other mate, and any other
        # mate ends the question.
        others = sorted(m for m in pos.check_moves() if not non_promotion(m))
        others.sort(key=lambda m: m != first + "+")
        for move in others:
            pos.push_usi(move)
            after = pos.sfen()
            pos.pop()
            if length == 1:
                if usi_mate.Position(after).is_mate():
                    return False
                continue
            r = self._solve(
                after,
                tag="non-promotion",
                nodes_limit=NONPROMO_NODES,
                post_search="MinLength",
                root_is_and_node_if_checked=True,
            )
            if r.status == "unknown" or (r.status == "mate" and not r.min_length_proven):
                return False  # undecided: no claim
            if r.status == "mate" and r.mate_length + 1 <= length:
                return False
        return True


# --------------------------------------------------------------------------- the set


class Collection:
    """Labels chosen by length bucket and rule category, one per position."""

    def __init__(self, scale: float, only_count: int | None = None) -> None:
        self.quota = {b: max(1, round(n * scale)) for b, n in QUOTA.items()}
        self.per_category = max(1, round(PER_CATEGORY * scale))
        self.non_promotion_wanted = max(1, round(NON_PROMOTION_WANTED * scale))
        # --only non-promotion: that many mates that need a non-promotion, nothing else.
        self.only_count = only_count
        if only_count is not None:
            self.quota = {b: 0 for b in QUOTA}
            self.per_category = 0
            self.non_promotion_wanted = only_count
        self.labels: list[Label] = []
        self.seen: set[str] = set()
        self.by_bucket: Counter = Counter()
        self.by_category: Counter = Counter()

    def wants(self, label: Label) -> bool:
        """A rule category still short of cases, or a length bucket still open."""
        if self.only_count is not None:
            return "non-promotion" in label.categories and self.non_promotion_short()
        rare = [c for c in label.categories if c in RULE_CATEGORIES]
        if any(self.by_category[c] < self.per_category for c in rare):
            return True
        return self.by_bucket[label.bucket()] < self.quota[label.bucket()]

    def is_open(self, bucket: str) -> bool:
        return self.by_bucket[bucket] < self.quota[bucket]

    def categories_open(self) -> bool:
        if self.only_count is not None:
            return self.non_promotion_short()
        return any(self.by_category[c] < self.per_category for c in RULE_CATEGORIES)

    def known(self, sfen: str) -> bool:
        return sfen in self.seen

    def add(self, label: Label) -> bool:
        """Keep ``label`` if it is new (in either orientation) and wanted."""
        keys = {label.sfen, canonical(_turned(label.sfen))}
        if keys & self.seen or not self.wants(label):
            return False
        self.seen |= keys
        self.labels.append(label)
        self.by_bucket[label.bucket()] += 1
        self.by_category.update(label.categories)
        return True

    def full(self) -> bool:
        """Every length bucket filled and enough mates that need a non-promotion."""
        return (
            all(self.by_bucket[b] >= q for b, q in self.quota.items())
            and not self.non_promotion_short()
        )

    def non_promotion_short(self) -> bool:
        return self.by_category["non-promotion"] < self.non_promotion_wanted

    def missing(self) -> dict[str, int]:
        return {b: q - self.by_bucket[b] for b, q in self.quota.items() if self.by_bucket[b] < q}


def _turned(sfen: str) -> str:
    """The same position turned 180 degrees with the colours swapped."""
    field_text, side, hands = sfen.split()[:3]
    setup = Setup()
    for sq, piece in _parse_board(field_text).items():
        setup.squares[(10 - int(sq[0]), 9 - RANKS.index(sq[1]))] = piece.swapcase()
    board_field = setup.sfen().split()[0]
    new_side = "w" if side == "b" else "b"
    return f"{board_field} {new_side} {hands.swapcase() if hands != '-' else '-'} 1"


# --------------------------------------------------------------------------- driver


def line_positions(label: Label) -> list[str]:
    """Attacker positions along a labelled line where a rule category may show:
    a pawn drop in front of the king that is a pawn-drop mate or two pawns, or a
    non-promotion with a legal promoting twin as the next move."""
    out = []
    board = cshogi.Board(label.sfen)
    for i, usi in enumerate(label.moves[:-1]):
        board.push_usi(usi)
        if i % 2 == 0:
            continue
        nxt = label.moves[i + 1]
        legal = {cshogi.move_to_usi(m) for m in board.legal_moves}
        non_promotion = nxt[1] != "*" and not nxt.endswith("+") and nxt + "+" in legal
        if non_promotion or pawn_drop_status(board) in ("mate", "nifu"):
            out.append(canonical(board.sfen()))
    return out


def climb_nodes(length: int) -> int:
    """Node cap of a climbing step from a mate of ``length`` plies (see CLIMB_NODES)."""
    return CLIMB_LONG_NODES if length >= CLIMB_LONG else CLIMB_NODES


class Generator:
    """Draws candidates from the sources, labels them and fills a Collection."""

    def __init__(self, seed: int, scale: float, log, only_count: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.labeller = Labeller()
        self.coll = Collection(scale, only_count)
        self.tried: Counter = Counter()
        # Ends of earlier climbs: [setup, length, uses, last position offered on the way].
        self.pool: list[list] = []
        self.log = log
        self.draws = 0  # loop rounds of run(): each one draws from one source
        self.stopped: str | None = None  # why run() ended before the quotas were met

    def offer(self, sfen: str, source: str) -> bool:
        """Label one candidate; a kept mate also offers its line's rule positions."""
        sfen = canonical(sfen)
        if self.coll.known(sfen):
            return False
        self.tried[source] += 1
        label = self.labeller.label(sfen, source)
        if label is None or not self.coll.add(label):
            return False
        if label.status == "mate" and self.coll.categories_open():
            for sub in line_positions(label):
                if not self.coll.known(sub):
                    self.tried["line"] += 1
                    sub_label = self.labeller.label(sub, "line")
                    if sub_label is not None:
                        self.coll.add(sub_label)
        return True

    def climb_step(self, setup: Setup, length: int):
        """The proven shortest mate of a mutated set-up (a MateResult), or None."""
        sfen = setup.sfen()
        first = self.labeller._solve(
            sfen, tag="climbing", nodes_limit=CLIMB_FIRST_NODES, post_search="None"
        )
        if first.status != "mate":
            return None
        return self.labeller.shortest(sfen, climb_nodes(length), tag="climbing")

    def climb(self) -> None:
        """Mutate a mate step by step, never letting the proven shortest mate get
        shorter, and offer positions on the way whose length bucket is still open.

        The climb aims at one open bucket, drawn at random: up to 7 plies it starts
        from a fresh random set-up, beyond from the end of an earlier climb when one
        is shorter than the aim (POOL_SHARE of the time). It ends when
        CLIMB_PATIENCE mutations in a row did not lengthen the mate, or once the
        mate is 4 plies past the aim (never for the open-ended bucket 15)."""
        rng = self.rng
        aims = sorted(int(b) for b in self.coll.missing() if b not in ("1", "nomate"))
        aim = rng.choice(aims)
        ceiling = 10**6 if aim == 15 else aim + 4
        usable = [e for e in self.pool if e[1] < aim]
        if aim > CLIMB_LONG and usable and rng.random() < POOL_SHARE:
            entry = rng.choice(usable)
            entry[2] += 1
            if entry[2] >= POOL_USES:
                self.pool.remove(entry)
            current, length, last_offered = entry[0], entry[1], entry[3]
        else:
            last_offered = None
            current = random_tsume(rng)
            if current is None:
                return
            r = self.climb_step(current, 1)
            if r is None:
                return
            length = r.mate_length
        self.tried["climb-start"] += 1
        stale = accepted = 0
        for _ in range(CLIMB_PATIENCE * 20):  # most mutations are legal: a bound, not a limit
            if stale >= CLIMB_PATIENCE or length > ceiling:
                break
            candidate = mutate(rng, current)
            if candidate is None:
                continue
            stale += 1
            r = self.climb_step(candidate, length)
            if r is None or r.mate_length < length:
                continue
            longer = r.mate_length > length
            if longer:
                stale = 0
            current, length = candidate, r.mate_length
            accepted += 1
            if (
                self.coll.is_open(str(min(length, 15)))
                and (longer or accepted % CLIMB_SAMPLE_EVERY == 0)
                and (last_offered is None or current.changes(last_offered) >= CLIMB_MIN_CHANGES)
            ):
                last_offered = current
                self.offer(current.sfen(white_attacks=rng.random() < 0.5), "climb")
        if length >= CLIMB_LONG:
            self.pool.append([current, length, 0, last_offered])
            self.pool.sort(key=lambda e: -e[1])
            del self.pool[POOL_SIZE:]

    def mine_non_promotion(self) -> None:
        """Look for a mate that needs a non-promotion: rare among the other sources
        (1 in ~2,000 labels), so random set-ups with a check that declines to
        promote are screened here with cheap searches first."""
        rng = self.rng
        setup = random_tsume(rng)
        if setup is None:
            return
        sfen = canonical(setup.sfen(white_attacks=rng.random() < 0.5))
        pos = usi_mate.Position(sfen)
        legal = set(pos.legal_moves())
        if not any(
            m[1] != "*" and not m.endswith("+") and m + "+" in legal for m in pos.check_moves()
        ):
            return
        self.tried["non-promotion-screen"] += 1
        self._offer_if_non_promotion_needed(sfen, "non-promotion")

    def mine_knight_non_promotion(self) -> None:
        """A ``knight_tsume`` set-up, screened with cheap searches as in
        mine_non_promotion and offered when its mate needs the non-promotion."""
        rng = self.rng
        setup = knight_tsume(rng)
        if setup is None:
            return
        sfen = canonical(setup.sfen(white_attacks=rng.random() < 0.5))
        self.tried["knight-screen"] += 1
        self._offer_if_non_promotion_needed(sfen, "knight")

    def _offer_if_non_promotion_needed(self, sfen: str, category: str) -> None:
        """Cheap screening searches first (a first proof, then the shortest mate within
        CLIMB_LONG_NODES); offered as ``category`` when that mate needs a non-promotion."""
        first = self.labeller._solve(
            sfen, tag="screening", nodes_limit=CLIMB_FIRST_NODES, post_search="None"
        )
        if first.status != "mate":
            return
        best = self.labeller.shortest(sfen, CLIMB_LONG_NODES, tag="screening")
        if best is not None and self.labeller.needs_non_promotion(
            sfen, best.mate_length, best.moves[0]
        ):
            self.offer(sfen, category)

    def run(
        self,
        max_candidates: int = MAX_CANDIDATES,
        max_draws: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        """Draw from the sources until every quota is met, or a cap: candidates
        (the safety net), draws (a recorded cap, reproducible) or seconds (not
        reproducible by itself: ``self.draws`` then says how many were made)."""
        rng = self.rng
        started = last = time.perf_counter()
        while not self.coll.full() and sum(self.tried.values()) < max_candidates:
            if max_draws is not None and self.draws >= max_draws:
                self.stopped = f"after {self.draws} draws"
                break
            if max_seconds is not None and time.perf_counter() - started > max_seconds:
                self.stopped = f"after {self.draws} draws"  # as --max-draws would
                break
            self.draws += 1
            if self.coll.only_count is not None:
                self.mine_knight_non_promotion()
                continue
            missing = self.coll.missing()
            # Climbs give every length from 3 up; random set-ups mostly mates in
            # 1 or 3 and no-mates, games the double-king mix.
            climb_open = any(b not in ("1", "nomate") for b in missing)
            direct_open = "1" in missing or "3" in missing or "nomate" in missing
            if self.coll.non_promotion_short() and (
                not missing or rng.random() < NON_PROMOTION_SHARE
            ):
                self.mine_non_promotion()
                continue
            roll = rng.random()
            if climb_open and (roll < 0.5 or not direct_open):
                self.climb()
            elif roll < 0.85:
                setup = random_tsume(rng)
                if setup is not None:
                    self.offer(setup.sfen(white_attacks=rng.random() < 0.5), "tsume")
            else:
                sfen = random_game_position(rng)
                if sfen is not None:
                    self.offer(sfen, "game")
            now = time.perf_counter()
            if now - last > 60:
                last = now
                self.log(
                    f"{now - started:6.0f} s: kept {len(self.coll.labels)}, still wanted "
                    f"{self.coll.missing()}, categories {dict(self.coll.by_category)}, "
                    f"tried {dict(self.tried)}, seconds "
                    + ", ".join(f"{k} {v:.0f}" for k, v in self.labeller.seconds.items())
                )


# --------------------------------------------------------------------------- output


def ordered(labels: list[Label]) -> list[Label]:
    """Mates by length, then the no-mates; generation order within each."""
    return sorted(labels, key=lambda lb: (lb.status != "mate", lb.length or 0))


def format_line(label: Label, ident: str) -> str:
    fields = [label.length if label.status == "mate" else "nomate", ident]
    if label.categories:
        fields.append("cat=" + ",".join(label.categories))
    if label.strict is not None:
        fields.append(f"strict={label.strict}")
    fields.append(f"src={label.source}")
    return f"{label.sfen} # " + " ".join(str(f) for f in fields)


def header(args: argparse.Namespace, gen: Generator) -> list[str]:
    coll = gen.coll
    command = "python -m scripts.make_problems"
    if args.seed != DEFAULT_SEED:
        command += f" --seed {args.seed}"
    if args.scale != 1:
        command += f" --scale {args.scale}"
    if args.only_non_promotion is not None:
        command += f" --only-non-promotion {args.only_non_promotion}"
    if args.out.resolve() != DEFAULT_OUT.resolve():
        out = args.out.resolve()
        command += f" --out {out.relative_to(REPO) if out.is_relative_to(REPO) else out}"
    if gen.stopped is not None:
        # Stopped before the quotas were met: the draws made are the reproducible cap.
        command += f" --max-draws {gen.draws}"
    buckets = Counter(lb.bucket() for lb in coll.labels)
    cats = Counter(c for lb in coll.labels for c in lb.categories)
    return [
        "# Generated and labelled by scripts.make_problems (see its docstring and",
        "# problems/SOURCES.md): usi_mate and cshogi.DfPn agree on every verdict, usi_mate",
        "# proved every length minimal (composers' count; strict= counts every interposition)",
        "# and every 'nomate' has a verified disproof certificate.",
        f"# Command: {command}",
        *([f"# Stopped {gen.stopped} before every quota was met."] if gen.stopped else []),
        f"# Seed: {args.seed}; usi-mate {usi_mate.__version__}, cshogi {_version('cshogi')}",
        f"# {len(coll.labels)} positions; by length: "
        + ", ".join(f"{b}{'+' if b == '15' else ''}: {buckets[b]}" for b in QUOTA),
        categories_line(cats),
    ]


def categories_line(cats: Counter) -> str:
    """The header line counting each rule category of a set."""
    return "# categories: " + ", ".join(f"{c}: {n}" for c, n in sorted(cats.items()))


def relabel(path: Path, log) -> int:
    """Labels and categories of the positions in ``path`` again, by the searches
    that made them (Labeller.label), with ids, order and sources kept: what a
    change of the search's move order changes is the line and the disproof the
    categories are read from, and at times a label (a defence chosen by the
    composers' spare-piece convention). Every change is logged; a position that
    no longer gets a label is an error (the file is then left as it was)."""
    from usi_mate.problems import parse_problem_line

    lines = path.read_text(encoding="utf-8").splitlines()
    labeller = Labeller()
    out, changed, failed = [], 0, []
    cats = Counter()
    for line in lines:
        if not line.strip() or line.startswith("#"):
            out.append(line)
            continue
        sfen, _, ident, fields = parse_problem_line(line)
        label = labeller.label(sfen, fields.get("src", "?"))
        if label is None:
            failed.append(ident)
            continue
        new_line = format_line(label, ident)
        cats.update(label.categories)
        if new_line != line:
            changed += 1
            before, after = (text.partition("#")[2].strip() for text in (line, new_line))
            log(f"{ident}: {before}  ->  {after}")
        out.append(new_line)
    if failed:
        log(f"no label any more: {', '.join(failed)}; {path} left as it was")
        return 1
    out = [categories_line(cats) if line.startswith("# categories: ") else line for line in out]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    log(f"relabelled {path}: {changed} lines changed")
    return 0


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def write_unlabelled(seed: int, count: int, out: Path) -> None:
    """``count`` set-ups of :func:`random_tsume` (every other one turned), one a line with
    an id and no label, written as drawn: no position is kept in memory, none is
    searched, and repeats are left in (a bulk run's input, not a test set)."""
    rng = random.Random(seed)
    written = 0
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"# python -m scripts.make_problems --unlabelled {count} --seed {seed}\n")
        while written < count:
            setup = random_tsume(rng)
            if setup is None:
                continue
            written += 1
            f.write(f"{setup.sfen(white_attacks=written % 2 == 0)} # raw-{written:07d}\n")


def main(argv: list[str] | None = None) -> int:
    """Generate, label and write the set; a summary goes to stderr."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"default {DEFAULT_SEED}")
    ap.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply every quota (0.1 for a quick look; default 1)",
    )
    ap.add_argument("--out", type=Path, default=None, help=f"default {DEFAULT_OUT}")
    ap.add_argument(
        "--only-non-promotion",
        type=int,
        default=None,
        metavar="N",
        help="make N mates that need a non-promotion and nothing else, from "
        "set-ups built around a knight check (problems/generated_nonpromotion.sfen)",
    )
    ap.add_argument(
        "--max-draws",
        type=int,
        default=None,
        help="stop after this many draws (what a file stopped by --max-seconds "
        "records, to regenerate it exactly)",
    )
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="stop after this many seconds and write what was kept; the header "
        "then records the draws made as --max-draws",
    )
    ap.add_argument(
        "--relabel",
        type=Path,
        default=None,
        metavar="FILE",
        help="label and categorise the positions of FILE again with this usi-mate "
        "(ids, order and sources kept) and rewrite it: after a change of the search "
        "moves the lines and disproofs the categories were read from",
    )
    ap.add_argument(
        "--unlabelled",
        type=int,
        default=None,
        metavar="N",
        help="write N tsume set-ups as they are drawn (half turned so white attacks), "
        "without labels or any search, to --out (required): inputs for bulk runs "
        "(scripts.batch_wall --memory), about 0.8 ms each",
    )
    args = ap.parse_args(argv)
    if args.unlabelled is not None:
        if args.unlabelled < 1:
            ap.error("--unlabelled must be at least 1")
        if args.out is None:
            ap.error("--unlabelled needs --out FILE (it does not replace the labelled set)")
        write_unlabelled(args.seed, args.unlabelled, args.out)
        return 0
    args.out = args.out or DEFAULT_OUT
    if args.relabel is not None:
        return relabel(args.relabel, lambda text: print(text, file=sys.stderr, flush=True))
    if args.scale <= 0:
        ap.error("--scale must be positive")
    if args.only_non_promotion is not None and args.only_non_promotion < 1:
        ap.error("--only-non-promotion must be at least 1")
    if args.max_draws is not None and args.max_draws < 1:
        ap.error("--max-draws must be at least 1")
    if args.max_seconds is not None and args.max_seconds <= 0:
        ap.error("--max-seconds must be positive")

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    started = time.perf_counter()
    gen = Generator(args.seed, args.scale, log, args.only_non_promotion)
    gen.run(max_draws=args.max_draws, max_seconds=args.max_seconds)
    wall = time.perf_counter() - started
    coll = gen.coll
    lines = header(args, gen)
    prefix = "gen" if args.only_non_promotion is None else "gen-np"
    lines += [format_line(lb, f"{prefix}-{i:04d}") for i, lb in enumerate(ordered(coll.labels), 1)]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log(f"wrote {len(coll.labels)} positions to {args.out} in {wall:.0f} s")
    log(f"candidates by source: {dict(gen.tried)}")
    log(f"dropped: {dict(gen.labeller.dropped)}")
    log("engine seconds: " + ", ".join(f"{k} {v:.0f}" for k, v in gen.labeller.seconds.items()))
    log(f"by source kept: {dict(Counter(lb.source for lb in coll.labels))}")
    if not coll.full():
        log(
            f"quotas not met: {coll.missing()}"
            + (f"; stopped {gen.stopped}" if gen.stopped else "")
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
