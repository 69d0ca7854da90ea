"""scripts.suite_under_load, the check that no test depends on the machine's speed: it
runs a suite beside busy processes, says how each run went and names what failed."""

from __future__ import annotations

from oracle import run_script


def test_it_runs_a_suite_beside_busy_processes_and_names_what_failed(tmp_path):
    (tmp_path / "test_good.py").write_text("def test_ok():\n    assert True\n")
    (tmp_path / "test_bad.py").write_text("def test_fails():\n    assert 1 == 2\n")
    r = run_script(
        "scripts.suite_under_load", "--runs", "2", "--hogs", "1", "--", "-q", "test_good.py",
        cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(": passed in ") == 2
    assert r.stdout.endswith("2 of 2 runs passed beside 1 busy process\n")
    r = run_script(
        "scripts.suite_under_load", "--runs", "1", "--hogs", "1", "--logs", "logs", "--",
        "-q", "test_bad.py",
        cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 1, r.stdout + r.stderr
    assert "run 1/1: FAILED" in r.stdout and "test_bad.py::test_fails" in r.stdout
    assert "assert 1 == 2" in (tmp_path / "logs" / "run-1.txt").read_text()
