"""scripts.bench runs out of the box: with no file it reads the collections the
repository carries (problems/), from any working directory, and a file it cannot
find is named together with USI_MATE_PROBLEMS, which supplies other collections.

Only a few problems with a short limit: this checks that the script runs, not how
fast the engines are (docs/BENCHMARKS.md has the measured runs)."""

from __future__ import annotations

from oracle import run_script


def run_bench(*args: str, cwd, env_extra: dict[str, str] | None = None):
    return run_script("scripts.bench", *args, cwd=cwd, env_extra=env_extra)


def test_default_run_uses_the_committed_collections(tmp_path):
    r = run_bench("--limit", "2", "--time", "5000", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("generated.sfen", "mogami_tests.sfen", "komori_mate_engine_test.sfen"):
        assert f"| {name} |" in r.stdout, r.stdout
    assert "### Wrong answers\n\nnone" in r.stdout, r.stdout


def test_bare_names_are_found_in_problems_and_in_usi_mate_problems(tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    line = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1 # 1 extra-1"
    (extra / "mine.sfen").write_text(line + "\n", encoding="utf-8")
    r = run_bench(
        "--no-peer",
        "--time",
        "5000",
        "mogami_tests.sfen",
        "mine.sfen",
        "--limit",
        "1",
        cwd=tmp_path,
        env_extra={"USI_MATE_PROBLEMS": str(extra)},
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| mogami_tests.sfen |" in r.stdout and "| mine.sfen |" in r.stdout, r.stdout


def test_a_missing_file_names_the_variable(tmp_path):
    r = run_bench("--no-peer", "tendo.sfen", cwd=tmp_path)
    assert r.returncode == 2
    assert "no such problem file: tendo.sfen" in r.stderr
    assert "USI_MATE_PROBLEMS" in r.stderr


def test_the_search_trace_prints_progress_rows_and_the_end(tmp_path):
    """scripts.trace_search (issue 47's tool): rows of the core's progress reports and a
    last row with the answer, its line replayed with cshogi and written to --lines, from
    any folder."""
    args = ["zukou.sfen", "--only", "zukou-002", "--seconds", "5", "--every", "0", "--hash", "16"]
    args += ["--threads", "2", "--lines", str(tmp_path / "lines")]
    r = run_script("scripts.trace_search", *args, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("| zukou-002 |")]
    assert rows and "mate " in rows[-1] and "(published 21)" in rows[-1], r.stdout
    assert "replayed with cshogi" in rows[-1], rows[-1]
    line = (tmp_path / "lines" / "zukou-002.usi").read_text(encoding="utf-8").split()
    assert line[:2] == ["position", "sfen"] and line[6] == "moves"
    assert len(line) - 7 == int(rows[-1].split("mate ")[1].split(",")[0])


def test_the_search_trace_bounds_the_length(tmp_path):
    """--max-length searches as `go depth` does: zukou-002 (21 plies) is proven within 21
    and has no mate within 19."""
    base = ["zukou.sfen", "--only", "zukou-002", "--seconds", "20", "--every", "0", "--hash", "16"]
    for bound, answer in ((21, "mate 21"), (19, "no mate within 19")):
        r = run_script("scripts.trace_search", *base, "--max-length", str(bound), cwd=tmp_path)
        assert r.returncode == 0, r.stdout + r.stderr
        last = [line for line in r.stdout.splitlines() if line.startswith("| zukou-002 |")][-1]
        assert f"| {answer}" in last, last


def test_the_one_call_table_runs_on_the_committed_mates_in_one(tmp_path):
    # scripts.one_call: solve(sfen) as a script writes it against cshogi's call; without
    # USI_MATE_PROBLEMS only nshogi's mates in one (in problems/) are there.
    r = run_script(
        "scripts.one_call", "--count", "20", cwd=tmp_path, env_extra={"USI_MATE_PROBLEMS": ""}
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| nshogi mate-1 (19 a column) |" in r.stdout, r.stdout
    assert r.stdout.count(" µs") == 3, r.stdout
