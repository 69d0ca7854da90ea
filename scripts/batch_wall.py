#!/usr/bin/env python3
"""Bulk throughput: ``solve_many`` and ``usi-mate solve`` with ``jobs`` 1 against 2, Dask
against ``--jobs 2``, and a long run's memory and resume.

Every run is a fresh process (interpreter start, worker start-up, tables, solving,
results), the settings interleaved so that load from other processes on the machine
hits them alike. Each table has its ratio against the first setting measured in the
same run, and the answers (status and line of every position) are checked to be the
same in every setting. CPU is the run's own and its workers' (user + system): on a
machine shared with other jobs, wall time rises with their load and CPU does not; the
best wall of the runs is the least disturbed. "search" adds the results' time_ms
(whole milliseconds, so short searches count as 0).

    python -m scripts.batch_wall                 # the bulk set: solve_many, then usi-mate solve
    python -m scripts.batch_wall --only api --repeat 1
    python -m scripts.batch_wall --only dask     # generated.sfen on a local Dask cluster
    python -m scripts.batch_wall --file problems/zukou.sfen -- --time 10000
    python -m scripts.batch_wall --memory /tmp/raw.sfen --kill-at 50000 -- --nodes 20000

The bulk set is problems/generated.sfen, generated_nonpromotion.sfen, nshogi_mate1.sfen
and nshogi_nomate1ply.sfen (5,048 positions), and yaneuraou500m_mate3-11.sfen (5,000)
when ``USI_MATE_PROBLEMS`` names the folder that has them (they are not in the
repository). Options after ``--`` go to every run (default ``--nodes 3000000 --hash 64``).

``--memory FILE`` runs ``usi-mate solve FILE --jobs 2 --format jsonl`` and prints the
client's resident memory (VmRSS, and its peak VmHWM) each time the output passes
10^k records; ``--kill-at N`` kills it (SIGKILL) after N records and resumes it with
``--resume``, then checks that every problem has exactly one record. Inputs for it:
``python -m scripts.make_problems --unlabelled N --out FILE``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The usi_mate that this Python imports (an in-place build in the checkout, or the
# installed package): child processes must import the same one.
PACKAGE_ROOT = str(Path(importlib.util.find_spec("usi_mate").origin).resolve().parent.parent)
ENV = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
SOLVE = [sys.executable, "-m", "usi_mate", "solve"]
COMMITTED = ["generated.sfen", "generated_nonpromotion.sfen"]
COMMITTED += ["nshogi_mate1.sfen", "nshogi_nomate1ply.sfen"]
EXTERNAL = [f"yaneuraou500m_mate{n}.sfen" for n in (3, 5, 7, 9, 11)]
DEFAULT_EXTRA = [
    "--nodes",
    "3000000",
    "--hash",
    "64",
]  # a node cap: the same answers under any load

# One timed solve_many in a fresh interpreter: the positions of a file, the options of
# usi-mate solve's --time/--nodes/--hash/--post-search; prints wall, CPU and answers.
API_DRIVER = r"""
import json, resource, sys, time
from usi_mate import solve_many
from usi_mate.problems import parse_problem_line

def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime

if __name__ == "__main__":
    path, jobs, options, dask = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
    texts = [parse_problem_line(line)[0] for line in open(path, encoding="utf-8")
             if line.strip() and not line.lstrip().startswith("#")]
    executor, client = None, None
    if dask:
        from distributed import Client
        client = Client(dask)
        executor = client.get_executor()
    start = time.perf_counter()
    results = [(r.status, r.moves, r.time_ms)
               for r in solve_many(texts, jobs=jobs, executor=executor, **options)]
    wall = time.perf_counter() - start
    print(json.dumps({"wall": wall, "cpu": cpu(resource.RUSAGE_SELF),
                      "children_cpu": cpu(resource.RUSAGE_CHILDREN), "answers": results}))
    if client is not None:
        client.close()
"""


def api_options(extra: list[str]) -> dict:
    """solve_many's keywords from usi-mate solve's options (the few a benchmark uses)."""
    names = {"--time": "time_limit_ms", "--nodes": "nodes_limit", "--hash": "hash_mb"}
    options: dict = {}
    for flag, value in zip(extra[::2], extra[1::2]):
        if flag in names:
            options[names[flag]] = int(value)
        elif flag == "--post-search":
            options["post_search"] = value
        else:
            sys.exit(f"--only api: {flag} has no solve_many keyword here")
    return options


def run_api(problem_file: Path, jobs: int, extra: list[str], dask: str = "") -> dict:
    """One timed solve_many in a fresh process."""
    proc = subprocess.run(
        [sys.executable, "-c", API_DRIVER, str(problem_file), str(jobs)]
        + [json.dumps(api_options(extra)), dask],
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"solve_many jobs {jobs}: exit {proc.returncode}\n{proc.stderr}")
    run = json.loads(proc.stdout)
    run["cpu"] += run.pop("children_cpu")
    run["search"] = sum(t for _, _, t in run["answers"]) / 1000
    run["answers"] = [(s, m) for s, m, _ in run["answers"]]
    return run


def run_command(problem_file: Path, jobs: int, extra: list[str]) -> dict:
    """One timed ``usi-mate solve --format jsonl --output`` in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        args = [*SOLVE, str(problem_file), "--jobs", str(jobs), "--format", "jsonl"]
        args += ["--output", str(out), "--no-progress", *extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(args, env=ENV, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            sys.exit(f"usi-mate solve --jobs {jobs}: exit {proc.returncode}\n{proc.stderr}")
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {
        "wall": wall,
        "cpu": cpu,
        "search": sum(r["time_ms"] for r in records) / 1000,
        "answers": [(r["id"], r["status"], r["moves"]) for r in records],
    }


def count_problems(path: Path) -> int:
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.strip() and not line.lstrip().startswith("#"))


def bulk_set(folder: Path) -> tuple[Path, list[str]]:
    """The bulk set in one temporary file (outside the repository), and its files' names."""
    files = [REPO / "problems" / name for name in COMMITTED]
    external = os.environ.get("USI_MATE_PROBLEMS")
    if external:
        files += [Path(external) / name for name in EXTERNAL if (Path(external) / name).exists()]
    path = folder / "bulk.sfen"
    with open(path, "w", encoding="utf-8") as out:
        for f in files:
            out.write(f.read_text(encoding="utf-8"))
            out.write("\n")
    return path, [f.name for f in files]


def table(title: str, runs: dict, n: int, base) -> None:
    """Median wall and CPU per setting, throughput, and the ratio against ``base``."""
    print(f"\n{title}\n")
    print(
        "| setting | runs | best wall (s) | median wall (s) | positions/s (best) | CPU (s) "
        "| search (s) | vs first (best) | vs first (median) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    base_best = min(r["wall"] for r in runs[base])
    base_wall = statistics.median(r["wall"] for r in runs[base])
    for setting, rs in runs.items():
        best = min(r["wall"] for r in rs)
        wall = statistics.median(r["wall"] for r in rs)
        cpu = statistics.median(r["cpu"] for r in rs)
        search = statistics.median(r["search"] for r in rs)
        print(
            f"| {setting} | {len(rs)} | {best:.2f} | {wall:.2f} | {n / best:.0f} | {cpu:.2f} "
            f"| {search:.2f} | {base_best / best:.2f}x | {base_wall / wall:.2f}x |"
        )
    reference = runs[base][0]["answers"]
    for setting, rs in runs.items():
        if setting != base:
            diff = sum(a != b for a, b in zip(reference, rs[0]["answers"]))
            same = "identical" if diff == 0 else f"{diff} of {n} differ"
            print(f"\nanswers of {setting} against {base}: {same}")


def interleaved(settings: dict, repeat: int) -> dict:
    runs: dict = {name: [] for name in settings}
    for _ in range(repeat):
        for name, run in settings.items():
            runs[name].append(run())
            print(f"  {name}: {runs[name][-1]['wall']:.2f} s", file=sys.stderr, flush=True)
    return runs


def jobs_tables(args, extra: list[str], folder: Path) -> None:
    if args.file is not None:
        path, names = args.file, [args.file.name]
    else:
        path, names = bulk_set(folder)
    n = count_problems(path)
    jobs_values = [int(j) for j in args.jobs.split(",")]
    print(f"positions: {n} ({', '.join(names)}); options: {' '.join(extra)}")
    if args.only in (None, "api"):
        settings = {
            f"solve_many(jobs={j})": (lambda j=j: run_api(path, j, extra)) for j in jobs_values
        }
        table(
            "solve_many",
            interleaved(settings, args.repeat),
            n,
            f"solve_many(jobs={jobs_values[0]})",
        )
    if args.only in (None, "command"):
        settings = {f"--jobs {j}": (lambda j=j: run_command(path, j, extra)) for j in jobs_values}
        table("usi-mate solve", interleaved(settings, args.repeat), n, f"--jobs {jobs_values[0]}")


def dask_table(args, extra: list[str]) -> None:
    """generated.sfen on a LocalCluster of 2 worker processes against solve_many(jobs=2)."""
    try:
        import distributed
    except ImportError:
        print("\nDask: not installed (pip install 'usi-mate[dask]'), skipped")
        return
    path = args.file or REPO / "problems" / "generated.sfen"
    n = count_problems(path)
    os.environ["PYTHONPATH"] = PACKAGE_ROOT  # the cluster's workers import this usi_mate
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        run_api(REPO / "problems" / "komori_mate_engine_test.sfen", 1, extra, address)  # warm-up
        settings = {
            "solve_many(jobs=1)": lambda: run_api(path, 1, extra),
            "solve_many(jobs=2)": lambda: run_api(path, 2, extra),
            "Dask, 2 workers": lambda: run_api(path, 1, extra, address),
        }
        runs = interleaved(settings, args.repeat)
    print(f"\nDask against worker processes: {path.name} ({n} positions), {' '.join(extra)}")
    title = "solve_many in this process, on 2 worker processes, on a local Dask cluster's 2"
    table(title, runs, n, "solve_many(jobs=1)")
    # The searches alone: one process searching back to back (no hand-over, no start-up).
    alone = statistics.median(r["wall"] for r in runs["solve_many(jobs=1)"])
    ours = statistics.median(r["wall"] for r in runs["solve_many(jobs=2)"])
    dask = statistics.median(r["wall"] for r in runs["Dask, 2 workers"])
    print(f"\nDask's wall against our worker processes': {dask / ours - 1:+.1%}")
    for name in ("solve_many(jobs=2)", "Dask, 2 workers"):
        wall = statistics.median(r["wall"] for r in runs[name])
        overhead = 2 * wall - alone  # two workers for the whole wall, less the searches
        print(
            f"\n{name}: 2 x wall - jobs=1 wall = {overhead:.2f} s, "
            f"{overhead / alone:.1%} of the search time, {overhead / n * 1000:.2f} ms a position"
        )


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in MB."""
    values = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) // 1024
    except OSError:
        pass
    return values


def _count_lines(path: Path, state: dict) -> int:
    """Lines of a growing file, read on from where the last call stopped."""
    try:
        with open(path, "rb") as f:
            f.seek(state.get("offset", 0))
            data = f.read()
    except FileNotFoundError:
        return 0
    whole = data.rfind(b"\n") + 1
    state["offset"] = state.get("offset", 0) + whole
    state["lines"] = state.get("lines", 0) + data.count(b"\n", 0, whole)
    return state["lines"]


def watch(command: list[str], out: Path, kill_at: int | None, label: str) -> None:
    """Run ``command``, print the client's memory at every 10^k records, kill at kill_at."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=ENV, stderr=subprocess.PIPE, text=True)
    state: dict = {"offset": 0, "lines": 0}
    _count_lines(out, state)  # a resumed output's records: not this run's
    first = state["lines"]
    mark = 10 ** len(str(max(first, 1)))
    peak: dict[str, int] = {}
    while proc.poll() is None:
        time.sleep(0.2)
        lines = _count_lines(out, state)
        status = _status(proc.pid)
        if status:
            peak = status
        while lines >= mark:
            print(
                f"| {label} | {mark:,} | {peak.get('VmRSS', 0)} | {peak.get('VmHWM', 0)} "
                f"| {time.perf_counter() - start:.0f} |",
                flush=True,
            )
            mark *= 10
        if kill_at is not None and lines >= kill_at:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            print(
                f"| {label}: killed (SIGKILL) | {lines:,} | {peak.get('VmRSS', 0)} "
                f"| {peak.get('VmHWM', 0)} | {time.perf_counter() - start:.0f} |",
                flush=True,
            )
            return
    stderr = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        sys.exit(f"{label}: exit {proc.returncode}\n{stderr}")
    lines = _count_lines(out, state)
    print(
        f"| {label}: done | {lines:,} | {peak.get('VmRSS', 0)} | {peak.get('VmHWM', 0)} "
        f"| {time.perf_counter() - start:.0f} |",
        flush=True,
    )
    print("\n".join(line for line in stderr.splitlines() if "already answered" in line))


def memory_run(args, extra: list[str], folder: Path) -> None:
    n = count_problems(args.memory)
    out = folder / "out.jsonl"
    command = [*SOLVE, str(args.memory), "--jobs", "2", "--format", "jsonl", "--output", str(out)]
    command += ["--no-progress", *extra]
    print(
        f"usi-mate solve {args.memory.name} ({n:,} positions) --jobs 2 --format jsonl "
        f"--output out.jsonl {' '.join(extra)}\n"
    )
    print("| run | records | client VmRSS (MB) | client VmHWM (MB) | seconds |")
    print("|---|---:|---:|---:|---:|")
    watch(command, out, args.kill_at, "first run")
    if args.kill_at is not None:
        watch([*command, "--resume"], out, None, "resumed")
    with open(args.memory, "rb") as f:
        file_lines = sum(1 for _ in f)
    seen = bytearray(file_lines + 1)  # by line number: comment lines count
    twice = 0
    with open(out, encoding="utf-8") as f:
        for line in f:
            number = json.loads(line)["line"]
            twice += seen[number]
            seen[number] = 1
    missing = n - sum(seen)
    print(
        f"\nrecords: {sum(seen) + twice:,} for {n:,} positions; written twice: {twice}; "
        f"missing: {missing}"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--file", type=Path, default=None, help="problem file (default: the bulk set)")
    p.add_argument("--jobs", default="1,2", help="comma-separated jobs values (default: 1,2)")
    p.add_argument("--repeat", type=int, default=2, help="runs per setting (default: 2)")
    p.add_argument("--only", choices=("api", "command", "dask"), default=None)
    p.add_argument("--memory", type=Path, default=None, metavar="FILE")
    p.add_argument("--kill-at", type=int, default=None, metavar="N")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="options for every run, after --")
    args = p.parse_args()
    extra = [a for a in args.extra if a != "--"] or DEFAULT_EXTRA
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"cpus: {os.cpu_count()}; load average before: {load}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.memory is not None:
            memory_run(args, extra, Path(tmp))
        else:
            if args.only != "dask":
                jobs_tables(args, extra, Path(tmp))
            if args.only in (None, "dask"):
                dask_table(args, extra)
    print(f"\nload average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
