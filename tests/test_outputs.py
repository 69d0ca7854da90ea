"""Output files in the encoding their name implies (usi_mate.outputs, issue 46 item 5).

By the KIF convention ``.kif`` is Shift_JIS and ``.kifu`` UTF-8: ``usi-mate solve`` and
``usi-mate check`` write a ``.kif`` file in CP932 with CRLF, a ``.kifu`` file, any
other name and stdout in UTF-8 with LF, and ``--encoding`` overrides the name. The
files are read back by our reader (:func:`usi_mate.kif.parse_kif`) and by an
independent one, python-shogi's ``shogi.KIF.Parser``, which decodes a file as CP932
first.

ShogiHome's reader (tsshogi) is an npm package, and npm is out of reach of this machine
and of CI: it is not run here. What ShogiHome does with a file is pinned by these
tests instead: it decodes ``.kif`` as Shift_JIS and ``.kifu`` as UTF-8 (ShogiHome's
``src/common/file/record.ts``), and tsshogi splits lines on ``\\r?\\n``.

The commands run in this process (one worker thread, no subprocess): a 9-ply mate
takes a few milliseconds.
"""

from __future__ import annotations

import csv
import json

import pytest

from usi_mate import Position
from usi_mate.batch import main as solve_main
from usi_mate.check_cli import main as check_main
from usi_mate.kif import parse_kif
from usi_mate.outputs import OutputError, encoding_name, open_output, output_encoding

try:
    import shogi.KIF
except ImportError:  # pragma: no cover - python-shogi is a test dependency
    shogi = None

# Tendō banqueta #1 (9 plies), as in test_kif.py.
TENDO_1 = "9/9/9/5Bnns/7k1/6r2/6B2/7N1/9 b 3Grg3sn4l18p 1"
# test_check.py's COOK_AT_3: cooked at move 3, so its KIF has variations (変化).
COOK_AT_3 = "9/8k/6n1N/8B/9/8L/9/9/9 b 2NG2rb3g4s3l18p 1"
SMALL = ["--hash", "16"]


def solve(*args: str) -> int:
    return solve_main([*args, *SMALL, "--no-progress"])


def kif_line(text: str) -> tuple[str, tuple[str, ...]]:
    record = parse_kif(text)
    return record.sfen, record.moves


def solver_line(tmp_path) -> list[str]:
    """The solver's line for TENDO_1, from a jsonl record (no KIF in between)."""
    out = tmp_path / "line.jsonl"
    assert solve(TENDO_1, "--format", "jsonl", "--output", str(out)) == 0
    return json.loads(out.read_text(encoding="utf-8"))["moves"]


def assert_mates(sfen: str, moves) -> None:
    pos = Position(sfen)
    for move in moves:
        pos.push_usi(move)
    assert pos.is_mate()


# ---------------------------------------------------------------------------
# The rule: name, then --encoding


@pytest.mark.parametrize(
    ("path", "encoding", "expected"),
    [
        ("checked.kif", None, "cp932"),
        ("CHECKED.KIF", None, "cp932"),
        ("a.ki2", None, "cp932"),
        ("checked.kifu", None, "utf-8"),
        ("a.ki2u", None, "utf-8"),
        ("results.txt", None, "utf-8"),
        ("kif", None, "utf-8"),
        (None, None, "utf-8"),
        ("-", None, "utf-8"),
        ("checked.kif", "utf-8", "utf-8"),
        ("results.txt", "sjis", "shift_jis"),
        (None, "ms932", "cp932"),
    ],
)
def test_the_name_implies_the_encoding_and_encoding_overrides_it(path, encoding, expected):
    assert output_encoding(path, encoding) == expected


@pytest.mark.parametrize("name", ["klingon", "base64", "rot13"])
def test_an_unknown_or_non_text_encoding_is_refused(name):
    with pytest.raises(Exception, match=f"unknown text encoding '{name}'"):
        encoding_name(name)


@pytest.mark.parametrize("main", [solve_main, check_main])
def test_an_unknown_encoding_is_a_usage_error(main, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([TENDO_1, "--encoding", "klingon"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --encoding: unknown text encoding 'klingon'" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------------------
# usi-mate solve


def test_kif_output_read_back_by_a_cp932_reader(tmp_path):
    out = tmp_path / "checked.kif"
    assert solve(TENDO_1, "--format", "kif", "--output", str(out)) == 0
    data = out.read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # Shift_JIS, not UTF-8 that happens to read as both
    text = data.decode("cp932")  # strict: every byte is CP932
    assert text.count("\r\n") == text.count("\n") > 20  # CRLF, every line
    assert not text.startswith("\ufeff") and "#KIF" not in text
    assert "後手の持駒：" in text and "まで9手で詰み" in text
    sfen, moves = kif_line(text)
    assert sfen == TENDO_1
    assert list(moves) == solver_line(tmp_path)
    assert_mates(sfen, moves)


@pytest.mark.skipif(shogi is None, reason="python-shogi not installed")
def test_kif_output_read_back_by_python_shogi(tmp_path):
    # python-shogi's KIF reader, independent of ours: parse_file decodes as CP932 first
    # (then UTF-8), and parse_str reads one record without variations (変化).
    out = tmp_path / "checked.kif"
    assert solve(TENDO_1, "--format", "kif", "--output", str(out)) == 0
    (theirs,) = shogi.KIF.Parser.parse_file(str(out))
    assert shogi.KIF.Parser.parse_str(out.read_bytes().decode("cp932")) == [theirs]
    sfen, moves = kif_line(out.read_bytes().decode("cp932"))
    assert theirs["moves"] == list(moves)
    assert theirs["win"] == "b"  # 詰み after black's last move: black wins
    # Board and hands agree (python-shogi writes a hand of one as "1r": normalised).
    board, side, hands, _ = shogi.Board(theirs["sfen"]).sfen().split()
    assert [board, hands] == shogi.Board(sfen).sfen().split()[0::2]
    # Its known defect: the side to move of a set-up position is taken after the last
    # move (parse_str flips its turn on every move and builds the SFEN at the end), so a
    # 9-ply line from black's position reads as white to move.
    assert sfen.split()[1] == "b" and side == "w"


def test_kifu_output_is_utf8_with_lf(tmp_path):
    kif, kifu = tmp_path / "checked.kif", tmp_path / "checked.kifu"
    assert solve(TENDO_1, "--format", "kif", "--output", str(kif)) == 0
    assert solve(TENDO_1, "--format", "kif", "--output", str(kifu)) == 0
    data = kifu.read_bytes()
    assert b"\r" not in data and not data.startswith(b"\xef\xbb\xbf")
    text = data.decode("utf-8")
    assert kif_line(text) == kif_line(kif.read_bytes().decode("cp932"))


def test_encoding_overrides_the_name(tmp_path, capsysbinary):
    out = tmp_path / "checked.kif"
    assert solve(TENDO_1, "--format", "kif", "--output", str(out), "--encoding", "utf-8") == 0
    data = out.read_bytes()
    assert b"\r" not in data
    assert kif_line(data.decode("utf-8"))[0] == TENDO_1
    capsysbinary.readouterr()
    # Shift_JIS on stdout, for a reader that wants it (CRLF goes with the encoding).
    assert solve(TENDO_1, "--format", "kif", "--encoding", "cp932") == 0
    data = capsysbinary.readouterr().out
    assert b"\r\n" in data
    assert kif_line(data.decode("cp932"))[0] == TENDO_1


def test_stdout_stays_utf8(capsysbinary):
    assert solve(TENDO_1, "--format", "kif") == 0
    data = capsysbinary.readouterr().out
    assert b"\r" not in data
    assert kif_line(data.decode("utf-8"))[0] == TENDO_1


def test_a_character_cp932_lacks_is_one_error_before_any_search(tmp_path, capsys):
    problems = tmp_path / "p.sfen"
    problems.write_text(f"{TENDO_1} # 9 café-1\n", encoding="utf-8")
    out = tmp_path / "checked.kif"
    assert solve(str(problems), "--format", "kif", "--output", str(out)) == 2
    err = capsys.readouterr().err
    assert err == (
        f"usi-mate solve: error: cannot write {out}: 'é' (U+00E9) in problem id 'café-1' "
        "has no cp932 form; write UTF-8 with --encoding utf-8 or a .kifu name\n"
    )  # one line: no traceback, and no summary (nothing was solved)
    assert out.read_bytes() == b""
    # The same problems in a .kifu file, or with --encoding utf-8, are written.
    assert solve(str(problems), "--format", "kif", "--output", str(tmp_path / "c.kifu")) == 0
    assert solve(str(problems), "--format", "kif", "--output", str(out), "--encoding", "utf8") == 0
    assert "# café-1" in out.read_text(encoding="utf-8")


def test_a_character_the_encoding_lacks_in_a_record_ends_the_file_after_the_last_record(
    tmp_path,
):
    # What check_encodable does not see beforehand (a message from the search, say)
    # fails at its record: nothing of that record is written, what came before is whole.
    path = tmp_path / "out.kif"
    out = open_output(str(path))
    out.write("# 1\n   1 ５二金打\n\n")
    with pytest.raises(OutputError) as error:
        out.write("# 2 naïve\n   1 ５二金打\n\n")
    out.write("# 3\n")  # a no-op after the failure: one message
    out.close()
    assert str(error.value) == (
        f"cannot write {path}: 'ï' (U+00EF) has no cp932 form; "
        "write UTF-8 with --encoding utf-8 or a .kifu name"
    )
    assert path.read_bytes().decode("cp932") == "# 1\r\n   1 ５二金打\r\n\r\n"


# ---------------------------------------------------------------------------
# usi-mate check


def test_check_writes_kif_files_by_the_same_rule(tmp_path, capsys):
    kif, kifu = tmp_path / "checked.kif", tmp_path / "checked.kifu"
    for out in (kif, kifu):
        status = check_main(
            [COOK_AT_3, "--format", "kif", "--output", str(out), "--nodes", "2000000", *SMALL]
        )
        assert status == 1  # cooked
    text = kif.read_bytes().decode("cp932")
    assert text.count("\r\n") == text.count("\n") and "変化：3手" in text
    utf8 = kifu.read_bytes()
    assert b"\r" not in utf8 and utf8.decode("utf-8") == text.replace("\r\n", "\n")
    sfen, moves = kif_line(text)  # the main line; the variations are skipped
    assert Position(sfen).sfen() == Position(COOK_AT_3).sfen() and len(moves) == 5
    assert_mates(sfen, moves)
    # usi-mate check reads its own .kif back (it takes UTF-8, else CP932).
    assert check_main([str(kif), "--nodes", "2000000", *SMALL]) == 1
    assert "main line (given line, 5 plies)" in capsys.readouterr().out


# ---------------------------------------------------------------------------
# The name chooses the format too, unless --format says otherwise


def _read_as(path, fmt: str) -> object:
    """What a reader of ``fmt`` makes of the file (each fails on another format)."""
    text = path.read_bytes().decode(output_encoding(str(path)))
    if fmt == "kif":
        return kif_line(text)
    if fmt == "jsonl":
        return [json.loads(line)["moves"] for line in text.splitlines()]
    if fmt == "csv":
        header, row = list(csv.reader(text.splitlines()))
        assert header[:2] == ["id", "sfen"]
        return row[header.index("moves")].split()
    assert fmt == "text"
    assert "mate 9" in text and not text.startswith(("{", "id,", "#", "開始"))
    return text


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("x.kif", "kif"),
        ("X.KIF", "kif"),
        ("x.kifu", "kif"),
        ("x.csv", "csv"),
        ("x.jsonl", "jsonl"),
        ("x.txt", "text"),
        ("results", "text"),
    ],
)
def test_the_output_name_chooses_the_format(tmp_path, name, fmt):
    # `usi-mate solve POSITION --output x.kif` once wrote the text table into a CP932
    # file that no KIF reader could open.
    out = tmp_path / name
    assert solve(TENDO_1, "--output", str(out)) == 0
    got = _read_as(out, fmt)
    if fmt == "kif":
        assert got[0] == TENDO_1 and list(got[1]) == solver_line(tmp_path)


@pytest.mark.skipif(shogi is None, reason="python-shogi not installed")
def test_a_kif_named_output_without_format_is_read_by_python_shogi(tmp_path):
    out = tmp_path / "answer.kif"
    assert solve(TENDO_1, "--output", str(out)) == 0
    (theirs,) = shogi.KIF.Parser.parse_file(str(out))
    assert theirs["moves"] == solver_line(tmp_path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "text", "--output", "x.kif"], "--format text contradicts --output"),
        (["--format", "jsonl", "--output", "x.csv"], "--format jsonl contradicts --output"),
        (["--format", "kif", "--output", "x.jsonl"], "--format kif contradicts --output"),
        (["--output", "x.ki2"], "a .ki2 file is KI2, which this command does not write"),
        (["--format", "kif", "--output", "x.ki2u"], "a .ki2u file is KI2"),
    ],
)
def test_a_format_that_contradicts_the_name_is_refused(tmp_path, capsys, args, message):
    args = [a.replace("x.", str(tmp_path / "x.")) for a in args]
    assert solve(TENDO_1, *args) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written, no search made


def test_check_chooses_its_format_from_the_name_too(tmp_path, capsys):
    kif, page = tmp_path / "checked.kif", tmp_path / "checked.html"
    assert check_main([COOK_AT_3, "--output", str(kif), "--nodes", "2000000", *SMALL]) == 1
    assert "変化：3手" in kif.read_bytes().decode("cp932")
    assert check_main([COOK_AT_3, "--output", str(page), "--nodes", "2000000", *SMALL]) == 1
    assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html>")
    capsys.readouterr()
    csv_out = str(tmp_path / "checked.csv")
    assert check_main([COOK_AT_3, "--output", csv_out, *SMALL]) == 2
    assert "a .csv file is CSV, which this command does not write" in capsys.readouterr().err
    assert check_main([COOK_AT_3, "--format", "text", "--output", str(kif), *SMALL]) == 2
    assert "--format text contradicts" in capsys.readouterr().err
