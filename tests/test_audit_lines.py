"""scripts.audit_lines: the defence audit of a scripts.bench_usi run's mating lines."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

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
        "end": "mate" if moves else "",
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
    assert "| mini | a | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 |" in text
    assert "| mini | b | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 |" in text
    flaw = "move 2 1b2b: more than the line's 2 plies (a 4-ply line found after it) (longer reply)"
    assert f"- a mini-001 (3 plies, label 5, shorter): {flaw}" in text


def test_a_record_of_a_problem_not_given_is_refused(tmp_path, capsys):
    problems, run = write_run(
        tmp_path, [{**record("a", ["N*2d", "1b1a", "G*1b"], "solved"), "id": "x"}]
    )
    assert audit_lines.main(["--jsonl", str(run), str(problems)]) == 2
    assert "x: not in the problem files given" in capsys.readouterr().err


def alternative(
    number: int, move: str, kind: str, line: tuple = (), spare: dict | None = None, note=None
):
    return SimpleNamespace(
        move_number=number,
        move=move,
        kind=kind,
        line=line,
        length=len(line),
        length_exact=True,
        spare=spare or {},
        note=note,
    )


def report(*alternatives, spare: dict | None = None, complete: bool = True):
    return SimpleNamespace(alternatives=alternatives, spare=spare or {}, complete=complete)


def test_how_a_reply_found_longer_is_classified():
    # A 9-ply line; move 6 leaves 4 plies, so a reply there mated in 5 more holds 6.
    longer = alternative(6, "1b2b", "longer", tuple("m" * 6))
    assert audit_lines.classify(report(longer), 9)[:3] == ("longer reply", 6, "1b2b")
    drop = alternative(6, "P*2b", "longer", ())  # no line found after it
    assert audit_lines.classify(report(drop), 9) == (
        "longer drop",
        6,
        "P*2b",
        "more than the line's 4 plies",
    )
    # The reply first (a reply before a drop at the same move), the first move first.
    assert audit_lines.classify(report(drop, longer), 9)[2] == "1b2b"
    later = alternative(8, "1a1b", "escape")
    assert audit_lines.classify(report(later, drop), 9)[2] == "P*2b"
    assert audit_lines.classify(report(later), 9)[3] == "escapes"
    # Longer only with spare pieces where the line leaves none (駒余り): no flaw.
    spare = alternative(6, "1b2b", "longer", tuple("m" * 6), {"P": 1})
    assert audit_lines.classify(report(spare), 9)[0] == "longer with spare pieces"
    assert audit_lines.classify(report(spare, spare={"G": 1}), 9)[0] == "longer reply"
    # The bounded search says longer, the reply's own search finds a line as short.
    why = "no mate within 3 plies after it by a search bounded so, a 3-ply mate by its own"
    same = alternative(6, "1b2b", "disputed", tuple("m" * 4), note=why)
    assert audit_lines.classify(report(same), 9) == ("disputed", 6, "1b2b", why)
    # Open questions, or a check cut short, leave it undecided unless a flaw is found.
    open_question = alternative(2, "1b1c", "undecided")
    assert audit_lines.classify(report(same, open_question), 9)[0] == "undecided"
    assert audit_lines.classify(report(longer, open_question), 9)[0] == "longer reply"
    assert audit_lines.classify(report(complete=False), 9)[0] == "undecided"
    assert audit_lines.classify(report(alternative(2, "1b1c", "variation")), 9)[0] == "longest"
