"""Many problems on a Dask cluster (the optional ``dask`` extra): ``solve_many`` with
``executor=client.get_executor()`` and ``usi-mate solve --dask ADDRESS``, on a local
cluster of 2 worker processes. Skipped when ``distributed`` is not installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Executor
from pathlib import Path

import pytest
from test_certify import sample, tsume_position

import usi_mate
from usi_mate import solve_many

distributed = pytest.importorskip(
    "distributed", reason="the Dask extra is not installed (pip install '.[dask]')"
)

PACKAGE_ROOT = str(Path(usi_mate.__file__).resolve().parent.parent)
MATE_IN_1 = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"


@pytest.fixture(scope="module")
def cluster():
    # Worker processes import usi_mate like this test does (an in-place build included).
    os.environ["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


def test_solve_many_on_a_cluster_keeps_input_order(cluster):
    positions = sample(tsume_position, 41, 40)
    texts = [*positions[:20], "not a position", *positions[20:], MATE_IN_1]
    with distributed.Client(cluster) as client:
        results = list(
            solve_many(texts, executor=client.get_executor(), hash_mb=16, nodes_limit=20_000)
        )
    local = list(solve_many(texts, hash_mb=16, nodes_limit=20_000))
    assert len(results) == len(texts)
    assert results[20].status == "invalid" and results[20].error
    assert results[-1].status == "mate" and results[-1].moves == ["G*5b"]
    for remote, here in zip(results, local):
        if "unknown" not in (remote.status, here.status):
            assert remote.status == here.status


def test_positions_go_to_the_cluster_in_chunks(cluster):
    # One task a chunk, not a position: Dask's ~3.5 ms a task is paid once a chunk.
    class Counting(Executor):
        def __init__(self, inner):
            self.inner, self.tasks, self.positions = inner, 0, 0

        def submit(self, fn, /, *args, **kwargs):
            self.tasks += 1
            self.positions += len(args[0])
            return self.inner.submit(fn, *args, **kwargs)

    texts = [MATE_IN_1] * 400
    with distributed.Client(cluster) as client:
        executor = Counting(client.get_executor())
        results = list(solve_many(texts, executor=executor, hash_mb=16, nodes_limit=20_000))
    assert [r.moves for r in results] == [["G*5b"]] * 400
    assert executor.positions == 400 and executor.tasks < 400 / 4, executor.tasks


def test_solve_command_with_dask(cluster, tmp_path):
    problems = tmp_path / "p.sfen"
    problems.write_text(f"{MATE_IN_1} # 1 m1\nnonsense # 3 broken\n{MATE_IN_1} # 1 m1b\n")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "usi_mate",
            "solve",
            str(problems),
            "--dask",
            cluster.scheduler_address,
            "--format",
            "jsonl",
            "--hash",
            "16",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PACKAGE_ROOT,
        env={**os.environ, "PYTHONPATH": PACKAGE_ROOT},
    )
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["id"] for r in records] == ["m1", "broken", "m1b"]
    assert [r["status"] for r in records] == ["mate", "invalid", "mate"]
    assert records[0]["moves"] == ["G*5b"]


def test_resume_on_a_cluster_writes_every_record_once(cluster, tmp_path):
    problems = tmp_path / "p.sfen"
    problems.write_text("".join(f"{MATE_IN_1} # 1 m{n}\n" for n in range(30)))
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "usi_mate", "solve", str(problems), "--dask"]
    command += [cluster.scheduler_address, "--format", "jsonl", "-o", str(out), "--hash", "16"]

    def run(*extra):
        return subprocess.run(
            [*command, *extra],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=PACKAGE_ROOT,
            env={**os.environ, "PYTHONPATH": PACKAGE_ROOT},
        )

    assert run().returncode == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:10] + lines[12:20]) + lines[20][:30])  # gaps, a torn end
    r = run("--resume")
    assert r.returncode == 0, r.stderr
    assert "18 of 30 problems already answered" in r.stderr
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == sorted(f"m{n}" for n in range(30))


def test_dask_address_that_does_not_answer_is_a_usage_error(tmp_path):
    # Dask's own connect timeout, set the way a user would, keeps the wait short.
    run = subprocess.run(
        [sys.executable, "-m", "usi_mate", "solve", MATE_IN_1, "--dask", "tcp://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PACKAGE_ROOT,
        env={
            **os.environ,
            "PYTHONPATH": PACKAGE_ROOT,
            "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s",
        },
    )
    assert run.returncode == 2
    assert "--dask tcp://127.0.0.1:9" in run.stderr


def test_the_wait_for_a_scheduler_is_dasks_setting_or_ten_seconds():
    import dask.config

    from usi_mate.batch import _dask_connect_timeout

    assert _dask_connect_timeout() == "10s"
    with dask.config.set({"distributed.comm.timeouts.connect": "3s"}):
        assert _dask_connect_timeout() == "3s"
