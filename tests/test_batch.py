"""End-to-end tests of ``usi-mate solve`` (run as a subprocess) and of ``solve_many``.

The problem files are a few lines copied from the committed collections
(problems/) into tmp_path. Verdicts are checked against the rules (a mating line replays to
checkmate from its own position), not against today's exact lines, so these
tests survive search changes such as shortest-mate search.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from oracle import PROBLEMS_DIR, problem_lines

import usi_mate
from usi_mate import Position, solve_many
from usi_mate.batch import _group_inputs
from usi_mate.problems import Expected, parse_problem_line
from usi_mate.runners import MAX_CHUNK, WINDOW_CHUNKS_PER_JOB

# Where the package under test was imported from (the checkout after an in-place
# build, or site-packages when installed): the child processes must import that
# same package, and run from there so that an unbuilt checkout cannot shadow it.
PACKAGE_ROOT = str(Path(usi_mate.__file__).resolve().parent.parent)
ENV = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
# Small tables: every subprocess (and every --jobs worker) allocates one, and
# these problems need a few MB at most.
HASH = ["--hash", "16"]


def solve_command() -> tuple[str, ...]:
    """The command that runs ``usi-mate solve``."""
    return (sys.executable, "-m", "usi_mate", "solve")


def run_solve(
    *args: str, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*solve_command(), *args],
        input=stdin,
        env=ENV,
        cwd=PACKAGE_ROOT,
        check=False,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


def lines_of(name: str, *numbers: int) -> list[str]:
    """Problems of a committed file (problems/), by 1-based number (comments not counted)."""
    all_lines = problem_lines(PROBLEMS_DIR / name)
    return [all_lines[n - 1] for n in numbers]


def generated(label: str, count: int) -> list[str]:
    """The first ``count`` lines of problems/generated.sfen labelled ``label``."""
    found = [
        line
        for line in problem_lines(PROBLEMS_DIR / "generated.sfen")
        if line.partition("#")[2].split()[0] == label
    ]
    assert len(found) >= count, f"generated.sfen has {len(found)} lines labelled {label}"
    return found[:count]


def write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def label_id(line: str) -> str:
    return parse_problem_line(line)[2]


def assert_mates(sfen: str, moves: list[str]) -> None:
    """The line is legal from its own position (so it belongs there) and ends with the
    defender in check: in checkmate, or with only futile interpositions left, which
    the search does not count as defences."""
    pos = Position(sfen)
    attacker = pos.turn
    for m in moves:
        pos.push_usi(m)
    assert moves and pos.turn != attacker and pos.is_check(), (sfen, moves)


MALFORMED = "this is not a position # 3 broken-line"
# Mate in 1 (the solver must find it), labelled nomate: a disagreement whatever
# the search finds, now or after search changes.
WRONG_LABEL = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1 # nomate wrong-label"


@pytest.fixture
def mixed_file(tmp_path: Path) -> tuple[Path, list[str]]:
    good = generated("3", 3) + generated("9", 1) + generated("5", 1)
    lines = good[:3] + [MALFORMED] + good[3:]
    return write(tmp_path, "mixed.sfen", ["# a comment line", ""] + lines), lines


# ---------------------------------------------------------------------------
# Output formats


ZUKOU_011 = "r+b2n4/1Pk1p4/pp1sG4/N1+s1+p4/2P1+R4/+pB1LN4/9/9/9 b SN3gs3l11p 1 # 49 zukou-011"


def test_records_say_whether_the_length_is_proven_and_why_the_search_ended():
    # MateResult's fields, one meaning everywhere (issue 43): zukou-011's minimum is not
    # proven within the default share ("effort"), nor within 2 M nodes with no share.
    r = run_solve("-", "--format", "jsonl", *HASH, stdin=ZUKOU_011 + "\n")
    (record,) = [json.loads(line) for line in r.stdout.splitlines()]
    assert (record["length"], record["min_length_proven"], record["length_stop"]) == (
        49,
        False,
        "effort",
    )
    r = run_solve(
        "-", "--format", "jsonl", "--min-length-effort", "0", "--nodes", "2000000", *HASH,
        stdin=ZUKOU_011 + "\n",
    )  # fmt: skip
    (record,) = [json.loads(line) for line in r.stdout.splitlines()]
    assert (record["length"], record["length_stop"]) == (49, "nodes")
    short = "9/5g1s1/8k/6+R2/9/6R1S/5B3/9/9 b b3g2s4n4l18p 1 # 3 yaneuraou-162"
    r = run_solve("-", "--format", "jsonl", *HASH, stdin=short + "\n")
    (record,) = [json.loads(line) for line in r.stdout.splitlines()]
    assert (record["min_length"], record["shortest_possible"], record["length_stop"]) == (
        3,
        3,
        None,
    )


def test_jsonl_records_in_order_with_an_error_record(mixed_file):
    path, lines = mixed_file
    r = run_solve(str(path), "--format", "jsonl", "--time", "10000", *HASH)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["id"] for rec in records] == [label_id(line) for line in lines]
    for rec in records:
        assert set(rec) >= {
            "id",
            "sfen",
            "expected",
            "status",
            "length",
            "moves",
            "nodes",
            "time_ms",
            "agrees",
            "error",
        }
        assert rec["agrees"] is None  # no --check
    bad = records[3]
    assert bad["status"] == "invalid" and bad["error"] and bad["expected"] == "3"
    assert bad["line"] == 6  # counted in the file, comment and blank lines included
    assert re.search(r"mixed\.sfen:6: .*skipped", r.stderr)
    for rec in records[:3] + records[4:]:
        assert rec["status"] == "mate" and rec["length"] == len(rec["moves"])
        assert_mates(rec["sfen"], rec["moves"])


def test_csv_has_the_same_records(mixed_file):
    path, lines = mixed_file
    r = run_solve(str(path), "--format", "csv", "--check", "--time", "10000", *HASH)
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [row["id"] for row in rows] == [label_id(line) for line in lines]
    assert rows[3]["status"] == "invalid" and rows[3]["error"]
    assert rows[3]["agrees"] == "false"  # an unreadable line confirms nothing
    for row in rows[:3] + rows[4:]:
        assert row["status"] == "mate"
        assert len(row["moves"].split()) == int(row["length"])
        assert row["agrees"] in ("true", "false")
        assert_mates(row["sfen"], row["moves"].split())


def test_text_has_a_line_a_problem_and_a_summary(mixed_file):
    path, lines = mixed_file
    r = run_solve(str(path), "--time", "10000", *HASH)
    assert r.returncode == 0, r.stderr
    body, _, summary = r.stdout.partition("\n\n")
    rows = body.splitlines()
    assert [row.split()[0] for row in rows] == [label_id(line) for line in lines]
    assert rows[3].split()[1] == "invalid"
    assert all(row.split()[1:2] == ["mate"] for row in rows[:3] + rows[4:])
    table = dict(re.findall(r"^(\w[\w ]*?)\s{2,}(\S+)", summary, re.MULTILINE))
    assert table["problems"] == "6" and table["mate"] == "5" and table["invalid"] == "1"
    assert table["errors"] == "0"
    assert table["unknown"] == "0" and table["no mate"] == "0"
    assert "search time" in table and "wall time" in table


def test_kif_blocks_are_kif_records(mixed_file, tmp_path):
    path, lines = mixed_file
    out = tmp_path / "out.kif"
    r = run_solve(str(path), "--format", "kif", "--output", str(out), "--time", "10000", *HASH)
    assert r.returncode == 0, r.stderr
    # A .kif file is Shift_JIS (CP932) with CRLF, as KIF readers expect (test_outputs.py).
    blocks = out.read_text(encoding="cp932").strip().split("\n\n")
    assert len(blocks) == len(lines)
    assert blocks[3].startswith("# broken-line") and "後手の持駒" not in blocks[3]
    move_re = re.compile(
        r"^ +\d+ (?:[１-９][一二三四五六七八九]|同\u3000)"
        r"(?:歩|香|桂|銀|金|角|飛|玉|と|成香|成桂|成銀|馬|龍)"
        r"(?:打|成?\([1-9][1-9]\))$"
    )
    for block in blocks[:3] + blocks[4:]:
        rows = block.splitlines()
        header = rows.index("手数----指手---------消費時間--")
        moves = rows[header + 1 : -2]
        assert moves and all(move_re.match(m) for m in moves), moves
        assert rows[-2].split() == [str(len(moves) + 1), "詰み"]
        assert rows[-1] == f"まで{len(moves)}手で詰み"
        assert rows[header - 1] in ("先手番", "後手番")


# ---------------------------------------------------------------------------
# --check


def test_check_exit_0_when_every_label_agrees(tmp_path):
    # Mate-in-1 positions have nothing shorter to find, and "nomate<=1" agrees
    # with any verdict except a mate in 1 (the line below has no checking move).
    lines = (
        lines_of("komori_mate_engine_test.sfen", 1, 2)
        + lines_of("mogami_tests.sfen", 2)
        + lines_of("nshogi_nomate1ply.sfen", 2)
    )
    r = run_solve(
        str(write(tmp_path, "ok.sfen", lines)),
        "--check",
        "--format",
        "jsonl",
        "--time",
        "10000",
        *HASH,
    )
    assert r.returncode == 0, r.stderr
    assert all(json.loads(line)["agrees"] is True for line in r.stdout.splitlines())


def test_check_exit_1_and_a_summary_on_stderr_when_a_label_disagrees(tmp_path):
    lines = lines_of("komori_mate_engine_test.sfen", 1) + [WRONG_LABEL]
    r = run_solve(str(write(tmp_path, "bad.sfen", lines)), "--check", "--time", "10000", *HASH)
    assert r.returncode == 1
    assert "1 of 2 problems disagree" in r.stderr
    assert re.search(r"wrong-label\s+expected nomate, got mate 1", r.stderr)
    assert re.search(r"^wrong-label .*DIFFERS \(expected nomate\)", r.stdout, re.MULTILINE)
    assert re.search(r"^disagreements\s+1$", r.stdout, re.MULTILINE)


def test_check_counts_a_malformed_line_as_not_agreeing(mixed_file):
    path, _ = mixed_file
    r = run_solve(str(path), "--check", "--nodes", "1", "--format", "jsonl", *HASH)
    assert r.returncode == 1
    assert "broken-line" in r.stderr


@pytest.mark.parametrize(
    "label, status, length, agrees",
    [
        ("9", "mate", 9, True),
        ("9", "mate", 11, False),
        ("9", "nomate", None, False),
        ("9", "unknown", None, False),
        ("nomate", "nomate", None, True),
        ("nomate", "mate", 3, False),
        ("nomate", "unknown", None, False),
        ("nomate<=5", "nomate", None, True),
        ("nomate<=5", "mate", 7, True),
        ("nomate<=5", "mate", 5, False),
        ("nomate<=5", "unknown", None, False),
        (">=15", "mate", 15, True),
        (">=15", "mate", 17, True),
        (">=15", "mate", 13, False),
        (">=15", "nomate", None, False),
        (">=15", "unknown", None, False),
        ("1", "error", None, False),
        ("1", "invalid", None, False),
    ],
)
def test_label_agreement_rules(label, status, length, agrees):
    assert Expected.parse(label).agrees(status, length) is agrees


def test_problem_line_parsing():
    text, expected, pid, extra = parse_problem_line(
        "9/9/9/9/9/9/9/9/9 b - 1 # nomate<=3 antma-x flags=double-king,muda-ai"
    )
    assert text == "9/9/9/9/9/9/9/9/9 b - 1"
    assert (expected.kind, expected.plies, pid) == ("nomate_within", 3, "antma-x")
    assert extra == {"flags": "double-king,muda-ai"}
    assert parse_problem_line("startpos moves 7g7f") == ("startpos moves 7g7f", None, None, {})
    assert parse_problem_line("startpos # just-an-id")[1:3] == (None, "just-an-id")
    with pytest.raises(ValueError, match="bad expected label"):
        parse_problem_line("startpos # 9x id")


# ---------------------------------------------------------------------------
# Order, inputs, interruption


def test_jobs_2_keeps_input_order(tmp_path):
    # A problem that takes ~0.1 s (Zukō #2, 21 plies) first, so the fast ones behind it
    # finish first on the other worker.
    lines = lines_of("zukou.sfen", 2) + generated("3", 12) + generated("7", 3)
    path = write(tmp_path, "order.sfen", lines)
    r = run_solve(str(path), "--jobs", "2", "--format", "jsonl", "--time", "20000", *HASH)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["id"] for rec in records] == [label_id(line) for line in lines]
    for rec in records:
        assert rec["status"] == "mate"
        assert_mates(rec["sfen"], rec["moves"])


def wait_for_lines(path: Path, n: int, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text(encoding="utf-8").count("\n") >= n:
            return
        if proc.poll() is not None:
            pytest.fail(f"solve exited early ({proc.returncode}): {proc.stderr.read()}")
        time.sleep(0.05)
    proc.kill()
    pytest.fail("no result appeared")


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="Popen.send_signal has no SIGINT on Windows (Ctrl-C is a console event there)",
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigint_leaves_complete_jsonl_and_exits_130(tmp_path, jobs):
    fast = generated("5", 3)
    # Zukō #1 (69 plies) and #4 (39) take far longer than this test: the run
    # is interrupted while both workers are on them.
    slow = lines_of("zukou.sfen", 1, 4)
    lines = fast + slow + generated("3", 2)
    path = write(tmp_path, "slow.sfen", lines)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [
            *solve_command(),
            str(path),
            "--format",
            "jsonl",
            "--output",
            str(out),
            "--time",
            "120000",
            "--jobs",
            jobs,
            "--no-progress",
            *HASH,
        ],
        env=ENV,
        cwd=PACKAGE_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_lines(out, 3, proc, timeout=120)  # the fast ones: the slow ones are next
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n")
    records = [json.loads(line) for line in text.splitlines()]
    ids = [rec["id"] for rec in records]
    expected_order = [label_id(line) for line in lines]
    assert ids[:3] == expected_order[:3]
    assert ids == [i for i in expected_order if i in ids]  # input order, gaps allowed
    assert not {label_id(line) for line in slow} & set(ids)
    assert all(rec["status"] == "mate" for rec in records)


def test_stdin_with_dash():
    lines = lines_of("komori_mate_engine_test.sfen", 1, 2)
    r = run_solve("-", "--format", "jsonl", "--time", "10000", *HASH, stdin="\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["id"] for rec in records] == [label_id(line) for line in lines]
    assert [rec["moves"] for rec in records] == [["G*5b"], ["G*5h"]]


def test_positions_as_arguments():
    r = run_solve(
        "sfen",
        "4k4/9/4P4/9/9/9/9/9/9",
        "b",
        "G2r2b3g4s4n4l17p",
        "1",
        "9/9/9/9/9/9/4p4/9/4K4 w 2R2BG4S4N4L3g17p 1 # 1 reversed",
        "startpos",
        "moves",
        "7g7f",
        "--format",
        "jsonl",
        "--check",
        "--time",
        "10000",
        *HASH,
    )
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["id"] for rec in records] == ["arg 1", "reversed", "arg 3"]
    assert [rec["status"] for rec in records] == ["mate", "mate", "nomate"]
    assert [rec["agrees"] for rec in records] == [None, True, None]
    assert records[2]["sfen"].split()[1] == "w"  # the position after 7g7f
    assert r.returncode == 0, r.stderr


def test_inputs_are_told_apart(tmp_path):
    f = write(tmp_path, "p.sfen", ["startpos"])
    assert _group_inputs(
        [
            str(f),
            "-",
            "startpos",
            "moves",
            "7g7f",
            "position",
            "sfen",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
            "b",
            "-",
            "1",
            "8k/9/9/9/9/9/9/9/9 b G 1",
        ]
    ) == [
        ("file", str(f)),
        ("stdin", "-"),
        ("position", "startpos moves 7g7f"),
        (
            "position",
            "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        ),
        ("position", "8k/9/9/9/9/9/9/9/9 b G 1"),
    ]


def test_threads_2_gives_the_same_verdicts_and_lengths(tmp_path):
    # Two search threads per problem (one worker): the verdicts and the shortest-mate
    # lengths do not depend on the thread count (docs/THREADS.md).
    lines = lines_of("zukou.sfen", 2, 5) + generated("5", 4) + generated("nomate", 2)
    path = write(tmp_path, "threads.sfen", lines)
    runs = {}
    for threads in ("1", "2"):
        r = run_solve(
            str(path), "--threads", threads, "--format", "jsonl", "--nodes", "20000000", *HASH
        )
        assert r.returncode == 0, r.stderr
        runs[threads] = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["id"] for rec in runs["2"]] == [label_id(line) for line in lines]
    for one, two in zip(runs["1"], runs["2"]):
        assert two["status"] == one["status"]
        if two["status"] == "mate":
            assert_mates(two["sfen"], two["moves"])
            if one.get("min_length_proven") and two.get("min_length_proven"):
                assert len(two["moves"]) == len(one["moves"])


@pytest.mark.parametrize("value", ["0", "-1", "257", "two"])
def test_bad_thread_count_is_a_usage_error(value):
    r = run_solve("--threads", value, "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", *HASH)
    assert r.returncode == 2
    assert "--threads" in r.stderr


def test_unknown_input_is_a_usage_error(tmp_path):
    r = run_solve(str(tmp_path / "missing.sfen"))
    assert r.returncode == 2
    assert "neither an existing file nor a position" in r.stderr


# ---------------------------------------------------------------------------
# Output that cannot be written: exit 2 and one message, never a verdict's status

MATE_1 = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
# A long first proof (seconds each): a batch of them outlasts any worker's start-up.
SLOW = "1pG1B4/Gs+P6/pP7/n1ls5/3k5/nL4+r1b/1+p1p+R4/1S7/2N6 b SP2gn2l11p 1"
needs_dev_full = pytest.mark.skipif(
    not os.path.exists("/dev/full"), reason="needs /dev/full (a device that is always full)"
)


def assert_cannot_write(r: subprocess.CompletedProcess, prog: str, name: str) -> None:
    """Exit 2 with one ``cannot write`` line naming the output, and no traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count(f"{prog}: error: cannot write {name}: ") == 1, r.stderr


@needs_dev_full
@pytest.mark.parametrize("fmt", ["text", "jsonl", "csv", "kif"])
def test_a_full_disk_is_an_io_error_not_a_disagreement(fmt, tmp_path):
    path = write(tmp_path, "p.sfen", [MATE_1 + " # 1 one"] * 3)
    r = run_solve(str(path), "--check", "--format", fmt, "--output", "/dev/full", *HASH)
    assert_cannot_write(r, "usi-mate solve", "/dev/full")
    assert "No space left on device" in r.stderr


@needs_dev_full
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_stdout_on_a_full_disk_is_an_io_error(jobs, tmp_path):
    path = write(tmp_path, "p.sfen", [MATE_1 + " # 1 one"] * 4)
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [*solve_command(), str(path), "--check", "--jobs", jobs, *HASH],
            stdout=full,
            stderr=subprocess.PIPE,
            env=ENV,
            cwd=PACKAGE_ROOT,
            text=True,
            encoding="utf-8",
            timeout=60,
            check=False,
        )
    # Not 120 (Python failing to flush stdout at exit) nor 1 (a disagreement).
    assert_cannot_write(r, "usi-mate solve", "stdout")
    assert "Exception ignored" not in r.stderr


def test_an_output_in_a_missing_folder_is_an_io_error(tmp_path):
    missing = str(tmp_path / "nodir" / "c.txt")
    r = run_solve(MATE_1, "--output", missing, *HASH)
    assert_cannot_write(r, "usi-mate solve", missing)
    assert "No such file or directory" in r.stderr


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n\n   \n"])
def test_an_input_without_a_problem_line_is_a_usage_error(text, tmp_path):
    empty = write(tmp_path, "empty.sfen", [text])
    for args, stdin in (([str(empty)], None), (["-"], text)):
        r = run_solve(*args, "--check", *HASH, stdin=stdin)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "usi-mate solve: error: no problem to solve" in r.stderr


def test_a_failure_at_close_is_reported_once():
    # A write that fails late: the disk fills between the last flush and the close
    # (or NFS reports EIO then). The stream says so, naming the output, once.
    from usi_mate.outputs import OutputError, OutputStream

    class FailsAtClose(io.StringIO):
        def close(self):
            super().close()
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    out = OutputStream(FailsAtClose(), "late.txt", owned=True)
    out.write("a record\n")
    with pytest.raises(OutputError, match=r"^cannot write late\.txt: Input/output error$"):
        out.close()
    out.close()  # once reported, the cleanup cannot fail again
    out.write("more")

    class FailsAtFlush(io.StringIO):
        def flush(self):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    out = OutputStream(FailsAtFlush(), "full.txt", owned=True)
    with pytest.raises(OutputError, match="No space left on device"):
        out.close()


# ---------------------------------------------------------------------------
# Echoed input: clipped and escaped, as the USI engine echoes it

BIG_LINE = "x" * 8_000_000 + " # 3 big"  # a malformed 8 MB line
# Ids and a malformed position with escape sequences: clear the screen, set the
# terminal's title (OSC ... BEL), colour; a C1 CSI and a bidi override.
HOSTILE_LINES = [
    MATE_1 + " # 1 \x1b[2Jclear",
    MATE_1 + " # 1 \x1b]0;title\x07osc",
    "bad\x1b[31mred # 1 red\x9b2J\u202eid",
]
TERMINAL_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


def hostile_file(tmp_path: Path) -> Path:
    return write(tmp_path, "hostile.sfen", [BIG_LINE, *HOSTILE_LINES])


def assert_echoes_are_safe(r: subprocess.CompletedProcess) -> None:
    """Neither stream holds the 8 MB line or a character a terminal would act on."""
    assert len(r.stdout) + len(r.stderr) < 20_000, (len(r.stdout), len(r.stderr))
    for stream in (r.stdout, r.stderr):
        assert not any(c in stream for c in TERMINAL_CONTROLS), stream
    assert "x" * 300 not in r.stdout + r.stderr


@pytest.mark.parametrize("fmt", ["text", "jsonl", "csv", "kif"])
def test_solve_clips_and_escapes_what_it_echoes(fmt, tmp_path):
    r = run_solve(str(hostile_file(tmp_path)), "--format", fmt, *HASH)
    assert r.returncode == 0, r.stderr[:2000]
    assert_echoes_are_safe(r)
    # Shown escaped, as the USI engine shows them (jsonl escapes the backslash once more).
    shown = r.stdout.replace("\\\\", "\\")
    for escaped in ("\\x1b[2Jclear", "\\x1b]0;title\\x07osc", "red\\x9b2J\\u202eid"):
        assert escaped in shown, (escaped, r.stdout)
    assert "skipped: SFEN needs at least three fields" in r.stderr
    assert "'bad\\x1b[31mred'" in r.stderr and "xxx..." in r.stderr


def test_printable_keeps_japanese_for_people_and_escapes_what_terminals_act_on():
    from usi_mate.echo import printable
    from usi_mate.usi_commands import printable as usi_printable

    assert usi_printable is printable  # one function, still importable where it was
    assert printable("玉\x1b[2J\x9b\u202e\u3000id", ascii_only=False) == (
        "玉\\x1b[2J\\x9b\\u202e\u3000id"
    )
    assert printable("玉\x1b", 80) == "\\u7389\\x1b"  # the USI side: ASCII only
    assert printable("a" * 10, 4, ascii_only=False) == "aaaa..."


# ---------------------------------------------------------------------------
# solve_many


def _solve_many_inputs():
    lines = lines_of("zukou.sfen", 2) + generated("3", 8) + generated("5", 1)
    texts = [parse_problem_line(line)[0] for line in lines]
    # Mixed kinds: Position objects, text with moves, and one unreadable string.
    return [Position(texts[0])] + texts[1:] + ["startpos moves 7g7f", "not a position"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_solve_many_yields_in_input_order(jobs):
    inputs = _solve_many_inputs()
    results = list(solve_many(iter(inputs), jobs=jobs, time_limit_ms=20000, hash_mb=16))
    assert len(results) == len(inputs)
    for given, res in zip(inputs[:-2], results[:-2]):
        assert res.status == "mate"
        assert_mates(given.sfen() if isinstance(given, Position) else given, res.moves)
    assert results[-2].status == "nomate"
    assert results[-1].status == "invalid" and results[-1].error


def test_solve_many_answers_what_is_no_position_in_its_place():
    # Text alone takes the chunk's quick path; anything else in a chunk, one at a time.
    mate = _solve_many_inputs()[1]
    results = list(solve_many([mate, 42, Position(mate), mate], hash_mb=16))
    assert [r.status for r in results] == ["mate", "invalid", "mate", "mate"]
    assert "not int" in (results[1].error or "")


def test_solve_many_is_lazy_and_can_be_abandoned():
    line = parse_problem_line(generated("5", 1)[0])[0]
    consumed = 0

    def endless():
        nonlocal consumed
        while True:
            consumed += 1
            yield line

    results = solve_many(endless(), jobs=2, hash_mb=16)
    first = [next(results) for _ in range(3)]
    assert all(r.status == "mate" for r in first)
    results.close()  # stops the workers
    # Bounded read-ahead: the window of chunks, not the stream (50 here: chunks of one
    # position at first, then growing as the searches are measured).
    assert consumed <= 3 + WINDOW_CHUNKS_PER_JOB * 2 * MAX_CHUNK


def test_solve_many_rejects_bad_arguments_at_once():
    with pytest.raises(ValueError, match="jobs"):
        solve_many([], jobs=0)
    with pytest.raises(ValueError, match="time_limit_ms"):
        solve_many([], time_limit_ms=-1)
    with pytest.raises(ValueError, match="hash_mb"):
        solve_many([], hash_mb=0)
    with pytest.raises(ValueError, match="threads"):
        solve_many([], threads=0)
    with pytest.raises(TypeError, match="threads"):
        solve_many([], threads=1.5)


@pytest.mark.parametrize("jobs", [1, 2])
def test_solve_many_with_threads(jobs):
    inputs = _solve_many_inputs()
    results = list(solve_many(inputs, jobs=jobs, threads=2, time_limit_ms=20000, hash_mb=16))
    assert [r.status for r in results[-2:]] == ["nomate", "invalid"]
    for given, res in zip(inputs[:-2], results[:-2]):
        assert res.status == "mate"
        assert_mates(given.sfen() if isinstance(given, Position) else given, res.moves)


def run_script(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    """Run ``source`` as a script (its own __main__) from tmp_path, with a timeout."""
    script = tmp_path / "script.py"
    script.write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)],
        env=ENV,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,  # the bug: workers restarted for ever, and the script never returned
        check=False,
    )


def test_solve_many_from_a_script_without_the_main_guard_raises_a_clear_error(tmp_path):
    # 'spawn' imports the script again in every worker; at its top level that starts
    # workers from the worker, which failed and was replaced for ever (314 tracebacks in 30 s).
    # The calling process searches while its workers start, so a batch that outlasts
    # their start-up is needed to see them fail: the first answers may come first.
    r = run_script(
        tmp_path,
        "from usi_mate import solve_many\n"
        f"for r in solve_many([{MATE_1!r}] * 3 + [{SLOW!r}] * 100, jobs=2, hash_mb=16):\n"
        "    print(r.status)\n",
    )
    assert r.returncode != 0, r.stdout
    assert r.stderr.count("Traceback") == 1, r.stderr  # the caller's, and no worker's
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("usi_mate.runners.WorkerStartError: the worker processes could not")
    assert 'if __name__ == "__main__":' in last
    assert len(r.stdout.split()) < 10  # not the batch: the error came while it ran


def test_the_same_script_with_the_guard_solves(tmp_path):
    r = run_script(
        tmp_path,
        "from usi_mate import solve_many\n"
        'if __name__ == "__main__":\n'
        f"    for r in solve_many([{MATE_1!r}] * 3, jobs=2, hash_mb=16):\n"
        "        print(r.status)\n",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["mate"] * 3


def test_workers_that_die_at_start_up_end_the_run_with_an_error(tmp_path):
    # Any other start-up death (here the script exits 5 when a worker imports it) must end
    # the run too: a few replacements, then an error, never a loop.
    r = run_script(
        tmp_path,
        'if __name__ != "__main__":\n'
        "    raise SystemExit(5)\n"
        "from usi_mate import solve_many\n"
        f"for r in solve_many([{MATE_1!r}] * 3 + [{SLOW!r}] * 100, jobs=2, hash_mb=16):\n"
        "    print(r.status)\n",
    )
    assert r.returncode != 0, r.stdout
    last = r.stderr.strip().splitlines()[-1]
    assert "WorkerStartError: the worker processes could not start: 3 in a row" in last
    assert "(the last: exit status 5)" in last


def test_a_position_argument_that_cannot_be_read_exits_2_after_solving_the_others():
    # Typed on the command line it is a usage error (it exited 0, issue 46): the others
    # are still solved and written, the bad one as an "invalid" record.
    good = "8k/9/6PPP/9/9/9/9/9/9 b BL2rb4g4s4n3l15p 1"
    r = run_solve(good, "not a sfen", "--format", "jsonl", *HASH)
    assert r.returncode == 2, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["status"] for row in rows] == ["mate", "invalid"]
    assert "argument 2: skipped: no such file, and not a position" in r.stderr
    assert "an argument is a problem file, an SFEN" in r.stderr
    assert "a position argument could not be read" in r.stderr


def test_solve_help_gives_the_limits_defaults():
    r = subprocess.run(
        [sys.executable, "-m", "usi_mate", "solve", "--help"],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "time limit per problem in milliseconds (default: none;" in text
    assert "node limit per problem (default: none)" in text


def test_text_columns_line_up_with_long_and_wide_ids(tmp_path):
    # Ids over 40 columns pushed their line's columns right, and Japanese ids (two
    # terminal columns a character) were padded by characters (issue 46).
    import unicodedata

    sfen = "8k/9/6PPP/9/9/9/9/9/9 b BL2rb4g4s4n3l15p 1"
    ids = ["a", "x" * 60, "図巧第一番", "mixed図巧-7"]
    problems = tmp_path / "ids.sfen"
    problems.write_text("".join(f"{sfen} # 5 {i}\n" for i in ids), encoding="utf-8")
    r = run_solve(str(problems), *HASH)
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if line.endswith("3c3b+")]
    assert len(lines) == len(ids)

    def column_of_verdict(line: str) -> int:
        head = line[: line.index(" mate ")]
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in head)

    assert len({column_of_verdict(line) for line in lines}) == 1, lines
