"""scripts.make_problems, the generator of problems/generated.sfen: its set-ups are
legal, its rule checks agree with the oracle's, and the committed file says how to
regenerate it. (Regenerating the file itself takes tens of minutes: not a test.)"""

from __future__ import annotations

import importlib.util
import random
import sys

import cshogi
import pytest
from oracle import (
    GENERATED_FILES,
    PROBLEMS_DIR,
    REPO_ROOT,
    flip_side,
    mirror_sfen,
    pawn_drop_check,
)

from usi_mate import Position, Solver

_spec = importlib.util.spec_from_file_location(
    "make_problems", REPO_ROOT / "scripts" / "make_problems.py"
)
make_problems = importlib.util.module_from_spec(_spec)
sys.modules["make_problems"] = make_problems  # dataclasses look their module up by name
_spec.loader.exec_module(make_problems)


def test_random_and_mutated_setups_are_legal_in_both_orientations():
    rng = random.Random(11)
    made = mutated = 0
    for _ in range(3000):
        setup = make_problems.random_tsume(rng)
        if setup is None:
            continue
        made += 1
        child = make_problems.mutate(rng, setup)
        if child is not None:
            mutated += 1
        for s in filter(None, (setup, child)):
            for white in (False, True):
                sfen = s.sfen(white_attacks=white)
                # Neither side in check (cshogi raises on a malformed SFEN).
                assert not cshogi.Board(sfen).is_check(), sfen
                assert not cshogi.Board(flip_side(sfen)).is_check(), sfen
            turned = make_problems.canonical(s.sfen(white_attacks=True))
            assert turned == make_problems.canonical(mirror_sfen(s.sfen())), s.sfen()
            assert make_problems.canonical(make_problems._turned(s.sfen())) == turned
    # Most random set-ups are rejected (pieces checking the defender king, two
    # pawns, ...), but the sources must not dry up.
    assert made > 300 and mutated > 100


def test_knight_setups_check_only_without_promoting():
    # knight_tsume: a knight on rank 5 jumps to rank 3 beside the king's file with
    # check, and the same jump promoting gives none (a promoted knight moves as a gold).
    rng = random.Random(3)
    made = 0
    for _ in range(500):
        setup = make_problems.knight_tsume(rng)
        if setup is None:
            continue
        made += 1
        pos = Position(setup.sfen())
        king_file = next(f for (f, r), p in setup.squares.items() if p == "k")
        jumps = [
            f"{f}e{land}c"
            for (f, r), p in setup.squares.items()
            if p == "N" and r == 5
            for land in (f - 1, f + 1)
            if abs(land - king_file) == 1
        ]
        legal = set(pos.legal_moves())
        checks = [m for m in jumps if m in legal and pos.gives_check(m)]
        assert checks, setup.sfen()
        for move in checks:
            assert move + "+" in legal and not pos.gives_check(move + "+"), setup.sfen()
    assert made > 50


def test_pawn_drop_status_agrees_with_the_oracle():
    # 8,000 random set-ups (20,000 until issue 45, 3 s): still 32 pawn-drop mates, 57 two-pawn
    # drops and 2,360 legal drops compared with the oracle, each kind well above the floor.
    rng = random.Random(5)
    seen = {"mate": 0, "legal": 0, "nifu": 0}
    for _ in range(8_000):
        setup = make_problems.random_tsume(rng)
        if setup is None:
            continue
        if setup.defender_hand["P"]:  # hand the attacker a pawn so that drops arise
            setup.defender_hand["P"] -= 1
            setup.attacker_hand["P"] += 1
        board = cshogi.Board(setup.sfen(white_attacks=rng.random() < 0.5))
        ours = make_problems.pawn_drop_status(board)
        theirs = pawn_drop_check(board)
        if ours == "nifu":
            # The oracle does not name the reason; the drop is not legal either way.
            assert theirs is None, board.sfen()
        else:
            assert {"mate": "rejected"}.get(ours, ours) == theirs, board.sfen()
        if ours in seen:
            seen[ours] += 1
    assert min(seen.values()) > 5, seen


@pytest.mark.parametrize(
    "sfen,uses",
    [
        # komori-n/mate-engine-test: the rook checks for ever, no mate.
        ("6R+P1/8k/7sp/9/9/9/9/9/9 b r2b4g3s4n4l16p 1", True),
        # mog-core-scala: a pawn in front of the king and nothing else, no repetition.
        ("4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1", False),
    ],
)
def test_disproof_repetition_detection(sfen, uses):
    result = Solver(hash_mb=16).solve(sfen, post_search="None", certify=True)
    assert result.status == "nomate" and result.certification.status == "certified"
    assert (
        make_problems.disproof_uses_repetition(sfen, result.certification.refutations, 100_000)
        is uses
    )


@pytest.mark.parametrize("name", GENERATED_FILES)
def test_generated_file_says_how_to_regenerate_it(name):
    head = [
        line
        for line in (PROBLEMS_DIR / name).read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    ]
    text = "\n".join(head)
    assert "# Command: python -m scripts.make_problems" in text
    assert f"# Seed: {make_problems.DEFAULT_SEED};" in text
    command = next(line for line in head if line.startswith("# Command: "))
    if name != "generated.sfen":
        assert f"--out problems/{name}" in command


def test_the_solver_tests_repeat_the_labelling_searches():
    # test_solver.py repeats the searches that decided the rule categories, with the
    # same table sizes and limits, to get the same lines and disproof trees back.
    import test_solver

    assert test_solver.LABEL_SEARCH == {
        "hash_mb": make_problems.LABEL_HASH_MB,
        "nodes_limit": make_problems.LABEL_NODES,
    }
    assert test_solver.FIRST_SEARCH == {
        "hash_mb": make_problems.QUICK_HASH_MB,
        "nodes_limit": make_problems.PREFILTER_NODES,
        "certify_nodes": make_problems.CERT_NODES,
    }


def test_relabel_reads_labels_and_categories_again_keeping_ids(tmp_path):
    # gen-1122 with a wrong label (7) and no categories (its strict length, 11, is
    # longer than its label: muda-ai); a no-mate whose line is right as it is. The
    # header's category counts follow the new categories.
    mate = "8G/6gk1/8s/5lR1G/9/9/9/9/9 b SNr2bg2s3n3l18p 1"
    nomate = "4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
    path = tmp_path / "set.sfen"
    path.write_text(
        "# a header line\n# categories: muda-ai: 0\n"
        f"{mate} # 7 gen-9001 strict=11 src=climb\n"
        f"{nomate} # nomate gen-9002 src=tsume\n",
        encoding="utf-8",
    )
    log = []
    assert make_problems.relabel(path, log.append) == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# a header line"
    ids = [line.split("#")[1].split()[1] for line in lines[2:]]
    assert ids == ["gen-9001", "gen-9002"]
    mate_label = Solver(hash_mb=64).solve(mate, nodes_limit=2_000_000)
    assert lines[2].split("#")[1].split()[0] == str(mate_label.mate_length)
    assert "strict=11" in lines[2] and "src=climb" in lines[2]
    assert lines[3] == f"{nomate} # nomate gen-9002 src=tsume"
    assert lines[1] == "# categories: muda-ai: 1"
    assert any("gen-9001" in entry for entry in log) and "1 lines changed" in log[-1]
