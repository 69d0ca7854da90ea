"""Helpers shared by the tests: cshogi as the legality oracle, the problem files,
SFEN field handling and mismatch collection.

cshogi's C++ move generator (Apery lineage) is trusted for legality, including
pawn-drop mate with pinned defenders (DOMAIN.md section 5). "Gives check" is
decided by pushing the move and asking ``is_check()``, not by cshogi's own
``check_moves`` generator, so the oracle for check_moves() is as plain as it gets.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import cshogi
import pytest

# The collections the repository carries (problems/SOURCES.md): every test that
# needs problems reads them from here, so a fresh clone tests itself.
REPO_ROOT = Path(__file__).resolve().parents[1]
# The usi_mate under test (an in-place build or the installed package), for child processes.
PACKAGE_ROOT = str(Path(importlib.util.find_spec("usi_mate").origin).resolve().parent.parent)


def run_script(module: str, *args: str, cwd: Path, env_extra: dict[str, str] | None = None):
    """``python -m <module> <args>`` (a tool of scripts/) run from ``cwd`` with this
    checkout's usi_mate and scripts, without USI_MATE_PROBLEMS unless ``env_extra`` sets
    it: the CompletedProcess, its output as text."""
    env = {k: v for k, v in os.environ.items() if k != "USI_MATE_PROBLEMS"}
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, str(REPO_ROOT)])  # usi_mate, scripts
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


PROBLEMS_DIR = REPO_ROOT / "problems"
# Other collections (files in the same format that the repository may not carry,
# such as tendo.sfen or yaneuraou500m_mate7.sfen) are read from the folder this
# variable names, when it is set; tests that need one of them skip without it.
EXTRA_PROBLEMS_ENV = "USI_MATE_PROBLEMS"
START_SFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

# Full set per piece type (both colours together), kings excluded.
FULL_SET = {"R": 2, "B": 2, "G": 4, "S": 4, "N": 4, "L": 4, "P": 18}
HAND_ORDER = "RBGSNLP"
FILES = "987654321"  # SFEN rank strings run from file 9 to file 1
RANKS = "abcdefghi"


def extra_problems_dir() -> Path | None:
    """The folder named by USI_MATE_PROBLEMS, or None when the variable is unset or empty."""
    value = os.environ.get(EXTRA_PROBLEMS_ENV, "").strip()
    return Path(value).expanduser() if value else None


def problem_files() -> list[Path]:
    """The committed problem files, then those of USI_MATE_PROBLEMS (when set) that
    the repository does not carry under the same name."""
    files = sorted(PROBLEMS_DIR.glob("*.sfen"))
    extra = extra_problems_dir()
    if extra is not None and extra.resolve() != PROBLEMS_DIR.resolve():
        committed = {f.name for f in files}
        files += [f for f in sorted(extra.glob("*.sfen")) if f.name not in committed]
    return files


def external_problem_file(name: str) -> Path | None:
    """``name`` from the USI_MATE_PROBLEMS folder, or None when it is not there."""
    extra = extra_problems_dir()
    if extra is None or not (extra / name).is_file():
        return None
    return extra / name


def missing_external_reason(name: str) -> str:
    """What a test that needs the external file ``name`` says when it skips."""
    extra = extra_problems_dir()
    where = (
        f"{EXTRA_PROBLEMS_ENV}={extra} has no {name}"
        if extra is not None
        else f"{EXTRA_PROBLEMS_ENV} is not set"
    )
    return (
        f"optional collection {name} not found ({where}): it is not in the repository "
        f"(see problems/SOURCES.md); set {EXTRA_PROBLEMS_ENV} to a folder holding it to run this"
    )


def problem_lines(path: Path) -> list[str]:
    """The problem lines of a file: comment (#) and blank lines left out."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    return out


def load_problems() -> list[tuple[str, str]]:
    """Every (id, sfen) of problem_files(); lines are 'SFEN # expected id ...'."""
    out = []
    for path in problem_files():
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            sfen, _, comment = line.partition("#")
            sfen = sfen.strip()
            if not sfen:
                continue
            words = comment.split()
            ident = words[1] if len(words) > 1 else f"{path.name}:{lineno}"
            out.append((ident, sfen))
    return out


def usi_moves(board: cshogi.Board) -> list[str]:
    return sorted(cshogi.move_to_usi(m) for m in board.legal_moves)


def usi_checks(board: cshogi.Board) -> list[str]:
    """Legal moves after which the opponent is in check (push / is_check / pop)."""
    out = []
    for move in list(board.legal_moves):
        board.push(move)
        if board.is_check():
            out.append(cshogi.move_to_usi(move))
        board.pop()
    return sorted(out)


def sfen_fields(sfen: str) -> tuple[str, str, str]:
    """(board, side, hands): the part of an SFEN that defines the position."""
    board, side, hands = sfen.split()[:3]
    return board, side, hands


def normalised(sfen: str) -> tuple[str, str, str]:
    """cshogi's canonical form (hand order RBGSNLPrbgsnlp, '-' when empty)."""
    return sfen_fields(cshogi.Board(sfen).sfen())


def flip_side(sfen: str) -> str:
    board, side, hands = sfen_fields(sfen)
    return f"{board} {'w' if side == 'b' else 'b'} {hands} 1"


def parse_board(field: str) -> dict[str, str]:
    """Board field -> {'5e': 'k', '2b': '+P', ...} (USI square names)."""
    squares: dict[str, str] = {}
    for r, row in enumerate(field.split("/")):
        f = 0
        i = 0
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


def pawn_drop_check(board: cshogi.Board) -> str | None:
    """Status of the pawn drop in front of the enemy king, for the side to move.

    None when the basic rules already forbid it (no pawn in hand, occupied square,
    nifu, last rank, no enemy king) or when the mover is in check; otherwise
    "legal" if cshogi generates it and "rejected" if not: a rejected drop there is a
    pawn-drop mate (打ち歩詰め). Used to measure how often generated positions
    exercise that rule and to select positions that do.
    """
    if board.is_check():
        return None
    field, side, _ = sfen_fields(board.sfen())
    black = side == "b"
    if board.pieces_in_hand[0 if black else 1][0] == 0:  # index 0 is the pawn
        return None
    squares = parse_board(field)
    enemy_king = "k" if black else "K"
    ksq = next((sq for sq, p in squares.items() if p == enemy_king), None)
    if ksq is None:
        return None
    rank = RANKS.index(ksq[1]) + (1 if black else -1)  # black pawns face rank a
    if not 0 <= rank <= 8:
        return None
    target = ksq[0] + RANKS[rank]
    if target in squares or rank == (0 if black else 8):
        return None
    own_pawn = "P" if black else "p"
    if any(sq[0] == ksq[0] and p == own_pawn for sq, p in squares.items()):
        return None
    legal = f"P*{target}" in {cshogi.move_to_usi(m) for m in board.legal_moves}
    return "legal" if legal else "rejected"


def rejected_pawn_drop_mate(board: cshogi.Board) -> bool:
    return pawn_drop_check(board) == "rejected"


class Mismatches:
    """Collects differences; ``check()`` fails with the first few, SFEN included."""

    SHOW = 8

    def __init__(self, what: str):
        self.what = what
        self.items: list[str] = []
        self.compared = 0

    def add(self, sfen: str, detail: str) -> None:
        self.items.append(f"{sfen}\n      {detail}")

    def compare_sets(self, sfen: str, label: str, ours, expected) -> None:
        ours, expected = sorted(ours), sorted(expected)
        if ours != expected:
            missing = sorted(set(expected) - set(ours))
            extra = sorted(set(ours) - set(expected))
            dup = len(ours) != len(set(ours))
            self.add(
                sfen,
                f"{label}: missing {missing[:12]} extra {extra[:12]}"
                + (" (duplicates in ours)" if dup else ""),
            )

    def check(self) -> None:
        if self.items:
            shown = "\n".join(f"  [{i}] {m}" for i, m in enumerate(self.items[: self.SHOW]))
            raise AssertionError(
                f"{self.what}: {len(self.items)} mismatches in {self.compared} positions; "
                f"first {min(self.SHOW, len(self.items))}:\n{shown}"
            )


def mirror_sfen(sfen: str) -> str:
    """The same position with the colours swapped: board turned 180 degrees, piece
    case swapped, side and hands exchanged. Rule tests run on both versions so a
    colour-dependent bug (direction tables, promotion zones) cannot hide."""
    field, side, hands = sfen_fields(sfen)
    squares = parse_board(field)
    mirrored = {}
    for sq, piece in squares.items():
        f = 10 - int(sq[0])
        r = RANKS[8 - RANKS.index(sq[1])]
        mirrored[f"{f}{r}"] = piece.swapcase()
    rows = []
    for r in RANKS:
        row, empty = "", 0
        for f in FILES:
            piece = mirrored.get(f + r)
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    new_side = "w" if side == "b" else "b"
    new_hands = "-" if hands == "-" else hands.swapcase()
    # Let cshogi put the swapped hands back into the canonical RBGSNLP order.
    board = cshogi.Board(f"{'/'.join(rows)} {new_side} {new_hands} 1")
    return " ".join(sfen_fields(board.sfen())) + " 1"


def mirror_square(sq: str) -> str:
    return f"{10 - int(sq[0])}{RANKS[8 - RANKS.index(sq[1])]}"


def mirror_usi(move: str) -> str:
    """USI move in the mirrored position: '7g7f' -> '3c3d', 'P*5b' -> 'P*5h'."""
    if move[1] == "*":
        return move[:2] + mirror_square(move[2:4])
    return mirror_square(move[0:2]) + mirror_square(move[2:4]) + move[4:]


# ---------------------------------------------------------------------------
# Mate lines and labels


def check_mate_line(
    sfen: str, moves: list[str], *, and_root: bool = False, allow_futile_end: bool = True
) -> str | None:
    """Replay a mating line with cshogi; None when valid, else the reason.

    The one line checker, :func:`mate_lines.check_mate_line` (scripts/; cshogi's move lists,
    not this engine's generator): every move legal, every attacker move gives check, no
    fourfold repetition, the attacker's parity, and the last position checkmate (a
    pawn-drop mate is not legal in cshogi, so it can never end a valid line). The side to
    move attacks, or defends when ``and_root``. With ``allow_futile_end`` the line may
    also end where every legal reply is a futile interposition (see
    :func:`only_futile_replies`).
    """
    from mate_lines import check_mate_line as replay

    futile_end = only_futile_replies if allow_futile_end else None
    return replay(sfen, moves, and_root=and_root, futile_end=futile_end)


def only_futile_replies(sfen: str) -> bool:
    """True when every legal reply (cshogi's list) of the side to move is a futile
    interposition, as usi_mate.verify judges it (capture-and-mate without the piece)."""
    from usi_mate.verify import only_futile_replies as judged_futile

    board = cshogi.Board(sfen)
    replies = [cshogi.move_to_usi(m) for m in board.legal_moves]
    return bool(replies) and all(r[1] == "*" for r in replies) and judged_futile(sfen)


def parse_labelled(line: str) -> tuple[str, str, str, dict[str, str]]:
    """'SFEN # expected id key=value ...' -> (sfen, expected, id, {key: value})."""
    sfen, _, comment = line.partition("#")
    words = comment.split()
    extra = dict(w.split("=", 1) for w in words[2:] if "=" in w)
    return sfen.strip(), words[0], words[1], extra


def load_labelled(name: str) -> list[tuple[str, str, str]]:
    """(sfen, expected, id) of every line of a committed problem file (problems/)."""
    return [parse_labelled(line)[:3] for line in problem_lines(PROBLEMS_DIR / name)]


GENERATED_FILES = ("generated.sfen", "generated_nonpromotion.sfen")


def load_generated() -> list[tuple[str, str, str, dict[str, str]]]:
    """(sfen, expected, id, fields) of the sets scripts.make_problems made
    (problems/generated.sfen, then generated_nonpromotion.sfen); fields hold cat=
    (comma-separated categories), strict= and src=."""
    return [
        parse_labelled(line)
        for name in GENERATED_FILES
        for line in problem_lines(PROBLEMS_DIR / name)
    ]


def categories(fields: dict[str, str]) -> set[str]:
    """The cat= categories of a generated line."""
    return set(filter(None, fields.get("cat", "").split(",")))


def external_labelled(names: str | list[str], select=lambda items: items) -> list:
    """pytest parameters (sfen, expected, id) from optional external collections.

    ``select`` picks the cases from each file's list. Files that are missing add
    one parameter that skips, its reason naming them and USI_MATE_PROBLEMS, so a
    run shows one skip for the collections a test lacks.
    """
    names = [names] if isinstance(names, str) else names
    params, missing = [], []
    for name in names:
        path = external_problem_file(name)
        if path is None:
            missing.append(name)
            continue
        items = select([parse_labelled(line)[:3] for line in problem_lines(path)])
        params += [pytest.param(*item, id=item[2]) for item in items]
    if missing:
        label = ", ".join(missing)
        reason = missing_external_reason(label)
        params.append(
            pytest.param(None, None, label, marks=pytest.mark.skip(reason=reason), id=label)
        )
    return params


def verdict_agrees(expected: str, status: str, length: int | None) -> bool:
    """Whether a verdict agrees with a label (N, nomate, nomate<=N, >=N).

    A mate label N accepts a mate of N plies or longer here: the first proof of
    df-pn is not always the shortest. Exact lengths are checked separately.
    """
    if expected == "nomate":
        return status == "nomate"
    if expected.startswith("nomate<="):
        bound = int(expected[len("nomate<=") :])
        return status == "nomate" or (status == "mate" and length > bound)
    if expected.startswith(">="):
        return status == "mate" and length >= int(expected[2:])
    return status == "mate" and length >= int(expected)
