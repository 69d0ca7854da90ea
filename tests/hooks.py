"""The core's test hooks, for the tests only: never part of the usi_mate package.

The rules and small structures of the core on their own (hands, proof hands, the
transposition table, the repetition structures, the futility memo, the line memo,
the search monitor), the futility judge on a hand-built position, the line reader on
a solve's table, and solves with the search limits that only tests set come from a
second extension module,
``usi_mate_testing`` (tests/usi_mate_testing.pyx over csrc/testing.h). It is built
here on first use, by setup.py with USI_MATE_TEST_HOOKS=1 into build/test-hooks/ (a
minute on two cores; later runs find it up to date), from this checkout's csrc/, so
it needs Cython and a C++ compiler (the ``test`` extra brings Cython). The tests
import what they need from this module::

    from hooks import _TranspositionTable

Solves with a futility cap use the public API (SearchRequest.futility_node_cap).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
from pathlib import Path

try:
    from filelock import FileLock  # the test extra has it
except ImportError:  # one process at a time anyway without pytest-xdist
    FileLock = None

from usi_mate import SearchRequest, Solver

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build" / "test-hooks"


def _build() -> None:
    """Build (or find up to date) usi_mate_testing in BUILD; RuntimeError with the log.

    One process at a time: pytest-xdist's workers (and any other run of the tests in
    this checkout) import this module at once, and two builds into one folder would
    overwrite each other's objects."""
    BUILD.mkdir(parents=True, exist_ok=True)
    with FileLock(BUILD / "build.lock") if FileLock else contextlib.nullcontext():
        _build_locked()


def _build_locked() -> None:
    command = [
        sys.executable,
        "setup.py",
        "build_ext",
        "--build-lib",
        str(BUILD),
        "--build-temp",
        str(BUILD / "temp"),
        "--parallel",
        str(min(4, os.cpu_count() or 1)),
    ]
    env = {**os.environ, "USI_MATE_TEST_HOOKS": "1"}
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(
            "cannot build the core's test hooks (tests/usi_mate_testing.pyx) with\n  "
            + " ".join(command)
            + f"\n(in {REPO}, USI_MATE_TEST_HOOKS=1; it needs Cython and a C++ compiler):\n"
            + done.stdout[-3000:]
            + done.stderr[-3000:]
        )


# USI_MATE_TEST_HOOKS_DIR names a folder that already holds usi_mate_testing, built
# elsewhere: scripts.windows_check cross-compiles it for Windows on Linux and runs these
# tests under Wine, where no compiler is at hand. It is used as found, never rebuilt.
_PREBUILT = os.environ.get("USI_MATE_TEST_HOOKS_DIR")
if _PREBUILT:
    sys.path.insert(0, _PREBUILT)
else:
    _build()
    sys.path.insert(0, str(BUILD))
_testing = importlib.import_module("usi_mate_testing")

BUDGET_NONE = _testing.BUDGET_NONE
CHECK_INTERVAL = _testing.CHECK_INTERVAL
FUTILITY_NODE_CAP = _testing.FUTILITY_NODE_CAP
GRACE_MS = _testing.GRACE_MS
GRACE_NODES = _testing.GRACE_NODES
LEN_INF = _testing.LEN_INF
PN_INF = _testing.PN_INF
NO_LIMIT = _testing.NO_LIMIT
UNCAPPED = _testing.UNCAPPED
_and_node_disproof_hand = _testing._and_node_disproof_hand
_choose_child = _testing._choose_child
_and_node_proof_hand = _testing._and_node_proof_hand
_hand_before = _testing._hand_before
_hand_join = _testing._hand_join
_hand_meet = _testing._hand_meet
_hand_superior_or_equal = _testing._hand_superior_or_equal
_mate_screen = _testing._mate_screen
_or_node_disproof_hand = _testing._or_node_disproof_hand
_path_result_key = _testing._path_result_key
_DelayedDropsBench = _testing._DelayedDropsBench
_FutilityJudgeBench = _testing._FutilityJudgeBench
_FutilityMemo = _testing._FutilityMemo
_LengthBounds = _testing._LengthBounds
_LineMemoTable = _testing._LineMemoTable
_LineReaderBench = _testing._LineReaderBench
_PathSet = _testing._PathSet
_RepetitionTable = _testing._RepetitionTable
_SearchMonitor = _testing._SearchMonitor
_search_time_ms = _testing._search_time_ms
_TranspositionTable = _testing._TranspositionTable
_solve_with_line_cut = _testing._solve_with_line_cut
_root_entry_after_search = _testing._root_entry_after_search
_solve_by_search = _testing._solve_by_search
_yielding_first_proof = _testing._yielding_first_proof
_solve_with_line_pass = _testing._solve_with_line_pass


def _solve_with_futility_cap(
    sfen: str, nodes: int, cap: int, hash_mb: int = 16
) -> tuple[str, int, bool]:
    """A MinLength solve (composers' count, a fresh table of ``hash_mb`` MB, no share of
    work: until the minimum is proven or ``nodes``) whose futility judgements are first
    asked with a ``cap``-node sub-search: (status, plies, min_length_proven). For tests
    of what a cut-short judgement may claim."""
    request = SearchRequest(nodes_limit=nodes, min_length_effort=0, futility_node_cap=cap or None)
    result = Solver(hash_mb).search(sfen, request)
    return result.status, len(result.moves), result.min_length_proven
