"""Batch throughput: the warm pool vs one fresh `grader grade` process per submission.

    python benchmarks/batch_throughput.py                 # class of 200, baseline sample of 16
    python benchmarks/batch_throughput.py -n 300 --loops 0
    python benchmarks/batch_throughput.py --memory-run 1000

The class (grader.batch.sampleclass) mixes correct, buggy, stub and hostile submissions (sys.exit
at import, os._exit, a fork bomb, an 8 GB allocation, monkeypatching torch, flooding stdout,
reading the solutions), handed in as folders, zips and notebooks inside a Canvas zip, each with
unique content so the cache cannot deduplicate; `--loops` adds students whose code never
returns (each costs the sandbox's call timeout, twice). Printed:

* pool: `grader batch` (library call, cold cache) wall time incl. pool start, submissions/s;
* baseline: one `python -m grader grade DIR --format json` process per submission for a
  stratified sample, run `--workers` at a time (the same parallelism), submissions/s;
* the ratio, and peak memory of the whole process tree (RSS, and PSS which counts pages
  shared between the forked workers once);
* with `--memory-run N`: a pool grading N submissions, memory of the tree every N/10.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from grader.batch import BatchOptions, run_batch  # noqa: E402
from grader.batch.pool import default_workers  # noqa: E402
from grader.batch.sampleclass import (  # noqa: E402
    describe,
    synthetic_class,
    write_canvas_zip,
    write_folder_class,
)
from grader.sandbox.zygote import process_parents  # noqa: E402

# ----------------------------------------------------------------------------- memory


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, ppid in process_parents().items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def _mem_kb(pid: int) -> tuple[int, int]:
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def tree_memory_mb(root: int | None = None) -> tuple[float, float]:
    """(RSS, PSS) in MB summed over `root` (default: this process) and all its descendants."""
    rss = pss = 0
    for pid in _tree(root or os.getpid()):
        r, p = _mem_kb(pid)
        rss += r
        pss += p
    return rss / 1024, pss / 1024


class PeakSampler:
    """Samples the tree's memory in a thread. One sample reads smaps_rollup of every process
    (about 40 ms of CPU with torch-sized processes, and it holds their memory-map locks), so
    it runs once a second and its own CPU time is reported (`cpu`) to be left out of the
    pool's."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self.peak_rss = self.peak_pss = 0.0
        self.own_cpu = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            c0 = time.thread_time()
            rss, pss = tree_memory_mb()
            self.own_cpu += time.thread_time() - c0
            self.peak_rss, self.peak_pss = max(self.peak_rss, rss), max(self.peak_pss, pss)
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


# ----------------------------------------------------------------------------- runs


# Both pool runs use one fixed fingerprint, so that teammates editing the grader during a
# long benchmark cannot turn the "nothing changed" re-run into a full regrade.
FINGERPRINT = f"benchmark-{os.getpid()}"


def cpu_seconds() -> float:
    """CPU used by this process and every descendant it has waited for (recursively)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def bench_pool(zpath: Path, out: Path, workers: int) -> tuple[float, int, PeakSampler]:
    with PeakSampler() as peak:
        t0 = time.perf_counter()
        peak.cpu0 = cpu_seconds()
        result = run_batch(
            BatchOptions(
                input=zpath, out=out, workers=workers, progress=False, fingerprint=FINGERPRINT
            )
        )
        wall = time.perf_counter() - t0
    peak.cpu = cpu_seconds() - peak.cpu0 - peak.own_cpu  # after join: own_cpu is final
    if result.internal_errors:
        print("internal errors:", *result.internal_errors[:5], sep="\n  ")
    return wall, len(result.graded), peak


def bench_baseline(folders: list[Path], workers: int) -> tuple[float, int]:
    """One cold `python -m grader grade` per submission, `workers` at a time."""
    cmd = [sys.executable, "-m", "grader", "grade"]
    queue = list(folders)
    running: list[subprocess.Popen] = []
    ok = 0
    t0 = time.perf_counter()
    c0 = cpu_seconds()
    while queue or running:
        while queue and len(running) < workers:
            running.append(
                subprocess.Popen(
                    [*cmd, str(queue.pop(0)), "--format", "json"],
                    cwd=REPO,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for p in list(running):
            if p.poll() is not None:
                running.remove(p)
                ok += p.returncode in (0, 1)
        time.sleep(0.02)
    bench_baseline.cpu = cpu_seconds() - c0
    return time.perf_counter() - t0, ok


def memory_run(n: int, workers: int, tmp: Path) -> None:
    from grader.batch.intake import open_intake
    from grader.batch.pool import GradingPool, Job
    from grader.pipeline import GradeOptions

    students = synthetic_class(n, seed=7, loops=0)
    zpath = write_canvas_zip(tmp / "mem.zip", students)
    with open_intake(zpath) as intake:
        subs = [e.load() for e in intake.entries]
    step = max(1, n // 10)
    rows: list[tuple[int, float, float, float]] = []
    print(f"\nmemory over {n} submissions ({workers} workers; whole process tree):")
    print(f"{'graded':>7} {'seconds':>8} {'RSS MB':>8} {'PSS MB':>8}", flush=True)
    t0 = time.perf_counter()
    count = 0
    with GradingPool(GradeOptions(), workers) as pool:

        def on_done(_done) -> None:
            nonlocal count
            count += 1
            if count % step == 0 or count == 1:
                rss, pss = tree_memory_mb()
                rows.append((count, time.perf_counter() - t0, rss, pss))
                print(f"{count:>7} {rows[-1][1]:>8.1f} {rss:>8.0f} {pss:>8.0f}", flush=True)

        pool.run([Job(f"m{i}", s) for i, s in enumerate(subs)], on_done)
    base = next((r for r in rows if r[0] >= step), rows[0])
    print(
        f"PSS change from {base[0]} to {rows[-1][0]} graded: "
        f"{rows[-1][3] - base[3]:+.0f} MB ({100 * (rows[-1][3] / base[3] - 1):+.1f}%)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=200, help="class size")
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument(
        "--loops",
        type=int,
        default=0,
        help="students whose code loops forever (each costs 2 call timeouts)",
    )
    ap.add_argument(
        "--baseline-sample",
        type=int,
        default=16,
        help="how many submissions the one-process-each baseline grades",
    )
    ap.add_argument("--memory-run", type=int, default=0, metavar="N")
    ap.add_argument("--skip-pool", action="store_true")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="batch-bench-") as d:
        tmp = Path(d)
        print(
            f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
            f"workers: {args.workers}"
        )
        if not args.skip_pool:
            students = synthetic_class(args.n, seed=1, loops=args.loops)
            print(f"class of {args.n}: {describe(students)}")
            zpath = write_canvas_zip(tmp / "submissions.zip", students)
            wall, graded, peak = bench_pool(zpath, tmp / "out", args.workers)
            pool_rate = graded / wall
            print(
                f"pool:     {graded} graded in {wall:.1f} s = {pool_rate:.2f} submissions/s "
                f"(peak memory: RSS {peak.peak_rss:.0f} MB, PSS {peak.peak_pss:.0f} MB)"
            )

            k = min(args.baseline_sample, len(students))
            sample = students[:: max(1, len(students) // k)][:k]
            for s in sample:
                s.form = "folder"
            write_folder_class(tmp / "baseline", sample)
            folders = [tmp / "baseline" / s.key for s in sample]
            bwall, bok = bench_baseline(folders, args.workers)
            base_rate = len(folders) / bwall
            print(
                f"baseline: {len(folders)} fresh `grader grade` processes ({bok} ok), "
                f"{args.workers} at a time, in {bwall:.1f} s = {base_rate:.2f} submissions/s"
            )
            print(f"ratio:    {pool_rate / base_rate:.1f}x (wall clock)")
            pool_cpu = peak.cpu / graded
            base_cpu = bench_baseline.cpu / len(folders)
            cores = os.cpu_count() or 1
            print(
                f"CPU per submission: pool {pool_cpu:.2f} s, baseline {base_cpu:.2f} s -> "
                f"ratio {base_cpu / pool_cpu:.1f}x; on {cores} idle cores that is about "
                f"{cores / pool_cpu:.1f} vs {cores / base_cpu:.2f} submissions/s"
            )
            t0 = time.perf_counter()
            rerun = run_batch(
                BatchOptions(input=zpath, out=tmp / "out", progress=False, fingerprint=FINGERPRINT)
            )
            print(
                f"re-run with nothing changed: {time.perf_counter() - t0:.2f} s "
                f"({rerun.graded_now} graded)"
            )
        if args.memory_run:
            memory_run(args.memory_run, args.workers, tmp)


if __name__ == "__main__":
    main()
