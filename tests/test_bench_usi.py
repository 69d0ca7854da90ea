"""scripts.bench_usi: argument parsing, answer parsing, scoring and the USI driver,
against a fake engine (a small Python script speaking USI with canned answers), so no
peer binary is needed; and the independent futility judge it uses
(oracle_only_futile_replies of scripts/mate_lines.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import pytest
from mate_lines import check_mate_line, oracle_only_futile_replies

from usi_mate.problems import Expected

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_usi.py"
_spec = importlib.util.spec_from_file_location("bench_usi", SCRIPT)
bench_usi = importlib.util.module_from_spec(_spec)
sys.modules["bench_usi"] = bench_usi  # dataclasses look their module up by name
_spec.loader.exec_module(bench_usi)

# Mate in 1: G*5b, protected by the pawn on 5c.
MATE1 = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
# YaneuraOu issue #162: mate in 3 (3d1d 1c1d 3f3c+) when the drops on the bishop's
# diagonal are futile, 7 when they count.
MATE3 = "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1"
MATE3_LINE = ["3d1d", "1c1d", "3f3c+"]
MATE3_STRICT = MATE3_LINE + ["P*3f", "4g3f", "P*2e", "3f2e"]
# White in check from the rook on 1i, only gold drops on file 1 as replies. Without the
# knight the drop on 1b is taken by the rook and the king takes the rook back: real
# resistance. With a black knight on 2d guarding 1b every drop is futile.
DROPS_NOT_FUTILE = "7pk/7p1/9/9/9/9/9/9/8R w g 1"
DROPS_FUTILE = "7pk/7p1/9/7N1/9/9/9/9/8R w g 1"


# --------------------------------------------------------------------------- parsing


def test_engine_and_option_arguments():
    assert bench_usi.parse_engine_arg("kh=/opt/kh --x 'a b'") == ("kh", ("/opt/kh", "--x", "a b"))
    assert bench_usi.parse_option_arg("kh:USI_Hash=1024") == ("kh", "USI_Hash", "1024")
    assert bench_usi.parse_option_arg("kh:WriteDebugLog=") == ("kh", "WriteDebugLog", "")
    for bad in ("kh", "=cmd", "kh="):
        with pytest.raises(ValueError):
            bench_usi.parse_engine_arg(bad)
    for bad in ("Threads=1", "kh:Threads", "kh:=1"):
        with pytest.raises(ValueError):
            bench_usi.parse_option_arg(bad)
    specs = bench_usi.engine_specs(
        ["a=prog-a", "kh=prog-kh"],
        ["*:USI_Hash=64", "kh:Threads=1", "kh:PostSearchLevel=MinLength"],
    )
    assert specs[0].options == (("USI_Hash", "64"),)
    assert specs[1].options == (
        ("USI_Hash", "64"),
        ("Threads", "1"),
        ("PostSearchLevel", "MinLength"),
    )
    with pytest.raises(ValueError, match="no engine named"):
        bench_usi.engine_specs(["a=prog"], ["b:Threads=1"])
    with pytest.raises(ValueError, match="must differ"):
        bench_usi.engine_specs(["a=x", "a=y"], [])


def test_checkmate_lines():
    parse = bench_usi.parse_checkmate
    assert parse("checkmate G*5b 5a4a 5c5b+ ") == ("mate", ("G*5b", "5a4a", "5c5b+"))
    assert parse("checkmate nomate") == ("nomate", ())
    assert parse("checkmate timeout") == ("timeout", ())
    assert parse("checkmate notimplemented") == ("unreadable", ())
    assert parse("checkmate") == ("unreadable", ())
    assert parse("info string checkmate soon") is None
    assert parse("bestmove resign") is None


# --------------------------------------------------------------------------- replay


def test_futility_judged_without_our_engine():
    final = "9/5g1s1/6+R2/8k/9/8S/5B3/9/9 w rb3g2s4n4l18p 4"  # MATE3 after MATE3_LINE
    assert oracle_only_futile_replies(final)
    assert not oracle_only_futile_replies(DROPS_NOT_FUTILE)
    assert not oracle_only_futile_replies(DROPS_NOT_FUTILE, depth=2)
    assert oracle_only_futile_replies(DROPS_FUTILE)
    assert not oracle_only_futile_replies(MATE1)  # not in check


def test_mate_line_reasons():
    assert check_mate_line(MATE1, ["G*5b"]) is None
    assert "illegal" in check_mate_line(MATE1, ["G*5a"])
    assert "does not give check" in check_mate_line(MATE1, ["G*9i", "5a4a", "5c5b+"])
    assert "not mate" in check_mate_line(MATE3, ["3d1d"])
    assert "defender move" in check_mate_line(MATE3, ["3d1d", "1c1d"])
    assert "not all futile" in check_mate_line(MATE3, MATE3_LINE)
    assert check_mate_line(MATE3, MATE3_LINE, futile_end=oracle_only_futile_replies) is None
    assert check_mate_line(MATE3, MATE3_STRICT) is None


def test_judge_verdicts():
    def verdict(sfen, label, status, moves=(), seconds=0.1):
        answer = bench_usi.Answer(status, tuple(moves), seconds)
        return bench_usi.judge(sfen, Expected.parse(label), answer, limit_s=1.0)[0]

    assert verdict(MATE3, "3", "mate", MATE3_LINE) == "exact"
    assert (
        bench_usi.judge(
            MATE3, Expected.parse("3"), bench_usi.Answer("mate", tuple(MATE3_LINE)), 1.0
        )[2]
        == "futile"
    )
    assert verdict(MATE3, "3", "mate", MATE3_STRICT) == "longer"
    assert verdict(MATE3, "5", "mate", MATE3_LINE) == "shorter"
    assert verdict(MATE3, ">=5", "mate", MATE3_LINE) == "shorter"
    assert verdict(MATE3, ">=3", "mate", MATE3_STRICT) == "exact"
    assert verdict(MATE3, "nomate", "mate", MATE3_LINE) == "wrong"
    assert verdict(MATE3, "nomate<=3", "mate", MATE3_STRICT) == "exact"
    assert verdict(MATE3, "nomate<=7", "mate", MATE3_STRICT) == "wrong"
    assert verdict(MATE1, "1", "nomate") == "wrong"
    assert verdict(MATE1, "nomate", "nomate") == "exact"
    assert verdict(MATE1, "nomate", "nomate", seconds=1.5) == "timeout"  # shtsume's time-out
    assert verdict(MATE1, "1", "timeout") == "timeout"
    assert verdict(MATE1, "1", "killed") == "timeout"
    assert verdict(MATE1, "1", "unreadable") == "wrong"
    assert verdict(MATE1, "1", "mate", ["G*5b"], seconds=1.5) == "exact"  # late, still proven


# --------------------------------------------------------------------------- driver

FAKE_ENGINE = textwrap.dedent(
    """
    import json, os, sys, time
    script, counter = json.load(open(sys.argv[1])), sys.argv[2]
    def say(text):
        sys.stdout.write(text + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "usi":
            say("id name fake 1.0"); say("option name USI_Hash type spin default 16 min 1 max 64")
            say("usiok")
        elif cmd[0] == "isready":
            say("readyok")
        elif cmd[:2] == ["go", "mate"]:
            # The go count lives in a file so that it survives a restart after a hang.
            # Written whole by a rename: a kill mid-write must not reset it to 0.
            n = int(open(counter).read() or 0)
            open(counter + ".new", "w").write(str(n + 1)); os.replace(counter + ".new", counter)
            step = script[n]
            time.sleep(step.get("sleep", 0))
            if "answer" in step:
                say("info string thinking"); say(step.get("info", "info string no count"))
                say(step["answer"])
        elif cmd[0] == "quit":
            break
    """
)


def test_driver_against_a_fake_engine(tmp_path, monkeypatch, capsys):
    # The hang below costs 3 s, not 6; a guard under a second killed an instant answer
    # on a loaded CI machine (2 cores, the suite in parallel).
    monkeypatch.setattr(bench_usi, "GUARD_S", 2.0)
    cases = [
        (
            MATE1,
            "1",
            "mate",
            {"info": "info time 1 nodes 1234 nps 99", "answer": "checkmate G*5b"},
            "exact",
        ),
        (MATE1, "1", "illegal", {"answer": "checkmate G*5a"}, "wrong"),
        (MATE1, "1", "nocheck", {"answer": "checkmate G*9i 5a4a 5c5b+"}, "wrong"),
        (MATE1, "1", "nomate-on-mate", {"answer": "checkmate nomate"}, "wrong"),
        (MATE1, "1", "hang", {"sleep": 30}, "timeout"),
        (MATE3, "3", "futile-end", {"answer": "checkmate " + " ".join(MATE3_LINE)}, "exact"),
        (MATE3, "3", "strict", {"answer": "checkmate " + " ".join(MATE3_STRICT)}, "longer"),
        (MATE3, "3", "late-nomate", {"sleep": 1.3, "answer": "checkmate nomate"}, "timeout"),
        (MATE3, "3", "says-timeout", {"answer": "checkmate timeout"}, "timeout"),
    ]
    problems = tmp_path / "fake.sfen"
    problems.write_text("".join(f"{sfen} # {label} {pid}\n" for sfen, label, pid, _, _ in cases))
    script = tmp_path / "script.json"
    script.write_text(json.dumps([step for _, _, _, step, _ in cases]))
    engine = tmp_path / "fake_engine.py"
    engine.write_text(FAKE_ENGINE)
    counter = tmp_path / "count"
    counter.write_text("0")
    out = tmp_path / "run.jsonl"
    command = f"fake={sys.executable} {engine} {script} {counter}"
    code = bench_usi.main(
        [
            str(problems),
            "--engine",
            command,
            "--option",
            "fake:USI_Hash=8",
            "--option",
            "*:Missing=1",
            "--time",
            "1000",  # an instant answer must come within it, also on a loaded machine
            "--jsonl",
            str(out),
        ]
    )
    assert code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["verdict"]) for r in records] == [(c[2], c[4]) for c in cases]
    by_id = {r["id"]: r for r in records}
    assert by_id["futile-end"]["end"] == "futile" and by_id["futile-end"]["length"] == 3
    assert by_id["hang"]["answer"] == "killed"
    assert "illegal" in by_id["illegal"]["reason"]
    # The engine's own count of nodes, from its last info line; None when it gave none.
    assert by_id["mate"]["nodes"] == 1234 and by_id["illegal"]["nodes"] is None
    if sys.platform.startswith("linux"):  # the peak memory comes from /proc
        assert by_id["mate"]["peak_rss_mb"] > 0
    assert "does not give check" in by_id["nocheck"]["reason"]
    printed = capsys.readouterr().out
    assert "| fake | fake | 9 | 3 | 2 | 1 | 0 | 3 | 3 |" in printed  # one engine restart
    assert "restarts 1" in printed
    assert "Missing is not among those it lists" in printed
