"""scripts/audit_lines.py: the defence audit of a bench_usi.py run's mating lines."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "audit_lines.py"
_spec = importlib.util.spec_from_file_location("audit_lines", SCRIPT)
audit_lines = importlib.util.module_from_spec(_spec)
sys.modules["audit_lines"] = audit_lines  # dataclasses look their module up by name
_spec.loader.exec_module(audit_lines)

# ▲２四桂打 △２二玉 ▲３二角成 △１一玉 ▲２一桂成 (tests/test_check.py, COOK_AT_3): a
# line answering ▲２四桂打 with △１一玉 (mated at once by ▲１二金打) is valid and
# 3 plies long, but △２二玉, a king move, holds out longer.
SFEN = "9/8k/6n1N/8B/9/8L/9/9/9 b 2NG2rb3g4s3l18p 1"


def write_run(tmp_path: Path, records: list[dict]) -> tuple[Path, Path]:
    problems = tmp_path / "mini.sfen"
    problems.write_text(f"{SFEN} # 5 mini-001\n", encoding="utf-8")
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return problems, run


def record(engine: str, moves: list[str], verdict: str) -> dict:
    return {
        "engine": engine,
        "collection": "mini",
        "id": "mini-001",
        "label": "5",
        "answer": "mate",
        "moves": moves,
        "length": len(moves),
        "verdict": verdict,
    }


def test_a_short_defence_is_found_and_the_longest_passes(tmp_path, capsys):
    short = ["N*2d", "1b1a", "G*1b"]
    problems, run = write_run(
        tmp_path,
        [
            record("a", short, "shorter"),
            record("b", ["N*2d", "1b2b", "1d3b+", "2b1a", "1c2a+"], "exact"),
            {**record("c", [], "timeout"), "answer": "timeout"},  # not audited
        ],
    )
    out = tmp_path / "audit.jsonl"
    argv = [
        "--jsonl",
        str(run),
        "--time",
        "20000",
        "--hash",
        "16",
        "--out",
        str(out),
        str(problems),
    ]
    assert audit_lines.main(argv) == 0
    text = capsys.readouterr().out
    audits = {a["engine"]: a for a in map(json.loads, out.read_text().splitlines())}
    assert set(audits) == {"a", "b"}
    assert audits["a"]["outcome"] == "longer reply"
    assert (audits["a"]["move"], audits["a"]["reply"]) == (2, "1b2b")
    # △２二玉, mated in 3 more.
    assert audits["a"]["holds"] == "more than the line's 2 plies (a 4-ply line found after it)"
    assert audits["b"]["outcome"] == "longest"
    assert "| mini | a | 1 | 0 | 0 | 1 | 0 | 0 | 0 |" in text
    assert "| mini | b | 1 | 1 | 0 | 0 | 0 | 0 | 0 |" in text
    flaw = "move 2 1b2b: more than the line's 2 plies (a 4-ply line found after it) (longer reply)"
    assert f"- a mini-001 (3 plies, label 5, shorter): {flaw}" in text


def test_a_record_of_a_problem_not_given_is_refused(tmp_path, capsys):
    problems, run = write_run(
        tmp_path, [{**record("a", ["N*2d", "1b1a", "G*1b"], "solved"), "id": "x"}]
    )
    assert audit_lines.main(["--jsonl", str(run), str(problems)]) == 2
    assert "x: not in the problem files given" in capsys.readouterr().err
