"""``usi-mate solve --resume`` (usi_mate/resume.py): an output cut short (a kill, a torn
last record, the gaps a stop leaves) is completed so that every problem has exactly one
record, with the verdicts a clean run gives."""

from __future__ import annotations

import collections
import csv
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from oracle import PROBLEMS_DIR, problem_lines
from test_batch import ENV, PACKAGE_ROOT, run_solve, solve_command

from usi_mate.problems import make_problem
from usi_mate.resume import ResumeError, read_previous

HASH = ["--hash", "16"]
MATE1 = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
NOMATE = "4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"


def generated_tail(n: int) -> list[str]:
    """The last ``n`` problems of problems/generated.sfen: labelled with proven lengths,
    ~10 ms each (enough for a kill to land in the middle of a run)."""
    return problem_lines(PROBLEMS_DIR / "generated.sfen")[-n:]


def write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def assert_each_once(records: list[dict], lines: list[str]) -> None:
    """One record for every line of the input (by file line), none twice."""
    counts = collections.Counter(r["line"] for r in records)
    assert sorted(counts) == list(range(1, len(lines) + 1))
    assert max(counts.values()) == 1, [k for k, v in counts.items() if v > 1]


# ---------------------------------------------------------------------------
# Reading an output back


def _record(problem_id: str, line: int, source: str = "p.sfen") -> dict:
    return {
        "id": problem_id,
        "sfen": MATE1,
        "expected": "1",
        "status": "mate",
        "length": 1,
        "moves": ["G*5b"],
        "nodes": 3,
        "time_ms": 0,
        "agrees": True,
        "error": None,
        "min_length_proven": True,
        "min_length": 1,
        "shortest_possible": 1,
        "length_stop": None,
        "certified": None,
        "source": source,
        "line": line,
    }


def test_a_torn_last_record_is_cut_off_and_the_others_are_read(tmp_path):
    out = tmp_path / "out.jsonl"
    whole = "".join(json.dumps(_record(f"m{n}", n)) + "\n" for n in (1, 2, 3))
    out.write_text(whole + json.dumps(_record("m4", 4))[:50], encoding="utf-8")
    seen: list[dict] = []
    previous = read_previous(str(out), "jsonl", "utf-8", False, seen.append)
    assert [r["id"] for r in seen] == ["m1", "m2", "m3"]
    assert previous.torn_bytes == 50 and previous.has_content
    assert out.read_text(encoding="utf-8").startswith(whole)  # untouched until the run goes on
    previous.cut_torn_end()
    assert out.read_text(encoding="utf-8") == whole  # cut back to the whole records
    problems = [
        make_problem(n - 1, "some/dir/p.sfen", n, f"{MATE1} # 1 m{n}", "") for n in range(1, 6)
    ]
    answered = previous.answered
    assert [answered.take(p) for p in problems] == [True, True, True, False, False]
    assert answered.untaken() == 0


def test_a_last_line_that_is_no_record_is_solved_again_one_in_the_middle_is_an_error(tmp_path):
    out = tmp_path / "out.jsonl"
    good = json.dumps(_record("m1", 1)) + "\n"
    out.write_text(good + '{"id": "m2", "sfen"\n', encoding="utf-8")  # cut where a field ended
    previous = read_previous(str(out), "jsonl", "utf-8", False, lambda r: None)
    previous.cut_torn_end()
    assert len(previous.answered) == 1 and out.read_text(encoding="utf-8") == good
    out.write_text('{"id": "m2", "sfen"\n' + good, encoding="utf-8")
    with pytest.raises(ResumeError, match="line 1 is not a record"):
        read_previous(str(out), "jsonl", "utf-8", False, lambda r: None)
    out.write_text("some notes\n" + good, encoding="utf-8")
    with pytest.raises(ResumeError, match="not JSON"):
        read_previous(str(out), "jsonl", "utf-8", False, lambda r: None)


def test_repeated_ids_are_told_apart_by_file_and_line(tmp_path):
    out = tmp_path / "out.jsonl"
    # Lines 1, 2 and 4 of a file whose lines all have the id "same" (3: a stop's gap).
    out.write_text("".join(json.dumps(_record("same", n)) + "\n" for n in (1, 2, 4)))
    answered = read_previous(str(out), "jsonl", "utf-8", False, lambda r: None).answered
    problems = [make_problem(n - 1, "p.sfen", n, f"{MATE1} # 1 same", "") for n in range(1, 6)]
    assert [answered.take(p) for p in problems] == [True, True, False, True, False]
    answered.restart()  # a second walk takes the same ones
    assert [answered.take(p) for p in problems] == [True, True, False, True, False]
    other = make_problem(0, "other.sfen", 1, f"{MATE1} # 1 same", "")
    answered.restart()
    assert not answered.take(other)  # another file's line 1
    assert answered.untaken() == 3


def test_csv_records_are_read_back_with_their_types(tmp_path):
    r = run_solve(
        str(write(tmp_path, "p.sfen", [f"{MATE1} # 1 a", f"{NOMATE} # nomate b"])),
        "--format", "csv", "--check", *HASH,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out.csv"
    out.write_text(r.stdout + "x,y", encoding="utf-8")  # and a torn row
    seen: list[dict] = []
    previous = read_previous(str(out), "csv", "utf-8", False, seen.append)
    assert previous.torn_bytes == 3
    assert [(s["id"], s["status"], s["length"], s["agrees"], s["moves"]) for s in seen] == [
        ("a", "mate", 1, True, ["G*5b"]),
        ("b", "nomate", None, True, []),
    ]
    with pytest.raises(ResumeError, match="--check-cooks"):
        read_previous(str(out), "csv", "utf-8", True, seen.append)


# ---------------------------------------------------------------------------
# The command


def test_resume_completes_an_output_with_gaps_and_a_torn_end(tmp_path):
    lines = [f"{MATE1} # 1 m{n}" if n % 3 else f"{NOMATE} # nomate n{n}" for n in range(12)]
    path = write(tmp_path, "p.sfen", lines)
    out = tmp_path / "out.jsonl"
    r = run_solve(str(path), "--format", "jsonl", "--check", "-o", str(out), *HASH)
    assert r.returncode == 0, r.stderr
    clean = out.read_text(encoding="utf-8").splitlines(keepends=True)
    # What a stop and then a kill leave: records 0-4 and 6-7 (5 unfinished at the stop),
    # 8 appended by a resume, then half of 9.
    out.write_text("".join(clean[:5] + clean[6:8] + [clean[9][:40]]), encoding="utf-8")
    r = run_solve(str(path), "--format", "jsonl", "--check", "-o", str(out), "--resume", *HASH)
    assert r.returncode == 0, r.stderr
    assert "7 of 12 problems already answered, solving the other 5" in r.stderr
    assert "torn last record (40 bytes)" in r.stderr
    records = records_of(out)
    assert_each_once(records, lines)
    by_line = {rec["line"]: rec for rec in records}
    assert [by_line[n]["status"] for n in range(1, 13)] == [json.loads(c)["status"] for c in clean]
    assert all(rec["agrees"] for rec in records)
    # The summary counts every record, the earlier run's too.
    assert "problems                12" in r.stderr and "disagreements            0" in r.stderr
    r = run_solve(str(path), "--format", "jsonl", "-o", str(out), "--resume", *HASH)
    assert r.returncode == 0 and "solving the other 0" in r.stderr
    assert len(records_of(out)) == 12


def test_resume_of_a_csv_output_writes_no_second_header(tmp_path):
    lines = [f"{MATE1} # 1 m{n}" for n in range(4)]
    path = write(tmp_path, "p.sfen", lines)
    out = tmp_path / "out.csv"
    r = run_solve(str(path), "--format", "csv", "-o", str(out), *HASH)
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(text[:3]), encoding="utf-8")  # the header and two records
    r = run_solve(str(path), "--format", "csv", "-o", str(out), "--resume", *HASH)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(out.read_text(encoding="utf-8").splitlines()))
    assert [row["id"] for row in rows] == ["m0", "m1", "m2", "m3"]


def test_resume_with_a_missing_output_is_a_fresh_run(tmp_path):
    path = write(tmp_path, "p.sfen", [f"{MATE1} # 1 a"])
    out = tmp_path / "new.jsonl"
    r = run_solve(str(path), "--format", "jsonl", "-o", str(out), "--resume", *HASH)
    assert r.returncode == 0, r.stderr
    assert [rec["id"] for rec in records_of(out)] == ["a"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "jsonl"], "--resume needs --output FILE"),
        (["--format", "text", "-o", "{out}"], "--format jsonl or csv"),
        (["--format", "kif", "-o", "{out}"], "--format jsonl or csv"),
    ],
)
def test_resume_needs_an_output_file_that_holds_ids(tmp_path, args, message):
    path = write(tmp_path, "p.sfen", [f"{MATE1} # 1 a"])
    args = [a.replace("{out}", str(tmp_path / "out")) for a in args]
    r = run_solve(str(path), *args, "--resume", *HASH)
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_resume_with_other_inputs_is_refused_before_any_search(tmp_path):
    out = tmp_path / "out.jsonl"
    first = write(tmp_path, "first.sfen", [f"{MATE1} # 1 a", f"{MATE1} # 1 b"])
    r = run_solve(str(first), "--format", "jsonl", "-o", str(out), *HASH)
    assert r.returncode == 0, r.stderr
    # A torn last record too: a refused run leaves it (it used to be cut off first).
    with out.open("a", encoding="utf-8") as f:
        f.write('{"id": "c", "sfen"')
    before = out.read_text(encoding="utf-8")
    other = write(tmp_path, "other.sfen", [f"{MATE1} # 1 a", f"{MATE1} # 1 c"])
    r = run_solve(str(other), "--format", "jsonl", "-o", str(out), "--resume", *HASH)
    assert r.returncode == 2
    assert "2 of its 2 records answer no problem of these inputs" in r.stderr
    assert out.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_killed_midway_and_resumed_has_every_record_once(tmp_path, jobs):
    # Killed with SIGKILL (no handler runs, workers die with it), then resumed: every
    # problem once, each agreeing with its proven label as a clean run's do.
    lines = generated_tail(200)  # (enough that a loaded machine's late kill is still midway)
    path = write(tmp_path, "p.sfen", lines)
    out = tmp_path / "out.jsonl"
    command = [*solve_command(), str(path), "--format", "jsonl", "--check", "-o", str(out)]
    command += ["--jobs", jobs, "--no-progress", *HASH]
    proc = subprocess.Popen(command, env=ENV, cwd=PACKAGE_ROOT, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not out.exists() or out.read_bytes().count(b"\n") < 20:
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "no records appeared"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    written = out.read_bytes().count(b"\n")
    assert 20 <= written < len(lines), "the kill did not land in the middle of the run"
    r = subprocess.run(
        [*command, "--resume"], env=ENV, cwd=PACKAGE_ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    records = records_of(out)
    assert_each_once(records, lines)
    assert all(rec["agrees"] for rec in records), [r for r in records if not r["agrees"]]


MATE3 = "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1"


def test_two_inputs_with_one_file_name_are_told_apart_by_their_paths(tmp_path):
    # a/p.sfen and b/p.sfen both hold q1 and q2: matched by file name alone, b's record
    # of q1 answered a's q1, so a's q1 was never solved and b's was solved twice.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = write(tmp_path / "a", "p.sfen", [f"{MATE1} # 1 q1", f"{MATE3} # 3 q2"])
    b = write(tmp_path / "b", "p.sfen", [f"{MATE3} # 3 q1", f"{MATE1} # 1 q2"])
    out = tmp_path / "o.jsonl"
    args = [str(a), str(b), "--format", "jsonl", "--check", "-o", str(out), *HASH]
    r = run_solve(*args)
    assert r.returncode == 0, r.stderr
    clean = out.read_text(encoding="utf-8").splitlines(keepends=True)
    # What a stop can leave: every record but a's q1 (unfinished when the stop came).
    out.write_text("".join(clean[1:]), encoding="utf-8")
    r = run_solve(*args, "--resume")
    assert r.returncode == 0, r.stderr
    assert "3 of 4 problems already answered, solving the other 1" in r.stderr
    records = records_of(out)
    assert sorted((rec["source"], rec["line"]) for rec in records) == sorted(
        (str(path), line) for path in (a, b) for line in (1, 2)
    )
    assert records[-1]["source"] == str(a) and records[-1]["id"] == "q1"
    assert all(rec["agrees"] for rec in records)


def test_one_input_written_another_way_still_matches(tmp_path):
    path = write(tmp_path, "p.sfen", [f"{MATE1} # 1 q1", f"{MATE3} # 3 q2"])
    out = tmp_path / "o.jsonl"
    r = run_solve(str(path), "--format", "jsonl", "-o", str(out), *HASH)
    assert r.returncode == 0, r.stderr
    other_way = str(tmp_path / "." / ".." / tmp_path.name / "p.sfen")
    r = run_solve(other_way, "--format", "jsonl", "-o", str(out), "--resume", *HASH)
    assert r.returncode == 0 and "2 of 2 problems already answered" in r.stderr, r.stderr


def test_names_clash_only_for_two_files_of_one_name():
    from usi_mate.resume import names_clash

    assert names_clash(["a/p.sfen", "b/p.sfen"])
    assert names_clash(["a\\p.sfen", "b/p.sfen"])  # a Windows path too
    assert not names_clash(["p.sfen", "./p.sfen", "x/../p.sfen"])  # one file written three ways
    assert not names_clash(["a/p.sfen", "a/q.sfen"]) and not names_clash([])


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "cp932"])
def test_resume_reads_its_own_output_in_the_encoding_it_was_written(tmp_path, encoding):
    # A byte 0x0a is no line end in UTF-16 or UTF-32: --resume once refused such an
    # output ("line 1 is not utf-16 text").
    lines = [f"{MATE1} # 1 m{n}" for n in range(5)]
    path = write(tmp_path, "p.sfen", lines)
    out = tmp_path / "o.jsonl"
    args = [str(path), "--format", "jsonl", "-o", str(out), "--encoding", encoding, *HASH]
    r = run_solve(*args)
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    whole = data.decode(encoding).splitlines(keepends=True)
    kept = len("".join(whole[:2]).encode(encoding))  # (with the byte-order mark, if any)
    out.write_bytes(data[: kept + 7])  # two records, and a torn third
    r = run_solve(*args, "--resume")
    assert r.returncode == 0, r.stderr
    assert "2 of 5 problems already answered" in r.stderr and "(7 bytes)" in r.stderr
    text = out.read_bytes().decode(encoding)
    assert "\ufeff" not in text  # one byte-order mark at most, read as such
    records = [json.loads(line) for line in text.splitlines()]
    assert_each_once(records, lines)
